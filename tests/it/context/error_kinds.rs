//! One snapshot per error kind: the message text is part of the interface.
//!
//! - `error_kinds_op`: every [`OpError`] variant (and every [`AlgebraError`] an op can
//!   return), each reached through a real op rule on a small graph and rendered as
//!   inference renders it (`ShapesContext::report_op_error`). An exhaustive `match`
//!   names each variant, so a new variant fails to compile here until it has a case.
//! - `error_kinds_driver`: the diagnostics the driver itself writes (cycles, undefined
//!   and duplicate tensors, ops without a rule, lying `value_info`, bad `--bind` and
//!   `--assume`, the If case split, unreadable constant data, declared ranks above
//!   the limit).
//! - `error_kinds_cli`: unreadable input (exit status 2 and one line on stderr) for
//!   every kind of file the loader refuses, paths that are not regular files included.
//!
//! Each message was read against the op's spec and the model that triggers it.

use crate::common;
use crate::common::models;

use models::{apply, model, node, put};
use std::collections::BTreeSet;
use std::process::Command;
use symdim::algebra::AlgebraError;
use symdim::context::{OpError, ShapesContext};
use symdim::graph::{Attr, DType, Node};
use symdim::Facts;

/// The variant's name; exhaustive, so a new variant needs a case below.
fn variant(e: &OpError) -> &'static str {
    match e {
        OpError::WrongOp { .. } => "WrongOp",
        OpError::InputCount { .. } => "InputCount",
        OpError::NoOutput => "NoOutput",
        OpError::MissingInput { .. } => "MissingInput",
        OpError::UnknownTensor { .. } => "UnknownTensor",
        OpError::MissingAttribute { .. } => "MissingAttribute",
        OpError::BadAttribute { .. } => "BadAttribute",
        OpError::UnsupportedType { .. } => "UnsupportedType",
        OpError::TypeMismatch { .. } => "TypeMismatch",
        OpError::Rank { .. } => "Rank",
        OpError::AxisOutOfRange { .. } => "AxisOutOfRange",
        OpError::BadShapeValue { .. } => "BadShapeValue",
        OpError::DimMismatch { .. } => "DimMismatch",
        OpError::VolumeMismatch { proven: true, .. } => "VolumeMismatch (proven)",
        OpError::VolumeMismatch { proven: false, .. } => "VolumeMismatch (not proven)",
        OpError::MinusOne { .. } => "MinusOne",
        OpError::Subgraph { .. } => "Subgraph",
        OpError::Algebra(a) => match a {
            AlgebraError::Parse(_) => "Algebra::Parse",
            AlgebraError::DivisionByZero { .. } => "Algebra::DivisionByZero",
            AlgebraError::NotDivisible { proven: true, .. } => "Algebra::NotDivisible (proven)",
            AlgebraError::NotDivisible { proven: false, .. } => {
                "Algebra::NotDivisible (not proven)"
            }
            AlgebraError::Contradiction { .. } => "Algebra::Contradiction",
            AlgebraError::TooLarge { .. } => "Algebra::TooLarge",
        },
    }
}

/// A tensor for a case: name, dtype, shape (`None`: unknown rank), value.
type Put<'a> = (&'a str, DType, Option<&'a [&'a str]>, Option<&'a [&'a str]>);

/// Apply `node`'s rule to a context holding `tensors`: its error, and the context.
fn op_error(tensors: &[Put<'_>], node: &Node) -> (OpError, ShapesContext) {
    let mut ctx = ShapesContext::default();
    for (name, dtype, shape, value) in tensors {
        match shape {
            Some(s) => put(&mut ctx, name, *dtype, s, *value),
            None => ctx.insert(*name, symdim::context::TensorFact::unknown(*dtype)),
        }
    }
    match apply(&mut ctx, node) {
        Ok(facts) => panic!(
            "{} succeeded: {:?}",
            node.op_type,
            models::shapes(&ctx, &facts)
        ),
        Err(e) => (e, ctx),
    }
}

/// Apply `node`'s rule to a context holding `tensors`; the error as the driver
/// reports it.
fn case(tensors: &[Put<'_>], node: Node) -> (&'static str, String) {
    let (e, mut ctx) = op_error(tensors, &node);
    ctx.report_op_error(&node, &e);
    (variant(&e), ctx.diagnostics.last().unwrap().to_string())
}

fn ints(v: &[i64]) -> Attr {
    Attr::Ints(v.to_vec())
}

#[test]
fn error_kinds_op() {
    use DType::{Float, Int64};
    let f32_2x3: Put<'_> = ("x", Float, Some(&["2", "3"]), None);
    let mut rows: Vec<(&'static str, String)> = vec![
        // Concat with no input at all.
        case(
            &[],
            node("Concat", 13, &[], &["y"], vec![("axis", Attr::Int(0))]),
        ),
        // Split into zero outputs.
        case(
            &[f32_2x3],
            node("Split", 13, &["x"], &[], vec![("axis", Attr::Int(0))]),
        ),
        // Reshape with its shape input left empty.
        case(&[f32_2x3], node("Reshape", 14, &["x", ""], &["y"], vec![])),
        // Where whose condition input is left empty.
        case(
            &[f32_2x3],
            node("Where", 16, &["", "x", "x"], &["y"], vec![]),
        ),
        // Reshape whose shape names a tensor nobody produced.
        case(
            &[f32_2x3],
            node("Reshape", 14, &["x", "nowhere"], &["y"], vec![]),
        ),
        // Cast without its required `to`.
        case(&[f32_2x3], node("Cast", 13, &["x"], &["y"], vec![])),
        // Transpose with a perm that is not a permutation.
        case(
            &[f32_2x3],
            node(
                "Transpose",
                13,
                &["x"],
                &["y"],
                vec![("perm", ints(&[0, 0]))],
            ),
        ),
        // Reshape-5's shape must be int64.
        case(
            &[f32_2x3, ("s", Float, Some(&["2"]), Some(&["3", "2"]))],
            node("Reshape", 5, &["x", "s"], &["y"], vec![]),
        ),
        // Add of float and int64.
        case(
            &[f32_2x3, ("i", Int64, Some(&["2", "3"]), None)],
            node("Add", 14, &["x", "i"], &["y"], vec![]),
        ),
        // Gemm's A must be rank 2.
        case(
            &[("a", Float, Some(&["2", "3", "4"]), None), f32_2x3],
            node("Gemm", 13, &["a", "x"], &["y"], vec![]),
        ),
        // Concat along axis 5 of rank-2 inputs.
        case(
            &[f32_2x3],
            node(
                "Concat",
                13,
                &["x", "x"],
                &["y"],
                vec![("axis", Attr::Int(5))],
            ),
        ),
        // Reshape target holding -2.
        case(
            &[f32_2x3, ("s", Int64, Some(&["2"]), Some(&["-2", "3"]))],
            node("Reshape", 14, &["x", "s"], &["y"], vec![]),
        ),
        // Concat on axis 0 of [N, 3] and [N, 4]: axis 1 must agree.
        case(
            &[
                ("a", Float, Some(&["N", "3"]), None),
                ("b", Float, Some(&["N", "4"]), None),
            ],
            node(
                "Concat",
                13,
                &["a", "b"],
                &["y"],
                vec![("axis", Attr::Int(0))],
            ),
        ),
        // Reshape of 6 elements to 4.
        case(
            &[f32_2x3, ("s", Int64, Some(&["1"]), Some(&["4"]))],
            node("Reshape", 14, &["x", "s"], &["y"], vec![]),
        ),
        // Reshape of 6 elements with -1 next to 4.
        case(
            &[f32_2x3, ("s", Int64, Some(&["2"]), Some(&["-1", "4"]))],
            node("Reshape", 14, &["x", "s"], &["y"], vec![]),
        ),
        // Broadcasting 3 against 4.
        case(
            &[
                ("a", Float, Some(&["3"]), None),
                ("b", Float, Some(&["4"]), None),
            ],
            node("Add", 14, &["a", "b"], &["y"], vec![]),
        ),
        // Where with a non-bool condition.
        case(
            &[
                ("c", Float, Some(&["3"]), None),
                ("a", Float, Some(&["3"]), None),
            ],
            node("Where", 16, &["c", "a", "a"], &["y"], vec![]),
        ),
        // Split-13 of 7 into 2 equal parts.
        case(
            &[("x", Float, Some(&["7"]), None)],
            node(
                "Split",
                13,
                &["x"],
                &["y0", "y1"],
                vec![("axis", Attr::Int(0))],
            ),
        ),
    ];
    // WrongOp only arises through the ShapesContext API, which checks the op type.
    {
        let mut ctx = ShapesContext::default();
        put(&mut ctx, "x", DType::Float, &["2", "3"], None);
        let n = node("Concat", 13, &["x"], &["y"], vec![("axis", Attr::Int(0))]);
        let e = symdim::ops::shapes_api::compute_shape_reshape(&mut ctx, &n).unwrap_err();
        rows.push(("WrongOp", format!("{e}")));
    }
    let reached: BTreeSet<&str> = rows.iter().map(|(k, _)| *k).collect();
    let mut text = String::new();
    for (kind, msg) in &rows {
        text.push_str(&format!("{kind:<36} {msg}\n"));
    }
    println!("{text}");
    // Parse and TooLarge come from text the user gives (`DimExpr::parse`), and an
    // op's equality is checked with `equal` before it is merged (a provable
    // difference is a DimMismatch), so Contradiction shows up through `--assume`
    // (the driver snapshot), not from an op rule.
    let expected: BTreeSet<&str> = [
        "WrongOp",
        "InputCount",
        "NoOutput",
        "MissingInput",
        "UnknownTensor",
        "MissingAttribute",
        "BadAttribute",
        "UnsupportedType",
        "TypeMismatch",
        "Rank",
        "AxisOutOfRange",
        "BadShapeValue",
        "DimMismatch",
        "VolumeMismatch (proven)",
        "MinusOne",
        "Algebra::NotDivisible (proven)",
    ]
    .into_iter()
    .collect();
    // A volume or a division that is only not provably right is a warning (the
    // driver snapshot shows them), so the `proven: false` forms never reach here.
    let missing: Vec<_> = expected.difference(&reached).collect();
    assert!(missing.is_empty(), "kinds not reached: {missing:?}\n{text}");
    common::snapshots().bind(|| insta::assert_snapshot!("error_kinds_op", text));
}

#[test]
fn error_kinds_driver() {
    use DType::{Float, Int64};
    let mut lines = Vec::new();
    let mut show = |title: &str, run: models::Run| {
        lines.push(format!("# {title}"));
        lines.extend(run.diagnostics());
    };
    // a -> b -> a
    show(
        "cycle",
        model(17)
            .input("x", Float, Some(&["N"]))
            .node("Add", &["x", "b"], &["a"], vec![])
            .node("Relu", &["a"], &["b"], vec![])
            .run(),
    );
    show(
        "tensor used but never produced",
        model(17)
            .input("x", Float, Some(&["N"]))
            .node("Add", &["x", "ghost"], &["y"], vec![])
            .run(),
    );
    show(
        "duplicate output name",
        model(17)
            .input("x", Float, Some(&["N"]))
            .node("Relu", &["x"], &["y"], vec![])
            .node("Sigmoid", &["x"], &["y"], vec![])
            .run(),
    );
    show(
        "op without a shape rule",
        model(17)
            .input("x", Float, Some(&["N"]))
            .node("FancyOp", &["x"], &["y"], vec![])
            .run(),
    );
    {
        let mut m = model(17)
            .input("x", Float, Some(&["N", "3"]))
            .node("Relu", &["x"], &["y"], vec![])
            .node("Relu", &["x"], &["z"], vec![])
            .build();
        m.graph.value_info.push(symdim::graph::ValueDecl {
            name: "y".into(),
            dtype: Float,
            shape: Some(vec![models::decl("N")]),
        });
        m.graph.value_info.push(symdim::graph::ValueDecl {
            name: "z".into(),
            dtype: Float,
            shape: Some(vec![models::decl("N"), models::decl("4")]),
        });
        let ctx = symdim::infer(&m, &Facts::default()).into_context();
        show(
            "value_info that contradicts inference (rank, then a dim)",
            models::Run { ctx, model: m },
        );
    }
    {
        let m = model(17)
            .input("x", Float, Some(&["N"]))
            .node("Relu", &["x"], &["y"], vec![])
            .build();
        let options = Facts {
            binds: vec![("N".into(), -3)],
            assumes: vec![
                "N >= ".into(),
                "N * N <= 9 || N == 2".into(),
                "N == N + 1".into(),
            ],
            ..Facts::default()
        };
        let ctx = symdim::infer(&m, &options).into_context();
        show(
            "--bind and --assume that cannot hold or do not parse",
            models::Run { ctx, model: m },
        );
    }
    {
        // Reshape's target comes from a Concat of Shape(x)[0] and 5: 6 elements into
        // [N, 5] needs 6*N == 5*N... a proven mismatch after the shape subgraph.
        let run = model(17)
            .input("x", Float, Some(&["N", "6"]))
            .ints("five", &[1], &[5])
            .ints("zero", &[1], &[0])
            .node("Shape", &["x"], &["s"], vec![])
            .node(
                "Gather",
                &["s", "zero"],
                &["n"],
                vec![("axis", Attr::Int(0))],
            )
            .node(
                "Concat",
                &["n", "five"],
                &["t"],
                vec![("axis", Attr::Int(0))],
            )
            .node("Reshape", &["x", "t"], &["y"], vec![])
            .node("Relu", &["y"], &["after"], vec![])
            .node("Relu", &["x"], &["independent"], vec![])
            .run();
        // The failed node's output gets fresh dims of the rank its target fixes (none
        // is declared); its consumer and the rest of the graph are inferred.
        assert_eq!(run.shape("y"), "[unk0, unk1]");
        assert_eq!(run.shape("after"), "[unk0, unk1]");
        assert_eq!(run.shape("independent"), "[N, 6]");
        let _ = Int64;
        show("an error inside a shape subgraph's consumer", run);
    }
    show(
        "conditions that are not provable: warnings, inference goes on",
        model(17)
            .input("x", Float, Some(&["A", "B"]))
            .input("v", Float, Some(&["S"]))
            .ints("c", &[1], &[-5])
            .ints("t", &[1], &[0])
            .node("Shape", &["x"], &["s"], vec![])
            .node("Gather", &["s", "t"], &["a"], vec![("axis", Attr::Int(0))])
            .node("Reshape", &["x", "a"], &["y"], vec![])
            .node("Split", &["v"], &["v0", "v1"], vec![("axis", Attr::Int(0))])
            .run(),
    );
    {
        // A constant whose data the reader could not read (here an external file that
        // is missing), and declared ranks above the limit.
        let mut m = model(17)
            .input("x", Float, Some(&["N"]))
            .node("Reshape", &["x", "shape"], &["y"], vec![])
            .build();
        m.graph.initializers.insert(
            "shape".into(),
            symdim::graph::ConstTensor {
                dtype: Int64,
                dims: vec![2],
                data: symdim::graph::ConstData::Unreadable {
                    reason: "\"./shape.bin\": No such file or directory (os error 2)".into(),
                },
            },
        );
        m.graph.inputs.push(symdim::graph::ValueDecl {
            name: "wide".into(),
            dtype: Float,
            shape: Some(vec![symdim::graph::DeclDim::Value(1); 1025]),
        });
        let ctx = symdim::infer(&m, &Facts::default()).into_context();
        show(
            "unreadable constant data, a declared rank above the limit",
            models::Run { ctx, model: m },
        );
    }
    let text = lines.join("\n") + "\n";
    println!("{text}");
    common::snapshots().bind(|| insta::assert_snapshot!("error_kinds_driver", text));
}

#[test]
fn error_kinds_cli() {
    let dir = std::env::temp_dir().join(format!("symdim-error-kinds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let example = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/attention.onnx"
    ))
    .unwrap();
    let files: Vec<(&str, Vec<u8>)> = vec![
        ("empty.onnx", vec![]),
        (
            "random.onnx",
            (0..64u32).map(|i| (i * 131 % 251) as u8).collect(),
        ),
        ("truncated.onnx", example[..example.len() / 2].to_vec()),
        ("text.onnx", b"this is not a model\n".to_vec()),
        (
            "not_ir.xml",
            b"<?xml version=\"1.0\"?><html></html>".to_vec(),
        ),
        ("not_onednn.json", b"{\"hello\": 1}".to_vec()),
        (
            "deep.xml",
            format!(
                "<?xml version=\"1.0\"?><net version=\"11\"><layers>{}{}</layers></net>",
                "<a>".repeat(15_000),
                "</a>".repeat(15_000)
            )
            .into_bytes(),
        ),
        (
            "deep.json",
            format!(
                "{{\"graph\": {}{}}}",
                "[".repeat(100_000),
                "]".repeat(100_000)
            )
            .into_bytes(),
        ),
    ];
    let mut lines = Vec::new();
    for (name, bytes) in &files {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_symdim"))
            .arg("infer")
            .arg(&path)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).replace(&*dir.to_string_lossy(), "<dir>");
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert!(out.stdout.is_empty(), "{name}: no report on stdout");
        assert_eq!(
            stderr.lines().count(),
            1,
            "{name}: one line on stderr: {stderr}"
        );
        lines.push(format!("{name:<16} exit 2  {}", stderr.trim_end()));
    }
    // Paths that are not regular files are refused before they are read (a FIFO
    // would block, /dev/zero would read until memory ran out).
    let mut special: Vec<(&str, std::path::PathBuf)> = Vec::new();
    let folder = dir.join("folder.onnx");
    std::fs::create_dir_all(&folder).unwrap();
    special.push(("folder.onnx", folder));
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let fifo = dir.join("fifo.onnx");
        let c = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        special.push(("fifo.onnx", fifo));
        let zero = dir.join("zero.onnx");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        special.push(("zero.onnx", zero));
    }
    for (name, path) in &special {
        let out = Command::new(env!("CARGO_BIN_EXE_symdim"))
            .arg("infer")
            .arg(path)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).replace(&*dir.to_string_lossy(), "<dir>");
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert!(out.stdout.is_empty(), "{name}: no report on stdout");
        assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");
        lines.push(format!("{name:<16} exit 2  {}", stderr.trim_end()));
    }
    let missing = Command::new(env!("CARGO_BIN_EXE_symdim"))
        .args(["infer", "/nonexistent/model.onnx"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    lines.push(format!(
        "{:<16} exit 2  {}",
        "missing file",
        String::from_utf8_lossy(&missing.stderr).trim_end()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let text = lines.join("\n") + "\n";
    println!("{text}");
    common::snapshots().bind(|| insta::assert_snapshot!("error_kinds_cli", text));
}

/// The typed operands of op errors print the text the op's spec and this crate's
/// messages state: ranks and input counts, allowed and conflicting element types,
/// dims and shapes. Each expected text is written out by hand.
#[test]
fn typed_operands_print_their_text() {
    use symdim::context::{Allowed, DimRole, Expected, Subject, TypeConflict};
    use symdim::DimExpr;
    use DType::{Float, Float16, Int32, Int64, String as Str};
    let s = DimExpr::symbol("S");
    let rank = |of: &'static str, expected: Expected, found: usize| OpError::Rank {
        of: Box::new(Subject::Named(of)),
        expected,
        found,
    };
    let rank_of = |of: Subject| OpError::Rank {
        of: Box::new(of),
        expected: Expected::Exactly(1),
        found: 2,
    };
    let differ = |dims: DimRole| OpError::DimMismatch {
        dims: Box::new(dims),
        left: s.clone() + 1,
        right: s.clone(),
    };
    let count = |expected: Expected, found: usize| OpError::InputCount { expected, found };
    let cases: Vec<(OpError, &str)> = vec![
        (rank("X", Expected::Exactly(3), 2), "X has rank 2, expected 3"),
        (rank("X", Expected::AtLeast(1), 0), "X has rank 0, expected at least 1"),
        (rank("C", Expected::AtMost(2), 3), "C has rank 3, expected at most 2"),
        (rank("x", Expected::Scalar, 1), "x has rank 1, expected a scalar"),
        (
            rank("data", Expected::either(&[3, 4, 5]), 2),
            "data has rank 2, expected 3, 4 or 5",
        ),
        (
            rank(
                "mask",
                Expected::Either(vec![Expected::Exactly(0), Expected::AtLeast(2)]),
                1,
            ),
            "mask has rank 1, expected 0 or at least 2",
        ),
        (
            rank("input X", Expected::Exactly(4).noted("the rank of W"), 3),
            "input X has rank 3, expected 4 (the rank of W)",
        ),
        (
            rank(
                "filters",
                Expected::Plus {
                    of: "data rank",
                    count: 4,
                    more: 1,
                },
                4,
            ),
            "filters has rank 4, expected data rank 4 + 1",
        ),
        (
            rank("K", Expected::Described("[1]"), 2),
            "K has rank 2, expected [1]",
        ),
        (count(Expected::Exactly(2), 3), "takes 2 inputs, found 3"),
        (count(Expected::Between(1, 3), 5), "takes 1 to 3 inputs, found 5"),
        (count(Expected::OrMore(1), 0), "takes 1 or more inputs, found 0"),
        (
            count(Expected::Repeating { fixed: 2, per: 3 }, 4),
            "takes 2 + 3*n (n >= 1) inputs, found 4",
        ),
        (
            count(
                Expected::Counting(Box::new(Expected::AtLeast(2)), "scan inputs"),
                1,
            ),
            "takes at least 2 scan inputs inputs, found 1",
        ),
        (
            OpError::UnsupportedType {
                dtype: Float,
                what: "indices",
                allowed: Allowed::Types(vec![Int32, Int64]),
            },
            "element type f32 of indices is not allowed in this version (allowed: i32, i64)",
        ),
        (
            OpError::UnsupportedType {
                dtype: Float,
                what: "X",
                allowed: Allowed::OnnxTypes(vec![Str, Int64]),
            },
            "element type f32 of X is not allowed in this version (allowed: string, int64)",
        ),
        (
            OpError::UnsupportedType {
                dtype: Str,
                what: "data",
                allowed: Allowed::Numeric,
            },
            "element type string of data is not allowed in this version (allowed: any numeric type)",
        ),
        (
            OpError::TypeMismatch {
                conflict: TypeConflict::inputs("input 0", Float, "input 2", Int64),
            },
            "element types differ: input 0 is f32, input 2 is i64",
        ),
        (
            OpError::TypeMismatch {
                conflict: TypeConflict::SequenceElement {
                    sequence: Float,
                    tensor: Int64,
                },
            },
            "element types differ: the sequence holds f32, the tensor is i64",
        ),
        (
            OpError::TypeMismatch {
                conflict: TypeConflict::BitCastString { from: Str, to: Float },
            },
            "element types differ: BitCast of string to f32: strings have no bit pattern",
        ),
        (
            OpError::TypeMismatch {
                conflict: TypeConflict::BitCastWidth {
                    from: Float,
                    from_bits: 32,
                    to: Float16,
                    to_bits: 16,
                },
            },
            "element types differ: BitCast of f32 (32 bits) to f16 (16 bits): the widths must match",
        ),
        // The operands of a rank error, each as its case prints it.
        (
            rank_of(Subject::Nth {
                name: "V or H",
                index: 1,
            }),
            "V or H 1 has rank 2, expected 1",
        ),
        (
            rank_of(Subject::Input {
                index: 2,
                shape: vec![s.clone(), 3.into()],
            }),
            "input 2 [S, 3] has rank 2, expected 1",
        ),
        (
            rank_of(Subject::ShapeInput {
                name: "shape",
                shape: vec![2.into(), 3.into()],
            }),
            "shape input [2, 3] has rank 2, expected 1",
        ),
        (
            rank_of(Subject::KeyAndValue { ranks: [3, 4] }),
            "key and value (ranks 3 and 4) has rank 2, expected 1",
        ),
        (
            rank_of(Subject::EinsumTerm {
                input: 1,
                term: "ij".to_string(),
            }),
            "input 1 (term \"ij\") has rank 2, expected 1",
        ),
        // The dims of a mismatch, each as its case prints it.
        (
            differ(DimRole::axis(1, ("A", "B"))),
            "axis 1 of A and B: S + 1 != S",
        ),
        (
            differ("C must broadcast to [M, N]".into()),
            "C must broadcast to [M, N]: S + 1 != S",
        ),
        (
            differ(DimRole::of("heads", "past_key")),
            "heads of past_key: S + 1 != S",
        ),
        (
            differ(DimRole::BatchDim {
                index: 0,
                of: ("data", "indices").into(),
            }),
            "batch dim 0 of data and indices: S + 1 != S",
        ),
        (
            differ(DimRole::BatchAxis {
                axis: 1,
                of: ("data", "indices").into(),
            }),
            "batch axis 1 of data and indices: S + 1 != S",
        ),
        (
            differ(DimRole::SpatialAxis {
                axis: 0,
                of: ("the interpolated src", "diff_dst").into(),
            }),
            "spatial axis 0 of the interpolated src and diff_dst: S + 1 != S",
        ),
        (
            differ(DimRole::Length { of: "bias" }),
            "length of bias: S + 1 != S",
        ),
        (
            differ(DimRole::AtAxis {
                what: "blocked scale axis",
                axis: 2,
            }),
            "blocked scale axis 2: S + 1 != S",
        ),
        (
            differ(DimRole::Squeezed { axis: 2 }),
            "squeezed axis 2 must be 1: S + 1 != S",
        ),
        (
            differ(DimRole::ConcatDim {
                dim: 1,
                inputs: [0, 2],
                axis: 0,
            }),
            "dim 1 of input 0 and input 2 (Concat on axis 0 needs every other dim equal): S + 1 != S",
        ),
        (
            differ(DimRole::Broadcasting { axis: 1 }),
            "broadcasting axis 1 (counted from the left of the broadcast shape): S + 1 != S",
        ),
        (
            differ(DimRole::OptimizerAxis {
                axis: 0,
                group: "G",
                index: 1,
            }),
            "axis 0 of X 1 and G 1: S + 1 != S",
        ),
        (
            differ(DimRole::ScatterNdUpdates { axis: 1, k: 2 }),
            "axis 1 of updates and indices.shape[:-1] + data.shape[2:]: S + 1 != S",
        ),
        (
            differ(DimRole::Requirement {
                at: Box::new(symdim::read::oprules::Location {
                    origin: "rules.txt".to_string(),
                    line: 3,
                }),
                text: "out0 == in0".to_string(),
            }),
            "op rule at rules.txt:3: require out0 == in0: S + 1 != S",
        ),
        (
            differ(DimRole::KernelShape { axis: 0 }),
            "kernel_shape[0] and W spatial dim 0: S + 1 != S",
        ),
        (
            differ(DimRole::Channels {
                side: "input",
                data: "src",
                grouped: true,
                weights: "I",
            }),
            "input channels: src C and groups * weights I: S + 1 != S",
        ),
        (
            differ(DimRole::Channels {
                side: "output",
                data: "diff_dst",
                grouped: false,
                weights: "O",
            }),
            "output channels: diff_dst C and weights O: S + 1 != S",
        ),
        (
            OpError::VolumeMismatch {
                input: s.clone() * 2,
                output: s.clone() * 3,
                proven: true,
            },
            "volume mismatch: input has 2*S elements, output has 3*S",
        ),
        (
            OpError::VolumeMismatch {
                input: s.clone() * 2,
                output: s.clone() * 3,
                proven: false,
            },
            "volume mismatch: input has 2*S elements, output has 3*S (not provably equal)",
        ),
        (
            OpError::MinusOne {
                axis: 1,
                target: vec![DimExpr::constant(5), DimExpr::constant(-1)],
                input: vec![2.into(), 3.into(), 4.into()],
                source: Box::new(AlgebraError::NotDivisible {
                    dividend: DimExpr::constant(24),
                    divisor: DimExpr::constant(5),
                    residual: DimExpr::parse("24/5").unwrap(),
                    proven: true,
                }),
            },
            "cannot infer the -1 at axis 1 of target [5, -1] from input [2, 3, 4]: need 5 | 24; residual 24/5 (proven not to divide)",
        ),
    ];
    for (e, want) in cases {
        assert_eq!(e.to_string(), want, "{e:?}");
    }
}

/// Op rules name the operand of a rank error and the dims of a mismatch as values,
/// with the axes and indices involved: a rank-3 `A` of Gemm, the dim 1 that Concat
/// on axis 0 of `[N, 3]` and `[N, 4]` needs equal, and the axis 1 of MaxUnpool's `X`
/// and `I`.
#[test]
fn op_errors_name_their_operands_as_values() {
    use symdim::context::{DimRole, Expected, Operands, Subject};
    use symdim::DimExpr;
    use DType::{Float, Int64};
    let run = |tensors: &[Put<'_>], node: Node| op_error(tensors, &node).0;
    let gemm = run(
        &[
            ("a", Float, Some(&["2", "3", "4"]), None),
            ("b", Float, Some(&["2", "3"]), None),
        ],
        node("Gemm", 13, &["a", "b"], &["y"], vec![]),
    );
    assert_eq!(
        gemm,
        OpError::Rank {
            of: Box::new(Subject::Named("input A")),
            expected: Expected::Exactly(2),
            found: 3,
        }
    );
    let concat = run(
        &[
            ("a", Float, Some(&["N", "3"]), None),
            ("b", Float, Some(&["N", "4"]), None),
        ],
        node(
            "Concat",
            13,
            &["a", "b"],
            &["y"],
            vec![("axis", Attr::Int(0))],
        ),
    );
    assert_eq!(
        concat,
        OpError::DimMismatch {
            dims: Box::new(DimRole::ConcatDim {
                dim: 1,
                inputs: [0, 1],
                axis: 0,
            }),
            left: DimExpr::constant(3),
            right: DimExpr::constant(4),
        }
    );
    let unpool = run(
        &[
            ("x", Float, Some(&["1", "2", "3", "3"]), None),
            ("i", Int64, Some(&["1", "5", "3", "3"]), None),
        ],
        node(
            "MaxUnpool",
            11,
            &["x", "i"],
            &["y"],
            vec![("kernel_shape", ints(&[2, 2]))],
        ),
    );
    assert_eq!(
        unpool,
        OpError::DimMismatch {
            dims: Box::new(DimRole::Axis {
                axis: 1,
                of: Operands::Two("X", "I"),
            }),
            left: DimExpr::constant(2),
            right: DimExpr::constant(5),
        }
    );
}
