//! A small ONNX writer for tests that need model files on disk: protobuf messages
//! built field by field, enough for graphs of a few nodes with inputs, outputs,
//! `value_info` and initializers (inline or in external files).
#![allow(dead_code)]

/// A protobuf message under construction.
#[derive(Clone, Debug, Default)]
pub struct Msg(pub Vec<u8>);

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

impl Msg {
    /// An empty message.
    pub fn new() -> Msg {
        Msg(Vec::new())
    }

    /// A varint field.
    pub fn int(mut self, field: u32, v: i64) -> Msg {
        varint(&mut self.0, u64::from(field) << 3);
        varint(&mut self.0, v as u64);
        self
    }

    /// A length-delimited field.
    pub fn bytes(mut self, field: u32, b: &[u8]) -> Msg {
        varint(&mut self.0, (u64::from(field) << 3) | 2);
        varint(&mut self.0, b.len() as u64);
        self.0.extend_from_slice(b);
        self
    }

    /// A string field.
    pub fn str(self, field: u32, s: &str) -> Msg {
        self.bytes(field, s.as_bytes())
    }

    /// A sub-message field.
    pub fn msg(self, field: u32, m: Msg) -> Msg {
        self.bytes(field, &m.0)
    }
}

/// A `TensorShapeProto.Dimension`: an integer is a `dim_value`, `?` has neither
/// field, anything else is a `dim_param`.
pub fn dim(d: &str) -> Msg {
    match d.parse::<i64>() {
        Ok(v) => Msg::new().int(1, v),
        Err(_) if d == "?" => Msg::new(),
        Err(_) => Msg::new().str(2, d),
    }
}

/// A `ValueInfoProto` of a tensor (`elem_type` 1 is float, 7 int64); `None` dims:
/// no shape.
pub fn value_info(name: &str, elem_type: i64, dims: Option<&[&str]>) -> Msg {
    let mut tensor = Msg::new().int(1, elem_type);
    if let Some(dims) = dims {
        let shape = dims.iter().fold(Msg::new(), |s, d| s.msg(1, dim(d)));
        tensor = tensor.msg(2, shape);
    }
    Msg::new().str(1, name).msg(2, Msg::new().msg(1, tensor))
}

/// A `NodeProto` of the default domain.
pub fn node(name: &str, op: &str, inputs: &[&str], outputs: &[&str]) -> Msg {
    let mut n = Msg::new();
    for i in inputs {
        n = n.str(1, i);
    }
    for o in outputs {
        n = n.str(2, o);
    }
    n.str(3, name).str(4, op)
}

/// An int64 initializer with its values in `raw_data`.
pub fn int64_tensor(name: &str, dims: &[i64], values: &[i64]) -> Msg {
    let raw: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut t = Msg::new();
    for d in dims {
        t = t.int(1, *d);
    }
    t.int(2, 7).str(8, name).bytes(9, &raw)
}

/// An `AttributeProto` of type INT.
pub fn attr_int(name: &str, v: i64) -> Msg {
    Msg::new().str(1, name).int(3, v).int(20, 2)
}

/// An `AttributeProto` of type INTS.
pub fn attr_ints(name: &str, vs: &[i64]) -> Msg {
    vs.iter()
        .fold(Msg::new().str(1, name), |m, v| m.int(8, *v))
        .int(20, 7)
}

/// A float initializer of zeros, in `raw_data`.
pub fn float_zeros(name: &str, dims: &[i64]) -> Msg {
    let n: i64 = dims.iter().product();
    let raw = vec![0u8; 4 * n.max(0) as usize];
    let mut t = Msg::new();
    for d in dims {
        t = t.int(1, *d);
    }
    t.int(2, 1).str(8, name).bytes(9, &raw)
}

/// An int64 scalar initializer.
pub fn int64_scalar(name: &str, v: i64) -> Msg {
    Msg::new().int(2, 7).str(8, name).bytes(9, &v.to_le_bytes())
}

/// An int64 initializer whose data lies in the external file `location`.
pub fn external_int64_tensor(name: &str, dims: &[i64], location: &str) -> Msg {
    let mut t = Msg::new();
    for d in dims {
        t = t.int(1, *d);
    }
    t.int(2, 7)
        .str(8, name)
        .msg(13, Msg::new().str(1, "location").str(2, location))
        .int(14, 1)
}

/// A `GraphProto` named `g`.
pub fn graph(
    nodes: Vec<Msg>,
    initializers: Vec<Msg>,
    inputs: Vec<Msg>,
    outputs: Vec<Msg>,
    value_info: Vec<Msg>,
) -> Msg {
    let mut g = Msg::new();
    for n in nodes {
        g = g.msg(1, n);
    }
    g = g.str(2, "g");
    for t in initializers {
        g = g.msg(5, t);
    }
    for v in inputs {
        g = g.msg(11, v);
    }
    for v in outputs {
        g = g.msg(12, v);
    }
    for v in value_info {
        g = g.msg(13, v);
    }
    g
}

/// A `ModelProto` (IR version 8, default opset 17) of `graph`, serialized.
pub fn model(graph: Msg) -> Vec<u8> {
    Msg::new()
        .int(1, 8)
        .msg(8, Msg::new().str(1, "").int(2, 17))
        .msg(7, graph)
        .0
}

/// A model of one MatMul `y = a @ b` of `a: [M, K1]` by `b: [K2, N]` (float), whose
/// rule merges `K1` with `K2`, serialized.
pub fn matmul_model() -> Vec<u8> {
    model(graph(
        vec![node("mm", "MatMul", &["a", "b"], &["y"])],
        vec![],
        vec![
            value_info("a", 1, Some(&["M", "K1"])),
            value_info("b", 1, Some(&["K2", "N"])),
        ],
        vec![value_info("y", 1, None)],
        vec![],
    ))
}
