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
//!   (`run_order` in [`mod@crate::infer`]): when only one branch leaves the rest of the
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
//! - **Scan** (8 with a batch axis; 9 without it, with `scan_input_axes`,
//!   `scan_output_axes`, directions; 11, 16, 19, 21, 23 types): states are like Loop's
//!   carried values; a scan output stacks the body's per-iteration output along
//!   `scan_output_axes` (default 0) with the sequence length of the first scan input.
//! - **End** (oneDNN Graph's `End` document): marks a tensor as a graph output; it
//!   has no outputs.

use super::{attr_int, attr_ints, norm_axis, RuleEntry};
use crate::algebra::{Dim, SymbolKind, Truth};
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::{Attr, DType, Graph, Node};

/// The control-flow rules.
pub const RULES: &[RuleEntry] = &[
    ("", "If", if_rule),
    ("", "Loop", loop_rule),
    ("", "Scan", scan_rule),
    ("onednn", "End", end),
];

/// oneDNN End: a graph output marker with no outputs.
fn end(_: &mut ShapesContext, _: &Node) -> Result<Vec<TensorFact>, OpError> {
    Ok(Vec::new())
}

fn graph_attr<'n>(node: &'n Node, name: &'static str) -> Result<&'n Graph, OpError> {
    match node.attr(name) {
        Some(Attr::Graph(g)) => Ok(g),
        Some(other) => Err(OpError::BadAttribute {
            name,
            value: other.to_string(),
            why: format!("expected a graph, found {}", other.kind()),
        }),
        None => Err(OpError::MissingAttribute { name }),
    }
}

fn subgraph(
    ctx: &mut ShapesContext,
    g: &Graph,
    inputs: &[TensorFact],
    name: &'static str,
) -> Result<Vec<TensorFact>, OpError> {
    ctx.run_subgraph(g, inputs).ok_or(OpError::BadAttribute {
        name,
        value: format!("<graph {}>", g.name),
        why: format!(
            "subgraphs nest deeper than {}",
            crate::context::MAX_SUBGRAPH_DEPTH
        ),
    })
}

/// Merge two facts of one output: agreed dims stay, others become fresh dims of
/// `node` (output `out`).
fn merge(
    ctx: &mut ShapesContext,
    node: &Node,
    out: usize,
    a: &TensorFact,
    b: &TensorFact,
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
            ctx.rank_conflict = true;
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
    let known = cond
        .value
        .as_ref()
        .and_then(|v| v.first())
        .and_then(|d| ctx.alg.as_i64(*d));
    // A decided condition: only the branch that runs is inferred (the other may
    // hold ops that are invalid exactly when it does not run).
    match known {
        Some(0) => return subgraph(ctx, else_g, &[], "else_branch"),
        Some(_) => return subgraph(ctx, then_g, &[], "then_branch"),
        None => {}
    }
    // Undecided: each branch's equalities hold only when it runs, recorded under this
    // node's name (inner nodes name themselves).
    let outer = ctx.alg.set_site(&node.name);
    ctx.alg.speculate(true);
    let then_out = subgraph(ctx, then_g, &[], "then_branch");
    let else_out = subgraph(ctx, else_g, &[], "else_branch");
    ctx.alg.speculate(false);
    ctx.alg.set_site(&outer);
    let (then_out, else_out) = (then_out?, else_out?);
    if then_out.len() != else_out.len() || then_out.len() < node.outputs.len() {
        return Err(OpError::BadAttribute {
            name: "else_branch",
            value: format!("<graph {}>", else_g.name),
            why: format!(
                "the branches have {} and {} outputs; the node has {}",
                then_out.len(),
                else_out.len(),
                node.outputs.len()
            ),
        });
    }
    Ok(then_out
        .iter()
        .zip(&else_out)
        .enumerate()
        .map(|(i, (a, b))| merge(ctx, node, i, a, b))
        .collect())
}

/// A loop-carried value: the dims the body provably keeps, fresh dims elsewhere.
fn carried(
    ctx: &mut ShapesContext,
    node: &Node,
    out: usize,
    init: &TensorFact,
    body: &TensorFact,
) -> TensorFact {
    let mut f = merge(ctx, node, out, init, body);
    f.value = None;
    f
}

/// True when a boolean scalar (or one-element tensor) is known to be true.
fn is_true(ctx: &ShapesContext, f: &TensorFact) -> bool {
    match f.value.as_deref() {
        Some([v]) => ctx.alg.as_i64(*v).is_some_and(|x| x != 0),
        _ => false,
    }
}

fn loop_rule(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let body = graph_attr(node, "body")?;
    let trip = ctx.optional_input(node, 0)?;
    let has_cond = node.input(1).is_some();
    let n_carried = node.inputs.len().saturating_sub(2);
    let mut init = Vec::with_capacity(n_carried);
    for i in 0..n_carried {
        init.push(ctx.input(node, i + 2, "v_initial")?);
    }
    let i64_scalar = TensorFact::new(DType::Int64, vec![]);
    let mut bool_scalar = TensorFact::new(DType::Bool, vec![]);
    if has_cond {
        // With a condition, an iteration runs only while it is true: inside the
        // body the condition input is always true.
        bool_scalar.value = Some(vec![ctx.alg.constant(1)]);
    }
    let mut inputs = vec![i64_scalar, bool_scalar];
    // The body sees carried values with their loop-invariant dims only: first infer
    // with the initial facts, then again with the dims that survived.
    let mut state: Vec<TensorFact> = init
        .iter()
        .map(|f| TensorFact {
            value: None,
            ..f.clone()
        })
        .collect();
    let mut outs = Vec::new();
    for _pass in 0..2 {
        inputs.truncate(2);
        inputs.extend(state.iter().cloned());
        outs = subgraph(ctx, body, &inputs, "body")?;
        let next: Vec<TensorFact> = (0..n_carried)
            .map(|i| match outs.get(i + 1) {
                Some(b) => carried(ctx, node, i, &init[i], b),
                None => TensorFact::unknown(init[i].dtype),
            })
            .collect();
        if next == state {
            break;
        }
        state = next;
    }
    let mut result = state;
    // The loop runs `M` times when it has no condition, or when the condition is
    // true on entry and the body provably returns true (a constant, or the
    // condition input passed through).
    let runs_all = !has_cond || {
        let cond = ctx.input(node, 1, "cond")?;
        let body_cond = outs.first().cloned();
        is_true(ctx, &cond) && body_cond.is_some_and(|c| is_true(ctx, &c))
    };
    let trip_dim = match &trip {
        Some(t) if runs_all => t.value.as_ref().and_then(|v| v.first().copied()),
        _ => None,
    };
    for (k, scan) in outs.iter().skip(1 + n_carried).enumerate() {
        let out = n_carried + k;
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
            .shape
            .as_ref()
            .map(|s| std::iter::once(len).chain(s.iter().copied()).collect());
        result.push(TensorFact {
            dtype: scan.dtype,
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
            expected: format!("at least {n_scan_in} scan inputs"),
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
    let mut body_inputs: Vec<TensorFact> = states
        .iter()
        .map(|f| TensorFact {
            value: None,
            ..f.clone()
        })
        .collect();
    let mut seq_len: Option<Dim> = None;
    for j in 0..n_scan_in {
        let x = ctx.input(node, first + n_state + j, "scan_input")?;
        let Some(mut shape) = x.shape.clone() else {
            body_inputs.push(TensorFact::unknown(x.dtype));
            continue;
        };
        if batched {
            if shape.len() < 2 {
                return Err(OpError::Rank {
                    what: "scan input".into(),
                    expected: "at least 2 (batch, sequence)".into(),
                    found: shape.len(),
                });
            }
            let len = shape.remove(1);
            seq_len.get_or_insert(len);
        } else {
            let axis = norm_axis(in_axes.get(j).copied().unwrap_or(0), shape.len())?;
            let len = shape.remove(axis);
            seq_len.get_or_insert(len);
        }
        body_inputs.push(TensorFact::new(x.dtype, shape));
    }
    let outs = subgraph(ctx, body, &body_inputs, "body")?;
    let mut result = Vec::new();
    for (i, state) in states.iter().enumerate() {
        let b = outs
            .get(i)
            .cloned()
            .unwrap_or_else(|| TensorFact::unknown(state.dtype));
        result.push(carried(ctx, node, i, state, &b));
    }
    let out_axes = attr_ints(node, "scan_output_axes")?.map(<[i64]>::to_vec);
    for (k, o) in outs.iter().skip(n_state).enumerate() {
        let out = n_state + k;
        let len = match seq_len {
            Some(d) => d,
            None => ctx.unknown_dim(node, out, 0),
        };
        let shape = o.shape.as_ref().map(|s| -> Result<Vec<Dim>, OpError> {
            let mut v = s.clone();
            if batched {
                v.insert(1.min(v.len()), len);
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
