//! Attention: ONNX `Attention`, `LinearAttention` and `ai.onnx.preview`
//! `FlexAttention`; OpenVINO `ScaledDotProductAttention`.
//!
//! Specs: the ONNX operator reference (`Attention`, `LinearAttention`,
//! `FlexAttention`) and the OpenVINO operation specification
//! (`ScaledDotProductAttention-13`), which follows
//! `torch.nn.functional.scaled_dot_product_attention`: `softmax(query @ key^T *
//! scale + bias) @ value`.
//!
//! ONNX:
//!
//! * `Attention` ([`attention_shapes`]): `Q` is `[B, Hq, L, E]`, or 3-D
//!   `[B, L, Hq*E]` with `q_num_heads` = `Hq`; `K` is `[B, Hkv, S, E]` or
//!   `[B, S, Hkv*E]`, `V` `[B, Hkv, S, Ev]` or `[B, S, Hkv*Ev]` (3-D ones need
//!   `kv_num_heads`). With `past_key [B, Hkv, P, E]` and `past_value [B, Hkv, P,
//!   Ev]` the total length is `T = P + S`, else `S`. Outputs: `Y [B, Hq, L, Ev]`
//!   (3-D `Q`: `[B, L, Hq*Ev]`), `present_key [B, Hkv, T, E]`, `present_value
//!   [B, Hkv, T, Ev]`, `qk_matmul_output [B, Hq, L, T]`. `Hq` must be a multiple of
//!   `Hkv` (grouped query heads, where OpenVINO's [`sdpa_shape`] broadcasts batch
//!   dims); the dims the inputs share are equated. The types are `Q`'s (`V`'s for
//!   `present_value`).
//! * `FlexAttention` (`ai.onnx.preview` 1): the 4-D case of `Attention`, `Y` only.
//! * `LinearAttention`: `query [B, T, Hq*Dk]`, `key [B, T, Hkv*Dk]`, `value [B, T,
//!   Hkv*Dv]` give `output [B, T, Hq*Dv]` and `present_state [B, Hkv, Dk, Dv]`
//!   (`q_num_heads`, `kv_num_heads` required).
//!
//! OpenVINO:
//!
//! `query [N..., L, E]`, `key [N..., S, E]` and `value [N..., S, Ev]` have rank 3
//! or more; their batch dims `N...` broadcast (numpy) and so do the pairs that must
//! match (`E` of query and key, `S` of key and value). The optional
//! `attention_mask` (input 3, ignored when `causal`) is a scalar, or of rank 2 or
//! more `[N..., L or 1, S]`: its `L` and `S` broadcast with the others and its batch
//! dims with `N...`. The optional `scale` (input 4) has one element. The output is
//! `[N..., L, Ev]` of the query's type ([`sdpa_shape`]).
//!
//! # Version history
//! * ONNX **Attention**: 23; 24 (`nonpad_kv_seqlen` input); 25
//!   (`left_window_size`, `right_window_size`). The shapes are the same.
//!   **LinearAttention**: 27.
//! * `ai.onnx.preview` **FlexAttention**: 1.
//! * OpenVINO **ScaledDotProductAttention**: 13.
//!
//! Cost: `(vol(Q) + vol(Y)) × T` MACs ([`COSTS`]).

use crate::algebra::{Algebra, Dim};
use crate::context::DimRole;
use crate::context::{AttrProblem, AttrValue, ShapeValueProblem};
use crate::context::{Expected, OpError, ShapesContext, TensorFact};
use crate::graph::Node;
use crate::ops::common::attrs::attr_int;
use crate::ops::common::attrs::{ov_bool, require_positive};
use crate::ops::common::broadcast::{broadcast_dim, broadcast_shapes};
use crate::ops::common::check_inputs;
use crate::ops::common::dims::{expect_rank, rank_of, shaped, unify_as};
use crate::ops::cost::{contraction, input_dims, output_dims, output_volume, times, Costs, OpCost};
use crate::ops::tensor::split::split_equal;
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["Attention"], attention),
    ("", ["LinearAttention"], linear_attention),
    ("ai.onnx.preview", ["FlexAttention"], flex_attention),
    ("openvino", ["ScaledDotProductAttention"], ov_scaled_dot_product_attention),
];

/// What attention computes ([`crate::ops::cost`]). With `T` the total key length
/// (`present_key`'s, else the keys' plus `past_key`'s), `Y` the output and `Q`
/// the query, the two products `Q @ K^T` and `P @ V` are
/// - MACs `B × Hq × L × T × E + B × Hq × L × T × Ev` (`E`, `Ev` the head sizes of
///   the keys and values), which is `(vol(Q) + vol(Y)) × T` for ONNX
///   `Attention` in both layouts; OpenVINO `ScaledDotProductAttention` takes the
///   batch dims from `Y` (they broadcast): `(∏ Y[..-1] × E + vol(Y)) × S`;
/// - FLOPs `2 × MACs + 5 × B × Hq × L × T` (the softmax of every score, as
///   `Softmax` counts it; the scaling and the mask are not counted).
///
/// `LinearAttention` and `FlexAttention` are not counted.
pub const COSTS: &[Costs] = &[Costs::by_op(rules![
    ("", ["Attention"], attention_cost),
    ("openvino", ["ScaledDotProductAttention"], sdpa_cost),
])];

/// The cost of attention: `(qk + pv) × t` MACs, where `qk` and `pv` are the
/// products' MACs per key position, and FLOPs `2 × MACs + 5 × rows × t`, `rows`
/// the score rows (`B × Hq × L`).
pub fn attention_cost_of(
    alg: &mut Algebra,
    qk: Option<Dim>,
    pv: Option<Dim>,
    rows: Option<Dim>,
    t: Option<Dim>,
) -> OpCost {
    let (Some(qk), Some(pv), Some(rows), Some(t)) = (qk, pv, rows, t) else {
        return OpCost {
            macs: None,
            flops: None,
        };
    };
    let per = alg.add_dims(qk, pv);
    let macs = alg.mul(per, t);
    let scores = alg.mul(rows, t);
    let softmax = times(alg, 5, scores);
    contraction(alg, Some(macs), Some(softmax))
}

/// The key positions `t` each query attends to: axis 2 of the `present` key
/// (output 1) when it has rank 4, else the key's sequence (axis 1 of a rank-3 key,
/// axis 2 of a rank-4 one) plus axis 2 of the rank-4 past key at input `past`, when
/// there is one.
pub fn total_sequence(
    alg: &mut Algebra,
    ctx: &ShapesContext,
    node: &Node,
    k: Option<&[Dim]>,
    past: usize,
) -> Option<Dim> {
    if let Some(p) = output_dims(ctx, node, 1).filter(|p| p.len() == 4) {
        return Some(p[2]);
    }
    let s = match k {
        Some([_, _, s, _]) | Some([_, s, _]) => *s,
        _ => return None,
    };
    match input_dims(ctx, node, past) {
        Some(p) if p.len() == 4 => Some(alg.add_dims(p[2], s)),
        Some(_) => None,
        None => Some(s),
    }
}

fn attention_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    let q = input_dims(ctx, node, 0);
    let k = input_dims(ctx, node, 1);
    let t = total_sequence(alg, ctx, node, k.as_deref(), 4);
    let qk = q.as_ref().map(|q| alg.product(q));
    let pv = output_volume(alg, ctx, node, 0);
    let rows = match q.as_deref() {
        Some([b, h, l, _]) => Some(alg.product(&[*b, *h, *l])),
        Some([b, l, _]) => attr_int(node, "q_num_heads", 0)
            .ok()
            .filter(|h| *h > 0)
            .map(|h| {
                let h = alg.constant(h);
                alg.product(&[*b, *l, h])
            }),
        _ => None,
    };
    attention_cost_of(alg, qk, pv, rows, t)
}

fn sdpa_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    let e = input_dims(ctx, node, 0).and_then(|q| q.last().copied());
    let s = input_dims(ctx, node, 1).and_then(|k| k.len().checked_sub(2).map(|i| k[i]));
    let y = output_dims(ctx, node, 0).filter(|y| !y.is_empty());
    let rows = y.as_ref().map(|y| alg.product(&y[..y.len() - 1]));
    let qk = rows.zip(e).map(|(r, e)| alg.mul(r, e));
    let pv = y.as_ref().map(|y| alg.product(y));
    attention_cost_of(alg, qk, pv, rows, s)
}

/// Split `shape` (of rank 3 or more, named `what`) into its batch dims and its
/// last two.
fn split_last_two<'s>(
    what: &'static str,
    shape: &'s [Dim],
) -> Result<(&'s [Dim], Dim, Dim), OpError> {
    match shape {
        [batch @ .., a, b] if !batch.is_empty() => Ok((batch, *a, *b)),
        _ => Err(rank_of(what, Expected::AtLeast(3), shape.len())),
    }
}

/// Broadcast two dims that must match, naming them (`dims`) when they cannot.
fn broadcast_named(
    ctx: &mut ShapesContext,
    node: &Node,
    dims: DimRole,
    a: Dim,
    b: Dim,
) -> Result<Dim, OpError> {
    broadcast_dim(ctx, &node.name, 0, a, b).map_err(|e| match e {
        OpError::DimMismatch { left, right, .. } => OpError::DimMismatch {
            dims: Box::new(dims),
            left,
            right,
        },
        other => other,
    })
}

/// The output shape of scaled dot-product attention, `[N..., L, Ev]`, from the
/// shapes of `query`, `key` (`None`: unknown rank), `value` and of the attention
/// mask when it applies.
pub fn sdpa_shape(
    ctx: &mut ShapesContext,
    node: &Node,
    query: &[Dim],
    key: Option<&[Dim]>,
    value: &[Dim],
    mask: Option<&[Dim]>,
) -> Result<Vec<Dim>, OpError> {
    let (batch, mut l, e) = split_last_two("query", query)?;
    let mut n = batch.to_vec();
    let mut s = None;
    if let Some(key) = key {
        let (kb, ks, ke) = split_last_two("key", key)?;
        n = broadcast_shapes(ctx, &node.name, &n, kb)?;
        broadcast_named(ctx, node, DimRole::of("E", ("query", "key")), e, ke)?;
        s = Some(ks);
    }
    let (vb, vs, ev) = split_last_two("value", value)?;
    n = broadcast_shapes(ctx, &node.name, &n, vb)?;
    let s = match s {
        Some(ks) => broadcast_named(ctx, node, DimRole::of("S", ("key", "value")), ks, vs)?,
        None => vs,
    };
    if let Some(mask) = mask.filter(|m| !m.is_empty()) {
        let (mb, ml, ms) = match mask {
            [mb @ .., ml, ms] => (mb, *ml, *ms),
            _ => {
                return Err(rank_of(
                    "attention_mask",
                    Expected::Either(vec![Expected::Exactly(0), Expected::AtLeast(2)]),
                    mask.len(),
                ))
            }
        };
        l = broadcast_named(
            ctx,
            node,
            DimRole::of("L", ("query", "attention_mask")),
            l,
            ml,
        )?;
        broadcast_named(
            ctx,
            node,
            DimRole::of("S", ("key", "attention_mask")),
            s,
            ms,
        )?;
        n = broadcast_shapes(ctx, &node.name, &n, mb)?;
    }
    n.push(l);
    n.push(ev);
    Ok(n)
}

/// OpenVINO ScaledDotProductAttention-13.
fn ov_scaled_dot_product_attention(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 5)?;
    let q = ctx.input(node, 0, "query")?;
    let k = ctx.input(node, 1, "key")?;
    let v = ctx.input(node, 2, "value")?;
    let causal = ov_bool(node, "causal", false)?;
    let mask = match ctx.optional_input(node, 3)? {
        Some(m) if !causal => m.shape,
        _ => None,
    };
    if let Some(scale) = ctx.optional_input(node, 4)? {
        if let Some(s) = &scale.shape {
            let one = s.iter().all(|d| ctx.alg.as_i64(*d) == Some(1));
            if s.len() > 1 || !one && s.iter().all(|d| ctx.alg.as_i64(*d).is_some()) {
                return Err(OpError::BadShapeValue(Box::new(
                    ShapeValueProblem::ScaleShape(ctx.alg.exprs(s)),
                )));
            }
        }
    }
    let Some(qs) = &q.shape else {
        return Ok(vec![TensorFact::unknown(q.dtype)]);
    };
    let Some(vs) = &v.shape else {
        return Ok(vec![TensorFact::unknown(q.dtype)]);
    };
    let out = sdpa_shape(ctx, node, qs, k.shape.as_deref(), vs, mask.as_deref())?;
    Ok(vec![shaped(q.dtype, Some(out))])
}

/// A positive head-count attribute, if present.
pub(super) fn heads(node: &Node, name: &'static str) -> Result<Option<i64>, OpError> {
    match node.attr(name) {
        None => Ok(None),
        Some(_) => {
            let v = attr_int(node, name, 0)?;
            require_positive(name, v)?;
            Ok(Some(v))
        }
    }
}

/// `d / n` where a valid model needs it exact (a head size).
pub(super) fn per_head(
    ctx: &mut ShapesContext,
    node: &Node,
    d: Dim,
    n: i64,
) -> Result<Dim, OpError> {
    Ok(split_equal(ctx, node, d, n)?.0)
}

/// An attention operand as `[B, H, S, E]`: 4-D as is, 3-D `[B, S, H*E]` split by
/// the head count `h` (required then, named by `attr`).
fn as_heads(
    ctx: &mut ShapesContext,
    node: &Node,
    what: &'static str,
    shape: &[Dim],
    h: Option<i64>,
    attr: &'static str,
) -> Result<[Dim; 4], OpError> {
    match shape {
        [b, hh, s, e] => {
            if let Some(h) = h {
                let hd = ctx.alg.constant(h);
                unify_as(ctx, node, DimRole::of("heads", (what, attr)), *hh, hd)?;
            }
            Ok([*b, *hh, *s, *e])
        }
        [b, s, hidden] => {
            let h = h.ok_or(OpError::MissingAttribute { name: attr })?;
            let e = per_head(ctx, node, *hidden, h)?;
            Ok([*b, ctx.alg.constant(h), *s, e])
        }
        _ => Err(rank_of(what, Expected::either(&[3, 4]), shape.len())),
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
    let b = unify_as(ctx, node, DimRole::of("batch", ("Q", "K")), qb, kb)?;
    let b = unify_as(ctx, node, DimRole::of("batch", ("Q", "V")), b, vb)?;
    unify_as(ctx, node, DimRole::of("head size", ("Q", "K")), e, ke)?;
    let hkv = unify_as(ctx, node, DimRole::of("heads", ("K", "V")), hkv, vh)?;
    let s = unify_as(ctx, node, DimRole::of("sequence", ("K", "V")), s, vs)?;
    if let (Some(a), Some(c)) = (ctx.alg.as_i64(hq), ctx.alg.as_i64(hkv)) {
        if c == 0 || a % c != 0 {
            return Err(OpError::BadShapeValue(Box::new(
                ShapeValueProblem::HeadsNotMultiple { q: a, kv: c },
            )));
        }
    }
    let total = match past {
        Some((pk, pv)) => {
            expect_rank("past_key", pk, 4)?;
            expect_rank("past_value", pv, 4)?;
            unify_as(ctx, node, DimRole::of("batch", "past_key"), pk[0], b)?;
            unify_as(ctx, node, DimRole::of("heads", "past_key"), pk[1], hkv)?;
            unify_as(ctx, node, DimRole::of("head size", "past_key"), pk[3], e)?;
            unify_as(ctx, node, DimRole::of("batch", "past_value"), pv[0], b)?;
            unify_as(ctx, node, DimRole::of("heads", "past_value"), pv[1], hkv)?;
            unify_as(ctx, node, DimRole::of("head size", "past_value"), pv[3], ev)?;
            let p = unify_as(
                ctx,
                node,
                DimRole::of("past lengths", ("past_key", "past_value")),
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
            value: AttrValue::Int(mode),
            why: Box::new(AttrProblem::one_of_ints(&[0, 1, 2, 3])),
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
            return Err(rank_of("attn_mask", Expected::AtMost(4), m.len()));
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
            value: AttrValue::Int(hq),
            why: Box::new(AttrProblem::NotMultipleOf {
                of: "kv_num_heads",
                value: hkv,
            }),
        });
    }
    let rule = crate::ops::common::attrs::attr_str_or(node, "update_rule", "gated_delta")?;
    if !matches!(rule, "linear" | "gated" | "delta" | "gated_delta") {
        return Err(OpError::BadAttribute {
            name: "update_rule",
            value: AttrValue::Word(rule.to_string()),
            why: Box::new(AttrProblem::one_of(&[
                "linear",
                "gated",
                "delta",
                "gated_delta",
            ])),
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
    let b = unify_as(
        ctx,
        node,
        DimRole::of("batch", ("query", "key")),
        qs[0],
        ks[0],
    )?;
    let b = unify_as(
        ctx,
        node,
        DimRole::of("batch", ("query", "value")),
        b,
        vs[0],
    )?;
    let t = unify_as(
        ctx,
        node,
        DimRole::of("sequence", ("query", "key")),
        qs[1],
        ks[1],
    )?;
    let t = unify_as(
        ctx,
        node,
        DimRole::of("sequence", ("query", "value")),
        t,
        vs[1],
    )?;
    let dk = per_head(ctx, node, qs[2], hq)?;
    let kdk = per_head(ctx, node, ks[2], hkv)?;
    let dk = unify_as(
        ctx,
        node,
        DimRole::of("head size", ("query", "key")),
        dk,
        kdk,
    )?;
    let dv = per_head(ctx, node, vs[2], hkv)?;
    let hkv_d = ctx.alg.constant(hkv);
    let state = vec![b, hkv_d, dk, dv];
    if let Some(ps) = past.as_ref().and_then(|p| p.shape.as_ref()) {
        expect_rank("past_state", ps, 4)?;
        for (i, (&p, &s)) in ps.iter().zip(&state).enumerate() {
            unify_as(ctx, node, DimRole::axis(i, "past_state"), p, s)?;
        }
    }
    let hq_d = ctx.alg.constant(hq);
    let hidden = ctx.alg.mul(hq_d, dv);
    Ok(vec![
        TensorFact::new(q.dtype, vec![b, t, hidden]),
        TensorFact::new(state_dtype, state),
    ])
}
