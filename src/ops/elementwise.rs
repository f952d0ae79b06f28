//! Elementwise ops: unary maps, binary and variadic numpy-broadcasting ops, and
//! their values on shape tensors.
//!
//! Spec: the ONNX operator reference (opsets 1 to 25), "Broadcasting in ONNX"
//! (`docs/Broadcasting.md`). Shapes broadcast with
//! [`broadcast_shapes`]: a pair of dims that
//! cannot be decided stays `broadcast(a, b)`, never an unsafe merge.
//!
//! Output types: comparisons (`Equal`, `Less`, `Greater`, `LessOrEqual`,
//! `GreaterOrEqual`), logic (`And`, `Or`, `Xor`, `Not`) and `IsNaN`/`IsInf` give
//! `bool`; every other op gives its first input's type. Inputs that must share a
//! type and do not are a typed error.
//!
//! Values (shape tensors; booleans are `0`/`1`; every operation through the
//! algebra):
//! - `Add`, `Sub`, `Mul`, `Neg`, `Max`, `Min`, `Sum`, `Relu`, `Clip`: always.
//! - integer `Div` truncates toward zero. It is `floordiv` when the signs of both
//!   operands are proven (`alg.bounds`: `a >= 0, b > 0` gives `floordiv(a, b)`, the
//!   other sign cases negate), exact truncation when both are constants, and no
//!   value otherwise (the shape is still inferred). A divisor that may be 0 gives
//!   no value.
//! - float `Div` is exact rational division (divisor provably non-zero); `Mean`
//!   likewise; `Reciprocal` of a provably non-zero float.
//! - `Mod`: `fmod = 0` is floor semantics (the sign of the divisor, the algebra's
//!   `mod`); `fmod = 1` truncates (the sign of the dividend): `mod` when both are
//!   proven non-negative, exact for constants, no value otherwise.
//! - `Floor`, `Ceil` on rational values: `floordiv(x, 1)`, `ceildiv(x, 1)`.
//! - `Sqrt`: exact for a constant that is a perfect square (of a rational), no
//!   value otherwise.
//! - `Abs`, `Sign`: when the sign is proven.
//! - `Pow`: a constant integer exponent in `0..=16`.
//! - comparisons, `Not`, `And`, `Or`, `Xor`: only when every element is decided
//!   (`alg.equal`, `alg.le` give [`Truth`]); otherwise no value.
//!
//! Integer overflow (wrap-around of fixed-width types) is not modelled: values are
//! exact integers.
//!
//! Version history:
//! - **Add, Sub, Mul, Div**: 1 and 6 with `broadcast`/`axis` attributes (legacy
//!   broadcasting: B is broadcast to A's shape, so the output has A's shape); 7
//!   numpy broadcasting; 13 bf16; 14 more integer types.
//! - **Pow**: 1 (legacy broadcast); 7 numpy; 12 exponent type may differ; 13, 15.
//! - **Mod**: 10 (`fmod`); 13 bf16.
//! - **And, Or, Xor, Equal, Less, Greater**: 1 (legacy broadcast); 7 numpy;
//!   Equal 11/13/19 types, Less/Greater 9/13 types.
//! - **LessOrEqual, GreaterOrEqual**: 12; 16 bf16.
//! - **BitShift**: 11 (`direction`). **BitwiseAnd/Or/Xor/Not**: 18.
//! - **Max, Min, Sum, Mean**: 1 and 6 (all inputs of one shape); 8 numpy
//!   broadcasting of any number of inputs; Max/Min 12 integer types, 13 bf16.
//! - **Clip**: 1 and 6 `min`/`max` attributes; 11 optional inputs `min`, `max`;
//!   12 integer types; 13 bf16.
//! - **PRelu**: 1, 6; 7 `slope` broadcasts unidirectionally to X (output has X's
//!   shape); 9, 16 types.
//! - **Unary maps** (Neg, Abs, Reciprocal, Sqrt, Exp, Log, trigonometric,
//!   activations, Floor, Ceil, Round, Sign, Not, IsNaN, IsInf, ...): same shape in
//!   every version; versions only add types (6 drops `consumed_inputs`; 13 bf16).

use super::broadcast::broadcast_shapes;
use super::values::{broadcast_values, check_int_range, fact_with_value};
use super::{attr_float, attr_int, attr_str, check_inputs, RuleEntry};
use crate::algebra::{Algebra, Dim, Rat, Truth};
use crate::context::float_rat;
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};

/// The rules of this family.
pub const RULES: &[RuleEntry] = &[
    // unary maps
    ("", "Neg", unary),
    ("", "Abs", unary),
    ("", "Reciprocal", unary),
    ("", "Sqrt", unary),
    ("", "Exp", unary),
    ("", "Log", unary),
    ("", "Sin", unary),
    ("", "Cos", unary),
    ("", "Tan", unary),
    ("", "Asin", unary),
    ("", "Acos", unary),
    ("", "Atan", unary),
    ("", "Sinh", unary),
    ("", "Cosh", unary),
    ("", "Asinh", unary),
    ("", "Acosh", unary),
    ("", "Atanh", unary),
    ("", "Erf", unary),
    ("", "Tanh", unary),
    ("", "Sigmoid", unary),
    ("", "HardSigmoid", unary),
    ("", "HardSwish", unary),
    ("", "Relu", unary),
    ("", "LeakyRelu", unary),
    ("", "Elu", unary),
    ("", "Selu", unary),
    ("", "Celu", unary),
    ("", "ThresholdedRelu", unary),
    ("", "Gelu", unary),
    ("", "Mish", unary),
    ("", "Softplus", unary),
    ("", "Softsign", unary),
    ("", "Shrink", unary),
    ("", "Floor", unary),
    ("", "Ceil", unary),
    ("", "Round", unary),
    ("", "Sign", unary),
    ("", "Not", unary),
    ("", "BitwiseNot", unary),
    ("", "IsNaN", unary),
    ("", "IsInf", unary),
    ("", "Clip", clip),
    // binary
    ("", "Add", binary),
    ("", "Sub", binary),
    ("", "Mul", binary),
    ("", "Div", binary),
    ("", "Pow", binary),
    ("", "Mod", binary),
    ("", "And", binary),
    ("", "Or", binary),
    ("", "Xor", binary),
    ("", "Equal", binary),
    ("", "Less", binary),
    ("", "Greater", binary),
    ("", "LessOrEqual", binary),
    ("", "GreaterOrEqual", binary),
    ("", "BitShift", binary),
    ("", "BitwiseAnd", binary),
    ("", "BitwiseOr", binary),
    ("", "BitwiseXor", binary),
    ("", "PRelu", prelu),
    // variadic
    ("", "Max", variadic),
    ("", "Min", variadic),
    ("", "Sum", variadic),
    ("", "Mean", variadic),
];

/// Whether a type is a floating-point type (not integer, bool, string or unknown).
pub fn is_float(d: DType) -> bool {
    !d.is_integer() && !matches!(d, DType::Undefined | DType::String | DType::Unknown(_))
}

/// `a` when defined, else `b`.
fn first_defined(a: DType, b: DType) -> DType {
    if a == DType::Undefined {
        b
    } else {
        a
    }
}

fn check_same_type(a: &TensorFact, b: &TensorFact, names: (&str, &str)) -> Result<(), OpError> {
    if a.dtype != b.dtype && a.dtype != DType::Undefined && b.dtype != DType::Undefined {
        return Err(OpError::TypeMismatch {
            what: format!("{} is {}, {} is {}", names.0, a.dtype, names.1, b.dtype),
        });
    }
    Ok(())
}

fn bool_dim(alg: &mut Algebra, t: bool) -> Dim {
    alg.constant(i64::from(t))
}

/// A boolean element: `Some(true/false)` when decided.
fn truth_of(alg: &mut Algebra, x: Dim) -> Option<bool> {
    let zero = alg.constant(0);
    match alg.equal(x, zero) {
        Truth::True => Some(false),
        Truth::False => Some(true),
        Truth::Unknown => None,
    }
}

fn decided(t: Truth) -> Option<bool> {
    match t {
        Truth::True => Some(true),
        Truth::False => Some(false),
        Truth::Unknown => None,
    }
}

/// `a < b`, decided: `!(b <= a)`.
fn less(alg: &mut Algebra, a: Dim, b: Dim) -> Option<bool> {
    decided(alg.le(b, a)).map(|t| !t)
}

fn nonzero(alg: &Algebra, d: Dim) -> bool {
    !alg.bounds(d).contains(&Rat::zero())
}

fn nonpositive(alg: &Algebra, d: Dim) -> bool {
    alg.bounds(d).hi().is_some_and(|h| !h.is_positive())
}

/// ONNX integer division (truncation toward zero); see the module doc.
pub fn trunc_div(alg: &mut Algebra, a: Dim, b: Dim) -> Option<Dim> {
    if let (Some(x), Some(y)) = (alg.as_const(a), alg.as_const(b)) {
        let q = x.div(&y)?.trunc();
        return Some(alg.rational(q));
    }
    let (a_pos, a_neg) = (alg.bounds(a).is_nonneg(), nonpositive(alg, a));
    let (b_pos, b_neg) = (alg.bounds(b).is_positive(), alg.bounds(b).is_negative());
    match (a_pos, a_neg, b_pos, b_neg) {
        (true, _, true, _) => Some(alg.floordiv(a, b)),
        (_, true, true, _) => {
            let na = alg.neg(a);
            let q = alg.floordiv(na, b);
            Some(alg.neg(q))
        }
        (true, _, _, true) => {
            let nb = alg.neg(b);
            let q = alg.floordiv(a, nb);
            Some(alg.neg(q))
        }
        (_, true, _, true) => {
            let (na, nb) = (alg.neg(a), alg.neg(b));
            Some(alg.floordiv(na, nb))
        }
        _ => None,
    }
}

/// Truncated remainder (C `fmod`, the sign of the dividend).
fn trunc_mod(alg: &mut Algebra, a: Dim, b: Dim) -> Option<Dim> {
    if alg.as_const(a).is_some() && alg.as_const(b).is_some() {
        let q = trunc_div(alg, a, b)?;
        let p = alg.mul(q, b);
        return Some(alg.sub(a, p));
    }
    if alg.bounds(a).is_nonneg() && alg.bounds(b).is_positive() {
        return Some(alg.modulo(a, b));
    }
    None
}

/// The square root of a constant that is the square of a rational.
fn exact_sqrt(alg: &mut Algebra, x: Dim) -> Option<Dim> {
    let c = alg.as_const(x)?;
    if c.is_negative() {
        return None;
    }
    let (n, d) = (c.numer(), c.denom());
    let (rn, rd) = (n.sqrt(), d.sqrt());
    if &rn * &rn != n || &rd * &rd != d {
        return None;
    }
    let r = num_rational::BigRational::new(rn, rd);
    Some(alg.rational(Rat::from_big(r)))
}

/// The least common denominator of the coefficients of a dim's canonical form.
fn common_denominator(alg: &Algebra, x: Dim) -> Rat {
    let mut k = Rat::one();
    for (_, c) in &alg.canon(x).0 {
        k = k.lcm(&Rat::from_bigint(c.denom()));
    }
    k
}

// ----- unary ---------------------------------------------------------------------

fn unary(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
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
    let float = is_float(x.dtype);
    let value = x.value.as_ref().and_then(|v| {
        v.iter()
            .map(|&e| unary_value(&mut ctx.alg, op, e, float))
            .collect::<Option<Vec<Dim>>>()
    });
    if let Some(v) = &value {
        check_int_range(&ctx.alg, dtype, v, &node.op_type)?;
    }
    Ok(vec![fact_with_value(dtype, shape, value)])
}

fn unary_value(alg: &mut Algebra, op: &str, x: Dim, float: bool) -> Option<Dim> {
    let zero = alg.constant(0);
    let one = alg.constant(1);
    match op {
        "Neg" => Some(alg.neg(x)),
        "Abs" => {
            if alg.bounds(x).is_nonneg() {
                Some(x)
            } else if nonpositive(alg, x) {
                Some(alg.neg(x))
            } else {
                None
            }
        }
        "Sign" => {
            let b = alg.bounds(x);
            if b.is_positive() {
                Some(one)
            } else if b.is_negative() {
                Some(alg.constant(-1))
            } else if b.as_point().is_some_and(Rat::is_zero) {
                Some(zero)
            } else {
                None
            }
        }
        "Relu" => Some(alg.max(x, zero)),
        "Floor" | "Ceil" => {
            // floor(x) = floordiv(k*x, k) with k the common denominator of x's
            // coefficients: `floor(S/2)` becomes `floordiv(S, 2)`, which the
            // algebra's rules know (it does not rewrite `floordiv(S/2, 1)`).
            let k = common_denominator(alg, x);
            let (num, den) = if k.is_one() {
                (x, one)
            } else {
                let kd = alg.rational(k);
                (alg.mul(x, kd), kd)
            };
            Some(if op == "Floor" {
                alg.floordiv(num, den)
            } else {
                alg.ceildiv(num, den)
            })
        }
        "Sqrt" => exact_sqrt(alg, x),
        "Reciprocal" if float && nonzero(alg, x) => Some(alg.div_rational(one, x)),
        "Not" => truth_of(alg, x).map(|t| bool_dim(alg, !t)),
        _ => None,
    }
}

fn clip(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
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
                            what: (if i == 0 { "min" } else { "max" }).to_string(),
                            expected: "0 (a scalar)".to_string(),
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

// ----- binary ----------------------------------------------------------------------

/// Ops whose opsets 1 and 6 use legacy (`broadcast` attribute) broadcasting.
const LEGACY: &[&str] = &[
    "Add", "Sub", "Mul", "Div", "Pow", "And", "Or", "Xor", "Equal", "Less", "Greater",
];

fn binary(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
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
        if f == 0 && is_float(in_type) {
            return Err(OpError::BadAttribute {
                name: "fmod",
                value: "0".to_string(),
                why: format!("must be 1 for the float type {in_type}"),
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
                    value: format!("{other:?}"),
                    why: "must be \"LEFT\" or \"RIGHT\"".to_string(),
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
    let value = broadcast_values(&ctx.alg, &out, &[&a, &b]).and_then(|v| {
        v[0].iter()
            .zip(&v[1])
            .map(|(x, y)| binary_value(&mut ctx.alg, op, in_type, fmod, *x, *y))
            .collect::<Option<Vec<Dim>>>()
    });
    if let Some(v) = &value {
        check_int_range(&ctx.alg, dtype, v, &node.op_type)?;
    }
    Ok(vec![fact_with_value(dtype, out, value)])
}

/// Opsets 1 and 6: with `broadcast = 1`, B is broadcast to A (the output has A's
/// shape); with `broadcast = 0`, the shapes must be equal.
fn legacy_broadcast(
    ctx: &mut ShapesContext,
    node: &Node,
    sa: &[Dim],
    sb: &[Dim],
) -> Result<Vec<Dim>, OpError> {
    let bcast = attr_int(node, "broadcast", 0)? != 0;
    if bcast {
        if sb.len() > sa.len() {
            return Err(OpError::Rank {
                what: "B (broadcast to A)".to_string(),
                expected: format!("at most {}", sa.len()),
                found: sb.len(),
            });
        }
        return Ok(sa.to_vec());
    }
    if sa.len() != sb.len() {
        return Err(OpError::Rank {
            what: "B (broadcast = 0: the same shape as A)".to_string(),
            expected: sa.len().to_string(),
            found: sb.len(),
        });
    }
    for (axis, (x, y)) in sa.iter().zip(sb).enumerate() {
        if ctx.alg.equal(*x, *y) == Truth::False {
            return Err(OpError::DimMismatch {
                what: format!("axis {axis} of A and B (broadcast = 0)"),
                left: ctx.alg.render(*x),
                right: ctx.alg.render(*y),
            });
        }
    }
    Ok(sa.to_vec())
}

fn binary_value(
    alg: &mut Algebra,
    op: &str,
    in_type: DType,
    fmod: bool,
    x: Dim,
    y: Dim,
) -> Option<Dim> {
    let float = is_float(in_type);
    let integer = in_type.is_integer();
    match op {
        "Add" => Some(alg.add_dims(x, y)),
        "Sub" => Some(alg.sub(x, y)),
        "Mul" => Some(alg.mul(x, y)),
        "Div" if integer => trunc_div(alg, x, y),
        "Div" if float && nonzero(alg, y) => Some(alg.div_rational(x, y)),
        "Mod" if !fmod && integer && nonzero(alg, y) => Some(alg.modulo(x, y)),
        "Mod" if fmod && (integer || float) => trunc_mod(alg, x, y),
        "Pow" => {
            let e = alg.as_i64(y).filter(|e| (0..=16).contains(e))?;
            let mut acc = alg.constant(1);
            for _ in 0..e {
                acc = alg.mul(acc, x);
            }
            Some(acc)
        }
        "Equal" => decided(alg.equal(x, y)).map(|t| bool_dim(alg, t)),
        "Less" => less(alg, x, y).map(|t| bool_dim(alg, t)),
        "Greater" => less(alg, y, x).map(|t| bool_dim(alg, t)),
        "LessOrEqual" => decided(alg.le(x, y)).map(|t| bool_dim(alg, t)),
        "GreaterOrEqual" => decided(alg.le(y, x)).map(|t| bool_dim(alg, t)),
        "And" | "Or" | "Xor" => {
            let (p, q) = (truth_of(alg, x)?, truth_of(alg, y)?);
            let t = match op {
                "And" => p && q,
                "Or" => p || q,
                _ => p != q,
            };
            Some(bool_dim(alg, t))
        }
        _ => None,
    }
}

fn prelu(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "X")?;
    let slope = ctx.input(node, 1, "slope")?;
    check_same_type(&x, &slope, ("X", "slope"))?;
    let Some(sx) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    if let Some(ss) = &slope.shape {
        if node.version >= 7 {
            // unidirectional: broadcasting slope to X must give X's shape
            let out = broadcast_shapes(ctx, &node.name, &sx, ss)?;
            if out.len() != sx.len() {
                return Err(OpError::Rank {
                    what: "slope (broadcast to X)".to_string(),
                    expected: format!("at most {}", sx.len()),
                    found: ss.len(),
                });
            }
        }
    }
    Ok(vec![TensorFact::new(x.dtype, sx)])
}

// ----- variadic ----------------------------------------------------------------------

fn variadic(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
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
fn legacy_equal(ctx: &mut ShapesContext, a: &[Dim], b: &[Dim]) -> Result<Vec<Dim>, OpError> {
    if a.len() != b.len() {
        return Err(OpError::Rank {
            what: "an input (opset < 8: all inputs have one shape)".to_string(),
            expected: a.len().to_string(),
            found: b.len(),
        });
    }
    for (axis, (x, y)) in a.iter().zip(b).enumerate() {
        if ctx.alg.equal(*x, *y) == Truth::False {
            return Err(OpError::DimMismatch {
                what: format!("axis {axis} of the inputs (opset < 8: no broadcasting)"),
                left: ctx.alg.render(*x),
                right: ctx.alg.render(*y),
            });
        }
    }
    Ok(a.to_vec())
}
