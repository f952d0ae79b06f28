//! Re-emits a model with inferred shapes, copying every untouched field as raw bytes.

use rustc_hash::{FxHashMap, FxHashSet};

use super::error::OnnxError;
use super::types::{Dim, TypeProto, ValueInfoProto};
use super::wire::{put_len, put_tag, put_varint, put_varint_field, Reader, WireType};
use crate::graph::DType;

/// One dim of an inferred shape.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum InferredDim {
    /// A known size (`dim_value`).
    Value(i64),
    /// A symbolic size (`dim_param`), e.g. `"N"` or `"(S*12)"`.
    Param(String),
    /// Unknown: written as a dim with neither field.
    Unknown,
}

/// The inferred type of one value, to be written into the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InferredValueInfo {
    /// The value name.
    pub name: String,
    /// The element type (of the tensors `containers` hold); [`DType::Undefined`] if
    /// not inferred.
    pub elem_type: DType,
    /// The dims (of the tensors `containers` hold); `None` if the rank is unknown.
    pub shape: Option<Vec<InferredDim>>,
    /// The types around the tensor, outermost first: empty for a tensor,
    /// `[Sequence]` for `seq(tensor)`, `[Optional, Sequence]` for
    /// `optional(seq(tensor))`.
    pub containers: Vec<Container>,
}

/// A type that holds tensors (`TypeProto.sequence_type`, `TypeProto.optional_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Container {
    /// `sequence_type`: a sequence of what is inside.
    Sequence,
    /// `optional_type`: what is inside, or nothing.
    Optional,
}

impl From<Dim<'_>> for InferredDim {
    fn from(d: Dim<'_>) -> Self {
        match d {
            Dim::Value(v) => InferredDim::Value(v),
            Dim::Param(p) => InferredDim::Param(p.to_string()),
            Dim::Unknown => InferredDim::Unknown,
        }
    }
}

/// Re-emits `original` byte for byte except for the main graph's value types:
///
/// - a graph output or `value_info` entry whose name appears in `shapes` gets its type
///   replaced, in place: the inferred element type and shape, each falling back to the
///   original one where the inferred is `Undefined` / `None`; every other field of the
///   entry is kept. An untyped entry takes the inferred type, tensor or not, and so
///   does a declared sequence or optional of the same nesting whose element type has
///   no shape (and the same element type, or none). Other entries typed as
///   non-tensors (maps, sequences with element shapes, ...), entries typed as
///   tensors for which `shapes` has a sequence or an optional (the model's
///   declaration stays) and entries not named in `shapes` are copied unchanged.
/// - the other names of `shapes` (minus the graph's inputs and outputs, existing
///   `value_info` entries and repeated names) get new `value_info` entries, after the
///   existing ones (at the graph's end when there are none).
///
/// The framing of every top-level and graph field is checked and the graph's inputs,
/// outputs and `value_info` entries are decoded, so truncated or misframed input is an
/// error rather than a copy; node, initializer and function messages are copied as
/// they are, unparsed (the callers read the model from the same bytes first, which
/// checks them). Callers that must not weaken what the model declares (a declared `dim_value`
/// replaced by a `dim_param`) merge the declarations into `shapes` first, as
/// `symdim infer -o` does.
pub fn write_with_shapes(
    original: &[u8],
    shapes: &[InferredValueInfo],
) -> Result<Vec<u8>, OnnxError> {
    let mut taken = declared_names(original)?;
    let mut by_name: FxHashMap<&str, &InferredValueInfo> =
        FxHashMap::with_capacity_and_hasher(shapes.len(), Default::default());
    for s in shapes {
        by_name.entry(s.name.as_str()).or_insert(s);
    }
    taken.reserve(shapes.len());
    let mut value_info = Vec::new();
    for s in shapes {
        if s.name.is_empty() || !taken.insert(s.name.as_str()) {
            continue;
        }
        if s.containers.is_empty() {
            // A ValueInfoProto: name (1) and type (2), written in place. Field 2 holds
            // the TypeProto, which holds the `tensor_type` field.
            let ty = len_field(len_field(tensor_type_len(s.elem_type, s.shape.as_deref())));
            put_tag(&mut value_info, 13, WireType::Len);
            put_varint(&mut value_info, (len_field(s.name.len()) + ty) as u64);
            put_len(&mut value_info, 1, s.name.as_bytes());
            put_tensor_type(&mut value_info, 2, s.elem_type, s.shape.as_deref());
        } else {
            let mut vi = Vec::new();
            put_len(&mut vi, 1, s.name.as_bytes());
            put_len(
                &mut vi,
                2,
                &encode_type(s.elem_type, s.shape.as_deref(), &s.containers),
            );
            put_len(&mut value_info, 13, &vi);
        }
    }

    let mut out = Vec::with_capacity(original.len() + value_info.len());
    let mut r = Reader::new(original, 0);
    // Protobuf merges repeated occurrences of the graph field; new value_info goes in
    // the first.
    let mut value_info_pending = true;
    while let Some(f) = r.next_field()? {
        if f.number == 7 {
            let new_graph = rewrite_graph(
                f.message("ModelProto")?,
                &by_name,
                &value_info,
                &mut value_info_pending,
            )?;
            put_len(&mut out, 7, &new_graph);
        } else {
            out.extend_from_slice(&original[f.start..f.end]);
        }
    }
    Ok(out)
}

/// The names of the main graph's inputs, outputs and `value_info` entries (over every
/// occurrence of the graph field, which protobuf merges); [`OnnxError::MissingGraph`]
/// without one.
fn declared_names(original: &[u8]) -> Result<FxHashSet<&str>, OnnxError> {
    let mut names = FxHashSet::default();
    let mut graphs = 0usize;
    let mut r = Reader::new(original, 0);
    while let Some(f) = r.next_field()? {
        if f.number != 7 {
            continue;
        }
        graphs += 1;
        let mut g = f.message("ModelProto")?;
        while let Some(gf) = g.next_field()? {
            if matches!(gf.number, 11..=13) {
                names.insert(ValueInfoProto::parse(gf.message("GraphProto")?, 0)?.name);
            }
        }
    }
    if graphs == 0 {
        return Err(OnnxError::MissingGraph);
    }
    Ok(names)
}

fn rewrite_graph(
    mut r: Reader<'_>,
    by_name: &FxHashMap<&str, &InferredValueInfo>,
    value_info: &[u8],
    value_info_pending: &mut bool,
) -> Result<Vec<u8>, OnnxError> {
    let body = r.body();
    let base = r.offset();
    // New entries go after the last existing value_info entry of the graph.
    let mut existing = 0usize;
    let mut count = r.clone();
    while let Some(f) = count.next_field()? {
        existing += usize::from(f.number == 13);
    }
    let mut out = Vec::with_capacity(body.len() + value_info.len());
    while let Some(f) = r.next_field()? {
        let raw = &body[f.start - base..f.end - base];
        match f.number {
            12 | 13 => {
                let msg = f.message("GraphProto")?;
                let vi = ValueInfoProto::parse(msg.clone(), 0)?;
                let fits = |inf: &InferredValueInfo| match &vi.r#type {
                    None => true,
                    Some(TypeProto::Tensor(_)) => inf.containers.is_empty(),
                    Some(t) => shapeless_element(t, &inf.containers)
                        .is_some_and(|d| d == DType::Undefined || d == inf.elem_type),
                };
                match by_name.get(vi.name) {
                    Some(inf) if fits(inf) => {
                        put_len(&mut out, f.number, &rewrite_output(msg, &vi, inf)?);
                    }
                    _ => out.extend_from_slice(raw),
                }
                if f.number == 13 {
                    existing -= 1;
                    if existing == 0 && std::mem::take(value_info_pending) {
                        out.extend_from_slice(value_info);
                    }
                }
            }
            _ => out.extend_from_slice(raw),
        }
    }
    if std::mem::take(value_info_pending) {
        out.extend_from_slice(value_info);
    }
    Ok(out)
}

fn rewrite_output(
    mut r: Reader<'_>,
    vi: &ValueInfoProto<'_>,
    inf: &InferredValueInfo,
) -> Result<Vec<u8>, OnnxError> {
    let elem_type = if inf.elem_type == DType::Undefined {
        vi.elem_type()
    } else {
        inf.elem_type
    };
    let original_shape: Option<Vec<InferredDim>> = vi
        .shape()
        .map(|dims| dims.iter().map(|&d| d.into()).collect());
    let shape = inf.shape.as_deref().or(original_shape.as_deref());
    let new_type = encode_type(elem_type, shape, &inf.containers);

    let body = r.body();
    let base = r.offset();
    let mut out = Vec::with_capacity(body.len() + new_type.len());
    let mut type_written = false;
    while let Some(f) = r.next_field()? {
        if f.number == 2 {
            if !type_written {
                put_len(&mut out, 2, &new_type);
                type_written = true;
            }
        } else {
            out.extend_from_slice(&body[f.start - base..f.end - base]);
        }
    }
    if !type_written {
        put_len(&mut out, 2, &new_type);
    }
    Ok(out)
}

/// When `t` is a declared sequence or optional type of the nesting `containers` whose
/// element type says no shape (`seq(tensor(float))`, or no element type at all): that
/// element's type (`Undefined` when not given). The inferred type then adds to the
/// declaration and takes nothing from it.
fn shapeless_element(t: &TypeProto<'_>, containers: &[Container]) -> Option<DType> {
    let mut t = t;
    for c in containers {
        let inner = match (c, t) {
            (Container::Sequence, TypeProto::Sequence(inner))
            | (Container::Optional, TypeProto::Optional(inner)) => inner,
            _ => return None,
        };
        match inner {
            None => return Some(DType::Undefined),
            Some(inner) => t = inner,
        }
    }
    match t {
        TypeProto::Tensor(e) if e.shape.is_none() && !containers.is_empty() => Some(e.elem_type),
        _ => None,
    }
}

/// Encodes a `TypeProto`: a `tensor_type` inside the `containers`, outermost first
/// (`TypeProto.sequence_type` is field 4, `optional_type` field 9; the element type
/// of each is its field 1).
fn encode_type(
    elem_type: DType,
    shape: Option<&[InferredDim]>,
    containers: &[Container],
) -> Vec<u8> {
    let mut ty = encode_tensor_type(elem_type, shape);
    for c in containers.iter().rev() {
        let mut inner = Vec::new();
        put_len(&mut inner, 1, &ty);
        let field = match c {
            Container::Sequence => 4,
            Container::Optional => 9,
        };
        ty.clear();
        put_len(&mut ty, field, &inner);
    }
    ty
}

/// Encodes a `TypeProto` holding a `tensor_type`.
fn encode_tensor_type(elem_type: DType, shape: Option<&[InferredDim]>) -> Vec<u8> {
    let mut ty = Vec::with_capacity(len_field(tensor_type_len(elem_type, shape)));
    put_type_payload(&mut ty, elem_type, shape);
    ty
}

/// The bytes of a varint.
fn varint_len(v: u64) -> usize {
    (64 - (v | 1).leading_zeros() as usize).div_ceil(7)
}

/// The bytes of a length-delimited field of `payload` bytes (one-byte tag: every
/// field number written here is below 16).
fn len_field(payload: usize) -> usize {
    1 + varint_len(payload as u64) + payload
}

/// The payload bytes of a `TensorShapeProto.Dimension`.
fn dim_len(d: &InferredDim) -> usize {
    match d {
        InferredDim::Value(v) => 1 + varint_len(*v as u64),
        InferredDim::Param(p) => len_field(p.len()),
        InferredDim::Unknown => 0,
    }
}

/// The payload bytes of a `TypeProto.Tensor` (`elem_type` 1, `shape` 2); its
/// TypeProto is one `tensor_type` (1) field of it.
fn tensor_type_len(elem_type: DType, shape: Option<&[InferredDim]>) -> usize {
    let mut n = 0;
    if elem_type != DType::Undefined {
        n += 1 + varint_len(elem_type.to_i32() as i64 as u64);
    }
    if let Some(dims) = shape {
        n += len_field(dims.iter().map(|d| len_field(dim_len(d))).sum());
    }
    n
}

/// Appends field `field` holding a `TypeProto` with a `tensor_type`.
fn put_tensor_type(out: &mut Vec<u8>, field: u32, elem_type: DType, shape: Option<&[InferredDim]>) {
    put_tag(out, field, WireType::Len);
    put_varint(out, len_field(tensor_type_len(elem_type, shape)) as u64);
    put_type_payload(out, elem_type, shape);
}

/// Appends the bytes of a `TypeProto` with a `tensor_type`, without intermediate
/// buffers: every length is computed first.
fn put_type_payload(out: &mut Vec<u8>, elem_type: DType, shape: Option<&[InferredDim]>) {
    put_tag(out, 1, WireType::Len);
    put_varint(out, tensor_type_len(elem_type, shape) as u64);
    if elem_type != DType::Undefined {
        put_varint_field(out, 1, elem_type.to_i32() as i64 as u64);
    }
    if let Some(dims) = shape {
        put_tag(out, 2, WireType::Len);
        put_varint(
            out,
            dims.iter().map(|d| len_field(dim_len(d))).sum::<usize>() as u64,
        );
        for d in dims {
            put_tag(out, 1, WireType::Len);
            put_varint(out, dim_len(d) as u64);
            match d {
                InferredDim::Value(v) => put_varint_field(out, 1, *v as u64),
                InferredDim::Param(p) => put_len(out, 2, p.as_bytes()),
                InferredDim::Unknown => {}
            }
        }
    }
}
