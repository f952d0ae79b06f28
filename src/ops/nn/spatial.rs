//! Spatial rearrangements: ONNX `AffineGrid` and `CenterCropPad`. (ONNX `Col2Im`
//! is with OpenVINO's, in [`crate::ops::nn::patches`].)
//!
//! Spec: the ONNX operator reference (each op's page).
//!
//! * `AffineGrid`: `theta [N, 2, 3]` and `size = [N, C, H, W]` give `grid [N, H, W,
//!   2]`; `theta [N, 3, 4]` and `size = [N, C, D, H, W]` give `[N, D, H, W, 3]`.
//!   The sizes are `size`'s contents (fresh dims when not known).
//! * `CenterCropPad`: the input's shape with the `shape` input's entries on `axes`
//!   (all axes by default): a centred crop or a zero pad to exactly that size.
//!
//! # Version history
//! * ONNX **CenterCropPad**: 18. **AffineGrid**: 20.

use crate::algebra::Dim;
use crate::context::DimRole;
use crate::context::{AttrProblem, AttrValue, ShapeValueProblem};
use crate::context::{Expected, OpError, ShapesContext, TensorFact};
use crate::graph::Node;
use crate::ops::common::attrs::{attr_int, attr_ints};
use crate::ops::common::dims::{expect_rank, rank_of, shaped, unify_as};
use crate::ops::common::values::{attr_axes, dims_value};
use crate::ops::common::{check_inputs, fresh_dims};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["AffineGrid"], affine_grid),
    ("", ["CenterCropPad"], center_crop_pad),
];

/// The contents of a 1-D integer input, or its length with fresh dims of
/// `node`'s output 0 from `first_axis` on; `None` when neither is known.
pub(super) fn list_input(
    ctx: &mut ShapesContext,
    node: &Node,
    index: usize,
    what: &'static str,
    first_axis: usize,
) -> Result<Option<Vec<Dim>>, OpError> {
    let f = ctx.input(node, index, what)?;
    if let Some(s) = &f.shape {
        expect_rank(what, s, 1)?;
    }
    let (value, len) = dims_value(&ctx.alg, &f);
    Ok(match (value, len) {
        (Some(v), _) => Some(v),
        (None, Some(n)) => Some(
            (0..n)
                .map(|i| ctx.unknown_dim(node, 0, first_axis + i))
                .collect(),
        ),
        _ => None,
    })
}

/// ONNX `AffineGrid` (20).
fn affine_grid(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let theta = ctx.input(node, 0, "theta")?;
    let align = attr_int(node, "align_corners", 0)?;
    if !(0..=1).contains(&align) {
        return Err(OpError::BadAttribute {
            name: "align_corners",
            value: AttrValue::Int(align),
            why: Box::new(AttrProblem::one_of_ints(&[0, 1])),
        });
    }
    // the spatial rank: 2 or 3, from theta's [N, r, r + 1] or size's length
    let from_theta = match &theta.shape {
        Some(ts) => {
            expect_rank("theta", ts, 3)?;
            match (ctx.alg.as_i64(ts[1]), ctx.alg.as_i64(ts[2])) {
                (Some(2), Some(3)) => Some(2),
                (Some(3), Some(4)) => Some(3),
                (Some(_), Some(_)) => {
                    return Err(OpError::BadShapeValue(Box::new(
                        ShapeValueProblem::ThetaShape(ctx.alg.exprs(ts)),
                    )))
                }
                _ => None,
            }
        }
        None => None,
    };
    let sizes = list_input(ctx, node, 1, "size", 0)?;
    let from_size = match &sizes {
        Some(v) if v.len() == 4 || v.len() == 5 => Some(v.len() - 2),
        Some(v) => {
            return Err(rank_of(
                "the image of size",
                Expected::either(&[2, 3]).noted("size of 4 or 5"),
                v.len().saturating_sub(2),
            ))
        }
        None => None,
    };
    let r = match (from_theta, from_size) {
        (Some(a), Some(b)) if a != b => {
            return Err(OpError::BadShapeValue(Box::new(
                ShapeValueProblem::GridRanks { theta: a, size: b },
            )))
        }
        (Some(a), _) | (None, Some(a)) => a,
        (None, None) => return Ok(vec![shaped(theta.dtype, None)]),
    };
    let mut out = match sizes {
        Some(v) => {
            let mut out = vec![v[0]];
            out.extend_from_slice(&v[2..]);
            out
        }
        None => fresh_dims(ctx, node, 0, r + 1),
    };
    if let Some(ts) = &theta.shape {
        out[0] = unify_as(
            ctx,
            node,
            DimRole::of("batch", ("theta", "size")),
            ts[0],
            out[0],
        )?;
    }
    out.push(ctx.alg.constant(r as i64));
    Ok(vec![TensorFact::new(theta.dtype, out)])
}

/// ONNX `CenterCropPad` (18).
fn center_crop_pad(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "input_data")?;
    let target = ctx.input(node, 1, "shape")?;
    if let Some(s) = &target.shape {
        expect_rank("shape", s, 1)?;
    }
    let Some(xs) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let axes = match attr_ints(node, "axes")? {
        Some(a) => attr_axes(a, xs.len())?,
        None => (0..xs.len()).collect(),
    };
    let (value, len) = dims_value(&ctx.alg, &target);
    if let Some(n) = len {
        if n != axes.len() {
            return Err(OpError::BadShapeValue(Box::new(
                ShapeValueProblem::EntriesFor {
                    what: "shape",
                    found: n,
                    count: axes.len(),
                    of: "axes",
                },
            )));
        }
    }
    let mut out = xs;
    for (k, &a) in axes.iter().enumerate() {
        out[a] = match &value {
            Some(v) => {
                if ctx.alg.as_i64(v[k]).is_some_and(|d| d < 0) {
                    return Err(OpError::BadShapeValue(Box::new(
                        ShapeValueProblem::NegativeEntry {
                            what: "shape",
                            value: ctx.alg.expr(v[k]),
                        },
                    )));
                }
                v[k]
            }
            None => ctx.unknown_dim(node, 0, a),
        };
    }
    Ok(vec![TensorFact::new(x.dtype, out)])
}
