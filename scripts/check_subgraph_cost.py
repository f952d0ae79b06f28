#!/usr/bin/env python3
"""Check `symdim cost`'s subgraph figures against onnxruntime running the models.

For tests/fixtures/cost/{loop_body,if_branches,scan_body}.onnx (made by
scripts/make_cost_models.py), at three bindings of `batch` and `sequence`, run
onnxruntime (CPU) and derive from the runtime shapes alone what one run of each
subgraph computes and how often it runs:

- loop_body: the scan output `hs` is [trips, batch, 8]: its first dim is the
  number of iterations and `hs[0]` the shape of the body's MatMul output; MACs of
  one run `rows(h) * 8 * 8` (MatMul [b, 8] x [8, 8]), FLOPs twice that.
- if_branches: run with `c` true and false; `y` [batch, 16] is the branch's
  MatMul output: MACs `batch * 8 * 16`, FLOPs twice that, plus one per element of
  the Relu in the else branch.
- scan_body: the scan output `ys` is [iterations, 4]; one run is a MatMul
  [4] x [4, 4] (16 MACs) and an Add of 4 elements.

Then `symdim cost MODEL --bind batch=B --bind sequence=S --format json` must give
the same `macs_value`, `flops_value`, `iterations_value`, `total_macs_value` and
`total_flops_value` per subgraph. Needs onnxruntime and numpy:

    /work/venv-diff/bin/python scripts/check_subgraph_cost.py [--symdim target/release/symdim]
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort

ROOT = Path(__file__).resolve().parent.parent
BINDINGS = [(1, 1), (2, 5), (3, 17)]


def run(path, feeds):
    so = ort.SessionOptions()
    so.log_severity_level = 3
    s = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    names = [o.name for o in s.get_outputs()]
    return dict(zip(names, (np.asarray(v).shape for v in s.run(None, feeds))))


def cost(symdim, path, **binds):
    args = [symdim, "cost", str(path), "--format", "json"]
    for k, v in binds.items():
        args += ["--bind", f"{k}={v}"]
    out = subprocess.run(args, capture_output=True, text=True, check=True)
    return {(g["node"], g["attribute"]): g for g in json.loads(out.stdout)["subgraphs"]}


def expect(got, key, want, what, failures):
    if got.get(key) != want:
        failures.append(f"{what}: {key} {got.get(key)!r}, onnxruntime's shapes give {want}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--symdim", default=str(ROOT / "target" / "release" / "symdim"))
    a = ap.parse_args()
    d = ROOT / "tests" / "fixtures" / "cost"
    failures, checked = [], 0
    for b, s in BINDINGS:
        x = np.zeros((b, 8), np.float32)
        # Loop
        shapes = run(d / "loop_body.onnx", {"x": x, "t": np.zeros((s,), np.float32)})
        trips, rows = shapes["hs"][0], shapes["hs"][1]
        macs = rows * 8 * 8
        g = cost(a.symdim, d / "loop_body.onnx", batch=b, sequence=s)[("loop", "body")]
        what = f"loop_body at batch={b} sequence={s}"
        for key, want in [("macs_value", macs), ("flops_value", 2 * macs), ("iterations_value", trips),
                          ("total_macs_value", trips * macs), ("total_flops_value", trips * 2 * macs)]:
            expect(g, key, want, what, failures)
            checked += 1
        # If
        subs = cost(a.symdim, d / "if_branches.onnx", batch=b)
        for c, attr in [(True, "then_branch"), (False, "else_branch")]:
            y = run(d / "if_branches.onnx", {"x": x, "c": np.array(c)})["y"]
            macs = y[0] * 8 * y[1]
            flops = 2 * macs + (0 if c else y[0] * y[1])
            what = f"if_branches {attr} at batch={b}"
            expect(subs[("branch", attr)], "macs_value", macs, what, failures)
            expect(subs[("branch", attr)], "flops_value", flops, what, failures)
            expect(subs[("branch", attr)], "iterations", None, what, failures)
            checked += 3
        # Scan
        shapes = run(d / "scan_body.onnx", {"s0": np.zeros((4,), np.float32), "xs": np.zeros((s, 4), np.float32)})
        n = shapes["ys"][0]
        g = cost(a.symdim, d / "scan_body.onnx", sequence=s)[("scan", "body")]
        what = f"scan_body at sequence={s}"
        for key, want in [("macs_value", 16), ("flops_value", 36), ("iterations_value", n),
                          ("total_macs_value", 16 * n), ("total_flops_value", 36 * n)]:
            expect(g, key, want, what, failures)
            checked += 1
    for f in failures:
        print(f)
    print(f"{checked} figures checked at {len(BINDINGS)} bindings, {len(failures)} differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
