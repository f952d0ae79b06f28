//! Snapshots of symdim's reports on the oneDNN Graph and OpenVINO IR corpora (skipped without
//! `../shared/corpus`): the full text report of every oneDNN Graph JSON, and a
//! compact Reshape table of every OpenVINO IR model next to OpenVINO's baseline.
//!
//! Each snapshot is also checked here against the corpus itself: every tensor shape
//! of a oneDNN report equals the shape its JSON file records for that logical tensor
//! (where the file records one), and every static dim, rank and constant pattern
//! OpenVINO gives for a Reshape is what symdim has.

use crate::common;
use crate::common::fixture::read_json;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;
use symdim::graph::{ConstData, Model};
use symdim::read::load::load;
use symdim::report::{Report, ReportDim};
use symdim::Facts;

fn dims_text(dims: &[ReportDim]) -> String {
    let parts: Vec<String> = dims
        .iter()
        .map(|d| match d {
            ReportDim::Int(v) => v.to_string(),
            ReportDim::Expr(s) => s.to_string(),
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

/// A tensor's dims: the report's, or a constant's (constants are not in a report).
fn tensor_dims(report: &Report, model: &Model, name: &str) -> Option<Vec<ReportDim>> {
    match report.tensors.get(name) {
        Some(t) => t.shape.clone(),
        None => model
            .graph
            .initializers
            .get(name)
            .map(|c| c.dims.iter().map(|d| ReportDim::Int(*d)).collect()),
    }
}

/// A tensor's contents: the report's, or a constant's.
fn tensor_value(report: &Report, model: &Model, name: &str) -> Option<Vec<ReportDim>> {
    match report.tensors.get(name) {
        Some(t) => t.value.clone(),
        None => match &model.graph.initializers.get(name)?.data {
            ConstData::Ints(v) => Some(v.iter().map(|d| ReportDim::Int(*d)).collect()),
            _ => None,
        },
    }
}

fn shape_text(report: &Report, model: &Model, name: &str) -> String {
    match tensor_dims(report, model, name) {
        None => "unknown rank".to_string(),
        Some(dims) => dims_text(&dims),
    }
}

fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            json_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
}

/// Every logical tensor's shape as the file records it (`None` for the unknown
/// sentinel), by id.
fn recorded_shapes(file: &Value) -> HashMap<String, Option<Vec<i64>>> {
    let mut out = HashMap::new();
    for op in file["graph"].as_array().unwrap() {
        for lt in op["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .chain(op["outputs"].as_array().unwrap())
        {
            let dims: Vec<i64> = lt["shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_i64().unwrap())
                .collect();
            let known = dims.iter().all(|d| *d >= 0).then_some(dims);
            out.insert(lt["id"].as_u64().unwrap().to_string(), known);
        }
    }
    out
}

#[test]
fn onednn_reports() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let root = corpus.join("onednn-graph");
    let mut files = Vec::new();
    for sub in ["head", "related"] {
        json_files(&root.join(sub), &mut files);
    }
    files.sort();
    assert_eq!(files.len(), 18);
    let (mut checked, mut unknown) = (0, 0);
    for p in &files {
        let rel = p.strip_prefix(&root).unwrap().to_string_lossy().to_string();
        let mut model = load(p).unwrap_or_else(|e| panic!("{rel}: {e}"));
        model.path = format!("onednn-graph/{rel}");
        let report = common::report(&model, &Facts::default());
        // Every tensor of the report against the shape the file records for it.
        let recorded = recorded_shapes(&read_json(p));
        for (name, t) in &report.tensors {
            let want = recorded
                .get(name)
                .unwrap_or_else(|| panic!("{rel}: tensor {name} is not in the file"));
            let Some(want) = want else {
                unknown += 1;
                continue;
            };
            let want: Vec<ReportDim> = want.iter().map(|d| ReportDim::Int(*d)).collect();
            assert_eq!(t.shape.as_ref(), Some(&want), "{rel}: tensor {name}");
            checked += 1;
        }
        let name = format!(
            "onednn__{}",
            rel.trim_end_matches(".json").replace(['/', '\\'], "__")
        );
        let text = report.to_text();
        common::snapshots().bind(|| insta::assert_snapshot!(name, text));
    }
    println!("onednn: {checked} tensor shapes equal to the files' ({unknown} recorded as unknown)");
    assert!(checked > 0);
}

/// The dims of an OpenVINO partial shape string: `Some(v)` for a static dim, `None`
/// otherwise; `None` overall for a dynamic rank.
fn baseline_static_dims(s: &str) -> Option<Vec<Option<i64>>> {
    let s = s.trim().trim_start_matches('[').trim_end_matches(']');
    if s == "..." {
        return None;
    }
    if s.is_empty() {
        return Some(Vec::new());
    }
    Some(
        s.split(',')
            .map(|f| f.split('@').next().unwrap().parse::<i64>().ok())
            .collect(),
    )
}

/// Rank and every static dim of OpenVINO's shape are symdim's.
fn check_static(report: &Report, model: &Model, tensor: &str, baseline: &str, what: &str) {
    let Some(want) = baseline_static_dims(baseline) else {
        return;
    };
    let got = tensor_dims(report, model, tensor)
        .unwrap_or_else(|| panic!("{what}: no rank, OpenVINO {baseline}"));
    assert_eq!(got.len(), want.len(), "{what}: OpenVINO {baseline}");
    for (g, w) in got.iter().zip(&want) {
        if let Some(w) = w {
            assert_eq!(g, &ReportDim::Int(*w), "{what}: OpenVINO {baseline}");
        }
    }
}

#[test]
fn openvino_reshape_tables() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let root = corpus.join("openvino-ir");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("model.xml").exists())
        .collect();
    dirs.sort();
    assert_eq!(dirs.len(), 8);
    let mut rows = 0;
    for dir in &dirs {
        let id = dir.file_name().unwrap().to_string_lossy().to_string();
        let mut model = load(&dir.join("model.xml")).unwrap_or_else(|e| panic!("{id}: {e}"));
        model.path = format!("openvino-ir/{id}/model.xml");
        let report = common::report(&model, &Facts::default());
        let baseline = read_json(&dir.join("baseline.json"));
        let mut text = String::new();
        writeln!(
            text,
            "# {id}: friendly name | input shape (symdim) | pattern (baseline; = symdim's value when not constant in the IR) | symdim output | OpenVINO output"
        )
        .unwrap();
        for r in baseline["reshapes"].as_array().unwrap() {
            let name = r["name"].as_str().unwrap();
            let nodes: Vec<_> = model
                .graph
                .nodes
                .iter()
                .filter(|n| {
                    n.op_type == "Reshape"
                        && (n.name == name || n.name.starts_with(&format!("{name}#")))
                })
                .collect();
            assert_eq!(nodes.len(), 1, "{id}: Reshape `{name}`");
            let (input, pattern, output) = (
                &nodes[0].inputs[0],
                &nodes[0].inputs[1],
                &nodes[0].outputs[0],
            );
            let what = format!("{id} Reshape `{name}`");
            let ov_in = r["input"].as_str().unwrap();
            let ov_out = r["output"].as_str().unwrap();
            check_static(&report, &model, input, ov_in, &format!("{what} input"));
            check_static(&report, &model, output, ov_out, &format!("{what} output"));
            let value = tensor_value(&report, &model, pattern);
            let pattern_text = match &r["pattern"] {
                Value::Array(p) => {
                    let want: Vec<ReportDim> = p
                        .iter()
                        .map(|v| ReportDim::Int(v.as_i64().unwrap()))
                        .collect();
                    assert_eq!(value.as_ref(), Some(&want), "{what}: pattern");
                    dims_text(&want)
                }
                other => {
                    let s = other.as_str().unwrap().to_string();
                    match value {
                        Some(v) => format!("{s} = {}", dims_text(&v)),
                        None => s,
                    }
                }
            };
            writeln!(
                text,
                "{name} | {} | {pattern_text} | {} | {ov_out}",
                shape_text(&report, &model, input),
                shape_text(&report, &model, output)
            )
            .unwrap();
            rows += 1;
        }
        let snap = format!("openvino__{id}__reshapes");
        common::snapshots().bind(|| insta::assert_snapshot!(snap, text));
    }
    assert_eq!(rows, 273);
}
