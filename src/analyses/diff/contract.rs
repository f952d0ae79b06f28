//! The contracts of two versions compared: conditions added and removed (each
//! judged by implication in a scratch algebra), each input symbol's range, and the
//! witnesses that prove a narrowing or a widening.
//!
//! A **witness** is a value of the input symbols, checked by evaluating every
//! condition of both contracts at it: a narrowing witness is valid for OLD (every
//! OLD condition holds there) and invalid for NEW (some NEW condition fails there);
//! a widening witness the other way round. Candidates are the OLD and NEW range
//! ends, one past them, and the profile values, one symbol varied at a time from a
//! base point (every symbol at OLD's opt value). Only a witness makes a change
//! narrowed (and breaking) or widened; a difference no candidate shows is
//! `changed`.

use super::symbols::Mapping;
use crate::algebra::{Fact, Poly, SymbolValues, Truth};
use crate::context::ShapesContext;
use crate::contracts::compare::Premises;
use crate::contracts::ranges::{Ranges, SymbolRange};
use crate::contracts::{Condition, Contract, Kind};
use egg::Symbol;
use indexmap::IndexMap;

/// How many candidate values each symbol gets (from the range ends and profile
/// values of both versions), at most.
pub const MAX_CANDIDATES: usize = 12;

/// The two contracts, NEW's in OLD's names, and the points to test them at.
pub(super) struct Contracts {
    pub old: Vec<Condition>,
    /// NEW's conditions in OLD's names, each with its NEW text.
    pub new: Vec<(Condition, Condition)>,
    /// The input symbols (OLD's names), each with its candidate values.
    pub candidates: IndexMap<String, Vec<i64>>,
    /// Every symbol at OLD's opt value (NEW's when only NEW has it, else 1).
    pub base: SymbolValues,
}

impl Contracts {
    pub fn new(
        old: &Contract,
        new: &Contract,
        old_ranges: &Ranges,
        new_ranges: &Ranges,
        m: &Mapping,
    ) -> Contracts {
        let subst = |s: &str| m.lookup(s, true);
        let renamed = new
            .conditions
            .iter()
            .map(|c| (c.renamed(&subst), c.clone()))
            .collect();
        let mut candidates: IndexMap<String, Vec<i64>> = IndexMap::new();
        let mut base = SymbolValues::new();
        let mut add = |name: &str, r: &SymbolRange, base_value: bool| {
            let vals = candidates.entry(name.to_string()).or_default();
            let mut push = |v: Option<i64>| {
                if let Some(v) = v.filter(|v| *v >= 1) {
                    if !vals.contains(&v) && vals.len() < MAX_CANDIDATES {
                        vals.push(v);
                    }
                }
            };
            // The ends first: a witness there says the most.
            push(r.max);
            push(r.hi.map(|h| h + 1));
            push(r.min);
            push(Some(r.lo - 1));
            push(r.hi);
            push(Some(r.lo));
            push(r.opt);
            if base_value && base.get(name).is_none() {
                base.set(name, r.opt.or(r.min).unwrap_or(r.lo.max(1)));
            }
        };
        for r in &old_ranges.symbols {
            for name in std::iter::once(&r.name).chain(&r.linked) {
                add(name, r, true);
            }
        }
        for r in &new_ranges.symbols {
            for name in std::iter::once(&r.name).chain(&r.linked) {
                if m.generalised.contains_key(name) {
                    continue;
                }
                let own = m
                    .lookup(name, false)
                    .and_then(|p| p.as_sym().map(|s| s.as_str().to_string()))
                    .unwrap_or_else(|| name.clone());
                add(&own, r, true);
            }
        }
        Contracts {
            old: old.conditions.clone(),
            new: renamed,
            candidates,
            base,
        }
    }

    /// Every point tried: each symbol at each of its candidates (the others at
    /// the base), then the base.
    pub fn points(&self) -> Vec<SymbolValues> {
        let mut out = Vec::new();
        for (name, vals) in &self.candidates {
            for v in vals {
                if self.base.get(name) == Some(*v) {
                    continue;
                }
                let mut p = self.base.clone();
                p.set(name, *v);
                out.push(p);
            }
        }
        out.push(self.base.clone());
        out
    }

    /// Is `p` valid for OLD: every OLD condition on input symbols holds there?
    pub fn valid_old(&self, p: &SymbolValues) -> bool {
        valid(self.old.iter(), p)
    }

    /// Is `p` valid for NEW (in OLD's names)?
    pub fn valid_new(&self, p: &SymbolValues) -> bool {
        valid(self.new.iter().map(|(c, _)| c), p)
    }

    /// Is `p` proven invalid for NEW: some NEW condition fails there?
    pub fn invalid_new(&self, p: &SymbolValues) -> bool {
        self.new.iter().any(|(c, _)| c.holds_at(p) == Truth::False)
    }

    /// Is `p` proven invalid for OLD?
    pub fn invalid_old(&self, p: &SymbolValues) -> bool {
        self.old.iter().any(|c| c.holds_at(p) == Truth::False)
    }
}

/// Every condition that a dim value decides holds at `p` (undecidable ones on a
/// data-dependent dim, and `unknown`, are left out: no value of the inputs decides
/// them, as `symdim ranges` lists them as caveats).
fn valid<'c>(mut conds: impl Iterator<Item = &'c Condition>, p: &SymbolValues) -> bool {
    conds.all(|c| {
        let open = c.kind == Kind::Undecidable
            && (c.symbols.is_empty() || c.symbols.iter().any(|s| p.get(s).is_none()));
        open || c.holds_at(p) == Truth::True
    })
}

/// One condition added or removed, with what it does to the valid values.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ConditionChange {
    /// Its kind (`range`, `equal`, ...; `docs/constraints.md`).
    pub kind: &'static str,
    /// The condition in its own version's names.
    pub condition: String,
    /// The nodes it comes from in its version.
    pub nodes: Vec<String>,
    /// Where it comes from (`gather`, `reshape`, ...).
    pub sources: Vec<String>,
    /// `narrows` (an added condition some value valid before breaks), `widens` (a
    /// removed one some value valid now breaks), or `changed` (neither shown).
    pub effect: &'static str,
    /// The value that shows it, `S = 1024`; absent for `changed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub witness: Option<String>,
}

/// A condition of OLD and one of NEW on the same symbols, of the same kind and
/// sources: the same check, moved.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ChangedCondition {
    /// OLD's condition.
    pub old: String,
    /// NEW's condition (in NEW's names).
    pub new: String,
    /// OLD's nodes.
    pub old_nodes: Vec<String>,
    /// NEW's nodes.
    pub new_nodes: Vec<String>,
    /// `narrows` (the NEW one narrows and the OLD one's removal widens nothing
    /// shown), `widens` (the other way round), or `changed`.
    pub effect: &'static str,
    /// The value that shows the effect.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub witness: Option<String>,
}

/// The conditions of the two contracts that the other does not imply.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ConditionsDiff {
    /// NEW's conditions OLD's do not imply.
    pub added: Vec<ConditionChange>,
    /// OLD's conditions NEW's do not imply.
    pub removed: Vec<ConditionChange>,
    /// Pairs of a condition of OLD and one of NEW of the same kind, symbols and
    /// sources, one of them added or removed (listed there too): the same check,
    /// changed (`S <= 1024` became `S <= 512`).
    pub changed: Vec<ChangedCondition>,
}

/// Compare the conditions: implication both ways, then a witness for each one not
/// implied. `facts` are the caller's (in OLD's names).
pub(super) fn conditions(
    c: &Contracts,
    facts: &[Fact],
    old_ctx: &ShapesContext,
    points: &[SymbolValues],
) -> ConditionsDiff {
    let src = Some(&old_ctx.alg);
    let new_conds: Vec<Condition> = c.new.iter().map(|(r, _)| r.clone()).collect();
    let mut by_old = Premises::new(&c.old, facts, src);
    let mut by_new = Premises::new(&new_conds, facts, src);
    let same_text = |a: &Condition, b: &Condition| a.kind == b.kind && a.condition == b.condition;
    let mut out = ConditionsDiff::default();
    let mut added_idx = Vec::new();
    for (i, (renamed, own)) in c.new.iter().enumerate() {
        if c.old.iter().any(|o| same_text(o, renamed)) || by_old.implies(renamed) == Truth::True {
            continue;
        }
        let witness = points
            .iter()
            .find(|p| c.valid_old(p) && renamed.holds_at(p) == Truth::False);
        added_idx.push(i);
        out.added.push(change(own, witness, "narrows"));
    }
    let mut removed_idx = Vec::new();
    for (i, o) in c.old.iter().enumerate() {
        if new_conds.iter().any(|n| same_text(o, n)) || by_new.implies(o) == Truth::True {
            continue;
        }
        let witness = points
            .iter()
            .find(|p| c.valid_new(p) && o.holds_at(p) == Truth::False);
        removed_idx.push(i);
        out.removed.push(change(o, witness, "widens"));
    }
    // Pair a condition of OLD with one of NEW checking the same thing (same
    // kind, symbols and sources) where one of them is added or removed.
    let mut used = Vec::new();
    for (i, (renamed, own)) in c.new.iter().enumerate() {
        let added = added_idx.iter().position(|&k| k == i);
        let Some(j) = (0..c.old.len()).find(|&j| {
            let o = &c.old[j];
            !used.contains(&j)
                && !same_text(o, renamed)
                && o.kind == renamed.kind
                && o.symbols == renamed.symbols
                && o.sources == renamed.sources
                && (added.is_some() || removed_idx.contains(&j))
        }) else {
            continue;
        };
        used.push(j);
        let removed = removed_idx.iter().position(|&k| k == j);
        let narrows = added.is_some_and(|a| out.added[a].effect == "narrows");
        let widens = removed.is_some_and(|r| out.removed[r].effect == "widens");
        let o = &c.old[j];
        let (effect, witness) = match (narrows, widens) {
            (true, false) => ("narrows", added.and_then(|a| out.added[a].witness.clone())),
            (false, true) => (
                "widens",
                removed.and_then(|r| out.removed[r].witness.clone()),
            ),
            _ => ("changed", None),
        };
        out.changed.push(ChangedCondition {
            old: o.condition.clone(),
            new: own.condition.clone(),
            old_nodes: o.nodes.clone(),
            new_nodes: own.nodes.clone(),
            effect,
            witness,
        });
    }
    out
}

fn change(c: &Condition, witness: Option<&SymbolValues>, effect: &'static str) -> ConditionChange {
    ConditionChange {
        kind: c.kind.name(),
        condition: c.condition.clone(),
        nodes: c.nodes.clone(),
        sources: c.sources.clone(),
        effect: if witness.is_some() { effect } else { "changed" },
        witness: witness.map(|p| point_text(p, &c.symbols)),
    }
}

/// `S = 1024, B = 1`: the values of `symbols` at `p`.
pub(super) fn point_text(p: &SymbolValues, symbols: &[String]) -> String {
    symbols
        .iter()
        .filter_map(|s| {
            p.get(s)
                .map(|v| format!("{} = {v}", crate::algebra::poly::render_symbol(s)))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// One input symbol whose valid values differ between the versions.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RangeChange {
    /// The symbol in OLD.
    pub symbol: String,
    /// The symbol it is in NEW.
    pub new_symbol: String,
    /// OLD's valid values, `1..1024` (an open end left empty), with its step.
    pub old: String,
    /// NEW's.
    pub new: String,
    /// `narrowed` (a value valid in OLD is not in NEW), `widened` (the other way
    /// round), or `changed` (the ranges differ and no value shows either, or values
    /// show both: then it is breaking too).
    pub change: &'static str,
    /// True when a value valid in OLD is shown invalid in NEW.
    pub breaking: bool,
    /// The value that shows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub witness: Option<String>,
}

/// The range of each OLD input symbol against its NEW one.
pub(super) fn ranges(c: &Contracts, old: &Ranges, new: &Ranges, m: &Mapping) -> Vec<RangeChange> {
    let mut out = Vec::new();
    for (os, ns) in &m.shown {
        let (Some(ro), Some(rn)) = (find(old, os), find(new, ns)) else {
            continue;
        };
        if (ro.lo, ro.hi, &ro.step) == (rn.lo, rn.hi, &rn.step) {
            continue;
        }
        let vary = |v: i64| {
            let mut p = c.base.clone();
            p.set(os, v);
            p
        };
        let vals = c.candidates.get(os).cloned().unwrap_or_default();
        let narrow = vals
            .iter()
            .map(|v| vary(*v))
            .find(|p| c.valid_old(p) && c.invalid_new(p));
        let widen = vals
            .iter()
            .map(|v| vary(*v))
            .find(|p| c.valid_new(p) && c.invalid_old(p));
        let sym = [os.clone()];
        let (change, witness) = match (&narrow, &widen) {
            (Some(p), None) => ("narrowed", Some(point_text(p, &sym))),
            (None, Some(p)) => ("widened", Some(point_text(p, &sym))),
            (Some(p), Some(q)) => (
                "changed",
                Some(format!(
                    "{} (valid only in OLD), {} (valid only in NEW)",
                    point_text(p, &sym),
                    point_text(q, &sym)
                )),
            ),
            (None, None) => ("changed", None),
        };
        out.push(RangeChange {
            symbol: os.clone(),
            new_symbol: ns.clone(),
            old: range_text(ro),
            new: range_text(rn),
            change,
            breaking: narrow.is_some(),
            witness,
        });
    }
    out
}

fn find<'r>(r: &'r Ranges, name: &str) -> Option<&'r SymbolRange> {
    r.symbols
        .iter()
        .find(|s| s.name == name || s.linked.iter().any(|l| l == name))
}

/// `1..1024`, `8.. step 8`, `1..703 % 4 in {0, 1}`.
fn range_text(r: &SymbolRange) -> String {
    let hi = r.hi.map(|h| h.to_string()).unwrap_or_default();
    let mut s = format!("{}..{hi}", r.lo);
    if let Some(step) = &r.step {
        if step.residues == [0] {
            s.push_str(&format!(" step {}", step.modulus));
        } else {
            let rs: Vec<String> = step.residues.iter().map(|v| v.to_string()).collect();
            s.push_str(&format!(" % {} in {{{}}}", step.modulus, rs.join(", ")));
        }
    }
    s
}

/// The value of `p` (a form in OLD's names) at `point`; `None` when a symbol has
/// none there or it is not an integer.
pub(super) fn eval(p: &Poly, point: &SymbolValues) -> Option<i64> {
    p.evaluate(&|s: Symbol| point.get(s.as_str()).map(crate::algebra::Rat::int))
        .ok()
        .and_then(|r| r.to_i64())
}
