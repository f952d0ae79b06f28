#!/usr/bin/env python3
"""Generate larger ONNX graphs with the same export pattern as the corpus's large llama models.

The corpus (../shared/corpus/real-models/large/) holds two llama decoder stacks:
  large_llama_l32_h32_ts17.onnx   torchscript exporter, opset 17, 32 layers, 7343 nodes
  large_llama_l64_h32_dyn18.onnx  torch.export exporter, opset 18, 64 layers, 3885 nodes
This script makes ~15k, ~30k and ~100k node versions of each by graph surgery:

  * A node belongs to decoder layer N when its name contains `layers.N` (torchscript:
    `/m/model/layers.N/...`) or, failing that, when its `pkg.torch.onnx.name_scopes`
    metadata does (torch.export names nodes `node_mul_123`). Unlabelled nodes whose every
    consumer is in layer N (torchscript's `Constant_2711` feeding an Unsqueeze, the
    `Identity` aliasing a shared norm weight) are part of that layer too.
  * The template is the LAST layer. Its one input coming from the previous layer is the
    residual stream; its one output used outside it is the next residual. Anything else it
    reads (rotary cos/sin, the attention mask, shape vectors built in layer 0, initializers)
    is shared by every copy, as it is by the exporter's own layers.
  * Each copy renames the tensors the layer produces (`layers.K` -> `layers.J` where the name
    has it, otherwise a `_lJ` suffix), reads the previous copy's residual output, and keeps
    the node metadata and value_info of the exporter (layer index substituted). Weights are
    shared: shape inference does not need distinct ones, and the files stay small.
  * The final norm is reconnected to the last copy's residual output.

Each generated model is checked with onnx.checker.check_model, with onnxruntime's symbolic
shape inference (on a stripped copy: graph outputs must get the same shape as the source
model's), and with `symdim infer` (it must finish and print a JSON report).

Usage:
  python scripts/gen_large.py [OUT_DIR] [--src A.onnx ...] [--nodes 15000,30000,100000]
                              [--symdim target/release/symdim] [--no-ort-check] [--strip-metadata]
OUT_DIR defaults to /work/large-gen/ (keep the files out of the repo: the 100k-node
torch.export model is ~180 MB, mostly exporter metadata; --strip-metadata drops it).
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time

# One stripping for every script (it runs from scripts/, so the sibling imports).
from compare_peers import strip_shapes

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_SRC_DIR = os.path.join(REPO, "..", "shared", "corpus", "real-models", "large")
LAYER_RE = re.compile(r"layers[._](\d+)(?!\d)")


def layer_of(node):
    m = LAYER_RE.search(node.name)
    if m:
        return int(m.group(1))
    for p in node.metadata_props:
        if p.key == "pkg.torch.onnx.name_scopes":
            found = LAYER_RE.findall(p.value)
            if found:
                return int(found[-1])
    return None


def sub_layer(text, k, j):
    """`layers.K` / `layers_K_` -> layer J, leaving other layer indices alone."""
    return re.sub(r"(layers[._])%d(?!\d)" % k, lambda m: m.group(1) + str(j), text)


def analyse(model):
    """(template layer index, node indices of the template, residual in, residual out)."""
    g = model.graph
    labels = [layer_of(n) for n in g.node]
    layers = sorted({l for l in labels if l is not None})
    if len(layers) < 2:
        raise SystemExit("no decoder layers found (need node names or name_scopes with layers.N)")
    k = layers[-1]
    consumers = collections.defaultdict(list)
    for i, n in enumerate(g.node):
        for x in n.input:
            if x:
                consumers[x].append(i)
    graph_outputs = {o.name for o in g.output}
    members = {i for i, l in enumerate(labels) if l == k}
    changed = True
    while changed:  # unlabelled nodes used only by the template layer belong to it
        changed = False
        for i, n in enumerate(g.node):
            if i in members or labels[i] is not None:
                continue
            outs = [o for o in n.output if o]
            users = [c for o in outs for c in consumers[o]]
            if outs and users and all(c in members for c in users) and not (set(outs) & graph_outputs):
                members.add(i)
                changed = True
    producer = {o: i for i, n in enumerate(g.node) for o in n.output if o}
    produced = {o for i in members for o in g.node[i].output if o}
    from_prev = sorted({x for i in members for x in g.node[i].input
                        if x and x not in produced and x in producer and labels[producer[x]] == k - 1})
    used_outside = sorted({o for o in produced
                           if o in graph_outputs or any(c not in members for c in consumers[o])})
    if len(from_prev) != 1 or len(used_outside) != 1:
        raise SystemExit(f"layer {k}: expected one residual input and one output, found "
                         f"inputs {from_prev} and outputs {used_outside}")
    return k, sorted(members), from_prev[0], used_outside[0]


def replicate(model, extra, strip_metadata=False):
    """A copy of `model` with `extra` more decoder layers after the last one."""
    import onnx
    k, members, r_in, r_out = analyse(model)
    src = model.graph
    out = onnx.ModelProto()
    out.CopyFrom(model)
    g = out.graph
    del g.node[:]
    produced = [o for i in members for o in src.node[i].output if o]
    taken = {o for n in src.node for o in n.output} | {x for n in src.node for x in n.input}
    taken |= {i.name for i in src.initializer} | {i.name for i in src.input}
    taken |= {n.name for n in src.node}
    vinfo = {v.name: v for v in src.value_info}

    def fresh(name, j):
        new = sub_layer(name, k, j)
        if new == name:
            new = f"{name}_l{j}"
        while new in taken:
            new += "_"
        taken.add(new)
        return new

    copies = []
    new_vi = []
    prev_res = r_out
    for j in range(k + 1, k + 1 + extra):
        ren = {o: fresh(o, j) for o in produced}
        ren[r_in] = prev_res
        for i in members:
            n = onnx.NodeProto()
            n.CopyFrom(src.node[i])
            n.name = fresh(n.name, j) if n.name else ""
            for a, x in enumerate(n.input):
                if x in ren:
                    n.input[a] = ren[x]
            for a, x in enumerate(n.output):
                if x in ren:
                    n.output[a] = ren[x]
            if strip_metadata:
                del n.metadata_props[:]
            else:
                for p in n.metadata_props:
                    p.value = sub_layer(p.value, k, j)
            copies.append(n)
        for o in produced:
            if o in vinfo:
                v = onnx.ValueInfoProto()
                v.CopyFrom(vinfo[o])
                v.name = ren[o]
                new_vi.append(v)
        prev_res = ren[r_out]
    last = max(members)
    for i, n in enumerate(src.node):
        c = g.node.add()
        c.CopyFrom(n)
        if strip_metadata:
            del c.metadata_props[:]
        if i not in members:
            for a, x in enumerate(c.input):
                if x == r_out:
                    c.input[a] = prev_res
        if i == last:
            g.node.extend(copies)
    for o in g.output:
        if o.name == r_out:
            o.name = prev_res
    g.value_info.extend(new_vi)
    meta = out.metadata_props.add()
    meta.key = "symdim.gen_large"
    meta.value = (f"decoder layer {k} replicated {extra} times (shared weights) by scripts/gen_large.py; "
                  f"residual {r_in} -> {r_out}")
    ensure_topological(g)
    return out, dict(template_layer=k, layer_nodes=len(members), residual_in=r_in, residual_out=r_out)


def ensure_topological(g):
    known = {i.name for i in g.input} | {i.name for i in g.initializer} | {""}
    for n in g.node:
        for x in n.input:
            if x not in known:
                raise SystemExit(f"node {n.name} reads {x} before it is produced")
        known.update(n.output)


def dims(vi):
    tt = vi.type.tensor_type
    if not tt.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else (d.dim_param or "?") for d in tt.shape.dim]


def ort_output_shapes(model):
    from onnxruntime.tools.symbolic_shape_infer import SymbolicShapeInference
    cwd = os.getcwd()
    os.chdir(tempfile.mkdtemp(prefix="gen_large_"))  # ORT may write a temp file into cwd
    try:
        res = SymbolicShapeInference.infer_shapes(strip_shapes(model), auto_merge=True, guess_output_rank=True)
    finally:
        os.chdir(cwd)
    return [dims(o) for o in res.graph.output]


def symdim_check(binary, path):
    t0 = time.perf_counter()
    p = subprocess.run([binary, "infer", path, "--format", "json"], capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if p.returncode not in (0, 1):
        return dict(ok=False, rc=p.returncode, seconds=dt, error=p.stderr.strip()[-300:])
    rep = json.loads(p.stdout)
    outs = {o: (rep["tensors"].get(o) or {}).get("shape") for o in rep.get("outputs", [])}
    diags = collections.Counter(d["severity"] for d in rep.get("diagnostics", []))
    return dict(ok=True, rc=p.returncode, seconds=round(dt, 3), tensors=len(rep["tensors"]),
                outputs=outs, diagnostics=dict(diags))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out_dir", nargs="?", default="/work/large-gen/")
    ap.add_argument("--src", nargs="*", help="source models (default: the corpus's large/*.onnx)")
    ap.add_argument("--nodes", default="15000,30000,100000", help="target node counts, comma separated")
    ap.add_argument("--symdim", default=os.path.join(REPO, "target", "release", "symdim"),
                    help="symdim binary for the check (default target/release/symdim; "
                         "respects CARGO_TARGET_DIR)")
    ap.add_argument("--no-ort-check", action="store_true", help="skip onnxruntime's check (slow at 100k)")
    ap.add_argument("--no-symdim-check", action="store_true")
    ap.add_argument("--strip-metadata", action="store_true", help="drop per-node exporter metadata")
    a = ap.parse_args()
    import onnx

    if os.environ.get("CARGO_TARGET_DIR") and a.symdim == os.path.join(REPO, "target", "release", "symdim"):
        a.symdim = os.path.join(os.environ["CARGO_TARGET_DIR"], "release", "symdim")
    srcs = a.src or sorted(os.path.join(DEFAULT_SRC_DIR, f) for f in os.listdir(DEFAULT_SRC_DIR)
                           if f.endswith(".onnx"))
    targets = [int(x) for x in a.nodes.split(",") if x]
    os.makedirs(a.out_dir, exist_ok=True)
    summary = {}
    for s in srcs:
        model = onnx.load(s)
        n0 = len(model.graph.node)
        k, members, _, _ = analyse(model)
        per_layer = len(members)
        ref = ort_output_shapes(model) if not a.no_ort_check else None
        print(f"{os.path.basename(s)}: {n0} nodes, {k + 1} layers, {per_layer} nodes per layer copy; "
              f"ORT output shapes {ref}", flush=True)
        stem = os.path.splitext(os.path.basename(s))[0]
        for target in targets:
            extra = max(0, round((target - n0) / per_layer))
            t0 = time.time()
            big, info = replicate(model, extra, a.strip_metadata)
            n = len(big.graph.node)
            layers = k + 1 + extra
            path = os.path.join(a.out_dir, f"{stem}.rep_l{layers}_n{n}.onnx")
            onnx.checker.check_model(big)
            onnx.save(big, path)
            rec = dict(source=s, nodes=n, layers=layers, bytes=os.path.getsize(path), **info,
                       gen_seconds=round(time.time() - t0, 1), checker="ok")
            if not a.no_ort_check:
                t1 = time.time()
                got = ort_output_shapes(big)
                rec["ort_output_shapes"] = got
                rec["ort_same_as_source"] = got == ref
                rec["ort_seconds"] = round(time.time() - t1, 1)
                if got != ref:
                    print(f"  !! ORT output shapes differ from the source model: {got} vs {ref}", flush=True)
            if not a.no_symdim_check:
                if os.path.exists(a.symdim):
                    rec["symdim"] = symdim_check(a.symdim, path)
                else:
                    rec["symdim"] = dict(ok=None, error=f"{a.symdim} not built")
            summary[os.path.basename(path)] = rec
            print(f"  {os.path.basename(path)}: {n} nodes, {rec['bytes'] / 1e6:.1f} MB, "
                  f"ort={rec.get('ort_output_shapes')} same={rec.get('ort_same_as_source')} "
                  f"symdim={rec.get('symdim')}", flush=True)
            del big
    with open(os.path.join(a.out_dir, "gen_large.json"), "w") as f:
        json.dump(summary, f, indent=1)
    bad = [p for p, r in summary.items()
           if r.get("ort_same_as_source") is False or (r.get("symdim") or {}).get("ok") is False]
    if bad:
        print("FAILED checks:", bad)
        sys.exit(1)


if __name__ == "__main__":
    main()
