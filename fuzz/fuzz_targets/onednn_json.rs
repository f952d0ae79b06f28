//! oneDNN Graph JSON through the whole pipeline: parse, convert (as the CLI loads a
//! file), infer, report. The first byte also chooses a nesting depth (up to 64,000
//! levels of arrays or objects) around the rest, which the JSON parser's recursion
//! limit must stop.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(g) = symdim::read::onednn::OnednnGraph::parse(text) {
            let _ = g.topological_order();
        }
    }
    if let Ok(model) = symdim::read::load::load_bytes(data, "fuzz.json", &Default::default()) {
        if model.format == symdim::graph::Format::OneDnn {
            let report = symdim::infer(&model, &symdim::Facts::default()).report();
            let _ = report.to_json();
            let _ = report.to_text();
        }
    }
    let [a, rest @ ..] = data else { return };
    let Ok(inner) = std::str::from_utf8(rest) else {
        return;
    };
    let n = usize::from(*a) * 250;
    let (open, close) = if a % 2 == 0 {
        ("[", "]")
    } else {
        (r#"{"graph": "#, "}")
    };
    let json = format!("{}{inner}{}", open.repeat(n), close.repeat(n));
    let _ = symdim::read::load::load_bytes(json.as_bytes(), "fuzz.json", &Default::default());
});
