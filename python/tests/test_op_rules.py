"""op_rules=: shape rules for custom ops declared in a file or in text
(docs/op-rules.md), as ``symdim --op-rules`` reads them."""

import pathlib

import onnx
import pytest
from conftest import REPO
from onnx import TensorProto, helper

import symdim
from symdim import Dim

EXAMPLE_RULES = REPO / "examples" / "op_rules" / "onnxruntime_extensions.txt"

POOL_RULES = """\
op com.example:LastAxisPool
  attr stride = 2
  require in0[-1] % @stride == 0
  output dtype=in0 shape=[in0[:-1], in0[-1] / @stride]
"""


def text_model():
    """onnxruntime-extensions string ops (ai.onnx.contrib), then a standard Add."""
    nodes = [
        helper.make_node("StringLength", ["text"], ["lengths"], name="length", domain="ai.onnx.contrib"),
        helper.make_node("Add", ["lengths", "lengths"], ["twice"], name="double"),
        helper.make_node("VectorToString", ["codes"], ["words"], name="to_string", domain="ai.onnx.contrib"),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("text", TensorProto.STRING, ["batch", "n"]),
            helper.make_tensor_value_info("codes", TensorProto.INT64, ["batch", 4]),
        ],
        [
            helper.make_tensor_value_info("twice", TensorProto.INT64, None),
            helper.make_tensor_value_info("words", TensorProto.STRING, None),
        ],
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.contrib", 1)]
    )


def pool_model(width):
    node = helper.make_node("LastAxisPool", ["x"], ["y"], name="pool", domain="com.example")
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", width])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)]
    )


def test_without_rules_the_custom_ops_have_no_shape():
    r = symdim.infer(text_model())
    assert r["twice"].shape is None
    assert any("no shape rule for ai.onnx.contrib:StringLength-1" in d.message for d in r.diagnostics)


def test_a_rules_file_by_path_str_or_pathlike():
    for rules in (str(EXAMPLE_RULES), EXAMPLE_RULES, [EXAMPLE_RULES]):
        r = symdim.infer(text_model(), op_rules=rules)
        assert r["lengths"].shape == [Dim("batch"), Dim("n")]
        assert r["lengths"].dtype == "i64"
        assert r["twice"].shape == [Dim("batch"), Dim("n")]
        assert r["words"].shape == [Dim("batch")]
        assert r.diagnostics == []


def test_rules_as_text_and_merged_with_a_file():
    r = symdim.infer(pool_model(12), op_rules=POOL_RULES)
    assert r["y"].shape == [Dim("N"), 6]
    r = symdim.infer(pool_model("W"), op_rules=[POOL_RULES, EXAMPLE_RULES])
    assert r["y"].shape == [Dim("N"), Dim("W/2")]
    assert not r.has_errors
    # A width the stride provably does not divide: an error diagnostic naming the
    # rule's line; the report is still produced.
    r = symdim.infer(pool_model(7), op_rules=POOL_RULES)
    assert r.has_errors
    assert "op rule at <text>:3: require in0[-1] % @stride == 0 does not hold" in r.to_text()


def test_the_other_functions_take_op_rules():
    model = text_model()
    out = symdim.infer_shapes(model, op_rules=EXAMPLE_RULES)
    shapes = {v.name: v for v in list(out.graph.value_info) + list(out.graph.output)}
    dims = [d.dim_param or d.dim_value for d in shapes["lengths"].type.tensor_type.shape.dim]
    assert dims == ["batch", "n"]
    assert symdim.check(model, {"batch": 2, "n": 3}, op_rules=EXAMPLE_RULES).exit_code == 0
    assert isinstance(symdim.constraints(model, op_rules=EXAMPLE_RULES).to_text(), str)
    assert "n" in symdim.explain(model, "twice[1]", op_rules=EXAMPLE_RULES)


def test_bad_rules_raise_op_rules_error_naming_the_line(tmp_path):
    with pytest.raises(symdim.OpRulesError, match=r"^<text>:2: unknown keyword `outptu`"):
        symdim.infer(text_model(), op_rules="op A\n  outptu shape=in0\n")
    bad = tmp_path / "bad.txt"
    bad.write_text("op A\n  output shape=[in0[0] +]\n")
    with pytest.raises(symdim.OpRulesError, match=rf"^{bad}:2: `in0\[0\] \+` does not parse"):
        symdim.infer(text_model(), op_rules=bad)
    with pytest.raises(symdim.OpRulesError, match="cannot read the op rules"):
        symdim.infer(text_model(), op_rules=str(tmp_path / "missing.txt"))
    with pytest.raises(symdim.OpRulesError, match="overlaps"):
        symdim.infer(text_model(), op_rules=[EXAMPLE_RULES, EXAMPLE_RULES])
    with pytest.raises(TypeError):
        symdim.infer(text_model(), op_rules=3)
    assert issubclass(symdim.OpRulesError, ValueError)


def test_the_results_are_the_clis(cli):
    path = REPO / "examples" / "attention.onnx"
    out = cli("infer", path, "--op-rules", EXAMPLE_RULES, "--format", "json")
    assert out.returncode == 0, out.stderr
    assert symdim.infer(path, op_rules=EXAMPLE_RULES).to_json().encode() == out.stdout
