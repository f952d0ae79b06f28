//! OpenVINO IR XML through the whole pipeline: parse, convert, infer, report. The
//! input is the XML, then optionally a 0xFF byte (never in UTF-8) and the weights
//! (`.bin`) the `Const` layers read.
//!
//! The first two bytes choose how deep the rest is nested inside generated elements
//! (up to 20,000 levels, written as plain, attributed, self-closing-looking,
//! commented or CDATA-preceded tags): the depth scan that runs before the XML parser
//! must refuse every document the parser would recurse too deeply on, so a stack
//! overflow here is a find.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    whole(data);
    nested(data);
});

/// The XML and weights of `data` converted as the loader converts a file, then
/// inferred and reported.
fn whole(data: &[u8]) {
    use symdim::read::openvino::{to_graph, IrLimits, IrModel, Weights};
    let (xml, bin) = match data.iter().position(|&b| b == 0xFF) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let Ok(text) = std::str::from_utf8(xml) else {
        return;
    };
    let limits = IrLimits::default();
    let Ok(ir) = IrModel::parse_with_limits(text, &limits) else {
        return;
    };
    let _ = ir.graph.topological_order();
    let weights =
        Weights::from_bytes(bin.to_vec()).with_max_const_elements(limits.max_const_elements);
    let Ok(model) = to_graph::to_model(&ir, &weights, "fuzz.xml") else {
        return;
    };
    let report = symdim::infer(&model, &symdim::Facts::default()).report();
    let _ = report.to_json();
    let _ = report.to_text();
}

/// The document `data[2..]` wrapped in `n` nested elements of a style chosen by the
/// data, inside `<net><layers>`.
fn nested(data: &[u8]) {
    let [a, b, rest @ ..] = data else { return };
    let Ok(inner) = std::str::from_utf8(rest) else {
        return;
    };
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
