#!/usr/bin/env python3
"""Check `symdim constraints` against onnxruntime on the shared real models.

For each model of ../shared/corpus/real-models/{export,pypi} (large/ is skipped: slow):

1. `symdim constraints --format json` gives the input symbols and the conditions.
2. Values are searched (one grid of candidate values, one symbol varied at a time
   from a base assignment) for:
   - a *satisfying* assignment: every condition holds, including undecidable ones
     that only involve input symbols (evaluated here in Python);
   - for each decidable condition, a *breaking* assignment: that condition fails,
     every other condition holds.
3. Random inputs of those shapes run in onnxruntime. A satisfying assignment must
   run; a breaking one must fail, in the node the condition names.

Breaking values above 100000 are not run (the tensors would not fit in memory).
Prints a markdown table (the one in docs/constraints.md).

usage: scripts/check_contracts.py [SYMDIM_BINARY] [CORPUS_DIR]
"""

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

HERE = Path(__file__).resolve().parent.parent
SYMDIM = sys.argv[1] if len(sys.argv) > 1 else str(HERE / "target/release/symdim")
CORPUS = Path(sys.argv[2]) if len(sys.argv) > 2 else HERE / "../shared/corpus/real-models"
CANDIDATES = [16, 64, 1, 2, 3, 4, 7, 8, 32, 48, 96, 100, 128, 192, 256, 300, 320, 400,
              511, 512, 513, 600, 640, 700, 703, 704, 1024]
MAX_RUN = 100_000


KEEP = {"and", "or", "floordiv", "ceildiv", "mod", "min", "max", "broadcast"}


def py_expr(text):
    """The expression grammar as Python (names are looked up in `env`)."""
    out = []
    for m in re.finditer(r"`((?:[^`\\]|\\.)*)`|[A-Za-z_][A-Za-z0-9_]*|.", text):
        tok = m.group(0)
        if m.group(1) is not None:
            out.append("env[%r]" % m.group(1))
        elif re.match(r"[A-Za-z_]", tok) and tok not in KEEP:
            out.append("env[%r]" % tok)
        elif tok == "/":
            out.append("/")
        else:
            out.append(tok)
    return "".join(out)


def holds(cond, env):
    def floordiv(a, b):
        return a // b

    def ceildiv(a, b):
        return -((-a) // b)

    def mod(a, b):
        return a % b

    def broadcast(a, b):
        return a if a == b or b == 1 else b if a == 1 else None

    try:
        return bool(eval(py_expr(cond), {"floordiv": floordiv, "ceildiv": ceildiv,
                                         "mod": mod, "min": min, "max": max,
                                         "broadcast": broadcast, "env": env}))
    except Exception:
        return None  # not a dim fact (data-dependent symbol, opaque text)


def evaluable(c, inputs):
    return all(s in inputs for s in c["symbols"]) and c["symbols"]


def boundaries(conds):
    """Values next to every constant bound (`x >= k`, `x <= k`): k - 1, k, k + 1."""
    out = []
    for c in conds:
        m = re.fullmatch(r"\S+ (>=|<=) (\d+)", c["condition"])
        if m:
            k = int(m.group(2))
            out += [v for v in (k - 1, k, k + 1) if v >= 1 and v not in out]
    return out


def search(inputs, conds, want_break=None, redundant=()):
    """An assignment where every condition holds, except `want_break`, which fails.
    A breaking assignment first tries to keep the redundant conditions too (so the
    model fails where the broken condition says, not at an implied one)."""
    if want_break is not None and redundant:
        env = search(inputs, list(conds) + list(redundant), want_break)
        if env is not None:
            return env
    candidates = boundaries(conds) + [v for v in CANDIDATES if v not in boundaries(conds)]
    base = {s: 16 for s in inputs}
    tries = [dict(base)]
    for v in candidates:
        tries.append({s: v for s in inputs})
    for s in inputs:
        for v in candidates:
            t = dict(base)
            t[s] = v
            tries.append(t)
    for s in inputs:  # vary one symbol from the all-same assignments too
        for b in candidates:
            for v in candidates:
                t = {x: b for x in inputs}
                t[s] = v
                tries.append(t)
    for env in tries:
        ok = True
        for c in conds:
            h = holds(c["condition"], env)
            if h is None:
                continue
            if c is want_break:
                ok = ok and not h
            elif want_break is not None and c["kind"] == "undecidable":
                continue  # a breaking value needs only the decidable others
            else:
                ok = ok and h
        if ok:
            return env
    return None


def enclosing(model):
    """Each node inside an If/Loop/Scan body, mapped to the main-graph node that
    holds it (onnxruntime names that node when something inside it fails)."""
    out = {}

    def walk(graph, top):
        for n in graph.node:
            out[n.name] = top or n.name
            for a in n.attribute:
                for g in ([a.g] if a.type == onnx.AttributeProto.GRAPH else list(a.graphs)):
                    walk(g, top or n.name)

    walk(model.graph, None)
    return out


def make_inputs(model, env, inputs):
    feeds = {}
    inits = {i.name for i in model.graph.initializer}
    rng = np.random.default_rng(0)
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        tt = vi.type.tensor_type
        dims = []
        for axis, d in enumerate(tt.shape.dim):
            if d.dim_value > 0:
                dims.append(d.dim_value)
            else:
                name = d.dim_param if d.dim_param and d.dim_param != "?" else f"{vi.name}.{axis}"
                dims.append(int(env.get(name, 1)))
        dt = onnx.helper.tensor_dtype_to_np_dtype(tt.elem_type)
        if np.issubdtype(dt, np.integer):
            if vi.name == "sr":
                arr = np.array(16000, dtype=dt).reshape(dims)
            else:
                arr = rng.integers(0, 2, size=dims).astype(dt)
        elif dt == np.bool_:
            arr = np.ones(dims, dtype=dt)
        else:
            arr = rng.standard_normal(dims).astype(dt)
        feeds[vi.name] = arr
    return feeds


def run(path, model, env, inputs):
    if any(v > MAX_RUN for v in env.values()):
        return "not run (too large)", ""
    try:
        sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        sess.run(None, make_inputs(model, env, inputs))
        return "ran", ""
    except Exception as e:  # noqa: BLE001
        msg = str(e)
        m = re.search(r"Name:'([^']*)'", msg)
        return "failed", (m.group(1) if m else msg.splitlines()[0][:80])


def main():
    rows = []
    models = sorted((CORPUS / "export").glob("*.onnx")) + sorted((CORPUS / "pypi").glob("*.onnx"))
    for path in models:
        out = subprocess.run([SYMDIM, "constraints", str(path), "--format", "json"],
                             capture_output=True, text=True)
        if out.returncode != 0:
            rows.append((path.name, "-", "symdim failed", out.stderr.strip()[:60], "", "no"))
            continue
        c = json.loads(out.stdout)
        inputs = c["inputs"]
        conds = c["conditions"]
        model = onnx.load(str(path))
        # Satisfying values: every condition that can be evaluated holds.
        env = search(inputs, conds)
        if env is None:
            rows.append((path.name, "-", "satisfy", "no assignment found", "", "?"))
        else:
            r, node = run(path, model, env, inputs)
            rows.append((path.name, fmt(env), "satisfy", r, node, "yes" if r == "ran" else "NO"))
        for cond in conds:
            if cond["kind"] in ("undecidable", "impossible") or not evaluable(cond, inputs):
                continue
            env = search(inputs, conds, want_break=cond, redundant=c.get("redundant", []))
            label = f"break `{cond['condition']}`"
            if env is None:
                rows.append((path.name, "-", label, "no assignment found", "", "?"))
                continue
            r, node = run(path, model, env, inputs)
            named = cond["nodes"]
            tops = enclosing(model)
            if r == "failed":
                hit = node in named or node in {tops.get(n) for n in named}
                ok = "yes" if hit else f"fails elsewhere (named {', '.join(named[:2])})"
            elif r == "ran":
                ok = "NO (ran)"
            else:
                ok = "-"
            rows.append((path.name, fmt(env), label, r, node, ok))
    print("| model | values | test | onnxruntime | failing node | as predicted |")
    print("| --- | --- | --- | --- | --- | --- |")
    for row in rows:
        print("| " + " | ".join(str(x).replace("|", "\\|") for x in row) + " |")


def fmt(env):
    return ", ".join(f"{k}={v}" for k, v in env.items()) or "(static)"


if __name__ == "__main__":
    main()
