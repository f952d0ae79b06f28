//! Concat and Cast rules: symbolic sums, merged dims recorded in the e-graph,
//! contradictions, value-as-shape propagation, the `to` attribute, and a snapshot
//! of a table of cases and of every message.

use crate::common;

use symdim::algebra::{Dim, Truth};
use symdim::context::{OpError, ShapesContext, TensorFact};
use symdim::graph::{Attr, DType, Node};
use symdim::ops::rule_for;

fn node(op: &str, inputs: &[&str], attrs: Vec<(&str, Attr)>) -> Node {
    Node {
        name: "n0".to_string(),
        op_type: op.into(),
        domain: String::new(),
        version: 21,
        inputs: inputs.iter().map(|s| (*s).into()).collect(),
        outputs: vec!["y".into()],
        attrs: attrs.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
    }
}

/// `[B, S, 768]`; `...` is unknown rank.
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
            .map(|t| ctx.alg.parse(t.trim()).unwrap())
            .collect(),
    )
}

fn insert(ctx: &mut ShapesContext, name: &str, dtype: DType, shape: &str, value: Option<&str>) {
    let shape = dims(ctx, shape);
    let value = value.map(|v| dims(ctx, v).unwrap());
    ctx.insert(
        name,
        TensorFact {
            fill: None,
            dtype,
            shape,
            value,
        },
    );
}

fn apply(ctx: &mut ShapesContext, n: &Node) -> Result<Vec<TensorFact>, OpError> {
    let rule = rule_for(&n.domain, &n.op_type).expect("a rule");
    rule(ctx, n)
}

/// `dtype [dims] value [..]`, or `error: ...`, then the warnings.
fn outcome(ctx: &mut ShapesContext, n: &Node) -> String {
    let mut s = match apply(ctx, n) {
        Ok(f) => {
            let mut s = format!(
                "{} {}",
                f[0].dtype,
                f[0].shape
                    .as_ref()
                    .map_or("[...]".to_string(), |d| ctx.render_dims(d))
            );
            if let Some(v) = &f[0].value {
                s.push_str(&format!(" value {}", ctx.render_dims(v)));
            }
            s
        }
        Err(e) => format!("error: {e}"),
    };
    for d in &ctx.diagnostics {
        s.push_str(&format!("\n    {}: {}", d.severity.name(), d.message));
    }
    s
}

/// Concat of inputs given as `(dtype, shape, value)` with an optional axis.
fn concat(inputs: &[(DType, &str, Option<&str>)], axis: Option<i64>) -> String {
    let mut ctx = ShapesContext::default();
    let names: Vec<String> = (0..inputs.len()).map(|i| format!("x{i}")).collect();
    for (name, (t, s, v)) in names.iter().zip(inputs) {
        insert(&mut ctx, name, *t, s, *v);
    }
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let attrs = axis
        .map(|a| vec![("axis", Attr::Int(a))])
        .unwrap_or_default();
    let n = node("Concat", &refs, attrs);
    outcome(&mut ctx, &n)
}

const F: DType = DType::Float;
const I: DType = DType::Int64;

// ----- Concat ---------------------------------------------------------------------

#[test]
fn concat_symbolic_sum_on_axis() {
    assert_eq!(
        concat(&[(F, "[B, N]", None), (F, "[B, M]", None)], Some(1)),
        "f32 [B, M + N]"
    );
    assert_eq!(
        concat(
            &[
                (F, "[N, 4]", None),
                (F, "[M, 4]", None),
                (F, "[3, 4]", None)
            ],
            Some(0)
        ),
        "f32 [M + N + 3, 4]"
    );
    assert_eq!(
        concat(&[(F, "[2, 3]", None), (F, "[2, 5]", None)], Some(-1)),
        "f32 [2, 8]"
    );
    // The default axis is 1 (opset 1).
    assert_eq!(
        concat(&[(F, "[2, 3]", None), (F, "[2, 5]", None)], None),
        "f32 [2, 8]"
    );
    // A single input.
    assert_eq!(concat(&[(F, "[B, 3]", None)], Some(0)), "f32 [B, 3]");
}

#[test]
fn concat_merges_dims() {
    // A concrete dim overrides a symbolic one; the equality B == 2 is recorded.
    let mut ctx = ShapesContext::default();
    insert(&mut ctx, "x0", F, "[B, 3]", None);
    insert(&mut ctx, "x1", F, "[2, 5]", None);
    let n = node("Concat", &["x0", "x1"], vec![("axis", Attr::Int(1))]);
    let out = apply(&mut ctx, &n).unwrap();
    assert_eq!(ctx.render_dims(out[0].shape.as_ref().unwrap()), "[2, 8]");
    let (b, two) = (ctx.alg.input("B"), ctx.alg.constant(2));
    assert_eq!(ctx.alg.equal(b, two), Truth::True);
    assert_eq!(ctx.alg.relations().len(), 1);
    assert_eq!(ctx.diagnostics.len(), 1);
    // Two symbols: merged in the e-graph.
    let mut ctx = ShapesContext::default();
    insert(&mut ctx, "x0", F, "[B, 3]", None);
    insert(&mut ctx, "x1", F, "[C, 5]", None);
    let n = node("Concat", &["x0", "x1"], vec![("axis", Attr::Int(1))]);
    apply(&mut ctx, &n).unwrap();
    let (b, c) = (ctx.alg.input("B"), ctx.alg.input("C"));
    assert_eq!(ctx.alg.equal(b, c), Truth::True);
    // Provably equal dims need nothing.
    let mut ctx = ShapesContext::default();
    insert(&mut ctx, "x0", F, "[B*S, 3]", None);
    insert(&mut ctx, "x1", F, "[S*B, 5]", None);
    let n = node("Concat", &["x0", "x1"], vec![("axis", Attr::Int(1))]);
    apply(&mut ctx, &n).unwrap();
    assert!(ctx.diagnostics.is_empty() && ctx.alg.relations().is_empty());
}

#[test]
fn concat_errors() {
    // Provably different: a loud contradiction.
    let e = concat(&[(F, "[2, 3]", None), (F, "[4, 5]", None)], Some(1));
    assert!(
        e.contains("dim 0 of input 0 and input 1") && e.ends_with(": 2 != 4"),
        "{e}"
    );
    let e = concat(&[(F, "[B, 3]", None), (F, "[B + 1, 5]", None)], Some(1));
    assert!(e.contains("B != B + 1"), "{e}");
    assert!(
        concat(&[(F, "[2, 3]", None), (F, "[2, 3, 1]", None)], Some(0))
            .contains("rank 3, expected 2")
    );
    assert!(concat(&[(F, "[2, 3]", None), (I, "[2, 3]", None)], Some(0))
        .contains("element types differ"));
    assert!(concat(&[(F, "[2, 3]", None)], Some(2)).contains("axis 2 is out of range for rank 2"));
    assert!(concat(&[(F, "[2, 3]", None)], Some(-3)).contains("out of range"));
    assert!(concat(&[(F, "[]", None)], Some(0)).contains("expected at least 1"));
}

#[test]
fn concat_unknown_rank_and_values() {
    assert_eq!(
        concat(&[(F, "[...]", None), (F, "[...]", None)], Some(0)),
        "f32 [...]"
    );
    assert_eq!(
        concat(&[(F, "[...]", None), (F, "[B, 3]", None)], Some(0)),
        "f32 [unk0, 3]"
    );
    // Shape-tensor concatenation: values concatenated.
    assert_eq!(
        concat(
            &[(I, "[2]", Some("[B, S]")), (I, "[2]", Some("[12, 64]"))],
            Some(0)
        ),
        "i64 [4] value [B, S, 12, 64]"
    );
    // One input without a value: no value.
    assert_eq!(
        concat(&[(I, "[2]", Some("[B, S]")), (I, "[1]", None)], Some(0)),
        "i64 [3]"
    );
    // Undefined types do not conflict.
    assert_eq!(
        concat(
            &[(DType::Undefined, "[1]", None), (I, "[1]", None)],
            Some(0)
        ),
        "i64 [2]"
    );
}

// ----- Cast ------------------------------------------------------------------------

fn cast(from: DType, shape: &str, value: Option<&str>, to: Option<Attr>) -> String {
    let mut ctx = ShapesContext::default();
    insert(&mut ctx, "x", from, shape, value);
    let attrs = to.map(|t| vec![("to", t)]).unwrap_or_default();
    let n = node("Cast", &["x"], attrs);
    outcome(&mut ctx, &n)
}

#[test]
fn cast_shape_and_type() {
    assert_eq!(cast(F, "[B, 3]", None, Some(Attr::Int(7))), "i64 [B, 3]");
    assert_eq!(cast(F, "[...]", None, Some(Attr::Int(10))), "f16 [...]");
    assert_eq!(cast(F, "[]", None, Some(Attr::Int(16))), "bf16 []");
    // Cast-1: `to` is a string.
    assert_eq!(
        cast(F, "[2]", None, Some(Attr::Str("INT32".into()))),
        "i32 [2]"
    );
    assert!(cast(F, "[2]", None, None).contains("attribute `to` is required"));
    assert!(cast(F, "[2]", None, Some(Attr::Int(99))).contains("not a known TensorProto.DataType"));
    assert!(cast(F, "[2]", None, Some(Attr::Int(0))).contains("not a known"));
}

#[test]
fn cast_keeps_integer_values() {
    let v = Some("[B, S, 768]");
    assert_eq!(
        cast(I, "[3]", v, Some(Attr::Int(6))),
        "i32 [3] value [B, S, 768]"
    );
    assert_eq!(
        cast(DType::Int32, "[3]", v, Some(Attr::Int(7))),
        "i64 [3] value [B, S, 768]"
    );
    // To float: kept where the float type holds the integers exactly (dims are
    // assumed to fit, as for int32); the spec drops them.
    assert_eq!(
        cast(I, "[3]", v, Some(Attr::Int(1))),
        "f32 [3] value [B, S, 768]"
    );
    assert_eq!(
        cast(I, "[2]", Some("[4096, B]"), Some(Attr::Int(10))),
        "f16 [2]"
    );
    // To bool: x != 0 (input dims are >= 1).
    assert_eq!(
        cast(I, "[3]", v, Some(Attr::Int(9))),
        "bool [3] value [1, 1, 1]"
    );
    assert_eq!(
        cast(I, "[2]", Some("[0, B - 1]"), Some(Attr::Int(9))),
        "bool [2]"
    );
    // From float: truncation toward zero where the sign is decided.
    assert_eq!(
        cast(F, "[3]", v, Some(Attr::Int(7))),
        "i64 [3] value [B, S, 768]"
    );
    assert_eq!(
        cast(F, "[2]", Some("[7/2, -7/2]"), Some(Attr::Int(7))),
        "i64 [2] value [3, -3]"
    );
    assert_eq!(
        cast(F, "[1]", Some("[B - 3/2]"), Some(Attr::Int(7))),
        "i64 [1]"
    );
    // To string: dropped.
    assert_eq!(cast(I, "[3]", v, Some(Attr::Int(8))), "string [3]");
    // A value provably outside the target type: dropped.
    assert_eq!(
        cast(I, "[2]", Some("[300, B]"), Some(Attr::Int(3))),
        "i8 [2]"
    );
    assert_eq!(cast(I, "[1]", Some("[-1]"), Some(Attr::Int(13))), "u64 [1]");
    assert_eq!(
        cast(I, "[1]", Some("[-1]"), Some(Attr::Int(3))),
        "i8 [1] value [-1]"
    );
}

// ----- snapshot -----------------------------------------------------------------------

#[test]
fn snapshot_concat_cast() {
    let mut lines = vec![];
    let mut case = |label: &str, s: String| lines.push(format!("{label}: {s}"));
    case(
        "concat sum",
        concat(&[(F, "[B, N]", None), (F, "[B, M]", None)], Some(1)),
    );
    case(
        "concat three",
        concat(
            &[
                (F, "[N, 4]", None),
                (F, "[2*N, 4]", None),
                (F, "[3, 4]", None),
            ],
            Some(-2),
        ),
    );
    case(
        "concat default axis",
        concat(&[(F, "[2, 3]", None), (F, "[2, 5]", None)], None),
    );
    case(
        "concat symbol vs constant",
        concat(&[(F, "[B, 3]", None), (F, "[2, 5]", None)], Some(1)),
    );
    case(
        "concat symbol vs symbol",
        concat(&[(F, "[B, 3]", None), (F, "[C, 5]", None)], Some(1)),
    );
    case(
        "concat values",
        concat(
            &[(I, "[2]", Some("[B, S]")), (I, "[2]", Some("[12, 64]"))],
            Some(0),
        ),
    );
    case(
        "concat unknown rank",
        concat(&[(F, "[...]", None), (F, "[B, 3]", None)], Some(0)),
    );
    case(
        "concat dim mismatch",
        concat(&[(F, "[2, 3]", None), (F, "[4, 5]", None)], Some(1)),
    );
    case(
        "concat symbolic mismatch",
        concat(&[(F, "[B, 3]", None), (F, "[B + 1, 5]", None)], Some(1)),
    );
    case(
        "concat rank",
        concat(&[(F, "[2, 3]", None), (F, "[2, 3, 1]", None)], Some(0)),
    );
    case("concat scalar", concat(&[(F, "[]", None)], Some(0)));
    case(
        "concat type",
        concat(&[(F, "[2, 3]", None), (I, "[2, 3]", None)], Some(0)),
    );
    case("concat axis", concat(&[(F, "[2, 3]", None)], Some(2)));
    case("concat no input", {
        let mut ctx = ShapesContext::default();
        outcome(&mut ctx, &node("Concat", &[], vec![]))
    });
    case("concat axis kind", {
        let mut ctx = ShapesContext::default();
        insert(&mut ctx, "x0", F, "[2]", None);
        outcome(
            &mut ctx,
            &node("Concat", &["x0"], vec![("axis", Attr::Ints(vec![0]))]),
        )
    });
    case("concat missing input", {
        let mut ctx = ShapesContext::default();
        insert(&mut ctx, "x0", F, "[2]", None);
        outcome(&mut ctx, &node("Concat", &["", "x0"], vec![]))
    });
    case("concat unknown tensor", {
        let mut ctx = ShapesContext::default();
        outcome(&mut ctx, &node("Concat", &["nope"], vec![]))
    });
    case("cast", cast(F, "[B, 3]", None, Some(Attr::Int(7))));
    case(
        "cast value",
        cast(I, "[3]", Some("[B, S, 768]"), Some(Attr::Int(6))),
    );
    case(
        "cast value to float",
        cast(I, "[3]", Some("[B, S, 768]"), Some(Attr::Int(1))),
    );
    case(
        "cast-1 string",
        cast(F, "[2]", None, Some(Attr::Str("DOUBLE".into()))),
    );
    case("cast missing to", cast(F, "[2]", None, None));
    case("cast bad to", cast(F, "[2]", None, Some(Attr::Int(99))));
    case(
        "cast undefined to",
        cast(F, "[2]", None, Some(Attr::Int(0))),
    );
    case(
        "cast bad to name",
        cast(F, "[2]", None, Some(Attr::Str("FLOAT33".into()))),
    );
    case("cast to kind", cast(F, "[2]", None, Some(Attr::Float(1.0))));
    case("cast input count", {
        let mut ctx = ShapesContext::default();
        insert(&mut ctx, "x", F, "[2]", None);
        outcome(
            &mut ctx,
            &node("Cast", &["x", "x"], vec![("to", Attr::Int(1))]),
        )
    });
    case("cast unknown tensor", {
        let mut ctx = ShapesContext::default();
        outcome(
            &mut ctx,
            &node("Cast", &["nope"], vec![("to", Attr::Int(1))]),
        )
    });
    common::snapshots().bind(|| insta::assert_snapshot!("concat_cast_table", lines.join("\n")));
}
