//! onnxruntime's tensor and sampling ops (domain `com.microsoft`): contrib
//! versions of ONNX ops, published before ONNX had them, and a few of their own.
//!
//! Spec: onnxruntime's `docs/ContribOperators.md`, checked against onnxruntime
//! 1.32 running each op on its CPU provider (`tests/it/ops/contrib.rs`).
//!
//! - **GridSample**, **Trilu**, **GatherND**, **Pad**, **Range**: the rules of the
//!   ONNX ops they became (GridSample-16: 4-D `X`, `grid = [N, H_out, W_out, 2]`
//!   give `[N, C, H_out, W_out]`; Trilu-14: `X`'s shape; GatherND-11; Pad-11 with
//!   `pads` an input; Range-11, whose contrib form has an optional `delta`,
//!   default 1).
//! - **ExpandDims**: Unsqueeze at the scalar `axis` input (in `[-r-1, r]`); an
//!   unknown axis gives rank `r + 1` with fresh dims.
//! - **Inverse**: the input's shape (`[..., M, M]`).
//! - **CDist**: `A = [N, K]`, `B = [M, K]` give `[N, M]`.
//! - **CropAndResize**: `X = [N, C, H, W]`, `rois = [R, 4]` and the contents
//!   `[h, w]` of `crop_size` give `[R, C, h, w]`.
//! - **Unique**: a 1-D `x` gives `y` and `counts` of one data-dependent length
//!   `U` (counts int64) and `idx` of `x`'s shape (int64).
//! - **UnfoldTensor**: the slices of length `size` every `step` (default 1) along
//!   `dim` (default -1): that axis becomes `floordiv(d - size, step) + 1` and an
//!   axis of length `size` is appended.
//! - **DynamicTimeWarping**: `[M, N]` or `[1, M, N]` gives `[2, O]` (int32), `O`
//!   data-dependent (`max(M, N) <= O < M + N`).
//!
//! Version history: every op here is at version 1 of `com.microsoft`, the only
//! version.

use crate::algebra::Dim;
use crate::context::DimRole;
use crate::context::ShapeValueProblem;
use crate::context::{Expected, OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};
use crate::ops::common::attrs::require_positive;
use crate::ops::common::attrs::{attr_int, attr_int_required};
use crate::ops::common::dims::{expect_rank, rank_of, shaped, unify_as};
use crate::ops::common::{check_inputs, fresh_dims, norm_axis};
use crate::ops::tensor::constant::range_dims;
use crate::ops::tensor::squeeze::unsqueeze_dims;
use crate::ops::{rules, RuleEntry};

use crate::ops::attention::contrib::MS;

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    (MS, ["GridSample", "Trilu", "GatherND", "Pad"], as_onnx),
    (MS, ["Range"], range),
    (MS, ["ExpandDims"], expand_dims),
    (MS, ["Inverse"], inverse),
    (MS, ["CDist"], cdist),
    (MS, ["CropAndResize"], crop_and_resize),
    (MS, ["Unique"], unique),
    (MS, ["DynamicTimeWarping"], dynamic_time_warping),
    (MS, ["UnfoldTensor"], unfold_tensor),
];

/// The ONNX version whose rule a contrib op of that name follows.
fn onnx_version(op: &str) -> i64 {
    match op {
        "GridSample" => 16,
        "Trilu" => 14,
        _ => 11,
    }
}

/// Run the rule of the ONNX op of the same name at the version the contrib op
/// matches.
fn as_onnx(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let rule = crate::ops::rule_for("", &node.op_type).ok_or(OpError::WrongOp {
        expected: "GridSample, Trilu, GatherND or Pad",
        found: node.op_type.to_string(),
    })?;
    let mut n = node.clone();
    n.domain = String::new();
    n.version = onnx_version(&node.op_type);
    rule(ctx, &n)
}

/// Range with an optional `delta` (default 1).
fn range(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 3)?;
    if node.input_count() == 3 {
        return as_onnx(ctx, node);
    }
    let start = ctx.input(node, 0, "start")?;
    let limit = ctx.input(node, 1, "limit")?;
    for (f, what) in [(&start, "start"), (&limit, "limit")] {
        if let Some(s) = &f.shape {
            if s.len() > 1 {
                return Err(rank_of(
                    what,
                    Expected::Exactly(0).noted("a scalar"),
                    s.len(),
                ));
            }
        }
    }
    let scalar = crate::ops::common::values::scalar_value;
    let (Some(s), Some(l)) = (scalar(&start), scalar(&limit)) else {
        let n = ctx.unknown_dim(node, 0, 0);
        return Ok(vec![TensorFact::new(start.dtype, vec![n])]);
    };
    let one = ctx.alg.constant(1);
    let (n, value) = range_dims(ctx, (s, l, one), "delta")?;
    Ok(vec![TensorFact {
        fill: None,
        dtype: start.dtype,
        shape: Some(vec![n]),
        value,
    }])
}

/// ExpandDims: Unsqueeze at the scalar `axis`.
fn expand_dims(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "X")?;
    let axis = ctx.input(node, 1, "axis")?;
    let Some(xs) = &x.shape else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let r = xs.len() as i64;
    let a = crate::ops::common::values::scalar_int(&ctx.alg, &axis);
    let Some(a) = a else {
        let d = fresh_dims(ctx, node, 0, xs.len() + 1);
        return Ok(vec![TensorFact::new(x.dtype, d)]);
    };
    if !(-r - 1..=r).contains(&a) {
        return Err(OpError::AxisOutOfRange {
            axis: a,
            rank: xs.len() + 1,
        });
    }
    let a = if a < 0 { a + r + 1 } else { a } as usize;
    let out = unsqueeze_dims(&mut ctx.alg, xs, &[a]);
    Ok(vec![TensorFact::new(x.dtype, out)])
}

/// Inverse: `[..., M, M]` keeps its shape.
fn inverse(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "X")?;
    if let Some(xs) = &x.shape {
        if xs.len() < 2 {
            return Err(rank_of("input X", Expected::AtLeast(2), xs.len()));
        }
        let r = xs.len();
        unify_as(
            ctx,
            node,
            "the last two dims (a square matrix)",
            xs[r - 2],
            xs[r - 1],
        )?;
    }
    Ok(vec![shaped(x.dtype, x.shape.clone())])
}

/// CDist: `[N, K]` and `[M, K]` give `[N, M]`.
fn cdist(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let a = ctx.input(node, 0, "A")?;
    let b = ctx.input(node, 1, "B")?;
    let (Some(sa), Some(sb)) = (&a.shape, &b.shape) else {
        return Ok(vec![TensorFact::unknown(a.dtype)]);
    };
    expect_rank("input A", sa, 2)?;
    expect_rank("input B", sb, 2)?;
    unify_as(
        ctx,
        node,
        DimRole::of("the feature dim K", ("A", "B")),
        sa[1],
        sb[1],
    )?;
    Ok(vec![TensorFact::new(a.dtype, vec![sa[0], sb[0]])])
}

/// CropAndResize: `[R, C, h, w]`.
fn crop_and_resize(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 4, 4)?;
    let x = ctx.input(node, 0, "X")?;
    let rois = ctx.input(node, 1, "rois")?;
    let crop = ctx.input(node, 3, "crop_size")?;
    let (Some(xs), Some(rs)) = (&x.shape, &rois.shape) else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    expect_rank("input X", xs, 4)?;
    expect_rank("rois", rs, 2)?;
    let (h, w) = match crop.value.as_deref() {
        Some([h, w]) => (*h, *w),
        Some(v) => {
            return Err(OpError::BadShapeValue(Box::new(
                ShapeValueProblem::Entries {
                    what: "crop_size",
                    found: v.len(),
                    expected: Expected::Exactly(2),
                },
            )))
        }
        None => (ctx.unknown_dim(node, 0, 2), ctx.unknown_dim(node, 0, 3)),
    };
    Ok(vec![TensorFact::new(x.dtype, vec![rs[0], xs[1], h, w])])
}

/// Unique (contrib): `y = [U]`, `idx` of `x`'s shape, `counts = [U]`.
fn unique(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "x")?;
    if let Some(xs) = &x.shape {
        expect_rank("input x", xs, 1)?;
    }
    let u: Dim = ctx.unknown_dim(node, 0, 0);
    Ok(vec![
        TensorFact::new(x.dtype, vec![u]),
        shaped(DType::Int64, x.shape.clone()),
        TensorFact::new(DType::Int64, vec![u]),
    ])
}

/// DynamicTimeWarping: `[2, O]` (int32), `O` data-dependent.
fn dynamic_time_warping(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "input")?;
    if let Some(xs) = &x.shape {
        let one = ctx.alg.constant(1);
        match xs.len() {
            2 => {}
            3 => {
                unify_as(
                    ctx,
                    node,
                    DimRole::of("the leading dim", "a 3-D input"),
                    xs[0],
                    one,
                )?;
            }
            r => return Err(rank_of("input", Expected::either(&[2, 3]), r)),
        }
    }
    let two = ctx.alg.constant(2);
    let o = ctx.unknown_dim(node, 0, 1);
    Ok(vec![TensorFact::new(DType::Int32, vec![two, o])])
}

/// UnfoldTensor: `d` on `dim` becomes `floordiv(d - size, step) + 1`, and `size` is
/// appended.
fn unfold_tensor(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "input")?;
    let size = attr_int_required(node, "size")?;
    let step = attr_int(node, "step", 1)?;
    for (name, v) in [("size", size), ("step", step)] {
        require_positive(name, v)?;
    }
    let Some(xs) = &x.shape else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let axis = norm_axis(attr_int(node, "dim", -1)?, xs.len())?;
    let size = ctx.alg.constant(size);
    if ctx.alg.le(size, xs[axis]) == crate::algebra::Truth::False {
        return Err(OpError::BadShapeValue(Box::new(
            ShapeValueProblem::SizeExceedsDim {
                size: ctx.alg.expr(size),
                axis,
                dim: ctx.alg.expr(xs[axis]),
            },
        )));
    }
    let step = ctx.alg.constant(step);
    let one = ctx.alg.constant(1);
    let span = ctx.alg.sub(xs[axis], size);
    let q = ctx.alg.floordiv(span, step);
    let mut out = xs.clone();
    out[axis] = ctx.alg.add_dims(q, one);
    out.push(size);
    Ok(vec![TensorFact::new(x.dtype, out)])
}
