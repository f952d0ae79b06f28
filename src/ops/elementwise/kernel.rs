//! The format-neutral kernels: the value of a unary, binary or selecting op on the
//! contents of shape tensors, and the shape of a selection.

use super::arith::{
    bool_dim, common_denominator, decided, exact_pow, exact_sqrt, int_div_may_be_zero, is_float,
    less, nonpositive, nonzero, trunc_div, trunc_mod, truth_of,
};
use crate::algebra::{Algebra, Dim, Rat};
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};
use crate::ops::common::broadcast::{broadcast_all, same_shapes, AutoBroadcast};
use crate::ops::common::values::{broadcast_values, check_int_range};

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
pub(super) fn unary_values(alg: &mut Algebra, op: Unary, x: &TensorFact) -> Option<Vec<Dim>> {
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

/// The value of a binary op on two integer or bool tensors each of one value
/// throughout ([`TensorFact::uniform`]): the one value of the result, whatever the
/// sizes. `None` when an operand is not uniform, for floating-point operands (their
/// rounding is not exact rational arithmetic), when the op has no closed form, or
/// when the value would hold only where a divisor is not 0.
pub fn binary_uniform(
    alg: &mut Algebra,
    op: BinOp,
    num: Num,
    a: &TensorFact,
    b: &TensorFact,
) -> Option<Dim> {
    if num != Num::Int {
        return None;
    }
    let (x, y) = (a.uniform(alg)?, b.uniform(alg)?);
    let mut divisors = Vec::new();
    let v = bin_value(alg, op, num, x, y, &mut divisors)?;
    divisors.is_empty().then_some(v)
}

/// [`binary_values`] for `node`, recording `1 <= d` (kind `divisor`) for each
/// divisor the values need to be non-zero. With `range`, values outside that integer
/// type's range are the node's error, and then nothing is recorded.
#[allow(clippy::too_many_arguments)]
pub(super) fn node_binary_values(
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

/// The one value of `select(cond, then, else)` when the condition is one decided
/// value throughout and the branch it picks is uniform ([`TensorFact::uniform`]).
pub fn select_uniform(
    alg: &Algebra,
    cond: &TensorFact,
    then: &TensorFact,
    other: &TensorFact,
) -> Option<Dim> {
    let c = alg.as_const(cond.uniform(alg)?)?;
    if c.is_zero() {
        other.uniform(alg)
    } else {
        then.uniform(alg)
    }
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
