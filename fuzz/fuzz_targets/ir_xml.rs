//! OpenVINO IR XML through the reader (and, when converted, inference).
//!
//! The first two bytes choose how deep the rest is nested inside generated elements
//! (up to 20,000 levels, written as plain, attributed, self-closing-looking,
//! commented or CDATA-preceded tags): the depth scan that runs before the XML parser
//! must refuse every document the parser would recurse too deeply on, so a stack
//! overflow here is a find.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(ir) = symdim::read::openvino::IrModel::parse(text) {
            let _ = ir.graph.topological_order();
        }
    }
    nested(data);
});

/// The document `data[2..]` wrapped in `n` nested elements of a style chosen by the
/// data, inside `<net><layers>`.
fn nested(data: &[u8]) {
    let [a, b, rest @ ..] = data else { return };
    let Ok(inner) = std::str::from_utf8(rest) else { return };
    let n = (usize::from(*a) << 8 | usize::from(*b)) % 20_000;
    let (open, close) = match b % 5 {
        0 => ("<a>", "</a>"),
        1 => (r#"<a x="/>" y='>'>"#, "</a>"),
        2 => ("<!-- <c> --><a>", "</a >"),
        3 => ("<![CDATA[<d>]]><a><?pi <e>?>", "</a>"),
        _ => ("<a\n>", "</a>"),
    };
    let xml = format!(
        r#"<?xml version="1.0"?><net name="f" version="11"><layers>{}{inner}{}</layers><edges/></net>"#,
        open.repeat(n),
        close.repeat(n)
    );
    let _ = symdim::read::load::load_bytes(xml.as_bytes(), "fuzz.xml", &Default::default());
}
