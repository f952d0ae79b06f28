"""Models written by hand: ONNX protobuf (a minimal writer, and a reader that rewrites
the declared input dims of an existing model), OpenVINO IR (XML and its `.bin`), and
rule files. Standard library only."""

import json
import re
import struct

# ---------- protobuf writing ----------


def _varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def f_int(field, v):
    """A varint field."""
    return _varint(field << 3) + _varint(v)


def f_bytes(field, b):
    """A length-delimited field (bytes, text or a sub-message)."""
    if isinstance(b, str):
        b = b.encode()
    return _varint((field << 3) | 2) + _varint(len(b)) + b


def int64s(values):
    return b"".join(struct.pack("<q", v) for v in values)


# ---------- ONNX messages ----------

FLOAT, INT64 = 1, 7


def value_info(name, elem, dims):
    """A ValueInfoProto of a tensor; `dims` None is an unknown rank, each dim an int
    (dim_value), a str (dim_param) or "?" (neither)."""
    tensor = f_int(1, elem)
    if dims is not None:
        shape = b"".join(
            f_bytes(1, f_int(1, d) if isinstance(d, int) else (b"" if d == "?" else f_bytes(2, d))) for d in dims
        )
        tensor += f_bytes(2, shape)
    return f_bytes(1, name) + f_bytes(2, f_bytes(1, tensor))


def node(name, op, inputs, outputs, attrs=b"", domain=""):
    out = b"".join(f_bytes(1, i) for i in inputs) + b"".join(f_bytes(2, o) for o in outputs)
    out += f_bytes(3, name) + f_bytes(4, op) + attrs
    if domain:
        out += f_bytes(7, domain)
    return out


def attr_int(name, v):
    """An INT attribute."""
    return f_bytes(5, f_bytes(1, name) + f_int(3, v) + f_int(20, 2))


def attr_ints(name, vs):
    """An INTS attribute."""
    return f_bytes(5, f_bytes(1, name) + b"".join(f_int(8, v) for v in vs) + f_int(20, 7))


AXIS0 = attr_int("axis", 0)


def model(nodes, inits, inputs, outputs, value_infos=(), opset=17, domains=()):
    """A ModelProto (IR version 8) of one graph; `domains` are extra (domain, version)
    opset imports."""
    g = b"".join(f_bytes(1, n) for n in nodes) + f_bytes(2, "g")
    g += b"".join(f_bytes(5, t) for t in inits)
    g += b"".join(f_bytes(11, v) for v in inputs) + b"".join(f_bytes(12, v) for v in outputs)
    g += b"".join(f_bytes(13, v) for v in value_infos)
    ops = f_bytes(8, f_bytes(1, "") + f_int(2, opset))
    ops += b"".join(f_bytes(8, f_bytes(1, d) + f_int(2, v)) for d, v in domains)
    return f_int(1, 8) + ops + f_bytes(7, g)


def int64_init(name, dims, values):
    """An int64 initializer with raw data."""
    return b"".join(f_int(1, d) for d in dims) + f_int(2, INT64) + f_bytes(8, name) + f_bytes(9, int64s(values))


def ext_tensor(name, dims, entries):
    """An int64 initializer whose data is external (`entries`: (key, value) pairs)."""
    t = b"".join(f_int(1, d) for d in dims) + f_int(2, INT64) + f_bytes(8, name)
    t += b"".join(f_bytes(13, f_bytes(1, k) + f_bytes(2, v)) for k, v in entries)
    return t + f_int(14, 1)


def identity_model(dims):
    """`y = Identity(x)` with x declared `dims` (dim texts go to dim_param)."""
    return model([node("id", "Identity", ["x"], ["y"])], [], [value_info("x", FLOAT, dims)], [value_info("y", FLOAT, None)])


# ---------- protobuf reading (for rewriting corpus models) ----------


def _read_varint(buf, i):
    v = shift = 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return v, i


def fields(buf):
    """The fields of a message as (number, wire type, value): an int for varints and
    fixed-width fields (as raw bytes for those), bytes for length-delimited ones."""
    out, i, n = [], 0, len(buf)
    while i < n:
        key, i = _read_varint(buf, i)
        num, wire = key >> 3, key & 7
        if wire == 0:
            v, i = _read_varint(buf, i)
        elif wire == 1:
            v, i = bytes(buf[i:i + 8]), i + 8
        elif wire == 2:
            ln, i = _read_varint(buf, i)
            v, i = bytes(buf[i:i + ln]), i + ln
        elif wire == 5:
            v, i = bytes(buf[i:i + 4]), i + 4
        else:
            raise ValueError(f"wire type {wire}")
        out.append((num, wire, v))
    return out


def unfields(fs):
    out = bytearray()
    for num, wire, v in fs:
        out += _varint((num << 3) | wire)
        if wire == 0:
            out += _varint(v)
        elif wire == 2:
            out += _varint(len(v)) + v
        else:
            out += v
    return bytes(out)


def _edit(buf, path, fn):
    """`buf` with every sub-message at field path `path` replaced by `fn(sub)`."""
    fs = fields(buf)
    out = []
    for num, wire, v in fs:
        if wire == 2 and num == path[0]:
            v = fn(v) if len(path) == 1 else _edit(v, path[1:], fn)
        out.append((num, wire, v))
    return unfields(out)


def onnx_inputs(data):
    """The declared inputs of a model's main graph that are not initializers, as
    [(name, dims)] with each dim an int, a dim_param str or None (unnamed); dims None
    when the input is not a tensor of known rank."""
    graph = next((v for n, w, v in fields(data) if n == 7 and w == 2), b"")
    gfs = fields(graph)
    inits = {next((v.decode() for n, w, v in fields(t) if n == 8), "") for n, w, t in gfs if n == 5 and w == 2}
    out = []
    for n, w, vi in gfs:
        if n != 11 or w != 2:
            continue
        vfs = fields(vi)
        name = next((v.decode(errors="replace") for k, _, v in vfs if k == 1), "")
        if name in inits:
            continue
        out.append((name, _dims(vfs)))
    return out


def _dims(vfs):
    tp = next((v for k, w, v in vfs if k == 2 and w == 2), None)
    tt = tp and next((v for k, w, v in fields(tp) if k == 1 and w == 2), None)
    shape = tt and next((v for k, w, v in fields(tt) if k == 2 and w == 2), None)
    if shape is None:
        return None
    dims = []
    for k, w, d in fields(shape):
        if k != 1:
            continue
        dfs = fields(d)
        val = next((v for j, ww, v in dfs if j == 1 and ww == 0), None)
        par = next((v.decode(errors="replace") for j, ww, v in dfs if j == 2 and ww == 2), None)
        dims.append(val if val is not None else (par or None))
    return dims


def onnx_set_input_dims(data, new):
    """The model with input dims replaced: `new` maps (input name, axis) to an int,
    written as dim_value (its dim_param dropped)."""

    def on_graph(g):
        out = []
        for n, w, v in fields(g):
            if n == 11 and w == 2:
                v = on_input(v)
            out.append((n, w, v))
        return unfields(out)

    def on_input(vi):
        name = next((v.decode(errors="replace") for k, _, v in fields(vi) if k == 1), "")
        axes = {a: val for (nm, a), val in new.items() if nm == name}
        if not axes:
            return vi
        counter = iter(range(1 << 30))

        def on_shape(shape):
            out = []
            for k, w, d in fields(shape):
                if k == 1 and w == 2:
                    a = next(counter)
                    if a in axes:
                        keep = [(j, ww, v) for j, ww, v in fields(d) if j == 3]
                        d = unfields([(1, 0, axes[a] & ((1 << 64) - 1))] + keep)
                out.append((k, w, d))
            return unfields(out)

        return _edit(vi, [2, 1, 2], on_shape)

    return _edit(data, [7], on_graph)


# ---------- OpenVINO IR ----------


class Ir:
    """A small IR writer (the builder of tests/frontend_openvino.rs)."""

    def __init__(self):
        self.layers, self.edges, self.bin, self.next = [], [], bytearray(), 0

    def _id(self):
        self.next += 1
        return self.next - 1

    def param(self, name, shape, et="f32"):
        i = self._id()
        self.layers.append(
            f'<layer id="{i}" name="{name}" type="Parameter" version="opset1"><data shape="{shape}" element_type="{et}"/>'
            f'<output><port id="0" precision="FP32" names="{name}"/></output></layer>'
        )
        return (i, 0)

    def i64s(self, name, vals, shape=None):
        i = self._id()
        off = len(self.bin)
        self.bin += int64s(vals)
        shape = str(len(vals)) if shape is None else shape
        self.layers.append(
            f'<layer id="{i}" name="{name}" type="Const" version="opset1"><data element_type="i64" shape="{shape}" '
            f'offset="{off}" size="{8 * len(vals)}"/><output><port id="0" precision="I64"/></output></layer>'
        )
        return (i, 0)

    def op(self, name, ty, version, data, inputs, outputs=1):
        i = self._id()
        attrs = "".join(f' {k}="{v}"' for k, v in data)
        ins = "".join(f'<port id="{j}"/>' for j in range(len(inputs)))
        outs = "".join(f'<port id="{len(inputs) + j}" precision="FP32"/>' for j in range(outputs))
        self.layers.append(
            f'<layer id="{i}" name="{name}" type="{ty}" version="{version}"><data{attrs}/><input>{ins}</input>'
            f"<output>{outs}</output></layer>"
        )
        for j, (l, p) in enumerate(inputs):
            self.edges.append(f'<edge from-layer="{l}" from-port="{p}" to-layer="{i}" to-port="{j}"/>')
        return [(i, len(inputs) + j) for j in range(outputs)]

    def result(self, src):
        i = self._id()
        self.layers.append(f'<layer id="{i}" name="out{i}" type="Result" version="opset1"><input><port id="0"/></input></layer>')
        self.edges.append(f'<edge from-layer="{src[0]}" from-port="{src[1]}" to-layer="{i}" to-port="0"/>')

    def write(self, xml_path):
        xml_path.write_text(
            f'<?xml version="1.0"?><net name="t" version="11"><layers>{"".join(self.layers)}</layers>'
            f'<edges>{"".join(self.edges)}</edges></net>'
        )
        xml_path.with_suffix(".bin").write_bytes(bytes(self.bin))


_PARAM = re.compile(r'(<layer\b[^>]*type="Parameter"[^>]*>)(.*?)(</layer>)', re.S)
_NAME = re.compile(r'\bname="([^"]*)"')
_SHAPE = re.compile(r'(<data\b[^>]*\bshape=")([^"]*)(")')
_PORT_DIMS = re.compile(r"(<output>\s*<port\b[^>]*>)(.*?)(</port>)", re.S)
_DIM = re.compile(r"<dim>([^<]*)</dim>")


def _dynamic(d):
    d = d.strip()
    return d in ("?", "-1") or ".." in d


def ir_inputs(xml):
    """The Parameters of an IR as [(name, [dim text])] (from the `shape` attribute)."""
    out = []
    for m in _PARAM.finditer(xml):
        name = _NAME.search(m.group(1)).group(1)
        s = _SHAPE.search(m.group(2))
        if s is None or s.group(2).strip() in ("...", "?", ""):
            continue
        out.append((name, s.group(2).split(",")))
    return out


def ir_set_input_dims(xml, new):
    """The IR text with Parameter dims replaced: `new` maps (name, axis) to an int, set in
    the `shape` attribute and the output port's `<dim>`."""

    def on_param(m):
        name = _NAME.search(m.group(1)).group(1)
        axes = {a: v for (n, a), v in new.items() if n == name}
        body = m.group(2)
        if axes:

            def on_shape(s):
                ds = s.group(2).split(",")
                for a, v in axes.items():
                    if a < len(ds):
                        ds[a] = str(v)
                return s.group(1) + ",".join(ds) + s.group(3)

            def on_port(p):
                k = iter(range(1 << 30))
                dims = _DIM.sub(lambda d: f"<dim>{axes[a]}</dim>" if (a := next(k)) in axes else d.group(0), p.group(2))
                return p.group(1) + dims + p.group(3)

            body = _SHAPE.sub(on_shape, body, count=1)
            body = _PORT_DIMS.sub(on_port, body, count=1)
        return m.group(1) + body + m.group(3)

    return _PARAM.sub(on_param, xml)


# ---------- oneDNN Graph JSON ----------


def onednn_inputs(text):
    """The input logical tensors of a oneDNN Graph JSON as {id: shape}."""
    d = json.loads(text)
    ports = set(d.get("input_ports", []))
    out = {}
    for op in d.get("graph", []):
        for t in op.get("inputs", []):
            if t.get("id") in ports and isinstance(t.get("shape"), list):
                out[t["id"]] = t["shape"]
    return out


def onednn_set_dims(text, new):
    """The JSON with dims of input logical tensors replaced (`new`: (id, axis) -> int),
    wherever a tensor of that id appears."""
    d = json.loads(text)
    for op in d.get("graph", []):
        for t in op.get("inputs", []) + op.get("outputs", []):
            for (tid, a), v in new.items():
                if t.get("id") == tid and isinstance(t.get("shape"), list) and a < len(t["shape"]):
                    t["shape"][a] = v
    return json.dumps(d, indent=1)
