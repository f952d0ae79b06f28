"""Generate examples/attention.onnx: a one-head-group self-attention block with
symbolic batch and sequence, in the shape-subgraph style exporters emit
(Shape -> Gather -> Unsqueeze -> Concat -> Reshape).

Needs only the `onnx` package: python examples/make_attention.py
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

D, H = 64, 4
rng = np.random.default_rng(0)


def init(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


inits = [
    init("w_qkv", rng.standard_normal((D, 3 * D)).astype(np.float32)),
    init("b_out", np.zeros(D, dtype=np.float32)),
    init("i0", np.array(0, dtype=np.int64)),
    init("i1", np.array(1, dtype=np.int64)),
    init("ax0", np.array([0], dtype=np.int64)),
    init("heads", np.array([3, H, D // H], dtype=np.int64)),
    init("merge", np.array([0, 0, -1], dtype=np.int64)),
    init("scale", np.array(np.sqrt(D // H), dtype=np.float32)),
    init("split3", np.array([D, D, D], dtype=np.int64)),
]
nodes = [
    helper.make_node("Shape", ["x"], ["x_shape"], name="shape"),
    helper.make_node("Gather", ["x_shape", "i0"], ["batch"], name="get_batch", axis=0),
    helper.make_node("Gather", ["x_shape", "i1"], ["seq"], name="get_seq", axis=0),
    helper.make_node("Unsqueeze", ["batch", "ax0"], ["batch1"], name="unsq_batch"),
    helper.make_node("Unsqueeze", ["seq", "ax0"], ["seq1"], name="unsq_seq"),
    helper.make_node("Concat", ["batch1", "seq1", "heads"], ["qkv_shape"], name="qkv_shape", axis=0),
    helper.make_node("MatMul", ["x", "w_qkv"], ["qkv"], name="proj"),
    helper.make_node("Reshape", ["qkv", "qkv_shape"], ["qkv5"], name="split_heads"),
    helper.make_node("Transpose", ["qkv5"], ["qkv_t"], name="heads_first", perm=[2, 0, 3, 1, 4]),
    helper.make_node("Split", ["qkv_t", "ones3"], ["q", "k", "v"], name="split_qkv", axis=0),
    helper.make_node("Transpose", ["k"], ["k_t"], name="k_t", perm=[0, 1, 2, 4, 3]),
    helper.make_node("MatMul", ["q", "k_t"], ["scores"], name="scores"),
    helper.make_node("Div", ["scores", "scale"], ["scaled"], name="scale"),
    helper.make_node("Softmax", ["scaled"], ["probs"], name="softmax", axis=-1),
    helper.make_node("MatMul", ["probs", "v"], ["ctx"], name="context"),
    helper.make_node("Squeeze", ["ctx", "ax0"], ["ctx4"], name="drop_qkv_axis"),
    helper.make_node("Transpose", ["ctx4"], ["ctx_t"], name="seq_first", perm=[0, 2, 1, 3]),
    helper.make_node("Reshape", ["ctx_t", "merge"], ["merged"], name="merge_heads"),
    helper.make_node("Add", ["merged", "b_out"], ["y"], name="bias"),
]
inits.append(init("ones3", np.array([1, 1, 1], dtype=np.int64)))
graph = helper.make_graph(
    nodes,
    "attention",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "sequence", D])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    inits,
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="symdim-example")
onnx.checker.check_model(model) if model.graph.output[0].type.tensor_type.HasField("shape") else None
onnx.save(model, "examples/attention.onnx")
