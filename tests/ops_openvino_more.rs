//! The OpenVINO rules of issue 22's ops (ScaledDotProductAttention, GatherND, If,
//! Loop, TensorIterator, the scatter ops, Einsum, OneHot, detection, Fourier,
//! patches, embeddings, ...): hand-built IR cases with expected values worked out
//! from the OpenVINO operation specification, and the probe against OpenVINO's own
//! shape inference.
//!
//! `tests/fixtures/openvino_ops/ov_cases.json` (written by `gen_ov_cases.py` beside
//! it) holds one-op IR models built with OpenVINO's Python API, OpenVINO's output
//! shapes with every symbol dynamic, and its output shapes after reshaping the
//! model to several bindings of the symbols. symdim infers each model once, with
//! the Parameters' dynamic dims named by the symbols; every output dim is
//! evaluated at each binding and compared.

mod common;

use std::collections::HashMap;

use serde_json::Value;
use symdim::algebra::Rat;
use symdim::context::{Severity, ShapesContext};
use symdim::graph::{DType, DeclDim};
use symdim::infer::infer_context;
use symdim::openvino::{to_graph, ElementType, IrModel, Weights};
use symdim::Facts;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/openvino_ops/ov_cases.json"
);
const OPSETS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/openvino_ops/opset_ops.txt"
);

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Infer one case's model with its Parameters' dims named by the case's symbols.
fn infer_case(case: &Value) -> ShapesContext {
    let ir = IrModel::parse(case["xml"].as_str().unwrap()).unwrap();
    let w = Weights::from_bytes(hex(case["bin"].as_str().unwrap()));
    let mut m = to_graph::to_model(&ir, &w, "case.xml").unwrap();
    let symbols = case["symbols"].as_object().unwrap();
    for input in &mut m.graph.inputs {
        let Some(dims) = symbols.get(&*input.name) else {
            continue;
        };
        let dims = dims.as_array().unwrap();
        input.shape = Some(
            dims.iter()
                .map(|d| match d {
                    Value::Number(n) => DeclDim::Value(n.as_i64().unwrap()),
                    Value::String(s) => DeclDim::Param(s.clone()),
                    other => panic!("dim {other}"),
                })
                .collect(),
        );
    }
    infer_context(&m, &Facts::default())
}

fn ov_dtype(name: &str) -> DType {
    to_graph::dtype_of(ElementType::parse(name).unwrap_or_else(|| panic!("type {name}")))
}

/// Each output of each case against OpenVINO: dtype, rank, OpenVINO's static dims,
/// and every dim at every binding. A dim OpenVINO knows that symdim leaves
/// data-dependent is counted as less precise; a different value is wrong.
#[test]
fn rules_match_openvino() {
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(FIXTURE).expect("fixture")).unwrap();
    let (mut cases, mut dims, mut closed) = (0, 0, 0);
    let mut wrong = Vec::new();
    let mut less = Vec::new();
    for case in doc["cases"].as_array().unwrap() {
        cases += 1;
        let name = case["name"].as_str().unwrap();
        let ctx = infer_case(case);
        for d in &ctx.diagnostics {
            if d.severity == Severity::Error || d.message.contains("no shape rule") {
                wrong.push(format!("{name}: {d}"));
            }
        }
        for (i, out) in case["outputs"].as_array().unwrap().iter().enumerate() {
            let o = format!("out{i}");
            let Some(fact) = ctx.get(&o) else {
                wrong.push(format!("{name} {o}: no fact"));
                continue;
            };
            let want = ov_dtype(out["dtype"].as_str().unwrap());
            if fact.dtype != want {
                wrong.push(format!("{name} {o}: dtype {} vs {want}", fact.dtype));
            }
            let Some(ov_dims) = out["dims"].as_array() else {
                continue; // OpenVINO does not know the rank either
            };
            let Some(shape) = &fact.shape else {
                less.push(format!("{name} {o}: unknown rank"));
                continue;
            };
            if shape.len() != ov_dims.len() {
                wrong.push(format!(
                    "{name} {o}: rank {} vs {}",
                    shape.len(),
                    ov_dims.len()
                ));
                continue;
            }
            for (d, w) in shape.iter().zip(ov_dims) {
                dims += 1;
                match w.as_i64() {
                    Some(w) if ctx.alg.as_i64(*d) == Some(w) => {}
                    Some(w) => less.push(format!(
                        "{name} {o}: {} where OpenVINO has {w}",
                        ctx.alg.render(*d)
                    )),
                    None if ctx.alg.as_i64(*d).is_some()
                        || ctx.alg.eval(*d, &|_| Some(Rat::int(2))).is_some() =>
                    {
                        closed += 1
                    }
                    None => {}
                }
            }
            for run in case["runs"].as_array().unwrap() {
                let bind: HashMap<String, i64> = run["bind"]
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(k, v)| (k.clone(), v.as_i64().unwrap()))
                    .collect();
                let env = |s: &str| bind.get(s).map(|v| Rat::int(*v));
                let Some(ws) = run["shapes"][i].as_array() else {
                    continue;
                };
                for (d, w) in shape.iter().zip(ws) {
                    let Some(w) = w.as_i64() else {
                        continue; // data-dependent in OpenVINO too
                    };
                    match ctx.alg.eval(*d, &env) {
                        Some(v) if v == Rat::int(w) => {}
                        Some(v) => wrong.push(format!(
                            "{name} {o} at {bind:?}: {} = {v}, OpenVINO {w}",
                            ctx.alg.render(*d)
                        )),
                        None => less.push(format!(
                            "{name} {o} at {bind:?}: {} where OpenVINO has {w}",
                            ctx.alg.render(*d)
                        )),
                    }
                }
            }
        }
    }
    println!(
        "{cases} cases, {dims} output dims; {closed} closed forms where OpenVINO's \
         dynamic-shape inference has `?`; {} less precise",
        less.len()
    );
    for l in &less {
        println!("  less precise: {l}");
    }
    assert!(
        wrong.is_empty(),
        "{} mismatches:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(cases >= 120, "the fixture has {cases} cases");
}

/// Every op of OpenVINO opsets 1 to 16 has a rule (Parameter, Constant and Result
/// are read by the IR reader, not inferred).
#[test]
fn every_opset_op_has_a_rule() {
    let text = std::fs::read_to_string(OPSETS).expect("opset list");
    let mut missing = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (name, _) = line.rsplit_once('-').unwrap();
        if matches!(name, "Parameter" | "Constant" | "Result") {
            continue;
        }
        let listed = symdim::ops::FAMILIES
            .iter()
            .flat_map(|f| f.iter())
            .any(|(d, op, _)| *d == "openvino" && *op == name);
        if !listed {
            missing.push(line.to_string());
        }
    }
    assert!(missing.is_empty(), "no rule for {missing:?}");
}
