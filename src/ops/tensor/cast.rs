//! Ops that keep the shape and may change the element type: ONNX `Identity`,
//! `Cast` and `CastLike`, OpenVINO `Identity`, `Convert` and `ConvertLike`.
//!
//! Specs: the `ComputeShapeCast` entry of `../shared/specs/onnx-optim-shape_tensor.h.txt`
//! (ShapesContext API) with the ONNX operator reference, and the OpenVINO operation
//! specification (`Convert-1`, `ConvertLike-1`, `Identity-16`).
//!
//! `Identity` passes its input's fact through, contents included. `Cast` takes the
//! element type of its required `to` attribute, which must name a known
//! `TensorProto.DataType` (not `UNDEFINED`); `saturate` and `round_mode` do not
//! affect the shape or type and are not read. `Convert` takes `destination_type`
//! (the input's type when absent); `CastLike` and `ConvertLike` the type of their
//! second input.
//!
//! Beyond the ShapesContext spec, the contents (value-as-shape) survive a cast where
//! the target type holds them ([`cast_value`]); the spec drops them. So
//! `Shape -> Cast(int32) -> Cast(int64)` keeps its symbolic dims, and so does
//! `Shape -> Cast(float) -> Div -> Floor -> Cast(int64)`. The formats differ in one
//! place, float to integer ([`FloatToInt`]): ONNX truncates toward zero, OpenVINO
//! leaves the rounding unspecified ("3.141592 may be round to 3"), so only values
//! that are provably integers survive there.
//!
//! # Version history
//! * ONNX **Identity**: 1; 13 bf16; 14 sequences; 16 optionals; 19, 21, 23-25 types.
//! * ONNX **Cast**: 1 `to` is a string (`"FLOAT"`, `"INT64"`, ...); 6 `to` becomes an
//!   integer (`TensorProto.DataType`); 9 string tensors; 13 bf16; 19 the float8
//!   types and `saturate`; 21 int4 and uint4; 23 float4e2m1; 24 float8e8m0 and
//!   `round_mode`; 25 int2 and uint2. symdim accepts every type the reader knows in
//!   every version (type constraints are not checked per version for Cast).
//! * ONNX **CastLike**: 15; 19 the float8 types and `saturate`; 21 int4 and uint4;
//!   23 float4e2m1; 24 float8e8m0 and `round_mode`; 25 int2 and uint2.
//! * ONNX **BitCast**: 26 (the input's shape, the type of `to`, of the same bit
//!   width as the input's; no contents).
//! * OpenVINO **Convert**, **ConvertLike**: 1. **Identity**: 16.

use crate::algebra::{Algebra, Dim, Rat, Truth};
use crate::context::AttrProblem;
use crate::context::{OpError, ShapesContext, TensorFact, TypeConflict};
use crate::graph::{Attr, DType, Node};
use crate::ops::common::attrs::{bad_attr, bad_kind, ov_dtype};
use crate::ops::common::check_inputs;
use crate::ops::common::values::int_range;
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["Identity"], identity),
    ("", ["Cast"], cast),
    ("openvino", ["Identity"], identity),
    ("openvino", ["Convert", "ConvertLike"], ov_convert),
    ("", ["CastLike"], cast_like),
    ("", ["BitCast"], bit_cast),
];

/// How a cast from a float type to an integer type treats a value that may not be
/// an integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatToInt {
    /// Truncation toward zero (ONNX), kept where the value's sign is decided.
    Truncate,
    /// Unspecified rounding (OpenVINO): only values that are provably integers are
    /// kept.
    ExactOnly,
}

/// `Identity` (both formats): the input's fact, contents included; an ONNX
/// sequence (14) or optional (16) stays one.
fn identity(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "input")?;
    if let (Some(i), Some(o)) = (node.input(0), node.outputs.first()) {
        if let Some(seq) = ctx.sequence(i).cloned() {
            ctx.set_sequence(o, seq);
        } else if let Some(opt) = ctx.optional(i).cloned() {
            ctx.set_optional(o, opt);
        }
    }
    Ok(vec![x])
}

/// ONNX `BitCast` (26): the input's shape in the type of `to`, which must have the
/// input type's bit width (and neither may be a string).
fn bit_cast(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "input")?;
    let to = cast_target(node)?;
    if to == DType::String || x.dtype == DType::String {
        return Err(OpError::TypeMismatch {
            conflict: TypeConflict::BitCastString { from: x.dtype, to },
        });
    }
    if let (Some(a), Some(b)) = (x.dtype.bit_width(), to.bit_width()) {
        if a != b {
            return Err(OpError::TypeMismatch {
                conflict: TypeConflict::BitCastWidth {
                    from: x.dtype,
                    from_bits: a,
                    to,
                    to_bits: b,
                },
            });
        }
    }
    Ok(vec![TensorFact {
        fill: None,
        dtype: to,
        shape: x.shape,
        value: None,
    }])
}

/// The element type named by Cast's `to` attribute: an int (Cast-6 on), or in
/// Cast-1 the string the spec gives it, a `TensorProto.DataType` name (the ONNX
/// reader decodes attributes by their protobuf type, so the name is read here, as
/// an enumeration of the op's own spec).
pub fn cast_target(node: &Node) -> Result<DType, OpError> {
    match node.attr("to") {
        None => Err(OpError::MissingAttribute { name: "to" }),
        Some(a @ Attr::Int(n)) => {
            let known = i32::try_from(*n)
                .ok()
                .map(DType::from_i32)
                .filter(|t| !matches!(t, DType::Unknown(_) | DType::Undefined));
            known.ok_or_else(|| {
                bad_attr(
                    "to",
                    a,
                    AttrProblem::Fixed("not a known TensorProto.DataType"),
                )
            })
        }
        Some(a @ Attr::Str(s)) => (0..=28)
            .map(DType::from_i32)
            .find(|t| *t != DType::Undefined && t.onnx_name() == Some(s.as_str()))
            .ok_or_else(|| {
                bad_attr(
                    "to",
                    a,
                    AttrProblem::Fixed("not a known TensorProto.DataType name"),
                )
            }),
        Some(other) => Err(bad_kind("to", other, "an int")),
    }
}

/// The largest integer magnitude a float type represents exactly (all smaller
/// integers too): 2^11 for f16, 2^8 for bf16, 2^24 for f32, 2^53 for f64.
fn exact_int_limit(t: DType) -> Option<i64> {
    match t {
        DType::Float16 => Some(1 << 11),
        DType::Bfloat16 => Some(1 << 8),
        DType::Float => Some(1 << 24),
        DType::Double => Some(1 << 53),
        _ => None,
    }
}

fn is_float(t: DType) -> bool {
    exact_int_limit(t).is_some()
}

/// The contents after a cast from `from` to `to`, when they survive it:
/// - integer (or bool) to integer, when no value is provably outside the target
///   type's range (a symbolic dim that merely could exceed a narrow type, a dim `B`
///   cast to int32, is assumed to fit: a model whose dims wrap is broken anyway);
/// - to bool: `x != 0`, where that is decided;
/// - integer to float, when no value provably exceeds the integers the float type
///   holds exactly (the same assumption for symbolic dims): this is what keeps
///   `Floor`/`Ceil`/`Sqrt` on shape values computable through float casts;
/// - float to integer as `rounding` says, then the range check.
///
/// Casts from or to other types (string, complex) drop them.
pub fn cast_value(
    alg: &mut Algebra,
    from: DType,
    to: DType,
    value: &[Dim],
    rounding: FloatToInt,
) -> Option<Vec<Dim>> {
    let numeric = from.is_integer() || is_float(from);
    if !numeric {
        return None;
    }
    if to == DType::Bool {
        let zero = alg.constant(0);
        let one = alg.constant(1);
        return value
            .iter()
            .map(|d| match alg.equal(*d, zero) {
                Truth::True => Some(zero),
                Truth::False => Some(one),
                Truth::Unknown => None,
            })
            .collect();
    }
    if let Some(limit) = exact_int_limit(to) {
        let fits = value.iter().all(|d| {
            let b = alg.bounds(*d);
            let lim = Rat::int(limit);
            !(b.hi().is_some_and(|h| *h < lim.neg()) || b.lo().is_some_and(|l| *l > lim))
        });
        return fits.then(|| value.to_vec());
    }
    let (lo, hi) = int_range(to)?;
    let truncated: Vec<Dim> = if is_float(from) {
        value
            .iter()
            .map(|d| {
                let b = alg.bounds(*d);
                let one = alg.constant(1);
                match rounding {
                    FloatToInt::ExactOnly => (alg.divides(one, *d) == Truth::True).then_some(*d),
                    FloatToInt::Truncate if b.is_nonneg() => Some(alg.floordiv(*d, one)),
                    FloatToInt::Truncate if b.hi().is_some_and(|h| !h.is_positive()) => {
                        Some(alg.ceildiv(*d, one))
                    }
                    FloatToInt::Truncate => None,
                }
            })
            .collect::<Option<Vec<Dim>>>()?
    } else {
        value.to_vec()
    };
    let outside = truncated.iter().any(|d| {
        let b = alg.bounds(*d);
        b.hi().is_some_and(|h| *h < lo) || b.lo().is_some_and(|l| *l > hi)
    });
    (!outside).then_some(truncated)
}

/// ONNX `Cast` (see the module docs).
pub fn cast(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let input = ctx.input(node, 0, "input")?;
    let to = cast_target(node)?;
    let value = input
        .value
        .as_deref()
        .and_then(|v| cast_value(&mut ctx.alg, input.dtype, to, v, FloatToInt::Truncate));
    // A fill converts as one element would.
    let fill = match (&value, input.fill) {
        (None, Some(f)) => cast_value(&mut ctx.alg, input.dtype, to, &[f], FloatToInt::Truncate)
            .and_then(|v| v.first().copied()),
        _ => None,
    };
    Ok(vec![TensorFact {
        fill,
        dtype: to,
        shape: input.shape,
        value,
    }])
}

/// OpenVINO `Convert` (`destination_type`) and `ConvertLike` (the type of input 1).
fn ov_convert(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let x = ctx.input(node, 0, "data")?;
    let to = if node.op_type == "ConvertLike" {
        ctx.input(node, 1, "like")?.dtype
    } else {
        ov_dtype(node, "destination_type")?.unwrap_or(x.dtype)
    };
    let value = x
        .value
        .as_deref()
        .and_then(|v| cast_value(&mut ctx.alg, x.dtype, to, v, FloatToInt::ExactOnly));
    Ok(vec![TensorFact {
        fill: None,
        dtype: to,
        shape: x.shape,
        value,
    }])
}

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
        fill: None,
        dtype: to,
        shape: input.shape,
        value,
    }])
}
