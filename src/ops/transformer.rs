//! The ONNX ops for transformers (opsets 23 to 28): `Attention`, `RotaryEmbedding`,
//! `RMSNormalization`, `TensorScatter`, `Swish`, `SwiGLU`, `LinearAttention`,
//! `CausalConvWithState`, and `FlexAttention` of `ai.onnx.preview`.
//!
//! Spec: the ONNX operator reference (each op's page).
//!
//! * `Attention` ([`attention_shapes`]): `Q` is `[B, Hq, L, E]`, or 3-D
//!   `[B, L, Hq*E]` with `q_num_heads` = `Hq`; `K` is `[B, Hkv, S, E]` or
//!   `[B, S, Hkv*E]`, `V` `[B, Hkv, S, Ev]` or `[B, S, Hkv*Ev]` (3-D ones need
//!   `kv_num_heads`). With `past_key [B, Hkv, P, E]` and `past_value [B, Hkv, P,
//!   Ev]` the total length is `T = P + S`, else `S`. Outputs: `Y [B, Hq, L, Ev]`
//!   (3-D `Q`: `[B, L, Hq*Ev]`), `present_key [B, Hkv, T, E]`, `present_value
//!   [B, Hkv, T, Ev]`, `qk_matmul_output [B, Hq, L, T]`. `Hq` must be a multiple of
//!   `Hkv`; the dims the inputs share are equated. The types are `Q`'s (`V`'s for
//!   `present_value`).
//! * `FlexAttention` (`ai.onnx.preview` 1): the 4-D case of `Attention`, `Y` only.
//! * `RotaryEmbedding`, `RMSNormalization`, `Swish`, `CausalConvWithState`'s
//!   `output`: the input's shape. `RotaryEmbedding` checks its 3-D input against
//!   `num_heads` (the hidden size must be a multiple) and the position ids
//!   (`[B, L]`) against it; `RMSNormalization` checks `axis` and that `scale`
//!   broadcasts to the normalised dims.
//! * `SwiGLU`: two inputs of one shape (no broadcasting), the output that shape.
//! * `TensorScatter`: `present_cache` has `past_cache`'s shape; `update` differs
//!   from it only on `axis` (not 0, default -2) and `write_indices` is `[B]`.
//! * `LinearAttention`: `query [B, T, Hq*Dk]`, `key [B, T, Hkv*Dk]`, `value [B, T,
//!   Hkv*Dv]` give `output [B, T, Hq*Dv]` and `present_state [B, Hkv, Dk, Dv]`
//!   (`q_num_heads`, `kv_num_heads` required).
//! * `CausalConvWithState`: `input [B, C, L]`, `weight [C, 1, k]` give `output [B,
//!   C, L]` and `present_state [B, C, k - 1]`.
//!
//! # Version history
//! * ONNX **Attention**: 23; 24 (`nonpad_kv_seqlen` input); 25
//!   (`left_window_size`, `right_window_size`). The shapes are the same.
//! * ONNX **RotaryEmbedding**, **RMSNormalization**: 23. **TensorScatter**,
//!   **Swish**: 24. **LinearAttention**, **CausalConvWithState**: 27. **SwiGLU**:
//!   28.
//! * `ai.onnx.preview` **FlexAttention**: 1.

use super::broadcast::broadcast_dim;
use super::nn_util::{attr_dtype, expect_rank, rank_error, shaped, unify};
use super::split::split_equal;
use super::{attr_int, check_inputs, norm_axis, RuleEntry};
use crate::algebra::{Dim, Truth};
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};

/// The rules of this family.
pub const RULES: &[RuleEntry] = &[
    ("", "Attention", attention),
    ("", "RotaryEmbedding", rotary_embedding),
    ("", "RMSNormalization", rms_normalization),
    ("", "TensorScatter", tensor_scatter),
    ("", "Swish", swish),
    ("", "SwiGLU", swiglu),
    ("", "LinearAttention", linear_attention),
    ("", "CausalConvWithState", causal_conv_with_state),
    ("ai.onnx.preview", "FlexAttention", flex_attention),
];

/// A positive head-count attribute, if present.
fn heads(node: &Node, name: &'static str) -> Result<Option<i64>, OpError> {
    match node.attr(name) {
        None => Ok(None),
        Some(_) => {
            let v = attr_int(node, name, 0)?;
            if v <= 0 {
                return Err(OpError::BadAttribute {
                    name,
                    value: v.to_string(),
                    why: "must be positive".to_string(),
                });
            }
            Ok(Some(v))
        }
    }
}

/// `d / n` where a valid model needs it exact (a head size).
fn per_head(ctx: &mut ShapesContext, node: &Node, d: Dim, n: i64) -> Result<Dim, OpError> {
    Ok(split_equal(ctx, node, d, n)?.0)
}

/// An attention operand as `[B, H, S, E]`: 4-D as is, 3-D `[B, S, H*E]` split by
/// the head count `h` (required then, named by `attr`).
fn as_heads(
    ctx: &mut ShapesContext,
    node: &Node,
    what: &str,
    shape: &[Dim],
    h: Option<i64>,
    attr: &'static str,
) -> Result<[Dim; 4], OpError> {
    match shape {
        [b, hh, s, e] => {
            if let Some(h) = h {
                let hd = ctx.alg.constant(h);
                unify(ctx, node, &format!("heads of {what} and {attr}"), *hh, hd)?;
            }
            Ok([*b, *hh, *s, *e])
        }
        [b, s, hidden] => {
            let h = h.ok_or(OpError::MissingAttribute { name: attr })?;
            let e = per_head(ctx, node, *hidden, h)?;
            Ok([*b, ctx.alg.constant(h), *s, e])
        }
        _ => Err(rank_error(what, "3 or 4", shape.len())),
    }
}

/// The shapes of an ONNX `Attention`: `Y`, `present_key`, `present_value` and
/// `qk_matmul_output`, from the shapes of `Q`, `K`, `V` and of `past_key` and
/// `past_value` when given (see the module docs).
#[allow(clippy::too_many_arguments)]
pub fn attention_shapes(
    ctx: &mut ShapesContext,
    node: &Node,
    q: &[Dim],
    k: &[Dim],
    v: &[Dim],
    past: Option<(&[Dim], &[Dim])>,
    q_heads: Option<i64>,
    kv_heads: Option<i64>,
) -> Result<[Vec<Dim>; 4], OpError> {
    let [qb, hq, l, e] = as_heads(ctx, node, "Q", q, q_heads, "q_num_heads")?;
    let [kb, hkv, s, ke] = as_heads(ctx, node, "K", k, kv_heads, "kv_num_heads")?;
    let [vb, vh, vs, ev] = as_heads(ctx, node, "V", v, kv_heads, "kv_num_heads")?;
    let b = unify(ctx, node, "batch of Q and K", qb, kb)?;
    let b = unify(ctx, node, "batch of Q and V", b, vb)?;
    unify(ctx, node, "head size of Q and K", e, ke)?;
    let hkv = unify(ctx, node, "heads of K and V", hkv, vh)?;
    let s = unify(ctx, node, "sequence of K and V", s, vs)?;
    if let (Some(a), Some(c)) = (ctx.alg.as_i64(hq), ctx.alg.as_i64(hkv)) {
        if c == 0 || a % c != 0 {
            return Err(OpError::BadShapeValue {
                what: format!("q_num_heads {a} is not a multiple of kv_num_heads {c}"),
            });
        }
    }
    let total = match past {
        Some((pk, pv)) => {
            expect_rank("past_key", pk, 4)?;
            expect_rank("past_value", pv, 4)?;
            unify(ctx, node, "batch of past_key", pk[0], b)?;
            unify(ctx, node, "heads of past_key", pk[1], hkv)?;
            unify(ctx, node, "head size of past_key", pk[3], e)?;
            unify(ctx, node, "batch of past_value", pv[0], b)?;
            unify(ctx, node, "heads of past_value", pv[1], hkv)?;
            unify(ctx, node, "head size of past_value", pv[3], ev)?;
            let p = unify(
                ctx,
                node,
                "past lengths of past_key and past_value",
                pk[2],
                pv[2],
            )?;
            ctx.alg.add_dims(p, s)
        }
        None => s,
    };
    let y = if q.len() == 3 {
        let hidden = ctx.alg.mul(hq, ev);
        vec![b, l, hidden]
    } else {
        vec![b, hq, l, ev]
    };
    Ok([
        y,
        vec![b, hkv, total, e],
        vec![b, hkv, total, ev],
        vec![b, hq, l, total],
    ])
}

/// ONNX `Attention` (23, 24, 25).
fn attention(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, if node.version >= 24 { 7 } else { 6 })?;
    let q = ctx.input(node, 0, "Q")?;
    let k = ctx.input(node, 1, "K")?;
    let v = ctx.input(node, 2, "V")?;
    let past_k = ctx.optional_input(node, 4)?;
    let past_v = ctx.optional_input(node, 5)?;
    if past_k.is_some() != past_v.is_some() {
        return Err(OpError::MissingInput {
            index: if past_k.is_some() { 5 } else { 4 },
            what: "past_key and past_value (given together)",
        });
    }
    let q_heads = heads(node, "q_num_heads")?;
    let kv_heads = heads(node, "kv_num_heads")?;
    let mode = attr_int(node, "qk_matmul_output_mode", 0)?;
    if !(0..=3).contains(&mode) {
        return Err(OpError::BadAttribute {
            name: "qk_matmul_output_mode",
            value: mode.to_string(),
            why: "expected 0, 1, 2 or 3".to_string(),
        });
    }
    let shapes = match (&q.shape, &k.shape, &v.shape) {
        (Some(qs), Some(ks), Some(vs)) => {
            let past = match (&past_k, &past_v) {
                (Some(pk), Some(pv)) => match (&pk.shape, &pv.shape) {
                    (Some(a), Some(b)) => Some(Some((a.as_slice(), b.as_slice()))),
                    _ => None,
                },
                _ => Some(None),
            };
            match past {
                Some(p) => Some(attention_shapes(
                    ctx, node, qs, ks, vs, p, q_heads, kv_heads,
                )?),
                // a past of unknown shape: the total length is not known
                None => {
                    let [y, mut pk, mut pv, mut qk] =
                        attention_shapes(ctx, node, qs, ks, vs, None, q_heads, kv_heads)?;
                    let t = ctx.unknown_dim(node, 1, 2);
                    pk[2] = t;
                    pv[2] = t;
                    qk[3] = t;
                    Some([y, pk, pv, qk])
                }
            }
        }
        _ => None,
    };
    let mask = ctx.optional_input(node, 3)?;
    if let (Some(m), Some([_, _, _, qk])) = (mask.as_ref().and_then(|m| m.shape.as_ref()), &shapes)
    {
        // the mask broadcasts to [B, Hq, L, T] (its last dim may be shorter)
        if m.len() > 4 {
            return Err(rank_error("attn_mask", "at most 4", m.len()));
        }
        let off = 4 - m.len();
        for (i, &d) in m.iter().enumerate() {
            if off + i < 3 {
                broadcast_dim(ctx, &node.name, off + i, d, qk[off + i])?;
            }
        }
    }
    let mut out: Vec<TensorFact> = match shapes {
        Some([y, pk, pv, qk]) => vec![
            TensorFact::new(q.dtype, y),
            TensorFact::new(k.dtype, pk),
            TensorFact::new(v.dtype, pv),
            TensorFact::new(q.dtype, qk),
        ],
        None => vec![
            TensorFact::unknown(q.dtype),
            TensorFact::unknown(k.dtype),
            TensorFact::unknown(v.dtype),
            TensorFact::unknown(q.dtype),
        ],
    };
    out.truncate(node.outputs.len().max(1));
    Ok(out)
}

/// `ai.onnx.preview` `FlexAttention` (1): rank-4 `Q`, `K`, `V`; `Y [B, Hq, L, Ev]`.
fn flex_attention(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let q = ctx.input(node, 0, "Q")?;
    let k = ctx.input(node, 1, "K")?;
    let v = ctx.input(node, 2, "V")?;
    for (f, what) in [(&q, "Q"), (&k, "K"), (&v, "V")] {
        if let Some(s) = &f.shape {
            expect_rank(what, s, 4)?;
        }
    }
    let (Some(qs), Some(ks), Some(vs)) = (&q.shape, &k.shape, &v.shape) else {
        return Ok(vec![TensorFact::unknown(q.dtype)]);
    };
    let [y, ..] = attention_shapes(ctx, node, qs, ks, vs, None, None, None)?;
    Ok(vec![TensorFact::new(q.dtype, y)])
}

/// ONNX `RotaryEmbedding` (23): the input's shape.
fn rotary_embedding(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 4)?;
    let x = ctx.input(node, 0, "X")?;
    let num_heads = heads(node, "num_heads")?;
    for (i, what) in [(1, "cos_cache"), (2, "sin_cache")] {
        if let Some(s) = ctx.input(node, i, what)?.shape {
            if !(2..=3).contains(&s.len()) {
                return Err(rank_error(what, "2 or 3", s.len()));
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
        _ => return Err(rank_error("X", "3 or 4", xs.len())),
    };
    if let Some(p) = ctx.optional_input(node, 3)? {
        if let Some(ps) = &p.shape {
            expect_rank("position_ids", ps, 2)?;
            unify(ctx, node, "batch of X and position_ids", ps[0], b)?;
            unify(ctx, node, "sequence of X and position_ids", ps[1], l)?;
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
            return Err(rank_error(
                "scale",
                format!("at most {} (the normalised dims)", normalised.len()),
                ss.len(),
            ));
        }
        let off = normalised.len() - ss.len();
        for (i, &d) in ss.iter().enumerate() {
            let target = normalised[off + i];
            if ctx.alg.as_i64(d) != Some(1) {
                unify(
                    ctx,
                    node,
                    &format!("axis {} of scale and X", off + i),
                    d,
                    target,
                )?;
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
    let mode = super::nn_util::attr_str_or(node, "mode", "linear")?;
    if !matches!(mode, "linear" | "circular") {
        return Err(OpError::BadAttribute {
            name: "mode",
            value: mode.to_string(),
            why: "expected linear or circular".to_string(),
        });
    }
    let Some(ps) = &past.shape else {
        return Ok(vec![shaped(past.dtype, None)]);
    };
    let axis = norm_axis(attr_int(node, "axis", -2)?, ps.len())?;
    if axis == 0 {
        return Err(OpError::BadAttribute {
            name: "axis",
            value: attr_int(node, "axis", -2)?.to_string(),
            why: "the sequence axis cannot be the batch axis 0".to_string(),
        });
    }
    if let Some(us) = &update.shape {
        if us.len() != ps.len() {
            return Err(rank_error("update", ps.len(), us.len()));
        }
        for (i, (&u, &p)) in us.iter().zip(ps).enumerate() {
            if i == axis {
                if ctx.alg.le(u, p) == Truth::False {
                    return Err(OpError::BadShapeValue {
                        what: format!(
                            "update's sequence length {} exceeds the cache's {}",
                            ctx.alg.render(u),
                            ctx.alg.render(p)
                        ),
                    });
                }
            } else {
                unify(
                    ctx,
                    node,
                    &format!("axis {i} of update and past_cache"),
                    u,
                    p,
                )?;
            }
        }
    }
    if let Some(w) = ctx.optional_input(node, 2)? {
        if let Some(ws) = &w.shape {
            expect_rank("write_indices", ws, 1)?;
            unify(
                ctx,
                node,
                "batch of write_indices and past_cache",
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
                return Err(rank_error("B", x.len(), y.len()));
            }
            let mut out = Vec::with_capacity(x.len());
            for (i, (&p, &q)) in x.iter().zip(y).enumerate() {
                out.push(unify(ctx, node, &format!("axis {i} of A and B"), p, q)?);
            }
            Some(out)
        }
        (Some(x), None) | (None, Some(x)) => Some(x.clone()),
        (None, None) => None,
    };
    Ok(vec![shaped(a.dtype, shape)])
}

/// ONNX `LinearAttention` (27).
fn linear_attention(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 6)?;
    let q = ctx.input(node, 0, "query")?;
    let k = ctx.input(node, 1, "key")?;
    let v = ctx.input(node, 2, "value")?;
    let hq = heads(node, "q_num_heads")?.ok_or(OpError::MissingAttribute {
        name: "q_num_heads",
    })?;
    let hkv = heads(node, "kv_num_heads")?.ok_or(OpError::MissingAttribute {
        name: "kv_num_heads",
    })?;
    if hq % hkv != 0 {
        return Err(OpError::BadAttribute {
            name: "q_num_heads",
            value: hq.to_string(),
            why: format!("not a multiple of kv_num_heads {hkv}"),
        });
    }
    let rule = super::nn_util::attr_str_or(node, "update_rule", "gated_delta")?;
    if !matches!(rule, "linear" | "gated" | "delta" | "gated_delta") {
        return Err(OpError::BadAttribute {
            name: "update_rule",
            value: rule.to_string(),
            why: "expected linear, gated, delta or gated_delta".to_string(),
        });
    }
    let past = ctx.optional_input(node, 3)?;
    let state_dtype = past.as_ref().map_or(q.dtype, |p| p.dtype);
    let (Some(qs), Some(ks), Some(vs)) = (&q.shape, &k.shape, &v.shape) else {
        return Ok(vec![
            TensorFact::unknown(q.dtype),
            TensorFact::unknown(state_dtype),
        ]);
    };
    for (s, what) in [(qs, "query"), (ks, "key"), (vs, "value")] {
        expect_rank(what, s, 3)?;
    }
    let b = unify(ctx, node, "batch of query and key", qs[0], ks[0])?;
    let b = unify(ctx, node, "batch of query and value", b, vs[0])?;
    let t = unify(ctx, node, "sequence of query and key", qs[1], ks[1])?;
    let t = unify(ctx, node, "sequence of query and value", t, vs[1])?;
    let dk = per_head(ctx, node, qs[2], hq)?;
    let kdk = per_head(ctx, node, ks[2], hkv)?;
    let dk = unify(ctx, node, "head size of query and key", dk, kdk)?;
    let dv = per_head(ctx, node, vs[2], hkv)?;
    let hkv_d = ctx.alg.constant(hkv);
    let state = vec![b, hkv_d, dk, dv];
    if let Some(ps) = past.as_ref().and_then(|p| p.shape.as_ref()) {
        expect_rank("past_state", ps, 4)?;
        for (i, (&p, &s)) in ps.iter().zip(&state).enumerate() {
            unify(ctx, node, &format!("axis {i} of past_state"), p, s)?;
        }
    }
    let hq_d = ctx.alg.constant(hq);
    let hidden = ctx.alg.mul(hq_d, dv);
    Ok(vec![
        TensorFact::new(q.dtype, vec![b, t, hidden]),
        TensorFact::new(state_dtype, state),
    ])
}

/// ONNX `CausalConvWithState` (27).
fn causal_conv_with_state(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 4)?;
    let x = ctx.input(node, 0, "input")?;
    let w = ctx.input(node, 1, "weight")?;
    let act = super::nn_util::attr_str_or(node, "activation", "none")?;
    if !matches!(act, "none" | "silu" | "swish") {
        return Err(OpError::BadAttribute {
            name: "activation",
            value: act.to_string(),
            why: "expected silu, swish or none".to_string(),
        });
    }
    if let Some(xs) = &x.shape {
        expect_rank("input", xs, 3)?;
    }
    let k = match &w.shape {
        Some(ws) => {
            expect_rank("weight", ws, 3)?;
            let one = ctx.alg.constant(1);
            unify(ctx, node, "axis 1 of weight (depthwise)", ws[1], one)?;
            if let Some(xs) = &x.shape {
                unify(ctx, node, "channels of input and weight", xs[1], ws[0])?;
            }
            Some(ws[2])
        }
        None => None,
    };
    if let (Some(b), Some(xs)) = (ctx.optional_input(node, 2)?, &x.shape) {
        if let Some(bs) = &b.shape {
            expect_rank("bias", bs, 1)?;
            unify(ctx, node, "channels of input and bias", xs[1], bs[0])?;
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
            unify(ctx, node, &format!("axis {i} of past_state"), p, s)?;
        }
    }
    Ok(vec![
        TensorFact::new(x.dtype, xs),
        TensorFact::new(x.dtype, state),
    ])
}
