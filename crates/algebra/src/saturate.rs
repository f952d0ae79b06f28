//! Saturation: applying the rule table ([`crate::rules`]) to the classes that are
//! new or changed, and restoring the e-graph's invariants after unions, within the
//! rule-application limit ([`crate::Limits`]).

use crate::analysis::DimGraph;
use crate::{rules, Algebra, AlgebraWarning, DimExpr, DimLang};
use egg::Id;

impl Algebra {
    /// Restore the e-graph's invariants when a union is pending. egg's `rebuild`
    /// visits every class, so calling it after every `add` would make building a
    /// model's dims quadratic; an `add` that merged nothing needs no rebuild (egg adds
    /// canonical e-nodes, and rule matching, [`rules::Matcher`], reads classes
    /// directly rather than through the by-operator index `rebuild` maintains).
    pub(crate) fn sync(&mut self) {
        if self.egraph.analysis.dirty {
            self.egraph.analysis.dirty = false;
            rebuild(&mut self.egraph);
        }
    }

    /// Apply the rule table to the classes that are new or changed, until nothing
    /// changes or the rule-application limit is reached. Each match a rule's check
    /// runs on counts as one application: a class that unions have made hold many
    /// e-nodes has as many matches per rule, and each match may add a class and sort
    /// the class's e-nodes, so counting a rule's whole match list as one application
    /// let one saturation's work grow with the class's size (quadratically: a
    /// `tests/fixtures/fuzz/algebra_ops_cyclic_floordiv_growth.bin` union took 1.3 s).
    pub(crate) fn saturate(&mut self) {
        if self.egraph.analysis.pending_rules.is_empty() {
            return;
        }
        let limit = self.config.limits.rule_applications;
        let mut applied = 0usize;
        let mut seen_limit = false;
        // The last `applied / INTERRUPT_EVERY` at which the interrupt was polled.
        let mut polled = usize::MAX;
        // Built on the first saturation of the process (many models need none).
        let rules = rules::matchers();
        while let Some(id) = self.egraph.analysis.pending_rules.pop() {
            let mut id = self.egraph.find(id);
            let mut again = true;
            while again {
                again = false;
                for rule in rules {
                    let matches = rule.search(&self.egraph, id);
                    if matches.is_empty() {
                        continue;
                    }
                    if applied >= limit {
                        seen_limit = true;
                        break;
                    }
                    if applied / crate::INTERRUPT_EVERY != polled {
                        polled = applied / crate::INTERRUPT_EVERY;
                        if self.interrupted() {
                            self.egraph.analysis.pending_rules.clear();
                            return;
                        }
                    }
                    let budget = &matches[..matches.len().min(limit - applied)];
                    let changed = rule.apply(&mut self.egraph, id, budget);
                    self.sync();
                    applied += budget.len();
                    id = self.egraph.find(id);
                    if budget.len() < matches.len() {
                        seen_limit = true;
                        break;
                    }
                    if changed {
                        again = true;
                        break;
                    }
                }
            }
            if let Some(form) = self.egraph.analysis.refused_growth.take() {
                let w = AlgebraWarning::GrowthLimit {
                    expr: DimExpr::from_poly(form),
                };
                if !self.warnings.contains(&w) {
                    self.warnings.push(w);
                }
            }
            if seen_limit {
                let expr = DimExpr::from_poly(self.egraph[id].data.canon.clone());
                self.warnings
                    .push(AlgebraWarning::RuleLimit { limit, expr });
                self.egraph.analysis.pending_rules.clear();
                break;
            }
        }
    }

    /// Re-run the rules on every operator class (after facts change what the
    /// conditions can prove). Inside a batch of facts ([`Algebra::begin_facts`]) it
    /// is only owed, and runs once when the batch ends or a fact needs it.
    pub(crate) fn resaturate_all(&mut self) {
        if self.batch > 0 {
            self.owed_saturation = true;
            return;
        }
        self.resaturate_now();
    }

    /// Run the rebuild and resaturation owed to the facts of an open batch
    /// ([`Algebra::begin_facts`]) now, if any: before building or querying
    /// expressions inside a batch.
    pub fn settle_facts(&mut self) {
        if self.owed_rebuild {
            self.owed_rebuild = false;
            rebuild(&mut self.egraph);
        }
        if self.owed_saturation {
            self.owed_saturation = false;
            self.resaturate_now();
        }
    }

    /// Whether the open batch owes a rebuild or a resaturation.
    pub(crate) fn owes(&self) -> bool {
        self.owed_rebuild || self.owed_saturation
    }

    /// [`Algebra::resaturate_all`], now. Only classes holding an operator the rules
    /// act on are queued: every rule's pattern has one at its root
    /// ([`DimLang::has_rules`]), so another class matches none.
    fn resaturate_now(&mut self) {
        let ids: Vec<Id> = self
            .egraph
            .classes()
            .filter(|c| c.nodes.iter().any(DimLang::has_rules))
            .map(|c| c.id)
            .collect();
        self.egraph
            .analysis
            .pending_rules
            .extend(ids.into_iter().rev());
        self.saturate();
    }

    /// Union the classes of `a` and `b` and restore the e-graph's invariants: a
    /// rebuild, unless the union is local ([`union_is_local`]), when sorting the
    /// kept class's e-nodes is all a rebuild would do.
    pub(crate) fn merge_classes(&mut self, a: Id, b: Id, reason: &str) {
        if union_is_local(&self.egraph, a, b) {
            self.egraph.union_trusted(a, b, reason);
            sort_class(&mut self.egraph, a);
            // A canonical-form union the merge made that is not local.
            self.sync();
        } else {
            self.egraph.union_trusted(a, b, reason);
            rebuild(&mut self.egraph);
        }
    }
}

/// Whether `union_trusted(a, b)` leaves egg's rebuild nothing to do but sort the
/// e-nodes of the class it keeps ([`sort_class`]), so that the rebuild, which visits
/// every class, can be skipped. egg keeps the class with more parents (the first on
/// a tie) and queues for a rebuild the parents of the class it removes (congruence)
/// and of each side whose data the merge changes (the analysis). The union is local
/// when the removed class has no parents (no e-node names it, so every e-node stays
/// canonical) and the kept class has none either or keeps its data (predicted with
/// [`crate::analysis::DimAnalysis::merge_data`], as egg's merge computes it).
/// A union of one class with itself is local.
pub(crate) fn union_is_local(egraph: &DimGraph, a: Id, b: Id) -> bool {
    let (a, b) = (egraph.find(a), egraph.find(b));
    if a == b {
        return true;
    }
    let parents = |id: Id| egraph[id].parents().len();
    let (keep, gone) = if parents(a) < parents(b) {
        (b, a)
    } else {
        (a, b)
    };
    if parents(gone) > 0 {
        return false;
    }
    if parents(keep) == 0 {
        return true;
    }
    let mut data = egraph[keep].data.clone();
    let did = egraph
        .analysis
        .merge_data(&mut data, egraph[gone].data.clone(), &mut Vec::new());
    !did.0
}

/// Sort and dedup the e-nodes of the class of `id`, as a rebuild does (rule
/// matching, [`rules::Matcher`], expects a class's e-nodes in that order).
pub(crate) fn sort_class(egraph: &mut DimGraph, id: Id) {
    let id = egraph.find(id);
    let nodes = &mut egraph[id].nodes;
    nodes.sort_unstable();
    nodes.dedup();
}

/// Rebuild the e-graph (restore congruence after unions).
///
/// egg times every rebuild with `quanta`, only to log it. The first read of quanta's
/// global clock calibrates the TSC, which spins for milliseconds; a mock clock, installed
/// for the rebuild on this thread only, spares that. No result depends on the time.
pub(crate) fn rebuild(egraph: &mut DimGraph) -> usize {
    thread_local! {
        static CLOCK: quanta::Clock = quanta::Clock::mock().0;
    }
    CLOCK.with(|clock| quanta::with_clock(clock, || egraph.rebuild()))
}
