//! Where conditions come from: each source of the table in [`super`] read from what
//! inference recorded (relations, broadcasts, Gather indices, dims, requirements,
//! diagnostics, merges), as candidates naming their node.

use super::{Candidate, Cond, Side};
use crate::algebra::{Algebra, Dim, DimExpr, Expr, OpKind, Poly, Rat, SymbolKind};
use crate::context::{Cause, Hint, Severity, ShapesContext};
use crate::graph::{Attr, Model, Node};
use egg::{Id, RecExpr};
use rustc_hash::FxHashSet as HashSet;

/// Every candidate condition, source by source, in the order of the table in
/// [`super`].
pub(super) fn candidates(model: &Model, ctx: &ShapesContext) -> Vec<Candidate> {
    let mut cands: Vec<Candidate> = Vec::new();
    collect_relations(ctx, &mut cands);
    collect_broadcasts(model, ctx, &mut cands);
    collect_gathers(model, ctx, &mut cands);
    collect_dims(model, ctx, &mut cands);
    collect_requirements(ctx, &mut cands);
    collect_diagnostics(ctx, &mut cands);
    collect_merges(ctx, &mut cands);
    cands
}

/// The term originally built for an e-class id, with derived symbols replaced by
/// their definitions.
fn term(alg: &Algebra, id: Id) -> Side {
    let expr = alg.egraph().id_to_expr(id);
    Side::Term(rec_expr(alg, &expr, Id::from(expr.as_ref().len() - 1)))
}

fn rec_expr(alg: &Algebra, e: &RecExpr<crate::algebra::DimLang>, i: Id) -> Expr {
    use crate::algebra::DimLang as L;
    let t = |j: &Id| Box::new(rec_expr(alg, e, *j));
    match &e[i] {
        L::Num(r) => Poly::constant(r.clone()).to_expr(),
        L::Sym(s) => match alg.symbol_entry(s.as_str()).map(|x| &x.kind) {
            Some(SymbolKind::Derived { definition }) => definition.to_expr(),
            _ => Expr::Sym(s.as_str().to_string()),
        },
        L::Add([a, b]) => Expr::Add(t(a), t(b)),
        L::Sub([a, b]) => Expr::Sub(t(a), t(b)),
        L::Mul([a, b]) => Expr::Mul(t(a), t(b)),
        L::Div([a, b]) => Expr::Div(t(a), t(b)),
        L::Neg([a]) => rec_expr(alg, e, *a).negated(),
        L::FloorDiv([a, b]) => Expr::Call(OpKind::FloorDiv, t(a), t(b)),
        L::CeilDiv([a, b]) => Expr::Call(OpKind::CeilDiv, t(a), t(b)),
        L::Mod([a, b]) => Expr::Call(OpKind::Mod, t(a), t(b)),
        L::Min([a, b]) => Expr::Call(OpKind::Min, t(a), t(b)),
        L::Max([a, b]) => Expr::Call(OpKind::Max, t(a), t(b)),
        L::Broadcast([a, b]) => Expr::Call(OpKind::Broadcast, t(a), t(b)),
    }
}

/// Data-dependent symbols in a dim's canonical form (and the terms of a relation).
fn data_dependent(alg: &Algebra, dims: &[Dim]) -> Vec<String> {
    let polys: Vec<&Poly> = dims.iter().map(|d| alg.canon(*d)).collect();
    data_dependent_polys(alg, &polys)
}

fn data_dependent_polys(alg: &Algebra, polys: &[&Poly]) -> Vec<String> {
    let mut syms = Vec::new();
    for p in polys {
        p.symbols(&mut syms);
    }
    syms.into_iter()
        .filter(|s| {
            matches!(
                alg.symbol_entry(s.as_str()).map(|e| &e.kind),
                Some(SymbolKind::DataDependent { .. })
            )
        })
        .map(|s| s.as_str().to_string())
        .collect()
}

fn collect_relations(ctx: &ShapesContext, out: &mut Vec<Candidate>) {
    use crate::algebra::DimLang as L;
    let alg = &ctx.alg;
    let rels = alg.relations();
    for r in rels {
        // Reshape's `-1`: `k * r == p` with `r` derived needs `k | p`.
        let lhs_node = alg.egraph().id_to_node(r.lhs.id());
        let mut cond = None;
        if let L::Mul([a, b]) = lhs_node {
            for (k, q) in [(a, b), (b, a)] {
                if let L::Sym(s) = alg.egraph().id_to_node(*q) {
                    if matches!(
                        alg.symbol_entry(s.as_str()).map(|e| &e.kind),
                        Some(SymbolKind::Derived { .. })
                    ) {
                        cond = Some((Cond::Div(term(alg, *k), term(alg, r.rhs.id())), "reshape"));
                        break;
                    }
                }
            }
        }
        let (cond, source) = cond.unwrap_or_else(|| {
            (
                Cond::Eq(term(alg, r.lhs.id()), term(alg, r.rhs.id())),
                "relation",
            )
        });
        let (node, note) = recorded_at(alg, &r.node, r.conditional, &[r.lhs, r.rhs]);
        out.push(Candidate {
            cond,
            node,
            source,
            undecidable: note.is_some(),
            note,
        });
    }
}

/// Every `broadcast(a, b)` e-node: `a == b or a == 1 or b == 1`, attributed to the
/// first node where `a` and `b` meet, right-aligned, in two inputs (or an input and
/// Expand's shape).
fn collect_broadcasts(model: &Model, ctx: &ShapesContext, out: &mut Vec<Candidate>) {
    use crate::algebra::DimLang as L;
    let alg = &ctx.alg;
    let eg = alg.egraph();
    let mut pairs: Vec<(Id, Id)> = Vec::new();
    let mut seen = HashSet::default();
    for class in eg.classes() {
        for n in &class.nodes {
            if let L::Broadcast([a, b]) = n {
                let (a, b) = (eg.find(*a), eg.find(*b));
                let key = if a <= b { (a, b) } else { (b, a) };
                if seen.insert(key) {
                    pairs.push(key);
                }
            }
        }
    }
    if pairs.is_empty() {
        return;
    }
    // Attribution: the first node whose inputs hold the pair right-aligned, in two
    // different inputs. Per node and right-aligned position, the inputs holding each
    // dim are counted, and the wanted pairs of the dims found there are looked up (or,
    // when fewer, the wanted pairs not yet attributed are checked against the
    // counts). No two inputs are compared with each other, so the cost is linear in
    // the node's input dims, even for a node of many thousands of inputs.
    let wanted: rustc_hash::FxHashSet<(Id, Id)> = pairs.iter().copied().collect();
    let mut partners: rustc_hash::FxHashMap<Id, Vec<Id>> = Default::default();
    for &(a, b) in &pairs {
        partners.entry(a).or_default().push(b);
        if a != b {
            partners.entry(b).or_default().push(a);
        }
    }
    let mut owner: rustc_hash::FxHashMap<(Id, Id), String> = Default::default();
    let mut at: Vec<rustc_hash::FxHashMap<Id, usize>> = Vec::new();
    for node in &model.graph.nodes {
        // Every pair has its first node: later nodes change nothing.
        if owner.len() == wanted.len() {
            break;
        }
        // Broadcasting needs two operands (Expand's second is its shape value).
        if node.inputs.iter().filter(|i| !i.is_empty()).count() < 2 {
            continue;
        }
        // at[k - 1]: how many of the node's inputs hold each dim k-th from the end.
        at.iter_mut().for_each(|m| m.clear());
        let mut count = |dims: &[Dim]| {
            if at.len() < dims.len() {
                at.resize_with(dims.len(), Default::default);
            }
            for (k, d) in dims.iter().rev().enumerate() {
                *at[k].entry(eg.find(d.id())).or_insert(0) += 1;
            }
        };
        let mut shapes = 0;
        for (i, name) in node.inputs.iter().enumerate() {
            let Some(f) = ctx.get(name) else { continue };
            if let Some(s) = &f.shape {
                count(s);
                shapes += 1;
            }
            if node.op_type == "Expand" && i == 1 {
                if let Some(v) = &f.value {
                    count(v);
                    shapes += 1;
                }
            }
        }
        if shapes < 2 {
            continue;
        }
        // A pair of different dims at one position comes from two inputs (an input
        // has one dim there); a dim paired with itself needs two inputs holding it.
        let holds = |m: &rustc_hash::FxHashMap<Id, usize>, a: Id, b: Id| {
            let need = if a == b { 2 } else { 1 };
            m.get(&a).is_some_and(|&n| n >= need) && m.contains_key(&b)
        };
        for m in at.iter().filter(|m| !m.is_empty()) {
            let via_dims: usize = m.keys().map(|d| partners.get(d).map_or(0, Vec::len)).sum();
            if via_dims <= wanted.len() - owner.len() {
                for &a in m.keys() {
                    for &b in partners.get(&a).into_iter().flatten() {
                        let key = if a <= b { (a, b) } else { (b, a) };
                        if holds(m, a, b) && !owner.contains_key(&key) {
                            owner.insert(key, node.name.clone());
                        }
                    }
                }
            } else {
                for &(a, b) in &pairs {
                    if !owner.contains_key(&(a, b)) && holds(m, a, b) {
                        owner.insert((a, b), node.name.clone());
                    }
                }
            }
        }
    }
    for (a, b) in pairs {
        let (pa, pb) = (&eg[a].data.canon, &eg[b].data.canon);
        let dd = data_dependent_polys(alg, &[pa, pb]);
        let note = (!dd.is_empty()).then(|| format!("involves data-dependent {}", dd.join(", ")));
        let (ta, tb) = (Side::Form(pa.clone()), Side::Form(pb.clone()));
        out.push(Candidate {
            cond: Cond::Or(vec![
                Cond::Eq(ta.clone(), tb.clone()),
                Cond::Eq(ta, Side::num(1)),
                Cond::Eq(tb, Side::num(1)),
            ]),
            node: owner.get(&(a, b)).cloned().unwrap_or_default(),
            source: "broadcast",
            undecidable: note.is_some(),
            note,
        });
    }
}

/// Ops whose output holds the same values as their first input, rearranged.
const VALUE_PRESERVING: &[&str] = &[
    "Unsqueeze",
    "Squeeze",
    "Reshape",
    "Cast",
    "Identity",
    "Expand",
    "Flatten",
];

/// Gather on a table of `R` rows: indices must lie in `[-R, R)`.
fn collect_gathers(model: &Model, ctx: &ShapesContext, out: &mut Vec<Candidate>) {
    let alg = &ctx.alg;
    // Who produces each tensor, built on the first Gather that needs it.
    let mut producers: Option<rustc_hash::FxHashMap<&crate::graph::Name, &Node>> = None;
    for node in &model.graph.nodes {
        if node.op_type != "Gather" || !node.domain.is_empty() {
            continue;
        }
        let (Some(data), Some(indices)) = (node.input(0), node.input(1)) else {
            continue;
        };
        let Some(shape) = ctx.get(data).and_then(|f| f.shape.as_ref()) else {
            continue;
        };
        let axis = match node.attr("axis") {
            Some(Attr::Int(a)) => *a,
            _ => 0,
        };
        let rank = shape.len() as i64;
        let axis = if axis < 0 { axis + rank } else { axis };
        let Some(&rows) = usize::try_from(axis).ok().and_then(|a| shape.get(a)) else {
            continue;
        };
        let rows_t = || Side::Form(alg.canon(rows).clone());
        // Known index values.
        if let Some(vals) = ctx.get(indices).and_then(|f| f.value.as_ref()) {
            for &v in vals {
                // A constant index into a table of constant length (a Gather on a
                // Shape, the common case) is decided here, not in the scratch algebra.
                if let (Some(i), Some(r)) = (alg.as_i64(v), alg.as_i64(rows)) {
                    if -r <= i && i < r {
                        continue;
                    }
                }
                // `v <= rows - 1` and `-rows <= v`.
                let (t, rows_e) = (Side::Form(alg.canon(v).clone()), rows_t().expr());
                let last = Expr::Sub(Box::new(rows_e.clone()), Box::new(Expr::Num(Rat::one())));
                out.push(gather_cand(node, Cond::Le(t.clone(), Side::Term(last))));
                out.push(gather_cand(node, Cond::Le(Side::Term(rows_e.negated()), t)));
            }
            continue;
        }
        // Indices from Range(start, limit, 1), through value-preserving ops.
        let mut t = indices;
        let mut range = None;
        let producer = producers.get_or_insert_with(|| {
            let nodes = &model.graph.nodes;
            let mut m = rustc_hash::FxHashMap::with_capacity_and_hasher(
                nodes.iter().map(|n| n.outputs.len()).sum(),
                Default::default(),
            );
            for n in nodes {
                for o in &n.outputs {
                    m.insert(o, n);
                }
            }
            m
        });
        for _ in 0..16 {
            let Some(p) = producer.get(t) else { break };
            if p.op_type == "Range" {
                range = Some(*p);
                break;
            }
            if !VALUE_PRESERVING.contains(&p.op_type.as_str()) {
                break;
            }
            match p.input(0) {
                Some(i) => t = i,
                None => break,
            }
        }
        let Some(range) = range else { continue };
        let scalar = |i: usize| -> Option<Dim> {
            let v = ctx.get(range.input(i)?)?.value.clone()?;
            (v.len() == 1).then(|| v[0])
        };
        let (Some(start), Some(limit), Some(delta)) = (scalar(0), scalar(1), scalar(2)) else {
            continue;
        };
        if alg.as_i64(delta) != Some(1) || !alg.bounds(start).is_nonneg() {
            continue;
        }
        out.push(gather_cand(
            node,
            Cond::Le(Side::Form(alg.canon(limit).clone()), rows_t()),
        ));
    }
}

fn gather_cand(node: &Node, cond: Cond) -> Candidate {
    Candidate {
        cond,
        node: node.name.clone(),
        source: "gather",
        note: None,
        undecidable: false,
    }
}

/// The node of something the algebra recorded, and why it is undecidable: it holds
/// only when an undecided If branch runs (`conditional`), or it involves
/// data-dependent dims.
fn recorded_at(
    alg: &Algebra,
    node: &str,
    conditional: bool,
    dims: &[Dim],
) -> (String, Option<String>) {
    let dd = data_dependent(alg, dims);
    let note = if conditional {
        Some("holds only when the branch runs".to_string())
    } else if !dd.is_empty() {
        Some(format!("involves data-dependent {}", dd.join(", ")))
    } else {
        None
    };
    (node.to_string(), note)
}

/// Inequalities op rules recorded while inferring (a reflect Pad's `pad <= dim - 1`),
/// also inside subgraphs; inside an undecided If branch they are undecidable.
fn collect_requirements(ctx: &ShapesContext, out: &mut Vec<Candidate>) {
    let alg = &ctx.alg;
    for r in alg.requirements() {
        // As for the dims of `collect_dims`: a data-dependent dim's sign says
        // nothing about the inputs.
        if r.kind == "dims" && !data_dependent(alg, &[r.rhs]).is_empty() {
            continue;
        }
        let (node, note) = recorded_at(alg, &r.node, r.conditional, &[r.lhs, r.rhs]);
        out.push(Candidate {
            cond: Cond::Le(term(alg, r.lhs.id()), term(alg, r.rhs.id())),
            node,
            source: r.kind,
            undecidable: note.is_some(),
            note,
        });
    }
}

/// Every dim of every node output is `>= 0`. (A Conv's or pool's spatial output of
/// at least 1 is recorded by the op rule as a `window` requirement, subgraphs too.)
fn collect_dims(model: &Model, ctx: &ShapesContext, out: &mut Vec<Candidate>) {
    let alg = &ctx.alg;
    let mut seen = HashSet::default();
    for node in &model.graph.nodes {
        for o in &node.outputs {
            let Some(shape) = ctx.get(o).and_then(|f| f.shape.as_ref()) else {
                continue;
            };
            for d in shape {
                // Each class once (its bounds cost a walk of its canonical form).
                let id = alg.egraph().find(d.id());
                if !seen.insert(id) || alg.bounds(*d).is_nonneg() {
                    continue;
                }
                if !data_dependent(alg, &[*d]).is_empty() {
                    continue;
                }
                out.push(Candidate {
                    cond: Cond::Le(Side::num(0), Side::Form(alg.canon(*d).clone())),
                    node: node.name.clone(),
                    source: "dims",
                    note: None,
                    undecidable: false,
                });
            }
        }
    }
}

/// Error diagnostics: their hint as a condition, or the error as impossible.
/// Ops without a shape rule: undecidable.
fn collect_diagnostics(ctx: &ShapesContext, out: &mut Vec<Candidate>) {
    for d in &ctx.diagnostics {
        if d.severity == Severity::Warning {
            if matches!(d.cause, Some(Cause::NoRule { .. })) {
                out.push(Candidate {
                    cond: Cond::Unknown,
                    node: d.node.clone(),
                    source: "no-rule",
                    note: Some(d.message.clone()),
                    undecidable: true,
                });
            }
            continue;
        }
        // The hint's dims, each the term its canonical form writes.
        let side = |e: &DimExpr| Side::Term(e.poly().to_expr());
        let cond = match &d.cause {
            Some(Cause::Op {
                hint: Some(hint), ..
            }) => Some(match hint {
                Hint::Divides { divisor, dividend } => Cond::Div(side(divisor), side(dividend)),
                Hint::Equal(a, b) => Cond::Eq(side(a), side(b)),
            }),
            _ => None,
        };
        match cond {
            Some(c) => out.push(Candidate {
                cond: c,
                node: d.node.clone(),
                source: "error",
                note: None,
                undecidable: false,
            }),
            None => out.push(Candidate {
                cond: Cond::False,
                node: d.node.clone(),
                source: "error",
                note: Some(d.message.clone()),
                undecidable: false,
            }),
        }
    }
}

/// Input symbols the e-graph merged with another expression (a safety net: most
/// merges are also relations, which name their node).
fn collect_merges(ctx: &ShapesContext, out: &mut Vec<Candidate>) {
    let alg = &ctx.alg;
    for (name, e) in alg.symbols() {
        if e.kind != SymbolKind::Input {
            continue;
        }
        let Some(id) = alg
            .egraph()
            .lookup(crate::algebra::DimLang::Sym(egg::Symbol::from(name)))
        else {
            continue;
        };
        let canon = &alg.egraph()[id].data.canon;
        if canon.as_sym().is_some_and(|s| s.as_str() == name) {
            continue;
        }
        out.push(Candidate {
            cond: Cond::Eq(
                Side::Form(Poly::sym(egg::Symbol::from(name))),
                Side::Form(canon.clone()),
            ),
            node: String::new(),
            source: "e-graph",
            note: None,
            undecidable: false,
        });
    }
}
