//! Casting to another tensor's element type: ONNX `CastLike`.
//!
//! Spec: the ONNX operator reference (`CastLike`, which refers to `Cast`).
//!
//! `CastLike(input, target_type)` is `Cast` with `to` taken from the element type
//! of its second input: the output has input 0's shape and input 1's type, and its
//! contents survive where `Cast`'s would ([`cast_value`], truncating floats toward
//! zero). `saturate` and `round_mode` do not affect the shape or type and are not
//! read. The kernel is `Cast`'s; this file holds only the ONNX rule.
//!
//! # Version history
//! * ONNX **CastLike**: 15; 19 the float8 types and `saturate`; 21 int4 and uint4;
//!   23 float4e2m1; 24 float8e8m0 and `round_mode`; 25 int2 and uint2. As for
//!   `Cast`, type constraints are not checked per version.

use super::cast::{cast_value, FloatToInt};
use super::{check_inputs, RuleEntry};
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};

/// The rules of this family.
pub const RULES: &[RuleEntry] = &[("", "CastLike", cast_like)];

/// ONNX `CastLike`: input 0's shape, input 1's type.
fn cast_like(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let input = ctx.input(node, 0, "input")?;
    let to = ctx.input(node, 1, "target_type")?.dtype;
    let value = match (to, input.value.as_deref()) {
        (DType::Undefined, _) | (_, None) => None,
        (to, Some(v)) => cast_value(&mut ctx.alg, input.dtype, to, v, FloatToInt::Truncate),
    };
    Ok(vec![TensorFact {
        dtype: to,
        shape: input.shape,
        value,
    }])
}
