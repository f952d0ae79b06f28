//! ONNX `Cast`: the same shape, the element type of the `to` attribute.
//!
//! Spec: the `ComputeShapeCast` entry of `../shared/specs/onnx-optim-shape_tensor.h.txt`
//! (ShapesContext API). The `to` attribute is required and must name a known
//! `TensorProto.DataType` (not `UNDEFINED`); `saturate` and `round_mode` do not
//! affect the shape or type and are not read.
//!
//! Beyond that spec: the contents (value-as-shape) are kept when casting from an
//! integer (or bool) type to an integer type, unless a value is provably outside
//! the target type's range (a constant 300 cast to int8); the spec drops them. So
//! `Shape -> Cast(int32) -> Cast(int64)` keeps its symbolic dims. Casts to bool,
//! float or string drop them.
//!
//! # Version history (ONNX operator changelog)
//! * **1**: `to` is a string (`"FLOAT"`, `"INT64"`, ...).
//! * **6**: `to` becomes an integer (`TensorProto.DataType`).
//! * **9**: string tensors allowed.
//! * **13**: bf16 added.
//! * **19**: the float8 types and the `saturate` attribute.
//! * **21**: int4 and uint4.
//! * **23**: float4e2m1.
//! * **24**: float8e8m0 and the `round_mode` attribute.
//! * **25**: int2 and uint2.
//!
//! symdim accepts every type the reader knows in every version (type constraints
//! are not checked per version for Cast).

use super::{check_inputs, RuleEntry};
use crate::algebra::{Dim, Rat};
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::{Attr, DType, Node};

/// The Cast rule.
pub const RULES: &[RuleEntry] = &[("", "Cast", cast)];

/// The element type named by Cast's `to` attribute.
pub fn cast_target(node: &Node) -> Result<DType, OpError> {
    let bad = |value: String, why: &str| OpError::BadAttribute {
        name: "to",
        value,
        why: why.to_string(),
    };
    match node.attr("to") {
        None => Err(OpError::MissingAttribute { name: "to" }),
        Some(Attr::Int(n)) => {
            let known = i32::try_from(*n)
                .ok()
                .map(DType::from_i32)
                .filter(|t| !matches!(t, DType::Unknown(_) | DType::Undefined));
            known.ok_or_else(|| bad(n.to_string(), "not a known TensorProto.DataType"))
        }
        Some(Attr::Str(s)) => (0..=28)
            .map(DType::from_i32)
            .find(|t| *t != DType::Undefined && t.onnx_name() == Some(s.as_str()))
            .ok_or_else(|| bad(format!("{s:?}"), "not a known TensorProto.DataType name")),
        Some(other) => Err(bad(
            other.to_string(),
            &format!("expected an int, found {}", other.kind()),
        )),
    }
}

/// The range of an integer type (not bool), as `(min, max)`.
fn int_range(t: DType) -> Option<(Rat, Rat)> {
    let bits = t.bit_width()?;
    let signed = matches!(
        t,
        DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64 | DType::Int4 | DType::Int2
    );
    let unsigned = matches!(
        t,
        DType::Uint8 | DType::Uint16 | DType::Uint32 | DType::Uint64 | DType::Uint4 | DType::Uint2
    );
    let pow = |e: u32| Rat::int(2).pow(e as i32);
    if signed {
        let half = pow(bits - 1)?;
        Some((half.neg(), half.sub(&Rat::one())))
    } else if unsigned {
        Some((Rat::zero(), pow(bits)?.sub(&Rat::one())))
    } else {
        None
    }
}

/// The contents after a cast, when they survive it: integer (or bool) to integer,
/// and no value provably outside the target type's range. A symbolic dim that
/// merely could exceed a narrow type (a dim `B` cast to int32) is assumed to fit:
/// a model whose dims wrap is broken anyway.
fn cast_value(ctx: &ShapesContext, from: DType, to: DType, value: &[Dim]) -> Option<Vec<Dim>> {
    if !from.is_integer() {
        return None;
    }
    let (lo, hi) = int_range(to)?;
    let outside = value.iter().any(|d| {
        let b = ctx.alg.bounds(*d);
        b.hi().is_some_and(|h| *h < lo) || b.lo().is_some_and(|l| *l > hi)
    });
    (!outside).then(|| value.to_vec())
}

/// ONNX `Cast` (see the module docs).
pub fn cast(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let input = ctx.input(node, 0, "input")?;
    let to = cast_target(node)?;
    let value = input
        .value
        .as_deref()
        .and_then(|v| cast_value(ctx, input.dtype, to, v));
    Ok(vec![TensorFact {
        dtype: to,
        shape: input.shape,
        value,
    }])
}
