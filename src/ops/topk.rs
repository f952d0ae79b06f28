//! Selections that depend on the data: ONNX `TopK` and `NonZero`, OpenVINO `TopK`,
//! `NonZero`, `Unique` and `SparseFillEmptyRows`.
//!
//! Specs: the ONNX operator reference (`TopK`, `NonZero`) and the OpenVINO
//! operation specification (`TopK-1`, `-3`, `-11`, `NonZero-3`, `Unique-10`,
//! `SparseFillEmptyRows-16`).
//!
//! * `TopK`: the values and the indices have the input's shape with `k` on `axis`
//!   ([`topk_dims`]). `k` is the value of the `K` input (symbolic when it was
//!   computed from shapes), or a data-dependent fresh dim when unknown. A negative
//!   `k` is an error. The formats differ for a `k` larger than the axis
//!   ([`KBeyondAxis`]): an error in ONNX, `min(k, d)` elements in OpenVINO.
//! * `NonZero`: `[rank, nz]` where `nz` is a data-dependent fresh dim (prefix
//!   `nz`); when the input's contents are known (a small constant), the count and
//!   the indices are computed ([`non_zero_fact`]).
//!
//! * OpenVINO `Unique`: one data-dependent count `u` (prefix `uniq`): the unique
//!   elements are `[u]` (flattened) or the data's shape with `u` on `axis` (the
//!   optional input 1), the first-occurrence indices and the counts `[u]`, the
//!   reverse indices as long as the data (flattened) or its `axis` dim. Index types:
//!   `index_element_type` and `count_element_type` (i64 by default).
//! * OpenVINO `SparseFillEmptyRows`: `[n, 2]` indices and `[n]` values for a
//!   data-dependent `n`, and the empty-row indicator `[dense_shape[0]]` (bool).
//!
//! Special values: ONNX's axis defaults to -1, OpenVINO's is required; the indices
//! are int64 in ONNX, OpenVINO's `index_element_type` (default i32) and
//! `output_type` (default i64) choose theirs.
//!
//! # Version history
//! * ONNX **TopK**: 1 (`k` attribute); 10 (`K` input); 11 (`largest`, `sorted`,
//!   negative axis); 24 (types).
//! * ONNX **NonZero**: 9; 13.
//! * OpenVINO **TopK**: 1; 3 (`index_element_type`); 11 (`stable`).
//! * OpenVINO **NonZero**: 3 (`output_type`).
//! * OpenVINO **Unique**: 10. **SparseFillEmptyRows**: 16.

use super::attrs::{ov_dtype, ov_i64};
use super::nn_util::{rank_error, shaped};
use super::{attr_int, attr_int_required, check_inputs, norm_axis, RuleEntry};
use crate::algebra::{Dim, SymbolKind, Truth};
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};

/// The rules of this family.
pub const RULES: &[RuleEntry] = &[
    ("", "TopK", top_k),
    ("", "NonZero", non_zero),
    ("openvino", "TopK", ov_top_k),
    ("openvino", "NonZero", ov_non_zero),
    ("openvino", "Unique", ov_unique),
    ("openvino", "SparseFillEmptyRows", ov_sparse_fill_empty_rows),
];

/// NonZero computes the indices of a known input with at most this many elements.
const NONZERO_VALUE_LIMIT: usize = 64;

/// What TopK does with a `k` larger than the axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KBeyondAxis {
    /// An error (ONNX).
    Error,
    /// `min(k, d)` elements (OpenVINO).
    Clamp,
}

/// The output dims of a TopK of `k` elements (`None`: unknown, a fresh dim) along
/// the normalised `axis` of `dims`.
pub fn topk_dims(
    ctx: &mut ShapesContext,
    node: &Node,
    dims: &[Dim],
    axis: usize,
    k: Option<Dim>,
    beyond: KBeyondAxis,
) -> Result<Vec<Dim>, OpError> {
    let d = dims[axis];
    let k = match k {
        Some(k) => {
            let zero = ctx.alg.constant(0);
            if ctx.alg.le(zero, k) == Truth::False {
                return Err(OpError::BadShapeValue {
                    what: format!("k = {} is negative", ctx.alg.render(k)),
                });
            }
            match beyond {
                KBeyondAxis::Clamp => ctx.alg.min(k, d),
                KBeyondAxis::Error if ctx.alg.le(k, d) == Truth::False => {
                    return Err(OpError::BadShapeValue {
                        what: format!(
                            "k = {} exceeds axis {axis} of length {}",
                            ctx.alg.render(k),
                            ctx.alg.render(d)
                        ),
                    });
                }
                KBeyondAxis::Error => k,
            }
        }
        None => ctx.unknown_dim(node, 0, axis),
    };
    let mut out = dims.to_vec();
    out[axis] = k;
    Ok(out)
}

/// The values and indices facts of a TopK.
fn topk_facts(dtype: DType, index: DType, dims: Vec<Dim>) -> Vec<TensorFact> {
    vec![
        TensorFact::new(dtype, dims.clone()),
        TensorFact::new(index, dims),
    ]
}

/// ONNX `TopK` (1: `k` attribute; 10: `K` input).
fn top_k(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let x = ctx.input(node, 0, "X")?;
    let k: Option<Dim> = if node.version < 10 {
        check_inputs(node, 1, 1)?;
        let k = attr_int_required(node, "k")?;
        Some(ctx.alg.constant(k))
    } else {
        check_inputs(node, 2, 2)?;
        let kf = ctx.input(node, 1, "K")?;
        if let Some(s) = &kf.shape {
            let one = ctx.alg.constant(1);
            let ok = s.is_empty() || (s.len() == 1 && ctx.alg.equal(s[0], one) != Truth::False);
            if !ok {
                return Err(rank_error(
                    "K (a 1-D tensor of one element)",
                    "[1]",
                    s.len(),
                ));
            }
        }
        kf.value.as_ref().and_then(|v| (v.len() == 1).then(|| v[0]))
    };
    let Some(xs) = &x.shape else {
        return Ok(vec![
            TensorFact::unknown(x.dtype),
            TensorFact::unknown(DType::Int64),
        ]);
    };
    let axis = norm_axis(attr_int(node, "axis", -1)?, xs.len())?;
    let out = topk_dims(ctx, node, xs, axis, k, KBeyondAxis::Error)?;
    Ok(topk_facts(x.dtype, DType::Int64, out))
}

/// OpenVINO `TopK` (1, 3: `index_element_type`, 11).
fn ov_top_k(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "data")?;
    let k = ctx.input(node, 1, "k")?;
    let index = ov_dtype(node, "index_element_type")?.unwrap_or(DType::Int32);
    let Some(xs) = &x.shape else {
        return Ok(vec![
            TensorFact::unknown(x.dtype),
            TensorFact::unknown(index),
        ]);
    };
    let axis = ov_i64(node, "axis")?.ok_or(OpError::MissingAttribute { name: "axis" })?;
    let axis = norm_axis(axis, xs.len())?;
    let k = match k.value.as_deref() {
        Some([k]) => Some(*k),
        _ => None,
    };
    let out = topk_dims(ctx, node, xs, axis, k, KBeyondAxis::Clamp)?;
    Ok(topk_facts(x.dtype, index, out))
}

/// The fact of a NonZero of `x`: its indices as a `dtype` tensor `[rank, nz]`,
/// computed when `x`'s contents are a small known constant.
pub fn non_zero_fact(
    ctx: &mut ShapesContext,
    node: &Node,
    x: &TensorFact,
    dtype: DType,
) -> TensorFact {
    if let Some(mut f) = known_non_zero(ctx, x) {
        f.dtype = dtype;
        return f;
    }
    let rank = match x.rank() {
        Some(r) => ctx.alg.constant(r as i64),
        None => ctx.unknown_dim(node, 0, 0),
    };
    let kind = SymbolKind::DataDependent {
        node: node.name.clone(),
    };
    let nz = ctx.fresh_dim(node, 0, 1, "nz", kind);
    TensorFact::new(dtype, vec![rank, nz])
}

/// NonZero of a small input whose value and shape are constants.
fn known_non_zero(ctx: &mut ShapesContext, x: &TensorFact) -> Option<TensorFact> {
    let shape: Vec<i64> = x
        .shape
        .as_ref()?
        .iter()
        .map(|d| ctx.alg.as_i64(*d))
        .collect::<Option<_>>()?;
    let values = x.value.as_ref()?;
    if values.len() > NONZERO_VALUE_LIMIT {
        return None;
    }
    let mut nonzero = Vec::new();
    for (i, v) in values.iter().enumerate() {
        let c = ctx.alg.as_const(*v)?;
        if !c.is_zero() {
            nonzero.push(i);
        }
    }
    let rank = shape.len();
    let mut rows: Vec<Vec<i64>> = vec![Vec::with_capacity(nonzero.len()); rank];
    for flat in &nonzero {
        let mut rem = *flat as i64;
        for a in (0..rank).rev() {
            let d = shape[a].max(1);
            rows[a].push(rem % d);
            rem /= d;
        }
    }
    let value: Vec<Dim> = rows
        .iter()
        .flatten()
        .map(|v| ctx.alg.constant(*v))
        .collect();
    let r = ctx.alg.constant(rank as i64);
    let n = ctx.alg.constant(nonzero.len() as i64);
    Some(TensorFact {
        dtype: DType::Int64,
        shape: Some(vec![r, n]),
        value: Some(value),
    })
}

/// ONNX `NonZero`: int64 indices.
fn non_zero(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "X")?;
    Ok(vec![non_zero_fact(ctx, node, &x, DType::Int64)])
}

/// OpenVINO `NonZero` (3: `output_type`).
fn ov_non_zero(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "data")?;
    let dtype = ov_dtype(node, "output_type")?.unwrap_or(DType::Int64);
    Ok(vec![non_zero_fact(ctx, node, &x, dtype)])
}

/// OpenVINO `Unique-10`.
fn ov_unique(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 2)?;
    let x = ctx.input(node, 0, "data")?;
    let index = ov_dtype(node, "index_element_type")?.unwrap_or(DType::Int64);
    let count = ov_dtype(node, "count_element_type")?.unwrap_or(DType::Int64);
    let kind = SymbolKind::DataDependent {
        node: node.name.clone(),
    };
    let u = ctx.fresh_dim(node, 0, 0, "uniq", kind);
    let axis = match node.input(1) {
        Some(_) => {
            let a = ctx.input(node, 1, "axis")?;
            match a.value.as_deref() {
                Some([v]) => ctx.alg.as_i64(*v).map(Some),
                _ => None,
            }
        }
        None => Some(None),
    };
    let (elements, reverse) = match (&x.shape, axis) {
        (Some(s), Some(Some(a))) => {
            let a = norm_axis(a, s.len())?;
            let mut e = s.clone();
            e[a] = u;
            (Some(e), Some(vec![s[a]]))
        }
        (Some(s), Some(None)) => (Some(vec![u]), Some(vec![ctx.alg.product(s)])),
        (_, Some(None)) => (Some(vec![u]), None),
        _ => (None, None),
    };
    Ok(vec![
        shaped(x.dtype, elements),
        TensorFact::new(index, vec![u]),
        shaped(index, reverse),
        TensorFact::new(count, vec![u]),
    ])
}

/// OpenVINO `SparseFillEmptyRows-16`: inputs values `[n]`, dense_shape `[2]`,
/// indices `[n, 2]`, default_value.
fn ov_sparse_fill_empty_rows(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 4, 4)?;
    let values = ctx.input(node, 0, "values")?;
    let dense = ctx.input(node, 1, "dense_shape")?;
    let indices = ctx.input(node, 2, "indices")?;
    let kind = SymbolKind::DataDependent {
        node: node.name.clone(),
    };
    let n = ctx.fresh_dim(node, 0, 0, "unk", kind);
    let two = ctx.alg.constant(2);
    let rows = match dense.value.as_deref() {
        Some([r, _]) => *r,
        _ => ctx.unknown_dim(node, 2, 0),
    };
    Ok(vec![
        TensorFact::new(indices.dtype, vec![n, two]),
        TensorFact::new(values.dtype, vec![n]),
        TensorFact::new(DType::Bool, vec![rows]),
    ])
}
