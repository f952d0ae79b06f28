//! The sliding window shared by the convolutions ([`crate::ops::nn::conv`]), the
//! pools ([`crate::ops::nn::pool`]) and image patches
//! ([`crate::ops::nn::patches`]) of every format, and the readers of each format's
//! window attributes.
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
//! the requirement when it is not decided. For an ONNX pool it also records that
//! the dilated kernel fits in the padded input ([`Fit::PoolOutput`]): below that
//! the spec's output is empty but onnxruntime's is not, and OpenVINO refuses.
//!

use crate::algebra::{Dim, Rat, Truth};
use crate::context::{AttrProblem, AttrValue, ShapeValueProblem};
use crate::context::{OpError, ShapesContext};
use crate::graph::Node;
use crate::ops::common::attrs::{attr_int, attr_ints, attr_str};
use crate::ops::common::attrs::{attr_list, ov_str, spatial_list};

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
    /// ONNX pools: an output below 0 is an error, and the dilated kernel fitting
    /// in the padded input is recorded for the contract when undecided. Where it
    /// does not fit the spec's floor gives an empty output, but onnxruntime divides
    /// with truncation (a 1x1 input under a 2x2, stride-2 MaxPool gives 1, not 0)
    /// and OpenVINO refuses the model, so only inputs the kernel fits are valid
    /// on every runtime.
    PoolOutput,
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
            if fit == Fit::PoolOutput && !self.mode.is_same() {
                let span = self.span(ctx, i, *d);
                let zero = ctx.alg.constant(0);
                if ctx.alg.le(zero, span) == Truth::Unknown {
                    ctx.alg.record_requirement(zero, span, &node.name, "window");
                }
            }
            let least = match fit {
                Fit::Output(least) => Some(least),
                Fit::PoolOutput => Some(0),
                Fit::Kernel { .. } => None,
            };
            if let Some(least) = least {
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
    pub(crate) fn check_steps(&self, i: usize, axis: usize) -> Result<(), OpError> {
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

// ----- reading windows ---------------------------------------------------------------

/// A positive list entry (strides, dilations).
pub(crate) fn positive(x: i64) -> bool {
    x > 0
}

/// A non-negative list entry (pads).
pub(crate) fn non_negative(x: i64) -> bool {
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

// ----- oneDNN shape attributes -------------------------------------------------------

/// `DNNL_MAX_NDIMS`: the length of the default oneDNN writes for its list
/// attributes (`src_shape`, `dst_shape`, `weights_shape`, `output_padding`: that
/// many zeros).
pub const ONEDNN_MAX_NDIMS: usize = 12;

/// A oneDNN shape attribute (`src_shape`, `dst_shape`, `weights_shape`) as dims:
/// `None` when absent or equal to the op schema's default (`DNNL_MAX_NDIMS`
/// zeros, which oneDNN's serializer writes for an unset one); a negative entry
/// is an error.
pub fn onednn_shape_attr(
    ctx: &mut ShapesContext,
    node: &Node,
    name: &'static str,
) -> Result<Option<Vec<Dim>>, OpError> {
    let Some(v) = attr_ints(node, name)? else {
        return Ok(None);
    };
    if v.len() == ONEDNN_MAX_NDIMS && v.iter().all(|x| *x == 0) {
        return Ok(None);
    }
    if let Some(bad) = v.iter().find(|x| **x < 0) {
        return Err(OpError::BadAttribute {
            name,
            value: AttrValue::Ints(v.to_vec()),
            why: Box::new(AttrProblem::EntryNegative(*bad)),
        });
    }
    Ok(Some(v.iter().map(|x| ctx.alg.constant(*x)).collect()))
}
