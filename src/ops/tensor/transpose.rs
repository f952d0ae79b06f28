//! Permuting axes: ONNX `Transpose`, OpenVINO `Transpose`, oneDNN
//! `StaticTranspose`.
//!
//! Specs: the ONNX operator reference (`Transpose`), the OpenVINO operation
//! specification (`Transpose-1`) and oneDNN Graph's `StaticTranspose` document.
//!
//! Output dim `i` is input dim `perm[i]` ([`permutation`]); the contents of a small
//! constant-shaped input are permuted too ([`transpose_values`]).
//!
//! Special values: ONNX's `perm` attribute defaults to the reversed axes and its
//! entries lie in `[0, rank)`. OpenVINO's `order` input reverses the axes when it is
//! empty, and its entries may be negative (counted from the end), as may those of
//! oneDNN's required `order` attribute. Anything but a permutation is an error. An
//! input of unknown rank gives an unknown rank, except ONNX with `perm` (its length
//! is the rank); an OpenVINO `order` of unknown contents gives fresh dims.
//!
//! # Version history
//! * ONNX **Transpose**: 1; 13, 21, 23-25 types only.
//! * OpenVINO **Transpose**: 1.
//! * oneDNN **StaticTranspose**: `order` attribute (negative entries allowed).

use crate::algebra::{Algebra, Dim};
use crate::context::{AttrProblem, AttrValue, ShapeValueProblem};
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::{Node, VALUE_FACT_LIMIT};
use crate::ops::common::attrs::attr_ints;
use crate::ops::common::attrs::dst_dtype;
use crate::ops::common::values::{const_ints, fact_with_value, small_value};
use crate::ops::common::{check_inputs, fresh_dims, norm_axis};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["Transpose"], transpose),
    ("openvino", ["Transpose"], ov_transpose),
    ("onednn", ["StaticTranspose"], onednn_static_transpose),
];

/// The permutation of `rank` axes that `order` names, with negative entries counted
/// from the end when `negative` allows them; `None` when it is not a permutation.
pub fn permutation(order: &[i64], rank: usize, negative: bool) -> Option<Vec<usize>> {
    if order.len() != rank {
        return None;
    }
    let mut seen = vec![false; rank];
    let mut out = Vec::with_capacity(rank);
    for &o in order {
        if o < 0 && !negative {
            return None;
        }
        let a = norm_axis(o, rank).ok()?;
        if seen[a] {
            return None;
        }
        seen[a] = true;
        out.push(a);
    }
    Some(out)
}

/// The contents of a transposed tensor of constant shape `shape` (row-major), at most
/// [`VALUE_FACT_LIMIT`] elements.
pub fn transpose_values(values: &[Dim], shape: &[usize], perm: &[usize]) -> Option<Vec<Dim>> {
    let n = values.len();
    if n > VALUE_FACT_LIMIT {
        return None;
    }
    let strides = |s: &[usize]| -> Vec<usize> {
        let mut st = vec![1usize; s.len()];
        for i in (0..s.len().saturating_sub(1)).rev() {
            st[i] = st[i + 1] * s[i + 1];
        }
        st
    };
    let st = strides(shape);
    let out_shape: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
    let ost = strides(&out_shape);
    let mut out = Vec::with_capacity(n);
    for flat in 0..n {
        let mut src = 0;
        for (i, &p) in perm.iter().enumerate() {
            let idx = (flat / ost[i]) % out_shape[i].max(1);
            src += idx * st[p];
        }
        out.push(*values.get(src)?);
    }
    Some(out)
}

/// The fact of `x` (of known shape `dims`) transposed by `perm`.
pub fn transposed(alg: &Algebra, x: &TensorFact, dims: &[Dim], perm: &[usize]) -> TensorFact {
    let out: Vec<Dim> = perm.iter().map(|&a| dims[a]).collect();
    let value = small_value(alg, x).and_then(|(shape, v)| transpose_values(&v, &shape, perm));
    fact_with_value(x.dtype, out, value)
}

/// ONNX `Transpose` (`perm` attribute, default reversed).
fn transpose(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "data")?;
    let perm = attr_ints(node, "perm")?;
    let Some(dims) = &x.shape else {
        return Ok(vec![match perm {
            Some(p) => {
                let d = fresh_dims(ctx, node, 0, p.len());
                TensorFact::new(x.dtype, d)
            }
            None => TensorFact::unknown(x.dtype),
        }]);
    };
    let r = dims.len();
    let perm = match perm {
        None => (0..r).rev().collect(),
        Some(p) => permutation(p, r, false).ok_or_else(|| OpError::BadAttribute {
            name: "perm",
            value: AttrValue::Ints(p.to_vec()),
            why: Box::new(AttrProblem::NotPermutation(r)),
        })?,
    };
    Ok(vec![transposed(&ctx.alg, &x, dims, &perm)])
}

/// The error of an OpenVINO or oneDNN `order` that is not a permutation.
fn bad_order(order: &[i64], rank: usize) -> OpError {
    OpError::BadShapeValue(Box::new(ShapeValueProblem::NotPermutation {
        order: order.to_vec(),
        rank,
    }))
}

/// OpenVINO `Transpose` (`order` input; empty reverses the axes).
fn ov_transpose(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "data")?;
    let o = ctx.input(node, 1, "order")?;
    let Some(dims) = &x.shape else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let Some(order) = const_ints(&ctx.alg, &o) else {
        let d = fresh_dims(ctx, node, 0, dims.len());
        return Ok(vec![TensorFact::new(x.dtype, d)]);
    };
    let perm: Vec<usize> = if order.is_empty() {
        (0..dims.len()).rev().collect()
    } else {
        permutation(&order, dims.len(), true).ok_or_else(|| bad_order(&order, dims.len()))?
    };
    Ok(vec![transposed(&ctx.alg, &x, dims, &perm)])
}

/// oneDNN `StaticTranspose` (`order` attribute; the type is `dst_dtype` when set).
fn onednn_static_transpose(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "src")?;
    let order = attr_ints(node, "order")?.ok_or(OpError::MissingAttribute { name: "order" })?;
    let dtype = dst_dtype(node, x.dtype)?;
    let Some(dims) = &x.shape else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    let perm = permutation(order, dims.len(), true).ok_or_else(|| bad_order(order, dims.len()))?;
    let mut out = transposed(&ctx.alg, &x, dims, &perm);
    out.dtype = dtype;
    Ok(vec![out])
}
