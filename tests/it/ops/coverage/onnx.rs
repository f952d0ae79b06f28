//! Every operator of the ONNX standard has a shape rule.
//!
//! `tests/fixtures/onnx_ops/onnx_ops.txt` lists every (domain, op, since_version)
//! of onnx 1.23.2's operator schemas (`onnx.defs.get_all_schemas_with_history()`),
//! written by `scripts/onnx_op_coverage.py`. A rule serves every version of its op
//! (it reads `node.version`), so the test asks the registry for each (domain, op).

use symdim::ops::{rule_for, FAMILIES};

const LIST: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/onnx_ops/onnx_ops.txt"
);

/// (domain, op, since_versions) of the checked-in list.
fn listed() -> Vec<(String, String, Vec<i64>)> {
    let text = std::fs::read_to_string(LIST).expect("the op list");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut parts = l.split_whitespace();
            let domain = parts.next().expect("domain").to_string();
            let op = parts.next().expect("op").to_string();
            let versions = parts
                .next()
                .expect("versions")
                .split(',')
                .map(|v| v.parse().expect("a version"))
                .collect();
            (domain, op, versions)
        })
        .collect()
}

#[test]
fn the_list_is_onnx_1_23_2() {
    let ops = listed();
    let count = |d: &str| ops.iter().filter(|(domain, _, _)| domain == d).count();
    let versions = |d: &str| -> usize {
        ops.iter()
            .filter(|(domain, _, _)| domain == d)
            .map(|(_, _, v)| v.len())
            .sum()
    };
    assert_eq!((count("ai.onnx"), versions("ai.onnx")), (203, 629));
    assert_eq!((count("ai.onnx.ml"), versions("ai.onnx.ml")), (19, 25));
    assert_eq!(count("ai.onnx.preview.training"), 4);
    assert_eq!(count("ai.onnx.preview"), 1);
}

#[test]
fn every_onnx_op_has_a_rule() {
    let missing: Vec<String> = listed()
        .into_iter()
        .filter(|(domain, op, _)| rule_for(domain, op).is_none())
        .map(|(domain, op, v)| format!("{domain} {op} {v:?}"))
        .collect();
    assert!(
        missing.is_empty(),
        "{} ONNX ops without a rule:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

/// Print every registered (domain, op), for `scripts/onnx_op_coverage.py`.
#[test]
#[ignore]
fn registry_listing() {
    for fam in FAMILIES {
        for (domain, op, _) in fam.iter() {
            println!("rule {domain} {op}");
        }
    }
}
