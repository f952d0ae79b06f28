//! Tests of the ONNX reader and writer on real model files: the fixtures in
//! `tests/fixtures/onnx/`, the shared corpus (compared against the reference Python reader's
//! view recorded in `expected_corpus.json`), and fuzzing with proptest.

mod float_values;

use crate::common;

use std::path::Path;

use proptest::prelude::*;
use serde_json::Value as Json;
use symdim::read::onnx::{
    self, write_with_shapes, AttrType, DType, DataSource, Dim, InferredDim, InferredValueInfo,
    ModelProto, OnnxError, TypeProto,
};

const CAP: usize = 1 << 20;

fn fixture(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/onnx")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

// Expected values below were read independently with the Python `onnx` package
// (`print(onnx.load(path))`), not copied from this reader's output.

#[test]
fn reshape_fixture() {
    let bytes = fixture("onnx.backend.reshape.negative_dim.onnx");
    assert!(onnx::looks_like_onnx(&bytes));
    let m = ModelProto::parse(&bytes).unwrap();
    assert_eq!(m.ir_version, 10);
    assert_eq!(m.producer_name, "peer-cases");
    assert_eq!(m.opset_version(""), Some(21));
    assert_eq!(m.opset_version("ai.onnx"), Some(21));
    let g = m.graph().unwrap();
    assert_eq!(g.name, "onnx_backend_reshape_negative_dim");
    assert_eq!(g.node.len(), 1);
    let n = &g.node[0];
    assert_eq!((n.op_type, n.name, n.domain), ("Reshape", "n0_Reshape", ""));
    assert_eq!(n.input, ["data", "shape"]);
    assert_eq!(n.output, ["reshaped"]);
    assert!(n.attribute.is_empty());

    assert_eq!(g.initializer.len(), 1);
    let shape = g.initializer("shape").unwrap();
    assert_eq!(shape.dims.as_slice(), &[3]);
    assert_eq!(shape.data_type, DType::Int64);
    assert_eq!(shape.raw_data.map(<[u8]>::len), Some(24));
    // The raw payload is borrowed from the input, not copied.
    let raw = shape.raw_data.unwrap();
    let range = bytes.as_ptr_range();
    assert!(range.contains(&raw.as_ptr()));
    let src = DataSource::in_memory();
    assert_eq!(shape.to_i64_vec(&src, 16).unwrap(), vec![2, -1, 2]);
    assert_eq!(shape.to_f64_vec(&src, 16).unwrap(), vec![2.0, -1.0, 2.0]);
    assert!(matches!(
        shape.to_i64_vec(&src, 2),
        Err(OnnxError::TooManyElements {
            count: 3,
            cap: 2,
            ..
        })
    ));

    assert_eq!(g.input.len(), 1);
    let data = &g.input[0];
    assert_eq!(data.name, "data");
    assert_eq!(data.elem_type(), DType::Float);
    assert_eq!(
        data.shape().unwrap(),
        &[Dim::Value(2), Dim::Value(3), Dim::Value(4)]
    );
    assert_eq!(g.real_inputs().count(), 1);
    assert_eq!(g.output.len(), 1);
    assert_eq!(g.output[0].name, "reshaped");
    assert!(g.output[0].r#type.is_none());
    assert!(g.value_info.is_empty());
}

#[test]
fn concat_fixture() {
    let bytes = fixture("onnx.si.test_concat_param.v13.onnx");
    let m = ModelProto::parse(&bytes).unwrap();
    assert_eq!(m.ir_version, 7);
    assert_eq!(m.opset_import.len(), 1);
    assert_eq!(
        (m.opset_import[0].domain, m.opset_import[0].version),
        ("", 13)
    );
    let g = m.graph().unwrap();
    let n = &g.node[0];
    assert_eq!(n.op_type, "Concat");
    assert_eq!(n.input, ["x0", "x1"]);
    assert_eq!(n.attr_type("axis"), Some(AttrType::Int));
    assert_eq!(n.attr_int("axis").unwrap(), Some(1));
    assert_eq!(n.attr_int("missing").unwrap(), None);
    assert!(matches!(
        n.attr_float("axis"),
        Err(OnnxError::AttributeType {
            expected: AttrType::Float,
            found: AttrType::Int,
            ..
        })
    ));
    assert!(matches!(
        n.attr_ints("axis"),
        Err(OnnxError::AttributeType {
            expected: AttrType::Ints,
            ..
        })
    ));
    assert!(matches!(
        n.required_attr("nope"),
        Err(OnnxError::AttributeNotFound { .. })
    ));
    let shapes: Vec<_> = g
        .input
        .iter()
        .map(|i| i.shape().unwrap().to_vec())
        .collect();
    assert_eq!(
        shapes,
        vec![
            vec![Dim::Param("a"), Dim::Value(2)],
            vec![Dim::Param("a"), Dim::Value(3)]
        ]
    );
}

#[test]
fn function_fixture() {
    let bytes = fixture("onnx.dp.test_data_prop_via_function.onnx");
    let m = ModelProto::parse(&bytes).unwrap();
    assert_eq!(m.opset_import.len(), 2);
    assert_eq!(m.opset_version("local"), Some(1));
    assert_eq!(m.opset_version(""), Some(18));
    let g = m.graph().unwrap();
    assert_eq!(g.name, "agraph");
    let ops: Vec<_> = g.node.iter().map(|n| (n.domain, n.op_type)).collect();
    assert_eq!(ops, [("local", "GetShape"), ("", "Expand")]);
    assert_eq!(g.node[1].input, ["y", "xshape"]);
    assert!(g.output.is_empty());
    assert_eq!(m.functions.len(), 1);
    let f = m.function("local", "GetShape").unwrap();
    assert!(std::ptr::eq(f, m.function_for(&g.node[0]).unwrap()));
    assert!(m.function_for(&g.node[1]).is_none());
    assert_eq!(f.input, ["x"]);
    assert_eq!(f.output, ["shapeval"]);
    assert_eq!(f.node.len(), 1);
    assert_eq!(f.node[0].op_type, "Shape");
    assert_eq!(f.node[0].output, ["shapeval"]);
    assert_eq!(f.opset_import.len(), 1);
    assert_eq!(
        (f.opset_import[0].domain, f.opset_import[0].version),
        ("", 18)
    );
    assert_eq!(f.attribute_names().count(), 0);
}

#[test]
fn load_from_file() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/onnx/onnx.si.test_concat_param.v13.onnx");
    let owned = onnx::load(&p).unwrap();
    assert_eq!(owned.path(), Some(p.as_path()));
    assert_eq!(owned.data_source().model_dir(), Some(p.parent().unwrap()));
    let m = owned.parse().unwrap();
    assert_eq!(m.graph().unwrap().node.len(), 1);
    assert!(matches!(
        onnx::load("/nonexistent/model.onnx"),
        Err(OnnxError::Io { .. })
    ));
}

#[test]
fn sniff_rejects_other_formats() {
    assert!(!onnx::looks_like_onnx(b""));
    assert!(!onnx::looks_like_onnx(b"{\"graph\": 1}"));
    assert!(!onnx::looks_like_onnx(b"<?xml version=\"1.0\"?><net/>"));
    assert!(!onnx::looks_like_onnx(&[0x08, 0x07])); // ir_version only, no graph
    assert!(!onnx::looks_like_onnx(&[0u8; 64]));
    let bytes = fixture("onnx.si.test_concat_param.v13.onnx");
    assert!(onnx::looks_like_onnx(&bytes));
    assert!(!onnx::looks_like_onnx(&bytes[..bytes.len() - 1]));
    // Detection still calls a truncated model ONNX, so the parser names the problem.
    assert!(onnx::opens_like_onnx(&bytes[..bytes.len() - 1]));
    assert!(!onnx::opens_like_onnx(&[0x08, 0x07]));
    assert!(!onnx::opens_like_onnx(b"{\"graph\": 1}"));
}

#[test]
fn truncated_fixtures_never_panic() {
    for name in [
        "onnx.backend.reshape.negative_dim.onnx",
        "onnx.si.test_concat_param.v13.onnx",
        "onnx.dp.test_data_prop_via_function.onnx",
    ] {
        let bytes = fixture(name);
        let full = ModelProto::parse(&bytes).unwrap();
        let complete = |m: &ModelProto<'_>| {
            m.graph.is_some()
                && m.opset_import.len() == full.opset_import.len()
                && m.functions.len() == full.functions.len()
        };
        for i in 0..bytes.len() {
            // A prefix that ends between two top-level fields is a valid, smaller message;
            // every other prefix cuts a field and must be an error. Either way the prefix
            // never parses as the whole model.
            if let Ok(m) = ModelProto::parse(&bytes[..i]) {
                assert!(
                    !complete(&m),
                    "{name}: prefix {i} parsed as the whole model"
                );
            }
            let _ = write_with_shapes(&bytes[..i], &[]);
        }
    }
}

fn vi(name: &str, elem_type: DType, shape: Option<Vec<InferredDim>>) -> InferredValueInfo {
    InferredValueInfo {
        name: name.to_string(),
        elem_type,
        shape,
        containers: Vec::new(),
    }
}

#[test]
fn writer_identity_without_shapes() {
    for name in [
        "onnx.backend.reshape.negative_dim.onnx",
        "onnx.si.test_concat_param.v13.onnx",
        "onnx.dp.test_data_prop_via_function.onnx",
    ] {
        let bytes = fixture(name);
        assert_eq!(write_with_shapes(&bytes, &[]).unwrap(), bytes, "{name}");
    }
}

#[test]
fn writer_fills_outputs_and_value_info() {
    let bytes = fixture("onnx.dp.test_data_prop_via_function.onnx");
    let shapes = [
        vi("xshape", DType::Int64, Some(vec![InferredDim::Value(3)])),
        // Graph inputs are not repeated in value_info.
        vi("x", DType::Float, Some(vec![InferredDim::Value(4)])),
        vi(
            "z",
            DType::Float,
            Some(vec![
                InferredDim::Value(4),
                InferredDim::Param("N".into()),
                InferredDim::Unknown,
            ]),
        ),
    ];
    let out = write_with_shapes(&bytes, &shapes).unwrap();
    let m = ModelProto::parse(&out).unwrap();
    let g = m.graph().unwrap();
    // This graph has no outputs, so "z" goes to value_info too.
    let names: Vec<_> = g.value_info.iter().map(|v| v.name).collect();
    assert_eq!(names, ["xshape", "z"]);
    assert_eq!(g.value_info[0].elem_type(), DType::Int64);
    assert_eq!(g.value_info[0].shape().unwrap(), &[Dim::Value(3)]);
    assert_eq!(
        g.value_info[1].shape().unwrap(),
        &[Dim::Value(4), Dim::Param("N"), Dim::Unknown]
    );
    // Everything else is unchanged.
    let orig = ModelProto::parse(&bytes).unwrap();
    assert_eq!(g.node.len(), orig.graph().unwrap().node.len());
    assert_eq!(m.functions.len(), 1);
    assert_eq!(m.opset_import, orig.opset_import);

    let bytes = fixture("onnx.backend.reshape.negative_dim.onnx");
    let shapes = [vi(
        "reshaped",
        DType::Float,
        Some(vec![
            InferredDim::Value(2),
            InferredDim::Value(6),
            InferredDim::Value(2),
        ]),
    )];
    let out = write_with_shapes(&bytes, &shapes).unwrap();
    let m = ModelProto::parse(&out).unwrap();
    let g = m.graph().unwrap();
    assert!(g.value_info.is_empty());
    assert_eq!(g.output[0].name, "reshaped");
    assert_eq!(g.output[0].elem_type(), DType::Float);
    assert_eq!(
        g.output[0].shape().unwrap(),
        &[Dim::Value(2), Dim::Value(6), Dim::Value(2)]
    );
    let init = &g.initializer[0];
    assert_eq!(
        init.to_i64_vec(&DataSource::in_memory(), 8).unwrap(),
        [2, -1, 2]
    );
    // Writing again with the same shapes is a fixed point.
    assert_eq!(write_with_shapes(&out, &shapes).unwrap(), out);

    // Rank-unknown and scalar shapes stay distinct.
    let out = write_with_shapes(&bytes, &[vi("reshaped", DType::Undefined, Some(vec![]))]).unwrap();
    let m = ModelProto::parse(&out).unwrap();
    let t = m.graph().unwrap().output[0].tensor_type().unwrap().clone();
    assert_eq!((t.elem_type, t.rank()), (DType::Undefined, Some(0)));
    let out = write_with_shapes(&bytes, &[vi("reshaped", DType::Int8, None)]).unwrap();
    let m = ModelProto::parse(&out).unwrap();
    let t = m.graph().unwrap().output[0].tensor_type().unwrap().clone();
    assert_eq!((t.elem_type, t.rank()), (DType::Int8, None));

    // Optional: write the outputs for checking with `onnx.checker` by hand.
    if let Ok(dir) = std::env::var("SYMDIM_ONNX_WRITE_DIR") {
        std::fs::write(Path::new(&dir).join("reshape_shapes.onnx"), &out).unwrap();
        let f = fixture("onnx.dp.test_data_prop_via_function.onnx");
        let o = write_with_shapes(
            &f,
            &[vi(
                "xshape",
                DType::Int64,
                Some(vec![InferredDim::Value(3)]),
            )],
        )
        .unwrap();
        std::fs::write(Path::new(&dir).join("function_shapes.onnx"), o).unwrap();
    }
}

// ---------- corpus ----------

fn json_dims(d: &Dim<'_>) -> Json {
    match d {
        Dim::Value(v) => Json::from(*v),
        Dim::Param(p) => Json::from(*p),
        Dim::Unknown => Json::Null,
    }
}

fn check_model(rel: &str, bytes: &[u8], exp: &Json, dir: &Path) -> Result<(), String> {
    let m = ModelProto::parse(bytes).map_err(|e| format!("parse: {e}"))?;
    let eq = |what: &str, got: Json, want: &Json| {
        if &got == want {
            Ok(())
        } else {
            Err(format!("{what}: got {got}, want {want}"))
        }
    };
    eq("ir_version", m.ir_version.into(), &exp["ir_version"])?;
    let opsets: Vec<Json> = m
        .opset_import
        .iter()
        .map(|o| serde_json::json!([o.domain, o.version]))
        .collect();
    eq("opset_import", opsets.into(), &exp["opset_import"])?;
    eq(
        "producer_name",
        m.producer_name.into(),
        &exp["producer_name"],
    )?;
    let g = m.graph().map_err(|e| e.to_string())?;
    eq("graph_name", g.name.into(), &exp["graph_name"])?;
    eq("nodes", g.node.len().into(), &exp["nodes"])?;
    eq(
        "nodes_recursive",
        g.node_count_recursive().into(),
        &exp["nodes_recursive"],
    )?;
    let mut ops = serde_json::Map::new();
    for n in &g.node {
        let e = ops.entry(n.op_type).or_insert(Json::from(0));
        *e = Json::from(e.as_u64().unwrap() + 1);
    }
    let mut want_ops = exp["op_types"].as_object().cloned().unwrap_or_default();
    want_ops.sort_keys();
    ops.sort_keys();
    eq("op_types", Json::Object(ops), &Json::Object(want_ops))?;
    let first: Vec<&str> = g.node.first().map(|n| n.input.clone()).unwrap_or_default();
    eq("first_node_inputs", first.into(), &exp["first_node_inputs"])?;
    eq(
        "initializers",
        g.initializer.len().into(),
        &exp["initializers"],
    )?;
    eq(
        "sparse_initializers",
        g.sparse_initializer.len().into(),
        &exp["sparse_initializers"],
    )?;
    let inputs: Vec<Json> = g
        .input
        .iter()
        .map(|i| match &i.r#type {
            Some(TypeProto::Tensor(t)) => serde_json::json!({
                "name": i.name,
                "elem_type": t.elem_type.to_i32(),
                "shape": t.shape.as_ref().map(|s| s.iter().map(json_dims).collect::<Vec<_>>()),
            }),
            other => {
                let kind = match other {
                    Some(TypeProto::Sequence(_)) => "sequence_type",
                    Some(TypeProto::Optional(_)) => "optional_type",
                    Some(TypeProto::Map { .. }) => "map_type",
                    Some(TypeProto::SparseTensor(_)) => "sparse_tensor_type",
                    Some(TypeProto::Opaque { .. }) => "opaque_type",
                    _ => "",
                };
                let kind = if kind.is_empty() {
                    Json::Null
                } else {
                    kind.into()
                };
                serde_json::json!({"name": i.name, "non_tensor": kind})
            }
        })
        .collect();
    eq("inputs", inputs.into(), &exp["inputs"])?;
    let outputs: Vec<&str> = g.output.iter().map(|o| o.name).collect();
    eq("outputs", outputs.into(), &exp["outputs"])?;
    eq("value_info", g.value_info.len().into(), &exp["value_info"])?;
    let funcs: Vec<Json> = m
        .functions
        .iter()
        .map(|f| serde_json::json!([f.domain, f.name, f.node.len()]))
        .collect();
    eq("functions", funcs.into(), &exp["functions"])?;
    let src = DataSource::with_model_dir(dir);
    for t in exp["small_initializers"].as_array().unwrap() {
        let name = t["name"].as_str().unwrap();
        let init = g
            .initializer(name)
            .ok_or_else(|| format!("initializer {name} missing"))?;
        eq(
            &format!("{name}.data_type"),
            init.data_type.to_i32().into(),
            &t["data_type"],
        )?;
        eq(
            &format!("{name}.dims"),
            init.dims.to_vec().into(),
            &t["dims"],
        )?;
        let want = t["values"].as_array().unwrap();
        let got: Json = if init.data_type.is_integer() {
            init.to_i64_vec(&src, CAP)
                .map_err(|e| format!("{name}: {e}"))?
                .into()
        } else {
            init.to_f64_vec(&src, CAP)
                .map_err(|e| format!("{name}: {e}"))?
                .into()
        };
        // BOOL comes from Python as ints too.
        let want = Json::Array(
            want.iter()
                .map(|v| match v {
                    Json::Bool(b) => Json::from(i64::from(*b)),
                    v => v.clone(),
                })
                .collect(),
        );
        // serde_json's float parsing may be one ulp off Python's shortest repr: compare
        // floats with a relative tolerance far below f32 precision.
        let close = |a: &Json, b: &Json| match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y)) if a.is_f64() || b.is_f64() => {
                x == y || (x - y).abs() <= 1e-12 * x.abs().max(y.abs())
            }
            _ => a == b,
        };
        let same = match (&got, &want) {
            (Json::Array(g), Json::Array(w)) => {
                g.len() == w.len() && g.iter().zip(w).all(|(a, b)| close(a, b))
            }
            _ => false,
        };
        if !same {
            return Err(format!("{name}.values: got {got}, want {want}"));
        }
    }
    // Every tensor in the model decodes (or is refused with a typed error, never a panic).
    for init in &g.initializer {
        let _ = init.to_f64_vec(&src, CAP);
    }
    if !onnx::looks_like_onnx(bytes) {
        return Err(format!("{rel}: looks_like_onnx is false"));
    }
    Ok(())
}

#[test]
fn corpus_matches_python_onnx() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let expected: Json =
        serde_json::from_str(&String::from_utf8(fixture("expected_corpus.json")).unwrap()).unwrap();
    let models = expected["models"].as_object().unwrap();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (rel, exp) in models {
        let path = corpus.join(rel);
        if !path.exists() {
            continue;
        }
        let owned = match onnx::load(&path) {
            Ok(o) => o,
            Err(e) => {
                failures.push(format!("{rel}: load: {e}"));
                continue;
            }
        };
        if let Err(e) = check_model(rel, owned.bytes(), exp, path.parent().unwrap()) {
            failures.push(format!("{rel}: {e}"));
        }
        checked += 1;
    }
    println!("checked {checked} corpus models");
    // Files of the other formats in the corpus must not sniff as ONNX.
    let mut others = 0;
    for dir in ["openvino-ir", "onednn-graph"] {
        let mut stack = vec![corpus.join(dir)];
        while let Some(d) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&d) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if let Ok(bytes) = std::fs::read(&p) {
                    others += 1;
                    if onnx::looks_like_onnx(&bytes) {
                        failures.push(format!("{}: sniffed as ONNX", p.display()));
                    }
                }
            }
        }
    }
    println!("sniffed {others} non-ONNX corpus files");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked > 0);
}

#[test]
#[ignore = "timing; run with --release -- --ignored --nocapture"]
fn parse_time_large_models() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    for name in [
        "large_llama_l64_h32_dyn18.onnx",
        "large_llama_l32_h32_ts17.onnx",
    ] {
        let bytes = std::fs::read(corpus.join("real-models/large").join(name)).unwrap();
        let mut best = std::time::Duration::MAX;
        let mut best_drop = std::time::Duration::MAX;
        let mut nodes = 0;
        for _ in 0..20 {
            let t = std::time::Instant::now();
            let m = ModelProto::parse(&bytes).unwrap();
            best = best.min(t.elapsed());
            nodes = m.graph().unwrap().node.len();
            std::hint::black_box(&m);
            let t = std::time::Instant::now();
            drop(m);
            best_drop = best_drop.min(t.elapsed());
        }
        let t = std::time::Instant::now();
        let sniff = onnx::looks_like_onnx(&bytes);
        let sniff_time = t.elapsed();
        println!(
            "{name}: {} bytes, {nodes} nodes, parse best of 20: {:.3} ms (+ drop {:.3} ms), \
             sniff {sniff} in {:?}",
            bytes.len(),
            best.as_secs_f64() * 1e3,
            best_drop.as_secs_f64() * 1e3,
            sniff_time
        );
    }
}

// ---------- fuzzing ----------

fn exercise(bytes: &[u8]) {
    let _ = onnx::looks_like_onnx(bytes);
    if let Ok(m) = ModelProto::parse(bytes) {
        if let Ok(g) = m.graph() {
            let src = DataSource::in_memory();
            for t in &g.initializer {
                let _ = t.num_elements();
                let _ = t.to_i64_vec(&src, 4096);
                let _ = t.to_f64_vec(&src, 4096);
            }
            for n in &g.node {
                for a in &n.attribute {
                    let _ = (
                        a.as_int(),
                        a.as_ints(),
                        a.as_str(),
                        a.as_graph(),
                        a.as_tensor(),
                    );
                }
            }
            let _ = g.node_count_recursive();
        }
    }
    let _ = write_with_shapes(
        bytes,
        &[vi(
            "z",
            DType::Float,
            Some(vec![InferredDim::Param("N".into())]),
        )],
    );
}

#[derive(Debug, Clone)]
enum Mutation {
    Set(usize, u8),
    Insert(usize, u8),
    Delete(usize),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Set(i, b)),
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Insert(i, b)),
        any::<usize>().prop_map(Mutation::Delete),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    if bytes.is_empty() {
        return;
    }
    match *m {
        Mutation::Set(i, b) => {
            let i = i % bytes.len();
            bytes[i] = b;
        }
        Mutation::Insert(i, b) => bytes.insert(i % (bytes.len() + 1), b),
        Mutation::Delete(i) => {
            bytes.remove(i % bytes.len());
        }
        Mutation::Truncate(i) => bytes.truncate(i % bytes.len()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        exercise(&bytes);
    }

    #[test]
    fn mutated_models_never_panic(
        which in 0usize..3,
        muts in proptest::collection::vec(mutation(), 1..6),
    ) {
        let name = [
            "onnx.backend.reshape.negative_dim.onnx",
            "onnx.si.test_concat_param.v13.onnx",
            "onnx.dp.test_data_prop_via_function.onnx",
        ][which];
        let mut bytes = fixture(name);
        for m in &muts {
            apply(&mut bytes, m);
        }
        exercise(&bytes);
    }
}

/// Driver for `tests/fixtures/onnx/check_writer.py`: reads a job list from the JSON file named
/// by `SYMDIM_ONNX_WRITER_JOBS` (`[{"model", "out", "shapes": [{"name", "elem_type",
/// "shape": [int | str | null] | null}]}]`) and writes each model with the given shapes.
#[test]
#[ignore = "driven by tests/fixtures/onnx/check_writer.py"]
fn writer_jobs_from_python() {
    let Ok(jobs) = std::env::var("SYMDIM_ONNX_WRITER_JOBS") else {
        println!("skipping: SYMDIM_ONNX_WRITER_JOBS not set");
        return;
    };
    let jobs: Json = serde_json::from_str(&std::fs::read_to_string(jobs).unwrap()).unwrap();
    for job in jobs.as_array().unwrap() {
        let shapes: Vec<InferredValueInfo> = job["shapes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| InferredValueInfo {
                name: s["name"].as_str().unwrap().to_string(),
                elem_type: DType::from_i32(s["elem_type"].as_i64().unwrap() as i32),
                shape: s["shape"].as_array().map(|dims| {
                    dims.iter()
                        .map(|d| match d {
                            Json::Number(n) => InferredDim::Value(n.as_i64().unwrap()),
                            Json::String(p) => InferredDim::Param(p.clone()),
                            _ => InferredDim::Unknown,
                        })
                        .collect()
                }),
                containers: Vec::new(),
            })
            .collect();
        let bytes = std::fs::read(job["model"].as_str().unwrap()).unwrap();
        let out = write_with_shapes(&bytes, &shapes).unwrap();
        ModelProto::parse(&out).unwrap();
        std::fs::write(job["out"].as_str().unwrap(), out).unwrap();
    }
    println!("wrote {} models", jobs.as_array().unwrap().len());
}
