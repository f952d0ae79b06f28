#!/usr/bin/env python3
# Not a test: a measurement helper for docs/benchmarks.md ("cost beside infer").
"""bench_cost.py BIN MODEL...: median user+sys CPU (s) of 5 alternated runs of cost and infer --format json."""
import os, subprocess, sys, statistics
def cpu(args):
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY); os.dup2(fd, 1); os.dup2(fd, 2)
        os.execv(args[0], args)
    _, _, ru = os.wait4(pid, 0)
    return ru.ru_utime + ru.ru_stime
b = sys.argv[1]
for m in sys.argv[2:]:
    c, i = [], []
    for _ in range(5):
        c.append(cpu([b, "cost", m, "--format", "json"])); i.append(cpu([b, "infer", m, "--format", "json"]))
    mc, mi = statistics.median(c), statistics.median(i)
    print(f"| {os.path.basename(m)} | {mi:.2f} | {mc:.2f} | {mc/mi:.1f}x |")
