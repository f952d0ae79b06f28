//! The ONNX convolutions: Conv, ConvInteger, QLinearConv, DeformConv and
//! ConvTranspose (see [`super`] for the shapes and version history).

use super::{
    at_least_one, check_group_divides, conv_channels, conv_forward, ConvChecks, ConvForward,
};
use crate::algebra::Dim;
use crate::context::{AttrProblem, AttrValue, LengthForm};
use crate::context::{DimRole, Expected, OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};
use crate::ops::common::attrs::{attr_int, attr_ints};
use crate::ops::common::attrs::{attr_list, require_positive};
use crate::ops::common::check_inputs;
use crate::ops::common::dims::{check_vector, data_shape, rank_of, shaped, unify_as, Equate};
use crate::ops::nn::window::{non_negative, onnx_window, Fit};

/// The kernel of a convolution: the spatial dims of `W`, checked against the
/// `kernel_shape` attribute when both are known.
fn conv_kernel(
    ctx: &mut ShapesContext,
    node: &Node,
    w: &[Dim],
    n: usize,
) -> Result<Vec<Dim>, OpError> {
    let from_w = &w[2..];
    match attr_ints(node, "kernel_shape")? {
        None => Ok(from_w.to_vec()),
        Some(ks) => {
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
            let mut out = Vec::with_capacity(n);
            for (i, k) in ks.iter().enumerate() {
                if *k <= 0 {
                    return Err(OpError::BadAttribute {
                        name: "kernel_shape",
                        value: AttrValue::Ints(ks.to_vec()),
                        why: Box::new(AttrProblem::EntriesNotPositive),
                    });
                }
                let kd = ctx.alg.constant(*k);
                out.push(unify_as(
                    ctx,
                    node,
                    DimRole::KernelShape { axis: i },
                    from_w[i],
                    kd,
                )?);
            }
            Ok(out)
        }
    }
}

fn group_of(node: &Node) -> Result<i64, OpError> {
    require_positive("group", attr_int(node, "group", 1)?)
}

/// The ONNX adapter of the convolution kernel: the shape of a forward convolution
/// of `x` by `w = [M, C/group, k...]` (`None` when both ranks are unknown), from the
/// node's `group`, `kernel_shape`, `auto_pad`, `pads`, `strides` and `dilations`.
/// Checks what ONNX asks besides [`conv_forward`]: `group` divides `M`, a bias of
/// `[M]`.
pub fn conv_shape(
    ctx: &mut ShapesContext,
    node: &Node,
    x: &TensorFact,
    w: &TensorFact,
    bias: Option<&TensorFact>,
) -> Result<Option<Vec<Dim>>, OpError> {
    let g = group_of(node)?;
    let xs = data_shape(x, "input X", 3)?;
    let ws = data_shape(w, "weight W", 3)?;
    let Some(ws) = ws else {
        // No kernel: the rank follows X, the channels and spatial dims are unknown.
        return Ok(xs.map(|xs| {
            let mut out = vec![xs[0]];
            for axis in 1..xs.len() {
                out.push(ctx.unknown_dim(node, 0, axis));
            }
            out
        }));
    };
    let n = ws.len() - 2;
    let gd = ctx.alg.constant(g);
    check_group_divides(ctx, "output channels W[0]", gd, ws[0])?;
    if let Some(b) = bias {
        check_vector(ctx, node, b, "bias B", ws[0], Equate::Warn)?;
    }
    let kernel = conv_kernel(ctx, node, &ws, n)?;
    let window = onnx_window(node, kernel, false)?;
    let Some(xs) = xs else {
        let mut out = vec![ctx.unknown_dim(node, 0, 0), ws[0]];
        for i in 0..n {
            out.push(ctx.unknown_dim(node, 0, i + 2));
        }
        return Ok(Some(out));
    };
    if xs.len() != ws.len() {
        return Err(rank_of(
            "input X",
            Expected::Exactly(ws.len()).noted("the rank of W"),
            xs.len(),
        ));
    }
    let conv = ConvForward {
        channels: xs[1],
        spatial: &xs[2..],
        in_per_group: ws[1],
        groups: Some(gd),
    };
    let checks = ConvChecks {
        channels: DimRole::Stated("input channels X[1] and group * W[1]"),
        equate: Equate::Warn,
    };
    let mut out = vec![xs[0], ws[0]];
    out.extend(conv_forward(
        ctx,
        node,
        &conv,
        &window,
        &checks,
        Fit::Output(1),
    )?);
    Ok(Some(out))
}

pub(super) fn conv(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 3)?;
    let x = ctx.input(node, 0, "X")?;
    let w = ctx.input(node, 1, "W")?;
    let b = ctx.optional_input(node, 2)?;
    let shape = conv_shape(ctx, node, &x, &w, b.as_ref())?;
    Ok(vec![shaped(x.dtype, shape)])
}

pub(super) fn conv_integer(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 4)?;
    let x = ctx.input(node, 0, "x")?;
    let w = ctx.input(node, 1, "w")?;
    let shape = conv_shape(ctx, node, &x, &w, None)?;
    Ok(vec![shaped(DType::Int32, shape)])
}

pub(super) fn qlinear_conv(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 8, 9)?;
    let x = ctx.input(node, 0, "x")?;
    let w = ctx.input(node, 3, "w")?;
    let y_zp = ctx.input(node, 7, "y_zero_point")?;
    let b = ctx.optional_input(node, 8)?;
    let shape = conv_shape(ctx, node, &x, &w, b.as_ref())?;
    let dtype = if y_zp.dtype == DType::Undefined {
        x.dtype
    } else {
        y_zp.dtype
    };
    Ok(vec![shaped(dtype, shape)])
}

pub(super) fn deform_conv(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 5)?;
    let x = ctx.input(node, 0, "X")?;
    let w = ctx.input(node, 1, "W")?;
    let b = ctx.optional_input(node, 3)?;
    let shape = conv_shape(ctx, node, &x, &w, b.as_ref())?;
    Ok(vec![shaped(x.dtype, shape)])
}

pub(super) fn conv_transpose(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 3)?;
    let x = ctx.input(node, 0, "X")?;
    let w = ctx.input(node, 1, "W")?;
    let b = ctx.optional_input(node, 2)?;
    let g = group_of(node)?;
    let gd = ctx.alg.constant(g);
    let xs = data_shape(&x, "input X", 3)?;
    let Some(ws) = data_shape(&w, "weight W", 3)? else {
        return Ok(vec![match xs {
            Some(xs) => {
                let mut out = vec![xs[0]];
                for axis in 1..xs.len() {
                    out.push(ctx.unknown_dim(node, 0, axis));
                }
                TensorFact::new(x.dtype, out)
            }
            None => TensorFact::unknown(x.dtype),
        }]);
    };
    let n = ws.len() - 2;
    let m = ctx.alg.mul(ws[1], gd);
    if let Some(b) = &b {
        check_vector(ctx, node, b, "bias B", m, Equate::Warn)?;
    }
    let kernel = conv_kernel(ctx, node, &ws, n)?;
    let window = onnx_window(node, kernel, true)?;
    let output_padding = attr_list(node, "output_padding", n, 0, non_negative, "non-negative")?;
    let Some(xs) = xs else {
        let mut out = vec![ctx.unknown_dim(node, 0, 0), m];
        for i in 0..n {
            out.push(ctx.unknown_dim(node, 0, i + 2));
        }
        return Ok(vec![TensorFact::new(x.dtype, out)]);
    };
    if xs.len() != ws.len() {
        return Err(rank_of(
            "input X",
            Expected::Exactly(ws.len()).noted("the rank of W"),
            xs.len(),
        ));
    }
    let checks = ConvChecks {
        channels: DimRole::Stated("input channels X[1] and W[0]"),
        equate: Equate::Warn,
    };
    conv_channels(ctx, node, xs[1], None, ws[0], &checks)?;
    let mut out = vec![xs[0], m];
    if let Some(os) = attr_ints(node, "output_shape")? {
        let spatial = match os.len() {
            l if l == n => os,
            l if l == n + 2 => &os[2..],
            _ => {
                return Err(OpError::BadAttribute {
                    name: "output_shape",
                    value: AttrValue::Ints(os.to_vec()),
                    why: Box::new(AttrProblem::Length {
                        expected: n,
                        form: LengthForm::EntriesPerSpatialAxis,
                    }),
                })
            }
        };
        if let Some(bad) = spatial.iter().find(|v| **v <= 0) {
            return Err(OpError::BadAttribute {
                name: "output_shape",
                value: AttrValue::Ints(os.to_vec()),
                why: Box::new(AttrProblem::EntryNot {
                    entry: *bad,
                    expected: "positive",
                }),
            });
        }
        for v in spatial {
            out.push(ctx.alg.constant(*v));
        }
        return Ok(vec![TensorFact::new(x.dtype, out)]);
    }
    let one = ctx.alg.constant(1);
    for i in 0..n {
        // SAME pads absorb the output padding (the spec's total padding).
        let op = if window.mode.is_same() {
            0
        } else {
            output_padding[i]
        };
        let o = window.transposed_output(ctx, i, xs[i + 2], op);
        out.push(at_least_one(ctx, one, i, o)?);
    }
    Ok(vec![TensorFact::new(x.dtype, out)])
}
