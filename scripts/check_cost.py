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

With `--models DIR` it checks the models of DIR instead (scripts/make_cost_models.py
writes them to tests/fixtures/cost), at the bindings `GENERATED` of `batch`,
`sequence` and `past_sequence` (each model's own symbols of them), and also checks,
from runtime shapes and the op specs:
   - the MACs of LSTM, GRU, RNN and com.microsoft DynamicQuantizeLSTM (`seq * batch *
     D * gates * H * (I + H)`), ONNX
     Attention, com.microsoft Attention and MultiHeadAttention (the two products
     `Q K^T` and `P V` over the total sequence `T` = new + past, and Attention's
     input projection), MatMulInteger and QLinearMatMul (numpy matmul) and
     com.microsoft MatMulNBits (`prod(A[:-1]) * N * K`, one MAC per weight used),
     and their FLOPs (`2 * MACs` plus docs/cost.md's per-element counts: 17, 13, 3
     per hidden unit and step for LSTM, GRU, RNN, 5 per attention score), each
     counted under "contractions";
   - the KV cache bytes: the runtime bytes of the graph outputs named `present*`,
     else of the graph inputs named `past*`.

Run (from the crate root; needs onnx, onnxruntime and numpy, and a built symdim):

    /work/venv-zoo/bin/python scripts/check_cost.py [--symdim PATH] [MODEL_STEM ...]
    /work/venv-int/bin/python scripts/make_cost_models.py
    /work/venv-int/bin/python scripts/check_cost.py --models tests/fixtures/cost

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

# Bindings of the generated models' symbols (each model binds the ones it has):
# distinct, not 1, and unequal to the models' head counts and widths.
GENERATED = [
    {"batch": 3, "sequence": 7, "past_sequence": 5},
    {"batch": 2, "sequence": 5, "past_sequence": 9},
    {"batch": 5, "sequence": 11, "past_sequence": 6},
]

CONTROL = {"If", "Loop", "Scan"}

# Gates per recurrent op (ONNX LSTM, GRU, RNN specs: i o f c; z r h; one).
GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}


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


def extra_flops(node, shape):
    """FLOPs beyond `2 * MACs` of the recurrent, attention and quantized matmul ops,
    by docs/cost.md's per-element counts, from runtime shapes; None for other ops.
    Recurrent: 17 (LSTM), 13 (GRU), 3 (RNN) per step, batch row, direction and
    hidden unit; attention: 5 per score (the softmax); the matmuls: 0."""
    op, dom = node.op_type, node.domain
    ins = [shape(i) if i else None for i in node.input]
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    if op in ("MatMulInteger", "QLinearMatMul") and dom in ("", "ai.onnx"):
        return 0
    if op == "MatMulNBits" and dom == "com.microsoft":
        return 0
    if op == "DynamicQuantizeLSTM" and dom == "com.microsoft":
        op, dom = "LSTM", ""  # onnxruntime's schema: LSTM with quantized weights
    if op in GATES and dom in ("", "ai.onnx"):
        x = ins[0]
        seq, batch = (x[1], x[0]) if attrs.get("layout", 0) else (x[0], x[1])
        d = 2 if attrs.get("direction", b"forward") in (b"bidirectional", "bidirectional") else 1
        return {"LSTM": 17, "GRU": 13, "RNN": 3}[op] * seq * batch * d * attrs["hidden_size"]
    if op == "Attention" and dom in ("", "ai.onnx"):
        q, k = ins[0], ins[1]
        past = ins[4] if len(ins) > 4 else None
        t = k[2] + (past[2] if past is not None else 0)
        return 5 * q[0] * q[1] * q[2] * t
    if op == "Attention" and dom == "com.microsoft":
        b, seq, _ = ins[0]
        past = ins[4] if len(ins) > 4 else None
        t = seq + (past[3] if past is not None else 0)
        return 5 * b * attrs["num_heads"] * seq * t
    if op == "MultiHeadAttention" and dom == "com.microsoft":
        q, k = ins[0], ins[1]
        past = ins[6] if len(ins) > 6 else None
        t = k[1] + (past[2] if past is not None else 0)
        return 5 * q[0] * attrs["num_heads"] * q[1] * t
    return None


def contraction_macs(node, shape):
    """MACs of a contraction from runtime shapes (`shape(name)`), or None."""
    op = node.op_type
    ins = [shape(i) if i else None for i in node.input]
    outs = [shape(o) if o else None for o in node.output]
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    if op in ("MatMul", "MatMulInteger") and ins[0] is not None and ins[1] is not None:
        return matmul_macs(ins[0], ins[1])
    if op == "QLinearMatMul" and ins[0] is not None and ins[3] is not None:
        return matmul_macs(ins[0], ins[3])
    if op == "MatMulNBits" and node.domain == "com.microsoft" and ins[0] is not None:
        # Y = A x dequant(B)^T, B holding N x K weights (contrib op docs).
        return prod(ins[0][:-1]) * attrs["N"] * attrs["K"]
    dom = node.domain
    if op == "DynamicQuantizeLSTM" and dom == "com.microsoft":
        op, dom = "LSTM", ""  # the same products; W [D, I, 4H] and R [D, H, 4H] transposed
    if op in GATES and dom in ("", "ai.onnx") and ins[0] is not None:
        # Per step, batch row, direction and gate: X_t W^T (I x H) + H_{t-1} R^T (H x H).
        x = ins[0]
        seq, batch, inp = (x[1], x[0], x[2]) if attrs.get("layout", 0) else (x[0], x[1], x[2])
        d = 2 if attrs.get("direction", b"forward") in (b"bidirectional", "bidirectional") else 1
        h = attrs["hidden_size"]
        return seq * batch * d * GATES[op] * h * (inp + h)
    if op == "Attention" and node.domain in ("", "ai.onnx") and len(ins) >= 3:
        # ONNX Attention (opset 23), 4-D Q [B, Hq, L, E], K [B, Hkv, S, E], V [B, Hkv,
        # S, Ev], past_key [B, Hkv, P, E]: Q K^T is B*Hq*L*T*E, P V is B*Hq*L*T*Ev.
        q, k, v = ins[0], ins[1], ins[2]
        if any(x is None or len(x) != 4 for x in (q, k, v)):
            return None  # the 3-D form (q_num_heads) is not checked here
        past = ins[4] if len(ins) > 4 else None
        b, hq, length, e = q
        t = k[2] + (past[2] if past is not None else 0)
        return b * hq * length * t * e + b * hq * length * t * v[3]
    if op == "Attention" and node.domain == "com.microsoft":
        # input [B, S, Din] x weights [Din, Dq + Dk + Dv] + bias, then per head
        # Q K^T over T = past + S and P V: B*S*T*Dq + B*S*T*Dv.
        x, w = ins[0], ins[1]
        if x is None or w is None or len(x) != 3:
            return None
        b, seq, din = x
        sizes = attrs.get("qkv_hidden_sizes")
        dq, dv = (sizes[0], sizes[2]) if sizes else (w[1] // 3, w[1] // 3)
        past = ins[4] if len(ins) > 4 else None
        t = seq + (past[3] if past is not None else 0)
        return b * seq * din * w[1] + b * seq * t * dq + b * seq * t * dv
    if op == "MultiHeadAttention" and node.domain == "com.microsoft":
        # 3-D query [B, S, D], key [B, L, D], value [B, L, Dv], past_key [B, N, P, h].
        q, k, v = ins[0], ins[1], ins[2]
        if any(x is None or len(x) != 3 for x in (q, k, v)):
            return None  # packed QKV or 4-D key/value: not checked here
        past = ins[6] if len(ins) > 6 else None
        b, seq, d = q
        t = k[1] + (past[2] if past is not None else 0)
        return b * seq * t * d + b * seq * t * v[2]
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


def own_outputs(path):
    """The model's own graph outputs (before exposing every node output)."""
    return [o.name for o in onnx.load(str(path), load_external_data=False).graph.output]


def val(d, key):
    """A figure's value: its `_value` (with binds), else the figure itself (a static
    model's figures are numbers)."""
    return d.get(f"{key}_value", d.get(key))


def check(symdim, sub, path, binding, tally):
    tensors, syms = symdim_inputs(symdim, path)
    binding = {k: v for k, v in binding.items() if k in syms}
    cost = run_symdim(symdim, path, binding)
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
        extra = extra_flops(node, shape)
        if extra is not None:
            nc += 1
            got = val(nodes[node_name(node, index)], "flops")
            if got != 2 * want + extra:
                bad.append(f"node {node.name} ({node.op_type}): flops {got} != {2 * want + extra}")
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
    # KV cache: the graph outputs named present*, else the graph inputs named past*.
    kv_names = [o.name for o in g.output[: len(own_outputs(path))] if o.name.startswith("present")]
    if not kv_names:
        kv_names = [i.name for i in g.input if i.name.startswith("past") and i.name in rt]
    nkv = 0
    if kv_names and all(n in rt for n in kv_names):
        nkv = 1
        kv = sum(prod(rt[n][0]) * rt[n][1] for n in kv_names)
        if val(totals, "kv_cache_bytes") != kv:
            bad.append(f"kv cache bytes {val(totals, 'kv_cache_bytes')} != runtime {kv}")
    ntot += nkv
    tally["tensors"] += nt
    tally["contractions"] += nc
    tally["totals"] += ntot
    tally["mismatches"] += len(bad)
    for node in g.node:
        if contraction_macs(node, shape) is not None:
            key = node.op_type if node.domain in ("", "ai.onnx") else f"{node.domain}.{node.op_type}"
            tally["ops"][key] = tally["ops"].get(key, 0) + 1
    b = ",".join(f"{k}={v}" for k, v in binding.items()) or "static"
    print(f"{sub}/{path.name} [{b}]: {nt} tensors, {nc} contractions, {ntot} totals, {len(bad)} mismatches"
          + (f" ({hidden} tensors not exposed)" if hidden else ""))
    for m in bad[:20]:
        print(f"  {m}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    target = os.environ.get("CARGO_TARGET_DIR", str(ROOT / "target"))
    ap.add_argument("--symdim", default=str(Path(target) / "release" / "symdim"))
    ap.add_argument("--models", help="check the models of this directory (at GENERATED)")
    ap.add_argument("stems", nargs="*", help="only these model file stems")
    a = ap.parse_args()
    tally = {"models": 0, "runs": 0, "tensors": 0, "contractions": 0, "totals": 0, "mismatches": 0,
             "ops": {}}
    if a.models:
        for path in sorted(Path(a.models).glob("*.onnx")):
            if a.stems and path.stem not in a.stems:
                continue
            tally["models"] += 1
            for binding in GENERATED:
                tally["runs"] += 1
                check(a.symdim, "models", path, binding, tally)
    for sub in () if a.models else ("pypi", "export", "large"):
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
