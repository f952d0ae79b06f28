//! Convolutions and pooling: Conv, ConvInteger, QLinearConv, DeformConv,
//! ConvTranspose, MaxPool, AveragePool, LpPool, GlobalAveragePool, GlobalMaxPool,
//! GlobalLpPool, MaxUnpool, MaxRoiPool and RoiAlign.
//!
//! Spec: <https://onnx.ai/onnx/operators/> (the pages of each op; the formulas are
//! those of the `auto_pad` and `pads` attribute descriptions).
//!
//! Input `X` is `[N, C, D1, ..., Dn]`. For each spatial axis, with kernel `k`,
//! stride `s`, dilation `d`, pads `pb`/`pe` and effective kernel
//! `ek = d*(k - 1) + 1`, the output length is
//! - `auto_pad = NOTSET` (explicit pads): `floordiv(in + pb + pe - ek, s) + 1`;
//!   pools with `ceil_mode = 1` use `ceildiv` instead, and then drop a last window
//!   that would start inside the right padding (the rule of PyTorch and of
//!   onnxruntime's pooling kernels): `min(ceildiv(in + pb + pe - ek, s) + 1,
//!   floordiv(in + pb - 1, s) + 1)`. The first term alone when `ek >= s + pe`
//!   (the second can never be smaller), the second alone when `pe >= ek - 1`
//!   (it is never larger);
//! - `SAME_UPPER` / `SAME_LOWER`: `ceildiv(in, s)`;
//! - `VALID`: `floordiv(in - ek, s) + 1` (with `ceil_mode`: `ceildiv(in - ek, s) + 1`).
//!
//! ConvTranspose gives `s*(in - 1) + output_padding + ek - pb - pe`, `in*s` for
//! `SAME_*`, or the `output_shape` attribute when present. Conv's kernel comes
//! from the weight `W = [M, C/group, k1, ..., kn]` (and must agree with
//! `kernel_shape` when both are given); `C` must equal `group * W[1]` (unified when
//! the algebra cannot decide) and `group` must divide `M`.
//!
//! Special values: `group` must be positive; strides and dilations positive; pads
//! of Conv and pools non-negative. A Conv or ConvTranspose output length that is
//! provably below 1 is an error (onnxruntime rejects a 0-length Conv output); a
//! pool's may be 0 (onnxruntime runs it), and below 0 is an error.
//!
//! Version history (shape-relevant):
//! - Conv-1, -11 (`auto_pad`/`kernel_shape` inference from `W` unchanged;
//!   11 defines `pads` defaults), -22 (types). ConvInteger-10. QLinearConv-10.
//!   DeformConv-19, -22.
//! - ConvTranspose-1, -11 (`output_shape`/`output_padding` semantics pinned down),
//!   -22 (types).
//! - MaxPool-1; -8 adds the `Indices` output and `storage_order`; -10 adds
//!   `ceil_mode` and `dilations`; -11 (pads semantics); -12 (int8/uint8);
//!   -22 (types).
//! - AveragePool-1; -7 `count_include_pad`; -10 `ceil_mode`; -11; -19
//!   `dilations`; -22.
//! - LpPool-1 (`p` a float), -2 (`p` an int), -11, -18 (`ceil_mode`,
//!   `dilations`), -22.
//! - GlobalAveragePool/GlobalMaxPool-1, -22; GlobalLpPool-1, -2, -22: output
//!   `[N, C, 1, ..., 1]`.
//! - MaxUnpool-9, -11 (optional `output_shape` input), -22.
//! - MaxRoiPool-1, -22: `[num_rois, C, pooled_h, pooled_w]`.
//! - RoiAlign-10, -16 (`coordinate_transformation_mode`), -22:
//!   `[num_rois, C, output_height, output_width]`.

use super::nn_util::{attr_list, check_vector, expect_rank, rank_error, unify, Equate};
use super::{attr_int, attr_ints, attr_str, check_inputs, RuleEntry};
use crate::algebra::{Dim, Truth};
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};

/// The rules of this family.
pub const RULES: &[RuleEntry] = &[
    ("", "Conv", conv),
    ("", "ConvInteger", conv_integer),
    ("", "QLinearConv", qlinear_conv),
    ("", "DeformConv", deform_conv),
    ("", "ConvTranspose", conv_transpose),
    ("", "MaxPool", max_pool),
    ("", "AveragePool", average_pool),
    ("", "LpPool", lp_pool),
    ("", "GlobalAveragePool", global_pool),
    ("", "GlobalMaxPool", global_pool),
    ("", "GlobalLpPool", global_pool),
    ("", "MaxUnpool", max_unpool),
    ("", "MaxRoiPool", max_roi_pool),
    ("", "RoiAlign", roi_align),
];

/// The `auto_pad` attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AutoPad {
    /// Explicit `pads` (the default).
    NotSet,
    /// Pad so that `out = ceildiv(in, s)`, extra padding at the end.
    SameUpper,
    /// Pad so that `out = ceildiv(in, s)`, extra padding at the beginning.
    SameLower,
    /// No padding.
    Valid,
}

impl AutoPad {
    /// Read the `auto_pad` attribute of a node.
    pub fn of(node: &Node) -> Result<AutoPad, OpError> {
        match attr_str(node, "auto_pad")?.unwrap_or("NOTSET") {
            "NOTSET" | "" => Ok(AutoPad::NotSet),
            "SAME_UPPER" => Ok(AutoPad::SameUpper),
            "SAME_LOWER" => Ok(AutoPad::SameLower),
            "VALID" => Ok(AutoPad::Valid),
            other => Err(OpError::BadAttribute {
                name: "auto_pad",
                value: format!("{other:?}"),
                why: "expected NOTSET, SAME_UPPER, SAME_LOWER or VALID".to_string(),
            }),
        }
    }
}

/// The sliding-window attributes of one node, for `n` spatial axes.
#[derive(Clone, Debug)]
pub struct Window {
    /// Kernel length per axis.
    pub kernel: Vec<Dim>,
    /// Strides (positive).
    pub strides: Vec<i64>,
    /// Dilations (positive).
    pub dilations: Vec<i64>,
    /// Pads: `n` begins then `n` ends.
    pub pads: Vec<i64>,
    /// The `auto_pad` mode.
    pub auto_pad: AutoPad,
    /// `ceil_mode` (pools only).
    pub ceil_mode: bool,
}

fn positive(x: i64) -> bool {
    x > 0
}

fn non_negative(x: i64) -> bool {
    x >= 0
}

impl Window {
    /// Read strides, dilations, pads, `auto_pad` and `ceil_mode` for `kernel`.
    /// `allow_negative_pads` is for ConvTranspose, whose pads may crop.
    pub fn read(
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
        let pads = attr_list(node, "pads", 2 * n, 0, pad_ok, "non-negative")?;
        let ceil_mode = attr_int(node, "ceil_mode", 0)? != 0;
        Ok(Window {
            kernel,
            strides,
            dilations,
            pads,
            auto_pad: AutoPad::of(node)?,
            ceil_mode,
        })
    }

    /// The effective kernel `d*(k - 1) + 1` of axis `i`.
    fn effective_kernel(&self, ctx: &mut ShapesContext, i: usize) -> Dim {
        let one = ctx.alg.constant(1);
        let d = ctx.alg.constant(self.dilations[i]);
        let k1 = ctx.alg.sub(self.kernel[i], one);
        let dk = ctx.alg.mul(d, k1);
        ctx.alg.add_dims(dk, one)
    }

    /// The output length of a convolution or pooling window over `input` on axis
    /// `i` (see the module doc).
    pub fn output(&self, ctx: &mut ShapesContext, i: usize, input: Dim) -> Dim {
        let one = ctx.alg.constant(1);
        let s = ctx.alg.constant(self.strides[i]);
        let ek = self.effective_kernel(ctx, i);
        let (pb, pe) = match self.auto_pad {
            AutoPad::SameUpper | AutoPad::SameLower => return ctx.alg.ceildiv(input, s),
            AutoPad::Valid => (0, 0),
            AutoPad::NotSet => (self.pads[i], self.pads[i + self.kernel.len()]),
        };
        let pb = ctx.alg.constant(pb);
        let pe = ctx.alg.constant(pe);
        let padded = ctx.alg.add_dims(input, pb);
        let padded = ctx.alg.add_dims(padded, pe);
        let span = ctx.alg.sub(padded, ek);
        if !self.ceil_mode {
            let q = ctx.alg.floordiv(span, s);
            return ctx.alg.add_dims(q, one);
        }
        let q = ctx.alg.ceildiv(span, s);
        let out = ctx.alg.add_dims(q, one);
        // Drop a last window that starts in the right padding. With
        // A = in + pb - 1, the ceil form is ceildiv(A + pe - ek + 1, s) + 1 and the
        // limit floordiv(A, s) + 1: the limit never binds when ek >= s + pe, and
        // always binds when pe >= ek - 1.
        let s_pe = ctx.alg.add_dims(s, pe);
        if ctx.alg.le(s_pe, ek) == Truth::True {
            return out;
        }
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

    /// The output lengths of every spatial axis; an error when one is provably
    /// below `least`, and a recorded requirement (`least <= length`, for contracts)
    /// when that is not decided. A convolution needs 1: onnxruntime rejects a
    /// 0-length Conv output (silero-vad's STFT Conv fails at 191 samples and runs at
    /// 192); a pool accepts 0 (it runs ppocr's classifier at 16x16, where a MaxPool
    /// gets a length-1 input and a kernel of 2), so pools pass 0.
    pub fn outputs(
        &self,
        ctx: &mut ShapesContext,
        node: &Node,
        spatial: &[Dim],
        least: i64,
    ) -> Result<Vec<Dim>, OpError> {
        let one = ctx.alg.constant(least);
        let mut out = Vec::with_capacity(spatial.len());
        for (i, d) in spatial.iter().enumerate() {
            let o = self.output(ctx, i, *d);
            let fits = ctx.alg.le(one, o);
            if fits == Truth::Unknown {
                ctx.alg.record_requirement(one, o, &node.name, "window");
            }
            if fits == Truth::False {
                return Err(OpError::BadShapeValue {
                    what: format!(
                        "spatial axis {i}: output length {} is below {least} (input {}, kernel {})",
                        ctx.alg.render(o),
                        ctx.alg.render(*d),
                        ctx.alg.render(self.kernel[i]),
                    ),
                });
            }
            out.push(o);
        }
        Ok(out)
    }
}

/// The data input `X = [N, C, D1..Dn]`: an error when the rank is below 3 (or
/// `min_rank`).
fn data_shape(fact: &TensorFact, what: &str, min_rank: usize) -> Result<Option<Vec<Dim>>, OpError> {
    match &fact.shape {
        None => Ok(None),
        Some(s) if s.len() < min_rank => {
            Err(rank_error(what, format!("at least {min_rank}"), s.len()))
        }
        Some(s) => Ok(Some(s.clone())),
    }
}

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
                    value: format!("{ks:?}"),
                    why: format!("expected {n} entries (one per spatial axis)"),
                });
            }
            let mut out = Vec::with_capacity(n);
            for (i, k) in ks.iter().enumerate() {
                if *k <= 0 {
                    return Err(OpError::BadAttribute {
                        name: "kernel_shape",
                        value: format!("{ks:?}"),
                        why: "entries must be positive".to_string(),
                    });
                }
                let kd = ctx.alg.constant(*k);
                out.push(unify(
                    ctx,
                    node,
                    &format!("kernel_shape[{i}] and W spatial dim {i}"),
                    from_w[i],
                    kd,
                )?);
            }
            Ok(out)
        }
    }
}

fn group_of(node: &Node) -> Result<i64, OpError> {
    let g = attr_int(node, "group", 1)?;
    if g <= 0 {
        return Err(OpError::BadAttribute {
            name: "group",
            value: g.to_string(),
            why: "must be positive".to_string(),
        });
    }
    Ok(g)
}

/// Check that `group` divides `dim` (the output channels of Conv).
fn check_group_divides(
    ctx: &mut ShapesContext,
    what: &str,
    g: Dim,
    dim: Dim,
) -> Result<(), OpError> {
    if ctx.alg.divides(g, dim) == Truth::False {
        return Err(OpError::BadShapeValue {
            what: format!(
                "{what} {} is not a multiple of group {}",
                ctx.alg.render(dim),
                ctx.alg.render(g)
            ),
        });
    }
    Ok(())
}

/// The shape of a forward convolution of `x` by `w` (`None` when both ranks are
/// unknown). Checks channels, group and bias.
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
    let window = Window::read(node, kernel, false)?;
    let Some(xs) = xs else {
        let mut out = vec![ctx.unknown_dim(node, 0, 0), ws[0]];
        for i in 0..n {
            out.push(ctx.unknown_dim(node, 0, i + 2));
        }
        return Ok(Some(out));
    };
    if xs.len() != ws.len() {
        return Err(rank_error(
            "input X",
            format!("{} (the rank of W)", ws.len()),
            xs.len(),
        ));
    }
    let c = ctx.alg.mul(gd, ws[1]);
    unify(ctx, node, "input channels X[1] and group * W[1]", xs[1], c)?;
    let mut out = vec![xs[0], ws[0]];
    out.extend(window.outputs(ctx, node, &xs[2..], 1)?);
    Ok(Some(out))
}

fn shaped(dtype: DType, shape: Option<Vec<Dim>>) -> TensorFact {
    match shape {
        Some(s) => TensorFact::new(dtype, s),
        None => TensorFact::unknown(dtype),
    }
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
    let window = Window::read(node, kernel, true)?;
    let output_padding = attr_list(node, "output_padding", n, 0, non_negative, "non-negative")?;
    let Some(xs) = xs else {
        let mut out = vec![ctx.unknown_dim(node, 0, 0), m];
        for i in 0..n {
            out.push(ctx.unknown_dim(node, 0, i + 2));
        }
        return Ok(vec![TensorFact::new(x.dtype, out)]);
    };
    if xs.len() != ws.len() {
        return Err(rank_error(
            "input X",
            format!("{} (the rank of W)", ws.len()),
            xs.len(),
        ));
    }
    unify(ctx, node, "input channels X[1] and W[0]", xs[1], ws[0])?;
    let mut out = vec![xs[0], m];
    if let Some(os) = attr_ints(node, "output_shape")? {
        let spatial = match os.len() {
            l if l == n => os,
            l if l == n + 2 => &os[2..],
            _ => {
                return Err(OpError::BadAttribute {
                    name: "output_shape",
                    value: format!("{os:?}"),
                    why: format!("expected {n} entries (one per spatial axis)"),
                })
            }
        };
        if let Some(bad) = spatial.iter().find(|v| **v <= 0) {
            return Err(OpError::BadAttribute {
                name: "output_shape",
                value: format!("{os:?}"),
                why: format!("entry {bad} is not positive"),
            });
        }
        for v in spatial {
            out.push(ctx.alg.constant(*v));
        }
        return Ok(vec![TensorFact::new(x.dtype, out)]);
    }
    let one = ctx.alg.constant(1);
    for i in 0..n {
        let input = xs[i + 2];
        let s = ctx.alg.constant(window.strides[i]);
        let o = match window.auto_pad {
            AutoPad::SameUpper | AutoPad::SameLower => ctx.alg.mul(input, s),
            mode => {
                let (pb, pe) = if mode == AutoPad::Valid {
                    (0, 0)
                } else {
                    (window.pads[i], window.pads[i + n])
                };
                let in1 = ctx.alg.sub(input, one);
                let base = ctx.alg.mul(s, in1);
                let op = ctx.alg.constant(output_padding[i]);
                let ek = window.effective_kernel(ctx, i);
                let pads = ctx.alg.constant(pb);
                let pads_e = ctx.alg.constant(pe);
                let sum = ctx.alg.sum(&[base, op, ek]);
                let sum = ctx.alg.sub(sum, pads);
                ctx.alg.sub(sum, pads_e)
            }
        };
        if ctx.alg.le(one, o) == Truth::False {
            return Err(OpError::BadShapeValue {
                what: format!(
                    "spatial axis {i}: output length {} is below 1",
                    ctx.alg.render(o)
                ),
            });
        }
        out.push(o);
    }
    Ok(vec![TensorFact::new(x.dtype, out)])
}

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
                value: format!("{ks:?}"),
                why: format!("expected {n} entries (one per spatial axis)"),
            });
        }
    }
    if ks.iter().any(|k| *k <= 0) {
        return Err(OpError::BadAttribute {
            name: "kernel_shape",
            value: format!("{ks:?}"),
            why: "entries must be positive".to_string(),
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
    let window = Window::read(node, kernel, false)?;
    let Some(xs) = xs else {
        // The kernel gives the rank.
        let n = window.kernel.len();
        let out = (0..n + 2)
            .map(|axis| ctx.unknown_dim(node, 0, axis))
            .collect();
        return Ok(Some(out));
    };
    let mut out = vec![xs[0], xs[1]];
    out.extend(window.outputs(ctx, node, &xs[2..], 0)?);
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
            return Err(rank_error("indices I", xs.len(), is.len()));
        }
        for (axis, (a, b)) in xs.iter().zip(is).enumerate() {
            unify(ctx, node, &format!("axis {axis} of X and I"), *a, *b)?;
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
            let n = usize::try_from(n).map_err(|_| OpError::BadShapeValue {
                what: format!("output_shape has {n} entries"),
            })?;
            if x.shape.as_ref().is_some_and(|s| s.len() != n) {
                return Err(rank_error(
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
    let window = Window::read(node, kernel, false)?;
    let Some(xs) = xs else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let n = xs.len() - 2;
    let one = ctx.alg.constant(1);
    let mut out = vec![xs[0], xs[1]];
    for a in 0..n {
        let s = ctx.alg.constant(window.strides[a]);
        let in1 = ctx.alg.sub(xs[a + 2], one);
        let base = ctx.alg.mul(in1, s);
        let grown = ctx.alg.add_dims(base, window.kernel[a]);
        let pads = ctx.alg.constant(window.pads[a]);
        let pads_e = ctx.alg.constant(window.pads[a + n]);
        let o = ctx.alg.sub(grown, pads);
        out.push(ctx.alg.sub(o, pads_e));
    }
    Ok(vec![TensorFact::new(x.dtype, out)])
}

/// `[num_rois, C, h, w]` for the RoI pools.
fn roi_output(
    ctx: &mut ShapesContext,
    node: &Node,
    x: &TensorFact,
    rois: &TensorFact,
    box_len: i64,
    h: i64,
    w: i64,
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
            unify(ctx, node, "rois box length", s[1], bl)?;
            s[0]
        }
        None => ctx.unknown_dim(node, 0, 0),
    };
    let h = ctx.alg.constant(h);
    let w = ctx.alg.constant(w);
    Ok(TensorFact::new(x.dtype, vec![n, c, h, w]))
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
            value: format!("{ps:?}"),
            why: "expected two positive entries".to_string(),
        });
    }
    Ok(vec![roi_output(ctx, node, &x, &rois, 5, ps[0], ps[1])?])
}

fn roi_align(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let x = ctx.input(node, 0, "X")?;
    let rois = ctx.input(node, 1, "rois")?;
    let bi = ctx.input(node, 2, "batch_indices")?;
    let oh = attr_int(node, "output_height", 1)?;
    let ow = attr_int(node, "output_width", 1)?;
    if oh <= 0 || ow <= 0 {
        return Err(OpError::BadAttribute {
            name: if oh <= 0 {
                "output_height"
            } else {
                "output_width"
            },
            value: oh.min(ow).to_string(),
            why: "must be positive".to_string(),
        });
    }
    let out = roi_output(ctx, node, &x, &rois, 4, oh, ow)?;
    if let (Some(b), Some(r)) = (&bi.shape, &rois.shape) {
        expect_rank("batch_indices", b, 1)?;
        unify(ctx, node, "num_rois of batch_indices and rois", b[0], r[0])?;
    }
    Ok(vec![out])
}
