//! `--op-rules` text (docs/op-rules.md) as a rules file: parsing never panics, and
//! rules that parse drive inference and the report of a small bundled model (custom
//! ops of `com.example` and `ai.onnx.contrib` among standard ones, which a rule may
//! also replace). The same rules give the same report twice, byte for byte, and
//! merging them with the bundled example rules never panics.
#![no_main]
use libfuzzer_sys::fuzz_target;
use symdim::graph::{Attr, AttrMap, DType, DeclDim, Format, Graph, Model, Node, ValueDecl};
use symdim::OpRules;

/// The example rules shipped with the repo, merged with the fuzzed ones.
const EXAMPLE: &str = include_str!("../../examples/op_rules/onnxruntime_extensions.txt");

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(rules) = OpRules::parse(text) else {
        return;
    };
    if let Ok(example) = OpRules::parse(EXAMPLE) {
        let _ = example.merge(&rules);
    }
    let model = model();
    let facts = symdim::Facts::default().with_op_rules(rules);
    let first = symdim::infer(&model, &facts).report();
    let json = first.to_json();
    let _ = first.to_text();
    let again = symdim::infer(&model, &facts).report().to_json();
    assert!(json == again, "the same rules give the same report");
});

fn decl(name: &str, dtype: DType, dims: &[&str]) -> ValueDecl {
    let shape = dims
        .iter()
        .map(|d| match d.parse::<i64>() {
            Ok(v) => DeclDim::Value(v),
            Err(_) => DeclDim::Param((*d).into()),
        })
        .collect();
    ValueDecl {
        name: name.into(),
        dtype,
        shape: Some(shape),
    }
}

fn node(
    name: &str,
    domain: &str,
    op: &str,
    inputs: &[&str],
    outputs: &[&str],
    attrs: Vec<(&str, Attr)>,
) -> Node {
    let mut map = AttrMap::new();
    for (k, v) in attrs {
        map.insert(k.to_string(), v);
    }
    Node {
        name: name.into(),
        op_type: op.into(),
        domain: domain.into(),
        version: 1,
        inputs: inputs.iter().map(|&i| i.into()).collect(),
        outputs: outputs.iter().map(|&o| o.into()).collect(),
        attrs: map,
    }
}

/// `x: [N, W]`, `codes: [batch, 4]`, `text: [batch, n]`, `mask: [batch]` through
/// `com.example` pools and fills, onnxruntime-extensions text ops, and standard
/// `Shape`, `Reshape`, `Relu`, `Add` and `Concat` after them.
fn model() -> Model {
    let mut nodes = vec![
        node(
            "pool",
            "com.example",
            "LastAxisPool",
            &["x"],
            &["pooled", "pshape"],
            vec![],
        ),
        node(
            "reshape",
            "",
            "Reshape",
            &["pooled", "pshape"],
            &["r"],
            vec![],
        ),
        node("shape", "", "Shape", &["x"], &["s"], vec![]),
        node(
            "fill",
            "com.example",
            "FillLike",
            &["x", "s"],
            &["filled"],
            vec![],
        ),
        node("relu", "", "Relu", &["filled"], &["y"], vec![]),
        node(
            "multi",
            "com.example",
            "Multi",
            &["x", "codes", "s"],
            &["m0", "m1"],
            vec![
                ("pads", Attr::Ints(vec![1, 2, 3, 4])),
                ("axis", Attr::Int(-1)),
                ("stride", Attr::Int(3)),
            ],
        ),
        node(
            "concat",
            "",
            "Concat",
            &["m0", "y"],
            &["cat"],
            vec![("axis", Attr::Int(0))],
        ),
        node(
            "replace",
            "ai.onnx.contrib",
            "StringRegexReplace",
            &["text", "pattern", "rewrite"],
            &["replaced"],
            vec![],
        ),
        node(
            "length",
            "ai.onnx.contrib",
            "StringLength",
            &["replaced"],
            &["lengths"],
            vec![],
        ),
        node(
            "double",
            "",
            "Add",
            &["lengths", "lengths"],
            &["twice"],
            vec![],
        ),
        node(
            "to_string",
            "ai.onnx.contrib",
            "VectorToString",
            &["codes"],
            &["words"],
            vec![],
        ),
        node(
            "masked",
            "ai.onnx.contrib",
            "MaskedFill",
            &["words", "mask"],
            &["kept"],
            vec![],
        ),
    ];
    for n in &mut nodes {
        if n.domain.is_empty() {
            n.version = 17;
        }
    }
    Model {
        path: "fuzz.onnx".into(),
        format: Format::Onnx,
        opsets: [
            ("".to_string(), 17),
            ("com.example".to_string(), 1),
            ("ai.onnx.contrib".to_string(), 1),
        ]
        .into_iter()
        .collect(),
        graph: Graph {
            inputs: vec![
                decl("x", DType::Float, &["N", "W"]),
                decl("codes", DType::Int64, &["batch", "4"]),
                decl("text", DType::String, &["batch", "n"]),
                decl("pattern", DType::String, &[]),
                decl("rewrite", DType::String, &[]),
                decl("mask", DType::Bool, &["batch"]),
            ],
            outputs: ["r", "cat", "m1", "twice", "kept"]
                .iter()
                .map(|&o| ValueDecl {
                    name: o.into(),
                    dtype: DType::Undefined,
                    shape: None,
                })
                .collect(),
            nodes,
            ..Graph::default()
        },
    }
}
