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
//! `Shape -> Cast(int32) -> Cast(int64)` keeps its symbolic dims. A cast to bool
//! keeps `x != 0` where it is decided; an integer-to-float cast keeps the values
//! the float type holds exactly (so `Shape -> Cast(float) -> Div -> Floor ->
//! Cast(int64)` stays symbolic); a float-to-integer cast truncates toward zero
//! where the sign is decided. Casts to string drop them.
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

use super::values::int_range;
use super::{check_inputs, RuleEntry};
use crate::algebra::{Dim, Rat, Truth};
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

/// The contents after a cast, when they survive it:
/// - integer (or bool) to integer, when no value is provably outside the target
///   type's range (a symbolic dim that merely could exceed a narrow type, a dim `B`
///   cast to int32, is assumed to fit: a model whose dims wrap is broken anyway);
/// - to bool: `x != 0`, where that is decided;
/// - integer to float, when no value provably exceeds the integers the float type
///   holds exactly (the same assumption for symbolic dims): this is what keeps
///   `Floor`/`Ceil`/`Sqrt` on shape values computable through float casts;
/// - float to integer: truncation toward zero, where the sign is decided.
fn cast_value(ctx: &mut ShapesContext, from: DType, to: DType, value: &[Dim]) -> Option<Vec<Dim>> {
    let numeric = from.is_integer() || is_float(from);
    if !numeric {
        return None;
    }
    if to == DType::Bool {
        let zero = ctx.alg.constant(0);
        let one = ctx.alg.constant(1);
        return value
            .iter()
            .map(|d| match ctx.alg.equal(*d, zero) {
                Truth::True => Some(zero),
                Truth::False => Some(one),
                Truth::Unknown => None,
            })
            .collect();
    }
    if let Some(limit) = exact_int_limit(to) {
        let fits = value.iter().all(|d| {
            let b = ctx.alg.bounds(*d);
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
                let b = ctx.alg.bounds(*d);
                let one = ctx.alg.constant(1);
                if b.is_nonneg() {
                    Some(ctx.alg.floordiv(*d, one))
                } else if b.hi().is_some_and(|h| !h.is_positive()) {
                    Some(ctx.alg.ceildiv(*d, one))
                } else {
                    None
                }
            })
            .collect::<Option<Vec<Dim>>>()?
    } else {
        value.to_vec()
    };
    let outside = truncated.iter().any(|d| {
        let b = ctx.alg.bounds(*d);
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
        .and_then(|v| cast_value(ctx, input.dtype, to, v));
    Ok(vec![TensorFact {
        dtype: to,
        shape: input.shape,
        value,
    }])
}
