//! `--bind` and `--assume` arguments against a fixed model: reading them never
//! panics; a bind that reads has a non-empty name, and one that passes
//! `Facts::validate` names a symbol the model declares.
#![no_main]
use libfuzzer_sys::fuzz_target;
use symdim::graph::{DType, DeclDim, Format, Graph, Model, ValueDecl};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let model = Model {
        path: "fuzz.onnx".into(),
        format: Format::Onnx,
        opsets: Default::default(),
        graph: Graph {
            inputs: vec![ValueDecl {
                name: "x".into(),
                dtype: DType::Float,
                shape: Some(vec![
                    DeclDim::Param("batch".into()),
                    DeclDim::Param("2*seq + 1".into()),
                    DeclDim::Unknown,
                    DeclDim::Param("p2o.Dyn.0".into()),
                ]),
            }],
            ..Graph::default()
        },
    };
    let known = symdim::context::facts::model_symbols(&model);
    // The text as a bind, and its lines as facts.
    if let Ok((name, value)) = symdim::context::facts::parse_bind(text) {
        assert!(!name.is_empty());
        let facts = symdim::Facts::new().bind(&name, value);
        if facts.validate(&model).is_ok() {
            assert!(known.contains(&name), "{name:?} passed but is not a symbol");
        }
    }
    let assumes: Vec<String> = text.lines().take(8).map(str::to_string).collect();
    if symdim::context::facts::check_assumes(&assumes).is_ok() {
        let facts = symdim::Facts {
            assumes,
            ..Default::default()
        };
        let _ = facts.validate(&model);
    }
});
