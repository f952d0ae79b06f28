//! OpenVINO IR to the format-neutral graph.
//!
//! * **Nodes.** Every layer other than `Parameter`, `Const` and `Result` becomes a
//!   [`Node`] of domain `openvino`, with `op_type` = the layer type as written in the
//!   file (`Reshape`, `SoftMax`, `ReLU`, ...) and `version` = the number of the layer's
//!   `version="opsetN"` (0 when the version is not of that form, e.g. `extension`).
//!   Inputs follow the layer's `<input>` ports in file order (OpenVINO's input index);
//!   an unconnected input port is an absent input (`""`). Outputs follow `<output>`.
//! * **Node names** are the layer's friendly `name` when no other layer has the same
//!   name, and `<name>#<id>` otherwise.
//! * **Attributes** are the `<data>` attributes, decoded by name ([`typed_attr`]):
//!   booleans (`true`/`True`/`1`, `false`/`0`) become [`Attr::Int`] 0 or 1, integers
//!   [`Attr::Int`], comma-separated integer lists [`Attr::Ints`], numbers
//!   [`Attr::Float`] and lists of them [`Attr::Floats`], element types
//!   [`Attr::Type`], partial shapes (`variable_shape`) [`Attr::Shape`], and every
//!   other attribute, or one
//!   whose text does not read as its kind, stays the string written ([`Attr::Str`]),
//!   for the shape rule to reject. The text as written is kept for messages
//!   ([`crate::graph::AttrMap::written`]).
//! * **Tensor names** (see [`TensorNames`]): an output port is named by the first of
//!   its `names` when that name is claimed by exactly one output port of the graph and
//!   is not of the form `<digits>:<digits>`; otherwise it is `"<layer id>:<port id>"`.
//! * **Parameters** become graph inputs. Their dims come from the `shape` attribute,
//!   not from the port: a static dim is [`DeclDim::Value`], `?` is
//!   [`DeclDim::Unknown`], an interval `a..b` is [`DeclDim::Interval`] (the driver
//!   turns it into the symbol `<tensor>.<axis>` with `a <= s <= b`), and `...`
//!   (dynamic rank) is an unknown shape.
//! * **Consts** become initializers with their static shape; integer and float values
//!   are decoded when the constant has at most [`MAX_VALUE_ELEMENTS`] elements
//!   (sub-byte, string and 8-bit float constants keep only their dims). Every Const's
//!   `<data>` is validated and its byte range checked against the weights.
//! * **Results** become graph outputs: the tensor that feeds them, with the producer
//!   port's dims as the declared shape.
//! * **value_info.** The dims written on output ports of the other layers are the
//!   declared shapes: `-1` is [`DeclDim::Unknown`] (interval bounds are not written on
//!   ports). A port without `<dim>` is rank 0 *or* dynamic rank, so it is skipped.
//! * **Sub-graph bodies** (`TensorIterator`, `Loop`, `If`): each body element
//!   (`body`, `then_body`, `else_body`) is converted like the net, into an
//!   [`Attr::Graph`] of that name whose node names are prefixed with the node's own
//!   (`If_9/then_body/Relu_4`), so that names stay unique across scopes. Its
//!   Parameters are the graph's inputs and its Results the graph's outputs, both in
//!   topological order. The body's port map (`port_map`, `then_port_map`,
//!   `else_port_map`) becomes an [`Attr::Tensor`] of that name with one row of
//!   [`PORT_MAP_COLUMNS`] integers per entry ([`crate::graph::PortMapColumn`]), where ports and
//!   layers are positions: the node's input or output index, the body graph's input
//!   or output index. `back_edges` becomes an [`Attr::Tensor`] of rows
//!   `[body output index, body input index]`.

use super::model::{parse_bool, parse_i64_list};
use super::{ElementType, IrError, IrGraph, IrModel, Layer, PartialShape, Weights};
use crate::graph::{
    Attr, AttrMap, ConstData, ConstTensor, DType, DeclDim, Format, Graph, Model, Name, Node,
    ValueDecl, MAX_VALUE_ELEMENTS, PORT_MAP_COLUMNS,
};
use indexmap::IndexMap;
use std::collections::HashMap;

/// The domain of OpenVINO nodes in the neutral graph.
pub const DOMAIN: &str = "openvino";

/// The neutral element type of an IR element type. Types ONNX has no number for
/// (`u1`, `u3`, `u6`, `nf4`) map to `DType::Unknown(-1)`; `dynamic` is `Undefined`.
pub fn dtype_of(t: ElementType) -> DType {
    use ElementType as E;
    match t {
        E::Dynamic => DType::Undefined,
        E::Boolean => DType::Bool,
        E::Bf16 => DType::Bfloat16,
        E::F16 => DType::Float16,
        E::F32 => DType::Float,
        E::F64 => DType::Double,
        E::F8E4M3 => DType::Float8E4M3FN,
        E::F8E5M2 => DType::Float8E5M2,
        E::F8E8M0 => DType::Float8E8M0,
        E::F4E2M1 => DType::Float4E2M1,
        E::I4 => DType::Int4,
        E::I8 => DType::Int8,
        E::I16 => DType::Int16,
        E::I32 => DType::Int32,
        E::I64 => DType::Int64,
        E::U2 => DType::Uint2,
        E::U4 => DType::Uint4,
        E::U8 => DType::Uint8,
        E::U16 => DType::Uint16,
        E::U32 => DType::Uint32,
        E::U64 => DType::Uint64,
        E::String => DType::String,
        E::U1 | E::U3 | E::U6 | E::Nf4 => DType::Unknown(-1),
    }
}

/// What an IR attribute holds, by its name (the same name means the same kind in
/// every opset).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Bool,
    Int,
    Ints,
    Float,
    Floats,
    Type,
    Shape,
    Text,
}

fn kind_of(name: &str) -> Kind {
    match name {
        "special_zero"
        | "transpose_a"
        | "transpose_b"
        | "m_pythondiv"
        | "keep_dims"
        | "allow_axis_skip"
        | "exclude-pad"
        | "antialias"
        | "normalize_variance"
        | "across_channels"
        | "with_right_bound"
        | "linear_before_reset"
        | "ctc_merge_repeated"
        | "clip_before_nms"
        | "normalize"
        | "sort_result_across_batch"
        | "causal"
        | "use_init_val"
        | "clockwise_mode"
        | "transpose_frames"
        | "center"
        | "do_softmax"
        | "flip"
        | "scale_all_sizes"
        | "share_location"
        | "flatten"
        | "exclusive"
        | "reverse" => Kind::Bool,
        "axis"
        | "group"
        | "batch_dims"
        | "num_splits"
        | "hidden_size"
        | "block_size"
        | "k"
        | "top_k"
        | "keep_top_k"
        | "num_groups"
        | "depth"
        | "pooled_h"
        | "pooled_w"
        | "sampling_ratio"
        | "output_dim"
        | "group_size"
        | "spatial_bins_x"
        | "spatial_bins_y"
        | "part_size"
        | "nms_top_k"
        | "coords"
        | "classes"
        | "num"
        | "end_axis"
        | "post_nms_topn"
        | "num_classes"
        | "max_rois"
        | "post_nms_count"
        | "max_detections_per_image"
        | "h"
        | "w"
        | "deformable_group"
        | "batch_axis"
        | "seq_axis" => Kind::Int,
        "axes" | "strides" | "dilations" | "pads_begin" | "pads_end" | "kernel"
        | "output_padding" | "begin_mask" | "end_mask" | "new_axis_mask" | "shrink_axis_mask"
        | "ellipsis_mask" | "shape" | "order" | "output_size" | "sizes" | "rates" | "stride"
        | "mask" => Kind::Ints,
        "eps" | "epsilon" | "alpha" | "beta" | "bias" | "clip" | "min" | "max" | "cube_coeff"
        | "spatial_scale" | "trans_std" => Kind::Float,
        "min_size" | "max_size" | "aspect_ratio" | "fixed_size" | "fixed_ratio" | "density"
        | "width" | "height" => Kind::Floats,
        "destination_type"
        | "output_type"
        | "index_element_type"
        | "element_type"
        | "output_element_type"
        | "count_element_type"
        | "convert_type"
        | "classes_index_type"
        | "sequence_length_type"
        | "roi_num_type"
        | "variable_type"
        | "u64_integer_promotion_target" => Kind::Type,
        "variable_shape" => Kind::Shape,
        _ => Kind::Text,
    }
}

/// An IR `<data>` attribute decoded by its name: booleans in any case or `1`/`0` as
/// [`Attr::Int`] 0 or 1, integers, comma-separated integer lists (`""` is empty),
/// numbers, comma-separated number lists, element types and partial shapes
/// ([`super::parse_partial_shape`]); the text itself when the name has no kind or
/// the text does not read as one.
pub fn typed_attr(name: &str, text: &str) -> Attr {
    let t = text.trim();
    let typed = match kind_of(name) {
        Kind::Bool => parse_bool(t).map(|b| Attr::Int(i64::from(b))),
        Kind::Int => t.parse().ok().map(Attr::Int),
        Kind::Ints => parse_i64_list(t).ok().map(Attr::Ints),
        Kind::Float => t.parse().ok().map(Attr::Float),
        Kind::Floats if t.is_empty() => Some(Attr::Floats(Vec::new())),
        Kind::Floats => t
            .split(',')
            .map(|f| f.trim().parse::<f64>())
            .collect::<Result<Vec<_>, _>>()
            .ok()
            .map(Attr::Floats),
        Kind::Type => ElementType::parse(t).map(|e| Attr::Type(dtype_of(e))),
        Kind::Shape => PartialShape::parse(t, super::shape::DEFAULT_MAX_RANK)
            .ok()
            .map(|s| Attr::Shape(decl_dims(&s))),
        Kind::Text => None,
    };
    typed.unwrap_or_else(|| Attr::Str(text.to_string()))
}

/// The declared dims of a partial shape: a static dim is [`DeclDim::Value`], `?`
/// [`DeclDim::Unknown`], an interval [`DeclDim::Interval`]; `None` for a dynamic
/// rank.
fn decl_dims(shape: &PartialShape) -> Option<Vec<DeclDim>> {
    match shape {
        PartialShape::Dynamic => None,
        PartialShape::Ranked(dims) => Some(
            dims.iter()
                .map(|d| match (d.as_static(), d.is_fully_dynamic()) {
                    (Some(v), _) => DeclDim::Value(v),
                    (None, true) => DeclDim::Unknown,
                    (None, false) => DeclDim::Interval { lo: d.lo, hi: d.hi },
                })
                .collect(),
        ),
    }
}

/// The opset number of a layer's `version` attribute: `opset8` gives 8; anything
/// else (`extension`, `ie_internal_opset`) gives 0.
pub fn opset_number(version: &str) -> i64 {
    version
        .strip_prefix("opset")
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// The tensor-naming rule of the IR conversion (deterministic: it depends only on the
/// file). An output port `(layer, port)` is named by the first entry of its `names`
/// attribute when that name is the first name of exactly one output port in the graph,
/// appears in no other port's `names`, and is not of the form `<digits>:<digits>`
/// (which would collide with the fallback); otherwise it is named `"<layer>:<port>"`.
#[derive(Debug, Clone)]
pub struct TensorNames {
    names: HashMap<(u64, u64), Name>,
}

impl TensorNames {
    /// Build the names of every output port of a graph.
    pub fn new(g: &IrGraph) -> TensorNames {
        let mut claims: HashMap<&str, usize> = HashMap::new();
        for l in &g.layers {
            for p in &l.outputs {
                for n in &p.names {
                    *claims.entry(n.as_str()).or_insert(0) += 1;
                }
            }
        }
        let mut names = HashMap::new();
        for l in &g.layers {
            for p in &l.outputs {
                let fallback = format!("{}:{}", l.id, p.id);
                let name = match p.names.first() {
                    Some(n) if claims.get(n.as_str()) == Some(&1) && !looks_like_port_ref(n) => {
                        n.clone()
                    }
                    _ => fallback,
                };
                names.insert((l.id, p.id), Name::from(name));
            }
        }
        TensorNames { names }
    }

    /// The name of output port `port` of layer `layer` (`"<layer>:<port>"` for a port
    /// the graph does not declare).
    pub fn get(&self, layer: u64, port: u64) -> Name {
        self.names
            .get(&(layer, port))
            .cloned()
            .unwrap_or_else(|| format!("{layer}:{port}").into())
    }
}

fn looks_like_port_ref(s: &str) -> bool {
    match s.split_once(':') {
        Some((a, b)) => {
            !a.is_empty()
                && !b.is_empty()
                && a.bytes().all(|c| c.is_ascii_digit())
                && b.bytes().all(|c| c.is_ascii_digit())
        }
        None => false,
    }
}

/// Convert a parsed IR model and its weights. `path` is recorded in the model.
///
/// Errors are the reader's typed errors: an invalid Parameter `shape` or
/// `element_type`, or a Const whose `<data>` is invalid or whose bytes lie outside the
/// weights.
pub fn to_model(ir: &IrModel, weights: &Weights, path: &str) -> Result<Model, IrError> {
    let graph = to_graph(&ir.graph, weights, &ir.name)?;
    let max_opset = ir
        .graph
        .layers
        .iter()
        .map(|l| opset_number(&l.version))
        .max()
        .unwrap_or(0);
    let mut opsets = IndexMap::new();
    opsets.insert(DOMAIN.to_string(), max_opset);
    Ok(Model {
        path: path.to_string(),
        format: Format::OpenVino,
        opsets,
        graph,
    })
}

/// Convert one IR graph (the net's or a body's).
pub fn to_graph(g: &IrGraph, weights: &Weights, name: &str) -> Result<Graph, IrError> {
    convert(g, weights, name, "").map(|c| c.graph)
}

/// A converted graph with the layer ids of its inputs (Parameters) and outputs
/// (Results), in the order of `graph.inputs` and `graph.outputs`.
struct Converted {
    graph: Graph,
    params: Vec<u64>,
    results: Vec<u64>,
}

/// Convert one IR graph; `prefix` is put before every node name (`""` for the net,
/// `"<node>/<body tag>/"` for a body).
fn convert(g: &IrGraph, weights: &Weights, name: &str, prefix: &str) -> Result<Converted, IrError> {
    let names = TensorNames::new(g);
    let mut name_count: HashMap<&str, usize> = HashMap::new();
    for l in &g.layers {
        *name_count.entry(l.name.as_str()).or_insert(0) += 1;
    }
    let node_name = |l: &Layer| {
        if name_count.get(l.name.as_str()) == Some(&1) && !l.name.is_empty() {
            format!("{prefix}{}", l.name)
        } else {
            format!("{prefix}{}#{}", l.name, l.id)
        }
    };
    let mut out = Graph {
        name: name.to_string(),
        ..Graph::default()
    };
    let (mut params, mut results) = (Vec::new(), Vec::new());
    for &i in g.topological_order() {
        let l = &g.layers[i];
        match l.type_name.as_str() {
            "Parameter" => {
                let Some(port) = l.outputs.first() else {
                    continue;
                };
                let dtype = dtype_of(l.attr_element_type("element_type")?);
                let shape = decl_dims(&l.attr_shape("shape", super::shape::DEFAULT_MAX_RANK)?);
                out.inputs.push(ValueDecl {
                    name: names.get(l.id, port.id),
                    dtype,
                    shape,
                });
                params.push(l.id);
            }
            "Const" => {
                let Some(port) = l.outputs.first() else {
                    continue;
                };
                let t = const_tensor(l, weights)?;
                out.initializers
                    .insert(names.get(l.id, port.id).to_string(), t);
            }
            "Result" => {
                let Some(src) = l.inputs.first().and_then(|p| g.producer(l.id, p.id)) else {
                    continue;
                };
                let tensor = names.get(src.layer, src.port);
                let decl = g
                    .layer(src.layer)
                    .and_then(|pl| pl.outputs.iter().find(|p| p.id == src.port))
                    .map(|p| port_decl(&tensor, p))
                    .unwrap_or(ValueDecl {
                        name: tensor.clone(),
                        dtype: DType::Undefined,
                        shape: None,
                    });
                out.outputs.push(decl);
                results.push(l.id);
            }
            _ => {
                let inputs = l
                    .inputs
                    .iter()
                    .map(|p| {
                        g.producer(l.id, p.id)
                            .map(|src| names.get(src.layer, src.port))
                            .unwrap_or_else(|| Name::from(""))
                    })
                    .collect();
                let outputs: Vec<Name> = l.outputs.iter().map(|p| names.get(l.id, p.id)).collect();
                for (p, tensor) in l.outputs.iter().zip(&outputs) {
                    if !p.dims.is_empty() {
                        out.value_info.push(port_decl(tensor, p));
                    }
                }
                let mut attrs = AttrMap::with_capacity(l.data.len());
                for (k, v) in &l.data {
                    attrs.insert_written(k.clone(), typed_attr(k, v), v.clone());
                }
                let name = node_name(l);
                if !l.bodies.is_empty() {
                    body_attrs(l, weights, &name, &mut attrs)?;
                }
                out.nodes.push(Node {
                    name,
                    op_type: l.type_name.as_str().into(),
                    domain: DOMAIN.to_string(),
                    version: opset_number(&l.version),
                    inputs,
                    outputs,
                    attrs,
                });
            }
        }
    }
    Ok(Converted {
        graph: out,
        params,
        results,
    })
}

/// An integer table as a tensor attribute (`rows` of `columns` integers).
fn int_table(rows: Vec<i64>, columns: usize) -> Attr {
    Attr::Tensor(ConstTensor {
        dtype: DType::Int64,
        dims: vec![(rows.len() / columns) as i64, columns as i64],
        data: ConstData::Ints(rows),
    })
}

/// The bodies, port maps and back edges of a sub-graph layer as attributes (see the
/// module docs).
fn body_attrs(
    l: &Layer,
    weights: &Weights,
    node: &str,
    attrs: &mut AttrMap,
) -> Result<(), IrError> {
    let position = |v: Option<usize>| v.map_or(-1, |i| i as i64);
    let mut main: Option<(Vec<u64>, Vec<u64>)> = None;
    for body in &l.bodies {
        let prefix = format!("{node}/{}/", body.tag);
        let c = convert(
            &body.graph,
            weights,
            &format!("{node}/{}", body.tag),
            &prefix,
        )?;
        let map_tag = format!("{}port_map", body.tag.strip_suffix("body").unwrap_or(""));
        let mut rows = Vec::new();
        for (tag, entry) in l
            .port_maps
            .iter()
            .filter(|p| p.tag == map_tag)
            .flat_map(|p| &p.entries)
        {
            let input = match tag.as_str() {
                "input" => true,
                "output" => false,
                _ => continue,
            };
            let get = |k: &str| {
                entry
                    .iter()
                    .find(|(n, _)| n == k)
                    .and_then(|(_, v)| v.trim().parse::<i64>().ok())
            };
            let ext = get("external_port_id")
                .and_then(|p| u64::try_from(p).ok())
                .and_then(|p| {
                    if input {
                        l.input_index(p)
                    } else {
                        l.output_index(p)
                    }
                });
            let ids = if input { &c.params } else { &c.results };
            let internal = get("internal_layer_id")
                .and_then(|id| u64::try_from(id).ok())
                .and_then(|id| ids.iter().position(|x| *x == id));
            let purpose = match entry.iter().find(|(n, _)| n == "purpose") {
                Some((_, p)) if p == "current_iteration" => 1,
                Some((_, p)) if p == "execution_condition" => 2,
                _ => 0,
            };
            rows.extend([
                i64::from(!input),
                position(ext),
                position(internal),
                i64::from(get("axis").is_some()),
                get("axis").unwrap_or(0),
                get("start").unwrap_or(0),
                get("end").unwrap_or(-1),
                get("stride").unwrap_or(1),
                get("part_size").unwrap_or(1),
                purpose,
            ]);
        }
        attrs.insert(map_tag, int_table(rows, PORT_MAP_COLUMNS));
        if body.tag == "body" {
            main = Some((c.params.clone(), c.results.clone()));
        }
        attrs.insert(body.tag.clone(), Attr::Graph(Box::new(c.graph)));
    }
    if let Some((params, results)) = main {
        let mut rows = Vec::new();
        for (_, e) in l
            .port_maps
            .iter()
            .filter(|p| p.tag == "back_edges")
            .flat_map(|p| &p.entries)
        {
            let get = |k: &str| {
                e.iter()
                    .find(|(n, _)| n == k)
                    .and_then(|(_, v)| v.trim().parse::<u64>().ok())
            };
            let from = get("from-layer").and_then(|id| results.iter().position(|x| *x == id));
            let to = get("to-layer").and_then(|id| params.iter().position(|x| *x == id));
            rows.extend([position(from), position(to)]);
        }
        attrs.insert("back_edges".to_string(), int_table(rows, 2));
    }
    Ok(())
}

/// The declared tensor of an output port: its precision and `<dim>`s (`-1` is
/// unknown); no dims means the rank is not known.
fn port_decl(name: &Name, p: &super::Port) -> ValueDecl {
    ValueDecl {
        name: name.clone(),
        dtype: p.element_type().map_or(DType::Undefined, dtype_of),
        shape: if p.dims.is_empty() {
            None
        } else {
            Some(
                p.dims
                    .iter()
                    .map(|&d| {
                        if d < 0 {
                            DeclDim::Unknown
                        } else {
                            DeclDim::Value(d)
                        }
                    })
                    .collect(),
            )
        },
    }
}

/// A Const layer as a constant tensor: dims always, values when small and numeric.
pub fn const_tensor(l: &Layer, weights: &Weights) -> Result<ConstTensor, IrError> {
    let info = super::ConstInfo::from_layer(l, super::shape::DEFAULT_MAX_RANK)?;
    let end = info.offset.checked_add(info.size);
    if !matches!(end, Some(e) if e <= weights.len()) {
        return Err(IrError::ConstOutOfBounds {
            layer: info.layer,
            offset: info.offset,
            size: info.size,
            bin_len: weights.len(),
        });
    }
    let dims: Vec<i64> = info
        .shape
        .iter()
        .map(|&d| i64::try_from(d).unwrap_or(i64::MAX))
        .collect();
    use ElementType as E;
    let small = info.elements <= MAX_VALUE_ELEMENTS as u64;
    let data = match info.element_type {
        _ if !small => ConstData::NotLoaded,
        E::Boolean | E::I8 | E::U8 | E::I16 | E::U16 | E::I32 | E::U32 | E::I64 | E::U64 => {
            ConstData::Ints(weights.const_i64_values(l)?)
        }
        E::F32 | E::F64 | E::F16 | E::Bf16 => ConstData::Floats(weights.const_f64_values(l)?),
        _ => ConstData::NotLoaded,
    };
    Ok(ConstTensor {
        dtype: dtype_of(info.element_type),
        dims,
        data,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opset_numbers() {
        assert_eq!(opset_number("opset8"), 8);
        assert_eq!(opset_number("opset1"), 1);
        assert_eq!(opset_number("extension"), 0);
        assert_eq!(opset_number("opsetx"), 0);
    }

    #[test]
    fn port_ref_names() {
        assert!(looks_like_port_ref("12:0"));
        assert!(!looks_like_port_ref("serving_default_input_2:0"));
        assert!(!looks_like_port_ref(":0"));
        assert!(!looks_like_port_ref("input"));
    }
}
