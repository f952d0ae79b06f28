//! Shape reports: what inference found, as JSON or text, stable byte for byte.
//!
//! The JSON shape is an interface (see `docs/report.md`):
//!
//! ```json
//! {
//!   "model":   {"path": "m.onnx", "format": "onnx", "opsets": {"": 17}},
//!   "symbols": {"N": {"kind": "input"}, "r0": {"kind": "derived", "definition": "48*A/F"}},
//!   "tensors": {"x": {"dtype": "f32", "shape": ["N", 3, 224, 224]}},
//!   "outputs": ["y"],
//!   "diagnostics": [{"severity": "error", "node": "r1", "op": "Reshape", "message": "..."}]
//! }
//! ```
//! A dim is a JSON integer when it is an integer constant that fits in `i64`, and
//! otherwise a string in the expression grammar. `shape` is `null` when the rank
//! is unknown; `value` is present when the contents are known (integer tensors).

pub mod annotate;

use crate::algebra::{Dim, Poly, SymbolKind};
use crate::context::{Composite, Diagnostic, OptionalElement, ShapesContext};
use crate::graph::{DType, Model};
use egg::Symbol;
use indexmap::{IndexMap, IndexSet};
use rustc_hash::{FxBuildHasher, FxHashMap};
use serde::ser::{Serialize, SerializeMap, Serializer};
use std::fmt::Write as _;
use std::sync::Arc;

/// A dim in a report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReportDim {
    /// An integer constant.
    Int(i64),
    /// An expression in the grammar of `docs/grammar.md`.
    Expr(ReportExpr),
}

/// A report dim that is an expression: its text in the grammar of
/// `docs/grammar.md` (it derefs to the text), and whether it mentions a
/// data-dependent symbol. Shared: every tensor dim of one e-class holds the same
/// one (a large model has hundreds of thousands of dims and a few thousand
/// distinct expressions), and a dim stays two words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportExpr(Arc<ExprInfo>);

#[derive(Debug, PartialEq, Eq)]
struct ExprInfo {
    text: Box<str>,
    data_dependent: bool,
}

impl ReportExpr {
    /// An expression of `text` that mentions a data-dependent symbol or not.
    pub fn new(text: impl Into<Box<str>>, data_dependent: bool) -> ReportExpr {
        ReportExpr(Arc::new(ExprInfo {
            text: text.into(),
            data_dependent,
        }))
    }

    /// The text.
    pub fn text(&self) -> &str {
        &self.0.text
    }

    /// True when it mentions a symbol that stands for a value of the data (`unk0`,
    /// a symbol of a node without a closed form, [`ReportSymbol::DataDependent`]).
    pub fn mentions_data(&self) -> bool {
        self.0.data_dependent
    }
}

impl std::ops::Deref for ReportExpr {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0.text
    }
}

impl std::fmt::Display for ReportExpr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.text())
    }
}

impl From<&str> for ReportExpr {
    /// An expression of input and derived symbols only.
    fn from(text: &str) -> ReportExpr {
        ReportExpr::new(text, false)
    }
}

/// A symbol in a report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReportSymbol {
    /// Named by the model, or by the engine for an unnamed dynamic input dim.
    Input,
    /// Introduced by the engine, with its definition over other symbols.
    Derived {
        /// The defining expression.
        definition: String,
    },
    /// No closed form exists.
    DataDependent {
        /// The node that introduced it.
        node: String,
    },
}

/// A tensor in a report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportTensor {
    /// Element type, when known.
    pub dtype: Option<DType>,
    /// Dims, or `None` when the rank is unknown.
    pub shape: Option<Vec<ReportDim>>,
    /// Contents, when known (integer tensors only).
    pub value: Option<Vec<ReportDim>>,
    /// For a value known as a sequence or an optional (which has no tensor shape:
    /// `shape` is `None`), what is known of it as one.
    pub composite: Option<ReportComposite>,
}

/// What a report says of a sequence of tensors or an optional value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReportComposite {
    /// A sequence (JSON: the `sequence` member of the value's object).
    Sequence(ReportSequence),
    /// An optional (JSON: the `optional` member).
    Optional {
        /// Whether it holds a value, when known.
        present: Option<bool>,
        /// What it holds when it holds a value.
        held: ReportHeld,
    },
}

/// What an optional holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReportHeld {
    /// A tensor (JSON: `element`).
    Tensor(ReportElement),
    /// A sequence (JSON: `sequence`).
    Sequence(ReportSequence),
}

/// A sequence in a report: its length and what all its elements share.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportSequence {
    /// The number of elements, when known.
    pub length: Option<ReportDim>,
    /// What every element shares: a dim on which they may differ is a data-dependent
    /// symbol.
    pub element: ReportElement,
}

/// The element type and shape of a tensor held by a sequence or an optional.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportElement {
    /// Element type, when known.
    pub dtype: Option<DType>,
    /// Dims, or `None` when the rank is unknown.
    pub shape: Option<Vec<ReportDim>>,
}

/// Every diagnostic of an inferred context, as a report lists them: inference's, then
/// the algebra's contradictions (errors) and warnings.
pub(crate) fn all_diagnostics(ctx: &ShapesContext) -> Vec<Diagnostic> {
    let mut diagnostics = ctx.diagnostics.clone();
    for c in ctx.alg.contradictions() {
        diagnostics.push(Diagnostic {
            severity: crate::context::Severity::Error,
            node: String::new(),
            op: String::new(),
            message: c.to_string(),
            cause: None,
        });
    }
    for w in ctx.alg.warnings() {
        diagnostics.push(Diagnostic {
            severity: crate::context::Severity::Warning,
            node: String::new(),
            op: String::new(),
            message: w.to_string(),
            cause: None,
        });
    }
    diagnostics
}

/// The result of inference on one model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// Path as given.
    pub path: String,
    /// Source format name.
    pub format: String,
    /// Opset version per domain.
    pub opsets: IndexMap<String, i64>,
    /// Every symbol that appears, in creation order.
    pub symbols: IndexMap<String, ReportSymbol>,
    /// Every graph input and node output, in graph order.
    pub tensors: IndexMap<String, ReportTensor, FxBuildHasher>,
    /// Graph output names.
    pub outputs: Vec<String>,
    /// Diagnostics, in the order they were found.
    pub diagnostics: Vec<Diagnostic>,
    /// Per input symbol, the conditions of the model's contract that mention it
    /// (see [`Report::add_constraints`]); empty unless added.
    pub constraints: IndexMap<String, Vec<String>>,
}

impl Report {
    /// Build the report of an inferred model.
    pub fn build(model: &Model, ctx: &ShapesContext) -> Report {
        let (rows, used) = Rows::new(model, ctx);
        let tensors = rows.collect(ctx);
        Report::summary(model, ctx, used, tensors)
    }

    /// The report with `tensors` as its tensors section; the symbols are those of
    /// `used` and of the definitions of derived symbols among them.
    fn summary(
        model: &Model,
        ctx: &ShapesContext,
        mut used: IndexSet<Symbol>,
        tensors: IndexMap<String, ReportTensor, FxBuildHasher>,
    ) -> Report {
        let g = &model.graph;
        // Symbols used by definitions of derived symbols, transitively.
        let mut i = 0;
        while let Some(sym) = used.get_index(i).copied() {
            if let Some(SymbolKind::Derived { definition }) =
                ctx.alg.symbol_entry(sym.as_str()).map(|e| &e.kind)
            {
                let mut found = Vec::new();
                definition.symbols(&mut found);
                used.extend(found);
            }
            i += 1;
        }
        let mut symbols = IndexMap::new();
        for (name, e) in ctx.alg.symbols() {
            if !used.contains(&Symbol::from(name)) {
                continue;
            }
            let s = match &e.kind {
                SymbolKind::Input => ReportSymbol::Input,
                SymbolKind::Derived { definition } => ReportSymbol::Derived {
                    definition: definition.render(),
                },
                SymbolKind::DataDependent { node } => {
                    ReportSymbol::DataDependent { node: node.clone() }
                }
            };
            symbols.insert(name.to_string(), s);
        }
        let diagnostics = all_diagnostics(ctx);
        Report {
            path: model.path.clone(),
            format: model.format.name().to_string(),
            opsets: model.opsets.clone(),
            symbols,
            tensors,
            outputs: g.outputs.iter().map(|v| v.name.to_string()).collect(),
            diagnostics,
            constraints: IndexMap::new(),
        }
    }

    /// [`Report::build`] with the constraints of the model's contract added
    /// ([`crate::contracts::derive`], then [`Report::add_constraints`]): what
    /// `symdim infer` prints.
    pub fn build_with_constraints(
        model: &Model,
        ctx: &ShapesContext,
        options: &crate::context::facts::Facts,
    ) -> Report {
        let contract = crate::contracts::derive(model, ctx, options);
        let mut report = Report::build(model, ctx);
        report.add_constraints(&contract);
        report
    }

    /// Add the derived constraints of the model's contract to the symbols section:
    /// each symbol lists the conditions that mention it (JSON: a `constraints`
    /// array in the symbol's object; text: `needs ...` after its kind).
    pub fn add_constraints(&mut self, contract: &crate::contracts::Contract) {
        for name in self.symbols.keys() {
            let conds: Vec<String> = contract
                .for_symbol(name)
                .into_iter()
                .map(|c| c.condition.clone())
                .collect();
            if !conds.is_empty() {
                self.constraints.insert(name.clone(), conds);
            }
        }
    }

    /// True when some diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == crate::context::Severity::Error)
    }

    /// The JSON report (one object, pretty-printed, with a final newline).
    ///
    /// Written directly, byte for byte what `serde_json`'s pretty printer makes of this
    /// type's [`Serialize`] implementation (a test compares the two on every bundled
    /// model), without going through a serializer per value.
    pub fn to_json(&self) -> String {
        // About 160 bytes per tensor in real models; regrowing would copy it all.
        let mut out = json::Writer::new(4096 + self.tensors.len() * 192, None);
        self.emit_json(&mut out, Source::Kept(&self.tensors));
        out.finish().1
    }

    /// [`Report::to_json`] written to `sink` as it is made, in pieces of about 64 KiB,
    /// instead of as one string (a large model's report is megabytes). Stops at the
    /// first write error and returns it.
    pub fn write_json(&self, sink: &mut dyn std::io::Write) -> std::io::Result<()> {
        self.write(Format::Json, sink)
    }

    /// Write the report of an inferred model, with the contract's constraints, to
    /// `sink` in `format`: the bytes of [`Report::build_with_constraints`] then
    /// [`Report::write`], in pieces of about 64 KiB. Returns the report and the
    /// first write error.
    ///
    /// The tensors are read from the context as they are written and not kept: the
    /// report returned has every section but `tensors`, which is empty (for a
    /// 100k-node model it would be tens of megabytes). [`Report::fill_tensors`] makes
    /// it.
    pub fn write_inferred(
        model: &Model,
        ctx: &ShapesContext,
        options: &crate::context::facts::Facts,
        format: Format,
        sink: &mut dyn std::io::Write,
    ) -> (Report, std::io::Result<()>) {
        let contract = crate::contracts::derive(model, ctx, options);
        let (rows, used) = Rows::new(model, ctx);
        let mut report = Report::summary(model, ctx, used, IndexMap::default());
        report.add_constraints(&contract);
        let written = report.emit_to(format, Source::Rows(&rows, ctx), sink);
        (report, written)
    }

    /// Make the `tensors` section of [`Report::build`] from the model and context the
    /// report was made of: what the direct writer ([`Report::write_inferred`])
    /// writes but does not keep.
    pub fn fill_tensors(&mut self, model: &Model, ctx: &ShapesContext) {
        self.tensors = Rows::new(model, ctx).0.collect(ctx);
    }

    /// The whole report, its tensors taken from `src`.
    fn emit_json(&self, w: &mut json::Writer<'_>, src: Source<'_>) {
        w.open_object();
        w.key("model");
        w.open_object();
        w.key("path");
        w.string(&self.path);
        w.key("format");
        w.string(&self.format);
        w.key("opsets");
        w.open_object();
        for (domain, version) in &self.opsets {
            w.key(domain);
            w.int(*version);
        }
        w.close_object();
        w.close_object();
        w.key("symbols");
        w.open_object();
        for (name, sym) in &self.symbols {
            w.key(name);
            w.open_object();
            match sym {
                ReportSymbol::Input => {
                    w.key("kind");
                    w.string("input");
                }
                ReportSymbol::Derived { definition } => {
                    w.key("kind");
                    w.string("derived");
                    w.key("definition");
                    w.string(definition);
                }
                ReportSymbol::DataDependent { node } => {
                    w.key("kind");
                    w.string("data-dependent");
                    w.key("node");
                    w.string(node);
                }
            }
            if let Some(conds) = self.constraints.get(name) {
                w.key("constraints");
                w.open_array();
                for c in conds {
                    w.item();
                    w.string(c);
                }
                w.close_array();
            }
            w.close_object();
        }
        w.close_object();
        w.key("tensors");
        w.open_object();
        emit_tensors(src, w);
        w.close_object();
        w.key("outputs");
        w.open_array();
        for o in &self.outputs {
            w.item();
            w.string(o);
        }
        w.close_array();
        w.key("diagnostics");
        w.open_array();
        for d in &self.diagnostics {
            w.item();
            w.open_object();
            w.key("severity");
            w.string(d.severity.name());
            w.key("node");
            w.string(&d.node);
            w.key("op");
            w.string(&d.op);
            w.key("message");
            w.string(&d.message);
            w.close_object();
        }
        w.close_array();
        w.close_object();
    }

    /// The text report (see `docs/report.md`).
    pub fn to_text(&self) -> String {
        let mut out = out::Buffer::new(4096 + self.tensors.len() * 96, None);
        self.emit_text(&mut out, Source::Kept(&self.tensors));
        out.finish().1
    }

    /// [`Report::to_text`] written to `sink` as it is made, in pieces of about 64 KiB.
    /// Stops at the first write error and returns it.
    pub fn write_text(&self, sink: &mut dyn std::io::Write) -> std::io::Result<()> {
        self.write(Format::Text, sink)
    }

    /// The report in `format` written to `sink` as it is made ([`Report::write_text`]
    /// or [`Report::write_json`]).
    pub fn write(&self, format: Format, sink: &mut dyn std::io::Write) -> std::io::Result<()> {
        self.emit_to(format, Source::Kept(&self.tensors), sink)
    }

    /// The whole report in `format`, its tensors taken from `src`, written to `sink`
    /// in pieces of about 64 KiB; the first write error.
    fn emit_to(
        &self,
        format: Format,
        src: Source<'_>,
        sink: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        match format {
            Format::Json => {
                let mut out = json::Writer::new(json::SPILL + 4096, Some(sink));
                self.emit_json(&mut out, src);
                out.finish().0
            }
            Format::Text => {
                let mut out = out::Buffer::new(out::SPILL + 4096, Some(sink));
                self.emit_text(&mut out, src);
                out.finish().0
            }
        }
    }

    /// The whole text report, its tensors taken from `src`.
    fn emit_text(&self, s: &mut out::Buffer<'_>, src: Source<'_>) {
        let opsets: Vec<String> = self
            .opsets
            .iter()
            .map(|(k, v)| format!("{}={v}", if k.is_empty() { "ai.onnx" } else { k }))
            .collect();
        let _ = writeln!(
            s,
            "model: {} ({}; opsets {})",
            self.path,
            self.format,
            opsets.join(", ")
        );
        let _ = writeln!(s, "symbols:");
        let w = self.symbols.keys().map(|k| k.len()).max().unwrap_or(0);
        for (name, sym) in &self.symbols {
            let what = match sym {
                ReportSymbol::Input => "input".to_string(),
                ReportSymbol::Derived { definition } => format!("derived = {definition}"),
                ReportSymbol::DataDependent { node } => format!("data-dependent (from {node})"),
            };
            match self.constraints.get(name) {
                Some(c) => {
                    let _ = writeln!(s, "  {name:<w$}  {what}; needs {}", c.join(", "));
                }
                None => {
                    let _ = writeln!(s, "  {name:<w$}  {what}");
                }
            }
            s.spill_if_full();
        }
        let _ = writeln!(s, "tensors:");
        text_tensors(src, s, name_width(src));
        let _ = writeln!(s, "outputs: {}", self.outputs.join(", "));
        if self.diagnostics.is_empty() {
            s.push_str("diagnostics: none\n");
        } else {
            s.push_str("diagnostics:\n");
        }
        for d in &self.diagnostics {
            let _ = writeln!(s, "  {d}");
            s.spill_if_full();
        }
    }
}

/// A report's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The text report ([`Report::to_text`]).
    Text,
    /// The JSON report ([`Report::to_json`]).
    Json,
}

/// How wide the text report's column of tensor names is: the longest name's length in
/// bytes, at most 48 (longer names push their line's other columns right).
fn name_width(src: Source<'_>) -> usize {
    (0..src.len())
        .map(|i| src.name(i).len())
        .max()
        .unwrap_or(0)
        .min(48)
}

/// A sequence or an optional in the text report: `sequence of 2 [N, 4]`,
/// `sequence of ? (unknown rank)`, `optional (present) [N]`, `optional (maybe
/// empty) sequence of 3 [N]`, `optional (empty)`.
fn text_composite(s: &mut out::Buffer<'_>, c: &ReportComposite) {
    fn dim(s: &mut out::Buffer<'_>, d: &ReportDim) {
        match d {
            ReportDim::Int(v) => s.push_str(itoa::Buffer::new().format(*v)),
            ReportDim::Expr(e) => s.push_str(e),
        }
    }
    fn element(s: &mut out::Buffer<'_>, e: &ReportElement) {
        match &e.shape {
            None => s.push_str("(unknown rank)"),
            Some(ds) => {
                s.push('[');
                for (k, d) in ds.iter().enumerate() {
                    if k > 0 {
                        s.push_str(", ");
                    }
                    dim(s, d);
                }
                s.push(']');
            }
        }
    }
    fn sequence(s: &mut out::Buffer<'_>, q: &ReportSequence) {
        s.push_str("sequence of ");
        match &q.length {
            Some(l) => dim(s, l),
            None => s.push('?'),
        }
        s.push(' ');
        element(s, &q.element);
    }
    match c {
        ReportComposite::Sequence(q) => sequence(s, q),
        ReportComposite::Optional { present, held } => {
            s.push_str(match present {
                Some(true) => "optional (present) ",
                Some(false) => "optional (empty)",
                None => "optional (maybe empty) ",
            });
            if *present != Some(false) {
                match held {
                    ReportHeld::Tensor(e) => element(s, e),
                    ReportHeld::Sequence(q) => sequence(s, q),
                }
            }
        }
    }
}

/// The lines of the text report's `tensors` section, the names padded to `width`.
fn text_tensors(src: Source<'_>, s: &mut out::Buffer<'_>, width: usize) {
    let dims = |s: &mut out::Buffer<'_>, dims: &mut dyn ExactSizeIterator<Item = &ReportDim>| {
        s.push('[');
        for (k, d) in dims.enumerate() {
            if k > 0 {
                s.push_str(", ");
            }
            match d {
                ReportDim::Int(v) => s.push_str(itoa::Buffer::new().format(*v)),
                ReportDim::Expr(e) => s.push_str(e),
            }
        }
        s.push(']');
    };
    for i in 0..src.len() {
        s.spill_if_full();
        src.with_row(i, |name, dtype, shape, value, composite| {
            let dtype = dtype.map_or("?", |d| d.short_name());
            let _ = write!(s, "  {name:<width$}  {dtype:<6} ");
            match (shape, composite) {
                (None, Some(c)) => text_composite(s, c),
                (None, None) => s.push_str("unknown rank"),
                (Some(ds), _) => dims(s, ds),
            }
            if let Some(v) = value {
                s.push_str(" = ");
                dims(s, v);
            }
            s.push('\n');
        });
    }
}

/// The tensors a report lists and their dims rendered, without the per-tensor copies
/// a [`Report`]'s `tensors` map holds (for a 100k-node model those are tens of
/// megabytes): the writers that stream a report read the rows from the context.
struct Rows {
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
    fn new(dim: ReportDim) -> Rendered {
        let mut w = json::Writer::new(16, None);
        json::Value::write_to(&&dim, &mut w);
        Rendered {
            dim,
            json: w.into_text().into_boxed_str(),
        }
    }
}

/// The dims of a tensor's `value` that a report shows: integer tensors only.
fn shown_value(fact: &crate::context::TensorFact) -> Option<&[Dim]> {
    if fact.dtype.is_integer() {
        fact.value.as_deref()
    } else {
        None
    }
}

/// The dims a report shows of a sequence or an optional: the length and the shared
/// element shape.
fn composite_dims(c: &Composite) -> Vec<Dim> {
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
fn shown_dtype(fact: &crate::context::TensorFact) -> Option<DType> {
    (fact.dtype != DType::Undefined).then_some(fact.dtype)
}

impl Rows {
    /// The rows of the model's tensors, and the symbols their dims mention.
    fn new(model: &Model, ctx: &ShapesContext) -> (Rows, IndexSet<Symbol>) {
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
    fn composite(&self, ctx: &ShapesContext, index: usize) -> Option<ReportComposite> {
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
    fn dims<'r>(
        &'r self,
        ctx: &'r ShapesContext,
        dims: &'r [Dim],
    ) -> impl ExactSizeIterator<Item = &'r ReportDim> + 'r {
        dims.iter().map(move |d| &self.rendered(ctx, d).dim)
    }

    /// [`Rows::dims`] as JSON values.
    fn json_dims<'r>(
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
    fn row<'c>(
        &self,
        ctx: &'c ShapesContext,
        index: usize,
    ) -> (&'c str, &'c crate::context::TensorFact) {
        ctx.get_index(self.order[index])
            .expect("rows index the context they were made from")
    }

    /// The rows as a report's `tensors` map.
    fn collect(&self, ctx: &ShapesContext) -> IndexMap<String, ReportTensor, FxBuildHasher> {
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

/// The members of the `tensors` object, laid out as they are inside the report.
fn emit_tensors(src: Source<'_>, w: &mut json::Writer<'_>) {
    for i in 0..src.len() {
        match src {
            Source::Kept(t) => {
                let (name, t) = t.get_index(i).expect("index within the map");
                w.tensor(
                    name,
                    t.dtype.map(DType::short_name),
                    t.shape.as_ref().map(|ds| ds.iter()),
                    t.value.as_ref().map(|ds| ds.iter()),
                    t.composite.as_ref(),
                );
            }
            // Each dim's JSON value was made once per e-class.
            Source::Rows(rows, ctx) => {
                let (name, fact) = rows.row(ctx, i);
                let composite = rows.composite(ctx, i);
                w.tensor(
                    name,
                    shown_dtype(fact).map(DType::short_name),
                    fact.shape.as_deref().map(|ds| rows.json_dims(ctx, ds)),
                    shown_value(fact).map(|ds| rows.json_dims(ctx, ds)),
                    composite.as_ref(),
                );
            }
        }
    }
}

/// A row's dims as [`Source::with_row`] passes them on, whatever iterator made them.
fn as_dyn<'a, 'd, I: ExactSizeIterator<Item = &'d ReportDim>>(
    dims: &'a mut Option<I>,
) -> Option<&'a mut dyn ExactSizeIterator<Item = &'d ReportDim>> {
    dims.as_mut()
        .map(|i| i as &mut dyn ExactSizeIterator<Item = &'d ReportDim>)
}

/// Where the writers take a report's tensors from.
#[derive(Clone, Copy)]
enum Source<'a> {
    /// A report's `tensors` map.
    Kept(&'a IndexMap<String, ReportTensor, FxBuildHasher>),
    /// Rows read from the context they were made from.
    Rows(&'a Rows, &'a ShapesContext),
}

impl Source<'_> {
    fn len(&self) -> usize {
        match self {
            Source::Kept(t) => t.len(),
            Source::Rows(r, _) => r.order.len(),
        }
    }

    /// The `index`-th tensor's name.
    fn name(&self, index: usize) -> &str {
        match self {
            Source::Kept(t) => t.get_index(index).expect("index within the map").0,
            Source::Rows(rows, ctx) => rows.row(ctx, index).0,
        }
    }

    /// Call `f` with the `index`-th tensor: name, dtype, shape, value and what is
    /// known of it as a sequence or an optional.
    fn with_row<R>(
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

fn report_dim(ctx: &ShapesContext, d: Dim, used: &mut IndexSet<Symbol>) -> ReportDim {
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

impl Serialize for ReportDim {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ReportDim::Int(v) => s.serialize_i64(*v),
            ReportDim::Expr(e) => s.serialize_str(e),
        }
    }
}

/// `"model": {"path", "format", "opsets"}`.
struct ModelJson<'a>(&'a Report);

impl Serialize for ModelJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("path", &self.0.path)?;
        m.serialize_entry("format", &self.0.format)?;
        m.serialize_entry("opsets", &self.0.opsets)?;
        m.end()
    }
}

impl Serialize for ReportSymbol {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        SymbolJson(self, None).serialize(s)
    }
}

impl Serialize for ReportTensor {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("dtype", &self.dtype.map(|d| d.short_name()))?;
        m.serialize_entry("shape", &self.shape)?;
        if let Some(v) = &self.value {
            m.serialize_entry("value", v)?;
        }
        match &self.composite {
            Some(ReportComposite::Sequence(q)) => m.serialize_entry("sequence", q)?,
            Some(c @ ReportComposite::Optional { .. }) => m.serialize_entry("optional", c)?,
            None => {}
        }
        m.end()
    }
}

impl Serialize for ReportComposite {
    /// A sequence as [`ReportSequence`]; an optional as `{"present", "element"}` (a
    /// tensor) or `{"present", "sequence"}`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ReportComposite::Sequence(q) => q.serialize(s),
            ReportComposite::Optional { present, held } => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("present", present)?;
                match held {
                    ReportHeld::Tensor(e) => m.serialize_entry("element", e)?,
                    ReportHeld::Sequence(q) => m.serialize_entry("sequence", q)?,
                }
                m.end()
            }
        }
    }
}

impl Serialize for ReportSequence {
    /// `{"length", "element"}`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("length", &self.length)?;
        m.serialize_entry("element", &self.element)?;
        m.end()
    }
}

impl Serialize for ReportElement {
    /// `{"dtype", "shape"}`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("dtype", &self.dtype.map(|d| d.short_name()))?;
        m.serialize_entry("shape", &self.shape)?;
        m.end()
    }
}

/// One diagnostic: `{"severity", "node", "op", "message"}`.
struct DiagnosticJson<'a>(&'a Diagnostic);

impl Serialize for DiagnosticJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(4))?;
        m.serialize_entry("severity", self.0.severity.name())?;
        m.serialize_entry("node", &self.0.node)?;
        m.serialize_entry("op", &self.0.op)?;
        m.serialize_entry("message", &self.0.message)?;
        m.end()
    }
}

/// A symbol with the constraints that mention it (only when there are some).
struct SymbolJson<'a>(&'a ReportSymbol, Option<&'a Vec<String>>);

impl Serialize for SymbolJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        match self.0 {
            ReportSymbol::Input => m.serialize_entry("kind", "input")?,
            ReportSymbol::Derived { definition } => {
                m.serialize_entry("kind", "derived")?;
                m.serialize_entry("definition", definition)?;
            }
            ReportSymbol::DataDependent { node } => {
                m.serialize_entry("kind", "data-dependent")?;
                m.serialize_entry("node", node)?;
            }
        }
        if let Some(c) = self.1 {
            m.serialize_entry("constraints", c)?;
        }
        m.end()
    }
}

impl Serialize for Report {
    /// The pinned JSON shape (see the module doc); fields are only ever added.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(5))?;
        m.serialize_entry("model", &ModelJson(self))?;
        let symbols: IndexMap<&str, SymbolJson<'_>> = self
            .symbols
            .iter()
            .map(|(k, v)| (k.as_str(), SymbolJson(v, self.constraints.get(k))))
            .collect();
        m.serialize_entry("symbols", &symbols)?;
        m.serialize_entry("tensors", &self.tensors)?;
        m.serialize_entry("outputs", &self.outputs)?;
        let diags: Vec<DiagnosticJson<'_>> = self.diagnostics.iter().map(DiagnosticJson).collect();
        m.serialize_entry("diagnostics", &diags)?;
        m.end()
    }
}

/// Report text on its way out: a buffer, where it goes when it fills up (or nowhere:
/// the caller takes the whole text), and the first write error.
mod out {
    /// How much text the buffer holds before passing it on to its sink.
    pub(super) const SPILL: usize = 1 << 16;

    pub(super) struct Buffer<'w> {
        text: String,
        sink: Option<&'w mut dyn std::io::Write>,
        error: Option<std::io::Error>,
    }

    impl<'w> Buffer<'w> {
        pub(super) fn new(capacity: usize, sink: Option<&'w mut dyn std::io::Write>) -> Self {
            Buffer {
                text: String::with_capacity(capacity),
                sink,
                error: None,
            }
        }

        /// The text written so far (no sink).
        pub(super) fn into_text(self) -> String {
            self.text
        }

        pub(super) fn push(&mut self, c: char) {
            self.text.push(c);
        }

        pub(super) fn push_str(&mut self, s: &str) {
            self.text.push_str(s);
        }

        /// Pass the buffered text on once there is [`SPILL`] of it.
        pub(super) fn spill_if_full(&mut self) {
            if self.text.len() >= SPILL {
                self.spill();
            }
        }

        /// Write `text` to the sink, unless there is none or a write already failed
        /// (the first error is kept).
        fn send(&mut self, text: &str) {
            if let (Some(sink), None) = (self.sink.as_mut(), &self.error) {
                if let Err(e) = sink.write_all(text.as_bytes()) {
                    self.error = Some(e);
                }
            }
        }

        /// Pass the buffered text to the sink, if there is one.
        fn spill(&mut self) {
            if self.sink.is_some() {
                let text = std::mem::take(&mut self.text);
                self.send(&text);
                self.text = text;
                self.text.clear();
            }
        }

        /// With a sink: everything written and flushed (or the first error), and an
        /// empty string; without: the text.
        pub(super) fn finish(mut self) -> (std::io::Result<()>, String) {
            self.spill();
            if let (Some(sink), None) = (self.sink.as_mut(), &self.error) {
                if let Err(e) = sink.flush() {
                    self.error = Some(e);
                }
            }
            match self.error.take() {
                Some(e) => (Err(e), String::new()),
                None => (Ok(()), std::mem::take(&mut self.text)),
            }
        }
    }

    impl std::fmt::Write for Buffer<'_> {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.text.push_str(s);
            Ok(())
        }
    }
}

/// A pretty-printing JSON writer with `serde_json`'s layout: two-space indents, one
/// member or element per line, `"key": value`, and `{}` / `[]` when empty.
mod json {
    use super::out::Buffer;
    use std::fmt::Write as _;

    pub(super) use super::out::SPILL;

    /// The writer: where the text goes ([`Buffer`]) and, per open container, whether
    /// it has members yet.
    pub(super) struct Writer<'w> {
        out: Buffer<'w>,
        open: Vec<bool>,
    }

    impl<'w> Writer<'w> {
        pub(super) fn new(capacity: usize, sink: Option<&'w mut dyn std::io::Write>) -> Self {
            Writer {
                out: Buffer::new(capacity, sink),
                open: Vec::new(),
            }
        }

        /// The text written so far (no sink).
        pub(super) fn into_text(self) -> String {
            self.out.into_text()
        }

        /// End the text with a newline. With a sink: everything written and flushed
        /// (or the first error), and an empty string; without: the text.
        pub(super) fn finish(mut self) -> (std::io::Result<()>, String) {
            self.out.push('\n');
            self.out.finish()
        }

        fn newline(&mut self) {
            self.indent(self.open.len());
        }

        /// A new line indented for `depth` open containers.
        fn indent(&mut self, depth: usize) {
            const SPACES: &str = "                                                                ";
            self.out.push('\n');
            let mut n = 2 * depth;
            while n > 0 {
                let k = n.min(SPACES.len());
                self.out.push_str(&SPACES[..k]);
                n -= k;
            }
        }

        /// A member of the innermost object, named `name`, holding a report's tensor:
        /// `{"dtype": .., "shape": .., "value": ..}` (`value` only when given). The
        /// same text as writing it piece by piece with [`Writer::key`],
        /// [`Writer::open_object`], [`Writer::item`] and the rest, without their
        /// bookkeeping per dim.
        pub(super) fn tensor<V: Value>(
            &mut self,
            name: &str,
            dtype: Option<&str>,
            shape: Option<impl Iterator<Item = V>>,
            value: Option<impl Iterator<Item = V>>,
            composite: Option<&super::ReportComposite>,
        ) {
            self.key(name);
            let depth = self.open.len() + 1;
            self.out.push('{');
            self.indent(depth);
            self.out.push_str("\"dtype\": ");
            match dtype {
                Some(d) => self.string(d),
                None => self.null(),
            }
            self.out.push(',');
            self.indent(depth);
            self.out.push_str("\"shape\": ");
            self.values(depth, shape);
            if value.is_some() {
                self.out.push(',');
                self.indent(depth);
                self.out.push_str("\"value\": ");
                self.values(depth, value);
            }
            if let Some(c) = composite {
                self.out.push(',');
                self.indent(depth);
                self.composite(depth, c);
            }
            self.indent(depth - 1);
            self.out.push('}');
        }

        /// A member `"name": ` at `depth` (after its line has been started).
        fn member_key(&mut self, name: &str) {
            self.string(name);
            self.out.push_str(": ");
        }

        /// The `sequence` or `optional` member of a value's object, at `depth`.
        fn composite(&mut self, depth: usize, c: &super::ReportComposite) {
            match c {
                super::ReportComposite::Sequence(q) => {
                    self.member_key("sequence");
                    self.sequence(depth, q);
                }
                super::ReportComposite::Optional { present, held } => {
                    self.member_key("optional");
                    self.out.push('{');
                    self.indent(depth + 1);
                    self.member_key("present");
                    match present {
                        Some(p) => self.out.push_str(if *p { "true" } else { "false" }),
                        None => self.null(),
                    }
                    self.out.push(',');
                    self.indent(depth + 1);
                    match held {
                        super::ReportHeld::Tensor(e) => {
                            self.member_key("element");
                            self.element(depth + 1, e);
                        }
                        super::ReportHeld::Sequence(q) => {
                            self.member_key("sequence");
                            self.sequence(depth + 1, q);
                        }
                    }
                    self.indent(depth);
                    self.out.push('}');
                }
            }
        }

        /// `{"length": .., "element": ..}` as a member's value at `depth`.
        fn sequence(&mut self, depth: usize, q: &super::ReportSequence) {
            self.out.push('{');
            self.indent(depth + 1);
            self.member_key("length");
            match &q.length {
                Some(d) => d.write_to(self),
                None => self.null(),
            }
            self.out.push(',');
            self.indent(depth + 1);
            self.member_key("element");
            self.element(depth + 1, &q.element);
            self.indent(depth);
            self.out.push('}');
        }

        /// `{"dtype": .., "shape": ..}` as a member's value at `depth`.
        fn element(&mut self, depth: usize, e: &super::ReportElement) {
            self.out.push('{');
            self.indent(depth + 1);
            self.member_key("dtype");
            match e.dtype {
                Some(d) => self.string(d.short_name()),
                None => self.null(),
            }
            self.out.push(',');
            self.indent(depth + 1);
            self.member_key("shape");
            self.values(depth + 1, e.shape.as_ref().map(|ds| ds.iter()));
            self.indent(depth);
            self.out.push('}');
        }

        /// An array of values (`null` for none) as a member at `depth`.
        fn values<V: Value>(&mut self, depth: usize, values: Option<impl Iterator<Item = V>>) {
            let Some(values) = values else {
                return self.null();
            };
            self.out.push('[');
            let mut any = false;
            for v in values {
                if any {
                    self.out.push(',');
                }
                any = true;
                self.indent(depth + 1);
                v.write_to(self);
            }
            if any {
                self.indent(depth);
            }
            self.out.push(']');
        }

        /// Start a member or element of the innermost container.
        fn member(&mut self) {
            self.out.spill_if_full();
            if let Some(has) = self.open.last_mut() {
                let first = !*has;
                *has = true;
                if !first {
                    self.out.push(',');
                }
                self.newline();
            }
        }

        fn close(&mut self, c: char) {
            if self.open.pop() == Some(true) {
                self.newline();
            }
            self.out.push(c);
        }

        pub(super) fn open_object(&mut self) {
            self.out.push('{');
            self.open.push(false);
        }

        pub(super) fn close_object(&mut self) {
            self.close('}');
        }

        pub(super) fn open_array(&mut self) {
            self.out.push('[');
            self.open.push(false);
        }

        pub(super) fn close_array(&mut self) {
            self.close(']');
        }

        /// An object member's key; its value follows.
        pub(super) fn key(&mut self, k: &str) {
            self.member();
            self.string(k);
            self.out.push_str(": ");
        }

        /// An array element; its value follows.
        pub(super) fn item(&mut self) {
            self.member();
        }

        pub(super) fn null(&mut self) {
            self.out.push_str("null");
        }

        pub(super) fn int(&mut self, v: i64) {
            self.out.push_str(itoa::Buffer::new().format(v));
        }

        /// A string, escaped as `serde_json` escapes: `\"`, `\\`, `\b`, `\f`, `\n`,
        /// `\r`, `\t`, other control characters as `\u00XX`; everything else as is.
        pub(super) fn string(&mut self, s: &str) {
            self.out.push('"');
            let bytes = s.as_bytes();
            if !needs_escape(bytes) {
                self.out.push_str(s);
                self.out.push('"');
                return;
            }
            let mut start = 0;
            for (i, &b) in bytes.iter().enumerate() {
                let esc: &str = match b {
                    b'"' => "\\\"",
                    b'\\' => "\\\\",
                    b'\n' => "\\n",
                    b'\r' => "\\r",
                    b'\t' => "\\t",
                    0x08 => "\\b",
                    0x0c => "\\f",
                    0..=0x1f => "",
                    _ => continue,
                };
                self.out.push_str(&s[start..i]);
                if esc.is_empty() {
                    let _ = write!(self.out, "\\u{b:04x}");
                } else {
                    self.out.push_str(esc);
                }
                start = i + 1;
            }
            self.out.push_str(&s[start..]);
            self.out.push('"');
        }
    }

    /// A dim as [`Writer::tensor`] writes it.
    pub(super) trait Value {
        /// Write it as one JSON value.
        fn write_to(&self, w: &mut Writer<'_>);
    }

    /// Text that is a JSON value already (made once, written as it is).
    impl Value for &str {
        fn write_to(&self, w: &mut Writer<'_>) {
            w.out.push_str(self);
        }
    }

    /// An integer, or a string in the expression grammar.
    impl Value for &super::ReportDim {
        fn write_to(&self, w: &mut Writer<'_>) {
            match self {
                super::ReportDim::Int(v) => w.int(*v),
                super::ReportDim::Expr(e) => w.string(e),
            }
        }
    }

    /// Whether `bytes` hold a byte that [`Writer::string`] escapes: a control
    /// character, `"` or `\`. Eight bytes at a time: a byte below 0x20 (or a zero byte
    /// after an `xor`) borrows into its top bit in `v - 0x0101..`, which `!v` keeps only
    /// for bytes below 0x80 (the classic "has a byte less than n" test, exact for
    /// n <= 0x80).
    pub(super) fn needs_escape(bytes: &[u8]) -> bool {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGH: u64 = 0x8080_8080_8080_8080;
        let below = |v: u64, n: u64| v.wrapping_sub(ONES * n) & !v & HIGH != 0;
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            let v = u64::from_le_bytes(w.try_into().expect("8 bytes"));
            if below(v, 0x20) || below(v ^ (ONES * 0x22), 1) || below(v ^ (ONES * 0x5c), 1) {
                return true;
            }
        }
        words
            .remainder()
            .iter()
            .any(|&b| b < 0x20 || b == b'"' || b == b'\\')
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dim mentions data when one of its symbols is data-dependent in the algebra,
    /// wherever it stands in the expression: not an input or a derived symbol.
    #[test]
    fn report_dims_know_whether_they_mention_data() {
        let mut ctx = ShapesContext::default();
        ctx.alg.symbol(
            "nz0",
            SymbolKind::DataDependent {
                node: "nz".to_string(),
            },
        );
        let p = ctx.alg.parse("A*B").unwrap();
        let definition = ctx.alg.canon(p).clone();
        ctx.alg.symbol("r0", SymbolKind::Derived { definition });
        let mut used = IndexSet::new();
        for (text, data) in [
            ("N", false),
            ("N + 1", false),
            ("r0", false),
            ("N + floordiv(r0, 2)", false),
            ("nz0", true),
            ("N + 2*nz0", true),
            ("N*floordiv(nz0, 4)", true),
        ] {
            let d = ctx.alg.parse(text).unwrap();
            match report_dim(&ctx, d, &mut used) {
                ReportDim::Expr(e) => {
                    assert_eq!((e.text(), e.mentions_data()), (text, data), "{text}")
                }
                other => panic!("{text}: {other:?}"),
            }
        }
    }

    /// The word-at-a-time test finds every byte that needs escaping, at every place in
    /// a word and in the tail, and nothing else: against the byte-by-byte test on
    /// strings of every length to 40, one special byte (or none) at each position, among
    /// fillers from every range (ASCII, 0x7f, bytes of multi-byte characters).
    #[test]
    fn needs_escape_matches_the_bytewise_test() {
        let special = |b: u8| b < 0x20 || b == b'"' || b == b'\\';
        let fillers = [
            b'a', b'~', 0x7f, 0x80, 0xa2, 0xdc, 0xff, b'!', b'#', b'[', b']', 0x21,
        ];
        for len in 0..40 {
            for &fill in &fillers {
                let base = vec![fill; len];
                assert_eq!(json::needs_escape(&base), base.iter().any(|&b| special(b)));
                for at in 0..len {
                    for b in 0..=255u8 {
                        let mut v = base.clone();
                        v[at] = b;
                        assert_eq!(
                            json::needs_escape(&v),
                            v.iter().any(|&b| special(b)),
                            "{v:?}"
                        );
                    }
                }
            }
        }
    }

    /// A report of `n` tensors `t0..`, each `[N, i]`.
    fn big_report(n: usize) -> Report {
        let tensors = (0..n)
            .map(|i| {
                let t = ReportTensor {
                    dtype: Some(DType::Float),
                    shape: Some(vec![ReportDim::Expr("N".into()), ReportDim::Int(i as i64)]),
                    value: None,
                    composite: None,
                };
                (format!("t{i}"), t)
            })
            .collect();
        Report {
            path: "m.onnx".into(),
            format: "onnx".into(),
            opsets: IndexMap::new(),
            symbols: IndexMap::from([("N".to_string(), ReportSymbol::Input)]),
            tensors,
            outputs: vec!["t0".into()],
            diagnostics: Vec::new(),
            constraints: IndexMap::new(),
        }
    }

    /// A report written to a sink, spilling every [`out::SPILL`] bytes, is the text
    /// the report makes as one string, in either format, for long and short names.
    #[test]
    fn written_in_pieces_as_whole() {
        for n in [0, 1, 255, 700, 3000] {
            let mut report = big_report(n);
            if n > 1 {
                // A name longer than the column (48) and one with a known value.
                let t = report.tensors.swap_remove_index(1).unwrap().1;
                report.tensors.insert("x".repeat(60), t);
                report.tensors[0].value = Some(vec![ReportDim::Int(-3), ReportDim::Int(7)]);
            }
            for (format, whole) in [
                (Format::Json, report.to_json()),
                (Format::Text, report.to_text()),
            ] {
                let mut sink = Vec::new();
                report.write(format, &mut sink).unwrap();
                assert_eq!(String::from_utf8(sink).unwrap(), whole, "n {n}");
            }
        }
    }

    /// Sequences and optionals: the JSON writer makes what `serde_json` makes of the
    /// [`Serialize`] implementation (only the `sequence` and `optional` members are
    /// added to a value's object), and the text says what the elements share.
    #[test]
    fn sequences_and_optionals_in_both_formats() {
        let mut report = big_report(1);
        let n = || ReportDim::Expr("N".into());
        let elem = |shape: Option<Vec<ReportDim>>| ReportElement {
            dtype: Some(DType::Float),
            shape,
        };
        let seq = |length, shape| ReportSequence {
            length,
            element: elem(shape),
        };
        let values = [
            (
                "s",
                ReportComposite::Sequence(seq(Some(ReportDim::Int(2)), Some(vec![n()]))),
                "sequence of 2 [N]",
            ),
            (
                "u",
                ReportComposite::Sequence(seq(None, None)),
                "sequence of ? (unknown rank)",
            ),
            (
                "o",
                ReportComposite::Optional {
                    present: Some(true),
                    held: ReportHeld::Tensor(elem(Some(vec![]))),
                },
                "optional (present) []",
            ),
            (
                "p",
                ReportComposite::Optional {
                    present: None,
                    held: ReportHeld::Sequence(seq(Some(n()), Some(vec![ReportDim::Int(3)]))),
                },
                "optional (maybe empty) sequence of N [3]",
            ),
            (
                "e",
                ReportComposite::Optional {
                    present: Some(false),
                    held: ReportHeld::Tensor(ReportElement {
                        dtype: None,
                        shape: None,
                    }),
                },
                "optional (empty)",
            ),
        ];
        for (name, c, _) in &values {
            report.tensors.insert(
                name.to_string(),
                ReportTensor {
                    dtype: Some(DType::Float),
                    shape: None,
                    value: None,
                    composite: Some(c.clone()),
                },
            );
        }
        let json = report.to_json();
        assert_eq!(json, serde_json::to_string_pretty(&report).unwrap() + "\n");
        let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(doc["tensors"]["s"]["shape"], serde_json::Value::Null);
        assert_eq!(doc["tensors"]["s"]["sequence"]["length"], 2);
        assert_eq!(doc["tensors"]["s"]["sequence"]["element"]["shape"][0], "N");
        assert_eq!(
            doc["tensors"]["p"]["optional"]["sequence"]["element"]["dtype"],
            "f32"
        );
        assert_eq!(doc["tensors"]["e"]["optional"]["present"], false);
        let text = report.to_text();
        for (name, _, line) in &values {
            let want = format!("\n  {name}   f32    {line}\n");
            assert!(text.contains(&want), "{want:?} in\n{text}");
        }
    }

    /// The text report as `docs/report.md` lays it out, written by hand from it:
    /// columns padded to the longest name (tensor names to at most 48), the dtype in
    /// 6, a known value after ` = `, constraints after `; needs`, diagnostics as
    /// `SEVERITY at NODE: MESSAGE` (no `at NODE` for a model-level one).
    #[test]
    fn text_layout() {
        let mut report = big_report(2);
        report.opsets.insert(String::new(), 17);
        report.symbols.insert(
            "r0".into(),
            ReportSymbol::Derived {
                definition: "48*A/F".into(),
            },
        );
        report
            .constraints
            .insert("N".into(), vec!["N <= 512".into(), "N % 8 == 0".into()]);
        report.tensors[1].dtype = None;
        report.tensors[1].shape = None;
        report.tensors[0].value = Some(vec![ReportDim::Int(2), ReportDim::Expr("N".into())]);
        report
            .tensors
            .insert("long_name".into(), report.tensors[0].clone());
        report
            .tensors
            .insert("y".repeat(50), report.tensors[1].clone());
        for (severity, node) in [
            (crate::context::Severity::Warning, "n1"),
            (crate::context::Severity::Error, ""),
        ] {
            report.diagnostics.push(Diagnostic {
                severity,
                node: node.into(),
                op: "Relu".into(),
                message: "m".into(),
                cause: None,
            });
        }
        let pad = " ".repeat(48 - 2);
        let expect = format!(
            "model: m.onnx (onnx; opsets ai.onnx=17)\n\
             symbols:\n  N   input; needs N <= 512, N % 8 == 0\n  r0  derived = 48*A/F\n\
             tensors:\n\
             \x20 t0{pad}  f32    [N, 0] = [2, N]\n\
             \x20 t1{pad}  ?      unknown rank\n\
             \x20 long_name{}  f32    [N, 0] = [2, N]\n\
             \x20 {}  ?      unknown rank\n\
             outputs: t0\n\
             diagnostics:\n  warning at n1: m\n  error: m\n",
            " ".repeat(48 - 9),
            "y".repeat(50),
        );
        assert_eq!(report.to_text(), expect);
        report.diagnostics.clear();
        assert!(report
            .to_text()
            .ends_with("outputs: t0\ndiagnostics: none\n"));
    }
}
