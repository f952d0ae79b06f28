//! The OpenVINO elementwise ops: unary maps, binary ops by `auto_broadcast`,
//! `ConvertPromoteTypes`, `Select` and `FakeQuantize`.

use super::kernel::{
    node_binary_values, select_shape, select_values, unary_values, BinOp, Cmp, IntRound, Logic,
    Num, Unary,
};
use crate::context::{AttrProblem, AttrValue};
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};
use crate::ops::common::attrs::{ov_bool, ov_i64, ov_str};
use crate::ops::common::broadcast::{auto_broadcast_shapes, broadcast_all, AutoBroadcast};
use crate::ops::common::check_inputs;
use crate::ops::common::dims::shaped;
use crate::ops::common::values::fact_with_value;

/// `auto_broadcast` of an OpenVINO op: `numpy` (the default), `none`, or `pdpd`
/// with `axis` (default -1).
pub(super) fn auto_broadcast(node: &Node) -> Result<AutoBroadcast, OpError> {
    let text = ov_str(node, "auto_broadcast")?.unwrap_or("numpy");
    match AutoBroadcast::parse(text) {
        _ if text.is_empty() => Ok(AutoBroadcast::Numpy),
        Some(AutoBroadcast::Pdpd { .. }) => Ok(AutoBroadcast::Pdpd {
            axis: ov_i64(node, "axis")?.unwrap_or(-1),
        }),
        Some(mode) => Ok(mode),
        None => Err(OpError::BadAttribute {
            name: "auto_broadcast",
            value: AttrValue::Word(text.to_ascii_lowercase()),
            why: Box::new(AttrProblem::one_of(&["numpy", "none", "pdpd"])),
        }),
    }
}

/// The OpenVINO unary ops that have a value.
pub(super) fn unary_op(op: &str) -> Option<Unary> {
    Some(match op {
        "Negative" => Unary::Neg,
        "Abs" => Unary::Abs,
        "Sign" => Unary::Sign,
        "Relu" | "ReLU" => Unary::Relu,
        "Floor" => Unary::Floor,
        "Ceiling" => Unary::Ceil,
        "Sqrt" => Unary::Sqrt,
        "LogicalNot" => Unary::Not,
        _ => return None,
    })
}

/// OpenVINO ops whose outputs have the data's shape (input 0) and type (bool for
/// the predicates): unary maps and activations, normalisations, `Roll`; values for
/// the maps that have one.
pub fn same_shape(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let x = ctx.input(node, 0, "data")?;
    let op = node.op_type.as_str();
    let dtype = if matches!(op, "LogicalNot" | "IsNaN" | "IsInf" | "IsFinite") {
        DType::Bool
    } else {
        x.dtype
    };
    let value = unary_op(op).and_then(|u| unary_values(&mut ctx.alg, u, &x));
    let f = TensorFact {
        fill: None,
        dtype,
        shape: x.shape,
        value,
    };
    Ok(vec![f; node.outputs.len().max(1)])
}

/// The OpenVINO binary ops (`Divide` floors with `m_pythondiv`, the default).
pub(super) fn bin_op(node: &Node) -> Option<BinOp> {
    Some(match node.op_type.as_str() {
        "Add" => BinOp::Add,
        "Subtract" => BinOp::Sub,
        "Multiply" => BinOp::Mul,
        "Divide" if ov_bool(node, "m_pythondiv", true).unwrap_or(true) => {
            BinOp::Div(IntRound::Floor)
        }
        "Divide" => BinOp::Div(IntRound::Trunc),
        "Maximum" => BinOp::Max,
        "Minimum" => BinOp::Min,
        "Power" => BinOp::Pow,
        "SquaredDifference" => BinOp::SquaredDiff,
        "FloorMod" => BinOp::Mod(IntRound::Floor),
        "Mod" => BinOp::Mod(IntRound::Trunc),
        "Equal" => BinOp::Cmp(Cmp::Eq),
        "NotEqual" => BinOp::Cmp(Cmp::Ne),
        "Less" => BinOp::Cmp(Cmp::Lt),
        "LessEqual" => BinOp::Cmp(Cmp::Le),
        "Greater" => BinOp::Cmp(Cmp::Gt),
        "GreaterEqual" => BinOp::Cmp(Cmp::Ge),
        "LogicalAnd" => BinOp::Logic(Logic::And),
        "LogicalOr" => BinOp::Logic(Logic::Or),
        "LogicalXor" | "Xor" => BinOp::Logic(Logic::Xor),
        _ => return None,
    })
}

/// OpenVINO binary elementwise ops: `auto_broadcast`; values when both inputs
/// have them.
pub(super) fn binary(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let a = ctx.input(node, 0, "A")?;
    let b = ctx.input(node, 1, "B")?;
    let op = bin_op(node);
    let bitwise = node.op_type.starts_with("Bitwise");
    if op.is_none() && !bitwise {
        return Err(OpError::WrongOp {
            expected: "a binary elementwise op",
            found: node.op_type.to_string(),
        });
    }
    let dtype = if op.is_some_and(BinOp::is_predicate) {
        DType::Bool
    } else {
        a.dtype
    };
    let mode = auto_broadcast(node)?;
    let (Some(x), Some(y)) = (&a.shape, &b.shape) else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    let shape = auto_broadcast_shapes(ctx, node, mode, x, y)?;
    let num = if a.dtype.is_integer() && b.dtype.is_integer() {
        Num::Int
    } else {
        Num::Float
    };
    let value = match op {
        Some(op) => node_binary_values(ctx, node, op, num, &a, &b, &shape, None)?,
        None => None,
    };
    Ok(vec![fact_with_value(dtype, shape, value)])
}

/// The type two operands promote to (OpenVINO ConvertPromoteTypes-14): bool gives
/// way to anything; a float beats an integer; of two floats or two integers of one
/// signedness the wider; a signed and an unsigned integer give the signed one when
/// it is wider, else the next wider signed type, and `u64` with a signed integer
/// gives `u64_target`. `None` when the promotion is not defined here.
pub fn promote_types(a: DType, b: DType, u64_target: DType) -> Option<DType> {
    use DType as T;
    if a == b {
        return Some(a);
    }
    let is_float = |t: DType| matches!(t, T::Float16 | T::Bfloat16 | T::Float | T::Double);
    let signed = |t: DType| matches!(t, T::Int4 | T::Int8 | T::Int16 | T::Int32 | T::Int64);
    let width = |t: DType| t.bit_width();
    match (a, b) {
        (T::Undefined, _) | (_, T::Undefined) => None,
        (T::Bool, t) | (t, T::Bool) => Some(t),
        (x, y) if is_float(x) && is_float(y) => match (x, y) {
            (T::Float16, T::Bfloat16) | (T::Bfloat16, T::Float16) => Some(T::Float),
            _ if width(x)? >= width(y)? => Some(x),
            _ => Some(y),
        },
        (x, y) if is_float(x) => Some(x).filter(|_| y.is_integer()),
        (x, y) if is_float(y) => Some(y).filter(|_| x.is_integer()),
        (x, y) if x.is_integer() && y.is_integer() => {
            if signed(x) == signed(y) {
                return Some(if width(x)? >= width(y)? { x } else { y });
            }
            let (s, u) = if signed(x) { (x, y) } else { (y, x) };
            if width(s)? > width(u)? {
                return Some(s);
            }
            Some(match width(u)? {
                ..=4 => T::Int8,
                5..=8 => T::Int16,
                9..=16 => T::Int32,
                17..=32 => T::Int64,
                _ => u64_target,
            })
        }
        _ => None,
    }
}

/// OpenVINO ConvertPromoteTypes-14: both inputs, converted to their common type.
pub(super) fn convert_promote_types(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let a = ctx.input(node, 0, "input_0")?;
    let b = ctx.input(node, 1, "input_1")?;
    let target = crate::ops::common::attrs::ov_dtype(node, "u64_integer_promotion_target")?
        .unwrap_or(DType::Float);
    let t = promote_types(a.dtype, b.dtype, target).unwrap_or(DType::Undefined);
    Ok(vec![shaped(t, a.shape), shaped(t, b.shape)])
}

/// OpenVINO Select(cond, then, else); values when the condition is decided.
pub(super) fn select(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let c = ctx.input(node, 0, "cond")?;
    let t = ctx.input(node, 1, "then")?;
    let e = ctx.input(node, 2, "else")?;
    let mode = auto_broadcast(node)?;
    let Some(shape) = select_shape(ctx, node, mode, &c, &t, &e)? else {
        return Ok(vec![TensorFact::unknown(t.dtype)]);
    };
    let value = select_values(&ctx.alg, &shape, &c, &t, &e);
    Ok(vec![fact_with_value(t.dtype, shape, value)])
}

/// OpenVINO FakeQuantize: the broadcast of its five inputs (the data's shape with
/// `auto_broadcast = none`).
pub(super) fn fake_quantize(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    let x = ctx.input(node, 0, "data")?;
    let mut shapes = Vec::new();
    for i in 0..node.input_count() {
        shapes.push(ctx.input(node, i, "input")?.shape);
    }
    let shape = if auto_broadcast(node)? == AutoBroadcast::None {
        x.shape.clone()
    } else {
        broadcast_all(ctx, node, &shapes)?
    };
    Ok(vec![TensorFact {
        fill: None,
        dtype: x.dtype,
        shape,
        value: None,
    }])
}
