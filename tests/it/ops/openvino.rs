//! The OpenVINO rules of `docs/ops/openvino.md` (ScaledDotProductAttention,
//! GatherND, If, Loop, TensorIterator, the scatter ops, Einsum, OneHot, detection,
//! Fourier, patches, embeddings, ...): hand-built cases with expected values worked out
//! from the OpenVINO operation specification, and the probe against OpenVINO's own
//! shape inference.
//!
//! `tests/fixtures/openvino_ops/ov_cases.json` (written by `gen_ov_cases.py` beside
//! it) holds one-op IR models built with OpenVINO's Python API, OpenVINO's output
//! shapes with every symbol dynamic, and its output shapes after reshaping the
//! model to several bindings of the symbols. symdim infers each model once, with
//! the Parameters' dynamic dims named by the symbols; every output dim is
//! evaluated at each binding and compared.

use crate::common;

use common::fixture::{binding, hex};
use serde_json::Value;
use symdim::algebra::Rat;
use symdim::context::{Cause, Severity, ShapesContext};
use symdim::graph::{DType, DeclDim};
use symdim::read::openvino::{to_graph, ElementType, IrModel, Weights};
use symdim::Facts;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/openvino_ops/ov_cases.json"
);
const OPSETS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/openvino_ops/opset_ops.txt"
);

/// Infer one case's model with its Parameters' dims named by the case's symbols.
fn infer_case(case: &Value) -> ShapesContext {
    let ir = IrModel::parse(case["xml"].as_str().unwrap()).unwrap();
    let w = Weights::from_bytes(hex(case["bin"].as_str().unwrap()));
    let mut m = to_graph::to_model(&ir, &w, "case.xml").unwrap();
    let symbols = case["symbols"].as_object().unwrap();
    for input in &mut m.graph.inputs {
        let Some(dims) = symbols.get(&*input.name) else {
            continue;
        };
        let dims = dims.as_array().unwrap();
        input.shape = Some(
            dims.iter()
                .map(|d| match d {
                    Value::Number(n) => DeclDim::Value(n.as_i64().unwrap()),
                    Value::String(s) => DeclDim::Param(s.clone()),
                    other => panic!("dim {other}"),
                })
                .collect(),
        );
    }
    symdim::infer(&m, &Facts::default()).into_context()
}

fn ov_dtype(name: &str) -> DType {
    to_graph::dtype_of(ElementType::parse(name).unwrap_or_else(|| panic!("type {name}")))
}

/// Each output of each case against OpenVINO: dtype, rank, OpenVINO's static dims,
/// and every dim at every binding. A dim OpenVINO knows that symdim leaves
/// data-dependent is counted as less precise; a different value is wrong.
#[test]
fn rules_match_openvino() {
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(FIXTURE).expect("fixture")).unwrap();
    let (mut cases, mut dims, mut closed) = (0, 0, 0);
    let mut wrong = Vec::new();
    let mut less = Vec::new();
    for case in doc["cases"].as_array().unwrap() {
        cases += 1;
        let name = case["name"].as_str().unwrap();
        let ctx = infer_case(case);
        for d in &ctx.diagnostics {
            if d.severity == Severity::Error || matches!(d.cause, Some(Cause::NoRule { .. })) {
                wrong.push(format!("{name}: {d}"));
            }
        }
        for (i, out) in case["outputs"].as_array().unwrap().iter().enumerate() {
            let o = format!("out{i}");
            let Some(fact) = ctx.get(&o) else {
                wrong.push(format!("{name} {o}: no fact"));
                continue;
            };
            let want = ov_dtype(out["dtype"].as_str().unwrap());
            if fact.dtype != want {
                wrong.push(format!("{name} {o}: dtype {} vs {want}", fact.dtype));
            }
            let Some(ov_dims) = out["dims"].as_array() else {
                continue; // OpenVINO does not know the rank either
            };
            let Some(shape) = &fact.shape else {
                less.push(format!("{name} {o}: unknown rank"));
                continue;
            };
            if shape.len() != ov_dims.len() {
                wrong.push(format!(
                    "{name} {o}: rank {} vs {}",
                    shape.len(),
                    ov_dims.len()
                ));
                continue;
            }
            for (d, w) in shape.iter().zip(ov_dims) {
                dims += 1;
                match w.as_i64() {
                    Some(w) if ctx.alg.as_i64(*d) == Some(w) => {}
                    Some(w) => less.push(format!(
                        "{name} {o}: {} where OpenVINO has {w}",
                        ctx.alg.render(*d)
                    )),
                    None if ctx.alg.as_i64(*d).is_some()
                        || ctx.alg.eval(*d, &|_| Some(Rat::int(2))).is_some() =>
                    {
                        closed += 1
                    }
                    None => {}
                }
            }
            for run in case["runs"].as_array().unwrap() {
                let bind = binding(&run["bind"]);
                let env = |s: &str| bind.get(s).map(|v| Rat::int(*v));
                let Some(ws) = run["shapes"][i].as_array() else {
                    continue;
                };
                for (d, w) in shape.iter().zip(ws) {
                    let Some(w) = w.as_i64() else {
                        continue; // data-dependent in OpenVINO too
                    };
                    match ctx.alg.eval(*d, &env) {
                        Some(v) if v == Rat::int(w) => {}
                        Some(v) => wrong.push(format!(
                            "{name} {o} at {bind:?}: {} = {v}, OpenVINO {w}",
                            ctx.alg.render(*d)
                        )),
                        None => less.push(format!(
                            "{name} {o} at {bind:?}: {} where OpenVINO has {w}",
                            ctx.alg.render(*d)
                        )),
                    }
                }
            }
        }
    }
    println!(
        "{cases} cases, {dims} output dims; {closed} closed forms where OpenVINO's \
         dynamic-shape inference has `?`; {} less precise",
        less.len()
    );
    for l in &less {
        println!("  less precise: {l}");
    }
    assert!(
        wrong.is_empty(),
        "{} mismatches:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(cases >= 120, "the fixture has {cases} cases");
}

/// Every op of OpenVINO opsets 1 to 16 has a rule (Parameter, Constant and Result
/// are read by the IR reader, not inferred).
#[test]
fn every_opset_op_has_a_rule() {
    let text = std::fs::read_to_string(OPSETS).expect("opset list");
    let mut missing = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (name, _) = line.rsplit_once('-').unwrap();
        if matches!(name, "Parameter" | "Constant" | "Result") {
            continue;
        }
        let listed = symdim::ops::FAMILIES
            .iter()
            .flat_map(|f| f.iter())
            .any(|(d, op, _)| *d == "openvino" && *op == name);
        if !listed {
            missing.push(line.to_string());
        }
    }
    assert!(missing.is_empty(), "no rule for {missing:?}");
}

// ----- hand-built cases from the specification --------------------------------------------

use crate::common::models;

use models::{apply, put, shapes};
use symdim::context::{node_context, OpError};
use symdim::graph::{Attr, Node};

const F32: DType = DType::Float;
const I32: DType = DType::Int32;
const I64: DType = DType::Int64;

/// An OpenVINO node of `op`, version `v`.
fn ov(op: &str, v: i64, inputs: &[&str], outputs: usize, attrs: Vec<(&str, Attr)>) -> Node {
    Node {
        name: format!("{op}_t"),
        op_type: op.into(),
        domain: "openvino".to_string(),
        version: v,
        inputs: inputs.iter().map(|s| (*s).into()).collect(),
        outputs: (0..outputs).map(|i| format!("y{i}").into()).collect(),
        attrs: models::attrs(attrs),
    }
}

fn run(ctx: &mut ShapesContext, n: &Node) -> Vec<String> {
    let f = apply(ctx, n).unwrap_or_else(|e| panic!("{}: {e}", n.op_type));
    shapes(ctx, &f)
}

fn one(ctx: &mut ShapesContext, n: &Node) -> (String, String, DType) {
    let f = apply(ctx, n).unwrap_or_else(|e| panic!("{}: {e}", n.op_type));
    (
        shapes(ctx, &f)[0].clone(),
        models::value(ctx, &f[0]),
        f[0].dtype,
    )
}

fn int(v: i64) -> Attr {
    Attr::Int(v)
}

fn ints(v: &[i64]) -> Attr {
    Attr::Ints(v.to_vec())
}

fn text(v: &str) -> Attr {
    Attr::Str(v.to_string())
}

#[test]
fn scaled_dot_product_attention() {
    let mut ctx = ShapesContext::default();
    // the spec's example 2: three batch dims, L and S dynamic
    put(&mut ctx, "q", F32, &["1", "2", "3", "L", "80"], None);
    put(&mut ctx, "k", F32, &["1", "2", "3", "S", "80"], None);
    put(&mut ctx, "v", F32, &["1", "2", "3", "S", "80"], None);
    put(&mut ctx, "m", F32, &["1", "2", "3", "L", "S"], None);
    let n = ov(
        "ScaledDotProductAttention",
        13,
        &["q", "k", "v", "m"],
        1,
        vec![("causal", int(0))],
    );
    assert_eq!(run(&mut ctx, &n), ["[1, 2, 3, L, 80]"]);
    // Ev comes from value; the batch dims broadcast (the spec's example 3 made valid)
    put(&mut ctx, "q3", F32, &["1", "6", "5", "L", "80"], None);
    put(&mut ctx, "k3", F32, &["4", "1", "5", "S", "80"], None);
    put(&mut ctx, "v3", F32, &["1", "6", "1", "S", "64"], None);
    let n = ov(
        "ScaledDotProductAttention",
        13,
        &["q3", "k3", "v3"],
        1,
        vec![("causal", int(1))],
    );
    assert_eq!(run(&mut ctx, &n), ["[4, 6, 5, L, 64]"]);
    // causal ignores the mask, whatever its shape
    put(&mut ctx, "bad", F32, &["7", "7"], None);
    let n = ov(
        "ScaledDotProductAttention",
        13,
        &["q", "k", "v", "bad"],
        1,
        vec![("causal", int(1))],
    );
    assert_eq!(run(&mut ctx, &n), ["[1, 2, 3, L, 80]"]);
    // a mask with L = 1 broadcasts
    put(&mut ctx, "m1", F32, &["1", "1", "S"], None);
    let n = ov(
        "ScaledDotProductAttention",
        13,
        &["q", "k", "v", "m1"],
        1,
        vec![("causal", int(0))],
    );
    assert_eq!(run(&mut ctx, &n), ["[1, 2, 3, L, 80]"]);
}

#[test]
fn gather_nd_versions() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "d", F32, &["A", "B", "4", "5"], None);
    put(&mut ctx, "i", I32, &["A", "B", "7", "1"], None);
    let b2 = || vec![("batch_dims", int(2))];
    // 5 flattens the batch dims into their product, 8 keeps them
    let n5 = ov("GatherND", 5, &["d", "i"], 1, b2());
    assert_eq!(run(&mut ctx, &n5), ["[A*B, 7, 5]"]);
    let n8 = ov("GatherND", 8, &["d", "i"], 1, b2());
    assert_eq!(run(&mut ctx, &n8), ["[A, B, 7, 5]"]);
    // the spec's batch_dims = 0 example: indices [2, 2] into [2, 2] data gives [2]
    put(&mut ctx, "d2", F32, &["2", "2"], None);
    put(&mut ctx, "i2", I64, &["2", "2"], None);
    let n = ov("GatherND", 8, &["d2", "i2"], 1, vec![]);
    assert_eq!(run(&mut ctx, &n), ["[2]"]);
}

#[test]
fn one_hot_negative_indices() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "i", I64, &["3"], Some(&["0", "-1", "2"]));
    put(&mut ctx, "depth", I64, &[], Some(&["3"]));
    put(&mut ctx, "on", F32, &[], Some(&["1"]));
    put(&mut ctx, "off", F32, &[], Some(&["0"]));
    let ins = ["i", "depth", "on", "off"];
    // version 1 ignores a negative index: a row of off_value
    let n = ov("OneHot", 1, &ins, 1, vec![("axis", int(-1))]);
    assert_eq!(
        one(&mut ctx, &n),
        ("[3, 3]".into(), "[1, 0, 0, 0, 0, 0, 0, 0, 1]".into(), F32)
    );
    // 16 with normalize counts it from the end
    let n = ov(
        "OneHot",
        16,
        &ins,
        1,
        vec![
            ("axis", int(-1)),
            ("negative_indices_mode", text("normalize")),
        ],
    );
    assert_eq!(one(&mut ctx, &n).1, "[1, 0, 0, 0, 0, 1, 0, 0, 1]");
    // axis 0 puts depth first
    let n = ov("OneHot", 1, &ins, 1, vec![("axis", int(0))]);
    assert_eq!(one(&mut ctx, &n).0, "[3, 3]");
    put(&mut ctx, "j", I32, &["A", "B"], None);
    let n = ov(
        "OneHot",
        1,
        &["j", "depth", "on", "off"],
        1,
        vec![("axis", int(1))],
    );
    assert_eq!(one(&mut ctx, &n).0, "[A, 3, B]");
}

#[test]
fn fourier_transforms() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", F32, &["A", "B", "K", "2"], None);
    put(&mut ctx, "r", F32, &["A", "B", "K"], None);
    put(&mut ctx, "axes", I64, &["2"], Some(&["1", "2"]));
    put(&mut ctx, "sizes", I64, &["2"], Some(&["-1", "S"]));
    // DFT keeps the shape; a signal size replaces the axis unless it is -1
    let n = ov("DFT", 7, &["x", "axes"], 1, vec![]);
    assert_eq!(run(&mut ctx, &n), ["[A, B, K, 2]"]);
    let n = ov("IDFT", 7, &["x", "axes", "sizes"], 1, vec![]);
    assert_eq!(run(&mut ctx, &n), ["[A, B, S, 2]"]);
    // RDFT halves the last transformed axis (+ 1) and adds the complex axis
    let n = ov("RDFT", 9, &["r", "axes"], 1, vec![]);
    let f = apply(&mut ctx, &n).unwrap();
    let d = f[0].shape.as_ref().unwrap()[2];
    let env = |s: &str| (s == "K").then(|| Rat::int(12));
    assert_eq!(ctx.alg.eval(d, &env), Some(Rat::int(7)));
    // IRDFT: 2 * (n - 1) on the last axis without a signal size
    let n = ov("IRDFT", 9, &["x", "axes"], 1, vec![]);
    assert_eq!(run(&mut ctx, &n), ["[A, B, 2*K - 2]"]);
}

#[test]
fn prior_box_counts() {
    use symdim::ops::nn::detection::{prior_count, PriorBoxSizes};
    // two min sizes, two max sizes, ratio 2 flipped: ratios {1, 2, 1/2}
    let a = PriorBoxSizes {
        min_size: 2,
        max_size: 2,
        aspect_ratio: vec![2.0],
        flip: true,
        scale_all_sizes: true,
        ..Default::default()
    };
    assert_eq!(prior_count(&a), 3 * 2 + 2);
    let b = PriorBoxSizes {
        scale_all_sizes: false,
        flip: false,
        aspect_ratio: vec![2.0, 3.0],
        ..a.clone()
    };
    assert_eq!(prior_count(&b), 3 + 2 - 1);
    // fixed sizes and densities
    let c = PriorBoxSizes {
        min_size: 1,
        fixed_size: 2,
        fixed_ratio: 2,
        density: vec![2.0, 3.0],
        scale_all_sizes: true,
        ..Default::default()
    };
    assert_eq!(prior_count(&c), 2 + 2 * 3 + 2 * 8);
}

#[test]
fn data_dependent_outputs() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", F32, &["A", "B"], None);
    // Unique: one count for the elements, indices and counts
    let n = ov("Unique", 10, &["x"], 4, vec![]);
    assert_eq!(
        run(&mut ctx, &n),
        ["[uniq0]", "[uniq0]", "[A*B]", "[uniq0]"]
    );
    put(&mut ctx, "axis", I64, &[], Some(&["1"]));
    let n = ov("Unique", 10, &["x", "axis"], 4, vec![]);
    assert_eq!(run(&mut ctx, &n)[0], "[A, uniq0]");
    // NonMaxSuppression 5: a data-dependent count; 4: counted over batch and classes
    put(&mut ctx, "boxes", F32, &["N", "M", "4"], None);
    put(&mut ctx, "scores", F32, &["N", "C", "M"], None);
    put(&mut ctx, "max", I64, &[], Some(&["5"]));
    let n = ov(
        "NonMaxSuppression",
        5,
        &["boxes", "scores", "max"],
        3,
        vec![],
    );
    assert_eq!(run(&mut ctx, &n), ["[nms0, 3]", "[nms0, 3]", "[1]"]);
    let n = ov(
        "NonMaxSuppression",
        4,
        &["boxes", "scores", "max"],
        1,
        vec![],
    );
    assert_eq!(run(&mut ctx, &n), ["[C*N*min(M, 5), 3]"]);
}

#[test]
fn openvino_backprop_data_auto_pad_without_output_shape() {
    // OpenVINO's formula: with auto_pad other than explicit the pads are 0 and
    // Y = s*(X - 1) + d*(K - 1) + 1 + output_padding. Checked with OpenVINO
    // 2026.4: data [2,4,9,10], filters [4,8,3,3], strides 2, pads 1, output_padding
    // [1, 0] gives [2,8,20,21] for same_upper, same_lower and valid, and
    // [2,8,18,19] for explicit.
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", DType::Float, &["2", "4", "9", "10"], None);
    put(&mut ctx, "w", DType::Float, &["4", "8", "3", "3"], None);
    put(&mut ctx, "xs", DType::Float, &["N", "4", "H", "W"], None);
    let attrs = |pad: &str| {
        vec![
            ("strides", ints(&[2, 2])),
            ("pads_begin", ints(&[1, 1])),
            ("pads_end", ints(&[1, 1])),
            ("dilations", ints(&[1, 1])),
            ("output_padding", ints(&[1, 0])),
            ("auto_pad", Attr::Str(pad.into())),
        ]
    };
    for pad in ["same_upper", "same_lower", "valid"] {
        let n = ov("ConvolutionBackpropData", 1, &["x", "w"], 1, attrs(pad));
        assert_eq!(run(&mut ctx, &n)[0], "[2, 8, 20, 21]", "{pad}");
        let n = ov("ConvolutionBackpropData", 1, &["xs", "w"], 1, attrs(pad));
        assert_eq!(run(&mut ctx, &n)[0], "[N, 8, 2*H + 2, 2*W + 1]", "{pad}");
    }
    let n = ov(
        "ConvolutionBackpropData",
        1,
        &["x", "w"],
        1,
        attrs("explicit"),
    );
    assert_eq!(run(&mut ctx, &n)[0], "[2, 8, 18, 19]");
    // the group form: filters [G, C/G, O/G, k...]
    put(
        &mut ctx,
        "gw",
        DType::Float,
        &["2", "2", "3", "3", "3"],
        None,
    );
    let n = ov(
        "GroupConvolutionBackpropData",
        1,
        &["x", "gw"],
        1,
        attrs("same_upper"),
    );
    assert_eq!(run(&mut ctx, &n)[0], "[2, 6, 20, 21]");
}

#[test]
fn openvino_tile_with_repeats_of_known_length() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", DType::Float, &["A", "B"], None);
    // repeats computed at run time, of length 3: rank 3, every repeated axis fresh
    put(&mut ctx, "r3", DType::Int64, &["3"], None);
    let n = ov("Tile", 1, &["x", "r3"], 1, vec![]);
    let s = run(&mut ctx, &n).remove(0);
    assert_eq!(s.matches("unk").count(), 3, "{s}");
    // of length 1 on a rank-2 input: the first axis is not repeated
    put(&mut ctx, "r1", DType::Int64, &["1"], None);
    let n = ov("Tile", 1, &["x", "r1"], 1, vec![]);
    let s = run(&mut ctx, &n).remove(0);
    assert!(s.starts_with("[A, unk"), "{s}");
    // known repeats still multiply
    put(&mut ctx, "rk", DType::Int64, &["1"], Some(&["3"]));
    let n = ov("Tile", 1, &["x", "rk"], 1, vec![]);
    assert_eq!(run(&mut ctx, &n)[0], "[A, 3*B]");
    // a length not known: unknown rank
    put(&mut ctx, "rn", DType::Int64, &["K"], None);
    let n = ov("Tile", 1, &["x", "rn"], 1, vec![]);
    assert_eq!(run(&mut ctx, &n)[0], "unknown rank");
}

#[test]
fn error_messages() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "q2", F32, &["L", "64"], None);
    put(&mut ctx, "q", F32, &["N", "L", "64"], None);
    put(&mut ctx, "k80", F32, &["N", "S", "80"], None);
    put(&mut ctx, "d", F32, &["A", "B", "4"], None);
    put(&mut ctx, "i4", I32, &["A", "7", "4"], None);
    put(&mut ctx, "d3", F32, &["5", "3", "4"], None);
    put(&mut ctx, "i2", I32, &["2", "2"], None);
    put(&mut ctx, "u", F32, &["5", "2", "2", "5"], None);
    put(&mut ctx, "ax", I64, &[], Some(&["1"]));
    put(&mut ctx, "x", F32, &["1", "6", "4", "4"], None);
    put(&mut ctx, "s", F32, &["6"], None);
    put(&mut ctx, "s4", F32, &["4"], None);
    put(&mut ctx, "c", F32, &["N", "6", "5"], None);
    put(&mut ctx, "os", I64, &["2"], Some(&["4", "4"]));
    put(&mut ctx, "ks", I64, &["2"], Some(&["2", "2"]));
    let cases = [
        ov(
            "ScaledDotProductAttention",
            13,
            &["q2", "q2", "q2"],
            1,
            vec![],
        ),
        ov(
            "ScaledDotProductAttention",
            13,
            &["q", "k80", "k80"],
            1,
            vec![],
        ),
        ov("GatherND", 8, &["d", "i4"], 1, vec![("batch_dims", int(1))]),
        ov("ScatterUpdate", 3, &["d3", "i2", "u", "ax"], 1, vec![]),
        ov(
            "GroupNormalization",
            12,
            &["x", "s", "s"],
            1,
            vec![("num_groups", int(4))],
        ),
        ov(
            "GroupNormalization",
            12,
            &["x", "s4", "s4"],
            1,
            vec![("num_groups", int(3))],
        ),
        ov(
            "OneHot",
            16,
            &["i2", "ax", "ax", "ax"],
            1,
            vec![("axis", int(5))],
        ),
        ov("Col2Im", 15, &["c", "os", "ks"], 1, vec![]),
        ov(
            "ReorgYolo",
            2,
            &["x"],
            1,
            vec![("stride", Attr::Ints(vec![0]))],
        ),
    ];
    let msgs: Vec<String> = cases
        .iter()
        .map(|n| {
            let e: OpError = apply(&mut ctx, n).expect_err("an error");
            format!("{}: {e}", node_context(n))
        })
        .collect();
    common::snapshots()
        .bind(|| insta::assert_snapshot!("ops_openvino_more_errors", msgs.join("\n")));
}

/// OpenVINO Slice-8 and StridedSlice-1 of an axis whose length is a large value
/// (2^31 .. 2^63-1): the length only (Python slicing), nothing listed by the value.
#[test]
fn slices_of_value_sized_axes() {
    let max = i64::MAX;
    for v in [1i64 << 31, 1 << 53, 1 << 62, max] {
        let d = v.to_string();
        let mut ctx = ShapesContext::default();
        models::put(&mut ctx, "x", F32, &[&d, "2"], None);
        models::put(&mut ctx, "z", I64, &["1"], Some(&["0"]));
        models::put(&mut ctx, "m", I64, &["1"], Some(&[&max.to_string()]));
        models::put(&mut ctx, "two", I64, &["1"], Some(&["2"]));
        models::put(&mut ctx, "m1", I64, &["1"], Some(&["-1"]));
        models::put(&mut ctx, "mn", I64, &["1"], Some(&[&i64::MIN.to_string()]));
        let half = (v / 2 + v % 2).to_string();
        let n = ov("Slice", 8, &["x", "z", "m", "two", "z"], 1, vec![]);
        assert_eq!(one(&mut ctx, &n).0, format!("[{half}, 2]"));
        let n = ov("Slice", 8, &["x", "m1", "mn", "m1", "z"], 1, vec![]);
        assert_eq!(one(&mut ctx, &n).0, format!("[{d}, 2]"));
        let masks = |b: &str, e: &str| {
            vec![
                ("begin_mask", ints(&[if b == "1" { 1 } else { 0 }])),
                ("end_mask", ints(&[if e == "1" { 1 } else { 0 }])),
                ("new_axis_mask", ints(&[])),
                ("shrink_axis_mask", ints(&[])),
                ("ellipsis_mask", ints(&[])),
            ]
        };
        let n = ov(
            "StridedSlice",
            1,
            &["x", "z", "m", "two"],
            1,
            masks("0", "0"),
        );
        assert_eq!(one(&mut ctx, &n).0, format!("[{half}, 2]"));
        let n = ov(
            "StridedSlice",
            1,
            &["x", "z", "z", "m1"],
            1,
            masks("1", "1"),
        );
        assert_eq!(one(&mut ctx, &n), (format!("[{d}, 2]"), "none".into(), F32));
    }
}
