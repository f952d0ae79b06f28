"""Running one process under the harness's limits and measuring it.

Processes are started by a small spawn server (a second Python interpreter started with
`-S` before anything is generated), not by the harness itself: Linux counts the
address space a process had before `exec` in the child's peak RSS (`ru_maxrss`), so a
child forked from the harness, which holds the generated inputs, would report the
harness's size. The server's own size (about 10 MB) is the floor of every RSS figure;
it is measured at start (`Runner.floor_kb`).

Every run gets `RLIMIT_AS` = `MAX_MEMORY`, no core file, its own process group (killed
whole at the timeout), stdin from /dev/null unless told, and stdout and stderr to files.
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time

# The per-run wall-clock limit: past it the process group is killed (a hang).
TIMEOUT = 20.0
# The address space of each run: the machine is shared, and an input that makes the
# engine grow without end then aborts on allocation (a crash) instead of swapping.
MAX_MEMORY = 4 << 30
# Of a longer stdout, the first and the last this many bytes are kept (the text
# report ends with its diagnostics).
STDOUT_KEPT = 2 << 20

_SERVER = r"""
import json, os, resource, select, sys, time
def run(q):
    out = os.open(q["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    err = os.open(q["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    inp = os.open(q.get("stdin") or "/dev/null", os.O_RDONLY)
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.setpgid(0, 0)
            os.dup2(inp, 0); os.dup2(out, 1); os.dup2(err, 2)
            if q.get("cwd"):
                os.chdir(q["cwd"])
            m = q["max_memory"]
            resource.setrlimit(resource.RLIMIT_AS, (m, m))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            os.execve(q["argv"][0], q["argv"], q["env"])
        except BaseException as e:
            os.write(2, ("spawn: %s\n" % e).encode())
        os._exit(127)
    for fd in (out, err, inp):
        os.close(fd)
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass
    try:
        pfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pfd = None
    deadline = t0 + q["timeout"]
    sig = q.get("signal_after")
    sent = None
    hung = False
    while True:
        wpid, st, ru = os.wait4(pid, os.WNOHANG)
        if wpid:
            break
        now = time.monotonic()
        if sig and sent is None and now - t0 >= sig[1]:
            os.kill(pid, sig[0])
            sent = now
        if now >= deadline:
            os.killpg(pid, 9)
            hung = True
            wpid, st, ru = os.wait4(pid, 0)
            break
        nxt = deadline
        if sig and sent is None:
            nxt = min(nxt, t0 + sig[1])
        wait = max(0.0, nxt - now)
        if pfd is not None:
            select.select([pfd], [], [], wait)
        else:
            time.sleep(min(wait, 0.002))
    end = time.monotonic()
    if pfd is not None:
        os.close(pfd)
    return {
        "code": os.WEXITSTATUS(st) if os.WIFEXITED(st) else None,
        "signal": os.WTERMSIG(st) if os.WIFSIGNALED(st) and not hung else None,
        "hung": hung,
        "wall": end - t0,
        "cpu": ru.ru_utime + ru.ru_stime,
        "rss_kb": ru.ru_maxrss,
        "after_signal": None if sent is None else end - sent,
    }
for line in sys.stdin:
    sys.stdout.write(json.dumps(run(json.loads(line))) + "\n")
    sys.stdout.flush()
"""


class Result:
    """One run: exit status (`code`, None when killed), the signal that killed it,
    whether it hit the timeout (`hung`), wall and CPU (user + system) seconds, peak RSS
    in KB, stdout (bytes), stderr (text), and the harness's `problem` with it."""

    def __init__(self, label, argv, reply, stdout, stderr):
        self.label, self.argv = label, argv
        self.code, self.signal, self.hung = reply["code"], reply["signal"], reply["hung"]
        self.wall, self.cpu, self.rss_kb = reply["wall"], reply["cpu"], reply["rss_kb"]
        self.after_signal = reply.get("after_signal")
        self.stdout, self.stderr = stdout, stderr
        self.problem = None

    def crashed(self):
        """Killed by a signal, or an exit status the CLI never gives (a Rust panic is
        101; the CLI's statuses are 0..3)."""
        return self.signal is not None or (self.code is not None and self.code not in (0, 1, 2, 3))

    def summary(self):
        if self.hung:
            return f"no exit after {self.wall:.0f} s"
        if self.signal is not None:
            return f"killed by signal {self.signal} ({_signame(self.signal)})"
        return f"exit {self.code}"

    def to_json(self):
        return {
            "label": self.label,
            "code": self.code,
            "signal": self.signal,
            "hung": self.hung,
            "wall_s": round(self.wall, 4),
            "cpu_s": round(self.cpu, 4),
            "rss_kb": self.rss_kb,
            "stdout_bytes": getattr(self, "stdout_size", len(self.stdout)),
            "problem": self.problem,
            "stderr_head": self.stderr[:300],
        }


def _signame(s):
    try:
        return signal.Signals(s).name
    except ValueError:
        return "?"


class Runner:
    """The spawn server and the scratch files of its runs."""

    def __init__(self, max_memory=MAX_MEMORY, timeout=TIMEOUT):
        self.max_memory, self.timeout = max_memory, timeout
        self.proc = subprocess.Popen(
            [sys.executable, "-S", "-c", _SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self.scratch = tempfile.TemporaryDirectory(prefix="symdim-hostile-run-")
        self.runs = 0
        self.floor_kb = self.run("floor", ["/bin/true"]).rss_kb

    def run(self, label, argv, cwd=None, stdin=None, timeout=None, env=None, signal_after=None):
        """Run `argv` (argv[0] a path) and return its Result."""
        argv = [str(a) for a in argv]
        out = os.path.join(self.scratch.name, "stdout")
        err = os.path.join(self.scratch.name, "stderr")
        q = {
            "argv": argv,
            "cwd": str(cwd) if cwd else None,
            "stdin": str(stdin) if stdin else None,
            "stdout": out,
            "stderr": err,
            "timeout": timeout or self.timeout,
            "max_memory": self.max_memory,
            "env": env if env is not None else dict(os.environ),
            "signal_after": signal_after,
        }
        self.proc.stdin.write(json.dumps(q) + "\n")
        self.proc.stdin.flush()
        reply = json.loads(self.proc.stdout.readline())
        with open(out, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(0)
            if size <= 2 * STDOUT_KEPT:
                stdout = f.read()
            else:
                stdout = f.read(STDOUT_KEPT) + b"\n[...]\n"
                f.seek(size - STDOUT_KEPT)
                stdout += f.read()
        with open(err, "rb") as f:
            stderr = f.read().decode(errors="replace")
        self.runs += 1
        r = Result(label, argv, reply, stdout, stderr)
        r.stdout_size = size
        return r

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()
        self.scratch.cleanup()


def one_line_usage(r):
    """None when `r` is a usage error: exit 2, one line on stderr, nothing on stdout."""
    if r.code != 2:
        return f"{r.summary()}, expected exit 2"
    if len(r.stderr.splitlines()) != 1:
        return f"stderr has {len(r.stderr.splitlines())} lines"
    if r.stdout:
        return "a report on stdout"
    return None
