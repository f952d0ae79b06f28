//! What inference left unknown, and why (`symdim infer --strict`): every tensor of
//! the main graph whose rank is unknown, and every dim that holds a symbol no
//! expression of the inputs gives or an undecided broadcast, each with its reason.
//!
//! | reason | when |
//! | --- | --- |
//! | `no-rule` | the node that made it has an op without a shape rule |
//! | `rule-failed` | the node's rule failed (an error diagnostic) |
//! | `limit` | a size limit of the algebra put a placeholder (`big0`) in its place |
//! | `broadcast` | numpy broadcasting of two dims was not decided (`broadcast(a, b)`) |
//! | `input` | a graph input declared without a shape |
//! | `data` | the values of a tensor decide it (NonZero's count, a shape computed from data) |
//!
//! Only `data` is an unknown the data decides; `--strict` fails on the others,
//! `--strict=all` on every one. A reason is read from what inference recorded:
//! the kind of a data-dependent symbol and the node it names, the node's
//! diagnostics, the terms of the dim's canonical form.

use crate::algebra::{Expr, OpKind, SymbolKind};
use crate::context::{Cause, Severity, ShapesContext};
use crate::graph::Model;
use egg::Symbol;
use rustc_hash::FxHashMap;

/// Why a rank or a dim is unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reason {
    /// An op without a shape rule.
    NoRule,
    /// The node's rule failed.
    RuleFailed,
    /// A size limit of the algebra.
    Limit,
    /// An undecided broadcast.
    Broadcast,
    /// A graph input declared without a shape.
    Input,
    /// The data decides it.
    Data,
}

impl Reason {
    /// The kebab-case name of the table above.
    pub fn name(self) -> &'static str {
        match self {
            Reason::NoRule => "no-rule",
            Reason::RuleFailed => "rule-failed",
            Reason::Limit => "limit",
            Reason::Broadcast => "broadcast",
            Reason::Input => "input",
            Reason::Data => "data",
        }
    }
}

/// One unknown rank or dim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unknown {
    /// The tensor.
    pub tensor: String,
    /// The axis; `None` for an unknown rank.
    pub axis: Option<usize>,
    /// Why.
    pub reason: Reason,
    /// The dim as the report prints it (empty for an unknown rank).
    pub dim: String,
    /// The node it comes from (empty for a graph input or a limit).
    pub node: String,
    /// The op of that node.
    pub op: String,
}

impl std::fmt::Display for Unknown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.axis {
            Some(a) => write!(
                f,
                "{}[{a}] = {}: {}",
                self.tensor,
                self.dim,
                self.reason.name()
            )?,
            None => write!(f, "{}: unknown rank: {}", self.tensor, self.reason.name())?,
        }
        if !self.node.is_empty() {
            write!(f, " at {} ({})", self.node, self.op)?;
        }
        Ok(())
    }
}

/// Every unknown rank and dim of the main graph's tensors, in report order (graph
/// inputs, then node outputs in graph order; axes in order).
pub fn unknowns(model: &Model, ctx: &ShapesContext) -> Vec<Unknown> {
    let g = &model.graph;
    let mut node_reason: FxHashMap<&str, Reason> = FxHashMap::default();
    for d in &ctx.diagnostics {
        let r = match (&d.cause, d.severity) {
            (Some(Cause::NoRule { .. }), _) => Reason::NoRule,
            (_, Severity::Error) => Reason::RuleFailed,
            _ => continue,
        };
        let e = node_reason.entry(d.node.as_str()).or_insert(r);
        *e = (*e).min(r);
    }
    let mut producer: FxHashMap<&str, usize> = FxHashMap::default();
    for (i, n) in g.nodes.iter().enumerate() {
        for o in &n.outputs {
            producer.entry(&**o).or_insert(i);
        }
    }
    let op_of = |node: &str| {
        g.nodes
            .iter()
            .find(|n| n.name == node)
            .map(|n| n.op_type.to_string())
            .unwrap_or_default()
    };
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let names = g.inputs.iter().map(|v| (&*v.name, true)).chain(
        g.nodes
            .iter()
            .flat_map(|n| n.outputs.iter().map(|o| (&**o, false))),
    );
    for (name, is_input) in names {
        if name.is_empty() || !seen.insert(name) {
            continue;
        }
        let Some(f) = ctx.get(name) else {
            continue;
        };
        let Some(shape) = &f.shape else {
            // A sequence or optional has no tensor shape, and says so elsewhere.
            if ctx.composite(name).is_some() {
                continue;
            }
            let (reason, node, op) = match producer.get(name) {
                _ if is_input => (Reason::Input, String::new(), String::new()),
                Some(&i) => {
                    let n = &g.nodes[i];
                    let r = node_reason
                        .get(n.name.as_str())
                        .copied()
                        .unwrap_or(Reason::Data);
                    (r, n.name.clone(), n.op_type.to_string())
                }
                None => (Reason::Data, String::new(), String::new()),
            };
            out.push(Unknown {
                tensor: name.to_string(),
                axis: None,
                reason,
                dim: String::new(),
                node,
                op,
            });
            continue;
        };
        for (axis, d) in shape.iter().enumerate() {
            let p = ctx.alg.canon(*d);
            let mut syms: Vec<Symbol> = Vec::new();
            p.symbols(&mut syms);
            // The most telling reason among its symbols and terms.
            let mut best: Option<(Reason, String)> = None;
            let mut consider = |r: Reason, node: String| {
                if best.as_ref().map_or(true, |(b, _)| r < *b) {
                    best = Some((r, node));
                }
            };
            for s in &syms {
                if let Some(SymbolKind::DataDependent { node }) =
                    ctx.alg.symbol_entry(s.as_str()).map(|e| &e.kind)
                {
                    if s.as_str().starts_with("big") && node == "algebra" {
                        consider(Reason::Limit, String::new());
                    } else {
                        let r = node_reason
                            .get(node.as_str())
                            .copied()
                            .unwrap_or(Reason::Data);
                        consider(r, node.clone());
                    }
                }
            }
            if has_broadcast(&p.to_expr()) {
                consider(Reason::Broadcast, String::new());
            }
            if let Some((reason, node)) = best {
                let op = op_of(&node);
                out.push(Unknown {
                    tensor: name.to_string(),
                    axis: Some(axis),
                    reason,
                    dim: p.render(),
                    node,
                    op,
                });
            }
        }
    }
    out
}

/// Does `e` hold a `broadcast(a, b)` term?
fn has_broadcast(e: &Expr) -> bool {
    let mut todo = vec![e];
    while let Some(e) = todo.pop() {
        match e {
            Expr::Num(_) | Expr::Sym(_) => {}
            Expr::Neg(a) => todo.push(a),
            Expr::Call(OpKind::Broadcast, _, _) => return true,
            Expr::Add(a, b)
            | Expr::Sub(a, b)
            | Expr::Mul(a, b)
            | Expr::Div(a, b)
            | Expr::Call(_, a, b) => {
                todo.push(a);
                todo.push(b);
            }
        }
    }
    false
}
