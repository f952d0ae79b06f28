//! Rules the op probes found wrong or missing, each pinned to its spec: ONNX
//! Upsample-1's `height_scale`/`width_scale`, OpenVINO ConvolutionBackpropData-1
//! with an `auto_pad` and no `output_shape`, OpenVINO Tile-1 with repeats of unknown
//! contents but known length, and ONNX Dequantize/QuantizeLinear with a one-element
//! scale (what `quantize_static` writes). (Loop with a condition that stays true is
//! in `control_flow.rs`; the oneDNN reader's optional `attrs` in
//! `onednn_reader.rs`.)

mod ops_support;

use ops_support::put;
use symdim::context::{OpError, ShapesContext};
use symdim::graph::{Attr, DType, Node};

fn node(domain: &str, op: &str, version: i64, inputs: &[&str], attrs: Vec<(&str, Attr)>) -> Node {
    Node {
        name: format!("{op}_0"),
        op_type: op.into(),
        domain: domain.to_string(),
        version,
        inputs: inputs.iter().map(|s| (*s).into()).collect(),
        outputs: vec!["y".into()],
        attrs: attrs.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
    }
}

/// The rendered shape of `n`'s first output.
fn apply(ctx: &mut ShapesContext, n: &Node) -> Result<String, OpError> {
    let f = ops_support::apply(ctx, n)?;
    Ok(match &f[0].shape {
        Some(s) => ctx.render_dims(s),
        None => "unknown rank".to_string(),
    })
}

fn ints(v: &[i64]) -> Attr {
    Attr::Ints(v.to_vec())
}

#[test]
fn upsample_1_reads_height_and_width_scales() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", DType::Float, &["N", "C", "H", "W"], None);
    let scales = |h: f64, w: f64| {
        vec![
            ("height_scale", Attr::Float(h)),
            ("width_scale", Attr::Float(w)),
            ("mode", Attr::Str("nearest".into())),
        ]
    };
    // output_height = floor(H * height_scale), output_width = floor(W * width_scale)
    let n = node("", "Upsample", 1, &["x"], scales(2.0, 3.0));
    assert_eq!(apply(&mut ctx, &n).unwrap(), "[N, C, 2*H, 3*W]");
    let n = node("", "Upsample", 6, &["x"], scales(1.5, 0.5));
    assert_eq!(
        apply(&mut ctx, &n).unwrap(),
        "[N, C, floordiv(3*H, 2), floordiv(W, 2)]"
    );
    // both attributes are required, positive, and X is 4-D
    let n = node(
        "",
        "Upsample",
        1,
        &["x"],
        vec![("height_scale", Attr::Float(2.0))],
    );
    assert!(matches!(
        apply(&mut ctx, &n),
        Err(OpError::MissingAttribute {
            name: "width_scale"
        })
    ));
    let n = node("", "Upsample", 1, &["x"], scales(0.0, 2.0));
    assert!(matches!(
        apply(&mut ctx, &n),
        Err(OpError::BadAttribute {
            name: "height_scale",
            ..
        })
    ));
    put(&mut ctx, "x3", DType::Float, &["N", "C", "W"], None);
    let n = node("", "Upsample", 1, &["x3"], scales(2.0, 2.0));
    assert!(matches!(apply(&mut ctx, &n), Err(OpError::Rank { .. })));
    // from opset 7 on, the `scales` attribute
    let n = node(
        "",
        "Upsample",
        7,
        &["x"],
        vec![("scales", Attr::Floats(vec![1.0, 1.0, 2.0, 2.0]))],
    );
    assert_eq!(apply(&mut ctx, &n).unwrap(), "[N, C, 2*H, 2*W]");
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
        let n = node(
            "openvino",
            "ConvolutionBackpropData",
            1,
            &["x", "w"],
            attrs(pad),
        );
        assert_eq!(apply(&mut ctx, &n).unwrap(), "[2, 8, 20, 21]", "{pad}");
        let n = node(
            "openvino",
            "ConvolutionBackpropData",
            1,
            &["xs", "w"],
            attrs(pad),
        );
        assert_eq!(
            apply(&mut ctx, &n).unwrap(),
            "[N, 8, 2*H + 2, 2*W + 1]",
            "{pad}"
        );
    }
    let n = node(
        "openvino",
        "ConvolutionBackpropData",
        1,
        &["x", "w"],
        attrs("explicit"),
    );
    assert_eq!(apply(&mut ctx, &n).unwrap(), "[2, 8, 18, 19]");
    // the group form: filters [G, C/G, O/G, k...]
    put(
        &mut ctx,
        "gw",
        DType::Float,
        &["2", "2", "3", "3", "3"],
        None,
    );
    let n = node(
        "openvino",
        "GroupConvolutionBackpropData",
        1,
        &["x", "gw"],
        attrs("same_upper"),
    );
    assert_eq!(apply(&mut ctx, &n).unwrap(), "[2, 6, 20, 21]");
}

#[test]
fn openvino_tile_with_repeats_of_known_length() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", DType::Float, &["A", "B"], None);
    // repeats computed at run time, of length 3: rank 3, every repeated axis fresh
    put(&mut ctx, "r3", DType::Int64, &["3"], None);
    let n = node("openvino", "Tile", 1, &["x", "r3"], vec![]);
    let s = apply(&mut ctx, &n).unwrap();
    assert_eq!(s.matches("unk").count(), 3, "{s}");
    // of length 1 on a rank-2 input: the first axis is not repeated
    put(&mut ctx, "r1", DType::Int64, &["1"], None);
    let n = node("openvino", "Tile", 1, &["x", "r1"], vec![]);
    let s = apply(&mut ctx, &n).unwrap();
    assert!(s.starts_with("[A, unk"), "{s}");
    // known repeats still multiply
    put(&mut ctx, "rk", DType::Int64, &["1"], Some(&["3"]));
    let n = node("openvino", "Tile", 1, &["x", "rk"], vec![]);
    assert_eq!(apply(&mut ctx, &n).unwrap(), "[A, 3*B]");
    // a length not known: unknown rank
    put(&mut ctx, "rn", DType::Int64, &["K"], None);
    let n = node("openvino", "Tile", 1, &["x", "rn"], vec![]);
    assert_eq!(apply(&mut ctx, &n).unwrap(), "unknown rank");
}

#[test]
fn dequantize_with_a_one_element_scale_is_per_tensor() {
    // What quantize_static writes for a bias: x [64], scale [1], zero point [],
    // the default axis 1 out of range for x; onnxruntime reads a one-element scale
    // as per tensor and runs it.
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "x", DType::Int8, &["64"], None);
    put(&mut ctx, "s", DType::Float, &["1"], None);
    put(&mut ctx, "z", DType::Int8, &[], None);
    put(&mut ctx, "z2", DType::Int8, &["2"], None);
    for v in [10, 13, 19, 21] {
        let n = node("", "DequantizeLinear", v, &["x", "s", "z"], vec![]);
        assert_eq!(apply(&mut ctx, &n).unwrap(), "[64]", "opset {v}");
        let n = node("", "QuantizeLinear", v, &["x", "s", "z"], vec![]);
        assert_eq!(apply(&mut ctx, &n).unwrap(), "[64]", "opset {v}");
    }
    // the zero point must be per tensor too
    let n = node("", "DequantizeLinear", 13, &["x", "s", "z2"], vec![]);
    assert!(matches!(apply(&mut ctx, &n), Err(OpError::Rank { .. })));
    // a per-axis scale still needs its axis
    put(&mut ctx, "s64", DType::Float, &["64"], None);
    let n = node("", "DequantizeLinear", 13, &["x", "s64"], vec![]);
    assert!(matches!(
        apply(&mut ctx, &n),
        Err(OpError::AxisOutOfRange { .. })
    ));
    let n = node(
        "",
        "DequantizeLinear",
        13,
        &["x", "s64"],
        vec![("axis", Attr::Int(0))],
    );
    assert_eq!(apply(&mut ctx, &n).unwrap(), "[64]");
}
