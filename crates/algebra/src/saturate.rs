//! Saturation: applying the rule table ([`crate::rules`]) to the classes that are
//! new or changed, and restoring the e-graph's invariants after unions, within the
//! rule-application limit ([`crate::Limits`]).

use crate::analysis::DimGraph;
use crate::{rules, Algebra, AlgebraWarning, DimExpr};
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
    /// changes or the rule-application limit is reached.
    pub(crate) fn saturate(&mut self) {
        if self.egraph.analysis.pending_rules.is_empty() {
            return;
        }
        let limit = self.config.limits.rule_applications;
        let mut applied = 0usize;
        let mut seen_limit = false;
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
                    let changed = rule.apply(&mut self.egraph, id, &matches);
                    self.sync();
                    applied += 1;
                    id = self.egraph.find(id);
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
            self.deferred = true;
            return;
        }
        self.resaturate_now();
    }

    /// Run the rebuild and resaturation owed to the facts of an open batch
    /// ([`Algebra::begin_facts`]) now, if any: before building or querying
    /// expressions inside a batch.
    pub fn settle_facts(&mut self) {
        if self.deferred {
            self.deferred = false;
            rebuild(&mut self.egraph);
            self.resaturate_now();
        }
    }

    /// [`Algebra::resaturate_all`], now.
    fn resaturate_now(&mut self) {
        let ids: Vec<Id> = self.egraph.classes().map(|c| c.id).collect();
        self.egraph
            .analysis
            .pending_rules
            .extend(ids.into_iter().rev());
        self.saturate();
    }
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
