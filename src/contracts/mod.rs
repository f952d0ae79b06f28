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
mod collect;
pub mod compare;
pub mod explain;
mod normalise;
pub mod ranges;
mod render;

use normalise::{Normal, Scratch};
use render::render_cond;

use crate::algebra::parse::parse_fact;
use crate::algebra::poly::render_symbol;
use crate::algebra::{Algebra, Expr, Fact, OpKind, Poly, Rat, Rel, SymbolKind, Truth};
use crate::context::facts::{check_fact_count, Facts};
use crate::context::ShapesContext;
use crate::graph::Model;
use indexmap::IndexMap;
use serde::Serialize;

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

impl Cond {
    /// The condition with each side replaced by `f` of it, its structure kept.
    fn map_sides(&self, f: &dyn Fn(&Side) -> Side) -> Cond {
        match self {
            Cond::Eq(a, b) => Cond::Eq(f(a), f(b)),
            Cond::Div(a, b) => Cond::Div(f(a), f(b)),
            Cond::Le(a, b) => Cond::Le(f(a), f(b)),
            Cond::Or(cs) => Cond::Or(cs.iter().map(|c| c.map_sides(f)).collect()),
            Cond::And(cs) => Cond::And(cs.iter().map(|c| c.map_sides(f)).collect()),
            Cond::False => Cond::False,
            Cond::Unknown => Cond::Unknown,
        }
    }
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
    let base = base_facts(alg, options);
    let cands = collect::candidates(model, ctx);
    // Normalise in one scratch algebra holding the base facts.
    let mut scratch = Scratch::new(&base, Some(alg));
    let flat = normalised(&mut scratch, &cands);
    let all = merged(model, &mut scratch, flat);
    let (conditions, redundant) = split_redundant(all, Scratch::new(&base, Some(alg)));
    Contract {
        model: model.path.clone(),
        inputs: alg
            .symbols()
            .filter(|(_, e)| e.kind == SymbolKind::Input)
            .map(|(n, _)| n.to_string())
            .collect(),
        facts: fact_texts(options),
        conditions,
        redundant,
    }
}

/// The caller's facts as the report prints them: each bind as `name == value`,
/// then each assume as given.
fn fact_texts(options: &Facts) -> Vec<String> {
    let mut facts: Vec<String> = options
        .binds
        .iter()
        .map(|(n, v)| format!("{} == {v}", render_symbol(n)))
        .collect();
    facts.extend(options.assumes.iter().cloned());
    facts
}

/// What every condition is judged under: the caller's facts ([`fact_values`]) and
/// the bounds and divisors of the input symbols (declared intervals, `--assume` on
/// one symbol).
fn base_facts(alg: &Algebra, options: &Facts) -> Vec<Fact> {
    let mut base = fact_values(options);
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
    base
}

/// A candidate's condition normalised: its kind, its form, its note.
type Normalised<'c> = (Kind, Cond, Option<String>, &'c Candidate);

/// Every candidate normalised in `scratch`, in order: one that holds is dropped, a
/// conjunction of decidable parts is split into its parts.
fn normalised<'c>(scratch: &mut Scratch<'_>, cands: &'c [Candidate]) -> Vec<Normalised<'c>> {
    let mut flat: Vec<Normalised<'c>> = Vec::new();
    for c in cands {
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
    flat
}

/// The normalised conditions merged by kind and text, each naming every node and
/// source it came from (nodes in graph order), sorted by kind.
fn merged(model: &Model, scratch: &mut Scratch<'_>, flat: Vec<Normalised<'_>>) -> Vec<Condition> {
    let mut merged: IndexMap<(Kind, String), Condition> = IndexMap::new();
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
    all
}

/// The conditions the others do not imply, and those they do. From the last to the
/// first, what the others imply is dropped ([`drop_implied`], in `base`, a scratch
/// holding the base facts). An undecidable condition may hold only when a branch
/// runs, so it implies nothing, but one the others imply is dropped too.
fn split_redundant(all: Vec<Condition>, base: Scratch<'_>) -> (Vec<Condition>, Vec<Condition>) {
    let mut keep = vec![true; all.len()];
    drop_implied(&all, &mut keep, 0..all.len(), base);
    let mut conditions = Vec::new();
    let mut redundant = Vec::new();
    for (c, k) in all.into_iter().zip(keep) {
        if k {
            conditions.push(c);
        } else {
            redundant.push(c);
        }
    }
    (conditions, redundant)
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
            upper.assume_all(
                (range.start..mid)
                    .filter(|&j| assumed(j))
                    .map(|j| &all[j].form),
            );
            drop_implied(all, keep, mid..range.end, upper);
            outside.assume_all(
                (mid..range.end)
                    .filter(|&j| keep[j] && assumed(j))
                    .map(|j| &all[j].form),
            );
            drop_implied(all, keep, range.start..mid, outside);
        }
    }
}

/// The facts of `options` as values: each bind as `name == value`, each assume
/// parsed (one that does not parse is left out, as assuming its text would fail).
pub fn fact_values(options: &Facts) -> Vec<Fact> {
    // More than the limit are left out, as inference leaves them out.
    if check_fact_count(options.binds.len(), options.assumes.len()).is_err() {
        return Vec::new();
    }
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
