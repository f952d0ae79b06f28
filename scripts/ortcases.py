"""Shared helpers of the onnxruntime fixture generators.

The scripts that write `tests/fixtures/*/ort_cases.json`
(`tests/fixtures/{nn,ops_more,ops_standard,op_coverage}/gen_ort_cases.py`,
`scripts/probe_contrib.py`) import this module: the JSON form of a node's
attributes and initializers that `tests/it/common/ort_cases.rs` reads, and the
output shapes of onnx's shape inference where onnxruntime cannot run a model.

Verification only: needs `onnx` and `numpy`; the crate never depends on them.
"""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# The numpy type of each element type the generators feed to onnxruntime.
NP = {
    TensorProto.FLOAT: np.float32,
    TensorProto.DOUBLE: np.float64,
    TensorProto.FLOAT16: np.float16,
    TensorProto.INT64: np.int64,
    TensorProto.INT32: np.int32,
    TensorProto.INT16: np.int16,
    TensorProto.INT8: np.int8,
    TensorProto.UINT64: np.uint64,
    TensorProto.UINT32: np.uint32,
    TensorProto.UINT16: np.uint16,
    TensorProto.UINT8: np.uint8,
    TensorProto.BOOL: np.bool_,
    TensorProto.STRING: np.object_,
}

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
    out = {"op": nd.op_type}
    if domain:
        out["domain"] = nd.domain
    out["inputs"] = list(nd.input)
    out["outputs"] = list(nd.output)
    out["attrs"] = {a.name: attr_json(a) for a in nd.attribute}
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


def make_model(name, inputs, nodes, outputs, inits=(), opsets=(("", 17),), ir_version=None):
    """A model of `nodes`: `inputs` [(name, element type, dims)] with str dims
    symbolic, `outputs` by name (untyped), `inits` [(name, numpy array)], `opsets`
    [(domain, version)]. The IR version is `ir_version`, or the helper's capped at
    10 (what onnxruntime reads)."""
    g_inputs = [helper.make_tensor_value_info(n, t, d) for n, t, d in inputs]
    g_outputs = [onnx.ValueInfoProto(name=o) for o in outputs]
    g_inits = [numpy_helper.from_array(a, n) for n, a in inits]
    graph = helper.make_graph(nodes, name, g_inputs, g_outputs, g_inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])
    model.ir_version = ir_version if ir_version is not None else min(model.ir_version, 10)
    return model


def case_json(name, opset, inputs, inits, nodes, outputs, runs, skipped, truth=None, domain=False):
    """A case in the form `tests/it/common/ort_cases.rs` reads: the graph as JSON
    (inputs, initializers, nodes; with `domain`, each node's domain), the runs,
    the count of bindings skipped, and with `truth` what the runs come from."""
    out = {
        "name": name,
        "opset": opset,
        "inputs": [{"name": n, "dtype": t, "shape": d} for n, t, d in inputs],
        "initializers": [init_json(n, a) for n, a in inits],
        "nodes": [node_json(nd, domain) for nd in nodes],
        "outputs": outputs,
    }
    if truth is not None:
        out["truth"] = truth
    out["runs"] = runs
    out["skipped_bindings"] = skipped
    return out


def write(generator, cases, not_run=None, out=None):
    """The fixture: generator, onnx and onnxruntime versions, the cases not run
    (when given) and the cases, as indented JSON on stdout."""
    import json
    import sys

    import onnxruntime as ort

    doc = {"generator": generator, "onnx": onnx.__version__, "onnxruntime": ort.__version__}
    if not_run is not None:
        doc["not_run"] = not_run
    doc["cases"] = cases
    out = out or sys.stdout
    json.dump(doc, out, indent=1)
    out.write("\n")
