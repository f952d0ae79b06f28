//! Control flow: ONNX If, Loop, Scan; oneDNN's graph output marker End.
//!
//! Spec: ONNX operators `If`, `Loop`, `Scan` (opsets 1 to 24). Subgraphs read outer
//! tensors by name; symdim infers them in a nested scope
//! ([`ShapesContext::run_subgraph`]).
//!
//! - **If** (1; 11 allowed outputs of different shapes; 13, 16, 19, 21, 23 added
//!   types): when the condition's value is known, only the branch that runs is
//!   inferred and its outputs are the outputs. Otherwise both branches are inferred
//!   speculatively (an equality an op needs inside a branch is recorded, not merged
//!   into the e-graph: it holds only when that branch runs) and merged dim by dim: a dim the two branches agree on (proven equal) is kept, a dim they may
//!   disagree on becomes a fresh data-dependent dim of the If node, and outputs whose
//!   ranks differ get an unknown rank. The driver then case-splits such an If
//!   (`run_order` in `src/infer/split.rs`): when only one branch leaves the rest of the
//!   graph valid, that branch is kept (`docs/ops/control-flow.md`).
//! - **Loop** (1; 11 cond/trip count optional semantics clarified; 13 sequence
//!   types; 16, 19, 21, 23 types): inputs `M` (trip count, optional), `cond`
//!   (optional), loop-carried values; the body takes `(iteration_num, cond,
//!   carried...)` and returns `(cond, carried..., scan_outputs...)`. A carried
//!   value keeps the dims its body output provably shares with its initial value
//!   (others become fresh); a scan output is the body's per-iteration shape with a
//!   leading axis of length `M` when `M` is known and the loop runs all `M`
//!   iterations (no condition, or a condition true on entry that the body provably
//!   returns true: a constant or the condition input passed through; inside the
//!   body the condition input is true, since an iteration runs only then), and a
//!   fresh dim otherwise.
//! - **Sequences and optionals** (If and Loop): a subgraph reads outer ones by name
//!   with their facts; an undecided If merges its branches' sequence facts as it
//!   merges tensors (element dims, length, elements one by one when they agree; an
//!   empty sequence's elements do not count) and its optionals' (present when both
//!   are); a Loop's carried sequence gets the element facts that hold in every
//!   iteration (a fixpoint of the loop kernel, what an empty initial
//!   sequence takes in counted without the body's own data-dependent symbols) and
//!   the length `L0 + M*c` when every iteration adds the constant `c` and the loop
//!   runs `M` times (`L0` when `c` is 0), else a fresh dim. A Loop's scan output must
//!   be a tensor.
//! - **Scan** (8 with a batch axis; 9 without it, with `scan_input_axes`,
//!   `scan_output_axes`, directions; 11, 16, 19, 21, 23 types): states are like Loop's
//!   carried values; a scan output stacks the body's per-iteration output along
//!   `scan_output_axes` (default 0) with the sequence length of the first scan input,
//!   the rows as the first iteration gives them (stacking needs every row to have
//!   one shape).
//! - **End** (oneDNN Graph's `End` document): marks a tensor as a graph output; it
//!   has no outputs.
//!
//! OpenVINO (spec: the OpenVINO operation specification, `If-8`, `Loop-5`,
//! `TensorIterator-1`). The bodies are separate graphs joined to the node only
//! through their Parameters and Results by a port map (the OpenVINO reader
//! converts both, see [`crate::graph::PortMapColumn`]; a body reads no outer tensor
//! by name):
//!
//! - **If-8**: input 0 is the condition, the others feed the branches' Parameters
//!   (`then_port_map`, `else_port_map`); each output is the branch Result its port
//!   map names. Decided and undecided conditions are handled as ONNX If's.
//! - **Loop-5**: inputs `trip_count`, `execution_condition` and the values of the
//!   body's Parameters; one body Parameter may be the `current_iteration` and one
//!   Result the `execution_condition` of the next iteration. A Parameter with a
//!   back edge is loop-carried (the dims the body keeps, as ONNX Loop's); an output
//!   with an `axis` concatenates every iteration's Result along it (`iterations *
//!   body dim`), one without is the last iteration's. The iteration count is the
//!   trip count when it is known and not -1, the execution condition is a known
//!   true and the body's condition is provably true; the count of a sliced input
//!   when there is one; a fresh dim otherwise.
//! - **TensorIterator-1**: an input with an `axis` is sliced: the body sees
//!   `part_size` along it and the loop runs `(|end - start| + 1) / part_size`
//!   times (floor), `start` and `end` counting from the end when negative. Back
//!   edges and concatenated outputs are as in Loop.
//!
//! ONNX Loop and Scan and OpenVINO Loop and TensorIterator share one loop kernel,
//! `carried_fixpoint`: the body is inferred with the carried values' facts, each
//! pass keeping of them only what the body provably keeps, until they stay; a state
//! that does not settle within its pass limit leaves the outputs unknown, with a
//! warning. What the specs define differently stays in
//! each adapter: the trip count (ONNX's optional `M` and `cond`; OpenVINO's
//! `trip_count` of -1 for "until the condition", its `execution_condition`, or the
//! count of a sliced input), the body's inputs (ONNX's iteration number and
//! condition; OpenVINO's port map), sequences and optionals (ONNX only) and the
//! outputs (ONNX stacks scan outputs on a new axis 0; OpenVINO concatenates along
//! a port map's `axis`).

use crate::algebra::{Dim, SymbolKind, Truth};
use crate::context::{AttrProblem, AttrValue};
use crate::context::{
    Composite, Expected, OpError, OptionalElement, OptionalFact, SequenceFact, ShapesContext,
    SubgraphValue, TensorFact,
};
use crate::graph::{Attr, ConstData, DType, DeclDim, Graph, Node};
use crate::graph::{PortMapColumn as Col, PORT_MAP_COLUMNS};
use crate::ops::common::attrs::{attr_int, attr_ints};
use crate::ops::common::dims::rank_of;
use crate::ops::common::norm_axis;
use crate::ops::common::values::scalar_int;
use crate::ops::{rules, RuleEntry};

/// The control-flow rules.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["If"], if_rule),
    ("", ["Loop"], loop_rule),
    ("", ["Scan"], scan_rule),
    ("onednn", ["End"], end),
    ("openvino", ["If"], ov_if),
    ("openvino", ["Loop"], ov_loop),
    ("openvino", ["TensorIterator"], ov_tensor_iterator),
];

/// oneDNN End: a graph output marker with no outputs.
fn end(_: &mut ShapesContext, _: &Node) -> Result<Vec<TensorFact>, OpError> {
    Ok(Vec::new())
}

fn graph_attr<'n>(node: &'n Node, name: &'static str) -> Result<&'n Graph, OpError> {
    match node.attr(name) {
        Some(Attr::Graph(g)) => Ok(g),
        Some(other) => Err(crate::ops::common::attrs::bad_kind(name, other, "a graph")),
        None => Err(OpError::MissingAttribute { name }),
    }
}

fn subgraph(
    ctx: &mut ShapesContext,
    g: &Graph,
    inputs: &[TensorFact],
    name: &'static str,
) -> Result<Vec<TensorFact>, OpError> {
    let inputs: Vec<SubgraphValue> = inputs.iter().cloned().map(SubgraphValue::tensor).collect();
    let outs = subgraph_values(ctx, g, &inputs, name)?;
    Ok(outs.into_iter().map(|v| v.fact).collect())
}

/// [`subgraph`] with the sequence and optional facts of inputs and outputs.
fn subgraph_values(
    ctx: &mut ShapesContext,
    g: &Graph,
    inputs: &[SubgraphValue],
    name: &'static str,
) -> Result<Vec<SubgraphValue>, OpError> {
    ctx.run_subgraph_values(g, inputs)
        .map_err(|source| OpError::Subgraph {
            name,
            graph: g.name.clone(),
            source,
        })
}

/// Input `index` of `node` with what the context knows of it as a sequence or an
/// optional.
fn input_value(
    ctx: &ShapesContext,
    node: &Node,
    index: usize,
    what: &'static str,
) -> Result<SubgraphValue, OpError> {
    let fact = ctx.input(node, index, what)?;
    let composite = node
        .input(index)
        .and_then(|name| ctx.composite(name))
        .cloned();
    Ok(SubgraphValue { fact, composite })
}

/// Record the sequence or optional facts of output `out` of `node`, if any.
fn set_output_composite(ctx: &mut ShapesContext, node: &Node, out: usize, c: Option<Composite>) {
    if let (Some(c), Some(name)) = (c, node.outputs.get(out).filter(|n| !n.is_empty())) {
        ctx.set_composite(name, c);
    }
}

/// The tensor facts of `values`, recording their sequence and optional facts as
/// those of the node's outputs.
fn emit_values(
    ctx: &mut ShapesContext,
    node: &Node,
    values: Vec<SubgraphValue>,
) -> Vec<TensorFact> {
    values
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            set_output_composite(ctx, node, i, v.composite);
            v.fact
        })
        .collect()
}

/// Merge two facts of one output: agreed dims stay, others become fresh dims of
/// `node` (output `out`). Ranks that differ ask for a case split
/// (`ctx.rank_conflict`) only when `outer`: for the node's output itself, not for
/// the elements of a sequence or what an optional holds.
fn merge(
    ctx: &mut ShapesContext,
    node: &Node,
    out: usize,
    a: &TensorFact,
    b: &TensorFact,
    outer: bool,
) -> TensorFact {
    let dtype = if a.dtype == DType::Undefined {
        b.dtype
    } else {
        a.dtype
    };
    let shape = match (&a.shape, &b.shape) {
        (Some(x), Some(y)) if x.len() == y.len() => {
            let mut dims = Vec::with_capacity(x.len());
            for (axis, (p, q)) in x.iter().zip(y).enumerate() {
                dims.push(if ctx.alg.equal(*p, *q) == Truth::True {
                    *p
                } else {
                    ctx.unknown_dim(node, out, axis)
                });
            }
            Some(dims)
        }
        (Some(_), Some(_)) => {
            ctx.rank_conflict |= outer;
            None
        }
        _ => None,
    };
    let value = match (&a.value, &b.value) {
        (Some(x), Some(y)) if x.len() == y.len() => {
            let mut same = true;
            for (p, q) in x.iter().zip(y) {
                same &= ctx.alg.equal(*p, *q) == Truth::True;
            }
            same.then(|| x.clone())
        }
        _ => None,
    };
    TensorFact {
        dtype,
        shape,
        value,
    }
}

fn if_rule(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let cond = ctx.input(node, 0, "cond")?;
    let then_g = graph_attr(node, "then_branch")?;
    let else_g = graph_attr(node, "else_branch")?;
    let all: Vec<Option<usize>> = (0..node.outputs.len()).map(Some).collect();
    let then_b = Branch {
        graph: then_g,
        inputs: Vec::new(),
        outputs: all.clone(),
        name: "then_branch",
    };
    let else_b = Branch {
        graph: else_g,
        inputs: Vec::new(),
        outputs: all,
        name: "else_branch",
    };
    let outs = run_if(ctx, node, &cond, then_b, else_b, true)?;
    Ok(emit_values(ctx, node, outs))
}

/// One branch of an If: its graph, the facts of its inputs, and for each output of
/// the node the branch output it comes from.
struct Branch<'g> {
    graph: &'g Graph,
    inputs: Vec<TensorFact>,
    outputs: Vec<Option<usize>>,
    name: &'static str,
}

/// The outputs of an If node of condition `cond` (the ONNX and OpenVINO rules), with
/// their sequence and optional facts.
/// `same_outputs`: the branches must have the same number of outputs, at least the
/// node's (ONNX).
fn run_if(
    ctx: &mut ShapesContext,
    node: &Node,
    cond: &TensorFact,
    then_b: Branch<'_>,
    else_b: Branch<'_>,
    same_outputs: bool,
) -> Result<Vec<SubgraphValue>, OpError> {
    let known = cond
        .value
        .as_ref()
        .and_then(|v| v.first())
        .and_then(|d| ctx.alg.as_i64(*d));
    let pick = |b: &Branch<'_>, outs: &[SubgraphValue]| -> Result<Vec<SubgraphValue>, OpError> {
        b.outputs
            .iter()
            .map(|o| match o {
                Some(i) => outs.get(*i).cloned().ok_or_else(|| OpError::BadAttribute {
                    name: b.name,
                    value: AttrValue::Graph(b.graph.name.clone()),
                    why: Box::new(AttrProblem::BranchOutputs {
                        branch: outs.len(),
                        node: node.outputs.len(),
                    }),
                }),
                None => Ok(SubgraphValue::tensor(TensorFact::unknown(DType::Undefined))),
            })
            .collect()
    };
    let run = |ctx: &mut ShapesContext, b: &Branch<'_>| {
        let inputs: Vec<SubgraphValue> = b
            .inputs
            .iter()
            .cloned()
            .map(SubgraphValue::tensor)
            .collect();
        subgraph_values(ctx, b.graph, &inputs, b.name)
    };
    // A decided condition: only the branch that runs is inferred (the other may
    // hold ops that are invalid exactly when it does not run).
    match known {
        Some(0) => {
            let outs = run(ctx, &else_b)?;
            return pick(&else_b, &outs);
        }
        Some(_) => {
            let outs = run(ctx, &then_b)?;
            return pick(&then_b, &outs);
        }
        None => {}
    }
    // Undecided: each branch's equalities hold only when it runs, recorded under this
    // node's name (inner nodes name themselves).
    let outer = ctx.alg.set_site(&node.name);
    ctx.alg.speculate(true);
    let then_out = run(ctx, &then_b);
    let else_out = run(ctx, &else_b);
    ctx.alg.speculate(false);
    ctx.alg.set_site(&outer);
    let (then_out, else_out) = (then_out?, else_out?);
    if same_outputs && (then_out.len() != else_out.len() || then_out.len() < node.outputs.len()) {
        return Err(OpError::BadAttribute {
            name: "else_branch",
            value: AttrValue::Graph(else_b.graph.name.clone()),
            why: Box::new(AttrProblem::BranchesOutputs {
                then_branch: then_out.len(),
                else_branch: else_out.len(),
                node: node.outputs.len(),
            }),
        });
    }
    let (a, b) = (pick(&then_b, &then_out)?, pick(&else_b, &else_out)?);
    Ok(a.iter()
        .zip(&b)
        .enumerate()
        .map(|(i, (a, b))| SubgraphValue {
            fact: merge(ctx, node, i, &a.fact, &b.fact, true),
            composite: merge_composites(ctx, node, i, a, b),
        })
        .collect())
}

/// True when two facts provably describe tensors of one shape (same rank, dims
/// provably equal).
fn same_shape(ctx: &ShapesContext, a: &TensorFact, b: &TensorFact) -> bool {
    match (&a.shape, &b.shape) {
        (Some(x), Some(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(p, q)| ctx.alg.equal(*p, *q) == Truth::True)
        }
        _ => false,
    }
}

/// True when a sequence is known to be empty.
fn empty_sequence(ctx: &ShapesContext, s: &SequenceFact) -> bool {
    s.len.is_some_and(|l| ctx.alg.as_i64(l) == Some(0))
}

/// The first defined of two element types.
fn either_dtype(a: DType, b: DType) -> DType {
    if a == DType::Undefined {
        b
    } else {
        a
    }
}

/// The facts of a value that is one of two sequences (the outputs of an If's two
/// branches): the element facts merged as [`merge`] merges tensors (an empty
/// sequence's elements do not count: it has none), the length when both are provably
/// equal (else a fresh data-dependent dim of `node`), and the elements one by one
/// when both have the same count of provably same-shaped elements.
fn merge_sequences(
    ctx: &mut ShapesContext,
    node: &Node,
    out: usize,
    a: &SequenceFact,
    b: &SequenceFact,
) -> SequenceFact {
    let dtype = either_dtype(a.elem.dtype, b.elem.dtype);
    let mut elem = match (empty_sequence(ctx, a), empty_sequence(ctx, b)) {
        (true, _) => b.elem.clone(),
        (_, true) => a.elem.clone(),
        _ => merge(ctx, node, out, &a.elem, &b.elem, false),
    };
    elem.dtype = either_dtype(elem.dtype, dtype);
    let len = match (a.len, b.len) {
        (Some(x), Some(y)) if ctx.alg.equal(x, y) == Truth::True => Some(x),
        _ => Some(ctx.unknown_dim(node, out, usize::MAX)),
    };
    let elems = match (&a.elems, &b.elems) {
        (Some(x), Some(y))
            if x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_shape(ctx, p, q)) =>
        {
            Some(
                x.iter()
                    .zip(y)
                    .map(|(p, q)| merge(ctx, node, out, p, q, false))
                    .collect(),
            )
        }
        _ => None,
    };
    SequenceFact { elem, len, elems }
}

/// The element type of what an optional holds.
fn held_dtype(e: &OptionalElement) -> DType {
    match e {
        OptionalElement::Tensor(t) => t.dtype,
        OptionalElement::Sequence(s) => s.elem.dtype,
    }
}

/// The facts of a value that is one of two optionals (an If's two branches): present
/// when both are, empty when both are; what it holds is what the non-empty one holds
/// when the other is known to be empty, else the two merged ([`merge`],
/// [`merge_sequences`]); a tensor of unknown rank when they hold different kinds.
fn merge_optionals(
    ctx: &mut ShapesContext,
    node: &Node,
    out: usize,
    a: &OptionalFact,
    b: &OptionalFact,
) -> OptionalFact {
    let present = if a.present == b.present {
        a.present
    } else {
        None
    };
    let elem = match (a.present, b.present) {
        (Some(false), _) => b.elem.clone(),
        (_, Some(false)) => a.elem.clone(),
        _ => match (&a.elem, &b.elem) {
            (OptionalElement::Tensor(x), OptionalElement::Tensor(y)) => {
                OptionalElement::Tensor(merge(ctx, node, out, x, y, false))
            }
            (OptionalElement::Sequence(x), OptionalElement::Sequence(y)) => {
                OptionalElement::Sequence(merge_sequences(ctx, node, out, x, y))
            }
            (x, y) => OptionalElement::Tensor(TensorFact::unknown(either_dtype(
                held_dtype(x),
                held_dtype(y),
            ))),
        },
    };
    OptionalFact { elem, present }
}

/// An optional of which nothing is known but its element type.
fn unknown_optional(dtype: DType) -> OptionalFact {
    OptionalFact {
        elem: OptionalElement::Tensor(TensorFact::unknown(dtype)),
        present: None,
    }
}

/// The sequence or optional facts of a value that is one of `a` and `b` (an If's two
/// branches). A value of one branch the context does not know as a sequence (or an
/// optional) while the other's is one counts as one of which nothing is known.
fn merge_composites(
    ctx: &mut ShapesContext,
    node: &Node,
    out: usize,
    a: &SubgraphValue,
    b: &SubgraphValue,
) -> Option<Composite> {
    use Composite::{Optional as O, Sequence as S};
    let seq = |v: &SubgraphValue| SequenceFact::unknown(v.fact.dtype);
    let opt = |v: &SubgraphValue| unknown_optional(v.fact.dtype);
    Some(match (&a.composite, &b.composite) {
        (Some(S(x)), Some(S(y))) => S(merge_sequences(ctx, node, out, x, y)),
        (Some(S(x)), None) => S(merge_sequences(ctx, node, out, x, &seq(b))),
        (None, Some(S(y))) => S(merge_sequences(ctx, node, out, &seq(a), y)),
        (Some(O(x)), Some(O(y))) => O(merge_optionals(ctx, node, out, x, y)),
        (Some(O(x)), None) => O(merge_optionals(ctx, node, out, x, &opt(b))),
        (None, Some(O(y))) => O(merge_optionals(ctx, node, out, &opt(a), y)),
        _ => return None,
    })
}

/// A loop-carried value: the dims the body provably keeps, fresh dims elsewhere.
fn carried(
    ctx: &mut ShapesContext,
    node: &Node,
    out: usize,
    init: &TensorFact,
    body: &TensorFact,
) -> TensorFact {
    let mut f = merge(ctx, node, out, init, body, true);
    f.value = None;
    f
}

/// True when a boolean scalar (or one-element tensor) is known to be true.
fn is_true(ctx: &ShapesContext, f: &TensorFact) -> bool {
    scalar_int(&ctx.alg, f).is_some_and(|x| x != 0)
}

/// The most passes over a loop body while its carried facts settle. Each pass that
/// changes the state makes a dim fresh, a rank unknown or an empty sequence or
/// optional take what the body puts in, so [`pass_limit`] passes always settle; this
/// bounds the work on a huge state.
const MAX_LOOP_PASSES: usize = 64;

/// Passes enough for a state of these facts to settle: one per dim that can become
/// fresh, two per carried value (its rank, what an empty sequence or optional takes
/// in), one to see that nothing changes; at most [`MAX_LOOP_PASSES`].
fn pass_limit<'f>(facts: impl Iterator<Item = &'f TensorFact>) -> usize {
    let mut n = 1usize;
    for f in facts {
        n = n.saturating_add(2 + f.rank().unwrap_or(0));
    }
    n.min(MAX_LOOP_PASSES)
}

/// What [`carried_fixpoint`] leaves: the carried state after the last pass, the
/// body's outputs in that pass, and whether the state settled. A settled state holds
/// in every iteration; one that did not settle within the limit says nothing.
struct Fixpoint<S, O> {
    state: Vec<S>,
    outs: O,
    converged: bool,
}

/// The loop kernel of ONNX Loop and Scan and OpenVINO Loop and TensorIterator: the
/// body sees the carried values with the facts that hold in every iteration. `step`
/// infers the body once with a state and gives its outputs and the next state, which
/// keeps of the state only what the body provably keeps (so a state only loses
/// facts, pass after pass); the passes repeat until the state stays or `limit` have
/// run. A settled state holds in every iteration by induction: the first iteration
/// sees the initial values, which it describes, and the body turns any values it
/// describes into values it describes. The trip count and the outputs are each
/// spec's own (ONNX stacks scan outputs on a new axis; OpenVINO slices inputs and
/// concatenates outputs along a port map's axis), so they stay in the adapters.
fn carried_fixpoint<S: PartialEq, O: Default>(
    mut state: Vec<S>,
    limit: usize,
    mut step: impl FnMut(&[S]) -> Result<(O, Vec<S>), OpError>,
) -> Result<Fixpoint<S, O>, OpError> {
    let mut outs = O::default();
    for _ in 0..limit {
        let (o, next) = step(&state)?;
        outs = o;
        if next == state {
            return Ok(Fixpoint {
                state,
                outs,
                converged: true,
            });
        }
        state = next;
    }
    Ok(Fixpoint {
        state,
        outs,
        converged: false,
    })
}

/// The warning for a loop whose carried facts did not settle within `limit` passes:
/// its outputs are then unknown.
fn unsettled(ctx: &mut ShapesContext, node: &Node, limit: usize) {
    let msg = format!(
        "the loop-carried facts did not settle within {limit} passes over the body; the outputs are unknown"
    );
    ctx.warn(node, &msg);
}

/// The axis key of the fresh dim that stands for a carried sequence's length at the
/// start of an iteration (inside the body only).
const LEN_AXIS: usize = usize::MAX - 1;

/// What the body of a Loop sees of one carried value in a pass: the value, and
/// whether it is an empty sequence or an empty optional whose element facts are not
/// yet known (`open`: the body sees the initial value itself, which is exact for the
/// first iteration; what the elements share comes from what the body puts in).
#[derive(Clone, Debug, PartialEq, Eq)]
struct CarriedState {
    value: SubgraphValue,
    open: bool,
}

/// The names of the nodes of `g` and of its subgraphs.
fn node_names(g: &Graph, out: &mut rustc_hash::FxHashSet<String>) {
    for n in &g.nodes {
        out.insert(n.name.clone());
        for a in n.attrs.values() {
            match a {
                Attr::Graph(sub) => node_names(sub, out),
                Attr::Graphs(subs) => subs.iter().for_each(|sub| node_names(sub, out)),
                _ => {}
            }
        }
    }
}

/// True when `d` mentions a data-dependent symbol of a node of `body` (directly or
/// through the definition of a derived symbol): a value that may differ from one
/// iteration to the next, though it has one name.
fn mentions_body_symbol(ctx: &ShapesContext, d: Dim, body: &rustc_hash::FxHashSet<String>) -> bool {
    let mut todo = Vec::new();
    ctx.alg.canon(d).symbols(&mut todo);
    let mut seen = 0usize;
    while let Some(s) = todo.pop() {
        seen += 1;
        if seen > 256 {
            // a long chain of definitions: assume the worst
            return true;
        }
        match ctx.alg.symbol_entry(s.as_str()).map(|e| &e.kind) {
            Some(SymbolKind::DataDependent { node }) if body.contains(node) => return true,
            Some(SymbolKind::Derived { definition }) => definition.symbols(&mut todo),
            _ => {}
        }
    }
    false
}

/// `f` without its contents, each dim that mentions a symbol of the body
/// ([`mentions_body_symbol`]) replaced by a fresh dim of `node` (output `out`).
fn outside_body(
    ctx: &mut ShapesContext,
    node: &Node,
    out: usize,
    f: &TensorFact,
    body: &rustc_hash::FxHashSet<String>,
) -> TensorFact {
    let shape = f.shape.as_ref().map(|s| {
        s.iter()
            .enumerate()
            .map(|(axis, &d)| {
                if mentions_body_symbol(ctx, d, body) {
                    ctx.unknown_dim(node, out, axis)
                } else {
                    d
                }
            })
            .collect()
    });
    TensorFact {
        dtype: f.dtype,
        shape,
        value: None,
    }
}

/// The fresh dim that stands for carried value `i`'s length at the start of an
/// iteration.
fn iteration_len(ctx: &mut ShapesContext, node: &Node, i: usize) -> Dim {
    ctx.unknown_dim(node, i, LEN_AXIS)
}

/// What the body sees of carried sequence `i` whose elements share `elem`: that, and
/// a length of the iteration's own ([`iteration_len`]).
fn carried_sequence(
    ctx: &mut ShapesContext,
    node: &Node,
    i: usize,
    elem: TensorFact,
) -> SequenceFact {
    let len = iteration_len(ctx, node, i);
    SequenceFact {
        elem: TensorFact {
            value: None,
            ..elem
        },
        len: Some(len),
        elems: None,
    }
}

/// The first pass's view of a carried value of initial value `init`.
fn carried_start(
    ctx: &mut ShapesContext,
    node: &Node,
    i: usize,
    init: &SubgraphValue,
) -> CarriedState {
    let fact = TensorFact {
        value: None,
        ..init.fact.clone()
    };
    let (composite, open) = match &init.composite {
        None => (None, false),
        Some(Composite::Sequence(s)) if empty_sequence(ctx, s) => (init.composite.clone(), true),
        Some(Composite::Sequence(s)) => {
            let seq = carried_sequence(ctx, node, i, s.elem.clone());
            (Some(Composite::Sequence(seq)), false)
        }
        Some(Composite::Optional(o)) => (
            Some(Composite::Optional(o.clone())),
            o.present == Some(false),
        ),
    };
    CarriedState {
        value: SubgraphValue { fact, composite },
        open,
    }
}

/// The next pass's view of carried value `i` after the body turned `state` into
/// `out`: tensors keep the state's dims the body provably keeps ([`carried`]); a sequence's
/// elements share what the elements seen so far and the body's elements share, with
/// the iteration's own length; an optional is present when it stays so, and holds
/// what both hold. What an open state's body puts in counts with only the dims that
/// do not mention the body's own symbols.
fn carried_next(
    ctx: &mut ShapesContext,
    node: &Node,
    i: usize,
    state: &CarriedState,
    out: &SubgraphValue,
    body: &rustc_hash::FxHashSet<String>,
) -> CarriedState {
    let fact = carried(ctx, node, i, &state.value.fact, &out.fact);
    let dtype = fact.dtype;
    let composite = match (&state.value.composite, &out.composite) {
        (None, None) => None,
        (Some(Composite::Sequence(_)), o) | (None, o @ Some(Composite::Sequence(_))) => {
            let unknown = SequenceFact::unknown(dtype);
            let o = match o {
                Some(Composite::Sequence(o)) => o,
                _ => &unknown,
            };
            let elem = if state.open {
                outside_body(ctx, node, i, &o.elem, body)
            } else {
                let s = match &state.value.composite {
                    Some(Composite::Sequence(s)) => s.elem.clone(),
                    _ => TensorFact::unknown(dtype),
                };
                merge(ctx, node, i, &s, &o.elem, false)
            };
            Some(Composite::Sequence(carried_sequence(ctx, node, i, elem)))
        }
        (Some(Composite::Optional(_)), o) | (None, o @ Some(Composite::Optional(_))) => {
            let unknown = unknown_optional(dtype);
            let o = match o {
                Some(Composite::Optional(o)) => o,
                _ => &unknown,
            };
            let s = match &state.value.composite {
                Some(Composite::Optional(s)) => s.clone(),
                _ => unknown_optional(dtype),
            };
            let present = if s.present == o.present {
                s.present
            } else {
                None
            };
            let elem = match (&s.elem, &o.elem) {
                _ if s.present == Some(false) => match &o.elem {
                    OptionalElement::Tensor(t) => {
                        OptionalElement::Tensor(outside_body(ctx, node, i, t, body))
                    }
                    OptionalElement::Sequence(q) => {
                        let e = outside_body(ctx, node, i, &q.elem, body);
                        let len = ctx.unknown_dim(node, i, usize::MAX);
                        OptionalElement::Sequence(SequenceFact::uniform(e, Some(len)))
                    }
                },
                (OptionalElement::Tensor(x), OptionalElement::Tensor(y)) => {
                    let mut t = merge(ctx, node, i, x, y, false);
                    t.value = None;
                    OptionalElement::Tensor(t)
                }
                (OptionalElement::Sequence(x), OptionalElement::Sequence(y)) => {
                    let mut e = merge(ctx, node, i, &x.elem, &y.elem, false);
                    e.value = None;
                    let len = match (x.len, y.len) {
                        (Some(p), Some(q)) if ctx.alg.equal(p, q) == Truth::True => Some(p),
                        _ => Some(ctx.unknown_dim(node, i, usize::MAX)),
                    };
                    OptionalElement::Sequence(SequenceFact::uniform(e, len))
                }
                (x, y) => OptionalElement::Tensor(TensorFact::unknown(either_dtype(
                    held_dtype(x),
                    held_dtype(y),
                ))),
            };
            Some(Composite::Optional(OptionalFact { elem, present }))
        }
    };
    let open = state.open
        && matches!(&composite, Some(Composite::Optional(o)) if o.present == Some(false));
    CarriedState {
        value: SubgraphValue { fact, composite },
        open,
    }
}

/// The sequence or optional facts of carried value `i` after the loop. `converged`:
/// the state holds in every iteration; `last`: the body's output for it in the last
/// pass; `iterations`: the number of iterations, when known. A sequence's length is
/// the initial length when the body keeps it, the initial length plus `iterations`
/// times what one iteration adds when that is a constant, else a fresh dim.
#[allow(clippy::too_many_arguments)]
fn carried_result(
    ctx: &mut ShapesContext,
    node: &Node,
    i: usize,
    init: &SubgraphValue,
    state: &CarriedState,
    last: Option<&SubgraphValue>,
    converged: bool,
    iterations: Option<Dim>,
) -> Option<Composite> {
    let dtype = state.value.fact.dtype;
    match &state.value.composite {
        None => None,
        Some(Composite::Sequence(s)) => {
            let fresh_len = |ctx: &mut ShapesContext| ctx.unknown_dim(node, i, usize::MAX);
            if !converged || state.open {
                let len = fresh_len(ctx);
                return Some(Composite::Sequence(SequenceFact::uniform(
                    TensorFact::unknown(dtype),
                    Some(len),
                )));
            }
            let l = iteration_len(ctx, node, i);
            let step = match last.and_then(|v| v.composite.as_ref()) {
                Some(Composite::Sequence(o)) => o.len.and_then(|ol| {
                    let d = ctx.alg.sub(ol, l);
                    ctx.alg.as_i64(d)
                }),
                _ => None,
            };
            let init_len = match &init.composite {
                Some(Composite::Sequence(s0)) => s0.len,
                _ => None,
            };
            let len = match (step, init_len, iterations) {
                (Some(0), Some(l0), _) => l0,
                (Some(c), Some(l0), Some(n)) => {
                    let c = ctx.alg.constant(c);
                    let grown = ctx.alg.mul(n, c);
                    ctx.alg.add_dims(l0, grown)
                }
                _ => fresh_len(ctx),
            };
            Some(Composite::Sequence(SequenceFact::uniform(
                s.elem.clone(),
                Some(len),
            )))
        }
        Some(Composite::Optional(o)) => Some(Composite::Optional(if converged {
            o.clone()
        } else {
            unknown_optional(dtype)
        })),
    }
}

fn loop_rule(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let body = graph_attr(node, "body")?;
    let trip = ctx.optional_input(node, 0)?;
    let has_cond = node.input(1).is_some();
    let n_carried = node.inputs.len().saturating_sub(2);
    let mut init = Vec::with_capacity(n_carried);
    for i in 0..n_carried {
        init.push(input_value(ctx, node, i + 2, "v_initial")?);
    }
    let i64_scalar = TensorFact::new(DType::Int64, vec![]);
    let mut bool_scalar = TensorFact::new(DType::Bool, vec![]);
    if has_cond {
        // With a condition, an iteration runs only while it is true: inside the
        // body the condition input is always true.
        bool_scalar.value = Some(vec![ctx.alg.constant(1)]);
    }
    let head = [
        SubgraphValue::tensor(i64_scalar),
        SubgraphValue::tensor(bool_scalar),
    ];
    // The body sees carried values with their loop-invariant facts only: first infer
    // with the initial facts, then again with those that survived, until they stay.
    let start: Vec<CarriedState> = init
        .iter()
        .enumerate()
        .map(|(i, v)| carried_start(ctx, node, i, v))
        .collect();
    // The body's own node names, for what an empty carried sequence or optional
    // takes in (only when there is one).
    let mut body_nodes = rustc_hash::FxHashSet::default();
    if start.iter().any(|c| c.open) {
        node_names(body, &mut body_nodes);
    }
    let limit = pass_limit(init.iter().flat_map(|v| {
        let elem = match &v.composite {
            Some(Composite::Sequence(s)) => Some(&s.elem),
            Some(Composite::Optional(o)) => match &o.elem {
                OptionalElement::Tensor(t) => Some(t),
                OptionalElement::Sequence(s) => Some(&s.elem),
            },
            None => None,
        };
        std::iter::once(&v.fact).chain(elem)
    }));
    let step = |state: &[CarriedState]| -> Result<_, OpError> {
        let mut inputs: Vec<SubgraphValue> = head.to_vec();
        inputs.extend(state.iter().map(|c| c.value.clone()));
        let outs = subgraph_values(ctx, body, &inputs, "body")?;
        let next: Vec<CarriedState> = (0..n_carried)
            .map(|i| match outs.get(i + 1) {
                Some(b) => carried_next(ctx, node, i, &state[i], b, &body_nodes),
                None => CarriedState {
                    value: SubgraphValue::tensor(TensorFact::unknown(init[i].fact.dtype)),
                    open: false,
                },
            })
            .collect();
        Ok((outs, next))
    };
    let Fixpoint {
        state,
        outs,
        converged,
    } = carried_fixpoint(start, limit, step)?;
    if !converged {
        unsettled(ctx, node, limit);
    }
    // The loop runs `M` times when it has no condition, or when the condition is
    // true on entry and the body provably returns true (a constant, or the
    // condition input passed through).
    let runs_all = !has_cond || {
        let cond = ctx.input(node, 1, "cond")?;
        let body_cond = outs.first().map(|v| v.fact.clone());
        is_true(ctx, &cond) && body_cond.is_some_and(|c| is_true(ctx, &c))
    };
    let trip_dim = match &trip {
        Some(t) if runs_all => t.value.as_ref().and_then(|v| v.first().copied()),
        _ => None,
    };
    let iterations = trip_dim.filter(|d| ctx.alg.bounds(*d).is_nonneg());
    let mut result = Vec::with_capacity(node.outputs.len());
    for (i, st) in state.iter().enumerate() {
        let last = outs.get(i + 1);
        let c = carried_result(ctx, node, i, &init[i], st, last, converged, iterations);
        set_output_composite(ctx, node, i, c);
        result.push(if converged {
            st.value.fact.clone()
        } else {
            TensorFact::unknown(st.value.fact.dtype)
        });
    }
    for (k, scan) in outs.iter().skip(1 + n_carried).enumerate() {
        let out = n_carried + k;
        if !converged {
            result.push(TensorFact::unknown(scan.fact.dtype));
            continue;
        }
        if scan.composite.is_some() {
            // ONNX: a scan output is a tensor (the body's per-iteration values are
            // stacked); a sequence or an optional cannot be.
            let msg = format!(
                "{}: scan output {k} of the body (`{}`) is a sequence or an optional; a Loop's scan outputs must be tensors",
                crate::context::node_context(node),
                body.outputs.get(1 + n_carried + k).map_or("", |v| &*v.name)
            );
            ctx.diagnose_error(node, msg, true);
            result.push(TensorFact::unknown(scan.fact.dtype));
            continue;
        }
        let len: Dim = match trip_dim {
            Some(d) => d,
            None => {
                let kind = SymbolKind::DataDependent {
                    node: node.name.clone(),
                };
                ctx.fresh_dim(node, out, 0, "iter", kind)
            }
        };
        let shape = scan
            .fact
            .shape
            .as_ref()
            .map(|s| std::iter::once(len).chain(s.iter().copied()).collect());
        result.push(TensorFact {
            dtype: scan.fact.dtype,
            shape,
            value: None,
        });
    }
    Ok(result)
}

fn scan_rule(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let body = graph_attr(node, "body")?;
    let n_scan_in = attr_int(node, "num_scan_inputs", -1)?;
    if n_scan_in < 1 {
        return Err(OpError::MissingAttribute {
            name: "num_scan_inputs",
        });
    }
    let n_scan_in = n_scan_in as usize;
    // Opset 8 has a leading optional sequence_lens input and a batch axis.
    let batched = node.version < 9;
    let first = usize::from(batched);
    let n_inputs = node.inputs.len().saturating_sub(first);
    if n_scan_in > n_inputs {
        return Err(OpError::InputCount {
            expected: Expected::Counting(Box::new(Expected::AtLeast(n_scan_in)), "scan inputs"),
            found: n_inputs,
        });
    }
    let n_state = n_inputs - n_scan_in;
    let in_axes = attr_ints(node, "scan_input_axes")?
        .map(<[i64]>::to_vec)
        .unwrap_or_else(|| vec![0; n_scan_in]);
    let mut states = Vec::with_capacity(n_state);
    for i in 0..n_state {
        states.push(ctx.input(node, first + i, "initial_state")?);
    }
    // Opset 8: every state and scan input has the batch axis first, and the body
    // sees one batch element (the outputs get the axis back).
    let mut batch: Option<Dim> = None;
    let mut body_inputs: Vec<TensorFact> = Vec::with_capacity(n_state + n_scan_in);
    for f in &states {
        let shape = match (&f.shape, batched) {
            (Some(s), true) if s.is_empty() => {
                return Err(rank_of(
                    "scan state",
                    Expected::AtLeast(1).noted("batch"),
                    0,
                ))
            }
            (Some(s), true) => {
                batch.get_or_insert(s[0]);
                Some(s[1..].to_vec())
            }
            (shape, _) => shape.clone(),
        };
        body_inputs.push(TensorFact {
            dtype: f.dtype,
            shape,
            value: None,
        });
    }
    let mut seq_len: Option<Dim> = None;
    for j in 0..n_scan_in {
        let x = ctx.input(node, first + n_state + j, "scan_input")?;
        let Some(mut shape) = x.shape.clone() else {
            body_inputs.push(TensorFact::unknown(x.dtype));
            continue;
        };
        if batched {
            if shape.len() < 2 {
                return Err(rank_of(
                    "scan input",
                    Expected::AtLeast(2).noted("batch, sequence"),
                    shape.len(),
                ));
            }
            let len = shape.remove(1);
            seq_len.get_or_insert(len);
            batch.get_or_insert(shape.remove(0));
        } else {
            let axis = norm_axis(in_axes.get(j).copied().unwrap_or(0), shape.len())?;
            let len = shape.remove(axis);
            seq_len.get_or_insert(len);
        }
        body_inputs.push(TensorFact::new(x.dtype, shape));
    }
    // The states as the Scan sees them (with the batch axis in opset 8), which the
    // body keeps or changes from one iteration to the next: the loop kernel finds the
    // facts that hold in every iteration. A state's shape is known only when the
    // batch is (opset 8 takes the batch from every known shape).
    let with_batch = |shape: &Option<Vec<Dim>>| -> Option<Vec<Dim>> {
        let shape = shape.as_ref()?;
        match (batched, batch) {
            (false, _) => Some(shape.clone()),
            (true, Some(b)) => Some(std::iter::once(b).chain(shape.iter().copied()).collect()),
            (true, None) => None,
        }
    };
    let start: Vec<TensorFact> = states
        .iter()
        .map(|f| TensorFact {
            value: None,
            ..f.clone()
        })
        .collect();
    let scan_inputs = body_inputs.split_off(n_state);
    let limit = pass_limit(start.iter());
    // The body's outputs in the first iteration, which sees the initial states as
    // they are. Every iteration's scan outputs must have one shape (they are
    // stacked), so the first iteration's give the shape of all of them.
    let mut first: Option<Vec<TensorFact>> = None;
    let step = |st: &[TensorFact]| -> Result<_, OpError> {
        let inputs: Vec<TensorFact> = st
            .iter()
            .map(|f| TensorFact {
                dtype: f.dtype,
                shape: match (&f.shape, batched) {
                    (Some(s), true) => Some(s[1..].to_vec()),
                    (shape, _) => shape.clone(),
                },
                value: None,
            })
            .chain(scan_inputs.iter().cloned())
            .collect();
        let outs = subgraph(ctx, body, &inputs, "body")?;
        if first.is_none() {
            first = Some(outs.clone());
        }
        let next = st
            .iter()
            .enumerate()
            .map(|(i, f)| match outs.get(i) {
                Some(o) => {
                    let b = TensorFact {
                        dtype: o.dtype,
                        shape: with_batch(&o.shape),
                        value: None,
                    };
                    carried(ctx, node, i, f, &b)
                }
                None => TensorFact::unknown(f.dtype),
            })
            .collect();
        Ok((outs, next))
    };
    let Fixpoint {
        state,
        outs,
        converged,
    } = carried_fixpoint(start, limit, step)?;
    if !converged {
        unsettled(ctx, node, limit);
        let dtypes = state
            .iter()
            .map(|f| f.dtype)
            .chain(outs.iter().skip(n_state).map(|o| o.dtype));
        return Ok(dtypes.map(TensorFact::unknown).collect());
    }
    let batch = match (batched, batch) {
        (true, Some(b)) => Some(b),
        (true, None) => Some(ctx.unknown_dim(node, 0, 0)),
        (false, _) => None,
    };
    let mut result = state;
    let out_axes = attr_ints(node, "scan_output_axes")?.map(<[i64]>::to_vec);
    let rows = first.unwrap_or(outs);
    for (k, o) in rows.iter().skip(n_state).enumerate() {
        let out = n_state + k;
        let len = match seq_len {
            Some(d) => d,
            None => ctx.unknown_dim(node, out, 0),
        };
        let shape = o.shape.as_ref().map(|s| -> Result<Vec<Dim>, OpError> {
            let mut v = s.clone();
            if let Some(b) = batch {
                v.splice(0..0, [b, len]);
            } else {
                let axis = out_axes
                    .as_ref()
                    .and_then(|a| a.get(k))
                    .copied()
                    .unwrap_or(0);
                let axis = norm_axis(axis, v.len() + 1)?;
                v.insert(axis, len);
            }
            Ok(v)
        });
        let shape = shape.transpose()?;
        result.push(TensorFact {
            dtype: o.dtype,
            shape,
            value: None,
        });
    }
    Ok(result)
}

/// One converted port map entry (see `crate::read::openvino::to_graph`).
#[derive(Clone, Copy, Debug)]
struct PortEntry {
    input: bool,
    external: Option<usize>,
    internal: Option<usize>,
    axis: Option<i64>,
    start: i64,
    end: i64,
    stride: i64,
    part_size: i64,
    purpose: i64,
}

/// The entries of the port map attribute `name` (none when absent).
fn port_map(node: &Node, name: &'static str) -> Result<Vec<PortEntry>, OpError> {
    let rows = match node.attr(name) {
        None => return Ok(Vec::new()),
        Some(Attr::Tensor(t)) => match &t.data {
            ConstData::Ints(v) if v.len() % PORT_MAP_COLUMNS == 0 => v,
            _ => {
                return Err(OpError::BadAttribute {
                    name,
                    value: AttrValue::Tensor {
                        dtype: t.dtype,
                        dims: t.dims.clone(),
                    },
                    why: Box::new(AttrProblem::ExpectedKind("an integer port map")),
                })
            }
        },
        Some(other) => {
            return Err(crate::ops::common::attrs::bad_kind(
                name,
                other,
                "a port map",
            ))
        }
    };
    let index = |v: i64| usize::try_from(v).ok();
    Ok(rows
        .chunks(PORT_MAP_COLUMNS)
        .map(|r| PortEntry {
            input: r[Col::Direction as usize] == 0,
            external: index(r[Col::External as usize]),
            internal: index(r[Col::Internal as usize]),
            axis: (r[Col::HasAxis as usize] != 0).then_some(r[Col::Axis as usize]),
            start: r[Col::Start as usize],
            end: r[Col::End as usize],
            stride: r[Col::Stride as usize],
            part_size: r[Col::PartSize as usize],
            purpose: r[Col::Purpose as usize],
        })
        .collect())
}

/// The back edges of a body: `(body output, body input)` pairs.
fn back_edges(node: &Node) -> Vec<(usize, usize)> {
    match node.attr("back_edges") {
        Some(Attr::Tensor(t)) => match &t.data {
            ConstData::Ints(v) => v
                .chunks(2)
                .filter_map(|p| {
                    let from = usize::try_from(*p.first()?).ok()?;
                    let to = usize::try_from(*p.get(1)?).ok()?;
                    Some((from, to))
                })
                .collect(),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// The fact of a body input no port feeds (the current iteration): its declared
/// type and constant dims, fresh dims elsewhere.
fn declared_input(ctx: &mut ShapesContext, node: &Node, g: &Graph, j: usize) -> TensorFact {
    let Some(v) = g.inputs.get(j) else {
        return TensorFact::unknown(DType::Undefined);
    };
    match &v.shape {
        None => TensorFact::unknown(v.dtype),
        Some(dims) => {
            let dims = dims
                .iter()
                .enumerate()
                .map(|(axis, d)| match d {
                    DeclDim::Value(x) => ctx.alg.constant(*x),
                    _ => ctx.unknown_dim(node, usize::MAX - j, axis),
                })
                .collect();
            TensorFact::new(v.dtype, dims)
        }
    }
}

/// The facts of an OpenVINO body's inputs from the node's inputs through `map`.
fn body_inputs(
    ctx: &mut ShapesContext,
    node: &Node,
    g: &Graph,
    map: &[PortEntry],
) -> Result<Vec<TensorFact>, OpError> {
    let mut out = Vec::with_capacity(g.inputs.len());
    for j in 0..g.inputs.len() {
        let e = map.iter().find(|e| e.input && e.internal == Some(j));
        out.push(match e.and_then(|e| e.external) {
            Some(x) => ctx.input(node, x, "body input")?,
            None => declared_input(ctx, node, g, j),
        });
    }
    Ok(out)
}

/// For each output of the node, the body output the port map routes to it.
fn output_routes(node: &Node, map: &[PortEntry]) -> Vec<Option<usize>> {
    (0..node.outputs.len())
        .map(|i| {
            map.iter()
                .find(|e| !e.input && e.external == Some(i))
                .and_then(|e| e.internal)
        })
        .collect()
}

/// OpenVINO If-8.
fn ov_if(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let cond = ctx.input(node, 0, "cond")?;
    let then_g = graph_attr(node, "then_body")?;
    let else_g = graph_attr(node, "else_body")?;
    let then_map = port_map(node, "then_port_map")?;
    let else_map = port_map(node, "else_port_map")?;
    let then_b = Branch {
        graph: then_g,
        inputs: body_inputs(ctx, node, then_g, &then_map)?,
        outputs: output_routes(node, &then_map),
        name: "then_body",
    };
    let else_b = Branch {
        graph: else_g,
        inputs: body_inputs(ctx, node, else_g, &else_map)?,
        outputs: output_routes(node, &else_map),
        name: "else_body",
    };
    let outs = run_if(ctx, node, &cond, then_b, else_b, false)?;
    Ok(emit_values(ctx, node, outs))
}

/// How a sliced input of a TensorIterator (or Loop) is cut: the body's dim and
/// the number of iterations, `(|end - start| + 1) / part_size` (floor) with
/// negative `start`/`end` counted from the end of the axis.
fn slice_count(ctx: &mut ShapesContext, len: Dim, e: &PortEntry) -> Result<(Dim, Dim), OpError> {
    if e.part_size < 1 {
        return Err(OpError::BadAttribute {
            name: "port_map",
            value: AttrValue::Int(e.part_size),
            why: Box::new(AttrProblem::Fixed("part_size must be at least 1")),
        });
    }
    let at = |ctx: &mut ShapesContext, v: i64| {
        let c = ctx.alg.constant(v);
        if v < 0 {
            ctx.alg.add_dims(len, c)
        } else {
            c
        }
    };
    let (start, end) = (at(ctx, e.start), at(ctx, e.end));
    let span = if e.stride < 0 {
        ctx.alg.sub(start, end)
    } else {
        ctx.alg.sub(end, start)
    };
    let one = ctx.alg.constant(1);
    let span = ctx.alg.add_dims(span, one);
    let part = ctx.alg.constant(e.part_size);
    Ok((part, ctx.alg.floordiv(span, part)))
}

/// The shared part of OpenVINO Loop and TensorIterator: the body's inputs (sliced
/// and carried ones included), the loop kernel for the carried values, and the
/// outputs.
/// `trip` is the Loop's trip count when it runs to it as long as the body's
/// condition output `cond_out` is true (the count is `trip` when that output is
/// provably true); a sliced input gives the count otherwise.
fn ov_iterate(
    ctx: &mut ShapesContext,
    node: &Node,
    first_input: usize,
    trip: Option<Dim>,
    cond_out: Option<usize>,
) -> Result<Vec<TensorFact>, OpError> {
    let body = graph_attr(node, "body")?;
    let map = port_map(node, "port_map")?;
    let back = back_edges(node);
    let mut sliced_count = None;
    let mut init = Vec::with_capacity(body.inputs.len());
    for j in 0..body.inputs.len() {
        let e = map.iter().find(|e| e.input && e.internal == Some(j));
        let fact = match (e, e.and_then(|e| e.external)) {
            (Some(e), Some(x)) if x >= first_input => {
                let f = ctx.input(node, x, "body input")?;
                match (e.axis, &f.shape) {
                    (Some(axis), Some(s)) => {
                        let axis = norm_axis(axis, s.len())?;
                        let (part, n) = slice_count(ctx, s[axis], e)?;
                        sliced_count.get_or_insert(n);
                        let mut s = s.clone();
                        s[axis] = part;
                        TensorFact::new(f.dtype, s)
                    }
                    (Some(_), None) => TensorFact::unknown(f.dtype),
                    (None, _) => f,
                }
            }
            _ => declared_input(ctx, node, body, j),
        };
        init.push(fact);
    }
    // Carried values keep only the dims the body provably keeps, and no contents;
    // the other inputs are the same in every iteration.
    let mut start = init.clone();
    for &(_, to) in &back {
        if let Some(f) = start.get_mut(to) {
            f.value = None;
        }
    }
    let limit = pass_limit(back.iter().filter_map(|&(_, to)| start.get(to)));
    let step = |state: &[TensorFact]| -> Result<_, OpError> {
        let outs = subgraph(ctx, body, state, "body")?;
        let mut next = state.to_vec();
        for &(from, to) in &back {
            if let (Some(b), Some(s)) = (outs.get(from), state.get(to)) {
                next[to] = carried(ctx, node, to, s, b);
            }
        }
        Ok((outs, next))
    };
    let Fixpoint {
        state,
        outs,
        converged,
    } = carried_fixpoint(start, limit, step)?;
    if !converged {
        unsettled(ctx, node, limit);
        let dtype = |i: usize| {
            let internal = map.iter().find(|e| !e.input && e.external == Some(i));
            internal
                .and_then(|e| e.internal)
                .and_then(|k| outs.get(k))
                .map_or(DType::Undefined, |b| b.dtype)
        };
        return Ok((0..node.outputs.len())
            .map(|i| TensorFact::unknown(dtype(i)))
            .collect());
    }
    let runs_to_trip = match cond_out.and_then(|k| outs.get(k)) {
        Some(c) => scalar_int(&ctx.alg, c).is_some_and(|v| v != 0),
        None => true,
    };
    let count = match (trip.filter(|_| runs_to_trip), sliced_count) {
        (Some(n), _) | (None, Some(n)) => n,
        (None, None) => {
            let kind = SymbolKind::DataDependent {
                node: node.name.clone(),
            };
            ctx.fresh_dim(node, 0, usize::MAX, "iter", kind)
        }
    };
    let mut result = Vec::with_capacity(node.outputs.len());
    for i in 0..node.outputs.len() {
        let Some(e) = map.iter().find(|e| !e.input && e.external == Some(i)) else {
            result.push(TensorFact::unknown(DType::Undefined));
            continue;
        };
        let Some(b) = e.internal.and_then(|k| outs.get(k)) else {
            result.push(TensorFact::unknown(DType::Undefined));
            continue;
        };
        let fact = match (e.axis, &b.shape) {
            (Some(axis), Some(s)) => {
                let axis = norm_axis(axis, s.len())?;
                let mut s = s.clone();
                s[axis] = ctx.alg.mul(count, s[axis]);
                TensorFact::new(b.dtype, s)
            }
            (Some(_), None) => TensorFact::unknown(b.dtype),
            (None, _) => {
                // the last iteration's value; a carried one may also be the initial
                // value (no iteration) when the count may be 0
                match back.iter().find(|(from, _)| Some(*from) == e.internal) {
                    Some(&(_, to)) => state.get(to).cloned().unwrap_or_else(|| b.clone()),
                    None => TensorFact {
                        value: None,
                        ..b.clone()
                    },
                }
            }
        };
        result.push(fact);
    }
    Ok(result)
}

/// OpenVINO Loop-5.
fn ov_loop(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let trip = ctx.input(node, 0, "trip_count")?;
    let exec = ctx.input(node, 1, "execution_condition")?;
    let map = port_map(node, "port_map")?;
    let cond_out = map
        .iter()
        .find(|e| !e.input && e.purpose == 2)
        .and_then(|e| e.internal);
    let trip = match (scalar_int(&ctx.alg, &trip), scalar_int(&ctx.alg, &exec)) {
        (_, Some(0)) => {
            let zero = ctx.alg.constant(0);
            return ov_iterate(ctx, node, 2, Some(zero), None);
        }
        (Some(t), Some(_)) if t >= 0 => Some(ctx.alg.constant(t)),
        _ => None,
    };
    ov_iterate(ctx, node, 2, trip, cond_out)
}

/// OpenVINO TensorIterator-1.
fn ov_tensor_iterator(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    ov_iterate(ctx, node, 0, None, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loop_kernel_stops_when_the_state_stays_or_at_the_limit() {
        // a state that loses one fact per pass until none is left: settles after
        // as many passes as it had facts, plus one that sees nothing change
        let mut calls = 0;
        let step = |s: &[u32]| -> Result<(u32, Vec<u32>), OpError> {
            calls += 1;
            Ok((s[0], vec![s[0].saturating_sub(1)]))
        };
        let f = carried_fixpoint(vec![3], 10, step).unwrap();
        assert_eq!((f.state, f.outs, f.converged, calls), (vec![0], 0, true, 4));
        // one pass short of that: not settled, and the state says so
        let mut calls = 0;
        let step = |s: &[u32]| -> Result<(u32, Vec<u32>), OpError> {
            calls += 1;
            Ok((s[0], vec![s[0].saturating_sub(1)]))
        };
        let f = carried_fixpoint(vec![3], 3, step).unwrap();
        assert_eq!((f.converged, calls), (false, 3));
    }

    #[test]
    fn the_pass_limit_counts_dims_and_values() {
        let mut alg = crate::algebra::Algebra::default();
        let one = alg.constant(1);
        let f = |rank: Option<usize>| match rank {
            Some(r) => TensorFact::new(DType::Float, vec![one; r]),
            None => TensorFact::unknown(DType::Float),
        };
        let facts = [f(Some(3)), f(None), f(Some(0))];
        assert_eq!(pass_limit(facts.iter()), 1 + (2 + 3) + 2 + 2);
        let many = vec![f(Some(8)); 100];
        assert_eq!(pass_limit(many.iter()), MAX_LOOP_PASSES);
    }
}
