//! Signal generators and media: ONNX `HannWindow`, `HammingWindow`,
//! `BlackmanWindow`, `MelWeightMatrix` and `ImageDecoder`. (ONNX `DFT` and `STFT`
//! are with the other transforms, in [`crate::ops::signal::fft`].)
//!
//! Spec: the ONNX operator reference (each op's page).
//!
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
//! * ONNX **HannWindow**, **HammingWindow**, **BlackmanWindow**,
//!   **MelWeightMatrix**: 17.
//! * ONNX **ImageDecoder**: 20.

use crate::algebra::Dim;
use crate::context::{AttrProblem, AttrValue, ShapeValueProblem};
use crate::context::{Expected, OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};
use crate::ops::common::attrs::{attr_dtype, attr_str_or};
use crate::ops::common::check_inputs;
use crate::ops::common::dims::{expect_rank, rank_of};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["HannWindow", "HammingWindow", "BlackmanWindow"], window),
    ("", ["MelWeightMatrix"], mel_weight_matrix),
    ("", ["ImageDecoder"], image_decoder),
];

/// The value of a scalar (or one-element) input `index` named `what`: its
/// contents, `None` when not known; an error for a tensor of more elements.
pub(super) fn scalar_input(
    ctx: &ShapesContext,
    node: &Node,
    index: usize,
    what: &'static str,
) -> Result<Option<Dim>, OpError> {
    let f = ctx.input(node, index, what)?;
    if let Some(s) = &f.shape {
        let one = s.len() == 1 && ctx.alg.as_i64(s[0]).map_or(true, |d| d == 1);
        if !s.is_empty() && !one {
            return Err(rank_of(
                what,
                Expected::Exactly(0).noted("a scalar"),
                s.len(),
            ));
        }
    }
    Ok(crate::ops::common::values::scalar_value(&f))
}

/// A size that must not be negative (a constant one is checked).
pub(super) fn non_negative(
    ctx: &ShapesContext,
    what: &'static str,
    d: Dim,
) -> Result<Dim, OpError> {
    let zero_or_more = ctx.alg.as_i64(d).map_or(true, |v| v >= 0);
    if !zero_or_more {
        return Err(OpError::BadShapeValue(Box::new(
            ShapeValueProblem::Negative {
                what,
                value: ctx.alg.expr(d),
            },
        )));
    }
    Ok(d)
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
                value: AttrValue::Word(other.to_string()),
                why: Box::new(AttrProblem::one_of(&["RGB", "BGR", "Grayscale"])),
            })
        }
    };
    let h = ctx.unknown_dim(node, 0, 0);
    let w = ctx.unknown_dim(node, 0, 1);
    let c = ctx.alg.constant(channels);
    Ok(vec![TensorFact::new(DType::Uint8, vec![h, w, c])])
}
