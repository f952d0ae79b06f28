//! The diff report (`symdim diff`) as JSON and text: what
//! [`crate::analyses::diff`] gives, byte-stable (every list and map in the
//! analysis's order). The JSON is documented in `docs/report.md`, the rules in
//! `docs/diff.md`. The text reads as a review comment: the verdict, then each
//! change with why it breaks or does not.

use crate::algebra::poly::render_symbol;
use crate::analyses::diff::{Change, CostChange, Diff, PortChange};
use std::fmt::Write as _;

impl Diff {
    /// The diff as JSON (one object, pretty-printed, with a final newline).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    /// The diff as text (see `docs/diff.md`).
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "symdim diff {} -> {}", self.old, self.new);
        let breaking = self.breaking_count();
        let _ = match self.verdict.name() {
            "breaking" => writeln!(
                s,
                "verdict: breaking ({breaking} breaking change{})",
                if breaking == 1 { "" } else { "s" }
            ),
            v => writeln!(s, "verdict: {v}"),
        };
        let renamed: Vec<String> = self
            .symbols
            .iter()
            .filter(|(o, n)| o != n)
            .map(|(o, n)| format!("{} -> {}", render_symbol(o), render_symbol(n)))
            .chain(
                self.generalised
                    .iter()
                    .map(|(n, c)| format!("{} (OLD has {c})", render_symbol(n))),
            )
            .collect();
        if !renamed.is_empty() {
            let _ = writeln!(s, "symbols (matched by input axes): {}", renamed.join(", "));
        }
        ports(&mut s, "inputs", &self.inputs);
        ports(&mut s, "outputs", &self.outputs);
        let c = &self.conditions;
        if !c.added.is_empty() || !c.removed.is_empty() || !c.changed.is_empty() {
            let _ = writeln!(s, "conditions:");
            let paired_new: Vec<&str> = c.changed.iter().map(|p| p.new.as_str()).collect();
            let paired_old: Vec<&str> = c.changed.iter().map(|p| p.old.as_str()).collect();
            for p in &c.changed {
                let why = match (&p.witness, p.effect) {
                    (Some(w), "narrows") => format!("narrows: {w} was valid"),
                    (Some(w), _) => format!("widens: {w} is now valid"),
                    (None, _) => "changed: no value tried shows its effect".to_string(),
                };
                let _ = writeln!(
                    s,
                    "  changed  {} -> {}  {why}  [OLD at {}; NEW at {}]",
                    p.old,
                    p.new,
                    p.old_nodes.join(", "),
                    p.new_nodes.join(", ")
                );
            }
            for (label, list, paired) in [
                ("added", &c.added, &paired_new),
                ("removed", &c.removed, &paired_old),
            ] {
                for a in list
                    .iter()
                    .filter(|a| !paired.contains(&a.condition.as_str()))
                {
                    let why = match &a.witness {
                        Some(w) if a.effect == "narrows" => format!("narrows: {w} was valid"),
                        Some(w) => format!("widens: {w} is now valid"),
                        None => "changed: no value tried shows its effect".to_string(),
                    };
                    let _ = writeln!(
                        s,
                        "  {label:<7}  {}  {why}  [{} at {}]",
                        a.condition,
                        a.sources.join(", "),
                        a.nodes.join(", ")
                    );
                }
            }
        }
        if !self.ranges.is_empty() {
            let _ = writeln!(s, "ranges:");
            for r in &self.ranges {
                let name = if r.symbol == r.new_symbol {
                    render_symbol(&r.symbol)
                } else {
                    format!(
                        "{} ({})",
                        render_symbol(&r.symbol),
                        render_symbol(&r.new_symbol)
                    )
                };
                let w = r
                    .witness
                    .as_ref()
                    .map(|w| format!(" ({w})"))
                    .unwrap_or_default();
                let b = if r.breaking { ", breaking" } else { "" };
                let _ = writeln!(s, "  {name}  {} -> {}  {}{b}{w}", r.old, r.new, r.change);
            }
        }
        if self.reexport {
            let _ = writeln!(
                s,
                "inside: a re-export (most tensor names differ), not compared"
            );
        } else if self.tensors_changed > 0 {
            let _ = writeln!(
                s,
                "inside: {} tensor{} changed shape",
                self.tensors_changed,
                if self.tensors_changed == 1 { "" } else { "s" }
            );
            for t in self.tensors.iter().take(20) {
                let out = if t.output { " (output)" } else { "" };
                let _ = writeln!(s, "  {}{out}  {} -> {}", t.name, t.old, t.new);
            }
            if self.tensors_changed > 20 {
                let _ = writeln!(s, "  ... and {} more", self.tensors_changed - 20);
            }
        }
        let o = &self.ops;
        if !o.added.is_empty() || !o.removed.is_empty() {
            let mut parts: Vec<String> = o.added.iter().map(|(k, n)| format!("+{n} {k}")).collect();
            parts.extend(o.removed.iter().map(|(k, n)| format!("-{n} {k}")));
            let _ = writeln!(
                s,
                "ops: {} -> {} nodes; {}",
                o.old_nodes,
                o.new_nodes,
                parts.join(", ")
            );
        }
        if let Some(cost) = &self.cost {
            let _ = writeln!(s, "cost:");
            for (name, c) in [
                ("parameters", &cost.parameters),
                ("macs", &cost.macs),
                ("peak bytes", &cost.peak_bytes),
            ] {
                let _ = writeln!(s, "  {name}: {}", cost_line(c));
            }
        }
        if !self.notes.is_empty() {
            let _ = writeln!(s, "notes:");
            for n in &self.notes {
                let _ = writeln!(s, "  {n}");
            }
        }
        if self.verdict.name() == "same" {
            let _ = writeln!(
                s,
                "no difference in the interface, the contract, the tensors or the ops"
            );
        }
        s
    }

    /// How many changes break a use OLD accepted.
    pub fn breaking_count(&self) -> usize {
        self.inputs
            .iter()
            .chain(&self.outputs)
            .filter(|c| c.breaking)
            .count()
            + self.ranges.iter().filter(|r| r.breaking).count()
            + self
                .conditions
                .added
                .iter()
                .filter(|c| c.effect == "narrows")
                .count()
    }
}

fn ports(s: &mut String, title: &str, list: &[PortChange]) {
    if list.is_empty() {
        return;
    }
    let _ = writeln!(s, "{title}:");
    for c in list {
        let change = match c.change {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Renamed => "renamed",
            Change::Shape => "shape",
            Change::Dtype => "dtype",
        };
        let what = match (&c.old, &c.new) {
            (Some(o), Some(n)) => format!("{o} -> {n}"),
            (Some(o), None) => o.clone(),
            (None, Some(n)) => n.clone(),
            (None, None) => String::new(),
        };
        let verdict = if c.breaking { "breaking" } else { "compatible" };
        let _ = writeln!(s, "  {}  {change}  {what}  {verdict}: {}", c.name, c.why);
    }
}

/// The longest formula the text prints; a longer one is left to the JSON.
const MAX_TEXT_FORMULA: usize = 120;

fn cost_line(c: &CostChange) -> String {
    let t = |v: &Option<String>| v.clone().unwrap_or_else(|| "unknown".to_string());
    let long = [&c.old, &c.new, &c.difference]
        .iter()
        .any(|v| v.as_ref().is_some_and(|v| v.len() > MAX_TEXT_FORMULA));
    if long {
        let differs = match c.difference.as_deref() {
            Some("0") => "equal",
            Some(_) => "differ",
            None => "not compared",
        };
        return format!(
            "formulas of {} and {} characters, {differs} (--format json has them)",
            t(&c.old).len(),
            t(&c.new).len()
        );
    }
    match c.difference.as_deref() {
        Some("0") if c.old == c.new => format!("{} (unchanged)", t(&c.old)),
        Some("0") => format!("{} -> {} (equal in OLD's symbols)", t(&c.old), t(&c.new)),
        Some(d) => format!("{} -> {} (NEW - OLD = {d})", t(&c.old), t(&c.new)),
        None => format!("{} -> {}", t(&c.old), t(&c.new)),
    }
}
