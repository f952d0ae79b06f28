//! The NN shape rules against onnxruntime's real output shapes.
//!
//! `tests/fixtures/nn/ort_cases.json` (written by `gen_ort_cases.py` beside it)
//! holds small graphs with symbolic input dims and, for several bindings of those
//! symbols, the output shapes onnxruntime actually produced when running them.
//! Here symdim infers each graph once, symbolically; every output dim is then
//! evaluated at each binding and compared. A dim that is a data-dependent fresh
//! symbol (NonZero's count) cannot be evaluated and counts as "less precise".

use serde_json::Value;
use std::collections::HashMap;
use symdim::algebra::Rat;
use symdim::context::const_fact;
use symdim::context::{ShapesContext, TensorFact};
use symdim::graph::{Attr, ConstData, ConstTensor, DType, Node};
use symdim::ops::rule_for;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/nn/ort_cases.json"
);

fn attr(v: &Value) -> Attr {
    let val = &v["value"];
    match v["type"].as_str().unwrap() {
        "int" => Attr::Int(val.as_i64().unwrap()),
        "ints" => Attr::Ints(
            val.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_i64().unwrap())
                .collect(),
        ),
        "float" => Attr::Float(val.as_f64().unwrap()),
        "floats" => Attr::Floats(
            val.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect(),
        ),
        "str" => Attr::Str(val.as_str().unwrap().to_string()),
        other => panic!("attribute type {other}"),
    }
}

/// Infer one case; returns the context.
fn infer_case(case: &Value) -> ShapesContext {
    let mut ctx = ShapesContext::default();
    let opset = case["opset"].as_i64().unwrap();
    for input in case["inputs"].as_array().unwrap() {
        let dims = input["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| match d {
                Value::Number(n) => ctx.alg.constant(n.as_i64().unwrap()),
                Value::String(s) => ctx.alg.input(s),
                other => panic!("dim {other}"),
            })
            .collect();
        let dtype = DType::from_i32(input["dtype"].as_i64().unwrap() as i32);
        ctx.insert(
            input["name"].as_str().unwrap(),
            TensorFact::new(dtype, dims),
        );
    }
    for init in case["initializers"].as_array().unwrap() {
        let dtype = DType::from_i32(init["dtype"].as_i64().unwrap() as i32);
        let dims: Vec<i64> = init["dims"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_i64().unwrap())
            .collect();
        let data = match init["values"].as_array() {
            None => ConstData::NotLoaded,
            Some(v) if dtype == DType::Float => {
                ConstData::Floats(v.iter().map(|x| x.as_f64().unwrap()).collect())
            }
            Some(v) => ConstData::Ints(v.iter().map(|x| x.as_i64().unwrap()).collect()),
        };
        let fact = const_fact(&mut ctx.alg, &ConstTensor { dtype, dims, data });
        ctx.insert(init["name"].as_str().unwrap(), fact);
    }
    for (i, n) in case["nodes"].as_array().unwrap().iter().enumerate() {
        let node = Node {
            name: format!("{}_{i}", n["op"].as_str().unwrap()),
            op_type: n["op"].as_str().unwrap().to_string(),
            domain: String::new(),
            version: opset,
            inputs: n["inputs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap().into())
                .collect(),
            outputs: n["outputs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap().into())
                .collect(),
            attrs: n["attrs"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), attr(v)))
                .collect(),
        };
        let rule =
            rule_for("", &node.op_type).unwrap_or_else(|| panic!("no rule for {}", node.op_type));
        let facts = rule(&mut ctx, &node)
            .unwrap_or_else(|e| panic!("{}: {}: {e}", case["name"], node.op_type));
        for (o, f) in node.outputs.iter().zip(facts) {
            if !o.is_empty() {
                ctx.insert(o, f);
            }
        }
    }
    ctx
}

#[derive(Default)]
struct Tally {
    exact: usize,
    less_precise: usize,
    wrong: Vec<String>,
}

#[test]
fn nn_rules_match_onnxruntime() {
    let text = std::fs::read_to_string(FIXTURE).expect("fixture");
    let doc: Value = serde_json::from_str(&text).unwrap();
    let mut tally = Tally::default();
    let mut cases = 0;
    for case in doc["cases"].as_array().unwrap() {
        cases += 1;
        let name = case["name"].as_str().unwrap();
        let ctx = infer_case(case);
        let mut rendered = Vec::new();
        for o in case["outputs"].as_array().unwrap() {
            let o = o.as_str().unwrap();
            let f = ctx
                .get(o)
                .unwrap_or_else(|| panic!("{name}: no fact for {o}"));
            rendered.push(format!(
                "{o}: {}",
                f.shape
                    .as_ref()
                    .map_or("?".to_string(), |s| ctx.render_dims(s))
            ));
        }
        eprintln!("{name}: {}", rendered.join("; "));
        for run in case["runs"].as_array().unwrap() {
            let bind: HashMap<String, i64> = run["bind"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), v.as_i64().unwrap()))
                .collect();
            let env = |s: &str| bind.get(s).map(|v| Rat::int(*v));
            for (o, want) in run["shapes"].as_object().unwrap() {
                let want: Vec<i64> = want
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| d.as_i64().unwrap())
                    .collect();
                let fact = ctx.get(o).unwrap();
                let Some(shape) = &fact.shape else {
                    tally.less_precise += 1;
                    continue;
                };
                if shape.len() != want.len() {
                    tally.wrong.push(format!(
                        "{name} {o} at {bind:?}: rank {} vs {want:?}",
                        shape.len()
                    ));
                    continue;
                }
                let mut ok = true;
                let mut precise = true;
                for (d, w) in shape.iter().zip(&want) {
                    match ctx.alg.eval(*d, &env) {
                        Some(v) if v == Rat::int(*w) => {}
                        Some(v) => {
                            ok = false;
                            tally.wrong.push(format!(
                                "{name} {o} at {bind:?}: {} = {v}, onnxruntime {want:?}",
                                ctx.alg.render(*d)
                            ));
                        }
                        None => precise = false,
                    }
                }
                if ok && precise {
                    tally.exact += 1;
                } else if ok {
                    tally.less_precise += 1;
                }
            }
        }
    }
    eprintln!(
        "onnxruntime cases: {cases}; output shapes exact {}, less precise {}, wrong {}",
        tally.exact,
        tally.less_precise,
        tally.wrong.len()
    );
    assert!(tally.wrong.is_empty(), "wrong:\n{}", tally.wrong.join("\n"));
}
