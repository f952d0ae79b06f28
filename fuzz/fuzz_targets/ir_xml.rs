//! OpenVINO IR XML through the reader (and, when converted, inference).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(ir) = symdim::openvino::IrModel::parse(text) else { return };
    let _ = ir.graph.topological_order();
});
