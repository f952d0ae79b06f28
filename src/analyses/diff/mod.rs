//! What changed between two versions of a model (`symdim diff`): the interface
//! (inputs and outputs, their dtypes and shapes), the contract (conditions and
//! each input symbol's range), the inside (tensors whose shape changed, op counts)
//! and the cost (parameters, MACs, peak bytes), with a verdict.
//!
//! Dims are compared by the algebra, never as text: NEW's symbols are first put in
//! OLD's names by the input axes they stand for (`symbols::Mapping`), then both
//! dims are built in one comparison algebra and decided `equal`. Conditions are
//! compared by implication in a scratch algebra (`contracts::compare`).
//!
//! | change | verdict |
//! | --- | --- |
//! | an input added or removed, renamed (matched by position), its dtype or rank changed, a dim OLD accepted that NEW does not (a witness value) | breaking |
//! | an output removed or renamed, its dtype or rank changed, a dim proven different (never equal, or different at a value both accept) | breaking |
//! | a condition added that a value valid in OLD breaks; a range narrowed (a witness) | breaking |
//! | an output added; an input dim made dynamic whose old value NEW accepts; a condition removed or a range widened; a dim or condition that differs where no value shows it | compatible |
//! | tensors inside, op counts, cost figures | compatible |
//!
//! A narrowing is breaking only when a witness shows it: a value of the input
//! symbols that every OLD condition holds at and some NEW condition fails at,
//! found among the range ends and profile values of both versions. What the
//! algebra cannot decide and no witness shows is reported `changed`, not breaking.

mod contract;
mod symbols;

pub use contract::{
    ChangedCondition, ConditionChange, ConditionsDiff, RangeChange, MAX_CANDIDATES,
};

use crate::algebra::{DimExpr, Poly, SymbolValues, Truth};
use crate::analyses::cost::{cost, CostRequest};
use crate::context::facts::Facts;
use crate::context::ShapesContext;
use crate::contracts::ranges::symbol_ranges;
use crate::contracts::{derive, fact_values};
use crate::graph::{DType, Model, Name};
use contract::{eval, point_text, Contracts};
use indexmap::IndexMap;
use rustc_hash::FxHashSet;
use serde::Serialize;
use symbols::{Compare, Mapping};

/// How many tensors inside the model a diff lists (the count covers them all).
pub const MAX_LISTED_TENSORS: usize = 100;

/// The share of the smaller version's tensor names (node outputs) the other must
/// have too for their insides to be compared; below it the NEW version is a
/// re-export and only the interface, the contract and the cost are compared. The
/// smaller version: an optimizer that fuses nodes away keeps the names of the rest.
pub const MIN_SHARED_NAMES: f64 = 0.5;

/// What a diff computes beyond the interface, the contract and the inside.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiffRequest {
    /// The cost of both versions (`symdim cost`'s parameters, MACs and peak
    /// bytes) and their difference: the cost analysis of each version is several
    /// times an inference, so it is asked for (`--cost`).
    pub cost: bool,
}

/// One version of a model, as inferred: what the diff reads.
#[derive(Clone, Copy)]
pub struct Version<'a> {
    /// The model.
    pub model: &'a Model,
    /// What inference found.
    pub ctx: &'a ShapesContext,
    /// The facts inference ran under.
    pub facts: &'a Facts,
}

/// The verdict of a diff.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Nothing differs (symbols may be renamed).
    Same,
    /// Differences that accept every use OLD accepted.
    Compatible,
    /// Some use OLD accepted fails with NEW.
    Breaking,
}

impl Verdict {
    /// `same`, `compatible` or `breaking`.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Same => "same",
            Verdict::Compatible => "compatible",
            Verdict::Breaking => "breaking",
        }
    }
}

/// What changed about one graph input or output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    /// Only NEW has it.
    Added,
    /// Only OLD has it.
    Removed,
    /// Matched by position under another name.
    Renamed,
    /// Its rank or dims differ.
    Shape,
    /// Its element type differs.
    Dtype,
}

/// One change of a graph input or output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PortChange {
    /// The tensor's name (NEW's, OLD's for a removed one).
    pub name: String,
    /// What changed.
    pub change: Change,
    /// True when a use OLD accepted fails with NEW.
    pub breaking: bool,
    /// OLD's shape, dtype or name (absent for an added one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<String>,
    /// NEW's (absent for a removed one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<String>,
    /// Why it breaks or does not.
    pub why: String,
}

/// A tensor inside the model, in both versions, whose shape changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TensorChange {
    /// Its name.
    pub name: String,
    /// OLD's shape.
    pub old: String,
    /// NEW's shape.
    pub new: String,
    /// True for a graph output.
    pub output: bool,
}

/// Op counts by type that differ.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct OpsDiff {
    /// OLD's node count.
    pub old_nodes: usize,
    /// NEW's node count.
    pub new_nodes: usize,
    /// Op types NEW has more of, with how many more, by name.
    pub added: IndexMap<String, usize>,
    /// Op types NEW has fewer of, with how many fewer, by name.
    pub removed: IndexMap<String, usize>,
}

/// One cost figure of both versions and NEW minus OLD (in OLD's names). Each is
/// a formula in the report grammar; the JSON writes a constant that fits in 64
/// bits as an integer, as `symdim cost` does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CostChange {
    /// OLD's formula; `null` when unknown.
    #[serde(serialize_with = "formula")]
    pub old: Option<String>,
    /// NEW's formula, in NEW's names.
    #[serde(serialize_with = "formula")]
    pub new: Option<String>,
    /// NEW minus OLD, simplified, in OLD's names; `null` when either is unknown.
    #[serde(serialize_with = "formula")]
    pub difference: Option<String>,
}

/// A formula as JSON: an integer when it is one, else its text.
fn formula<S: serde::Serializer>(v: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
    match v.as_deref().map(|t| (t, t.parse::<i64>())) {
        None => s.serialize_none(),
        Some((_, Ok(n))) => s.serialize_i64(n),
        Some((t, Err(_))) => s.serialize_str(t),
    }
}

/// The cost figures of both versions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CostDiff {
    /// Parameter elements.
    pub parameters: CostChange,
    /// Total MACs.
    pub macs: CostChange,
    /// The peak of live activation bytes.
    pub peak_bytes: CostChange,
}

impl CostDiff {
    /// True when some difference is not 0.
    pub fn differs(&self) -> bool {
        [&self.parameters, &self.macs, &self.peak_bytes]
            .iter()
            .any(|c| c.difference.as_deref() != Some("0"))
    }
}

/// What changed between two versions of a model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diff {
    /// `same`, `compatible` or `breaking`.
    pub verdict: Verdict,
    /// OLD's path.
    pub old: String,
    /// NEW's path.
    pub new: String,
    /// OLD input symbol → the NEW symbol at the same input axes.
    pub symbols: IndexMap<String, String>,
    /// NEW input symbols at axes where OLD has a constant, with that constant.
    pub generalised: IndexMap<String, i64>,
    /// Graph input changes.
    pub inputs: Vec<PortChange>,
    /// Graph output changes.
    pub outputs: Vec<PortChange>,
    /// Conditions of the contracts added and removed.
    pub conditions: ConditionsDiff,
    /// Input symbols whose valid values differ.
    pub ranges: Vec<RangeChange>,
    /// How many tensors matched by name changed shape (outputs included).
    pub tensors_changed: usize,
    /// The first [`MAX_LISTED_TENSORS`] of them: outputs first, then by size.
    pub tensors: Vec<TensorChange>,
    /// True when most tensor names differ: the insides are not compared.
    pub reexport: bool,
    /// Op counts by type.
    pub ops: OpsDiff,
    /// The cost figures, when asked for ([`DiffRequest::cost`]).
    pub cost: Option<CostDiff>,
    /// What the comparison could not settle.
    pub notes: Vec<String>,
}

/// Compare two inferred versions of a model.
pub fn diff(old: Version<'_>, new: Version<'_>, request: &DiffRequest) -> Diff {
    let (go, gn) = (&old.model.graph, &new.model.graph);
    let mut notes = Vec::new();
    // Inputs and outputs: by name, then the rest by position.
    let in_pairs = match_ports(
        &go.inputs.iter().map(|v| &*v.name).collect::<Vec<_>>(),
        &gn.inputs.iter().map(|v| &*v.name).collect::<Vec<_>>(),
    );
    let out_pairs = match_ports(
        &go.outputs.iter().map(|v| &*v.name).collect::<Vec<_>>(),
        &gn.outputs.iter().map(|v| &*v.name).collect::<Vec<_>>(),
    );
    let matched: Vec<(&str, &str)> = in_pairs
        .iter()
        .filter_map(|p| match p {
            Pair::Both(o, n, _) => Some((*o, *n)),
            _ => None,
        })
        .collect();
    let m = Mapping::new(old.ctx, new.ctx, &matched);
    notes.extend(m.notes.iter().cloned());

    // The contracts and their ranges.
    let (c_old, c_new) = (
        derive(old.model, old.ctx, old.facts),
        derive(new.model, new.ctx, new.facts),
    );
    let r_old = symbol_ranges(c_old.clone(), old.ctx, old.facts);
    let r_new = symbol_ranges(c_new.clone(), new.ctx, new.facts);
    let contracts = Contracts::new(&c_old, &c_new, &r_old, &r_new, &m);
    let points = contracts.points();
    let facts = fact_values(old.facts);
    let conditions = contract::conditions(&contracts, &facts, old.ctx, &points);
    let range_changes = contract::ranges(&contracts, &r_old, &r_new, &m);

    let mut cmp = Compare::new(&old.ctx.alg);
    let side = Sides {
        old,
        new,
        m: &m,
        contracts: &contracts,
        points: &points,
    };
    let inputs = side.ports(&in_pairs, true, &mut cmp);
    let outputs = side.ports(&out_pairs, false, &mut cmp);

    // Inside: tensors matched by name.
    let (tensors_changed, tensors, reexport) = side.inside(&mut cmp);
    let ops = ops(old.model, new.model);
    let cost = request.cost.then(|| side.cost(&mut cmp));

    let breaking = inputs.iter().chain(&outputs).any(|c| c.breaking)
        || range_changes.iter().any(|r| r.breaking)
        || conditions.added.iter().any(|c| c.effect == "narrows");
    let differs = !inputs.is_empty()
        || !outputs.is_empty()
        || !conditions.added.is_empty()
        || !conditions.removed.is_empty()
        || !range_changes.is_empty()
        || tensors_changed > 0
        || reexport
        || !ops.added.is_empty()
        || !ops.removed.is_empty()
        || cost.as_ref().is_some_and(CostDiff::differs);
    let verdict = if breaking {
        Verdict::Breaking
    } else if differs {
        Verdict::Compatible
    } else {
        Verdict::Same
    };
    Diff {
        verdict,
        old: old.model.path.clone(),
        new: new.model.path.clone(),
        symbols: m.shown.clone(),
        generalised: m.generalised.clone(),
        inputs,
        outputs,
        conditions,
        ranges: range_changes,
        tensors_changed,
        tensors,
        reexport,
        ops,
        cost,
        notes,
    }
}

/// A graph input or output in OLD, NEW or both.
enum Pair<'a> {
    /// Matched: OLD's name, NEW's, and whether by position.
    Both(&'a str, &'a str, bool),
    /// Only OLD has it.
    Old(&'a str),
    /// Only NEW has it.
    New(&'a str),
}

/// Match by name, then the unmatched by position; OLD's order, then NEW's extras.
fn match_ports<'a>(old: &[&'a str], new: &[&'a str]) -> Vec<Pair<'a>> {
    let by_name: Vec<Option<usize>> = old
        .iter()
        .map(|o| new.iter().position(|n| n == o))
        .collect();
    let named: Vec<usize> = by_name.iter().flatten().copied().collect();
    let mut free_new: Vec<usize> = (0..new.len()).filter(|j| !named.contains(j)).collect();
    let mut used = Vec::new();
    let mut out = Vec::new();
    for (i, o) in old.iter().enumerate() {
        match by_name[i] {
            Some(j) => {
                used.push(j);
                out.push(Pair::Both(o, new[j], false));
            }
            None => {
                // The unmatched NEW port at the same position, if any.
                match free_new.iter().position(|&j| j == i) {
                    Some(k) => {
                        let j = free_new.remove(k);
                        used.push(j);
                        out.push(Pair::Both(o, new[j], true));
                    }
                    None => out.push(Pair::Old(o)),
                }
            }
        }
    }
    for (j, n) in new.iter().enumerate() {
        if !used.contains(&j) {
            out.push(Pair::New(n));
        }
    }
    out
}

/// The two versions and what the comparison needs of them.
struct Sides<'a> {
    old: Version<'a>,
    new: Version<'a>,
    m: &'a Mapping,
    contracts: &'a Contracts,
    points: &'a [SymbolValues],
}

impl Sides<'_> {
    fn dims(&self, ctx: &ShapesContext, name: &str) -> (Option<DType>, Option<Vec<Poly>>) {
        match ctx.get(name) {
            None => (None, None),
            Some(f) => (
                (f.dtype != DType::Undefined).then_some(f.dtype),
                f.shape
                    .as_ref()
                    .map(|s| s.iter().map(|d| ctx.alg.canon(*d).clone()).collect()),
            ),
        }
    }

    fn shape_text(dims: &Option<Vec<Poly>>) -> String {
        match dims {
            None => "unknown rank".to_string(),
            Some(ds) => {
                let parts: Vec<String> = ds
                    .iter()
                    .map(|p| DimExpr::from_poly(p.clone()).to_string())
                    .collect();
                format!("[{}]", parts.join(", "))
            }
        }
    }

    fn dtype_text(d: Option<DType>) -> String {
        d.map_or("?".to_string(), |d| d.short_name().to_string())
    }

    /// The changes of matched, added and removed ports.
    fn ports(&self, pairs: &[Pair<'_>], inputs: bool, cmp: &mut Compare<'_>) -> Vec<PortChange> {
        let mut out = Vec::new();
        let what = if inputs { "input" } else { "output" };
        for (i, p) in pairs.iter().enumerate() {
            match p {
                Pair::Old(o) => {
                    let (dt, dims) = self.dims(self.old.ctx, o);
                    out.push(PortChange {
                        name: o.to_string(),
                        change: Change::Removed,
                        breaking: true,
                        old: Some(format!(
                            "{} {}",
                            Self::dtype_text(dt),
                            Self::shape_text(&dims)
                        )),
                        new: None,
                        why: if inputs {
                            "a caller that feeds it is refused".to_string()
                        } else {
                            "a caller that reads it finds nothing".to_string()
                        },
                    });
                }
                Pair::New(n) => {
                    let (dt, dims) = self.dims(self.new.ctx, n);
                    out.push(PortChange {
                        name: n.to_string(),
                        change: Change::Added,
                        breaking: inputs,
                        old: None,
                        new: Some(format!(
                            "{} {}",
                            Self::dtype_text(dt),
                            Self::shape_text(&dims)
                        )),
                        why: if inputs {
                            "a required input: a caller that does not feed it fails".to_string()
                        } else {
                            "a new output: callers may ignore it".to_string()
                        },
                    });
                }
                Pair::Both(o, n, by_position) => {
                    if *by_position {
                        out.push(PortChange {
                            name: n.to_string(),
                            change: Change::Renamed,
                            breaking: true,
                            old: Some(o.to_string()),
                            new: Some(n.to_string()),
                            // `pairs` keeps OLD's order: `i` is OLD's position.
                            why: format!(
                                "matched by position ({what} {i}): a caller that names `{o}` fails"
                            ),
                        });
                    }
                    self.port(o, n, inputs, cmp, &mut out);
                }
            }
        }
        out
    }

    /// The dtype and shape changes of one matched port.
    fn port(
        &self,
        o: &str,
        n: &str,
        input: bool,
        cmp: &mut Compare<'_>,
        out: &mut Vec<PortChange>,
    ) {
        let (dt_o, d_o) = self.dims(self.old.ctx, o);
        let (dt_n, d_n) = self.dims(self.new.ctx, n);
        if let (Some(a), Some(b)) = (dt_o, dt_n) {
            if a != b {
                out.push(PortChange {
                    name: n.to_string(),
                    change: Change::Dtype,
                    breaking: true,
                    old: Some(Self::dtype_text(dt_o)),
                    new: Some(Self::dtype_text(dt_n)),
                    why: "the element type differs".to_string(),
                });
            }
        }
        let shape = |breaking: bool, why: String| PortChange {
            name: n.to_string(),
            change: Change::Shape,
            breaking,
            old: Some(Self::shape_text(&d_o)),
            new: Some(Self::shape_text(&d_n)),
            why,
        };
        let (Some(so), Some(sn)) = (&d_o, &d_n) else {
            if d_o.is_some() != d_n.is_some() {
                let known = if d_o.is_some() { "OLD" } else { "NEW" };
                out.push(shape(
                    false,
                    format!("the rank is known only in {known}: not compared"),
                ));
            }
            return;
        };
        if so.len() != sn.len() {
            out.push(shape(
                true,
                format!("rank {} became {}", so.len(), sn.len()),
            ));
            return;
        }
        let mut differ = Vec::new();
        let mut dynamic = Vec::new();
        let mut unknown = Vec::new();
        for (a, (po, pn)) in so.iter().zip(sn).enumerate() {
            let renamed = self.m.rename_only(pn);
            if cmp.equal(po, &renamed) == Truth::True {
                continue;
            }
            let gen = self.m.apply(pn);
            match cmp.equal(po, &gen) {
                // Equal once the symbols made dynamic take OLD's constants.
                Truth::True => dynamic.push(a),
                Truth::False => differ.push((a, None)),
                Truth::Unknown => {
                    // A value where they differ, valid for OLD (and for NEW too,
                    // for an output: both must have run).
                    let w = self.points.iter().find(|p| {
                        self.contracts.valid_old(p)
                            && (input || self.contracts.valid_new(p))
                            && matches!((eval(po, p), eval(&gen, p)), (Some(x), Some(y)) if x != y)
                    });
                    match w {
                        Some(p) => differ.push((a, Some(p.clone()))),
                        None => unknown.push(a),
                    }
                }
            }
        }
        if !differ.is_empty() {
            let why: Vec<String> = differ
                .iter()
                .map(|(a, w)| match w {
                    None => format!("axis {a} never equal"),
                    Some(p) => {
                        let mut syms = Vec::new();
                        for poly in [&so[*a], &self.m.apply(&sn[*a])] {
                            let mut s = Vec::new();
                            poly.symbols(&mut s);
                            for x in s {
                                let x = x.as_str().to_string();
                                if !syms.contains(&x) {
                                    syms.push(x);
                                }
                            }
                        }
                        format!("axis {a} differs at {}", point_text(p, &syms))
                    }
                })
                .collect();
            out.push(shape(true, why.join("; ")));
        } else if !unknown.is_empty() {
            let axes: Vec<String> = unknown.iter().map(|a| a.to_string()).collect();
            out.push(shape(
                false,
                format!(
                    "axis {} not proven equal, and no value tried shows a difference",
                    axes.join(", ")
                ),
            ));
        } else if !dynamic.is_empty() {
            let axes: Vec<String> = dynamic.iter().map(|a| a.to_string()).collect();
            let accepted = self
                .points
                .iter()
                .take(1)
                .all(|p| self.contracts.valid_new(p));
            let why = if input {
                format!(
                    "axis {} made dynamic; NEW {} OLD's value",
                    axes.join(", "),
                    if accepted {
                        "accepts"
                    } else {
                        "is not shown to accept"
                    }
                )
            } else {
                format!(
                    "axis {} follows an input made dynamic; equal at OLD's values",
                    axes.join(", ")
                )
            };
            out.push(shape(false, why));
        }
    }

    /// Tensors matched by name (node outputs, graph outputs among them) whose
    /// shape changed: the count, the first [`MAX_LISTED_TENSORS`], and whether
    /// the names differ too much to compare.
    fn inside(&self, cmp: &mut Compare<'_>) -> (usize, Vec<TensorChange>, bool) {
        // Names carry their hash: the sets and lookups below hash no text.
        // A name NEW's inference holds is a node output of NEW's but for a graph
        // input or initializer of the same name, which an exporter does not make.
        let old_names = produced(self.old.model);
        let new_count = self
            .new
            .model
            .graph
            .nodes
            .iter()
            .map(|n| n.outputs.len())
            .sum::<usize>();
        let shared: Vec<&Name> = old_names
            .iter()
            .copied()
            .filter(|n| self.new.ctx.get(*n).is_some())
            .collect();
        let fewest = old_names.len().min(new_count);
        if fewest > 0 && (shared.len() as f64) < MIN_SHARED_NAMES * fewest as f64 {
            return (0, Vec::new(), true);
        }
        let outputs: FxHashSet<&Name> = self
            .new
            .model
            .graph
            .outputs
            .iter()
            .map(|v| &v.name)
            .collect();
        let (ao, an) = (&self.old.ctx.alg, &self.new.ctx.alg);
        let base = &self.contracts.base;
        let mut changed: Vec<(bool, Option<i64>, TensorChange)> = Vec::new();
        for name in shared {
            let same = match (shape_of(self.old.ctx, name), shape_of(self.new.ctx, name)) {
                (None, None) => true,
                (Some(a), Some(b)) if a.len() == b.len() => a.iter().zip(b).all(|(x, y)| {
                    let (px, py) = (ao.canon(*x), an.canon(*y));
                    cmp.equal(px, &self.m.apply(py)) == Truth::True
                }),
                _ => false,
            };
            if same {
                continue;
            }
            let (_, d_o) = self.dims(self.old.ctx, name);
            let (_, d_n) = self.dims(self.new.ctx, name);
            let size = d_o.as_ref().and_then(|ds| {
                ds.iter().try_fold(1i64, |acc, p| {
                    eval(p, base).and_then(|v| acc.checked_mul(v))
                })
            });
            let output = outputs.contains(name);
            changed.push((
                output,
                size,
                TensorChange {
                    name: name.to_string(),
                    old: Self::shape_text(&d_o),
                    new: Self::shape_text(&d_n),
                    output,
                },
            ));
        }
        // Outputs first, then larger first (unknown sizes last); ties in graph order.
        changed.sort_by(|a, b| {
            b.0.cmp(&a.0)
                .then_with(|| b.1.is_some().cmp(&a.1.is_some()))
                .then_with(|| b.1.cmp(&a.1))
        });
        let count = changed.len();
        let listed = changed
            .into_iter()
            .take(MAX_LISTED_TENSORS)
            .map(|(_, _, t)| t)
            .collect();
        (count, listed, false)
    }

    /// Parameters, MACs and peak bytes of both versions, and their difference.
    fn cost(&self, cmp: &mut Compare<'_>) -> CostDiff {
        let req = CostRequest::default();
        let co = cost(self.old.model, self.old.ctx, self.old.facts, &req).ok();
        let cn = cost(self.new.model, self.new.ctx, self.new.facts, &req).ok();
        let params = |c: &Option<crate::analyses::cost::Cost>| {
            c.as_ref()
                .and_then(|c| c.totals.parameters.clone())
                .map(Poly::constant)
        };
        let fig = |c: &Option<crate::analyses::cost::Cost>, peak: bool| {
            c.as_ref().and_then(|c| {
                let f = if peak {
                    &c.totals.peak_bytes
                } else {
                    &c.totals.macs
                };
                f.as_ref().map(|f| f.expr.poly().clone())
            })
        };
        let mut change = |a: Option<Poly>, b: Option<Poly>| {
            let text = |p: &Poly| DimExpr::from_poly(p.clone()).to_string();
            let difference = match (&a, &b) {
                (Some(x), Some(y)) => {
                    let y = self.m.apply(y);
                    Some(if *x == *y {
                        "0".to_string()
                    } else {
                        text(&cmp.difference(x, &y))
                    })
                }
                _ => None,
            };
            CostChange {
                old: a.as_ref().map(text),
                new: b.as_ref().map(text),
                difference,
            }
        };
        CostDiff {
            parameters: change(params(&co), params(&cn)),
            macs: change(fig(&co, false), fig(&cn, false)),
            peak_bytes: change(fig(&co, true), fig(&cn, true)),
        }
    }
}

/// The nodes of `m`'s main graph by op type (`domain:op` outside the default domain).
fn op_counts(m: &Model) -> std::collections::BTreeMap<std::borrow::Cow<'_, str>, usize> {
    use std::borrow::Cow;
    let mut c = std::collections::BTreeMap::new();
    for n in &m.graph.nodes {
        let key = if n.domain.is_empty() || n.domain == "ai.onnx" {
            Cow::Borrowed(&*n.op_type)
        } else {
            Cow::Owned(format!("{}:{}", n.domain, n.op_type))
        };
        *c.entry(key).or_default() += 1;
    }
    c
}

/// The node outputs of `m`'s main graph, each once, in graph order.
fn produced(m: &Model) -> Vec<&Name> {
    let mut seen = FxHashSet::default();
    m.graph
        .nodes
        .iter()
        .flat_map(|n| n.outputs.iter())
        .filter(|o| !o.is_empty() && seen.insert(*o))
        .collect()
}

/// A tensor's dims in `ctx`, when its rank is known.
fn shape_of<'c>(ctx: &'c ShapesContext, name: &Name) -> Option<&'c [crate::algebra::Dim]> {
    ctx.get(name).and_then(|f| f.shape.as_deref())
}

/// Op counts by type (`domain:op` outside the default domain) that differ.
fn ops(old: &Model, new: &Model) -> OpsDiff {
    let (a, b) = (op_counts(old), op_counts(new));
    let mut out = OpsDiff {
        old_nodes: old.graph.nodes.len(),
        new_nodes: new.graph.nodes.len(),
        ..OpsDiff::default()
    };
    let keys: std::collections::BTreeSet<&str> = a.keys().chain(b.keys()).map(|k| &**k).collect();
    for k in keys {
        let (x, y) = (
            a.get(k).copied().unwrap_or(0),
            b.get(k).copied().unwrap_or(0),
        );
        if y > x {
            out.added.insert(k.to_string(), y - x);
        } else if x > y {
            out.removed.insert(k.to_string(), x - y);
        }
    }
    out
}
