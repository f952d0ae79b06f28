//! The shapes context: what is known about every tensor while inference runs.
//!
//! This is the Rust form of the `ShapesContext` of `onnx-optim-shape_tensor.h`: per
//! tensor name, the element type, the shape (symbolic dims) and an optional
//! value-as-shape (the symbolic contents of a small integer tensor, such as the
//! output of `Shape`). All dim arithmetic goes through the context's [`Algebra`].
//!
//! Op rules read their inputs with [`ShapesContext::input`] and return
//! [`TensorFact`]s for their outputs, or a typed [`OpError`]. The two error kinds of
//! the spec map to [`OpError::is_out_of_range`] (a missing input) and every other
//! variant (an invalid argument).

pub mod facts;
mod problems;
mod roles;

pub use roles::{DimRole, Operands, Subject};

pub use problems::{
    AttrFloat, AttrProblem, AttrValue, Choices, EquationProblem, LengthForm, NeverValid,
    ShapeValueProblem, TargetProblem,
};

use crate::algebra::{Algebra, AlgebraError, Dim, DimExpr, FreshKey, Rat, SymbolKind};
use crate::context::facts::FactsError;
use crate::graph::{ConstData, ConstTensor, DType, Graph, Node, VALUE_FACT_LIMIT};
use indexmap::IndexMap;
use std::borrow::Cow;
use std::fmt;

/// What is known about one tensor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorFact {
    /// Element type (`Undefined` when unknown).
    pub dtype: DType,
    /// Dims, or `None` when even the rank is unknown.
    pub shape: Option<Vec<Dim>>,
    /// The contents, row-major, when known symbolically (shape tensors and small
    /// constants): the value-as-shape of the spec.
    pub value: Option<Vec<Dim>>,
}

impl TensorFact {
    /// A tensor of known type and shape with unknown contents.
    pub fn new(dtype: DType, shape: Vec<Dim>) -> TensorFact {
        TensorFact {
            dtype,
            shape: Some(shape),
            value: None,
        }
    }

    /// A tensor of unknown rank.
    pub fn unknown(dtype: DType) -> TensorFact {
        TensorFact {
            dtype,
            shape: None,
            value: None,
        }
    }

    /// The rank, when known.
    pub fn rank(&self) -> Option<usize> {
        self.shape.as_ref().map(Vec::len)
    }

    /// The number of elements of a scalar or 1-D tensor (such as a shape input)
    /// when it is a constant no larger than [`MAX_RANK`]: the rank it describes.
    /// A longer list is treated as unknown, so a hostile model cannot make symdim
    /// build a tensor of rank 130,000.
    pub fn static_len(&self, alg: &Algebra) -> Option<usize> {
        let n = match self.shape.as_deref()? {
            [] => 1,
            [d] => usize::try_from(alg.as_i64(*d)?).ok()?,
            _ => return None,
        };
        (n <= MAX_RANK).then_some(n)
    }
}

/// How deep subgraphs (If branches, Loop and Scan bodies) are inferred.
pub const MAX_SUBGRAPH_DEPTH: usize = 32;

pub use crate::graph::MAX_RANK;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// Inference went on with less information.
    Warning,
    /// The model is invalid at this node (or the node could not be handled).
    Error,
}

impl Severity {
    /// `warning` or `error`.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A message about one node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Severity.
    pub severity: Severity,
    /// Node name (empty for model-level messages).
    pub node: String,
    /// Op type (empty for model-level messages).
    pub op: String,
    /// The full message: op, version and attributes, the problem with its
    /// symbolic operands, and the assumption that would make the model valid.
    pub message: String,
    /// What the message is about, as values, for the kinds callers act on (the
    /// model's contract reads an error's hint from it); `None` for the others.
    pub cause: Option<Cause>,
}

/// What a [`Diagnostic`] is about, as values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cause {
    /// A built-in op rule failed (a declared rule's failure has no cause).
    Op {
        /// The rule's error.
        error: OpError,
        /// The assumption the message states would make the model valid.
        hint: Option<Hint>,
    },
    /// The op has no shape rule: its outputs get their declared shapes or none.
    NoRule {
        /// The op's domain (empty for ONNX's default domain).
        domain: String,
        /// The op's version.
        version: i64,
    },
    /// A fact of the caller ([`crate::context::facts::Facts`]) that names no symbol of the
    /// model, does not parse, or sets an input dim that does not fit the graph: it
    /// is left out.
    Facts(FactsError),
}

/// The assumption that would make a model valid where an op error leaves one
/// ([`OpError::hint`]): the dims of a condition, which the model's contract states.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Hint {
    /// `divisor` divides `dividend`: `valid when 8 divides 12*B*S`.
    Divides {
        /// The divisor.
        divisor: DimExpr,
        /// The dividend.
        dividend: DimExpr,
    },
    /// The two dims are equal: `valid when 2*S == T`.
    Equal(DimExpr, DimExpr),
}

impl fmt::Display for Hint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Hint::Divides { divisor, dividend } => {
                write!(f, "valid when {divisor} divides {dividend}")
            }
            Hint::Equal(a, b) => write!(f, "valid when {a} == {b}"),
        }
    }
}

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

/// Why a subgraph could not be inferred ([`ShapesContext::run_subgraph`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SubgraphError {
    /// The context has no subgraph runner: the inference driver sets one, a
    /// context made by hand has none.
    #[error("no subgraph runner is set (the inference driver sets one)")]
    NoRunner,
    /// Subgraphs nest deeper than the limit ([`MAX_SUBGRAPH_DEPTH`]).
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

/// The state of shape inference: the algebra, every tensor's facts, and the
/// diagnostics so far.
#[derive(Clone, Debug)]
pub struct ShapesContext {
    /// The dim algebra every dim lives in.
    pub alg: Algebra,
    tensors: IndexMap<crate::graph::Name, TensorFact, rustc_hash::FxBuildHasher>,
    /// Diagnostics, in the order they were found.
    pub diagnostics: Vec<Diagnostic>,
    /// How many subgraphs deep inference currently is.
    pub(crate) depth: usize,
    /// Indices into `diagnostics` of errors that prove the model invalid (not merely
    /// undecided), see [`OpError::is_proven`].
    proven: Vec<usize>,
    /// Undecided `If` nodes case-split so far in this inference (all scopes).
    pub(crate) splits_done: usize,
    /// How many case splits enclose the inference now running.
    pub(crate) split_nesting: usize,
    /// Undecided `If` nodes probed for a split so far (each probe copies the context).
    pub(crate) split_probes: usize,
    /// Set by the `If` rule when it merged two branch outputs of different known
    /// ranks (what makes a case split worth trying).
    pub(crate) rank_conflict: bool,
    /// How subgraphs are inferred (see [`ShapesContext::run_subgraph`]).
    subgraphs: Option<SubgraphRunner>,
    /// The facts of the values that are not tensors (sequences and optionals), by
    /// name, beside the [`TensorFact`] each also has in `tensors` (see
    /// [`ShapesContext::sequence`]).
    composites: IndexMap<crate::graph::Name, Composite, rustc_hash::FxBuildHasher>,
    /// Declared shape rules (`--op-rules`), consulted before the built-in ones.
    op_rules: crate::read::oprules::OpRules,
}

/// What is known about a sequence of tensors (ONNX `seq(tensor(T))`).
///
/// A sequence has no tensor shape: its own [`TensorFact`] in the context has the
/// element type and an unknown rank, and the rules of the sequence ops keep this
/// beside it ([`ShapesContext::set_sequence`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SequenceFact {
    /// What every element shares: the element type, and the shape when all
    /// elements have one rank (a dim on which they may differ is a fresh
    /// data-dependent dim); an unknown rank when the ranks may differ or are not
    /// known.
    pub elem: TensorFact,
    /// The number of elements, when known (it may be symbolic).
    pub len: Option<Dim>,
    /// Each element's facts, in order, when the length is a known constant.
    pub elems: Option<Vec<TensorFact>>,
}

impl SequenceFact {
    /// A sequence of unknown length whose elements share `elem`.
    pub fn uniform(elem: TensorFact, len: Option<Dim>) -> SequenceFact {
        SequenceFact {
            elem,
            len,
            elems: None,
        }
    }

    /// A sequence of nothing known but its element type.
    pub fn unknown(dtype: DType) -> SequenceFact {
        SequenceFact::uniform(TensorFact::unknown(dtype), None)
    }

    /// The facts of element `index` (counted from the front; the shared facts when
    /// the elements are not known one by one).
    pub fn element(&self, index: usize) -> &TensorFact {
        self.elems
            .as_ref()
            .and_then(|e| e.get(index))
            .unwrap_or(&self.elem)
    }
}

/// What an optional value (ONNX `optional(...)`) holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionalElement {
    /// A tensor.
    Tensor(TensorFact),
    /// A sequence of tensors.
    Sequence(SequenceFact),
}

/// What is known about an optional value (ONNX `optional(tensor(T))` or
/// `optional(seq(tensor(T)))`): its own [`TensorFact`] in the context has the
/// element type and an unknown rank.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionalFact {
    /// What it holds when it holds a value.
    pub elem: OptionalElement,
    /// Whether it holds a value, when known.
    pub present: Option<bool>,
}

/// What is known about a value that is not a tensor (beside its [`TensorFact`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Composite {
    /// A sequence of tensors.
    Sequence(SequenceFact),
    /// An optional value.
    Optional(OptionalFact),
}

/// A value passed into or out of a subgraph: its [`TensorFact`] and, for a sequence
/// or an optional the context knows as one, its [`Composite`] facts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubgraphValue {
    /// The tensor fact (for a sequence or an optional: the element type, an unknown
    /// rank).
    pub fact: TensorFact,
    /// What is known of it as a sequence or an optional.
    pub composite: Option<Composite>,
}

impl SubgraphValue {
    /// A tensor.
    pub fn tensor(fact: TensorFact) -> SubgraphValue {
        SubgraphValue {
            fact,
            composite: None,
        }
    }
}

/// Infers a subgraph (an If branch, a Loop or Scan body) in a context: the facts of
/// its outputs, given those of its formal inputs, or why it cannot be inferred
/// (nested too deep). The driver provides it, so that op rules can run subgraphs
/// without depending on the driver.
pub type SubgraphRunner =
    fn(&mut ShapesContext, &Graph, &[SubgraphValue]) -> Result<Vec<SubgraphValue>, SubgraphError>;

impl Default for ShapesContext {
    fn default() -> Self {
        ShapesContext::new(Algebra::default())
    }
}

impl ShapesContext {
    /// A context over an algebra (which may already hold facts such as bindings).
    pub fn new(alg: Algebra) -> ShapesContext {
        ShapesContext {
            alg,
            tensors: IndexMap::default(),
            diagnostics: Vec::new(),
            depth: 0,
            proven: Vec::new(),
            splits_done: 0,
            split_nesting: 0,
            split_probes: 0,
            rank_conflict: false,
            subgraphs: None,
            composites: Default::default(),
            op_rules: Default::default(),
        }
    }

    /// The declared shape rules ([`crate::read::oprules`]) inference consults before the
    /// built-in ones.
    pub fn op_rules(&self) -> &crate::read::oprules::OpRules {
        &self.op_rules
    }

    /// Set the declared shape rules (the driver does, from the caller's facts).
    pub fn set_op_rules(&mut self, rules: crate::read::oprules::OpRules) {
        self.op_rules = rules;
    }

    /// How many undecided `If` nodes were case-split (see `docs/ops/control-flow.md`)
    /// and how many were probed for a split.
    pub fn case_splits(&self) -> (usize, usize) {
        (self.splits_done, self.split_probes)
    }

    /// Set how subgraphs are inferred (the driver does, for the contexts it makes).
    pub fn set_subgraph_runner(&mut self, runner: SubgraphRunner) {
        self.subgraphs = Some(runner);
    }

    /// Infer subgraph `g` with the facts of its formal inputs: the facts of its
    /// outputs, or why it cannot be inferred (no runner was set, or nested too
    /// deep).
    pub fn run_subgraph(
        &mut self,
        g: &Graph,
        inputs: &[TensorFact],
    ) -> Result<Vec<TensorFact>, SubgraphError> {
        let inputs: Vec<SubgraphValue> =
            inputs.iter().cloned().map(SubgraphValue::tensor).collect();
        let outs = self.run_subgraph_values(g, &inputs)?;
        Ok(outs.into_iter().map(|v| v.fact).collect())
    }

    /// [`ShapesContext::run_subgraph`] with the sequence and optional facts of the
    /// formal inputs, and of the outputs.
    pub fn run_subgraph_values(
        &mut self,
        g: &Graph,
        inputs: &[SubgraphValue],
    ) -> Result<Vec<SubgraphValue>, SubgraphError> {
        let runner = self.subgraphs.ok_or(SubgraphError::NoRunner)?;
        runner(self, g, inputs)
    }

    /// The facts of a tensor.
    pub fn get(&self, name: &(impl crate::graph::TensorKey + ?Sized)) -> Option<&TensorFact> {
        self.tensors.get(&name.name_key())
    }

    /// The facts of a tensor with its position among [`ShapesContext::tensors`].
    pub fn get_full(
        &self,
        name: &(impl crate::graph::TensorKey + ?Sized),
    ) -> Option<(usize, &TensorFact)> {
        self.tensors
            .get_full(&name.name_key())
            .map(|(i, _, f)| (i, f))
    }

    /// The `index`-th tensor of [`ShapesContext::tensors`]: its name and facts.
    pub fn get_index(&self, index: usize) -> Option<(&str, &TensorFact)> {
        self.name_at(index).map(|(k, f)| (&**k, f))
    }

    /// [`ShapesContext::get_index`] with the tensor's [`Name`](crate::graph::Name).
    pub(crate) fn name_at(&self, index: usize) -> Option<(&crate::graph::Name, &TensorFact)> {
        self.tensors.get_index(index)
    }

    /// How many tensors the context has facts for.
    pub fn len(&self) -> usize {
        self.tensors.len()
    }

    /// True when the context has no tensor facts.
    pub fn is_empty(&self) -> bool {
        self.tensors.is_empty()
    }

    /// Set the facts of a tensor (replacing what was there).
    pub fn insert(&mut self, name: impl crate::graph::IntoName, fact: TensorFact) {
        self.tensors.insert(name.into_name(), fact);
    }

    /// Insert a tensor unless one of that name exists (then nothing changes); true when
    /// it was inserted. One lookup, where `get` then `insert` would take two.
    pub fn insert_if_absent(
        &mut self,
        name: impl crate::graph::IntoName,
        fact: TensorFact,
    ) -> bool {
        match self.tensors.entry(name.into_name()) {
            indexmap::map::Entry::Vacant(v) => {
                v.insert(fact);
                true
            }
            indexmap::map::Entry::Occupied(_) => false,
        }
    }

    /// Make room for `additional` more tensors at once (the driver knows how many a
    /// graph defines), so that the map is not regrown and rehashed step by step.
    pub fn reserve(&mut self, additional: usize) {
        self.tensors.reserve(additional);
    }

    /// Remove a tensor (used when leaving a subgraph scope), and what is known of
    /// it as a sequence or optional.
    pub fn remove(&mut self, name: &(impl crate::graph::TensorKey + ?Sized)) -> Option<TensorFact> {
        let key = name.name_key();
        if !self.composites.is_empty() {
            self.composites.swap_remove(&key);
        }
        self.tensors.shift_remove(&key)
    }

    /// Remove a value and return it with what is known of it as a sequence or an
    /// optional (the driver, leaving a subgraph scope, restores the outer values it
    /// shadowed with [`ShapesContext::insert_value`]).
    pub fn remove_value(
        &mut self,
        name: &(impl crate::graph::TensorKey + ?Sized),
    ) -> Option<SubgraphValue> {
        let key = name.name_key();
        let composite = if self.composites.is_empty() {
            None
        } else {
            self.composites.swap_remove(&key)
        };
        let fact = self.tensors.shift_remove(&key)?;
        Some(SubgraphValue { fact, composite })
    }

    /// Set a value's tensor fact and its sequence or optional facts (replacing what
    /// was there; a value without a composite is a tensor from now on).
    pub fn insert_value(&mut self, name: impl crate::graph::IntoName, value: SubgraphValue) {
        let name = name.into_name();
        match value.composite {
            Some(c) => {
                self.composites.insert(name.clone(), c);
            }
            None => {
                if !self.composites.is_empty() {
                    self.composites.swap_remove(&name);
                }
            }
        }
        self.tensors.insert(name, value.fact);
    }

    /// A value with its sequence or optional facts, when the context knows it.
    pub fn value(&self, name: &(impl crate::graph::TensorKey + ?Sized)) -> Option<SubgraphValue> {
        let fact = self.tensors.get(&name.name_key())?.clone();
        Some(SubgraphValue {
            fact,
            composite: self.composite(name).cloned(),
        })
    }

    /// What is known about `name` as a sequence or an optional.
    pub fn composite(&self, name: &(impl crate::graph::TensorKey + ?Sized)) -> Option<&Composite> {
        if self.composites.is_empty() {
            // most models have none: no hashing of every name the report lists
            return None;
        }
        self.composites.get(&name.name_key())
    }

    /// Record what is known about `name` as a sequence or an optional.
    pub fn set_composite(&mut self, name: impl crate::graph::IntoName, c: Composite) {
        self.composites.insert(name.into_name(), c);
    }

    /// What is known about `name` as a sequence, when a sequence op produced it or it
    /// flowed from one (through `Identity`, an `If`, a `Loop`); a sequence read from a
    /// graph input is not known as one.
    pub fn sequence(
        &self,
        name: &(impl crate::graph::TensorKey + ?Sized),
    ) -> Option<&SequenceFact> {
        match self.composites.get(&name.name_key()) {
            Some(Composite::Sequence(s)) => Some(s),
            _ => None,
        }
    }

    /// Record that `name` is a sequence (the rules of the sequence ops call this
    /// for their outputs, which they return as [`TensorFact::unknown`] of the
    /// element type).
    pub fn set_sequence(&mut self, name: impl crate::graph::IntoName, seq: SequenceFact) {
        self.composites
            .insert(name.into_name(), Composite::Sequence(seq));
    }

    /// What is known about `name` as an optional value, when an optional op
    /// produced it.
    pub fn optional(
        &self,
        name: &(impl crate::graph::TensorKey + ?Sized),
    ) -> Option<&OptionalFact> {
        match self.composites.get(&name.name_key()) {
            Some(Composite::Optional(o)) => Some(o),
            _ => None,
        }
    }

    /// Record that `name` is an optional value.
    pub fn set_optional(&mut self, name: impl crate::graph::IntoName, opt: OptionalFact) {
        self.composites
            .insert(name.into_name(), Composite::Optional(opt));
    }

    /// Every tensor, in insertion order.
    pub fn tensors(&self) -> impl Iterator<Item = (&str, &TensorFact)> {
        self.tensors.iter().map(|(k, v)| (&**k, v))
    }

    /// The facts of the node's `index`-th input (cloned, so the algebra can be used
    /// while holding them): a typed error when it is absent or unknown.
    pub fn input(
        &self,
        node: &Node,
        index: usize,
        what: &'static str,
    ) -> Result<TensorFact, OpError> {
        let name = node
            .input(index)
            .ok_or(OpError::MissingInput { index, what })?;
        self.get(name)
            .cloned()
            .ok_or_else(|| OpError::UnknownTensor {
                index,
                name: name.to_string(),
            })
    }

    /// The facts of an optional input: `None` when it is absent.
    pub fn optional_input(&self, node: &Node, index: usize) -> Result<Option<TensorFact>, OpError> {
        match node.input(index) {
            None => Ok(None),
            Some(name) => self
                .get(name)
                .cloned()
                .map(Some)
                .ok_or_else(|| OpError::UnknownTensor {
                    index,
                    name: name.to_string(),
                }),
        }
    }

    /// A fresh dim for `node`'s output `output`, axis `axis`: the same place always
    /// gets the same name.
    pub fn fresh_dim(
        &mut self,
        node: &Node,
        output: usize,
        axis: usize,
        prefix: &str,
        kind: SymbolKind,
    ) -> Dim {
        self.alg.fresh(
            prefix,
            FreshKey {
                node: node.name.clone(),
                output,
                axis,
            },
            kind,
        )
    }

    /// A data-dependent fresh dim (prefix `unk`): no closed form exists.
    pub fn unknown_dim(&mut self, node: &Node, output: usize, axis: usize) -> Dim {
        let kind = SymbolKind::DataDependent {
            node: node.name.clone(),
        };
        self.fresh_dim(node, output, axis, "unk", kind)
    }

    /// Record a diagnostic about a node.
    pub fn diagnose(&mut self, severity: Severity, node: &Node, message: String) {
        self.diagnose_cause(severity, node, message, None);
    }

    /// Record a diagnostic about a node with what it is about.
    pub fn diagnose_cause(
        &mut self,
        severity: Severity,
        node: &Node,
        message: String,
        cause: Option<Cause>,
    ) {
        self.diagnostics.push(Diagnostic {
            severity,
            node: node.name.clone(),
            op: node.op_type.to_string(),
            message,
            cause,
        });
    }

    /// Record a warning about a node, prefixed with its op, version and attributes
    /// (`Reshape-14 (allowzero=1): ...`).
    pub fn warn(&mut self, node: &Node, message: &str) {
        let full = format!("{}: {message}", node_context(node));
        self.diagnose(Severity::Warning, node, full);
    }

    /// Record an error diagnostic about a node; `proven` marks an error that proves
    /// the model invalid for every value of its symbols (see [`OpError::is_proven`]).
    pub fn diagnose_error(&mut self, node: &Node, message: String, proven: bool) {
        if proven {
            self.proven.push(self.diagnostics.len());
        }
        self.diagnose(Severity::Error, node, message);
    }

    /// Record an op rule's error about a node (proven when the error is, see
    /// [`OpError::is_proven`]); `message` states `hint` when there is one.
    pub fn diagnose_op_error(
        &mut self,
        node: &Node,
        message: String,
        error: &OpError,
        hint: Option<Hint>,
    ) {
        if error.is_proven() {
            self.proven.push(self.diagnostics.len());
        }
        let cause = Cause::Op {
            error: error.clone(),
            hint,
        };
        self.diagnose_cause(Severity::Error, node, message, Some(cause));
    }

    /// Record an op rule's error about a node as inference does: the message names
    /// the node's op, version and attributes, the problem with its operands, and the
    /// assumption that would make the model valid ([`OpError::hint`]), if any.
    pub fn report_op_error(&mut self, node: &Node, e: &OpError) {
        let hint = e.hint();
        let msg = match &hint {
            Some(h) => format!("{}: {e}; {h}", node_context(node)),
            None => format!("{}: {e}", node_context(node)),
        };
        self.diagnose_op_error(node, msg, e, hint);
    }

    /// True when diagnostic `index` is an error that proves the model invalid.
    pub fn is_proven(&self, index: usize) -> bool {
        self.proven.contains(&index)
    }

    /// Insert a diagnostic at `index` (keeping the proven marks on the ones after it).
    pub fn insert_diagnostic(&mut self, index: usize, d: Diagnostic) {
        let index = index.min(self.diagnostics.len());
        for p in &mut self.proven {
            if *p >= index {
                *p += 1;
            }
        }
        self.diagnostics.insert(index, d);
    }

    /// Render a list of dims as `[A, 3, B*S]`.
    pub fn render_dims(&self, dims: &[Dim]) -> String {
        let parts: Vec<String> = dims.iter().map(|d| self.alg.render(*d)).collect();
        format!("[{}]", parts.join(", "))
    }
}

/// Format the context of a node for a message: `Reshape-14 (allowzero=1)`.
pub fn node_context(node: &Node) -> String {
    let attrs = node.attrs_summary();
    if attrs.is_empty() {
        format!("{}-{}", node.op_type, node.version)
    } else {
        format!("{}-{} ({attrs})", node.op_type, node.version)
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.node.is_empty() {
            write!(f, "{}: {}", self.severity.name(), self.message)
        } else {
            write!(
                f,
                "{} at {}: {}",
                self.severity.name(),
                self.node,
                self.message
            )
        }
    }
}

/// The facts of a constant tensor; one of a rank above [`MAX_RANK`] has an unknown
/// rank (the driver warns about it), like a declared input.
pub fn const_fact(alg: &mut Algebra, t: &ConstTensor) -> TensorFact {
    if t.dims.len() > MAX_RANK {
        return TensorFact::unknown(t.dtype);
    }
    let shape: Vec<Dim> = t.dims.iter().map(|d| alg.constant(*d)).collect();
    let value = match &t.data {
        ConstData::Ints(v) if v.len() <= VALUE_FACT_LIMIT => {
            Some(v.iter().map(|x| alg.constant(*x)).collect())
        }
        ConstData::Floats(v) if v.len() <= VALUE_FACT_LIMIT => v
            .iter()
            .map(|x| float_rat(*x).map(|r| alg.rational(r)))
            .collect::<Option<Vec<Dim>>>(),
        _ => None,
    };
    TensorFact {
        dtype: t.dtype,
        shape: Some(shape),
        value,
    }
}

/// A finite float as an exact rational.
pub fn float_rat(x: f64) -> Option<Rat> {
    // Fast path: `x = m * 2^e` with small parts (most constants in models) stays in
    // machine integers; big-number reduction is only for the rest.
    if x.is_finite() && x != 0.0 {
        let bits = x.to_bits();
        let exp = ((bits >> 52) & 0x7ff) as i64;
        let frac = bits & ((1u64 << 52) - 1);
        let (mut m, mut e) = if exp == 0 {
            (frac, -1074)
        } else {
            (frac | (1u64 << 52), exp - 1075)
        };
        let tz = m.trailing_zeros();
        m >>= tz;
        e += i64::from(tz);
        let sign = if x < 0.0 { -1 } else { 1 };
        if (0..=9).contains(&e) {
            return Some(Rat::int(sign * ((m as i64) << e)));
        }
        if (-61..0).contains(&e) {
            // m is odd and the denominator a power of two: already reduced, and both
            // below 2^62, as `Rat::Small` requires.
            let r = num_rational::Ratio::new_raw(sign * m as i64, 1i64 << (-e));
            return Some(Rat::Small(r));
        }
    }
    num_rational::BigRational::from_float(x).map(Rat::from_big)
}
