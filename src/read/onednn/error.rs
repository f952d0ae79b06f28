//! Typed errors of the oneDNN Graph JSON reader.
//!
//! `path` fields are JSON paths into the document, such as `graph[3].inputs[0].shape`
//! (the empty string is the top-level object).

use serde_json::{Number, Value};
use std::fmt;
use std::path::PathBuf;

/// The kind of a JSON value the schema did not expect, as a message names it:
/// `null`, `boolean true`, `number 1.5`, `string`, `array`, `object`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JsonKind {
    /// `null`.
    Null,
    /// A boolean, with its value.
    Boolean(bool),
    /// A number, with its value.
    Number(Number),
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

impl From<&Value> for JsonKind {
    fn from(v: &Value) -> JsonKind {
        match v {
            Value::Null => JsonKind::Null,
            Value::Bool(b) => JsonKind::Boolean(*b),
            Value::Number(n) => JsonKind::Number(n.clone()),
            Value::String(_) => JsonKind::String,
            Value::Array(_) => JsonKind::Array,
            Value::Object(_) => JsonKind::Object,
        }
    }
}

impl fmt::Display for JsonKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JsonKind::Null => f.write_str("null"),
            JsonKind::Boolean(b) => write!(f, "boolean {b}"),
            JsonKind::Number(n) => write!(f, "number {n}"),
            JsonKind::String => f.write_str("string"),
            JsonKind::Array => f.write_str("array"),
            JsonKind::Object => f.write_str("object"),
        }
    }
}

/// A JSON value as a message quotes it: its JSON text, cut to 77 bytes and `...`
/// past 80.
fn quoted(v: &Value) -> String {
    let mut s = v.to_string();
    if s.len() > 80 {
        let mut cut = 77;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push_str("...");
    }
    s
}

/// Everything that can go wrong while reading a oneDNN Graph JSON file.
#[derive(Debug, thiserror::Error)]
pub enum OnednnError {
    /// Reading the file failed.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a regular file: a FIFO, a device or a directory is refused
    /// before it is read.
    #[error("cannot read {path}: it is {kind}")]
    NotRegularFile {
        /// The file.
        path: PathBuf,
        /// What the path names.
        kind: crate::read::files::FileKind,
    },
    /// The document is larger than the configured limit.
    #[error("JSON document has {len} bytes, more than the limit of {max}")]
    TooLarge {
        /// Size of the document.
        len: u64,
        /// The limit.
        max: u64,
    },
    /// The text is not valid JSON.
    #[error("invalid JSON at line {line}, column {column}: {message}")]
    Json {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// serde_json's description.
        message: String,
    },
    /// A value has the wrong JSON type.
    #[error("{path}: expected {expected}, found {found}")]
    WrongType {
        /// Where.
        path: String,
        /// What the schema wants.
        expected: &'static str,
        /// The kind of JSON value found (with the value of a number or boolean).
        found: JsonKind,
    },
    /// A required key is missing.
    #[error("{path}: missing key `{key}`")]
    MissingKey {
        /// The object's path.
        path: String,
        /// The missing key.
        key: &'static str,
    },
    /// A key the schema does not declare. oneDNN's own reader does not skip such keys
    /// (it gets misaligned); this reader rejects them.
    #[error("{path}: unknown key `{key}`")]
    UnknownKey {
        /// The object's path.
        path: String,
        /// The unknown key.
        key: String,
    },
    /// A string field has a value outside its enumeration (dtype, layout_type, ...).
    #[error("{path}: {value:?} is not a valid {field}")]
    UnknownValue {
        /// Where.
        path: String,
        /// The field.
        field: &'static str,
        /// The offending text.
        value: String,
    },
    /// An attribute object does not start with the `type` key.
    #[error("op {op}, attribute `{attr}`: the first key must be `type`, found {first_key:?}")]
    AttrTypeNotFirst {
        /// Op id.
        op: u64,
        /// Attribute name.
        attr: String,
        /// The first key found (`None` for an empty object).
        first_key: Option<String>,
    },
    /// An attribute's `type` is not one of string, bool, s64, s64[], f32, f32[].
    #[error("op {op}, attribute `{attr}`: unknown attribute type {type_name:?}")]
    UnknownAttrType {
        /// Op id.
        op: u64,
        /// Attribute name.
        attr: String,
        /// The offending type text.
        type_name: String,
    },
    /// A `bool` attribute's value is not the number 0 or 1 (JSON `true`/`false` included,
    /// as oneDNN's `istream >> bool` reader rejects them).
    #[error("op {op}, attribute `{attr}`: bool value must be 0 or 1, found {}", quoted(.found))]
    InvalidBool {
        /// Op id.
        op: u64,
        /// Attribute name.
        attr: String,
        /// The value found.
        found: Box<Value>,
    },
    /// An attribute value does not fit its declared type.
    #[error("op {op}, attribute `{attr}`: value {} is not a valid {attr_type}", quoted(.found))]
    InvalidAttrValue {
        /// Op id.
        op: u64,
        /// Attribute name.
        attr: String,
        /// Declared type.
        attr_type: &'static str,
        /// The value found.
        found: Box<Value>,
    },
    /// `graph` is an empty list.
    #[error("the graph has no ops")]
    EmptyGraph,
    /// More ops than the limit.
    #[error("the graph has {count} ops, more than the limit of {max}")]
    TooManyOps {
        /// Op count.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// A shape or stride list longer than the rank limit.
    #[error("{path}: rank {rank} exceeds the limit of {max}")]
    RankTooLarge {
        /// Where.
        path: String,
        /// The rank found.
        rank: usize,
        /// The limit.
        max: usize,
    },
    /// A tensor dim is negative (other than the one-element unknown-shape sentinel).
    #[error("logical tensor {tensor}: dim {index} = {value} is negative")]
    InvalidDim {
        /// Logical tensor id.
        tensor: u64,
        /// Position in the shape.
        index: usize,
        /// The value.
        value: i64,
    },
    /// Two ops share an id.
    #[error("duplicate op id {id}")]
    DuplicateOpId {
        /// The id.
        id: u64,
    },
    /// A logical tensor is produced twice (by two ops, or twice by one op).
    #[error("logical tensor {tensor} is produced by op {first_op} and again by op {second_op}")]
    DuplicateProducer {
        /// Logical tensor id.
        tensor: u64,
        /// First producing op id.
        first_op: u64,
        /// Second producing op id.
        second_op: u64,
    },
    /// The ops form a cycle; `op` lies on it.
    #[error("the graph is not a DAG: op {op} ({name:?}) is on a cycle")]
    Cycle {
        /// Id of an op on the cycle.
        op: u64,
        /// Its name.
        name: String,
    },
    /// An accessor asked for an attribute the op does not have.
    #[error("op {op} has no attribute `{attr}`")]
    MissingAttr {
        /// Op id.
        op: u64,
        /// Attribute name.
        attr: String,
    },
    /// An accessor asked for an attribute as the wrong type.
    #[error("op {op}, attribute `{attr}` is {found}, not {expected}")]
    AttrTypeMismatch {
        /// Op id.
        op: u64,
        /// Attribute name.
        attr: String,
        /// Type asked for.
        expected: &'static str,
        /// Type present.
        found: &'static str,
    },
}
