#!/usr/bin/env python3
"""Check `symdim ranges` against onnxruntime on the shared real models.

For each model of ../shared/corpus/real-models (export/ and pypi/; large/ is
skipped for time), `symdim ranges --format json` is run, with `--range NAME=..K`
(K = the symbol's least value + 15) for every symbol the contract leaves without
an upper bound. Then onnxruntime (CPU) runs the model at the profile's min, opt and
max shapes: each must run. For each symbol whose max comes from the contract, it
runs once more with that symbol one step past its max (the next value of its
residue classes, or max + 1) and the others at their max: that run must fail
(the bound is tight). Values above MAX_RUN are not run.

A model with an input `sr` (silero VAD: the sample rate, whose value picks a
branch) runs at every rate of SAMPLE_RATES: a run counts as ran when it ran at each
rate (symdim's ranges hold whatever the rate), and a run past a max as failed when
it failed at one of them at least (the bound is tight for the rates together).

Usage: check_ranges.py SYMDIM [CORPUS]   (prints a markdown table)
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

MAX_RUN = 100000
SAMPLE_RATES = (16000, 8000)


def make_feeds(model, shapes, sr):
    feeds = {}
    rng = np.random.default_rng(0)
    types = {vi.name: vi.type.tensor_type.elem_type for vi in model.graph.input}
    for name, dims in shapes.items():
        dt = onnx.helper.tensor_dtype_to_np_dtype(types[name])
        if np.issubdtype(dt, np.integer):
            if name == "sr":
                arr = np.array(sr, dtype=dt).reshape(dims)
            else:
                arr = rng.integers(0, 2, size=dims).astype(dt)
        elif dt == np.bool_:
            arr = np.ones(dims, dtype=dt)
        else:
            arr = rng.standard_normal(dims).astype(dt)
        feeds[name] = arr
    return feeds


def run_at(path, model, shapes, sr):
    try:
        so = ort.SessionOptions()
        so.log_severity_level = 4
        sess = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
        sess.run(None, make_feeds(model, shapes, sr))
        return "ran"
    except Exception as e:  # noqa: BLE001
        msg = str(e)
        m = re.search(r"Name:'([^']*)'", msg)
        return "failed at " + m.group(1) if m else "failed: " + msg.strip().splitlines()[0][:60]


def run(path, model, shapes):
    """`ran`, or the first failure; at each sample rate when the model has `sr`."""
    if any(d > MAX_RUN for s in shapes.values() for d in s):
        return "not run (too large)"
    rates = SAMPLE_RATES if "sr" in shapes else (None,)
    results = [(sr, run_at(path, model, shapes, sr)) for sr in rates]
    failed = [(sr, r) for sr, r in results if r != "ran"]
    if not failed:
        return "ran" + (f" (sr {', '.join(str(sr) for sr in rates)})" if rates != (None,) else "")
    sr, r = failed[0]
    return r + (f" (sr {sr})" if sr is not None else "")


def ranges(symdim, path, args):
    out = subprocess.run([symdim, "ranges", str(path), "--format", "json", *args],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip())
    return json.loads(out.stdout)


def next_value(sym):
    """The least valid value above max by the symbol's residues (or max + 1)."""
    m = sym["max"] + 1
    step = sym.get("step")
    if step and step["residues"]:
        while m % step["modulus"] not in step["residues"]:
            m += 1
    return m


def corpus_models(argv):
    """The models of `argv[2]` (default ../shared/corpus/real-models): export/,
    then pypi/, each sorted."""
    corpus = Path(argv[2] if len(argv) > 2 else "../shared/corpus/real-models")
    return sorted((corpus / "export").glob("*.onnx")) + sorted((corpus / "pypi").glob("*.onnx"))


def bounded_ranges(symdim, path):
    """`(args, report)`: the ranges of `path` with `--range NAME=..LO+15` for each
    symbol the contract leaves without an upper bound."""
    first = ranges(symdim, path, [])
    args = []
    for s in first["symbols"]:
        if s["hi"] is None and s["min"] is not None:
            args += ["--range", f"{s['name']}=..{s['lo'] + 15}"]
    return args, ranges(symdim, path, args)


def main():
    symdim = sys.argv[1]
    print("| model | ranges given | symbols (min/opt/max) | min | opt | max | one past a contract max |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for path in corpus_models(sys.argv):
        args, r = bounded_ranges(symdim, path)
        model = onnx.load(str(path), load_external_data=False)
        if r["problems"]:
            print(f"| {path.name} | {' '.join(args[1::2])} | problems: {'; '.join(r['problems'])} | | | | |")
            continue
        got = {}
        for point in ("min", "opt", "max"):
            shapes = {i["name"]: i[point] for i in r["inputs"]}
            got[point] = run(path, model, shapes)
        past = []
        for s in r["symbols"]:
            if s.get("max_from") != "contract":
                continue
            v = next_value(s)
            env = {x["name"]: x["max"] for x in r["symbols"]}
            for x in r["symbols"]:
                for l in x["linked"]:
                    env[l] = x["max"]
            env[s["name"]] = v
            for l in s["linked"]:
                env[l] = v
            # Shapes at that point: evaluate each input's dims by name from the model.
            shapes = {}
            for vi in model.graph.input:
                if vi.name not in {i["name"] for i in r["inputs"]}:
                    continue
                dims = []
                for axis, d in enumerate(vi.type.tensor_type.shape.dim):
                    if d.dim_value > 0:
                        dims.append(d.dim_value)
                    else:
                        n = d.dim_param if d.dim_param and d.dim_param != "?" else f"{vi.name}.{axis}"
                        dims.append(env.get(n, 1))
                shapes[vi.name] = dims
            past.append(f"{s['name']}={v}: {run(path, model, shapes)}")
        syms = ", ".join(f"{s['name']} {s['min']}/{s['opt']}/{s['max']}"
                         + (f" ({s['max_from']})" if s.get("max_from") else "")
                         for s in r["symbols"]) or "(static)"
        print(f"| {path.name} | {' '.join(args[1::2])} | {syms} | {got['min']} | {got['opt']} | {got['max']} | {'; '.join(past)} |")


if __name__ == "__main__":
    main()
