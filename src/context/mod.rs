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

mod composite;
mod diagnostics;
mod errors;
pub mod facts;
mod problems;
mod roles;

pub use composite::{
    Composite, OptionalElement, OptionalFact, SequenceFact, SubgraphRunner, SubgraphValue,
};
pub use diagnostics::{node_context, Cause, Diagnostic, Hint, Severity};
pub use errors::{Allowed, Expected, OpError, SubgraphError, TypeConflict};

pub use roles::{DimRole, Operands, Subject};

pub use problems::{
    AttrFloat, AttrProblem, AttrValue, Choices, EquationProblem, LengthForm, NeverValid,
    ShapeValueProblem, TargetProblem,
};

use crate::algebra::{Algebra, Dim, FreshKey, Rat, SymbolKind};
use crate::graph::{ConstData, ConstTensor, DType, Graph, Node, VALUE_FACT_LIMIT};
use indexmap::IndexMap;

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
    /// The one value every element holds, when `value` is not known element by
    /// element (`ConstantOfShape` over a symbolic shape): one dim, so the memory does
    /// not follow the tensor's size. `None` whenever `value` is `Some`. Only the op
    /// rules [`crate::ops::fill_rule`] names set or pass it; the driver clears it on
    /// every other op's outputs, so a rule that copies an input's fact and changes
    /// its contents never passes on a fill it did not mean.
    pub fill: Option<Dim>,
}

impl TensorFact {
    /// A tensor of known type and shape with unknown contents.
    pub fn new(dtype: DType, shape: Vec<Dim>) -> TensorFact {
        TensorFact {
            dtype,
            shape: Some(shape),
            value: None,
            fill: None,
        }
    }

    /// A tensor of unknown rank.
    pub fn unknown(dtype: DType) -> TensorFact {
        TensorFact {
            dtype,
            shape: None,
            value: None,
            fill: None,
        }
    }

    /// Forget the contents, element by element and the fill (a loop-carried value,
    /// a merge).
    pub fn forget_contents(&mut self) {
        self.value = None;
        self.fill = None;
    }

    /// The value every element provably has: the uniform fill, or the one element
    /// a known non-empty value repeats (every element provably equal to the first).
    pub fn uniform(&self, alg: &Algebra) -> Option<Dim> {
        if let Some(v) = &self.value {
            let first = *v.first()?;
            let same = v
                .iter()
                .all(|d| alg.equal(*d, first) == crate::algebra::Truth::True);
            return same.then_some(first);
        }
        self.fill
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
    /// The facts of each subgraph's own values as its last run left them, by the
    /// subgraph's address in the model inferred (see
    /// [`ShapesContext::subgraph_facts`]).
    subgraph_facts: rustc_hash::FxHashMap<usize, SubgraphFacts>,
}

/// The facts of a subgraph's own values (initializers, formal inputs, node
/// outputs), in that order, as the last inference of the subgraph left them.
pub type SubgraphFacts = Vec<(crate::graph::Name, TensorFact)>;

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
            subgraph_facts: Default::default(),
        }
    }

    /// Keep the facts of subgraph `g`'s own values `names` before its scope is left
    /// (a later run of the same subgraph, such as a loop body's second pass,
    /// replaces them). What this keeps grows with the subgraphs' sizes, as the
    /// facts of the main graph do.
    pub(crate) fn record_subgraph(&mut self, g: &Graph, names: &[&str]) {
        let facts = names
            .iter()
            .filter_map(|n| {
                let (_, k, f) = self
                    .tensors
                    .get_full(&crate::graph::TensorKey::name_key(*n))?;
                Some((k.clone(), f.clone()))
            })
            .collect();
        self.subgraph_facts
            .insert(g as *const Graph as usize, facts);
    }

    /// The facts of subgraph `g`'s own values as its last run left them (its
    /// scope removes them from the context), or `None` when inference did not run
    /// it (an `If` branch a known condition skips). `g` must be a subgraph of the
    /// model this context inferred (it is found by its address there).
    pub fn subgraph_facts(&self, g: &Graph) -> Option<&SubgraphFacts> {
        self.subgraph_facts.get(&(g as *const Graph as usize))
    }

    /// Drop a tensor's facts without keeping the order of the others (a scratch
    /// context's lookups only need the name).
    pub(crate) fn forget(&mut self, name: &(impl crate::graph::TensorKey + ?Sized)) {
        self.tensors.swap_remove(&name.name_key());
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
        fill: None,
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
