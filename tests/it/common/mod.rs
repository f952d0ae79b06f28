//! Shared test helpers.
#![allow(dead_code)]

pub mod fixture;
pub mod models;
pub mod ort_cases;
pub mod pb;

/// insta settings for every snapshot of the suite: all `.snap` files live in the
/// top-level `snapshots/` folder. This is the one place that sets the path.
pub fn snapshots() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    s.set_prepend_module_to_snapshot(false);
    s
}

/// Print a line on stderr past the test harness's capture (which takes `eprintln!`),
/// so that a skip says why even when the test passes.
pub fn say(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// The target directory of the suite's nested cargo builds (`target/nested`): the
/// Python package's wheel and the C API's library, both in the `quick-release`
/// profile, so that they share one build of the library and its dependencies (and
/// `.ci/run` builds its hostile-input executable there too). It is not the directory
/// this test runs from, whose lock the running `cargo test` holds; the nested builds
/// wait on each other's lock instead.
pub fn nested_target_dir() -> std::path::PathBuf {
    let tmp = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    tmp.parent().unwrap_or(tmp).join("nested")
}

/// The shared corpus (`../shared/corpus`), when it is present next to the crate;
/// without it a test skips, saying so, and under CI (`CI` set) fails.
pub fn corpus() -> Option<std::path::PathBuf> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if p.is_dir() {
        return Some(p);
    }
    if std::env::var_os("CI").is_some() {
        panic!("the shared corpus is missing under CI: {}", p.display());
    }
    say("skipping: ../shared/corpus not found");
    None
}

/// The requirements an algebra recorded, as `(lhs <= rhs, kind, node)`.
pub fn requirements(alg: &symdim::algebra::Algebra) -> Vec<(String, &'static str, &str)> {
    alg.requirements()
        .iter()
        .map(|r| (requirement(r), r.kind, r.node.as_str()))
        .collect()
}

/// A requirement as it was recorded: `lhs <= rhs`.
pub fn requirement(r: &symdim::algebra::Requirement) -> String {
    format!("{} <= {}", r.recorded.0, r.recorded.1)
}

/// A relation as it was recorded: `lhs == rhs`.
pub fn relation(r: &symdim::algebra::Relation) -> String {
    format!("{} == {}", r.recorded.0, r.recorded.1)
}

/// The report of `model` inferred under `options`, without the contract's
/// constraints (`symdim infer` adds them).
pub fn report(model: &symdim::Model, options: &symdim::Facts) -> symdim::Report {
    symdim::Report::build(model, &symdim::infer(model, options).into_context())
}
