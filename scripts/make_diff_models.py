#!/usr/bin/env python3
"""Write the `symdim diff` fixture pair: a small encoder block and its
onnxruntime-optimized version (tests/fixtures/diff/).

The block (`x: [batch, sequence, 32]`, float): a LayerNorm written out op by op
(ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add), a MatMul + Add
projection, a Gelu written out (Div, Erf, Add, Mul, Mul), a Shape -> Gather ->
Unsqueeze -> Concat -> Reshape that splits the last axis into 4 heads of 8, and a
Transpose. onnxruntime (`ORT_ENABLE_EXTENDED`, CPU) folds the written-out LayerNorm
and Gelu into single ops and writes the optimized graph with
`optimized_model_filepath`; the interface and every dim are unchanged, so the
diff's verdict must be `compatible` (ops differ) and nothing may break.

    /work/venv-diff/bin/python scripts/make_diff_models.py   # onnx, onnxruntime, numpy
"""

import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "diff")


def block():
    rng = np.random.default_rng(0)
    f = lambda name, *shape: numpy_helper.from_array(
        rng.standard_normal(shape).astype(np.float32) * 0.1, name
    )
    c = lambda name, v, dt=np.float32: numpy_helper.from_array(np.array(v, dtype=dt), name)
    inits = [
        f("gamma", 32),
        f("beta", 32),
        f("w", 32, 32),
        f("b", 32),
        c("eps", 1e-5),
        c("two", 2.0),
        c("sqrt2", 1.4142135),
        c("one", 1.0),
        c("half", 0.5),
        c("idx01", [0, 1], np.int64),
        c("heads", [4, 8], np.int64),
        c("axes", [-1], np.int64),
    ]
    n = helper.make_node
    nodes = [
        # LayerNorm over the last axis.
        n("ReduceMean", ["x"], ["mean"], axes=[-1], name="ln_mean"),
        n("Sub", ["x", "mean"], ["xc"], name="ln_sub"),
        n("Pow", ["xc", "two"], ["sq"], name="ln_pow"),
        n("ReduceMean", ["sq"], ["var"], axes=[-1], name="ln_var"),
        n("Add", ["var", "eps"], ["vare"], name="ln_add_eps"),
        n("Sqrt", ["vare"], ["std"], name="ln_sqrt"),
        n("Div", ["xc", "std"], ["xn"], name="ln_div"),
        n("Mul", ["xn", "gamma"], ["xg"], name="ln_scale"),
        n("Add", ["xg", "beta"], ["ln"], name="ln_shift"),
        # Projection.
        n("MatMul", ["ln", "w"], ["mm"], name="proj"),
        n("Add", ["mm", "b"], ["h"], name="proj_bias"),
        # Gelu.
        n("Div", ["h", "sqrt2"], ["hd"], name="gelu_div"),
        n("Erf", ["hd"], ["he"], name="gelu_erf"),
        n("Add", ["he", "one"], ["h1"], name="gelu_add"),
        n("Mul", ["h", "h1"], ["hm"], name="gelu_mul"),
        n("Mul", ["hm", "half"], ["g"], name="gelu_half"),
        # Heads: [batch, sequence, 4, 8] from the symbolic shape.
        n("Shape", ["g"], ["s"], name="shape"),
        n("Gather", ["s", "idx01"], ["bs"], axis=0, name="take_bs"),
        n("Concat", ["bs", "heads"], ["target"], axis=0, name="target"),
        n("Reshape", ["g", "target"], ["split"], name="split_heads"),
        n("Transpose", ["split"], ["y"], perm=[0, 2, 1, 3], name="heads_first"),
    ]
    g = helper.make_graph(
        nodes,
        "block",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "sequence", 32])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4, "sequence", 8])],
        inits,
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def main():
    os.makedirs(OUT, exist_ok=True)
    plain = os.path.join(OUT, "block.onnx")
    opt = os.path.join(OUT, "block_ort_optimized.onnx")
    onnx.save(block(), plain)
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    so.optimized_model_filepath = opt
    sess = ort.InferenceSession(plain, so, providers=["CPUExecutionProvider"])
    x = np.random.default_rng(1).standard_normal((2, 5, 32)).astype(np.float32)
    (y,) = sess.run(None, {"x": x})
    assert y.shape == (2, 4, 5, 8), y.shape
    ops = lambda p: sorted({(n.domain, n.op_type) for n in onnx.load(p).graph.node})
    print("block.onnx:", ops(plain))
    print("block_ort_optimized.onnx:", ops(opt))
    print("onnx", onnx.__version__, "onnxruntime", ort.__version__, "numpy", np.__version__)


if __name__ == "__main__":
    sys.exit(main())
