//! A table of small models: the 209 ONNX peer cases (copied into
//! `tests/fixtures/peer-cases/`, see its README for sources and licences), one row per
//! case with the shape symdim gives the case's output tensor, snapshotted.
//!
//! Every row is also checked against what the case's source test suite asserts
//! (`expected`): each pinned dim must be provably equal to symdim's (`?` dims are not
//! pinned), an expected error must be an error diagnostic, and an expected unknown
//! shape is not checked. The snapshot's last column records the verdict, and the
//! test fails on any mismatch not listed (with its reason) in [`KNOWN`].

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use symdim::algebra::Truth;
use symdim::context::Severity;
use symdim::Facts;

/// Cases whose source expectation symdim does not meet, with the reason.
const KNOWN: &[(&str, &str)] = &[
    (
        "onnx.si.test_slice_with_input_shape_axes",
        "the Slice steps come from a graph input, so symdim leaves the sliced dims fresh; \
         onnx's test feeds them as known values (less precise, not wrong)",
    ),
    (
        "ort.slice_of_concat.test_symbolic_step",
        "the source's `floor(-1/N) + 3` is 2 for every N >= 1, which symdim gives; the \
         algebra cannot prove `floor(-1/N) == -1` (a negative numerator no larger than \
         the divisor), so the comparison is not proven",
    ),
];

fn fixtures() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/peer-cases")
}

#[test]
fn small_models_table() {
    let cases: BTreeMap<String, serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("cases.json")).unwrap())
            .unwrap();
    let mut rows = Vec::new();
    let mut mismatches = Vec::new();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (id, case) in &cases {
        let path = fixtures().join("models").join(format!("{id}.onnx"));
        let model = symdim::read::load::load(&path).unwrap_or_else(|e| panic!("{id}: {e}"));
        // Ranges the source relies on (`M >= 10`) are facts.
        let mut assumes = Vec::new();
        if let Some(a) = case.get("assume").and_then(|a| a.as_object()) {
            for (sym, range) in a {
                if let Some(lo) = range.get(0).and_then(|v| v.as_i64()) {
                    assumes.push(format!("{sym} >= {lo}"));
                }
                if let Some(hi) = range.get(1).and_then(|v| v.as_i64()) {
                    assumes.push(format!("{sym} <= {hi}"));
                }
            }
        }
        let options = Facts {
            assumes,
            ..Facts::default()
        };
        let mut ctx = symdim::infer(&model, &options).into_context();
        let out = case["output_name"].as_str().unwrap_or("y");
        let errors = ctx
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        let shape = ctx.get(out).and_then(|f| f.shape.clone());
        let shown = match &shape {
            Some(s) => ctx.render_dims(s),
            None => "unknown rank".to_string(),
        };
        let expected = &case["expected"];
        let verdict: &str = if expected.get("error").is_some() {
            if errors > 0 {
                "error, as expected"
            } else {
                "MISSED ERROR"
            }
        } else {
            match (expected.get("output"), &shape) {
                (Some(serde_json::Value::Array(want)), Some(got)) if want.len() == got.len() => {
                    let mut ok = errors == 0;
                    for (w, g) in want.iter().zip(got) {
                        let w = match w {
                            serde_json::Value::Number(n) => n.to_string(),
                            serde_json::Value::String(s) if s == "?" => continue,
                            serde_json::Value::String(s) => s.clone(),
                            _ => continue,
                        };
                        ok &= match ctx.alg.parse(&w) {
                            Ok(d) => ctx.alg.equal(d, *g) == Truth::True,
                            Err(_) => false,
                        };
                    }
                    if ok {
                        "matches"
                    } else {
                        "MISMATCH"
                    }
                }
                (Some(serde_json::Value::Array(_)), _) => "MISMATCH",
                _ => "not pinned",
            }
        };
        let wrong = verdict.chars().next().is_some_and(|c| c.is_uppercase());
        let verdict = if wrong && KNOWN.iter().any(|(k, _)| k == id) {
            "known difference (see KNOWN)"
        } else {
            verdict
        };
        *counts.entry(verdict).or_default() += 1;
        if verdict.chars().next().is_some_and(|c| c.is_uppercase()) {
            mismatches.push(format!("{id}: {shown} vs {expected}"));
        }
        rows.push(format!("{id:<72} {out:<8} {shown:<32} {verdict}"));
    }
    let summary: Vec<String> = counts.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    let text = format!("{}\n\n{}\n", rows.join("\n"), summary.join(", "));
    println!("{text}");
    assert!(
        mismatches.is_empty(),
        "{} cases differ from their source:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
    common::snapshots().bind(|| insta::assert_snapshot!("small_models_table", text));
}
