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
pub mod cost;
pub mod diff;
mod json;
mod out;
mod plot;
mod rows;
mod text;

use rows::{Rows, Source};

use crate::algebra::SymbolKind;
use crate::context::{Diagnostic, ShapesContext};
use crate::graph::{DType, Model};
use egg::Symbol;
use indexmap::{IndexMap, IndexSet};
use rustc_hash::FxBuildHasher;
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
}

/// A report's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The text report ([`Report::to_text`]).
    Text,
    /// The JSON report ([`Report::to_json`]).
    Json,
}

#[cfg(test)]
mod tests {
    use super::rows::report_dim;
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
