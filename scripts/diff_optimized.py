#!/usr/bin/env python3
"""`symdim diff` of every corpus model against its onnxruntime-optimized version.

For each model of `../shared/corpus/real-models` (`export/` and `pypi/`; `large/`
with `--large`), onnxruntime (CPU, `ORT_ENABLE_EXTENDED`) writes its optimized
graph (`SessionOptions.optimized_model_filepath`) into `--out`; then
`symdim diff MODEL OPTIMIZED --format json --fail-on none --cost` compares the two. An
optimizer must not change the interface or the contract, so every verdict should
be `same` or `compatible`; a `breaking` one is printed with its causes. The table
is Markdown, for docs/diff.md.

    /work/venv-diff/bin/python scripts/diff_optimized.py target/release/symdim ../shared/corpus/real-models
"""

import argparse
import json
import os
import subprocess
import sys

import onnxruntime as ort


def optimize(src, dst):
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    so.optimized_model_filepath = dst
    so.log_severity_level = 3
    ort.InferenceSession(src, so, providers=["CPUExecutionProvider"])


def causes(d):
    out = []
    for side in ("inputs", "outputs"):
        for c in d[side]:
            if c["breaking"]:
                out.append(f"{side[:-1]} {c['name']} {c['change']}: {c['why']}")
    for r in d["ranges"]:
        if r["breaking"]:
            out.append(f"range {r['symbol']} {r['old']} -> {r['new']} ({r.get('witness', '')})")
    for c in d["conditions"]["added"]:
        if c["effect"] == "narrows":
            out.append(f"condition {c['condition']} ({c.get('witness', '')})")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("symdim")
    ap.add_argument("corpus")
    ap.add_argument("--out", default="/tmp/symdim-diff-optimized")
    ap.add_argument("--large", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    dirs = ["export", "pypi"] + (["large"] if a.large else [])
    print("| model | nodes | verdict | ops changed | tensors changed | inputs/outputs | conditions | ranges | breaking causes |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    counts = {}
    for d in dirs:
        folder = os.path.join(a.corpus, d)
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".onnx"):
                continue
            src = os.path.join(folder, name)
            dst = os.path.join(a.out, name.replace(".onnx", "_ortopt.onnx"))
            try:
                optimize(src, dst)
            except Exception as e:  # a model onnxruntime cannot load
                print(f"| {d}/{name} | | not optimized: {str(e).splitlines()[0][:80]} | | | | | | |")
                continue
            r = subprocess.run(
                [a.symdim, "diff", src, dst, "--format", "json", "--fail-on", "none", "--cost"],
                capture_output=True,
                text=True,
            )
            if r.returncode != 0:
                print(f"| {d}/{name} | | symdim exit {r.returncode}: {r.stderr.strip()[:80]} | | | | | | |")
                continue
            j = json.loads(r.stdout)
            counts[j["verdict"]] = counts.get(j["verdict"], 0) + 1
            ops = sum(j["ops"]["added"].values()) + sum(j["ops"]["removed"].values())
            c = j["conditions"]
            print(
                f"| {d}/{name} | {j['ops']['old_nodes']} -> {j['ops']['new_nodes']} | {j['verdict']} | {ops} "
                f"| {'re-export' if j['reexport'] else j['tensors_changed']} "
                f"| {len(j['inputs']) + len(j['outputs'])} | +{len(c['added'])} -{len(c['removed'])} "
                f"| {len(j['ranges'])} | {'; '.join(causes(j))} |"
            )
    print()
    print(", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
    print("onnxruntime", ort.__version__)
    return 0


if __name__ == "__main__":
    sys.exit(main())
