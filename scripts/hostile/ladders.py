"""The sized families: each is a list of ladders whose rungs double (or grow by 4x)
from small to well past the engine's limit they cross (named in `limit`)."""

from . import build as B
from .ladder import V_CI, V_LADDER, Ladder, all_of, exits
from .runner import one_line_usage

OK = exits(0, 1, 2, 3)
REPORT = exits(0, 1, 3)


def doubling(lo, hi, factor=2):
    out, s = [], lo
    while s <= hi:
        out.append(s)
        s *= factor
    return out


def usage_or(*codes):
    """Exit with one of `codes`, or a usage error (exit 2, one line, no report)."""

    def check(r, _):
        if r.code == 2:
            return one_line_usage(r)
        return None if r.code in codes else f"{r.summary()}, expected exit {'/'.join(map(str, codes))} or 2"

    return check


def says(text):
    """The report (stdout) names `text`."""
    needle = text.encode()

    def check(r, _):
        return None if needle in r.stdout else f"no diagnostic naming `{text}`"

    return check


def _file(tmp, name, data):
    p = tmp / name
    if isinstance(data, str):
        p.write_text(data)
    else:
        p.write_bytes(data)
    return p


def param_model(tmp, text, name="param.onnx"):
    """A model whose input dim is the dim text `text` (dim_param)."""
    return _file(tmp, name, B.identity_model([text]))


# ---------- inherited families ----------

XML_STYLES = {
    "plain": ("<a>", "</a>"),
    "quoted-gt": ('<a x="/>" y=\'>\'>', "</a>"),
    "comment-pi-cdata": ("<!-- <b> --><?pi <c>?><a><![CDATA[<d>]]>", "</a>"),
    "newline": ("<a\n>", "</a\n>"),
    "unterminated-quote": ('<a x="', ""),
    "self-closing": ("<a/>", ""),
    "unclosed": ("<a>", ""),
}


def fam_deep_xml(ctx):
    """OpenVINO .xml nested 100..102,400 levels in 7 tag styles: exit 0..2."""
    out = []
    for style, (o, c) in XML_STYLES.items():
        for cmd in ("infer", "constraints"):
            def make(depth, tmp, o=o, c=c, cmd=cmd, style=style):
                p = tmp / f"deep-{style}-{depth}.xml"
                p.write_text(f'<?xml version="1.0"?><net name="x" version="11"><layers>{o * depth}{c * depth}'
                             f"</layers><edges/></net>")
                return [ctx.symdim, cmd, p]
            ci = [128, 512, 102400] if style == "plain" and cmd == "infer" else [512]
            out.append(Ladder("deep-xml", f"{style} {cmd}", doubling(100, 102400), make, ci=ci,
                              limit="max_xml_depth = 256 (openvino/model.rs)", expect=exits(0, 1, 2)))
    return out


def fam_deep_json(ctx):
    """oneDNN JSON nested 100..1,638,400 levels: exit 2."""
    out = []
    for style, (o, c) in {"arrays": ("[", "]"), "objects": ('{"a":', "}"), "graph": ('{"graph":[', "]}")}.items():
        def make(depth, tmp, o=o, c=c, style=style):
            p = tmp / f"deep-{style}-{depth}.json"
            p.write_text('{"graph": ' + o * depth + "1" + c * depth + "}")
            return [ctx.symdim, "infer", p]
        out.append(Ladder("deep-json", style, doubling(100, 1638400), make, ci=[100, 400, 102400],
                          limit="serde_json's recursion limit 128", expect=exits(2)))
    return out


def fam_arg_length(ctx):
    """`--bind` values and `--assume` constants of 16..131,000 digits (the kernel's
    limit of one argument is 128 KiB)."""
    m = ctx.repo / "examples" / "attention.onnx"
    sizes = doubling(16, 65536) + [131000]

    def bind(n, tmp):
        return [ctx.symdim, "infer", m, "--bind", "batch=" + "9" * n]

    def assume(n, tmp):
        return [ctx.symdim, "constraints", m, "--assume", "batch <= " + "9" * n]

    def simplify(n, tmp):
        return [ctx.symdim, "simplify", "7" * n + "*a + " + "3" * n]

    return [
        Ladder("arg-length", "--bind digits", sizes, bind, ci=[1024, 131000], limit="i64 binds",
               expect=usage_or(0, 1, 3)),
        Ladder("arg-length", "--assume digits", sizes, assume, ci=[1024, 131000], expect=usage_or(0, 1, 3)),
        Ladder("arg-length", "simplify digits", doubling(16, 32768) + [65000], simplify, ci=[1024, 65000],
               expect=exits(0, 2)),
    ]


def fam_declared_rank(ctx):
    """Add of two inputs of declared rank 256..32,768: exit 0; past MAX_RANK a warning
    naming the rank limit."""

    def make(rank, tmp):
        p = tmp / f"rank{rank}.onnx"
        p.write_bytes(B.model([B.node("add", "Add", ["x", "z"], ["y"])], [],
                              [B.value_info("x", B.FLOAT, [f"a{i}" for i in range(rank)]),
                               B.value_info("z", B.FLOAT, [f"b{i}" for i in range(rank)])],
                              [B.value_info("y", B.FLOAT, None)]))
        return [ctx.symdim, "infer", p]

    def expect(r, rank):
        return exits(0)(r, rank) or (says("rank limit")(r, rank) if rank > 1024 else None)

    return [Ladder("declared-rank", "Add of declared ranks", [256, 512, 1024, 1025, 2048, 4096, 8192, 16384, 32768],
                   make, ci=[512, 1025, 4096], limit="MAX_RANK = 1024 (graph/mod.rs)", expect=expect)]


def fam_concat(ctx):
    """Concat of 1,000..128,000 copies of one input before an Add."""

    def make(n, tmp):
        p = tmp / f"concat{n}.onnx"
        p.write_bytes(B.model(
            [B.node("cat", "Concat", ["x"] * n, ["c"], B.AXIS0), B.node("add", "Add", ["c", "z"], ["y"])],
            [], [B.value_info("x", B.FLOAT, ["N", 4]), B.value_info("z", B.FLOAT, ["M", 4])],
            [B.value_info("y", B.FLOAT, None)],
        ))
        return [ctx.symdim, "infer", p]

    return [Ladder("concat-fan-in", "Concat of one input n times", doubling(1000, 128000), make, ci=[4000, 16000],
                   expect=exits(0))]


def squaring_model(k, x_dims, tail=None):
    """Shape -> Gather -> Mul(g, g) -> Unsqueeze -> ConstantOfShape, k times: the dim
    is N**(2**k). `tail` adds a consumer that makes a condition on it: `add` (a
    broadcast with an input [M]), `sub` (the dim minus 1000 as a shape, which must not
    be negative), `reshape` (to [-1, 2], a divisibility)."""
    nodes, cur = [], "x"
    for i in range(k):
        nodes += [
            B.node(f"S{i}", "Shape", [cur], [f"s{i}"]),
            B.node(f"G{i}", "Gather", [f"s{i}", "zero"], [f"g{i}"], B.AXIS0),
            B.node(f"M{i}", "Mul", [f"g{i}", f"g{i}"], [f"m{i}"]),
            B.node(f"U{i}", "Unsqueeze", [f"m{i}", "ax"], [f"u{i}"]),
            B.node(f"C{i}", "ConstantOfShape", [f"u{i}"], [f"c{i}"]),
        ]
        cur = f"c{i}"
    inits = [B.int64_init("zero", [], [0]), B.int64_init("ax", [1], [0])]
    inputs = [B.value_info("x", B.FLOAT, x_dims)]
    if tail == "add":
        nodes.append(B.node("A", "Add", [cur, "z"], ["y"]))
        inputs.append(B.value_info("z", B.FLOAT, ["M"]))
        cur = "y"
    elif tail == "sub":
        nodes += [B.node("SS", "Shape", [cur], ["ss"]), B.node("SB", "Sub", ["ss", "k"], ["d"]),
                  B.node("CC", "ConstantOfShape", ["d"], ["y"])]
        inits.append(B.int64_init("k", [1], [1000]))
        cur = "y"
    elif tail == "reshape":
        nodes.append(B.node("R", "Reshape", [cur, "sh"], ["y"]))
        inits.append(B.int64_init("sh", [2], [-1, 2]))
        cur = "y"
    return B.model(nodes, inits, inputs, [B.value_info(cur, B.FLOAT, None)])


def fam_squaring(ctx):
    """The squaring chain, k = 2..64 steps, alone and before a consumer that makes a
    condition on `N**(2**k)` (the contract's solver evaluates it): exit 0 or 1; cost
    linear in k."""
    sizes = [2, 4, 6, 8, 10, 11, 12, 13, 14, 16, 20, 24, 32, 48, 64]
    out = []
    variants = [
        ("infer", ["N"], None, ["infer"]),
        ("constraints", ["N"], None, ["constraints"]),
        ("infer --bind N=3", ["N"], None, ["infer", "--bind", "N=3"]),
        ("check --bind N=3", ["N"], None, ["check", "--bind", "N=3"]),
        ("then Add [M]: infer", ["N"], "add", ["infer"]),
        ("then Add [M]: constraints", ["N"], "add", ["constraints"]),
        ("then Add [M]: check --bind N=3 --bind M=1", ["N"], "add", ["check", "--bind", "N=3", "--bind", "M=1"]),
        ("then Add [M], x: [3]: infer", [3], "add", ["infer"]),
        ("then Add [M], x: [3]: constraints", [3], "add", ["constraints"]),
        ("then Sub 1000: infer", ["N"], "sub", ["infer"]),
        ("then Sub 1000: constraints", ["N"], "sub", ["constraints"]),
        ("then Reshape [-1, 2]: constraints", ["N"], "reshape", ["constraints"]),
        ("x: [3]: infer", [3], None, ["infer"]),
    ]
    for label, dims, tail, cmd in variants:
        def make(k, tmp, dims=dims, tail=tail, cmd=cmd):
            p = tmp / f"squaring{k}.onnx"
            p.write_bytes(squaring_model(k, dims, tail))
            return [ctx.symdim, cmd[0], p] + cmd[1:]
        out.append(Ladder("squaring", label, sizes, make, ci=[6, 13, 32],
                          limit="MAX_EXPONENT = 4096, MAX_TERMS = 256 (algebra/poly.rs); BOUND_BITS = 256",
                          expect=exits(0, 1, 3)))
    return out


def concat_model(n):
    return B.model([B.node("cat", "Concat", [f"x{i}" for i in range(n)], ["y"], B.AXIS0)], [],
                   [B.value_info(f"x{i}", B.FLOAT, [f"D{i}"]) for i in range(n)], [B.value_info("y", B.FLOAT, None)])


def fam_symbolic_concat(ctx):
    """Concat of 250..16,000 inputs with distinct symbolic dims, inferred, constrained
    and explained."""
    out = []
    for label, cmd, ci in [("infer", ["infer"], [2000, 8000]), ("constraints", ["constraints"], [2000, 8000]),
                           ("explain y[0]", ["explain", None, "y[0]"], [1000, 4000]),
                           ("explain y", ["explain", None, "y"], [1000, 4000])]:
        def make(n, tmp, cmd=cmd):
            p = tmp / f"symcat{n}.onnx"
            p.write_bytes(concat_model(n))
            return [ctx.symdim, cmd[0], p] + cmd[2:]
        out.append(Ladder("symbolic-concat", label, doubling(250, 16000), make, ci=ci, expect=exits(0)))
    return out


def fam_power_expand(ctx):
    """Expand to [N**k], k = 4..8,192 (Mul nodes), inferred and constrained."""
    out = []
    for cmd in ("infer", "constraints"):
        def make(k, tmp, cmd=cmd):
            nodes = [B.node("S", "Shape", ["x"], ["s"])]
            cur = "s"
            for i in range(k - 1):
                nodes.append(B.node(f"M{i}", "Mul", [cur, "s"], [f"p{i}"]))
                cur = f"p{i}"
            nodes.append(B.node("E", "Expand", ["y", cur], ["out"]))
            p = tmp / f"pow{k}.onnx"
            p.write_bytes(B.model(nodes, [], [B.value_info("x", B.FLOAT, ["N"]), B.value_info("y", B.FLOAT, [1])],
                                  [B.value_info("out", B.FLOAT, None)]))
            return [ctx.symdim, cmd, p]
        out.append(Ladder("power-expand", cmd, doubling(4, 8192), make, ci=[2048, 8192],
                          limit="MAX_EXPONENT = 4096 (algebra/poly.rs)", expect=exits(0, 1)))
    return out


# The kernel's limit on one argument (MAX_ARG_STRLEN, with its final NUL).
ARG_MAX_BYTES = 131072


def _text_ladders(ctx, family, name, text_of, sizes, ci, limit, dim_param=True, assume=True):
    """`text_of(size)` as `simplify TEXT`, as a dim_param (infer), and as
    `simplify --assume 'TEXT >= 1' a`; argv rungs stop where the text no longer fits
    one argument (`ARG_MAX_BYTES`), the dim_param rungs go on."""
    out = []

    def fits(extra):
        return lambda s: len(text_of(s).encode()) + extra < ARG_MAX_BYTES

    plain, assumed = fits(0), fits(len(" >= 1"))
    out.append(Ladder(family, f"{name}: simplify", [s for s in sizes if plain(s)],
                      lambda s, tmp: [ctx.symdim, "simplify", text_of(s)],
                      ci=[s for s in ci if plain(s)], limit=limit, expect=exits(0, 2)))
    if assume:
        out.append(Ladder(family, f"{name}: simplify --assume", [s for s in sizes if assumed(s)],
                          lambda s, tmp: [ctx.symdim, "simplify", "--assume", f"{text_of(s)} >= 1", "a"],
                          ci=[s for s in ci if assumed(s)], limit=limit, expect=exits(0, 2)))
    if dim_param:
        out.append(Ladder(family, f"{name}: dim_param", sizes,
                          lambda s, tmp: [ctx.symdim, "infer", param_model(tmp, text_of(s))],
                          ci=ci, limit=limit, expect=exits(0, 1, 2)))
    return out


def fam_dim_param(ctx):
    """Costly dim texts: a power of a sum, products of binomials, long constants; and
    undefined ones (zero divisors)."""
    out = []
    out += _text_ladders(ctx, "dim-param", "(a + b + c + d)**k", lambda k: f"(a + b + c + d)**{k}",
                         [1, 2, 4, 8, 16, 32, 64], [8, 64], "MAX_TERMS = 256 (algebra/poly.rs); exponents 0..64")
    out += _text_ladders(ctx, "dim-param", "n binomials", lambda n: "*".join(f"(D{i} + 1)" for i in range(n)),
                         doubling(4, 1024), [64, 256], "MAX_TERMS = 256, MAX_NODES = 8192 (algebra/poly.rs)")
    out += _text_ladders(ctx, "dim-param", "n-digit constant", lambda n: "9" * n + "*N", doubling(16, 1 << 20),
                         [4096, 65536], "BOUND_BITS = 256 (algebra/interval.rs)")
    zero = {
        "a / 0": "a / 0",
        "mod(a, 0)": "mod(a, 0)",
        "floordiv(a, b - b)": "floordiv(a, b - b)",
        "huge constant": "99999999999999999999999999999999*N",
    }
    from .ladder import cases
    items = []
    for label, text in zero.items():
        items.append((f"{label} infer", lambda tmp, text=text: [ctx.symdim, "infer", param_model(tmp, text)],
                      exits(0, 1)))
        items.append((f"{label} simplify", [ctx.symdim, "simplify", text],
                      exits(0) if label == "huge constant" else exits(2)))
    out.append(cases("dim-param", "undefined texts", items))
    return out


# ---------- issue 34's families ----------


def nested(kind, depth):
    e = "N"
    for i in range(depth):
        e = f"{kind}({e}, K{i} + 1)"
    return e


def fam_nested_calls(ctx):
    """150-deep nested floordiv with symbolic divisors, and nested mod, min, ceildiv,
    10..800 deep (text: past MAX_NESTING = 200 a parse error); and the same nesting
    built by a graph: a chain of n integer Divs by symbolic dims (no text limit)."""
    sizes = [10, 20, 40, 80, 100, 145, 160, 199, 200, 201, 400, 800]
    out = []
    for kind in ("floordiv", "mod", "min", "ceildiv"):
        out += _text_ladders(ctx, "nested-calls", f"nested {kind}", lambda d, kind=kind: nested(kind, d), sizes,
                             [40, 80, 199, 400] if kind == "floordiv" else [80, 199],
                             "MAX_NESTING = 200 (algebra/parse.rs), MAX_DEPTH = 64 (algebra/poly.rs)",
                             assume=kind == "floordiv")

    def div_chain(n, tmp):
        nodes = [B.node("S", "Shape", ["x"], ["s"]), B.node("G", "Gather", ["s", "zero"], ["v0"], B.AXIS0)]
        inputs = [B.value_info("x", B.FLOAT, ["N"])]
        for i in range(n):
            inputs.append(B.value_info(f"k{i}", B.FLOAT, [f"K{i}"]))
            nodes += [B.node(f"SK{i}", "Shape", [f"k{i}"], [f"sk{i}"]),
                      B.node(f"GK{i}", "Gather", [f"sk{i}", "zero"], [f"gk{i}"], B.AXIS0),
                      B.node(f"D{i}", "Div", [f"v{i}", f"gk{i}"], [f"v{i + 1}"])]
        nodes += [B.node("U", "Unsqueeze", [f"v{n}", "ax"], ["u"]), B.node("C", "ConstantOfShape", ["u"], ["y"])]
        p = tmp / f"divchain{n}.onnx"
        p.write_bytes(B.model(nodes, [B.int64_init("zero", [], [0]), B.int64_init("ax", [1], [0])], inputs,
                              [B.value_info("y", B.FLOAT, None)]))
        return p

    for cmd in ("infer", "constraints"):
        out.append(Ladder("nested-calls", f"graph Div chain: {cmd}", doubling(10, 5120),
                          lambda n, tmp, cmd=cmd: [ctx.symdim, cmd, div_chain(n, tmp)], ci=[160, 640],
                          limit="MAX_DEPTH = 64, MAX_ATOM_VISITS = 4096 (algebra/poly.rs)", expect=exits(0, 1)))
    out.append(Ladder("nested-calls", "graph Div chain: explain y", doubling(10, 5120),
                      lambda n, tmp: [ctx.symdim, "explain", div_chain(n, tmp), "y"], ci=[160, 640],
                      limit="MAX_STEPS = 40 (explain.rs)", expect=exits(0, 1)))
    return out


def fam_flat_sum(ctx):
    """Flat sums and products (no parentheses, so MAX_NESTING does not count them):
    `a+a+...`, `a0+a1+...`, `a*a*...`, `a0*a1*...`."""
    out = []
    limit = "MAX_NESTING = 200 counts parentheses only; MAX_TERMS = 256, MAX_EXPONENT = 4096 (algebra/poly.rs)"
    out += _text_ladders(ctx, "flat-sum", "a+a+...", lambda n: "+".join(["a"] * n), doubling(1000, 512000),
                         [16000, 64000], limit)
    out += _text_ladders(ctx, "flat-sum", "a0+a1+...", lambda n: "+".join(f"a{i}" for i in range(n)),
                         doubling(250, 64000), [1000, 4000], limit)
    out += _text_ladders(ctx, "flat-sum", "a*a*...", lambda n: "*".join(["a"] * n), doubling(1024, 262144),
                         [4096, 16384], limit)
    out += _text_ladders(ctx, "flat-sum", "a0*a1*...", lambda n: "*".join(f"a{i}" for i in range(n)),
                         doubling(250, 64000), [1000, 4000], limit)
    return out


def fam_const_power(ctx):
    """Nested powers: `(((2**64)**64)...)**64` d levels is a constant of 64**d bits
    in 6d+1 bytes; `((a**64)**64)...` an exponent of 64**d; `2**64*2**64*...` n
    factors a constant of 64n bits."""
    out = []
    levels = [1, 2, 3, 4, 5, 6, 8]
    limit = "BOUND_BITS = 256 (algebra/interval.rs) bounds intervals only; MAX_EXPONENT = 4096 (algebra/poly.rs)"

    def power(base, d):
        e = base
        for _ in range(d):
            e = f"({e})**64"
        return e

    out += _text_ladders(ctx, "const-power", "(2**64)**64... d levels", lambda d: power("2", d), levels, [2, 4], limit)
    out += _text_ladders(ctx, "const-power", "(a**64)**64... d levels", lambda d: power("a", d), levels, [2, 4], limit)
    out.append(Ladder("const-power", "(2**64)**64... d levels: --assume N <= X on a model", levels,
                      lambda d, tmp: [ctx.symdim, "constraints", ctx.repo / "examples" / "attention.onnx",
                                      "--assume", f"batch <= {power('2', d)}"],
                      ci=[2, 4], limit=limit, expect=usage_or(0, 1, 3)))
    out += _text_ladders(ctx, "const-power", "2**64*2**64*... n factors", lambda n: "*".join(["2**64"] * n),
                         doubling(16, 16384), [256, 4096], limit)
    return out


def slice_model(dim, *, start=0, end=2**63 - 1, step=1, opset=17):
    if opset < 10:
        attrs = B.attr_ints("starts", [start]) + B.attr_ints("ends", [end]) + B.attr_ints("axes", [0])
        return B.model([B.node("sl", "Slice", ["x"], ["y"], attrs)], [], [B.value_info("x", B.FLOAT, [dim])],
                       [B.value_info("y", B.FLOAT, None)], opset=opset)
    return B.model(
        [B.node("sl", "Slice", ["x", "st", "en", "ax", "sp"], ["y"])],
        [B.int64_init("st", [1], [start]), B.int64_init("en", [1], [end]), B.int64_init("ax", [1], [0]),
         B.int64_init("sp", [1], [step])],
        [B.value_info("x", B.FLOAT, [dim])], [B.value_info("y", B.FLOAT, None)], opset=opset)


def strided_slice_ir(tmp, v, kind):
    ir = B.Ir()
    x = ir.param("x", str(v) if v is not None else "?")
    if kind == "StridedSlice":
        b, e, s = ir.i64s("b", [0]), ir.i64s("e", [2**63 - 1]), ir.i64s("s", [1])
        y = ir.op("ss", "StridedSlice", "opset1",
                  [("begin_mask", "0"), ("end_mask", "0"), ("new_axis_mask", ""), ("shrink_axis_mask", ""),
                   ("ellipsis_mask", "")], [x, b, e, s])[0]
    else:
        b, e, s, a = ir.i64s("b", [0]), ir.i64s("e", [2**63 - 1]), ir.i64s("s", [1]), ir.i64s("a", [0])
        y = ir.op("sl", "Slice", "opset8", [], [x, b, e, s, a])[0]
    ir.result(y)
    p = tmp / f"{kind}-{v}.xml"
    ir.write(p)
    return p


def fam_slice_value(ctx):
    """Slice and StridedSlice of an axis of 2**10 .. 2**63-1 elements, declared or
    bound: no cost may follow the axis's length (`ops::slice::slice_picks`)."""
    out = []
    declared = [
        ("ONNX Slice, declared [V]", {}),
        ("ONNX Slice step -1, declared [V]", {"start": -1, "end": -2**63, "step": -1}),
        ("ONNX Slice step 2, declared [V]", {"step": 2}),
        ("ONNX Slice-1 (attributes), declared [V]", {"opset": 9}),
    ]
    for label, kw in declared:
        cmds = [["infer"], ["check"], ["explain", "y"]] if not kw else [["infer"]]
        for cmd in cmds:
            def make(v, tmp, kw=kw, cmd=cmd):
                p = _file(tmp, "slice.onnx", slice_model(v, **kw))
                return [ctx.symdim, cmd[0], p] + cmd[1:]
            out.append(Ladder("slice-value", f"{label}: {' '.join(cmd)}", V_LADDER, make, ci=V_CI, kind="value",
                              limit="no limit: slice_picks allocates 8 bytes per element", expect=REPORT))
    for cmd in (["infer"], ["check"], ["constraints"], ["explain", "y"]):
        def make(v, tmp, cmd=cmd):
            p = _file(tmp, "slice-n.onnx", slice_model("N"))
            return [ctx.symdim, cmd[0], p] + cmd[1:] + ["--bind", f"N={v}"]
        out.append(Ladder("slice-value", f"ONNX Slice, [N] --bind N=V: {cmd[0]}", V_LADDER, make, ci=V_CI,
                          kind="value", expect=REPORT))
    for kind in ("StridedSlice", "Slice-8"):
        for cmd in ("infer", "check"):
            out.append(Ladder("slice-value", f"OpenVINO {kind}, declared [V]: {cmd}", V_LADDER,
                              lambda v, tmp, kind=kind, cmd=cmd: [ctx.symdim, cmd, strided_slice_ir(tmp, v, kind)],
                              ci=V_CI, kind="value", expect=REPORT))
        out.append(Ladder("slice-value", f"OpenVINO {kind}, [?] --bind x.0=V: infer", V_LADDER,
                          lambda v, tmp, kind=kind: [ctx.symdim, "infer", strided_slice_ir(tmp, None, kind),
                                                     "--bind", f"`x.0`={v}"],
                          ci=V_CI, kind="value", expect=REPORT))
    return out


def _value_op_models():
    """(label, model of a dim value V) for ops whose cost could follow a value."""
    F, I = B.FLOAT, B.INT64
    vi = B.value_info
    c = B.int64_init

    def one(nodes, inits, inputs, opset=17):
        return B.model(nodes, inits, inputs, [vi("y", F, None)], opset=opset)

    shape_v = [B.node("S", "Shape", ["x"], ["s"])]
    return {
        "Range(0, V, 1) from Shape": lambda v: one(
            shape_v + [B.node("G", "Gather", ["s", "z"], ["n"], B.AXIS0),
                       B.node("R", "Range", ["z", "n", "one"], ["r"]), B.node("S2", "Shape", ["r"], ["y"])],
            [c("z", [], [0]), c("one", [], [1])], [vi("x", F, [v])]),
        "Range(0, V, 1) of constants": lambda v: one(
            [B.node("R", "Range", ["z", "n", "one"], ["y"])], [c("z", [], [0]), c("n", [], [v]), c("one", [], [1])], []),
        "ConstantOfShape([V])": lambda v: one([B.node("C", "ConstantOfShape", ["sh"], ["y"])], [c("sh", [1], [v])], []),
        "Expand(x[1], [V])": lambda v: one([B.node("E", "Expand", ["x", "sh"], ["y"])], [c("sh", [1], [v])],
                                           [vi("x", F, [1])]),
        "Tile(x[1], [V])": lambda v: one([B.node("T", "Tile", ["x", "r"], ["y"])], [c("r", [1], [v])],
                                         [vi("x", F, [1])]),
        "Pad(x[1], [0, V])": lambda v: one([B.node("P", "Pad", ["x", "p"], ["y"])], [c("p", [2], [0, v])],
                                           [vi("x", F, [1])]),
        "Reshape(x[V], [-1, 1])": lambda v: one([B.node("R", "Reshape", ["x", "sh"], ["y"])], [c("sh", [2], [-1, 1])],
                                                [vi("x", F, [v])]),
        "TopK(x[V], k=V)": lambda v: one([B.node("T", "TopK", ["x", "k"], ["y", "i"])], [c("k", [1], [v])],
                                         [vi("x", F, [v])]),
        "OneHot(depth=V)": lambda v: one([B.node("O", "OneHot", ["ind", "d", "vals"], ["y"])],
                                         [c("d", [], [v]), c("vals", [2], [0, 1])], [vi("ind", I, [3])]),
        "Split(x[V]) in 2": lambda v: one([B.node("Sp", "Split", ["x"], ["y", "y2"], B.attr_int("num_outputs", 2))],
                                          [], [vi("x", F, [v])], opset=18),
        "Split(x[V], [V - 1, 1])": lambda v: one([B.node("Sp", "Split", ["x", "sp"], ["y", "y2"])],
                                                 [c("sp", [2], [v - 1, 1])], [vi("x", F, [v])]),
        "NonZero(x[V])": lambda v: one([B.node("N", "NonZero", ["x"], ["y"])], [], [vi("x", F, [v])]),
        "Unique(x[V])": lambda v: one([B.node("U", "Unique", ["x"], ["y"])], [], [vi("x", F, [v])]),
        "CumSum(x[V])": lambda v: one([B.node("C", "CumSum", ["x", "a"], ["y"])], [c("a", [], [0])],
                                      [vi("x", F, [v])]),
        "MaxPool(x[1,1,V], kernel V)": lambda v: one(
            [B.node("P", "MaxPool", ["x"], ["y"], B.attr_ints("kernel_shape", [v]))], [], [vi("x", F, [1, 1, v])]),
        "Conv(x[1,1,V], w[1,1,3], dilation V)": lambda v: one(
            [B.node("C", "Conv", ["x", "w"], ["y"], B.attr_ints("dilations", [v]))], [],
            [vi("x", F, [1, 1, v]), vi("w", F, [1, 1, 3])]),
        "Resize(x[1,1,V], sizes [1,1,V])": lambda v: one(
            [B.node("R", "Resize", ["x", "", "", "sz"], ["y"])], [c("sz", [3], [1, 1, v])], [vi("x", F, [1, 1, 1])]),
        "Shape -> Slice of the shape value": lambda v: one(
            shape_v + [B.node("Sl", "Slice", ["s", "st", "en"], ["y"])], [c("st", [1], [0]), c("en", [1], [v])],
            [vi("x", F, [v, v])]),
        "initializer declared [V] holding 1 element": lambda v: one(
            [B.node("I", "Identity", ["t"], ["y"])], [c("t", [v], [7])], []),
        "Gather(x[V], index V - 1)": lambda v: one([B.node("G", "Gather", ["x", "i"], ["y"], B.AXIS0)],
                                                  [c("i", [], [v - 1])], [vi("x", F, [v])]),
        "Trilu(x[V, V], k=V)": lambda v: one([B.node("T", "Trilu", ["x", "k"], ["y"])], [c("k", [], [v])],
                                             [vi("x", F, [v, v])]),
        "EyeLike(x[V, V])": lambda v: one([B.node("E", "EyeLike", ["x"], ["y"])], [], [vi("x", F, [v, v])]),
    }


def fam_value_ops(ctx):
    """Ops whose parameters or axis length is a dim value of 2**10 .. 2**63-1 (declared
    or constant): no cost may follow the value."""
    out = []
    for label, mk in _value_op_models().items():
        def make(v, tmp, mk=mk):
            return [ctx.symdim, "infer", _file(tmp, "vop.onnx", mk(v))]
        out.append(Ladder("value-ops", label, V_LADDER, make, ci=[2**10, 2**31, 2**62, 2**63 - 1], kind="value",
                          limit="MAX_VALUE_ELEMENTS = 4096 (graph/mod.rs)", expect=REPORT))
    return out


def _primes(n):
    out, k = [], 2
    while len(out) < n:
        if all(k % p for p in out if p * p <= k):
            out.append(k)
        k += 1
    return out


def fam_assume_facts(ctx):
    """K facts through `--assume` (and K symbols bound through `--bind`)."""
    m = ctx.repo / "examples" / "attention.onnx"
    out = []
    # Past MAX_FACTS = 10,000 binds and facts together: a usage error (exit 2).
    sizes = doubling(125, 16000)

    def past_limit(codes):
        def check(r, k):
            return usage_or()(r, k) if k > 10000 else exits(*codes)(r, k)
        return check

    def facts(texts):
        args = []
        for t in texts:
            args += ["--assume", t]
        return args

    for cmd in ("constraints", "infer", "check"):
        def make(k, tmp, cmd=cmd):
            extra = ["--bind", f"batch={k + 1}"] if cmd == "check" else []
            return [ctx.symdim, cmd, m] + facts(f"batch >= {i}" for i in range(1, k + 1)) + extra
        out.append(Ladder("assume-facts", f"K x 'batch >= i': {cmd}", sizes, make, ci=[500, 2000, 16000],
                          limit="MAX_FACTS = 10,000 (context/facts.rs)", expect=past_limit((0, 1, 3))))
    out.append(Ladder("assume-facts", "K x 'batch != i': constraints", sizes,
                      lambda k, tmp: [ctx.symdim, "constraints", m] + facts(f"batch != {i}" for i in range(2, k + 2)),
                      ci=[500, 2000], expect=past_limit((0, 1))))
    out.append(Ladder("assume-facts", "K x 'batch % p == 0' (first K primes): constraints", doubling(16, 2048),
                      lambda k, tmp: [ctx.symdim, "constraints", m] + facts(f"batch % {p} == 0" for p in _primes(k)),
                      ci=[64, 256], expect=exits(0, 1)))

    def many_inputs(k, tmp):
        p = tmp / f"inputs{k}.onnx"
        p.write_bytes(B.model([B.node("cat", "Concat", [f"x{i}" for i in range(k)], ["y"], B.AXIS0)], [],
                              [B.value_info(f"x{i}", B.FLOAT, [f"S{i}"]) for i in range(k)],
                              [B.value_info("y", B.FLOAT, None)]))
        return p

    out.append(Ladder("assume-facts", "K symbols x 'S_i >= i': constraints", sizes,
                      lambda k, tmp: [ctx.symdim, "constraints", many_inputs(k, tmp)]
                      + facts(f"S{i} >= {i + 1}" for i in range(k)), ci=[500, 2000], expect=past_limit((0, 1))))
    out.append(Ladder("assume-facts", "K symbols --bind S_i=i: check", sizes,
                      lambda k, tmp: [ctx.symdim, "check", many_inputs(k, tmp)]
                      + [a for i in range(k) for a in ("--bind", f"S{i}={i + 1}")], ci=[500, 2000],
                      expect=past_limit((0, 1, 3))))
    return out


def fam_op_rules(ctx):
    """Rule files of 1,000..128,000 rules (the file cap is MAX_RULES_BYTES = 4 MiB, so
    the last rungs are usage errors), F files of one rule each (past MAX_RULE_FILES = 64
    a usage error), and M custom nodes against M rules."""
    out = []
    cap = 4 << 20

    def custom_model(tmp, n):
        nodes, cur = [], "x"
        for i in range(n):
            nodes.append(B.node(f"n{i}", f"Op{i}", [cur], [f"t{i}"], domain="com.x"))
            cur = f"t{i}"
        p = tmp / f"custom{n}.onnx"
        p.write_bytes(B.model(nodes, [], [B.value_info("x", B.FLOAT, ["N"])], [B.value_info(cur, B.FLOAT, None)],
                              domains=[("com.x", 1)]))
        return p

    def rules_file(tmp, texts):
        p = tmp / "rules.txt"
        p.write_text("".join(texts))
        return p

    def within_cap(tmp):
        def check(r, _):
            size = (tmp / "rules.txt").stat().st_size
            if size > cap:
                return one_line_usage(r)
            return exits(0)(r, _)
        return check

    one = {}
    shapes = {
        "distinct ops": lambda i: f"op com.x:Op{i}\n  output shape=in0\n",
        "one op, disjoint versions": lambda i: f"op com.x:Op0 version {i + 1}\n  output shape=in0\n",
    }
    for label, rule in shapes.items():
        def make(n, tmp, rule=rule):
            one.setdefault("model", custom_model(tmp, 1))
            return [ctx.symdim, "infer", one["model"], "--op-rules", rules_file(tmp, (rule(i) for i in range(n)))]
        out.append(Ladder("op-rules", f"{label} in one file", doubling(1000, 128000), make, ci=[8000, 32000],
                          limit="MAX_RULES_BYTES = 4 MiB (oprules.rs)", expect=within_cap(ctx.tmp)))

    def files(n, tmp):
        d = tmp / f"rules{n}"
        d.mkdir(exist_ok=True)
        args = []
        for i in range(n):
            p = d / f"r{i}.txt"
            p.write_text(f"op com.x:Op{i}\n  output shape=in0\n")
            args += ["--op-rules", p]
        return [ctx.symdim, "infer", custom_model(tmp, 1)] + args

    max_files = 64  # MAX_RULE_FILES (read/oprules.rs)

    def files_expect(r, n):
        return one_line_usage(r) if n > max_files else exits(0)(r, n)

    out.append(Ladder("op-rules", "F files of one rule", doubling(16, 12800), files, ci=[64, 128, 3200],
                      limit="MAX_RULE_FILES = 64 (oprules.rs)", expect=files_expect))
    out.append(Ladder("op-rules", "M custom nodes, M rules", doubling(250, 16000),
                      lambda n, tmp: [ctx.symdim, "infer", custom_model(tmp, n), "--op-rules",
                                      rules_file(tmp, (f"op com.x:Op{i}\n  output shape=in0\n" for i in range(n)))],
                      ci=[1000, 4000], expect=exits(0)))
    return out


def fam_rank_ops(ctx):
    """Ops that make a rank of 256..65,536: past MAX_RANK = 1024 a diagnostic naming
    the rank limit, as declared ranks and op rules give."""
    F = B.FLOAT
    vi = B.value_info
    c = B.int64_init
    models = {
        "Unsqueeze(x[N], axes 1..n)": lambda n: B.model(
            [B.node("U", "Unsqueeze", ["x", "ax"], ["y"])], [c("ax", [n], list(range(1, n + 1)))], [vi("x", F, ["N"])],
            [vi("y", F, None)]),
        "ConstantOfShape(n ones)": lambda n: B.model(
            [B.node("C", "ConstantOfShape", ["sh"], ["y"])], [c("sh", [n], [1] * n)], [], [vi("y", F, None)]),
        "Reshape(x[N], [N, 1, ..., 1]) via Concat": lambda n: B.model(
            [B.node("S", "Shape", ["x"], ["s"]), B.node("C", "Concat", ["s", "ones"], ["sh"], B.AXIS0),
             B.node("R", "Reshape", ["x", "sh"], ["y"])], [c("ones", [n - 1], [1] * (n - 1))], [vi("x", F, ["N"])],
            [vi("y", F, None)]),
        "Expand(x[N], n ones)": lambda n: B.model(
            [B.node("E", "Expand", ["x", "sh"], ["y"])], [c("sh", [n], [1] * n)], [vi("x", F, ["N"])],
            [vi("y", F, None)]),
        "n Unsqueezes of one axis": lambda n: B.model(
            [B.node(f"U{i}", "Unsqueeze", ["x" if i == 0 else f"u{i - 1}", "ax"], [f"u{i}" if i < n - 1 else "y"])
             for i in range(n)], [c("ax", [1], [0])], [vi("x", F, ["N"])], [vi("y", F, None)]),
    }
    out = []
    for label, mk in models.items():
        def make(n, tmp, mk=mk):
            return [ctx.symdim, "infer", _file(tmp, "rank.onnx", mk(n))]

        def expect(r, n):
            return exits(0, 1)(r, n) or (says("rank limit")(r, n) if n > 1024 else None)

        out.append(Ladder("rank-ops", label, [256, 512, 1024, 1025, 2048, 4096, 8192, 16384, 32768, 65536], make,
                          ci=[512, 1025, 4096], limit="MAX_RANK = 1024 (graph/mod.rs)", expect=expect))
    return out


FAMILIES = {
    "deep-xml": fam_deep_xml,
    "deep-json": fam_deep_json,
    "arg-length": fam_arg_length,
    "declared-rank": fam_declared_rank,
    "concat-fan-in": fam_concat,
    "squaring": fam_squaring,
    "symbolic-concat": fam_symbolic_concat,
    "power-expand": fam_power_expand,
    "dim-param": fam_dim_param,
    "nested-calls": fam_nested_calls,
    "flat-sum": fam_flat_sum,
    "const-power": fam_const_power,
    "slice-value": fam_slice_value,
    "value-ops": fam_value_ops,
    "assume-facts": fam_assume_facts,
    "op-rules": fam_op_rules,
    "rank-ops": fam_rank_ops,
}

__all__ = ["FAMILIES", "all_of"]
