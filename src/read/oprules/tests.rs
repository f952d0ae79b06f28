use super::*;

fn problem(text: &str) -> (usize, Problem) {
    match OpRules::parse(text) {
        Err(OpRulesError::Syntax { at, problem }) => (at.line, problem),
        other => panic!("expected a syntax error for {text:?}, got {other:?}"),
    }
}

#[test]
fn a_full_rule_reads() {
    let rules = OpRules::parse(
        "# comment\n\
         op com.example:Pool version 2..5   # trailing comment\n\
         \x20 attr k = 2\n\
         \x20 attr pads = [1, -1]\n\
         \x20 require in0[-1] % @k == 0\n\
         \x20 require rank(in0) >= 2\n\
         \x20 output dtype=in0 shape=[in0[:-1], in0[-1] / @k]\n\
         \x20 output dtype=int64 shape=[2] value=[in0[0], @pads[1] + val1[0]]\n",
    )
    .unwrap();
    assert_eq!(rules.len(), 1);
    let r = rules.iter().next().unwrap();
    assert_eq!(
        (r.domain.as_str(), r.op_type.as_str()),
        ("com.example", "Pool")
    );
    assert_eq!((r.since, r.until), (2, Some(5)));
    assert_eq!(r.at.line, 2);
    assert_eq!(
        r.defaults,
        [
            ("k".to_string(), AttrValue::Int(2)),
            ("pads".to_string(), AttrValue::Ints(vec![1, -1]))
        ]
    );
    assert_eq!(r.requires.len(), 2);
    assert_eq!(r.requires[0].rel, Rel::Eq);
    assert_eq!(r.requires[0].line, 5);
    assert_eq!(r.requires[1].rel, Rel::Ge);
    assert_eq!(r.outputs.len(), 2);
    assert_eq!(r.outputs[0].dtype, DTypeSpec::SameAs(0));
    let ShapeSpec::Dims(items) = &r.outputs[0].shape else {
        panic!("dims")
    };
    assert_eq!(
        items[0],
        Item::Slice {
            input: 0,
            start: None,
            end: Some(-1),
            value: false
        }
    );
    let Item::Dim(e) = &items[1] else {
        panic!("dim")
    };
    assert_eq!(
        e.refs,
        [
            Ref::Dim { input: 0, axis: -1 },
            Ref::Attr { name: "k".into() }
        ]
    );
    assert_eq!(r.outputs[1].dtype, DTypeSpec::Fixed(DType::Int64));
    let Some(value) = &r.outputs[1].value else {
        panic!("value")
    };
    let Item::Dim(e) = &value[1] else {
        panic!("dim")
    };
    assert_eq!(
        e.refs,
        [
            Ref::AttrElem {
                name: "pads".into(),
                index: 1
            },
            Ref::Value { input: 1, index: 0 }
        ]
    );
    assert!(rules.find("com.example", "Pool", 1).is_none());
    assert!(rules.find("com.example", "Pool", 3).is_some());
    assert!(rules.find("com.example", "Pool", 6).is_none());
}

#[test]
fn defaults_domains_and_versions() {
    let rules = OpRules::parse(
        "op Relu\n output shape=in0\n\
         op ai.onnx:Abs version 13..\n output shape=in0\n\
         op x.y:Z version 7\n output dtype=f16 shape=[?, 3]\n",
    )
    .unwrap();
    let relu = rules.find("", "Relu", 14).unwrap();
    assert_eq!((relu.since, relu.until), (1, None));
    assert_eq!(relu.outputs[0].dtype, DTypeSpec::SameAs(0));
    assert_eq!(relu.outputs[0].shape, ShapeSpec::SameAs(0));
    // `ai.onnx` is the default domain, both ways round.
    assert!(rules.find("ai.onnx", "Relu", 1).is_some());
    assert!(rules.find("", "Abs", 13).is_some());
    assert!(rules.find("", "Abs", 12).is_none());
    let z = rules.find("x.y", "Z", 7).unwrap();
    assert_eq!(z.outputs[0].dtype, DTypeSpec::Fixed(DType::Float16));
    let ShapeSpec::Dims(items) = &z.outputs[0].shape else {
        panic!("dims")
    };
    assert_eq!(items[0], Item::Unknown);
    assert!(rules.find("x.y", "Z", 8).is_none());
}

#[test]
fn expressions_are_the_grammar_with_references() {
    let e = parse_rule_expr("floordiv(in0[2] + 2*@pad - @k, @s) + 1").unwrap();
    assert_eq!(e.refs.len(), 4);
    assert_eq!(
        e.expr.to_string(),
        "(floordiv(((`#0` + (2*`#1`)) - `#2`), `#3`) + 1)"
    );
    // A reference used twice is one placeholder.
    let e = parse_rule_expr("in0[1]*in0[1] - rank(in1)").unwrap();
    assert_eq!(
        e.refs,
        [Ref::Dim { input: 0, axis: 1 }, Ref::Rank { input: 1 }]
    );
    // sympy spellings and `%` are read as the grammar reads them.
    assert!(parse_rule_expr("Max(in0[0], in1[0], 1) % 8").is_ok());
    assert!(parse_rule_expr("min(in0[0], 4)").is_ok());
}

#[test]
fn bad_expressions_say_what_is_wrong() {
    let bad = |t: &str| parse_rule_expr(t).unwrap_err();
    assert!(
        matches!(bad("in0[1] + batch"), Problem::NotAReference { name, .. } if name == "batch")
    );
    assert!(matches!(bad("`x` + 1"), Problem::NotAReference { .. }));
    assert!(matches!(bad("in0 + 1"), Problem::BadReference { text, .. } if text == "in0"));
    assert!(matches!(bad("in0[x]"), Problem::BadReference { .. }));
    assert!(matches!(bad("rank(x)"), Problem::BadReference { .. }));
    assert!(matches!(bad("@ + 1"), Problem::BadReference { .. }));
    assert!(matches!(bad("@k[z]"), Problem::BadReference { .. }));
    // The position is the one in the text as written, past the references.
    match bad("in0[0] + in0[1] +") {
        Problem::BadExpr(e) => assert_eq!(e.pos, 17),
        p => panic!("{p:?}"),
    }
    match bad("in0[0] * (") {
        Problem::BadExpr(e) => assert_eq!(e.text, "in0[0] * ("),
        p => panic!("{p:?}"),
    }
}

#[test]
fn errors_name_the_line_and_the_problem() {
    assert!(matches!(
        problem("output shape=in0\n"),
        (1, Problem::OutsideRule { keyword: "output" })
    ));
    assert!(
        matches!(problem("op A\n  outptu shape=in0\n"), (2, Problem::UnknownKeyword { word }) if word == "outptu")
    );
    assert!(matches!(problem("op\n"), (1, Problem::BadOp { .. })));
    assert!(matches!(problem("op a:b:\n"), (1, Problem::BadOp { .. })));
    assert!(matches!(
        problem("op A version 5..2\n output shape=in0\n"),
        (1, Problem::BadVersion { .. })
    ));
    assert!(matches!(
        problem("op A version x\n output shape=in0\n"),
        (1, Problem::BadVersion { .. })
    ));
    assert!(
        matches!(problem("op A\nop B\n output shape=in0\n"), (1, Problem::NoOutputs { op }) if op == "A")
    );
    assert!(matches!(
        problem("op A\n attr k 2\n output shape=in0\n"),
        (2, Problem::BadAttr { .. })
    ));
    assert!(matches!(
        problem("op A\n attr k = [1, x]\n output shape=in0\n"),
        (2, Problem::BadAttr { .. })
    ));
    assert!(matches!(
        problem("op A\n require in0[0]\n output shape=in0\n"),
        (2, Problem::BadRequire { .. })
    ));
    assert!(matches!(
        problem("op A\n require in0[0] ! 2\n output shape=in0\n"),
        (2, Problem::BadRequire { .. })
    ));
    assert!(
        matches!(problem("op A\n output shape=in0 colour=red\n"), (2, Problem::UnknownField { field }) if field == "colour=red")
    );
    assert!(matches!(
        problem("op A\n output shape=in0 shape=in1\n"),
        (2, Problem::RepeatedField { field: "shape" })
    ));
    assert!(matches!(
        problem("op A\n output dtype=f32\n"),
        (2, Problem::NoShape)
    ));
    assert!(
        matches!(problem("op A\n output dtype=floaty shape=in0\n"), (2, Problem::BadDType { text }) if text == "floaty")
    );
    assert!(matches!(
        problem("op A\n output shape=in0[0]\n"),
        (2, Problem::BadList { field: "shape", .. })
    ));
    assert!(matches!(
        problem("op A\n output shape=[in0[1:x]]\n"),
        (2, Problem::BadSlice { .. })
    ));
    assert!(matches!(
        problem("op A\n output shape=[in0[0],]\n"),
        (2, Problem::BadExpr { .. })
    ));
    assert!(matches!(
        problem("op A\n output shape=[x]\n"),
        (2, Problem::NotAReference { .. })
    ));
    let (line, p) = problem("op A\n output shape=in0\nop A version 3..\n output shape=in0\n");
    assert_eq!(line, 3);
    assert!(matches!(p, Problem::Overlap { other, .. } if other.line == 1));
}

#[test]
fn the_message_names_file_line_and_problem() {
    let e = OpRules::parse_named("op A\n output shape=[in0[0] +]\n", "rules.txt").unwrap_err();
    assert_eq!(e.line(), Some(2));
    assert_eq!(
        e.to_string(),
        "rules.txt:2: `in0[0] +` does not parse: expected a number, a name or `(` at byte 8"
    );
}

#[test]
fn merging_refuses_overlaps_across_files() {
    let a = OpRules::parse_named("op d:A version 1..3\n output shape=in0\n", "a.txt").unwrap();
    let b = OpRules::parse_named("op d:A version 4..\n output shape=in0\n", "b.txt").unwrap();
    let c = OpRules::parse_named("op d:A version 3\n output shape=in0\n", "c.txt").unwrap();
    let ab = a.merge(&b).unwrap();
    assert_eq!(ab.len(), 2);
    assert_eq!(ab.find("d", "A", 9).unwrap().at.origin, "b.txt");
    let e = ab.merge(&c).unwrap_err();
    assert_eq!(
        e.to_string(),
        "c.txt:1: the rule for d:A overlaps the one at a.txt:1 (their versions overlap)"
    );
}

#[test]
fn a_file_that_cannot_be_read_is_an_error() {
    let e = OpRules::from_file(Path::new("/nonexistent/rules.txt")).unwrap_err();
    assert!(matches!(e, OpRulesError::Read { .. }));
    assert!(e
        .to_string()
        .starts_with("/nonexistent/rules.txt: cannot read the op rules: "));
    let e = OpRules::from_file(Path::new("/")).unwrap_err();
    assert!(matches!(e, OpRulesError::Read { .. }));
    assert!(e.to_string().contains("not a regular file"), "{e}");
    let dir = std::env::temp_dir().join(format!("symdim-oprules-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let latin1 = dir.join("latin1.txt");
    std::fs::write(&latin1, b"op A\n output shape=in0 # caf\xe9\n").unwrap();
    let e = OpRules::from_file(&latin1).unwrap_err();
    assert_eq!(e.line(), Some(2));
    assert!(
        e.to_string()
            .ends_with("latin1.txt:2: the rules are not UTF-8 text"),
        "{e}"
    );
    #[cfg(unix)]
    {
        // A FIFO with no writer is refused, not waited on.
        let fifo = dir.join("rules.fifo");
        let _ = std::fs::remove_file(&fifo);
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let e = OpRules::from_file(&fifo).unwrap_err();
            assert!(e.to_string().contains("not a regular file"), "{e}");
        }
    }
}

#[test]
fn too_much_text_is_refused() {
    let big = "#".repeat(MAX_RULES_BYTES + 1);
    assert!(matches!(problem(&big), (1, Problem::TooLarge { .. })));
}

mod props {
    use super::*;
    use proptest::prelude::*;

    /// Pieces rules are made of, to reach deep into the parser.
    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("op ".to_string()),
            Just("a:B".to_string()),
            Just(" version ".to_string()),
            Just("1..".to_string()),
            Just("\n".to_string()),
            Just("output ".to_string()),
            Just("require ".to_string()),
            Just("attr ".to_string()),
            Just("shape=".to_string()),
            Just("dtype=".to_string()),
            Just("value=".to_string()),
            Just("[".to_string()),
            Just("]".to_string()),
            Just("(".to_string()),
            Just(")".to_string()),
            Just("in0".to_string()),
            Just("val1".to_string()),
            Just("rank(".to_string()),
            Just("@k".to_string()),
            Just(":".to_string()),
            Just(",".to_string()),
            Just("-1".to_string()),
            Just("==".to_string()),
            Just("`".to_string()),
            Just("#".to_string()),
            Just("?".to_string()),
            Just("é".to_string()),
            "[ -~]{0,4}".prop_map(|s| s),
        ]
    }

    proptest! {
        #[test]
        fn random_text_never_panics(text in "\\PC{0,200}") {
            let _ = OpRules::parse(&text);
            let _ = parse_rule_expr(&text);
        }

        #[test]
        fn random_pieces_never_panic(pieces in proptest::collection::vec(piece(), 0..40)) {
            let text: String = pieces.concat();
            let _ = OpRules::parse(&text);
            let _ = parse_rule_expr(&text);
        }
    }
}
