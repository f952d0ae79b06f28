//! Joining tensors along one axis: ONNX `Concat`, OpenVINO `Concat`, oneDNN
//! `Concat`.
//!
//! Specs: the `ComputeShapeConcat` entry of `../shared/specs/onnx-optim-shape_tensor.h.txt`
//! (ShapesContext API) with the ONNX operator's version history; the OpenVINO
//! operation specification (`Concat-1`); oneDNN Graph's `Concat` document. The three
//! agree: every input has the same rank and element type, the output's `axis` dim is
//! the sum of the inputs', and every other dim is the inputs' common dim. Where the
//! ShapesContext spec loses information, symdim goes further ([`concat_dims`]):
//!
//! * On the concatenation axis the output dim is the symbolic sum (`N + M`), not a
//!   fresh dim. Only when an input's rank is unknown is it a fresh data-dependent dim.
//! * On every other axis the inputs' dims are merged. Proven equal passes; a
//!   concrete dim overrides a symbolic one; two dims not provably equal are made
//!   equal in the e-graph (`Algebra::union`, recorded with
//!   `Algebra::record_relation`: the model is valid only under that assumption);
//!   provably different dims are an error ([`OpError::DimMismatch`]). The ONNX rule
//!   also reports each assumption as a warning; the OpenVINO and oneDNN rules leave
//!   it to the model's contract (`symdim constraints`), as their other rules do.
//! * The contents (value-as-shape) are concatenated when every input has them and a
//!   small constant shape ([`concat_values`]): shape tensors built from `Shape` and
//!   constants. The ONNX rule keeps them for 1-D concatenations (shape tensors).
//!
//! Special values: `axis` may be negative (`axis + rank`) and must lie in
//! `[-rank, rank)`. ONNX: `axis` defaults to 1 when missing (the opset-1 default);
//! an input of unknown rank leaves the axis dim unknown. OpenVINO and oneDNN: `axis`
//! is required, and an input of unknown rank gives an output of unknown rank. The
//! output has the first defined input type (oneDNN: its `dst_dtype` when set).
//!
//! # Version history
//! * ONNX **1**: `axis` optional, default 1.
//! * ONNX **4**: `axis` required (symdim still defaults to 1, as the ShapesContext spec
//!   says).
//! * ONNX **11**: negative `axis` allowed (symdim accepts it in every version).
//! * ONNX **13**: bf16 added to the types.
//! * OpenVINO **Concat-1**: `axis` attribute, negative allowed.
//! * oneDNN **Concat**: `axis` attribute in `[-rank, rank)`.

use crate::algebra::{Algebra, Dim};
use crate::context::DimRole;
use crate::context::Subject;
use crate::context::{
    node_context, Expected, OpError, Severity, ShapesContext, TensorFact, TypeConflict,
};
use crate::graph::{DType, Node};
use crate::ops::common::attrs::dst_dtype;
use crate::ops::common::attrs::ov_i64;
use crate::ops::common::attrs::{attr_int, attr_int_required};
use crate::ops::common::dims::{require_equal, Held};
use crate::ops::common::norm_axis;
use crate::ops::common::values::{fact_with_value, small_const_shape};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["Concat"], concat),
    ("openvino", ["Concat"], ov_concat),
    ("onednn", ["Concat"], onednn_concat),
];

/// The common element type of the inputs: the first defined one; two different
/// defined types are an error.
pub fn concat_dtype(inputs: &[TensorFact]) -> Result<DType, OpError> {
    let mut dtype = DType::Undefined;
    let mut dtype_from = 0;
    for (i, f) in inputs.iter().enumerate() {
        if f.dtype == DType::Undefined {
            continue;
        }
        if dtype == DType::Undefined {
            dtype = f.dtype;
            dtype_from = i;
        } else if f.dtype != dtype {
            return Err(OpError::TypeMismatch {
                conflict: TypeConflict::inputs(
                    format!("input {dtype_from}"),
                    dtype,
                    format!("input {i}"),
                    f.dtype,
                ),
            });
        }
    }
    Ok(dtype)
}

/// The common rank of the inputs whose rank is known, with the index of the first
/// such input; `None` when no rank is known. Two different ranks are an error.
pub fn concat_rank(
    ctx: &ShapesContext,
    inputs: &[TensorFact],
) -> Result<Option<(usize, usize)>, OpError> {
    let mut rank: Option<(usize, usize)> = None;
    for (i, f) in inputs.iter().enumerate() {
        let Some(r) = f.rank() else { continue };
        match rank {
            None => rank = Some((r, i)),
            Some((r0, i0)) if r0 != r => {
                return Err(OpError::Rank {
                    of: Box::new(Subject::Input {
                        index: i,
                        shape: ctx.alg.exprs(f.shape.as_deref().unwrap_or_default()),
                    }),
                    expected: Expected::Exactly(r0).noted(format!("the rank of input {i0}")),
                    found: r,
                });
            }
            Some(_) => {}
        }
    }
    Ok(rank)
}

/// A dim pair that [`concat_dims`] could not prove equal and made equal: the
/// model is valid only under that assumption (`left == right`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assumed {
    /// The axis of the two dims.
    pub axis: usize,
    /// The inputs the dims come from.
    pub inputs: (usize, usize),
    /// The two dims, rendered before they were merged.
    pub dims: (String, String),
}

/// The output shape of a concatenation along `axis` of inputs of rank `rank` (at
/// least one input's shape known; see [`concat_rank`]): the sum of the inputs'
/// dims on `axis` (a fresh dim when an input's shape is unknown), and on every
/// other axis the inputs' dims merged as the module docs say. Each equality it
/// assumes (and records as a relation of the model) goes to `assumed` as it is
/// made, for the caller to report.
pub fn concat_dims(
    ctx: &mut ShapesContext,
    node: &Node,
    inputs: &[TensorFact],
    axis: usize,
    rank: usize,
    assumed: &mut dyn FnMut(&mut ShapesContext, Assumed),
) -> Result<Vec<Dim>, OpError> {
    let known: Vec<(usize, &[Dim])> = inputs
        .iter()
        .enumerate()
        .filter_map(|(i, f)| f.shape.as_deref().map(|s| (i, s)))
        .collect();
    let mut out = Vec::with_capacity(rank);
    for j in 0..rank {
        if j == axis {
            out.push(if known.len() == inputs.len() {
                let dims: Vec<Dim> = known.iter().map(|(_, s)| s[j]).collect();
                ctx.alg.sum(&dims)
            } else {
                ctx.unknown_dim(node, 0, j)
            });
            continue;
        }
        let (i0, s0) = known[0];
        let mut cur = s0[j];
        let mut cur_from = i0;
        for &(i, s) in &known[1..] {
            let d = s[j];
            let dims = || DimRole::ConcatDim {
                dim: j,
                inputs: [cur_from, i],
                axis,
            };
            if let (_, Held::Assumed(l, r)) = require_equal(ctx, &node.name, &dims, cur, d)? {
                let a = Assumed {
                    axis: j,
                    inputs: (cur_from, i),
                    dims: (l.to_string(), r.to_string()),
                };
                assumed(ctx, a);
            }
            // A concrete dim overrides a symbolic one.
            if ctx.alg.as_const(cur).is_none() && ctx.alg.as_const(d).is_some() {
                cur = d;
                cur_from = i;
            }
        }
        out.push(cur);
    }
    Ok(out)
}

/// The contents of a concatenation along `axis`, when every input has contents and
/// a small constant shape: for each index of the axes before `axis`, each input's
/// block in turn (row-major).
pub fn concat_values(alg: &Algebra, inputs: &[TensorFact], axis: usize) -> Option<Vec<Dim>> {
    let shapes: Vec<Vec<usize>> = inputs
        .iter()
        .map(|f| small_const_shape(alg, f.shape.as_deref()?))
        .collect::<Option<_>>()?;
    let outer: usize = shapes[0][..axis].iter().product();
    let mut v = Vec::new();
    for o in 0..outer {
        for (f, s) in inputs.iter().zip(&shapes) {
            let chunk: usize = s[axis..].iter().product();
            let fv = f.value.as_ref()?;
            v.extend_from_slice(fv.get(o * chunk..(o + 1) * chunk)?);
        }
    }
    Some(v)
}

/// Every input of `node` (at least one).
fn inputs(
    ctx: &ShapesContext,
    node: &Node,
    what: &'static str,
) -> Result<Vec<TensorFact>, OpError> {
    let n = node.input_count();
    if n == 0 {
        return Err(OpError::InputCount {
            expected: Expected::OrMore(1),
            found: 0,
        });
    }
    (0..n).map(|i| ctx.input(node, i, what)).collect()
}

/// The fact of a concatenation along the (unnormalised) `axis` of inputs of rank
/// `rank` (from [`concat_rank`]); `assumed` as [`concat_dims`] takes it.
fn concat_fact(
    ctx: &mut ShapesContext,
    node: &Node,
    inputs: &[TensorFact],
    (axis, rank): (i64, usize),
    dtype: DType,
    assumed: &mut dyn FnMut(&mut ShapesContext, Assumed),
) -> Result<TensorFact, OpError> {
    let axis = norm_axis(axis, rank)?;
    let out = concat_dims(ctx, node, inputs, axis, rank, assumed)?;
    let value = concat_values(&ctx.alg, inputs, axis);
    Ok(fact_with_value(dtype, out, value))
}

/// ONNX `Concat` (see the module docs).
pub fn concat(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let inputs = inputs(ctx, node, "input")?;
    let dtype = concat_dtype(&inputs)?;
    let Some((rank, first)) = concat_rank(ctx, &inputs)? else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    if rank == 0 {
        return Err(OpError::Rank {
            of: Box::new(Subject::Input {
                index: first,
                shape: Vec::new(),
            }),
            expected: Expected::AtLeast(1),
            found: 0,
        });
    }
    let axis = attr_int(node, "axis", 1)?;
    let mut warn = |ctx: &mut ShapesContext, a: Assumed| {
        let (l, r) = &a.dims;
        let msg = format!(
            "{}: dim {} is {l} in input {} and {r} in input {}; assumed equal (valid when {l} == {r})",
            node_context(node),
            a.axis,
            a.inputs.0,
            a.inputs.1
        );
        ctx.diagnose(Severity::Warning, node, msg);
    };
    let mut fact = concat_fact(ctx, node, &inputs, (axis, rank), dtype, &mut warn)?;
    // The contents of 1-D concatenations: the shape tensors.
    if rank != 1 || inputs.iter().any(|f| f.value.is_none()) {
        fact.value = None;
    }
    Ok(vec![fact])
}

/// OpenVINO and oneDNN: an input of unknown rank gives an unknown rank, and the
/// (required) axis is read only when every rank is known.
fn concat_ranked(
    ctx: &mut ShapesContext,
    node: &Node,
    inputs: &[TensorFact],
    dtype: DType,
    axis: impl FnOnce() -> Result<i64, OpError>,
) -> Result<Vec<TensorFact>, OpError> {
    if inputs.iter().any(|f| f.shape.is_none()) {
        return Ok(vec![TensorFact::unknown(dtype)]);
    }
    let Some((rank, _)) = concat_rank(ctx, inputs)? else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    let fact = concat_fact(ctx, node, inputs, (axis()?, rank), dtype, &mut |_, _| {})?;
    Ok(vec![fact])
}

/// OpenVINO `Concat`.
fn ov_concat(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let inputs = inputs(ctx, node, "input")?;
    let dtype = concat_dtype(&inputs)?;
    let axis = || ov_i64(node, "axis")?.ok_or(OpError::MissingAttribute { name: "axis" });
    concat_ranked(ctx, node, &inputs, dtype, axis)
}

/// oneDNN `Concat`: the type is `dst_dtype` when set.
fn onednn_concat(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let inputs = inputs(ctx, node, "src")?;
    let dtype = dst_dtype(node, concat_dtype(&inputs)?)?;
    concat_ranked(ctx, node, &inputs, dtype, || {
        attr_int_required(node, "axis")
    })
}
