//! Model contracts: the conditions on a model's input dims under which every node
//! is valid (`symdim constraints`), derived from what inference recorded.
//!
//! Sources, each naming the nodes it comes from:
//!
//! | source | condition |
//! | --- | --- |
//! | relations (`Algebra::relations`) | equalities that MatMul, Concat, broadcasting, Expand, Squeeze, Split force (`` `a.0` == `b.0` ``) |
//! | Reshape `-1` | a fresh `r0` with `k*r0 == p` needs `k \| p`, printed `p % k == 0` |
//! | `broadcast(a, b)` terms | numpy broadcasting left undecided: `a == b or a == 1 or b == 1`; `a == min(a, c)` reads `a <= c` |
//! | Gather | indices from `Range(start, limit, 1)` (through Unsqueeze, Cast, ...) or known values must lie in the table: `limit <= rows` |
//! | dims | every dim of every tensor is `>= 0` (a Conv or Pad output that could be negative) |
//! | errors | an error diagnostic's hint (`valid when 8 divides 12*B*S`), or `false` with the error as the note |
//! | e-graph | an input symbol that the e-graph merged with another expression |
//!
//! A condition that involves a data-dependent dim, a branch that may not run, or an
//! op without a shape rule (`unknown`) cannot be decided from dims alone: it is
//! listed as `undecidable`, simplified as the others are. Every condition is in the
//! `condition` grammar of `docs/grammar.md`.
//!
//! Every condition is normalised in a scratch [`Algebra`] holding the user's facts
//! (`--bind`, `--assume`, the inputs' declared bounds): one that holds already is
//! dropped, one that can never hold is kept as `impossible`. Conditions are values
//! (terms as inference built them, canonical forms) imported into the scratch
//! algebra with [`Algebra::import`], and facts are parsed once ([`Fact`]); text is
//! made only for the report. Then redundant
//! conditions are removed: going from the last to the first, a condition is dropped
//! when a fresh algebra holding the facts and every other remaining condition
//! proves it (`equal`, `le`, `divides` return [`Truth::True`]).
//!
//! A single-symbol inequality whose form is not linear (`floordiv(S - 400, 160) + 1
//! >= 0`) is solved for the symbol ([`crate::algebra::solve`]): when the condition
//! changes truth value exactly once over `1..=65536`, it is printed as `S >= 240`
//! (or `<=`).

pub mod check;
pub mod explain;

use crate::algebra::parse::parse_fact;
use crate::algebra::poly::{render_symbol, Atom, Mono};
use crate::algebra::solve::solve_single_symbol;
use crate::algebra::{
    Algebra, Dim, DimExpr, Expr, Fact, OpKind, Poly, Rat, Rel, SymbolKind, Truth,
};
use crate::context::facts::Facts;
use crate::context::{Cause, Hint, Severity, ShapesContext};
use crate::graph::{Attr, Model, Node};
use egg::{Id, RecExpr};
use indexmap::IndexMap;
use rustc_hash::FxHashSet as HashSet;
use serde::Serialize;
use std::fmt::Write as _;

/// What kind of condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// `a == b`.
    Equal,
    /// `p % k == 0`.
    Divides,
    /// A bound on one symbol: `S <= 512`, `S >= 240`.
    Range,
    /// A bound involving several symbols: `past + S <= 512`.
    Inequality,
    /// Alternatives: `a == b or a == 1 or b == 1`.
    Either,
    /// Cannot be decided from dims (data-dependent dims, a branch that may not run,
    /// an op without a shape rule).
    Undecidable,
    /// Can never hold: the model is invalid for every value of its inputs.
    Impossible,
}

impl Kind {
    /// The kebab-case name used in text and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Equal => "equal",
            Kind::Divides => "divides",
            Kind::Range => "range",
            Kind::Inequality => "inequality",
            Kind::Either => "either",
            Kind::Undecidable => "undecidable",
            Kind::Impossible => "impossible",
        }
    }
}

/// One condition of a model's contract.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Condition {
    /// What kind of condition.
    pub kind: Kind,
    /// The condition as a fact in the expression grammar (`docs/grammar.md`), which
    /// `--assume` accepts; alternatives are joined by ` or `.
    pub condition: String,
    /// The symbols it involves, in first-seen order.
    pub symbols: Vec<String>,
    /// The nodes it comes from, in graph order.
    pub nodes: Vec<String>,
    /// Where it comes from: `relation`, `reshape`, `broadcast`, `gather`, `dims`,
    /// `error`, `e-graph`, `no-rule`.
    pub sources: Vec<String>,
    /// Why it is undecidable or impossible, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(skip)]
    form: Cond,
}

impl Condition {
    /// Decide the condition under facts (`N == 4`, `S <= 512`, ...): `True` when
    /// they prove it, `False` when they refute it, else `Unknown` (always for
    /// undecidable and impossible conditions).
    pub fn decide(&self, facts: &[Fact]) -> Truth {
        if matches!(self.kind, Kind::Undecidable | Kind::Impossible) {
            return Truth::Unknown;
        }
        Scratch::new(facts, None).eval(&self.form)
    }
}

/// The contract of a model: the minimal conditions on its input symbols.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Contract {
    /// The model's path, as given.
    pub model: String,
    /// The input symbols, in creation order.
    pub inputs: Vec<String>,
    /// The facts given by the user (`--bind`, `--assume`).
    pub facts: Vec<String>,
    /// The conditions, equalities first, then divisibility, ranges, inequalities,
    /// alternatives, undecidable and impossible ones.
    pub conditions: Vec<Condition>,
    /// Conditions dropped because the others (or the facts) imply them.
    pub redundant: Vec<Condition>,
}

/// One side of a condition. Either way it is built in a scratch algebra as the
/// expression it is, its symbols as inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Side {
    /// A term as inference built it (the e-nodes first added for a class), whose
    /// structure can bound it more tightly than its canonical form does.
    Term(Expr),
    /// A canonical form, as normalisation leaves every side.
    Form(Poly),
}

impl Side {
    fn num(v: i64) -> Side {
        Side::Form(Poly::constant(Rat::int(v)))
    }

    fn expr(&self) -> Expr {
        match self {
            Side::Term(e) => e.clone(),
            Side::Form(p) => p.to_expr(),
        }
    }

    /// The text, for reports.
    fn render(&self) -> String {
        match self {
            Side::Term(e) => e.to_string(),
            Side::Form(p) => p.render(),
        }
    }

    /// True when the side is one symbol: it prints as a name.
    fn is_symbol(&self) -> bool {
        match self {
            Side::Term(e) => matches!(e, Expr::Sym(_)),
            Side::Form(p) => p.as_sym().is_some(),
        }
    }

    /// True when the text reads back whole as the right operand of `%` (which binds
    /// as `*` does): a name, a call, an integer, or a term (whose text is
    /// parenthesised).
    fn is_factor(&self) -> bool {
        match self {
            Side::Term(_) => true,
            Side::Form(p) => p.as_atom().is_some() || p.as_const().is_some_and(|c| c.is_integer()),
        }
    }

    /// True when the text is an integer literal (a constant reads better on the
    /// right). A term never is: its text is parenthesised.
    fn is_integer(&self) -> bool {
        match self {
            Side::Term(_) => false,
            Side::Form(p) => p.as_const().is_some_and(|c| c.to_i64().is_some()),
        }
    }
}

/// A condition on dims.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Cond {
    /// `a == b`.
    Eq(Side, Side),
    /// `divisor | dividend`.
    Div(Side, Side),
    /// `a <= b`.
    Le(Side, Side),
    /// Any of these.
    Or(Vec<Cond>),
    /// All of these (a solved condition: `192 <= S` and `S <= 703`).
    And(Vec<Cond>),
    /// Never holds: an error that proves the model invalid without a condition on
    /// dims that would make it valid. Printed `false`.
    False,
    /// Cannot be stated in dims (an op without a shape rule may reject its
    /// inputs). Printed `unknown`.
    Unknown,
}

struct Candidate {
    cond: Cond,
    node: String,
    source: &'static str,
    note: Option<String>,
    undecidable: bool,
}

/// Derive the contract of an inferred model. `options` are the facts inference ran
/// with (they are assumed, so conditions they imply are not listed).
pub fn derive(model: &Model, ctx: &ShapesContext, options: &Facts) -> Contract {
    let alg = &ctx.alg;
    let mut facts: Vec<String> = options
        .binds
        .iter()
        .map(|(n, v)| format!("{} == {v}", render_symbol(n)))
        .collect();
    facts.extend(options.assumes.iter().cloned());
    let mut base = fact_values(options);
    // Bounds and divisors of input symbols (declared intervals, --assume on one symbol).
    let inputs: Vec<String> = alg
        .symbols()
        .filter(|(_, e)| e.kind == SymbolKind::Input)
        .map(|(n, _)| n.to_string())
        .collect();
    for (name, e) in alg.symbols() {
        if e.kind != SymbolKind::Input {
            continue;
        }
        let s = || Expr::Sym(name.to_string());
        let num = |r: &Rat| Poly::constant(r.clone()).to_expr();
        if let Some(lo) = e.bounds.lo() {
            if lo.sub(&Rat::one()).is_positive() {
                base.push(fact(s(), Rel::Ge, num(lo)));
            }
        }
        if let Some(hi) = e.bounds.hi() {
            base.push(fact(s(), Rel::Le, num(hi)));
        }
        if !e.divisor.is_one() && !e.divisor.is_zero() {
            let m = Expr::Call(OpKind::Mod, Box::new(s()), Box::new(num(&e.divisor)));
            base.push(fact(m, Rel::Eq, Expr::Num(Rat::zero())));
        }
    }

    let mut cands: Vec<Candidate> = Vec::new();
    collect_relations(ctx, &mut cands);
    collect_broadcasts(model, ctx, &mut cands);
    collect_gathers(model, ctx, &mut cands);
    collect_dims(model, ctx, &mut cands);
    collect_requirements(ctx, &mut cands);
    collect_diagnostics(ctx, &mut cands);
    collect_merges(ctx, &mut cands);

    // Normalise in one scratch algebra holding the base facts.
    let mut scratch = Scratch::new(&base, Some(alg));
    let mut merged: IndexMap<(Kind, String), Condition> = IndexMap::new();
    let mut flat: Vec<(Kind, Cond, Option<String>, &Candidate)> = Vec::new();
    for c in &cands {
        let (kind, norm, note) = if c.undecidable {
            // Decided all the same (`1 == 1`, an alternative that holds): nothing to
            // list; what is left is simplified as decidable conditions are.
            match scratch.normalise(&c.cond) {
                Normal::Holds => continue,
                Normal::Never(n) => (Kind::Impossible, n, c.note.clone()),
                Normal::Cond(_, n) => (Kind::Undecidable, n, c.note.clone()),
            }
        } else {
            match scratch.normalise(&c.cond) {
                Normal::Holds => continue,
                Normal::Never(n) => (
                    Kind::Impossible,
                    n,
                    c.note.clone().or(Some("can never hold".to_string())),
                ),
                Normal::Cond(k, n) => (k, n, c.note.clone()),
            }
        };
        match norm {
            Cond::And(parts) if kind != Kind::Undecidable && kind != Kind::Impossible => {
                for p in parts {
                    let k = scratch.kind(&p);
                    flat.push((k, p, note.clone(), c));
                }
            }
            n => flat.push((kind, n, note, c)),
        }
    }
    for (kind, norm, note, c) in flat {
        let text = render_cond(&norm);
        let symbols = scratch.symbols(&norm);
        // `false` and `unknown` say nothing by themselves: one entry per reason.
        let key = match norm {
            Cond::False | Cond::Unknown => format!("{text}\n{}", note.as_deref().unwrap_or("")),
            _ => text.clone(),
        };
        let entry = merged.entry((kind, key)).or_insert_with(|| Condition {
            kind,
            condition: text.clone(),
            symbols,
            nodes: Vec::new(),
            sources: Vec::new(),
            note,
            form: norm.clone(),
        });
        if !c.node.is_empty() && !entry.nodes.contains(&c.node) {
            entry.nodes.push(c.node.clone());
        }
        if !entry.sources.iter().any(|s| s == c.source) {
            entry.sources.push(c.source.to_string());
        }
    }
    // Graph order of the nodes named by conditions (a map only when some are named).
    let order = if merged.values().any(|c| c.nodes.len() > 1) {
        node_order(model)
    } else {
        Default::default()
    };
    let mut all: Vec<Condition> = merged
        .into_values()
        .map(|mut c| {
            c.nodes
                .sort_by_key(|n| order.get(n.as_str()).copied().unwrap_or(usize::MAX));
            c
        })
        .collect();
    all.sort_by_key(|c| c.kind);

    // Redundancy: from the last to the first, drop what the others imply. An
    // undecidable condition may hold only when a branch runs, so it implies nothing,
    // but one the others imply is dropped too.
    let mut keep = vec![true; all.len()];
    drop_implied(
        &all,
        &mut keep,
        0..all.len(),
        Scratch::new(&base, Some(alg)),
    );
    let mut conditions = Vec::new();
    let mut redundant = Vec::new();
    for (c, k) in all.into_iter().zip(keep) {
        if k {
            conditions.push(c);
        } else {
            redundant.push(c);
        }
    }
    Contract {
        model: model.path.clone(),
        inputs,
        facts,
        conditions,
        redundant,
    }
}

/// Decide, from the last to the first, which conditions of `all[range]` the others
/// imply (`keep[i] = false`). `outside` holds the base facts and every condition
/// outside `range` that the others count on: those before it, and those after it
/// that are kept. Each condition is judged against the earlier ones and the later
/// kept ones, as when a scratch per condition assumes them all, in another order
/// (which, in the lists tested, changed an answer only where the conditions
/// contradict each other). Halving the range assumes each condition once per level
/// (`n log n` assumptions and `n` copies of a scratch in all, not `n^2`).
fn drop_implied(
    all: &[Condition],
    keep: &mut [bool],
    range: std::ops::Range<usize>,
    mut outside: Scratch<'_>,
) {
    let assumed = |j: usize| all[j].kind != Kind::Undecidable;
    match range.len() {
        0 => {}
        1 => {
            let i = range.start;
            let judged = matches!(
                all[i].kind,
                Kind::Equal
                    | Kind::Divides
                    | Kind::Range
                    | Kind::Inequality
                    | Kind::Either
                    | Kind::Undecidable
            );
            if judged && outside.eval(&all[i].form) == Truth::True {
                keep[i] = false;
            }
        }
        n => {
            let mid = range.start + n / 2;
            // The upper half first: the lower half is all still kept.
            let mut upper = outside.clone();
            for j in (range.start..mid).filter(|&j| assumed(j)) {
                upper.assume(&all[j].form);
            }
            drop_implied(all, keep, mid..range.end, upper);
            for j in (mid..range.end).filter(|&j| keep[j] && assumed(j)) {
                outside.assume(&all[j].form);
            }
            drop_implied(all, keep, range.start..mid, outside);
        }
    }
}

/// The facts of `options` as values: each bind as `name == value`, each assume
/// parsed (one that does not parse is left out, as assuming its text would fail).
pub fn fact_values(options: &Facts) -> Vec<Fact> {
    let mut out: Vec<Fact> = options
        .binds
        .iter()
        .map(|(n, v)| fact(Expr::Sym(n.clone()), Rel::Eq, Expr::Num(Rat::int(*v))))
        .collect();
    out.extend(options.assumes.iter().filter_map(|a| parse_fact(a).ok()));
    out
}

fn fact(lhs: Expr, rel: Rel, rhs: Expr) -> Fact {
    Fact { lhs, rel, rhs }
}

fn node_order(model: &Model) -> rustc_hash::FxHashMap<&str, usize> {
    model
        .graph
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.name.as_str(), i))
        .collect()
}

// ----- sources ---------------------------------------------------------------

/// The term originally built for an e-class id, with derived symbols replaced by
/// their definitions.
fn term(alg: &Algebra, id: Id) -> Side {
    let expr = alg.egraph().id_to_expr(id);
    Side::Term(rec_expr(alg, &expr, Id::from(expr.as_ref().len() - 1)))
}

fn rec_expr(alg: &Algebra, e: &RecExpr<crate::algebra::DimLang>, i: Id) -> Expr {
    use crate::algebra::DimLang as L;
    let t = |j: &Id| Box::new(rec_expr(alg, e, *j));
    match &e[i] {
        L::Num(r) => Poly::constant(r.clone()).to_expr(),
        L::Sym(s) => match alg.symbol_entry(s.as_str()).map(|x| &x.kind) {
            Some(SymbolKind::Derived { definition }) => definition.to_expr(),
            _ => Expr::Sym(s.as_str().to_string()),
        },
        L::Add([a, b]) => Expr::Add(t(a), t(b)),
        L::Sub([a, b]) => Expr::Sub(t(a), t(b)),
        L::Mul([a, b]) => Expr::Mul(t(a), t(b)),
        L::Div([a, b]) => Expr::Div(t(a), t(b)),
        L::Neg([a]) => rec_expr(alg, e, *a).negated(),
        L::FloorDiv([a, b]) => Expr::Call(OpKind::FloorDiv, t(a), t(b)),
        L::CeilDiv([a, b]) => Expr::Call(OpKind::CeilDiv, t(a), t(b)),
        L::Mod([a, b]) => Expr::Call(OpKind::Mod, t(a), t(b)),
        L::Min([a, b]) => Expr::Call(OpKind::Min, t(a), t(b)),
        L::Max([a, b]) => Expr::Call(OpKind::Max, t(a), t(b)),
        L::Broadcast([a, b]) => Expr::Call(OpKind::Broadcast, t(a), t(b)),
    }
}

/// Data-dependent symbols in a dim's canonical form (and the terms of a relation).
fn data_dependent(alg: &Algebra, dims: &[Dim]) -> Vec<String> {
    let polys: Vec<&Poly> = dims.iter().map(|d| alg.canon(*d)).collect();
    data_dependent_polys(alg, &polys)
}

fn data_dependent_polys(alg: &Algebra, polys: &[&Poly]) -> Vec<String> {
    let mut syms = Vec::new();
    for p in polys {
        p.symbols(&mut syms);
    }
    syms.into_iter()
        .filter(|s| {
            matches!(
                alg.symbol_entry(s.as_str()).map(|e| &e.kind),
                Some(SymbolKind::DataDependent { .. })
            )
        })
        .map(|s| s.as_str().to_string())
        .collect()
}

fn collect_relations(ctx: &ShapesContext, out: &mut Vec<Candidate>) {
    use crate::algebra::DimLang as L;
    let alg = &ctx.alg;
    let rels = alg.relations();
    for r in rels {
        // Reshape's `-1`: `k * r == p` with `r` derived needs `k | p`.
        let lhs_node = alg.egraph().id_to_node(r.lhs.id());
        let mut cond = None;
        if let L::Mul([a, b]) = lhs_node {
            for (k, q) in [(a, b), (b, a)] {
                if let L::Sym(s) = alg.egraph().id_to_node(*q) {
                    if matches!(
                        alg.symbol_entry(s.as_str()).map(|e| &e.kind),
                        Some(SymbolKind::Derived { .. })
                    ) {
                        cond = Some((Cond::Div(term(alg, *k), term(alg, r.rhs.id())), "reshape"));
                        break;
                    }
                }
            }
        }
        let (cond, source) = cond.unwrap_or_else(|| {
            (
                Cond::Eq(term(alg, r.lhs.id()), term(alg, r.rhs.id())),
                "relation",
            )
        });
        let (node, note) = recorded_at(alg, &r.node, r.conditional, &[r.lhs, r.rhs]);
        out.push(Candidate {
            cond,
            node,
            source,
            undecidable: note.is_some(),
            note,
        });
    }
}

/// Every `broadcast(a, b)` e-node: `a == b or a == 1 or b == 1`, attributed to the
/// first node where `a` and `b` meet, right-aligned, in two inputs (or an input and
/// Expand's shape).
fn collect_broadcasts(model: &Model, ctx: &ShapesContext, out: &mut Vec<Candidate>) {
    use crate::algebra::DimLang as L;
    let alg = &ctx.alg;
    let eg = alg.egraph();
    let mut pairs: Vec<(Id, Id)> = Vec::new();
    let mut seen = HashSet::default();
    for class in eg.classes() {
        for n in &class.nodes {
            if let L::Broadcast([a, b]) = n {
                let (a, b) = (eg.find(*a), eg.find(*b));
                let key = if a <= b { (a, b) } else { (b, a) };
                if seen.insert(key) {
                    pairs.push(key);
                }
            }
        }
    }
    if pairs.is_empty() {
        return;
    }
    // Attribution: the first node whose inputs hold the pair right-aligned, in two
    // different inputs. Per node and right-aligned position, the inputs holding each
    // dim are counted, and the wanted pairs of the dims found there are looked up (or,
    // when fewer, the wanted pairs not yet attributed are checked against the
    // counts). No two inputs are compared with each other, so the cost is linear in
    // the node's input dims, even for a node of many thousands of inputs.
    let wanted: rustc_hash::FxHashSet<(Id, Id)> = pairs.iter().copied().collect();
    let mut partners: rustc_hash::FxHashMap<Id, Vec<Id>> = Default::default();
    for &(a, b) in &pairs {
        partners.entry(a).or_default().push(b);
        if a != b {
            partners.entry(b).or_default().push(a);
        }
    }
    let mut owner: rustc_hash::FxHashMap<(Id, Id), String> = Default::default();
    let mut at: Vec<rustc_hash::FxHashMap<Id, usize>> = Vec::new();
    for node in &model.graph.nodes {
        // Every pair has its first node: later nodes change nothing.
        if owner.len() == wanted.len() {
            break;
        }
        // Broadcasting needs two operands (Expand's second is its shape value).
        if node.inputs.iter().filter(|i| !i.is_empty()).count() < 2 {
            continue;
        }
        // at[k - 1]: how many of the node's inputs hold each dim k-th from the end.
        at.iter_mut().for_each(|m| m.clear());
        let mut count = |dims: &[Dim]| {
            if at.len() < dims.len() {
                at.resize_with(dims.len(), Default::default);
            }
            for (k, d) in dims.iter().rev().enumerate() {
                *at[k].entry(eg.find(d.id())).or_insert(0) += 1;
            }
        };
        let mut shapes = 0;
        for (i, name) in node.inputs.iter().enumerate() {
            let Some(f) = ctx.get(name) else { continue };
            if let Some(s) = &f.shape {
                count(s);
                shapes += 1;
            }
            if node.op_type == "Expand" && i == 1 {
                if let Some(v) = &f.value {
                    count(v);
                    shapes += 1;
                }
            }
        }
        if shapes < 2 {
            continue;
        }
        // A pair of different dims at one position comes from two inputs (an input
        // has one dim there); a dim paired with itself needs two inputs holding it.
        let holds = |m: &rustc_hash::FxHashMap<Id, usize>, a: Id, b: Id| {
            let need = if a == b { 2 } else { 1 };
            m.get(&a).is_some_and(|&n| n >= need) && m.contains_key(&b)
        };
        for m in at.iter().filter(|m| !m.is_empty()) {
            let via_dims: usize = m.keys().map(|d| partners.get(d).map_or(0, Vec::len)).sum();
            if via_dims <= wanted.len() - owner.len() {
                for &a in m.keys() {
                    for &b in partners.get(&a).into_iter().flatten() {
                        let key = if a <= b { (a, b) } else { (b, a) };
                        if holds(m, a, b) && !owner.contains_key(&key) {
                            owner.insert(key, node.name.clone());
                        }
                    }
                }
            } else {
                for &(a, b) in &pairs {
                    if !owner.contains_key(&(a, b)) && holds(m, a, b) {
                        owner.insert((a, b), node.name.clone());
                    }
                }
            }
        }
    }
    for (a, b) in pairs {
        let (pa, pb) = (&eg[a].data.canon, &eg[b].data.canon);
        let dd = data_dependent_polys(alg, &[pa, pb]);
        let note = (!dd.is_empty()).then(|| format!("involves data-dependent {}", dd.join(", ")));
        let (ta, tb) = (Side::Form(pa.clone()), Side::Form(pb.clone()));
        out.push(Candidate {
            cond: Cond::Or(vec![
                Cond::Eq(ta.clone(), tb.clone()),
                Cond::Eq(ta, Side::num(1)),
                Cond::Eq(tb, Side::num(1)),
            ]),
            node: owner.get(&(a, b)).cloned().unwrap_or_default(),
            source: "broadcast",
            undecidable: note.is_some(),
            note,
        });
    }
}

/// Ops whose output holds the same values as their first input, rearranged.
const VALUE_PRESERVING: &[&str] = &[
    "Unsqueeze",
    "Squeeze",
    "Reshape",
    "Cast",
    "Identity",
    "Expand",
    "Flatten",
];

/// Gather on a table of `R` rows: indices must lie in `[-R, R)`.
fn collect_gathers(model: &Model, ctx: &ShapesContext, out: &mut Vec<Candidate>) {
    let alg = &ctx.alg;
    // Who produces each tensor, built on the first Gather that needs it.
    let mut producers: Option<rustc_hash::FxHashMap<&crate::graph::Name, &Node>> = None;
    for node in &model.graph.nodes {
        if node.op_type != "Gather" || !node.domain.is_empty() {
            continue;
        }
        let (Some(data), Some(indices)) = (node.input(0), node.input(1)) else {
            continue;
        };
        let Some(shape) = ctx.get(data).and_then(|f| f.shape.as_ref()) else {
            continue;
        };
        let axis = match node.attr("axis") {
            Some(Attr::Int(a)) => *a,
            _ => 0,
        };
        let rank = shape.len() as i64;
        let axis = if axis < 0 { axis + rank } else { axis };
        let Some(&rows) = usize::try_from(axis).ok().and_then(|a| shape.get(a)) else {
            continue;
        };
        let rows_t = || Side::Form(alg.canon(rows).clone());
        // Known index values.
        if let Some(vals) = ctx.get(indices).and_then(|f| f.value.as_ref()) {
            for &v in vals {
                // A constant index into a table of constant length (a Gather on a
                // Shape, the common case) is decided here, not in the scratch algebra.
                if let (Some(i), Some(r)) = (alg.as_i64(v), alg.as_i64(rows)) {
                    if -r <= i && i < r {
                        continue;
                    }
                }
                // `v <= rows - 1` and `-rows <= v`.
                let (t, rows_e) = (Side::Form(alg.canon(v).clone()), rows_t().expr());
                let last = Expr::Sub(Box::new(rows_e.clone()), Box::new(Expr::Num(Rat::one())));
                out.push(gather_cand(node, Cond::Le(t.clone(), Side::Term(last))));
                out.push(gather_cand(node, Cond::Le(Side::Term(rows_e.negated()), t)));
            }
            continue;
        }
        // Indices from Range(start, limit, 1), through value-preserving ops.
        let mut t = indices;
        let mut range = None;
        let producer = producers.get_or_insert_with(|| {
            let nodes = &model.graph.nodes;
            let mut m = rustc_hash::FxHashMap::with_capacity_and_hasher(
                nodes.iter().map(|n| n.outputs.len()).sum(),
                Default::default(),
            );
            for n in nodes {
                for o in &n.outputs {
                    m.insert(o, n);
                }
            }
            m
        });
        for _ in 0..16 {
            let Some(p) = producer.get(t) else { break };
            if p.op_type == "Range" {
                range = Some(*p);
                break;
            }
            if !VALUE_PRESERVING.contains(&p.op_type.as_str()) {
                break;
            }
            match p.input(0) {
                Some(i) => t = i,
                None => break,
            }
        }
        let Some(range) = range else { continue };
        let scalar = |i: usize| -> Option<Dim> {
            let v = ctx.get(range.input(i)?)?.value.clone()?;
            (v.len() == 1).then(|| v[0])
        };
        let (Some(start), Some(limit), Some(delta)) = (scalar(0), scalar(1), scalar(2)) else {
            continue;
        };
        if alg.as_i64(delta) != Some(1) || !alg.bounds(start).is_nonneg() {
            continue;
        }
        out.push(gather_cand(
            node,
            Cond::Le(Side::Form(alg.canon(limit).clone()), rows_t()),
        ));
    }
}

fn gather_cand(node: &Node, cond: Cond) -> Candidate {
    Candidate {
        cond,
        node: node.name.clone(),
        source: "gather",
        note: None,
        undecidable: false,
    }
}

/// The node of something the algebra recorded, and why it is undecidable: it holds
/// only when an undecided If branch runs (`conditional`), or it involves
/// data-dependent dims.
fn recorded_at(
    alg: &Algebra,
    node: &str,
    conditional: bool,
    dims: &[Dim],
) -> (String, Option<String>) {
    let dd = data_dependent(alg, dims);
    let note = if conditional {
        Some("holds only when the branch runs".to_string())
    } else if !dd.is_empty() {
        Some(format!("involves data-dependent {}", dd.join(", ")))
    } else {
        None
    };
    (node.to_string(), note)
}

/// Inequalities op rules recorded while inferring (a reflect Pad's `pad <= dim - 1`),
/// also inside subgraphs; inside an undecided If branch they are undecidable.
fn collect_requirements(ctx: &ShapesContext, out: &mut Vec<Candidate>) {
    let alg = &ctx.alg;
    for r in alg.requirements() {
        // As for the dims of `collect_dims`: a data-dependent dim's sign says
        // nothing about the inputs.
        if r.kind == "dims" && !data_dependent(alg, &[r.rhs]).is_empty() {
            continue;
        }
        let (node, note) = recorded_at(alg, &r.node, r.conditional, &[r.lhs, r.rhs]);
        out.push(Candidate {
            cond: Cond::Le(term(alg, r.lhs.id()), term(alg, r.rhs.id())),
            node,
            source: r.kind,
            undecidable: note.is_some(),
            note,
        });
    }
}

/// Every dim of every node output is `>= 0`. (A Conv's or pool's spatial output of
/// at least 1 is recorded by the op rule as a `window` requirement, subgraphs too.)
fn collect_dims(model: &Model, ctx: &ShapesContext, out: &mut Vec<Candidate>) {
    let alg = &ctx.alg;
    let mut seen = HashSet::default();
    for node in &model.graph.nodes {
        for o in &node.outputs {
            let Some(shape) = ctx.get(o).and_then(|f| f.shape.as_ref()) else {
                continue;
            };
            for d in shape {
                // Each class once (its bounds cost a walk of its canonical form).
                let id = alg.egraph().find(d.id());
                if !seen.insert(id) || alg.bounds(*d).is_nonneg() {
                    continue;
                }
                if !data_dependent(alg, &[*d]).is_empty() {
                    continue;
                }
                out.push(Candidate {
                    cond: Cond::Le(Side::num(0), Side::Form(alg.canon(*d).clone())),
                    node: node.name.clone(),
                    source: "dims",
                    note: None,
                    undecidable: false,
                });
            }
        }
    }
}

/// Error diagnostics: their hint as a condition, or the error as impossible.
/// Ops without a shape rule: undecidable.
fn collect_diagnostics(ctx: &ShapesContext, out: &mut Vec<Candidate>) {
    for d in &ctx.diagnostics {
        if d.severity == Severity::Warning {
            if matches!(d.cause, Some(Cause::NoRule { .. })) {
                out.push(Candidate {
                    cond: Cond::Unknown,
                    node: d.node.clone(),
                    source: "no-rule",
                    note: Some(d.message.clone()),
                    undecidable: true,
                });
            }
            continue;
        }
        // The hint's dims, each the term its canonical form writes.
        let side = |e: &DimExpr| Side::Term(e.poly().to_expr());
        let cond = match &d.cause {
            Some(Cause::Op {
                hint: Some(hint), ..
            }) => Some(match hint {
                Hint::Divides { divisor, dividend } => Cond::Div(side(divisor), side(dividend)),
                Hint::Equal(a, b) => Cond::Eq(side(a), side(b)),
            }),
            _ => None,
        };
        match cond {
            Some(c) => out.push(Candidate {
                cond: c,
                node: d.node.clone(),
                source: "error",
                note: None,
                undecidable: false,
            }),
            None => out.push(Candidate {
                cond: Cond::False,
                node: d.node.clone(),
                source: "error",
                note: Some(d.message.clone()),
                undecidable: false,
            }),
        }
    }
}

/// Input symbols the e-graph merged with another expression (a safety net: most
/// merges are also relations, which name their node).
fn collect_merges(ctx: &ShapesContext, out: &mut Vec<Candidate>) {
    let alg = &ctx.alg;
    for (name, e) in alg.symbols() {
        if e.kind != SymbolKind::Input {
            continue;
        }
        let Some(id) = alg
            .egraph()
            .lookup(crate::algebra::DimLang::Sym(egg::Symbol::from(name)))
        else {
            continue;
        };
        let canon = &alg.egraph()[id].data.canon;
        if canon.as_sym().is_some_and(|s| s.as_str() == name) {
            continue;
        }
        out.push(Candidate {
            cond: Cond::Eq(
                Side::Form(Poly::sym(egg::Symbol::from(name))),
                Side::Form(canon.clone()),
            ),
            node: String::new(),
            source: "e-graph",
            note: None,
            undecidable: false,
        });
    }
}

// ----- normalisation and implication ----------------------------------------

enum Normal {
    Holds,
    Never(Cond),
    Cond(Kind, Cond),
}

/// A scratch algebra holding facts, for normalising and deciding conditions. The
/// symbols of a condition keep the kind and bounds they have in `src`, the algebra
/// inference ran in, when there is one (a data-dependent dim may be 0); without
/// one, every symbol is an input.
#[derive(Clone)]
struct Scratch<'a> {
    alg: Algebra,
    src: Option<&'a Algebra>,
}

impl<'a> Scratch<'a> {
    fn new(facts: &[Fact], src: Option<&'a Algebra>) -> Scratch<'a> {
        let mut alg = Algebra::default();
        for f in facts {
            let _ = alg.assume_fact(f);
        }
        Scratch { alg, src }
    }

    /// The symbols a condition involves.
    fn symbols(&mut self, c: &Cond) -> Vec<String> {
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

    fn assume(&mut self, c: &Cond) {
        let f = match c {
            Cond::Eq(a, b) => fact(a.expr(), Rel::Eq, b.expr()),
            Cond::Le(a, b) => fact(a.expr(), Rel::Le, b.expr()),
            Cond::Div(k, p) => self.mod_fact(k, p),
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

    fn eval(&mut self, c: &Cond) -> Truth {
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

    fn normalise(&mut self, c: &Cond) -> Normal {
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

    fn kind(&mut self, c: &Cond) -> Kind {
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

/// The text of a condition, for reports.
fn render_cond(c: &Cond) -> String {
    match c {
        Cond::Eq(a, b) => {
            // A constant reads better on the right: `S == 1`.
            if a.is_integer() && !b.is_integer() {
                format!("{} == {}", b.render(), a.render())
            } else {
                format!("{} == {}", a.render(), b.render())
            }
        }
        Cond::Le(a, b) => {
            // A constant on the left reads better on the right: `S >= 240`.
            if a.is_integer() && !b.is_integer() {
                format!("{} >= {}", b.render(), a.render())
            } else {
                format!("{} <= {}", a.render(), b.render())
            }
        }
        Cond::Div(k, p) => {
            // `p % k == 0`, each side in parentheses unless it reads back whole.
            let p = if p.is_symbol() {
                p.render()
            } else {
                format!("({})", p.render())
            };
            let k = if k.is_factor() {
                k.render()
            } else {
                format!("({})", k.render())
            };
            format!("{p} % {k} == 0")
        }
        Cond::Or(cs) => cs.iter().map(render_cond).collect::<Vec<_>>().join(" or "),
        Cond::And(cs) => cs.iter().map(render_cond).collect::<Vec<_>>().join(" and "),
        Cond::False => "false".to_string(),
        Cond::Unknown => "unknown".to_string(),
    }
}

// ----- output ----------------------------------------------------------------

impl Contract {
    /// True when some condition can never hold.
    pub fn is_impossible(&self) -> bool {
        self.conditions.iter().any(|c| c.kind == Kind::Impossible)
    }

    /// The conditions that mention a symbol (for the report's symbols section).
    pub fn for_symbol(&self, name: &str) -> Vec<&Condition> {
        self.conditions
            .iter()
            .filter(|c| c.symbols.iter().any(|s| s == name))
            .collect()
    }

    /// The contract as JSON (one object, pretty-printed, with a final newline).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    /// The contract as text (see `docs/constraints.md`).
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "model: {}", self.model);
        let inputs: Vec<String> = self.inputs.iter().map(|n| render_symbol(n)).collect();
        let _ = writeln!(
            s,
            "inputs: {} (each >= 1)",
            if inputs.is_empty() {
                "none".to_string()
            } else {
                inputs.join(", ")
            }
        );
        if !self.facts.is_empty() {
            let _ = writeln!(s, "facts: {}", self.facts.join(", "));
        }
        if self.conditions.is_empty() {
            let _ = writeln!(s, "conditions: none (valid for every value of the inputs)");
        } else {
            let _ = writeln!(s, "conditions:");
            let w = self
                .conditions
                .iter()
                .map(|c| c.condition.len())
                .max()
                .unwrap_or(0)
                .min(60);
            for c in &self.conditions {
                let _ = writeln!(
                    s,
                    "  {:<11} {:<w$}  {}",
                    c.kind.name(),
                    c.condition,
                    where_from(c)
                );
                if let Some(n) = &c.note {
                    let _ = writeln!(s, "  {:<11} {:<w$}  ({n})", "", "");
                }
            }
        }
        if !self.redundant.is_empty() {
            let _ = writeln!(s, "redundant (implied by the above):");
            for c in &self.redundant {
                let _ = writeln!(
                    s,
                    "  {:<11} {}  {}",
                    c.kind.name(),
                    c.condition,
                    where_from(c)
                );
            }
        }
        s
    }
}

fn where_from(c: &Condition) -> String {
    const SHOWN: usize = 3;
    let mut nodes: Vec<String> = c.nodes.iter().take(SHOWN).cloned().collect();
    if c.nodes.len() > SHOWN {
        nodes.push(format!("and {} more", c.nodes.len() - SHOWN));
    }
    let at = if nodes.is_empty() {
        String::new()
    } else {
        format!(" at {}", nodes.join(", "))
    };
    format!("[{}{at}]", c.sources.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Halving the range in `drop_implied` keeps and drops what a scratch per
    /// condition, assuming every earlier condition and every later kept one, does:
    /// lists of bounds, divisibilities and inequalities over `S` and `T` (some
    /// undecidable, which are judged but never assumed), implied in every order.
    /// The bounds never contradict each other: from contradictory facts a scratch
    /// may prove anything or not, depending on the order they were assumed in,
    /// which halving changes.
    #[test]
    fn drop_implied_agrees_with_a_scratch_per_condition() {
        let sym = |n: &str| Side::Term(Expr::Sym(n.into()));
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        let mut dropped = 0;
        for _ in 0..1000 {
            let n = 1 + next(9) as usize;
            let all: Vec<Condition> = (0..n)
                .map(|_| {
                    let k = 1 + next(8) as i64;
                    let (kind, cond) = match next(5) {
                        0 => (Kind::Range, Cond::Le(Side::num(k), sym("S"))),
                        1 => (Kind::Range, Cond::Le(sym("S"), Side::num(40 + 4 * k))),
                        2 => (Kind::Divides, Cond::Div(Side::num(k), sym("S"))),
                        3 => (Kind::Inequality, Cond::Le(sym("T"), sym("S"))),
                        _ => (Kind::Undecidable, Cond::Le(Side::num(k), sym("T"))),
                    };
                    Condition {
                        kind,
                        condition: String::new(),
                        symbols: Vec::new(),
                        nodes: Vec::new(),
                        sources: Vec::new(),
                        note: None,
                        form: cond,
                    }
                })
                .collect();
            let mut want = vec![true; n];
            for i in (0..n).rev() {
                let mut s = Scratch::new(&[], None);
                for (j, c) in all.iter().enumerate() {
                    if j != i && want[j] && c.kind != Kind::Undecidable {
                        s.assume(&c.form);
                    }
                }
                if s.eval(&all[i].form) == Truth::True {
                    want[i] = false;
                }
            }
            let mut got = vec![true; n];
            drop_implied(&all, &mut got, 0..n, Scratch::new(&[], None));
            assert_eq!(
                got,
                want,
                "{:?}",
                all.iter().map(|c| render_cond(&c.form)).collect::<Vec<_>>()
            );
            dropped += want.iter().filter(|k| !**k).count();
        }
        assert!(
            dropped > 100,
            "the lists imply too little to test: {dropped} dropped"
        );
    }

    /// Every condition `render_cond` prints reads back (`docs/grammar.md`) as the
    /// same condition: `a == b` with the same sides (either way round), `a <= b` as
    /// itself or as `b >= a`, `p % k == 0` as `mod(p, k) == 0`, and `or`/`and` joins
    /// of those. The sides are names (plain and quoted), sums and products starting
    /// with a quoted name (`` (`a.1` + 1) % 4 == 0 ``, not `` `a.1` + 1 % 4 == 0 ``),
    /// constants, calls and kept quotients, as forms and as terms.
    #[test]
    fn printed_conditions_read_back_as_themselves() {
        use crate::algebra::parse::parse_expr;
        let mut alg = Algebra::default();
        let mut sides: Vec<Side> = Vec::new();
        for text in [
            "N",
            "`a.1`",
            "`a.1` + 1",
            "`a.1`*N",
            "2*N",
            "N - 1",
            "-N",
            "4",
            "0",
            "-3",
            "floordiv(N, 2)",
            "min(S, 4)",
            "N/(N + 1)",
        ] {
            let d = alg.parse(text).unwrap();
            sides.push(Side::Form(alg.canon(d).clone()));
        }
        for text in ["`a.1`", "`a.1` + 1", "2*N", "-3", "floordiv(N, 2)"] {
            sides.push(Side::Term(parse_expr(text).unwrap()));
        }
        let form = |alg: &mut Algebra, e: &Expr| {
            let d = alg.from_expr(e);
            alg.canon(d).clone()
        };
        // Whether `fact` states `c` (a single fact's condition).
        let states = |alg: &mut Algebra, c: &Cond, f: &Fact| -> bool {
            let (l, r) = (form(alg, &f.lhs), form(alg, &f.rhs));
            match c {
                Cond::Eq(a, b) => {
                    let (a, b) = (form(alg, &a.expr()), form(alg, &b.expr()));
                    f.rel == Rel::Eq && ((l == a && r == b) || (l == b && r == a))
                }
                Cond::Le(a, b) => {
                    let (a, b) = (form(alg, &a.expr()), form(alg, &b.expr()));
                    (f.rel == Rel::Le && l == a && r == b) || (f.rel == Rel::Ge && l == b && r == a)
                }
                Cond::Div(k, p) => match &f.lhs {
                    Expr::Call(OpKind::Mod, fp, fk) => {
                        let (k, p) = (form(alg, &k.expr()), form(alg, &p.expr()));
                        f.rel == Rel::Eq && r.is_zero() && form(alg, fp) == p && form(alg, fk) == k
                    }
                    _ => false,
                },
                _ => false,
            }
        };
        let mut checked = 0;
        for a in &sides {
            for b in &sides {
                let eq = Cond::Eq(a.clone(), b.clone());
                let le = Cond::Le(a.clone(), b.clone());
                let div = Cond::Div(a.clone(), b.clone());
                let or = Cond::Or(vec![div.clone(), eq.clone()]);
                let and = Cond::And(vec![le.clone(), div.clone()]);
                for c in [eq, le, div, or, and] {
                    let text = render_cond(&c);
                    let (parts, joined) = match &c {
                        Cond::Or(cs) => (cs.clone(), text.split(" or ").collect::<Vec<_>>()),
                        Cond::And(cs) => (cs.clone(), text.split(" and ").collect()),
                        c => (vec![c.clone()], vec![text.as_str()]),
                    };
                    assert_eq!(parts.len(), joined.len(), "`{text}`");
                    for (c, t) in parts.iter().zip(joined) {
                        let f = parse_fact(t).unwrap_or_else(|e| panic!("`{t}`: {e}"));
                        assert!(states(&mut alg, c, &f), "`{t}` reads back as `{f}`");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 1000, "{checked}");
    }

    #[test]
    fn solve_floordiv_bound() {
        let mut s = Scratch::new(&[], None);
        let f = crate::algebra::parse::parse_expr("floordiv(S - 192, 128) + 1").unwrap();
        let c = Cond::Le(Side::num(0), Side::Term(f));
        match s.normalise(&c) {
            Normal::Cond(k, n) => {
                assert_eq!((k, render_cond(&n)), (Kind::Range, "S >= 64".to_string()))
            }
            _ => panic!("not a condition"),
        }
    }
}
