//! What is wrong with an attribute or a shape input, as values: the parts of
//! [`OpError::BadAttribute`](super::OpError::BadAttribute) and
//! [`OpError::BadShapeValue`](super::OpError::BadShapeValue).
//!
//! Each reason carries the numbers, dims ([`DimExpr`]) and exact values ([`Rat`])
//! it states, and prints the sentence of the message.

use crate::algebra::{DimExpr, Rat};
use crate::context::Expected;
use crate::graph::{Attr, DType, DeclDim};
use std::fmt;

/// A float of an attribute, compared by its bits (so a NaN equals itself and the
/// errors that carry it are `Eq`).
#[derive(Clone, Copy, Debug)]
pub struct AttrFloat(pub f64);

impl PartialEq for AttrFloat {
    fn eq(&self, other: &AttrFloat) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for AttrFloat {}

impl fmt::Display for AttrFloat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// An attribute's value as an error shows it: the graph's [`Attr`] kinds (with a
/// tensor's type and dims and a graph's name standing for the whole), and the other
/// forms messages give a value in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttrValue {
    /// An integer: `3`.
    Int(i64),
    /// A list of integers: `[1, -1]`.
    Ints(Vec<i64>),
    /// A float: `2.5`.
    Float(AttrFloat),
    /// A list of floats: `[1, 2.5]`.
    Floats(Vec<AttrFloat>),
    /// A list of floats each written with its decimal point: `[1.0, 2.5]`.
    PointedFloats(Vec<AttrFloat>),
    /// A string, quoted: `"NOTSET"`.
    Str(String),
    /// A list of strings, quoted: `["a", "b"]`.
    Strs(Vec<String>),
    /// A tensor, by its type and dims: `<tensor f32 [2]>`.
    Tensor {
        /// Its element type.
        dtype: DType,
        /// Its dims.
        dims: Vec<i64>,
    },
    /// A subgraph, by its name: `<graph body>`.
    Graph(String),
    /// A list of subgraphs, by their count: `<2 graphs>`.
    Graphs(usize),
    /// An element type: `f32`.
    Type(DType),
    /// A partial shape: `[?, 3]`, `[...]` for a dynamic rank.
    Shape(Option<Vec<DeclDim>>),
    /// A name, unquoted: `floor`.
    Word(String),
    /// A value that may be absent, as Rust prints an option: `None`, `Some("UP")`.
    Optional(Option<Box<AttrValue>>),
    /// Attribute names: `value_int, value_float`.
    Names(Vec<&'static str>),
    /// Dims: `[N, 3]`.
    Dims(Vec<DimExpr>),
    /// A boolean: `true`.
    Bool(bool),
    /// A description of what was given: `both label lists`.
    Described(&'static str),
    /// A count of value lists given: `2 value lists`.
    ValueLists(usize),
}

impl From<&Attr> for AttrValue {
    fn from(a: &Attr) -> AttrValue {
        match a {
            Attr::Int(v) => AttrValue::Int(*v),
            Attr::Ints(v) => AttrValue::Ints(v.clone()),
            Attr::Float(v) => AttrValue::Float(AttrFloat(*v)),
            Attr::Floats(v) => AttrValue::Floats(v.iter().map(|x| AttrFloat(*x)).collect()),
            Attr::Str(s) => AttrValue::Str(s.clone()),
            Attr::Strs(v) => AttrValue::Strs(v.clone()),
            Attr::Tensor(t) => AttrValue::Tensor {
                dtype: t.dtype,
                dims: t.dims.clone(),
            },
            Attr::Graph(g) => AttrValue::Graph(g.name.clone()),
            Attr::Graphs(g) => AttrValue::Graphs(g.len()),
            Attr::Type(t) => AttrValue::Type(*t),
            Attr::Shape(s) => AttrValue::Shape(s.clone()),
        }
    }
}

impl AttrValue {
    /// A list of floats each written with its decimal point: `[1.0, 2.5]`.
    pub fn pointed_floats(values: &[f64]) -> AttrValue {
        AttrValue::PointedFloats(values.iter().map(|x| AttrFloat(*x)).collect())
    }
}

/// `[a, b]` with each item as `item` writes it.
fn write_list<T>(
    f: &mut fmt::Formatter<'_>,
    items: &[T],
    item: impl Fn(&mut fmt::Formatter<'_>, &T) -> fmt::Result,
) -> fmt::Result {
    f.write_str("[")?;
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        item(f, x)?;
    }
    f.write_str("]")
}

impl fmt::Display for AttrValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttrValue::Int(v) => write!(f, "{v}"),
            AttrValue::Ints(v) => write_list(f, v, |f, x| write!(f, "{x}")),
            AttrValue::Float(v) => write!(f, "{v}"),
            AttrValue::Floats(v) => write_list(f, v, |f, x| write!(f, "{x}")),
            AttrValue::PointedFloats(v) => write_list(f, v, |f, x| write!(f, "{:?}", x.0)),
            AttrValue::Str(s) => write!(f, "{s:?}"),
            AttrValue::Strs(v) => write_list(f, v, |f, x| write!(f, "{x:?}")),
            AttrValue::Tensor { dtype, dims } => write!(f, "<tensor {dtype} {dims:?}>"),
            AttrValue::Graph(name) => write!(f, "<graph {name}>"),
            AttrValue::Graphs(n) => write!(f, "<{n} graphs>"),
            AttrValue::Type(t) => f.write_str(t.short_name()),
            AttrValue::Shape(s) => write!(f, "{}", Attr::Shape(s.clone())),
            AttrValue::Word(w) => f.write_str(w),
            AttrValue::Optional(None) => f.write_str("None"),
            AttrValue::Optional(Some(v)) => write!(f, "Some({v})"),
            AttrValue::Names(names) => f.write_str(&names.join(", ")),
            AttrValue::Dims(dims) => write!(f, "{}", DimExpr::list(dims)),
            AttrValue::Bool(b) => write!(f, "{b}"),
            AttrValue::Described(text) => f.write_str(text),
            AttrValue::ValueLists(n) => write!(f, "{n} value lists"),
        }
    }
}

/// The values an attribute may take, as a message lists them: `0 or 1`,
/// `floor, ceil or ceil_torch`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Choices {
    /// Names.
    Names(Vec<&'static str>),
    /// Integers.
    Ints(Vec<i64>),
}

/// `a, b or c`.
fn write_choices<T: fmt::Display>(f: &mut fmt::Formatter<'_>, items: &[T]) -> fmt::Result {
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(if i + 1 == items.len() { " or " } else { ", " })?;
        }
        write!(f, "{x}")?;
    }
    Ok(())
}

impl fmt::Display for Choices {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Choices::Names(names) => write_choices(f, names),
            Choices::Ints(values) => write_choices(f, values),
        }
    }
}

/// How a list attribute's expected length is stated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LengthForm {
    /// `expected 4 entries`.
    Entries,
    /// `expected 2 entries (one per spatial axis)`.
    EntriesPerSpatialAxis,
    /// `expected 2 values, one per spatial axis`.
    ValuesPerSpatialAxis,
    /// `expected 2 values`.
    Values,
    /// `expected one entry per input (3)`.
    OnePerInput,
}

/// What is wrong with an attribute's value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AttrProblem {
    /// Of another kind than the one read: `expected an int, found string`.
    #[error("expected {expected}, found {found}")]
    WrongKind {
        /// The kind read.
        expected: &'static str,
        /// The attribute's kind ([`Attr::kind`]).
        found: &'static str,
    },
    /// Of a kind the op does not take: `unexpected attribute kind graph`.
    #[error("unexpected attribute kind {0}")]
    UnexpectedKind(&'static str),
    /// Not of the form read: `expected a list of integers`.
    #[error("expected {0}")]
    ExpectedKind(&'static str),
    /// None of the values the op takes: `expected 0 or 1`, `expected none, add or
    /// mul (max and min from opset 18)`.
    #[error("expected {accepted}{}", .note.map(|n| format!(" ({n})")).unwrap_or_default())]
    NotOneOf {
        /// The values taken.
        accepted: Choices,
        /// When some of them are taken, where that depends on the version.
        note: Option<&'static str>,
    },
    /// None of the names the op takes, listed: `expected one of none, sum, max`.
    #[error("expected one of {}", .0.join(", "))]
    NotListed(Vec<&'static str>),
    /// Zero or negative: `must be positive`.
    #[error("must be positive")]
    NotPositive,
    /// Below a least value: `must be at least 1`.
    #[error("must be at least {0}")]
    Below(i64),
    /// Negative: `must be non-negative`.
    #[error("must be non-negative")]
    Negative,
    /// A list entry of the wrong sign: `entry 0 is not positive`.
    #[error("entry {entry} is not {expected}")]
    EntryNot {
        /// The entry.
        entry: i64,
        /// What entries must be: `positive`, `non-negative`.
        expected: &'static str,
    },
    /// A negative list entry: `entry -1 is negative`.
    #[error("entry {0} is negative")]
    EntryNegative(i64),
    /// A list with an entry that is not positive: `entries must be positive`.
    #[error("entries must be positive")]
    EntriesNotPositive,
    /// A list of the wrong length: `expected 2 entries (one per spatial axis)`.
    #[error("{}", length_text(*.expected, *.form))]
    Length {
        /// The length expected.
        expected: usize,
        /// How the message states it.
        form: LengthForm,
    },
    /// Split sizes that do not match the outputs: `3 entries for 2 outputs`.
    #[error("{entries} entries for {outputs} outputs")]
    EntriesForOutputs {
        /// The list's length.
        entries: usize,
        /// The node's outputs.
        outputs: usize,
    },
    /// A count that is not the node's output count: `the node has 3 outputs`.
    #[error("the node has {0} outputs")]
    NodeOutputs(usize),
    /// A branch with fewer outputs than the node: `the branch has 1 outputs; the
    /// node has 2`.
    #[error("the branch has {branch} outputs; the node has {node}")]
    BranchOutputs {
        /// The branch's outputs.
        branch: usize,
        /// The node's outputs.
        node: usize,
    },
    /// Branches whose outputs differ, or are fewer than the node's: `the branches
    /// have 2 and 1 outputs; the node has 2`.
    #[error("the branches have {then_branch} and {else_branch} outputs; the node has {node}")]
    BranchesOutputs {
        /// The then branch's outputs.
        then_branch: usize,
        /// The else branch's outputs.
        else_branch: usize,
        /// The node's outputs.
        node: usize,
    },
    /// `use_affine` without the three outputs it produces.
    #[error("needs 3 outputs (diff_src, diff_gamma, diff_beta), found {0}")]
    AffineOutputs(usize),
    /// Two attributes of which one at most may be set: `only one of cats_strings
    /// and cats_int64s may be set`.
    #[error("only one of {0} and {1} may be set")]
    OnlyOneOf(&'static str, &'static str),
    /// A negative `batch_dims` beyond the indices' rank.
    #[error("out of range for indices of rank {0}")]
    BeyondIndicesRank(usize),
    /// A `batch_dims` above the indices' rank or the axis.
    #[error("must be at most the indices rank {rank} and the axis {axis}")]
    AboveRankOrAxis {
        /// The indices' rank.
        rank: usize,
        /// The gather axis.
        axis: usize,
    },
    /// A GatherND `batch_dims` outside `[0, min(rank(data), rank(indices)))`.
    #[error("must be in [0, min(rank(data), rank(indices))) = [0, {0})")]
    BatchDimsRange(usize),
    /// Not a multiple of another attribute: `not a multiple of kv_num_heads 3`.
    #[error("not a multiple of {of} {value}")]
    NotMultipleOf {
        /// The other attribute.
        of: &'static str,
        /// Its value.
        value: i64,
    },
    /// Not a permutation of the axes: `must be a permutation of 0..3`.
    #[error("must be a permutation of 0..{0}")]
    NotPermutation(usize),
    /// Mod's `fmod = 0` on a float type before version 28.
    #[error("must be 1 for the float type {0}")]
    FmodOnFloat(DType),
    /// An attribute the op's version does not have: `Reshape-13 has no allowzero
    /// attribute (added in 14)`.
    #[error("{op}-{version} has no {attribute} attribute (added in {since})")]
    NotInVersion {
        /// The op.
        op: &'static str,
        /// The node's version.
        version: i64,
        /// The attribute.
        attribute: &'static str,
        /// The version that added it.
        since: i64,
    },
    /// An Einsum equation that does not parse or names labels wrongly.
    #[error("{0}")]
    Equation(EquationProblem),
    /// A reshape target that is not valid (its value is the attribute's).
    #[error("{0}")]
    Target(TargetProblem),
    /// A StaticReshape `shape` valid for no value of the symbols.
    #[error("with input {}, the shape attribute is valid for no value of the symbols: {why}", DimExpr::list(.input))]
    NeverValid {
        /// The input's dims.
        input: Vec<DimExpr>,
        /// Why, with the element counts.
        why: NeverValid,
    },
    /// A problem stated by a fixed text: `not an element type`.
    #[error("{0}")]
    Fixed(&'static str),
}

impl AttrProblem {
    /// None of these names: `expected floor, ceil or ceil_torch`.
    pub fn one_of(names: &[&'static str]) -> AttrProblem {
        AttrProblem::NotOneOf {
            accepted: Choices::Names(names.to_vec()),
            note: None,
        }
    }

    /// None of these integers: `expected 0 or 1`.
    pub fn one_of_ints(values: &[i64]) -> AttrProblem {
        AttrProblem::NotOneOf {
            accepted: Choices::Ints(values.to_vec()),
            note: None,
        }
    }
}

fn length_text(n: usize, form: LengthForm) -> String {
    match form {
        LengthForm::Entries => format!("expected {n} entries"),
        LengthForm::EntriesPerSpatialAxis => format!("expected {n} entries (one per spatial axis)"),
        LengthForm::ValuesPerSpatialAxis => format!("expected {n} values, one per spatial axis"),
        LengthForm::Values => format!("expected {n} values"),
        LengthForm::OnePerInput => format!("expected one entry per input ({n})"),
    }
}

/// What is wrong with an Einsum equation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EquationProblem {
    /// A term with two ellipses.
    #[error("term `{0}` has two ellipses")]
    TwoEllipses(String),
    /// A character that is neither a letter nor part of an ellipsis.
    #[error("unexpected character {found:?} in term `{term}`")]
    UnexpectedCharacter {
        /// The character.
        found: char,
        /// The term.
        term: String,
    },
    /// An output label no input term has.
    #[error("output label {0:?} is not in any input term")]
    UnknownLabel(char),
    /// An output label written twice.
    #[error("output label {0:?} appears twice")]
    RepeatedLabel(char),
}

/// What is wrong with a reshape target (a `shape` input's value or attribute).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TargetProblem {
    /// An entry that is not an integer.
    #[error("{value} at axis {axis} is not an integer")]
    NotInteger {
        /// The entry.
        value: Rat,
        /// Its axis.
        axis: usize,
    },
    /// Two `-1` entries.
    #[error("more than one -1 (axes {first} and {second})")]
    TwoMinusOnes {
        /// The first `-1`'s axis.
        first: usize,
        /// The second's.
        second: usize,
    },
    /// An entry below `-1`.
    #[error("{value} at axis {axis} is below -1 (values must be >= -1)")]
    BelowMinusOne {
        /// The entry.
        value: Rat,
        /// Its axis.
        axis: usize,
    },
    /// A copying `0` past the input's rank.
    #[error("the 0 at axis {axis} copies input dim {axis}, but the input {} has rank {}", DimExpr::list(.input), .input.len())]
    ZeroPastRank {
        /// The `0`'s axis.
        axis: usize,
        /// The input's dims.
        input: Vec<DimExpr>,
    },
    /// A literal `0` and a `-1` together, which leave the `-1` undetermined.
    #[error("with {flag} the target may not hold both 0 (axis {zero}) and -1 (axis {minus_one}): the -1 cannot be determined")]
    ZeroWithMinusOne {
        /// The setting under which `0` is literal: `allowzero=1`.
        flag: &'static str,
        /// The `0`'s axis.
        zero: usize,
        /// The `-1`'s axis.
        minus_one: usize,
    },
    /// A `-1` beside output dims whose product is 0.
    #[error("cannot infer the -1 at axis {axis}: the other output dims {} multiply to 0", DimExpr::list(.others))]
    ZeroProduct {
        /// The `-1`'s axis.
        axis: usize,
        /// The other output dims.
        others: Vec<DimExpr>,
    },
    /// A `-1` beside output dims whose product is 0, with an input that is not
    /// zero-size (OpenVINO, which takes 1 for a zero-size input).
    #[error("cannot infer the -1 at axis {axis}: the other output dims {} multiply to 0 and the input {} is not zero-size", DimExpr::list(.others), DimExpr::list(.input))]
    ZeroProductNonEmptyInput {
        /// The `-1`'s axis.
        axis: usize,
        /// The other output dims.
        others: Vec<DimExpr>,
        /// The input's dims.
        input: Vec<DimExpr>,
    },
}

/// Why a StaticReshape `shape` attribute holds for no value of the symbols, with
/// the element counts of the input (`input`) and of the shape's entries (`shape`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NeverValid {
    /// With a `-1`: the other entries' product never divides the input's count.
    #[error("the other entries' product {shape} never divides the input's {input} elements")]
    NeverDivides {
        /// The input's element count.
        input: DimExpr,
        /// The product of the entries other than the `-1`.
        shape: DimExpr,
    },
    /// The counts differ for every value.
    #[error("the input has {input} elements and the shape {shape}")]
    Counts {
        /// The input's element count.
        input: DimExpr,
        /// The shape's.
        shape: DimExpr,
    },
    /// The one entry that could fix the counts would need a value no symbol gives.
    #[error("the input has {input} elements and the shape {shape}; shape[{index}] = {value} would need {need} == {value}, which no value satisfies")]
    EntryNeverFits {
        /// The input's element count.
        input: DimExpr,
        /// The shape's.
        shape: DimExpr,
        /// The entry's index.
        index: usize,
        /// Its value.
        value: i64,
        /// The value it would need.
        need: DimExpr,
    },
}

/// What is wrong with the value (or the shape) of an op's input: which input, and
/// why, with its values.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShapeValueProblem {
    /// A list with another length than its count: `split has 3 entries for 2
    /// outputs`.
    #[error("{what} has {found} entries for {count} {of}")]
    EntriesFor {
        /// The input.
        what: &'static str,
        /// Its length.
        found: usize,
        /// The count it must match.
        count: usize,
        /// What is counted: `axes`, `spatial axes`, `outputs`.
        of: &'static str,
    },
    /// A list of the wrong length: `crop_size has 3 entries, expected 2`.
    #[error("{what} has {found} entries, expected {expected}")]
    Entries {
        /// The input.
        what: &'static str,
        /// Its length.
        found: usize,
        /// The length expected.
        expected: Expected,
    },
    /// Pads that are not a begin and an end per axis.
    #[error("pads has {found} entries, expected {} (begin and end of {axes} axes)", 2 * .axes)]
    PadsEntries {
        /// The pads' length.
        found: usize,
        /// The padded axes.
        axes: usize,
    },
    /// A negative length: `output_shape has -1 entries`.
    #[error("{what} has {count} entries")]
    NegativeLength {
        /// The input.
        what: &'static str,
        /// Its length.
        count: i64,
    },
    /// Two lists that must have one length: `starts has 2 entries but ends has 3`.
    #[error("{first} has {first_len} entries but {other} has {other_len}")]
    LengthsDiffer {
        /// The first list.
        first: &'static str,
        /// Its length.
        first_len: usize,
        /// The list that differs.
        other: &'static str,
        /// Its length.
        other_len: usize,
    },
    /// Slice bounds of different lengths: `start, stop and step have 2, 3 and 2
    /// entries`.
    #[error("{}, {} and {} have {}, {} and {} entries", .names[0], .names[1], .names[2], .lens[0], .lens[1], .lens[2])]
    BoundLengths {
        /// The three lists.
        names: [&'static str; 3],
        /// Their lengths.
        lens: [usize; 3],
    },
    /// OpenVINO Pad's lists not of the data's rank.
    #[error("pads_begin has {begin} and pads_end {end} entries for data of rank {rank}")]
    PadLengths {
        /// `pads_begin`'s length.
        begin: usize,
        /// `pads_end`'s length.
        end: usize,
        /// The data's rank.
        rank: usize,
    },
    /// BatchToSpace/SpaceToBatch lists not of the data's rank.
    #[error("block_shape, begins and ends must have {rank} entries (the data's rank), found {block}, {begins} and {ends}")]
    BlockLengths {
        /// The data's rank.
        rank: usize,
        /// `block_shape`'s length.
        block: usize,
        /// The begins' length.
        begins: usize,
        /// The ends' length.
        ends: usize,
    },
    /// An `axes_mapping` not of the data's rank.
    #[error("axes_mapping {mapping:?} has {} entries for data of rank {rank}", .mapping.len())]
    AxesMappingLength {
        /// The mapping.
        mapping: Vec<i64>,
        /// The data's rank.
        rank: usize,
    },
    /// Image and block sizes that do not give one entry per spatial axis (two or
    /// more).
    #[error(
        "the image ({image}) and block ({block}) sizes need one entry per spatial axis, at least 2"
    )]
    PatchSizes {
        /// The image size's length.
        image: usize,
        /// The block size's length.
        block: usize,
    },
    /// Slice entries that do not match their axes.
    #[error("{entries} slice entries for axes {axes:?} of a rank-{rank} input")]
    SliceAxes {
        /// The slice entries.
        entries: usize,
        /// The axes.
        axes: Vec<usize>,
        /// The input's rank.
        rank: usize,
    },
    /// Strided-slice entries that consume more axes than the input has.
    #[error("{entries} slice entries consume more than the {rank} input axes")]
    SliceEntriesPastRank {
        /// The slice entries.
        entries: usize,
        /// The input's rank.
        rank: usize,
    },
    /// A negative entry: `shape entry -2 is negative`.
    #[error("{what} entry {value} is negative")]
    NegativeEntry {
        /// The input.
        what: &'static str,
        /// The entry.
        value: DimExpr,
    },
    /// A negative size: `size is negative: -3`.
    #[error("{what} is negative: {value}")]
    Negative {
        /// The input.
        what: &'static str,
        /// Its value.
        value: DimExpr,
    },
    /// A negative TopK `k`.
    #[error("k = {0} is negative")]
    NegativeK(DimExpr),
    /// A negative OneHot depth.
    #[error("depth {0} must not be negative")]
    NegativeDepth(DimExpr),
    /// A negative OneHot index before version 11.
    #[error("index {0} is negative (allowed from opset 11)")]
    NegativeIndex(i64),
    /// A negative pad in Pad-1: `pads_begin[1] = -2 is negative`.
    #[error("{what}[{axis}] = {value} is negative (Pad-1 takes non-negative pads)")]
    NegativePad {
        /// `pads_begin` or `pads_end`.
        what: &'static str,
        /// The axis.
        axis: usize,
        /// The pad.
        value: DimExpr,
    },
    /// A shape with a negative dim: `shape [2, -1] has a negative dim`.
    #[error("{what} {} has a negative dim", DimExpr::list(.dims))]
    NegativeDim {
        /// The input.
        what: &'static str,
        /// Its value.
        dims: Vec<DimExpr>,
    },
    /// A list with a negative entry: `split [2, -1] has a negative entry`.
    #[error("{what} {} has a negative entry", DimExpr::list(.dims))]
    NegativeListEntry {
        /// The input.
        what: &'static str,
        /// Its value.
        dims: Vec<DimExpr>,
    },
    /// A shape input with a negative dim.
    #[error("shape input {index} holds a negative dim {}", DimExpr::list(.dims))]
    NegativeShapeInput {
        /// The input's index.
        index: usize,
        /// Its value.
        dims: Vec<DimExpr>,
    },
    /// A size that is not positive: `frame_step 0 is not positive`.
    #[error("{what} {value} is not positive")]
    NotPositive {
        /// The input.
        what: &'static str,
        /// Its value.
        value: DimExpr,
    },
    /// A resize scale that is not positive.
    #[error("scale {scale} of axis {axis} is not positive")]
    ScaleNotPositive {
        /// The scale.
        scale: Rat,
        /// Its axis.
        axis: usize,
    },
    /// A resize size that is not positive.
    #[error("size {size} of axis {axis} is not positive")]
    SizeNotPositive {
        /// The size.
        size: DimExpr,
        /// Its axis.
        axis: usize,
    },
    /// A value that is 0: `delta is 0`.
    #[error("{0} is 0")]
    Zero(&'static str),
    /// Slice steps with a 0.
    #[error("steps {} contain 0", DimExpr::list(.0))]
    ZeroStep(Vec<DimExpr>),
    /// A strided-slice stride of 0: `stride 1 is 0`.
    #[error("stride {0} is 0")]
    ZeroStride(usize),
    /// A window's stride or dilation below 1.
    #[error("axis {axis}: stride {stride} and dilation {dilation} must be at least 1")]
    StepBelowOne {
        /// The data axis.
        axis: usize,
        /// The stride.
        stride: i64,
        /// The dilation.
        dilation: i64,
    },
    /// A OneHot depth below 1.
    #[error("depth {0} must be at least 1")]
    DepthBelowOne(DimExpr),
    /// A size beyond the dim it takes from: `size 5 exceeds dim 1 (4)`.
    #[error("size {size} exceeds dim {axis} ({dim})")]
    SizeExceedsDim {
        /// The size.
        size: DimExpr,
        /// The axis.
        axis: usize,
        /// Its dim.
        dim: DimExpr,
    },
    /// A TopK `k` beyond the axis.
    #[error("k = {k} exceeds axis {axis} of length {len}")]
    KExceedsAxis {
        /// `k`.
        k: DimExpr,
        /// The axis.
        axis: usize,
        /// Its length.
        len: DimExpr,
    },
    /// A GatherElements indices dim beyond the data's, off the axis.
    #[error(
        "indices dim {index} ({indices}) exceeds data dim {index} ({data}) off the axis {axis}"
    )]
    IndicesDimExceeds {
        /// The dim's axis.
        index: usize,
        /// The indices' dim.
        indices: DimExpr,
        /// The data's dim.
        data: DimExpr,
        /// The gather axis.
        axis: usize,
    },
    /// A cache update longer than the cache.
    #[error("update's sequence length {update} exceeds the cache's {cache}")]
    UpdateExceedsCache {
        /// The update's sequence length.
        update: DimExpr,
        /// The cache's.
        cache: DimExpr,
    },
    /// An STFT frame longer than the signal.
    #[error("frame_length {frame} is longer than the signal {signal}")]
    FrameExceedsSignal {
        /// The frame length.
        frame: DimExpr,
        /// The signal's length.
        signal: DimExpr,
    },
    /// Split lengths whose sum exceeds the axis.
    #[error("split_lengths add up to {total}, more than the axis dim {dim}")]
    SplitLengthsExceed {
        /// Their sum.
        total: DimExpr,
        /// The axis dim.
        dim: DimExpr,
    },
    /// A reflect pad of at least the input's length.
    #[error("axis {axis}: reflect pad {pad} exceeds the input length {len} - 1")]
    ReflectPadExceeds {
        /// The axis.
        axis: usize,
        /// The pad.
        pad: DimExpr,
        /// The input's length.
        len: DimExpr,
    },
    /// A symmetric pad beyond the input's length.
    #[error("axis {axis}: symmetric pad {pad} exceeds the input length {len}")]
    SymmetricPadExceeds {
        /// The axis.
        axis: usize,
        /// The pad.
        pad: DimExpr,
        /// The input's length.
        len: DimExpr,
    },
    /// An axis too short for its equal chunks.
    #[error("axis {axis} of size {dim} cannot be split into {chunks} chunks of {chunk}")]
    ChunksExceed {
        /// The axis.
        axis: usize,
        /// Its dim.
        dim: DimExpr,
        /// The number of chunks.
        chunks: usize,
        /// The chunk size.
        chunk: DimExpr,
    },
    /// Channels not a multiple of the groups attribute: `channels C are not a
    /// multiple of groups 4`.
    #[error("channels {channels} are not a multiple of {of} {groups}")]
    ChannelsNotMultiple {
        /// The channels.
        channels: DimExpr,
        /// The groups attribute.
        of: &'static str,
        /// Its value.
        groups: i64,
    },
    /// A dim not a multiple of the convolution's group.
    #[error("{what} {dim} is not a multiple of group {group}")]
    NotMultipleOfGroup {
        /// Which dim.
        what: &'static str,
        /// The dim.
        dim: DimExpr,
        /// The group.
        group: DimExpr,
    },
    /// A dim not a multiple of another: `6 is not a multiple of 4`.
    #[error("{dim} is not a multiple of {of}")]
    NotMultiple {
        /// The dim.
        dim: DimExpr,
        /// The divisor.
        of: DimExpr,
    },
    /// A ShuffleChannels group that does not divide its axis.
    #[error("group {group} does not divide the axis {axis} dim {dim}")]
    GroupNotDividing {
        /// The group.
        group: i64,
        /// The axis.
        axis: usize,
        /// Its dim.
        dim: DimExpr,
    },
    /// Query heads not a multiple of the key/value heads.
    #[error("q_num_heads {q} is not a multiple of kv_num_heads {kv}")]
    HeadsNotMultiple {
        /// The query heads.
        q: i64,
        /// The key/value heads.
        kv: i64,
    },
    /// A GatherND index depth outside `[1, rank(data) - batch_dims]`.
    #[error("indices.shape[-1] = {depth} must be in [1, rank(data) - batch_dims] = [1, {max}]")]
    GatherIndexDepth {
        /// The indices' last dim.
        depth: i64,
        /// The largest allowed.
        max: usize,
    },
    /// A ScatterND index depth outside `[0, rank(data)]`.
    #[error("indices.shape[-1] = {depth} must be in [0, rank(data)] = [0, {rank}]")]
    ScatterIndexDepth {
        /// The indices' last dim.
        depth: i64,
        /// The data's rank.
        rank: usize,
    },
    /// A sequence position outside the sequence.
    #[error("position {position} is outside [{lo}, {hi}] for a sequence of {len} elements")]
    PositionOutside {
        /// The position.
        position: i64,
        /// The least position allowed.
        lo: i64,
        /// The greatest.
        hi: i64,
        /// The sequence's length.
        len: i64,
    },
    /// A DFT axis that is the complex axis (or out of range).
    #[error("axis {axis} is outside [-{rank}, -2] and [0, {}]: the last axis holds the complex parts", .rank - 2)]
    ComplexAxis {
        /// The axis.
        axis: i64,
        /// The input's rank.
        rank: i64,
    },
    /// A constant index outside its axis.
    #[error("index {index} is out of range for axis {axis} of size {size}")]
    IndexOutOfRange {
        /// The index.
        index: i64,
        /// The axis.
        axis: usize,
        /// Its size.
        size: DimExpr,
    },
    /// A shape computation whose result leaves the element type's range.
    #[error("{op} overflows {dtype}: the result {result} is outside [{lo}, {hi}]")]
    Overflow {
        /// The op type.
        op: String,
        /// The element type.
        dtype: DType,
        /// The result.
        result: Rat,
        /// The type's least value.
        lo: Rat,
        /// Its greatest.
        hi: Rat,
    },
    /// Complex DFT data whose last axis is not 2.
    #[error("the last axis of complex data must be 2, found {0}")]
    ComplexLastAxis(DimExpr),
    /// A last axis for real and imaginary parts that is neither 1 nor 2: `the last
    /// axis of signal holds ...`.
    #[error("the last axis{} holds the real and imaginary parts: 1 or 2, found {found}", .of.map(|o| format!(" of {o}")).unwrap_or_default())]
    PartsAxis {
        /// The input, when the message names it.
        of: Option<&'static str>,
        /// The axis' dim.
        found: DimExpr,
    },
    /// Boxes with another number of coordinates.
    #[error("boxes must have {expected} coordinates, found {found}")]
    BoxCoordinates {
        /// The coordinates per box.
        expected: i64,
        /// The boxes' last dim.
        found: DimExpr,
    },
    /// OneHot values that are not two elements.
    #[error("values must hold two elements [off_value, on_value], found {0}")]
    OnOffValues(i64),
    /// An input that must hold one element: `depth must hold one element, found 2`.
    #[error("{what} must hold one element, found {found}")]
    NotOneElement {
        /// The input.
        what: &'static str,
        /// Its element count.
        found: i64,
    },
    /// A 2-D string input whose first dim is not 1.
    #[error("X must be [C] or [1, C], found a first dim {0}")]
    StringsFirstDim(DimExpr),
    /// An affine grid's theta that is neither `[N, 2, 3]` nor `[N, 3, 4]`.
    #[error("theta must be [N, 2, 3] or [N, 3, 4], found {}", DimExpr::list(.0))]
    ThetaShape(Vec<DimExpr>),
    /// An attention scale of more than one element.
    #[error("scale must be a scalar or have one element, found shape {}", DimExpr::list(.0))]
    ScaleShape(Vec<DimExpr>),
    /// Theta and size for grids of different ranks.
    #[error("theta is for {theta}-D grids, size for {size}-D ones")]
    GridRanks {
        /// The rank theta is for.
        theta: usize,
        /// The rank size is for.
        size: usize,
    },
    /// An axes list that repeats an axis.
    #[error("axes {axes:?} repeat axis {axis}")]
    RepeatedAxis {
        /// The axes.
        axes: Vec<i64>,
        /// The repeated axis (normalised).
        axis: usize,
    },
    /// A transpose order that is not a permutation.
    #[error("transpose order {order:?} is not a permutation of {rank} axes")]
    NotPermutation {
        /// The order.
        order: Vec<i64>,
        /// The rank.
        rank: usize,
    },
    /// A window output shorter than the least the window gives.
    #[error("spatial axis {axis}: output length {output} is below {least} (input {input}, kernel {kernel})")]
    OutputBelow {
        /// The spatial axis.
        axis: usize,
        /// The output length.
        output: DimExpr,
        /// The least.
        least: DimExpr,
        /// The input length.
        input: DimExpr,
        /// The kernel.
        kernel: DimExpr,
    },
    /// A transposed convolution's output length below 1.
    #[error("spatial axis {axis}: output length {output} is below 1")]
    OutputBelowOne {
        /// The spatial axis.
        axis: usize,
        /// The output length.
        output: DimExpr,
    },
    /// A dilated kernel larger than the padded data.
    #[error("axis {axis}: the kernel after dilation has size {kernel} larger than the data after padding {padded}")]
    KernelExceedsData {
        /// The data axis.
        axis: usize,
        /// The dilated kernel.
        kernel: DimExpr,
        /// The padded data.
        padded: DimExpr,
    },
    /// Pads that make an axis negative.
    #[error(
        "axis {axis}: padded length {length} is negative (input {input}, pads {begin} and {end})"
    )]
    PaddedNegative {
        /// The axis.
        axis: usize,
        /// The padded length.
        length: DimExpr,
        /// The input length.
        input: DimExpr,
        /// The pad at the start.
        begin: DimExpr,
        /// The pad at the end.
        end: DimExpr,
    },
    /// A reshape target input that is not valid.
    #[error("target {}: {problem}", DimExpr::list(.target))]
    Target {
        /// The target.
        target: Vec<DimExpr>,
        /// What is wrong with it.
        problem: TargetProblem,
    },
    /// A problem stated by a fixed text: `the sequence is empty: there is no
    /// element to read`.
    #[error("{0}")]
    Fixed(&'static str),
}
