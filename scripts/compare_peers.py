#!/usr/bin/env python3
"""Time symdim against onnx's and onnxruntime's shape inference, in one run, on the same files.

For every model (files, or every .onnx under a directory) the script makes a STRIPPED copy
(every value_info removed, graph-output shapes cleared, recursively in If/Loop/Scan bodies;
the stripping of ../shared/corpus/real-models/measure_peers.py) so that every tool has to
infer everything, then times:

  symdim : the release binary as a whole process,
           `symdim infer STRIPPED.onnx --format json > /dev/null`,
           one warm-up run, then the median of --runs (default 5); peak RSS of the
           process from os.wait4's rusage (ru_maxrss, KiB on Linux), max over the runs.
           symdim is spawned by a small helper interpreter so that this process's own
           RSS (ru_maxrss survives execve) is not counted as symdim's.
  lib    : (only when --peers names it) the library in-process: examples/timing.rs
           (--lib PATH, default $CARGO_TARGET_DIR/release/examples/timing) runs
           symdim::load + symdim::infer twice in one process and the second run is
           timed; one warm-up run, then the median of --runs.
  onnx   : onnx.shape_inference.infer_shapes(m, data_prop=True), in-process on an
           already loaded ModelProto (onnx.load is not timed): one warm-up call,
           then the median of --runs.
  ort    : onnxruntime.tools.symbolic_shape_infer.SymbolicShapeInference.infer_shapes(
               m, auto_merge=True, guess_output_rank=True), in-process (imported once
           before timing), median of --ort-runs (default 3; the first call is included,
           as in measure_peers.py). A call slower than --single-above seconds
           (default 60) is not repeated.
Each in-process call gets a fresh copy of the stripped ModelProto (copying is not timed).
After the warm-ups the peers take turns, one timed run or call each per round, so that a
slow spell of the machine falls on all of them (--sequential: each peer's runs in a block).
Wall and CPU (user+sys) times are both recorded; --clock cpu makes the table use CPU time,
which is steadier when other jobs share the machine.

It prints one row per model: nodes, file MB, the medians in ms, the ratios
symdim/onnx and symdim/ort (targets: docs/benchmarks.md), symdim's peak RSS
against the target 2 x file size + 50 MB, and how many node outputs each tool grounds
(rank known and every dim a number or an expression of the graph inputs' symbols).

Usage:
  python scripts/compare_peers.py MODEL_OR_DIR... [--runs 5] [--ort-runs 3] [--clock wall|cpu] [--shipped] [--sequential]
         [--symdim PATH] [--peers symdim,lib,onnx,ort] [--lib PATH] [--single-above S] [--json OUT.json]
--shipped runs every tool on the files as shipped (value_info and output shapes kept).
The symdim binary defaults to $CARGO_TARGET_DIR/release/symdim, else target/release/symdim.
Needs the PyPI packages onnx, onnxruntime, sympy, numpy (see scripts/README.md).
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# ----------------------------------------------------------------------------- models

def strip_shapes(model):
    """Copy of model with every value_info removed and graph-output shapes cleared (elem types
    kept), recursively in subgraphs, so that a tool has to infer everything itself.
    Same logic as strip_shapes in ../shared/corpus/real-models/measure_peers.py."""
    import onnx
    m = onnx.ModelProto()
    m.CopyFrom(model)

    def rec(g):
        del g.value_info[:]
        for o in g.output:
            if o.type.HasField("tensor_type"):
                o.type.tensor_type.ClearField("shape")
        for n in g.node:
            for a in n.attribute:
                if a.HasField("g"):
                    rec(a.g)
                for sg in a.graphs:
                    rec(sg)
    rec(m.graph)
    return m


def count_nodes(g):
    n = 0
    for node in g.node:
        n += 1
        for a in node.attribute:
            if a.HasField("g"):
                n += count_nodes(a.g)
            for sg in a.graphs:
                n += count_nodes(sg)
    return n


# ----------------------------------------------------------------------------- grounded counts
# A node output of the main graph is "grounded" when its rank is known and every dim is a
# number or an expression whose identifiers are all symbols of the graph inputs (the
# 'known' + 'symbolic_grounded' classes of measure_peers.py).
FUNCS = {"floor", "ceil", "max", "min", "Max", "Min", "Mod", "mod", "Floor", "Ceiling", "ceiling", "Abs", "abs",
         "sqrt", "Piecewise", "And", "Or", "Eq", "Ne", "True", "False", "CeilToInt", "FloorToInt", "IntTrueDiv",
         "FloorDiv", "CleanDiv", "TruncToInt", "PythonMod", "Integer", "div", "cdiv"}
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_.:]*")


def grounded_dim(d, syms):
    if isinstance(d, int):
        return True
    if not isinstance(d, str) or not d:
        return False
    if d in syms:
        return True
    return all(w in syms for w in IDENT.findall(d) if w not in FUNCS)


def input_symbols(model):
    inits = {i.name for i in model.graph.initializer}
    syms = set()
    for i in model.graph.input:
        if i.name in inits or not i.type.HasField("tensor_type"):
            continue
        for d in i.type.tensor_type.shape.dim:
            if d.HasField("dim_param") and d.dim_param:
                syms.add(d.dim_param)
    return syms


def node_outputs(model):
    return [o for n in model.graph.node for o in n.output if o]


def grounded_onnx(model, inferred):
    syms = input_symbols(model)
    vmap = {}
    for coll in (inferred.graph.input, inferred.graph.value_info, inferred.graph.output):
        for vi in coll:
            vmap[vi.name] = vi
    n = 0
    for o in node_outputs(model):
        vi = vmap.get(o)
        if vi is None or not vi.type.HasField("tensor_type") or not vi.type.tensor_type.HasField("shape"):
            continue
        dims = []
        for d in vi.type.tensor_type.shape.dim:
            dims.append(int(d.dim_value) if d.HasField("dim_value") else (d.dim_param or None))
        if all(grounded_dim(d, syms) for d in dims):
            n += 1
    return n


def grounded_symdim(model, report):
    """Input symbols and symbols derived from them count as grounded; data-dependent ones do not."""
    syms = {s for s, v in report.get("symbols", {}).items() if v.get("kind") in ("input", "derived")}
    tensors = report.get("tensors", {})
    n = 0
    for o in node_outputs(model):
        shape = (tensors.get(o) or {}).get("shape")
        if shape is not None and all(grounded_dim(d, syms) for d in shape):
            n += 1
    return n


# ----------------------------------------------------------------------------- timing
# symdim is started by a small helper interpreter, not by this process: Linux's ru_maxrss
# survives execve, so a child forked (or vforked) from this process, which holds onnx,
# onnxruntime and the loaded models, would report this process's RSS as its own peak.
# The helper (a bare `python -S`, a few MB) posix_spawns symdim and wait4s it.
HELPER = r"""
import json, os, sys, time
for line in sys.stdin:
    req = json.loads(line)
    out = os.open(req["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    err = os.open(req["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    acts = [(os.POSIX_SPAWN_DUP2, out, 1), (os.POSIX_SPAWN_DUP2, err, 2)]
    t0 = time.perf_counter()
    pid = os.posix_spawn(req["argv"][0], req["argv"], os.environ, file_actions=acts)
    _, status, ru = os.wait4(pid, 0)
    dt = time.perf_counter() - t0
    os.close(out); os.close(err)
    print(json.dumps(dict(wall=dt, cpu=ru.ru_utime + ru.ru_stime, maxrss=ru.ru_maxrss,
                          rc=os.waitstatus_to_exitcode(status))), flush=True)
"""


class Spawner:
    def __init__(self):
        self.p = subprocess.Popen([sys.executable, "-S", "-c", HELPER], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)

    def run(self, argv, stdout, stderr):
        self.p.stdin.write(json.dumps(dict(argv=argv, stdout=stdout, stderr=stderr)) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError("the spawn helper died")
        return json.loads(line)

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def run_symdim(spawner, binary, path, out_path, err_path):
    """One whole-process run: dict(wall, cpu, maxrss KiB, rc)."""
    r = spawner.run([binary, "infer", path, "--format", "json"], out_path, err_path)
    if r["rc"] not in (0, 1):  # 1 = report with error diagnostics; 2 = no report
        with open(err_path, errors="replace") as fh:
            raise RuntimeError(f"symdim exited {r['rc']}: {fh.read()[-400:]}")
    return r


class SymdimTimer:
    """symdim's runs on one model: a warm-up run that writes the report (page cache; not
    timed), then one timed run per step(), up to `runs`."""

    def __init__(self, spawner, binary, path, model, runs, tmp):
        self.spawner, self.binary, self.path, self.model, self.runs = spawner, binary, path, model, runs
        self.out, self.err = os.path.join(tmp, "report.json"), os.path.join(tmp, "stderr.txt")
        self.rs, self.first, self.report, self.error = [], None, None, None

    def warm(self):
        try:
            self.first = run_symdim(self.spawner, self.binary, self.path, self.out, self.err)
            with open(self.out) as fh:
                self.report = json.load(fh)
            os.remove(self.out)
        except RuntimeError as e:
            self.error = str(e)

    def step(self):
        if self.error is None and len(self.rs) < self.runs:
            try:
                self.rs.append(run_symdim(self.spawner, self.binary, self.path, os.devnull, self.err))
            except RuntimeError as e:
                self.error = str(e)

    def summary(self):
        if self.error is not None or not self.rs:
            return dict(median_s=None, error=self.error)
        rs, report = self.rs, self.report
        diags = report.get("diagnostics", [])
        return dict(times=[r["wall"] for r in rs], median_s=statistics.median(r["wall"] for r in rs),
                    cpu_times=[r["cpu"] for r in rs], median_cpu_s=statistics.median(r["cpu"] for r in rs),
                    peak_rss_kib=max([self.first["maxrss"]] + [r["maxrss"] for r in rs]),
                    exit_code=self.first["rc"], grounded=grounded_symdim(self.model, report),
                    errors=sum(d.get("severity") == "error" for d in diags),
                    warnings=sum(d.get("severity") == "warning" for d in diags))


class LibTimer:
    """symdim as a library, in-process: `examples/timing.rs` loads and infers the model
    twice in its own process and prints the time each took; the second (a warm process,
    as in an embedder that has done it before) is the measurement. Process start and the
    report are not counted. A warm-up run, then one timed run per step(), up to `runs`."""

    def __init__(self, binary, path, runs):
        self.binary, self.path, self.runs = binary, path, runs
        self.times, self.error = [], None

    def once(self):
        p = subprocess.run([self.binary, self.path, "2"], capture_output=True, text=True)
        if p.returncode != 0:
            self.error = f"timing exited {p.returncode}: {p.stderr[-300:]}"
            return None
        return float(p.stdout.split()[-1])

    def warm(self):
        self.once()

    def step(self):
        if self.error is None and len(self.times) < self.runs:
            t = self.once()
            if t is not None:
                self.times.append(t)

    def summary(self):
        times = self.times
        return dict(times=times, median_s=statistics.median(times) if times else None,
                    median_cpu_s=statistics.median(times) if times else None, error=self.error)


class InProcessTimer:
    """An in-process peer's calls on one model, each on a fresh copy of the ModelProto
    (copying is not timed): an optional warm-up call (not timed), then one timed call per
    step(), up to `runs`; no more calls after one slower than `single_above` seconds or
    one that raised."""

    def __init__(self, fn, base, runs, warmup, single_above):
        self.fn, self.base, self.runs, self.warmup, self.single_above = fn, base, runs, warmup, single_above
        self.times, self.cpu, self.result, self.error, self.done = [], [], None, None, False

    def call(self):
        import onnx
        m = onnx.ModelProto()
        m.CopyFrom(self.base)
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            self.result = self.fn(m)
        except Exception as e:  # noqa: BLE001 - report and go on
            self.error = f"{type(e).__name__}: {e}"[:300]
            self.done = True
            return None
        return time.perf_counter() - t0, time.process_time() - c0

    def warm(self):
        if self.warmup and not self.done:
            t = self.call()
            if t is not None and t[0] > self.single_above:
                # Too slow to repeat: the warm-up is the one measurement.
                self.times.append(t[0])
                self.cpu.append(t[1])
                self.done = True

    def step(self):
        if self.done or len(self.times) >= self.runs:
            return
        t = self.call()
        if t is None:
            return
        self.times.append(t[0])
        self.cpu.append(t[1])
        if t[0] > self.single_above:
            self.done = True

    def summary(self):
        times, cpu = self.times, self.cpu
        return dict(times=times, median_s=statistics.median(times) if times else None,
                    cpu_times=cpu, median_cpu_s=statistics.median(cpu) if cpu else None, error=self.error)


def peer_onnx(m):
    import onnx
    return onnx.shape_inference.infer_shapes(m, data_prop=True)


def peer_ort(m):
    from onnxruntime.tools.symbolic_shape_infer import SymbolicShapeInference
    return SymbolicShapeInference.infer_shapes(m, auto_merge=True, guess_output_rank=True)


# ----------------------------------------------------------------------------- main
def natural(name):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def collect(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += sorted((os.path.join(p, f) for f in os.listdir(p) if f.endswith(".onnx")), key=natural)
        else:
            files.append(p)
    return files


def default_symdim():
    tgt = os.environ.get("CARGO_TARGET_DIR") or os.path.join(REPO, "target")
    return os.path.join(tgt, "release", "symdim")


def fmt_ms(s):
    return "-" if s is None else (f"{s * 1e3:.1f}" if s < 10 else f"{s * 1e3:.0f}")


def fmt_ratio(a, b):
    return "-" if a is None or not b else f"{a / b:.3f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="+", help=".onnx files or directories")
    ap.add_argument("--runs", type=int, default=5, help="timed runs of symdim and onnx (default 5)")
    ap.add_argument("--ort-runs", type=int, default=3, help="timed calls of onnxruntime (default 3)")
    ap.add_argument("--single-above", type=float, default=60.0,
                    help="do not repeat an in-process call slower than this many seconds")
    ap.add_argument("--symdim", default=default_symdim(), help="symdim binary")
    ap.add_argument("--peers", default="symdim,onnx,ort",
                    help="comma-separated: symdim (whole process), lib (in-process load + infer, "
                         "examples/timing.rs), onnx, ort")
    ap.add_argument("--lib", default=None,
                    help="the timing example binary (default: target/release/examples/timing)")
    ap.add_argument("--json", help="write the raw numbers here")
    ap.add_argument("--shipped", action="store_true",
                    help="run every tool on the file as shipped (exporter value_info and output shapes "
                         "kept) instead of on the stripped copy")
    ap.add_argument("--sequential", action="store_true",
                    help="time each peer's runs in one block (symdim, then onnx, then onnxruntime) "
                         "instead of interleaving them round by round")
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                    help="which median the table shows: wall time (default) or CPU time "
                         "(user+sys; steadier on a loaded machine). --json keeps both.")
    a = ap.parse_args()
    peers = set(a.peers.split(","))
    import onnx
    if "ort" in peers:
        from onnxruntime.tools.symbolic_shape_infer import SymbolicShapeInference  # noqa: F401 - import once
        import onnxruntime
    if "symdim" in peers and not os.path.exists(a.symdim):
        sys.exit(f"{a.symdim} not found: build it with `cargo build --release` or pass --symdim")
    files = collect(a.paths)
    if not files:
        sys.exit("no .onnx files")

    tmp = tempfile.mkdtemp(prefix="compare_peers_")
    cwd = os.getcwd()
    os.chdir(tmp)  # onnxruntime's symbolic inference may write a temp model into cwd
    spawner = Spawner() if "symdim" in peers else None
    results = dict(
        date=time.strftime("%Y-%m-%d %H:%M:%S %z"), symdim=a.symdim, runs=a.runs, ort_runs=a.ort_runs,
        order="sequential" if a.sequential else "interleaved",
        clock=a.clock, shipped=a.shipped, load_average=os.getloadavg(), cpus=os.cpu_count(),
        versions=dict(python=sys.version.split()[0], onnx=onnx.__version__,
                      onnxruntime=onnxruntime.__version__ if "ort" in peers else None),
        models={})
    try:
        for f in files:
            f = os.path.join(cwd, f) if not os.path.isabs(f) else f
            name = os.path.basename(f)
            orig = onnx.load(f)
            if a.shipped:
                base, stripped = orig, f
            else:
                base = strip_shapes(orig)
                stripped = os.path.join(tmp, name)
                onnx.save(base, stripped)
            size = os.path.getsize(stripped)
            r = dict(path=f, nodes=count_nodes(orig.graph), file_bytes=os.path.getsize(f),
                     stripped_bytes=size, rss_target_kib=(2 * size + 50 * 2 ** 20) // 1024,
                     node_outputs=len(node_outputs(orig)))
            print(f"{name}: {r['nodes']} nodes, {size / 1e6:.1f} MB {'as shipped' if a.shipped else 'stripped'}",
                  file=sys.stderr, flush=True)
            timers = {}
            if "symdim" in peers:
                timers["symdim"] = SymdimTimer(spawner, a.symdim, stripped, orig, a.runs, tmp)
            if "lib" in peers:
                lib = a.lib or os.path.join(os.path.dirname(default_symdim()), "examples", "timing")
                timers["lib"] = LibTimer(lib, stripped, a.runs)
            if "onnx" in peers:
                timers["onnx"] = InProcessTimer(peer_onnx, base, a.runs, True, a.single_above)
            if "ort" in peers:
                timers["ort"] = InProcessTimer(peer_ort, base, a.ort_runs, False, a.single_above)
            for t in timers.values():
                t.warm()
            if a.sequential:
                for t in timers.values():
                    for _ in range(max(a.runs, a.ort_runs)):
                        t.step()
            else:
                # Round after round, every peer once per round: a slow spell of the machine
                # falls on all of them, not on whichever block of runs it happened to hit.
                for _ in range(max(a.runs, a.ort_runs)):
                    for t in timers.values():
                        t.step()
            for peer, t in timers.items():
                r[peer] = t.summary()
            for peer in ("onnx", "ort"):
                if peer in timers:
                    res = timers[peer].result
                    if res is not None:
                        r[peer]["grounded"] = grounded_onnx(orig, res)
                    elif peer == "ort" and r[peer]["error"] is None:
                        r[peer]["error"] = "returned None (incomplete inference)"
            if not a.shipped:
                os.remove(stripped)
            results["models"][name] = r
            if a.json:
                with open(os.path.join(cwd, a.json), "w") as fh:
                    json.dump(results, fh, indent=1)
    finally:
        os.chdir(cwd)
        shutil.rmtree(tmp, ignore_errors=True)
        if spawner:
            spawner.close()
    print_table(results)


def print_table(results):
    head = ["model", "nodes", "MB", "symdim ms", "lib ms", "onnx ms", "ort ms", "sd/onnx", "sd/ort",
            "lib/onnx", "RSS MB", "target MB", "grounded sd/onnx/ort"]
    rows = []
    for name, r in results["models"].items():
        sd, lb, ox, ot = (r.get(k) or {} for k in ("symdim", "lib", "onnx", "ort"))
        key = "median_cpu_s" if results.get("clock") == "cpu" else "median_s"
        s, lbs, o, t = sd.get(key), lb.get(key), ox.get(key), ot.get(key)
        rss = sd.get("peak_rss_kib")
        r1, r2 = fmt_ratio(s, o), fmt_ratio(s, t)
        if s is not None and o:
            r1 += " ok" if s <= 0.5 * o else " MISS"
        if s is not None and t:
            r2 += " ok" if s <= 0.02 * t else " MISS"
        rss_s = "-" if rss is None else f"{rss / 1024:.0f}" + (" ok" if rss <= r["rss_target_kib"] else " MISS")
        g = "/".join(str(x.get("grounded", "-")) for x in (sd, ox, ot)) + f" of {r['node_outputs']}"
        rows.append([name, str(r["nodes"]), f"{r['file_bytes'] / 1e6:.1f}", fmt_ms(s), fmt_ms(lbs), fmt_ms(o),
                     fmt_ms(t), r1, r2, fmt_ratio(lbs, o), rss_s, f"{r['rss_target_kib'] / 1024:.0f}", g])
        for k, x in (("symdim", sd), ("lib", lb), ("onnx", ox), ("ort", ot)):
            if x.get("error"):
                rows.append([f"  {k} error: {x['error'][:150]}"] + [""] * (len(head) - 1))
    w = [max(len(h), *(len(row[i]) for row in rows if row[1] or i == 0)) if rows else len(h)
         for i, h in enumerate(head)]
    w[0] = min(w[0], 60)
    print(f"# {results['date']}  symdim={results['symdim']}  runs={results['runs']} ort_runs={results['ort_runs']}"
          f"  onnx={results['versions']['onnx']} onnxruntime={results['versions']['onnxruntime']}"
          f"  clock={results['clock']} order={results.get('order', 'sequential')}{'  AS SHIPPED (not stripped)' if results.get('shipped') else ''}  load average {results['load_average'][0]:.1f} on {results['cpus']} CPUs")
    print("  ".join(h.ljust(w[i]) if i == 0 else h.rjust(w[i]) for i, h in enumerate(head)))
    for row in rows:
        if not row[1]:
            print(row[0])
            continue
        print("  ".join(c.ljust(w[i]) if i == 0 else c.rjust(w[i]) for i, c in enumerate(row)))
    print("targets: sd/onnx <= 0.5, sd/ort <= 0.02, RSS <= 2 x file + 50 MB; lib = in-process load + infer; "
          "grounded = node outputs with known rank and every dim a number or an expression of input symbols")


if __name__ == "__main__":
    main()
