#!/usr/bin/env python3
"""Check `symdim cost` against onnxruntime at three bindings per corpus model.

For every model of `../shared/corpus/real-models/{pypi,export,large}` without
control flow (If, Loop, Scan in the main graph), at each of three bindings of its
input symbols, this script

1. runs `symdim cost MODEL --bind ... --format json` (the formulas evaluated at the
   binding: the `*_value` fields);
2. runs onnxruntime (CPU, graph optimizations off) at the same input dims with every
   node output of the main graph exposed as a graph output, and records each
   tensor's runtime shape and element size;
3. checks, from the runtime shapes alone (an implementation of its own, not
   symdim's):
   - each tensor's elements and bytes (runtime `prod(shape)` and
     `prod(shape) * itemsize`);
   - each contraction's MACs (MatMul with numpy broadcasting, Gemm, Conv,
     ConvTranspose, from the runtime shapes of the node's inputs and outputs);
   - the total activation bytes (graph inputs and node outputs);
   - the peak of live activation bytes under the liveness of `docs/cost.md`, in the
     step order symdim's `nodes` list gives (the order is symdim's; the liveness
     and the sizes are computed here).

Run (from the crate root; needs onnx, onnxruntime and numpy, and a built symdim):

    /work/venv-zoo/bin/python scripts/check_cost.py [--symdim PATH] [MODEL_STEM ...]

It prints one line per model and binding and the totals; the exit status is 1 when
a check failed.
"""

import argparse
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runtime_shapes import CORPUS, bound_feeds, run_every_output, symdim_inputs  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

# Three bindings of symdim's input symbols per model file stem (the first is
# runtime_shapes.py's; the others move every symbol, within what the model allows).
TEXT = [{"batch": 3, "sequence": 7}, {"batch": 2, "sequence": 5}, {"batch": 4, "sequence": 11}]
BINDINGS = {
    "basic-pitch__nmp": [{"unk__749": v} for v in (3, 1, 5)],
    "magika__standard_v3_3": [{"unk__214": v} for v in (3, 1, 6)],
    "rapidocr__ch_PP-OCRv4_det_infer": [
        {"p2o.DynamicDimension.0": 2, "p2o.DynamicDimension.1": 96, "p2o.DynamicDimension.2": 160},
        {"p2o.DynamicDimension.0": 1, "p2o.DynamicDimension.1": 64, "p2o.DynamicDimension.2": 96},
        {"p2o.DynamicDimension.0": 3, "p2o.DynamicDimension.1": 128, "p2o.DynamicDimension.2": 64},
    ],
    "rapidocr__ch_ppocr_mobile_v2.0_cls_infer": [
        {"x.0": 2, "x.2": 48, "x.3": 160},
        {"x.0": 1, "x.2": 48, "x.3": 96},
        {"x.0": 3, "x.2": 48, "x.3": 200},
    ],
    "silero-vad__silero_vad_16k_sequence": [{"sequence_length": v} for v in (5, 3, 9)],
    "faster-whisper__silero_vad_v6": [{"seq_len": v} for v in (5, 3, 9)],
    "bert_l2_dyn18": TEXT,
    "bert_l2_fixed_ts17": [{}],
    "silero-vad__silero_vad_openvino_16k": [{}],
    "bert_l2_ts17": TEXT,
    "gpt2_l2_dyn18": TEXT,
    "gpt2_l2_ts17": TEXT,
    "llama_l2_dyn18": TEXT,
    "llama_l2_ts17": TEXT,
    "vit_l2_dyn18": [{"batch": v} for v in (5, 1, 3)],
    "vit_l2_ts17": [{"batch": v} for v in (5, 1, 3)],
    "large_llama_l32_h32_ts17": TEXT,
    "large_llama_l64_h32_dyn18": TEXT,
}

CONTROL = {"If", "Loop", "Scan"}


def prod(xs):
    return math.prod(int(x) for x in xs)


def matmul_macs(a, b):
    """numpy.matmul: 1-D operands promoted, batch dims broadcast."""
    a, b = list(a), list(b)
    if len(a) == 1:
        a = [1] + a
    if len(b) == 1:
        b = b + [1]
    batch = np.broadcast_shapes(tuple(a[:-2]), tuple(b[:-2]))
    return prod(batch) * a[-2] * b[-1] * a[-1]


def contraction_macs(node, shape):
    """MACs of a contraction from runtime shapes (`shape(name)`), or None."""
    op = node.op_type
    ins = [shape(i) if i else None for i in node.input]
    outs = [shape(o) if o else None for o in node.output]
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    if op == "MatMul" and ins[0] is not None and ins[1] is not None:
        return matmul_macs(ins[0], ins[1])
    if op == "Gemm" and ins[0] is not None and ins[1] is not None:
        a, b = ins[0], ins[1]
        m, k = (a[1], a[0]) if attrs.get("transA", 0) else (a[0], a[1])
        n = b[0] if attrs.get("transB", 0) else b[1]
        return m * n * k
    if op == "Conv" and ins[1] is not None and outs[0] is not None:
        x, w, y = ins[0], ins[1], outs[0]
        group = attrs.get("group", 1)
        n, c_out, out_spatial = y[0], y[1], y[2:]
        c_in = x[1]
        return n * c_out * prod(out_spatial) * (c_in // group) * prod(w[2:])
    if op == "ConvTranspose" and ins[1] is not None:
        x, w = ins[0], ins[1]
        group = attrs.get("group", 1)
        c_out = w[1] * group
        return x[0] * x[1] * prod(x[2:]) * (c_out // group) * prod(w[2:])
    return None


def run_symdim(symdim, path, binding):
    args = [symdim, "cost", str(path), "--format", "json"]
    for k, v in binding.items():
        args += ["--bind", f"{k}={v}"]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"symdim cost failed on {path}: {out.stderr}")
    return json.loads(out.stdout)


def runtime(path, tensors, binding):
    """Runtime shapes and element sizes of every graph input and node output."""
    model = onnx.load(str(path))
    g = model.graph
    feeds, _ = bound_feeds(model, tensors, binding)
    names, got = run_every_output(model, feeds)
    rt = {}
    for name, arr in feeds.items():
        rt[name] = (list(arr.shape), arr.dtype.itemsize)
    for o in names:
        r = got.get(o)
        if isinstance(r, np.ndarray):
            rt[o] = (list(r.shape), r.dtype.itemsize)
    init_shapes = {t.name: list(t.dims) for t in g.initializer}
    return model, rt, init_shapes, len(names) - sum(1 for o in names if o in rt)


def node_name(node, index):
    """The name symdim gives a node: its own, else `<op>_<index>`."""
    return node.name or f"{node.op_type}_{index}"


def peak_of(graph, order_names, sizes, outputs):
    """The peak live bytes under docs/cost.md's liveness, in the given node order."""
    by_name = {node_name(n, i): n for i, n in enumerate(graph.node)}
    steps = [by_name[n] for n in order_names]
    nsteps = len(steps)
    produced, last_use = {}, {}
    for s, node in enumerate(steps):
        for i in node.input:
            if i in sizes:
                last_use[i] = s
        for o in node.output:
            produced.setdefault(o, s)
    live = [0] * nsteps
    for name, b in sizes.items():
        birth = produced.get(name, 0)
        if name in outputs:
            death = nsteps - 1
        elif name in last_use:
            death = max(last_use[name], birth)
        elif name in produced:
            death = birth
        else:
            continue
        for s in range(birth, death + 1):
            live[s] += b
    return max(live) if live else 0


def val(d, key):
    """A figure's value: its `_value` (with binds), else the figure itself (a static
    model's figures are numbers)."""
    return d.get(f"{key}_value", d.get(key))


def check(symdim, sub, path, binding, tally):
    cost = run_symdim(symdim, path, binding)
    tensors, _ = symdim_inputs(symdim, path)
    model, rt, init_shapes, hidden = runtime(path, tensors, binding)
    g = model.graph
    bad = []

    def shape(name):
        if name in rt:
            return rt[name][0]
        return init_shapes.get(name)

    # Tensors.
    nt = 0
    for name, t in cost["tensors"].items():
        if t["role"] != "activation" or name not in rt:
            continue
        dims, size = rt[name]
        nt += 1
        if val(t, "elements") != prod(dims):
            bad.append(f"tensor {name}: elements {val(t, 'elements')} != runtime {prod(dims)}")
        if val(t, "bytes") != prod(dims) * size:
            bad.append(f"tensor {name}: bytes {val(t, 'bytes')} != runtime {prod(dims) * size}")
    # Contractions.
    nodes = {n["node"]: n for n in cost["nodes"]}
    nc = 0
    for index, node in enumerate(g.node):
        want = contraction_macs(node, shape)
        if want is None:
            continue
        nc += 1
        got = val(nodes[node_name(node, index)], "macs")
        if got != want:
            bad.append(f"node {node.name} ({node.op_type}): macs {got} != runtime {want}")
    # Totals.
    # Activations: graph inputs and node outputs, but Constant outputs (parameters).
    constants = {o for n in g.node if n.op_type == "Constant" for o in n.output}
    sizes = {n: prod(d) * s for n, (d, s) in rt.items() if n not in constants}
    totals = cost["totals"]
    ntot = 0
    if hidden == 0:
        ntot = 2
        act = sum(sizes.values())
        if val(totals, "activation_bytes") != act:
            bad.append(f"activation bytes {val(totals, 'activation_bytes')} != runtime {act}")
        # The model's own graph outputs (not those exposed here) are live to the end.
        own = {o.name for o in onnx.load(str(path), load_external_data=False).graph.output}
        peak = peak_of(g, [n["node"] for n in cost["nodes"]], sizes, own)
        if val(totals, "peak_bytes") != peak:
            bad.append(f"peak bytes {val(totals, 'peak_bytes')} != runtime {peak}")
    tally["tensors"] += nt
    tally["contractions"] += nc
    tally["totals"] += ntot
    tally["mismatches"] += len(bad)
    b = ",".join(f"{k}={v}" for k, v in binding.items()) or "static"
    print(f"{sub}/{path.name} [{b}]: {nt} tensors, {nc} contractions, {ntot} totals, {len(bad)} mismatches"
          + (f" ({hidden} tensors not exposed)" if hidden else ""))
    for m in bad[:20]:
        print(f"  {m}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    target = os.environ.get("CARGO_TARGET_DIR", str(ROOT / "target"))
    ap.add_argument("--symdim", default=str(Path(target) / "release" / "symdim"))
    ap.add_argument("stems", nargs="*", help="only these model file stems")
    a = ap.parse_args()
    tally = {"models": 0, "runs": 0, "tensors": 0, "contractions": 0, "totals": 0, "mismatches": 0}
    for sub in ("pypi", "export", "large"):
        for path in sorted((CORPUS / sub).glob("*.onnx")):
            if a.stems and path.stem not in a.stems:
                continue
            m = onnx.load(str(path), load_external_data=False)
            if any(n.op_type in CONTROL for n in m.graph.node):
                print(f"{sub}/{path.name}: control flow, skipped")
                continue
            if path.stem not in BINDINGS:
                print(f"{sub}/{path.name}: no bindings chosen, skipped")
                continue
            tally["models"] += 1
            for binding in BINDINGS[path.stem]:
                tally["runs"] += 1
                check(a.symdim, sub, path, binding, tally)
    print("total: " + ", ".join(f"{k} {v}" for k, v in tally.items()))
    sys.exit(1 if tally["mismatches"] else 0)


if __name__ == "__main__":
    main()
