//! Reading and writing ONNX model files (`.onnx`, protobuf `onnx.ModelProto`).
//!
//! The reader is a hand-written, zero-copy protobuf decoder for the part of `onnx.proto`
//! that shape inference needs. [`ModelProto::parse`] takes a `&[u8]` the caller owns and
//! returns structs that borrow from it: names are `&str`, tensor `raw_data` is a borrowed
//! slice, and the typed numeric fields (`int64_data`, `float_data`, ...) are [`Repeated`]
//! views that are validated and counted but decoded only when asked
//! ([`TensorProto::to_i64_vec`], [`TensorProto::to_f64_vec`], both with an element cap).
//!
//! **Read:** `ModelProto` (ir_version, opset_import, producer, domain, model_version, graph,
//! model-local functions, metadata_props); `GraphProto` (name, node, initializer,
//! sparse_initializer, input, output, value_info); `NodeProto` (input with empty optional
//! inputs kept, output, name, op_type, domain, overload, attribute); `AttributeProto` (every
//! value kind, packed and unpacked, `ref_attr_name`); `TensorProto` (dims, data_type, name,
//! raw_data, all typed data fields, data_location, external_data); `SparseTensorProto`
//! (values, indices, dims, undecoded); `FunctionProto`; `ValueInfoProto` / `TypeProto`
//! (tensor with absent-vs-empty shape kept apart, sparse tensor, sequence, optional, map,
//! opaque).
//!
//! **Not read (skipped per wire type):** every `doc_string`, `TrainingInfoProto`,
//! device configurations, quantization annotations, node/graph/value metadata, tensor
//! `segment`, dim `denotation`. Protobuf groups (wire types 3/4) are rejected.
//!
//! **Robustness:** bad input gives an [`OnnxError`] and never panics or hangs: varints are
//! limited to 10 bytes, every length is checked against the bytes left, subgraphs and
//! nested types are limited to [`MAX_NESTING`] levels, allocations are bounded by the input
//! size (or, when decoding, by the caller's element cap), and a field of a known number with
//! the wrong wire type is a typed error.
//!
//! **Writing:** [`write_with_shapes`] re-emits a model with inferred value types, copying
//! untouched fields as raw bytes.

mod attr;
mod error;
mod model;
mod tensor;
mod to_graph;
mod types;
pub(crate) mod wire;
mod writer;

#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

pub use crate::graph::{bf16_to_f64, canonical_domain, f16_to_f64, DType};
pub use attr::{AttrType, AttrValue, AttributeProto};
pub use error::OnnxError;
pub use model::{FunctionProto, GraphProto, ModelProto, NodeProto};
pub use tensor::{
    DataLocation, DataSource, Repeated, RepeatedElem, RepeatedIter, SparseTensorProto, TensorProto,
};
pub use to_graph::{const_tensor, load_model, to_model, MAX_FUNCTION_DEPTH};
pub use types::{
    Dim, OperatorSetId, StringStringEntry, TensorType, TypeProto, ValueInfoProto, MAX_NESTING,
};
pub use wire::WireType;
pub use writer::{write_with_shapes, Container, InferredDim, InferredValueInfo};

use wire::{Reader, Value};

/// Parses a single serialized `TensorProto` (the `.pb` files of the ONNX backend
/// tests).
pub fn parse_tensor(bytes: &[u8]) -> Result<TensorProto<'_>, OnnxError> {
    TensorProto::parse(Reader::new(bytes, 0))
}

/// Parses a model from its bytes; the same as [`ModelProto::parse`].
pub fn parse(bytes: &[u8]) -> Result<ModelProto<'_>, OnnxError> {
    ModelProto::parse(bytes)
}

/// The bytes of a model file, owned, together with where they came from. Parse them with
/// [`OwnedModel::parse`]; the parsed model borrows from this value.
#[derive(Debug, Clone)]
pub struct OwnedModel {
    bytes: Vec<u8>,
    path: Option<PathBuf>,
}

impl OwnedModel {
    /// Wraps bytes that did not come from a file (external data cannot be resolved).
    pub fn from_bytes(bytes: Vec<u8>) -> Self {
        OwnedModel { bytes, path: None }
    }

    /// Parses the model.
    pub fn parse(&self) -> Result<ModelProto<'_>, OnnxError> {
        ModelProto::parse(&self.bytes)
    }

    /// The raw bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The file the bytes were read from, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The source for external tensor data: the model file's directory.
    pub fn data_source(&self) -> DataSource {
        match &self.path {
            Some(p) => DataSource::for_model_file(p),
            None => DataSource::in_memory(),
        }
    }
}

/// Reads an `.onnx` file (a regular file: see [`crate::read::files`]) into memory and checks that it parses (which is cheap: nothing is
/// copied or decoded). Call [`OwnedModel::parse`] to get the borrowed [`ModelProto`].
pub fn load(path: impl AsRef<Path>) -> Result<OwnedModel, OnnxError> {
    let path = path.as_ref();
    let bytes = crate::read::files::read_regular(path).map_err(|e| OnnxError::file(path, e))?;
    ModelProto::parse(&bytes)?;
    Ok(OwnedModel {
        bytes,
        path: Some(path.to_path_buf()),
    })
}

/// A cheap content sniff: whether `bytes` look like a serialized `ModelProto`. Checks that
/// every top-level field is a `ModelProto` field with its proper wire type, that
/// `ir_version` and `graph` are present, and that the graph's first fields are `GraphProto`
/// fields. Does not parse nodes or tensors.
pub fn looks_like_onnx(bytes: &[u8]) -> bool {
    sniff(bytes).unwrap_or(false)
}

/// A weaker sniff for format detection: the file opens with an `ir_version` field
/// (`0x08`, a varint in 1..=1000) followed by the tag of another `ModelProto` field,
/// even if the rest does not read. A truncated or damaged model then gets the
/// parser's precise error instead of "not a model".
pub fn opens_like_onnx(bytes: &[u8]) -> bool {
    let mut r = Reader::new(bytes, 0);
    let first = matches!(
        r.next_field(),
        Ok(Some(f)) if f.number == 1 && matches!(f.value, Value::Varint(v) if (1..=1000).contains(&v))
    );
    // The next field must at least start like one of ModelProto's (its tag byte).
    let next_tag_ok = || {
        let rest = bytes.get(r.offset()..).unwrap_or_default();
        rest.first().is_some_and(|&t| {
            let (field, wire) = (t >> 3, t & 7);
            matches!((field, wire), (2..=8, 0 | 2) | (14, 2))
        })
    };
    first && next_tag_ok()
}

fn sniff(bytes: &[u8]) -> Result<bool, OnnxError> {
    let mut r = Reader::new(bytes, 0);
    let mut ir_version = false;
    let mut graph = None;
    while let Some(f) = r.next_field()? {
        let ok = match (f.number, f.value) {
            (1, Value::Varint(v)) => {
                ir_version = (1..=1000).contains(&v);
                ir_version
            }
            (5, Value::Varint(_)) => true,
            (7, Value::Len(b)) => {
                graph = Some(Reader::new(b, f.value_start));
                true
            }
            (2 | 3 | 4 | 6 | 8 | 14 | 20 | 25 | 26, Value::Len(_)) => true,
            _ => false,
        };
        if !ok {
            return Ok(false);
        }
    }
    let Some(mut g) = graph else {
        return Ok(false);
    };
    if !ir_version {
        return Ok(false);
    }
    for _ in 0..8 {
        match g.next_field()? {
            None => break,
            Some(f) => {
                let known = matches!(f.number, 1 | 2 | 5 | 10..=16);
                if !known || !matches!(f.value, Value::Len(_)) {
                    return Ok(false);
                }
            }
        }
    }
    Ok(true)
}

/// The `(tensor, location)` of every tensor that keeps its data in an external file:
/// the dense and sparse initializers and the tensor attributes of the main graph, its
/// subgraphs, then those of the model's functions (breadth first over subgraphs).
pub fn external_locations<'a>(m: &ModelProto<'a>) -> Vec<(&'a str, &'a str)> {
    let mut out = Vec::new();
    let mut push = |t: &TensorProto<'a>| {
        if t.is_external() {
            out.push((t.name, t.external_value("location").unwrap_or("")));
        }
    };
    let mut graphs: Vec<&GraphProto<'a>> = m.graph.iter().collect();
    let mut attrs: Vec<&AttributeProto<'a>> = Vec::new();
    let mut functions_done = false;
    let mut next = 0;
    loop {
        for a in attrs.drain(..) {
            match &a.value {
                AttrValue::Tensor(t) => push(t),
                AttrValue::Tensors(ts) => ts.iter().for_each(&mut push),
                AttrValue::SparseTensor(s) => {
                    s.values.iter().chain(&s.indices).for_each(&mut push);
                }
                AttrValue::SparseTensors(ss) => ss
                    .iter()
                    .flat_map(|s| s.values.iter().chain(&s.indices))
                    .for_each(&mut push),
                AttrValue::Graph(g) => graphs.push(g),
                AttrValue::Graphs(gs) => graphs.extend(gs.iter()),
                _ => {}
            }
        }
        if let Some(g) = graphs.get(next).copied() {
            next += 1;
            g.initializer.iter().for_each(&mut push);
            g.sparse_initializer
                .iter()
                .flat_map(|s| s.values.iter().chain(&s.indices))
                .for_each(&mut push);
            attrs.extend(g.node.iter().flat_map(|n| &n.attribute));
        } else if !std::mem::replace(&mut functions_done, true) {
            for f in &m.functions {
                attrs.extend(&f.attribute_proto);
                attrs.extend(f.node.iter().flat_map(|n| &n.attribute));
            }
        } else {
            break;
        }
    }
    out
}
