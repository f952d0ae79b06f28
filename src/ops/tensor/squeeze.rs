//! Ops that change the rank, not the data: ONNX `Squeeze`, `Unsqueeze` and
//! `Flatten`, OpenVINO `Squeeze` and `Unsqueeze`.
//!
//! Specs: the ONNX operator reference (`Squeeze`, `Unsqueeze`, `Flatten`) and the
//! OpenVINO operation specification (`Squeeze-1`, `-15`, `Unsqueeze-1`).
//!
//! The contents (row-major) do not change, so they pass through.
//!
//! * `Unsqueeze` inserts dims of 1 at `axes`, counted against the output rank
//!   ([`unsqueeze_dims`]).
//! * `Squeeze` removes dims of 1 ([`squeeze_dims`]). A dim named in `axes` must be
//!   1: provably not 1 is an error (OpenVINO-15 `allow_axis_skip` keeps it instead),
//!   unknown is made 1 and recorded as a relation the model needs (`d == 1`). Without
//!   `axes`, every dim that is provably 1 goes, and the rank is known only when each
//!   dim is provably 1 or provably not 1 (ONNX warns when it is not).
//! * `Flatten` gives `[prod(d[:axis]), prod(d[axis:])]`.
//!
//! Special values: axes may be negative (counted from the end; ONNX from opset 11);
//! a repeated axis is an error. ONNX axes of unknown value but known length `k`:
//! Unsqueeze gives rank `r + k` with fresh dims; Squeeze removes the `k` dims that may
//! be 1 when exactly `k` may be, fresh dims otherwise. OpenVINO: an empty `axes`
//! input squeezes nothing; axes of unknown value give fresh dims (Unsqueeze) or an
//! unknown rank (Squeeze).
//!
//! # Version history
//! * ONNX **Unsqueeze**: 1 `axes` attribute; 11 negative axes (over the output
//!   rank); 13 `axes` is input 1; 21, 23-25 types.
//! * ONNX **Squeeze**: 1 `axes` attribute (optional: absent squeezes every 1); 11
//!   negative axes; 13 `axes` is optional input 1; 21, 23-25 types.
//! * ONNX **Flatten**: 1 (`axis` in `[0, rank]`); 9 types; 11 negative `axis`
//!   (`[-rank, rank]`); 13, 21, 23-25 types.
//! * OpenVINO **Squeeze**: 1 (optional `axes` input); 15 `allow_axis_skip`.
//! * OpenVINO **Unsqueeze**: 1 (`axes` input).

use crate::algebra::{Algebra, Dim, DimExpr, Truth};
use crate::context::DimRole;
use crate::context::{OpError, Severity, ShapesContext, TensorFact};
use crate::graph::Node;
use crate::ops::common::attrs::ov_bool;
use crate::ops::common::attrs::{attr_int, attr_ints};
use crate::ops::common::dims::require_equal;
use crate::ops::common::values::{
    attr_axes, const_ints, fact_with_value, ints_input, norm_axes, IntsArg,
};
use crate::ops::common::{check_inputs, fresh_dims, norm_axis};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["Unsqueeze"], unsqueeze),
    ("", ["Squeeze"], squeeze),
    ("", ["Flatten"], flatten),
    ("openvino", ["Squeeze"], ov_squeeze),
    ("openvino", ["Unsqueeze"], ov_unsqueeze),
];

/// `dims` with a 1 inserted at each of `axes` (normalised against the output rank
/// `dims.len() + axes.len()`, no repeats).
pub fn unsqueeze_dims(alg: &mut Algebra, dims: &[Dim], axes: &[usize]) -> Vec<Dim> {
    let one = alg.constant(1);
    let mut inserted = vec![false; dims.len() + axes.len()];
    for &a in axes {
        inserted[a] = true;
    }
    let mut rest = dims.iter();
    inserted
        .iter()
        .map(|&new| {
            if new {
                one
            } else {
                *rest.next().expect("rank arithmetic")
            }
        })
        .collect()
}

/// What [`squeeze_dims`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Squeezed {
    /// The output dims.
    Dims(Vec<Dim>),
    /// Whether this axis is 1 is unknown, so the output rank is unknown.
    Undecided(usize),
}

/// Require the squeezed axis `axis` of size `d` to be 1 ([`require_equal`]).
fn assume_one(ctx: &mut ShapesContext, node: &Node, axis: usize, d: Dim) -> Result<(), OpError> {
    let one = ctx.alg.constant(1);
    require_equal(ctx, &node.name, &|| DimRole::Squeezed { axis }, d, one)?;
    Ok(())
}

/// `dims` without the squeezed axes. With `axes` (normalised), each must be 1:
/// provably not 1 is an error, or is kept when `skip` (OpenVINO `allow_axis_skip`);
/// unknown is made 1 (see the module docs), or undecided when `skip`. Without
/// `axes`, the dims that are provably 1 go.
pub fn squeeze_dims(
    ctx: &mut ShapesContext,
    node: &Node,
    dims: &[Dim],
    axes: Option<&[usize]>,
    skip: bool,
) -> Result<Squeezed, OpError> {
    let one = ctx.alg.constant(1);
    let mut remove = vec![false; dims.len()];
    match axes {
        Some(axes) => {
            for &a in axes {
                let d = dims[a];
                match ctx.alg.equal(d, one) {
                    Truth::True => remove[a] = true,
                    Truth::False if skip => {}
                    Truth::False => {
                        return Err(OpError::DimMismatch {
                            dims: Box::new(DimRole::Squeezed { axis: a }),
                            left: ctx.alg.expr(d),
                            right: DimExpr::constant(1),
                        })
                    }
                    Truth::Unknown if skip => return Ok(Squeezed::Undecided(a)),
                    Truth::Unknown => {
                        assume_one(ctx, node, a, d)?;
                        remove[a] = true;
                    }
                }
            }
        }
        None => {
            for (a, d) in dims.iter().enumerate() {
                match ctx.alg.equal(*d, one) {
                    Truth::True => remove[a] = true,
                    Truth::False => {}
                    Truth::Unknown => return Ok(Squeezed::Undecided(a)),
                }
            }
        }
    }
    Ok(Squeezed::Dims(
        dims.iter()
            .zip(&remove)
            .filter(|(_, r)| !**r)
            .map(|(d, _)| *d)
            .collect(),
    ))
}

/// The axes of ONNX Unsqueeze/Squeeze: the attribute before opset 13, input 1 from
/// 13.
fn axes_arg(ctx: &ShapesContext, node: &Node) -> Result<IntsArg, OpError> {
    if node.version >= 13 {
        ints_input(ctx, node, 1)
    } else {
        Ok(match attr_ints(node, "axes")? {
            Some(v) => IntsArg::Known(v.to_vec()),
            None => IntsArg::Absent,
        })
    }
}

/// ONNX axes normalised against `rank`: negative ones only from opset 11, from
/// the attribute before opset 13.
fn onnx_axes(node: &Node, axes: &[i64], rank: usize) -> Result<Vec<usize>, OpError> {
    if let Some(&a) = axes.iter().find(|a| **a < 0 && node.version < 11) {
        return Err(OpError::AxisOutOfRange { axis: a, rank });
    }
    if node.version < 13 {
        attr_axes(axes, rank)
    } else {
        norm_axes(axes, rank)
    }
}

/// ONNX `Unsqueeze` (13: `axes` is input 1).
fn unsqueeze(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, if node.version >= 13 { 2 } else { 1 })?;
    let x = ctx.input(node, 0, "data")?;
    let axes = match axes_arg(ctx, node)? {
        IntsArg::Absent if node.version >= 13 => {
            return Err(OpError::MissingInput {
                index: 1,
                what: "axes",
            })
        }
        IntsArg::Absent => return Err(OpError::MissingAttribute { name: "axes" }),
        IntsArg::Unknown(len) => {
            return Ok(vec![match (&x.shape, len) {
                (Some(s), Some(n)) => {
                    let dims = fresh_dims(ctx, node, 0, s.len() + n);
                    TensorFact::new(x.dtype, dims)
                }
                _ => TensorFact::unknown(x.dtype),
            }])
        }
        IntsArg::Known(v) => v,
    };
    let Some(dims) = &x.shape else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let norm = onnx_axes(node, &axes, dims.len() + axes.len())?;
    let out = unsqueeze_dims(&mut ctx.alg, dims, &norm);
    Ok(vec![fact_with_value(x.dtype, out, x.value.clone())])
}

/// ONNX `Squeeze` (13: `axes` is optional input 1).
fn squeeze(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, if node.version >= 13 { 2 } else { 1 })?;
    let x = ctx.input(node, 0, "data")?;
    let axes = axes_arg(ctx, node)?;
    let Some(dims) = &x.shape else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let r = dims.len();
    let axes = match axes {
        IntsArg::Unknown(len) => return squeeze_unknown_axes(ctx, node, &x, dims, len),
        IntsArg::Known(v) if !v.is_empty() => Some(onnx_axes(node, &v, r)?),
        _ => None,
    };
    match squeeze_dims(ctx, node, dims, axes.as_deref(), false)? {
        Squeezed::Dims(out) => Ok(vec![fact_with_value(x.dtype, out, x.value.clone())]),
        Squeezed::Undecided(axis) => {
            let msg = format!(
                "Squeeze without axes: whether axis {axis} ({}) is 1 is unknown, so the output rank is unknown; give `axes`",
                ctx.alg.render(dims[axis])
            );
            ctx.diagnose(Severity::Warning, node, msg);
            Ok(vec![TensorFact::unknown(x.dtype)])
        }
    }
}

/// ONNX `Squeeze` whose `axes` input has unknown contents (and length `len` when
/// known): when exactly `len` dims may be 1 (the others are provably not 1), those
/// are the squeezed ones; otherwise the output has `r - len` fresh dims.
fn squeeze_unknown_axes(
    ctx: &mut ShapesContext,
    node: &Node,
    x: &TensorFact,
    dims: &[Dim],
    len: Option<usize>,
) -> Result<Vec<TensorFact>, OpError> {
    let r = dims.len();
    let one = ctx.alg.constant(1);
    let maybe_one: Vec<usize> = (0..r)
        .filter(|&a| ctx.alg.equal(dims[a], one) != Truth::False)
        .collect();
    Ok(vec![match len {
        Some(n) if n == maybe_one.len() && n > 0 => {
            for &a in &maybe_one {
                if ctx.alg.equal(dims[a], one) == Truth::Unknown {
                    assume_one(ctx, node, a, dims[a])?;
                }
            }
            let out = (0..r)
                .filter(|a| !maybe_one.contains(a))
                .map(|a| dims[a])
                .collect();
            fact_with_value(x.dtype, out, x.value.clone())
        }
        Some(n) if n <= r => {
            let d = fresh_dims(ctx, node, 0, r - n);
            TensorFact::new(x.dtype, d)
        }
        _ => TensorFact::unknown(x.dtype),
    }])
}

/// ONNX `Flatten` (11: negative `axis`).
fn flatten(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "input")?;
    let axis = attr_int(node, "axis", 1)?;
    let Some(dims) = &x.shape else {
        let a = if axis == 0 {
            ctx.alg.constant(1)
        } else {
            ctx.unknown_dim(node, 0, 0)
        };
        let b = ctx.unknown_dim(node, 0, 1);
        return Ok(vec![TensorFact::new(x.dtype, vec![a, b])]);
    };
    let r = dims.len() as i64;
    let lo = if node.version >= 11 { -r } else { 0 };
    if axis < lo || axis > r {
        return Err(OpError::AxisOutOfRange {
            axis,
            rank: dims.len(),
        });
    }
    let axis = if axis < 0 { axis + r } else { axis } as usize;
    let a = ctx.alg.product(&dims[..axis]);
    let b = ctx.alg.product(&dims[axis..]);
    Ok(vec![fact_with_value(x.dtype, vec![a, b], x.value.clone())])
}

/// OpenVINO `Squeeze` (1: optional `axes` input; 15: `allow_axis_skip`).
fn ov_squeeze(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 2)?;
    let x = ctx.input(node, 0, "data")?;
    let Some(dims) = &x.shape else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let skip = node.version >= 15 && ov_bool(node, "allow_axis_skip", false)?;
    let axes = match ctx.optional_input(node, 1)? {
        Some(axes_t) => {
            let Some(axes) = const_ints(&ctx.alg, &axes_t) else {
                return Ok(vec![TensorFact::unknown(x.dtype)]);
            };
            // Repeats are allowed: the axis goes once.
            let axes: Vec<usize> = axes
                .iter()
                .map(|a| norm_axis(*a, dims.len()))
                .collect::<Result<_, _>>()?;
            Some(axes)
        }
        None => None,
    };
    Ok(vec![
        match squeeze_dims(ctx, node, dims, axes.as_deref(), skip)? {
            Squeezed::Dims(out) => fact_with_value(x.dtype, out, x.value.clone()),
            Squeezed::Undecided(_) => TensorFact::unknown(x.dtype),
        },
    ])
}

/// OpenVINO `Unsqueeze` (`axes` input, counted against the output rank).
fn ov_unsqueeze(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "data")?;
    let axes_t = ctx.input(node, 1, "axes")?;
    let Some(dims) = &x.shape else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let Some(axes) = const_ints(&ctx.alg, &axes_t) else {
        return match axes_t.static_len(&ctx.alg) {
            Some(k) => {
                let d = fresh_dims(ctx, node, 0, dims.len() + k);
                Ok(vec![TensorFact::new(x.dtype, d)])
            }
            None => Ok(vec![TensorFact::unknown(x.dtype)]),
        };
    };
    let norm = norm_axes(&axes, dims.len() + axes.len())?;
    let out = unsqueeze_dims(&mut ctx.alg, dims, &norm);
    Ok(vec![fact_with_value(x.dtype, out, x.value.clone())])
}
