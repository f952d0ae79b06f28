"""The Python package's cases, each in its own interpreter (a crash there kills the
interpreter): a `Dim` of a long flat sum, binds and values out of range or negative, a
wrong `assume`, and Ctrl-C during a long call.

They run when an interpreter that imports `symdim` is found: `--python PY`, else this
one, else the venv `cargo test` makes (`target/python/venv`)."""

import json
import signal
import subprocess
from pathlib import Path

from .ladder import Ladder, cases, exits

# Each case prints one JSON line: the value, or the exception's class (and whether it
# is a ValueError / TypeError) and message.
PRELUDE = r"""
import json, sys, symdim
def report(f):
    try:
        v = f()
        out = {"value": repr(v)[:200]}
    except BaseException as e:
        out = {"exc": type(e).__name__, "value_error": isinstance(e, ValueError),
               "type_error": isinstance(e, TypeError), "msg": str(e)[:300]}
    print(json.dumps(out), flush=True)
MODEL = open(sys.argv[1], "rb").read()
"""


def find_python(explicit, repo):
    """An interpreter that imports symdim, or None, and why not."""
    candidates = [explicit] if explicit else ["python3", str(repo / "target" / "python" / "venv" / "bin" / "python")]
    for c in candidates:
        try:
            r = subprocess.run([c, "-c", "import symdim"], capture_output=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if r.returncode == 0:
            path = subprocess.run([c, "-c", "import sys; print(sys.executable)"], capture_output=True, text=True)
            return path.stdout.strip(), None
    return None, f"no interpreter imports symdim (tried {', '.join(candidates)})"


def _outcome(r):
    for line in reversed(r.stdout.decode(errors="replace").splitlines()):
        try:
            return json.loads(line)
        except ValueError:
            continue
    return None


def raises(*, value_error=False, type_error=False, must_mention=(), must_not=()):
    """An expectation on the case's outcome: it raised a ValueError (or TypeError),
    whose message mentions each of `must_mention` (any of a tuple) and none of
    `must_not`."""

    def check(r, _):
        if r.code != 0:
            return f"{r.summary()}: {r.stderr.strip()[-200:]}"
        o = _outcome(r)
        if o is None:
            return "no outcome printed"
        if "exc" not in o:
            return f"returned {o['value']}, expected an exception"
        if value_error and not o["value_error"]:
            return f"raised {o['exc']}: {o['msg']!r}, expected a ValueError"
        if type_error and not o["type_error"]:
            return f"raised {o['exc']}: {o['msg']!r}, expected a TypeError"
        for m in must_mention:
            alts = m if isinstance(m, tuple) else (m,)
            if not any(a in o["msg"] for a in alts):
                return f"raised {o['exc']}: {o['msg']!r}, which does not mention {' or '.join(alts)}"
        for m in must_not:
            if m in o["msg"]:
                return f"raised {o['exc']}: {o['msg']!r}"
        return None

    return check


def fam_python(ctx):
    if not ctx.python:
        return []
    py = ctx.python
    model = ctx.repo / "examples" / "attention.onnx"
    prog = ctx.tmp / "case.py"

    def code(body):
        def argv(tmp):
            prog.write_text(PRELUDE + body + "\n")
            return [py, prog, model]
        return argv

    out = []
    sums = {
        "Dim(a+a+...)": lambda n: f'report(lambda: symdim.Dim("+".join(["a"] * {n})))',
        "Dim(a0+a1+...)": lambda n: f'report(lambda: symdim.Dim("+".join(f"a{{i}}" for i in range({n}))))',
        "Dim(a*a*...)": lambda n: f'report(lambda: symdim.Dim("*".join(["a"] * {n})))',
    }
    for label, body in sums.items():
        distinct = "a0" in label
        sizes = [250, 500, 1000, 2000, 4000, 8000, 16000, 32000] if distinct else [1000 * 2**k for k in range(10)]
        out.append(Ladder("python", label, sizes, lambda n, tmp, body=body: code(body(n))(tmp),
                          ci=[1000, 4000] if distinct else [16000, 64000],
                          limit="MAX_NESTING = 200 counts parentheses only", expect=exits(0)))
    big = 2**63
    items = [
        ("bind={'batch': 2**63}", code(f"report(lambda: symdim.infer(MODEL, bind={{'batch': {big}}}))"),
         raises(value_error=True, must_mention=[("9223372036854775808", "2**63", "range", "too large")])),
        ("bind={'batch': 2**64}", code(f"report(lambda: symdim.infer(MODEL, bind={{'batch': {2**64}}}))"),
         raises(value_error=True)),
        ("bind={'batch': -3}", code("report(lambda: symdim.infer(MODEL, bind={'batch': -3}))"),
         raises(value_error=True)),
        ("bind=[('batch', 1), ('batch', 2)]",
         code("report(lambda: symdim.infer(MODEL, bind=[('batch', 1), ('batch', 2)]))"), raises(value_error=True)),
        ("Dim('batch').eval(batch=2**63)", code(f"report(lambda: symdim.Dim('batch').eval(batch={big}))"),
         raises(value_error=True, must_not=["must be an int"])),
        ("Dim('batch').eval(batch=-5)", code("report(lambda: symdim.Dim('batch').eval(batch=-5))"),
         raises(value_error=True)),
        ("Dim('2*batch').subs(batch=-5)", code("report(lambda: symdim.Dim('2*batch').subs(batch=-5))"),
         raises(value_error=True)),
        ("infer(assume=5)", code("report(lambda: symdim.infer(MODEL, assume=5))"),
         raises(type_error=True, must_mention=["assume"], must_not=["is not iterable"])),
        ("check(MODEL, {'batch': 2**63})", code(f"report(lambda: symdim.check(MODEL, {{'batch': {big}}}))"),
         raises(value_error=True)),
    ]
    out.append(cases("python", "binds, values, assume", items))

    # Ctrl-C: SIGINT one second into a long call; the interpreter must raise
    # KeyboardInterrupt within two seconds. A call that ends before the signal makes
    # the case moot (reported as such, not failed).
    long_calls = {
        "simplify of a 4,000-term sum": 'symdim.simplify("+".join(f"a{i}" for i in range(4000)))',
        "explain of a Concat of 8,000 inputs": "symdim.explain(CAT, 'y[0]')",
    }
    from .ladders import concat_model
    cat = ctx.tmp / "cat8000.onnx"
    cat.write_bytes(concat_model(8000))
    for label, call in long_calls.items():
        body = (f"CAT = open({str(cat)!r}, 'rb').read()\nimport time\nprint('start', flush=True)\n"
                f"t = time.monotonic()\ntry:\n    {call}\n    print('done', time.monotonic() - t, flush=True)\n"
                "except KeyboardInterrupt:\n    print('interrupted', time.monotonic() - t, flush=True)\n")

        def make(_, tmp, body=body):
            return code(body)(tmp)

        lad = Ladder("python", f"Ctrl-C during {label}", [0], make, kind="cases", expect=_ctrl_c)
        lad.labels = {0: "SIGINT after 1 s"}
        lad.signal_after = [int(signal.SIGINT), 1.0]
        out.append(lad)
    return out


def _ctrl_c(r, _):
    text = r.stdout.decode(errors="replace")
    if "done" in text and r.after_signal is None:
        r.note = "moot: the call ended before the signal"
        return None
    if r.after_signal is None:
        return f"{r.summary()} before the signal"
    if r.after_signal > 2.0:
        return f"ran on {r.after_signal:.1f} s after SIGINT"
    if "interrupted" not in text:
        return f"{r.summary()} {r.after_signal:.1f} s after SIGINT without KeyboardInterrupt"
    return None


FAMILIES = {"python": fam_python}

__all__ = ["FAMILIES", "find_python", "Path"]
