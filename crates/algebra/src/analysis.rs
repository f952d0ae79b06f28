//! The e-class analysis: what symdim knows about every e-class.
//!
//! Each e-class carries [`ClassData`]:
//! - `canon`, its canonical form ([`Poly`]), which also does constant folding
//!   with exact rationals;
//! - `bounds`, an interval holding every value it can take.
//!
//! Known divisors are derived from the canonical form and the symbol table on
//! demand ([`Poly::int_divisor`]). When two classes merge, the bounds intersect
//! and the cheaper canonical form wins. If the two forms differ by a non-zero
//! constant, or the bounds do not overlap, the merge is a contradiction: it is
//! recorded in [`DimAnalysis::contradictions`] and reported, never a panic.
//!
//! `modify` hash-conses classes by canonical form: two classes whose canonical
//! forms are equal are unioned (reason `canonical-form`), so `A*B` and `B*A` share
//! one class and equality is a union-find lookup.

use super::expr::DimExpr;
use super::interval::{Bound, Interval};
use super::lang::DimLang;
use super::poly::{AtomMemo, OpKind, Poly, SymbolInfo};
use super::rational::Rat;
use egg::{Analysis, DidMerge, EGraph, Id, Symbol};
use indexmap::{IndexMap, IndexSet};
use rustc_hash::FxHashMap as HashMap;

/// How many times one class's bounds may tighten through merges; bounds stop
/// tightening after that, which keeps propagation finite on cyclic e-graphs.
pub const MAX_REFINEMENTS: u8 = 16;

/// The e-graph type used by symdim.
pub type DimGraph = EGraph<DimLang, DimAnalysis>;

/// What the analysis knows about one e-class.
#[derive(Debug, Clone)]
pub struct ClassData {
    /// The canonical form.
    pub canon: Poly,
    /// Every value of the class lies in this interval.
    pub bounds: Interval,
    /// How often the bounds tightened by merging.
    pub refinements: u8,
}

/// Where a symbol comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SymbolKind {
    /// Named by the model (or by the engine for an unnamed dynamic input dim).
    Input,
    /// Introduced by the engine with a defining expression, for example the `-1`
    /// of a Reshape whose quotient is not provably an integer: `r0 = 48*A/F`.
    Derived {
        /// The defining expression.
        definition: Poly,
    },
    /// A dim with no closed form (the count of NonZero, a data-dependent Reshape
    /// target, an op without a shape rule, a saturation limit).
    DataDependent {
        /// The node that introduced it.
        node: String,
    },
}

/// A symbol's entry in the symbol table.
#[derive(Debug, Clone)]
pub struct SymbolEntry {
    /// Where it comes from.
    pub kind: SymbolKind,
    /// Its bounds (input symbols default to `[1, inf)`, other dims to `[0, inf)`).
    pub bounds: Interval,
    /// A positive integer known to divide it (from facts such as `S % 8 == 0`).
    pub divisor: Rat,
}

/// The symbols of an algebra, in creation order, with what bounds and
/// divisibility queries found for operator atoms under these entries (emptied
/// whenever an entry is added or changed).
#[derive(Debug, Clone, Default)]
pub struct SymbolTable {
    entries: IndexMap<Symbol, SymbolEntry>,
    memo: AtomMemo,
}

impl SymbolTable {
    /// The entry of a symbol.
    pub fn get(&self, s: &Symbol) -> Option<&SymbolEntry> {
        self.entries.get(s)
    }

    /// The entry of a symbol, to change it.
    pub fn get_mut(&mut self, s: &Symbol) -> Option<&mut SymbolEntry> {
        self.memo.clear();
        self.entries.get_mut(s)
    }

    /// True when the symbol has an entry.
    pub fn contains(&self, s: &Symbol) -> bool {
        self.entries.contains_key(s)
    }

    /// Add or replace a symbol's entry.
    pub fn insert(&mut self, s: Symbol, e: SymbolEntry) {
        self.memo.clear();
        self.entries.insert(s, e);
    }

    /// How many symbols it holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when it holds no symbol.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries in creation order.
    pub fn iter(&self) -> impl Iterator<Item = (&Symbol, &SymbolEntry)> {
        self.entries.iter()
    }
}

impl SymbolInfo for SymbolTable {
    fn bounds(&self, s: Symbol) -> Interval {
        self.entries
            .get(&s)
            .map_or_else(|| Interval::at_least(Rat::zero()), |e| e.bounds.clone())
    }

    fn divisor(&self, s: Symbol) -> Rat {
        self.entries
            .get(&s)
            .map_or_else(Rat::one, |e| e.divisor.clone())
    }

    fn memo(&self) -> Option<&AtomMemo> {
        Some(&self.memo)
    }
}

/// A contradiction: two sides asserted equal that cannot be. It prints
/// `contradiction: {left} == {right} is impossible: {reason}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Contradiction {
    /// One side.
    pub left: Operand,
    /// The other side.
    pub right: Operand,
    /// Why they cannot be equal.
    pub reason: Refutation,
}

impl std::fmt::Display for Contradiction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "contradiction: {} == {} is impossible: {}",
            self.left, self.right, self.reason
        )
    }
}

/// One side of a [`Contradiction`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Operand {
    /// A dim, in canonical form: `A + 1`.
    Dim(DimExpr),
    /// A symbol as the caller named it (`--bind`): `N`.
    Symbol(String),
    /// A fact as the caller gave it (`--assume`): `N >= 5`.
    Fact(String),
    /// A dim with the bounds its class holds: `A in [1, 4]`.
    Bounded(DimExpr, Interval),
}

impl std::fmt::Display for Operand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Operand::Dim(d) => write!(f, "{d}"),
            Operand::Symbol(s) | Operand::Fact(s) => f.write_str(s),
            Operand::Bounded(d, bounds) => write!(f, "{d} in {bounds}"),
        }
    }
}

/// Why the two sides of a [`Contradiction`] cannot be equal.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Refutation {
    /// Their canonical forms differ by a non-zero constant.
    ConstantDifference(Rat),
    /// The bounds of their difference exclude 0.
    DifferenceExcludesZero(Interval),
    /// Their difference has bounds that exclude 0.
    Difference {
        /// The difference, left minus right.
        diff: DimExpr,
        /// Its bounds.
        bounds: Interval,
    },
    /// Other forms of the two classes differ by something that is never 0.
    OtherForms {
        /// A form of the left side.
        left: DimExpr,
        /// A form of the right side.
        right: DimExpr,
        /// Their difference.
        diff: DimExpr,
        /// Its bounds.
        bounds: Interval,
    },
    /// A side lies in bounds the other side is outside of.
    Bounds {
        /// The side whose bounds refute it.
        of: Operand,
        /// Its bounds.
        bounds: Interval,
    },
    /// The sides of a disequality are proven equal.
    ProvenEqual,
    /// The bounds of the two classes do not overlap.
    BoundsDisjoint,
}

impl std::fmt::Display for Refutation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refutation::ConstantDifference(c) => write!(f, "they differ by the constant {c}"),
            Refutation::DifferenceExcludesZero(b) => {
                write!(f, "their difference lies in {b}, which excludes 0")
            }
            Refutation::Difference { diff, bounds } => {
                write!(f, "their difference {diff} lies in {bounds}")
            }
            Refutation::OtherForms {
                left,
                right,
                diff,
                bounds,
            } => write!(
                f,
                "they are also {left} and {right}, whose difference {diff} lies in {bounds}"
            ),
            Refutation::Bounds { of, bounds } => write!(f, "{of} lies in {bounds}"),
            Refutation::ProvenEqual => f.write_str("they are proven equal"),
            Refutation::BoundsDisjoint => f.write_str("their bounds do not overlap"),
        }
    }
}

/// The analysis state shared by all classes.
#[derive(Debug, Default, Clone)]
pub struct DimAnalysis {
    /// Every symbol, with its kind, bounds and divisor.
    pub symbols: SymbolTable,
    /// Canonical form to a class holding it (hash-consing by canonical form).
    pub by_canon: HashMap<Poly, Id>,
    /// Contradictions found so far, in discovery order.
    pub contradictions: IndexSet<Contradiction>,
    /// Classes holding an operator e-node whose rules should be (re)checked.
    pub pending_rules: Vec<Id>,
    /// Symbols solved away by a linear relation (`T := S`): a form without them
    /// is always preferred, so every expression is rewritten in their terms.
    pub eliminated: IndexSet<Symbol>,
    /// A union happened since the last rebuild.
    pub dirty: bool,
    /// The first rule result refused by the growth limit since the last
    /// saturation ([`crate::rules::MAX_GROWTH`]): the form kept.
    pub refused_growth: Option<Poly>,
}

impl DimAnalysis {
    fn eliminated_count(&self, p: &Poly) -> usize {
        if self.eliminated.is_empty() {
            return 0;
        }
        let mut v = Vec::new();
        p.symbols(&mut v);
        v.iter().filter(|s| self.eliminated.contains(*s)).count()
    }

    /// Which of two equal canonical forms to keep: fewer eliminated symbols first,
    /// then [`better`].
    pub fn prefer(&self, a: &Poly, b: &Poly) -> bool {
        let (ea, eb) = (self.eliminated_count(a), self.eliminated_count(b));
        if ea != eb {
            return ea < eb;
        }
        better(a, b)
    }

    /// Merge class data `b` into `a` as a union does (see the module doc), without
    /// recording anything: contradictions found are pushed onto `found`. The
    /// analysis's `merge` is this plus recording them.
    pub fn merge_data(
        &self,
        a: &mut ClassData,
        b: ClassData,
        found: &mut Vec<Contradiction>,
    ) -> DidMerge {
        let mut a_changed = false;
        let mut b_changed = false;
        // `a`'s form before it takes `b`'s, for a contradiction of the bounds to name
        let mut a_form: Option<Poly> = None;
        if a.canon != b.canon {
            let diff = a.canon.sub(&b.canon);
            let diff_bounds = diff.bounds(&self.symbols);
            let contradiction = if let Some(c) = diff.as_const() {
                found.push(Contradiction {
                    left: Operand::Dim(DimExpr::from_poly(a.canon.clone())),
                    right: Operand::Dim(DimExpr::from_poly(b.canon.clone())),
                    reason: Refutation::ConstantDifference(c),
                });
                true
            } else if !diff_bounds.contains(&Rat::zero()) {
                found.push(Contradiction {
                    left: Operand::Dim(DimExpr::from_poly(a.canon.clone())),
                    right: Operand::Dim(DimExpr::from_poly(b.canon.clone())),
                    reason: Refutation::DifferenceExcludesZero(diff_bounds),
                });
                true
            } else {
                false
            };
            // After a contradiction the class keeps its form: adopting the other
            // would re-make its parents from a form that contradicts it
            // (`A == A/4` feeds `A/16`, `A/64`, ... forever). The contradiction is
            // reported and the algebra's caller rejects the fact.
            if contradiction {
                b_changed = true;
            } else if self.prefer(&b.canon, &a.canon) {
                a_form = Some(std::mem::replace(&mut a.canon, b.canon.clone()));
                a_changed = true;
            } else {
                b_changed = true;
            }
        }
        if a.bounds != b.bounds {
            let meet = a.bounds.intersect(&b.bounds);
            if meet.is_empty() {
                let a_form = a_form.unwrap_or_else(|| a.canon.clone());
                found.push(Contradiction {
                    left: Operand::Bounded(DimExpr::from_poly(a_form), a.bounds.clone()),
                    right: Operand::Bounded(DimExpr::from_poly(b.canon.clone()), b.bounds.clone()),
                    reason: Refutation::BoundsDisjoint,
                });
                b_changed = true;
            } else if a.refinements < MAX_REFINEMENTS {
                if meet != a.bounds {
                    a.bounds = meet;
                    a.refinements += 1;
                    a_changed = true;
                }
                if a.bounds != b.bounds {
                    b_changed = true;
                }
            } else {
                b_changed = true;
            }
        }
        DidMerge(a_changed, b_changed)
    }
}

fn node_bounds(egraph: &DimGraph, enode: &DimLang) -> Interval {
    let b = |id: &Id| &egraph[*id].data.bounds;
    match enode {
        DimLang::Num(r) => Interval::point(r.clone()),
        DimLang::Sym(s) => egraph.analysis.symbols.bounds(*s),
        DimLang::Add([x, y]) => b(x).add(b(y)),
        DimLang::Sub([x, y]) => b(x).sub(b(y)),
        DimLang::Mul([x, y]) => b(x).mul(b(y)),
        DimLang::Div([x, y]) => b(x).div(b(y)),
        DimLang::Neg([x]) => b(x).neg(),
        DimLang::FloorDiv([x, y]) => b(x).floordiv(b(y)),
        DimLang::CeilDiv([x, y]) => b(x).ceildiv(b(y)),
        DimLang::Mod([x, y]) => {
            let int = |id: &Id| {
                egraph[*id]
                    .data
                    .canon
                    .int_divisor(&egraph.analysis.symbols)
                    .is_some()
            };
            if int(x) && int(y) {
                b(x).modulo_integers(b(y))
            } else {
                b(x).modulo(b(y))
            }
        }
        DimLang::Min([x, y]) => b(x).min(b(y)),
        DimLang::Max([x, y]) => b(x).max(b(y)),
        DimLang::Broadcast([x, y]) => b(x).hull(b(y)),
    }
}

/// The canonical form of an e-node from its children's canonical forms.
pub fn node_canon(egraph: &DimGraph, enode: &DimLang) -> Poly {
    let c = |id: &Id| &egraph[*id].data.canon;
    match enode {
        DimLang::Num(r) => Poly::constant(r.clone()),
        DimLang::Sym(s) => Poly::sym(*s),
        DimLang::Add([x, y]) => c(x).add(c(y)),
        DimLang::Sub([x, y]) => c(x).sub(c(y)),
        DimLang::Mul([x, y]) => c(x).mul(c(y)),
        DimLang::Neg([x]) => c(x).neg(),
        DimLang::Div([x, y]) => Poly::op(OpKind::Div, c(x).clone(), c(y).clone()),
        DimLang::FloorDiv([x, y]) => Poly::op(OpKind::FloorDiv, c(x).clone(), c(y).clone()),
        DimLang::CeilDiv([x, y]) => Poly::op(OpKind::CeilDiv, c(x).clone(), c(y).clone()),
        DimLang::Mod([x, y]) => Poly::op(OpKind::Mod, c(x).clone(), c(y).clone()),
        DimLang::Min([x, y]) => Poly::op(OpKind::Min, c(x).clone(), c(y).clone()),
        DimLang::Max([x, y]) => Poly::op(OpKind::Max, c(x).clone(), c(y).clone()),
        DimLang::Broadcast([x, y]) => Poly::op(OpKind::Broadcast, c(x).clone(), c(y).clone()),
    }
}

/// The data of a new class holding `enode` alone: its canonical form, and bounds
/// that intersect interval arithmetic on the canonical form with interval
/// arithmetic on the e-node's children, rounded inward to integers when the form is
/// integral. Reads the e-graph only.
pub fn node_data(egraph: &DimGraph, enode: &DimLang) -> ClassData {
    let canon = node_canon(egraph, enode);
    let mut bounds = canon
        .bounds(&egraph.analysis.symbols)
        .intersect(&node_bounds(egraph, enode));
    // Rounding changes only a non-integer end (and needs the divisor walk only then).
    let fractional = [bounds.lo(), bounds.hi()]
        .into_iter()
        .flatten()
        .any(|r| !r.is_integer());
    if fractional && canon.int_divisor(&egraph.analysis.symbols).is_some() {
        bounds = bounds.to_integers();
    }
    ClassData {
        canon,
        bounds,
        refinements: 0,
    }
}

/// Which of two equal canonical forms to keep: no division (also inside operator
/// terms) first, then no fractional coefficient inside an operator term, then fewer
/// divisions outside their normal form ([`Poly::unnormalised_divisions`]: no
/// `ceildiv`, numerator offsets of `floordiv` and `mod` in `(-k, 0]`), then cheaper,
/// then the smaller in the total order (so the choice never depends on merge order).
pub fn better(a: &Poly, b: &Poly) -> bool {
    let key = |p: &Poly| {
        (
            p.has_division_within(),
            p.has_inner_fraction(),
            p.unnormalised_divisions(),
            p.cost(),
        )
    };
    (key(a), a) < (key(b), b)
}

impl Analysis<DimLang> for DimAnalysis {
    type Data = ClassData;

    fn make(egraph: &mut DimGraph, enode: &DimLang) -> ClassData {
        node_data(egraph, enode)
    }

    fn merge(&mut self, a: &mut ClassData, b: ClassData) -> DidMerge {
        let mut found = Vec::new();
        let did = self.merge_data(a, b, &mut found);
        self.contradictions.extend(found);
        did
    }

    /// Matching through cycles makes nested patterns such as
    /// `(ceildiv (ceildiv ?a ?b) ?c)` rebuild ever larger terms once a class
    /// contains an operator term over itself (`1 = ceildiv(1, S)`).
    fn allow_ematching_cycles(&self) -> bool {
        false
    }

    fn modify(egraph: &mut DimGraph, id: Id) {
        let id = egraph.find(id);
        let has_op = egraph[id].nodes.iter().any(DimLang::has_rules);
        if has_op {
            egraph.analysis.pending_rules.push(id);
        }
        let canon = egraph[id].data.canon.clone();
        match egraph.analysis.by_canon.get(&canon).copied() {
            Some(other) => {
                let other = egraph.find(other);
                if other != id {
                    // A new class meeting an equal form is often local (nothing to
                    // propagate): then no rebuild is owed.
                    let local = crate::saturate::union_is_local(egraph, other, id);
                    egraph.union_trusted(other, id, "canonical-form");
                    if local {
                        crate::saturate::sort_class(egraph, other);
                    } else {
                        egraph.analysis.dirty = true;
                    }
                }
            }
            None => {
                egraph.analysis.by_canon.insert(canon, id);
            }
        }
    }
}

/// Bounds for a new symbol of the given kind.
pub fn default_bounds(lower: &Rat) -> Interval {
    Interval::new(Bound::Finite(lower.clone()), Bound::PosInf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interval::Bound;

    fn entry(hi: i64) -> SymbolEntry {
        SymbolEntry {
            kind: SymbolKind::Input,
            bounds: Interval::new(Bound::Finite(Rat::one()), Bound::Finite(Rat::int(hi))),
            divisor: Rat::one(),
        }
    }

    fn range(lo: i64, hi: i64) -> Interval {
        Interval::new(Bound::Finite(Rat::int(lo)), Bound::Finite(Rat::int(hi)))
    }

    #[test]
    fn changing_an_entry_empties_the_memo() {
        let (n, m) = (Symbol::from("N"), Symbol::from("M"));
        let mut t = SymbolTable::default();
        t.insert(n, entry(10));
        let q = Poly::op(OpKind::FloorDiv, Poly::sym(n), Poly::sym(m));
        let half = Poly::op(OpKind::FloorDiv, Poly::sym(n), Poly::constant(Rat::int(2)));
        assert_eq!(half.bounds(&t), range(0, 5));
        assert!(!t.memo.is_empty());
        t.get_mut(&n).unwrap().bounds = range(1, 100);
        assert!(t.memo.is_empty());
        assert_eq!(half.bounds(&t), range(0, 50));
        // M is not in the table: [0, inf), so floordiv(N, M) has no upper bound
        // until M gets an entry.
        assert_eq!(q.bounds(&t).hi(), None);
        t.insert(m, entry(4));
        assert_eq!(q.bounds(&t), range(0, 100));
    }
}
