//! Elementwise ops of every format: unary maps, binary and variadic broadcasting
//! ops, selection, and their values on shape tensors.
//!
//! Specs: the ONNX operator reference (opsets 1 to 25) and "Broadcasting in ONNX"
//! (`docs/Broadcasting.md`); the OpenVINO operation specifications (the
//! arithmetic, comparison, logical and activation ops, `Select-1`,
//! `FakeQuantize-1`); oneDNN Graph's operation documents (the eltwise and binary
//! ops, `Select`, `BiasAdd`, `Quantize`, `Dequantize`, `TypeCast`, `Reorder`).
//!
//! Shapes: unary ops keep the input's shape. Binary ops broadcast
//! ([`crate::ops::common::broadcast`]): ONNX numpy-style from opset 7 (legacy `broadcast`
//! before); OpenVINO and oneDNN by their `auto_broadcast` attribute (`numpy`, the
//! default; `none`: equal shapes; OpenVINO also `pdpd`). A pair of dims that
//! cannot be decided stays `broadcast(a, b)`, never an unsafe merge.
//!
//! Output types: comparisons and logic (ONNX `Equal`, `Less`, `Greater`,
//! `LessOrEqual`, `GreaterOrEqual`, `And`, `Or`, `Xor`, `Not`, `IsNaN`, `IsInf`;
//! OpenVINO `Equal`, `NotEqual`, `Less`, `LessEqual`, `Greater`, `GreaterEqual`,
//! `Logical*`, `IsNaN`, `IsInf`, `IsFinite`; oneDNN `GreaterEqual`) give `bool`;
//! every other op gives its first input's type. ONNX inputs that must share a type
//! and do not are a typed error. oneDNN's output type is the converter's
//! `dst_dtype` when present.
//!
//! Values (shape tensors; booleans are `0`/`1`; every operation through the
//! algebra; [`unary_value`], [`bin_value`]):
//! - `Add`, `Sub`, `Mul`, `Neg`, `Max`, `Min`, `Sum`, `Relu`, `Clip`,
//!   `SquaredDifference`: always.
//! - integer `Div`: ONNX truncates toward zero ([`trunc_div`]): `floordiv` when
//!   the signs of both operands are proven (`alg.bounds`: `a >= 0, b > 0` gives
//!   `floordiv(a, b)`, the other sign cases negate), exact truncation when both
//!   are constants, `floordiv(max(a, 0), b) - floordiv(max(-a, 0), b)` when only
//!   the divisor's sign is proven (`b > 0`; negated for `b < 0`), and no value
//!   otherwise (the shape is still inferred).
//!   OpenVINO's `Divide` floors (`m_pythondiv`, the default) or truncates. A
//!   divisor `b >= 0` that may be 0 gives the exact quotient when it is an
//!   integer wherever `b != 0` (integer division by 0 is undefined), and the
//!   requirement `1 <= b` (kind `divisor`); otherwise no value.
//! - float `Div` is exact rational division (divisor provably non-zero); `Mean`
//!   likewise; `Reciprocal` of a provably non-zero float.
//! - Floor modulo (ONNX `Mod` with `fmod = 0`, OpenVINO `FloorMod`: the sign of
//!   the divisor, the algebra's `mod`); truncated modulo (ONNX `fmod = 1`,
//!   OpenVINO `Mod`: the sign of the dividend): `mod` when both are proven
//!   non-negative, exact for constants, no value otherwise.
//! - `Floor`, `Ceil` on rational values: `floordiv(x, 1)`, `ceildiv(x, 1)` (over
//!   the common denominator of `x`'s coefficients).
//! - `Sqrt`: exact for a constant that is a perfect square (of a rational), no
//!   value otherwise.
//! - `Abs`, `Sign`: when the sign is proven.
//! - `Pow`: a constant integer exponent in `0..=16`.
//! - comparisons, `Not`, `And`, `Or`, `Xor`: only when every element is decided
//!   (`alg.equal`, `alg.le` give [`Truth`]); otherwise no value.
//! - OpenVINO `Select` and ONNX `Where` pick by a decided condition
//!   ([`select_shape`], [`select_values`]; oneDNN's `Select` has the shape only).
//!
//! oneDNN ops carry no values. Integer overflow (wrap-around of fixed-width types)
//! is not modelled: values are exact integers; ONNX reports a constant outside the
//! type's range, as onnx's data propagation does.
//!
//! Version history, ONNX:
//! - **Add, Sub, Mul, Div**: 1 and 6 with `broadcast`/`axis` attributes (legacy
//!   broadcasting: B is broadcast to A's shape, so the output has A's shape); 7
//!   numpy broadcasting; 13 bf16; 14 more integer types.
//! - **Pow**: 1 (legacy broadcast); 7 numpy; 12 exponent type may differ; 13, 15.
//! - **Mod**: 10 (`fmod`); 13 bf16; 28 `fmod = 0` allowed for floats (floor
//!   modulo).
//! - **And, Or, Xor, Equal, Less, Greater**: 1 (legacy broadcast); 7 numpy;
//!   Equal 11/13/19 types, Less/Greater 9/13 types.
//! - **LessOrEqual, GreaterOrEqual**: 12; 16 bf16.
//! - **BitShift**: 11 (`direction`). **BitwiseAnd/Or/Xor/Not**: 18.
//! - **Max, Min, Sum, Mean**: 1 and 6 (all inputs of one shape); 8 numpy
//!   broadcasting of any number of inputs; Max/Min 12 integer types, 13 bf16.
//! - **Clip**: 1 and 6 `min`/`max` attributes; 11 optional inputs `min`, `max`;
//!   12 integer types; 13 bf16.
//! - **Where**: 9 (numpy broadcast of the condition, X and Y; X and Y of one
//!   type, a bool condition); 16 bf16.
//! - **PRelu**: 1, 6; 7 `slope` broadcasts unidirectionally to X (output has X's
//!   shape); 9, 16 types.
//! - **Unary maps** (Neg, Abs, Reciprocal, Sqrt, Exp, Log, trigonometric,
//!   activations, Floor, Ceil, Round, Sign, Not, IsNaN, IsInf, ...): same shape in
//!   every version; versions only add types (6 drops `consumed_inputs`; 13 bf16).
//!
//! Version history, OpenVINO (layer types as written in IR files and in the
//! runtime spelling: `ReLU`/`Relu`, `PReLU`/`PRelu`):
//! - **Add, Subtract, Multiply, Divide, Maximum, Minimum, Power,
//!   SquaredDifference, FloorMod, Mod, comparisons, LogicalAnd/Or/Xor**: 1
//!   (`auto_broadcast`, `Divide`'s `m_pythondiv`); 13 bf16 for the logical ops.
//! - **Select-1** (numpy broadcast of the three inputs, or equal shapes);
//!   **FakeQuantize-1** (numpy broadcast of the five inputs).
//! - **Unary math and activations** (Relu, Sigmoid, Tanh, Exp, Log, Sqrt, Erf,
//!   Gelu 2/7, HSwish 4, HSigmoid 5, Swish 4, Mish 4, SoftPlus 4, SoftSign 9, Elu,
//!   Selu, Clamp, HardSigmoid, PReLU, trigonometric, Sign, Round 5, Negative, Abs,
//!   Floor, Ceiling, LogicalNot, IsNaN/IsInf/IsFinite 10) and `Roll-7`: the
//!   data shape in every version (`CumSum-3` and `ReverseSequence-1` run the
//!   ONNX kernels of `tensor.rs`). Also
//!   Asinh/Acosh/Atanh-3, BitwiseNot-13, Reverse-1, Inverse-14, FakeConvert-13
//!   (the data's type), SliceScatter-15 and GatherTree-1 (input 0's shape).
//! - **Xor-1** (the opset-1 name of LogicalXor), **BitwiseAnd/Or/Xor-13**,
//!   **BitwiseLeftShift/RightShift-15**: broadcast by `auto_broadcast`; the bitwise
//!   ops have no value here.
//! - **ConvertPromoteTypes-14**: each input keeps its shape and both take the
//!   promoted type ([`promote_types`]).
//!
//! oneDNN: `Abs`, `Clamp`, `Elu`, `Exp`, `GELU`, `HardSigmoid`, `HardSwish`,
//! `LeakyReLU`, `Log`, `Mish`, `ReLU`, `Reciprocal`, `Round`, `Sigmoid`,
//! `SoftPlus`, `Sqrt`, `Square`, `Tanh`, `PReLU`, `GenIndex`, and the conversions
//! `Reorder`, `TypeCast`, `Quantize`, `Dequantize`, `DynamicQuantize`,
//! `DynamicDequantize` keep the input's shape; `Add`, `Subtract`, `Multiply`,
//! `Divide`, `Maximum`, `Minimum`, `Pow`, `SquaredDifference`, `GreaterEqual`
//! broadcast by `auto_broadcast` (numpy or none); `Select` broadcasts its three
//! inputs; `BiasAdd` keeps `src`'s shape, its bias as long as the channel dim of
//! `data_format`. The eltwise backward ops (`AbsBackward`, `ClampBackward`,
//! `EluBackward`, `GELUBackward`, `HardSigmoidBackward`, `HardSwishBackward`,
//! `MishBackward`, `ReLUBackward`, `SigmoidBackward`, `SoftPlusBackward`,
//! `SqrtBackward`, `TanhBackward`) give `diff_src` the shape input 0 and
//! `diff_dst` share; `PReLUBackward` also `diff_slope` of the slope's shape;
//! `BiasAddBackward` `[C]` by `data_format` (from a `diff_dst` of rank 4 or more,
//! as oneDNN's shape inference takes). Every oneDNN op has one version, 1.

use crate::algebra::{Algebra, Dim, Rat, Truth};
use crate::context::float_rat;
use crate::context::DimRole;
use crate::context::{Allowed, Expected, OpError, ShapesContext, TensorFact, TypeConflict};
use crate::context::{AttrProblem, AttrValue};
use crate::graph::{DType, Node};
use crate::ops::common::attrs::{attr_float, attr_int, attr_str};
use crate::ops::common::attrs::{dst_dtype, ov_bool, ov_i64, ov_str};
use crate::ops::common::broadcast::{
    auto_broadcast_shapes, broadcast_all, broadcast_shapes, check_broadcasts_to, same_shapes,
    AutoBroadcast,
};
use crate::ops::common::check_inputs;
use crate::ops::common::dims::{channel_axis, merge_dim_as, merge_shapes, rank_of, shaped};
use crate::ops::common::values::{broadcast_values, check_int_range, fact_with_value};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    // unary maps
    ("", [
        "Neg", "Abs", "Reciprocal", "Sqrt", "Exp", "Log", "Sin", "Cos", "Tan", "Asin", "Acos",
        "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Erf", "Tanh", "Sigmoid",
        "HardSigmoid", "HardSwish", "Relu", "LeakyRelu", "Elu", "Selu", "Celu",
        "ThresholdedRelu", "Gelu", "Mish", "Softplus", "Softsign", "Shrink", "Floor", "Ceil",
        "Round", "Sign", "Not", "BitwiseNot", "IsNaN", "IsInf",
    ], unary),
    ("", ["Clip"], clip),
    // binary
    ("", [
        "Add", "Sub", "Mul", "Div", "Pow", "Mod", "And", "Or", "Xor", "Equal", "Less",
        "Greater", "LessOrEqual", "GreaterOrEqual", "BitShift", "BitwiseAnd", "BitwiseOr",
        "BitwiseXor",
    ], binary),
    ("", ["PRelu"], prelu),
    ("", ["Where"], where_op),
    // variadic
    ("", ["Max", "Min", "Sum", "Mean"], variadic),
    // OpenVINO
    ("openvino", [
        "Relu", "ReLU", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Erf", "Gelu", "HSwish",
        "HSigmoid", "Swish", "Mish", "SoftPlus", "SoftSign", "Elu", "Selu", "Clamp",
        "HardSigmoid", "PRelu", "PReLU", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh",
        "Cosh", "Sign", "Round", "Roll", "Negative", "Abs", "Floor", "Ceiling", "LogicalNot",
        "IsNaN", "IsInf", "IsFinite", "Asinh", "Acosh", "Atanh", "BitwiseNot", "Reverse",
        "Inverse", "FakeConvert", "SliceScatter", "GatherTree",
    ], openvino_same_shape),
    ("openvino", [
        "Add", "Subtract", "Multiply", "Divide", "Maximum", "Minimum", "Power",
        "SquaredDifference", "FloorMod", "Mod", "Equal", "NotEqual", "Less", "LessEqual",
        "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr", "LogicalXor", "Xor", "BitwiseAnd",
        "BitwiseOr", "BitwiseXor", "BitwiseLeftShift", "BitwiseRightShift",
    ], openvino_binary),
    ("openvino", ["ConvertPromoteTypes"], openvino_convert_promote_types),
    ("openvino", ["Select"], openvino_select),
    ("openvino", ["FakeQuantize"], openvino_fake_quantize),
    // oneDNN
    ("onednn", [
        "Abs", "Clamp", "Elu", "Exp", "GELU", "HardSigmoid", "HardSwish", "LeakyReLU", "Log",
        "Mish", "ReLU", "Reciprocal", "Round", "Sigmoid", "SoftPlus", "Sqrt", "Square", "Tanh",
        "Reorder", "TypeCast", "Quantize", "Dequantize", "DynamicQuantize", "DynamicDequantize",
        "PReLU", "GenIndex",
    ], onednn_same_shape),
    ("onednn", [
        "Add", "Subtract", "Multiply", "Divide", "Maximum", "Minimum", "Pow",
        "SquaredDifference", "GreaterEqual",
    ], onednn_binary),
    ("onednn", ["Select"], onednn_select),
    ("onednn", ["BiasAdd"], onednn_bias_add),
    ("onednn", [
        "AbsBackward", "ClampBackward", "EluBackward", "GELUBackward", "HardSigmoidBackward",
        "HardSwishBackward", "MishBackward", "ReLUBackward", "SigmoidBackward",
        "SoftPlusBackward", "SqrtBackward", "TanhBackward",
    ], onednn_eltwise_backward),
    ("onednn", ["PReLUBackward"], onednn_prelu_backward),
    ("onednn", ["BiasAddBackward"], onednn_bias_add_backward),
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
            conflict: TypeConflict::inputs(names.0, a.dtype, names.1, b.dtype),
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
        // The sign of `a` unknown: trunc(a / b) = floordiv(max(a, 0), b) -
        // floordiv(max(-a, 0), b) for b > 0 (one term is 0 whatever the sign), and
        // -trunc(a / -b) for b < 0.
        (_, _, true, _) => Some(trunc_div_any_sign(alg, a, b)),
        (_, _, _, true) => {
            let nb = alg.neg(b);
            let q = trunc_div_any_sign(alg, a, nb);
            Some(alg.neg(q))
        }
        _ => None,
    }
}

/// `b^e` for constants when it is rational: an integer exponent, or `p/q` with a base
/// whose numerator and denominator are exact `q`-th powers (`16^0.5 = 4`, as the
/// square roots of shape subgraphs are). Exponents up to 64 in size.
fn exact_pow(b: &Rat, e: &Rat) -> Option<Rat> {
    let (p, q) = (e.numer(), e.denom());
    let p = i32::try_from(p).ok().filter(|p| p.abs() <= 64)?;
    let q = u32::try_from(q).ok().filter(|q| (1..=64).contains(q))?;
    let root = |n: num_bigint::BigInt| -> Option<num_bigint::BigInt> {
        if n.sign() == num_bigint::Sign::Minus {
            return None;
        }
        let r = n.nth_root(q);
        (num_traits::Pow::pow(&r, q) == n).then_some(r)
    };
    let base = Rat::from_bigint(root(b.numer())?).div(&Rat::from_bigint(root(b.denom())?))?;
    base.pow(p)
}

/// `trunc(a / b)` for `b > 0` and `a` of either sign:
/// `floordiv(max(a, 0), b) - floordiv(max(-a, 0), b)`.
fn trunc_div_any_sign(alg: &mut Algebra, a: Dim, b: Dim) -> Dim {
    let zero = alg.constant(0);
    let na = alg.neg(a);
    let (pos, neg) = (alg.max(a, zero), alg.max(na, zero));
    let (p, n) = (alg.floordiv(pos, b), alg.floordiv(neg, b));
    alg.sub(p, n)
}

/// An integer division by `y >= 0` that may be 0: its exact quotient when that is an
/// integer wherever `y` is not 0, whatever the rounding (shape subgraphs divide a
/// count by a sum of counts that cannot be proven non-zero, as detection exports'
/// anchors per location do). Integer division by 0 is undefined, so the quotient is
/// the value wherever the model runs; `y` goes on `nonzero` for the caller to
/// record `1 <= y`.
fn int_div_may_be_zero(alg: &mut Algebra, x: Dim, y: Dim, nonzero: &mut Vec<Dim>) -> Option<Dim> {
    if !alg.bounds(y).is_nonneg() {
        return None;
    }
    let (q, may_be_zero) = alg.quotient_where_nonzero(x, y)?;
    if may_be_zero {
        nonzero.push(y);
    }
    Some(q)
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

// ----- kernels ----------------------------------------------------------------------

/// How the values of an element type combine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Num {
    /// Integers and bool: integer arithmetic.
    Int,
    /// Floating-point types: exact rational arithmetic.
    Float,
    /// Undefined, string and unknown types: only the ring operations.
    Other,
}

impl Num {
    /// The arithmetic of values of type `t`.
    pub fn of(t: DType) -> Num {
        if t.is_integer() {
            Num::Int
        } else if is_float(t) {
            Num::Float
        } else {
            Num::Other
        }
    }
}

/// A unary map that has a value on shape tensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unary {
    /// `-x`.
    Neg,
    /// `|x|`, when the sign is proven.
    Abs,
    /// -1, 0 or 1, when the sign is proven.
    Sign,
    /// `max(x, 0)`.
    Relu,
    /// `floor(x)`.
    Floor,
    /// `ceil(x)`.
    Ceil,
    /// The square root of a constant square.
    Sqrt,
    /// `1 / x` of a provably non-zero float.
    Reciprocal,
    /// Logical not of a decided boolean.
    Not,
}

/// How integer division and modulo round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntRound {
    /// Toward negative infinity (the modulo has the sign of the divisor).
    Floor,
    /// Toward zero (the modulo has the sign of the dividend).
    Trunc,
}

/// A binary op that has a value on shape tensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a * b`.
    Mul,
    /// `a / b`: exact for floats, rounded for integers.
    Div(IntRound),
    /// `max(a, b)`.
    Max,
    /// `min(a, b)`.
    Min,
    /// `a ** b` for a constant integer exponent.
    Pow,
    /// `(a - b) ** 2`.
    SquaredDiff,
    /// The remainder of the division rounded as given.
    Mod(IntRound),
    /// A comparison: the result is 1 or 0 when decidable.
    Cmp(Cmp),
    /// Logical and/or/xor of decided booleans.
    Logic(Logic),
}

impl BinOp {
    /// Whether the op gives a boolean.
    pub fn is_predicate(self) -> bool {
        matches!(self, BinOp::Cmp(_) | BinOp::Logic(_))
    }
}

/// A comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

/// A logical op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Logic {
    /// and.
    And,
    /// or.
    Or,
    /// xor.
    Xor,
}

/// The value of `op` on one element `x` of a tensor whose values combine as `num`
/// (see the module doc); `None` when it has no closed form here.
pub fn unary_value(alg: &mut Algebra, op: Unary, x: Dim, num: Num) -> Option<Dim> {
    let zero = alg.constant(0);
    let one = alg.constant(1);
    match op {
        Unary::Neg => Some(alg.neg(x)),
        Unary::Abs => {
            if alg.bounds(x).is_nonneg() {
                Some(x)
            } else if nonpositive(alg, x) {
                Some(alg.neg(x))
            } else {
                None
            }
        }
        Unary::Sign => {
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
        Unary::Relu => Some(alg.max(x, zero)),
        Unary::Floor | Unary::Ceil => {
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
            Some(if op == Unary::Floor {
                alg.floordiv(num, den)
            } else {
                alg.ceildiv(num, den)
            })
        }
        Unary::Sqrt => exact_sqrt(alg, x),
        Unary::Reciprocal if num == Num::Float && nonzero(alg, x) => Some(alg.div_rational(one, x)),
        Unary::Reciprocal => None,
        Unary::Not => truth_of(alg, x).map(|t| bool_dim(alg, !t)),
    }
}

/// The values of `op` on every element of `x`, when `x` has a value.
fn unary_values(alg: &mut Algebra, op: Unary, x: &TensorFact) -> Option<Vec<Dim>> {
    let num = Num::of(x.dtype);
    x.value
        .as_ref()?
        .iter()
        .map(|&e| unary_value(alg, op, e, num))
        .collect()
}

/// The value of `op` on one pair of elements whose values combine as `num` (see
/// the module doc); `None` when it has no closed form here. An integer division
/// whose divisor may be 0 pushes the divisor on `nonzero_divisors` when it gives a
/// value: the value holds where the divisor is not 0, for the caller to record.
pub fn bin_value(
    alg: &mut Algebra,
    op: BinOp,
    num: Num,
    x: Dim,
    y: Dim,
    nonzero_divisors: &mut Vec<Dim>,
) -> Option<Dim> {
    match op {
        BinOp::Add => Some(alg.add_dims(x, y)),
        BinOp::Sub => Some(alg.sub(x, y)),
        BinOp::Mul => Some(alg.mul(x, y)),
        BinOp::Div(round) => match num {
            Num::Int if !nonzero(alg, y) => int_div_may_be_zero(alg, x, y, nonzero_divisors),
            Num::Int if round == IntRound::Trunc => trunc_div(alg, x, y),
            Num::Int => Some(alg.floordiv(x, y)),
            Num::Float if nonzero(alg, y) => Some(alg.div_rational(x, y)),
            _ => None,
        },
        BinOp::Max => Some(alg.max(x, y)),
        BinOp::Min => Some(alg.min(x, y)),
        BinOp::Pow => {
            if let (Some(b), Some(e)) = (alg.as_const(x), alg.as_const(y)) {
                return exact_pow(&b, &e).map(|r| alg.rational(r));
            }
            let e = alg.as_i64(y).filter(|e| (0..=16).contains(e))?;
            let mut acc = alg.constant(1);
            for _ in 0..e {
                acc = alg.mul(acc, x);
            }
            Some(acc)
        }
        BinOp::SquaredDiff => {
            let d = alg.sub(x, y);
            Some(alg.mul(d, d))
        }
        BinOp::Mod(IntRound::Floor) if num == Num::Int && nonzero(alg, y) => Some(alg.modulo(x, y)),
        BinOp::Mod(IntRound::Trunc) if num != Num::Other => trunc_mod(alg, x, y),
        BinOp::Mod(_) => None,
        BinOp::Cmp(c) => {
            let t = match c {
                Cmp::Eq => decided(alg.equal(x, y)),
                Cmp::Ne => decided(alg.equal(x, y)).map(|t| !t),
                Cmp::Lt => less(alg, x, y),
                Cmp::Gt => less(alg, y, x),
                Cmp::Le => decided(alg.le(x, y)),
                Cmp::Ge => decided(alg.le(y, x)),
            }?;
            Some(bool_dim(alg, t))
        }
        BinOp::Logic(l) => {
            let (p, q) = (truth_of(alg, x)?, truth_of(alg, y)?);
            let t = match l {
                Logic::And => p && q,
                Logic::Or => p || q,
                Logic::Xor => p != q,
            };
            Some(bool_dim(alg, t))
        }
    }
}

/// The values of a binary op on `a` and `b` broadcast to the output shape `out`,
/// when both have values.
pub fn binary_values(
    alg: &mut Algebra,
    op: BinOp,
    num: Num,
    a: &TensorFact,
    b: &TensorFact,
    out: &[Dim],
    nonzero_divisors: &mut Vec<Dim>,
) -> Option<Vec<Dim>> {
    let v = broadcast_values(alg, out, &[a, b])?;
    v[0].iter()
        .zip(&v[1])
        .map(|(x, y)| bin_value(alg, op, num, *x, *y, nonzero_divisors))
        .collect()
}

/// [`binary_values`] for `node`, recording `1 <= d` (kind `divisor`) for each
/// divisor the values need to be non-zero. With `range`, values outside that integer
/// type's range are the node's error, and then nothing is recorded.
#[allow(clippy::too_many_arguments)]
fn node_binary_values(
    ctx: &mut ShapesContext,
    node: &Node,
    op: BinOp,
    num: Num,
    a: &TensorFact,
    b: &TensorFact,
    out: &[Dim],
    range: Option<DType>,
) -> Result<Option<Vec<Dim>>, OpError> {
    let mut divisors = Vec::new();
    let Some(values) = binary_values(&mut ctx.alg, op, num, a, b, out, &mut divisors) else {
        return Ok(None);
    };
    if let Some(dtype) = range {
        check_int_range(&ctx.alg, dtype, &values, &node.op_type)?;
    }
    let mut seen = Vec::new();
    for d in divisors {
        if !seen.contains(&d) {
            seen.push(d);
            let one = ctx.alg.constant(1);
            ctx.alg.record_requirement(one, d, &node.name, "divisor");
        }
    }
    Ok(Some(values))
}

/// The shape of `select(cond, then, else)` (ONNX Where, OpenVINO Select, oneDNN
/// Select): equal shapes with `auto_broadcast = none`, else the numpy broadcast of
/// the three. `None` when a rank is unknown.
pub fn select_shape(
    ctx: &mut ShapesContext,
    node: &Node,
    mode: AutoBroadcast,
    cond: &TensorFact,
    then: &TensorFact,
    other: &TensorFact,
) -> Result<Option<Vec<Dim>>, OpError> {
    if mode != AutoBroadcast::None {
        let shapes = [cond.shape.clone(), then.shape.clone(), other.shape.clone()];
        return broadcast_all(ctx, node, &shapes);
    }
    let (Some(cs), Some(ts), Some(es)) = (&cond.shape, &then.shape, &other.shape) else {
        return Ok(None);
    };
    let s = same_shapes(ctx, node, ts, es)?;
    same_shapes(ctx, node, cs, &s).map(Some)
}

/// The values of `select(cond, then, else)` broadcast to `out`, when every
/// condition element is decided.
pub fn select_values(
    alg: &Algebra,
    out: &[Dim],
    cond: &TensorFact,
    then: &TensorFact,
    other: &TensorFact,
) -> Option<Vec<Dim>> {
    let v = broadcast_values(alg, out, &[cond, then, other])?;
    v[0].iter()
        .zip(&v[1])
        .zip(&v[2])
        .map(|((c, a), b)| alg.as_i64(*c).map(|c| if c != 0 { *a } else { *b }))
        .collect()
}

// ----- ONNX: unary --------------------------------------------------------------------

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
    let value = onnx_unary_op(op).and_then(|u| unary_values(&mut ctx.alg, u, &x));
    if let Some(v) = &value {
        check_int_range(&ctx.alg, dtype, v, &node.op_type)?;
    }
    Ok(vec![fact_with_value(dtype, shape, value)])
}

/// The ONNX unary ops that have a value.
fn onnx_unary_op(op: &str) -> Option<Unary> {
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
    let value = match onnx_bin_op(op, fmod) {
        Some(b_op) => {
            let num = Num::of(in_type);
            node_binary_values(ctx, node, b_op, num, &a, &b, &out, Some(dtype))?
        }
        None => None,
    };
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
fn onnx_bin_op(op: &str, fmod: bool) -> Option<BinOp> {
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
            check_broadcasts_to(ctx, &node.name, &sx, ss, "slope (broadcast to X)")?;
        }
    }
    Ok(vec![TensorFact::new(x.dtype, sx)])
}

/// ONNX Where(condition, X, Y): a bool condition, X and Y of one type; the
/// select kernel with numpy broadcasting.
fn where_op(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
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
    Ok(vec![fact_with_value(dtype, out, value)])
}

// ----- ONNX: variadic ---------------------------------------------------------------------

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

// ----- OpenVINO ----------------------------------------------------------------------

/// `auto_broadcast` of an OpenVINO op: `numpy` (the default), `none`, or `pdpd`
/// with `axis` (default -1).
fn openvino_auto_broadcast(node: &Node) -> Result<AutoBroadcast, OpError> {
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
fn openvino_unary_op(op: &str) -> Option<Unary> {
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
pub fn openvino_same_shape(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    let x = ctx.input(node, 0, "data")?;
    let op = node.op_type.as_str();
    let dtype = if matches!(op, "LogicalNot" | "IsNaN" | "IsInf" | "IsFinite") {
        DType::Bool
    } else {
        x.dtype
    };
    let value = openvino_unary_op(op).and_then(|u| unary_values(&mut ctx.alg, u, &x));
    let f = TensorFact {
        dtype,
        shape: x.shape,
        value,
    };
    Ok(vec![f; node.outputs.len().max(1)])
}

/// The OpenVINO binary ops (`Divide` floors with `m_pythondiv`, the default).
fn openvino_bin_op(node: &Node) -> Option<BinOp> {
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
fn openvino_binary(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let a = ctx.input(node, 0, "A")?;
    let b = ctx.input(node, 1, "B")?;
    let op = openvino_bin_op(node);
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
    let mode = openvino_auto_broadcast(node)?;
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
fn openvino_convert_promote_types(
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
fn openvino_select(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let c = ctx.input(node, 0, "cond")?;
    let t = ctx.input(node, 1, "then")?;
    let e = ctx.input(node, 2, "else")?;
    let mode = openvino_auto_broadcast(node)?;
    let Some(shape) = select_shape(ctx, node, mode, &c, &t, &e)? else {
        return Ok(vec![TensorFact::unknown(t.dtype)]);
    };
    let value = select_values(&ctx.alg, &shape, &c, &t, &e);
    Ok(vec![fact_with_value(t.dtype, shape, value)])
}

/// OpenVINO FakeQuantize: the broadcast of its five inputs (the data's shape with
/// `auto_broadcast = none`).
fn openvino_fake_quantize(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    let x = ctx.input(node, 0, "data")?;
    let mut shapes = Vec::new();
    for i in 0..node.input_count() {
        shapes.push(ctx.input(node, i, "input")?.shape);
    }
    let shape = if openvino_auto_broadcast(node)? == AutoBroadcast::None {
        x.shape.clone()
    } else {
        broadcast_all(ctx, node, &shapes)?
    };
    Ok(vec![TensorFact {
        dtype: x.dtype,
        shape,
        value: None,
    }])
}

// ----- oneDNN ------------------------------------------------------------------------

/// oneDNN ops whose outputs have the input's shape (and its type unless
/// `dst_dtype` says otherwise).
pub fn onednn_same_shape(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let x = ctx.input(node, 0, "src")?;
    let f = TensorFact {
        dtype: dst_dtype(node, x.dtype)?,
        shape: x.shape,
        value: None,
    };
    Ok(vec![f; node.outputs.len().max(1)])
}

/// oneDNN binary ops: `auto_broadcast` numpy (the default) or none.
fn onednn_binary(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let a = ctx.input(node, 0, "src_0")?;
    let b = ctx.input(node, 1, "src_1")?;
    let text = attr_str(node, "auto_broadcast")?.unwrap_or("numpy");
    let mode = match AutoBroadcast::parse(text) {
        Some(mode @ (AutoBroadcast::Numpy | AutoBroadcast::None)) => mode,
        _ => {
            return Err(OpError::BadAttribute {
                name: "auto_broadcast",
                value: AttrValue::Word(text.to_ascii_lowercase()),
                why: Box::new(AttrProblem::one_of(&["numpy", "none"])),
            })
        }
    };
    let default = if node.op_type == "GreaterEqual" {
        DType::Bool
    } else {
        a.dtype
    };
    let shape = match (&a.shape, &b.shape) {
        (Some(x), Some(y)) => Some(auto_broadcast_shapes(ctx, node, mode, x, y)?),
        _ => None,
    };
    Ok(vec![TensorFact {
        dtype: dst_dtype(node, default)?,
        shape,
        value: None,
    }])
}

/// oneDNN Select(cond, src_0, src_1): the numpy broadcast of the three.
fn onednn_select(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let c = ctx.input(node, 0, "cond")?;
    let a = ctx.input(node, 1, "src_0")?;
    let b = ctx.input(node, 2, "src_1")?;
    let shape = select_shape(ctx, node, AutoBroadcast::Numpy, &c, &a, &b)?;
    Ok(vec![TensorFact {
        dtype: dst_dtype(node, a.dtype)?,
        shape,
        value: None,
    }])
}

/// oneDNN BiasAdd(src, bias): `src`'s shape; the bias length is the channel dim
/// of `data_format`.
fn onednn_bias_add(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "src")?;
    let b = ctx.input(node, 1, "bias")?;
    if let (Some(xs), Some([c])) = (&x.shape, b.shape.as_deref()) {
        if !xs.is_empty() {
            let ax = channel_axis(node, xs.len())?;
            merge_dim_as(ctx, node, "bias length and the channel dim", xs[ax], *c)?;
        }
    }
    onednn_same_shape(ctx, node)
}

/// oneDNN eltwise backward ops (`AbsBackward`, `ReLUBackward`, ...): inputs
/// `src` (or `dst` when `use_dst`) and `diff_dst` of one shape; `diff_src` has it.
fn onednn_eltwise_backward(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "src")?;
    let d = ctx.input(node, 1, "diff_dst")?;
    let shape = merge_shapes(ctx, node, ("src", &x), ("diff_dst", &d))?;
    Ok(vec![shaped(dst_dtype(node, x.dtype)?, shape)])
}

/// oneDNN PReLUBackward(src, slope, diff_dst): `diff_src` of `src`'s shape (shared
/// with `diff_dst`), `diff_slope` of `slope`'s.
fn onednn_prelu_backward(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let x = ctx.input(node, 0, "src")?;
    let slope = ctx.input(node, 1, "slope")?;
    let d = ctx.input(node, 2, "diff_dst")?;
    let shape = merge_shapes(ctx, node, ("src", &x), ("diff_dst", &d))?;
    let diff_slope = TensorFact {
        dtype: slope.dtype,
        shape: slope.shape,
        value: None,
    };
    Ok(vec![shaped(dst_dtype(node, x.dtype)?, shape), diff_slope])
}

/// oneDNN BiasAddBackward(diff_dst): `diff_bias` is `[C]`, the channel dim of
/// `data_format` (default `NXC`). oneDNN's shape inference takes a `diff_dst` of
/// rank 4 or more.
fn onednn_bias_add_backward(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let d = ctx.input(node, 0, "diff_dst")?;
    let dtype = dst_dtype(node, d.dtype)?;
    let Some(ds) = &d.shape else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    if ds.len() < 4 {
        return Err(rank_of("diff_dst", Expected::AtLeast(4), ds.len()));
    }
    let c = ds[channel_axis(node, ds.len())?];
    Ok(vec![TensorFact::new(dtype, vec![c])])
}
