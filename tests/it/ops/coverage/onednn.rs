//! Every op kind of oneDNN Graph has a shape rule.
//!
//! `tests/fixtures/onednn/op_kinds.txt` lists every op kind (and its version, 1) of
//! oneDNN Graph's op schemas (`src/graph/interface/op_def.hpp` of uxlfoundation/oneDNN
//! at the commit named in the file). The test asks the registry for each kind in the
//! `onednn` domain, and checks that no `onednn` rule names a kind oneDNN does not have.

use symdim::ops::{rule_for, FAMILIES};

const LIST: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/onednn/op_kinds.txt"
);

/// (kind, version) of the checked-in list.
fn listed() -> Vec<(String, i64)> {
    let text = std::fs::read_to_string(LIST).expect("the op kind list");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut parts = l.split_whitespace();
            let kind = parts.next().expect("kind").to_string();
            let version = parts.next().expect("version").parse().expect("a version");
            (kind, version)
        })
        .collect()
}

#[test]
fn the_list_is_onednn_graphs_88_kinds() {
    let kinds = listed();
    assert_eq!(kinds.len(), 88);
    assert!(
        kinds.iter().all(|(_, v)| *v == 1),
        "every kind is version 1"
    );
    let mut names: Vec<&str> = kinds.iter().map(|(k, _)| k.as_str()).collect();
    names.dedup();
    assert_eq!(names.len(), 88, "no kind is listed twice");
}

#[test]
fn every_onednn_kind_has_a_rule() {
    let missing: Vec<String> = listed()
        .into_iter()
        .filter(|(kind, _)| rule_for("onednn", kind).is_none())
        .map(|(kind, _)| kind)
        .collect();
    assert!(
        missing.is_empty(),
        "{} oneDNN op kinds without a rule:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

#[test]
fn every_onednn_rule_is_a_kind() {
    let kinds: Vec<String> = listed().into_iter().map(|(k, _)| k).collect();
    let extra: Vec<&str> = FAMILIES
        .iter()
        .flat_map(|f| f.iter())
        .filter(|(domain, op, _)| *domain == "onednn" && !kinds.iter().any(|k| k == op))
        .map(|(_, op, _)| *op)
        .collect();
    assert!(
        extra.is_empty(),
        "onednn rules for unknown kinds: {extra:?}"
    );
}
