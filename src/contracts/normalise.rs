//! Normalising and deciding conditions in a scratch algebra holding the facts: a
//! condition that holds is dropped, one that never holds is impossible, the rest
//! are brought to a canonical form (a single-symbol condition solved to bounds).

use super::{fact, Cond, Kind, Side};
use crate::algebra::poly::{Atom, Mono};
use crate::algebra::solve::solve_single_symbol;
use crate::algebra::{Algebra, Dim, Expr, Fact, FactItem, OpKind, Poly, Rat, Rel, Truth};

pub(super) enum Normal {
    Holds,
    Never(Cond),
    Cond(Kind, Cond),
}

/// A scratch algebra holding facts, for normalising and deciding conditions. The
/// symbols of a condition keep the kind and bounds they have in `src`, the algebra
/// inference ran in, when there is one (a data-dependent dim may be 0); without
/// one, every symbol is an input.
#[derive(Clone)]
pub(super) struct Scratch<'a> {
    alg: Algebra,
    src: Option<&'a Algebra>,
}

impl<'a> Scratch<'a> {
    pub(super) fn new(facts: &[Fact], src: Option<&'a Algebra>) -> Scratch<'a> {
        let mut alg = Algebra::default();
        let items: Vec<FactItem<'_>> = facts.iter().map(FactItem::Assume).collect();
        let _ = alg.apply_facts(&items);
        Scratch { alg, src }
    }

    /// Assume each of `conds` ([`Scratch::assume`]), in one batch of facts (the
    /// scratch algebra is resaturated once, [`Algebra::begin_facts`]).
    pub(super) fn assume_all<'c>(&mut self, conds: impl IntoIterator<Item = &'c Cond>) {
        self.alg.begin_facts();
        for c in conds {
            self.assume(c);
        }
        self.alg.end_facts();
    }

    /// The symbols a condition involves.
    pub(super) fn symbols(&mut self, c: &Cond) -> Vec<String> {
        let sides: [&Side; 2] = match c {
            Cond::Eq(a, b) | Cond::Le(a, b) | Cond::Div(a, b) => [a, b],
            Cond::Or(cs) | Cond::And(cs) => {
                let mut out: Vec<String> = Vec::new();
                for c in cs {
                    for s in self.symbols(c) {
                        if !out.contains(&s) {
                            out.push(s);
                        }
                    }
                }
                return out;
            }
            Cond::False | Cond::Unknown => return Vec::new(),
        };
        let mut syms = Vec::new();
        for t in sides {
            let d = self.dim(t);
            self.alg.canon(d).symbols(&mut syms);
        }
        syms.iter().map(|s| s.as_str().to_string()).collect()
    }

    /// A side built in the scratch algebra, its symbols with their kinds in the
    /// source algebra (see [`Scratch`]).
    fn dim(&mut self, t: &Side) -> Dim {
        match t {
            Side::Term(e) => {
                let mut names = Vec::new();
                expr_symbols(e, &mut names);
                for n in names {
                    self.alg.import(&Poly::sym(egg::Symbol::from(n)), self.src);
                }
                self.alg.from_expr(e)
            }
            Side::Form(p) => self.alg.import(p, self.src),
        }
    }

    /// `mod(p, k) == 0`, after building `k` and `p` (which fixes the order of the
    /// scratch algebra's classes).
    fn mod_fact(&mut self, k: &Side, p: &Side) -> Fact {
        self.dim(k);
        self.dim(p);
        let m = Expr::Call(OpKind::Mod, Box::new(p.expr()), Box::new(k.expr()));
        fact(m, Rel::Eq, Expr::Num(Rat::zero()))
    }

    pub(super) fn assume(&mut self, c: &Cond) {
        let f = match c {
            Cond::Eq(a, b) => fact(a.expr(), Rel::Eq, b.expr()),
            Cond::Le(a, b) => fact(a.expr(), Rel::Le, b.expr()),
            Cond::Div(k, p) => {
                // Built in the e-graph the facts before it give.
                self.alg.settle_facts();
                self.mod_fact(k, p)
            }
            Cond::And(cs) => {
                for c in cs {
                    self.assume(c);
                }
                return;
            }
            Cond::Or(_) | Cond::False | Cond::Unknown => return,
        };
        let _ = self.alg.assume_fact(&f);
    }

    pub(super) fn eval(&mut self, c: &Cond) -> Truth {
        match c {
            Cond::Eq(a, b) => {
                let (x, y) = (self.dim(a), self.dim(b));
                self.alg.equal(x, y)
            }
            Cond::Le(a, b) => {
                let (x, y) = (self.dim(a), self.dim(b));
                self.alg.le(x, y)
            }
            Cond::Div(k, p) => {
                let (kd, pd) = (self.dim(k), self.dim(p));
                match self.alg.divides(kd, pd) {
                    Truth::Unknown => {
                        let m = Expr::Call(OpKind::Mod, Box::new(p.expr()), Box::new(k.expr()));
                        let m = self.alg.from_expr(&m);
                        let z = self.alg.constant(0);
                        self.alg.equal(m, z)
                    }
                    t => t,
                }
            }
            Cond::Or(cs) => cs.iter().fold(Truth::False, |acc, c| acc.or(self.eval(c))),
            Cond::And(cs) => cs.iter().fold(Truth::True, |acc, c| acc.and(self.eval(c))),
            Cond::False => Truth::False,
            Cond::Unknown => Truth::Unknown,
        }
    }

    pub(super) fn normalise(&mut self, c: &Cond) -> Normal {
        match c {
            Cond::False => Normal::Never(Cond::False),
            Cond::Unknown => Normal::Cond(Kind::Undecidable, Cond::Unknown),
            Cond::Or(cs) => {
                let mut parts: Vec<Cond> = Vec::new();
                for c in cs {
                    match self.normalise(c) {
                        Normal::Holds => return Normal::Holds,
                        Normal::Never(_) => {}
                        Normal::Cond(_, n) => {
                            if !parts.contains(&n) {
                                parts.push(n)
                            }
                        }
                    }
                }
                // Absorption: drop an alternative that implies another one.
                let mut i = 0;
                while i < parts.len() && parts.len() > 1 {
                    let implies_other = (0..parts.len()).any(|j| {
                        j != i && {
                            let mut s = Scratch::new(&[], self.src);
                            s.assume(&parts[i]);
                            s.eval(&parts[j]) == Truth::True
                        }
                    });
                    if implies_other {
                        parts.remove(i);
                    } else {
                        i += 1;
                    }
                }
                match parts.len() {
                    0 => Normal::Never(c.clone()),
                    1 => {
                        let p = parts.remove(0);
                        let k = self.kind(&p);
                        Normal::Cond(k, p)
                    }
                    _ => Normal::Cond(Kind::Either, Cond::Or(parts)),
                }
            }
            _ => {
                match self.eval(c) {
                    Truth::True => return Normal::Holds,
                    Truth::False => return Normal::Never(self.canonical(c).unwrap_or(c.clone())),
                    Truth::Unknown => {}
                }
                let n = self.canonical(c).unwrap_or_else(|| c.clone());
                let k = self.kind(&n);
                Normal::Cond(k, n)
            }
        }
    }

    pub(super) fn kind(&mut self, c: &Cond) -> Kind {
        match c {
            Cond::Eq(..) => Kind::Equal,
            Cond::Div(..) => Kind::Divides,
            Cond::Le(a, b) => {
                let mut syms = Vec::new();
                for t in [a, b] {
                    let d = self.dim(t);
                    self.alg.canon(d).symbols(&mut syms);
                }
                if syms.len() == 1 {
                    Kind::Range
                } else {
                    Kind::Inequality
                }
            }
            Cond::Or(_) => Kind::Either,
            Cond::And(cs) => cs.first().map_or(Kind::Range, |c| self.kind(c)),
            Cond::False => Kind::Impossible,
            Cond::Unknown => Kind::Undecidable,
        }
    }

    /// The canonical text of a condition.
    fn canonical(&mut self, c: &Cond) -> Option<Cond> {
        match c {
            Cond::Eq(a, b) => {
                let (x, y) = (self.dim(a), self.dim(b));
                let (px, py) = (self.alg.canon(x).clone(), self.alg.canon(y).clone());
                // `a == min(a, c, ...)` is `a <= c and ...`; `a == max(a, c, ...)` is
                // `a >= c and ...` (nested min or max flattened);
                // `min(a, c) == v` with a constant c != v is `a == v`.
                for (p, q) in [(&px, &py), (&py, &px)] {
                    if let Some(Atom::Op(o)) = p.as_atom() {
                        if matches!(o.kind, OpKind::Min | OpKind::Max) {
                            let mut args = Vec::new();
                            flat_args(p, o.kind, &mut args);
                            if args.contains(&q) {
                                let others = args.into_iter().filter(|a| *a != q);
                                let parts = others
                                    .map(|a| {
                                        let le = if o.kind == OpKind::Min {
                                            Cond::Le(form(q), form(a))
                                        } else {
                                            Cond::Le(form(a), form(q))
                                        };
                                        self.canonical(&le).unwrap_or(le)
                                    })
                                    .collect();
                                return Some(and(parts));
                            }
                        }
                        for (u, v) in [(&o.a, &o.b), (&o.b, &o.a)] {
                            if matches!(o.kind, OpKind::Min | OpKind::Max)
                                && v.as_const().is_some()
                                && q.as_const().is_some()
                                && v != q
                            {
                                return self.canonical(&Cond::Eq(form(u), form(q)));
                            }
                        }
                    }
                }
                let diff = px.sub(&py);
                let mut syms = Vec::new();
                diff.symbols(&mut syms);
                if syms.len() == 1 && !is_linear(&diff) {
                    let s = syms[0];
                    if let Some(parts) =
                        solve_single_symbol(&diff, s, true).map(|iv| bounds_of(iv, s))
                    {
                        return Some(and(parts));
                    }
                }
                let (pos, neg) = split_signs(&diff);
                Some(Cond::Eq(Side::Form(pos), Side::Form(neg)))
            }
            Cond::Le(a, b) => {
                let (x, y) = (self.dim(a), self.dim(b));
                let diff = self.alg.canon(y).sub(self.alg.canon(x));
                let mut syms = Vec::new();
                diff.symbols(&mut syms);
                if syms.len() == 1 && !is_linear(&diff) {
                    let s = syms[0];
                    if let Some(parts) =
                        solve_single_symbol(&diff, s, false).map(|iv| bounds_of(iv, s))
                    {
                        return Some(and(parts));
                    }
                }
                // diff >= 0: positive terms >= negative terms.
                let (pos, neg) = split_signs(&diff);
                Some(Cond::Le(Side::Form(neg), Side::Form(pos)))
            }
            Cond::Div(k, p) => {
                let (kd, pd) = (self.dim(k), self.dim(p));
                let (kp, pp) = (self.alg.canon(kd).clone(), self.alg.canon(pd).clone());
                // k | c*m with constants: (k / gcd(k, c)) | m.
                if let (Some(kc), [(m, c)]) = (kp.as_const(), pp.0.as_slice()) {
                    if kc.is_integer() && c.is_integer() && !kc.is_zero() {
                        let g = kc.gcd(c);
                        let k2 = kc.div(&g)?.abs();
                        let m = Poly::from_terms(vec![(m.clone(), Rat::one())]);
                        return Some(Cond::Div(Side::Form(Poly::constant(k2)), Side::Form(m)));
                    }
                }
                Some(Cond::Div(Side::Form(kp), Side::Form(pp)))
            }
            _ => Some(c.clone()),
        }
    }
}

/// The arguments of `p` as nested `kind` terms (`max(a, max(b, c))` gives `a, b, c`),
/// each once.
fn flat_args<'p>(p: &'p Poly, kind: OpKind, out: &mut Vec<&'p Poly>) {
    match p.as_atom() {
        Some(Atom::Op(o)) if o.kind == kind => {
            flat_args(&o.a, kind, out);
            flat_args(&o.b, kind, out);
        }
        _ => {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
}

/// The symbol names of an expression, in order, each once.
fn expr_symbols<'e>(e: &'e Expr, out: &mut Vec<&'e str>) {
    match e {
        Expr::Num(_) => {}
        Expr::Sym(n) => {
            if !out.contains(&n.as_str()) {
                out.push(n);
            }
        }
        Expr::Neg(a) => expr_symbols(a, out),
        Expr::Add(a, b)
        | Expr::Sub(a, b)
        | Expr::Mul(a, b)
        | Expr::Div(a, b)
        | Expr::Call(_, a, b) => {
            expr_symbols(a, out);
            expr_symbols(b, out);
        }
    }
}

fn form(p: &Poly) -> Side {
    Side::Form(p.clone())
}

fn is_linear(p: &Poly) -> bool {
    p.0.iter().all(|(m, _)| {
        m.0.iter()
            .all(|(a, e)| matches!(a, Atom::Sym(_)) && (*e == 1 || *e == 0))
            && m.0.len() <= 1
    })
}

/// Positive terms and negated negative terms of a polynomial, so `p == 0` reads
/// `pos == neg`.
fn split_signs(p: &Poly) -> (Poly, Poly) {
    let mut pos: Vec<(Mono, Rat)> = Vec::new();
    let mut neg: Vec<(Mono, Rat)> = Vec::new();
    for (m, c) in &p.0 {
        if c.is_negative() {
            neg.push((m.clone(), c.neg()));
        } else {
            pos.push((m.clone(), c.clone()));
        }
    }
    (Poly::from_terms(pos), Poly::from_terms(neg))
}

fn and(mut parts: Vec<Cond>) -> Cond {
    if parts.len() == 1 {
        parts.remove(0)
    } else {
        Cond::And(parts)
    }
}

/// The bounds a solved single-symbol condition reduces to, as `Le` conditions.
fn bounds_of((lo, hi): (i64, Option<i64>), s: egg::Symbol) -> Vec<Cond> {
    let name = Side::Form(Poly::sym(s));
    let mut out = Vec::new();
    if lo > 1 {
        out.push(Cond::Le(Side::num(lo), name.clone()));
    }
    if let Some(hi) = hi {
        out.push(Cond::Le(name, Side::num(hi)));
    }
    out
}
