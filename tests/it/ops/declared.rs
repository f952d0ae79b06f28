//! Declared shape rules (`--op-rules`, `docs/op-rules.md`): custom ops inferred from a
//! rules file, the example file for onnxruntime-extensions, precedence over built-in
//! rules, and the diagnostics of a rule that does not fit a node.

use crate::common;

use common::pb::{value_info, Msg};
use symdim::{Facts, OpRules};

/// An `AttributeProto`: an int (`type` 2) or ints (`type` 7).
enum A<'a> {
    Int(&'a str, i64),
    Ints(&'a str, &'a [i64]),
}

fn attr(a: &A) -> Msg {
    match a {
        A::Int(name, v) => Msg::new().str(1, name).int(3, *v).int(20, 2),
        A::Ints(name, vs) => vs
            .iter()
            .fold(Msg::new().str(1, name), |m, v| m.int(8, *v))
            .int(20, 7),
    }
}

/// A `NodeProto` of `domain` with attributes.
fn node(name: &str, domain: &str, op: &str, inputs: &[&str], outputs: &[&str], attrs: &[A]) -> Msg {
    let mut n = common::pb::node(name, op, inputs, outputs);
    for a in attrs {
        n = n.msg(5, attr(a));
    }
    n.str(7, domain)
}

/// A model importing the default domain (opset 17) and each of `domains` (version 1),
/// serialized.
fn model_bytes(nodes: Vec<Msg>, inputs: Vec<Msg>, outputs: Vec<Msg>, domains: &[&str]) -> Vec<u8> {
    let g = common::pb::graph(nodes, vec![], inputs, outputs, vec![]);
    let mut m = Msg::new()
        .int(1, 8)
        .msg(8, Msg::new().str(1, "").int(2, 17));
    for d in domains {
        m = m.msg(8, Msg::new().str(1, d).int(2, 1));
    }
    m.msg(7, g).0
}

/// [`model_bytes`], loaded.
fn model(nodes: Vec<Msg>, inputs: Vec<Msg>, outputs: Vec<Msg>, domains: &[&str]) -> symdim::Model {
    load(&model_bytes(nodes, inputs, outputs, domains))
}

fn load(bytes: &[u8]) -> symdim::Model {
    symdim::load_bytes(bytes, "model.onnx", &Default::default()).expect("the test model loads")
}

const STRING: i64 = 8;
const INT64: i64 = 7;
const BOOL: i64 = 9;
const FLOAT: i64 = 1;

/// A text pipeline of onnxruntime-extensions ops (domain `ai.onnx.contrib`) with
/// standard ops after them.
fn text_model() -> symdim::Model {
    load(&text_model_bytes())
}

fn text_model_bytes() -> Vec<u8> {
    model_bytes(
        vec![
            node(
                "replace",
                "ai.onnx.contrib",
                "StringRegexReplace",
                &["text", "pattern", "rewrite"],
                &["replaced"],
                &[A::Int("global_replace", 1)],
            ),
            node(
                "length",
                "ai.onnx.contrib",
                "StringLength",
                &["replaced"],
                &["lengths"],
                &[],
            ),
            node(
                "double",
                "",
                "Add",
                &["lengths", "lengths"],
                &["twice"],
                &[],
            ),
            node(
                "to_string",
                "ai.onnx.contrib",
                "VectorToString",
                &["codes"],
                &["words"],
                &[],
            ),
            node(
                "fill",
                "ai.onnx.contrib",
                "MaskedFill",
                &["words", "mask"],
                &["kept"],
                &[],
            ),
        ],
        vec![
            value_info("text", STRING, Some(&["batch", "n"])),
            value_info("pattern", STRING, Some(&[])),
            value_info("rewrite", STRING, Some(&[])),
            value_info("codes", INT64, Some(&["batch", "4"])),
            value_info("mask", BOOL, Some(&["batch"])),
        ],
        vec![
            value_info("twice", INT64, None),
            value_info("kept", STRING, None),
        ],
        &["ai.onnx.contrib"],
    )
}

const EXAMPLE_RULES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/examples/op_rules/onnxruntime_extensions.txt"
);

fn example_rules() -> OpRules {
    OpRules::from_file(std::path::Path::new(EXAMPLE_RULES)).expect("the example rules read")
}

fn shape(r: &symdim::Report, name: &str) -> Option<String> {
    let dims = r.tensors.get(name)?.shape.as_ref()?;
    let dims: Vec<String> = dims
        .iter()
        .map(|d| match d {
            symdim::report::ReportDim::Int(v) => v.to_string(),
            symdim::report::ReportDim::Expr(e) => e.to_string(),
        })
        .collect();
    Some(format!("[{}]", dims.join(", ")))
}

#[test]
fn the_example_rules_infer_the_extensions_ops() {
    let m = text_model();
    let before = common::report(&m, &Facts::new());
    let after = common::report(&m, &Facts::new().with_op_rules(example_rules()));
    assert_eq!(shape(&before, "lengths"), None);
    assert_eq!(shape(&before, "twice"), None);
    assert_eq!(shape(&after, "replaced").as_deref(), Some("[batch, n]"));
    assert_eq!(shape(&after, "lengths").as_deref(), Some("[batch, n]"));
    assert_eq!(shape(&after, "twice").as_deref(), Some("[batch, n]"));
    assert_eq!(shape(&after, "words").as_deref(), Some("[batch]"));
    assert_eq!(shape(&after, "kept").as_deref(), Some("[unk0]"));
    assert!(!after.has_errors());
    let text = format!(
        "--- without rules\n{}--- with examples/op_rules/onnxruntime_extensions.txt\n{}",
        before.to_text(),
        after.to_text()
    );
    common::snapshots().bind(|| insta::assert_snapshot!("op_rules_extensions_report", text));
}

/// A custom pool over the last axis: attributes with defaults, a requirement, and a
/// second output holding the first one's shape as its contents.
const POOL_RULES: &str = "\
op com.example:LastAxisPool version 1..2
  attr stride = 2
  require in0[-1] % @stride == 0
  require rank(in0) >= 2
  output dtype=in0 shape=[in0[:-1], in0[-1] / @stride]
  output dtype=int64 shape=[rank(in0)] value=[in0[:-1], in0[-1] / @stride]
";

fn pool_model(dims: &[&str], attrs: &[A], version_domain: &str) -> symdim::Model {
    model(
        vec![
            node(
                "pool",
                version_domain,
                "LastAxisPool",
                &["x"],
                &["y", "y_shape"],
                attrs,
            ),
            node("reshape", "", "Reshape", &["y", "y_shape"], &["z"], &[]),
        ],
        vec![value_info("x", FLOAT, Some(dims))],
        vec![value_info("z", FLOAT, None)],
        &[version_domain],
    )
}

#[test]
fn a_rule_with_attributes_requirements_and_values() {
    let rules = OpRules::parse(POOL_RULES).unwrap();
    let facts = Facts::new().with_op_rules(rules);
    // Default stride 2; `W % 2 == 0` is assumed, with a warning.
    let r = common::report(&pool_model(&["N", "W"], &[], "com.example"), &facts);
    assert_eq!(shape(&r, "y").as_deref(), Some("[N, W/2]"));
    assert_eq!(shape(&r, "y_shape").as_deref(), Some("[2]"));
    // Reshape reads the declared contents.
    assert_eq!(shape(&r, "z").as_deref(), Some("[N, W/2]"));
    let text = r.to_text();
    assert!(!r.has_errors(), "{text}");
    // One warning: the requirement; the division it makes exact says nothing more.
    assert!(
        text.contains(
            "warning at pool: LastAxisPool-1: op rule at <text>:3: require in0[-1] % @stride == 0: \
             mod(W, 2) and 0 assumed equal (valid when mod(W, 2) == 0)"
        ),
        "{text}"
    );
    assert_eq!(text.matches("warning").count(), 1, "{text}");
    // stride 3 given as an attribute, and a width it divides.
    let r = common::report(
        &pool_model(&["N", "12"], &[A::Int("stride", 3)], "com.example"),
        &facts,
    );
    assert_eq!(shape(&r, "y").as_deref(), Some("[N, 4]"));
    assert!(!r.has_errors(), "{}", r.to_text());
    // A width the stride provably does not divide.
    let r = common::report(
        &pool_model(&["N", "7"], &[A::Int("stride", 3)], "com.example"),
        &facts,
    );
    assert!(r.has_errors());
    let msg = r.to_text();
    assert!(
        msg.contains(
            "error at pool: LastAxisPool-1 (stride=3): op rule at <text>:3: \
             require in0[-1] % @stride == 0 does not hold: 1 == 0 is false"
        ),
        "{msg}"
    );
}

#[test]
fn failures_name_the_node_the_op_and_what_failed() {
    let rules = OpRules::parse_named(
        "op com.example:A\n  output shape=[in0[2]]\n\
         op com.example:B\n  output shape=[in1[0]]\n\
         op com.example:C\n  output shape=[@k]\n\
         op com.example:D\n  output shape=[@k]\n",
        "rules.txt",
    )
    .unwrap();
    let m = model(
        vec![
            node("a", "com.example", "A", &["x"], &["ya"], &[]),
            node("b", "com.example", "B", &["x"], &["yb"], &[]),
            node("c", "com.example", "C", &["x"], &["yc"], &[]),
            node(
                "d",
                "com.example",
                "D",
                &["x"],
                &["yd"],
                &[A::Ints("k", &[1, 2])],
            ),
            node("after", "", "Relu", &["x"], &["ok"], &[]),
        ],
        vec![value_info("x", FLOAT, Some(&["N", "M"]))],
        vec![value_info("ok", FLOAT, None)],
        &["com.example"],
    );
    let r = common::report(&m, &Facts::new().with_op_rules(rules));
    let text = r.to_text();
    for expected in [
        "error at a: A-1: op rule at rules.txt:2: in0[2]: input 0 has rank 2",
        "error at b: B-1: op rule at rules.txt:4: input 1 is referenced but the node has none",
        "error at c: C-1: op rule at rules.txt:6: attribute `k` is missing and the rule gives no default",
        "error at d: D-1 (k=[1, 2]): op rule at rules.txt:8: @k: attribute `k` is ints, expected int",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
    // The rest of the model is still inferred.
    assert_eq!(shape(&r, "ok").as_deref(), Some("[N, M]"));
}

#[test]
fn a_declared_rule_wins_over_a_built_in_one() {
    let m = model(
        vec![node("relu", "", "Relu", &["x"], &["y"], &[])],
        vec![value_info("x", FLOAT, Some(&["N", "M"]))],
        vec![value_info("y", FLOAT, None)],
        &[],
    );
    assert!(symdim::ops::rule_for("", "Relu").is_some());
    let built_in = common::report(&m, &Facts::new());
    assert_eq!(shape(&built_in, "y").as_deref(), Some("[N, M]"));
    // A deliberately different rule, to see which one ran.
    let rules =
        OpRules::parse("op ai.onnx:Relu version 14..\n output shape=[in0[1], 2*in0[0]]\n").unwrap();
    let declared = common::report(&m, &Facts::new().with_op_rules(rules.clone()));
    assert_eq!(shape(&declared, "y").as_deref(), Some("[M, 2*N]"));
    // Outside its versions (the model's opset is 17, Relu's version 14) it does not
    // apply.
    let old = OpRules::parse("op Relu version 1..13\n output shape=[in0[1]]\n").unwrap();
    let r = common::report(&m, &Facts::new().with_op_rules(old));
    assert_eq!(shape(&r, "y").as_deref(), Some("[N, M]"));
}

#[test]
fn the_version_range_selects_the_rule() {
    let rules = OpRules::parse(
        "op com.example:LastAxisPool version 1\n output shape=[1]\n\
         op com.example:LastAxisPool version 2..\n output shape=[2]\n",
    )
    .unwrap();
    let m = pool_model(&["N", "W"], &[], "com.example");
    let r = common::report(&m, &Facts::new().with_op_rules(rules));
    // The model imports com.example version 1; the rule declares one output and the
    // node has two.
    let text = r.to_text();
    assert!(
        text.contains("op rule at <text>:1: the rule declares 1 outputs, the node has 2"),
        "{text}"
    );
}

// ----- the command line ------------------------------------------------------

fn symdim(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_symdim"))
        .args(args)
        .output()
        .expect("run symdim")
}

fn tmp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("symdim-op-rules-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn every_inferring_command_takes_op_rules() {
    let model = tmp("text.onnx");
    std::fs::write(&model, text_model_bytes()).unwrap();
    let model = model.to_str().unwrap();
    let out = symdim(&["infer", model, "--op-rules", EXAMPLE_RULES]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("lengths   i64    [batch, n]"), "{text}");
    assert!(!text.contains("no shape rule"), "{text}");
    let out = symdim(&[
        "infer",
        model,
        "--format",
        "json",
        "--op-rules",
        EXAMPLE_RULES,
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["tensors"]["words"]["shape"], serde_json::json!(["batch"]));
    // Without the rules the same model has no shapes for the custom ops.
    let text = String::from_utf8(symdim(&["infer", model]).stdout).unwrap();
    assert!(
        text.contains("no shape rule for ai.onnx.contrib:StringLength-1"),
        "{text}"
    );
    let out = symdim(&["explain", model, "twice[1]", "--op-rules", EXAMPLE_RULES]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let out = symdim(&["constraints", model, "--op-rules", EXAMPLE_RULES]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let out = symdim(&[
        "check",
        model,
        "--bind",
        "batch=2",
        "--bind",
        "n=3",
        "--op-rules",
        EXAMPLE_RULES,
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

#[test]
fn op_rules_files_add_up() {
    let model = tmp("pool.onnx");
    std::fs::write(
        &model,
        model_bytes(
            vec![
                node(
                    "pool",
                    "com.example",
                    "LastAxisPool",
                    &["x"],
                    &["y", "y_shape"],
                    &[],
                ),
                node(
                    "length",
                    "ai.onnx.contrib",
                    "StringLength",
                    &["s"],
                    &["l"],
                    &[],
                ),
            ],
            vec![
                value_info("x", FLOAT, Some(&["N", "8"])),
                value_info("s", STRING, Some(&["N"])),
            ],
            vec![value_info("y", FLOAT, None)],
            &["com.example", "ai.onnx.contrib"],
        ),
    )
    .unwrap();
    let pool = tmp("pool.txt");
    std::fs::write(&pool, POOL_RULES).unwrap();
    let pool = pool.to_str().unwrap();
    let infer_with = |rules: &str| {
        let model = model.to_str().unwrap();
        symdim(&["infer", model, "--op-rules", pool, "--op-rules", rules])
    };
    let out = infer_with(EXAMPLE_RULES);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("y        f32    [N, 4]"), "{text}");
    assert!(text.contains("l        i64    [N]"), "{text}");
    // The same file twice: its rules overlap.
    let out = infer_with(pool);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("overlaps the one at"), "{err}");
}

#[test]
fn a_bad_rules_file_is_a_usage_error_before_any_work() {
    let bad = tmp("bad.txt");
    std::fs::write(&bad, "op com.example:A\n  output shape=[in0[0] +]\n").unwrap();
    let bad = bad.to_str().unwrap();
    // The model does not exist: the rules are read first.
    for cmd in ["infer", "constraints", "explain", "check"] {
        let mut args = vec![cmd, "/nonexistent/model.onnx"];
        if cmd == "explain" {
            args.push("y");
        }
        args.extend(["--op-rules", bad]);
        let out = symdim(&args);
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(
            err,
            format!("symdim: {bad}:2: `in0[0] +` does not parse: expected a number, a name or `(` at byte 8\n"),
            "{cmd}"
        );
        assert!(out.stdout.is_empty());
    }
    let out = symdim(&[
        "infer",
        "/nonexistent/model.onnx",
        "--op-rules",
        "/nonexistent/rules.txt",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("symdim: /nonexistent/rules.txt: cannot read the op rules: "),
        "{err}"
    );
}

// ----- applying random rules never panics ------------------------------------

/// An i64 vector of length `len` holding `value` (a shape tensor).
fn int_vector(
    len: symdim::algebra::Dim,
    value: Vec<symdim::algebra::Dim>,
) -> symdim::context::TensorFact {
    symdim::context::TensorFact {
        fill: None,
        dtype: symdim::graph::DType::Int64,
        shape: Some(vec![len]),
        value: Some(value),
    }
}

mod props {
    use proptest::prelude::*;
    use symdim::context::{ShapesContext, TensorFact};
    use symdim::graph::{Attr, DType, Node};

    /// An operand of a random expression: references of every kind (some out of
    /// range, some of attributes of the wrong kind or missing), and constants.
    fn operand() -> impl Strategy<Value = String> {
        prop_oneof![
            (0usize..4, -4i64..4).prop_map(|(i, k)| format!("in{i}[{k}]")),
            (0usize..4).prop_map(|i| format!("rank(in{i})")),
            (0usize..4, -4i64..4).prop_map(|(i, k)| format!("val{i}[{k}]")),
            prop_oneof![Just("@k"), Just("@ks"), Just("@f"), Just("@none")].prop_map(String::from),
            (-3i64..3).prop_map(|k| format!("@ks[{k}]")),
            (-3i64..9).prop_map(|c| c.to_string()),
            Just("99999999999999999999".to_string()),
        ]
    }

    fn expr() -> impl Strategy<Value = String> {
        let leaf = operand();
        leaf.prop_recursive(4, 16, 2, |inner| {
            (
                inner.clone(),
                inner,
                prop_oneof![
                    Just(" + "),
                    Just(" - "),
                    Just(" * "),
                    Just(" / "),
                    Just(" % "),
                    Just("floordiv"),
                    Just("ceildiv"),
                    Just("min"),
                    Just("max"),
                    Just("broadcast"),
                ],
            )
                .prop_map(|(a, b, op)| {
                    if op.starts_with(' ') {
                        format!("({a}{op}{b})")
                    } else {
                        format!("{op}({a}, {b})")
                    }
                })
        })
    }

    fn item() -> impl Strategy<Value = String> {
        prop_oneof![
            4 => expr(),
            1 => (0usize..3, -3i64..3).prop_map(|(i, a)| format!("in{i}[{a}:]")),
            1 => (0usize..3, -3i64..3).prop_map(|(i, b)| format!("val{i}[:{b}]")),
            1 => Just("?".to_string()),
        ]
    }

    fn rule() -> impl Strategy<Value = String> {
        let require = (
            expr(),
            prop_oneof![Just("=="), Just("<="), Just(">"), Just("!=")],
            expr(),
        )
            .prop_map(|(a, r, b)| format!("  require {a} {r} {b}\n"));
        let output = (
            prop_oneof![Just("dtype=in0 "), Just("dtype=i64 "), Just("dtype=in5 "), Just("")],
            prop_oneof![
                1 => (0usize..4).prop_map(|i| format!("shape=in{i}")),
                4 => proptest::collection::vec(item(), 0..4).prop_map(|v| format!("shape=[{}]", v.join(", "))),
            ],
            proptest::option::of(proptest::collection::vec(item(), 0..3)),
        )
            .prop_map(|(d, s, v)| match v {
                Some(v) => format!("  output {d}{s} value=[{}]\n", v.join(", ")),
                None => format!("  output {d}{s}\n"),
            });
        (
            proptest::collection::vec(require, 0..3),
            proptest::collection::vec(output, 1..3),
        )
            .prop_map(|(r, o)| format!("op d:X\n  attr k = 2\n{}{}", r.concat(), o.concat()))
    }

    /// A node `X(a, b, s)` of `d`: `a: [N, 6]`, `b` of unknown rank, `s` a shape
    /// tensor holding `[N, 3]`; attributes `k` (int), `ks` (ints), `f` (float).
    fn context() -> (ShapesContext, Node) {
        let mut ctx = ShapesContext::default();
        let n = ctx.alg.input("N");
        let six = ctx.alg.constant(6);
        let (two, three) = (ctx.alg.constant(2), ctx.alg.constant(3));
        ctx.insert("a", TensorFact::new(DType::Float, vec![n, six]));
        ctx.insert("b", TensorFact::unknown(DType::Float));
        ctx.insert("s", super::int_vector(two, vec![n, three]));
        let node = Node {
            name: "x".into(),
            op_type: "X".into(),
            domain: "d".into(),
            version: 1,
            inputs: vec!["a".into(), "b".into(), "s".into()],
            outputs: vec!["y".into(), "z".into()],
            attrs: [
                ("k".to_string(), Attr::Int(3)),
                ("ks".to_string(), Attr::Ints(vec![1, 0, 2])),
                ("f".to_string(), Attr::Float(0.5)),
            ]
            .into_iter()
            .collect(),
        };
        (ctx, node)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn random_rules_apply_without_panicking(text in rule()) {
            let rules = symdim::OpRules::parse(&text);
            prop_assert!(rules.is_ok(), "{text}: {rules:?}");
            let rules = rules.unwrap();
            let rule = rules.find("d", "X", 1).unwrap();
            let (mut ctx, node) = context();
            match symdim::ops::declared::apply(&mut ctx, &node, rule) {
                Ok(facts) => prop_assert!(facts.len() <= node.outputs.len()),
                Err(e) => prop_assert!(!e.to_string().is_empty()),
            }
        }
    }
}

#[test]
fn undecided_inequalities_go_into_the_contract() {
    let rules = OpRules::parse(
        "op com.example:LastAxisPool\n  require in0[-1] >= 4 * @stride\n  \
         output shape=in0\n  output dtype=int64 shape=[2] value=[in0[0], in0[1]]\n",
    )
    .unwrap();
    let facts = Facts::new().with_op_rules(rules);
    let m = pool_model(&["N", "W"], &[A::Int("stride", 2)], "com.example");
    let ctx = symdim::infer(&m, &facts).into_context();
    let text = symdim::contracts::derive(&m, &ctx, &facts).to_text();
    assert!(
        text.contains("range       W >= 8  [op rule at pool]"),
        "{text}"
    );
    assert!(!text.contains("impossible"), "{text}");
    // Proven false: an error, and the contract says the model is invalid.
    let m = pool_model(&["N", "5"], &[A::Int("stride", 2)], "com.example");
    let r = common::report(&m, &facts);
    assert!(
        r.to_text()
            .contains("require in0[-1] >= 4 * @stride does not hold: 5 >= 8 is false"),
        "{}",
        r.to_text()
    );
}

#[test]
fn shapes_from_a_shape_input_and_from_slices() {
    use symdim::context::{ShapesContext, TensorFact};
    use symdim::graph::{DType, Node};
    let rules = OpRules::parse(
        "op d:Fill\n  output dtype=f32 shape=[val1[:]]\n\
         op d:Pick\n  output dtype=i64 shape=[in0[1:], ?, val1[-1] + 1]\n",
    )
    .unwrap();
    let mut ctx = ShapesContext::default();
    let (n, m) = (ctx.alg.input("N"), ctx.alg.input("M"));
    let two = ctx.alg.constant(2);
    let three = ctx.alg.constant(3);
    ctx.insert("x", TensorFact::new(DType::Float, vec![n, m, three]));
    ctx.insert("s", int_vector(two, vec![n, three]));
    ctx.insert("t", TensorFact::new(DType::Int64, vec![two]));
    let node = |op: &str, inputs: &[&str]| Node {
        name: op.to_lowercase(),
        op_type: op.into(),
        domain: "d".into(),
        version: 1,
        inputs: inputs.iter().map(|s| (*s).into()).collect(),
        outputs: vec!["y".into()],
        attrs: Default::default(),
    };
    let apply = |ctx: &mut ShapesContext, n: &Node| {
        let rule = rules.find(&n.domain, &n.op_type, n.version).unwrap();
        symdim::ops::declared::apply(ctx, n, rule)
            .unwrap()
            .remove(0)
    };
    let y = apply(&mut ctx, &node("Fill", &["x", "s"]));
    assert_eq!(y.dtype, DType::Float);
    assert_eq!(ctx.render_dims(y.shape.as_ref().unwrap()), "[N, 3]");
    // Contents not known: the rank is not either.
    let y = apply(&mut ctx, &node("Fill", &["x", "t"]));
    assert_eq!(y.shape, None);
    let y = apply(&mut ctx, &node("Pick", &["x", "s"]));
    assert_eq!(
        ctx.render_dims(y.shape.as_ref().unwrap()),
        "[M, 3, unk0, 4]"
    );
    // An unknown element is a fresh dim in a shape.
    let y = apply(&mut ctx, &node("Pick", &["x", "t"]));
    assert_eq!(
        ctx.render_dims(y.shape.as_ref().unwrap()),
        "[M, 3, unk0, unk1]"
    );
}

/// A rule whose output dim is negative for every value of the input's dims (`0 - N`
/// with `N >= 1`) is an error naming the node, output, axis and dim; the dim becomes
/// unknown, and a dim that may be negative (`N - 5`) is assumed `>= 0` as before.
#[test]
fn a_rule_giving_a_negative_dim_is_an_error() {
    let rules = OpRules::parse_named(
        "op com.example:Neg\n  output shape=[0 - in0[0], in0[1] - 5, 2*in0[1]]\n",
        "rules.txt",
    )
    .unwrap();
    let m = model(
        vec![
            node("neg", "com.example", "Neg", &["x"], &["y"], &[]),
            node("after", "", "Relu", &["y"], &["z"], &[]),
        ],
        vec![value_info("x", FLOAT, Some(&["N", "M"]))],
        vec![value_info("z", FLOAT, None)],
        &["com.example"],
    );
    let r = common::report(&m, &Facts::new().with_op_rules(rules));
    let text = r.to_text();
    assert!(
        text.contains(
            "error at neg: Neg-1: output 0 axis 0: the dim -N is negative for every value of its symbols"
        ),
        "{text}"
    );
    assert_eq!(text.matches("error").count(), 1, "{text}");
    let y = shape(&r, "y").unwrap();
    assert!(y.starts_with("[unk") && y.ends_with(", M - 5, 2*M]"), "{y}");
    assert_eq!(shape(&r, "z"), Some(y));
}

/// Overlaps are found among many rules (the first overlapping rule in file order is
/// named), `find` picks the rule whose versions hold the node's, checked against a
/// linear scan.
#[test]
fn overlaps_and_lookups_among_many_rules() {
    // Rules of one op at versions 10k..10k+4, in an order that is not by version.
    let n = 500i64;
    let mut text = String::new();
    let order: Vec<i64> = (0..n).map(|i| (i * 7) % n).collect();
    for &k in &order {
        text.push_str(&format!(
            "op d:A version {}..{}\n output shape=[{}]\n",
            10 * k,
            10 * k + 4,
            k
        ));
    }
    let rules = OpRules::parse_named(&text, "r.txt").unwrap();
    assert_eq!(rules.len(), n as usize);
    let all: Vec<_> = rules.iter().cloned().collect();
    for v in -1..10 * n + 10 {
        let linear = all
            .iter()
            .find(|r| r.since <= v && r.until.map_or(true, |u| v <= u));
        assert_eq!(rules.find("d", "A", v), linear, "version {v}");
    }
    assert!(rules.find("d", "B", 10).is_none());
    assert!(rules.find("e", "A", 10).is_none());
    // A rule overlapping several: the first of them in file order is named.
    let k = order[3];
    let (a, b) = (order[3].min(order[5]), order[3].max(order[5]));
    let over = format!(
        "{text}op d:A version {}..{}\n output shape=[0]\n",
        10 * a,
        10 * b
    );
    let e = OpRules::parse_named(&over, "r.txt").unwrap_err();
    let first = (0..order.len())
        .find(|&i| (a..=b).contains(&order[i]))
        .unwrap();
    assert_eq!(
        e.to_string(),
        format!(
            "r.txt:{}: the rule for d:A overlaps the one at r.txt:{} (their versions overlap)",
            2 * n + 1,
            2 * first + 1
        ),
        "{k}"
    );
    // An open range overlaps every later version.
    let open = format!(
        "{text}op d:A version {}..\n output shape=[0]\n",
        10 * (n - 1) + 4
    );
    assert!(OpRules::parse_named(&open, "r.txt").is_err());
    let after = format!("{text}op d:A version {}..\n output shape=[0]\n", 10 * n);
    assert_eq!(
        OpRules::parse_named(&after, "r.txt").unwrap().len(),
        n as usize + 1
    );
}

/// At most `MAX_RULES` rules in all and `MAX_RULE_FILES` files: past either, an
/// error naming the limit, for counts doubling up to past the limit.
#[test]
fn rule_and_file_counts_are_limited() {
    use symdim::read::oprules::{MAX_RULES, MAX_RULE_FILES};
    let rule = |i: usize| format!("op d:A{i}\n output shape=[1]\n");
    let mut n = MAX_RULES / 4;
    while n <= 2 * MAX_RULES {
        let text: String = (0..n).map(rule).collect();
        if text.len() > symdim::read::oprules::MAX_RULES_BYTES {
            break;
        }
        match OpRules::parse_named(&text, "r.txt") {
            Ok(r) => assert!(n <= MAX_RULES && r.len() == n, "{n}"),
            Err(e) => {
                assert!(n > MAX_RULES, "{n}: {e}");
                assert_eq!(
                    e.to_string(),
                    format!(
                        "r.txt:{}: more than {MAX_RULES} rules in all, the limit MAX_RULES",
                        2 * MAX_RULES + 1
                    )
                );
            }
        }
        n = if n == MAX_RULES { n + 1 } else { n * 2 };
    }
    // Over several texts: the count is of all of them.
    let half: String = (0..MAX_RULES / 2).map(rule).collect();
    let other: String = (MAX_RULES / 2..MAX_RULES + 1).map(rule).collect();
    let a = OpRules::parse_named(&half, "a.txt").unwrap();
    let b = OpRules::parse_named(&other, "b.txt").unwrap();
    let e = a.merge(&b).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "b.txt:{}: more than {MAX_RULES} rules in all, the limit MAX_RULES",
            2 * (MAX_RULES / 2) + 1
        )
    );
    // Files: each text counts as one.
    let mut all = OpRules::new();
    for i in 0..2 * MAX_RULE_FILES {
        let one = OpRules::parse_named(&rule(i), &format!("f{i}.txt")).unwrap();
        match all.extend(&one) {
            Ok(()) => assert!(i < MAX_RULE_FILES),
            Err(e) => {
                assert_eq!(i, MAX_RULE_FILES);
                assert_eq!(
                    e.to_string(),
                    format!(
                        "f{i}.txt:1: more than {MAX_RULE_FILES} rules files, the limit MAX_RULE_FILES"
                    )
                );
                // Unchanged by the refused file.
                assert_eq!(all.len(), MAX_RULE_FILES);
                break;
            }
        }
    }
}

/// More `--op-rules` files than `MAX_RULE_FILES` is a usage error naming the limit,
/// given before the file past the limit is read.
#[test]
fn too_many_rules_files_are_a_usage_error() {
    use symdim::read::oprules::MAX_RULE_FILES;
    let model = tmp("many_files.onnx");
    std::fs::write(&model, text_model_bytes()).unwrap();
    let mut args: Vec<String> = vec!["infer".into(), model.to_str().unwrap().into()];
    for i in 0..MAX_RULE_FILES {
        let f = tmp(&format!("many_files_{i}.txt"));
        std::fs::write(&f, format!("op d:Op{i}\n output shape=[1]\n")).unwrap();
        args.extend(["--op-rules".into(), f.to_str().unwrap().into()]);
    }
    let args_ok: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_eq!(symdim(&args_ok).status.code(), Some(0));
    // One more, that does not exist: the count is refused first.
    args.extend(["--op-rules".into(), "/nonexistent/rules.txt".into()]);
    let all: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = symdim(&all);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        err,
        format!(
            "symdim: /nonexistent/rules.txt:1: more than {MAX_RULE_FILES} rules files, the limit MAX_RULE_FILES\n"
        )
    );
}
