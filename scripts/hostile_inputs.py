#!/usr/bin/env python3
"""Run the symdim CLI (and the Python package) on hostile inputs, as ladders of growing
sizes, and give a verdict per ladder.

Each rung is one process under a 4 GiB address-space limit and a 20 s timeout; the
harness records its exit status, the signal that killed it, wall and CPU time and peak
RSS. A ladder fails when a rung crashes (a signal, or an exit status the CLI never
gives), hangs, passes 1 GiB, or does not do what the ladder expects (an exit status, a
diagnostic naming a limit), or when its cost grows faster than its size (`count`
ladders: more than 3x per doubling above a floor of 50 ms and 64 MB) or at all with a
dim's value (`value` ladders: peak RSS more than 10% + 4 MB above the first rung's). The
criteria are spelled out in `hostile/ladder.py`; the families and the limits each
crosses in `scripts/README.md`.

    cargo build --release
    python3 scripts/hostile_inputs.py                     # every family, full ladders
    python3 scripts/hostile_inputs.py --ci                # the smallest rungs past each limit
    python3 scripts/hostile_inputs.py --family flat-sum --family squaring -v
    python3 scripts/hostile_inputs.py --json /tmp/hostile.json --markdown /tmp/hostile.md

Standard library only (Python 3.9+ on Linux). The Python package's family runs when an
interpreter that imports `symdim` is found (`--python`). Exit status 1 when a verdict
fails.
"""

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile import cases, corpus, ladders, python_side  # noqa: E402
from hostile.ladder import Ctx, size_label  # noqa: E402
from hostile.runner import MAX_MEMORY, TIMEOUT, Runner  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
OPEN_FILE = Path(__file__).resolve().parent / "hostile" / "open.txt"
FAMILIES = {**cases.FAMILIES, **ladders.FAMILIES, **python_side.FAMILIES, **corpus.FAMILIES}


def default_binary():
    """The release binary (the limits are in release terms: a debug build is 10-30x
    slower and has larger stack frames), else the debug one."""
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    for profile in ("release", "debug"):
        p = target / profile / "symdim"
        if p.exists():
            return p
    return target / "release" / "symdim"


def open_ladders(path=OPEN_FILE):
    """The ladders known to fail, `(family, ladder) -> why`, from `hostile/open.txt`."""
    out = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        family, ladder, why = (part.strip() for part in line.split(" | ", 2))
        out[(family, ladder)] = why
    return out


def default_corpus():
    for up in (REPO.parent, REPO.parent.parent):
        if (up / "shared" / "corpus").is_dir():
            return up / "shared" / "corpus"
    return REPO.parent / "shared" / "corpus"


def summarize(all_ladders, floor_kb):
    rows = []
    by_model = {}
    for lad in all_ladders:
        if lad.family == "corpus-values":
            by_model.setdefault(lad.model, []).append(lad)
            continue
        rows.append((lad.family, lad.name, [lad]))
    for model, lads in by_model.items():
        rows.append(("corpus-values", f"{model} ({len(lads)} ladders)", lads))
    w = max([len(r[1]) for r in rows] + [20])
    w = min(w, 64)
    print()
    print(f"{'family':<16} {'ladder':<{w}} {'rungs':>6} {'max s':>6} {'max MB':>7}  verdict")
    failed = 0
    for fam, name, lads in rows:
        rungs = [r for lad in lads for r in lad.rungs]
        if not rungs:
            continue
        skipped = sum(len(lad.skipped) for lad in lads)
        problems = [p for lad in lads for p in lad.problems]
        bad = sum(not lad.ok for lad in lads)
        failed += bad
        ran = f"{len(rungs)}" + (f"+{skipped}" if skipped else "")
        verdict = "ok" if not problems else (f"FAIL ({bad} ladders) " if len(lads) > 1 else "FAIL ") + problems[0]
        notes = [getattr(r, "note", None) for r in rungs if getattr(r, "note", None)]
        if notes and not problems:
            verdict += f" ({notes[0]})"
        print(f"{fam:<16} {name[:w]:<{w}} {ran:>6} {max(r.wall for r in rungs):>6.2f} "
              f"{max(r.rss_kb for r in rungs) / 1024:>7.1f}  {verdict[:200]}")
    return failed


def markdown(all_ladders):
    """Per ladder, each rung's size, wall time and peak RSS (the figures of the audit)."""
    lines = ["| family | ladder | verdict | rungs: size wall s / RSS MB (x: crash, T: timeout) |",
             "| --- | --- | --- | --- |"]
    for lad in all_ladders:
        if lad.kind == "cases" or lad.family == "corpus-values":
            continue
        cells = []
        for r in lad.rungs:
            mark = "T" if r.hung else ("x" if r.crashed() else "")
            cells.append(f"{size_label(r.size)}: {r.wall:.2f}/{r.rss_kb / 1024:.0f}{mark}")
        cells += [f"{size_label(s)}: skipped" for s in lad.skipped]
        verdict = "ok" if lad.ok else "FAIL: " + lad.problems[0].replace("|", "\\|")
        lines.append(f"| {lad.family} | {lad.name.replace('|', '/')} | {verdict[:160]} | {'; '.join(cells)} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--symdim", help="the binary (default: target/release/symdim, else target/debug/symdim)")
    ap.add_argument("--ci", action="store_true", help="only the smallest rungs past each limit")
    ap.add_argument("--family", action="append", choices=sorted(FAMILIES), help="run only these (repeatable)")
    ap.add_argument("--skip", action="append", default=[], choices=sorted(FAMILIES), help="skip these")
    ap.add_argument("--python", help="an interpreter that imports symdim (default: python3, then target/python/venv)")
    ap.add_argument("--no-python", action="store_true", help="skip the Python package's family")
    ap.add_argument("--corpus", default=str(default_corpus()),
                    help="the corpus folder (default ../shared/corpus beside the repo or its worktree folder; "
                         "without one, the repo's examples)")
    ap.add_argument("--json", help="write every rung's figures here")
    ap.add_argument("--markdown", help="write the per-rung table of every ladder here")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every rung")
    args = ap.parse_args()

    symdim = Path(args.symdim or default_binary()).resolve()
    if not symdim.exists():
        sys.exit(f"no binary at {symdim} (cargo build, or --symdim)")
    names = [n for n in (args.family or list(FAMILIES)) if n not in args.skip]
    python, why = (None, "--no-python") if args.no_python else (None, None)
    if "python" in names and not args.no_python:
        python, why = python_side.find_python(args.python, REPO)
    corpus_dir = Path(args.corpus)
    runner = Runner()
    t0 = time.monotonic()
    print(f"symdim: {symdim}; mode: {'ci' if args.ci else 'full'}; limits per run: {TIMEOUT:.0f} s, "
          f"{MAX_MEMORY >> 30} GiB address space; RSS floor (spawner) {runner.floor_kb / 1024:.1f} MB")
    print(f"python: {python or 'skipped (' + (why or 'not asked') + ')'}; corpus: "
          f"{corpus_dir if corpus_dir.is_dir() else 'none (the repo examples)'}", flush=True)
    known_open = open_ladders() if args.ci else {}
    not_run = []
    all_ladders = []
    try:
        for name in names:
            if name == "python" and not python:
                continue
            t = time.monotonic()
            with tempfile.TemporaryDirectory(prefix=f"symdim-{name}-") as tmp:
                ctx = Ctx(str(symdim), python, tmp, runner, REPO, corpus_dir if corpus_dir.is_dir() else None, args.ci)
                lads = FAMILIES[name](ctx)
                not_run += [(lad, known_open[(lad.family, lad.name)]) for lad in lads
                            if (lad.family, lad.name) in known_open]
                lads = [lad for lad in lads if (lad.family, lad.name) not in known_open]
                for lad in lads:
                    lad.run(runner, tmp, ci=args.ci, verbose=args.verbose)
                for k in ctx.keep:
                    k.close()
            all_ladders += lads
            bad = sum(not lad.ok for lad in lads)
            print(f"  {name}: {len(lads)} ladders, {sum(len(l.rungs) for l in lads)} rungs, "
                  f"{time.monotonic() - t:.0f} s, {'ok' if not bad else f'{bad} FAIL'}", flush=True)
    finally:
        runner.close()
    failed = summarize(all_ladders, runner.floor_kb)
    cv = [lad for lad in all_ladders if lad.family == "corpus-values"]
    ratio = corpus.rss_ratio(cv) if cv else (0, None)
    if ratio[1]:
        print(f"\ncorpus: largest peak RSS of infer at 2^62 over 2^10: x{ratio[0]:.2f} ({ratio[1]}); "
              "target x1.10 (one input run twice varies by up to ~15% around 15 MB)")
    if not_run:
        print(f"\nnot run in --ci, known to fail (scripts/hostile/open.txt): {len(not_run)} ladders")
        for lad, why in not_run:
            print(f"  {lad.family}: {lad.name}: {why}")
    total = time.monotonic() - t0
    print(f"\n{len(all_ladders)} ladders, {sum(len(l.rungs) for l in all_ladders)} rungs, {failed} failed; {total:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "symdim": str(symdim),
            "mode": "ci" if args.ci else "full",
            "timeout_s": TIMEOUT,
            "max_memory": MAX_MEMORY,
            "rss_floor_kb": runner.floor_kb,
            "python": python,
            "seconds": round(total, 1),
            "corpus_rss_ratio": {"ratio": round(ratio[0], 3), "ladder": ratio[1]},
            "ladders": [lad.to_json() for lad in all_ladders],
        }, indent=1))
    if args.markdown:
        Path(args.markdown).write_text(markdown(all_ladders))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
