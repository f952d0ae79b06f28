//! Exact arithmetic on dims and their values that the elementwise kernels share:
//! integer division and remainder of either sign, powers, square roots.

use crate::algebra::{Algebra, Dim, Rat, Truth};
use crate::context::{OpError, TensorFact, TypeConflict};
use crate::graph::DType;

/// Whether a type is a floating-point type (not integer, bool, string or unknown).
pub fn is_float(d: DType) -> bool {
    !d.is_integer() && !matches!(d, DType::Undefined | DType::String | DType::Unknown(_))
}

/// `a` when defined, else `b`.
pub(super) fn first_defined(a: DType, b: DType) -> DType {
    if a == DType::Undefined {
        b
    } else {
        a
    }
}

pub(super) fn check_same_type(
    a: &TensorFact,
    b: &TensorFact,
    names: (&str, &str),
) -> Result<(), OpError> {
    if a.dtype != b.dtype && a.dtype != DType::Undefined && b.dtype != DType::Undefined {
        return Err(OpError::TypeMismatch {
            conflict: TypeConflict::inputs(names.0, a.dtype, names.1, b.dtype),
        });
    }
    Ok(())
}

pub(super) fn bool_dim(alg: &mut Algebra, t: bool) -> Dim {
    alg.constant(i64::from(t))
}

/// A boolean element: `Some(true/false)` when decided.
pub(super) fn truth_of(alg: &mut Algebra, x: Dim) -> Option<bool> {
    let zero = alg.constant(0);
    match alg.equal(x, zero) {
        Truth::True => Some(false),
        Truth::False => Some(true),
        Truth::Unknown => None,
    }
}

pub(super) fn decided(t: Truth) -> Option<bool> {
    match t {
        Truth::True => Some(true),
        Truth::False => Some(false),
        Truth::Unknown => None,
    }
}

/// `a < b`, decided: `!(b <= a)`.
pub(super) fn less(alg: &mut Algebra, a: Dim, b: Dim) -> Option<bool> {
    decided(alg.le(b, a)).map(|t| !t)
}

pub(super) fn nonzero(alg: &Algebra, d: Dim) -> bool {
    !alg.bounds(d).contains(&Rat::zero())
}

pub(super) fn nonpositive(alg: &Algebra, d: Dim) -> bool {
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
pub(super) fn exact_pow(b: &Rat, e: &Rat) -> Option<Rat> {
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
pub(super) fn trunc_div_any_sign(alg: &mut Algebra, a: Dim, b: Dim) -> Dim {
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
pub(super) fn int_div_may_be_zero(
    alg: &mut Algebra,
    x: Dim,
    y: Dim,
    nonzero: &mut Vec<Dim>,
) -> Option<Dim> {
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
pub(super) fn trunc_mod(alg: &mut Algebra, a: Dim, b: Dim) -> Option<Dim> {
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
pub(super) fn exact_sqrt(alg: &mut Algebra, x: Dim) -> Option<Dim> {
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
pub(super) fn common_denominator(alg: &Algebra, x: Dim) -> Rat {
    let mut k = Rat::one();
    for (_, c) in &alg.canon(x).0 {
        k = k.lcm(&Rat::from_bigint(c.denom()));
    }
    k
}
