//! The documentation stays in step with the code.

use symdim::algebra::rules::RULES;

#[test]
fn every_rule_is_documented() {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/rules.md")).unwrap();
    for r in RULES {
        assert!(
            doc.contains(&format!("| `{}` |", r.name)),
            "docs/rules.md does not list rule `{}`",
            r.name
        );
    }
    let rows = doc.lines().filter(|l| l.starts_with("| `")).count();
    assert_eq!(
        rows,
        RULES.len(),
        "docs/rules.md lists a rule the table does not have"
    );
}

#[test]
fn the_readme_commands_are_the_ones_ci_runs() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let ci = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/run")).unwrap();
    assert!(readme.contains("cargo run --release -- infer examples/attention.onnx"));
    assert!(readme.contains("\ncargo test\n"));
    assert!(ci.contains("cargo test"));
    assert!(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/attention.onnx"
    ))
    .exists());
}
