#!/usr/bin/env python3
"""Small ONNX models with symbolic dims for scripts/check_cost.py's op checks.

Each model has one op family that the corpus models lack (recurrent, attention,
n-bit and quantized matmuls, a KV cache), with `batch`, `sequence` and, where it
has a past, `past_sequence` as `dim_param`s; onnxruntime's CPU provider runs all
of them. Weights are random (seed 0): the checks use shapes only.

Run (from the crate root; needs onnx and numpy):

    /work/venv-int/bin/python scripts/make_cost_models.py [OUT_DIR]

OUT_DIR defaults to tests/fixtures/cost. Models:

- lstm.onnx: ONNX LSTM (opset 14), X [sequence, batch, 8], hidden 16, forward.
- gru.onnx: ONNX GRU (opset 14), bidirectional, input 8, hidden 12.
- dq_lstm.onnx: com.microsoft DynamicQuantizeLSTM, X [sequence, batch, 8], hidden 16,
  int8 weights W [1, 8, 64] and R [1, 16, 64].
- rnn.onnx: ONNX RNN (opset 14), forward, input 8, hidden 10.
- ms_attention.onnx: com.microsoft Attention, input [batch, sequence, 32], 4 heads,
  with `past` [2, batch, 4, past_sequence, 8] and its `present` output.
- ms_mha.onnx: com.microsoft MultiHeadAttention, query [batch, sequence, 32], key
  and value [batch, sequence, 32] (3-D), past_key/past_value
  [batch, 4, past_sequence, 8], present_key/present_value outputs.
- onnx_attention.onnx: ONNX Attention (opset 23), Q [batch, 4, sequence, 8],
  K/V [batch, 2, sequence, 8 / 6] (grouped), past_key/past_value, present outputs.
- matmul_nbits.onnx: com.microsoft MatMulNBits (bits 4, block_size 32), A
  [batch, sequence, 64], N 16.
- matmul_integer.onnx: MatMulInteger, uint8 A [batch, sequence, 32] x B [32, 24].
- qlinear_matmul.onnx: QLinearMatMul, uint8 A [batch, sequence, 32] x B [32, 20].
- decoder_kv.onnx: one decoder step: x [batch, sequence, 16], past_key/past_value
  [batch, past_sequence, 16], present_key/present_value = Concat(past, new, axis 1),
  single-head attention over them.
- loop_body.onnx: a Loop (opset 17) run `sequence` times (`M` is the length of
  t [sequence], no condition) over h [batch, 8]: the body's `MatMul(h, W [8, 8])`
  is carried and also a scan output ([sequence, batch, 8], which shows the trip
  count and the body's shapes at run time).
- if_branches.onnx: an If on an input condition over x [batch, 8]: then
  `MatMul(x, W1 [8, 16])`, else `Relu(MatMul(x, W2 [8, 16]))`.
- scan_body.onnx: a Scan (opset 17) over xs [sequence, 4] with a state [4]: the
  body's `Add(state, MatMul(x, W [4, 4]))` is the next state and a scan output.
- loop_cond.onnx: loop_body with the loop's condition an input `c`: the loop may
  stop early, so its iteration count is not known.
- loop_grow.onnx: a Loop run `sequence` times whose carried h [batch, L] grows by
  x [batch, 8] each iteration (Concat on axis 1), the body computing
  `MatMul(h, Transpose(h))`: its MACs `batch * L * batch` change per iteration.
- if_const.onnx: if_branches with the condition a constant true: only the then
  branch runs.
"""

import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = Path(__file__).resolve().parent.parent
RNG = np.random.default_rng(0)
FLOAT = TensorProto.FLOAT
UINT8 = TensorProto.UINT8


def init(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def weights(name, shape, dtype=np.float32):
    if dtype == np.uint8:
        return init(name, RNG.integers(0, 256, shape).astype(np.uint8))
    if dtype == np.int8:
        return init(name, RNG.integers(-128, 128, shape).astype(np.int8))
    return init(name, (RNG.standard_normal(shape) * 0.1).astype(dtype))


def vi(name, elem, dims):
    return helper.make_tensor_value_info(name, elem, dims)


def model(name, nodes, inputs, outputs, inits, opset, ms=False):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=inits)
    imports = [helper.make_opsetid("", opset)]
    if ms:
        imports.append(helper.make_opsetid("com.microsoft", 1))
    m = helper.make_model(g, opset_imports=imports, producer_name="make_cost_models.py")
    m.ir_version = 10 if opset >= 23 else 8
    onnx.checker.check_model(m)
    return m


def recurrent(op, gates, hidden, directions):
    inp = 8
    d = "bidirectional" if directions == 2 else "forward"
    node = helper.make_node(
        op,
        ["X", "W", "R", "B"],
        ["Y", "Y_h"] + (["Y_c"] if op == "LSTM" else []),
        hidden_size=hidden,
        direction=d,
        name=op.lower(),
    )
    inits = [
        weights("W", [directions, gates * hidden, inp]),
        weights("R", [directions, gates * hidden, hidden]),
        weights("B", [directions, 2 * gates * hidden]),
    ]
    outs = [
        vi("Y", FLOAT, ["sequence", directions, "batch", hidden]),
        vi("Y_h", FLOAT, [directions, "batch", hidden]),
    ]
    if op == "LSTM":
        outs.append(vi("Y_c", FLOAT, [directions, "batch", hidden]))
    return model(op.lower(), [node], [vi("X", FLOAT, ["sequence", "batch", inp])], outs, inits, 14)


def dq_lstm():
    """com.microsoft DynamicQuantizeLSTM: LSTM with int8 weights stored transposed,
    W [1, 8, 4*16] and R [1, 16, 4*16], per-direction scales and zero points."""
    inp, hidden = 8, 16
    node = helper.make_node(
        "DynamicQuantizeLSTM",
        ["X", "W", "R", "B", "", "", "", "", "Ws", "Wz", "Rs", "Rz"],
        ["Y", "Y_h", "Y_c"],
        hidden_size=hidden,
        domain="com.microsoft",
        name="dq_lstm",
    )
    inits = [
        weights("W", [1, inp, 4 * hidden], np.int8),
        weights("R", [1, hidden, 4 * hidden], np.int8),
        weights("B", [1, 8 * hidden]),
        init("Ws", np.full([1], 0.05, np.float32)),
        init("Wz", np.zeros([1], np.int8)),
        init("Rs", np.full([1], 0.05, np.float32)),
        init("Rz", np.zeros([1], np.int8)),
    ]
    outs = [
        vi("Y", FLOAT, ["sequence", 1, "batch", hidden]),
        vi("Y_h", FLOAT, [1, "batch", hidden]),
        vi("Y_c", FLOAT, [1, "batch", hidden]),
    ]
    return model("dq_lstm", [node], [vi("X", FLOAT, ["sequence", "batch", inp])], outs, inits, 14, ms=True)


def ms_attention():
    hidden, heads = 32, 4
    node = helper.make_node(
        "Attention",
        ["input", "weights", "bias", "", "past"],
        ["output", "present"],
        domain="com.microsoft",
        num_heads=heads,
        unidirectional=1,
        name="attention",
    )
    inits = [weights("weights", [hidden, 3 * hidden]), weights("bias", [3 * hidden])]
    ins = [
        vi("input", FLOAT, ["batch", "sequence", hidden]),
        vi("past", FLOAT, [2, "batch", heads, "past_sequence", hidden // heads]),
    ]
    outs = [
        vi("output", FLOAT, ["batch", "sequence", hidden]),
        vi("present", FLOAT, [2, "batch", heads, None, hidden // heads]),
    ]
    return model("ms_attention", [node], ins, outs, inits, 14, ms=True)


def ms_mha():
    hidden, heads = 32, 4
    node = helper.make_node(
        "MultiHeadAttention",
        ["query", "key", "value", "", "", "", "past_key", "past_value"],
        ["output", "present_key", "present_value"],
        domain="com.microsoft",
        num_heads=heads,
        name="mha",
    )
    ins = [
        vi("query", FLOAT, ["batch", "sequence", hidden]),
        vi("key", FLOAT, ["batch", "sequence", hidden]),
        vi("value", FLOAT, ["batch", "sequence", hidden]),
        vi("past_key", FLOAT, ["batch", heads, "past_sequence", hidden // heads]),
        vi("past_value", FLOAT, ["batch", heads, "past_sequence", hidden // heads]),
    ]
    outs = [
        vi("output", FLOAT, ["batch", "sequence", hidden]),
        vi("present_key", FLOAT, ["batch", heads, None, hidden // heads]),
        vi("present_value", FLOAT, ["batch", heads, None, hidden // heads]),
    ]
    return model("ms_mha", [node], ins, outs, [], 14, ms=True)


def onnx_attention():
    qh, kvh, e, ev = 4, 2, 8, 6
    node = helper.make_node(
        "Attention",
        ["Q", "K", "V", "", "past_key", "past_value"],
        ["Y", "present_key", "present_value"],
        name="attention",
    )
    ins = [
        vi("Q", FLOAT, ["batch", qh, "sequence", e]),
        vi("K", FLOAT, ["batch", kvh, "sequence", e]),
        vi("V", FLOAT, ["batch", kvh, "sequence", ev]),
        vi("past_key", FLOAT, ["batch", kvh, "past_sequence", e]),
        vi("past_value", FLOAT, ["batch", kvh, "past_sequence", ev]),
    ]
    outs = [
        vi("Y", FLOAT, ["batch", qh, "sequence", ev]),
        vi("present_key", FLOAT, ["batch", kvh, None, e]),
        vi("present_value", FLOAT, ["batch", kvh, None, ev]),
    ]
    return model("onnx_attention", [node], ins, outs, [], 23)


def matmul_nbits():
    k, n, block = 64, 16, 32
    blocks = k // block
    node = helper.make_node(
        "MatMulNBits",
        ["A", "B", "scales"],
        ["Y"],
        domain="com.microsoft",
        K=k,
        N=n,
        bits=4,
        block_size=block,
        name="matmul_nbits",
    )
    inits = [
        weights("B", [n, blocks, block // 2], np.uint8),
        init("scales", (RNG.random(n * blocks) * 0.1).astype(np.float32)),
    ]
    return model(
        "matmul_nbits",
        [node],
        [vi("A", FLOAT, ["batch", "sequence", k])],
        [vi("Y", FLOAT, ["batch", "sequence", n])],
        inits,
        14,
        ms=True,
    )


def matmul_integer():
    node = helper.make_node("MatMulInteger", ["A", "B", "a_zero_point"], ["Y"], name="mmi")
    inits = [weights("B", [32, 24], np.uint8), init("a_zero_point", np.uint8(3))]
    return model(
        "matmul_integer",
        [node],
        [vi("A", UINT8, ["batch", "sequence", 32])],
        [vi("Y", TensorProto.INT32, ["batch", "sequence", 24])],
        inits,
        14,
    )


def qlinear_matmul():
    node = helper.make_node(
        "QLinearMatMul",
        ["a", "a_scale", "a_zp", "b", "b_scale", "b_zp", "y_scale", "y_zp"],
        ["y"],
        name="qmm",
    )
    inits = [
        init("a_scale", np.float32(0.02)),
        init("a_zp", np.uint8(5)),
        weights("b", [32, 20], np.uint8),
        init("b_scale", np.float32(0.01)),
        init("b_zp", np.uint8(128)),
        init("y_scale", np.float32(0.5)),
        init("y_zp", np.uint8(10)),
    ]
    return model(
        "qlinear_matmul",
        [node],
        [vi("a", UINT8, ["batch", "sequence", 32])],
        [vi("y", UINT8, ["batch", "sequence", 20])],
        inits,
        14,
    )


def decoder_kv():
    d = 16
    nodes = [
        helper.make_node("MatMul", ["x", "wq"], ["q"], name="q_proj"),
        helper.make_node("MatMul", ["x", "wk"], ["k"], name="k_proj"),
        helper.make_node("MatMul", ["x", "wv"], ["v"], name="v_proj"),
        helper.make_node("Concat", ["past_key", "k"], ["present_key"], axis=1, name="cat_k"),
        helper.make_node("Concat", ["past_value", "v"], ["present_value"], axis=1, name="cat_v"),
        helper.make_node("Transpose", ["present_key"], ["kt"], perm=[0, 2, 1], name="kt"),
        helper.make_node("MatMul", ["q", "kt"], ["scores"], name="scores"),
        helper.make_node("Softmax", ["scores"], ["probs"], axis=-1, name="softmax"),
        helper.make_node("MatMul", ["probs", "present_value"], ["context"], name="context"),
        helper.make_node("MatMul", ["context", "wo"], ["out"], name="o_proj"),
    ]
    inits = [weights(w, [d, d]) for w in ("wq", "wk", "wv", "wo")]
    ins = [
        vi("x", FLOAT, ["batch", "sequence", d]),
        vi("past_key", FLOAT, ["batch", "past_sequence", d]),
        vi("past_value", FLOAT, ["batch", "past_sequence", d]),
    ]
    outs = [
        vi("out", FLOAT, ["batch", "sequence", d]),
        vi("present_key", FLOAT, ["batch", None, d]),
        vi("present_value", FLOAT, ["batch", None, d]),
    ]
    return model("decoder_kv", nodes, ins, outs, inits, 14)


def loop_body():
    body = helper.make_graph(
        [
            helper.make_node("MatMul", ["h_in", "W"], ["h_out"], name="body_matmul"),
            helper.make_node("Identity", ["cond_in"], ["cond_out"], name="body_cond"),
            helper.make_node("Identity", ["h_out"], ["h_scan"], name="body_scan"),
        ],
        "body",
        [
            vi("i", TensorProto.INT64, []),
            vi("cond_in", TensorProto.BOOL, []),
            vi("h_in", FLOAT, ["batch", 8]),
        ],
        [
            vi("cond_out", TensorProto.BOOL, []),
            vi("h_out", FLOAT, ["batch", 8]),
            vi("h_scan", FLOAT, ["batch", 8]),
        ],
    )
    nodes = [
        helper.make_node("Shape", ["t"], ["t_shape"], name="shape"),
        helper.make_node("Squeeze", ["t_shape"], ["M"], name="trips"),
        helper.make_node("Loop", ["M", "", "x"], ["h", "hs"], name="loop", body=body),
    ]
    return model(
        "loop_body",
        nodes,
        [vi("x", FLOAT, ["batch", 8]), vi("t", FLOAT, ["sequence"])],
        [vi("h", FLOAT, ["batch", 8]), vi("hs", FLOAT, ["sequence", "batch", 8])],
        [weights("W", [8, 8])],
        17,
    )


def if_branches():
    then_g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "W1"], ["y_then"], name="then_matmul")],
        "then",
        [],
        [vi("y_then", FLOAT, ["batch", 16])],
    )
    else_g = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "W2"], ["m_else"], name="else_matmul"),
            helper.make_node("Relu", ["m_else"], ["y_else"], name="else_relu"),
        ],
        "else",
        [],
        [vi("y_else", FLOAT, ["batch", 16])],
    )
    nodes = [
        helper.make_node(
            "If", ["c"], ["y"], name="branch", then_branch=then_g, else_branch=else_g
        )
    ]
    return model(
        "if_branches",
        nodes,
        [vi("x", FLOAT, ["batch", 8]), vi("c", TensorProto.BOOL, [])],
        [vi("y", FLOAT, ["batch", 16])],
        [weights("W1", [8, 16]), weights("W2", [8, 16])],
        17,
    )


def scan_body():
    body = helper.make_graph(
        [
            helper.make_node("MatMul", ["x_in", "W"], ["xw"], name="body_matmul"),
            helper.make_node("Add", ["s_in", "xw"], ["s_out"], name="body_add"),
            helper.make_node("Identity", ["s_out"], ["y"], name="body_scan"),
        ],
        "body",
        [vi("s_in", FLOAT, [4]), vi("x_in", FLOAT, [4])],
        [vi("s_out", FLOAT, [4]), vi("y", FLOAT, [4])],
    )
    nodes = [
        helper.make_node(
            "Scan", ["s0", "xs"], ["s", "ys"], name="scan", body=body, num_scan_inputs=1
        )
    ]
    return model(
        "scan_body",
        nodes,
        [vi("s0", FLOAT, [4]), vi("xs", FLOAT, ["sequence", 4])],
        [vi("s", FLOAT, [4]), vi("ys", FLOAT, ["sequence", 4])],
        [weights("W", [4, 4])],
        17,
    )


def loop_cond():
    m = loop_body()
    loop = m.graph.node[2]
    loop.input[1] = "c"
    m.graph.input.append(vi("c", TensorProto.BOOL, []))
    m.graph.name = "loop_cond"
    onnx.checker.check_model(m)
    return m


def loop_grow():
    body = helper.make_graph(
        [
            helper.make_node("Transpose", ["h_in"], ["h_t"], name="body_transpose"),
            helper.make_node("MatMul", ["h_in", "h_t"], ["gram"], name="body_matmul"),
            helper.make_node("Concat", ["h_in", "x"], ["h_out"], name="body_grow", axis=1),
            helper.make_node("Identity", ["cond_in"], ["cond_out"], name="body_cond"),
        ],
        "body",
        [
            vi("i", TensorProto.INT64, []),
            vi("cond_in", TensorProto.BOOL, []),
            vi("h_in", FLOAT, ["batch", None]),
        ],
        [vi("cond_out", TensorProto.BOOL, []), vi("h_out", FLOAT, ["batch", None])],
    )
    nodes = [
        helper.make_node("Shape", ["t"], ["t_shape"], name="shape"),
        helper.make_node("Squeeze", ["t_shape"], ["M"], name="trips"),
        helper.make_node("Loop", ["M", "", "x"], ["h"], name="loop", body=body),
    ]
    return model(
        "loop_grow",
        nodes,
        [vi("x", FLOAT, ["batch", 8]), vi("t", FLOAT, ["sequence"])],
        [vi("h", FLOAT, ["batch", None])],
        [],
        17,
    )


def if_const():
    m = if_branches()
    m.graph.input.pop()
    m.graph.node.insert(
        0,
        helper.make_node(
            "Constant", [], ["c"], name="cond",
            value=helper.make_tensor("c", TensorProto.BOOL, [], [True]),
        ),
    )
    m.graph.name = "if_const"
    onnx.checker.check_model(m)
    return m


MODELS = {
    "lstm": lambda: recurrent("LSTM", 4, 16, 1),
    "gru": lambda: recurrent("GRU", 3, 12, 2),
    "rnn": lambda: recurrent("RNN", 1, 10, 1),
    "ms_attention": ms_attention,
    "ms_mha": ms_mha,
    "onnx_attention": onnx_attention,
    "matmul_nbits": matmul_nbits,
    "matmul_integer": matmul_integer,
    "qlinear_matmul": qlinear_matmul,
    "decoder_kv": decoder_kv,
    "loop_body": loop_body,
    "if_branches": if_branches,
    "scan_body": scan_body,
    "loop_cond": loop_cond,
    "loop_grow": loop_grow,
    "if_const": if_const,
    "dq_lstm": dq_lstm,
}


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "tests" / "fixtures" / "cost"
    out.mkdir(parents=True, exist_ok=True)
    for name, make in MODELS.items():
        path = out / f"{name}.onnx"
        onnx.save(make(), str(path))
        print(f"{path}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
