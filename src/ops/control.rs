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

use super::{attr_int, attr_ints, norm_axis, RuleEntry};
use crate::algebra::{Dim, SymbolKind, Truth};
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::{Attr, ConstData, DType, DeclDim, Graph, Node};
use crate::graph::{PortMapColumn as Col, PORT_MAP_COLUMNS};

/// The control-flow rules.
pub const RULES: &[RuleEntry] = &[
    ("", "If", if_rule),
    ("", "Loop", loop_rule),
    ("", "Scan", scan_rule),
    ("onednn", "End", end),
    ("openvino", "If", ov_if),
    ("openvino", "Loop", ov_loop),
    ("openvino", "TensorIterator", ov_tensor_iterator),
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
    run_if(ctx, node, &cond, then_b, else_b, true)
}

/// One branch of an If: its graph, the facts of its inputs, and for each output of
/// the node the branch output it comes from.
struct Branch<'g> {
    graph: &'g Graph,
    inputs: Vec<TensorFact>,
    outputs: Vec<Option<usize>>,
    name: &'static str,
}

/// The outputs of an If node of condition `cond` (the ONNX and OpenVINO rules).
/// `same_outputs`: the branches must have the same number of outputs, at least the
/// node's (ONNX).
fn run_if(
    ctx: &mut ShapesContext,
    node: &Node,
    cond: &TensorFact,
    then_b: Branch<'_>,
    else_b: Branch<'_>,
    same_outputs: bool,
) -> Result<Vec<TensorFact>, OpError> {
    let known = cond
        .value
        .as_ref()
        .and_then(|v| v.first())
        .and_then(|d| ctx.alg.as_i64(*d));
    let pick = |b: &Branch<'_>, outs: &[TensorFact]| -> Result<Vec<TensorFact>, OpError> {
        b.outputs
            .iter()
            .map(|o| match o {
                Some(i) => outs.get(*i).cloned().ok_or_else(|| OpError::BadAttribute {
                    name: b.name,
                    value: format!("<graph {}>", b.graph.name),
                    why: format!(
                        "the branch has {} outputs; the node has {}",
                        outs.len(),
                        node.outputs.len()
                    ),
                }),
                None => Ok(TensorFact::unknown(DType::Undefined)),
            })
            .collect()
    };
    // A decided condition: only the branch that runs is inferred (the other may
    // hold ops that are invalid exactly when it does not run).
    match known {
        Some(0) => {
            let outs = subgraph(ctx, else_b.graph, &else_b.inputs, else_b.name)?;
            return pick(&else_b, &outs);
        }
        Some(_) => {
            let outs = subgraph(ctx, then_b.graph, &then_b.inputs, then_b.name)?;
            return pick(&then_b, &outs);
        }
        None => {}
    }
    // Undecided: each branch's equalities hold only when it runs, recorded under this
    // node's name (inner nodes name themselves).
    let outer = ctx.alg.set_site(&node.name);
    ctx.alg.speculate(true);
    let then_out = subgraph(ctx, then_b.graph, &then_b.inputs, then_b.name);
    let else_out = subgraph(ctx, else_b.graph, &else_b.inputs, else_b.name);
    ctx.alg.speculate(false);
    ctx.alg.set_site(&outer);
    let (then_out, else_out) = (then_out?, else_out?);
    if same_outputs && (then_out.len() != else_out.len() || then_out.len() < node.outputs.len()) {
        return Err(OpError::BadAttribute {
            name: "else_branch",
            value: format!("<graph {}>", else_b.graph.name),
            why: format!(
                "the branches have {} and {} outputs; the node has {}",
                then_out.len(),
                else_out.len(),
                node.outputs.len()
            ),
        });
    }
    let (a, b) = (pick(&then_b, &then_out)?, pick(&else_b, &else_out)?);
    Ok(a.iter()
        .zip(&b)
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

/// One converted port map entry (see `crate::openvino::to_graph`).
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
                    value: Attr::Tensor(t.clone()).to_string(),
                    why: "expected an integer port map".to_string(),
                })
            }
        },
        Some(other) => {
            return Err(OpError::BadAttribute {
                name,
                value: other.to_string(),
                why: format!("expected a port map, found {}", other.kind()),
            })
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
    run_if(ctx, node, &cond, then_b, else_b, false)
}

/// The value of a one-element tensor, when known.
fn scalar_value(ctx: &ShapesContext, f: &TensorFact) -> Option<i64> {
    match f.value.as_deref() {
        Some([v]) => ctx.alg.as_i64(*v),
        _ => None,
    }
}

/// How a sliced input of a TensorIterator (or Loop) is cut: the body's dim and
/// the number of iterations, `(|end - start| + 1) / part_size` (floor) with
/// negative `start`/`end` counted from the end of the axis.
fn slice_count(ctx: &mut ShapesContext, len: Dim, e: &PortEntry) -> Result<(Dim, Dim), OpError> {
    if e.part_size < 1 {
        return Err(OpError::BadAttribute {
            name: "port_map",
            value: e.part_size.to_string(),
            why: "part_size must be at least 1".to_string(),
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
/// and carried ones included), two passes for the carried values, and the outputs.
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
    let mut state = init.clone();
    for &(_, to) in &back {
        if let Some(f) = state.get_mut(to) {
            f.value = None;
        }
    }
    let mut outs = Vec::new();
    for _pass in 0..2 {
        outs = subgraph(ctx, body, &state, "body")?;
        let mut next = state.clone();
        for &(from, to) in &back {
            if let (Some(b), Some(i)) = (outs.get(from), init.get(to)) {
                next[to] = carried(ctx, node, to, i, b);
            }
        }
        if next == state {
            break;
        }
        state = next;
    }
    let runs_to_trip = match cond_out.and_then(|k| outs.get(k)) {
        Some(c) => scalar_value(ctx, c).is_some_and(|v| v != 0),
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
    let trip = match (scalar_value(ctx, &trip), scalar_value(ctx, &exec)) {
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
