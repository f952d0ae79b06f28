//! oneDNN Graph JSON through the reader.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(g) = symdim::onednn::OnednnGraph::parse(text) else { return };
    let _ = g.topological_order();
});
