//! Padding: ONNX `Pad`, OpenVINO `Pad`.
//!
//! Specs: <https://onnx.ai/onnx/operators/onnx__Pad.html> and the OpenVINO operation
//! specification (`Pad-1`, `Pad-12`).
//!
//! Each padded axis becomes `in + begin + end` ([`pad_dims`]); negative pads crop.
//! The pads may be symbolic (a pads tensor computed from shapes), in which case the
//! output dims are expressions. A length that is provably negative is an error.
//! When the pads are not known, the padded axes get fresh dims and the rank is kept.
//!
//! The fill mode bounds the pads ([`Fill`]): `reflect` mirrors the input without
//! repeating its edge, so each pad is at most the axis length - 1 (onnxruntime:
//! "Pad reflect: post-pad (64) exceeds maximum allowed (15)"; the OpenVINO spec says
//! the same), and OpenVINO's `symmetric` repeats the edge, so at most the length.
//! A bound that is not decided is recorded as a requirement of the model.
//!
//! Special values: ONNX `pads` holds the begin pads of every padded axis, then
//! their end pads; OpenVINO has one input for each. OpenVINO-1 pads must not be
//! negative.
//!
//! # Version history
//! * ONNX **Pad-1**: `paddings` attribute. **2**: `pads` attribute. **11**: `pads`
//!   and `constant_value` become inputs. **13**: bfloat16. **18**: optional `axes`
//!   input (pads only the listed axes). **19**: `wrap` mode. **21**, **23-25**: types.
//! * OpenVINO **Pad-1**: `pads_begin`, `pads_end` inputs (non-negative), `pad_mode`
//!   `constant`, `edge`, `reflect`, `symmetric`. **Pad-12**: negative pads crop.

use crate::algebra::{Dim, Truth};
use crate::context::{AttrProblem, AttrValue, ShapeValueProblem};
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::Node;
use crate::ops::common::attrs::ov_str;
use crate::ops::common::attrs::{attr_ints, attr_str};
use crate::ops::common::values::{const_ints, norm_axes};
use crate::ops::common::{check_inputs, fresh_dims, norm_axis};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["Pad"], pad),
    ("openvino", ["Pad"], ov_pad),
];

/// What fills the padding; it bounds the pads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    /// A constant value: any pad.
    Constant,
    /// The edge value repeated: any pad.
    Edge,
    /// The input mirrored without its edge: each pad at most the length - 1.
    Reflect,
    /// The input mirrored with its edge (OpenVINO): each pad at most the length.
    Symmetric,
    /// The input repeated (ONNX-19): any pad.
    Wrap,
}

impl Fill {
    /// The mode named by `s` among `allowed`, or a [`OpError::BadAttribute`] for
    /// the attribute `name`.
    fn parse(
        s: &str,
        name: &'static str,
        allowed: &[(&'static str, Fill)],
    ) -> Result<Fill, OpError> {
        allowed
            .iter()
            .find(|(n, _)| *n == s)
            .map(|(_, f)| *f)
            .ok_or_else(|| {
                let names: Vec<&'static str> = allowed.iter().map(|(n, _)| *n).collect();
                OpError::BadAttribute {
                    name,
                    value: AttrValue::Str(s.to_string()),
                    why: Box::new(AttrProblem::one_of(&names)),
                }
            })
    }
}

/// `dims` with each of `axes` padded by `begin[i]` and `end[i]`; the pads must fit
/// `fill` (see the module docs).
pub fn pad_dims(
    ctx: &mut ShapesContext,
    node: &Node,
    dims: &[Dim],
    axes: &[usize],
    (begin, end): (&[Dim], &[Dim]),
    fill: Fill,
) -> Result<Vec<Dim>, OpError> {
    let zero = ctx.alg.constant(0);
    let one = ctx.alg.constant(1);
    for (j, &a) in axes.iter().enumerate() {
        let most = match fill {
            Fill::Reflect => ctx.alg.sub(dims[a], one),
            Fill::Symmetric => dims[a],
            Fill::Constant | Fill::Edge | Fill::Wrap => continue,
        };
        for p in [begin[j], end[j]] {
            if ctx.alg.as_i64(p) == Some(0) {
                continue;
            }
            match ctx.alg.le(p, most) {
                Truth::True => {}
                Truth::False => {
                    let (pad, len) = (ctx.alg.expr(p), ctx.alg.expr(dims[a]));
                    return Err(OpError::BadShapeValue(Box::new(if fill == Fill::Reflect {
                        ShapeValueProblem::ReflectPadExceeds { axis: a, pad, len }
                    } else {
                        ShapeValueProblem::SymmetricPadExceeds { axis: a, pad, len }
                    })));
                }
                Truth::Unknown => ctx.alg.record_requirement(p, most, &node.name, "pad"),
            }
        }
    }
    let mut out = dims.to_vec();
    for (j, &a) in axes.iter().enumerate() {
        let grown = ctx.alg.add_dims(dims[a], begin[j]);
        let d = ctx.alg.add_dims(grown, end[j]);
        if ctx.alg.le(zero, d) == Truth::False {
            return Err(OpError::BadShapeValue(Box::new(
                ShapeValueProblem::PaddedNegative {
                    axis: a,
                    length: ctx.alg.expr(d),
                    input: ctx.alg.expr(dims[a]),
                    begin: ctx.alg.expr(begin[j]),
                    end: ctx.alg.expr(end[j]),
                },
            )));
        }
        out[a] = d;
    }
    Ok(out)
}

/// ONNX `Pad` (1: `paddings`; 2: `pads` attribute; 11: inputs; 18: `axes`).
fn pad(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let x = ctx.input(node, 0, "data")?;
    let fill = match attr_str(node, "mode")? {
        None => Fill::Constant,
        Some(m) => Fill::parse(
            m,
            "mode",
            &[
                ("constant", Fill::Constant),
                ("reflect", Fill::Reflect),
                ("edge", Fill::Edge),
                ("wrap", Fill::Wrap),
            ],
        )?,
    };
    // The pads as dims (None when unknown) and the axes they cover.
    let (pads, axes_fact): (Option<Vec<Dim>>, Option<TensorFact>) = if node.version < 11 {
        check_inputs(node, 1, 1)?;
        let name = if node.version < 2 { "paddings" } else { "pads" };
        let p = attr_ints(node, name)?.ok_or(OpError::MissingAttribute { name })?;
        (Some(p.iter().map(|v| ctx.alg.constant(*v)).collect()), None)
    } else {
        check_inputs(node, 2, 4)?;
        let p = ctx.input(node, 1, "pads")?;
        let axes = if node.version >= 18 {
            ctx.optional_input(node, 3)?
        } else {
            None
        };
        (p.value.clone(), axes)
    };
    let Some(xs) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let rank = xs.len();
    let axes: Option<Vec<usize>> = match &axes_fact {
        None => Some((0..rank).collect()),
        Some(f) => match const_ints(&ctx.alg, f) {
            Some(v) => Some(norm_axes(&v, rank)?),
            None => None,
        },
    };
    let (Some(axes), Some(pads)) = (axes, pads) else {
        // Unknown pads or axes: the rank is kept, padded axes become fresh dims.
        let mut out = xs.clone();
        let unknown_axes: Vec<usize> = match &axes_fact {
            Some(f) => const_ints(&ctx.alg, f)
                .and_then(|v| v.iter().map(|a| norm_axis(*a, rank).ok()).collect())
                .unwrap_or_else(|| (0..rank).collect()),
            None => (0..rank).collect(),
        };
        for a in unknown_axes {
            out[a] = ctx.unknown_dim(node, 0, a);
        }
        return Ok(vec![TensorFact::new(x.dtype, out)]);
    };
    if pads.len() != 2 * axes.len() {
        return Err(OpError::BadShapeValue(Box::new(
            ShapeValueProblem::PadsEntries {
                found: pads.len(),
                axes: axes.len(),
            },
        )));
    }
    let (begin, end) = pads.split_at(axes.len());
    let out = pad_dims(ctx, node, &xs, &axes, (begin, end), fill)?;
    Ok(vec![TensorFact::new(x.dtype, out)])
}

/// OpenVINO `Pad` (1: non-negative pads; 12: negative pads crop).
fn ov_pad(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 4)?;
    let x = ctx.input(node, 0, "data")?;
    let pb = ctx.input(node, 1, "pads_begin")?;
    let pe = ctx.input(node, 2, "pads_end")?;
    let fill = Fill::parse(
        ov_str(node, "pad_mode")?.unwrap_or("constant"),
        "pad_mode",
        &[
            ("constant", Fill::Constant),
            ("edge", Fill::Edge),
            ("reflect", Fill::Reflect),
            ("symmetric", Fill::Symmetric),
        ],
    )?;
    let Some(shape) = &x.shape else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let (Some(b), Some(e)) = (&pb.value, &pe.value) else {
        let d = fresh_dims(ctx, node, 0, shape.len());
        return Ok(vec![TensorFact::new(x.dtype, d)]);
    };
    if b.len() != shape.len() || e.len() != shape.len() {
        return Err(OpError::BadShapeValue(Box::new(
            ShapeValueProblem::PadLengths {
                begin: b.len(),
                end: e.len(),
                rank: shape.len(),
            },
        )));
    }
    if node.version < 12 {
        for i in 0..shape.len() {
            for (what, p) in [("pads_begin", b[i]), ("pads_end", e[i])] {
                if ctx.alg.bounds(p).is_negative() {
                    return Err(OpError::BadShapeValue(Box::new(
                        ShapeValueProblem::NegativePad {
                            what,
                            axis: i,
                            value: ctx.alg.expr(p),
                        },
                    )));
                }
            }
        }
    }
    let axes: Vec<usize> = (0..shape.len()).collect();
    let out = pad_dims(ctx, node, shape, &axes, (b, e), fill)?;
    Ok(vec![TensorFact::new(x.dtype, out)])
}
