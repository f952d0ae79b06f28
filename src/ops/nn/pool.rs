//! Pooling of every format: ONNX MaxPool, AveragePool, LpPool,
//! GlobalAveragePool, GlobalMaxPool, GlobalLpPool, MaxUnpool, MaxRoiPool and
//! RoiAlign; OpenVINO MaxPool, AvgPool, AdaptiveAvgPool, AdaptiveMaxPool,
//! ROIAlign, ROIAlignRotated, ROIPooling, PSROIPooling and
//! DeformablePSROIPooling; oneDNN MaxPool, AvgPool, MaxPoolBackward and
//! AvgPoolBackward.
//!
//! Specs: <https://onnx.ai/onnx/operators/> (the page of each op); the OpenVINO
//! operation specifications (`MaxPool-1`, `-8`, `-14`, `AvgPool-1`, `-14`);
//! oneDNN Graph's `MaxPool`, `AvgPool`, `MaxPoolBackward` and `AvgPoolBackward`
//! documents and op schemas.
//!
//! The spatial dims are the sliding-window arithmetic of `nn/window.rs`
//! ([`Window`](crate::ops::nn::window::Window)): the kernel is an attribute (ONNX
//! `kernel_shape`, OpenVINO and oneDNN `kernel`), rounding is ONNX's `ceil_mode`
//! (which drops a last window starting in the right padding), OpenVINO's
//! `rounding_type` (`floor`, `ceil`, `ceil_torch`) or oneDNN's (`floor`, `ceil`).
//! The batch and channel dims stay.
//! ONNX accepts an output of length 0 (onnxruntime runs it); OpenVINO and oneDNN
//! reject a dilated kernel larger than the padded input. MaxPool's indices output
//! (ONNX int64; OpenVINO `index_element_type`, i64 by default) has the output's
//! shape.
//!
//! - Global pools: `[N, C, 1, ..., 1]`.
//! - MaxUnpool: `(in - 1)*s + k - pb - pe` (a transposed window), or the
//!   `output_shape` input.
//! - MaxRoiPool: `[num_rois, C, pooled_h, pooled_w]`; RoiAlign:
//!   `[num_rois, C, output_height, output_width]` ([`roi_output`]). OpenVINO
//!   ROIAlign (`rois [num_rois, 4]`, `batch_indices [num_rois]`) and
//!   ROIAlignRotated (`rois [num_rois, 5]`): `[num_rois, C, pooled_h, pooled_w]`;
//!   ROIPooling (`rois [num_rois, 5]`): `[num_rois, C, output_size...]`;
//!   PSROIPooling and DeformablePSROIPooling: `[num_rois, output_dim, group_size,
//!   group_size]`.
//! - OpenVINO AdaptiveAvgPool and AdaptiveMaxPool: `[N, C]` and the contents of
//!   the `output_shape` input (symbolic ones too); AdaptiveMaxPool's indices
//!   (`index_element_type`, i64 by default) have the same shape.
//!
//! Version history, ONNX (shape-relevant):
//! - MaxPool-1; -8 adds the `Indices` output and `storage_order`; -10 adds
//!   `ceil_mode` and `dilations`; -11 (pads semantics); -12 (int8/uint8);
//!   -22 (types).
//! - AveragePool-1; -7 `count_include_pad`; -10 `ceil_mode`; -11; -19
//!   `dilations`; -22.
//! - LpPool-1 (`p` a float), -2 (`p` an int), -11, -18 (`ceil_mode`,
//!   `dilations`), -22.
//! - GlobalAveragePool/GlobalMaxPool-1, -22; GlobalLpPool-1, -2, -22.
//! - MaxUnpool-9, -11 (optional `output_shape` input), -22.
//! - MaxRoiPool-1, -22. RoiAlign-10, -16 (`coordinate_transformation_mode`), -22.
//!
//! Version history, OpenVINO: MaxPool-1 (`rounding_type` floor or ceil); -8
//! (`dilations`, the indices output, `index_element_type`); -14 (`ceil_torch`).
//! AvgPool-1; -14 (`ceil_torch`). AdaptiveAvgPool-8, AdaptiveMaxPool-8 (data of
//! rank 3 to 5). ROIAlign-3; -9 (`aligned_mode`). ROIAlignRotated-15.
//! ROIPooling-1 (in opset 2). PSROIPooling-1. DeformablePSROIPooling-1 (optional
//! offsets input).
//!
//! oneDNN (every op version 1): MaxPool and AvgPool (`kernel`, `strides`,
//! `pads_begin`, `pads_end`, `dilations` for MaxPool, `rounding_type`, `auto_pad`,
//! `data_format`). MaxPoolBackward(src, diff_dst) gives `src`'s shape;
//! AvgPoolBackward(diff_dst, src_shape?) the `src_shape` attribute (or input
//! contents; fresh spatial dims without either). Both check the forward window's
//! attributes against `src` and equate `diff_dst`'s batch and channels; the
//! forward `rounding_type` is not an attribute of theirs, so `diff_dst`'s spatial
//! dims are not checked.

use crate::algebra::{Algebra, Dim};
use crate::context::DimRole;
use crate::context::{AttrProblem, AttrValue, LengthForm, ShapeValueProblem};
use crate::context::{Expected, OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};
use crate::ops::common::attrs::{attr_int, attr_ints, attr_str};
use crate::ops::common::attrs::{
    dst_dtype, ov_dtype, ov_i64, ov_i64_list, ov_str, require_positive,
};
use crate::ops::common::dims::{
    data_shape, expect_rank, merge_batch_channels, merge_dim_as, onednn_src_and_diff_dst, rank_of,
    shaped, unify_as, Equate, Layout, SrcAndDiffDst,
};
use crate::ops::common::{check_inputs, unknown_outputs};
use crate::ops::cost::{output_volume, per_input_element, Costs, OpCost};
use crate::ops::nn::window::{
    onednn_shape_attr, onednn_window, onnx_window, openvino_window, Fit, Rounding,
};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["MaxPool"], max_pool),
    ("", ["AveragePool"], average_pool),
    ("", ["LpPool"], lp_pool),
    ("", ["GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"], global_pool),
    ("", ["MaxUnpool"], max_unpool),
    ("", ["MaxRoiPool"], max_roi_pool),
    ("", ["RoiAlign"], roi_align),
    ("openvino", ["MaxPool", "AvgPool"], openvino_pool),
    ("openvino", ["ROIAlign", "ROIAlignRotated"], openvino_roi_align),
    ("openvino", ["ROIPooling"], openvino_roi_pooling),
    ("openvino", ["PSROIPooling", "DeformablePSROIPooling"], openvino_ps_roi_pooling),
    ("openvino", ["AdaptiveAvgPool", "AdaptiveMaxPool"], openvino_adaptive_pool),
    ("onednn", ["MaxPool", "AvgPool"], onednn_pool),
    ("onednn", ["MaxPoolBackward"], onednn_max_pool_backward),
    ("onednn", ["AvgPoolBackward"], onednn_avg_pool_backward),
];

/// What the pools compute ([`crate::ops::cost`]): 0 MACs; one FLOP per window
/// element of every output element, `vol(Y) × ∏ kernel` (a compare for the max
/// pools, an add for the average and Lp pools: the division, or the power, per
/// output is not counted) for ONNX `MaxPool`, `AveragePool`, `LpPool`
/// (`kernel_shape`), OpenVINO and oneDNN `MaxPool`, `AvgPool` (`kernel`); the
/// global pools read every input element once, `vol(X)`. The others (ROI pools,
/// unpooling, adaptive pools) are not counted.
pub const COSTS: &[Costs] = &[Costs::by_op(rules![
    ("", ["MaxPool", "AveragePool", "LpPool"], onnx_pool_cost),
    (
        "",
        ["GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"],
        global_pool_cost
    ),
    ("openvino", ["MaxPool", "AvgPool"], ov_pool_cost),
    ("onednn", ["MaxPool", "AvgPool"], onednn_pool_cost),
])];

/// `vol(Y) × ∏ kernel` FLOPs, the kernel's sizes as read from an attribute.
fn window_cost(
    alg: &mut Algebra,
    ctx: &ShapesContext,
    node: &Node,
    kernel: Option<Vec<i64>>,
) -> OpCost {
    let zero = alg.constant(0);
    let flops = kernel.and_then(|ks| {
        let ks: Vec<Dim> = ks.iter().map(|k| alg.constant(*k)).collect();
        let window = alg.product(&ks);
        let y = output_volume(alg, ctx, node, 0)?;
        Some(alg.mul(y, window))
    });
    OpCost {
        macs: Some(zero),
        flops,
    }
}

/// ONNX pools: `vol(Y) × ∏ kernel_shape` FLOPs, 0 MACs.
pub fn onnx_pool_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    let k = attr_ints(node, "kernel_shape")
        .ok()
        .flatten()
        .map(<[i64]>::to_vec);
    window_cost(alg, ctx, node, k)
}

fn ov_pool_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    let k = ov_i64_list(node, "kernel").ok().flatten();
    window_cost(alg, ctx, node, k)
}

fn onednn_pool_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    let k = attr_ints(node, "kernel")
        .ok()
        .flatten()
        .map(<[i64]>::to_vec);
    window_cost(alg, ctx, node, k)
}

fn global_pool_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    per_input_element(alg, ctx, node, 1)
}

// ----- ONNX --------------------------------------------------------------------------

/// The kernel of a pool: the required `kernel_shape` attribute.
fn pool_kernel(
    ctx: &mut ShapesContext,
    node: &Node,
    n: Option<usize>,
) -> Result<Vec<Dim>, OpError> {
    let ks = attr_ints(node, "kernel_shape")?.ok_or(OpError::MissingAttribute {
        name: "kernel_shape",
    })?;
    if let Some(n) = n {
        if ks.len() != n {
            return Err(OpError::BadAttribute {
                name: "kernel_shape",
                value: AttrValue::Ints(ks.to_vec()),
                why: Box::new(AttrProblem::Length {
                    expected: n,
                    form: LengthForm::EntriesPerSpatialAxis,
                }),
            });
        }
    }
    if ks.iter().any(|k| *k <= 0) {
        return Err(OpError::BadAttribute {
            name: "kernel_shape",
            value: AttrValue::Ints(ks.to_vec()),
            why: Box::new(AttrProblem::EntriesNotPositive),
        });
    }
    Ok(ks.iter().map(|k| ctx.alg.constant(*k)).collect())
}

/// The output shape of a pool over `x`: `[N, C, out...]`.
fn pool_shape(
    ctx: &mut ShapesContext,
    node: &Node,
    x: &TensorFact,
) -> Result<Option<Vec<Dim>>, OpError> {
    let xs = data_shape(x, "input X", 3)?;
    let kernel = pool_kernel(ctx, node, xs.as_ref().map(|s| s.len() - 2))?;
    let window = onnx_window(node, kernel, false)?;
    let Some(xs) = xs else {
        // The kernel gives the rank.
        let n = window.kernel.len();
        let out = (0..n + 2)
            .map(|axis| ctx.unknown_dim(node, 0, axis))
            .collect();
        return Ok(Some(out));
    };
    let mut out = vec![xs[0], xs[1]];
    out.extend(window.outputs(ctx, node, &xs[2..], Fit::PoolOutput)?);
    Ok(Some(out))
}

fn max_pool(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "X")?;
    let shape = pool_shape(ctx, node, &x)?;
    Ok(vec![
        shaped(x.dtype, shape.clone()),
        shaped(DType::Int64, shape),
    ])
}

fn average_pool(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "X")?;
    let shape = pool_shape(ctx, node, &x)?;
    Ok(vec![shaped(x.dtype, shape)])
}

fn lp_pool(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    average_pool(ctx, node)
}

fn global_pool(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "X")?;
    let Some(xs) = data_shape(&x, "input X", 2)? else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let one = ctx.alg.constant(1);
    let mut out = vec![xs[0], xs[1]];
    out.extend(std::iter::repeat(one).take(xs.len() - 2));
    Ok(vec![TensorFact::new(x.dtype, out)])
}

fn max_unpool(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 3)?;
    let x = ctx.input(node, 0, "X")?;
    let i = ctx.input(node, 1, "I")?;
    if let (Some(xs), Some(is)) = (&x.shape, &i.shape) {
        if xs.len() != is.len() {
            return Err(rank_of("indices I", xs.len(), is.len()));
        }
        for (axis, (a, b)) in xs.iter().zip(is).enumerate() {
            unify_as(ctx, node, DimRole::axis(axis, ("X", "I")), *a, *b)?;
        }
    }
    if let Some(os) = ctx.optional_input(node, 2)? {
        if let Some(v) = os.value.clone() {
            return Ok(vec![TensorFact::new(x.dtype, v)]);
        }
        if let Some(n) = os
            .shape
            .as_ref()
            .and_then(|s| s.first())
            .and_then(|d| ctx.alg.as_i64(*d))
        {
            let n = usize::try_from(n).map_err(|_| {
                OpError::BadShapeValue(Box::new(ShapeValueProblem::NegativeLength {
                    what: "output_shape",
                    count: n,
                }))
            })?;
            if x.shape.as_ref().is_some_and(|s| s.len() != n) {
                return Err(rank_of(
                    "output_shape (its length)",
                    x.rank().unwrap_or(0),
                    n,
                ));
            }
            let dims = (0..n).map(|axis| ctx.unknown_dim(node, 0, axis)).collect();
            return Ok(vec![TensorFact::new(x.dtype, dims)]);
        }
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    }
    let xs = data_shape(&x, "input X", 3)?;
    let kernel = pool_kernel(ctx, node, xs.as_ref().map(|s| s.len() - 2))?;
    let window = onnx_window(node, kernel, false)?;
    let Some(xs) = xs else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let mut out = vec![xs[0], xs[1]];
    for a in 0..xs.len() - 2 {
        out.push(window.transposed_output(ctx, a, xs[a + 2], 0));
    }
    Ok(vec![TensorFact::new(x.dtype, out)])
}

/// `[num_rois, C, h, w]` for the RoI pools: `x` is `[N, C, H, W]` and `rois`
/// `[num_rois, box_len]` (its box length equated as `equate` says); `channels`
/// replaces `C` when given.
#[allow(clippy::too_many_arguments)]
pub fn roi_output(
    ctx: &mut ShapesContext,
    node: &Node,
    x: &TensorFact,
    rois: &TensorFact,
    box_len: i64,
    (h, w): (i64, i64),
    channels: Option<Dim>,
    equate: Equate,
) -> Result<TensorFact, OpError> {
    let c = match &x.shape {
        Some(s) => {
            expect_rank("input X", s, 4)?;
            s[1]
        }
        None => ctx.unknown_dim(node, 0, 1),
    };
    let n = match &rois.shape {
        Some(s) => {
            expect_rank("rois", s, 2)?;
            let bl = ctx.alg.constant(box_len);
            equate.dims_as(ctx, node, "rois box length", s[1], bl)?;
            s[0]
        }
        None => ctx.unknown_dim(node, 0, 0),
    };
    let h = ctx.alg.constant(h);
    let w = ctx.alg.constant(w);
    Ok(TensorFact::new(
        x.dtype,
        vec![n, channels.unwrap_or(c), h, w],
    ))
}

fn max_roi_pool(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "X")?;
    let rois = ctx.input(node, 1, "rois")?;
    let ps = attr_ints(node, "pooled_shape")?.ok_or(OpError::MissingAttribute {
        name: "pooled_shape",
    })?;
    if ps.len() != 2 || ps.iter().any(|v| *v <= 0) {
        return Err(OpError::BadAttribute {
            name: "pooled_shape",
            value: AttrValue::Ints(ps.to_vec()),
            why: Box::new(AttrProblem::Fixed("expected two positive entries")),
        });
    }
    Ok(vec![roi_output(
        ctx,
        node,
        &x,
        &rois,
        5,
        (ps[0], ps[1]),
        None,
        Equate::Warn,
    )?])
}

fn roi_align(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let x = ctx.input(node, 0, "X")?;
    let rois = ctx.input(node, 1, "rois")?;
    let bi = ctx.input(node, 2, "batch_indices")?;
    let oh = require_positive("output_height", attr_int(node, "output_height", 1)?)?;
    let ow = require_positive("output_width", attr_int(node, "output_width", 1)?)?;
    let out = roi_output(ctx, node, &x, &rois, 4, (oh, ow), None, Equate::Warn)?;
    if let (Some(b), Some(r)) = (&bi.shape, &rois.shape) {
        expect_rank("batch_indices", b, 1)?;
        unify_as(
            ctx,
            node,
            DimRole::of("num_rois", ("batch_indices", "rois")),
            b[0],
            r[0],
        )?;
    }
    Ok(vec![out])
}

/// The pool kernel of an OpenVINO or oneDNN node (`kernel`, one entry per spatial
/// axis).
fn kernel_attr(
    ctx: &mut ShapesContext,
    kernel: Option<Vec<i64>>,
    n: usize,
) -> Result<Vec<Dim>, OpError> {
    let kernel = kernel.ok_or(OpError::MissingAttribute { name: "kernel" })?;
    if kernel.len() != n {
        return Err(OpError::BadAttribute {
            name: "kernel",
            value: AttrValue::Ints(kernel),
            why: Box::new(AttrProblem::Length {
                expected: n,
                form: LengthForm::ValuesPerSpatialAxis,
            }),
        });
    }
    Ok(kernel.iter().map(|k| ctx.alg.constant(*k)).collect())
}

// ----- OpenVINO ----------------------------------------------------------------------

/// OpenVINO MaxPool (1; 8: dilations and an indices output; 14: `ceil_torch`) and
/// AvgPool (1, 14).
fn openvino_pool(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "data")?;
    let idx_type = ov_dtype(node, "index_element_type")?.unwrap_or(DType::Int64);
    let Some(xs) = x.shape.clone() else {
        let mut v = unknown_outputs(node, x.dtype);
        if let Some(i) = v.get_mut(1) {
            i.dtype = idx_type;
        }
        return Ok(v);
    };
    if xs.len() < 3 {
        return Err(rank_of("data", Expected::AtLeast(3), xs.len()));
    }
    let kernel = kernel_attr(ctx, ov_i64_list(node, "kernel")?, xs.len() - 2)?;
    let mut window = openvino_window(node, kernel, Rounding::Floor)?;
    window.rounding = match ov_str(node, "rounding_type")?
        .unwrap_or("floor")
        .to_ascii_lowercase()
        .as_str()
    {
        "floor" => Rounding::Floor,
        "ceil" => Rounding::Ceil,
        "ceil_torch" => Rounding::CeilTorch,
        other => {
            return Err(OpError::BadAttribute {
                name: "rounding_type",
                value: AttrValue::Word(other.to_string()),
                why: Box::new(AttrProblem::one_of(&["floor", "ceil", "ceil_torch"])),
            })
        }
    };
    let mut out = vec![xs[0], xs[1]];
    out.extend(window.outputs(ctx, node, &xs[2..], Fit::Kernel { first_axis: 2 })?);
    let mut v = vec![TensorFact::new(x.dtype, out.clone())];
    if node.outputs.len() > 1 {
        v.push(TensorFact::new(idx_type, out));
    }
    Ok(v)
}

// ----- oneDNN ------------------------------------------------------------------------

/// oneDNN AvgPool / MaxPool.
fn onednn_pool(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "src")?;
    let dtype = dst_dtype(node, x.dtype)?;
    let Some(xs) = x.shape.clone() else {
        return Ok(unknown_outputs(node, dtype));
    };
    let layout = Layout::split(node, &xs)?;
    let kernel = attr_ints(node, "kernel")?.map(<[i64]>::to_vec);
    let kernel = kernel_attr(ctx, kernel, layout.spatial.len())?;
    let mut window = onednn_window(node, kernel, Rounding::Floor)?;
    window.rounding = match attr_str(node, "rounding_type")?.unwrap_or("floor") {
        "floor" => Rounding::Floor,
        "ceil" => Rounding::Ceil,
        other => {
            return Err(OpError::BadAttribute {
                name: "rounding_type",
                value: AttrValue::Word(other.to_string()),
                why: Box::new(AttrProblem::one_of(&["floor", "ceil"])),
            })
        }
    };
    let fit = Fit::Kernel {
        first_axis: layout.first_spatial_axis(),
    };
    let spatial = window.outputs(ctx, node, &layout.spatial, fit)?;
    Ok(vec![TensorFact::new(
        dtype,
        layout.join(layout.channels, spatial),
    )])
}

/// The forward window of a oneDNN pool backward op over `src` (its `kernel`,
/// `strides`, pads, `dilations`, `auto_pad`; no `rounding_type`, so floor): checks
/// the attributes and that the kernel fits the padded `src`, as the forward pool
/// needed.
fn onednn_pool_backward_window(
    ctx: &mut ShapesContext,
    node: &Node,
    src: &Layout,
) -> Result<(), OpError> {
    let kernel = attr_ints(node, "kernel")?.map(<[i64]>::to_vec);
    let kernel = kernel_attr(ctx, kernel, src.spatial.len())?;
    let window = onednn_window(node, kernel, Rounding::Floor)?;
    let fit = Fit::Kernel {
        first_axis: src.first_spatial_axis(),
    };
    window.outputs(ctx, node, &src.spatial, fit)?;
    Ok(())
}

/// oneDNN MaxPoolBackward(src, diff_dst): `diff_src` has `src`'s shape;
/// `diff_dst` has its rank, batch and channels.
fn onednn_max_pool_backward(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    let (dtype, parts) = onednn_src_and_diff_dst(ctx, node, 2)?;
    let Some(SrcAndDiffDst { shape, src, .. }) = parts else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    onednn_pool_backward_window(ctx, node, &src)?;
    Ok(vec![TensorFact::new(dtype, shape)])
}

/// oneDNN AvgPoolBackward(diff_dst, src_shape?): `diff_src` has the shape the
/// `src_shape` attribute gives, else the contents of the `src_shape` input (fresh
/// dims when they are not known, the batch and channels of `diff_dst`).
fn onednn_avg_pool_backward(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 2)?;
    let d = ctx.input(node, 0, "diff_dst")?;
    let dtype = dst_dtype(node, d.dtype)?;
    let given = match onednn_shape_attr(ctx, node, "src_shape")? {
        Some(v) => Some(v),
        None => ctx.optional_input(node, 1)?.and_then(|f| f.value),
    };
    let Some(ds) = d.shape.clone() else {
        return Ok(vec![shaped(dtype, given)]);
    };
    let dd = Layout::split_named(node, &ds, "diff_dst")?;
    let out = match given {
        Some(shape) => {
            let src = Layout::split(node, &shape)?;
            merge_batch_channels(ctx, node, ("diff_dst", &dd), ("src_shape", &src))?;
            onednn_pool_backward_window(ctx, node, &src)?;
            shape
        }
        None => {
            let spatial = (0..dd.spatial.len())
                .map(|i| ctx.unknown_dim(node, 0, dd.first_spatial_axis() + i))
                .collect();
            dd.join(dd.channels, spatial)
        }
    };
    Ok(vec![TensorFact::new(dtype, out)])
}

// ----- OpenVINO RoI and adaptive pools -----------------------------------------------

/// A required positive integer attribute of an OpenVINO node.
fn ov_positive(node: &Node, name: &'static str) -> Result<i64, OpError> {
    require_positive(
        name,
        ov_i64(node, name)?.ok_or(OpError::MissingAttribute { name })?,
    )
}

/// OpenVINO ROIAlign (3, 9) and ROIAlignRotated-15.
fn openvino_roi_align(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let x = ctx.input(node, 0, "data")?;
    let rois = ctx.input(node, 1, "rois")?;
    let bi = ctx.input(node, 2, "batch_indices")?;
    let h = ov_positive(node, "pooled_h")?;
    let w = ov_positive(node, "pooled_w")?;
    let box_len = if node.op_type == "ROIAlignRotated" {
        5
    } else {
        4
    };
    let out = roi_output(ctx, node, &x, &rois, box_len, (h, w), None, Equate::Record)?;
    if let Some(b) = &bi.shape {
        expect_rank("batch_indices", b, 1)?;
        let n = out.shape.as_ref().map(|s| s[0]);
        if let Some(n) = n {
            merge_dim_as(
                ctx,
                node,
                DimRole::of("num_rois", ("batch_indices", "rois")),
                b[0],
                n,
            )?;
        }
    }
    Ok(vec![out])
}

/// OpenVINO ROIPooling-1: `output_size = [h, w]`.
fn openvino_roi_pooling(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "data")?;
    let rois = ctx.input(node, 1, "rois")?;
    let size = ov_i64_list(node, "output_size")?.ok_or(OpError::MissingAttribute {
        name: "output_size",
    })?;
    if size.len() != 2 || size.iter().any(|v| *v <= 0) {
        return Err(OpError::BadAttribute {
            name: "output_size",
            value: AttrValue::Ints(size.to_vec()),
            why: Box::new(AttrProblem::Fixed("expected two positive entries")),
        });
    }
    let out = roi_output(
        ctx,
        node,
        &x,
        &rois,
        5,
        (size[0], size[1]),
        None,
        Equate::Record,
    )?;
    Ok(vec![out])
}

/// OpenVINO PSROIPooling-1 and DeformablePSROIPooling-1: `[num_rois, output_dim,
/// group_size, group_size]`.
fn openvino_ps_roi_pooling(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 3)?;
    let x = ctx.input(node, 0, "data")?;
    let rois = ctx.input(node, 1, "rois")?;
    let dim = ov_positive(node, "output_dim")?;
    let group = match ov_i64(node, "group_size")? {
        None => 1,
        Some(_) => ov_positive(node, "group_size")?,
    };
    let dim = ctx.alg.constant(dim);
    let out = roi_output(
        ctx,
        node,
        &x,
        &rois,
        5,
        (group, group),
        Some(dim),
        Equate::Record,
    )?;
    Ok(vec![out])
}

/// OpenVINO AdaptiveAvgPool-8 and AdaptiveMaxPool-8.
fn openvino_adaptive_pool(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "data")?;
    let max = node.op_type == "AdaptiveMaxPool";
    let index_type = if max {
        ov_dtype(node, "index_element_type")?.unwrap_or(DType::Int64)
    } else {
        DType::Int64
    };
    let out = match &x.shape {
        None => None,
        Some(xs) => {
            if !(3..=5).contains(&xs.len()) {
                return Err(rank_of("data", Expected::either(&[3, 4, 5]), xs.len()));
            }
            let spatial = xs.len() - 2;
            let mut out = xs[..2].to_vec();
            match ctx.input(node, 1, "output_shape")?.value {
                Some(d) if d.len() == spatial => out.extend(d),
                Some(d) => {
                    return Err(OpError::BadShapeValue(Box::new(
                        ShapeValueProblem::EntriesFor {
                            what: "output_shape",
                            found: d.len(),
                            count: spatial,
                            of: "spatial axes",
                        },
                    )))
                }
                _ => {
                    for a in 0..spatial {
                        out.push(ctx.unknown_dim(node, 0, a + 2));
                    }
                }
            }
            Some(out)
        }
    };
    let mut facts = vec![shaped(x.dtype, out.clone())];
    if max {
        facts.push(shaped(index_type, out));
    }
    Ok(facts)
}
