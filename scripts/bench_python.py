#!/usr/bin/env python3
"""Time symdim's Python package in-process against onnx's and onnxruntime's shape inference.

For every model the script makes a stripped copy (every value_info removed, graph-output
shapes cleared, recursively: `strip_shapes` of compare_peers.py), then times, in one
process, on a fresh copy of that ModelProto per call (copying is not timed):

  symdim : symdim.infer_shapes(m)                                    -> ModelProto
  onnx   : onnx.shape_inference.infer_shapes(m, data_prop=True)     -> ModelProto
  ort    : onnxruntime.tools.symbolic_shape_infer.SymbolicShapeInference
               .infer_shapes(m, auto_merge=True)                     -> ModelProto
  report : symdim.infer(m) (only with --peers ...,report)          -> symdim.Report,
           for a pipeline that needs the shapes but not an annotated model

Two more columns split symdim's time, so that what a target leaves for inference can be
read off one run (--split; timed on fresh copies right after symdim's call in each
round, so with the extension's allocator warm, while symdim's call follows onnx's or
onnxruntime's):

  native   : the extension's call alone (read, infer, write the shapes), on the model's
             bytes serialized beforehand: symdim._native.annotate(bytes, skeleton=...)
  protobuf : symdim.infer_shapes(m) with that call answered from a cached result: what
             the Python protobuf runtime spends (serializing the model, copying it and
             merging the shapes in)

Each peer gets one warm-up call, then the peers take turns, one timed call each per
round, so that a slow spell of the machine falls on all of them; the table shows
medians (--runs calls for symdim and onnx, --ort-runs for onnxruntime, whose calls take
a second or more) and the ratios symdim/onnx and symdim/ort (targets:
docs/benchmarks.md).

Usage:
  python scripts/bench_python.py [MODEL.onnx ...] [--runs 21] [--ort-runs 3]
         [--peers symdim,onnx,ort] [--split] [--json OUT.json]
Both clocks are shown: wall time, and CPU time of the process (user + system, every
thread: steadier when other jobs share the machine).
Without models: the llama models and PP-OCRv4 det of ../shared/corpus/real-models.
Needs the symdim package (pip install .) and onnx, onnxruntime, sympy.
"""
import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from compare_peers import strip_shapes  # noqa: E402

CORPUS = os.path.join(REPO, "..", "shared", "corpus", "real-models")
DEFAULT_MODELS = [
    "large/large_llama_l32_h32_ts17.onnx",
    "large/large_llama_l64_h32_dyn18.onnx",
    "export/llama_l2_ts17.onnx",
    "export/llama_l2_dyn18.onnx",
    "pypi/rapidocr__ch_PP-OCRv4_det_infer.onnx",
]


def peer_symdim(m):
    import symdim

    return symdim.infer_shapes(m)


def peer_report(m):
    import symdim

    return symdim.infer(m)


def peer_onnx(m):
    import onnx

    return onnx.shape_inference.infer_shapes(m, data_prop=True)


def peer_ort(m):
    from onnxruntime.tools.symbolic_shape_infer import SymbolicShapeInference

    return SymbolicShapeInference.infer_shapes(m, auto_merge=True)


def native_call(base):
    """The extension's call that symdim.infer_shapes makes for `base`, on the model and
    its skeleton serialized beforehand."""
    import symdim
    from symdim import _native

    data, skeleton = base.SerializeToString(), symdim._skeleton(base)
    return lambda: _native.annotate(data, bind=None, assume=None, op_rules=None, skeleton=skeleton)


def prepare_native(base):
    call = native_call(base)
    return lambda m: call()


def prepare_protobuf(base):
    import symdim
    from symdim import _native

    cached = native_call(base)()
    real = _native.annotate

    def call(m):
        _native.annotate = lambda *args, **kwargs: cached
        try:
            return symdim.infer_shapes(m)
        finally:
            _native.annotate = real

    return call


PEERS = {"symdim": peer_symdim, "report": peer_report, "onnx": peer_onnx, "ort": peer_ort}
# Peers made per model (they need the model's bytes or result beforehand).
PREPARED = {"native": prepare_native, "protobuf": prepare_protobuf}


def timed(fn, base):
    import onnx

    m = onnx.ModelProto()
    m.CopyFrom(base)
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        fn(m)
    except Exception as e:  # noqa: BLE001 - a peer that fails is reported, not fatal
        return None, f"{type(e).__name__}: {e}"[:200]
    return (time.perf_counter() - t0, time.process_time() - c0), None


def bench(path, peers, runs, ort_runs):
    import onnx

    base = strip_shapes(onnx.load(path))
    result = {"model": path, "nodes": len(base.graph.node)}
    times = {p: [] for p in peers}
    errors = {}
    fns = {p: PREPARED[p](base) if p in PREPARED else PEERS[p] for p in peers}
    for p in peers:  # warm-up (imports, caches)
        _, err = timed(fns[p], base)
        if err:
            errors[p] = err
    for i in range(runs):
        for p in peers:
            if p in errors or (p == "ort" and i >= ort_runs):
                continue
            t, err = timed(fns[p], base)
            if err:
                errors[p] = err
            else:
                times[p].append(t)
    for p in peers:
        wall = [t[0] for t in times[p]]
        cpu = [t[1] for t in times[p]]
        result[p] = {
            "wall_ms": statistics.median(wall) * 1e3 if wall else None,
            "cpu_ms": statistics.median(cpu) * 1e3 if cpu else None,
            "runs": len(wall),
            "error": errors.get(p),
        }
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="*")
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--ort-runs", type=int, default=3)
    ap.add_argument("--peers", default="symdim,onnx,ort")
    ap.add_argument("--split", action="store_true", help="add the native and protobuf columns")
    ap.add_argument("--json")
    args = ap.parse_args()
    models = args.models or [os.path.join(CORPUS, m) for m in DEFAULT_MODELS]
    missing = [m for m in models if not os.path.exists(m)]
    if missing:
        sys.exit(f"missing models: {', '.join(missing)} (the default ones are in ../shared/corpus)")
    peers = [p.strip() for p in args.peers.split(",") if p.strip()]
    if args.split:
        # Right after symdim in each round: its steps, timed while its memory is warm.
        at = peers.index("symdim") + 1 if "symdim" in peers else 0
        peers[at:at] = [p for p in ("native", "protobuf") if p not in peers]
    unknown = [p for p in peers if p not in PEERS and p not in PREPARED]
    if unknown:
        sys.exit(f"unknown peers: {', '.join(unknown)} (known: {', '.join([*PEERS, *PREPARED])})")
    import onnx
    import onnxruntime
    import symdim

    print(
        f"symdim {symdim.__version__}, onnx {onnx.__version__}, onnxruntime {onnxruntime.__version__}; "
        f"medians of {args.runs} calls (ort: {args.ort_runs}), wall / CPU ms"
    )
    ratios = [p for p in ("onnx", "ort") if p in peers and "symdim" in peers]
    header = f"{'model':<38} {'nodes':>6}" + "".join(f" {p:>15}" for p in peers)
    header += "".join(f" {'symdim/' + p:>15}" for p in ratios)
    print(header)
    rows = []
    for path in models:
        r = bench(path, peers, args.runs, args.ort_runs)
        rows.append(r)
        line = f"{os.path.basename(path)[:38]:<38} {r['nodes']:>6}"
        for p in peers:
            w, c = r[p]["wall_ms"], r[p]["cpu_ms"]
            line += f" {w:>7.1f}/{c:<7.1f}" if w is not None else f" {'failed':>15}"
        for p in ratios:
            ws, cs, wp, cp = r["symdim"]["wall_ms"], r["symdim"]["cpu_ms"], r[p]["wall_ms"], r[p]["cpu_ms"]
            if ws and wp:
                r[f"symdim/{p}"] = {"wall": ws / wp, "cpu": cs / cp}
                line += f" {ws / wp:>7.3f}/{cs / cp:<7.3f}"
            else:
                line += f" {'-':>15}"
        print(line, flush=True)
        for p in peers:
            if r[p]["error"]:
                print(f"  {p}: {r[p]['error']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
