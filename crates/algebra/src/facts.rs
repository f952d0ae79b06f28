//! Facts: `union` (an equality, solved for a pivot symbol when linear), `bind`, and
//! `assume` of equalities, disequalities, divisors and bounds, which refine the
//! symbol table and every class built on it.

use crate::analysis::{self, Contradiction, Operand, Refutation};
use crate::poly::SymbolInfo;
use crate::saturate::{rebuild, union_is_local};
use crate::{
    parse, poly, rules, Algebra, AlgebraError, Bound, DimExpr, DimLang, Expr, Fact, Interval,
    OpKind, Poly, Rat, Rel, Truth,
};
use crate::{Dim, Relation};
use egg::Symbol;

impl Algebra {
    /// Assert `a == b`. A provable contradiction is returned (and not merged).
    /// Inside a speculative scope the equality is only recorded.
    pub fn union(&mut self, a: Dim, b: Dim, reason: &str) -> Result<Dim, AlgebraError> {
        // Inside a batch, a union that propagates would propagate what the batch
        // owes too, and a contradiction found there would be blamed on this equality:
        // what is owed runs first, unless the union merges two classes of symbols and
        // constants (whose data is current) locally (nothing to propagate).
        if self.owes() && !self.leaf_union(a, b) {
            self.settle_facts();
        }
        if self.equal(a, b) == Truth::False {
            return Err(AlgebraError::contradiction(Contradiction {
                left: Operand::Dim(self.expr(a)),
                right: Operand::Dim(self.expr(b)),
                reason: self.refutation(a, b),
            }));
        }
        if self.speculative > 0 {
            // Inside a branch that may not run: the equality holds only when it
            // does, so it is recorded, not merged.
            let at = if self.site.is_empty() {
                reason
            } else {
                &self.site
            };
            let recorded = (self.expr(a), self.expr(b));
            self.relations.push(Relation {
                lhs: a,
                rhs: b,
                node: at.to_string(),
                conditional: true,
                recorded,
            });
            return Ok(a);
        }
        let before = self.egraph.analysis.contradictions.len();
        let diff = self.canon(a).sub(self.canon(b));
        self.merge_classes(a.0, b.0, reason);
        self.saturate();
        // A linear relation is solved for a pivot symbol, so that the symbol itself
        // (and every expression built on it) learns the equality: S + 1 == T + 1
        // gives S == T.
        if let Some((sym, value)) = solve_for_pivot(&diff) {
            self.egraph.analysis.eliminated.insert(sym);
            let s = rules::add_poly(&mut self.egraph, &Poly::sym(sym));
            let v = rules::add_poly(&mut self.egraph, &value);
            self.merge_classes(s, v, reason);
            self.saturate();
        }
        // Propagating the merge may reveal a contradiction (A == B with B == A + 1).
        if let Some(c) = self.egraph.analysis.contradictions.get_index(before) {
            return Err(AlgebraError::contradiction(c.clone()));
        }
        Ok(Dim(self.egraph.find(a.0)))
    }

    /// Open a batch of facts: until the matching [`Algebra::end_facts`], each
    /// [`Algebra::bind`] or [`Algebra::assume`] that only changes the symbol table
    /// (a bind, a constant bound or a divisor of a symbol) defers the rebuild and
    /// the resaturation of every class it needs, so that K such facts cost one
    /// resaturation instead of K. A fact that reads the e-graph beyond the symbol
    /// table, or a union that propagates, runs what is owed first, so every fact is
    /// checked against what the facts before it prove, and a contradiction is
    /// returned by the fact that makes it, as when each is applied alone; the
    /// e-graph after the batch is the one applying them one by one gives. (A bind
    /// or equality of a symbol no expression uses yet and a constant is a local
    /// union, which needs no rebuild in a batch or out of one.) Batches nest.
    /// Between the two calls, only facts may be applied: queries may see classes
    /// not yet resaturated (or call [`Algebra::settle_facts`] first). One caveat:
    /// the rule-application limit ([`crate::Limits`]) counts per saturation, so
    /// when a resaturation reaches it, one by one (a budget per fact) and a batch
    /// (one budget) may stop at different points; both warn.
    pub fn begin_facts(&mut self) {
        self.batch += 1;
    }

    /// Close a batch of facts ([`Algebra::begin_facts`]); the outermost one runs the
    /// owed resaturation.
    pub fn end_facts(&mut self) {
        self.batch = self.batch.saturating_sub(1);
        if self.batch == 0 {
            self.settle_facts();
        }
    }

    /// Apply `facts` in order in one batch ([`Algebra::begin_facts`]): the result of
    /// each, as [`Algebra::bind`] or [`Algebra::assume_fact`] would return it.
    pub fn apply_facts(&mut self, facts: &[FactItem<'_>]) -> Vec<Result<(), AlgebraError>> {
        self.begin_facts();
        let out = facts
            .iter()
            .map(|f| match f {
                FactItem::Bind(name, value) => self.bind(name, *value),
                FactItem::Assume(fact) => self.assume_fact(fact),
            })
            .collect();
        self.end_facts();
        out
    }

    /// Inside a batch, run the owed rebuild and resaturation before a fact on the symbol `name`
    /// when its class holds more than the symbol and constants (it was equated with
    /// an expression, whose bounds the resaturation may refine).
    fn settle_for_symbol(&mut self, name: &str) {
        if !self.owes() {
            return;
        }
        let merged = self
            .egraph
            .lookup(DimLang::Sym(Symbol::from(name)))
            .is_some_and(|id| !self.is_leaf(id));
        if merged {
            self.settle_facts();
        }
    }

    /// Whether the class of `id` holds symbols and constants only: its data is
    /// current inside a batch, as no e-node below it can be stale.
    fn is_leaf(&self, id: egg::Id) -> bool {
        self.egraph[id]
            .nodes
            .iter()
            .all(|n| matches!(n, DimLang::Sym(_) | DimLang::Num(_)))
    }

    /// Whether `a == b` merges two classes of symbols and constants with nothing to
    /// propagate ([`union_is_local`]): inside a batch, it needs nothing settled first.
    fn leaf_union(&self, a: Dim, b: Dim) -> bool {
        self.is_leaf(a.0) && self.is_leaf(b.0) && union_is_local(&self.egraph, a.0, b.0)
    }

    /// Bind a symbol to a value (`N = 4`); creates the symbol as an input if needed.
    pub fn bind(&mut self, name: &str, value: i64) -> Result<(), AlgebraError> {
        self.settle_for_symbol(name);
        let s = self.input(name);
        let v = self.constant(value);
        {
            let entry = self.egraph.analysis.symbols.get_mut(&Symbol::from(name));
            if let Some(e) = entry {
                let meet = e.bounds.intersect(&Interval::point(Rat::int(value)));
                if meet.is_empty() {
                    return Err(AlgebraError::contradiction(Contradiction {
                        left: Operand::Symbol(name.to_string()),
                        right: Operand::Dim(DimExpr::constant(value)),
                        reason: Refutation::Bounds {
                            of: Operand::Symbol(name.to_string()),
                            bounds: e.bounds.clone(),
                        },
                    }));
                }
                e.bounds = meet;
            }
        }
        self.union(s, v, "bind")?;
        self.refresh_symbol(name);
        Ok(())
    }

    /// Assume a fact given as text: `N >= 2`, `S % 8 == 0`, `A == B`, `N != 4`.
    pub fn assume(&mut self, text: &str) -> Result<(), AlgebraError> {
        let f = parse::parse_fact(text)?;
        self.assume_parsed(&f, &|| text.to_string())
    }

    /// Assume a parsed fact (an error names it as [`Fact`] prints it).
    pub fn assume_fact(&mut self, f: &Fact) -> Result<(), AlgebraError> {
        self.assume_parsed(f, &|| f.to_string())
    }

    /// Assume a parsed fact; `text` names it in errors.
    fn assume_parsed(&mut self, f: &Fact, text: &dyn Fn() -> String) -> Result<(), AlgebraError> {
        // `x % k == 0` on a symbol: a known divisor.
        if let (Rel::Eq, Expr::Call(OpKind::Mod, x, k), Expr::Num(z)) = (f.rel, &f.lhs, &f.rhs) {
            if let (Expr::Sym(name), Expr::Num(k)) = (x.as_ref(), k.as_ref()) {
                if z.is_zero() && k.is_integer() && !k.is_zero() {
                    self.settle_for_symbol(name);
                    self.input(name);
                    let sym = Symbol::from(name.as_str());
                    if let Some(e) = self.egraph.analysis.symbols.get_mut(&sym) {
                        e.divisor = e.divisor.lcm(k);
                    }
                    self.refresh_symbol(name);
                    return Ok(());
                }
            }
        }
        // A bound between a symbol and a constant only changes the symbol table (see
        // `begin_facts`), and an equality of symbols and constants settles what it
        // needs itself (`union`); any other fact sees the e-graph the facts before it
        // give.
        match constant_bound_symbol(f) {
            Some(name) => self.settle_for_symbol(name),
            None if leaf_equality(f) => {}
            None => self.settle_facts(),
        }
        let a = self.checked_from_expr(&f.lhs)?;
        let b = self.checked_from_expr(&f.rhs)?;
        match f.rel {
            Rel::Eq => self.union(a, b, "assume").map(|_| ()),
            Rel::Ne => {
                if self.equal(a, b) == Truth::True {
                    return Err(AlgebraError::contradiction(Contradiction {
                        left: Operand::Dim(self.expr(a)),
                        right: Operand::Dim(self.expr(b)),
                        reason: Refutation::ProvenEqual,
                    }));
                }
                self.disequalities.push((a, b));
                self.index_disequality(a, b);
                Ok(())
            }
            Rel::Ge | Rel::Gt | Rel::Le | Rel::Lt => {
                // Normalise to `e >= 0` (or `> 0`) with e = a - b or b - a.
                let (hi, lo) = if matches!(f.rel, Rel::Ge | Rel::Gt) {
                    (a, b)
                } else {
                    (b, a)
                };
                let strict = matches!(f.rel, Rel::Gt | Rel::Lt);
                // A bound on a single symbol goes into the symbol table, where every
                // expression's bounds can use it.
                let (hs, ls) = (
                    self.as_symbol(hi).map(str::to_string),
                    self.as_symbol(lo).map(str::to_string),
                );
                let (hc, lc) = (self.as_const(hi), self.as_const(lo));
                let constant = hc.is_some() && lc.is_some();
                // Symbols are integers: `s > c` is `s >= floor(c) + 1` and `s < c` is
                // `s <= ceil(c) - 1` (for a rational `c` too); `s >= c` and `s <= c`
                // round inward below.
                let target = match (hs, lc, ls, hc) {
                    (Some(s), Some(c), _, _) => Some((
                        s,
                        Interval::at_least(if strict {
                            c.floor().add(&Rat::one())
                        } else {
                            c
                        }),
                    )),
                    (_, _, Some(s), Some(c)) => Some((
                        s,
                        Interval::new(
                            Bound::NegInf,
                            Bound::Finite(if strict { c.ceil().sub(&Rat::one()) } else { c }),
                        ),
                    )),
                    _ => None,
                };
                if let Some((name, iv)) = target {
                    let sym = Symbol::from(name.as_str());
                    if let Some(entry) = self.egraph.analysis.symbols.get_mut(&sym) {
                        let meet = entry.bounds.intersect(&iv).to_integers();
                        if meet.is_empty() {
                            return Err(AlgebraError::contradiction(Contradiction {
                                left: Operand::Fact(text()),
                                right: Operand::Symbol(name.clone()),
                                reason: Refutation::Bounds {
                                    of: Operand::Symbol(name.clone()),
                                    bounds: entry.bounds.clone(),
                                },
                            }));
                        }
                        entry.bounds = meet;
                    }
                    self.refresh_symbol(&name);
                    return Ok(());
                }
                // `e > 0` gives `e >= 1` only when `e` is an integer (`A/2 - B/3 > 0`
                // allows `1/6`); otherwise keep the weaker, closed `e >= 0`. (A bound
                // of a symbol builds no `e`: K bounds of one symbol add no K classes
                // over it for each change of its bounds to revisit.) Inside a batch,
                // `e` is built and judged in the e-graph the facts before it give,
                // unless it is a constant, which no resaturation changes.
                if !constant {
                    self.settle_facts();
                }
                let e = self.sub(hi, lo);
                let data = &self.egraph[e.0].data;
                let integer = data
                    .canon
                    .int_divisor(&self.egraph.analysis.symbols)
                    .is_some();
                let lower = if strict && integer {
                    Rat::one()
                } else {
                    Rat::zero()
                };
                let meet = data.bounds.intersect(&Interval::at_least(lower));
                if meet.is_empty() {
                    let canon = DimExpr::from_poly(data.canon.clone());
                    return Err(AlgebraError::contradiction(Contradiction {
                        left: Operand::Fact(text()),
                        right: Operand::Dim(canon.clone()),
                        reason: Refutation::Bounds {
                            of: Operand::Dim(canon),
                            bounds: data.bounds.clone(),
                        },
                    }));
                }
                let unchanged = meet == data.bounds;
                let new = analysis::ClassData {
                    canon: data.canon.clone(),
                    bounds: meet,
                    refinements: 0,
                };
                if unchanged {
                    // Nothing to propagate (`2 >= 1`, a bound already known).
                    self.egraph[e.0].data = new;
                } else {
                    self.egraph.set_analysis_data(e.0, new);
                    rebuild(&mut self.egraph);
                }
                self.resaturate_all();
                Ok(())
            }
        }
    }

    /// Recompute a symbol's class data after its table entry changed, and let the
    /// change propagate.
    fn refresh_symbol(&mut self, name: &str) {
        self.settle_for_symbol(name);
        let sym = Symbol::from(name);
        let Some(id) = self.egraph.lookup(DimLang::Sym(sym)) else {
            return;
        };
        let bounds = self.egraph.analysis.symbols.bounds(sym);
        let data = &self.egraph[id].data;
        let meet = data.bounds.intersect(&bounds);
        let new = analysis::ClassData {
            canon: data.canon.clone(),
            bounds: if meet.is_empty() { bounds } else { meet },
            refinements: 0,
        };
        self.egraph.set_analysis_data(id, new);
        // The classes above the symbol's are to be recomputed; a class with no
        // parents has none (a symbol no expression uses yet).
        let propagate = self.egraph[id].parents().len() > 0;
        if self.batch > 0 {
            // Inside a batch, the rebuild (which visits every class) is owed too.
            self.owed_rebuild |= propagate;
            self.owed_saturation = true;
            return;
        }
        if propagate {
            rebuild(&mut self.egraph);
        }
        self.resaturate_all();
    }
}

/// A fact of a batch ([`Algebra::apply_facts`]).
#[derive(Clone, Copy, Debug)]
pub enum FactItem<'a> {
    /// A bind of a symbol to a value ([`Algebra::bind`]).
    Bind(&'a str, i64),
    /// An assumed fact ([`Algebra::assume_fact`]).
    Assume(&'a Fact),
}

/// Whether `f` is an equality of two symbols or constants (`N == 4`, `A == B`).
fn leaf_equality(f: &Fact) -> bool {
    let leaf = |e: &Expr| matches!(e, Expr::Sym(_) | Expr::Num(_));
    f.rel == Rel::Eq && leaf(&f.lhs) && leaf(&f.rhs)
}

/// The symbol of a fact bounding a symbol by a constant (`N >= 2`, `8 > N`).
fn constant_bound_symbol(f: &Fact) -> Option<&str> {
    if !matches!(f.rel, Rel::Ge | Rel::Gt | Rel::Le | Rel::Lt) {
        return None;
    }
    match (&f.lhs, &f.rhs) {
        (Expr::Sym(s), Expr::Num(_)) | (Expr::Num(_), Expr::Sym(s)) => Some(s),
        _ => None,
    }
}

/// For `diff == 0` with a term `c*s` where the symbol `s` occurs nowhere else,
/// the solution `s = -(diff - c*s)/c`. Picks the last such symbol in the canonical
/// order, so the choice is deterministic. `None` when `diff` has a single term or
/// no such symbol.
fn solve_for_pivot(diff: &Poly) -> Option<(Symbol, Poly)> {
    if diff.len() < 2 {
        return None;
    }
    let occurrences = |s: Symbol| {
        let mut n = 0;
        for (m, _) in &diff.0 {
            for (a, _) in &m.0 {
                match a {
                    poly::Atom::Sym(t) if *t == s => n += 1,
                    poly::Atom::Op(o) => {
                        let mut v = Vec::new();
                        o.a.symbols(&mut v);
                        o.b.symbols(&mut v);
                        n += v.iter().filter(|t| **t == s).count();
                    }
                    _ => {}
                }
            }
        }
        n
    };
    let mut pick = None;
    for (m, c) in &diff.0 {
        if let [(poly::Atom::Sym(s), 1)] = m.0.as_slice() {
            if occurrences(*s) == 1 {
                pick = Some((*s, m.clone(), c.clone()));
            }
        }
    }
    let (s, m, c) = pick?;
    let rest = Poly(diff.0.iter().filter(|(t, _)| *t != m).cloned().collect());
    let value = rest.scale(&Rat::one().div(&c)?.neg());
    Some((s, value))
}
