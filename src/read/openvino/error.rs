//! Typed errors of the OpenVINO IR reader.

use std::path::PathBuf;

use super::shape::ShapeError;

/// Which side of an `<edge>` (or which port list of a layer) an error refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortSide {
    /// The producing side: `from-layer` / `from-port`, an `<output>` port.
    Output,
    /// The consuming side: `to-layer` / `to-port`, an `<input>` port.
    Input,
}

impl IrError {
    /// The error of opening or reading `path` ([`crate::read::files::open_regular`]).
    pub fn file(path: &std::path::Path, e: crate::read::files::FileError) -> IrError {
        match e {
            crate::read::files::FileError::NotRegular { kind } => IrError::NotRegularFile {
                path: path.to_path_buf(),
                kind,
            },
            crate::read::files::FileError::Io(source) => IrError::Io {
                path: path.to_path_buf(),
                source,
            },
        }
    }
}

impl std::fmt::Display for PortSide {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PortSide::Output => "output",
            PortSide::Input => "input",
        })
    }
}

/// Everything that can go wrong while reading an OpenVINO IR model (`.xml` + `.bin`).
///
/// Layer ids are the XML `id` attributes. Byte offsets are offsets into the XML text.
#[derive(Debug, thiserror::Error)]
pub enum IrError {
    /// Reading a file failed.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A file to read (the `.xml`, its `.bin`) is not a regular file: a FIFO, a
    /// device or a directory is refused before it is read.
    #[error("cannot read {path}: it is {kind}")]
    NotRegularFile {
        /// The file.
        path: PathBuf,
        /// What the path names.
        kind: crate::read::files::FileKind,
    },
    /// The XML nests elements deeper than the limit (checked before parsing: the XML
    /// parser recurses once per level).
    #[error("XML elements nest {depth} levels deep, more than the limit of {max}")]
    XmlTooDeep {
        /// The depth reached when the limit was passed.
        depth: usize,
        /// The limit ([`super::IrLimits::max_xml_depth`]).
        max: usize,
    },
    /// Reading a byte range of the weights file failed.
    #[error("cannot read {len} bytes at offset {offset} of the weights: {source}")]
    WeightsIo {
        /// Start of the range in the `.bin` file.
        offset: u64,
        /// Length of the range.
        len: u64,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The XML document is larger than the configured limit.
    #[error("XML document has {len} bytes, more than the limit of {max}")]
    XmlTooLarge {
        /// Size of the document.
        len: u64,
        /// The limit.
        max: u64,
    },
    /// The XML text is not well-formed (or exceeds the parser's node limit).
    #[error("malformed XML: {0}")]
    Xml(#[from] roxmltree::Error),
    /// The root element is not `<net>`.
    #[error("root element is <{found}>, expected <net>")]
    NotANet {
        /// The root element's tag name.
        found: String,
    },
    /// The `<net version>` is not 10 or 11.
    #[error("unsupported IR version {found:?} (only 10 and 11 are read)")]
    UnsupportedVersion {
        /// The version text as written.
        found: String,
    },
    /// A required child element is missing.
    #[error("<{parent}> at byte {offset} has no <{child}> element")]
    MissingElement {
        /// The parent tag.
        parent: &'static str,
        /// The missing child tag.
        child: &'static str,
        /// Byte offset of the parent element.
        offset: usize,
    },
    /// A required XML attribute is missing on a structural element.
    #[error("<{element}> at byte {offset} has no `{attribute}` attribute")]
    MissingXmlAttribute {
        /// The element tag.
        element: &'static str,
        /// The attribute name.
        attribute: &'static str,
        /// Byte offset of the element.
        offset: usize,
    },
    /// A structural integer (layer id, port id, edge end) is not a valid unsigned integer.
    #[error("<{element}> at byte {offset}: `{attribute}` = {text:?} is not an unsigned integer")]
    InvalidId {
        /// The element tag.
        element: &'static str,
        /// The attribute name.
        attribute: &'static str,
        /// The offending text.
        text: String,
        /// Byte offset of the element.
        offset: usize,
    },
    /// A `<dim>` is not an integer >= -1.
    #[error("layer {layer}, {side} port {port}: <dim> {text:?} at byte {offset} is not an integer >= -1")]
    InvalidPortDim {
        /// Layer id.
        layer: u64,
        /// Port id.
        port: u64,
        /// Input or output port.
        side: PortSide,
        /// The offending text.
        text: String,
        /// Byte offset of the `<dim>` element.
        offset: usize,
    },
    /// A port has more `<dim>`s than the rank limit.
    #[error("layer {layer}, {side} port {port}: rank {rank} exceeds the limit of {max}")]
    PortRankTooLarge {
        /// Layer id.
        layer: u64,
        /// Port id.
        port: u64,
        /// Input or output port.
        side: PortSide,
        /// The rank found (at least `max + 1`).
        rank: usize,
        /// The limit.
        max: usize,
    },
    /// Two ports of the same list (inputs or outputs) of a layer share an id.
    #[error("layer {layer} has two {side} ports with id {port}")]
    DuplicatePortId {
        /// Layer id.
        layer: u64,
        /// The repeated port id.
        port: u64,
        /// Input or output list.
        side: PortSide,
    },
    /// Two layers of one graph share an id.
    #[error("duplicate layer id {id} (layers {first_name:?} and {second_name:?})")]
    DuplicateLayerId {
        /// The id.
        id: u64,
        /// Name of the first layer with that id.
        first_name: String,
        /// Name of the second layer with that id.
        second_name: String,
    },
    /// The graph has more layers (nested bodies included) than the limit.
    #[error("more than {max} layers")]
    TooManyLayers {
        /// The limit.
        max: usize,
    },
    /// Sub-graph bodies are nested deeper than the limit.
    #[error("sub-graph bodies nested deeper than {max} levels (layer {layer})")]
    NestingTooDeep {
        /// The layer whose body crosses the limit.
        layer: u64,
        /// The limit.
        max: usize,
    },
    /// An edge names a layer that does not exist.
    #[error("edge {from_layer}:{from_port} -> {to_layer}:{to_port} names missing {side} layer {missing}")]
    EdgeMissingLayer {
        /// `from-layer`.
        from_layer: u64,
        /// `from-port`.
        from_port: u64,
        /// `to-layer`.
        to_layer: u64,
        /// `to-port`.
        to_port: u64,
        /// Which end is missing.
        side: PortSide,
        /// The missing layer id.
        missing: u64,
    },
    /// An edge names a port that the layer does not declare.
    #[error("edge {from_layer}:{from_port} -> {to_layer}:{to_port}: layer {layer} has no {side} port {port}")]
    EdgeMissingPort {
        /// `from-layer`.
        from_layer: u64,
        /// `from-port`.
        from_port: u64,
        /// `to-layer`.
        to_layer: u64,
        /// `to-port`.
        to_port: u64,
        /// The layer lacking the port.
        layer: u64,
        /// The missing port id.
        port: u64,
        /// Which port list was searched.
        side: PortSide,
    },
    /// Two edges feed the same input port.
    #[error("input port {port} of layer {layer} has two producers ({first_layer}:{first_port} and {second_layer}:{second_port})")]
    DuplicateInputEdge {
        /// Consuming layer.
        layer: u64,
        /// Consuming port.
        port: u64,
        /// First producer layer.
        first_layer: u64,
        /// First producer port.
        first_port: u64,
        /// Second producer layer.
        second_layer: u64,
        /// Second producer port.
        second_port: u64,
    },
    /// The edges form a cycle; `layer` lies on it.
    #[error("the graph has a cycle through layer {layer} ({name:?})")]
    Cycle {
        /// Id of a layer on the cycle.
        layer: u64,
        /// Its name.
        name: String,
    },
    /// A `<data>` attribute the caller asked for is missing.
    #[error("layer {layer}: missing <data> attribute `{attribute}`")]
    MissingAttribute {
        /// Layer id.
        layer: u64,
        /// Attribute name.
        attribute: String,
    },
    /// A boolean `<data>` attribute is not `true`/`false`/`1`/`0` (any case).
    #[error("layer {layer}: attribute `{attribute}` = {text:?} is not a boolean")]
    InvalidBool {
        /// Layer id.
        layer: u64,
        /// Attribute name.
        attribute: String,
        /// The offending text.
        text: String,
    },
    /// An integer `<data>` attribute (or list element) is not an i64.
    #[error(
        "layer {layer}: attribute `{attribute}` = {text:?} is not an integer (element {index})"
    )]
    InvalidInteger {
        /// Layer id.
        layer: u64,
        /// Attribute name.
        attribute: String,
        /// The offending text (the whole attribute).
        text: String,
        /// Index of the bad element in a comma list (0 for a scalar).
        index: usize,
    },
    /// A shape attribute does not parse.
    #[error("layer {layer}: attribute `{attribute}` = {text:?} is not a shape: {source}")]
    InvalidShape {
        /// Layer id.
        layer: u64,
        /// Attribute name.
        attribute: String,
        /// The offending text.
        text: String,
        /// What is wrong with it.
        #[source]
        source: ShapeError,
    },
    /// An element type name is unknown.
    #[error("layer {layer}: attribute `{attribute}` = {text:?} is not a known element type")]
    UnknownElementType {
        /// Layer id.
        layer: u64,
        /// Attribute name.
        attribute: String,
        /// The offending text.
        text: String,
    },
    /// A constant reader was called on a layer that is not a `Const`.
    #[error("layer {layer} has type {type_name:?}, not Const")]
    NotConst {
        /// Layer id.
        layer: u64,
        /// Its type.
        type_name: String,
    },
    /// A Const's shape is not static.
    #[error("Const layer {layer} has a non-static shape {text:?}")]
    ConstShapeNotStatic {
        /// Layer id.
        layer: u64,
        /// The shape text.
        text: String,
    },
    /// The element count of a Const overflows u64.
    #[error("Const layer {layer}: element count of shape {shape:?} overflows")]
    ConstElementCountOverflow {
        /// Layer id.
        layer: u64,
        /// The shape.
        shape: Vec<u64>,
    },
    /// `size` does not match `elements * element size`.
    #[error("Const layer {layer}: size {size} does not match {elements} elements of {element_type} ({expected} bytes)")]
    ConstSizeMismatch {
        /// Layer id.
        layer: u64,
        /// The `size` attribute.
        size: u64,
        /// Elements from the shape.
        elements: u64,
        /// Element type name.
        element_type: &'static str,
        /// Expected byte size.
        expected: u64,
    },
    /// `offset + size` lies beyond the end of the weights file.
    #[error("Const layer {layer}: bytes {offset}..{offset}+{size} lie outside the {bin_len}-byte weights file")]
    ConstOutOfBounds {
        /// Layer id.
        layer: u64,
        /// The `offset` attribute.
        offset: u64,
        /// The `size` attribute.
        size: u64,
        /// Length of the weights.
        bin_len: u64,
    },
    /// The Const has more elements than the reader's cap.
    #[error("Const layer {layer} has {elements} elements, more than the cap of {max}")]
    ConstTooLarge {
        /// Layer id.
        layer: u64,
        /// Element count.
        elements: u64,
        /// The cap.
        max: u64,
    },
    /// The Const's byte size is more than the reader's cap (8 bytes per allowed element).
    #[error("Const layer {layer} has {size} bytes, more than the cap of {max}")]
    ConstBytesTooLarge {
        /// Layer id.
        layer: u64,
        /// The `size` attribute.
        size: u64,
        /// The cap.
        max: u64,
    },
    /// The Const's element type does not fit the requested reader.
    #[error("Const layer {layer} has element type {element_type}, which the {reader} reader does not read")]
    ConstTypeMismatch {
        /// Layer id.
        layer: u64,
        /// Element type name.
        element_type: &'static str,
        /// `"integer"` or `"float"`.
        reader: &'static str,
    },
    /// A u64 Const value does not fit in i64.
    #[error("Const layer {layer}: element {index} = {value} does not fit in i64")]
    ConstValueOverflow {
        /// Layer id.
        layer: u64,
        /// Element index.
        index: u64,
        /// The value.
        value: u64,
    },
}
