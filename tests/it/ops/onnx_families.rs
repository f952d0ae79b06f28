//! The rest of the ONNX standard (onnx 1.23.2): NonMaxSuppression, Compress, Unique
//! and the other ops that gained rules with the op-coverage test
//! (`tests/it/ops/coverage/onnx.rs`). Hand-built context cases for every version with
//! expected values worked out from the ONNX spec (the examples of each op's
//! documentation), and a snapshot of their error messages. The probe against
//! onnxruntime is `tests/it/ops/onnx_families_ort.rs`.

use crate::common;
use crate::common::models;

use models::*;
use symdim::context::{OpError, ShapesContext, TensorFact};
use symdim::graph::{Attr, DType, Node};

const I64: DType = DType::Int64;
const F32: DType = DType::Float;
const BOOL: DType = DType::Bool;

fn ints(v: &[i64]) -> Attr {
    Attr::Ints(v.to_vec())
}

/// Shapes, values and dtypes of every output of `n`.
fn all(ctx: &mut ShapesContext, n: &Node) -> Vec<(String, String, DType)> {
    let f = apply(ctx, n).unwrap_or_else(|e| panic!("{}: {e}", n.op_type));
    let s = shapes(ctx, &f);
    f.iter()
        .zip(s)
        .map(|(f, s)| (s, value(ctx, f), f.dtype))
        .collect()
}

/// Shape, value and dtype of the first output of `n`.
fn one(ctx: &mut ShapesContext, n: &Node) -> (String, String, DType) {
    all(ctx, n).swap_remove(0)
}

fn shape_of(ctx: &mut ShapesContext, n: &Node) -> String {
    one(ctx, n).0
}

/// The shapes of every output of `n`.
fn shapes_of(ctx: &mut ShapesContext, n: &Node) -> Vec<String> {
    all(ctx, n).into_iter().map(|x| x.0).collect()
}

fn err(ctx: &mut ShapesContext, n: &Node) -> OpError {
    apply(ctx, n).expect_err("an error")
}

fn t(shape: &str, value: &str, dtype: DType) -> (String, String, DType) {
    (shape.to_string(), value.to_string(), dtype)
}

// ----- NonMaxSuppression ----------------------------------------------------------------

#[test]
fn non_max_suppression_shapes() {
    for v in [10, 11] {
        let mut ctx = ShapesContext::default();
        put(&mut ctx, "b", F32, &["N", "S", "4"], None);
        put(&mut ctx, "s", F32, &["N", "C", "S"], None);
        put(&mut ctx, "m", I64, &["1"], Some(&["3"]));
        put(&mut ctx, "m0", I64, &["1"], Some(&["0"]));
        put(&mut ctx, "mu", I64, &["1"], None);
        put(&mut ctx, "th", F32, &["1"], None);
        // [num_selected, 3] int64, the count data-dependent
        let n = node(
            "NonMaxSuppression",
            v,
            &["b", "s", "m", "th", "th"],
            &["y"],
            vec![],
        );
        assert_eq!(one(&mut ctx, &n), t("[nms0, 3]", "none", I64));
        // (one name per node and place: the count of this node is nms0 again)
        let n = node("NonMaxSuppression", v, &["b", "s", "mu"], &["y"], vec![]);
        assert_eq!(shape_of(&mut ctx, &n), "[nms0, 3]");
        // no max_output_boxes_per_class, or 0: nothing is selected
        let n = node("NonMaxSuppression", v, &["b", "s"], &["y"], vec![]);
        assert_eq!(shape_of(&mut ctx, &n), "[0, 3]");
        let n = node("NonMaxSuppression", v, &["b", "s", "m0"], &["y"], vec![]);
        assert_eq!(shape_of(&mut ctx, &n), "[0, 3]");
        // unknown ranks still give [n, 3]
        ctx.insert("ub", TensorFact::unknown(F32));
        let n = node("NonMaxSuppression", v, &["ub", "ub", "m"], &["y"], vec![]);
        assert_eq!(shape_of(&mut ctx, &n), "[nms0, 3]");
    }
}

#[test]
fn non_max_suppression_errors() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "b", F32, &["1", "6", "4"], None);
    put(&mut ctx, "b5", F32, &["1", "6", "5"], None);
    put(&mut ctx, "s", F32, &["1", "1", "6"], None);
    put(&mut ctx, "s7", F32, &["1", "1", "7"], None);
    put(&mut ctx, "s2", F32, &["1", "6"], None);
    put(&mut ctx, "m2", I64, &["2"], None);
    let n = node("NonMaxSuppression", 11, &["b5", "s"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
    let n = node("NonMaxSuppression", 11, &["b", "s7"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
    let n = node("NonMaxSuppression", 11, &["b", "s2"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::Rank { .. }));
    let n = node("NonMaxSuppression", 11, &["b", "s", "m2"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::Rank { .. }));
    let n = node(
        "NonMaxSuppression",
        11,
        &["b", "s"],
        &["y"],
        vec![("center_point_box", Attr::Int(2))],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::BadAttribute { .. }));
}

// ----- Compress ---------------------------------------------------------------------

#[test]
fn compress_spec_examples() {
    for v in [9, 11, 28] {
        let mut ctx = ShapesContext::default();
        put(
            &mut ctx,
            "x",
            I64,
            &["3", "2"],
            Some(&["1", "2", "3", "4", "5", "6"]),
        );
        put(&mut ctx, "c011", BOOL, &["3"], Some(&["0", "1", "1"]));
        put(&mut ctx, "c01", BOOL, &["2"], Some(&["0", "1"]));
        put(
            &mut ctx,
            "c01001",
            BOOL,
            &["5"],
            Some(&["0", "1", "0", "0", "1"]),
        );
        // compress_0: axis 0 keeps rows 1 and 2
        let n = node(
            "Compress",
            v,
            &["x", "c011"],
            &["y"],
            vec![("axis", Attr::Int(0))],
        );
        assert_eq!(one(&mut ctx, &n), t("[2, 2]", "[3, 4, 5, 6]", I64));
        // compress_1: axis 1 keeps column 1
        let n = node(
            "Compress",
            v,
            &["x", "c01"],
            &["y"],
            vec![("axis", Attr::Int(1))],
        );
        assert_eq!(one(&mut ctx, &n), t("[3, 1]", "[2, 4, 6]", I64));
        // compress_default_axis: the flattened input
        let n = node("Compress", v, &["x", "c01001"], &["y"], vec![]);
        assert_eq!(one(&mut ctx, &n), t("[2]", "[2, 5]", I64));
        if v >= 11 {
            // compress_negative_axis
            let n = node(
                "Compress",
                v,
                &["x", "c01"],
                &["y"],
                vec![("axis", Attr::Int(-1))],
            );
            assert_eq!(one(&mut ctx, &n), t("[3, 1]", "[2, 4, 6]", I64));
        }
    }
}

#[test]
fn compress_symbolic() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", F32, &["N", "S", "3"], None);
    put(&mut ctx, "c", BOOL, &["T"], None);
    put(&mut ctx, "k", BOOL, &["3"], Some(&["1", "0", "1"]));
    put(&mut ctx, "k4", BOOL, &["4"], Some(&["1", "1", "0", "1"]));
    // an unknown condition: a data-dependent count on the axis
    let n = node(
        "Compress",
        11,
        &["x", "c"],
        &["y"],
        vec![("axis", Attr::Int(1))],
    );
    assert_eq!(shape_of(&mut ctx, &n), "[N, unk0, 3]");
    let n = node("Compress", 11, &["x", "c"], &["y"], vec![]);
    assert_eq!(shape_of(&mut ctx, &n), "[unk1]");
    // a known condition on a constant axis: extra entries are ignored
    let n = node(
        "Compress",
        11,
        &["x", "k4"],
        &["y"],
        vec![("axis", Attr::Int(2))],
    );
    assert_eq!(shape_of(&mut ctx, &n), "[N, S, 2]");
    // on a symbolic axis: entry k counts when k < S
    let n = node(
        "Compress",
        11,
        &["x", "k"],
        &["y"],
        vec![("axis", Attr::Int(1))],
    );
    let s = shape_of(&mut ctx, &n);
    let f = apply(&mut ctx, &n).unwrap();
    let d = f[0].shape.as_ref().unwrap()[1];
    for (sv, want) in [(1, 1), (2, 1), (3, 2), (9, 2)] {
        let env = |name: &str| (name == "S").then(|| symdim::algebra::Rat::int(sv));
        assert_eq!(
            ctx.alg.eval(d, &env),
            Some(symdim::algebra::Rat::int(want)),
            "{s} at S = {sv}"
        );
    }
    // unknown rank: rank 1 without an axis, unknown with one
    ctx.insert("u", TensorFact::unknown(F32));
    let n = node("Compress", 11, &["u", "c"], &["y"], vec![]);
    assert_eq!(shape_of(&mut ctx, &n), "[unk1]");
    let n = node(
        "Compress",
        11,
        &["u", "c"],
        &["y"],
        vec![("axis", Attr::Int(0))],
    );
    assert_eq!(shape_of(&mut ctx, &n), "unknown rank");
    // errors: axis out of range, a condition of rank 2 or of another type
    let n = node(
        "Compress",
        11,
        &["x", "c"],
        &["y"],
        vec![("axis", Attr::Int(3))],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::AxisOutOfRange { .. }));
    put(&mut ctx, "c2", BOOL, &["2", "2"], None);
    let n = node("Compress", 11, &["x", "c2"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::Rank { .. }));
    put(&mut ctx, "ci", I64, &["2"], None);
    let n = node("Compress", 11, &["x", "ci"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::UnsupportedType { .. }));
}

// ----- Unique ---------------------------------------------------------------------------

#[test]
fn unique_spec_examples() {
    for v in [11, 28] {
        let mut ctx = ShapesContext::default();
        let out = &["y", "i", "inv", "c"];
        // example 1: unsorted
        put(
            &mut ctx,
            "x1",
            I64,
            &["6"],
            Some(&["2", "1", "1", "3", "4", "3"]),
        );
        let n = node("Unique", v, &["x1"], out, vec![("sorted", Attr::Int(0))]);
        assert_eq!(
            all(&mut ctx, &n),
            [
                t("[4]", "[2, 1, 3, 4]", I64),
                t("[4]", "[0, 1, 3, 4]", I64),
                t("[6]", "[0, 1, 1, 2, 3, 2]", I64),
                t("[4]", "[1, 2, 2, 1]", I64),
            ]
        );
        // example 2: sorted, flattened
        put(
            &mut ctx,
            "x2",
            I64,
            &["2", "2"],
            Some(&["1", "3", "2", "3"]),
        );
        let n = node("Unique", v, &["x2"], out, vec![]);
        assert_eq!(
            all(&mut ctx, &n),
            [
                t("[3]", "[1, 2, 3]", I64),
                t("[3]", "[0, 2, 1]", I64),
                t("[4]", "[0, 2, 1, 2]", I64),
                t("[3]", "[1, 1, 2]", I64),
            ]
        );
        // example 3: sorted rows (axis 0)
        put(
            &mut ctx,
            "x3",
            I64,
            &["3", "3"],
            Some(&["1", "0", "0", "1", "0", "0", "2", "3", "4"]),
        );
        let n = node("Unique", v, &["x3"], out, vec![("axis", Attr::Int(0))]);
        assert_eq!(
            all(&mut ctx, &n),
            [
                t("[2, 3]", "[1, 0, 0, 2, 3, 4]", I64),
                t("[2]", "[0, 2]", I64),
                t("[3]", "[0, 0, 1]", I64),
                t("[2]", "[2, 1]", I64),
            ]
        );
        // example 4: sorted slices along axis 1 of a [2, 4, 2] tensor
        put(
            &mut ctx,
            "x4",
            I64,
            &["2", "4", "2"],
            Some(&[
                "1", "1", "0", "1", "2", "1", "0", "1", "1", "1", "0", "1", "2", "1", "0", "1",
            ]),
        );
        let n = node("Unique", v, &["x4"], out, vec![("axis", Attr::Int(1))]);
        assert_eq!(
            all(&mut ctx, &n),
            [
                t("[2, 3, 2]", "[0, 1, 1, 1, 2, 1, 0, 1, 1, 1, 2, 1]", I64),
                t("[3]", "[1, 0, 2]", I64),
                t("[4]", "[1, 0, 2, 0]", I64),
                t("[3]", "[2, 1, 1]", I64),
            ]
        );
    }
}

#[test]
fn unique_symbolic() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", F32, &["N", "S"], None);
    let out = &["y", "i", "inv", "c"];
    let n = node("Unique", 11, &["x"], out, vec![]);
    assert_eq!(
        all(&mut ctx, &n),
        [
            t("[unk0]", "none", F32),
            t("[unk0]", "none", I64),
            t("[N*S]", "none", I64),
            t("[unk0]", "none", I64),
        ]
    );
    let n = node("Unique", 11, &["x"], out, vec![("axis", Attr::Int(-1))]);
    assert_eq!(
        shapes_of(&mut ctx, &n),
        ["[N, unk1]", "[unk1]", "[S]", "[unk1]"]
    );
    ctx.insert("u", TensorFact::unknown(F32));
    let n = node("Unique", 11, &["u"], out, vec![]);
    assert_eq!(
        shapes_of(&mut ctx, &n),
        ["[unk0]", "[unk0]", "[unk2]", "[unk0]"]
    );
    let n = node("Unique", 11, &["x"], out, vec![("axis", Attr::Int(2))]);
    assert!(matches!(err(&mut ctx, &n), OpError::AxisOutOfRange { .. }));
}

// ----- CumProd, ReverseSequence, BitCast, Det ------------------------------------------

#[test]
fn cum_prod_spec_example() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", I64, &["3"], Some(&["1", "2", "3"]));
    put(&mut ctx, "a", I64, &[], Some(&["0"]));
    for (ex, rev, want) in [
        (0, 0, "[1, 2, 6]"),
        (1, 0, "[1, 1, 2]"),
        (0, 1, "[6, 6, 3]"),
        (1, 1, "[6, 3, 1]"),
    ] {
        let n = node(
            "CumProd",
            26,
            &["x", "a"],
            &["y"],
            vec![("exclusive", Attr::Int(ex)), ("reverse", Attr::Int(rev))],
        );
        assert_eq!(one(&mut ctx, &n), t("[3]", want, I64));
    }
    // symbolic contents: the products of a shape
    put(&mut ctx, "s", I64, &["3"], Some(&["N", "S", "4"]));
    let n = node("CumProd", 26, &["s", "a"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).1, "[N, N*S, 4*N*S]");
    let n = node("CumSum", 14, &["s", "a"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).1, "[N, N + S, N + S + 4]");
}

#[test]
fn reverse_sequence_spec_examples() {
    for v in [10, 28] {
        let mut ctx = ShapesContext::default();
        let x: Vec<String> = (0..16).map(|i| i.to_string()).collect();
        let x: Vec<&str> = x.iter().map(String::as_str).collect();
        // example 1 reads the 4x4 row-major input [[0, 4, 8, 12], [1, 5, 9, 13], ...]
        let ex1: Vec<String> = (0..16).map(|i| ((i % 4) * 4 + i / 4).to_string()).collect();
        let ex1: Vec<&str> = ex1.iter().map(String::as_str).collect();
        put(&mut ctx, "x1", I64, &["4", "4"], Some(&ex1));
        put(&mut ctx, "l1", I64, &["4"], Some(&["4", "3", "2", "1"]));
        let n = node("ReverseSequence", v, &["x1", "l1"], &["y"], vec![]);
        assert_eq!(
            one(&mut ctx, &n),
            t(
                "[4, 4]",
                "[3, 6, 9, 12, 2, 5, 8, 13, 1, 4, 10, 14, 0, 7, 11, 15]",
                I64
            )
        );
        put(&mut ctx, "x2", I64, &["4", "4"], Some(&x));
        put(&mut ctx, "l2", I64, &["4"], Some(&["1", "2", "3", "4"]));
        let n = node(
            "ReverseSequence",
            v,
            &["x2", "l2"],
            &["y"],
            vec![("time_axis", Attr::Int(1)), ("batch_axis", Attr::Int(0))],
        );
        assert_eq!(
            one(&mut ctx, &n),
            t(
                "[4, 4]",
                "[0, 1, 2, 3, 5, 4, 6, 7, 10, 9, 8, 11, 15, 14, 13, 12]",
                I64
            )
        );
        // symbolic: the shape stays, the batch is equated with the lengths' size
        put(&mut ctx, "xs", F32, &["T", "N", "3"], None);
        put(&mut ctx, "ls", I64, &["N"], None);
        put(&mut ctx, "l5", I64, &["5"], None);
        let n = node("ReverseSequence", v, &["xs", "ls"], &["y"], vec![]);
        assert_eq!(shape_of(&mut ctx, &n), "[T, N, 3]");
        put(&mut ctx, "x3", F32, &["2", "4", "3"], None);
        let n = node("ReverseSequence", v, &["x3", "l5"], &["y"], vec![]);
        assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
        let n = node(
            "ReverseSequence",
            v,
            &["xs", "ls"],
            &["y"],
            vec![("batch_axis", Attr::Int(0))],
        );
        assert!(matches!(err(&mut ctx, &n), OpError::BadAttribute { .. }));
        put(&mut ctx, "x1d", F32, &["4"], None);
        let n = node("ReverseSequence", v, &["x1d", "ls"], &["y"], vec![]);
        assert!(matches!(err(&mut ctx, &n), OpError::Rank { .. }));
    }
}

#[test]
fn bit_cast_and_det() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", F32, &["N", "S"], None);
    let n = node("BitCast", 26, &["x"], &["y"], vec![("to", Attr::Int(6))]);
    assert_eq!(one(&mut ctx, &n), t("[N, S]", "none", DType::Int32));
    // another width, strings, a missing `to`
    let n = node("BitCast", 26, &["x"], &["y"], vec![("to", Attr::Int(7))]);
    assert!(matches!(err(&mut ctx, &n), OpError::TypeMismatch { .. }));
    let n = node("BitCast", 26, &["x"], &["y"], vec![("to", Attr::Int(8))]);
    assert!(matches!(err(&mut ctx, &n), OpError::TypeMismatch { .. }));
    let n = node("BitCast", 26, &["x"], &["y"], vec![]);
    assert!(matches!(
        err(&mut ctx, &n),
        OpError::MissingAttribute { .. }
    ));
    for v in [11, 22] {
        put(&mut ctx, "m", F32, &["B", "3", "M", "M"], None);
        let n = node("Det", v, &["m"], &["y"], vec![]);
        assert_eq!(one(&mut ctx, &n), t("[B, 3]", "none", F32));
        put(&mut ctx, "m2", F32, &["M", "K"], None);
        let n = node("Det", v, &["m2"], &["y"], vec![]);
        assert_eq!(shape_of(&mut ctx, &n), "[]");
        put(&mut ctx, "m3", F32, &["2", "3"], None);
        let n = node("Det", v, &["m3"], &["y"], vec![]);
        assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
        put(&mut ctx, "m4", F32, &["3"], None);
        let n = node("Det", v, &["m4"], &["y"], vec![]);
        assert!(matches!(err(&mut ctx, &n), OpError::Rank { .. }));
    }
}

// ----- losses -------------------------------------------------------------------------

#[test]
fn losses_by_reduction() {
    for (op, versions) in [
        ("NegativeLogLikelihoodLoss", &[12, 13, 22][..]),
        ("SoftmaxCrossEntropyLoss", &[12, 13][..]),
    ] {
        for &v in versions {
            let mut ctx = ShapesContext::default();
            // the spec's examples: N, C, d1 = 2, 3, 2
            put(&mut ctx, "x", F32, &["2", "3", "2"], None);
            put(&mut ctx, "t", I64, &["2", "2"], None);
            put(&mut ctx, "w", F32, &["3"], None);
            let outs: &[&str] = if op == "SoftmaxCrossEntropyLoss" {
                &["y", "lp"]
            } else {
                &["y"]
            };
            let red = |r: &str| vec![("reduction", Attr::Str(r.to_string()))];
            let n = node(op, v, &["x", "t"], outs, red("none"));
            let got = all(&mut ctx, &n);
            assert_eq!(got[0], t("[2, 2]", "none", F32));
            if outs.len() == 2 {
                assert_eq!(got[1].0, "[2, 3, 2]");
            }
            let n = node(op, v, &["x", "t", "w"], outs, red("sum"));
            assert_eq!(shape_of(&mut ctx, &n), "[]");
            let n = node(op, v, &["x", "t", "w"], outs, vec![]);
            assert_eq!(shape_of(&mut ctx, &n), "[]");
            // symbolic, k = 0 and k = 2
            put(&mut ctx, "xs", F32, &["N", "C"], None);
            put(&mut ctx, "ts", DType::Int32, &["N"], None);
            let n = node(op, v, &["xs", "ts"], outs, red("none"));
            assert_eq!(shape_of(&mut ctx, &n), "[N]");
            put(&mut ctx, "x4", F32, &["N", "C", "H", "W"], None);
            put(&mut ctx, "t4", I64, &["N", "H", "W"], None);
            let n = node(op, v, &["x4", "t4"], outs, red("none"));
            assert_eq!(shape_of(&mut ctx, &n), "[N, H, W]");
            // errors: ranks, dims, weight length, reduction, target type
            let n = node(op, v, &["x4", "ts"], outs, vec![]);
            assert!(matches!(err(&mut ctx, &n), OpError::Rank { .. }));
            put(&mut ctx, "t3", I64, &["3", "2"], None);
            let n = node(op, v, &["x", "t3"], outs, vec![]);
            assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
            put(&mut ctx, "w4", F32, &["4"], None);
            let n = node(op, v, &["x", "t", "w4"], outs, vec![]);
            assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
            let n = node(op, v, &["x", "t"], outs, red("max"));
            assert!(matches!(err(&mut ctx, &n), OpError::BadAttribute { .. }));
            put(&mut ctx, "tf", F32, &["2", "2"], None);
            let n = node(op, v, &["x", "tf"], outs, vec![]);
            assert!(matches!(err(&mut ctx, &n), OpError::UnsupportedType { .. }));
        }
    }
}

// ----- sequences and optionals -----------------------------------------------------------

/// The sequence facts of `name`, rendered: `len; elem; [elements]`.
fn seq_of(ctx: &ShapesContext, name: &str) -> String {
    let s = ctx.sequence(name).expect("a sequence");
    let f = |t: &TensorFact| match &t.shape {
        Some(d) => format!("{} {}", t.dtype, ctx.render_dims(d)),
        None => format!("{} ?", t.dtype),
    };
    let len = s.len.map_or("?".to_string(), |l| ctx.alg.render(l));
    let elems = s.elems.as_ref().map_or("-".to_string(), |e| {
        e.iter().map(f).collect::<Vec<_>>().join(", ")
    });
    format!("{len}; {}; {elems}", f(&s.elem))
}

/// Apply `n` and store its outputs, as the driver does.
fn run(ctx: &mut ShapesContext, n: &Node) -> Vec<TensorFact> {
    let facts = apply(ctx, n).unwrap_or_else(|e| panic!("{}: {e}", n.op_type));
    for (o, f) in n.outputs.iter().zip(&facts) {
        ctx.insert(&**o, f.clone());
    }
    facts
}

#[test]
fn sequence_construct_insert_erase_at() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "a", F32, &["N", "S"], None);
    put(&mut ctx, "b", F32, &["N", "3"], None);
    put(&mut ctx, "i", I64, &["N"], None);
    put(&mut ctx, "zero", I64, &[], Some(&["0"]));
    put(&mut ctx, "one", I64, &[], Some(&["1"]));
    put(&mut ctx, "m1", I64, &[], Some(&["-1"]));
    put(&mut ctx, "p", I64, &[], None);
    // SequenceConstruct: the elements, what they share (N), a fresh dim elsewhere
    let f = run(
        &mut ctx,
        &node("SequenceConstruct", 11, &["a", "b"], &["q"], vec![]),
    );
    assert_eq!(shapes(&ctx, &f), ["unknown rank"]);
    assert_eq!(f[0].dtype, F32);
    assert_eq!(
        seq_of(&ctx, "q"),
        "2; f32 [N, unk0]; f32 [N, S], f32 [N, 3]"
    );
    // SequenceAt: by position, or the shared facts
    let n = node("SequenceAt", 11, &["q", "one"], &["y"], vec![]);
    assert_eq!(shape_of(&mut ctx, &n), "[N, 3]");
    let n = node("SequenceAt", 11, &["q", "m1"], &["y"], vec![]);
    assert_eq!(shape_of(&mut ctx, &n), "[N, 3]");
    let n = node("SequenceAt", 11, &["q", "p"], &["y"], vec![]);
    assert_eq!(shape_of(&mut ctx, &n), "[N, unk0]");
    put(&mut ctx, "two", I64, &[], Some(&["2"]));
    let n = node("SequenceAt", 11, &["q", "two"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
    // SequenceLength: the length as contents
    let n = node("SequenceLength", 11, &["q"], &["n"], vec![]);
    assert_eq!(one(&mut ctx, &n), t("[]", "[2]", I64));
    // SequenceInsert at the front, at the end; SequenceErase the last, the first
    run(
        &mut ctx,
        &node("SequenceInsert", 11, &["q", "a", "zero"], &["q1"], vec![]),
    );
    assert_eq!(
        seq_of(&ctx, "q1"),
        "3; f32 [N, unk1]; f32 [N, S], f32 [N, S], f32 [N, 3]"
    );
    run(
        &mut ctx,
        &node("SequenceErase", 11, &["q1"], &["q2"], vec![]),
    );
    assert_eq!(seq_of(&ctx, "q2"), "2; f32 [N, S]; f32 [N, S], f32 [N, S]");
    run(
        &mut ctx,
        &node("SequenceErase", 11, &["q1", "zero"], &["q3"], vec![]),
    );
    assert_eq!(
        seq_of(&ctx, "q3"),
        "2; f32 [N, unk2]; f32 [N, S], f32 [N, 3]"
    );
    // an unknown position: the length and the shared facts only
    run(
        &mut ctx,
        &node("SequenceInsert", 11, &["q2", "b", "p"], &["q4"], vec![]),
    );
    assert_eq!(seq_of(&ctx, "q4"), "3; f32 [N, unk1]; -");
    // errors: another type, a position out of range or not a scalar
    let n = node("SequenceInsert", 11, &["q", "i"], &["q5"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::TypeMismatch { .. }));
    put(&mut ctx, "five", I64, &[], Some(&["5"]));
    let n = node("SequenceInsert", 11, &["q", "a", "five"], &["q5"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
    put(&mut ctx, "p2", I64, &["2"], None);
    let n = node("SequenceAt", 11, &["q", "p2"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::Rank { .. }));
    let n = node("SequenceConstruct", 11, &["a", "i"], &["q5"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::TypeMismatch { .. }));
}

#[test]
fn sequence_empty_and_unknown_sequences() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "a", F32, &["N", "S"], None);
    let f = run(&mut ctx, &node("SequenceEmpty", 11, &[], &["e"], vec![]));
    assert_eq!(f[0].dtype, F32);
    assert_eq!(seq_of(&ctx, "e"), "0; f32 ?; ");
    run(
        &mut ctx,
        &node(
            "SequenceEmpty",
            11,
            &[],
            &["e64"],
            vec![("dtype", Attr::Int(7))],
        ),
    );
    assert_eq!(seq_of(&ctx, "e64"), "0; i64 ?; ");
    let n = node("SequenceErase", 11, &["e"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
    let n = node("SequenceAt", 11, &["e", "a"], &["y"], vec![]);
    assert!(err(&mut ctx, &n).to_string().contains("position"));
    // the first insert into an empty sequence gives its element
    run(
        &mut ctx,
        &node("SequenceInsert", 11, &["e", "a"], &["q"], vec![]),
    );
    assert_eq!(seq_of(&ctx, "q"), "1; f32 [N, S]; f32 [N, S]");
    // a sequence the context does not know (a graph input): its type only
    ctx.insert("g", TensorFact::unknown(F32));
    run(
        &mut ctx,
        &node("SequenceInsert", 11, &["g", "a"], &["q1"], vec![]),
    );
    assert_eq!(seq_of(&ctx, "q1"), "?; f32 ?; -");
    let n = node("SequenceLength", 11, &["q1"], &["n"], vec![]);
    assert_eq!(one(&mut ctx, &n), t("[]", "none", I64));
}

#[test]
fn split_to_sequence_and_concat_from_sequence() {
    for v in [11, 24] {
        let mut ctx = ShapesContext::default();
        put(&mut ctx, "x", F32, &["N", "4", "3"], None);
        put(&mut ctx, "xs", F32, &["N", "S"], None);
        put(&mut ctx, "two", I64, &[], Some(&["2"]));
        put(&mut ctx, "sz", I64, &["2"], Some(&["1", "3"]));
        put(&mut ctx, "szu", I64, &["2"], None);
        // one element per index of a constant axis, kept or dropped
        run(
            &mut ctx,
            &node(
                "SplitToSequence",
                v,
                &["x"],
                &["q"],
                vec![("axis", Attr::Int(1))],
            ),
        );
        assert_eq!(
            seq_of(&ctx, "q"),
            "4; f32 [N, 1, 3]; f32 [N, 1, 3], f32 [N, 1, 3], f32 [N, 1, 3], f32 [N, 1, 3]"
        );
        let n = node(
            "ConcatFromSequence",
            11,
            &["q"],
            &["c"],
            vec![("axis", Attr::Int(1))],
        );
        assert_eq!(shape_of(&mut ctx, &n), "[N, 4, 3]");
        let n = node(
            "ConcatFromSequence",
            11,
            &["q"],
            &["c"],
            vec![("axis", Attr::Int(-1)), ("new_axis", Attr::Int(1))],
        );
        assert_eq!(shape_of(&mut ctx, &n), "[N, 1, 3, 4]");
        // a symbolic axis: S elements of one shape
        run(
            &mut ctx,
            &node(
                "SplitToSequence",
                v,
                &["xs"],
                &["qs"],
                vec![("axis", Attr::Int(1)), ("keepdims", Attr::Int(0))],
            ),
        );
        assert_eq!(seq_of(&ctx, "qs"), "S; f32 [N]; -");
        let n = node("SequenceLength", 11, &["qs"], &["n"], vec![]);
        assert_eq!(one(&mut ctx, &n).1, "[S]");
        let n = node(
            "ConcatFromSequence",
            11,
            &["qs"],
            &["c"],
            vec![("axis", Attr::Int(1)), ("new_axis", Attr::Int(1))],
        );
        assert_eq!(shape_of(&mut ctx, &n), "[N, S]");
        let n = node(
            "ConcatFromSequence",
            11,
            &["qs"],
            &["c"],
            vec![("axis", Attr::Int(0))],
        );
        assert_eq!(shape_of(&mut ctx, &n), "[N*S]");
        // chunks of 2 of 4: two elements; of S: ceildiv(S, 2), the last smaller
        run(
            &mut ctx,
            &node(
                "SplitToSequence",
                v,
                &["x", "two"],
                &["q2"],
                vec![("axis", Attr::Int(1))],
            ),
        );
        assert_eq!(
            seq_of(&ctx, "q2"),
            "2; f32 [N, 2, 3]; f32 [N, 2, 3], f32 [N, 2, 3]"
        );
        run(
            &mut ctx,
            &node(
                "SplitToSequence",
                v,
                &["xs", "two"],
                &["q3"],
                vec![("axis", Attr::Int(1))],
            ),
        );
        assert_eq!(
            seq_of(&ctx, "q3"),
            "floordiv(S - 1, 2) + 1; f32 [N, unk0]; -"
        );
        // sizes
        run(
            &mut ctx,
            &node(
                "SplitToSequence",
                v,
                &["x", "sz"],
                &["q4"],
                vec![("axis", Attr::Int(1))],
            ),
        );
        assert_eq!(
            seq_of(&ctx, "q4"),
            "2; f32 [N, unk0, 3]; f32 [N, 1, 3], f32 [N, 3, 3]"
        );
        let n = node(
            "ConcatFromSequence",
            11,
            &["q4"],
            &["c"],
            vec![("axis", Attr::Int(1))],
        );
        assert_eq!(shape_of(&mut ctx, &n), "[N, 4, 3]");
        run(
            &mut ctx,
            &node(
                "SplitToSequence",
                v,
                &["x", "szu"],
                &["q5"],
                vec![("axis", Attr::Int(1))],
            ),
        );
        assert_eq!(seq_of(&ctx, "q5"), "2; f32 [N, unk0, 3]; -");
        // errors: sizes that do not add up, a zero chunk, a missing axis
        put(&mut ctx, "bad", I64, &["2"], Some(&["1", "2"]));
        let n = node(
            "SplitToSequence",
            v,
            &["x", "bad"],
            &["q6"],
            vec![("axis", Attr::Int(1))],
        );
        assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
        put(&mut ctx, "z", I64, &[], Some(&["0"]));
        let n = node("SplitToSequence", v, &["x", "z"], &["q6"], vec![]);
        assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
        let n = node("ConcatFromSequence", 11, &["q"], &["c"], vec![]);
        assert!(matches!(
            err(&mut ctx, &n),
            OpError::MissingAttribute { .. }
        ));
        let n = node(
            "ConcatFromSequence",
            11,
            &["q"],
            &["c"],
            vec![("axis", Attr::Int(3))],
        );
        assert!(matches!(err(&mut ctx, &n), OpError::AxisOutOfRange { .. }));
    }
}

#[test]
fn split_to_sequence_keeps_contents() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "s", I64, &["3"], Some(&["N", "S", "T"]));
    put(&mut ctx, "m1", I64, &[], Some(&["-1"]));
    run(
        &mut ctx,
        &node(
            "SplitToSequence",
            11,
            &["s"],
            &["q"],
            vec![("keepdims", Attr::Int(0))],
        ),
    );
    let n = node("SequenceAt", 11, &["q", "m1"], &["t"], vec![]);
    assert_eq!(one(&mut ctx, &n), t("[]", "[T]", I64));
    let n = node(
        "ConcatFromSequence",
        11,
        &["q"],
        &["c"],
        vec![("axis", Attr::Int(0)), ("new_axis", Attr::Int(1))],
    );
    assert_eq!(one(&mut ctx, &n), t("[3]", "[N, S, T]", I64));
}

#[test]
fn optionals() {
    for v in [15, 18, 28] {
        let mut ctx = ShapesContext::default();
        put(&mut ctx, "x", F32, &["N", "S"], None);
        let f = run(&mut ctx, &node("Optional", v, &["x"], &["o"], vec![]));
        assert_eq!(shapes(&ctx, &f), ["unknown rank"]);
        let n = node("OptionalHasElement", v, &["o"], &["h"], vec![]);
        assert_eq!(one(&mut ctx, &n), t("[]", "[1]", BOOL));
        let n = node("OptionalGetElement", v, &["o"], &["y"], vec![]);
        assert_eq!(one(&mut ctx, &n), t("[N, S]", "none", F32));
        // an empty optional
        run(&mut ctx, &node("Optional", v, &[], &["e"], vec![]));
        let n = node("OptionalHasElement", v, &["e"], &["h"], vec![]);
        assert_eq!(one(&mut ctx, &n).1, "[0]");
        let n = node("OptionalGetElement", v, &["e"], &["y"], vec![]);
        assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
        // an optional sequence
        run(
            &mut ctx,
            &node("SplitToSequence", 11, &["x"], &["q"], vec![]),
        );
        run(&mut ctx, &node("Optional", v, &["q"], &["oq"], vec![]));
        run(
            &mut ctx,
            &node("OptionalGetElement", v, &["oq"], &["q2"], vec![]),
        );
        assert_eq!(seq_of(&ctx, "q2"), "N; f32 [1, S]; -");
        // an optional the context does not know: presence unknown
        ctx.insert("g", TensorFact::unknown(F32));
        let n = node("OptionalHasElement", v, &["g"], &["h"], vec![]);
        assert_eq!(one(&mut ctx, &n).1, "none");
        if v >= 18 {
            // a plain tensor is present, an absent input is not
            let n = node("OptionalHasElement", v, &["x"], &["h"], vec![]);
            assert_eq!(one(&mut ctx, &n).1, "[1]");
            let n = node("OptionalHasElement", v, &[""], &["h"], vec![]);
            assert_eq!(one(&mut ctx, &n).1, "[0]");
            let n = node("OptionalGetElement", v, &["x"], &["y"], vec![]);
            assert_eq!(shape_of(&mut ctx, &n), "[N, S]");
        } else {
            let n = node("OptionalHasElement", v, &[], &["h"], vec![]);
            assert!(matches!(err(&mut ctx, &n), OpError::InputCount { .. }));
        }
    }
}

#[test]
fn sequence_map_runs_its_body() {
    use symdim::graph::{Graph, ValueDecl};
    let body = Graph {
        name: "body".into(),
        inputs: vec![ValueDecl {
            name: "e".into(),
            dtype: F32,
            shape: None,
        }],
        outputs: vec![ValueDecl {
            name: "s".into(),
            dtype: I64,
            shape: None,
        }],
        nodes: vec![named("shape", "Shape", &["e"], &["s"], vec![])],
        ..Default::default()
    };
    let r = model(17)
        .input("x", F32, Some(&["N", "4", "S"]))
        .node(
            "SplitToSequence",
            &["x", "sz"],
            &["q"],
            vec![("axis", Attr::Int(1))],
        )
        .ints("sz", &[2], &[1, 3])
        .node(
            "SequenceMap",
            &["q"],
            &["qs"],
            vec![("body", Attr::Graph(Box::new(body)))],
        )
        .ints("one", &[], &[1])
        .node("SequenceAt", &["qs", "one"], &["s1"], vec![])
        .node("ConstantOfShape", &["s1"], &["y"], vec![])
        .run();
    assert!(!r.has_error(), "{:?}", r.diagnostics());
    assert_eq!(r.value("s1"), "[N, 3, S]");
    assert_eq!(r.shape("y"), "[N, 3, S]");
    assert_eq!(seq_of(&r.ctx, "qs"), "2; i64 [3]; i64 [3], i64 [3]");
}

// ----- transformer ops ---------------------------------------------------------------

#[test]
fn attention_shapes_by_layout() {
    for v in [23, 24, 25] {
        let mut ctx = ShapesContext::default();
        put(&mut ctx, "q", F32, &["B", "8", "L", "64"], None);
        put(&mut ctx, "k", F32, &["B", "2", "S", "64"], None);
        put(&mut ctx, "v", F32, &["B", "2", "S", "32"], None);
        put(&mut ctx, "pk", F32, &["B", "2", "P", "64"], None);
        put(&mut ctx, "pv", F32, &["B", "2", "P", "32"], None);
        let outs = &["y", "pk_o", "pv_o", "qk"];
        // GQA with a cache: the total length is P + S
        let n = node(
            "Attention",
            v,
            &["q", "k", "v", "", "pk", "pv"],
            outs,
            vec![],
        );
        assert_eq!(
            all(&mut ctx, &n)
                .into_iter()
                .map(|x| x.0)
                .collect::<Vec<_>>(),
            [
                "[B, 8, L, 32]",
                "[B, 2, P + S, 64]",
                "[B, 2, P + S, 32]",
                "[B, 8, L, P + S]"
            ]
        );
        // 3-D inputs: heads from the attributes, Y packed back
        put(&mut ctx, "q3", F32, &["B", "L", "512"], None);
        put(&mut ctx, "k3", F32, &["B", "S", "128"], None);
        put(&mut ctx, "v3", F32, &["B", "S", "64"], None);
        let heads = || {
            vec![
                ("q_num_heads", Attr::Int(8)),
                ("kv_num_heads", Attr::Int(2)),
            ]
        };
        let n = node("Attention", v, &["q3", "k3", "v3"], outs, heads());
        assert_eq!(
            all(&mut ctx, &n)
                .into_iter()
                .map(|x| x.0)
                .collect::<Vec<_>>(),
            [
                "[B, L, 256]",
                "[B, 2, S, 64]",
                "[B, 2, S, 32]",
                "[B, 8, L, S]"
            ]
        );
        // errors: heads not a multiple, a 3-D input without its head count,
        // head sizes that differ, a past without its value
        put(&mut ctx, "k3h", F32, &["B", "3", "S", "64"], None);
        put(&mut ctx, "v3h", F32, &["B", "3", "S", "32"], None);
        let n = node("Attention", v, &["q", "k3h", "v3h"], &["y"], vec![]);
        assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
        let n = node("Attention", v, &["q3", "k3", "v3"], &["y"], vec![]);
        assert!(matches!(
            err(&mut ctx, &n),
            OpError::MissingAttribute { .. }
        ));
        put(&mut ctx, "k32", F32, &["B", "2", "S", "32"], None);
        let n = node("Attention", v, &["q", "k32", "v"], &["y"], vec![]);
        assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
        let n = node("Attention", v, &["q", "k", "v", "", "pk"], &["y"], vec![]);
        assert!(matches!(err(&mut ctx, &n), OpError::MissingInput { .. }));
        put(&mut ctx, "q5", F32, &["B", "8", "L", "64", "1"], None);
        let n = node("Attention", v, &["q5", "k", "v"], &["y"], vec![]);
        assert!(matches!(err(&mut ctx, &n), OpError::Rank { .. }));
    }
    // FlexAttention: the 4-D case
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "q", F32, &["B", "8", "L", "64"], None);
    put(&mut ctx, "k", F32, &["B", "2", "S", "64"], None);
    put(&mut ctx, "v", F32, &["B", "2", "S", "32"], None);
    let mut n = node("FlexAttention", 1, &["q", "k", "v"], &["y"], vec![]);
    n.domain = "ai.onnx.preview".to_string();
    assert_eq!(one(&mut ctx, &n), t("[B, 8, L, 32]", "none", F32));
}

#[test]
fn transformer_ops_keep_shapes() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x4", F32, &["B", "H", "L", "64"], None);
    put(&mut ctx, "x3", F32, &["B", "L", "512"], None);
    put(&mut ctx, "cache", F32, &["M", "32"], None);
    put(&mut ctx, "pos", I64, &["B", "L"], None);
    put(&mut ctx, "pos3", I64, &["B", "3"], None);
    let n = node(
        "RotaryEmbedding",
        23,
        &["x4", "cache", "cache", "pos"],
        &["y"],
        vec![],
    );
    assert_eq!(shape_of(&mut ctx, &n), "[B, H, L, 64]");
    let n = node(
        "RotaryEmbedding",
        23,
        &["x3", "cache", "cache"],
        &["y"],
        vec![("num_heads", Attr::Int(8))],
    );
    assert_eq!(shape_of(&mut ctx, &n), "[B, L, 512]");
    let n = node(
        "RotaryEmbedding",
        23,
        &["x3", "cache", "cache"],
        &["y"],
        vec![],
    );
    assert!(matches!(
        err(&mut ctx, &n),
        OpError::MissingAttribute { .. }
    ));
    put(&mut ctx, "x3c", F32, &["B", "3", "512"], None);
    let n = node(
        "RotaryEmbedding",
        23,
        &["x3c", "cache", "cache", "pos3"],
        &["y"],
        vec![("num_heads", Attr::Int(8))],
    );
    assert_eq!(shape_of(&mut ctx, &n), "[B, 3, 512]");
    put(&mut ctx, "x3b", F32, &["B", "3", "100"], None);
    let n = node(
        "RotaryEmbedding",
        23,
        &["x3b", "cache", "cache"],
        &["y"],
        vec![("num_heads", Attr::Int(8))],
    );
    assert!(err(&mut ctx, &n).to_string().contains("100"));
    // RMSNormalization: scale broadcasts to the normalised dims
    put(&mut ctx, "g", F32, &["512"], None);
    put(&mut ctx, "g2", F32, &["L", "512"], None);
    put(&mut ctx, "g7", F32, &["7"], None);
    let n = node("RMSNormalization", 23, &["x3", "g"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n), t("[B, L, 512]", "none", F32));
    let n = node(
        "RMSNormalization",
        23,
        &["x3", "g2"],
        &["y"],
        vec![("axis", Attr::Int(1))],
    );
    assert_eq!(shape_of(&mut ctx, &n), "[B, L, 512]");
    let n = node("RMSNormalization", 23, &["x3", "g2"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::Rank { .. }));
    let n = node("RMSNormalization", 23, &["x3", "g7"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
    let n = node(
        "RMSNormalization",
        23,
        &["x3", "g"],
        &["y"],
        vec![("axis", Attr::Int(3))],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::AxisOutOfRange { .. }));
    // Swish, SwiGLU
    let n = node(
        "Swish",
        24,
        &["x3"],
        &["y"],
        vec![("alpha", Attr::Float(1.5))],
    );
    assert_eq!(shape_of(&mut ctx, &n), "[B, L, 512]");
    let n = node("SwiGLU", 28, &["x3", "x3"], &["y"], vec![]);
    assert_eq!(shape_of(&mut ctx, &n), "[B, L, 512]");
    put(&mut ctx, "x1", F32, &["B", "L", "1"], None);
    let n = node("SwiGLU", 28, &["x3", "x1"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
}

#[test]
fn tensor_scatter_linear_attention_causal_conv() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "c", F32, &["B", "H", "M", "64"], None);
    put(&mut ctx, "u", F32, &["B", "H", "S", "64"], None);
    put(&mut ctx, "w", I64, &["B"], None);
    let n = node("TensorScatter", 24, &["c", "u", "w"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n), t("[B, H, M, 64]", "none", F32));
    let n = node(
        "TensorScatter",
        24,
        &["c", "u"],
        &["y"],
        vec![("axis", Attr::Int(0))],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::BadAttribute { .. }));
    let n = node(
        "TensorScatter",
        24,
        &["c", "u"],
        &["y"],
        vec![("mode", Attr::Str("x".into()))],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::BadAttribute { .. }));
    put(&mut ctx, "c8", F32, &["1", "2", "8", "4"], None);
    put(&mut ctx, "u9", F32, &["1", "2", "9", "4"], None);
    let n = node("TensorScatter", 24, &["c8", "u9"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
    // LinearAttention
    put(&mut ctx, "q", F32, &["B", "T", "64"], None);
    put(&mut ctx, "k", F32, &["B", "T", "32"], None);
    put(&mut ctx, "v", F32, &["B", "T", "48"], None);
    let heads = vec![
        ("q_num_heads", Attr::Int(4)),
        ("kv_num_heads", Attr::Int(2)),
    ];
    let n = node(
        "LinearAttention",
        27,
        &["q", "k", "v"],
        &["y", "s"],
        heads.clone(),
    );
    assert_eq!(shapes_of(&mut ctx, &n), ["[B, T, 96]", "[B, 2, 16, 24]"]);
    let n = node(
        "LinearAttention",
        27,
        &["q", "k", "v"],
        &["y", "s"],
        vec![("q_num_heads", Attr::Int(4))],
    );
    assert!(matches!(
        err(&mut ctx, &n),
        OpError::MissingAttribute { .. }
    ));
    let n = node(
        "LinearAttention",
        27,
        &["q", "k", "v"],
        &["y", "s"],
        vec![
            ("q_num_heads", Attr::Int(3)),
            ("kv_num_heads", Attr::Int(2)),
        ],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::BadAttribute { .. }));
    // CausalConvWithState
    put(&mut ctx, "x", F32, &["B", "C", "L"], None);
    put(&mut ctx, "wt", F32, &["C", "1", "4"], None);
    let n = node("CausalConvWithState", 27, &["x", "wt"], &["y", "s"], vec![]);
    assert_eq!(shapes_of(&mut ctx, &n), ["[B, C, L]", "[B, C, 3]"]);
    put(&mut ctx, "wt2", F32, &["C", "2", "4"], None);
    let n = node(
        "CausalConvWithState",
        27,
        &["x", "wt2"],
        &["y", "s"],
        vec![],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
}

// ----- signal processing and media ------------------------------------------------------

#[test]
fn dft_by_kind_and_version() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "r", F32, &["N", "S", "T", "1"], None);
    put(&mut ctx, "c", F32, &["N", "S", "T", "2"], None);
    put(&mut ctx, "n", I64, &[], Some(&["16"]));
    put(&mut ctx, "nu", I64, &[], None);
    put(&mut ctx, "a1", I64, &[], Some(&["1"]));
    put(&mut ctx, "a2", I64, &[], Some(&["2"]));
    let kw = |onesided: i64, inverse: i64| {
        vec![
            ("onesided", Attr::Int(onesided)),
            ("inverse", Attr::Int(inverse)),
        ]
    };
    // DFT-17: the axis attribute, default 1 (the backend test `dft`: [1, 10, 10, 1]
    // gives [1, 10, 10, 2])
    let n = node("DFT", 17, &["r"], &["y"], kw(0, 0));
    assert_eq!(one(&mut ctx, &n), t("[N, S, T, 2]", "none", F32));
    let mut a2 = kw(1, 0);
    a2.push(("axis", Attr::Int(2)));
    let n = node("DFT", 17, &["r", "n"], &["y"], a2);
    assert_eq!(shape_of(&mut ctx, &n), "[N, S, 9, 2]");
    // DFT-20: the axis input, default -2 (the last signal axis)
    let n = node("DFT", 20, &["r"], &["y"], kw(1, 0));
    assert_eq!(shape_of(&mut ctx, &n), "[N, S, floordiv(T, 2) + 1, 2]");
    let n = node("DFT", 20, &["c", "", "a1"], &["y"], kw(0, 1));
    assert_eq!(shape_of(&mut ctx, &n), "[N, S, T, 2]");
    // the inverse one-sided transform: 2 * (d - 1) real values by default
    let n = node("DFT", 20, &["c", "", "a1"], &["y"], kw(1, 1));
    assert_eq!(shape_of(&mut ctx, &n), "[N, 2*S - 2, T, 1]");
    let n = node("DFT", 20, &["c", "n", "a2"], &["y"], kw(1, 1));
    assert_eq!(shape_of(&mut ctx, &n), "[N, S, 16, 1]");
    // a length of unknown contents: a data-dependent dim
    let n = node("DFT", 20, &["r", "nu", "a1"], &["y"], kw(0, 0));
    assert_eq!(shape_of(&mut ctx, &n), "[N, unk0, T, 2]");
    // errors: the last axis, the one-sided transforms' input kinds
    put(&mut ctx, "a3", I64, &[], Some(&["3"]));
    let n = node("DFT", 20, &["r", "", "a3"], &["y"], kw(0, 0));
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
    let n = node("DFT", 20, &["c"], &["y"], kw(1, 0));
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
    let n = node("DFT", 20, &["r"], &["y"], kw(1, 1));
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
    put(&mut ctx, "x3", F32, &["N", "S", "3"], None);
    let n = node("DFT", 20, &["x3"], &["y"], kw(0, 0));
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
    let n = node("DFT", 17, &["r", "n", "a1"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::InputCount { .. }));
}

#[test]
fn stft_windows_mel() {
    let mut ctx = ShapesContext::default();
    // the backend test `stft`: signal [1, 128, 1], step 8, frame_length 16:
    // [1, 15, 9, 2]
    put(&mut ctx, "x", F32, &["1", "128", "1"], None);
    put(&mut ctx, "step", I64, &[], Some(&["8"]));
    put(&mut ctx, "len", I64, &[], Some(&["16"]));
    put(&mut ctx, "w", F32, &["16"], None);
    let n = node("STFT", 17, &["x", "step", "", "len"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n), t("[1, 15, 9, 2]", "none", F32));
    // `stft_with_window`: the frame length from the window
    let n = node("STFT", 17, &["x", "step", "w"], &["y"], vec![]);
    assert_eq!(shape_of(&mut ctx, &n), "[1, 15, 9, 2]");
    let n = node(
        "STFT",
        17,
        &["x", "step", "w", "len"],
        &["y"],
        vec![("onesided", Attr::Int(0))],
    );
    assert_eq!(shape_of(&mut ctx, &n), "[1, 15, 16, 2]");
    // symbolic: one frame of the whole signal by default
    put(&mut ctx, "xs", F32, &["B", "L", "1"], None);
    let n = node("STFT", 17, &["xs", "step"], &["y"], vec![]);
    assert_eq!(shape_of(&mut ctx, &n), "[B, 1, floordiv(L, 2) + 1, 2]");
    let n = node("STFT", 17, &["xs", "step", "w"], &["y"], vec![]);
    assert_eq!(shape_of(&mut ctx, &n), "[B, floordiv(L, 8) - 1, 9, 2]");
    // errors: a window of another length, a complex one-sided, a long frame
    put(&mut ctx, "w8", F32, &["8"], None);
    let n = node("STFT", 17, &["x", "step", "w8", "len"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
    put(&mut ctx, "xc", F32, &["1", "128", "2"], None);
    let n = node("STFT", 17, &["xc", "step"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
    put(&mut ctx, "big", I64, &[], Some(&["200"]));
    let n = node("STFT", 17, &["x", "step", "", "big"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
    // the windows: [size] of output_datatype
    put(&mut ctx, "size", I64, &[], Some(&["S"]));
    for op in ["HannWindow", "HammingWindow", "BlackmanWindow"] {
        let n = node(op, 17, &["size"], &["y"], vec![]);
        assert_eq!(one(&mut ctx, &n), t("[S]", "none", F32));
        let n = node(
            op,
            17,
            &["size"],
            &["y"],
            vec![("output_datatype", Attr::Int(11))],
        );
        assert_eq!(one(&mut ctx, &n).2, DType::Double);
    }
    // MelWeightMatrix: [floor(dft_length / 2) + 1, num_mel_bins] (the backend
    // test: 8 bins, dft_length 16: [9, 8])
    put(&mut ctx, "bins", I64, &[], Some(&["8"]));
    put(&mut ctx, "sr", I64, &[], Some(&["8192"]));
    put(&mut ctx, "lo", F32, &[], None);
    let n = node(
        "MelWeightMatrix",
        17,
        &["bins", "len", "sr", "lo", "lo"],
        &["y"],
        vec![],
    );
    assert_eq!(one(&mut ctx, &n), t("[9, 8]", "none", F32));
    put(&mut ctx, "neg", I64, &[], Some(&["-1"]));
    let n = node(
        "MelWeightMatrix",
        17,
        &["neg", "len", "sr", "lo", "lo"],
        &["y"],
        vec![],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
}

#[test]
fn image_decoder_channels() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "s", DType::Uint8, &["Z"], None);
    let n = node("ImageDecoder", 20, &["s"], &["y"], vec![]);
    assert_eq!(
        one(&mut ctx, &n),
        t("[unk0, unk1, 3]", "none", DType::Uint8)
    );
    let n = node(
        "ImageDecoder",
        20,
        &["s"],
        &["y"],
        vec![("pixel_format", Attr::Str("Grayscale".into()))],
    );
    assert_eq!(shape_of(&mut ctx, &n), "[unk0, unk1, 1]");
    let n = node(
        "ImageDecoder",
        20,
        &["s"],
        &["y"],
        vec![("pixel_format", Attr::Str("RGBA".into()))],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::BadAttribute { .. }));
}

// ----- text --------------------------------------------------------------------------------

#[test]
fn string_ops() {
    let s = DType::String;
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x2", s, &["2"], None);
    put(&mut ctx, "x14", s, &["1", "4"], None);
    put(&mut ctx, "x34", s, &["3", "4"], None);
    put(&mut ctx, "xc", s, &["N", "C"], None);
    put(&mut ctx, "c", s, &["C"], None);
    // StringNormalizer: `nostopwords_nochangecase` keeps [2]; with stop words the
    // count is data-dependent (`monday_casesensintive_lower`: 4 give 3)
    let n = node("StringNormalizer", 10, &["x2"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n), t("[2]", "none", s));
    let stop = || ("stopwords", Attr::Strs(vec!["monday".into()]));
    let n = node("StringNormalizer", 10, &["x14"], &["y"], vec![stop()]);
    assert_eq!(shape_of(&mut ctx, &n), "[1, unk0]");
    let n = node("StringNormalizer", 10, &["x34"], &["y"], vec![stop()]);
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
    let n = node(
        "StringNormalizer",
        10,
        &["x2"],
        &["y"],
        vec![("case_change_action", Attr::Str("TITLE".into()))],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::BadAttribute { .. }));
    // StringConcat broadcasts
    let n = node("StringConcat", 20, &["xc", "c"], &["z"], vec![]);
    assert_eq!(one(&mut ctx, &n), t("[N, C]", "none", s));
    let n = node("StringConcat", 20, &["x2", "x34"], &["z"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
    // StringSplit: one more axis, data-dependent; the counts the input's shape
    let n = node(
        "StringSplit",
        20,
        &["xc"],
        &["y", "z"],
        vec![("delimiter", Attr::Str(" ".into()))],
    );
    assert_eq!(
        all(&mut ctx, &n),
        [t("[N, C, unk1]", "none", s), t("[N, C]", "none", I64)]
    );
    // RegexFullMatch: bool; the pattern is required
    let n = node(
        "RegexFullMatch",
        20,
        &["xc"],
        &["y"],
        vec![("pattern", Attr::Str("a+".into()))],
    );
    assert_eq!(one(&mut ctx, &n), t("[N, C]", "none", BOOL));
    let n = node("RegexFullMatch", 20, &["xc"], &["y"], vec![]);
    assert!(matches!(
        err(&mut ctx, &n),
        OpError::MissingAttribute { .. }
    ));
    put(&mut ctx, "f", F32, &["2"], None);
    let n = node(
        "RegexFullMatch",
        20,
        &["f"],
        &["y"],
        vec![("pattern", Attr::Str("a".into()))],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::UnsupportedType { .. }));
}

#[test]
fn tf_idf_vectorizer_backend_shapes() {
    let mut ctx = ShapesContext::default();
    // the backend tests: ngram_indexes 0..=6 give 7 columns; [12] and [2, 6] inputs
    put(&mut ctx, "x1", DType::Int32, &["12"], None);
    put(&mut ctx, "x2", DType::Int32, &["2", "6"], None);
    let a = || {
        vec![
            ("mode", Attr::Str("TF".into())),
            ("min_gram_length", Attr::Int(2)),
            ("max_gram_length", Attr::Int(2)),
            ("max_skip_count", Attr::Int(0)),
            ("ngram_counts", ints(&[0, 4])),
            ("ngram_indexes", ints(&[0, 1, 2, 3, 4, 5, 6])),
            ("pool_int64s", ints(&[2, 3, 5, 4, 5, 6, 7, 8, 6, 7])),
        ]
    };
    let n = node("TfIdfVectorizer", 9, &["x1"], &["y"], a());
    assert_eq!(one(&mut ctx, &n), t("[7]", "none", F32));
    let n = node("TfIdfVectorizer", 9, &["x2"], &["y"], a());
    assert_eq!(shape_of(&mut ctx, &n), "[2, 7]");
    put(&mut ctx, "x3", DType::Int32, &["2", "6", "1"], None);
    let n = node("TfIdfVectorizer", 9, &["x3"], &["y"], a());
    assert!(matches!(err(&mut ctx, &n), OpError::Rank { .. }));
    let mut bad = a();
    bad[0] = ("mode", Attr::Str("BM25".into()));
    let n = node("TfIdfVectorizer", 9, &["x1"], &["y"], bad);
    assert!(matches!(err(&mut ctx, &n), OpError::BadAttribute { .. }));
}

// ----- Col2Im, AffineGrid, CenterCropPad --------------------------------------------------

#[test]
fn col2im_spec_shapes() {
    let mut ctx = ShapesContext::default();
    // the backend test `col2im`: [1, 5, 5] with image [5, 5], block [1, 5] gives
    // [1, 1, 5, 5]
    put(&mut ctx, "x", F32, &["1", "5", "5"], None);
    put(&mut ctx, "img", I64, &["2"], Some(&["5", "5"]));
    put(&mut ctx, "blk", I64, &["2"], Some(&["1", "5"]));
    let n = node("Col2Im", 18, &["x", "img", "blk"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n), t("[1, 1, 5, 5]", "none", F32));
    // `col2im_strides`: [1, 9, 4], image [5, 5], block [3, 3], strides 2
    put(&mut ctx, "x2", F32, &["1", "9", "4"], None);
    put(&mut ctx, "b3", I64, &["2"], Some(&["3", "3"]));
    let n = node(
        "Col2Im",
        18,
        &["x2", "img", "b3"],
        &["y"],
        vec![("strides", ints(&[2, 2]))],
    );
    assert_eq!(shape_of(&mut ctx, &n), "[1, 1, 5, 5]");
    // `col2im_pads`: [1, 5, 15], block [1, 5], pads [0, 1, 0, 1]
    put(&mut ctx, "x3", F32, &["1", "5", "15"], None);
    let n = node(
        "Col2Im",
        18,
        &["x3", "img", "blk"],
        &["y"],
        vec![("pads", ints(&[0, 1, 0, 1]))],
    );
    assert_eq!(shape_of(&mut ctx, &n), "[1, 1, 5, 5]");
    // `col2im_5d`: [1, 10, 12], image [3, 4, 5], block [1, 1, 5]: [1, 2, 3, 4, 5]
    put(&mut ctx, "x5", F32, &["1", "10", "12"], None);
    put(&mut ctx, "i3", I64, &["3"], Some(&["3", "4", "5"]));
    put(&mut ctx, "b115", I64, &["3"], Some(&["1", "1", "5"]));
    let n = node("Col2Im", 18, &["x5", "i3", "b115"], &["y"], vec![]);
    assert_eq!(shape_of(&mut ctx, &n), "[1, 2, 3, 4, 5]");
    // symbolic: the image from a shape, L equated with the block count
    put(&mut ctx, "xs", F32, &["N", "8", "L"], None);
    put(&mut ctx, "is", I64, &["2"], Some(&["H", "W"]));
    put(&mut ctx, "b22", I64, &["2"], Some(&["2", "2"]));
    let n = node("Col2Im", 18, &["xs", "is", "b22"], &["y"], vec![]);
    assert_eq!(shape_of(&mut ctx, &n), "[N, 2, H, W]");
    // errors: a wrong L, channels not divisible, one spatial axis
    put(&mut ctx, "xl", F32, &["1", "9", "5"], None);
    let n = node(
        "Col2Im",
        18,
        &["xl", "img", "b3"],
        &["y"],
        vec![("strides", ints(&[2, 2]))],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
    put(&mut ctx, "xc", F32, &["1", "7", "4"], None);
    let n = node(
        "Col2Im",
        18,
        &["xc", "img", "b3"],
        &["y"],
        vec![("strides", ints(&[2, 2]))],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::Algebra(_)));
    put(&mut ctx, "i1", I64, &["1"], Some(&["5"]));
    put(&mut ctx, "b1", I64, &["1"], Some(&["5"]));
    let n = node("Col2Im", 18, &["x", "i1", "b1"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
}

#[test]
fn affine_grid_and_center_crop_pad() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "t2", F32, &["N", "2", "3"], None);
    put(&mut ctx, "t3", F32, &["N", "3", "4"], None);
    put(&mut ctx, "s4", I64, &["4"], Some(&["N", "C", "H", "W"]));
    put(
        &mut ctx,
        "s5",
        I64,
        &["5"],
        Some(&["N", "C", "D", "H", "W"]),
    );
    put(&mut ctx, "su", I64, &["4"], None);
    let n = node("AffineGrid", 20, &["t2", "s4"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n), t("[N, H, W, 2]", "none", F32));
    let n = node(
        "AffineGrid",
        20,
        &["t3", "s5"],
        &["y"],
        vec![("align_corners", Attr::Int(1))],
    );
    assert_eq!(shape_of(&mut ctx, &n), "[N, D, H, W, 3]");
    let n = node("AffineGrid", 20, &["t2", "su"], &["y"], vec![]);
    assert_eq!(shape_of(&mut ctx, &n), "[N, unk2, unk3, 2]");
    let n = node("AffineGrid", 20, &["t3", "s4"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
    put(&mut ctx, "tb", F32, &["N", "2", "4"], None);
    let n = node("AffineGrid", 20, &["tb", "s4"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
    // CenterCropPad: the backend tests' [20, 10, 3] to [10, 7, 3] (crop), to
    // [20, 10, 3] from [10, 7, 3] (pad), and `axes` [1, 2]
    put(&mut ctx, "x", F32, &["20", "10", "3"], None);
    put(&mut ctx, "sh", I64, &["3"], Some(&["10", "7", "3"]));
    let n = node("CenterCropPad", 18, &["x", "sh"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n), t("[10, 7, 3]", "none", F32));
    put(&mut ctx, "x2", F32, &["3", "20", "8"], None);
    put(&mut ctx, "sh2", I64, &["2"], Some(&["10", "9"]));
    let n = node(
        "CenterCropPad",
        18,
        &["x2", "sh2"],
        &["y"],
        vec![("axes", ints(&[1, 2]))],
    );
    assert_eq!(shape_of(&mut ctx, &n), "[3, 10, 9]");
    let n = node(
        "CenterCropPad",
        18,
        &["x2", "sh2"],
        &["y"],
        vec![("axes", ints(&[-1]))],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
    put(&mut ctx, "shu", I64, &["2"], None);
    let n = node(
        "CenterCropPad",
        18,
        &["x2", "shu"],
        &["y"],
        vec![("axes", ints(&[1, 2]))],
    );
    assert_eq!(shape_of(&mut ctx, &n), "[3, unk4, unk5]");
}

// ----- ai.onnx.ml -------------------------------------------------------------------------

/// A node of the `ai.onnx.ml` domain.
fn ml(op: &str, version: i64, inputs: &[&str], outputs: &[&str], a: Vec<(&str, Attr)>) -> Node {
    let mut n = node(op, version, inputs, outputs, a);
    n.domain = "ai.onnx.ml".to_string();
    n
}

#[test]
fn ml_models() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", F32, &["N", "4"], None);
    put(&mut ctx, "x1", F32, &["4"], None);
    let labels = |k: i64| ("classlabels_ints", ints(&(0..k).collect::<Vec<_>>()));
    // classifiers: labels [N], scores [N, E]; a 1-D input is one example
    let n = ml("LinearClassifier", 1, &["x"], &["y", "z"], vec![labels(3)]);
    assert_eq!(
        all(&mut ctx, &n),
        [t("[N]", "none", I64), t("[N, 3]", "none", F32)]
    );
    let n = ml("LinearClassifier", 1, &["x1"], &["y", "z"], vec![labels(2)]);
    assert_eq!(
        all(&mut ctx, &n),
        [t("[1]", "none", I64), t("[1, 2]", "none", F32)]
    );
    let n = ml(
        "SVMClassifier",
        1,
        &["x"],
        &["y", "z"],
        vec![(
            "classlabels_strings",
            Attr::Strs(vec!["a".into(), "b".into()]),
        )],
    );
    assert_eq!(
        all(&mut ctx, &n),
        [t("[N]", "none", DType::String), t("[N, 2]", "none", F32)]
    );
    let n = ml(
        "TreeEnsembleClassifier",
        3,
        &["x"],
        &["y", "z"],
        vec![("classlabels_int64s", ints(&[3, 4, 5, 6]))],
    );
    assert_eq!(shapes_of(&mut ctx, &n), ["[N]", "[N, 4]"]);
    let n = ml(
        "TreeEnsembleClassifier",
        3,
        &["x1"],
        &["y", "z"],
        vec![("classlabels_int64s", ints(&[3]))],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::Rank { .. }));
    let n = ml("LinearClassifier", 1, &["x"], &["y", "z"], vec![]);
    assert!(matches!(
        err(&mut ctx, &n),
        OpError::MissingAttribute { .. }
    ));
    // regressors
    let n = ml(
        "LinearRegressor",
        1,
        &["x"],
        &["y"],
        vec![("targets", Attr::Int(2))],
    );
    assert_eq!(one(&mut ctx, &n), t("[N, 2]", "none", F32));
    let n = ml("LinearRegressor", 1, &["x1"], &["y"], vec![]);
    assert_eq!(shape_of(&mut ctx, &n), "[1, 1]");
    let n = ml("SVMRegressor", 1, &["x"], &["y"], vec![]);
    assert_eq!(shape_of(&mut ctx, &n), "[N, 1]");
    let n = ml(
        "TreeEnsembleRegressor",
        3,
        &["x"],
        &["y"],
        vec![("n_targets", Attr::Int(3))],
    );
    assert_eq!(shape_of(&mut ctx, &n), "[N, 3]");
    put(&mut ctx, "xd", DType::Double, &["N", "4"], None);
    let n = ml(
        "TreeEnsemble",
        5,
        &["xd"],
        &["y"],
        vec![("n_targets", Attr::Int(2))],
    );
    assert_eq!(one(&mut ctx, &n), t("[N, 2]", "none", DType::Double));
    let n = ml(
        "LinearRegressor",
        1,
        &["x"],
        &["y"],
        vec![("targets", Attr::Int(0))],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::BadAttribute { .. }));
}

#[test]
fn ml_transforms() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", F32, &["N", "4"], None);
    put(&mut ctx, "x1", F32, &["4"], None);
    put(&mut ctx, "xi", I64, &["N", "3"], None);
    put(&mut ctx, "xs", DType::String, &["N", "3"], None);
    put(&mut ctx, "idx", I64, &["2"], None);
    // the same shape
    let n = ml("Binarizer", 1, &["xi"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n), t("[N, 3]", "none", I64));
    let n = ml("Imputer", 1, &["x"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n), t("[N, 4]", "none", F32));
    let n = ml("Scaler", 1, &["xi"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n), t("[N, 3]", "none", F32));
    let n = ml(
        "Normalizer",
        1,
        &["x1"],
        &["y"],
        vec![("norm", Attr::Str("L2".into()))],
    );
    assert_eq!(shape_of(&mut ctx, &n), "[4]");
    let n = ml(
        "Normalizer",
        1,
        &["x1"],
        &["y"],
        vec![("norm", Attr::Str("L3".into()))],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::BadAttribute { .. }));
    // the type mapped
    let n = ml("CategoryMapper", 1, &["xs"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).2, I64);
    let n = ml("CategoryMapper", 1, &["xi"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).2, DType::String);
    let n = ml("LabelEncoder", 1, &["xs"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n), t("[N, 3]", "none", I64));
    let n = ml(
        "LabelEncoder",
        2,
        &["xs"],
        &["y"],
        vec![
            ("keys_strings", Attr::Strs(vec!["a".into()])),
            ("values_floats", Attr::Floats(vec![1.0])),
        ],
    );
    assert_eq!(one(&mut ctx, &n).2, F32);
    let n = ml("LabelEncoder", 2, &["xs"], &["y"], vec![]);
    assert!(matches!(
        err(&mut ctx, &n),
        OpError::MissingAttribute { .. }
    ));
    // one more axis, the last axis replaced
    let n = ml(
        "OneHotEncoder",
        1,
        &["xi"],
        &["y"],
        vec![("cats_int64s", ints(&[0, 1, 2, 7]))],
    );
    assert_eq!(one(&mut ctx, &n), t("[N, 3, 4]", "none", F32));
    let n = ml("ArrayFeatureExtractor", 1, &["x", "idx"], &["y"], vec![]);
    assert_eq!(shape_of(&mut ctx, &n), "[N, 2]");
    let n = ml("ArrayFeatureExtractor", 1, &["x1", "idx"], &["y"], vec![]);
    assert_eq!(shape_of(&mut ctx, &n), "[1, 2]");
    // FeatureVectorizer: [N, sum(inputdimensions)]
    let n = ml(
        "FeatureVectorizer",
        1,
        &["x", "xi"],
        &["y"],
        vec![("inputdimensions", ints(&[4, 3]))],
    );
    assert_eq!(one(&mut ctx, &n), t("[N, 7]", "none", F32));
    let n = ml(
        "FeatureVectorizer",
        1,
        &["x", "xi"],
        &["y"],
        vec![("inputdimensions", ints(&[4]))],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::BadAttribute { .. }));
}

#[test]
fn ml_maps() {
    let mut ctx = ShapesContext::default();
    // a map's fact: its value type, an unknown rank
    ctx.insert("m", TensorFact::unknown(DType::Double));
    let n = ml(
        "DictVectorizer",
        1,
        &["m"],
        &["y"],
        vec![(
            "string_vocabulary",
            Attr::Strs(vec!["a".into(), "b".into(), "c".into()]),
        )],
    );
    assert_eq!(one(&mut ctx, &n), t("[1, 3]", "none", DType::Double));
    let n = ml("CastMap", 1, &["m"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n), t("[1, unk0]", "none", F32));
    let n = ml(
        "CastMap",
        1,
        &["m"],
        &["y"],
        vec![
            ("map_form", Attr::Str("SPARSE".into())),
            ("max_map", Attr::Int(9)),
            ("cast_to", Attr::Str("TO_INT64".into())),
        ],
    );
    assert_eq!(one(&mut ctx, &n), t("[1, 9]", "none", I64));
    // ZipMap: a sequence of N maps
    put(&mut ctx, "p", F32, &["N", "3"], None);
    let n = ml(
        "ZipMap",
        1,
        &["p"],
        &["z"],
        vec![("classlabels_int64s", ints(&[0, 1, 2]))],
    );
    run(&mut ctx, &n);
    assert_eq!(seq_of(&ctx, "z"), "N; f32 ?; -");
    let n = ml(
        "ZipMap",
        1,
        &["p"],
        &["z"],
        vec![("classlabels_int64s", ints(&[0, 1]))],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
}

// ----- ai.onnx.preview.training ------------------------------------------------------------

/// A node of the `ai.onnx.preview.training` domain.
fn training(op: &str, inputs: &[&str], outputs: &[&str], a: Vec<(&str, Attr)>) -> Node {
    let mut n = node(op, 1, inputs, outputs, a);
    n.domain = "ai.onnx.preview.training".to_string();
    n
}

#[test]
fn training_ops() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "r", F32, &[], None);
    put(&mut ctx, "t", I64, &[], None);
    put(&mut ctx, "x", F32, &["N", "S"], None);
    put(&mut ctx, "w", F32, &["S"], None);
    put(&mut ctx, "gx", F32, &["N", "S"], None);
    put(&mut ctx, "gw", F32, &["S"], None);
    // Adagrad: X_new..., H_new...
    let n = training(
        "Adagrad",
        &["r", "t", "x", "w", "gx", "gw", "gx", "gw"],
        &["a", "b", "c", "d"],
        vec![],
    );
    assert_eq!(shapes_of(&mut ctx, &n), ["[N, S]", "[S]", "[N, S]", "[S]"]);
    // Adam: X_new..., V_new..., H_new...
    let n = training(
        "Adam",
        &["r", "t", "x", "gx", "gx", "gx"],
        &["a", "b", "c"],
        vec![],
    );
    assert_eq!(shapes_of(&mut ctx, &n), ["[N, S]", "[N, S]", "[N, S]"]);
    let n = training(
        "Momentum",
        &["r", "t", "x", "gx", "gx"],
        &["a", "b"],
        vec![],
    );
    assert_eq!(shapes_of(&mut ctx, &n), ["[N, S]", "[N, S]"]);
    // errors: the input count, a gradient of another shape
    let n = training("Adam", &["r", "t", "x", "gx", "gx"], &["a"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::InputCount { .. }));
    put(&mut ctx, "g3", F32, &["N", "3"], None);
    put(&mut ctx, "x4", F32, &["N", "4"], None);
    let n = training(
        "Momentum",
        &["r", "t", "x4", "g3", "g3"],
        &["a", "b"],
        vec![],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
    // Gradient: the shapes of the xs inputs
    let n = training(
        "Gradient",
        &["x", "w", "t"],
        &["dx", "dw"],
        vec![
            ("xs", Attr::Strs(vec!["x".into(), "w".into()])),
            ("zs", Attr::Strs(vec!["t".into()])),
            ("y", Attr::Str("loss".into())),
        ],
    );
    assert_eq!(shapes_of(&mut ctx, &n), ["[N, S]", "[S]"]);
    let n = training(
        "Gradient",
        &["x"],
        &["dx"],
        vec![("y", Attr::Str("loss".into()))],
    );
    assert!(matches!(
        err(&mut ctx, &n),
        OpError::MissingAttribute { .. }
    ));
}

// ----- re-checked rules --------------------------------------------------------------------

#[test]
fn mod_28_floor_modulo_of_floats() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "a", F32, &["N", "S"], None);
    put(&mut ctx, "b", F32, &["S"], None);
    let n = node("Mod", 28, &["a", "b"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n), t("[N, S]", "none", F32));
    // before 28, floats need fmod = 1
    let n = node("Mod", 13, &["a", "b"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::BadAttribute { .. }));
}

// ----- error messages ------------------------------------------------------------------------

#[test]
fn error_messages_snapshot() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "b", F32, &["1", "6", "5"], None);
    put(&mut ctx, "s", F32, &["1", "1", "7"], None);
    put(&mut ctx, "x", F32, &["N", "4"], None);
    put(&mut ctx, "c2", BOOL, &["2", "2"], None);
    put(&mut ctx, "q", F32, &["B", "8", "L", "64"], None);
    put(&mut ctx, "k3", F32, &["B", "3", "S", "64"], None);
    put(&mut ctx, "k32", F32, &["B", "2", "S", "32"], None);
    put(&mut ctx, "v2", F32, &["B", "2", "S", "32"], None);
    put(&mut ctx, "r", F32, &["N", "S", "T", "1"], None);
    put(&mut ctx, "a3", I64, &[], Some(&["3"]));
    put(&mut ctx, "sig", F32, &["1", "128", "2"], None);
    put(&mut ctx, "st", I64, &[], Some(&["8"]));
    put(&mut ctx, "xc", F32, &["1", "9", "5"], None);
    put(&mut ctx, "img", I64, &["2"], Some(&["5", "5"]));
    put(&mut ctx, "blk", I64, &["2"], Some(&["3", "3"]));
    put(&mut ctx, "x3", F32, &["2", "3", "2"], None);
    put(&mut ctx, "t3", I64, &["3", "2"], None);
    put(&mut ctx, "five", I64, &[], Some(&["5"]));
    put(&mut ctx, "sx", DType::String, &["3", "4"], None);
    ctx.insert("e", TensorFact::unknown(F32));
    run(
        &mut ctx,
        &node("SequenceEmpty", 11, &[], &["empty"], vec![]),
    );
    run(&mut ctx, &node("Optional", 15, &[], &["none"], vec![]));
    let ml_node = |op: &str, a| ml(op, 1, &["x"], &["y", "z"], a);
    let cases = [
        node("NonMaxSuppression", 11, &["b", "s"], &["y"], vec![]),
        node("Compress", 11, &["x", "c2"], &["y"], vec![]),
        node("Unique", 11, &["x"], &["y"], vec![("axis", Attr::Int(2))]),
        node("Det", 11, &["x3"], &["y"], vec![]),
        node(
            "ReverseSequence",
            10,
            &["x", "x"],
            &["y"],
            vec![("batch_axis", Attr::Int(0))],
        ),
        node("BitCast", 26, &["x"], &["y"], vec![("to", Attr::Int(7))]),
        node(
            "NegativeLogLikelihoodLoss",
            13,
            &["x3", "t3"],
            &["y"],
            vec![],
        ),
        node("SequenceErase", 11, &["empty"], &["y"], vec![]),
        node(
            "SequenceInsert",
            11,
            &["empty", "x", "five"],
            &["y"],
            vec![],
        ),
        node("OptionalGetElement", 15, &["none"], &["y"], vec![]),
        node("ConcatFromSequence", 11, &["empty"], &["y"], vec![]),
        node("Attention", 23, &["q", "k3", "k3"], &["y"], vec![]),
        node("Attention", 23, &["q", "k32", "v2"], &["y"], vec![]),
        node("DFT", 20, &["r", "", "a3"], &["y"], vec![]),
        node("STFT", 17, &["sig", "st"], &["y"], vec![]),
        node(
            "Col2Im",
            18,
            &["xc", "img", "blk"],
            &["y"],
            vec![("strides", ints(&[2, 2]))],
        ),
        node(
            "StringNormalizer",
            10,
            &["sx"],
            &["y"],
            vec![("stopwords", Attr::Strs(vec!["a".into()]))],
        ),
        node(
            "TfIdfVectorizer",
            9,
            &["x"],
            &["y"],
            vec![("ngram_indexes", ints(&[0]))],
        ),
        ml_node("LinearClassifier", vec![]),
        ml_node("Normalizer", vec![("norm", Attr::Str("L3".into()))]),
        training("Adam", &["x", "x", "x"], &["y"], vec![]),
    ];
    let mut msgs = Vec::new();
    for n in &cases {
        let e = apply(&mut ctx, n).expect_err(&n.op_type);
        msgs.push(format!("{}-{}: {e}", n.op_type, n.version));
    }
    common::snapshots().bind(|| insta::assert_snapshot!("ops_standard_errors", msgs.join("\n")));
}

// ----- no panics ------------------------------------------------------------------------------

mod no_panic {
    use super::*;
    use proptest::prelude::*;

    /// Every op that gained a rule here, with its domain and versions.
    fn ops() -> Vec<(&'static str, &'static str, i64)> {
        let list = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/onnx_ops/onnx_ops.txt"
        ))
        .unwrap();
        let new: &[&str] = &[
            "NonMaxSuppression",
            "Compress",
            "Unique",
            "CumProd",
            "ReverseSequence",
            "BitCast",
            "Det",
            "NegativeLogLikelihoodLoss",
            "SoftmaxCrossEntropyLoss",
            "SequenceEmpty",
            "SequenceConstruct",
            "SequenceInsert",
            "SequenceErase",
            "SequenceAt",
            "SequenceLength",
            "SplitToSequence",
            "ConcatFromSequence",
            "Optional",
            "OptionalHasElement",
            "OptionalGetElement",
            "Attention",
            "RotaryEmbedding",
            "RMSNormalization",
            "TensorScatter",
            "Swish",
            "SwiGLU",
            "LinearAttention",
            "CausalConvWithState",
            "FlexAttention",
            "DFT",
            "STFT",
            "HannWindow",
            "HammingWindow",
            "BlackmanWindow",
            "MelWeightMatrix",
            "ImageDecoder",
            "StringNormalizer",
            "StringConcat",
            "StringSplit",
            "RegexFullMatch",
            "TfIdfVectorizer",
            "Col2Im",
            "AffineGrid",
            "CenterCropPad",
        ];
        let mut out = Vec::new();
        for line in list.lines().filter(|l| !l.starts_with('#')) {
            let mut p = line.split_whitespace();
            let (Some(d), Some(op), Some(v)) = (p.next(), p.next(), p.next()) else {
                continue;
            };
            let keep = d == "ai.onnx.ml" || d == "ai.onnx.preview.training" || new.contains(&op);
            if !keep {
                continue;
            }
            let d: &'static str = match d {
                "ai.onnx" => "",
                "ai.onnx.ml" => "ai.onnx.ml",
                "ai.onnx.preview" => "ai.onnx.preview",
                _ => "ai.onnx.preview.training",
            };
            let op: &'static str = Box::leak(op.to_string().into_boxed_str());
            for ver in v.split(',') {
                out.push((d, op, ver.parse().unwrap()));
            }
        }
        out
    }

    const DTYPES: &[DType] = &[
        F32,
        I64,
        DType::Int32,
        BOOL,
        DType::String,
        DType::Undefined,
    ];
    const INTS: &[i64] = &[-5, -2, -1, 0, 1, 2, 3, 7, i64::MAX, i64::MIN];
    const ATTRS: &[&str] = &[
        "axis",
        "keepdims",
        "new_axis",
        "sorted",
        "onesided",
        "inverse",
        "q_num_heads",
        "kv_num_heads",
        "num_heads",
        "targets",
        "n_targets",
        "classlabels_ints",
        "axes",
        "strides",
        "pads",
        "ngram_indexes",
        "inputdimensions",
        "max_map",
        "to",
        "dtype",
    ];

    use models::arb::{In, Inputs};

    const INPUTS: Inputs = Inputs {
        codes: 7,
        scale: 1,
        max_rank: 5,
        max_values: 6,
    };

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn rules_never_panic(
            op in any::<prop::sample::Index>(),
            ins in prop::collection::vec(INPUTS.input(DTYPES.len(), INTS.len()), 0..6),
            outs in 1usize..5,
            attrs in prop::collection::vec((0..ATTRS.len(), 0..INTS.len(), prop::collection::vec(0..INTS.len(), 0..4)), 0..4),
            seq_in in any::<bool>(),
        ) {
            let list = ops();
            let (domain, op, version) = list[op.index(list.len())];
            let mut ctx = ShapesContext::default();
            let names = INPUTS.put(&mut ctx, &ins, DTYPES, INTS);
            if seq_in && matches!(ins.first(), Some(In::Tensor(..))) {
                let fact = ctx.get("in0").cloned().unwrap();
                let len = ctx.alg.constant(2);
                ctx.set_sequence("in0", symdim::context::SequenceFact {
                    elem: fact.clone(),
                    len: Some(len),
                    elems: Some(vec![fact.clone(), fact]),
                });
            }
            let a = attrs
                .iter()
                .map(|(k, v, vs)| {
                    let attr = match ATTRS[*k] {
                        "axes" | "strides" | "pads" | "ngram_indexes" | "inputdimensions" | "classlabels_ints" => {
                            Attr::Ints(vs.iter().map(|x| INTS[*x].clamp(-3, 4)).collect())
                        }
                        _ => Attr::Int(INTS[*v]),
                    };
                    (ATTRS[*k], attr)
                })
                .collect();
            let inputs: Vec<&str> = names.iter().map(String::as_str).collect();
            let outputs: Vec<String> = (0..outs).map(|o| format!("out{o}")).collect();
            let outputs: Vec<&str> = outputs.iter().map(String::as_str).collect();
            let mut n = node(op, version, &inputs, &outputs, a);
            n.domain = domain.to_string();
            let _ = apply(&mut ctx, &n);
        }
    }
}
