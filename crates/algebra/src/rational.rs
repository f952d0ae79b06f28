//! Exact rational constants that never wrap.
//!
//! A [`Rat`] holds a reduced fraction in machine integers while its numerator and
//! denominator stay below 2^62 in magnitude, and moves to a [`BigRational`] beyond
//! that, so no operation can wrap. Small arithmetic runs in `i128`, where every
//! intermediate product of such parts fits. The representation is normalised (a
//! value whose parts are below the limit is always `Small`), so derived `Eq` and
//! `Hash` agree with numeric equality.

use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::{BigRational, Ratio};
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

/// The most bits ([`Rat::bits`]) a constant of the algebra may have: a literal
/// past it does not parse ([`crate::parse`]), a canonical form holding one becomes
/// a fresh dim with a warning ([`crate::AlgebraWarning::ConstLimit`]), and an
/// evaluation that would make one has no value ([`crate::Poly::eval`]). Shape
/// arithmetic in `int64` needs 64 bits per factor: 4096 bits hold a product of 64
/// such values, while arithmetic on numbers of this size stays in microseconds
/// (a greatest common divisor is quadratic in the bits).
pub const MAX_CONST_BITS: u64 = 4096;

/// An exact rational number: `i64` numerator and denominator while they fit, big otherwise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rat {
    /// A reduced fraction with a positive denominator, both in `i64`.
    Small(Ratio<i64>),
    /// A reduced fraction too large for `i64`.
    Big(Box<BigRational>),
}

/// Hashes the parts of the reduced form (the representation is normalised, so equal
/// values have equal parts), without `num-rational`'s division-based hash.
impl std::hash::Hash for Rat {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        match self {
            Rat::Small(r) => {
                state.write_u8(0);
                state.write_i64(*r.numer());
                state.write_i64(*r.denom());
            }
            Rat::Big(b) => {
                state.write_u8(1);
                b.numer().hash(state);
                b.denom().hash(state);
            }
        }
    }
}

/// The error returned when text is not a rational constant.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a rational constant: `{text}`")]
pub struct ParseRatError {
    /// The text that failed to parse.
    pub text: String,
}

impl Rat {
    /// The rational `0`.
    pub fn zero() -> Rat {
        Rat::Small(Ratio::from_integer(0))
    }

    /// The rational `1`.
    pub fn one() -> Rat {
        Rat::Small(Ratio::from_integer(1))
    }

    /// An integer.
    pub fn int(v: i64) -> Rat {
        small_or_big(i128::from(v), 1)
    }

    /// The fraction `n/d`; `None` when `d == 0`.
    pub fn frac(n: i64, d: i64) -> Option<Rat> {
        if d == 0 {
            return None;
        }
        Some(Rat::from_big(BigRational::new(
            BigInt::from(n),
            BigInt::from(d),
        )))
    }

    /// Normalise a big rational (already reduced by `num-rational`).
    pub fn from_big(r: BigRational) -> Rat {
        match (r.numer().to_i128(), r.denom().to_i128()) {
            // `unsigned_abs`: `i128::MIN` (for example -8 * 2^62 * 2^62) has no
            // `abs`; it overflowed (a panic in debug, 0 in release).
            (Some(n), Some(d)) if n.unsigned_abs() < SMALL_LIMIT as u128 && d < SMALL_LIMIT => {
                Rat::Small(Ratio::new_raw(n as i64, d as i64))
            }
            _ => Rat::Big(Box::new(r)),
        }
    }

    /// An arbitrary-precision integer.
    pub fn from_bigint(v: BigInt) -> Rat {
        Rat::from_big(BigRational::from_integer(v))
    }

    /// This value as a big rational.
    pub fn to_big(&self) -> BigRational {
        match self {
            Rat::Small(r) => {
                BigRational::new_raw(BigInt::from(*r.numer()), BigInt::from(*r.denom()))
            }
            Rat::Big(b) => (**b).clone(),
        }
    }

    /// True for `0`.
    pub fn is_zero(&self) -> bool {
        matches!(self, Rat::Small(r) if r.is_zero())
    }

    /// True for `1`.
    pub fn is_one(&self) -> bool {
        matches!(self, Rat::Small(r) if r.is_one())
    }

    /// True when the denominator is 1.
    pub fn is_integer(&self) -> bool {
        match self {
            Rat::Small(r) => r.is_integer(),
            Rat::Big(b) => b.is_integer(),
        }
    }

    /// True when strictly below zero.
    pub fn is_negative(&self) -> bool {
        match self {
            Rat::Small(r) => r.is_negative(),
            Rat::Big(b) => b.is_negative(),
        }
    }

    /// True when strictly above zero.
    pub fn is_positive(&self) -> bool {
        match self {
            Rat::Small(r) => r.is_positive(),
            Rat::Big(b) => b.is_positive(),
        }
    }

    /// The value as an `i64` when it is an integer that fits.
    pub fn to_i64(&self) -> Option<i64> {
        match self {
            Rat::Small(r) if r.is_integer() => Some(*r.numer()),
            Rat::Big(b) if b.is_integer() => b.numer().to_i64(),
            _ => None,
        }
    }

    /// The nearest `f64` (for drawing; `inf` past its range).
    pub fn to_f64(&self) -> f64 {
        match self {
            Rat::Small(r) => *r.numer() as f64 / *r.denom() as f64,
            Rat::Big(b) => b.to_f64().unwrap_or(f64::NAN),
        }
    }

    /// The larger bit length of the numerator and the denominator (0 for a small
    /// value, which never exceeds 63 bits).
    pub fn bits(&self) -> u64 {
        match self {
            Rat::Small(_) => 0,
            Rat::Big(b) => b.numer().bits().max(b.denom().bits()),
        }
    }

    /// `2^k`.
    pub fn pow2(k: u32) -> Rat {
        Rat::from_bigint(BigInt::one() << k)
    }

    /// The numerator, as a big integer.
    pub fn numer(&self) -> BigInt {
        match self {
            Rat::Small(r) => BigInt::from(*r.numer()),
            Rat::Big(b) => b.numer().clone(),
        }
    }

    /// The (positive) denominator, as a big integer.
    pub fn denom(&self) -> BigInt {
        match self {
            Rat::Small(r) => BigInt::from(*r.denom()),
            Rat::Big(b) => b.denom().clone(),
        }
    }

    /// `self + o`, exact.
    pub fn add(&self, o: &Rat) -> Rat {
        if let (Rat::Small(a), Rat::Small(b)) = (self, o) {
            let (an, ad, bn, bd) = parts(a, b);
            if ad == 1 && bd == 1 {
                return small_or_big(an + bn, 1);
            }
            return small_or_big(an * bd + bn * ad, ad * bd);
        }
        if o.is_zero() {
            return self.clone();
        }
        if self.is_zero() {
            return o.clone();
        }
        if self.is_integer() && o.is_integer() {
            // No reduction: `num-rational` would take a gcd with the denominator 1,
            // which is quadratic in the bits.
            return Rat::from_bigint(self.numer() + o.numer());
        }
        Rat::from_big(self.to_big() + o.to_big())
    }

    /// `self - o`, exact.
    pub fn sub(&self, o: &Rat) -> Rat {
        self.add(&o.neg())
    }

    /// `self * o`, exact.
    pub fn mul(&self, o: &Rat) -> Rat {
        if let (Rat::Small(a), Rat::Small(b)) = (self, o) {
            let (an, ad, bn, bd) = parts(a, b);
            return small_or_big(an * bn, ad * bd);
        }
        if self.is_zero() || o.is_zero() {
            return Rat::zero();
        }
        if o.is_one() {
            return self.clone();
        }
        if self.is_one() {
            return o.clone();
        }
        if self.is_integer() && o.is_integer() {
            // No reduction (see `add`).
            return Rat::from_bigint(self.numer() * o.numer());
        }
        Rat::from_big(self.to_big() * o.to_big())
    }

    /// `self / o`, exact; `None` when `o == 0`.
    pub fn div(&self, o: &Rat) -> Option<Rat> {
        if o.is_zero() {
            return None;
        }
        if let (Rat::Small(a), Rat::Small(b)) = (self, o) {
            let (an, ad, bn, bd) = parts(a, b);
            return Some(small_or_big(an * bd, ad * bn));
        }
        Some(Rat::from_big(self.to_big() / o.to_big()))
    }

    /// `-self`, exact.
    pub fn neg(&self) -> Rat {
        match self {
            Rat::Small(r) => Rat::Small(Ratio::new_raw(-*r.numer(), *r.denom())),
            Rat::Big(b) => Rat::from_big(-(**b).clone()),
        }
    }

    /// `|self|`.
    pub fn abs(&self) -> Rat {
        if self.is_negative() {
            self.neg()
        } else {
            self.clone()
        }
    }

    /// `self^e` for a (possibly negative) integer exponent; `None` for `0^-k`.
    pub fn pow(&self, e: i32) -> Option<Rat> {
        let mut base = if e < 0 {
            Rat::one().div(self)?
        } else {
            self.clone()
        };
        let mut k = e.unsigned_abs();
        let mut acc = Rat::one();
        while k > 0 {
            if k & 1 == 1 {
                acc = acc.mul(&base);
            }
            base = base.mul(&base);
            k >>= 1;
        }
        Some(acc)
    }

    /// The greatest integer `<= self`.
    pub fn floor(&self) -> Rat {
        match self {
            Rat::Small(r) => Rat::Small(r.floor()),
            Rat::Big(b) => Rat::from_big(b.floor()),
        }
    }

    /// The least integer `>= self`.
    pub fn ceil(&self) -> Rat {
        match self {
            Rat::Small(r) => Rat::Small(r.ceil()),
            Rat::Big(b) => Rat::from_big(b.ceil()),
        }
    }

    /// The integer part, rounded toward zero.
    pub fn trunc(&self) -> Rat {
        if self.is_negative() {
            self.ceil()
        } else {
            self.floor()
        }
    }

    /// Greatest common divisor of two integers (non-negative); for rationals,
    /// `gcd(a/b, c/d) = gcd(a, c) / lcm(b, d)`, the largest rational dividing both.
    pub fn gcd(&self, o: &Rat) -> Rat {
        if let (Rat::Small(a), Rat::Small(b)) = (self, o) {
            // Both parts of a `Small` are below 2^62: gcd and lcm fit in i128.
            let n = gcd_u64(a.numer().unsigned_abs(), b.numer().unsigned_abs());
            if n == 0 {
                return Rat::zero();
            }
            let (ad, bd) = (a.denom().unsigned_abs(), b.denom().unsigned_abs());
            let lcm = i128::from(ad / gcd_u64(ad, bd)) * i128::from(bd);
            return small_or_big(i128::from(n), lcm);
        }
        let n = gcd_big(&self.numer(), &o.numer());
        let d = lcm_big(&self.denom(), &o.denom());
        if n.is_zero() {
            return Rat::zero();
        }
        Rat::from_big(BigRational::new(n, d))
    }

    /// Least common multiple of two non-zero integers (absolute value).
    pub fn lcm(&self, o: &Rat) -> Rat {
        Rat::from_bigint(lcm_big(&self.numer(), &o.numer()))
    }
}

/// The greatest common divisor of two big integers (non-negative). When one is
/// much longer than the other, Euclid's first step (the longer modulo the shorter)
/// comes first: the binary algorithm shifts the longer number at every step, so
/// `gcd(L, p)` of an L of n words and a small p would cost n² word operations
/// instead of n (the lcm of many divisors `N % p == 0` of one symbol).
fn gcd_big(a: &BigInt, b: &BigInt) -> BigInt {
    let (long, short) = if a.bits() >= b.bits() { (a, b) } else { (b, a) };
    if short.is_zero() || long.bits() <= 2 * short.bits() {
        return a.gcd(b);
    }
    short.gcd(&(long % short))
}

/// The least common multiple of two big integers (non-negative; 0 when one is 0),
/// through [`gcd_big`].
fn lcm_big(a: &BigInt, b: &BigInt) -> BigInt {
    if a.is_zero() || b.is_zero() {
        return BigInt::zero();
    }
    (a / gcd_big(a, b) * b).abs()
}

/// Magnitude bound for `Small` parts: every sum or product of two such values,
/// and of their cross products, fits in `i128` with room to spare, and no part is
/// ever `i64::MIN` (whose absolute value overflows inside gcd).
const SMALL_LIMIT: i128 = 1 << 62;

fn parts(a: &Ratio<i64>, b: &Ratio<i64>) -> (i128, i128, i128, i128) {
    (
        i128::from(*a.numer()),
        i128::from(*a.denom()),
        i128::from(*b.numer()),
        i128::from(*b.denom()),
    )
}

fn gcd_i128(mut a: i128, mut b: i128) -> i128 {
    a = a.abs();
    b = b.abs();
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

/// The greatest common divisor of two machine integers (binary: no division); `0`
/// only for `gcd(0, 0)`.
fn gcd_u64(mut a: u64, mut b: u64) -> u64 {
    if a == 0 {
        return b;
    }
    if b == 0 {
        return a;
    }
    let shift = (a | b).trailing_zeros();
    a >>= a.trailing_zeros();
    loop {
        b >>= b.trailing_zeros();
        if a > b {
            std::mem::swap(&mut a, &mut b);
        }
        b -= a;
        if b == 0 {
            return a << shift;
        }
    }
}

/// Reduce `n/d` (with `d != 0`, both well inside `i128`) and pick the representation.
fn small_or_big(mut n: i128, mut d: i128) -> Rat {
    if d < 0 {
        n = -n;
        d = -d;
    }
    // Integers (most constants) need no reduction, and parts that fit in 64 bits reduce
    // with machine arithmetic.
    if d == 1 {
        return if n.unsigned_abs() < SMALL_LIMIT as u128 {
            Rat::Small(Ratio::new_raw(n as i64, 1))
        } else {
            Rat::Big(Box::new(BigRational::new_raw(
                BigInt::from(n),
                BigInt::one(),
            )))
        };
    }
    if let (Ok(n64), Ok(d64)) = (u64::try_from(n.unsigned_abs()), u64::try_from(d)) {
        let g = gcd_u64(n64, d64).max(1);
        let (m, e) = (n64 / g, d64 / g);
        if m < SMALL_LIMIT as u64 && e < SMALL_LIMIT as u64 {
            let m = m as i64;
            return Rat::Small(Ratio::new_raw(if n < 0 { -m } else { m }, e as i64));
        }
    }
    let g = gcd_i128(n, d).max(1);
    n /= g;
    d /= g;
    if n.unsigned_abs() < SMALL_LIMIT as u128 && d < SMALL_LIMIT {
        // Both fit in i64 by the limit above.
        Rat::Small(Ratio::new_raw(n as i64, d as i64))
    } else {
        Rat::Big(Box::new(BigRational::new_raw(
            BigInt::from(n),
            BigInt::from(d),
        )))
    }
}

impl PartialOrd for Rat {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Rat {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Rat::Small(a), Rat::Small(b)) => {
                // Cross-multiply in i128: denominators are positive and the products fit.
                let l = i128::from(*a.numer()) * i128::from(*b.denom());
                let r = i128::from(*b.numer()) * i128::from(*a.denom());
                l.cmp(&r)
            }
            _ => self.to_big().cmp(&other.to_big()),
        }
    }
}

impl From<i64> for Rat {
    fn from(v: i64) -> Rat {
        Rat::int(v)
    }
}

impl fmt::Display for Rat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rat::Small(r) if r.is_integer() => write!(f, "{}", r.numer()),
            Rat::Small(r) => write!(f, "{}/{}", r.numer(), r.denom()),
            Rat::Big(b) if b.is_integer() => write!(f, "{}", b.numer()),
            Rat::Big(b) => write!(f, "{}/{}", b.numer(), b.denom()),
        }
    }
}

impl FromStr for Rat {
    type Err = ParseRatError;

    /// Parses `-?digits` or `-?digits/digits` (no spaces).
    fn from_str(s: &str) -> Result<Rat, ParseRatError> {
        let err = || ParseRatError {
            text: s.to_string(),
        };
        let int = |t: &str| -> Result<BigInt, ParseRatError> {
            let digits = t.strip_prefix('-').unwrap_or(t);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(err());
            }
            t.parse::<BigInt>().map_err(|_| err())
        };
        match s.split_once('/') {
            None => Ok(Rat::from_bigint(int(s)?)),
            Some((n, d)) => {
                let d = int(d)?;
                if d.is_zero() || d.is_negative() {
                    return Err(err());
                }
                Ok(Rat::from_big(BigRational::new(int(n)?, d)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overflow_promotes_to_big_instead_of_wrapping() {
        let big = Rat::int(i64::MAX).add(&Rat::one());
        assert!(matches!(big, Rat::Big(_)));
        assert_eq!(big.to_string(), "9223372036854775808");
        assert_eq!(big.sub(&Rat::one()), Rat::int(i64::MAX));
        assert_eq!(big.sub(&Rat::one()).to_i64(), Some(i64::MAX));
        // and comes back to Small when it fits again
        assert!(matches!(big.sub(&Rat::int(i64::MAX)), Rat::Small(_)));
        assert_eq!(
            Rat::int(i64::MIN).sub(&Rat::one()).to_string(),
            "-9223372036854775809"
        );
        let sq = Rat::int(1 << 40).mul(&Rat::int(1 << 40));
        assert_eq!(sq.to_string(), "1208925819614629174706176");
        assert_eq!(Rat::int(i64::MIN).neg().to_string(), "9223372036854775808");
    }

    #[test]
    fn i128_min_is_big_not_zero() {
        // -2^127 = i128::MIN: the one value of i128 without an absolute value.
        let p62 = Rat::int(1 << 62);
        assert!(matches!(p62, Rat::Big(_)));
        let v = Rat::int(-8).mul(&p62).mul(&p62);
        assert_eq!(v.to_string(), "-170141183460469231731687303715884105728");
        assert_eq!(v.neg().neg(), v);
        assert_eq!(Rat::from_big(v.to_big()), v);
        assert_eq!(v.add(&Rat::one()).sub(&Rat::one()), v);
        let w = Rat::from_big(BigRational::from_integer(BigInt::from(i128::MIN)));
        assert_eq!(w, v);
        assert!(w.is_negative());
    }

    #[test]
    fn parse_and_print_round_trip() {
        for s in ["0", "-7", "3/2", "-3/2", "123456789012345678901234567890"] {
            assert_eq!(s.parse::<Rat>().unwrap().to_string(), s);
        }
        assert_eq!("6/4".parse::<Rat>().unwrap().to_string(), "3/2");
        assert!("1/0".parse::<Rat>().is_err());
        assert!("x".parse::<Rat>().is_err());
        assert!("".parse::<Rat>().is_err());
        assert!("-".parse::<Rat>().is_err());
    }

    #[test]
    fn floor_ceil_follow_the_number_line() {
        let r = Rat::frac(-7, 2).unwrap();
        assert_eq!(r.floor(), Rat::int(-4));
        assert_eq!(r.ceil(), Rat::int(-3));
        assert_eq!(r.trunc(), Rat::int(-3));
        assert_eq!(Rat::frac(7, 2).unwrap().trunc(), Rat::int(3));
    }

    #[test]
    fn ordering_is_numeric() {
        let mut v = [
            Rat::int(3),
            Rat::frac(-1, 2).unwrap(),
            Rat::int(i64::MAX).add(&Rat::int(5)),
            Rat::int(0),
        ];
        v.sort();
        assert_eq!(
            v.iter().map(|r| r.to_string()).collect::<Vec<_>>(),
            ["-1/2", "0", "3", "9223372036854775812"]
        );
    }

    #[test]
    fn gcd_of_rationals() {
        assert_eq!(Rat::int(12).gcd(&Rat::int(18)), Rat::int(6));
        assert_eq!(
            Rat::frac(3, 2).unwrap().gcd(&Rat::int(3)),
            Rat::frac(3, 2).unwrap()
        );
        assert_eq!(Rat::int(0).gcd(&Rat::int(5)), Rat::int(5));
    }

    #[test]
    fn gcd_and_lcm_of_long_and_short_integers_are_euclids() {
        // Products of the first primes, times powers of two and signs, against
        // small and long partners: the Euclid first step gives num's answers.
        let primes = [2u32, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47];
        let mut long = BigInt::one();
        for i in 0..400u32 {
            long *= BigInt::from(primes[i as usize % primes.len()]);
        }
        let longs = [
            long.clone(),
            -long.clone(),
            long.clone() * 1024 + 1,
            long.clone() << 7,
        ];
        let shorts = [
            BigInt::from(1),
            BigInt::from(-6),
            BigInt::from(47 * 53),
            BigInt::from(1u64 << 40) * 3,
            BigInt::from(i64::MAX),
            long.clone() >> 300,
            long.clone(),
        ];
        for a in &longs {
            for b in &shorts {
                assert_eq!(gcd_big(a, b), a.gcd(b), "gcd({a}, {b})");
                assert_eq!(gcd_big(b, a), a.gcd(b), "gcd({b}, {a})");
                assert_eq!(lcm_big(a, b), a.lcm(b), "lcm({a}, {b})");
                assert_eq!(lcm_big(b, a), a.lcm(b), "lcm({b}, {a})");
            }
            assert_eq!(gcd_big(a, &BigInt::zero()), a.abs());
            assert_eq!(lcm_big(a, &BigInt::zero()), BigInt::zero());
        }
    }
}
