//! Image patches: OpenVINO `ExtractImagePatches` and `Col2Im`.
//!
//! Spec: the OpenVINO operation specification (`ExtractImagePatches-3`,
//! `Col2Im-15`).
//!
//! * `ExtractImagePatches` cuts `data [N, C, H, W]` into `sizes = [sr, sc]` patches
//!   with `strides` and `rates` (dilations): `[N, C * sr * sc, out_r, out_c]`, where
//!   `out = (in - rate * (size - 1) - 1) / stride + 1` (floor) for
//!   `auto_pad = valid` and `ceil(in / stride)` for `same_upper` and `same_lower`.
//! * `Col2Im` folds `data [N?, C * kh * kw, L]` back into `[N?, C, H, W]`, with
//!   `output_size = [H, W]` and `kernel_size = [kh, kw]` inputs (their contents may
//!   be symbolic). `L` must be the number of blocks,
//!   `prod((out + pads_begin + pads_end - dilation * (k - 1) - 1) / stride + 1)`;
//!   the two are equated (a provable difference is an error), and the channels
//!   must divide by `kh * kw`.
//!
//! # Version history
//! * OpenVINO **ExtractImagePatches**: 3. **Col2Im**: 15.

use super::attrs::{ov_str, spatial_list};
use super::nn_util::{expect_rank, merge_dim, rank_error, shaped};
use super::{check_inputs, fresh_dims, RuleEntry};
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::Node;

/// The rules of this family.
pub const RULES: &[RuleEntry] = &[
    ("openvino", "ExtractImagePatches", ov_extract_image_patches),
    ("openvino", "Col2Im", ov_col2im),
];

/// A required two-entry list attribute with positive entries.
fn pair(node: &Node, name: &'static str) -> Result<[i64; 2], OpError> {
    let v = super::attrs::ov_i64_list(node, name)?.ok_or(OpError::MissingAttribute { name })?;
    match v.as_slice() {
        [a, b] if *a > 0 && *b > 0 => Ok([*a, *b]),
        _ => Err(OpError::BadAttribute {
            name,
            value: format!("{v:?}"),
            why: "expected two positive entries".to_string(),
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
    let same = match ov_str(node, "auto_pad")?.unwrap_or("valid") {
        "valid" => false,
        "same_upper" | "same_lower" => true,
        other => {
            return Err(OpError::BadAttribute {
                name: "auto_pad",
                value: format!("{other:?}"),
                why: "expected valid, same_upper or same_lower".to_string(),
            })
        }
    };
    let Some(xs) = &x.shape else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    expect_rank("data", xs, 4)?;
    let k = ctx.alg.constant(sizes[0].saturating_mul(sizes[1]));
    let mut out = vec![xs[0], ctx.alg.mul(xs[1], k)];
    for i in 0..2 {
        let s = ctx.alg.constant(strides[i]);
        let d = if same {
            ctx.alg.ceildiv(xs[2 + i], s)
        } else {
            let span = rates[i].saturating_mul(sizes[i] - 1).saturating_add(1);
            let span = ctx.alg.constant(span);
            let room = ctx.alg.sub(xs[2 + i], span);
            let q = ctx.alg.floordiv(room, s);
            let one = ctx.alg.constant(1);
            ctx.alg.add_dims(q, one)
        };
        out.push(d);
    }
    Ok(vec![TensorFact::new(x.dtype, out)])
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
        return Err(rank_error("data", "2 or 3", xs.len()));
    }
    let batch = &xs[..xs.len() - 2];
    let (cols, l) = (xs[xs.len() - 2], xs[xs.len() - 1]);
    let (Some(size), Some(kernel)) = (size.value, kernel.value) else {
        let mut out = batch.to_vec();
        out.extend(fresh_dims(ctx, node, 0, 3));
        return Ok(vec![shaped(x.dtype, Some(out))]);
    };
    if size.len() != 2 || kernel.len() != 2 {
        return Err(OpError::BadShapeValue {
            what: "output_size and kernel_size must hold two values".to_string(),
        });
    }
    let strides = spatial_list(node, "strides", 2, 1)?;
    let dilations = spatial_list(node, "dilations", 2, 1)?;
    let pb = spatial_list(node, "pads_begin", 2, 0)?;
    let pe = spatial_list(node, "pads_end", 2, 0)?;
    let kk = ctx.alg.mul(kernel[0], kernel[1]);
    let c = super::depth_space::quotient(ctx, cols, kk)?;
    let mut blocks = Vec::with_capacity(2);
    for i in 0..2 {
        let pads = ctx
            .alg
            .constant(pb[i].saturating_add(pe[i]).saturating_sub(1));
        let padded = ctx.alg.add_dims(size[i], pads);
        let one = ctx.alg.constant(1);
        let km = ctx.alg.sub(kernel[i], one);
        let dil = ctx.alg.constant(dilations[i]);
        let span = ctx.alg.mul(dil, km);
        let room = ctx.alg.sub(padded, span);
        let s = ctx.alg.constant(strides[i]);
        let q = ctx.alg.floordiv(room, s);
        blocks.push(ctx.alg.add_dims(q, one));
    }
    let want = ctx.alg.product(&blocks);
    merge_dim(
        ctx,
        node,
        &|| "L and the number of blocks".to_string(),
        l,
        want,
    )?;
    let mut out = batch.to_vec();
    out.extend([c, size[0], size[1]]);
    Ok(vec![TensorFact::new(x.dtype, out)])
}
