//! The ShapesContext API (`onnx-optim-shape_tensor.h`): each function stores the
//! node's output in the context; errors are `InvalidArgument` or `OutOfRange`
//! exactly where the spec throws `std::invalid_argument` / `std::out_of_range`.

use crate::common;

use symdim::context::{OpError, ShapesContext, TensorFact};
use symdim::graph::{Attr, DType, Node};
use symdim::ops::shapes_api::{
    compute_shape_cast, compute_shape_concat, compute_shape_reshape, ShapeError,
};

fn node(
    op: &str,
    domain: &str,
    inputs: &[&str],
    outputs: &[&str],
    attrs: Vec<(&str, Attr)>,
) -> Node {
    Node {
        name: "n0".to_string(),
        op_type: op.into(),
        domain: domain.to_string(),
        version: 21,
        inputs: inputs.iter().map(|s| (*s).into()).collect(),
        outputs: outputs.iter().map(|s| (*s).into()).collect(),
        attrs: attrs.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
    }
}

/// `x: f32 [B, S, 768]`, `p: i64 [4]` holding `[0, -1, 12, 64]`.
fn context() -> ShapesContext {
    let mut ctx = ShapesContext::default();
    let (b, s) = (ctx.alg.input("B"), ctx.alg.input("S"));
    let c768 = ctx.alg.constant(768);
    ctx.insert("x", TensorFact::new(DType::Float, vec![b, s, c768]));
    let v: Vec<_> = [0, -1, 12, 64]
        .iter()
        .map(|&v| ctx.alg.constant(v))
        .collect();
    let four = ctx.alg.constant(4);
    ctx.insert(
        "p",
        TensorFact {
            fill: None,
            dtype: DType::Int64,
            shape: Some(vec![four]),
            value: Some(v),
        },
    );
    ctx
}

fn shape_of(ctx: &ShapesContext, name: &str) -> String {
    let f = ctx.get(name).expect("stored");
    format!(
        "{} {}",
        f.dtype,
        f.shape
            .as_ref()
            .map_or("[...]".into(), |d| ctx.render_dims(d))
    )
}

#[test]
fn stores_outputs() {
    let mut ctx = context();
    compute_shape_reshape(&mut ctx, &node("Reshape", "", &["x", "p"], &["r"], vec![])).unwrap();
    assert_eq!(shape_of(&ctx, "r"), "f32 [B, S, 12, 64]");
    compute_shape_cast(
        &mut ctx,
        &node("Cast", "", &["r"], &["c"], vec![("to", Attr::Int(10))]),
    )
    .unwrap();
    assert_eq!(shape_of(&ctx, "c"), "f16 [B, S, 12, 64]");
    compute_shape_concat(
        &mut ctx,
        &node(
            "Concat",
            "",
            &["c", "c"],
            &["z"],
            vec![("axis", Attr::Int(-2))],
        ),
    )
    .unwrap();
    assert_eq!(shape_of(&ctx, "z"), "f16 [B, S, 24, 64]");
    // OpenVINO Reshape-1 through the same entry point (domain `openvino`).
    let ov = node(
        "Reshape",
        "openvino",
        &["x", "p"],
        &["o"],
        vec![("special_zero", Attr::Int(1))],
    );
    compute_shape_reshape(&mut ctx, &ov).unwrap();
    assert_eq!(shape_of(&ctx, "o"), "f32 [B, S, 12, 64]");
}

/// A Shape -> Cast -> Concat -> Reshape chain through value-as-shape.
#[test]
fn shape_tensor_chain() {
    let mut ctx = context();
    let (b, s) = (ctx.alg.input("B"), ctx.alg.input("S"));
    let two = ctx.alg.constant(2);
    ctx.insert(
        "bs",
        TensorFact {
            fill: None,
            dtype: DType::Int64,
            shape: Some(vec![two]),
            value: Some(vec![b, s]),
        },
    );
    let (c12, c64) = (ctx.alg.constant(12), ctx.alg.constant(64));
    ctx.insert(
        "heads",
        TensorFact {
            fill: None,
            dtype: DType::Int32,
            shape: Some(vec![two]),
            value: Some(vec![c12, c64]),
        },
    );
    compute_shape_cast(
        &mut ctx,
        &node("Cast", "", &["heads"], &["h64"], vec![("to", Attr::Int(7))]),
    )
    .unwrap();
    compute_shape_concat(
        &mut ctx,
        &node(
            "Concat",
            "",
            &["bs", "h64"],
            &["target"],
            vec![("axis", Attr::Int(0))],
        ),
    )
    .unwrap();
    let t = ctx.get("target").unwrap().value.clone().unwrap();
    assert_eq!(ctx.render_dims(&t), "[B, S, 12, 64]");
    compute_shape_reshape(
        &mut ctx,
        &node("Reshape", "", &["x", "target"], &["y"], vec![]),
    )
    .unwrap();
    assert_eq!(shape_of(&ctx, "y"), "f32 [B, S, 12, 64]");
}

#[test]
fn error_kinds() {
    let mut ctx = context();
    let kind = |r: Result<(), ShapeError>| match r {
        Err(ShapeError::InvalidArgument(e)) => format!("invalid argument: {e}"),
        Err(ShapeError::OutOfRange(e)) => format!("out of range: {e}"),
        Ok(()) => "ok".into(),
    };
    let mut lines = vec![];
    let mut case = |label: &str, s: String| lines.push(format!("{label}: {s}"));
    // Invalid argument: wrong op, no output, too few inputs, bad targets, ...
    case(
        "concat wrong op",
        kind(compute_shape_concat(
            &mut ctx,
            &node("Add", "", &["x"], &["z"], vec![]),
        )),
    );
    case(
        "cast wrong op",
        kind(compute_shape_cast(
            &mut ctx,
            &node("Concat", "", &["x"], &["z"], vec![]),
        )),
    );
    case(
        "reshape wrong op",
        kind(compute_shape_reshape(
            &mut ctx,
            &node("Cast", "", &["x"], &["z"], vec![]),
        )),
    );
    case(
        "concat no output",
        kind(compute_shape_concat(
            &mut ctx,
            &node("Concat", "", &["x"], &[], vec![]),
        )),
    );
    case(
        "cast empty output",
        kind(compute_shape_cast(
            &mut ctx,
            &node("Cast", "", &["x"], &[""], vec![]),
        )),
    );
    case(
        "concat no input",
        kind(compute_shape_concat(
            &mut ctx,
            &node("Concat", "", &[], &["z"], vec![]),
        )),
    );
    case(
        "reshape one input",
        kind(compute_shape_reshape(
            &mut ctx,
            &node("Reshape", "", &["x"], &["z"], vec![]),
        )),
    );
    case(
        "cast no to",
        kind(compute_shape_cast(
            &mut ctx,
            &node("Cast", "", &["x"], &["z"], vec![]),
        )),
    );
    case(
        "cast bad to",
        kind(compute_shape_cast(
            &mut ctx,
            &node("Cast", "", &["x"], &["z"], vec![("to", Attr::Int(77))]),
        )),
    );
    case(
        "concat types",
        kind(compute_shape_concat(
            &mut ctx,
            &node(
                "Concat",
                "",
                &["x", "p"],
                &["z"],
                vec![("axis", Attr::Int(0))],
            ),
        )),
    );
    // Out of range: an input missing from the context.
    case(
        "concat missing",
        kind(compute_shape_concat(
            &mut ctx,
            &node("Concat", "", &["x", "nope"], &["z"], vec![]),
        )),
    );
    case(
        "cast missing",
        kind(compute_shape_cast(
            &mut ctx,
            &node("Cast", "", &["nope"], &["z"], vec![("to", Attr::Int(1))]),
        )),
    );
    case(
        "reshape missing",
        kind(compute_shape_reshape(
            &mut ctx,
            &node("Reshape", "", &["x", "nope"], &["z"], vec![]),
        )),
    );
    case(
        "reshape absent data",
        kind(compute_shape_reshape(
            &mut ctx,
            &node("Reshape", "", &["", "p"], &["z"], vec![]),
        )),
    );
    // Invalid argument from the target: two -1, below -1, a 0 past the rank, the -1.
    for (label, target) in [
        ("reshape two -1", vec![-1, -1]),
        ("reshape below -1", vec![-5, 768]),
        ("reshape 0 past rank", vec![0, 0, 0, 0]),
        ("reshape -1 not divisible", vec![0, 0, -1, 7]),
    ] {
        let v: Vec<_> = target.iter().map(|&v| ctx.alg.constant(v)).collect();
        let len = ctx.alg.constant(v.len() as i64);
        ctx.insert(
            "t",
            TensorFact {
                fill: None,
                dtype: DType::Int64,
                shape: Some(vec![len]),
                value: Some(v),
            },
        );
        case(
            label,
            kind(compute_shape_reshape(
                &mut ctx,
                &node("Reshape", "", &["x", "t"], &["z"], vec![]),
            )),
        );
    }
    // Nothing was stored for failed nodes.
    assert!(ctx.get("z").is_none());
    common::snapshots().bind(|| insta::assert_snapshot!("shapes_api_errors", lines.join("\n")));
}

#[test]
fn shape_error_from_op_error() {
    let e = ShapeError::from(OpError::UnknownTensor {
        index: 0,
        name: "a".into(),
    });
    assert!(matches!(e, ShapeError::OutOfRange(_)));
    assert_eq!(
        e.to_string(),
        "out of range: input 0 names tensor `a`, which is not known"
    );
    let e = ShapeError::from(OpError::NoOutput);
    assert!(matches!(e, ShapeError::InvalidArgument(OpError::NoOutput)));
    assert_eq!(e.op_error(), &OpError::NoOutput);
}
