//! Normalisations, Dropout and the softmax family: BatchNormalization,
//! LayerNormalization, InstanceNormalization, GroupNormalization,
//! LpNormalization, MeanVarianceNormalization, LRN, Dropout, Softmax,
//! LogSoftmax and Hardmax.
//!
//! Spec: <https://onnx.ai/onnx/operators/> (the page of each op).
//!
//! Every `Y` has the shape and type of `X`. The per-channel inputs (scale, bias,
//! mean, variance) of BatchNormalization and InstanceNormalization must have the
//! channel count `C = X[1]`: a provably different length is a
//! [`OpError::DimMismatch`], an undecided one is unified (a valid model needs
//! it). The extra outputs:
//! - BatchNormalization: running mean and variance (and, before opset 14, the
//!   saved mean and inverse std-dev) are `[C]`;
//! - LayerNormalization: `Mean` and `InvStdDev` keep the dims before `axis` and
//!   have 1 for the normalised ones; their type is `stash_type` (float by default);
//! - Dropout: the `mask` has the shape of `X` (bool from opset 10);
//! - Softmax/LogSoftmax/Hardmax check `axis` against the rank.
//!
//! Version history (shape-relevant):
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

use super::nn_util::{attr_dtype, check_vector, expect_rank};
use super::{attr_int, check_inputs, norm_axis, RuleEntry};
use crate::algebra::Dim;
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};

/// The rules of this family.
pub const RULES: &[RuleEntry] = &[
    ("", "BatchNormalization", batch_norm),
    ("", "LayerNormalization", layer_norm),
    ("", "InstanceNormalization", instance_norm),
    ("", "GroupNormalization", group_norm),
    ("", "LpNormalization", lp_norm),
    ("", "MeanVarianceNormalization", same_shape),
    ("", "LRN", same_shape),
    ("", "Dropout", dropout),
    ("", "Softmax", softmax),
    ("", "LogSoftmax", softmax),
    ("", "Hardmax", softmax),
];

/// The input's facts without its value: the shape of `Y` for shape-preserving ops.
fn like(x: &TensorFact) -> TensorFact {
    TensorFact {
        dtype: x.dtype,
        shape: x.shape.clone(),
        value: None,
    }
}

/// The channel dim `X[1]` when the rank is known (rank at least 2).
fn channels(x: &TensorFact, what: &str) -> Result<Option<Dim>, OpError> {
    match &x.shape {
        None => Ok(None),
        Some(s) if s.len() < 2 => Err(super::nn_util::rank_error(what, "at least 2", s.len())),
        Some(s) => Ok(Some(s[1])),
    }
}

fn batch_norm(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 5, 5)?;
    let x = ctx.input(node, 0, "X")?;
    let names = ["scale", "B", "input_mean", "input_var"];
    let spatial = attr_int(node, "spatial", 1)? != 0 || node.version >= 9;
    // The channel count: X[1], or a per-channel input's length when X has no rank.
    let mut c = channels(&x, "input X")?;
    let mut per_channel = Vec::with_capacity(4);
    for (i, what) in names.iter().enumerate() {
        per_channel.push((ctx.input(node, i + 1, what)?, *what));
    }
    if spatial {
        for (f, what) in &per_channel {
            match c {
                Some(cd) => check_vector(ctx, node, f, what, cd)?,
                None => {
                    if let Some(s) = &f.shape {
                        expect_rank(what, s, 1)?;
                        c = Some(s[0]);
                    }
                }
            }
        }
    }
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
    let one = ctx.alg.constant(1);
    let mut stat = xs[..a].to_vec();
    stat.extend(std::iter::repeat(one).take(xs.len() - a));
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
    if let Some(c) = channels(&x, "input")? {
        check_vector(ctx, node, &scale, "scale", c)?;
        check_vector(ctx, node, &b, "B", c)?;
    }
    Ok(vec![like(&x)])
}

fn group_norm(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let x = ctx.input(node, 0, "X")?;
    let scale = ctx.input(node, 1, "scale")?;
    let b = ctx.input(node, 2, "bias")?;
    let g = super::attr_int_required(node, "num_groups")?;
    if g <= 0 {
        return Err(OpError::BadAttribute {
            name: "num_groups",
            value: g.to_string(),
            why: "must be positive".to_string(),
        });
    }
    let gd = ctx.alg.constant(g);
    if let Some(c) = channels(&x, "input X")? {
        if ctx.alg.divides(gd, c) == crate::algebra::Truth::False {
            return Err(OpError::BadShapeValue {
                what: format!(
                    "channels {} are not a multiple of num_groups {g}",
                    ctx.alg.render(c)
                ),
            });
        }
        // Opset 18: scale and bias per group; opset 21: per channel.
        let len = if node.version >= 21 { c } else { gd };
        check_vector(ctx, node, &scale, "scale", len)?;
        check_vector(ctx, node, &b, "bias", len)?;
    }
    Ok(vec![like(&x)])
}

fn lp_norm(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "input")?;
    let p = attr_int(node, "p", 2)?;
    if p != 1 && p != 2 {
        return Err(OpError::BadAttribute {
            name: "p",
            value: p.to_string(),
            why: "only 1 and 2 are supported".to_string(),
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
                return Err(super::nn_util::rank_error(
                    if i == 1 { "ratio" } else { "training_mode" },
                    "0",
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
