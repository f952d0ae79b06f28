#!/usr/bin/env python3
"""Check the per-tensor bounds of `symdim ranges` against onnxruntime's tensors.

For each model of ../shared/corpus/real-models (export/ and pypi/), `symdim ranges
--format json` runs with the ranges `check_ranges.py` gives (`--range NAME=..K`,
K = the symbol's least value + 15, for a symbol without an upper bound). Then
onnxruntime (CPU, no graph optimisation) runs the model at the profile's min, opt
and max shapes with every node output of the main graph made an output (silero's
`sr` models at each sample rate). For every tensor both name:

- each runtime dim lies within symdim's bounds for it (`lo <= d <= hi`);
- its runtime size in bytes is at most symdim's `max_bytes`;
- at the max point, a tensor symdim marks `at_max` has exactly `max_bytes`;

and the bytes of all the tensors of a run are at most `activations_max_bytes`.
String tensors are not sized. Points with a dim above MAX_RUN are not run.

Usage: check_ranges_bytes.py SYMDIM [CORPUS]   (prints a markdown table)
"""

import sys
from pathlib import Path

import onnx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_ranges import MAX_RUN, SAMPLE_RATES, bounded_ranges, corpus_models, make_feeds  # noqa: E402
from runtime_shapes import run_every_output  # noqa: E402


def check_point(path, r, point, sr, tally):
    shapes = {i["name"]: i[point] for i in r["inputs"]}
    if any(d > MAX_RUN for s in shapes.values() for d in s):
        return "not run (too large)"
    model = onnx.load(str(path))
    try:
        _, values = run_every_output(model, make_feeds(model, shapes, sr))
    except Exception as e:  # noqa: BLE001
        return f"failed: {str(e).splitlines()[0][:80]}"
    total = 0
    for t in r["tensors"]:
        v = values.get(t["name"])
        if v is None or v.dtype.kind in "OUS":
            continue
        tally["tensors"] += 1
        total += v.nbytes
        dims = list(v.shape)
        if len(dims) != len(t["dims"]):
            tally["wrong"].append(f"{t['name']}: rank {len(dims)} vs {len(t['dims'])}")
            continue
        for d, b in zip(dims, t["dims"]):
            if (b["lo"] is not None and d < b["lo"]) or (b["hi"] is not None and d > b["hi"]):
                tally["wrong"].append(f"{t['name']} at {point}: dim {d} outside {b}")
        mb = t.get("max_bytes")
        if mb is not None and v.nbytes > mb:
            tally["wrong"].append(f"{t['name']} at {point}: {v.nbytes} B > {mb} B")
        if point == "max" and t.get("at_max") and mb is not None:
            tally["at_max"] += 1
            if v.nbytes != mb:
                tally["wrong"].append(f"{t['name']} at max: {v.nbytes} B, at_max {mb} B")
    am = r.get("activations_max_bytes")
    tally["largest_total"] = max(tally["largest_total"], total)
    if am is not None and total > am:
        tally["wrong"].append(f"activations at {point}: {total} B > {am} B")
    return "ran"


def main():
    symdim = sys.argv[1]
    print("| model | points run | tensors compared | `at_max` tensors (equal at max) | largest run total / `activations` bound (B) | outside the bounds |")
    print("| --- | --- | ---: | ---: | --- | --- |")
    for path in corpus_models(sys.argv):
        _, r = bounded_ranges(symdim, path)
        if r["problems"]:
            print(f"| {path.name} | problems: {'; '.join(r['problems'])} | | | | |")
            continue
        tally = {"tensors": 0, "at_max": 0, "wrong": [], "largest_total": 0}
        rates = SAMPLE_RATES if any(i["name"] == "sr" for i in r["inputs"]) else (None,)
        ran = []
        for point in ("min", "opt", "max"):
            for sr in rates:
                res = check_point(path, r, point, sr, tally)
                ran.append(point + (f"@{sr}" if sr else "") + ("" if res == "ran" else f" ({res})"))
        wrong = "; ".join(tally["wrong"][:3]) + (f" (+{len(tally['wrong']) - 3})" if len(tally["wrong"]) > 3 else "")
        print(f"| {path.name} | {', '.join(ran)} | {tally['tensors']} | {tally['at_max']} | "
              f"{tally['largest_total']} / {r.get('activations_max_bytes')} | {wrong or 'none'} |")


if __name__ == "__main__":
    main()
