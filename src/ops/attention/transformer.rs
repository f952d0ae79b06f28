//! The ONNX ops for transformers (opsets 23 to 28) other than attention (which is
//! in [`crate::ops::attention::standard`]): `RotaryEmbedding`, `RMSNormalization`,
//! `TensorScatter`, `Swish`, `SwiGLU` and `CausalConvWithState`.
//!
//! Spec: the ONNX operator reference (each op's page).
//!
//! * `RotaryEmbedding`, `RMSNormalization`, `Swish`, `CausalConvWithState`'s
//!   `output`: the input's shape. `RotaryEmbedding` checks its 3-D input against
//!   `num_heads` (the hidden size must be a multiple) and the position ids
//!   (`[B, L]`) against it; `RMSNormalization` checks `axis` and that `scale`
//!   broadcasts to the normalised dims.
//! * `SwiGLU`: two inputs of one shape (no broadcasting), the output that shape.
//! * `TensorScatter`: `present_cache` has `past_cache`'s shape; `update` differs
//!   from it only on `axis` (not 0, default -2) and `write_indices` is `[B]`.
//! * `CausalConvWithState`: `input [B, C, L]`, `weight [C, 1, k]` give `output [B,
//!   C, L]` and `present_state [B, C, k - 1]`.
//!
//! # Version history
//! * ONNX **RotaryEmbedding**, **RMSNormalization**: 23. **TensorScatter**,
//!   **Swish**: 24. **CausalConvWithState**: 27. **SwiGLU**: 28.

use crate::algebra::Truth;
use crate::context::DimRole;
use crate::context::{AttrProblem, AttrValue, ShapeValueProblem};
use crate::context::{Expected, OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};
use crate::ops::attention::standard::{heads, per_head};
use crate::ops::common::attrs::attr_dtype;
use crate::ops::common::attrs::attr_int;
use crate::ops::common::dims::{expect_rank, rank_of, shaped, unify_as};
use crate::ops::common::{check_inputs, norm_axis};
use crate::ops::cost::Costs;
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["RotaryEmbedding"], rotary_embedding),
    ("", ["RMSNormalization"], rms_normalization),
    ("", ["TensorScatter"], tensor_scatter),
    ("", ["Swish"], swish),
    ("", ["SwiGLU"], swiglu),
    ("", ["CausalConvWithState"], causal_conv_with_state),
];

/// What these ops compute ([`crate::ops::cost`]): RotaryEmbedding 3 FLOPs per
/// element of input 0 (two products and a sum), RMSNormalization 4 (as
/// [`crate::ops::nn::norm::COSTS`]), Swish and SwiGLU one per output element,
/// TensorScatter 0 (it writes elements). CausalConvWithState is not counted.
pub const COSTS: &[Costs] = &[Costs::by_op(rules![
    (
        "",
        ["RotaryEmbedding"],
        crate::ops::nn::norm::three_per_element
    ),
    (
        "",
        ["RMSNormalization"],
        crate::ops::nn::norm::four_per_element
    ),
    ("", ["Swish", "SwiGLU"], crate::ops::cost::elementwise),
    ("", ["TensorScatter"], crate::ops::cost::moves_data),
])];

/// ONNX `RotaryEmbedding` (23): the input's shape.
fn rotary_embedding(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 4)?;
    let x = ctx.input(node, 0, "X")?;
    let num_heads = heads(node, "num_heads")?;
    for (i, what) in [(1, "cos_cache"), (2, "sin_cache")] {
        if let Some(s) = ctx.input(node, i, what)?.shape {
            if !(2..=3).contains(&s.len()) {
                return Err(rank_of(what, Expected::either(&[2, 3]), s.len()));
            }
        }
    }
    let Some(xs) = &x.shape else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let (b, l) = match xs.as_slice() {
        [b, _, l, _] => (*b, *l),
        [b, l, hidden] => {
            let h = num_heads.ok_or(OpError::MissingAttribute { name: "num_heads" })?;
            per_head(ctx, node, *hidden, h)?;
            (*b, *l)
        }
        _ => return Err(rank_of("X", Expected::either(&[3, 4]), xs.len())),
    };
    if let Some(p) = ctx.optional_input(node, 3)? {
        if let Some(ps) = &p.shape {
            expect_rank("position_ids", ps, 2)?;
            unify_as(
                ctx,
                node,
                DimRole::of("batch", ("X", "position_ids")),
                ps[0],
                b,
            )?;
            unify_as(
                ctx,
                node,
                DimRole::of("sequence", ("X", "position_ids")),
                ps[1],
                l,
            )?;
        }
    }
    Ok(vec![TensorFact::new(x.dtype, xs.clone())])
}

/// ONNX `RMSNormalization` (23): the input's shape; `scale` broadcasts to the
/// normalised dims.
fn rms_normalization(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "X")?;
    let scale = ctx.input(node, 1, "scale")?;
    attr_dtype(node, "stash_type", DType::Float)?;
    let Some(xs) = &x.shape else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let axis = norm_axis(attr_int(node, "axis", -1)?, xs.len())?;
    if let Some(ss) = &scale.shape {
        let normalised = &xs[axis..];
        if ss.len() > normalised.len() {
            return Err(rank_of(
                "scale",
                Expected::AtMost(normalised.len()).noted("the normalised dims"),
                ss.len(),
            ));
        }
        let off = normalised.len() - ss.len();
        for (i, &d) in ss.iter().enumerate() {
            let target = normalised[off + i];
            if ctx.alg.as_i64(d) != Some(1) {
                unify_as(ctx, node, DimRole::axis(off + i, ("scale", "X")), d, target)?;
            }
        }
    }
    Ok(vec![TensorFact::new(x.dtype, xs.clone())])
}

/// ONNX `TensorScatter` (24): `present_cache` has `past_cache`'s shape.
fn tensor_scatter(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 3)?;
    let past = ctx.input(node, 0, "past_cache")?;
    let update = ctx.input(node, 1, "update")?;
    let mode = crate::ops::common::attrs::attr_str_or(node, "mode", "linear")?;
    if !matches!(mode, "linear" | "circular") {
        return Err(OpError::BadAttribute {
            name: "mode",
            value: AttrValue::Word(mode.to_string()),
            why: Box::new(AttrProblem::one_of(&["linear", "circular"])),
        });
    }
    let Some(ps) = &past.shape else {
        return Ok(vec![shaped(past.dtype, None)]);
    };
    let axis = norm_axis(attr_int(node, "axis", -2)?, ps.len())?;
    if axis == 0 {
        return Err(OpError::BadAttribute {
            name: "axis",
            value: AttrValue::Int(attr_int(node, "axis", -2)?),
            why: Box::new(AttrProblem::Fixed(
                "the sequence axis cannot be the batch axis 0",
            )),
        });
    }
    if let Some(us) = &update.shape {
        if us.len() != ps.len() {
            return Err(rank_of("update", ps.len(), us.len()));
        }
        for (i, (&u, &p)) in us.iter().zip(ps).enumerate() {
            if i == axis {
                if ctx.alg.le(u, p) == Truth::False {
                    return Err(OpError::BadShapeValue(Box::new(
                        ShapeValueProblem::UpdateExceedsCache {
                            update: ctx.alg.expr(u),
                            cache: ctx.alg.expr(p),
                        },
                    )));
                }
            } else {
                unify_as(ctx, node, DimRole::axis(i, ("update", "past_cache")), u, p)?;
            }
        }
    }
    if let Some(w) = ctx.optional_input(node, 2)? {
        if let Some(ws) = &w.shape {
            expect_rank("write_indices", ws, 1)?;
            unify_as(
                ctx,
                node,
                DimRole::of("batch", ("write_indices", "past_cache")),
                ws[0],
                ps[0],
            )?;
        }
    }
    Ok(vec![TensorFact::new(past.dtype, ps.clone())])
}

/// ONNX `Swish` (24): the input's shape.
fn swish(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "X")?;
    Ok(vec![shaped(x.dtype, x.shape)])
}

/// ONNX `SwiGLU` (28): `A` and `B` of one shape, no broadcasting.
fn swiglu(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let a = ctx.input(node, 0, "A")?;
    let b = ctx.input(node, 1, "B")?;
    let shape = match (&a.shape, &b.shape) {
        (Some(x), Some(y)) => {
            if x.len() != y.len() {
                return Err(rank_of("B", x.len(), y.len()));
            }
            let mut out = Vec::with_capacity(x.len());
            for (i, (&p, &q)) in x.iter().zip(y).enumerate() {
                out.push(unify_as(ctx, node, DimRole::axis(i, ("A", "B")), p, q)?);
            }
            Some(out)
        }
        (Some(x), None) | (None, Some(x)) => Some(x.clone()),
        (None, None) => None,
    };
    Ok(vec![shaped(a.dtype, shape)])
}

/// ONNX `CausalConvWithState` (27).
fn causal_conv_with_state(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 4)?;
    let x = ctx.input(node, 0, "input")?;
    let w = ctx.input(node, 1, "weight")?;
    let act = crate::ops::common::attrs::attr_str_or(node, "activation", "none")?;
    if !matches!(act, "none" | "silu" | "swish") {
        return Err(OpError::BadAttribute {
            name: "activation",
            value: AttrValue::Word(act.to_string()),
            why: Box::new(AttrProblem::one_of(&["silu", "swish", "none"])),
        });
    }
    if let Some(xs) = &x.shape {
        expect_rank("input", xs, 3)?;
    }
    let k = match &w.shape {
        Some(ws) => {
            expect_rank("weight", ws, 3)?;
            let one = ctx.alg.constant(1);
            unify_as(
                ctx,
                node,
                DimRole::axis(1, "weight (depthwise)"),
                ws[1],
                one,
            )?;
            if let Some(xs) = &x.shape {
                unify_as(
                    ctx,
                    node,
                    DimRole::of("channels", ("input", "weight")),
                    xs[1],
                    ws[0],
                )?;
            }
            Some(ws[2])
        }
        None => None,
    };
    if let (Some(b), Some(xs)) = (ctx.optional_input(node, 2)?, &x.shape) {
        if let Some(bs) = &b.shape {
            expect_rank("bias", bs, 1)?;
            unify_as(
                ctx,
                node,
                DimRole::of("channels", ("input", "bias")),
                xs[1],
                bs[0],
            )?;
        }
    }
    let Some(xs) = x.shape.clone() else {
        return Ok(vec![
            TensorFact::unknown(x.dtype),
            TensorFact::unknown(x.dtype),
        ]);
    };
    let carry = match k {
        Some(k) => {
            let one = ctx.alg.constant(1);
            ctx.alg.sub(k, one)
        }
        None => ctx.unknown_dim(node, 1, 2),
    };
    let state = vec![xs[0], xs[1], carry];
    if let Some(ps) = ctx.optional_input(node, 3)?.and_then(|p| p.shape) {
        expect_rank("past_state", &ps, 3)?;
        for (i, (&p, &s)) in ps.iter().zip(&state).enumerate() {
            unify_as(ctx, node, DimRole::axis(i, "past_state"), p, s)?;
        }
    }
    Ok(vec![
        TensorFact::new(x.dtype, xs),
        TensorFact::new(x.dtype, state),
    ])
}
