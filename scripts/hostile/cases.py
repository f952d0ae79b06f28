"""Families of inputs that have no size: special files, external data, `-o` targets,
argument texts, int64 overflow, usage errors of `--bind`, negative dims from op rules.
Each is one `cases` ladder (see ladder.py)."""

import os
import random
import shutil
import socket
from pathlib import Path

from . import build as B
from .ladder import all_of, cases, exits
from .runner import one_line_usage


def usage(r, _):
    return one_line_usage(r)


def specials(ctx, stem):
    """(label, path) of things that are not regular files."""
    tmp = ctx.tmp
    out = []
    fifo = tmp / f"{stem}.fifo"
    os.mkfifo(fifo)
    out.append(("fifo", fifo))
    sock_path = tmp / f"{stem}.sock"
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(str(sock_path))
    ctx.keep.append(s)
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
    return out


def fam_special_model(ctx):
    """The model path is a FIFO, socket, device, directory, dangling or looping
    symlink: exit 2, one line on stderr, nothing on stdout."""
    sd, tmp = ctx.symdim, ctx.tmp
    commands = [
        lambda p: ["infer", p],
        lambda p: ["constraints", p],
        lambda p: ["check", p, "--bind", "N=2"],
        lambda p: ["explain", p, "y[0]"],
        lambda p: ["infer", p, "-o", tmp / "out.onnx"],
    ]
    items = []
    for label, path in specials(ctx, "model"):
        for cmd in commands:
            args = cmd(path)
            items.append((f"{label}: {' '.join(map(str, args[:1] + args[2:]))}", [sd] + args, usage))
    return [cases("special-model", "model path", items)]


IR_WITH_CONST = """<?xml version="1.0"?>
<net name="n" version="11"><layers>
<layer id="0" name="c" type="Const" version="opset1"><data element_type="i64" shape="1" offset="0" size="8"/><output><port id="0" precision="I64"><dim>1</dim></port></output></layer>
<layer id="1" name="r" type="Result" version="opset1"><input><port id="0"><dim>1</dim></port></input></layer>
</layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges></net>"""


def fam_special_bin(ctx):
    """An IR's `.bin` is a special file: exit 2, one line on stderr."""
    items = []
    for i, (label, path) in enumerate(specials(ctx, "weights")):
        d = ctx.tmp / f"ir{i}"
        d.mkdir()
        (d / "m.xml").write_text(IR_WITH_CONST)
        os.symlink(path, d / "m.bin")
        items.append((label, [ctx.symdim, "infer", d / "m.xml"], usage))
    return [cases("special-bin", "weights path", items)]


def reshape_model(entries):
    return B.model(
        [B.node("r", "Reshape", ["x", "shape"], ["y"])],
        [B.ext_tensor("shape", [2], entries)],
        [B.value_info("x", B.FLOAT, ["N", 8])],
        [B.value_info("y", B.FLOAT, None)],
    )


def fam_external(ctx):
    """ONNX external data missing, short, outside the folder, special, bad
    offset/length: exit 1 with an error naming the tensor (exit 0 for good ones)."""
    root = ctx.tmp / "ext"
    d = root / "model"
    d.mkdir(parents=True)
    good = B.int64s([-1, 4])
    (d / "shape.bin").write_bytes(good)
    (d / "padded.bin").write_bytes(b"\0" * 8 + good)
    (d / "short.bin").write_bytes(good[:8])
    (d / "empty.bin").write_bytes(b"")
    (root / "outside.bin").write_bytes(good)
    (d / "folder.bin").mkdir()
    os.mkfifo(d / "fifo.bin")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(d / "sock.bin"))
    ctx.keep.append(sock)
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

    def names_shape(r, _):
        if r.code != 1 or b"initializer `shape`: its data cannot be read" not in r.stdout:
            return f"{r.summary()}, expected 1 with an error naming `shape`"
        return None

    items = []
    for i, entries in enumerate(ok + bad):
        p = d / f"m{i}.onnx"
        p.write_bytes(reshape_model(entries))
        items.append((repr(entries), [ctx.symdim, "infer", p], exits(0) if i < len(ok) else names_shape))
    return [cases("external-data", "external data", items)]


def fam_dash_o(ctx):
    """`-o` onto a directory, a missing folder, /dev/full, a FIFO, symlinks, the input
    itself, from IR and oneDNN models: exit 2 with one line and no report, or exit 0
    with a model that loads; no temporary file left."""
    sd, repo = ctx.symdim, ctx.repo
    d = ctx.tmp / "dash-o"
    d.mkdir()
    m = d / "m.onnx"
    shutil.copyfile(repo / "examples" / "attention.onnx", m)
    ir = repo / "tests" / "fixtures" / "openvino" / "tiny_reshape" / "model.xml"
    dnn = repo / "tests" / "fixtures" / "onednn" / "static_reshape.json"
    os.mkfifo(d / "fifo.onnx")
    (d / "folder").mkdir()
    os.symlink(d / "folder", d / "dirlink.onnx")
    os.symlink(d / "nothing" / "x.onnx", d / "dangling.onnx")
    os.symlink(m, d / "mlink.onnx")
    ext_home, ext_away = d / "ext", d / "away"
    ext_home.mkdir()
    ext_away.mkdir()
    (ext_home / "shape.bin").write_bytes(B.int64s([-1, 4]))
    (ext_home / "e.onnx").write_bytes(reshape_model([("location", "shape.bin")]))
    state = {}

    def snapshot():
        return sorted(p.name for p in d.rglob("*"))

    def refused_argv(model_path, out):
        def argv(_tmp):
            state["before"] = snapshot()
            return [sd, "infer", model_path, "-o", out]
        return argv

    def refused_check(r, _):
        p = one_line_usage(r)
        after = snapshot()
        if not p and after != state["before"]:
            p = f"files changed: {sorted(set(after) ^ set(state['before']))}"
        return p

    def written_check(out):
        def check(r, _):
            target = out if out.is_absolute() else d / out
            if r.code != 0:
                return f"{r.summary()}: {r.stderr.strip()[:200]}"
            again = ctx.runner.run("reload", [sd, "infer", target])
            if again.code != 0:
                return f"the written model does not load: {again.stderr.strip()[:200]}"
            left = [p.name for p in d.rglob(".*")]
            if left:
                return f"temporary files left: {left}"
            if not (d / "mlink.onnx").is_symlink():
                return "the symlink to the input was replaced by a file"
            return None
        return check

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
    written = [
        ("new file", m, d / "new.onnx"),
        ("onto the input", m, m),
        ("through a symlink to the input", m, d / "mlink.onnx"),
        ("relative path", Path("m.onnx"), Path("rel.onnx")),
        ("external data, same folder", ext_home / "e.onnx", ext_home / "e2.onnx"),
        ("again onto the input", m, m),
    ]
    items = [(label, refused_argv(mp, out), refused_check) for label, mp, out in refused]
    items += [(label, [sd, "infer", mp, "-o", out], written_check(out)) for label, mp, out in written]
    return [cases("dash-o", "-o targets", items, cwd=d)]


def fam_arguments(ctx, count=400):
    """Random and crafted `--bind` / `--assume` texts on four commands: exit 2 with
    one line and no report, or a report (exit 0, 1 or 3)."""
    m = ctx.repo / "examples" / "attention.onnx"
    rng = random.Random(24)
    crafted = [
        "=3", "batch+1=3", "batch=3", "`batch`=3", "typo=3", "batch", "batch=x", "batch=1.5", "batch=-1",
        "batch=0", "batch==3", "batch=99999999999999999999", " batch = 3 ", "`ba\\`tch`=3", "min(batch, 2)=3",
        "sequence=7", "batch=9223372036854775807", "batch=-9223372036854775808", "=", "",
    ]
    facts = ["batch >= 2", "N >=", "sequence % 8 == 0", "batch / 0 == 1", "typo <= 3", "batch >= 2 and", "",
             "batch == sequence", "`batch` < 100", "(((batch)))>=1", "batch >= 99999999999999999999999"]
    alphabet = "abcenqstu=+-*/%`.()0123456789 \\_<>!"
    count = 40 if ctx.ci else count
    texts = crafted + ["".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 16))) for _ in range(count)]
    commands = [["infer", m], ["constraints", m], ["check", m, "--bind", "sequence=7"], ["explain", m, "y[0]"]]

    def check(r, _):
        if r.code == 2:
            return one_line_usage(r)
        if r.code not in (0, 1, 3) or not r.stdout:
            return f"{r.summary()} without a report"
        return None

    items = []
    for i, t in enumerate(texts):
        cmd = commands[i % len(commands)]
        flag = "--bind" if i % 3 else "--assume"
        text = t if flag == "--bind" or i < len(crafted) else rng.choice(facts + [t])
        items.append((f"{cmd[0]} {flag} {text!r}", [ctx.symdim] + cmd + [flag, text], check))
    return [cases("arguments", "bind and assume texts", items)]


def fam_int64(ctx):
    """Constant dims past 2**63 - 1 are errors naming the value, never printed."""
    big = 2**63 - 1
    models = {
        "concat of two 2**63-1": B.model([B.node("c", "Concat", ["a", "b"], ["y"], B.AXIS0)], [],
                                         [B.value_info("a", B.FLOAT, [big]), B.value_info("b", B.FLOAT, [big])],
                                         [B.value_info("y", B.FLOAT, None)]),
        "reshape 2**32 x 2**32 to -1": B.model([B.node("r", "Reshape", ["a", "t"], ["y"])],
                                               [B.int64_init("t", [1], [-1])],
                                               [B.value_info("a", B.FLOAT, [2**32, 2**32])],
                                               [B.value_info("y", B.FLOAT, None)]),
    }

    def names_value(r, _):
        if r.code != 1 or b"18446744073709551" not in r.stdout:
            return f"{r.summary()}, expected 1 with the value named"
        return None

    items = []
    for i, (label, data) in enumerate(models.items()):
        p = ctx.tmp / f"big{i}.onnx"
        p.write_bytes(data)
        for cmd in ("infer", "check"):
            items.append((f"{label} {cmd}", [ctx.symdim, cmd, p], names_value))
    return [cases("int64", "past int64", items)]


def fam_bind_usage(ctx):
    """A symbol bound twice to different values, or to a negative value, is a usage
    error: exit 2 with one line before any inference, on every command."""
    m = ctx.repo / "examples" / "attention.onnx"
    binds = {
        "batch=1 and batch=2": ["--bind", "batch=1", "--bind", "batch=2"],
        "batch=-3": ["--bind", "batch=-3"],
        "batch=-1 and sequence=4": ["--bind", "batch=-1", "--bind", "sequence=4"],
        "batch=2**63": ["--bind", f"batch={2**63}"],
    }
    commands = [["infer", m], ["check", m], ["constraints", m], ["explain", m, "y[0]"]]
    items = []
    for label, b in binds.items():
        for cmd in commands:
            items.append((f"{cmd[0]} {label}", [ctx.symdim] + cmd + b, usage))
    same = ["--bind", "batch=2", "--bind", "batch=2"]
    items.append(("check batch=2 twice", [ctx.symdim, "check", m] + same, exits(0, 1, 2, 3)))
    return [cases("bind-usage", "contradicting and negative binds", items)]


NEG_RULES = """op com.example:Neg
  output dtype=in0 shape=[0 - in0[0]]
"""
NEG_CONST_RULES = """op com.example:Neg
  output dtype=in0 shape=[in0[0] - 5]
"""


def fam_negative_rule(ctx):
    """An op rule whose dim is negative for every value (`0 - in0[0]`), or for the
    model's (`in0[0] - 5` at 3), is an error diagnostic (exit 1) as built-in ops make
    it; `-o` never writes a negative dim."""
    tmp = ctx.tmp
    (tmp / "neg.rules").write_text(NEG_RULES)
    (tmp / "negc.rules").write_text(NEG_CONST_RULES)

    def mk(name, dim):
        p = tmp / name
        p.write_bytes(B.model([B.node("n", "Neg", ["x"], ["y"], domain="com.example")], [],
                              [B.value_info("x", B.FLOAT, [dim])], [B.value_info("y", B.FLOAT, None)],
                              domains=[("com.example", 1)]))
        return p

    sym, const = mk("negs.onnx", "N"), mk("negc.onnx", 3)

    def error_diag(r, _):
        if r.code != 1:
            return f"{r.summary()} and {'no' if b'error' not in r.stdout else 'a'} diagnostic, expected exit 1 with an error"
        if b"error" not in r.stdout:
            return "no error diagnostic"
        return None

    def no_negative_written(out):
        def check(r, _):
            p = error_diag(r, _)
            if out.exists() and b"-N" in out.read_bytes():
                return (p + "; " if p else "") + "the written model holds the dim `-N`"
            return p
        return check

    out = tmp / "neg-out.onnx"
    items = [
        ("infer 0 - in0[0]", [ctx.symdim, "infer", sym, "--op-rules", tmp / "neg.rules"], error_diag),
        ("infer --format json 0 - in0[0]",
         [ctx.symdim, "infer", "--format", "json", sym, "--op-rules", tmp / "neg.rules"], error_diag),
        ("infer -o 0 - in0[0]", [ctx.symdim, "infer", sym, "--op-rules", tmp / "neg.rules", "-o", out],
         no_negative_written(out)),
        ("infer in0[0] - 5 at 3", [ctx.symdim, "infer", const, "--op-rules", tmp / "negc.rules"], error_diag),
        ("check 0 - in0[0] at N=4",
         [ctx.symdim, "check", sym, "--op-rules", tmp / "neg.rules", "--bind", "N=4"], exits(1)),
    ]
    return [cases("negative-rule", "negative dims from op rules", items)]


FAMILIES = {
    "special-model": fam_special_model,
    "special-bin": fam_special_bin,
    "external-data": fam_external,
    "dash-o": fam_dash_o,
    "arguments": fam_arguments,
    "int64": fam_int64,
    "bind-usage": fam_bind_usage,
    "negative-rule": fam_negative_rule,
}

__all__ = ["FAMILIES", "all_of"]
