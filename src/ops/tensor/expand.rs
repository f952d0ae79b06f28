//! Repeating a tensor to a larger shape: ONNX `Expand` and `Tile`, OpenVINO
//! `Broadcast` and `Tile`.
//!
//! Specs: the ONNX operator reference (`Expand`, `Tile`) and the OpenVINO operation
//! specification (`Broadcast-1`, `-3`, `Tile-1`).
//!
//! * ONNX `Expand` and OpenVINO `Broadcast` in `bidirectional` mode broadcast the
//!   input shape and the target shape both ways, numpy style ([`expand_dims`]).
//!   With the target's contents unknown but its length known, an output dim is the
//!   input dim where that is provably not 1, a fresh data-dependent dim otherwise.
//! * OpenVINO `Broadcast` in `numpy` (default) and `pdpd` mode broadcasts the input
//!   to the target shape one way ([`broadcast_to`]): the output is the target, and a
//!   data dim that cannot be 1 must equal its target dim. `explicit` mode maps each
//!   data axis to a target axis through `axes_mapping`.
//! * `Tile` multiplies each dim by its repeat, the repeats aligned on the right
//!   ([`tile_dims`]); ONNX needs one repeat per axis.
//!
//! The contents of a small input are broadcast or tiled along when the output shape
//! is a small constant (not in `explicit` mode).
//!
//! Special values: a negative target dim or repeat is an error. An OpenVINO target
//! of unknown contents but known length gives fresh dims in the one-way modes;
//! repeats of unknown contents but known length `k` give the rank (`max(rank, k)`),
//! the data dims the repeats do not reach, and fresh dims on the last `k` axes
//! (ONNX Tile's rule: its repeats' length is the rank).
//!
//! # Version history
//! * ONNX **Expand**: 8; 13 bf16.
//! * ONNX **Tile**: 1 (scalar inputs `tiles` and `axis`); 6 `repeats` 1-D input of
//!   length rank; 13 bf16.
//! * OpenVINO **Broadcast**: 1 (`numpy`, `explicit`, `pdpd`); 3 adds
//!   `bidirectional`.
//! * OpenVINO **Tile**: 1 (repeats may be shorter or longer than the rank).

use crate::algebra::{Dim, Rat, Truth};
use crate::context::DimRole;
use crate::context::{AttrProblem, AttrValue, ShapeValueProblem};
use crate::context::{Expected, OpError, ShapesContext, TensorFact};
use crate::graph::Node;
use crate::ops::common::attrs::ov_str;
use crate::ops::common::broadcast::broadcast_shapes;
use crate::ops::common::dims::merge_dim_as;
use crate::ops::common::values::{
    broadcast_values, const_ints, dims_value, fact_with_value, ints_input, small_const_shape,
    small_value, take_values, IntsArg,
};
use crate::ops::common::{check_inputs, fresh_dims, norm_axis};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["Expand"], expand),
    ("", ["Tile"], tile),
    ("openvino", ["Broadcast"], ov_broadcast),
    ("openvino", ["Tile"], ov_tile),
];

/// A negative entry of a shape-like operand is an error.
fn check_nonneg(ctx: &ShapesContext, what: &'static str, dims: &[Dim]) -> Result<(), OpError> {
    if dims.iter().any(|d| ctx.alg.bounds(*d).is_negative()) {
        return Err(OpError::BadShapeValue(Box::new(
            ShapeValueProblem::NegativeListEntry {
                what,
                dims: ctx.alg.exprs(dims),
            },
        )));
    }
    Ok(())
}

/// The two-way (numpy) broadcast of `dims` and a target shape given by its
/// contents, or only by its length `len`; `None` when neither is known.
pub fn expand_dims(
    ctx: &mut ShapesContext,
    node: &Node,
    dims: &[Dim],
    target: Option<&[Dim]>,
    len: Option<usize>,
) -> Result<Option<Vec<Dim>>, OpError> {
    if let Some(v) = target {
        if v.iter().any(|d| ctx.alg.bounds(*d).is_negative()) {
            return Err(OpError::BadShapeValue(Box::new(
                ShapeValueProblem::NegativeDim {
                    what: "shape",
                    dims: ctx.alg.exprs(v),
                },
            )));
        }
        return broadcast_shapes(ctx, &node.name, dims, v).map(Some);
    }
    let Some(k) = len else { return Ok(None) };
    // Each output dim is the input dim when that is provably not 1 (the target's
    // entry must then be 1 or equal); otherwise data-dependent.
    let n = dims.len().max(k);
    let one = Rat::one();
    Ok(Some(
        (0..n)
            .map(|i| {
                let src = (i + dims.len()).checked_sub(n).map(|j| dims[j]);
                match src {
                    Some(d) if i + k >= n && !ctx.alg.bounds(d).contains(&one) => d,
                    Some(d) if i + k < n => d,
                    _ => ctx.unknown_dim(node, 0, i),
                }
            })
            .collect(),
    ))
}

/// The one-way (numpy) broadcast of `dims` to `target`: the target, where each data
/// dim that cannot be 1 is merged with its target dim (see [`merge_dim_as`]).
pub fn broadcast_to(
    ctx: &mut ShapesContext,
    node: &Node,
    dims: &[Dim],
    target: &[Dim],
) -> Result<Vec<Dim>, OpError> {
    if dims.len() > target.len() {
        return Err(OpError::Rank {
            of: Box::new("data (numpy broadcast to the target shape)".into()),
            expected: Expected::AtMost(target.len()),
            found: dims.len(),
        });
    }
    let off = target.len() - dims.len();
    let one = ctx.alg.constant(1);
    let mut out = target.to_vec();
    for (i, d) in dims.iter().enumerate() {
        let j = off + i;
        if ctx.alg.equal(*d, one) == Truth::True {
            continue;
        }
        // The data dim is 1 or the target dim: when it cannot be 1, the two are
        // equal (and the target keeps its value otherwise).
        if !ctx.alg.bounds(*d).contains(&Rat::one()) {
            out[j] = merge_dim_as(
                ctx,
                node,
                DimRole::axis(j, ("data", "target shape (numpy broadcast)")),
                *d,
                target[j],
            )?;
        }
    }
    Ok(out)
}

/// `dims` tiled by `reps`, aligned on the right (a missing entry is 1).
pub fn tile_dims(ctx: &mut ShapesContext, dims: &[Dim], reps: &[Dim]) -> Result<Vec<Dim>, OpError> {
    check_nonneg(ctx, "repeats", reps)?;
    let n = dims.len().max(reps.len());
    let one = ctx.alg.constant(1);
    Ok((0..n)
        .map(|i| {
            let d = (i + dims.len()).checked_sub(n).map_or(one, |j| dims[j]);
            let k = (i + reps.len()).checked_sub(n).map_or(one, |j| reps[j]);
            ctx.alg.mul(d, k)
        })
        .collect())
}

/// The contents of `x` (small, known) tiled to the constant shape `out` (of at
/// least `x`'s rank).
pub fn tile_values(ctx: &ShapesContext, x: &TensorFact, out: &[Dim]) -> Option<Vec<Dim>> {
    let (shape, v) = small_value(&ctx.alg, x)?;
    let out_shape = small_const_shape(&ctx.alg, out)?;
    // `x` as a tensor of the output's rank: ones in front.
    let pad = out_shape.len().checked_sub(shape.len())?;
    let shape: Vec<usize> = std::iter::repeat(1).take(pad).chain(shape).collect();
    let per_axis: Vec<Vec<usize>> = out_shape
        .iter()
        .zip(&shape)
        .map(|(&n, &d)| (0..n).map(|i| i % d.max(1)).collect())
        .collect();
    Some(take_values(&v, &shape, &per_axis))
}

/// ONNX `Expand`.
fn expand(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "input")?;
    let s = ctx.input(node, 1, "shape")?;
    let Some(dims) = &x.shape else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let (target, len) = dims_value(&ctx.alg, &s);
    let Some(out) = expand_dims(ctx, node, dims, target.as_deref(), len)? else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let value = broadcast_values(&ctx.alg, &out, &[&x]).map(|mut v| v.remove(0));
    Ok(vec![fact_with_value(x.dtype, out, value)])
}

/// ONNX `Tile` (1: scalar `tiles` and `axis` inputs; 6: `repeats`).
fn tile(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let x = ctx.input(node, 0, "input")?;
    let Some(dims) = &x.shape else {
        check_inputs(node, 2, 3)?;
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let r = dims.len();
    if node.version < 6 {
        check_inputs(node, 3, 3)?;
        let tiles = ctx.input(node, 1, "tiles")?;
        let axis = ints_input(ctx, node, 2)?;
        let IntsArg::Known(axis) = axis else {
            let d = fresh_dims(ctx, node, 0, r);
            return Ok(vec![TensorFact::new(x.dtype, d)]);
        };
        let axis = norm_axis(axis.first().copied().unwrap_or(0), r)?;
        let mut out = dims.clone();
        out[axis] = match tiles.value.as_deref() {
            Some([t]) => ctx.alg.mul(dims[axis], *t),
            _ => ctx.unknown_dim(node, 0, axis),
        };
        return Ok(vec![TensorFact::new(x.dtype, out)]);
    }
    check_inputs(node, 2, 2)?;
    let reps = ctx.input(node, 1, "repeats")?;
    let (value, len) = dims_value(&ctx.alg, &reps);
    if let Some(k) = len {
        if k != r {
            return Err(OpError::Rank {
                of: Box::new("repeats (its length)".into()),
                expected: Expected::Exactly(r).noted("the input rank"),
                found: k,
            });
        }
    }
    let Some(reps) = value else {
        let d = fresh_dims(ctx, node, 0, r);
        return Ok(vec![TensorFact::new(x.dtype, d)]);
    };
    let out = tile_dims(ctx, dims, &reps)?;
    let value = tile_values(ctx, &x, &out);
    Ok(vec![fact_with_value(x.dtype, out, value)])
}

/// OpenVINO `Broadcast` (1: `numpy`, `explicit`, `pdpd`; 3: `bidirectional`).
fn ov_broadcast(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 3)?;
    let x = ctx.input(node, 0, "data")?;
    let t = ctx.input(node, 1, "target_shape")?;
    let mode = ov_str(node, "mode")?
        .unwrap_or("numpy")
        .to_ascii_lowercase();
    let (target, len) = dims_value(&ctx.alg, &t);
    let shape = match mode.as_str() {
        "bidirectional" => {
            let Some(xs) = &x.shape else {
                return Ok(vec![TensorFact::unknown(x.dtype)]);
            };
            let Some(out) = expand_dims(ctx, node, xs, target.as_deref(), len)? else {
                return Ok(vec![TensorFact::unknown(x.dtype)]);
            };
            out
        }
        "numpy" | "pdpd" | "explicit" => {
            let target = match (target, len) {
                (Some(v), _) => v,
                (None, Some(k)) => fresh_dims(ctx, node, 0, k),
                (None, None) => return Ok(vec![TensorFact::unknown(x.dtype)]),
            };
            if mode == "explicit" {
                let m = ctx.input(node, 2, "axes_mapping")?;
                explicit_mapping(ctx, node, &x, &target, &m)?;
                return Ok(vec![TensorFact::new(x.dtype, target)]);
            }
            let Some(xs) = &x.shape else {
                return Ok(vec![TensorFact::new(x.dtype, target)]);
            };
            broadcast_to(ctx, node, xs, &target)?
        }
        other => {
            return Err(OpError::BadAttribute {
                name: "mode",
                value: AttrValue::Word(other.to_string()),
                why: Box::new(AttrProblem::one_of(&[
                    "numpy",
                    "explicit",
                    "bidirectional",
                    "pdpd",
                ])),
            })
        }
    };
    let value = broadcast_values(&ctx.alg, &shape, &[&x]).map(|mut v| v.remove(0));
    Ok(vec![fact_with_value(x.dtype, shape, value)])
}

/// OpenVINO `Broadcast` `explicit` mode: data axis `i` goes to target axis
/// `axes_mapping[i]`, where a data dim other than 1 must equal the target's.
fn explicit_mapping(
    ctx: &mut ShapesContext,
    node: &Node,
    x: &TensorFact,
    target: &[Dim],
    mapping: &TensorFact,
) -> Result<(), OpError> {
    let (Some(xs), Some(map)) = (&x.shape, const_ints(&ctx.alg, mapping)) else {
        return Ok(());
    };
    if map.len() != xs.len() {
        return Err(OpError::BadShapeValue(Box::new(
            ShapeValueProblem::AxesMappingLength {
                mapping: map,
                rank: xs.len(),
            },
        )));
    }
    let one = ctx.alg.constant(1);
    for (d, &a) in xs.iter().zip(&map) {
        let a = usize::try_from(a)
            .ok()
            .filter(|&a| a < target.len())
            .ok_or(OpError::AxisOutOfRange {
                axis: a,
                rank: target.len(),
            })?;
        if ctx.alg.equal(*d, one) != Truth::True {
            merge_dim_as(
                ctx,
                node,
                DimRole::AtAxis {
                    what: "data dim mapped to axis",
                    axis: a,
                },
                *d,
                target[a],
            )?;
        }
    }
    Ok(())
}

/// OpenVINO `Tile` (repeats aligned on the right with the data dims).
fn ov_tile(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "data")?;
    let r = ctx.input(node, 1, "repeats")?;
    let Some(dims) = &x.shape else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let (value, len) = dims_value(&ctx.alg, &r);
    let Some(reps) = value else {
        // Repeats of known length: the rank is known, and so is every data dim
        // the repeats do not reach (their missing entries count as 1).
        let Some(k) = len else {
            return Ok(vec![TensorFact::unknown(x.dtype)]);
        };
        let n = dims.len().max(k);
        let out = (0..n)
            .map(|i| {
                if i < n - k {
                    dims[i + dims.len() - n]
                } else {
                    ctx.unknown_dim(node, 0, i)
                }
            })
            .collect();
        return Ok(vec![TensorFact::new(x.dtype, out)]);
    };
    let out = tile_dims(ctx, dims, &reps)?;
    let value = tile_values(ctx, &x, &out);
    Ok(vec![fact_with_value(x.dtype, out, value)])
}
