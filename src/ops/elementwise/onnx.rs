//! The ONNX elementwise ops: unary maps and `Clip`, binary ops (legacy `broadcast`
//! before opset 7), `PRelu`, `Where` and the variadic ops.

use super::arith::{check_same_type, first_defined, is_float};
use super::kernel::{
    binary_uniform, node_binary_values, select_shape, select_uniform, select_values, unary_values,
    BinOp, Cmp, IntRound, Logic, Num, Unary,
};
use crate::algebra::{Dim, Truth};
use crate::context::float_rat;
use crate::context::DimRole;
use crate::context::{Allowed, Expected, OpError, ShapesContext, TensorFact, TypeConflict};
use crate::context::{AttrProblem, AttrValue};
use crate::graph::{DType, Node};
use crate::ops::common::attrs::{attr_float, attr_int, attr_str};
use crate::ops::common::broadcast::{broadcast_shapes, check_broadcasts_to, AutoBroadcast};
use crate::ops::common::check_inputs;
use crate::ops::common::values::{broadcast_values, check_int_range, fact_with_value};

pub(super) fn unary(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "X")?;
    let op = node.op_type.as_str();
    let dtype = match op {
        "IsNaN" | "IsInf" => DType::Bool,
        _ => x.dtype,
    };
    let Some(shape) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    let value = onnx_unary_op(op).and_then(|u| unary_values(&mut ctx.alg, u, &x));
    if let Some(v) = &value {
        check_int_range(&ctx.alg, dtype, v, &node.op_type)?;
    }
    Ok(vec![fact_with_value(dtype, shape, value)])
}

/// The ONNX unary ops that have a value.
pub(super) fn onnx_unary_op(op: &str) -> Option<Unary> {
    Some(match op {
        "Neg" => Unary::Neg,
        "Abs" => Unary::Abs,
        "Sign" => Unary::Sign,
        "Relu" => Unary::Relu,
        "Floor" => Unary::Floor,
        "Ceil" => Unary::Ceil,
        "Sqrt" => Unary::Sqrt,
        "Reciprocal" => Unary::Reciprocal,
        "Not" => Unary::Not,
        _ => return None,
    })
}

pub(super) fn clip(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, if node.version >= 11 { 3 } else { 1 })?;
    let x = ctx.input(node, 0, "input")?;
    let Some(shape) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    // Bounds: None = absent (no clipping on that side); Some(None) = unknown.
    let mut bounds: [Option<Option<Dim>>; 2] = [None, None];
    if node.version >= 11 {
        for (i, slot) in bounds.iter_mut().enumerate() {
            if let Some(f) = ctx.optional_input(node, i + 1)? {
                check_same_type(&x, &f, ("input", if i == 0 { "min" } else { "max" }))?;
                if let Some(s) = &f.shape {
                    if !s.is_empty() {
                        return Err(OpError::Rank {
                            of: Box::new((if i == 0 { "min" } else { "max" }).into()),
                            expected: Expected::Exactly(0).noted("a scalar"),
                            found: s.len(),
                        });
                    }
                }
                *slot = Some(f.value.as_deref().and_then(|v| v.first().copied()));
            }
        }
    } else {
        for (i, name) in ["min", "max"].into_iter().enumerate() {
            if node.attr(name).is_some() {
                let v = attr_float(node, if i == 0 { "min" } else { "max" }, 0.0)?;
                // The defaults of Clip-6 are -/+ FLT_MAX: no clipping.
                if v.abs() < f64::from(f32::MAX) {
                    bounds[i] = Some(float_rat(v).map(|r| ctx.alg.rational(r)));
                }
            }
        }
    }
    let value = x.value.as_ref().and_then(|v| {
        let lo = match bounds[0] {
            Some(None) => return None,
            Some(Some(d)) => Some(d),
            None => None,
        };
        let hi = match bounds[1] {
            Some(None) => return None,
            Some(Some(d)) => Some(d),
            None => None,
        };
        Some(
            v.iter()
                .map(|&e| {
                    let e = match lo {
                        Some(l) => ctx.alg.max(e, l),
                        None => e,
                    };
                    match hi {
                        Some(h) => ctx.alg.min(e, h),
                        None => e,
                    }
                })
                .collect(),
        )
    });
    Ok(vec![fact_with_value(x.dtype, shape, value)])
}

// ----- ONNX: binary ---------------------------------------------------------------------

/// Ops whose opsets 1 and 6 use legacy (`broadcast` attribute) broadcasting.
pub(super) const LEGACY: &[&str] = &[
    "Add", "Sub", "Mul", "Div", "Pow", "And", "Or", "Xor", "Equal", "Less", "Greater",
];

pub(super) fn binary(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let a = ctx.input(node, 0, "A")?;
    let b = ctx.input(node, 1, "B")?;
    let op = node.op_type.as_str();
    if op != "Pow" {
        check_same_type(&a, &b, ("A", "B"))?;
    }
    let in_type = first_defined(a.dtype, b.dtype);
    let dtype = match op {
        "Equal" | "Less" | "Greater" | "LessOrEqual" | "GreaterOrEqual" | "And" | "Or" | "Xor" => {
            DType::Bool
        }
        "Pow" => a.dtype,
        _ => in_type,
    };
    let fmod = if op == "Mod" {
        let f = attr_int(node, "fmod", 0)?;
        // Mod-28 defines `fmod = 0` for floats too (A - floor(A / B) * B).
        if f == 0 && is_float(in_type) && node.version < 28 {
            return Err(OpError::BadAttribute {
                name: "fmod",
                value: AttrValue::Int(0),
                why: Box::new(AttrProblem::FmodOnFloat(in_type)),
            });
        }
        f != 0
    } else {
        false
    };
    if op == "BitShift" {
        match attr_str(node, "direction")? {
            Some("LEFT") | Some("RIGHT") => {}
            other => {
                return Err(OpError::BadAttribute {
                    name: "direction",
                    value: AttrValue::Optional(
                        other.map(|s| Box::new(AttrValue::Str(s.to_string()))),
                    ),
                    why: Box::new(AttrProblem::Fixed("must be \"LEFT\" or \"RIGHT\"")),
                })
            }
        }
    }
    let (Some(sa), Some(sb)) = (a.shape.clone(), b.shape.clone()) else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    let out = if node.version < 7 && LEGACY.contains(&op) {
        legacy_broadcast(ctx, node, &sa, &sb)?
    } else {
        broadcast_shapes(ctx, &node.name, &sa, &sb)?
    };
    let b_op = onnx_bin_op(op, fmod);
    let num = Num::of(in_type);
    let value = match b_op {
        Some(b_op) => node_binary_values(ctx, node, b_op, num, &a, &b, &out, Some(dtype))?,
        None => None,
    };
    let mut fact = fact_with_value(dtype, out, value);
    if let (None, Some(b_op)) = (&fact.value, b_op) {
        // two uniform operands (a fill over a symbolic shape): a uniform result
        if let Some(v) = binary_uniform(&mut ctx.alg, b_op, num, &a, &b) {
            check_int_range(&ctx.alg, dtype, &[v], &node.op_type)?;
            fact.fill = Some(v);
        }
    }
    Ok(vec![fact])
}

/// Opsets 1 and 6: with `broadcast = 1`, B is broadcast to A (the output has A's
/// shape); with `broadcast = 0`, the shapes must be equal.
pub(super) fn legacy_broadcast(
    ctx: &mut ShapesContext,
    node: &Node,
    sa: &[Dim],
    sb: &[Dim],
) -> Result<Vec<Dim>, OpError> {
    let bcast = attr_int(node, "broadcast", 0)? != 0;
    if bcast {
        if sb.len() > sa.len() {
            return Err(OpError::Rank {
                of: Box::new("B (broadcast to A)".into()),
                expected: Expected::AtMost(sa.len()),
                found: sb.len(),
            });
        }
        return Ok(sa.to_vec());
    }
    if sa.len() != sb.len() {
        return Err(OpError::Rank {
            of: Box::new("B (broadcast = 0: the same shape as A)".into()),
            expected: Expected::Exactly(sa.len()),
            found: sb.len(),
        });
    }
    for (axis, (x, y)) in sa.iter().zip(sb).enumerate() {
        if ctx.alg.equal(*x, *y) == Truth::False {
            return Err(OpError::DimMismatch {
                dims: Box::new(DimRole::axis(axis, ("A", "B (broadcast = 0)"))),
                left: ctx.alg.expr(*x),
                right: ctx.alg.expr(*y),
            });
        }
    }
    Ok(sa.to_vec())
}

/// The ONNX binary ops that have a value (`fmod`: Mod truncates).
pub(super) fn onnx_bin_op(op: &str, fmod: bool) -> Option<BinOp> {
    Some(match op {
        "Add" => BinOp::Add,
        "Sub" => BinOp::Sub,
        "Mul" => BinOp::Mul,
        "Div" => BinOp::Div(IntRound::Trunc),
        "Mod" if fmod => BinOp::Mod(IntRound::Trunc),
        "Mod" => BinOp::Mod(IntRound::Floor),
        "Pow" => BinOp::Pow,
        "Equal" => BinOp::Cmp(Cmp::Eq),
        "Less" => BinOp::Cmp(Cmp::Lt),
        "Greater" => BinOp::Cmp(Cmp::Gt),
        "LessOrEqual" => BinOp::Cmp(Cmp::Le),
        "GreaterOrEqual" => BinOp::Cmp(Cmp::Ge),
        "And" => BinOp::Logic(Logic::And),
        "Or" => BinOp::Logic(Logic::Or),
        "Xor" => BinOp::Logic(Logic::Xor),
        _ => return None,
    })
}

pub(super) fn prelu(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "X")?;
    let slope = ctx.input(node, 1, "slope")?;
    check_same_type(&x, &slope, ("X", "slope"))?;
    let Some(sx) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    if let Some(ss) = &slope.shape {
        if node.version >= 7 {
            check_broadcasts_to(ctx, &node.name, &sx, ss, "slope (broadcast to X)")?;
        }
    }
    Ok(vec![TensorFact::new(x.dtype, sx)])
}

/// ONNX Where(condition, X, Y): a bool condition, X and Y of one type; the
/// select kernel with numpy broadcasting.
pub(super) fn where_op(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let c = ctx.input(node, 0, "condition")?;
    let x = ctx.input(node, 1, "X")?;
    let y = ctx.input(node, 2, "Y")?;
    if !matches!(c.dtype, DType::Bool | DType::Undefined) {
        return Err(OpError::UnsupportedType {
            dtype: c.dtype,
            what: "condition",
            allowed: Allowed::Types(vec![DType::Bool]),
        });
    }
    if x.dtype != y.dtype && x.dtype != DType::Undefined && y.dtype != DType::Undefined {
        return Err(OpError::TypeMismatch {
            conflict: TypeConflict::inputs("X", x.dtype, "Y", y.dtype),
        });
    }
    let dtype = first_defined(x.dtype, y.dtype);
    let Some(out) = select_shape(ctx, node, AutoBroadcast::Numpy, &c, &x, &y)? else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    let value = select_values(&ctx.alg, &out, &c, &x, &y);
    let mut fact = fact_with_value(dtype, out, value);
    if fact.value.is_none() {
        fact.fill = select_uniform(&ctx.alg, &c, &x, &y);
    }
    Ok(vec![fact])
}

// ----- ONNX: variadic ---------------------------------------------------------------------

pub(super) fn variadic(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, usize::MAX)?;
    let op = node.op_type.as_str();
    let n = node.input_count();
    let mut facts = Vec::with_capacity(n);
    for i in 0..n {
        facts.push(ctx.input(node, i, "data")?);
    }
    for f in &facts[1..] {
        check_same_type(&facts[0], f, ("data_0", "another input"))?;
    }
    let dtype = facts
        .iter()
        .map(|f| f.dtype)
        .find(|d| *d != DType::Undefined)
        .unwrap_or(DType::Undefined);
    let shapes: Option<Vec<Vec<Dim>>> = facts.iter().map(|f| f.shape.clone()).collect();
    let Some(shapes) = shapes else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    let mut out = shapes[0].clone();
    for s in &shapes[1..] {
        out = if node.version < 8 {
            legacy_equal(ctx, &out, s)?
        } else {
            broadcast_shapes(ctx, &node.name, &out, s)?
        };
    }
    let refs: Vec<&TensorFact> = facts.iter().collect();
    let value = broadcast_values(&ctx.alg, &out, &refs).and_then(|vals| {
        let len = vals[0].len();
        (0..len)
            .map(|i| {
                let elems: Vec<Dim> = vals.iter().map(|v| v[i]).collect();
                let mut acc = elems[0];
                for e in &elems[1..] {
                    acc = match op {
                        "Max" => ctx.alg.max(acc, *e),
                        "Min" => ctx.alg.min(acc, *e),
                        _ => ctx.alg.add_dims(acc, *e),
                    };
                }
                if op == "Mean" {
                    if !is_float(dtype) {
                        return None;
                    }
                    let k = ctx.alg.constant(elems.len() as i64);
                    acc = ctx.alg.div_rational(acc, k);
                }
                Some(acc)
            })
            .collect::<Option<Vec<Dim>>>()
    });
    if let Some(v) = &value {
        check_int_range(&ctx.alg, dtype, v, &node.op_type)?;
    }
    Ok(vec![fact_with_value(dtype, out, value)])
}

/// Opsets 1 and 6 of Max/Min/Sum/Mean: every input has the same shape.
pub(super) fn legacy_equal(
    ctx: &mut ShapesContext,
    a: &[Dim],
    b: &[Dim],
) -> Result<Vec<Dim>, OpError> {
    if a.len() != b.len() {
        return Err(OpError::Rank {
            of: Box::new("an input (opset < 8: all inputs have one shape)".into()),
            expected: Expected::Exactly(a.len()),
            found: b.len(),
        });
    }
    for (axis, (x, y)) in a.iter().zip(b).enumerate() {
        if ctx.alg.equal(*x, *y) == Truth::False {
            return Err(OpError::DimMismatch {
                dims: Box::new(DimRole::axis(
                    axis,
                    "the inputs (opset < 8: no broadcasting)",
                )),
                left: ctx.alg.expr(*x),
                right: ctx.alg.expr(*y),
            });
        }
    }
    Ok(a.to_vec())
}
