//! Solving a condition on one symbol: the values of `s` in `1..=SOLVE_LIMIT` where
//! `p == 0` or `p >= 0` holds, when they form one interval. Used for conditions
//! whose form is not linear (`floordiv(S - 400, 160) + 1 >= 0` is `S >= 240`): a
//! form that is monotone in `s` by its structure is solved by bisection, any other
//! by evaluating it at every value, unless its `min`/`max` terms split it into
//! monotone pieces.

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
        None => match solve_pieces(p, s, zero, (1, SOLVE_LIMIT), 0) {
            Pieces::Unsolved => solve_interval(&|v: i64| {
                let r = p.eval(&|t| (t == s).then(|| Rat::int(v)))?;
                Some(if zero { r.is_zero() } else { !r.is_negative() })
            }),
            found => answer(found),
        },
    }
}

/// The most `min`/`max` terms a one-symbol condition is split on, one inside another (each
/// split doubles the pieces).
pub const MAX_SOLVE_SPLITS: usize = 4;

/// Where a condition holds on a range of values, as [`solve_pieces`] finds it.
#[derive(Debug, PartialEq)]
enum Pieces {
    /// Nowhere in the range.
    Empty,
    /// On `[lo, hi]` exactly.
    One(i64, i64),
    /// Not found this way: not one interval, a piece not monotone, or a value that
    /// does not evaluate.
    Unsolved,
}

/// The values of `s` in `range` where `p == 0` (`zero`) or `p >= 0` holds, for a
/// form that is monotone by pieces: a term `c*max(a, b)` (or `min`) whose
/// arguments' difference `a - b` is monotone ([`monotone`]) is `c*a` on the
/// interval of values where `a` wins and `c*b` on the rest, and each piece is
/// solved by bisection, or split again (up to [`MAX_SOLVE_SPLITS`] levels). So
/// `S - max(0, S - 72) - 72 == 0` is `S >= 72` from a few dozen evaluations
/// instead of one per value. The same answer as evaluating every value when every
/// value evaluates.
fn solve_pieces(p: &Poly, s: Symbol, zero: bool, (lo, hi): (i64, i64), depth: usize) -> Pieces {
    if lo > hi {
        return Pieces::Empty;
    }
    if let Some(dir) = monotone(p, s) {
        return monotone_on(p, s, dir, zero, (lo, hi));
    }
    if depth >= MAX_SOLVE_SPLITS {
        return Pieces::Unsolved;
    }
    let split =
        p.0.iter()
            .enumerate()
            .find_map(|(i, (m, c))| match m.0.as_slice() {
                [(Atom::Op(o), 1)] if matches!(o.kind, OpKind::Min | OpKind::Max) => {
                    let diff = o.a.sub(&o.b);
                    monotone(&diff, s).map(|d| (i, c.clone(), o.clone(), diff, d))
                }
                _ => None,
            });
    let Some((i, c, o, diff, dir)) = split else {
        return Pieces::Unsolved;
    };
    // Where `a` wins: `a - b >= 0` for max, `b - a >= 0` for min; one interval of
    // the range, the difference being monotone.
    let a_wins = match o.kind {
        OpKind::Max => monotone_on(&diff, s, dir, false, (lo, hi)),
        _ => monotone_on(&diff.neg(), s, -dir, false, (lo, hi)),
    };
    let a_wins = match a_wins {
        Pieces::One(x, y) => Some((x, y)),
        Pieces::Empty => None,
        Pieces::Unsolved => return Pieces::Unsolved,
    };
    // The range less `a_wins` (a prefix or a suffix of the range, or all of it).
    let (a_range, b_range) = match a_wins {
        None => ((1, 0), (lo, hi)),
        Some((x, y)) if x == lo => ((x, y), (y + 1, hi)),
        Some((x, y)) if y == hi => ((x, y), (lo, x - 1)),
        Some(_) => return Pieces::Unsolved,
    };
    let rest = Poly::from_terms(
        p.0.iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, t)| t.clone())
            .collect(),
    );
    let with_a = rest.add(&o.a.scale(&c));
    let with_b = rest.add(&o.b.scale(&c));
    let on_a = solve_pieces(&with_a, s, zero, a_range, depth + 1);
    let on_b = solve_pieces(&with_b, s, zero, b_range, depth + 1);
    match (on_a, on_b) {
        (Pieces::Unsolved, _) | (_, Pieces::Unsolved) => Pieces::Unsolved,
        (Pieces::Empty, x) | (x, Pieces::Empty) => x,
        (Pieces::One(a0, a1), Pieces::One(b0, b1)) => {
            let (first, second) = if a0 <= b0 {
                ((a0, a1), (b0, b1))
            } else {
                ((b0, b1), (a0, a1))
            };
            if first.1 + 1 == second.0 {
                Pieces::One(first.0, second.1)
            } else {
                Pieces::Unsolved // two intervals
            }
        }
    }
}

/// Bisection on `range`: where the condition holds, for a form `p` that moves one
/// way (`dir`: `1` up, `-1` down, `0` constant) in `s`, found from about
/// 2 log2 of the range's length evaluations.
fn monotone_on(p: &Poly, s: Symbol, dir: i8, zero: bool, (lo, hi): (i64, i64)) -> Pieces {
    let g = |v: i64| -> Option<Rat> {
        let r = p.eval(&|t| (t == s).then(|| Rat::int(v)))?;
        Some(if dir < 0 { r.neg() } else { r })
    };
    if dir == 0 {
        let Some(r) = g(lo) else {
            return Pieces::Unsolved;
        };
        let holds = if zero { r.is_zero() } else { !r.is_negative() };
        return if holds {
            Pieces::One(lo, hi)
        } else {
            Pieces::Empty
        };
    }
    // The first v in lo..=hi with pred(g(v)), or hi + 1.
    let first = |pred: &dyn Fn(&Rat) -> bool| -> Option<i64> {
        let (mut a, mut b) = (lo, hi + 1);
        while a < b {
            let mid = a + (b - a) / 2;
            if pred(&g(mid)?) {
                b = mid;
            } else {
                a = mid + 1;
            }
        }
        Some(a)
    };
    let (Some(nonneg), Some(pos)) = (
        first(&|r: &Rat| !r.is_negative()),
        first(&|r: &Rat| r.is_positive()),
    ) else {
        return Pieces::Unsolved;
    };
    let (a, b) = if zero {
        (nonneg, pos - 1)
    } else if dir > 0 {
        (nonneg, hi)
    } else {
        (lo, pos - 1)
    };
    if a > b {
        Pieces::Empty
    } else {
        Pieces::One(a, b)
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
    answer(monotone_on(p, s, dir, zero, (1, SOLVE_LIMIT)))
}

/// A solution on `1..=SOLVE_LIMIT` as [`solve_single_symbol`] gives it: `None`
/// when the condition never holds, was not solved, or holds at every value
/// searched (not proven); an upper end at the limit is none.
fn answer(found: Pieces) -> Option<(i64, Option<i64>)> {
    let Pieces::One(lo, hi) = found else {
        return None;
    };
    let hi = (hi < SOLVE_LIMIT).then_some(hi);
    (!(lo == 1 && hi.is_none())).then_some((lo, hi))
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

    /// Solving by pieces gives what evaluating every value gives, on forms with
    /// `min`/`max` terms whose arguments move apart (basic-pitch's
    /// `S - max(0, S - 72) - 72`), nested ones, and ones past the split limit.
    #[test]
    fn pieces_agree_with_enumeration() {
        let mut alg = crate::Algebra::default();
        let s = Symbol::from("S");
        let mut solved = 0;
        for text in [
            "S - max(0, S - 72) - 72",
            "S - max(0, S - 72) - 73",
            "max(0, S - 72) + 72 - S",
            "S - min(S, 264)",
            "min(S, 264) - S",
            "88 - floordiv(min(S, 264), 3) - S + max(S, 100)",
            "2*max(S, 50) - S - 60",
            "max(S, 50) - 2*S + 20",
            "min(S, 10) + max(S, 20) - 2*S",
            "max(S - 100, 0) - max(S - 200, 0) - 50",
            "min(max(S, 5), 9) - S",
            "max(S*S, 300) - 20*S",
            "S - max(min(S, 40000), 30000)",
            "max(10, S) - min(20, S) - 5",
            "max(S, 5) - max(S, 7) + max(S, 9) - max(S, 11) + max(S, 13) - max(S, 15) + 1",
            "mod(S, 7) - max(S, 3) + S",
        ] {
            let d = alg.parse(text).unwrap();
            let p = alg.canon(d).clone();
            for zero in [false, true] {
                let holds = |v: i64| {
                    let r = p.eval(&|t| (t == s).then(|| Rat::int(v)))?;
                    Some(if zero { r.is_zero() } else { !r.is_negative() })
                };
                let expected = solve_interval(&holds);
                assert_eq!(
                    solve_single_symbol(&p, s, zero),
                    expected,
                    "{text}, zero = {zero}"
                );
                if monotone(&p, s).is_none()
                    && solve_pieces(&p, s, zero, (1, SOLVE_LIMIT), 0) != Pieces::Unsolved
                {
                    solved += 1;
                }
            }
        }
        // Most of these are solved by pieces, not by the fallback.
        assert!(solved >= 20, "solved by pieces: {solved}");
    }
}
