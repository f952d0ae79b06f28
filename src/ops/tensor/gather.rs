//! Picking slices by index: ONNX `Gather`, `GatherElements` and `GatherND`,
//! OpenVINO `Gather`, `GatherElements` and `GatherND`.
//!
//! Specs: the ONNX operator reference (`Gather`, `GatherElements`, `GatherND`) and
//! the OpenVINO operation specification (`Gather-1`, `-7`, `-8`, `GatherElements-6`,
//! `GatherND-5`, `-8`).
//!
//! `Gather` along `axis` gives `data[:axis] + indices[batch_dims:] + data[axis+1:]`
//! ([`gather_shape`]); the first `batch_dims` dims of data and indices must be equal
//! (OpenVINO only: ONNX `Gather` has no batch dims). With a small constant-shaped
//! `data` of known contents and constant indices, the output's contents are the
//! picked elements ([`gather_values`]); this is the `Gather` of shape subgraphs
//! (`Shape -> Gather(0) -> Unsqueeze -> Concat`).
//!
//! Special values: a negative index counts from the end (`[-d, d-1]`). ONNX: a
//! constant index provably outside that range is an error. OpenVINO-8 defines such
//! an index to read zeros, earlier versions leave it undefined: the output keeps its
//! shape but no contents. Index types other than int32/int64 are an error (ONNX).
//!
//! `GatherElements` (ONNX) picks one element per index: `data` and `indices` have
//! one rank `r >= 1`, the output has the indices' shape, and
//! `out[i][j][k] = data[indices[i][j][k]][j][k]` for `axis = 0` (likewise for the
//! other axes). Off the axis an indices dim may not exceed data's
//! ([`element_indices_check`]; onnxruntime rejects it, and a provably larger one is
//! an error, an undecided one a recorded requirement); along the axis it may have
//! any size. With small known data and constant indices the output's contents are
//! the picked elements ([`element_targets`], shared with `ScatterElements`).
//!
//! `GatherND` (ONNX, OpenVINO-8): `indices.shape[:-1] + data.shape[batch_dims + k:]`
//! with `k = indices.shape[-1]`, a constant in `[1, rank(data) - batch_dims]`
//! ([`gather_nd_shape`]); OpenVINO-5 flattens the `batch_dims` leading dims into
//! their product. OpenVINO equates data's and indices' batch dims; ONNX only
//! rejects provably different ones.
//!
//! OpenVINO `GatherElements-6` is ONNX's, except that off the axis the indices'
//! dims must equal data's (OpenVINO's shape inference merges them).
//!
//! # Version history
//! * ONNX **Gather**: 1; 11 negative indices (symdim accepts them in every opset, as
//!   runtimes do); 13 bf16.
//! * ONNX **GatherElements**: 11; 13 bf16.
//! * ONNX **GatherND**: 11; 12 `batch_dims`; 13 bf16.
//! * OpenVINO **Gather**: 1 (`axis` is input 2); 7 `batch_dims`; 8 negative indices
//!   (out of range reads zeros).
//! * OpenVINO **GatherND**: 5; 8 batch dims kept instead of flattened.
//! * OpenVINO **GatherElements**: 6.

use crate::algebra::{Algebra, Dim, Truth};
use crate::context::DimRole;
use crate::context::{Allowed, Expected, OpError, ShapesContext, TensorFact};
use crate::context::{AttrProblem, AttrValue, ShapeValueProblem};
use crate::graph::{DType, Node};
use crate::ops::common::attrs::attr_int;
use crate::ops::common::attrs::ov_i64;
use crate::ops::common::dims::{merge_dim_as, rank_of, shaped};
use crate::ops::common::values::{
    const_dims, const_ints, fact_with_value, small_const_shape, small_value, take_values,
};
use crate::ops::common::{check_inputs, norm_axis};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["Gather"], gather),
    ("", ["GatherElements"], gather_elements),
    ("", ["GatherND"], gather_nd),
    ("openvino", ["Gather"], ov_gather),
    ("openvino", ["GatherND"], ov_gather_nd),
    ("openvino", ["GatherElements"], ov_gather_elements),
];

/// The shape of a gather along `axis` (normalised):
/// `data[:axis] + indices[batch_dims:] + data[axis+1:]`. The first `batch_dims`
/// dims of `data` and `indices` must be equal (see [`merge_dim_as`]).
pub fn gather_shape(
    ctx: &mut ShapesContext,
    node: &Node,
    data: &[Dim],
    indices: &[Dim],
    axis: usize,
    batch_dims: usize,
) -> Result<Vec<Dim>, OpError> {
    for i in 0..batch_dims {
        merge_dim_as(
            ctx,
            node,
            DimRole::BatchDim {
                index: i,
                of: ("data", "indices").into(),
            },
            data[i],
            indices[i],
        )?;
    }
    let mut out: Vec<Dim> = data[..axis].to_vec();
    out.extend_from_slice(&indices[batch_dims..]);
    out.extend_from_slice(&data[axis + 1..]);
    Ok(out)
}

/// The contents of a gather of `data` (small, constant shape, known contents) at
/// the constant `indices` along `axis`, row-major; `None` when they are not known
/// or an index lies outside `[-d, d-1]`.
pub fn gather_values(
    alg: &Algebra,
    data: &TensorFact,
    axis: usize,
    indices: &[i64],
) -> Option<Vec<Dim>> {
    let (dims, dv) = small_value(alg, data)?;
    let d = *dims.get(axis)? as i64;
    let picked: Vec<usize> = indices
        .iter()
        .map(|&i| {
            let j = if i < 0 { i + d } else { i };
            (0..d).contains(&j).then_some(j as usize)
        })
        .collect::<Option<_>>()?;
    let mut per_axis: Vec<Vec<usize>> = dims.iter().map(|&n| (0..n).collect()).collect();
    per_axis[axis] = picked;
    Some(take_values(&dv, &dims, &per_axis))
}

/// The checks `GatherElements` and `ScatterElements` make of their indices against
/// `data`: one rank, and off `axis` an indices dim no larger than data's. A dim
/// provably larger is an error; an undecided one is recorded as a requirement of
/// the model.
pub fn element_indices_check(
    ctx: &mut ShapesContext,
    node: &Node,
    data: &[Dim],
    indices: &[Dim],
    axis: usize,
) -> Result<(), OpError> {
    if indices.len() != data.len() {
        return Err(rank_of(
            "indices",
            Expected::Exactly(data.len()).noted("the rank of data"),
            indices.len(),
        ));
    }
    for (i, (&d, &n)) in data.iter().zip(indices).enumerate() {
        if i == axis {
            continue;
        }
        match ctx.alg.le(n, d) {
            Truth::True => {}
            Truth::False => {
                return Err(OpError::BadShapeValue(Box::new(
                    ShapeValueProblem::IndicesDimExceeds {
                        index: i,
                        indices: ctx.alg.expr(n),
                        data: ctx.alg.expr(d),
                        axis,
                    },
                )))
            }
            Truth::Unknown => ctx.alg.record_requirement(n, d, &node.name, "indices"),
        }
    }
    Ok(())
}

/// The element map of `GatherElements` and `ScatterElements`: for each element of
/// an indices tensor of constant shape `idx_shape` holding `idx` (row-major), the
/// flat position in a tensor of shape `data` that it addresses, its coordinate
/// along `axis` replaced by the index (negative indices wrap). `None` when a
/// position lies outside `data`.
pub fn element_targets(
    data: &[usize],
    idx_shape: &[usize],
    idx: &[i64],
    axis: usize,
) -> Option<Vec<usize>> {
    if idx_shape.len() != data.len() || idx.len() != idx_shape.iter().product::<usize>() {
        return None;
    }
    let mut coords = vec![0usize; idx_shape.len()];
    let mut out = Vec::with_capacity(idx.len());
    for (flat, &i) in idx.iter().enumerate() {
        let mut rem = flat;
        for a in (0..idx_shape.len()).rev() {
            coords[a] = rem % idx_shape[a];
            rem /= idx_shape[a];
        }
        let d = data[axis] as i64;
        let j = if i < 0 { i + d } else { i };
        if !(0..d).contains(&j) {
            return None;
        }
        coords[axis] = j as usize;
        let mut pos = 0usize;
        for (a, &c) in coords.iter().enumerate() {
            if c >= data[a] {
                return None;
            }
            pos = pos * data[a] + c;
        }
        out.push(pos);
    }
    Some(out)
}

/// Constant indices into an axis of size `dim` must lie in `[-dim, dim - 1]`: one
/// provably outside is an error (runtimes reject it).
pub fn check_const_indices(
    ctx: &mut ShapesContext,
    dim: Dim,
    axis: usize,
    indices: &[i64],
) -> Result<(), OpError> {
    for &i in indices {
        let c = ctx.alg.constant(i);
        let bad = if i >= 0 {
            ctx.alg.le(dim, c) == Truth::True
        } else {
            let m = ctx.alg.neg(c);
            ctx.alg.le(m, dim) == Truth::False
        };
        if bad {
            return Err(OpError::BadShapeValue(Box::new(
                ShapeValueProblem::IndexOutOfRange {
                    index: i,
                    axis,
                    size: ctx.alg.expr(dim),
                },
            )));
        }
    }
    Ok(())
}

/// An index input must be int32 or int64 (or of a type not known yet).
pub fn check_index_type(f: &TensorFact, what: &'static str) -> Result<(), OpError> {
    if matches!(f.dtype, DType::Int32 | DType::Int64 | DType::Undefined) {
        Ok(())
    } else {
        Err(OpError::UnsupportedType {
            dtype: f.dtype,
            what,
            allowed: Allowed::Types(vec![DType::Int32, DType::Int64]),
        })
    }
}

/// ONNX `Gather` (`axis` attribute).
fn gather(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let data = ctx.input(node, 0, "data")?;
    let indices = ctx.input(node, 1, "indices")?;
    check_index_type(&indices, "indices")?;
    let (Some(dshape), Some(ishape)) = (&data.shape, &indices.shape) else {
        return Ok(vec![TensorFact::unknown(data.dtype)]);
    };
    if dshape.is_empty() {
        return Err(OpError::Rank {
            of: Box::new("data".into()),
            expected: Expected::AtLeast(1),
            found: 0,
        });
    }
    let axis = norm_axis(attr_int(node, "axis", 0)?, dshape.len())?;
    // Constant indices must lie in [-d, d - 1].
    let idx_consts = indices.value.as_ref().and_then(|v| const_dims(&ctx.alg, v));
    if let Some(ix) = &idx_consts {
        check_const_indices(ctx, dshape[axis], axis, ix)?;
    }
    let out = gather_shape(ctx, node, dshape, ishape, axis, 0)?;
    let value = idx_consts.and_then(|ix| gather_values(&ctx.alg, &data, axis, &ix));
    Ok(vec![fact_with_value(data.dtype, out, value)])
}

/// ONNX `GatherElements`: the indices' shape, the data's type; contents picked
/// from small known data at constant indices.
fn gather_elements(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let data = ctx.input(node, 0, "data")?;
    let indices = ctx.input(node, 1, "indices")?;
    check_index_type(&indices, "indices")?;
    let Some(ishape) = indices.shape.clone() else {
        return Ok(vec![TensorFact::unknown(data.dtype)]);
    };
    let (what, rank) = match &data.shape {
        Some(d) => ("data", d.len()),
        None => ("indices", ishape.len()),
    };
    if rank == 0 {
        return Err(rank_of(what, Expected::AtLeast(1), 0));
    }
    let axis = norm_axis(attr_int(node, "axis", 0)?, rank)?;
    let idx = const_ints(&ctx.alg, &indices);
    if let Some(dshape) = &data.shape {
        element_indices_check(ctx, node, dshape, &ishape, axis)?;
        if let Some(ix) = &idx {
            check_const_indices(ctx, dshape[axis], axis, ix)?;
        }
    }
    let value = (|| {
        let (ddims, dv) = small_value(&ctx.alg, &data)?;
        let ishape = small_const_shape(&ctx.alg, &ishape)?;
        let targets = element_targets(&ddims, &ishape, idx.as_deref()?, axis)?;
        Some(targets.into_iter().map(|t| dv[t]).collect())
    })();
    Ok(vec![fact_with_value(data.dtype, ishape, value)])
}

/// OpenVINO `Gather` (1: `axis` input; 7: `batch_dims`; 8: negative indices).
fn ov_gather(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let data = ctx.input(node, 0, "data")?;
    let idx = ctx.input(node, 1, "indices")?;
    let axis_t = ctx.input(node, 2, "axis")?;
    let dtype = data.dtype;
    let (Some(ds), Some(is)) = (&data.shape, &idx.shape) else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    let Some(&[axis]) = const_ints(&ctx.alg, &axis_t).as_deref() else {
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
        value: AttrValue::Int(bd),
        why: Box::new(AttrProblem::BeyondIndicesRank(is.len())),
    })?;
    if bd > is.len() || bd > axis {
        return Err(OpError::BadAttribute {
            name: "batch_dims",
            value: AttrValue::Int(bd as i64),
            why: Box::new(AttrProblem::AboveRankOrAxis {
                rank: is.len(),
                axis,
            }),
        });
    }
    let out = gather_shape(ctx, node, ds, is, axis, bd)?;
    let value = match const_ints(&ctx.alg, &idx) {
        Some(ix) if bd == 0 => gather_values(&ctx.alg, &data, axis, &ix),
        _ => None,
    };
    Ok(vec![fact_with_value(dtype, out, value)])
}

/// How `GatherND` lays out its leading batch dims.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NdBatch {
    /// Kept as they are, provably different ones an error (ONNX).
    Keep,
    /// Kept, data's and indices' equated (OpenVINO-8).
    Merge,
    /// Equated and flattened into one dim, their product (OpenVINO-5).
    Flatten,
}

/// The output shape of `GatherND` with `b` batch dims:
/// `indices.shape[:-1] + data.shape[b + k:]` with `k = indices.shape[-1]`, a
/// constant in `[1, rank(data) - b]`; the batch dims laid out as `batch` says.
/// `None` when `k` is not known (nor, then, the rank).
pub fn gather_nd_shape(
    ctx: &mut ShapesContext,
    node: &Node,
    data: &[Dim],
    indices: &[Dim],
    b: i64,
    batch: NdBatch,
) -> Result<Option<Vec<Dim>>, OpError> {
    let (r, q) = (data.len(), indices.len());
    if b < 0 || b as usize >= r.min(q) {
        return Err(OpError::BadAttribute {
            name: "batch_dims",
            value: AttrValue::Int(b),
            why: Box::new(AttrProblem::BatchDimsRange(r.min(q))),
        });
    }
    let b = b as usize;
    let Some(k) = ctx.alg.as_i64(indices[q - 1]) else {
        return Ok(None);
    };
    if k < 1 || k as usize > r - b {
        return Err(OpError::BadShapeValue(Box::new(
            ShapeValueProblem::GatherIndexDepth {
                depth: k,
                max: r - b,
            },
        )));
    }
    let mut lead = Vec::with_capacity(b);
    for axis in 0..b {
        let dims = DimRole::BatchAxis {
            axis,
            of: ("data", "indices").into(),
        };
        lead.push(match batch {
            NdBatch::Keep => {
                if ctx.alg.equal(data[axis], indices[axis]) == Truth::False {
                    return Err(OpError::DimMismatch {
                        dims: Box::new(dims),
                        left: ctx.alg.expr(data[axis]),
                        right: ctx.alg.expr(indices[axis]),
                    });
                }
                indices[axis]
            }
            NdBatch::Merge | NdBatch::Flatten => {
                merge_dim_as(ctx, node, dims, data[axis], indices[axis])?
            }
        });
    }
    let mut out: Vec<Dim> = match batch {
        NdBatch::Flatten if b > 0 => vec![ctx.alg.product(&lead)],
        NdBatch::Flatten => Vec::new(),
        _ => lead,
    };
    out.extend_from_slice(&indices[b..q - 1]);
    out.extend_from_slice(&data[b + k as usize..]);
    Ok(Some(out))
}

/// ONNX `GatherND` (12: `batch_dims`).
fn gather_nd(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let data = ctx.input(node, 0, "data")?;
    let indices = ctx.input(node, 1, "indices")?;
    if !matches!(indices.dtype, DType::Int64 | DType::Undefined) {
        return Err(OpError::UnsupportedType {
            dtype: indices.dtype,
            what: "indices",
            allowed: Allowed::Types(vec![DType::Int64]),
        });
    }
    let b = if node.version >= 12 {
        attr_int(node, "batch_dims", 0)?
    } else {
        0
    };
    let (Some(dshape), Some(ishape)) = (data.shape.clone(), indices.shape.clone()) else {
        return Ok(vec![TensorFact::unknown(data.dtype)]);
    };
    let out = gather_nd_shape(ctx, node, &dshape, &ishape, b, NdBatch::Keep)?;
    Ok(vec![shaped(data.dtype, out)])
}

/// OpenVINO `GatherND` (5: batch dims flattened; 8: kept).
fn ov_gather_nd(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let data = ctx.input(node, 0, "data")?;
    let indices = ctx.input(node, 1, "indices")?;
    check_index_type(&indices, "indices")?;
    let b = ov_i64(node, "batch_dims")?.unwrap_or(0);
    let (Some(dshape), Some(ishape)) = (data.shape.clone(), indices.shape.clone()) else {
        return Ok(vec![TensorFact::unknown(data.dtype)]);
    };
    let batch = if node.version >= 8 {
        NdBatch::Merge
    } else {
        NdBatch::Flatten
    };
    let out = gather_nd_shape(ctx, node, &dshape, &ishape, b, batch)?;
    Ok(vec![shaped(data.dtype, out)])
}

/// OpenVINO `GatherElements-6`: like ONNX's, but off the axis the indices' dims
/// must equal data's.
fn ov_gather_elements(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let data = ctx.input(node, 0, "data")?;
    let indices = ctx.input(node, 1, "indices")?;
    check_index_type(&indices, "indices")?;
    let Some(mut ishape) = indices.shape.clone() else {
        return Ok(vec![TensorFact::unknown(data.dtype)]);
    };
    let rank = data.shape.as_ref().map_or(ishape.len(), Vec::len);
    if rank == 0 {
        return Err(rank_of("data", Expected::AtLeast(1), 0));
    }
    let axis = norm_axis(ov_i64(node, "axis")?.unwrap_or(0), rank)?;
    if let Some(dshape) = &data.shape {
        if ishape.len() != dshape.len() {
            return Err(rank_of(
                "indices",
                Expected::Exactly(dshape.len()).noted("the rank of data"),
                ishape.len(),
            ));
        }
        for i in (0..rank).filter(|i| *i != axis) {
            ishape[i] = merge_dim_as(
                ctx,
                node,
                DimRole::axis(i, ("data", "indices")),
                dshape[i],
                ishape[i],
            )?;
        }
    }
    let idx = const_ints(&ctx.alg, &indices);
    let value = (|| {
        let (ddims, dv) = small_value(&ctx.alg, &data)?;
        let is = small_const_shape(&ctx.alg, &ishape)?;
        let targets = element_targets(&ddims, &is, idx.as_deref()?, axis)?;
        Some(targets.into_iter().map(|t| dv[t]).collect())
    })();
    Ok(vec![fact_with_value(data.dtype, ishape, value)])
}
