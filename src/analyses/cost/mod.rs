//! What a model costs, as formulas of its input dims (`symdim cost`,
//! `docs/cost.md`): per node its MACs and FLOPs, per tensor its elements and
//! bytes, and for the model its parameters, total MACs and FLOPs, activation
//! bytes, the peak of live activation bytes and the KV cache.
//!
//! Every figure is a dim built in a copy of the inference algebra
//! ([`crate::algebra::Algebra`]): the per-node formulas are the op families'
//! ([`crate::ops::cost_for`]), a tensor's bytes `elements × bits / 8` (sub-byte
//! types packed: `ceildiv(elements × bits, 8)`), sums and maxima the algebra's.
//! A figure whose shapes are not known, or that reached one of the algebra's size
//! limits (a placeholder symbol), is `None`.
//!
//! **Liveness** (`peak.rs`): steps are the main graph's nodes in the driver's
//! order. A graph input is live from step 0 through its last consumer; a node's
//! outputs from its step through their last consumer's step (graph outputs to
//! the last step); a node that holds a subgraph consumes what the subgraph reads
//! from outside. Initializers and `Constant` outputs are parameters, not
//! activations. The peak is the `max` of the step sums, after dropping every step
//! the algebra proves `<=` another for every value (under the facts, and the
//! `--range` box when one is given); at most [`MAX_PEAK_COMPARE`] kept steps are
//! compared with each step, so the work is bounded by the node count.
//!
//! Subgraphs (If branches, Loop and Scan bodies) are costed apart
//! (`subgraph.rs`): one run of each, and a loop's iterations and total where
//! proven. The node that holds one has no formula of its own and is listed among
//! the nodes left out of the totals and the peak, with a note.

mod peak;
pub mod plot;
mod subgraph;

use crate::algebra::{Algebra, Dim, DimExpr, Expr, Fact, Rat, Rel, SymbolKind};
use crate::context::facts::Facts;
use crate::context::ShapesContext;
use crate::contracts::ranges::{RangeError, Request, UserRange};
use crate::graph::{DType, Model};
use indexmap::IndexMap;
use rustc_hash::FxHashMap;

pub use peak::{MAX_PEAK_COMPARE, SAMPLE_VALUE};

/// How deeply derived symbols may be expanded to evaluate a figure at bound
/// values (a derived symbol's definition names other symbols).
pub const MAX_EVAL_DEPTH: usize = 64;

/// What the caller asks of `cost`: values to evaluate every figure at, and a box
/// to bound every figure over.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CostRequest {
    /// `--bind NAME=INT`: each figure's value at these (the formulas stay
    /// symbolic).
    pub binds: Vec<(String, i64)>,
    /// `--range NAME=LO..HI`: each figure's largest value over the box (the
    /// contract's ranges intersected with these, as `symdim ranges` gives them).
    pub ranges: Vec<UserRange>,
}

/// One figure: its formula, and its value at the binds and its bound over the
/// box when asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Figure {
    /// The formula, over the model's symbols.
    pub expr: DimExpr,
    /// Its value at the request's binds; `None` without binds or when a symbol it
    /// names has no value there.
    pub value: Option<Rat>,
    /// Its largest value over the request's box: `Some(None)` when not proven
    /// (no upper bound found), `None` without a box.
    pub max: Option<Option<Rat>>,
}

/// One node's cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeCost {
    /// The node's name.
    pub node: String,
    /// Its op type.
    pub op: String,
    /// Its step in the order the peak is taken over.
    pub step: usize,
    /// MACs; `None`: no formula, or shapes not known.
    pub macs: Option<Figure>,
    /// FLOPs; `None` as for `macs`.
    pub flops: Option<Figure>,
    /// The MACs at the binds, with every other input symbol at
    /// [`SAMPLE_VALUE`]: what [`Cost::top`] orders by.
    pub macs_sample: Option<Rat>,
}

/// Whether a tensor is an activation or a parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TensorRole {
    /// A graph input or a node output.
    Activation,
    /// An initializer or a `Constant` output.
    Parameter,
}

/// One tensor's size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorCost {
    /// Its element type.
    pub dtype: DType,
    /// Activation or parameter.
    pub role: TensorRole,
    /// Its element count; `None` for an unknown rank.
    pub elements: Option<Figure>,
    /// Its size in bytes; `None` when not sized (strings, opaque or unknown
    /// element types, unknown rank).
    pub bytes: Option<Figure>,
}

/// One step that may be the peak: its node and its live bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeakStep {
    /// The node of the step.
    pub node: String,
    /// The live activation bytes there.
    pub bytes: Figure,
}

/// The model's totals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Totals {
    /// Parameter elements (initializers and `Constant` outputs), when every one
    /// is known.
    pub parameters: Option<Rat>,
    /// Parameter bytes, when every parameter is sized.
    pub parameter_bytes: Option<Rat>,
    /// The sum of the nodes' MACs (of those with a formula).
    pub macs: Option<Figure>,
    /// The sum of the nodes' FLOPs (of those with a formula).
    pub flops: Option<Figure>,
    /// Nodes of the main graph left out of `macs` and `flops`: no formula, or
    /// shapes not known.
    pub left_out: Vec<String>,
    /// The sum of every activation's bytes; `None` when one is not sized.
    pub activation_bytes: Option<Figure>,
    /// The peak of live activation bytes; `None` when an activation is not sized.
    pub peak_bytes: Option<Figure>,
    /// The steps the peak may be at (those not proven dominated).
    pub peak_steps: Vec<PeakStep>,
    /// Activations without a size.
    pub not_sized: Vec<String>,
    /// The bytes of the `present*` outputs (else the `past*` inputs); `None`
    /// when the model has neither.
    pub kv_cache_bytes: Option<Figure>,
}

/// One subgraph's cost: an `If` branch, a `Loop` or `Scan` body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubgraphCost {
    /// The node that holds it.
    pub node: String,
    /// That node's op type.
    pub op: String,
    /// The attribute it is (`then_branch`, `else_branch`, `body`; `NAME[i]` in a
    /// list of graphs).
    pub attribute: String,
    /// False when inference never ran it (a known condition skips the branch):
    /// then it has no figures.
    pub inferred: bool,
    /// Per node of the subgraph, in its order (`step` is the position there), for
    /// one run.
    pub nodes: Vec<NodeCost>,
    /// The sum of its nodes' MACs (of those with a formula), for one run.
    pub macs: Option<Figure>,
    /// The sum of its nodes' FLOPs, for one run.
    pub flops: Option<Figure>,
    /// Its nodes left out of `macs` and `flops`.
    pub left_out: Vec<String>,
    /// How many times a `Loop` or `Scan` runs the body, when inference proves it.
    pub iterations: Option<Figure>,
    /// `iterations × macs`; `None` when the count is not proven or the body's
    /// figures may change from one iteration to the next.
    pub total_macs: Option<Figure>,
    /// `iterations × flops`, likewise.
    pub total_flops: Option<Figure>,
    /// The subgraphs of its nodes.
    pub subgraphs: Vec<SubgraphCost>,
}

/// What `symdim cost` reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cost {
    /// The model's path.
    pub model: String,
    /// The symbols the figures name (with the definitions of derived ones), in
    /// creation order.
    pub symbols: IndexMap<String, SymbolKind>,
    /// The binds the values are at.
    pub binds: Vec<(String, i64)>,
    /// The box the maxima are over (`S in 1..512`), when asked.
    pub ranges: Vec<String>,
    /// Per node of the main graph, in step order.
    pub nodes: Vec<NodeCost>,
    /// Per tensor of the main graph (inputs, initializers, node outputs).
    pub tensors: IndexMap<String, TensorCost>,
    /// The totals.
    pub totals: Totals,
    /// The subgraphs of the main graph's nodes, in step order (left out of the
    /// totals and the peak).
    pub subgraphs: Vec<SubgraphCost>,
    /// What the figures leave out.
    pub notes: Vec<String>,
}

/// A figure's dim in the cost algebra, before it is read out.
type Built = Option<Dim>;

/// The cost of an inferred model (`ctx` under `facts`) for `request`.
pub fn cost(
    model: &Model,
    ctx: &ShapesContext,
    facts: &Facts,
    request: &CostRequest,
) -> Result<Cost, RangeError> {
    let boxed = if request.ranges.is_empty() {
        None
    } else {
        let r = crate::contracts::ranges::ranges(
            model,
            ctx,
            facts,
            &Request {
                ranges: request.ranges.clone(),
                opts: Vec::new(),
            },
        )?;
        Some(r)
    };
    let g = &model.graph;
    let mut alg = ctx.alg.clone();
    // The figures mostly repeat forms inference already holds (equal element
    // counts of different shapes): reusing their classes spares a merge, and the
    // rebuild of the whole e-graph it costs, per repeat.
    alg.set_reuse_forms(true);
    let since = alg.warnings().len();
    let order = crate::infer::node_order(g);

    // Per node.
    let mut node_dims: Vec<(usize, Built, Built)> = Vec::with_capacity(order.len());
    for &i in &order {
        let node = &g.nodes[i];
        // Interrupted (`Config::interrupt`): no more formulas; the caller discards
        // the result.
        if alg.interrupted() {
            node_dims.push((i, None, None));
            continue;
        }
        let c =
            crate::ops::cost_for(&node.domain, &node.op_type).map(|rule| rule(&mut alg, ctx, node));
        node_dims.push((i, c.and_then(|c| c.macs), c.and_then(|c| c.flops)));
    }

    // Per tensor.
    let constants: rustc_hash::FxHashSet<&str> = g
        .nodes
        .iter()
        .filter(|n| {
            &*n.op_type == "Constant" && crate::graph::canonical_domain(&n.domain).is_empty()
        })
        .flat_map(|n| n.outputs.iter().map(|o| &**o))
        .collect();
    let mut tensors: IndexMap<String, (DType, TensorRole, Built, Built)> = IndexMap::new();
    // Most tensors share their shape with others (every layer of a model repeats
    // its shapes): building the same product of the same classes again gives the
    // same class, so each (shape, dtype) is built once.
    let mut sized: FxHashMap<(&[Dim], DType), (Built, Built)> = FxHashMap::default();
    let mut add_tensor = |alg: &mut Algebra, name: &str, role: TensorRole| {
        if name.is_empty() || tensors.contains_key(name) {
            return;
        }
        let Some(f) = ctx.get(name) else { return };
        let (elements, bytes) = match f.shape.as_deref() {
            Some(shape) => *sized.entry((shape, f.dtype)).or_insert_with(|| {
                let e = alg.product(shape);
                (Some(e), bytes_of(alg, e, f.dtype))
            }),
            None => (None, None),
        };
        tensors.insert(name.to_string(), (f.dtype, role, elements, bytes));
    };
    for name in g.initializers.keys() {
        add_tensor(&mut alg, name, TensorRole::Parameter);
    }
    for v in &g.inputs {
        add_tensor(&mut alg, &v.name, TensorRole::Activation);
    }
    for &i in &order {
        for o in &g.nodes[i].outputs {
            let role = if constants.contains(&**o) {
                TensorRole::Parameter
            } else {
                TensorRole::Activation
            };
            add_tensor(&mut alg, o, role);
        }
    }

    // Totals.
    let mut left_out = Vec::new();
    let (mut macs, mut flops) = (Vec::new(), Vec::new());
    for (i, m, f) in &node_dims {
        match (m, f) {
            (Some(m), Some(f)) => {
                macs.push(*m);
                flops.push(*f);
            }
            _ => left_out.push(g.nodes[*i].name.clone()),
        }
    }
    let total_macs = alg.sum_forms(&macs);
    let total_flops = alg.sum_forms(&flops);
    let mut not_sized = Vec::new();
    let mut activation = Vec::new();
    let mut params = Some(Vec::new());
    let mut param_bytes = Some(Vec::new());
    for (name, (_, role, e, b)) in &tensors {
        match role {
            TensorRole::Activation => match b {
                Some(b) => activation.push(*b),
                None => not_sized.push(name.clone()),
            },
            TensorRole::Parameter => {
                push_or_none(&mut params, *e);
                push_or_none(&mut param_bytes, *b);
            }
        }
    }
    let activation_bytes = not_sized.is_empty().then(|| alg.sum_forms(&activation));
    let sizes: IndexMap<&str, Dim> = tensors
        .iter()
        .filter(|(_, (_, role, _, _))| *role == TensorRole::Activation)
        .filter_map(|(n, (_, _, _, b))| b.map(|b| (n.as_str(), b)))
        .collect();
    let steps = if not_sized.is_empty() {
        peak::step_sums(&alg, g, &order, &sizes)
    } else {
        None
    };
    let peak_too_big = not_sized.is_empty() && steps.is_none();
    let kv = kv_cache(&mut alg, g, &tensors);
    // Subgraphs, with their values' facts put back in scope in a scratch context.
    let mut built_subgraphs = Vec::new();
    if order.iter().any(|&i| holds_subgraph(&g.nodes[i])) {
        let mut view = ctx.clone();
        for &i in &order {
            if holds_subgraph(&g.nodes[i]) {
                built_subgraphs.extend(subgraph::costs(&mut alg, &mut view, &g.nodes[i], 0));
            }
        }
    }
    let params_total = params.map(|p| alg.sum_forms(&p));
    let param_bytes_total = param_bytes.map(|p| alg.sum_forms(&p));

    // The box, then dominance and maxima under it.
    let mut ranges_text = Vec::new();
    if let Some(r) = &boxed {
        for s in &r.symbols {
            for name in std::iter::once(&s.name).chain(&s.linked) {
                let sym = || Expr::Sym(name.clone());
                let lo = s.min.unwrap_or(s.lo);
                let _ = alg.assume_fact(&Fact {
                    lhs: sym(),
                    rel: Rel::Ge,
                    rhs: Expr::Num(Rat::int(lo)),
                });
                if let Some(hi) = s.max {
                    let _ = alg.assume_fact(&Fact {
                        lhs: sym(),
                        rel: Rel::Le,
                        rhs: Expr::Num(Rat::int(hi)),
                    });
                }
                let hi = s.max.map(|h| h.to_string()).unwrap_or_default();
                ranges_text.push(format!(
                    "{} in {lo}..{hi}",
                    crate::algebra::poly::render_symbol(name)
                ));
            }
        }
    }
    let (peak_bytes, peak_steps) = match steps {
        Some(steps) => {
            let kept = peak::dominant(&mut alg, &steps, &request.binds);
            let dims: Vec<Dim> = kept.iter().map(|(_, d)| *d).collect();
            let peak = dims.iter().copied().reduce(|a, b| alg.max(a, b));
            let named: Vec<(String, Dim)> = kept
                .iter()
                .map(|(i, d)| (g.nodes[*i].name.clone(), *d))
                .collect();
            (peak, named)
        }
        None => (None, Vec::new()),
    };

    // Read everything out.
    let mut sample = request.binds.clone();
    for (name, e) in alg.symbols() {
        if matches!(e.kind, SymbolKind::Input) && !sample.iter().any(|(n, _)| n == name) {
            sample.push((name.to_string(), SAMPLE_VALUE));
        }
    }
    let out = Reader {
        alg: &alg,
        since,
        binds: &request.binds,
        boxed: boxed.is_some(),
    };
    let nodes = node_dims
        .iter()
        .enumerate()
        .map(|(step, (i, m, f))| {
            out.node_cost(
                &sample,
                step,
                &g.nodes[*i].name,
                &g.nodes[*i].op_type,
                (*m, *f),
            )
        })
        .collect::<Vec<_>>();
    let subgraphs: Vec<SubgraphCost> = built_subgraphs
        .iter()
        .map(|b| out.subgraph(&sample, b))
        .collect();
    let tensors_out: IndexMap<String, TensorCost> = tensors
        .iter()
        .map(|(n, (dtype, role, e, b))| {
            (
                n.clone(),
                TensorCost {
                    dtype: *dtype,
                    role: *role,
                    elements: out.figure(*e),
                    bytes: out.figure(*b),
                },
            )
        })
        .collect();
    let constant = |d: Option<Dim>| d.filter(|d| out.clean(*d)).and_then(|d| alg.as_const(d));
    let totals = Totals {
        parameters: constant(params_total),
        parameter_bytes: constant(param_bytes_total),
        macs: out.figure(Some(total_macs)),
        flops: out.figure(Some(total_flops)),
        left_out,
        activation_bytes: out.figure(activation_bytes),
        peak_bytes: out.figure(peak_bytes),
        peak_steps: peak_steps
            .iter()
            .filter_map(|(n, d)| {
                out.figure(Some(*d)).map(|bytes| PeakStep {
                    node: n.clone(),
                    bytes,
                })
            })
            .collect(),
        not_sized,
        kv_cache_bytes: out.figure(kv),
    };
    let mut notes = Vec::new();
    let holders: Vec<&str> = g
        .nodes
        .iter()
        .filter(|n| holds_subgraph(n))
        .map(|n| n.name.as_str())
        .collect();
    if peak_too_big {
        notes.push(format!(
            "the peak is not known: a step's live bytes grew past the form limit (Limits::form_nodes = {})",
            alg.config().limits.form_nodes
        ));
    }
    if !holders.is_empty() {
        notes.push(format!(
            "subgraphs are costed apart (per branch, per body run and over a loop's iterations) and left out of the totals and the peak: {}",
            holders.join(", ")
        ));
    }
    let mut used = Vec::new();
    let mut mention = |f: &Option<Figure>| {
        if let Some(f) = f {
            f.expr.poly().symbols(&mut used);
        }
    };
    for n in &nodes {
        mention(&n.macs);
        mention(&n.flops);
    }
    for t in tensors_out.values() {
        mention(&t.elements);
        mention(&t.bytes);
    }
    for f in [
        &totals.macs,
        &totals.flops,
        &totals.activation_bytes,
        &totals.peak_bytes,
        &totals.kv_cache_bytes,
    ] {
        mention(f);
    }
    for s in &totals.peak_steps {
        mention(&Some(s.bytes.clone()));
    }
    let mut todo: Vec<&SubgraphCost> = subgraphs.iter().collect();
    while let Some(sg) = todo.pop() {
        for n in &sg.nodes {
            mention(&n.macs);
            mention(&n.flops);
        }
        for f in [
            &sg.macs,
            &sg.flops,
            &sg.iterations,
            &sg.total_macs,
            &sg.total_flops,
        ] {
            mention(f);
        }
        todo.extend(sg.subgraphs.iter());
    }
    Ok(Cost {
        model: model.path.clone(),
        symbols: symbols_of(&ctx.alg, used),
        binds: request.binds.clone(),
        ranges: ranges_text,
        nodes,
        tensors: tensors_out,
        totals,
        subgraphs,
        notes,
    })
}

impl Cost {
    /// The `n` nodes of most MACs, by their value at the binds with every other
    /// input symbol at [`SAMPLE_VALUE`] (ties in step order); nodes without MACs
    /// come last.
    pub fn top(&self, n: usize) -> Vec<&NodeCost> {
        let mut v: Vec<&NodeCost> = self.nodes.iter().collect();
        v.sort_by(|a, b| match (&a.macs_sample, &b.macs_sample) {
            (Some(x), Some(y)) => y.cmp(x).then(a.step.cmp(&b.step)),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => a.step.cmp(&b.step),
        });
        v.truncate(n);
        v
    }
}

/// True when one of `n`'s attributes is a graph or a list of graphs.
fn holds_subgraph(n: &crate::graph::Node) -> bool {
    n.attrs.values().any(|a| {
        matches!(
            a,
            crate::graph::Attr::Graph(_) | crate::graph::Attr::Graphs(_)
        )
    })
}

/// Add `d` to `acc`, or make `acc` `None` when `d` is.
fn push_or_none(acc: &mut Option<Vec<Dim>>, d: Option<Dim>) {
    match (acc.as_mut(), d) {
        (Some(v), Some(d)) => v.push(d),
        _ => *acc = None,
    }
}

/// The bytes of `elements` elements of `dtype`: `elements × bits / 8`, packed
/// and rounded up for sub-byte types; `None` for a type without a size.
fn bytes_of(alg: &mut Algebra, elements: Dim, dtype: DType) -> Option<Dim> {
    let bits = i64::from(dtype.bit_width().filter(|_| dtype != DType::Undefined)?);
    if bits % 8 == 0 {
        let k = alg.constant(bits / 8);
        Some(alg.mul(elements, k))
    } else {
        let k = alg.constant(bits);
        let eight = alg.constant(8);
        let b = alg.mul(elements, k);
        Some(alg.ceildiv(b, eight))
    }
}

/// The KV cache: the bytes of the graph outputs named `present*`, else of the
/// graph inputs named `past*`.
fn kv_cache(
    alg: &mut Algebra,
    g: &crate::graph::Graph,
    tensors: &IndexMap<String, (DType, TensorRole, Built, Built)>,
) -> Built {
    let pick = |names: Vec<&str>| -> Option<Vec<Built>> {
        (!names.is_empty()).then(|| {
            names
                .iter()
                .map(|n| tensors.get(*n).and_then(|t| t.3))
                .collect()
        })
    };
    let present: Vec<&str> = g
        .outputs
        .iter()
        .map(|v| &*v.name)
        .filter(|n| n.starts_with("present"))
        .collect();
    let past: Vec<&str> = g
        .inputs
        .iter()
        .map(|v| &*v.name)
        .filter(|n| n.starts_with("past"))
        .collect();
    let sizes = pick(present).or_else(|| pick(past))?;
    let sizes: Option<Vec<Dim>> = sizes.into_iter().collect();
    sizes.map(|s| alg.sum(&s))
}

/// The symbols `used` names, and those their definitions name, in the
/// algebra's creation order.
fn symbols_of(alg: &Algebra, mut used: Vec<egg::Symbol>) -> IndexMap<String, SymbolKind> {
    let mut i = 0;
    while let Some(s) = used.get(i).copied() {
        if let Some(SymbolKind::Derived { definition }) =
            alg.symbol_entry(s.as_str()).map(|e| &e.kind)
        {
            definition.symbols(&mut used);
        }
        i += 1;
    }
    alg.symbols()
        .filter(|(n, _)| used.iter().any(|u| u.as_str() == *n))
        .map(|(n, e)| (n.to_string(), e.kind.clone()))
        .collect()
}

/// Reads figures out of the cost algebra.
struct Reader<'a> {
    alg: &'a Algebra,
    /// The algebra's warnings before the cost was built: later placeholders are
    /// the cost's own.
    since: usize,
    binds: &'a [(String, i64)],
    boxed: bool,
}

impl Reader<'_> {
    /// Whether `d` names no placeholder the cost's building made.
    fn clean(&self, d: Dim) -> bool {
        let mut syms = Vec::new();
        self.alg.canon(d).symbols(&mut syms);
        !self.alg.warnings()[self.since..].iter().any(|w| {
            w.placeholder().is_some_and(|p| {
                p.symbols()
                    .iter()
                    .any(|s| syms.iter().any(|x| x.as_str() == s))
            })
        })
    }

    fn figure(&self, d: Option<Dim>) -> Option<Figure> {
        let d = d.filter(|d| self.clean(*d))?;
        let value = (!self.binds.is_empty())
            .then(|| value_at(self.alg, self.alg.canon(d), self.binds, 0))
            .flatten();
        let max = self
            .boxed
            .then(|| self.alg.bounds(d).to_integers().hi().cloned());
        Some(Figure {
            expr: self.alg.expr(d),
            value,
            max,
        })
    }

    /// One node's figures; `sample` is where [`NodeCost::macs_sample`] is taken.
    fn node_cost(
        &self,
        sample: &[(String, i64)],
        step: usize,
        node: &str,
        op: &str,
        (m, f): (Built, Built),
    ) -> NodeCost {
        NodeCost {
            node: node.to_string(),
            op: op.to_string(),
            step,
            macs: self.figure(m),
            flops: self.figure(f),
            macs_sample: m
                .filter(|m| self.clean(*m))
                .and_then(|m| value_at(self.alg, self.alg.canon(m), sample, 0)),
        }
    }

    /// A subgraph's figures, and its subgraphs'.
    fn subgraph(&self, sample: &[(String, i64)], b: &subgraph::BuiltSubgraph) -> SubgraphCost {
        SubgraphCost {
            node: b.node.clone(),
            op: b.op.clone(),
            attribute: b.attribute.clone(),
            inferred: b.inferred,
            nodes: b
                .nodes
                .iter()
                .enumerate()
                .map(|(step, (n, op, m, f))| self.node_cost(sample, step, n, op, (*m, *f)))
                .collect(),
            macs: self.figure(b.macs),
            flops: self.figure(b.flops),
            left_out: b.left_out.clone(),
            iterations: self.figure(b.iterations),
            total_macs: self.figure(b.total_macs),
            total_flops: self.figure(b.total_flops),
            subgraphs: b.inner.iter().map(|i| self.subgraph(sample, i)).collect(),
        }
    }
}

/// The value of `p` at `binds`: input symbols from the binds (or their value
/// when the facts fix it), derived symbols through their definitions, at most
/// [`MAX_EVAL_DEPTH`] deep.
pub(crate) fn value_at(
    alg: &Algebra,
    p: &crate::algebra::Poly,
    binds: &[(String, i64)],
    depth: usize,
) -> Option<Rat> {
    if depth > MAX_EVAL_DEPTH {
        return None;
    }
    p.eval(&|s: egg::Symbol| {
        if let Some((_, v)) = binds.iter().find(|(n, _)| n == s.as_str()) {
            return Some(Rat::int(*v));
        }
        let e = alg.symbol_entry(s.as_str())?;
        if let Some(v) = e.bounds.as_point() {
            return Some(v.clone());
        }
        match &e.kind {
            SymbolKind::Derived { definition } => value_at(alg, definition, binds, depth + 1),
            _ => None,
        }
    })
}
