//! Convolutions of every format and the sliding-window arithmetic they share with
//! the pools (`pool.rs`): ONNX Conv, ConvInteger, QLinearConv, DeformConv and
//! ConvTranspose; OpenVINO Convolution, GroupConvolution, their BackpropData,
//! DeformableConvolution and BinaryConvolution; oneDNN Convolution,
//! ConvTranspose and their backward-data and backward-weights ops.
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
//! A [`Window`] gives each spatial output dim. With kernel `k`, stride `s`,
//! dilation `d`, pads `pb`/`pe` and effective kernel `ek = d*(k - 1) + 1`
//! ([`Window::output`]):
//! - explicit pads ([`PadMode::Explicit`]: ONNX `NOTSET`, OpenVINO `explicit`,
//!   oneDNN `None`): `floordiv(in + pb + pe - ek, s) + 1`;
//! - [`Rounding::Ceil`] (OpenVINO and oneDNN `ceil`): `ceildiv` instead;
//! - [`Rounding::CeilTorch`] (ONNX pools with `ceil_mode = 1`, OpenVINO
//!   `ceil_torch`): `ceildiv`, then a last window that would start inside the right
//!   padding is dropped (the rule of PyTorch and of onnxruntime's pooling kernels):
//!   `min(ceildiv(in + pb + pe - ek, s) + 1, floordiv(in + pb - 1, s) + 1)`. The
//!   first term alone when `ek >= s + pe` (the second can never be smaller), the
//!   second alone when `pe >= ek - 1` (it is never larger);
//! - `SAME_UPPER` / `SAME_LOWER`: `ceildiv(in, s)`;
//! - `VALID`: the explicit formula with no pads.
//!
//! A transposed convolution ([`Window::transposed_output`]) gives
//! `s*(in - 1) + output_padding + ek - pb - pe`, or `in*s + output_padding` for
//! ONNX `SAME_*` (ONNX ignores `output_padding` there: its spec puts it in the
//! pads); an `output_shape` (ONNX attribute, OpenVINO input) gives the dims
//! instead. OpenVINO's BackpropData without `output_shape` ignores the pads under
//! any `auto_pad` but `explicit` (`same_upper`, `same_lower` and `valid` all give
//! `s*(in - 1) + ek + output_padding`).
//!
//! What a window must satisfy ([`Fit`]) differs by runtime: OpenVINO and oneDNN
//! reject a dilated kernel larger than the padded input; ONNX rejects a
//! convolution output below 1 (onnxruntime rejects a 0-length Conv output) and a
//! pool output below 0 (onnxruntime runs a pool whose output is 0), and records
//! the requirement when it is not decided.
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
//! ([`WeightsFormat`]): the convolutions' `OIX` or `XIO` (default), the
//! transposed ops' `IOX` (`[C_in, C_out / groups, k...]`, ONNX's layout) or `XOI`
//! (default), as oneDNN's op schemas allow (ConvTranspose's document names
//! `OIX`/`XIO`; its schema and shape inference use `IOX`/`XOI`). ConvTranspose is
//! the transposed window with oneDNN's `SAME` pads of total `max(ek - s, 0)`
//! ([`Window::transposed_output_clamped_same`]); ConvTransposeBackwardData the
//! Convolution of `diff_dst`; ConvolutionBackwardData its `dst_shape` (checked by
//! convolving it) or the transposed window of `diff_dst`; the BackwardWeights ops
//! their `weights_shape` or the channels and a fresh kernel. oneDNN writes unset
//! list attributes as `DNNL_MAX_NDIMS` zeros; those count as not given.

use crate::algebra::{Dim, Rat, Truth};
use crate::context::{AttrProblem, AttrValue, LengthForm, ShapeValueProblem};
use crate::context::{DimRole, Expected, OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};
use crate::ops::common::attrs::{attr_int, attr_ints, attr_str};
use crate::ops::common::attrs::{attr_list, dst_dtype, ov_str, require_positive, spatial_list};
use crate::ops::common::check_inputs;
use crate::ops::common::dims::{
    check_vector, data_shape, merge_dim_as, merge_dims_as, rank_of, shaped, unify_as, Equate,
    Layout,
};
use crate::ops::RuleEntry;

/// The rules of this family.
pub const RULES: &[RuleEntry] = &[
    ("", "Conv", conv),
    ("", "ConvInteger", conv_integer),
    ("", "QLinearConv", qlinear_conv),
    ("", "DeformConv", deform_conv),
    ("", "ConvTranspose", conv_transpose),
    ("openvino", "Convolution", openvino_convolution),
    ("openvino", "GroupConvolution", openvino_convolution),
    (
        "openvino",
        "ConvolutionBackpropData",
        openvino_conv_backprop,
    ),
    (
        "openvino",
        "GroupConvolutionBackpropData",
        openvino_conv_backprop,
    ),
    ("onednn", "Convolution", onednn_convolution),
    ("onednn", "ConvTranspose", onednn_conv_transpose),
    (
        "onednn",
        "ConvolutionBackwardData",
        onednn_conv_backward_data,
    ),
    (
        "onednn",
        "ConvolutionBackwardWeights",
        onednn_conv_backward_weights,
    ),
    (
        "onednn",
        "ConvTransposeBackwardData",
        onednn_conv_transpose_backward_data,
    ),
    (
        "onednn",
        "ConvTransposeBackwardWeights",
        onednn_conv_transpose_backward_weights,
    ),
    (
        "openvino",
        "DeformableConvolution",
        openvino_deformable_convolution,
    ),
    (
        "openvino",
        "BinaryConvolution",
        openvino_deformable_convolution,
    ),
];

// ----- the window kernel -------------------------------------------------------------

/// How the pads of a sliding window are chosen (`auto_pad`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PadMode {
    /// The given pads (ONNX `NOTSET`, OpenVINO `explicit`, oneDNN `None`).
    Explicit,
    /// Output `ceil(in / stride)`, extra padding at the end.
    SameUpper,
    /// Output `ceil(in / stride)`, extra padding at the start.
    SameLower,
    /// No padding.
    Valid,
}

impl PadMode {
    /// Parse an OpenVINO or oneDNN mode in any case: `explicit`, `notset`, `none`
    /// or empty; `same_upper`; `same_lower`; `valid`.
    pub fn parse(s: &str) -> Option<PadMode> {
        match s.to_ascii_lowercase().as_str() {
            "" | "explicit" | "notset" | "none" => Some(PadMode::Explicit),
            "same_upper" => Some(PadMode::SameUpper),
            "same_lower" => Some(PadMode::SameLower),
            "valid" => Some(PadMode::Valid),
            _ => None,
        }
    }

    /// True for `SAME_UPPER` and `SAME_LOWER`.
    pub fn is_same(self) -> bool {
        matches!(self, PadMode::SameUpper | PadMode::SameLower)
    }
}

/// How the window count of an axis is rounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// `floor` (convolutions; pools by default).
    Floor,
    /// `ceil`.
    Ceil,
    /// `ceil`, but the last window must start inside the input or the begin
    /// padding (ONNX `ceil_mode`, OpenVINO `ceil_torch`).
    CeilTorch,
}

/// What the output dims of a window must satisfy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    /// The dilated kernel fits in the padded input (OpenVINO, oneDNN); messages
    /// name the data axis, spatial axis 0 being `first_axis`.
    Kernel {
        /// The data axis of spatial axis 0.
        first_axis: usize,
    },
    /// The output length is at least this (ONNX: 1 for convolutions, 0 for pools);
    /// when undecided, the requirement is recorded for the model's contract.
    Output(i64),
}

/// The sliding-window attributes of one node, one entry per spatial axis.
#[derive(Clone, Debug)]
pub struct Window {
    /// Kernel length per axis.
    pub kernel: Vec<Dim>,
    /// Strides.
    pub strides: Vec<i64>,
    /// Dilations.
    pub dilations: Vec<i64>,
    /// Pads at the start of each axis.
    pub pads_begin: Vec<i64>,
    /// Pads at the end of each axis.
    pub pads_end: Vec<i64>,
    /// How the pads are chosen.
    pub mode: PadMode,
    /// How the window count is rounded.
    pub rounding: Rounding,
}

impl Window {
    /// The pads of axis `i` (none for `VALID`).
    fn pads(&self, i: usize) -> (i64, i64) {
        if self.mode == PadMode::Valid {
            (0, 0)
        } else {
            (self.pads_begin[i], self.pads_end[i])
        }
    }

    /// `in + pb + pe - ek` on axis `i`.
    fn span(&self, ctx: &mut ShapesContext, i: usize, input: Dim) -> Dim {
        let (pb, pe) = self.pads(i);
        let ek = self.effective_kernel(ctx, i);
        let pb = ctx.alg.constant(pb);
        let pe = ctx.alg.constant(pe);
        let padded = ctx.alg.add_dims(input, pb);
        let padded = ctx.alg.add_dims(padded, pe);
        ctx.alg.sub(padded, ek)
    }

    /// The effective kernel `d*(k - 1) + 1` of axis `i`.
    pub fn effective_kernel(&self, ctx: &mut ShapesContext, i: usize) -> Dim {
        let one = ctx.alg.constant(1);
        let d = ctx.alg.constant(self.dilations[i]);
        let k1 = ctx.alg.sub(self.kernel[i], one);
        let dk = ctx.alg.mul(d, k1);
        ctx.alg.add_dims(dk, one)
    }

    /// The output length of axis `i` over `input` (see the module doc).
    pub fn output(&self, ctx: &mut ShapesContext, i: usize, input: Dim) -> Dim {
        let s = ctx.alg.constant(self.strides[i]);
        if self.mode.is_same() {
            return ctx.alg.ceildiv(input, s);
        }
        let span = self.span(ctx, i, input);
        let one = ctx.alg.constant(1);
        if self.rounding == Rounding::Floor {
            let q = ctx.alg.floordiv(span, s);
            return ctx.alg.add_dims(q, one);
        }
        let q = ctx.alg.ceildiv(span, s);
        let out = ctx.alg.add_dims(q, one);
        if self.rounding == Rounding::Ceil {
            return out;
        }
        // Drop a last window that starts in the right padding. With
        // A = in + pb - 1, the ceil form is ceildiv(A + pe - ek + 1, s) + 1 and the
        // limit floordiv(A, s) + 1: the limit never binds when ek >= s + pe, and
        // always binds when pe >= ek - 1.
        let (pb, pe) = self.pads(i);
        let ek = self.effective_kernel(ctx, i);
        let pe = ctx.alg.constant(pe);
        let s_pe = ctx.alg.add_dims(s, pe);
        if ctx.alg.le(s_pe, ek) == Truth::True {
            return out;
        }
        let pb = ctx.alg.constant(pb);
        let starts = ctx.alg.add_dims(input, pb);
        let starts = ctx.alg.sub(starts, one);
        let last = ctx.alg.floordiv(starts, s);
        let limit = ctx.alg.add_dims(last, one);
        let ek_1 = ctx.alg.sub(ek, one);
        if ctx.alg.le(ek_1, pe) == Truth::True {
            return limit;
        }
        ctx.alg.min(out, limit)
    }

    /// The output lengths of every spatial axis of `spatial`, each checked as
    /// `fit` says.
    pub fn outputs(
        &self,
        ctx: &mut ShapesContext,
        node: &Node,
        spatial: &[Dim],
        fit: Fit,
    ) -> Result<Vec<Dim>, OpError> {
        let mut out = Vec::with_capacity(spatial.len());
        for (i, d) in spatial.iter().enumerate() {
            if let Fit::Kernel { first_axis } = fit {
                self.check_kernel_fits(ctx, i, first_axis + i, *d)?;
            }
            let o = self.output(ctx, i, *d);
            if let Fit::Output(least) = fit {
                let least = ctx.alg.constant(least);
                let fits = ctx.alg.le(least, o);
                if fits == Truth::Unknown {
                    ctx.alg.record_requirement(least, o, &node.name, "window");
                }
                if fits == Truth::False {
                    return Err(OpError::BadShapeValue(Box::new(
                        ShapeValueProblem::OutputBelow {
                            axis: i,
                            output: ctx.alg.expr(o),
                            least: ctx.alg.expr(least),
                            input: ctx.alg.expr(*d),
                            kernel: ctx.alg.expr(self.kernel[i]),
                        },
                    )));
                }
            }
            out.push(o);
        }
        Ok(out)
    }

    /// [`Fit::Kernel`] on spatial axis `i` (data axis `axis`): positive stride and
    /// dilation, and a dilated kernel not provably larger than the padded input.
    fn check_kernel_fits(
        &self,
        ctx: &mut ShapesContext,
        i: usize,
        axis: usize,
        input: Dim,
    ) -> Result<(), OpError> {
        self.check_steps(i, axis)?;
        if self.mode.is_same() {
            return Ok(());
        }
        let span = self.span(ctx, i, input);
        if !ctx.alg.bounds(span).is_negative() {
            return Ok(());
        }
        let (pb, pe) = self.pads(i);
        let pads = ctx.alg.rational(Rat::int(pb).add(&Rat::int(pe)));
        let padded = ctx.alg.add_dims(input, pads);
        let ek = ctx.alg.sub(padded, span);
        Err(OpError::BadShapeValue(Box::new(
            ShapeValueProblem::KernelExceedsData {
                axis,
                kernel: ctx.alg.expr(ek),
                padded: ctx.alg.expr(padded),
            },
        )))
    }

    /// Positive stride and dilation on spatial axis `i` (data axis `axis`).
    fn check_steps(&self, i: usize, axis: usize) -> Result<(), OpError> {
        let (stride, dilation) = (self.strides[i], self.dilations[i]);
        if stride < 1 || dilation < 1 {
            return Err(OpError::BadShapeValue(Box::new(
                ShapeValueProblem::StepBelowOne {
                    axis,
                    stride,
                    dilation,
                },
            )));
        }
        Ok(())
    }

    /// The output length of axis `i` of a transposed convolution whose `SAME` pads
    /// total `max(ek - s, 0)` (oneDNN's ConvTranspose):
    /// `s*(in - 1) + ek + output_padding - max(ek - s, 0)`, which is
    /// `s*in + output_padding` when `ek >= s`. Other modes as
    /// [`Window::transposed_output`].
    pub fn transposed_output_clamped_same(
        &self,
        ctx: &mut ShapesContext,
        i: usize,
        input: Dim,
        output_padding: i64,
    ) -> Dim {
        if !self.mode.is_same() {
            return self.transposed_output(ctx, i, input, output_padding);
        }
        let (full, ek) = self.transposed_unpadded(ctx, i, input, output_padding);
        let s = ctx.alg.constant(self.strides[i]);
        let zero = ctx.alg.constant(0);
        let excess = ctx.alg.sub(ek, s);
        let total = ctx.alg.max(excess, zero);
        ctx.alg.sub(full, total)
    }

    /// `s*(in - 1) + output_padding + ek` for axis `i`, before pads are taken off,
    /// and the effective kernel `ek`.
    fn transposed_unpadded(
        &self,
        ctx: &mut ShapesContext,
        i: usize,
        input: Dim,
        output_padding: i64,
    ) -> (Dim, Dim) {
        let s = ctx.alg.constant(self.strides[i]);
        let one = ctx.alg.constant(1);
        let in1 = ctx.alg.sub(input, one);
        let base = ctx.alg.mul(s, in1);
        let op = ctx.alg.constant(output_padding);
        let ek = self.effective_kernel(ctx, i);
        (ctx.alg.sum(&[base, op, ek]), ek)
    }

    /// The output length of axis `i` of a transposed convolution over `input` (see
    /// the module doc).
    pub fn transposed_output(
        &self,
        ctx: &mut ShapesContext,
        i: usize,
        input: Dim,
        output_padding: i64,
    ) -> Dim {
        let s = ctx.alg.constant(self.strides[i]);
        if self.mode.is_same() {
            let v = ctx.alg.mul(input, s);
            if output_padding == 0 {
                return v;
            }
            let op = ctx.alg.constant(output_padding);
            return ctx.alg.add_dims(v, op);
        }
        let (sum, _) = self.transposed_unpadded(ctx, i, input, output_padding);
        let (pb, pe) = self.pads(i);
        let pb = ctx.alg.constant(pb);
        let pe = ctx.alg.constant(pe);
        let sum = ctx.alg.sub(sum, pb);
        ctx.alg.sub(sum, pe)
    }
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

// ----- reading windows ---------------------------------------------------------------

fn positive(x: i64) -> bool {
    x > 0
}

fn non_negative(x: i64) -> bool {
    x >= 0
}

/// ONNX `auto_pad`: `NOTSET` (the default), `SAME_UPPER`, `SAME_LOWER`, `VALID`.
fn onnx_pad_mode(node: &Node) -> Result<PadMode, OpError> {
    match attr_str(node, "auto_pad")?.unwrap_or("NOTSET") {
        "NOTSET" | "" => Ok(PadMode::Explicit),
        "SAME_UPPER" => Ok(PadMode::SameUpper),
        "SAME_LOWER" => Ok(PadMode::SameLower),
        "VALID" => Ok(PadMode::Valid),
        other => Err(OpError::BadAttribute {
            name: "auto_pad",
            value: AttrValue::Str(other.to_string()),
            why: Box::new(AttrProblem::one_of(&[
                "NOTSET",
                "SAME_UPPER",
                "SAME_LOWER",
                "VALID",
            ])),
        }),
    }
}

/// An ONNX node's window for `kernel`: `strides`, `dilations` (positive), `pads`
/// (`n` begins then `n` ends; non-negative unless `allow_negative_pads`, for
/// ConvTranspose, whose pads may crop), `auto_pad` and `ceil_mode`.
pub fn onnx_window(
    node: &Node,
    kernel: Vec<Dim>,
    allow_negative_pads: bool,
) -> Result<Window, OpError> {
    let n = kernel.len();
    let strides = attr_list(node, "strides", n, 1, positive, "positive")?;
    let dilations = attr_list(node, "dilations", n, 1, positive, "positive")?;
    let pad_ok = if allow_negative_pads {
        |_| true
    } else {
        non_negative
    };
    let mut pads_begin = attr_list(node, "pads", 2 * n, 0, pad_ok, "non-negative")?;
    let pads_end = pads_begin.split_off(n);
    let rounding = if attr_int(node, "ceil_mode", 0)? != 0 {
        Rounding::CeilTorch
    } else {
        Rounding::Floor
    };
    Ok(Window {
        kernel,
        strides,
        dilations,
        pads_begin,
        pads_end,
        mode: onnx_pad_mode(node)?,
        rounding,
    })
}

/// The window of an OpenVINO or oneDNN node for `kernel`: the `strides`,
/// `dilations`, `pads_begin` and `pads_end` lists, then the pad mode `mode` reads.
fn listed_window(
    node: &Node,
    kernel: Vec<Dim>,
    rounding: Rounding,
    mode: impl FnOnce(&Node) -> Result<PadMode, OpError>,
) -> Result<Window, OpError> {
    let n = kernel.len();
    Ok(Window {
        kernel,
        strides: spatial_list(node, "strides", n, 1)?,
        dilations: spatial_list(node, "dilations", n, 1)?,
        pads_begin: spatial_list(node, "pads_begin", n, 0)?,
        pads_end: spatial_list(node, "pads_end", n, 0)?,
        mode: mode(node)?,
        rounding,
    })
}

/// An OpenVINO node's window for `kernel` (`auto_pad` default `explicit`).
pub fn openvino_window(
    node: &Node,
    kernel: Vec<Dim>,
    rounding: Rounding,
) -> Result<Window, OpError> {
    listed_window(node, kernel, rounding, |node| {
        let s = ov_str(node, "auto_pad")?.unwrap_or("explicit");
        PadMode::parse(s).ok_or_else(|| OpError::BadAttribute {
            name: "auto_pad",
            value: AttrValue::Word(s.to_string()),
            why: Box::new(AttrProblem::one_of(&[
                "explicit",
                "same_upper",
                "same_lower",
                "valid",
            ])),
        })
    })
}

/// A oneDNN node's window for `kernel` (`auto_pad` default `None`).
pub fn onednn_window(node: &Node, kernel: Vec<Dim>, rounding: Rounding) -> Result<Window, OpError> {
    listed_window(node, kernel, rounding, |node| {
        let s = attr_str(node, "auto_pad")?.unwrap_or("None");
        PadMode::parse(s).ok_or_else(|| OpError::BadAttribute {
            name: "auto_pad",
            value: AttrValue::Word(s.to_string()),
            why: Box::new(AttrProblem::one_of(&[
                "None",
                "SAME_UPPER",
                "SAME_LOWER",
                "VALID",
            ])),
        })
    })
}

// ----- ONNX --------------------------------------------------------------------------

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

fn conv(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 3)?;
    let x = ctx.input(node, 0, "X")?;
    let w = ctx.input(node, 1, "W")?;
    let b = ctx.optional_input(node, 2)?;
    let shape = conv_shape(ctx, node, &x, &w, b.as_ref())?;
    Ok(vec![shaped(x.dtype, shape)])
}

fn conv_integer(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 4)?;
    let x = ctx.input(node, 0, "x")?;
    let w = ctx.input(node, 1, "w")?;
    let shape = conv_shape(ctx, node, &x, &w, None)?;
    Ok(vec![shaped(DType::Int32, shape)])
}

fn qlinear_conv(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
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

fn deform_conv(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 5)?;
    let x = ctx.input(node, 0, "X")?;
    let w = ctx.input(node, 1, "W")?;
    let b = ctx.optional_input(node, 3)?;
    let shape = conv_shape(ctx, node, &x, &w, b.as_ref())?;
    Ok(vec![shaped(x.dtype, shape)])
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

fn conv_transpose(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
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

// ----- OpenVINO ----------------------------------------------------------------------

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
fn openvino_convolution(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
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
fn openvino_conv_backprop(
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

// ----- oneDNN ------------------------------------------------------------------------

/// How a oneDNN weights tensor orders its dims (`weights_format`): `O` the output
/// channels (per group for the transposed ops), `I` the input channels (per group
/// for the convolutions), `X` the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeightsFormat {
    /// `[O, I, k...]` (Convolution and its backward ops).
    Oix,
    /// `[k..., I, O]` (Convolution's default).
    Xio,
    /// `[I, O, k...]` (ConvTranspose and its backward ops).
    Iox,
    /// `[k..., O, I]` (ConvTranspose's default).
    Xoi,
}

impl WeightsFormat {
    /// The node's `weights_format`: `OIX` or `XIO` (default) for the convolutions,
    /// `IOX` or `XOI` (default) for the transposed ones (`transposed`), as oneDNN's
    /// op schemas allow.
    pub fn of(node: &Node, transposed: bool) -> Result<WeightsFormat, OpError> {
        let default = if transposed { "XOI" } else { "XIO" };
        let f = attr_str(node, "weights_format")?.unwrap_or(default);
        match (f, transposed) {
            ("OIX", false) => Ok(WeightsFormat::Oix),
            ("XIO", false) => Ok(WeightsFormat::Xio),
            ("IOX", true) => Ok(WeightsFormat::Iox),
            ("XOI", true) => Ok(WeightsFormat::Xoi),
            (other, _) => Err(OpError::BadAttribute {
                name: "weights_format",
                value: AttrValue::Word(other.to_string()),
                why: Box::new(if transposed {
                    AttrProblem::one_of(&["IOX", "XOI"])
                } else {
                    AttrProblem::one_of(&["OIX", "XIO"])
                }),
            }),
        }
    }

    /// Split weights `ws` of `k` spatial axes into `(O, I, kernel)`; their rank
    /// must be `k + 2`.
    pub fn split(self, ws: &[Dim], k: usize) -> Result<(Dim, Dim, Vec<Dim>), OpError> {
        if ws.len() != k + 2 {
            return Err(rank_of("weights", Expected::Exactly(k + 2), ws.len()));
        }
        Ok(match self {
            WeightsFormat::Oix => (ws[0], ws[1], ws[2..].to_vec()),
            WeightsFormat::Xio => (ws[k + 1], ws[k], ws[..k].to_vec()),
            WeightsFormat::Iox => (ws[1], ws[0], ws[2..].to_vec()),
            WeightsFormat::Xoi => (ws[k], ws[k + 1], ws[..k].to_vec()),
        })
    }

    /// The weights dims of `o`, `i` and `kernel` in this format.
    pub fn join(self, o: Dim, i: Dim, kernel: Vec<Dim>) -> Vec<Dim> {
        let (first, second) = match self {
            WeightsFormat::Oix | WeightsFormat::Xoi => (o, i),
            WeightsFormat::Xio | WeightsFormat::Iox => (i, o),
        };
        match self {
            WeightsFormat::Oix | WeightsFormat::Iox => {
                let mut out = vec![first, second];
                out.extend(kernel);
                out
            }
            WeightsFormat::Xio | WeightsFormat::Xoi => {
                let mut out = kernel;
                out.push(first);
                out.push(second);
                out
            }
        }
    }

    /// The weights axis of kernel axis `j` (of `k`).
    fn kernel_axis(self, j: usize) -> usize {
        match self {
            WeightsFormat::Oix | WeightsFormat::Iox => j + 2,
            WeightsFormat::Xio | WeightsFormat::Xoi => j,
        }
    }
}

/// oneDNN's `groups` attribute (default 1, at least 1), as a dim.
fn onednn_groups(ctx: &mut ShapesContext, node: &Node) -> Result<Dim, OpError> {
    let groups = attr_int(node, "groups", 1)?;
    if groups < 1 {
        return Err(OpError::BadAttribute {
            name: "groups",
            value: AttrValue::Int(groups),
            why: Box::new(AttrProblem::Below(1)),
        });
    }
    Ok(ctx.alg.constant(groups))
}

/// The spatial dims of a oneDNN convolution of `data` by `kernel` (the node's
/// window, floor rounding), each kernel checked to fit the padded input.
fn onednn_conv_spatial(
    ctx: &mut ShapesContext,
    node: &Node,
    data: &Layout,
    kernel: Vec<Dim>,
) -> Result<Vec<Dim>, OpError> {
    let window = onednn_window(node, kernel, Rounding::Floor)?;
    let fit = Fit::Kernel {
        first_axis: data.first_spatial_axis(),
    };
    window.outputs(ctx, node, &data.spatial, fit)
}

/// The spatial dims of a oneDNN transposed convolution of `data` by `kernel`
/// ([`Window::transposed_output_clamped_same`] with the `output_padding`
/// attribute); an output provably below 1 is an error.
fn onednn_transposed_spatial(
    ctx: &mut ShapesContext,
    node: &Node,
    data: &Layout,
    kernel: Vec<Dim>,
) -> Result<Vec<Dim>, OpError> {
    let n = kernel.len();
    let window = onednn_window(node, kernel, Rounding::Floor)?;
    let output_padding = onednn_output_padding(node, n)?;
    let one = ctx.alg.constant(1);
    let mut out = Vec::with_capacity(n);
    for (i, d) in data.spatial.iter().enumerate() {
        window.check_steps(i, data.first_spatial_axis() + i)?;
        let o = window.transposed_output_clamped_same(ctx, i, *d, output_padding[i]);
        out.push(at_least_one(ctx, one, i, o)?);
    }
    Ok(out)
}

/// `c / g` when `g` provably divides `c`; a provably inexact quotient is an
/// error naming `what`; otherwise a fresh dim of `node`'s output 0 at `axis`.
fn per_group(
    ctx: &mut ShapesContext,
    node: &Node,
    what: &'static str,
    c: Dim,
    g: Dim,
    axis: usize,
) -> Result<Dim, OpError> {
    check_group_divides(ctx, what, g, c)?;
    match ctx.alg.div(c, g) {
        Ok(q) => Ok(q),
        Err(_) => Ok(ctx.unknown_dim(node, 0, axis)),
    }
}

/// A oneDNN shape given by attribute `name` or, failing that, by the contents of
/// input `index`.
fn onednn_given_shape(
    ctx: &mut ShapesContext,
    node: &Node,
    name: &'static str,
    index: usize,
) -> Result<Option<Vec<Dim>>, OpError> {
    match crate::ops::nn::pool::onednn_shape_attr(ctx, node, name)? {
        Some(v) => Ok(Some(v)),
        None => Ok(ctx.optional_input(node, index)?.and_then(|f| f.value)),
    }
}

/// oneDNN's `output_padding`: non-negative, one entry per spatial axis (`n`);
/// oneDNN reads the first `n` entries of a longer list (its default, written out
/// by its serializer, is `DNNL_MAX_NDIMS` zeros). Absent or empty: zeros.
fn onednn_output_padding(node: &Node, n: usize) -> Result<Vec<i64>, OpError> {
    let Some(v) = attr_ints(node, "output_padding")?.filter(|v| !v.is_empty()) else {
        return Ok(vec![0; n]);
    };
    if v.len() < n {
        return Err(OpError::BadAttribute {
            name: "output_padding",
            value: AttrValue::Ints(v.to_vec()),
            why: Box::new(AttrProblem::Length {
                expected: n,
                form: LengthForm::ValuesPerSpatialAxis,
            }),
        });
    }
    if let Some(bad) = v[..n].iter().find(|x| **x < 0) {
        return Err(OpError::BadAttribute {
            name: "output_padding",
            value: AttrValue::Ints(v.to_vec()),
            why: Box::new(AttrProblem::EntryNegative(*bad)),
        });
    }
    Ok(v[..n].to_vec())
}

/// The data (input 0) and weights (input 1) of a oneDNN convolution op, read.
struct ConvInputs {
    /// The name of the data input: `src` or `diff_dst`.
    what: &'static str,
    data: TensorFact,
    weights: TensorFact,
    /// The output type: `dst_dtype`, else the data's.
    dtype: DType,
}

/// [`ConvInputs`] split: the data by `data_format`, the weights by
/// `weights_format`, with the `groups` attribute.
struct ConvParts {
    data: Layout,
    o: Dim,
    i: Dim,
    kernel: Vec<Dim>,
    groups: Dim,
}

impl ConvInputs {
    /// Check that the node has 2 to `max_inputs` inputs and read the data (named
    /// `what`) and the weights.
    fn read(
        ctx: &mut ShapesContext,
        node: &Node,
        what: &'static str,
        max_inputs: usize,
    ) -> Result<ConvInputs, OpError> {
        check_inputs(node, 2, max_inputs)?;
        let data = ctx.input(node, 0, what)?;
        let weights = ctx.input(node, 1, "weights")?;
        let dtype = dst_dtype(node, data.dtype)?;
        Ok(ConvInputs {
            what,
            data,
            weights,
            dtype,
        })
    }

    /// Split the inputs, the weights in a ConvTranspose's formats when
    /// `transposed`, and merge the data's channels with the weights' side they
    /// meet: `src` with `I`, `diff_dst` with `O`, times `groups` on the grouped
    /// side (`src` of a convolution, `diff_dst` of a ConvTranspose). `None` when a
    /// shape is unknown.
    fn split(
        &self,
        ctx: &mut ShapesContext,
        node: &Node,
        transposed: bool,
    ) -> Result<Option<ConvParts>, OpError> {
        let (Some(xs), Some(ws)) = (&self.data.shape, &self.weights.shape) else {
            return Ok(None);
        };
        let data = Layout::split_named(node, xs, self.what)?;
        let (o, i, kernel) = WeightsFormat::of(node, transposed)?.split(ws, data.spatial.len())?;
        let groups = onednn_groups(ctx, node)?;
        let is_src = self.what == "src";
        let (side, letter, meets) = if is_src {
            ("input", "I", i)
        } else {
            ("output", "O", o)
        };
        let grouped = is_src != transposed;
        let checks = ConvChecks {
            channels: DimRole::Channels {
                side,
                data: self.what,
                grouped,
                weights: letter,
            },
            equate: Equate::Record,
        };
        let groups_of = grouped.then_some(groups);
        conv_channels(ctx, node, data.channels, groups_of, meets, &checks)?;
        Ok(Some(ConvParts {
            data,
            o,
            i,
            kernel,
            groups,
        }))
    }
}

/// oneDNN Convolution(src, weights, bias?): weights `OIX` or `XIO` with
/// `C = groups * I`; a bias of `[O]`.
fn onednn_convolution(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let inputs = ConvInputs::read(ctx, node, "src", 3)?;
    let Some(c) = inputs.split(ctx, node, false)? else {
        return Ok(vec![TensorFact::unknown(inputs.dtype)]);
    };
    if let Some(b) = ctx.optional_input(node, 2)? {
        check_vector(ctx, node, &b, "bias", c.o, Equate::Record)?;
    }
    let spatial = onednn_conv_spatial(ctx, node, &c.data, c.kernel)?;
    Ok(vec![TensorFact::new(
        inputs.dtype,
        c.data.join(c.o, spatial),
    )])
}

/// oneDNN ConvTranspose(src, weights, bias?): weights `IOX` (`[I, O/groups, k...]`)
/// or `XOI` (`[k..., O/groups, I]`, the default) with `I` the `src` channels; the
/// output has `groups * O` channels and the spatial dims of
/// [`Window::transposed_output_clamped_same`]; a bias of `[groups * O]`.
fn onednn_conv_transpose(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let inputs = ConvInputs::read(ctx, node, "src", 3)?;
    let Some(c) = inputs.split(ctx, node, true)? else {
        return Ok(vec![TensorFact::unknown(inputs.dtype)]);
    };
    check_group_divides(ctx, "input channels src C", c.groups, c.data.channels)?;
    let out_c = ctx.alg.mul(c.groups, c.o);
    if let Some(b) = ctx.optional_input(node, 2)? {
        check_vector(ctx, node, &b, "bias", out_c, Equate::Record)?;
    }
    let spatial = onednn_transposed_spatial(ctx, node, &c.data, c.kernel)?;
    Ok(vec![TensorFact::new(
        inputs.dtype,
        c.data.join(out_c, spatial),
    )])
}

/// oneDNN ConvolutionBackwardData(diff_dst, weights, dst_shape?): `diff_src` is
/// the Convolution's `src`: the `dst_shape` attribute or input (its channels
/// `groups * I`, its convolution by the weights checked against `diff_dst`);
/// without one, the transposed convolution of `diff_dst` (`output_padding`
/// resolving the floor of the forward window; fresh spatial dims under `SAME`).
fn onednn_conv_backward_data(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    let inputs = ConvInputs::read(ctx, node, "diff_dst", 3)?;
    let dtype = inputs.dtype;
    let given = onednn_given_shape(ctx, node, "dst_shape", 2)?;
    let Some(ConvParts {
        data: dd,
        i,
        kernel,
        groups,
        ..
    }) = inputs.split(ctx, node, false)?
    else {
        return Ok(vec![shaped(dtype, given)]);
    };
    let in_c = ctx.alg.mul(groups, i);
    if let Some(shape) = given {
        let src = Layout::split_named(node, &shape, "dst_shape")?;
        if src.spatial.len() != dd.spatial.len() {
            return Err(rank_of(
                "dst_shape",
                Expected::Exactly(dd.spatial.len() + 2).noted("the rank of diff_dst"),
                shape.len(),
            ));
        }
        merge_dim_as(
            ctx,
            node,
            DimRole::of("batch", ("diff_dst", "dst_shape")),
            dd.batch,
            src.batch,
        )?;
        let channels = DimRole::Channels {
            side: "input",
            data: "dst_shape",
            grouped: true,
            weights: "I",
        };
        merge_dim_as(ctx, node, channels, src.channels, in_c)?;
        let conv = onednn_conv_spatial(ctx, node, &src, kernel)?;
        let axis = |axis| DimRole::SpatialAxis {
            axis,
            of: ("the convolved dst_shape", "diff_dst").into(),
        };
        merge_dims_as(ctx, node, &axis, &conv, &dd.spatial)?;
        return Ok(vec![TensorFact::new(dtype, shape)]);
    }
    let n = kernel.len();
    let window = onednn_window(node, kernel, Rounding::Floor)?;
    let output_padding = onednn_output_padding(node, n)?;
    let mut spatial = Vec::with_capacity(n);
    for (a, x) in dd.spatial.iter().enumerate() {
        let axis = dd.first_spatial_axis() + a;
        window.check_steps(a, axis)?;
        spatial.push(if window.mode.is_same() {
            ctx.unknown_dim(node, 0, axis)
        } else {
            window.transposed_output(ctx, a, *x, output_padding[a])
        });
    }
    Ok(vec![TensorFact::new(dtype, dd.join(in_c, spatial))])
}

/// oneDNN ConvolutionBackwardWeights(src, diff_dst, weights_shape?): `diff_weights`
/// in `weights_format`: the `weights_shape` attribute or input (`O` the
/// `diff_dst` channels, `groups * I` the `src` channels, the convolution of `src`
/// by its kernel checked against `diff_dst`); without one, `O`, `C / groups` and
/// a fresh kernel.
fn onednn_conv_backward_weights(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    onednn_backward_weights(ctx, node, false)
}

/// oneDNN ConvTransposeBackwardWeights(src, diff_dst, weights_shape?):
/// `diff_weights` in `weights_format` (`IOX` or `XOI`): the `weights_shape`
/// attribute or input (`I` the `src` channels, `groups * O` the `diff_dst`
/// channels); without one, `I`, `C / groups` and a fresh kernel.
fn onednn_conv_transpose_backward_weights(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    onednn_backward_weights(ctx, node, true)
}

/// The weights gradient of a oneDNN convolution (`transposed`: of a ConvTranspose).
fn onednn_backward_weights(
    ctx: &mut ShapesContext,
    node: &Node,
    transposed: bool,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 3)?;
    let x = ctx.input(node, 0, "src")?;
    let d = ctx.input(node, 1, "diff_dst")?;
    let dtype = dst_dtype(node, x.dtype)?;
    let format = WeightsFormat::of(node, transposed)?;
    let given = onednn_given_shape(ctx, node, "weights_shape", 2)?;
    let (Some(xs), Some(ds)) = (&x.shape, &d.shape) else {
        return Ok(vec![shaped(dtype, given)]);
    };
    let src = Layout::split(node, xs)?;
    let dd = Layout::split_named(node, ds, "diff_dst")?;
    if src.spatial.len() != dd.spatial.len() {
        return Err(rank_of(
            "diff_dst",
            Expected::Exactly(xs.len()).noted("the rank of src"),
            ds.len(),
        ));
    }
    merge_dim_as(
        ctx,
        node,
        DimRole::of("batch", ("src", "diff_dst")),
        src.batch,
        dd.batch,
    )?;
    let g = onednn_groups(ctx, node)?;
    let k = src.spatial.len();
    if let Some(ws) = given {
        let (o, i, kernel) = format.split(&ws, k)?;
        // the grouped pair is the data's input side of the convolution (src for a
        // forward one, diff_dst for a transposed one)
        let channels = |side, data, grouped, weights| DimRole::Channels {
            side,
            data,
            grouped,
            weights,
        };
        let (per_group, full, per_what, full_what) = if transposed {
            (
                o,
                i,
                channels("output", "diff_dst", true, "O"),
                channels("input", "src", false, "I"),
            )
        } else {
            (
                i,
                o,
                channels("input", "src", true, "I"),
                channels("output", "diff_dst", false, "O"),
            )
        };
        let (grouped_c, full_c) = if transposed {
            (dd.channels, src.channels)
        } else {
            (src.channels, dd.channels)
        };
        let gp = ctx.alg.mul(g, per_group);
        merge_dim_as(ctx, node, per_what, grouped_c, gp)?;
        merge_dim_as(ctx, node, full_what, full_c, full)?;
        if !transposed {
            let conv = onednn_conv_spatial(ctx, node, &src, kernel)?;
            let axis = |axis| DimRole::SpatialAxis {
                axis,
                of: ("src convolved by weights_shape", "diff_dst").into(),
            };
            merge_dims_as(ctx, node, &axis, &conv, &dd.spatial)?;
        }
        return Ok(vec![TensorFact::new(dtype, ws)]);
    }
    let kernel: Vec<Dim> = (0..k)
        .map(|j| ctx.unknown_dim(node, 0, format.kernel_axis(j)))
        .collect();
    let (o_axis, i_axis) = match format {
        WeightsFormat::Oix => (0, 1),
        WeightsFormat::Iox => (1, 0),
        WeightsFormat::Xio => (k + 1, k),
        WeightsFormat::Xoi => (k, k + 1),
    };
    let (o, i) = if transposed {
        let o = per_group(ctx, node, "diff_dst channels", dd.channels, g, o_axis)?;
        (o, src.channels)
    } else {
        let i = per_group(ctx, node, "src channels", src.channels, g, i_axis)?;
        (dd.channels, i)
    };
    Ok(vec![TensorFact::new(dtype, format.join(o, i, kernel))])
}

/// oneDNN ConvTransposeBackwardData(diff_dst, weights): `diff_src` is the
/// ConvTranspose's `src`, the convolution of `diff_dst` (channels `groups * O`) by
/// the weights (`IOX` or `XOI`), with `I` channels.
fn onednn_conv_transpose_backward_data(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    let inputs = ConvInputs::read(ctx, node, "diff_dst", 2)?;
    let Some(c) = inputs.split(ctx, node, true)? else {
        return Ok(vec![TensorFact::unknown(inputs.dtype)]);
    };
    let spatial = onednn_conv_spatial(ctx, node, &c.data, c.kernel)?;
    Ok(vec![TensorFact::new(
        inputs.dtype,
        c.data.join(c.i, spatial),
    )])
}

// ----- OpenVINO DeformableConvolution, BinaryConvolution -------------------------------

/// OpenVINO DeformableConvolution (1, 8: inputs data, offsets, filters and, from 8,
/// an optional mask) and BinaryConvolution-1 (data, filters): a Convolution of the
/// data by filters `[C_out, C_in / group, k...]` (`group` attribute, 1 by default);
/// the output has the data's type.
fn openvino_deformable_convolution(
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
