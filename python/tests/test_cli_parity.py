"""Every model of the fixtures (tests/) and of the shared corpus (../shared/corpus)
gives, through Python, the bytes the executable prints and writes:
`symdim infer MODEL --format json` is `symdim.infer(MODEL).to_json()`, its error
message is `ModelError`'s, `-o` writes `infer_shapes`'s bytes, and each tensor's
`shape` and `dtype` are what the JSON says."""

import json

import onnx
import pytest
from conftest import CORPUS, REPO, corpus_models, fixture_models

import symdim


def _id(path):
    for root in (REPO, CORPUS):
        try:
            return str(path.relative_to(root))
        except ValueError:
            pass
    return str(path)


def _compare(cli, path, tmp_path):
    onnx_model = path.suffix == ".onnx"
    annotated = tmp_path / "annotated.onnx"
    args = ["infer", path, "--format", "json"] + (["-o", annotated] if onnx_model else [])
    out = cli(*args)
    if out.returncode == 2 and not out.stdout:
        # No report possible: the same message as a ModelError.
        with pytest.raises(symdim.ModelError) as e:
            symdim.infer(path)
        assert out.stderr.decode() == f"symdim: {e.value}\n"
        return
    assert out.returncode in (0, 1), out.stderr
    report = symdim.infer(path)
    assert report.to_json().encode() == out.stdout
    assert report.has_errors == (out.returncode == 1)
    expected = json.loads(out.stdout)
    tensors = report.tensors
    assert list(tensors) == list(expected["tensors"])
    for name, t in expected["tensors"].items():
        mine = tensors[name]
        assert mine.dtype == t["dtype"], name
        shape = None if mine.shape is None else [d if isinstance(d, int) else str(d) for d in mine.shape]
        assert shape == t["shape"], name
    assert report.outputs == expected["outputs"]
    assert list(report.symbols) == list(expected["symbols"])
    if onnx_model:
        written = annotated.read_bytes()
        assert symdim._native.annotate(path)[0] == written
        # From a ModelProto (the skeleton route of infer_shapes), the same model.
        try:
            proto = onnx.load(path, load_external_data=False)
        except Exception:  # noqa: BLE001 - protobuf's own reader refuses some fixtures
            return
        assert symdim.infer_shapes(proto) == onnx.load_from_string(written)


@pytest.mark.parametrize("path", fixture_models(), ids=_id)
def test_fixture(cli, path, tmp_path):
    _compare(cli, path, tmp_path)


def test_fixtures_found():
    models = fixture_models()
    assert len(models) > 100
    assert {p.suffix for p in models} == {".onnx", ".xml", ".json"}


_CORPUS = corpus_models()


@pytest.mark.skipif(not _CORPUS, reason=f"{CORPUS} not found: the corpus models are not compared")
@pytest.mark.parametrize("path", _CORPUS, ids=_id)
def test_corpus(cli, path, tmp_path):
    _compare(cli, path, tmp_path)
