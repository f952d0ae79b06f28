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
//!   the indices are computed ([`non_zero_fact`]); when every element is one
//!   known constant (`ConstantOfShape` over a symbolic shape, rank 1 or more), the
//!   count is `∏ shape` for a non-zero fill and `0` for a zero one.
//!
//! * OpenVINO `Unique`: one data-dependent count `u` (prefix `uniq`): the unique
//!   elements are `[u]` (flattened) or the data's shape with `u` on `axis` (the
//!   optional input 1), the first-occurrence indices and the counts `[u]`, the
//!   reverse indices as long as the data (flattened) or its `axis` dim. Index types:
//!   `index_element_type` and `count_element_type` (i64 by default).
//! * OpenVINO `SparseFillEmptyRows`: `[n, 2]` indices and `[n]` values for a
//!   data-dependent `n`, and the empty-row indicator `[dense_shape[0]]` (bool).
//!
//! ONNX `Compress` and `Unique` select by the data too (ONNX `NonMaxSuppression`
//! is with the other detection ops, in [`crate::ops::nn::detection`]); their counts are
//! data-dependent dims (`ctx.unknown_dim`) unless the contents that decide them
//! are known:
//!
//! * `Compress`: `condition` (1-D bool) picks slices along `axis` (the input's
//!   shape with the count of true entries there), or elements of the flattened
//!   input without `axis` (`[count]`); a condition shorter than the axis drops the
//!   rest, the entries of a longer one beyond it are ignored (as onnxruntime does).
//!   When the condition is known the count is computed ([`compress_count`]): the
//!   true entries below the length, or, for a symbolic length `L`, the sum over
//!   the true entries `k` of `min(max(L - k, 0), 1)`; so are the contents of a
//!   small known input.
//! * `Unique`: `Y` is `[u]` (flattened) or the input's shape with `u` on `axis`;
//!   `indices` and `counts` are `[u]`, `inverse_indices` as long as the flattened
//!   input (or its `axis` dim); the three index outputs are int64. For a small
//!   input of known contents every output is computed ([`unique_values`]), sorted
//!   or in order of first occurrence as `sorted` says.
//!
//! Special values: ONNX's axis defaults to -1, OpenVINO's is required; the indices
//! are int64 in ONNX, OpenVINO's `index_element_type` (default i32) and
//! `output_type` (default i64) choose theirs.
//!
//! # Version history
//! * ONNX **TopK**: 1 (`k` attribute); 10 (`K` input); 11 (`largest`, `sorted`,
//!   negative axis); 24 (types).
//! * ONNX **NonZero**: 9; 13.
//! * ONNX **Compress**: 9; 11 (negative `axis`); 28 (bf16).
//! * ONNX **Unique**: 11; 28 (bf16).
//! * OpenVINO **TopK**: 1; 3 (`index_element_type`); 11 (`stable`).
//! * OpenVINO **NonZero**: 3 (`output_type`).
//! * OpenVINO **Unique**: 10. **SparseFillEmptyRows**: 16.

use crate::algebra::{Dim, Rat, SymbolKind, Truth};
use crate::context::ShapeValueProblem;
use crate::context::{Allowed, Expected, OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};
use crate::ops::common::attrs::{attr_int, attr_int_required};
use crate::ops::common::attrs::{ov_dtype, ov_i64};
use crate::ops::common::dims::{expect_rank, rank_of, shaped};
use crate::ops::common::values::small_value;
use crate::ops::common::{check_inputs, norm_axis};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["TopK"], top_k),
    ("", ["NonZero"], non_zero),
    ("", ["Compress"], compress),
    ("", ["Unique"], unique),
    ("openvino", ["TopK"], ov_top_k),
    ("openvino", ["NonZero"], ov_non_zero),
    ("openvino", ["Unique"], ov_unique),
    ("openvino", ["SparseFillEmptyRows"], ov_sparse_fill_empty_rows),
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
                return Err(OpError::BadShapeValue(Box::new(
                    ShapeValueProblem::NegativeK(ctx.alg.expr(k)),
                )));
            }
            match beyond {
                KBeyondAxis::Clamp => ctx.alg.min(k, d),
                KBeyondAxis::Error if ctx.alg.le(k, d) == Truth::False => {
                    return Err(OpError::BadShapeValue(Box::new(
                        ShapeValueProblem::KExceedsAxis {
                            k: ctx.alg.expr(k),
                            axis,
                            len: ctx.alg.expr(d),
                        },
                    )));
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
                return Err(rank_of(
                    "K (a 1-D tensor of one element)",
                    Expected::Described("[1]"),
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
    if let Some(f) = uniform_non_zero(ctx, x, dtype) {
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

/// NonZero of an input of known shape whose elements all hold one value (a
/// constant, or a dim such as the `S` of a sum of ones along `S`): every index when
/// it is provably non-zero (`[rank, ∏ shape]`), none when it is zero (`[rank, 0]`),
/// `None` when undecided; rank 1 and above. The count is a product in the algebra, whatever the size.
fn uniform_non_zero(ctx: &mut ShapesContext, x: &TensorFact, dtype: DType) -> Option<TensorFact> {
    // a scalar input is left to `known_non_zero` (its value is one element)
    let shape = x.shape.clone().filter(|s| !s.is_empty())?;
    let fill = x.uniform(&ctx.alg)?;
    let rank = ctx.alg.constant(shape.len() as i64);
    let count = if ctx.alg.as_const(fill).is_some_and(|v| v.is_zero()) {
        ctx.alg.constant(0)
    } else if ctx.alg.nonzero(fill) {
        ctx.alg.product(&shape)
    } else {
        return None;
    };
    Some(TensorFact::new(dtype, vec![rank, count]))
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
        fill: None,
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

/// The positions of the true entries of a known `Compress` condition (the slices
/// it keeps); `None` when an entry is not a constant.
pub fn compress_count(alg: &crate::algebra::Algebra, condition: &[Dim]) -> Option<Vec<usize>> {
    let mut kept = Vec::new();
    for (i, c) in condition.iter().enumerate() {
        if !alg.as_const(*c)?.is_zero() {
            kept.push(i);
        }
    }
    Some(kept)
}

/// ONNX `Compress` (9, 11, 28).
fn compress(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "input")?;
    let cond = ctx.input(node, 1, "condition")?;
    if let Some(c) = &cond.shape {
        expect_rank("condition", c, 1)?;
    }
    if cond.dtype != DType::Bool && cond.dtype != DType::Undefined {
        return Err(OpError::UnsupportedType {
            dtype: cond.dtype,
            what: "condition",
            allowed: Allowed::Types(vec![DType::Bool]),
        });
    }
    let axis = match node.attr("axis") {
        None => None,
        Some(_) => Some(attr_int(node, "axis", 0)?),
    };
    let Some(xs) = x.shape.clone() else {
        if axis.is_none() {
            let n = ctx.unknown_dim(node, 0, 0);
            return Ok(vec![TensorFact::new(x.dtype, vec![n])]);
        }
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let axis = match axis {
        Some(a) => Some(norm_axis(a, xs.len())?),
        None => None,
    };
    // The length the condition applies to: the axis, or every element.
    let len = match axis {
        Some(a) => xs[a],
        None => ctx.alg.product(&xs),
    };
    // A condition longer than the selected length has its extra entries ignored
    // (onnxruntime; the spec only speaks of shorter ones).
    let all = cond
        .value
        .as_deref()
        .and_then(|c| compress_count(&ctx.alg, c));
    let (kept, n) = match all {
        // the length is known: the true entries below it
        Some(all) if ctx.alg.as_i64(len).is_some() => {
            let l = ctx.alg.as_i64(len).unwrap_or(0);
            let kept: Vec<usize> = all.into_iter().filter(|k| (*k as i64) < l).collect();
            let n = ctx.alg.constant(kept.len() as i64);
            (Some(kept), n)
        }
        // a symbolic length: entry k counts when k < len, min(max(len - k, 0), 1)
        Some(all) => {
            let (zero, one) = (ctx.alg.constant(0), ctx.alg.constant(1));
            let terms: Vec<Dim> = all
                .iter()
                .map(|&k| {
                    let k = ctx.alg.constant(k as i64);
                    let rest = ctx.alg.sub(len, k);
                    let rest = ctx.alg.max(rest, zero);
                    ctx.alg.min(rest, one)
                })
                .collect();
            (None, ctx.alg.sum(&terms))
        }
        None => (None, ctx.unknown_dim(node, 0, axis.unwrap_or(0))),
    };
    let out = match axis {
        Some(a) => {
            let mut out = xs.clone();
            out[a] = n;
            out
        }
        None => vec![n],
    };
    // The contents of a small known input.
    let value = (|| {
        let kept = kept?;
        let (dims, value) = small_value(&ctx.alg, &x)?;
        match axis {
            Some(a) => {
                let kept: Vec<usize> = kept.into_iter().filter(|k| *k < dims[a]).collect();
                Some(
                    axis_positions(&dims, a, &kept)
                        .into_iter()
                        .map(|i| value[i])
                        .collect(),
                )
            }
            None => Some(kept.iter().filter_map(|&i| value.get(i).copied()).collect()),
        }
    })();
    Ok(vec![TensorFact {
        fill: None,
        dtype: x.dtype,
        shape: Some(out),
        value,
    }])
}

/// The outputs of a `Unique` of known contents: `Y`'s values and its length along
/// the axis, and the `indices`, `inverse_indices` and `counts` values. `shape` is
/// the input's (constant) shape; `axis` `None` flattens it. `None` when an element
/// is not a constant.
pub fn unique_values(
    alg: &crate::algebra::Algebra,
    value: &[Dim],
    shape: &[usize],
    axis: Option<usize>,
    sorted: bool,
) -> Option<UniqueValues> {
    let consts: Vec<Rat> = value
        .iter()
        .map(|v| alg.as_const(*v))
        .collect::<Option<_>>()?;
    // Slices along the axis (single elements when flattened), as flat positions.
    let count = axis.map_or(consts.len(), |a| shape[a]);
    let slice_of = |k: usize| -> Vec<usize> {
        match axis {
            None => vec![k],
            Some(a) => axis_positions(shape, a, &[k]),
        }
    };
    let key =
        |k: usize| -> Vec<Rat> { slice_of(k).into_iter().map(|i| consts[i].clone()).collect() };
    // First occurrences, in input order.
    let mut firsts: Vec<usize> = Vec::new();
    let mut keys: Vec<Vec<Rat>> = Vec::new();
    let mut inverse_first: Vec<usize> = Vec::with_capacity(count);
    let mut counts: Vec<i64> = Vec::new();
    for k in 0..count {
        let kk = key(k);
        match keys.iter().position(|x| *x == kk) {
            Some(p) => {
                inverse_first.push(p);
                counts[p] += 1;
            }
            None => {
                inverse_first.push(keys.len());
                keys.push(kk);
                firsts.push(k);
                counts.push(1);
            }
        }
    }
    // The output order: sorted ascending (lexicographic for slices) or first occurrence.
    let mut order: Vec<usize> = (0..keys.len()).collect();
    if sorted {
        order.sort_by(|a, b| keys[*a].cmp(&keys[*b]));
    }
    let mut rank_of = vec![0usize; keys.len()];
    for (pos, &u) in order.iter().enumerate() {
        rank_of[u] = pos;
    }
    let picks: Vec<usize> = order.iter().map(|&u| firsts[u]).collect();
    let y_idx = match axis {
        None => picks,
        Some(a) => axis_positions(shape, a, &picks),
    };
    Some(UniqueValues {
        len: keys.len(),
        y: y_idx.into_iter().map(|i| value[i]).collect(),
        indices: order.iter().map(|&u| firsts[u] as i64).collect(),
        inverse: inverse_first.iter().map(|&u| rank_of[u] as i64).collect(),
        counts: order.iter().map(|&u| counts[u]).collect(),
    })
}

/// The flat (row-major) positions of a tensor of `shape` restricted to the
/// entries `picks` of `axis`, in order.
fn axis_positions(shape: &[usize], axis: usize, picks: &[usize]) -> Vec<usize> {
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape[axis + 1..].iter().product();
    let mut out = Vec::with_capacity(outer * picks.len() * inner);
    for o in 0..outer {
        for &k in picks {
            let base = (o * shape[axis] + k) * inner;
            out.extend(base..base + inner);
        }
    }
    out
}

/// What [`unique_values`] computes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UniqueValues {
    /// The number of unique elements (or slices).
    pub len: usize,
    /// `Y`'s contents, row-major.
    pub y: Vec<Dim>,
    /// Each unique element's first occurrence.
    pub indices: Vec<i64>,
    /// Each input element's (or slice's) position in `Y`.
    pub inverse: Vec<i64>,
    /// How often each unique element occurs.
    pub counts: Vec<i64>,
}

/// ONNX `Unique` (11, 28).
fn unique(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    if node.outputs.is_empty() {
        return Err(OpError::NoOutput);
    }
    let x = ctx.input(node, 0, "X")?;
    let sorted = attr_int(node, "sorted", 1)? != 0;
    let axis = match node.attr("axis") {
        None => None,
        Some(_) => Some(attr_int(node, "axis", 0)?),
    };
    let i64s = |shape: Option<Vec<Dim>>| shaped(DType::Int64, shape);
    let Some(xs) = x.shape.clone() else {
        let u = ctx.unknown_dim(node, 0, 0);
        let y = if axis.is_some() {
            TensorFact::unknown(x.dtype)
        } else {
            TensorFact::new(x.dtype, vec![u])
        };
        let inverse = if axis.is_some() {
            TensorFact::unknown(DType::Int64)
        } else {
            let n = ctx.unknown_dim(node, 2, 0);
            TensorFact::new(DType::Int64, vec![n])
        };
        return Ok(vec![y, i64s(Some(vec![u])), inverse, i64s(Some(vec![u]))]);
    };
    let axis = match axis {
        Some(a) => Some(norm_axis(a, xs.len())?),
        None => None,
    };
    let known = small_value(&ctx.alg, &x)
        .and_then(|(dims, value)| unique_values(&ctx.alg, &value, &dims, axis, sorted));
    let u = match &known {
        Some(k) => ctx.alg.constant(k.len as i64),
        None => ctx.unknown_dim(node, 0, axis.unwrap_or(0)),
    };
    let (y_shape, inverse_len) = match axis {
        Some(a) => {
            let mut y = xs.clone();
            y[a] = u;
            (y, xs[a])
        }
        None => (vec![u], ctx.alg.product(&xs)),
    };
    let mut y = TensorFact::new(x.dtype, y_shape);
    let mut indices = TensorFact::new(DType::Int64, vec![u]);
    let mut inverse = TensorFact::new(DType::Int64, vec![inverse_len]);
    let mut counts = TensorFact::new(DType::Int64, vec![u]);
    if let Some(k) = known {
        let c = |alg: &mut crate::algebra::Algebra, v: &[i64]| -> Vec<Dim> {
            v.iter().map(|x| alg.constant(*x)).collect()
        };
        y.value = Some(k.y);
        indices.value = Some(c(&mut ctx.alg, &k.indices));
        inverse.value = Some(c(&mut ctx.alg, &k.inverse));
        counts.value = Some(c(&mut ctx.alg, &k.counts));
    }
    Ok(vec![y, indices, inverse, counts])
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
