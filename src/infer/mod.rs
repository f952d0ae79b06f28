//! The inference driver: runs every node's shape rule over a graph.
//!
//! 1. Facts (`--bind`, `--assume`) go into the algebra first. One that names no
//!    symbol of the model or does not parse is an error diagnostic
//!    ([`Cause::Facts`]) and is left out, as is an input dim that does not fit or is
//!    negative, and a negative lower bound of the configuration (the default holds).
//! 2. Constants become tensors with known values (small ones) and graph inputs get
//!    their dims: a `dim_value` is a constant, a `dim_param` an expression (or a
//!    symbol when it does not parse), and an unnamed dynamic dim the input symbol
//!    `<tensor>.<axis>`. A constant whose data could not be read is an error naming
//!    it; a declared rank above [`MAX_RANK`] is taken as unknown, with a warning.
//! 3. Nodes run in a deterministic topological order (file order when the file is
//!    sorted). A node in a cycle is reported and its outputs get no shape.
//! 4. A rule's error becomes an error diagnostic naming the node, the op, its version
//!    and attributes; the outputs take the declared shape when there is one, else
//!    fresh dims of the rank the op fixes (input 0's for rank-preserving ops, the
//!    broadcast rank, Reshape's target length), else no shape; inference goes on. An
//!    op without a rule gets a warning. A rule declared by the caller
//!    ([`crate::read::oprules`], `--op-rules`) for a node's op and version wins over the
//!    built-in one; its failures are reported the same way. An output whose rank a
//!    rule leaves unknown takes its declared shape too.
//! 5. Declared shapes (`value_info`, graph outputs) that contradict the inferred ones
//!    are reported with both shapes.
//!
//! Steps 1 and 2 are `inputs.rs`, the declared shapes of steps 4 and 5
//! `declared.rs`, and the case splits of undecided `If` nodes `split.rs`.

mod declared;
mod inputs;
mod split;

use declared::{check_declared, declared_fact, declared_of, fallback};
use inputs::{declare_inputs, declared_shape, facts_error, override_inputs, report_constants};
use split::run_order;
pub(crate) use split::{MAX_SPLITS, MAX_SPLIT_NESTING, MAX_SPLIT_PROBES};

use crate::algebra::{Algebra, Config, Dim};
use crate::context::facts::{
    check_assume, check_bind, check_bind_value, check_fact_count, negative_lower_bounds, Facts,
    FactsError, LowerBound,
};
use crate::context::{
    const_fact, node_context, Cause, OpError, Severity, ShapesContext, SubgraphError,
    SubgraphValue, TensorFact, MAX_RANK,
};
use crate::graph::{Graph, Model, Name, Node, ValueDecl};
use crate::ops;
use rustc_hash::{FxHashMap as HashMap, FxHashSet};

/// Infer every node of `model` under `facts`: the context holding every tensor's
/// facts, the algebra and the diagnostics.
pub(crate) fn infer_context(model: &Model, options: &Facts) -> ShapesContext {
    let g = &model.graph;
    let outputs = g.nodes.iter().map(|n| n.outputs.len()).sum::<usize>();
    let mut ctx = start(g, options, outputs);
    report_constants(&mut ctx, g);
    run_graph(&mut ctx, &model.graph);
    check_declared(&mut ctx, &model.graph.outputs, "graph output");
    ctx
}

/// The context before any node of the main graph `g` runs: the options' bindings and
/// assumptions, then `g`'s initializers and inputs; with room for `outputs` node
/// outputs besides.
fn start(g: &Graph, options: &Facts, outputs: usize) -> ShapesContext {
    let mut ctx = prepare(g, options, g.inputs.len() + g.initializers.len() + outputs);
    declare_inputs(&mut ctx, g);
    if !options.inputs.is_empty() {
        override_inputs(&mut ctx, g, &options.inputs);
    }
    ctx
}

/// A context holding the options' bindings and assumptions about the symbols of
/// the main graph `g`, with room for `room` tensors.
fn prepare(g: &Graph, options: &Facts, room: usize) -> ShapesContext {
    // A negative lower bound is an error and left out: the default bound holds.
    let negative = negative_lower_bounds(&options.config);
    let mut config = options.config.clone();
    let defaults = Config::default();
    for e in &negative {
        if let FactsError::NegativeLowerBound { bound, .. } = e {
            match bound {
                LowerBound::Input => config.input_lower = defaults.input_lower.clone(),
                LowerBound::Dim => config.dim_lower = defaults.dim_lower.clone(),
            }
        }
    }
    let mut ctx = ShapesContext::new(Algebra::new(config));
    for e in negative {
        facts_error(&mut ctx, e);
    }
    ctx.set_subgraph_runner(run_subgraph);
    ctx.set_op_rules(options.op_rules.clone());
    ctx.reserve(room);
    if options.binds.is_empty() && options.assumes.is_empty() {
        return ctx;
    }
    if let Err(e) = check_fact_count(options.binds.len(), options.assumes.len()) {
        facts_error(&mut ctx, e);
        return ctx;
    }
    let known = options.known_symbols(g);
    let mut bound: HashMap<&str, i64> = HashMap::default();
    // One batch: the facts arrive together, so the e-graph is resaturated once.
    ctx.alg.begin_facts();
    for (name, value) in &options.binds {
        let earlier = bound.get(name.as_str()).copied();
        if let Err(e) =
            check_bind(name, *value, &known).and_then(|()| check_bind_value(name, *value, earlier))
        {
            facts_error(&mut ctx, e);
            continue;
        }
        bound.insert(name, *value);
        if let Err(e) = ctx.alg.bind(name, *value) {
            model_diagnostic(
                &mut ctx,
                Severity::Error,
                format!("--bind {name}={value}: {e}"),
            );
        }
    }
    for fact in &options.assumes {
        if let Err(e) = check_assume(fact, &known) {
            facts_error(&mut ctx, e);
            continue;
        }
        if let Err(e) = ctx.alg.assume(fact) {
            model_diagnostic(&mut ctx, Severity::Error, format!("--assume {fact}: {e}"));
        }
    }
    ctx.alg.end_facts();
    ctx
}

fn model_diagnostic(ctx: &mut ShapesContext, severity: Severity, message: String) {
    model_diagnostic_cause(ctx, severity, message, None);
}

/// [`model_diagnostic`] with what it is about.
fn model_diagnostic_cause(
    ctx: &mut ShapesContext,
    severity: Severity,
    message: String,
    cause: Option<crate::context::Cause>,
) {
    ctx.diagnostics.push(crate::context::Diagnostic {
        severity,
        node: String::new(),
        op: String::new(),
        message,
        cause,
    });
}

/// Infer a subgraph (an If branch, a Loop or Scan body) in a nested scope.
///
/// `inputs` are the facts of the subgraph's formal inputs, in order, with their
/// sequence and optional facts. The subgraph reads outer values by name (their
/// sequence and optional facts too); its own values are removed from the context
/// afterwards (outer values it shadowed are restored, with their sequence and
/// optional facts), so branches do not leak into each other. Returns the facts of its
/// outputs, in order; an error past [`crate::context::MAX_SUBGRAPH_DEPTH`] nested
/// subgraphs.
fn run_subgraph(
    ctx: &mut ShapesContext,
    g: &Graph,
    inputs: &[SubgraphValue],
) -> Result<Vec<SubgraphValue>, SubgraphError> {
    if ctx.depth >= crate::context::MAX_SUBGRAPH_DEPTH {
        return Err(SubgraphError::TooDeep {
            limit: crate::context::MAX_SUBGRAPH_DEPTH,
        });
    }
    ctx.depth += 1;
    let mut names: Vec<&str> = Vec::new();
    names.extend(g.initializers.keys().map(String::as_str));
    names.extend(g.inputs.iter().map(|v| &*v.name));
    names.extend(
        g.nodes
            .iter()
            .flat_map(|n| n.outputs.iter().map(|s| &**s))
            .filter(|s| !s.is_empty()),
    );
    let saved: Vec<(String, SubgraphValue)> = names
        .iter()
        .filter_map(|n| ctx.remove_value(n).map(|v| (n.to_string(), v)))
        .collect();
    for (name, t) in &g.initializers {
        let fact = const_fact(&mut ctx.alg, t);
        ctx.insert(name, fact);
    }
    for (i, v) in g.inputs.iter().enumerate() {
        let value = match inputs.get(i) {
            Some(f) => f.clone(),
            None => {
                let shape = declared_shape(ctx, v, "subgraph input");
                SubgraphValue::tensor(TensorFact {
                    fill: None,
                    dtype: v.dtype,
                    shape,
                    value: None,
                })
            }
        };
        ctx.insert_value(&v.name, value);
    }
    run_graph(ctx, g);
    ctx.record_subgraph(g, &names);
    let outs = g
        .outputs
        .iter()
        .map(|v| {
            ctx.value(&v.name)
                .unwrap_or_else(|| SubgraphValue::tensor(TensorFact::unknown(v.dtype)))
        })
        .collect();
    for n in &names {
        ctx.remove(n);
    }
    for (n, v) in saved {
        ctx.insert_value(&n, v);
    }
    ctx.depth -= 1;
    Ok(outs)
}

/// Run the nodes of a graph whose inputs are already in the context.
fn run_graph(ctx: &mut ShapesContext, g: &Graph) {
    let declared = declared_of(g);
    let (order, stuck) = topo_order(ctx, g);
    run_order(ctx, g, &order, &declared);
    // What each node of a cycle waits for, read before any of them gets outputs.
    let waits: Vec<Vec<&str>> = stuck
        .iter()
        .map(|&i| {
            g.nodes[i]
                .inputs
                .iter()
                .filter(|n| !n.is_empty() && ctx.get(n).is_none())
                .map(|s| &**s)
                .collect()
        })
        .collect();
    for (&i, waiting) in stuck.iter().zip(waits) {
        let node = &g.nodes[i];
        let msg = format!(
            "{}: the node is part of a cycle (it waits for {})",
            node_context(node),
            waiting.join(", ")
        );
        ctx.diagnose(Severity::Error, node, msg);
        for out in node.outputs.iter().filter(|o| !o.is_empty()) {
            if ctx.get(out).is_none() {
                ctx.insert(out, TensorFact::unknown(crate::graph::DType::Undefined));
            }
        }
    }
}

/// A deterministic topological order: file order where possible, the lowest ready
/// index otherwise. Returns the order and the nodes that never became ready (cycles).
/// The first node to produce each tensor of `g`, by name.
fn producers(g: &Graph) -> HashMap<&Name, usize> {
    let mut producer: HashMap<&Name, usize> =
        HashMap::with_capacity_and_hasher(g.nodes.len() * 2, Default::default());
    for (i, n) in g.nodes.iter().enumerate() {
        for o in n.outputs.iter().filter(|o| !o.is_empty()) {
            producer.entry(o).or_insert(i);
        }
    }
    producer
}

/// Whether `g`'s nodes are already in a topological order: every input (or name a
/// subgraph captures) that a node of `g` produces is produced by an earlier node,
/// unless `known` (a tensor defined before the nodes run). `producer` holds the first
/// node to produce each name, so "an earlier node produced it" is `p < i`.
fn is_sorted(g: &Graph, producer: &HashMap<&Name, usize>, known: impl Fn(&Name) -> bool) -> bool {
    g.nodes.iter().enumerate().all(|(i, n)| {
        n.inputs
            .iter()
            .chain(subgraph_captures(n).iter())
            .all(|s| s.is_empty() || !producer.get(s).is_some_and(|&p| p >= i) || known(s))
    })
}

fn topo_order(ctx: &ShapesContext, g: &Graph) -> (Vec<usize>, Vec<usize>) {
    topo_order_with(g, |s| ctx.get(s).is_some())
}

/// The order the driver runs the nodes of the main graph `g` in, without
/// running them: what is known before any node runs is the graph's inputs and
/// initializers. The nodes of a cycle come last, in file order.
pub(crate) fn node_order(g: &Graph) -> Vec<usize> {
    let known: FxHashSet<&str> = g
        .inputs
        .iter()
        .map(|v| &*v.name)
        .chain(g.initializers.keys().map(String::as_str))
        .collect();
    let (mut order, stuck) = topo_order_with(g, |s| known.contains(&**s));
    order.extend(stuck);
    order
}

/// [`topo_order`] with `known` saying which names are defined before the nodes run.
fn topo_order_with(g: &Graph, known: impl Fn(&Name) -> bool) -> (Vec<usize>, Vec<usize>) {
    let producer = producers(g);
    // Inputs a node waits for: produced by another node of this graph.
    let deps = |i: usize| -> Vec<usize> {
        let mut v: Vec<usize> = g.nodes[i]
            .inputs
            .iter()
            .chain(subgraph_captures(&g.nodes[i]).iter())
            .filter(|s| !s.is_empty() && !known(s))
            .filter_map(|s| producer.get(s).copied())
            .filter(|&p| p != i)
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    // Fast path: the file is already sorted, as exporters write it.
    if is_sorted(g, &producer, &known) {
        return ((0..g.nodes.len()).collect(), Vec::new());
    }
    let preds: Vec<Vec<usize>> = (0..g.nodes.len())
        .map(|i| {
            let mut d = deps(i);
            // a node that consumes its own output never runs
            let own = |s: &Name| producer.get(s) == Some(&i);
            if g.nodes[i].inputs.iter().any(own) {
                d.push(i);
            }
            d
        })
        .collect();
    match crate::graph::topological_order(&preds) {
        Ok(order) => (order, Vec::new()),
        Err(c) => (c.order, c.stuck),
    }
}

/// Names a node's subgraphs read from the enclosing scope (their free inputs).
pub(crate) fn subgraph_captures(n: &Node) -> Vec<crate::graph::Name> {
    let mut out = Vec::new();
    for a in n.attrs.values() {
        let graphs: Vec<&Graph> = match a {
            crate::graph::Attr::Graph(g) => vec![g],
            crate::graph::Attr::Graphs(gs) => gs.iter().collect(),
            _ => continue,
        };
        for g in graphs {
            let mut defined: FxHashSet<&str> = g.inputs.iter().map(|v| &*v.name).collect();
            defined.extend(g.initializers.keys().map(String::as_str));
            for node in &g.nodes {
                for i in node.inputs.iter().chain(subgraph_captures(node).iter()) {
                    if !i.is_empty() && !defined.contains(&**i) && !out.contains(i) {
                        out.push(i.clone());
                    }
                }
                defined.extend(node.outputs.iter().map(|s| &**s));
            }
        }
    }
    out
}

fn run_node(ctx: &mut ShapesContext, node: &Node, declared: &HashMap<&Name, &ValueDecl>) {
    // Interrupted (`Config::interrupt`): the rest of the graph is skipped, its outputs
    // unknown; the caller that interrupted discards the result.
    if ctx.alg.interrupted() {
        for out in node.outputs.iter().filter(|o| !o.is_empty()) {
            if ctx.get(out).is_none() {
                ctx.insert(out, TensorFact::unknown(crate::graph::DType::Undefined));
            }
        }
        return;
    }
    for (i, out) in node.outputs.iter().enumerate() {
        if !out.is_empty() && ctx.get(out).is_some() {
            let msg = format!("{}: output {i} `{out}` is already defined by another node or input; this node's value is ignored", node_context(node));
            ctx.diagnose(Severity::Error, node, msg);
        }
    }
    // A declared rule (`--op-rules`) wins over a built-in one.
    let rules = (!ctx.op_rules().is_empty()).then(|| ctx.op_rules().clone());
    let declared_rule = rules
        .as_ref()
        .and_then(|r| r.find(&node.domain, &node.op_type, node.version));
    // Only a built-in rule that ran keeps fills ([`ops::FillRule`]).
    let mut fill = ops::FillRule::Drops;
    let facts = match (declared_rule, ops::rule_for(&node.domain, &node.op_type)) {
        (Some(rule), _) => {
            match with_site(ctx, node, |ctx| ops::declared::apply(ctx, node, rule)) {
                Ok(facts) => facts,
                Err(e) => {
                    let msg = format!("{}: {e}", node_context(node));
                    ctx.diagnose_error(node, msg, e.is_proven());
                    fallback(ctx, node, declared, true)
                }
            }
        }
        (None, None) => {
            let domain = if node.domain.is_empty() {
                String::new()
            } else {
                format!("{}:", node.domain)
            };
            let msg = format!(
                "no shape rule for {domain}{}-{}; its outputs get their declared shapes or none",
                node.op_type, node.version
            );
            let cause = Cause::NoRule {
                domain: node.domain.clone(),
                version: node.version,
            };
            ctx.diagnose_cause(Severity::Warning, node, msg, Some(cause));
            fallback(ctx, node, declared, false)
        }
        (None, Some(rule)) => match run_rule(ctx, node, rule) {
            Ok(facts) => {
                fill = ops::fill_rule(&node.domain, &node.op_type);
                facts
            }
            Err(e) => {
                ctx.report_op_error(node, &e);
                fallback(ctx, node, declared, true)
            }
        },
    };
    let mut facts = facts.into_iter();
    for (i, out) in node.outputs.iter().enumerate() {
        let mut fact = facts
            .next()
            .unwrap_or_else(|| TensorFact::unknown(crate::graph::DType::Undefined));
        if out.is_empty() {
            continue;
        }
        keep_fill(ctx, node, i, fill, &mut fact);
        check_rank(ctx, node, i, out, &mut fact);
        if fact.shape.is_none() {
            warn_long_shape_input(ctx, node, i, out);
        }
        // Where the rule leaves the rank unknown, the model's declaration informs the
        // rest of the graph (as for a node whose rule failed).
        if fact.shape.is_none() {
            if let Some(v) = declared.get(out).filter(|v| v.shape.is_some()) {
                let d = declared_fact(ctx, node, i, v);
                fact.shape = d.shape;
                if fact.dtype == crate::graph::DType::Undefined {
                    fact.dtype = d.dtype;
                }
            }
        }
        check_dim_range(ctx, node, i, &mut fact);
        if ctx.depth == 0 && !ctx.alg.is_speculative() {
            check_dim_sign(ctx, node, i, &mut fact);
        }
        ctx.insert_if_absent(out, fact);
    }
    if ctx.depth == 0 && !ctx.alg.is_speculative() {
        assume_dims_nonneg(ctx, node);
    }
    if declared.is_empty() {
        return;
    }
    let outs: Vec<ValueDecl> = node
        .outputs
        .iter()
        .filter_map(|o| declared.get(o).map(|v| (*v).clone()))
        .collect();
    check_declared(ctx, &outs, "value_info");
}

/// A computed rank is capped like a declared one: an output of rank above
/// [`MAX_RANK`] (a chain of Unsqueezes, a ConstantOfShape or Expand of a long shape)
/// gets an unknown rank, with a warning naming the limit, so that no node after it
/// builds or compares more dims than the limit.
fn check_rank(
    ctx: &mut ShapesContext,
    node: &Node,
    output: usize,
    out: &Name,
    fact: &mut TensorFact,
) {
    let Some(rank) = fact.rank().filter(|&r| r > MAX_RANK) else {
        return;
    };
    let msg = format!(
        "{}: output {output} `{out}` has rank {rank}, above the rank limit of {MAX_RANK}; its rank is taken as unknown",
        node_context(node)
    );
    ctx.diagnose(Severity::Warning, node, msg);
    *fact = TensorFact::unknown(fact.dtype);
}

/// A rule reads a rank from a 1-D input's length (Unsqueeze's axes, the shape of
/// ConstantOfShape, Reshape or Expand) only up to [`MAX_RANK`]: when output `output`
/// has an unknown rank and an input has a constant length above the limit, a warning
/// names the limit, as [`check_rank`] does for a rank a rule computed.
fn warn_long_shape_input(ctx: &mut ShapesContext, node: &Node, output: usize, out: &Name) {
    let long = node.inputs.iter().enumerate().find_map(|(k, name)| {
        let f = ctx.get(name).filter(|_| !name.is_empty())?;
        let [d] = f.shape.as_deref()? else {
            return None;
        };
        let n = ctx.alg.as_const(*d)?;
        (n > crate::algebra::Rat::int(MAX_RANK as i64)).then_some((k, name, n))
    });
    let Some((k, name, n)) = long else {
        return;
    };
    let msg = format!(
        "{}: input {k} `{name}` has length {n}, above the rank limit of {MAX_RANK}; the rank of output {output} `{out}` is taken as unknown",
        node_context(node)
    );
    ctx.diagnose(Severity::Warning, node, msg);
}

/// A dim is an int64 in every format: a constant dim outside `[0, 2**63 - 1]` (a
/// Concat of two `[2**63 - 1]`, a Reshape of `[2**32, 2**32]` to `[-1]`) is an error
/// naming the node, the output and the value, and the dim becomes unknown, as value
/// arithmetic that overflows does.
fn check_dim_range(ctx: &mut ShapesContext, node: &Node, output: usize, fact: &mut TensorFact) {
    let Some(shape) = fact.shape.as_mut() else {
        return;
    };
    static MAX: std::sync::OnceLock<crate::algebra::Rat> = std::sync::OnceLock::new();
    for (axis, d) in shape.iter_mut().enumerate() {
        let Some(c) = ctx.alg.as_const(*d) else {
            continue;
        };
        // A small rational (bit length 0) is below 2^62, inside the range.
        let max = || MAX.get_or_init(|| crate::algebra::Rat::int(i64::MAX));
        if !c.is_negative() && (c.bits() == 0 || c <= *max()) {
            continue;
        }
        let msg = format!(
            "{}: output {output} axis {axis}: the dim {c} is outside the int64 range of a dim [0, {}]",
            node_context(node),
            i64::MAX
        );
        ctx.diagnose(Severity::Error, node, msg);
        *d = ctx.unknown_dim(node, output, axis);
    }
}

/// A dim is never negative: a symbolic dim the algebra proves negative for every
/// value of its symbols (`0 - N` from an `--op-rules` rule) is an error naming the
/// node, the output, the axis and the dim, and the dim becomes unknown, as a negative
/// constant does ([`check_dim_range`]). Only in the main graph, outside a branch that
/// may not run (see [`assume_dims_nonneg`]).
fn check_dim_sign(ctx: &mut ShapesContext, node: &Node, output: usize, fact: &mut TensorFact) {
    let Some(shape) = fact.shape.as_mut() else {
        return;
    };
    let zero = ctx.alg.constant(0);
    for (axis, d) in shape.iter_mut().enumerate() {
        if ctx.alg.as_const(*d).is_some() || ctx.alg.le(zero, *d) != crate::algebra::Truth::False {
            continue;
        }
        let msg = format!(
            "{}: output {output} axis {axis}: the dim {} is negative for every value of its symbols",
            node_context(node),
            ctx.alg.render(*d)
        );
        ctx.diagnose(Severity::Error, node, msg);
        *d = ctx.unknown_dim(node, output, axis);
    }
}

/// A valid model has no negative dim: each output dim of `node` that the algebra
/// cannot prove `>= 0` is assumed to be, so that what follows is inferred for the
/// inputs the model accepts (`max(0, d)` is `d` there), and the condition is
/// recorded for the contract (source `dims`). Only in the main graph, outside a
/// branch that may not run: a dim of a body that never runs may be negative.
fn assume_dims_nonneg(ctx: &mut ShapesContext, node: &Node) {
    let mut open: Vec<Dim> = Vec::new();
    for out in node.outputs.iter().filter(|o| !o.is_empty()) {
        let Some(shape) = ctx.get(out).and_then(|f| f.shape.as_ref()) else {
            continue;
        };
        for &d in shape {
            if !open.contains(&d) && !ctx.alg.is_nonneg(d) {
                open.push(d);
            }
        }
    }
    for d in open {
        let zero = ctx.alg.constant(0);
        ctx.alg.record_requirement(zero, d, &node.name, "dims");
        let fact = crate::algebra::Fact {
            lhs: ctx.alg.canon(d).to_expr(),
            rel: crate::algebra::Rel::Ge,
            rhs: crate::algebra::Expr::Num(crate::algebra::Rat::zero()),
        };
        // A dim negative for every value is an error the contract reports.
        let _ = ctx.alg.assume_fact(&fact);
    }
}

/// Apply the op's [`ops::FillRule`] to output `i`'s fact: a fill the rule did not
/// mean is cleared, and an op that only moves input 0's elements passes its fill
/// on. A fact with a value keeps no fill (the value says more).
fn keep_fill(
    ctx: &ShapesContext,
    node: &Node,
    i: usize,
    rule: ops::FillRule,
    fact: &mut TensorFact,
) {
    match rule {
        ops::FillRule::Own => {}
        ops::FillRule::Through if i == 0 && fact.value.is_none() => {
            fact.fill = node
                .input(0)
                .and_then(|x| ctx.get(x))
                .and_then(|x| x.uniform(&ctx.alg));
        }
        _ => fact.fill = None,
    }
    if fact.value.is_some() {
        fact.fill = None;
    }
}

/// Run an op rule, inside a speculative scope with the node named as the algebra's
/// site (restored afterwards: rules nest through subgraphs). Outside one the site is
/// never read ([`crate::algebra::Algebra::set_site`]), and the rule that opens a
/// scope names its own node first.
fn run_rule(
    ctx: &mut ShapesContext,
    node: &Node,
    rule: crate::ops::OpRule,
) -> Result<Vec<TensorFact>, OpError> {
    with_site(ctx, node, |ctx| rule(ctx, node))
}

/// Run `f` with the node named as the algebra's site inside a speculative scope
/// (see [`run_rule`]).
fn with_site<T>(
    ctx: &mut ShapesContext,
    node: &Node,
    f: impl FnOnce(&mut ShapesContext) -> T,
) -> T {
    if !ctx.alg.is_speculative() {
        return f(ctx);
    }
    let outer = ctx.alg.set_site(&node.name);
    let result = f(ctx);
    ctx.alg.set_site(&outer);
    result
}
