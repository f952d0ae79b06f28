//! The parsed IR structures: net, layers, ports, edges, and the XML walk that builds them.

use std::collections::{HashMap, HashSet};

use roxmltree::{Document, Node, ParsingOptions};

use super::error::{IrError, PortSide};
use super::graph::GraphIndex;
use super::shape::{parse_partial_shape, ElementType, PartialShape};

/// Resource limits of the IR reader. Everything a hostile file could make large is capped.
#[derive(Debug, Clone)]
pub struct IrLimits {
    /// Largest XML document accepted, in bytes.
    pub max_xml_bytes: u64,
    /// Node cap handed to the XML parser (elements, attributes, text nodes).
    pub max_xml_nodes: u32,
    /// Deepest nesting of XML elements, checked by a byte scan before the XML parser
    /// runs: the parser recurses once per level, so a deeper document would overflow
    /// the stack (real IR files nest 6 levels, plus 3 per sub-graph body).
    pub max_xml_depth: usize,
    /// Most layers in the whole model, nested bodies included.
    pub max_layers: usize,
    /// Largest rank of a port or shape attribute.
    pub max_rank: usize,
    /// Deepest nesting of sub-graph bodies (`TensorIterator`, `Loop`, `If`).
    pub max_body_depth: usize,
    /// Most elements a constant reader will decode from the weights.
    pub max_const_elements: u64,
}

impl Default for IrLimits {
    fn default() -> Self {
        IrLimits {
            max_xml_bytes: 256 << 20,
            max_xml_nodes: 20_000_000,
            max_xml_depth: 256,
            max_layers: 1_000_000,
            max_rank: super::shape::DEFAULT_MAX_RANK,
            max_body_depth: 16,
            max_const_elements: 1 << 26,
        }
    }
}

/// The IR format version (`<net version>`); only 10 and 11 are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IrVersion {
    /// IR v10.
    V10,
    /// IR v11 (adds per-layer and per-port `<rt_info>`).
    V11,
}

/// An `<rt_info>` entry: for layers and ports `<attribute name version value/>`; at net
/// level `<info name value/>` or the legacy `<tag value/>` form (then `name` is the tag).
/// Nested sections (e.g. `conversion_parameters`) keep only their name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RtEntry {
    /// `name` attribute, or the tag name when there is none.
    pub name: String,
    /// `version` attribute, if any.
    pub version: Option<String>,
    /// `value` attribute, if any.
    pub value: Option<String>,
}

/// A port of a layer: `<port id precision names><dim>..</dim>...</port>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Port {
    /// The port id (unique within the layer's input list or output list).
    pub id: u64,
    /// The `precision` attribute as written (`FP32`, `I64`, ...); input ports often lack it.
    pub precision: Option<String>,
    /// Tensor names from the `names` attribute, split on `,` with OpenVINO's `\,`
    /// escape undone.
    pub names: Vec<String>,
    /// The `<dim>` values; `-1` is a dynamic dim (intervals are also written as `-1`).
    /// An empty list is rank 0 *or* dynamic rank: the file does not tell them apart.
    pub dims: Vec<i64>,
    /// The port's `<rt_info>` entries.
    pub rt_info: Vec<RtEntry>,
}

impl Port {
    /// The precision parsed as an [`ElementType`], if present and known.
    pub fn element_type(&self) -> Option<ElementType> {
        self.precision.as_deref().and_then(ElementType::parse)
    }
}

/// A port-map style block of a sub-graph layer (`port_map`, `then_port_map`,
/// `else_port_map`, `back_edges`): its tag and each child's tag and attributes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortMapBlock {
    /// Tag of the block.
    pub tag: String,
    /// `(child tag, ordered attributes)` for each child element.
    pub entries: Vec<(String, Vec<(String, String)>)>,
}

/// A nested body of a sub-graph layer (`body`, `then_body`, `else_body`).
#[derive(Debug, Clone)]
pub struct SubGraph {
    /// Tag of the body element.
    pub tag: String,
    /// The body's layers and edges (own id space).
    pub graph: IrGraph,
}

/// One `<layer id name type version>`.
#[derive(Debug, Clone)]
pub struct Layer {
    /// The layer id.
    pub id: u64,
    /// The friendly name.
    pub name: String,
    /// The type as written in the file (`Const`, `ReLU`, `Reshape`, ...); see
    /// [`Layer::opset_type_name`] for the runtime spelling.
    pub type_name: String,
    /// The opset (`opset1`, ...).
    pub version: String,
    /// Any other attributes of the `<layer>` element, in file order.
    pub extra_attrs: Vec<(String, String)>,
    /// `<data>` attributes in file order (empty when there is no `<data>`).
    pub data: Vec<(String, String)>,
    /// `<input>` ports in file order.
    pub inputs: Vec<Port>,
    /// `<output>` ports in file order.
    pub outputs: Vec<Port>,
    /// The layer's `<rt_info>` entries.
    pub rt_info: Vec<RtEntry>,
    /// Nested bodies (sub-graph ops only).
    pub bodies: Vec<SubGraph>,
    /// Port maps and back edges (sub-graph ops only).
    pub port_maps: Vec<PortMapBlock>,
    /// Byte offset of the `<layer>` element in the XML text.
    pub offset: usize,
}

/// An IR boolean as OpenVINO reads one: `true`/`false` in any case, or `1`/`0`
/// (surrounding spaces ignored). The reader's one decoder of booleans
/// ([`Layer::attr_bool`], `to_graph::typed_attr`).
pub fn parse_bool(text: &str) -> Option<bool> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("true") || t == "1" {
        Some(true)
    } else if t.eq_ignore_ascii_case("false") || t == "0" {
        Some(false)
    } else {
        None
    }
}

/// An IR integer list: comma-separated integers with optional spaces (`"1, 2, 3"`);
/// blank text is `[]`. The error is the index of the first entry that is not an
/// integer. The reader's one decoder of integer lists ([`Layer::attr_i64_list`],
/// `to_graph::typed_attr`).
pub fn parse_i64_list(text: &str) -> Result<Vec<i64>, usize> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .enumerate()
        .map(|(index, f)| f.trim().parse().map_err(|_| index))
        .collect()
}

impl Layer {
    /// The operation's runtime type name: OpenVINO's serializer renames four types
    /// (`Constant`→`Const`, `PRelu`→`PReLU`, `Relu`→`ReLU`, `Softmax`→`SoftMax`); this
    /// undoes that, like the IR front end's `translate_type_name`.
    pub fn opset_type_name(&self) -> &str {
        opset_type_name(&self.type_name)
    }

    /// Whether this is a `Const` layer.
    pub fn is_const(&self) -> bool {
        self.type_name == "Const"
    }

    /// The raw `<data>` attribute, if present.
    pub fn data_attr(&self, name: &str) -> Option<&str> {
        self.data
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The `<data>` attribute `name`, or [`IrError::MissingAttribute`].
    pub fn attr_str(&self, name: &str) -> Result<&str, IrError> {
        self.data_attr(name)
            .ok_or_else(|| IrError::MissingAttribute {
                layer: self.id,
                attribute: name.to_string(),
            })
    }

    /// A boolean attribute ([`parse_bool`]).
    pub fn attr_bool(&self, name: &str) -> Result<bool, IrError> {
        let text = self.attr_str(name)?;
        parse_bool(text).ok_or_else(|| IrError::InvalidBool {
            layer: self.id,
            attribute: name.to_string(),
            text: text.to_string(),
        })
    }

    /// An integer attribute ([`parse_i64_list`] of one entry).
    pub fn attr_i64(&self, name: &str) -> Result<i64, IrError> {
        let text = self.attr_str(name)?;
        text.trim().parse().map_err(|_| IrError::InvalidInteger {
            layer: self.id,
            attribute: name.to_string(),
            text: text.to_string(),
            index: 0,
        })
    }

    /// A comma-separated integer list attribute ([`parse_i64_list`]).
    pub fn attr_i64_list(&self, name: &str) -> Result<Vec<i64>, IrError> {
        let text = self.attr_str(name)?;
        parse_i64_list(text).map_err(|index| IrError::InvalidInteger {
            layer: self.id,
            attribute: name.to_string(),
            text: text.to_string(),
            index,
        })
    }

    /// A shape attribute (e.g. a Parameter's `shape`), rank capped at `max_rank`.
    pub fn attr_shape(&self, name: &str, max_rank: usize) -> Result<PartialShape, IrError> {
        let text = self.attr_str(name)?;
        parse_partial_shape(text, max_rank).map_err(|source| IrError::InvalidShape {
            layer: self.id,
            attribute: name.to_string(),
            text: text.to_string(),
            source,
        })
    }

    /// An element type attribute (e.g. `element_type`).
    pub fn attr_element_type(&self, name: &str) -> Result<ElementType, IrError> {
        let text = self.attr_str(name)?;
        ElementType::parse(text).ok_or_else(|| IrError::UnknownElementType {
            layer: self.id,
            attribute: name.to_string(),
            text: text.to_string(),
        })
    }

    /// Position of input port `port` in [`Layer::inputs`] (OpenVINO's "real" input index).
    pub fn input_index(&self, port: u64) -> Option<usize> {
        self.inputs.iter().position(|p| p.id == port)
    }

    /// Position of output port `port` in [`Layer::outputs`].
    pub fn output_index(&self, port: u64) -> Option<usize> {
        self.outputs.iter().position(|p| p.id == port)
    }
}

/// The runtime spelling of an IR layer type (see [`Layer::opset_type_name`]).
pub fn opset_type_name(ir_type: &str) -> &str {
    match ir_type {
        "Const" => "Constant",
        "PReLU" => "PRelu",
        "ReLU" => "Relu",
        "SoftMax" => "Softmax",
        other => other,
    }
}

/// One `<edge from-layer from-port to-layer to-port/>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Edge {
    /// Producing layer id.
    pub from_layer: u64,
    /// Producing (output) port id.
    pub from_port: u64,
    /// Consuming layer id.
    pub to_layer: u64,
    /// Consuming (input) port id.
    pub to_port: u64,
}

/// A `(layer id, port id)` pair naming one port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PortRef {
    /// Layer id.
    pub layer: u64,
    /// Port id.
    pub port: u64,
}

/// A graph: the `<layers>` and `<edges>` of a net or of a sub-graph body, validated
/// (unique ids, edges between declared ports, one producer per input port, acyclic).
#[derive(Debug, Clone)]
pub struct IrGraph {
    /// Layers in file order.
    pub layers: Vec<Layer>,
    /// Edges in file order.
    pub edges: Vec<Edge>,
    pub(crate) index: GraphIndex,
}

/// A parsed IR model (the `.xml` half; constants are read through
/// [`Weights`](super::Weights)).
#[derive(Debug, Clone)]
pub struct IrModel {
    /// `<net name>`.
    pub name: String,
    /// `<net version>`.
    pub version: IrVersion,
    /// The top-level graph.
    pub graph: IrGraph,
    /// Net-level `<rt_info>` (or legacy `<meta_data>`) entries, one level deep.
    pub rt_info: Vec<RtEntry>,
}

impl IrModel {
    /// Parse IR XML text with the default [`IrLimits`].
    pub fn parse(xml: &str) -> Result<IrModel, IrError> {
        Self::parse_with_limits(xml, &IrLimits::default())
    }

    /// Parse IR XML text.
    pub fn parse_with_limits(xml: &str, limits: &IrLimits) -> Result<IrModel, IrError> {
        if xml.len() as u64 > limits.max_xml_bytes {
            return Err(IrError::XmlTooLarge {
                len: xml.len() as u64,
                max: limits.max_xml_bytes,
            });
        }
        check_xml_depth(xml.as_bytes(), limits.max_xml_depth)?;
        let doc = Document::parse_with_options(
            xml,
            ParsingOptions {
                allow_dtd: false,
                nodes_limit: limits.max_xml_nodes,
            },
        )?;
        let root = doc.root_element();
        if root.tag_name().name() != "net" {
            return Err(IrError::NotANet {
                found: root.tag_name().name().to_string(),
            });
        }
        let version_text = required_attr(root, "net", "version")?;
        let version = match version_text.trim() {
            "10" => IrVersion::V10,
            "11" => IrVersion::V11,
            _ => {
                return Err(IrError::UnsupportedVersion {
                    found: version_text.to_string(),
                })
            }
        };
        let name = root.attribute("name").unwrap_or("").to_string();
        let mut budget = limits.max_layers;
        let graph = parse_graph(root, "net", limits, 0, &mut budget)?;
        let mut rt_info = Vec::new();
        for section in ["rt_info", "meta_data"] {
            if let Some(s) = child(root, section) {
                rt_info.extend(s.children().filter(Node::is_element).map(rt_entry));
            }
        }
        Ok(IrModel {
            name,
            version,
            graph,
            rt_info,
        })
    }
}

fn child<'a, 'i>(node: Node<'a, 'i>, tag: &str) -> Option<Node<'a, 'i>> {
    node.children()
        .find(|c| c.is_element() && c.tag_name().name() == tag)
}

fn elements<'a, 'i>(node: Node<'a, 'i>, tag: &'static str) -> impl Iterator<Item = Node<'a, 'i>> {
    node.children()
        .filter(move |c| c.is_element() && c.tag_name().name() == tag)
}

fn required_attr<'a>(
    node: Node<'a, '_>,
    element: &'static str,
    attribute: &'static str,
) -> Result<&'a str, IrError> {
    node.attribute(attribute)
        .ok_or(IrError::MissingXmlAttribute {
            element,
            attribute,
            offset: node.range().start,
        })
}

fn id_attr(
    node: Node<'_, '_>,
    element: &'static str,
    attribute: &'static str,
) -> Result<u64, IrError> {
    let text = required_attr(node, element, attribute)?;
    text.trim().parse().map_err(|_| IrError::InvalidId {
        element,
        attribute,
        text: text.to_string(),
        offset: node.range().start,
    })
}

fn attrs_of(node: Node<'_, '_>) -> Vec<(String, String)> {
    node.attributes()
        .map(|a| (a.name().to_string(), a.value().to_string()))
        .collect()
}

fn rt_entry(node: Node<'_, '_>) -> RtEntry {
    RtEntry {
        name: node
            .attribute("name")
            .unwrap_or(node.tag_name().name())
            .to_string(),
        version: node.attribute("version").map(str::to_string),
        value: node.attribute("value").map(str::to_string),
    }
}

fn rt_info_of(node: Node<'_, '_>) -> Vec<RtEntry> {
    child(node, "rt_info")
        .map(|s| {
            s.children()
                .filter(Node::is_element)
                .map(rt_entry)
                .collect()
        })
        .unwrap_or_default()
}

/// Split OpenVINO's `names` attribute: `,` separates names, `\,` is a literal comma.
pub fn split_tensor_names(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&',') => {
                cur.push(',');
                chars.next();
            }
            ',' => {
                let t = cur.trim();
                if !t.is_empty() {
                    out.push(t.to_string());
                }
                cur.clear();
            }
            c => cur.push(c),
        }
    }
    let t = cur.trim();
    if !t.is_empty() {
        out.push(t.to_string());
    }
    out
}

fn parse_ports(
    layer_node: Node<'_, '_>,
    layer: u64,
    side: PortSide,
    limits: &IrLimits,
) -> Result<Vec<Port>, IrError> {
    let tag = match side {
        PortSide::Input => "input",
        PortSide::Output => "output",
    };
    let Some(list) = child(layer_node, tag) else {
        return Ok(Vec::new());
    };
    let mut ports: Vec<Port> = Vec::new();
    let mut seen = HashSet::new();
    for pn in elements(list, "port") {
        let id = id_attr(pn, "port", "id")?;
        if !seen.insert(id) {
            return Err(IrError::DuplicatePortId {
                layer,
                port: id,
                side,
            });
        }
        let mut dims = Vec::new();
        for dn in elements(pn, "dim") {
            if dims.len() >= limits.max_rank {
                return Err(IrError::PortRankTooLarge {
                    layer,
                    port: id,
                    side,
                    rank: dims.len() + 1,
                    max: limits.max_rank,
                });
            }
            let text = dn.text().unwrap_or("");
            match text.trim().parse::<i64>() {
                Ok(v) if v >= -1 => dims.push(v),
                _ => {
                    return Err(IrError::InvalidPortDim {
                        layer,
                        port: id,
                        side,
                        text: text.to_string(),
                        offset: dn.range().start,
                    })
                }
            }
        }
        ports.push(Port {
            id,
            precision: pn.attribute("precision").map(str::to_string),
            names: pn
                .attribute("names")
                .map(split_tensor_names)
                .unwrap_or_default(),
            dims,
            rt_info: rt_info_of(pn),
        });
    }
    Ok(ports)
}

fn parse_layer(
    ln: Node<'_, '_>,
    limits: &IrLimits,
    depth: usize,
    budget: &mut usize,
) -> Result<Layer, IrError> {
    let id = id_attr(ln, "layer", "id")?;
    let name = required_attr(ln, "layer", "name")?.to_string();
    let type_name = required_attr(ln, "layer", "type")?.to_string();
    let version = required_attr(ln, "layer", "version")?.to_string();
    let extra_attrs = ln
        .attributes()
        .filter(|a| !matches!(a.name(), "id" | "name" | "type" | "version"))
        .map(|a| (a.name().to_string(), a.value().to_string()))
        .collect();
    let data = child(ln, "data").map(attrs_of).unwrap_or_default();
    let inputs = parse_ports(ln, id, PortSide::Input, limits)?;
    let outputs = parse_ports(ln, id, PortSide::Output, limits)?;
    let mut bodies = Vec::new();
    let mut port_maps = Vec::new();
    for c in ln.children().filter(Node::is_element) {
        let tag = c.tag_name().name();
        if tag == "body" || tag.ends_with("_body") {
            if depth + 1 > limits.max_body_depth {
                return Err(IrError::NestingTooDeep {
                    layer: id,
                    max: limits.max_body_depth,
                });
            }
            bodies.push(SubGraph {
                tag: tag.to_string(),
                graph: parse_graph(c, "body", limits, depth + 1, budget)?,
            });
        } else if tag.ends_with("port_map") || tag == "back_edges" {
            port_maps.push(PortMapBlock {
                tag: tag.to_string(),
                entries: c
                    .children()
                    .filter(Node::is_element)
                    .map(|e| (e.tag_name().name().to_string(), attrs_of(e)))
                    .collect(),
            });
        }
    }
    Ok(Layer {
        id,
        name,
        type_name,
        version,
        extra_attrs,
        data,
        inputs,
        outputs,
        rt_info: rt_info_of(ln),
        bodies,
        port_maps,
        offset: ln.range().start,
    })
}

/// Refuse XML whose elements nest deeper than `max`, without parsing it.
///
/// A byte scan that follows the XML parser's tokens as far as nesting goes: a start
/// tag (up to its `>`, quoted attribute values skipped) opens a level unless it ends
/// in `/>`, an end tag closes one, and comments, CDATA sections, processing
/// instructions and declarations are skipped whole. Where the scan and the parser could
/// disagree (a `<` inside a quoted value, an unterminated comment), the parser stops
/// with an error at that point, before nesting any deeper; so the parser's recursion
/// never goes deeper than the depth counted here.
fn check_xml_depth(xml: &[u8], max: usize) -> Result<(), IrError> {
    let find = |from: usize, pat: &[u8]| {
        xml.get(from..)
            .and_then(|rest| rest.windows(pat.len()).position(|w| w == pat))
            .map(|i| from + i + pat.len())
    };
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(lt) = xml.get(i..).and_then(|r| r.iter().position(|&b| b == b'<')) {
        let start = i + lt;
        let rest = &xml[start..];
        let next = if rest.starts_with(b"<!--") {
            find(start + 4, b"-->")
        } else if rest.starts_with(b"<![CDATA[") {
            find(start + 9, b"]]>")
        } else if rest.starts_with(b"<?") {
            find(start + 2, b"?>")
        } else if rest.starts_with(b"<!") {
            find(start + 2, b">")
        } else if rest.starts_with(b"</") {
            depth = depth.saturating_sub(1);
            find(start + 2, b">")
        } else {
            // A start tag: to the first `>` outside quotes.
            let mut quote = None;
            let mut end = None;
            for (k, &b) in rest.iter().enumerate().skip(1) {
                match (quote, b) {
                    (Some(q), _) if b == q => quote = None,
                    (Some(_), _) => {}
                    (None, b'"' | b'\'') => quote = Some(b),
                    (None, b'>') => {
                        end = Some(k);
                        break;
                    }
                    _ => {}
                }
            }
            match end {
                Some(k) => {
                    if rest[k - 1] != b'/' {
                        depth += 1;
                        if depth > max {
                            return Err(IrError::XmlTooDeep { depth, max });
                        }
                    }
                    Some(start + k + 1)
                }
                None => None,
            }
        };
        match next {
            Some(n) => i = n,
            // Unterminated: the parser stops there with an error.
            None => break,
        }
    }
    Ok(())
}

fn parse_graph(
    node: Node<'_, '_>,
    element: &'static str,
    limits: &IrLimits,
    depth: usize,
    budget: &mut usize,
) -> Result<IrGraph, IrError> {
    let layers_node = child(node, "layers").ok_or(IrError::MissingElement {
        parent: element,
        child: "layers",
        offset: node.range().start,
    })?;
    let mut layers = Vec::new();
    let mut ids: HashMap<u64, usize> = HashMap::new();
    for ln in elements(layers_node, "layer") {
        if *budget == 0 {
            return Err(IrError::TooManyLayers {
                max: limits.max_layers,
            });
        }
        *budget -= 1;
        let layer = parse_layer(ln, limits, depth, budget)?;
        if let Some(&first) = ids.get(&layer.id) {
            let first: &Layer = &layers[first];
            return Err(IrError::DuplicateLayerId {
                id: layer.id,
                first_name: first.name.clone(),
                second_name: layer.name,
            });
        }
        ids.insert(layer.id, layers.len());
        layers.push(layer);
    }
    let mut edges = Vec::new();
    if let Some(en) = child(node, "edges") {
        for e in elements(en, "edge") {
            edges.push(Edge {
                from_layer: id_attr(e, "edge", "from-layer")?,
                from_port: id_attr(e, "edge", "from-port")?,
                to_layer: id_attr(e, "edge", "to-layer")?,
                to_port: id_attr(e, "edge", "to-port")?,
            });
        }
    }
    let index = GraphIndex::build(&layers, &edges, ids)?;
    Ok(IrGraph {
        layers,
        edges,
        index,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split() {
        assert_eq!(split_tensor_names("a,b"), vec!["a", "b"]);
        assert_eq!(split_tensor_names("a\\,b, c"), vec!["a,b", "c"]);
        assert!(split_tensor_names("").is_empty());
    }

    #[test]
    fn type_translation() {
        assert_eq!(opset_type_name("Const"), "Constant");
        assert_eq!(opset_type_name("SoftMax"), "Softmax");
        assert_eq!(opset_type_name("Reshape"), "Reshape");
    }
}
