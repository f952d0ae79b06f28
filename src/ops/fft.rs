//! Fourier transforms: OpenVINO `DFT`, `IDFT`, `RDFT`, `IRDFT`, `STFT` and `ISTFT`.
//!
//! Spec: the OpenVINO operation specification (`DFT-7`, `IDFT-7`, `RDFT-9`,
//! `IRDFT-9`, `STFT-15`, `ISTFT-16`).
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
//! Axes or sizes that are not known give fresh dims where they matter. The type is
//! the input's.
//!
//! # Version history
//! * OpenVINO **DFT**, **IDFT**: 7. **RDFT**, **IRDFT**: 9. **STFT**: 15.
//!   **ISTFT**: 16.

use super::attrs::ov_bool;
use super::nn_util::{rank_error, shaped};
use super::values::const_ints;
use super::{check_inputs, fresh_dims, norm_axis, RuleEntry};
use crate::algebra::Dim;
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::Node;

/// The rules of this family.
pub const RULES: &[RuleEntry] = &[
    ("openvino", "DFT", ov_dft),
    ("openvino", "IDFT", ov_dft),
    ("openvino", "RDFT", ov_rdft),
    ("openvino", "IRDFT", ov_irdft),
    ("openvino", "STFT", ov_stft),
    ("openvino", "ISTFT", ov_istft),
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
        return Err(rank_error(
            "data",
            "at least 2 (a last axis of 2)",
            data.len(),
        ));
    }
    if complex && ctx.alg.as_i64(data[data.len() - 1]).is_some_and(|d| d != 2) {
        return Err(OpError::BadShapeValue {
            what: format!(
                "the last axis of complex data must be 2, found {}",
                ctx.alg.render(data[data.len() - 1])
            ),
        });
    }
    let signal = if complex { data.len() - 1 } else { data.len() };
    let mut out = data[..signal].to_vec();
    let axes: Vec<usize> = axes
        .iter()
        .map(|a| norm_axis(*a, signal))
        .collect::<Result<_, _>>()?;
    if let Some(s) = sizes {
        if s.len() != axes.len() {
            return Err(OpError::BadShapeValue {
                what: format!(
                    "signal_size has {} entries for {} axes",
                    s.len(),
                    axes.len()
                ),
            });
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
        return Err(rank_error("signal", "1 or 2", xs.len()));
    }
    let (one, two) = (ctx.alg.constant(1), ctx.alg.constant(2));
    let len = xs[xs.len() - 1];
    let span = ctx.alg.sub(len, fs);
    let frames = ctx.alg.floordiv(span, step);
    let frames = ctx.alg.add_dims(frames, one);
    let half = ctx.alg.floordiv(fs, two);
    let freqs = ctx.alg.add_dims(half, one);
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
        return Err(rank_error("data", "3 or 4", xs.len()));
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
