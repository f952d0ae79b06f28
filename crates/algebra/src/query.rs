//! Reading a dim (its canonical form, bounds, constant value) and the queries that
//! change nothing: `equal` and `le`, decided from canonical forms and bounds.

use crate::analysis;
use crate::{
    Algebra, Contradiction, Dim, DimExpr, DimLang, Interval, Poly, Rat, Refutation, SymbolKind,
    Truth,
};
use egg::{Id, Symbol};
use std::borrow::Cow;

impl Algebra {
    /// The canonical form.
    pub fn canon(&self, d: Dim) -> &Poly {
        &self.egraph[d.0].data.canon
    }

    /// The canonical text form (see `docs/grammar.md`).
    pub fn render(&self, d: Dim) -> String {
        self.canon(d).render()
    }

    /// The value, when it is a constant.
    pub fn as_const(&self, d: Dim) -> Option<Rat> {
        self.canon(d).as_const()
    }

    /// The value, when it is an integer constant that fits in `i64`.
    pub fn as_i64(&self, d: Dim) -> Option<i64> {
        self.as_const(d).and_then(|r| r.to_i64())
    }

    /// The symbol, when the dim is exactly one symbol.
    pub fn as_symbol(&self, d: Dim) -> Option<&str> {
        self.canon(d).as_sym().map(|s| s.as_str())
    }

    /// Bounds of every value.
    pub fn bounds(&self, d: Dim) -> Interval {
        let data = &self.egraph[d.0].data;
        data.bounds
            .intersect(&data.canon.bounds(&self.egraph.analysis.symbols))
    }

    /// True when every value of `d` is `>= 0`: [`Algebra::bounds`] is nonnegative.
    /// Cheaper than `bounds(d).is_nonneg()` when the class's own bounds settle it.
    pub fn is_nonneg(&self, d: Dim) -> bool {
        let data = &self.egraph[d.0].data;
        data.bounds.is_nonneg() || data.canon.bounds(&self.egraph.analysis.symbols).is_nonneg()
    }

    /// Simplify and render: the canonical, deterministic text form.
    pub fn simplify(&mut self, d: Dim) -> String {
        self.egraph.analysis.pending_rules.push(d.0);
        self.saturate();
        self.render(d)
    }

    /// Evaluate at an assignment of symbols (by name).
    pub fn eval(&self, d: Dim, env: &dyn Fn(&str) -> Option<Rat>) -> Option<Rat> {
        self.canon(d).eval(&|s: Symbol| env(s.as_str()))
    }

    /// Contradictions found while merging classes.
    pub fn contradictions(&self) -> impl Iterator<Item = &Contradiction> {
        self.egraph.analysis.contradictions.iter()
    }

    /// Replace derived symbols by their definitions (transitively, bounded).
    pub(crate) fn expand_derived(&self, p: &Poly) -> Poly {
        let table = &self.egraph.analysis.symbols;
        let mut cur = p.clone();
        for _ in 0..8 {
            let next = cur.substitute(&|s| match table.get(&s).map(|e| &e.kind) {
                Some(SymbolKind::Derived { definition }) => Some(definition.clone()),
                _ => None,
            });
            if next == cur {
                break;
            }
            cur = next;
        }
        cur
    }

    pub(crate) fn decide_zero(&self, diff: &Poly) -> Truth {
        if diff.is_zero() {
            return Truth::True;
        }
        if diff.as_const().is_some() {
            return Truth::False;
        }
        let info = &self.egraph.analysis.symbols;
        if !diff.bounds(info).contains(&Rat::zero()) {
            return Truth::False;
        }
        if let Some(&id) = self.egraph.analysis.by_canon.get(diff) {
            if !self.egraph[id].data.bounds.contains(&Rat::zero()) {
                return Truth::False;
            }
        }
        // diff = m * q for the common monomial m: zero needs m == 0 or q == 0.
        // `A*A + A*S - A = A * (A + S - 1)` is never 0 for A, S >= 1.
        let m = diff.common_monomial();
        if m.as_const().is_none() {
            if let Some(q) = diff.div(&m) {
                let excludes_zero = |p: &Poly| !p.bounds(info).contains(&Rat::zero());
                if excludes_zero(&m) && excludes_zero(&q) {
                    return Truth::False;
                }
            }
        }
        // diff = (a provable multiple of g) + c: zero needs g | -c. `12*D - 25` never is.
        let c = diff.as_const_term();
        let rest = diff.sub(&Poly::constant(c.clone()));
        if let Some(g) = rest.int_divisor(info) {
            if !g.is_zero() && !c.div(&g).is_some_and(|q| q.is_integer()) {
                return Truth::False;
            }
        }
        Truth::Unknown
    }

    /// Why `a == b` is impossible, for messages: the canonical difference and its
    /// bounds, or the pair of forms (see [`Algebra::forms`]) whose difference is.
    pub(crate) fn refutation(&self, a: Dim, b: Dim) -> Refutation {
        let info = &self.egraph.analysis.symbols;
        let diff = self.canon(a).sub(self.canon(b));
        let difference = |diff: Poly| Refutation::Difference {
            bounds: diff.bounds(info),
            diff: DimExpr::from_poly(diff),
        };
        if self.decide_zero(&diff) == Truth::False {
            return difference(diff);
        }
        for x in self.forms(a.0) {
            for y in self.forms(b.0) {
                let d = x.sub(&y);
                if self.decide_zero(&d) == Truth::False {
                    return Refutation::OtherForms {
                        bounds: d.bounds(info),
                        left: DimExpr::from_poly(x),
                        right: DimExpr::from_poly(y),
                        diff: DimExpr::from_poly(d),
                    };
                }
            }
        }
        difference(diff)
    }

    /// A class's canonical form and the forms of (at most 8 of) its e-nodes, built
    /// from their children's canonical forms.
    pub(crate) fn forms(&self, id: Id) -> Vec<Poly> {
        let class = &self.egraph[id];
        let mut out = vec![class.data.canon.clone()];
        for n in class.nodes.iter().take(8) {
            let f = analysis::node_canon(&self.egraph, n);
            if !out.contains(&f) {
                out.push(f);
            }
        }
        out
    }

    /// Is `a == b` for every value of the symbols?
    pub fn equal(&self, a: Dim, b: Dim) -> Truth {
        if self.egraph.find(a.0) == self.egraph.find(b.0) {
            return Truth::True;
        }
        let diff = self.canon(a).sub(self.canon(b));
        match self.decide_zero(&diff) {
            Truth::Unknown => {}
            t => return t,
        }
        let expanded = self.expand_derived(&diff);
        match self.decide_zero(&expanded) {
            Truth::Unknown => {}
            t => return t,
        }
        // Each class may hold other forms than its canonical one (after `B == A + 1`
        // the class of `B` also holds `A + 1`): a difference of any two that is
        // provably non-zero refutes the equality. Without this, `A == B` would pass
        // as undecided and be merged, and the contradiction found only afterwards.
        let (forms_a, forms_b) = (self.forms(a.0), self.forms(b.0));
        for x in &forms_a {
            for y in &forms_b {
                if self.decide_zero(&x.sub(y)) == Truth::False {
                    return Truth::False;
                }
            }
        }
        let (fa, fb) = (self.egraph.find(a.0), self.egraph.find(b.0));
        let excluded = if self.diseq_unions == self.unions() {
            self.diseq_roots.contains(&ordered(fa, fb))
        } else {
            self.disequalities.iter().any(|(x, y)| {
                let (x, y) = (self.egraph.find(x.0), self.egraph.find(y.0));
                (x, y) == (fa, fb) || (x, y) == (fb, fa)
            })
        };
        if excluded {
            return Truth::False;
        }
        Truth::Unknown
    }

    /// How many unions the e-graph has made: each e-node added as a new class adds
    /// one class, each union removes one, and nothing else adds or removes either,
    /// so the count changes whenever a class's root may have.
    pub(crate) fn unions(&self) -> usize {
        self.egraph.nodes().len() - self.egraph.number_of_classes()
    }

    /// Record the disequality `a != b` in the index [`Algebra::equal`] reads
    /// (recomputed from every disequality when unions made it stale).
    pub(crate) fn index_disequality(&mut self, a: Dim, b: Dim) {
        let now = self.unions();
        if now == self.diseq_unions {
            let pair = ordered(self.egraph.find(a.0), self.egraph.find(b.0));
            self.diseq_roots.insert(pair);
            return;
        }
        let egraph = &self.egraph;
        self.diseq_roots = self
            .disequalities
            .iter()
            .map(|(x, y)| ordered(egraph.find(x.0), egraph.find(y.0)))
            .collect();
        self.diseq_unions = now;
    }

    /// Is `a <= b` for every value of the symbols? Decided by the bounds of `b - a`
    /// (as its class has them, or as a new class for it would have them, merged
    /// with a class of the same canonical form), then by the bounds of its form with
    /// `floordiv` terms relaxed ([`Poly::relaxed_bounds`]), then of that form with
    /// derived symbols expanded. Adds nothing to the e-graph.
    pub fn le(&self, a: Dim, b: Dim) -> Truth {
        // Two constants compare exactly.
        if let (Some(x), Some(y)) = (self.as_const(a), self.as_const(b)) {
            return if x <= y { Truth::True } else { Truth::False };
        }
        let info = &self.egraph.analysis.symbols;
        let (canon, bounds) = self.difference(b, a);
        let decide = |i: &Interval| {
            if i.is_nonneg() {
                Some(Truth::True)
            } else if i.is_negative() {
                Some(Truth::False)
            } else {
                None
            }
        };
        decide(&bounds)
            .or_else(|| decide(&canon.relaxed_bounds(info)))
            .or_else(|| decide(&self.expand_derived(&canon).relaxed_bounds(info)))
            .unwrap_or(Truth::Unknown)
    }

    /// The canonical form and bounds ([`Algebra::bounds`]) of `x - y`, without adding
    /// it: those of the class holding the e-node `x - y` when there is one; otherwise
    /// those a new class for it would get ([`analysis::node_data`]), merged into the
    /// class of an equal canonical form when there is one, as hash-consing by
    /// canonical form would merge it (that class stays the root of the union, since
    /// the new class has no parents).
    fn difference(&self, x: Dim, y: Dim) -> (Cow<'_, Poly>, Interval) {
        let info = &self.egraph.analysis.symbols;
        let node = DimLang::Sub([self.egraph.find(x.0), self.egraph.find(y.0)]);
        if let Some(id) = self.egraph.lookup(node.clone()) {
            let data = &self.egraph[id].data;
            let bounds = data.bounds.intersect(&data.canon.bounds(info));
            return (Cow::Borrowed(&data.canon), bounds);
        }
        let new = analysis::node_data(&self.egraph, &node);
        let Some(&other) = self.egraph.analysis.by_canon.get(&new.canon) else {
            // Already within the bounds of its canonical form.
            return (Cow::Owned(new.canon), new.bounds);
        };
        let mut merged = self.egraph[other].data.clone();
        self.egraph
            .analysis
            .merge_data(&mut merged, new, &mut Vec::new());
        let bounds = merged.bounds.intersect(&merged.canon.bounds(info));
        (Cow::Owned(merged.canon), bounds)
    }
}

/// Two class ids, smaller first.
fn ordered(a: Id, b: Id) -> (Id, Id) {
    (a.min(b), a.max(b))
}
