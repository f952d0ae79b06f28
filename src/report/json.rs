//! The JSON report: written directly by [`Writer`], a pretty-printing JSON writer
//! with `serde_json`'s layout (two-space indents, one member or element per line,
//! `"key": value`, and `{}` / `[]` when empty), byte for byte what `serde_json`'s
//! pretty printer makes of the report types' [`Serialize`] implementations, which
//! are here too.

use super::out::Buffer;
use super::rows::{shown_dtype, shown_value, Source};
use super::{
    Format, Report, ReportComposite, ReportDim, ReportElement, ReportHeld, ReportSequence,
    ReportSymbol, ReportTensor,
};
use crate::context::Diagnostic;
use crate::graph::DType;
use indexmap::IndexMap;
use serde::ser::{Serialize, SerializeMap, Serializer};
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

    pub(super) fn bool(&mut self, v: bool) {
        self.out.push_str(if v { "true" } else { "false" });
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

impl Report {
    /// The JSON report (one object, pretty-printed, with a final newline).
    ///
    /// Written directly, byte for byte what `serde_json`'s pretty printer makes of this
    /// type's [`Serialize`] implementation (a test compares the two on every bundled
    /// model), without going through a serializer per value.
    pub fn to_json(&self) -> String {
        // About 160 bytes per tensor in real models; regrowing would copy it all.
        let mut out = Writer::new(4096 + self.tensors.len() * 192, None);
        self.emit_json(&mut out, Source::Kept(&self.tensors));
        out.finish().1
    }

    /// [`Report::to_json`] written to `sink` as it is made, in pieces of about 64 KiB,
    /// instead of as one string (a large model's report is megabytes). Stops at the
    /// first write error and returns it.
    pub fn write_json(&self, sink: &mut dyn std::io::Write) -> std::io::Result<()> {
        self.write(Format::Json, sink)
    }

    /// The whole report, its tensors taken from `src`.
    pub(super) fn emit_json(&self, w: &mut Writer<'_>, src: Source<'_>) {
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
}

/// The members of the `tensors` object, laid out as they are inside the report.
fn emit_tensors(src: Source<'_>, w: &mut Writer<'_>) {
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
