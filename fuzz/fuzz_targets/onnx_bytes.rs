//! ONNX bytes through the whole pipeline: decode, convert, infer, report.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(m) = symdim::onnx::parse(data) else { return };
    let src = symdim::onnx::DataSource::in_memory();
    let Ok(model) = symdim::onnx::to_model(&m, "fuzz.onnx", &src) else { return };
    let report = symdim::infer::infer(&model, &symdim::infer::Options::default());
    let _ = report.to_json();
    let _ = report.to_text();
});
