#!/usr/bin/env python3
"""Check `symdim ranges --format openvino` against OpenVINO on the shared real models.

For each ONNX model of ../shared/corpus/real-models (export/ and pypi/), with the
same `--range NAME=..LO+15` for symbols the contract leaves unbounded as
check_ranges.py gives, the `openvino` string is parsed as benchmark_app parses
`-shape` (`NAME[DIMS],...`), given to `Model.reshape` and the model compiled on
CPU. Then every tensor that OpenVINO keeps under its ONNX name is compared with
symdim's per-tensor bounds (`--format json`): symdim's bound of a dim is looser
when its upper bound is above OpenVINO's (a finite one) or its lower bound below.

Usage: check_ranges_openvino.py SYMDIM [CORPUS]   (prints a markdown table)
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import openvino as ov


def symdim(binary, path, args):
    out = subprocess.run([binary, "ranges", str(path), *args], capture_output=True, text=True)
    return out.returncode, out.stdout, out.stderr


def main():
    binary = sys.argv[1]
    corpus = Path(sys.argv[2] if len(sys.argv) > 2 else "../shared/corpus/real-models")
    models = sorted((corpus / "export").glob("*.onnx")) + sorted((corpus / "pypi").glob("*.onnx"))
    core = ov.Core()
    print("| model | openvino string | reshape + compile | tensors compared | symdim tighter | equal | symdim looser |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for path in models:
        _, first, _ = symdim(binary, path, ["--format", "json"])
        args = []
        for s in json.loads(first)["symbols"]:
            if s["hi"] is None and s["min"] is not None:
                args += ["--range", f"{s['name']}=..{s['lo'] + 15}"]
        code, text, err = symdim(binary, path, [*args, "--format", "openvino"])
        if code != 0:
            print(f"| {path.name} | (refused: {err.strip().splitlines()[0]}) | | | | | |")
            continue
        text = text.strip()
        shapes = dict(re.findall(r"(.*?)\[(.*?)\],?", text))
        try:
            m = core.read_model(str(path))
        except Exception:  # noqa: BLE001
            print(f"| {path.name} | `{text}` | OpenVINO does not read the model | | | | |")
            continue
        try:
            m.reshape({n: ov.PartialShape(f"[{d}]") for n, d in shapes.items()})
            core.compile_model(m, "CPU")
            ok = "ok"
        except Exception as e:  # noqa: BLE001
            print(f"| {path.name} | `{text}` | failed: {str(e).strip().splitlines()[0][:80]} | | | | |")
            continue
        _, js, _ = symdim(binary, path, [*args, "--format", "json"])
        ours = {t["name"]: t["dims"] for t in json.loads(js)["tensors"]}
        compared = tighter = equal = looser = 0
        worst = []
        for op in m.get_ordered_ops():
            for o in op.outputs():
                ps = o.get_partial_shape()
                if ps.rank.is_dynamic:
                    continue
                for name in o.get_names():
                    dims = ours.get(name)
                    if dims is None or len(dims) != len(ps):
                        continue
                    for d, od in zip(dims, ps):
                        lo, hi = od.get_min_length(), od.get_max_length()
                        compared += 1
                        if hi >= 0 and (d["hi"] is None or d["hi"] > hi) or (d["lo"] is not None and d["lo"] < lo):
                            looser += 1
                            if len(worst) < 2:
                                worst.append(f"{name}: {d['lo']}..{d['hi']} vs {lo}..{hi}")
                        elif d["hi"] == hi and d["lo"] == lo:
                            equal += 1
                        else:
                            tighter += 1
        shown = text if len(text) < 60 else text[:57] + "..."
        print(f"| {path.name} | `{shown}` | {ok} | {compared} | {tighter} | {equal} | {looser} {'; '.join(worst)} |")


if __name__ == "__main__":
    main()
