"""`symdim.diff` gives what `symdim diff --format json` prints, as a dict; on two
small versions of one model the changes are known by construction."""

import json

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import symdim


def positions(batch, rows):
    """`x: [batch, S, 4]` plus rows `0..S` of a position table of `rows` rows
    (Shape -> Gather -> Range -> Gather): the contract is `S <= rows`."""
    inits = [
        numpy_helper.from_array(np.array(0, np.int64), "zero"),
        numpy_helper.from_array(np.array(1, np.int64), "one"),
        numpy_helper.from_array(np.zeros((rows, 4), np.float32), "pos"),
    ]
    nodes = [
        helper.make_node("Shape", ["x"], ["s"], name="shape"),
        helper.make_node("Gather", ["s", "one"], ["len"], name="seq"),
        helper.make_node("Range", ["zero", "len", "one"], ["ids"], name="range"),
        helper.make_node("Gather", ["pos", "ids"], ["e"], name="emb"),
        helper.make_node("Add", ["x", "e"], ["y"], name="add"),
    ]
    g = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, "S", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        inits,
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


def test_renamed_symbol_is_same():
    # Axis 0 of `x` is `B` in OLD and `N` in NEW: the same model, mapping B -> N.
    d = symdim.diff(positions("B", 512), positions("N", 512))
    assert d["verdict"] == "same"
    assert d["symbols"] == {"B": "N", "S": "S"}
    assert d["inputs"] == [] and d["outputs"] == []
    assert d["cost"] is None  # only with cost=True


def test_narrowed_table_is_breaking_with_its_witness():
    # 1024 rows, then 512: `S <= 1024` became `S <= 512`; S = 1024 was valid.
    d = symdim.diff(positions("B", 1024), positions("B", 512), cost=True)
    assert d["verdict"] == "breaking"
    (r,) = d["ranges"]
    assert (r["symbol"], r["old"], r["new"], r["change"], r["breaking"]) == (
        "S",
        "1..1024",
        "1..512",
        "narrowed",
        True,
    )
    assert r["witness"] == "S = 1024"
    assert d["cost"]["parameters"]["difference"] == -2048
    # The other way round: widened, compatible.
    assert symdim.diff(positions("B", 512), positions("B", 1024))["verdict"] == "compatible"


def test_facts_go_to_the_version_that_names_them():
    # `B` is OLD's name only; binding it is fine; a name neither has is refused.
    d = symdim.diff(positions("B", 512), positions("N", 512), bind={"B": 2})
    assert d["verdict"] in ("same", "compatible")
    with pytest.raises(ValueError):
        symdim.diff(positions("B", 512), positions("N", 512), bind={"Q": 2})


def test_the_dict_is_the_commands_json(cli, tmp_path):
    old, new = tmp_path / "old.onnx", tmp_path / "new.onnx"
    onnx.save(positions("B", 1024), old)
    onnx.save(positions("B", 512), new)
    out = cli("diff", old, new, "--format", "json")
    assert out.returncode == 1, out.stderr
    assert json.loads(out.stdout) == symdim.diff(str(old), str(new))
