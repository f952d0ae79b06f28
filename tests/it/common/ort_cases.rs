//! Fixtures of onnxruntime's runtime shapes (`tests/fixtures/*/ort_cases.json`,
//! written by the generator script beside each): small graphs with symbolic input
//! dims and, for several bindings of those symbols, the output shapes and element
//! types onnxruntime produced running them. [`infer_case`] infers a case once,
//! symbolically; [`compare`] evaluates every output dim at each binding.

use super::fixture::hex;
use serde_json::Value;
use std::collections::HashMap;
use symdim::algebra::{Rat, SymbolKind};
use symdim::context::{const_fact, ShapesContext, TensorFact};
use symdim::graph::{Attr, ConstData, ConstTensor, DType, Node};

/// The fixture file's JSON.
pub fn load(path: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).unwrap()
}

fn attr(v: &Value) -> Attr {
    let val = &v["value"];
    let nums = || val.as_array().unwrap().iter();
    match v["type"].as_str().unwrap() {
        "int" => Attr::Int(val.as_i64().unwrap()),
        "ints" => Attr::Ints(nums().map(|x| x.as_i64().unwrap()).collect()),
        "float" => Attr::Float(val.as_f64().unwrap()),
        "floats" => Attr::Floats(nums().map(|x| x.as_f64().unwrap()).collect()),
        "str" => Attr::Str(val.as_str().unwrap().to_string()),
        other => panic!("attribute type {other}"),
    }
}

fn is_float(t: DType) -> bool {
    matches!(
        t,
        DType::Float | DType::Double | DType::Float16 | DType::Bfloat16
    )
}

/// Infer one case symbolically. A node of the default domain runs at the case's
/// opset, one of another domain (`com.microsoft`) at version 1; a node without a
/// rule panics.
pub fn infer_case(case: &Value) -> ShapesContext {
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
        let dims = init["dims"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_i64().unwrap())
            .collect();
        let data = match init["values"].as_array() {
            None => ConstData::NotLoaded,
            Some(v) if is_float(dtype) => {
                ConstData::Floats(v.iter().map(|x| x.as_f64().unwrap()).collect())
            }
            Some(v) => ConstData::Ints(v.iter().map(|x| x.as_i64().unwrap()).collect()),
        };
        let fact = const_fact(&mut ctx.alg, &ConstTensor { dtype, dims, data });
        ctx.insert(init["name"].as_str().unwrap(), fact);
    }
    let names = |v: &Value| -> Vec<_> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().into())
            .collect()
    };
    for (i, n) in case["nodes"].as_array().unwrap().iter().enumerate() {
        let domain = n["domain"].as_str().unwrap_or("").to_string();
        let node = Node {
            name: format!("{}_{i}", n["op"].as_str().unwrap()),
            op_type: n["op"].as_str().unwrap().into(),
            version: if domain.is_empty() { opset } else { 1 },
            domain,
            inputs: names(&n["inputs"]),
            outputs: names(&n["outputs"]),
            attrs: n["attrs"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), attr(v)))
                .collect(),
        };
        let rule = symdim::ops::rule_for(&node.domain, &node.op_type)
            .unwrap_or_else(|| panic!("no rule for {}:{}", node.domain, node.op_type));
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

/// What [`compare`] found over a fixture.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Cases (graphs).
    pub cases: usize,
    /// Runs (bindings) over all cases.
    pub runs: usize,
    /// Output shapes (per run) whose every dim evaluates to the runtime value.
    pub exact: usize,
    /// One entry per output shape (per run) with an unknown rank or a dim that
    /// cannot be evaluated: `"<case> <output>: <shape>"`.
    pub less_precise: Vec<String>,
    /// Element types and dims that differ from the runtime's.
    pub wrong: Vec<String>,
}

/// Infer every case of the fixture once and compare each output's element type
/// and dims, evaluated at each run's binding, with what onnxruntime produced.
pub fn compare(doc: &Value) -> Outcome {
    let mut out = Outcome::default();
    for case in doc["cases"].as_array().unwrap() {
        out.cases += 1;
        let name = case["name"].as_str().unwrap();
        let ctx = infer_case(case);
        for run in case["runs"].as_array().unwrap() {
            out.runs += 1;
            let bind = binding(run);
            let env = |s: &str| bind.get(s).map(|v| Rat::int(*v));
            for (o, want) in run["shapes"].as_object().unwrap() {
                let want = super::fixture::ints(want);
                let fact = ctx
                    .get(o)
                    .unwrap_or_else(|| panic!("{name}: no fact for {o}"));
                let dtype = DType::from_i32(run["dtypes"][o].as_i64().unwrap() as i32);
                if fact.dtype != dtype {
                    out.wrong
                        .push(format!("{name} {o}: dtype {} vs {dtype}", fact.dtype));
                }
                let Some(shape) = &fact.shape else {
                    out.less_precise.push(format!("{name} {o}: unknown rank"));
                    continue;
                };
                if shape.len() != want.len() {
                    out.wrong.push(format!(
                        "{name} {o} at {bind:?}: rank {} vs {want:?}",
                        shape.len()
                    ));
                    continue;
                }
                let mut precise = true;
                for (d, w) in shape.iter().zip(&want) {
                    match ctx.alg.eval(*d, &env) {
                        Some(v) if v == Rat::int(*w) => {}
                        Some(v) => out.wrong.push(format!(
                            "{name} {o} at {bind:?}: {} = {v}, runtime {want:?}",
                            ctx.alg.render(*d)
                        )),
                        None => precise = false,
                    }
                }
                if precise {
                    out.exact += 1;
                } else {
                    out.less_precise
                        .push(format!("{name} {o}: {}", ctx.render_dims(shape)));
                }
            }
        }
    }
    out
}

/// Load and infer a case that holds its whole model (`"model"`, hex-encoded ONNX
/// bytes: its own opset imports and initializers), with no facts given.
pub fn infer_model_case(case: &Value) -> ShapesContext {
    let name = case["name"].as_str().unwrap();
    let bytes = hex(case["model"].as_str().unwrap());
    let model = symdim::load_bytes(&bytes, name, &symdim::read::load::LoadOptions::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    symdim::infer(&model, &symdim::Facts::default()).into_context()
}

/// How one output of one run compares with the runtime.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    /// Every dim evaluates to the runtime value, and the element type is the same.
    Exact,
    /// Unknown rank, or some dims do not evaluate at the binding (symbols of their
    /// own); every dim that evaluates is right.
    LessPrecise(String),
    /// A dim, the rank or the element type differs.
    Wrong(String),
}

/// Compare output `o`'s fact in `ctx` with the runtime's `want` dims and `dtype`
/// at `bind`.
pub fn verdict(
    ctx: &ShapesContext,
    o: &str,
    want: &[i64],
    dtype: DType,
    bind: &HashMap<String, i64>,
) -> Verdict {
    let Some(fact) = ctx.get(o) else {
        return Verdict::Wrong(format!("{o}: no fact"));
    };
    let mut wrong = Vec::new();
    if fact.dtype != dtype {
        wrong.push(format!("{o}: dtype {} vs {dtype}", fact.dtype));
    }
    let Some(shape) = &fact.shape else {
        return if wrong.is_empty() {
            Verdict::LessPrecise(format!("{o}: unknown rank"))
        } else {
            Verdict::Wrong(wrong.join("; "))
        };
    };
    if shape.len() != want.len() {
        wrong.push(format!(
            "{o}: rank {} ({}), runtime {want:?}",
            shape.len(),
            ctx.render_dims(shape)
        ));
        return Verdict::Wrong(wrong.join("; "));
    }
    let env = |s: &str| symbol_value(ctx, bind, s);
    let mut precise = true;
    for (d, w) in shape.iter().zip(want) {
        match ctx.alg.eval(*d, &env) {
            Some(v) if v == Rat::int(*w) => {}
            Some(v) => wrong.push(format!(
                "{o} at {bind:?}: {} = {v}, runtime {want:?}",
                ctx.alg.render(*d)
            )),
            None => precise = false,
        }
    }
    if !wrong.is_empty() {
        Verdict::Wrong(wrong.join("; "))
    } else if precise {
        Verdict::Exact
    } else {
        Verdict::LessPrecise(format!("{o}: {}", ctx.render_dims(shape)))
    }
}

/// The value of a symbol at the binding: input symbols from the binding, derived
/// ones (a `-1` whose division is not proven exact) through their definition,
/// data-dependent ones have none.
pub fn symbol_value(ctx: &ShapesContext, bind: &HashMap<String, i64>, name: &str) -> Option<Rat> {
    match &ctx.alg.symbol_entry(name)?.kind {
        SymbolKind::Input => bind.get(name).map(|v| Rat::int(*v)),
        SymbolKind::Derived { definition } => {
            definition.eval(&|s| symbol_value(ctx, bind, s.as_str()))
        }
        SymbolKind::DataDependent { .. } => None,
    }
}

/// A run's binding.
pub fn binding(run: &Value) -> HashMap<String, i64> {
    super::fixture::binding(&run["bind"])
}
