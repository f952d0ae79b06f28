//! `symdim cost` on small hand-built models: every expected figure is derived by
//! hand from the op's spec (numpy matmul, the Conv and ConvTranspose output
//! formulas, the Attention and LSTM definitions) and from the liveness of
//! `docs/cost.md`, written out in each test's comment.

use crate::common::models::{model, Builder};
use symdim::analyses::cost::{Cost, CostRequest};
use symdim::contracts::ranges::UserRange;
use symdim::graph::{Attr, DType, ValueDecl};
use symdim::Facts;

/// The cost of `m` with graph outputs `outputs`, under `request`.
fn cost_of(b: Builder, outputs: &[&str], request: &CostRequest) -> Cost {
    let mut m = b.build();
    for o in outputs {
        m.graph.outputs.push(ValueDecl {
            name: (*o).into(),
            dtype: DType::Undefined,
            shape: None,
        });
    }
    symdim::infer(&m, &Facts::default()).cost(request).unwrap()
}

fn cost(b: Builder, outputs: &[&str]) -> Cost {
    cost_of(b, outputs, &CostRequest::default())
}

/// The MACs and FLOPs of node `name`, as text.
fn node(c: &Cost, name: &str) -> (String, String) {
    let n = c.nodes.iter().find(|n| n.node == name).unwrap();
    let t = |f: &Option<symdim::analyses::cost::Figure>| {
        f.as_ref()
            .map_or("null".to_string(), |f| f.expr.to_string())
    };
    (t(&n.macs), t(&n.flops))
}

fn f32s(b: Builder, name: &str, dims: &[&str]) -> Builder {
    b.input(name, DType::Float, Some(dims))
}

#[test]
fn matmul_broadcasts_batch_dims() {
    // numpy.matmul: [B, 1, 3, 5] @ [4, 5, 6]: batch broadcast(B,1 ; 4) = [B, 4],
    // M = 3, N = 6, K = 5: MACs B*4*3*6*5 = 360*B, FLOPs 720*B.
    let b = f32s(model(17), "a", &["B", "1", "3", "5"]);
    let b = f32s(b, "w", &["4", "5", "6"]).node("MatMul", &["a", "w"], &["y"], vec![]);
    let c = cost(b, &["y"]);
    assert_eq!(node(&c, "MatMul_0"), ("360*B".into(), "720*B".into()));
}

#[test]
fn matmul_promotes_1d_operands() {
    // [5] @ [5, 7]: A is [1, 5], M = 1, N = 7, K = 5: 35 MACs.
    let b = f32s(model(17), "a", &["5"]);
    let b = f32s(b, "w", &["5", "7"]).node("MatMul", &["a", "w"], &["y"], vec![]);
    assert_eq!(node(&cost(b, &["y"]), "MatMul_0").0, "35");
    // [N, 3, 5] @ [5]: B is [5, 1], batch N, M = 3, N' = 1, K = 5: 15*N MACs.
    let b = f32s(model(17), "a", &["N", "3", "5"]);
    let b = f32s(b, "v", &["5"]).node("MatMul", &["a", "v"], &["y"], vec![]);
    assert_eq!(node(&cost(b, &["y"]), "MatMul_0").0, "15*N");
}

#[test]
fn gemm_counts_m_n_k_and_the_bias() {
    // transA: A is [K=4, M], B [4, 6], C [6]: MACs M*6*4 = 24*M; FLOPs 2*24*M plus
    // the bias add of every output element, M*6: 54*M.
    let b = f32s(model(17), "a", &["4", "M"]);
    let b = f32s(b, "w", &["4", "6"]);
    let b = f32s(b, "c", &["6"]).node(
        "Gemm",
        &["a", "w", "c"],
        &["y"],
        vec![("transA", Attr::Int(1))],
    );
    assert_eq!(
        node(&cost(b, &["y"]), "Gemm_0"),
        ("24*M".into(), "54*M".into())
    );
}

#[test]
fn conv_counts_output_times_input_channels_per_group_times_kernel() {
    // X [N, 4, H, W], W [8, 2, 3, 3], group 2, pads 1: Y [N, 8, H, W]. MACs
    // N * C_out(8) * H * W * C_in/group(2) * 3*3 = 144*N*H*W (no bias: FLOPs 288).
    let b = f32s(model(17), "x", &["N", "4", "H", "W"]);
    let b = f32s(b, "w", &["8", "2", "3", "3"]).node(
        "Conv",
        &["x", "w"],
        &["y"],
        vec![
            ("group", Attr::Int(2)),
            ("pads", Attr::Ints(vec![1, 1, 1, 1])),
        ],
    );
    let c = cost(b, &["y"]);
    assert_eq!(node(&c, "Conv_0"), ("144*H*N*W".into(), "288*H*N*W".into()));
}

#[test]
fn conv_transpose_counts_input_times_output_channels_per_group_times_kernel() {
    // X [N, 4, H, W], W [4, 3, 2, 2] (C_in, C_out/group, k), stride 2: MACs
    // N * C_in(4) * H * W * C_out/group(3) * 2*2 = 48*N*H*W.
    let b = f32s(model(17), "x", &["N", "4", "H", "W"]);
    let b = f32s(b, "w", &["4", "3", "2", "2"]).node(
        "ConvTranspose",
        &["x", "w"],
        &["y"],
        vec![("strides", Attr::Ints(vec![2, 2]))],
    );
    assert_eq!(node(&cost(b, &["y"]), "ConvTranspose_0").0, "48*H*N*W");
}

#[test]
fn einsum_counts_output_times_contracted_labels() {
    // bij,bjk->bik over [B, 3, 4] and [B, 4, 5]: vol(Y) = 15*B, j = 4: 60*B.
    let b = f32s(model(17), "a", &["B", "3", "4"]);
    let b = f32s(b, "c", &["B", "4", "5"]).node(
        "Einsum",
        &["a", "c"],
        &["y"],
        vec![("equation", Attr::Str("bij,bjk->bik".into()))],
    );
    assert_eq!(node(&cost(b, &["y"]), "Einsum_0").0, "60*B");
}

#[test]
fn attention_counts_both_products_and_the_softmax() {
    // Q [B, 2, L, 8], K [B, 2, S, 8], V [B, 2, S, 4]: QK^T B*2*L*S*8, PV B*2*L*S*4:
    // MACs 24*B*L*S; FLOPs 48*B*L*S + 5 * (B*2*L*S scores) = 58*B*L*S.
    let b = f32s(model(23), "q", &["B", "2", "L", "8"]);
    let b = f32s(b, "k", &["B", "2", "S", "8"]);
    let b = f32s(b, "v", &["B", "2", "S", "4"]).node("Attention", &["q", "k", "v"], &["y"], vec![]);
    let c = cost(b, &["y"]);
    assert_eq!(
        node(&c, "Attention_0"),
        ("24*B*L*S".into(), "58*B*L*S".into())
    );
}

#[test]
fn lstm_counts_input_and_recurrent_weights_per_step() {
    // X [T, B, 3], W [1, 20, 3], R [1, 20, 5] (H = 5, 4 gates): per step and batch
    // row 20*3 + 20*5 = 160 MACs: 160*B*T. FLOPs 320*B*T + 17 per hidden unit and
    // step (1 direction, H = 5): 85*B*T, 405*B*T.
    let b = f32s(model(17), "x", &["T", "B", "3"]);
    let b = f32s(b, "w", &["1", "20", "3"]);
    let b = f32s(b, "r", &["1", "20", "5"]).node(
        "LSTM",
        &["x", "w", "r"],
        &["y"],
        vec![("hidden_size", Attr::Int(5))],
    );
    assert_eq!(
        node(&cost(b, &["y"]), "LSTM_0"),
        ("160*B*T".into(), "405*B*T".into())
    );
}

#[test]
fn tensor_bytes_pack_sub_byte_types_and_strings_are_not_sized() {
    // 4-bit elements: ceil(4*S / 8) bytes; a string has no size.
    let b = model(21)
        .input("q", DType::Int4, Some(&["S"]))
        .input("s", DType::String, Some(&["S"]))
        .node("Identity", &["q"], &["q2"], vec![])
        .node("Identity", &["s"], &["s2"], vec![]);
    let c = cost(b, &["q2", "s2"]);
    let q = &c.tensors["q"];
    assert_eq!(q.elements.as_ref().unwrap().expr.to_string(), "S");
    // The algebra writes ceildiv(4*S, 8) in its normal form; check the values.
    let bytes = &q.bytes.as_ref().unwrap().expr;
    for (s, want) in [(0, 0), (1, 1), (2, 1), (3, 2), (7, 4), (8, 4)] {
        let at = symdim::SymbolValues::new().with("S", s);
        assert_eq!(bytes.eval(&at).unwrap(), want, "S = {s}");
    }
    assert!(c.tensors["s"].bytes.is_none());
    // An activation without a size leaves the sums undefined.
    assert!(c.totals.activation_bytes.is_none());
    assert!(c.totals.peak_bytes.is_none());
    assert_eq!(c.totals.not_sized, ["s", "s2"]);
}

#[test]
fn peak_follows_the_liveness_and_drops_dominated_steps() {
    // x [S] f32; a = Relu(x); b = Relu(a); c = Add(a, b), the graph output.
    // Step 0 (Relu_0): x (last read here), a: 8*S. Step 1: a, b: 8*S. Step 2: a, b,
    // c: 12*S. Steps 0 and 1 are <= step 2 for every S: the peak is 12*S at Add_2.
    // Activations x, a, b, c: 16*S bytes.
    let b = f32s(model(17), "x", &["S"])
        .node("Relu", &["x"], &["a"], vec![])
        .node("Relu", &["a"], &["b"], vec![])
        .node("Add", &["a", "b"], &["c"], vec![]);
    let c = cost(b, &["c"]);
    let t = &c.totals;
    assert_eq!(
        t.activation_bytes.as_ref().unwrap().expr.to_string(),
        "16*S"
    );
    assert_eq!(t.peak_bytes.as_ref().unwrap().expr.to_string(), "12*S");
    let steps: Vec<(String, String)> = t
        .peak_steps
        .iter()
        .map(|s| (s.node.clone(), s.bytes.expr.to_string()))
        .collect();
    assert_eq!(steps, [("Add_2".to_string(), "12*S".to_string())]);
    // One FLOP per output element of each elementwise op: 3*S; no MACs.
    assert_eq!(t.flops.as_ref().unwrap().expr.to_string(), "3*S");
    assert_eq!(t.macs.as_ref().unwrap().expr.to_string(), "0");
}

#[test]
fn peak_keeps_steps_neither_dominates() {
    // x [S], y [T] f32; a = Relu(x) and b = Relu(y), both graph outputs. Step 0: x,
    // y (live from the start), a: 8*S + 4*T. Step 1: y, a, b (x died at step 0):
    // 4*S + 8*T. Neither is <= the other for every S, T: both are kept.
    let b = f32s(model(17), "x", &["S"]);
    let b = f32s(b, "y", &["T"])
        .node("Relu", &["x"], &["a"], vec![])
        .node("Relu", &["y"], &["b"], vec![]);
    let c = cost(b, &["a", "b"]);
    let steps: Vec<String> = c
        .totals
        .peak_steps
        .iter()
        .map(|s| s.bytes.expr.to_string())
        .collect();
    assert_eq!(steps, ["8*S + 4*T", "4*S + 8*T"]);
    // With S in 1..4 and T >= 8 (the box), step 1 is the larger: at S = 4 step 0
    // is 32 + 4*T <= 4*4 + 8*T once T >= 4.
    let r = CostRequest {
        binds: vec![("S".into(), 2), ("T".into(), 3)],
        ranges: vec![
            UserRange {
                name: "S".into(),
                lo: Some(1),
                hi: Some(4),
            },
            UserRange {
                name: "T".into(),
                lo: Some(8),
                hi: Some(10),
            },
        ],
    };
    let b = f32s(model(17), "x", &["S"]);
    let b = f32s(b, "y", &["T"])
        .node("Relu", &["x"], &["a"], vec![])
        .node("Relu", &["y"], &["b"], vec![]);
    let c = cost_of(b, &["a", "b"], &r);
    let steps: Vec<String> = c
        .totals
        .peak_steps
        .iter()
        .map(|s| s.bytes.expr.to_string())
        .collect();
    assert_eq!(steps, ["4*S + 8*T"]);
    let peak = c.totals.peak_bytes.as_ref().unwrap();
    // At S = 2, T = 3: 8 + 24 = 32; over the box the largest is 16 + 80 = 96.
    assert_eq!(peak.value.as_ref().unwrap().to_i64(), Some(32));
    assert_eq!(
        peak.max.as_ref().unwrap().as_ref().unwrap().to_i64(),
        Some(96)
    );
}

/// A Concat on axis 1 of `n` f32 inputs `x{i} [N, s{i}]`, each with its own
/// symbol: every input's bytes are one term `4*N*s{i}` of three nodes.
fn wide_concat(n: usize) -> Builder {
    let names: Vec<(String, String)> = (0..n).map(|i| (format!("x{i}"), format!("s{i}"))).collect();
    let mut b = model(17);
    for (x, s) in &names {
        b = f32s(b, x, &["N", s.as_str()]);
    }
    let inputs: Vec<&str> = names.iter().map(|(x, _)| x.as_str()).collect();
    b.node("Concat", &inputs, &["y"], vec![("axis", Attr::Int(1))])
}

#[test]
fn a_step_sum_past_the_form_limit_leaves_the_peak_unknown_with_a_note() {
    // 64 inputs: the one step holds every input and y, 4*N*s0 + ... + 4*N*s63
    // bytes of inputs and as many of y: 8*N*s0 + ... + 8*N*s63, 192 nodes, far
    // under the limit.
    let c = cost(wide_concat(64), &["y"]);
    let peak = c.totals.peak_bytes.as_ref().unwrap().expr.to_string();
    assert!(peak.starts_with("8*N*s0 + "), "{peak}");
    let terms: Vec<&str> = peak.split(" + ").collect();
    assert_eq!(terms.len(), 64, "{peak}");
    assert!(terms.contains(&"8*N*s63"), "{peak}");
    assert!(
        !c.notes.iter().any(|n| n.contains("form_nodes")),
        "{:?}",
        c.notes
    );
    // 6,000 inputs: the step sum has 6,000 terms of three nodes, 18,000 nodes,
    // past Limits::form_nodes (16,384): the peak is not known, and a note says why.
    let c = cost(wide_concat(6000), &["y"]);
    assert!(c.totals.peak_bytes.is_none());
    assert!(c.totals.peak_steps.is_empty());
    assert!(
        c.notes
            .iter()
            .any(|n| n.contains("grew past the form limit (Limits::form_nodes = 16384)")),
        "{:?}",
        c.notes
    );
}

#[test]
fn parameters_are_initializers_and_constants_apart_from_activations() {
    // W [3, 4] f32 (12 elements, 48 bytes) and a Constant of 2 int64 (16 bytes):
    // 14 parameters, 64 bytes. x [N, 3] @ W: 12*N MACs; activations x (12*N) and
    // y (16*N) only.
    let b = f32s(model(17), "x", &["N", "3"])
        .floats("w", &[3, 4], &[0.0; 12])
        .node("MatMul", &["x", "w"], &["y"], vec![]);
    let mut m = b.build();
    m.graph.nodes.push(symdim::graph::Node {
        name: "k".into(),
        op_type: "Constant".into(),
        domain: String::new(),
        version: 17,
        inputs: vec![],
        outputs: vec!["kv".into()],
        attrs: crate::common::models::attrs(vec![(
            "value",
            Attr::Tensor(symdim::graph::ConstTensor {
                dtype: DType::Int64,
                dims: vec![2],
                data: symdim::graph::ConstData::Ints(vec![1, 2]),
            }),
        )]),
    });
    m.graph.outputs.push(ValueDecl {
        name: "y".into(),
        dtype: DType::Undefined,
        shape: None,
    });
    let c = symdim::infer(&m, &Facts::default())
        .cost(&CostRequest::default())
        .unwrap();
    assert_eq!(
        c.totals.parameters.as_ref().and_then(|r| r.to_i64()),
        Some(14)
    );
    assert_eq!(
        c.totals.parameter_bytes.as_ref().and_then(|r| r.to_i64()),
        Some(64)
    );
    assert_eq!(c.totals.macs.as_ref().unwrap().expr.to_string(), "12*N");
    assert_eq!(
        c.totals.activation_bytes.as_ref().unwrap().expr.to_string(),
        "28*N"
    );
}

#[test]
fn kv_cache_is_the_present_outputs() {
    // present.0.key = Identity(past) [B, 2, T, 8] f32: 64*B*T bytes.
    let b = f32s(model(17), "past.0.key", &["B", "2", "T", "8"]).node(
        "Identity",
        &["past.0.key"],
        &["present.0.key"],
        vec![],
    );
    let c = cost(b, &["present.0.key"]);
    assert_eq!(
        c.totals.kv_cache_bytes.as_ref().unwrap().expr.to_string(),
        "64*B*T"
    );
    // Without present outputs or past inputs there is no KV cache.
    let b = f32s(model(17), "x", &["S"]).node("Relu", &["x"], &["y"], vec![]);
    assert!(cost(b, &["y"]).totals.kv_cache_bytes.is_none());
}

#[test]
fn the_bundled_model_at_a_binding_and_over_a_range() {
    // examples/attention.onnx at batch 2, sequence 7 (hand derivation in
    // docs/cost.md): proj 2*7 rows * 192 * 64 = 172032 MACs; scores and context
    // 2*4*7*7*16 = 6272 each; the peak 1536*2*7 + 40 = 21544 bytes at
    // split_heads (qkv, qkv5 and the int64 qkv_shape [5]).
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/attention.onnx");
    let model = symdim::load(std::path::Path::new(path)).unwrap();
    let r = CostRequest {
        binds: vec![("batch".into(), 2), ("sequence".into(), 7)],
        ranges: vec![UserRange {
            name: "sequence".into(),
            lo: Some(1),
            hi: Some(128),
        }],
    };
    let c = symdim::infer(&model, &Facts::default()).cost(&r).unwrap();
    let v = |f: &Option<symdim::analyses::cost::Figure>| {
        f.as_ref()
            .and_then(|f| f.value.as_ref())
            .and_then(|v| v.to_i64())
    };
    let n = |name: &str| c.nodes.iter().find(|n| n.node == name).unwrap();
    assert_eq!(v(&n("proj").macs), Some(172_032));
    assert_eq!(v(&n("scores").macs), Some(6272));
    assert_eq!(v(&n("context").macs), Some(6272));
    assert_eq!(v(&c.totals.macs), Some(172_032 + 2 * 6272));
    assert_eq!(v(&c.totals.peak_bytes), Some(21_544));
    // batch has no upper bound in the box: its maxima are not proven.
    assert_eq!(c.totals.macs.as_ref().unwrap().max, Some(None));
}

#[test]
fn the_bundled_model_report_snapshots() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/attention.onnx");
    let mut model = symdim::load(std::path::Path::new(path)).unwrap();
    model.path = "examples/attention.onnx".to_string();
    let shapes = symdim::infer(&model, &Facts::default());
    let c = shapes.cost(&CostRequest::default()).unwrap();
    crate::common::snapshots().bind(|| {
        insta::assert_snapshot!("cost_attention_text", c.to_text(5));
        insta::assert_snapshot!("cost_attention_json", c.to_json());
    });
}

#[test]
fn a_bind_of_a_name_that_is_not_an_input_symbol_is_refused() {
    let b = f32s(model(17), "x", &["S"]).node("Relu", &["x"], &["y"], vec![]);
    let mut m = b.build();
    m.graph.outputs.push(ValueDecl {
        name: "y".into(),
        dtype: DType::Undefined,
        shape: None,
    });
    let r = CostRequest {
        binds: vec![("nope".into(), 3)],
        ranges: vec![],
    };
    let e = symdim::infer(&m, &Facts::default()).cost(&r).unwrap_err();
    assert!(e.to_string().contains("nope"), "{e}");
}

#[test]
fn the_plot_evaluates_the_peak_and_the_macs_at_each_value() {
    use symdim::algebra::Rat;
    use symdim::analyses::cost::plot::{PlotError, PlotRequest, MAX_PLOT_POINTS};
    // examples/attention.onnx at batch 2 (docs/cost.md): MACs are proj's
    // 2*S*192*64 = 24576*S plus scores' and context's 2*4*S*S*16 = 128*S^2 each. The
    // peak is split_heads' 1536*2*S + 40 = 21544 at S = 7; at S = 64 it is the
    // softmax step's scores and probs, [1, 2, 4, 64, 64] floats each (16*2*64*64
    // bytes), with v, [1, 2, 4, 64, 16] floats, live: 262144 + 32768 = 294912.
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/attention.onnx");
    let model = symdim::load(std::path::Path::new(path)).unwrap();
    let shapes = symdim::infer(&model, &Facts::default());
    let at = |binds: Vec<(String, i64)>| {
        shapes
            .cost(&CostRequest {
                binds,
                ranges: vec![],
            })
            .unwrap()
    };
    let c = at(vec![("batch".into(), 2)]);
    let ask = |lo, hi| PlotRequest {
        symbol: "sequence".into(),
        lo,
        hi,
    };
    let p = c.plot(&ask(1, 64)).unwrap();
    let macs = &p.macs.as_ref().unwrap().points;
    assert_eq!(macs.len(), 64);
    for (s, v) in macs {
        assert_eq!(
            *v,
            Rat::int(256 * s * s + 24576 * s),
            "MACs at sequence = {s}"
        );
    }
    let peak = &p.peak_bytes.as_ref().unwrap().points;
    let peak_at = |s: i64| peak.iter().find(|(x, _)| *x == s).map(|(_, v)| v.clone());
    assert_eq!(peak_at(7), Some(Rat::int(21_544)));
    assert_eq!(peak_at(64), Some(Rat::int(294_912)));

    // The drawing: an SVG with a red and a blue line, the same bytes twice.
    let svg = p.to_svg();
    assert!(svg.starts_with("<svg"), "{}", &svg[..80.min(svg.len())]);
    assert!(svg.contains("stroke=\"#FF0000\"") && svg.contains("stroke=\"#0000FF\""));
    assert_eq!(svg, p.to_svg());

    // A range as wide as a dim can be: MAX_PLOT_POINTS values, both ends, exact.
    let wide = c.plot(&ask(1, i64::MAX)).unwrap();
    let pts = &wide.macs.as_ref().unwrap().points;
    assert_eq!(pts.len(), MAX_PLOT_POINTS);
    let s = Rat::int(i64::MAX);
    let want = Rat::int(256).mul(&s).mul(&s).add(&Rat::int(24576).mul(&s));
    assert_eq!(
        pts.last().map(|(x, v)| (*x, v.clone())),
        Some((i64::MAX, want))
    );

    // Usage errors: batch has no value; no such symbol; an empty range.
    assert_eq!(
        at(vec![]).plot(&ask(1, 64)),
        Err(PlotError::Unbound {
            symbol: "sequence".into(),
            missing: vec!["batch".into()]
        })
    );
    assert!(matches!(
        c.plot(&PlotRequest {
            symbol: "width".into(),
            lo: 1,
            hi: 2
        }),
        Err(PlotError::NotASymbol { .. })
    ));
    assert!(matches!(c.plot(&ask(5, 4)), Err(PlotError::Empty { .. })));
}

/// The cost of fixture `tests/fixtures/cost/NAME.onnx` (scripts/make_cost_models.py).
fn fixture_cost(name: &str) -> Cost {
    let path = format!(
        "{}/tests/fixtures/cost/{name}.onnx",
        env!("CARGO_MANIFEST_DIR")
    );
    let model = symdim::load(std::path::Path::new(&path)).unwrap();
    symdim::infer(&model, &Facts::default())
        .cost(&CostRequest::default())
        .unwrap()
}

/// A figure's formula, `null` when not known.
fn text(f: &Option<symdim::analyses::cost::Figure>) -> String {
    f.as_ref()
        .map_or("null".to_string(), |f| f.expr.to_string())
}

#[test]
fn a_loop_body_is_costed_per_run_and_over_its_trip_count() {
    // Loop M = len(t) = sequence times, no condition, over h [batch, 8]; the body's
    // MatMul [batch, 8] x [8, 8] is 64*batch MACs and 128*batch FLOPs per run (two
    // Identity nodes move data); over the loop 64*batch*sequence. The Loop node stays
    // out of the main totals, which hold only Shape and Squeeze (0).
    let c = fixture_cost("loop_body");
    assert_eq!(c.subgraphs.len(), 1);
    let b = &c.subgraphs[0];
    assert_eq!(
        (&*b.node, &*b.op, &*b.attribute, b.inferred),
        ("loop", "Loop", "body", true)
    );
    assert_eq!(
        (text(&b.macs), text(&b.flops)),
        ("64*batch".into(), "128*batch".into())
    );
    assert_eq!(text(&b.iterations), "sequence");
    assert_eq!(text(&b.total_macs), "64*batch*sequence");
    assert_eq!(text(&b.total_flops), "128*batch*sequence");
    let names: Vec<&str> = b.nodes.iter().map(|n| n.node.as_str()).collect();
    assert_eq!(names, ["body_matmul", "body_cond", "body_scan"]);
    assert!(b.left_out.is_empty() && b.subgraphs.is_empty());
    assert_eq!(text(&c.totals.macs), "0");
    assert_eq!(c.totals.left_out, ["loop"]);
    assert!(c
        .notes
        .iter()
        .any(|n| n.contains("subgraphs are costed apart")));
}

#[test]
fn a_loop_that_may_stop_early_has_no_iteration_count() {
    // loop_body with the condition an input `c`: each run is known, the count not.
    let c = fixture_cost("loop_cond");
    let b = &c.subgraphs[0];
    assert_eq!(text(&b.macs), "64*batch");
    assert_eq!(text(&b.iterations), "null");
    assert_eq!(text(&b.total_macs), "null");
}

#[test]
fn a_loop_whose_body_grows_has_no_total() {
    // The carried h [batch, L] grows by 8 per iteration, so L is a fresh dim of the
    // loop; MatMul(h, h^T) is batch*L*batch MACs per run. The count is known
    // (sequence) but the total is not batch*L*batch*sequence: L changes.
    let c = fixture_cost("loop_grow");
    let b = &c.subgraphs[0];
    assert_eq!(text(&b.iterations), "sequence");
    let macs = text(&b.macs);
    assert!(macs.starts_with("batch*batch*"), "{macs}");
    assert_eq!(text(&b.total_macs), "null");
    assert_eq!(text(&b.total_flops), "null");
}

#[test]
fn each_if_branch_is_costed_and_a_branch_that_does_not_run_is_marked() {
    // then: MatMul [batch, 8] x [8, 16] = 128*batch MACs, 256*batch FLOPs; else: the
    // same and a Relu of 16*batch elements (272*batch FLOPs). Attributes in file
    // order (else_branch first, as onnx.helper sorts them).
    let c = fixture_cost("if_branches");
    let got: Vec<(String, String, String, String)> = c
        .subgraphs
        .iter()
        .map(|b| {
            (
                b.attribute.clone(),
                text(&b.macs),
                text(&b.flops),
                text(&b.iterations),
            )
        })
        .collect();
    let want = [
        ("else_branch", "128*batch", "272*batch", "null"),
        ("then_branch", "128*batch", "256*batch", "null"),
    ];
    let want: Vec<(String, String, String, String)> = want
        .iter()
        .map(|(a, m, f, i)| (a.to_string(), m.to_string(), f.to_string(), i.to_string()))
        .collect();
    assert_eq!(got, want);
    // A constant true condition: only the then branch runs.
    let c = fixture_cost("if_const");
    let run: Vec<(&str, bool)> = c
        .subgraphs
        .iter()
        .map(|b| (b.attribute.as_str(), b.inferred))
        .collect();
    assert_eq!(run, [("else_branch", false), ("then_branch", true)]);
    assert!(c.subgraphs[0].macs.is_none() && c.subgraphs[0].nodes.is_empty());
    let text_report = c.to_text(5);
    assert!(
        text_report.contains("branch.else_branch (If): not inferred (the branch does not run)"),
        "{text_report}"
    );
}

#[test]
fn a_scan_body_runs_once_per_scanned_element() {
    // Scan over xs [sequence, 4]: per run MatMul [4] x [4, 4] = 16 MACs, 32 FLOPs,
    // and an Add of 4 elements: 36 FLOPs; sequence runs.
    let c = fixture_cost("scan_body");
    let b = &c.subgraphs[0];
    assert_eq!((text(&b.macs), text(&b.flops)), ("16".into(), "36".into()));
    assert_eq!(text(&b.iterations), "sequence");
    assert_eq!(text(&b.total_macs), "16*sequence");
    assert_eq!(text(&b.total_flops), "36*sequence");
    let json = c.to_json();
    assert!(json.contains("\"subgraphs\": ["), "{json}");
    assert!(json.contains("\"total_macs\": \"16*sequence\""), "{json}");
}

#[test]
fn a_dynamic_quantize_lstm_costs_as_its_lstm() {
    // X [sequence, batch, 8], H 16, one direction; W [1, 8, 64] and R [1, 16, 64]
    // (transposed against LSTM's): per step and batch row vol(W) + vol(R) = 512 +
    // 1024 MACs; FLOPs 2 * 1536 + 17 * 16 (LSTM's gate work per hidden unit).
    let c = fixture_cost("dq_lstm");
    let n = c.nodes.iter().find(|n| n.node == "dq_lstm").unwrap();
    assert_eq!(n.op, "DynamicQuantizeLSTM");
    assert_eq!(text(&n.macs), "1536*batch*sequence");
    assert_eq!(text(&n.flops), "3344*batch*sequence");
}
