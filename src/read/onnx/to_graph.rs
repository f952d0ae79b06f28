//! ONNX to the format-neutral graph.
//!
//! - Each node gets the opset version of its domain; an empty node name gets a
//!   deterministic one (`<op_type>_<index>`).
//! - Initializers become constants: dims always, values only for integer tensors of at
//!   most [`MAX_VALUE_ELEMENTS`] elements and float tensors of at most
//!   [`MAX_FLOAT_VALUE_ELEMENTS`]. Graph inputs that are also initializers (IR < 4)
//!   are constants, not inputs.
//! - Calls of model-local functions are inlined: the body's nodes are renamed under
//!   the calling node's name, formal inputs and outputs are bound to the call's
//!   tensors, and `ref_attr_name` attributes take the call's values (up to
//!   [`MAX_FUNCTION_DEPTH`] nested calls).
//! - Subgraph attributes (If, Loop, Scan) are converted recursively.

use super::types::check_depth;
use super::wire::{Field, Reader};
use super::{
    AttrValue, AttributeProto, DType, DataSource, Dim, FunctionProto, GraphProto, ModelProto,
    NodeProto, OnnxError, SparseTensorProto, TensorProto, ValueInfoProto,
};
use crate::graph::{
    Attr, AttrMap, ConstData, ConstTensor, DeclDim, Format, Graph, Model, Name, Node, ValueDecl,
    MAX_FLOAT_VALUE_ELEMENTS, MAX_VALUE_ELEMENTS,
};
use indexmap::IndexMap;
use std::collections::HashMap;

/// How deep calls of model-local functions are inlined.
pub const MAX_FUNCTION_DEPTH: usize = 16;

/// Convert a parsed ONNX model.
pub fn to_model(m: &ModelProto<'_>, path: &str, src: &DataSource) -> Result<Model, OnnxError> {
    let g = m.graph()?;
    convert(m, path, src, |cx| cx.graph(g, 0))
}

/// The model of `m` with the main graph that `graph` makes with a converter over `m`
/// (its opsets, functions and external data).
fn convert(
    m: &ModelProto<'_>,
    path: &str,
    src: &DataSource,
    graph: impl FnOnce(&Cx<'_, '_>) -> Result<Graph, OnnxError>,
) -> Result<Model, OnnxError> {
    let mut opsets = IndexMap::new();
    for o in &m.opset_import {
        opsets.insert(super::canonical_domain(o.domain).to_string(), o.version);
    }
    let cx = Cx {
        model: m,
        opsets: &opsets,
        default_version: opsets.get("").copied().unwrap_or(0),
        src,
        recent: std::cell::RefCell::new(vec![None; RECENT_NAMES]),
    };
    let graph = graph(&cx)?;
    Ok(Model {
        path: path.to_string(),
        format: Format::Onnx,
        opsets,
        graph,
    })
}

/// Parse a model's bytes and convert it: the same [`Model`] as [`to_model`] of
/// [`ModelProto::parse`], and on bad input the same error, but the main graph's nodes
/// are converted one by one as they are parsed, never held as a whole `Vec<NodeProto>`.
///
/// The streaming pass reads the model's fields in another order than
/// [`ModelProto::parse`] (the main graph's nodes after its other fields), so when it
/// fails, the model is parsed again the usual way for the error that parse gives.
pub fn load_model(bytes: &[u8], path: &str, src: &DataSource) -> Result<Model, OnnxError> {
    match stream_model(bytes, path, src) {
        Ok(model) => Ok(model),
        Err(_) => to_model(&ModelProto::parse(bytes)?, path, src),
    }
}

fn stream_model(bytes: &[u8], path: &str, src: &DataSource) -> Result<Model, OnnxError> {
    let mut graphs = Vec::new();
    let m = ModelProto::parse_with(bytes, |r| {
        graphs.push(r);
        Ok(())
    })?;
    // Only the last `graph` field counts (as in `ModelProto::parse`); earlier ones are
    // still checked.
    let last = graphs.pop().ok_or(OnnxError::MissingGraph)?;
    for r in graphs {
        GraphProto::parse(r, 0)?;
    }
    convert(&m, path, src, |cx| cx.stream_graph(last))
}

/// The graph's inputs: those declared, less its initializers (older exporters list
/// every initializer as an input too).
fn set_inputs(g: &mut Graph, mut inputs: Vec<ValueDecl>) {
    inputs.retain(|v| !g.initializers.contains_key(&*v.name));
    g.inputs = inputs;
}

struct Cx<'m, 'a> {
    model: &'m ModelProto<'a>,
    opsets: &'m IndexMap<String, i64>,
    /// The default domain's version: most nodes' (no lookup per node).
    default_version: i64,
    src: &'m DataSource,
    /// The names made last, one per slot of their hash: see [`Cx::name`].
    recent: std::cell::RefCell<Vec<Option<Name>>>,
}

/// Slots of [`Cx::name`]'s cache of recent names (a power of two).
const RECENT_NAMES: usize = 4096;
const _: () = assert!(RECENT_NAMES.is_power_of_two() && RECENT_NAMES > 1);

/// Where a function body is being inlined: renames and attribute values.
struct Inline<'c> {
    prefix: String,
    rename: HashMap<String, Name>,
    attrs: &'c AttrMap,
}

impl Inline<'_> {
    fn name(&self, cx: &Cx<'_, '_>, n: &str) -> Name {
        if n.is_empty() {
            return cx.name(n);
        }
        match self.rename.get(n) {
            Some(actual) => actual.clone(),
            None => cx.name(&format!("{}/{n}", self.prefix)),
        }
    }
}

impl Cx<'_, '_> {
    /// The tensor name spelled `text`. Exporters use a tensor soon after they make
    /// it, so a small cache of the names made last, one per slot of their hash, lets
    /// most uses share their producer's [`Name`] (inference then compares them by
    /// pointer) at the cost of one compare with a name still in the CPU's cache. A
    /// table of all the model's names would cost more than it saves.
    fn name(&self, text: &str) -> Name {
        let key = crate::graph::NameKey::of(text);
        let mut recent = self.recent.borrow_mut();
        // Any fixed bits of the hash do: two names in one slot only cost a miss.
        let slot = &mut recent[(key.text_hash() >> (64 - RECENT_NAMES.trailing_zeros())) as usize];
        match slot {
            Some(n) if indexmap::Equivalent::equivalent(&key, n) => n.clone(),
            _ => slot.insert(Name::of_key(key)).clone(),
        }
    }

    fn value_decl(&self, v: &ValueInfoProto<'_>) -> ValueDecl {
        ValueDecl {
            name: self.name(v.name),
            dtype: decl_dtype(v.r#type.as_ref()),
            shape: v.shape().map(|dims| {
                dims.iter()
                    .map(|d| match d {
                        Dim::Value(x) if *x >= 0 => DeclDim::Value(*x),
                        Dim::Param(p) if !p.trim().is_empty() && p.trim() != "?" => {
                            DeclDim::Param(p.to_string())
                        }
                        _ => DeclDim::Unknown,
                    })
                    .collect()
            }),
        }
    }

    fn version(&self, domain: &str) -> i64 {
        if domain.is_empty() {
            return self.default_version;
        }
        let d = super::canonical_domain(domain);
        self.opsets.get(d).copied().unwrap_or(0)
    }

    fn graph(&self, g: &GraphProto<'_>, depth: usize) -> Result<Graph, OnnxError> {
        let mut initializers = IndexMap::new();
        for t in &g.initializer {
            initializers.insert(t.name.to_string(), const_tensor(t, self.src));
        }
        let inputs = g
            .input
            .iter()
            .filter(|v| !initializers.contains_key(v.name))
            .map(|v| self.value_decl(v))
            .collect();
        let outputs = g.output.iter().map(|v| self.value_decl(v)).collect();
        let value_info = g.value_info.iter().map(|v| self.value_decl(v)).collect();
        let mut nodes = Vec::with_capacity(g.node.len());
        for (i, n) in g.node.iter().enumerate() {
            self.node(n, i, None, depth, &mut nodes)?;
        }
        Ok(Graph {
            name: g.name.to_string(),
            inputs,
            outputs,
            initializers,
            nodes,
            value_info,
        })
    }

    /// [`Cx::graph`] of the main graph, from its unparsed bytes (see [`load_model`]):
    /// each node is converted as soon as it is parsed.
    fn stream_graph(&self, mut r: Reader<'_>) -> Result<Graph, OnnxError> {
        check_depth(0, r.offset())?;
        // Count the nodes first, to size the vector once.
        let mut count = 0;
        let mut pre = r.clone();
        while let Some(f) = pre.next_field()? {
            count += usize::from(f.number == 1);
        }
        let mut g = Graph {
            nodes: Vec::with_capacity(count),
            ..Graph::default()
        };
        let mut index = 0;
        let mut inputs = Vec::new();
        // One NodeProto's vectors for all nodes: allocated once.
        let mut spare = NodeProto::default();
        while let Some(f) = r.next_field()? {
            match f.number {
                1 => {
                    self.node_field(&mut spare, &f, index, &mut g.nodes)?;
                    index += 1;
                }
                _ => self.graph_field(&mut g, &mut inputs, &f)?,
            }
        }
        set_inputs(&mut g, inputs);
        Ok(g)
    }

    /// A main-graph field other than a node, into `g` (its inputs into `inputs`, for
    /// the caller to drop those that are initializers once all are known).
    fn graph_field(
        &self,
        g: &mut Graph,
        inputs: &mut Vec<ValueDecl>,
        f: &Field<'_>,
    ) -> Result<(), OnnxError> {
        const M: &str = "GraphProto";
        match f.number {
            2 => g.name = f.str(M)?.to_string(),
            5 => {
                let t = TensorProto::parse(f.message(M)?)?;
                g.initializers
                    .insert(t.name.to_string(), const_tensor(&t, self.src));
            }
            15 => {
                SparseTensorProto::parse(f.message(M)?)?;
            }
            11 => inputs.push(self.value_decl(&ValueInfoProto::parse(f.message(M)?, 0)?)),
            12 => g
                .outputs
                .push(self.value_decl(&ValueInfoProto::parse(f.message(M)?, 0)?)),
            13 => g
                .value_info
                .push(self.value_decl(&ValueInfoProto::parse(f.message(M)?, 0)?)),
            _ => {} // 10 = doc_string, 14 = quantization_annotation, 16 = metadata_props
        }
        Ok(())
    }

    /// The main graph's `index`-th node, its field `f`, converted into `out`, parsed
    /// into `spare`'s vectors (handed back for the next node).
    fn node_field(
        &self,
        spare: &mut NodeProto<'static>,
        f: &Field<'_>,
        index: usize,
        out: &mut Vec<Node>,
    ) -> Result<(), OnnxError> {
        let mut n = std::mem::take(spare).recycle();
        n.parse_into(f.message("GraphProto")?, 0)?;
        self.node(&n, index, None, 0, out)?;
        *spare = n.recycle();
        Ok(())
    }

    fn node(
        &self,
        n: &NodeProto<'_>,
        index: usize,
        inline: Option<&Inline<'_>>,
        depth: usize,
        out: &mut Vec<Node>,
    ) -> Result<(), OnnxError> {
        let base = if n.name.is_empty() {
            format!("{}_{index}", n.op_type)
        } else {
            n.name.to_string()
        };
        let name = match inline {
            Some(il) => format!("{}/{base}", il.prefix),
            None => base,
        };
        let rename = |s: &str| match inline {
            Some(il) => il.name(self, s),
            None => self.name(s),
        };
        let mut attrs = AttrMap::with_capacity(n.attribute.len());
        for a in &n.attribute {
            if let Some(v) = self.attr(a, inline, depth)? {
                attrs.insert(a.name.to_string(), v);
            }
        }
        let inputs: Vec<Name> = n.input.iter().map(|s| rename(s)).collect();
        let outputs: Vec<Name> = n.output.iter().map(|s| rename(s)).collect();
        if let Some(f) = self.model.function_for(n) {
            if depth < MAX_FUNCTION_DEPTH {
                return self.inline(f, &name, &inputs, &outputs, &attrs, depth + 1, out);
            }
        }
        out.push(Node {
            name,
            op_type: self.name(n.op_type),
            domain: super::canonical_domain(n.domain).to_string(),
            version: self.version(n.domain),
            inputs,
            outputs,
            attrs,
        });
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn inline(
        &self,
        f: &FunctionProto<'_>,
        call: &str,
        inputs: &[Name],
        outputs: &[Name],
        call_attrs: &AttrMap,
        depth: usize,
        out: &mut Vec<Node>,
    ) -> Result<(), OnnxError> {
        let mut rename = HashMap::new();
        for (formal, actual) in f.input.iter().zip(inputs) {
            rename.insert(formal.to_string(), actual.clone());
        }
        for (formal, actual) in f.output.iter().zip(outputs) {
            rename.insert(formal.to_string(), actual.clone());
        }
        // Defaults of the function's attributes, overridden by the call.
        let mut attrs = AttrMap::with_capacity(f.attribute_proto.len() + call_attrs.len());
        for a in &f.attribute_proto {
            if let Some(v) = self.attr(a, None, depth)? {
                attrs.insert(a.name.to_string(), v);
            }
        }
        for (k, v) in call_attrs {
            attrs.insert(k.clone(), v.clone());
        }
        let il = Inline {
            prefix: call.to_string(),
            rename,
            attrs: &attrs,
        };
        for (i, n) in f.node.iter().enumerate() {
            self.node(n, i, Some(&il), depth, out)?;
        }
        Ok(())
    }

    fn attr(
        &self,
        a: &AttributeProto<'_>,
        inline: Option<&Inline<'_>>,
        depth: usize,
    ) -> Result<Option<Attr>, OnnxError> {
        if let Some(r) = a.ref_attr_name {
            return Ok(inline.and_then(|il| il.attrs.get(r).cloned()));
        }
        Ok(Some(match &a.value {
            AttrValue::Int(v) => Attr::Int(*v),
            AttrValue::Ints(v) => Attr::Ints(v.clone()),
            AttrValue::Float(v) => Attr::Float(f64::from(*v)),
            AttrValue::Floats(v) => Attr::Floats(v.iter().map(|x| f64::from(*x)).collect()),
            AttrValue::String(s) => Attr::Str(String::from_utf8_lossy(s).into_owned()),
            AttrValue::Strings(v) => Attr::Strs(
                v.iter()
                    .map(|s| String::from_utf8_lossy(s).into_owned())
                    .collect(),
            ),
            AttrValue::Tensor(t) => Attr::Tensor(const_tensor(t, self.src)),
            AttrValue::Graph(g) => Attr::Graph(Box::new(self.graph(g, depth + 1)?)),
            AttrValue::Graphs(gs) => Attr::Graphs(
                gs.iter()
                    .map(|g| self.graph(g, depth + 1))
                    .collect::<Result<_, _>>()?,
            ),
            _ => return Ok(None),
        }))
    }
}

/// The element type a value declares: a tensor's, or that of the tensors a
/// sequence or an optional holds, or a map's value type (symdim gives such a value
/// the facts of its element type with an unknown rank, see
/// `ShapesContext::sequence`); `Undefined` for opaque and untyped values.
fn decl_dtype(t: Option<&crate::read::onnx::TypeProto<'_>>) -> crate::graph::DType {
    use crate::read::onnx::TypeProto;
    match t {
        Some(TypeProto::Tensor(t)) => t.elem_type,
        Some(TypeProto::Sequence(Some(e)) | TypeProto::Optional(Some(e))) => decl_dtype(Some(e)),
        Some(TypeProto::Map {
            value_type: Some(v),
            ..
        }) => decl_dtype(Some(v)),
        _ => crate::graph::DType::Undefined,
    }
}

/// Convert a tensor constant, decoding its values only when small: integer tensors up
/// to [`MAX_VALUE_ELEMENTS`] elements, float tensors up to [`MAX_FLOAT_VALUE_ELEMENTS`].
/// Values wanted but not readable (external data missing, too short, outside the
/// model's folder or not a regular file; stored data that does not match the dims)
/// are [`ConstData::Unreadable`] with the reader's message; larger tensors' data is
/// never opened.
pub fn const_tensor(t: &TensorProto<'_>, src: &DataSource) -> ConstTensor {
    let dims: Vec<i64> = t.dims.to_vec();
    let count = t.num_elements().ok();
    let within = |cap: usize| count.is_some_and(|n| n <= cap as u64);
    // Values that were wanted but do not read are `Unreadable` (inference reports
    // them), except external data of a model held in memory, which has no folder to
    // read it from: that is the caller's choice, not a fault of the model.
    let failed = |e: OnnxError| match e {
        OnnxError::NoModelDirectory { .. } => ConstData::NotLoaded,
        e => ConstData::Unreadable {
            reason: e.to_string(),
        },
    };
    let data = if t.data_type.is_integer() && within(MAX_VALUE_ELEMENTS) {
        t.to_i64_vec(src, MAX_VALUE_ELEMENTS)
            .map_or_else(failed, ConstData::Ints)
    } else if matches!(
        t.data_type,
        DType::Float | DType::Double | DType::Float16 | DType::Bfloat16
    ) && within(MAX_FLOAT_VALUE_ELEMENTS)
    {
        t.to_f64_vec(src, MAX_FLOAT_VALUE_ELEMENTS)
            .map_or_else(failed, ConstData::Floats)
    } else {
        ConstData::NotLoaded
    };
    ConstTensor {
        dtype: t.data_type,
        dims,
        data,
    }
}
