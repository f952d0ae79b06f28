//! ONNX bytes through inference and `-o`'s writer: the annotated model parses, keeps
//! every node and initializer byte for byte (re-encoded the same), keeps every
//! declared `dim_value` of the graph outputs and `value_info`, and writing it again
//! with the same report changes nothing.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(model) = symdim::read::load::load_bytes(data, "fuzz.onnx", &Default::default()) else {
        return;
    };
    if model.format != symdim::graph::Format::Onnx {
        return;
    }
    let shapes = symdim::infer(&model, &symdim::Facts::default());
    let report = shapes.report();
    let Ok(out) = shapes.annotated_bytes(data) else {
        return;
    };
    let before = symdim::read::onnx::parse(data).expect("loaded, so it parses");
    let after = symdim::read::onnx::parse(&out).expect("the annotated model parses");
    let (g0, g1) = (before.graph().unwrap(), after.graph().unwrap());
    assert_eq!(format!("{:?}", g0.node), format!("{:?}", g1.node));
    assert_eq!(format!("{:?}", g0.initializer), format!("{:?}", g1.initializer));
    let written: std::collections::HashMap<&str, _> = g1
        .value_info
        .iter()
        .chain(&g1.output)
        .map(|v| (v.name, v))
        .collect();
    for v in g0.output.iter().chain(&g0.value_info) {
        let w = written.get(v.name).expect("a declaration is kept");
        if let (Some(d0), Some(d1)) = (v.shape(), w.shape()) {
            for (a, b) in d0.iter().zip(d1) {
                if let symdim::read::onnx::Dim::Value(x) = a {
                    if *x >= 0 {
                        assert_eq!(b, a, "declared dim_value of {} kept", v.name);
                    }
                }
            }
        } else if v.shape().is_some() {
            panic!("declared shape of {} dropped", v.name);
        }
    }
    let reloaded = symdim::read::load::load_bytes(&out, "fuzz.onnx", &Default::default())
        .expect("the annotated model loads");
    let again = symdim::report::annotate::annotated_bytes(&reloaded, &out, &report).unwrap();
    assert!(again == out, "writing the same shapes again is a fixed point");
});
