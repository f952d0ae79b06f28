//! The crate's layers only look down (`docs/architecture.md`): every `crate::…` path in
//! the code of a module names a module of its own layer or a lower one. Comments are
//! not code and are not checked.

use std::collections::BTreeSet;
use std::path::Path;

/// Each top-level module and the modules its code may name. The order is the
/// pipeline: algebra ← graph ← readers (which open files through `files`); graph ← oprules ← context ← ops ← infer ← contracts,
/// check, explain ← report ← load and the facade.
const LAYERS: &[(&str, &[&str])] = &[
    ("algebra", &[]),
    ("files", &[]),
    ("graph", &["algebra"]),
    ("onnx", &["graph", "files"]),
    ("openvino", &["graph", "files"]),
    ("onednn", &["graph", "files"]),
    ("oprules", &["algebra", "graph", "files"]),
    ("context", &["algebra", "graph", "oprules"]),
    ("facts", &["algebra", "graph", "oprules"]),
    ("ops", &["algebra", "graph", "context", "oprules"]),
    ("shapes_api", &["algebra", "graph", "context", "ops"]),
    (
        "infer",
        &["algebra", "graph", "context", "facts", "ops", "oprules"],
    ),
    (
        "contracts",
        &["algebra", "graph", "context", "facts", "ops", "infer"],
    ),
    (
        "check",
        &[
            "algebra",
            "graph",
            "context",
            "facts",
            "ops",
            "infer",
            "contracts",
        ],
    ),
    (
        "explain",
        &[
            "algebra",
            "graph",
            "context",
            "facts",
            "ops",
            "infer",
            "contracts",
        ],
    ),
    (
        "report",
        &["algebra", "graph", "context", "facts", "infer", "contracts"],
    ),
    (
        "annotate",
        &["algebra", "graph", "ops", "onnx", "report", "files"],
    ),
    (
        "load",
        &["algebra", "graph", "onnx", "openvino", "onednn", "files"],
    ),
    (
        "shapes",
        &[
            "algebra",
            "graph",
            "context",
            "facts",
            "infer",
            "contracts",
            "report",
            "load",
        ],
    ),
];

/// The top-level modules named by `crate::name` in the code (not the comments) of
/// `text`.
fn named_modules(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let code = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            rest = &rest[i + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
    out
}

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn layers_only_look_down() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    files(&src, &mut all);
    all.sort();
    let mut checked = 0;
    let mut wrong = Vec::new();
    for path in &all {
        let rel = path.strip_prefix(&src).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if top == "lib" || top == "main" {
            continue;
        }
        let Some((_, allowed)) = LAYERS.iter().find(|(m, _)| *m == top) else {
            wrong.push(format!("{}: module `{top}` has no layer", rel.display()));
            continue;
        };
        let text = std::fs::read_to_string(path).unwrap();
        for m in named_modules(&text) {
            if m != top && !allowed.contains(&m.as_str()) {
                wrong.push(format!("{}: `{top}` names `crate::{m}`", rel.display()));
            }
        }
        checked += 1;
    }
    assert!(checked > 40, "only {checked} files checked");
    assert!(wrong.is_empty(), "back-edges:\n{}", wrong.join("\n"));
}

#[test]
fn the_check_sees_a_back_edge() {
    let text =
        "use crate::graph::Node;\n// crate::report in a comment\nfn f() { crate::infer::run(); }";
    let found: Vec<String> = named_modules(text).into_iter().collect();
    assert_eq!(found, ["graph", "infer"]);
}
