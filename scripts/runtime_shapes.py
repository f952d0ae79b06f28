#!/usr/bin/env python3
"""Runtime shapes of the real models: the outside reference for symdim's reports.

For every model of `../shared/corpus/real-models/{pypi,export,large}` this script
runs onnxruntime (CPU, graph optimizations off) at concrete input dims with every
node output of the main graph exposed as a graph output, and writes the shape of
each to `tests/fixtures/runtime_shapes/<model file stem>.json`:

    {"model": "<sub>/<file>",
     "binding": {"<symdim input symbol>": value, ...},
     "inputs": {"<graph input>": [dims fed], ...},
     "onnxruntime": "<version>",
     "shapes": {"<tensor>": [dims], ...}}          # main-graph node outputs, graph order

`tests/it/report/real_models.rs` evaluates symdim's symbolic dims at `binding` and
compares them with `shapes`.

Run (from the crate root; needs onnx, onnxruntime and numpy, and a built symdim):

    cargo build --release
    /work/venv-perf/bin/python scripts/runtime_shapes.py [--symdim PATH] [MODEL_STEM ...]

`--symdim` defaults to `$CARGO_TARGET_DIR/release/symdim` (or `target/release/symdim`).

Choices:
- Symbol names. symdim names the input dims (a `dim_param`, or `<tensor>.<axis>` for
  an unnamed dynamic dim); the script asks `symdim infer --format json` which symbol
  sits on which axis of each graph input, so `binding` is keyed by symdim's names. It
  uses symdim for nothing else: every runtime shape comes from onnxruntime.
- Values (`VALUES` below). Distinct and not 1, and not equal to the models' own small
  constants where possible (text models: batch 3, sequence 7, with heads 4 / kv heads
  2 / hidden 128 in the recipes), so that an accidental equality does not hide a
  wrong dim. Where the model constrains them:
  - silero-vad (If-based): the model runs only for 192 <= sequence <= 703 at 16 kHz
    (symdim's warning `floordiv(sequence - 192, 512) + 1 == 1`); sequence 600, sr
    16000. The LSTM's state batch must equal the input batch (symdim warns it assumes
    `state.1 == input.0` in silero_vad.onnx), so both are 3.
  - rapidocr det: H and W multiples of 32 (the FPN adds upsampled maps); 96 x 160.
  - rapidocr cls: 48 x 160 (any size works; 48 is the model's usual height).
  - vision batch 5 (3 is the channel count), text batch 3.
- Input data: floats random normal (seed 0); token ids in [0, 100) (vocab 1000 in
  every export recipe); attention masks ones; token type ids zeros; magika's bytes in
  [0, 256]; silero's `sr` 16000.
- Exposed tensors: every named output of a main-graph node (not subgraph tensors:
  onnxruntime cannot expose those). Outputs that are not tensors (sequences, maps) or
  that onnxruntime does not return are left out.
- The large models are included: at batch 3 x sequence 7 they run in a few seconds
  and well under 1 GB.
"""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / ".." / "shared" / "corpus" / "real-models"
OUT = ROOT / "tests" / "fixtures" / "runtime_shapes"

TEXT = {"batch": 3, "sequence": 7}
SILERO = {"batch": 3, "sequence": 600}

# Values of symdim's input symbols, per model file stem.
VALUES = {
    "basic-pitch__nmp": {"unk__749": 3},
    "faster-whisper__silero_vad_v6": {"seq_len": 5},
    "magika__standard_v3_3": {"unk__214": 3},
    "rapidocr__ch_PP-OCRv4_det_infer": {
        "p2o.DynamicDimension.0": 2,
        "p2o.DynamicDimension.1": 96,
        "p2o.DynamicDimension.2": 160,
    },
    "rapidocr__ch_ppocr_mobile_v2.0_cls_infer": {"x.0": 2, "x.2": 48, "x.3": 160},
    "silero-vad__silero_vad": {"input.0": 3, "input.1": 600, "state.1": 3},
    "silero-vad__silero_vad_16k_op15": SILERO,
    "silero-vad__silero_vad_16k_sequence": {"sequence_length": 5},
    "silero-vad__silero_vad_half": SILERO,
    "silero-vad__silero_vad_op18_ifless": SILERO,
    "silero-vad__silero_vad_openvino_16k": {},
    "bert_l2_dyn18": TEXT,
    "bert_l2_fixed_ts17": {},
    "bert_l2_ts17": TEXT,
    "gpt2_l2_dyn18": TEXT,
    "gpt2_l2_ts17": TEXT,
    "llama_l2_dyn18": TEXT,
    "llama_l2_ts17": TEXT,
    "vit_l2_dyn18": {"batch": 5},
    "vit_l2_ts17": {"batch": 5},
    "large_llama_l32_h32_ts17": TEXT,
    "large_llama_l64_h32_dyn18": TEXT,
}

NP_DTYPE = {
    onnx.TensorProto.FLOAT: np.float32,
    onnx.TensorProto.FLOAT16: np.float16,
    onnx.TensorProto.DOUBLE: np.float64,
    onnx.TensorProto.INT64: np.int64,
    onnx.TensorProto.INT32: np.int32,
    onnx.TensorProto.UINT8: np.uint8,
    onnx.TensorProto.INT8: np.int8,
    onnx.TensorProto.BOOL: np.bool_,
}


def symdim_inputs(symdim, path):
    """symdim's view of the graph inputs: {input: [int | symbol]} and its input symbols."""
    out = subprocess.run(
        [symdim, "infer", str(path), "--format", "json"], capture_output=True, text=True
    )
    if out.returncode not in (0, 1):
        sys.exit(f"symdim failed on {path}: {out.stderr}")
    rep = json.loads(out.stdout)
    syms = {n for n, s in rep["symbols"].items() if s["kind"] == "input"}
    return rep["tensors"], syms


def input_data(name, elem, shape, rng):
    dt = NP_DTYPE[elem]
    if name == "sr":
        return np.array(16000, dtype=dt).reshape(shape)
    if np.issubdtype(dt, np.floating):
        return rng.standard_normal(shape).astype(dt)
    if dt == np.bool_:
        return np.ones(shape, dtype=dt)
    if "mask" in name:
        return np.ones(shape, dtype=dt)
    if "token_type" in name:
        return np.zeros(shape, dtype=dt)
    if name == "bytes":
        return rng.integers(0, 257, shape).astype(dt)
    return rng.integers(0, 100, shape).astype(dt)


def write_fixture(path, doc):
    """JSON with one tensor per line, so that fixtures diff well."""
    lines = ["{"]
    for key in ("model", "binding", "inputs", "onnxruntime"):
        lines.append(f"  {json.dumps(key)}: {json.dumps(doc[key])},")
    lines.append('  "shapes": {')
    items = list(doc["shapes"].items())
    for i, (k, v) in enumerate(items):
        sep = "," if i + 1 < len(items) else ""
        lines.append(f"    {json.dumps(k)}: {json.dumps(v)}{sep}")
    lines.append("  }")
    lines.append("}")
    path.write_text("\n".join(lines) + "\n")


def bound_feeds(model, tensors, binding):
    """Inputs for every graph input that is not an initializer, its dims from
    symdim's report (`tensors`) at `binding`: `(feeds, dims by input)`."""
    g = model.graph
    inits = {t.name for t in g.initializer}
    rng = np.random.default_rng(0)
    feeds, fed = {}, {}
    for v in g.input:
        if v.name in inits:
            continue
        dims = []
        for d in tensors[v.name]["shape"]:
            if isinstance(d, int):
                dims.append(d)
            else:
                dims.append(binding[d.strip("`")])
        feeds[v.name] = input_data(v.name, v.type.tensor_type.elem_type, dims, rng)
        fed[v.name] = dims
    return feeds, fed


def run_every_output(model, feeds):
    """Run `model` (changed in place: every named node output of the main graph
    made a graph output) in onnxruntime without graph optimisations:
    `(the node outputs in graph order, value by output name)`."""
    g = model.graph
    names, seen = [], {t.name for t in g.initializer} | set(feeds)
    for n in g.node:
        for o in n.output:
            if o and o not in seen:
                seen.add(o)
                names.append(o)
    declared = {o.name for o in g.output}
    for o in names:
        if o not in declared:
            g.output.append(onnx.ValueInfoProto(name=o))
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.log_severity_level = 3
    sess = ort.InferenceSession(
        model.SerializeToString(), so, providers=["CPUExecutionProvider"]
    )
    outs = [o.name for o in sess.get_outputs()]
    return names, dict(zip(outs, sess.run(outs, feeds)))


def run(symdim, sub, path):
    stem = path.stem
    if stem not in VALUES:
        print(f"{sub}/{path.name}: no values chosen, skipped")
        return
    binding = VALUES[stem]
    tensors, syms = symdim_inputs(symdim, path)
    if set(binding) != syms:
        sys.exit(f"{stem}: binding {sorted(binding)} != symdim input symbols {sorted(syms)}")

    model = onnx.load(str(path))
    feeds, fed = bound_feeds(model, tensors, binding)
    names, got = run_every_output(model, feeds)
    shapes = {}
    for o in names:
        r = got.get(o)
        if isinstance(r, np.ndarray):
            shapes[o] = [int(x) for x in r.shape]
    skipped = len(names) - len(shapes)
    write_fixture(
        OUT / f"{stem}.json",
        {
            "model": f"{sub}/{path.name}",
            "binding": binding,
            "inputs": fed,
            "onnxruntime": ort.__version__,
            "shapes": shapes,
        },
    )
    print(f"{sub}/{path.name}: {len(shapes)} tensors ({skipped} not exposed)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    target = os.environ.get("CARGO_TARGET_DIR", str(ROOT / "target"))
    ap.add_argument("--symdim", default=str(Path(target) / "release" / "symdim"))
    ap.add_argument("stems", nargs="*", help="only these model file stems")
    a = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    for sub in ("pypi", "export", "large"):
        for path in sorted((CORPUS / sub).glob("*.onnx")):
            if a.stems and path.stem not in a.stems:
                continue
            run(a.symdim, sub, path)


if __name__ == "__main__":
    main()
