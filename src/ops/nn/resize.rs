//! Resizing: ONNX Resize and Upsample, OpenVINO Interpolate, oneDNN
//! Interpolate and InterpolateBackward.
//!
//! Specs: <https://onnx.ai/onnx/operators/onnx__Resize.html>,
//! <https://onnx.ai/onnx/operators/onnx__Upsample.html>; the OpenVINO operation
//! specifications (`Interpolate-1`, `-4`, `-11`); oneDNN Graph's `Interpolate`
//! and `InterpolateBackward` documents.
//!
//! The output has the rank of the input. Each resized axis gets
//! - from sizes: the size itself, a symbolic dim when the sizes tensor was
//!   computed from shapes; with ONNX's `keep_aspect_ratio_policy` `not_larger`
//!   (`not_smaller`) one scale, the min (max) of `sizes[i] / X[i]` over the axes,
//!   applies to every axis and the size is `round(scale * X[i])` (half away from
//!   zero), computed exactly when the dims are constants and a fresh dim otherwise;
//! - from scales: `floor(X[i] * scale)` ([`floor_scale`]), computed exactly as
//!   `floordiv(X[i] * p, q)` with `scale = p / q`. A float scale is read as the
//!   simplest fraction `p/q` (`q <= 1024`) whose float32 rounding is the stored
//!   value ([`snap_scale`], [`exact_scale`]), so `0.7f` is `7/10` (what the
//!   runtimes' float arithmetic gives for such inputs) rather than its exact
//!   binary expansion; a value with no such fraction keeps its exact binary
//!   expansion.
//!
//! One kernel, [`resize_dims`], sizes the resized axes of every format from their
//! scales or sizes ([`AxisSizes`]); each format's rule reads its own inputs and
//! attributes, checks them as its spec says and picks the axes.
//!
//! Which axes are resized: ONNX every axis (or its `axes`, opset 18); OpenVINO
//! the `axes` attribute (Interpolate-1) or input (4, 11; every axis when absent),
//! after the `pads_begin`/`pads_end` attributes pad the input; oneDNN the spatial
//! axes of its `data_format`.
//!
//! ONNX: a non-positive scale, both `scales` and `sizes` given, neither given, or a
//! length other than the rank (or the number of `axes`) is an error. Scales or
//! sizes that are not known give fresh dims on the resized axes (every format).
//!
//! Version history, ONNX (shape-relevant):
//! - Upsample-1 (experimental): 4-D input, float attributes `height_scale` and
//!   `width_scale` giving `floor(H * height_scale)` and `floor(W * width_scale)`;
//!   -7: `scales` attribute (one per axis); -9: `scales` input; -10: deprecated
//!   (same shape rule).
//! - Resize-10: inputs `X, scales`.
//! - Resize-11: inputs `X, roi, scales, sizes`; exactly one of `scales`/`sizes`
//!   (an empty `scales` tensor stands for "absent").
//! - Resize-13: `roi` and `scales` optional.
//! - Resize-18: `axes` and `keep_aspect_ratio_policy` attributes, `antialias`.
//! - Resize-19: `half_pixel_symmetric` coordinate mode (no shape change).
//!
//! Version history, OpenVINO: Interpolate-1 (input 1 is the target spatial shape,
//! `axes` attribute); -4 (inputs sizes, scales, optional axes;
//! `shape_calculation_mode` sizes or scales; pads); -11 (inputs scales_or_sizes,
//! optional axes).
//!
//! oneDNN (version 1): Interpolate (`sizes` or `scales` attributes,
//! `data_format`); InterpolateBackward(src, diff_dst, sizes?) gives `src`'s shape,
//! `diff_dst` checked against the interpolated `src` when an attribute gives it.

use crate::algebra::{Dim, Rat};
use crate::context::DimRole;
use crate::context::{AttrFloat, AttrProblem, AttrValue, LengthForm, ShapeValueProblem};
use crate::context::{Expected, OpError, ShapesContext, TensorFact};
use crate::graph::{Attr, Node};
use crate::ops::common::attrs::{attr_ints, attr_str};
use crate::ops::common::attrs::{bad_attr, dst_dtype, ov_i64_list, ov_str};
use crate::ops::common::check_inputs;
use crate::ops::common::dims::{merge_dims_as, onednn_src_and_diff_dst, Layout, SrcAndDiffDst};
use crate::ops::common::values::{attr_axes, const_ints, const_len, norm_axes};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["Resize"], resize),
    ("", ["Upsample"], upsample),
    ("openvino", ["Interpolate"], openvino_interpolate),
    ("onednn", ["Interpolate"], onednn_interpolate),
    ("onednn", ["InterpolateBackward"], onednn_interpolate_backward),
];

/// The fraction with the smallest denominator (at most 1024) whose float32
/// rounding equals `v` rounded to float32; `v` exactly when there is none.
pub fn snap_scale(v: f64) -> Option<Rat> {
    if !v.is_finite() {
        return None;
    }
    let target = v as f32;
    for q in 1..=1024i64 {
        let p = (v * q as f64).round();
        if p.abs() > 1e15 {
            break;
        }
        if (p / q as f64) as f32 == target {
            return Rat::frac(p as i64, q);
        }
    }
    crate::context::float_rat(v)
}

/// A scale value as a rational: snapped ([`snap_scale`]) when it is not already a
/// fraction with a denominator of at most 1024.
pub fn exact_scale(r: &Rat) -> Option<Rat> {
    // Values of float tensors are stored as the exact rational of the float.
    let (n, d) = (r.numer(), r.denom());
    let small = d <= num_bigint::BigInt::from(1024);
    if small {
        return Some(r.clone());
    }
    let v = n.to_string().parse::<f64>().ok()? / d.to_string().parse::<f64>().ok()?;
    snap_scale(v)
}

/// `floor(input * scale)` as `floordiv(input * p, q)`.
pub fn floor_scale(ctx: &mut ShapesContext, input: Dim, scale: &Rat) -> Dim {
    let p = ctx.alg.rational(Rat::from_bigint(scale.numer()));
    let q = ctx.alg.rational(Rat::from_bigint(scale.denom()));
    let prod = ctx.alg.mul(input, p);
    ctx.alg.floordiv(prod, q)
}

/// What gives the output size of each resized axis (one entry per axis; `None`
/// where the entry is not known).
#[derive(Clone, Debug)]
pub enum AxisSizes {
    /// Scales: `floor(in * scale)` ([`floor_scale`]).
    Scales(Vec<Option<Rat>>),
    /// The sizes themselves.
    Sizes(Vec<Option<Dim>>),
}

/// The resize kernel of every format (ONNX Resize and Upsample, OpenVINO and
/// oneDNN Interpolate): `input` with axis `axes[j]` resized by entry `j` of
/// `target`, a fresh dim where the entry is not known. The formats' adapters read
/// and check their scales or sizes, and choose the axes.
pub fn resize_dims(
    ctx: &mut ShapesContext,
    node: &Node,
    input: &[Dim],
    axes: &[usize],
    target: &AxisSizes,
) -> Vec<Dim> {
    let mut out = input.to_vec();
    for (j, &a) in axes.iter().enumerate() {
        let size = match target {
            AxisSizes::Scales(s) => s
                .get(j)
                .cloned()
                .flatten()
                .map(|s| floor_scale(ctx, input[a], &s)),
            AxisSizes::Sizes(s) => s.get(j).copied().flatten(),
        };
        out[a] = match size {
            Some(d) => d,
            None => ctx.unknown_dim(node, 0, a),
        };
    }
    out
}

/// The scales of an ONNX node, each positive (an error names the axis).
fn positive_scales(axes: &[usize], scales: &[Option<Rat>]) -> Result<(), OpError> {
    for (s, a) in scales.iter().zip(axes) {
        if let Some(s) = s.as_ref().filter(|s| !s.is_positive()) {
            return Err(OpError::BadShapeValue(Box::new(
                ShapeValueProblem::ScaleNotPositive {
                    scale: s.clone(),
                    axis: *a,
                },
            )));
        }
    }
    Ok(())
}

/// An input that counts as given: present and not an empty tensor.
fn given(ctx: &ShapesContext, f: Option<TensorFact>) -> Option<TensorFact> {
    let f = f?;
    (const_len(&ctx.alg, &f) != Some(0)).then_some(f)
}

/// The number of entries of a 1-D tensor, when known.
fn vec_len(ctx: &ShapesContext, f: &TensorFact) -> Option<usize> {
    if let Some(v) = &f.value {
        return Some(v.len());
    }
    const_len(&ctx.alg, f).and_then(|n| usize::try_from(n).ok())
}

/// How the resized axes get their sizes.
enum Target {
    Scales(TensorFact),
    Sizes(TensorFact),
}

fn resize(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let x = ctx.input(node, 0, "X")?;
    let target = if node.version < 11 {
        check_inputs(node, 2, 2)?;
        Target::Scales(ctx.input(node, 1, "scales")?)
    } else {
        check_inputs(node, 1, 4)?;
        let scales = ctx.optional_input(node, 2)?;
        let sizes = ctx.optional_input(node, 3)?;
        match (given(ctx, scales), given(ctx, sizes)) {
            (Some(_), Some(_)) => {
                return Err(OpError::BadShapeValue(Box::new(ShapeValueProblem::Fixed(
                    "only one of scales and sizes may be given",
                ))))
            }
            (Some(s), None) => Target::Scales(s),
            (None, Some(s)) => Target::Sizes(s),
            (None, None) => {
                return Err(OpError::BadShapeValue(Box::new(ShapeValueProblem::Fixed(
                    "one of scales and sizes is required",
                ))))
            }
        }
    };
    let axes_attr = if node.version >= 18 {
        attr_ints(node, "axes")?.map(<[i64]>::to_vec)
    } else {
        None
    };
    let policy = if node.version >= 18 {
        attr_str(node, "keep_aspect_ratio_policy")?.unwrap_or("stretch")
    } else {
        "stretch"
    };
    if !matches!(policy, "stretch" | "not_larger" | "not_smaller") {
        return Err(OpError::BadAttribute {
            name: "keep_aspect_ratio_policy",
            value: AttrValue::Str(policy.to_string()),
            why: Box::new(AttrProblem::one_of(&[
                "stretch",
                "not_larger",
                "not_smaller",
            ])),
        });
    }
    let tensor = match &target {
        Target::Scales(t) | Target::Sizes(t) => t,
    };
    // The rank: X's, or the length of scales/sizes when they cover every axis.
    let rank = match (x.rank(), &axes_attr) {
        (Some(r), _) => r,
        (None, None) => match vec_len(ctx, tensor) {
            Some(n) => n,
            None => return Ok(vec![TensorFact::unknown(x.dtype)]),
        },
        (None, Some(_)) => return Ok(vec![TensorFact::unknown(x.dtype)]),
    };
    let axes: Vec<usize> = match &axes_attr {
        None => (0..rank).collect(),
        Some(a) => attr_axes(a, rank)?,
    };
    if let Some(n) = vec_len(ctx, tensor) {
        if n != axes.len() {
            let what = if matches!(target, Target::Scales(_)) {
                "scales"
            } else {
                "sizes"
            };
            return Err(OpError::BadShapeValue(Box::new(
                ShapeValueProblem::Entries {
                    what,
                    found: n,
                    expected: Expected::Exactly(axes.len()).noted("one per resized axis"),
                },
            )));
        }
    }
    let input: Vec<Dim> = match &x.shape {
        Some(s) => s.clone(),
        None => (0..rank).map(|a| ctx.unknown_dim(node, 0, a)).collect(),
    };
    let out = match &target {
        Target::Scales(t) => {
            let values: Option<Vec<Rat>> = t
                .value
                .as_ref()
                .and_then(|v| v.iter().map(|d| ctx.alg.as_const(*d)).collect());
            let scales: Vec<Option<Rat>> = match values {
                Some(v) => v.iter().map(exact_scale).collect(),
                None => vec![None; axes.len()],
            };
            positive_scales(&axes, &scales)?;
            resize_dims(ctx, node, &input, &axes, &AxisSizes::Scales(scales))
        }
        Target::Sizes(t) => {
            let Some(sizes) = t.value.clone() else {
                let unknown = AxisSizes::Sizes(vec![None; axes.len()]);
                let out = resize_dims(ctx, node, &input, &axes, &unknown);
                return Ok(vec![TensorFact::new(x.dtype, out)]);
            };
            for (j, s) in sizes.iter().enumerate() {
                if ctx.alg.as_i64(*s).is_some_and(|v| v <= 0) {
                    return Err(OpError::BadShapeValue(Box::new(
                        ShapeValueProblem::SizeNotPositive {
                            size: ctx.alg.expr(*s),
                            axis: axes[j],
                        },
                    )));
                }
            }
            if policy == "stretch" {
                let sizes = AxisSizes::Sizes(sizes.into_iter().map(Some).collect());
                resize_dims(ctx, node, &input, &axes, &sizes)
            } else {
                let mut out = input.clone();
                keep_aspect(
                    ctx,
                    node,
                    policy == "not_larger",
                    &axes,
                    &input,
                    &sizes,
                    &mut out,
                );
                out
            }
        }
    };
    Ok(vec![TensorFact::new(x.dtype, out)])
}

/// `keep_aspect_ratio_policy` not_larger / not_smaller: one scale for every
/// resized axis, then `round(scale * in)`.
fn keep_aspect(
    ctx: &mut ShapesContext,
    node: &Node,
    not_larger: bool,
    axes: &[usize],
    input: &[Dim],
    sizes: &[Dim],
    out: &mut [Dim],
) {
    let consts: Option<Vec<(i64, i64)>> = axes
        .iter()
        .zip(sizes)
        .map(|(&a, s)| Some((ctx.alg.as_i64(input[a])?, ctx.alg.as_i64(*s)?)))
        .collect();
    let scale = consts.and_then(|pairs| {
        let mut best: Option<Rat> = None;
        for (i, s) in pairs {
            let r = Rat::frac(s, i)?;
            best = Some(match best {
                None => r,
                Some(b) => {
                    let pick_r = if not_larger { r < b } else { r > b };
                    if pick_r {
                        r
                    } else {
                        b
                    }
                }
            });
        }
        best
    });
    for &a in axes {
        out[a] = match &scale {
            Some(s) => {
                // round half away from zero of a positive value: floor(x + 1/2).
                let prod = ctx.alg.rational(s.clone());
                let x = ctx.alg.mul(input[a], prod);
                let half = ctx.alg.rational(Rat::frac(1, 2).unwrap_or_else(Rat::one));
                let shifted = ctx.alg.add_dims(x, half);
                let one = ctx.alg.constant(1);
                ctx.alg.floordiv(shifted, one)
            }
            None => ctx.unknown_dim(node, 0, a),
        };
    }
}

/// A float attribute read as a scale ([`snap_scale`]): required, finite and
/// positive.
fn scale_attr(node: &Node, name: &'static str) -> Result<Rat, OpError> {
    match node.attr(name) {
        Some(Attr::Float(v)) => {
            snap_scale(*v)
                .filter(Rat::is_positive)
                .ok_or_else(|| OpError::BadAttribute {
                    name,
                    value: AttrValue::Float(AttrFloat(*v)),
                    why: Box::new(AttrProblem::Fixed("must be finite and positive")),
                })
        }
        Some(other) => Err(bad_attr(name, other, AttrProblem::ExpectedKind("a float"))),
        None => Err(OpError::MissingAttribute { name }),
    }
}

/// Upsample-1 (experimental): a 4-D `X = [N, C, H, W]` and the float attributes
/// `height_scale` and `width_scale`; `N` and `C` are kept.
fn upsample_v1(
    ctx: &mut ShapesContext,
    node: &Node,
    x: &TensorFact,
) -> Result<TensorFact, OpError> {
    check_inputs(node, 1, 1)?;
    let hs = scale_attr(node, "height_scale")?;
    let ws = scale_attr(node, "width_scale")?;
    let Some(xs) = &x.shape else {
        return Ok(TensorFact::unknown(x.dtype));
    };
    crate::ops::common::dims::expect_rank("input X", xs, 4)?;
    let h = floor_scale(ctx, xs[2], &hs);
    let w = floor_scale(ctx, xs[3], &ws);
    Ok(TensorFact::new(x.dtype, vec![xs[0], xs[1], h, w]))
}

fn upsample(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let x = ctx.input(node, 0, "X")?;
    if node.version < 7 {
        return Ok(vec![upsample_v1(ctx, node, &x)?]);
    }
    let scales: Option<Vec<Rat>> = if node.version < 9 {
        check_inputs(node, 1, 1)?;
        match node.attr("scales") {
            Some(Attr::Floats(v)) => Some(
                v.iter()
                    .map(|f| snap_scale(*f))
                    .collect::<Option<Vec<Rat>>>()
                    .ok_or_else(|| OpError::BadAttribute {
                        name: "scales",
                        value: AttrValue::pointed_floats(v),
                        why: Box::new(AttrProblem::Fixed("not finite")),
                    })?,
            ),
            Some(other) => {
                return Err(bad_attr(
                    "scales",
                    other,
                    AttrProblem::ExpectedKind("a list of floats"),
                ))
            }
            None => return Err(OpError::MissingAttribute { name: "scales" }),
        }
    } else {
        check_inputs(node, 2, 2)?;
        let s = ctx.input(node, 1, "scales")?;
        s.value
            .as_ref()
            .and_then(|v| {
                v.iter()
                    .map(|d| ctx.alg.as_const(*d))
                    .collect::<Option<Vec<Rat>>>()
            })
            .map(|v| v.iter().filter_map(exact_scale).collect())
    };
    let Some(xs) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let axes: Vec<usize> = (0..xs.len()).collect();
    let scales: Vec<Option<Rat>> = match scales {
        None => vec![None; xs.len()],
        Some(s) if s.len() != xs.len() => {
            return Err(OpError::BadShapeValue(Box::new(
                ShapeValueProblem::Entries {
                    what: "scales",
                    found: s.len(),
                    expected: Expected::Exactly(xs.len()).noted("the rank of X"),
                },
            )))
        }
        Some(s) => s.into_iter().map(Some).collect(),
    };
    positive_scales(&axes, &scales)?;
    let out = resize_dims(ctx, node, &xs, &axes, &AxisSizes::Scales(scales));
    Ok(vec![TensorFact::new(x.dtype, out)])
}

/// OpenVINO Interpolate (1: target spatial shape and an `axes` attribute; 4:
/// sizes, scales, axes inputs, `shape_calculation_mode`, pads; 11:
/// scales_or_sizes, axes).
fn openvino_interpolate(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let x = ctx.input(node, 0, "data")?;
    let Some(xs) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let r = xs.len();
    let pb = ov_i64_list(node, "pads_begin")?.unwrap_or_default();
    let pe = ov_i64_list(node, "pads_end")?.unwrap_or_default();
    let mut padded = xs.clone();
    for i in 0..r {
        let p = Rat::int(pb.get(i).copied().unwrap_or(0))
            .add(&Rat::int(pe.get(i).copied().unwrap_or(0)));
        if !p.is_zero() {
            let pd = ctx.alg.rational(p);
            padded[i] = ctx.alg.add_dims(xs[i], pd);
        }
    }
    let (axes_index, scales_index, by_scales) = if node.version < 4 {
        (None, 2, false)
    } else {
        let mode = ov_str(node, "shape_calculation_mode")?.unwrap_or("sizes");
        let by_scales = mode.eq_ignore_ascii_case("scales");
        if node.version < 11 {
            (Some(3), 2, by_scales)
        } else {
            (Some(2), 1, by_scales)
        }
    };
    let axes: Vec<usize> = if node.version < 4 {
        let a = ov_i64_list(node, "axes")?.ok_or(OpError::MissingAttribute { name: "axes" })?;
        norm_axes(&a, r)?
    } else {
        match axes_index.filter(|&i| node.input(i).is_some()) {
            Some(i) => {
                let f = ctx.input(node, i, "axes")?;
                match const_ints(&ctx.alg, &f) {
                    Some(a) => norm_axes(&a, r)?,
                    None => {
                        let d = (0..r).map(|a| ctx.unknown_dim(node, 0, a)).collect();
                        return Ok(vec![TensorFact::new(x.dtype, d)]);
                    }
                }
            }
            None => (0..r).collect(),
        }
    };
    let target = if by_scales {
        let f = ctx.input(node, scales_index, "scales")?;
        let scales: Option<Vec<Rat>> = f
            .value
            .as_ref()
            .and_then(|v| v.iter().map(|d| ctx.alg.as_const(*d)).collect());
        AxisSizes::Scales(
            (0..axes.len())
                .map(|i| {
                    let s = scales.as_ref()?.get(i)?;
                    Some(exact_scale(s).unwrap_or_else(|| s.clone()))
                })
                .collect(),
        )
    } else {
        let f = ctx.input(node, 1, "sizes")?;
        AxisSizes::Sizes(
            (0..axes.len())
                .map(|i| f.value.as_ref()?.get(i).copied())
                .collect(),
        )
    };
    let out = resize_dims(ctx, node, &padded, &axes, &target);
    Ok(vec![TensorFact::new(x.dtype, out)])
}

/// oneDNN Interpolate: the spatial dims of `data_format` from the `sizes`
/// attribute, or `floor(d * scale)` from `scales`.
fn onednn_interpolate(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let x = ctx.input(node, 0, "src")?;
    let dtype = dst_dtype(node, x.dtype)?;
    let Some(xs) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    let layout = Layout::split(node, &xs)?;
    let out_sp = onednn_interpolate_spatial(ctx, node, &layout)?.unwrap_or_else(|| {
        (0..layout.spatial.len())
            .map(|a| ctx.unknown_dim(node, 0, a))
            .collect()
    });
    Ok(vec![TensorFact::new(
        dtype,
        layout.join(layout.channels, out_sp),
    )])
}

/// The output spatial dims of a oneDNN Interpolate of `layout`: from the `sizes`
/// attribute, or `floor(d * scale)` from `scales`; `None` when neither is given.
fn onednn_interpolate_spatial(
    ctx: &mut ShapesContext,
    node: &Node,
    layout: &Layout,
) -> Result<Option<Vec<Dim>>, OpError> {
    let sp = &layout.spatial;
    let k = sp.len();
    let target = if let Some(sizes) = attr_ints(node, "sizes")?.filter(|v| !v.is_empty()) {
        if sizes.len() != k {
            return Err(OpError::BadAttribute {
                name: "sizes",
                value: AttrValue::Ints(sizes.to_vec()),
                why: Box::new(AttrProblem::Length {
                    expected: k,
                    form: LengthForm::Values,
                }),
            });
        }
        AxisSizes::Sizes(sizes.iter().map(|s| Some(ctx.alg.constant(*s))).collect())
    } else if let Some(Attr::Floats(scales)) = node.attr("scales") {
        if scales.len() != k {
            return Err(OpError::BadAttribute {
                name: "scales",
                value: AttrValue::pointed_floats(scales),
                why: Box::new(AttrProblem::Length {
                    expected: k,
                    form: LengthForm::Values,
                }),
            });
        }
        AxisSizes::Scales(
            scales
                .iter()
                .map(|s| Some(snap_scale(*s).unwrap_or_else(Rat::one)))
                .collect(),
        )
    } else {
        return Ok(None);
    };
    let axes: Vec<usize> = (0..k).collect();
    Ok(Some(resize_dims(ctx, node, sp, &axes, &target)))
}

/// oneDNN InterpolateBackward(src, diff_dst, sizes?): `diff_src` has `src`'s
/// shape; `diff_dst` has its batch and channels, and the spatial dims the forward
/// Interpolate of `src` gives when `sizes` or `scales` is an attribute.
fn onednn_interpolate_backward(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    let (dtype, parts) = onednn_src_and_diff_dst(ctx, node, 3)?;
    let Some(SrcAndDiffDst {
        shape,
        src,
        diff_dst,
    }) = parts
    else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    if let Some(dd) = diff_dst {
        if let Some(sp) = onednn_interpolate_spatial(ctx, node, &src)? {
            let dims = |axis| DimRole::SpatialAxis {
                axis,
                of: ("the interpolated src", "diff_dst").into(),
            };
            merge_dims_as(ctx, node, &dims, &sp, &dd.spatial)?;
        }
    }
    Ok(vec![TensorFact::new(dtype, shape)])
}
