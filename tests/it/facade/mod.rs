//! The library facade: `symdim::load`, `symdim::infer`, `Shapes`, `DimExpr`, `Facts`.

mod dim_props;

use crate::common;

use proptest::prelude::*;
use std::path::Path;
use symdim::context::facts::{FactsError, InputDimError};
use symdim::context::Cause;
use symdim::{DimExpr, EvalError, Facts, SymbolValues};

/// `examples/attention.onnx` (opset 17). By the ONNX semantics of its ops, its
/// shapes are: `x` `[batch, sequence, 64]`; MatMul by `[64, 192]` gives
/// `[batch, sequence, 192]`; Reshape to `Concat(batch, seq, [3, 4, 16])` gives
/// `[batch, sequence, 3, 4, 16]`; Transpose `(2, 0, 3, 1, 4)` (output axis `i` is
/// input axis `perm[i]`) gives `[3, batch, 4, sequence, 16]`; Split on axis 0 into
/// `[1, 1, 1]` gives `q`, `k`, `v` of `[1, batch, 4, sequence, 16]`; `k` transposed
/// `(0, 1, 2, 4, 3)` is `[1, batch, 4, 16, sequence]`, so the MatMul `scores` is
/// `[1, batch, 4, sequence, sequence]` and the context `[1, batch, 4, sequence, 16]`;
/// Squeeze of axis 0 and Transpose `(0, 2, 1, 3)` give `[batch, sequence, 4, 16]`;
/// Reshape to `[0, 0, -1]` (the 0s copy) and the bias give `y`,
/// `[batch, sequence, 64]`: `y`'s first two dims are `x`'s.
fn example() -> symdim::Model {
    symdim::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/attention.onnx"))
        .expect("the bundled example loads")
}

fn texts(dims: &[DimExpr]) -> Vec<String> {
    dims.iter().map(ToString::to_string).collect()
}

#[test]
fn shapes_read_as_expressions() {
    let model = example();
    let shapes = symdim::infer(&model, &Facts::new());
    assert_eq!(
        texts(&shapes.shape("x").unwrap()),
        ["batch", "sequence", "64"]
    );
    // q @ k^T of `[1, batch, 4, sequence, 16]` by `[1, batch, 4, 16, sequence]`
    // (see `example`).
    assert_eq!(
        texts(&shapes.shape("scores").unwrap()),
        ["1", "batch", "4", "sequence", "sequence"]
    );
    let t = shapes.tensor("x_shape").unwrap();
    assert_eq!(t.dtype, Some(symdim::DType::Int64));
    assert_eq!(texts(&t.value.unwrap()), ["batch", "sequence", "64"]);
    assert!(shapes.tensor("no such tensor").is_none());
    assert_eq!(shapes.outputs(), ["y"]);
    let names: Vec<String> = shapes.tensors().into_iter().map(|(n, _)| n).collect();
    assert_eq!(names.first().map(String::as_str), Some("x"));
    assert_eq!(names.last().map(String::as_str), Some("y"));
    assert!(!shapes.has_errors());
}

#[test]
fn input_dims_are_overridden_without_touching_the_model() {
    let model = example();
    let before = model.graph.inputs.clone();
    let shapes = symdim::infer(
        &model,
        &Facts::new().input_dim("x", 0, "N").input_dim("x", 1, "2*T"),
    );
    assert_eq!(texts(&shapes.shape("y").unwrap()), ["N", "2*T", "64"]);
    assert_eq!(model.graph.inputs, before);
    // `y`'s first two dims are `x`'s (see `example`). An integer fixes the dim.
    let shapes = symdim::infer(&model, &Facts::new().input_dim("x", 0, "3"));
    assert_eq!(texts(&shapes.shape("y").unwrap()), ["3", "sequence", "64"]);
    // A wrong input or axis is an error diagnostic; the rest is still inferred.
    for (facts, want, text) in [
        (
            Facts::new().input_dim("nope", 0, "N"),
            InputDimError::NoSuchInput {
                tensor: "nope".to_string(),
                axis: 0,
                inputs: vec!["x".to_string()],
            },
            "input dim nope[0]: the graph has no input `nope` (inputs: x)",
        ),
        (
            Facts::new().input_dim("x", 3, "N"),
            InputDimError::AxisPastRank {
                tensor: "x".to_string(),
                axis: 3,
                rank: 3,
            },
            "input dim x[3]: the input has rank 3",
        ),
    ] {
        let shapes = symdim::infer(&model, &facts);
        assert!(shapes.has_errors());
        let causes: Vec<_> = shapes.diagnostics().iter().map(|d| &d.cause).collect();
        assert_eq!(
            causes,
            [&Some(Cause::Facts(FactsError::InputDim(want.clone())))]
        );
        assert_eq!(
            facts.validate(&model),
            Err(FactsError::InputDim(want.clone()))
        );
        // An input dim's message names it: the detail is the whole message.
        let err = FactsError::InputDim(want);
        assert_eq!(err.detail().to_string(), text);
        assert_eq!(err.as_flags().to_string(), text);
        assert_eq!(shapes.diagnostics()[0].message, text);
        assert_eq!(
            texts(&shapes.shape("y").unwrap()),
            ["batch", "sequence", "64"]
        );
    }
}

#[test]
fn concretize_keeps_the_symbolic_answer() {
    let model = example();
    let shapes = symdim::infer(&model, &Facts::new());
    let four = shapes.concretize(&[("batch", 4)]).unwrap();
    assert_eq!(texts(&four.shape("y").unwrap()), ["4", "sequence", "64"]);
    assert_eq!(
        texts(&shapes.shape("y").unwrap()),
        ["batch", "sequence", "64"]
    );
    // The same as inferring with the binding from the start.
    let bound = symdim::infer(&model, &Facts::new().bind("batch", 4));
    assert_eq!(four.report(), bound.report());
    // A negative value, or another value for a symbol the facts bind, is refused.
    assert_eq!(
        shapes.concretize(&[("batch", -1)]).unwrap_err(),
        FactsError::NegativeBind {
            name: "batch".to_string(),
            value: -1,
        }
    );
    assert_eq!(
        bound.concretize(&[("batch", 5)]).unwrap_err(),
        FactsError::ConflictingBind {
            name: "batch".to_string(),
            value: 5,
            first: 4,
        }
    );
    // A name the model does not have is refused: binding it would change nothing.
    assert_eq!(
        shapes
            .concretize(&[("batch", 2), ("btach", 4)])
            .unwrap_err(),
        FactsError::UnknownBind {
            name: "btach".to_string(),
            value: 4,
            known: vec!["batch".to_string(), "sequence".to_string()],
        }
    );
    // A symbol an input dim of the facts introduces can be bound.
    let n = symdim::infer(&model, &Facts::new().input_dim("x", 0, "N"));
    let n4 = n.concretize(&[("N", 4)]).unwrap();
    assert_eq!(texts(&n4.shape("y").unwrap()), ["4", "sequence", "64"]);
    assert_eq!(texts(&n.shape("y").unwrap()), ["N", "sequence", "64"]);
}

/// A bind or assumed fact that names no symbol of the model, or a fact that does not
/// parse, is an error diagnostic whose cause is the `FactsError` that
/// `Facts::validate` returns; the fact is left out and the rest is inferred.
#[test]
fn facts_that_name_nothing_are_errors() {
    let model = example();
    let known = || vec!["batch".to_string(), "sequence".to_string()];
    let cases = [
        (
            Facts::new().bind("btach", 4),
            FactsError::UnknownBind {
                name: "btach".to_string(),
                value: 4,
                known: known(),
            },
            "binding btach=4: the model has no symbol btach (its symbols: batch, sequence)",
        ),
        (
            Facts::new().bind("sequence", 8).assume("2*seq >= 4"),
            FactsError::UnknownAssume {
                text: "2*seq >= 4".to_string(),
                name: "seq".to_string(),
                known: known(),
            },
            "fact 2*seq >= 4: the model has no symbol seq (its symbols: batch, sequence)",
        ),
        (
            Facts::new().bind("batch", -3),
            FactsError::NegativeBind {
                name: "batch".to_string(),
                value: -3,
            },
            "binding batch=-3: the value is negative: dims are at least 0",
        ),
        (
            Facts::new()
                .bind("sequence", 1)
                .bind("sequence", 1)
                .bind("sequence", 2),
            FactsError::ConflictingBind {
                name: "sequence".to_string(),
                value: 2,
                first: 1,
            },
            "binding sequence=2: sequence is already bound to 1",
        ),
        (
            Facts::new().assume("batch >="),
            FactsError::BadAssume {
                text: "batch >=".to_string(),
                error: symdim::algebra::parse::parse_fact("batch >=").unwrap_err(),
            },
            // The parser stops at the end (byte 8) for the missing right side.
            "fact batch >=: cannot parse `batch >=` at byte 8: expected ",
        ),
    ];
    for (facts, want, text) in cases {
        assert_eq!(facts.validate(&model), Err(want.clone()));
        // The message names the fact as the library takes it, not as a flag, and
        // ends with the detail, what is wrong alone.
        assert!(!want.to_string().contains("--"), "{want}");
        assert!(
            want.to_string().ends_with(&format!(": {}", want.detail())),
            "{want}"
        );
        let shapes = symdim::infer(&model, &facts);
        assert!(shapes.has_errors());
        let errors: Vec<_> = shapes
            .diagnostics()
            .iter()
            .filter(|d| d.severity == symdim::context::Severity::Error)
            .collect();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].cause, Some(Cause::Facts(want.clone())));
        assert_eq!(errors[0].message, want.to_string());
        assert!(errors[0].message.starts_with(text), "{}", errors[0].message);
        // The CLI's wording names the flag instead: `--bind` for a binding, `--assume`
        // for a fact.
        let flag = if text.starts_with("binding ") {
            text.replacen("binding ", "--bind ", 1)
        } else {
            text.replacen("fact ", "--assume ", 1)
        };
        assert!(want.as_flags().to_string().starts_with(&flag), "{flag}");
        // Left out: no symbol is made up for it, and the dims are the model's.
        assert!(!shapes.symbols().contains_key("btach"));
        assert!(!shapes.symbols().contains_key("seq"));
        let y = texts(&shapes.shape("y").unwrap());
        assert_eq!(y[0], "batch");
        assert_eq!(y[2], "64");
    }
    // The bind beside the unknown assumption still applies.
    let shapes = symdim::infer(&model, &Facts::new().bind("sequence", 8).assume("seq >= 2"));
    assert_eq!(texts(&shapes.shape("y").unwrap()), ["batch", "8", "64"]);
    // Facts that fit the model: no error, and `validate` agrees.
    let good = Facts::new()
        .bind("sequence", 8)
        .assume("batch <= 64")
        .input_dim("x", 0, "N")
        .bind("N", 2);
    assert_eq!(good.validate(&model), Ok(()));
    let shapes = symdim::infer(&model, &good);
    assert!(!shapes.has_errors(), "{:?}", shapes.diagnostics());
    assert_eq!(texts(&shapes.shape("y").unwrap()), ["2", "8", "64"]);
}

#[test]
fn the_report_is_the_commands() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/attention.onnx");
    let model = symdim::load(&path).unwrap();
    let shapes = symdim::infer(&model, &Facts::new().bind("sequence", 7));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_symdim"))
        .arg("infer")
        .arg(&path)
        .args(["--format", "json", "--bind", "sequence=7"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        shapes.report().to_json()
    );
    let mut written = Vec::new();
    shapes
        .write_report(symdim::report::Format::Json, &mut written)
        .unwrap();
    assert_eq!(
        String::from_utf8(written).unwrap(),
        shapes.report().to_json()
    );
}

#[test]
fn dim_expressions_compute_and_evaluate() {
    let s = DimExpr::symbol("S");
    let b = DimExpr::parse("B").unwrap();
    let e = (s.clone() * 12 + b.clone()) * 2 - s.clone();
    assert_eq!(e.to_string(), "2*B + 23*S");
    assert_eq!(e.symbols(), ["B", "S"]);
    let at = SymbolValues::new().with("S", 3).with("B", 5);
    assert_eq!(e.eval(&at).unwrap(), 2 * 5 + 23 * 3);
    assert_eq!(
        e.substitute(&SymbolValues::new().with("S", 1))
            .unwrap()
            .to_string(),
        "2*B + 23"
    );
    // A dim is never negative: a negative value of a symbol it uses is an error,
    // in eval and substitute alike; one of a symbol it does not use is ignored.
    let negative = symdim::algebra::EvalError::Negative {
        symbol: "S".to_string(),
        value: -5,
    };
    let below = SymbolValues::new().with("S", -5).with("B", 5);
    assert_eq!(e.eval(&below), Err(negative.clone()));
    assert_eq!(e.substitute(&below), Err(negative.clone()));
    assert_eq!(
        DimExpr::symbol("S").eval(&SymbolValues::new().with("S", -5)),
        Err(negative)
    );
    let unused = SymbolValues::new().with("S", 3).with("B", 5).with("T", -1);
    assert_eq!(e.eval(&unused).unwrap(), 2 * 5 + 23 * 3);
    assert_eq!(
        DimExpr::parse("(S*768) / (12*64)").unwrap().to_string(),
        "S"
    );
    assert_eq!(DimExpr::constant(7).floordiv(2).as_i64(), Some(3));
    assert_eq!(DimExpr::constant(7).ceildiv(2).as_i64(), Some(4));
    assert_eq!(s.min(&b).eval(&at).unwrap(), 3);
    assert_eq!(s.max(&b).eval(&at).unwrap(), 5);
    assert_eq!(
        e.eval(&SymbolValues::new().with("S", 3)),
        Err(EvalError::Unbound {
            symbol: "B".to_string()
        })
    );
    assert!(DimExpr::parse("S +").is_err());
}

#[test]
fn evaluation_errors_carry_the_expression_and_the_exact_value() {
    let s = DimExpr::symbol("S");
    let b = DimExpr::symbol("B");
    let at = SymbolValues::new().with("S", 3).with("B", 5);
    // floordiv(S, B - 5) at B = 5 divides by zero.
    let half = s.floordiv(&(b - 5));
    let err = half.eval(&at).unwrap_err();
    assert_eq!(err, EvalError::Undefined { expr: half.clone() });
    assert_eq!(
        err.to_string(),
        "floordiv(S, B - 5) is undefined at these values"
    );
    // A broadcast of 2 and 3 (neither is 1, they differ) is undefined too.
    // (`DimExpr`'s names are at least 0, where `broadcast(S, T)` stays: at S = 0,
    // T = 1 it is 0, not `max(S, T)`.)
    let (sp, tp) = (DimExpr::symbol("S"), DimExpr::symbol("T"));
    let bc = sp.broadcast(&tp);
    assert_eq!(bc.to_string(), "broadcast(S, T)");
    let err = bc.eval(&SymbolValues::new().with("S", 2).with("T", 3));
    assert_eq!(err, Err(EvalError::Undefined { expr: bc.clone() }));
    assert_eq!(
        bc.eval(&SymbolValues::new().with("S", 1).with("T", 3)),
        Ok(3)
    );
    // S/3 at S = 4 is 4/3: the value is the exact rational, not a rounding.
    let third = DimExpr::parse("S / 3").unwrap();
    let err = third.eval(&SymbolValues::new().with("S", 4)).unwrap_err();
    let four_thirds = symdim::algebra::Rat::frac(4, 3).unwrap();
    assert_eq!(
        err,
        EvalError::NotAnInteger {
            expr: third.clone(),
            value: four_thirds
        }
    );
    assert_eq!(err.to_string(), "S/3 is 4/3 at these values, not an i64");
    // 2^62 * S at S = 4 is 2^64: an integer, but not an i64.
    let big = DimExpr::constant(1 << 62) * s;
    match big.eval(&SymbolValues::new().with("S", 4)) {
        Err(EvalError::NotAnInteger { expr, value }) => {
            assert_eq!(expr, big);
            assert!(value.is_integer());
            assert_eq!(value.to_string(), "18446744073709551616");
        }
        other => panic!("{other:?}"),
    }
}

/// A random expression over `A`, `B`, `C` and small constants, with its value at an
/// assignment computed directly in `i128`.
fn expr() -> impl Strategy<Value = (DimExpr, [i64; 3], i128)> {
    let leaf = prop_oneof![
        (0usize..3).prop_map(|i| (i, true, 0i64)),
        (-5i64..6).prop_map(|c| (0, false, c)),
    ];
    (
        prop::collection::vec((leaf, 0u8..3), 1..8),
        prop::array::uniform3(0i64..20),
    )
        .prop_map(|(items, at)| {
            let names = ["A", "B", "C"];
            let mut e = DimExpr::constant(0);
            let mut v: i128 = 0;
            for ((i, is_sym, c), op) in items {
                let (t, tv) = if is_sym {
                    (DimExpr::symbol(names[i]), at[i] as i128)
                } else {
                    (DimExpr::constant(c), c as i128)
                };
                match op {
                    0 => {
                        e += t;
                        v += tv;
                    }
                    1 => {
                        e -= t;
                        v -= tv;
                    }
                    _ => {
                        e *= t;
                        v *= tv;
                    }
                }
            }
            (e, at, v)
        })
}

proptest! {
    #[test]
    fn arithmetic_evaluates_as_integers((e, at, want) in expr()) {
        let values = SymbolValues::new().with("A", at[0]).with("B", at[1]).with("C", at[2]);
        prop_assert_eq!(e.eval(&values).map(i128::from), Ok(want));
        // Printed and parsed back, the same value.
        let again = DimExpr::parse(&e.to_string()).unwrap();
        prop_assert_eq!(again.eval(&values).map(i128::from), Ok(want));
    }
}

/// A binding `NAME=INT` (the CLI's `--bind` argument) that cannot be used says why
/// as a value: no `=`, a value that is not an `i64`, an empty name, or a name that is
/// an expression (with the expression it parses as). The message names the binding;
/// `detail` is the reason alone.
#[test]
fn bind_arguments_say_what_is_wrong_as_values() {
    use symdim::algebra::{Expr, Rat};
    use symdim::context::facts::{parse_bind, BindProblem, FactsError};
    let bad = |text: &str, why: BindProblem| FactsError::BadBind {
        text: text.to_string(),
        why,
    };
    let sum = Expr::Add(
        Box::new(Expr::Sym("batch".to_string())),
        Box::new(Expr::Num(Rat::int(1))),
    );
    for (text, why, detail) in [
        ("batch", BindProblem::NoEquals, "expected NAME=INT"),
        (
            "batch=1.5",
            BindProblem::NotAnInteger {
                value: "1.5".to_string(),
            },
            "`1.5` is not an integer (i64)",
        ),
        (" =3", BindProblem::EmptyName, "the symbol name is empty"),
        (
            "batch+1=3",
            BindProblem::Expression {
                name: "batch+1".to_string(),
                expr: sum,
            },
            "`batch+1` is an expression, not a symbol name",
        ),
    ] {
        let err = parse_bind(text).unwrap_err();
        assert_eq!(err, bad(text, why));
        assert_eq!(err.to_string(), format!("binding {text}: {detail}"));
        assert_eq!(err.detail().to_string(), detail);
        // the CLI's wording names the flag
        assert_eq!(
            err.as_flags().to_string(),
            format!("--bind {text}: {detail}")
        );
    }
    assert_eq!(parse_bind("batch = 4"), Ok(("batch".to_string(), 4)));
    let dotted = Ok(("input_ids.1".to_string(), 4));
    assert_eq!(parse_bind("input_ids.1=4"), dotted);
    assert_eq!(parse_bind("`input_ids.1`=4"), dotted);
}

/// Every model file under `dir`, recursively, in name order: `.onnx`, OpenVINO IR
/// `.xml` and oneDNN Graph `.json`.
fn model_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        let name = p.to_string_lossy();
        if p.is_dir() {
            model_files(&p, out);
        } else if name.ends_with(".onnx")
            || name.ends_with(".xml")
            || (name.ends_with(".json") && name.contains("onednn"))
        {
            out.push(p);
        }
    }
}

/// `Shapes::has_errors` answers from the diagnostics and the algebra without building
/// the report; it agrees with the report on every fixture, some of which hold errors
/// and some not, and `Shapes::all_diagnostics` lists the report's diagnostics. (A
/// contradiction the algebra alone records is tested inside the crate, in
/// `shapes.rs`.)
#[test]
fn has_errors_agrees_with_the_report() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    model_files(&root.join("tests/fixtures"), &mut files);
    model_files(&root.join("examples"), &mut files);
    let (mut with, mut without) = (0, 0);
    for path in &files {
        let Ok(model) = symdim::load(path) else {
            continue;
        };
        let shapes = symdim::infer(&model, &Facts::new());
        let report = shapes.report();
        assert_eq!(
            shapes.has_errors(),
            report.has_errors(),
            "{}",
            path.display()
        );
        assert_eq!(shapes.all_diagnostics(), report.diagnostics);
        if report.has_errors() {
            with += 1;
        } else {
            without += 1;
        }
    }
    assert!(
        with > 10 && without > 10,
        "{with} with errors, {without} without"
    );
    // Facts that contradict each other: an error diagnostic and a contradiction.
    let model = example();
    let shapes = symdim::infer(&model, &Facts::new().assume("batch == 2").bind("batch", 3));
    assert!(shapes.report().has_errors());
    assert!(shapes.has_errors());
}

/// `Shapes::explain` and `Shapes::annotated_bytes` give what `symdim explain` prints
/// and what `symdim infer -o` writes.
#[test]
fn explain_and_annotate_are_the_commands() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/attention.onnx");
    let model = symdim::load(&path).unwrap();
    let shapes = symdim::infer(&model, &Facts::new().bind("sequence", 7));
    let cli = |args: &[&std::ffi::OsStr]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_symdim"))
            .args(args)
            .output()
            .unwrap();
        (out.status.code(), out.stdout)
    };
    let (code, stdout) = cli(&[
        "explain".as_ref(),
        path.as_os_str(),
        "y[-2]".as_ref(),
        "--bind".as_ref(),
        "sequence=7".as_ref(),
    ]);
    assert_eq!(code, Some(0));
    let text = shapes.explain("y[-2]").unwrap();
    assert_eq!(String::from_utf8(stdout).unwrap(), text);
    // y[-2] is `sequence`, bound to 7.
    assert!(text.contains('7'), "{text}");
    assert_eq!(
        shapes.explain("y[3]").unwrap_err(),
        symdim::contracts::explain::ExplainError::Axis {
            tensor: "y".to_string(),
            axis: 3,
            rank: 3
        }
    );

    let dir = std::env::temp_dir().join(format!("symdim-facade-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let target = dir.join("annotated.onnx");
    let (code, _) = cli(&[
        "infer".as_ref(),
        path.as_os_str(),
        "--bind".as_ref(),
        "sequence=7".as_ref(),
        "-o".as_ref(),
        target.as_os_str(),
    ]);
    assert_eq!(code, Some(0));
    let written = std::fs::read(&target).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(shapes.annotated_bytes(&bytes).unwrap(), written);
    assert_ne!(written, bytes);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The owned context is the one `Shapes::context` lends.
#[test]
fn the_context_can_be_owned() {
    let model = example();
    let shapes = symdim::infer(&model, &Facts::new());
    let y = shapes.context().get("y").unwrap().clone();
    let text = shapes.context().render_dims(y.shape.as_ref().unwrap());
    let ctx = shapes.into_context();
    drop(model);
    assert_eq!(
        ctx.render_dims(ctx.get("y").unwrap().shape.as_ref().unwrap()),
        text
    );
    assert_eq!(text, "[batch, sequence, 64]");
}

/// `Shapes::equal`, `le`, `bounds` and `simplify` answer under the model's facts
/// (here `batch` bound to 4, `sequence <= 512`, input symbols at least 1), which
/// `DimExpr`'s own arithmetic does not know, and change nothing.
#[test]
fn queries_answer_under_the_models_facts() {
    use symdim::algebra::interval::Bound;
    use symdim::algebra::Rat;
    use symdim::{Interval, Truth};
    let model = example();
    let facts = Facts::new().bind("batch", 4).assume("sequence <= 512");
    let shapes = symdim::infer(&model, &facts);
    let before = shapes.report();
    let classes = shapes.context().alg.egraph().number_of_classes();
    let (b, s) = (DimExpr::symbol("batch"), DimExpr::symbol("sequence"));
    let c = DimExpr::constant;
    let product = &b * &s;
    assert_eq!(product.to_string(), "batch*sequence");
    assert_eq!(shapes.simplify(&product).to_string(), "4*sequence");
    // floordiv(2*sequence, 4) is floordiv(sequence, 2).
    assert_eq!(
        shapes.simplify(&(&s * 2).floordiv(&b)).to_string(),
        "floordiv(sequence, 2)"
    );
    assert_eq!(shapes.equal(&b, &c(4)), Truth::True);
    assert_eq!(shapes.equal(&product, &(&s * 4)), Truth::True);
    assert_eq!(shapes.equal(&b, &c(5)), Truth::False);
    assert_eq!(shapes.equal(&s, &c(5)), Truth::Unknown);
    assert_eq!(shapes.le(&s, &c(512)), Truth::True);
    assert_eq!(shapes.le(&c(1), &s), Truth::True);
    assert_eq!(shapes.le(&c(513), &s), Truth::False);
    assert_eq!(shapes.le(&s, &c(100)), Truth::Unknown);
    let finite = |lo: i64, hi: i64| Interval {
        lo: Bound::Finite(Rat::int(lo)),
        hi: Bound::Finite(Rat::int(hi)),
    };
    // sequence in [1, 512]: 2*sequence + 1 in [3, 1025], 4*sequence in [4, 2048].
    assert_eq!(shapes.bounds(&s), finite(1, 512));
    assert_eq!(shapes.bounds(&(&s * 2 + 1)), finite(3, 1025));
    assert_eq!(shapes.bounds(&product), finite(4, 2048));
    // A dim read from the shapes is one the algebra holds.
    let y = shapes.shape("y").unwrap();
    assert_eq!(shapes.equal(&y[0], &c(4)), Truth::True);
    assert_eq!(shapes.equal(&y[1], &s), Truth::True);
    // Nothing changed.
    assert_eq!(shapes.context().alg.egraph().number_of_classes(), classes);
    assert_eq!(shapes.report(), before);
    // Without facts, the same questions are open.
    let free = symdim::infer(&model, &Facts::new());
    assert_eq!(free.equal(&b, &c(4)), Truth::Unknown);
    assert_eq!(free.simplify(&product).to_string(), "batch*sequence");
    assert_eq!(
        free.bounds(&s),
        Interval {
            lo: Bound::Finite(Rat::int(1)),
            hi: Bound::PosInf
        }
    );
}

/// An expression past the algebra's size limits could be held only as a placeholder
/// symbol (`big0`), numbered afresh in every scratch algebra, so two different such
/// expressions would come back as the same value: `DimExpr::parse` refuses it, and
/// the queries of `Shapes` answer as if nothing were known (`simplify` gives the
/// expression back), never naming a symbol of their scratch copy.
#[test]
fn expressions_past_the_limits_have_no_placeholder() {
    use symdim::algebra::AlgebraError;
    use symdim::{Interval, Truth};
    for text in ["((A+B+C+D+E+F+1)**64)**4", "((A+B+C+D+E+F+2)**64)**4"] {
        match DimExpr::parse(text) {
            Err(AlgebraError::TooLarge { warning }) => {
                let fresh = warning.placeholder().expect("a size limit's warning");
                assert!(fresh.to_string().starts_with("big"), "{fresh}");
                let err = AlgebraError::TooLarge {
                    warning: warning.clone(),
                };
                assert_eq!(
                    err.to_string(),
                    format!("too large for the algebra's limits: {warning}")
                );
            }
            other => panic!("{text}: {other:?}"),
        }
    }
    // The same size built with `DimExpr`'s arithmetic, over the model's symbols.
    let model = example();
    let shapes = symdim::infer(&model, &Facts::new());
    let names = ["batch", "B", "C", "D", "E", "sequence"];
    let s = names
        .iter()
        .map(|n| DimExpr::symbol(n))
        .fold(DimExpr::constant(-1), |acc, d| acc - d);
    let p64: DimExpr = std::iter::repeat_n(&s, 64).product();
    let e = &p64 * &p64 * &p64 * &p64 * &s;
    let e1 = &e + 1;
    assert_eq!(shapes.simplify(&e), e);
    assert_eq!(shapes.simplify(&e1), e1);
    assert_eq!(shapes.equal(&e, &e1), Truth::Unknown);
    assert_eq!(shapes.le(&DimExpr::constant(0), &e), Truth::Unknown);
    assert_eq!(shapes.bounds(&e), Interval::top());
    // An expression within the limits is simplified as before.
    assert_eq!(shapes.simplify(&(&s - &s + 3)), DimExpr::constant(3));
}

/// `DimExpr::parse` simplifies where names are at least 0, as the arithmetic does,
/// so what the arithmetic prints reads back as the same value: `max(S, 1)` is 1 at
/// `S = 0`, not `S`. "At least 1" is a model's fact: `Shapes::simplify` under it, or
/// `DimExpr::parse_with` the default `Config`.
#[test]
fn parse_reads_back_what_the_arithmetic_prints() {
    use symdim::algebra::Config;
    let s = DimExpr::symbol("S");
    let m = s.max(1);
    assert_eq!(m.to_string(), "max(S, 1)");
    let again = DimExpr::parse(&m.to_string()).unwrap();
    assert_eq!(again, m);
    let at0 = SymbolValues::new().with("S", 0);
    assert_eq!(again.eval(&at0), Ok(1));
    assert_eq!(DimExpr::parse("max(S, 0)").unwrap(), s);
    assert_eq!(DimExpr::parse("floordiv(4*S, 2)").unwrap(), 2 * &s);
    // With names at least 1 (an algebra's default), `max(S, 1)` is `S`.
    assert_eq!(
        DimExpr::parse_with("max(S, 1)", &Config::default()).unwrap(),
        s
    );
    // Under a model's facts (input symbols at least 1), likewise.
    let model = example();
    let shapes = symdim::infer(&model, &Facts::new());
    let seq = DimExpr::symbol("sequence");
    assert_eq!(
        shapes.simplify(&DimExpr::parse("max(sequence, 1)").unwrap()),
        seq
    );
}

/// `Shapes::equal` answers for valid models: an equality inference assumed (a MatMul
/// of `[M, K1]` by `[K2, N]` needs `K1 == K2`) counts as a fact, and the assumption
/// is listed as a warning and as a condition of the contract.
#[test]
fn equal_counts_what_inference_assumed() {
    use common::pb;
    use symdim::context::Severity;
    use symdim::Truth;
    let model = symdim::load_bytes(&pb::matmul_model(), "mm.onnx", &Default::default()).unwrap();
    let shapes = symdim::infer(&model, &Facts::new());
    let (k1, k2) = (DimExpr::symbol("K1"), DimExpr::symbol("K2"));
    assert_eq!(shapes.equal(&k1, &k2), Truth::True);
    assert_eq!(shapes.equal(&DimExpr::symbol("M"), &k1), Truth::Unknown);
    let warnings: Vec<String> = shapes
        .all_diagnostics()
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .map(ToString::to_string)
        .collect();
    // The op and the model's opset (`pb::model`'s 17), the operands MatMul
    // contracts, and the assumption with the condition under which it holds.
    assert_eq!(
        warnings,
        [
            "warning at mm: MatMul-17: the contracted dim (K) of inputs 0 and 1: \
          K1 and K2 assumed equal (valid when K1 == K2)"
        ]
    );
    // A condition line is the kind padded to 11 columns, a space, the condition
    // (padded to the longest), two spaces and where it comes from.
    let contract = shapes.contract().to_text();
    assert!(
        contract.contains("equal       K1 == K2  [relation at mm]"),
        "{contract}"
    );
}

// The facade's values cross threads: this file does not compile if one of them
// stops being `Send + Sync`.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<symdim::Model>();
    send_sync::<symdim::Shapes<'static>>();
    send_sync::<symdim::DimExpr>();
    send_sync::<symdim::Facts>();
};

/// One model shared by threads that each infer it under their own facts, and shapes
/// read on another thread than the one that made them.
#[test]
fn models_and_shapes_cross_threads() {
    let model = std::sync::Arc::new(example());
    let shapes = symdim::infer(&model, &Facts::new());
    let (y, bound) = std::thread::scope(|scope| {
        let y = scope.spawn(|| texts(&shapes.shape("y").unwrap()));
        let bound: Vec<_> = (1..=4)
            .map(|n| {
                let model = std::sync::Arc::clone(&model);
                scope.spawn(move || {
                    let shapes = symdim::infer(&model, &Facts::new().bind("batch", n));
                    texts(&shapes.shape("y").unwrap())
                })
            })
            .collect();
        let bound: Vec<_> = bound.into_iter().map(|h| h.join().unwrap()).collect();
        (y.join().unwrap(), bound)
    });
    assert_eq!(y, ["batch", "sequence", "64"]);
    for (n, y) in (1..=4).zip(bound) {
        assert_eq!(y, [n.to_string().as_str(), "sequence", "64"]);
    }
}

/// Dims are at least 0: a negative integer (or constant expression) as an input dim,
/// and a negative lower bound in the configuration, are refused by
/// `Facts::validate` with the values, and inference reports them as errors and
/// leaves them out (the declared dim, the default bound).
#[test]
fn negative_dims_and_lower_bounds_are_refused() {
    use symdim::algebra::{Config, Rat};
    use symdim::context::facts::LowerBound;
    use symdim::Interval;
    let model = example();
    let error_causes = |shapes: &symdim::Shapes<'_>| -> Vec<Option<Cause>> {
        shapes
            .diagnostics()
            .iter()
            .filter(|d| d.severity == symdim::context::Severity::Error)
            .map(|d| d.cause.clone())
            .collect()
    };
    for (dim, axis) in [("-3", 0), ("2 - 5", 1)] {
        let facts = Facts::new().input_dim("x", axis, dim);
        let want = FactsError::InputDim(InputDimError::Negative {
            tensor: "x".to_string(),
            axis,
            value: Rat::int(-3),
        });
        assert_eq!(facts.validate(&model), Err(want.clone()));
        assert_eq!(
            want.to_string(),
            format!("input dim x[{axis}]: -3 is negative, and dims are at least 0")
        );
        let shapes = symdim::infer(&model, &facts);
        assert_eq!(error_causes(&shapes), [Some(Cause::Facts(want))]);
        assert_eq!(
            texts(&shapes.shape("y").unwrap()),
            ["batch", "sequence", "64"]
        );
    }
    // 0 is a dim. (Then the model's Reshape to `[0, 0, -1]` cannot infer its -1,
    // an error of the op, not of the facts.)
    let zero = Facts::new().input_dim("x", 0, "0");
    assert_eq!(zero.validate(&model), Ok(()));
    let shapes = symdim::infer(&model, &zero);
    assert!(
        !shapes
            .diagnostics()
            .iter()
            .any(|d| matches!(d.cause, Some(Cause::Facts(_)))),
        "{:?}",
        shapes.diagnostics()
    );
    assert_eq!(texts(&shapes.shape("x").unwrap()), ["0", "sequence", "64"]);

    let config = |input: i64, dim: i64| Config {
        input_lower: Rat::int(input),
        dim_lower: Rat::int(dim),
        ..Config::default()
    };
    let negative = |bound: LowerBound, v: i64| FactsError::NegativeLowerBound {
        bound,
        value: Rat::int(v),
    };
    let (input, dim) = (
        negative(LowerBound::Input, -1),
        negative(LowerBound::Dim, -2),
    );
    assert_eq!(
        input.to_string(),
        "the lower bound of input symbols (input_lower) is -1: dims are at least 0"
    );
    assert_eq!(
        dim.to_string(),
        "the lower bound of other dims (dim_lower) is -2: dims are at least 0"
    );
    for (config, first, all) in [
        (config(-1, 0), &input, vec![&input]),
        (config(1, -2), &dim, vec![&dim]),
        (config(-1, -2), &input, vec![&input, &dim]),
    ] {
        let facts = Facts::new().with_config(config);
        assert_eq!(facts.validate(&model), Err(first.clone()));
        let shapes = symdim::infer(&model, &facts);
        let want: Vec<_> = all
            .into_iter()
            .map(|e| Some(Cause::Facts(e.clone())))
            .collect();
        assert_eq!(error_causes(&shapes), want);
        // The default holds: input symbols from 1.
        let s = DimExpr::symbol("sequence");
        assert_eq!(shapes.bounds(&s), Interval::at_least(Rat::one()));
    }
    // Input symbols from 0 are valid.
    let facts = Facts::new().with_config(config(0, 0));
    assert_eq!(facts.validate(&model), Ok(()));
    let shapes = symdim::infer(&model, &facts);
    assert_eq!(
        shapes.bounds(&DimExpr::symbol("sequence")),
        Interval::at_least(Rat::zero())
    );
}

/// An interrupt that never says stop changes nothing and is polled (at every node
/// and initializer at least); one that says stop at once leaves every node output
/// unknown and stays tripped.
#[test]
fn an_interrupt_stops_inference_and_one_never_asked_changes_nothing() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use symdim::algebra::Interrupt;
    let model = example();
    let plain = symdim::infer(&model, &Facts::new());

    let polls = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&polls);
    let mut facts = Facts::new();
    facts.config.interrupt = Some(Interrupt::new(move || {
        count.fetch_add(1, Ordering::Relaxed);
        false
    }));
    let asked = symdim::infer(&model, &facts);
    let g = &model.graph;
    assert!(polls.load(Ordering::Relaxed) >= g.nodes.len() + g.initializers.len());
    assert_eq!(
        symdim::Report::build(&model, &asked.into_context()).to_json(),
        symdim::Report::build(&model, &plain.into_context()).to_json()
    );

    let stop = Interrupt::new(|| true);
    let mut facts = Facts::new();
    facts.config.interrupt = Some(stop.clone());
    let stopped = symdim::infer(&model, &facts);
    assert!(stop.tripped());
    assert_eq!(stopped.shape("y"), None, "the output y is not inferred");
    assert_eq!(
        texts(&stopped.shape("x").unwrap()),
        ["batch", "sequence", "64"],
        "graph inputs keep their declared shapes"
    );
}
