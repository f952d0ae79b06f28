#!/usr/bin/env python3
"""Run the symdim CLI on families of hostile inputs and count crashes, hangs and
wrong exits.

Each family builds its inputs in a scratch folder and runs `symdim` on each (one
process per input, 20 s timeout, 4 GiB of address space), recording the exit status,
whether it was killed by a signal (a crash) or the timeout (a hang; the process group
is killed), the wall time, the peak RSS (GNU time's `%M`) and stderr. The expectation
per family:

| family | inputs | expected |
| --- | --- | --- |
| deep-xml | OpenVINO .xml nested 100..100,000 levels, in 7 tag styles | exit 0..2, never a signal |
| deep-json | oneDNN JSON nested 100..1,000,000 levels | exit 2 |
| special-model | the model path is a FIFO, socket, device, directory, dangling or looping symlink | exit 2, one line on stderr, nothing on stdout |
| special-bin | an IR's `.bin` is one of those | exit 2, one line on stderr |
| external-data | ONNX external data missing, short, outside the folder, absolute, a directory, a device, a FIFO, a socket, bad offset/length | exit 1 and an error naming the tensor (exit 0 for the good ones) |
| dash-o | `-o` onto a directory, a missing folder, /dev/full, /dev/null, a FIFO, symlinks, the input itself, from IR and oneDNN models, external data elsewhere | exit 2 with one line and no report, or exit 0 with a model that loads; no temporary file left |
| arguments | random and crafted `--bind` / `--assume` texts on four commands | exit 2 with one line and no report, or a report (exit 0, 1 or 3) |
| declared-rank | Add of two inputs of declared rank 1,000..20,000 | under 5 s |
| concat-fan-in | Concat of 1,000..60,000 copies of one input before an Add | under 5 s |
| squaring | `N**(2**k)` from k = 8..64 squarings, inferred, constrained, bound and checked | exit 0 or 1 under 5 s |
| symbolic-concat | Concat of 1,000..20,000 inputs with distinct symbolic dims | exit 0 under 5 s |
| power-expand | Expand to `[N**k]`, k = 8..128, inferred and constrained | under 5 s |
| dim-param | costly or undefined dim texts (`(a+b+c+d)**64`, 50 binomials, 150 nested floordivs, `a / 0`) declared and simplified | under 20 s; a zero divisor is exit 2 in `simplify` |
| int64 | constant dims past `2**63 - 1` (Concat, Reshape) | exit 1 with an error naming the value |

    cargo build --release
    python3 scripts/hostile_inputs.py [--symdim target/release/symdim] [--family NAME]...

Needs Python 3.11+ and nothing else (the ONNX files are written by hand).
"""

import argparse
import os
import random
import resource
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TIMEOUT = 20.0
# Address space of each symdim run: the machine is shared, and a binary that reads
# /dev/zero or /dev/urandom as a model grows without end (it then aborts on
# allocation, counted as a crash).
MAX_MEMORY = 4 << 30

# ---------- a minimal protobuf writer for ONNX ----------


def _varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def f_int(field, v):
    return _varint(field << 3) + _varint(v)


def f_bytes(field, b):
    if isinstance(b, str):
        b = b.encode()
    return _varint((field << 3) | 2) + _varint(len(b)) + b


def value_info(name, elem, dims):
    tensor = f_int(1, elem)
    if dims is not None:
        shape = b"".join(
            f_bytes(1, f_int(1, d) if isinstance(d, int) else (b"" if d == "?" else f_bytes(2, d))) for d in dims
        )
        tensor += f_bytes(2, shape)
    return f_bytes(1, name) + f_bytes(2, f_bytes(1, tensor))


def node(name, op, inputs, outputs, attrs=b""):
    return b"".join(f_bytes(1, i) for i in inputs) + b"".join(f_bytes(2, o) for o in outputs) + f_bytes(3, name) + f_bytes(4, op) + attrs


def model(nodes, inits, inputs, outputs, value_infos=()):
    g = b"".join(f_bytes(1, n) for n in nodes) + f_bytes(2, "g")
    g += b"".join(f_bytes(5, t) for t in inits)
    g += b"".join(f_bytes(11, v) for v in inputs) + b"".join(f_bytes(12, v) for v in outputs)
    g += b"".join(f_bytes(13, v) for v in value_infos)
    return f_int(1, 8) + f_bytes(8, f_bytes(1, "") + f_int(2, 17)) + f_bytes(7, g)


# The node attribute `axis = 0` (an INT attribute).
AXIS0 = f_bytes(5, f_bytes(1, "axis") + f_int(3, 0) + f_int(20, 2))


def ext_tensor(name, dims, entries):
    t = b"".join(f_int(1, d) for d in dims) + f_int(2, 7) + f_bytes(8, name)
    t += b"".join(f_bytes(13, f_bytes(1, k) + f_bytes(2, v)) for k, v in entries)
    return t + f_int(14, 1)


def int64s(values):
    return b"".join(struct.pack("<q", v) for v in values)


# ---------- running ----------


class Result:
    def __init__(self, family, label, code, signal, hung, secs, rss_kb, stdout, stderr):
        self.family, self.label = family, label
        self.code, self.signal, self.hung = code, signal, hung
        self.secs, self.rss_kb = secs, rss_kb
        self.stdout, self.stderr = stdout, stderr
        self.problem = None


def run(symdim, family, label, args, cwd=None):
    """Run symdim under GNU time (for the peak RSS of symdim alone: a child forked
    from this Python process would inherit its high-water mark), killing the process
    group after the timeout."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, tempfile.NamedTemporaryFile("r") as rss:
        t0 = time.monotonic()
        p = subprocess.Popen(
            ["/usr/bin/time", "-f", "%M", "-o", rss.name, symdim] + [str(a) for a in args],
            stdout=out,
            stderr=err,
            cwd=cwd,
            process_group=0,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (MAX_MEMORY, MAX_MEMORY)),
        )
        hung = False
        try:
            p.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, 9)
            p.wait()
            hung = True
        secs = time.monotonic() - t0
        out.seek(0)
        err.seek(0)
        timing = rss.read().splitlines()
        sig = None
        for line in timing:
            if line.startswith("Command terminated by signal"):
                sig = int(line.split()[-1])
        code = None if (hung or sig is not None) else p.returncode
        try:
            rss_kb = int(timing[-1])
        except (IndexError, ValueError):
            rss_kb = 0
        stderr = err.read().decode(errors="replace")
        # GNU time adds this line to stderr when the command exits non-zero.
        stderr = "\n".join(l for l in stderr.splitlines() if not l.startswith("Command exited with non-zero status"))
        if stderr:
            stderr += "\n"
        return Result(family, label, code, None if hung else sig, hung, secs, rss_kb, out.read(), stderr)


def one_line_usage(r):
    """Exit 2, one line on stderr, nothing on stdout."""
    if r.code != 2:
        return f"exit {r.code}, expected 2"
    if len(r.stderr.splitlines()) != 1:
        return f"stderr has {len(r.stderr.splitlines())} lines"
    if r.stdout:
        return "a report on stdout"
    return None


# ---------- families ----------


def fam_deep_xml(symdim, tmp):
    styles = {
        "plain": ("<a>", "</a>"),
        "quoted-gt": ('<a x="/>" y=\'>\'>', "</a>"),
        "comment-pi-cdata": ("<!-- <b> --><?pi <c>?><a><![CDATA[<d>]]>", "</a>"),
        "newline": ("<a\n>", "</a\n>"),
        "unterminated-quote": ('<a x="', ""),
        "self-closing": ("<a/>", ""),
        "unclosed": ("<a>", ""),
    }
    for depth in [100, 200, 254, 255, 256, 257, 300, 1000, 5000, 12000, 15000, 50000, 100000]:
        for style, (o, c) in styles.items():
            xml = f'<?xml version="1.0"?><net name="x" version="11"><layers>{o * depth}{c * depth}</layers><edges/></net>'
            p = tmp / f"deep-{style}-{depth}.xml"
            p.write_text(xml)
            for cmd in (["infer"], ["constraints"]):
                r = run(symdim, "deep-xml", f"{style} {depth} {cmd[0]}", cmd + [p])
                if r.code not in (0, 1, 2):
                    r.problem = f"exit {r.code}"
                yield r


def fam_deep_json(symdim, tmp):
    for depth in [100, 127, 128, 129, 1000, 100000, 1000000]:
        for style, (o, c) in {"arrays": ("[", "]"), "objects": ('{"a":', "}"), "graph": ('{"graph":[', "]}")}.items():
            p = tmp / f"deep-{style}-{depth}.json"
            p.write_text('{"graph": ' + o * depth + "1" + c * depth + "}")
            r = run(symdim, "deep-json", f"{style} {depth}", ["infer", p])
            if r.code != 2:
                r.problem = f"exit {r.code}, expected 2"
            yield r


def specials(tmp, stem):
    """(label, path) of things that are not regular files."""
    out = []
    fifo = tmp / f"{stem}.fifo"
    os.mkfifo(fifo)
    out.append(("fifo", fifo))
    sock_path = tmp / f"{stem}.sock"
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(str(sock_path))
    out.append(("socket", sock_path))
    folder = tmp / f"{stem}.dir"
    folder.mkdir()
    out.append(("directory", folder))
    for dev in ["/dev/zero", "/dev/null", "/dev/full", "/dev/urandom"]:
        if os.path.exists(dev):
            link = tmp / f"{stem}.{Path(dev).name}"
            os.symlink(dev, link)
            out.append((f"symlink to {dev}", link))
    dangling = tmp / f"{stem}.dangling"
    os.symlink(tmp / "nothing-here", dangling)
    out.append(("dangling symlink", dangling))
    loop = tmp / f"{stem}.loop"
    os.symlink(loop, loop)
    out.append(("symlink loop", loop))
    link_fifo = tmp / f"{stem}.fifolink"
    os.symlink(fifo, link_fifo)
    out.append(("symlink to a fifo", link_fifo))
    return out, s


def fam_special_model(symdim, tmp):
    paths, sock = specials(tmp, "model")
    try:
        commands = [
            lambda p: ["infer", p],
            lambda p: ["constraints", p],
            lambda p: ["check", p, "--bind", "N=2"],
            lambda p: ["explain", p, "y[0]"],
            lambda p: ["infer", p, "-o", tmp / "out.onnx"],
        ]
        for label, path in paths:
            for cmd in commands:
                args = cmd(path)
                r = run(symdim, "special-model", f"{label}: {' '.join(map(str, args[:1] + args[2:]))}", args)
                r.problem = one_line_usage(r)
                yield r
    finally:
        sock.close()


IR_WITH_CONST = """<?xml version="1.0"?>
<net name="n" version="11"><layers>
<layer id="0" name="c" type="Const" version="opset1"><data element_type="i64" shape="1" offset="0" size="8"/><output><port id="0" precision="I64"><dim>1</dim></port></output></layer>
<layer id="1" name="r" type="Result" version="opset1"><input><port id="0"><dim>1</dim></port></input></layer>
</layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges></net>"""


def fam_special_bin(symdim, tmp):
    paths, sock = specials(tmp, "weights")
    try:
        for i, (label, path) in enumerate(paths):
            d = tmp / f"ir{i}"
            d.mkdir()
            (d / "m.xml").write_text(IR_WITH_CONST)
            os.symlink(path, d / "m.bin")
            r = run(symdim, "special-bin", label, ["infer", d / "m.xml"])
            r.problem = one_line_usage(r)
            yield r
    finally:
        sock.close()


def reshape_model(entries):
    return model(
        [node("r", "Reshape", ["x", "shape"], ["y"])],
        [ext_tensor("shape", [2], entries)],
        [value_info("x", 1, ["N", 8])],
        [value_info("y", 1, None)],
    )


def fam_external(symdim, tmp):
    root = tmp / "ext"
    d = root / "model"
    d.mkdir(parents=True)
    good = int64s([-1, 4])
    (d / "shape.bin").write_bytes(good)
    (d / "padded.bin").write_bytes(b"\0" * 8 + good)
    (d / "short.bin").write_bytes(good[:8])
    (d / "empty.bin").write_bytes(b"")
    (root / "outside.bin").write_bytes(good)
    (d / "folder.bin").mkdir()
    os.mkfifo(d / "fifo.bin")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(d / "sock.bin"))
    os.symlink("/dev/zero", d / "zero.bin")
    os.symlink(root / "outside.bin", d / "outlink.bin")
    os.symlink("shape.bin", d / "inlink.bin")
    os.symlink(d / "nothing", d / "dangling.bin")
    ok = [
        [("location", "shape.bin")],
        [("location", "./shape.bin")],
        [("location", "inlink.bin")],
        [("location", "padded.bin"), ("offset", "8")],
        [("location", "padded.bin"), ("offset", "8"), ("length", "16")],
    ]
    bad = [[("location", loc)] for loc in [
        "nope.bin", "short.bin", "empty.bin", "../outside.bin", "/etc/hostname", str(root / "outside.bin"),
        "folder.bin", "fifo.bin", "sock.bin", "zero.bin", "outlink.bin", "dangling.bin", "", "sub\\x.bin", "..",
        ".", "shape.bin/", "a/../../outside.bin",
    ]] + [
        [("location", "shape.bin"), ("offset", "8")],
        [("location", "shape.bin"), ("offset", "-8")],
        [("location", "shape.bin"), ("offset", "18446744073709551615")],
        [("location", "shape.bin"), ("offset", "x")],
        [("location", "shape.bin"), ("length", "8")],
        [("location", "shape.bin"), ("length", "99999999999999999999")],
        [("offset", "0")],
    ]
    try:
        for i, entries in enumerate(ok + bad):
            p = d / f"m{i}.onnx"
            p.write_bytes(reshape_model(entries))
            r = run(symdim, "external-data", repr(entries), ["infer", p])
            if i < len(ok):
                if r.code != 0:
                    r.problem = f"exit {r.code}, expected 0: {r.stdout[-300:]!r}"
            elif r.code != 1 or b"initializer `shape`: its data cannot be read" not in r.stdout:
                r.problem = f"exit {r.code}, expected 1 with an error naming `shape`"
            yield r
    finally:
        sock.close()


def fam_dash_o(symdim, tmp):
    d = tmp / "dash-o"
    d.mkdir()
    src = REPO / "examples" / "attention.onnx"
    m = d / "m.onnx"
    shutil.copyfile(src, m)
    ir = REPO / "tests" / "fixtures" / "openvino" / "tiny_reshape" / "model.xml"
    dnn = REPO / "tests" / "fixtures" / "onednn" / "static_reshape.json"
    os.mkfifo(d / "fifo.onnx")
    (d / "folder").mkdir()
    os.symlink(d / "folder", d / "dirlink.onnx")
    os.symlink(d / "nothing" / "x.onnx", d / "dangling.onnx")
    os.symlink(m, d / "mlink.onnx")
    ext_home, ext_away = d / "ext", d / "away"
    ext_home.mkdir()
    ext_away.mkdir()
    (ext_home / "shape.bin").write_bytes(int64s([-1, 4]))
    (ext_home / "e.onnx").write_bytes(reshape_model([("location", "shape.bin")]))
    refused = [
        ("directory", m, d / "folder"),
        ("missing folder", m, d / "no" / "such" / "out.onnx"),
        ("/dev/full", m, Path("/dev/full")),
        ("/dev/null", m, Path("/dev/null")),
        ("fifo", m, d / "fifo.onnx"),
        ("symlink to a directory", m, d / "dirlink.onnx"),
        ("dangling symlink", m, d / "dangling.onnx"),
        ("IR model", ir, d / "ir.onnx"),
        ("oneDNN model", dnn, d / "dnn.onnx"),
        ("external data elsewhere", ext_home / "e.onnx", ext_away / "e.onnx"),
        ("over the external data file", ext_home / "e.onnx", ext_home / "shape.bin"),
        ("empty name", m, Path("")),
    ]
    for label, model_path, out in refused:
        before = sorted(p.name for p in d.rglob("*"))
        r = run(symdim, "dash-o", label, ["infer", model_path, "-o", out])
        r.problem = one_line_usage(r)
        after = sorted(p.name for p in d.rglob("*"))
        if not r.problem and after != before:
            r.problem = f"files changed: {sorted(set(after) ^ set(before))}"
        yield r
    written = [
        ("new file", m, d / "new.onnx"),
        ("onto the input", m, m),
        ("through a symlink to the input", m, d / "mlink.onnx"),
        ("relative path", Path("m.onnx"), Path("rel.onnx")),
        ("external data, same folder", ext_home / "e.onnx", ext_home / "e2.onnx"),
        ("again onto the input", m, m),
    ]
    for label, model_path, out in written:
        r = run(symdim, "dash-o", label, ["infer", model_path, "-o", out], cwd=d)
        target = out if out.is_absolute() else d / out
        if r.code != 0:
            r.problem = f"exit {r.code}: {r.stderr.strip()[:200]}"
        else:
            check = run(symdim, "dash-o", label + " (reload)", ["infer", target])
            if check.code != 0:
                r.problem = f"the written model does not load: {check.stderr.strip()[:200]}"
        left = [p.name for p in d.rglob(".*")]
        if left:
            r.problem = f"temporary files left: {left}"
        if not (d / "mlink.onnx").is_symlink():
            r.problem = "the symlink to the input was replaced by a file"
        yield r


def fam_arguments(symdim, tmp, count=400):
    m = REPO / "examples" / "attention.onnx"
    rng = random.Random(24)
    crafted = [
        "=3", "batch+1=3", "batch=3", "`batch`=3", "typo=3", "batch", "batch=x", "batch=1.5", "batch=-1",
        "batch=0", "batch==3", "batch=99999999999999999999", " batch = 3 ", "`ba\\`tch`=3", "min(batch, 2)=3",
        "sequence=7", "batch=9223372036854775807", "batch=-9223372036854775808", "=", "",
    ]
    facts = ["batch >= 2", "N >=", "sequence % 8 == 0", "batch / 0 == 1", "typo <= 3", "batch >= 2 and", "",
             "batch == sequence", "`batch` < 100", "(((batch)))>=1", "batch >= 99999999999999999999999"]
    alphabet = "abcenqstu=+-*/%`.()0123456789 \\_<>!"
    texts = crafted + ["".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 16))) for _ in range(count)]
    commands = [["infer", m], ["constraints", m], ["check", m, "--bind", "sequence=7"], ["explain", m, "y[0]"]]
    for i, t in enumerate(texts):
        cmd = commands[i % len(commands)]
        flag = "--bind" if i % 3 else "--assume"
        text = t if flag == "--bind" or i < len(crafted) else rng.choice(facts + [t])
        r = run(symdim, "arguments", f"{cmd[0]} {flag} {text!r}", cmd + [flag, text])
        if r.code == 2:
            r.problem = one_line_usage(r)
        elif r.code not in (0, 1, 3) or not r.stdout:
            r.problem = f"exit {r.code} without a report"
        yield r


def fam_declared_rank(symdim, tmp):
    for rank in [1000, 1024, 1025, 5000, 20000]:
        p = tmp / f"rank{rank}.onnx"
        dims_a = [f"a{i}" for i in range(rank)]
        dims_b = [f"b{i}" for i in range(rank)]
        p.write_bytes(model([node("add", "Add", ["x", "z"], ["y"])], [], [value_info("x", 1, dims_a), value_info("z", 1, dims_b)], [value_info("y", 1, None)]))
        r = run(symdim, "declared-rank", f"rank {rank}", ["infer", p])
        if r.code != 0 or r.secs > 5:
            r.problem = f"exit {r.code}, {r.secs:.1f} s"
        yield r


def fam_concat(symdim, tmp):
    for n in [1000, 10000, 60000]:
        p = tmp / f"concat{n}.onnx"
        p.write_bytes(model(
            [node("cat", "Concat", ["x"] * n, ["c"], AXIS0), node("add", "Add", ["c", "z"], ["y"])],
            [], [value_info("x", 1, ["N", 4]), value_info("z", 1, ["M", 4])], [value_info("y", 1, None)],
        ))
        r = run(symdim, "concat-fan-in", f"{n} inputs", ["infer", p])
        if r.code != 0 or r.secs > 5:
            r.problem = f"exit {r.code}, {r.secs:.1f} s"
        yield r


def int64_init(name, dims, values):
    """An int64 initializer with raw data."""
    return b"".join(f_int(1, d) for d in dims) + f_int(2, 7) + f_bytes(8, name) + f_bytes(9, int64s(values))


def fam_squaring(symdim, tmp):
    """Shape -> Gather -> Mul(x, x) -> Unsqueeze -> ConstantOfShape, k times: the dim
    is N**(2**k)."""
    for k in [8, 16, 31, 40, 64]:
        nodes, cur = [], "x"
        for i in range(k):
            nodes += [
                node(f"S{i}", "Shape", [cur], [f"s{i}"]),
                node(f"G{i}", "Gather", [f"s{i}", "zero"], [f"g{i}"], AXIS0),
                node(f"M{i}", "Mul", [f"g{i}", f"g{i}"], [f"m{i}"]),
                node(f"U{i}", "Unsqueeze", [f"m{i}", "ax"], [f"u{i}"]),
                node(f"C{i}", "ConstantOfShape", [f"u{i}"], [f"c{i}"]),
            ]
            cur = f"c{i}"
        p = tmp / f"squaring{k}.onnx"
        p.write_bytes(model(nodes, [int64_init("zero", [], [0]), int64_init("ax", [1], [0])],
                            [value_info("x", 1, ["N"])], [value_info(cur, 1, None)]))
        for args in (["infer", p], ["constraints", p], ["infer", p, "--bind", "N=3"], ["check", p, "--bind", "N=3"]):
            r = run(symdim, "squaring", f"k={k} {args[0]} {' '.join(map(str, args[2:]))}", args)
            if r.code not in (0, 1) or r.secs > 5:
                r.problem = f"exit {r.code}, {r.secs:.1f} s"
            yield r


def fam_symbolic_concat(symdim, tmp):
    """Concat of n inputs with distinct symbolic dims (partial sums)."""
    for n in [1000, 5000, 10000, 20000]:
        p = tmp / f"symcat{n}.onnx"
        p.write_bytes(model([node("cat", "Concat", [f"x{i}" for i in range(n)], ["y"], AXIS0)], [],
                            [value_info(f"x{i}", 1, [f"D{i}"]) for i in range(n)], [value_info("y", 1, None)]))
        for cmd in ("infer", "constraints"):
            r = run(symdim, "symbolic-concat", f"{n} inputs {cmd}", [cmd, p])
            if r.code != 0 or r.secs > 5:
                r.problem = f"exit {r.code}, {r.secs:.1f} s"
            yield r


def fam_power_expand(symdim, tmp):
    """Expand to [N**k]: the contract solves N**k >= 0 style conditions."""
    for k in [8, 20, 64, 128]:
        nodes = [node("S", "Shape", ["x"], ["s"])]
        cur = "s"
        for i in range(k - 1):
            nodes.append(node(f"M{i}", "Mul", [cur, "s"], [f"p{i}"]))
            cur = f"p{i}"
        nodes.append(node("E", "Expand", ["y", cur], ["out"]))
        p = tmp / f"pow{k}.onnx"
        p.write_bytes(model(nodes, [], [value_info("x", 1, ["N"]), value_info("y", 1, [1])], [value_info("out", 1, None)]))
        for cmd in ("infer", "constraints"):
            r = run(symdim, "power-expand", f"N**{k} {cmd}", [cmd, p])
            if r.code not in (0, 1) or r.secs > 5:
                r.problem = f"exit {r.code}, {r.secs:.1f} s"
            yield r


def fam_dim_param(symdim, tmp):
    """Declared dims whose text is a costly or undefined expression, and the same
    texts given to `simplify`."""
    nested = "N"
    for i in range(150):
        nested = f"floordiv({nested}, K{i} + 1)"
    texts = {
        "power 64": "(a + b + c + d)**64",
        "50 binomials": "*".join(f"(D{i} + 1)" for i in range(50)),
        "150 nested floordivs": nested,
        "a / 0": "a / 0",
        "mod(a, 0)": "mod(a, 0)",
        "floordiv(a, b - b)": "floordiv(a, b - b)",
        "huge constant": "99999999999999999999999999999999*N",
    }
    for label, text in texts.items():
        p = tmp / "param.onnx"
        p.write_bytes(model([node("id", "Identity", ["x"], ["y"])], [], [value_info("x", 1, [text])], [value_info("y", 1, None)]))
        r = run(symdim, "dim-param", f"{label} infer", ["infer", p])
        if r.code not in (0, 1) or r.secs > 20:
            r.problem = f"exit {r.code}, {r.secs:.1f} s"
        yield r
        r = run(symdim, "dim-param", f"{label} simplify", ["simplify", text])
        if r.code not in (0, 2) or r.secs > 20 or ("/ 0" in label or ", 0)" in label or "b - b" in label) and r.code != 2:
            r.problem = f"exit {r.code}, {r.secs:.1f} s"
        yield r


def fam_int64(symdim, tmp):
    """Constant dims past INT64_MAX must be errors, never printed."""
    big = 2**63 - 1
    cases = {
        "concat of two 2**63-1": model([node("c", "Concat", ["a", "b"], ["y"], AXIS0)], [],
                                       [value_info("a", 1, [big]), value_info("b", 1, [big])], [value_info("y", 1, None)]),
        "reshape 2**32 x 2**32 to -1": model([node("r", "Reshape", ["a", "t"], ["y"])], [int64_init("t", [1], [-1])],
                                             [value_info("a", 1, [2**32, 2**32])], [value_info("y", 1, None)]),
    }
    for label, data in cases.items():
        p = tmp / "big.onnx"
        p.write_bytes(data)
        for cmd in ("infer", "check"):
            r = run(symdim, "int64", f"{label} {cmd}", [cmd, p])
            if r.code != 1 or b"18446744073709551" not in r.stdout:
                r.problem = f"exit {r.code}, expected 1 with the value named"
            yield r



FAMILIES = {
    "deep-xml": fam_deep_xml,
    "deep-json": fam_deep_json,
    "special-model": fam_special_model,
    "special-bin": fam_special_bin,
    "external-data": fam_external,
    "dash-o": fam_dash_o,
    "arguments": fam_arguments,
    "declared-rank": fam_declared_rank,
    "concat-fan-in": fam_concat,
    "squaring": fam_squaring,
    "symbolic-concat": fam_symbolic_concat,
    "power-expand": fam_power_expand,
    "dim-param": fam_dim_param,
    "int64": fam_int64,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--symdim", default=str(REPO / "target" / "release" / "symdim"))
    ap.add_argument("--family", action="append", choices=sorted(FAMILIES), help="run only these (repeatable)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every input")
    args = ap.parse_args()
    symdim = str(Path(args.symdim).resolve())
    print(f"{'family':<15} {'inputs':>6} {'crashes':>7} {'hangs':>5} {'wrong':>5} {'max s':>6} {'peak RSS':>9}  worst case")
    failed = 0
    for name in args.family or list(FAMILIES):
        with tempfile.TemporaryDirectory(prefix=f"symdim-{name}-") as tmp:
            results = []
            for r in FAMILIES[name](symdim, Path(tmp)):
                if r.signal is not None:
                    r.problem = f"killed by signal {r.signal}"
                elif r.hung:
                    r.problem = f"no exit after {TIMEOUT:.0f} s"
                results.append(r)
                if args.verbose or r.problem:
                    print(f"  {name}: {r.label}: exit {r.code} {r.secs:.2f} s {r.rss_kb} KB {r.problem or ''} {r.stderr.strip()[:160]!r}")
            worst = max(results, key=lambda r: r.rss_kb)
            crashes = sum(r.signal is not None for r in results)
            hangs = sum(r.hung for r in results)
            wrong = sum(r.problem is not None for r in results) - crashes - hangs
            failed += crashes + hangs + wrong
            print(
                f"{name:<15} {len(results):>6} {crashes:>7} {hangs:>5} {wrong:>5} {max(r.secs for r in results):>6.2f} "
                f"{worst.rss_kb / 1024:>6.1f} MB  {worst.label}",
                flush=True,
            )
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
