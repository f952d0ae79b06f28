//! ONNX bytes through the whole pipeline: decode, convert, infer, report. The reader
//! the CLI uses (`load_model`, which converts nodes as it parses them) must agree with
//! parsing the whole model first and converting it after (`parse` + `to_model`): the
//! same model, or the same error.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let src = symdim::read::onnx::DataSource::in_memory();
    let streamed = symdim::read::onnx::load_model(data, "fuzz.onnx", &src);
    let whole = symdim::read::onnx::parse(data)
        .and_then(|m| symdim::read::onnx::to_model(&m, "fuzz.onnx", &src));
    match (&streamed, &whole) {
        (Ok(a), Ok(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}")),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        _ => panic!("load_model and parse + to_model disagree: {streamed:?} vs {whole:?}"),
    }
    let Ok(model) = streamed else { return };
    let report = symdim::infer(&model, &symdim::Facts::default()).report();
    let _ = report.to_json();
    let _ = report.to_text();
});
