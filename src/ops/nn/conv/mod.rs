//! Convolutions of every format: ONNX Conv, ConvInteger, QLinearConv, DeformConv and
//! ConvTranspose; OpenVINO Convolution, GroupConvolution, their BackpropData,
//! DeformableConvolution and BinaryConvolution; oneDNN Convolution,
//! ConvTranspose and their backward-data and backward-weights ops. The window
//! arithmetic they share with the pools is [`crate::ops::nn::window`]; this module
//! holds the format-neutral kernel, and [`onnx`], [`openvino`] and [`onednn`] the
//! adapters.
//!
//! Specs: <https://onnx.ai/onnx/operators/> (the pages of each op; the formulas are
//! those of the `auto_pad` and `pads` attribute descriptions); the OpenVINO
//! operation specifications (`Convolution-1`, `GroupConvolution-1`,
//! `ConvolutionBackpropData-1`, `GroupConvolutionBackpropData-1`,
//! `DeformableConvolution-1`, `-8`, `BinaryConvolution-1`, `MaxPool`,
//! `AvgPool`); oneDNN Graph's `Convolution`, `ConvTranspose`,
//! `ConvolutionBackwardData`, `ConvolutionBackwardWeights`,
//! `ConvTransposeBackwardData`, `ConvTransposeBackwardWeights`, `MaxPool` and
//! `AvgPool` documents, op schemas and shape inference (`shape_infer.cpp`).
//!
//! Channels: ONNX Conv's `W = [M, C/group, k1, ..., kn]` (its kernel must agree
//! with `kernel_shape` when both are given), `C` equal to `group * W[1]`, `group`
//! dividing `M`, a bias of `[M]`; OpenVINO Convolution's filters `[O, C, k...]`,
//! GroupConvolution's `[G, O/G, C/G, k...]`, the BackpropData ones `[C, O, k...]`
//! and `[G, C/G, O/G, k...]`; oneDNN's weights `OIX` (`[O, I, k...]`) or `XIO`
//! (`[k..., I, O]`, the default) with `C = groups * I`, its data `NCX` or `NXC`
//! (the default). Channels a valid model needs equal are unified (ONNX also
//! warns). Two kernels serve every format: [`conv_channels`] checks the data's
//! channels against `groups` times the weights' per-group channels (how the pair
//! is named and equated is the format's, [`ConvChecks`]), and [`Window::outputs`]
//! gives the spatial dims (what each must satisfy is the format's, [`Fit`]).
//! [`conv_forward`] runs the two for the ONNX and OpenVINO forward convolutions
//! ([`ConvForward`] holds the dims); oneDNN's adapter calls them apart, because its
//! forward and backward ops share one channel check over its weights layouts. The
//! adapters read their own attributes and weights layouts and check what only
//! their spec asks (ONNX: `group` divides `M`, the bias).
//!
//! Special values: `group` must be positive; strides and dilations positive (ONNX:
//! a bad attribute; OpenVINO and oneDNN: checked per axis); pads of ONNX Conv and
//! pools non-negative (ConvTranspose's may crop).
//!
//! Version history, ONNX (shape-relevant):
//! - Conv-1, -11 (`auto_pad`/`kernel_shape` inference from `W` unchanged;
//!   11 defines `pads` defaults), -22 (types). ConvInteger-10. QLinearConv-10.
//!   DeformConv-19, -22.
//! - ConvTranspose-1, -11 (`output_shape`/`output_padding` semantics pinned down),
//!   -22 (types).
//!
//! Version history, OpenVINO: Convolution-1, GroupConvolution-1,
//! ConvolutionBackpropData-1 and GroupConvolutionBackpropData-1 (`strides`,
//! `dilations`, `pads_begin`, `pads_end`, `auto_pad`; BackpropData also
//! `output_padding` and an optional `output_shape` input); one version each.
//! DeformableConvolution-1 (data, offsets, filters; `group`,
//! `deformable_group`), -8 (an optional mask input) and BinaryConvolution-1: a
//! Convolution of the data by the filters, input channels `group * filters C`.
//!
//! oneDNN (every op version 1): Convolution, ConvTranspose and their backward ops
//! (`strides`, `pads_begin`, `pads_end`, `dilations`, `auto_pad`, `groups`,
//! `data_format`, `weights_format`; ConvTranspose and ConvolutionBackwardData also
//! `output_padding`, the backward ops `dst_shape` / `weights_shape`). Weights
//! ([`onednn::WeightsFormat`]): the convolutions' `OIX` or `XIO` (default), the
//! transposed ops' `IOX` (`[C_in, C_out / groups, k...]`, ONNX's layout) or `XOI`
//! (default), as oneDNN's op schemas allow (ConvTranspose's document names
//! `OIX`/`XIO`; its schema and shape inference use `IOX`/`XOI`). ConvTranspose is
//! the transposed window with oneDNN's `SAME` pads of total `max(ek - s, 0)`
//! ([`Window::transposed_output_clamped_same`]); ConvTransposeBackwardData the
//! Convolution of `diff_dst`; ConvolutionBackwardData its `dst_shape` (checked by
//! convolving it) or the transposed window of `diff_dst`; the BackwardWeights ops
//! their `weights_shape` or the channels and a fresh kernel. oneDNN writes unset
//! list attributes as `DNNL_MAX_NDIMS` zeros; those count as not given.
//!
//! Cost: `vol(Y) × C_in/group × ∏ kernel` MACs, transposed `vol(X) × C_out/group
//! × ∏ kernel` ([`COSTS`]).

pub mod onednn;
pub mod onnx;
pub mod openvino;

use crate::algebra::{Algebra, Dim, Truth};
use crate::context::ShapeValueProblem;
use crate::context::{DimRole, OpError, ShapesContext};
use crate::graph::Node;
use crate::ops::common::dims::Equate;
use crate::ops::cost::{contraction, input_dims, input_volume, output_volume, Costs, OpCost};
use crate::ops::nn::window::{Fit, Window};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["Conv"], onnx::conv),
    ("", ["ConvInteger"], onnx::conv_integer),
    ("", ["QLinearConv"], onnx::qlinear_conv),
    ("", ["DeformConv"], onnx::deform_conv),
    ("", ["ConvTranspose"], onnx::conv_transpose),
    ("openvino", ["Convolution", "GroupConvolution"], openvino::convolution),
    ("openvino", [
        "ConvolutionBackpropData", "GroupConvolutionBackpropData",
    ], openvino::conv_backprop),
    ("onednn", ["Convolution"], onednn::convolution),
    ("onednn", ["ConvTranspose"], onednn::conv_transpose),
    ("onednn", ["ConvolutionBackwardData"], onednn::conv_backward_data),
    ("onednn", ["ConvolutionBackwardWeights"], onednn::conv_backward_weights),
    ("onednn", ["ConvTransposeBackwardData"], onednn::conv_transpose_backward_data),
    ("onednn", ["ConvTransposeBackwardWeights"], onednn::conv_transpose_backward_weights),
    ("openvino", [
        "DeformableConvolution", "BinaryConvolution",
    ], openvino::deformable_convolution),
];

/// What the convolutions compute ([`crate::ops::cost`]). With `Y` the output,
/// `X` the data and `W` the weights:
/// - **forward** (ONNX Conv, ConvInteger, QLinearConv, DeformConv; OpenVINO
///   Convolution, GroupConvolution, DeformableConvolution, BinaryConvolution;
///   oneDNN Convolution): MACs `N × C_out × ∏ out spatial × C_in/group × ∏ kernel`
///   `= vol(Y) × (C_in/group × ∏ kernel)`, the second factor read from `W`
///   (ONNX `W[1:]`, OpenVINO `W[1:]` or GroupConvolution's `W[2:]`, oneDNN
///   `I × kernel` in its `weights_format`).
/// - **transposed** (ONNX ConvTranspose; OpenVINO ConvolutionBackpropData and its
///   group form; oneDNN ConvTranspose): MACs `N × C_in × ∏ in spatial ×
///   C_out/group × ∏ kernel = vol(X) × (C_out/group × ∏ kernel)`, from `W[1:]`
///   (`[C_in, C_out/group, k...]`; OpenVINO's group form `W[2:]`, oneDNN `O ×
///   kernel`).
/// - FLOPs `2 × MACs`, + `vol(Y)` with a bias input (ONNX, oneDNN). DeformConv's
///   sampling, and the backward ops, are not counted (no formula).
pub const COSTS: &[Costs] = &[Costs::by_op(rules![
    ("", ["Conv", "ConvInteger", "DeformConv"], conv_cost),
    ("", ["QLinearConv"], qlinear_conv_cost),
    ("", ["ConvTranspose"], conv_transpose_cost),
    (
        "openvino",
        ["Convolution", "BinaryConvolution"],
        ov_convolution_cost
    ),
    ("openvino", ["GroupConvolution"], ov_group_convolution_cost),
    ("openvino", ["DeformableConvolution"], ov_deformable_cost),
    ("openvino", ["ConvolutionBackpropData"], ov_backprop_cost),
    (
        "openvino",
        ["GroupConvolutionBackpropData"],
        ov_group_backprop_cost
    ),
    ("onednn", ["Convolution"], onednn_convolution_cost),
    ("onednn", ["ConvTranspose"], onednn_conv_transpose_cost),
])];

/// A convolution's cost: `vol(side) × ∏ W[from..]` MACs, `side` output 0
/// (forward) or input `data` (transposed); a bias at input `bias` adds `vol(Y)`.
pub fn conv_cost_of(
    alg: &mut Algebra,
    ctx: &ShapesContext,
    node: &Node,
    side: ConvSide,
    weights: usize,
    from: usize,
    bias: Option<usize>,
) -> OpCost {
    let per = input_dims(ctx, node, weights)
        .filter(|w| w.len() >= from)
        .map(|w| alg.product(&w[from..]));
    conv_cost_per(alg, ctx, node, side, per, bias)
}

/// Which tensor a convolution's MACs count per element of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvSide {
    /// Output 0 (forward convolutions).
    Output,
    /// Input 0 (transposed convolutions).
    Data,
}

/// `vol(side) × per` MACs, with a bias at input `bias`.
fn conv_cost_per(
    alg: &mut Algebra,
    ctx: &ShapesContext,
    node: &Node,
    side: ConvSide,
    per: Option<Dim>,
    bias: Option<usize>,
) -> OpCost {
    let vol = match side {
        ConvSide::Output => output_volume(alg, ctx, node, 0),
        ConvSide::Data => input_volume(alg, ctx, node, 0),
    };
    let macs = match (vol, per) {
        (Some(v), Some(p)) => Some(alg.mul(v, p)),
        _ => None,
    };
    let extra = bias
        .and_then(|b| node.inputs.get(b).filter(|n| !n.is_empty()))
        .and_then(|_| output_volume(alg, ctx, node, 0));
    contraction(alg, macs, extra)
}

fn conv_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    let bias = match &*node.op_type {
        "Conv" => Some(2),
        "DeformConv" => Some(3),
        _ => None,
    };
    conv_cost_of(alg, ctx, node, ConvSide::Output, 1, 1, bias)
}

fn qlinear_conv_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    conv_cost_of(alg, ctx, node, ConvSide::Output, 3, 1, Some(8))
}

fn conv_transpose_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    conv_cost_of(alg, ctx, node, ConvSide::Data, 1, 1, Some(2))
}

fn ov_convolution_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    conv_cost_of(alg, ctx, node, ConvSide::Output, 1, 1, None)
}

fn ov_group_convolution_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    conv_cost_of(alg, ctx, node, ConvSide::Output, 1, 2, None)
}

fn ov_deformable_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    conv_cost_of(alg, ctx, node, ConvSide::Output, 2, 1, None)
}

fn ov_backprop_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    conv_cost_of(alg, ctx, node, ConvSide::Data, 1, 1, None)
}

fn ov_group_backprop_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    conv_cost_of(alg, ctx, node, ConvSide::Data, 1, 2, None)
}

/// oneDNN: the per-group channels (`I` forward, `O` transposed) times the kernel,
/// read in the node's `weights_format`.
fn onednn_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node, transposed: bool) -> OpCost {
    let per = onednn::WeightsFormat::of(node, transposed)
        .ok()
        .zip(input_dims(ctx, node, 1).filter(|w| w.len() >= 2))
        .and_then(|(f, w)| f.split(&w, w.len() - 2).ok())
        .map(|(o, i, kernel)| {
            let k = alg.product(&kernel);
            alg.mul(if transposed { o } else { i }, k)
        });
    let side = if transposed {
        ConvSide::Data
    } else {
        ConvSide::Output
    };
    conv_cost_per(alg, ctx, node, side, per, Some(2))
}

fn onednn_convolution_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    onednn_cost(alg, ctx, node, false)
}

fn onednn_conv_transpose_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    onednn_cost(alg, ctx, node, true)
}

// ----- the convolution kernel ----------------------------------------------------------

/// A forward convolution, format-neutral: the data's channels and spatial dims, and
/// what the weights say of its input channels.
#[derive(Clone, Copy, Debug)]
pub struct ConvForward<'a> {
    /// The data's channel dim.
    pub channels: Dim,
    /// The data's spatial dims.
    pub spatial: &'a [Dim],
    /// The weights' input channels per group.
    pub in_per_group: Dim,
    /// The number of groups, when the op splits its channels into groups (`None`:
    /// the weights' input channels are the data's).
    pub groups: Option<Dim>,
}

/// How a format's spec checks a convolution's channels: the name of the channel
/// pair in messages and how an undecided equality is equated (ONNX warns; OpenVINO
/// and oneDNN record).
#[derive(Clone, Debug)]
pub struct ConvChecks {
    /// Names the data's channels and the weights' side they meet.
    pub channels: DimRole,
    /// How the channels are equated.
    pub equate: Equate,
}

/// A forward convolution (ONNX Conv, ConvInteger, QLinearConv, DeformConv;
/// OpenVINO Convolution, GroupConvolution, DeformableConvolution,
/// BinaryConvolution): the channel check ([`conv_channels`]), then the window's
/// output length over each spatial dim, each satisfying `fit`
/// ([`Window::outputs`]). Each format's adapter reads its attributes and weights
/// layout, checks what only its spec asks (ONNX: `group` divides the output
/// channels, the bias), and places the output channels.
pub fn conv_forward(
    ctx: &mut ShapesContext,
    node: &Node,
    conv: &ConvForward,
    window: &Window,
    checks: &ConvChecks,
    fit: Fit,
) -> Result<Vec<Dim>, OpError> {
    conv_channels(
        ctx,
        node,
        conv.channels,
        conv.groups,
        conv.in_per_group,
        checks,
    )?;
    window.outputs(ctx, node, conv.spatial, fit)
}

/// A convolution's channel check: the data's `channels` equal `groups *
/// per_group` (`per_group` without groups), equated and named as `checks` says.
pub fn conv_channels(
    ctx: &mut ShapesContext,
    node: &Node,
    channels: Dim,
    groups: Option<Dim>,
    per_group: Dim,
    checks: &ConvChecks,
) -> Result<Dim, OpError> {
    let need = match groups {
        Some(g) => ctx.alg.mul(g, per_group),
        None => per_group,
    };
    checks
        .equate
        .dims_as(ctx, node, checks.channels.clone(), channels, need)
}

/// Check that `group` divides `dim` (the output channels of Conv).
fn check_group_divides(
    ctx: &mut ShapesContext,
    what: &'static str,
    g: Dim,
    dim: Dim,
) -> Result<(), OpError> {
    if ctx.alg.divides(g, dim) == Truth::False {
        return Err(OpError::BadShapeValue(Box::new(
            ShapeValueProblem::NotMultipleOfGroup {
                what,
                dim: ctx.alg.expr(dim),
                group: ctx.alg.expr(g),
            },
        )));
    }
    Ok(())
}

/// A transposed convolution's output length `o` on spatial axis `i`; `one` is the
/// constant 1, which it must not be provably below.
fn at_least_one(ctx: &ShapesContext, one: Dim, i: usize, o: Dim) -> Result<Dim, OpError> {
    if ctx.alg.le(one, o) == Truth::False {
        return Err(OpError::BadShapeValue(Box::new(
            ShapeValueProblem::OutputBelowOne {
                axis: i,
                output: ctx.alg.expr(o),
            },
        )));
    }
    Ok(o)
}
