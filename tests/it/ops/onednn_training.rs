//! The oneDNN Graph rules of the backward and training kinds, ConvTranspose,
//! RMSNorm, Dropout and Wildcard, on hand-built JSON graphs. Expected shapes are
//! worked out from oneDNN's op documents and its shape inference
//! (`src/graph/interface/shape_infer.cpp`); outputs are written with an unknown
//! shape (`[INT64_MIN]`) so the shapes checked are the rules' own.

use crate::common;

use symdim::context::{OpError, Severity, ShapesContext};
use symdim::graph::{DType, Model};
use symdim::ops::rule_for;
use symdim::read::onednn::to_graph::{to_model, ConvertOptions, Symbolize};
use symdim::read::onednn::OnednnGraph;
use symdim::Facts;

/// A logical tensor; `None` writes oneDNN's unknown shape `[INT64_MIN]`.
fn lt(id: u64, dtype: &str, shape: Option<&[i64]>) -> String {
    let (shape, stride) = match shape {
        None => (format!("[{}]", i64::MIN), format!("[{}]", i64::MIN)),
        Some(s) => {
            let mut st = vec![1i64; s.len()];
            for i in (0..s.len().saturating_sub(1)).rev() {
                st[i] = st[i + 1] * s[i + 1].max(1);
            }
            (format!("{s:?}"), format!("{st:?}"))
        }
    };
    format!(
        r#"{{"id": {id}, "dtype": "{dtype}", "shape": {shape}, "stride": {stride}, "layout_type": "strided", "property_type": "undef"}}"#
    )
}

/// A known f32 tensor.
fn t(id: u64, shape: &[i64]) -> String {
    lt(id, "f32", Some(shape))
}

/// An f32 tensor of unknown shape (an output to infer).
fn u(id: u64) -> String {
    lt(id, "f32", None)
}

/// An attribute: `(name, type, value)`.
type Attr = (&'static str, &'static str, &'static str);

/// An op; `attrs` are `(name, type, value)`.
fn op(kind: &str, attrs: &[(&str, &str, &str)], ins: &[String], outs: &[String]) -> String {
    let attrs: Vec<String> = attrs
        .iter()
        .map(|(n, t, v)| format!(r#""{n}": {{"type": "{t}", "value": {v}}}"#))
        .collect();
    format!(
        r#"{{"id": 0, "name": "op", "kind": "{kind}", "attrs": {{{}}}, "inputs": [{}], "outputs": [{}]}}"#,
        attrs.join(", "),
        ins.join(", "),
        outs.join(", ")
    )
}

fn model(op: &str, symbols: &[&str]) -> Model {
    let text = format!(
        r#"{{"version": "3.11.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": [{op}]}}"#
    );
    let g = OnednnGraph::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let options = ConvertOptions {
        symbols: symbols
            .iter()
            .map(|s| s.parse::<Symbolize>().unwrap())
            .collect(),
        check_name: None,
    };
    to_model(&g, "t.json", &options).unwrap()
}

/// Infer a one-op graph; its diagnostics must be empty.
fn infer(op: &str) -> ShapesContext {
    infer_sym(op, &[])
}

/// [`infer`] with symbolic input dims (`ID:AXIS=NAME`).
fn infer_sym(op: &str, symbols: &[&str]) -> ShapesContext {
    let m = model(op, symbols);
    let ctx = symdim::infer(&m, &Facts::default()).into_context();
    let d: Vec<String> = ctx.diagnostics.iter().map(|d| d.to_string()).collect();
    assert!(d.is_empty(), "{op}\n{d:#?}");
    ctx
}

fn shape(ctx: &ShapesContext, id: u64) -> String {
    match ctx.get(&id.to_string()).and_then(|f| f.shape.clone()) {
        Some(s) => ctx.render_dims(&s),
        None => "unknown".to_string(),
    }
}

/// The rule's typed error on a one-op graph, and the driver's error diagnostic.
fn error(op: &str) -> (OpError, String) {
    let m = model(op, &[]);
    let ctx = symdim::infer(&m, &Facts::default()).into_context();
    let diag = ctx
        .diagnostics
        .iter()
        .find(|d| d.severity == Severity::Error)
        .map(|d| d.to_string())
        .unwrap_or_else(|| panic!("no error for {op}"));
    // Run the rule again on the inferred inputs for its typed error.
    let node = &m.graph.nodes[0];
    let rule = rule_for(&node.domain, &node.op_type).expect("a rule");
    let mut ctx = ctx;
    let e = rule(&mut ctx, node).expect_err("the rule fails");
    (e, diag)
}

/// A one-op graph infers, without diagnostics, `expected` for tensor `id`.
#[track_caller]
fn infers(op: &str, id: u64, expected: &str) {
    assert_eq!(shape(&infer(op), id), expected, "{op}");
}

/// A one-op graph fails with a [`OpError::DimMismatch`], its diagnostic
/// containing `msg` (empty: any).
#[track_caller]
fn mismatch(op: &str, msg: &str) {
    let (e, d) = error(op);
    assert!(matches!(e, OpError::DimMismatch { .. }), "{e:?}");
    assert!(d.contains(msg), "{d}");
}

/// A one-op graph fails with a [`OpError::BadAttribute`] of `name`, its
/// diagnostic containing `msg` (empty: any).
#[track_caller]
fn bad_attribute(op: &str, name: &str, msg: &str) {
    let (e, d) = error(op);
    assert!(
        matches!(&e, OpError::BadAttribute { name: n, .. } if *n == name),
        "{e:?}"
    );
    assert!(d.contains(msg), "{d}");
}

fn attr_s(v: &str) -> String {
    format!("\"{v}\"")
}

// ---------------------------------------------------------------------------------
// Eltwise backward, PReLUBackward, BiasAddBackward
// ---------------------------------------------------------------------------------

const ELTWISE_BACKWARD: &[&str] = &[
    "AbsBackward",
    "ClampBackward",
    "EluBackward",
    "GELUBackward",
    "HardSigmoidBackward",
    "HardSwishBackward",
    "MishBackward",
    "ReLUBackward",
    "SigmoidBackward",
    "SoftPlusBackward",
    "SqrtBackward",
    "TanhBackward",
];

#[test]
fn eltwise_backward_keeps_the_shape() {
    for kind in ELTWISE_BACKWARD {
        let ctx = infer(&op(
            kind,
            &[],
            &[t(0, &[2, 3, 4]), t(1, &[2, 3, 4])],
            &[u(2)],
        ));
        assert_eq!(shape(&ctx, 2), "[2, 3, 4]", "{kind}");
        assert_eq!(ctx.get("2").unwrap().dtype, DType::Float, "{kind}");
    }
    // A symbolic batch flows to diff_src.
    let ctx = infer_sym(
        &op(
            "ReLUBackward",
            &[("use_dst", "bool", "1")],
            &[t(0, &[2, 8]), t(1, &[2, 8])],
            &[u(2)],
        ),
        &["0:0=N", "1:0=N"],
    );
    assert_eq!(shape(&ctx, 2), "[N, 8]");
    // One unknown shape: the other's.
    infers(
        &op("TanhBackward", &[], &[u(0), t(1, &[5])], &[u(2)]),
        2,
        "[5]",
    );
}

#[test]
fn eltwise_backward_errors() {
    mismatch(
        &op(
            "ReLUBackward",
            &[],
            &[t(0, &[2, 3]), t(1, &[2, 4])],
            &[u(2)],
        ),
        "axis 1 of src and diff_dst: 3 != 4",
    );
    let (e, d) = error(&op(
        "GELUBackward",
        &[],
        &[t(0, &[2, 3]), t(1, &[2, 3, 1])],
        &[u(2)],
    ));
    assert!(matches!(e, OpError::Rank { found: 3, .. }), "{e:?}");
    assert!(
        d.contains("diff_dst has rank 3, expected 2 (the rank of src)"),
        "{d}"
    );
    let (e, _) = error(&op("AbsBackward", &[], &[t(0, &[2])], &[u(2)]));
    assert!(matches!(e, OpError::InputCount { found: 1, .. }), "{e:?}");
}

#[test]
fn prelu_backward() {
    let ctx = infer(&op(
        "PReLUBackward",
        &[("data_format", "string", &attr_s("NCX"))],
        &[t(0, &[1, 8, 4, 4]), t(1, &[8, 1, 1]), t(2, &[1, 8, 4, 4])],
        &[u(3), u(4)],
    ));
    assert_eq!(shape(&ctx, 3), "[1, 8, 4, 4]");
    assert_eq!(shape(&ctx, 4), "[8, 1, 1]");
}

#[test]
fn bias_add_backward() {
    // NXC (the default): the last dim.
    infers(
        &op("BiasAddBackward", &[], &[t(0, &[2, 5, 5, 16])], &[u(1)]),
        1,
        "[16]",
    );
    infers(
        &op(
            "BiasAddBackward",
            &[("data_format", "string", &attr_s("NCX"))],
            &[t(0, &[2, 16, 5, 5])],
            &[u(1)],
        ),
        1,
        "[16]",
    );
    // oneDNN's shape inference takes rank 4 or more.
    let (e, d) = error(&op("BiasAddBackward", &[], &[t(0, &[2, 16])], &[u(1)]));
    assert!(matches!(e, OpError::Rank { found: 2, .. }), "{e:?}");
    assert!(
        d.contains("diff_dst has rank 2, expected at least 4"),
        "{d}"
    );
}

// ---------------------------------------------------------------------------------
// Softmax backward, RMSNorm, LayerNormBackward, batch norm training, Dropout
// ---------------------------------------------------------------------------------

#[test]
fn softmax_backward() {
    for kind in ["SoftMaxBackward", "LogSoftmaxBackward"] {
        let ctx = infer(&op(kind, &[], &[t(0, &[4, 10]), t(1, &[4, 10])], &[u(2)]));
        assert_eq!(shape(&ctx, 2), "[4, 10]", "{kind}");
    }
    // SoftMaxBackward's diff_src may be bf16 (T2).
    let ctx = infer(&op(
        "SoftMaxBackward",
        &[("axis", "s64", "-1")],
        &[t(0, &[4, 10]), t(1, &[4, 10])],
        &[lt(2, "bf16", None)],
    ));
    assert_eq!(ctx.get("2").unwrap().dtype, DType::Bfloat16);
    let (e, _) = error(&op(
        "SoftMaxBackward",
        &[("axis", "s64", "2")],
        &[t(0, &[4, 10]), t(1, &[4, 10])],
        &[u(2)],
    ));
    assert_eq!(e, OpError::AxisOutOfRange { axis: 2, rank: 2 });
    mismatch(
        &op(
            "LogSoftmaxBackward",
            &[],
            &[t(0, &[4, 10]), t(1, &[4, 11])],
            &[u(2)],
        ),
        "",
    );
}

#[test]
fn rms_norm() {
    infers(
        &op(
            "RMSNorm",
            &[("epsilon", "f32", "1e-6")],
            &[t(0, &[2, 7, 64]), t(1, &[64])],
            &[u(2)],
        ),
        2,
        "[2, 7, 64]",
    );
    // gamma broadcasts to the normalised dims from begin_norm_axis.
    infers(
        &op(
            "RMSNorm",
            &[("begin_norm_axis", "s64", "1")],
            &[t(0, &[2, 7, 64]), t(1, &[1, 64])],
            &[u(2)],
        ),
        2,
        "[2, 7, 64]",
    );
    infers(&op("RMSNorm", &[], &[t(0, &[3, 5])], &[u(2)]), 2, "[3, 5]");
    mismatch(
        &op("RMSNorm", &[], &[t(0, &[2, 7, 64]), t(1, &[32])], &[u(2)]),
        "",
    );
    let (e, _) = error(&op(
        "RMSNorm",
        &[],
        &[t(0, &[2, 7, 64]), t(1, &[7, 64])],
        &[u(2)],
    ));
    assert!(matches!(e, OpError::Rank { found: 2, .. }), "{e:?}");
    let (e, _) = error(&op(
        "RMSNorm",
        &[("begin_norm_axis", "s64", "3")],
        &[t(0, &[2, 7, 64])],
        &[u(2)],
    ));
    assert_eq!(e, OpError::AxisOutOfRange { axis: 3, rank: 3 });
}

#[test]
fn layer_norm_backward() {
    let ins = |mean: &[i64]| {
        vec![
            t(0, &[2, 7, 64]),
            t(1, &[2, 7, 64]),
            t(2, mean),
            t(3, &[2, 7]),
            t(4, &[64]),
            t(5, &[64]),
        ]
    };
    let ctx = infer(&op(
        "LayerNormBackward",
        &[],
        &ins(&[2, 7]),
        &[u(6), u(7), u(8)],
    ));
    assert_eq!(shape(&ctx, 6), "[2, 7, 64]");
    assert_eq!(shape(&ctx, 7), "[64]");
    assert_eq!(shape(&ctx, 8), "[64]");
    // Without affine parameters: one output.
    infers(
        &op(
            "LayerNormBackward",
            &[("use_affine", "bool", "0"), ("begin_norm_axis", "s64", "1")],
            &[t(0, &[2, 7, 64]), t(1, &[2, 7, 64]), t(2, &[2]), t(3, &[2])],
            &[u(6)],
        ),
        6,
        "[2, 7, 64]",
    );
    mismatch(
        &op("LayerNormBackward", &[], &ins(&[2, 8]), &[u(6), u(7), u(8)]),
        "axis 1 of the dims before begin_norm_axis and mean: 7 != 8",
    );
    bad_attribute(
        &op("LayerNormBackward", &[], &ins(&[2, 7]), &[u(6)]),
        "use_affine",
        "needs 3 outputs (diff_src, diff_gamma, diff_beta), found 1",
    );
}

#[test]
fn batch_norm_forward_training() {
    let ctx = infer(&op(
        "BatchNormForwardTraining",
        &[
            ("epsilon", "f32", "1e-5"),
            ("momentum", "f32", "0.1"),
            ("data_format", "string", &attr_s("NCX")),
        ],
        &[
            t(0, &[8, 16, 5, 5]),
            t(1, &[16]),
            t(2, &[16]),
            t(3, &[16]),
            t(4, &[16]),
        ],
        &[u(5), u(6), u(7), u(8), u(9)],
    ));
    assert_eq!(shape(&ctx, 5), "[8, 16, 5, 5]");
    for id in 6..10 {
        assert_eq!(shape(&ctx, id), "[16]");
    }
    // NXC (the default), without gamma and beta, symbolic channels.
    let ctx = infer_sym(
        &op(
            "BatchNormForwardTraining",
            &[("epsilon", "f32", "1e-5")],
            &[t(0, &[8, 5, 5, 16]), t(1, &[16]), t(2, &[16])],
            &[u(5), u(6), u(7), u(8), u(9)],
        ),
        &["0:3=C", "1:0=C", "2:0=C"],
    );
    assert_eq!(shape(&ctx, 5), "[8, 5, 5, C]");
    assert_eq!(shape(&ctx, 9), "[C]");
    mismatch(
        &op(
            "BatchNormForwardTraining",
            &[("epsilon", "f32", "1e-5")],
            &[t(0, &[8, 5, 5, 16]), t(1, &[15]), t(2, &[16])],
            &[u(5), u(6), u(7), u(8), u(9)],
        ),
        "",
    );
    let (e, _) = error(&op(
        "BatchNormForwardTraining",
        &[("epsilon", "f32", "1e-5")],
        &[t(0, &[8]), t(1, &[8]), t(2, &[8])],
        &[u(5), u(6), u(7), u(8), u(9)],
    ));
    assert!(matches!(e, OpError::Rank { found: 1, .. }), "{e:?}");
}

#[test]
fn batch_norm_training_backward() {
    let ctx = infer(&op(
        "BatchNormTrainingBackward",
        &[
            ("epsilon", "f32", "1e-5"),
            ("data_format", "string", &attr_s("NCX")),
        ],
        &[
            t(0, &[8, 16, 5, 5]),
            t(1, &[8, 16, 5, 5]),
            t(2, &[16]),
            t(3, &[16]),
            t(4, &[16]),
        ],
        &[u(5), u(6), u(7)],
    ));
    assert_eq!(shape(&ctx, 5), "[8, 16, 5, 5]");
    assert_eq!(shape(&ctx, 6), "[16]");
    assert_eq!(shape(&ctx, 7), "[16]");
    // oneDNN's shape inference takes rank 4 or more.
    let (e, _) = error(&op(
        "BatchNormTrainingBackward",
        &[("epsilon", "f32", "1e-5")],
        &[
            t(0, &[8, 5, 16]),
            t(1, &[8, 5, 16]),
            t(2, &[16]),
            t(3, &[16]),
        ],
        &[u(5)],
    ));
    assert!(matches!(e, OpError::Rank { found: 3, .. }), "{e:?}");
}

#[test]
fn dropout() {
    let ctx = infer(&op(
        "Dropout",
        &[],
        &[
            t(0, &[3, 4]),
            lt(1, "s64", Some(&[1])),
            lt(2, "s64", Some(&[1])),
            t(3, &[1]),
        ],
        &[u(4), lt(5, "u8", None)],
    ));
    assert_eq!(shape(&ctx, 4), "[3, 4]");
    assert_eq!(shape(&ctx, 5), "[3, 4]");
    assert_eq!(ctx.get("5").unwrap().dtype, DType::Uint8);
    let (e, _) = error(&op("Dropout", &[], &[t(0, &[3, 4])], &[u(4)]));
    assert!(matches!(e, OpError::InputCount { found: 1, .. }), "{e:?}");
}

// ---------------------------------------------------------------------------------
// Pool and interpolate backward
// ---------------------------------------------------------------------------------

fn pool_attrs(
    extra: &[(&'static str, &'static str, &'static str)],
) -> Vec<(&'static str, &'static str, &'static str)> {
    let mut a = vec![
        ("kernel", "s64[]", "[2, 2]"),
        ("strides", "s64[]", "[2, 2]"),
        ("pads_begin", "s64[]", "[0, 0]"),
        ("pads_end", "s64[]", "[0, 0]"),
        ("data_format", "string", "\"NCX\""),
    ];
    a.extend_from_slice(extra);
    a
}

#[test]
fn max_pool_backward() {
    let bwd = |diff_dst: &[i64]| {
        let ins = [t(0, &[1, 3, 8, 8]), t(1, diff_dst)];
        op("MaxPoolBackward", &pool_attrs(&[]), &ins, &[u(2)])
    };
    infers(&bwd(&[1, 3, 4, 4]), 2, "[1, 3, 8, 8]");
    mismatch(&bwd(&[1, 4, 4, 4]), "channels of src and diff_dst: 3 != 4");
    // The kernel must fit the padded src, as the forward pool needed.
    let (_, d) = error(&op(
        "MaxPoolBackward",
        &[
            ("kernel", "s64[]", "[3, 3]"),
            ("strides", "s64[]", "[1, 1]"),
        ],
        &[t(0, &[1, 2, 2, 3]), t(1, &[1, 1, 1, 3])],
        &[u(2)],
    ));
    assert!(d.contains("larger than the data after padding 2"), "{d}");
    let (e, _) = error(&op(
        "MaxPoolBackward",
        &[("strides", "s64[]", "[1, 1]")],
        &[t(0, &[1, 4, 4, 3]), t(1, &[1, 4, 4, 3])],
        &[u(2)],
    ));
    assert_eq!(e, OpError::MissingAttribute { name: "kernel" });
}

#[test]
fn avg_pool_backward() {
    let bwd = |src_shape: &'static str| {
        let attrs = pool_attrs(&[
            ("exclude_pad", "bool", "0"),
            ("src_shape", "s64[]", src_shape),
        ]);
        op("AvgPoolBackward", &attrs, &[t(0, &[1, 3, 4, 4])], &[u(2)])
    };
    infers(&bwd("[1, 3, 8, 8]"), 2, "[1, 3, 8, 8]");
    // No src_shape: the batch and channels of diff_dst, fresh spatial dims.
    let m = model(
        &op(
            "AvgPoolBackward",
            &[
                ("kernel", "s64[]", "[2, 2]"),
                ("strides", "s64[]", "[2, 2]"),
                ("exclude_pad", "bool", "0"),
            ],
            &[t(0, &[1, 4, 4, 3])],
            &[u(2)],
        ),
        &[],
    );
    let ctx = symdim::infer(&m, &Facts::default()).into_context();
    let s = ctx.get("2").unwrap().shape.clone().unwrap();
    assert_eq!(s.len(), 4);
    assert_eq!(ctx.alg.as_i64(s[0]), Some(1));
    assert_eq!(ctx.alg.as_i64(s[3]), Some(3));
    assert_eq!(ctx.alg.as_i64(s[1]), None);
    mismatch(
        &bwd("[1, 5, 8, 8]"),
        "channels of diff_dst and src_shape: 3 != 5",
    );
    bad_attribute(&bwd("[1, -3, 8, 8]"), "src_shape", "");
}

#[test]
fn interpolate_backward() {
    let bwd = |diff_dst: &[i64]| {
        let attrs = [
            ("mode", "string", "\"nearest\""),
            ("sizes", "s64[]", "[8, 8]"),
            ("data_format", "string", "\"NCX\""),
        ];
        let ins = [t(0, &[1, 3, 4, 4]), t(1, diff_dst)];
        op("InterpolateBackward", &attrs, &ins, &[u(2)])
    };
    infers(&bwd(&[1, 3, 8, 8]), 2, "[1, 3, 4, 4]");
    mismatch(
        &bwd(&[1, 3, 8, 9]),
        "spatial axis 1 of the interpolated src and diff_dst: 8 != 9",
    );
}

// ---------------------------------------------------------------------------------
// ConvTranspose and the convolution backward ops
// ---------------------------------------------------------------------------------

fn conv_attrs(strides: &'static str, pads: &'static str, extra: &[Attr]) -> Vec<Attr> {
    let mut a = vec![
        ("strides", "s64[]", strides),
        ("pads_begin", "s64[]", pads),
        ("pads_end", "s64[]", pads),
        ("dilations", "s64[]", "[1, 1]"),
    ];
    a.extend_from_slice(extra);
    a
}

/// [`conv_attrs`] of the backward tests: stride 2, pads 1, groups 2, `NCX`, then
/// `extra`.
fn conv_ncx(extra: &[Attr]) -> Vec<Attr> {
    let ncx = [("groups", "s64", "2"), ("data_format", "string", "\"NCX\"")];
    conv_attrs("[2, 2]", "[1, 1]", &[&ncx[..], extra].concat())
}

/// A ConvTranspose of stride 1 without pads (`NXC` and `XOI` unless `extra` says
/// otherwise) with output 3.
fn conv_transpose_s1(extra: &[Attr], ins: &[String]) -> String {
    op(
        "ConvTranspose",
        &conv_attrs("[1, 1]", "[0, 0]", extra),
        ins,
        &[u(3)],
    )
}

#[test]
fn conv_transpose() {
    // NCX, IOX weights [I = 8, O/groups = 4, 3, 3], groups 2: 8 output channels;
    // each spatial dim 2*(5 - 1) + 3 + 1 - 1 - 1 = 10.
    let ncx = |ins: &[String]| {
        let attrs = conv_ncx(&[
            ("weights_format", "string", "\"IOX\""),
            ("output_padding", "s64[]", "[1, 1]"),
        ]);
        op("ConvTranspose", &attrs, ins, &[u(3)])
    };
    let (x, w) = (t(0, &[1, 8, 5, 5]), t(1, &[8, 4, 3, 3]));
    infers(
        &ncx(&[x.clone(), w.clone(), t(2, &[8])]),
        3,
        "[1, 8, 10, 10]",
    );
    // Symbolic: 2*(H - 1) + 3 + 1 - 2 = 2*H.
    let ctx = infer_sym(&ncx(&[x, w]), &["0:0=N", "0:2=H"]);
    assert_eq!(shape(&ctx, 3), "[N, 8, 2*H, 10]");
    // NXC and XOI (the defaults): [k, k, O, I].
    let ins = [t(0, &[1, 5, 5, 8]), t(1, &[3, 3, 16, 8])];
    infers(&conv_transpose_s1(&[], &ins), 3, "[1, 7, 7, 16]");
    // SAME pads total max(ek - s, 0): kernel 3, stride 2 gives s*in; kernel 1,
    // stride 2 gives s*(in - 1) + 1.
    let same = |k: i64| {
        op(
            "ConvTranspose",
            &conv_attrs(
                "[2, 2]",
                "[0, 0]",
                &[("auto_pad", "string", "\"SAME_UPPER\"")],
            ),
            &[t(0, &[1, 5, 5, 8]), t(1, &[k, k, 4, 8])],
            &[u(3)],
        )
    };
    assert_eq!(shape(&infer(&same(3)), 3), "[1, 10, 10, 4]");
    assert_eq!(shape(&infer(&same(1)), 3), "[1, 9, 9, 4]");
    // A symbolic kernel keeps the max.
    let ctx = infer_sym(&same(1), &["1:0=K"]);
    assert_eq!(shape(&ctx, 3), "[1, K - max(0, K - 2) + 8, 9, 4]");
}

#[test]
fn conv_transpose_errors() {
    let x = || t(0, &[1, 5, 5, 8]);
    let oix = [("weights_format", "string", "\"OIX\"")];
    bad_attribute(
        &conv_transpose_s1(&oix, &[x(), t(1, &[8, 8, 3, 3])]),
        "weights_format",
        "expected IOX or XOI",
    );
    mismatch(
        &conv_transpose_s1(&[], &[x(), t(1, &[3, 3, 16, 6])]),
        "input channels: src C and weights I: 8 != 6",
    );
    let groups = [("groups", "s64", "3")];
    let (e, _) = error(&conv_transpose_s1(&groups, &[x(), t(1, &[3, 3, 4, 8])]));
    assert!(matches!(e, OpError::BadShapeValue { .. }), "{e:?}");
    let ins = [x(), t(1, &[3, 3, 16, 8]), t(2, &[8])];
    mismatch(&conv_transpose_s1(&[], &ins), "");
    let (e, _) = error(&op(
        "ConvTranspose",
        &conv_attrs("[0, 1]", "[0, 0]", &[]),
        &[t(0, &[1, 5, 5, 8]), t(1, &[3, 3, 16, 8])],
        &[u(3)],
    ));
    assert!(matches!(e, OpError::BadShapeValue { .. }), "{e:?}");
}

#[test]
fn conv_transpose_backward_data() {
    // The convolution of diff_dst [1, 8, 10, 10] by IOX [8, 4, 3, 3], groups 2,
    // stride 2, pads 1: floor((10 + 2 - 3) / 2) + 1 = 5; I = 8 channels.
    let bwd = |diff_dst: &[i64]| {
        let attrs = conv_ncx(&[("weights_format", "string", "\"IOX\"")]);
        let ins = [t(0, diff_dst), t(1, &[8, 4, 3, 3])];
        op("ConvTransposeBackwardData", &attrs, &ins, &[u(2)])
    };
    infers(&bwd(&[1, 8, 10, 10]), 2, "[1, 8, 5, 5]");
    mismatch(
        &bwd(&[1, 6, 10, 10]),
        "output channels: diff_dst C and groups * weights O: 6 != 8",
    );
}

#[test]
fn conv_backward_data() {
    let oix = ("weights_format", "string", "\"OIX\"");
    let bwd = |extra: &[Attr]| {
        let attrs = conv_ncx(&[&[oix], extra].concat());
        let ins = [t(0, &[1, 16, 8, 8]), t(1, &[16, 4, 3, 3])];
        op("ConvolutionBackwardData", &attrs, &ins, &[u(2)])
    };
    // dst_shape given: the convolution of 15 is floor((15 + 2 - 3) / 2) + 1 = 8.
    let dst_shape = |v| ("dst_shape", "s64[]", v);
    infers(&bwd(&[dst_shape("[1, 8, 15, 15]")]), 2, "[1, 8, 15, 15]");
    // Without it: the transposed window, 2*(8 - 1) + 3 - 2 = 15, plus output_padding.
    infers(&bwd(&[]), 2, "[1, 8, 15, 15]");
    // A dst_shape of DNNL_MAX_NDIMS zeros is the schema's default: not given.
    let zeros = dst_shape("[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]");
    infers(&bwd(&[zeros]), 2, "[1, 8, 15, 15]");
    // oneDNN reads the first entries of a longer output_padding.
    let output_padding = |v| ("output_padding", "s64[]", v);
    let long = output_padding("[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]");
    infers(&bwd(&[long]), 2, "[1, 8, 16, 15]");
    infers(&bwd(&[output_padding("[1, 0]")]), 2, "[1, 8, 16, 15]");
    // XIO (the default) and NXC.
    let xio = op(
        "ConvolutionBackwardData",
        &conv_attrs("[1, 1]", "[0, 0]", &[]),
        &[t(0, &[2, 6, 6, 16]), t(1, &[3, 3, 4, 16])],
        &[u(2)],
    );
    infers(&xio, 2, "[2, 8, 8, 4]");
    mismatch(
        &bwd(&[dst_shape("[1, 8, 20, 20]")]),
        "spatial axis 0 of the convolved dst_shape and diff_dst: 10 != 8",
    );
    mismatch(
        &bwd(&[dst_shape("[1, 6, 15, 15]")]),
        "input channels: dst_shape C and groups * weights I: 6 != 8",
    );
}

/// The weights gradient inferred without `weights_shape`: each dim's constant,
/// `None` for a fresh one.
fn fresh_weights(op: &str) -> Vec<Option<i64>> {
    let ctx = symdim::infer(&model(op, &[]), &Facts::default()).into_context();
    let s = ctx.get("2").unwrap().shape.clone().unwrap();
    s.iter().map(|d| ctx.alg.as_i64(*d)).collect()
}

#[test]
fn conv_backward_weights() {
    let bwd = |extra: &[Attr]| {
        let ins = [t(0, &[1, 8, 15, 15]), t(1, &[1, 16, 8, 8])];
        op(
            "ConvolutionBackwardWeights",
            &conv_ncx(extra),
            &ins,
            &[u(2)],
        )
    };
    let oix = ("weights_format", "string", "\"OIX\"");
    let weights_shape = |v| ("weights_shape", "s64[]", v);
    let oix_shape = |v| bwd(&[oix, weights_shape(v)]);
    infers(&oix_shape("[16, 4, 3, 3]"), 2, "[16, 4, 3, 3]");
    infers(&bwd(&[weights_shape("[3, 3, 4, 16]")]), 2, "[3, 3, 4, 16]");
    // Without weights_shape: O, C / groups and a fresh kernel (XIO: [k, k, I, O]).
    assert_eq!(
        fresh_weights(&bwd(&[])),
        vec![None, None, Some(4), Some(16)]
    );
    mismatch(
        &oix_shape("[16, 4, 5, 5]"),
        "spatial axis 0 of src convolved by weights_shape and diff_dst: 7 != 8",
    );
    mismatch(
        &oix_shape("[16, 8, 3, 3]"),
        "input channels: src C and groups * weights I: 8 != 16",
    );
}

#[test]
fn conv_transpose_backward_weights() {
    let bwd = |extra: &[Attr]| {
        let attrs = conv_ncx(&[&[("weights_format", "string", "\"IOX\"")], extra].concat());
        let ins = [t(0, &[1, 8, 5, 5]), t(1, &[1, 8, 10, 10])];
        op("ConvTransposeBackwardWeights", &attrs, &ins, &[u(2)])
    };
    let weights_shape = |v| bwd(&[("weights_shape", "s64[]", v)]);
    infers(&weights_shape("[8, 4, 3, 3]"), 2, "[8, 4, 3, 3]");
    // Without weights_shape: [I, O / groups, fresh kernel].
    assert_eq!(fresh_weights(&bwd(&[])), vec![Some(8), Some(4), None, None]);
    mismatch(
        &weights_shape("[8, 3, 3, 3]"),
        "output channels: diff_dst C and groups * weights O: 8 != 6",
    );
}

#[test]
fn convolution_bias_is_checked() {
    mismatch(
        &op(
            "Convolution",
            &conv_attrs("[1, 1]", "[0, 0]", &[]),
            &[t(0, &[1, 5, 5, 8]), t(1, &[3, 3, 8, 16]), t(2, &[8])],
            &[u(3)],
        ),
        "length of bias: 8 != 16",
    );
}

// ---------------------------------------------------------------------------------
// Wildcard
// ---------------------------------------------------------------------------------

#[test]
fn wildcard_outputs_keep_their_declared_shapes() {
    let ctx = infer(&op(
        "Wildcard",
        &[],
        &[t(0, &[2, 3])],
        &[lt(1, "bf16", Some(&[5, 6])), u(2)],
    ));
    assert_eq!(shape(&ctx, 1), "[5, 6]");
    assert_eq!(ctx.get("1").unwrap().dtype, DType::Bfloat16);
    assert_eq!(shape(&ctx, 2), "unknown");
    // No inputs at all.
    infers(&op("Wildcard", &[], &[], &[t(1, &[4])]), 1, "[4]");
}

// ---------------------------------------------------------------------------------
// Files without attrs or ports
// ---------------------------------------------------------------------------------

#[test]
fn files_without_attrs_or_ports_infer() {
    // oneDNN's reader leaves an op's `attrs` and the graph's ports optional.
    let text = format!(
        r#"{{"version": "3.11.0", "engine_kind": "cpu", "fpmath_mode": "strict",
            "graph": [
              {{"id": 0, "name": "relu", "kind": "ReLU", "inputs": [{}], "outputs": [{}]}},
              {{"id": 1, "name": "bwd", "kind": "ReLUBackward", "inputs": [{}, {}], "outputs": [{}]}}
            ]}}"#,
        t(0, &[2, 3]),
        u(1),
        u(1),
        t(2, &[2, 3]),
        u(3)
    );
    let dir = std::env::temp_dir().join(format!("symdim-onednn-noattrs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("g.json");
    std::fs::write(&path, &text).unwrap();
    let m = symdim::read::load::load(&path).expect("a file without attrs or ports");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(m.graph.nodes.iter().all(|n| n.attrs.is_empty()));
    let ctx = symdim::infer(&m, &Facts::default()).into_context();
    assert!(ctx.diagnostics.is_empty(), "{:?}", ctx.diagnostics);
    assert_eq!(shape(&ctx, 1), "[2, 3]");
    assert_eq!(shape(&ctx, 3), "[2, 3]");
}

// ---------------------------------------------------------------------------------
// The error messages, as a snapshot
// ---------------------------------------------------------------------------------

#[test]
fn error_messages() {
    let cases = [
        op(
            "ReLUBackward",
            &[],
            &[t(0, &[2, 3]), t(1, &[2, 4])],
            &[u(2)],
        ),
        op("BiasAddBackward", &[], &[t(0, &[2, 16])], &[u(1)]),
        op(
            "LayerNormBackward",
            &[],
            &[t(0, &[2, 7]), t(1, &[2, 7]), t(2, &[2]), t(3, &[2])],
            &[u(6)],
        ),
        op(
            "BatchNormForwardTraining",
            &[("epsilon", "f32", "1e-5")],
            &[t(0, &[8, 5, 5, 16]), t(1, &[15]), t(2, &[16])],
            &[u(5), u(6), u(7), u(8), u(9)],
        ),
        op("RMSNorm", &[], &[t(0, &[2, 7, 64]), t(1, &[32])], &[u(2)]),
        conv_transpose_s1(
            &[("weights_format", "string", "\"OIX\"")],
            &[t(0, &[1, 5, 5, 8]), t(1, &[8, 8, 3, 3])],
        ),
        conv_transpose_s1(
            &[("groups", "s64", "3")],
            &[t(0, &[1, 5, 5, 8]), t(1, &[3, 3, 4, 8])],
        ),
        op(
            "ConvolutionBackwardData",
            &conv_attrs(
                "[2, 2]",
                "[1, 1]",
                &[
                    ("data_format", "string", "\"NCX\""),
                    ("weights_format", "string", "\"OIX\""),
                    ("dst_shape", "s64[]", "[1, 8, 20]"),
                ],
            ),
            &[t(0, &[1, 16, 8, 8]), t(1, &[16, 8, 3, 3])],
            &[u(2)],
        ),
        op(
            "AvgPoolBackward",
            &pool_attrs(&[("src_shape", "s64[]", "[1, -3, 8, 8]")]),
            &[t(0, &[1, 3, 4, 4])],
            &[u(2)],
        ),
        op(
            "MaxPoolBackward",
            &pool_attrs(&[]),
            &[t(0, &[1, 3, 8, 8]), t(1, &[1, 3, 4])],
            &[u(2)],
        ),
        op("Dropout", &[], &[t(0, &[3, 4])], &[u(4)]),
    ];
    let text: Vec<String> = cases.iter().map(|c| error(c).1).collect();
    common::snapshots().bind(|| insta::assert_snapshot!("onednn_training_errors", text.join("\n")));
}

// ---------------------------------------------------------------------------------
// benchdnn's one-op graphs
// ---------------------------------------------------------------------------------

/// benchdnn's one-op graphs of the new kinds (`tests/fixtures/onednn/benchdnn_op/`):
/// with every produced tensor's shape blanked to `[INT64_MIN]`, the rules re-infer
/// each recorded shape, with no diagnostic.
#[test]
fn benchdnn_op_graphs_reinfer_their_shapes() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/onednn/benchdnn_op");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 26);
    let mut kinds = std::collections::BTreeSet::new();
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let mut doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        // The recorded shapes of the produced tensors, then blanked.
        let mut recorded = Vec::new();
        for op in doc["graph"].as_array_mut().unwrap() {
            kinds.insert(op["kind"].as_str().unwrap().to_string());
            for out in op["outputs"].as_array_mut().unwrap() {
                let dims: Vec<i64> = out["shape"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| d.as_i64().unwrap())
                    .collect();
                recorded.push((out["id"].as_u64().unwrap(), dims));
                out["shape"] = serde_json::json!([i64::MIN]);
                out["stride"] = serde_json::json!([i64::MIN]);
            }
        }
        let g = OnednnGraph::parse(&doc.to_string()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let m = to_model(&g, &name, &ConvertOptions::default()).unwrap();
        let ctx = symdim::infer(&m, &Facts::default()).into_context();
        let d: Vec<String> = ctx.diagnostics.iter().map(|d| d.to_string()).collect();
        assert!(d.is_empty(), "{name}: {d:#?}");
        for (id, dims) in recorded {
            assert_eq!(shape(&ctx, id), format!("{dims:?}"), "{name}: tensor {id}");
        }
    }
    assert_eq!(kinds.len(), 21, "{kinds:?}");
}
