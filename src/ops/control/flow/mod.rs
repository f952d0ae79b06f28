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
//!
//! Each op is in its file: `branch.rs` (If), `loops.rs` (Loop), `scan.rs` (Scan),
//! `openvino.rs` (the OpenVINO ops); `merge.rs` merges what two runs say of one
//! value; this module holds the rule table and what they share (running a
//! subgraph, the loop kernel over carried values).

mod branch;
mod loops;
mod merge;
mod openvino;
mod scan;

use branch::if_rule;
use loops::loop_rule;
pub(crate) use loops::{mentions_body_symbol, node_names};
use merge::merge;
use openvino::{ov_if, ov_loop, ov_tensor_iterator};
use scan::scan_rule;

use crate::context::{Composite, OpError, ShapesContext, SubgraphValue, TensorFact};
use crate::graph::{Attr, Graph, Node};
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

/// How many times ONNX Loop or Scan `node` runs its body, as factors whose product
/// is the count, when inference proves it (for the cost of the body over the whole
/// loop); `body_cond` is the fact of a Loop body's condition output as its last run
/// left it. Loop: the trip count `M` when the loop has no condition, or when the
/// condition is true on entry and the body provably returns true (as `loop_rule`
/// decides it). Scan: the scanned length of the first scan input (opset 9+), or the
/// batch times the sequence length in opset 8 without `sequence_lens` (with it,
/// each batch element may run fewer times). `None` otherwise, and for OpenVINO's
/// loops.
pub fn iterations(
    ctx: &ShapesContext,
    node: &Node,
    body_cond: Option<&TensorFact>,
) -> Option<Vec<crate::algebra::Dim>> {
    if !crate::graph::canonical_domain(&node.domain).is_empty() {
        return None;
    }
    match &*node.op_type {
        "Loop" => loops::trip_count(ctx, node, body_cond)
            .filter(|d| ctx.alg.bounds(*d).is_nonneg())
            .map(|d| vec![d]),
        "Scan" => scan::scan_count(ctx, node),
        _ => None,
    }
}

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

/// A loop-carried value: the dims the body provably keeps, fresh dims elsewhere.
fn carried(
    ctx: &mut ShapesContext,
    node: &Node,
    out: usize,
    init: &TensorFact,
    body: &TensorFact,
) -> TensorFact {
    let mut f = merge(ctx, node, out, init, body, true);
    f.forget_contents();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::DType;

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
