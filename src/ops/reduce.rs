//! Reductions: `Reduce*` and `ArgMax`/`ArgMin`.
//!
//! Spec: the ONNX operator reference (opsets 1 to 25). A reduction removes the
//! reduced axes (`keepdims = 0`) or keeps them as 1 (`keepdims = 1`, the default).
//! No axes means every axis, unless `noop_with_empty_axes = 1` (only in the
//! versions where `axes` is an input), which makes the op an identity.
//!
//! Values: `ReduceSum`, `ReduceProd`, `ReduceMax` and `ReduceMin` of a tensor with
//! a known value give the sum, product, max or min through the algebra, so
//! `ReduceProd(Shape(x))` is the element count of `x`. An `axes` input with no
//! known value gives data-dependent dims (`keepdims = 1`: the rank is kept; an
//! axis that is provably 1 stays 1).
//!
//! Version history (where `axes` moved from an attribute to an input):
//! - **ReduceSum**: 1 (`axes` attribute); 11 negative axes; 13 `axes` is optional
//!   input 1, `noop_with_empty_axes`; 21 more types.
//! - **ReduceMean, ReduceProd, ReduceL1, ReduceL2, ReduceLogSum,
//!   ReduceLogSumExp, ReduceSumSquare**: 1; 11 negative axes; 13 bf16; 18 `axes`
//!   is optional input 1, `noop_with_empty_axes`.
//! - **ReduceMax, ReduceMin**: 1; 11 negative axes; 12 int8/uint8; 13 bf16; 18
//!   `axes` input, `noop_with_empty_axes`; 20 bool.
//! - **ArgMax, ArgMin**: 1 (`axis`, `keepdims`); 11 negative axis; 12
//!   `select_last_index`; 13 bf16. The output is int64.

use super::values::{check_int_range, fact_with_value, ints_input, small_value, IntsArg};
use super::{attr_int, attr_ints, check_inputs, norm_axis, RuleEntry};
use crate::algebra::{Dim, Truth};
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};

/// The rules of this family.
pub const RULES: &[RuleEntry] = &[
    ("", "ReduceSum", reduce),
    ("", "ReduceMean", reduce),
    ("", "ReduceMax", reduce),
    ("", "ReduceMin", reduce),
    ("", "ReduceProd", reduce),
    ("", "ReduceL1", reduce),
    ("", "ReduceL2", reduce),
    ("", "ReduceLogSum", reduce),
    ("", "ReduceLogSumExp", reduce),
    ("", "ReduceSumSquare", reduce),
    ("", "ArgMax", arg_reduce),
    ("", "ArgMin", arg_reduce),
];

/// Whether `axes` is an input (rather than an attribute) for this op and version.
pub fn axes_is_input(op: &str, version: i64) -> bool {
    if op == "ReduceSum" {
        version >= 13
    } else {
        version >= 18
    }
}

fn reduce(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let op = node.op_type.as_str();
    let from_input = axes_is_input(op, node.version);
    check_inputs(node, 1, if from_input { 2 } else { 1 })?;
    let x = ctx.input(node, 0, "data")?;
    let keepdims = attr_int(node, "keepdims", 1)? != 0;
    let noop = from_input && attr_int(node, "noop_with_empty_axes", 0)? != 0;
    let axes = if from_input {
        ints_input(ctx, node, 1)?
    } else {
        match attr_ints(node, "axes")? {
            Some(v) => IntsArg::Known(v.to_vec()),
            None => IntsArg::Absent,
        }
    };
    let Some(dims) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let r = dims.len();
    let axes: Vec<i64> = match axes {
        IntsArg::Known(v) => v,
        IntsArg::Absent => Vec::new(),
        IntsArg::Unknown(Some(0)) => Vec::new(),
        IntsArg::Unknown(len) => {
            if keepdims {
                let mut out = Vec::with_capacity(r);
                for (axis, d) in dims.iter().enumerate() {
                    let one = ctx.alg.constant(1);
                    out.push(if ctx.alg.equal(*d, one) == Truth::True {
                        *d
                    } else {
                        ctx.unknown_dim(node, 0, axis)
                    });
                }
                return Ok(vec![TensorFact::new(x.dtype, out)]);
            }
            return Ok(vec![match len {
                Some(k) if k <= r => {
                    let out = (0..r - k).map(|a| ctx.unknown_dim(node, 0, a)).collect();
                    TensorFact::new(x.dtype, out)
                }
                _ => TensorFact::unknown(x.dtype),
            }]);
        }
    };
    if axes.is_empty() && noop {
        return Ok(vec![x]);
    }
    let reduced: Vec<usize> = if axes.is_empty() {
        (0..r).collect()
    } else {
        let norm: Vec<usize> = axes
            .iter()
            .map(|a| norm_axis(*a, r))
            .collect::<Result<_, _>>()?;
        let mut sorted = norm.clone();
        sorted.sort_unstable();
        if sorted.windows(2).any(|w| w[0] == w[1]) {
            return Err(OpError::BadAttribute {
                name: "axes",
                value: format!("{axes:?}"),
                why: "an axis is repeated".to_string(),
            });
        }
        norm
    };
    let one = ctx.alg.constant(1);
    let mut out = Vec::with_capacity(r);
    for (axis, d) in dims.iter().enumerate() {
        if reduced.contains(&axis) {
            if keepdims {
                out.push(one);
            }
        } else {
            out.push(*d);
        }
    }
    let value = match op {
        "ReduceSum" | "ReduceProd" | "ReduceMax" | "ReduceMin" => small_value(&ctx.alg, &x)
            .and_then(|(shape, v)| reduce_values(ctx, op, &shape, &v, &reduced)),
        _ => None,
    };
    if let Some(v) = &value {
        check_int_range(&ctx.alg, x.dtype, v, &node.op_type)?;
    }
    Ok(vec![fact_with_value(x.dtype, out, value)])
}

/// Fold the elements of each output position through the algebra.
fn reduce_values(
    ctx: &mut ShapesContext,
    op: &str,
    shape: &[usize],
    v: &[Dim],
    reduced: &[usize],
) -> Option<Vec<Dim>> {
    let kept: Vec<usize> = (0..shape.len()).filter(|a| !reduced.contains(a)).collect();
    let n_out: usize = kept.iter().map(|&a| shape[a]).product();
    let mut groups: Vec<Vec<Dim>> = vec![Vec::new(); n_out];
    for (flat, e) in v.iter().enumerate() {
        let mut rem = flat;
        let mut coords = vec![0usize; shape.len()];
        for axis in (0..shape.len()).rev() {
            coords[axis] = rem % shape[axis].max(1);
            rem /= shape[axis].max(1);
        }
        let mut o = 0usize;
        for &a in &kept {
            o = o * shape[a] + coords[a];
        }
        groups[o].push(*e);
    }
    groups
        .into_iter()
        .map(|g| match op {
            "ReduceSum" => Some(ctx.alg.sum(&g)),
            "ReduceProd" => Some(ctx.alg.product(&g)),
            _ => {
                // max/min of no element is not defined
                let (first, rest) = g.split_first()?;
                let mut acc = *first;
                for e in rest {
                    acc = if op == "ReduceMax" {
                        ctx.alg.max(acc, *e)
                    } else {
                        ctx.alg.min(acc, *e)
                    };
                }
                Some(acc)
            }
        })
        .collect()
}

fn arg_reduce(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "data")?;
    let keepdims = attr_int(node, "keepdims", 1)? != 0;
    let axis = attr_int(node, "axis", 0)?;
    let Some(dims) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(DType::Int64)]);
    };
    if axis < 0 && node.version < 11 {
        return Err(OpError::AxisOutOfRange {
            axis,
            rank: dims.len(),
        });
    }
    let axis = norm_axis(axis, dims.len())?;
    let mut out = dims.clone();
    if keepdims {
        out[axis] = ctx.alg.constant(1);
    } else {
        out.remove(axis);
    }
    Ok(vec![TensorFact::new(DType::Int64, out)])
}
