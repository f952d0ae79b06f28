"""symdim.infer, infer_shapes, constraints, check, explain on small models, against
the executable's output and against models run by onnx's reference evaluator."""

import io
import pathlib
import sys

import numpy as np
import onnx
import pytest
from conftest import EXAMPLE
from onnx.reference import ReferenceEvaluator

import models
import symdim
from symdim import Dim


def test_attention_shapes():
    r = symdim.infer(EXAMPLE)
    batch, seq = Dim("batch"), Dim("sequence")
    assert r.tensors["x"].shape == [batch, seq, 64]
    assert r.tensors["qkv_t"].shape == [3, batch, 4, seq, 16]
    assert r.tensors["scores"].shape == [1, batch, 4, seq, seq]
    assert r["y"].shape == [batch, seq, 64]
    assert r["y"].dtype == "f32" and r["y"].elem_type == onnx.TensorProto.FLOAT
    assert r["qkv_shape"].value == [batch, seq, 3, 4, 16]
    assert r["y"].rank == 3
    assert r.outputs == ["y"]
    assert list(r.symbols) == ["batch", "sequence"]
    assert r.symbols["batch"].kind == "input"
    assert r.diagnostics == [] and not r.has_errors
    assert r.path == str(EXAMPLE) and r.format == "onnx" and r.opsets == {"": 17}
    assert "y" in r and "nope" not in r and len(r) == len(r.tensors)
    with pytest.raises(KeyError):
        r["nope"]
    # Every dim is an int or a Dim, and evaluates.
    y = r["y"].shape
    assert [d if isinstance(d, int) else d.eval(batch=2, sequence=7) for d in y] == [2, 7, 64]


def test_report_bytes_are_the_clis(cli):
    for fmt, method in (("json", "to_json"), ("text", "to_text")):
        for extra, bind, assume in (
            ([], None, None),
            (["--bind", "batch=4"], {"batch": 4}, None),
            (["--assume", "sequence % 8 == 0"], None, "sequence % 8 == 0"),
            (["--bind", "sequence=3", "--assume", "batch >= 2"], [("sequence", 3)], ["batch >= 2"]),
        ):
            out = cli("infer", EXAMPLE, "--format", fmt, *extra)
            assert out.returncode == 0, out.stderr
            r = symdim.infer(EXAMPLE, bind=bind, assume=assume)
            assert getattr(r, method)().encode() == out.stdout


def test_bind_gives_ints():
    r = symdim.infer(EXAMPLE, bind={"batch": 4, "sequence": 10})
    assert r["scores"].shape == [1, 4, 4, 10, 10]
    assert all(type(d) is int for d in r["scores"].shape)


def test_model_inputs_of_every_kind_agree():
    data = EXAMPLE.read_bytes()
    reports = [
        symdim.infer(str(EXAMPLE)),
        symdim.infer(EXAMPLE),
        symdim.infer(data),
        symdim.infer(bytearray(data)),
        symdim.infer(memoryview(data)),
        symdim.infer(onnx.load(EXAMPLE)),
    ]
    texts = [r.to_json().replace(str(EXAMPLE), "<memory>") for r in reports]
    assert all(t == texts[0] for t in texts)
    assert reports[2].path == "<memory>"
    with pytest.raises(TypeError, match="model must be"):
        symdim.infer(42)


def test_bad_bind_and_assume_types():
    with pytest.raises(TypeError):
        symdim.infer(EXAMPLE, bind={"batch": "four"})
    with pytest.raises(TypeError):
        symdim.infer(EXAMPLE, assume=[3])


def test_binds_and_facts_of_unknown_symbols_raise_the_clis_message(cli):
    # As `symdim infer` refuses them (exit 2): a bind the model never reads would
    # silently change nothing.
    for extra, kwargs in (
        (["--bind", "batchh=4"], {"bind": {"batchh": 4}}),
        (["--assume", "seq >= 2"], {"assume": "seq >= 2"}),
    ):
        out = cli("infer", EXAMPLE, *extra)
        assert out.returncode == 2
        message = out.stderr.decode().strip().removeprefix("symdim: ")
        for call in (symdim.infer, symdim.infer_shapes, symdim.constraints):
            with pytest.raises(ValueError) as e:
                call(EXAMPLE, **kwargs)
            assert str(e.value) == message
        with pytest.raises(ValueError, match="no symbol"):
            symdim.check(EXAMPLE, kwargs.get("bind", {"batch": 1}), assume=kwargs.get("assume"))


def test_unreadable_models_raise_model_error_with_the_clis_message(cli, tmp_path):
    garbage = tmp_path / "garbage.onnx"
    garbage.write_bytes(b"\xff\xfe\x00\x13\x37\x42\x99\x01")
    truncated = tmp_path / "truncated.onnx"
    truncated.write_bytes(EXAMPLE.read_bytes()[:500])
    missing = tmp_path / "missing.onnx"
    empty = tmp_path / "empty.onnx"
    empty.write_bytes(b"")
    for path in (garbage, truncated, missing, empty):
        out = cli("infer", path)
        assert out.returncode == 2
        with pytest.raises(symdim.ModelError) as e:
            symdim.infer(path)
        assert isinstance(e.value, ValueError)
        assert out.stderr.decode() == f"symdim: {e.value}\n"
        with pytest.raises(symdim.ModelError):
            symdim.infer_shapes(path)


def test_a_model_with_errors_still_gives_its_report(cli, tmp_path):
    path = tmp_path / "bad.onnx"
    onnx.save(models.broadcast_error(), path)
    r = symdim.infer(path)
    assert r.has_errors
    [d] = r.diagnostics
    assert (d.severity, d.node, d.op) == ("error", "bad_add", "Add")
    assert "3 != 4" in d.message and "bad_add" in str(d)
    out = cli("infer", path, "--format", "json")
    assert out.returncode == 1
    assert r.to_json().encode() == out.stdout
    # infer_shapes annotates what it can.
    m = symdim.infer_shapes(path)
    assert [o.name for o in m.graph.output] == ["z"]


def _dims(value_info):
    t = value_info.type.tensor_type
    if not t.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else d.dim_param for d in t.shape.dim]


def test_infer_shapes_annotates_and_changes_nothing_else():
    src = models.bert_like()
    src.graph.value_info.append(onnx.helper.make_tensor_value_info("stale", onnx.TensorProto.FLOAT, [1]))
    out = symdim.infer_shapes(src)
    assert isinstance(out, onnx.ModelProto) and out is not src
    report = symdim.infer(src)
    inputs = {i.name for i in src.graph.input}
    outputs = {o.name for o in src.graph.output}
    # Declared value_info is kept where it was (as `symdim infer -o` keeps it), then
    # every other node output but the graph outputs has value_info, with the
    # report's shape.
    expected = ["stale"] + [n for n in report.tensors if n not in inputs and n not in outputs]
    assert [vi.name for vi in out.graph.value_info] == expected
    assert _dims(out.graph.value_info[0]) == [1]
    for vi in list(out.graph.value_info)[1:] + list(out.graph.output):
        t = report.tensors[vi.name]
        assert _dims(vi) == [d if isinstance(d, int) else str(d) for d in t.shape]
        assert vi.type.tensor_type.elem_type == t.elem_type
    assert _dims(out.graph.output[0]) == ["batch_size", "seq_len", 32]
    # Everything else as it was.
    for field in ("node", "initializer", "input", "sparse_initializer"):
        assert list(getattr(out.graph, field)) == list(getattr(src.graph, field)), field
    for field in ("opset_import", "metadata_props", "functions"):
        assert list(getattr(out, field)) == list(getattr(src, field)), field
    assert (out.ir_version, out.producer_name, out.graph.name) == (src.ir_version, src.producer_name, src.graph.name)
    # The input is untouched.
    assert src.graph.value_info[-1].name == "stale"


def test_infer_shapes_is_what_the_cli_writes(cli, tmp_path):
    out_path = tmp_path / "annotated.onnx"
    out = cli("infer", EXAMPLE, "-o", out_path)
    assert out.returncode == 0, out.stderr
    written = out_path.read_bytes()
    assert symdim._native.annotate(EXAMPLE)[0] == written
    assert symdim.infer_shapes(EXAMPLE) == onnx.load_from_string(written)
    assert symdim.infer_shapes(EXAMPLE.read_bytes(), bind={"batch": 2}) == onnx.load_from_string(
        symdim._native.annotate(EXAMPLE, bind={"batch": 2})[0]
    )


def test_infer_shapes_of_a_model_proto_is_the_whole_annotated_model():
    # infer_shapes(ModelProto) merges a skeleton's graph into a copy of the model;
    # the result is the model symdim writes whole.
    protos = [models.bert_like(), onnx.load(EXAMPLE), models.broadcast_error(), models.custom_op()]
    no_outputs = models.bert_like()
    del no_outputs.graph.output[:]
    stale = models.bert_like()
    stale.graph.value_info.append(onnx.helper.make_tensor_value_info("stale", onnx.TensorProto.FLOAT, [1]))
    protos += [no_outputs, stale]
    for m in protos:
        whole = onnx.load_from_string(symdim._native.annotate(m.SerializeToString())[0])
        assert symdim.infer_shapes(m) == whole
    assert symdim.infer_shapes(m, bind={"batch_size": 2}) == onnx.load_from_string(
        symdim._native.annotate(m.SerializeToString(), bind={"batch_size": 2})[0]
    )


def test_infer_shapes_passes_onnx_full_check():
    # full_check runs onnx's own shape inference in strict mode over our value_info:
    # element types, ranks and every numeric dim must agree.
    for m in (models.bert_like(), onnx.load(EXAMPLE)):
        onnx.checker.check_model(symdim.infer_shapes(m), full_check=True)


@pytest.mark.parametrize("batch,seq", [(1, 1), (2, 5), (3, 16)])
def test_inferred_shapes_match_a_run(batch, seq):
    """Run the model with every node output exposed (onnx's reference evaluator) and
    compare each runtime shape with the inferred one evaluated at the input dims."""
    model = models.bert_like()
    report = symdim.infer(model)
    run = ReferenceEvaluator(model)
    names = [o for n in model.graph.node for o in n.output]
    values = dict(zip(names, run.run(names, models.bert_inputs(batch, seq))))
    at = {"batch_size": batch, "seq_len": seq}
    for name, value in values.items():
        shape = report.tensors[name].shape
        got = [d if isinstance(d, int) else d.eval(at) for d in shape]
        assert got == list(np.shape(value)), name


def test_infer_shapes_without_onnx_gives_bytes(monkeypatch):
    data = EXAMPLE.read_bytes()
    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx now fails
    out = symdim.infer_shapes(data)
    assert isinstance(out, bytes)
    assert out == symdim._native.annotate(data)[0]
    assert len(out) > len(data)


def test_infer_shapes_needs_an_onnx_model(tmp_path):
    xml = pathlib.Path(__file__).parents[2] / "tests/fixtures/openvino/tiny_reshape/model.xml"
    assert symdim.infer(xml).format == "openvino"
    with pytest.raises(symdim.ModelError, match="ONNX models only"):
        symdim.infer_shapes(xml)


def test_constraints_check_explain_match_the_cli(cli, tmp_path):
    path = tmp_path / "bert.onnx"
    onnx.save(models.bert_like(), path)
    # The CLI refuses a symbol the model does not declare: each model its own names.
    names = {EXAMPLE: ("batch", "sequence"), path: ("batch_size", "seq_len")}
    for model in (EXAMPLE, path):
        batch, seq = names[model]
        for fmt in ("text", "json"):
            c = symdim.constraints(model, assume=f"{batch} <= 8")
            out = cli("constraints", model, "--format", fmt, "--assume", f"{batch} <= 8")
            assert out.returncode == 0, out.stderr
            assert (c.to_text() if fmt == "text" else c.to_json()).encode() == out.stdout
            v = symdim.check(model, {batch: 2, seq: 70})
            out = cli("check", model, "--format", fmt, "--bind", f"{batch}=2", "--bind", f"{seq}=70")
            assert out.returncode == v.exit_code
            assert (v.to_text() if fmt == "text" else v.to_json()).encode() == out.stdout
    # bert_like's position embedding has 64 rows: seq_len <= 64 is in its contract.
    c = symdim.constraints(path)
    assert any(k.kind == "range" and k.condition == "seq_len <= 64" for k in c.conditions)
    v = symdim.check(path, {"batch_size": 2, "seq_len": 70})
    assert v.status == "invalid" and not v.valid and v.exit_code == 1
    assert v.failures and "seq_len <= 64" in v.failures[0].reason
    assert symdim.check(path, {"batch_size": 2, "seq_len": 64}).valid
    assert symdim.check(path, {"batch_size": 2}).status == "undecided"
    out = cli("explain", EXAMPLE, "merged[2]")
    assert symdim.explain(EXAMPLE, "merged[2]").encode() == out.stdout
    with pytest.raises(ValueError, match="no tensor"):
        symdim.explain(EXAMPLE, "nope[0]")


def test_symbols_of_a_report_with_derived_symbols():
    # Reshape of [N, 6] to [-1, K]: the -1 is 6*N/K, a derived symbol when K does not
    # provably divide 6*N.
    from onnx import TensorProto, helper

    g = helper.make_graph(
        [
            helper.make_node("Shape", ["k"], ["ks"], name="ks"),
            helper.make_node("Concat", ["minus1", "ks"], ["target"], name="target", axis=0),
            helper.make_node("Reshape", ["x", "target"], ["y"], name="reshape"),
        ],
        "derived",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 6]),
            helper.make_tensor_value_info("k", TensorProto.FLOAT, ["K"]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [onnx.numpy_helper.from_array(np.array([-1], np.int64), "minus1")],
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    r = symdim.infer(m)
    y0 = r["y"].shape[0]
    kinds = {name: s.kind for name, s in r.symbols.items()}
    derived = [s for s in r.symbols.values() if s.kind == "derived"]
    assert kinds["N"] == "input" and kinds["K"] == "input"
    assert derived, r.to_text()
    assert isinstance(y0, Dim) and str(y0) == derived[0].name
    assert derived[0].definition == Dim("6*N/K")
    assert derived[0].definition.eval(N=2, K=3) == 4
    assert "Symbol(" in repr(derived[0]) and "Tensor(" in repr(r["y"])
    assert io.StringIO(r.to_text()).read().startswith("model: <memory>")
