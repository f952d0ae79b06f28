//! [`OpError`]: why an op rule failed, as values; the driver adds the node once.
//! The problems a variant carries are in `problems.rs`; who they are about in
//! `roles.rs`.

use super::{AttrProblem, AttrValue, DimRole, Hint, ShapeValueProblem, Subject};
use crate::algebra::{AlgebraError, DimExpr};
use crate::graph::DType;
use std::borrow::Cow;
use std::fmt;

/// Why an op rule could not produce its outputs. Every variant carries the values
/// involved; dims are [`DimExpr`]s, which print in the expression grammar.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OpError {
    /// The node is not of the op type the function handles.
    #[error("expected op {expected}, found {found}")]
    WrongOp {
        /// The op the function handles.
        expected: &'static str,
        /// The node's op.
        found: String,
    },
    /// Fewer or more inputs than the op takes.
    #[error("takes {expected} inputs, found {found}")]
    InputCount {
        /// Accepted counts, such as `2` or `1 to 3`.
        expected: Expected,
        /// The node's count.
        found: usize,
    },
    /// Fewer outputs than the op produces.
    #[error("has no output")]
    NoOutput,
    /// A required input is absent (an empty name).
    #[error("input {index} ({what}) is required")]
    MissingInput {
        /// Input index.
        index: usize,
        /// What the input is.
        what: &'static str,
    },
    /// An input names a tensor the context does not hold.
    #[error("input {index} names tensor `{name}`, which is not known")]
    UnknownTensor {
        /// Input index.
        index: usize,
        /// Tensor name.
        name: String,
    },
    /// A required attribute is missing.
    #[error("attribute `{name}` is required")]
    MissingAttribute {
        /// Attribute name.
        name: &'static str,
    },
    /// An attribute has the wrong kind or an invalid value.
    #[error("attribute `{name}` = {value}: {why}")]
    BadAttribute {
        /// Attribute name.
        name: &'static str,
        /// The value.
        value: AttrValue,
        /// What is wrong.
        why: Box<AttrProblem>,
    },
    /// An element type the op version does not allow.
    #[error("element type {dtype} of {what} is not allowed in this version (allowed: {allowed})")]
    UnsupportedType {
        /// The type found.
        dtype: DType,
        /// Which input.
        what: &'static str,
        /// The allowed types.
        allowed: Allowed,
    },
    /// Inputs whose types must match do not.
    #[error("element types differ: {conflict}")]
    TypeMismatch {
        /// Which inputs and types.
        conflict: TypeConflict,
    },
    /// An operand's rank is wrong.
    #[error("{of} has rank {found}, expected {expected}")]
    Rank {
        /// Which operand.
        of: Box<Subject>,
        /// The ranks accepted.
        expected: Expected,
        /// The rank found.
        found: usize,
    },
    /// An axis outside `[-rank, rank)`.
    #[error("axis {axis} is out of range for rank {rank}")]
    AxisOutOfRange {
        /// The axis as given.
        axis: i64,
        /// The rank.
        rank: usize,
    },
    /// A shape input holds a value the op forbids (or has a shape it forbids).
    #[error("{0}")]
    BadShapeValue(Box<ShapeValueProblem>),
    /// Two dims that must be equal are provably different.
    #[error("{dims}: {left} != {right}")]
    DimMismatch {
        /// Which dims (for example `axis 1 of A and B`).
        dims: Box<DimRole>,
        /// One dim.
        left: DimExpr,
        /// The other dim.
        right: DimExpr,
    },
    /// The element counts of input and output differ.
    #[error("volume mismatch: input has {input} elements, output has {output}{}", if *.proven { "" } else { " (not provably equal)" })]
    VolumeMismatch {
        /// Input element count.
        input: DimExpr,
        /// Output element count.
        output: DimExpr,
        /// True when provably different.
        proven: bool,
    },
    /// Reshape's `-1` cannot be inferred: the algebra proved the division fails.
    #[error("cannot infer the -1 at axis {axis} of target {} from input {}: {source}", DimExpr::list(.target), DimExpr::list(.input))]
    MinusOne {
        /// The axis of the `-1` in the target.
        axis: usize,
        /// The target shape.
        target: Vec<DimExpr>,
        /// The input shape.
        input: Vec<DimExpr>,
        /// Why the quotient does not exist (a division proven not to be exact).
        source: Box<AlgebraError>,
    },
    /// A subgraph (an If branch, a Loop or Scan body) could not be inferred.
    #[error("attribute `{name}` = <graph {graph}>: {source}")]
    Subgraph {
        /// The attribute holding the subgraph.
        name: &'static str,
        /// The subgraph's name.
        graph: String,
        /// Why it could not be inferred.
        source: SubgraphError,
    },
    /// A failure of the dim algebra (non-exact division, contradiction, ...).
    #[error(transparent)]
    Algebra(#[from] AlgebraError),
}

/// Why a subgraph could not be inferred ([`super::ShapesContext::run_subgraph`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SubgraphError {
    /// The context has no subgraph runner: the inference driver sets one, a
    /// context made by hand has none.
    #[error("no subgraph runner is set (the inference driver sets one)")]
    NoRunner,
    /// Subgraphs nest deeper than the limit ([`super::MAX_SUBGRAPH_DEPTH`]).
    #[error("subgraphs nest deeper than {limit}")]
    TooDeep {
        /// The limit.
        limit: usize,
    },
}

impl OpError {
    /// True for the spec's "out of range" errors (an input missing from the
    /// context); every other error is an "invalid argument".
    pub fn is_out_of_range(&self) -> bool {
        matches!(
            self,
            OpError::UnknownTensor { .. } | OpError::MissingInput { .. }
        )
    }

    /// True when the error proves the node invalid for every value of the symbols
    /// (a rank or dim mismatch, a contradiction, a division proven not exact), and
    /// false when it only says something is unknown or undecided (an unknown rank, a
    /// missing tensor, a division not proven exact).
    pub fn is_proven(&self) -> bool {
        match self {
            OpError::Rank { .. }
            | OpError::AxisOutOfRange { .. }
            | OpError::DimMismatch { .. }
            | OpError::BadShapeValue { .. }
            | OpError::TypeMismatch { .. }
            | OpError::UnsupportedType { .. } => true,
            OpError::VolumeMismatch { proven, .. } => *proven,
            OpError::MinusOne { source, .. } => algebra_error_proven(source),
            OpError::Algebra(e) => algebra_error_proven(e),
            OpError::WrongOp { .. }
            | OpError::InputCount { .. }
            | OpError::NoOutput
            | OpError::MissingInput { .. }
            | OpError::UnknownTensor { .. }
            | OpError::MissingAttribute { .. }
            | OpError::BadAttribute { .. }
            | OpError::Subgraph { .. } => false,
        }
    }

    /// The assumption that would make the model valid, where one exists: a
    /// division not proven exact is valid when the divisor divides the dividend, a
    /// volume not proven equal when the two counts are equal.
    pub fn hint(&self) -> Option<Hint> {
        match self {
            OpError::Algebra(AlgebraError::NotDivisible {
                dividend,
                divisor,
                proven: false,
                ..
            }) => Some(Hint::Divides {
                divisor: divisor.clone(),
                dividend: dividend.clone(),
            }),
            OpError::VolumeMismatch {
                input,
                output,
                proven: false,
            } => Some(Hint::Equal(input.clone(), output.clone())),
            _ => None,
        }
    }
}

/// A number of dims (a rank) or of inputs that an op accepts, as its errors state
/// it: `3`, `1 to 3`, `at least 2`, `3, 4 or 5`, `4 (the rank of W)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expected {
    /// Exactly this many: `4`.
    Exactly(usize),
    /// From the first to the second, both included: `1 to 3`.
    Between(usize, usize),
    /// At least this many: `at least 3`.
    AtLeast(usize),
    /// This many or more: `1 or more`.
    OrMore(usize),
    /// At most this many: `at most 2`.
    AtMost(usize),
    /// Any of these: `2 or 3`, `3, 4 or 5`, `0 or at least 2`.
    Either(Vec<Expected>),
    /// Rank 0: `a scalar`.
    Scalar,
    /// A fixed part and a repeating group of inputs: `2 + 3*n (n >= 1)`.
    Repeating {
        /// The inputs before the groups.
        fixed: usize,
        /// The inputs of one group.
        per: usize,
    },
    /// A count of something plus more: `data rank 4 + 1`.
    Plus {
        /// What is counted.
        of: &'static str,
        /// Its count.
        count: usize,
        /// How many more.
        more: usize,
    },
    /// A count with where it comes from: `4 (the rank of W)`.
    Noted(Box<Expected>, Cow<'static, str>),
    /// A count of a named kind: `at least 2 scan inputs`.
    Counting(Box<Expected>, &'static str),
    /// A form a fixed text states: `[1]` (a 1-D tensor of one element),
    /// `both 3 or both 4 (or a 5-D packed key)`.
    Described(&'static str),
}

impl Expected {
    /// Any of these counts: `2 or 3`.
    pub fn either(counts: &[usize]) -> Expected {
        Expected::Either(counts.iter().map(|n| Expected::Exactly(*n)).collect())
    }

    /// This count with where it comes from: `4 (the rank of W)`.
    pub fn noted(self, note: impl Into<Cow<'static, str>>) -> Expected {
        Expected::Noted(Box::new(self), note.into())
    }
}

impl From<usize> for Expected {
    fn from(n: usize) -> Expected {
        Expected::Exactly(n)
    }
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expected::Exactly(n) => write!(f, "{n}"),
            Expected::Between(lo, hi) => write!(f, "{lo} to {hi}"),
            Expected::AtLeast(n) => write!(f, "at least {n}"),
            Expected::OrMore(n) => write!(f, "{n} or more"),
            Expected::AtMost(n) => write!(f, "at most {n}"),
            Expected::Either(all) => {
                for (i, e) in all.iter().enumerate() {
                    if i + 1 == all.len() && i > 0 {
                        f.write_str(" or ")?;
                    } else if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{e}")?;
                }
                Ok(())
            }
            Expected::Scalar => f.write_str("a scalar"),
            Expected::Repeating { fixed, per } => write!(f, "{fixed} + {per}*n (n >= 1)"),
            Expected::Plus { of, count, more } => write!(f, "{of} {count} + {more}"),
            Expected::Noted(e, note) => write!(f, "{e} ({note})"),
            Expected::Counting(e, kind) => write!(f, "{e} {kind}"),
            Expected::Described(text) => f.write_str(text),
        }
    }
}

/// The element types an op version allows for an input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Allowed {
    /// These types, printed by their short names: `i32, i64`.
    Types(Vec<DType>),
    /// These types, printed as the ONNX spec's type constraints name them:
    /// `int32, int64`.
    OnnxTypes(Vec<DType>),
    /// Any numeric type.
    Numeric,
    /// Any integer type.
    Integer,
}

impl fmt::Display for Allowed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Allowed::Types(types) | Allowed::OnnxTypes(types) => {
                for (i, t) in types.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    match (self, t.onnx_name()) {
                        (Allowed::OnnxTypes(_), Some(name)) => {
                            for c in name.chars() {
                                write!(f, "{}", c.to_ascii_lowercase())?;
                            }
                        }
                        _ => f.write_str(t.short_name())?,
                    }
                }
                Ok(())
            }
            Allowed::Numeric => f.write_str("any numeric type"),
            Allowed::Integer => f.write_str("any integer type"),
        }
    }
}

/// Element types that must agree and do not, or a type change an op cannot make.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeConflict {
    /// Two inputs of different types: `data is f32, updates is i64`.
    Inputs {
        /// The first input.
        first: String,
        /// Its type.
        first_type: DType,
        /// The second input.
        second: String,
        /// Its type.
        second_type: DType,
    },
    /// A sequence and a tensor to put in it: `the sequence holds f32, the tensor is
    /// i64`.
    SequenceElement {
        /// The sequence's element type.
        sequence: DType,
        /// The tensor's type.
        tensor: DType,
    },
    /// A `BitCast` from or to strings, which have no bit pattern.
    BitCastString {
        /// The input's type.
        from: DType,
        /// The target type.
        to: DType,
    },
    /// A `BitCast` between types of different bit widths.
    BitCastWidth {
        /// The input's type.
        from: DType,
        /// Its width.
        from_bits: u32,
        /// The target type.
        to: DType,
        /// Its width.
        to_bits: u32,
    },
}

impl TypeConflict {
    /// Two inputs of different types.
    pub fn inputs(
        first: impl Into<String>,
        first_type: DType,
        second: impl Into<String>,
        second_type: DType,
    ) -> TypeConflict {
        TypeConflict::Inputs {
            first: first.into(),
            first_type,
            second: second.into(),
            second_type,
        }
    }
}

impl fmt::Display for TypeConflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TypeConflict::Inputs {
                first,
                first_type,
                second,
                second_type,
            } => write!(f, "{first} is {first_type}, {second} is {second_type}"),
            TypeConflict::SequenceElement { sequence, tensor } => {
                write!(f, "the sequence holds {sequence}, the tensor is {tensor}")
            }
            TypeConflict::BitCastString { from, to } => {
                write!(f, "BitCast of {from} to {to}: strings have no bit pattern")
            }
            TypeConflict::BitCastWidth {
                from,
                from_bits,
                to,
                to_bits,
            } => write!(
                f,
                "BitCast of {from} ({from_bits} bits) to {to} ({to_bits} bits): the widths must match"
            ),
        }
    }
}

/// True when an algebra error proves an impossibility (not merely an unknown).
fn algebra_error_proven(e: &AlgebraError) -> bool {
    match e {
        AlgebraError::Contradiction { .. } | AlgebraError::DivisionByZero { .. } => true,
        AlgebraError::NotDivisible { proven, .. } => *proven,
        AlgebraError::Parse(_) | AlgebraError::TooLarge { .. } => false,
    }
}
