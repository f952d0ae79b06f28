"""The README's Python example runs as written."""

import os
import re

from conftest import REPO


def test_the_readme_example_runs(monkeypatch):
    readme = (REPO / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert len(blocks) == 1
    assert len(blocks[0].strip().splitlines()) == 5
    monkeypatch.chdir(REPO)
    namespace = {}
    exec(compile(blocks[0], "README.md", "exec"), namespace)
    assert namespace["y"][2] == 64
    assert len(namespace["model"].graph.value_info) > 0
    assert os.path.exists("examples/attention.onnx")
