//! One-hot encoding: ONNX `OneHot`, OpenVINO `OneHot`.
//!
//! Specs: the ONNX operator reference (`OneHot`) and the OpenVINO operation
//! specification (`OneHot-1`, `-16`).
//!
//! `OneHot(indices, depth, values)` inserts an axis of size `depth` into the
//! indices' shape at `axis` (default -1, the last): the output of an indices tensor
//! of rank `r >= 1` has rank `r + 1`, and `axis` lies in `[-r-1, r]`
//! ([`one_hot_shape`]). Along the new axis the element at the position an index
//! names is `on_value`, every other `off_value`, from `values = [off_value,
//! on_value]`, whose element type the output takes.
//!
//! `depth` is a scalar or a one-element vector; the new dim is its value when
//! known (symbolic too: a `depth` read from a shape keeps its name), truncated
//! toward zero when it is a float, and a data-dependent fresh dim otherwise. A
//! depth provably below 1 is an error (onnxruntime rejects 0 and negative depths);
//! an undecided one is recorded as a requirement of the model. With constant
//! indices, a constant depth and known values the contents are computed
//! ([`one_hot_values`]).
//!
//! Special values: an index outside `[-depth, depth-1]` gives a row of
//! `off_value`; a negative index counts from the end (from opset 11; before it the
//! indices must be non-negative, and a constant negative index is an error).
//!
//! OpenVINO's `OneHot(indices, depth, on_value, off_value)` takes the two values
//! as scalars and the output the type of `on_value`; `axis` is required. Its shape
//! is the same ([`one_hot_shape`]). A negative index gives a row of `off_value`
//! (`negative_indices_mode = ignore_negative`, the only behaviour of version 1) or
//! counts from the end (`normalize`, from version 16).
//!
//! # Version history
//! * ONNX **OneHot**: 9; 11 negative indices; 28 bf16 values.
//! * OpenVINO **OneHot**: 1; 16 `negative_indices_mode`.

use crate::algebra::{Algebra, Dim, Truth};
use crate::context::{AttrProblem, AttrValue, Choices, ShapeValueProblem};
use crate::context::{Expected, OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};
use crate::ops::common::attrs::attr_int;
use crate::ops::common::dims::rank_of;
use crate::ops::common::values::{const_ints, fact_with_value, small_const_shape, small_value};
use crate::ops::common::{check_inputs, norm_axis};
use crate::ops::tensor::cast::{cast_value, FloatToInt};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["OneHot"], one_hot),
    ("openvino", ["OneHot"], ov_one_hot),
];

/// The output shape of `OneHot`: `indices` with `depth` inserted at the
/// normalised `axis` (in `[0, rank(indices)]`).
pub fn one_hot_shape(indices: &[Dim], depth: Dim, axis: usize) -> Vec<Dim> {
    let mut out = indices[..axis].to_vec();
    out.push(depth);
    out.extend_from_slice(&indices[axis..]);
    out
}

/// The contents of a `OneHot` output: `indices` (row-major, constant shape
/// `idx_shape`) expanded along `axis` to `depth` entries, `on` where the entry is
/// the index (negative indices wrap), `off` elsewhere.
pub fn one_hot_values(
    idx_shape: &[usize],
    idx: &[i64],
    depth: usize,
    axis: usize,
    (off, on): (Dim, Dim),
) -> Vec<Dim> {
    let outer: usize = idx_shape[..axis].iter().product();
    let inner: usize = idx_shape[axis..].iter().product();
    let d = depth as i64;
    let mut out = Vec::with_capacity(outer * depth * inner);
    for o in 0..outer {
        for c in 0..d {
            for i in 0..inner {
                let x = idx[o * inner + i];
                let x = if x < 0 { x + d } else { x };
                out.push(if x == c { on } else { off });
            }
        }
    }
    out
}

/// The new dim from the `depth` operand's contents: an integer, or a float
/// truncated toward zero; `None` when not known.
fn depth_dim(alg: &mut Algebra, depth: &TensorFact) -> Option<Dim> {
    let v = match depth.value.as_deref() {
        Some([v]) => *v,
        _ => return None,
    };
    if depth.dtype.is_integer() {
        Some(v)
    } else {
        cast_value(alg, depth.dtype, DType::Int64, &[v], FloatToInt::Truncate)?
            .first()
            .copied()
    }
}

/// ONNX `OneHot` (see the module docs).
fn one_hot(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let indices = ctx.input(node, 0, "indices")?;
    let depth = ctx.input(node, 1, "depth")?;
    let values = ctx.input(node, 2, "values")?;
    if let Some(vs) = &values.shape {
        if vs.len() != 1 {
            return Err(rank_of("values", 1, vs.len()));
        }
        if let Some(n) = ctx.alg.as_i64(vs[0]).filter(|n| *n != 2) {
            return Err(OpError::BadShapeValue(Box::new(
                ShapeValueProblem::OnOffValues(n),
            )));
        }
    }
    match depth.shape.as_deref() {
        None | Some([]) => {}
        Some([n]) => {
            if let Some(n) = ctx.alg.as_i64(*n).filter(|n| *n != 1) {
                return Err(OpError::BadShapeValue(Box::new(
                    ShapeValueProblem::NotOneElement {
                        what: "depth",
                        found: n,
                    },
                )));
            }
        }
        Some(s) => return Err(rank_of("depth", Expected::either(&[0, 1]), s.len())),
    }
    let dtype = values.dtype;
    let Some(ishape) = indices.shape.clone() else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    if ishape.is_empty() {
        return Err(rank_of("indices", Expected::AtLeast(1), 0));
    }
    let axis = norm_axis(attr_int(node, "axis", -1)?, ishape.len() + 1)?;
    let d = depth_dim(&mut ctx.alg, &depth);
    if let Some(d) = d {
        let one = ctx.alg.constant(1);
        match ctx.alg.le(one, d) {
            Truth::True => {}
            Truth::False => {
                return Err(OpError::BadShapeValue(Box::new(
                    ShapeValueProblem::DepthBelowOne(ctx.alg.expr(d)),
                )))
            }
            Truth::Unknown => ctx.alg.record_requirement(one, d, &node.name, "depth"),
        }
    }
    let idx = const_ints(&ctx.alg, &indices);
    if node.version < 11 {
        if let Some(bad) = idx.iter().flatten().find(|i| **i < 0) {
            return Err(OpError::BadShapeValue(Box::new(
                ShapeValueProblem::NegativeIndex(*bad),
            )));
        }
    }
    let d = match d {
        Some(d) => d,
        None => ctx.unknown_dim(node, 0, axis),
    };
    let out = one_hot_shape(&ishape, d, axis);
    let value = (|| {
        let depth = usize::try_from(ctx.alg.as_i64(d)?).ok()?;
        small_const_shape(&ctx.alg, &out)?;
        let is = small_const_shape(&ctx.alg, &ishape)?;
        let (_, v) = small_value(&ctx.alg, &values)?;
        let pair = (*v.first()?, *v.get(1)?);
        Some(one_hot_values(&is, idx.as_deref()?, depth, axis, pair))
    })();
    Ok(vec![fact_with_value(dtype, out, value)])
}

/// OpenVINO `OneHot` (1; 16 `negative_indices_mode`).
fn ov_one_hot(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 4, 4)?;
    let indices = ctx.input(node, 0, "indices")?;
    let depth = ctx.input(node, 1, "depth")?;
    let on = ctx.input(node, 2, "on_value")?;
    let off = ctx.input(node, 3, "off_value")?;
    for (f, what) in [(&depth, "depth"), (&on, "on_value"), (&off, "off_value")] {
        if let Some(s) = &f.shape {
            let one = s.len() == 1 && matches!(ctx.alg.as_i64(s[0]), None | Some(1));
            if !s.is_empty() && !one {
                return Err(rank_of(
                    what,
                    Expected::Exactly(0).noted("a scalar"),
                    s.len(),
                ));
            }
        }
    }
    let normalize = match crate::ops::common::attrs::ov_str(node, "negative_indices_mode")? {
        None | Some("ignore_negative") => false,
        Some("normalize") if node.version >= 16 => true,
        Some(other) => {
            return Err(OpError::BadAttribute {
                name: "negative_indices_mode",
                value: AttrValue::Str(other.to_string()),
                why: Box::new(AttrProblem::NotOneOf {
                    accepted: Choices::Names(vec!["ignore_negative", "normalize"]),
                    note: Some("from version 16"),
                }),
            })
        }
    };
    let dtype = on.dtype;
    let Some(ishape) = indices.shape.clone() else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    let axis = crate::ops::common::attrs::ov_i64(node, "axis")?
        .ok_or(OpError::MissingAttribute { name: "axis" })?;
    let axis = norm_axis(axis, ishape.len() + 1)?;
    let d = depth_dim(&mut ctx.alg, &depth);
    if let Some(d) = d {
        let zero = ctx.alg.constant(0);
        if ctx.alg.le(zero, d) == Truth::False {
            return Err(OpError::BadShapeValue(Box::new(
                ShapeValueProblem::NegativeDepth(ctx.alg.expr(d)),
            )));
        }
    }
    let d = match d {
        Some(d) => d,
        None => ctx.unknown_dim(node, 0, axis),
    };
    let out = one_hot_shape(&ishape, d, axis);
    let idx = const_ints(&ctx.alg, &indices);
    let value = (|| {
        let depth = usize::try_from(ctx.alg.as_i64(d)?).ok()?;
        small_const_shape(&ctx.alg, &out)?;
        let is = small_const_shape(&ctx.alg, &ishape)?;
        let (_, on) = small_value(&ctx.alg, &on)?;
        let (_, off) = small_value(&ctx.alg, &off)?;
        let mut ix = idx?;
        if !normalize {
            // a negative index matches no position
            let past = depth as i64;
            for i in ix.iter_mut().filter(|i| **i < 0) {
                *i = past;
            }
        }
        Some(one_hot_values(
            &is,
            &ix,
            depth,
            axis,
            (*off.first()?, *on.first()?),
        ))
    })();
    Ok(vec![fact_with_value(dtype, out, value)])
}
