//! GatherElements, the scatter ops, EyeLike, Trilu, the random ops, Bernoulli,
//! Multinomial, OneHot and CastLike: hand-built context cases for every version with
//! expected values worked out from the ONNX spec, a snapshot of their error
//! messages, and the probe against onnxruntime's real output shapes.
//!
//! `tests/fixtures/ops_more/ort_cases.json` (written by `gen_ort_cases.py` beside
//! it) holds one-node graphs (and a few chains that turn an op's contents into a
//! shape) with symbolic input dims and, for several bindings of those symbols, the
//! output shapes and element types onnxruntime produced when running them (onnx's
//! shape inference where onnxruntime does not implement the opset). symdim infers
//! each graph once; every output dim is evaluated at each binding and compared.

use crate::common;
use crate::common::models;

use models::*;
use symdim::context::{OpError, ShapesContext, TensorFact};
use symdim::graph::{Attr, DType, Node};

const I64: DType = DType::Int64;
const I32: DType = DType::Int32;
const F32: DType = DType::Float;

fn ints(v: &[i64]) -> Attr {
    Attr::Ints(v.to_vec())
}

fn s(v: &str) -> Attr {
    Attr::Str(v.to_string())
}

/// Shape, value and dtype of the one output of `n`.
fn one(ctx: &mut ShapesContext, n: &Node) -> (String, String, DType) {
    let f = apply(ctx, n).unwrap_or_else(|e| panic!("{}: {e}", n.op_type));
    (shapes(ctx, &f)[0].clone(), value(ctx, &f[0]), f[0].dtype)
}

fn shape_of(ctx: &mut ShapesContext, n: &Node) -> String {
    one(ctx, n).0
}

fn err(ctx: &mut ShapesContext, n: &Node) -> OpError {
    apply(ctx, n).expect_err("an error")
}

// ----- GatherElements -----------------------------------------------------------------

#[test]
fn gather_elements_shapes() {
    for v in [11, 13] {
        let mut ctx = ShapesContext::default();
        put(&mut ctx, "x", F32, &["N", "S", "4"], None);
        put(&mut ctx, "i", I64, &["N", "T", "4"], None);
        put(&mut ctx, "j", I32, &["1", "S", "2"], None);
        // the output has the indices' shape and the data's type
        let n = node(
            "GatherElements",
            v,
            &["x", "i"],
            &["y"],
            vec![("axis", Attr::Int(1))],
        );
        assert_eq!(one(&mut ctx, &n), ("[N, T, 4]".into(), "none".into(), F32));
        let n = node(
            "GatherElements",
            v,
            &["x", "j"],
            &["y"],
            vec![("axis", Attr::Int(-1))],
        );
        assert_eq!(shape_of(&mut ctx, &n), "[1, S, 2]");
        // axis 0 is the default: off axis 0, T <= S is a requirement of the model
        let n = node("GatherElements", v, &["x", "i"], &["y"], vec![]);
        assert_eq!(shape_of(&mut ctx, &n), "[N, T, 4]");
        let req: Vec<String> = ctx
            .alg
            .requirements()
            .iter()
            .map(common::requirement)
            .collect();
        assert_eq!(req, ["T <= S"]);
        // data of unknown rank: still the indices' shape
        ctx.insert("u", TensorFact::unknown(F32));
        let n = node("GatherElements", v, &["u", "i"], &["y"], vec![]);
        assert_eq!(shape_of(&mut ctx, &n), "[N, T, 4]");
        // indices of unknown rank: unknown
        ctx.insert("ui", TensorFact::unknown(I64));
        let n = node("GatherElements", v, &["x", "ui"], &["y"], vec![]);
        assert_eq!(shape_of(&mut ctx, &n), "unknown rank");
    }
}

#[test]
fn gather_elements_values_and_errors() {
    let mut ctx = ShapesContext::default();
    // data [[1, 2], [3, 4]], indices [[0, 0], [1, 0]], axis 1: [[1, 1], [4, 3]]
    // (the spec's example 1)
    put(&mut ctx, "d", I64, &["2", "2"], Some(&["1", "2", "3", "4"]));
    put(&mut ctx, "i", I64, &["2", "2"], Some(&["0", "0", "1", "0"]));
    let n = node(
        "GatherElements",
        13,
        &["d", "i"],
        &["y"],
        vec![("axis", Attr::Int(1))],
    );
    assert_eq!(one(&mut ctx, &n).1, "[1, 1, 4, 3]");
    // the spec's example 2: data 3x3 1..9, indices [[1, 2, 0], [2, 0, 0]], axis 0
    put(
        &mut ctx,
        "d3",
        I64,
        &["3", "3"],
        Some(&["1", "2", "3", "4", "5", "6", "7", "8", "9"]),
    );
    put(
        &mut ctx,
        "i3",
        I64,
        &["2", "3"],
        Some(&["1", "2", "0", "2", "0", "0"]),
    );
    let n = node("GatherElements", 11, &["d3", "i3"], &["y"], vec![]);
    assert_eq!(
        one(&mut ctx, &n),
        ("[2, 3]".into(), "[4, 8, 3, 7, 2, 3]".into(), I64)
    );
    // a shape gathered with negative indices keeps its symbols
    put(&mut ctx, "sh", I64, &["3"], Some(&["N", "S", "T"]));
    put(&mut ctx, "ix", I64, &["2"], Some(&["-1", "0"]));
    let n = node("GatherElements", 13, &["sh", "ix"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).1, "[T, N]");
    // a constant index outside [-3, 2]
    put(&mut ctx, "bad", I64, &["1"], Some(&["3"]));
    let n = node("GatherElements", 13, &["sh", "bad"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
    // ranks differ
    put(&mut ctx, "x", F32, &["N", "S"], None);
    put(&mut ctx, "r1", I64, &["S"], None);
    let n = node("GatherElements", 13, &["x", "r1"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::Rank { .. }));
    // off the axis, indices 5 > data 4
    put(&mut ctx, "x4", F32, &["N", "4"], None);
    put(&mut ctx, "i5", I64, &["N", "5"], None);
    let n = node("GatherElements", 13, &["x4", "i5"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
    // along the axis any size is fine
    let n = node(
        "GatherElements",
        13,
        &["x4", "i5"],
        &["y"],
        vec![("axis", Attr::Int(1))],
    );
    assert_eq!(shape_of(&mut ctx, &n), "[N, 5]");
    // axis out of range, scalar data, float indices
    let n = node(
        "GatherElements",
        13,
        &["x4", "i5"],
        &["y"],
        vec![("axis", Attr::Int(2))],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::AxisOutOfRange { .. }));
    put(&mut ctx, "sc", F32, &[], None);
    let n = node("GatherElements", 13, &["sc", "sc"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::UnsupportedType { .. }));
    put(&mut ctx, "si", I64, &[], None);
    let n = node("GatherElements", 13, &["sc", "si"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::Rank { .. }));
}

// ----- ScatterElements, Scatter ---------------------------------------------------------

#[test]
fn scatter_elements_versions() {
    for (op, v) in [
        ("Scatter", 9),
        ("Scatter", 11),
        ("ScatterElements", 11),
        ("ScatterElements", 13),
        ("ScatterElements", 16),
        ("ScatterElements", 18),
    ] {
        let mut ctx = ShapesContext::default();
        put(&mut ctx, "x", F32, &["N", "S"], None);
        put(&mut ctx, "i", I64, &["N", "T"], None);
        put(&mut ctx, "u", F32, &["N", "T"], None);
        let n = node(
            op,
            v,
            &["x", "i", "u"],
            &["y"],
            vec![("axis", Attr::Int(1))],
        );
        assert_eq!(one(&mut ctx, &n), ("[N, S]".into(), "none".into(), F32));
        // indices and updates are equated: T and K become one
        put(&mut ctx, "k", F32, &["N", "K"], None);
        let n = node(
            op,
            v,
            &["x", "i", "k"],
            &["y"],
            vec![("axis", Attr::Int(1))],
        );
        assert_eq!(shape_of(&mut ctx, &n), "[N, S]");
        let t = ctx.alg.parse("T").unwrap();
        let k = ctx.alg.parse("K").unwrap();
        assert_eq!(ctx.alg.equal(t, k), symdim::algebra::Truth::True);
        // updates of another type
        put(&mut ctx, "ui", I64, &["N", "T"], None);
        let n = node(
            op,
            v,
            &["x", "i", "ui"],
            &["y"],
            vec![("axis", Attr::Int(1))],
        );
        assert!(matches!(err(&mut ctx, &n), OpError::TypeMismatch { .. }));
        // indices and updates of provably different shapes
        put(&mut ctx, "u3", F32, &["N", "3"], None);
        put(&mut ctx, "i2", I64, &["N", "2"], None);
        let n = node(
            op,
            v,
            &["x", "i2", "u3"],
            &["y"],
            vec![("axis", Attr::Int(1))],
        );
        assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
    }
}

#[test]
fn scatter_elements_reduction_by_version() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", F32, &["4"], None);
    put(&mut ctx, "i", I64, &["2"], None);
    put(&mut ctx, "u", F32, &["2"], None);
    let red = |v: i64, r: &str| {
        node(
            "ScatterElements",
            v,
            &["x", "i", "u"],
            &["y"],
            vec![("reduction", s(r))],
        )
    };
    // before 16 the attribute does not exist and is not read
    assert_eq!(shape_of(&mut ctx, &red(13, "bogus")), "[4]");
    assert_eq!(shape_of(&mut ctx, &red(16, "mul")), "[4]");
    assert!(matches!(
        err(&mut ctx, &red(16, "max")),
        OpError::BadAttribute { .. }
    ));
    assert_eq!(shape_of(&mut ctx, &red(18, "max")), "[4]");
    assert_eq!(shape_of(&mut ctx, &red(18, "min")), "[4]");
    assert!(matches!(
        err(&mut ctx, &red(18, "mean")),
        OpError::BadAttribute { .. }
    ));
    let n = node(
        "ScatterND",
        16,
        &["x", "i", "u"],
        &["y"],
        vec![("reduction", s("min"))],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::BadAttribute { .. }));
}

#[test]
fn scatter_elements_values() {
    let mut ctx = ShapesContext::default();
    // the spec's example 2: [[1, 2, 3, 4, 5]], indices [[1, 3]], updates [[11, 21]],
    // axis 1 -> [[1, 11, 3, 21, 5]] (integers for exact values)
    put(
        &mut ctx,
        "d",
        I64,
        &["1", "5"],
        Some(&["1", "2", "3", "4", "5"]),
    );
    put(&mut ctx, "i", I64, &["1", "2"], Some(&["1", "3"]));
    put(&mut ctx, "u", I64, &["1", "2"], Some(&["11", "21"]));
    let n = node(
        "ScatterElements",
        11,
        &["d", "i", "u"],
        &["y"],
        vec![("axis", Attr::Int(1))],
    );
    assert_eq!(
        one(&mut ctx, &n),
        ("[1, 5]".into(), "[1, 11, 3, 21, 5]".into(), I64)
    );
    // the spec's example 1 (axis 0): data zeros 3x3, indices [[1, 0, 2], [0, 2, 1]],
    // updates [[10, 11, 12], [20, 21, 22]] -> [[20, 11, 0], [10, 0, 22], [0, 21, 12]]
    put(&mut ctx, "z", I64, &["3", "3"], Some(&["0"; 9]));
    put(
        &mut ctx,
        "i2",
        I64,
        &["2", "3"],
        Some(&["1", "0", "2", "0", "2", "1"]),
    );
    put(
        &mut ctx,
        "u2",
        I64,
        &["2", "3"],
        Some(&["10", "11", "12", "20", "21", "22"]),
    );
    let n = node("ScatterElements", 13, &["z", "i2", "u2"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).1, "[20, 11, 0, 10, 0, 22, 0, 21, 12]");
    // on a shape: [N, S, T] with [-1, 0] <- [2, 3]; add: [N + 3, S, T + 2]
    put(&mut ctx, "sh", I64, &["3"], Some(&["N", "S", "T"]));
    put(&mut ctx, "ix", I64, &["2"], Some(&["-1", "0"]));
    put(&mut ctx, "up", I64, &["2"], Some(&["2", "3"]));
    let n = node("ScatterElements", 16, &["sh", "ix", "up"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).1, "[3, S, 2]");
    let n = node(
        "ScatterElements",
        16,
        &["sh", "ix", "up"],
        &["y"],
        vec![("reduction", s("add"))],
    );
    assert_eq!(one(&mut ctx, &n).1, "[N + 3, S, T + 2]");
    let n = node(
        "ScatterElements",
        18,
        &["sh", "ix", "up"],
        &["y"],
        vec![("reduction", s("max"))],
    );
    assert_eq!(one(&mut ctx, &n).1, "[max(N, 3), S, max(T, 2)]");
    // two writes to one element without a reduction: order unspecified, no contents
    put(&mut ctx, "dup", I64, &["2"], Some(&["0", "-3"]));
    let n = node("ScatterElements", 16, &["sh", "dup", "up"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).1, "none");
    let n = node(
        "ScatterElements",
        16,
        &["sh", "dup", "up"],
        &["y"],
        vec![("reduction", s("mul"))],
    );
    assert_eq!(one(&mut ctx, &n).1, "[6*N, S, T]");
    // an index out of range
    put(&mut ctx, "bad", I64, &["1"], Some(&["-4"]));
    put(&mut ctx, "u1", I64, &["1"], Some(&["1"]));
    let n = node("ScatterElements", 16, &["sh", "bad", "u1"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
}

// ----- ScatterND -----------------------------------------------------------------------

#[test]
fn scatter_nd_versions() {
    for v in [11, 13, 16, 18] {
        let mut ctx = ShapesContext::default();
        put(&mut ctx, "x", F32, &["N", "S", "4"], None);
        // k = 1, 2, 3 and 0: updates [M] + data[k:]
        for (k, us) in [
            ("1", vec!["M", "S", "4"]),
            ("2", vec!["M", "4"]),
            ("3", vec!["M"]),
            ("0", vec!["M", "N", "S", "4"]),
        ] {
            put(&mut ctx, "i", I64, &["M", k], None);
            put(&mut ctx, "u", F32, &us, None);
            let n = node("ScatterND", v, &["x", "i", "u"], &["y"], vec![]);
            assert_eq!(one(&mut ctx, &n), ("[N, S, 4]".into(), "none".into(), F32));
        }
        // indices of rank 3: updates [A, B] + data[1:]
        put(&mut ctx, "i3", I64, &["A", "B", "1"], None);
        put(&mut ctx, "u3", F32, &["A", "B", "S", "4"], None);
        let n = node("ScatterND", v, &["x", "i3", "u3"], &["y"], vec![]);
        assert_eq!(shape_of(&mut ctx, &n), "[N, S, 4]");
        // k beyond the rank, updates of the wrong rank or size, int32 indices
        put(&mut ctx, "i4", I64, &["M", "4"], None);
        let n = node("ScatterND", v, &["x", "i4", "u"], &["y"], vec![]);
        assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
        put(&mut ctx, "i1", I64, &["M", "1"], None);
        put(&mut ctx, "ur", F32, &["M", "S"], None);
        let n = node("ScatterND", v, &["x", "i1", "ur"], &["y"], vec![]);
        assert!(matches!(err(&mut ctx, &n), OpError::Rank { .. }));
        put(&mut ctx, "u5", F32, &["M", "S", "5"], None);
        let n = node("ScatterND", v, &["x", "i1", "u5"], &["y"], vec![]);
        assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
        put(&mut ctx, "i32", I32, &["M", "1"], None);
        let n = node("ScatterND", v, &["x", "i32", "u"], &["y"], vec![]);
        assert!(matches!(err(&mut ctx, &n), OpError::UnsupportedType { .. }));
        put(&mut ctx, "i0", I64, &[], None);
        let n = node("ScatterND", v, &["x", "i0", "u"], &["y"], vec![]);
        assert!(matches!(err(&mut ctx, &n), OpError::Rank { .. }));
        // a data-dependent k (unknown last dim): data's shape all the same
        put(&mut ctx, "iq", I64, &["M", "Q"], None);
        let n = node("ScatterND", v, &["x", "iq", "u"], &["y"], vec![]);
        assert_eq!(shape_of(&mut ctx, &n), "[N, S, 4]");
    }
}

#[test]
fn scatter_nd_values() {
    let mut ctx = ShapesContext::default();
    // the spec's example 1: [1..8], indices [[4], [3], [1], [7]], updates
    // [9, 10, 11, 12] -> [1, 11, 3, 10, 9, 6, 7, 12]
    put(
        &mut ctx,
        "d",
        I64,
        &["8"],
        Some(&["1", "2", "3", "4", "5", "6", "7", "8"]),
    );
    put(&mut ctx, "i", I64, &["4", "1"], Some(&["4", "3", "1", "7"]));
    put(&mut ctx, "u", I64, &["4"], Some(&["9", "10", "11", "12"]));
    let n = node("ScatterND", 11, &["d", "i", "u"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).1, "[1, 11, 3, 10, 9, 6, 7, 12]");
    // slices: data 3x2, indices [[2], [0]], updates [[7, 8], [5, 6]]
    put(
        &mut ctx,
        "m",
        I64,
        &["3", "2"],
        Some(&["1", "2", "3", "4", "5", "6"]),
    );
    put(&mut ctx, "is", I64, &["2", "1"], Some(&["2", "0"]));
    put(
        &mut ctx,
        "us",
        I64,
        &["2", "2"],
        Some(&["7", "8", "5", "6"]),
    );
    let n = node("ScatterND", 13, &["m", "is", "us"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).1, "[5, 6, 3, 4, 7, 8]");
    // on a shape, with reductions
    put(&mut ctx, "sh", I64, &["3"], Some(&["N", "S", "T"]));
    put(&mut ctx, "ix", I64, &["2", "1"], Some(&["1", "-1"]));
    put(&mut ctx, "up", I64, &["2"], Some(&["5", "2"]));
    let n = node("ScatterND", 16, &["sh", "ix", "up"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).1, "[N, 5, 2]");
    let n = node(
        "ScatterND",
        16,
        &["sh", "ix", "up"],
        &["y"],
        vec![("reduction", s("mul"))],
    );
    assert_eq!(one(&mut ctx, &n).1, "[N, 5*S, 2*T]");
    let n = node(
        "ScatterND",
        18,
        &["sh", "ix", "up"],
        &["y"],
        vec![("reduction", s("min"))],
    );
    assert_eq!(one(&mut ctx, &n).1, "[N, min(S, 5), min(T, 2)]");
    // k = 0 replaces the whole tensor: one update is its contents, two are a race
    put(&mut ctx, "k0", I64, &["1", "0"], Some(&[]));
    put(&mut ctx, "all", I64, &["1", "3"], Some(&["1", "2", "3"]));
    let n = node("ScatterND", 16, &["sh", "k0", "all"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).1, "[1, 2, 3]");
    // a constant index out of range for its axis
    put(&mut ctx, "bad", I64, &["1", "1"], Some(&["3"]));
    put(&mut ctx, "u1", I64, &["1"], Some(&["1"]));
    let n = node("ScatterND", 16, &["sh", "bad", "u1"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
}

// ----- EyeLike, Trilu -----------------------------------------------------------------------

#[test]
fn eye_like_versions() {
    for v in [9, 22] {
        let mut ctx = ShapesContext::default();
        put(&mut ctx, "x", I64, &["N", "S"], None);
        let n = node("EyeLike", v, &["x"], &["y"], vec![]);
        assert_eq!(one(&mut ctx, &n), ("[N, S]".into(), "none".into(), I64));
        let n = node("EyeLike", v, &["x"], &["y"], vec![("dtype", Attr::Int(11))]);
        assert_eq!(one(&mut ctx, &n).2, DType::Double);
        // a 2x3 constant shape: the contents, k = 1 is the diagonal above the main one
        put(&mut ctx, "c", F32, &["2", "3"], None);
        let n = node("EyeLike", v, &["c"], &["y"], vec![("k", Attr::Int(1))]);
        assert_eq!(one(&mut ctx, &n).1, "[0, 1, 0, 0, 0, 1]");
        let n = node("EyeLike", v, &["c"], &["y"], vec![("k", Attr::Int(-1))]);
        assert_eq!(one(&mut ctx, &n).1, "[0, 0, 0, 1, 0, 0]");
        // unknown rank: two fresh dims
        ctx.insert("u", TensorFact::unknown(F32));
        let n = node("EyeLike", v, &["u"], &["y"], vec![]);
        assert_eq!(shape_of(&mut ctx, &n), "[unk0, unk1]");
        // rank 3, a string output
        put(&mut ctx, "x3", F32, &["N", "S", "2"], None);
        let n = node("EyeLike", v, &["x3"], &["y"], vec![]);
        assert!(matches!(err(&mut ctx, &n), OpError::Rank { .. }));
        let n = node("EyeLike", v, &["x"], &["y"], vec![("dtype", Attr::Int(8))]);
        assert!(matches!(err(&mut ctx, &n), OpError::UnsupportedType { .. }));
    }
    // bf16 from opset 22
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", F32, &["N", "S"], None);
    let bf = |v| node("EyeLike", v, &["x"], &["y"], vec![("dtype", Attr::Int(16))]);
    assert!(matches!(
        err(&mut ctx, &bf(9)),
        OpError::UnsupportedType { .. }
    ));
    assert_eq!(one(&mut ctx, &bf(22)).2, DType::Bfloat16);
}

#[test]
fn trilu_shapes_and_values() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", F32, &["B", "N", "M"], None);
    let n = node("Trilu", 14, &["x"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n), ("[B, N, M]".into(), "none".into(), F32));
    put(&mut ctx, "k", I64, &[], None);
    let n = node(
        "Trilu",
        14,
        &["x", "k"],
        &["y"],
        vec![("upper", Attr::Int(0))],
    );
    assert_eq!(shape_of(&mut ctx, &n), "[B, N, M]");
    // contents: [[1, 2, 3], [4, 5, 6]]
    put(
        &mut ctx,
        "c",
        I64,
        &["2", "3"],
        Some(&["1", "2", "3", "4", "5", "6"]),
    );
    let n = node("Trilu", 14, &["c"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).1, "[1, 2, 3, 0, 5, 6]");
    let n = node("Trilu", 14, &["c"], &["y"], vec![("upper", Attr::Int(0))]);
    assert_eq!(one(&mut ctx, &n).1, "[1, 0, 0, 4, 5, 0]");
    put(&mut ctx, "k1", I64, &[], Some(&["1"]));
    put(&mut ctx, "km1", I64, &["1"], Some(&["-1"]));
    let n = node("Trilu", 14, &["c", "k1"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).1, "[0, 2, 3, 0, 0, 6]");
    let n = node(
        "Trilu",
        14,
        &["c", "km1"],
        &["y"],
        vec![("upper", Attr::Int(0))],
    );
    assert_eq!(one(&mut ctx, &n).1, "[0, 0, 0, 4, 0, 0]");
    // k of unknown contents: no contents
    let n = node("Trilu", 14, &["c", "k"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).1, "none");
    // rank 1, a k of two elements, an int32 k
    put(&mut ctx, "v", F32, &["N"], None);
    let n = node("Trilu", 14, &["v"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::Rank { .. }));
    put(&mut ctx, "k2", I64, &["2"], None);
    let n = node("Trilu", 14, &["x", "k2"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
    put(&mut ctx, "k32", I32, &[], None);
    let n = node("Trilu", 14, &["x", "k32"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::UnsupportedType { .. }));
}

// ----- random ops, Bernoulli, Multinomial ------------------------------------------------------

#[test]
fn random_ops_versions() {
    for v in [1, 22] {
        let mut ctx = ShapesContext::default();
        put(&mut ctx, "x", F32, &["N", "S"], None);
        put(&mut ctx, "xi", I64, &["N", "S"], None);
        for op in ["RandomUniformLike", "RandomNormalLike"] {
            let n = node(op, v, &["x"], &["y"], vec![]);
            assert_eq!(one(&mut ctx, &n), ("[N, S]".into(), "none".into(), F32));
            let n = node(op, v, &["xi"], &["y"], vec![("dtype", Attr::Int(11))]);
            assert_eq!(one(&mut ctx, &n).2, DType::Double);
            // an integer input without dtype: an integer output, which is not allowed
            let n = node(op, v, &["xi"], &["y"], vec![]);
            assert!(matches!(err(&mut ctx, &n), OpError::UnsupportedType { .. }));
            let n = node(op, v, &["x"], &["y"], vec![("dtype", Attr::Int(16))]);
            assert_eq!(apply(&mut ctx, &n).is_ok(), v >= 22, "{op}-{v} bf16");
        }
        for op in ["RandomUniform", "RandomNormal"] {
            let n = node(op, v, &[], &["y"], vec![("shape", ints(&[2, 0, 3]))]);
            assert_eq!(one(&mut ctx, &n), ("[2, 0, 3]".into(), "none".into(), F32));
            let n = node(
                op,
                v,
                &[],
                &["y"],
                vec![("shape", ints(&[4])), ("dtype", Attr::Int(10))],
            );
            assert_eq!(one(&mut ctx, &n).2, DType::Float16);
            let n = node(op, v, &[], &["y"], vec![]);
            assert!(matches!(
                err(&mut ctx, &n),
                OpError::MissingAttribute { .. }
            ));
            let n = node(op, v, &[], &["y"], vec![("shape", ints(&[2, -1]))]);
            assert!(matches!(err(&mut ctx, &n), OpError::BadAttribute { .. }));
            let n = node(
                op,
                v,
                &[],
                &["y"],
                vec![("shape", ints(&[2])), ("dtype", Attr::Int(7))],
            );
            assert!(matches!(err(&mut ctx, &n), OpError::UnsupportedType { .. }));
        }
    }
}

#[test]
fn bernoulli_and_multinomial() {
    for v in [15, 22] {
        let mut ctx = ShapesContext::default();
        put(&mut ctx, "p", F32, &["N", "S"], None);
        let n = node("Bernoulli", v, &["p"], &["y"], vec![]);
        assert_eq!(one(&mut ctx, &n), ("[N, S]".into(), "none".into(), F32));
        let n = node(
            "Bernoulli",
            v,
            &["p"],
            &["y"],
            vec![("dtype", Attr::Int(9))],
        );
        assert_eq!(one(&mut ctx, &n).2, DType::Bool);
        put(&mut ctx, "pi", I64, &["N"], None);
        let n = node("Bernoulli", v, &["pi"], &["y"], vec![]);
        assert!(matches!(err(&mut ctx, &n), OpError::UnsupportedType { .. }));
        put(&mut ctx, "pb", DType::Bfloat16, &["N"], None);
        let n = node("Bernoulli", v, &["pb"], &["y"], vec![]);
        assert_eq!(apply(&mut ctx, &n).is_ok(), v >= 22);
    }
    for v in [7, 22] {
        let mut ctx = ShapesContext::default();
        put(&mut ctx, "x", F32, &["B", "C"], None);
        let n = node("Multinomial", v, &["x"], &["y"], vec![]);
        assert_eq!(one(&mut ctx, &n), ("[B, 1]".into(), "none".into(), I32));
        let n = node(
            "Multinomial",
            v,
            &["x"],
            &["y"],
            vec![("sample_size", Attr::Int(5)), ("dtype", Attr::Int(7))],
        );
        assert_eq!(one(&mut ctx, &n), ("[B, 5]".into(), "none".into(), I64));
        let n = node(
            "Multinomial",
            v,
            &["x"],
            &["y"],
            vec![("sample_size", Attr::Int(0))],
        );
        assert!(matches!(err(&mut ctx, &n), OpError::BadAttribute { .. }));
        let n = node(
            "Multinomial",
            v,
            &["x"],
            &["y"],
            vec![("dtype", Attr::Int(1))],
        );
        assert!(matches!(err(&mut ctx, &n), OpError::UnsupportedType { .. }));
        put(&mut ctx, "x3", F32, &["B", "C", "1"], None);
        let n = node("Multinomial", v, &["x3"], &["y"], vec![]);
        assert!(matches!(err(&mut ctx, &n), OpError::Rank { .. }));
        ctx.insert("u", TensorFact::unknown(F32));
        let n = node("Multinomial", v, &["u"], &["y"], vec![]);
        assert_eq!(shape_of(&mut ctx, &n), "[unk0, 1]");
    }
}

// ----- OneHot -----------------------------------------------------------------------------

#[test]
fn one_hot_versions() {
    for v in [9, 11, 28] {
        let mut ctx = ShapesContext::default();
        put(&mut ctx, "i", I64, &["N", "S"], None);
        put(&mut ctx, "d", I64, &[], Some(&["5"]));
        put(&mut ctx, "vals", F32, &["2"], None);
        let oh = |d: &str, a: Vec<(&str, Attr)>| node("OneHot", v, &["i", d, "vals"], &["y"], a);
        assert_eq!(
            one(&mut ctx, &oh("d", vec![])),
            ("[N, S, 5]".into(), "none".into(), F32)
        );
        for (axis, want) in [
            (0, "[5, N, S]"),
            (1, "[N, 5, S]"),
            (2, "[N, S, 5]"),
            (-3, "[5, N, S]"),
            (-2, "[N, 5, S]"),
        ] {
            assert_eq!(
                shape_of(&mut ctx, &oh("d", vec![("axis", Attr::Int(axis))])),
                want
            );
        }
        for axis in [3, -4] {
            let e = err(&mut ctx, &oh("d", vec![("axis", Attr::Int(axis))]));
            assert!(matches!(e, OpError::AxisOutOfRange { .. }));
        }
        // a one-element vector, a symbolic depth, a float depth truncated toward zero
        put(&mut ctx, "d1", I32, &["1"], Some(&["3"]));
        assert_eq!(shape_of(&mut ctx, &oh("d1", vec![])), "[N, S, 3]");
        put(&mut ctx, "ds", I64, &[], Some(&["T"]));
        assert_eq!(
            shape_of(&mut ctx, &oh("ds", vec![("axis", Attr::Int(1))])),
            "[N, T, S]"
        );
        put(&mut ctx, "df", F32, &[], Some(&["37/10"]));
        assert_eq!(shape_of(&mut ctx, &oh("df", vec![])), "[N, S, 3]");
        // unknown contents: a data-dependent dim at the axis
        put(&mut ctx, "du", I64, &[], None);
        assert_eq!(
            shape_of(&mut ctx, &oh("du", vec![("axis", Attr::Int(0))])),
            "[unk0, N, S]"
        );
        // the values' type
        put(&mut ctx, "vi", I32, &["2"], None);
        let n = node("OneHot", v, &["i", "d", "vi"], &["y"], vec![]);
        assert_eq!(one(&mut ctx, &n).2, I32);
        // depth 0 or below, of two elements, of rank 2; values of three; scalar indices
        put(&mut ctx, "d0", I64, &[], Some(&["0"]));
        assert!(matches!(
            err(&mut ctx, &oh("d0", vec![])),
            OpError::BadShapeValue { .. }
        ));
        put(&mut ctx, "dn", F32, &[], Some(&["-37/10"]));
        assert!(matches!(
            err(&mut ctx, &oh("dn", vec![])),
            OpError::BadShapeValue { .. }
        ));
        put(&mut ctx, "d2", I64, &["2"], Some(&["3", "4"]));
        assert!(matches!(
            err(&mut ctx, &oh("d2", vec![])),
            OpError::BadShapeValue { .. }
        ));
        put(&mut ctx, "dr", I64, &["1", "1"], Some(&["3"]));
        assert!(matches!(
            err(&mut ctx, &oh("dr", vec![])),
            OpError::Rank { .. }
        ));
        put(&mut ctx, "v3", F32, &["3"], None);
        let n = node("OneHot", v, &["i", "d", "v3"], &["y"], vec![]);
        assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
        put(&mut ctx, "i0", I64, &[], None);
        let n = node("OneHot", v, &["i0", "d", "vals"], &["y"], vec![]);
        assert!(matches!(err(&mut ctx, &n), OpError::Rank { .. }));
    }
}

#[test]
fn one_hot_values_and_negative_indices() {
    let mut ctx = ShapesContext::default();
    // indices [2, -1, 7], depth 3, values [1, 2], axis 0: rows c = 0, 1, 2 over the
    // indices; -1 wraps to 2, 7 is out of range (all off)
    put(&mut ctx, "ix", I64, &["3"], Some(&["2", "-1", "7"]));
    put(&mut ctx, "d", I64, &[], Some(&["3"]));
    put(&mut ctx, "v", I64, &["2"], Some(&["1", "2"]));
    let n = node(
        "OneHot",
        11,
        &["ix", "d", "v"],
        &["y"],
        vec![("axis", Attr::Int(0))],
    );
    assert_eq!(
        one(&mut ctx, &n),
        ("[3, 3]".into(), "[1, 1, 1, 1, 1, 1, 2, 2, 1]".into(), I64)
    );
    let n = node("OneHot", 11, &["ix", "d", "v"], &["y"], vec![]);
    assert_eq!(one(&mut ctx, &n).1, "[1, 1, 2, 1, 1, 2, 1, 1, 1]");
    // before opset 11 the indices must be non-negative
    let n = node("OneHot", 9, &["ix", "d", "v"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
}

// ----- CastLike ------------------------------------------------------------------------------

#[test]
fn cast_like_versions() {
    for v in [15, 19, 21, 23, 24, 25] {
        let mut ctx = ShapesContext::default();
        put(&mut ctx, "x", F32, &["N", "S"], None);
        put(&mut ctx, "t", I32, &["K"], None);
        let n = node("CastLike", v, &["x", "t"], &["y"], vec![]);
        assert_eq!(one(&mut ctx, &n), ("[N, S]".into(), "none".into(), I32));
        // contents survive as Cast's do: S/2 as a float cast to int64 truncates
        put(&mut ctx, "h", F32, &["2"], Some(&["N", "S/2"]));
        put(&mut ctx, "l", I64, &[], None);
        let n = node("CastLike", v, &["h", "l"], &["y"], vec![]);
        assert_eq!(
            one(&mut ctx, &n),
            ("[2]".into(), "[N, floordiv(S, 2)]".into(), I64)
        );
        ctx.insert("u", TensorFact::unknown(DType::Undefined));
        let n = node("CastLike", v, &["h", "u"], &["y"], vec![]);
        assert_eq!(
            one(&mut ctx, &n),
            ("[2]".into(), "none".into(), DType::Undefined)
        );
    }
}

// ----- a model through `infer` ---------------------------------------------------------------

#[test]
fn scatter_nd_shape_through_a_model() {
    // Shape -> ScatterND(axis 1 <- 5) -> ConstantOfShape, and a OneHot over a depth
    // read from a shape
    let r = model(16)
        .input("x", F32, Some(&["N", "S", "T"]))
        .input("i", I64, Some(&["N", "S"]))
        .ints("ix", &[1, 1], &[1])
        .ints("up", &[1], &[5])
        .ints("zero", &[], &[0])
        .floats("v", &[2], &[0.0, 1.0])
        .node("Shape", &["x"], &["s"], vec![])
        .node("ScatterND", &["s", "ix", "up"], &["w"], vec![])
        .node("ConstantOfShape", &["w"], &["y"], vec![])
        .node("Gather", &["s", "zero"], &["d"], vec![])
        .node("OneHot", &["i", "d", "v"], &["o"], vec![])
        .run();
    assert_eq!(r.shape("y"), "[N, 5, T]");
    assert_eq!(r.shape("o"), "[N, S, N]");
    assert!(r.diagnostics().is_empty(), "{:?}", r.diagnostics());
}

// ----- error messages -----------------------------------------------------------------------

#[test]
fn error_messages_snapshot() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", F32, &["N", "4"], None);
    put(&mut ctx, "i5", I64, &["N", "5"], None);
    put(&mut ctx, "r1", I64, &["N"], None);
    put(&mut ctx, "sh", I64, &["3"], Some(&["N", "S", "T"]));
    put(&mut ctx, "bad", I64, &["1"], Some(&["-4"]));
    put(&mut ctx, "u1", I64, &["1"], Some(&["1"]));
    put(&mut ctx, "ik", I64, &["M", "3"], None);
    put(&mut ctx, "u", F32, &["M"], None);
    put(&mut ctx, "i1", I64, &["M", "1"], None);
    put(&mut ctx, "u5", F32, &["M", "5"], None);
    put(&mut ctx, "k2", I64, &["2"], None);
    put(&mut ctx, "d0", I64, &[], Some(&["0"]));
    put(&mut ctx, "v3", F32, &["3"], None);
    put(&mut ctx, "ix", I64, &["N"], None);
    put(&mut ctx, "vals", F32, &["2"], None);
    put(&mut ctx, "xi", I64, &["N"], None);
    let cases = [
        node("GatherElements", 13, &["x", "i5"], &["y"], vec![]),
        node("GatherElements", 13, &["x", "r1"], &["y"], vec![]),
        node("GatherElements", 13, &["sh", "bad"], &["y"], vec![]),
        node(
            "ScatterElements",
            16,
            &["x", "i5", "u"],
            &["y"],
            vec![("reduction", s("max"))],
        ),
        node("ScatterElements", 13, &["x", "r1", "x"], &["y"], vec![]),
        node("ScatterND", 13, &["x", "ik", "u"], &["y"], vec![]),
        node("ScatterND", 13, &["x", "i1", "u5"], &["y"], vec![]),
        node("ScatterND", 13, &["x", "i1", "sh"], &["y"], vec![]),
        node("EyeLike", 9, &["sh"], &["y"], vec![]),
        node("Trilu", 14, &["x", "k2"], &["y"], vec![]),
        node("RandomUniformLike", 1, &["xi"], &["y"], vec![]),
        node(
            "RandomNormal",
            1,
            &[],
            &["y"],
            vec![("shape", ints(&[2, -1]))],
        ),
        node(
            "Multinomial",
            7,
            &["x"],
            &["y"],
            vec![("sample_size", Attr::Int(0))],
        ),
        node("OneHot", 11, &["ix", "d0", "vals"], &["y"], vec![]),
        node("OneHot", 11, &["ix", "sh", "v3"], &["y"], vec![]),
        node(
            "OneHot",
            11,
            &["ix", "u1", "vals"],
            &["y"],
            vec![("axis", Attr::Int(2))],
        ),
    ];
    let msgs = rule_errors(&mut ctx, &cases);
    common::snapshots().bind(|| insta::assert_snapshot!("ops_more_errors", msgs.join("\n")));
}

// ----- against onnxruntime ------------------------------------------------------------------

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/ops_more/ort_cases.json"
);

#[test]
fn rules_match_onnxruntime() {
    let out = common::ort_cases::compare(&common::ort_cases::load(FIXTURE));
    eprintln!(
        "onnxruntime cases: {}, runs {}; output shapes exact {}, less precise {}, wrong {}",
        out.cases,
        out.runs,
        out.exact,
        out.less_precise.len(),
        out.wrong.len()
    );
    assert!(out.wrong.is_empty(), "wrong:\n{}", out.wrong.join("\n"));
    // only the OneHot cases whose depth is unknown have a data-dependent dim
    assert_eq!(
        out.less_precise.len(),
        12,
        "data-dependent dims beyond the unknown depths"
    );
}

// ----- no panics ------------------------------------------------------------------------------

mod no_panic {
    use super::*;
    use proptest::prelude::*;

    /// Every op of these families with its ONNX versions.
    const OPS: &[(&str, &[i64])] = &[
        ("GatherElements", &[11, 13]),
        ("Scatter", &[9, 11]),
        ("ScatterElements", &[11, 13, 16, 18]),
        ("ScatterND", &[11, 13, 16, 18]),
        ("EyeLike", &[9, 22]),
        ("Trilu", &[14]),
        ("RandomUniform", &[1, 22]),
        ("RandomNormal", &[1, 22]),
        ("RandomUniformLike", &[1, 22]),
        ("RandomNormalLike", &[1, 22]),
        ("Bernoulli", &[15, 22]),
        ("Multinomial", &[7, 22]),
        ("OneHot", &[9, 11, 28]),
        ("CastLike", &[15, 25]),
    ];
    const DTYPES: &[DType] = &[F32, I64, I32, DType::Bool, DType::String, DType::Undefined];
    const INTS: &[i64] = &[-5, -2, -1, 0, 1, 2, 3, 7, i64::MAX, i64::MIN];
    const ATTRS: &[&str] = &[
        "axis",
        "k",
        "upper",
        "dtype",
        "sample_size",
        "shape",
        "reduction",
    ];

    use models::arb::Inputs;

    const INPUTS: Inputs = Inputs {
        codes: 6,
        scale: 1,
        max_rank: 4,
        max_values: 6,
    };

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn rules_never_panic(
            op in 0..OPS.len(),
            version in 0usize..4,
            ins in prop::collection::vec(INPUTS.input(DTYPES.len(), INTS.len()), 0..4),
            attrs in prop::collection::vec((0..ATTRS.len(), 0..INTS.len(), prop::collection::vec(0..INTS.len(), 0..3)), 0..3),
        ) {
            let (op, versions) = OPS[op];
            let version = versions[version % versions.len()];
            let mut ctx = ShapesContext::default();
            let names = INPUTS.put(&mut ctx, &ins, DTYPES, INTS);
            let a = attrs
                .iter()
                .map(|(k, v, vs)| {
                    let attr = match ATTRS[*k] {
                        "reduction" => Attr::Str(["none", "add", "max", "x"][*v % 4].to_string()),
                        "shape" => Attr::Ints(vs.iter().map(|x| INTS[*x].clamp(-1, 4)).collect()),
                        _ => Attr::Int(INTS[*v]),
                    };
                    (ATTRS[*k], attr)
                })
                .collect();
            let inputs: Vec<&str> = names.iter().map(String::as_str).collect();
            let n = node(op, version, &inputs, &["y"], a);
            let _ = apply(&mut ctx, &n);
        }
    }
}
