//! The error type of the ONNX reader and writer.

use std::path::PathBuf;

use super::attr::AttrType;
use super::wire::WireType;
use crate::graph::DType;

/// Everything that can go wrong while reading, decoding or re-writing an ONNX model.
///
/// Byte offsets are absolute positions in the buffer handed to the parser (or to the writer).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OnnxError {
    /// A field, length or varint runs past the end of its enclosing message.
    #[error("truncated input at byte {offset}: need {needed} bytes, only {remaining} left")]
    Truncated {
        /// Where the truncated item starts.
        offset: usize,
        /// How many bytes the item needs.
        needed: u64,
        /// How many bytes were left in the enclosing message.
        remaining: usize,
    },
    /// A varint longer than 10 bytes, or one whose 10th byte overflows 64 bits.
    #[error("varint at byte {offset} overflows 64 bits")]
    VarintOverflow {
        /// Where the varint starts.
        offset: usize,
    },
    /// A tag with field number 0 or above the protobuf maximum (2^29 - 1).
    #[error("invalid field number {field} at byte {offset}")]
    InvalidFieldNumber {
        /// Where the tag starts.
        offset: usize,
        /// The decoded field number.
        field: u64,
    },
    /// A wire type this reader does not accept anywhere: 6 and 7 (undefined) and the
    /// deprecated groups 3/4.
    #[error("field {field} at byte {offset}: unsupported wire type {wire_type}")]
    UnsupportedWireType {
        /// Where the tag starts.
        offset: usize,
        /// The field number of the tag.
        field: u32,
        /// The raw wire type (0..=7).
        wire_type: u8,
    },
    /// A known field encoded with a wire type that its declared type does not allow.
    #[error("{message}.{field} at byte {offset}: expected wire type {expected}, found {found}")]
    WrongWireType {
        /// Where the tag starts.
        offset: usize,
        /// The protobuf message being decoded, e.g. `"NodeProto"`.
        message: &'static str,
        /// The field number.
        field: u32,
        /// What the field's type needs.
        expected: WireType,
        /// What the input had.
        found: WireType,
    },
    /// A packed repeated fixed-width field whose payload is not a multiple of the element size.
    #[error(
        "{message}.{field} at byte {offset}: packed length {len} is not a multiple of {elem_size}"
    )]
    PackedLength {
        /// Where the payload starts.
        offset: usize,
        /// The protobuf message being decoded.
        message: &'static str,
        /// The field number.
        field: u32,
        /// The payload length in bytes.
        len: usize,
        /// The element size in bytes (4 or 8).
        elem_size: usize,
    },
    /// A `string` field that is not valid UTF-8.
    #[error("{message}.{field} at byte {offset}: string is not valid UTF-8")]
    InvalidUtf8 {
        /// Where the string payload starts.
        offset: usize,
        /// The protobuf message being decoded.
        message: &'static str,
        /// The field number.
        field: u32,
    },
    /// Subgraphs (attribute graphs) or nested types are deeper than the reader allows.
    #[error("nesting deeper than {limit} levels at byte {offset}")]
    NestingTooDeep {
        /// Where the too-deep message starts.
        offset: usize,
        /// The nesting limit.
        limit: usize,
    },
    /// The model has no main graph (`ModelProto.graph`, field 7).
    #[error("the model has no graph")]
    MissingGraph,
    /// A node has no attribute of this name.
    #[error("attribute {name:?} not found")]
    AttributeNotFound {
        /// The attribute name asked for.
        name: String,
    },
    /// An attribute was read with an accessor for another type.
    #[error("attribute {name:?}: expected type {expected:?}, found {found:?}")]
    AttributeType {
        /// The attribute name.
        name: String,
        /// The type the accessor reads.
        expected: AttrType,
        /// The attribute's type.
        found: AttrType,
    },
    /// An attribute inside a function body that refers to an attribute of the caller
    /// (`ref_attr_name`), read as if it held a value.
    #[error("attribute {name:?} is a reference to the caller's attribute {ref_attr_name:?}")]
    AttributeIsReference {
        /// The attribute name.
        name: String,
        /// The referenced attribute of the calling node.
        ref_attr_name: String,
    },
    /// An attribute `s` value (bytes) that is not UTF-8, read with a string accessor.
    #[error("attribute {name:?}: string value is not valid UTF-8")]
    AttributeUtf8 {
        /// The attribute name.
        name: String,
    },
    /// A tensor dim is negative.
    #[error("tensor {tensor:?}: dim {index} is negative ({value})")]
    NegativeDim {
        /// The tensor name.
        tensor: String,
        /// The dim's position.
        index: usize,
        /// The dim's value.
        value: i64,
    },
    /// The product of a tensor's dims overflows `u64`.
    #[error("tensor {tensor:?}: element count overflows")]
    ElementCountOverflow {
        /// The tensor name.
        tensor: String,
    },
    /// A tensor has more elements than the caller allowed to decode.
    #[error("tensor {tensor:?} has {count} elements, more than the cap of {cap}")]
    TooManyElements {
        /// The tensor name.
        tensor: String,
        /// The element count from the dims.
        count: u64,
        /// The cap passed by the caller.
        cap: usize,
    },
    /// A tensor's data type cannot be decoded by the requested method.
    #[error("tensor {tensor:?}: data type {data_type} cannot be decoded as {wanted}")]
    UnsupportedDataType {
        /// The tensor name.
        tensor: String,
        /// The tensor's data type.
        data_type: DType,
        /// What the caller asked for, e.g. `"i64"`.
        wanted: &'static str,
    },
    /// The byte length of `raw_data` (or external data) does not match dims and data type.
    #[error("tensor {tensor:?}: {found} data bytes, expected {expected}")]
    DataSizeMismatch {
        /// The tensor name.
        tensor: String,
        /// Bytes expected from dims and data type.
        expected: u64,
        /// Bytes present.
        found: u64,
    },
    /// The number of typed values (`int64_data`, ...) does not match the dims.
    #[error("tensor {tensor:?}: {found} values in {field}, expected {expected}")]
    ElementCountMismatch {
        /// The tensor name.
        tensor: String,
        /// The typed field holding the values, e.g. `"int64_data"`.
        field: &'static str,
        /// Elements expected from dims (or packing).
        expected: u64,
        /// Elements present.
        found: u64,
    },
    /// A value does not fit the target type (e.g. a UINT64 above `i64::MAX`).
    #[error("tensor {tensor:?}: element {index} ({value}) does not fit in i64")]
    ValueOutOfRange {
        /// The tensor name.
        tensor: String,
        /// Position of the element.
        index: usize,
        /// The value.
        value: u64,
    },
    /// A tensor stored outside the model, decoded with a [`super::DataSource`] that has no
    /// model directory.
    #[error("tensor {tensor:?} uses external data but no model directory is known")]
    NoModelDirectory {
        /// The tensor name.
        tensor: String,
    },
    /// An external-data tensor without a `location` entry.
    #[error("tensor {tensor:?}: external data has no location")]
    MissingExternalLocation {
        /// The tensor name.
        tensor: String,
    },
    /// An external-data `location` that is absolute or climbs out of the model directory.
    #[error("tensor {tensor:?}: external data path {location:?} escapes the model directory")]
    UnsafeExternalPath {
        /// The tensor name.
        tensor: String,
        /// The `location` value.
        location: String,
    },
    /// An external-data `offset` or `length` that is not a non-negative integer.
    #[error("tensor {tensor:?}: external data {key} = {value:?} is not a valid number")]
    InvalidExternalValue {
        /// The tensor name.
        tensor: String,
        /// `"offset"` or `"length"`.
        key: &'static str,
        /// The value as written.
        value: String,
    },
    /// The external data range lies past the end of the file.
    #[error("{path:?}: range {offset}+{length} exceeds the file size {file_len}")]
    ExternalRange {
        /// The data file.
        path: PathBuf,
        /// Start of the range.
        offset: u64,
        /// Length of the range.
        length: u64,
        /// The file size.
        file_len: u64,
    },
    /// A file to read (the model, an external-data location) is not a regular file: a
    /// FIFO, a device or a directory is refused before it is read.
    #[error("{path:?} is {kind}, not a regular file")]
    NotRegularFile {
        /// The file.
        path: PathBuf,
        /// What the path names.
        kind: crate::read::files::FileKind,
    },
    /// Reading a file failed.
    #[error("{path:?}: {source}")]
    Io {
        /// The file being read.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

impl OnnxError {
    /// The error of opening or reading `path` ([`crate::read::files::open_regular`]).
    pub(crate) fn file(path: &std::path::Path, e: crate::read::files::FileError) -> OnnxError {
        match e {
            crate::read::files::FileError::NotRegular { kind } => OnnxError::NotRegularFile {
                path: path.to_path_buf(),
                kind,
            },
            crate::read::files::FileError::Io(source) => OnnxError::Io {
                path: path.to_path_buf(),
                source,
            },
        }
    }
}
