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

use crate::algebra::{DimExpr, Rat, SymbolKind};
use crate::analyses::cost::{Cost, Figure, TensorRole};
use serde_json::{Map, Value};
use std::fmt::Write as _;

/// What a bound that is not proven reads as.
const NOT_PROVEN: &str = "not proven";

/// A number: an integer when it fits in 64 bits, else its text.
fn number(r: &Rat) -> Value {
    match r.to_i64() {
        Some(v) => Value::from(v),
        None => Value::from(r.to_string()),
    }
}

/// A formula: an integer constant, else its text.
fn formula(e: &DimExpr) -> Value {
    match e.as_i64() {
        Some(v) => Value::from(v),
        None => Value::from(e.to_string()),
    }
}

/// Write figure `f` as `key`, with `key_value` and `key_max` when asked.
fn put(m: &mut Map<String, Value>, key: &str, f: Option<&Figure>, binds: bool, boxed: bool) {
    m.insert(key.to_string(), f.map_or(Value::Null, |f| formula(&f.expr)));
    if binds {
        let v = f.and_then(|f| f.value.as_ref()).map_or(Value::Null, number);
        m.insert(format!("{key}_value"), v);
    }
    if boxed {
        let v = match f.map(|f| &f.max) {
            Some(Some(Some(hi))) => number(hi),
            Some(_) => Value::from(NOT_PROVEN),
            None => Value::Null,
        };
        m.insert(format!("{key}_max"), v);
    }
}

impl Cost {
    /// The report as JSON (see `docs/report.md`).
    pub fn to_json(&self) -> String {
        let binds = !self.binds.is_empty();
        let boxed = !self.ranges.is_empty();
        let mut root = Map::new();
        root.insert("model".into(), Value::from(self.model.clone()));
        let mut symbols = Map::new();
        for (name, kind) in &self.symbols {
            let mut s = Map::new();
            match kind {
                SymbolKind::Input => {
                    s.insert("kind".into(), "input".into());
                }
                SymbolKind::Derived { definition } => {
                    s.insert("kind".into(), "derived".into());
                    s.insert("definition".into(), definition.render().into());
                }
                SymbolKind::DataDependent { node } => {
                    s.insert("kind".into(), "data-dependent".into());
                    s.insert("node".into(), node.clone().into());
                }
            }
            symbols.insert(name.clone(), Value::Object(s));
        }
        root.insert("symbols".into(), Value::Object(symbols));
        if binds {
            let b: Map<String, Value> = self
                .binds
                .iter()
                .map(|(n, v)| (n.clone(), Value::from(*v)))
                .collect();
            root.insert("binds".into(), Value::Object(b));
        }
        if boxed {
            root.insert("ranges".into(), Value::from(self.ranges.clone()));
        }
        let nodes: Vec<Value> = self
            .nodes
            .iter()
            .map(|n| {
                let mut m = Map::new();
                m.insert("node".into(), n.node.clone().into());
                m.insert("op".into(), n.op.clone().into());
                put(&mut m, "macs", n.macs.as_ref(), binds, boxed);
                put(&mut m, "flops", n.flops.as_ref(), binds, boxed);
                Value::Object(m)
            })
            .collect();
        root.insert("nodes".into(), Value::from(nodes));
        let mut tensors = Map::new();
        for (name, t) in &self.tensors {
            let mut m = Map::new();
            m.insert("dtype".into(), t.dtype.short_name().into());
            let role = match t.role {
                TensorRole::Activation => "activation",
                TensorRole::Parameter => "parameter",
            };
            m.insert("role".into(), role.into());
            put(&mut m, "elements", t.elements.as_ref(), binds, boxed);
            put(&mut m, "bytes", t.bytes.as_ref(), binds, boxed);
            tensors.insert(name.clone(), Value::Object(m));
        }
        root.insert("tensors".into(), Value::Object(tensors));
        let t = &self.totals;
        let mut m = Map::new();
        m.insert(
            "parameters".into(),
            t.parameters.as_ref().map_or(Value::Null, number),
        );
        m.insert(
            "parameter_bytes".into(),
            t.parameter_bytes.as_ref().map_or(Value::Null, number),
        );
        put(&mut m, "macs", t.macs.as_ref(), binds, boxed);
        put(&mut m, "flops", t.flops.as_ref(), binds, boxed);
        put(
            &mut m,
            "activation_bytes",
            t.activation_bytes.as_ref(),
            binds,
            boxed,
        );
        put(&mut m, "peak_bytes", t.peak_bytes.as_ref(), binds, boxed);
        let steps: Vec<Value> = t
            .peak_steps
            .iter()
            .map(|s| {
                let mut p = Map::new();
                p.insert("node".into(), s.node.clone().into());
                put(&mut p, "bytes", Some(&s.bytes), binds, boxed);
                Value::Object(p)
            })
            .collect();
        m.insert("peak_steps".into(), Value::from(steps));
        put(
            &mut m,
            "kv_cache_bytes",
            t.kv_cache_bytes.as_ref(),
            binds,
            boxed,
        );
        m.insert("left_out".into(), Value::from(t.left_out.clone()));
        m.insert("not_sized".into(), Value::from(t.not_sized.clone()));
        root.insert("totals".into(), Value::Object(m));
        root.insert("notes".into(), Value::from(self.notes.clone()));
        let mut s = serde_json::to_string_pretty(&Value::Object(root)).unwrap_or_default();
        s.push('\n');
        s
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
        for n in &self.notes {
            let _ = writeln!(s, "note: {n}");
        }
        s
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
