//! Every (op, version) of the ONNX standard against onnxruntime, and the coverage
//! table `docs/ops/coverage.md`.
//!
//! `tests/fixtures/op_coverage/ort_cases.json` (written by `gen_ort_cases.py`
//! beside it) holds one-node models built from onnx's backend node tests,
//! re-targeted to each since_version of `tests/fixtures/onnx_ops/onnx_ops.txt`,
//! hex-encoded, whose data inputs have symbolic dims; and for the test's own
//! inputs and up to two more bindings of those symbols, the output shapes and
//! element types onnxruntime produced (`truth`: onnx's shape inference, or onnx's
//! reference implementation, where onnxruntime does not run the version). symdim
//! infers each model once; every output dim is evaluated at each binding (a `-1`
//! quotient through its definition) and compared, and the element type too.
//!
//! A dim that does not evaluate is a symbol of its own: allowed only for the ops
//! whose output sizes depend on the contents of their inputs ([`DATA_DEPENDENT`])
//! and the documented cases of [`VAGUE`]; a wrong value never is. A case where
//! onnxruntime departs from the ONNX specification is listed under `exceptions` in
//! the fixture, with the specification's words; one where symdim is known to be
//! wrong and the fix belongs elsewhere, in [`OPEN`].
//!
//! The table is written from the same fixture, the other onnxruntime and OpenVINO
//! fixtures and the rule registry; `the_coverage_table_is_current` fails when the
//! file differs (`SYMDIM_WRITE_COVERAGE=1` rewrites it).

use crate::common;

use common::fixture::ints;
use common::ort_cases::{binding, infer_model_case, load, verdict, Verdict};
use serde_json::Value;
use std::collections::BTreeMap;
use symdim::graph::DType;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/op_coverage/ort_cases.json"
);

/// The ops whose output sizes depend on the contents of their inputs (not only
/// on shapes and shape-like initializers): their data-dependent dims are fresh
/// symbols.
const DATA_DEPENDENT: &[&str] = &[
    "NonZero",
    "NonMaxSuppression",
    "Compress",
    "Unique",
    "StringSplit",
    "StringNormalizer",
    "ImageDecoder",
    // a loop-carried value keeps only the dims its body provably keeps; the
    // others may change from one iteration to the next (docs/ops/control-flow.md)
    "Loop",
    "Scan",
];

/// Cases whose outputs are less precise by design although their op's sizes do
/// not depend on data, by name prefix, with where the behaviour is documented.
const VAGUE: &[(&str, &str)] = &[(
    "resize_downsample_sizes_nearest_not_",
    "keep_aspect_ratio_policy over symbolic input dims: a fresh dim (docs/ops/nn.md)",
)];

/// Cases where symdim is known to disagree, left open (with the owner's file).
const OPEN: &[(&str, &str)] = &[];

/// What comparing every case found.
#[derive(Default)]
struct Compared {
    cases: usize,
    runs: usize,
    exact: usize,
    /// Per (domain, op, version): outputs (over runs) with data-dependent dims,
    /// and all outputs compared.
    per_version: BTreeMap<(String, String, i64), (usize, usize)>,
    /// "<case> <output>" -> the output's shape, for the less precise ones.
    vague: BTreeMap<String, String>,
    wrong: Vec<String>,
}

/// Infer every case once and compare every output at every run.
fn compare_all(doc: &Value) -> Compared {
    let exceptions = doc["exceptions"].as_object().cloned().unwrap_or_default();
    let mut out = Compared::default();
    for case in doc["cases"].as_array().unwrap() {
        out.cases += 1;
        let name = case["name"].as_str().unwrap();
        let op = case["op"].as_str().unwrap();
        let key = (
            case["domain"].as_str().unwrap().to_string(),
            op.to_string(),
            case["version"].as_i64().unwrap(),
        );
        let ctx = infer_model_case(case);
        let open = OPEN.iter().any(|(n, _)| *n == name);
        let excused = exceptions.contains_key(name) || open;
        let vague_ok = VAGUE.iter().any(|(pre, _)| name.starts_with(pre));
        let mut problems = 0;
        for d in &ctx.diagnostics {
            if d.severity == symdim::context::Severity::Error {
                problems += 1;
                if !excused {
                    out.wrong.push(format!("{name}: error diagnostic: {d}"));
                }
            }
        }
        for run in case["runs"].as_array().unwrap() {
            out.runs += 1;
            let bind = binding(run);
            for (o, want) in run["shapes"].as_object().unwrap() {
                let want = ints(want);
                let dtype = DType::from_i32(run["dtypes"][o].as_i64().unwrap() as i32);
                let tally = out.per_version.entry(key.clone()).or_default();
                tally.1 += 1;
                match verdict(&ctx, o, &want, dtype, &bind) {
                    Verdict::Exact => out.exact += 1,
                    Verdict::LessPrecise(what) => {
                        tally.0 += 1;
                        problems += 1;
                        if !DATA_DEPENDENT.contains(&op) && !excused && !vague_ok {
                            out.wrong.push(format!("{name}: less precise: {what}"));
                        }
                        out.vague.insert(format!("{name} {o}"), what);
                    }
                    Verdict::Wrong(what) if !excused => out.wrong.push(format!("{name}: {what}")),
                    Verdict::Wrong(_) => problems += 1,
                }
            }
        }
        if open && problems == 0 {
            out.wrong.push(format!(
                "{name}: listed in OPEN but now right: remove it there"
            ));
        }
    }
    out
}

#[test]
fn every_op_version_matches_onnxruntime() {
    let c = compare_all(&load(FIXTURE));
    eprintln!(
        "op coverage: cases {}, runs {}; outputs exact {}, data-dependent {}, wrong {}",
        c.cases,
        c.runs,
        c.exact,
        c.vague.len(),
        c.wrong.len()
    );
    assert!(
        c.wrong.is_empty(),
        "{} wrong:\n{}",
        c.wrong.len(),
        c.wrong.join("\n")
    );
}

// ----- the coverage table (docs/ops/coverage.md) ----------------------------------

const TABLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/ops/coverage.md");
const ONNX_OPS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/onnx_ops/onnx_ops.txt"
);
/// The other onnxruntime fixtures: (path, what reads it).
const OTHER_ORT: &[(&str, &str)] = &[
    ("tests/fixtures/nn/ort_cases.json", "ops/nn_ort.rs"),
    (
        "tests/fixtures/ops_more/ort_cases.json",
        "ops/scatter_generators.rs",
    ),
    (
        "tests/fixtures/ops_standard/ort_cases.json",
        "ops/onnx_families_ort.rs",
    ),
    (
        "tests/fixtures/ops_contrib/ort_cases.json",
        "ops/contrib.rs",
    ),
];
const OV_OPS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/openvino_ops/opset_ops.txt"
);
const OV_CASES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/openvino_ops/ov_cases.json"
);

/// Runtime-checked cases of one (domain, op, version).
#[derive(Default)]
struct Checked {
    ort: usize,
    onnx: usize,
    reference: usize,
    openvino: usize,
    /// Why onnxruntime did not run the cases checked against onnx instead.
    why: std::collections::BTreeSet<String>,
}

fn has_rule(domain: &str, op: &str) -> bool {
    symdim::ops::rule_for(domain, op).is_some()
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "**no**"
    }
}

/// (domain as listed, op, since_versions) of the ONNX standard.
fn onnx_listed() -> Vec<(String, String, Vec<i64>)> {
    std::fs::read_to_string(ONNX_OPS)
        .expect("the op list")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let p: Vec<&str> = l.split_whitespace().collect();
            let v = p[2].split(',').map(|v| v.parse().unwrap()).collect();
            (p[0].to_string(), p[1].to_string(), v)
        })
        .collect()
}

/// The key of a node met at opset `opset` of its domain: the since_version in
/// effect (ONNX domains), or the opset itself (others).
fn since(listed: &[(String, String, Vec<i64>)], domain: &str, op: &str, opset: i64) -> i64 {
    let dom = if domain.is_empty() { "ai.onnx" } else { domain };
    listed
        .iter()
        .find(|(d, o, _)| d == dom && o == op)
        .and_then(|(_, _, v)| v.iter().rev().find(|&&x| x <= opset).copied())
        .unwrap_or(opset)
}

/// Runtime-checked cases per (domain, op, version), from every fixture.
fn checked_cases(
    listed: &[(String, String, Vec<i64>)],
    doc: &Value,
) -> BTreeMap<(String, String, i64), Checked> {
    let mut out: BTreeMap<(String, String, i64), Checked> = BTreeMap::new();
    for case in doc["cases"].as_array().unwrap() {
        let key = (
            case["domain"].as_str().unwrap().to_string(),
            case["op"].as_str().unwrap().to_string(),
            case["version"].as_i64().unwrap(),
        );
        let e = out.entry(key).or_default();
        match case["truth"].as_str() {
            Some(truth @ ("onnx" | "onnx-reference")) => {
                if truth == "onnx" {
                    e.onnx += 1;
                } else {
                    e.reference += 1;
                }
                if let Some(why) = case["why"].as_str() {
                    e.why.insert(why.replace('|', "/"));
                }
            }
            _ => e.ort += 1,
        }
    }
    for (path, _) in OTHER_ORT {
        let doc = load(&format!("{}/{path}", env!("CARGO_MANIFEST_DIR")));
        for case in doc["cases"].as_array().unwrap() {
            let opset = case["opset"].as_i64().unwrap();
            let onnx_truth = case["truth"].as_str() == Some("onnx");
            // (domain, op, opset of its domain) of every node of the case
            let mut nodes: Vec<(String, String, i64)> = Vec::new();
            if let Some(hex) = case["model"].as_str() {
                let bytes: Vec<u8> = (0..hex.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                    .collect();
                let m =
                    symdim::load_bytes(&bytes, "case", &symdim::read::load::LoadOptions::default())
                        .unwrap();
                for n in &m.graph.nodes {
                    nodes.push((n.domain.clone(), n.op_type.to_string(), n.version));
                }
            } else {
                for n in case["nodes"].as_array().unwrap() {
                    let d = n["domain"].as_str().unwrap_or("").to_string();
                    let v = if d.is_empty() { opset } else { 1 };
                    nodes.push((d, n["op"].as_str().unwrap().to_string(), v));
                }
            }
            nodes.sort();
            nodes.dedup();
            for (d, op, v) in nodes {
                let dom = if d.is_empty() {
                    "ai.onnx".to_string()
                } else {
                    d.clone()
                };
                let key = (dom, op.clone(), since(listed, &d, &op, v));
                let e = out.entry(key).or_default();
                if onnx_truth {
                    e.onnx += 1
                } else {
                    e.ort += 1
                }
            }
        }
    }
    out
}

fn checked_text(c: Option<&Checked>) -> String {
    let mut parts = Vec::new();
    if let Some(c) = c {
        if c.ort > 0 {
            parts.push(format!("onnxruntime ({})", c.ort));
        }
        if c.openvino > 0 {
            parts.push(format!("OpenVINO runtime ({})", c.openvino));
        }
        if c.onnx > 0 {
            parts.push(format!("onnx shape inference ({})", c.onnx));
        }
        if c.reference > 0 {
            parts.push(format!("onnx reference implementation ({})", c.reference));
        }
    }
    if parts.is_empty() {
        "spec only".to_string()
    } else {
        parts.join(", ")
    }
}

/// Why (op, version) has no onnxruntime case: the generator's reasons, shortened.
fn reasons(entry: Option<&Value>) -> String {
    let Some(skipped) = entry.and_then(|e| e["skipped"].as_object()) else {
        return String::new();
    };
    let mut out: Vec<String> = Vec::new();
    if entry.and_then(|e| e["cpu_kernel"].as_bool()) == Some(false) {
        out.push("onnxruntime's CPU provider has no kernel for this version".to_string());
    }
    for k in skipped.keys() {
        if k.contains("has no kernel") {
            continue;
        }
        let k = k.split(": [ONNXRuntimeError]").next().unwrap_or(k);
        out.push(k.replace('|', "/"));
    }
    out.dedup();
    out.join("; ")
}

#[derive(Default)]
struct Tally {
    ops: std::collections::BTreeSet<String>,
    versions: usize,
    rule: usize,
    runtime: usize,
    onnx_only: usize,
}

impl Tally {
    fn add(&mut self, op: &str, rule: bool, c: Option<&Checked>) {
        self.ops.insert(op.to_string());
        self.versions += 1;
        self.rule += rule as usize;
        match c {
            Some(c) if c.ort + c.openvino > 0 => self.runtime += 1,
            Some(c) if c.onnx + c.reference > 0 => self.onnx_only += 1,
            _ => {}
        }
    }

    fn row(&self, what: &str) -> String {
        format!(
            "| {what} | {} | {} | {} | {} | {} | {} |\n",
            self.ops.len(),
            self.versions,
            self.rule,
            self.runtime,
            self.onnx_only,
            self.versions - self.runtime - self.onnx_only
        )
    }
}

/// The text of `docs/ops/coverage.md`.
fn coverage_table() -> String {
    let doc = load(FIXTURE);
    let listed = onnx_listed();
    let checked = checked_cases(&listed, &doc);
    let compared = compare_all(&doc);
    let entries: BTreeMap<(String, String, i64), &Value> = doc["coverage"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                (
                    e["domain"].as_str().unwrap().to_string(),
                    e["op"].as_str().unwrap().to_string(),
                    e["version"].as_i64().unwrap(),
                ),
                e,
            )
        })
        .collect();
    // case names per (op, version)
    let mut names: BTreeMap<(&str, i64), Vec<&str>> = BTreeMap::new();
    for case in doc["cases"].as_array().unwrap() {
        let key = (
            case["op"].as_str().unwrap(),
            case["version"].as_i64().unwrap(),
        );
        names
            .entry(key)
            .or_default()
            .push(case["name"].as_str().unwrap());
    }
    let mut tallies: Vec<(String, Tally)> = Vec::new();
    let mut sections = String::new();
    let header =
        "| op | version | rule | checked against | notes |\n| --- | --- | --- | --- | --- |\n";
    // ONNX domains
    for dom in [
        "ai.onnx",
        "ai.onnx.ml",
        "ai.onnx.preview.training",
        "ai.onnx.preview",
    ] {
        let mut t = Tally::default();
        sections.push_str(&format!("\n## ONNX `{dom}`\n\n{header}"));
        for (d, op, versions) in listed.iter().filter(|(d, _, _)| d == dom) {
            let rule = has_rule(d, op);
            for v in versions {
                let key = (d.clone(), op.clone(), *v);
                let c = checked.get(&key);
                t.add(op, rule, c);
                let mut notes = Vec::new();
                for name in names.get(&(op.as_str(), *v)).into_iter().flatten() {
                    for (pre, why) in VAGUE.iter().chain(OPEN) {
                        let note = format!("`{name}`: {why}");
                        if name.starts_with(pre) && !notes.contains(&note) {
                            notes.push(note);
                        }
                    }
                }
                if let Some((less, all)) = compared.per_version.get(&key).filter(|t| t.0 > 0) {
                    let what = if matches!(op.as_str(), "Loop" | "Scan") {
                        "loop-carried dims the body does not provably keep"
                    } else {
                        "data-dependent dims"
                    };
                    notes.push(format!(
                        "{what} (fresh symbols) in {less} of {all} outputs compared"
                    ));
                }
                if c.map_or(true, |c| c.ort == 0) {
                    notes.extend(c.iter().flat_map(|c| c.why.iter().cloned()));
                    let r = reasons(entries.get(&key).copied());
                    if !r.is_empty() {
                        notes.push(r);
                    }
                }
                if notes
                    .iter()
                    .any(|n| n.contains("CPU provider has no kernel"))
                {
                    notes.retain(|n| n != "onnxruntime has no kernel for this version or type");
                }
                sections.push_str(&format!(
                    "| {op} | {v} | {} | {} | {} |\n",
                    yes_no(rule),
                    checked_text(c),
                    notes.join("; ")
                ));
            }
        }
        tallies.push((format!("ONNX `{dom}`"), t));
    }
    // the other registry domains: com.microsoft, then oneDNN
    for (dom, title) in [
        ("com.microsoft", "onnxruntime `com.microsoft`"),
        ("onednn", "oneDNN Graph"),
    ] {
        let mut ops: Vec<&str> = symdim::ops::FAMILIES
            .iter()
            .flat_map(|f| f.iter())
            .filter(|(d, _, _)| *d == dom)
            .map(|(_, op, _)| *op)
            .collect();
        ops.sort();
        ops.dedup();
        let mut t = Tally::default();
        sections.push_str(&format!("\n## {title}\n\n{header}"));
        for op in ops {
            let c = checked.get(&(dom.to_string(), op.to_string(), 1));
            t.add(op, true, c);
            let cpu = doc["contrib_cpu_kernels"]
                .as_array()
                .unwrap()
                .iter()
                .any(|k| k.as_str() == Some(op));
            let note = if dom == "onednn" {
                "oneDNN Graph has no runtime in the suite"
            } else if c.is_some() {
                ""
            } else if cpu {
                "no onnxruntime case yet"
            } else {
                "onnxruntime's CPU provider has no kernel (other execution providers only)"
            };
            sections.push_str(&format!(
                "| {op} | 1 | yes | {} | {note} |\n",
                checked_text(c)
            ));
        }
        tallies.push((title.to_string(), t));
    }
    // OpenVINO opsets 1-16
    let ov = load(OV_CASES);
    let ov_list: Vec<(String, i64)> = std::fs::read_to_string(OV_OPS)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (n, v) = l.rsplit_once('-').unwrap();
            (n.to_string(), v.parse().unwrap())
        })
        .collect();
    let mut ov_checked: BTreeMap<(String, i64), Checked> = BTreeMap::new();
    for case in ov["cases"].as_array().unwrap() {
        let op = case["op"].as_str().unwrap();
        let opset = case["opset"].as_i64().unwrap();
        let v = ov_list
            .iter()
            .filter(|(n, v)| n == op && *v <= opset)
            .map(|(_, v)| *v)
            .max()
            .unwrap_or(opset);
        ov_checked.entry((op.to_string(), v)).or_default().openvino += 1;
    }
    let mut t = Tally::default();
    sections.push_str(&format!("\n## OpenVINO IR (opsets 1 to 16)\n\n{header}"));
    for (op, v) in &ov_list {
        let reader = matches!(op.as_str(), "Parameter" | "Constant" | "Result");
        let rule = reader || has_rule("openvino", op);
        let c = ov_checked.get(&(op.clone(), *v));
        t.add(op, rule, c);
        let note = if reader { "read by the IR reader" } else { "" };
        sections.push_str(&format!(
            "| {op} | {v} | {} | {} | {note} |\n",
            yes_no(rule),
            checked_text(c)
        ));
    }
    tallies.push(("OpenVINO IR".to_string(), t));

    let mut out = String::from(
        "# Op coverage\n\n\
         Every op and version symdim knows, per format: whether it has a shape rule, and what \
         its rule is checked against. Written by `tests/it/ops/coverage/ort.rs` from the rule \
         registry (`symdim::ops::FAMILIES`) and the runtime fixtures, and checked there to \
         stay in sync: after a change, regenerate it with\n\n\
         ```sh\nSYMDIM_WRITE_COVERAGE=1 cargo test --test it ops::coverage::ort\n```\n\n\
         - **onnxruntime (N)**: N one-node (or small) models run with onnxruntime's CPU \
         provider; every output dim symdim infers, evaluated at each run's binding, and the \
         element type equal what onnxruntime produced. The cases come from \
         `tests/fixtures/op_coverage/` (onnx's backend node tests re-targeted to each \
         version) and the fixtures of `tests/it/ops/nn_ort.rs`, `tests/it/ops/scatter_generators.rs`, \
         `tests/it/ops/onnx_families_ort.rs` and `tests/it/ops/contrib.rs`.\n\
         - **OpenVINO runtime (N)**: N IR models compiled by OpenVINO \
         (`tests/fixtures/openvino_ops/ov_cases.json`, `tests/it/ops/openvino.rs`).\n\
         - **onnx shape inference (N)**: onnxruntime does not run that version (no kernel, \
         or it rejects the model: the notes say why); N models compared with onnx's own shape \
         inference at the bound dims instead.\n\
         - **onnx reference implementation (N)**: as above where onnx's shape inference gives \
         no static shape (old schemas have none): N models run with `onnx.reference`, which \
         picks its implementation by the opset and refuses a version it has none for.\n\
         - **spec only**: the rule follows the specification and the unit tests of its \
         family (`docs/ops/`), with no runtime case.\n\n\
         Notes give why a version has no onnxruntime case (as the generator recorded it), in \
         how many of the outputs compared symdim answers with fresh symbols (dims that depend \
         on the data, never a wrong value), and the cases whose imprecision is documented or \
         left open.\n\n\
         ## Summary\n\n\
         | format | ops | (op, version) | with a rule | runtime-checked | onnx only | spec only |\n\
         | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for (what, t) in &tallies {
        out.push_str(&t.row(what));
    }
    out.push_str(&sections);
    out
}

#[test]
fn the_coverage_table_is_current() {
    let text = coverage_table();
    if std::env::var_os("SYMDIM_WRITE_COVERAGE").is_some() {
        std::fs::write(TABLE, &text).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(TABLE).unwrap_or_default();
    assert!(
        on_disk == text,
        "docs/ops/coverage.md is out of date: regenerate it with \
         SYMDIM_WRITE_COVERAGE=1 cargo test --test it ops::coverage::ort"
    );
}
