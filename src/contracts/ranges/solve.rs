//! The valid values of each input symbol: an interval from the linear one-symbol
//! conditions, residue classes from the others, and the profile values.
//!
//! A one-symbol condition over `floordiv`, `ceildiv` or `mod` by constants is
//! periodic in its symbol up to a linear part: with `L` a multiple of every
//! divisor on the way down (`floordiv(floordiv(s, 2), 4)` needs 8), each
//! `floordiv` of `s = L*q + r` is linear in `q`. For each residue, the condition is
//! built at `s = L*(q - 1) + v` (`v` the residue's first value in the interval,
//! `q >= 1`, and `q` bounded above when the interval is) in a scratch algebra, which
//! decides it for every `q` or answers unknown: a residue is valid, invalid or
//! unknown, never guessed. A residue whose class holds one value of the interval
//! is decided by evaluating at it.

use super::{Relation, Request, Step, SymbolRange, MAX_PERIOD, MAX_SEARCH};
use crate::algebra::poly::{fold, Atom};
use crate::algebra::{Algebra, Dim, Expr, Fact, OpKind, Poly, Rat, Rel, Truth};
use crate::contracts::normalise::Scratch;
use crate::contracts::{Cond, Condition, Kind, Side};
use indexmap::IndexMap;

/// The name of the fresh symbol `q` in `s = L*(q - 1) + v` (not a name a model's
/// symbol can have: it is never parsed).
const Q: &str = "q\u{0}ranges";

/// A condition with its sides built in an algebra, for evaluating at values.
#[derive(Clone, Debug)]
pub(super) enum Built {
    Eq(Dim, Dim),
    Le(Dim, Dim),
    Div(Dim, Dim),
    Or(Vec<Built>),
    And(Vec<Built>),
    False,
    Unknown,
}

/// An algebra holding the sides of conditions: evaluating their canonical forms at
/// values of the symbols (every symbol an input, `>= 1`) decides them there.
#[derive(Clone, Default)]
pub(super) struct Forms {
    alg: Algebra,
}

impl Forms {
    pub(super) fn build(&mut self, c: &Cond) -> Built {
        match c {
            Cond::Eq(a, b) => Built::Eq(self.side(a), self.side(b)),
            Cond::Le(a, b) => Built::Le(self.side(a), self.side(b)),
            Cond::Div(k, p) => Built::Div(self.side(k), self.side(p)),
            Cond::Or(cs) => Built::Or(cs.iter().map(|c| self.build(c)).collect()),
            Cond::And(cs) => Built::And(cs.iter().map(|c| self.build(c)).collect()),
            Cond::False => Built::False,
            Cond::Unknown => Built::Unknown,
        }
    }

    pub(super) fn side(&mut self, s: &Side) -> Dim {
        self.alg.from_expr(&s.expr())
    }

    pub(super) fn canon(&self, d: Dim) -> &Poly {
        self.alg.canon(d)
    }

    /// The truth of `c` at the values `env` gives; unknown when a side cannot be
    /// evaluated there (a symbol without a value, a division by 0).
    pub(super) fn at(&self, c: &Built, env: &dyn Fn(&str) -> Option<Rat>) -> Truth {
        let v = |d: &Dim| self.alg.eval(*d, env);
        let known = |b: Option<bool>| match b {
            Some(true) => Truth::True,
            Some(false) => Truth::False,
            None => Truth::Unknown,
        };
        match c {
            Built::Eq(a, b) => known(v(a).zip(v(b)).map(|(x, y)| x == y)),
            Built::Le(a, b) => known(v(a).zip(v(b)).map(|(x, y)| x <= y)),
            Built::Div(k, p) => known(
                v(k).zip(v(p))
                    .filter(|(k, _)| !k.is_zero())
                    .and_then(|(k, p)| fold(OpKind::Mod, &p, &k))
                    .map(|m| m.is_zero()),
            ),
            Built::Or(cs) => cs
                .iter()
                .fold(Truth::False, |acc, c| acc.or(self.at(c, env))),
            Built::And(cs) => cs
                .iter()
                .fold(Truth::True, |acc, c| acc.and(self.at(c, env))),
            Built::False => Truth::False,
            Built::Unknown => Truth::Unknown,
        }
    }
}

/// The symbols of a condition's sides, in order, each once.
pub(super) fn cond_symbols(c: &Cond) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |e: &Expr| {
        for s in e.symbols() {
            if !out.iter().any(|x| x == s) {
                out.push(s.to_string());
            }
        }
    };
    fn walk(c: &Cond, push: &mut dyn FnMut(&Expr)) {
        match c {
            Cond::Eq(a, b) | Cond::Le(a, b) | Cond::Div(a, b) => {
                push(&a.expr());
                push(&b.expr());
            }
            Cond::Or(cs) | Cond::And(cs) => cs.iter().for_each(|c| walk(c, push)),
            Cond::False | Cond::Unknown => {}
        }
    }
    walk(c, &mut push);
    out
}

/// A linked set of symbols (equal by the contract) and its valid values.
#[derive(Clone)]
pub(super) struct Group {
    /// The symbols, the first one named in reports.
    pub(super) members: Vec<String>,
    pub(super) lo: Rat,
    pub(super) hi: Option<Rat>,
    pub(super) lo_from: Vec<String>,
    pub(super) hi_from: Vec<String>,
    /// Every one-symbol condition, built for evaluation.
    built: Vec<Built>,
    /// The periodic ones, with the symbol each is about.
    periodic: Vec<(String, Cond)>,
    /// The period, when the residues were decided.
    period: Option<Rat>,
    /// The first `L` values of the interval, `lo + i`, each decided at its value.
    head: Vec<Truth>,
    /// By `j` in `0..L`: whether the values `lo + L + j + k*L` of the interval
    /// (after the head) are valid (`None`: the class holds no value of the
    /// interval).
    classes: Vec<Option<Truth>>,
    forms: Forms,
    pub(super) conditions: Vec<Condition>,
    pub(super) min: Option<Rat>,
    pub(super) opt: Option<Rat>,
    pub(super) max: Option<Rat>,
    pub(super) max_from: Option<String>,
}

impl Group {
    /// Whether every one-symbol condition holds with every member at `v`.
    pub(super) fn holds_at(&self, v: &Rat) -> Truth {
        if v < &self.lo || self.hi.as_ref().is_some_and(|h| v > h) {
            return Truth::False;
        }
        let env = |n: &str| self.members.iter().any(|m| m == n).then(|| v.clone());
        self.built
            .iter()
            .fold(Truth::True, |acc, c| acc.and(self.forms.at(c, &env)))
    }

    /// The least valid value `>= v`: from the residues proven valid, else by
    /// trying [`MAX_SEARCH`] values upward; each answer is checked at its value.
    pub(super) fn valid_at_least(&self, v: &Rat) -> Option<Rat> {
        let v = v.clone().max(self.lo.clone());
        let mut best: Option<Rat> = None;
        let head = self.head_values().find(|w| w >= &v);
        if let Some(w) = head.filter(|w| self.holds_at(w) == Truth::True) {
            return Some(w);
        }
        if let Some(l) = &self.period {
            for (j, c) in self.classes.iter().enumerate() {
                if *c != Some(Truth::True) {
                    continue;
                }
                let first = self.lo.add(l).add(&Rat::int(j as i64));
                let from = v.clone().max(first.clone());
                let d = fold(OpKind::Mod, &first.sub(&from), l)?;
                let w = from.add(&d);
                if best.as_ref().map_or(true, |b| &w < b) {
                    best = Some(w);
                }
            }
        }
        if let Some(w) = best.filter(|w| self.holds_at(w) == Truth::True) {
            return Some(w);
        }
        (0..MAX_SEARCH)
            .map(|k| v.add(&Rat::int(k)))
            .take_while(|w| self.hi.as_ref().map_or(true, |h| w <= h))
            .find(|w| self.holds_at(w) == Truth::True)
    }

    /// The greatest valid value `<= v` (as [`Group::valid_at_least`], downward).
    pub(super) fn valid_at_most(&self, v: &Rat) -> Option<Rat> {
        let v = match &self.hi {
            Some(h) => v.clone().min(h.clone()),
            None => v.clone(),
        };
        let mut best: Option<Rat> = None;
        if let Some(l) = &self.period {
            for (j, c) in self.classes.iter().enumerate() {
                if *c != Some(Truth::True) {
                    continue;
                }
                let first = self.lo.add(l).add(&Rat::int(j as i64));
                let d = fold(OpKind::Mod, &v.sub(&first), l)?;
                let w = v.sub(&d);
                if w >= first && best.as_ref().map_or(true, |b| &w > b) {
                    best = Some(w);
                }
            }
        }
        if let Some(w) = best.filter(|w| self.holds_at(w) == Truth::True) {
            return Some(w);
        }
        let head = self.head_values().filter(|w| w <= &v).last();
        if let Some(w) = head.filter(|w| self.holds_at(w) == Truth::True) {
            return Some(w);
        }
        (0..MAX_SEARCH)
            .map(|k| v.sub(&Rat::int(k)))
            .take_while(|w| w >= &self.lo)
            .find(|w| self.holds_at(w) == Truth::True)
    }

    /// The values of the head decided valid, ascending.
    fn head_values(&self) -> impl Iterator<Item = Rat> + '_ {
        self.head
            .iter()
            .enumerate()
            .filter(|(_, t)| **t == Truth::True)
            .map(|(i, _)| self.lo.add(&Rat::int(i as i64)))
    }

    /// The residue classes as a report prints them: the least period that repeats
    /// them (a divisor of `L`), when every class has a value in the interval after
    /// the head, and the head's values that differ from their class.
    pub(super) fn step(&self) -> Option<Step> {
        let l = self.period.as_ref()?.to_i64()?;
        if l <= 1 || self.classes.iter().any(|c| c.is_none()) {
            return None;
        }
        let lo = self.lo.to_i64()?;
        // The class of residue r (mod L).
        let mut by_residue = vec![Truth::Unknown; l as usize];
        for (j, c) in self.classes.iter().enumerate() {
            let r = fold(OpKind::Mod, &Rat::int(lo + j as i64), &Rat::int(l))?.to_i64()?;
            by_residue[r as usize] = (*c)?;
        }
        let p = (1..=l)
            .filter(|p| l % p == 0)
            .find(|&p| (0..l).all(|r| by_residue[r as usize] == by_residue[(r % p) as usize]))?;
        let pick = |t: Truth| (0..p).filter(|r| by_residue[*r as usize] == t).collect();
        let mut also = Vec::new();
        let mut except = Vec::new();
        for (i, t) in self.head.iter().enumerate() {
            let v = lo + i as i64;
            let class = by_residue[(v % l) as usize];
            if *t == Truth::True && class != Truth::True {
                also.push(v);
            } else if *t != Truth::True && class == Truth::True {
                except.push(v);
            }
        }
        let step = Step {
            modulus: p,
            residues: pick(Truth::True),
            unknown: pick(Truth::Unknown),
            also,
            except,
        };
        let plain = p == 1 && step.unknown.is_empty() && step.also.is_empty();
        (!plain || !step.except.is_empty()).then_some(step)
    }

    pub(super) fn report(&self) -> SymbolRange {
        let int = |r: &Rat| r.to_i64();
        SymbolRange {
            name: self.members[0].clone(),
            linked: self.members[1..].to_vec(),
            lo: int(&self.lo).unwrap_or(i64::MAX),
            hi: self.hi.as_ref().and_then(int),
            lo_from: self.lo_from.clone(),
            hi_from: self.hi_from.clone(),
            step: self.step(),
            conditions: self.conditions.clone(),
            min: self.min.as_ref().and_then(int),
            opt: self.opt.as_ref().and_then(int),
            max: self.max.as_ref().and_then(int),
            max_from: self.max_from.clone(),
        }
    }

    /// The opt value: `--opt` when given (it must be valid and within `min..=max`),
    /// else the least valid value at or above the middle `ceil((min + max) / 2)`
    /// (`min` without a max). `Err` says why a given one is refused.
    pub(super) fn choose_opt(&mut self, request: &Request) -> Result<(), String> {
        let (Some(min), max) = (self.min.clone(), self.max.clone()) else {
            self.opt = None;
            return Ok(());
        };
        let given = request.opts.iter().find(|(n, _)| self.members.contains(n));
        if let Some((n, v)) = given {
            let v = Rat::int(*v);
            let inside = v >= min && max.as_ref().map_or(true, |m| &v <= m);
            if !inside || self.holds_at(&v) != Truth::True {
                self.opt = None;
                return Err(format!(
                    "--opt {n}={v}: not a valid value within {min}..{}",
                    max.map(|m| m.to_string()).unwrap_or_default()
                ));
            }
            self.opt = Some(v);
            return Ok(());
        }
        self.opt = match max {
            None => Some(min),
            Some(max) => {
                let mid = min.add(&max).div(&Rat::int(2)).map(|m| m.ceil());
                mid.and_then(|m| self.valid_at_least(&m))
                    .filter(|o| o <= &max)
                    .or(Some(min))
            }
        };
        Ok(())
    }
}

/// What [`symbols`] finds: the groups, the relations between them, the problems.
pub(super) struct Solved {
    pub(super) groups: Vec<Group>,
    pub(super) relations: Vec<Relation>,
    /// The relations' conditions (as in `relations`), for the box.
    pub(super) joint: Vec<Cond>,
    pub(super) problems: Vec<String>,
    /// By symbol, its group.
    pub(super) group_of: IndexMap<String, usize>,
    pub(super) symbols: Vec<SymbolRange>,
}

/// The profile values of every symbol (each member of a group at its group's).
pub(super) struct Values {
    pub(super) min: IndexMap<String, Rat>,
    pub(super) opt: IndexMap<String, Rat>,
    pub(super) max: IndexMap<String, Rat>,
}

impl Solved {
    pub(super) fn values(&self) -> Values {
        let mut v = Values {
            min: IndexMap::new(),
            opt: IndexMap::new(),
            max: IndexMap::new(),
        };
        for g in &self.groups {
            for m in &g.members {
                for (map, val) in [
                    (&mut v.min, &g.min),
                    (&mut v.opt, &g.opt),
                    (&mut v.max, &g.max),
                ] {
                    if let Some(x) = val {
                        map.insert(m.clone(), x.clone());
                    }
                }
            }
        }
        v
    }
}

/// Split the conditions by their symbols, solve each symbol's, and choose the
/// profile values.
pub(super) fn symbols(inputs: &[String], conditions: Vec<Condition>, request: &Request) -> Solved {
    let mut problems = Vec::new();
    // Linked sets: `a == b` of two symbols.
    let mut parent: Vec<usize> = (0..inputs.len()).collect();
    fn root(p: &mut [usize], i: usize) -> usize {
        let mut i = i;
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    let index = |n: &str| inputs.iter().position(|s| s == n);
    let mut links = Vec::new();
    for (k, c) in conditions.iter().enumerate() {
        if let Cond::Eq(a, b) = &c.form {
            if let (Expr::Sym(x), Expr::Sym(y)) = (&a.expr(), &b.expr()) {
                if let (Some(i), Some(j)) = (index(x), index(y)) {
                    let (ri, rj) = (root(&mut parent, i), root(&mut parent, j));
                    parent[ri.max(rj)] = ri.min(rj);
                    links.push(k);
                }
            }
        }
    }
    let mut group_of: IndexMap<String, usize> = IndexMap::new();
    let mut groups: Vec<Group> = Vec::new();
    let mut root_group: IndexMap<usize, usize> = IndexMap::new();
    for (i, name) in inputs.iter().enumerate() {
        let r = root(&mut parent, i);
        let g = *root_group.entry(r).or_insert_with(|| {
            groups.push(Group {
                members: Vec::new(),
                lo: Rat::one(),
                hi: None,
                lo_from: vec!["input".to_string()],
                hi_from: Vec::new(),
                built: Vec::new(),
                periodic: Vec::new(),
                period: Some(Rat::one()),
                head: Vec::new(),
                classes: Vec::new(),
                forms: Forms::default(),
                conditions: Vec::new(),
                min: None,
                opt: None,
                max: None,
                max_from: None,
            });
            groups.len() - 1
        });
        groups[g].members.push(name.clone());
        group_of.insert(name.clone(), g);
    }
    // User ranges first: a condition's bound that is tighter names its source.
    for r in &request.ranges {
        let g = &mut groups[group_of[&r.name]];
        if let Some(lo) = r.lo {
            tighten_lo(g, Rat::int(lo), "range");
        }
        if let Some(hi) = r.hi {
            tighten_hi(g, Rat::int(hi), "range");
        }
    }
    let mut relations = Vec::new();
    let mut joint = Vec::new();
    for (k, c) in conditions.into_iter().enumerate() {
        let syms = cond_symbols(&c.form);
        let gs: Vec<usize> = {
            let mut v: Vec<usize> = Vec::new();
            for s in &syms {
                match group_of.get(s) {
                    Some(g) if !v.contains(g) => v.push(*g),
                    Some(_) => {}
                    None => {
                        problems.push(format!(
                            "{}: names {s}, which is not an input symbol",
                            c.condition
                        ));
                    }
                }
            }
            v
        };
        if syms.iter().any(|s| !group_of.contains_key(s)) {
            continue;
        }
        if c.kind == Kind::Impossible || c.form == Cond::False {
            problems.push(format!(
                "the model is invalid for every value: {}{}",
                c.condition,
                c.note
                    .as_deref()
                    .map(|n| format!(" ({n})"))
                    .unwrap_or_default()
            ));
            continue;
        }
        match gs.len() {
            0 => {}
            1 if links.contains(&k) => groups[gs[0]].conditions.push(c),
            1 => add_one_symbol(&mut groups[gs[0]], c),
            _ => {
                joint.push(c.form.clone());
                relations.push(Relation {
                    condition: c,
                    status: "unknown",
                    gave_up: Vec::new(),
                });
            }
        }
    }
    for g in &mut groups {
        decide_residues(g);
        if g.hi.as_ref().is_some_and(|h| h < &g.lo) {
            problems.push(format!(
                "{}: no valid value (its bounds are {}..{})",
                g.members[0],
                g.lo,
                g.hi.as_ref().map(|h| h.to_string()).unwrap_or_default()
            ));
            continue;
        }
        g.min = g.valid_at_least(&g.lo.clone());
        g.max = g.hi.clone().and_then(|h| g.valid_at_most(&h));
        if g.max.is_some() {
            let from_contract = g.hi_from.iter().any(|s| s != "range" && s != "fact");
            g.max_from = Some(
                if from_contract {
                    "contract"
                } else if g.hi_from.iter().any(|s| s == "range") {
                    "range"
                } else {
                    "fact"
                }
                .to_string(),
            );
        }
        if g.min.is_none() {
            problems.push(format!(
                "{}: no valid value found in {}..{}",
                g.members[0],
                g.lo,
                g.hi.as_ref().map(|h| h.to_string()).unwrap_or_default()
            ));
        }
    }
    Solved {
        groups,
        relations,
        joint,
        problems,
        group_of,
        symbols: Vec::new(),
    }
}

fn tighten_lo(g: &mut Group, v: Rat, from: &str) {
    if v > g.lo {
        g.lo = v;
        g.lo_from = vec![from.to_string()];
    } else if v == g.lo && !g.lo_from.iter().any(|f| f == from) {
        g.lo_from.push(from.to_string());
    }
}

fn tighten_hi(g: &mut Group, v: Rat, from: &str) {
    match &g.hi {
        Some(h) if &v > h => {}
        Some(h) if &v == h => {
            if !g.hi_from.iter().any(|f| f == from) {
                g.hi_from.push(from.to_string());
            }
        }
        _ => {
            g.hi = Some(v);
            g.hi_from = vec![from.to_string()];
        }
    }
}

/// Add a one-symbol condition to its group: a linear one (or a conjunction of
/// them) bounds the interval; any other is periodic.
fn add_one_symbol(g: &mut Group, c: Condition) {
    let built = g.forms.build(&c.form);
    g.built.push(built);
    let sym = cond_symbols(&c.form).remove(0);
    let from = c.sources.join(", ");
    let parts: Vec<Cond> = match &c.form {
        Cond::And(parts) => parts.clone(),
        f => vec![f.clone()],
    };
    for p in parts {
        if !linear_bound(g, &p, &sym, &from) {
            g.periodic.push((sym.clone(), p));
        }
    }
    g.conditions.push(c);
}

/// Bound the interval by `p` when it is `a <= b` or `a == b` with `b - a` linear in
/// `sym` (`c*sym + d`); false when it is not.
fn linear_bound(g: &mut Group, p: &Cond, sym: &str, from: &str) -> bool {
    let (a, b, eq) = match p {
        Cond::Le(a, b) => (a, b, false),
        Cond::Eq(a, b) => (a, b, true),
        _ => return false,
    };
    let (da, db) = (g.forms.side(a), g.forms.side(b));
    let diff = g.forms.canon(db).sub(g.forms.canon(da));
    let Some((c, d)) = linear_in(&diff, sym) else {
        return false;
    };
    // c*s + d >= 0 (or == 0).
    let Some(root) = d.neg().div(&c) else {
        // c == 0: a constant; it holds (or never does) for every value.
        let holds = if eq { d.is_zero() } else { !d.is_negative() };
        if !holds {
            tighten_hi(g, Rat::zero(), from);
        }
        return true;
    };
    if eq {
        if root.is_integer() {
            tighten_lo(g, root.clone(), from);
            tighten_hi(g, root, from);
        } else {
            tighten_hi(g, Rat::zero(), from);
        }
    } else if c.is_positive() {
        tighten_lo(g, root.ceil(), from);
    } else {
        tighten_hi(g, root.floor(), from);
    }
    true
}

/// `p` as `c*sym + d` (constants `c`, `d`), when it is that.
pub(super) fn linear_in(p: &Poly, sym: &str) -> Option<(Rat, Rat)> {
    let mut c = Rat::zero();
    let mut d = Rat::zero();
    for (m, k) in &p.0 {
        match m.0.as_slice() {
            [] => d = d.add(k),
            [(Atom::Sym(s), 1)] if s.as_str() == sym => c = c.add(k),
            _ => return None,
        }
    }
    Some((c, d))
}

/// A multiple of the period of `e` in `sym`: the product of the constant divisors
/// of its `floordiv`, `ceildiv` and `mod` terms along each path down, combined by
/// least common multiple across paths; `None` past [`MAX_PERIOD`].
fn period(e: &Expr, alg: &mut Algebra) -> Option<Rat> {
    let limit = Rat::int(MAX_PERIOD);
    let r = match e {
        Expr::Num(_) | Expr::Sym(_) => Rat::one(),
        Expr::Neg(a) => period(a, alg)?,
        Expr::Add(a, b) | Expr::Sub(a, b) | Expr::Mul(a, b) => {
            period(a, alg)?.lcm(&period(b, alg)?)
        }
        Expr::Div(a, b) | Expr::Call(_, a, b) => {
            let inner = period(a, alg)?.lcm(&period(b, alg)?);
            let divides = matches!(
                e,
                Expr::Div(..) | Expr::Call(OpKind::FloorDiv | OpKind::CeilDiv | OpKind::Mod, ..)
            );
            let k = if divides && b.symbols().is_empty() {
                let d = alg.from_expr(b);
                alg.as_const(d)
                    .map(|k| k.numer())
                    .map(|n| Rat::from_bigint(n).abs())
            } else {
                None
            };
            match k {
                Some(k) if !k.is_zero() => inner.mul(&k),
                _ => inner,
            }
        }
    };
    (r <= limit).then_some(r)
}

fn cond_period(c: &Cond, alg: &mut Algebra) -> Option<Rat> {
    match c {
        Cond::Eq(a, b) | Cond::Le(a, b) => {
            Some(period(&a.expr(), alg)?.lcm(&period(&b.expr(), alg)?))
        }
        Cond::Div(k, p) => {
            let pk = period(&k.expr(), alg)?.lcm(&period(&p.expr(), alg)?);
            let d = alg.from_expr(&k.expr());
            let k = alg.as_const(d).filter(|k| k.is_integer() && !k.is_zero());
            let r = match k {
                Some(k) => pk.mul(&k.abs()),
                None => pk,
            };
            (r <= Rat::int(MAX_PERIOD)).then_some(r)
        }
        Cond::Or(cs) | Cond::And(cs) => cs
            .iter()
            .try_fold(Rat::one(), |acc, c| Some(acc.lcm(&cond_period(c, alg)?)))
            .filter(|r| r <= &Rat::int(MAX_PERIOD)),
        Cond::False | Cond::Unknown => Some(Rat::one()),
    }
}

/// Decide the residue classes of the group's periodic conditions.
fn decide_residues(g: &mut Group) {
    if g.periodic.is_empty() {
        g.period = Some(Rat::one());
        g.head = vec![Truth::True];
        g.classes = vec![Some(Truth::True)];
        return;
    }
    let mut scratch = Algebra::default();
    let l = g
        .periodic
        .iter()
        .try_fold(Rat::one(), |acc, (_, c)| {
            Some(acc.lcm(&cond_period(c, &mut scratch)?))
        })
        .filter(|l| l <= &Rat::int(MAX_PERIOD));
    let Some(l) = l else {
        g.period = None;
        g.classes = Vec::new();
        return;
    };
    let Some(n) = l.to_i64() else {
        g.period = None;
        return;
    };
    // The head: the first L values, each decided at its value.
    let at = |v: &Rat| {
        g.periodic.iter().fold(Truth::True, |acc, (s, c)| {
            let mut f = Forms::default();
            let b = f.build(c);
            acc.and(f.at(&b, &|n: &str| (n == s).then(|| v.clone())))
        })
    };
    let head: Vec<Truth> = (0..n)
        .map(|i| g.lo.add(&Rat::int(i)))
        .take_while(|v| g.hi.as_ref().map_or(true, |h| v <= h))
        .map(|v| at(&v))
        .collect();
    let mut classes = Vec::with_capacity(n as usize);
    for j in 0..n {
        let first = g.lo.add(&l).add(&Rat::int(j));
        if g.hi.as_ref().is_some_and(|h| &first > h) {
            classes.push(None);
            continue;
        }
        // How many values of the class lie in the interval (None: unbounded).
        let count =
            g.hi.as_ref()
                .and_then(|h| h.sub(&first).div(&l))
                .map(|c| c.floor().add(&Rat::one()));
        if count.as_ref().is_some_and(|c| c.is_one()) {
            classes.push(Some(at(&first)));
            continue;
        }
        // s = L*(q - 1) + first, q >= 1 (and q <= count).
        let q = Expr::Sym(Q.to_string());
        let value = Expr::Add(
            Box::new(Expr::Mul(
                Box::new(Expr::Num(l.clone())),
                Box::new(q.clone()),
            )),
            Box::new(Expr::Num(first.sub(&l))),
        );
        let facts: Vec<Fact> = count
            .iter()
            .map(|c| Fact {
                lhs: q.clone(),
                rel: Rel::Le,
                rhs: Expr::Num(c.clone()),
            })
            .collect();
        let mut s = Scratch::new(&facts, None);
        let t = g.periodic.iter().fold(Truth::True, |acc, (sym, c)| {
            acc.and(s.eval(&substitute(c, sym, &value)))
        });
        classes.push(Some(t));
    }
    g.period = Some(l);
    g.head = head;
    g.classes = classes;
}

/// `c` with `sym` replaced by `by`, its sides as terms.
fn substitute(c: &Cond, sym: &str, by: &Expr) -> Cond {
    c.map_sides(&|s| Side::Term(subst_expr(&s.expr(), sym, by)))
}

fn subst_expr(e: &Expr, sym: &str, by: &Expr) -> Expr {
    crate::contracts::compare::map_symbols(e, &|s| (s == sym).then(|| by.clone()))
}
