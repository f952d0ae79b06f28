//! Value bounds: closed intervals over exact rationals with infinite ends.
//!
//! Every operation returns an interval that contains every value the operation can
//! produce from values in its operands' intervals (a sound over-approximation).

use super::rational::Rat;
use std::fmt;

/// Finite ends stay within `2^BOUND_BITS` in magnitude (and integral past that
/// size): a larger end is loosened, which keeps every interval sound and stops
/// bounds from growing without limit. A self-referential e-class such as
/// `A == A*(A + S)` otherwise squares its lower bound at each refinement.
pub const BOUND_BITS: u32 = 256;

/// One end of an interval.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Bound {
    /// Unbounded below.
    NegInf,
    /// A finite end, included in the interval.
    Finite(Rat),
    /// Unbounded above.
    PosInf,
}

impl Bound {
    fn finite(&self) -> Option<&Rat> {
        match self {
            Bound::Finite(r) => Some(r),
            _ => None,
        }
    }

    fn rank(&self) -> u8 {
        match self {
            Bound::NegInf => 0,
            Bound::Finite(_) => 1,
            Bound::PosInf => 2,
        }
    }
}

impl PartialOrd for Bound {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Bound {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        match (self, other) {
            (Bound::Finite(a), Bound::Finite(b)) => a.cmp(b),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

/// A closed interval `[lo, hi]`; `lo > hi` means empty (a contradiction).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Interval {
    /// Lower end.
    pub lo: Bound,
    /// Upper end.
    pub hi: Bound,
}

impl Interval {
    /// `(-inf, inf)`.
    pub fn top() -> Interval {
        Interval {
            lo: Bound::NegInf,
            hi: Bound::PosInf,
        }
    }

    /// `[v, v]`.
    pub fn point(v: Rat) -> Interval {
        Interval {
            lo: Bound::Finite(v.clone()),
            hi: Bound::Finite(v),
        }
    }

    /// `[lo, inf)`.
    pub fn at_least(lo: Rat) -> Interval {
        Interval {
            lo: Bound::Finite(lo),
            hi: Bound::PosInf,
        }
    }

    /// `[lo, hi]` with finite or infinite ends.
    pub fn new(lo: Bound, hi: Bound) -> Interval {
        Interval { lo, hi }
    }

    /// The finite lower end, if any.
    pub fn lo(&self) -> Option<&Rat> {
        self.lo.finite()
    }

    /// The finite upper end, if any.
    pub fn hi(&self) -> Option<&Rat> {
        self.hi.finite()
    }

    /// True when no value fits.
    pub fn is_empty(&self) -> bool {
        self.lo > self.hi
    }

    /// True when the single value `v` may lie inside.
    pub fn contains(&self, v: &Rat) -> bool {
        let b = Bound::Finite(v.clone());
        self.lo <= b && b <= self.hi
    }

    /// The only value, when `lo == hi`.
    pub fn as_point(&self) -> Option<&Rat> {
        match (&self.lo, &self.hi) {
            (Bound::Finite(a), Bound::Finite(b)) if a == b => Some(a),
            _ => None,
        }
    }

    /// True when every value is `>= 0`.
    pub fn is_nonneg(&self) -> bool {
        self.lo >= Bound::Finite(Rat::zero())
    }

    /// True when every value is `> 0`.
    pub fn is_positive(&self) -> bool {
        self.lo > Bound::Finite(Rat::zero())
    }

    /// True when every value is `< 0`.
    pub fn is_negative(&self) -> bool {
        self.hi < Bound::Finite(Rat::zero())
    }

    /// The intersection (may be empty).
    pub fn intersect(&self, o: &Interval) -> Interval {
        Interval {
            lo: self.lo.clone().max(o.lo.clone()),
            hi: self.hi.clone().min(o.hi.clone()),
        }
    }

    /// The smallest interval holding both.
    pub fn hull(&self, o: &Interval) -> Interval {
        Interval {
            lo: self.lo.clone().min(o.lo.clone()),
            hi: self.hi.clone().max(o.hi.clone()),
        }
    }

    /// Round the ends inward to integers (for integer-valued quantities).
    pub fn to_integers(&self) -> Interval {
        let lo = match &self.lo {
            Bound::Finite(r) => Bound::Finite(r.ceil()),
            b => b.clone(),
        };
        let hi = match &self.hi {
            Bound::Finite(r) => Bound::Finite(r.floor()),
            b => b.clone(),
        };
        Interval { lo, hi }
    }

    /// `-self`.
    pub fn neg(&self) -> Interval {
        Interval {
            lo: neg_bound(&self.hi),
            hi: neg_bound(&self.lo),
        }
    }

    /// `self + o`.
    pub fn add(&self, o: &Interval) -> Interval {
        Interval {
            lo: add_bound(&self.lo, &o.lo, Bound::NegInf),
            hi: add_bound(&self.hi, &o.hi, Bound::PosInf),
        }
    }

    /// `self - o`.
    pub fn sub(&self, o: &Interval) -> Interval {
        self.add(&o.neg())
    }

    /// `self * o`.
    pub fn mul(&self, o: &Interval) -> Interval {
        if self.is_empty() || o.is_empty() {
            return self.clone();
        }
        let cands = [
            mul_bound(&self.lo, &o.lo),
            mul_bound(&self.lo, &o.hi),
            mul_bound(&self.hi, &o.lo),
            mul_bound(&self.hi, &o.hi),
        ];
        let lo = cands.iter().min().cloned().unwrap_or(Bound::NegInf);
        let hi = cands.iter().max().cloned().unwrap_or(Bound::PosInf);
        Interval { lo, hi }.coarsen()
    }

    /// Loosen ends past [`BOUND_BITS`]: a lower end at or above `2^BOUND_BITS`
    /// becomes `2^BOUND_BITS`, one at or below `-2^BOUND_BITS` becomes `-inf`, and a
    /// large fraction in between its floor (upper ends symmetrically). The result
    /// contains `self`.
    pub fn coarsen(self) -> Interval {
        let big = |b: &Bound| b.finite().is_some_and(|r| r.bits() > u64::from(BOUND_BITS));
        if !big(&self.lo) && !big(&self.hi) {
            return self;
        }
        let limit = Rat::pow2(BOUND_BITS);
        let lo = match &self.lo {
            Bound::Finite(r) if big(&self.lo) => {
                if *r >= limit {
                    Bound::Finite(limit.clone())
                } else if *r <= limit.neg() {
                    Bound::NegInf
                } else {
                    Bound::Finite(r.floor())
                }
            }
            other => other.clone(),
        };
        let hi = match &self.hi {
            Bound::Finite(r) if big(&self.hi) => {
                if *r <= limit.neg() {
                    Bound::Finite(limit.neg())
                } else if *r >= limit {
                    Bound::PosInf
                } else {
                    Bound::Finite(r.ceil())
                }
            }
            other => other.clone(),
        };
        Interval { lo, hi }
    }

    /// `self * c` for a constant.
    pub fn scale(&self, c: &Rat) -> Interval {
        self.mul(&Interval::point(c.clone()))
    }

    /// `self / o`; unbounded unless `o` excludes zero.
    pub fn div(&self, o: &Interval) -> Interval {
        if o.is_positive() || o.is_negative() {
            let inv = Interval {
                lo: inv_bound(&o.hi),
                hi: inv_bound(&o.lo),
            };
            self.mul(&inv)
        } else {
            Interval::top()
        }
    }

    /// `floor(self / o)` for integer values.
    pub fn floordiv(&self, o: &Interval) -> Interval {
        let q = self.div(o);
        let mut hi = map_bound(&q.hi, Rat::floor);
        // A quotient of operands of strictly opposite signs is strictly negative for
        // every value (the divisor is finite), though the interval's end may be 0.
        if self.strictly_opposite(o) {
            hi = hi.min(Bound::Finite(Rat::int(-1)));
        }
        Interval {
            lo: map_bound(&q.lo, Rat::floor),
            hi,
        }
    }

    /// `ceil(self / o)` for integer values.
    pub fn ceildiv(&self, o: &Interval) -> Interval {
        let q = self.div(o);
        let mut lo = map_bound(&q.lo, Rat::ceil);
        // Operands of strictly the same sign: the quotient is strictly positive.
        if self.strictly_same(o) {
            lo = lo.max(Bound::Finite(Rat::one()));
        }
        Interval {
            lo,
            hi: map_bound(&q.hi, Rat::ceil),
        }
    }

    /// Every value of `self` and of `o` is nonzero, with opposite signs.
    fn strictly_opposite(&self, o: &Interval) -> bool {
        (self.is_negative() && o.is_positive()) || (self.is_positive() && o.is_negative())
    }

    /// Every value of `self` and of `o` is nonzero, with the same sign.
    fn strictly_same(&self, o: &Interval) -> bool {
        (self.is_positive() && o.is_positive()) || (self.is_negative() && o.is_negative())
    }

    /// `self mod o` with floor semantics (the result has the sign of `o`), for any
    /// rational operands: `0 <= r < o` becomes `[0, o.hi]` (a closed interval cannot
    /// exclude `o.hi`). Use [`Interval::modulo_integers`] when both operands are
    /// known to be integers.
    pub fn modulo(&self, o: &Interval) -> Interval {
        self.modulo_with(o, Rat::zero())
    }

    /// `self mod o` with floor semantics when both operands are integers: then
    /// `0 <= r <= o.hi - 1` (or `o.lo + 1 <= r <= 0` for a negative `o`).
    pub fn modulo_integers(&self, o: &Interval) -> Interval {
        self.modulo_with(o, Rat::one())
    }

    /// `gap` is how far below `|o|` the result stays: 1 for integers, 0 otherwise
    /// (`mod(1/2, 1) = 1/2` lies above `1 - 1`).
    fn modulo_with(&self, o: &Interval, gap: Rat) -> Interval {
        if o.is_positive() {
            // 0 <= r <= o.hi - gap, and r <= a when a >= 0.
            let mut hi = add_bound(&o.hi, &Bound::Finite(gap.neg()), Bound::PosInf);
            if self.is_nonneg() {
                hi = hi.min(self.hi.clone());
            }
            Interval {
                lo: Bound::Finite(Rat::zero()),
                hi,
            }
        } else if o.is_negative() {
            Interval {
                lo: add_bound(&o.lo, &Bound::Finite(gap), Bound::NegInf),
                hi: Bound::Finite(Rat::zero()),
            }
        } else {
            Interval::top()
        }
    }

    /// `min(self, o)`.
    pub fn min(&self, o: &Interval) -> Interval {
        Interval {
            lo: self.lo.clone().min(o.lo.clone()),
            hi: self.hi.clone().min(o.hi.clone()),
        }
    }

    /// `max(self, o)`.
    pub fn max(&self, o: &Interval) -> Interval {
        Interval {
            lo: self.lo.clone().max(o.lo.clone()),
            hi: self.hi.clone().max(o.hi.clone()),
        }
    }

    /// `self^e` for an integer exponent (conservative).
    pub fn pow(&self, e: i32) -> Interval {
        if e == 0 {
            return Interval::point(Rat::one());
        }
        let base = if e < 0 {
            Interval::point(Rat::one()).div(self)
        } else {
            self.clone()
        };
        let mut acc = base.clone();
        for _ in 1..e.unsigned_abs().min(64) {
            acc = acc.mul(&base);
        }
        if e.unsigned_abs() > 64 {
            return Interval::top();
        }
        acc
    }
}

fn neg_bound(b: &Bound) -> Bound {
    match b {
        Bound::NegInf => Bound::PosInf,
        Bound::PosInf => Bound::NegInf,
        Bound::Finite(r) => Bound::Finite(r.neg()),
    }
}

fn add_bound(a: &Bound, b: &Bound, inf: Bound) -> Bound {
    match (a, b) {
        (Bound::Finite(x), Bound::Finite(y)) => Bound::Finite(x.add(y)),
        _ => inf,
    }
}

fn mul_bound(a: &Bound, b: &Bound) -> Bound {
    let sign = |x: &Bound| match x {
        Bound::NegInf => -1,
        Bound::PosInf => 1,
        Bound::Finite(r) if r.is_zero() => 0,
        Bound::Finite(r) if r.is_negative() => -1,
        Bound::Finite(_) => 1,
    };
    match (a, b) {
        (Bound::Finite(x), Bound::Finite(y)) => Bound::Finite(x.mul(y)),
        _ => match sign(a) * sign(b) {
            0 => Bound::Finite(Rat::zero()),
            s if s > 0 => Bound::PosInf,
            _ => Bound::NegInf,
        },
    }
}

fn inv_bound(b: &Bound) -> Bound {
    match b {
        Bound::Finite(r) => match Rat::one().div(r) {
            Some(v) => Bound::Finite(v),
            None => Bound::PosInf,
        },
        _ => Bound::Finite(Rat::zero()),
    }
}

fn map_bound(b: &Bound, f: impl Fn(&Rat) -> Rat) -> Bound {
    match b {
        Bound::Finite(r) => Bound::Finite(f(r)),
        other => other.clone(),
    }
}

impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let end = |b: &Bound| match b {
            Bound::NegInf => "-inf".to_string(),
            Bound::PosInf => "inf".to_string(),
            Bound::Finite(r) => r.to_string(),
        };
        write!(f, "[{}, {}]", end(&self.lo), end(&self.hi))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iv(lo: i64, hi: i64) -> Interval {
        Interval::new(Bound::Finite(Rat::int(lo)), Bound::Finite(Rat::int(hi)))
    }

    #[test]
    fn arithmetic_is_sound_on_samples() {
        let a = iv(-3, 5);
        let b = iv(2, 4);
        for x in -3..=5 {
            for y in 2..=4 {
                let (x, y) = (Rat::int(x), Rat::int(y));
                assert!(a.add(&b).contains(&x.add(&y)));
                assert!(a.sub(&b).contains(&x.sub(&y)));
                assert!(a.mul(&b).contains(&x.mul(&y)));
                assert!(a.div(&b).contains(&x.div(&y).unwrap()));
                assert!(a.floordiv(&b).contains(&x.div(&y).unwrap().floor()));
                assert!(a.ceildiv(&b).contains(&x.div(&y).unwrap().ceil()));
                let m = x.sub(&y.mul(&x.div(&y).unwrap().floor()));
                assert!(a.modulo_integers(&b).contains(&m), "{x} mod {y} = {m}");
                assert!(a.modulo(&b).contains(&m), "{x} mod {y} = {m}");
            }
        }
    }

    #[test]
    fn modulo_of_rationals_reaches_the_divisor() {
        // mod(1/2, 1) = 1/2 and mod(8/3, 3) = 8/3: above `o.hi - 1`.
        let half = Interval::point(Rat::frac(1, 2).unwrap());
        assert!(half.modulo(&iv(1, 1)).contains(&Rat::frac(1, 2).unwrap()));
        let a = Interval::new(Bound::Finite(Rat::zero()), Bound::Finite(Rat::int(12)));
        assert!(a.modulo(&iv(3, 3)).contains(&Rat::frac(8, 3).unwrap()));
        assert!(a.modulo(&iv(-3, -3)).contains(&Rat::frac(-8, 3).unwrap()));
        for k in 0..40 {
            let x = Rat::frac(k, 3).unwrap();
            for y in [Rat::int(3), Rat::int(-3), Rat::frac(5, 2).unwrap()] {
                let m = x.sub(&y.mul(&x.div(&y).unwrap().floor()));
                let b = Interval::point(y.clone());
                assert!(a.modulo(&b).contains(&m), "{x} mod {y} = {m}");
            }
        }
        assert_eq!(iv(0, 100).modulo_integers(&iv(1, 4)).to_string(), "[0, 3]");
        assert_eq!(iv(0, 100).modulo(&iv(1, 4)).to_string(), "[0, 4]");
    }

    #[test]
    fn infinite_ends() {
        let n = Interval::at_least(Rat::one());
        assert_eq!(n.mul(&n).to_string(), "[1, inf]");
        assert_eq!(n.neg().to_string(), "[-inf, -1]");
        assert_eq!(n.sub(&n).to_string(), "[-inf, inf]");
        assert_eq!(iv(0, 0).mul(&Interval::top()).to_string(), "[0, 0]");
        assert!(iv(3, 2).is_empty());
    }
}
