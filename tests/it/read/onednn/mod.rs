//! Tests of the oneDNN Graph JSON reader: the shared corpus (checked against its
//! manifest), the copied fixtures, error cases, and random mutations.

mod frontend;

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::Value;
use symdim::read::onednn::{
    read_onednn_graph, AttrValue, DataType, Dims, EngineKind, FpmathMode, LayoutType, OnednnError,
    OnednnGraph, PropertyType, TensorUse,
};

fn corpus_dir() -> Option<PathBuf> {
    let d = common::corpus()?.join("onednn-graph");
    assert!(
        d.join("manifest.json").exists(),
        "{}: no manifest.json",
        d.display()
    );
    Some(d)
}

fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            json_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
}

fn i64s(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

fn u64s(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect()
}

/// Every producer comes before its consumers in the topological order.
fn check_topo(g: &OnednnGraph, what: &str) {
    let order = g.topological_order();
    assert_eq!(order.len(), g.ops.len(), "{what}");
    let mut pos = vec![usize::MAX; g.ops.len()];
    for (p, &i) in order.iter().enumerate() {
        pos[i] = p;
    }
    for (i, op) in g.ops.iter().enumerate() {
        for lt in &op.inputs {
            if let Some(TensorUse { op: p, .. }) = g.producer(lt.id) {
                assert!(pos[p] < pos[i], "{what}: op {} before its producer", op.id);
            }
        }
    }
}

#[test]
fn corpus_files_match_manifest() {
    let Some(dir) = corpus_dir() else { return };
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    let entries: BTreeMap<String, &Value> = manifest["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["file"].as_str().unwrap().to_string(), f))
        .collect();
    let mut files = Vec::new();
    json_files(&dir.join("head"), &mut files);
    json_files(&dir.join("related"), &mut files);
    files.sort();
    assert_eq!(
        files.len(),
        entries.len(),
        "every corpus file is in the manifest"
    );
    let mut static_reshapes_checked = 0;
    for path in &files {
        let rel = path
            .strip_prefix(&dir)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let m = entries
            .get(&rel)
            .unwrap_or_else(|| panic!("{rel} not in manifest"));
        let g = read_onednn_graph(path).unwrap_or_else(|e| panic!("{rel}: {e}"));

        // Top-level fields.
        let top = &m["top_level"];
        assert_eq!(g.version, top["version"].as_str().unwrap(), "{rel}");
        assert_eq!(
            g.engine_kind.as_str(),
            top["engine_kind"].as_str().unwrap(),
            "{rel}"
        );
        assert_eq!(
            g.fpmath_mode.as_str(),
            top["fpmath_mode"].as_str().unwrap(),
            "{rel}"
        );
        assert_eq!(
            g.fpmath_mode_apply_to_int,
            top.get("fpmath_mode_apply_to_int")
                .map(|v| v.as_str().unwrap() == "true"),
            "{rel}"
        );
        assert_eq!(g.input_ports, top.get("input_ports").map(u64s), "{rel}");
        assert_eq!(g.output_ports, top.get("output_ports").map(u64s), "{rel}");
        // benchdnn's rule: graph inputs are consumed-but-never-produced tensors.
        if let Some(ports) = &g.input_ports {
            let a: BTreeSet<u64> = ports.iter().copied().collect();
            let b: BTreeSet<u64> = g.graph_inputs().iter().copied().collect();
            assert_eq!(a, b, "{rel}: input ports");
        }
        if let Some(ports) = &g.output_ports {
            let a: BTreeSet<u64> = ports.iter().copied().collect();
            let b: BTreeSet<u64> = g.graph_outputs().iter().copied().collect();
            assert_eq!(a, b, "{rel}: output ports");
        }

        // Op count and kind histogram.
        assert_eq!(g.ops.len() as u64, m["op_count"].as_u64().unwrap(), "{rel}");
        let mut hist: BTreeMap<String, u64> = BTreeMap::new();
        for op in &g.ops {
            *hist.entry(op.kind.clone()).or_default() += 1;
        }
        let want: BTreeMap<String, u64> = m["op_kinds"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
            .collect();
        assert_eq!(hist, want, "{rel}: op kinds");

        // Logical tensors written with the unknown-shape sentinel.
        let unknown = g
            .ops
            .iter()
            .flat_map(|op| op.inputs.iter().chain(&op.outputs))
            .filter(|lt| lt.shape == Dims::Unknown)
            .count();
        assert_eq!(
            unknown as u64,
            m["lts_with_unknown_shape"].as_u64().unwrap(),
            "{rel}"
        );

        check_topo(&g, &rel);

        // StaticReshape / StaticTranspose summary.
        let summary = m["reshape_transpose_ops"].as_array().unwrap();
        let n_reshape = summary
            .iter()
            .filter(|s| s["kind"] == "StaticReshape")
            .count() as u64;
        assert_eq!(
            n_reshape,
            hist.get("StaticReshape").copied().unwrap_or(0),
            "{rel}: every StaticReshape is summarised"
        );
        for s in summary {
            let op = g.op(s["op_id"].as_u64().unwrap()).unwrap();
            assert_eq!(op.kind, s["kind"].as_str().unwrap(), "{rel}");
            assert_eq!(op.name, s["name"].as_str().unwrap(), "{rel}");
            let attrs = s["attrs"].as_object().unwrap();
            assert_eq!(op.attrs.len(), attrs.len(), "{rel}: op {}", op.id);
            if op.kind == "StaticReshape" {
                assert_eq!(op.attr_s64_list("shape").unwrap(), i64s(&attrs["shape"]));
                assert_eq!(
                    op.attr_bool("special_zero").unwrap(),
                    attrs["special_zero"].as_i64().unwrap() == 1
                );
                static_reshapes_checked += 1;
            } else {
                assert_eq!(op.attr_s64_list("order").unwrap(), i64s(&attrs["order"]));
            }
            assert_eq!(op.inputs.len(), 1, "{rel}");
            assert_eq!(op.outputs.len(), 1, "{rel}");
            assert_eq!(
                op.inputs[0].shape,
                Dims::Known(i64s(&s["input_shape"])),
                "{rel}: op {}",
                op.id
            );
            assert_eq!(
                op.outputs[0].shape,
                Dims::Known(i64s(&s["output_shape"])),
                "{rel}: op {}",
                op.id
            );
        }
    }
    assert_eq!(static_reshapes_checked, 14);
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/onednn")
        .join(name)
}

#[test]
fn fixture_static_reshape() {
    let g = read_onednn_graph(&fixture("static_reshape.json")).unwrap();
    assert_eq!(g.version, "3.3.0");
    assert_eq!(g.engine_kind, EngineKind::Cpu);
    assert_eq!(g.fpmath_mode, FpmathMode::Strict);
    assert_eq!(g.fpmath_mode_apply_to_int, None);
    assert_eq!(g.input_ports, Some(vec![0]));
    assert_eq!(g.output_ports, Some(vec![1]));
    assert_eq!(g.ops.len(), 1);
    let op = &g.ops[0];
    assert_eq!(
        (op.id, op.name.as_str(), op.kind.as_str()),
        (0, "Reshape_0", "StaticReshape")
    );
    // Attribute order is the file's.
    let names: Vec<&str> = op.attrs.keys().map(String::as_str).collect();
    assert_eq!(names, ["special_zero", "shape"]);
    assert!(!op.attr_bool("special_zero").unwrap());
    assert_eq!(op.attr_s64_list("shape").unwrap(), &[128, 512, 16, 64]);
    assert!(matches!(
        op.attr_s64("shape"),
        Err(OnednnError::AttrTypeMismatch {
            op: 0,
            expected: "s64",
            found: "s64[]",
            ..
        })
    ));
    assert!(matches!(
        op.attr_str("nope"),
        Err(OnednnError::MissingAttr { op: 0, .. })
    ));
    let x = &op.inputs[0];
    assert_eq!(x.id, 0);
    assert_eq!(x.dtype, DataType::F32);
    assert_eq!(x.shape, Dims::Known(vec![65536, 1024]));
    assert_eq!(x.stride, Dims::Known(vec![1024, 1]));
    assert_eq!(x.layout_type, LayoutType::Strided);
    assert_eq!(x.property_type, PropertyType::Undef);
    assert_eq!(g.graph_inputs(), &[0]);
    assert_eq!(g.graph_outputs(), &[1]);
    assert_eq!(g.producer(1), Some(TensorUse { op: 0, arg: 0 }));
    assert_eq!(g.consumers(0), &[TensorUse { op: 0, arg: 0 }]);
    assert_eq!(g.tensor(1).unwrap().shape.rank(), Some(4));
}

#[test]
fn fixture_avgpool_reshape_fusion() {
    let g = read_onednn_graph(&fixture("int8_avgpool_reshape_fusion.json")).unwrap();
    let kinds: Vec<&str> = g.ops_topological().map(|o| o.kind.as_str()).collect();
    assert_eq!(
        kinds,
        ["Dequantize", "AvgPool", "StaticReshape", "Quantize"]
    );
    let dq = &g.ops[0];
    assert_eq!(dq.attr_s64("axis").unwrap(), 1);
    assert_eq!(dq.attr_f32_list("scales").unwrap(), &[0.1f32]);
    assert_eq!(dq.attr_s64_list("zps").unwrap(), &[-4]);
    assert_eq!(dq.attr_str("qtype").unwrap(), "per_tensor");
    let r = g.ops.iter().find(|o| o.kind == "StaticReshape").unwrap();
    assert_eq!(r.attr_s64_list("shape").unwrap(), &[-1]);
    assert_eq!(r.inputs[0].shape, Dims::Known(vec![1, 1, 2, 2]));
    assert_eq!(r.outputs[0].shape, Dims::Known(vec![4]));
    assert_eq!(g.graph_inputs(), &[40]);
    assert_eq!(g.graph_outputs(), &[44]);
}

/// A one-op document with the given attrs text and input tensor `shape`/`stride` text.
fn doc(attrs: &str, shape: &str, stride: &str) -> String {
    format!(
        r#"{{"version": "3.3.0", "engine_kind": "cpu", "fpmath_mode": "strict",
            "graph": [{{"id": 0, "name": "r", "kind": "StaticReshape", "attrs": {{{attrs}}},
              "inputs": [{{"id": 0, "dtype": "f32", "shape": {shape}, "stride": {stride},
                          "layout_type": "strided", "property_type": "undef"}}],
              "outputs": [{{"id": 1, "dtype": "f32", "shape": [6], "stride": [1],
                          "layout_type": "strided", "property_type": "undef"}}]}}]}}"#
    )
}

const SZ0: &str = r#""special_zero": {"type": "bool", "value": 0}"#;

/// A file's own `dst_dtype` must be a string naming a oneDNN dtype: the converter
/// decodes it to an element type; anything else is a typed reader error.
#[test]
fn dst_dtype_attribute() {
    let ok = doc(
        r#""special_zero": {"type": "bool", "value": 0}, "dst_dtype": {"type": "string", "value": "bf16"}"#,
        "[2, 3]",
        "[3, 1]",
    );
    let g = OnednnGraph::parse(&ok).unwrap();
    let m = symdim::read::onednn::to_graph::to_model(&g, "t.json", &Default::default()).unwrap();
    assert_eq!(
        m.graph.nodes[0].attr("dst_dtype"),
        Some(&symdim::graph::Attr::Type(symdim::graph::DType::Bfloat16))
    );
    let t = doc(
        r#""dst_dtype": {"type": "string", "value": "float32"}"#,
        "[2, 3]",
        "[3, 1]",
    );
    let e = OnednnGraph::parse(&t).unwrap_err();
    assert!(
        matches!(
            e,
            OnednnError::UnknownValue { ref path, field: "dtype", ref value }
                if path == "graph[0].attrs.dst_dtype" && value == "float32"
        ),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "graph[0].attrs.dst_dtype: \"float32\" is not a valid dtype"
    );
    let t = doc(
        r#""dst_dtype": {"type": "s64", "value": 1}"#,
        "[2, 3]",
        "[3, 1]",
    );
    assert!(matches!(
        OnednnGraph::parse(&t),
        Err(OnednnError::AttrTypeMismatch { op: 0, ref attr, expected: "string", found: "s64" })
            if attr == "dst_dtype"
    ));
}

#[test]
fn attribute_rules() {
    assert!(OnednnGraph::parse(&doc(SZ0, "[2, 3]", "[3, 1]")).is_ok());
    // JSON true/false are not bools here.
    let t = doc(
        r#""special_zero": {"type": "bool", "value": true}"#,
        "[2, 3]",
        "[3, 1]",
    );
    assert!(matches!(
        OnednnGraph::parse(&t),
        Err(OnednnError::InvalidBool { op: 0, ref attr, ref found }) if attr == "special_zero" && **found == Value::Bool(true)
    ));
    for bad in ["2", "0.0", "\"0\"", "-1"] {
        let t = doc(
            &format!(r#""special_zero": {{"type": "bool", "value": {bad}}}"#),
            "[2, 3]",
            "[3, 1]",
        );
        assert!(
            matches!(OnednnGraph::parse(&t), Err(OnednnError::InvalidBool { .. })),
            "{bad}"
        );
    }
    let one = doc(
        r#""special_zero": {"type": "bool", "value": 1}"#,
        "[2, 3]",
        "[3, 1]",
    );
    assert!(OnednnGraph::parse(&one).unwrap().ops[0]
        .attr_bool("special_zero")
        .unwrap());
    // `value` before `type`.
    let t = doc(
        r#""special_zero": {"value": 0, "type": "bool"}"#,
        "[2, 3]",
        "[3, 1]",
    );
    assert!(matches!(
        OnednnGraph::parse(&t),
        Err(OnednnError::AttrTypeNotFirst { op: 0, ref attr, first_key: Some(ref k) }) if attr == "special_zero" && k == "value"
    ));
    let t = doc(r#""special_zero": {}"#, "[2, 3]", "[3, 1]");
    assert!(matches!(
        OnednnGraph::parse(&t),
        Err(OnednnError::AttrTypeNotFirst {
            first_key: None,
            ..
        })
    ));
    // Unknown keys and types inside an attribute.
    let t = doc(
        r#""a": {"type": "s64", "value": 1, "note": 2}"#,
        "[2, 3]",
        "[3, 1]",
    );
    assert!(matches!(
        OnednnGraph::parse(&t),
        Err(OnednnError::UnknownKey { ref path, ref key }) if path == "graph[0].attrs.a" && key == "note"
    ));
    let t = doc(r#""a": {"type": "u8", "value": 1}"#, "[2, 3]", "[3, 1]");
    assert!(matches!(
        OnednnGraph::parse(&t),
        Err(OnednnError::UnknownAttrType { ref type_name, .. }) if type_name == "u8"
    ));
    let t = doc(r#""a": {"type": "s64"}"#, "[2, 3]", "[3, 1]");
    assert!(matches!(
        OnednnGraph::parse(&t),
        Err(OnednnError::MissingKey { key: "value", .. })
    ));
    for (ty, val) in [
        ("s64", "1.5"),
        ("s64", "9223372036854775808"),
        ("s64[]", "[1, \"x\"]"),
        ("f32", "1e39"),
        ("f32[]", "3"),
        ("string", "3"),
    ] {
        let t = doc(
            &format!(r#""a": {{"type": "{ty}", "value": {val}}}"#),
            "[2, 3]",
            "[3, 1]",
        );
        assert!(
            matches!(
                OnednnGraph::parse(&t),
                Err(OnednnError::InvalidAttrValue { .. })
            ),
            "{ty} {val}"
        );
    }
    let t = doc(
        r#""f": {"type": "f32", "value": 2}, "l": {"type": "f32[]", "value": [1, 0.5e1]}"#,
        "[2, 3]",
        "[3, 1]",
    );
    let g = OnednnGraph::parse(&t).unwrap();
    assert_eq!(g.ops[0].attr_f32("f").unwrap(), 2.0);
    assert_eq!(g.ops[0].attr_f32_list("l").unwrap(), &[1.0, 5.0]);
    assert_eq!(g.ops[0].attr("f"), Some(&AttrValue::F32(2.0)));
}

#[test]
fn shape_sentinel_and_dims() {
    let min = i64::MIN;
    let g = OnednnGraph::parse(&doc(SZ0, &format!("[{min}]"), &format!("[{min}]"))).unwrap();
    let lt = &g.ops[0].inputs[0];
    assert_eq!(lt.shape, Dims::Unknown);
    assert_eq!(lt.shape.rank(), None);
    assert_eq!(lt.stride, Dims::Unknown);
    // Rank 0, zero-size dims.
    let g = OnednnGraph::parse(&doc(SZ0, "[]", "[]")).unwrap();
    assert_eq!(g.ops[0].inputs[0].shape, Dims::Known(vec![]));
    assert!(OnednnGraph::parse(&doc(SZ0, "[0, 3]", "[3, 1]")).is_ok());
    // -1 is never a tensor dim; the sentinel only counts alone.
    assert!(matches!(
        OnednnGraph::parse(&doc(SZ0, "[-1, 3]", "[3, 1]")),
        Err(OnednnError::InvalidDim {
            tensor: 0,
            index: 0,
            value: -1
        })
    ));
    assert!(matches!(
        OnednnGraph::parse(&doc(SZ0, &format!("[2, {min}]"), "[3, 1]")),
        Err(OnednnError::InvalidDim { index: 1, .. })
    ));
    // Known shape with unknown strides, as oneDNN writes for layout `undef`.
    let g = OnednnGraph::parse(&doc(SZ0, "[2, 3]", &format!("[{min}]"))).unwrap();
    assert_eq!(g.ops[0].inputs[0].shape, Dims::Known(vec![2, 3]));
    assert_eq!(g.ops[0].inputs[0].stride, Dims::Unknown);
    let big = format!("[{}]", vec!["1"; 65].join(","));
    assert!(matches!(
        OnednnGraph::parse(&doc(SZ0, &big, "[]")),
        Err(OnednnError::RankTooLarge {
            rank: 65,
            max: 64,
            ..
        })
    ));
    assert!(matches!(
        OnednnGraph::parse(&doc(SZ0, "[1.5]", "[]")),
        Err(OnednnError::WrongType { .. })
    ));
}

/// A document whose ops are `(id, name, inputs, outputs)` tensor-id lists.
fn graph_doc(ops: &[(u64, &str, &[u64], &[u64])]) -> String {
    let lt = |id: &u64| {
        format!(
            r#"{{"id": {id}, "dtype": "f32", "shape": [2], "stride": [1], "layout_type": "strided", "property_type": "undef"}}"#
        )
    };
    let ops: Vec<String> = ops
        .iter()
        .map(|(id, name, ins, outs)| {
            format!(
                r#"{{"id": {id}, "name": "{name}", "kind": "ReLU", "attrs": {{}}, "inputs": [{}], "outputs": [{}]}}"#,
                ins.iter().map(lt).collect::<Vec<_>>().join(","),
                outs.iter().map(lt).collect::<Vec<_>>().join(",")
            )
        })
        .collect();
    format!(
        r#"{{"version": "3.3.0", "engine_kind": "gpu", "fpmath_mode": "bf16", "fpmath_mode_apply_to_int": "true", "graph": [{}]}}"#,
        ops.join(",")
    )
}

#[test]
fn graph_structure_rules() {
    // Ops listed out of order are sorted; ties keep file order.
    let g = OnednnGraph::parse(&graph_doc(&[
        (7, "b", &[10], &[11]),
        (3, "a", &[1], &[10]),
        (5, "c", &[1, 11], &[12]),
    ]))
    .unwrap();
    let names: Vec<&str> = g.ops_topological().map(|o| o.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c"]);
    assert_eq!(g.graph_inputs(), &[1]);
    assert_eq!(g.graph_outputs(), &[12]);
    assert_eq!(g.fpmath_mode_apply_to_int, Some(true));
    assert_eq!(g.engine_kind, EngineKind::Gpu);
    assert_eq!(g.fpmath_mode, FpmathMode::Bf16);
    assert_eq!(g.consumers(1).len(), 2);
    assert_eq!(g.op_index(5), Some(2));
    // A cycle a -> b -> c -> a, fed from outside; the error names an op on it.
    match OnednnGraph::parse(&graph_doc(&[
        (0, "src", &[100], &[1]),
        (1, "a", &[1, 4], &[2]),
        (2, "b", &[2], &[3]),
        (3, "c", &[3], &[4]),
        (4, "sink", &[4], &[5]),
    ])) {
        Err(OnednnError::Cycle { op, name }) => {
            assert!([1, 2, 3].contains(&op), "op {op}");
            assert_eq!(name, ["", "a", "b", "c"][op as usize]);
        }
        other => panic!("expected a cycle, got {other:?}"),
    }
    assert!(matches!(
        OnednnGraph::parse(&graph_doc(&[(0, "self", &[1], &[1])])),
        Err(OnednnError::Cycle { op: 0, .. })
    ));
    assert!(matches!(
        OnednnGraph::parse(&graph_doc(&[(0, "a", &[1], &[2]), (1, "b", &[1], &[2])])),
        Err(OnednnError::DuplicateProducer {
            tensor: 2,
            first_op: 0,
            second_op: 1
        })
    ));
    assert!(matches!(
        OnednnGraph::parse(&graph_doc(&[(0, "a", &[1], &[2]), (0, "b", &[2], &[3])])),
        Err(OnednnError::DuplicateOpId { id: 0 })
    ));
    assert!(matches!(
        OnednnGraph::parse(&graph_doc(&[])),
        Err(OnednnError::EmptyGraph)
    ));
}

#[test]
fn document_rules() {
    let base = doc(SZ0, "[2, 3]", "[3, 1]");
    let mut v: Value = serde_json::from_str(&base).unwrap();
    // Unknown keys at every level name the key and its place.
    type Edit = fn(&mut Value);
    let cases: [(&str, Edit); 3] = [
        ("(top level)", |v| {
            v["comment"] = Value::from("x");
        }),
        ("graph[0]", |v| {
            v["graph"][0]["extra"] = Value::from(1);
        }),
        ("graph[0].inputs[0]", |v| {
            v["graph"][0]["inputs"][0]["format_tag"] = Value::from("ab");
        }),
    ];
    for (where_, edit) in cases {
        let mut w = v.clone();
        edit(&mut w);
        match OnednnGraph::parse(&w.to_string()) {
            Err(OnednnError::UnknownKey { path, .. }) => assert_eq!(path, where_),
            other => panic!("{where_}: {other:?}"),
        }
    }
    // An op's `attrs` and the ports are optional, as in oneDNN's reader; the other
    // keys of an op are required.
    let mut w = v.clone();
    w["graph"][0].as_object_mut().unwrap().shift_remove("attrs");
    w.as_object_mut().unwrap().shift_remove("input_ports");
    w.as_object_mut().unwrap().shift_remove("output_ports");
    let g = OnednnGraph::parse(&w.to_string()).expect("a file without attrs or ports");
    assert!(g.ops[0].attrs.is_empty());
    assert_eq!(
        (g.input_ports.clone(), g.output_ports.clone()),
        (None, None)
    );
    let mut w = v.clone();
    w["graph"][0]
        .as_object_mut()
        .unwrap()
        .shift_remove("outputs");
    assert!(matches!(
        OnednnGraph::parse(&w.to_string()),
        Err(OnednnError::MissingKey { key: "outputs", .. })
    ));
    // Missing required keys.
    v.as_object_mut().unwrap().shift_remove("graph");
    assert!(matches!(
        OnednnGraph::parse(&v.to_string()),
        Err(OnednnError::MissingKey { key: "graph", .. })
    ));
    // Bad enumerations and bad JSON.
    let t = base.replace(r#""dtype": "f32""#, r#""dtype": "f64""#);
    assert!(matches!(
        OnednnGraph::parse(&t),
        Err(OnednnError::UnknownValue { field: "dtype", ref value, .. }) if value == "f64"
    ));
    let t = base.replace(r#""engine_kind": "cpu""#, r#""engine_kind": "npu""#);
    assert!(matches!(
        OnednnGraph::parse(&t),
        Err(OnednnError::UnknownValue {
            field: "engine_kind",
            ..
        })
    ));
    let t = base.replace(r#""id": 0, "name""#, r#""id": -3, "name""#);
    assert!(matches!(
        OnednnGraph::parse(&t),
        Err(OnednnError::WrongType { .. })
    ));
    assert!(matches!(
        OnednnGraph::parse(&base[..base.len() - 3]),
        Err(OnednnError::Json { .. })
    ));
    assert!(matches!(
        OnednnGraph::parse("[]"),
        Err(OnednnError::WrongType { .. })
    ));
    let deep = "[".repeat(10_000);
    assert!(matches!(
        OnednnGraph::parse(&deep),
        Err(OnednnError::Json { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn mutated_json_never_panics(
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..4, any::<u8>()), 1..8),
    ) {
        let text = std::fs::read_to_string(fixture("int8_avgpool_reshape_fusion.json")).unwrap();
        let alphabet = b"0123456789-,.:[]{}\" aefnrstuy";
        let mut bytes = text.into_bytes();
        for (idx, op, b) in edits {
            if bytes.is_empty() { break; }
            let i = idx.index(bytes.len());
            let c = alphabet[b as usize % alphabet.len()];
            match op {
                0 => bytes[i] = c,
                1 => bytes.insert(i, c),
                2 => { bytes.remove(i); }
                _ => bytes.truncate(i),
            }
        }
        if let Ok(g) = OnednnGraph::parse(&String::from_utf8_lossy(&bytes)) {
            prop_assert_eq!(g.topological_order().len(), g.ops.len());
            for op in &g.ops {
                let _ = op.attr_bool("special_zero");
                let _ = op.attr_s64_list("shape");
                for lt in op.inputs.iter().chain(&op.outputs) {
                    let _ = g.tensor(lt.id);
                }
            }
        }
    }
}
