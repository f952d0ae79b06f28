//! Pad.
//!
//! Spec: <https://onnx.ai/onnx/operators/onnx__Pad.html>.
//!
//! `pads` holds the begin pads of every padded axis, then their end pads. Each
//! padded axis becomes `in + begin + end`; negative pads crop. The pads may be
//! symbolic (a pads tensor computed from shapes), in which case the output dims are
//! expressions. A length that is provably negative is an error, as is a pads list
//! whose length is not twice the number of padded axes. When the pads are not
//! known, the padded axes get fresh dims and the rank is kept.
//!
//! Version history (shape-relevant):
//! - Pad-1: `paddings` attribute.
//! - Pad-2: `pads` attribute.
//! - Pad-11: `pads` and `constant_value` become inputs.
//! - Pad-13: bfloat16.
//! - Pad-18: optional `axes` input (pads only the listed axes).
//! - Pad-19: `wrap` mode. Pad-21, -23, -24, -25: types.

use super::values::const_ints;
use super::{attr_ints, check_inputs, norm_axis, RuleEntry};
use crate::algebra::{Dim, Truth};
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::Node;

/// The rules of this family.
pub const RULES: &[RuleEntry] = &[("", "Pad", pad)];

fn pad(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let x = ctx.input(node, 0, "data")?;
    if let Some(m) = super::attr_str(node, "mode")? {
        if !matches!(m, "constant" | "reflect" | "edge" | "wrap") {
            return Err(OpError::BadAttribute {
                name: "mode",
                value: format!("{m:?}"),
                why: "expected constant, reflect, edge or wrap".to_string(),
            });
        }
    }
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
            Some(v) => {
                let mut out: Vec<usize> = Vec::with_capacity(v.len());
                for a in &v {
                    let n = norm_axis(*a, rank)?;
                    if out.contains(&n) {
                        return Err(OpError::BadShapeValue {
                            what: format!("axes {v:?} repeat axis {a}"),
                        });
                    }
                    out.push(n);
                }
                Some(out)
            }
            None => None,
        },
    };
    let mut out = xs.clone();
    let (Some(axes), Some(pads)) = (axes, pads) else {
        // Unknown pads or axes: the rank is kept, padded axes become fresh dims.
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
        return Err(OpError::BadShapeValue {
            what: format!(
                "pads has {} entries, expected {} (begin and end of {} axes)",
                pads.len(),
                2 * axes.len(),
                axes.len()
            ),
        });
    }
    let zero = ctx.alg.constant(0);
    let n = axes.len();
    // Reflect mirrors the input without repeating its edge: each pad of an axis is
    // at most its length - 1 (onnxruntime: "Pad reflect: post-pad (64) exceeds
    // maximum allowed (15)").
    let reflect = matches!(super::attr_str(node, "mode")?, Some("reflect"));
    if reflect {
        let one = ctx.alg.constant(1);
        for (j, &a) in axes.iter().enumerate() {
            let most = ctx.alg.sub(xs[a], one);
            for p in [pads[j], pads[j + n]] {
                if ctx.alg.as_i64(p) == Some(0) {
                    continue;
                }
                match ctx.alg.le(p, most) {
                    Truth::True => {}
                    Truth::False => {
                        return Err(OpError::BadShapeValue {
                            what: format!(
                                "axis {a}: reflect pad {} exceeds the input length {} - 1",
                                ctx.alg.render(p),
                                ctx.alg.render(xs[a])
                            ),
                        })
                    }
                    Truth::Unknown => {
                        ctx.alg.record_requirement(p, most, &node.name, "pad");
                    }
                }
            }
        }
    }
    for (j, &a) in axes.iter().enumerate() {
        let grown = ctx.alg.add_dims(xs[a], pads[j]);
        let d = ctx.alg.add_dims(grown, pads[j + n]);
        if ctx.alg.le(zero, d) == Truth::False {
            return Err(OpError::BadShapeValue {
                what: format!(
                    "axis {a}: padded length {} is negative (input {}, pads {} and {})",
                    ctx.alg.render(d),
                    ctx.alg.render(xs[a]),
                    ctx.alg.render(pads[j]),
                    ctx.alg.render(pads[j + n])
                ),
            });
        }
        out[a] = d;
    }
    Ok(vec![TensorFact::new(x.dtype, out)])
}
