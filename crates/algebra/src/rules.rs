//! The named rewrite rules.
//!
//! Ring laws (commutativity, associativity, distribution, cancellation of
//! monomial factors) and constant folding are the canonical form's job
//! ([`super::poly`]), so there are no raw commutativity or associativity rules here.
//! These rules handle the opaque operators. Each one is an egg [`Rewrite`]: a
//! pattern, a side condition on the analysis data (a small named function), and an
//! applier that builds the right-hand side from canonical forms and unions it with
//! the matched class. `docs/rules.md` lists each rule with why it is sound.
//!
//! Semantics the conditions rely on: every atom is an integer (dims and the values
//! of shape tensors are integers); `floordiv`, `ceildiv` and `mod` use floor/ceil
//! semantics (`mod` takes the sign of the divisor); `broadcast(a, b)` is defined
//! only when `a == b`, `a == 1` or `b == 1`, and rules preserve its value wherever
//! it is defined.

use super::analysis::{better, DimAnalysis, DimGraph};
use super::build::pair_up;
use super::interval::Interval;
use super::lang::DimLang;
use super::poly::{common_content, offset_divisor, offset_shift, Atom, OpKind, Poly, SymbolInfo};
use super::rational::{Rat, MAX_CONST_BITS};
use egg::{Applier, ENodeOrVar, Id, Language, Pattern, PatternAst, Rewrite, Subst, Symbol, Var};
use smallvec::SmallVec;

/// A rule's side condition and right-hand side: given the canonical forms and
/// bounds of the pattern's variables, the canonical right-hand side, or `None`
/// when the condition does not hold.
pub type RuleFn = fn(&Ctx<'_>, &[Operand]) -> Option<Poly>;

/// A matched pattern variable: its canonical form and bounds.
#[derive(Debug, Clone)]
pub struct Operand {
    /// Canonical form.
    pub canon: Poly,
    /// Bounds of the class.
    pub bounds: Interval,
}

/// What a condition may consult besides its operands.
pub struct Ctx<'a> {
    /// The symbol table (symbol bounds and divisors).
    pub info: &'a dyn SymbolInfo,
}

impl Ctx<'_> {
    /// Bounds of an arbitrary canonical form.
    pub fn bounds(&self, p: &Poly) -> Interval {
        p.bounds(self.info)
    }

    /// True when `p` is provably an integer.
    pub fn is_integer(&self, p: &Poly) -> bool {
        p.int_divisor(self.info).is_some()
    }

    /// True when `b` is provably non-zero.
    pub fn nonzero(&self, b: &Operand) -> bool {
        b.bounds.is_positive()
            || b.bounds.is_negative()
            || self.bounds(&b.canon).is_positive()
            || self.bounds(&b.canon).is_negative()
    }

    /// The exact quotient `a / b` when `b != 0` and the quotient is provably an integer.
    pub fn exact_quotient(&self, a: &Poly, b: &Operand) -> Option<Poly> {
        if !self.nonzero(b) {
            return None;
        }
        let q = a.div(&b.canon)?;
        self.is_integer(&q).then_some(q)
    }

    /// True when `b > 0` holds for every value.
    pub fn positive(&self, b: &Operand) -> bool {
        b.bounds.is_positive() || self.bounds(&b.canon).is_positive()
    }

    /// True when `a <= b` holds for every value: by the bounds of the canonical
    /// difference `b - a` (with its `floordiv` terms relaxed, [`Poly::relaxed_bounds`]),
    /// or because `a`'s bounds end below `b`'s.
    pub fn le(&self, a: &Operand, b: &Operand) -> bool {
        a.bounds
            .hi()
            .zip(b.bounds.lo())
            .is_some_and(|(x, y)| x <= y)
            || b.canon.sub(&a.canon).relaxed_bounds(self.info).is_nonneg()
    }

    /// True when `a < b` holds for every value (as [`Ctx::le`]).
    pub fn lt(&self, a: &Operand, b: &Operand) -> bool {
        a.bounds.hi().zip(b.bounds.lo()).is_some_and(|(x, y)| x < y)
            || b.canon
                .sub(&a.canon)
                .relaxed_bounds(self.info)
                .is_positive()
    }

    /// Split `a = b*q + r` with `q` the sum of the terms of `a` whose quotient by `b`
    /// is provably an integer; `None` when nothing splits off or `b` may be zero.
    pub fn split(&self, a: &Poly, b: &Operand) -> Option<(Poly, Poly)> {
        if !self.nonzero(b) || a.len() < 2 && self.exact_quotient(a, b).is_some() {
            return None;
        }
        let mut q = Poly::zero();
        let mut r = Poly::zero();
        for (m, c) in &a.0 {
            let t = Poly(vec![(m.clone(), c.clone())]);
            match t.div(&b.canon) {
                Some(tq) if self.is_integer(&tq) && !has_div_atom(&tq) => q = q.add(&tq),
                _ => r = r.add(&t),
            }
        }
        (!q.is_zero()).then_some((q, r))
    }
}

fn has_div_atom(p: &Poly) -> bool {
    p.0.iter().any(|(m, _)| {
        m.0.iter()
            .any(|(a, e)| *e < 0 || matches!(a, Atom::Op(o) if o.kind == OpKind::Div))
    })
}

/// One entry of the rule table.
#[derive(Clone, Copy)]
pub struct RuleSpec {
    /// Kebab-case name (also the reason recorded for the union).
    pub name: &'static str,
    /// The left-hand side, an egg pattern.
    pub pattern: &'static str,
    /// The right-hand side, as documentation.
    pub rhs: &'static str,
    /// The side condition, as documentation.
    pub condition: &'static str,
    /// The check and the right-hand side.
    pub apply: RuleFn,
}

fn floordiv_exact(cx: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    cx.exact_quotient(&v[0].canon, &v[1])
}

fn mod_exact(cx: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    cx.exact_quotient(&v[0].canon, &v[1]).map(|_| Poly::zero())
}

fn floordiv_small(cx: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    (v[0].bounds.is_nonneg() && cx.lt(&v[0], &v[1])).then(Poly::zero)
}

/// `-b <= a < 0`: the negation of `a` as an operand, checked against `b`.
fn negative_small(cx: &Ctx<'_>, v: &[Operand]) -> bool {
    let neg = Operand {
        canon: v[0].canon.neg(),
        bounds: v[0].bounds.neg(),
    };
    v[0].bounds.is_negative() && cx.le(&neg, &v[1])
}

fn floordiv_small_negative(cx: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    negative_small(cx, v).then(|| Poly::constant(Rat::int(-1)))
}

fn mod_small_negative(cx: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    negative_small(cx, v).then(|| v[0].canon.add(&v[1].canon))
}

fn ceildiv_small(cx: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    (v[0].bounds.is_positive() && cx.le(&v[0], &v[1])).then(|| Poly::constant(Rat::one()))
}

fn mod_small(cx: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    (v[0].bounds.is_nonneg() && cx.lt(&v[0], &v[1])).then(|| v[0].canon.clone())
}

fn floordiv_split(cx: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    let (q, r) = cx.split(&v[0].canon, &v[1])?;
    Some(q.add(&Poly::op(OpKind::FloorDiv, r, v[1].canon.clone())))
}

fn ceildiv_split(cx: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    if becomes_floordiv(cx, &v[0].canon, &v[1].canon) {
        return None;
    }
    let (q, r) = cx.split(&v[0].canon, &v[1])?;
    Some(q.add(&Poly::op(OpKind::CeilDiv, r, v[1].canon.clone())))
}

fn mod_split(cx: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    let (_, r) = cx.split(&v[0].canon, &v[1])?;
    Some(Poly::op(OpKind::Mod, r, v[1].canon.clone()))
}

/// True when `ceildiv(a, b)` is rewritten into a `floordiv` ([`ceildiv_to_floordiv`]):
/// `a` an integer and `b` a positive integer. The other `ceildiv` rules leave such
/// a term to the `floordiv` rules, which reach the same result through the normal
/// form; matching both would rebuild each level of a nested chain once per level
/// above it.
fn becomes_floordiv(cx: &Ctx<'_>, a: &Poly, b: &Poly) -> bool {
    cx.is_integer(a) && cx.is_integer(b) && cx.bounds(b).is_positive()
}

/// `ceildiv(a, b) = floordiv(a + b - 1, b)` for an integer `a` and a positive
/// integer `b`; the other rules then bring it to the normal form
/// (`floordiv(a - 1, b) + 1`).
fn ceildiv_to_floordiv(cx: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    let (a, b) = (&v[0].canon, &v[1].canon);
    (cx.is_integer(a) && cx.is_integer(b) && cx.positive(&v[1])).then(|| {
        let num = a.add(b).sub(&Poly::constant(Rat::one()));
        Poly::op(OpKind::FloorDiv, num, b.clone())
    })
}

/// For `floordiv(a, k)` or `mod(a, k)` with `k` an integer constant `>= 2` and the
/// constant term `c` of `a` outside `(-k, 0]`: `q = ceil(c/k)` and `a - q*k`, whose
/// constant term lies in `(-k, 0]`.
fn offset_parts(v: &[Operand]) -> Option<(Rat, Poly)> {
    let k = v[1].canon.as_const().filter(offset_divisor)?;
    let q = offset_shift(&v[0].canon, &k)?;
    let a = v[0].canon.sub(&Poly::constant(q.mul(&k)));
    Some((q, a))
}

fn floordiv_offset(_: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    let (q, a) = offset_parts(v)?;
    Some(Poly::op(OpKind::FloorDiv, a, v[1].canon.clone()).add(&Poly::constant(q)))
}

fn mod_offset(_: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    let (_, a) = offset_parts(v)?;
    Some(Poly::op(OpKind::Mod, a, v[1].canon.clone()))
}

/// `a = g*x + c` and `b = g*k` for the common factor `g > 1` of the coefficients
/// of `b` and of `a`'s non-constant terms ([`common_content`]): `(g, x, c, k)` when
/// `g` divides `c`, or `x` is an integer and `k` a positive integer.
fn content_parts(cx: &Ctx<'_>, v: &[Operand]) -> Option<(Rat, Poly, Rat, Poly)> {
    let g = common_content(&v[0].canon, &v[1].canon)?;
    let inv = Rat::one().div(&g)?;
    let c = v[0].canon.as_const_term();
    let x = v[0].canon.sub(&Poly::constant(c.clone())).scale(&inv);
    let k = v[1].canon.scale(&inv);
    let exact = c.div(&g).is_some_and(|q| q.is_integer());
    (exact || cx.is_integer(&x) && cx.is_integer(&k) && cx.bounds(&k).is_positive())
        .then_some((g, x, c, k))
}

/// `floordiv(g*x + c, g*k) = floordiv(x + floor(c/g), k)`: for `g | c` both sides
/// are the same rational's floor; otherwise `floor((g*x + c)/g) = x + floor(c/g)`
/// for an integer `x`, and `floor(floor(y)/k) = floor(y/k)` for a positive integer `k`.
fn floordiv_content(cx: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    let (g, x, c, k) = content_parts(cx, v)?;
    let c1 = c.div(&g)?.floor();
    Some(Poly::op(OpKind::FloorDiv, x.add(&Poly::constant(c1)), k))
}

/// `mod(g*x + c, g*k) = g*mod(x + floor(c/g), k) + (c - g*floor(c/g))`, by
/// `floordiv-content` and `mod(a, b) = a - b*floordiv(a, b)`.
fn mod_content(cx: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    let (g, x, c, k) = content_parts(cx, v)?;
    let c1 = c.div(&g)?.floor();
    let c0 = c.sub(&g.mul(&c1));
    let m = Poly::op(OpKind::Mod, x.add(&Poly::constant(c1)), k);
    Some(m.scale(&g).add(&Poly::constant(c0)))
}

fn nested_ok(cx: &Ctx<'_>, v: &[Operand]) -> bool {
    v[1].bounds.is_positive() && v[2].bounds.is_positive() && cx.is_integer(&v[2].canon)
}

/// `kind(x, d)` (floordiv or ceildiv) with `d > 0`, collapsing `x` while its
/// canonical form is itself `kind(y, c)` with `c > 0` and `d` an integer:
/// `kind(kind(y, c), d) = kind(y, c*d)`. Building the collapsed form directly,
/// rather than a nested term for the rules to collapse again, keeps a chain of
/// `n` nested divisions linear instead of adding a term per pair of levels.
///
/// `d_int` says whether `d` is known to be an integer; `d` is positive. Both are
/// carried from level to level (a product of positives is positive, of integers an
/// integer) rather than asked of the growing product.
///
/// `None` when a product would not fit [`divisor_fits`]: the chain then stays as it
/// is rather than collapsing part of the way, since each e-node of the class would
/// collapse to a different partial form, and a chain of `n` levels would gather
/// `n` forms per class.
fn nest(cx: &Ctx<'_>, kind: OpKind, mut x: Poly, mut d: Poly, mut d_int: bool) -> Option<Poly> {
    for _ in 0..super::poly::MAX_DEPTH {
        let inner = match x.as_atom() {
            Some(Atom::Op(o)) if o.kind == kind => o.clone(),
            _ => break,
        };
        if !(d_int && cx.bounds(&inner.b).is_positive()) {
            break;
        }
        let product = inner.b.mul(&d);
        if !divisor_fits(&product) {
            return None;
        }
        d_int = cx.is_integer(&inner.b);
        d = product;
        x = inner.a.clone();
    }
    Some(Poly::op(kind, x, d))
}

fn floordiv_nested(cx: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    nested(cx, v, OpKind::FloorDiv)
}

fn ceildiv_nested(cx: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    if becomes_floordiv(cx, &v[0].canon, &v[1].canon) {
        return None;
    }
    nested(cx, v, OpKind::CeilDiv)
}

/// `kind(kind(a, b), c)` collapsed by [`nest`] from the divisor `b*c`.
fn nested(cx: &Ctx<'_>, v: &[Operand], kind: OpKind) -> Option<Poly> {
    let d = v[1].canon.mul(&v[2].canon);
    if !(nested_ok(cx, v) && divisor_fits(&d)) {
        return None;
    }
    nest(cx, kind, v[0].canon.clone(), d, cx.is_integer(&v[1].canon))
}

/// `a = floordiv(x, c) + r` (or ceildiv) with `r` an integer: `(x, c, r)`.
fn offset_atom(cx: &Ctx<'_>, a: &Poly, kind: OpKind) -> Option<(Poly, Poly, Poly)> {
    let mut found = None;
    let mut rest = Poly::zero();
    for (m, c) in &a.0 {
        match (m.0.as_slice(), c.is_one(), &found) {
            ([(Atom::Op(o), 1)], true, None) if o.kind == kind => {
                found = Some((o.a.clone(), o.b.clone()))
            }
            _ => rest = rest.add(&Poly(vec![(m.clone(), c.clone())])),
        }
    }
    let (x, c) = found?;
    (!rest.is_zero() && cx.is_integer(&rest) && cx.bounds(&c).is_positive()).then_some((x, c, rest))
}

/// The most terms the divisor `c*d` of a collapsed nested division may have
/// (`floordiv-nested-offset`, `ceildiv-nested-offset`). Collapsing a chain of
/// divisions by symbolic dims multiplies their divisors, whose expansion doubles
/// with each level (`(K0 + 1)*(K1 + 1)*...`); the growth limit is relative to the
/// whole nested form, so without this bound each new level would collapse through
/// ever more levels below it, and a chain of `n` levels would cost `n²`.
pub const MAX_NESTED_DIVISOR_TERMS: usize = 16;

/// The most factors (atoms) a term of the divisor of a collapsed nested division
/// may have (`floordiv-nested`, `ceildiv-nested` and their `-offset` forms). A chain
/// `floordiv(floordiv(N, K0), K1)...` collapses to `floordiv(N, K0*K1*...)`, and each
/// level's product is a new chain of e-classes (its factors are ordered by name, so
/// the new factor lands mid-chain): without this bound a chain of `n` divisions by
/// distinct symbols would make `n²/2` classes, each bounded anew. Past it the
/// division stays nested (sound, less simplified), and a chain's cost per level is
/// bounded by the nesting depth limit, `poly::MAX_DEPTH`.
pub const MAX_NESTED_DIVISOR_FACTORS: usize = 16;

/// Whether `d` may be the divisor of a collapsed nested division:
/// [`MAX_NESTED_DIVISOR_TERMS`] terms of [`MAX_NESTED_DIVISOR_FACTORS`] factors at most,
/// each coefficient within [`MAX_CONST_BITS`] (two divisors within the limit may
/// multiply past it: `floordiv(floordiv(x, 8**890), 8**890)` stays nested rather
/// than become a division by a 5,341-bit constant no expression can spell).
fn divisor_fits(d: &Poly) -> bool {
    d.len() <= MAX_NESTED_DIVISOR_TERMS
        && d.0
            .iter()
            .all(|(m, c)| m.0.len() <= MAX_NESTED_DIVISOR_FACTORS && c.bits() <= MAX_CONST_BITS)
}

/// Whether every coefficient of `p` is within [`MAX_CONST_BITS`] (the numerator of
/// a collapsed offset division, `x + r*c`).
fn consts_fit(p: &Poly) -> bool {
    p.0.iter().all(|(_, c)| c.bits() <= MAX_CONST_BITS)
}

fn floordiv_nested_offset(cx: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    let (x, c, r) = offset_atom(cx, &v[0].canon, OpKind::FloorDiv)?;
    if !(v[1].bounds.is_positive() && cx.is_integer(&v[1].canon)) {
        return None;
    }
    let d = c.mul(&v[1].canon);
    let n = x.add(&r.mul(&c));
    (divisor_fits(&d) && consts_fit(&n)).then(|| Poly::op(OpKind::FloorDiv, n, d))
}

fn ceildiv_nested_offset(cx: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    let (x, c, r) = offset_atom(cx, &v[0].canon, OpKind::CeilDiv)?;
    if becomes_floordiv(cx, &x, &c) {
        return None;
    }
    if !(v[1].bounds.is_positive() && cx.is_integer(&v[1].canon)) {
        return None;
    }
    let d = c.mul(&v[1].canon);
    let n = x.add(&r.mul(&c));
    (divisor_fits(&d) && consts_fit(&n)).then(|| Poly::op(OpKind::CeilDiv, n, d))
}

fn min_left(cx: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    cx.le(&v[0], &v[1]).then(|| v[0].canon.clone())
}

fn min_right(cx: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    cx.le(&v[1], &v[0]).then(|| v[1].canon.clone())
}

fn max_left(cx: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    cx.le(&v[1], &v[0]).then(|| v[0].canon.clone())
}

fn max_right(cx: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    cx.le(&v[0], &v[1]).then(|| v[1].canon.clone())
}

fn broadcast_same(_: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    (v[0].canon == v[1].canon).then(|| v[0].canon.clone())
}

fn is_one(o: &Operand) -> bool {
    o.canon.as_const().is_some_and(|c| c.is_one())
}

fn not_one(cx: &Ctx<'_>, o: &Operand) -> bool {
    let one = Rat::one();
    !o.bounds.contains(&one) || !cx.bounds(&o.canon).contains(&one)
}

fn broadcast_one_left(_: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    is_one(&v[0]).then(|| v[1].canon.clone())
}

fn broadcast_one_right(_: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    is_one(&v[1]).then(|| v[0].canon.clone())
}

/// `broadcast(x, y)` is `x` when `x != 1`. When `y != 1` as well, it is defined
/// only where `x == y` and both are its value: take the better form of the two,
/// so the result does not depend on the order of the operands (only one of the
/// two rules can fire: once the class holds `x`, the other match is a cycle).
/// When moreover `x != y` is provable, the broadcast is defined nowhere (a shape
/// error such as `broadcast(3, 5)`): it stays, as constant folding leaves it.
fn broadcast_not_one(cx: &Ctx<'_>, x: &Operand, y: &Operand) -> Option<Poly> {
    if !not_one(cx, x) {
        return None;
    }
    if not_one(cx, y) && (better(&y.canon, &x.canon) || provably_different(cx, x, y)) {
        return None;
    }
    Some(x.canon.clone())
}

/// True when `x != y` for every value.
fn provably_different(cx: &Ctx<'_>, x: &Operand, y: &Operand) -> bool {
    !cx.bounds(&x.canon.sub(&y.canon)).contains(&Rat::zero())
        || x.bounds.intersect(&y.bounds).is_empty()
}

fn broadcast_not_one_left(cx: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    broadcast_not_one(cx, &v[0], &v[1])
}

fn broadcast_not_one_right(cx: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    broadcast_not_one(cx, &v[1], &v[0])
}

/// True when `other` is `max(x, c)` with `c <= 1`, or `min(x, c)` with `c >= 1`
/// (operands in either order): then `broadcast(x, other)` is `x` wherever it is
/// defined. For `max`: where `x >= c` both operands are `x`; where `x < c <= 1`, `x`
/// is not 1, so the broadcast is defined only when `c == 1`, and is `x` there. `min`
/// is symmetric (`x > c >= 1`).
fn broadcast_absorbs(cx: &Ctx<'_>, x: &Poly, other: &Poly) -> bool {
    let Some(Atom::Op(o)) = other.as_atom() else {
        return false;
    };
    let c = if o.a == *x {
        &o.b
    } else if o.b == *x {
        &o.a
    } else {
        return false;
    };
    let one = Rat::one();
    let b = cx.bounds(c);
    match o.kind {
        OpKind::Max => b.hi().is_some_and(|h| *h <= one),
        OpKind::Min => b.lo().is_some_and(|l| *l >= one),
        _ => false,
    }
}

fn broadcast_absorb(cx: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    if broadcast_absorbs(cx, &v[0].canon, &v[1].canon) {
        Some(v[0].canon.clone())
    } else if broadcast_absorbs(cx, &v[1].canon, &v[0].canon) {
        Some(v[1].canon.clone())
    } else {
        None
    }
}

fn broadcast_max(cx: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    // `>= 1`, not `> 0`: for a rational operand (`S/6`) the two differ.
    let one = Rat::one();
    let at_least_one = |o: &Operand| {
        o.bounds.lo().is_some_and(|l| *l >= one)
            || cx.bounds(&o.canon).lo().is_some_and(|l| *l >= one)
    };
    // A provably incompatible pair (both not 1 and different) stays visible.
    let incompatible = not_one(cx, &v[0]) && not_one(cx, &v[1]) && {
        let d = cx.bounds(&v[0].canon.sub(&v[1].canon));
        d.is_positive() || d.is_negative()
    };
    (at_least_one(&v[0]) && at_least_one(&v[1]) && !incompatible)
        .then(|| Poly::op(OpKind::Max, v[0].canon.clone(), v[1].canon.clone()))
}

/// `x` when `other` is the atom `kind(x, _)` or `kind(_, x)`.
fn absorbs(x: &Poly, other: &Poly, kind: OpKind) -> bool {
    matches!(other.as_atom(), Some(Atom::Op(o)) if o.kind == kind && (o.a == *x || o.b == *x))
}

fn max_absorb(_: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    if absorbs(&v[0].canon, &v[1].canon, OpKind::Min) {
        Some(v[0].canon.clone())
    } else if absorbs(&v[1].canon, &v[0].canon, OpKind::Min) {
        Some(v[1].canon.clone())
    } else {
        None
    }
}

fn min_absorb(_: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    if absorbs(&v[0].canon, &v[1].canon, OpKind::Max) {
        Some(v[0].canon.clone())
    } else if absorbs(&v[1].canon, &v[0].canon, OpKind::Max) {
        Some(v[1].canon.clone())
    } else {
        None
    }
}

/// `op(a, b)` with `b = op(a, x)` (or symmetrically) is `b`, for `op` `min` or
/// `max`: both are idempotent and associative.
fn nested_idem(v: &[Operand], kind: OpKind) -> Option<Poly> {
    if absorbs(&v[0].canon, &v[1].canon, kind) {
        Some(v[1].canon.clone())
    } else if absorbs(&v[1].canon, &v[0].canon, kind) {
        Some(v[0].canon.clone())
    } else {
        None
    }
}

fn max_nested(_: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    nested_idem(v, OpKind::Max)
}

fn min_nested(_: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    nested_idem(v, OpKind::Min)
}

/// The least positive integer `l` making `l*a` and `l*b` integer-valued, when `l > 1`.
fn clearing_factor(cx: &Ctx<'_>, v: &[Operand]) -> Option<Rat> {
    let mut l = Rat::one();
    for p in [&v[0].canon, &v[1].canon] {
        for (m, c) in &p.0 {
            if m.0.iter().any(|(_, e)| *e < 0) {
                return None;
            }
            l = l.lcm(&Rat::from_bigint(c.denom()));
        }
    }
    let ok = !l.is_one()
        && cx.is_integer(&v[0].canon.scale(&l))
        && cx.is_integer(&v[1].canon.scale(&l))
        && cx.nonzero(&v[1]);
    ok.then_some(l)
}

fn floordiv_clear(cx: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    let l = clearing_factor(cx, v)?;
    Some(Poly::op(
        OpKind::FloorDiv,
        v[0].canon.scale(&l),
        v[1].canon.scale(&l),
    ))
}

fn ceildiv_clear(cx: &Ctx<'_>, v: &[Operand]) -> Option<Poly> {
    let l = clearing_factor(cx, v)?;
    Some(Poly::op(
        OpKind::CeilDiv,
        v[0].canon.scale(&l),
        v[1].canon.scale(&l),
    ))
}

/// The rule table, in the order rules are tried: one line per rule.
#[rustfmt::skip]
pub const RULES: &[RuleSpec] = &[
    RuleSpec { name: "floordiv-exact", pattern: "(floordiv ?a ?b)", rhs: "a / b", condition: "b != 0 and b | a", apply: floordiv_exact },
    RuleSpec { name: "ceildiv-exact", pattern: "(ceildiv ?a ?b)", rhs: "a / b", condition: "b != 0 and b | a", apply: floordiv_exact },
    RuleSpec { name: "mod-exact", pattern: "(mod ?a ?b)", rhs: "0", condition: "b != 0 and b | a", apply: mod_exact },
    RuleSpec { name: "floordiv-small", pattern: "(floordiv ?a ?b)", rhs: "0", condition: "0 <= a < b", apply: floordiv_small },
    RuleSpec { name: "ceildiv-small", pattern: "(ceildiv ?a ?b)", rhs: "1", condition: "0 < a <= b", apply: ceildiv_small },
    RuleSpec { name: "mod-small", pattern: "(mod ?a ?b)", rhs: "a", condition: "0 <= a < b", apply: mod_small },
    RuleSpec { name: "floordiv-small-negative", pattern: "(floordiv ?a ?b)", rhs: "-1", condition: "-b <= a < 0", apply: floordiv_small_negative },
    RuleSpec { name: "mod-small-negative", pattern: "(mod ?a ?b)", rhs: "a + b", condition: "-b <= a < 0", apply: mod_small_negative },
    RuleSpec { name: "floordiv-split", pattern: "(floordiv ?a ?b)", rhs: "q + floordiv(r, b)", condition: "b != 0, a = b*q + r with q a non-zero integer", apply: floordiv_split },
    RuleSpec { name: "ceildiv-split", pattern: "(ceildiv ?a ?b)", rhs: "q + ceildiv(r, b)", condition: "b != 0, a = b*q + r with q a non-zero integer; not both a an integer and b a positive integer", apply: ceildiv_split },
    RuleSpec { name: "mod-split", pattern: "(mod ?a ?b)", rhs: "mod(r, b)", condition: "b != 0, a = b*q + r with q a non-zero integer", apply: mod_split },
    RuleSpec { name: "ceildiv-to-floordiv", pattern: "(ceildiv ?a ?b)", rhs: "floordiv(a + b - 1, b)", condition: "a an integer, b a positive integer", apply: ceildiv_to_floordiv },
    RuleSpec { name: "floordiv-content", pattern: "(floordiv ?a ?b)", rhs: "floordiv(x + floor(c/g), k) where a = g*x + c, b = g*k", condition: "g > 1 divides the coefficients of b and of a's non-constant terms; g | c, or x an integer and k a positive integer", apply: floordiv_content },
    RuleSpec { name: "mod-content", pattern: "(mod ?a ?b)", rhs: "g*mod(x + floor(c/g), k) + c - g*floor(c/g) where a = g*x + c, b = g*k", condition: "as floordiv-content", apply: mod_content },
    RuleSpec { name: "floordiv-offset", pattern: "(floordiv ?a ?b)", rhs: "floordiv(a - q*b, b) + q", condition: "b an integer constant >= 2, q = ceil(c/b) != 0 for the constant term c of a", apply: floordiv_offset },
    RuleSpec { name: "mod-offset", pattern: "(mod ?a ?b)", rhs: "mod(a - q*b, b)", condition: "b an integer constant >= 2, q = ceil(c/b) != 0 for the constant term c of a", apply: mod_offset },
    RuleSpec { name: "floordiv-nested", pattern: "(floordiv (floordiv ?a ?b) ?c)", rhs: "floordiv(a, b*c)", condition: "b > 0, c > 0 and c an integer", apply: floordiv_nested },
    RuleSpec { name: "ceildiv-nested", pattern: "(ceildiv (ceildiv ?a ?b) ?c)", rhs: "ceildiv(a, b*c)", condition: "b > 0, c > 0 and c an integer; not both a an integer and b a positive integer", apply: ceildiv_nested },
    RuleSpec { name: "floordiv-nested-offset", pattern: "(floordiv ?a ?b)", rhs: "floordiv(x + r*c, c*b) where a = floordiv(x, c) + r", condition: "c > 0, b > 0 an integer, r a non-zero integer", apply: floordiv_nested_offset },
    RuleSpec { name: "ceildiv-nested-offset", pattern: "(ceildiv ?a ?b)", rhs: "ceildiv(x + r*c, c*b) where a = ceildiv(x, c) + r", condition: "c > 0, b > 0 an integer, r a non-zero integer; not both x an integer and c a positive integer", apply: ceildiv_nested_offset },
    RuleSpec { name: "min-left", pattern: "(min ?a ?b)", rhs: "a", condition: "a <= b", apply: min_left },
    RuleSpec { name: "min-right", pattern: "(min ?a ?b)", rhs: "b", condition: "b <= a", apply: min_right },
    RuleSpec { name: "max-left", pattern: "(max ?a ?b)", rhs: "a", condition: "a >= b", apply: max_left },
    RuleSpec { name: "max-right", pattern: "(max ?a ?b)", rhs: "b", condition: "b >= a", apply: max_right },
    RuleSpec { name: "broadcast-same", pattern: "(broadcast ?a ?b)", rhs: "a", condition: "a == b", apply: broadcast_same },
    RuleSpec { name: "broadcast-one-left", pattern: "(broadcast ?a ?b)", rhs: "b", condition: "a == 1", apply: broadcast_one_left },
    RuleSpec { name: "broadcast-one-right", pattern: "(broadcast ?a ?b)", rhs: "a", condition: "b == 1", apply: broadcast_one_right },
    RuleSpec { name: "broadcast-not-one-left", pattern: "(broadcast ?a ?b)", rhs: "a", condition: "a != 1; when b != 1 too, a is the better form and a == b is possible", apply: broadcast_not_one_left },
    RuleSpec { name: "broadcast-not-one-right", pattern: "(broadcast ?a ?b)", rhs: "b", condition: "b != 1; when a != 1 too, b is the better form and a == b is possible", apply: broadcast_not_one_right },
    RuleSpec { name: "broadcast-absorb", pattern: "(broadcast ?a ?b)", rhs: "a", condition: "b = max(a, c) with c <= 1, or b = min(a, c) with c >= 1 (or symmetrically)", apply: broadcast_absorb },
    RuleSpec { name: "broadcast-max", pattern: "(broadcast ?a ?b)", rhs: "max(a, b)", condition: "a >= 1 and b >= 1, and not provably incompatible", apply: broadcast_max },
    RuleSpec { name: "max-absorb", pattern: "(max ?a ?b)", rhs: "a", condition: "b = min(a, x) (or symmetrically)", apply: max_absorb },
    RuleSpec { name: "min-absorb", pattern: "(min ?a ?b)", rhs: "a", condition: "b = max(a, x) (or symmetrically)", apply: min_absorb },
    RuleSpec { name: "max-nested", pattern: "(max ?a ?b)", rhs: "b", condition: "b = max(a, x) (or symmetrically)", apply: max_nested },
    RuleSpec { name: "min-nested", pattern: "(min ?a ?b)", rhs: "b", condition: "b = min(a, x) (or symmetrically)", apply: min_nested },
    RuleSpec { name: "floordiv-clear", pattern: "(floordiv ?a ?b)", rhs: "floordiv(l*a, l*b)", condition: "l > 1 the least integer making l*a and l*b integers; b != 0", apply: floordiv_clear },
    RuleSpec { name: "ceildiv-clear", pattern: "(ceildiv ?a ?b)", rhs: "ceildiv(l*a, l*b)", condition: "l > 1 the least integer making l*a and l*b integers; b != 0", apply: ceildiv_clear },
];

/// Apply a table rule's check to one match of its pattern in `eclass` (`values`:
/// the classes of the pattern's variables, in the order `?a`, `?b`, `?c`) and,
/// when it holds, union the right-hand side with `eclass`, the rule's name as the
/// reason. True when that merged two classes.
/// A rule result may cost ([`Poly::cost`]) at most `GROWTH_FACTOR` times the
/// best form of its class plus [`MAX_GROWTH`]. The rules shrink forms or keep their
/// size, so only a cycle through a relation (`A == floordiv(A, B + 2)` feeding
/// `floordiv-nested` forever larger divisors) grows them; the limit stops it
/// deterministically.
pub const GROWTH_FACTOR: usize = 4;

/// See [`GROWTH_FACTOR`].
pub const MAX_GROWTH: usize = 64;

fn apply_match(
    egraph: &mut DimGraph,
    eclass: Id,
    values: &[Id],
    apply: RuleFn,
    rule: Symbol,
) -> bool {
    let ops: Vec<Operand> = values
        .iter()
        .map(|v| {
            let d = &egraph[*v].data;
            Operand {
                canon: d.canon.clone(),
                bounds: d.bounds.clone(),
            }
        })
        .collect();
    let rhs = {
        let cx = Ctx {
            info: &egraph.analysis.symbols,
        };
        apply(&cx, &ops)
    };
    let Some(rhs) = rhs else { return false };
    let canon = &egraph[eclass].data.canon;
    if rhs == *canon {
        return false;
    }
    if rhs.cost() > canon.cost().saturating_mul(GROWTH_FACTOR) + MAX_GROWTH {
        if egraph.analysis.refused_growth.is_none() {
            egraph.analysis.refused_growth = Some(canon.clone());
        }
        return false;
    }
    let id = add_poly(egraph, &rhs);
    // A local union (no e-node names the class removed, and the data of the class
    // kept stays) leaves every e-node canonical: sorting the kept class is all a
    // rebuild would do, and a rebuild visits every class.
    if crate::saturate::union_is_local(egraph, eclass, id) {
        let merged = egraph.union_trusted(eclass, id, rule);
        crate::saturate::sort_class(egraph, eclass);
        return merged;
    }
    egraph.analysis.dirty = true;
    egraph.union_trusted(eclass, id, rule)
}

/// The applier of a table rule, for egg's runner (`explain` replays the rules
/// with explanations on).
struct TableApplier {
    vars: Vec<Var>,
    apply: RuleFn,
}

impl Applier<DimLang, DimAnalysis> for TableApplier {
    fn apply_one(
        &self,
        egraph: &mut DimGraph,
        eclass: Id,
        subst: &Subst,
        _: Option<&PatternAst<DimLang>>,
        rule: Symbol,
    ) -> Vec<Id> {
        let values: Vec<Id> = self.vars.iter().map(|v| subst[*v]).collect();
        if apply_match(egraph, eclass, &values, self.apply, rule) {
            vec![eclass]
        } else {
            vec![]
        }
    }

    fn vars(&self) -> Vec<Var> {
        self.vars.clone()
    }
}

/// The egg rewrites of [`RULES`], compiled once per process on first use and
/// shared by every [`super::Algebra`] (and its clones). Compiling parses each rule's
/// pattern, which costs more than inferring a small model that needs no rule.
/// Saturation matches with [`matchers`]; these serve egg's runner.
pub fn compiled() -> &'static [Rewrite<DimLang, DimAnalysis>] {
    static COMPILED: std::sync::OnceLock<Vec<Rewrite<DimLang, DimAnalysis>>> =
        std::sync::OnceLock::new();
    COMPILED.get_or_init(rewrites)
}

/// The variables of the table's patterns, in the order their classes are handed
/// to a rule's check.
const VARS: [&str; 3] = ["?a", "?b", "?c"];

/// A rule's pattern parsed, and the variables it uses.
fn parse_pattern(r: &RuleSpec) -> (Pattern<DimLang>, Vec<Var>) {
    let pattern: Pattern<DimLang> = r
        .pattern
        .parse()
        .unwrap_or_else(|e| panic!("rule {}: bad pattern: {e}", r.name));
    let vars = VARS
        .iter()
        .filter(|v| r.pattern.contains(**v))
        .map(|v| v.parse().expect("variable name"))
        .collect();
    (pattern, vars)
}

/// Build the egg rewrites of [`RULES`] (a fresh copy; [`compiled`] is the shared one).
pub fn rewrites() -> Vec<Rewrite<DimLang, DimAnalysis>> {
    RULES
        .iter()
        .map(|r| {
            let (pattern, vars) = parse_pattern(r);
            Rewrite::new(
                r.name,
                pattern,
                TableApplier {
                    vars,
                    apply: r.apply,
                },
            )
            .unwrap_or_else(|e| panic!("rule {}: {e}", r.name))
        })
        .collect()
}

/// A match of a rule's pattern: the classes of its variables (`?a`, `?b`, `?c`, as
/// many as it uses).
pub type Match = SmallVec<[Id; 3]>;

/// A rule of [`RULES`] ready for matching in one e-class at a time. Patterns use
/// the variables `?a`, `?b` and `?c` only.
///
/// Matching reads the e-graph only: it needs no `rebuild` (egg's own pattern
/// machine requires a rebuilt e-graph, and a rebuild visits every class, which
/// would make building a model's dims quadratic). Between rebuilds the e-graph
/// gains only new classes of one canonical e-node each and local unions (of a class
/// no e-node names, see `saturate.rs`), whose class is sorted as a rebuild sorts
/// it, so every class's e-nodes are canonical (children are canonicalised with
/// `find` anyway) and, for a class of several, sorted.
pub struct Matcher {
    /// The rule's name (the reason recorded for the union).
    pub name: Symbol,
    /// The pattern.
    pub ast: PatternAst<DimLang>,
    vars: Vec<Var>,
    apply: RuleFn,
}

impl Matcher {
    /// Every match of the pattern rooted at the class `root`, in the order egg's
    /// pattern machine finds them for the table's patterns (operators and variables,
    /// at most one nested operator): the class's e-nodes in order, then the nested
    /// class's. A match that binds `root` itself below the root (a cycle, such as
    /// `1 = ceildiv(1, S)`) is skipped, as egg skips it when the analysis disallows
    /// cycles.
    pub fn search(&self, egraph: &DimGraph, root: Id) -> Vec<Match> {
        let root = egraph.find(root);
        let mut out = Vec::new();
        let top = Id::from(self.ast.as_ref().len() - 1);
        let mut binds: [Option<Id>; 3] = [None; 3];
        let mut todo = vec![(top, root)];
        self.step(egraph, root, &mut todo, &mut binds, &mut out);
        out
    }

    /// Match the pending (pattern node, class) pairs of `todo`, last first,
    /// backtracking over the e-nodes of each class.
    fn step(
        &self,
        egraph: &DimGraph,
        root: Id,
        todo: &mut Vec<(Id, Id)>,
        binds: &mut [Option<Id>; 3],
        out: &mut Vec<Match>,
    ) {
        let Some((p, class)) = todo.pop() else {
            out.push(
                self.vars
                    .iter()
                    .map(|v| binds[self.slot(*v)].expect("every variable is bound"))
                    .collect(),
            );
            return;
        };
        match &self.ast[p] {
            ENodeOrVar::Var(v) => {
                let i = self.slot(*v);
                match binds[i] {
                    Some(b) if egraph.find(b) != egraph.find(class) => {}
                    Some(_) => self.step(egraph, root, todo, binds, out),
                    None => {
                        binds[i] = Some(class);
                        self.step(egraph, root, todo, binds, out);
                        binds[i] = None;
                    }
                }
            }
            ENodeOrVar::ENode(pn) => {
                let depth = todo.len();
                for n in &egraph[class].nodes {
                    if !pn.matches(n) {
                        continue;
                    }
                    let kids: SmallVec<[Id; 2]> =
                        n.children().iter().map(|c| egraph.find(*c)).collect();
                    if kids.contains(&root) {
                        continue;
                    }
                    for (pc, c) in pn.children().iter().zip(&kids).rev() {
                        todo.push((*pc, *c));
                    }
                    self.step(egraph, root, todo, binds, out);
                    todo.truncate(depth);
                }
            }
        }
        todo.push((p, class));
    }

    fn slot(&self, v: Var) -> usize {
        self.vars
            .iter()
            .position(|w| *w == v)
            .expect("a variable of the pattern")
    }

    /// Apply the rule to the matches in `eclass`, in order; true when one of them
    /// merged two classes. Sets [`DimAnalysis::dirty`] whenever a check holds, for
    /// the caller to rebuild before the next search.
    pub fn apply(&self, egraph: &mut DimGraph, eclass: Id, matches: &[Match]) -> bool {
        let mut changed = false;
        for m in matches {
            changed |= apply_match(egraph, eclass, m, self.apply, self.name);
        }
        changed
    }
}

/// The rules of [`RULES`] ready for matching, built once per process on first use.
pub fn matchers() -> &'static [Matcher] {
    static MATCHERS: std::sync::OnceLock<Vec<Matcher>> = std::sync::OnceLock::new();
    MATCHERS.get_or_init(|| {
        RULES
            .iter()
            .map(|r| {
                let (pattern, vars) = parse_pattern(r);
                Matcher {
                    name: Symbol::from(r.name),
                    ast: pattern.ast,
                    vars,
                    apply: r.apply,
                }
            })
            .collect()
    })
}

/// Add the e-nodes of a canonical form and return its class (reusing the class
/// of an equal canonical form when one exists). The nodes are those of its text
/// ([`Poly::to_expr`]) as parsed, left to right, except where the text's chains are
/// long: a sum of more than [`crate::BALANCED_CHAIN_ABOVE`] terms pairs them
/// as a balanced tree, and a factor `x**e` with `e` past
/// [`super::poly::POWER_ABOVE`] is built by repeated squaring, so the classes made
/// hold `n log n` terms, not `n²/2`, and their number follows no exponent's value.
pub fn add_poly(egraph: &mut DimGraph, p: &Poly) -> Id {
    if let Some(&id) = egraph.analysis.by_canon.get(p) {
        return egraph.find(id);
    }
    if let Some(c) = p.as_const() {
        return egraph.add(DimLang::Num(c));
    }
    let mut terms: Vec<Id> = Vec::with_capacity(p.0.len());
    for (m, c) in &p.0 {
        let mut num: Option<Id> = None;
        let mut den: Option<Id> = None;
        let cn = Rat::from_bigint(c.numer());
        let cd = Rat::from_bigint(c.denom());
        if !cn.is_one() || m.0.iter().all(|(_, e)| *e < 0) {
            num = Some(egraph.add(DimLang::Num(cn)));
        }
        if !cd.is_one() {
            den = Some(egraph.add(DimLang::Num(cd)));
        }
        for (a, e) in &m.0 {
            let aid = match a {
                Atom::Sym(s) => egraph.add(DimLang::Sym(*s)),
                Atom::Op(o) => {
                    let x = add_poly(egraph, &o.a);
                    let y = add_poly(egraph, &o.b);
                    egraph.add(DimLang::op(o.kind, x, y))
                }
            };
            let slot = if *e > 0 { &mut num } else { &mut den };
            let times = e.unsigned_abs();
            if times > super::poly::POWER_ABOVE {
                let copies = vec![aid; times as usize];
                let power = pair_up(&copies, &mut |a, b| egraph.add(DimLang::Mul([a, b])));
                *slot = Some(match *slot {
                    None => power,
                    Some(acc) => egraph.add(DimLang::Mul([acc, power])),
                });
                continue;
            }
            for _ in 0..times {
                *slot = Some(match *slot {
                    None => aid,
                    Some(acc) => egraph.add(DimLang::Mul([acc, aid])),
                });
            }
        }
        let num = num.unwrap_or_else(|| egraph.add(DimLang::Num(Rat::one())));
        terms.push(match den {
            None => num,
            Some(d) => egraph.add(DimLang::Div([num, d])),
        });
    }
    if terms.len() > crate::BALANCED_CHAIN_ABOVE {
        return pair_up(&terms, &mut |a, b| egraph.add(DimLang::Add([a, b])));
    }
    let mut sum: Option<Id> = None;
    for term in terms {
        sum = Some(match sum {
            None => term,
            Some(acc) => egraph.add(DimLang::Add([acc, term])),
        });
    }
    sum.unwrap_or_else(|| egraph.add(DimLang::Num(Rat::zero())))
}
