//! The ledger: what inference recorded for reports and contracts rather than
//! merged (relations, requirements), the warnings of the limits, and the speculative
//! scope of a branch that may not run.

use crate::{Algebra, AlgebraError, AlgebraWarning, Dim, DimExpr, Truth};

/// A relation recorded between dims (for example `12*r0 == 48*A` for a fresh `-1`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relation {
    /// Left side.
    pub lhs: Dim,
    /// Right side.
    pub rhs: Dim,
    /// The node that needs it.
    pub node: String,
    /// Recorded inside a branch that may not run (a speculative scope): it holds
    /// only when the branch runs.
    pub conditional: bool,
    /// The two sides' canonical forms when it was recorded (later merges may make
    /// the dims themselves render alike).
    pub recorded: (DimExpr, DimExpr),
}

/// An inequality an op needs, `lhs <= rhs` (for example a reflect Pad's `pad <= dim - 1`),
/// recorded while inferring so that contracts see it even inside subgraphs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirement {
    /// The smaller side.
    pub lhs: Dim,
    /// The larger side.
    pub rhs: Dim,
    /// The node that needs it.
    pub node: String,
    /// Recorded inside a branch that may not run (a speculative scope).
    pub conditional: bool,
    /// What kind of condition it is, for reports (`pad`).
    pub kind: &'static str,
    /// The two sides' canonical forms when it was recorded.
    pub recorded: (DimExpr, DimExpr),
}

impl Algebra {
    /// Warnings (saturation limits), in order.
    pub fn warnings(&self) -> &[AlgebraWarning] {
        &self.warnings
    }

    /// The first warning past the first `since` ([`Algebra::warnings`]) that put a
    /// placeholder in place of an expression ([`AlgebraWarning::placeholder`]), as
    /// an error: what a scratch algebra built after its first `since` warnings
    /// cannot be answered from.
    pub fn placeholder_since(&self, since: usize) -> Result<(), AlgebraError> {
        match self
            .warnings
            .iter()
            .skip(since)
            .find(|w| w.placeholder().is_some())
        {
            Some(w) => Err(AlgebraError::TooLarge { warning: w.clone() }),
            None => Ok(()),
        }
    }

    /// Relations recorded by [`Algebra::solve_minus_one`] and by inference (equalities
    /// that hold only when a branch runs, an `If` condition a case split keeps).
    pub fn relations(&self) -> &[Relation] {
        &self.relations
    }

    /// Inequalities the model needs (`lhs <= rhs` at a node), recorded by op rules
    /// for contracts.
    pub fn requirements(&self) -> &[Requirement] {
        &self.requirements
    }

    /// Record that the model needs `lhs <= rhs` at `node` (for contracts). Inside a
    /// speculative scope it is marked conditional. Nothing is assumed.
    pub fn record_requirement(&mut self, lhs: Dim, rhs: Dim, node: &str, kind: &'static str) {
        let recorded = (self.expr(lhs), self.expr(rhs));
        self.requirements.push(Requirement {
            lhs,
            rhs,
            node: node.to_string(),
            conditional: self.speculative > 0,
            kind,
            recorded,
        });
    }

    /// Require `a == b` of a valid model at `node`: the relation is recorded for
    /// reports and contracts, and the dims are merged from then on. Inside a
    /// speculative scope the relation is recorded once, conditional, and nothing is
    /// merged ([`Algebra::union`] does that). A provable contradiction is returned
    /// and nothing is recorded. The one way an op requires an equality; callers
    /// decide first ([`Algebra::equal`]) so that a proven one records nothing.
    pub fn require_equal(&mut self, a: Dim, b: Dim, node: &str) -> Result<Dim, AlgebraError> {
        let merged = self.union(a, b, node)?;
        if self.speculative == 0 {
            self.record_relation(a, b, node);
        }
        Ok(merged)
    }

    /// Require `b` to divide `a` exactly, as a valid model needs at `node`: the
    /// quotient, and whether it was assumed. Proven exact gives the quotient; proven
    /// not exact is the error of [`Algebra::div`]; otherwise `mod(a, b) == 0` is
    /// required ([`Algebra::require_equal`]; once: an earlier requirement or `assume`
    /// makes it proven) and the rational quotient `a / b` is the answer.
    pub fn require_divides(
        &mut self,
        a: Dim,
        b: Dim,
        node: &str,
    ) -> Result<(Dim, bool), AlgebraError> {
        match self.div(a, b) {
            Ok(q) => Ok((q, false)),
            Err(AlgebraError::NotDivisible { proven: false, .. }) => {
                let q = self.div_rational(a, b);
                let m = self.modulo(a, b);
                let zero = self.constant(0);
                if self.equal(m, zero) == Truth::True {
                    return Ok((q, false));
                }
                self.require_equal(m, zero, node)?;
                Ok((q, true))
            }
            Err(e) => Err(e),
        }
    }

    /// Record a relation the model needs (for reports and contracts). Inside a
    /// speculative scope it is marked conditional: it holds only when the branch
    /// runs.
    pub fn record_relation(&mut self, lhs: Dim, rhs: Dim, node: &str) {
        let recorded = (self.expr(lhs), self.expr(rhs));
        self.relations.push(Relation {
            lhs,
            rhs,
            node: node.to_string(),
            conditional: self.speculative > 0,
            recorded,
        });
    }

    /// Enter (`true`) or leave (`false`) a speculative scope, such as the branch of an
    /// If whose condition is not decided: there, [`Algebra::union`] records the
    /// equality as a relation instead of merging, because it holds only when the
    /// branch runs. Scopes nest.
    pub fn speculate(&mut self, on: bool) {
        if on {
            self.speculative += 1;
        } else {
            self.speculative = self.speculative.saturating_sub(1);
        }
    }

    /// Name the node whose rule runs now: a relation that [`Algebra::union`] records
    /// inside a speculative scope names it (instead of the union's reason). Returns
    /// the previous name, for the caller to restore (rules nest through subgraphs).
    /// The name is read only inside a speculative scope: the driver names each node
    /// there, and a rule that opens a scope names its own node before it does.
    pub fn set_site(&mut self, node: &str) -> String {
        std::mem::replace(&mut self.site, node.to_string())
    }

    /// True inside a speculative scope: while inference runs a branch that may not
    /// run, where an equality is recorded as a relation instead of merged.
    pub fn is_speculative(&self) -> bool {
        self.speculative > 0
    }
}
