//! Reductions: ONNX `Reduce*` and `ArgMax`/`ArgMin`, OpenVINO `Reduce*` and
//! `SegmentMax`, oneDNN `Reduce*`.
//!
//! Specs: the ONNX operator reference (opsets 1 to 25); the OpenVINO operation
//! specifications (`ReduceMean-1` and its siblings); oneDNN Graph's `Reduce*`
//! documents. A reduction removes the reduced axes or keeps them as 1
//! ([`reduce_shape`]): ONNX `keepdims` (default 1), OpenVINO and oneDNN
//! `keep_dims` (default false). Negative axes count from the end; an axis out of
//! range or repeated is an error.
//!
//! Which axes an empty list reduces differs: ONNX reduces every axis, unless
//! `noop_with_empty_axes = 1` (only in the versions where `axes` is an input),
//! which makes the op an identity; OpenVINO reduces none (the op is an identity
//! in shape). oneDNN needs its `axes` attribute.
//!
//! Values ([`reduce_values`]): `ReduceSum`, `ReduceProd`, `ReduceMax` and
//! `ReduceMin` of a tensor with a known value give the sum, product, max or min
//! through the algebra, so `ReduceProd(Shape(x))` is the element count of `x`
//! (ONNX and OpenVINO; ONNX also rejects an integer constant that overflows the
//! type). Over a tensor whose every element is one fill value ([`TensorFact::fill`],
//! `ConstantOfShape` over a symbolic shape), the ONNX reductions that give one exact
//! value keep it as the output's fill (`reduce_fill`): `ReduceSum` of integer
//! ones over `[B, S]` along axis 1 is `S` in every element. An `axes` input with no known value gives data-dependent dims
//! ([`unknown_axes_shape`]: with kept dims the rank is kept and an axis that is
//! provably 1 stays 1; without, a known count of axes gives the rank).
//!
//! The output type is the input's, bool for OpenVINO `ReduceLogicalAnd`/`Or`,
//! int64 for ArgMax/ArgMin, oneDNN's `dst_dtype` when the converter records it.
//!
//! Version history (ONNX, where `axes` moved from an attribute to an input):
//! - **ReduceSum**: 1 (`axes` attribute); 11 negative axes; 13 `axes` is optional
//!   input 1, `noop_with_empty_axes`; 21 more types.
//! - **ReduceMean, ReduceProd, ReduceL1, ReduceL2, ReduceLogSum,
//!   ReduceLogSumExp, ReduceSumSquare**: 1; 11 negative axes; 13 bf16; 18 `axes`
//!   is optional input 1, `noop_with_empty_axes`.
//! - **ReduceMax, ReduceMin**: 1; 11 negative axes; 12 int8/uint8; 13 bf16; 18
//!   `axes` input, `noop_with_empty_axes`; 20 bool.
//! - **ArgMax, ArgMin**: 1 (`axis`, `keepdims`); 11 negative axis; 12
//!   `select_last_index`; 13 bf16. The output is int64.
//!
//! OpenVINO: `ReduceMean`, `ReduceSum`, `ReduceMax`, `ReduceMin`, `ReduceProd`,
//! `ReduceLogicalAnd`, `ReduceLogicalOr` (opset1) and `ReduceL1`, `ReduceL2`
//! (opset4): axes input 1, `keep_dims`; one version each. `SegmentMax-16` reduces
//! the rows of `data [N, ...]` by segment (`segment_ids [N]`): `[num_segments,
//! ...]`, `num_segments` the optional input 2 (its value), else data-dependent.
//!
//! oneDNN: `ReduceL1`, `ReduceL2`, `ReduceMax`, `ReduceMean`, `ReduceMin`,
//! `ReduceProd`, `ReduceSum`: `axes` and `keep_dims` attributes.
//!
//! Cost: one FLOP per input element, two where each element is mapped first
//! ([`COSTS`]).

use crate::algebra::{Dim, Rat, Truth};
use crate::context::DimRole;
use crate::context::{Expected, OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};
use crate::ops::common::attrs::{attr_int, attr_ints};
use crate::ops::common::attrs::{dst_dtype, ov_bool};
use crate::ops::common::dims::shaped;
use crate::ops::common::values::{attr_axes, norm_axes};
use crate::ops::common::values::{
    check_int_range, fact_with_value, ints_input, numel, small_const_shape, small_value, IntsArg,
};
use crate::ops::common::{check_inputs, norm_axis};
use crate::ops::cost::{per_input_element, Costs, OpCost};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", [
        "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
        "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare",
    ], reduce),
    ("", ["ArgMax", "ArgMin"], arg_reduce),
    ("openvino", [
        "ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
        "ReduceL2", "ReduceLogicalAnd", "ReduceLogicalOr",
    ], openvino_reduce),
    ("onednn", [
        "ReduceL1", "ReduceL2", "ReduceMax", "ReduceMean", "ReduceMin", "ReduceProd",
        "ReduceSum",
    ], onednn_reduce),
    ("openvino", ["SegmentMax"], ov_segment_max),
];

/// What a reduction computes ([`crate::ops::cost`]): 0 MACs; one FLOP per input
/// element (each element is read and combined once), two for the reductions that
/// map each element first (`ReduceL2`, `ReduceSumSquare`, `ReduceLogSumExp`,
/// `ReduceL1`). `ArgMax`/`ArgMin` compare each element once.
pub const COSTS: &[Costs] = &[Costs {
    rules: RULES,
    all: Some(reduce_cost),
    by_op: rules![(
        "",
        ["ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSumExp"],
        mapped_reduce_cost
    )],
}];

/// One FLOP per input element.
fn reduce_cost(alg: &mut crate::algebra::Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    per_input_element(alg, ctx, node, 1)
}

/// Two FLOPs per input element (a map, then the reduction).
fn mapped_reduce_cost(
    alg: &mut crate::algebra::Algebra,
    ctx: &ShapesContext,
    node: &Node,
) -> OpCost {
    per_input_element(alg, ctx, node, 2)
}

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
            let out = unknown_axes_shape(ctx, node, &dims, keepdims, len);
            return Ok(vec![shaped(x.dtype, out)]);
        }
    };
    if axes.is_empty() && noop {
        return Ok(vec![x]);
    }
    let reduced: Vec<usize> = if axes.is_empty() {
        (0..r).collect()
    } else {
        attr_axes(&axes, r)?
    };
    let out = reduce_shape(ctx, &dims, &reduced, keepdims);
    let value = reduce_values(ctx, op, &x, &reduced);
    if let Some(v) = &value {
        check_int_range(&ctx.alg, x.dtype, v, &node.op_type)?;
    }
    let fill = match value {
        None => reduce_fill(ctx, op, &x, &dims, &reduced),
        Some(_) => None,
    };
    let value = match (&fill, small_const_shape(&ctx.alg, &out)) {
        (Some(f), Some(shape)) => Some(vec![*f; numel(&shape)]),
        _ => value,
    };
    let mut fact = fact_with_value(x.dtype, out, value);
    if fact.value.is_none() {
        fact.fill = fill;
    }
    Ok(vec![fact])
}

/// The one value every output element of an ONNX reduction `op` holds when every
/// element of `x` is its fill `v` ([`TensorFact::fill`]), over the reduced axes
/// `reduced` of `dims` (`n` elements per output element, `n = ∏ reduced dims`):
/// `ReduceMax`/`ReduceMin` give `v` and integer `ReduceMean` gives `v`, where
/// `n >= 1` is proven (a reduction of nothing has no maximum); integer
/// `ReduceSum` gives `n*v` (0 for `n = 0`, as the spec's empty sum); `ReduceProd`
/// gives 1 for `v = 1`, and 0 for `v = 0` where `n >= 1`. A float sum or mean is
/// not exact in general, and a product of another `v` is `v^n`, which the algebra
/// does not write: `None` for those and the other reductions.
fn reduce_fill(
    ctx: &mut ShapesContext,
    op: &str,
    x: &TensorFact,
    dims: &[Dim],
    reduced: &[usize],
) -> Option<Dim> {
    let v = x.fill?;
    let axes: Vec<Dim> = reduced.iter().map(|&a| dims[a]).collect();
    let n = ctx.alg.product(&axes);
    let nonempty = ctx.alg.bounds(n).lo().is_some_and(|lo| *lo >= Rat::one());
    let integer = x.dtype.is_integer();
    let k = ctx.alg.as_const(v);
    match op {
        "ReduceMax" | "ReduceMin" if nonempty => Some(v),
        "ReduceMean" if nonempty && integer => Some(v),
        "ReduceSum" if integer => Some(ctx.alg.mul(n, v)),
        "ReduceProd" if k == Some(Rat::one()) => Some(v),
        "ReduceProd" if nonempty && k == Some(Rat::zero()) => Some(v),
        _ => None,
    }
}

/// The dims of a reduction of `shape` over `axes` (normalised): each reduced axis
/// becomes 1 with `keep`, or is removed.
pub fn reduce_shape(
    ctx: &mut ShapesContext,
    shape: &[Dim],
    axes: &[usize],
    keep: bool,
) -> Vec<Dim> {
    let one = ctx.alg.constant(1);
    shape
        .iter()
        .enumerate()
        .filter_map(|(i, d)| match (axes.contains(&i), keep) {
            (false, _) => Some(*d),
            (true, true) => Some(one),
            (true, false) => None,
        })
        .collect()
}

/// The dims of a reduction of `shape` whose axes are not known: with `keep`, the
/// rank stays, an axis provably 1 stays 1 and the others are fresh dims; without,
/// `count` known axes leave that many fewer fresh dims. `None` when the rank is
/// not known.
pub fn unknown_axes_shape(
    ctx: &mut ShapesContext,
    node: &Node,
    shape: &[Dim],
    keep: bool,
    count: Option<usize>,
) -> Option<Vec<Dim>> {
    let r = shape.len();
    if keep {
        let mut out = Vec::with_capacity(r);
        for (axis, d) in shape.iter().enumerate() {
            let one = ctx.alg.constant(1);
            out.push(if ctx.alg.equal(*d, one) == Truth::True {
                *d
            } else {
                ctx.unknown_dim(node, 0, axis)
            });
        }
        return Some(out);
    }
    match count {
        Some(k) if k <= r => Some((0..r - k).map(|a| ctx.unknown_dim(node, 0, a)).collect()),
        _ => None,
    }
}

/// The value of `ReduceSum`, `ReduceProd`, `ReduceMax` or `ReduceMin` (`op`) of a
/// tensor `x` with a known value over `reduced` (normalised axes): the elements
/// of each output position folded through the algebra. `None` for the other
/// reductions and when `x` has no small known value.
pub fn reduce_values(
    ctx: &mut ShapesContext,
    op: &str,
    x: &TensorFact,
    reduced: &[usize],
) -> Option<Vec<Dim>> {
    if !matches!(op, "ReduceSum" | "ReduceProd" | "ReduceMax" | "ReduceMin") {
        return None;
    }
    let (shape, v) = small_value(&ctx.alg, x)?;
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

/// OpenVINO Reduce*: axes input 1, `keep_dims`; empty axes reduce nothing.
fn openvino_reduce(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "data")?;
    ctx.input(node, 1, "axes")?;
    let keep = ov_bool(node, "keep_dims", false)?;
    let op = node.op_type.as_str();
    let dtype = if matches!(op, "ReduceLogicalAnd" | "ReduceLogicalOr") {
        DType::Bool
    } else {
        x.dtype
    };
    let Some(shape) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    let axes = match ints_input(ctx, node, 1)? {
        IntsArg::Known(v) => norm_axes(&v, shape.len())?,
        IntsArg::Unknown(count) => {
            let out = unknown_axes_shape(ctx, node, &shape, keep, count);
            return Ok(vec![shaped(dtype, out)]);
        }
        IntsArg::Absent => return Ok(vec![TensorFact::unknown(dtype)]),
    };
    let out = reduce_shape(ctx, &shape, &axes, keep);
    let value = reduce_values(ctx, op, &x, &axes);
    Ok(vec![fact_with_value(dtype, out, value)])
}

/// oneDNN Reduce*: `axes` and `keep_dims` attributes.
fn onednn_reduce(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let x = ctx.input(node, 0, "src")?;
    let dtype = dst_dtype(node, x.dtype)?;
    let (Some(shape), Some(axes)) = (&x.shape, attr_ints(node, "axes")?) else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    let axes = norm_axes(axes, shape.len())?;
    let keep = attr_int(node, "keep_dims", 0)? != 0;
    let out = reduce_shape(ctx, shape, &axes, keep);
    Ok(vec![TensorFact::new(dtype, out)])
}

/// OpenVINO `SegmentMax-16`.
fn ov_segment_max(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 3)?;
    let x = ctx.input(node, 0, "data")?;
    let ids = ctx.input(node, 1, "segment_ids")?;
    let Some(xs) = &x.shape else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    if xs.is_empty() {
        return Err(crate::ops::common::dims::rank_of(
            "data",
            Expected::AtLeast(1),
            0,
        ));
    }
    if let Some(is) = &ids.shape {
        crate::ops::common::dims::expect_rank("segment_ids", is, 1)?;
        crate::ops::common::dims::merge_dim_as(
            ctx,
            node,
            DimRole::of("rows", ("data", "segment_ids")),
            xs[0],
            is[0],
        )?;
    }
    let n = match node.input(2) {
        Some(_) => match ctx.input(node, 2, "num_segments")?.value.as_deref() {
            Some([v]) => *v,
            _ => ctx.unknown_dim(node, 0, 0),
        },
        None => ctx.unknown_dim(node, 0, 0),
    };
    let mut out = xs.clone();
    out[0] = n;
    Ok(vec![TensorFact::new(x.dtype, out)])
}
