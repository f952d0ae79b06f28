//! The rules of the rest of the ONNX standard against onnxruntime's real output
//! shapes.
//!
//! `tests/fixtures/ops_standard/ort_cases.json` (written by `gen_ort_cases.py`
//! beside it) holds small models (one node per op and opset, and a few chains that
//! turn an op's contents into a shape), hex-encoded, whose inputs have symbolic
//! dims, and for several bindings of those symbols the output shapes and element
//! types onnxruntime produced when running them (onnx's shape inference where
//! onnxruntime has no kernel; for a sequence output, each element's shape; for a
//! sequence of maps, its length). symdim
//! loads and infers each model once; every output dim is evaluated at each binding
//! and compared. A dim that does not evaluate (a data-dependent count) is "less
//! precise", allowed only for the ops whose output sizes depend on the data.

use crate::common;

use common::fixture::{binding, hex, ints};
use serde_json::Value;
use std::collections::BTreeMap;
use symdim::algebra::Rat;
use symdim::context::ShapesContext;
use symdim::graph::DType;
use symdim::read::load::LoadOptions;
use symdim::Facts;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/ops_standard/ort_cases.json"
);

/// The ops whose output sizes depend on the contents of their inputs.
const DATA_DEPENDENT: &[&str] = &[
    "NonMaxSuppression",
    "Compress",
    "Unique",
    "StringSplit",
    "StringNormalizer",
    "CastMap",
];

/// Cases whose outputs may be less precise although none of their ops depends
/// on data, by name prefix (and suffix), with the reason.
const VAGUE_CASES: &[(&str, &str, &str)] = &[
    // the reader gives a sequence or optional graph input its element type and an
    // unknown rank (the tensor model cannot declare an element's shape)
    ("sequence_input_ops", "", "a sequence graph input"),
    ("sequence_map_input", "", "a sequence graph input"),
    ("optional", "_input", "an optional graph input"),
    // chunks of 2 along a symbolic axis: the last one differs, and which element
    // SequenceAt reads, or what the concatenation sums, is not tracked per element
    (
        "split_to_sequence",
        "_scalar2",
        "elements of two sizes on a symbolic axis",
    ),
    // the split sizes are runtime data
    (
        "split_to_sequence",
        "_unknown_sizes",
        "split sizes not known",
    ),
    // the output size is runtime data
    ("affine_grid20_unknown_size", "", "the size input not known"),
];

/// Compare one shape; `Some(true)` exact, `Some(false)` less precise, and a
/// message pushed to `wrong` when a dim or the rank differs.
fn compare(
    ctx: &ShapesContext,
    shape: &[symdim::algebra::Dim],
    want: &[i64],
    env: &dyn Fn(&str) -> Option<Rat>,
    what: &str,
    wrong: &mut Vec<String>,
) -> bool {
    if shape.len() != want.len() {
        wrong.push(format!("{what}: rank {} vs {want:?}", shape.len()));
        return true;
    }
    let mut precise = true;
    for (d, w) in shape.iter().zip(want) {
        match ctx.alg.eval(*d, env) {
            Some(v) if v == Rat::int(*w) => {}
            Some(v) => wrong.push(format!(
                "{what}: {} = {v}, runtime {want:?}",
                ctx.alg.render(*d)
            )),
            None => precise = false,
        }
    }
    precise
}

#[test]
fn rules_match_onnxruntime() {
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(FIXTURE).expect("fixture")).unwrap();
    let (mut cases, mut runs, mut exact, mut less_precise) = (0, 0, 0, 0);
    let mut wrong = Vec::new();
    let mut vague: BTreeMap<String, usize> = BTreeMap::new();
    for case in doc["cases"].as_array().unwrap() {
        cases += 1;
        let name = case["name"].as_str().unwrap();
        let bytes = hex(case["model"].as_str().unwrap());
        let model = symdim::load_bytes(&bytes, name, &LoadOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let ctx = symdim::infer(&model, &Facts::default()).into_context();
        for d in &ctx.diagnostics {
            if d.severity == symdim::context::Severity::Error {
                wrong.push(format!("{name}: error diagnostic: {d}"));
            }
        }
        let ops: Vec<&str> = case["ops"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o.as_str().unwrap())
            .collect();
        for run in case["runs"].as_array().unwrap() {
            runs += 1;
            let bind = binding(&run["bind"]);
            let env = |s: &str| bind.get(s).map(|v| Rat::int(*v));
            let mut results: Vec<(String, bool)> = Vec::new();
            for (o, want) in run["shapes"].as_object().unwrap() {
                let want = ints(want);
                let fact = ctx
                    .get(o)
                    .unwrap_or_else(|| panic!("{name}: no fact for {o}"));
                let dtype = DType::from_i32(run["dtypes"][o].as_i64().unwrap() as i32);
                if fact.dtype != dtype {
                    wrong.push(format!("{name} {o}: dtype {} vs {dtype}", fact.dtype));
                }
                let precise = match &fact.shape {
                    None => false,
                    Some(shape) => compare(
                        &ctx,
                        shape,
                        &want,
                        &env,
                        &format!("{name} {o} at {bind:?}"),
                        &mut wrong,
                    ),
                };
                results.push((o.clone(), precise));
            }
            if let Some(seqs) = run.get("sequences").and_then(Value::as_object) {
                for (o, elems) in seqs {
                    let elems: Vec<Vec<i64>> = elems.as_array().unwrap().iter().map(ints).collect();
                    let what = format!("{name} {o} at {bind:?}");
                    let Some(seq) = ctx.sequence(o) else {
                        wrong.push(format!("{what}: not known as a sequence"));
                        continue;
                    };
                    let mut precise = true;
                    match seq.len.map(|l| ctx.alg.eval(l, &env)) {
                        Some(Some(l)) if l != Rat::int(elems.len() as i64) => {
                            wrong.push(format!("{what}: length {l}, runtime {}", elems.len()))
                        }
                        Some(Some(_)) => {}
                        _ => precise = false,
                    }
                    if let Some(dtype) = run["dtypes"].get(o).and_then(Value::as_i64) {
                        let dtype = DType::from_i32(dtype as i32);
                        if seq.elem.dtype != dtype {
                            wrong.push(format!(
                                "{what}: element dtype {} vs {dtype}",
                                seq.elem.dtype
                            ));
                        }
                    }
                    for (k, want) in elems.iter().enumerate() {
                        let elem = seq
                            .elems
                            .as_ref()
                            .and_then(|e| e.get(k))
                            .unwrap_or(&seq.elem);
                        match &elem.shape {
                            Some(shape) => {
                                precise &= compare(
                                    &ctx,
                                    shape,
                                    want,
                                    &env,
                                    &format!("{what} element {k}"),
                                    &mut wrong,
                                )
                            }
                            None => precise = false,
                        }
                    }
                    results.push((o.clone(), precise));
                }
            }
            if let Some(maps) = run.get("map_sequence_lengths").and_then(Value::as_object) {
                for (o, n) in maps {
                    let what = format!("{name} {o} at {bind:?}");
                    let len = ctx.sequence(o).and_then(|s| s.len);
                    match len.map(|l| ctx.alg.eval(l, &env)) {
                        Some(Some(l)) if l == Rat::int(n.as_i64().unwrap()) => {
                            results.push((o.clone(), true))
                        }
                        Some(Some(l)) => wrong.push(format!("{what}: length {l}, runtime {n}")),
                        _ => results.push((o.clone(), false)),
                    }
                }
            }
            for (o, precise) in results {
                if precise {
                    exact += 1;
                } else {
                    less_precise += 1;
                    *vague.entry(format!("{name} {o}")).or_default() += 1;
                    let excused = VAGUE_CASES
                        .iter()
                        .any(|(pre, suf, _)| name.starts_with(pre) && name.ends_with(suf));
                    if !excused && !ops.iter().any(|op| DATA_DEPENDENT.contains(op)) {
                        wrong.push(format!(
                            "{name} {o}: less precise, and none of its ops depends on data"
                        ));
                    }
                }
            }
        }
    }
    eprintln!(
        "onnxruntime cases: {cases}, runs {runs}; output shapes exact {exact}, less precise {less_precise}, wrong {}",
        wrong.len()
    );
    for (k, n) in &vague {
        eprintln!("  less precise: {k} ({n} runs)");
    }
    assert!(wrong.is_empty(), "wrong:\n{}", wrong.join("\n"));
}
