//! `symdim explain MODEL 'y[1]'`: why a dim equals what the report says.
//!
//! Three parts:
//!
//! 1. **The chain of ops.** From the tensor back to the graph inputs: each step
//!    names the node that produced the tensor (op, version, attributes), its input
//!    shapes (and values, for shape tensors), and the dim as its rule built it.
//!    The walk follows an input dim of the same e-class when there is one (the dim
//!    passed through), and otherwise the input dims that share a symbol with it
//!    (the dim was computed from them), at most [`MAX_STEPS`] steps.
//! 2. **The merges.** Equalities recorded while inferring (broadcasting, MatMul,
//!    Concat, Reshape's `-1`) that involve a dim of the chain, with their node.
//! 3. **The rewrites.** The term as built is simplified again in a scratch e-graph
//!    with egg's explanations enabled (only here: they cost memory), holding the
//!    model's symbol table, and `explain_equivalence` gives each step from the
//!    term to the canonical form, named by its rule (`canonical-form` is the
//!    analysis' hash-consing by canonical form; other names are the rules of
//!    `docs/rules.md`). The replay stops at counted limits, never at a clock, so
//!    an explanation is the same on every run: [`REWRITE_ITERATIONS`] rounds of
//!    the rules and [`REWRITE_ENODES`] e-nodes (or the algebra's configured
//!    e-node limit, when lower). Past them the canonical form is said to come
//!    from the merges recorded while inferring. A term or canonical form of more
//!    than [`MAX_EXPLAIN_TERM_NODES`] nodes is not replayed: both are printed, with
//!    a note naming the limit.

use crate::algebra::analysis::DimAnalysis;
use crate::algebra::poly::render_symbol;
use crate::algebra::{rules, Algebra, Dim, DimLang};
use crate::context::{node_context, ShapesContext};
use crate::graph::{Model, Node};
use egg::{EGraph, FlatTerm, Id, Language, RecExpr, Runner};
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

/// Most steps of the chain of ops printed.
pub const MAX_STEPS: usize = 40;

/// Most rounds of the rules in the replay of the rewrites (each round applies
/// every rule to what the previous one built).
pub const REWRITE_ITERATIONS: usize = 16;

/// Most e-nodes of the replay's e-graph (it holds one term and what the rules
/// make of it, with explanations, so it stays far below the algebra's own limit).
pub const REWRITE_ENODES: usize = 20_000;

/// Most nodes of the term as built, and of its canonical form, whose rewrites are
/// replayed: a larger one (a Concat of three hundred symbolic inputs) is printed with
/// its canonical form and a note that it is too large to replay, since building it
/// again with explanations costs far more than inferring it did.
pub const MAX_EXPLAIN_TERM_NODES: usize = 512;

/// Why `explain` cannot answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExplainError {
    /// The target is not `NAME[AXIS]` or `NAME`.
    #[error("expected TENSOR[AXIS], found `{0}`")]
    Target(String),
    /// No tensor of that name.
    #[error("no tensor `{0}` in the model")]
    NoTensor(String),
    /// The tensor's rank is unknown.
    #[error("tensor `{0}` has unknown rank")]
    UnknownRank(String),
    /// The axis is out of range.
    #[error("axis {axis} is out of range for `{tensor}` of rank {rank}")]
    Axis {
        /// The tensor.
        tensor: String,
        /// The axis as given.
        axis: i64,
        /// Its rank.
        rank: usize,
    },
}

/// Parse `NAME[AXIS]` (or a bare `NAME`: every axis).
pub fn parse_target(t: &str) -> Result<(String, Option<i64>), ExplainError> {
    let t = t.trim();
    if let Some(open) = t.rfind('[') {
        if let Some(inner) = t[open + 1..].strip_suffix(']') {
            let axis: i64 = inner
                .trim()
                .parse()
                .map_err(|_| ExplainError::Target(t.to_string()))?;
            return Ok((t[..open].to_string(), Some(axis)));
        }
    }
    if t.is_empty() {
        return Err(ExplainError::Target(t.to_string()));
    }
    Ok((t.to_string(), None))
}

/// Explain a dim (or every dim of a tensor) of an inferred model, as text.
pub fn explain(model: &Model, ctx: &ShapesContext, target: &str) -> Result<String, ExplainError> {
    let (name, axis) = parse_target(target)?;
    let fact = ctx
        .get(&name)
        .ok_or_else(|| ExplainError::NoTensor(name.clone()))?;
    let shape = fact
        .shape
        .clone()
        .ok_or_else(|| ExplainError::UnknownRank(name.clone()))?;
    let axes: Vec<usize> = match axis {
        None => (0..shape.len()).collect(),
        Some(a) => {
            let r = shape.len() as i64;
            let i = if a < 0 { a + r } else { a };
            if i < 0 || i >= r {
                return Err(ExplainError::Axis {
                    tensor: name,
                    axis: a,
                    rank: shape.len(),
                });
            }
            vec![i as usize]
        }
    };
    let mut out = String::new();
    for (k, a) in axes.into_iter().enumerate() {
        if k > 0 {
            out.push('\n');
        }
        explain_dim(model, ctx, &name, a, shape[a], &mut out);
    }
    Ok(out)
}

/// Where a dim sits: a shape axis or an element of a tensor's value.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Slot {
    Axis(usize),
    Value(usize),
}

fn slot_text(tensor: &str, slot: Slot) -> String {
    match slot {
        Slot::Axis(a) => format!("{tensor}[{a}]"),
        Slot::Value(i) => format!("{tensor}.value[{i}]"),
    }
}

/// The explanation of one dim: the chain of ops, the merges that touch it, the
/// rewrites that gave its form.
fn explain_dim(
    model: &Model,
    ctx: &ShapesContext,
    name: &str,
    axis: usize,
    d: Dim,
    out: &mut String,
) {
    let alg = &ctx.alg;
    let _ = writeln!(out, "{name}[{axis}] = {}", alg.render(d));
    let classes = chain_of_ops(model, ctx, name, axis, d, out);
    write_merges(ctx, d, &classes, out);
    let _ = writeln!(out, "rewrites:");
    for line in rewrites(ctx, d) {
        let _ = writeln!(out, "  {line}");
    }
}

/// A dim of a tensor: the tensor, where the dim sits in it, the dim.
type Place = (String, Slot, Dim);

/// The chain of ops from the dim back to the graph inputs (at most [`MAX_STEPS`]
/// steps), written to `out`; returns the e-classes it went through.
fn chain_of_ops(
    model: &Model,
    ctx: &ShapesContext,
    name: &str,
    axis: usize,
    d: Dim,
    out: &mut String,
) -> Vec<Id> {
    let alg = &ctx.alg;
    let producer: HashMap<&str, &Node> = model
        .graph
        .nodes
        .iter()
        .flat_map(|n| n.outputs.iter().map(move |o| (&**o, n)))
        .collect();
    let inputs: HashSet<&str> = model.graph.inputs.iter().map(|v| &*v.name).collect();
    let _ = writeln!(out, "chain of ops:");
    let mut queue: Vec<(String, Slot, Dim, usize)> =
        vec![(name.to_string(), Slot::Axis(axis), d, 0)];
    let mut seen: HashSet<(String, Slot)> = HashSet::new();
    let mut classes: Vec<Id> = Vec::new();
    let mut steps = 0;
    while let Some((t, slot, dim, depth)) = queue.pop() {
        if !seen.insert((t.clone(), slot)) {
            continue;
        }
        if steps >= MAX_STEPS {
            let _ = writeln!(out, "  ... (stopped after {MAX_STEPS} steps)");
            break;
        }
        steps += 1;
        let class = alg.egraph().find(dim.id());
        if !classes.contains(&class) {
            classes.push(class);
        }
        let pad = "  ".repeat(depth + 1);
        let here = slot_text(&t, slot);
        let value = alg.render(dim);
        if inputs.contains(t.as_str()) {
            let _ = writeln!(out, "{pad}{here} = {value}: a graph input dim");
            continue;
        }
        if model.graph.initializers.contains_key(&t) {
            let _ = writeln!(out, "{pad}{here} = {value}: a constant");
            continue;
        }
        let Some(node) = producer.get(t.as_str()) else {
            let _ = writeln!(out, "{pad}{here} = {value}");
            continue;
        };
        let found = input_dims(ctx, node, dim, class, &pad);
        let built = rule_term(ctx, node, dim);
        if let (Some(first), None) = (found.same.first(), &built) {
            // Passes through unchanged: one line, no indentation.
            let _ = writeln!(
                out,
                "{pad}{here} = {value}  <- {} `{}` (from {})",
                node_context(node),
                node.name,
                slot_text(&first.0, first.1)
            );
            queue.push((first.0.clone(), first.1, first.2, depth));
            continue;
        }
        let _ = writeln!(
            out,
            "{pad}{here} = {value}  <- {} `{}`",
            node_context(node),
            node.name
        );
        if let Some(b) = &built {
            let _ = writeln!(out, "{pad}  by the rule: {b}");
        }
        for l in &found.lines {
            let _ = writeln!(out, "{l}");
        }
        for (t2, s2, d2) in found.next(alg).into_iter().rev() {
            queue.push((t2, s2, d2, depth + 1));
        }
    }
    classes
}

/// What the chain sees of a node's inputs for one of its output dims.
struct InputDims {
    /// One line per input: its shape and, for integers, its value.
    lines: Vec<String>,
    /// Input dims of the same e-class (the dim passes through).
    same: Vec<Place>,
    /// Input dims sharing a symbol with it (the dim is computed from them).
    related: Vec<Place>,
}

/// The input dims of `node` that `dim` (of e-class `class`) comes from; the lines
/// are indented by `pad`.
fn input_dims(ctx: &ShapesContext, node: &Node, dim: Dim, class: Id, pad: &str) -> InputDims {
    let alg = &ctx.alg;
    let mut same: Vec<Place> = Vec::new();
    let mut related: Vec<Place> = Vec::new();
    let mut syms = Vec::new();
    alg.canon(dim).symbols(&mut syms);
    let mut lines = Vec::new();
    for (i, input) in node.inputs.iter().enumerate() {
        let Some(f) = ctx.get(input) else { continue };
        let shape = f
            .shape
            .as_ref()
            .map_or("unknown rank".to_string(), |s| ctx.render_dims(s));
        let val = f
            .value
            .as_ref()
            .filter(|_| f.dtype.is_integer())
            .map(|v| format!(" = {}", ctx.render_dims(v)))
            .unwrap_or_default();
        lines.push(format!("{pad}  input {i} `{input}`: {shape}{val}"));
        let mut slots: Vec<(Slot, Dim)> = Vec::new();
        if let Some(s) = &f.shape {
            slots.extend(s.iter().enumerate().map(|(a, d)| (Slot::Axis(a), *d)));
        }
        if f.dtype.is_integer() {
            if let Some(v) = &f.value {
                slots.extend(v.iter().enumerate().map(|(a, d)| (Slot::Value(a), *d)));
            }
        }
        for (s, x) in slots {
            if alg.egraph().find(x.id()) == class && alg.as_const(dim).is_none() {
                same.push((input.to_string(), s, x));
            } else if alg.as_const(x).is_none() {
                let mut xs = Vec::new();
                alg.canon(x).symbols(&mut xs);
                if xs.iter().any(|s| syms.contains(s)) {
                    related.push((input.to_string(), s, x));
                }
            }
        }
    }
    InputDims {
        lines,
        same,
        related,
    }
}

impl InputDims {
    /// Where the chain goes next: the dim's own class when an input has it, else one
    /// related input dim per distinct e-class.
    fn next(self, alg: &Algebra) -> Vec<Place> {
        if let Some(first) = self.same.into_iter().next() {
            return vec![first];
        }
        let mut picked: Vec<Place> = Vec::new();
        for r in self.related {
            let c = alg.egraph().find(r.2.id());
            if !picked.iter().any(|p| alg.egraph().find(p.2.id()) == c) {
                picked.push(r);
            }
        }
        picked
    }
}

/// The merges (equalities recorded while inferring) that touch the chain: a class
/// of it, or a symbol of `d`.
fn write_merges(ctx: &ShapesContext, d: Dim, classes: &[Id], out: &mut String) {
    let alg = &ctx.alg;
    let mut merges = Vec::new();
    for r in alg.relations() {
        let (a, b) = (alg.egraph().find(r.lhs.id()), alg.egraph().find(r.rhs.id()));
        let touches = classes.contains(&a) || classes.contains(&b) || {
            let mut syms = Vec::new();
            alg.canon(d).symbols(&mut syms);
            let mut rs = Vec::new();
            alg.canon(r.lhs).symbols(&mut rs);
            alg.canon(r.rhs).symbols(&mut rs);
            rs.iter().any(|s| syms.contains(s))
        };
        if touches {
            let text = format!(
                "  {} == {} at {}{}",
                built_term(ctx, r.lhs),
                built_term(ctx, r.rhs),
                r.node,
                if r.conditional { " (conditional)" } else { "" }
            );
            if !merges.contains(&text) {
                merges.push(text);
            }
        }
    }
    if !merges.is_empty() {
        let _ = writeln!(out, "merges (equalities recorded while inferring):");
        for m in merges {
            let _ = writeln!(out, "{m}");
        }
    }
}

/// An e-node of the dim's class built from the node's input dims (the op rule's
/// expression, such as `broadcast(S, min(S, 512))`), rendered over the canonical
/// forms of its children.
fn rule_term(ctx: &ShapesContext, node: &Node, d: Dim) -> Option<String> {
    let alg = &ctx.alg;
    let eg = alg.egraph();
    let mut classes: HashSet<Id> = HashSet::new();
    for input in &node.inputs {
        let Some(f) = ctx.get(input) else { continue };
        for x in f.shape.iter().flatten().chain(f.value.iter().flatten()) {
            classes.insert(eg.find(x.id()));
        }
    }
    let class = &eg[eg.find(d.id())];
    let trivial = |n: &DimLang| {
        let c = |i: Id| eg[eg.find(i)].data.canon.as_const();
        match n {
            DimLang::Sym(_) | DimLang::Num(_) => true,
            // A clamp at 0 that the rules added (dims are never negative).
            DimLang::Max([a, b]) | DimLang::Min([a, b]) => {
                c(*a).is_some_and(|v| !v.is_positive()) || c(*b).is_some_and(|v| !v.is_positive())
            }
            DimLang::Broadcast([a, b]) => {
                c(*a).is_some_and(|v| v.is_one())
                    || c(*b).is_some_and(|v| v.is_one())
                    || eg.find(*a) == eg.find(*b)
            }
            DimLang::Add([a, b]) => {
                c(*a).is_some_and(|v| v.is_zero()) || c(*b).is_some_and(|v| v.is_zero())
            }
            DimLang::Sub([_, b]) => c(*b).is_some_and(|v| v.is_zero()),
            DimLang::Mul([a, b]) => {
                c(*a).is_some_and(|v| v.is_one()) || c(*b).is_some_and(|v| v.is_one())
            }
            DimLang::Div([_, b]) | DimLang::FloorDiv([_, b]) | DimLang::CeilDiv([_, b]) => {
                c(*b).is_some_and(|v| v.is_one())
            }
            _ => false,
        }
    };
    let mut nodes: Vec<&DimLang> = class.nodes.iter().filter(|n| !trivial(n)).collect();
    // The op-level terms first: broadcast, then the others in e-graph order.
    nodes.sort_by_key(|n| !matches!(n, DimLang::Broadcast(_)));
    for n in nodes {
        // Every child is one of the node's input dims (a constant only when it is
        // one too), and at least one is not a constant.
        let ok = n.children().iter().all(|c| classes.contains(&eg.find(*c)))
            && n.children()
                .iter()
                .any(|c| eg[eg.find(*c)].data.canon.as_const().is_none());
        if ok {
            let text = node_text(n, &|c| {
                let p = &eg[eg.find(c)].data.canon;
                let r = p.render();
                let single = p.len() == 1 && p.0[0].1.is_one() && p.0[0].0 .0.len() == 1;
                if single || p.as_const().is_some_and(|v| !v.is_negative()) {
                    r
                } else {
                    format!("({r})")
                }
            });
            return Some(strip_parens(text));
        }
    }
    None
}

/// The term built for a dim, in the grammar (without redundant parentheses at the
/// top).
fn built_term(ctx: &ShapesContext, d: Dim) -> String {
    let expr = ctx.alg.egraph().id_to_expr(d.id());
    let root = Id::from(expr.as_ref().len() - 1);
    let t = rec_text(&expr, root);
    strip_parens(t)
}

fn strip_parens(t: String) -> String {
    if t.starts_with('(') && t.ends_with(')') {
        // Only when the outer pair matches.
        let mut depth = 0;
        for (i, c) in t.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 && i != t.len() - 1 {
                        return t;
                    }
                }
                _ => {}
            }
        }
        return t[1..t.len() - 1].to_string();
    }
    t
}

fn rec_text(e: &RecExpr<DimLang>, i: Id) -> String {
    node_text(&e[i], &|j| rec_text(e, j))
}

fn node_text(n: &DimLang, child: &dyn Fn(Id) -> String) -> String {
    use DimLang as L;
    match n {
        L::Num(r) => {
            if r.is_negative() || !r.is_integer() {
                format!("({r})")
            } else {
                r.to_string()
            }
        }
        L::Sym(s) => render_symbol(s.as_str()),
        L::Add([a, b]) => format!("({} + {})", child(*a), child(*b)),
        L::Sub([a, b]) => format!("({} - {})", child(*a), child(*b)),
        L::Mul([a, b]) => format!("({}*{})", child(*a), child(*b)),
        L::Div([a, b]) => format!("({}/{})", child(*a), child(*b)),
        L::Neg([a]) => format!("(-{})", child(*a)),
        L::FloorDiv([a, b]) => format!("floordiv({}, {})", child(*a), child(*b)),
        L::CeilDiv([a, b]) => format!("ceildiv({}, {})", child(*a), child(*b)),
        L::Mod([a, b]) => format!("mod({}, {})", child(*a), child(*b)),
        L::Min([a, b]) => format!("min({}, {})", child(*a), child(*b)),
        L::Max([a, b]) => format!("max({}, {})", child(*a), child(*b)),
        L::Broadcast([a, b]) => format!("broadcast({}, {})", child(*a), child(*b)),
    }
}

fn flat_text(t: &FlatTerm<DimLang>) -> String {
    strip_parens(flat_inner(t))
}

fn flat_inner(t: &FlatTerm<DimLang>) -> String {
    let i = std::cell::Cell::new(0usize);
    let kids: Vec<String> = t.children.iter().map(flat_inner).collect();
    node_text(&t.node, &|_| {
        let s = kids.get(i.get()).cloned().unwrap_or_default();
        i.set(i.get() + 1);
        s
    })
}

/// Simplify the built term again with explanations enabled: each step from the
/// term to the canonical form, with the rule that made it.
fn rewrites(ctx: &ShapesContext, d: Dim) -> Vec<String> {
    let alg = &ctx.alg;
    let term = alg.egraph().id_to_expr(d.id());
    let canonical = alg.render(d);
    let canon_expr = alg.canon(d).to_expr();
    let analysis = DimAnalysis {
        symbols: alg.egraph().analysis.symbols.clone(),
        ..DimAnalysis::default()
    };
    let mut target = RecExpr::default();
    let target_id = expr_to_rec(&canon_expr, &mut target);
    let _ = target_id;
    let nodes = term.as_ref().len().max(target.as_ref().len());
    if nodes > MAX_EXPLAIN_TERM_NODES {
        return vec![
            built_term(ctx, d),
            format!(
                "= {canonical} (by the algebra; {nodes} nodes, above the limit MAX_EXPLAIN_TERM_NODES = {MAX_EXPLAIN_TERM_NODES}: too large to replay)"
            ),
        ];
    }
    let mut eg: EGraph<DimLang, DimAnalysis> = EGraph::new(analysis).with_explanations_enabled();
    let root = eg.add_expr(&term);
    let t = eg.add_expr(&target);
    eg.rebuild();
    // egg's runner also stops at a time limit: it is set beyond reach, so only the
    // counted limits apply.
    let enodes = REWRITE_ENODES.min(alg.config().limits.enodes);
    let runner = Runner::default()
        .with_egraph(eg)
        .with_iter_limit(REWRITE_ITERATIONS)
        .with_node_limit(enodes)
        .with_time_limit(std::time::Duration::MAX)
        .run(rules::compiled());
    let mut eg = runner.egraph;
    if eg.find(root) != eg.find(t) {
        return vec![
            built_term(ctx, d),
            format!("= {canonical} (by merges recorded while inferring; see above)"),
        ];
    }
    let mut ex = eg.explain_equivalence(&term, &target);
    let flat = ex.make_flat_explanation().clone();
    let mut lines = Vec::new();
    for (i, step) in flat.iter().enumerate() {
        let text = flat_text(step);
        let rule = find_rule(step);
        if i == 0 {
            lines.push(text);
        } else {
            lines.push(format!(
                "= {text}  [{}]",
                rule.unwrap_or_else(|| "?".to_string())
            ));
        }
    }
    lines
}

fn find_rule(t: &FlatTerm<DimLang>) -> Option<String> {
    if let Some(r) = t.forward_rule.or(t.backward_rule) {
        return Some(r.to_string());
    }
    t.children.iter().find_map(find_rule)
}

fn expr_to_rec(e: &crate::algebra::Expr, out: &mut RecExpr<DimLang>) -> Id {
    use crate::algebra::Expr as E;
    match e {
        E::Num(r) => out.add(DimLang::Num(r.clone())),
        E::Sym(s) => out.add(DimLang::Sym(egg::Symbol::from(s.as_str()))),
        E::Neg(a) => {
            let a = expr_to_rec(a, out);
            out.add(DimLang::Neg([a]))
        }
        E::Add(a, b) | E::Sub(a, b) | E::Mul(a, b) | E::Div(a, b) | E::Call(_, a, b) => {
            let x = expr_to_rec(a, out);
            let y = expr_to_rec(b, out);
            out.add(match e {
                E::Add(..) => DimLang::Add([x, y]),
                E::Sub(..) => DimLang::Sub([x, y]),
                E::Mul(..) => DimLang::Mul([x, y]),
                E::Div(..) => DimLang::Div([x, y]),
                E::Call(k, ..) => DimLang::op(*k, x, y),
                _ => unreachable!("matched above"),
            })
        }
    }
}
