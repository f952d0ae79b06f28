//! The cost report (`symdim cost`) as JSON and text: what
//! [`crate::analyses::cost`] gives, written byte-stable (every map in the
//! analysis's order). The JSON is documented in `docs/report.md`, the formulas in
//! `docs/cost.md`.
//!
//! A figure is its formula in the report grammar (`docs/grammar.md`): a JSON
//! integer when it is a constant that fits in 64 bits, else a string; `null`
//! where it is not defined or not known. With binds, each figure `F` has its value
//! beside it as `F_value` (`null` where a symbol has no value); with a range box,
//! its largest value over the box as `F_max` (`"not proven"` where the algebra
//! finds no upper bound).

use super::json::Writer;
use crate::algebra::{DimExpr, Rat, SymbolKind};
use crate::analyses::cost::{Cost, Figure, NodeCost, SubgraphCost, TensorRole};
use std::fmt::Write as _;

/// What a bound that is not proven reads as.
const NOT_PROVEN: &str = "not proven";

/// A number: an integer when it fits in 64 bits, else its text.
fn number(w: &mut Writer<'_>, r: &Rat) {
    match r.to_i64() {
        Some(v) => w.int(v),
        None => w.string(&r.to_string()),
    }
}

/// A formula: an integer constant, else its text.
fn formula(w: &mut Writer<'_>, e: &DimExpr) {
    match e.as_i64() {
        Some(v) => w.int(v),
        None => w.string(&e.to_string()),
    }
}

/// Write figure `f` as `key`, with `key_value` and `key_max` when asked.
fn put(w: &mut Writer<'_>, key: &str, f: Option<&Figure>, binds: bool, boxed: bool) {
    w.key(key);
    match f {
        Some(f) => formula(w, &f.expr),
        None => w.null(),
    }
    if binds {
        w.key(&format!("{key}_value"));
        match f.and_then(|f| f.value.as_ref()) {
            Some(v) => number(w, v),
            None => w.null(),
        }
    }
    if boxed {
        w.key(&format!("{key}_max"));
        match f.map(|f| &f.max) {
            Some(Some(Some(hi))) => number(w, hi),
            Some(_) => w.string(NOT_PROVEN),
            None => w.null(),
        }
    }
}

/// An array of strings as a member's value.
fn strings(w: &mut Writer<'_>, items: &[String]) {
    w.open_array();
    for s in items {
        w.item();
        w.string(s);
    }
    w.close_array();
}

/// The per-node array: each node's name, op, MACs and FLOPs.
fn nodes(w: &mut Writer<'_>, nodes: &[NodeCost], binds: bool, boxed: bool) {
    w.open_array();
    for n in nodes {
        w.item();
        w.open_object();
        w.key("node");
        w.string(&n.node);
        w.key("op");
        w.string(&n.op);
        put(w, "macs", n.macs.as_ref(), binds, boxed);
        put(w, "flops", n.flops.as_ref(), binds, boxed);
        w.close_object();
    }
    w.close_array();
}

/// The subgraphs array (see `docs/report.md`), nested subgraphs inside theirs.
fn subgraphs(w: &mut Writer<'_>, subs: &[SubgraphCost], binds: bool, boxed: bool) {
    w.open_array();
    for sg in subs {
        w.item();
        w.open_object();
        w.key("node");
        w.string(&sg.node);
        w.key("op");
        w.string(&sg.op);
        w.key("attribute");
        w.string(&sg.attribute);
        w.key("inferred");
        w.bool(sg.inferred);
        put(w, "macs", sg.macs.as_ref(), binds, boxed);
        put(w, "flops", sg.flops.as_ref(), binds, boxed);
        put(w, "iterations", sg.iterations.as_ref(), binds, boxed);
        put(w, "total_macs", sg.total_macs.as_ref(), binds, boxed);
        put(w, "total_flops", sg.total_flops.as_ref(), binds, boxed);
        w.key("left_out");
        strings(w, &sg.left_out);
        w.key("nodes");
        nodes(w, &sg.nodes, binds, boxed);
        w.key("subgraphs");
        subgraphs(w, &sg.subgraphs, binds, boxed);
        w.close_object();
    }
    w.close_array();
}

impl Cost {
    /// The report as JSON (see `docs/report.md`): `serde_json`'s pretty layout,
    /// written directly rather than through a tree of values (a large model's cost
    /// report is megabytes).
    pub fn to_json(&self) -> String {
        let binds = !self.binds.is_empty();
        let boxed = !self.ranges.is_empty();
        // About 100 bytes per node and 150 per tensor.
        let mut w = Writer::new(
            4096 + self.nodes.len() * 128 + self.tensors.len() * 192,
            None,
        );
        w.open_object();
        w.key("model");
        w.string(&self.model);
        w.key("symbols");
        w.open_object();
        for (name, kind) in &self.symbols {
            w.key(name);
            w.open_object();
            match kind {
                SymbolKind::Input => {
                    w.key("kind");
                    w.string("input");
                }
                SymbolKind::Derived { definition } => {
                    w.key("kind");
                    w.string("derived");
                    w.key("definition");
                    w.string(&definition.render());
                }
                SymbolKind::DataDependent { node } => {
                    w.key("kind");
                    w.string("data-dependent");
                    w.key("node");
                    w.string(node);
                }
            }
            w.close_object();
        }
        w.close_object();
        if binds {
            w.key("binds");
            w.open_object();
            for (n, v) in &self.binds {
                w.key(n);
                w.int(*v);
            }
            w.close_object();
        }
        if boxed {
            w.key("ranges");
            strings(&mut w, &self.ranges);
        }
        w.key("nodes");
        nodes(&mut w, &self.nodes, binds, boxed);
        w.key("tensors");
        w.open_object();
        for (name, t) in &self.tensors {
            w.key(name);
            w.open_object();
            w.key("dtype");
            w.string(t.dtype.short_name());
            w.key("role");
            w.string(match t.role {
                TensorRole::Activation => "activation",
                TensorRole::Parameter => "parameter",
            });
            put(&mut w, "elements", t.elements.as_ref(), binds, boxed);
            put(&mut w, "bytes", t.bytes.as_ref(), binds, boxed);
            w.close_object();
        }
        w.close_object();
        let t = &self.totals;
        w.key("totals");
        w.open_object();
        for (key, v) in [
            ("parameters", &t.parameters),
            ("parameter_bytes", &t.parameter_bytes),
        ] {
            w.key(key);
            match v {
                Some(v) => number(&mut w, v),
                None => w.null(),
            }
        }
        put(&mut w, "macs", t.macs.as_ref(), binds, boxed);
        put(&mut w, "flops", t.flops.as_ref(), binds, boxed);
        let activation = t.activation_bytes.as_ref();
        put(&mut w, "activation_bytes", activation, binds, boxed);
        put(&mut w, "peak_bytes", t.peak_bytes.as_ref(), binds, boxed);
        w.key("peak_steps");
        w.open_array();
        for s in &t.peak_steps {
            w.item();
            w.open_object();
            w.key("node");
            w.string(&s.node);
            put(&mut w, "bytes", Some(&s.bytes), binds, boxed);
            w.close_object();
        }
        w.close_array();
        let kv = t.kv_cache_bytes.as_ref();
        put(&mut w, "kv_cache_bytes", kv, binds, boxed);
        w.key("left_out");
        strings(&mut w, &t.left_out);
        w.key("not_sized");
        strings(&mut w, &t.not_sized);
        w.close_object();
        if !self.subgraphs.is_empty() {
            w.key("subgraphs");
            subgraphs(&mut w, &self.subgraphs, binds, boxed);
        }
        w.key("notes");
        strings(&mut w, &self.notes);
        w.close_object();
        w.finish().1
    }

    /// The report as text: the `top` nodes by MACs, then the totals, each figure
    /// with its value and bound when asked (see `docs/cost.md`).
    pub fn to_text(&self, top: usize) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "model: {}", self.model);
        if !self.binds.is_empty() {
            let b: Vec<String> = self.binds.iter().map(|(n, v)| format!("{n}={v}")).collect();
            let _ = writeln!(s, "binds: {}", b.join(", "));
        }
        if !self.ranges.is_empty() {
            let _ = writeln!(s, "ranges: {}", self.ranges.join(", "));
        }
        let shown = self.top(top);
        let _ = writeln!(
            s,
            "top {} of {} nodes by MACs:",
            shown.len(),
            self.nodes.len()
        );
        for n in shown {
            let _ = writeln!(
                s,
                "  {} ({}): macs {}, flops {}",
                n.node,
                n.op,
                text_figure(n.macs.as_ref()),
                text_figure(n.flops.as_ref())
            );
        }
        let t = &self.totals;
        let int = |r: &Option<Rat>| r.as_ref().map_or("unknown".to_string(), Rat::to_string);
        let _ = writeln!(s, "totals:");
        let _ = writeln!(
            s,
            "  parameters: {} ({} bytes)",
            int(&t.parameters),
            int(&t.parameter_bytes)
        );
        let _ = writeln!(s, "  macs: {}", text_figure(t.macs.as_ref()));
        let _ = writeln!(s, "  flops: {}", text_figure(t.flops.as_ref()));
        if !t.left_out.is_empty() {
            let _ = writeln!(
                s,
                "  left out of macs and flops ({}): {}",
                t.left_out.len(),
                t.left_out.join(", ")
            );
        }
        let _ = writeln!(
            s,
            "  activation bytes: {}",
            text_figure(t.activation_bytes.as_ref())
        );
        let _ = writeln!(s, "  peak bytes: {}", text_figure(t.peak_bytes.as_ref()));
        for p in &t.peak_steps {
            let _ = writeln!(s, "    at {}: {}", p.node, text_figure(Some(&p.bytes)));
        }
        if !t.not_sized.is_empty() {
            let _ = writeln!(s, "  not sized: {}", t.not_sized.join(", "));
        }
        let _ = writeln!(
            s,
            "  kv cache bytes: {}",
            t.kv_cache_bytes
                .as_ref()
                .map_or("none".to_string(), |f| text_figure(Some(f)))
        );
        if !self.subgraphs.is_empty() {
            let _ = writeln!(s, "subgraphs (one run each; left out of the totals):");
            text_subgraphs(&mut s, &self.subgraphs, 1);
        }
        for n in &self.notes {
            let _ = writeln!(s, "note: {n}");
        }
        s
    }
}

/// Each subgraph as `NODE.ATTRIBUTE (OP): macs .., flops ..`, then its iteration
/// count and totals when known, nested subgraphs indented under theirs.
fn text_subgraphs(s: &mut String, subs: &[SubgraphCost], depth: usize) {
    let pad = "  ".repeat(depth);
    for sg in subs {
        if !sg.inferred {
            let _ = writeln!(
                s,
                "{pad}{}.{} ({}): not inferred (the branch does not run)",
                sg.node, sg.attribute, sg.op
            );
            continue;
        }
        let _ = writeln!(
            s,
            "{pad}{}.{} ({}, nodes {}): macs {}, flops {}",
            sg.node,
            sg.attribute,
            sg.op,
            sg.nodes.len(),
            text_figure(sg.macs.as_ref()),
            text_figure(sg.flops.as_ref())
        );
        if let Some(n) = &sg.iterations {
            let total = |f: Option<&Figure>| match f {
                Some(_) => text_figure(f),
                None => "not proven (it may change from one iteration to the next)".to_string(),
            };
            let _ = writeln!(
                s,
                "{pad}  over {} iterations: macs {}, flops {}",
                text_figure(Some(n)),
                total(sg.total_macs.as_ref()),
                total(sg.total_flops.as_ref())
            );
        }
        if !sg.left_out.is_empty() {
            let _ = writeln!(
                s,
                "{pad}  left out ({}): {}",
                sg.left_out.len(),
                sg.left_out.join(", ")
            );
        }
        text_subgraphs(s, &sg.subgraphs, depth + 1);
    }
}

/// A figure as text: `FORMULA [= VALUE] [<= MAX]`, `unknown` when not known.
fn text_figure(f: Option<&Figure>) -> String {
    let Some(f) = f else {
        return "unknown".to_string();
    };
    let mut s = f.expr.to_string();
    if let Some(v) = &f.value {
        if f.expr.as_i64().is_none() {
            let _ = write!(s, " = {v}");
        }
    }
    match &f.max {
        Some(Some(hi)) => {
            let _ = write!(s, " (max {hi})");
        }
        Some(None) => s.push_str(" (max not proven)"),
        None => {}
    }
    s
}
