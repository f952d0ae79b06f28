//! Reader for oneDNN Graph JSON files (the format benchdnn's `--graph` driver reads and
//! `dnnl::graph` serialises).
//!
//! The reader turns a file into faithful Rust structures ([`OnednnGraph`], [`Op`],
//! [`LogicalTensor`], [`AttrValue`]) plus the implicit edges; it does no shape
//! inference. [`to_graph`] converts a read graph into the engine's format-neutral
//! graph (ops become nodes of domain `onednn`, logical tensor ids tensor names,
//! attributes typed values), optionally with symbolic input dims
//! ([`to_graph::Symbolize`], the CLI's `--symbol`), and the op families' `onednn`
//! rules infer it (`StaticReshape` checks its `shape` attribute against symbolic
//! inputs). `crate::load` does both
//! for a path; `docs/formats.md` describes the format as symdim reads it.
//!
//! # The format as read
//!
//! ```text
//! {
//!   "version": "3.11.0", "engine_kind": "cpu"|"gpu",
//!   "fpmath_mode": "strict"|"bf16"|"f16"|"tf32"|"any",
//!   "fpmath_mode_apply_to_int": "true"|"false",      (optional, a string)
//!   "input_ports": [u64…], "output_ports": [u64…],     (optional)
//!   "graph": [ op, … ]                                 (required, non-empty)
//! }
//! op = {"id": u64, "name": str, "kind": str,
//!       "attrs": {"<name>": {"type": T, "value": V}, …},   (optional)
//!       "inputs": [lt…], "outputs": [lt…]}
//! T  = "string" | "bool" | "s64" | "s64[]" | "f32" | "f32[]"
//! lt = {"id": u64, "dtype": …, "shape": [i64…], "stride": [i64…],
//!       "layout_type": "strided"|"any"|"undef"|"opaque",
//!       "property_type": "undef"|"variable"|"constant"|"host_scalar"}
//! ```
//!
//! * **Attribute objects are order-sensitive**: oneDNN's reader takes the first key,
//!   which must be `type`, then `value`. The JSON is parsed with `serde_json`'s
//!   `preserve_order`, and an attribute whose first key is not `type` is rejected
//!   ([`OnednnError::AttrTypeNotFirst`]).
//! * **Booleans are the numbers 0 and 1**; JSON `true`/`false` (or 2, or 0.0) are rejected
//!   ([`OnednnError::InvalidBool`]), as C++ `istream >> bool` does.
//! * `s64` values must fit i64; `f32` values are any JSON number that is finite as f32.
//! * **Unknown keys** (at the top level, in an op, a logical tensor or an attribute
//!   object) are rejected with [`OnednnError::UnknownKey`] naming the key and its JSON
//!   path. oneDNN's `read_helper_t` does not skip them and reads the rest of the object
//!   misaligned; a clean error is the safer reading of a file it would misread. Every key
//!   of an op and of a logical tensor is required (the library writer always emits them)
//!   except an op's `attrs`, which oneDNN's reader also leaves optional: an op without
//!   it has no attributes. The top-level `input_ports`/`output_ports` are optional too.
//!   A key repeated within one object keeps its last value (serde_json's behaviour, and
//!   what a field-by-field reader does) at its first position.
//! * **Unknown shape**: the one-element list `[-9223372036854775808]`
//!   (`DNNL_GRAPH_UNKNOWN_DIM` = `INT64_MIN`) is [`Dims::Unknown`], not a 1-D tensor; the
//!   same for `stride`. `[]` is rank 0, `0` a zero-size dim. Any other negative shape dim
//!   (`-1` never appears as a tensor dim; `-1` is only StaticReshape's "infer" marker in the
//!   `shape` *attribute*) is rejected with [`OnednnError::InvalidDim`]. Stride values are
//!   kept as written.
//! * Enumerated strings (`engine_kind`, `fpmath_mode`, `dtype`, `layout_type`,
//!   `property_type`) must be one of the listed spellings ([`OnednnError::UnknownValue`]).
//! * **Edges are implicit**: a tensor id in one op's `outputs` and another op's `inputs` is
//!   an edge. [`OnednnGraph::graph_inputs`] are the ids consumed but never produced (what
//!   benchdnn recomputes for `input_ports`); a tensor produced twice is
//!   [`OnednnError::DuplicateProducer`], a repeated op id [`OnednnError::DuplicateOpId`],
//!   and a cycle [`OnednnError::Cycle`] (benchdnn: "the graph … is not a DAG"). Op names
//!   need not be unique. `input_ports`/`output_ports` are kept as written, not checked.
//!
//! Limits ([`OnednnLimits`]) cap the document size, the op count and the length of
//! shape/stride lists (64); serde_json caps nesting depth. Bad input returns an
//! [`OnednnError`]; it never panics.

mod error;
mod graph;
mod model;
pub mod to_graph;

use std::path::Path;

pub use error::{JsonKind, OnednnError};
pub use graph::TensorUse;
pub use model::{
    AttrValue, DataType, Dims, EngineKind, FpmathMode, LayoutType, LogicalTensor, OnednnGraph,
    OnednnLimits, Op, PropertyType, UNKNOWN_DIM,
};

/// Read and parse a oneDNN Graph JSON file with the default limits.
pub fn read_onednn_graph(path: &Path) -> Result<OnednnGraph, OnednnError> {
    read_onednn_graph_with_limits(path, &OnednnLimits::default())
}

/// [`read_onednn_graph`] with explicit limits.
pub fn read_onednn_graph_with_limits(
    path: &Path,
    limits: &OnednnLimits,
) -> Result<OnednnGraph, OnednnError> {
    let io = |source| OnednnError::Io {
        path: path.to_path_buf(),
        source,
    };
    let (file, len) = crate::read::files::open_regular(path).map_err(|e| match e {
        crate::read::files::FileError::NotRegular { kind } => OnednnError::NotRegularFile {
            path: path.to_path_buf(),
            kind,
        },
        crate::read::files::FileError::Io(source) => io(source),
    })?;
    if len > limits.max_json_bytes {
        return Err(OnednnError::TooLarge {
            len,
            max: limits.max_json_bytes,
        });
    }
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut std::io::Read::take(file, limits.max_json_bytes),
        &mut text,
    )
    .map_err(io)?;
    OnednnGraph::parse_with_limits(&text, limits)
}
