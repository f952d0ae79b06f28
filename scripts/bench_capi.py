#!/usr/bin/env python3
"""The C API's cost beside the Rust facade's, in the same run (issue: C API target
of at most 1.05x the facade's time).

Runs examples/c/timing.c (the C API) and examples/timing.rs (the facade) in turn,
A B A B ..., each making RUNS in-process runs of load + infer (+ the JSON report with
--report) of one model; a round's figure is the median of its runs after the first
(the warm-up). Prints each program's median over the rounds and the ratio C/Rust
round by round (min, median, max).

  cargo build --release -p symdim-capi && cargo build --release --example timing
  cc -O2 -Iinclude examples/c/timing.c -Ltarget/release -lsymdim -o target/release/c-timing
  python3 scripts/bench_capi.py MODEL [--report] [--rounds 7] [--runs 5]

Both programs use mimalloc for the library's allocations (the C API's library and
the example set it as the global allocator), so the figures compare the calls.
"""
import argparse
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def one_round(cmd, env):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr[-300:]}")
    times = [float(line) for line in p.stdout.split()]
    return statistics.median(times[1:] if len(times) > 1 else times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("--report", action="store_true", help="also make the JSON report")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--runs", type=int, default=5, help="in-process runs per round")
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    ap.add_argument("--c", default=os.path.join(target, "release", "c-timing"))
    ap.add_argument("--rust", default=os.path.join(target, "release", "examples", "timing"))
    a = ap.parse_args()
    env = dict(os.environ)
    lib = os.path.dirname(a.c)
    env["LD_LIBRARY_PATH"] = os.pathsep.join(
        [os.path.join(target, "release"), lib, env.get("LD_LIBRARY_PATH", "")])
    extra = [str(a.runs + 1)] + (["report"] if a.report else [])
    c_times, rust_times, ratios = [], [], []
    for _ in range(a.rounds):
        c = one_round([a.c, a.model] + extra, env)
        r = one_round([a.rust, a.model] + extra, env)
        c_times.append(c)
        rust_times.append(r)
        ratios.append(c / r)
    what = "load + infer + JSON report" if a.report else "load + infer"
    print(f"{os.path.basename(a.model)}: {what}, {a.rounds} rounds x {a.runs} runs")
    print(f"  C API   median {statistics.median(c_times) * 1e3:9.2f} ms")
    print(f"  facade  median {statistics.median(rust_times) * 1e3:9.2f} ms")
    print(f"  C/facade  min {min(ratios):.3f}  median {statistics.median(ratios):.3f}"
          f"  max {max(ratios):.3f}")


if __name__ == "__main__":
    main()
