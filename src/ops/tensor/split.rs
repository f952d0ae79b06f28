//! Cutting a tensor into consecutive parts along one axis: ONNX `Split`, OpenVINO
//! `Split` and `VariadicSplit`.
//!
//! Specs: the ONNX operator reference (`Split`) and the OpenVINO operation
//! specification (`Split-1`, `VariadicSplit-1`).
//!
//! Each output is the input with the axis dim replaced by its part's size. The
//! sizes are given ([`split_sizes`]: they must add up to the axis, and OpenVINO's
//! `VariadicSplit` may leave one of them, `-1`, to take the rest), or the axis is cut
//! into `n` equal parts ([`split_equal`]). The contents of a small input are cut
//! along ([`split_values`]).
//!
//! Special values: sizes that provably do not add up to the axis, or a negative
//! size, are errors; sizes whose sum is not provably the axis are made equal to it
//! and the relation is recorded. An equal split needs `n | d`: provably not is an
//! error, undecided gives the exact quotient `d/n` with the relation `n*(d/n) == d`
//! (ONNX also warns). ONNX-18 `num_outputs` splits unevenly: `ceildiv(d, n)` per
//! part and a smaller last part.
//!
//! # Version history
//! * ONNX **Split**: 1 (`split` attribute or optional input 1); 2 `split` attribute
//!   only; 11 negative `axis`; 13 `split` is optional input 1; 18 `num_outputs`.
//! * OpenVINO **Split**: 1 (`num_splits` attribute, `axis` input).
//! * OpenVINO **VariadicSplit**: 1 (`axis` and `split_lengths` inputs, one length
//!   may be -1).

use crate::algebra::Dim;
use crate::context::DimRole;
use crate::context::{AttrProblem, AttrValue, ShapeValueProblem};
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::Node;
use crate::ops::common::attrs::ov_i64;
use crate::ops::common::attrs::{attr_int, attr_ints};
use crate::ops::common::dims::require_equal;
use crate::ops::common::values::{
    const_ints, consts, dims_value, fact_with_value, small_value, take_values,
};
use crate::ops::common::{check_inputs, norm_axis, unknown_outputs};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["Split"], split),
    ("openvino", ["Split"], ov_split),
    ("openvino", ["VariadicSplit"], ov_variadic_split),
];

/// The part sizes of a split of the axis `axis` of size `d` into `sizes`. When
/// `fill`, one entry may be -1: the rest of the axis (OpenVINO `VariadicSplit`).
/// Otherwise the sizes must add up to `d` (see the module docs).
pub fn split_sizes(
    ctx: &mut ShapesContext,
    node: &Node,
    (axis, d): (usize, Dim),
    sizes: &[Dim],
    fill: bool,
) -> Result<Vec<Dim>, OpError> {
    let is_fill = |ctx: &ShapesContext, s: &Dim| fill && ctx.alg.as_i64(*s) == Some(-1);
    let fills: Vec<usize> = (0..sizes.len())
        .filter(|&i| is_fill(ctx, &sizes[i]))
        .collect();
    if fills.len() > 1 {
        return Err(OpError::BadShapeValue(Box::new(ShapeValueProblem::Fixed(
            "split_lengths has more than one -1",
        ))));
    }
    let known: Vec<Dim> = sizes.iter().filter(|s| !is_fill(ctx, s)).copied().collect();
    if known.iter().any(|s| ctx.alg.bounds(*s).is_negative()) {
        return Err(OpError::BadShapeValue(Box::new(
            ShapeValueProblem::NegativeListEntry {
                what: "split",
                dims: ctx.alg.exprs(sizes),
            },
        )));
    }
    let total = ctx.alg.sum(&known);
    let mut out = sizes.to_vec();
    if let Some(&p) = fills.first() {
        let rest = ctx.alg.sub(d, total);
        if ctx.alg.bounds(rest).is_negative() {
            return Err(OpError::BadShapeValue(Box::new(
                ShapeValueProblem::SplitLengthsExceed {
                    total: ctx.alg.expr(total),
                    dim: ctx.alg.expr(d),
                },
            )));
        }
        out[p] = rest;
        return Ok(out);
    }
    let dims = || DimRole::AtAxis {
        what: "the split sizes must add up to axis",
        axis,
    };
    require_equal(ctx, &node.name, &dims, total, d)?;
    Ok(out)
}

/// One of `n` equal parts of an axis of size `d`: `d/n`, and whether `n | d` was
/// assumed (not proven; it is then required, see
/// [`crate::algebra::Algebra::require_divides`]). Provably not dividing is an error.
pub fn split_equal(
    ctx: &mut ShapesContext,
    node: &Node,
    d: Dim,
    n: i64,
) -> Result<(Dim, bool), OpError> {
    let n = ctx.alg.constant(n);
    Ok(ctx.alg.require_divides(d, n, &node.name)?)
}

/// The contents of each part of a split of `x` along `axis` into `parts`: for a
/// small `x` of known contents, each part whose size and offset are constants.
pub fn split_values(
    ctx: &ShapesContext,
    x: &TensorFact,
    axis: usize,
    parts: &[Dim],
) -> Vec<Option<Vec<Dim>>> {
    let whole = small_value(&ctx.alg, x);
    let mut offset = Some(0usize);
    parts
        .iter()
        .map(|p| {
            let (shape, v) = whole.as_ref()?;
            let start = offset?;
            let len = ctx.alg.as_i64(*p).and_then(|c| usize::try_from(c).ok());
            match len {
                Some(len) if start + len <= shape[axis] => {
                    let mut per_axis: Vec<Vec<usize>> =
                        shape.iter().map(|&n| (0..n).collect()).collect();
                    per_axis[axis] = (start..start + len).collect();
                    offset = Some(start + len);
                    Some(take_values(v, shape, &per_axis))
                }
                _ => {
                    offset = None;
                    None
                }
            }
        })
        .collect()
}

/// The facts of the parts: `dims` with `parts[i]` on `axis`, and their contents.
fn parts_facts(
    ctx: &ShapesContext,
    x: &TensorFact,
    dims: &[Dim],
    axis: usize,
    parts: &[Dim],
) -> Vec<TensorFact> {
    let values = split_values(ctx, x, axis, parts);
    parts
        .iter()
        .zip(values)
        .map(|(p, v)| {
            let mut out = dims.to_vec();
            out[axis] = *p;
            fact_with_value(x.dtype, out, v)
        })
        .collect()
}

/// ONNX `Split` (sizes from the `split` attribute or input, `num_outputs` from 18,
/// else equal parts).
fn split(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let x = ctx.input(node, 0, "input")?;
    let n_out = node.outputs.len();
    if n_out == 0 {
        return Err(OpError::NoOutput);
    }
    let split_from_input = node.version >= 13 || node.version == 1;
    check_inputs(node, 1, if split_from_input { 2 } else { 1 })?;
    // The split sizes: None = not given; Some(None) = given but unknown.
    let mut sizes: Option<Option<Vec<Dim>>> = None;
    if split_from_input {
        if let Some(f) = ctx.optional_input(node, 1)? {
            let (v, len) = dims_value(&ctx.alg, &f);
            if let Some(k) = len {
                if k != n_out {
                    return Err(OpError::BadShapeValue(Box::new(
                        ShapeValueProblem::EntriesFor {
                            what: "split",
                            found: k,
                            count: n_out,
                            of: "outputs",
                        },
                    )));
                }
            }
            sizes = Some(v);
        }
    }
    if node.version < 13 {
        if let Some(v) = attr_ints(node, "split")? {
            if sizes.is_some() {
                return Err(OpError::BadAttribute {
                    name: "split",
                    value: AttrValue::Ints(v.to_vec()),
                    why: Box::new(AttrProblem::Fixed("given both as attribute and input")),
                });
            }
            if v.len() != n_out {
                return Err(OpError::BadAttribute {
                    name: "split",
                    value: AttrValue::Ints(v.to_vec()),
                    why: Box::new(AttrProblem::EntriesForOutputs {
                        entries: v.len(),
                        outputs: n_out,
                    }),
                });
            }
            sizes = Some(Some(consts(&mut ctx.alg, v)));
        }
    }
    let num_outputs = if node.version >= 18 {
        match node.attr("num_outputs") {
            None => None,
            Some(_) => Some(attr_int(node, "num_outputs", 0)?),
        }
    } else {
        None
    };
    if let Some(n) = num_outputs {
        if sizes.is_some() {
            return Err(OpError::BadAttribute {
                name: "num_outputs",
                value: AttrValue::Int(n),
                why: Box::new(AttrProblem::Fixed("given together with the split input")),
            });
        }
        if n < 1 || n as usize != n_out {
            return Err(OpError::BadAttribute {
                name: "num_outputs",
                value: AttrValue::Int(n),
                why: Box::new(AttrProblem::NodeOutputs(n_out)),
            });
        }
    }
    let Some(dims) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype); n_out]);
    };
    let axis = norm_axis(attr_int(node, "axis", 0)?, dims.len())?;
    let d = dims[axis];
    let chunks: Vec<Dim> = match sizes {
        Some(Some(v)) => split_sizes(ctx, node, (axis, d), &v, false)?,
        Some(None) => (0..n_out).map(|i| ctx.unknown_dim(node, i, axis)).collect(),
        None if node.version >= 18 => {
            if num_outputs.is_none() {
                return Err(OpError::MissingAttribute {
                    name: "num_outputs (or the split input)",
                });
            }
            let n = ctx.alg.constant(n_out as i64);
            let chunk = ctx.alg.ceildiv(d, n);
            let before = ctx.alg.constant(n_out as i64 - 1);
            let used = ctx.alg.mul(chunk, before);
            let last = ctx.alg.sub(d, used);
            if ctx.alg.bounds(last).is_negative() {
                return Err(OpError::BadShapeValue(Box::new(
                    ShapeValueProblem::ChunksExceed {
                        axis,
                        dim: ctx.alg.expr(d),
                        chunks: n_out,
                        chunk: ctx.alg.expr(chunk),
                    },
                )));
            }
            let mut v = vec![chunk; n_out - 1];
            v.push(last);
            v
        }
        None => {
            let (q, assumed) = split_equal(ctx, node, d, n_out as i64)?;
            if assumed {
                let msg = format!(
                    "axis {axis} of size {} splits into {n_out} equal parts of {} only when {n_out} divides it (valid when {} % {n_out} == 0)",
                    ctx.alg.render(d),
                    ctx.alg.render(q),
                    ctx.alg.render(d)
                );
                ctx.warn(node, &msg);
            }
            vec![q; n_out]
        }
    };
    Ok(parts_facts(ctx, &x, &dims, axis, &chunks))
}

/// The shape and the normalised `axis` (a scalar input) of an OpenVINO split, when
/// both are known.
fn ov_axis(
    ctx: &ShapesContext,
    x: &TensorFact,
    axis: &TensorFact,
) -> Result<Option<(Vec<Dim>, usize)>, OpError> {
    let (Some(dims), Some(&[axis])) = (&x.shape, const_ints(&ctx.alg, axis).as_deref()) else {
        return Ok(None);
    };
    let axis = norm_axis(axis, dims.len())?;
    Ok(Some((dims.clone(), axis)))
}

/// OpenVINO `Split`: `num_splits` equal parts along the `axis` input.
fn ov_split(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "data")?;
    let axis_t = ctx.input(node, 1, "axis")?;
    let k = ov_i64(node, "num_splits")?.ok_or(OpError::MissingAttribute { name: "num_splits" })?;
    if k < 1 {
        return Err(OpError::BadAttribute {
            name: "num_splits",
            value: AttrValue::Int(k),
            why: Box::new(AttrProblem::Below(1)),
        });
    }
    let Some((dims, axis)) = ov_axis(ctx, &x, &axis_t)? else {
        return Ok(unknown_outputs(node, x.dtype));
    };
    let (part, _) = split_equal(ctx, node, dims[axis], k)?;
    let outs = node.outputs.len();
    let mut facts = parts_facts(ctx, &x, &dims, axis, &vec![part; outs.min(k as usize)]);
    // Outputs past `num_splits` get the part's shape.
    let mut extra = dims;
    extra[axis] = part;
    facts.resize(outs, TensorFact::new(x.dtype, extra));
    Ok(facts)
}

/// OpenVINO `VariadicSplit`: `split_lengths` along the `axis` input, one may be -1.
fn ov_variadic_split(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let x = ctx.input(node, 0, "data")?;
    let axis_t = ctx.input(node, 1, "axis")?;
    let lens_t = ctx.input(node, 2, "split_lengths")?;
    let Some((dims, axis)) = ov_axis(ctx, &x, &axis_t)? else {
        return Ok(unknown_outputs(node, x.dtype));
    };
    let Some(lens) = &lens_t.value else {
        return Ok((0..node.outputs.len())
            .map(|i| {
                let mut s = dims.clone();
                s[axis] = ctx.unknown_dim(node, i, axis);
                TensorFact::new(x.dtype, s)
            })
            .collect());
    };
    let parts = split_sizes(ctx, node, (axis, dims[axis]), lens, true)?;
    Ok(parts_facts(ctx, &x, &dims, axis, &parts))
}
