"""Shared helpers of the onnxruntime fixture generators.

The scripts that write `tests/fixtures/*/ort_cases.json`
(`tests/fixtures/{nn,ops_more,ops_standard,op_coverage}/gen_ort_cases.py`,
`scripts/probe_contrib.py`) import this module: the JSON form of a node's
attributes and initializers that `tests/common/ort_cases.rs` reads, and the
output shapes of onnx's shape inference where onnxruntime cannot run a model.

Verification only: needs `onnx` and `numpy`; the crate never depends on them.
"""

import numpy as np
import onnx
from onnx import helper, numpy_helper

ATTR_KINDS = {
    onnx.AttributeProto.INT: "int",
    onnx.AttributeProto.INTS: "ints",
    onnx.AttributeProto.FLOAT: "float",
    onnx.AttributeProto.FLOATS: "floats",
    onnx.AttributeProto.STRING: "str",
}


def attr_json(a):
    """An attribute as `{"type", "value"}` (int, ints, float, floats, str)."""
    v = helper.get_attribute_value(a)
    kind = ATTR_KINDS[a.type]
    if kind == "str":
        v = v.decode()
    elif kind in ("ints", "floats"):
        v = list(v)
    return {"type": kind, "value": v}


def node_json(nd, domain=False):
    """A node as the fixtures hold it; with `domain`, its domain too."""
    out = {
        "op": nd.op_type,
        "inputs": list(nd.input),
        "outputs": list(nd.output),
        "attrs": {a.name: attr_json(a) for a in nd.attribute},
    }
    if domain:
        out["domain"] = nd.domain
    return out


def init_json(n, a):
    """An initializer: name, element type, dims and (up to 64) values."""
    t = numpy_helper.from_array(a, n)
    vals = a.flatten().tolist() if a.size <= 64 else None
    if vals is not None and a.dtype == np.bool_:
        vals = [int(v) for v in vals]
    return {"name": n, "dtype": t.data_type, "dims": list(a.shape), "values": vals}


def onnx_shapes(model, outputs, b):
    """Output shapes and element types by onnx's shape inference with the graph
    inputs' symbolic dims bound to `b` (for models onnxruntime does not run); None
    when inference fails or a shape is not static."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    for vi in m.graph.input:
        t = vi.type.tensor_type
        if vi.type.HasField("tensor_type") and t.HasField("shape"):
            for d in t.shape.dim:
                if d.HasField("dim_param"):
                    d.dim_value = b[d.dim_param]
    try:
        inferred = onnx.shape_inference.infer_shapes(m, strict_mode=True, data_prop=True)
    except Exception:
        return None
    known = {v.name: v for v in list(inferred.graph.value_info) + list(inferred.graph.output)}
    shapes, dtypes = {}, {}
    for o in outputs:
        if o not in known or not known[o].type.HasField("tensor_type"):
            return None
        t = known[o].type.tensor_type
        if not t.HasField("shape") or any(not d.HasField("dim_value") for d in t.shape.dim):
            return None
        shapes[o] = [d.dim_value for d in t.shape.dim]
        dtypes[o] = t.elem_type
    return shapes, dtypes
