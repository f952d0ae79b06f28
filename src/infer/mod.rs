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

use crate::algebra::{Algebra, Config, Dim, Expr, Fact, Rat, Rel, SymbolKind, Truth};
use crate::context::facts::{
    check_assume, check_bind, negative_lower_bounds, Facts, FactsError, InputDimError, LowerBound,
};
use crate::context::{
    const_fact, node_context, Cause, OpError, Severity, ShapesContext, SubgraphError,
    SubgraphValue, TensorFact, MAX_RANK,
};
use crate::graph::{ConstData, DeclDim, Graph, Model, Name, Node, ValueDecl};
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
    let known = options.known_symbols(g);
    for (name, value) in &options.binds {
        if let Err(e) = check_bind(name, *value, &known) {
            facts_error(&mut ctx, e);
            continue;
        }
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

/// One error per constant whose values could not be read ([`ConstData::Unreadable`])
/// and one warning per constant of a rank above [`MAX_RANK`] (whose rank
/// [`const_fact`] takes as unknown): initializers and tensor attributes (a
/// `Constant`'s `value`) of `g` and of its subgraphs, each reported once, naming the
/// tensor and why.
fn report_constants(ctx: &mut ShapesContext, g: &Graph) {
    // Breadth first, in file order.
    let mut graphs = vec![(g, true)];
    let mut next = 0;
    while let Some(&(g, main)) = graphs.get(next) {
        next += 1;
        let of_graph = if main {
            String::new()
        } else {
            format!(" of subgraph `{}`", g.name)
        };
        for (name, t) in &g.initializers {
            if let ConstData::Unreadable { reason } = &t.data {
                let msg = format!(
                    "initializer `{name}`{of_graph}: its data cannot be read ({reason}); its values are unknown"
                );
                model_diagnostic(ctx, Severity::Error, msg);
            }
            if t.dims.len() > MAX_RANK {
                let what = format!("initializer{of_graph}");
                let msg = rank_limit_message(&what, name, t.dims.len());
                model_diagnostic(ctx, Severity::Warning, msg);
            }
        }
        for node in &g.nodes {
            for (attr, value) in node.attrs.iter() {
                match value {
                    crate::graph::Attr::Tensor(t) => {
                        if let ConstData::Unreadable { reason } = &t.data {
                            let msg = format!(
                                "{}: tensor attribute `{attr}`{of_graph}: its data cannot be read ({reason}); its values are unknown",
                                node_context(node)
                            );
                            ctx.diagnose(Severity::Error, node, msg);
                        }
                        if t.dims.len() > MAX_RANK {
                            let msg = format!(
                                "{}: {}",
                                node_context(node),
                                rank_limit_message(
                                    &format!("tensor attribute{of_graph}"),
                                    attr,
                                    t.dims.len()
                                )
                            );
                            ctx.diagnose(Severity::Warning, node, msg);
                        }
                    }
                    crate::graph::Attr::Graph(sub) => graphs.push((sub, false)),
                    crate::graph::Attr::Graphs(subs) => {
                        graphs.extend(subs.iter().map(|sub| (sub, false)));
                    }
                    _ => {}
                }
            }
        }
    }
}

/// The dims of a declared tensor `v` (`what`: `input`, ...), or `None` when its rank is
/// unknown or above [`MAX_RANK`]: a declared rank is capped like a computed one (a
/// model declaring two rank-5,000 inputs would otherwise build and broadcast 5,000
/// dims each), with a warning naming the limit.
fn declared_shape(ctx: &mut ShapesContext, v: &ValueDecl, what: &str) -> Option<Vec<Dim>> {
    let dims = v.shape.as_ref()?;
    if dims.len() > MAX_RANK {
        model_diagnostic(
            ctx,
            Severity::Warning,
            rank_limit_message(what, &v.name, dims.len()),
        );
        return None;
    }
    Some(decl_dims(ctx, &v.name, dims))
}

/// The warning for a declared rank above [`MAX_RANK`].
fn rank_limit_message(what: &str, name: &str, rank: usize) -> String {
    format!(
        "{what} `{name}` is declared with rank {rank}, above the rank limit of {MAX_RANK}; its rank is taken as unknown"
    )
}

/// A declared dim's text: its expression when it parses into a defined value, else a
/// symbol named by the text.
fn param_dim(ctx: &mut ShapesContext, p: &str) -> Dim {
    ctx.alg.parse(p).unwrap_or_else(|_| ctx.alg.input(p))
}

/// Dims of a declared shape; unnamed dynamic dims become `<tensor>.<axis>` symbols.
fn decl_dims(ctx: &mut ShapesContext, tensor: &str, dims: &[DeclDim]) -> Vec<Dim> {
    dims.iter()
        .enumerate()
        .map(|(axis, d)| match d {
            DeclDim::Value(v) => ctx.alg.constant(*v),
            DeclDim::Param(p) => param_dim(ctx, p),
            DeclDim::Unknown => ctx.alg.input(&format!("{tensor}.{axis}")),
            DeclDim::Interval { lo, hi } => {
                let name = format!("{tensor}.{axis}");
                let s = ctx.alg.input(&name);
                // A declared bound that contradicts another is left out (the symbol
                // keeps the bounds it had).
                let _ = ctx.alg.assume_fact(&symbol_bound(&name, Rel::Ge, *lo));
                if let Some(hi) = hi {
                    let _ = ctx.alg.assume_fact(&symbol_bound(&name, Rel::Le, *hi));
                }
                s
            }
        })
        .collect()
}

/// The fact `name rel value` about a symbol.
fn symbol_bound(name: &str, rel: Rel, value: i64) -> Fact {
    Fact {
        lhs: Expr::Sym(name.to_string()),
        rel,
        rhs: Expr::Num(Rat::int(value)),
    }
}

fn declare_inputs(ctx: &mut ShapesContext, g: &Graph) {
    for (name, t) in &g.initializers {
        let fact = const_fact(&mut ctx.alg, t);
        ctx.insert(name, fact);
    }
    for v in &g.inputs {
        let shape = declared_shape(ctx, v, "input");
        ctx.insert(
            &v.name,
            TensorFact {
                dtype: v.dtype,
                shape,
                value: None,
            },
        );
    }
}

/// Record why a fact of the caller cannot be used (an error; the fact is left out).
fn facts_error(ctx: &mut ShapesContext, e: FactsError) {
    let msg = e.to_string();
    model_diagnostic_cause(ctx, Severity::Error, msg, Some(Cause::Facts(e)));
}

/// Record why an input dim the caller set cannot be applied (an error).
fn input_dim_error(ctx: &mut ShapesContext, e: InputDimError) {
    facts_error(ctx, FactsError::InputDim(e));
}

/// Replace the declared dims of graph inputs by the caller's ([`crate::context::facts::InputDim`]);
/// one naming no input, an axis past the rank or an input of unknown rank
/// ([`crate::context::facts::InputDim::check`]) is an error diagnostic.
fn override_inputs(ctx: &mut ShapesContext, g: &Graph, inputs: &[crate::context::facts::InputDim]) {
    for o in inputs {
        if let Err(e) = o.check(g) {
            input_dim_error(ctx, e);
            continue;
        }
        let (tensor, axis) = (o.tensor.clone(), o.axis);
        let Some(v) = g.inputs.iter().find(|v| *v.name == *o.tensor) else {
            continue;
        };
        // The checks again, against the input's facts: of a graph that declares the
        // name twice, the context holds the last declaration.
        let Some(mut shape) = ctx.get(&v.name).and_then(|f| f.shape.clone()) else {
            input_dim_error(ctx, InputDimError::UnknownRank { tensor, axis });
            continue;
        };
        if o.axis >= shape.len() {
            let rank = shape.len();
            input_dim_error(ctx, InputDimError::AxisPastRank { tensor, axis, rank });
            continue;
        }
        shape[o.axis] = decl_dims(ctx, &v.name, std::slice::from_ref(&o.dim))[0];
        let dtype = v.dtype;
        ctx.insert(
            &v.name,
            TensorFact {
                dtype,
                shape: Some(shape),
                value: None,
            },
        );
    }
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
                    dtype: v.dtype,
                    shape,
                    value: None,
                })
            }
        };
        ctx.insert_value(&v.name, value);
    }
    run_graph(ctx, g);
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

/// The shapes a graph declares for its tensors (value_info and outputs), by name.
fn declared_of(g: &Graph) -> HashMap<&Name, &ValueDecl> {
    // A declaration with a shape wins over one without (a graph output is often
    // declared without a shape and again, with one, in value_info).
    let mut declared: HashMap<&Name, &ValueDecl> = HashMap::default();
    for v in g.value_info.iter().chain(g.outputs.iter()) {
        let slot = declared.entry(&v.name).or_insert(v);
        if slot.shape.is_none() {
            *slot = v;
        }
    }
    declared
}

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
fn run_order(
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
    let producer = producers(g);
    // Inputs a node waits for: produced by another node of this graph.
    let deps = |i: usize| -> Vec<usize> {
        let mut v: Vec<usize> = g.nodes[i]
            .inputs
            .iter()
            .chain(subgraph_captures(&g.nodes[i]).iter())
            .filter(|s| !s.is_empty() && ctx.get(s).is_none())
            .filter_map(|s| producer.get(s).copied())
            .filter(|&p| p != i)
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    // Fast path: the file is already sorted, as exporters write it.
    if is_sorted(g, &producer, |s| ctx.get(s).is_some()) {
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
fn subgraph_captures(n: &Node) -> Vec<crate::graph::Name> {
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
            Ok(facts) => facts,
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

/// Outputs of a node that could not be inferred: the declared shape, or none.
fn fallback(
    ctx: &mut ShapesContext,
    node: &Node,
    declared: &HashMap<&Name, &ValueDecl>,
    failed: bool,
) -> Vec<TensorFact> {
    node.outputs
        .iter()
        .enumerate()
        .map(|(i, out)| match declared.get(out) {
            Some(v) => declared_fact(ctx, node, i, v),
            None => match failed_rank(ctx, node) {
                // A node whose rule failed but whose output rank the op fixes: fresh
                // dims of that rank, so its consumers are still inferred.
                Some((rank, dtype)) if failed => {
                    let kind = SymbolKind::DataDependent {
                        node: node.name.clone(),
                    };
                    let dims = (0..rank)
                        .map(|axis| ctx.fresh_dim(node, i, axis, "unk", kind.clone()))
                        .collect();
                    TensorFact::new(dtype, dims)
                }
                _ => TensorFact::unknown(crate::graph::DType::Undefined),
            },
        })
        .collect()
}

/// The fact of output `i` of `node` as the model declares it (`v`): a `dim_value` is a
/// constant, a `dim_param` an expression, an unnamed dim a fresh symbol of the data
/// (`unk`); a rank above [`MAX_RANK`] is unknown.
fn declared_fact(ctx: &mut ShapesContext, node: &Node, i: usize, v: &ValueDecl) -> TensorFact {
    let dims = v.shape.as_ref().filter(|dims| dims.len() <= MAX_RANK);
    let shape = dims.map(|dims| {
        dims.iter()
            .enumerate()
            .map(|(axis, d)| match d {
                DeclDim::Value(x) => ctx.alg.constant(*x),
                DeclDim::Param(p) => param_dim(ctx, p),
                _ => {
                    let kind = SymbolKind::DataDependent {
                        node: node.name.clone(),
                    };
                    ctx.fresh_dim(node, i, axis, "unk", kind)
                }
            })
            .collect()
    });
    TensorFact {
        dtype: v.dtype,
        shape,
        value: None,
    }
}

/// The output rank (and element type) an op fixes whatever its operands' dims: the
/// rank of input 0 for rank-preserving ops, the broadcast rank of elementwise ops,
/// the target length of Reshape. `None` when it cannot be told.
fn failed_rank(ctx: &ShapesContext, node: &Node) -> Option<(usize, crate::graph::DType)> {
    use crate::graph::DType;
    if !node.domain.is_empty() {
        return None;
    }
    let rank_of = |i: usize| {
        node.input(i)
            .and_then(|n| ctx.get(n))
            .and_then(|f| f.rank())
    };
    let dtype_of = |i: usize| {
        node.input(i)
            .and_then(|n| ctx.get(n))
            .map_or(DType::Undefined, |f| f.dtype)
    };
    let op = node.op_type.as_str();
    match op {
        "Relu"
        | "Sigmoid"
        | "Tanh"
        | "Softmax"
        | "LogSoftmax"
        | "Identity"
        | "Dropout"
        | "LayerNormalization"
        | "BatchNormalization"
        | "InstanceNormalization"
        | "Pad"
        | "Slice"
        | "Transpose"
        | "Conv"
        | "ConvTranspose"
        | "MaxPool"
        | "AveragePool"
        | "Resize"
        | "Split"
        | "Concat"
        | "Clip"
        | "Erf"
        | "Gelu"
        | "Abs"
        | "Neg"
        | "Sqrt"
        | "Exp"
        | "Log"
        | "CumSum"
        | "Tile"
        | "LeakyRelu"
        | "HardSigmoid"
        | "Softplus" => Some((rank_of(0)?, dtype_of(0))),
        "Add" | "Sub" | "Mul" | "Div" | "Pow" | "Mod" | "Max" | "Min" | "Sum" | "Mean"
        | "PRelu" | "Equal" | "Less" | "Greater" | "LessOrEqual" | "GreaterOrEqual" | "And"
        | "Or" | "Xor" | "Where" => {
            let ranks: Option<Vec<usize>> = (0..node.inputs.len()).map(rank_of).collect();
            let rank = ranks?.into_iter().max()?;
            let dtype = match op {
                "Equal" | "Less" | "Greater" | "LessOrEqual" | "GreaterOrEqual" | "And" | "Or"
                | "Xor" => DType::Bool,
                "Where" => dtype_of(1),
                _ => dtype_of(0),
            };
            Some((rank, dtype))
        }
        "MatMul" => {
            let (a, b) = (rank_of(0)?, rank_of(1)?);
            (a >= 2 && b >= 2).then_some((a.max(b), dtype_of(0)))
        }
        "Reshape" => {
            let target = ctx.get(node.input(1)?)?;
            Some((target.static_len(&ctx.alg)?, dtype_of(0)))
        }
        _ => None,
    }
}

/// Compare declared shapes with inferred ones; report provable contradictions.
fn check_declared(ctx: &mut ShapesContext, decls: &[ValueDecl], what: &str) {
    for v in decls {
        let Some(fact) = ctx.get(&v.name).cloned() else {
            continue;
        };
        let (Some(dshape), Some(ishape)) = (&v.shape, &fact.shape) else {
            continue;
        };
        // The texts are for the messages only: rendered when there is one.
        if dshape.len() != ishape.len() {
            let msg = format!(
                "{what} `{}` is declared {} but inferred {} (rank {} vs {})",
                v.name,
                render_decl(dshape),
                ctx.render_dims(ishape),
                dshape.len(),
                ishape.len()
            );
            model_diagnostic(ctx, Severity::Error, msg);
            continue;
        }
        for (axis, (d, i)) in dshape.iter().zip(ishape).enumerate() {
            if let DeclDim::Value(x) = d {
                let c = ctx.alg.constant(*x);
                if ctx.alg.equal(c, *i) == Truth::False {
                    let msg = format!(
                        "{what} `{}` is declared {} but inferred {} (axis {axis}: {x} != {})",
                        v.name,
                        render_decl(dshape),
                        ctx.render_dims(ishape),
                        ctx.alg.render(*i)
                    );
                    model_diagnostic(ctx, Severity::Error, msg);
                    break;
                }
            }
        }
    }
}

fn render_decl(dims: &[DeclDim]) -> String {
    let parts: Vec<String> = dims
        .iter()
        .map(|d| match d {
            DeclDim::Value(v) => v.to_string(),
            DeclDim::Param(p) => p.clone(),
            DeclDim::Unknown => "?".to_string(),
            DeclDim::Interval { lo, hi: Some(hi) } => format!("{lo}..{hi}"),
            DeclDim::Interval { lo, hi: None } => format!("{lo}.."),
        })
        .collect();
    format!("[{}]", parts.join(", "))
}
