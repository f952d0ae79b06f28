//! Sequences and optionals through If and Loop against onnxruntime.
//!
//! `tests/fixtures/seq_control/ort_cases.json` (written by `gen_ort_cases.py`
//! beside it) holds small models, hex-encoded, whose inputs have symbolic dims: If
//! branches that output sequences or optionals, Loops that carry a sequence or read
//! one, and for several bindings of the symbols (and both values of a condition
//! input) what onnxruntime produced: each tensor's shape (an integer tensor's
//! contents), each sequence's element shapes, each optional's presence. symdim
//! infers each model once, symbolically; every dim, length and known content is
//! evaluated at each binding and compared. The outputs a case lists as `exact` must
//! be known exactly; the others may be less precise, never wrong. The same models
//! annotated by `-o` get sequence and optional types, which onnx's checker and
//! onnxruntime accept.

use crate::common;

use common::fixture::{binding, hex, ints};
use common::ort_cases::load;
use serde_json::Value;
use std::collections::HashMap;
use symdim::algebra::{Dim, Rat};
use symdim::context::{OptionalElement, ShapesContext, TensorFact};
use symdim::read::load::LoadOptions;
use symdim::read::onnx::{Dim as OnnxDim, ModelProto, TypeProto};
use symdim::Facts;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/seq_control/ort_cases.json"
);

/// Compares symbolic dims with runtime values: pushes a message for each that
/// differs, and returns whether every one evaluated.
struct Checker<'a> {
    ctx: &'a ShapesContext,
    env: &'a dyn Fn(&str) -> Option<Rat>,
    wrong: Vec<String>,
}

impl Checker<'_> {
    fn dims(&mut self, dims: &[Dim], want: &[i64], what: &str) -> bool {
        if dims.len() != want.len() {
            self.wrong
                .push(format!("{what}: rank {} vs {want:?}", dims.len()));
            return true;
        }
        let mut precise = true;
        for (d, w) in dims.iter().zip(want) {
            match self.ctx.alg.eval(*d, self.env) {
                Some(v) if v == Rat::int(*w) => {}
                Some(v) => self.wrong.push(format!(
                    "{what}: {} = {v}, runtime {want:?}",
                    self.ctx.alg.render(*d)
                )),
                None => precise = false,
            }
        }
        precise
    }

    /// A tensor's shape and, when the runtime recorded it, its contents.
    fn tensor(&mut self, fact: &TensorFact, want: &Value, what: &str) -> bool {
        let mut precise = match &fact.shape {
            Some(s) => self.dims(s, &ints(&want["shape"]), what),
            None => false,
        };
        if let Some(v) = want.get("value") {
            precise &= match &fact.value {
                Some(x) => self.dims(x, &ints(v), &format!("{what} contents")),
                None => false,
            };
        }
        precise
    }
}

#[test]
fn sequences_and_optionals_through_control_flow_match_onnxruntime() {
    let doc = load(FIXTURE);
    assert!(
        doc["not_run"].as_array().unwrap().is_empty(),
        "every case runs in onnxruntime"
    );
    let (mut runs, mut exact, mut vague) = (0, 0, 0);
    let mut wrong = Vec::new();
    for case in doc["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let model = symdim::load_bytes(
            &hex(case["model"].as_str().unwrap()),
            name,
            &LoadOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let ctx = symdim::infer(&model, &Facts::default()).into_context();
        for d in &ctx.diagnostics {
            wrong.push(format!("{name}: diagnostic: {d}"));
        }
        let must: Vec<&str> = case["exact"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o.as_str().unwrap())
            .collect();
        assert!(!case["runs"].as_array().unwrap().is_empty(), "{name} ran");
        for run in case["runs"].as_array().unwrap() {
            runs += 1;
            let bind = binding(&run["bind"]);
            let env = |s: &str| bind.get(s).map(|v| Rat::int(*v));
            let mut check = Checker {
                ctx: &ctx,
                env: &env,
                wrong: Vec::new(),
            };
            for (o, want) in run["outputs"].as_object().unwrap() {
                let what = format!("{name} {o} at {bind:?} cond {}", run["cond"]);
                let kind = want["kind"].as_str().unwrap();
                let precise = if let Some(seq) = ctx.sequence(o) {
                    assert_eq!(kind, "sequence", "{what}");
                    let elems: Vec<Vec<i64>> = want["elements"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(ints)
                        .collect();
                    let n = elems.len() as i64;
                    let mut precise = match seq.len {
                        Some(l) => check.dims(&[l], &[n], &format!("{what} length")),
                        None => false,
                    };
                    for (k, e) in elems.iter().enumerate() {
                        precise &= match &seq.element(k).shape {
                            Some(s) => check.dims(s, e, &format!("{what} element {k}")),
                            None => false,
                        };
                    }
                    precise
                } else if let Some(opt) = ctx.optional(o) {
                    let present = kind != "optional";
                    if opt.present.is_some_and(|p| p != present) {
                        check.wrong.push(format!(
                            "{what}: present {:?}, runtime {present}",
                            opt.present
                        ));
                    }
                    let mut precise = opt.present.is_some();
                    if let (true, OptionalElement::Tensor(t)) = (present, &opt.elem) {
                        precise &= check.tensor(t, want, &what);
                    }
                    precise
                } else {
                    assert_eq!(kind, "tensor", "{what}: symdim has no sequence facts");
                    let fact = ctx.get(o).unwrap_or_else(|| panic!("{what}: no fact"));
                    check.tensor(fact, want, &what)
                };
                if precise {
                    exact += 1;
                } else {
                    vague += 1;
                    if must.contains(&o.as_str()) {
                        check.wrong.push(format!("{what}: not known exactly"));
                    }
                }
            }
            wrong.extend(check.wrong);
        }
    }
    eprintln!("runs {runs}: outputs exact {exact}, less precise {vague}");
    assert!(wrong.is_empty(), "wrong:\n{}", wrong.join("\n"));
}

/// The fixture case `name`'s model bytes.
fn case_model(doc: &Value, name: &str) -> Vec<u8> {
    let case = doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no case {name}"));
    hex(case["model"].as_str().unwrap())
}

/// A written type, rendered: `seq(f32[N, S])`, `optional(f32[N, ?])`, `f32[N]`.
fn render_type(t: &TypeProto<'_>) -> String {
    match t {
        TypeProto::Tensor(t) => {
            let dims: Vec<String> = t
                .shape
                .iter()
                .flatten()
                .map(|d| match d {
                    OnnxDim::Value(v) => v.to_string(),
                    OnnxDim::Param(p) => p.to_string(),
                    OnnxDim::Unknown => "?".to_string(),
                })
                .collect();
            match &t.shape {
                Some(_) => format!("{}[{}]", t.elem_type.short_name(), dims.join(", ")),
                None => t.elem_type.short_name().to_string(),
            }
        }
        TypeProto::Sequence(Some(e)) => format!("seq({})", render_type(e)),
        TypeProto::Optional(Some(e)) => format!("optional({})", render_type(e)),
        other => format!("{other:?}"),
    }
}

/// `-o` gives a sequence a `sequence_type` and an optional an `optional_type` (the
/// element type and shape inside, an element dim the elements may not share
/// unknown), or nothing when what the elements are is not known; never a tensor
/// type. (That onnx's checker and onnxruntime accept the written models is
/// [`annotated_models_pass_onnx_checker_and_onnxruntime`].)
#[test]
fn annotated_sequences_and_optionals_get_their_own_types() {
    let doc = load(FIXTURE);
    let expect: &[(&str, &[(&str, &str)])] = &[
        (
            "loop_insert_into_empty",
            &[
                ("q", "seq(f32[N, S])"),
                ("n", "i64[]"),
                ("c", "f32[N*N, S]"),
                ("k", "f32[N, N, S]"),
            ],
        ),
        ("loop_insert_growing", &[("q", "seq(f32[?, S])")]),
        // declared `seq(tensor(float))`: the element shape is added
        ("loop_insert_declared", &[("q", "seq(f32[N, S])")]),
        ("if_sequences_differ", &[("q", "seq(f32[N, ?])")]),
        ("if_optional_or_empty", &[("o", "optional(f32[N, S])")]),
        ("loop_insert_constant_trip", &[("s0", "seq(f32[N, S])")]),
    ];
    // Values whose elements are not known (an empty sequence's) get no type.
    let absent: &[(&str, &str)] = &[("loop_insert_into_empty", "e")];
    for (name, types) in expect {
        let bytes = case_model(&doc, name);
        let model = symdim::load_bytes(&bytes, name, &LoadOptions::default()).unwrap();
        let ctx = symdim::infer(&model, &Facts::default()).into_context();
        let report = symdim::Report::build(&model, &ctx);
        let out = symdim::report::annotate::annotated_bytes(&model, &bytes, &report).unwrap();
        let m = ModelProto::parse(&out).unwrap();
        let g = m.graph().unwrap();
        let written: HashMap<&str, String> = g
            .output
            .iter()
            .chain(&g.value_info)
            .filter_map(|v| v.r#type.as_ref().map(|t| (v.name, render_type(t))))
            .collect();
        for (value, want) in *types {
            assert_eq!(
                written.get(value).map(String::as_str),
                Some(*want),
                "{name} {value}"
            );
        }
        for (value, t) in &written {
            if ctx.sequence(value).is_some() {
                assert!(t.starts_with("seq("), "{name} {value}: {t}");
            }
            if ctx.optional(value).is_some() {
                assert!(t.starts_with("optional("), "{name} {value}: {t}");
            }
        }
        for (case, value) in absent {
            if case == name {
                assert!(!written.contains_key(value), "{name} {value}");
            }
        }
    }
}

/// With `SYMDIM_PYTHON` naming a Python that has `onnx` and `onnxruntime`, every
/// fixture model annotated by `-o` passes onnx's checker (`full_check`) and runs in
/// onnxruntime with the original's outputs (`check_annotated.py` beside the fixture).
/// Without one (unset, or `skip`) the test passes without running anything.
#[test]
fn annotated_models_pass_onnx_checker_and_onnxruntime() {
    let python = match std::env::var_os("SYMDIM_PYTHON") {
        Some(p) if p != "skip" => p,
        _ => {
            eprintln!("skipping: set SYMDIM_PYTHON to a Python with onnx and onnxruntime");
            return;
        }
    };
    let has = std::process::Command::new(&python)
        .args(["-c", "import onnx, onnxruntime, numpy"])
        .status()
        .is_ok_and(|s| s.success());
    if !has {
        assert!(
            std::env::var_os("CI").is_none(),
            "SYMDIM_PYTHON cannot import onnx and onnxruntime"
        );
        eprintln!("skipping: SYMDIM_PYTHON cannot import onnx and onnxruntime");
        return;
    }
    let doc = load(FIXTURE);
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("seq_control_annotated");
    std::fs::create_dir_all(&dir).unwrap();
    let mut args = Vec::new();
    for case in doc["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let bytes = hex(case["model"].as_str().unwrap());
        let model = symdim::load_bytes(&bytes, name, &LoadOptions::default()).unwrap();
        let ctx = symdim::infer(&model, &Facts::default()).into_context();
        let report = symdim::Report::build(&model, &ctx);
        let out = symdim::report::annotate::annotated_bytes(&model, &bytes, &report).unwrap();
        let (a, b) = (
            dir.join(format!("{name}.onnx")),
            dir.join(format!("{name}.out.onnx")),
        );
        std::fs::write(&a, &bytes).unwrap();
        std::fs::write(&b, &out).unwrap();
        args.push(a);
        args.push(b);
    }
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/seq_control/check_annotated.py"
    );
    let status = std::process::Command::new(&python)
        .arg(script)
        .args(&args)
        .status()
        .expect("python runs");
    assert!(status.success(), "check_annotated.py failed");
}

/// A value of unknown rank out of an op symdim has no rule for may be anything (a
/// sequence, a map): `-o` writes no type for it. A Squeeze without `axes` on a
/// symbolic dim has a rule that cannot tell the rank (a warning), but its output is
/// a tensor by the op's schema: its element type is written.
#[test]
fn unknown_rank_values_get_a_type_only_when_they_are_tensors() {
    use common::pb::{graph, model, node, value_info, Msg};
    let custom = node("custom", "Frobnicate", &["x"], &["y"]).str(7, "x.custom");
    let squeeze = node("squeeze", "Squeeze", &["x"], &["z"]);
    let g = graph(
        vec![custom, squeeze],
        vec![],
        vec![value_info("x", 1, Some(&["1", "N"]))],
        vec![],
        vec![],
    );
    // The custom domain's import, next to the default one.
    let bytes = [
        model(g),
        Msg::new().msg(8, Msg::new().str(1, "x.custom").int(2, 1)).0,
    ]
    .concat();
    let model = symdim::load_bytes(&bytes, "m.onnx", &LoadOptions::default()).unwrap();
    let ctx = symdim::infer(&model, &Facts::default()).into_context();
    let report = symdim::Report::build(&model, &ctx);
    assert!(report.tensors["y"].shape.is_none() && report.tensors["z"].shape.is_none());
    let out = symdim::report::annotate::annotated_bytes(&model, &bytes, &report).unwrap();
    let m = ModelProto::parse(&out).unwrap();
    let written: HashMap<&str, String> = m
        .graph()
        .unwrap()
        .value_info
        .iter()
        .filter_map(|v| v.r#type.as_ref().map(|t| (v.name, render_type(t))))
        .collect();
    assert_eq!(written.get("z").map(String::as_str), Some("f32"));
    assert!(!written.contains_key("y"), "{written:?}");
}
