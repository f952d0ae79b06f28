//! onnxruntime's fused transformer ops (domain `com.microsoft`, and the two
//! normalisations onnxruntime registers in the default domain): the activations,
//! layer normalisations, embeddings, attention ops, rotary embedding, position
//! biases, padding removal and mixture of experts that its transformer optimizer
//! (`onnxruntime.transformers.optimizer`) and graph fusions emit.
//!
//! Spec: onnxruntime's `docs/ContribOperators.md` (the op schemas of
//! `onnxruntime/core/graph/contrib_ops/`), checked against onnxruntime 1.32
//! running each op on its CPU provider (`tests/it/ops/contrib.rs`). `B` is the batch,
//! `S` the sequence length, `H` a hidden size, `N` `num_heads`, `h` a head size.
//!
//! - **Activations** (Gelu, QuickGelu, FastGelu, BiasGelu, BiasAdd, BiasSoftmax,
//!   BiasDropout): the shape of input 0. FastGelu's and BiasGelu's bias is 1-D of
//!   the input's last dim; BiasAdd's `X = [B, S, C]` takes a bias `[C]` and a skip
//!   of `X`'s shape; BiasDropout's `mask` is bool. **BiasSplitGelu**
//!   `[N, S, D]` with a bias `[D]` gives `[N, S, D/2]`.
//! - **SkipLayerNormalization**, **SkipSimplifiedLayerNormalization**: `input`
//!   of rank 2 or 3 (onnxruntime rejects others); `skip` of the input's shape, or
//!   `[1, S, H]` / `[S, H]` for a 3-D input; `gamma`, `beta`, `bias` of `[H]`.
//!   Outputs: the input's shape; `mean` and `inv_std_var` (float) the input's
//!   shape with the last dim 1; `input_skip_bias_sum` the input's shape.
//! - **SimplifiedLayerNormalization** (default domain, onnxruntime's RMS norm):
//!   `Y` of `X`'s shape, `inv_std_var` of type `stash_type` (float) with the dims
//!   from `axis` (default -1) on set to 1.
//! - **EmbedLayerNormalization**: `input_ids = [B, S]`, `word_embedding =
//!   [V, H]` give `output = [B, S, H]` (the embedding's type), `mask_index = [B]`
//!   (int32) and `embedding_sum = [B, S, H]`. **QEmbedLayerNormalization**: the
//!   same from quantized embeddings, the output of the scales' type (float).
//! - **GroupNorm**, **SkipGroupNorm**: the input's shape (NHWC when
//!   `channels_last`, the default); `groups` must divide the channels, `gamma`
//!   and `beta` are `[C]`.
//! - **Attention**, **QAttention**, **DecoderMaskedSelfAttention**: `input =
//!   [B, S, H_in]`, `weights = [H_in, H + H + H_v]` (`qkv_hidden_sizes`, else
//!   three equal parts) give `output = [B, S, H_v]` and `present = [2, B, N,
//!   P + S, H/N]` from `past = [2, B, N, P, H/N]` (`P = 0` without past; the past
//!   shape itself with `past_present_share_buffer`). QAttention's output has the
//!   type of its float `bias`.
//! - **MultiHeadAttention**, **DecoderMaskedMultiHeadAttention**: `query = [B,
//!   S, H]` with `key = [B, L, H]` and `value = [B, L, H_v]` give `[B, S, H_v]`;
//!   packed QKV `query = [B, S, N, 3, h]` gives `[B, S, N*h]`; packed KV `key =
//!   [B, L, N, 2, h]` the query's shape; cross attention on cached `key`/`value
//!   = [B, N, L, h]` gives `[B, S, N*h]`. `present_key`/`present_value` are
//!   `[B, N, P + L, h]` (`P` from `past_key = [B, N, P, h]`; the past shape when
//!   the buffer is shared: DecoderMasked's `past_present_share_buffer`,
//!   MultiHeadAttention's `past_sequence_length` input), the cached key/value
//!   themselves in cross attention; `qk` is `[B, N, S, P + L]`.
//!   DecoderMaskedMultiHeadAttention's packed QKV `[B, 1, 3H]` gives `[B, 1, H]`.
//! - **GroupQueryAttention**, **SparseAttention**, **DynamicSparseAttention**:
//!   `query = [B, S, D]` gives the query's shape with separate key and value, and
//!   `[B, S, N*h]` for packed QKV with `h = D / (N + 2*kv_num_heads)`.
//!   SparseAttention's and DynamicSparseAttention's presents are their pasts
//!   (shared buffers), as are GroupQueryAttention's with `sliding_window_cache`;
//!   otherwise GroupQueryAttention's are `[B, kv_num_heads, max(T, P), h]` with
//!   `T` the value of `total_sequence_length` (a fresh dim when unknown) and `P`
//!   the past length; without past they are `[B, kv_num_heads, T, h]`.
//!   GroupQueryAttention's `output_qk` is `[B, N, S, T]`.
//! - **PackedAttention** `[T, H_in]` gives `[T, H_v]`; **PackedMultiHeadAttention**
//!   `[T, H]` with `value = [T, H_v]` gives `[T, H_v]`, packed `[T, N, 3, h]` gives
//!   `[T, N*h]`. **LongformerAttention**, **RotaryEmbedding**, **MoE**, **QMoE**:
//!   the shape of input 0.
//! - **PagedAttention**, **SparsePagedAttention**: `query = [T, D]` gives `[T, D]` with separate key and
//!   value, `[T, N*h]` for packed QKV (`h = D / (N + 2*kv_num_heads)`), and `[T,
//!   N*v_head_size]` for the `LATENT` cache layout (`h = D / N`, `v_head_size`
//!   defaulting to `h`); the cache outputs alias the cache inputs.
//! - **HyperConnectionPreMix**: grouped streams `[..., C, H]` give `[..., H]`;
//!   flattened `[..., C*H]` (with `num_branches = C`) give `[..., H]`.
//!   **HyperConnectionLowRankMix** (flattened, `num_branches` required): the
//!   PreMix output, `post_gate = [..., C]` and `streams_out` of the streams' shape.
//!   **HyperConnectionPostMix**, **ScaledSiLU**, **BranchwiseRMSNorm**: the shape
//!   of input 0.
//! - **RelativePositionBias**: `bias_table = [buckets, N]` and the scalar values
//!   `query_length`, `key_length` give `[1, N, query_length, key_length]`.
//!   **GatedRelativePositionBias**: `[B, num_heads, S, S]` from `query_layer =
//!   [B, S, H]`, or from `token_offset = [B, S]` when padding was removed.
//! - **RemovePadding** `[B, S, H]` gives `[token_count, H]` (`token_count`
//!   data-dependent), `token_offset = [B, S]`, `cumulated_seq_len = [B + 1]` and
//!   `max_seq_len = [1]` (int32). **RestorePadding** `[T, H]` with `token_offset =
//!   [B, S]` gives `[B, S, H]`.
//!
//! Head sizes are exact divisions: provably not divisible is an error, undecided
//! is recorded as a relation of the model ([`split_equal`]).
//!
//! Version history: every `com.microsoft` op here is at version 1, the only one
//! (the node's version is the model's `com.microsoft` opset). The default-domain
//! SimplifiedLayerNormalization is onnxruntime's version 1 (its LayerNormalization
//! v1 for opsets before 17 has the shape rule of ONNX's LayerNormalization-17, in
//! `norm.rs`). Inputs were added over onnxruntime releases at the end of each
//! op's list (for example GroupQueryAttention's `position_ids`, `attention_bias`,
//! `head_sink`), so older models read the same way.

use crate::algebra::{Algebra, Dim, Truth};
use crate::context::DimRole;
use crate::context::Subject;
use crate::context::{AttrProblem, AttrValue, ShapeValueProblem};
use crate::context::{Expected, OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};
use crate::ops::common::attrs::require_positive;
use crate::ops::common::attrs::{attr_int, attr_int_required, attr_ints};
use crate::ops::common::dims::{check_vector, expect_rank, rank_of, shaped, unify_as, Equate};
use crate::ops::common::{check_inputs, norm_axis};
use crate::ops::cost::{contraction, elementwise, input_dims, output_dims, output_volume};
use crate::ops::cost::{per_output_element, Costs, OpCost};
use crate::ops::nn::norm::layer_norm_stats;
use crate::ops::tensor::split::split_equal;
use crate::ops::{rules, RuleEntry};

/// onnxruntime's contrib domain.
pub const MS: &str = "com.microsoft";

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    (MS, [
        "Gelu", "QuickGelu", "BiasSoftmax", "LongformerAttention", "RotaryEmbedding", "MoE",
        "QMoE", "ScaledSiLU", "BranchwiseRMSNorm", "HyperConnectionPostMix",
    ], same_as_input),
    (MS, ["FastGelu", "BiasGelu"], bias_activation),
    (MS, ["BiasAdd"], bias_add),
    (MS, ["BiasSplitGelu"], bias_split_gelu),
    (MS, ["BiasDropout"], bias_dropout),
    ("", ["SimplifiedLayerNormalization"], simplified_layer_norm),
    (MS, ["SkipLayerNormalization", "SkipSimplifiedLayerNormalization"], skip_layer_norm),
    (MS, ["EmbedLayerNormalization", "QEmbedLayerNormalization"], embed_layer_norm),
    (MS, ["GroupNorm", "SkipGroupNorm"], group_norm),
    (MS, ["Attention", "QAttention", "DecoderMaskedSelfAttention"], attention),
    (MS, ["MultiHeadAttention", "DecoderMaskedMultiHeadAttention"], multi_head_attention),
    (MS, [
        "GroupQueryAttention", "SparseAttention", "DynamicSparseAttention",
    ], group_query_attention),
    (MS, ["PackedAttention"], packed_attention),
    (MS, ["PackedMultiHeadAttention"], packed_multi_head_attention),
    (MS, ["RelativePositionBias"], relative_position_bias),
    (MS, ["GatedRelativePositionBias"], gated_relative_position_bias),
    (MS, ["RemovePadding"], remove_padding),
    (MS, ["RestorePadding"], restore_padding),
    (MS, ["PagedAttention", "SparsePagedAttention"], paged_attention),
    (MS, ["HyperConnectionPreMix", "HyperConnectionLowRankMix"], hyper_connection_mix),
];

/// What these ops compute ([`crate::ops::cost`]). The attention ops count as
/// [`crate::ops::attention::standard::COSTS`] says (`T` the total key length,
/// read from `present`/`present_key` when the node has it):
/// - **Attention**, **QAttention**, **DecoderMaskedSelfAttention** (`input [B, S,
///   hidden_in]`, `weights [hidden_in, qkv]`): the projection `vol(input) ×
///   weights[1]` MACs, plus `(B × S × Dq + vol(Y)) × T` (`Dq` the first of
///   `qkv_hidden_sizes`, else `Y`'s hidden size); `T` is `present[3]`, else `S`
///   plus `past[3]`;
/// - **MultiHeadAttention** (3-D `query` with `key`): `(vol(query) + vol(Y)) ×
///   T`, `T` from `present_key[2]`, else `key`'s length plus `past_key[2]`;
/// - **GroupQueryAttention**: `2 × vol(Y) × T` (query and value heads of one
///   size), `T` = `present_key[2]`: the present buffer, which bounds the keys
///   used when past and present share one buffer;
/// - FLOPs `2 × MACs + 5 × B × num_heads × S × T` (the softmax).
///
/// The others: one FLOP per output element for the activations (Gelu,
/// QuickGelu, ScaledSiLU), two for a bias and an activation (FastGelu, BiasGelu,
/// BiasSplitGelu), one for BiasAdd and BiasDropout; BiasSoftmax 5 per element;
/// RotaryEmbedding 3 per element (two products and a sum); the normalisations
/// per element of input 0 as [`crate::ops::nn::norm::COSTS`]: SimplifiedLayer-
/// Normalization 4, SkipSimplifiedLayerNormalization 5 and
/// SkipLayerNormalization 8 (the skip's add, 1), GroupNorm 7, SkipGroupNorm 8,
/// EmbedLayerNormalization 9 per output element (two adds, then 7). The rest
/// (sparse, packed and paged attention, MoE, position biases) are not counted.
pub const COSTS: &[Costs] = &[Costs::by_op(rules![
    (
        MS,
        ["Attention", "QAttention", "DecoderMaskedSelfAttention"],
        ms_attention_cost
    ),
    (MS, ["MultiHeadAttention"], mha_cost),
    (MS, ["GroupQueryAttention"], gqa_cost),
    (
        MS,
        ["Gelu", "QuickGelu", "ScaledSiLU", "BiasAdd", "BiasDropout"],
        elementwise
    ),
    (
        MS,
        ["FastGelu", "BiasGelu", "BiasSplitGelu"],
        two_per_output
    ),
    (MS, ["BiasSoftmax"], crate::ops::nn::norm::five_per_element),
    (
        MS,
        ["RotaryEmbedding"],
        crate::ops::nn::norm::three_per_element
    ),
    (
        "",
        ["SimplifiedLayerNormalization"],
        crate::ops::nn::norm::four_per_element
    ),
    (
        MS,
        ["SkipSimplifiedLayerNormalization"],
        crate::ops::nn::norm::five_per_element
    ),
    (
        MS,
        ["SkipLayerNormalization", "SkipGroupNorm"],
        eight_per_element
    ),
    (MS, ["GroupNorm"], crate::ops::nn::norm::seven_per_element),
    (MS, ["EmbedLayerNormalization"], nine_per_output),
])];

fn two_per_output(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    per_output_element(alg, ctx, node, 2)
}

fn eight_per_element(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    crate::ops::cost::per_input_element(alg, ctx, node, 8)
}

fn nine_per_output(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    per_output_element(alg, ctx, node, 9)
}

/// The score rows `B × S × num_heads` of a `[B, S, ...]` tensor.
fn score_rows(alg: &mut Algebra, node: &Node, x: Option<&[Dim]>) -> Option<Dim> {
    let heads = attr_int(node, "num_heads", 0).ok().filter(|h| *h > 0)?;
    match x {
        Some([b, s, ..]) => {
            let h = alg.constant(heads);
            Some(alg.product(&[*b, *s, h]))
        }
        _ => None,
    }
}

fn ms_attention_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    let x = input_dims(ctx, node, 0).filter(|x| x.len() == 3);
    let w = input_dims(ctx, node, 1).filter(|w| w.len() == 2);
    let y = output_dims(ctx, node, 0).filter(|y| y.len() == 3);
    let (Some(x), Some(w), Some(y)) = (x, w, y) else {
        return OpCost {
            macs: None,
            flops: None,
        };
    };
    let t = output_dims(ctx, node, 1)
        .filter(|p| p.len() == 5)
        .map(|p| p[3])
        .or_else(|| match input_dims(ctx, node, 4) {
            Some(p) if p.len() == 5 => Some(alg.add_dims(x[1], p[3])),
            Some(_) => None,
            None => Some(x[1]),
        });
    let dq = match attr_ints(node, "qkv_hidden_sizes").ok().flatten() {
        Some([q, ..]) if *q > 0 => alg.constant(*q),
        _ => y[2],
    };
    let qk = Some(alg.product(&[x[0], x[1], dq]));
    let pv = Some(alg.product(&y));
    let rows = score_rows(alg, node, Some(&x));
    let core = crate::ops::attention::standard::attention_cost_of(alg, qk, pv, rows, t);
    let vx = alg.product(&x);
    let projection = alg.mul(vx, w[1]);
    let proj = contraction(alg, Some(projection), None);
    sum_costs(alg, core, proj)
}

/// The sum of two costs (unknown when either is).
fn sum_costs(alg: &mut Algebra, a: OpCost, b: OpCost) -> OpCost {
    let mut add = |x: Option<Dim>, y: Option<Dim>| x.zip(y).map(|(x, y)| alg.add_dims(x, y));
    OpCost {
        macs: add(a.macs, b.macs),
        flops: add(a.flops, b.flops),
    }
}

fn mha_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    let q = input_dims(ctx, node, 0).filter(|q| q.len() == 3);
    let k = input_dims(ctx, node, 1);
    let t = crate::ops::attention::standard::total_sequence(alg, ctx, node, k.as_deref(), 6);
    let qk = q.as_ref().filter(|_| k.is_some()).map(|q| alg.product(q));
    let pv = output_volume(alg, ctx, node, 0);
    let rows = score_rows(alg, node, q.as_deref());
    crate::ops::attention::standard::attention_cost_of(alg, qk, pv, rows, t)
}

fn gqa_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    let y = output_dims(ctx, node, 0).filter(|y| y.len() == 3);
    let t = output_dims(ctx, node, 1)
        .filter(|p| p.len() == 4)
        .map(|p| p[2]);
    let pv = y.as_ref().map(|y| alg.product(y));
    let rows = score_rows(alg, node, y.as_deref());
    crate::ops::attention::standard::attention_cost_of(alg, pv, pv, rows, t)
}

// ----- helpers ------------------------------------------------------------------------

/// `x`'s shape and type without its contents.
fn like(x: &TensorFact) -> TensorFact {
    TensorFact {
        fill: None,
        dtype: x.dtype,
        shape: x.shape.clone(),
        value: None,
    }
}

/// `x`'s shape with another type.
fn like_as(x: &TensorFact, dtype: DType) -> TensorFact {
    TensorFact {
        fill: None,
        dtype,
        shape: x.shape.clone(),
        value: None,
    }
}

/// The shape of an optional input, when present and of known rank.
fn optional_shape(
    ctx: &ShapesContext,
    node: &Node,
    index: usize,
) -> Result<Option<Vec<Dim>>, OpError> {
    Ok(ctx.optional_input(node, index)?.and_then(|f| f.shape))
}

/// A required positive integer attribute (`num_heads`, `groups`, ...).
fn positive_attr(node: &Node, name: &'static str) -> Result<i64, OpError> {
    require_positive(name, attr_int_required(node, name)?)
}

/// `d / n` where a valid model needs it exact (a head size, half a bias).
fn exact_div(ctx: &mut ShapesContext, node: &Node, d: Dim, n: i64) -> Result<Dim, OpError> {
    Ok(split_equal(ctx, node, d, n)?.0)
}

/// A shape of known rank `rank` (an error naming `what` otherwise); `None` when
/// the rank is unknown.
fn ranked(f: &TensorFact, what: &'static str, rank: usize) -> Result<Option<Vec<Dim>>, OpError> {
    match &f.shape {
        None => Ok(None),
        Some(s) => {
            expect_rank(what, s, rank)?;
            Ok(Some(s.clone()))
        }
    }
}

/// The first element of a scalar (or one-element) integer input's contents.
fn scalar_input(ctx: &ShapesContext, node: &Node, index: usize) -> Result<Option<Dim>, OpError> {
    Ok(ctx
        .optional_input(node, index)?
        .and_then(|f| crate::ops::common::values::scalar_value(&f)))
}

// ----- activations --------------------------------------------------------------------

/// The shape and type of input 0 (Gelu, QuickGelu, RotaryEmbedding, MoE, ...).
fn same_as_input(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let x = ctx.input(node, 0, "input")?;
    Ok(vec![like(&x)])
}

/// FastGelu (`X`, optional `bias`) and BiasGelu (`A`, `B`): the bias is `[H]`, `H`
/// the input's last dim.
fn bias_activation(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let fast = node.op_type == "FastGelu";
    check_inputs(node, if fast { 1 } else { 2 }, 2)?;
    let x = ctx.input(node, 0, "input")?;
    if let (Some(xs), Some(bias)) = (&x.shape, ctx.optional_input(node, 1)?) {
        let Some(h) = xs.last() else {
            return Err(rank_of("input", Expected::AtLeast(1), 0));
        };
        check_vector(ctx, node, &bias, "bias", *h, Equate::Warn)?;
    }
    Ok(vec![like(&x)])
}

/// BiasAdd: `X = [B, S, C]`, `bias = [C]`, `skip` of `X`'s shape.
fn bias_add(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let x = ctx.input(node, 0, "X")?;
    let bias = ctx.input(node, 1, "bias")?;
    let skip = ctx.input(node, 2, "skip")?;
    if let Some(xs) = ranked(&x, "input X", 3)? {
        check_vector(ctx, node, &bias, "bias", xs[2], Equate::Warn)?;
        if let Some(ss) = ranked(&skip, "skip", 3)? {
            for (a, (d, s)) in xs.iter().zip(&ss).enumerate() {
                unify_as(ctx, node, DimRole::axis(a, ("X", "skip")), *d, *s)?;
            }
        }
    }
    Ok(vec![like(&x)])
}

/// BiasSplitGelu: `[N, S, D]` and `bias = [D]` give `[N, S, D/2]`.
fn bias_split_gelu(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "X")?;
    let bias = ctx.input(node, 1, "bias")?;
    let Some(xs) = ranked(&x, "input X", 3)? else {
        return Ok(vec![like(&x)]);
    };
    check_vector(ctx, node, &bias, "bias", xs[2], Equate::Warn)?;
    let half = exact_div(ctx, node, xs[2], 2)?;
    Ok(vec![TensorFact::new(x.dtype, vec![xs[0], xs[1], half])])
}

/// BiasDropout: the output and the (bool) mask have the data's shape.
fn bias_dropout(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 5)?;
    let x = ctx.input(node, 0, "data")?;
    Ok(vec![like(&x), like_as(&x, DType::Bool)])
}

// ----- normalisations -----------------------------------------------------------------

/// onnxruntime's SimplifiedLayerNormalization (default domain): `Y` like `X`,
/// `inv_std_var` the dims before `axis` then ones, of `stash_type`.
fn simplified_layer_norm(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "X")?;
    let stash = crate::ops::common::attrs::attr_dtype(node, "stash_type", DType::Float)?;
    let Some(xs) = x.shape.clone() else {
        return Ok(vec![like(&x), TensorFact::unknown(stash)]);
    };
    let axis = norm_axis(attr_int(node, "axis", -1)?, xs.len())?;
    let stat = layer_norm_stats(ctx, &xs, axis, true);
    Ok(vec![like(&x), TensorFact::new(stash, stat)])
}

/// SkipLayerNormalization and SkipSimplifiedLayerNormalization (see the module
/// doc).
fn skip_layer_norm(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let simplified = node.op_type.starts_with("SkipSimplified");
    check_inputs(node, 3, if simplified { 4 } else { 5 })?;
    let x = ctx.input(node, 0, "input")?;
    let skip = ctx.input(node, 1, "skip")?;
    let Some(xs) = x.shape.clone() else {
        return Ok(vec![
            like(&x),
            TensorFact::unknown(DType::Float),
            TensorFact::unknown(DType::Float),
            like(&x),
        ]);
    };
    if !(2..=3).contains(&xs.len()) {
        return Err(rank_of("input", Expected::either(&[2, 3]), xs.len()));
    }
    let h = xs[xs.len() - 1];
    let vectors: &[(usize, &str)] = if simplified {
        &[(2, "gamma"), (3, "bias")]
    } else {
        &[(2, "gamma"), (3, "beta"), (4, "bias")]
    };
    for &(i, what) in vectors {
        if let Some(v) = ctx.optional_input(node, i)? {
            check_vector(ctx, node, &v, what, h, Equate::Warn)?;
        }
    }
    if let Some(ss) = &skip.shape {
        // The input's shape, or (3-D input) [1, S, H] or [S, H].
        let ok_rank = ss.len() == xs.len() || (xs.len() == 3 && ss.len() == 2);
        if !ok_rank {
            return Err(rank_of(
                "skip",
                Expected::Exactly(xs.len()).noted("or 2 for a 3-D input"),
                ss.len(),
            ));
        }
        let off = xs.len() - ss.len();
        let one = ctx.alg.constant(1);
        for (i, s) in ss.iter().enumerate() {
            let a = off + i;
            if a == 0 && xs.len() == 3 && ctx.alg.equal(*s, one) == Truth::True {
                continue;
            }
            unify_as(ctx, node, DimRole::axis(a, ("input", "skip")), xs[a], *s)?;
        }
    }
    let one = ctx.alg.constant(1);
    let mut stat = xs.clone();
    *stat.last_mut().expect("rank 2 or 3") = one;
    Ok(vec![
        like(&x),
        TensorFact::new(DType::Float, stat.clone()),
        TensorFact::new(DType::Float, stat),
        like(&x),
    ])
}

/// EmbedLayerNormalization and QEmbedLayerNormalization (see the module doc).
fn embed_layer_norm(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let quantized = node.op_type.starts_with('Q');
    if quantized {
        check_inputs(node, 18, 18)?;
    } else {
        check_inputs(node, 7, 9)?;
    }
    let ids = ctx.input(node, 0, "input_ids")?;
    let word = ctx.input(node, 2, "word_embedding")?;
    let dtype = if quantized {
        ctx.input(node, 8, "word_embedding_scale")?.dtype
    } else {
        word.dtype
    };
    let ids = ranked(&ids, "input_ids", 2)?;
    let word = ranked(&word, "word_embedding", 2)?;
    let h = match &word {
        Some(w) => Some(w[1]),
        None => optional_shape(ctx, node, 3)?.and_then(|p| p.get(1).copied()),
    };
    if let Some(h) = h {
        for (i, what) in [(3, "position_embedding"), (4, "segment_embedding")] {
            if let Some(s) = optional_shape(ctx, node, i)? {
                expect_rank(what, &s, 2)?;
                unify_as(ctx, node, DimRole::of("hidden size", what), s[1], h)?;
            }
        }
        for (i, what) in [(5, "gamma"), (6, "beta")] {
            let v = ctx.input(node, i, what)?;
            check_vector(ctx, node, &v, what, h, Equate::Warn)?;
        }
    }
    let Some(ids) = ids else {
        return Ok(vec![
            TensorFact::unknown(dtype),
            TensorFact::unknown(DType::Int32),
            TensorFact::unknown(dtype),
        ]);
    };
    let h = match h {
        Some(h) => h,
        None => ctx.unknown_dim(node, 0, 2),
    };
    let out = vec![ids[0], ids[1], h];
    Ok(vec![
        TensorFact::new(dtype, out.clone()),
        TensorFact::new(DType::Int32, vec![ids[0]]),
        TensorFact::new(dtype, out),
    ])
}

/// GroupNorm and SkipGroupNorm: the input's shape; `groups` divides `C`, `gamma`
/// and `beta` are `[C]`, SkipGroupNorm's `skip` has the input's shape (or `[N,
/// C]`/`[N, 1, 1, C]`, not checked).
fn group_norm(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let skip = node.op_type.starts_with("Skip");
    if skip {
        check_inputs(node, 4, 5)?;
    } else {
        check_inputs(node, 3, 3)?;
    }
    let x = ctx.input(node, 0, "X")?;
    let groups = positive_attr(node, "groups")?;
    if let Some(xs) = &x.shape {
        if xs.len() < 3 {
            return Err(rank_of("input X", Expected::AtLeast(3), xs.len()));
        }
        let c = if attr_int(node, "channels_last", 1)? != 0 {
            xs[xs.len() - 1]
        } else {
            xs[1]
        };
        let g = ctx.alg.constant(groups);
        if ctx.alg.divides(g, c) == Truth::False {
            return Err(OpError::BadShapeValue(Box::new(
                ShapeValueProblem::ChannelsNotMultiple {
                    channels: ctx.alg.expr(c),
                    of: "groups",
                    groups,
                },
            )));
        }
        for (i, what) in [(1, "gamma"), (2, "beta")] {
            let v = ctx.input(node, i, what)?;
            check_vector(ctx, node, &v, what, c, Equate::Warn)?;
        }
    }
    Ok(vec![like(&x), like(&x)])
}

// ----- attention ----------------------------------------------------------------------

/// Attention, QAttention and DecoderMaskedSelfAttention (see the module doc).
fn attention(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let (past_index, max_inputs, bias_required) = match node.op_type.as_str() {
        "QAttention" => (8, 9, true),
        "DecoderMaskedSelfAttention" => (4, 9, true),
        _ => (4, 7, false),
    };
    check_inputs(node, if bias_required { 3 } else { 2 }, max_inputs)?;
    let n = positive_attr(node, "num_heads")?;
    let x = ctx.input(node, 0, "input")?;
    let w = ctx.input(node, 1, "weights")?;
    let bias = if bias_required {
        Some(ctx.input(node, 2, "bias")?)
    } else {
        ctx.optional_input(node, 2)?
    };
    let dtype = if node.op_type == "QAttention" {
        bias.as_ref().map_or(DType::Float, |b| b.dtype)
    } else {
        x.dtype
    };
    let ws = ranked(&w, "weights", 2)?;
    let bs = match &bias {
        Some(b) => ranked(b, "bias", 1)?,
        None => None,
    };
    let total = match (&ws, &bs) {
        (Some(ws), Some(bs)) => Some(unify_as(ctx, node, "weights[1] and bias", ws[1], bs[0])?),
        (Some(ws), None) => Some(ws[1]),
        (None, Some(bs)) => Some(bs[0]),
        (None, None) => None,
    };
    let (q_hidden, v_hidden) = match attr_ints(node, "qkv_hidden_sizes")? {
        Some(sizes) => {
            if sizes.len() != 3 || sizes.iter().any(|s| *s <= 0) {
                return Err(OpError::BadAttribute {
                    name: "qkv_hidden_sizes",
                    value: AttrValue::Ints(sizes.to_vec()),
                    why: Box::new(AttrProblem::Fixed("expected 3 positive sizes")),
                });
            }
            if let Some(t) = total {
                // In the algebra: three attribute values may sum past i64.
                let parts: Vec<_> = sizes.iter().map(|s| ctx.alg.constant(*s)).collect();
                let sum = ctx.alg.sum(&parts);
                unify_as(ctx, node, "qkv_hidden_sizes sum and weights[1]", t, sum)?;
            }
            let q = ctx.alg.constant(sizes[0]);
            let v = ctx.alg.constant(sizes[2]);
            (Some(q), Some(v))
        }
        None => match total {
            Some(t) => {
                let third = exact_div(ctx, node, t, 3)?;
                (Some(third), Some(third))
            }
            None => (None, None),
        },
    };
    let Some(xs) = ranked(&x, "input", 3)? else {
        return Ok(vec![TensorFact::unknown(dtype), TensorFact::unknown(dtype)]);
    };
    if let Some(ws) = &ws {
        unify_as(ctx, node, "input hidden size and weights[0]", xs[2], ws[0])?;
    }
    let v_hidden = match v_hidden {
        Some(v) => v,
        None => ctx.unknown_dim(node, 0, 2),
    };
    let output = TensorFact::new(dtype, vec![xs[0], xs[1], v_hidden]);
    let nd = ctx.alg.constant(n);
    let head = match q_hidden {
        Some(q) => exact_div(ctx, node, q, n)?,
        None => ctx.unknown_dim(node, 1, 4),
    };
    let two = ctx.alg.constant(2);
    let past = optional_shape(ctx, node, past_index)?;
    let share = attr_int(node, "past_present_share_buffer", 0)? != 0;
    let present = match past {
        Some(p) => {
            expect_rank("past", &p, 5)?;
            if share {
                p
            } else {
                let t = ctx.alg.add_dims(p[3], xs[1]);
                vec![two, xs[0], nd, t, head]
            }
        }
        None => vec![two, xs[0], nd, xs[1], head],
    };
    Ok(vec![output, TensorFact::new(dtype, present)])
}

/// The input layout of MultiHeadAttention or DecoderMaskedMultiHeadAttention.
struct MhaInputs {
    past_key: usize,
    past_sequence_length: usize,
    max_inputs: usize,
}

/// MultiHeadAttention and DecoderMaskedMultiHeadAttention (see the module doc).
fn multi_head_attention(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let decoder = node.op_type.starts_with("DecoderMasked");
    let layout = if decoder {
        MhaInputs {
            past_key: 5,
            past_sequence_length: 7,
            max_inputs: 11,
        }
    } else {
        MhaInputs {
            past_key: 6,
            past_sequence_length: 8,
            max_inputs: 10,
        }
    };
    check_inputs(node, 1, layout.max_inputs)?;
    let n = positive_attr(node, "num_heads")?;
    let q = ctx.input(node, 0, "query")?;
    let dtype = q.dtype;
    let unknown = || {
        vec![
            TensorFact::unknown(dtype),
            TensorFact::unknown(dtype),
            TensorFact::unknown(dtype),
            TensorFact::unknown(dtype),
        ]
    };
    let Some(qs) = q.shape.clone() else {
        return Ok(unknown());
    };
    let key = optional_shape(ctx, node, 1)?;
    let value = optional_shape(ctx, node, 2)?;
    let nd = ctx.alg.constant(n);
    let (b, s) = match qs.len() {
        3 | 5 => (qs[0], qs[1]),
        r => return Err(rank_of("query", Expected::either(&[3, 5]), r)),
    };
    // output hidden size, kv length, key and value head sizes, and the cached
    // key/value of cross attention.
    let (out_h, kv_len, kh, vh, cross) = if qs.len() == 5 {
        let h = qs[4];
        let out = ctx.alg.mul(qs[2], h);
        (out, s, h, h, None)
    } else {
        match (&key, &value) {
            (Some(k), _) if k.len() == 5 => (qs[2], k[1], k[4], k[4], None),
            (Some(k), Some(v)) if k.len() == 4 && v.len() == 4 => {
                let out = ctx.alg.mul(v[1], v[3]);
                (out, k[2], k[3], v[3], Some((k.clone(), v.clone())))
            }
            (Some(k), Some(v)) if k.len() == 3 && v.len() == 3 => {
                let kh = exact_div(ctx, node, k[2], n)?;
                let vh = exact_div(ctx, node, v[2], n)?;
                (v[2], k[1], kh, vh, None)
            }
            (None, None) if decoder => {
                // Packed QKV [B, 1, 3H]: the output is [B, 1, H].
                let out = exact_div(ctx, node, qs[2], 3)?;
                let h = exact_div(ctx, node, out, n)?;
                (out, s, h, h, None)
            }
            (Some(k), Some(v)) => {
                return Err(OpError::Rank {
                    of: Box::new(Subject::KeyAndValue {
                        ranks: [k.len(), v.len()],
                    }),
                    expected: Expected::Described("both 3 or both 4 (or a 5-D packed key)"),
                    found: v.len(),
                })
            }
            _ => {
                let out = vec![like(&q), TensorFact::unknown(dtype)];
                return Ok(out);
            }
        }
    };
    let output = TensorFact::new(dtype, vec![b, s, out_h]);
    let past = optional_shape(ctx, node, layout.past_key)?;
    let past_value = optional_shape(ctx, node, layout.past_key + 1)?;
    let share = if decoder {
        attr_int(node, "past_present_share_buffer", 0)? != 0
    } else {
        ctx.optional_input(node, layout.past_sequence_length)?
            .is_some()
    };
    let (present_key, present_value, total) = match (cross, past) {
        (Some((k, v)), _) => {
            let t = k[2];
            (k, v, t)
        }
        (None, Some(p)) => {
            expect_rank("past_key", &p, 4)?;
            if share {
                let pv = past_value.unwrap_or_else(|| p.clone());
                let t = p[2];
                (p, pv, t)
            } else {
                let t = ctx.alg.add_dims(p[2], kv_len);
                (vec![b, nd, t, kh], vec![b, nd, t, vh], t)
            }
        }
        (None, None) => (vec![b, nd, kv_len, kh], vec![b, nd, kv_len, vh], kv_len),
    };
    Ok(vec![
        output,
        TensorFact::new(dtype, present_key),
        TensorFact::new(dtype, present_value),
        TensorFact::new(dtype, vec![b, nd, s, total]),
    ])
}

/// GroupQueryAttention and SparseAttention (see the module doc).
fn group_query_attention(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    // The index of `total_sequence_length`, and whether the presents are the pasts
    // (shared buffers).
    let (total_index, shared) = match node.op_type.as_str() {
        "SparseAttention" => (7, true),
        "DynamicSparseAttention" => (10, true),
        _ => (6, attr_int(node, "sliding_window_cache", 0)? == 1),
    };
    check_inputs(node, total_index + 1, 24)?;
    let n = positive_attr(node, "num_heads")?;
    let kv_n = positive_attr(node, "kv_num_heads")?;
    let q = ctx.input(node, 0, "query")?;
    let dtype = q.dtype;
    let past = ctx.optional_input(node, 3)?;
    let cache_dtype = past.as_ref().map_or(dtype, |p| p.dtype);
    let Some(qs) = ranked(&q, "query", 3)? else {
        return Ok(vec![
            TensorFact::unknown(dtype),
            TensorFact::unknown(cache_dtype),
            TensorFact::unknown(cache_dtype),
            TensorFact::unknown(dtype),
        ]);
    };
    let separate = ctx.optional_input(node, 1)?.is_some() && ctx.optional_input(node, 2)?.is_some();
    let (out_h, head) = if separate {
        let head = exact_div(ctx, node, qs[2], n)?;
        (qs[2], head)
    } else {
        let head = exact_div(ctx, node, qs[2], n + 2 * kv_n)?;
        let nd = ctx.alg.constant(n);
        (ctx.alg.mul(nd, head), head)
    };
    let output = TensorFact::new(dtype, vec![qs[0], qs[1], out_h]);
    let total = match scalar_input(ctx, node, total_index)? {
        Some(t) => t,
        None => ctx.unknown_dim(node, 1, 2),
    };
    let kv_nd = ctx.alg.constant(kv_n);
    let present = match past.and_then(|p| p.shape) {
        Some(p) => {
            expect_rank("past_key", &p, 4)?;
            if shared {
                p
            } else {
                let len = ctx.alg.max(total, p[2]);
                vec![p[0], p[1], len, p[3]]
            }
        }
        None => vec![qs[0], kv_nd, total, head],
    };
    let nd = ctx.alg.constant(n);
    let last = if node.op_type == "DynamicSparseAttention" {
        // `validation_status`, a CUDA-only status tensor.
        TensorFact::unknown(DType::Int32)
    } else {
        TensorFact::new(dtype, vec![qs[0], nd, qs[1], total])
    };
    Ok(vec![
        output,
        TensorFact::new(cache_dtype, present.clone()),
        TensorFact::new(cache_dtype, present),
        last,
    ])
}

/// PackedAttention: `[T, H_in]` gives `[T, H_v]`.
fn packed_attention(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 5, 6)?;
    positive_attr(node, "num_heads")?;
    let x = ctx.input(node, 0, "input")?;
    let bias = ctx.input(node, 2, "bias")?;
    let v_hidden = match attr_ints(node, "qkv_hidden_sizes")? {
        Some([_, _, v]) => Some(ctx.alg.constant(*v)),
        Some(other) => {
            return Err(OpError::BadAttribute {
                name: "qkv_hidden_sizes",
                value: AttrValue::Ints(other.to_vec()),
                why: Box::new(AttrProblem::Fixed("expected 3 sizes")),
            })
        }
        None => match ranked(&bias, "bias", 1)? {
            Some(b) => Some(exact_div(ctx, node, b[0], 3)?),
            None => None,
        },
    };
    let Some(xs) = ranked(&x, "input", 2)? else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let v = match v_hidden {
        Some(v) => v,
        None => ctx.unknown_dim(node, 0, 1),
    };
    Ok(vec![TensorFact::new(x.dtype, vec![xs[0], v])])
}

/// PackedMultiHeadAttention: `[T, H]` with `value = [T, H_v]` gives `[T, H_v]`;
/// packed `[T, N, 3, h]` gives `[T, N*h]`.
fn packed_multi_head_attention(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 6, 7)?;
    positive_attr(node, "num_heads")?;
    let q = ctx.input(node, 0, "query")?;
    let Some(qs) = q.shape.clone() else {
        return Ok(vec![TensorFact::unknown(q.dtype)]);
    };
    let out = match qs.len() {
        4 => vec![qs[0], ctx.alg.mul(qs[1], qs[3])],
        2 => match optional_shape(ctx, node, 2)? {
            Some(v) => {
                expect_rank("value", &v, 2)?;
                vec![qs[0], v[1]]
            }
            None => qs,
        },
        r => return Err(rank_of("query", Expected::either(&[2, 4]), r)),
    };
    Ok(vec![TensorFact::new(q.dtype, out)])
}

/// PagedAttention (see the module doc).
fn paged_attention(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    if node.op_type == "SparsePagedAttention" {
        check_inputs(node, 11, 22)?;
    } else {
        check_inputs(node, 8, 17)?;
    }
    let n = positive_attr(node, "num_heads")?;
    let kv_n = positive_attr(node, "kv_num_heads")?;
    let q = ctx.input(node, 0, "query")?;
    let caches = [
        ctx.input(node, 3, "key_cache")?,
        ctx.optional_input(node, 4)?
            .unwrap_or_else(|| TensorFact::unknown(DType::Undefined)),
    ];
    let latent = crate::ops::common::attrs::attr_str(node, "kv_cache_layout")? == Some("LATENT");
    let output = match ranked(&q, "query", 2)? {
        None => TensorFact::unknown(q.dtype),
        Some(qs) => {
            let separate = !latent && ctx.optional_input(node, 1)?.is_some();
            let hidden = if separate {
                qs[1]
            } else {
                let heads = if latent {
                    Some(n)
                } else {
                    kv_n.checked_mul(2).and_then(|k| k.checked_add(n))
                };
                let Some(heads) = heads else {
                    return Err(OpError::BadAttribute {
                        name: "kv_num_heads",
                        value: AttrValue::Int(kv_n),
                        why: Box::new(AttrProblem::Fixed(
                            "too large: num_heads + 2*kv_num_heads passes i64",
                        )),
                    });
                };
                let head = exact_div(ctx, node, qs[1], heads)?;
                let v_head = match attr_int(node, "v_head_size", 0)? {
                    v if latent && v > 0 => ctx.alg.constant(v),
                    _ => head,
                };
                let nd = ctx.alg.constant(n);
                ctx.alg.mul(nd, v_head)
            };
            TensorFact::new(q.dtype, vec![qs[0], hidden])
        }
    };
    Ok(vec![output, like(&caches[0]), like(&caches[1])])
}

/// HyperConnectionPreMix and HyperConnectionLowRankMix (see the module doc).
fn hyper_connection_mix(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let low_rank = node.op_type == "HyperConnectionLowRankMix";
    if low_rank {
        check_inputs(node, 5, 7)?;
    } else {
        check_inputs(node, 2, 2)?;
    }
    let x = ctx.input(node, 0, "streams")?;
    let branches = if low_rank {
        positive_attr(node, "num_branches")?
    } else {
        attr_int(node, "num_branches", 0)?
    };
    let Some(xs) = x.shape.clone() else {
        return Ok(vec![like(&x), TensorFact::unknown(x.dtype), like(&x)]);
    };
    let pre = if branches > 0 {
        let Some((w, rest)) = xs.split_last() else {
            return Err(rank_of("streams", Expected::AtLeast(1), 0));
        };
        let h = exact_div(ctx, node, *w, branches)?;
        let mut out = rest.to_vec();
        out.push(h);
        out
    } else {
        if xs.len() < 2 {
            return Err(rank_of("streams (grouped)", Expected::AtLeast(2), xs.len()));
        }
        let mut out = xs[..xs.len() - 2].to_vec();
        out.push(xs[xs.len() - 1]);
        out
    };
    let mut gate = pre.clone();
    if let Some(last) = gate.last_mut() {
        *last = ctx.alg.constant(branches.max(1));
    }
    Ok(vec![
        TensorFact::new(x.dtype, pre),
        TensorFact::new(x.dtype, gate),
        like(&x),
    ])
}

/// RelativePositionBias: `[1, N, query_length, key_length]`.
fn relative_position_bias(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let table = ctx.input(node, 0, "bias_table")?;
    let heads = match ranked(&table, "bias_table", 2)? {
        Some(t) => t[1],
        None => ctx.unknown_dim(node, 0, 1),
    };
    let ql = match scalar_input(ctx, node, 1)? {
        Some(v) => v,
        None => ctx.unknown_dim(node, 0, 2),
    };
    let kl = match scalar_input(ctx, node, 2)? {
        Some(v) => v,
        None => ctx.unknown_dim(node, 0, 3),
    };
    let one = ctx.alg.constant(1);
    Ok(vec![TensorFact::new(table.dtype, vec![one, heads, ql, kl])])
}

/// GatedRelativePositionBias: `[B, num_heads, S, S]`.
fn gated_relative_position_bias(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 6, 7)?;
    let n = positive_attr(node, "num_heads")?;
    let q = ctx.input(node, 0, "query_layer")?;
    let nd = ctx.alg.constant(n);
    let bs = match optional_shape(ctx, node, 6)? {
        Some(t) => {
            expect_rank("token_offset", &t, 2)?;
            Some((t[0], t[1]))
        }
        None => ranked(&q, "query_layer", 3)?.map(|s| (s[0], s[1])),
    };
    Ok(vec![match bs {
        Some((b, s)) => TensorFact::new(q.dtype, vec![b, nd, s, s]),
        None => TensorFact::unknown(q.dtype),
    }])
}

/// RemovePadding: `[B, S, H]` gives `[token_count, H]`, `[B, S]`, `[B + 1]` and
/// `[1]`.
fn remove_padding(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "input")?;
    let count = ctx.input(node, 1, "sequence_token_count")?;
    let m = if count.dtype == DType::Undefined {
        DType::Int32
    } else {
        count.dtype
    };
    let Some(xs) = ranked(&x, "input", 3)? else {
        return Ok(vec![
            TensorFact::unknown(x.dtype),
            TensorFact::unknown(m),
            TensorFact::unknown(m),
            TensorFact::unknown(m),
        ]);
    };
    let tokens = ctx.unknown_dim(node, 0, 0);
    let one = ctx.alg.constant(1);
    let b1 = ctx.alg.add_dims(xs[0], one);
    Ok(vec![
        TensorFact::new(x.dtype, vec![tokens, xs[2]]),
        TensorFact::new(m, vec![xs[0], xs[1]]),
        TensorFact::new(m, vec![b1]),
        TensorFact::new(m, vec![one]),
    ])
}

/// RestorePadding: `[T, H]` and `token_offset = [B, S]` give `[B, S, H]`.
fn restore_padding(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "input")?;
    let t = ctx.input(node, 1, "token_offset")?;
    let (Some(xs), Some(ts)) = (ranked(&x, "input", 2)?, ranked(&t, "token_offset", 2)?) else {
        return Ok(vec![shaped(x.dtype, None)]);
    };
    Ok(vec![TensorFact::new(x.dtype, vec![ts[0], ts[1], xs[1]])])
}
