#!/usr/bin/env python3
"""Run the `symdim` CLI over every model file it can find and record, or compare,
what each command prints: stdout, stderr and the exit status, and the bytes of the
annotated model `-o` writes.

A refactor that must not change behaviour records the old binary's outputs, then
compares the new binary's against them:

    python3 scripts/compare_outputs.py record  --bin OLD/symdim --dir /tmp/outs
    python3 scripts/compare_outputs.py compare --bin target/release/symdim --dir /tmp/outs

Models: every .onnx, IR .xml and oneDNN .json under tests/, examples/ and, when it
exists, ../shared/corpus. Commands per model: `infer` (text, json), `infer --bind`
every input symbol to 2, `constraints` (text, json), `check` with every input symbol
bound to 3, `explain` of the first graph output, `cost` (text, json, json with every
input symbol bound to 2), `ranges --format json`, and `infer -o` (ONNX). The count of
comparisons is printed; any difference is listed and the exit status is 1.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def models():
    roots = [os.path.join(ROOT, "tests"), os.path.join(ROOT, "examples")]
    shared = os.path.join(os.path.dirname(ROOT), "shared", "corpus")
    if os.path.isdir(shared):
        roots.append(shared)
    found = []
    for root in roots:
        for d, _, files in os.walk(root):
            for f in files:
                p = os.path.join(d, f)
                if f.endswith(".onnx") or f.endswith(".xml"):
                    found.append(p)
                elif f.endswith(".json") and "onednn" in p:
                    found.append(p)
    return sorted(found)


def run(binary, args, timeout=600):
    try:
        p = subprocess.run([binary] + args, capture_output=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", b"", b""


def digest(code, out, err):
    h = hashlib.sha256()
    h.update(str(code).encode() + b"\0" + out + b"\0" + err)
    return h.hexdigest()


def commands(binary, model):
    """(label, args) of every command for one model; reads the model's symbols from
    the JSON report so that the binds are the same for either binary."""
    code, out, _ = run(binary, ["infer", model, "--format", "json"])
    symbols, outputs = [], []
    if code in (0, 1):
        try:
            rep = json.loads(out)
            symbols = [s for s, v in rep.get("symbols", {}).items() if v.get("kind") == "input"]
            outputs = rep.get("outputs", [])
        except ValueError:
            pass
    cmds = [
        ("infer", ["infer", model]),
        ("infer-json", ["infer", model, "--format", "json"]),
        ("constraints", ["constraints", model]),
        ("constraints-json", ["constraints", model, "--format", "json"]),
        ("cost", ["cost", model]),
        ("cost-json", ["cost", model, "--format", "json"]),
        ("ranges-json", ["ranges", model, "--format", "json"]),
    ]
    if symbols:
        binds2 = sum((["--bind", f"{s}=2"] for s in symbols), [])
        binds3 = sum((["--bind", f"{s}=3"] for s in symbols), [])
        cmds.append(("infer-bind", ["infer", model, "--format", "json"] + binds2))
        cmds.append(("check", ["check", model] + binds3))
        cmds.append(("cost-bind", ["cost", model, "--format", "json"] + binds2))
    if outputs:
        cmds.append(("explain", ["explain", model, outputs[0]]))
    return cmds


def outputs_of(binary, model):
    res = {}
    for label, args in commands(binary, model):
        res[label] = digest(*run(binary, args))
    if model.endswith(".onnx"):
        with tempfile.TemporaryDirectory() as t:
            out = os.path.join(t, "out.onnx")
            code, so, se = run(binary, ["infer", model, "-o", out])
            body = open(out, "rb").read() if os.path.exists(out) else b""
            res["annotate"] = digest(code, so + b"\0" + body, se)
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["record", "compare"])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--dir", required=True)
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    table = os.path.join(a.dir, "outputs.json")
    found = {}
    for m in models():
        key = os.path.relpath(m, ROOT)
        # Paths are printed in reports: run from the same place either way.
        found[key] = outputs_of(os.path.abspath(a.bin), os.path.relpath(m, os.getcwd()))
    if a.mode == "record":
        json.dump(found, open(table, "w"), indent=1, sort_keys=True)
        print(f"recorded {sum(len(v) for v in found.values())} outputs of {len(found)} models")
        return 0
    old = json.load(open(table))
    n, diffs = 0, []
    for m, outs in sorted(old.items()):
        new = found.get(m, {})
        for label, h in sorted(outs.items()):
            n += 1
            if new.get(label) != h:
                diffs.append(f"{m} {label}")
        for label in sorted(set(new) - set(outs)):
            diffs.append(f"{m} {label} (new)")
    for m in sorted(set(found) - set(old)):
        diffs.append(f"{m} (model not recorded)")
    print(f"{n} comparisons over {len(old)} models: {len(diffs)} differ")
    for d in diffs:
        print("  " + d)
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
