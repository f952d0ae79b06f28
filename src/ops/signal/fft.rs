//! Fourier transforms: ONNX `DFT` and `STFT`; OpenVINO `DFT`, `IDFT`, `RDFT`,
//! `IRDFT`, `STFT` and `ISTFT`.
//!
//! Specs: the ONNX operator reference (`DFT`, `STFT`) and the OpenVINO operation
//! specification (`DFT-7`, `IDFT-7`, `RDFT-9`, `IRDFT-9`, `STFT-15`, `ISTFT-16`).
//!
//! Complex tensors keep their real and imaginary parts on a last axis of 2.
//! `axes` (input 1) and `signal_size` (optional input 2) are 1-D and of one
//! length; a `signal_size` entry of -1 keeps the axis' size, any other replaces it
//! (its contents may be symbolic). For the complex inputs the axes count over the
//! dims before the last (negative ones from there).
//!
//! * `DFT`, `IDFT`: the input's shape with the signal sizes ([`dft_shape`]).
//! * `RDFT`: a real input; the signal sizes, then the last transformed axis `n`
//!   becomes `n / 2 + 1` (floor), and a last axis of 2 is added.
//! * `IRDFT`: a complex input; the last axis is dropped, the signal sizes applied,
//!   and the last transformed axis `n` becomes `2 * (n - 1)` unless its signal
//!   size is given.
//! * `STFT`: `signal [B?, L]`, scalar `frame_size` and `frame_step` give
//!   `frames = (L - frame_size) / frame_step + 1` (floor) windows of
//!   `frame_size / 2 + 1` frequencies: `[B?, frames, freqs, 2]`, or
//!   `[B?, freqs, frames, 2]` with `transpose_frames`.
//! * `ISTFT`: `[B?, freqs, frames, 2]` gives `[B?, length]`: the `length` input
//!   when given, else `(frames - 1) * frame_step + frame_size`, less
//!   `frame_size` with `center`.
//!
//! ONNX keeps the real and imaginary parts on a last axis of 1 (real) or 2
//! (complex) and transforms one `axis` (17: attribute, default 1; 20: scalar
//! input, default -2; not the last one), with `n` the `dft_length` input, or the
//! axis' length (`2 * (d - 1)` for IRFFT):
//!
//! * `DFT` ([`onnx_dft_shape`], on [`dft_shape`]): `onesided = 0` gives `n` and a
//!   last axis of 2 (OpenVINO's `DFT`, a real input read as complex);
//!   `onesided = 1` forward (RFFT, real input) `floor(n / 2) + 1` and 2
//!   (`RDFT`); inverse (IRFFT, complex input) `n` and 1 (`IRDFT`, the real axis
//!   put back).
//! * `STFT`: `signal [B, L, 1 or 2]`, scalar `frame_step` `t`, the frame length `f`
//!   (the `frame_length` input, else the window's length, else `L`) give `[B,
//!   frames, bins, 2]` ([`stft_frames`], [`stft_bins`], shared with OpenVINO's
//!   STFT): `bins = floor(f / 2) + 1` when `onesided` (the default), `f`
//!   otherwise; a window must be `[f]`.
//!
//! Axes or sizes that are not known give fresh dims where they matter. The type is
//! the input's.
//!
//! # Version history
//! * ONNX **DFT**: 17 (`axis` attribute); 20 (`axis` input, default -2).
//!   **STFT**: 17.
//! * OpenVINO **DFT**, **IDFT**: 7. **RDFT**, **IRDFT**: 9. **STFT**: 15.
//!   **ISTFT**: 16.

use crate::algebra::{Dim, Truth};
use crate::context::ShapeValueProblem;
use crate::context::{Expected, OpError, ShapesContext, TensorFact};
use crate::graph::Node;
use crate::ops::common::attrs::attr_int;
use crate::ops::common::attrs::ov_bool;
use crate::ops::common::dims::{expect_rank, rank_of, shaped, unify_as};
use crate::ops::common::values::const_ints;
use crate::ops::common::{check_inputs, fresh_dims, norm_axis};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["DFT"], onnx_dft),
    ("", ["STFT"], onnx_stft),
    ("openvino", ["DFT", "IDFT"], ov_dft),
    ("openvino", ["RDFT"], ov_rdft),
    ("openvino", ["IRDFT"], ov_irdft),
    ("openvino", ["STFT"], ov_stft),
    ("openvino", ["ISTFT"], ov_istft),
];

/// Which transform [`dft_shape`] computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dft {
    /// Complex to complex (DFT, IDFT).
    Complex,
    /// Real to complex (RDFT).
    Real,
    /// Complex to real (IRDFT).
    InverseReal,
}

/// The output shape of a transform of `data` over `axes` (as written: negative
/// ones count from the end of the signal dims) with the signal sizes `sizes`
/// (`None`: absent; `-1` entries keep the size).
pub fn dft_shape(
    ctx: &mut ShapesContext,
    kind: Dft,
    data: &[Dim],
    axes: &[i64],
    sizes: Option<&[Dim]>,
) -> Result<Vec<Dim>, OpError> {
    let complex = kind != Dft::Real;
    if complex && data.len() < 2 {
        return Err(rank_of(
            "data",
            Expected::AtLeast(2).noted("a last axis of 2"),
            data.len(),
        ));
    }
    if complex && ctx.alg.as_i64(data[data.len() - 1]).is_some_and(|d| d != 2) {
        return Err(OpError::BadShapeValue(Box::new(
            ShapeValueProblem::ComplexLastAxis(ctx.alg.expr(data[data.len() - 1])),
        )));
    }
    let signal = if complex { data.len() - 1 } else { data.len() };
    let mut out = data[..signal].to_vec();
    let axes: Vec<usize> = axes
        .iter()
        .map(|a| norm_axis(*a, signal))
        .collect::<Result<_, _>>()?;
    if let Some(s) = sizes {
        if s.len() != axes.len() {
            return Err(OpError::BadShapeValue(Box::new(
                ShapeValueProblem::EntriesFor {
                    what: "signal_size",
                    found: s.len(),
                    count: axes.len(),
                    of: "axes",
                },
            )));
        }
    }
    let mut last_given = false;
    for (i, &a) in axes.iter().enumerate() {
        let given = sizes
            .map(|s| s[i])
            .filter(|d| ctx.alg.as_i64(*d) != Some(-1));
        last_given = given.is_some();
        if let Some(d) = given {
            out[a] = d;
        }
    }
    if let Some(&last) = axes.last() {
        let two = ctx.alg.constant(2);
        let one = ctx.alg.constant(1);
        match kind {
            Dft::Complex => {}
            Dft::Real => {
                let half = ctx.alg.floordiv(out[last], two);
                out[last] = ctx.alg.add_dims(half, one);
            }
            Dft::InverseReal if !last_given => {
                let m = ctx.alg.sub(out[last], one);
                out[last] = ctx.alg.mul(two, m);
            }
            Dft::InverseReal => {}
        }
    }
    if kind != Dft::InverseReal {
        out.push(ctx.alg.constant(2));
    }
    Ok(out)
}

/// The shared rule of the four transforms.
fn dft_rule(ctx: &mut ShapesContext, node: &Node, kind: Dft) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 3)?;
    let x = ctx.input(node, 0, "data")?;
    let axes = ctx.input(node, 1, "axes")?;
    let sizes = match node.input(2) {
        Some(_) => Some(ctx.input(node, 2, "signal_size")?),
        None => None,
    };
    let Some(xs) = &x.shape else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let axes_v = const_ints(&ctx.alg, &axes);
    let sizes_v = sizes.as_ref().map(|s| s.value.clone());
    let out = match (axes_v, sizes_v) {
        (Some(a), None) => Some(dft_shape(ctx, kind, xs, &a, None)?),
        (Some(a), Some(Some(s))) => Some(dft_shape(ctx, kind, xs, &a, Some(&s))?),
        // without signal sizes a complex transform keeps the shape wherever it acts
        (None, None) if kind == Dft::Complex => Some(xs.clone()),
        _ => {
            let rank = match kind {
                Dft::Complex => xs.len(),
                Dft::Real => xs.len() + 1,
                Dft::InverseReal => xs.len().saturating_sub(1),
            };
            Some(fresh_dims(ctx, node, 0, rank))
        }
    };
    Ok(vec![shaped(x.dtype, out)])
}

/// OpenVINO `DFT-7` and `IDFT-7`.
fn ov_dft(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    dft_rule(ctx, node, Dft::Complex)
}

/// OpenVINO `RDFT-9`.
fn ov_rdft(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    dft_rule(ctx, node, Dft::Real)
}

/// OpenVINO `IRDFT-9`.
fn ov_irdft(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    dft_rule(ctx, node, Dft::InverseReal)
}

/// The value of a scalar (or one-element) input, a fresh dim when not known.
fn scalar(
    ctx: &mut ShapesContext,
    node: &Node,
    index: usize,
    what: &'static str,
) -> Result<Dim, OpError> {
    let f = ctx.input(node, index, what)?;
    Ok(match f.value.as_deref() {
        Some([v]) => *v,
        _ => ctx.unknown_dim(node, usize::MAX, index),
    })
}

/// OpenVINO `STFT-15`.
fn ov_stft(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 4, 4)?;
    let x = ctx.input(node, 0, "signal")?;
    let fs = scalar(ctx, node, 2, "frame_size")?;
    let step = scalar(ctx, node, 3, "frame_step")?;
    let transpose = ov_bool(node, "transpose_frames", false)?;
    let Some(xs) = &x.shape else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    if !(1..=2).contains(&xs.len()) {
        return Err(rank_of("signal", Expected::either(&[1, 2]), xs.len()));
    }
    let two = ctx.alg.constant(2);
    let len = xs[xs.len() - 1];
    let frames = stft_frames(ctx, len, fs, step);
    let freqs = stft_bins(ctx, fs, true);
    let mut out = xs[..xs.len() - 1].to_vec();
    if transpose {
        out.extend([freqs, frames, two]);
    } else {
        out.extend([frames, freqs, two]);
    }
    Ok(vec![TensorFact::new(x.dtype, out)])
}

/// OpenVINO `ISTFT-16`.
fn ov_istft(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 4, 5)?;
    let x = ctx.input(node, 0, "data")?;
    let fs = scalar(ctx, node, 2, "frame_size")?;
    let step = scalar(ctx, node, 3, "frame_step")?;
    let center = ov_bool(node, "center", false)?;
    let Some(xs) = &x.shape else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    if !(3..=4).contains(&xs.len()) {
        return Err(rank_of("data", Expected::either(&[3, 4]), xs.len()));
    }
    let len = match node.input(4) {
        Some(_) => scalar(ctx, node, 4, "length")?,
        None => {
            let one = ctx.alg.constant(1);
            let frames = xs[xs.len() - 2];
            let m = ctx.alg.sub(frames, one);
            let hops = ctx.alg.mul(m, step);
            if center {
                hops
            } else {
                ctx.alg.add_dims(hops, fs)
            }
        }
    };
    let mut out = xs[..xs.len() - 3].to_vec();
    out.push(len);
    Ok(vec![TensorFact::new(x.dtype, out)])
}

/// What an ONNX `DFT` computes, from its `onesided` and `inverse` attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DftMode {
    /// `onesided = 0`: complex (or real) to complex, all frequencies.
    Full,
    /// `onesided = 1`, `inverse = 0`: real to the one-sided complex spectrum (RFFT).
    Rfft,
    /// `onesided = 1`, `inverse = 1`: the one-sided spectrum back to a real signal
    /// (IRFFT).
    Irfft,
}

/// The output shape of an ONNX DFT of `x` (`[..., 1 or 2]`) along the normalised
/// `axis` (a signal axis, not the last) with the signal length `length` (`None`:
/// the default), through [`dft_shape`]: the full transform is OpenVINO's complex
/// one (a real input read as complex), RFFT its real one, IRFFT its inverse real
/// one with the last axis of 1 put back.
pub fn onnx_dft_shape(
    ctx: &mut ShapesContext,
    x: &[Dim],
    axis: usize,
    length: Option<Dim>,
    mode: DftMode,
) -> Result<Vec<Dim>, OpError> {
    let r = x.len();
    let complex = match ctx.alg.as_i64(x[r - 1]) {
        Some(1) => Some(false),
        Some(2) => Some(true),
        Some(_) => {
            return Err(OpError::BadShapeValue(Box::new(
                ShapeValueProblem::PartsAxis {
                    of: None,
                    found: ctx.alg.expr(x[r - 1]),
                },
            )))
        }
        None => None,
    };
    match (mode, complex) {
        (DftMode::Rfft, Some(true)) => {
            return Err(OpError::BadShapeValue(Box::new(ShapeValueProblem::Fixed(
                "a one-sided forward DFT takes a real input (last axis 1)",
            ))))
        }
        (DftMode::Irfft, Some(false)) => {
            return Err(OpError::BadShapeValue(Box::new(ShapeValueProblem::Fixed(
                "a one-sided inverse DFT takes a complex input (last axis 2)",
            ))))
        }
        _ => {}
    }
    let sizes = length.map(|n| vec![n]);
    let axes = [axis as i64];
    let mut as_complex = x.to_vec();
    as_complex[r - 1] = ctx.alg.constant(2);
    match mode {
        DftMode::Full => dft_shape(ctx, Dft::Complex, &as_complex, &axes, sizes.as_deref()),
        DftMode::Rfft => dft_shape(ctx, Dft::Real, &x[..r - 1], &axes, sizes.as_deref()),
        DftMode::Irfft => {
            let mut out = dft_shape(ctx, Dft::InverseReal, &as_complex, &axes, sizes.as_deref())?;
            out.push(ctx.alg.constant(1));
            Ok(out)
        }
    }
}

/// The frames of a short-time transform of `len` samples, `frame` long, one
/// every `step`: `floor((len - frame) / step) + 1` (both formats).
pub fn stft_frames(ctx: &mut ShapesContext, len: Dim, frame: Dim, step: Dim) -> Dim {
    let one = ctx.alg.constant(1);
    let span = ctx.alg.sub(len, frame);
    let q = ctx.alg.floordiv(span, step);
    ctx.alg.add_dims(q, one)
}

/// The frequencies of a transformed frame of `frame` samples: `floor(frame / 2) +
/// 1` one-sided (OpenVINO's, ONNX's default), `frame` otherwise.
pub fn stft_bins(ctx: &mut ShapesContext, frame: Dim, onesided: bool) -> Dim {
    if !onesided {
        return frame;
    }
    let (one, two) = (ctx.alg.constant(1), ctx.alg.constant(2));
    let half = ctx.alg.floordiv(frame, two);
    ctx.alg.add_dims(half, one)
}

/// ONNX `DFT` (17, 20).
fn onnx_dft(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, if node.version >= 20 { 3 } else { 2 })?;
    let x = ctx.input(node, 0, "input")?;
    let inverse = attr_int(node, "inverse", 0)? != 0;
    let onesided = attr_int(node, "onesided", 0)? != 0;
    let mode = match (onesided, inverse) {
        (false, _) => DftMode::Full,
        (true, false) => DftMode::Rfft,
        (true, true) => DftMode::Irfft,
    };
    let length = match node.input(1) {
        Some(_) => crate::ops::signal::generators::scalar_input(ctx, node, 1, "dft_length")?
            .map(|n| crate::ops::signal::generators::non_negative(ctx, "dft_length", n))
            .transpose()?,
        None => None,
    };
    // the axis: an attribute (17) or a scalar input (20)
    let axis = if node.version >= 20 {
        match node.input(2) {
            None => Some(-2),
            Some(_) => crate::ops::signal::generators::scalar_input(ctx, node, 2, "axis")?
                .and_then(|a| ctx.alg.as_i64(a)),
        }
    } else {
        Some(attr_int(node, "axis", 1)?)
    };
    let Some(xs) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    if xs.len() < 2 {
        return Err(rank_of("input", Expected::AtLeast(2), xs.len()));
    }
    let r = xs.len() as i64;
    let axis = match axis {
        Some(a) if (-r..=-2).contains(&a) => Some((a + r) as usize),
        Some(a) if (0..=r - 2).contains(&a) => Some(a as usize),
        Some(a) => {
            return Err(OpError::BadShapeValue(Box::new(
                ShapeValueProblem::ComplexAxis { axis: a, rank: r },
            )))
        }
        None => None,
    };
    // a dft_length input of unknown contents: a data-dependent length
    let length = match (node.input(1), length) {
        (Some(_), None) => Some(ctx.unknown_dim(node, 0, axis.unwrap_or(usize::MAX))),
        (_, l) => l,
    };
    let out = match axis {
        Some(a) => onnx_dft_shape(ctx, &xs, a, length, mode)?,
        None => {
            // the axis is not known: every signal axis may change
            let mut out: Vec<Dim> = (0..xs.len() - 1)
                .map(|i| ctx.unknown_dim(node, 0, i))
                .collect();
            let last = if mode == DftMode::Irfft { 1 } else { 2 };
            out.push(ctx.alg.constant(last));
            out
        }
    };
    Ok(vec![TensorFact::new(x.dtype, out)])
}

/// ONNX `STFT` (17).
fn onnx_stft(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 4)?;
    let x = ctx.input(node, 0, "signal")?;
    let step = crate::ops::signal::generators::scalar_input(ctx, node, 1, "frame_step")?;
    let onesided = attr_int(node, "onesided", 1)? != 0;
    let window = ctx.optional_input(node, 2)?;
    let given = match node.input(3) {
        Some(_) => Some(crate::ops::signal::generators::scalar_input(
            ctx,
            node,
            3,
            "frame_length",
        )?),
        None => None,
    };
    let win_len = match window.as_ref().and_then(|w| w.shape.clone()) {
        Some(ws) => {
            expect_rank("window", &ws, 1)?;
            Some(ws[0])
        }
        None => None,
    };
    let Some(xs) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    expect_rank("signal", &xs, 3)?;
    if ctx.alg.as_i64(xs[2]).is_some_and(|c| c != 1 && c != 2) {
        return Err(OpError::BadShapeValue(Box::new(
            ShapeValueProblem::PartsAxis {
                of: Some("signal"),
                found: ctx.alg.expr(xs[2]),
            },
        )));
    }
    if onesided && ctx.alg.as_i64(xs[2]) == Some(2) {
        return Err(OpError::BadShapeValue(Box::new(ShapeValueProblem::Fixed(
            "a one-sided STFT takes a real signal (last axis 1)",
        ))));
    }
    let len = xs[1];
    // the frame length: the input, the window's length, the signal's length
    let frame = match (given, win_len) {
        (Some(Some(f)), w) => {
            if let Some(w) = w {
                unify_as(ctx, node, "window length and frame_length", w, f)?;
            }
            f
        }
        (Some(None), Some(w)) => w,
        (Some(None), None) => ctx.unknown_dim(node, 0, 2),
        (None, Some(w)) => w,
        (None, None) => len,
    };
    let frame = crate::ops::signal::generators::non_negative(ctx, "frame_length", frame)?;
    if ctx.alg.le(frame, len) == Truth::False {
        return Err(OpError::BadShapeValue(Box::new(
            ShapeValueProblem::FrameExceedsSignal {
                frame: ctx.alg.expr(frame),
                signal: ctx.alg.expr(len),
            },
        )));
    }
    let frames = match step {
        Some(t) => {
            if ctx.alg.as_i64(t).is_some_and(|v| v <= 0) {
                return Err(OpError::BadShapeValue(Box::new(
                    ShapeValueProblem::NotPositive {
                        what: "frame_step",
                        value: ctx.alg.expr(t),
                    },
                )));
            }
            stft_frames(ctx, len, frame, t)
        }
        None => ctx.unknown_dim(node, 0, 1),
    };
    let bins = stft_bins(ctx, frame, onesided);
    let two = ctx.alg.constant(2);
    Ok(vec![TensorFact::new(
        x.dtype,
        vec![xs[0], frames, bins, two],
    )])
}
