"""symdim.SymbolicShapeInference and SymbolicShapeInferenceHelper in place of
onnxruntime's, in onnxruntime's own pipelines: the quantization pre-processing
(which calls SymbolicShapeInference.infer_shapes) and the transformer optimizer
(whose fusions ask SymbolicShapeInferenceHelper for shapes)."""

import inspect
import logging
import sys

import numpy as np
import onnx
import pytest
from conftest import CORPUS, EXAMPLE
from onnx.reference import ReferenceEvaluator

import models
import symdim

ort_ssi = pytest.importorskip("onnxruntime.tools.symbolic_shape_infer")
pytest.importorskip("sympy")  # onnxruntime's symbolic inference needs it


def test_same_signature_as_onnxruntimes():
    def params(f):
        return [(p.name, p.kind, p.default) for p in inspect.signature(f).parameters.values()]

    assert params(symdim.SymbolicShapeInference.infer_shapes) == params(
        ort_ssi.SymbolicShapeInference.infer_shapes
    )
    assert inspect.signature(symdim.SymbolicShapeInference.__init__).parameters.keys() == inspect.signature(
        ort_ssi.SymbolicShapeInference.__init__
    ).parameters.keys()


def test_returns_an_annotated_model_proto():
    m = models.bert_like()
    out = symdim.SymbolicShapeInference.infer_shapes(m, auto_merge=True)
    assert isinstance(out, onnx.ModelProto)
    assert out == symdim.infer_shapes(m)
    assert symdim.SymbolicShapeInference.infer_shapes(m, 2**31 - 1, False, False, 0) == out


def test_old_opsets_give_none_with_a_warning(caplog):
    with caplog.at_level(logging.WARNING, logger="symdim"):
        assert symdim.SymbolicShapeInference.infer_shapes(models.old_opset()) is None
    assert "opset 7" in caplog.text
    assert ort_ssi.SymbolicShapeInference.infer_shapes(models.old_opset()) is None


def test_incomplete_inference_raises(caplog):
    with caplog.at_level(logging.WARNING, logger="symdim"):
        with pytest.raises(symdim.IncompleteInferenceError) as e:
            symdim.SymbolicShapeInference.infer_shapes(models.custom_op(), verbose=1)
    assert isinstance(e.value, Exception)
    assert e.value.tensors == ["m"]
    assert "Incomplete symbolic shape inference" in str(e.value)
    assert "no shape rule for com.example:Mystery-1" in caplog.text
    assert "Mystery" in e.value.diagnostics[0].message


def _shapes(model):
    out = {}
    for vi in list(model.graph.value_info) + list(model.graph.output):
        t = vi.type.tensor_type
        if t.HasField("shape"):
            out[vi.name] = [d.dim_value if d.HasField("dim_value") else d.dim_param or None for d in t.shape.dim]
    return out


def _agree(ours, theirs, inputs):
    """Tensors where onnxruntime's shape is made of numbers and input symbols: ours
    must be the same. Returns how many were compared."""
    compared = 0
    for name, shape in theirs.items():
        if all(isinstance(d, int) or d in inputs for d in shape):
            assert ours.get(name) == shape, name
            compared += 1
    return compared


@pytest.mark.parametrize("which", ["bert_like", "attention", "llama_l2_ts17", "gpt2_l2_dyn18"])
def test_agrees_with_onnxruntime(which):
    if which == "bert_like":
        m = models.bert_like()
    elif which == "attention":
        m = onnx.load(EXAMPLE)
    else:
        path = CORPUS / "real-models" / "export" / f"{which}.onnx"
        if not path.exists():
            pytest.skip(f"{path} not found")
        m = onnx.load(path)
    inputs = {d.dim_param for i in m.graph.input for d in i.type.tensor_type.shape.dim if d.dim_param}
    theirs = _shapes(ort_ssi.SymbolicShapeInference.infer_shapes(m, auto_merge=True))
    ours = _shapes(symdim.SymbolicShapeInference.infer_shapes(m, auto_merge=True))
    assert _agree(ours, theirs, inputs) >= len(m.graph.node) // 2


class _Spy:
    """Counts the calls of the class it stands in for."""

    calls = 0


def _spy(base):
    class Spy(base):
        @staticmethod
        def infer_shapes(*args, **kwargs):
            _Spy.calls += 1
            return base.infer_shapes(*args, **kwargs)

    return Spy


def test_quantization_preprocessing_with_symdims_class(monkeypatch, tmp_path):
    from onnxruntime.quantization.shape_inference import quant_pre_process

    src = tmp_path / "bert.onnx"
    onnx.save(models.bert_like(), src)
    feeds = models.bert_inputs(2, 6)
    expected = ReferenceEvaluator(str(src)).run(None, feeds)[0]

    _Spy.calls = 0
    monkeypatch.setattr(ort_ssi, "SymbolicShapeInference", _spy(symdim.SymbolicShapeInference))
    out = tmp_path / "pre.onnx"
    quant_pre_process(str(src), str(out))
    assert _Spy.calls == 1
    pre = onnx.load(out)
    shapes = _shapes(pre)
    assert shapes["last_hidden_state"] == ["batch_size", "seq_len", 32]
    got = ReferenceEvaluator(pre).run(None, feeds)[0]
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)

    # The same pipeline with onnxruntime's own class gives the same numeric shapes.
    monkeypatch.undo()
    out_ort = tmp_path / "pre_ort.onnx"
    quant_pre_process(str(src), str(out_ort))
    theirs = _shapes(onnx.load(out_ort))
    inputs = {"batch_size", "seq_len"}
    assert _agree(shapes, theirs, inputs) > 20


def _optimize(model, helper_class, monkeypatch):
    import onnxruntime.transformers.optimizer as optimizer
    from onnxruntime.transformers.fusion_options import FusionOptions

    import shape_infer_helper  # onnxruntime.transformers puts its folder on sys.path

    if helper_class is not None:
        monkeypatch.setattr(shape_infer_helper, "SymbolicShapeInferenceHelper", helper_class)
        full = sys.modules.get("onnxruntime.transformers.shape_infer_helper")
        if full is not None:
            monkeypatch.setattr(full, "SymbolicShapeInferenceHelper", helper_class)
    m = onnx.ModelProto()
    m.CopyFrom(model)
    # Every fusion of the bert model type: the GELU fusions put com.microsoft ops
    # (Gelu, BiasGelu) in the graph before the fusions that need shapes run.
    opt = optimizer.optimize_model(
        m, model_type="bert", num_heads=4, hidden_size=32, opt_level=0,
        optimization_options=FusionOptions("bert"),
    )
    monkeypatch.undo()
    ops = {}
    for n in opt.model.graph.node:
        ops[n.op_type] = ops.get(n.op_type, 0) + 1
    return opt.get_fused_operator_statistics(), ops


def test_transformer_optimizer_with_symdims_helper(monkeypatch):
    model = models.bert_like(layers=2)
    made = []

    class Helper(symdim.SymbolicShapeInferenceHelper):
        def __init__(self, *args, **kwargs):
            made.append(1)
            super().__init__(*args, **kwargs)

    ours = _optimize(model, Helper, monkeypatch)
    assert made, "the optimizer did not use the helper"
    theirs = _optimize(model, None, monkeypatch)
    assert ours == theirs
    fused, ops = ours
    # The GELU fusions run first, so the later ones infer shapes through BiasGelu.
    assert fused["BiasGelu"] == 2, fused
    # The residual Add + LayerNormalization pairs fuse only when shape inference
    # shows both Add inputs have the same shape.
    assert fused["SkipLayerNormalization"] == 4, fused
    assert ops["LayerNormalization"] == 1  # the embeddings' is left


def test_helper_reads_shapes_like_onnxruntimes():
    from shape_infer_helper import SymbolicShapeInferenceHelper as OrtHelper

    model = models.bert_like()
    ours = symdim.SymbolicShapeInferenceHelper(model)
    theirs = OrtHelper(model)
    mapping = {"batch_size": 4, "seq_len": 7}
    assert ours.infer(mapping) and theirs.infer(mapping)
    for name in ("l0_qk", "l0_ctx_3d", "l1_res2", "l0_split_shape", "input_ids", "word_emb"):
        assert ours.get_edge_shape(name) == theirs.get_edge_shape(name), name
    assert ours.get_edge_shape("l0_qk") == [4, 4, 7, 7]
    assert ours.compare_shape("l0_res1", "l0_h1") and theirs.compare_shape("l0_res1", "l0_h1")
    assert not ours.compare_shape("l0_qk", "l0_h1")
    assert ours.infer(mapping)  # cached
