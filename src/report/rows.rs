//! The rows of a report's `tensors` section: what the writers read, from the
//! context as they write ([`Rows`]) or from a built report's map.

use super::json;
use super::{
    ReportComposite, ReportDim, ReportElement, ReportExpr, ReportHeld, ReportSequence, ReportTensor,
};
use crate::algebra::{Dim, Poly, SymbolKind};
use crate::context::{Composite, OptionalElement, ShapesContext};
use crate::graph::{DType, Model};
use egg::Symbol;
use indexmap::{IndexMap, IndexSet};
use rustc_hash::{FxBuildHasher, FxHashMap};

/// The tensors a report lists and their dims rendered, without the per-tensor copies
/// a [`Report`]'s `tensors` map holds (for a 100k-node model those are tens of
/// megabytes): the writers that stream a report read the rows from the context.
pub(super) struct Rows {
    /// Positions in the context's tensors, in report order: graph inputs, then node
    /// outputs in node order, each name once, those the context has facts for.
    order: Vec<usize>,
    /// The text of every dim of those tensors, per e-class: most dims are shared by
    /// many tensors, so each is rendered once.
    rendered: FxHashMap<egg::Id, Rendered>,
}

/// A dim of a report's rows, rendered: as the report holds it, and as a JSON value.
struct Rendered {
    dim: ReportDim,
    /// The JSON value, exactly as [`json::Writer`] writes `dim`.
    json: Box<str>,
}

impl Rendered {
    pub(super) fn new(dim: ReportDim) -> Rendered {
        let mut w = json::Writer::new(16, None);
        json::Value::write_to(&&dim, &mut w);
        Rendered {
            dim,
            json: w.into_text().into_boxed_str(),
        }
    }
}

/// The dims of a tensor's `value` that a report shows: integer tensors only.
pub(super) fn shown_value(fact: &crate::context::TensorFact) -> Option<&[Dim]> {
    if fact.dtype.is_integer() {
        fact.value.as_deref()
    } else {
        None
    }
}

/// The dims a report shows of a sequence or an optional: the length and the shared
/// element shape.
pub(super) fn composite_dims(c: &Composite) -> Vec<Dim> {
    let seq = |q: &crate::context::SequenceFact, out: &mut Vec<Dim>| {
        out.extend(q.len);
        out.extend(q.elem.shape.iter().flatten().copied());
    };
    let mut out = Vec::new();
    match c {
        Composite::Sequence(q) => seq(q, &mut out),
        Composite::Optional(o) => match &o.elem {
            OptionalElement::Tensor(t) => out.extend(t.shape.iter().flatten().copied()),
            OptionalElement::Sequence(q) => seq(q, &mut out),
        },
    }
    out
}

/// A tensor's element type as a report shows it: absent when undefined.
pub(super) fn shown_dtype(fact: &crate::context::TensorFact) -> Option<DType> {
    (fact.dtype != DType::Undefined).then_some(fact.dtype)
}

impl Rows {
    /// The rows of the model's tensors, and the symbols their dims mention.
    pub(super) fn new(model: &Model, ctx: &ShapesContext) -> (Rows, IndexSet<Symbol>) {
        let g = &model.graph;
        let names = g
            .inputs
            .iter()
            .map(|v| &v.name)
            .chain(g.nodes.iter().flat_map(|n| n.outputs.iter()));
        let mut seen = vec![false; ctx.len()];
        let mut rows = Rows {
            order: Vec::with_capacity(g.inputs.len() + g.nodes.len() + g.nodes.len() / 2),
            rendered: FxHashMap::default(),
        };
        let mut used = IndexSet::new();
        // The context holds node outputs in the order the nodes ran, mostly the rows'
        // order: the tensor after the last one found is tried before the hash lookup.
        let mut next = 0;
        for name in names {
            if name.is_empty() {
                continue;
            }
            let found = match ctx.name_at(next) {
                Some((n, fact)) if n == name => Some((next, fact)),
                _ => ctx.get_full(name),
            };
            let Some((i, fact)) = found else {
                continue;
            };
            next = i + 1;
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            rows.order.push(i);
            let dims = fact
                .shape
                .as_deref()
                .into_iter()
                .chain(shown_value(fact))
                .flatten();
            for d in dims {
                rows.render(ctx, *d, &mut used);
            }
            if let Some(c) = ctx.composite(name) {
                for d in composite_dims(c) {
                    rows.render(ctx, d, &mut used);
                }
            }
        }
        (rows, used)
    }

    /// Render `d` once per e-class, adding its symbols to `used`.
    fn render(&mut self, ctx: &ShapesContext, d: Dim, used: &mut IndexSet<Symbol>) {
        let id = ctx.alg.egraph().find(d.id());
        if let std::collections::hash_map::Entry::Vacant(slot) = self.rendered.entry(id) {
            slot.insert(Rendered::new(report_dim(ctx, d, used)));
        }
    }

    /// What the report says of the `index`-th row as a sequence or an optional (its
    /// dims must have been rendered by [`Rows::new`]).
    pub(super) fn composite(&self, ctx: &ShapesContext, index: usize) -> Option<ReportComposite> {
        let (name, _) = self.row(ctx, index);
        let c = ctx.composite(name)?;
        let element = |t: &crate::context::TensorFact| ReportElement {
            dtype: shown_dtype(t),
            shape: t
                .shape
                .as_ref()
                .map(|ds| self.dims(ctx, ds).cloned().collect()),
        };
        let sequence = |q: &crate::context::SequenceFact| ReportSequence {
            length: q.len.map(|l| self.rendered(ctx, &l).dim.clone()),
            element: element(&q.elem),
        };
        Some(match c {
            Composite::Sequence(q) => ReportComposite::Sequence(sequence(q)),
            Composite::Optional(o) => ReportComposite::Optional {
                present: o.present,
                held: match &o.elem {
                    OptionalElement::Tensor(t) => ReportHeld::Tensor(element(t)),
                    OptionalElement::Sequence(q) => ReportHeld::Sequence(sequence(q)),
                },
            },
        })
    }

    /// The rendered dims of `dims` (which must be dims of the rows' tensors).
    pub(super) fn dims<'r>(
        &'r self,
        ctx: &'r ShapesContext,
        dims: &'r [Dim],
    ) -> impl ExactSizeIterator<Item = &'r ReportDim> + 'r {
        dims.iter().map(move |d| &self.rendered(ctx, d).dim)
    }

    /// [`Rows::dims`] as JSON values.
    pub(super) fn json_dims<'r>(
        &'r self,
        ctx: &'r ShapesContext,
        dims: &'r [Dim],
    ) -> impl Iterator<Item = &'r str> + 'r {
        dims.iter().map(move |d| &*self.rendered(ctx, d).json)
    }

    /// The rendering of `d`'s e-class (`d` must be a dim of the rows' tensors).
    fn rendered(&self, ctx: &ShapesContext, d: &Dim) -> &Rendered {
        &self.rendered[&ctx.alg.egraph().find(d.id())]
    }

    /// The `index`-th row: its name and facts.
    pub(super) fn row<'c>(
        &self,
        ctx: &'c ShapesContext,
        index: usize,
    ) -> (&'c str, &'c crate::context::TensorFact) {
        ctx.get_index(self.order[index])
            .expect("rows index the context they were made from")
    }

    /// The rows as a report's `tensors` map.
    pub(super) fn collect(
        &self,
        ctx: &ShapesContext,
    ) -> IndexMap<String, ReportTensor, FxBuildHasher> {
        let src = Source::Rows(self, ctx);
        let mut tensors = IndexMap::with_capacity_and_hasher(self.order.len(), FxBuildHasher);
        for i in 0..self.order.len() {
            src.with_row(i, |name, dtype, shape, value, composite| {
                let t = ReportTensor {
                    dtype,
                    shape: shape.map(|ds| ds.cloned().collect()),
                    value: value.map(|ds| ds.cloned().collect()),
                    composite: composite.cloned(),
                };
                tensors.insert(name.to_string(), t);
            });
        }
        tensors
    }
}

/// Where the writers take a report's tensors from.
#[derive(Clone, Copy)]
pub(super) enum Source<'a> {
    /// A report's `tensors` map.
    Kept(&'a IndexMap<String, ReportTensor, FxBuildHasher>),
    /// Rows read from the context they were made from.
    Rows(&'a Rows, &'a ShapesContext),
}

impl Source<'_> {
    pub(super) fn len(&self) -> usize {
        match self {
            Source::Kept(t) => t.len(),
            Source::Rows(r, _) => r.order.len(),
        }
    }

    /// The `index`-th tensor's name.
    pub(super) fn name(&self, index: usize) -> &str {
        match self {
            Source::Kept(t) => t.get_index(index).expect("index within the map").0,
            Source::Rows(rows, ctx) => rows.row(ctx, index).0,
        }
    }

    /// Call `f` with the `index`-th tensor: name, dtype, shape, value and what is
    /// known of it as a sequence or an optional.
    pub(super) fn with_row<R>(
        &self,
        index: usize,
        f: impl FnOnce(
            &str,
            Option<DType>,
            Option<&mut dyn ExactSizeIterator<Item = &ReportDim>>,
            Option<&mut dyn ExactSizeIterator<Item = &ReportDim>>,
            Option<&ReportComposite>,
        ) -> R,
    ) -> R {
        match self {
            Source::Kept(t) => {
                let (name, t) = t.get_index(index).expect("index within the map");
                let mut shape = t.shape.as_ref().map(|v| v.iter());
                let mut value = t.value.as_ref().map(|v| v.iter());
                f(
                    name,
                    t.dtype,
                    as_dyn(&mut shape),
                    as_dyn(&mut value),
                    t.composite.as_ref(),
                )
            }
            Source::Rows(rows, ctx) => {
                let (name, fact) = rows.row(ctx, index);
                let composite = rows.composite(ctx, index);
                let mut shape = fact.shape.as_deref().map(|ds| rows.dims(ctx, ds));
                let mut value = shown_value(fact).map(|ds| rows.dims(ctx, ds));
                f(
                    name,
                    shown_dtype(fact),
                    as_dyn(&mut shape),
                    as_dyn(&mut value),
                    composite.as_ref(),
                )
            }
        }
    }
}

pub(super) fn report_dim(ctx: &ShapesContext, d: Dim, used: &mut IndexSet<Symbol>) -> ReportDim {
    let canon: &Poly = ctx.alg.canon(d);
    if let Some(v) = canon.as_const().and_then(|r| r.to_i64()) {
        return ReportDim::Int(v);
    }
    let mut found = Vec::new();
    canon.symbols(&mut found);
    let data_dependent = found.iter().any(|s| {
        matches!(
            ctx.alg.symbol_entry(s.as_str()).map(|e| &e.kind),
            Some(SymbolKind::DataDependent { .. })
        )
    });
    used.extend(found);
    ReportDim::Expr(ReportExpr::new(canon.render(), data_dependent))
}

/// A row's dims as [`Source::with_row`] passes them on, whatever iterator made them.
fn as_dyn<'a, 'd, I: ExactSizeIterator<Item = &'d ReportDim>>(
    dims: &'a mut Option<I>,
) -> Option<&'a mut dyn ExactSizeIterator<Item = &'d ReportDim>> {
    dims.as_mut()
        .map(|i| i as &mut dyn ExactSizeIterator<Item = &'d ReportDim>)
}
