//! Attention: OpenVINO `ScaledDotProductAttention`.
//!
//! Spec: the OpenVINO operation specification (`ScaledDotProductAttention-13`),
//! which follows `torch.nn.functional.scaled_dot_product_attention`:
//! `softmax(query @ key^T * scale + bias) @ value`.
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
//! * OpenVINO **ScaledDotProductAttention**: 13.

use super::attrs::ov_bool;
use super::broadcast::{broadcast_dim, broadcast_shapes};
use super::nn_util::{rank_error, shaped};
use super::{check_inputs, RuleEntry};
use crate::algebra::Dim;
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::Node;

/// The rules of this family.
pub const RULES: &[RuleEntry] = &[(
    "openvino",
    "ScaledDotProductAttention",
    ov_scaled_dot_product_attention,
)];

/// Split `shape` (of rank 3 or more, named `what`) into its batch dims and its
/// last two.
fn split_last_two<'s>(what: &str, shape: &'s [Dim]) -> Result<(&'s [Dim], Dim, Dim), OpError> {
    match shape {
        [batch @ .., a, b] if !batch.is_empty() => Ok((batch, *a, *b)),
        _ => Err(rank_error(what, "at least 3", shape.len())),
    }
}

/// Broadcast two dims that must match, naming them (`what`) when they cannot.
fn broadcast_named(
    ctx: &mut ShapesContext,
    node: &Node,
    what: &str,
    a: Dim,
    b: Dim,
) -> Result<Dim, OpError> {
    broadcast_dim(ctx, &node.name, 0, a, b).map_err(|e| match e {
        OpError::DimMismatch { left, right, .. } => OpError::DimMismatch {
            what: what.to_string(),
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
        broadcast_named(ctx, node, "E of query and key", e, ke)?;
        s = Some(ks);
    }
    let (vb, vs, ev) = split_last_two("value", value)?;
    n = broadcast_shapes(ctx, &node.name, &n, vb)?;
    let s = match s {
        Some(ks) => broadcast_named(ctx, node, "S of key and value", ks, vs)?,
        None => vs,
    };
    if let Some(mask) = mask.filter(|m| !m.is_empty()) {
        let (mb, ml, ms) = match mask {
            [mb @ .., ml, ms] => (mb, *ml, *ms),
            _ => return Err(rank_error("attention_mask", "0 or at least 2", mask.len())),
        };
        l = broadcast_named(ctx, node, "L of query and attention_mask", l, ml)?;
        broadcast_named(ctx, node, "S of key and attention_mask", s, ms)?;
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
                return Err(OpError::BadShapeValue {
                    what: format!(
                        "scale must be a scalar or have one element, found shape {}",
                        ctx.render_dims(s)
                    ),
                });
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
