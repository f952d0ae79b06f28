//! Tests of the OpenVINO IR reader: the shared corpus (checked against its manifest and
//! baselines), the hand-written fixture, error cases, and random mutations.

mod frontend;

use crate::common;
use crate::common::fixture::read_json;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::Value;
use symdim::read::openvino::{
    read_ir, ElementType, IrError, IrModel, IrVersion, PartialShape, PortRef, PortSide, Weights,
};

fn corpus_dir() -> Option<PathBuf> {
    let d = common::corpus()?.join("openvino-ir");
    assert!(
        d.join("manifest.json").exists(),
        "{}: no manifest.json",
        d.display()
    );
    Some(d)
}

/// `[?@input#0,3,?@x#2]` -> `[?,3,?]`: drop the harness's symbol suffixes.
fn strip_symbols(s: &str) -> String {
    let mut out = String::new();
    let mut skipping = false;
    for c in s.chars() {
        match c {
            '@' => skipping = true,
            ',' | ']' => {
                skipping = false;
                out.push(c);
            }
            c if !skipping => out.push(c),
            _ => {}
        }
    }
    out
}

#[test]
fn corpus_models_match_manifest_and_baselines() {
    let Some(dir) = corpus_dir() else { return };
    let manifest = read_json(&dir.join("manifest.json"));
    let models = manifest["models"].as_array().unwrap();
    assert_eq!(models.len(), 8, "corpus should have 8 models");
    for m in models {
        let id = m["id"].as_str().unwrap();
        let mdir = dir.join(m["dir"].as_str().unwrap());
        let (model, weights) =
            read_ir(&mdir.join("model.xml")).unwrap_or_else(|e| panic!("{id}: {e}"));
        let g = &model.graph;

        // IR version.
        let want_version = match m["ir_version"].as_str().unwrap() {
            "10" => IrVersion::V10,
            "11" => IrVersion::V11,
            v => panic!("{id}: unexpected manifest version {v}"),
        };
        assert_eq!(model.version, want_version, "{id}");

        // Layer count and the op histogram (runtime type names).
        let want_hist: BTreeMap<String, u64> = m["op_histogram"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
            .collect();
        let mut hist: BTreeMap<String, u64> = BTreeMap::new();
        for l in &g.layers {
            *hist.entry(l.opset_type_name().to_string()).or_default() += 1;
        }
        assert_eq!(
            g.layers.len() as u64,
            want_hist.values().sum::<u64>(),
            "{id}: layer count"
        );
        assert_eq!(hist, want_hist, "{id}: op histogram");

        // Topological order covers every layer and respects every edge.
        let order = g.topological_order();
        assert_eq!(order.len(), g.layers.len(), "{id}");
        let mut pos = vec![usize::MAX; g.layers.len()];
        for (p, &i) in order.iter().enumerate() {
            pos[i] = p;
        }
        for e in &g.edges {
            let f = g.layer_index(e.from_layer).unwrap();
            let t = g.layer_index(e.to_layer).unwrap();
            assert!(pos[f] < pos[t], "{id}: edge {e:?} out of order");
        }

        // Reshape counts.
        let reshapes: Vec<_> = g.layers_of_type("Reshape").collect();
        assert_eq!(
            reshapes.len() as u64,
            m["reshape_count"].as_u64().unwrap(),
            "{id}"
        );
        let sz = reshapes
            .iter()
            .filter(|l| l.attr_bool("special_zero").unwrap())
            .count();
        assert_eq!(
            sz as u64,
            m["reshape_special_zero_true"].as_u64().unwrap(),
            "{id}"
        );

        // Every baseline Reshape: special_zero, and the pattern (Const values or producer).
        let baseline = read_json(&dir.join(m["baseline_file"].as_str().unwrap()));
        let entries = baseline["reshapes"].as_array().unwrap();
        assert_eq!(entries.len(), reshapes.len(), "{id}");
        let (mut n_const, mut n_minus1, mut n_zero) = (0u64, 0u64, 0u64);
        for e in entries {
            let name = e["name"].as_str().unwrap();
            let matches: Vec<_> = reshapes.iter().filter(|l| l.name == name).collect();
            assert_eq!(matches.len(), 1, "{id}: Reshape {name:?}");
            let r = matches[0];
            assert_eq!(r.version, e["version"].as_str().unwrap(), "{id}/{name}");
            assert_eq!(
                r.attr_bool("special_zero").unwrap(),
                e["special_zero"].as_bool().unwrap(),
                "{id}/{name}"
            );
            assert_eq!(r.inputs.len(), 2, "{id}/{name}");
            let pattern_port = &r.inputs[1];
            let want_len = e["pattern_len"].as_str().unwrap();
            assert_eq!(
                format!(
                    "[{}]",
                    pattern_port
                        .dims
                        .iter()
                        .map(i64::to_string)
                        .collect::<Vec<_>>()
                        .join(",")
                ),
                want_len,
                "{id}/{name}: pattern port dims"
            );
            let PortRef { layer: pl, .. } = g
                .producer(r.id, pattern_port.id)
                .unwrap_or_else(|| panic!("{id}/{name}: pattern unconnected"));
            let producer = g.layer(pl).unwrap();
            match &e["pattern"] {
                Value::Array(vals) => {
                    let want: Vec<i64> = vals.iter().map(|v| v.as_i64().unwrap()).collect();
                    assert!(producer.is_const(), "{id}/{name}: pattern not a Const");
                    let got = weights.const_i64_values(producer).unwrap();
                    assert_eq!(got, want, "{id}/{name}: pattern values");
                    n_const += 1;
                    n_minus1 += u64::from(want.contains(&-1));
                    n_zero += u64::from(want.contains(&0));
                }
                Value::String(s) => {
                    // "<non-const: Concat '514'>"
                    let inner = s
                        .strip_prefix("<non-const: ")
                        .and_then(|x| x.strip_suffix("'>"))
                        .unwrap_or_else(|| panic!("{id}/{name}: odd pattern {s}"));
                    let (ty, pname) = inner.split_once(" '").unwrap();
                    assert_eq!(producer.opset_type_name(), ty, "{id}/{name}");
                    assert_eq!(producer.name, pname, "{id}/{name}");
                }
                other => panic!("{id}/{name}: odd pattern {other}"),
            }
        }
        assert_eq!(
            n_const,
            m["reshape_with_const_pattern"].as_u64().unwrap(),
            "{id}"
        );
        assert_eq!(
            n_minus1,
            m["reshape_patterns_with_minus1"].as_u64().unwrap(),
            "{id}"
        );
        assert_eq!(
            n_zero,
            m["reshape_patterns_with_zero"].as_u64().unwrap(),
            "{id}"
        );

        // Parameters: shape attribute against the manifest's inputs; the dynamic ones
        // against dynamic_inputs; port dims write every dynamic dim as -1.
        let inputs = m["inputs"].as_array().unwrap();
        let params: Vec<_> = g.layers_of_type("Parameter").collect();
        assert_eq!(params.len(), inputs.len(), "{id}");
        let mut dynamic_names = Vec::new();
        for p in &params {
            let want = inputs
                .iter()
                .find(|i| i["name"].as_str() == Some(p.name.as_str()))
                .unwrap_or_else(|| panic!("{id}: Parameter {} not in manifest", p.name));
            let shape = p.attr_shape("shape", 64).unwrap();
            assert_eq!(
                shape.to_string(),
                strip_symbols(want["shape"].as_str().unwrap()),
                "{id}/{}",
                p.name
            );
            if want["dtype"].as_str().unwrap().contains("float32") {
                assert_eq!(
                    p.attr_element_type("element_type").unwrap(),
                    ElementType::F32
                );
            }
            let PartialShape::Ranked(dims) = &shape else {
                panic!("{id}: dynamic-rank input")
            };
            let port_dims: Vec<i64> = dims.iter().map(|d| d.as_static().unwrap_or(-1)).collect();
            assert_eq!(p.outputs[0].dims, port_dims, "{id}/{}", p.name);
            if shape.to_static().is_none() {
                dynamic_names.push(p.name.clone());
            }
        }
        let mut want_dyn: Vec<String> = m["dynamic_inputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["name"].as_str().unwrap().to_string())
            .collect();
        dynamic_names.sort();
        want_dyn.sort();
        assert_eq!(dynamic_names, want_dyn, "{id}: dynamic inputs");

        // Every Const in the corpus validates and decodes with the matching reader.
        for c in g.layers_of_type("Const") {
            let et = c.attr_element_type("element_type").unwrap();
            if et.is_integral() {
                weights
                    .const_i64_values(c)
                    .unwrap_or_else(|e| panic!("{id}: {e}"));
            } else {
                let v = weights
                    .const_f64_values(c)
                    .unwrap_or_else(|e| panic!("{id}: {e}"));
                assert_eq!(v.len() as u64, {
                    let info = symdim::read::openvino::ConstInfo::from_layer(c, 64).unwrap();
                    info.elements
                });
            }
        }
    }
}

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/openvino/tiny_reshape")
}

#[test]
fn fixture_model_reads_exactly() {
    let (model, weights) = read_ir(&fixture_dir().join("model.xml")).unwrap();
    assert_eq!(model.name, "tiny_reshape");
    assert_eq!(model.version, IrVersion::V11);
    let g = &model.graph;
    assert_eq!(g.layers.len(), 7);
    assert_eq!(g.edges.len(), 6);
    let x = g.layer(0).unwrap();
    assert_eq!(x.attr_shape("shape", 64).unwrap().to_string(), "[?,3,2..8]");
    assert_eq!(x.outputs[0].dims, vec![-1, 3, -1]);
    assert_eq!(x.outputs[0].element_type(), Some(ElementType::F32));
    let r = g.layer(2).unwrap();
    assert!(r.attr_bool("special_zero").unwrap());
    assert_eq!(r.rt_info[0].name, "fused_names");
    assert_eq!(r.rt_info[0].value.as_deref(), Some("flat"));
    assert_eq!(g.producer(2, 1), Some(PortRef { layer: 1, port: 0 }));
    assert_eq!(
        g.input_producers(5),
        vec![
            Some(PortRef { layer: 2, port: 2 }),
            Some(PortRef { layer: 4, port: 1 })
        ]
    );
    assert_eq!(g.consumers(2, 2), &[PortRef { layer: 5, port: 0 }]);
    assert_eq!(
        weights.const_i64_values(g.layer(1).unwrap()).unwrap(),
        vec![0, -1]
    );
    assert_eq!(
        weights.const_f64_values(g.layer(3).unwrap()).unwrap(),
        vec![0.5]
    );
    assert_eq!(
        g.layer(5).unwrap().outputs[0].names,
        vec!["y".to_string(), "y,alias".to_string()]
    );
    assert_eq!(model.rt_info[0].name, "OpenVINO Runtime");
    let names: Vec<&str> = g.layers_topological().map(|l| l.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "x",
            "pattern",
            "flat",
            "scale",
            "scale/convert",
            "scaled",
            "y/sink_port_0"
        ]
    );
    // The float reader refuses integers and vice versa.
    assert!(matches!(
        weights.const_f64_values(g.layer(1).unwrap()),
        Err(IrError::ConstTypeMismatch { layer: 1, .. })
    ));
    assert!(matches!(
        weights.const_i64_values(g.layer(3).unwrap()),
        Err(IrError::ConstTypeMismatch { layer: 3, .. })
    ));
    assert!(matches!(
        weights.const_i64_values(x),
        Err(IrError::NotConst { layer: 0, .. })
    ));
}

/// A small IR built from parts, for the error tests.
fn net(version: &str, layers: &str, edges: &str) -> String {
    format!(
        r#"<?xml version="1.0"?><net name="t" version="{version}"><layers>{layers}</layers><edges>{edges}</edges></net>"#
    )
}

fn layer(id: u64, ty: &str, data: &str, ins: &[u64], outs: &[u64]) -> String {
    let ports = |ps: &[u64]| {
        ps.iter()
            .map(|p| format!(r#"<port id="{p}" precision="FP32"><dim>2</dim></port>"#))
            .collect::<String>()
    };
    format!(
        r#"<layer id="{id}" name="L{id}" type="{ty}" version="opset1">{data}<input>{}</input><output>{}</output></layer>"#,
        ports(ins),
        ports(outs)
    )
}

fn edge(fl: u64, fp: u64, tl: u64, tp: u64) -> String {
    format!(r#"<edge from-layer="{fl}" from-port="{fp}" to-layer="{tl}" to-port="{tp}"/>"#)
}

#[test]
fn structural_errors() {
    let two = layer(0, "Parameter", "", &[], &[0]) + &layer(1, "Relu", "", &[0], &[1]);
    assert!(IrModel::parse(&net("11", &two, &edge(0, 0, 1, 0))).is_ok());
    assert!(IrModel::parse(&net("10", &two, &edge(0, 0, 1, 0))).is_ok());
    assert!(matches!(
        IrModel::parse(&net("7", &two, "")),
        Err(IrError::UnsupportedVersion { found }) if found == "7"
    ));
    assert!(matches!(
        IrModel::parse("<model/>"),
        Err(IrError::NotANet { found }) if found == "model"
    ));
    assert!(matches!(
        IrModel::parse(r#"<net version="11"/>"#),
        Err(IrError::MissingElement {
            child: "layers",
            ..
        })
    ));
    let dup = layer(0, "Parameter", "", &[], &[0]) + &layer(0, "Relu", "", &[0], &[1]);
    assert!(matches!(
        IrModel::parse(&net("11", &dup, "")),
        Err(IrError::DuplicateLayerId { id: 0, .. })
    ));
    assert!(matches!(
        IrModel::parse(&net("11", &two, &edge(0, 0, 9, 0))),
        Err(IrError::EdgeMissingLayer {
            missing: 9,
            side: PortSide::Input,
            ..
        })
    ));
    assert!(matches!(
        IrModel::parse(&net("11", &two, &edge(0, 5, 1, 0))),
        Err(IrError::EdgeMissingPort {
            layer: 0,
            port: 5,
            side: PortSide::Output,
            ..
        })
    ));
    assert!(matches!(
        IrModel::parse(&net("11", &two, &edge(0, 0, 1, 7))),
        Err(IrError::EdgeMissingPort {
            layer: 1,
            port: 7,
            side: PortSide::Input,
            ..
        })
    ));
    assert!(matches!(
        IrModel::parse(&net("11", &two, &(edge(0, 0, 1, 0) + &edge(0, 0, 1, 0)))),
        Err(IrError::DuplicateInputEdge {
            layer: 1,
            port: 0,
            ..
        })
    ));
    // A cycle 1 -> 2 -> 3 -> 1 fed by 0; the error names a layer on the cycle, not 0 or 4.
    let cyc = layer(0, "Parameter", "", &[], &[0])
        + &layer(1, "Add", "", &[0, 1], &[2])
        + &layer(2, "Relu", "", &[0], &[1])
        + &layer(3, "Relu", "", &[0], &[1])
        + &layer(4, "Result", "", &[0], &[]);
    let edges = edge(0, 0, 1, 0)
        + &edge(1, 2, 2, 0)
        + &edge(2, 1, 3, 0)
        + &edge(3, 1, 1, 1)
        + &edge(3, 1, 4, 0);
    match IrModel::parse(&net("11", &cyc, &edges)) {
        Err(IrError::Cycle { layer, name }) => {
            assert!([1, 2, 3].contains(&layer), "layer {layer}");
            assert_eq!(name, format!("L{layer}"));
        }
        other => panic!("expected a cycle, got {other:?}"),
    }
    // A self loop.
    let selfloop = layer(0, "Relu", "", &[0], &[1]);
    assert!(matches!(
        IrModel::parse(&net("11", &selfloop, &edge(0, 1, 0, 0))),
        Err(IrError::Cycle { layer: 0, .. })
    ));
    // Bad dims, bad ids, ranks over the cap.
    let bad_dim = r#"<layer id="0" name="a" type="Parameter" version="opset1"><output><port id="0"><dim>-2</dim></port></output></layer>"#;
    assert!(matches!(
        IrModel::parse(&net("11", bad_dim, "")),
        Err(IrError::InvalidPortDim {
            layer: 0,
            port: 0,
            side: PortSide::Output,
            ..
        })
    ));
    let bad_id = r#"<layer id="x" name="a" type="Parameter" version="opset1"/>"#;
    assert!(matches!(
        IrModel::parse(&net("11", bad_id, "")),
        Err(IrError::InvalidId {
            element: "layer",
            attribute: "id",
            ..
        })
    ));
    let no_type = r#"<layer id="0" name="a" version="opset1"/>"#;
    assert!(matches!(
        IrModel::parse(&net("11", no_type, "")),
        Err(IrError::MissingXmlAttribute {
            element: "layer",
            attribute: "type",
            ..
        })
    ));
    let big_rank = format!(
        r#"<layer id="0" name="a" type="Parameter" version="opset1"><output><port id="0">{}</port></output></layer>"#,
        "<dim>1</dim>".repeat(65)
    );
    assert!(matches!(
        IrModel::parse(&net("11", &big_rank, "")),
        Err(IrError::PortRankTooLarge { max: 64, .. })
    ));
    // DTDs (and so entity expansion) are refused.
    let dtd = r#"<?xml version="1.0"?><!DOCTYPE net [<!ENTITY a "aaaa">]><net version="11"><layers/></net>"#;
    assert!(matches!(IrModel::parse(dtd), Err(IrError::Xml(_))));
}

#[test]
fn attribute_helpers() {
    let l = layer(
        0,
        "X",
        r#"<data a="True" b="false" c="1" d="yes" n=" -42 " list="1, 2,3" empty="" bad="1,x" shape="1..4,?" et="i32"/>"#,
        &[],
        &[0],
    );
    let m = IrModel::parse(&net("11", &l, "")).unwrap();
    let x = &m.graph.layers[0];
    assert!(x.attr_bool("a").unwrap());
    assert!(!x.attr_bool("b").unwrap());
    assert!(x.attr_bool("c").unwrap());
    assert!(matches!(
        x.attr_bool("d"),
        Err(IrError::InvalidBool { layer: 0, ref attribute, ref text }) if attribute == "d" && text == "yes"
    ));
    assert!(matches!(
        x.attr_bool("zzz"),
        Err(IrError::MissingAttribute { layer: 0, ref attribute }) if attribute == "zzz"
    ));
    assert_eq!(x.attr_i64("n").unwrap(), -42);
    assert!(matches!(
        x.attr_i64("a"),
        Err(IrError::InvalidInteger { .. })
    ));
    assert_eq!(x.attr_i64_list("list").unwrap(), vec![1, 2, 3]);
    assert_eq!(x.attr_i64_list("empty").unwrap(), Vec::<i64>::new());
    assert!(matches!(
        x.attr_i64_list("bad"),
        Err(IrError::InvalidInteger { index: 1, .. })
    ));
    assert_eq!(x.attr_str("a").unwrap(), "True");
    assert_eq!(x.attr_shape("shape", 64).unwrap().to_string(), "[1..4,?]");
    assert!(matches!(
        x.attr_shape("list", 2),
        Err(IrError::InvalidShape { .. })
    ));
    assert_eq!(x.attr_element_type("et").unwrap(), ElementType::I32);
    assert!(matches!(
        x.attr_element_type("a"),
        Err(IrError::UnknownElementType { .. })
    ));
    // Data attributes keep file order.
    let keys: Vec<&str> = x.data.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        keys,
        ["a", "b", "c", "d", "n", "list", "empty", "bad", "shape", "et"]
    );
}

fn const_layer(et: &str, shape: &str, offset: u64, size: u64) -> IrModel {
    let data =
        format!(r#"<data element_type="{et}" shape="{shape}" offset="{offset}" size="{size}"/>"#);
    let l = layer(0, "Const", &data, &[], &[0]);
    IrModel::parse(&net("11", &l, "")).unwrap()
}

#[test]
fn const_reader_checks() {
    let w = Weights::from_bytes(
        [
            &1u64.to_le_bytes()[..],
            &u64::MAX.to_le_bytes()[..],
            &[0x00, 0x3f, 0x80, 0x3f], // bf16 0.5, 1.0
        ]
        .concat(),
    );
    let ok = const_layer("u64", "1", 0, 8);
    assert_eq!(w.const_i64_values(&ok.graph.layers[0]).unwrap(), vec![1]);
    let over = const_layer("u64", "2", 0, 16);
    assert!(matches!(
        w.const_i64_values(&over.graph.layers[0]),
        Err(IrError::ConstValueOverflow {
            index: 1,
            value: u64::MAX,
            ..
        })
    ));
    let i8s = const_layer("i8", "2, 2", 8, 4);
    assert_eq!(
        w.const_i64_values(&i8s.graph.layers[0]).unwrap(),
        vec![-1; 4]
    );
    let bools = const_layer("boolean", "3", 0, 3);
    assert_eq!(
        w.const_i64_values(&bools.graph.layers[0]).unwrap(),
        vec![1, 0, 0]
    );
    let bf = const_layer("bf16", "2", 16, 4);
    assert_eq!(
        w.const_f64_values(&bf.graph.layers[0]).unwrap(),
        vec![0.5, 1.0]
    );
    let oob = const_layer("i64", "1", 16, 8);
    assert!(matches!(
        w.const_i64_values(&oob.graph.layers[0]),
        Err(IrError::ConstOutOfBounds {
            offset: 16,
            size: 8,
            bin_len: 20,
            ..
        })
    ));
    let wrap = const_layer("i8", "1", u64::MAX, 1);
    assert!(matches!(
        w.const_i64_values(&wrap.graph.layers[0]),
        Err(IrError::ConstOutOfBounds { .. })
    ));
    let mismatch = const_layer("i32", "3", 0, 8);
    assert!(matches!(
        w.const_i64_values(&mismatch.graph.layers[0]),
        Err(IrError::ConstSizeMismatch {
            size: 8,
            expected: 12,
            elements: 3,
            ..
        })
    ));
    let overflow = const_layer("i64", "4294967296,4294967296,2", 0, 0);
    assert!(matches!(
        w.const_i64_values(&overflow.graph.layers[0]),
        Err(IrError::ConstElementCountOverflow { .. })
    ));
    let dynamic = const_layer("i64", "?", 0, 8);
    assert!(matches!(
        w.const_i64_values(&dynamic.graph.layers[0]),
        Err(IrError::ConstShapeNotStatic { .. })
    ));
    let huge = const_layer("u8", "1000000", 0, 1_000_000);
    let capped = Weights::from_bytes(vec![0; 16]).with_max_const_elements(1000);
    assert!(matches!(
        capped.const_i64_values(&huge.graph.layers[0]),
        Err(IrError::ConstTooLarge {
            elements: 1_000_000,
            max: 1000,
            ..
        })
    ));
    let strings = const_layer("string", "1", 0, 1_000_000);
    assert!(matches!(
        capped.const_bytes(&strings.graph.layers[0]),
        Err(IrError::ConstBytesTooLarge {
            size: 1_000_000,
            max: 8000,
            ..
        })
    ));
    let empty = Weights::empty();
    assert!(matches!(
        empty.const_i64_values(&ok.graph.layers[0]),
        Err(IrError::ConstOutOfBounds { bin_len: 0, .. })
    ));
}

/// Parse, then exercise every reader on every layer; errors are fine, panics are not.
fn exercise(xml: &str, bin: &[u8]) {
    let Ok(model) = IrModel::parse(xml) else {
        return;
    };
    let w = Weights::from_bytes(bin.to_vec()).with_max_const_elements(1 << 16);
    let g = &model.graph;
    for l in &g.layers {
        let _ = w.const_i64_values(l);
        let _ = w.const_f64_values(l);
        let _ = l.attr_shape("shape", 64);
        let _ = l.attr_bool("special_zero");
        let _ = l.attr_i64_list("shape");
        let _ = g.input_producers(l.id);
    }
    assert_eq!(g.topological_order().len(), g.layers.len());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn mutated_xml_never_panics(
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..4, any::<u8>()), 1..8),
        bin_cut in 0usize..19,
    ) {
        let xml = std::fs::read_to_string(fixture_dir().join("model.xml")).unwrap();
        let bin = std::fs::read(fixture_dir().join("model.bin")).unwrap();
        let alphabet = b"0123456789-,.?<>/=\" abcdefTrue";
        let mut bytes = xml.into_bytes();
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
        let text = String::from_utf8_lossy(&bytes);
        exercise(&text, &bin[..bin_cut]);
    }

    #[test]
    fn mutated_numbers_never_panic(
        dim in any::<i64>(), offset in any::<u64>(), size in any::<u64>(),
        shape in "[0-9?.,\\- ]{0,24}",
    ) {
        let xml = std::fs::read_to_string(fixture_dir().join("model.xml")).unwrap();
        let xml = xml
            .replacen("<dim>3</dim>", &format!("<dim>{dim}</dim>"), 1)
            .replacen(r#"offset="0" size="16""#, &format!(r#"offset="{offset}" size="{size}""#), 1)
            .replacen(r#"shape="?,3,2..8""#, &format!(r#"shape="{shape}""#), 1);
        exercise(&xml, &std::fs::read(fixture_dir().join("model.bin")).unwrap());
    }
}

#[test]
fn sub_graph_bodies() {
    let body = format!(
        "<body><layers>{}{}</layers><edges>{}</edges></body>",
        layer(0, "Parameter", "", &[], &[0]),
        layer(1, "Result", "", &[0], &[]),
        edge(0, 0, 1, 0)
    );
    let ti = format!(
        r#"<layer id="1" name="ti" type="TensorIterator" version="opset1"><input><port id="0"/></input><output><port id="1"/></output><port_map><input external_port_id="0" internal_layer_id="0" axis="1"/><output external_port_id="1" internal_layer_id="1"/></port_map><back_edges/>{body}</layer>"#
    );
    let layers = layer(0, "Parameter", "", &[], &[0]) + &ti;
    let m = IrModel::parse(&net("11", &layers, &edge(0, 0, 1, 0))).unwrap();
    let t = m.graph.layer(1).unwrap();
    assert_eq!(t.bodies.len(), 1);
    assert_eq!(t.bodies[0].tag, "body");
    assert_eq!(t.bodies[0].graph.layers.len(), 2);
    assert_eq!(
        t.bodies[0].graph.producer(1, 0),
        Some(PortRef { layer: 0, port: 0 })
    );
    let pm: Vec<&str> = t.port_maps.iter().map(|p| p.tag.as_str()).collect();
    assert_eq!(pm, ["port_map", "back_edges"]);
    assert_eq!(t.port_maps[0].entries[0].0, "input");
    assert_eq!(
        t.port_maps[0].entries[0].1[2],
        ("axis".to_string(), "1".to_string())
    );
    // A body edge to a missing layer is caught inside the body too.
    let bad = ti.replace(&edge(0, 0, 1, 0), &edge(0, 0, 5, 0));
    let layers = layer(0, "Parameter", "", &[], &[0]) + &bad;
    assert!(matches!(
        IrModel::parse(&net("11", &layers, "")),
        Err(IrError::EdgeMissingLayer { missing: 5, .. })
    ));
    // Nesting beyond the cap.
    let mut nested = layer(0, "Parameter", "", &[], &[0]);
    for _ in 0..20 {
        nested = format!(
            r#"<layer id="0" name="loop" type="Loop" version="opset5"><body><layers>{nested}</layers></body></layer>"#
        );
    }
    assert!(matches!(
        IrModel::parse(&net("11", &nested, "")),
        Err(IrError::NestingTooDeep { max: 16, .. })
    ));
}
