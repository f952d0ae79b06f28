//! The OpenVINO convolutions: Convolution, GroupConvolution, their BackpropData,
//! DeformableConvolution and BinaryConvolution (see [`super`] for the shapes and
//! version history).

use super::{conv_channels, conv_forward, ConvChecks, ConvForward};
use crate::algebra::Dim;
use crate::context::{AttrProblem, AttrValue, ShapeValueProblem};
use crate::context::{DimRole, Expected, OpError, ShapesContext, TensorFact};
use crate::graph::Node;
use crate::ops::common::attrs::spatial_list;
use crate::ops::common::check_inputs;
use crate::ops::common::dims::{rank_of, Equate};
use crate::ops::nn::window::{openvino_window, Fit, PadMode, Rounding};

/// The filters of an OpenVINO (Group)Convolution(BackpropData) of `x`: their rank
/// must be the data's (plus 1 for the group ops); the spatial dims from
/// `lead` on are the kernel.
fn openvino_filters(xs: &[Dim], ws: &[Dim], group: bool) -> Result<Vec<Dim>, OpError> {
    if xs.len() < 3 || ws.len() != xs.len() + usize::from(group) {
        return Err(rank_of(
            "filters",
            Expected::Plus {
                of: "data rank",
                count: xs.len(),
                more: usize::from(group),
            },
            ws.len(),
        ));
    }
    Ok(ws[2 + usize::from(group)..].to_vec())
}

/// OpenVINO Convolution / GroupConvolution: data `[N, C, ...]`, filters
/// `[O, C, k...]` or `[G, O/G, C/G, k...]`.
pub(super) fn convolution(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "data")?;
    let w = ctx.input(node, 1, "filters")?;
    let (Some(xs), Some(ws)) = (&x.shape, &w.shape) else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let group = node.op_type == "GroupConvolution";
    let window = openvino_window(node, openvino_filters(xs, ws, group)?, Rounding::Floor)?;
    // filters [O, C, k...] or [G, O/G, C/G, k...]
    let (in_per_group, groups, out_c) = if group {
        (ws[2], Some(ws[0]), ctx.alg.mul(ws[0], ws[1]))
    } else {
        (ws[1], None, ws[0])
    };
    let conv = ConvForward {
        channels: xs[1],
        spatial: &xs[2..],
        in_per_group,
        groups,
    };
    let checks = ConvChecks {
        channels: DimRole::Stated(if group {
            "input channels: data C and groups * filters C/G"
        } else {
            "input channels: data C and filters C"
        }),
        equate: Equate::Record,
    };
    let mut out = vec![xs[0], out_c];
    out.extend(conv_forward(
        ctx,
        node,
        &conv,
        &window,
        &checks,
        Fit::Kernel { first_axis: 2 },
    )?);
    Ok(vec![TensorFact::new(x.dtype, out)])
}

/// OpenVINO ConvolutionBackpropData / GroupConvolutionBackpropData: filters
/// `[C, O, k...]` or `[G, C/G, O/G, k...]`; an `output_shape` input gives the
/// spatial dims.
pub(super) fn conv_backprop(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 3)?;
    let x = ctx.input(node, 0, "data")?;
    let w = ctx.input(node, 1, "filters")?;
    let (Some(xs), Some(ws)) = (&x.shape, &w.shape) else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let group = node.op_type.starts_with("Group");
    let window = openvino_window(node, openvino_filters(xs, ws, group)?, Rounding::Floor)?;
    let n = xs.len() - 2;
    let output_padding = spatial_list(node, "output_padding", n, 0)?;
    // filters [C, O, k...] or [G, C/G, O/G, k...]
    let checks = ConvChecks {
        channels: DimRole::Stated("input channels"),
        equate: Equate::Record,
    };
    let out_c = if group {
        conv_channels(ctx, node, xs[1], Some(ws[0]), ws[1], &checks)?;
        ctx.alg.mul(ws[0], ws[2])
    } else {
        conv_channels(ctx, node, xs[1], None, ws[0], &checks)?;
        ws[1]
    };
    let mut out = vec![xs[0], out_c];
    match ctx.optional_input(node, 2)? {
        Some(f) => match f.value {
            Some(v) if v.len() == n => out.extend(v),
            Some(v) => {
                return Err(OpError::BadShapeValue(Box::new(
                    ShapeValueProblem::EntriesFor {
                        what: "output_shape",
                        found: v.len(),
                        count: n,
                        of: "spatial axes",
                    },
                )))
            }
            None => out.extend((0..n).map(|i| ctx.unknown_dim(node, 0, i))),
        },
        None => {
            // Without `output_shape`, any `auto_pad` other than explicit means no
            // padding (OpenVINO's formula), not ONNX's `in * stride`.
            let mut window = window;
            if window.mode != PadMode::Explicit {
                window.mode = PadMode::Valid;
            }
            for i in 0..n {
                out.push(window.transposed_output(ctx, i, xs[i + 2], output_padding[i]));
            }
        }
    }
    Ok(vec![TensorFact::new(x.dtype, out)])
}

// ----- OpenVINO DeformableConvolution, BinaryConvolution -------------------------------

/// OpenVINO DeformableConvolution (1, 8: inputs data, offsets, filters and, from 8,
/// an optional mask) and BinaryConvolution-1 (data, filters): a Convolution of the
/// data by filters `[C_out, C_in / group, k...]` (`group` attribute, 1 by default);
/// the output has the data's type.
pub(super) fn deformable_convolution(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    let deformable = node.op_type == "DeformableConvolution";
    let (filters_at, max) = if deformable { (2, 4) } else { (1, 2) };
    check_inputs(node, filters_at + 1, max)?;
    let x = ctx.input(node, 0, "data")?;
    let w = ctx.input(node, filters_at, "filters")?;
    let (Some(xs), Some(ws)) = (&x.shape, &w.shape) else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let window = openvino_window(node, openvino_filters(xs, ws, false)?, Rounding::Floor)?;
    let group = crate::ops::common::attrs::ov_i64(node, "group")?.unwrap_or(1);
    if group < 1 {
        return Err(OpError::BadAttribute {
            name: "group",
            value: AttrValue::Int(group),
            why: Box::new(AttrProblem::Below(1)),
        });
    }
    let conv = ConvForward {
        channels: xs[1],
        spatial: &xs[2..],
        in_per_group: ws[1],
        groups: Some(ctx.alg.constant(group)),
    };
    let checks = ConvChecks {
        channels: DimRole::Stated("input channels: data C and group * filters C"),
        equate: Equate::Record,
    };
    let mut out = vec![xs[0], ws[0]];
    out.extend(conv_forward(
        ctx,
        node,
        &conv,
        &window,
        &checks,
        Fit::Kernel { first_axis: 2 },
    )?);
    Ok(vec![TensorFact::new(x.dtype, out)])
}
