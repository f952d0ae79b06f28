"""Ladders and their verdicts.

A *ladder* runs one input shape at growing sizes (its *rungs*), one process per rung.
Its verdict fails when any rung

- crashes: killed by a signal (a stack overflow is SIGSEGV, an allocation failure
  SIGABRT), or an exit status the CLI never gives (0..3 are its statuses; a Rust panic
  exits 101);
- runs past `TIMEOUT` (20 s wall; the process group is killed);
- peaks above `RUNG_RSS_KB` (1 GiB);
- does not do what the ladder expects of it (an exit status, a diagnostic);

or when its growth breaks the ladder's kind:

- `count` (the size is a count or a length: terms, nodes, inputs, facts, rules, depth,
  digits): each rung is compared with the largest rung of at most half its size;
  with a size ratio `r`, its CPU time (user + system) may grow at most `r**log2(3)`
  (3x per doubling) and so may its peak RSS, each measured from a floor
  (`TIME_FLOOR` s, `RSS_FLOOR_KB`) so that noise and the process's fixed cost do not
  count: `max(t2, floor) / max(t1, floor) > r**1.585` fails. The time floor is the
  CPU spike a loaded machine adds to one run (`VALUE_TIME_SLACK`): on a busy CI
  machine a rung of 0.04 s CPU was measured at 0.15 s one size up, x3.0, with no
  growth of its own (the whole ladder stays below 0.2 s). Linear and n log n
  growth pass; quadratic growth (4x per doubling) fails once it is above the floors,
  and a cliff (12 steps 1.5 s, 13 steps a hang) fails on time.
- `value` (the size is a dim's value: 2**10 .. 2**63-1): no cost may follow a value,
  so every rung is compared with the first: peak RSS at most `VALUE_RSS_TOLERANCE`
  (10%) plus `VALUE_RSS_SLACK_KB` (4 MB) above it, CPU time at most
  `VALUE_TIME_FACTOR` times it plus `VALUE_TIME_SLACK`. The slacks are the noise of
  one process run twice on the same input: its peak RSS varies by up to 2.4 MB
  around 15 MB (the allocator), and a loaded machine adds CPU spikes of ~0.15 s.
- `cases` (a list of inputs, no size): only the per-rung checks.

After a rung that hangs, the larger rungs of the ladder are skipped (each would cost
the full timeout); they are listed as skipped.
"""

import math
from pathlib import Path

from .runner import TIMEOUT

RUNG_RSS_KB = 1 << 20
GROWTH_PER_DOUBLING = 3.0
TIME_FLOOR = 0.25
RSS_FLOOR_KB = 64 << 10
VALUE_RSS_TOLERANCE = 0.10
VALUE_TIME_FACTOR = 2.0
VALUE_RSS_SLACK_KB = 4 << 10
VALUE_TIME_SLACK = 0.25

V_LADDER = [2**10, 2**16, 2**20, 2**24, 2**28, 2**31, 2**32, 2**40, 2**53, 2**62, 2**63 - 1]
V_CI = [2**10, 2**24, 2**31, 2**62, 2**63 - 1]
V_CORPUS = [2**10, 2**31, 2**53, 2**62, 2**63 - 1]


def exits(*codes):
    """An expectation: the exit status is one of `codes`."""

    def check(r, size):
        return None if r.code in codes else f"{r.summary()}, expected exit {'/'.join(map(str, codes))}"

    return check


def all_of(*checks):
    def check(r, size):
        for c in checks:
            p = c(r, size)
            if p:
                return p
        return None

    return check


def size_label(s):
    """Sizes print as powers of two when they are near one."""
    if isinstance(s, int) and s >= 2**16:
        if s == 2**63 - 1:
            return "2^63-1"
        k = s.bit_length() - 1
        if s == 1 << k:
            return f"2^{k}"
    return str(s)


class Ladder:
    """One input shape at growing sizes.

    `make(size, tmp)` writes what the rung needs under `tmp` and returns its argv
    (argv[0] a path to run); `expect(result, size)` returns a problem or None; `ci` are
    the sizes of the `--ci` run (the smallest past the limit and one to compare it
    with), `limit` names the engine's limit the ladder crosses.
    """

    def __init__(self, family, name, sizes, make, *, ci=None, kind="count", limit="", expect=None, cwd=None,
                 timeout=None):
        self.family, self.name, self.sizes, self.make = family, name, list(sizes), make
        self.ci = list(ci) if ci is not None else list(sizes)
        self.kind, self.limit = kind, limit
        self.expect = expect or exits(0, 1, 2, 3)
        self.cwd, self.timeout = cwd, timeout
        self.signal_after = None
        self.rungs = []
        self.skipped = []
        self.problems = []

    def run(self, runner, tmp, ci=False, verbose=False, log=print):
        tmp = Path(tmp)
        sizes = self.ci if ci else self.sizes
        for i, s in enumerate(sizes):
            argv = self.make(s, tmp)
            label = f"{self.name}: {self.labels[s]}" if self.kind == "cases" else f"{self.name} @ {size_label(s)}"
            r = runner.run(label, argv, cwd=self.cwd, timeout=self.timeout, signal_after=self.signal_after)
            r.size = s
            problem = self._rung_problem(r, s)
            r.problem = f"{self.labels[s]}: {problem}" if problem and self.kind == "cases" else problem
            self.rungs.append(r)
            if verbose or problem:
                log(f"    {self.family}: {label}: {r.summary()} {r.wall:.2f} s {r.rss_kb / 1024:.1f} MB"
                    f"{'  ' + problem if problem else ''}")
            if r.hung and self.kind != "cases":
                self.skipped = sizes[i + 1:]
                break
        self.problems = [r.problem if self.kind == "cases" else f"{size_label(r.size)}: {r.problem}"
                         for r in self.rungs if r.problem]
        self.problems += self._growth_problems()
        return self

    def _rung_problem(self, r, size):
        if r.hung:
            if r.after_signal is not None:
                return f"no exit within {r.after_signal:.0f} s of signal {self.signal_after[0]}"
            return f"no exit after {r.wall:.0f} s"
        if r.code == 127 and r.stderr.startswith("spawn: "):
            return f"harness: could not start the process: {r.stderr.strip()[7:160]}"
        if r.crashed():
            tail = r.stderr.strip().splitlines()[-1:] if r.stderr.strip() else []
            why = _crash_reason(r.stderr)
            return f"crash: {r.summary()}{' (' + why + ')' if why else ''}{': ' + tail[0][:160] if tail and not why else ''}"
        if r.rss_kb > RUNG_RSS_KB:
            return f"peak RSS {r.rss_kb / 1024:.0f} MB above 1 GiB"
        if r.wall > TIMEOUT:
            return f"{r.wall:.1f} s"
        return self.expect(r, size)

    def _growth_problems(self):
        done = [r for r in self.rungs if not r.hung and not r.crashed()]
        out = []
        if self.kind == "count":
            for j in done:
                below = [i for i in done if i.size * 2 <= j.size]
                if not below:
                    continue
                i = max(below, key=lambda r: r.size)
                ratio = j.size / i.size
                allowed = ratio ** math.log2(GROWTH_PER_DOUBLING)
                gt = max(j.cpu, TIME_FLOOR) / max(i.cpu, TIME_FLOOR)
                gm = max(j.rss_kb, RSS_FLOOR_KB) / max(i.rss_kb, RSS_FLOOR_KB)
                j.growth = (round(gt / allowed, 3), round(gm / allowed, 3))
                if gt > allowed:
                    out.append(f"time grows x{gt:.1f} from {size_label(i.size)} to {size_label(j.size)} "
                               f"({i.cpu:.2f} -> {j.cpu:.2f} s CPU; allowed x{allowed:.1f})")
                if gm > allowed:
                    out.append(f"RSS grows x{gm:.1f} from {size_label(i.size)} to {size_label(j.size)} "
                               f"({i.rss_kb / 1024:.0f} -> {j.rss_kb / 1024:.0f} MB; allowed x{allowed:.1f})")
        elif self.kind == "value" and done:
            base = done[0]
            for j in done[1:]:
                if j.rss_kb > base.rss_kb * (1 + VALUE_RSS_TOLERANCE) + VALUE_RSS_SLACK_KB:
                    out.append(f"RSS at {size_label(j.size)} {j.rss_kb / 1024:.1f} MB vs {base.rss_kb / 1024:.1f} MB "
                               f"at {size_label(base.size)} (more than {VALUE_RSS_TOLERANCE:.0%} + 4 MB)")
                if j.cpu > base.cpu * VALUE_TIME_FACTOR + VALUE_TIME_SLACK:
                    out.append(f"CPU at {size_label(j.size)} {j.cpu:.2f} s vs {base.cpu:.2f} s at {size_label(base.size)}")
        return out

    @property
    def ok(self):
        return not self.problems

    def to_json(self):
        return {
            "family": self.family,
            "ladder": self.name,
            "kind": self.kind,
            "limit": self.limit,
            "ok": self.ok,
            "problems": self.problems,
            "skipped": [size_label(s) for s in self.skipped],
            "rungs": [dict(r.to_json(), size=r.size if self.kind != "cases" else self.labels[r.size],
                           size_label=size_label(r.size) if self.kind != "cases" else self.labels[r.size],
                           growth=getattr(r, "growth", None), note=getattr(r, "note", None),
                           after_signal=r.after_signal)
                      for r in self.rungs],
        }


def _crash_reason(stderr):
    for needle, why in [
        ("has overflowed its stack", "stack overflow"),
        ("memory allocation of", "allocation failure"),
        ("capacity overflow", "capacity overflow"),
        ("panicked at", "panic"),
    ]:
        if needle in stderr:
            return why
    return ""


def cases(family, name, items, *, expect=None, ci=None, cwd=None):
    """A `cases` ladder over `items`: (label, argv, expect or None) triples; the
    argv is computed when the rung runs (a callable of tmp) or given."""
    table = {i: it for i, it in enumerate(items)}

    def make(i, tmp):
        argv = table[i][1]
        return argv(tmp) if callable(argv) else argv

    def check(r, i):
        e = table[i][2] or expect or exits(0, 1, 2, 3)
        return e(r, i)

    lad = Ladder(family, name, range(len(items)), make, ci=ci if ci is not None else range(len(items)), kind="cases",
                 expect=check, cwd=cwd)
    lad.labels = {i: it[0] for i, it in table.items()}
    return lad


class Ctx:
    """What a family needs: the binary, the Python with the `symdim` package (or
    None), a scratch folder, the runner, the repository and the corpus folder; `keep`
    holds what must live until the family's ladders have run (open sockets)."""

    def __init__(self, symdim, python, tmp, runner, repo, corpus, ci):
        self.symdim, self.python, self.tmp, self.runner = symdim, python, Path(tmp), runner
        self.repo, self.corpus, self.ci = repo, corpus, ci
        self.keep = []
