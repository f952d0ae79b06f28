//! Signal processing and media: ONNX `DFT`, `STFT`, `HannWindow`,
//! `HammingWindow`, `BlackmanWindow`, `MelWeightMatrix` and `ImageDecoder`.
//!
//! Spec: the ONNX operator reference (each op's page).
//!
//! * `DFT` ([`dft_shape`]): the input is `[..., 1]` (real) or `[..., 2]` (complex);
//!   the transform runs along `axis` (17: attribute, default 1; 20: scalar input,
//!   default -2), which may not be the last one. With `n` the `dft_length` input,
//!   or the axis' length (`2 * (d - 1)` for the inverse one-sided transform): the
//!   full transform gives `n` there and a last axis of 2; the forward one-sided
//!   (real to complex) `floor(n / 2) + 1` and 2; the inverse one-sided (complex to
//!   real) `n` and 1.
//! * `STFT`: `signal [B, L, 1 or 2]`, scalar `frame_step` `t`, the frame length `f`
//!   (the `frame_length` input, else the window's length, else `L`) give `[B,
//!   floor((L - f) / t) + 1, bins, 2]` with `bins = floor(f / 2) + 1` when
//!   `onesided` (the default), `f` otherwise; a window must be `[f]`.
//! * The windows: `[size]` (the scalar `size` input's value, a data-dependent dim
//!   when not known) of `output_datatype` (float by default).
//! * `MelWeightMatrix`: `[floor(dft_length / 2) + 1, num_mel_bins]` from the two
//!   scalar inputs, of `output_datatype`.
//! * `ImageDecoder`: a 1-D uint8 stream gives a uint8 image `[H, W, C]`, `H` and `W`
//!   data-dependent, `C` 3 for `RGB` (the default) and `BGR`, 1 for `Grayscale`.
//!
//! Sizes that come from inputs may be symbolic (their contents, as shape tensors
//! carry them).
//!
//! # Version history
//! * ONNX **DFT**: 17 (`axis` attribute); 20 (`axis` input, default -2).
//! * ONNX **STFT**, **HannWindow**, **HammingWindow**, **BlackmanWindow**,
//!   **MelWeightMatrix**: 17.
//! * ONNX **ImageDecoder**: 20.

use super::nn_util::{attr_dtype, attr_str_or, expect_rank, rank_error, unify};
use super::{attr_int, check_inputs, RuleEntry};
use crate::algebra::{Dim, Truth};
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};

/// The rules of this family.
pub const RULES: &[RuleEntry] = &[
    ("", "DFT", dft),
    ("", "STFT", stft),
    ("", "HannWindow", window),
    ("", "HammingWindow", window),
    ("", "BlackmanWindow", window),
    ("", "MelWeightMatrix", mel_weight_matrix),
    ("", "ImageDecoder", image_decoder),
];

/// Which transform an ONNX `DFT` computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DftKind {
    /// `onesided = 0`: complex (or real) to complex, all frequencies.
    Full,
    /// `onesided = 1`, `inverse = 0`: real to the one-sided complex spectrum.
    OneSided,
    /// `onesided = 1`, `inverse = 1`: the one-sided spectrum back to a real signal.
    InverseOneSided,
}

/// The output shape of an ONNX DFT of `x` (`[..., 1 or 2]`) along the normalised
/// `axis` with the signal length `length` (`None`: the default).
pub fn dft_shape(
    ctx: &mut ShapesContext,
    x: &[Dim],
    axis: usize,
    length: Option<Dim>,
    kind: DftKind,
) -> Result<Vec<Dim>, OpError> {
    let last = x[x.len() - 1];
    let (one, two) = (ctx.alg.constant(1), ctx.alg.constant(2));
    let complex = match ctx.alg.as_i64(last) {
        Some(1) => Some(false),
        Some(2) => Some(true),
        Some(_) => {
            return Err(OpError::BadShapeValue {
                what: format!(
                    "the last axis holds the real and imaginary parts: 1 or 2, found {}",
                    ctx.alg.render(last)
                ),
            })
        }
        None => None,
    };
    match (kind, complex) {
        (DftKind::OneSided, Some(true)) => {
            return Err(OpError::BadShapeValue {
                what: "a one-sided forward DFT takes a real input (last axis 1)".to_string(),
            })
        }
        (DftKind::InverseOneSided, Some(false)) => {
            return Err(OpError::BadShapeValue {
                what: "a one-sided inverse DFT takes a complex input (last axis 2)".to_string(),
            })
        }
        _ => {}
    }
    let d = x[axis];
    let n = match (length, kind) {
        (Some(n), _) => n,
        (None, DftKind::InverseOneSided) => {
            let m = ctx.alg.sub(d, one);
            ctx.alg.mul(two, m)
        }
        (None, _) => d,
    };
    let mut out = x.to_vec();
    let r = out.len();
    match kind {
        DftKind::Full => {
            out[axis] = n;
            out[r - 1] = two;
        }
        DftKind::OneSided => {
            let half = ctx.alg.floordiv(n, two);
            out[axis] = ctx.alg.add_dims(half, one);
            out[r - 1] = two;
        }
        DftKind::InverseOneSided => {
            out[axis] = n;
            out[r - 1] = one;
        }
    }
    Ok(out)
}

/// The value of a scalar (or one-element) input `index` named `what`: its
/// contents, `None` when not known; an error for a tensor of more elements.
fn scalar_input(
    ctx: &ShapesContext,
    node: &Node,
    index: usize,
    what: &'static str,
) -> Result<Option<Dim>, OpError> {
    let f = ctx.input(node, index, what)?;
    if let Some(s) = &f.shape {
        let one = s.len() == 1 && ctx.alg.as_i64(s[0]).map_or(true, |d| d == 1);
        if !s.is_empty() && !one {
            return Err(rank_error(what, "0 (a scalar)", s.len()));
        }
    }
    Ok(match f.value.as_deref() {
        Some([v]) => Some(*v),
        _ => None,
    })
}

/// A size that must not be negative (a constant one is checked).
fn non_negative(ctx: &ShapesContext, what: &str, d: Dim) -> Result<Dim, OpError> {
    let zero_or_more = ctx.alg.as_i64(d).map_or(true, |v| v >= 0);
    if !zero_or_more {
        return Err(OpError::BadShapeValue {
            what: format!("{what} is negative: {}", ctx.alg.render(d)),
        });
    }
    Ok(d)
}

/// ONNX `DFT` (17, 20).
fn dft(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, if node.version >= 20 { 3 } else { 2 })?;
    let x = ctx.input(node, 0, "input")?;
    let inverse = attr_int(node, "inverse", 0)? != 0;
    let onesided = attr_int(node, "onesided", 0)? != 0;
    let kind = match (onesided, inverse) {
        (false, _) => DftKind::Full,
        (true, false) => DftKind::OneSided,
        (true, true) => DftKind::InverseOneSided,
    };
    let length = match node.input(1) {
        Some(_) => scalar_input(ctx, node, 1, "dft_length")?
            .map(|n| non_negative(ctx, "dft_length", n))
            .transpose()?,
        None => None,
    };
    // the axis: an attribute (17) or a scalar input (20)
    let axis = if node.version >= 20 {
        match node.input(2) {
            None => Some(-2),
            Some(_) => scalar_input(ctx, node, 2, "axis")?.and_then(|a| ctx.alg.as_i64(a)),
        }
    } else {
        Some(attr_int(node, "axis", 1)?)
    };
    let Some(xs) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    if xs.len() < 2 {
        return Err(rank_error("input", "at least 2", xs.len()));
    }
    let r = xs.len() as i64;
    let axis = match axis {
        Some(a) if (-r..=-2).contains(&a) => Some((a + r) as usize),
        Some(a) if (0..=r - 2).contains(&a) => Some(a as usize),
        Some(a) => {
            return Err(OpError::BadShapeValue {
                what: format!(
                "axis {a} is outside [-{r}, -2] and [0, {}]: the last axis holds the complex parts",
                r - 2
            ),
            })
        }
        None => None,
    };
    // a dft_length input of unknown contents: a data-dependent length
    let length = match (node.input(1), length) {
        (Some(_), None) => Some(ctx.unknown_dim(node, 0, axis.unwrap_or(usize::MAX))),
        (_, l) => l,
    };
    let out = match axis {
        Some(a) => dft_shape(ctx, &xs, a, length, kind)?,
        None => {
            // the axis is not known: every signal axis may change
            let mut out: Vec<Dim> = (0..xs.len() - 1)
                .map(|i| ctx.unknown_dim(node, 0, i))
                .collect();
            let last = if kind == DftKind::InverseOneSided {
                1
            } else {
                2
            };
            out.push(ctx.alg.constant(last));
            out
        }
    };
    Ok(vec![TensorFact::new(x.dtype, out)])
}

/// ONNX `STFT` (17).
fn stft(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 4)?;
    let x = ctx.input(node, 0, "signal")?;
    let step = scalar_input(ctx, node, 1, "frame_step")?;
    let onesided = attr_int(node, "onesided", 1)? != 0;
    let window = ctx.optional_input(node, 2)?;
    let given = match node.input(3) {
        Some(_) => Some(scalar_input(ctx, node, 3, "frame_length")?),
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
        return Err(OpError::BadShapeValue {
            what: format!(
                "the last axis of signal holds the real and imaginary parts: 1 or 2, found {}",
                ctx.alg.render(xs[2])
            ),
        });
    }
    if onesided && ctx.alg.as_i64(xs[2]) == Some(2) {
        return Err(OpError::BadShapeValue {
            what: "a one-sided STFT takes a real signal (last axis 1)".to_string(),
        });
    }
    let len = xs[1];
    // the frame length: the input, the window's length, the signal's length
    let frame = match (given, win_len) {
        (Some(Some(f)), w) => {
            if let Some(w) = w {
                unify(ctx, node, "window length and frame_length", w, f)?;
            }
            f
        }
        (Some(None), Some(w)) => w,
        (Some(None), None) => ctx.unknown_dim(node, 0, 2),
        (None, Some(w)) => w,
        (None, None) => len,
    };
    let frame = non_negative(ctx, "frame_length", frame)?;
    if ctx.alg.le(frame, len) == Truth::False {
        return Err(OpError::BadShapeValue {
            what: format!(
                "frame_length {} is longer than the signal {}",
                ctx.alg.render(frame),
                ctx.alg.render(len)
            ),
        });
    }
    let (one, two) = (ctx.alg.constant(1), ctx.alg.constant(2));
    let frames = match step {
        Some(t) => {
            if ctx.alg.as_i64(t).is_some_and(|v| v <= 0) {
                return Err(OpError::BadShapeValue {
                    what: format!("frame_step {} is not positive", ctx.alg.render(t)),
                });
            }
            let span = ctx.alg.sub(len, frame);
            let q = ctx.alg.floordiv(span, t);
            ctx.alg.add_dims(q, one)
        }
        None => ctx.unknown_dim(node, 0, 1),
    };
    let bins = if onesided {
        let half = ctx.alg.floordiv(frame, two);
        ctx.alg.add_dims(half, one)
    } else {
        frame
    };
    Ok(vec![TensorFact::new(
        x.dtype,
        vec![xs[0], frames, bins, two],
    )])
}

/// ONNX `HannWindow`, `HammingWindow` and `BlackmanWindow` (17): `[size]`.
fn window(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let dtype = attr_dtype(node, "output_datatype", DType::Float)?;
    let size = match scalar_input(ctx, node, 0, "size")? {
        Some(n) => non_negative(ctx, "size", n)?,
        None => ctx.unknown_dim(node, 0, 0),
    };
    Ok(vec![TensorFact::new(dtype, vec![size])])
}

/// ONNX `MelWeightMatrix` (17): `[floor(dft_length / 2) + 1, num_mel_bins]`.
fn mel_weight_matrix(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 5, 5)?;
    let dtype = attr_dtype(node, "output_datatype", DType::Float)?;
    let bins = match scalar_input(ctx, node, 0, "num_mel_bins")? {
        Some(n) => non_negative(ctx, "num_mel_bins", n)?,
        None => ctx.unknown_dim(node, 0, 1),
    };
    let rows = match scalar_input(ctx, node, 1, "dft_length")? {
        Some(n) => {
            let n = non_negative(ctx, "dft_length", n)?;
            let (one, two) = (ctx.alg.constant(1), ctx.alg.constant(2));
            let half = ctx.alg.floordiv(n, two);
            ctx.alg.add_dims(half, one)
        }
        None => ctx.unknown_dim(node, 0, 0),
    };
    for (i, what) in [
        (2, "sample_rate"),
        (3, "lower_edge_hertz"),
        (4, "upper_edge_hertz"),
    ] {
        scalar_input(ctx, node, i, what)?;
    }
    Ok(vec![TensorFact::new(dtype, vec![rows, bins])])
}

/// ONNX `ImageDecoder` (20): `[H, W, C]` uint8, `H`, `W` data-dependent.
fn image_decoder(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "encoded_stream")?;
    if let Some(s) = &x.shape {
        expect_rank("encoded_stream", s, 1)?;
    }
    let channels = match attr_str_or(node, "pixel_format", "RGB")? {
        "RGB" | "BGR" => 3,
        "Grayscale" => 1,
        other => {
            return Err(OpError::BadAttribute {
                name: "pixel_format",
                value: other.to_string(),
                why: "expected RGB, BGR or Grayscale".to_string(),
            })
        }
    };
    let h = ctx.unknown_dim(node, 0, 0);
    let w = ctx.unknown_dim(node, 0, 1);
    let c = ctx.alg.constant(channels);
    Ok(vec![TensorFact::new(DType::Uint8, vec![h, w, c])])
}
