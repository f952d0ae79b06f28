//! The text report (see `docs/report.md`).

use super::out;
use super::rows::Source;
use super::{
    Format, Report, ReportComposite, ReportDim, ReportElement, ReportHeld, ReportSequence,
    ReportSymbol,
};
use std::fmt::Write as _;

impl Report {
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

    /// The whole text report, its tensors taken from `src`.
    pub(super) fn emit_text(&self, s: &mut out::Buffer<'_>, src: Source<'_>) {
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
        // A format width must fit in 16 bits (a longer one panics); a name that
        // long (a dim text past the parser's limits, kept as spelled) is not padded.
        let w = self
            .symbols
            .keys()
            .map(|k| k.len())
            .max()
            .unwrap_or(0)
            .min(usize::from(u16::MAX));
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
