"""Small ONNX models the tests build with onnx.helper."""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def _init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def bert_like(layers=2, hidden=32, heads=4, ffn=64, vocab=50, max_pos=64, seed=0):
    """A BERT-style encoder as exporters emit it (opset 17): word and position
    embeddings, then `layers` blocks of self-attention with heads split by
    Shape -> Gather -> Unsqueeze -> Concat -> Reshape, an Erf GELU feed-forward, and
    Add -> LayerNormalization after each. Inputs `input_ids` and `attention_mask`
    are [batch_size, seq_len] int64; the output is [batch_size, seq_len, hidden].
    """
    rng = np.random.default_rng(seed)
    d = hidden // heads
    f32 = np.float32

    def weight(*shape):
        return (rng.standard_normal(shape) * 0.1).astype(f32)

    inits = [
        _init("word_emb", weight(vocab, hidden)),
        _init("pos_emb", weight(max_pos, hidden)),
        _init("emb_ln_s", np.ones(hidden, f32)),
        _init("emb_ln_b", np.zeros(hidden, f32)),
        _init("i0", np.array(0, np.int64)),
        _init("i1", np.array(1, np.int64)),
        _init("ax0", np.array([0], np.int64)),
        _init("ax12", np.array([1, 2], np.int64)),
        _init("heads_d", np.array([heads, d], np.int64)),
        _init("hid", np.array([hidden], np.int64)),
        _init("one_f", np.array(1.0, f32)),
        _init("neg_big", np.array(-10000.0, f32)),
        _init("sqrt_d", np.array(np.sqrt(d), f32)),
        _init("half", np.array(0.5, f32)),
        _init("sqrt2", np.array(np.sqrt(2.0), f32)),
    ]
    nodes = [
        helper.make_node("Gather", ["word_emb", "input_ids"], ["word"], name="word_gather"),
        helper.make_node("Shape", ["input_ids"], ["ids_shape"], name="ids_shape"),
        helper.make_node("Gather", ["ids_shape", "i1"], ["seq"], name="seq_gather", axis=0),
        helper.make_node("Range", ["i0", "seq", "i1"], ["pos_range"], name="pos_range"),
        helper.make_node("Unsqueeze", ["pos_range", "ax0"], ["pos_ids"], name="pos_unsqueeze"),
        helper.make_node("Gather", ["pos_emb", "pos_ids"], ["pos"], name="pos_gather"),
        helper.make_node("Add", ["word", "pos"], ["emb"], name="emb_add"),
        helper.make_node(
            "LayerNormalization", ["emb", "emb_ln_s", "emb_ln_b"], ["h0"], name="emb_ln", axis=-1, epsilon=1e-12
        ),
        # The additive mask: (1 - mask) * -10000, [batch_size, 1, 1, seq_len].
        helper.make_node("Unsqueeze", ["attention_mask", "ax12"], ["mask4"], name="mask_unsqueeze"),
        helper.make_node("Cast", ["mask4"], ["mask_f"], name="mask_cast", to=TensorProto.FLOAT),
        helper.make_node("Sub", ["one_f", "mask_f"], ["mask_inv"], name="mask_sub"),
        helper.make_node("Mul", ["mask_inv", "neg_big"], ["mask_add"], name="mask_mul"),
    ]
    h = "h0"
    for i in range(layers):
        p = f"l{i}_"
        for w in ("q", "k", "v", "o"):
            inits.append(_init(p + "W" + w, weight(hidden, hidden)))
            inits.append(_init(p + "b" + w, weight(hidden)))
        inits += [
            _init(p + "W1", weight(hidden, ffn)),
            _init(p + "b1", weight(ffn)),
            _init(p + "W2", weight(ffn, hidden)),
            _init(p + "b2", weight(hidden)),
            _init(p + "ln1_s", np.ones(hidden, f32)),
            _init(p + "ln1_b", np.zeros(hidden, f32)),
            _init(p + "ln2_s", np.ones(hidden, f32)),
            _init(p + "ln2_b", np.zeros(hidden, f32)),
        ]

        def n(op, ins, outs, name, **attrs):
            # Inputs written "@x" are this layer's tensors; others are global names.
            ins = [p + x[1:] if x.startswith("@") else x for x in ins]
            nodes.append(helper.make_node(op, ins, [p + o for o in outs], name=p + name, **attrs))

        # The head shapes from the hidden state's dims.
        n("Shape", [h], ["shape"], "shape")
        n("Gather", ["@shape", "i0"], ["b"], "gather_b", axis=0)
        n("Gather", ["@shape", "i1"], ["s"], "gather_s", axis=0)
        n("Unsqueeze", ["@b", "ax0"], ["batch1"], "unsqueeze_b")
        n("Unsqueeze", ["@s", "ax0"], ["seq1"], "unsqueeze_s")
        n("Concat", ["@batch1", "@seq1", "heads_d"], ["split_shape"], "split_shape", axis=0)
        n("Concat", ["@batch1", "@seq1", "hid"], ["merge_shape"], "merge_shape", axis=0)
        for w in ("q", "k", "v"):
            n("MatMul", [h, "@W" + w], [w + "_mm"], w + "_matmul")
            n("Add", ["@" + w + "_mm", "@b" + w], [w + "_lin"], w + "_bias")
            n("Reshape", ["@" + w + "_lin", "@split_shape"], [w + "_4d"], w + "_reshape")
        n("Transpose", ["@q_4d"], ["q_t"], "q_transpose", perm=[0, 2, 1, 3])
        n("Transpose", ["@k_4d"], ["k_t"], "k_transpose", perm=[0, 2, 3, 1])
        n("Transpose", ["@v_4d"], ["v_t"], "v_transpose", perm=[0, 2, 1, 3])
        n("MatMul", ["@q_t", "@k_t"], ["qk"], "qk_matmul")
        n("Div", ["@qk", "sqrt_d"], ["qk_scaled"], "qk_div")
        n("Add", ["@qk_scaled", "mask_add"], ["qk_masked"], "qk_mask_add")
        n("Softmax", ["@qk_masked"], ["probs"], "softmax", axis=-1)
        n("MatMul", ["@probs", "@v_t"], ["ctx"], "ctx_matmul")
        n("Transpose", ["@ctx"], ["ctx_t"], "ctx_transpose", perm=[0, 2, 1, 3])
        n("Reshape", ["@ctx_t", "@merge_shape"], ["ctx_3d"], "ctx_reshape")
        n("MatMul", ["@ctx_3d", "@Wo"], ["o_mm"], "o_matmul")
        n("Add", ["@o_mm", "@bo"], ["o_lin"], "o_bias")
        n("Add", ["@o_lin", h], ["res1"], "res1_add")
        n("LayerNormalization", ["@res1", "@ln1_s", "@ln1_b"], ["h1"], "ln1", axis=-1, epsilon=1e-12)
        n("MatMul", ["@h1", "@W1"], ["f1_mm"], "f1_matmul")
        n("Add", ["@f1_mm", "@b1"], ["f1"], "f1_bias")
        n("Div", ["@f1", "sqrt2"], ["g_div"], "gelu_div")
        n("Erf", ["@g_div"], ["g_erf"], "gelu_erf")
        n("Add", ["@g_erf", "one_f"], ["g_add"], "gelu_add")
        n("Mul", ["@f1", "@g_add"], ["g_mul"], "gelu_mul")
        n("Mul", ["@g_mul", "half"], ["gelu"], "gelu_half")
        n("MatMul", ["@gelu", "@W2"], ["f2_mm"], "f2_matmul")
        n("Add", ["@f2_mm", "@b2"], ["f2"], "f2_bias")
        n("Add", ["@f2", "@h1"], ["res2"], "res2_add")
        n("LayerNormalization", ["@res2", "@ln2_s", "@ln2_b"], ["out"], "ln2", axis=-1, epsilon=1e-12)
        h = p + "out"
    nodes.append(helper.make_node("Identity", [h], ["last_hidden_state"], name="output"))
    graph = helper.make_graph(
        nodes,
        "bert_like",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch_size", "seq_len"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch_size", "seq_len"]),
        ],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, None)],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="symdim-tests")
    model.ir_version = 8
    helper.set_model_props(model, {"purpose": "symdim tests"})
    return model


def bert_inputs(batch, seq, vocab=50, seed=1):
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, vocab, size=(batch, seq), dtype=np.int64)
    mask = np.ones((batch, seq), dtype=np.int64)
    mask[:, seq // 2 :] = 0
    return {"input_ids": ids, "attention_mask": mask}


def broadcast_error():
    """Add of [N, 3] and [N, 4]: invalid for every N (an error diagnostic)."""
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "y"], ["z"], name="bad_add")],
        "broadcast_error",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3]),
            helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4]),
        ],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def custom_op():
    """A Relu, then a node of an op no one knows: its output has no shape."""
    graph = helper.make_graph(
        [
            helper.make_node("Relu", ["x"], ["r"], name="relu"),
            helper.make_node("Mystery", ["r"], ["m"], name="mystery", domain="com.example"),
        ],
        "custom_op",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8])],
        [helper.make_tensor_value_info("m", TensorProto.FLOAT, None)],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)]
    )
    model.ir_version = 8
    return model


def old_opset():
    """A Relu at ONNX opset 6."""
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")],
        "old",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 6)])
    model.ir_version = 3
    return model


def conv_chain(blocks=300, channels=4):
    """`blocks` 3x3 Convs (every fourth with stride 2, each followed by a Reshape
    through Shape -> Gather -> Concat) on [N, C, H, W]: a model whose inference takes
    a while, for the threading tests."""
    inits = [
        _init("w", np.zeros((channels, channels, 3, 3), np.float32)),
        _init("i0", np.array([0], np.int64)),
        _init("i1", np.array([1], np.int64)),
        _init("tail", np.array([-1], np.int64)),
    ]
    nodes = []
    x = "x"
    for i in range(blocks):
        stride = 2 if i % 4 == 3 else 1
        nodes.append(
            helper.make_node("Conv", [x, "w"], [f"c{i}"], name=f"conv{i}", pads=[1, 1, 1, 1], strides=[stride, stride])
        )
        nodes.append(helper.make_node("Shape", [f"c{i}"], [f"s{i}"], name=f"shape{i}"))
        nodes.append(helper.make_node("Gather", [f"s{i}", "i0"], [f"n{i}"], name=f"n{i}", axis=0))
        nodes.append(helper.make_node("Gather", [f"s{i}", "i1"], [f"ch{i}"], name=f"ch{i}", axis=0))
        nodes.append(helper.make_node("Concat", [f"n{i}", f"ch{i}", "tail"], [f"t{i}"], name=f"cat{i}", axis=0))
        nodes.append(helper.make_node("Reshape", [f"c{i}", f"t{i}"], [f"flat{i}"], name=f"flat{i}"))
        nodes.append(helper.make_node("Reshape", [f"flat{i}", f"s{i}"], [f"r{i}"], name=f"unflat{i}"))
        x = f"r{i}"
    graph = helper.make_graph(
        nodes,
        "conv_chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", channels, "H", "W"])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, None)],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def even_reshape():
    """x: [S, 4] reshaped to [-1, 8]: valid when 4*S is a multiple of 8, S even."""
    graph = helper.make_graph(
        [helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")],
        "even_reshape",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["S", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [_init("shape", np.array([-1, 8], dtype=np.int64))],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model
