//! Image patches: ONNX `Col2Im`; OpenVINO `ExtractImagePatches` and `Col2Im`.
//!
//! Specs: the ONNX operator reference (`Col2Im`) and the OpenVINO operation
//! specification (`ExtractImagePatches-3`, `Col2Im-15`).
//!
//! * `ExtractImagePatches` cuts `data [N, C, H, W]` into `sizes = [sr, sc]` patches
//!   with `strides` and `rates` (dilations): `[N, C * sr * sc, out_r, out_c]`, where
//!   `out = (in - rate * (size - 1) - 1) / stride + 1` (floor) for
//!   `auto_pad = valid` and `ceil(in / stride)` for `same_upper` and `same_lower`
//!   (in any case): the sliding window of [`crate::ops::nn::window::Window`] with the patch
//!   as kernel, the rates as dilations and no pads. Where a patch does not fit,
//!   OpenVINO's shape inference (the spec gives no formula) truncates the division
//!   toward zero and clamps at 0, and an image without rows or columns keeps its
//!   shape; a fit that is not decided is recorded as a requirement of the model
//!   (`patch_count`).
//! * `Col2Im` folds `data [N?, C * kh * kw, L]` back into `[N?, C, H, W]`, with
//!   `output_size = [H, W]` and `kernel_size = [kh, kw]` inputs (their contents may
//!   be symbolic). `L` must be the number of blocks,
//!   `prod((out + pads_begin + pads_end - dilation * (k - 1) - 1) / stride + 1)`;
//!   the two are equated (a provable difference is an error), and the channels
//!   must divide by `kh * kw` ([`col2im_shape`], the sliding window of
//!   [`crate::ops::nn::window::Window`]).
//! * ONNX `Col2Im` is N-D (at least 2 spatial axes): `input [N, C * prod(block_shape),
//!   L]`, the 1-D `image_shape` and `block_shape` inputs, and the window attributes
//!   as Conv reads them (`strides`, `dilations`, `pads`) give `[N, C,
//!   image_shape...]` through the same kernel; an `image_shape` of unknown contents
//!   but known length gives fresh spatial dims, a `block_shape` of unknown contents a
//!   fresh `C`.
//!
//! # Version history
//! * ONNX **Col2Im**: 18.
//! * OpenVINO **ExtractImagePatches**: 3. **Col2Im**: 15.

use crate::algebra::{Dim, Truth};
use crate::context::{AttrProblem, AttrValue, ShapeValueProblem};
use crate::context::{Expected, OpError, ShapesContext, TensorFact};
use crate::graph::Node;
use crate::ops::common::attrs::{ov_str, spatial_list};
use crate::ops::common::dims::{expect_rank, rank_of, shaped, Equate};
use crate::ops::common::{check_inputs, fresh_dims};
use crate::ops::nn::window::{onnx_window, PadMode, Rounding, Window};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["Col2Im"], onnx_col2im),
    ("openvino", ["ExtractImagePatches"], ov_extract_image_patches),
    ("openvino", ["Col2Im"], ov_col2im),
];

/// A required two-entry list attribute with positive entries.
fn pair(node: &Node, name: &'static str) -> Result<[i64; 2], OpError> {
    let v = crate::ops::common::attrs::ov_i64_list(node, name)?
        .ok_or(OpError::MissingAttribute { name })?;
    match v.as_slice() {
        [a, b] if *a > 0 && *b > 0 => Ok([*a, *b]),
        _ => Err(OpError::BadAttribute {
            name,
            value: AttrValue::Ints(v),
            why: Box::new(AttrProblem::Fixed("expected two positive entries")),
        }),
    }
}

/// OpenVINO `ExtractImagePatches-3`.
fn ov_extract_image_patches(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "data")?;
    let sizes = pair(node, "sizes")?;
    let strides = pair(node, "strides")?;
    let rates = pair(node, "rates")?;
    // The spec's modes (OpenVINO reads the names in any case); no pads are given.
    let text = ov_str(node, "auto_pad")?.unwrap_or("valid");
    let mode = match PadMode::parse(text) {
        Some(m @ (PadMode::Valid | PadMode::SameUpper | PadMode::SameLower)) => m,
        _ => {
            return Err(OpError::BadAttribute {
                name: "auto_pad",
                value: AttrValue::Str(text.to_string()),
                why: Box::new(AttrProblem::one_of(&["valid", "same_upper", "same_lower"])),
            })
        }
    };
    let Some(xs) = &x.shape else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    expect_rank("data", xs, 4)?;
    let window = Window {
        kernel: sizes.iter().map(|k| ctx.alg.constant(*k)).collect(),
        strides: strides.to_vec(),
        dilations: rates.to_vec(),
        pads_begin: vec![0; 2],
        pads_end: vec![0; 2],
        mode,
        rounding: Rounding::Floor,
    };
    // OpenVINO's shape inference gives an image without rows or columns its own
    // shape back.
    let zero = ctx.alg.constant(0);
    if xs[2..]
        .iter()
        .any(|d| ctx.alg.equal(*d, zero) == Truth::True)
    {
        return Ok(vec![TensorFact::new(x.dtype, xs.clone())]);
    }
    let k = ctx.alg.constant(sizes[0].saturating_mul(sizes[1]));
    let mut out = vec![xs[0], ctx.alg.mul(xs[1], k)];
    for i in 0..2 {
        out.push(patch_count(ctx, node, &window, i, xs[2 + i]));
    }
    Ok(vec![TensorFact::new(x.dtype, out)])
}

/// The number of patches along spatial axis `i` of length `input` (not 0), as
/// OpenVINO's shape inference counts them: `ceil(in / stride)` for the same modes;
/// for `valid`, `(in - eff) / stride + 1` with C's division, which truncates toward
/// zero, clamped at 0 (`eff = rate * (size - 1) + 1`). A patch that provably fits
/// gives `floor((in - eff) / stride) + 1`, one that provably does not
/// `max(ceil((in - eff) / stride) + 1, 0)`; when it is not decided the model is
/// taken to need `in >= eff` (recorded), under which the first form holds.
fn patch_count(ctx: &mut ShapesContext, node: &Node, window: &Window, i: usize, input: Dim) -> Dim {
    let one = ctx.alg.constant(1);
    if ctx.alg.le(one, input) == Truth::Unknown {
        ctx.alg.record_requirement(one, input, &node.name, "window");
    }
    if window.mode.is_same() {
        return window.output(ctx, i, input);
    }
    let eff = window.effective_kernel(ctx, i);
    match ctx.alg.le(eff, input) {
        Truth::True => window.output(ctx, i, input),
        Truth::Unknown => {
            ctx.alg.record_requirement(eff, input, &node.name, "window");
            window.output(ctx, i, input)
        }
        Truth::False => {
            let n = ctx.alg.sub(input, eff);
            let s = ctx.alg.constant(window.strides[i]);
            let q = ctx.alg.ceildiv(n, s);
            let q = ctx.alg.add_dims(q, one);
            let zero = ctx.alg.constant(0);
            ctx.alg.max(q, zero)
        }
    }
}

/// OpenVINO `Col2Im-15`.
fn ov_col2im(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let x = ctx.input(node, 0, "data")?;
    let size = ctx.input(node, 1, "output_size")?;
    let kernel = ctx.input(node, 2, "kernel_size")?;
    let Some(xs) = &x.shape else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    if !(2..=3).contains(&xs.len()) {
        return Err(rank_of("data", Expected::either(&[2, 3]), xs.len()));
    }
    let batch = &xs[..xs.len() - 2];
    let (cols, l) = (xs[xs.len() - 2], xs[xs.len() - 1]);
    let (Some(size), Some(kernel)) = (size.value, kernel.value) else {
        let mut out = batch.to_vec();
        out.extend(fresh_dims(ctx, node, 0, 3));
        return Ok(vec![shaped(x.dtype, Some(out))]);
    };
    if size.len() != 2 || kernel.len() != 2 {
        return Err(OpError::BadShapeValue(Box::new(ShapeValueProblem::Fixed(
            "output_size and kernel_size must hold two values",
        ))));
    }
    let window = Window {
        kernel: kernel.clone(),
        strides: spatial_list(node, "strides", 2, 1)?,
        dilations: spatial_list(node, "dilations", 2, 1)?,
        pads_begin: spatial_list(node, "pads_begin", 2, 0)?,
        pads_end: spatial_list(node, "pads_end", 2, 0)?,
        mode: PadMode::Explicit,
        rounding: Rounding::Floor,
    };
    let out = col2im_shape(ctx, node, batch, (cols, l), &size, &window, Equate::Record)?;
    Ok(vec![TensorFact::new(x.dtype, out)])
}

/// The output shape of a `Col2Im` of `[batch..., cols, l]` (`batch` empty or one
/// dim) into the spatial `image` sizes with blocks of `window.kernel`: `[batch...,
/// cols / prod(block), image...]`. `l` is equated (as `equate` says) with the
/// number of blocks, the product over the axes of the window's output length on
/// the image (`floor((image + pb + pe - d * (block - 1) - 1) / s) + 1`), after the
/// channels are divided by the block size ([`crate::ops::tensor::depth_space::quotient`]).
#[allow(clippy::too_many_arguments)]
pub fn col2im_shape(
    ctx: &mut ShapesContext,
    node: &Node,
    batch: &[Dim],
    (cols, l): (Dim, Dim),
    image: &[Dim],
    window: &Window,
    equate: Equate,
) -> Result<Vec<Dim>, OpError> {
    if image.len() != window.kernel.len() || image.len() < 2 {
        return Err(OpError::BadShapeValue(Box::new(
            ShapeValueProblem::PatchSizes {
                image: image.len(),
                block: window.kernel.len(),
            },
        )));
    }
    let size = ctx.alg.product(&window.kernel);
    let c = crate::ops::tensor::depth_space::quotient(ctx, cols, size)?;
    let blocks: Vec<Dim> = (0..image.len())
        .map(|i| window.output(ctx, i, image[i]))
        .collect();
    let count = ctx.alg.product(&blocks);
    equate.dims_as(ctx, node, "L and the number of blocks", l, count)?;
    let mut out = batch.to_vec();
    out.push(c);
    out.extend_from_slice(image);
    Ok(out)
}

/// ONNX `Col2Im` (18).
fn onnx_col2im(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let x = ctx.input(node, 0, "input")?;
    let image = crate::ops::nn::spatial::list_input(ctx, node, 1, "image_shape", 2)?;
    let block = ctx.input(node, 2, "block_shape")?;
    if let Some(s) = &block.shape {
        expect_rank("block_shape", s, 1)?;
    }
    let Some(xs) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let Some(image) = image else {
        expect_rank("input", &xs, 3)?;
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let out = match block.value.clone() {
        Some(b) => {
            expect_rank("input", &xs, 3)?;
            let window = onnx_window(node, b, false)?;
            col2im_shape(
                ctx,
                node,
                &xs[..1],
                (xs[1], xs[2]),
                &image,
                &window,
                Equate::Warn,
            )?
        }
        None => {
            // the blocks are not known: the channels are not either
            expect_rank("input", &xs, 3)?;
            let mut out = vec![xs[0], ctx.unknown_dim(node, 0, 1)];
            out.extend(image);
            out
        }
    };
    Ok(vec![TensorFact::new(x.dtype, out)])
}
