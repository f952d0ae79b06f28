"""`symdim.ranges` gives what `symdim ranges` prints in each format, byte for byte,
and its reasons where the command exits 2; on a small model the profile is derived
by hand."""

import doctest
import re

import onnx
import pytest
from conftest import EXAMPLE, REPO
from models import even_reshape

import symdim

FORMATS = {
    "text": symdim.Ranges.text,
    "json": symdim.Ranges.json,
    "trtexec": symdim.Ranges.trtexec,
    "ort-trt": symdim.Ranges.ort_trt,
    "openvino": symdim.Ranges.openvino,
}


def _cli_args(ranges, opt):
    args = []
    for name, (lo, hi) in ranges.items():
        lo = "" if lo is None else lo
        hi = "" if hi is None else hi
        args += ["--range", f"{name}={lo}..{hi}"]
    for name, v in opt.items():
        args += ["--opt", f"{name}={v}"]
    return args


def _compare(cli, model, ranges, opt):
    r = symdim.ranges(model, ranges=ranges, opt=opt)
    for fmt, method in FORMATS.items():
        out = cli("ranges", model, *_cli_args(ranges, opt), "--format", fmt)
        if out.returncode == 0:
            assert method(r).encode() == out.stdout, fmt
        else:
            assert out.returncode == 2 and not out.stdout, fmt
            with pytest.raises(ValueError) as e:
                method(r)
            reasons = out.stderr.decode().splitlines()
            assert [f"symdim: {line}" for line in str(e.value).split("\n")] == reasons, fmt
    assert r.to_text() == r.text() and r.to_json() == r.json()
    return r


@pytest.mark.parametrize(
    "ranges, opt",
    [
        ({"batch": (1, 8), "sequence": (1, 128)}, {"sequence": 64}),
        ({"batch": (2, 2), "sequence": (None, 77)}, {}),
        ({"batch": (1, 8)}, {}),  # sequence has no max: the strings are refused
        ({}, {}),
    ],
)
def test_every_format_is_the_clis(cli, ranges, opt):
    _compare(cli, str(EXAMPLE), ranges, opt)


def test_the_docs_example(cli):
    r = _compare(cli, str(EXAMPLE), {"batch": (1, 8), "sequence": (1, 128)}, {"sequence": 64})
    # docs/ranges.md
    assert r.trtexec() == "--minShapes=x:1x1x64 --optShapes=x:5x64x64 --maxShapes=x:8x128x64\n"
    assert r.openvino() == "x[1..8,1..128,64]\n"
    assert r.inputs == {"x": ([1, 1, 64], [5, 64, 64], [8, 128, 64])}


def test_a_symbol_without_a_max_is_refused_with_the_reason():
    r = symdim.ranges(EXAMPLE, ranges={"batch": (1, 8)})
    assert r.symbols["sequence"].max is None
    for method in (r.trtexec, r.ort_trt, r.openvino):
        with pytest.raises(ValueError) as e:
            method()
        assert str(e.value) == (
            "sequence: no upper bound from the contract; give one with --range sequence=LO..HI"
        )
    assert r.problems == [str(e.value)]


def test_an_even_reshape_by_hand(cli, tmp_path):
    # x: [S, 4] -> Reshape [-1, 8] needs 8 | 4*S: S even. Over S in 1..100 the least
    # valid value is 2, the greatest 100, and opt the least valid value at or above
    # ceil((2 + 100) / 2) = 51: 52.
    path = tmp_path / "even.onnx"
    onnx.save(even_reshape(), path)
    r = _compare(cli, str(path), {"S": (1, 100)}, {})
    s = r.symbols["S"]
    assert (s.name, s.lo, s.hi, s.min, s.opt, s.max) == ("S", 1, 100, 2, 52, 100)
    assert s.max_from == "range" and s.linked == []
    assert r.facts == ["S in 1..100"]
    assert r.problems == []
    assert r.inputs == {"x": ([2, 4], [52, 4], [100, 4])}
    assert r.trtexec() == "--minShapes=x:2x4 --optShapes=x:52x4 --maxShapes=x:100x4\n"
    assert r.ort_trt() == (
        "trt_profile_min_shapes=x:2x4\n"
        "trt_profile_opt_shapes=x:52x4\n"
        "trt_profile_max_shapes=x:100x4\n"
    )
    assert r.openvino() == "x[2..100,4]\n"
    # An odd max is not valid: the greatest valid value under 99 is 98; an opt given
    # is taken.
    r = symdim.ranges(path, ranges={"S": (3, 99)}, opt={"S": 10})
    s = r.symbols["S"]
    assert (s.min, s.opt, s.max) == (4, 10, 98)
    # The same from a ModelProto (its path is <memory>).
    assert symdim.ranges(even_reshape(), ranges={"S": (1, 100)}).trtexec() == (
        "--minShapes=x:2x4 --optShapes=x:52x4 --maxShapes=x:100x4\n"
    )


def test_bind_and_assume_are_facts_of_the_ranges(cli, tmp_path):
    path = tmp_path / "even.onnx"
    onnx.save(even_reshape(), path)
    r = symdim.ranges(path, assume="S <= 64")
    assert r.symbols["S"].max == 64 and r.symbols["S"].max_from == "fact"
    out = cli("ranges", path, "--assume", "S <= 64", "--format", "json")
    assert r.json().encode() == out.stdout
    r = symdim.ranges(path, bind={"S": 6})
    assert r.openvino() == "x[6,4]\n"


def test_bad_requests_raise_the_clis_message(cli):
    for args, kwargs in (
        (["--range", "T=1..4"], {"ranges": {"T": (1, 4)}}),
        (["--opt", "T=4"], {"opt": {"T": 4}}),
    ):
        out = cli("ranges", EXAMPLE, *args)
        assert out.returncode == 2 and not out.stdout
        with pytest.raises(ValueError) as e:
            symdim.ranges(EXAMPLE, **kwargs)
        assert f"symdim: {e.value}\n" == out.stderr.decode()


def test_bad_request_types():
    for bad in ({"batch": 4}, {"batch": (1, "8")}, {"batch": (1, 2, 3)}, [("batch", (1, 8))]):
        with pytest.raises(TypeError, match="ranges must map"):
            symdim.ranges(EXAMPLE, ranges=bad)
    with pytest.raises(TypeError, match="opt must map"):
        symdim.ranges(EXAMPLE, opt={"batch": 1.5})
    with pytest.raises(ValueError, match=r"ranges\[\"batch\"\] hi = 9223372036854775808: out of range"):
        symdim.ranges(EXAMPLE, ranges={"batch": (1, 2**63)})


def test_the_docs_python_example_runs(monkeypatch):
    text = (REPO / "docs" / "ranges.md").read_text()
    (block,) = re.findall(r"```python\n(.*?)```", text, re.S)
    monkeypatch.chdir(REPO)
    test = doctest.DocTestParser().get_doctest(block, {"symdim": symdim}, "ranges.md", None, 0)
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.failures == 0 and runner.tries == 4
