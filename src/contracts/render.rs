//! The contract as text and JSON, and the text of each condition.

use super::{Cond, Condition, Contract};
use crate::algebra::poly::render_symbol;
use std::fmt::Write as _;

/// The text of a condition, for reports.
pub(super) fn render_cond(c: &Cond) -> String {
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

impl Contract {
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

pub(super) fn where_from(c: &Condition) -> String {
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
