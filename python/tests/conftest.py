"""Shared paths and helpers of the Python package's tests.

The tests compare the package with the `symdim` executable: `SYMDIM_CLI` names it
(tests/it/python.rs sets it to the build under test); without it, target/debug/symdim or
target/release/symdim is used when present, and the comparisons skip otherwise.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CORPUS = REPO.parent / "shared" / "corpus"
EXAMPLE = REPO / "examples" / "attention.onnx"

sys.path.insert(0, str(HERE))  # the helper modules beside the tests


def cli_path():
    """The symdim executable to compare with, or None."""
    env = os.environ.get("SYMDIM_CLI")
    if env:
        return env
    for build in ("debug", "release"):
        p = REPO / "target" / build / "symdim"
        if p.exists():
            return str(p)
    return None


@pytest.fixture
def cli():
    """Run the symdim executable: cli(*args) -> CompletedProcess with bytes output."""
    path = cli_path()
    if path is None:
        pytest.skip("no symdim executable: set SYMDIM_CLI or run cargo build")

    def run(*args):
        return subprocess.run([path, *map(str, args)], capture_output=True, timeout=600)

    return run


def fixture_models():
    """Every model under tests/ (ONNX, OpenVINO IR, oneDNN Graph JSON), sorted."""
    tests = REPO / "tests"
    found = set(tests.rglob("*.onnx"))
    found |= set((tests / "fixtures" / "openvino").rglob("*.xml"))
    found |= set((tests / "fixtures" / "onednn").rglob("*.json"))
    return sorted(found)


def corpus_models():
    """Every model of ../shared/corpus, sorted; empty when the corpus is absent, an
    error under CI (`CI` set)."""
    if not CORPUS.is_dir():
        if os.environ.get("CI"):
            raise FileNotFoundError(f"{CORPUS} not found, and CI is set")
        return []
    found = set(CORPUS.rglob("*.onnx"))
    found |= set(CORPUS.rglob("*.xml"))
    found |= {
        p for p in (CORPUS / "onednn-graph").rglob("*.json") if p.name != "manifest.json"
    }
    return sorted(found)
