//! Object detection: ONNX `NonMaxSuppression`; OpenVINO `NonMaxSuppression`,
//! `NMSRotated`, `MatrixNms`, `MulticlassNms`, `DetectionOutput`, `Proposal`,
//! `PriorBox`, `PriorBoxClustered`, `RegionYolo`, `ReorgYolo`, `GenerateProposals`
//! and the `ExperimentalDetectron*` ops.
//!
//! Specs: the ONNX operator reference (`NonMaxSuppression`) and the OpenVINO
//! operation specification (`NonMaxSuppression-1`, `-3`, `-4`,
//! `-5`, `-9`, `NMSRotated-13`, `MatrixNms-8`, `MulticlassNms-8`, `-9`,
//! `DetectionOutput-1`, `-8`, `Proposal-1`, `-4`, `PriorBox-1`, `-8`,
//! `PriorBoxClustered-1`, `RegionYolo-1`, `ReorgYolo-2`, `GenerateProposals-9`,
//! `ExperimentalDetectronDetectionOutput-6`,
//! `ExperimentalDetectronGenerateProposalsSingleImage-6`,
//! `ExperimentalDetectronPriorGridGenerator-6`,
//! `ExperimentalDetectronROIFeatureExtractor-6`,
//! `ExperimentalDetectronTopKROIs-6`).
//!
//! How many boxes survive a suppression depends on the data: those counts are
//! data-dependent dims (prefix `nms`), except where the spec fixes the count:
//!
//! * ONNX `NonMaxSuppression` (10, 11): `boxes [B, S, 4]` and `scores [B, C, S]`
//!   give `selected_indices [n, 3]` (int64, one row `(batch, class, box)` per kept
//!   box). `n` is 0 when `max_output_boxes_per_class` is absent or 0 (its
//!   default: no box is kept), data-dependent otherwise. `B` and `S` of the two
//!   inputs are equated; the inputs are checked as OpenVINO's are
//!   ([`nms_inputs`]).
//! * `NonMaxSuppression` 1 and 3: `[min(boxes, max_output_boxes_per_class *
//!   classes), 3]`; 4: `[min(boxes, max_output_boxes_per_class) * batch *
//!   classes, 3]` (with `boxes [batch, boxes, 4]`, `scores [batch, classes,
//!   boxes]`, the constant `max_output_boxes_per_class`, 0 when absent); 5 and 9
//!   (like `NMSRotated`): `selected_indices [n, 3]` (`output_type`),
//!   `selected_scores [n, 3]` (the scores' type), `valid_outputs [1]`.
//! * `MatrixNms`, `MulticlassNms`: `selected_outputs [n, 6]`, `selected_indices [n,
//!   1]` (`output_type`), `selected_num [batch]`.
//! * `DetectionOutput`: `[1, 1, n, 7]` with `n = batch * keep_top_k` when
//!   `keep_top_k > 0`, else `batch * top_k * classes` when `top_k > 0`, else
//!   `batch * priors * classes` (`priors` from the box logits, `classes` the
//!   attribute, or from the confidences in version 8).
//! * `Proposal`: `[batch * post_nms_topn, 5]` (and the scores `[batch *
//!   post_nms_topn]` in version 4).
//! * `PriorBox`: `[2, 4 * H * W * priors]` with `[H, W]` the `output_size` input
//!   and `priors` counted from the attributes as OpenVINO does ([`prior_count`]);
//!   `PriorBoxClustered`: `priors` is the number of `width`s.
//! * `RegionYolo`: with `do_softmax` the axes `axis..=end_axis` flattened into
//!   one; without, `[N, len(mask) * (classes + coords + 1), H, W]`.
//! * `ReorgYolo`: `[N, C * s * s, H / s, W / s]` (`stride` `s`).
//! * `GenerateProposals`: `[n, 4]`, `[n]`, `[batch]` (`roi_num_type`).
//! * The `ExperimentalDetectron*` ops have sizes fixed by attributes: `[max_rois,
//!   4]`; `[post_nms_count, 4]` and `[post_nms_count]`; `[max_detections_per_image,
//!   4]`, `[...]` (i32) and `[...]`; the prior grid `[H * W * priors, 4]` or, without
//!   `flatten`, `[H, W, priors, 4]`; the RoI features `[rois, C, output_size,
//!   output_size]` and the RoIs `[rois, 4]`.
//!
//! # Version history
//! * ONNX **NonMaxSuppression**: 10; 11 (the same shapes; clarified thresholds).
//! * OpenVINO **NonMaxSuppression**: 1; 3 `output_type`; 4 output counted over the
//!   batch and classes; 5 scores and valid outputs, data-dependent count; 9 types.
//! * **MatrixNms**: 8. **MulticlassNms**: 8; 9 (optional `roisnum` input).
//!   **NMSRotated**: 13. **DetectionOutput**: 1; 8 (`num_classes` dropped).
//!   **Proposal**: 1; 4 (the scores output). **PriorBox**: 1; 8
//!   (`min_max_aspect_ratios_order`). **PriorBoxClustered**: 1. **RegionYolo**: 1.
//!   **ReorgYolo**: 2. **GenerateProposals**: 9. **ExperimentalDetectron***: 6.

use crate::algebra::{Dim, SymbolKind, Truth};
use crate::context::DimRole;
use crate::context::{AttrProblem, AttrValue, ShapeValueProblem};
use crate::context::{Expected, OpError, ShapesContext, TensorFact};
use crate::graph::{Attr, DType, Node};
use crate::ops::common::attrs::attr_int;
use crate::ops::common::attrs::{ov_bool, ov_dtype, ov_i64, ov_i64_list, require_positive};
use crate::ops::common::dims::{expect_rank, rank_of, shaped, unify_as};
use crate::ops::common::values::const_ints;
use crate::ops::common::{check_inputs, fresh_dims};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["NonMaxSuppression"], non_max_suppression),
    ("openvino", ["NonMaxSuppression", "NMSRotated"], ov_nms),
    ("openvino", ["MatrixNms", "MulticlassNms"], ov_multiclass_nms),
    ("openvino", ["DetectionOutput"], ov_detection_output),
    ("openvino", ["Proposal"], ov_proposal),
    ("openvino", ["PriorBox", "PriorBoxClustered"], ov_prior_box),
    ("openvino", ["RegionYolo"], ov_region_yolo),
    ("openvino", ["ReorgYolo"], ov_reorg_yolo),
    ("openvino", ["GenerateProposals"], ov_generate_proposals),
    ("openvino", ["ExperimentalDetectronTopKROIs"], ov_detectron_topk_rois),
    ("openvino", ["ExperimentalDetectronGenerateProposalsSingleImage"], ov_detectron_proposals),
    ("openvino", ["ExperimentalDetectronDetectionOutput"], ov_detectron_detection_output),
    ("openvino", ["ExperimentalDetectronPriorGridGenerator"], ov_detectron_prior_grid),
    ("openvino", ["ExperimentalDetectronROIFeatureExtractor"], ov_detectron_roi_features),
];

/// A data-dependent count of selected boxes (prefix `nms`).
fn selected(ctx: &mut ShapesContext, node: &Node) -> Dim {
    let kind = SymbolKind::DataDependent {
        node: node.name.clone(),
    };
    ctx.fresh_dim(node, 0, 0, "nms", kind)
}

/// Check the inputs of a non-maximum suppression where their ranks are known:
/// `boxes [B, S, box_len]` and `scores [B, C, S]`, both of rank 3.
pub fn nms_inputs(
    ctx: &ShapesContext,
    boxes: Option<&[Dim]>,
    scores: Option<&[Dim]>,
    box_len: i64,
) -> Result<(), OpError> {
    if let Some(b) = boxes {
        expect_rank("boxes", b, 3)?;
        if ctx.alg.as_i64(b[2]).is_some_and(|d| d != box_len) {
            return Err(OpError::BadShapeValue(Box::new(
                ShapeValueProblem::BoxCoordinates {
                    expected: box_len,
                    found: ctx.alg.expr(b[2]),
                },
            )));
        }
    }
    if let Some(s) = scores {
        expect_rank("scores", s, 3)?;
    }
    Ok(())
}

/// A required attribute read as an integer.
fn required_i64(node: &Node, name: &'static str) -> Result<i64, OpError> {
    ov_i64(node, name)?.ok_or(OpError::MissingAttribute { name })
}

/// ONNX `NonMaxSuppression` (10, 11): `selected_indices [n, 3]`, int64.
fn non_max_suppression(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 5)?;
    let boxes = ctx.input(node, 0, "boxes")?;
    let scores = ctx.input(node, 1, "scores")?;
    let center = attr_int(node, "center_point_box", 0)?;
    if !(0..=1).contains(&center) {
        return Err(OpError::BadAttribute {
            name: "center_point_box",
            value: AttrValue::Int(center),
            why: Box::new(AttrProblem::one_of_ints(&[0, 1])),
        });
    }
    nms_inputs(ctx, boxes.shape.as_deref(), scores.shape.as_deref(), 4)?;
    if let (Some(b), Some(s)) = (&boxes.shape, &scores.shape) {
        unify_as(
            ctx,
            node,
            DimRole::of("batch", ("boxes", "scores")),
            b[0],
            s[0],
        )?;
        unify_as(
            ctx,
            node,
            DimRole::of("boxes", ("boxes", "scores")),
            b[1],
            s[2],
        )?;
    }
    for (index, what) in [
        (2, "max_output_boxes_per_class"),
        (3, "iou_threshold"),
        (4, "score_threshold"),
    ] {
        if let Some(f) = ctx.optional_input(node, index)? {
            if let Some(s) = &f.shape {
                let one = ctx.alg.constant(1);
                let ok = s.is_empty() || (s.len() == 1 && ctx.alg.equal(s[0], one) != Truth::False);
                if !ok {
                    return Err(rank_of(
                        what,
                        Expected::either(&[0, 1]).noted("one element"),
                        s.len(),
                    ));
                }
            }
        }
    }
    // No `max_output_boxes_per_class`, or 0: no box is kept.
    let max_out = match ctx.optional_input(node, 2)? {
        None => Some(0),
        Some(f) => const_ints(&ctx.alg, &f).and_then(|v| v.first().copied()),
    };
    let n = match max_out {
        Some(m) if m <= 0 => ctx.alg.constant(0),
        _ => selected(ctx, node),
    };
    let three = ctx.alg.constant(3);
    Ok(vec![TensorFact::new(DType::Int64, vec![n, three])])
}

/// OpenVINO NonMaxSuppression (1, 3, 4, 5, 9) and NMSRotated-13.
fn ov_nms(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 6)?;
    let boxes = ctx.input(node, 0, "boxes")?;
    let scores = ctx.input(node, 1, "scores")?;
    let rotated = node.op_type == "NMSRotated";
    let box_len = if rotated { 5 } else { 4 };
    nms_inputs(
        ctx,
        boxes.shape.as_deref(),
        scores.shape.as_deref(),
        box_len,
    )?;
    let index = if node.version >= 3 || rotated {
        ov_dtype(node, "output_type")?.unwrap_or(DType::Int64)
    } else {
        DType::Int64
    };
    let three = ctx.alg.constant(3);
    if node.version >= 5 || rotated {
        let n = selected(ctx, node);
        let one = ctx.alg.constant(1);
        return Ok(vec![
            TensorFact::new(index, vec![n, three]),
            TensorFact::new(scores.dtype, vec![n, three]),
            TensorFact::new(index, vec![one]),
        ]);
    }
    let max_out = match node.input(2) {
        None => Some(0),
        Some(_) => const_ints(&ctx.alg, &ctx.input(node, 2, "max_output_boxes_per_class")?)
            .and_then(|v| v.first().copied()),
    };
    let n = match (&boxes.shape, &scores.shape, max_out) {
        (Some(b), Some(s), Some(m)) => {
            let m = ctx.alg.constant(m.max(0));
            if node.version >= 4 {
                let per = ctx.alg.min(b[1], m);
                ctx.alg.product(&[per, s[0], s[1]])
            } else {
                let all = ctx.alg.mul(m, s[1]);
                ctx.alg.min(b[1], all)
            }
        }
        _ => selected(ctx, node),
    };
    Ok(vec![TensorFact::new(index, vec![n, three])])
}

/// OpenVINO MatrixNms-8 and MulticlassNms-8, -9.
fn ov_multiclass_nms(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 3)?;
    let boxes = ctx.input(node, 0, "boxes")?;
    let index = ov_dtype(node, "output_type")?.unwrap_or(DType::Int64);
    let batch = match node.input(2) {
        // MulticlassNms-9 with `roisnum [batch]`
        Some(_) => match ctx.input(node, 2, "roisnum")?.shape.as_deref() {
            Some([b]) => *b,
            Some(s) => return Err(rank_of("roisnum", 1, s.len())),
            None => ctx.unknown_dim(node, 2, 0),
        },
        None => match boxes.shape.as_deref() {
            Some([b, _, _]) => *b,
            Some(s) => return Err(rank_of("boxes", 3, s.len())),
            None => ctx.unknown_dim(node, 2, 0),
        },
    };
    let n = selected(ctx, node);
    let (one, six) = (ctx.alg.constant(1), ctx.alg.constant(6));
    Ok(vec![
        TensorFact::new(boxes.dtype, vec![n, six]),
        TensorFact::new(index, vec![n, one]),
        TensorFact::new(index, vec![batch]),
    ])
}

/// OpenVINO DetectionOutput (1, 8): inputs box logits `[N, priors * 4 *
/// loc_classes]`, confidences `[N, priors * classes]`, prior boxes.
fn ov_detection_output(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 5)?;
    let loc = ctx.input(node, 0, "box_logits")?;
    let conf = ctx.input(node, 1, "class_preds")?;
    let keep = ov_i64_list(node, "keep_top_k")?.unwrap_or_default();
    let keep = keep.first().copied().unwrap_or(-1);
    let top_k = ov_i64(node, "top_k")?.unwrap_or(-1);
    let share = ov_bool(node, "share_location", true)?;
    let seven = ctx.alg.constant(7);
    let one = ctx.alg.constant(1);
    let (Some(ls), Some(cs)) = (&loc.shape, &conf.shape) else {
        let n = selected(ctx, node);
        return Ok(vec![TensorFact::new(loc.dtype, vec![one, one, n, seven])]);
    };
    expect_rank("box_logits", ls, 2)?;
    expect_rank("class_preds", cs, 2)?;
    let batch = ls[0];
    let classes = if node.version >= 8 {
        None
    } else {
        Some(ctx.alg.constant(required_i64(node, "num_classes")?))
    };
    let n = if keep > 0 {
        let k = ctx.alg.constant(keep);
        ctx.alg.mul(batch, k)
    } else {
        // priors from the box logits: [N, priors * 4 * loc_classes]
        let per = match (share, classes) {
            (true, _) => Some(ctx.alg.constant(4)),
            (false, Some(c)) => {
                let four = ctx.alg.constant(4);
                Some(ctx.alg.mul(four, c))
            }
            (false, None) => None,
        };
        let priors = per.and_then(|p| ctx.alg.div(ls[1], p).ok());
        let classes = match (classes, priors) {
            (Some(c), _) => Some(c),
            (None, Some(p)) => ctx.alg.div(cs[1], p).ok(),
            (None, None) => None,
        };
        match (classes, priors) {
            (Some(c), _) if top_k > 0 => {
                let t = ctx.alg.constant(top_k);
                ctx.alg.product(&[batch, t, c])
            }
            (Some(c), Some(p)) => ctx.alg.product(&[batch, p, c]),
            _ => selected(ctx, node),
        }
    };
    Ok(vec![TensorFact::new(loc.dtype, vec![one, one, n, seven])])
}

/// OpenVINO Proposal (1, 4): `class_probs [N, 2 * anchors, H, W]`.
fn ov_proposal(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let probs = ctx.input(node, 0, "class_probs")?;
    let post = required_i64(node, "post_nms_topn")?;
    let batch = match probs.shape.as_deref() {
        Some(s) if s.len() == 4 => s[0],
        Some(s) => return Err(rank_of("class_probs", 4, s.len())),
        None => ctx.unknown_dim(node, 0, 0),
    };
    let p = ctx.alg.constant(post);
    let n = ctx.alg.mul(batch, p);
    let five = ctx.alg.constant(5);
    let mut out = vec![TensorFact::new(probs.dtype, vec![n, five])];
    if node.version >= 4 {
        out.push(TensorFact::new(probs.dtype, vec![n]));
    }
    Ok(out)
}

/// A float-list attribute (empty when absent).
fn floats(node: &Node, name: &'static str) -> Result<Vec<f64>, OpError> {
    match node.attr(name) {
        None => Ok(Vec::new()),
        Some(Attr::Floats(v)) => Ok(v.clone()),
        Some(Attr::Float(v)) => Ok(vec![*v]),
        Some(Attr::Ints(v)) => Ok(v.iter().map(|x| *x as f64).collect()),
        Some(Attr::Int(v)) => Ok(vec![*v as f64]),
        Some(other) => Err(crate::ops::common::attrs::bad_attr(
            name,
            other,
            AttrProblem::ExpectedKind("a comma-separated list of numbers"),
        )),
    }
}

/// The attributes of a PriorBox that decide how many priors it places at each
/// point.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PriorBoxSizes {
    /// How many `min_size` entries.
    pub min_size: usize,
    /// How many `max_size` entries.
    pub max_size: usize,
    /// `aspect_ratio`.
    pub aspect_ratio: Vec<f64>,
    /// `flip`: the inverse ratios too.
    pub flip: bool,
    /// `scale_all_sizes`.
    pub scale_all_sizes: bool,
    /// How many `fixed_size` entries.
    pub fixed_size: usize,
    /// How many `fixed_ratio` entries.
    pub fixed_ratio: usize,
    /// `density`.
    pub density: Vec<f64>,
}

/// The number of priors a PriorBox places at each point, as OpenVINO counts them:
/// `ratios` is the number of distinct aspect ratios (1, the given ones, and their
/// inverses with `flip`); `ratios * |min_size| + |max_size|` with
/// `scale_all_sizes`, else `ratios + |min_size| - 1`; `ratios * |fixed_size|` when
/// fixed sizes are given; and for each `density` `d`, `(d * d - 1)` times the
/// number of fixed ratios (or of ratios).
pub fn prior_count(a: &PriorBoxSizes) -> i64 {
    let mut ratios: Vec<f64> = vec![1.0];
    for &r in &a.aspect_ratio {
        for v in [Some(r), a.flip.then(|| 1.0 / r)].into_iter().flatten() {
            if !ratios.iter().any(|x| (x - v).abs() < 1e-6) {
                ratios.push(v);
            }
        }
    }
    let ratios = ratios.len() as i64;
    // saturating: hostile attributes must not overflow
    let (min, max) = (a.min_size as i64, a.max_size as i64);
    let mut n = if a.scale_all_sizes {
        ratios.saturating_mul(min).saturating_add(max)
    } else {
        ratios.saturating_add(min) - 1
    };
    if a.fixed_size > 0 {
        n = ratios.saturating_mul(a.fixed_size as i64);
    }
    for &d in &a.density {
        let d = d as i64;
        let d2 = d.saturating_mul(d).saturating_sub(1);
        let per = if a.fixed_ratio > 0 {
            a.fixed_ratio as i64
        } else {
            ratios
        };
        n = n.saturating_add(per.saturating_mul(d2));
    }
    n
}

/// OpenVINO PriorBox (1, 8) and PriorBoxClustered-1: `[2, 4 * H * W * priors]`.
fn ov_prior_box(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let size = ctx.input(node, 0, "output_size")?;
    let priors = if node.op_type == "PriorBoxClustered" {
        floats(node, "width")?.len() as i64
    } else {
        prior_count(&PriorBoxSizes {
            min_size: floats(node, "min_size")?.len(),
            max_size: floats(node, "max_size")?.len(),
            aspect_ratio: floats(node, "aspect_ratio")?,
            flip: ov_bool(node, "flip", false)?,
            scale_all_sizes: ov_bool(node, "scale_all_sizes", true)?,
            fixed_size: floats(node, "fixed_size")?.len(),
            fixed_ratio: floats(node, "fixed_ratio")?.len(),
            density: floats(node, "density")?,
        })
    };
    let two = ctx.alg.constant(2);
    let n = match size.value.as_deref() {
        Some([h, w]) => {
            let k = ctx.alg.constant(priors.saturating_mul(4));
            ctx.alg.product(&[*h, *w, k])
        }
        _ => ctx.unknown_dim(node, 0, 1),
    };
    Ok(vec![TensorFact::new(DType::Float, vec![two, n])])
}

/// OpenVINO RegionYolo-1.
fn ov_region_yolo(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "data")?;
    let Some(xs) = &x.shape else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    if ov_bool(node, "do_softmax", true)? {
        let axis = crate::ops::common::norm_axis(ov_i64(node, "axis")?.unwrap_or(1), xs.len())?;
        let end = crate::ops::common::norm_axis(ov_i64(node, "end_axis")?.unwrap_or(-1), xs.len())?;
        if end < axis {
            return Ok(vec![TensorFact::new(x.dtype, xs.clone())]);
        }
        let mut out = xs[..axis].to_vec();
        out.push(ctx.alg.product(&xs[axis..=end]));
        out.extend_from_slice(&xs[end + 1..]);
        return Ok(vec![TensorFact::new(x.dtype, out)]);
    }
    expect_rank("data", xs, 4)?;
    let mask = ov_i64_list(node, "mask")?.unwrap_or_default().len() as i64;
    let classes = required_i64(node, "classes")?;
    let coords = required_i64(node, "coords")?;
    let per = classes.saturating_add(coords).saturating_add(1);
    let c = ctx.alg.constant(mask.saturating_mul(per));
    Ok(vec![TensorFact::new(x.dtype, vec![xs[0], c, xs[2], xs[3]])])
}

/// OpenVINO ReorgYolo-2.
fn ov_reorg_yolo(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "data")?;
    let stride = ov_i64_list(node, "stride")?
        .and_then(|v| v.first().copied())
        .ok_or(OpError::MissingAttribute { name: "stride" })?;
    require_positive("stride", stride)?;
    let Some(xs) = &x.shape else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    expect_rank("data", xs, 4)?;
    let s = ctx.alg.constant(stride);
    let ss = ctx.alg.constant(stride.saturating_mul(stride));
    let c = ctx.alg.mul(xs[1], ss);
    let h = crate::ops::tensor::depth_space::quotient(ctx, xs[2], s)?;
    let w = crate::ops::tensor::depth_space::quotient(ctx, xs[3], s)?;
    Ok(vec![TensorFact::new(x.dtype, vec![xs[0], c, h, w])])
}

/// OpenVINO GenerateProposals-9: `scores [batch, anchors, H, W]` (input 3).
fn ov_generate_proposals(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 4, 4)?;
    let scores = ctx.input(node, 3, "scores")?;
    let index = ov_dtype(node, "roi_num_type")?.unwrap_or(DType::Int64);
    let batch = match scores.shape.as_deref() {
        Some(s) if s.len() == 4 => s[0],
        Some(s) => return Err(rank_of("scores", 4, s.len())),
        None => ctx.unknown_dim(node, 2, 0),
    };
    let n = selected(ctx, node);
    let four = ctx.alg.constant(4);
    Ok(vec![
        TensorFact::new(scores.dtype, vec![n, four]),
        TensorFact::new(scores.dtype, vec![n]),
        TensorFact::new(index, vec![batch]),
    ])
}

/// OpenVINO ExperimentalDetectronTopKROIs-6: `[max_rois, 4]`.
fn ov_detectron_topk_rois(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let rois = ctx.input(node, 0, "rois")?;
    let n = ctx.alg.constant(required_i64(node, "max_rois")?);
    let four = ctx.alg.constant(4);
    Ok(vec![TensorFact::new(rois.dtype, vec![n, four])])
}

/// OpenVINO ExperimentalDetectronGenerateProposalsSingleImage-6.
fn ov_detectron_proposals(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 4, 4)?;
    let info = ctx.input(node, 0, "im_info")?;
    let n = ctx.alg.constant(required_i64(node, "post_nms_count")?);
    let four = ctx.alg.constant(4);
    Ok(vec![
        TensorFact::new(info.dtype, vec![n, four]),
        TensorFact::new(info.dtype, vec![n]),
    ])
}

/// OpenVINO ExperimentalDetectronDetectionOutput-6.
fn ov_detectron_detection_output(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 4, 4)?;
    let rois = ctx.input(node, 0, "rois")?;
    let n = ctx
        .alg
        .constant(required_i64(node, "max_detections_per_image")?);
    let four = ctx.alg.constant(4);
    Ok(vec![
        TensorFact::new(rois.dtype, vec![n, four]),
        TensorFact::new(DType::Int32, vec![n]),
        TensorFact::new(rois.dtype, vec![n]),
    ])
}

/// OpenVINO ExperimentalDetectronPriorGridGenerator-6: priors `[P, 4]`, the
/// feature map `[N, C, H, W]` (`h`, `w` override `H`, `W` when positive).
fn ov_detectron_prior_grid(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let priors = ctx.input(node, 0, "priors")?;
    let fmap = ctx.input(node, 1, "feature_map")?;
    let flatten = ov_bool(node, "flatten", true)?;
    let p = match priors.shape.as_deref() {
        Some([p, _]) => *p,
        Some(s) => return Err(rank_of("priors", 2, s.len())),
        None => ctx.unknown_dim(node, 0, 0),
    };
    let (h, w) = match fmap.shape.as_deref() {
        Some([_, _, h, w]) => (*h, *w),
        Some(s) => return Err(rank_of("feature_map", 4, s.len())),
        None => {
            let d = fresh_dims(ctx, node, 0, 2);
            (d[0], d[1])
        }
    };
    let pick = |ctx: &mut ShapesContext, name, d| -> Result<Dim, OpError> {
        Ok(match ov_i64(node, name)? {
            Some(v) if v > 0 => ctx.alg.constant(v),
            _ => d,
        })
    };
    let h = pick(ctx, "h", h)?;
    let w = pick(ctx, "w", w)?;
    let four = ctx.alg.constant(4);
    let out = if flatten {
        vec![ctx.alg.product(&[h, w, p]), four]
    } else {
        vec![h, w, p, four]
    };
    Ok(vec![TensorFact::new(priors.dtype, out)])
}

/// OpenVINO ExperimentalDetectronROIFeatureExtractor-6: RoIs `[R, 4]` and feature
/// maps `[N, C, H, W]`.
fn ov_detectron_roi_features(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    if node.input_count() < 2 {
        return Err(OpError::InputCount {
            expected: Expected::AtLeast(2),
            found: node.input_count(),
        });
    }
    let rois = ctx.input(node, 0, "rois")?;
    let fmap = ctx.input(node, 1, "feature_map")?;
    let size = ov_i64_list(node, "output_size")?
        .and_then(|v| v.first().copied())
        .ok_or(OpError::MissingAttribute {
            name: "output_size",
        })?;
    let r = match rois.shape.as_deref() {
        Some([r, _]) => *r,
        Some(s) => return Err(rank_of("rois", 2, s.len())),
        None => ctx.unknown_dim(node, 0, 0),
    };
    let c = match fmap.shape.as_deref() {
        Some([_, c, _, _]) => *c,
        Some(s) => return Err(rank_of("feature_map", 4, s.len())),
        None => ctx.unknown_dim(node, 0, 1),
    };
    let s = ctx.alg.constant(size);
    let four = ctx.alg.constant(4);
    Ok(vec![
        TensorFact::new(rois.dtype, vec![r, c, s, s]),
        shaped(rois.dtype, Some(vec![r, four])),
    ])
}
