//! The canonical form of a dim expression.
//!
//! A [`Poly`] is an expanded polynomial with exact rational coefficients over
//! *atoms*. An atom is a symbol or an opaque operator term ([`OpAtom`]:
//! `floordiv`, `ceildiv`, `mod`, `min`, `max`, `broadcast`, a division by a
//! polynomial that does not divide, or a product too large to expand) whose
//! arguments are canonical polynomials themselves. Monomials carry signed
//! exponents, so dividing by a monomial (`48*A / F`) stays exact and cancels
//! (`F * (48*A/F) = 48*A`).
//!
//! Two expressions that are equal by the laws of commutative rings (commuted,
//! reassociated, distributed, with monomial division) have the same `Poly`, which
//! is why the e-graph needs no raw commutativity or associativity rules.
//!
//! The form is bounded: a product whose expansion would exceed
//! [`MAX_TERMS`] terms, or an exponent beyond [`MAX_EXPONENT`], stays an opaque
//! product atom instead of blowing up.

use super::interval::Interval;
use super::parse::Expr;
use super::rational::{Rat, MAX_CONST_BITS};
use egg::Symbol;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::cell::{Cell, RefCell};
use std::cmp::Ordering;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

/// The most terms an expanded product may have before it is kept opaque.
pub const MAX_TERMS: usize = 256;
/// The largest exponent magnitude kept in a monomial before the product is kept opaque.
pub const MAX_EXPONENT: i32 = 4096;
/// The deepest nesting of opaque atoms that is analysed (bounds, divisibility)
/// before giving the conservative answer.
pub const MAX_DEPTH: usize = 64;

/// The most operator atoms one bounds or divisibility query visits; past it the
/// rest get the conservative answer (no bounds, not provably an integer). Nested
/// opaque products repeat their arguments in every term, so the count, not the
/// depth, is what grows.
pub const MAX_ATOM_VISITS: usize = 4096;

/// At most this many (atom, sign) pairs regroup a sum in [`Poly::bounds`] (those
/// of the first atoms that several terms hold at powers of that sign): each costs a
/// pass over the terms.
pub const MAX_REGROUPINGS: usize = 4;

/// A factor repeated more than this many times prints as a power, `x**e`, rather
/// than as `e` copies (`S*S*S`, but `S**65`): the text of a form stays within a
/// constant factor of its number of distinct factors, whatever the exponents.
/// Up to 64 copies print as before (64 is the largest exponent the grammar read
/// before it read `**` up to [`MAX_EXPONENT`]), so only texts that followed an
/// exponent's value change.
pub const POWER_ABOVE: u32 = 64;

/// The most nodes ([`Poly::nodes`]) an expanded product may copy from its
/// factors; past it the product stays an opaque `*` of its factors.
pub const MAX_NODES: usize = 8192;

/// The deepest nesting of operator atoms a canonical form may have (`floordiv(
/// floordiv(S, A), B)` has depth 2); a deeper one becomes a fresh dim with a
/// warning ([`crate::AlgebraWarning::DepthLimit`]). Every walk over a form (printing,
/// hashing, comparing, evaluating, substituting) recurses along this nesting, so
/// the limit keeps each within a fixed stack depth.
pub const MAX_FORM_DEPTH: usize = 64;

/// What [`Poly::measure`] finds: nodes, depth and constant size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Measure {
    /// [`Poly::nodes`].
    pub nodes: usize,
    /// The nesting depth of operator atoms (0 without any).
    pub depth: usize,
    /// The most bits of a coefficient, at any depth ([`Rat::bits`]).
    pub bits: u64,
}

/// The operator of an opaque atom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpKind {
    /// `floordiv(a, b)`: `floor(a / b)`.
    FloorDiv,
    /// `ceildiv(a, b)`: `ceil(a / b)`.
    CeilDiv,
    /// `mod(a, b)`: `a - b*floor(a / b)` (the sign of `b`, as Python and ONNX `fmod=0`).
    Mod,
    /// `min(a, b)`.
    Min,
    /// `max(a, b)`.
    Max,
    /// `broadcast(a, b)`: numpy broadcasting of two dims: `b` if `a == 1`, `a` if
    /// `b == 1` or `a == b`, undefined otherwise.
    Broadcast,
    /// `a / b` where `b` is not a monomial and does not divide `a` as a polynomial.
    Div,
    /// `a * b` kept unexpanded because the expansion would be too large.
    Mul,
}

impl OpKind {
    /// The function name in the text grammar (`Div` and `Mul` print infix).
    pub fn name(self) -> &'static str {
        match self {
            OpKind::FloorDiv => "floordiv",
            OpKind::CeilDiv => "ceildiv",
            OpKind::Mod => "mod",
            OpKind::Min => "min",
            OpKind::Max => "max",
            OpKind::Broadcast => "broadcast",
            OpKind::Div => "/",
            OpKind::Mul => "*",
        }
    }

    fn commutative(self) -> bool {
        matches!(
            self,
            OpKind::Min | OpKind::Max | OpKind::Broadcast | OpKind::Mul
        )
    }
}

/// An opaque operator term with canonical arguments.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OpAtom {
    /// The operator.
    pub kind: OpKind,
    /// First argument.
    pub a: Poly,
    /// Second argument.
    pub b: Poly,
}

/// An indivisible factor of a monomial.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Atom {
    /// A named dim.
    Sym(Symbol),
    /// An opaque operator term.
    Op(Arc<OpAtom>),
}

impl PartialOrd for Atom {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Atom {
    /// Symbols by name (so rendering does not depend on interning order), before
    /// operator terms; operator terms by operator, then arguments.
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Atom::Sym(a), Atom::Sym(b)) => {
                if a == b {
                    Ordering::Equal
                } else {
                    a.as_str().cmp(b.as_str())
                }
            }
            (Atom::Sym(_), Atom::Op(_)) => Ordering::Less,
            (Atom::Op(_), Atom::Sym(_)) => Ordering::Greater,
            (Atom::Op(a), Atom::Op(b)) => {
                if Arc::ptr_eq(a, b) {
                    return Ordering::Equal;
                }
                a.kind
                    .cmp(&b.kind)
                    .then_with(|| a.a.cmp(&b.a))
                    .then_with(|| a.b.cmp(&b.b))
            }
        }
    }
}

/// A product of atoms with non-zero signed exponents, sorted by atom.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Mono(pub SmallVec<[(Atom, i32); 2]>);

impl Mono {
    /// The empty product, `1`.
    pub fn one() -> Mono {
        Mono(SmallVec::new())
    }

    /// A single atom.
    pub fn atom(a: Atom) -> Mono {
        let mut v = SmallVec::new();
        v.push((a, 1));
        Mono(v)
    }

    /// True for the empty product.
    pub fn is_one(&self) -> bool {
        self.0.is_empty()
    }

    /// The sum of exponents.
    pub fn degree(&self) -> i64 {
        self.0.iter().map(|(_, e)| i64::from(*e)).sum()
    }

    /// `self * o^sign` (`sign` is 1 or -1); `None` when an exponent leaves the bound.
    fn mul_pow(&self, o: &Mono, sign: i32) -> Option<Mono> {
        let mut out: SmallVec<[(Atom, i32); 2]> = SmallVec::with_capacity(self.0.len() + o.0.len());
        let (mut i, mut j) = (0, 0);
        while i < self.0.len() || j < o.0.len() {
            let ord = match (self.0.get(i), o.0.get(j)) {
                (Some(a), Some(b)) => a.0.cmp(&b.0),
                (Some(_), None) => Ordering::Less,
                _ => Ordering::Greater,
            };
            match ord {
                Ordering::Less => {
                    out.push(self.0[i].clone());
                    i += 1;
                }
                Ordering::Greater => {
                    out.push((o.0[j].0.clone(), o.0[j].1 * sign));
                    j += 1;
                }
                Ordering::Equal => {
                    let e = self.0[i].1 + o.0[j].1 * sign;
                    if e.abs() > MAX_EXPONENT {
                        return None;
                    }
                    if e != 0 {
                        out.push((self.0[i].0.clone(), e));
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        Some(Mono(out))
    }

    /// True when every exponent of `self / o` is non-negative.
    fn divisible_by(&self, o: &Mono) -> bool {
        o.0.iter()
            .all(|(a, e)| self.0.iter().find(|(b, _)| b == a).map_or(0, |(_, f)| *f) >= *e)
    }
}

impl PartialOrd for Mono {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Mono {
    /// Higher degree first; among equal degrees non-constant monomials before the
    /// constant; then by atoms, a larger exponent first.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .degree()
            .cmp(&self.degree())
            .then_with(|| other.is_one().cmp(&self.is_one()).reverse())
            .then_with(|| {
                for (x, y) in self.0.iter().zip(other.0.iter()) {
                    let c = x.0.cmp(&y.0).then_with(|| y.1.cmp(&x.1));
                    if c != Ordering::Equal {
                        return c;
                    }
                }
                self.0.len().cmp(&other.0.len())
            })
    }
}

/// A canonical polynomial: terms sorted by [`Mono`] order with non-zero coefficients.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Poly(pub Vec<(Mono, Rat)>);

impl PartialOrd for Poly {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Poly {
    fn cmp(&self, other: &Self) -> Ordering {
        for (x, y) in self.0.iter().zip(other.0.iter()) {
            let c = x.0.cmp(&y.0).then_with(|| x.1.cmp(&y.1));
            if c != Ordering::Equal {
                return c;
            }
        }
        self.0.len().cmp(&other.0.len())
    }
}

/// What the polynomial code needs to know about symbols: their bounds and a known
/// integer divisor (from facts such as `S % 8 == 0`).
pub trait SymbolInfo {
    /// The interval every value of the symbol lies in.
    fn bounds(&self, s: Symbol) -> Interval;
    /// A positive integer known to divide the symbol (1 when nothing is known).
    fn divisor(&self, s: Symbol) -> Rat;
    /// Where queries keep what they found for operator atoms across queries
    /// ([`AtomMemo`]); none by default.
    fn memo(&self) -> Option<&AtomMemo> {
        None
    }
}

impl Poly {
    /// The zero polynomial.
    pub fn zero() -> Poly {
        Poly(Vec::new())
    }

    /// A constant.
    pub fn constant(c: Rat) -> Poly {
        if c.is_zero() {
            Poly::zero()
        } else {
            Poly(vec![(Mono::one(), c)])
        }
    }

    /// A single atom.
    pub fn atom(a: Atom) -> Poly {
        Poly(vec![(Mono::atom(a), Rat::one())])
    }

    /// A symbol.
    pub fn sym(s: Symbol) -> Poly {
        Poly::atom(Atom::Sym(s))
    }

    /// The constant value, if the polynomial has no atoms.
    pub fn as_const(&self) -> Option<Rat> {
        match self.0.as_slice() {
            [] => Some(Rat::zero()),
            [(m, c)] if m.is_one() => Some(c.clone()),
            _ => None,
        }
    }

    /// The constant term (0 when there is none).
    pub fn as_const_term(&self) -> Rat {
        match self.0.last() {
            Some((m, c)) if m.is_one() => c.clone(),
            _ => Rat::zero(),
        }
    }

    /// The atom, if the polynomial is exactly one atom.
    pub fn as_atom(&self) -> Option<&Atom> {
        match self.0.as_slice() {
            [(m, c)] if c.is_one() && m.0.len() == 1 && m.0[0].1 == 1 => Some(&m.0[0].0),
            _ => None,
        }
    }

    /// The symbol, if the polynomial is exactly one symbol.
    pub fn as_sym(&self) -> Option<Symbol> {
        match self.as_atom() {
            Some(Atom::Sym(s)) => Some(*s),
            _ => None,
        }
    }

    /// True for the zero polynomial.
    pub fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    /// Number of terms.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True for the zero polynomial (no terms).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// True when the form holds a product kept unexpanded because it was too large
    /// ([`MAX_TERMS`]); past that limit the form is sound but no longer canonical.
    pub fn has_opaque_product(&self) -> bool {
        self.0.iter().any(|(m, _)| {
            m.0.iter().any(|(a, _)| match a {
                Atom::Op(o) => {
                    o.kind == OpKind::Mul || o.a.has_opaque_product() || o.b.has_opaque_product()
                }
                Atom::Sym(_) => false,
            })
        })
    }

    /// True when an operator term's argument has a non-integer coefficient
    /// (`floordiv(S/2, 1)` rather than `floordiv(S, 2)`).
    pub fn has_inner_fraction(&self) -> bool {
        self.0.iter().any(|(m, _)| {
            m.0.iter().any(|(a, _)| match a {
                Atom::Op(o) => [&o.a, &o.b]
                    .iter()
                    .any(|p| p.0.iter().any(|(_, c)| !c.is_integer()) || p.has_inner_fraction()),
                Atom::Sym(_) => false,
            })
        })
    }

    /// True when some monomial has a negative exponent (an exact division by a symbol).
    pub fn has_division(&self) -> bool {
        self.0.iter().any(|(m, _)| {
            m.0.iter()
                .any(|(a, e)| *e < 0 || matches!(a, Atom::Op(o) if o.kind == OpKind::Div))
        })
    }

    /// How many operator terms, at any depth (up to [`MAX_DEPTH`]), are outside the
    /// normal form of divisions that the rules produce (`docs/rules.md`): a
    /// `ceildiv`; a `floordiv` or `mod` whose arguments share an integer factor
    /// ([`common_content`]); or one by an integer constant `k >= 2` whose
    /// numerator's constant term lies outside `(-k, 0]`. Of two equal forms the one
    /// with fewer is preferred, so the normal form is what prints.
    pub fn unnormalised_divisions(&self) -> usize {
        self.unnormalised_at(0)
    }

    fn unnormalised_at(&self, depth: usize) -> usize {
        if depth >= MAX_DEPTH {
            return 0;
        }
        let mut n = 0;
        for (m, _) in &self.0 {
            for (a, _) in &m.0 {
                let Atom::Op(o) = a else { continue };
                let own = match o.kind {
                    OpKind::CeilDiv => true,
                    OpKind::FloorDiv | OpKind::Mod => {
                        common_content(&o.a, &o.b).is_some()
                            || o.b.as_const().is_some_and(|k| {
                                offset_divisor(&k) && offset_shift(&o.a, &k).is_some()
                            })
                    }
                    _ => false,
                };
                n += usize::from(own)
                    + o.a.unnormalised_at(depth + 1)
                    + o.b.unnormalised_at(depth + 1);
            }
        }
        n
    }

    /// True when [`Poly::has_division`] holds for the polynomial or for an argument
    /// of one of its operator terms, at any depth (up to [`MAX_DEPTH`]).
    pub fn has_division_within(&self) -> bool {
        self.has_division_at(0)
    }

    fn has_division_at(&self, depth: usize) -> bool {
        self.has_division()
            || depth < MAX_DEPTH
                && self.0.iter().any(|(m, _)| {
                    m.0.iter().any(|(a, _)| match a {
                        Atom::Op(o) => {
                            o.a.has_division_at(depth + 1) || o.b.has_division_at(depth + 1)
                        }
                        Atom::Sym(_) => false,
                    })
                })
    }

    /// A size measure for choosing between equal forms: atoms and terms, opaque
    /// operator terms weigh more.
    pub fn cost(&self) -> usize {
        self.0
            .iter()
            .map(|(m, _)| {
                1 + m
                    .0
                    .iter()
                    .map(|(a, e)| {
                        let w = match a {
                            Atom::Sym(_) => 1,
                            Atom::Op(o) => 8 + o.a.cost() + o.b.cost(),
                        };
                        w * e.unsigned_abs() as usize
                    })
                    .sum::<usize>()
            })
            .sum()
    }

    /// `self + o`.
    pub fn add(&self, o: &Poly) -> Poly {
        let mut out = Vec::with_capacity(self.0.len() + o.0.len());
        let (mut i, mut j) = (0, 0);
        while i < self.0.len() || j < o.0.len() {
            let ord = match (self.0.get(i), o.0.get(j)) {
                (Some(a), Some(b)) => a.0.cmp(&b.0),
                (Some(_), None) => Ordering::Less,
                _ => Ordering::Greater,
            };
            match ord {
                Ordering::Less => {
                    out.push(self.0[i].clone());
                    i += 1;
                }
                Ordering::Greater => {
                    out.push(o.0[j].clone());
                    j += 1;
                }
                Ordering::Equal => {
                    let c = self.0[i].1.add(&o.0[j].1);
                    if !c.is_zero() {
                        out.push((self.0[i].0.clone(), c));
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        Poly(out)
    }

    /// `-self`.
    pub fn neg(&self) -> Poly {
        Poly(self.0.iter().map(|(m, c)| (m.clone(), c.neg())).collect())
    }

    /// `self - o`.
    pub fn sub(&self, o: &Poly) -> Poly {
        self.add(&o.neg())
    }

    /// `self * c` for a constant.
    pub fn scale(&self, c: &Rat) -> Poly {
        if c.is_zero() {
            return Poly::zero();
        }
        Poly(self.0.iter().map(|(m, k)| (m.clone(), k.mul(c))).collect())
    }

    /// `self * o`, expanded; an opaque product atom when the expansion is too large.
    pub fn mul(&self, o: &Poly) -> Poly {
        if let Some(c) = o.as_const() {
            return self.scale(&c);
        }
        if let Some(c) = self.as_const() {
            return o.scale(&c);
        }
        self.try_mul(o, 1)
            .unwrap_or_else(|| Poly::op_raw(OpKind::Mul, self.clone(), o.clone()))
    }

    /// `self * o^sign` for a monomial `o` when `sign == -1`, or any `o` when `sign == 1`.
    fn try_mul(&self, o: &Poly, sign: i32) -> Option<Poly> {
        if self.0.len().saturating_mul(o.0.len()) > MAX_TERMS * 4 {
            return None;
        }
        // Each term of the product copies a term of each factor, operator
        // arguments included: refuse an expansion whose copies would exceed
        // MAX_NODES, or nested opaque products would grow exponentially
        // (`(a + b + c + d)**64`, products of many binomials).
        let (ns, no) = (self.nodes(MAX_NODES), o.nodes(MAX_NODES));
        let copies =
            o.0.len()
                .saturating_mul(ns)
                .saturating_add(self.0.len().saturating_mul(no));
        if copies > MAX_NODES {
            return None;
        }
        let mut terms: Vec<(Mono, Rat)> = Vec::with_capacity(self.0.len() * o.0.len());
        for (m1, c1) in &self.0 {
            for (m2, c2) in &o.0 {
                let c = if sign == 1 { c1.mul(c2) } else { c1.div(c2)? };
                terms.push((m1.mul_pow(m2, sign)?, c));
            }
        }
        let p = Poly::from_terms(terms);
        if p.0.len() > MAX_TERMS {
            return None;
        }
        Some(p)
    }

    /// [`Poly::nodes`] (up to `cap`), the nesting depth of operator atoms, and the
    /// most bits ([`Rat::bits`]) of a coefficient at any depth: what
    /// [`crate::Limits::form_nodes`], [`MAX_FORM_DEPTH`] and [`MAX_CONST_BITS`]
    /// bound. Past `cap` nodes the walk stops (depth and bits are then partial).
    pub fn measure(&self, cap: usize) -> Measure {
        let mut out = Measure::default();
        for (m, c) in &self.0 {
            out.bits = out.bits.max(c.bits());
            out.nodes += 1;
            for (a, e) in &m.0 {
                let times = e.unsigned_abs() as usize;
                out.nodes = out.nodes.saturating_add(times);
                if let Atom::Op(o) = a {
                    for arg in [&o.a, &o.b] {
                        if out.nodes > cap {
                            return out;
                        }
                        let inner = arg.measure(cap - out.nodes);
                        out.nodes = out.nodes.saturating_add(inner.nodes.saturating_mul(times));
                        out.depth = out.depth.max(inner.depth + 1);
                        out.bits = out.bits.max(inner.bits);
                    }
                }
            }
            if out.nodes > cap {
                return out;
            }
        }
        out
    }

    /// The number of terms, factors and operator arguments, counted through
    /// operator arguments at any depth, a factor `x**e` counting `|e|` times;
    /// counting stops past `cap`.
    pub fn nodes(&self, cap: usize) -> usize {
        let mut n = 0usize;
        for (m, _) in &self.0 {
            n += 1;
            for (a, e) in &m.0 {
                let times = e.unsigned_abs() as usize;
                n = n.saturating_add(times);
                if let Atom::Op(o) = a {
                    if n > cap {
                        return n;
                    }
                    let inner = o.a.nodes(cap - n);
                    n = n.saturating_add(inner.saturating_mul(times));
                    if n > cap {
                        return n;
                    }
                    let inner = o.b.nodes(cap - n);
                    n = n.saturating_add(inner.saturating_mul(times));
                }
            }
            if n > cap {
                return n;
            }
        }
        n
    }

    /// Build from unsorted terms, combining equal monomials and dropping zeros.
    pub fn from_terms(mut terms: Vec<(Mono, Rat)>) -> Poly {
        terms.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out: Vec<(Mono, Rat)> = Vec::with_capacity(terms.len());
        for (m, c) in terms {
            match out.last_mut() {
                Some((lm, lc)) if *lm == m => *lc = lc.add(&c),
                _ => out.push((m, c)),
            }
        }
        out.retain(|(_, c)| !c.is_zero());
        Poly(out)
    }

    /// Exact division `self / o`. Divides by a constant or a monomial (signed
    /// exponents keep it exact), cancels a common polynomial factor by long
    /// division, and otherwise returns an opaque division atom. `None` when `o` is zero.
    pub fn div(&self, o: &Poly) -> Option<Poly> {
        if o.is_zero() {
            return None;
        }
        if let Some(c) = o.as_const() {
            return Some(self.scale(&Rat::one().div(&c)?));
        }
        if self.is_zero() {
            return Some(Poly::zero());
        }
        if o.0.len() == 1 {
            let inv = Poly(vec![(o.0[0].0.clone(), o.0[0].1.clone())]);
            if let Some(q) = self.try_mul(&inv, -1) {
                return Some(q);
            }
        }
        if let Some(q) = self.long_div(o) {
            return Some(q);
        }
        // Canonical opaque division: make the divisor's leading coefficient 1.
        let lc = o.0[0].1.clone();
        let inv = Rat::one().div(&lc)?;
        Some(Poly::op_raw(OpKind::Div, self.scale(&inv), o.scale(&inv)))
    }

    /// The largest monomial that divides every term (per atom, the least exponent
    /// over all terms, counting an absent atom as exponent 0), as a polynomial with
    /// coefficient 1; `1` when there is none.
    pub fn common_monomial(&self) -> Poly {
        let Some((first, _)) = self.0.first() else {
            return Poly::constant(Rat::one());
        };
        let mut out: SmallVec<[(Atom, i32); 2]> = SmallVec::new();
        for (atom, _) in &first.0 {
            let least = self
                .0
                .iter()
                .map(|(m, _)| m.0.iter().find(|(a, _)| a == atom).map_or(0, |(_, e)| *e))
                .min()
                .unwrap_or(0);
            if least > 0 {
                out.push((atom.clone(), least));
            }
        }
        Poly(vec![(Mono(out), Rat::one())])
    }

    /// Multivariate long division; the quotient when the remainder is zero.
    pub fn long_div(&self, o: &Poly) -> Option<Poly> {
        let (lm, lc) = o.0.first()?;
        let mut rem = self.clone();
        let mut quot = Poly::zero();
        for _ in 0..MAX_TERMS {
            let Some((rm, rc)) = rem.0.first().cloned() else {
                return Some(quot);
            };
            if !rm.divisible_by(lm) {
                return None;
            }
            let m = rm.mul_pow(lm, -1)?;
            let t = Poly(vec![(m, rc.div(lc)?)]);
            rem = rem.sub(&t.try_mul(o, 1)?);
            quot = quot.add(&t);
        }
        None
    }

    /// An opaque operator term with constant folding and argument order for
    /// commutative operators; no other simplification (that is the rules' job).
    pub fn op(kind: OpKind, a: Poly, b: Poly) -> Poly {
        if let (Some(x), Some(y)) = (a.as_const(), b.as_const()) {
            if let Some(v) = fold(kind, &x, &y) {
                return Poly::constant(v);
            }
        }
        match kind {
            OpKind::Mul => return a.mul(&b),
            OpKind::Div => {
                if let Some(q) = a.div(&b) {
                    return q;
                }
            }
            _ => {}
        }
        Poly::op_raw(kind, a, b)
    }

    fn op_raw(kind: OpKind, a: Poly, b: Poly) -> Poly {
        let (a, b) = if kind.commutative() && b < a {
            (b, a)
        } else {
            (a, b)
        };
        Poly::atom(Atom::Op(Arc::new(OpAtom { kind, a, b })))
    }

    /// Evaluate at an assignment of symbols; `None` where undefined (division by
    /// zero, an incompatible `broadcast`, an unassigned symbol) or too large to
    /// evaluate ([`Poly::evaluate`]).
    pub fn eval(&self, env: &dyn Fn(Symbol) -> Option<Rat>) -> Option<Rat> {
        self.evaluate(env).ok()
    }

    /// Evaluate at an assignment of symbols, exactly, each operator atom once
    /// however often it occurs (a form built by repeated squaring shares its
    /// atoms). A value on the way of more than [`MAX_CONST_BITS`] bits stops the
    /// evaluation ([`NoValue::TooLarge`]), so its cost never follows the values.
    pub fn evaluate(&self, env: &dyn Fn(Symbol) -> Option<Rat>) -> Result<Rat, NoValue> {
        self.evaluate_with(env, &mut FxHashMap::default())
    }

    fn evaluate_with(
        &self,
        env: &dyn Fn(Symbol) -> Option<Rat>,
        memo: &mut FxHashMap<*const OpAtom, Result<Rat, NoValue>>,
    ) -> Result<Rat, NoValue> {
        let mut acc = Rat::zero();
        for (m, c) in &self.0 {
            let mut t = c.clone();
            for (a, e) in &m.0 {
                let v = match a {
                    Atom::Sym(s) => env(*s).ok_or(NoValue::Undefined)?,
                    Atom::Op(o) => {
                        let key = Arc::as_ptr(o);
                        let v = match memo.get(&key) {
                            Some(v) => v.clone(),
                            None => {
                                let v = o.a.evaluate_with(env, memo).and_then(|x| {
                                    let y = o.b.evaluate_with(env, memo)?;
                                    within(fold(o.kind, &x, &y).ok_or(NoValue::Undefined)?)
                                });
                                memo.insert(key, v.clone());
                                v
                            }
                        };
                        v?
                    }
                };
                t = within(t.mul(&pow_within(&v, *e)?))?;
            }
            acc = within(acc.add(&t))?;
        }
        Ok(acc)
    }

    /// Every symbol that occurs, in first-seen order.
    pub fn symbols(&self, out: &mut Vec<Symbol>) {
        for (m, _) in &self.0 {
            for (a, _) in &m.0 {
                match a {
                    Atom::Sym(s) => {
                        if !out.contains(s) {
                            out.push(*s)
                        }
                    }
                    Atom::Op(o) => {
                        o.a.symbols(out);
                        o.b.symbols(out);
                    }
                }
            }
        }
    }

    /// Replace symbols by polynomials (symbols without an entry stay).
    pub fn substitute(&self, f: &dyn Fn(Symbol) -> Option<Poly>) -> Poly {
        let mut acc = Poly::zero();
        for (m, c) in &self.0 {
            let mut t = Poly::constant(c.clone());
            for (a, e) in &m.0 {
                let base = match a {
                    Atom::Sym(s) => f(*s).unwrap_or_else(|| Poly::sym(*s)),
                    Atom::Op(o) => Poly::op(o.kind, o.a.substitute(f), o.b.substitute(f)),
                };
                for _ in 0..e.unsigned_abs() {
                    t = if *e > 0 {
                        t.mul(&base)
                    } else {
                        t.div(&base).unwrap_or_else(Poly::zero)
                    };
                }
            }
            acc = acc.add(&t);
        }
        acc
    }

    /// An interval holding every value, tighter than [`Poly::bounds`] when a linear
    /// term is a `floordiv` or `ceildiv` by a positive constant `k`: each such term is
    /// replaced by the line below it for the lower end and the line above it for the
    /// upper end, so that its numerator can cancel against the other terms.
    /// `floordiv(x, k)` lies in `[x/k - (k - 1)/k, x/k]` for an integer `x` and an
    /// integer `k` (`(x/k - 1, x/k]` otherwise), `ceildiv(x, k)` in
    /// `[x/k, x/k + (k - 1)/k]` (`[x/k, x/k + 1)`). So
    /// `floordiv(S, 2) - floordiv(S, 4) >= S/4 - 1/2`, which is `>= 0` for an
    /// integer-valued form and `S >= 1`. Each
    /// relaxed side has at most [`MAX_TERMS`] terms; past that the plain bounds are
    /// the answer.
    pub fn relaxed_bounds(&self, info: &dyn SymbolInfo) -> Interval {
        let plain = self.bounds(info);
        let mut lower: Vec<(Mono, Rat)> = Vec::new();
        let mut upper: Vec<(Mono, Rat)> = Vec::new();
        let mut relaxed = false;
        for (m, c) in &self.0 {
            let step = match m.0.as_slice() {
                [(Atom::Op(o), 1)] if matches!(o.kind, OpKind::FloorDiv | OpKind::CeilDiv) => {
                    o.b.as_const().filter(Rat::is_positive).map(|k| (o, k))
                }
                _ => None,
            };
            let Some((o, k)) = step else {
                lower.push((m.clone(), c.clone()));
                upper.push((m.clone(), c.clone()));
                continue;
            };
            // The line x/k and the gap to the line on the other side of the steps.
            let Some(inv) = Rat::one().div(&k) else {
                return plain;
            };
            let line = o.a.scale(&inv);
            let gap = if k.is_integer() && o.a.int_divisor(info).is_some() {
                Rat::one().sub(&inv)
            } else {
                Rat::one()
            };
            let (below, above) = match o.kind {
                OpKind::FloorDiv => (line.sub(&Poly::constant(gap)), line),
                _ => (line.clone(), line.add(&Poly::constant(gap))),
            };
            let (lo_side, hi_side) = if c.is_positive() {
                (below, above)
            } else {
                (above, below)
            };
            lower.extend(lo_side.scale(c).0);
            upper.extend(hi_side.scale(c).0);
            relaxed = true;
            if lower.len() > MAX_TERMS || upper.len() > MAX_TERMS {
                return plain;
            }
        }
        if !relaxed {
            return plain;
        }
        let lo = Poly::from_terms(lower).bounds(info);
        let hi = Poly::from_terms(upper).bounds(info);
        let out = plain.intersect(&Interval::new(lo.lo, hi.hi));
        if out.is_empty() {
            // Unreachable for a sound relaxation; keep the plain answer regardless.
            return plain;
        }
        if self.int_divisor(info).is_some() {
            out.to_integers()
        } else {
            out
        }
    }

    /// An interval holding every value, by interval arithmetic over the terms.
    pub fn bounds(&self, info: &dyn SymbolInfo) -> Interval {
        self.bounds_at(info, 0, &Walk::new(info))
    }

    /// Interval arithmetic over the terms, each distinct atom bounded once, and
    /// over the sum regrouped: for an atom that several terms hold at powers of one
    /// sign, those terms with their common factor `f` taken out, `f*q + r`.
    /// Interval arithmetic forgets that terms move together (`A - A*A - B` spans
    /// everything term by term, `A*(1 - A) - B` is `<= -1` for `A, B >= 1`); every
    /// grouping encloses every value, so their intersection does too. At most
    /// [`MAX_REGROUPINGS`] (atom, sign) pairs regroup, in order of the atoms' first
    /// appearance in the terms.
    fn bounds_at(&self, info: &dyn SymbolInfo, depth: usize, budget: &Walk) -> Interval {
        // Each distinct atom, its bounds and how many terms hold it at a positive
        // and at a negative power.
        let mut atoms = AtomTable::default();
        for (m, _) in &self.0 {
            for (a, e) in &m.0 {
                let i = match atoms.find(a) {
                    Some(i) => i,
                    None => atoms.push(a, atom_bounds(a, info, depth, budget)),
                };
                atoms.rows[i].2[usize::from(*e < 0)] += 1;
            }
        }
        let of = |a: &Atom| {
            atoms
                .find(a)
                .map_or_else(Interval::top, |i| atoms.rows[i].1.clone())
        };
        // A term's bounds, the powers in `skip` taken out (`skip` holds atoms of
        // `m`, in `m`'s order).
        let term = |m: &Mono, c: &Rat, skip: &[(&Atom, i32)]| {
            let mut t = Interval::point(c.clone());
            let mut rest = skip.iter().peekable();
            for (a, e) in &m.0 {
                let k = match rest.peek() {
                    Some((b, k)) if *b == a => {
                        rest.next();
                        *k
                    }
                    _ => 0,
                };
                if *e != k {
                    t = t.mul(&of(a).pow(*e - k));
                }
            }
            t
        };
        let terms: SmallVec<[Interval; 4]> = self.0.iter().map(|(m, c)| term(m, c, &[])).collect();
        let mut out = Interval::point(Rat::zero());
        for t in &terms {
            out = out.add(t);
        }
        let mut shared: SmallVec<[(&Atom, i32); 4]> = SmallVec::new();
        for (a, _, [positive, negative]) in &atoms.rows {
            if shared.len() >= MAX_REGROUPINGS {
                break;
            }
            if *positive >= 2 {
                shared.push((a, 1));
            }
            if *negative >= 2 {
                shared.push((a, -1));
            }
        }
        for &(a, sign) in shared.iter().take(MAX_REGROUPINGS) {
            let holds = |m: &Mono| m.0.iter().any(|(b, e)| b == a && e.signum() == sign);
            // The factor common to the terms that hold `a`: each atom at its least
            // power among them, where all hold it at powers of one sign.
            let mut group = self.0.iter().filter(|(m, _)| holds(m));
            let (first, _) = group.next().expect("at least two terms hold the atom");
            let mut common: SmallVec<[(&Atom, i32); 2]> =
                first.0.iter().map(|(b, e)| (b, *e)).collect();
            for (m, _) in group {
                // Both lists are in atom order: walk them together.
                let mut other = m.0.iter().peekable();
                common.retain(|(b, k)| {
                    while other.next_if(|(x, _)| x < *b).is_some() {}
                    match other.next_if(|(x, _)| x == *b) {
                        Some((_, e)) if e.signum() == k.signum() => {
                            *k = k.signum() * k.abs().min(e.abs());
                            true
                        }
                        _ => false,
                    }
                });
            }
            let mut factor = Interval::point(Rat::one());
            for (b, k) in &common {
                factor = factor.mul(&of(b).pow(*k));
            }
            let mut q = Interval::point(Rat::zero());
            let mut r = Interval::point(Rat::zero());
            for ((m, c), t) in self.0.iter().zip(&terms) {
                if holds(m) {
                    q = q.add(&term(m, c, &common));
                } else {
                    r = r.add(t);
                }
            }
            narrow(&mut out, &r.add(&factor.mul(&q)));
        }
        out
    }

    /// `Some(g)` when the value is provably an integer multiple of `g` (a
    /// non-negative integer; `Some(0)` for the zero polynomial), `None` when it is
    /// not provably an integer at all.
    pub fn int_divisor(&self, info: &dyn SymbolInfo) -> Option<Rat> {
        self.int_divisor_at(info, 0, &Walk::new(info))
    }

    fn int_divisor_at(&self, info: &dyn SymbolInfo, depth: usize, budget: &Walk) -> Option<Rat> {
        let mut g = Rat::zero();
        for (m, c) in &self.0 {
            let mut t = c.abs();
            for (a, e) in &m.0 {
                if *e < 0 {
                    return None;
                }
                let d = atom_divisor(a, info, depth, budget)?;
                t = t.mul(&d.pow(*e)?);
            }
            if !t.is_integer() {
                return None;
            }
            g = g.gcd(&t);
        }
        Some(g)
    }

    /// Split into the terms that are provably integer multiples of `c` (a positive
    /// integer) and the rest: `self = c*q + r`, with `q` integer-valued.
    pub fn split_multiple(&self, c: &Rat, info: &dyn SymbolInfo) -> (Poly, Poly) {
        let mut q = Vec::new();
        let mut r = Vec::new();
        for (m, k) in &self.0 {
            let term = Poly(vec![(m.clone(), k.clone())]);
            let whole = c.is_positive()
                && term
                    .int_divisor(info)
                    .is_some_and(|g| g.div(c).is_some_and(|x| x.is_integer()) && !g.is_zero());
            if whole {
                q.push((m.clone(), k.div(c).unwrap_or_else(Rat::zero)));
            } else {
                r.push((m.clone(), k.clone()));
            }
        }
        (Poly::from_terms(q), Poly::from_terms(r))
    }

    /// The text form (see `docs/grammar.md`).
    pub fn render(&self) -> String {
        let mut s = String::new();
        self.render_into(&mut s);
        s
    }

    fn render_into(&self, s: &mut String) {
        if self.0.is_empty() {
            s.push('0');
            return;
        }
        for (i, (m, c)) in self.0.iter().enumerate() {
            let neg = c.is_negative();
            if i == 0 {
                if neg {
                    s.push('-');
                }
            } else {
                s.push_str(if neg { " - " } else { " + " });
            }
            render_term(s, m, &c.abs());
        }
    }

    /// True when rendering needs parentheses as a factor of a product.
    fn needs_parens(&self) -> bool {
        self.0.len() > 1 || self.0.first().is_some_and(|(_, c)| c.is_negative())
    }
}

fn render_term(s: &mut String, m: &Mono, c: &Rat) {
    let mut factors: Vec<String> = Vec::new();
    let num = c.numer();
    let den = c.denom();
    let has_num_atoms = m.0.iter().any(|(_, e)| *e > 0);
    if num != 1.into() || !has_num_atoms {
        factors.push(num.to_string());
    }
    let mut dens: Vec<String> = Vec::new();
    if den != 1.into() {
        dens.push(den.to_string());
    }
    for (a, e) in &m.0 {
        let text = render_atom(a);
        let side = if *e > 0 { &mut factors } else { &mut dens };
        let times = e.unsigned_abs();
        if times > POWER_ABOVE {
            side.push(format!("{text}**{times}"));
        } else {
            side.extend(std::iter::repeat(text).take(times as usize));
        }
    }
    s.push_str(&factors.join("*"));
    for d in dens {
        s.push('/');
        s.push_str(&d);
    }
}

fn render_atom(a: &Atom) -> String {
    match a {
        Atom::Sym(sym) => render_symbol(sym.as_str()),
        Atom::Op(o) => match o.kind {
            OpKind::Div | OpKind::Mul => {
                let left = if o.a.needs_parens() {
                    format!("({})", o.a.render())
                } else {
                    o.a.render()
                };
                let simple_right = o.b.as_atom().is_some()
                    || o.b
                        .as_const()
                        .is_some_and(|c| c.is_integer() && c.is_positive());
                let right = if o.kind == OpKind::Div && !simple_right || o.b.needs_parens() {
                    format!("({})", o.b.render())
                } else {
                    o.b.render()
                };
                format!("({left}{}{right})", o.kind.name())
            }
            k => format!("{}({}, {})", k.name(), o.a.render(), o.b.render()),
        },
    }
}

/// One factor of a rendered term as the parser chains it: `*` or `/` (the first
/// factor's operator is ignored) and the factor's expression.
type Chain = Vec<(bool, Expr)>;

impl Poly {
    /// The expression the text form denotes: `parse_expr(&self.render())`, built
    /// directly. Building it in an algebra gives the e-nodes (and so the bounds)
    /// that parsing the text would.
    pub fn to_expr(&self) -> Expr {
        let mut acc: Option<Expr> = None;
        for (m, c) in &self.0 {
            let mut chain = term_chain(m, &c.abs());
            let first = c.is_negative() && acc.is_none();
            if first {
                // A leading `-` binds to the first factor only (`-3*S/2`).
                let f = std::mem::replace(&mut chain[0].1, Expr::Num(Rat::zero()));
                chain[0].1 = f.negated();
            }
            let term = fold_chain(chain);
            acc = Some(match acc {
                None => term,
                Some(a) if c.is_negative() => Expr::Sub(Box::new(a), Box::new(term)),
                Some(a) => Expr::Add(Box::new(a), Box::new(term)),
            });
        }
        acc.unwrap_or(Expr::Num(Rat::zero()))
    }

    /// The factor chain of a form printed without parentheses (one term with a
    /// positive coefficient, or zero).
    fn chain(&self) -> Chain {
        match self.0.as_slice() {
            [(m, c)] => term_chain(m, c),
            _ => vec![(false, self.to_expr())],
        }
    }
}

/// The factors of one rendered term (see [`render_term`]), `c` positive.
fn term_chain(m: &Mono, c: &Rat) -> Chain {
    let mut chain: Chain = Vec::new();
    let (num, den) = (c.numer(), c.denom());
    let has_num_atoms = m.0.iter().any(|(_, e)| *e > 0);
    if num != 1.into() || !has_num_atoms {
        chain.push((false, Expr::Num(Rat::from_bigint(num))));
    }
    let mut dens: Vec<Expr> = Vec::new();
    if den != 1.into() {
        dens.push(Expr::Num(Rat::from_bigint(den)));
    }
    for (a, e) in m.0.iter() {
        let f = atom_expr(a);
        let times = e.unsigned_abs();
        let factors = if times > POWER_ABOVE {
            // `f**times`, as the parser reads it: `times` copies multiplied.
            let mut p = f.clone();
            for _ in 1..times {
                p = Expr::Mul(Box::new(p), Box::new(f.clone()));
            }
            vec![p]
        } else {
            vec![f; times as usize]
        };
        if *e > 0 {
            chain.extend(factors.into_iter().map(|f| (false, f)));
        } else {
            dens.extend(factors);
        }
    }
    chain.extend(dens.into_iter().map(|d| (true, d)));
    chain
}

/// A factor chain folded left to right, as the parser associates `*` and `/`.
fn fold_chain(chain: Chain) -> Expr {
    let mut it = chain.into_iter();
    let first = it.next().map_or(Expr::Num(Rat::zero()), |(_, e)| e);
    it.fold(first, |acc, (div, e)| {
        if div {
            Expr::Div(Box::new(acc), Box::new(e))
        } else {
            Expr::Mul(Box::new(acc), Box::new(e))
        }
    })
}

/// The expression of one rendered atom (see [`render_atom`]).
fn atom_expr(a: &Atom) -> Expr {
    match a {
        Atom::Sym(sym) => Expr::Sym(sym.as_str().to_string()),
        Atom::Op(o) => match o.kind {
            OpKind::Div | OpKind::Mul => {
                // `(left op right)`: an unparenthesised side continues the chain.
                let mut chain = if o.a.needs_parens() {
                    vec![(false, o.a.to_expr())]
                } else {
                    o.a.chain()
                };
                let simple_right = o.b.as_atom().is_some()
                    || o.b
                        .as_const()
                        .is_some_and(|c| c.is_integer() && c.is_positive());
                let div = o.kind == OpKind::Div;
                if div && !simple_right || o.b.needs_parens() {
                    chain.push((div, o.b.to_expr()));
                } else {
                    let mut right = o.b.chain();
                    right[0].0 = div;
                    chain.extend(right);
                }
                fold_chain(chain)
            }
            k => Expr::Call(k, Box::new(o.a.to_expr()), Box::new(o.b.to_expr())),
        },
    }
}

/// Print a symbol name, in backquotes unless it is a plain identifier that is not a
/// function name of the grammar.
pub fn render_symbol(name: &str) -> String {
    if is_plain_identifier(name) {
        name.to_string()
    } else {
        format!("`{}`", name.replace('\\', "\\\\").replace('`', "\\`"))
    }
}

/// True for `[A-Za-z_][A-Za-z0-9_]*` names that are not function names.
pub fn is_plain_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !matches!(
            name,
            "floordiv" | "ceildiv" | "mod" | "min" | "max" | "broadcast"
        )
}

/// `Some(g)` when the coefficients of `b` and of the non-constant terms of `a` are
/// integers whose greatest common divisor `g` exceeds 1: then `a = g*x + c` and `b =
/// g*k`, and `floordiv(a, b) = floordiv(x + floor(c/g), k)` when `g` divides `c`, or
/// when `x` is an integer and `k` a positive integer (`floordiv-content`).
pub fn common_content(a: &Poly, b: &Poly) -> Option<Rat> {
    let mut g = Rat::zero();
    for (m, c) in a.0.iter().chain(b.0.iter()) {
        if a.0
            .last()
            .is_some_and(|(last, _)| last.is_one() && std::ptr::eq(m, last))
        {
            continue;
        }
        if !c.is_integer() {
            return None;
        }
        g = g.gcd(c);
    }
    (g > Rat::one()).then_some(g)
}

/// True when `k` is an integer constant `>= 2`: a divisor of `floordiv` and `mod`
/// whose numerator's constant term the rules bring into `(-k, 0]`.
pub fn offset_divisor(k: &Rat) -> bool {
    k.is_integer() && *k > Rat::one()
}

/// For a numerator `a` and a divisor `k` ([`offset_divisor`]): `Some(q)`, the
/// integer `q = ceil(c/k)` with `c` the constant term of `a`, when `q != 0`; then
/// `a - q*k` has its constant term in `(-k, 0]` and `floordiv(a, k) =
/// floordiv(a - q*k, k) + q`, `mod(a, k) = mod(a - q*k, k)`. `None` when the constant
/// term already lies in `(-k, 0]`.
pub fn offset_shift(a: &Poly, k: &Rat) -> Option<Rat> {
    let q = a.as_const_term().div(k)?.ceil();
    (!q.is_zero()).then_some(q)
}

/// Constant folding of an operator; `None` where the operator is undefined.
pub fn fold(kind: OpKind, x: &Rat, y: &Rat) -> Option<Rat> {
    Some(match kind {
        OpKind::FloorDiv => x.div(y)?.floor(),
        OpKind::CeilDiv => x.div(y)?.ceil(),
        OpKind::Mod => x.sub(&y.mul(&x.div(y)?.floor())),
        OpKind::Min => x.clone().min(y.clone()),
        OpKind::Max => x.clone().max(y.clone()),
        OpKind::Broadcast => {
            if x == y || y.is_one() {
                x.clone()
            } else if x.is_one() {
                y.clone()
            } else {
                return None;
            }
        }
        OpKind::Div => x.div(y)?,
        OpKind::Mul => x.mul(y),
    })
}

/// The distinct atoms of a sum, in order of first appearance, with their bounds
/// and how many terms hold each at a positive and at a negative power; found by a
/// linear search while there are few, by a hash index past [`AtomTable::INDEX_ABOVE`].
#[derive(Default)]
struct AtomTable<'a> {
    rows: SmallVec<[(&'a Atom, Interval, [usize; 2]); 4]>,
    index: FxHashMap<&'a Atom, usize>,
}

impl<'a> AtomTable<'a> {
    /// Past this many atoms, lookups go through the index.
    const INDEX_ABOVE: usize = 8;

    fn find(&self, a: &Atom) -> Option<usize> {
        if self.rows.len() <= Self::INDEX_ABOVE {
            self.rows.iter().position(|(b, ..)| *b == a)
        } else {
            self.index.get(a).copied()
        }
    }

    /// Add a new atom; its row.
    fn push(&mut self, a: &'a Atom, bounds: Interval) -> usize {
        self.rows.push((a, bounds, [0, 0]));
        let n = self.rows.len();
        if n == Self::INDEX_ABOVE + 1 {
            self.index = self
                .rows
                .iter()
                .enumerate()
                .map(|(i, r)| (r.0, i))
                .collect();
        } else if n > Self::INDEX_ABOVE + 1 {
            self.index.insert(a, n - 1);
        }
        n - 1
    }
}

/// The most operator atoms an [`AtomMemo`] holds; when full it starts empty again.
pub const MAX_MEMO_ATOMS: usize = 1 << 16;

/// What earlier bounds and divisibility queries against one symbol table found
/// for operator atoms, kept across queries. Nested forms share their atoms
/// (`ceildiv(ceildiv(N, A), B)` holds `ceildiv(N, A)`), and the rules query the
/// classes of one nesting level after another, so without it each query walks
/// the whole nesting below it again: time quadratic in the depth.
///
/// An entry is kept only for an analysis that met neither limit ([`MAX_DEPTH`],
/// [`MAX_ATOM_VISITS`]) anywhere below the atom; it records how many levels below
/// the atom the analysis reached, and is reused at a depth only where the walk
/// from that depth would not meet [`MAX_DEPTH`] either. Such an analysis is a
/// function of the atom and the symbol table alone, so a reused entry is what the
/// walk would compute, unless the walk's visit budget ([`MAX_ATOM_VISITS`]) would
/// have run out first: it is then tighter than the cut walk, and as sound. The
/// owner of the table empties the memo
/// ([`AtomMemo::clear`]) whenever a symbol's bounds or divisor change. Entries
/// hold a weak reference to their atom: an atom no form holds any more is freed
/// (only its reference-counted shell stays while its entry does), and no other atom
/// can take its address while the entry is in the memo, so an atom found at an
/// entry's address is the entry's atom. It sits
/// behind a lock only so that a table shared between threads stays usable; one
/// thread's queries never wait.
#[derive(Default)]
pub struct AtomMemo {
    atoms: Mutex<FxHashMap<usize, (Weak<OpAtom>, Memo)>>,
}

/// One atom's entry in an [`AtomMemo`]: each analysis with the levels it reached.
#[derive(Default)]
struct Memo {
    bounds: Option<(Interval, usize)>,
    divisor: Option<(Option<Rat>, usize)>,
}

/// Which analysis of a [`Memo`]: its bounds or its divisor.
type Slot<T> = fn(&mut Memo) -> &mut Option<(T, usize)>;

impl AtomMemo {
    /// Forget every entry (the symbol table they were computed from changed).
    pub fn clear(&mut self) {
        self.atoms
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }

    /// How many atoms it holds.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> MutexGuard<'_, FxHashMap<usize, (Weak<OpAtom>, Memo)>> {
        self.atoms.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// True when it holds no atom.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The analysis of `o` in `slot` and the levels it reached, if it may be reused
    /// at `depth`.
    fn get<T: Clone>(&self, o: &Arc<OpAtom>, depth: usize, slot: Slot<T>) -> Option<(T, usize)> {
        let mut atoms = self.lock();
        let (_, memo) = atoms.get_mut(&(Arc::as_ptr(o) as usize))?;
        slot(memo)
            .clone()
            .filter(|(_, reach)| depth + reach < MAX_DEPTH)
    }

    /// Keep `found` (an analysis of `o` that reached `below` levels) in `slot`.
    fn put<T>(&self, o: &Arc<OpAtom>, slot: Slot<T>, found: T, below: usize) {
        let mut atoms = self.lock();
        if atoms.len() >= MAX_MEMO_ATOMS {
            atoms.clear();
        }
        let (_, memo) = atoms
            .entry(Arc::as_ptr(o) as usize)
            .or_insert_with(|| (Arc::downgrade(o), Memo::default()));
        *slot(memo) = Some((found, below));
    }
}

impl Clone for AtomMemo {
    /// A copy starts empty: the copy's table may change apart from this one.
    fn clone(&self) -> AtomMemo {
        AtomMemo::default()
    }
}

impl std::fmt::Debug for AtomMemo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AtomMemo({} atoms)", self.len())
    }
}

/// One bounds or divisibility query's walk over nested operator atoms: the visits
/// left of [`MAX_ATOM_VISITS`], and what each atom already gave at each depth. An
/// atom shared by several terms, or met again in the shifted numerators of
/// [`quotient_bounds`], is analysed once: without this, nested `floordiv`s branch
/// at each level and the walk is exponential in the depth until the visits run
/// out. Atoms are keyed by address (and depth, which bounds what the walk below
/// them may do); each entry holds its atom, so no address is freed and reused for
/// another atom while the walk runs (shifted numerators are temporaries).
///
/// `reach` is the deepest level the analysis of the atom in hand has reached and
/// `cuts` how many times a limit gave the conservative answer: an atom analysed
/// without a cut below it goes into the symbol table's [`AtomMemo`], with how far
/// below it the analysis reached.
struct Walk<'a> {
    budget: Cell<usize>,
    bounds: RefCell<Seen<Interval>>,
    divisors: RefCell<Seen<Option<Rat>>>,
    memo: Option<&'a AtomMemo>,
    reach: Cell<usize>,
    cuts: Cell<usize>,
}

/// What a [`Walk`] found per (atom address, depth), with the atom it holds, the
/// levels its analysis reached below it and whether no limit cut it.
type Seen<T> = FxHashMap<(*const OpAtom, usize), (Arc<OpAtom>, T, usize, bool)>;

impl<'a> Walk<'a> {
    fn new(info: &'a dyn SymbolInfo) -> Walk<'a> {
        Walk {
            budget: Cell::new(MAX_ATOM_VISITS),
            bounds: RefCell::default(),
            divisors: RefCell::default(),
            memo: info.memo(),
            reach: Cell::new(0),
            cuts: Cell::new(0),
        }
    }

    /// Account for an analysis found at `depth` that reached `below` levels further
    /// (and was cut by a limit unless `clean`).
    fn note(&self, depth: usize, below: usize, clean: bool) {
        self.reach.set(self.reach.get().max(depth + below));
        if !clean {
            self.cuts.set(self.cuts.get() + 1);
        }
    }

    /// Run `analyse` for an operator atom at `depth`: the levels it reached below
    /// the atom and whether no limit cut it, with its answer.
    fn track<T>(&self, depth: usize, analyse: impl FnOnce() -> T) -> (T, usize, bool) {
        let reach = self.reach.replace(depth);
        let cuts = self.cuts.get();
        let out = analyse();
        let below = self.reach.get() - depth;
        self.reach.set(reach.max(self.reach.get()));
        (out, below, self.cuts.get() == cuts)
    }

    /// Record that a limit gave the conservative answer.
    fn cut(&self) {
        self.cuts.set(self.cuts.get() + 1);
    }
}

/// Why [`Poly::evaluate`] gives no value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NoValue {
    /// Undefined at these values: a division by zero, a broadcast of two dims that
    /// are neither equal nor 1, a symbol without a value.
    Undefined,
    /// A value on the way has more than [`MAX_CONST_BITS`] bits.
    TooLarge,
}

/// `r`, unless it has more than [`MAX_CONST_BITS`] bits.
fn within(r: Rat) -> Result<Rat, NoValue> {
    if r.bits() > MAX_CONST_BITS {
        Err(NoValue::TooLarge)
    } else {
        Ok(r)
    }
}

/// `v^e` by repeated squaring, each step within [`MAX_CONST_BITS`] bits.
fn pow_within(v: &Rat, e: i32) -> Result<Rat, NoValue> {
    if e == 1 {
        return Ok(v.clone());
    }
    let mut base = if e < 0 {
        Rat::one().div(v).ok_or(NoValue::Undefined)?
    } else {
        v.clone()
    };
    if base.is_zero() || base.is_one() || base == Rat::int(-1) {
        return base.pow(e.abs()).ok_or(NoValue::Undefined);
    }
    let mut k = e.unsigned_abs();
    let mut acc = Rat::one();
    while k > 0 {
        if k & 1 == 1 {
            acc = within(acc.mul(&base))?;
        }
        k >>= 1;
        if k > 0 {
            base = within(base.mul(&base))?;
        }
    }
    Ok(acc)
}

/// Take one operator-atom visit from `budget`; false when none is left.
fn visit(budget: &Walk) -> bool {
    let left = budget.budget.get();
    budget.budget.set(left.saturating_sub(1));
    left > 0
}

fn atom_bounds(a: &Atom, info: &dyn SymbolInfo, depth: usize, budget: &Walk) -> Interval {
    let analyse = || atom_bounds_uncached(a, info, depth, budget);
    match a {
        Atom::Op(o) => memoised(o, depth, budget, &budget.bounds, |e| &mut e.bounds, analyse),
        Atom::Sym(_) => analyse(),
    }
}

/// An operator atom's analysis at `depth` (`analyse`), found once per walk
/// (`seen`) and, where no limit cut it, kept in the symbol table's memo (`slot`)
/// for later queries.
fn memoised<T: Clone>(
    o: &Arc<OpAtom>,
    depth: usize,
    budget: &Walk,
    seen: &RefCell<Seen<T>>,
    slot: Slot<T>,
    analyse: impl FnOnce() -> T,
) -> T {
    let key = (Arc::as_ptr(o), depth);
    if let Some((_, found, below, clean)) = seen.borrow().get(&key) {
        budget.note(depth, *below, *clean);
        return found.clone();
    }
    if let Some((found, below)) = budget.memo.and_then(|m| m.get(o, depth, slot)) {
        budget.note(depth, below, true);
        return found;
    }
    let (found, below, clean) = budget.track(depth, analyse);
    if clean {
        if let Some(m) = budget.memo {
            m.put(o, slot, found.clone(), below);
        }
    }
    seen.borrow_mut()
        .insert(key, (Arc::clone(o), found.clone(), below, clean));
    found
}

fn atom_bounds_uncached(a: &Atom, info: &dyn SymbolInfo, depth: usize, budget: &Walk) -> Interval {
    match a {
        Atom::Sym(s) => info.bounds(*s),
        Atom::Op(_) if depth >= MAX_DEPTH || !visit(budget) => {
            budget.cut();
            Interval::top()
        }
        Atom::Op(o) => {
            let x = o.a.bounds_at(info, depth + 1, budget);
            let y = o.b.bounds_at(info, depth + 1, budget);
            match o.kind {
                OpKind::FloorDiv => {
                    quotient_bounds(o, (&x, &y), info, Interval::floordiv, depth + 1, budget)
                }
                OpKind::CeilDiv => {
                    quotient_bounds(o, (&x, &y), info, Interval::ceildiv, depth + 1, budget)
                }
                OpKind::Mod
                    if o.a.int_divisor_at(info, depth + 1, budget).is_some()
                        && o.b.int_divisor_at(info, depth + 1, budget).is_some() =>
                {
                    x.modulo_integers(&y)
                }
                OpKind::Mod => x.modulo(&y),
                OpKind::Min => x.min(&y),
                OpKind::Max => x.max(&y),
                OpKind::Broadcast => x.hull(&y),
                OpKind::Div => x.div(&y),
                OpKind::Mul => x.mul(&y),
            }
        }
    }
}

/// Bounds of `floordiv(a, b)` or `ceildiv(a, b)` (`round`) from those of `a` (`x`)
/// and `b` (`y`). Interval arithmetic forgets that `a` and `b` move together: for
/// `floordiv(A - 2, A + 1)` it gives `[-1, inf]`, although the quotient is below 1.
/// `round(a/b) = k + round((a - k*b)/b)` for every integer `k` (and `b != 0`), so
/// each such shift bounds the quotient as well, and the bounds intersect. The
/// shifts tried are 1 and, around the ratio of `a`'s and `b`'s coefficients of
/// `b`'s first non-constant monomial, the non-zero integers on either side:
/// spellings of one value (`ceildiv(-2, A + 1)` is `floordiv(A - 2, A + 1)`;
/// `ceildiv(3*S, S + 1)` is `floordiv(4*S, S + 1)`; `ceildiv(min(C, A)/2, A + 1)`
/// is `floordiv(2*A + min(A, C) + 1, 2*A + 2)`) then get bounds as tight. The
/// bounds of `a - k*b` share the walk's depth and budget.
fn quotient_bounds(
    o: &OpAtom,
    (x, y): (&Interval, &Interval),
    info: &dyn SymbolInfo,
    round: fn(&Interval, &Interval) -> Interval,
    depth: usize,
    budget: &Walk,
) -> Interval {
    let mut out = round(x, y);
    if o.b.as_const().is_some() {
        return out;
    }
    let mut shifts: SmallVec<[Rat; 3]> = smallvec::smallvec![Rat::one()];
    let lead = o.b.0.iter().find(|(m, _)| !m.0.is_empty());
    if let Some((m, cb)) = lead {
        if let Some((_, ca)) = o.a.0.iter().find(|(n, _)| n == m) {
            if let Some(k) = ca.div(cb) {
                for s in [k.floor(), k.ceil()] {
                    if !s.is_zero() && !shifts.contains(&s) {
                        shifts.push(s);
                    }
                }
            }
        }
    }
    for k in shifts {
        let bounds = o.a.sub(&o.b.scale(&k)).bounds_at(info, depth, budget);
        narrow(&mut out, &round(&bounds, y).add(&Interval::point(k)));
    }
    out
}

/// Intersect `out`, an enclosure of a value, with `by`, another. Only an empty
/// domain makes two enclosures disjoint; `out` is kept then.
fn narrow(out: &mut Interval, by: &Interval) {
    let narrowed = out.intersect(by);
    if !narrowed.is_empty() {
        *out = narrowed;
    }
}

fn atom_divisor(a: &Atom, info: &dyn SymbolInfo, depth: usize, budget: &Walk) -> Option<Rat> {
    let analyse = || atom_divisor_uncached(a, info, depth, budget);
    match a {
        Atom::Op(o) => memoised(
            o,
            depth,
            budget,
            &budget.divisors,
            |e| &mut e.divisor,
            analyse,
        ),
        Atom::Sym(_) => analyse(),
    }
}

fn atom_divisor_uncached(
    a: &Atom,
    info: &dyn SymbolInfo,
    depth: usize,
    budget: &Walk,
) -> Option<Rat> {
    match a {
        Atom::Sym(s) => Some(info.divisor(*s)),
        Atom::Op(_) if depth >= MAX_DEPTH || !visit(budget) => {
            budget.cut();
            None
        }
        Atom::Op(o) => match o.kind {
            // ⌊x⌋ and ⌈x⌉ are integers for every rational x, integral arguments or not.
            OpKind::FloorDiv | OpKind::CeilDiv => Some(Rat::one()),
            OpKind::Div => None,
            // The rest are integers when their arguments are.
            OpKind::Mul | OpKind::Min | OpKind::Max | OpKind::Broadcast | OpKind::Mod => {
                let x = o.a.int_divisor_at(info, depth + 1, budget)?;
                let y = o.b.int_divisor_at(info, depth + 1, budget)?;
                Some(match o.kind {
                    OpKind::Mul => x.mul(&y),
                    OpKind::Mod => Rat::one(),
                    _ => x.gcd(&y),
                })
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Dims;
    impl SymbolInfo for Dims {
        fn bounds(&self, _: Symbol) -> Interval {
            Interval::at_least(Rat::one())
        }
        fn divisor(&self, s: Symbol) -> Rat {
            if s.as_str() == "E" {
                Rat::int(8)
            } else {
                Rat::one()
            }
        }
    }

    fn s(n: &str) -> Poly {
        Poly::sym(Symbol::from(n))
    }
    fn k(v: i64) -> Poly {
        Poly::constant(Rat::int(v))
    }

    #[test]
    fn ring_laws_give_one_form() {
        let (a, b, c) = (s("A"), s("B"), s("C"));
        assert_eq!(a.mul(&b), b.mul(&a));
        assert_eq!(a.add(&b).add(&c), c.add(&a.add(&b)));
        assert_eq!(a.mul(&b.add(&c)), a.mul(&b).add(&a.mul(&c)));
        assert_eq!(a.sub(&a), Poly::zero());
    }

    #[test]
    fn rendering() {
        let (a, b, f) = (s("A"), s("B"), s("F"));
        assert_eq!(k(48).mul(&a).div(&f).unwrap().render(), "48*A/F");
        assert_eq!(
            k(12).mul(&a).mul(&b).div(&k(8)).unwrap().render(),
            "3*A*B/2"
        );
        assert_eq!(a.mul(&b).add(&a).sub(&k(1)).render(), "A*B + A - 1");
        assert_eq!(k(5).sub(&a).render(), "-A + 5");
        assert_eq!(a.mul(&a).render(), "A*A");
        assert_eq!(
            Poly::op(OpKind::FloorDiv, a.add(&k(1)), k(2)).render(),
            "floordiv(A + 1, 2)"
        );
        assert_eq!(
            Poly::sym(Symbol::from("past_sequence_length + 1")).render(),
            "`past_sequence_length + 1`"
        );
        assert_eq!(Poly::sym(Symbol::from("min")).render(), "`min`");
    }

    #[test]
    fn division_cancels() {
        let (a, b, s_) = (s("A"), s("B"), s("S"));
        // (B*S + S) / (B + 1) = S by long division
        let p = b.mul(&s_).add(&s_);
        assert_eq!(p.div(&b.add(&k(1))).unwrap(), s_);
        // monomial division then multiplication cancels
        assert_eq!(k(48).mul(&a).div(&b).unwrap().mul(&b), k(48).mul(&a));
        // no cancellation: opaque division atom
        let q = a.div(&b.add(&k(1))).unwrap();
        assert_eq!(q.render(), "(A/(B + 1))");
        assert!(a.div(&Poly::zero()).is_none());
    }

    #[test]
    fn constant_folding_of_operators() {
        assert_eq!(Poly::op(OpKind::FloorDiv, k(-7), k(2)), k(-4));
        assert_eq!(Poly::op(OpKind::CeilDiv, k(7), k(2)), k(4));
        assert_eq!(Poly::op(OpKind::Mod, k(-7), k(3)), k(2));
        assert_eq!(Poly::op(OpKind::Broadcast, k(1), k(5)), k(5));
        // undefined broadcast stays opaque rather than folding
        assert!(Poly::op(OpKind::Broadcast, k(3), k(5)).as_const().is_none());
        // commutative argument order
        assert_eq!(
            Poly::op(OpKind::Min, s("B"), s("A")),
            Poly::op(OpKind::Min, s("A"), s("B"))
        );
    }

    #[test]
    fn divisors_and_bounds() {
        let (a, e) = (s("A"), s("E"));
        assert_eq!(k(12).mul(&a).int_divisor(&Dims), Some(Rat::int(12)));
        assert_eq!(k(3).mul(&e).int_divisor(&Dims), Some(Rat::int(24)));
        assert_eq!(a.div(&k(2)).unwrap().int_divisor(&Dims), None);
        assert_eq!(a.sub(&k(1)).bounds(&Dims).to_string(), "[0, inf]");
        let (q, r) = k(2).mul(&a).add(&k(1)).split_multiple(&Rat::int(2), &Dims);
        assert_eq!((q.render(), r.render()), ("A".to_string(), "1".to_string()));
    }

    #[test]
    fn to_expr_is_the_parse_of_the_text() {
        use crate::parse::parse_expr;
        let (a, b, f) = (s("A"), s("B"), s("F"));
        let half = Poly::constant(Rat::frac(1, 2).unwrap());
        let opaque =
            |kind, x: Poly, y: Poly| Poly::atom(Atom::Op(Arc::new(OpAtom { kind, a: x, b: y })));
        let forms = [
            Poly::zero(),
            k(-7),
            Poly::constant(Rat::frac(-3, 2).unwrap()),
            k(48).mul(&a).div(&f).unwrap(),
            k(-12).mul(&a).mul(&b).div(&k(8)).unwrap().add(&k(5)),
            k(5).sub(&a),
            a.mul(&a).sub(&b.div(&f).unwrap()),
            k(1).div(&a).unwrap(),
            Poly::op(OpKind::FloorDiv, a.add(&k(1)), k(2)).neg(),
            a.div(&b.add(&k(1))).unwrap(),
            a.mul(&half).div(&b.add(&k(1))).unwrap().mul(&f),
            opaque(OpKind::Mul, a.mul(&half), b.mul(&f)),
            opaque(OpKind::Mul, a.add(&b), k(-2).mul(&f)),
            opaque(OpKind::Div, k(3).mul(&a), k(4)),
            opaque(OpKind::Div, a.clone(), half.clone()),
            Poly::sym(Symbol::from("min")).mul(&k(3)),
            k(1 << 62).mul(&k(1 << 62)).mul(&a),
        ];
        for p in forms {
            let text = p.render();
            assert_eq!(p.to_expr(), parse_expr(&text).unwrap(), "{text}");
        }
    }

    #[test]
    fn blowup_stays_opaque() {
        let mut p = k(1);
        for i in 0..12 {
            p = p.mul(&s(&format!("X{i}")).add(&k(1)));
        }
        assert!(p.0.len() <= MAX_TERMS);
        let mut big = s("A");
        for _ in 0..100 {
            big = big.mul(&s("A"));
        }
        assert!(big.0.len() <= MAX_TERMS);
    }

    /// [`Dims`] with an [`AtomMemo`] kept across queries.
    struct MemoDims(AtomMemo);
    impl SymbolInfo for MemoDims {
        fn bounds(&self, s: Symbol) -> Interval {
            Dims.bounds(s)
        }
        fn divisor(&self, s: Symbol) -> Rat {
            Dims.divisor(s)
        }
        fn memo(&self) -> Option<&AtomMemo> {
            Some(&self.0)
        }
    }

    /// True when every value of `inner` lies in `outer`.
    fn within_interval(inner: &Interval, outer: &Interval) -> bool {
        outer.lo <= inner.lo && inner.hi <= outer.hi
    }

    #[test]
    fn memoised_queries_agree_with_fresh_ones() {
        // Nesting levels of each kind, queried bottom-up, top-down and bottom-up
        // again against one memo: each answer is the fresh walk's where no limit
        // cut the fresh walk (under MAX_DEPTH levels), never looser past it, and
        // holds the value at sampled points.
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for kind in [OpKind::FloorDiv, OpKind::CeilDiv, OpKind::Mod, OpKind::Min] {
            let memo = MemoDims(AtomMemo::default());
            let mut p = s("N").add(&s("E"));
            let mut levels = Vec::new();
            for i in 0..(MAX_DEPTH + 16) {
                let divisor = s(&format!("K{i}")).add(&k(1));
                p = Poly::op(kind, p.add(&k(i as i64 % 3)), divisor);
                levels.push(p.clone());
            }
            let order = levels
                .iter()
                .chain(levels.iter().rev())
                .chain(levels.iter());
            for q in order {
                let (got, fresh) = (q.bounds(&memo), q.bounds(&Dims));
                assert!(
                    within_interval(&got, &fresh),
                    "{kind:?}: {got:?} vs {fresh:?}"
                );
                assert_eq!(q.int_divisor(&memo), q.int_divisor(&Dims), "{kind:?}");
                for _ in 0..4 {
                    let e = Rat::int(8 * (next() % 50 + 1) as i64);
                    let values: FxHashMap<Symbol, Rat> = std::iter::once("N".to_string())
                        .chain((0..levels.len()).map(|i| format!("K{i}")))
                        .map(|n| (Symbol::from(n), Rat::int((next() % 50 + 1) as i64)))
                        .chain([(Symbol::from("E"), e)])
                        .collect();
                    if let Ok(v) = q.evaluate(&|sym| values.get(&sym).cloned()) {
                        assert!(got.contains(&v), "{kind:?}: {v:?} outside {got:?}");
                    }
                }
            }
            for q in &levels[..MAX_DEPTH / 2] {
                assert_eq!(q.bounds(&memo), q.bounds(&Dims), "{kind:?}");
            }
            assert!(!memo.0.is_empty());
        }
    }

    #[test]
    fn a_full_memo_starts_empty_again() {
        let memo = MemoDims(AtomMemo::default());
        for i in 0..(MAX_MEMO_ATOMS + 10) {
            let q = Poly::op(OpKind::FloorDiv, s("N"), s(&format!("K{i}")));
            assert_eq!(q.bounds(&memo), q.bounds(&Dims));
            assert!(memo.0.len() <= MAX_MEMO_ATOMS);
        }
        assert!(memo.0.len() < MAX_MEMO_ATOMS);
    }
}
