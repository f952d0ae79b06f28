//! OpenVINO `If`, `Loop` and `TensorIterator`: their port maps and back edges read
//! into the ONNX kernels.

use super::branch::{run_if, Branch};
use super::{
    carried, carried_fixpoint, emit_values, graph_attr, pass_limit, subgraph, unsettled, Fixpoint,
};
use crate::algebra::{Dim, SymbolKind};
use crate::context::{AttrProblem, AttrValue};
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::{Attr, ConstData, DType, DeclDim, Graph, Node};
use crate::graph::{PortMapColumn as Col, PORT_MAP_COLUMNS};
use crate::ops::common::norm_axis;
use crate::ops::common::values::scalar_int;

/// One converted port map entry (see `crate::read::openvino::to_graph`).
#[derive(Clone, Copy, Debug)]
pub(super) struct PortEntry {
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
pub(super) fn port_map(node: &Node, name: &'static str) -> Result<Vec<PortEntry>, OpError> {
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
pub(super) fn back_edges(node: &Node) -> Vec<(usize, usize)> {
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
pub(super) fn declared_input(
    ctx: &mut ShapesContext,
    node: &Node,
    g: &Graph,
    j: usize,
) -> TensorFact {
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
pub(super) fn body_inputs(
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
pub(super) fn output_routes(node: &Node, map: &[PortEntry]) -> Vec<Option<usize>> {
    (0..node.outputs.len())
        .map(|i| {
            map.iter()
                .find(|e| !e.input && e.external == Some(i))
                .and_then(|e| e.internal)
        })
        .collect()
}

/// OpenVINO If-8.
pub(super) fn ov_if(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
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
pub(super) fn slice_count(
    ctx: &mut ShapesContext,
    len: Dim,
    e: &PortEntry,
) -> Result<(Dim, Dim), OpError> {
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
pub(super) fn ov_iterate(
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
            f.forget_contents();
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
                        fill: None,
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
pub(super) fn ov_loop(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
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
pub(super) fn ov_tensor_iterator(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    ov_iterate(ctx, node, 0, None, None)
}
