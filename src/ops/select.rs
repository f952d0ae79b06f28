//! Data-dependent selections, quantization and sampling: TopK, NonZero,
//! QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear and GridSample.
//!
//! Spec: <https://onnx.ai/onnx/operators/> (the page of each op).
//!
//! - **TopK**: `Values` and `Indices` have `X`'s shape with `k` on `axis`. `k` is
//!   the value of the `K` input (symbolic when it was computed from shapes), or a
//!   data-dependent fresh dim when unknown. A negative `k`, or one provably larger
//!   than the axis, is an error.
//! - **NonZero**: `[rank, nz]` where `nz` is a data-dependent fresh dim (prefix
//!   `nz`). When the input's value is known (a small constant), the count and the
//!   indices are computed.
//! - **QuantizeLinear / DequantizeLinear**: the shape of `x`. The scale is a
//!   scalar (per tensor), a vector of `x[axis]` (per axis, opset 13+), or of
//!   `x`'s rank with `ceildiv(x[axis], block_size)` on `axis` (blocked, opset
//!   21+); the zero point has the scale's shape. The output type is the zero
//!   point's (Quantize; `output_dtype` from 21; uint8 by default) or the scale's
//!   (Dequantize from 19; float before; `output_dtype` from 23).
//! - **DynamicQuantizeLinear**: `y` of `x`'s shape (uint8), scalar `y_scale`
//!   (float) and `y_zero_point` (uint8).
//! - **GridSample**: `X = [N, C, D1..Dr]`, `grid = [N, O1..Or, r]` give
//!   `[N, C, O1..Or]`.
//!
//! Version history (shape-relevant):
//! - TopK-1 (`k` attribute), -10 (`K` input), -11 (`largest`, `sorted`,
//!   negative axis), -24 (types).
//! - NonZero-9, -13.
//! - QuantizeLinear-10 (per tensor), -13 (`axis`, per axis), -19 (`saturate`,
//!   float8), -21 (`block_size`, `output_dtype`), -23, -24, -25 (types,
//!   `precision`). DequantizeLinear-10, -13, -19, -21, -23 (`output_dtype`),
//!   -24, -25. DynamicQuantizeLinear-11.
//! - GridSample-16 (4-D), -20 (N-D), -22.

use super::nn_util::{attr_dtype, expect_rank, rank_error, unify};
use super::{attr_int, attr_int_required, check_inputs, norm_axis, RuleEntry};
use crate::algebra::{Dim, SymbolKind, Truth};
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};

/// The rules of this family.
pub const RULES: &[RuleEntry] = &[
    ("", "TopK", top_k),
    ("", "NonZero", non_zero),
    ("", "QuantizeLinear", quantize_linear),
    ("", "DequantizeLinear", dequantize_linear),
    ("", "DynamicQuantizeLinear", dynamic_quantize_linear),
    ("", "GridSample", grid_sample),
];

/// NonZero computes the indices of a known input with at most this many elements.
const NONZERO_VALUE_LIMIT: usize = 64;

fn top_k(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let x = ctx.input(node, 0, "X")?;
    let k: Option<Dim> = if node.version < 10 {
        check_inputs(node, 1, 1)?;
        let k = attr_int_required(node, "k")?;
        Some(ctx.alg.constant(k))
    } else {
        check_inputs(node, 2, 2)?;
        let kf = ctx.input(node, 1, "K")?;
        if let Some(s) = &kf.shape {
            let one = ctx.alg.constant(1);
            let ok = s.is_empty() || (s.len() == 1 && ctx.alg.equal(s[0], one) != Truth::False);
            if !ok {
                return Err(rank_error(
                    "K (a 1-D tensor of one element)",
                    "[1]",
                    s.len(),
                ));
            }
        }
        kf.value.as_ref().and_then(|v| (v.len() == 1).then(|| v[0]))
    };
    let Some(xs) = x.shape.clone() else {
        return Ok(vec![
            TensorFact::unknown(x.dtype),
            TensorFact::unknown(DType::Int64),
        ]);
    };
    let default_axis = -1;
    let axis = norm_axis(attr_int(node, "axis", default_axis)?, xs.len())?;
    let k = match k {
        Some(k) => {
            let zero = ctx.alg.constant(0);
            if ctx.alg.le(zero, k) == Truth::False {
                return Err(OpError::BadShapeValue {
                    what: format!("k = {} is negative", ctx.alg.render(k)),
                });
            }
            if ctx.alg.le(k, xs[axis]) == Truth::False {
                return Err(OpError::BadShapeValue {
                    what: format!(
                        "k = {} exceeds axis {axis} of length {}",
                        ctx.alg.render(k),
                        ctx.alg.render(xs[axis])
                    ),
                });
            }
            k
        }
        None => ctx.unknown_dim(node, 0, axis),
    };
    let mut out = xs;
    out[axis] = k;
    Ok(vec![
        TensorFact::new(x.dtype, out.clone()),
        TensorFact::new(DType::Int64, out),
    ])
}

fn non_zero(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "X")?;
    if let Some(f) = known_non_zero(ctx, &x) {
        return Ok(vec![f]);
    }
    let rank = match x.rank() {
        Some(r) => ctx.alg.constant(r as i64),
        None => ctx.unknown_dim(node, 0, 0),
    };
    let kind = SymbolKind::DataDependent {
        node: node.name.clone(),
    };
    let nz = ctx.fresh_dim(node, 0, 1, "nz", kind);
    Ok(vec![TensorFact::new(DType::Int64, vec![rank, nz])])
}

/// NonZero of a small input whose value and shape are constants.
fn known_non_zero(ctx: &mut ShapesContext, x: &TensorFact) -> Option<TensorFact> {
    let shape: Vec<i64> = x
        .shape
        .as_ref()?
        .iter()
        .map(|d| ctx.alg.as_i64(*d))
        .collect::<Option<_>>()?;
    let values = x.value.as_ref()?;
    if values.len() > NONZERO_VALUE_LIMIT {
        return None;
    }
    let mut nonzero = Vec::new();
    for (i, v) in values.iter().enumerate() {
        let c = ctx.alg.as_const(*v)?;
        if !c.is_zero() {
            nonzero.push(i);
        }
    }
    let rank = shape.len();
    let mut rows: Vec<Vec<i64>> = vec![Vec::with_capacity(nonzero.len()); rank];
    for flat in &nonzero {
        let mut rem = *flat as i64;
        for a in (0..rank).rev() {
            let d = shape[a].max(1);
            rows[a].push(rem % d);
            rem /= d;
        }
    }
    let value: Vec<Dim> = rows
        .iter()
        .flatten()
        .map(|v| ctx.alg.constant(*v))
        .collect();
    let r = ctx.alg.constant(rank as i64);
    let n = ctx.alg.constant(nonzero.len() as i64);
    Some(TensorFact {
        dtype: DType::Int64,
        shape: Some(vec![r, n]),
        value: Some(value),
    })
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
            value: block.to_string(),
            why: "must be non-negative".to_string(),
        });
    }
    let axis_attr = attr_int(node, "axis", 1)?;
    match ss.len() {
        0 => {}
        1 if block == 0 => {
            if node.version < 13 {
                let one = ctx.alg.constant(1);
                unify(ctx, node, "scale (a scalar before opset 13)", ss[0], one)?;
            } else {
                let axis = norm_axis(axis_attr, xs.len())?;
                unify(
                    ctx,
                    node,
                    &format!("per-axis scale length and x axis {axis}"),
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
                unify(ctx, node, &format!("blocked scale axis {a}"), ss[a], want)?;
            }
        }
        r => {
            return Err(rank_error(
                "scale",
                if block > 0 {
                    format!("{} (blocked)", xs.len())
                } else {
                    "0 or 1".to_string()
                },
                r,
            ))
        }
    }
    if let Some(zs) = zero_point.and_then(|z| z.shape.as_ref()) {
        if zs.len() != ss.len() {
            return Err(rank_error(
                "zero point",
                format!("{} (the rank of the scale)", ss.len()),
                zs.len(),
            ));
        }
        for (a, (z, s)) in zs.iter().zip(ss).enumerate() {
            unify(
                ctx,
                node,
                &format!("axis {a} of zero point and scale"),
                *z,
                *s,
            )?;
        }
    }
    Ok(())
}

fn like_shape(x: &TensorFact, dtype: DType) -> TensorFact {
    TensorFact {
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
    if xs.len() < 3 {
        return Err(rank_error("input X", "at least 3", xs.len()));
    }
    let r = xs.len() - 2;
    if node.version < 20 {
        expect_rank("input X", &xs, 4)?;
    }
    expect_rank("grid", &gs, r + 2)?;
    let n = unify(ctx, node, "batch N of X and grid", xs[0], gs[0])?;
    let rd = ctx.alg.constant(r as i64);
    unify(
        ctx,
        node,
        "last axis of grid (the spatial rank)",
        gs[r + 1],
        rd,
    )?;
    let mut out = vec![n, xs[1]];
    out.extend_from_slice(&gs[1..=r]);
    Ok(vec![TensorFact::new(x.dtype, out)])
}
