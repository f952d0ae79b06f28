//! The cost of subgraphs: per `If` branch and per `Loop` or `Scan` body, the MACs
//! and FLOPs of one run of its nodes, and over the whole loop the body's cost
//! times its iteration count where inference proves that count.
//!
//! Inference removes a subgraph's values from the context when it leaves the
//! subgraph's scope and keeps their facts aside
//! ([`ShapesContext::subgraph_facts`]); the body's nodes are costed with those
//! facts in scope, in a scratch copy of the context, by the same per-op formulas
//! as the main graph's. A branch inference did not run (a known condition skips
//! it) has no figures.
//!
//! A loop's total is not proven when the body's figures name a symbol that may
//! change from one iteration to the next: a data-dependent symbol of the loop node
//! (a carried value's length) or of a node inside the body, directly or through a
//! derived symbol's definition (the loop rule's own test,
//! [`flow::mentions_body_symbol`]).

use super::Built;
use crate::algebra::{Algebra, Dim};
use crate::context::ShapesContext;
use crate::graph::{Attr, Graph, Node};
use crate::ops::control::flow;

/// One subgraph's figures, as dims of the cost algebra.
pub(super) struct BuiltSubgraph {
    /// The node that holds it.
    pub node: String,
    /// That node's op type.
    pub op: String,
    /// The attribute it is (`then_branch`, `body`; `name[i]` in a list).
    pub attribute: String,
    /// False when inference never ran it.
    pub inferred: bool,
    /// Per node of the subgraph, in its order: name, op type, MACs, FLOPs.
    pub nodes: Vec<(String, String, Built, Built)>,
    /// The sum of the nodes' MACs (of those with a formula), for one run.
    pub macs: Built,
    /// The sum of the nodes' FLOPs, for one run.
    pub flops: Built,
    /// Nodes left out of `macs` and `flops`.
    pub left_out: Vec<String>,
    /// How many times the body runs, when proven.
    pub iterations: Built,
    /// `iterations × macs`, when both are known and the body's MACs do not vary
    /// from one iteration to the next.
    pub total_macs: Built,
    /// `iterations × flops`, likewise.
    pub total_flops: Built,
    /// The subgraphs of its nodes.
    pub inner: Vec<BuiltSubgraph>,
}

/// The subgraphs `holder`'s attributes hold, in attribute order, costed in `alg`
/// with `view`, a scratch copy of the inference context (facts are added to it
/// and taken back). `depth` counts the subgraphs around `holder`.
pub(super) fn costs(
    alg: &mut Algebra,
    view: &mut ShapesContext,
    holder: &Node,
    depth: usize,
) -> Vec<BuiltSubgraph> {
    let mut out = Vec::new();
    for (name, a) in holder.attrs.iter() {
        let graphs: Vec<(String, &Graph)> = match a {
            Attr::Graph(g) => vec![(name.to_string(), &**g)],
            Attr::Graphs(gs) => gs
                .iter()
                .enumerate()
                .map(|(i, g)| (format!("{name}[{i}]"), g))
                .collect(),
            _ => continue,
        };
        for (attribute, g) in graphs {
            out.push(one(alg, view, holder, attribute, g, depth));
        }
    }
    out
}

fn one(
    alg: &mut Algebra,
    view: &mut ShapesContext,
    holder: &Node,
    attribute: String,
    g: &Graph,
    depth: usize,
) -> BuiltSubgraph {
    let mut sub = BuiltSubgraph {
        node: holder.name.clone(),
        op: holder.op_type.to_string(),
        attribute,
        inferred: false,
        nodes: Vec::new(),
        macs: None,
        flops: None,
        left_out: Vec::new(),
        iterations: None,
        total_macs: None,
        total_flops: None,
        inner: Vec::new(),
    };
    let Some(facts) = view.subgraph_facts(g).cloned() else {
        return sub;
    };
    sub.inferred = true;
    // The subgraph's values in scope, shadowing outer ones of the same name.
    let mut saved = Vec::with_capacity(facts.len());
    for (name, fact) in facts {
        saved.push((name.clone(), view.get(&name).cloned()));
        view.insert(name, fact);
    }
    let (mut macs, mut flops) = (Vec::new(), Vec::new());
    for i in crate::infer::node_order(g) {
        let node = &g.nodes[i];
        if alg.interrupted() {
            sub.nodes
                .push((node.name.clone(), node.op_type.to_string(), None, None));
            continue;
        }
        let c = crate::ops::cost_for(&node.domain, &node.op_type).map(|rule| rule(alg, view, node));
        let (m, f) = (c.and_then(|c| c.macs), c.and_then(|c| c.flops));
        match (m, f) {
            (Some(m), Some(f)) => {
                macs.push(m);
                flops.push(f);
            }
            _ => sub.left_out.push(node.name.clone()),
        }
        sub.nodes
            .push((node.name.clone(), node.op_type.to_string(), m, f));
        if depth + 1 < crate::context::MAX_SUBGRAPH_DEPTH {
            sub.inner.extend(costs(alg, view, node, depth + 1));
        }
    }
    let body_macs = alg.sum_forms(&macs);
    let body_flops = alg.sum_forms(&flops);
    sub.macs = Some(body_macs);
    sub.flops = Some(body_flops);
    let body_cond = g.outputs.first().and_then(|v| view.get(&*v.name));
    if let Some(factors) = flow::iterations(view, holder, body_cond) {
        let n = alg.product(&factors);
        sub.iterations = Some(n);
        let mut names = rustc_hash::FxHashSet::default();
        names.insert(holder.name.clone());
        flow::node_names(g, &mut names);
        let total = |alg: &mut Algebra, d: Dim| {
            (!flow::mentions_body_symbol(alg, d, &names)).then(|| alg.mul(n, d))
        };
        sub.total_macs = total(alg, body_macs);
        sub.total_flops = total(alg, body_flops);
    }
    // Take the subgraph's values back out of scope.
    for (name, old) in saved.into_iter().rev() {
        match old {
            Some(f) => view.insert(name, f),
            None => view.forget(&name),
        }
    }
    sub
}
