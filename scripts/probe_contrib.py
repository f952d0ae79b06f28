"""Ground truth for the com.microsoft rules: onnxruntime's real output shapes.

Each case is a small ONNX graph (one contrib node, sometimes with the few default-domain
nodes that compute a shape input such as GroupQueryAttention's
`total_sequence_length`) whose inputs have symbolic dims (dim_params). The script runs
it with onnxruntime's CPU provider at several bindings of the symbols and records the
output shapes and element types; `tests/it/ops/contrib.rs` infers each graph once,
symbolically, evaluates every output dim at each binding and compares.

An op onnxruntime has no CPU kernel for (BiasAdd, GroupNorm, PackedAttention, ... the
CUDA-only ones) cannot run here: its case is listed under `not_run` with the error, and
`tests/it/ops/contrib.rs` checks it by hand from the op's schema instead.

Verification only: needs `onnx`, `onnxruntime` and `numpy` in a venv (here
`/work/venv-zoo`); the crate never depends on them.

    /work/venv-zoo/bin/python scripts/probe_contrib.py \\
        > tests/fixtures/ops_contrib/ort_cases.json
"""

import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "."))
import ortcases  # noqa: E402  (scripts/ortcases.py: the generators' shared helpers)

RNG = np.random.default_rng(0)
ort.set_default_logger_severity(4)
CASES = []
NOT_RUN = []
MS = "com.microsoft"

F = TensorProto.FLOAT
I64 = TensorProto.INT64
I32 = TensorProto.INT32
U8 = TensorProto.UINT8
I8 = TensorProto.INT8
I16 = TensorProto.INT16
B = TensorProto.BOOL
NP = ortcases.NP


def ms(op, inputs, outputs, **kw):
    return helper.make_node(op, inputs, outputs, domain=MS, **kw)


def run_shared(runner, outputs, feeds, shared):
    """Run with I/O binding, each output of `shared` (output -> input) written into
    its input's buffer (SparseAttention's CPU kernel wants past and present to be
    one buffer)."""
    io = runner.io_binding()
    values = {}
    for n, a in feeds.items():
        values[n] = ort.OrtValue.ortvalue_from_numpy(a)
        io.bind_ortvalue_input(n, values[n])
    for o in outputs:
        if o in shared:
            io.bind_ortvalue_output(o, values[shared[o]])
        else:
            io.bind_output(o)
    runner.run_with_iobinding(io)
    return [v.numpy() for v in io.get_outputs()]


def case(name, inputs, nodes, outputs, bindings, inits=(), data=None, opset=17, shared=None):
    """inputs: [(name, elem_type, dims)] with str dims symbolic.
    inits: [(name, numpy array)]. bindings: list of dicts symbol -> int.
    data: input name -> function(shape, binding) giving the feed. shared: output
    -> the input whose buffer it shares."""
    model = ortcases.make_model(name, inputs, nodes, outputs, inits, [("", opset), (MS, 1)], ir_version=10)
    try:
        runner = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    except Exception as e:  # no CPU kernel
        NOT_RUN.append({"name": name, "error": str(e).splitlines()[0][:200]})
        return
    runs = []
    skipped = []
    for b in bindings:
        feeds = {}
        for n, t, d in inputs:
            shape = [b[x] if isinstance(x, str) else x for x in d]
            if data and n in data:
                feeds[n] = np.asarray(data[n](shape, b)).astype(NP[t])
            elif t in (TensorProto.FLOAT, TensorProto.DOUBLE):
                feeds[n] = RNG.standard_normal(shape).astype(NP[t])
            else:
                feeds[n] = RNG.integers(0, 3, shape).astype(NP[t])
        try:
            res = run_shared(runner, outputs, feeds, shared) if shared else runner.run(outputs, feeds)
        except Exception as e:  # invalid binding for this op
            skipped.append(str(e).splitlines()[0][:300]); print(name, b, skipped[-1], file=sys.stderr)
            continue
        runs.append({
            "bind": b,
            "shapes": {o: list(r.shape) for o, r in zip(outputs, res)},
            "dtypes": {o: helper.np_dtype_to_tensor_dtype(r.dtype) for o, r in zip(outputs, res)},
        })
    if not runs:
        NOT_RUN.append({"name": name, "error": "no binding ran: " + (skipped[0] if skipped else "")})
        return
    CASES.append(ortcases.case_json(name, opset, inputs, inits, nodes, outputs, runs, len(skipped),
                                    domain=True))


def f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def i64(*v):
    return np.array(v, dtype=np.int64)


def i32(*v):
    return np.array(v, dtype=np.int32)


def ints_below(n, typ=np.int64):
    return lambda s, b: RNG.integers(0, n, s).astype(typ)


def full(v):
    return lambda s, b: np.full(s, v)


BS = [{"B": b, "S": s} for b, s in [(1, 1), (2, 5), (3, 8)]]
BSP = [{"B": b, "S": s, "P": p} for b, s, p in [(1, 1, 0), (2, 3, 4), (3, 1, 7), (1, 6, 2), (2, 1, 5)]]
BSL = [{"B": b, "S": s, "L": l} for b, s, l in [(1, 1, 1), (2, 3, 5), (3, 4, 2)]]
NM = [{"N": n, "M": m} for n, m in [(1, 1), (2, 5), (4, 3)]]

# ---- activations ---------------------------------------------------------------------
case("gelu", [("x", F, ["B", "S", 8])], [ms("Gelu", ["x"], ["y"])], ["y"], BS)
case("quick_gelu", [("x", F, ["B", "S", 8])], [ms("QuickGelu", ["x"], ["y"], alpha=1.5)], ["y"], BS)
case("fast_gelu", [("x", F, ["B", "S", 8])], [ms("FastGelu", ["x"], ["y"])], ["y"], BS)
case("fast_gelu_bias", [("x", F, ["B", "S", 8]), ("b", F, [8])],
     [ms("FastGelu", ["x", "b"], ["y"])], ["y"], BS)
case("bias_gelu", [("x", F, ["B", "S", 8]), ("b", F, [8])],
     [ms("BiasGelu", ["x", "b"], ["y"])], ["y"], BS)
case("bias_add", [("x", F, ["B", "S", 8]), ("b", F, [8]), ("s", F, ["B", "S", 8])],
     [ms("BiasAdd", ["x", "b", "s"], ["y"])], ["y"], BS)
case("bias_split_gelu", [("x", F, ["B", "S", 8]), ("b", F, [8])],
     [ms("BiasSplitGelu", ["x", "b"], ["y"])], ["y"], BS)
case("bias_softmax", [("x", F, ["B", 2, "S", "S"]), ("b", F, ["B", 1, "S", "S"])],
     [ms("BiasSoftmax", ["x", "b"], ["y"], axis=-1, is_inner_broadcast=0)], ["y"], BS)
case("bias_dropout", [("x", F, ["B", "S", 8]), ("b", F, [8])],
     [ms("BiasDropout", ["x", "b"], ["y", "m"])], ["y", "m"], BS)

# ---- layer normalisations ---------------------------------------------------------------
for op in ("SkipLayerNormalization", "SkipSimplifiedLayerNormalization"):
    simp = op.startswith("SkipSimplified")
    vecs = ["g", "bias"] if simp else ["g", "beta", "bias"]
    vec_in = [(v, F, [8]) for v in vecs]
    for skip_shape, tag in [(["B", "S", 8], "full"), ([1, "S", 8], "one"), (["S", 8], "2d")]:
        case(f"{op.lower()}_{tag}", [("x", F, ["B", "S", 8]), ("s", F, skip_shape)] + vec_in,
             [ms(op, ["x", "s"] + vecs, ["y", "mean", "inv", "sum"], epsilon=1e-5)],
             ["y", "mean", "inv", "sum"], BS)
    case(f"{op.lower()}_tokens", [("x", F, ["T", 8]), ("s", F, ["T", 8]), ("g", F, [8])],
         [ms(op, ["x", "s", "g"], ["y", "mean", "inv", "sum"])], ["y", "mean", "inv", "sum"],
         [{"T": t} for t in (1, 4, 9)])
    case(f"{op.lower()}_one_output", [("x", F, ["B", "S", 8]), ("s", F, ["B", "S", 8]), ("g", F, [8])],
         [ms(op, ["x", "s", "g"], ["y"])], ["y"], BS)
for axis, sshape in [(-1, [8]), (1, ["S", 8])]:
    case(f"simplified_layer_norm_axis{axis}", [("x", F, ["B", "S", 8]), ("g", F, sshape)],
         [helper.make_node("SimplifiedLayerNormalization", ["x", "g"], ["y", "inv"], axis=axis)],
         ["y", "inv"], BS)
case("layer_norm_ort_v1", [("x", F, ["B", "S", 8]), ("g", F, ["S", 8]), ("b", F, ["S", 8])],
     [helper.make_node("LayerNormalization", ["x", "g", "b"], ["y", "m", "inv"], axis=1)],
     ["y", "m", "inv"], BS, opset=16)
# embeddings
emb_inits = [("word", f32(30, 8)), ("pos", f32(16, 8)), ("seg", f32(2, 8)),
             ("gamma", f32(8)), ("beta", f32(8))]
case("embed_layer_norm", [("ids", I32, ["B", "S"]), ("sid", I32, ["B", "S"]), ("mask", I32, ["B", "S"])],
     [ms("EmbedLayerNormalization", ["ids", "sid", "word", "pos", "seg", "gamma", "beta", "mask"],
         ["y", "mi", "sum"], epsilon=1e-5)], ["y", "mi", "sum"], BS, inits=emb_inits,
     data={"ids": ints_below(30, np.int32), "sid": ints_below(2, np.int32), "mask": full(1)})
case("embed_layer_norm_no_segment", [("ids", I32, ["B", "S"])],
     [ms("EmbedLayerNormalization", ["ids", "", "word", "pos", "", "gamma", "beta"], ["y", "mi"])],
     ["y", "mi"], BS, inits=emb_inits, data={"ids": ints_below(30, np.int32)})


def quant(a):
    return np.clip(np.round(a * 20) + 128, 0, 255).astype(np.uint8)


qemb = [("wq", quant(f32(30, 8))), ("pq", quant(f32(16, 8))), ("sq", quant(f32(2, 8))),
        ("gq", quant(f32(8))), ("bq", quant(f32(8)))]
qemb += [(n, np.array(0.05, np.float32)) for n in ("ws", "ps", "ss", "gs", "bs")]
qemb += [(n, np.array(128, np.uint8)) for n in ("wz", "pz", "sz", "gz", "bz")]
case("qembed_layer_norm", [("ids", I32, ["B", "S"]), ("sid", I32, ["B", "S"]), ("mask", I32, ["B", "S"])],
     [ms("QEmbedLayerNormalization",
         ["ids", "sid", "wq", "pq", "sq", "gq", "bq", "mask", "ws", "ps", "ss", "gs", "bs",
          "wz", "pz", "sz", "gz", "bz"], ["y", "mi"])], ["y", "mi"], BS, inits=qemb,
     data={"ids": ints_below(30, np.int32), "sid": ints_below(2, np.int32), "mask": full(1)})
case("group_norm", [("x", F, ["B", "S", "S", 8])],
     [ms("GroupNorm", ["x", "g", "b"], ["y"], groups=4, activation=0, epsilon=1e-5)], ["y"], BS,
     inits=[("g", f32(8)), ("b", f32(8))])
case("skip_group_norm", [("x", F, ["B", "S", "S", 8]), ("s", F, ["B", "S", "S", 8])],
     [ms("SkipGroupNorm", ["x", "g", "b", "s"], ["y", "sum"], groups=4, activation=0)], ["y", "sum"], BS,
     inits=[("g", f32(8)), ("b", f32(8))])

# ---- attention --------------------------------------------------------------------------
att_w = [("w", f32(16, 48)), ("bias", f32(48))]
case("attention", [("x", F, ["B", "S", 16])],
     [ms("Attention", ["x", "w", "bias"], ["y", "present"], num_heads=2)], ["y", "present"], BS, inits=att_w)
case("attention_mask", [("x", F, ["B", "S", 16]), ("m", I32, ["B", "S"])],
     [ms("Attention", ["x", "w", "bias", "m"], ["y"], num_heads=2)], ["y"], BS, inits=att_w, data={"m": full(1)})
case("attention_past", [("x", F, ["B", "S", 16]), ("m", I32, ["B", "T"]), ("past", F, [2, "B", 2, "P", 8])],
     [ms("Attention", ["x", "w", "bias", "m", "past"], ["y", "present"], num_heads=2, unidirectional=1)],
     ["y", "present"], [dict(b, T=b["S"] + b["P"]) for b in BSP], inits=att_w, data={"m": full(1)})
case("attention_qkv_sizes", [("x", F, ["B", "S", 16])],
     [ms("Attention", ["x", "w", "bias"], ["y"], num_heads=2, qkv_hidden_sizes=[16, 16, 8])], ["y"], BS,
     inits=[("w", f32(16, 40)), ("bias", f32(40))])
case("attention_no_bias", [("x", F, ["B", "S", 16])],
     [ms("Attention", ["x", "w"], ["y"], num_heads=4)], ["y"], BS, inits=[("w", f32(16, 48))])
qatt = [("w", quant(f32(16, 48))), ("bias", f32(48)), ("xs", np.array(0.05, np.float32)),
        ("wsc", np.array(0.05, np.float32)), ("xz", np.array(128, np.uint8)), ("wz", np.array(128, np.uint8))]
case("qattention", [("x", U8, ["B", "S", 16])],
     [ms("QAttention", ["x", "w", "bias", "xs", "wsc", "", "xz", "wz"], ["y"], num_heads=2)], ["y"], BS,
     inits=qatt, data={"x": ints_below(255, np.uint8)})
case("qattention_past", [("x", U8, ["B", "S", 16]), ("past", F, [2, "B", 2, "P", 8])],
     [ms("QAttention", ["x", "w", "bias", "xs", "wsc", "", "xz", "wz", "past"], ["y", "present"],
         num_heads=2, unidirectional=1)], ["y", "present"], BSP, inits=qatt, data={"x": ints_below(255, np.uint8)})
# MultiHeadAttention
case("mha", [("q", F, ["B", "S", 16]), ("k", F, ["B", "L", 16]), ("v", F, ["B", "L", 8])],
     [ms("MultiHeadAttention", ["q", "k", "v"], ["y"], num_heads=2)], ["y"], BSL)
case("mha_present", [("q", F, ["B", "S", 16]), ("k", F, ["B", "S", 16]), ("v", F, ["B", "S", 16]),
                     ("pk", F, ["B", 2, "P", 8]), ("pv", F, ["B", 2, "P", 8])],
     [ms("MultiHeadAttention", ["q", "k", "v", "", "", "", "pk", "pv"], ["y", "prk", "prv"], num_heads=2)],
     ["y", "prk", "prv"], BSP)
case("mha_present_no_past", [("q", F, ["B", "S", 16]), ("k", F, ["B", "L", 16]), ("v", F, ["B", "L", 16])],
     [ms("MultiHeadAttention", ["q", "k", "v"], ["y", "prk", "prv"], num_heads=2)],
     ["y", "prk", "prv"], BSL)
case("mha_packed_kv", [("q", F, ["B", "S", 16]), ("kv", F, ["B", "L", 2, 2, 8])],
     [ms("MultiHeadAttention", ["q", "kv"], ["y"], num_heads=2)], ["y"], BSL)
case("mha_packed_qkv", [("qkv", F, ["B", "S", 2, 3, 8])],
     [ms("MultiHeadAttention", ["qkv"], ["y"], num_heads=2)], ["y"], BS)
case("mha_cross", [("q", F, ["B", "S", 16]), ("k", F, ["B", 2, "L", 8]), ("v", F, ["B", 2, "L", 8])],
     [ms("MultiHeadAttention", ["q", "k", "v"], ["y", "prk", "prv"], num_heads=2)], ["y", "prk", "prv"], BSL)


# GroupQueryAttention: total_sequence_length = past length + new length, computed in the graph
def total_len(key, past, out):
    return [
        helper.make_node("Shape", [key], [out + "_k"], start=1, end=2),
        helper.make_node("Shape", [past], [out + "_p"], start=2, end=3),
        helper.make_node("Add", [out + "_k", out + "_p"], [out + "_t"]),
        helper.make_node("Cast", [out + "_t"], [out + "_c"], to=I32),
        helper.make_node("Squeeze", [out + "_c", "zero"], [out]),
    ]


def seqlens(b):
    return lambda s, bb: np.full(s, bb["S"] + bb["P"] - 1)


gqa_in = [("q", F, ["B", "S", 32]), ("k", F, ["B", "S", 16]), ("v", F, ["B", "S", 16]),
          ("pk", F, ["B", 2, "P", 8]), ("pv", F, ["B", 2, "P", 8]), ("sl", I32, ["B"])]
case("gqa", gqa_in,
     total_len("k", "pk", "tsl") +
     [ms("GroupQueryAttention", ["q", "k", "v", "pk", "pv", "sl", "tsl"], ["y", "prk", "prv"],
         num_heads=4, kv_num_heads=2)], ["y", "prk", "prv"], BSP,
     inits=[("zero", i64(0))], data={"sl": seqlens(0)})
case("gqa_packed", [("q", F, ["B", "S", 64]), ("pk", F, ["B", 2, "P", 8]), ("pv", F, ["B", 2, "P", 8]),
                    ("sl", I32, ["B"]), ("shape_src", F, ["B", "S"])],
     total_len("shape_src", "pk", "tsl") +
     [ms("GroupQueryAttention", ["q", "", "", "pk", "pv", "sl", "tsl"], ["y", "prk", "prv"],
         num_heads=4, kv_num_heads=2)], ["y", "prk", "prv"], BSP,
     inits=[("zero", i64(0))], data={"sl": seqlens(0)})
case("gqa_no_past", [("q", F, ["B", "S", 32]), ("k", F, ["B", "S", 16]), ("v", F, ["B", "S", 16]),
                     ("sl", I32, ["B"])],
     [helper.make_node("Shape", ["k"], ["tk"], start=1, end=2),
      helper.make_node("Cast", ["tk"], ["tc"], to=I32),
      helper.make_node("Squeeze", ["tc", "zero"], ["tsl"]),
      ms("GroupQueryAttention", ["q", "k", "v", "", "", "sl", "tsl"], ["y", "prk", "prv"],
         num_heads=4, kv_num_heads=2)], ["y", "prk", "prv"], BS,
     inits=[("zero", i64(0))], data={"sl": lambda s, b: np.full(s, b["S"] - 1)})
# DecoderMaskedMultiHeadAttention with a shared buffer of max length M
case("dmmha", [("q", F, ["B", 1, 16]), ("k", F, ["B", 1, 16]), ("v", F, ["B", 1, 16]),
               ("pk", F, ["B", 2, "M", 8]), ("pv", F, ["B", 2, "M", 8]), ("psl", I32, [1])],
     [ms("DecoderMaskedMultiHeadAttention", ["q", "k", "v", "", "", "pk", "pv", "psl"],
         ["y", "prk", "prv"], num_heads=2, past_present_share_buffer=1)], ["y", "prk", "prv"],
     [{"B": b, "M": m} for b, m in [(1, 4), (2, 8), (3, 5)]], data={"psl": full(2)})
case("dmmha_cross", [("q", F, ["B", 1, 16]), ("k", F, ["B", 2, "L", 8]), ("v", F, ["B", 2, "L", 8])],
     [ms("DecoderMaskedMultiHeadAttention", ["q", "k", "v"], ["y"], num_heads=2)], ["y"],
     [{"B": b, "L": l} for b, l in [(1, 4), (2, 8), (3, 5)]])
case("decoder_masked_self_attention",
     [("x", F, ["B", 1, 16]), ("past", F, [2, "B", 2, "M", 8]), ("psl", I32, [1])],
     [ms("DecoderMaskedSelfAttention", ["x", "w", "bias", "", "past", "", "psl"], ["y", "present"],
         num_heads=2, past_present_share_buffer=1)], ["y", "present"],
     [{"B": b, "M": m} for b, m in [(1, 4), (2, 8)]], inits=att_w, data={"psl": full(2)})
case("rotary_embedding_3d", [("x", F, ["B", "S", 16]), ("pos", I64, ["B", "S"])],
     [ms("RotaryEmbedding", ["x", "pos", "cos", "sin"], ["y"])], ["y"], BS,
     inits=[("cos", f32(16, 4)), ("sin", f32(16, 4))], data={"pos": ints_below(8)})
case("rotary_embedding_4d", [("x", F, ["B", 2, "S", 8]), ("pos", I64, ["B", "S"])],
     [ms("RotaryEmbedding", ["x", "pos", "cos", "sin"], ["y"])], ["y"], BS,
     inits=[("cos", f32(16, 4)), ("sin", f32(16, 4))], data={"pos": ints_below(8)})
case("packed_attention", [("x", F, ["T", 16]), ("to", I32, ["B", "S"]), ("cs", I32, ["B1"])],
     [ms("PackedAttention", ["x", "w", "bias", "to", "cs"], ["y"], num_heads=2)], ["y"],
     [{"T": 3, "B": 1, "S": 3, "B1": 2}], inits=att_w)
case("packed_mha", [("q", F, ["T", 16]), ("k", F, ["T", 16]), ("v", F, ["T", 8]), ("to", I32, ["B", "S"]),
                    ("cs", I32, ["B1"])],
     [ms("PackedMultiHeadAttention", ["q", "k", "v", "", "to", "cs"], ["y"], num_heads=2)], ["y"],
     [{"T": 3, "B": 1, "S": 3, "B1": 2}])
case("longformer_attention", [("x", F, ["B", "S", 16])],
     [ms("LongformerAttention", ["x", "w", "bias", "m", "gw", "gb", "gl"], ["y"], num_heads=2, window=2)],
     ["y"], BS, inits=att_w + [("m", f32(1, 1)), ("gw", f32(16, 48)), ("gb", f32(48)), ("gl", i32(0))])
case("relative_position_bias", [("t", F, [32, 2])],
     [ms("RelativePositionBias", ["t", "ql", "kl"], ["y"], max_distance=16, is_bidirectional=1)], ["y"],
     [{}], inits=[("ql", i64(3)), ("kl", i64(5))])
case("remove_padding", [("x", F, ["B", "S", 8]), ("c", I32, ["B"])],
     [ms("RemovePadding", ["x", "c"], ["y", "to", "cs", "mx"])], ["y", "to", "cs", "mx"], BS)
case("restore_padding", [("x", F, ["T", 8]), ("to", I32, ["B", "S"])],
     [ms("RestorePadding", ["x", "to"], ["y"])], ["y"], [{"T": 3, "B": 2, "S": 2}])
case("moe", [("x", F, ["T", 8]), ("r", F, ["T", 4])],
     [ms("MoE", ["x", "r", "fc1", "", "fc2"], ["y"], k=2, activation_type="relu")], ["y"],
     [{"T": t} for t in (1, 5, 9)], inits=[("fc1", f32(4, 16, 8)), ("fc2", f32(4, 8, 16))])

# newer ops: hyper-connections, branch-wise RMS norm, scaled SiLU, paged attention
case("scaled_silu", [("x", F, ["B", "S", 8])], [ms("ScaledSiLU", ["x"], ["y"], alpha=1.5)], ["y"], BS)
case("branchwise_rms_norm", [("x", F, ["B", "S", 4, 8])], [ms("BranchwiseRMSNorm", ["x"], ["y"])], ["y"], BS)
case("branchwise_rms_norm_flat", [("x", F, ["B", "S", 32]), ("g", F, [32])],
     [ms("BranchwiseRMSNorm", ["x", "g"], ["y"], num_branches=4)], ["y"], BS)
case("hyper_connection_pre_mix", [("x", F, ["B", "S", 4, 8]), ("m", F, ["B", "S", 4])],
     [ms("HyperConnectionPreMix", ["x", "m"], ["y"])], ["y"], BS)
case("hyper_connection_pre_mix_flat", [("x", F, ["B", "S", 32]), ("m", F, ["B", "S", 4])],
     [ms("HyperConnectionPreMix", ["x", "m"], ["y"], num_branches=4)], ["y"], BS)
case("hyper_connection_post_mix", [("x", F, ["B", "S", 4, 8]), ("o", F, ["B", "S", 8]), ("m", F, ["B", "S", 4])],
     [ms("HyperConnectionPostMix", ["x", "o", "m"], ["y"])], ["y"], BS)
case("hyper_connection_low_rank_mix", [("x", F, ["B", "S", 32])],
     [ms("HyperConnectionLowRankMix", ["x", "ns", "dw", "uw", "iw"], ["pre", "gate", "out"], num_branches=4)],
     ["pre", "gate", "out"], BS,
     inits=[("ns", f32(32)), ("dw", f32(32, 6)), ("uw", f32(6, 32)), ("iw", f32(32, 4))])
case("paged_attention", [("q", F, ["T", 32]), ("k", F, ["T", 16]), ("v", F, ["T", 16]),
                         ("kc", F, ["NB", 16, 2, 8]), ("vc", F, ["NB", 16, 2, 8]), ("cs", I32, ["B1"]),
                         ("ps", I32, ["B"]), ("bt", I32, ["B", 4])],
     [ms("PagedAttention", ["q", "k", "v", "kc", "vc", "cs", "ps", "bt"], ["y", "kco", "vco"],
         num_heads=4, kv_num_heads=2)], ["y", "kco", "vco"], [{"T": 3, "NB": 4, "B": 1, "B1": 2}])
case("gemm_float8", [("a", F, ["N", 4]), ("b", F, [4, "M"])],
     [ms("GemmFloat8", ["a", "b"], ["y"], dtype=F)], ["y"], NM)

# ---- tensor ops --------------------------------------------------------------------------------
case("dynamic_time_warping", [("x", F, ["N", "M"])], [ms("DynamicTimeWarping", ["x"], ["y"])], ["y"], NM)
case("unique", [("x", F, ["N"])], [ms("Unique", ["x"], ["y", "i", "c"])], ["y", "i", "c"],
     [{"N": n} for n in (1, 4, 9)])
case("inverse", [("x", F, ["N", 3, 3])], [ms("Inverse", ["x"], ["y"])], ["y"], NM)
case("cdist", [("a", F, ["N", 4]), ("b", F, ["M", 4])], [ms("CDist", ["a", "b"], ["y"], metric="euclidean")],
     ["y"], NM)
for ax in (0, -1, 2):
    case(f"expand_dims_{ax}", [("x", F, ["N", "M"])], [ms("ExpandDims", ["x", "a"], ["y"])], ["y"], NM,
         inits=[("a", np.array(ax, np.int32))])
case("unfold_tensor", [("x", F, ["N", "M", 9])], [ms("UnfoldTensor", ["x"], ["y"], dim=-1, size=3, step=2)],
     ["y"], NM)
case("unfold_tensor_dim1", [("x", F, [2, "M", "N"])], [ms("UnfoldTensor", ["x"], ["y"], dim=1, size=1)],
     ["y"], NM)
case("grid_sample", [("x", F, ["N", 2, "M", 5]), ("g", F, ["N", 3, "M", 2])],
     [ms("GridSample", ["x", "g"], ["y"])], ["y"], NM)
case("trilu", [("x", F, ["N", "M", 4])], [ms("Trilu", ["x"], ["y"], upper=0)], ["y"], NM)
case("range_2", [("x", F, ["N", "M"])],
     [helper.make_node("Shape", ["x"], ["s"]),
      helper.make_node("Gather", ["s", "one"], ["lim"]),
      ms("Range", ["start", "lim"], ["y"])], ["y"], NM, inits=[("one", i64(1)), ("start", i64(0))])
case("range_3", [("x", F, ["N", "M"])],
     [helper.make_node("Shape", ["x"], ["s"]),
      helper.make_node("Gather", ["s", "one"], ["lim"]),
      ms("Range", ["start", "lim", "d"], ["y"])], ["y"], NM,
     inits=[("one", i64(1)), ("start", i64(1)), ("d", i64(2))])
case("pad", [("x", F, ["N", "M"])], [ms("Pad", ["x", "p"], ["y"], mode="constant")], ["y"], NM,
     inits=[("p", i64(0, 1, 2, 3))])
case("gather_nd", [("x", F, ["N", "M", 4]), ("i", I64, ["N", 2])], [ms("GatherND", ["x", "i"], ["y"])], ["y"],
     NM, data={"i": lambda s, b: RNG.integers(0, min(b["N"], b["M"]), s)})
case("crop_and_resize", [("x", F, ["N", 3, "M", 6]), ("r", F, ["R", 4]), ("bi", I32, ["R"])],
     [ms("CropAndResize", ["x", "r", "bi", "cs"], ["y"])], ["y"],
     [dict(b, R=r) for b, r in zip(NM, (1, 2, 5))], inits=[("cs", i32(3, 5))],
     data={"r": lambda s, b: RNG.random(s), "bi": full(0)})

# ---- matrix products ---------------------------------------------------------------------------
mm = [
    ("2d", ["N", 4], [4, "M"], {}),
    ("trans_a", [4, "N"], [4, "M"], {"transA": 1}),
    ("trans_b", ["N", 4], ["M", 4], {"transB": 1}),
    ("batched", [2, "N", 4], [4, "M"], {}),
    ("batched_both", [2, "N", 4], [2, "M", 4], {"transB": 1}),
    ("trans_batch_a", ["N", 2, 4], [2, 4, "M"], {"transBatchA": 1}),
    ("trans_batch_b", [2, "N", 4], [4, 2, "M"], {"transBatchB": 1}),
    ("trans_batch_both", ["N", 3, 2, 4], [4, 3, 2, "M"], {"transBatchA": 1, "transBatchB": 1}),
    ("trans_batch_a_trans_a", [4, 2, "N"], [2, 4, "M"], {"transBatchA": 1, "transA": 1}),
    ("vector", [4], [4, "M"], {}),
]
for tag, sa, sb, kw in mm:
    case(f"fused_matmul_{tag}", [("a", F, sa), ("b", F, sb)],
         [ms("FusedMatMul", ["a", "b"], ["y"], alpha=0.5, **kw)], ["y"], NM)
case("transpose_matmul", [("a", F, [4, "N"]), ("b", F, [4, "M"])],
     [ms("TransposeMatMul", ["a", "b"], ["y"], transA=1)], ["y"], NM)
case("fused_gemm", [("a", F, [4, "N"]), ("b", F, ["M", 4]), ("c", F, ["M"])],
     [ms("FusedGemm", ["a", "b", "c"], ["y"], transA=1, transB=1, activation="Relu")], ["y"], NM)
case("gemm_fast_gelu", [("a", F, ["N", 4]), ("b", F, [4, "M"])],
     [ms("GemmFastGelu", ["a", "b"], ["y"])], ["y"], NM)
nbits_w = [("wq", RNG.integers(0, 255, (16, 2, 8)).astype(np.uint8)), ("sc", f32(16, 2))]
case("matmul_nbits", [("a", F, ["N", "M", 32])],
     [ms("MatMulNBits", ["a", "wq", "sc"], ["y"], K=32, N=16, bits=4, block_size=16)], ["y"], NM, inits=nbits_w)
case("matmul_nbits_2d_zp_bias", [("a", F, ["N", 32])],
     [ms("MatMulNBits", ["a", "wq", "sc", "zp", "", "bias"], ["y"], K=32, N=16, bits=4, block_size=16)],
     ["y"], NM, inits=nbits_w + [("zp", RNG.integers(0, 255, (16, 1)).astype(np.uint8)), ("bias", f32(16))])
case("matmul_nbits_8bit", [("a", F, ["N", 32])],
     [ms("MatMulNBits", ["a", "w8", "sc"], ["y"], K=32, N=16, bits=8, block_size=16)], ["y"], NM,
     inits=[("w8", RNG.integers(0, 255, (16, 2, 16)).astype(np.uint8)), ("sc", f32(16, 2))])
case("matmul_bnb4", [("a", F, ["N", 32])],
     [ms("MatMulBnb4", ["a", "wq", "am"], ["y"], K=32, N=16, block_size=16, quant_type=1)], ["y"], NM,
     inits=[("wq", RNG.integers(0, 255, (256,)).astype(np.uint8)), ("am", np.abs(f32(32)))])
case("matmul_integer16", [("a", I16, ["N", 4]), ("b", I16, [4, "M"])],
     [ms("MatMulInteger16", ["a", "b"], ["y"])], ["y"], NM)
case("matmul_integer_to_float", [("a", U8, [2, "N", 4]), ("b", I8, [4, "M"])],
     [ms("MatMulIntegerToFloat", ["a", "b", "as", "bs"], ["y"])], ["y"], NM,
     inits=[("as", np.array(0.1, np.float32)), ("bs", np.array(0.2, np.float32))])
case("dynamic_quantize_matmul", [("a", F, ["N", 4]), ("b", I8, [4, "M"])],
     [ms("DynamicQuantizeMatMul", ["a", "b", "bs"], ["y"])], ["y"], NM,
     inits=[("bs", np.array(0.2, np.float32))])
qg = [("as", np.array(0.1, np.float32)), ("az", np.array(128, np.uint8)), ("bs", np.array(0.2, np.float32)),
      ("bz", np.array(0, np.int8)), ("ys", np.array(0.3, np.float32)), ("yz", np.array(128, np.uint8))]
case("qgemm_quantized", [("a", U8, ["N", 4]), ("b", I8, ["M", 4])],
     [ms("QGemm", ["a", "as", "az", "b", "bs", "bz", "", "ys", "yz"], ["y"], transB=1)], ["y"], NM, inits=qg)
case("qgemm_float", [("a", U8, [4, "N"]), ("b", I8, [4, "M"])],
     [ms("QGemm", ["a", "as", "az", "b", "bs", "bz"], ["y"], transA=1)], ["y"], NM, inits=qg)

# ---- quantized ops -----------------------------------------------------------------------------
qs = [("s", np.array(0.1, np.float32)), ("z", np.array(128, np.uint8))]
case("quantize_linear", [("x", F, ["N", "M"])], [ms("QuantizeLinear", ["x", "s", "z"], ["y"])], ["y"], NM, inits=qs)
case("quantize_linear_int8", [("x", F, ["N", "M"])], [ms("QuantizeLinear", ["x", "s", "zi"], ["y"])], ["y"], NM,
     inits=qs + [("zi", np.array(0, np.int8))])
case("dequantize_linear", [("x", U8, ["N", "M"])], [ms("DequantizeLinear", ["x", "s", "z"], ["y"])], ["y"], NM,
     inits=qs)
case("dequantize_linear_axis", [("x", U8, ["N", 3])],
     [ms("DequantizeLinear", ["x", "s3", "z3"], ["y"], axis=1)], ["y"], NM,
     inits=[("s3", np.array([0.1, 0.2, 0.3], np.float32)), ("z3", np.array([1, 2, 3], np.uint8))])
for op in ("QLinearAdd", "QLinearMul"):
    case(op.lower(), [("a", U8, ["N", "M", 4]), ("b", U8, [4])],
         [ms(op, ["a", "s", "z", "b", "s", "z", "s", "z"], ["y"])], ["y"], NM, inits=qs)
    case(op.lower() + "_both", [("a", U8, ["N", 1]), ("b", U8, [1, "M"])],
         [ms(op, ["a", "s", "z", "b", "s", "z", "s", "z"], ["y"])], ["y"], NM, inits=qs)
case("qlinear_sigmoid", [("x", U8, ["N", "M"])], [ms("QLinearSigmoid", ["x", "s", "z", "s", "z"], ["y"])], ["y"],
     NM, inits=qs)
case("qlinear_leaky_relu", [("x", U8, ["N", "M"])],
     [ms("QLinearLeakyRelu", ["x", "s", "z", "s", "z"], ["y"], alpha=0.1)], ["y"], NM, inits=qs)
case("qlinear_softmax", [("x", U8, ["N", "M"])],
     [ms("QLinearSoftmax", ["x", "s", "z", "s", "z"], ["y"], axis=-1, opset=13)], ["y"], NM, inits=qs)
case("qlinear_where", [("c", B, ["N", 1]), ("x", U8, ["N", "M"]), ("y_", U8, ["M"])],
     [ms("QLinearWhere", ["c", "x", "s", "z", "y_", "s", "z", "s", "z"], ["y"])], ["y"], NM, inits=qs)
case("qlinear_concat", [("a", U8, ["N", "M"]), ("b", U8, ["N", 3])],
     [ms("QLinearConcat", ["s", "z", "a", "s", "z", "b", "s", "z"], ["y"], axis=1)], ["y"], NM, inits=qs)
case("qlinear_reduce_mean", [("x", U8, ["N", "M", 4])],
     [ms("QLinearReduceMean", ["x", "s", "z", "s", "z"], ["y"], axes=[1], keepdims=1)], ["y"], NM, inits=qs)
case("mul_integer", [("a", U8, ["N", "M"]), ("b", U8, ["M"])],
     [ms("MulInteger", ["a", "z", "b", "z"], ["y"])], ["y"], NM, inits=qs)
case("reduce_sum_integer", [("x", I8, ["N", "M", 4])],
     [ms("ReduceSumInteger", ["x"], ["y"], axes=[2], keepdims=0)], ["y"], NM)

# ---- convolutions and pools -----------------------------------------------------------------------
HW = [{"N": n, "H": h, "W": w} for n, h, w in [(1, 5, 5), (2, 8, 11), (3, 12, 7)]]
qc = qs + [("ws", np.array(0.05, np.float32)), ("wz", np.array(0, np.uint8))]
for cl in (0, 1):
    xs = ["N", "H", "W", 4] if cl else ["N", 4, "H", "W"]
    case(f"qlinear_conv_cl{cl}", [("x", U8, xs)],
         [ms("QLinearConv", ["x", "s", "z", "w", "ws", "wz", "s", "z", "bias"], ["y"],
             kernel_shape=[3, 3], strides=[2, 1], pads=[1, 0, 1, 0], channels_last=cl)], ["y"], HW,
         inits=qc + [("w", RNG.integers(0, 255, (6, 4, 3, 3)).astype(np.uint8)), ("bias", i32(1, 2, 3, 4, 5, 6))],
         data={"x": ints_below(255, np.uint8)})
    case(f"qlinear_average_pool_cl{cl}", [("x", U8, xs)],
         [ms("QLinearAveragePool", ["x", "s", "z", "s", "z"], ["y"], kernel_shape=[3, 2], strides=[2, 2],
             pads=[1, 0, 1, 1], ceil_mode=1, channels_last=cl)], ["y"], HW, inits=qs)
    case(f"qlinear_global_average_pool_cl{cl}", [("x", U8, xs)],
         [ms("QLinearGlobalAveragePool", ["x", "s", "z", "s", "z"], ["y"], channels_last=cl)], ["y"], HW, inits=qs)
case("qlinear_conv_onnx_domain", [("x", U8, ["N", 4, "H", "W"])],
     [helper.make_node("QLinearConv", ["x", "s", "z", "w", "ws", "wz", "s", "z"], ["y"], kernel_shape=[3, 3],
                       auto_pad="SAME_UPPER")], ["y"], HW,
     inits=qc + [("w", RNG.integers(0, 255, (6, 4, 3, 3)).astype(np.uint8))])
case("fused_conv", [("x", F, ["N", 4, "H", "W"])],
     [ms("FusedConv", ["x", "w", "b"], ["y"], kernel_shape=[3, 3], dilations=[2, 1], group=2, activation="Relu")],
     ["y"], HW, inits=[("w", f32(6, 2, 3, 3)), ("b", f32(6))])
case("fused_conv_z", [("x", F, ["N", 4, "H", "W"]), ("zz", F, ["N", 6, "H", "W"])],
     [ms("FusedConv", ["x", "w", "b", "zz"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])],
     ["y"], HW, inits=[("w", f32(6, 4, 3, 3)), ("b", f32(6))])
case("nhwc_conv", [("x", F, ["N", "H", "W", 4])],
     [ms("NhwcConv", ["x", "w"], ["y"], kernel_shape=[3, 3], strides=[2, 2])], ["y"], HW,
     inits=[("w", f32(6, 4, 3, 3))])
case("nhwc_max_pool", [("x", U8, ["N", "H", "W", 4])],
     [ms("NhwcMaxPool", ["x"], ["y"], kernel_shape=[2, 3], strides=[2, 1], pads=[0, 1, 1, 1])], ["y"], HW)
case("maxpool_with_mask", [("x", F, ["N", 4, "H", "W"]), ("m", I32, ["N", 4, "H", "W"])],
     [ms("MaxpoolWithMask", ["x", "m"], ["y"], kernel_shape=[2, 2], strides=[2, 2])], ["y"], HW,
     data={"m": full(1)})
case("gather_block_quantized", [("i", I64, ["N", "M"])],
     [ms("GatherBlockQuantized", ["d", "i", "sc"], ["y"], gather_axis=0, quantize_axis=1, block_size=16, bits=4)],
     ["y"], NM, inits=[("d", RNG.integers(0, 255, (10, 16)).astype(np.uint8)), ("sc", f32(10, 2))],
     data={"i": ints_below(10)})

# ---- the Loop probe bug: a constant trip count with a passed-through true condition ------------
# (checked here, not recorded: the fixture has no subgraphs; `tests/it/ops/control.rs` has the case)
body = helper.make_graph(
    [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
     helper.make_node("Identity", ["x"], ["scan"])],
    "body",
    [helper.make_tensor_value_info("i", I64, []), helper.make_tensor_value_info("cond_in", B, [])],
    [helper.make_tensor_value_info("cond_out", B, []), onnx.ValueInfoProto(name="scan")])
loop = helper.make_model(
    helper.make_graph([helper.make_node("Loop", ["trip", "cond"], ["stacked"], body=body)], "loop",
                      [helper.make_tensor_value_info("x", F, ["N", 3])], [onnx.ValueInfoProto(name="stacked")],
                      [numpy_helper.from_array(i64(7), "trip"), numpy_helper.from_array(np.array(True), "cond")]),
    opset_imports=[helper.make_opsetid("", 17)])
loop.ir_version = 10
got = ort.InferenceSession(loop.SerializeToString(), providers=["CPUExecutionProvider"]).run(
    ["stacked"], {"x": f32(4, 3)})[0].shape
assert got == (7, 4, 3), got

# ---- the CPU ops without a case above ------------------------------------------
# QMoE with 8-bit expert weights: the shape of the input (onnxruntime takes 2-D
# rows and router only)
case("qmoe", [("x", F, ["N", 16]), ("r", F, ["N", 4])],
     [ms("QMoE", ["x", "r", "w1", "s1", "", "w2", "s2"], ["y"], k=2, activation_type="relu",
         expert_weight_bits=8)], ["y"], [{"N": n} for n in (1, 3, 6)],
     inits=[("w1", np.ones([4, 32, 16], np.uint8)), ("s1", np.ones([4, 32], np.float32)),
            ("w2", np.ones([4, 16, 32], np.uint8)), ("s2", np.ones([4, 16], np.float32))])
# MatMulFpQ4: A [M, K] times the packed B of shape B_shape = (K, N): [M, N] (the blob
# of 32-element blocks, 21 bytes each, as MLAS packs BlkQ4Sym)
case("matmul_fp_q4", [("a", F, ["N", 64])], [ms("MatMulFpQ4", ["a", "b", "bs"], ["y"], blk_quant_type=1)],
     ["y"], [{"N": n} for n in (1, 3, 6)], inits=[("b", np.zeros(336, np.uint8)), ("bs", i64(64, 8))])
# SparseAttention: past and present share a buffer of max length 32 (blocks of 16)
case("sparse_attention",
     [("q", F, ["B", "S", 64]), ("k", F, ["B", "S", 32]), ("v", F, ["B", "S", 32]),
      ("pk", F, ["B", 2, 32, 16]), ("pv", F, ["B", 2, 32, 16]), ("tsl", I32, [1]), ("ktsl", I32, ["B"])],
     [ms("SparseAttention", ["q", "k", "v", "pk", "pv", "rows", "cols", "tsl", "ktsl"], ["y", "prk", "prv"],
         num_heads=4, kv_num_heads=2, sparse_block_size=16)], ["y", "prk", "prv"],
     [{"B": b, "S": s} for b, s in [(1, 1), (2, 3), (3, 8)]],
     inits=[("rows", np.array([[0, 1, 3]], np.int32)), ("cols", np.array([[0, 0, 1]], np.int32))],
     data={"tsl": lambda s, b: np.array([b["S"]]), "ktsl": lambda s, b: np.full(s, b["S"])},
     shared={"prk": "pk", "prv": "pv"})

# DynamicQuantizeLSTM: LSTM with 8-bit weights stored transposed, W [D, input, 4H] and
# R [D, H, 4H]; per-direction scales and zero points, then per-channel ones [D, 4H]
# and an initial state (onnxruntime's kernel needs hidden_size)
def i8(*shape):
    return RNG.integers(-3, 3, shape).astype(np.int8)


case("dynamic_quantize_lstm", [("x", F, ["S", "B", 6])],
     [ms("DynamicQuantizeLSTM", ["x", "w", "r", "b", "", "", "", "", "ws", "wz", "rs", "rz"],
         ["y", "yh", "yc"], hidden_size=5)], ["y", "yh", "yc"], BS,
     inits=[("w", i8(1, 6, 20)), ("r", i8(1, 5, 20)), ("b", f32(1, 40)),
            ("ws", np.full([1], 0.1, np.float32)), ("wz", np.zeros([1], np.int8)),
            ("rs", np.full([1], 0.1, np.float32)), ("rz", np.zeros([1], np.int8))])
case("dynamic_quantize_lstm_bidirectional", [("x", F, ["S", "B", 6]), ("h0", F, [2, "B", 5])],
     [ms("DynamicQuantizeLSTM", ["x", "w", "r", "", "", "h0", "", "", "ws", "wz", "rs", "rz"],
         ["y", "yh", "yc"], direction="bidirectional", hidden_size=5)], ["y", "yh", "yc"], BS,
     inits=[("w", i8(2, 6, 20)), ("r", i8(2, 5, 20)),
            ("ws", np.full([2, 20], 0.1, np.float32)), ("wz", np.zeros([2, 20], np.int8)),
            ("rs", np.full([2, 20], 0.1, np.float32)), ("rz", np.zeros([2, 20], np.int8))])

ortcases.write("scripts/probe_contrib.py", CASES, NOT_RUN)
