//! A tensor's shape as a value: ONNX `Shape` and `Size`, OpenVINO `ShapeOf`.
//!
//! Specs: the ONNX operator reference (`Shape`, `Size`) and the OpenVINO
//! operation specification (`ShapeOf-1`, `ShapeOf-3`).
//!
//! The output of `Shape`/`ShapeOf` is the 1-D tensor of the input's dims, and its
//! value is those dims themselves (symbolic where they are), so a shape subgraph
//! (`Shape -> Gather -> Concat -> Reshape`) keeps the model's names. An input of
//! unknown rank gives `[unk]` (a fresh dim: the length is not known). `Size` is the
//! int64 scalar product of the dims.
//!
//! Special values: ONNX-15 `start`/`end` count from the back when negative and are
//! clamped to `[0, rank]`; `end <= start` gives an empty shape.
//!
//! # Version history
//! * ONNX **Shape**: 1; 13 bf16; 15 `start`/`end`; 19, 21, 23-25 types.
//! * ONNX **Size**: 1; 13; 19, 21, 23-25 types.
//! * OpenVINO **ShapeOf**: 1 (i64 output); 3 `output_type` (i64 or i32).

use crate::algebra::Dim;
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};
use crate::ops::common::attrs::attr_int;
use crate::ops::common::attrs::ov_dtype;
use crate::ops::common::check_inputs;
use crate::ops::common::values::{check_int_range, fact_with_value};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["Shape"], shape),
    ("", ["Size"], size),
    ("openvino", ["ShapeOf"], ov_shape_of),
];

/// The dims `start..end` of a rank-`rank` shape: negative bounds count from the
/// back, both are clamped to `[0, rank]`, and `end` defaults to `rank`.
pub fn shape_window(rank: usize, start: i64, end: Option<i64>) -> std::ops::Range<usize> {
    let r = rank as i64;
    let clamp = |v: i64| -> usize {
        let v = if v < 0 { v.saturating_add(r) } else { v };
        v.clamp(0, r) as usize
    };
    let (s, e) = (clamp(start), clamp(end.unwrap_or(r)));
    s..e.max(s)
}

/// The fact of a shape tensor of type `dtype`: the 1-D tensor of
/// `dims[shape_window(start, end)]` with those dims as its value, or `[unk]` when
/// the rank is unknown.
pub fn shape_fact(
    ctx: &mut ShapesContext,
    node: &Node,
    dims: Option<&[Dim]>,
    dtype: DType,
    start: i64,
    end: Option<i64>,
) -> TensorFact {
    let Some(dims) = dims else {
        let n = ctx.unknown_dim(node, 0, 0);
        return TensorFact::new(dtype, vec![n]);
    };
    let value = dims[shape_window(dims.len(), start, end)].to_vec();
    let n = ctx.alg.constant(value.len() as i64);
    fact_with_value(dtype, vec![n], Some(value))
}

/// ONNX `Shape` (15: `start`, `end`).
fn shape(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "data")?;
    let (start, end) = if node.version >= 15 {
        let end = match node.attr("end") {
            None => None,
            Some(_) => Some(attr_int(node, "end", 0)?),
        };
        (attr_int(node, "start", 0)?, end)
    } else {
        (0, None)
    };
    let fact = shape_fact(ctx, node, x.shape.as_deref(), DType::Int64, start, end);
    Ok(vec![fact])
}

/// ONNX `Size`: the product of the dims, an int64 scalar.
fn size(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "data")?;
    let value = x.shape.as_ref().map(|dims| vec![ctx.alg.product(dims)]);
    if let Some(v) = &value {
        check_int_range(&ctx.alg, DType::Int64, v, &node.op_type)?;
    }
    Ok(vec![fact_with_value(DType::Int64, vec![], value)])
}

/// OpenVINO `ShapeOf` (3: `output_type`).
fn ov_shape_of(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "data")?;
    let dtype = ov_dtype(node, "output_type")?.unwrap_or(DType::Int64);
    let fact = shape_fact(ctx, node, x.shape.as_deref(), dtype, 0, None);
    Ok(vec![fact])
}
