"""Ctrl-C during a long call: the engine polls Python's signals while it runs
without the GIL, stops, and the call raises `KeyboardInterrupt` well before it
would have finished.

Each case runs in a child interpreter (a stray `KeyboardInterrupt` would end the
pytest session). The child sizes its model until one uninterrupted call takes at
least `MIN_CALL_S`, then sends itself SIGINT a quarter of the way into a second
call and reports how long that call lasted and what it raised."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

CHILD = r"""
import json, os, signal, sys, threading, time
# A process started in the background (`cmd &` in a script, as CI may run the
# suite) inherits SIGINT ignored, and Python then installs no handler: restore the
# one an interactive interpreter has.
signal.signal(signal.SIGINT, signal.default_int_handler)
sys.path.insert(0, sys.argv[1])
import models
import symdim

MIN_CALL_S = 1.0
calls = {
    "infer": lambda m: symdim.infer(m),
    "constraints": lambda m: symdim.constraints(m),
    "cost": lambda m: symdim.cost(m),
}
call = calls[sys.argv[2]]
layers = 16
while True:
    model = models.bert_like(layers=layers).SerializeToString()
    t0 = time.perf_counter()
    call(model)
    full = time.perf_counter() - t0
    if full >= MIN_CALL_S or layers >= 4096:
        break
    layers *= 2

timer = threading.Timer(full / 4, lambda: os.kill(os.getpid(), signal.SIGINT))
t0 = time.perf_counter()
timer.start()
try:
    call(model)
    raised = None
except KeyboardInterrupt:
    raised = "KeyboardInterrupt"
took = time.perf_counter() - t0
timer.join()
print(json.dumps({"layers": layers, "full": full, "took": took, "raised": raised}))
"""


@pytest.mark.parametrize("what", ["infer", "constraints", "cost"])
def test_ctrl_c_stops_a_long_call(what):
    tests = Path(__file__).resolve().parent
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(tests), what],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout.strip().splitlines()[-1])
    assert r["full"] >= 1.0, f"no model took a second to {what}: {r}"
    assert r["raised"] == "KeyboardInterrupt", r
    # Signalled at a quarter of the full call: it must stop well before the end.
    assert r["took"] < 0.75 * r["full"], r
