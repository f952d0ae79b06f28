#!/usr/bin/env python3
"""Score symdim and two peers against runtime shapes on the zoo of export.py.

For each model of --models (default /work/zoo/models, described by its export_log.json):

- Runtime truth: onnxruntime (CPU, graph optimisations off) runs the model at the three
  bindings of its dynamic dims that export.py recorded (batch 1/2/3, sequence 5/8/13, ...),
  every named node output of the main graph added as a graph output (as
  scripts/runtime_shapes.py does), and each one's runtime shape is recorded. A binding
  at which the model does not run is recorded and left out.
- symdim: `SYMDIM infer MODEL --format json`, once per model, on the file as exported
  (tool `symdim`) and on the stripped copy the peers get (tool `symdim_stripped`). Every
  dim is parsed with the expression grammar of docs/grammar.md and evaluated exactly
  (fractions.Fraction) at each binding: input symbols take the binding's values, derived
  symbols their definitions; a data-dependent symbol is unknown.
- Peers, on a copy with every value_info removed and graph-output shapes cleared (the
  stripping of ../shared/corpus/real-models/measure_peers.py):
  `ort`  = onnxruntime SymbolicShapeInference.infer_shapes(model, auto_merge=True),
  `onnx` = onnx.shape_inference.infer_shapes(model, data_prop=True).
  Their dims are ints or dim_param strings (sympy expressions of the input dim names),
  read as sympy prints them and evaluated exactly at the binding; a name that is not an
  input dim name (unk__3, Reshape_12_o0__d1, ...) makes the dim unknown. A peer that
  raises counts all dims unknown and the error is recorded. Each peer runs in a forked child with a timeout.

A "dim" is one axis of one node output at one binding (three bindings per model). Per
tool each dim is exactly one of:
  exact      evaluates to the runtime value
  unknown    no shape, unknown rank, an unknown or data-dependent symbol, or no value
  wrong      evaluates to another value (or the rank differs: all its dims are wrong)
  malformed  does not parse with the grammar (symdim only; an undecided
             `broadcast(..)` dim is counted here, and `bcast_eval_ok` says how many of
             them evaluate, with numpy's rule, to the runtime value)

Every non-exact symdim dim is listed with its tensor, producing node and op, the
expression, the runtime values and a cause category; causes are also grouped by op.

Usage:
  python score.py --symdim PATH [--models DIR] [--out results.json] [--only a,b]
                  [--timeout 300] [--no-peers]
"""

import argparse
import collections
import json
import multiprocessing as mp
import os
import re
import subprocess
import sys
import tempfile
import time
import traceback
from fractions import Fraction
from pathlib import Path

import numpy as np
import onnx

# ============================================================================ grammar


class Malformed(Exception):
    """The text is not in symdim's expression grammar."""


class Unknown(Exception):
    """The expression does not evaluate at the binding (unknown symbol, x/0, ...)."""


class DataDependent(Unknown):
    def __init__(self, sym):
        super().__init__(sym)
        self.sym = sym


class BadBroadcast(Exception):
    """broadcast(a, b) with a != b and neither 1: an error at this binding."""


FUNCS = ("floordiv", "ceildiv", "mod", "min", "max", "broadcast")
MAX_NESTING = 200
_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_]*)|(`(?:[^`\\]|\\.)*`)|(.))")


def tokenize(text):
    toks, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            if text[pos:].strip():
                raise Malformed(f"{text!r}: cannot read at byte {pos}")
            break
        pos = m.end()
        num, name, quoted, other = m.groups()
        if num is not None:
            toks.append(("num", int(num)))
        elif name is not None:
            toks.append(("name", name))
        elif quoted is not None:
            toks.append(("name", re.sub(r"\\(.)", r"\1", quoted[1:-1])))
        elif other is not None:
            if other.strip():
                toks.append(("op", other))
    if text.strip() and not toks:
        raise Malformed(text)
    return toks


def parse(text):
    """Parse a dim of docs/grammar.md into a tuple tree:
    ('num', Fraction) | ('sym', name) | ('neg', e) | (op, a, b) for + - * / |
    ('call', func, a, b)."""
    if not isinstance(text, str):
        raise Malformed(repr(text))
    toks = tokenize(text)
    pos = 0
    depth = 0

    def peek():
        return toks[pos] if pos < len(toks) else (None, None)

    def take(kind=None, val=None):
        nonlocal pos
        t = peek()
        if t[0] is None or (kind and t[0] != kind) or (val is not None and t[1] != val):
            raise Malformed(f"{text!r}: expected {val or kind} at token {pos}")
        pos += 1
        return t

    def expr():
        e = term()
        while peek() in (("op", "+"), ("op", "-")):
            op = take()[1]
            e = (op, e, term())
        return e

    def term():
        e = unary()
        while peek() in (("op", "*"), ("op", "/"), ("op", "%")):
            op = take()[1]
            r = unary()
            e = ("call", "mod", e, r) if op == "%" else (op, e, r)
        return e

    def unary():
        nonlocal depth
        if peek() == ("op", "-"):
            take()
            depth += 1
            if depth > MAX_NESTING:
                raise Malformed("too deep")
            e = ("neg", unary())
            depth -= 1
            return e
        return primary()

    def primary():
        nonlocal depth
        t = peek()
        if t[0] == "num":
            take()
            return ("num", Fraction(t[1]))
        if t[0] == "name":
            take()
            if t[1] in FUNCS and peek() == ("op", "("):
                take("op", "(")
                depth += 1
                if depth > MAX_NESTING:
                    raise Malformed("too deep")
                a = expr()
                take("op", ",")
                b = expr()
                take("op", ")")
                depth -= 1
                return ("call", t[1], a, b)
            return ("sym", t[1])
        if t == ("op", "("):
            take()
            depth += 1
            if depth > MAX_NESTING:
                raise Malformed("too deep")
            e = expr()
            take("op", ")")
            depth -= 1
            return e
        raise Malformed(f"{text!r}: expected a number, a name or '(' at token {pos}")

    e = expr()
    if pos != len(toks):
        raise Malformed(f"{text!r}: trailing input at token {pos}")
    return e


def _floor(q):
    return Fraction(q.numerator // q.denominator)


def evaluate(tree, env):
    """Exact value of a parsed dim. env(name) -> Fraction or raises Unknown."""
    k = tree[0]
    if k == "num":
        return tree[1]
    if k == "sym":
        return env(tree[1])
    if k == "neg":
        return -evaluate(tree[1], env)
    if k == "call":
        f = tree[1]
        a, b = evaluate(tree[2], env), evaluate(tree[3], env)
        if f == "min":
            return min(a, b)
        if f == "max":
            return max(a, b)
        if f == "broadcast":
            if a == b or b == 1:
                return a
            if a == 1:
                return b
            raise BadBroadcast(f"broadcast({a}, {b})")
        if b == 0:
            raise Unknown(f"{f}(_, 0)")
        if f == "floordiv":
            return _floor(a / b)
        if f == "ceildiv":
            return -_floor(-a / b)
        if f == "mod":
            return a - b * _floor(a / b)
        raise Malformed(f)
    a, b = evaluate(tree[1], env), evaluate(tree[2], env)
    if k == "+":
        return a + b
    if k == "-":
        return a - b
    if k == "*":
        return a * b
    if k == "/":
        if b == 0:
            raise Unknown("x/0")
        return a / b
    raise Malformed(k)


def symbols_of(tree, out):
    if tree[0] == "sym":
        out.add(tree[1])
    elif tree[0] == "call":
        symbols_of(tree[2], out)
        symbols_of(tree[3], out)
    elif tree[0] != "num":
        for t in tree[1:]:
            symbols_of(t, out)
    return out


def has_broadcast(tree):
    if tree[0] == "call":
        return tree[1] == "broadcast" or has_broadcast(tree[2]) or has_broadcast(tree[3])
    if tree[0] in ("num", "sym"):
        return False
    return any(has_broadcast(t) for t in tree[1:])


class SymdimEnv:
    """Values of symdim's symbols at one binding."""

    def __init__(self, symbols, inputs):
        self.symbols = symbols  # the report's "symbols"
        self.inputs = inputs  # {input symbol: int}
        self.memo = {}
        self.active = set()

    def __call__(self, name):
        if name in self.inputs:
            return Fraction(self.inputs[name])
        if name in self.memo:
            return self.memo[name]
        s = self.symbols.get(name)
        if s is None:
            raise Unknown(f"symbol {name} not in the report")
        if s.get("kind") == "data-dependent":
            raise DataDependent(name)
        if s.get("kind") != "derived" or name in self.active:
            raise Unknown(f"symbol {name} ({s.get('kind')}) has no value")
        self.active.add(name)
        try:
            v = evaluate(parse(s["definition"]), self)
        finally:
            self.active.discard(name)
        self.memo[name] = v
        return v


# ============================================================================ models


def strip_shapes(model):
    """Copy of model with every value_info removed and graph-output shapes cleared (elem types
    kept), recursively in subgraphs: the stripping of measure_peers.py."""
    m = onnx.ModelProto()
    m.CopyFrom(model)

    def rec(g):
        del g.value_info[:]
        for o in g.output:
            if o.type.HasField("tensor_type"):
                o.type.tensor_type.ClearField("shape")
        for n in g.node:
            for a in n.attribute:
                if a.HasField("g"):
                    rec(a.g)
                for sg in a.graphs:
                    rec(sg)

    rec(m.graph)
    return m


def dims_of(vi):
    t = vi.type
    if not t.HasField("tensor_type") or not t.tensor_type.HasField("shape"):
        return None
    out = []
    for d in t.tensor_type.shape.dim:
        if d.HasField("dim_value"):
            out.append(int(d.dim_value))
        elif d.HasField("dim_param") and d.dim_param:
            out.append(d.dim_param)
        else:
            out.append(None)
    return out


NP_DTYPE = {onnx.TensorProto.FLOAT: np.float32, onnx.TensorProto.FLOAT16: np.float16,
            onnx.TensorProto.DOUBLE: np.float64, onnx.TensorProto.INT64: np.int64,
            onnx.TensorProto.INT32: np.int32, onnx.TensorProto.BOOL: np.bool_}


def feeds_for(model, entry, binding, rng):
    """Input arrays at one binding, and {dim_param: value} for the model's input dims."""
    inits = {t.name for t in model.graph.initializer}
    specs = entry["inputs"]
    feeds, params, notes = {}, {}, []
    for v in model.graph.input:
        if v.name in inits:
            continue
        if v.name not in specs:
            raise RuntimeError(f"graph input {v.name} is not in the export log's inputs")
        want = specs[v.name]["dims"]
        declared = dims_of(v) or [None] * len(want)
        if len(declared) != len(want):
            raise RuntimeError(f"input {v.name}: rank {len(declared)} != {len(want)}")
        shape = []
        for ax, (w, d) in enumerate(zip(want, declared)):
            val = binding[w] if isinstance(w, str) else w
            if isinstance(d, int) and d != val:
                notes.append(f"{v.name}[{ax}] exported static {d} (binding {val})")
                val = d
            if isinstance(d, str):
                if params.get(d, val) != val:
                    raise RuntimeError(f"dim {d} bound to {params[d]} and {val}")
                params[d] = val
            shape.append(val)
        dt = NP_DTYPE[v.type.tensor_type.elem_type]
        fill = specs[v.name]["fill"]
        if fill == "tokens":
            a = rng.integers(0, 100, shape)
        elif fill == "ones":
            a = np.ones(shape)
        elif fill == "zeros":
            a = np.zeros(shape)
        else:
            a = rng.standard_normal(shape)
        feeds[v.name] = a.astype(dt)
    return feeds, params, notes


def node_outputs(g, skip):
    names, seen = [], set(skip)
    producer = {}
    for n in g.node:
        for o in n.output:
            if o and o not in seen:
                seen.add(o)
                names.append(o)
                producer[o] = n
    return names, producer


def runtime_shapes(stripped, feeds_list):
    """[{tensor: [dims]} or {"error": ...}] per binding."""
    import onnxruntime as ort

    m = onnx.ModelProto()
    m.CopyFrom(stripped)
    g = m.graph
    inits = {t.name for t in g.initializer}
    names, _ = node_outputs(g, inits | {i.name for i in g.input})
    declared = {o.name for o in g.output}
    for o in names:
        if o not in declared:
            g.output.append(onnx.ValueInfoProto(name=o))
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.log_severity_level = 3
    so.intra_op_num_threads = 1
    sess = ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])
    outs = [o.name for o in sess.get_outputs()]
    res = []
    for feeds in feeds_list:
        try:
            got = dict(zip(outs, sess.run(outs, feeds)))
        except Exception as e:  # noqa: BLE001
            res.append({"error": short(e)})
            continue
        res.append({o: [int(x) for x in got[o].shape] for o in names if isinstance(got.get(o), np.ndarray)})
    return res


def short(e, n=400):
    s = re.sub(r"\s+", " ", f"{type(e).__name__}: {e}")
    return s if len(s) <= n else s[: n - 100] + " ... " + s[-95:]


# ============================================================================ peers


def _peer_child(kind, data, q):
    try:
        m = onnx.load_from_string(data)
        if kind == "ort":
            from onnxruntime.tools.symbolic_shape_infer import SymbolicShapeInference

            out = SymbolicShapeInference.infer_shapes(m, auto_merge=True)
            if out is None:
                raise RuntimeError("infer_shapes returned None")
        else:
            out = onnx.shape_inference.infer_shapes(m, data_prop=True)
        shapes = {}
        for coll in (out.graph.input, out.graph.value_info, out.graph.output):
            for vi in coll:
                d = dims_of(vi)
                if d is not None:
                    shapes[vi.name] = d
        q.put({"shapes": shapes})
    except BaseException as e:  # noqa: BLE001 - a crash is a result
        tb = traceback.extract_tb(e.__traceback__)
        where = f" at {os.path.basename(tb[-1].filename)}:{tb[-1].lineno}:{tb[-1].name}" if tb else ""
        q.put({"crash": short(e) + where})


def run_peer(kind, stripped_bytes, timeout):
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_peer_child, args=(kind, stripped_bytes, q))
    t0 = time.time()
    p.start()
    res = None
    while time.time() - t0 < timeout:
        try:
            res = q.get(timeout=0.5)
            break
        except Exception:  # noqa: BLE001 - queue.Empty
            if not p.is_alive() and q.empty():
                break
    p.join(5)
    if p.is_alive():
        p.kill()
        p.join()
    if res is None:
        res = {"crash": f"timeout after {timeout}s" if time.time() - t0 >= timeout
               else f"process died (exit code {p.exitcode})"}
    res["seconds"] = round(time.time() - t0, 3)
    return res


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_.:]*")


def _q_floor(x):
    return _floor(Fraction(x))


def _q_ceil(x):
    return -_floor(-Fraction(x))


def _q_mod(a, b):
    if b == 0:
        raise Unknown("Mod(_, 0)")
    return a - b * _floor(a / b)


def _q_div(a, b):
    if b == 0:
        raise Unknown("x/0")
    return Fraction(a) / b


# sympy's printing of the functions the peers write into dim_param, evaluated exactly.
PEER_FUNCS = {
    "floor": _q_floor, "ceiling": _q_ceil, "FloorToInt": _q_floor, "CeilToInt": _q_ceil,
    "TruncToInt": lambda x: Fraction(int(x)), "Abs": abs, "Integer": Fraction,
    "Max": lambda *a: max(a), "Min": lambda *a: min(a), "max": lambda *a: max(a), "min": lambda *a: min(a),
    "Mod": _q_mod, "PythonMod": _q_mod, "FloorDiv": lambda a, b: _q_floor(_q_div(a, b)),
    "CeilDiv": lambda a, b: _q_ceil(_q_div(a, b)), "CleanDiv": _q_div, "IntTrueDiv": _q_div,
    "Rational": _q_div,
}


def _peer_eval(node, env):
    import ast

    if isinstance(node, ast.Expression):
        return _peer_eval(node.body, env)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return Fraction(node.value)
    if isinstance(node, ast.Name):
        if node.id not in env:
            raise Unknown(f"name {node.id}")
        return Fraction(env[node.id])
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _peer_eval(node.operand, env)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp):
        a, b = _peer_eval(node.left, env), _peer_eval(node.right, env)
        op = node.op
        if isinstance(op, ast.Add):
            return a + b
        if isinstance(op, ast.Sub):
            return a - b
        if isinstance(op, ast.Mult):
            return a * b
        if isinstance(op, ast.Div):
            return _q_div(a, b)
        if isinstance(op, ast.FloorDiv):
            return _q_floor(_q_div(a, b))
        if isinstance(op, ast.Mod):
            return _q_mod(a, b)
        if isinstance(op, ast.Pow) and b.denominator == 1 and 0 <= b <= 64:
            return a ** int(b)
        raise Unknown(f"operator {type(op).__name__}")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in PEER_FUNCS \
            and not node.keywords:
        return Fraction(PEER_FUNCS[node.func.id](*[_peer_eval(x, env) for x in node.args]))
    raise Unknown(f"cannot evaluate {type(node).__name__}")


def peer_value(dim, params, cache):
    """Value of a peer's dim at a binding: a Fraction, or raises Unknown. A dim_param is
    read as sympy prints it (Python syntax: + - * / // % **, floor, ceiling, Max, Min,
    Mod, FloorDiv, ...) and evaluated exactly; any name that is not an input dim name
    (unk__3, Reshape_12_o0__d1, ...) makes it unknown."""
    import ast

    if isinstance(dim, int):
        return Fraction(dim)
    if dim is None:
        raise Unknown("no dim")
    if dim in params:
        return Fraction(params[dim])
    key = (dim, tuple(sorted(params.items())))
    if key in cache:
        v = cache[key]
        if isinstance(v, Unknown):
            raise v
        return v
    names = {}

    def sub(m):
        w = m.group(0)
        if w in PEER_FUNCS:
            return w
        names.setdefault(w, f"_z{len(names)}")
        return names[w]

    try:
        text = _IDENT.sub(sub, dim)
        env = {z: params[w] for w, z in names.items() if w in params}
        missing = [w for w in names if w not in params]
        if missing:
            raise Unknown(f"name {missing[0]}")
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except SyntaxError as e:
            raise Unknown(f"not an expression: {dim!r}") from e
        r = _peer_eval(tree, env)
    except Unknown as e:
        cache[key] = e
        raise
    except (ValueError, TypeError, OverflowError, RecursionError) as e:
        cache[key] = Unknown(short(e, 120))
        raise cache[key] from e
    cache[key] = r
    return r


# ============================================================================ scoring

STATUSES = ("exact", "unknown", "wrong", "malformed")


def classify_symdim(shape, rt, env):
    """Per-axis (status, cause-detail) of symdim's shape against runtime dims rt."""
    if shape is None:
        return [("unknown", "unknown rank")] * len(rt)
    if len(shape) != len(rt):
        return [("wrong", f"wrong rank {len(shape)} (runtime {len(rt)})")] * len(rt)
    out = []
    for d, r in zip(shape, rt):
        if isinstance(d, bool) or not isinstance(d, (int, str)):
            out.append(("malformed", f"not an int or string: {d!r}"))
            continue
        if isinstance(d, int):
            out.append(("exact", None) if d == r else ("wrong", "wrong"))
            continue
        try:
            tree = parse(d)
        except Malformed as e:
            out.append(("malformed", f"parse: {e}"))
            continue
        bc = has_broadcast(tree)
        try:
            v = evaluate(tree, env)
        except DataDependent as e:
            out.append(("unknown", f"data-dependent:{e.sym}"))
            continue
        except BadBroadcast as e:
            out.append(("malformed", f"broadcast-eval-error: {e}") if bc else ("wrong", str(e)))
            continue
        except Unknown as e:
            out.append(("unknown", f"does not evaluate: {e}"))
            continue
        if bc:
            out.append(("malformed", "broadcast=" + ("ok" if v == r else "bad")))
            continue
        out.append(("exact", None) if v == r else ("wrong", "wrong"))
    return out


def classify_peer(shape, rt, params, cache):
    if shape is None:
        return ["unknown"] * len(rt)
    if len(shape) != len(rt):
        return ["wrong"] * len(rt)
    out = []
    for d, r in zip(shape, rt):
        try:
            v = peer_value(d, params, cache)
        except Unknown:
            out.append("unknown")
            continue
        out.append("exact" if v == r else "wrong")
    return out


def run_symdim(symdim, path, timeout):
    t0 = time.time()
    try:
        p = subprocess.run([symdim, "infer", str(path), "--format", "json"], capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"crash": f"timeout after {timeout}s"}
    secs = round(time.time() - t0, 3)
    if p.returncode not in (0, 1):
        return {"crash": f"exit {p.returncode}: {p.stderr.strip()[:300]}", "seconds": secs}
    try:
        rep = json.loads(p.stdout)
    except json.JSONDecodeError as e:
        return {"crash": f"bad JSON: {e}", "seconds": secs}
    return {"report": rep, "exit": p.returncode, "seconds": secs}


def symdim_inputs(rep, model, params_per_binding):
    """symdim's input symbols -> value at each binding, from its report of the graph inputs
    and the values fed (an unnamed input dim is the symbol `<input>.<axis>`)."""
    inits = {t.name for t in model.graph.initializer}
    out = [dict() for _ in params_per_binding]
    for v in model.graph.input:
        if v.name in inits:
            continue
        t = rep["tensors"].get(v.name)
        if not t or t.get("shape") is None:
            continue
        decl = dims_of(v) or []
        for ax, d in enumerate(t["shape"]):
            if isinstance(d, str) and ax < len(decl):
                try:
                    tree = parse(d)
                except Malformed:
                    continue
                if tree[0] != "sym":
                    continue
                for i, params in enumerate(params_per_binding):
                    fed = params["__fed__"][v.name][ax]
                    out[i][tree[1]] = fed
    return out


class Causes:
    """Cause categories for symdim's non-exact dims, with the root a reader should look at.

    - unknown rank: the *origin* is found by walking back through inputs of unknown rank
      to the first node whose inputs all have a rank; the category names its op and why
      (`no shape rule for OP` when symdim's diagnostic says so).
    - data-dependent symbol: the op of the node that introduced it (the report's
      `symbols.<s>.node`); `root` is the nearest node upstream of it (itself included)
      that has no shape rule, when there is one.
    """

    def __init__(self, graph, rep):
        self.rep = rep
        self.tensors = rep.get("tensors", {})
        self.syms = rep.get("symbols", {})
        self.producer = {}
        self.nodes = {}
        for n in graph.node:
            self.nodes[n.name] = n
            for o in n.output:
                if o:
                    self.producer.setdefault(o, n)
        self.norule = set()
        self.diag = {}
        for d in rep.get("diagnostics", []):
            if d.get("node"):
                self.diag.setdefault(d["node"], d["message"])
                if d["message"].startswith("no shape rule for"):
                    self.norule.add(d["node"])
        self._origin = {}
        self._root = {}

    def rank_known(self, name):
        if name not in self.producer:  # graph input, initializer
            return True
        t = self.tensors.get(name)
        return bool(t) and t.get("shape") is not None

    def origin(self, node):
        """First node upstream of `node` (itself included) whose inputs all have a rank."""
        seen = set()
        while node is not None and node.name not in seen:
            seen.add(node.name)
            if node.name in self._origin:
                return self._origin[node.name]
            bad = [i for i in node.input if i and not self.rank_known(i)]
            if not bad:
                break
            node = self.producer[bad[0]]
        for n in seen:
            self._origin[n] = node
        return node

    def norule_root(self, node):
        """Nearest node with no shape rule upstream of `node` (itself included), or None."""
        if node.name in self._root:
            return self._root[node.name]
        frontier, seen, found = [node], {node.name}, None
        while frontier and found is None:
            nxt = []
            for n in frontier:
                if n.name in self.norule:
                    found = n
                    break
                for i in n.input:
                    p = self.producer.get(i)
                    if p is not None and p.name not in seen:
                        seen.add(p.name)
                        nxt.append(p)
            frontier = nxt
        self._root[node.name] = found
        return found

    def why(self, node):
        if node.name in self.norule:
            return f"no shape rule for {node.op_type}"
        if node.name in self.diag:
            return f"{node.op_type} with a diagnostic"
        return f"{node.op_type}"

    def of(self, detail, node):
        """(category, root) of a non-exact dim of an output of `node`."""
        if detail is None or node is None:
            return "?", ""
        if detail == "unknown rank":
            o = self.origin(node)
            root = f"{o.op_type} {o.name}"
            if o.name in self.norule:
                return f"unknown rank: no shape rule for {o.op_type}", root
            if o.name in self.diag:
                return f"unknown rank: from {o.op_type} (diagnostic)", root
            return f"unknown rank: from {o.op_type}", root
        if detail.startswith("data-dependent:"):
            sym = detail.split(":", 1)[1]
            intro = self.nodes.get(self.syms.get(sym, {}).get("node", ""))
            if intro is None:
                return "data-dependent symbol from ?", sym
            r = self.norule_root(intro)
            root = f"{sym} at {intro.op_type} {intro.name}"
            if r is not None and r is not intro:
                root += f"; no shape rule upstream: {r.op_type} {r.name}"
            return f"data-dependent symbol from {self.why(intro)}", root
        if detail.startswith("broadcast=") or detail.startswith("broadcast-eval-error"):
            return "malformed-broadcast", ""
        if detail.startswith("parse:") or detail.startswith("not an int"):
            return "malformed (does not parse)", ""
        if detail.startswith("wrong rank"):
            return "wrong rank", ""
        if detail.startswith("does not evaluate"):
            return "does not evaluate", detail
        return "wrong", ""


def score_model(path, entry, symdim, timeout, peers):
    model = onnx.load(str(path))
    stripped = strip_shapes(model)
    res = {"file": path.name, "arch": entry.get("arch"), "exporter": entry.get("exporter"),
           "nodes": len(model.graph.node)}
    rng = np.random.default_rng(0)
    feeds_list, params_list, notes = [], [], []
    for b in entry["bindings"]:
        feeds, params, n = feeds_for(model, entry, b, rng)
        params["__fed__"] = {k: list(v.shape) for k, v in feeds.items()}
        feeds_list.append(feeds)
        params_list.append(params)
        notes += n
    res["bindings"] = [{k: v for k, v in p.items() if k != "__fed__"} for p in params_list]
    if notes:
        res["notes"] = sorted(set(notes))
    t0 = time.time()
    try:
        rts = runtime_shapes(stripped, feeds_list)
    except Exception as e:  # noqa: BLE001
        res["error"] = "runtime: " + short(e)
        return res
    res["runtime_seconds"] = round(time.time() - t0, 2)
    ok_idx = [i for i, r in enumerate(rts) if "error" not in r]
    res["runtime_errors"] = {str(i): rts[i]["error"] for i in range(len(rts)) if "error" in rts[i]}
    if not ok_idx:
        res["error"] = "runtime failed at every binding"
        return res
    g = model.graph
    inits = {t.name for t in g.initializer}
    names, producer = node_outputs(g, inits | {i.name for i in g.input})

    tools = {}
    # --- symdim, as exported and stripped
    with tempfile.TemporaryDirectory() as td:
        sp = Path(td) / path.name
        onnx.save(stripped, str(sp))
        sd_runs = {"symdim": run_symdim(symdim, path, timeout), "symdim_stripped": run_symdim(symdim, sp, timeout)}
    for tool, run in sd_runs.items():
        t = {s: 0 for s in STATUSES}
        t["bcast_eval_ok"] = 0
        t["seconds"] = run.get("seconds")
        issues = {}
        if "crash" in run:
            t["crash"] = run["crash"]
            for i in ok_idx:
                for o, rt in rts[i].items():
                    t["unknown"] += len(rt)
            tools[tool] = t
            continue
        rep = run["report"]
        t["exit"] = run["exit"]
        syms = rep.get("symbols", {})
        why = Causes(g, rep)
        inputs = symdim_inputs(rep, model, params_list)
        for i in ok_idx:
            env = SymdimEnv(syms, inputs[i])
            for o, rt in rts[i].items():
                tt = rep["tensors"].get(o)
                shape = tt.get("shape") if tt else None
                cls = classify_symdim(shape, rt, env) if tt else [("unknown", "unknown rank")] * len(rt)
                n = producer.get(o)
                for ax, ((st, detail), r) in enumerate(zip(cls, rt)):
                    t[st] += 1
                    if detail and detail.startswith("broadcast=ok"):
                        t["bcast_eval_ok"] += 1
                    if st == "exact":
                        continue
                    key = (o, ax)
                    it = issues.get(key)
                    if it is None:
                        cat, root = why.of(detail, n)
                        it = issues[key] = {
                            "tensor": o, "axis": ax, "node": n.name if n else "", "op": n.op_type if n else "?",
                            "expr": None if shape is None else (shape[ax] if ax < len(shape) else shape),
                            "status": st, "cause": cat, "root": root, "detail": detail, "runtime": [], "count": 0}
                    it["runtime"].append(r)
                    it["count"] += 1
        t["diagnostics"] = len(rep.get("diagnostics", []))
        t["nonexact"] = list(issues.values())
        tools[tool] = t

    # --- peers
    if peers:
        data = stripped.SerializeToString()
        for kind in ("ort", "onnx"):
            run = run_peer(kind, data, timeout)
            t = {s: 0 for s in STATUSES}
            t["seconds"] = run["seconds"]
            if "crash" in run:
                t["crash"] = run["crash"]
            shapes = run.get("shapes", {})
            cache = {}
            for i in ok_idx:
                params = {k: v for k, v in params_list[i].items() if k != "__fed__"}
                for o, rt in rts[i].items():
                    for st in classify_peer(shapes.get(o), rt, params, cache):
                        t[st] += 1
            tools[kind] = t
    res["tensors"] = len(rts[ok_idx[0]])
    res["dims"] = sum(len(r) for i in ok_idx for r in rts[i].values())
    res["bindings_run"] = len(ok_idx)
    res["tools"] = tools
    return res


# ============================================================================ summary

TOOLS = ("symdim", "symdim_stripped", "ort", "onnx")


def totals(models):
    tot = {tool: collections.Counter() for tool in TOOLS}
    for r in models.values():
        for tool, t in r.get("tools", {}).items():
            for k in STATUSES + ("bcast_eval_ok",):
                tot[tool][k] += t.get(k, 0)
            tot[tool]["crashes"] += 1 if "crash" in t else 0
            tot[tool]["models"] += 1
    tot = {k: dict(v) for k, v in tot.items() if v}
    return tot


def root_key(it):
    """The cause of a non-exact dim with the upstream op that has no shape rule, if any."""
    m = re.search(r"no shape rule upstream: (\S+)", it.get("root") or "")
    return it["cause"] + (f" [upstream: no shape rule for {m.group(1)}]" if m else "")


def causes(models, tool="symdim", key=lambda it: (it["op"], it["cause"])):
    """Non-exact dims grouped by key (default: producing op and cause), with counts and
    up to five examples from different models."""
    groups = {}
    for r in models.values():
        t = r.get("tools", {}).get(tool)
        if not t:
            continue
        for it in t.get("nonexact", []):
            k = key(it)
            g = groups.setdefault(k, {"key": list(k) if isinstance(k, tuple) else k, "dims": 0, "tensors": 0,
                                      "ops": collections.Counter(), "models": set(), "examples": []})
            g["dims"] += it["count"]
            g["tensors"] += 1
            g["ops"][it["op"]] += it["count"]
            g["models"].add(r["file"])
            if len(g["examples"]) < 5 and all(e["model"] != r["file"] for e in g["examples"]):
                g["examples"].append({"model": r["file"], "tensor": it["tensor"], "axis": it["axis"],
                                      "op": it["op"], "expr": it["expr"], "runtime": it["runtime"],
                                      "root": it.get("root"), "detail": it["detail"]})
    out = sorted(groups.values(), key=lambda g: (-g["dims"], str(g["key"])))
    for g in out:
        g["models"] = sorted(g["models"])
        g["ops"] = dict(g["ops"].most_common())
    return out


def print_summary(doc):
    models = doc["models"]
    print(f"{'model':44} {'dims':>6} {'symdim':>7} {'sd_strp':>7} {'ort':>7} {'onnx':>7}  notes")
    for name, r in models.items():
        if "tools" not in r:
            print(f"{name:44} {'-':>6}  ERROR {r.get('error', '')[:80]}")
            continue
        cells = []
        for tool in TOOLS:
            t = r["tools"].get(tool)
            cells.append("-" if t is None else ("crash" if "crash" in t and t["exact"] == 0 else str(t["exact"])))
        note = []
        if r.get("runtime_errors"):
            note.append(f"runtime failed at {len(r['runtime_errors'])} binding(s)")
        sd, ort_ = r["tools"].get("symdim"), r["tools"].get("ort")
        if sd and ort_ and sd["exact"] < ort_["exact"]:
            note.append("symdim<ort")
        print(f"{name:44} {r['dims']:>6} {cells[0]:>7} {cells[1]:>7} {cells[2]:>7} {cells[3]:>7}  {'; '.join(note)}")
    print()
    print(f"{'tool':16} {'exact':>8} {'unknown':>8} {'wrong':>7} {'malformed':>9} {'crashes':>7}  (dims; models)")
    for tool, t in doc["totals"].items():
        print(f"{tool:16} {t.get('exact', 0):>8} {t.get('unknown', 0):>8} {t.get('wrong', 0):>7} "
              f"{t.get('malformed', 0):>9} {t.get('crashes', 0):>7}  ({t.get('models', 0)} models)")
    print()
    print("symdim non-exact dims by op and cause (top 25):")
    for g in doc["symdim_causes"][:25]:
        ex = g["examples"][0]
        op, cause = g["key"]
        print(f"  {g['dims']:6} {op:18} {cause[:55]:55} e.g. {ex['model']} {ex['tensor']}[{ex['axis']}]"
              f" = {ex['expr']!r} vs {ex['runtime']}")
    print()
    print("symdim non-exact dims by root cause:")
    for g in doc["symdim_root_causes"][:20]:
        ex = g["examples"][0]
        ops = ", ".join(f"{k} {v}" for k, v in list(g["ops"].items())[:4])
        print(f"  {g['dims']:6} {g['key'][:80]:80} {len(g['models']):3} models; ops {ops}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--symdim", required=True, help="the symdim binary to score")
    ap.add_argument("--models", default="/work/zoo/models")
    ap.add_argument("--out", default="/work/zoo/results/results.json")
    ap.add_argument("--only", default="", help="comma-separated file names or architecture names")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--no-peers", action="store_true")
    a = ap.parse_args()
    symdim = str(Path(a.symdim).resolve())
    if not os.access(symdim, os.X_OK):
        sys.exit(f"not an executable: {symdim}")
    mdir = Path(a.models)
    log = json.loads((mdir / "export_log.json").read_text())
    only = {x for x in a.only.split(",") if x}
    import onnxruntime
    from onnxruntime.tools.symbolic_shape_infer import SymbolicShapeInference  # noqa: F401

    doc = {"symdim": symdim, "symdim_version": subprocess.run([symdim, "--version"], capture_output=True,
                                                                text=True).stdout.strip(),
           "models_dir": str(mdir), "onnx": onnx.__version__, "onnxruntime": onnxruntime.__version__,
           "started": time.strftime("%Y-%m-%d %H:%M:%S"), "models": {}}
    files = sorted(f for f, e in log.items() if e.get("ok") and (mdir / f).exists())
    for f in files:
        e = log[f]
        if only and f not in only and e.get("arch") not in only:
            continue
        t0 = time.time()
        try:
            r = score_model(mdir / f, e, symdim, a.timeout, not a.no_peers)
        except Exception as ex:  # noqa: BLE001
            r = {"file": f, "error": short(ex), "trace": traceback.format_exc()[-800:]}
        r["seconds"] = round(time.time() - t0, 2)
        doc["models"][f] = r
        if "tools" in r:
            c = " ".join(f"{k}={v['exact']}" for k, v in r["tools"].items())
            print(f"{f:44} dims={r['dims']:6} {c} ({r['seconds']}s)", file=sys.stderr, flush=True)
        else:
            print(f"{f:44} ERROR {r.get('error')}", file=sys.stderr, flush=True)
    doc["failed_exports"] = {f: e.get("error", "") for f, e in log.items() if not e.get("ok")}
    doc["totals"] = totals(doc["models"])
    doc["symdim_causes"] = causes(doc["models"], "symdim")
    doc["symdim_root_causes"] = causes(doc["models"], "symdim", root_key)
    doc["symdim_stripped_causes"] = causes(doc["models"], "symdim_stripped")
    doc["symdim_stripped_root_causes"] = causes(doc["models"], "symdim_stripped", root_key)
    doc["symdim_below_ort"] = [
        {"model": f, "symdim": r["tools"]["symdim"]["exact"], "symdim_stripped": r["tools"]["symdim_stripped"]["exact"],
         "ort": r["tools"]["ort"]["exact"], "dims": r["dims"]}
        for f, r in doc["models"].items()
        if "tools" in r and "ort" in r["tools"]
        and min(r["tools"]["symdim"]["exact"], r["tools"]["symdim_stripped"]["exact"]) < r["tools"]["ort"]["exact"]]
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1, default=str) + "\n")
    print_summary(doc)
    print(f"\nwritten {out}")


if __name__ == "__main__":
    main()
