//! Solving a condition on one symbol: the values of `s` in `1..=SOLVE_LIMIT` where
//! `p == 0` or `p >= 0` holds, when they form one interval. Used for conditions
//! whose form is not linear (`floordiv(S - 400, 160) + 1 >= 0` is `S >= 240`): a
//! form that is monotone in `s` by its structure is solved by bisection, any other
//! by evaluating it at every value.

use crate::poly::{Atom, OpKind, Poly};
use crate::Rat;
use egg::Symbol;

/// The values of `s` in `1..=SOLVE_LIMIT` where `p == 0` (`zero`) or `p >= 0` holds,
/// when `s` is the only symbol of `p` and they form one interval `[lo, hi]`
/// (`hi == None`: up to the limit); `None` when they do not, when `p` cannot be
/// evaluated at some value, or when it never or always holds (always, as far as
/// searched, is not proven).
pub fn solve_single_symbol(p: &Poly, s: Symbol, zero: bool) -> Option<(i64, Option<i64>)> {
    match monotone(p, s) {
        Some(dir) => solve_monotone(p, s, dir, zero),
        None => solve_interval(&|v: i64| {
            let r = p.eval(&|t| (t == s).then(|| Rat::int(v)))?;
            Some(if zero { r.is_zero() } else { !r.is_negative() })
        }),
    }
}

/// Largest value searched when solving a single-symbol inequality.
pub const SOLVE_LIMIT: i64 = 65536;

/// The values of `s` in `1..=SOLVE_LIMIT` where `holds` is true, when they form
/// one interval `[lo, hi]` (`hi == None`: up to the limit); `None` otherwise or
/// when it never or always holds.
fn solve_interval(holds: &dyn Fn(i64) -> Option<bool>) -> Option<(i64, Option<i64>)> {
    let mut lo = None;
    let mut hi = None;
    let mut prev = false;
    for v in 1..=SOLVE_LIMIT {
        let h = holds(v)?;
        if h && !prev {
            if lo.is_some() {
                return None; // a second interval
            }
            lo = Some(v);
        }
        if !h && prev {
            hi = Some(v - 1);
        }
        prev = h;
    }
    let lo = lo?;
    if lo == 1 && hi.is_none() {
        return None; // holds at every value searched: not proven, keep as is
    }
    Some((lo, hi))
}

/// How a form varies with `s` over `s >= 1` when it is its only symbol: `1`
/// non-decreasing, `-1` non-increasing, `0` constant; `None` when its structure
/// does not show it. Read from the structure: a sum of terms that all move the same
/// way; a term `c * s**e` (`e > 0` rises, `e < 0` falls, as `s > 0`), or `c` times
/// one `floordiv`/`ceildiv` by a positive constant (as its numerator), or one
/// `min`/`max` (as its arguments, when they agree).
fn monotone(p: &Poly, s: Symbol) -> Option<i8> {
    fn combine(a: i8, b: i8) -> Option<i8> {
        match (a, b) {
            (0, x) | (x, 0) => Some(x),
            (x, y) if x == y => Some(x),
            _ => None,
        }
    }
    let mut dir = 0i8;
    for (m, c) in &p.0 {
        let sign: i8 = if c.is_negative() { -1 } else { 1 };
        let d = match m.0.as_slice() {
            [] => 0,
            [(Atom::Sym(t), e)] if *t == s => {
                if *e > 0 {
                    1
                } else {
                    -1
                }
            }
            [(Atom::Op(o), 1)] => match o.kind {
                OpKind::FloorDiv | OpKind::CeilDiv
                    if o.b.as_const().is_some_and(|k| k.is_positive()) =>
                {
                    monotone(&o.a, s)?
                }
                OpKind::Min | OpKind::Max => combine(monotone(&o.a, s)?, monotone(&o.b, s)?)?,
                _ => return None,
            },
            _ => return None,
        };
        dir = combine(dir, d * sign)?;
    }
    Some(dir)
}

/// [`solve_interval`] for a form that is monotone in `s` ([`monotone`]) by
/// bisection: the condition `p >= 0` (or `p == 0` when `zero`) holds on one
/// interval of `1..=SOLVE_LIMIT`, found from about 2 log2(SOLVE_LIMIT) evaluations
/// instead of every value. The same answer as `solve_interval`.
fn solve_monotone(p: &Poly, s: Symbol, dir: i8, zero: bool) -> Option<(i64, Option<i64>)> {
    if dir == 0 {
        return None;
    }
    // g(v) = dir * p(v) is non-decreasing.
    let g = |v: i64| -> Option<Rat> {
        let r = p.eval(&|t| (t == s).then(|| Rat::int(v)))?;
        Some(if dir > 0 { r } else { r.neg() })
    };
    // The first v in 1..=SOLVE_LIMIT with pred(g(v)), or SOLVE_LIMIT + 1.
    let first = |pred: &dyn Fn(&Rat) -> bool| -> Option<i64> {
        let (mut lo, mut hi) = (1i64, SOLVE_LIMIT + 1);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if pred(&g(mid)?) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        Some(lo)
    };
    let end = SOLVE_LIMIT + 1;
    // Where g >= 0 starts and where g > 0 starts.
    let nonneg = first(&|r: &Rat| !r.is_negative())?;
    let pos = first(&|r: &Rat| r.is_positive())?;
    let (lo, hi) = if zero {
        // p == 0 exactly on [nonneg, pos - 1].
        (nonneg, pos - 1)
    } else if dir > 0 {
        // p >= 0 on [nonneg, end - 1].
        (nonneg, end - 1)
    } else {
        // -p non-decreasing: p >= 0 where -p <= 0, on [1, pos - 1].
        (1, pos - 1)
    };
    if lo > hi || lo >= end {
        return None; // never holds
    }
    let hi = (hi < SOLVE_LIMIT).then_some(hi);
    if lo == 1 && hi.is_none() {
        return None; // holds at every value searched: not proven, keep as is
    }
    Some((lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bisection over a structurally monotone form gives what enumeration gives.
    #[test]
    fn bisection_agrees_with_enumeration() {
        let mut alg = crate::Algebra::default();
        let s = Symbol::from("S");
        for text in [
            "floordiv(S - 400, 160) + 1",
            "S*S - 50",
            "-floordiv(S, 3) + 7",
            "min(S, floordiv(S, 2) + 10) - 12",
            "max(S, 40) - 40",
            "floordiv(S + 7, 8) - 3",
            "ceildiv(S, 4) - 1000",
            "S*S*S - 1",
            "-S*S + 65536",
        ] {
            let d = alg.parse(text).unwrap();
            let p = alg.canon(d).clone();
            let dir = monotone(&p, s).unwrap_or_else(|| panic!("{text} is monotone"));
            for zero in [false, true] {
                let holds = |v: i64| {
                    let r = p.eval(&|t| (t == s).then(|| Rat::int(v)))?;
                    Some(if zero { r.is_zero() } else { !r.is_negative() })
                };
                assert_eq!(
                    solve_monotone(&p, s, dir, zero),
                    solve_interval(&holds),
                    "{text}, zero = {zero}"
                );
            }
        }
        // Not monotone by structure: mod, or terms moving both ways.
        for text in ["mod(S, 7) - 3", "S*S - 10*S"] {
            let d = alg.parse(text).unwrap();
            assert_eq!(monotone(alg.canon(d), s), None, "{text}");
        }
    }
}
