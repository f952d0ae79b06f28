//! Moving data between the channels, the batch and the spatial axes: ONNX
//! `DepthToSpace` and `SpaceToDepth`, OpenVINO `DepthToSpace`, `SpaceToDepth`,
//! `ShuffleChannels`, `SpaceToBatch` and `BatchToSpace`.
//!
//! Specs: the ONNX operator reference (`DepthToSpace`, `SpaceToDepth`) and the
//! OpenVINO operation specification (`DepthToSpace-1`, `SpaceToDepth-1`,
//! `ShuffleChannels-1`, `SpaceToBatch-2`, `BatchToSpace-2`).
//!
//! For `[N, C, D1, ..., Dk]` and a block size `b`: `DepthToSpace` gives
//! `[N, C/b^k, D1*b, ..., Dk*b]`, `SpaceToDepth` gives `[N, C*b^k, D1/b, ...,
//! Dk/b]` ([`depth_to_space`], [`space_to_depth`]). ONNX takes 4-D inputs
//! (`k = 2`), OpenVINO any rank from 3. `ShuffleChannels` keeps the shape; its
//! `group` must divide the `axis` dim.
//!
//! `SpaceToBatch(data, block_shape, pads_begin, pads_end)` gives `[N *
//! prod(block), (D_i + pb_i + pe_i) / block_i ...]` and `BatchToSpace(data,
//! block_shape, crops_begin, crops_end)` `[N / prod(block), D_i * block_i - cb_i -
//! ce_i ...]` over every axis after the batch ([`space_batch_shape`]; the four
//! inputs are 1-D of the data's rank, their contents symbolic or constant).
//!
//! Special values: a quotient that provably is not an integer is an error; an
//! undecided one stays an exact quotient (`C/4`). The block size is at least 1
//! (ONNX `blocksize` is required, OpenVINO `block_size` defaults to 1). ONNX
//! DepthToSpace's `mode` is `DCR` or `CRD` (OpenVINO's `blocks_first` or
//! `depth_first`): the order of the moved data, not the shape.
//!
//! # Version history
//! * ONNX **DepthToSpace**: 1; 11 `mode`; 13 types.
//! * ONNX **SpaceToDepth**: 1; 13 types.
//! * OpenVINO **DepthToSpace**, **SpaceToDepth**, **ShuffleChannels**: 1.
//!   **SpaceToBatch**, **BatchToSpace**: 1 (in opset 2).

use crate::algebra::{Dim, Truth};
use crate::context::{AttrProblem, AttrValue, ShapeValueProblem};
use crate::context::{Expected, OpError, ShapesContext, TensorFact};
use crate::graph::Node;
use crate::ops::common::attrs::{attr_int_required, attr_str};
use crate::ops::common::attrs::{ov_i64, require_positive};
use crate::ops::common::dims::expect_rank;
use crate::ops::common::{check_inputs, norm_axis};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["DepthToSpace", "SpaceToDepth"], onnx_depth_space),
    ("openvino", ["DepthToSpace", "SpaceToDepth"], ov_depth_space),
    ("openvino", ["ShuffleChannels"], ov_shuffle_channels),
    ("openvino", ["SpaceToBatch", "BatchToSpace"], ov_space_batch),
];

/// `p / d` when it is provably an integer, an error when it provably is not,
/// and the exact quotient expression otherwise.
pub fn quotient(ctx: &mut ShapesContext, p: Dim, d: Dim) -> Result<Dim, OpError> {
    match ctx.alg.divides(d, p) {
        Truth::True => Ok(ctx.alg.div(p, d)?),
        Truth::False => {
            Err(ctx
                .alg
                .div(p, d)
                .map_err(OpError::from)
                .err()
                .unwrap_or(OpError::BadShapeValue(Box::new(
                    ShapeValueProblem::NotMultiple {
                        dim: ctx.alg.expr(p),
                        of: ctx.alg.expr(d),
                    },
                ))))
        }
        Truth::Unknown => Ok(ctx.alg.div_rational(p, d)),
    }
}

/// `(b, b^k)` as dims for the `k` spatial axes of `dims` (rank at least 2).
fn blocks(ctx: &mut ShapesContext, dims: &[Dim], b: i64) -> (Dim, Dim) {
    let k = u32::try_from(dims.len() - 2).unwrap_or(u32::MAX);
    let bd = ctx.alg.constant(b);
    let bk = ctx.alg.constant(b.checked_pow(k).unwrap_or(i64::MAX));
    (bd, bk)
}

/// `[N, C, D1, ..., Dk]` to `[N, C/b^k, D1*b, ..., Dk*b]`.
pub fn depth_to_space(ctx: &mut ShapesContext, dims: &[Dim], b: i64) -> Result<Vec<Dim>, OpError> {
    let (bd, bk) = blocks(ctx, dims, b);
    let mut out = vec![dims[0], quotient(ctx, dims[1], bk)?];
    for d in &dims[2..] {
        out.push(ctx.alg.mul(*d, bd));
    }
    Ok(out)
}

/// `[N, C, D1, ..., Dk]` to `[N, C*b^k, D1/b, ..., Dk/b]`.
pub fn space_to_depth(ctx: &mut ShapesContext, dims: &[Dim], b: i64) -> Result<Vec<Dim>, OpError> {
    let (bd, bk) = blocks(ctx, dims, b);
    let mut out = vec![dims[0], ctx.alg.mul(dims[1], bk)];
    for d in &dims[2..] {
        out.push(quotient(ctx, *d, bd)?);
    }
    Ok(out)
}

/// The ONNX `blocksize` attribute: required, positive.
fn blocksize(node: &Node) -> Result<i64, OpError> {
    require_positive("blocksize", attr_int_required(node, "blocksize")?)
}

/// ONNX `DepthToSpace` (11: `mode`) and `SpaceToDepth`: 4-D inputs.
fn onnx_depth_space(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "input")?;
    let b = blocksize(node)?;
    let d2s = node.op_type == "DepthToSpace";
    let mode = if d2s { attr_str(node, "mode")? } else { None };
    if let Some(m) = mode.filter(|m| *m != "DCR" && *m != "CRD") {
        return Err(OpError::BadAttribute {
            name: "mode",
            value: AttrValue::Str(m.to_string()),
            why: Box::new(AttrProblem::one_of(&["DCR", "CRD"])),
        });
    }
    let Some(xs) = &x.shape else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    expect_rank("input", xs, 4)?;
    let out = if d2s {
        depth_to_space(ctx, xs, b)?
    } else {
        space_to_depth(ctx, xs, b)?
    };
    Ok(vec![TensorFact::new(x.dtype, out)])
}

/// OpenVINO `DepthToSpace` and `SpaceToDepth` (`block_size`, rank 3 or more).
fn ov_depth_space(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "data")?;
    let Some(xs) = &x.shape else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    if xs.len() < 3 {
        return Err(OpError::Rank {
            of: Box::new("data".into()),
            expected: Expected::AtLeast(3),
            found: xs.len(),
        });
    }
    let b = ov_i64(node, "block_size")?.unwrap_or(1);
    if b < 1 {
        return Err(OpError::BadAttribute {
            name: "block_size",
            value: AttrValue::Int(b),
            why: Box::new(AttrProblem::Below(1)),
        });
    }
    let out = if node.op_type == "DepthToSpace" {
        depth_to_space(ctx, xs, b)?
    } else {
        space_to_depth(ctx, xs, b)?
    };
    Ok(vec![TensorFact::new(x.dtype, out)])
}

/// OpenVINO `ShuffleChannels`: the shape stays; `group` must divide the `axis` dim.
fn ov_shuffle_channels(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "data")?;
    if let Some(shape) = &x.shape {
        let axis = norm_axis(ov_i64(node, "axis")?.unwrap_or(1), shape.len())?;
        let group = ov_i64(node, "group")?.unwrap_or(1);
        if group < 1 {
            return Err(OpError::BadAttribute {
                name: "group",
                value: AttrValue::Int(group),
                why: Box::new(AttrProblem::Below(1)),
            });
        }
        let g = ctx.alg.constant(group);
        if ctx.alg.divides(g, shape[axis]) == Truth::False {
            return Err(OpError::BadShapeValue(Box::new(
                ShapeValueProblem::GroupNotDividing {
                    group,
                    axis,
                    dim: ctx.alg.expr(shape[axis]),
                },
            )));
        }
    }
    Ok(vec![TensorFact {
        fill: None,
        dtype: x.dtype,
        shape: x.shape,
        value: None,
    }])
}

/// The output of `SpaceToBatch` (`to_batch`) or `BatchToSpace` of `data` with
/// `block` and the pads (or crops) `begin`, `end`, all of the data's rank.
pub fn space_batch_shape(
    ctx: &mut ShapesContext,
    data: &[Dim],
    block: &[Dim],
    begin: &[Dim],
    end: &[Dim],
    to_batch: bool,
) -> Result<Vec<Dim>, OpError> {
    let r = data.len();
    if block.len() != r || begin.len() != r || end.len() != r {
        return Err(OpError::BadShapeValue(Box::new(
            ShapeValueProblem::BlockLengths {
                rank: r,
                block: block.len(),
                begins: begin.len(),
                ends: end.len(),
            },
        )));
    }
    let prod = ctx.alg.product(&block[1..]);
    let mut out = Vec::with_capacity(r);
    out.push(if to_batch {
        ctx.alg.mul(data[0], prod)
    } else {
        quotient(ctx, data[0], prod)?
    });
    for i in 1..r {
        let margin = ctx.alg.add_dims(begin[i], end[i]);
        out.push(if to_batch {
            let padded = ctx.alg.add_dims(data[i], margin);
            quotient(ctx, padded, block[i])?
        } else {
            let grown = ctx.alg.mul(data[i], block[i]);
            ctx.alg.sub(grown, margin)
        });
    }
    Ok(out)
}

/// OpenVINO `SpaceToBatch` and `BatchToSpace`.
fn ov_space_batch(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 4, 4)?;
    let x = ctx.input(node, 0, "data")?;
    let mut lists = Vec::with_capacity(3);
    for (i, what) in [(1, "block_shape"), (2, "begins"), (3, "ends")] {
        lists.push(ctx.input(node, i, what)?.value);
    }
    let Some(xs) = &x.shape else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let out = match (&lists[0], &lists[1], &lists[2]) {
        (Some(b), Some(p), Some(e)) => {
            let to_batch = node.op_type == "SpaceToBatch";
            space_batch_shape(ctx, xs, b, p, e, to_batch)?
        }
        _ => crate::ops::common::fresh_dims(ctx, node, 0, xs.len()),
    };
    Ok(vec![TensorFact::new(x.dtype, out)])
}
