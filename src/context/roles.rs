//! What an op error is about, as values: the operand whose rank is wrong
//! ([`Subject`], [`super::OpError::Rank`]) and the dims that must be equal
//! ([`DimRole`], [`super::OpError::DimMismatch`]). Each prints in the words of the
//! op's spec (`input X`, `batch of Q and K`, `axis 2 of X and I`).

use crate::algebra::DimExpr;
use std::fmt;

/// The operand of [`super::OpError::Rank`]: an input or attribute of the op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    /// An input or attribute as the op's spec names it, with a note where one helps:
    /// `data`, `input X`, `B (broadcast to A)`, `output_shape (its length)`.
    Named(&'static str),
    /// Tensor `index` of a variadic group of inputs named `name`: `G 0`, `V or H 1`.
    Nth {
        /// The group's name.
        name: &'static str,
        /// The tensor's index in the group.
        index: usize,
    },
    /// Input `index` with its shape: `input 2 [N, 3]`.
    Input {
        /// The input's index.
        index: usize,
        /// Its shape.
        shape: Vec<DimExpr>,
    },
    /// A shape input named `name`, with its own shape: `shape input [2, 3]`.
    ShapeInput {
        /// The input's name.
        name: &'static str,
        /// Its shape.
        shape: Vec<DimExpr>,
    },
    /// The key and value of an attention, whose ranks must agree, with their ranks:
    /// `key and value (ranks 3 and 4)`.
    KeyAndValue {
        /// The ranks of the key and of the value.
        ranks: [usize; 2],
    },
    /// Input `input` of an Einsum with its term of the equation: `input 1 (term
    /// "ij")`.
    EinsumTerm {
        /// The input's index.
        input: usize,
        /// Its term of the equation.
        term: String,
    },
}

impl From<&'static str> for Subject {
    fn from(name: &'static str) -> Subject {
        Subject::Named(name)
    }
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Subject::Named(name) => f.write_str(name),
            Subject::Nth { name, index } => write!(f, "{name} {index}"),
            Subject::Input { index, shape } => {
                write!(f, "input {index} {}", DimExpr::list(shape))
            }
            Subject::ShapeInput { name, shape } => {
                write!(f, "{name} input {}", DimExpr::list(shape))
            }
            Subject::KeyAndValue { ranks: [k, v] } => {
                write!(f, "key and value (ranks {k} and {v})")
            }
            Subject::EinsumTerm { input, term } => write!(f, "input {input} (term {term:?})"),
        }
    }
}

/// One operand or two, as the op's spec names them: `past_key`, `Q and K`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operands {
    /// One operand.
    One(&'static str),
    /// Two operands.
    Two(&'static str, &'static str),
}

impl From<&'static str> for Operands {
    fn from(name: &'static str) -> Operands {
        Operands::One(name)
    }
}

impl From<(&'static str, &'static str)> for Operands {
    fn from((a, b): (&'static str, &'static str)) -> Operands {
        Operands::Two(a, b)
    }
}

impl fmt::Display for Operands {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operands::One(a) => f.write_str(a),
            Operands::Two(a, b) => write!(f, "{a} and {b}"),
        }
    }
}

/// The dims of [`super::OpError::DimMismatch`], which a valid model needs equal (the
/// same words name an equality an op rule assumed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DimRole {
    /// A relation the op's spec states, in its words: `C must broadcast to [M, N]`,
    /// `the last two dims (a square matrix)`, `rois box length`.
    Stated(&'static str),
    /// A dim the op's spec names, of one operand or two: `batch of Q and K`,
    /// `heads of past_key`.
    Of {
        /// The dim.
        dim: &'static str,
        /// The operands.
        of: Operands,
    },
    /// An axis of one operand or two: `axis 2 of X and I`, `axis 0 of past_state`.
    Axis {
        /// The axis.
        axis: usize,
        /// The operands.
        of: Operands,
    },
    /// Batch dim `index` of two operands: `batch dim 0 of data and indices`.
    BatchDim {
        /// The batch dim's index.
        index: usize,
        /// The operands.
        of: Operands,
    },
    /// Spatial axis `axis` of two operands: `spatial axis 0 of the interpolated src
    /// and diff_dst`.
    SpatialAxis {
        /// The spatial axis (0 for the first spatial dim).
        axis: usize,
        /// The operands.
        of: Operands,
    },
    /// An axis of ScatterND's `updates` and the shape they must have,
    /// `indices.shape[:-1] + data.shape[k:]`: `axis 1 of updates and
    /// indices.shape[:-1] + data.shape[2:]`.
    ScatterNdUpdates {
        /// The axis.
        axis: usize,
        /// The length of an index tuple, `indices.shape[-1]`.
        k: usize,
    },
    /// Batch axis `axis` of two operands: `batch axis 0 of data and indices`.
    BatchAxis {
        /// The axis.
        axis: usize,
        /// The operands.
        of: Operands,
    },
    /// The length of a 1-D operand and the dim it must match: `length of bias`.
    Length {
        /// The operand.
        of: &'static str,
    },
    /// A relation the op's spec states about one axis, the axis last:
    /// `blocked scale axis 1`, `pdpd broadcast axis 2`, `the split sizes must add up
    /// to axis 0`.
    AtAxis {
        /// The relation.
        what: &'static str,
        /// The axis.
        axis: usize,
    },
    /// An axis Squeeze removes, which must be 1: `squeezed axis 2 must be 1`.
    Squeezed {
        /// The axis.
        axis: usize,
    },
    /// A dim Concat needs equal in two of its inputs: `dim 1 of input 0 and input 2
    /// (Concat on axis 0 needs every other dim equal)`.
    ConcatDim {
        /// The dim.
        dim: usize,
        /// The two inputs.
        inputs: [usize; 2],
        /// The axis Concat joins on.
        axis: usize,
    },
    /// An axis of two shapes broadcast against each other, counted from the left of
    /// the broadcast shape: `broadcasting axis 1 (counted from the left of the
    /// broadcast shape)`.
    Broadcasting {
        /// The axis.
        axis: usize,
    },
    /// An axis of tensor `index` of an optimizer's `X` and of the same tensor of
    /// another group: `axis 0 of X 1 and G 1`.
    OptimizerAxis {
        /// The axis.
        axis: usize,
        /// The other group (`G`, `V or H`, `H`).
        group: &'static str,
        /// The tensor's index in the groups.
        index: usize,
    },
    /// A `require` line of a declared op rule ([`crate::read::oprules`]): `op rule at
    /// rules.txt:3: require out0 == in0`.
    Requirement {
        /// Where the line is.
        at: Box<crate::read::oprules::Location>,
        /// The requirement as written.
        text: String,
    },
    /// The channels a oneDNN convolution's data and weights must agree on:
    /// `input channels: src C and groups * weights I`.
    Channels {
        /// `input` or `output`.
        side: &'static str,
        /// The data operand whose `C` it is: `src`, `diff_dst`, `dst_shape`.
        data: &'static str,
        /// Whether the weights' side counts once per group (`groups * weights I`).
        grouped: bool,
        /// The weights' axis, `I` or `O`.
        weights: &'static str,
    },
    /// ONNX's `kernel_shape` attribute and the spatial dims of `W`, at spatial axis
    /// `axis`: `kernel_shape[1] and W spatial dim 1`.
    KernelShape {
        /// The spatial axis.
        axis: usize,
    },
}

impl DimRole {
    /// `dim` of `of`: `batch of Q and K`.
    pub fn of(dim: &'static str, of: impl Into<Operands>) -> DimRole {
        DimRole::Of { dim, of: of.into() }
    }

    /// Axis `axis` of `of`: `axis 2 of X and I`.
    pub fn axis(axis: usize, of: impl Into<Operands>) -> DimRole {
        DimRole::Axis {
            axis,
            of: of.into(),
        }
    }
}

impl From<&'static str> for DimRole {
    fn from(text: &'static str) -> DimRole {
        DimRole::Stated(text)
    }
}

impl fmt::Display for DimRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DimRole::Stated(text) => f.write_str(text),
            DimRole::Of { dim, of } => write!(f, "{dim} of {of}"),
            DimRole::Axis { axis, of } => write!(f, "axis {axis} of {of}"),
            DimRole::BatchDim { index, of } => write!(f, "batch dim {index} of {of}"),
            DimRole::SpatialAxis { axis, of } => write!(f, "spatial axis {axis} of {of}"),
            DimRole::ScatterNdUpdates { axis, k } => write!(
                f,
                "axis {axis} of updates and indices.shape[:-1] + data.shape[{k}:]"
            ),
            DimRole::BatchAxis { axis, of } => write!(f, "batch axis {axis} of {of}"),
            DimRole::Length { of } => write!(f, "length of {of}"),
            DimRole::AtAxis { what, axis } => write!(f, "{what} {axis}"),
            DimRole::Squeezed { axis } => write!(f, "squeezed axis {axis} must be 1"),
            DimRole::ConcatDim {
                dim,
                inputs: [a, b],
                axis,
            } => write!(
                f,
                "dim {dim} of input {a} and input {b} (Concat on axis {axis} needs every other dim equal)"
            ),
            DimRole::Broadcasting { axis } => write!(
                f,
                "broadcasting axis {axis} (counted from the left of the broadcast shape)"
            ),
            DimRole::OptimizerAxis { axis, group, index } => {
                write!(f, "axis {axis} of X {index} and {group} {index}")
            }
            DimRole::Requirement { at, text } => write!(f, "op rule at {at}: require {text}"),
            DimRole::Channels {
                side,
                data,
                grouped,
                weights,
            } => {
                let times = if *grouped { "groups * " } else { "" };
                write!(f, "{side} channels: {data} C and {times}weights {weights}")
            }
            DimRole::KernelShape { axis } => {
                write!(f, "kernel_shape[{axis}] and W spatial dim {axis}")
            }
        }
    }
}
