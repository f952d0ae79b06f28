//! Normalisations, Dropout and the softmax family: ONNX BatchNormalization,
//! LayerNormalization, InstanceNormalization, GroupNormalization,
//! LpNormalization, MeanVarianceNormalization, LRN, Dropout, Softmax, LogSoftmax
//! and Hardmax; OpenVINO BatchNormInference, MVN, NormalizeL2, LRN, GRN,
//! GroupNormalization, Softmax and LogSoftmax; oneDNN BatchNormInference,
//! BatchNormForwardTraining, BatchNormTrainingBackward, LayerNorm,
//! LayerNormBackward, RMSNorm, GroupNorm, SoftMax, LogSoftmax, their backward ops
//! and Dropout.
//!
//! Specs: <https://onnx.ai/onnx/operators/> (the page of each op); the OpenVINO
//! operation specifications; oneDNN Graph's operation documents.
//!
//! Every `Y` has the shape and type of `X` (oneDNN: the converter's `dst_dtype`
//! when present). The per-channel inputs (scale, bias, mean, variance) of batch
//! and instance normalisation must have the channel count `C = X[1]`
//! ([`channel_count`]): a provably different length is a
//! [`OpError::DimMismatch`], an undecided one is unified (a valid model needs it;
//! ONNX rules also warn). The extra outputs:
//! - BatchNormalization: running mean and variance (and, before opset 14, the
//!   saved mean and inverse std-dev) are `[C]`;
//! - mean and inverse std-dev (or variance) of layer normalisation
//!   ([`layer_norm_stats`]): ONNX LayerNormalization keeps the dims before `axis`
//!   and has 1 for the normalised ones, of type `stash_type` (float by default);
//!   oneDNN LayerNorm (`keep_stats`) has only the dims before `begin_norm_axis`
//!   (default -1), f32;
//! - oneDNN GroupNorm: mean and variance `[N, groups]`, f32;
//! - oneDNN SoftMax: `stats` has the `axis` dim 1, f32;
//! - Dropout: the `mask` has the shape of `X` (bool from opset 10).
//!
//! The softmax family checks `axis` against the rank: ONNX before opset 13 allows
//! `axis == rank` (2-D coercion); OpenVINO Softmax-1 takes no negative axis and
//! does not check a scalar's.
//!
//! Version history, ONNX (shape-relevant):
//! - BatchNormalization-1 (`spatial`, `is_test`), -6, -7 (`is_test` removed;
//!   optional training outputs), -9 (`spatial` removed: per-channel inputs are
//!   `[C]`), -14 (`training_mode`; outputs `running_mean`, `running_var`), -15
//!   (separate types for scale/bias and mean/var). Before opset 9 with
//!   `spatial = 0` the per-channel inputs are `[C, D1, ...]` and are not checked.
//! - LayerNormalization-17 (`axis` default -1, `stash_type`).
//! - InstanceNormalization-1, -6, -22. GroupNormalization-18 (`scale`/`bias` of
//!   `[num_groups]`), -21 (`[C]`). LpNormalization-1, -22.
//!   MeanVarianceNormalization-1, -9, -13. LRN-1, -13.
//! - Dropout-1, -6 (`is_test`), -7 (mask output), -10 (mask is bool), -12
//!   (`ratio` and `training_mode` become inputs), -13, -22.
//! - Softmax/LogSoftmax/Hardmax-1, -11 (`axis` default 1, coerced to 2-D),
//!   -13 (`axis` default -1, applied on one axis). The output shape is the input's
//!   in every version.
//!
//! Version history, OpenVINO:
//! - BatchNormInference-1 (inputs gamma, beta, data, mean, variance), -5 (data
//!   first: data, gamma, beta, mean, variance).
//! - Softmax-1 (`axis` >= 0; written `SoftMax` in IR files), -8 (negative
//!   `axis`); LogSoftmax-5 (negative `axis`).
//! - MVN-1, -6 (`axes` input); NormalizeL2-1; LRN-1; GRN-1: the data shape.
//! - GroupNormalization-12: `scale` and `bias` of `[C]`, `num_groups` dividing `C`
//!   ([`group_norm_check`], shared with ONNX).
//!
//! oneDNN (every op version 1): BatchNormInference (the input's shape), LayerNorm
//! (`begin_norm_axis`, `keep_stats` default true), GroupNorm (`groups`,
//! `keep_stats`), SoftMax and LogSoftmax (`axis` default 1). RMSNorm keeps the
//! shape, its `gamma` broadcasting to the normalised dims ([`check_norm_affine`]);
//! LayerNormBackward checks `mean`/`variance` against [`layer_norm_stats`] and,
//! with `use_affine` (default true, three outputs), gives `gamma`'s shape to
//! `diff_gamma` and `diff_beta`. BatchNormForwardTraining (`src` of rank 2 or more)
//! and BatchNormTrainingBackward (rank 4 or more, as oneDNN's shape inference
//! takes) give `[C]` statistics and gradients, `C` by `data_format` (default
//! `NXC`). SoftMaxBackward (`axis` default 1) and LogSoftmaxBackward (default -1)
//! keep the shape `diff_dst` and `dst` share. Dropout(src, seed, offset,
//! probability) gives `dst` like `src` and a u8 `mask` of its shape.

use crate::algebra::{Algebra, Dim};
use crate::context::{AttrProblem, AttrValue, ShapeValueProblem};
use crate::context::{Expected, OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};
use crate::ops::common::attrs::attr_int;
use crate::ops::common::attrs::{attr_dtype, dst_dtype, ov_i64, require_positive};
use crate::ops::common::broadcast::check_broadcasts_to;
use crate::ops::common::dims::{
    channel_axis, check_vector, expect_rank, merge_shapes, rank_of, shaped, Equate,
};
use crate::ops::common::{check_inputs, norm_axis};
use crate::ops::cost::{moves_data, per_input_element, Costs, OpCost};
use crate::ops::elementwise::{onednn, openvino};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["BatchNormalization"], batch_norm),
    ("", ["LayerNormalization"], layer_norm),
    ("", ["InstanceNormalization"], instance_norm),
    ("", ["GroupNormalization"], group_norm),
    ("", ["LpNormalization"], lp_norm),
    ("", ["MeanVarianceNormalization", "LRN"], same_shape),
    ("", ["Dropout"], dropout),
    ("", ["Softmax", "LogSoftmax", "Hardmax"], softmax),
    ("openvino", ["BatchNormInference"], openvino_batch_norm),
    ("openvino", ["MVN", "NormalizeL2", "LRN", "GRN"], openvino::same_shape),
    ("openvino", ["GroupNormalization"], openvino_group_norm),
    ("openvino", ["Softmax", "SoftMax", "LogSoftmax"], openvino_softmax),
    ("onednn", ["BatchNormInference"], onednn::same_shape),
    ("onednn", ["LayerNorm"], onednn_layer_norm),
    ("onednn", ["GroupNorm"], onednn_group_norm),
    ("onednn", ["SoftMax", "LogSoftmax"], onednn_softmax),
    ("onednn", ["SoftMaxBackward", "LogSoftmaxBackward"], onednn_softmax_backward),
    ("onednn", ["RMSNorm"], onednn_rms_norm),
    ("onednn", ["LayerNormBackward"], onednn_layer_norm_backward),
    ("onednn", ["BatchNormForwardTraining"], onednn_batch_norm_training),
    ("onednn", ["BatchNormTrainingBackward"], onednn_batch_norm_backward),
    ("onednn", ["Dropout"], onednn_dropout),
];

/// What the normalisations and softmaxes compute ([`crate::ops::cost`]): 0 MACs,
/// FLOPs per element of input 0 (the per-row or per-channel square roots and
/// reciprocals are not counted):
/// - 4, batch normalisation at inference (ONNX BatchNormalization, OpenVINO and
///   oneDNN BatchNormInference): subtract the mean, scale by the inverse std-dev,
///   multiply by `scale`, add `B`;
/// - 7, normalisations that compute their statistics (Layer-, Instance- and
///   GroupNormalization of every format): mean (1), variance (subtract, square,
///   accumulate: 3), normalise (1), `scale` and `bias` (2);
/// - 5, MVN (no affine); 4, RMS normalisations (square, accumulate, normalise,
///   scale); 3, Lp/L2 normalisations and GRN (square, accumulate, divide);
/// - 5, Softmax and LogSoftmax (max, subtract, exp, sum, divide or log); 1,
///   Hardmax (a compare);
/// - 0, Dropout (an identity at inference).
///
/// LRN and the backward and training ops are not counted.
pub const COSTS: &[Costs] = &[Costs::by_op(rules![
    ("", ["BatchNormalization"], four_per_element),
    ("openvino", ["BatchNormInference"], four_per_element),
    ("onednn", ["BatchNormInference"], four_per_element),
    (
        "",
        [
            "LayerNormalization",
            "InstanceNormalization",
            "GroupNormalization"
        ],
        seven_per_element
    ),
    ("openvino", ["GroupNormalization"], seven_per_element),
    ("onednn", ["LayerNorm", "GroupNorm"], seven_per_element),
    ("", ["MeanVarianceNormalization"], five_per_element),
    ("openvino", ["MVN"], five_per_element),
    ("onednn", ["RMSNorm"], four_per_element),
    ("", ["LpNormalization"], three_per_element),
    ("openvino", ["NormalizeL2", "GRN"], three_per_element),
    ("", ["Softmax", "LogSoftmax"], five_per_element),
    (
        "openvino",
        ["Softmax", "SoftMax", "LogSoftmax"],
        five_per_element
    ),
    ("onednn", ["SoftMax", "LogSoftmax"], five_per_element),
    ("", ["Hardmax"], one_per_element),
    ("", ["Dropout"], moves_data),
    ("onednn", ["Dropout"], moves_data),
])];

/// 1 FLOP per element of input 0.
pub fn one_per_element(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    per_input_element(alg, ctx, node, 1)
}

/// 3 FLOPs per element of input 0.
pub fn three_per_element(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    per_input_element(alg, ctx, node, 3)
}

/// 4 FLOPs per element of input 0.
pub fn four_per_element(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    per_input_element(alg, ctx, node, 4)
}

/// 5 FLOPs per element of input 0.
pub fn five_per_element(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    per_input_element(alg, ctx, node, 5)
}

/// 7 FLOPs per element of input 0.
pub fn seven_per_element(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    per_input_element(alg, ctx, node, 7)
}

/// The input's facts without its value: the shape of `Y` for shape-preserving ops.
fn like(x: &TensorFact) -> TensorFact {
    TensorFact {
        fill: None,
        dtype: x.dtype,
        shape: x.shape.clone(),
        value: None,
    }
}

/// The channel dim `X[1]` when the rank is known (rank at least 2).
fn channels(x: &TensorFact, what: &'static str) -> Result<Option<Dim>, OpError> {
    match &x.shape {
        None => Ok(None),
        Some(s) if s.len() < 2 => Err(crate::ops::common::dims::rank_of(
            what,
            Expected::AtLeast(2),
            s.len(),
        )),
        Some(s) => Ok(Some(s[1])),
    }
}

/// The channel count `C` of a normalisation of `x` (named `what`) with
/// per-channel `vectors` (input, name): `X[1]`, each vector checked to have `C`
/// entries; when `X`'s rank is unknown, the first vector's length.
pub fn channel_count(
    ctx: &mut ShapesContext,
    node: &Node,
    x: &TensorFact,
    what: &'static str,
    vectors: &[(TensorFact, &'static str)],
    equate: Equate,
) -> Result<Option<Dim>, OpError> {
    let mut c = channels(x, what)?;
    for (f, name) in vectors {
        match c {
            Some(cd) => check_vector(ctx, node, f, name, cd, equate)?,
            None => {
                if let Some(s) = &f.shape {
                    expect_rank(*name, s, 1)?;
                    c = Some(s[0]);
                }
            }
        }
    }
    Ok(c)
}

/// The dims of the mean and variance of a layer normalisation of `shape` from
/// `axis` (normalised): the dims before it, then 1 for each normalised axis when
/// `keep_rank` (ONNX) or nothing (oneDNN).
pub fn layer_norm_stats(
    ctx: &mut ShapesContext,
    shape: &[Dim],
    axis: usize,
    keep_rank: bool,
) -> Vec<Dim> {
    let mut stat = shape[..axis].to_vec();
    if keep_rank {
        let one = ctx.alg.constant(1);
        stat.extend(std::iter::repeat(one).take(shape.len() - axis));
    }
    stat
}

fn batch_norm(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 5, 5)?;
    let x = ctx.input(node, 0, "X")?;
    let names = ["scale", "B", "input_mean", "input_var"];
    let spatial = attr_int(node, "spatial", 1)? != 0 || node.version >= 9;
    let mut per_channel = Vec::with_capacity(4);
    for (i, what) in names.iter().enumerate() {
        per_channel.push((ctx.input(node, i + 1, what)?, *what));
    }
    let c = if spatial {
        channel_count(ctx, node, &x, "input X", &per_channel, Equate::Warn)?
    } else {
        channels(&x, "input X")?
    };
    let mut out = vec![like(&x)];
    // Extra outputs: [C] statistics (running mean/var; before 14 also the saved
    // mean and inverse std-dev). Their type is that of the mean input.
    let mean_type = per_channel[2].0.dtype;
    for _ in 1..node.outputs.len().min(5) {
        out.push(match c {
            Some(cd) if spatial => TensorFact::new(mean_type, vec![cd]),
            _ => TensorFact::unknown(mean_type),
        });
    }
    Ok(out)
}

fn layer_norm(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 3)?;
    let x = ctx.input(node, 0, "X")?;
    let axis = attr_int(node, "axis", -1)?;
    let stash = attr_dtype(node, "stash_type", DType::Float)?;
    let Some(xs) = x.shape.clone() else {
        return Ok(vec![
            like(&x),
            TensorFact::unknown(stash),
            TensorFact::unknown(stash),
        ]);
    };
    let a = norm_axis(axis, xs.len())?;
    let stat = layer_norm_stats(ctx, &xs, a, true);
    Ok(vec![
        like(&x),
        TensorFact::new(stash, stat.clone()),
        TensorFact::new(stash, stat),
    ])
}

fn instance_norm(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let x = ctx.input(node, 0, "input")?;
    let scale = ctx.input(node, 1, "scale")?;
    let b = ctx.input(node, 2, "B")?;
    let vectors = [(scale, "scale"), (b, "B")];
    channel_count(ctx, node, &x, "input", &vectors, Equate::Warn)?;
    Ok(vec![like(&x)])
}

fn group_norm(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let x = ctx.input(node, 0, "X")?;
    let scale = ctx.input(node, 1, "scale")?;
    let b = ctx.input(node, 2, "bias")?;
    let g = crate::ops::common::attrs::attr_int_required(node, "num_groups")?;
    // Opset 18: scale and bias per group; opset 21: per channel.
    let per_channel = node.version >= 21;
    group_norm_check(ctx, node, &x, [&scale, &b], g, per_channel, Equate::Warn)?;
    Ok(vec![like(&x)])
}

/// The checks of a group normalisation of `x` in `groups` groups: a positive
/// group count that divides the channels `x[1]`, and `[scale, bias]` vectors of
/// the channel count (`per_channel`) or of the group count, equated as `equate`
/// says.
pub fn group_norm_check(
    ctx: &mut ShapesContext,
    node: &Node,
    x: &TensorFact,
    [scale, bias]: [&TensorFact; 2],
    groups: i64,
    per_channel: bool,
    equate: Equate,
) -> Result<(), OpError> {
    require_positive("num_groups", groups)?;
    let gd = ctx.alg.constant(groups);
    if let Some(c) = channels(x, "input X")? {
        if ctx.alg.divides(gd, c) == crate::algebra::Truth::False {
            return Err(OpError::BadShapeValue(Box::new(
                ShapeValueProblem::ChannelsNotMultiple {
                    channels: ctx.alg.expr(c),
                    of: "num_groups",
                    groups,
                },
            )));
        }
        let len = if per_channel { c } else { gd };
        check_vector(ctx, node, scale, "scale", len, equate)?;
        check_vector(ctx, node, bias, "bias", len, equate)?;
    }
    Ok(())
}

/// OpenVINO GroupNormalization-12: `data [N, C, ...]`, `scale` and `bias` `[C]`.
fn openvino_group_norm(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let x = ctx.input(node, 0, "data")?;
    let scale = ctx.input(node, 1, "scale")?;
    let b = ctx.input(node, 2, "bias")?;
    let g = ov_i64(node, "num_groups")?.ok_or(OpError::MissingAttribute { name: "num_groups" })?;
    group_norm_check(ctx, node, &x, [&scale, &b], g, true, Equate::Record)?;
    Ok(vec![like(&x)])
}

fn lp_norm(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "input")?;
    let p = attr_int(node, "p", 2)?;
    if p != 1 && p != 2 {
        return Err(OpError::BadAttribute {
            name: "p",
            value: AttrValue::Int(p),
            why: Box::new(AttrProblem::Fixed("only 1 and 2 are supported")),
        });
    }
    if let Some(r) = x.rank() {
        norm_axis(attr_int(node, "axis", -1)?, r)?;
    }
    Ok(vec![like(&x)])
}

fn same_shape(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "X")?;
    Ok(vec![like(&x)])
}

fn dropout(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 3)?;
    let x = ctx.input(node, 0, "data")?;
    // `ratio` and `training_mode` (opset 12+) are scalars by the spec; a
    // one-element vector is accepted, as the runtimes do.
    for i in 1..3 {
        if let Some(s) = ctx.optional_input(node, i)?.and_then(|f| f.shape) {
            if s.len() > 1 {
                return Err(crate::ops::common::dims::rank_of(
                    if i == 1 { "ratio" } else { "training_mode" },
                    0,
                    s.len(),
                ));
            }
        }
    }
    let mask_type = if node.version >= 10 {
        DType::Bool
    } else {
        x.dtype
    };
    let mask = TensorFact {
        fill: None,
        dtype: mask_type,
        shape: x.shape.clone(),
        value: None,
    };
    Ok(vec![like(&x), mask])
}

fn softmax(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "input")?;
    let default = if node.version >= 13 { -1 } else { 1 };
    let axis = attr_int(node, "axis", default)?;
    if let Some(r) = x.rank() {
        if node.version < 13 {
            // Opsets 1-12 coerce to 2-D at `axis`, which may equal the rank.
            let rr = r as i64;
            if !(-rr..=rr).contains(&axis) {
                return Err(OpError::AxisOutOfRange { axis, rank: r });
            }
        } else {
            norm_axis(axis, r)?;
        }
    }
    Ok(vec![like(&x)])
}

/// OpenVINO BatchNormInference (1: gamma, beta, data, mean, variance; 5: data
/// first).
fn openvino_batch_norm(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 5, 5)?;
    let data_index = if node.version >= 5 { 0 } else { 2 };
    let x = ctx.input(node, data_index, "data")?;
    let names = if data_index == 0 {
        ["data", "gamma", "beta", "mean", "variance"]
    } else {
        ["gamma", "beta", "data", "mean", "variance"]
    };
    if x.shape.is_some() {
        let mut vectors = Vec::with_capacity(4);
        for (i, name) in names.iter().enumerate().filter(|(i, _)| *i != data_index) {
            vectors.push((ctx.input(node, i, "parameter")?, *name));
        }
        channel_count(ctx, node, &x, "data", &vectors, Equate::Record)?;
    }
    Ok(vec![like(&x)])
}

/// OpenVINO Softmax / LogSoftmax: the `axis` (default 1) must be in range.
fn openvino_softmax(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "data")?;
    if let Some(shape) = &x.shape {
        let axis = ov_i64(node, "axis")?.unwrap_or(1);
        if node.version < 8 && axis < 0 && !node.op_type.contains("Log") {
            return Err(OpError::AxisOutOfRange {
                axis,
                rank: shape.len(),
            });
        }
        if !shape.is_empty() {
            norm_axis(axis, shape.len())?;
        }
    }
    Ok(vec![like(&x)])
}

/// The input's facts (no value) with oneDNN's `dst_dtype`.
fn onednn_like(node: &Node, x: &TensorFact) -> Result<TensorFact, OpError> {
    Ok(TensorFact {
        fill: None,
        dtype: dst_dtype(node, x.dtype)?,
        shape: x.shape.clone(),
        value: None,
    })
}

/// oneDNN SoftMax / LogSoftmax: `axis` (default 1) must be in range; SoftMax's
/// optional `stats` output has the `axis` dim 1.
fn onednn_softmax(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let x = ctx.input(node, 0, "src")?;
    let mut stats = TensorFact::unknown(DType::Float);
    if let Some(s) = &x.shape {
        if !s.is_empty() {
            let axis = norm_axis(attr_int(node, "axis", 1)?, s.len())?;
            let mut st = s.clone();
            st[axis] = ctx.alg.constant(1);
            stats = TensorFact::new(DType::Float, st);
        }
    }
    let mut out = vec![onednn_like(node, &x)?];
    if node.outputs.len() > 1 {
        out.push(stats);
    }
    Ok(out)
}

/// oneDNN LayerNorm: dst like src; with `keep_stats` mean and variance are
/// `src[:begin_norm_axis]` (default -1).
fn onednn_layer_norm(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let x = ctx.input(node, 0, "src")?;
    let mut out = vec![onednn_like(node, &x)?];
    if node.outputs.len() > 1 {
        let stats = match &x.shape {
            Some(s) => {
                let axis = norm_axis(attr_int(node, "begin_norm_axis", -1)?, s.len())?;
                TensorFact::new(DType::Float, layer_norm_stats(ctx, s, axis, false))
            }
            None => TensorFact::unknown(DType::Float),
        };
        out.push(stats.clone());
        out.push(stats);
    }
    Ok(out)
}

/// oneDNN GroupNorm: dst like src; mean and variance `[N, groups]`.
fn onednn_group_norm(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let x = ctx.input(node, 0, "src")?;
    let mut out = vec![onednn_like(node, &x)?];
    if node.outputs.len() > 1 {
        let stats = match x.shape.as_deref().and_then(<[Dim]>::first) {
            Some(n) => {
                let g = ctx
                    .alg
                    .constant(crate::ops::common::attrs::attr_int_required(
                        node, "groups",
                    )?);
                TensorFact::new(DType::Float, vec![*n, g])
            }
            None => TensorFact::unknown(DType::Float),
        };
        out.push(stats.clone());
        out.push(stats);
    }
    Ok(out)
}

/// The scale or shift `param` (named `what`) of a normalisation of `shape` over the
/// axes from `axis` on: it must broadcast to those dims (oneDNN RMSNorm's `gamma`,
/// LayerNormBackward's `gamma` and `beta`).
pub fn check_norm_affine(
    ctx: &mut ShapesContext,
    node: &Node,
    shape: &[Dim],
    axis: usize,
    param: &TensorFact,
    what: &'static str,
) -> Result<(), OpError> {
    match &param.shape {
        Some(p) => check_broadcasts_to(ctx, &node.name, &shape[axis..], p, what),
        None => Ok(()),
    }
}

/// oneDNN SoftMaxBackward / LogSoftmaxBackward(diff_dst, dst): `diff_src` of their
/// shared shape; `axis` (SoftMaxBackward default 1, LogSoftmaxBackward -1) in range.
fn onednn_softmax_backward(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let d = ctx.input(node, 0, "diff_dst")?;
    let y = ctx.input(node, 1, "dst")?;
    let shape = merge_shapes(ctx, node, ("diff_dst", &d), ("dst", &y))?;
    if let Some(s) = shape.as_ref().filter(|s| !s.is_empty()) {
        let default = if node.op_type == "LogSoftmaxBackward" {
            -1
        } else {
            1
        };
        norm_axis(attr_int(node, "axis", default)?, s.len())?;
    }
    Ok(vec![shaped(dst_dtype(node, d.dtype)?, shape)])
}

/// oneDNN RMSNorm(src, gamma?): `dst` like `src`; `gamma` broadcasts to the dims
/// from `begin_norm_axis` (default -1) on.
fn onednn_rms_norm(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 2)?;
    let x = ctx.input(node, 0, "src")?;
    if let Some(s) = &x.shape {
        let axis = norm_axis(attr_int(node, "begin_norm_axis", -1)?, s.len())?;
        if let Some(gamma) = ctx.optional_input(node, 1)? {
            check_norm_affine(ctx, node, s, axis, &gamma, "gamma")?;
        }
    }
    Ok(vec![onednn_like(node, &x)?])
}

/// oneDNN LayerNormBackward(src, diff_dst, mean, variance, gamma?, beta?):
/// `diff_src` of `src`'s shape (shared with `diff_dst`); `mean` and `variance` of
/// the dims before `begin_norm_axis` (default -1); with `use_affine` (default true)
/// three outputs, `diff_gamma` and `diff_beta` of `gamma`'s shape.
fn onednn_layer_norm_backward(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 4, 6)?;
    let x = ctx.input(node, 0, "src")?;
    let d = ctx.input(node, 1, "diff_dst")?;
    let shape = merge_shapes(ctx, node, ("src", &x), ("diff_dst", &d))?;
    let use_affine = attr_int(node, "use_affine", 1)? != 0;
    if use_affine && node.outputs.len() != 3 {
        return Err(OpError::BadAttribute {
            name: "use_affine",
            value: AttrValue::Bool(true),
            why: Box::new(AttrProblem::AffineOutputs(node.outputs.len())),
        });
    }
    let gamma = ctx.optional_input(node, 4)?;
    if let Some(s) = &shape {
        let axis = norm_axis(attr_int(node, "begin_norm_axis", -1)?, s.len())?;
        let stats = TensorFact::new(DType::Float, layer_norm_stats(ctx, s, axis, false));
        for (i, what) in [(2, "mean"), (3, "variance")] {
            let f = ctx.input(node, i, "mean/variance")?;
            merge_shapes(
                ctx,
                node,
                ("the dims before begin_norm_axis", &stats),
                (what, &f),
            )?;
        }
        for (i, what) in [(4, "gamma"), (5, "beta")] {
            if let Some(f) = ctx.optional_input(node, i)? {
                check_norm_affine(ctx, node, s, axis, &f, what)?;
            }
        }
    }
    let mut out = vec![shaped(dst_dtype(node, x.dtype)?, shape)];
    if node.outputs.len() > 1 {
        let g = match gamma {
            Some(g) => TensorFact {
                value: None,
                fill: None,
                ..g
            },
            None => TensorFact::unknown(DType::Float),
        };
        out.push(g.clone());
        out.push(g);
    }
    Ok(out)
}

/// The channel dim of a oneDNN batch normalisation's `src` by `data_format`
/// (default `NXC`), its rank at least `min_rank` (oneDNN's shape inference: 2 for
/// the forward op, 4 for the backward), and the per-channel inputs from index
/// `first` on checked to be `[C]`.
fn onednn_bn_channels(
    ctx: &mut ShapesContext,
    node: &Node,
    x: &TensorFact,
    min_rank: usize,
    first: usize,
    names: &[&'static str],
) -> Result<Option<Dim>, OpError> {
    let Some(s) = &x.shape else {
        return Ok(None);
    };
    if s.len() < min_rank {
        return Err(rank_of("src", Expected::AtLeast(min_rank), s.len()));
    }
    let c = s[channel_axis(node, s.len())?];
    for (k, name) in names.iter().enumerate() {
        if let Some(f) = ctx.optional_input(node, first + k)? {
            check_vector(ctx, node, &f, name, c, Equate::Record)?;
        }
    }
    Ok(Some(c))
}

/// oneDNN BatchNormForwardTraining(src, mean, variance, gamma?, beta?): `dst` like
/// `src`; `running_mean`, `running_variance`, `batch_mean` and `batch_variance`
/// are `[C]` (C by `data_format`), of `mean`'s type.
fn onednn_batch_norm_training(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 5)?;
    let x = ctx.input(node, 0, "src")?;
    let mean = ctx.input(node, 1, "mean")?;
    let names = ["mean", "variance", "gamma", "beta"];
    let c = onednn_bn_channels(ctx, node, &x, 2, 1, &names)?;
    let stat = shaped(mean.dtype, c.map(|c| vec![c]));
    let mut out = vec![onednn_like(node, &x)?];
    out.extend(std::iter::repeat(stat).take(node.outputs.len().saturating_sub(1)));
    Ok(out)
}

/// oneDNN BatchNormTrainingBackward(src, diff_dst, mean, variance, gamma?):
/// `diff_src` of `src`'s shape (shared with `diff_dst`, rank 4 or more);
/// `diff_gamma` and `diff_beta` are `[C]` (C by `data_format`), of `mean`'s type.
fn onednn_batch_norm_backward(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 4, 5)?;
    let x = ctx.input(node, 0, "src")?;
    let d = ctx.input(node, 1, "diff_dst")?;
    let mean = ctx.input(node, 2, "mean")?;
    let shape = merge_shapes(ctx, node, ("src", &x), ("diff_dst", &d))?;
    let merged = shaped(x.dtype, shape.clone());
    let names = ["mean", "variance", "gamma"];
    let c = onednn_bn_channels(ctx, node, &merged, 4, 2, &names)?;
    let stat = shaped(mean.dtype, c.map(|c| vec![c]));
    let mut out = vec![shaped(dst_dtype(node, x.dtype)?, shape)];
    out.extend(std::iter::repeat(stat).take(node.outputs.len().saturating_sub(1)));
    Ok(out)
}

/// oneDNN Dropout(src, seed, offset, probability): `dst` like `src`; the optional
/// `mask` has `src`'s shape, u8.
fn onednn_dropout(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 4, 4)?;
    let x = ctx.input(node, 0, "src")?;
    let mut out = vec![onednn_like(node, &x)?];
    if node.outputs.len() > 1 {
        out.push(shaped(DType::Uint8, x.shape.clone()));
    }
    Ok(out)
}
