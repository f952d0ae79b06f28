//! Reader for OpenVINO IR models (`model.xml` + `model.bin`), IR versions 10 and 11.
//!
//! The reader turns the files into faithful Rust structures ([`IrModel`], [`Layer`],
//! [`Port`], [`Edge`]) and reads `Const` payloads on demand ([`Weights`]); it does no
//! shape inference. [`to_graph`] converts a read model into the engine's
//! format-neutral graph (layers become nodes of domain `openvino`, Parameters
//! inputs, Consts initializers with their values, `<data>` attributes typed values
//! decoded by name), and the op families' `openvino` rules infer it. `crate::load` does both for a path;
//! `docs/formats.md` describes the format as symdim reads it.
//!
//! # The format as read
//!
//! ```text
//! <net name="…" version="11">
//!   <layers>
//!     <layer id="0" name="x" type="Parameter" version="opset1">
//!       <data shape="?,3,224,224" element_type="f32"/>
//!       <rt_info><attribute name="fused_names" version="0" value="x"/></rt_info>
//!       <output><port id="0" precision="FP32" names="x"><dim>-1</dim>…</port></output>
//!     </layer>
//!     <layer id="1" name="c" type="Const" version="opset1">
//!       <data element_type="i64" shape="2" offset="0" size="16"/>
//!       <output><port id="0" precision="I64"><dim>2</dim></port></output>
//!     </layer>
//!     …
//!   </layers>
//!   <edges><edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>…</edges>
//!   <rt_info>…</rt_info>            (IR v11; older files have <meta_data>)
//! </net>
//! ```
//!
//! * `<net version>` must be `10` or `11` ([`IrError::UnsupportedVersion`] otherwise).
//! * `<layer>` needs `id` (unsigned), `name`, `type` and `version` (the opset). The type is
//!   kept as written; four types are spelled differently from the runtime
//!   (`Const`, `PReLU`, `ReLU`, `SoftMax`), see [`opset_type_name`].
//! * `<data>` attributes are kept as an ordered list of `(key, value)` strings and read
//!   through typed helpers: [`Layer::attr_str`], [`Layer::attr_bool`] (`true`/`false`/`1`/`0`
//!   in any case: Model Optimizer wrote `True`), [`Layer::attr_i64`],
//!   [`Layer::attr_i64_list`] (comma separated, spaces allowed), [`Layer::attr_shape`],
//!   [`Layer::attr_element_type`].
//! * Ports: `<port id precision names>` with `<dim>` children. Dims are kept as raw i64;
//!   `-1` is dynamic, and intervals are also written as `-1` (their bounds exist only in
//!   the Parameter `shape` attribute). A port with no `<dim>` is rank 0 *or* dynamic rank;
//!   the file does not say which. `names` is split on `,` (a `\,` is a literal comma).
//! * Parameter `shape` uses the notation of [`parse_partial_shape`]: integers, `?`/`-1`,
//!   intervals `a..b`, `..b`, `a..`, and `...` for dynamic rank. Const `shape` is the
//!   same notation, but must be static (it is often written with spaces: `"16, 3, 3, 3"`).
//! * Const payloads: `offset`/`size` into the `.bin`, little-endian. [`ConstInfo`]
//!   validates `size == ceil(elements * bits / 8)` (stricter than OpenVINO's `>=`), the
//!   element count against overflow, and `offset + size` against the file length;
//!   [`Weights::const_i64_values`] reads integer types (u64 checked against `i64::MAX`,
//!   booleans as 0/1), [`Weights::const_f64_values`] reads f32/f16/bf16/f64. Sub-byte and
//!   string constants are validated but not decoded.
//! * Edges: every edge must join a declared output port to a declared input port of
//!   existing layers, and an input port has at most one producer. The graph must be
//!   acyclic; [`IrGraph::topological_order`] gives a topological order (ties in file order).
//!   Unconnected input ports are allowed ([`IrGraph::producer`] returns `None`).
//! * Layer and port `<rt_info>` keep `name`/`version`/`value` per entry; the net-level
//!   `<rt_info>` (or legacy `<meta_data>`) keeps one level of entries.
//! * Sub-graph ops (`TensorIterator`, `Loop`, `If`): `body`/`then_body`/`else_body` are
//!   parsed recursively into [`SubGraph`]s (depth capped), `port_map`s and `back_edges`
//!   are kept as raw attribute lists.
//! * Other unknown elements are ignored. XML DTDs are rejected (no entity expansion).
//!
//! Limits ([`IrLimits`]) cap the XML size and node count, the number of layers, port and
//! shape ranks (64), body nesting and the elements a constant reader decodes. Bad input
//! returns an [`IrError`]; it never panics.

mod error;
mod graph;
mod model;
mod shape;
pub mod to_graph;
mod weights;

use std::path::Path;

pub use error::{IrError, PortSide};
pub use model::{
    opset_type_name, parse_bool, parse_i64_list, split_tensor_names, Edge, IrGraph, IrLimits,
    IrModel, IrVersion, Layer, Port, PortMapBlock, PortRef, RtEntry, SubGraph,
};
pub use shape::{parse_partial_shape, DimSpec, ElementType, PartialShape, ShapeError};
pub use weights::{ConstInfo, Weights};

/// Read `xml_path` and open the weights next to it (same stem, `.bin`) for on-demand
/// reads. A missing `.bin` gives [`Weights::empty`], so a model without constants loads.
pub fn read_ir(xml_path: &Path) -> Result<(IrModel, Weights), IrError> {
    read_ir_with_limits(xml_path, &IrLimits::default())
}

/// [`read_ir`] with explicit limits.
pub fn read_ir_with_limits(
    xml_path: &Path,
    limits: &IrLimits,
) -> Result<(IrModel, Weights), IrError> {
    let file_error = |e| IrError::file(xml_path, e);
    let (file, len) = crate::read::files::open_regular(xml_path).map_err(file_error)?;
    if len > limits.max_xml_bytes {
        return Err(IrError::XmlTooLarge {
            len,
            max: limits.max_xml_bytes,
        });
    }
    let mut xml = String::new();
    std::io::Read::read_to_string(
        &mut std::io::Read::take(file, limits.max_xml_bytes),
        &mut xml,
    )
    .map_err(|source| IrError::Io {
        path: xml_path.to_path_buf(),
        source,
    })?;
    let model = IrModel::parse_with_limits(&xml, limits)?;
    let bin = xml_path.with_extension("bin");
    let weights = if bin.exists() {
        Weights::open(&bin)?
    } else {
        Weights::empty()
    };
    Ok((
        model,
        weights.with_max_const_elements(limits.max_const_elements),
    ))
}
