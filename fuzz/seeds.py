#!/usr/bin/env python3
"""Seed corpora for the fuzz targets, from the repository's own inputs.

    python3 fuzz/seeds.py OUT [CORPUS]

writes OUT/TARGET/ for every target in fuzz/fuzz_targets/: each file named by the
first 16 hex digits of its SHA-1. CORPUS (default ../shared/corpus, skipped when
absent) adds the small real models of the shared corpus. Files of 200 KB or more
are left out, so that libFuzzer's mutations stay fast.
"""

import hashlib
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MAX_BYTES = 200_000


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    out = pathlib.Path(sys.argv[1])
    corpus = pathlib.Path(sys.argv[2]) if len(sys.argv) == 3 else ROOT.parent / "shared" / "corpus"
    shared = corpus.is_dir()
    seeds = {
        "onnx_bytes": onnx(shared and corpus),
        "annotate": onnx(shared and corpus),
        "ir_xml": ir(shared and corpus),
        "onednn_json": onednn(shared and corpus),
        "op_rules": op_rules(),
        "expr_parse": expressions(),
        "cli_args": cli_args(),
        "algebra_ops": files(ROOT / "tests/fixtures/fuzz", "algebra_ops_*.bin"),
    }
    for target, items in seeds.items():
        d = out / target
        d.mkdir(parents=True, exist_ok=True)
        names = {hashlib.sha1(data).hexdigest()[:16]: data for data in items if len(data) < MAX_BYTES}
        for name, data in names.items():
            (d / name).write_bytes(data)
        print(f"{target}: {len(names)} seeds in {d}")


def files(root, pattern):
    return [p.read_bytes() for p in sorted(root.rglob(pattern)) if p.is_file()]


def onnx(corpus):
    found = files(ROOT / "tests", "*.onnx") + files(ROOT / "examples", "*.onnx")
    return found + (files(corpus, "*.onnx") if corpus else [])


def ir(corpus):
    """Every IR case of tests/fixtures/openvino_ops, and each IR model as XML,
    then 0xFF and its weights when both fit (the ir_xml target's input)."""
    cases = json.loads((ROOT / "tests/fixtures/openvino_ops/ov_cases.json").read_text())
    found = [c["xml"].encode() for c in cases["cases"] if "xml" in c]
    xmls = sorted((ROOT / "tests").rglob("*.xml"))
    if corpus:
        xmls += sorted(corpus.rglob("*.xml"))
    for xml in xmls:
        data, weights = xml.read_bytes(), xml.with_suffix(".bin")
        if weights.is_file() and len(data) + 1 + weights.stat().st_size < MAX_BYTES:
            data += b"\xff" + weights.read_bytes()
        found.append(data)
    return found


def onednn(corpus):
    found = files(ROOT / "tests/fixtures/onednn", "*.json")
    if corpus:
        found += files(corpus / "onednn-graph", "*.json")
    return [f for f in found if b'"graph"' in f]


def op_rules():
    """The example rules file, the rule texts of docs/op-rules.md and the rule texts
    written as string literals in the op-rules tests."""
    found = [(ROOT / "examples/op_rules/onnxruntime_extensions.txt").read_bytes()]
    rule = re.compile(r"(^|\n)\s*op ")
    doc = (ROOT / "docs/op-rules.md").read_text()
    found += [m.encode() for m in re.findall(r"```text\n(.*?)```", doc, re.S) if rule.search(m)]
    for src in ["tests/it/ops/declared.rs", "src/read/oprules/tests.rs"]:
        text = (ROOT / src).read_text()
        for lit in re.findall(r'(?<![r#\w])"((?:[^"\\]|\\.)*)"', text, re.S):
            lit = re.sub(r"\\\n\s*", "", lit).replace("\\n", "\n").replace('\\"', '"')
            if rule.search(lit):
                found.append(lit.replace("\\\\", "\\").encode())
    return found


def expressions():
    """The expressions of the grammar's and the algebra's docs (code spans)."""
    found = set()
    for doc in ["docs/grammar.md", "docs/algebra.md", "docs/rules.md"]:
        for span in re.findall(r"`([^`\n]{1,200})`", (ROOT / doc).read_text()):
            if re.search(r"[A-Za-z0-9]", span) and not span.startswith(("symdim", "--")):
                found.add(span.encode())
    return sorted(found)


def cli_args():
    found = files(ROOT / "tests/fixtures/fuzz", "cli_args_*.txt")
    return found + [
        b"batch=2",
        b"b batch=2\na batch >= 3\nr seq=1..64\no seq=8",
        b"`p2o.Dyn.0`=4\nseq >= 2",
        b"s0:0=N\ns1:2=seq",
    ]


if __name__ == "__main__":
    main()
