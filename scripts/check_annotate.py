#!/usr/bin/env python3
"""Round-trip ONNX models through `symdim infer -o` and check the annotated copies.

For every `.onnx` file under the given folders (default: the shared corpus beside the
repo), the model and its external-data files are copied to a scratch folder, and
`symdim infer COPY -o ANNOTATED` writes the annotated model next to it. Then:

- structure: the nodes, initializers (dense and sparse, external-data entries
  included), graph inputs, graph name and doc string, functions and every model-level
  field (ir_version, opsets, producer, metadata_props, ...) serialize to the same bytes
  in both models;
- external data: every external file has the same bytes (sha256) after the run, and
  the references (`external_data` entries) are among the initializers compared;
- declarations: every graph output and `value_info` entry of the original is still
  there, and no declared dim is weakened (a `dim_value` stays the same `dim_value`, a
  `dim_param` stays a `dim_param` or becomes a `dim_value`, a declared shape stays);
- `onnx.checker.check_model` accepts the annotated model;
- onnxruntime (CPU, one thread): with graph optimizations off, both models run on the
  same inputs and every output is identical (dtype, shape and values, NaN equal to
  NaN); with all optimizations on, where the annotated shapes let onnxruntime fuse
  more (SkipLayerNormalization, NCHWc layouts) and float rounding may change, the
  outputs agree within rtol 1e-4, atol 1e-5 (and are counted when identical).
  Inputs: a backend-node test's `test_data_set_0`, the shapes of
  `tests/fixtures/runtime_shapes/<stem>.json` for the real models, else every
  symbolic or unnamed dim at 2 (then 1 if the original does not run at 2); floats
  are seeded normal values, integers zero, booleans false. A model whose original
  does not run is counted as such and not compared.

Usage (Python with onnx, onnxruntime and numpy):

    cargo build --release
    /work/venv-zoo/bin/python scripts/check_annotate.py                # the corpus
    /work/venv-zoo/bin/python scripts/check_annotate.py DIR_OR_FILE... [--no-ort] [--json OUT]
    /work/venv-zoo/bin/python scripts/check_annotate.py --external     # data in external files

`--external` first moves every tensor of each copy (initializers and Constant values,
of any size) into one external file next to it, so the round trip also covers
external data: its references, and symdim reading the small tensors' values from it
(the report must be the one of the original, data inline). onnxruntime cannot load a
model whose shape tensors are external (its shape inference does not read them), so
fewer models run there in this mode.

Prints one line per model that fails a check (and, with -v, every model), then the
counts. Exit status 0 when no check failed.
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper
from onnx.external_data_helper import _get_all_tensors, uses_external_data

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = [REPO.parent / "shared" / "corpus", Path("/work/shared/corpus")]
RUNTIME_SHAPES = REPO / "tests" / "fixtures" / "runtime_shapes"


def ser(msg):
    return msg.SerializeToString(deterministic=True)


def external_locations(model):
    """The external-data locations of every tensor of the model (subgraphs and
    attributes included)."""
    out = []
    for t in _get_all_tensors(model):
        if uses_external_data(t):
            for e in t.external_data:
                if e.key == "location":
                    out.append(e.value)
    return sorted(set(out))


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def dims(vi):
    """The declared dims of a ValueInfoProto: None (no type or no shape),
    "non-tensor", else a list of ('v', int) / ('p', str) / ('u', None)."""
    if not vi.HasField("type") or vi.type.WhichOneof("value") is None:
        return None
    if not vi.type.HasField("tensor_type"):
        return "non-tensor"
    tt = vi.type.tensor_type
    if not tt.HasField("shape"):
        return None
    out = []
    for d in tt.shape.dim:
        # A negative dim_value (TensorFlow exporters write -1) declares nothing.
        if d.HasField("dim_value") and d.dim_value >= 0:
            out.append(("v", d.dim_value))
        elif d.HasField("dim_param") and d.dim_param:
            out.append(("p", d.dim_param))
        else:
            out.append(("u", None))
    return out


def weakened(before, after):
    """Why `after` says less than `before`, or None."""
    if before == "non-tensor":
        return None if after == "non-tensor" else "a non-tensor type was replaced"
    if before is None:
        return None
    if after is None or after == "non-tensor":
        return "the declared shape was dropped"
    if len(before) != len(after):
        return f"rank {len(before)} became {len(after)}"
    for axis, (b, a) in enumerate(zip(before, after)):
        if b[0] == "v" and a != b:
            return f"axis {axis}: dim_value {b[1]} became {a}"
        if b[0] == "p" and a[0] == "u":
            return f"axis {axis}: dim_param {b[1]!r} became unnamed"
    return None


def structure(orig, ann):
    """Failed structure checks: list of strings."""
    bad = []
    ga, gb = orig.graph, ann.graph
    pairs = {
        "nodes": (ga.node, gb.node),
        "initializers": (ga.initializer, gb.initializer),
        "sparse initializers": (ga.sparse_initializer, gb.sparse_initializer),
        "graph inputs": (ga.input, gb.input),
        "graph metadata_props": (ga.metadata_props, gb.metadata_props),
        "functions": (orig.functions, ann.functions),
    }
    for what, (a, b) in pairs.items():
        if [ser(x) for x in a] != [ser(x) for x in b]:
            bad.append(f"{what} differ")
    if (ga.name, ga.doc_string) != (gb.name, gb.doc_string):
        bad.append("graph name or doc_string differ")
    ma, mb = onnx.ModelProto(), onnx.ModelProto()
    ma.CopyFrom(orig)
    mb.CopyFrom(ann)
    ma.ClearField("graph")
    mb.ClearField("graph")
    if ser(ma) != ser(mb):
        bad.append("model-level fields (opsets, producer, metadata_props, ...) differ")
    # Declarations: outputs stay outputs, value_info entries stay somewhere.
    if [o.name for o in ga.output] != [o.name for o in gb.output]:
        bad.append("graph outputs differ")
    written = {v.name: v for v in list(gb.value_info) + list(gb.output)}
    for v in list(ga.output) + list(ga.value_info):
        if v.name not in written:
            bad.append(f"declaration of `{v.name}` dropped")
            continue
        why = weakened(dims(v), dims(written[v.name]))
        if why:
            bad.append(f"`{v.name}`: {why}")
        ta, tb = v.type.tensor_type.elem_type, written[v.name].type.tensor_type.elem_type
        if v.type.HasField("tensor_type") and ta and ta != tb:
            bad.append(f"`{v.name}`: elem_type {ta} became {tb}")
    return bad


# ---------- onnxruntime ----------

NP_OF = {
    "tensor(float)": np.float32,
    "tensor(double)": np.float64,
    "tensor(float16)": np.float16,
    "tensor(int64)": np.int64,
    "tensor(int32)": np.int32,
    "tensor(int16)": np.int16,
    "tensor(int8)": np.int8,
    "tensor(uint8)": np.uint8,
    "tensor(uint16)": np.uint16,
    "tensor(uint32)": np.uint32,
    "tensor(uint64)": np.uint64,
    "tensor(bool)": np.bool_,
}


def backend_inputs(model_path, graph_inputs):
    data = Path(model_path).parent / "test_data_set_0"
    if not data.is_dir():
        return None
    feeds = {}
    for i, inp in enumerate(graph_inputs):
        pb = data / f"input_{i}.pb"
        if not pb.exists():
            return None
        t = onnx.TensorProto()
        t.ParseFromString(pb.read_bytes())
        feeds[inp.name] = numpy_helper.to_array(t)
    return feeds


def runtime_shapes(model_path):
    path = RUNTIME_SHAPES / (Path(model_path).stem + ".json")
    if not path.exists():
        return None
    return json.loads(path.read_text()).get("inputs")


def make_feeds(runner, shapes, fill):
    rng = np.random.default_rng(0)
    feeds = {}
    for inp in runner.get_inputs():
        dt = NP_OF.get(inp.type)
        if dt is None:
            raise RuntimeError(f"input type {inp.type} not fed by this script")
        if shapes and inp.name in shapes:
            shape = shapes[inp.name]
        else:
            shape = [d if isinstance(d, int) and d >= 0 else fill for d in inp.shape]
        if np.issubdtype(dt, np.floating):
            feeds[inp.name] = rng.standard_normal(shape).astype(dt)
        else:
            feeds[inp.name] = np.zeros(shape, dtype=dt)
    return feeds


def runner(path, optimized=False):
    """onnxruntime on the CPU with one thread, graph optimizations off (the graph as
    written) or all on."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.log_severity_level = 4
    so.graph_optimization_level = (
        ort.GraphOptimizationLevel.ORT_ENABLE_ALL if optimized else ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    )
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


def same(a, b):
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        if a.dtype != b.dtype or a.shape != b.shape:
            return False
        if a.dtype.kind in "fc":
            return np.array_equal(a, b, equal_nan=True)
        return np.array_equal(a, b)
    return repr(a) == repr(b)


def close(a, b):
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype.kind in "fc":
        return a.dtype == b.dtype and a.shape == b.shape and np.allclose(a, b, rtol=1e-4, atol=1e-5, equal_nan=True)
    return same(a, b)


def ort_check(orig_path, ann_path, source_path, graph_inputs):
    """Run both models with graph optimizations off and compare the outputs exactly;
    then with every optimization on, where the annotated shapes let onnxruntime fuse
    more (SkipLayerNormalization, NCHWc layouts) and float rounding may differ, and
    compare them within rtol 1e-4, atol 1e-5.

    Returns (status, optimized status, detail): status is 'same', 'differ',
    'original does not run' or 'annotated does not run'; optimized status 'same',
    'close', 'differ' or None."""
    status, detail, feeds = ort_compare(orig_path, ann_path, source_path, graph_inputs, False, None)
    if status != "same":
        return status, None, detail
    opt, opt_detail, _ = ort_compare(orig_path, ann_path, source_path, graph_inputs, True, feeds)
    if opt == "differ":
        # Exact equality is not expected here: tolerate rounding.
        s1, s2 = runner(orig_path, True), runner(ann_path, True)
        if all(close(a, b) for a, b in zip(s1.run(None, feeds), s2.run(None, feeds))):
            opt = "close"
    return status, opt, opt_detail


def ort_compare(orig_path, ann_path, source_path, graph_inputs, optimized, feeds):
    """(status, detail, feeds): see `ort_check`."""
    try:
        s1 = runner(orig_path, optimized)
    except Exception as e:  # noqa: BLE001 - any loader error counts
        return "original does not run", str(e).splitlines()[0][:200], None
    attempts = [feeds] if feeds is not None else []
    if not attempts:
        given = backend_inputs(source_path, graph_inputs)
        attempts = [given] if given is not None else []
    if not attempts:
        shapes = runtime_shapes(source_path)
        try:
            attempts = [make_feeds(s1, shapes, 2)] + ([] if shapes else [make_feeds(s1, None, 1)])
        except Exception as e:  # noqa: BLE001
            return "original does not run", str(e).splitlines()[0][:200], None
    out1, used, err = None, None, ""
    for f in attempts:
        try:
            out1 = s1.run(None, f)
            used = f
            break
        except Exception as e:  # noqa: BLE001
            err = str(e).splitlines()[0][:200]
    if out1 is None:
        return "original does not run", err, None
    try:
        s2 = runner(ann_path, optimized)
        out2 = s2.run(None, used)
    except Exception as e:  # noqa: BLE001
        return "annotated does not run", str(e).splitlines()[0][:300], used
    names = [o.name for o in s1.get_outputs()]
    if [o.name for o in s2.get_outputs()] != names:
        return "differ", "output names differ", used
    for n, a, b in zip(names, out1, out2):
        if not same(a, b):
            return "differ", f"output `{n}` differs", used
    return "same", "", used


# ---------- driver ----------


def models_under(paths):
    out = []
    for p in paths:
        p = Path(p)
        if p.is_file():
            out.append(p)
        else:
            out.extend(sorted(p.rglob("*.onnx")))
    return out


def check_one(symdim, path, use_ort, external):
    rec = {"model": str(path), "failed": []}
    orig = onnx.load(str(path), load_external_data=False)
    locations = external_locations(orig)
    with tempfile.TemporaryDirectory(prefix="symdim-annotate-") as tmp:
        tmp = Path(tmp)
        copy = tmp / path.name
        shutil.copyfile(path, copy)
        for loc in locations:
            dst = tmp / loc
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path.parent / loc, dst)
        if external:
            # Every tensor (initializers and Constant values, the small shape tensors
            # symdim reads included) moved to one external file next to the copy.
            full = onnx.load(str(copy))
            onnx.save_model(
                full,
                str(copy),
                save_as_external_data=True,
                all_tensors_to_one_file=True,
                location=copy.name + ".data",
                size_threshold=0,
                convert_attribute=True,
            )
            orig = onnx.load(str(copy), load_external_data=False)
            locations = external_locations(orig)
        rec["external_files"] = len(locations)
        before = {loc: sha256(tmp / loc) for loc in locations}
        if external and locations:
            # symdim reads the values it needs from the external file: the report is
            # the one of the model with its data inline.
            reports = []
            for m in (path, copy):
                r = subprocess.run([str(symdim), "infer", str(m), "--format", "json"], capture_output=True)
                j = json.loads(r.stdout) if r.stdout else {}
                j.get("model", {}).pop("path", None)
                reports.append((r.returncode, j))
            rec["report_with_external_data"] = "same" if reports[0] == reports[1] else "differs"
            if reports[0] != reports[1]:
                rec["failed"].append("the report differs with the data in an external file")
        ann_path = tmp / ("annotated-" + path.name)
        run = subprocess.run(
            [str(symdim), "infer", str(copy), "-o", str(ann_path), "--format", "json"],
            capture_output=True,
        )
        rec["exit"] = run.returncode
        if run.returncode == 2 or not ann_path.exists():
            rec["failed"].append("symdim wrote no model: " + run.stderr.decode(errors="replace").strip()[:300])
            return rec
        leftovers = [p.name for p in tmp.iterdir() if p.name.startswith(".")]
        if leftovers:
            rec["failed"].append(f"temporary files left: {leftovers}")
        ann = onnx.load(str(ann_path), load_external_data=False)
        rec["failed"].extend(structure(orig, ann))
        for loc, h in before.items():
            if sha256(tmp / loc) != h:
                rec["failed"].append(f"external file {loc} changed")
        try:
            onnx.checker.check_model(str(ann_path))
            rec["checker"] = "ok"
        except Exception as e:  # noqa: BLE001
            # The original may fail the checker too; only a new failure counts.
            try:
                onnx.checker.check_model(str(copy))
                rec["checker"] = "new failure"
                rec["failed"].append("onnx.checker: " + str(e).splitlines()[0][:200])
            except Exception:  # noqa: BLE001
                rec["checker"] = "original fails too"
        if use_ort:
            inits = {t.name for t in orig.graph.initializer}
            status, opt, detail = ort_check(copy, ann_path, path, [i for i in orig.graph.input if i.name not in inits])
            rec["ort"] = status
            rec["ort_optimized"] = opt
            if status in ("differ", "annotated does not run"):
                rec["failed"].append(f"onnxruntime: {status}: {detail}")
            elif opt == "differ":
                rec["failed"].append(f"onnxruntime (all optimizations): {detail}")
            elif detail:
                rec["ort_detail"] = detail
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", help="folders or .onnx files (default: the shared corpus)")
    ap.add_argument("--symdim", default=str(REPO / "target" / "release" / "symdim"))
    ap.add_argument("--no-ort", action="store_true", help="skip the onnxruntime comparison")
    ap.add_argument(
        "--external",
        action="store_true",
        help="first move every tensor of each copy to an external data file (all sizes)",
    )
    ap.add_argument("--json", help="write every model's record here")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    paths = args.paths or [next((c for c in DEFAULT_CORPUS if c.is_dir()), DEFAULT_CORPUS[0])]
    models = models_under(paths)
    if not models:
        sys.exit(f"no .onnx files under {paths}")
    records = []
    for i, path in enumerate(models):
        rec = check_one(args.symdim, path, not args.no_ort, args.external)
        records.append(rec)
        if rec["failed"] or args.verbose:
            status = "FAIL" if rec["failed"] else "ok"
            print(f"[{i + 1}/{len(models)}] {status} {path}: {'; '.join(rec['failed']) or rec.get('ort', '')}", flush=True)
    n = len(records)
    failed = [r for r in records if r["failed"]]
    written = [r for r in records if "exit" in r and r["exit"] != 2]
    count = lambda key, value: sum(1 for r in records if r.get(key) == value)  # noqa: E731
    print()
    print(f"models:                          {n}")
    print(f"  annotated copy written:        {len(written)} (symdim exit 0: {count('exit', 0)}, exit 1: {count('exit', 1)})")
    print(f"  with external data:            {sum(1 for r in records if r.get('external_files'))}")
    if args.external:
        print(f"  report same as with inline data: {count('report_with_external_data', 'same')}")
    print(f"  structure and declarations ok: {sum(1 for r in written if not any(not f.startswith(('onnxruntime', 'onnx.checker')) for f in r['failed']))}")
    print(f"  onnx.checker: ok {count('checker', 'ok')}, original fails too {count('checker', 'original fails too')}, new failures {count('checker', 'new failure')}")
    if not args.no_ort:
        print(
            f"  onnxruntime, optimizations off: identical outputs {count('ort', 'same')}, differ {count('ort', 'differ')}, "
            f"annotated does not run {count('ort', 'annotated does not run')}, original does not run {count('ort', 'original does not run')}"
        )
        print(
            f"  onnxruntime, all optimizations: identical {count('ort_optimized', 'same')}, "
            f"within rtol 1e-4 {count('ort_optimized', 'close')}, differ {count('ort_optimized', 'differ')}"
        )
    print(f"  failed any check:              {len(failed)}")
    if args.json:
        Path(args.json).write_text(json.dumps(records, indent=1))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
