"""Value-sized inputs on the corpus models: for every model and every input symbol,
`infer`, `check` and `explain` with `--bind SYM=V`, and the model rewritten with that
symbol's declared dims set to V (`infer`, `check`), and with each input dim that is a
value set to V instead (`infer`), for V in 2**10, 2**31, 2**53, 2**62, 2**63-1.
Each (model, symbol or dim, command) is a `value` ladder: no rung may crash, hang or
pass 1 GiB, and none may cost more than the first (2**10) by the `value` criterion
(peak RSS within 10% + 4 MB).

Models: the corpus's real-models (export, pypi, large), openvino-ir, onednn-graph and
peer-cases models. oneDNN Graph models have no symbols: their input ports' first dim
is made one (`--symbol ID:0=N`, infer only) and set to V in a rewritten copy."""

import json
import re
from pathlib import Path

from . import build as B
from .ladder import V_CORPUS, Ladder
from .runner import one_line_usage

V_CORPUS_CI = [2**10, 2**31, 2**62, 2**63 - 1]
CI_MODELS = ["faster-whisper__silero_vad_v6.onnx", "silero-vad__silero_vad_16k_op15.onnx", "basic-pitch__nmp.onnx",
             "basic_pitch-nmp/model.xml"]
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def quote(name):
    if _IDENT.match(name):
        return name
    return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"


def models(corpus, repo):
    """(kind, path) of every corpus model; the repo's examples when there is no corpus."""
    out = []
    if corpus and corpus.is_dir():
        for sub in ("export", "pypi", "large"):
            out += [("onnx", p) for p in sorted((corpus / "real-models" / sub).glob("*.onnx"))]
        out += [("ir", p) for p in sorted((corpus / "openvino-ir").glob("*/model.xml"))]
        out += [("onednn", p) for p in sorted((corpus / "onednn-graph").rglob("*.json")) if p.name != "manifest.json"]
        out += [("onnx", p) for p in sorted((corpus / "peer-cases" / "models").glob("*.onnx"))]
        out += [("onnx", p) for p in sorted((corpus / "peer-cases" / "backend-node").glob("*/model.onnx"))]
    if not out:
        out = [("onnx", repo / "examples" / "attention.onnx"),
               ("ir", repo / "tests" / "fixtures" / "openvino" / "tiny_reshape" / "model.xml")]
    return out


def _short(corpus, p):
    try:
        return str(p.relative_to(corpus))
    except ValueError:
        return p.name


def ok_or_usage(r, _):
    """A report (exit 0, 1 or 3), or a usage error with one line (a bind the command
    refuses)."""
    if r.code == 2:
        return one_line_usage(r)
    return None if r.code in (0, 1, 3) else f"{r.summary()}, expected a report"


def _probe(ctx, path, extra=()):
    r = ctx.runner.run("probe", [ctx.symdim, "infer", "--format", "json", path, *extra])
    try:
        rep = json.loads(r.stdout)
    except ValueError:
        return [], []
    syms = [s for s, v in rep.get("symbols", {}).items() if v.get("kind") == "input"]
    outs = [o for o in rep.get("outputs", []) if "[" not in o and "]" not in o]
    return syms, outs


def _groups_onnx(data):
    """{group key: ([(input, axis)], symbolic)}: the dims that are not a value, keyed by
    their dim_param (or `input.axis` when unnamed, as symdim names them), and each
    dim that is a value on its own (`input[axis]=value`)."""
    groups = {}
    for name, dims in B.onnx_inputs(data):
        for a, d in enumerate(dims or []):
            if isinstance(d, int):
                groups[f"{name}[{a}]={d}"] = ([(name, a)], False)
            else:
                groups.setdefault(d if d else f"{name}.{a}", ([], True))[0].append((name, a))
    return groups


def _groups_ir(xml):
    groups = {}
    for name, dims in B.ir_inputs(xml):
        for a, d in enumerate(dims):
            if B._dynamic(d):
                groups.setdefault(f"{name}.{a}", ([], True))[0].append((name, a))
            else:
                groups[f"{name}[{a}]={d.strip()}"] = ([(name, a)], False)
    return groups


def fam_corpus(ctx):
    corpus = ctx.corpus
    ladders = []
    chosen = models(corpus, ctx.repo)
    if ctx.ci:
        picked = [m for m in chosen if any(str(m[1]).endswith(n) for n in CI_MODELS)]
        chosen = picked or chosen
    values = V_CORPUS_CI if ctx.ci else V_CORPUS
    vdir = ctx.tmp / "variants"
    vdir.mkdir(exist_ok=True)
    for idx, (kind, path) in enumerate(chosen):
        short = _short(corpus, path) if corpus else path.name
        fam = "corpus-values"
        if kind == "onednn":
            ports = list(B.onednn_inputs(path.read_text()))
            if not ports:
                continue
            symbols = ["--symbol", f"{ports[0]}:0=N"]
            ladders.append(Ladder(fam, f"{short}: infer --symbol {ports[0]}:0=N --bind N=V", values,
                                  lambda v, tmp, path=path, symbols=symbols: [ctx.symdim, "infer", path, *symbols,
                                                                              "--bind", f"N={v}"],
                                  ci=values, kind="value", expect=ok_or_usage))

            def onednn_variant(v, tmp, path=path, ports=ports, idx=idx):
                p = vdir / f"m{idx}-{v}.json"
                p.write_text(B.onednn_set_dims(path.read_text(), {(pid, 0): v for pid in ports}))
                return p

            ladders.append(Ladder(fam, f"{short}: input ports' dim 0 set to V: infer", values,
                                  lambda v, tmp, f=onednn_variant: [ctx.symdim, "infer", f(v, tmp)],
                                  ci=values, kind="value", expect=ok_or_usage))
            continue
        syms, outs = _probe(ctx, path)
        target = outs[0] if outs else None
        for s in syms:
            bind = f"{quote(s)}="
            cmds = [("infer", []), ("check", [])] + ([("explain", [target])] if target else [])
            if ctx.ci:
                cmds = cmds[:2]
            for cmd, extra in cmds:
                ladders.append(Ladder(
                    fam, f"{short}: {cmd} --bind {s}=V", values,
                    lambda v, tmp, path=path, cmd=cmd, extra=extra, bind=bind: [ctx.symdim, cmd, path, *extra,
                                                                                "--bind", f"{bind}{v}"],
                    ci=values, kind="value", expect=ok_or_usage))
        if kind == "onnx":
            data = path.read_bytes()
            groups = _groups_onnx(data)
        else:
            data = path.read_text()
            groups = _groups_ir(data)
        for gi, (key, (dims, symbolic)) in enumerate(groups.items()):
            def variant(v, tmp, path=path, kind=kind, data=data, dims=dims, idx=idx, gi=gi):
                if kind == "onnx":
                    p = vdir / f"m{idx}-g{gi}-{v}.onnx"
                    p.write_bytes(B.onnx_set_input_dims(data, {d: v for d in dims}))
                else:
                    d = vdir / f"m{idx}-g{gi}-{v}"
                    d.mkdir(exist_ok=True)
                    p = d / "model.xml"
                    p.write_text(B.ir_set_input_dims(data, {dd: v for dd in dims}))
                    if not (d / "model.bin").exists():
                        (d / "model.bin").symlink_to(path.with_suffix(".bin"))
                return p

            for cmd in (("infer", "check") if symbolic and not ctx.ci else ("infer",)):
                ladders.append(Ladder(fam, f"{short}: {cmd}, {key} declared V", values,
                                      lambda v, tmp, f=variant, cmd=cmd: [ctx.symdim, cmd, f(v, tmp)],
                                      ci=values, kind="value", expect=ok_or_usage))
    for lad in ladders:
        lad.model = lad.name.split(": ", 1)[0]
    return ladders


def rss_ratio(ladders):
    """Of the `infer` ladders, the largest peak RSS at 2**62 over that at 2**10, and
    where."""
    worst = (0.0, None)
    for lad in ladders:
        if ": infer" not in lad.name:
            continue
        by = {r.size: r for r in lad.rungs if not r.hung and not r.crashed()}
        lo, hi = by.get(2**10), by.get(2**62)
        if lo and hi and lo.rss_kb:
            q = hi.rss_kb / lo.rss_kb
            if q > worst[0]:
                worst = (q, lad.name)
    return worst


FAMILIES = {"corpus-values": fam_corpus}

__all__ = ["FAMILIES", "rss_ratio", "Path"]
