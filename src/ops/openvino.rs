//! OpenVINO opset shape rules (domain `openvino`).
//!
//! IR attributes arrive decoded by the reader (`crate::openvino::to_graph`):
//! [`ov_bool`], [`ov_i64`], [`ov_i64_list`], [`ov_f64`], [`ov_str`] and [`ov_dtype`]
//! read them, and reject an attribute the reader left as text because it did not
//! read as its kind. Layer types are registered as written in IR files (`SoftMax`,
//! `ReLU`, `PReLU`) and in the runtime spelling (`Softmax`, `Relu`, `PRelu`).
//!
//! Specs followed: the OpenVINO operation specifications (`docs/articles_en/
//! documentation/openvino-ir-format/operation-sets/operation-specs`), per op version:
//!
//! | op | versions | shape |
//! | --- | --- | --- |
//! | `Convert`, `ConvertLike`, `Identity`, `ShuffleChannels` | all | the data shape |
//! | `ShapeOf` | 1 (i64), 3 (`output_type`) | `[rank]`, value = the dims |
//! | `Gather` | 1 (axis input), 7 (`batch_dims`), 8 (negative indices) | `data[:axis] + indices[batch_dims:] + data[axis+1:]` |
//! | `Concat` | 1 | sum on `axis`, other dims equal |
//! | `Squeeze` | 1, 15 (`allow_axis_skip`) | removes size-1 axes |
//! | `Unsqueeze` | 1 | inserts size-1 axes (axes against the output rank) |
//! | `Transpose` | 1 | permutation (empty order reverses) |
//! | `Broadcast` | 1 (numpy/explicit/pdpd), 3 (+bidirectional) | target shape |
//! | `Tile` | 0 | dims times repeats |
//! | `Pad` | 1 (pads >= 0), 12 (negative pads) | `d + begin + end` |
//! | `Slice` | 8 | start/stop/step/axes, clamped |
//! | `StridedSlice` | 1 | masks: begin, end, new_axis, shrink_axis, ellipsis |
//! | `Split`, `VariadicSplit` | 1 | equal parts / lengths with one `-1` |
//! | `Range` | 1, 4 (`output_type`) | `max(ceil((stop - start) / step), 0)` |
//! | `DepthToSpace`, `SpaceToDepth` | 0 | block_size moves |
//! | `TopK` | 1, 3, 11 | `axis` dim = `min(k, dim)` |
//! | `NonZero` | 3 | `[rank, unk]` |
//!
//! Values (the contents of small tensors, up to [`VALUE_FACT_LIMIT`] elements) flow
//! through the ops shape subgraphs use: ShapeOf, Gather, Concat, Convert, Squeeze,
//! Unsqueeze, Transpose, Broadcast, Slice, StridedSlice, Split, VariadicSplit and
//! Range.
//!
//! An input of unknown rank gives outputs of unknown rank, with no diagnostic (as
//! OpenVINO gives dynamic rank). `Reshape` and `StaticReshape` are not here
//! (`src/ops/reshape.rs`); they read their attributes with the parsers above.
//!
//! The helpers marked *shared* below are also used by the oneDNN rules; several
//! could later share code with the ONNX families (see each one's doc).

use super::attrs::{ov_bool, ov_dtype, ov_i64, ov_i64_list, ov_str};
use super::broadcast::broadcast_shapes;
use super::concat::concat_dims;
use super::nn_util::merge_dim;
use super::values::transpose_values;
use super::values::{
    broadcast_value_to, const_dims, const_ints, fact_with_counted_value, select_values_checked,
    value_shape,
};
use super::{check_inputs, norm_axis, RuleEntry};
use super::{fresh_dims, unknown_outputs};
use crate::algebra::{Dim, Rat, Truth};
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::VALUE_FACT_LIMIT;
use crate::graph::{DType, Node};

/// The OpenVINO domain.
pub const DOMAIN: &str = "openvino";

// ===================================================================================
// Attribute parsing (IR `<data>` strings, or typed values)
// ===================================================================================

// ===================================================================================
// Shared helpers (also used by the oneDNN rules)
// ===================================================================================

/// An integer dtype (bool included): arithmetic on values is integer arithmetic.
fn is_int(t: DType) -> bool {
    t.is_integer() || t == DType::Bool
}

/// *Shared.* Normalise a permutation of `rank` axes (negative entries count from the
/// end); an error when it is not a permutation.
pub fn permutation(order: &[i64], rank: usize) -> Result<Vec<usize>, OpError> {
    let bad = || OpError::BadShapeValue {
        what: format!("transpose order {order:?} is not a permutation of {rank} axes"),
    };
    if order.len() != rank {
        return Err(bad());
    }
    let mut seen = vec![false; rank];
    let mut out = Vec::with_capacity(rank);
    for &o in order {
        let a = norm_axis(o, rank).map_err(|_| bad())?;
        if seen[a] {
            return Err(bad());
        }
        seen[a] = true;
        out.push(a);
    }
    Ok(out)
}

/// *Shared.* Normalise reduction axes; duplicates are an error.
pub fn reduce_axes(axes: &[i64], rank: usize) -> Result<Vec<usize>, OpError> {
    let mut out: Vec<usize> = Vec::with_capacity(axes.len());
    for &a in axes {
        let n = norm_axis(a, rank)?;
        if out.contains(&n) {
            return Err(OpError::BadShapeValue {
                what: format!("axes {axes:?} repeat axis {n}"),
            });
        }
        out.push(n);
    }
    Ok(out)
}

/// Constant slice bounds at or beyond `i32::MAX` (or `i32::MIN`) mean "to the end"
/// (or "from the start"): converters write `INT32_MAX` and `INT64_MAX` for an open
/// end. symdim assumes no dim reaches 2^31 - 1.
pub const SLICE_END: i64 = i32::MAX as i64;

/// *Shared.* One axis of a slice: the length of `start:stop:step` over a dim `d`
/// with clamping (negative indices count from the end; see [`SLICE_END`]). `step`
/// must be a non-zero constant.
pub fn slice_len(ctx: &mut ShapesContext, d: Dim, start: Dim, stop: Dim, step: i64) -> Option<Dim> {
    const BIG: i64 = SLICE_END;
    let zero = ctx.alg.constant(0);
    let one = ctx.alg.constant(1);
    // Normalise an index: negative ones count from the end, then clamp to [lo, hi].
    let norm = |ctx: &mut ShapesContext, x: Dim, lo: Dim, hi: Dim| -> Option<Dim> {
        if let Some(v) = ctx.alg.as_i64(x) {
            if v >= BIG {
                return Some(hi);
            }
            if v <= -BIG {
                return Some(lo);
            }
        }
        let b = ctx.alg.bounds(x);
        let shifted = if b.is_nonneg() {
            x
        } else if b.is_negative() {
            ctx.alg.add_dims(x, d)
        } else {
            return None;
        };
        let m = ctx.alg.min(shifted, hi);
        Some(ctx.alg.max(m, lo))
    };
    if step > 0 {
        let s = norm(ctx, start, zero, d)?;
        let e = norm(ctx, stop, zero, d)?;
        let diff = ctx.alg.sub(e, s);
        let st = ctx.alg.constant(step);
        let q = ctx.alg.ceildiv(diff, st);
        Some(ctx.alg.max(q, zero))
    } else if step < 0 {
        let minus_one = ctx.alg.constant(-1);
        let dm1 = ctx.alg.sub(d, one);
        let s = norm(ctx, start, minus_one, dm1)?;
        let e = norm(ctx, stop, minus_one, dm1)?;
        let diff = ctx.alg.sub(s, e);
        let st = ctx.alg.constant(-step);
        let q = ctx.alg.ceildiv(diff, st);
        Some(ctx.alg.max(q, zero))
    } else {
        None
    }
}

/// *Shared.* The indices a constant slice keeps along a constant dim.
pub fn slice_indices(d: i64, start: i64, stop: i64, step: i64) -> Option<Vec<usize>> {
    if step == 0 || d < 0 {
        return None;
    }
    let clamp = |x: i64, lo: i64, hi: i64| -> i64 {
        let x = if x < 0 { x.saturating_add(d) } else { x };
        x.clamp(lo, hi)
    };
    let mut out = Vec::new();
    if step > 0 {
        let (s, e) = (clamp(start, 0, d), clamp(stop, 0, d));
        let mut i = s;
        while i < e {
            out.push(i as usize);
            i = match i.checked_add(step) {
                Some(v) => v,
                None => break,
            };
            if out.len() > VALUE_FACT_LIMIT {
                return None;
            }
        }
    } else {
        let (s, e) = (clamp(start, -1, d - 1), clamp(stop, -1, d - 1));
        let mut i = s;
        while i > e {
            out.push(i as usize);
            i = match i.checked_add(step) {
                Some(v) => v,
                None => break,
            };
            if out.len() > VALUE_FACT_LIMIT {
                return None;
            }
        }
    }
    Some(out)
}

/// The dtype of output 0 from an element-type attribute, else `default`.
fn dtype_attr(node: &Node, name: &'static str, default: DType) -> Result<DType, OpError> {
    Ok(ov_dtype(node, name)?.unwrap_or(default))
}

/// A scalar (or one-element) integer input's value.
fn scalar_int(ctx: &ShapesContext, fact: &TensorFact) -> Option<i64> {
    match const_ints(&ctx.alg, fact)?.as_slice() {
        [v] => Some(*v),
        _ => None,
    }
}

/// A 1-D (or scalar) input's values as dims.
fn vec_values(fact: &TensorFact) -> Option<Vec<Dim>> {
    fact.value.clone()
}

/// The rank of a 1-D shape input when its length is a constant.
fn vec_len(ctx: &ShapesContext, fact: &TensorFact) -> Option<usize> {
    fact.static_len(&ctx.alg)
}

// ===================================================================================
// Elementwise
// ===================================================================================

/// Identity: the input fact, value included.
fn identity(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    Ok(vec![ctx.input(node, 0, "data")?])
}

/// Convert / ConvertLike: the type changes, the shape and (integer-valued) values stay.
fn convert(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let x = ctx.input(node, 0, "data")?;
    let dtype = if node.op_type == "ConvertLike" {
        ctx.input(node, 1, "like")?.dtype
    } else {
        dtype_attr(node, "destination_type", x.dtype)?
    };
    let value = x.value.as_ref().and_then(|v| {
        if dtype == DType::Bool {
            v.iter()
                .map(|d| {
                    let z = ctx.alg.constant(0);
                    match ctx.alg.equal(*d, z) {
                        Truth::True => Some(z),
                        Truth::False => Some(ctx.alg.constant(1)),
                        Truth::Unknown => None,
                    }
                })
                .collect()
        } else if is_int(dtype) && !is_int(x.dtype) {
            // Float to integer: kept only when the value is provably an integer.
            v.iter()
                .map(|d| {
                    let one = ctx.alg.constant(1);
                    (ctx.alg.divides(one, *d) == Truth::True).then_some(*d)
                })
                .collect()
        } else {
            Some(v.clone())
        }
    });
    Ok(vec![TensorFact {
        dtype,
        shape: x.shape,
        value,
    }])
}

// ===================================================================================
// Shape ops
// ===================================================================================

/// ShapeOf: `[rank]`, value = the dims (`output_type` i64 or i32 in opset 3).
fn shape_of(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "data")?;
    let dtype = dtype_attr(node, "output_type", DType::Int64)?;
    let Some(shape) = x.shape else {
        let d = ctx.unknown_dim(node, 0, 0);
        return Ok(vec![TensorFact::new(dtype, vec![d])]);
    };
    let n = ctx.alg.constant(shape.len() as i64);
    Ok(vec![fact_with_counted_value(
        &ctx.alg,
        dtype,
        vec![n],
        Some(shape),
    )])
}

/// Gather (1: axis input; 7: batch_dims; 8: negative indices).
fn gather(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let data = ctx.input(node, 0, "data")?;
    let idx = ctx.input(node, 1, "indices")?;
    let axis_t = ctx.input(node, 2, "axis")?;
    let dtype = data.dtype;
    let (Some(ds), Some(is)) = (data.shape.clone(), idx.shape.clone()) else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    let Some(axis) = scalar_int(ctx, &axis_t) else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    let axis = norm_axis(axis, ds.len())?;
    let bd = if node.version >= 7 {
        ov_i64(node, "batch_dims")?.unwrap_or(0)
    } else {
        0
    };
    let bd = if bd < 0 { bd + is.len() as i64 } else { bd };
    let bd = usize::try_from(bd).map_err(|_| OpError::BadAttribute {
        name: "batch_dims",
        value: bd.to_string(),
        why: format!("out of range for indices of rank {}", is.len()),
    })?;
    if bd > is.len() || bd > axis {
        return Err(OpError::BadAttribute {
            name: "batch_dims",
            value: bd.to_string(),
            why: format!(
                "must be at most the indices rank {} and the axis {axis}",
                is.len()
            ),
        });
    }
    for i in 0..bd {
        merge_dim(
            ctx,
            node,
            &|| format!("batch dim {i} of data and indices"),
            ds[i],
            is[i],
        )?;
    }
    let mut out: Vec<Dim> = ds[..axis].to_vec();
    out.extend_from_slice(&is[bd..]);
    out.extend_from_slice(&ds[axis + 1..]);
    let value = (|| {
        if bd != 0 {
            return None;
        }
        let dv = data.value.as_ref()?;
        let dsc = value_shape(&ctx.alg, &ds)?;
        let iv = const_ints(&ctx.alg, &idx)?;
        let n = dsc[axis];
        let picks: Vec<usize> = iv
            .iter()
            .map(|&i| {
                let j = if i < 0 { i + n } else { i };
                (0..n).contains(&j).then_some(j as usize)
            })
            .collect::<Option<_>>()?;
        // outer x picks x inner, row-major.
        let outer: usize = dsc[..axis].iter().map(|&d| d as usize).product();
        let inner: usize = dsc[axis + 1..].iter().map(|&d| d as usize).product();
        let mut v = Vec::new();
        for o in 0..outer {
            for &p in &picks {
                for k in 0..inner {
                    v.push(*dv.get((o * n as usize + p) * inner + k)?);
                }
            }
        }
        Some(v)
    })();
    Ok(vec![fact_with_counted_value(&ctx.alg, dtype, out, value)])
}

/// Concat: equal ranks, the `axis` dims add up, the other dims are equal.
fn concat(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let n = node.input_count();
    if n == 0 {
        return Err(OpError::InputCount {
            expected: "at least 1".to_string(),
            found: 0,
        });
    }
    let mut facts = Vec::with_capacity(n);
    for i in 0..n {
        facts.push(ctx.input(node, i, "input")?);
    }
    let dtype = facts[0].dtype;
    let Some(shapes) = facts
        .iter()
        .map(|f| f.shape.clone())
        .collect::<Option<Vec<_>>>()
    else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    let rank = shapes[0].len();
    let axis_attr = ov_i64(node, "axis")?.ok_or(OpError::MissingAttribute { name: "axis" })?;
    let axis = norm_axis(axis_attr, rank)?;
    let out = concat_dims(ctx, node, &shapes, axis)?;
    let value = (|| {
        let consts: Vec<Vec<i64>> = shapes
            .iter()
            .map(|s| value_shape(&ctx.alg, s))
            .collect::<Option<_>>()?;
        let outer: usize = consts[0][..axis].iter().map(|&d| d as usize).product();
        let mut v = Vec::new();
        for o in 0..outer {
            for (f, c) in facts.iter().zip(&consts) {
                let chunk: usize = c[axis..].iter().map(|&d| d as usize).product();
                let fv = f.value.as_ref()?;
                v.extend_from_slice(fv.get(o * chunk..(o + 1) * chunk)?);
            }
        }
        Some(v)
    })();
    Ok(vec![fact_with_counted_value(&ctx.alg, dtype, out, value)])
}

/// Squeeze (1; 15 with `allow_axis_skip`).
fn squeeze(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 2)?;
    let x = ctx.input(node, 0, "data")?;
    let Some(shape) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let skip = node.version >= 15 && ov_bool(node, "allow_axis_skip", false)?;
    let one = ctx.alg.constant(1);
    let mut remove = vec![false; shape.len()];
    match ctx.optional_input(node, 1)? {
        Some(axes_t) => {
            let Some(axes) = const_ints(&ctx.alg, &axes_t) else {
                return Ok(vec![TensorFact::unknown(x.dtype)]);
            };
            for a in axes {
                let a = norm_axis(a, shape.len())?;
                match ctx.alg.equal(shape[a], one) {
                    Truth::True => remove[a] = true,
                    Truth::False if skip => {}
                    Truth::False => {
                        return Err(OpError::BadShapeValue {
                            what: format!(
                                "axis {a} has size {}; only axes of size 1 can be squeezed",
                                ctx.alg.render(shape[a])
                            ),
                        })
                    }
                    Truth::Unknown if skip => return Ok(vec![TensorFact::unknown(x.dtype)]),
                    Truth::Unknown => {
                        merge_dim(ctx, node, &|| format!("squeezed axis {a}"), shape[a], one)?;
                        remove[a] = true;
                    }
                }
            }
        }
        None => {
            for (a, d) in shape.iter().enumerate() {
                match ctx.alg.equal(*d, one) {
                    Truth::True => remove[a] = true,
                    Truth::False => {}
                    Truth::Unknown => return Ok(vec![TensorFact::unknown(x.dtype)]),
                }
            }
        }
    }
    let out: Vec<Dim> = shape
        .iter()
        .zip(&remove)
        .filter(|(_, r)| !**r)
        .map(|(d, _)| *d)
        .collect();
    Ok(vec![fact_with_counted_value(
        &ctx.alg, x.dtype, out, x.value,
    )])
}

/// Unsqueeze: axes against the output rank; repeated axes are an error.
fn unsqueeze(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "data")?;
    let axes_t = ctx.input(node, 1, "axes")?;
    let Some(shape) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let Some(axes) = const_ints(&ctx.alg, &axes_t) else {
        return match vec_len(ctx, &axes_t) {
            Some(k) => {
                let d = fresh_dims(ctx, node, 0, shape.len() + k);
                Ok(vec![TensorFact::new(x.dtype, d)])
            }
            None => Ok(vec![TensorFact::unknown(x.dtype)]),
        };
    };
    let rank = shape.len() + axes.len();
    let mut ins = vec![false; rank];
    for a in &axes {
        let n = norm_axis(*a, rank)?;
        if ins[n] {
            return Err(OpError::BadShapeValue {
                what: format!("axes {axes:?} repeat axis {n}"),
            });
        }
        ins[n] = true;
    }
    let one = ctx.alg.constant(1);
    let mut it = shape.iter();
    let out: Vec<Dim> = ins
        .iter()
        .map(|&i| if i { one } else { *it.next().unwrap_or(&one) })
        .collect();
    Ok(vec![fact_with_counted_value(
        &ctx.alg, x.dtype, out, x.value,
    )])
}

/// Transpose: order input (empty = reverse).
fn transpose(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "data")?;
    let o = ctx.input(node, 1, "order")?;
    let Some(shape) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let Some(order) = const_ints(&ctx.alg, &o) else {
        let d = fresh_dims(ctx, node, 0, shape.len());
        return Ok(vec![TensorFact::new(x.dtype, d)]);
    };
    let perm: Vec<usize> = if order.is_empty() {
        (0..shape.len()).rev().collect()
    } else {
        permutation(&order, shape.len())?
    };
    transposed(ctx, x, &shape, &perm)
}

/// *Shared.* The fact of a transposed tensor.
pub fn transposed(
    ctx: &mut ShapesContext,
    x: TensorFact,
    shape: &[Dim],
    perm: &[usize],
) -> Result<Vec<TensorFact>, OpError> {
    let out: Vec<Dim> = perm.iter().map(|&p| shape[p]).collect();
    let value = x
        .value
        .as_ref()
        .and_then(|v| transpose_values(v, &value_shape(&ctx.alg, shape)?, perm));
    Ok(vec![fact_with_counted_value(&ctx.alg, x.dtype, out, value)])
}

/// Broadcast (1: numpy/explicit/pdpd; 3: + bidirectional).
fn broadcast(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 3)?;
    let x = ctx.input(node, 0, "data")?;
    let t = ctx.input(node, 1, "target_shape")?;
    let mode = ov_str(node, "mode")?
        .unwrap_or("numpy")
        .to_ascii_lowercase();
    let target: Option<Vec<Dim>> = match vec_values(&t) {
        Some(v) => Some(v),
        None => vec_len(ctx, &t).map(|k| fresh_dims(ctx, node, 0, k)),
    };
    let Some(target) = target else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let shape = match mode.as_str() {
        "numpy" | "pdpd" => {
            let Some(xs) = x.shape.clone() else {
                return Ok(vec![TensorFact::new(x.dtype, target)]);
            };
            if xs.len() > target.len() {
                return Err(OpError::Rank {
                    what: "data (numpy broadcast to the target shape)".to_string(),
                    expected: format!("at most {}", target.len()),
                    found: xs.len(),
                });
            }
            let off = target.len() - xs.len();
            let one = ctx.alg.constant(1);
            let mut out = target.clone();
            for (i, d) in xs.iter().enumerate() {
                let j = off + i;
                if ctx.alg.equal(*d, one) == Truth::True {
                    continue;
                }
                // The data dim is 1 or the target dim: when it cannot be 1, the two
                // are equal (and the target keeps its value otherwise).
                if !ctx.alg.bounds(*d).contains(&Rat::one()) {
                    out[j] = merge_dim(
                        ctx,
                        node,
                        &|| format!("axis {j} of data and target shape (numpy broadcast)"),
                        *d,
                        target[j],
                    )?;
                }
            }
            out
        }
        "bidirectional" => {
            let Some(xs) = x.shape.clone() else {
                return Ok(vec![TensorFact::unknown(x.dtype)]);
            };
            broadcast_shapes(ctx, &node.name, &xs, &target)?
        }
        "explicit" => {
            let m = ctx.input(node, 2, "axes_mapping")?;
            if let (Some(xs), Some(map)) = (x.shape.clone(), const_ints(&ctx.alg, &m)) {
                if map.len() != xs.len() {
                    return Err(OpError::BadShapeValue {
                        what: format!(
                            "axes_mapping {map:?} has {} entries for data of rank {}",
                            map.len(),
                            xs.len()
                        ),
                    });
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
                        merge_dim(
                            ctx,
                            node,
                            &|| format!("data dim mapped to axis {a}"),
                            *d,
                            target[a],
                        )?;
                    }
                }
            }
            target
        }
        other => {
            return Err(OpError::BadAttribute {
                name: "mode",
                value: other.to_string(),
                why: "expected numpy, explicit, bidirectional or pdpd".to_string(),
            })
        }
    };
    let value = (|| {
        let xv = x.value.as_ref()?;
        let from = value_shape(&ctx.alg, x.shape.as_ref()?)?;
        let to = value_shape(&ctx.alg, &shape)?;
        if mode == "explicit" {
            return None;
        }
        broadcast_value_to(xv, &from, &to)
    })();
    Ok(vec![fact_with_counted_value(
        &ctx.alg, x.dtype, shape, value,
    )])
}

/// Tile: `repeats` aligned on the right with the data dims.
fn tile(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "data")?;
    let r = ctx.input(node, 1, "repeats")?;
    let (Some(shape), Some(reps)) = (x.shape.clone(), vec_values(&r)) else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let n = shape.len().max(reps.len());
    let one = ctx.alg.constant(1);
    let out: Vec<Dim> = (0..n)
        .map(|i| {
            let d = (i + shape.len()).checked_sub(n).map_or(one, |j| shape[j]);
            let k = (i + reps.len()).checked_sub(n).map_or(one, |j| reps[j]);
            ctx.alg.mul(d, k)
        })
        .collect();
    Ok(vec![TensorFact::new(x.dtype, out)])
}

/// Range (1: type of `start`; 4: `output_type`): `max(ceil((stop - start) / step), 0)`
/// elements, values when small.
fn range(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let start = ctx.input(node, 0, "start")?;
    let stop = ctx.input(node, 1, "stop")?;
    let step = ctx.input(node, 2, "step")?;
    let dtype = if node.version >= 4 {
        dtype_attr(node, "output_type", start.dtype)?
    } else {
        start.dtype
    };
    let one_of = |f: &TensorFact| match f.value.as_deref() {
        Some([v]) => Some(*v),
        _ => None,
    };
    let (Some(a), Some(b), Some(s)) = (one_of(&start), one_of(&stop), one_of(&step)) else {
        let d = ctx.unknown_dim(node, 0, 0);
        return Ok(vec![TensorFact::new(dtype, vec![d])]);
    };
    let Some(sc) = ctx.alg.as_const(s) else {
        let d = ctx.unknown_dim(node, 0, 0);
        return Ok(vec![TensorFact::new(dtype, vec![d])]);
    };
    if sc.is_zero() {
        return Err(OpError::BadShapeValue {
            what: "step is 0".to_string(),
        });
    }
    let zero = ctx.alg.constant(0);
    let diff = ctx.alg.sub(b, a);
    let q = ctx.alg.div_rational(diff, s);
    let one = ctx.alg.constant(1);
    let c = ctx.alg.ceildiv(q, one);
    let len = ctx.alg.max(c, zero);
    let value = ctx.alg.as_i64(len).and_then(|n| {
        (0..=VALUE_FACT_LIMIT as i64).contains(&n).then(|| {
            (0..n)
                .map(|i| {
                    let k = ctx.alg.constant(i);
                    let off = ctx.alg.mul(k, s);
                    ctx.alg.add_dims(a, off)
                })
                .collect()
        })
    });
    Ok(vec![fact_with_counted_value(
        &ctx.alg,
        dtype,
        vec![len],
        value,
    )])
}

/// Split: `num_splits` equal parts along `axis`.
fn split(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "data")?;
    let axis_t = ctx.input(node, 1, "axis")?;
    let k = ov_i64(node, "num_splits")?.ok_or(OpError::MissingAttribute { name: "num_splits" })?;
    if k < 1 {
        return Err(OpError::BadAttribute {
            name: "num_splits",
            value: k.to_string(),
            why: "must be at least 1".to_string(),
        });
    }
    let outs = node.outputs.len();
    let (Some(shape), Some(axis)) = (x.shape.clone(), scalar_int(ctx, &axis_t)) else {
        return Ok(unknown_outputs(node, x.dtype));
    };
    let axis = norm_axis(axis, shape.len())?;
    let kd = ctx.alg.constant(k);
    let part = match ctx.alg.solve_minus_one(
        &[shape[axis]],
        &[kd],
        crate::algebra::FreshKey {
            node: node.name.clone(),
            output: 0,
            axis,
        },
    )? {
        crate::algebra::MinusOne::Exact(d) => d,
        crate::algebra::MinusOne::Fresh { dim, .. } => dim,
    };
    let parts = vec![part; outs.min(usize::try_from(k).unwrap_or(usize::MAX))];
    let value_parts = split_values(ctx, &x, &shape, axis, &parts);
    Ok((0..outs)
        .map(|i| {
            let mut s = shape.clone();
            s[axis] = part;
            let v = value_parts.as_ref().and_then(|p| p.get(i).cloned());
            fact_with_counted_value(&ctx.alg, x.dtype, s, v)
        })
        .collect())
}

/// The values of each part of a split along `axis`.
fn split_values(
    ctx: &ShapesContext,
    x: &TensorFact,
    shape: &[Dim],
    axis: usize,
    parts: &[Dim],
) -> Option<Vec<Vec<Dim>>> {
    let xv = x.value.as_ref()?;
    let sc = value_shape(&ctx.alg, shape)?;
    let lens = value_shape(&ctx.alg, parts)?;
    let mut out = Vec::new();
    let mut start = 0usize;
    for &l in &lens {
        let l = usize::try_from(l).ok()?;
        let picks: Vec<Vec<usize>> = sc
            .iter()
            .enumerate()
            .map(|(a, &d)| {
                if a == axis {
                    (start..start + l).collect()
                } else {
                    (0..d as usize).collect()
                }
            })
            .collect();
        out.push(select_values_checked(xv, &sc, &picks)?);
        start += l;
    }
    Some(out)
}

/// VariadicSplit: `split_lengths` along `axis`, one of them may be -1.
fn variadic_split(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let x = ctx.input(node, 0, "data")?;
    let axis_t = ctx.input(node, 1, "axis")?;
    let lens_t = ctx.input(node, 2, "split_lengths")?;
    let (Some(shape), Some(axis)) = (x.shape.clone(), scalar_int(ctx, &axis_t)) else {
        return Ok(unknown_outputs(node, x.dtype));
    };
    let axis = norm_axis(axis, shape.len())?;
    let Some(lens) = vec_values(&lens_t) else {
        return Ok((0..node.outputs.len())
            .map(|i| {
                let mut s = shape.clone();
                s[axis] = ctx.unknown_dim(node, i, axis);
                TensorFact::new(x.dtype, s)
            })
            .collect());
    };
    let minus_one = ctx.alg.constant(-1);
    let pos: Vec<usize> = lens
        .iter()
        .enumerate()
        .filter(|(_, d)| ctx.alg.as_i64(**d) == Some(-1))
        .map(|(i, _)| i)
        .collect();
    if pos.len() > 1 {
        return Err(OpError::BadShapeValue {
            what: "split_lengths has more than one -1".to_string(),
        });
    }
    let known: Vec<Dim> = lens
        .iter()
        .filter(|d| ctx.alg.equal(**d, minus_one) != Truth::True)
        .copied()
        .collect();
    let sum = ctx.alg.sum(&known);
    let mut parts = lens.clone();
    if let Some(&p) = pos.first() {
        let rest = ctx.alg.sub(shape[axis], sum);
        if ctx.alg.bounds(rest).is_negative() {
            return Err(OpError::BadShapeValue {
                what: format!(
                    "split_lengths add up to {}, more than the axis dim {}",
                    ctx.alg.render(sum),
                    ctx.alg.render(shape[axis])
                ),
            });
        }
        parts[p] = rest;
    } else {
        merge_dim(
            ctx,
            node,
            &|| format!("the sum of split_lengths and axis {axis}"),
            sum,
            shape[axis],
        )?;
    }
    let value_parts = split_values(ctx, &x, &shape, axis, &parts);
    Ok(parts
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let mut s = shape.clone();
            s[axis] = *d;
            let v = value_parts.as_ref().and_then(|p| p.get(i).cloned());
            fact_with_counted_value(&ctx.alg, x.dtype, s, v)
        })
        .collect())
}

/// Slice-8: start, stop, step, optional axes.
fn slice(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 4, 5)?;
    let x = ctx.input(node, 0, "data")?;
    let start = ctx.input(node, 1, "start")?;
    let stop = ctx.input(node, 2, "stop")?;
    let step = ctx.input(node, 3, "step")?;
    let axes_t = ctx.optional_input(node, 4)?;
    let Some(shape) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let (Some(sv), Some(ev), Some(stv)) = (
        vec_values(&start),
        vec_values(&stop),
        const_ints(&ctx.alg, &step),
    ) else {
        let mut out = shape.clone();
        let affected: Option<Vec<usize>> = match &axes_t {
            Some(a) => const_ints(&ctx.alg, a).and_then(|v| reduce_axes(&v, shape.len()).ok()),
            None => vec_len(ctx, &start).map(|k| (0..k.min(shape.len())).collect()),
        };
        match affected {
            Some(ax) => {
                for a in ax {
                    out[a] = ctx.unknown_dim(node, 0, a);
                }
            }
            None => out = fresh_dims(ctx, node, 0, shape.len()),
        }
        return Ok(vec![TensorFact::new(x.dtype, out)]);
    };
    if sv.len() != ev.len() || sv.len() != stv.len() {
        return Err(OpError::BadShapeValue {
            what: format!(
                "start, stop and step have {}, {} and {} entries",
                sv.len(),
                ev.len(),
                stv.len()
            ),
        });
    }
    let axes: Vec<usize> = match &axes_t {
        Some(a) => match const_ints(&ctx.alg, a) {
            Some(v) => reduce_axes(&v, shape.len())?,
            None => {
                let d = fresh_dims(ctx, node, 0, shape.len());
                return Ok(vec![TensorFact::new(x.dtype, d)]);
            }
        },
        None => (0..sv.len()).collect(),
    };
    if axes.len() != sv.len() || axes.iter().any(|&a| a >= shape.len()) {
        return Err(OpError::BadShapeValue {
            what: format!(
                "{} slice entries for axes {axes:?} of a rank-{} input",
                sv.len(),
                shape.len()
            ),
        });
    }
    let mut out = shape.clone();
    for (i, &a) in axes.iter().enumerate() {
        if stv[i] == 0 {
            return Err(OpError::BadShapeValue {
                what: format!("step {i} is 0"),
            });
        }
        out[a] = match slice_len(ctx, shape[a], sv[i], ev[i], stv[i]) {
            Some(d) => d,
            None => ctx.unknown_dim(node, 0, a),
        };
    }
    let value = (|| {
        let xv = x.value.as_ref()?;
        let sc = value_shape(&ctx.alg, &shape)?;
        let (s, e) = (const_dims(&ctx.alg, &sv)?, const_dims(&ctx.alg, &ev)?);
        let mut picks: Vec<Vec<usize>> = sc.iter().map(|&d| (0..d as usize).collect()).collect();
        for (i, &a) in axes.iter().enumerate() {
            picks[a] = slice_indices(sc[a], s[i], e[i], stv[i])?;
        }
        select_values_checked(xv, &sc, &picks)
    })();
    Ok(vec![fact_with_counted_value(&ctx.alg, x.dtype, out, value)])
}

fn mask(node: &Node, name: &'static str) -> Result<Vec<bool>, OpError> {
    Ok(ov_i64_list(node, name)?
        .unwrap_or_default()
        .iter()
        .map(|&v| v != 0)
        .collect())
}

/// StridedSlice-1: begin, end, optional stride; masks (`1` ignores begin/end, adds a
/// new axis, shrinks an axis, or marks the ellipsis).
fn strided_slice(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 4)?;
    let x = ctx.input(node, 0, "data")?;
    let b = ctx.input(node, 1, "begin")?;
    let e = ctx.input(node, 2, "end")?;
    let st = ctx.optional_input(node, 3)?;
    let (bm, em, nm, sm, elm) = (
        mask(node, "begin_mask")?,
        mask(node, "end_mask")?,
        mask(node, "new_axis_mask")?,
        mask(node, "shrink_axis_mask")?,
        mask(node, "ellipsis_mask")?,
    );
    let Some(shape) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let (Some(bv), Some(ev)) = (vec_values(&b), vec_values(&e)) else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let n = bv.len();
    let steps: Vec<i64> = match &st {
        Some(s) => match const_ints(&ctx.alg, s) {
            Some(v) => v,
            None => return Ok(vec![TensorFact::unknown(x.dtype)]),
        },
        None => vec![1; n],
    };
    if ev.len() != n || steps.len() != n {
        return Err(OpError::BadShapeValue {
            what: format!(
                "begin, end and stride have {}, {} and {} entries",
                n,
                ev.len(),
                steps.len()
            ),
        });
    }
    let at = |m: &[bool], i: usize| m.get(i).copied().unwrap_or(false);
    let consumed = (0..n).filter(|&i| !at(&nm, i) && !at(&elm, i)).count();
    let mut out = Vec::new();
    // (axis, indices) for values; None when not constant.
    let mut picks: Vec<Option<Vec<usize>>> = Vec::new();
    let sc = if x.value.is_some() {
        value_shape(&ctx.alg, &shape)
    } else {
        None
    };
    let mut axis = 0usize;
    let mut seen_ellipsis = false;
    let one = ctx.alg.constant(1);
    const BIG: i64 = 1 << 62;
    for i in 0..n {
        if at(&elm, i) && !seen_ellipsis {
            seen_ellipsis = true;
            let cover = shape.len().saturating_sub(axis + consumed);
            for _ in 0..cover {
                out.push(shape[axis]);
                picks.push(sc.as_ref().map(|c| (0..c[axis] as usize).collect()));
                axis += 1;
            }
            continue;
        }
        if at(&nm, i) {
            out.push(one);
            continue;
        }
        if axis >= shape.len() {
            return Err(OpError::BadShapeValue {
                what: format!(
                    "{n} slice entries consume more than the {} input axes",
                    shape.len()
                ),
            });
        }
        let d = shape[axis];
        let step = steps[i];
        if step == 0 {
            return Err(OpError::BadShapeValue {
                what: format!("stride {i} is 0"),
            });
        }
        if at(&sm, i) {
            // One element: begin (or 0 when masked).
            let bi = if at(&bm, i) {
                Some(0)
            } else {
                ctx.alg.as_i64(bv[i])
            };
            picks.push(match (&sc, bi) {
                (Some(c), Some(v)) => {
                    let j = if v < 0 { v + c[axis] } else { v };
                    (0..c[axis]).contains(&j).then(|| vec![j as usize])
                }
                _ => None,
            });
            axis += 1;
            continue;
        }
        let start = if at(&bm, i) {
            ctx.alg.constant(if step > 0 { 0 } else { BIG })
        } else {
            bv[i]
        };
        let stop = if at(&em, i) {
            ctx.alg.constant(if step > 0 { BIG } else { -BIG })
        } else {
            ev[i]
        };
        let len = match slice_len(ctx, d, start, stop, step) {
            Some(l) => l,
            None => ctx.unknown_dim(node, 0, out.len()),
        };
        out.push(len);
        picks.push(match (&sc, ctx.alg.as_i64(start), ctx.alg.as_i64(stop)) {
            (Some(c), Some(s0), Some(s1)) => slice_indices(c[axis], s0, s1, step),
            _ => None,
        });
        axis += 1;
    }
    while axis < shape.len() {
        out.push(shape[axis]);
        picks.push(sc.as_ref().map(|c| (0..c[axis] as usize).collect()));
        axis += 1;
    }
    let value = (|| {
        let xv = x.value.as_ref()?;
        let picks: Vec<Vec<usize>> = picks.into_iter().collect::<Option<_>>()?;
        select_values_checked(xv, sc.as_ref()?, &picks)
    })();
    Ok(vec![fact_with_counted_value(&ctx.alg, x.dtype, out, value)])
}

/// Pad (1: non-negative pads; 12: negative pads crop).
fn pad(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 4)?;
    let x = ctx.input(node, 0, "data")?;
    let pb = ctx.input(node, 1, "pads_begin")?;
    let pe = ctx.input(node, 2, "pads_end")?;
    let Some(shape) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let (Some(b), Some(e)) = (vec_values(&pb), vec_values(&pe)) else {
        let d = fresh_dims(ctx, node, 0, shape.len());
        return Ok(vec![TensorFact::new(x.dtype, d)]);
    };
    if b.len() != shape.len() || e.len() != shape.len() {
        return Err(OpError::BadShapeValue {
            what: format!(
                "pads_begin has {} and pads_end {} entries for data of rank {}",
                b.len(),
                e.len(),
                shape.len()
            ),
        });
    }
    let mut out = Vec::with_capacity(shape.len());
    for i in 0..shape.len() {
        if node.version < 12 {
            for (what, p) in [("pads_begin", b[i]), ("pads_end", e[i])] {
                if ctx.alg.bounds(p).is_negative() {
                    return Err(OpError::BadShapeValue {
                        what: format!(
                            "{what}[{i}] = {} is negative (Pad-1 takes non-negative pads)",
                            ctx.alg.render(p)
                        ),
                    });
                }
            }
        }
        let s = ctx.alg.add_dims(shape[i], b[i]);
        let d = ctx.alg.add_dims(s, e[i]);
        if ctx.alg.bounds(d).is_negative() {
            return Err(OpError::BadShapeValue {
                what: format!("axis {i}: the padded dim {} is negative", ctx.alg.render(d)),
            });
        }
        out.push(d);
    }
    Ok(vec![TensorFact::new(x.dtype, out)])
}

// ===================================================================================
// NN ops
// ===================================================================================

/// ShuffleChannels: the shape stays; `group` must divide the `axis` dim.
fn shuffle_channels(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "data")?;
    if let Some(shape) = &x.shape {
        let axis = norm_axis(ov_i64(node, "axis")?.unwrap_or(1), shape.len())?;
        let group = ov_i64(node, "group")?.unwrap_or(1);
        if group < 1 {
            return Err(OpError::BadAttribute {
                name: "group",
                value: group.to_string(),
                why: "must be at least 1".to_string(),
            });
        }
        let g = ctx.alg.constant(group);
        if ctx.alg.divides(g, shape[axis]) == Truth::False {
            return Err(OpError::BadShapeValue {
                what: format!(
                    "group {group} does not divide the axis {axis} dim {}",
                    ctx.alg.render(shape[axis])
                ),
            });
        }
    }
    Ok(vec![TensorFact {
        dtype: x.dtype,
        shape: x.shape,
        value: None,
    }])
}

/// DepthToSpace / SpaceToDepth: `[N, C, S...]` with `block_size`.
fn depth_space(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "data")?;
    let Some(xs) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    if xs.len() < 3 {
        return Err(OpError::Rank {
            what: "data".to_string(),
            expected: "at least 3".to_string(),
            found: xs.len(),
        });
    }
    let bs = ov_i64(node, "block_size")?.unwrap_or(1);
    if bs < 1 {
        return Err(OpError::BadAttribute {
            name: "block_size",
            value: bs.to_string(),
            why: "must be at least 1".to_string(),
        });
    }
    let n = xs.len() - 2;
    let b = ctx.alg.constant(bs);
    let k = ctx
        .alg
        .constant(bs.checked_pow(n as u32).unwrap_or(i64::MAX));
    let mut out = vec![xs[0]];
    if node.op_type == "DepthToSpace" {
        out.push(ctx.alg.div(xs[1], k).map_err(OpError::from)?);
        for d in &xs[2..] {
            out.push(ctx.alg.mul(*d, b));
        }
    } else {
        out.push(ctx.alg.mul(xs[1], k));
        for d in &xs[2..] {
            out.push(ctx.alg.div(*d, b).map_err(OpError::from)?);
        }
    }
    Ok(vec![TensorFact::new(x.dtype, out)])
}

/// TopK (1, 3, 11): `axis` dim = `min(k, dim)`; values and indices outputs.
fn topk(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "data")?;
    let k = ctx.input(node, 1, "k")?;
    let idx_type = dtype_attr(node, "index_element_type", DType::Int32)?;
    let Some(mut shape) = x.shape.clone() else {
        return Ok(vec![
            TensorFact::unknown(x.dtype),
            TensorFact::unknown(idx_type),
        ]);
    };
    let axis = norm_axis(
        ov_i64(node, "axis")?.ok_or(OpError::MissingAttribute { name: "axis" })?,
        shape.len(),
    )?;
    shape[axis] = match k.value.as_deref() {
        Some([kv]) => ctx.alg.min(*kv, shape[axis]),
        _ => ctx.unknown_dim(node, 0, axis),
    };
    Ok(vec![
        TensorFact::new(x.dtype, shape.clone()),
        TensorFact::new(idx_type, shape),
    ])
}

/// NonZero (3): `[rank, count]` with a data-dependent count.
fn non_zero(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "data")?;
    let dtype = dtype_attr(node, "output_type", DType::Int64)?;
    let count = ctx.unknown_dim(node, 0, 1);
    let rank = match &x.shape {
        Some(s) => ctx.alg.constant(s.len() as i64),
        None => ctx.unknown_dim(node, 0, 0),
    };
    Ok(vec![TensorFact::new(dtype, vec![rank, count])])
}

// ===================================================================================
// Registry
// ===================================================================================

/// The OpenVINO rules.
pub const RULES: &[RuleEntry] = &[
    // unary, same shape
    (DOMAIN, "Identity", identity),
    (DOMAIN, "Convert", convert),
    (DOMAIN, "ConvertLike", convert),
    (DOMAIN, "ShuffleChannels", shuffle_channels),
    // binary and n-ary
    // shape ops
    (DOMAIN, "ShapeOf", shape_of),
    (DOMAIN, "Gather", gather),
    (DOMAIN, "Concat", concat),
    (DOMAIN, "Squeeze", squeeze),
    (DOMAIN, "Unsqueeze", unsqueeze),
    (DOMAIN, "Transpose", transpose),
    (DOMAIN, "Broadcast", broadcast),
    (DOMAIN, "Tile", tile),
    (DOMAIN, "Range", range),
    (DOMAIN, "Split", split),
    (DOMAIN, "VariadicSplit", variadic_split),
    (DOMAIN, "Slice", slice),
    (DOMAIN, "StridedSlice", strided_slice),
    (DOMAIN, "Pad", pad),
    (DOMAIN, "NonZero", non_zero),
    (DOMAIN, "TopK", topk),
    // NN
    (DOMAIN, "DepthToSpace", depth_space),
    (DOMAIN, "SpaceToDepth", depth_space),
];
