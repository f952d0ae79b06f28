//! Case splits of undecided `If` nodes: when the branches give an output of
//! different ranks, the rest of the graph is inferred once per branch, within the
//! limits on splits, their nesting and the probes ([`MAX_SPLITS`],
//! [`MAX_SPLIT_NESTING`], [`MAX_SPLIT_PROBES`]).

use super::run_node;
use crate::algebra::Dim;
use crate::context::{node_context, Severity, ShapesContext};
use crate::graph::{Graph, Name, Node, ValueDecl};
use rustc_hash::FxHashMap as HashMap;

/// Whether an undecided `If` may still be case-split (or probed for a split).
fn split_budget(ctx: &ShapesContext) -> bool {
    ctx.splits_done < MAX_SPLITS
        && ctx.split_nesting < MAX_SPLIT_NESTING
        && ctx.split_probes < MAX_SPLIT_PROBES
}

/// How many undecided `If` nodes one inference may case-split in all. Each split
/// infers the rest of its graph once per branch.
pub(crate) const MAX_SPLITS: usize = 16;

/// How deeply case splits may nest (a split inside a branch of a split).
pub(crate) const MAX_SPLIT_NESTING: usize = 3;

/// How many undecided `If` nodes one inference may probe for a split. A probe copies
/// the context (the whole e-graph) before the `If` runs, whether or not it then
/// splits, so a model of many undecided Ifs with same-rank branches stays linear.
pub(crate) const MAX_SPLIT_PROBES: usize = 64;

/// Run nodes in order. An undecided `If` whose branches give
/// an output of different ranks is case-split: the rest of the graph is inferred
/// once per branch, with the condition decided. When exactly one branch leaves the
/// model valid (the other leads to an error that proves the model invalid, and that
/// the first does not share), the model is valid only when that branch runs: its
/// inference is kept, the condition is recorded as a relation of the `If` node,
/// and a warning says so. Otherwise the merged result (unknown rank) stands.
pub(super) fn run_order(
    ctx: &mut ShapesContext,
    g: &Graph,
    order: &[usize],
    declared: &HashMap<&Name, &ValueDecl>,
) {
    for (k, &i) in order.iter().enumerate() {
        let node = &g.nodes[i];
        if !split_budget(ctx) || !undecided_if(ctx, node) {
            run_node(ctx, node, declared);
            continue;
        }
        ctx.split_probes += 1;
        let before = ctx.clone();
        ctx.rank_conflict = false;
        run_node(ctx, node, declared);
        // Split only when the branches gave an output known ranks that differ (not
        // when a branch's own rank is unknown: then neither alternative knows more).
        if !std::mem::take(&mut ctx.rank_conflict) {
            continue;
        }
        let rest = &order[k + 1..];
        match split_if(&before, g, node, rest, declared) {
            Ok(chosen) => {
                *ctx = chosen;
                return;
            }
            // Neither branch alone is refuted: the merged result stands, and the
            // splits and probes spent finding that out still count.
            Err((splits, probes)) => {
                ctx.splits_done = splits;
                ctx.split_probes = probes;
            }
        }
    }
}

/// An `If` of the default domain whose condition has no known value.
fn undecided_if(ctx: &ShapesContext, node: &Node) -> bool {
    if node.op_type != "If" || !node.domain.is_empty() {
        return false;
    }
    let Some(cond) = node.input(0).and_then(|c| ctx.get(c)) else {
        return false;
    };
    let decided = cond
        .value
        .as_ref()
        .and_then(|v| v.first())
        .is_some_and(|d| ctx.alg.as_const(*d).is_some());
    !decided
}

/// One branch of a case split: the context after inferring the rest of the graph
/// with the branch taken, and its errors (after the split) that prove it invalid.
struct Alternative {
    taken: bool,
    ctx: ShapesContext,
    condition: Option<String>,
    refutations: Vec<crate::context::Diagnostic>,
}

fn split_if(
    before: &ShapesContext,
    g: &Graph,
    node: &Node,
    rest: &[usize],
    declared: &HashMap<&Name, &ValueDecl>,
) -> Result<ShapesContext, (usize, usize)> {
    let mark = before.diagnostics.len();
    // (splits, probes) spent so far, carried from one alternative to the next.
    let mut spent = (before.splits_done + 1, before.split_probes);
    let mut alts: Vec<Alternative> = Vec::with_capacity(2);
    for taken in [true, false] {
        let mut alt = before.clone();
        (alt.splits_done, alt.split_probes) = spent;
        alt.split_nesting += 1;
        let condition = decide_condition(&mut alt, g, node, taken);
        run_node(&mut alt, node, declared);
        run_order(&mut alt, g, rest, declared);
        alt.split_nesting -= 1;
        spent = (alt.splits_done, alt.split_probes);
        let refutations = (mark..alt.diagnostics.len())
            .filter(|&i| alt.is_proven(i))
            .map(|i| alt.diagnostics[i].clone())
            .collect();
        alts.push(Alternative {
            taken,
            ctx: alt,
            condition,
            refutations,
        });
    }
    // An error both branches reach does not tell them apart.
    let shared = |d: &crate::context::Diagnostic, other: &Alternative| {
        other
            .refutations
            .iter()
            .any(|e| e.node == d.node && e.message == d.message)
    };
    let own: Vec<Vec<crate::context::Diagnostic>> = (0..2)
        .map(|i| {
            alts[i]
                .refutations
                .iter()
                .filter(|d| !shared(d, &alts[1 - i]))
                .cloned()
                .collect()
        })
        .collect();
    let valid: Vec<usize> = (0..2).filter(|&i| own[i].is_empty()).collect();
    let [keep] = valid[..] else {
        return Err(spent);
    };
    let why = own[1 - keep][0].clone();
    let branch = |t: bool| if t { "then" } else { "else" };
    let kept = alts.swap_remove(keep);
    let mut ctx = kept.ctx;
    // The condition is also what keeps the refuted node valid: name it too.
    let own: Vec<(Dim, Dim)> = ctx
        .alg
        .relations()
        .iter()
        .filter(|r| !r.conditional && r.node == node.name)
        .map(|r| (r.lhs, r.rhs))
        .collect();
    for (a, b) in own {
        ctx.alg.record_relation(a, b, &why.node);
    }
    (ctx.splits_done, ctx.split_probes) = spent;
    let cond_name = node.input(0).map_or("", |n| n.as_str());
    // Inside a branch of an enclosing If that may not run, the conclusion holds
    // only when that branch runs.
    let scope = if ctx.alg.is_speculative() {
        "When the enclosing branch runs, the model"
    } else {
        "The model"
    };
    let condition = match &kept.condition {
        Some(c) => format!("`{c}`"),
        None => format!("`{cond_name}` is {}", kept.taken),
    };
    let msg = format!(
        "{}: the condition `{cond_name}` is not decided and the branches give outputs of different ranks; with the {} branch, {} ({}) fails: {}. {scope} is valid only when the {} branch runs, that is when {condition}; the report assumes it",
        node_context(node),
        branch(!kept.taken),
        why.node,
        why.op,
        why.message,
        branch(kept.taken),
    );
    ctx.insert_diagnostic(
        mark,
        crate::context::Diagnostic {
            severity: Severity::Warning,
            node: node.name.clone(),
            op: node.op_type.to_string(),
            message: msg,
            cause: None,
        },
    );
    Ok(ctx)
}

/// Give the `If` condition the value of `taken` and, where the condition is an
/// `Equal` of two known dims (through `Not`, `Identity` and `Cast` to bool), record
/// what taking the branch means as a relation of the `If` node. Returns that
/// condition, rendered, when one was found.
fn decide_condition(
    ctx: &mut ShapesContext,
    g: &Graph,
    node: &Node,
    taken: bool,
) -> Option<String> {
    let cond = node.input(0)?;
    let mut fact = ctx.get(cond)?.clone();
    let v = ctx.alg.constant(i64::from(taken));
    fact.value = Some(vec![v]);
    fact.fill = None;
    ctx.insert(cond, fact);
    let mut name = cond.to_string();
    let mut want = taken;
    for _ in 0..8 {
        let producer = g
            .nodes
            .iter()
            .find(|n| n.outputs.iter().any(|o| **o == *name))?;
        if !producer.domain.is_empty() {
            return None;
        }
        match producer.op_type.as_str() {
            "Not" => want = !want,
            "Identity" => {}
            "Cast" => {
                let input = ctx.get(producer.input(0)?)?;
                if input.dtype != crate::graph::DType::Bool {
                    return None;
                }
            }
            "Equal" => {
                let one = |ctx: &ShapesContext, i: usize| -> Option<Dim> {
                    match ctx.get(producer.input(i)?)?.value.as_deref()? {
                        [d] => Some(*d),
                        _ => None,
                    }
                };
                let (a, b) = (one(ctx, 0)?, one(ctx, 1)?);
                let rel = if want { "==" } else { "!=" };
                let text = format!("{} {rel} {}", ctx.alg.render(a), ctx.alg.render(b));
                if want {
                    ctx.alg.record_relation(a, b, &node.name);
                }
                return Some(text);
            }
            _ => return None,
        }
        name = producer.input(0)?.to_string();
    }
    None
}
