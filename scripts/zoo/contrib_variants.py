#!/usr/bin/env python3
"""Make the onnxruntime-optimized and quantized variants of zoo models (com.microsoft ops).

For each source model of the zoo (`export.py`'s output, described by its export_log.json)
this writes, into --out, the forms in which users meet onnxruntime's contrib ops:

  <stem>__opt.onnx      onnxruntime.transformers.optimizer.optimize_model (the model type
                        of the architecture: bert, gpt2, bart, ...): Attention,
                        SkipLayerNormalization, EmbedLayerNormalization, BiasGelu, FastGelu,
                        MultiHeadAttention, RotaryEmbedding, ...
  <stem>__ext.onnx      the graph onnxruntime saves (optimized_model_filepath) after its
                        ORT_ENABLE_EXTENDED optimizations: FusedMatMul, Gelu,
                        SkipLayerNormalization, FusedConv, ...
  <stem>__all.onnx      the same after ORT_ENABLE_ALL: on a machine with AVX2 or AVX-512
                        the layout optimizations put 2-D convolutions and pools in
                        blocked NCHWc form (com.microsoft.nchwc ReorderInput, Conv,
                        MaxPool, AveragePool, GlobalAveragePool, Upsample, ReorderOutput);
                        the graph is specific to the machine that wrote it
  <stem>__opt_q4.onnx   __opt with every MatMul 4-bit quantized (MatMulNBits, block 32)
  <stem>__opt_qdyn.onnx __opt through quantize_dynamic (QAttention, MatMulInteger,
                        DynamicQuantizeLinear, ...)
  <stem>__qdyn.onnx     the source through quantize_dynamic (MatMulInteger, ConvInteger,
                        DynamicQuantizeLinear, ...)
  <stem>__qstatic.onnx  the source through quantize_static, QOperator format, calibrated
                        on random inputs (QLinearMatMul, QLinearAdd, QGemm, ...)
  <stem>__qdq.onnx      the source through quantize_static, QDQ format (QuantizeLinear /
                        DequantizeLinear pairs around the float ops), calibrated the same way
  <stem>__q4.onnx       the source with every MatMul 4-bit quantized (MatMulNBits, block
                        32), for architectures the transformer optimizer does not take

and an export_log.json with the source's entry for each variant (same inputs and
bindings), so that `score.py --models OUT` scores them against onnxruntime's runtime
shapes like any zoo model. A variant that fails is logged with its error. The log of
an earlier run in OUT is kept: a variant it logged as made, whose file is there, is
not made again unless --force; this run's entries replace the others.

The variants that start from `__opt` (opt, opt_q4, opt_qdyn) are made for the
architectures the transformer optimizer takes (OPTIMIZER below); the others (ext, all,
qdyn, qstatic, qdq, q4) too, unless --any-arch, which makes them for every export of the
log (CNNs, detection, audio, decoders the optimizer does not know).

Usage (the venv of scripts/zoo/README.md):
  python contrib_variants.py [--models /work/zoo/models] --out /work/zoo/contrib \\
                             [--only bert,gpt2] [--any-arch] [--force]
                             [--variants opt,ext,all,opt_q4,opt_qdyn,qdyn,qstatic,qdq,q4]
"""

import argparse
import contextlib
import json
import os
import sys
import tempfile
import traceback
from pathlib import Path

import numpy as np
import onnx

sys.path.insert(0, str(Path(__file__).parent))
from score import feeds_for  # noqa: E402

# architecture -> the optimizer's model_type, num_heads, hidden_size (export.py's configs)
OPTIMIZER = {
    "bert": ("bert", 4, 64),
    "distilbert": ("bert", 4, 64),
    "roberta": ("bert", 4, 64),
    "xlm_roberta": ("bert", 4, 64),
    "electra": ("bert", 4, 64),
    "albert": ("bert", 4, 64),
    "mpnet": ("bert", 4, 64),
    "gpt2": ("gpt2", 4, 64),
    "gpt_neox": ("gpt_neox", 4, 64),
    "phi": ("phi", 4, 64),
    "bart": ("bart", 4, 64),
    "t5": ("t5", 4, 64),
    "vit": ("vit", 4, 64),
    "clip_text": ("clip", 4, 64),
    "clip_vision": ("clip", 4, 64),
}
VARIANTS = ["opt", "ext", "all", "opt_q4", "opt_qdyn", "qdyn", "qstatic", "qdq", "q4"]
# The variants made from __opt, so only for the architectures of OPTIMIZER.
FROM_OPT = {"opt", "opt_q4", "opt_qdyn"}


def optimize(src, dst, arch):
    from onnxruntime.transformers.optimizer import optimize_model

    model_type, heads, hidden = OPTIMIZER[arch]
    m = optimize_model(str(src), model_type=model_type, num_heads=heads, hidden_size=hidden,
                       use_gpu=False, only_onnxruntime=False)
    m.save_model_to_file(str(dst))


def saved_optimized(src, dst, level):
    """The graph onnxruntime saves after its optimizations of `level` (a
    GraphOptimizationLevel name)."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.graph_optimization_level = getattr(ort.GraphOptimizationLevel, level)
    opts.optimized_model_filepath = str(dst)
    opts.log_severity_level = 3  # the ORT_ENABLE_ALL warning: the graph is machine specific
    ort.InferenceSession(str(src), opts, providers=["CPUExecutionProvider"])


def nbits(src, dst):
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

    q = MatMulNBitsQuantizer(onnx.load(str(src)), block_size=32, is_symmetric=True)
    q.process()
    q.model.save_model_to_file(str(dst), False)


def qdynamic(src, dst):
    from onnxruntime.quantization import quantize_dynamic
    from onnxruntime.quantization.shape_inference import quant_pre_process

    # The quantizer needs the element types of the fused ops' outputs: the
    # preprocessing pass (onnxruntime's symbolic shape inference) records them.
    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(src), str(pre), skip_optimization=True)
        quantize_dynamic(str(pre), str(dst))


def qstatic(src, dst, entry, fmt="QOperator"):
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, quantize_static

    model = onnx.load(str(src))
    rng = np.random.default_rng(0)
    feeds = [feeds_for(model, entry, b, rng)[0] for b in entry["bindings"]]

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.it = iter(feeds)

        def get_next(self):
            return next(self.it, None)

    with tempfile.TemporaryDirectory() as tmp:
        # quantize_static needs shapes it can read; the preprocessing pass gives them
        from onnxruntime.quantization.shape_inference import quant_pre_process

        pre = Path(tmp) / "pre.onnx"
        try:
            quant_pre_process(str(src), str(pre), skip_symbolic_shape=False)
        except Exception:  # noqa: BLE001 - fall back on the source as it is
            pre = src
        quantize_static(str(pre), str(dst), Reader(), quant_format=getattr(QuantFormat, fmt))


@contextlib.contextmanager
def in_temp_dir():
    """Run in a scratch directory: the quantizers leave temporary files (external
    data, `sym_shape_infer_temp.onnx`) in the working directory."""
    old = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        try:
            yield
        finally:
            os.chdir(old)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default="/work/zoo/models")
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default="", help="comma-separated architectures")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--any-arch", action="store_true",
                    help="make the variants that do not start from __opt for every export")
    ap.add_argument("--force", action="store_true", help="remake variants that exist")
    a = ap.parse_args()
    mdir, out = Path(a.models).resolve(), Path(a.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    log = json.loads((mdir / "export_log.json").read_text())
    only = {x for x in a.only.split(",") if x}
    variants = [v for v in a.variants.split(",") if v]
    bad = [v for v in variants if v not in VARIANTS]
    if bad:
        sys.exit(f"unknown variants: {bad} (known: {', '.join(VARIANTS)})")
    log_path = out / "export_log.json"
    new_log = json.loads(log_path.read_text()) if log_path.exists() else {}
    for f, e in sorted(log.items()):
        arch = e.get("arch")
        if not e.get("ok") or (only and arch not in only):
            continue
        if arch not in OPTIMIZER and not a.any_arch:
            continue
        src = mdir / f
        stem = f[: -len(".onnx")]
        for v in variants:
            if v in FROM_OPT and arch not in OPTIMIZER:
                continue
            dst = out / f"{stem}__{v}.onnx"
            opt = out / f"{stem}__opt.onnx"
            if not a.force and dst.exists() and new_log.get(dst.name, {}).get("ok"):
                continue
            entry = dict(e, source=f, variant=v)
            try:
                if v in FROM_OPT and v != "opt" and not new_log.get(opt.name, {}).get("ok"):
                    raise RuntimeError(f"no {opt.name}: make the opt variant first")
                if v == "opt":
                    optimize(src, dst, arch)
                elif v == "ext":
                    saved_optimized(src, dst, "ORT_ENABLE_EXTENDED")
                elif v == "all":
                    saved_optimized(src, dst, "ORT_ENABLE_ALL")
                elif v == "opt_q4":
                    nbits(opt, dst)
                elif v == "q4":
                    nbits(src, dst)
                elif v == "opt_qdyn":
                    with in_temp_dir():
                        qdynamic(opt, dst)
                elif v == "qdyn":
                    with in_temp_dir():
                        qdynamic(src, dst)
                elif v == "qstatic":
                    with in_temp_dir():
                        qstatic(src, dst, e)
                elif v == "qdq":
                    with in_temp_dir():
                        qstatic(src, dst, e, "QDQ")
                m = onnx.load(str(dst))
                ops = sorted({n.op_type for n in m.graph.node if n.domain == "com.microsoft"})
                # ops of the other non-ONNX domains (com.microsoft.nchwc, ...), as domain:op
                other = sorted({f"{n.domain}:{n.op_type}" for n in m.graph.node
                                if n.domain not in ("", "ai.onnx", "com.microsoft")})
                entry.update(ok=True, nodes=len(m.graph.node), contrib_ops=ops)
                if other:
                    entry["other_domain_ops"] = other
                print(f"{dst.name:44} {len(m.graph.node):5} nodes  {' '.join(ops + other)}", file=sys.stderr)
            except Exception as ex:  # noqa: BLE001
                entry.update(ok=False, error=f"{type(ex).__name__}: {str(ex)[:300]}",
                             trace=traceback.format_exc()[-600:])
                print(f"{dst.name:44} FAILED {entry['error'][:120]}", file=sys.stderr)
                if dst.exists():
                    dst.unlink()
            new_log[dst.name] = entry
            log_path.write_text(json.dumps(dict(sorted(new_log.items())), indent=1) + "\n")
    log_path.write_text(json.dumps(dict(sorted(new_log.items())), indent=1) + "\n")


if __name__ == "__main__":
    main()
