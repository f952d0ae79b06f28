//! onnxruntime's contrib ops (domain `com.microsoft`, `src/ops/contrib*.rs`):
//! hand-built context cases with expected values worked out from each op's schema
//! in onnxruntime's `docs/ContribOperators.md`, a snapshot of their error messages,
//! and the probe against onnxruntime's real output shapes.
//!
//! `tests/fixtures/ops_contrib/ort_cases.json` (written by `scripts/probe_contrib.py`)
//! holds one-node graphs (and a few chains that compute a shape input) with symbolic
//! input dims and, for several bindings of those symbols, the output shapes and
//! element types onnxruntime's CPU provider produced when running them. symdim infers
//! each graph once; every output dim is evaluated at each binding and compared. The
//! ops onnxruntime runs only on CUDA are in the fixture's `not_run` list; the hand
//! cases below cover them.

use crate::common;
use crate::common::models;

use models::{apply, put, rule_errors, shapes, value};
use symdim::context::{OpError, ShapesContext};
use symdim::graph::{Attr, DType, Node};

const F32: DType = DType::Float;
const I32: DType = DType::Int32;
const I64: DType = DType::Int64;
const U8: DType = DType::Uint8;
const MS: &str = "com.microsoft";

fn ints(v: &[i64]) -> Attr {
    Attr::Ints(v.to_vec())
}

fn int(v: i64) -> Attr {
    Attr::Int(v)
}

/// A `com.microsoft` node of version 1.
fn ms(op: &str, inputs: &[&str], outputs: &[&str], a: Vec<(&str, Attr)>) -> Node {
    Node {
        name: format!("{op}_t"),
        op_type: op.into(),
        domain: MS.to_string(),
        version: 1,
        inputs: inputs.iter().map(|s| (*s).into()).collect(),
        outputs: outputs.iter().map(|s| (*s).into()).collect(),
        attrs: models::attrs(a),
    }
}

/// The shapes of every output of `n` (as many as it names), rendered.
fn outs(ctx: &mut ShapesContext, n: &Node) -> Vec<String> {
    let f = apply(ctx, n).unwrap_or_else(|e| panic!("{}: {e}", n.op_type));
    shapes(ctx, &f[..n.outputs.len().min(f.len())])
}

/// The shape of output 0.
fn out0(ctx: &mut ShapesContext, n: &Node) -> String {
    outs(ctx, n).remove(0)
}

/// Output types.
fn dtypes(ctx: &mut ShapesContext, n: &Node) -> Vec<DType> {
    let f = apply(ctx, n).unwrap();
    f.iter().take(n.outputs.len()).map(|f| f.dtype).collect()
}

fn err(ctx: &mut ShapesContext, n: &Node) -> OpError {
    apply(ctx, n).expect_err("an error")
}

fn f32s(ctx: &mut ShapesContext, name: &str, dims: &[&str]) {
    put(ctx, name, F32, dims, None);
}

// ----- activations and normalisations ---------------------------------------------------

#[test]
fn activations_keep_the_shape() {
    let mut ctx = ShapesContext::default();
    f32s(&mut ctx, "x", &["B", "S", "768"]);
    f32s(&mut ctx, "b", &["768"]);
    f32s(&mut ctx, "b5", &["5"]);
    for op in [
        "Gelu",
        "QuickGelu",
        "RotaryEmbedding",
        "MoE",
        "QMoE",
        "BiasSoftmax",
    ] {
        assert_eq!(
            out0(&mut ctx, &ms(op, &["x"], &["y"], vec![])),
            "[B, S, 768]",
            "{op}"
        );
    }
    for op in ["FastGelu", "BiasGelu"] {
        let n = ms(op, &["x", "b"], &["y"], vec![]);
        assert_eq!(out0(&mut ctx, &n), "[B, S, 768]");
        // the bias is the last dim
        let n = ms(op, &["x", "b5"], &["y"], vec![]);
        assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
    }
    // BiasAdd: X [B, S, C], bias [C], skip like X
    f32s(&mut ctx, "sk", &["B", "S", "768"]);
    let n = ms("BiasAdd", &["x", "b", "sk"], &["y"], vec![]);
    assert_eq!(out0(&mut ctx, &n), "[B, S, 768]");
    f32s(&mut ctx, "x2", &["B", "768"]);
    let n = ms("BiasAdd", &["x2", "b", "sk"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::Rank { .. }));
    // BiasSplitGelu: [N, HW, D] with bias [D] gives [N, HW, D/2]
    let n = ms("BiasSplitGelu", &["x", "b"], &["y"], vec![]);
    assert_eq!(out0(&mut ctx, &n), "[B, S, 384]");
    f32s(&mut ctx, "xo", &["B", "S", "5"]);
    let n = ms("BiasSplitGelu", &["xo", "b5"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::Algebra(_)));
    // BiasDropout: the output and a bool mask
    let n = ms("BiasDropout", &["x", "b"], &["y", "m"], vec![]);
    assert_eq!(outs(&mut ctx, &n), ["[B, S, 768]", "[B, S, 768]"]);
    assert_eq!(dtypes(&mut ctx, &n), [F32, DType::Bool]);
}

#[test]
fn skip_layer_norms() {
    let mut ctx = ShapesContext::default();
    f32s(&mut ctx, "x", &["B", "S", "768"]);
    f32s(&mut ctx, "s1", &["1", "S", "768"]);
    f32s(&mut ctx, "s2", &["S", "768"]);
    f32s(&mut ctx, "g", &["768"]);
    f32s(&mut ctx, "t", &["T", "768"]);
    for op in ["SkipLayerNormalization", "SkipSimplifiedLayerNormalization"] {
        for skip in ["x", "s1", "s2"] {
            let n = ms(op, &["x", skip, "g"], &["y", "mean", "inv", "sum"], vec![]);
            assert_eq!(
                outs(&mut ctx, &n),
                ["[B, S, 768]", "[B, S, 1]", "[B, S, 1]", "[B, S, 768]"],
                "{op} {skip}"
            );
            assert_eq!(dtypes(&mut ctx, &n), [F32, F32, F32, F32]);
        }
        // token layout [T, H]
        let n = ms(op, &["t", "t", "g"], &["y", "mean"], vec![]);
        assert_eq!(outs(&mut ctx, &n), ["[T, 768]", "[T, 1]"]);
    }
    // rank 4 is rejected (onnxruntime: "input is expected to have 3 or 2 dimensions")
    f32s(&mut ctx, "x4", &["1", "B", "S", "768"]);
    let n = ms("SkipLayerNormalization", &["x4", "x4", "g"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::Rank { .. }));
    // gamma of the wrong length
    f32s(&mut ctx, "g5", &["5"]);
    let n = ms("SkipLayerNormalization", &["x", "x", "g5"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
    // a skip of another batch is unified with the input's (warned)
    f32s(&mut ctx, "sb", &["C", "S", "768"]);
    let n = ms("SkipLayerNormalization", &["x", "sb", "g"], &["y"], vec![]);
    assert_eq!(out0(&mut ctx, &n), "[B, S, 768]");
    // SimplifiedLayerNormalization (default domain)
    f32s(&mut ctx, "sg", &["S", "768"]);
    let mut n = ms(
        "SimplifiedLayerNormalization",
        &["x", "sg"],
        &["y", "inv"],
        vec![],
    );
    n.domain = String::new();
    n.version = 17;
    assert_eq!(outs(&mut ctx, &n), ["[B, S, 768]", "[B, S, 1]"]);
    n.attrs = models::attrs(vec![("axis", int(1))]);
    assert_eq!(outs(&mut ctx, &n), ["[B, S, 768]", "[B, 1, 1]"]);
    n.attrs = models::attrs(vec![("axis", int(3))]);
    assert!(matches!(err(&mut ctx, &n), OpError::AxisOutOfRange { .. }));
}

#[test]
fn embed_layer_norms() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "ids", I32, &["B", "S"], None);
    f32s(&mut ctx, "word", &["30522", "768"]);
    f32s(&mut ctx, "pos", &["512", "768"]);
    f32s(&mut ctx, "seg", &["2", "768"]);
    f32s(&mut ctx, "g", &["768"]);
    let n = ms(
        "EmbedLayerNormalization",
        &["ids", "ids", "word", "pos", "seg", "g", "g", "ids"],
        &["y", "mi", "sum"],
        vec![],
    );
    assert_eq!(outs(&mut ctx, &n), ["[B, S, 768]", "[B]", "[B, S, 768]"]);
    assert_eq!(dtypes(&mut ctx, &n), [F32, I32, F32]);
    let n = ms(
        "EmbedLayerNormalization",
        &["ids", "", "word", "pos", "", "g", "g"],
        &["y", "mi"],
        vec![],
    );
    assert_eq!(outs(&mut ctx, &n), ["[B, S, 768]", "[B]"]);
    // position embeddings of another width
    f32s(&mut ctx, "pos5", &["512", "5"]);
    let n = ms(
        "EmbedLayerNormalization",
        &["ids", "", "word", "pos5", "", "g", "g"],
        &["y"],
        vec![],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
    // 3-D ids
    put(&mut ctx, "ids3", I32, &["B", "S", "1"], None);
    let n = ms(
        "EmbedLayerNormalization",
        &["ids3", "", "word", "pos", "", "g", "g"],
        &["y"],
        vec![],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::Rank { .. }));
    // QEmbedLayerNormalization: quantized tables, float output
    put(&mut ctx, "wq", U8, &["30522", "768"], None);
    put(&mut ctx, "pq", U8, &["512", "768"], None);
    put(&mut ctx, "gq", U8, &["768"], None);
    put(&mut ctx, "sc", F32, &[], None);
    put(&mut ctx, "zp", U8, &[], None);
    let q_inputs = [
        "ids", "", "wq", "pq", "", "gq", "gq", "", "sc", "sc", "", "sc", "sc", "zp", "zp", "",
        "zp", "zp",
    ];
    let n = ms("QEmbedLayerNormalization", &q_inputs, &["y", "mi"], vec![]);
    assert_eq!(outs(&mut ctx, &n), ["[B, S, 768]", "[B]"]);
    assert_eq!(dtypes(&mut ctx, &n), [F32, I32]);
}

#[test]
fn group_norms() {
    let mut ctx = ShapesContext::default();
    f32s(&mut ctx, "x", &["N", "H", "W", "320"]);
    f32s(&mut ctx, "g", &["320"]);
    let a = || vec![("groups", int(32)), ("activation", int(1))];
    let n = ms("GroupNorm", &["x", "g", "g"], &["y"], a());
    assert_eq!(out0(&mut ctx, &n), "[N, H, W, 320]");
    let n = ms("SkipGroupNorm", &["x", "g", "g", "x"], &["y", "s"], a());
    assert_eq!(outs(&mut ctx, &n), ["[N, H, W, 320]", "[N, H, W, 320]"]);
    // channels first
    f32s(&mut ctx, "xc", &["N", "320", "H", "W"]);
    let mut b = a();
    b.push(("channels_last", int(0)));
    let n = ms("GroupNorm", &["xc", "g", "g"], &["y"], b);
    assert_eq!(out0(&mut ctx, &n), "[N, 320, H, W]");
    // groups must divide the channels
    let n = ms(
        "GroupNorm",
        &["x", "g", "g"],
        &["y"],
        vec![("groups", int(3)), ("activation", int(0))],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::BadShapeValue { .. }));
    let n = ms("GroupNorm", &["x", "g", "g"], &["y"], vec![]);
    assert!(matches!(
        err(&mut ctx, &n),
        OpError::MissingAttribute { name: "groups" }
    ));
}

// ----- attention -----------------------------------------------------------------------------

#[test]
fn attention_and_qattention() {
    let mut ctx = ShapesContext::default();
    f32s(&mut ctx, "x", &["B", "S", "768"]);
    f32s(&mut ctx, "w", &["768", "2304"]);
    f32s(&mut ctx, "bias", &["2304"]);
    f32s(&mut ctx, "past", &["2", "B", "12", "P", "64"]);
    let heads = || vec![("num_heads", int(12))];
    let n = ms("Attention", &["x", "w", "bias"], &["y", "present"], heads());
    assert_eq!(outs(&mut ctx, &n), ["[B, S, 768]", "[2, B, 12, S, 64]"]);
    let n = ms(
        "Attention",
        &["x", "w", "bias", "", "past"],
        &["y", "present"],
        heads(),
    );
    assert_eq!(outs(&mut ctx, &n), ["[B, S, 768]", "[2, B, 12, P + S, 64]"]);
    // a shared buffer keeps the past's shape
    let mut a = heads();
    a.push(("past_present_share_buffer", int(1)));
    let n = ms(
        "Attention",
        &["x", "w", "bias", "", "past"],
        &["y", "present"],
        a,
    );
    assert_eq!(outs(&mut ctx, &n)[1], "[2, B, 12, P, 64]");
    // qkv_hidden_sizes: V of another width
    f32s(&mut ctx, "w2", &["768", "2048"]);
    let mut a = heads();
    a.push(("qkv_hidden_sizes", ints(&[768, 768, 512])));
    let n = ms("Attention", &["x", "w2"], &["y"], a);
    assert_eq!(out0(&mut ctx, &n), "[B, S, 512]");
    // sizes that do not sum to the weights' width
    let mut a = heads();
    a.push(("qkv_hidden_sizes", ints(&[768, 768, 768])));
    let n = ms("Attention", &["x", "w2"], &["y"], a);
    assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
    // sizes whose sum passes i64 (a proptest find): summed in the algebra, so a
    // mismatch with the weights' width, not an overflow
    let mut a = heads();
    a.push(("qkv_hidden_sizes", ints(&[i64::MAX, i64::MAX, 1])));
    let n = ms("Attention", &["x", "w2"], &["y"], a);
    assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
    // weights not a multiple of three
    f32s(&mut ctx, "w3", &["768", "2000"]);
    let n = ms("Attention", &["x", "w3"], &["y"], heads());
    assert!(matches!(err(&mut ctx, &n), OpError::Algebra(_)));
    // the input's hidden size is the weights' first dim
    f32s(&mut ctx, "xo", &["B", "S", "512"]);
    let n = ms("Attention", &["xo", "w"], &["y"], heads());
    assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
    let n = ms("Attention", &["x", "w"], &["y"], vec![]);
    assert!(matches!(
        err(&mut ctx, &n),
        OpError::MissingAttribute { name: "num_heads" }
    ));
    // QAttention: quantized input, the float bias's type
    put(&mut ctx, "xq", U8, &["B", "S", "768"], None);
    put(&mut ctx, "wq", U8, &["768", "2304"], None);
    put(&mut ctx, "sc", F32, &[], None);
    let n = ms(
        "QAttention",
        &["xq", "wq", "bias", "sc", "sc", "", "", "", "past"],
        &["y", "present"],
        heads(),
    );
    assert_eq!(outs(&mut ctx, &n), ["[B, S, 768]", "[2, B, 12, P + S, 64]"]);
    assert_eq!(dtypes(&mut ctx, &n), [F32, F32]);
    // DecoderMaskedSelfAttention shares its buffer
    f32s(&mut ctx, "x1", &["B", "1", "768"]);
    put(&mut ctx, "psl", I32, &["1"], None);
    let mut a = heads();
    a.push(("past_present_share_buffer", int(1)));
    let n = ms(
        "DecoderMaskedSelfAttention",
        &["x1", "w", "bias", "", "past", "", "psl"],
        &["y", "present"],
        a,
    );
    assert_eq!(outs(&mut ctx, &n), ["[B, 1, 768]", "[2, B, 12, P, 64]"]);
}

#[test]
fn multi_head_attention_layouts() {
    let mut ctx = ShapesContext::default();
    let h = || vec![("num_heads", int(8))];
    f32s(&mut ctx, "q", &["B", "S", "512"]);
    f32s(&mut ctx, "k", &["B", "L", "512"]);
    f32s(&mut ctx, "v", &["B", "L", "256"]);
    f32s(&mut ctx, "pk", &["B", "8", "P", "64"]);
    f32s(&mut ctx, "pv", &["B", "8", "P", "32"]);
    let o = &["y", "pk_out", "pv_out", "qk"];
    let n = ms("MultiHeadAttention", &["q", "k", "v"], o, h());
    assert_eq!(
        outs(&mut ctx, &n),
        [
            "[B, S, 256]",
            "[B, 8, L, 64]",
            "[B, 8, L, 32]",
            "[B, 8, S, L]"
        ]
    );
    let n = ms(
        "MultiHeadAttention",
        &["q", "k", "v", "", "", "", "pk", "pv"],
        o,
        h(),
    );
    assert_eq!(
        outs(&mut ctx, &n),
        [
            "[B, S, 256]",
            "[B, 8, L + P, 64]",
            "[B, 8, L + P, 32]",
            "[B, 8, S, L + P]"
        ]
    );
    // buffer sharing (a past_sequence_length input): the pasts' shapes
    put(&mut ctx, "psl", I32, &["1"], None);
    let n = ms(
        "MultiHeadAttention",
        &["q", "k", "v", "", "", "", "pk", "pv", "psl"],
        o,
        h(),
    );
    assert_eq!(outs(&mut ctx, &n)[1..3], ["[B, 8, P, 64]", "[B, 8, P, 32]"]);
    // packed KV [B, L, N, 2, h] and packed QKV [B, S, N, 3, h]
    f32s(&mut ctx, "kv", &["B", "L", "8", "2", "64"]);
    let n = ms("MultiHeadAttention", &["q", "kv"], o, h());
    assert_eq!(outs(&mut ctx, &n)[..2], ["[B, S, 512]", "[B, 8, L, 64]"]);
    f32s(&mut ctx, "qkv", &["B", "S", "8", "3", "64"]);
    let n = ms("MultiHeadAttention", &["qkv"], o, h());
    assert_eq!(outs(&mut ctx, &n)[..2], ["[B, S, 512]", "[B, 8, S, 64]"]);
    // cross attention on cached key/value [B, N, L, h]
    f32s(&mut ctx, "ck", &["B", "8", "L", "64"]);
    let n = ms("MultiHeadAttention", &["q", "ck", "ck"], o, h());
    assert_eq!(
        outs(&mut ctx, &n)[..3],
        ["[B, S, 512]", "[B, 8, L, 64]", "[B, 8, L, 64]"]
    );
    // errors: a 4-D query, key and value of different ranks, heads not dividing
    f32s(&mut ctx, "q4", &["B", "S", "8", "64"]);
    let n = ms("MultiHeadAttention", &["q4", "k", "v"], o, h());
    assert!(matches!(err(&mut ctx, &n), OpError::Rank { .. }));
    let n = ms("MultiHeadAttention", &["q", "k", "ck"], o, h());
    assert!(matches!(err(&mut ctx, &n), OpError::Rank { .. }));
    let n = ms(
        "MultiHeadAttention",
        &["q", "k", "v"],
        o,
        vec![("num_heads", int(3))],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::Algebra(_)));
    // DecoderMaskedMultiHeadAttention: shared buffers, packed QKV [B, 1, 3H]
    f32s(&mut ctx, "q1", &["B", "1", "512"]);
    f32s(&mut ctx, "mk", &["B", "8", "M", "64"]);
    let mut a = h();
    a.push(("past_present_share_buffer", int(1)));
    let n = ms(
        "DecoderMaskedMultiHeadAttention",
        &["q1", "q1", "q1", "", "", "mk", "mk", "psl"],
        o,
        a,
    );
    assert_eq!(
        outs(&mut ctx, &n)[..3],
        ["[B, 1, 512]", "[B, 8, M, 64]", "[B, 8, M, 64]"]
    );
    f32s(&mut ctx, "p3", &["B", "1", "1536"]);
    let n = ms("DecoderMaskedMultiHeadAttention", &["p3"], o, h());
    assert_eq!(out0(&mut ctx, &n), "[B, 1, 512]");
}

#[test]
fn group_query_and_sparse_attention() {
    let mut ctx = ShapesContext::default();
    let h = || vec![("num_heads", int(32)), ("kv_num_heads", int(8))];
    f32s(&mut ctx, "q", &["B", "S", "4096"]);
    f32s(&mut ctx, "k", &["B", "S", "1024"]);
    f32s(&mut ctx, "pk", &["B", "8", "P", "128"]);
    put(&mut ctx, "sl", I32, &["B"], None);
    put(&mut ctx, "tsl", I32, &[], Some(&["P + S"]));
    put(&mut ctx, "tsl_unknown", I32, &[], None);
    let o = &["y", "pk_out", "pv_out", "qk"];
    let n = ms(
        "GroupQueryAttention",
        &["q", "k", "k", "pk", "pk", "sl", "tsl"],
        o,
        h(),
    );
    assert_eq!(
        outs(&mut ctx, &n),
        [
            "[B, S, 4096]",
            "[B, 8, P + S, 128]",
            "[B, 8, P + S, 128]",
            "[B, 32, S, P + S]"
        ]
    );
    // packed QKV: (32 + 2*8) * 128 = 6144
    f32s(&mut ctx, "qkv", &["B", "S", "6144"]);
    let n = ms(
        "GroupQueryAttention",
        &["qkv", "", "", "pk", "pk", "sl", "tsl"],
        o,
        h(),
    );
    assert_eq!(
        outs(&mut ctx, &n)[..2],
        ["[B, S, 4096]", "[B, 8, P + S, 128]"]
    );
    // a total length not known: a fresh present length
    let n = ms(
        "GroupQueryAttention",
        &["q", "k", "k", "pk", "pk", "sl", "tsl_unknown"],
        o,
        h(),
    );
    let p = outs(&mut ctx, &n)[1].clone();
    assert!(p.starts_with("[B, 8, max(P, unk"), "{p}");
    // without past: [B, kv_num_heads, total, head]
    let n = ms(
        "GroupQueryAttention",
        &["q", "k", "k", "", "", "sl", "tsl"],
        o,
        h(),
    );
    assert_eq!(outs(&mut ctx, &n)[1], "[B, 8, P + S, 128]");
    // a windowed cache keeps its capacity
    let mut a = h();
    a.push(("sliding_window_cache", int(1)));
    a.push(("local_window_size", int(16)));
    let n = ms(
        "GroupQueryAttention",
        &["q", "k", "k", "pk", "pk", "sl", "tsl"],
        o,
        a,
    );
    assert_eq!(outs(&mut ctx, &n)[1], "[B, 8, P, 128]");
    // a packed width that is not a multiple of 48 heads
    f32s(&mut ctx, "bad", &["B", "S", "6008"]);
    let n = ms(
        "GroupQueryAttention",
        &["bad", "", "", "pk", "pk", "sl", "tsl"],
        o,
        h(),
    );
    assert!(matches!(err(&mut ctx, &n), OpError::Algebra(_)));
    // SparseAttention: the caches are shared buffers
    put(&mut ctx, "rows", I32, &["1", "9"], None);
    let n = ms(
        "SparseAttention",
        &["q", "k", "k", "pk", "pk", "rows", "rows", "tsl", "sl"],
        &["y", "pk_out", "pv_out"],
        vec![
            ("num_heads", int(32)),
            ("kv_num_heads", int(8)),
            ("sparse_block_size", int(64)),
        ],
    );
    assert_eq!(
        outs(&mut ctx, &n),
        ["[B, S, 4096]", "[B, 8, P, 128]", "[B, 8, P, 128]"]
    );
    // DynamicSparseAttention: total_sequence_length is input 10; shared caches, and
    // without past [B, kv_num_heads, total, head]
    put(&mut ctx, "sel", I32, &["B*S", "4"], None);
    let mut i = vec!["qkv", "", "", "pk", "pk", "", "", "sel", "sl", "sl", "tsl"];
    let n = ms("DynamicSparseAttention", &i, o, h());
    assert_eq!(
        outs(&mut ctx, &n)[..3],
        ["[B, S, 4096]", "[B, 8, P, 128]", "[B, 8, P, 128]"]
    );
    i[3] = "";
    i[4] = "";
    let n = ms("DynamicSparseAttention", &i, o, h());
    assert_eq!(outs(&mut ctx, &n)[1], "[B, 8, P + S, 128]");
}

#[test]
fn packed_attention_position_biases_and_padding() {
    let mut ctx = ShapesContext::default();
    let h = || vec![("num_heads", int(12))];
    f32s(&mut ctx, "x", &["T", "768"]);
    f32s(&mut ctx, "w", &["768", "2304"]);
    f32s(&mut ctx, "bias", &["2304"]);
    put(&mut ctx, "to", I32, &["B", "S"], None);
    put(&mut ctx, "cs", I32, &["B + 1"], None);
    let n = ms(
        "PackedAttention",
        &["x", "w", "bias", "to", "cs"],
        &["y"],
        h(),
    );
    assert_eq!(out0(&mut ctx, &n), "[T, 768]");
    let mut a = h();
    a.push(("qkv_hidden_sizes", ints(&[768, 768, 384])));
    let n = ms(
        "PackedAttention",
        &["x", "w", "bias", "to", "cs"],
        &["y"],
        a,
    );
    assert_eq!(out0(&mut ctx, &n), "[T, 384]");
    f32s(&mut ctx, "v", &["T", "384"]);
    let n = ms(
        "PackedMultiHeadAttention",
        &["x", "x", "v", "", "to", "cs"],
        &["y"],
        h(),
    );
    assert_eq!(out0(&mut ctx, &n), "[T, 384]");
    f32s(&mut ctx, "qkv", &["T", "12", "3", "64"]);
    let n = ms(
        "PackedMultiHeadAttention",
        &["qkv", "", "", "", "to", "cs"],
        &["y"],
        h(),
    );
    assert_eq!(out0(&mut ctx, &n), "[T, 768]");
    // RelativePositionBias: [1, N, query_length, key_length]
    f32s(&mut ctx, "table", &["32", "12"]);
    put(&mut ctx, "ql", I64, &[], Some(&["S"]));
    put(&mut ctx, "kl", I64, &[], Some(&["S + P"]));
    let n = ms(
        "RelativePositionBias",
        &["table", "ql", "kl"],
        &["y"],
        vec![("max_distance", int(128))],
    );
    assert_eq!(out0(&mut ctx, &n), "[1, 12, S, P + S]");
    // GatedRelativePositionBias: [B, num_heads, S, S]
    f32s(&mut ctx, "ql3", &["B", "S", "768"]);
    let g = ["ql3", "bias", "bias", "bias", "bias", "bias"];
    let n = ms("GatedRelativePositionBias", &g, &["y"], h());
    assert_eq!(out0(&mut ctx, &n), "[B, 12, S, S]");
    let g = ["x", "bias", "bias", "bias", "bias", "bias", "to"];
    let n = ms("GatedRelativePositionBias", &g, &["y"], h());
    assert_eq!(out0(&mut ctx, &n), "[B, 12, S, S]");
    // RemovePadding / RestorePadding
    f32s(&mut ctx, "xp", &["B", "S", "768"]);
    put(&mut ctx, "cnt", I32, &["B"], None);
    let n = ms(
        "RemovePadding",
        &["xp", "cnt"],
        &["y", "to2", "cs2", "mx"],
        vec![],
    );
    let o = outs(&mut ctx, &n);
    assert!(
        o[0].starts_with("[unk") && o[0].ends_with(", 768]"),
        "{o:?}"
    );
    assert_eq!(o[1..], ["[B, S]", "[B + 1]", "[1]"]);
    let n = ms("RestorePadding", &["x", "to"], &["y"], vec![]);
    assert_eq!(out0(&mut ctx, &n), "[B, S, 768]");
}

// ----- linear and quantized ops ----------------------------------------------------------------

#[test]
fn matrix_products() {
    let mut ctx = ShapesContext::default();
    f32s(&mut ctx, "a", &["B", "S", "64"]);
    f32s(&mut ctx, "bt", &["B", "T", "64"]);
    // Q @ K^T of attention: transB
    let n = ms(
        "FusedMatMul",
        &["a", "bt"],
        &["y"],
        vec![("transB", int(1))],
    );
    assert_eq!(out0(&mut ctx, &n), "[B, S, T]");
    // transBatchA: [S, B, 64] read as [B, S, 64]
    f32s(&mut ctx, "sb", &["S", "B", "64"]);
    f32s(&mut ctx, "w", &["64", "N"]);
    let n = ms(
        "FusedMatMul",
        &["sb", "w"],
        &["y"],
        vec![("transBatchA", int(1))],
    );
    assert_eq!(out0(&mut ctx, &n), "[B, S, N]");
    let n = ms("TransposeMatMul", &["a", "w"], &["y"], vec![]);
    assert_eq!(out0(&mut ctx, &n), "[B, S, N]");
    // FusedGemm is Gemm
    f32s(&mut ctx, "m", &["M", "64"]);
    let n = ms(
        "FusedGemm",
        &["m", "w"],
        &["y"],
        vec![("activation", Attr::Str("Relu".into()))],
    );
    assert_eq!(out0(&mut ctx, &n), "[M, N]");
    // MatMulNBits: [..., K] gives [..., N]
    put(&mut ctx, "wq", U8, &["4096", "32", "16"], None);
    f32s(&mut ctx, "sc", &["4096", "32"]);
    let nb = |k: i64| {
        vec![
            ("K", int(k)),
            ("N", int(4096)),
            ("bits", int(4)),
            ("block_size", int(32)),
        ]
    };
    f32s(&mut ctx, "h", &["B", "S", "1024"]);
    let n = ms("MatMulNBits", &["h", "wq", "sc"], &["y"], nb(1024));
    assert_eq!(out0(&mut ctx, &n), "[B, S, 4096]");
    f32s(&mut ctx, "h1", &["1024"]);
    let n = ms("MatMulNBits", &["h1", "wq", "sc"], &["y"], nb(1024));
    assert_eq!(out0(&mut ctx, &n), "[4096]");
    let n = ms("MatMulNBits", &["h", "wq", "sc"], &["y"], nb(512));
    assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
    let n = ms(
        "MatMulNBits",
        &["h", "wq", "sc"],
        &["y"],
        vec![("K", int(1024))],
    );
    assert!(matches!(
        err(&mut ctx, &n),
        OpError::MissingAttribute { name: "N" }
    ));
    // the integer products
    put(&mut ctx, "ai", U8, &["B", "S", "64"], None);
    put(&mut ctx, "wi", DType::Int8, &["64", "N"], None);
    put(&mut ctx, "s", F32, &[], None);
    let n = ms(
        "MatMulIntegerToFloat",
        &["ai", "wi", "s", "s"],
        &["y"],
        vec![],
    );
    assert_eq!(
        (out0(&mut ctx, &n), dtypes(&mut ctx, &n)[0]),
        ("[B, S, N]".into(), F32)
    );
    let n = ms("DynamicQuantizeMatMul", &["a", "wi", "s"], &["y"], vec![]);
    assert_eq!(
        (out0(&mut ctx, &n), dtypes(&mut ctx, &n)[0]),
        ("[B, S, N]".into(), F32)
    );
    put(&mut ctx, "a16", DType::Int16, &["M", "64"], None);
    put(&mut ctx, "w16", DType::Int16, &["64", "N"], None);
    let n = ms("MatMulInteger16", &["a16", "w16"], &["y"], vec![]);
    assert_eq!(
        (out0(&mut ctx, &n), dtypes(&mut ctx, &n)[0]),
        ("[M, N]".into(), I32)
    );
    let n = ms("GemmFastGelu", &["a", "w"], &["y"], vec![]);
    assert_eq!(out0(&mut ctx, &n), "[B, S, N]");
    // MatMulFpQ4 reads [K, N] from B_shape
    put(&mut ctx, "bshape", I64, &["2"], Some(&["64", "N"]));
    let n = ms("MatMulFpQ4", &["a", "wq", "bshape"], &["y"], vec![]);
    assert_eq!(out0(&mut ctx, &n), "[B, S, N]");
    // QGemm: float without y_scale, else the zero point's type
    put(&mut ctx, "qa", U8, &["M", "64"], None);
    put(&mut ctx, "zp", U8, &[], None);
    put(&mut ctx, "zi", DType::Int8, &[], None);
    let n = ms("QGemm", &["qa", "s", "zp", "wi", "s", "zi"], &["y"], vec![]);
    assert_eq!(
        (out0(&mut ctx, &n), dtypes(&mut ctx, &n)[0]),
        ("[M, N]".into(), F32)
    );
    let n = ms(
        "QGemm",
        &["qa", "s", "zp", "wi", "s", "zi", "", "s", "zp"],
        &["y"],
        vec![],
    );
    assert_eq!(dtypes(&mut ctx, &n)[0], U8);
}

#[test]
fn quantized_elementwise_concat_and_reduce() {
    let mut ctx = ShapesContext::default();
    put(&mut ctx, "a", U8, &["B", "S", "64"], None);
    put(&mut ctx, "b", U8, &["64"], None);
    put(&mut ctx, "s", F32, &[], None);
    put(&mut ctx, "z", U8, &[], None);
    let q = ["a", "s", "z", "b", "s", "z", "s", "z"];
    for op in ["QLinearAdd", "QLinearMul"] {
        let n = ms(op, &q, &["y"], vec![]);
        assert_eq!(
            (out0(&mut ctx, &n), dtypes(&mut ctx, &n)[0]),
            ("[B, S, 64]".into(), U8)
        );
    }
    let n = ms("MulInteger", &["a", "z", "b", "z"], &["y"], vec![]);
    assert_eq!(
        (out0(&mut ctx, &n), dtypes(&mut ctx, &n)[0]),
        ("[B, S, 64]".into(), I32)
    );
    for op in ["QLinearSigmoid", "QLinearLeakyRelu", "QLinearSoftmax"] {
        let n = ms(op, &["a", "s", "z", "s", "z"], &["y"], vec![]);
        assert_eq!(out0(&mut ctx, &n), "[B, S, 64]");
    }
    put(&mut ctx, "c", DType::Bool, &["B", "1", "1"], None);
    let n = ms(
        "QLinearWhere",
        &["c", "a", "s", "z", "b", "s", "z", "s", "z"],
        &["y"],
        vec![],
    );
    assert_eq!(out0(&mut ctx, &n), "[B, S, 64]");
    put(&mut ctx, "a2", U8, &["B", "T", "64"], None);
    let n = ms(
        "QLinearConcat",
        &["s", "z", "a", "s", "z", "a2", "s", "z"],
        &["y"],
        vec![("axis", int(1))],
    );
    assert_eq!(out0(&mut ctx, &n), "[B, S + T, 64]");
    let n = ms(
        "QLinearConcat",
        &["s", "z", "a", "s"],
        &["y"],
        vec![("axis", int(1))],
    );
    assert!(matches!(err(&mut ctx, &n), OpError::InputCount { .. }));
    let n = ms(
        "QLinearReduceMean",
        &["a", "s", "z", "s", "z"],
        &["y"],
        vec![("axes", ints(&[1])), ("keepdims", int(0))],
    );
    assert_eq!(out0(&mut ctx, &n), "[B, 64]");
    let n = ms(
        "ReduceSumInteger",
        &["a"],
        &["y"],
        vec![("axes", ints(&[-1])), ("keepdims", int(1))],
    );
    assert_eq!(
        (out0(&mut ctx, &n), dtypes(&mut ctx, &n)[0]),
        ("[B, S, 1]".into(), I32)
    );
    // contrib Quantize/DequantizeLinear: ONNX's rules at opset 19
    f32s(&mut ctx, "x", &["B", "S", "64"]);
    let n = ms("QuantizeLinear", &["x", "s", "z"], &["y"], vec![]);
    assert_eq!(
        (out0(&mut ctx, &n), dtypes(&mut ctx, &n)[0]),
        ("[B, S, 64]".into(), U8)
    );
    let n = ms("DequantizeLinear", &["a", "s", "z"], &["y"], vec![]);
    assert_eq!(
        (out0(&mut ctx, &n), dtypes(&mut ctx, &n)[0]),
        ("[B, S, 64]".into(), F32)
    );
    // GatherBlockQuantized: uint8 packs two 4-bit values on the last axis
    put(&mut ctx, "d", U8, &["32000", "2048"], None);
    put(&mut ctx, "ids", I64, &["B", "S"], None);
    f32s(&mut ctx, "sc", &["32000", "128"]);
    let n = ms(
        "GatherBlockQuantized",
        &["d", "ids", "sc"],
        &["y"],
        vec![
            ("block_size", int(32)),
            ("bits", int(4)),
            ("quantize_axis", int(1)),
        ],
    );
    assert_eq!(out0(&mut ctx, &n), "[B, S, 4096]");
}

#[test]
fn convolutions_and_pools() {
    let mut ctx = ShapesContext::default();
    f32s(&mut ctx, "x", &["N", "H", "W", "16"]);
    f32s(&mut ctx, "w", &["32", "16", "3", "3"]);
    let n = ms(
        "NhwcConv",
        &["x", "w"],
        &["y"],
        vec![("strides", ints(&[2, 2])), ("pads", ints(&[1, 1, 1, 1]))],
    );
    assert_eq!(
        out0(&mut ctx, &n),
        "[N, floordiv(H - 1, 2) + 1, floordiv(W - 1, 2) + 1, 32]"
    );
    f32s(&mut ctx, "xc", &["N", "16", "H", "W"]);
    let n = ms(
        "FusedConv",
        &["xc", "w"],
        &["y"],
        vec![("activation", Attr::Str("Relu".into()))],
    );
    assert_eq!(out0(&mut ctx, &n), "[N, 32, H - 2, W - 2]");
    // a channels-last input whose channels do not match the weights
    f32s(&mut ctx, "x8", &["N", "H", "W", "8"]);
    let n = ms("NhwcConv", &["x8", "w"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
    // QLinearConv channels last
    put(&mut ctx, "xq", U8, &["N", "H", "W", "16"], None);
    put(&mut ctx, "wq", U8, &["32", "16", "1", "1"], None);
    put(&mut ctx, "s", F32, &[], None);
    put(&mut ctx, "z", U8, &[], None);
    let n = ms(
        "QLinearConv",
        &["xq", "s", "z", "wq", "s", "z", "s", "z"],
        &["y"],
        vec![("channels_last", int(1))],
    );
    assert_eq!(
        (out0(&mut ctx, &n), dtypes(&mut ctx, &n)[0]),
        ("[N, H, W, 32]".into(), U8)
    );
    // pools
    let n = ms(
        "QLinearAveragePool",
        &["xq", "s", "z", "s", "z"],
        &["y"],
        vec![
            ("kernel_shape", ints(&[2, 2])),
            ("strides", ints(&[2, 2])),
            ("channels_last", int(1)),
        ],
    );
    assert_eq!(
        out0(&mut ctx, &n),
        "[N, floordiv(H, 2), floordiv(W, 2), 16]"
    );
    let n = ms(
        "QLinearGlobalAveragePool",
        &["xq", "s", "z", "s", "z"],
        &["y"],
        vec![("channels_last", int(1))],
    );
    assert_eq!(out0(&mut ctx, &n), "[N, 1, 1, 16]");
    let n = ms(
        "NhwcMaxPool",
        &["xq"],
        &["y"],
        vec![("kernel_shape", ints(&[3, 3]))],
    );
    assert_eq!(out0(&mut ctx, &n), "[N, H - 2, W - 2, 16]");
    put(&mut ctx, "m", I32, &["N", "16", "H", "W"], None);
    let n = ms(
        "MaxpoolWithMask",
        &["xc", "m"],
        &["y"],
        vec![("kernel_shape", ints(&[2, 2])), ("strides", ints(&[2, 2]))],
    );
    assert_eq!(
        out0(&mut ctx, &n),
        "[N, 16, floordiv(H, 2), floordiv(W, 2)]"
    );
    let n = ms("NhwcMaxPool", &["xq"], &["y"], vec![]);
    assert!(matches!(
        err(&mut ctx, &n),
        OpError::MissingAttribute {
            name: "kernel_shape"
        }
    ));
}

#[test]
fn tensor_ops() {
    let mut ctx = ShapesContext::default();
    f32s(&mut ctx, "x", &["N", "M"]);
    put(&mut ctx, "ax", I32, &[], Some(&["-1"]));
    let n = ms("ExpandDims", &["x", "ax"], &["y"], vec![]);
    assert_eq!(out0(&mut ctx, &n), "[N, M, 1]");
    put(&mut ctx, "ax3", I32, &[], Some(&["3"]));
    let n = ms("ExpandDims", &["x", "ax3"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::AxisOutOfRange { .. }));
    put(&mut ctx, "axu", I32, &[], None);
    let n = ms("ExpandDims", &["x", "axu"], &["y"], vec![]);
    assert_eq!(out0(&mut ctx, &n).matches("unk").count(), 3);
    f32s(&mut ctx, "sq", &["B", "3", "3"]);
    assert_eq!(
        out0(&mut ctx, &ms("Inverse", &["sq"], &["y"], vec![])),
        "[B, 3, 3]"
    );
    f32s(&mut ctx, "ns", &["B", "3", "4"]);
    let n = ms("Inverse", &["ns"], &["y"], vec![]);
    assert!(matches!(err(&mut ctx, &n), OpError::DimMismatch { .. }));
    f32s(&mut ctx, "a", &["N", "4"]);
    f32s(&mut ctx, "b", &["M", "4"]);
    assert_eq!(
        out0(&mut ctx, &ms("CDist", &["a", "b"], &["y"], vec![])),
        "[N, M]"
    );
    // Unique: y and counts share one data-dependent length
    put(&mut ctx, "u", I64, &["N"], None);
    let n = ms("Unique", &["u"], &["y", "idx", "counts"], vec![]);
    let o = outs(&mut ctx, &n);
    assert_eq!(o[1], "[N]");
    assert_eq!(o[0], o[2]);
    assert!(o[0].starts_with("[unk"), "{o:?}");
    // DynamicTimeWarping: [2, O], int32
    let n = ms("DynamicTimeWarping", &["x"], &["y"], vec![]);
    let o = out0(&mut ctx, &n);
    assert!(o.starts_with("[2, unk"), "{o}");
    assert_eq!(dtypes(&mut ctx, &n), [I32]);
    // Range with two inputs: delta 1
    put(&mut ctx, "zero", I64, &[], Some(&["0"]));
    put(&mut ctx, "lim", I64, &[], Some(&["N"]));
    let n = ms("Range", &["zero", "lim"], &["y"], vec![]);
    assert_eq!(out0(&mut ctx, &n), "[N]");
    put(&mut ctx, "c3", I64, &[], Some(&["3"]));
    let n = ms("Range", &["zero", "c3"], &["y"], vec![]);
    let f = apply(&mut ctx, &n).unwrap();
    assert_eq!(value(&ctx, &f[0]), "[0, 1, 2]");
    // the ONNX forms
    f32s(&mut ctx, "img", &["N", "3", "H", "W"]);
    f32s(&mut ctx, "grid", &["N", "7", "9", "2"]);
    let n = ms("GridSample", &["img", "grid"], &["y"], vec![]);
    assert_eq!(out0(&mut ctx, &n), "[N, 3, 7, 9]");
    assert_eq!(
        out0(&mut ctx, &ms("Trilu", &["x"], &["y"], vec![])),
        "[N, M]"
    );
    put(&mut ctx, "pads", I64, &["4"], Some(&["0", "1", "2", "3"]));
    let n = ms("Pad", &["x", "pads"], &["y"], vec![]);
    assert_eq!(out0(&mut ctx, &n), "[N + 2, M + 4]");
    put(&mut ctx, "ix", I64, &["K", "1"], None);
    let n = ms("GatherND", &["x", "ix"], &["y"], vec![]);
    assert_eq!(out0(&mut ctx, &n), "[K, M]");
    // CropAndResize: [R, C, h, w]
    f32s(&mut ctx, "rois", &["R", "4"]);
    put(&mut ctx, "bi", I32, &["R"], None);
    put(&mut ctx, "crop", I32, &["2"], Some(&["7", "5"]));
    let n = ms(
        "CropAndResize",
        &["img", "rois", "bi", "crop"],
        &["y"],
        vec![],
    );
    assert_eq!(out0(&mut ctx, &n), "[R, 3, 7, 5]");
}

#[test]
fn paged_attention_and_hyper_connections() {
    let mut ctx = ShapesContext::default();
    let h = || vec![("num_heads", int(32)), ("kv_num_heads", int(8))];
    f32s(&mut ctx, "q", &["T", "4096"]);
    f32s(&mut ctx, "k", &["T", "1024"]);
    f32s(&mut ctx, "kc", &["NB", "16", "8", "128"]);
    put(&mut ctx, "cs", I32, &["B + 1"], None);
    put(&mut ctx, "ps", I32, &["B"], None);
    put(&mut ctx, "bt", I32, &["B", "MB"], None);
    let i = ["q", "k", "k", "kc", "kc", "cs", "ps", "bt"];
    let o = &["y", "kco", "vco"];
    let n = ms("PagedAttention", &i, o, h());
    assert_eq!(
        outs(&mut ctx, &n),
        ["[T, 4096]", "[NB, 16, 8, 128]", "[NB, 16, 8, 128]"]
    );
    // packed QKV: (32 + 2*8) * 128
    f32s(&mut ctx, "qkv", &["T", "6144"]);
    let i = ["qkv", "", "", "kc", "kc", "cs", "ps", "bt"];
    assert_eq!(
        out0(&mut ctx, &ms("PagedAttention", &i, o, h())),
        "[T, 4096]"
    );
    // the latent layout: h = D / N, v_head_size narrower
    let mut a = h();
    a.push(("kv_cache_layout", Attr::Str("LATENT".into())));
    a.push(("v_head_size", int(64)));
    let i = ["q", "", "", "kc", "", "cs", "ps", "bt"];
    assert_eq!(out0(&mut ctx, &ms("PagedAttention", &i, o, a)), "[T, 2048]");
    // SparsePagedAttention: PagedAttention's shapes, with the selection inputs
    put(&mut ctx, "sel", I32, &["T", "8"], None);
    put(&mut ctx, "cnt", I32, &["T"], None);
    let i = [
        "q", "k", "k", "kc", "kc", "cs", "ps", "bt", "", "sel", "cnt",
    ];
    let n = ms("SparsePagedAttention", &i, o, h());
    assert_eq!(outs(&mut ctx, &n)[..2], ["[T, 4096]", "[NB, 16, 8, 128]"]);
    // HyperConnectionLowRankMix: flattened streams [..., C*H]
    f32s(&mut ctx, "s", &["B", "S", "256"]);
    let n = ms(
        "HyperConnectionLowRankMix",
        &["s", "s", "s", "s", "s"],
        &["pre", "gate", "out"],
        vec![("num_branches", int(4))],
    );
    assert_eq!(
        outs(&mut ctx, &n),
        ["[B, S, 64]", "[B, S, 4]", "[B, S, 256]"]
    );
    let n = ms(
        "HyperConnectionLowRankMix",
        &["s", "s", "s", "s", "s"],
        &["pre"],
        vec![],
    );
    assert!(matches!(
        err(&mut ctx, &n),
        OpError::MissingAttribute {
            name: "num_branches"
        }
    ));
    // GemmFloat8: Gemm's [M, N] of the type `dtype`
    f32s(&mut ctx, "a", &["K", "M"]);
    f32s(&mut ctx, "b", &["K", "N"]);
    let n = ms(
        "GemmFloat8",
        &["a", "b"],
        &["y"],
        vec![("transA", int(1)), ("dtype", int(10))],
    );
    assert_eq!(out0(&mut ctx, &n), "[M, N]");
    assert_eq!(dtypes(&mut ctx, &n), [DType::Float16]);
}

#[test]
fn error_messages() {
    let mut ctx = ShapesContext::default();
    f32s(&mut ctx, "x", &["B", "S", "768"]);
    f32s(&mut ctx, "x4", &["1", "B", "S", "768"]);
    f32s(&mut ctx, "g5", &["5"]);
    f32s(&mut ctx, "w", &["768", "2000"]);
    f32s(&mut ctx, "bad", &["B", "S", "6008"]);
    put(&mut ctx, "sl", I32, &["B"], None);
    let cases = [
        ms(
            "SkipLayerNormalization",
            &["x4", "x4", "g5"],
            &["y"],
            vec![],
        ),
        ms("SkipLayerNormalization", &["x", "x", "g5"], &["y"], vec![]),
        ms("BiasGelu", &["x", "g5"], &["y"], vec![]),
        ms(
            "Attention",
            &["x", "w"],
            &["y"],
            vec![("num_heads", int(12))],
        ),
        ms(
            "Attention",
            &["x", "w"],
            &["y"],
            vec![("num_heads", int(0))],
        ),
        ms(
            "GroupQueryAttention",
            &["bad", "", "", "", "", "sl", "sl"],
            &["y"],
            vec![("num_heads", int(32)), ("kv_num_heads", int(8))],
        ),
        ms(
            "MatMulNBits",
            &["x", "g5", "g5"],
            &["y"],
            vec![("K", int(64)), ("N", int(8))],
        ),
        ms(
            "GroupNorm",
            &["x4", "g5", "g5"],
            &["y"],
            vec![("groups", int(7))],
        ),
        ms(
            "QLinearConcat",
            &["g5", "g5", "x"],
            &["y"],
            vec![("axis", int(0))],
        ),
    ];
    let msgs = rule_errors(&mut ctx, &cases);
    common::snapshots().bind(|| insta::assert_snapshot!("ops_contrib_errors", msgs.join("\n")));
}

// ----- against onnxruntime ------------------------------------------------------------------

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/ops_contrib/ort_cases.json"
);

#[test]
fn rules_match_onnxruntime() {
    let out = common::ort_cases::compare(&common::ort_cases::load(FIXTURE));
    let mut less_precise = out.less_precise;
    less_precise.sort();
    less_precise.dedup();
    eprintln!(
        "onnxruntime cases: {}, runs {}; output shapes exact {}, less precise {}, wrong {}",
        out.cases,
        out.runs,
        out.exact,
        less_precise.len(),
        out.wrong.len()
    );
    assert!(out.wrong.is_empty(), "wrong:\n{}", out.wrong.join("\n"));
    // Only the truly data-dependent outputs lack a closed form: DynamicTimeWarping's
    // path length and Unique's count.
    let names: Vec<&str> = less_precise
        .iter()
        .map(|s| s.split(' ').next().unwrap())
        .collect();
    assert_eq!(
        names,
        ["dynamic_time_warping", "unique", "unique"],
        "{less_precise:#?}"
    );
    assert!(
        out.cases >= 70 && out.runs >= 200,
        "{} cases, {} runs",
        out.cases,
        out.runs
    );
}

// ----- no panics ------------------------------------------------------------------------------

mod no_panic {
    use super::*;
    use proptest::prelude::*;

    const DTYPES: &[DType] = &[F32, I64, I32, U8, DType::Bool, DType::Undefined];
    const INTS: &[i64] = &[-5, -2, -1, 0, 1, 2, 3, 8, i64::MAX, i64::MIN];
    const ATTRS: &[&str] = &[
        "num_heads",
        "kv_num_heads",
        "K",
        "N",
        "axis",
        "groups",
        "transA",
        "transBatchB",
        "channels_last",
        "kernel_shape",
        "qkv_hidden_sizes",
        "bits",
        "past_present_share_buffer",
        "axes",
        "keepdims",
    ];

    /// Every com.microsoft rule.
    fn ops() -> Vec<&'static str> {
        symdim::ops::FAMILIES
            .iter()
            .flat_map(|f| f.iter())
            .filter(|(d, _, _)| *d == MS)
            .map(|(_, op, _)| *op)
            .collect()
    }

    use models::arb::Inputs;

    /// Constant dims 0, 2, 4, 6; codes 4 and 5 the symbols `N` and `S`.
    const INPUTS: Inputs = Inputs {
        codes: 6,
        scale: 2,
        max_rank: 6,
        max_values: 4,
    };

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        #[test]
        fn rules_never_panic(
            op in any::<prop::sample::Index>(),
            ins in prop::collection::vec(INPUTS.input(DTYPES.len(), INTS.len()), 0..12),
            attrs in prop::collection::vec((0..ATTRS.len(), 0..INTS.len(), prop::collection::vec(0..INTS.len(), 0..4)), 0..5),
        ) {
            let all = ops();
            let op = all[op.index(all.len())];
            let mut ctx = ShapesContext::default();
            let names = INPUTS.put(&mut ctx, &ins, DTYPES, INTS);
            let a = attrs
                .iter()
                .map(|(k, v, vs)| {
                    let attr = match ATTRS[*k] {
                        "kernel_shape" | "qkv_hidden_sizes" | "axes" => {
                            Attr::Ints(vs.iter().map(|x| INTS[*x]).collect())
                        }
                        _ => Attr::Int(INTS[*v]),
                    };
                    (ATTRS[*k], attr)
                })
                .collect();
            let inputs: Vec<&str> = names.iter().map(String::as_str).collect();
            let n = ms(op, &inputs, &["y0", "y1", "y2", "y3"], a);
            let _ = apply(&mut ctx, &n);
        }
    }
}

/// DynamicQuantizeLSTM from its schema (`quantization_defs.cc`): `W` `[D, input,
/// 4*H]` and `R` `[D, H, 4*H]`, H from `R` without `hidden_size`; outputs as LSTM's
/// (layout 0), float; per-channel scales `[D, 4*H]`; a `W` whose last dim is not
/// `4*H` is an error.
#[test]
fn dynamic_quantize_lstm_reads_transposed_weights() {
    let mut ctx = ShapesContext::default();
    f32s(&mut ctx, "x", &["S", "B", "6"]);
    put(&mut ctx, "w", DType::Int8, &["2", "6", "20"], None);
    put(&mut ctx, "r", DType::Int8, &["2", "5", "20"], None);
    put(&mut ctx, "w_bad", DType::Int8, &["2", "6", "24"], None);
    f32s(&mut ctx, "sc", &["2", "20"]);
    put(&mut ctx, "zp", DType::Int8, &["2", "20"], None);
    f32s(&mut ctx, "h0", &["2", "N", "5"]);
    let ins = |w: &'static str| ["x", w, "r", "", "", "h0", "", "", "sc", "zp", "sc", "zp"];
    let dir = vec![("direction", Attr::Str("bidirectional".into()))];
    let n = ms(
        "DynamicQuantizeLSTM",
        &ins("w"),
        &["y", "yh", "yc"],
        dir.clone(),
    );
    assert_eq!(
        outs(&mut ctx, &n),
        ["[S, 2, B, 5]", "[2, B, 5]", "[2, B, 5]"]
    );
    assert_eq!(dtypes(&mut ctx, &n), [F32, F32, F32]);
    // initial_h's batch is the input's batch: N == B was required.
    let n_dim = ctx.alg.parse("N").unwrap();
    assert_eq!(ctx.alg.render(n_dim), "B");
    let bad = ms("DynamicQuantizeLSTM", &ins("w_bad"), &["y"], dir);
    assert!(matches!(err(&mut ctx, &bad), OpError::DimMismatch { .. }));
}
