//! Data-movement and shape ops (the families of `docs/ops/tensor.md`): hand-built
//! context cases, small models through `infer`, the ONNX backend-node cases of the
//! families, and Slice lengths against the ONNX and Python references.

use crate::common;
use crate::common::models;

use models::*;
use symdim::context::{AttrValue, OpError, ShapesContext};
use symdim::graph::{Attr, DType};

// ----- backend-node corpus ---------------------------------------------------------

#[derive(Default, Debug)]
struct Score {
    exact: usize,
    less_precise: usize,
    wrong: Vec<String>,
}

fn my_op(op: &str) -> bool {
    [
        symdim::ops::tensor::contents::RULES,
        symdim::ops::tensor::shape::RULES,
        symdim::ops::tensor::cast::RULES,
        symdim::ops::tensor::gather::RULES,
        symdim::ops::tensor::transpose::RULES,
        symdim::ops::tensor::squeeze::RULES,
        symdim::ops::tensor::expand::RULES,
        symdim::ops::tensor::slice::RULES,
        symdim::ops::tensor::split::RULES,
        symdim::ops::tensor::constant::RULES,
        symdim::ops::tensor::concat::RULES,
        symdim::ops::tensor::pad::RULES,
        symdim::ops::tensor::depth_space::RULES,
        symdim::ops::tensor::topk::RULES,
        symdim::ops::elementwise::RULES,
        symdim::ops::tensor::reduce::RULES,
    ]
    .iter()
    .any(|t| t.iter().any(|(d, o, _)| d.is_empty() && *o == op))
}

/// Score one case: `with_values` turns the integer inputs into initializers with
/// their `input_*.pb` contents (so the shape-tensor evaluator sees them).
fn score_case(dir: &std::path::Path, with_values: bool, score: &mut Score) {
    let mut model = symdim::read::load::load(&dir.join("model.onnx")).expect("load");
    let data = dir.join("test_data_set_0");
    let outputs = prepare_case(&mut model, &data, with_values);
    let ctx = symdim::infer(&model, &symdim::Facts::default()).into_context();
    let name = dir.file_name().unwrap().to_string_lossy().to_string();
    let errors: Vec<String> = ctx
        .diagnostics
        .iter()
        .filter(|d| d.severity == symdim::context::Severity::Error)
        .map(|d| d.to_string())
        .collect();
    let mut exact = errors.is_empty();
    let mut wrong = !errors.is_empty();
    for (j, o) in outputs.iter().enumerate() {
        let expected = read_pb(&data.join(format!("output_{j}.pb"))).dims;
        let fact = ctx.get(o).expect("output fact");
        match &fact.shape {
            None => exact = false,
            Some(s) if s.len() != expected.len() => wrong = true,
            Some(s) => {
                for (d, e) in s.iter().zip(&expected) {
                    match ctx.alg.as_i64(*d) {
                        Some(v) if v == *e => {}
                        Some(_) => wrong = true,
                        None => exact = false,
                    }
                }
            }
        }
        if wrong {
            let got = fact
                .shape
                .as_ref()
                .map_or("unknown rank".to_string(), |s| ctx.render_dims(s));
            score.wrong.push(format!(
                "{name}: {o} expected {expected:?}, got {got}; {errors:?}"
            ));
            return;
        }
    }
    if exact {
        score.exact += 1;
    } else {
        score.less_precise += 1;
    }
}

#[test]
fn backend_node_cases() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let root = corpus.join("peer-cases/backend-node");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .expect("backend-node")
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    let (mut shipped, mut valued) = (Score::default(), Score::default());
    let mut cases = 0;
    for dir in dirs {
        let model = symdim::read::load::load(&dir.join("model.onnx")).expect("load");
        if !model.graph.nodes.iter().all(|n| my_op(&n.op_type)) {
            continue;
        }
        cases += 1;
        score_case(&dir, false, &mut shipped);
        score_case(&dir, true, &mut valued);
    }
    eprintln!(
        "backend-node, {cases} cases in this family: as shipped exact {} / less precise {} / wrong {}; with input values exact {} / less precise {} / wrong {}",
        shipped.exact,
        shipped.less_precise,
        shipped.wrong.len(),
        valued.exact,
        valued.less_precise,
        valued.wrong.len()
    );
    assert!(shipped.wrong.is_empty(), "{:#?}", shipped.wrong);
    assert!(valued.wrong.is_empty(), "{:#?}", valued.wrong);
    assert_eq!(
        valued.exact, cases,
        "every case is exact once the operands are known"
    );
}

// ----- hand-built context cases ----------------------------------------------------------

fn ints(v: &[i64]) -> Attr {
    Attr::Ints(v.to_vec())
}

fn one(ctx: &mut ShapesContext, n: &symdim::graph::Node) -> (String, String) {
    let f = apply(ctx, n).expect("rule");
    (shapes(ctx, &f)[0].clone(), value(ctx, &f[0]))
}

fn err(ctx: &mut ShapesContext, n: &symdim::graph::Node) -> OpError {
    apply(ctx, n).expect_err("an error")
}

const I64: DType = DType::Int64;
const F32: DType = DType::Float;

#[test]
fn shape_start_end() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", F32, &["N", "3", "S"], None);
    let n = node("Shape", 15, &["x"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n), ("[3]".into(), "[N, 3, S]".into()));
    let n = node("Shape", 15, &["x"], &["y"], vec![("start", Attr::Int(1))]);
    assert_eq!(one(&mut ctx, &n).1, "[3, S]");
    let n = node("Shape", 15, &["x"], &["y"], vec![("start", Attr::Int(-1))]);
    assert_eq!(one(&mut ctx, &n), ("[1]".into(), "[S]".into()));
    let n = node(
        "Shape",
        15,
        &["x"],
        &["y"],
        vec![("start", Attr::Int(1)), ("end", Attr::Int(-1))],
    );
    assert_eq!(one(&mut ctx, &n).1, "[3]");
    let n = node("Shape", 15, &["x"], &["y"], vec![("start", Attr::Int(-10))]);
    assert_eq!(one(&mut ctx, &n).1, "[N, 3, S]");
    let n = node(
        "Shape",
        15,
        &["x"],
        &["y"],
        vec![("start", Attr::Int(2)), ("end", Attr::Int(1))],
    );
    assert_eq!(one(&mut ctx, &n), ("[0]".into(), "[]".into()));
    // before opset 15 there are no start/end attributes
    let n = node("Shape", 13, &["x"], &["y"], vec![("start", Attr::Int(1))]);
    assert_eq!(one(&mut ctx, &n).1, "[N, 3, S]");
    // unknown rank: a 1-D tensor of data-dependent length
    ctx.insert("u", symdim::context::TensorFact::unknown(F32));
    let n = node("Shape", 15, &["u"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n), ("[unk0]".into(), "none".into()));
}

#[test]
fn size_is_the_product() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", F32, &["N", "3", "S"], None);
    let n = node("Size", 13, &["x"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n), ("[]".into(), "[3*N*S]".into()));
}

#[test]
fn gather_values_and_shapes() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "s", I64, &["3"], Some(&["N", "S", "768"]));
    put(&mut ctx, "i", I64, &[], Some(&["1"]));
    put(&mut ctx, "neg", I64, &["2"], Some(&["-1", "0"]));
    let n = node("Gather", 13, &["s", "i"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n), ("[]".into(), "[S]".into()));
    let n = node("Gather", 13, &["s", "neg"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n), ("[2]".into(), "[768, N]".into()));
    // out of range
    put(&mut ctx, "bad", I64, &[], Some(&["3"]));
    let n = node("Gather", 13, &["s", "bad"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
    put(&mut ctx, "bad2", I64, &[], Some(&["-4"]));
    let n = node("Gather", 13, &["s", "bad2"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
    // data tensor: [N, S, 768] gathered on axis 1 with indices [B, T]
    put(&mut ctx, "x", F32, &["N", "S", "768"], None);
    put(&mut ctx, "ix", I64, &["B", "T"], None);
    let n = node(
        "Gather",
        13,
        &["x", "ix"],
        &["y"],
        vec![("axis", Attr::Int(1))],
    );
    assert_eq!(one(&mut ctx, &n).0, "[N, B, T, 768]");
    let n = node(
        "Gather",
        13,
        &["x", "ix"],
        &["y"],
        vec![("axis", Attr::Int(3))],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::AxisOutOfRange { .. }));
    // 2-D value gathered on axis 1
    put(
        &mut ctx,
        "m",
        I64,
        &["2", "3"],
        Some(&["1", "2", "3", "4", "5", "6"]),
    );
    put(&mut ctx, "j", I64, &["2"], Some(&["2", "0"]));
    let n = node(
        "Gather",
        13,
        &["m", "j"],
        &["y"],
        vec![("axis", Attr::Int(1))],
    );
    assert_eq!(one(&mut ctx, &n), ("[2, 2]".into(), "[3, 1, 6, 4]".into()));
    // float indices are rejected
    put(&mut ctx, "fi", F32, &["1"], None);
    let n = node("Gather", 13, &["s", "fi"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::UnsupportedType { .. }));
}

#[test]
fn gather_nd_shapes() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", F32, &["N", "S", "H"], None);
    put(&mut ctx, "i", I64, &["K", "2"], None);
    let n = node("GatherND", 13, &["x", "i"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).0, "[K, H]");
    put(&mut ctx, "b", I64, &["N", "K", "1"], None);
    let n = node(
        "GatherND",
        13,
        &["x", "b"],
        &["y"],
        vec![("batch_dims", Attr::Int(1))],
    );
    assert_eq!(one(&mut ctx, &n).0, "[N, K, H]");
    put(&mut ctx, "big", I64, &["K", "4"], None);
    let n = node("GatherND", 13, &["x", "big"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
}

#[test]
fn unsqueeze_versions() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", I64, &["2"], Some(&["N", "S"]));
    // opset 11: attribute, negative axes over the output rank
    let n = node(
        "Unsqueeze",
        11,
        &["x"],
        &["y"],
        vec![("axes", ints(&[0, -1]))],
    );
    assert_eq!(one(&mut ctx, &n), ("[1, 2, 1]".into(), "[N, S]".into()));
    // opset 1: negative axes are out of range
    let n = node("Unsqueeze", 1, &["x"], &["y"], vec![("axes", ints(&[-1]))]);
    assert!(matches!(err(&mut ctx, &n), OpError::AxisOutOfRange { .. }));
    // opset 13: input
    put(&mut ctx, "a", I64, &["1"], Some(&["1"]));
    let n = node("Unsqueeze", 13, &["x", "a"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).0, "[2, 1]");
    let n = node("Unsqueeze", 13, &["x"], &["y"], vec![]);
    assert!(matches!(
        err(&mut ctx, &n),
        OpError::MissingInput { index: 1, .. }
    ));
    put(&mut ctx, "dup", I64, &["2"], Some(&["0", "-3"]));
    // from opset 13 the axes are an input: a repeat is a bad value, not attribute
    let n = node("Unsqueeze", 13, &["x", "dup"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
    let n = node(
        "Unsqueeze",
        11,
        &["x"],
        &["y"],
        vec![("axes", ints(&[0, -3]))],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::BadAttribute { .. }));
    // axes of unknown value but known length: rank known, dims data-dependent
    put(&mut ctx, "ua", I64, &["2"], None);
    let n = node("Unsqueeze", 13, &["x", "ua"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).0, "[unk0, unk1, unk2]");
}

#[test]
fn squeeze_versions() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", F32, &["1", "S", "1", "4"], None);
    let n = node(
        "Squeeze",
        11,
        &["x"],
        &["y"],
        vec![("axes", ints(&[0, -2]))],
    );
    assert_eq!(one(&mut ctx, &n).0, "[S, 4]");
    // no axes: every 1 goes; S is not provably 1 or not 1, so the rank is unknown
    let n = node("Squeeze", 13, &["x"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).0, "unknown rank");
    assert_eq!(ctx.diagnostics.len(), 1);
    put(&mut ctx, "c", F32, &["1", "3", "1"], None);
    let n = node("Squeeze", 13, &["c"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).0, "[3]");
    // squeezing a dim that is provably not 1
    put(&mut ctx, "a3", I64, &["1"], Some(&["3"]));
    let n = node("Squeeze", 13, &["x", "a3"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
    // squeezing S: the model needs S == 1, which is recorded
    put(&mut ctx, "a1", I64, &["1"], Some(&["1"]));
    let n = node("Squeeze", 13, &["x", "a1"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).0, "[1, 1, 4]");
    assert_eq!(ctx.alg.relations().len(), 1);
    // unknown axes of length 1 where only one dim may be 1: that one goes
    put(&mut ctx, "d", F32, &["1", "3", "4"], None);
    put(&mut ctx, "ua", I64, &["1"], None);
    let n = node("Squeeze", 13, &["d", "ua"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).0, "[3, 4]");
    // ... and where two may be: rank known, dims data-dependent
    let n = node("Squeeze", 13, &["c", "ua"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).0, "[unk0, unk1]");
}

#[test]
fn flatten_axes() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", F32, &["N", "3", "H", "W"], None);
    let n = node("Flatten", 13, &["x"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).0, "[N, 3*H*W]");
    let n = node("Flatten", 13, &["x"], &["y"], vec![("axis", Attr::Int(0))]);
    assert_eq!(one(&mut ctx, &n).0, "[1, 3*H*N*W]");
    let n = node("Flatten", 13, &["x"], &["y"], vec![("axis", Attr::Int(-1))]);
    assert_eq!(one(&mut ctx, &n).0, "[3*H*N, W]");
    let n = node("Flatten", 13, &["x"], &["y"], vec![("axis", Attr::Int(4))]);
    assert_eq!(one(&mut ctx, &n).0, "[3*H*N*W, 1]");
    let n = node("Flatten", 9, &["x"], &["y"], vec![("axis", Attr::Int(-1))]);
    assert!(matches!(err(&mut ctx, &n), OpError::AxisOutOfRange { .. }));
    let n = node("Flatten", 13, &["x"], &["y"], vec![("axis", Attr::Int(5))]);
    assert!(matches!(err(&mut ctx, &n), OpError::AxisOutOfRange { .. }));
}

#[test]
fn transpose_perm_and_values() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", F32, &["N", "S", "12", "64"], None);
    let n = node(
        "Transpose",
        13,
        &["x"],
        &["y"],
        vec![("perm", ints(&[0, 2, 1, 3]))],
    );
    assert_eq!(one(&mut ctx, &n).0, "[N, 12, S, 64]");
    let n = node("Transpose", 13, &["x"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).0, "[64, 12, S, N]");
    let n = node(
        "Transpose",
        13,
        &["x"],
        &["y"],
        vec![("perm", ints(&[0, 0, 1, 2]))],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::BadAttribute { .. }));
    let n = node(
        "Transpose",
        13,
        &["x"],
        &["y"],
        vec![("perm", ints(&[0, 1]))],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::BadAttribute { .. }));
    put(
        &mut ctx,
        "m",
        I64,
        &["2", "3"],
        Some(&["1", "2", "3", "4", "5", "6"]),
    );
    let n = node("Transpose", 13, &["m"], &["y"], vec![]);
    assert_eq!(
        one(&mut ctx, &n),
        ("[3, 2]".into(), "[1, 4, 2, 5, 3, 6]".into())
    );
}

#[test]
fn expand_broadcasts_with_the_shape_value() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", F32, &["3", "1"], None);
    put(&mut ctx, "s", I64, &["3"], Some(&["2", "1", "6"]));
    let n = node("Expand", 13, &["x", "s"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).0, "[2, 3, 6]");
    put(&mut ctx, "bad", I64, &["1"], Some(&["4"]));
    put(&mut ctx, "x3", F32, &["3"], None);
    let n = node("Expand", 13, &["x3", "bad"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
    // symbolic shape value
    put(&mut ctx, "sym", I64, &["2"], Some(&["N", "S"]));
    put(&mut ctx, "x1", F32, &["1", "1"], None);
    let n = node("Expand", 13, &["x1", "sym"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).0, "[N, S]");
    // unknown value of known length: the input's dims that are not 1 stay
    put(&mut ctx, "u", I64, &["2"], None);
    let n = node("Expand", 13, &["x", "u"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).0, "[3, unk0]");
    // values broadcast
    put(&mut ctx, "v", I64, &["1"], Some(&["N"]));
    put(&mut ctx, "s2", I64, &["1"], Some(&["3"]));
    let n = node("Expand", 13, &["v", "s2"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n), ("[3]".into(), "[N, N, N]".into()));
}

#[test]
fn tile_versions() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", I64, &["2"], Some(&["N", "1"]));
    put(&mut ctx, "r", I64, &["1"], Some(&["2"]));
    let n = node("Tile", 13, &["x", "r"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n), ("[4]".into(), "[N, 1, N, 1]".into()));
    put(&mut ctx, "m", F32, &["N", "3"], None);
    put(&mut ctx, "r2", I64, &["2"], Some(&["S", "2"]));
    let n = node("Tile", 13, &["m", "r2"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).0, "[N*S, 6]");
    let n = node("Tile", 13, &["m", "r"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::Rank { .. }));
    // Tile-1: scalar tiles and axis
    put(&mut ctx, "t", I64, &[], Some(&["3"]));
    put(&mut ctx, "ax", I64, &[], Some(&["1"]));
    let n = node("Tile", 1, &["m", "t", "ax"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).0, "[N, 9]");
}

#[test]
fn split_versions() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", F32, &["N", "768"], None);
    let n = node(
        "Split",
        11,
        &["x"],
        &["a", "b"],
        vec![("axis", Attr::Int(1)), ("split", ints(&[256, 512]))],
    );
    let f = apply(&mut ctx, &n).unwrap();
    assert_eq!(shapes(&ctx, &f), ["[N, 256]", "[N, 512]"]);
    let n = node(
        "Split",
        13,
        &["x"],
        &["a", "b", "c"],
        vec![("axis", Attr::Int(-1))],
    );
    let f = apply(&mut ctx, &n).unwrap();
    assert_eq!(shapes(&ctx, &f), ["[N, 256]", "[N, 256]", "[N, 256]"]);
    // opset 18, uneven: the last chunk is smaller
    put(&mut ctx, "five", F32, &["5"], None);
    let n = node(
        "Split",
        18,
        &["five"],
        &["a", "b"],
        vec![("num_outputs", Attr::Int(2))],
    );
    let f = apply(&mut ctx, &n).unwrap();
    assert_eq!(shapes(&ctx, &f), ["[3]", "[2]"]);
    // symbolic equal split: the exact quotient, with the relation recorded
    put(&mut ctx, "s", F32, &["S"], None);
    let n = node("Split", 13, &["s"], &["a", "b"], vec![]);
    let f = apply(&mut ctx, &n).unwrap();
    assert_eq!(shapes(&ctx, &f), ["[S/2]", "[S/2]"]);
    assert_eq!(ctx.alg.relations().len(), 1);
    // symbolic num_outputs split
    let n = node(
        "Split",
        18,
        &["s"],
        &["a", "b"],
        vec![("num_outputs", Attr::Int(2))],
    );
    let f = apply(&mut ctx, &n).unwrap();
    assert_eq!(
        shapes(&ctx, &f),
        ["[floordiv(S - 1, 2) + 1]", "[S - floordiv(S - 1, 2) - 1]"]
    );
    // 5 into 2 equal parts before opset 18 is an error
    let n = node("Split", 13, &["five"], &["a", "b"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::Algebra(_)));
    // split sizes that do not add up
    put(&mut ctx, "sp", I64, &["2"], Some(&["2", "2"]));
    let n = node("Split", 13, &["five", "sp"], &["a", "b"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
    // values split
    put(&mut ctx, "v", I64, &["3"], Some(&["N", "S", "64"]));
    put(&mut ctx, "sp2", I64, &["2"], Some(&["1", "2"]));
    let n = node("Split", 13, &["v", "sp2"], &["a", "b"], vec![]);
    let f = apply(&mut ctx, &n).unwrap();
    assert_eq!(value(&ctx, &f[0]), "[N]");
    assert_eq!(value(&ctx, &f[1]), "[S, 64]");
}

fn slice_case(
    dims: &[&str],
    starts: &[&str],
    ends: &[&str],
    axes: &[&str],
    steps: &[&str],
) -> String {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", F32, dims, None);
    let k = starts.len().to_string();
    put(&mut ctx, "s", I64, &[&k], Some(starts));
    put(&mut ctx, "e", I64, &[&k], Some(ends));
    put(&mut ctx, "a", I64, &[&k], Some(axes));
    put(&mut ctx, "t", I64, &[&k], Some(steps));
    let n = node("Slice", 13, &["x", "s", "e", "a", "t"], &["y"], vec![]);
    one(&mut ctx, &n).0
}

const MAX: &str = "9223372036854775807";
const MIN: &str = "-9223372036854775808";

#[test]
fn slice_symbolic_lengths() {
    assert_eq!(
        slice_case(&["S"], &["1"], &["-1"], &["0"], &["1"]),
        "[max(0, S - 2)]"
    );
    assert_eq!(slice_case(&["S"], &["0"], &[MAX], &["0"], &["1"]), "[S]");
    // S >= 1 for an input symbol, so S - 1 needs no clamp
    assert_eq!(
        slice_case(&["S"], &["1"], &[MAX], &["0"], &["1"]),
        "[S - 1]"
    );
    assert_eq!(slice_case(&["S"], &["-1"], &[MIN], &["0"], &["-1"]), "[S]");
    assert_eq!(
        slice_case(&["S"], &["0"], &[MAX], &["0"], &["2"]),
        "[floordiv(S - 1, 2) + 1]"
    );
    assert_eq!(
        slice_case(&["S"], &["-1"], &[MIN], &["0"], &["-2"]),
        "[floordiv(S - 1, 2) + 1]"
    );
    assert_eq!(
        slice_case(&["S"], &["0"], &["2147483647"], &["0"], &["1"]),
        "[S]"
    );
    assert_eq!(
        slice_case(&["S"], &["0"], &["4"], &["0"], &["1"]),
        "[min(S, 4)]"
    );
    assert_eq!(
        slice_case(&["S"], &["-3"], &[MAX], &["0"], &["1"]),
        "[min(S, 3)]"
    );
    // concrete dims are exact
    assert_eq!(
        slice_case(
            &["20", "10", "5"],
            &["0", "0", "3"],
            &["20", "10", "4"],
            &["0", "1", "2"],
            &["1", "1", "1"]
        ),
        "[20, 10, 1]"
    );
    assert_eq!(
        slice_case(
            &["20", "10", "5"],
            &["20", "10", "4"],
            &["0", "0", "1"],
            &["0", "1", "2"],
            &["-1", "-3", "-2"]
        ),
        "[19, 3, 2]"
    );
    assert_eq!(
        slice_case(&["20", "10", "5"], &["1"], &["1000"], &["1"], &["1"]),
        "[20, 9, 5]"
    );
    assert_eq!(
        slice_case(
            &["20", "10", "5"],
            &["0", "0", "3"],
            &["-1", "10", "4"],
            &["0", "-2", "-1"],
            &["1", "1", "1"]
        ),
        "[19, 10, 1]"
    );
    assert_eq!(
        slice_case(&["N", "S", "64"], &["0"], &["32"], &["-1"], &["1"]),
        "[N, S, 32]"
    );
}

#[test]
fn slice_values_and_versions() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "v", I64, &["3"], Some(&["N", "S", "768"]));
    put(&mut ctx, "s", I64, &["1"], Some(&["1"]));
    put(&mut ctx, "e", I64, &["1"], Some(&[MAX]));
    let n = node("Slice", 13, &["v", "s", "e"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n), ("[2]".into(), "[S, 768]".into()));
    put(&mut ctx, "m1", I64, &["1"], Some(&["-1"]));
    put(&mut ctx, "mn", I64, &["1"], Some(&[MIN]));
    let n = node("Slice", 13, &["v", "m1", "mn", "", "m1"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n), ("[3]".into(), "[768, S, N]".into()));
    // opset 1: attributes
    let n = node(
        "Slice",
        1,
        &["v"],
        &["y"],
        vec![("starts", ints(&[0])), ("ends", ints(&[2]))],
    );
    assert_eq!(one(&mut ctx, &n), ("[2]".into(), "[N, S]".into()));
    // a symbolic end from a shape value
    put(&mut ctx, "x", F32, &["1", "512"], None);
    put(&mut ctx, "z", I64, &["1"], Some(&["0"]));
    put(&mut ctx, "es", I64, &["1"], Some(&["S"]));
    put(&mut ctx, "ax", I64, &["1"], Some(&["1"]));
    let n = node("Slice", 13, &["x", "z", "es", "ax"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).0, "[1, min(S, 512)]");
    // a symbolic step of proven sign: [0:INT_MAX:N] of 2*N
    put(&mut ctx, "w", F32, &["B", "2*N"], None);
    put(&mut ctx, "big", I64, &["1"], Some(&["4294967296"]));
    put(&mut ctx, "st", I64, &["1"], Some(&["N"]));
    let n = node("Slice", 13, &["w", "z", "big", "ax", "st"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).0, "[B, 2]");
    // a step of unknown sign: data-dependent
    put(&mut ctx, "sgn", I64, &["1"], Some(&["N - S"]));
    let n = node("Slice", 13, &["w", "z", "big", "ax", "sgn"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).0, "[B, unk0]");
    // unknown starts: the sliced axis is data-dependent, the others stay
    put(&mut ctx, "us", I64, &["1"], None);
    let n = node("Slice", 13, &["x", "us", "es", "ax"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).0, "[1, unk0]");
    // errors
    put(&mut ctx, "zero", I64, &["1"], Some(&["0"]));
    let n = node("Slice", 13, &["x", "z", "es", "ax", "zero"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
    put(&mut ctx, "two", I64, &["2"], Some(&["0", "0"]));
    let n = node("Slice", 13, &["x", "two", "es"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
    put(&mut ctx, "ax5", I64, &["1"], Some(&["5"]));
    let n = node("Slice", 13, &["x", "z", "es", "ax5"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::AxisOutOfRange { .. }));
}

#[test]
fn range_lengths_and_values() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "z", I64, &[], Some(&["0"]));
    put(&mut ctx, "one", I64, &[], Some(&["1"]));
    put(&mut ctx, "five", I64, &[], Some(&["5"]));
    put(&mut ctx, "two", I64, &[], Some(&["2"]));
    put(&mut ctx, "S", I64, &[], Some(&["S"]));
    let n = node("Range", 11, &["z", "five", "two"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n), ("[3]".into(), "[0, 2, 4]".into()));
    let n = node("Range", 11, &["z", "S", "one"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n), ("[S]".into(), "none".into()));
    let n = node("Range", 11, &["five", "z", "one"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n), ("[0]".into(), "[]".into()));
    let n = node("Range", 11, &["z", "five", "z"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
    put(&mut ctx, "u", I64, &[], None);
    let n = node("Range", 11, &["z", "u", "one"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).0, "[unk0]");
}

#[test]
fn constant_of_shape_values() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "s", I64, &["2"], Some(&["N", "3"]));
    let n = node("ConstantOfShape", 9, &["s"], &["y"], vec![]);
    let f = apply(&mut ctx, &n).unwrap();
    assert_eq!(shapes(&ctx, &f), ["[N, 3]"]);
    assert_eq!(f[0].dtype, F32);
    put(&mut ctx, "c", I64, &["1"], Some(&["3"]));
    let t = symdim::graph::ConstTensor {
        dtype: I64,
        dims: vec![1],
        data: symdim::graph::ConstData::Ints(vec![7]),
    };
    let n = node(
        "ConstantOfShape",
        9,
        &["c"],
        &["y"],
        vec![("value", Attr::Tensor(t))],
    );
    assert_eq!(one(&mut ctx, &n), ("[3]".into(), "[7, 7, 7]".into()));
    put(&mut ctx, "neg", I64, &["1"], Some(&["-2"]));
    let n = node("ConstantOfShape", 9, &["neg"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
}

#[test]
fn cumsum_values() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "v", I64, &["3"], Some(&["N", "S", "2"]));
    put(&mut ctx, "a", I64, &[], Some(&["0"]));
    let n = node("CumSum", 14, &["v", "a"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).1, "[N, N + S, N + S + 2]");
    let n = node(
        "CumSum",
        14,
        &["v", "a"],
        &["y"],
        vec![("exclusive", Attr::Int(1)), ("reverse", Attr::Int(1))],
    );
    assert_eq!(one(&mut ctx, &n).1, "[S + 2, 2, 0]");
}

#[test]
fn where_values_and_broadcast() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "c", DType::Bool, &["2"], Some(&["1", "0"]));
    put(&mut ctx, "x", I64, &["2"], Some(&["N", "S"]));
    put(&mut ctx, "y", I64, &[], Some(&["-1"]));
    let n = node("Where", 16, &["c", "x", "y"], &["o"], vec![]);
    assert_eq!(one(&mut ctx, &n), ("[2]".into(), "[N, -1]".into()));
    put(&mut ctx, "cb", DType::Bool, &["B", "1", "S"], None);
    put(&mut ctx, "fx", F32, &["12", "1"], None);
    put(&mut ctx, "fy", F32, &[], None);
    let n = node("Where", 16, &["cb", "fx", "fy"], &["o"], vec![]);
    assert_eq!(one(&mut ctx, &n).0, "[B, 12, S]");
    put(&mut ctx, "fi", I64, &[], None);
    let n = node("Where", 16, &["cb", "fx", "fi"], &["o"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::TypeMismatch { .. }));
}

#[test]
fn constant_attributes() {
    let mut ctx = ShapesContext::default();
    let n = node(
        "Constant",
        13,
        &[],
        &["y"],
        vec![("value_ints", ints(&[0, -1, 12]))],
    );
    assert_eq!(one(&mut ctx, &n), ("[3]".into(), "[0, -1, 12]".into()));
    let n = node(
        "Constant",
        13,
        &[],
        &["y"],
        vec![("value_float", Attr::Float(0.5))],
    );
    assert_eq!(one(&mut ctx, &n), ("[]".into(), "[1/2]".into()));
    let n = node("Constant", 13, &[], &["y"], vec![]);
    assert!(matches!(
        err(&mut ctx, &n),
        OpError::MissingAttribute { .. }
    ));
    let n = node(
        "Constant",
        13,
        &[],
        &["y"],
        vec![
            ("value_int", Attr::Int(1)),
            ("value_float", Attr::Float(1.0)),
        ],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::BadAttribute { .. }));
    // The value attributes given are named in the spec's order, whatever the node's.
    let n = node(
        "Constant",
        13,
        &[],
        &["y"],
        vec![
            ("value_strings", Attr::Strs(vec!["a".into()])),
            ("value_float", Attr::Float(1.0)),
            ("value_int", Attr::Int(1)),
        ],
    );
    match err(&mut ctx, &n) {
        OpError::BadAttribute { name, value, .. } => {
            assert_eq!(name, "value");
            assert_eq!(
                value,
                AttrValue::Names(vec!["value_int", "value_float", "value_strings"])
            );
        }
        other => panic!("{other:?}"),
    }
    // An attribute that is not a value (a name the spec does not define) is not one.
    let n = node(
        "Constant",
        13,
        &[],
        &["y"],
        vec![("note", Attr::Str("x".into())), ("value_int", Attr::Int(7))],
    );
    assert_eq!(one(&mut ctx, &n), ("[]".into(), "[7]".into()));
}

// ----- small models through infer ---------------------------------------------------------

#[test]
fn bert_style_shape_subgraph() {
    // Shape -> Gather -> Unsqueeze -> Concat-free path: Slice of a position buffer
    // and an attention-mask Expand.
    let r = model(17)
        .input("ids", I64, Some(&["batch", "sequence"]))
        .ints("one", &[], &[1])
        .ints("zero1", &[1], &[0])
        .ints("ax0", &[1], &[0])
        .ints("ax1", &[1], &[1])
        .ints("pos", &[1, 512], &[0; 512])
        .node("Shape", &["ids"], &["s"], vec![])
        .node(
            "Gather",
            &["s", "one"],
            &["seq"],
            vec![("axis", Attr::Int(0))],
        )
        .node("Unsqueeze", &["seq", "ax0"], &["seq1"], vec![])
        .node("Slice", &["pos", "zero1", "seq1", "ax1"], &["pid"], vec![])
        .node("Unsqueeze", &["ids", "ax1"], &["m1"], vec![])
        .node("Size", &["ids"], &["n"], vec![])
        .node(
            "ReduceProd",
            &["s"],
            &["p"],
            vec![("keepdims", Attr::Int(0))],
        )
        .run();
    assert_eq!(r.value("s"), "[batch, sequence]");
    assert_eq!(r.value("seq"), "[sequence]");
    assert_eq!(r.value("seq1"), "[sequence]");
    assert_eq!(r.shape("pid"), "[1, min(sequence, 512)]");
    assert_eq!(r.shape("m1"), "[batch, 1, sequence]");
    assert_eq!(r.value("n"), "[batch*sequence]");
    assert_eq!(r.value("p"), "[batch*sequence]");
    assert!(r.diagnostics().is_empty(), "{:?}", r.diagnostics());
}

#[test]
fn gpt2_style_causal_mask() {
    // Range(0, S) -> Unsqueeze; Where over a comparison; Expand of a bool.
    let r = model(17)
        .input("x", DType::Float, Some(&["B", "S", "768"]))
        .input("w", DType::Float, Some(&["B", "1", "S", "S"]))
        .floats("fmin", &[], &[-1e9])
        .ints("z", &[], &[0])
        .ints("one", &[], &[1])
        .ints("ax0", &[1], &[0])
        .ints("ax1", &[1], &[1])
        .node("Shape", &["x"], &["s"], vec![])
        .node("Gather", &["s", "one"], &["S"], vec![])
        .node("Range", &["z", "S", "one"], &["r"], vec![])
        .node("Unsqueeze", &["r", "ax0"], &["row"], vec![])
        .node("Unsqueeze", &["r", "ax1"], &["col"], vec![])
        .node("LessOrEqual", &["row", "col"], &["mask"], vec![])
        .node("Where", &["mask", "w", "fmin"], &["y"], vec![])
        .run();
    assert_eq!(r.shape("r"), "[S]");
    assert_eq!(r.shape("mask"), "[S, S]");
    assert_eq!(r.dtype("mask"), DType::Bool);
    assert_eq!(r.shape("y"), "[B, 1, S, S]");
    assert!(r.diagnostics().is_empty(), "{:?}", r.diagnostics());
}

#[test]
fn error_messages_snapshot() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", F32, &["1", "S", "4"], None);
    put(&mut ctx, "a2", I64, &["1"], Some(&["2"]));
    put(&mut ctx, "v", I64, &["2"], Some(&["N", "S"]));
    put(&mut ctx, "i5", I64, &[], Some(&["5"]));
    put(&mut ctx, "s3", I64, &["1"], Some(&["3"]));
    put(&mut ctx, "x2", F32, &["2"], None);
    let cases = [
        node("Squeeze", 13, &["x", "a2"], &["y"], vec![]),
        node("Gather", 13, &["v", "i5"], &["y"], vec![]),
        node(
            "Transpose",
            13,
            &["x"],
            &["y"],
            vec![("perm", ints(&[2, 2, 0]))],
        ),
        node("Expand", 13, &["x2", "s3"], &["y"], vec![]),
        node(
            "Unsqueeze",
            11,
            &["x"],
            &["y"],
            vec![("axes", ints(&[1, 1]))],
        ),
        node("Flatten", 13, &["x"], &["y"], vec![("axis", Attr::Int(7))]),
    ];
    let msgs = rule_errors(&mut ctx, &cases);
    common::snapshots().bind(|| insta::assert_snapshot!("ops_tensor_errors", msgs.join("\n")));
}

/// The ONNX reference length of a slice of a dim of size `d`.
fn reference_len(d: i128, s: i128, e: i128, t: i128) -> i128 {
    let wrap = |x: i128| if x < 0 { x + d } else { x };
    let clamp = |x: i128, lo: i128, hi: i128| x.max(lo).min(hi);
    let (s, e) = (wrap(s), wrap(e));
    if t > 0 {
        let (s, e) = (clamp(s, 0, d), clamp(e, 0, d));
        ((e - s + t - 1).div_euclid(t)).max(0)
    } else {
        let (s, e) = (clamp(s, 0, d - 1), clamp(e, -1, d - 1));
        ((s - e + (-t) - 1).div_euclid(-t)).max(0)
    }
}

#[test]
fn slice_lengths_agree_with_the_reference() {
    // S may be 0 here, which exercises the clamps of empty dims; `S - 3` is a dim
    // whose sign the algebra cannot prove (evaluated where it is >= 0).
    let config = symdim::algebra::Config {
        input_lower: symdim::algebra::Rat::zero(),
        ..Default::default()
    };
    let mut idx: Vec<i64> = (-4..=4).collect();
    idx.extend([i64::MAX, i64::MIN, 2147483647, -2147483647]);
    let mut checked = 0;
    for (dim, offset) in [("S", 0i64), ("S - 3", 3)] {
        for &s in &idx {
            for &e in &idx {
                for t in [-3i64, -2, -1, 1, 2, 3] {
                    let mut ctx = ShapesContext::new(symdim::algebra::Algebra::new(config.clone()));
                    put(&mut ctx, "x", F32, &[dim], None);
                    put(&mut ctx, "a", I64, &["1"], Some(&["0"]));
                    put(&mut ctx, "s", I64, &["1"], Some(&[&s.to_string()]));
                    put(&mut ctx, "e", I64, &["1"], Some(&[&e.to_string()]));
                    put(&mut ctx, "t", I64, &["1"], Some(&[&t.to_string()]));
                    let n = node("Slice", 13, &["x", "s", "e", "a", "t"], &["y"], vec![]);
                    let f = apply(&mut ctx, &n).expect("slice");
                    let len = f[0].shape.as_ref().unwrap()[0];
                    for d in 0..9i64 {
                        let at = symdim::algebra::Rat::int(d + offset);
                        let got = ctx
                            .alg
                            .eval(len, &|name| (name == "S").then(|| at.clone()))
                            .expect("evaluates");
                        let want = reference_len(d.into(), s.into(), e.into(), t.into());
                        assert_eq!(
                            got,
                            symdim::algebra::Rat::int(want as i64),
                            "slice [{s}:{e}:{t}] of {dim} = {d}: {}",
                            ctx.alg.render(len)
                        );
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 18_000);
}

/// Python's length of `range(d)[s:e:t]` (OpenVINO's Slice follows it).
fn python_len(d: i128, s: i128, e: i128, t: i128) -> i128 {
    let (lo, hi) = if t > 0 { (0, d) } else { (-1, d - 1) };
    let clamp = |x: i128| {
        let x = if x < 0 { x + d } else { x };
        x.max(lo).min(hi)
    };
    let (s, e) = (clamp(s), clamp(e));
    if t > 0 {
        ((e - s + t - 1).div_euclid(t)).max(0)
    } else {
        ((s - e + (-t) - 1).div_euclid(-t)).max(0)
    }
}

#[test]
fn python_slice_lengths_agree_with_the_reference() {
    use symdim::algebra::{Algebra, Config, Rat};
    use symdim::ops::tensor::slice::{slice_axis, Clamp};
    let config = Config {
        input_lower: Rat::zero(),
        ..Default::default()
    };
    let mut idx: Vec<i64> = (-4..=4).collect();
    idx.extend([i64::MAX, i64::MIN, 2147483647, -2147483647]);
    let mut checked = 0;
    for &s in &idx {
        for &e in &idx {
            for t in [-3i64, -2, -1, 1, 2, 3] {
                let mut alg = Algebra::new(config.clone());
                let d = alg.parse("S").unwrap();
                let (sd, ed, td) = (alg.constant(s), alg.constant(e), alg.constant(t));
                let len = slice_axis(&mut alg, d, (sd, ed, td), Clamp::Python)
                    .expect("signs known")
                    .len;
                for n in 0..9i64 {
                    let at = Rat::int(n);
                    let got = alg
                        .eval(len, &|name| (name == "S").then(|| at.clone()))
                        .expect("evaluates");
                    let want = python_len(n.into(), s.into(), e.into(), t.into());
                    assert_eq!(
                        got,
                        Rat::int(want as i64),
                        "slice [{s}:{e}:{t}] of S = {n}: {}",
                        alg.render(len)
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 9_000);
}

/// Slices of axes whose length is a large value (2^31 .. 2^63-1) list no indices:
/// the input has no contents, so only the length is computed, and it is the ONNX
/// reference length (`len = ceil((end - start) / step)` after clamping).
#[test]
fn slices_of_value_sized_axes_allocate_nothing_by_the_value() {
    let max = i64::MAX;
    for v in [1i64 << 31, 1 << 53, 1 << 62, max] {
        let d = v.to_string();
        for (s, e, t, want) in [
            (0, max, 1, v),
            (-1, i64::MIN, -1, v),
            (0, max, 2, v / 2 + v % 2),
            (1, max, 1, v - 1),
        ] {
            let got = slice_case(
                &[&d],
                &[&s.to_string()],
                &[&e.to_string()],
                &["0"],
                &[&t.to_string()],
            );
            assert_eq!(got, format!("[{want}]"), "[{s}:{e}:{t}] of {v}");
        }
        // opset 1 (attributes, step 1)
        let mut ctx = ShapesContext::default();
        put(&mut ctx, "x", F32, &[&d, "3"], None);
        let n = node(
            "Slice",
            1,
            &["x"],
            &["y"],
            vec![("starts", ints(&[0])), ("ends", ints(&[max]))],
        );
        assert_eq!(one(&mut ctx, &n), (format!("[{d}, 3]"), "none".into()));
    }
}

/// Around the value limit (`VALUE_FACT_LIMIT` elements): a known input is sliced
/// along up to the limit, past it the slice has a shape and no contents.
#[test]
fn slice_values_up_to_the_value_limit() {
    let limit = symdim::graph::VALUE_FACT_LIMIT;
    for n in [limit / 2, limit - 1, limit, limit + 1, 2 * limit, 4 * limit] {
        let mut ctx = ShapesContext::default();
        let items: Vec<String> = (0..n).map(|i| i.to_string()).collect();
        let items: Vec<&str> = items.iter().map(String::as_str).collect();
        put(&mut ctx, "v", I64, &[&n.to_string()], Some(&items));
        put(&mut ctx, "s", I64, &["1"], Some(&["-1"]));
        put(&mut ctx, "e", I64, &["1"], Some(&[MIN]));
        put(&mut ctx, "t", I64, &["1"], Some(&["-2"]));
        let n_out = n.div_ceil(2);
        let n = node("Slice", 13, &["v", "s", "e", "", "t"], &["y"], vec![]);
        let (shape, value) = one(&mut ctx, &n);
        assert_eq!(shape, format!("[{n_out}]"));
        if items.len() <= limit {
            // every second element from the last: n-1, n-3, ...
            let want: Vec<String> = (0..n_out)
                .map(|i| (items.len() - 1 - 2 * i).to_string())
                .collect();
            assert_eq!(value, format!("[{}]", want.join(", ")));
        } else {
            assert_eq!(value, "none");
        }
    }
}
