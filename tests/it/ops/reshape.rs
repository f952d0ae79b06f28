//! Reshape rules: every example of the specs (ONNX, OpenVINO Reshape-1 and
//! StaticReshape-1, oneDNN StaticReshape gtest vectors), symbolic cases, the
//! OpenVINO single-op probes of the corpus, and snapshots of a symbolic table and
//! of every error and warning message.

use crate::common;

use symdim::algebra::Dim;
use symdim::context::{AttrProblem, AttrValue, OpError, ShapesContext, TensorFact};
use symdim::graph::{Attr, DType, Node};
use symdim::ops::rule_for;

// ----- helpers ----------------------------------------------------------------------

/// Which Reshape.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// ONNX at an opset version.
    Onnx(i64),
    /// OpenVINO Reshape-1 (pattern input).
    Ov,
    /// OpenVINO StaticReshape-1 (pattern attribute).
    OvStatic,
    /// oneDNN StaticReshape.
    OneDnn,
}

impl Kind {
    fn label(self, flag: bool) -> String {
        match self {
            Kind::Onnx(v) if v >= 14 => format!("onnx-{v} allowzero={}", flag as i64),
            Kind::Onnx(v) => format!("onnx-{v}"),
            Kind::Ov => format!("ov-Reshape-1 special_zero={flag}"),
            Kind::OvStatic => format!("ov-StaticReshape-1 special_zero={flag}"),
            Kind::OneDnn => format!("onednn-StaticReshape special_zero={}", flag as i64),
        }
    }
}

/// An OpenVINO attribute as the IR reader decodes the text the file writes.
fn ir_attr(name: &str, text: &str) -> Attr {
    symdim::read::openvino::to_graph::typed_attr(name, text)
}
fn node(op: &str, domain: &str, version: i64, inputs: &[&str], attrs: Vec<(&str, Attr)>) -> Node {
    Node {
        name: "n0".to_string(),
        op_type: op.into(),
        domain: domain.to_string(),
        version,
        inputs: inputs.iter().map(|s| (*s).into()).collect(),
        outputs: vec!["y".into()],
        attrs: attrs.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
    }
}

/// Dims from text: `[B, S, 768]`; `?` is a fresh input symbol `D<i>`; `...` is
/// unknown rank (`None`).
fn dims(ctx: &mut ShapesContext, text: &str) -> Option<Vec<Dim>> {
    let inner = text.trim().trim_start_matches('[').trim_end_matches(']');
    if inner.trim() == "..." {
        return None;
    }
    if inner.trim().is_empty() {
        return Some(vec![]);
    }
    Some(
        inner
            .split(',')
            .enumerate()
            .map(|(i, t)| {
                let t = t.trim();
                if t == "?" {
                    ctx.alg.input(&format!("D{i}"))
                } else {
                    ctx.alg.parse(t).unwrap()
                }
            })
            .collect(),
    )
}

/// The node of a kind, its data input `x` (and pattern input `p` when the kind
/// takes one) inserted in `ctx`.
fn setup(
    ctx: &mut ShapesContext,
    kind: Kind,
    dtype: DType,
    input: &str,
    target: &str,
    flag: bool,
) -> Node {
    let shape = dims(ctx, input);
    ctx.insert(
        "x",
        TensorFact {
            fill: None,
            dtype,
            shape,
            value: None,
        },
    );
    let t = dims(ctx, target).unwrap();
    let int_values: Vec<Option<i64>> = t.iter().map(|d| ctx.alg.as_i64(*d)).collect();
    let ints = || {
        int_values
            .iter()
            .map(|v| v.expect("attribute targets are integers"))
            .collect::<Vec<_>>()
    };
    let insert_pattern = |ctx: &mut ShapesContext| {
        let len = ctx.alg.constant(t.len() as i64);
        ctx.insert(
            "p",
            TensorFact {
                fill: None,
                dtype: DType::Int64,
                shape: Some(vec![len]),
                value: Some(t.clone()),
            },
        );
    };
    match kind {
        Kind::Onnx(v) if v < 5 => node(
            "Reshape",
            "",
            v,
            &["x"],
            vec![("shape", Attr::Ints(ints()))],
        ),
        Kind::Onnx(v) => {
            insert_pattern(ctx);
            let attrs = if v >= 14 {
                vec![("allowzero", Attr::Int(flag as i64))]
            } else {
                vec![]
            };
            node("Reshape", "", v, &["x", "p"], attrs)
        }
        Kind::Ov => {
            insert_pattern(ctx);
            node(
                "Reshape",
                "openvino",
                1,
                &["x", "p"],
                vec![("special_zero", Attr::Int(flag as i64))],
            )
        }
        Kind::OvStatic => node(
            "StaticReshape",
            "openvino",
            1,
            &["x"],
            vec![
                ("shape", Attr::Ints(ints())),
                ("special_zero", ir_attr("special_zero", &flag.to_string())),
            ],
        ),
        Kind::OneDnn => node(
            "StaticReshape",
            "onednn",
            1,
            &["x"],
            vec![
                ("shape", Attr::Ints(ints())),
                ("special_zero", Attr::Int(flag as i64)),
            ],
        ),
    }
}

fn apply(ctx: &mut ShapesContext, n: &Node) -> Result<Vec<TensorFact>, OpError> {
    let rule = rule_for(&n.domain, &n.op_type).expect("a rule");
    rule(ctx, n)
}

/// The output (`[..]`, `[...]` for unknown rank) or `error: ...`, then one line
/// per warning.
fn outcome(ctx: &mut ShapesContext, n: &Node) -> String {
    let mut s = match apply(ctx, n) {
        Ok(facts) => match &facts[0].shape {
            Some(d) => ctx.render_dims(d),
            None => "[...]".to_string(),
        },
        Err(e) => {
            let mut s = format!("error: {e}");
            if let Some(h) = e.hint() {
                s.push_str(&format!(" [hint: {h}]"));
            }
            s
        }
    };
    for d in &ctx.diagnostics {
        s.push_str(&format!("\n    {}: {}", d.severity.name(), d.message));
    }
    s
}

/// Run one case in a fresh context (f32 data).
fn run(kind: Kind, input: &str, target: &str, flag: bool) -> String {
    run_typed(kind, DType::Float, input, target, flag)
}

fn run_typed(kind: Kind, dtype: DType, input: &str, target: &str, flag: bool) -> String {
    let mut ctx = ShapesContext::default();
    let n = setup(&mut ctx, kind, dtype, input, target, flag);
    outcome(&mut ctx, &n)
}

fn ok(kind: Kind, input: &str, target: &str, flag: bool, expected: &str) {
    let got = run(kind, input, target, flag);
    assert_eq!(got, expected, "{} {input} -> {target}", kind.label(flag));
}

fn fails(kind: Kind, input: &str, target: &str, flag: bool) -> String {
    let got = run(kind, input, target, flag);
    assert!(
        got.starts_with("error: "),
        "{} {input} -> {target}: expected an error, got {got}",
        kind.label(flag)
    );
    got
}

const ONNX_VERSIONS: &[i64] = &[5, 13, 14, 19, 21, 23, 24, 25];

// ----- ONNX ----------------------------------------------------------------------

/// onnx/backend/test/case/node/reshape.py: every case, in every version with a
/// shape input (allowzero only from 14).
#[test]
fn onnx_backend_examples() {
    let cases = [
        ("[2, 3, 4]", "[4, 2, 3]", "[4, 2, 3]"), // reordered_all_dims
        ("[2, 3, 4]", "[2, 4, 3]", "[2, 4, 3]"), // reordered_last_dims
        ("[2, 3, 4]", "[2, 12]", "[2, 12]"),     // reduced_dims
        ("[2, 3, 4]", "[2, 3, 2, 2]", "[2, 3, 2, 2]"), // extended_dims
        ("[2, 3, 4]", "[24]", "[24]"),           // one_dim
        ("[2, 3, 4]", "[2, -1, 2]", "[2, 6, 2]"), // negative_dim
        ("[2, 3, 4]", "[-1, 2, 3, 4]", "[1, 2, 3, 4]"), // negative_extended_dims
        ("[2, 3, 4]", "[2, 0, 4, 1]", "[2, 3, 4, 1]"), // zero_dim
        ("[2, 3, 4]", "[2, 0, 1, -1]", "[2, 3, 1, 4]"), // zero_and_negative_dim
    ];
    for v in ONNX_VERSIONS {
        for (i, t, e) in cases {
            ok(Kind::Onnx(*v), i, t, false, e);
        }
    }
    // Reshape-1 takes the target as an attribute.
    for (i, t, e) in cases {
        ok(Kind::Onnx(1), i, t, false, e);
    }
}

/// The allowzero cases: reshape_allowzero_reordered ([0,3,4] -> [3,4,0]) and the
/// rule that 0 with -1 is invalid under allowzero=1.
#[test]
fn onnx_allowzero() {
    for v in [14, 19, 21, 23, 24, 25] {
        let k = Kind::Onnx(v);
        ok(k, "[0, 3, 4]", "[3, 4, 0]", true, "[3, 4, 0]");
        // allowzero=0: the 0 copies input dim 2 (4): volume 0 vs 48.
        fails(k, "[0, 3, 4]", "[3, 4, 0]", false);
        ok(k, "[2, 3, 4]", "[2, 0, 4, 1]", false, "[2, 3, 4, 1]");
        fails(k, "[2, 3, 4]", "[2, 0, 4, 1]", true);
        let e = fails(k, "[0, 3, 4]", "[0, -1]", true);
        assert!(e.contains("both 0 (axis 0) and -1 (axis 1)"), "{e}");
        // A literal 0 beyond the input rank is fine with allowzero=1.
        ok(k, "[0]", "[1, 1, 0]", true, "[1, 1, 0]");
        fails(k, "[0]", "[1, 1, 0]", false);
        // Empty target: a scalar.
        ok(k, "[1, 1]", "[]", true, "[]");
    }
}

#[test]
fn onnx_special_values() {
    for v in [1, 5, 13, 14, 19, 21, 23, 25] {
        let k = Kind::Onnx(v);
        assert!(
            fails(k, "[2, 3, 4]", "[-1, -1]", false).contains("more than one -1 (axes 0 and 1)")
        );
        assert!(fails(k, "[2, 3, 4]", "[-2, 12]", false).contains("-2 at axis 0 is below -1"));
        assert!(
            fails(k, "[2, 3]", "[0, 0, 0]", false).contains("the 0 at axis 2 copies input dim 2")
        );
        ok(k, "[1, 1]", "[]", false, "[]");
        fails(k, "[2]", "[]", false);
        // A copied 0 input dim next to a -1: the -1 is undetermined.
        assert!(fails(k, "[0, 3, 4]", "[0, -1]", false).contains("multiply to 0"));
        ok(k, "[0, 3, 4]", "[-1, 12]", false, "[0, 12]");
        assert!(fails(k, "[2, 3, 4]", "[-1, 5]", false).contains("need 5 | 24"));
        assert!(fails(k, "[2, 3, 4]", "[5, 5]", false).contains("volume mismatch"));
    }
}

#[test]
fn onnx_type_constraints_per_version() {
    let cases: &[(i64, DType, bool)] = &[
        (1, DType::Float, true),
        (1, DType::Float16, true),
        (1, DType::Double, true),
        (1, DType::Int64, false),
        (1, DType::Bfloat16, false),
        (5, DType::Int64, true),
        (5, DType::String, true),
        (5, DType::Bool, true),
        (5, DType::Bfloat16, false),
        (12, DType::Bfloat16, false),
        (13, DType::Bfloat16, true),
        (14, DType::Bfloat16, true),
        (18, DType::Float8E4M3FN, false),
        (19, DType::Float8E4M3FN, true),
        (19, DType::Float8E5M2FNUZ, true),
        (19, DType::Int4, false),
        (21, DType::Int4, true),
        (21, DType::Uint4, true),
        (21, DType::Float4E2M1, false),
        (23, DType::Float4E2M1, true),
        (24, DType::Float4E2M1, true),
        (25, DType::Float4E2M1, true),
        (25, DType::Float8E8M0, false),
        (23, DType::Undefined, true),
    ];
    for &(v, t, allowed) in cases {
        let got = run_typed(Kind::Onnx(v), t, "[2, 3]", "[3, 2]", false);
        if allowed {
            assert_eq!(got, "[3, 2]", "Reshape-{v} {t}");
        } else {
            assert!(
                got.contains("is not allowed in this version"),
                "Reshape-{v} {t}: {got}"
            );
        }
    }
}

#[test]
fn onnx_inputs_and_attributes() {
    let mut ctx = ShapesContext::default();
    let mut n = setup(
        &mut ctx,
        Kind::Onnx(14),
        DType::Float,
        "[2, 3]",
        "[3, 2]",
        false,
    );
    // The shape input must be int64.
    let mut p = ctx.get("p").unwrap().clone();
    p.dtype = DType::Int32;
    ctx.insert("p", p);
    assert!(matches!(
        apply(&mut ctx, &n),
        Err(OpError::UnsupportedType { what: "shape", .. })
    ));
    // allowzero must be 0 or 1, and does not exist before 14.
    let mut ctx = ShapesContext::default();
    n = setup(
        &mut ctx,
        Kind::Onnx(14),
        DType::Float,
        "[2, 3]",
        "[3, 2]",
        false,
    );
    n.attrs.insert("allowzero".into(), Attr::Int(2));
    assert!(matches!(
        apply(&mut ctx, &n),
        Err(OpError::BadAttribute {
            name: "allowzero",
            ..
        })
    ));
    n.version = 13;
    match apply(&mut ctx, &n) {
        Err(OpError::BadAttribute {
            name: "allowzero",
            value,
            why,
        }) => {
            assert_eq!(value, AttrValue::Int(2));
            assert_eq!(
                *why,
                AttrProblem::NotInVersion {
                    op: "Reshape",
                    version: 13,
                    attribute: "allowzero",
                    since: 14,
                }
            );
        }
        other => panic!("{other:?}"),
    }
    // Two inputs from 5 on; one (with the attribute) in 1; consumed_inputs is ignored.
    n.version = 5;
    n.attrs.clear();
    n.inputs.truncate(1);
    assert!(matches!(
        apply(&mut ctx, &n),
        Err(OpError::InputCount { found: 1, .. })
    ));
    n.version = 1;
    assert!(matches!(
        apply(&mut ctx, &n),
        Err(OpError::MissingAttribute { name: "shape" })
    ));
    n.attrs.insert("shape".into(), Attr::Ints(vec![6]));
    n.attrs
        .insert("consumed_inputs".into(), Attr::Ints(vec![0]));
    let out = apply(&mut ctx, &n).unwrap();
    assert_eq!(ctx.render_dims(out[0].shape.as_ref().unwrap()), "[6]");
}

/// Symbolic cases: the -1 in closed form, copies, forwarding of symbolic targets.
#[test]
fn onnx_symbolic() {
    let k = Kind::Onnx(21);
    ok(k, "[B, S, 768]", "[0, -1, 12, 64]", false, "[B, S, 12, 64]");
    ok(k, "[B, S, 768]", "[0, 0, 12, 64]", false, "[B, S, 12, 64]");
    ok(k, "[B, S, 768]", "[-1, 768]", false, "[B*S, 768]");
    ok(k, "[B, S, 12, 64]", "[0, 0, -1]", false, "[B, S, 768]");
    ok(k, "[B, 12, S, 64]", "[B, 12, -1]", false, "[B, 12, 64*S]");
    ok(k, "[B, S, 768]", "[B*S, 768]", false, "[B*S, 768]");
    ok(k, "[B, S, 4]", "[B, -1]", false, "[B, 4*S]");
    ok(
        k,
        "[N, 2*C, H, W]",
        "[0, 2, -1, H, W]",
        false,
        "[N, 2, C, H, W]",
    );
    assert!(fails(k, "[N, 2*C, H, W]", "[0, 2, -1, 0, 0]", false).contains("copies input dim 4"));
    // Not provably divisible: a fresh dim with a recorded relation, and a warning.
    let got = run(k, "[B, S, 12]", "[0, -1, 8]", false);
    assert!(got.starts_with("[B, r0, 8]"), "{got}");
    assert!(got.contains("need 8 | 12*S; residual 3*S/2"), "{got}");
    let got = run(k, "[B, S, 12]", "[-1, 8]", false);
    assert!(got.contains("need 8 | 12*B*S; residual 3*B*S/2"), "{got}");
    // Volume not provable: a warning with the residual; the output is returned.
    let got = run(k, "[B, S]", "[N, 4]", false);
    assert!(got.starts_with("[N, 4]\n    warning:"), "{got}");
    // Volume provably different.
    assert!(run(k, "[B, 3]", "[B, 4]", false)
        .contains("volume mismatch: input has 3*B elements, output has 4*B"));
}

/// The target read from value-as-shape, and its fallbacks.
#[test]
fn onnx_target_fallbacks() {
    // No value: rank from the shape input's static length; fresh dims.
    let mut ctx = ShapesContext::default();
    let n = setup(
        &mut ctx,
        Kind::Onnx(21),
        DType::Float,
        "[B, S, 4]",
        "[1, 1, 1]",
        false,
    );
    let mut p = ctx.get("p").unwrap().clone();
    p.value = None;
    ctx.insert("p", p.clone());
    let out = apply(&mut ctx, &n).unwrap();
    assert_eq!(
        ctx.render_dims(out[0].shape.as_ref().unwrap()),
        "[unk0, unk1, unk2]"
    );
    // Length 1: the whole volume.
    let one = ctx.alg.constant(1);
    ctx.insert(
        "p",
        TensorFact {
            shape: Some(vec![one]),
            ..p.clone()
        },
    );
    let out = apply(&mut ctx, &n).unwrap();
    assert_eq!(ctx.render_dims(out[0].shape.as_ref().unwrap()), "[4*B*S]");
    // Length 0: a scalar.
    let zero = ctx.alg.constant(0);
    ctx.insert(
        "p",
        TensorFact {
            shape: Some(vec![zero]),
            ..p.clone()
        },
    );
    let out = apply(&mut ctx, &n).unwrap();
    assert_eq!(out[0].shape, Some(vec![]));
    // Symbolic length: unknown rank.
    let l = ctx.alg.input("L");
    ctx.insert(
        "p",
        TensorFact {
            shape: Some(vec![l]),
            ..p.clone()
        },
    );
    assert_eq!(apply(&mut ctx, &n).unwrap()[0].shape, None);
    // Unknown rank of the shape input: unknown rank.
    ctx.insert("p", TensorFact::unknown(DType::Int64));
    assert_eq!(apply(&mut ctx, &n).unwrap()[0].shape, None);
    // A shape input of rank 2 is an error.
    let two = ctx.alg.constant(2);
    ctx.insert("p", TensorFact::new(DType::Int64, vec![two, two]));
    assert!(matches!(
        apply(&mut ctx, &n),
        Err(OpError::Rank { found: 2, .. })
    ));
}

#[test]
fn unknown_input_rank() {
    ok(Kind::Onnx(21), "[...]", "[2, 3]", false, "[2, 3]");
    ok(
        Kind::Onnx(21),
        "[...]",
        "[0, -1, 12]",
        false,
        "[unk0, unk1, 12]",
    );
    ok(Kind::Onnx(21), "[...]", "[0, 12]", true, "[0, 12]");
    fails(Kind::Onnx(21), "[...]", "[-1, -1]", false);
    fails(Kind::Onnx(21), "[...]", "[0, -1]", true);
    ok(Kind::Ov, "[...]", "[0, -1]", true, "[unk0, unk1]");
    ok(Kind::Ov, "[...]", "[2, -1]", false, "[2, unk0]");
}

#[test]
fn value_passes_through() {
    let mut ctx = ShapesContext::default();
    let n = setup(
        &mut ctx,
        Kind::Onnx(21),
        DType::Int64,
        "[1, 3]",
        "[-1]",
        false,
    );
    let (b, s) = (ctx.alg.input("B"), ctx.alg.input("S"));
    let c = ctx.alg.constant(768);
    let mut x = ctx.get("x").unwrap().clone();
    x.value = Some(vec![b, s, c]);
    ctx.insert("x", x);
    let out = apply(&mut ctx, &n).unwrap();
    assert_eq!(ctx.render_dims(out[0].shape.as_ref().unwrap()), "[3]");
    assert_eq!(
        ctx.render_dims(out[0].value.as_ref().unwrap()),
        "[B, S, 768]"
    );
    assert_eq!(out[0].dtype, DType::Int64);
}

// ----- OpenVINO -------------------------------------------------------------------

/// openvino-Reshape-1.txt, examples 1 to 5.
#[test]
fn openvino_reshape1_examples() {
    ok(Kind::Ov, "[2, 5, 5, 0]", "[0, 4]", false, "[0, 4]"); // 1: empty tensor
    ok(Kind::Ov, "[2, 5, 5, 24]", "[0, -1, 4]", true, "[2, 150, 4]"); // 2
    ok(Kind::Ov, "[2, 2, 3]", "[0, 0, 1, -1]", true, "[2, 2, 1, 3]"); // 3
    ok(Kind::Ov, "[3, 1, 1]", "[-1, 0]", true, "[3, 1]"); // 4
    ok(Kind::Ov, "[3, 1, 1]", "[0, -1]", true, "[3, 1]"); // 5
}

#[test]
fn openvino_reshape1_rules() {
    // special_zero: a 0 beyond the input rank.
    assert!(fails(Kind::Ov, "[2, 3]", "[0, 0, 0]", true).contains("has rank 2"));
    // Copied dims are left out of both products: [0,3,4] with [0,-1] gives [0,12].
    ok(Kind::Ov, "[0, 3, 4]", "[0, -1]", true, "[0, 12]");
    // A zero-size output with a -1: an error unless the input is zero-size (then 1).
    assert!(fails(Kind::Ov, "[2, 3, 4]", "[0, -1]", false).contains("is not zero-size"));
    ok(Kind::Ov, "[0, 3, 4]", "[-1, 0]", false, "[1, 0]");
    // The pattern input: 1-D, integer.
    let mut ctx = ShapesContext::default();
    let n = setup(&mut ctx, Kind::Ov, DType::Float, "[2, 3]", "[6]", true);
    let mut p = ctx.get("p").unwrap().clone();
    p.dtype = DType::Float;
    ctx.insert("p", p.clone());
    assert!(matches!(
        apply(&mut ctx, &n),
        Err(OpError::UnsupportedType {
            what: "pattern",
            ..
        })
    ));
    p.dtype = DType::Uint8;
    ctx.insert("p", p.clone());
    assert!(apply(&mut ctx, &n).is_ok());
    p.shape = Some(vec![]);
    ctx.insert("p", p);
    assert!(matches!(
        apply(&mut ctx, &n),
        Err(OpError::Rank { found: 0, .. })
    ));
    // special_zero is required; "True" is accepted case-insensitively.
    let mut n2 = n.clone();
    n2.attrs.clear();
    assert!(matches!(
        apply(&mut ctx, &n2),
        Err(OpError::MissingAttribute {
            name: "special_zero"
        })
    ));
}

/// openvino-StaticReshape-1.txt: left to right, `(3,4,5)` with `(0,-1)` gives `(3,20)`.
#[test]
fn openvino_static_reshape() {
    ok(Kind::OvStatic, "[3, 4, 5]", "[0, -1]", true, "[3, 20]");
    ok(Kind::OvStatic, "[3, 4, 5]", "[-1, 0]", true, "[15, 4]");
    ok(Kind::OvStatic, "[3, 4, 5]", "[12, 5]", false, "[12, 5]");
    // special_zero=false: 0 and -1 together are invalid.
    assert!(fails(Kind::OvStatic, "[0, 4, 5]", "[0, -1]", false).contains("special_zero=false"));
    for (t, allowed) in [
        (DType::Float, true),
        (DType::Float16, true),
        (DType::Bfloat16, true),
        (DType::Int64, false),
        (DType::Double, false),
    ] {
        let got = run_typed(Kind::OvStatic, t, "[3, 4, 5]", "[0, -1]", true);
        assert_eq!(got.starts_with("error:"), !allowed, "{t}: {got}");
    }
}

// ----- oneDNN -----------------------------------------------------------------------

/// tests/gtests/graph/unit/interface/test_op_schema_cpu.cpp::InferStaticReshapeShape,
/// as listed in the oneDNN corpus README.
#[test]
fn onednn_gtest_vectors() {
    let k = Kind::OneDnn;
    ok(k, "[2, 8, 32]", "[16, 4, 8]", false, "[16, 4, 8]");
    ok(k, "[2, 8, 32]", "[4, 0, 16]", true, "[4, 8, 16]");
    fails(k, "[2, 8, 32]", "[4, 0, 16]", false);
    ok(k, "[2, 8, 32]", "[8, 0, -1]", true, "[8, 8, 8]");
    fails(k, "[2, 8, 32]", "[4, 6, 16]", false);
    fails(k, "[2, 8, 32]", "[-1, -1, 16]", false);
    fails(k, "[2, 8, 32]", "[4, -6, 16]", false);
    ok(k, "[0, 2, 8, 6]", "[0, 4, 7]", false, "[0, 4, 7]");
    assert!(fails(k, "[0, 2, 8, 6]", "[-1, 0]", false).contains("multiply to 0"));
    // The corpus case int8_avgpool_reshape_fusion: [1,1,2,2] -> [-1].
    ok(k, "[1, 1, 2, 2]", "[-1]", false, "[4]");
    // Error conditions of the algorithm: a 0 past the input rank, non-exact division.
    assert!(fails(k, "[2, 3]", "[0, 0, 0]", true).contains("copies input dim 2"));
    assert!(fails(k, "[2, 3, 4]", "[-1, 5]", false).contains("proven not to divide"));
    // Types f32, bf16, f16 only; special_zero is an int 0/1.
    assert!(run_typed(k, DType::Int32, "[2, 3]", "[6]", false).contains("not allowed"));
    let mut ctx = ShapesContext::default();
    let mut n = setup(&mut ctx, k, DType::Bfloat16, "[2, 3]", "[6]", false);
    assert!(apply(&mut ctx, &n).is_ok());
    n.attrs
        .insert("special_zero".into(), Attr::Str("true".into()));
    assert!(matches!(
        apply(&mut ctx, &n),
        Err(OpError::BadAttribute {
            name: "special_zero",
            ..
        })
    ));
}

// ----- the OpenVINO probes ----------------------------------------------------------

/// How one of our dims compares with a probe dim (`2`, `?`, `?@A`, `2..10`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Verdict {
    Exact,
    LessPrecise,
    Wrong,
}

fn probe_dim(ctx: &ShapesContext, d: Dim, expected: &str) -> (Verdict, String) {
    let got = ctx.alg.render(d);
    if let Ok(v) = expected.parse::<i64>() {
        let ok = ctx.alg.as_i64(d) == Some(v);
        return (
            if ok { Verdict::Exact } else { Verdict::Wrong },
            format!("{got} vs {v}"),
        );
    }
    if let Some(sym) = expected.strip_prefix("?@") {
        let verdict = if got == sym {
            Verdict::Exact
        } else if ctx.alg.as_const(d).is_some() {
            Verdict::Wrong
        } else {
            Verdict::LessPrecise
        };
        return (verdict, format!("{got} vs {sym}"));
    }
    if let Some((lo, hi)) = expected.split_once("..") {
        let b = ctx.alg.bounds(d);
        let lo_ok = lo.is_empty()
            || b.lo()
                .is_some_and(|l| *l >= lo.parse::<i64>().unwrap().into());
        let hi_ok = hi.is_empty()
            || b.hi()
                .is_some_and(|h| *h <= hi.parse::<i64>().unwrap().into());
        let verdict = if lo_ok && hi_ok {
            Verdict::Exact
        } else {
            Verdict::LessPrecise
        };
        return (verdict, format!("{got} (bounds {b}) vs {expected}"));
    }
    (Verdict::Exact, String::new()) // `?`: not pinned
}

/// `reshape-op-probes.json`: every single-op Reshape-1 probe with a known pattern.
/// Errors must occur exactly where OpenVINO raised, except the listed cases where
/// OpenVINO departs from its spec; static dims must be equal. Dims OpenVINO gives
/// as intervals or symbols count as less precise when ours are looser.
#[test]
fn openvino_probes() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let text = std::fs::read_to_string(corpus.join("openvino-ir/reshape-op-probes.json")).unwrap();
    let probes: serde_json::Value = serde_json::from_str(&text).unwrap();
    // Where the spec and OpenVINO disagree (see docs/ops/reshape.md).
    let known_disagreements = [
        (
            "QUIRK_special_zero_mismatch",
            "[2,3] to [0,4]: volume 6 vs 8; the spec requires equal volumes, OpenVINO checks only without a 0",
        ),
        (
            "ERR_dyn_volume_mismatch",
            "[?,3,4] to [5,5]: 12*D == 25 has no integer solution, so no input is valid; \
             OpenVINO checks the volume only when both shapes are fully static",
        ),
        (
            "ERR_interval_mismatch",
            "[2..4,3] to [7]: 3*D == 7 has no integer solution; OpenVINO accepts it for the same reason",
        ),
    ];
    let mut counts = [0usize; 3];
    let (mut total, mut errors, mut closer) = (0, 0, 0);
    let mut lines = vec![];
    for p in probes.as_array().unwrap() {
        let name = p["name"].as_str().unwrap();
        let input = p["input"].as_str().unwrap();
        let pattern: Vec<i64> = match &p["pattern"] {
            serde_json::Value::Array(a) => a.iter().map(|v| v.as_i64().unwrap()).collect(),
            serde_json::Value::Number(n) => vec![n.as_i64().unwrap()],
            _ => continue, // non-constant pattern or a two-op chain
        };
        total += 1;
        let scalar = p["pattern"].is_number();
        let err_text = p.get("error").and_then(|e| e.as_str()).unwrap_or("");
        let pattern_type = if err_text.contains(":f32[") || name.contains("float") {
            DType::Float
        } else if name.contains("i32") {
            DType::Int32
        } else if name.contains("u8") {
            DType::Uint8
        } else {
            DType::Int64
        };
        let mut ctx = ShapesContext::default();
        // Input: `?` (named D<i>), `?@A`, intervals `a..b`, `[...]`.
        let inner = input.trim_start_matches('[').trim_end_matches(']');
        let shape = if inner == "..." {
            None
        } else if inner.trim().is_empty() {
            Some(vec![])
        } else {
            let mut v = vec![];
            for (i, t) in inner.split(',').enumerate() {
                let t = t.trim();
                v.push(if let Some(sym) = t.strip_prefix("?@") {
                    ctx.alg.input(sym)
                } else if t == "?" {
                    ctx.alg.input(&format!("D{i}"))
                } else if let Some((lo, hi)) = t.split_once("..") {
                    let name = format!("D{i}");
                    let d = ctx.alg.input(&name);
                    ctx.alg.assume(&format!("{name} >= {lo}")).unwrap();
                    ctx.alg.assume(&format!("{name} <= {hi}")).unwrap();
                    d
                } else {
                    ctx.alg.constant(t.parse().unwrap())
                });
            }
            Some(v)
        };
        ctx.insert(
            "x",
            TensorFact {
                fill: None,
                dtype: DType::Float,
                shape,
                value: None,
            },
        );
        let values: Vec<Dim> = pattern.iter().map(|&v| ctx.alg.constant(v)).collect();
        let plen = if scalar {
            vec![]
        } else {
            vec![ctx.alg.constant(values.len() as i64)]
        };
        ctx.insert(
            "p",
            TensorFact {
                fill: None,
                dtype: pattern_type,
                shape: Some(plen),
                value: Some(values),
            },
        );
        let sz = p["special_zero"].as_bool().unwrap();
        let n = node(
            "Reshape",
            "openvino",
            1,
            &["x", "p"],
            vec![("special_zero", ir_attr("special_zero", &sz.to_string()))],
        );
        let result = apply(&mut ctx, &n);
        let expected_error = p.get("error").is_some();
        let expected = p["output"].as_str().unwrap_or("error");
        let (verdict, detail) = match (&result, expected_error) {
            (Err(_), true) => {
                errors += 1;
                (Verdict::Exact, String::new())
            }
            (Err(e), false) => (Verdict::Wrong, format!("we raise `{e}`")),
            (Ok(f), true) => (
                Verdict::Wrong,
                format!(
                    "we give {:?}, OpenVINO raises",
                    f[0].shape.as_ref().map(|s| ctx.render_dims(s))
                ),
            ),
            (Ok(facts), false) => {
                let exp: Vec<&str> = expected
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .collect();
                match &facts[0].shape {
                    None if expected == "[...]" => (Verdict::Exact, String::new()),
                    None => (Verdict::LessPrecise, "unknown rank".to_string()),
                    Some(g) if g.len() != exp.len() => {
                        (Verdict::Wrong, format!("rank {}", g.len()))
                    }
                    Some(g) => {
                        let mut worst = (Verdict::Exact, String::new());
                        for (d, e) in g.iter().zip(&exp) {
                            let (v, why) = probe_dim(&ctx, *d, e);
                            // Closer than OpenVINO: a closed form where it has `?`
                            // or an interval.
                            let r = ctx.alg.render(*d);
                            if (*e == "?" || e.contains(".."))
                                && ctx.alg.as_const(*d).is_none()
                                && !r.contains("unk")
                                && !r.starts_with('r')
                            {
                                closer += 1;
                            }
                            if v > worst.0 {
                                worst = (v, why);
                            }
                        }
                        worst
                    }
                }
            }
        };
        let ours = match &result {
            Ok(f) => f[0]
                .shape
                .as_ref()
                .map_or("[...]".to_string(), |s| ctx.render_dims(s)),
            Err(_) => "error".to_string(),
        };
        let disagreement = known_disagreements.iter().any(|(k, _)| *k == name);
        if verdict == Verdict::Wrong {
            assert!(disagreement, "{name}: {detail}");
        }
        counts[verdict as usize] += 1;
        lines.push(format!(
            "{name:<34} {input} {pattern:?} sz={sz}: OpenVINO {expected}; ours {ours}: {verdict:?} {detail}"
        ));
    }
    for l in &lines {
        eprintln!("{l}");
    }
    eprintln!(
        "OpenVINO probes: {total} single-op Reshape-1 with a known pattern ({errors} errors agree): exact {} / less precise {} / wrong {} (known spec disagreements: {}); dims closer than OpenVINO: {closer}",
        counts[0], counts[1], counts[2], known_disagreements.len()
    );
    assert_eq!(counts[2], known_disagreements.len());
}

// ----- snapshots ---------------------------------------------------------------------

#[test]
fn snapshot_symbolic_table() {
    let k21 = Kind::Onnx(21);
    let cases: &[(Kind, &str, &str, bool)] = &[
        (k21, "[B, S, 768]", "[0, -1, 12, 64]", false),
        (k21, "[B, S, 768]", "[0, 0, 12, 64]", false),
        (k21, "[B, S, 768]", "[-1, 768]", false),
        (k21, "[B, S, 768]", "[-1, 12, 64]", false),
        (k21, "[B, S, 12, 64]", "[0, 0, -1]", false),
        (k21, "[B, S, 12, 64]", "[0, 0, 768]", false),
        (k21, "[B, 12, S, 64]", "[B*12, S, 64]", false),
        (k21, "[B, S, 768]", "[B, S, 12, 64]", false),
        (k21, "[N, 2*C, H, W]", "[0, 2, -1, H, W]", false),
        (k21, "[B, S, 12]", "[0, -1, 8]", false),
        (k21, "[B, S, 12]", "[-1, 8]", false),
        (k21, "[A, 12, B, 1, 2]", "[0, -1, 3, 4, 3]", false),
        (k21, "[B, S]", "[N, 4]", false),
        (k21, "[B, S]", "[S, B]", false),
        (k21, "[B, 3]", "[B, 4]", false),
        (k21, "[2, 3, 4]", "[-1, 5]", false),
        (k21, "[B, 0]", "[0, -1]", true),
        (k21, "[B, 0]", "[B, 0, 7]", true),
        (k21, "[...]", "[0, -1, 12]", false),
        (Kind::Onnx(1), "[B, S, 768]", "[0, -1, 64]", false),
        (Kind::Ov, "[A, B, 768]", "[0, -1, 768]", true),
        (Kind::Ov, "[A, B, 768]", "[-1, 0, 768]", true),
        (Kind::Ov, "[A, B, 768]", "[0, -1]", true),
        (Kind::Ov, "[A, B, 768]", "[-1, 12, 64]", true),
        (Kind::Ov, "[0, 3, 4]", "[0, -1]", true),
        (Kind::Ov, "[0, 3, 4]", "[-1, 0]", false),
        (Kind::Ov, "[A, 0]", "[-1, 0]", false),
        (Kind::Ov, "[...]", "[2, -1]", false),
        (Kind::OvStatic, "[3, 4, 5]", "[0, -1]", true),
        (Kind::OneDnn, "[2, 8, 32]", "[8, 0, -1]", true),
    ];
    let mut lines = vec![];
    for &(k, i, t, f) in cases {
        lines.push(format!(
            "{:<40} {i} -> {t}: {}",
            k.label(f),
            run(k, i, t, f)
        ));
    }
    common::snapshots()
        .bind(|| insta::assert_snapshot!("reshape_symbolic_table", lines.join("\n")));
}

/// Every error (and warning) message the Reshape rules produce.
#[test]
fn snapshot_error_messages() {
    let mut lines = vec![];
    let mut case = |label: &str, s: String| lines.push(format!("{label}: {s}"));
    let k = Kind::Onnx(14);
    case(
        "onnx more than one -1",
        run(k, "[2, 3, 4]", "[-1, -1]", false),
    );
    case("onnx below -1", run(k, "[2, 3, 4]", "[-2, 12]", false));
    case("onnx 0 beyond rank", run(k, "[2, 3]", "[0, 0, 0]", false));
    case(
        "onnx allowzero 0 and -1",
        run(k, "[0, 3, 4]", "[0, -1]", true),
    );
    case(
        "onnx -1 with zero-size",
        run(k, "[0, 3, 4]", "[0, -1]", false),
    );
    case(
        "onnx -1 not divisible",
        run(k, "[2, 3, 4]", "[-1, 5]", false),
    );
    case(
        "onnx -1 symbolic not divisible",
        run(k, "[B, 3]", "[-1, 2, B]", false),
    );
    case("onnx volume", run(k, "[2, 3, 4]", "[5, 5]", false));
    case("onnx volume symbolic", run(k, "[B, 3]", "[B, 4]", false));
    case(
        "onnx volume unknown (warning)",
        run(k, "[B, S]", "[N, 4]", false),
    );
    case(
        "onnx -1 fresh (warning)",
        run(k, "[B, S, 12]", "[0, -1, 8]", false),
    );
    case(
        "onnx-1 type",
        run_typed(Kind::Onnx(1), DType::Int64, "[2]", "[2]", false),
    );
    case(
        "onnx-1 more than one -1 (attribute)",
        run(Kind::Onnx(1), "[2, 3, 4]", "[-1, -1]", false),
    );
    case(
        "onnx-13 type",
        run_typed(Kind::Onnx(13), DType::Float8E4M3FN, "[2]", "[2]", false),
    );
    case("onnx non-integer target", {
        let mut ctx = ShapesContext::default();
        let n = setup(&mut ctx, k, DType::Float, "[2, 3]", "[6]", false);
        let half = ctx.alg.parse("3/2").unwrap();
        let four = ctx.alg.constant(4);
        let mut p = ctx.get("p").unwrap().clone();
        p.value = Some(vec![half, four]);
        ctx.insert("p", p);
        outcome(&mut ctx, &n)
    });
    let mut ctx = ShapesContext::default();
    let n = setup(&mut ctx, k, DType::Float, "[2, 3]", "[6]", false);
    let with = |f: &dyn Fn(&mut ShapesContext, &mut Node)| {
        let mut ctx = ShapesContext::default();
        let mut n = n.clone();
        setup(&mut ctx, k, DType::Float, "[2, 3]", "[6]", false);
        f(&mut ctx, &mut n);
        outcome(&mut ctx, &n)
    };
    case(
        "onnx shape type",
        with(&|ctx, _| {
            let mut p = ctx.get("p").unwrap().clone();
            p.dtype = DType::Int32;
            ctx.insert("p", p);
        }),
    );
    case(
        "onnx shape rank",
        with(&|ctx, _| {
            let two = ctx.alg.constant(2);
            ctx.insert("p", TensorFact::new(DType::Int64, vec![two, two]));
        }),
    );
    case(
        "onnx allowzero value",
        with(&|_, n| {
            n.attrs.insert("allowzero".into(), Attr::Int(2));
        }),
    );
    case(
        "onnx allowzero kind",
        with(&|_, n| {
            n.attrs.insert("allowzero".into(), Attr::Float(1.0));
        }),
    );
    case(
        "onnx-13 allowzero",
        with(&|_, n| {
            n.version = 13;
            n.attrs.insert("allowzero".into(), Attr::Int(0));
        }),
    );
    case("onnx input count", with(&|_, n| n.inputs.truncate(1)));
    case("onnx missing input", with(&|_, n| n.inputs[0] = "".into()));
    case(
        "onnx unknown tensor",
        with(&|_, n| n.inputs[1] = "nope".into()),
    );
    case(
        "onnx-1 missing shape",
        with(&|_, n| {
            n.version = 1;
            n.inputs.truncate(1);
            n.attrs.clear();
        }),
    );
    case(
        "onnx-1 shape kind",
        with(&|_, n| {
            n.version = 1;
            n.inputs.truncate(1);
            n.attrs.insert("shape".into(), Attr::Int(6));
        }),
    );
    drop(ctx);
    // OpenVINO Reshape-1.
    case(
        "ov 0 beyond rank",
        run(Kind::Ov, "[2, 3]", "[0, 0, 0]", true),
    );
    case(
        "ov zero-size -1",
        run(Kind::Ov, "[2, 3, 4]", "[0, -1]", false),
    );
    case("ov zero-size -1 undetermined (warning)", {
        let mut ctx = ShapesContext::default();
        let n = setup(&mut ctx, Kind::Ov, DType::Float, "[2]", "[-1, 0]", false);
        let u = ctx.alg.symbol(
            "u",
            symdim::algebra::SymbolKind::DataDependent { node: "m".into() },
        );
        ctx.insert("x", TensorFact::new(DType::Float, vec![u]));
        outcome(&mut ctx, &n)
    });
    case(
        "ov -1 not divisible",
        run(Kind::Ov, "[2, 3, 4]", "[-1, 5]", false),
    );
    case("ov volume", run(Kind::Ov, "[2, 3]", "[0, 4]", true));
    let ov_with = |f: &dyn Fn(&mut ShapesContext, &mut Node)| {
        let mut ctx = ShapesContext::default();
        let mut n = setup(&mut ctx, Kind::Ov, DType::Float, "[2, 3]", "[6]", true);
        f(&mut ctx, &mut n);
        outcome(&mut ctx, &n)
    };
    case(
        "ov pattern type",
        ov_with(&|ctx, _| {
            let mut p = ctx.get("p").unwrap().clone();
            p.dtype = DType::Float;
            ctx.insert("p", p);
        }),
    );
    case(
        "ov pattern scalar",
        ov_with(&|ctx, _| {
            let mut p = ctx.get("p").unwrap().clone();
            p.shape = Some(vec![]);
            ctx.insert("p", p);
        }),
    );
    case(
        "ov data type",
        ov_with(&|ctx, _| {
            let mut x = ctx.get("x").unwrap().clone();
            x.dtype = DType::String;
            ctx.insert("x", x);
        }),
    );
    case(
        "ov special_zero missing",
        ov_with(&|_, n| {
            n.attrs.clear();
        }),
    );
    case(
        "ov special_zero value",
        ov_with(&|_, n| {
            n.attrs.insert("special_zero".into(), Attr::Int(2));
        }),
    );
    case(
        "ov special_zero string",
        ov_with(&|_, n| {
            n.attrs
                .insert("special_zero".into(), ir_attr("special_zero", "yes"));
        }),
    );
    // OpenVINO StaticReshape-1.
    case(
        "ov-static 0 and -1",
        run(Kind::OvStatic, "[0, 4, 5]", "[0, -1]", false),
    );
    case(
        "ov-static below -1",
        run(Kind::OvStatic, "[3, 4, 5]", "[-3, 20]", true),
    );
    case(
        "ov-static type",
        run_typed(Kind::OvStatic, DType::Int64, "[3, 4, 5]", "[0, -1]", true),
    );
    case(
        "ov-static volume",
        run(Kind::OvStatic, "[3, 4, 5]", "[7, 8]", true),
    );
    // oneDNN StaticReshape.
    let d = Kind::OneDnn;
    case(
        "onednn below -1",
        run(d, "[2, 8, 32]", "[4, -6, 16]", false),
    );
    case("onednn 0 beyond rank", run(d, "[2, 8]", "[0, 0, 0]", true));
    case(
        "onednn second -1",
        run(d, "[2, 8, 32]", "[-1, -1, 16]", false),
    );
    case(
        "onednn zero-size -1",
        run(d, "[0, 2, 8, 6]", "[-1, 0]", false),
    );
    case(
        "onednn non-exact division",
        run(d, "[2, 8, 32]", "[-1, 5]", false),
    );
    case("onednn volume", run(d, "[2, 8, 32]", "[4, 6, 16]", false));
    case(
        "onednn type",
        run_typed(d, DType::Int8, "[2, 8, 32]", "[512]", false),
    );
    case("onednn special_zero as string", {
        let mut ctx = ShapesContext::default();
        let mut n = setup(&mut ctx, d, DType::Float, "[2]", "[2]", false);
        n.attrs
            .insert("special_zero".into(), Attr::Str("true".into()));
        outcome(&mut ctx, &n)
    });
    case("onednn missing shape", {
        let mut ctx = ShapesContext::default();
        let mut n = setup(&mut ctx, d, DType::Float, "[2]", "[2]", false);
        n.attrs.shift_remove("shape");
        outcome(&mut ctx, &n)
    });
    case("onednn input count", {
        let mut ctx = ShapesContext::default();
        let mut n = setup(&mut ctx, d, DType::Float, "[2]", "[2]", false);
        n.inputs.push("x".into());
        outcome(&mut ctx, &n)
    });
    common::snapshots()
        .bind(|| insta::assert_snapshot!("reshape_error_messages", lines.join("\n")));
}
