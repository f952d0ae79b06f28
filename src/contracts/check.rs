//! `symdim check`: is a model valid for given values of its input dims?
//!
//! Nothing is executed. Two inferences run: one with only the `--assume` facts, whose
//! contract ([`crate::contracts`]) lists the conditions every node needs, and one with
//! the `--bind` values too, whose error diagnostics name the nodes that fail. Each
//! condition of the contract is then decided under the values:
//!
//! | verdict | when | exit status |
//! | --- | --- | --- |
//! | `valid` | every condition is proven and no node fails | 0 |
//! | `invalid` | a condition is refuted, or a node fails with the values | 1 |
//! | `undecided` | nothing fails, but some condition is neither proven nor refuted (a symbol left unbound) | 3 |
//!
//! Conditions that no dim value decides (data-dependent dims, ops without a shape
//! rule) are listed as caveats and do not change the verdict.

use crate::algebra::poly::render_symbol;
use crate::algebra::Truth;
use crate::context::facts::Facts;
use crate::context::{Diagnostic, Severity};
use crate::contracts::{derive, fact_values, Condition, Kind};
use crate::graph::Model;
use crate::infer::infer_context;
use serde::Serialize;
use std::fmt::Write as _;

/// The verdict of `symdim check`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Every condition holds and no node fails.
    Valid,
    /// A condition fails, or a node fails.
    Invalid,
    /// Nothing fails, but some condition depends on an unbound symbol.
    Undecided,
}

/// Why the model fails at one node.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Failure {
    /// The node (empty for model-level failures).
    pub node: String,
    /// Its op type, when known.
    pub op: String,
    /// The condition that does not hold, or the error message.
    pub reason: String,
}

/// The result of `symdim check`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Verdict {
    /// The model's path.
    pub model: String,
    /// The values and facts checked (`N == 4`).
    pub facts: Vec<String>,
    /// The verdict.
    pub status: Status,
    /// What fails, in graph order of discovery.
    pub failures: Vec<Failure>,
    /// Conditions that the values neither prove nor refute.
    pub open: Vec<Condition>,
    /// Conditions that no dim value decides.
    pub caveats: Vec<Condition>,
}

/// Check a model at the values and facts of `options`.
pub fn check(model: &Model, options: &Facts) -> Verdict {
    let free = Facts {
        binds: Vec::new(),
        ..options.clone()
    };
    let free_ctx = infer_context(model, &free);
    let contract = derive(model, &free_ctx, &free);
    let bound_ctx = infer_context(model, options);
    let mut facts: Vec<String> = options
        .binds
        .iter()
        .map(|(n, v)| format!("{} == {v}", render_symbol(n)))
        .collect();
    facts.extend(options.assumes.iter().cloned());
    let values = fact_values(options);
    let op_of = |node: &str| -> String {
        model
            .graph
            .nodes
            .iter()
            .find(|n| n.name == node)
            .map(|n| n.op_type.to_string())
            .unwrap_or_default()
    };
    let mut failures = Vec::new();
    let mut open = Vec::new();
    let mut caveats = Vec::new();
    for c in &contract.conditions {
        match c.kind {
            Kind::Undecidable => caveats.push(c.clone()),
            Kind::Impossible => {} // an error diagnostic, reported below
            _ => match c.decide(&values) {
                Truth::True => {}
                Truth::Unknown => open.push(c.clone()),
                Truth::False => {
                    let node = c.nodes.first().cloned().unwrap_or_default();
                    failures.push(Failure {
                        op: op_of(&node),
                        node,
                        reason: format!("{} does not hold", c.condition),
                    });
                }
            },
        }
    }
    let errors: Vec<&Diagnostic> = bound_ctx
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    for d in errors {
        failures.push(Failure {
            node: d.node.clone(),
            op: d.op.clone(),
            reason: d.message.clone(),
        });
    }
    for c in bound_ctx.alg.contradictions() {
        failures.push(Failure {
            node: String::new(),
            op: String::new(),
            reason: c.to_string(),
        });
    }
    let status = if !failures.is_empty() {
        Status::Invalid
    } else if !open.is_empty() {
        Status::Undecided
    } else {
        Status::Valid
    };
    Verdict {
        model: model.path.clone(),
        facts,
        status,
        failures,
        open,
        caveats,
    }
}

impl Verdict {
    /// 0 valid, 1 invalid, 3 undecided.
    pub fn exit_code(&self) -> u8 {
        match self.status {
            Status::Valid => 0,
            Status::Invalid => 1,
            Status::Undecided => 3,
        }
    }

    /// The verdict as JSON (pretty-printed, with a final newline).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    /// The verdict as text.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "model: {}", self.model);
        let facts = if self.facts.is_empty() {
            "none".to_string()
        } else {
            self.facts.join(", ")
        };
        let _ = writeln!(s, "values: {facts}");
        let status = match self.status {
            Status::Valid => "valid",
            Status::Invalid => "invalid",
            Status::Undecided => "undecided",
        };
        let _ = writeln!(s, "{status}");
        for f in &self.failures {
            if f.node.is_empty() {
                let _ = writeln!(s, "  fails: {}", f.reason);
            } else {
                let _ = writeln!(s, "  fails at {} ({}): {}", f.node, f.op, f.reason);
            }
        }
        for c in &self.open {
            let _ = writeln!(
                s,
                "  needs {} (at {})",
                c.condition,
                c.nodes.first().map_or("?", String::as_str)
            );
        }
        for c in &self.caveats {
            let _ = writeln!(
                s,
                "  cannot decide {} (at {}{})",
                c.condition,
                c.nodes.first().map_or("?", String::as_str),
                c.note.as_ref().map_or(String::new(), |n| format!("; {n}"))
            );
        }
        s
    }
}
