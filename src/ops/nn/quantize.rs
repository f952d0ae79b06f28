//! Quantization and sampling: ONNX QuantizeLinear, DequantizeLinear,
//! DynamicQuantizeLinear and GridSample; OpenVINO GridSample.
//!
//! Specs: <https://onnx.ai/onnx/operators/> (the page of each op); the OpenVINO
//! operation specification (`GridSample-9`).
//!
//! - **QuantizeLinear / DequantizeLinear**: the shape of `x`. The scale is a
//!   scalar (per tensor), a vector of `x[axis]` (per axis, opset 13+), or of
//!   `x`'s rank with `ceildiv(x[axis], block_size)` on `axis` (blocked, opset
//!   21+); the zero point has the scale's shape. A one-element vector scale is per
//!   tensor (as onnxruntime reads it), its zero point a scalar or one element. The output type is the zero
//!   point's (Quantize; `output_dtype` from 21; uint8 by default) or the scale's
//!   (Dequantize from 19; float before; `output_dtype` from 23).
//! - **DynamicQuantizeLinear**: `y` of `x`'s shape (uint8), scalar `y_scale`
//!   (float) and `y_zero_point` (uint8).
//! - **GridSample**: `X = [N, C, D1..Dr]`, `grid = [N, O1..Or, r]` give
//!   `[N, C, O1..Or]` ([`grid_sample_shape`]); OpenVINO's is the 4-D case.
//!
//! Version history (shape-relevant):
//! - QuantizeLinear-10 (per tensor), -13 (`axis`, per axis), -19 (`saturate`,
//!   float8), -21 (`block_size`, `output_dtype`), -23, -24, -25 (types,
//!   `precision`). DequantizeLinear-10, -13, -19, -21, -23 (`output_dtype`),
//!   -24, -25. DynamicQuantizeLinear-11.
//! - GridSample-16 (4-D), -20 (N-D), -22. OpenVINO GridSample-9 (4-D).

use crate::algebra::Dim;
use crate::context::DimRole;
use crate::context::{AttrProblem, AttrValue};
use crate::context::{Expected, OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};
use crate::ops::common::attrs::attr_dtype;
use crate::ops::common::attrs::attr_int;
use crate::ops::common::dims::{expect_rank, rank_of, unify_as, Equate};
use crate::ops::common::{check_inputs, norm_axis};
use crate::ops::cost::{elementwise, Costs};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["QuantizeLinear"], quantize_linear),
    ("", ["DequantizeLinear"], dequantize_linear),
    ("", ["DynamicQuantizeLinear"], dynamic_quantize_linear),
    ("", ["GridSample"], grid_sample),
    ("openvino", ["GridSample"], openvino_grid_sample),
];

/// What quantization computes ([`crate::ops::cost`]): one FLOP per output
/// element for QuantizeLinear and DequantizeLinear (a scale and a shift, counted
/// as one), two per input element for DynamicQuantizeLinear (the min/max scan,
/// then the quantization). GridSample is not counted.
pub const COSTS: &[Costs] = &[Costs::by_op(rules![
    ("", ["QuantizeLinear", "DequantizeLinear"], elementwise),
    ("", ["DynamicQuantizeLinear"], dynamic_quantize_cost),
])];

fn dynamic_quantize_cost(
    alg: &mut crate::algebra::Algebra,
    ctx: &ShapesContext,
    node: &Node,
) -> crate::ops::cost::OpCost {
    crate::ops::cost::per_input_element(alg, ctx, node, 2)
}

/// Check a quantization scale (and its zero point) against `x`: per tensor, per
/// axis or blocked.
fn check_quant_params(
    ctx: &mut ShapesContext,
    node: &Node,
    x: &TensorFact,
    scale: &TensorFact,
    zero_point: Option<&TensorFact>,
) -> Result<(), OpError> {
    let (Some(xs), Some(ss)) = (&x.shape, &scale.shape) else {
        return Ok(());
    };
    let block = if node.version >= 21 {
        attr_int(node, "block_size", 0)?
    } else {
        0
    };
    if block < 0 {
        return Err(OpError::BadAttribute {
            name: "block_size",
            value: AttrValue::Int(block),
            why: Box::new(AttrProblem::Negative),
        });
    }
    let axis_attr = attr_int(node, "axis", 1)?;
    // A one-element vector is a per-tensor scale (onnxruntime's
    // `IsScalarOr1ElementVector`), whatever the axis; so is its zero point.
    let one = ctx.alg.constant(1);
    let single = |ctx: &ShapesContext, s: &[Dim]| {
        s.is_empty() || (s.len() == 1 && ctx.alg.equal(s[0], one) == crate::algebra::Truth::True)
    };
    if block == 0 && single(ctx, ss) {
        if let Some(zs) = zero_point.and_then(|z| z.shape.as_ref()) {
            if !single(ctx, zs) {
                return Err(rank_of(
                    "zero point",
                    Expected::Either(vec![
                        Expected::Exactly(0),
                        Expected::Described("a single element"),
                    ])
                    .noted("as the scale"),
                    zs.len(),
                ));
            }
        }
        return Ok(());
    }
    match ss.len() {
        0 => {}
        1 if block == 0 => {
            if node.version < 13 {
                let one = ctx.alg.constant(1);
                unify_as(ctx, node, "scale (a scalar before opset 13)", ss[0], one)?;
            } else {
                let axis = norm_axis(axis_attr, xs.len())?;
                unify_as(
                    ctx,
                    node,
                    DimRole::AtAxis {
                        what: "per-axis scale length and x axis",
                        axis,
                    },
                    ss[0],
                    xs[axis],
                )?;
            }
        }
        r if block > 0 && r == xs.len() => {
            let axis = norm_axis(axis_attr, xs.len())?;
            let b = ctx.alg.constant(block);
            for a in 0..r {
                let want = if a == axis {
                    ctx.alg.ceildiv(xs[a], b)
                } else {
                    xs[a]
                };
                let dims = DimRole::AtAxis {
                    what: "blocked scale axis",
                    axis: a,
                };
                unify_as(ctx, node, dims, ss[a], want)?;
            }
        }
        r => {
            return Err(rank_of(
                "scale",
                if block > 0 {
                    Expected::Exactly(xs.len()).noted("blocked")
                } else {
                    Expected::either(&[0, 1])
                },
                r,
            ))
        }
    }
    if let Some(zs) = zero_point.and_then(|z| z.shape.as_ref()) {
        if zs.len() != ss.len() {
            return Err(rank_of(
                "zero point",
                Expected::Exactly(ss.len()).noted("the rank of the scale"),
                zs.len(),
            ));
        }
        for (a, (z, s)) in zs.iter().zip(ss).enumerate() {
            unify_as(ctx, node, DimRole::axis(a, ("zero point", "scale")), *z, *s)?;
        }
    }
    Ok(())
}

fn like_shape(x: &TensorFact, dtype: DType) -> TensorFact {
    TensorFact {
        fill: None,
        dtype,
        shape: x.shape.clone(),
        value: None,
    }
}

fn quantize_linear(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 3)?;
    let x = ctx.input(node, 0, "x")?;
    let scale = ctx.input(node, 1, "y_scale")?;
    let zp = ctx.optional_input(node, 2)?;
    check_quant_params(ctx, node, &x, &scale, zp.as_ref())?;
    let dtype = match &zp {
        Some(z) if z.dtype != DType::Undefined => z.dtype,
        _ if node.version >= 21 => attr_dtype(node, "output_dtype", DType::Uint8)?,
        _ => DType::Uint8,
    };
    Ok(vec![like_shape(&x, dtype)])
}

fn dequantize_linear(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 3)?;
    let x = ctx.input(node, 0, "x")?;
    let scale = ctx.input(node, 1, "x_scale")?;
    let zp = ctx.optional_input(node, 2)?;
    check_quant_params(ctx, node, &x, &scale, zp.as_ref())?;
    let from_scale = if node.version >= 19 && scale.dtype != DType::Undefined {
        scale.dtype
    } else {
        DType::Float
    };
    let dtype = if node.version >= 23 {
        attr_dtype(node, "output_dtype", from_scale)?
    } else {
        from_scale
    };
    Ok(vec![like_shape(&x, dtype)])
}

fn dynamic_quantize_linear(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "x")?;
    Ok(vec![
        like_shape(&x, DType::Uint8),
        TensorFact::new(DType::Float, vec![]),
        TensorFact::new(DType::Uint8, vec![]),
    ])
}

fn grid_sample(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "X")?;
    let grid = ctx.input(node, 1, "grid")?;
    let (Some(xs), Some(gs)) = (x.shape.clone(), grid.shape.clone()) else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    if node.version < 20 {
        expect_rank("input X", &xs, 4)?;
    }
    let out = grid_sample_shape(ctx, node, &xs, &gs, Equate::Warn)?;
    Ok(vec![TensorFact::new(x.dtype, out)])
}

/// The output shape of a grid sample: `X = [N, C, D1..Dr]` and
/// `grid = [N, O1..Or, r]` give `[N, C, O1..Or]`; the batch dims and the grid's
/// last dim (the spatial rank) are equated as `equate` says.
pub fn grid_sample_shape(
    ctx: &mut ShapesContext,
    node: &Node,
    xs: &[Dim],
    gs: &[Dim],
    equate: Equate,
) -> Result<Vec<Dim>, OpError> {
    if xs.len() < 3 {
        return Err(rank_of("input X", Expected::AtLeast(3), xs.len()));
    }
    let r = xs.len() - 2;
    expect_rank("grid", gs, r + 2)?;
    let n = equate.dims_as(
        ctx,
        node,
        DimRole::of("batch N", ("X", "grid")),
        xs[0],
        gs[0],
    )?;
    let rd = ctx.alg.constant(r as i64);
    equate.dims_as(
        ctx,
        node,
        DimRole::of("last axis", "grid (the spatial rank)"),
        gs[r + 1],
        rd,
    )?;
    let mut out = vec![n, xs[1]];
    out.extend_from_slice(&gs[1..=r]);
    Ok(out)
}

/// OpenVINO GridSample-9: 4-D data and grid.
fn openvino_grid_sample(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "data")?;
    let grid = ctx.input(node, 1, "grid")?;
    let (Some(xs), Some(gs)) = (x.shape.clone(), grid.shape.clone()) else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    expect_rank("data", &xs, 4)?;
    let out = grid_sample_shape(ctx, node, &xs, &gs, Equate::Record)?;
    Ok(vec![TensorFact::new(x.dtype, out)])
}
