//! The format-neutral graph every reader produces and inference consumes.
//!
//! A [`Model`] is one [`Graph`] plus where it came from. Nodes keep the op type,
//! domain and opset version of their source format; attributes are decoded into
//! [`Attr`]. Initializers and constants keep their dims always and their values only
//! when they are small enough to matter for shapes ([`MAX_VALUE_ELEMENTS`]); large
//! weights are never decoded.

use indexmap::IndexMap;
use std::fmt;

mod dtype;
mod name;
pub use dtype::{bf16_to_f64, f16_to_f64, DType};
pub use name::{same_text, text_hash, Name, NameKey, TensorKey};

/// Integer or float tensors with at most this many elements keep their values
/// (shape tensors, scalars, small constants); larger ones keep only their dims. The
/// ONNX reader keeps the values of float tensors only up to
/// [`MAX_FLOAT_VALUE_ELEMENTS`].
pub const MAX_VALUE_ELEMENTS: usize = 4096;

/// The ONNX reader decodes the values of float tensors (FLOAT, DOUBLE, FLOAT16,
/// BFLOAT16 initializers and Constant values) only when they have at most this many
/// elements; larger ones are [`ConstData::NotLoaded`]. Inference reads the values of a
/// constant only up to [`VALUE_FACT_LIMIT`] elements, so this changes no
/// shape, and models with many float weights (norm scales of a few thousand
/// elements) do not decode each one into a `Vec<f64>`.
pub const MAX_FLOAT_VALUE_ELEMENTS: usize = 64;

// Every float value that inference can read must still be decoded.
const _: () = assert!(MAX_FLOAT_VALUE_ELEMENTS >= VALUE_FACT_LIMIT);

/// Tensors with at most this many elements carry their contents through inference
/// (shape tensors, small constants); larger ones carry only their shape.
pub const VALUE_FACT_LIMIT: usize = 64;

/// The largest rank symdim builds: from a shape tensor's length, a declared input or
/// output shape, or a constant's dims (ONNX sets no limit; real models stay far below
/// it). A larger rank is taken as unknown, with a diagnostic naming the limit.
pub const MAX_RANK: usize = 1024;

/// The default ONNX domain's one spelling: `"ai.onnx"` and `""` name the same domain,
/// and symdim keys it as `""`.
pub fn canonical_domain(domain: &str) -> &str {
    if domain == "ai.onnx" {
        ""
    } else {
        domain
    }
}

/// The source format of a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// ONNX protobuf.
    Onnx,
    /// OpenVINO IR (XML + bin).
    OpenVino,
    /// oneDNN Graph JSON.
    OneDnn,
}

impl Format {
    /// The name used in reports: `onnx`, `openvino`, `onednn`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Onnx => "onnx",
            Format::OpenVino => "openvino",
            Format::OneDnn => "onednn",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a tensor name can be made from: a [`Name`] is shared, text is copied once.
pub trait IntoName {
    /// The name.
    fn into_name(self) -> Name;
}

impl<T: Into<Name>> IntoName for T {
    fn into_name(self) -> Name {
        self.into()
    }
}

/// A model: a graph and where it came from.
#[derive(Clone, Debug)]
pub struct Model {
    /// The path it was read from, as given.
    pub path: String,
    /// The source format.
    pub format: Format,
    /// Opset version per domain (`""` is the default ONNX domain), in file order.
    pub opsets: IndexMap<String, i64>,
    /// The main graph.
    pub graph: Graph,
}

/// A declared dim, as written in the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeclDim {
    /// A concrete size.
    Value(i64),
    /// A named (symbolic) size: an ONNX `dim_param`, which may be an expression.
    Param(String),
    /// Dynamic with no name.
    Unknown,
    /// A dynamic size with bounds (OpenVINO intervals): `lo..hi`, `hi` open when `None`.
    Interval {
        /// Lower bound.
        lo: i64,
        /// Upper bound, if any.
        hi: Option<i64>,
    },
}

/// A declared tensor: a name, an element type and a shape (absent when even the
/// rank is unknown).
#[derive(Clone, Debug, PartialEq)]
pub struct ValueDecl {
    /// Tensor name.
    pub name: Name,
    /// Element type (`Undefined` when not given).
    pub dtype: DType,
    /// Dims, or `None` for unknown rank.
    pub shape: Option<Vec<DeclDim>>,
}

/// The contents of a constant tensor.
#[derive(Clone, Debug, PartialEq)]
pub enum ConstData {
    /// Integer (and bool) values, row-major.
    Ints(Vec<i64>),
    /// Float values, row-major.
    Floats(Vec<f64>),
    /// Values not decoded (too large, or a type that shapes never need).
    NotLoaded,
    /// Values that were wanted but could not be read: external data that is missing,
    /// too short, outside the model's folder or not a regular file, or stored data
    /// that does not match the tensor's dims. Inference reports it as an error
    /// naming the tensor, and the values are unknown.
    Unreadable {
        /// The reader's message: which file or field, and what is wrong with it.
        reason: String,
    },
}

/// A constant tensor (initializer, Constant node value, OpenVINO Const).
#[derive(Clone, Debug, PartialEq)]
pub struct ConstTensor {
    /// Element type.
    pub dtype: DType,
    /// Dims.
    pub dims: Vec<i64>,
    /// Values, when small.
    pub data: ConstData,
}

/// The columns of a port map row: how a sub-graph node's inputs and outputs reach
/// its body's inputs and outputs. The OpenVINO reader converts each entry of a
/// `port_map`, `then_port_map` or `else_port_map` into one row of
/// [`PORT_MAP_COLUMNS`] integers of an [`Attr::Tensor`] of that name
/// (`crate::read::openvino::to_graph`); the control-flow rules read them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortMapColumn {
    /// 0 for an `input` entry, 1 for an `output` entry.
    Direction = 0,
    /// The position of `external_port_id` among the node's inputs (or outputs), -1
    /// when it is not a port of the node (`-1` in the file).
    External = 1,
    /// The position of `internal_layer_id` among the body graph's inputs (its
    /// Parameters) or outputs (its Results), -1 when it names no such layer.
    Internal = 2,
    /// 1 when the entry has an `axis` (a sliced input, a concatenated output).
    HasAxis = 3,
    /// `axis` (0 when absent).
    Axis = 4,
    /// `start` (default 0).
    Start = 5,
    /// `end` (default -1).
    End = 6,
    /// `stride` (default 1).
    Stride = 7,
    /// `part_size` (default 1).
    PartSize = 8,
    /// `purpose`: 0 none, 1 `current_iteration`, 2 `execution_condition`.
    Purpose = 9,
}

/// The number of integers in a converted port map row.
pub const PORT_MAP_COLUMNS: usize = 10;

/// An attribute value.
#[derive(Clone, Debug, PartialEq)]
pub enum Attr {
    /// An integer (bools are 0/1).
    Int(i64),
    /// A list of integers.
    Ints(Vec<i64>),
    /// A float.
    Float(f64),
    /// A list of floats.
    Floats(Vec<f64>),
    /// A string.
    Str(String),
    /// A list of strings.
    Strs(Vec<String>),
    /// A tensor.
    Tensor(ConstTensor),
    /// A subgraph.
    Graph(Box<Graph>),
    /// A list of subgraphs.
    Graphs(Vec<Graph>),
    /// An element type (OpenVINO's `destination_type`, `output_type`, ...).
    Type(DType),
    /// A partial shape (OpenVINO's `variable_shape`): its dims, `None` for a
    /// dynamic rank. Dims are [`DeclDim::Value`], [`DeclDim::Unknown`] or
    /// [`DeclDim::Interval`].
    Shape(Option<Vec<DeclDim>>),
}

impl Attr {
    /// A short name of the attribute's kind, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Attr::Int(_) => "int",
            Attr::Ints(_) => "ints",
            Attr::Float(_) => "float",
            Attr::Floats(_) => "floats",
            Attr::Str(_) => "string",
            Attr::Strs(_) => "strings",
            Attr::Tensor(_) => "tensor",
            Attr::Graph(_) => "graph",
            Attr::Graphs(_) => "graphs",
            Attr::Type(_) => "element type",
            Attr::Shape(_) => "shape",
        }
    }
}

impl fmt::Display for Attr {
    /// A compact form for error messages: `1`, `[0, -1]`, `"NOTSET"`, `<tensor i64 [2]>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list =
            |f: &mut fmt::Formatter<'_>, items: Vec<String>| write!(f, "[{}]", items.join(", "));
        match self {
            Attr::Int(v) => write!(f, "{v}"),
            Attr::Ints(v) => list(f, v.iter().map(|x| x.to_string()).collect()),
            Attr::Float(v) => write!(f, "{v}"),
            Attr::Floats(v) => list(f, v.iter().map(|x| x.to_string()).collect()),
            Attr::Str(s) => write!(f, "{s:?}"),
            Attr::Strs(v) => list(f, v.iter().map(|x| format!("{x:?}")).collect()),
            Attr::Tensor(t) => write!(f, "<tensor {} {:?}>", t.dtype, t.dims),
            Attr::Graph(g) => write!(f, "<graph {}>", g.name),
            Attr::Graphs(g) => write!(f, "<{} graphs>", g.len()),
            Attr::Type(t) => f.write_str(t.short_name()),
            Attr::Shape(None) => f.write_str("[...]"),
            Attr::Shape(Some(dims)) => list(f, dims.iter().map(decl_dim_text).collect()),
        }
    }
}

/// A declared dim as OpenVINO writes it: `3`, `?`, `1..4`, `2..`; a named one by
/// its name.
fn decl_dim_text(d: &DeclDim) -> String {
    match d {
        DeclDim::Value(v) => v.to_string(),
        DeclDim::Param(p) => p.clone(),
        DeclDim::Unknown => "?".to_string(),
        DeclDim::Interval { lo, hi: Some(h) } => format!("{lo}..{h}"),
        DeclDim::Interval { lo, hi: None } => format!("{lo}.."),
    }
}

/// The attributes of a [`Node`]: a small map from name to value that keeps insertion
/// (file) order.
///
/// Nodes have zero to a handful of attributes, so the map is a vector of pairs searched
/// linearly: one allocation per node with attributes (none without), no hashing. It has
/// the map methods the code base uses, with the semantics of `IndexMap`'s: [`insert`]
/// replaces the value of an existing name in place and returns the old one,
/// [`shift_remove`] keeps the order of the rest, collecting pairs with a repeated name
/// keeps the first position and the last value, and equality does not depend on order.
///
/// [`insert`]: AttrMap::insert
/// [`shift_remove`]: AttrMap::shift_remove
#[derive(Clone, Default)]
pub struct AttrMap {
    entries: Vec<(String, Attr)>,
    /// The text each attribute had in the source file, where the reader decoded it
    /// from text (OpenVINO IR's `<data>`): messages quote attributes as written.
    written: Vec<(String, String)>,
}

/// The iterator of [`AttrMap::iter`]: `(name, value)` pairs in order.
pub type AttrIter<'a> = std::iter::Map<
    std::slice::Iter<'a, (String, Attr)>,
    fn(&'a (String, Attr)) -> (&'a String, &'a Attr),
>;

impl AttrMap {
    /// An empty map (no allocation).
    pub const fn new() -> Self {
        AttrMap {
            entries: Vec::new(),
            written: Vec::new(),
        }
    }

    /// An empty map with room for `n` attributes.
    pub fn with_capacity(n: usize) -> Self {
        AttrMap {
            entries: Vec::with_capacity(n),
            written: Vec::new(),
        }
    }

    /// Sets an attribute decoded from `text`, as the source file wrote it (see
    /// [`AttrMap::written`]).
    pub fn insert_written(&mut self, name: String, value: Attr, text: String) {
        self.written.retain(|(k, _)| *k != name);
        self.written.push((name.clone(), text));
        self.insert(name, value);
    }

    /// The text an attribute had in the source file, when the reader decoded it from
    /// text.
    pub fn written(&self, name: &str) -> Option<&str> {
        self.written
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, t)| t.as_str())
    }

    fn position(&self, name: &str) -> Option<usize> {
        self.entries.iter().position(|(k, _)| k == name)
    }

    /// The value of an attribute.
    pub fn get(&self, name: &str) -> Option<&Attr> {
        self.entries.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }

    /// The value of an attribute, mutably.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut Attr> {
        self.entries
            .iter_mut()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v)
    }

    /// Whether the map has an attribute of this name.
    pub fn contains_key(&self, name: &str) -> bool {
        self.position(name).is_some()
    }

    /// Sets an attribute: a new name goes last, an existing one keeps its place and gets
    /// the new value; returns the old value, if any.
    pub fn insert(&mut self, name: String, value: Attr) -> Option<Attr> {
        match self.position(&name) {
            Some(i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            None => {
                self.entries.push((name, value));
                None
            }
        }
    }

    /// Removes an attribute, keeping the order of the others; returns its value.
    pub fn shift_remove(&mut self, name: &str) -> Option<Attr> {
        let i = self.position(name)?;
        self.written.retain(|(k, _)| k != name);
        Some(self.entries.remove(i).1)
    }

    /// Removes every attribute.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.written.clear();
    }

    /// The number of attributes.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no attributes.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// `(name, value)` pairs, in order.
    pub fn iter(&self) -> AttrIter<'_> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// The names, in order.
    pub fn keys(&self) -> impl Iterator<Item = &String> + '_ {
        self.entries.iter().map(|(k, _)| k)
    }

    /// The values, in order.
    pub fn values(&self) -> impl Iterator<Item = &Attr> + '_ {
        self.entries.iter().map(|(_, v)| v)
    }
}

impl PartialEq for AttrMap {
    /// Map equality: the same names with equal values, in any order.
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

impl fmt::Debug for AttrMap {
    /// Like a map: `{"axis": Int(1)}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl FromIterator<(String, Attr)> for AttrMap {
    fn from_iter<I: IntoIterator<Item = (String, Attr)>>(iter: I) -> Self {
        let iter = iter.into_iter();
        let mut m = AttrMap::with_capacity(iter.size_hint().0);
        m.extend(iter);
        m
    }
}

impl Extend<(String, Attr)> for AttrMap {
    fn extend<I: IntoIterator<Item = (String, Attr)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl<const N: usize> From<[(String, Attr); N]> for AttrMap {
    fn from(pairs: [(String, Attr); N]) -> Self {
        pairs.into_iter().collect()
    }
}

impl<'a> IntoIterator for &'a AttrMap {
    type Item = (&'a String, &'a Attr);
    type IntoIter = AttrIter<'a>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// A node (an operator application).
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Node name (may be empty in ONNX; readers fill a deterministic one).
    pub name: String,
    /// Operator type, in the source format's spelling (`Reshape`, `StaticReshape`).
    /// A [`Name`], so that every node's rule lookup compares it without hashing.
    pub op_type: Name,
    /// Operator domain (`""` for default ONNX ops, `com.microsoft`, `openvino`, `onednn`).
    pub domain: String,
    /// Opset version of the op's domain (OpenVINO: the layer's opset number).
    pub version: i64,
    /// Input tensor names; `""` marks an absent optional input.
    pub inputs: Vec<Name>,
    /// Output tensor names; `""` marks an unused optional output.
    pub outputs: Vec<Name>,
    /// Attributes, in file order.
    pub attrs: AttrMap,
}

impl Node {
    /// An attribute by name.
    pub fn attr(&self, name: &str) -> Option<&Attr> {
        self.attrs.get(name)
    }

    /// The `i`-th input name when present and not empty.
    pub fn input(&self, i: usize) -> Option<&Name> {
        self.inputs.get(i).filter(|s| !s.is_empty())
    }

    /// The number of inputs up to the last non-empty one.
    pub fn input_count(&self) -> usize {
        self.inputs
            .iter()
            .rposition(|s| !s.is_empty())
            .map_or(0, |i| i + 1)
    }

    /// `name=value` pairs of the scalar and list attributes, for messages; an
    /// attribute decoded from text is quoted as written (`special_zero="true"`).
    pub fn attrs_summary(&self) -> String {
        self.attrs
            .iter()
            .filter(|(_, v)| !matches!(v, Attr::Graph(_) | Attr::Graphs(_) | Attr::Tensor(_)))
            .map(|(k, v)| match self.attrs.written(k) {
                Some(text) => format!("{k}={text:?}"),
                None => format!("{k}={v}"),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A graph: declared inputs and outputs, constants, nodes, and declared
/// intermediate shapes.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Graph {
    /// Graph name.
    pub name: String,
    /// Graph inputs that are not initializers, in order.
    pub inputs: Vec<ValueDecl>,
    /// Graph outputs, in order.
    pub outputs: Vec<ValueDecl>,
    /// Constant tensors by name, in file order.
    pub initializers: IndexMap<String, ConstTensor>,
    /// Nodes, in file order.
    pub nodes: Vec<Node>,
    /// Declared shapes of intermediate tensors (`value_info`), in file order.
    pub value_info: Vec<ValueDecl>,
}

/// Nodes that never became ready in [`topological_order`]: the order of those that
/// did, the rest in index order, and one of the rest that lies on a cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cycle {
    /// The nodes placed before the cycle blocked the rest.
    pub order: Vec<usize>,
    /// The nodes never placed, in index order.
    pub stuck: Vec<usize>,
    /// A node on a cycle (among `stuck`).
    pub member: usize,
}

/// Kahn's algorithm over nodes `0..preds.len()`, where `preds[i]` lists the nodes
/// `i` waits for (a node listing itself never runs). Ties are broken by index, so
/// a file that is already sorted keeps its order. Shared by the readers and the
/// inference driver.
pub fn topological_order(preds: &[Vec<usize>]) -> Result<Vec<usize>, Cycle> {
    let n = preds.len();
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, ps) in preds.iter().enumerate() {
        for &p in ps {
            succs[p].push(i);
        }
    }
    let mut indeg: Vec<usize> = preds.iter().map(Vec::len).collect();
    let mut ready: std::collections::BinaryHeap<std::cmp::Reverse<usize>> = (0..n)
        .filter(|&i| indeg[i] == 0)
        .map(std::cmp::Reverse)
        .collect();
    let mut order = Vec::with_capacity(n);
    while let Some(std::cmp::Reverse(i)) = ready.pop() {
        order.push(i);
        for &s in &succs[i] {
            indeg[s] -= 1;
            if indeg[s] == 0 {
                ready.push(std::cmp::Reverse(s));
            }
        }
    }
    if order.len() == n {
        return Ok(order);
    }
    // Every unplaced node waits for an unplaced node; walking those from any of them
    // must revisit one, and the first revisited node is on a cycle.
    let stuck: Vec<usize> = (0..n).filter(|&i| indeg[i] > 0).collect();
    let mut cur = stuck[0];
    let mut seen = vec![false; n];
    while !seen[cur] {
        seen[cur] = true;
        match preds[cur].iter().find(|&&p| indeg[p] > 0) {
            Some(&p) => cur = p,
            None => break,
        }
    }
    Err(Cycle {
        order,
        stuck,
        member: cur,
    })
}

#[cfg(test)]
mod topo_tests {
    use super::*;

    #[test]
    fn kahn_keeps_file_order_and_finds_a_cycle_member() {
        assert_eq!(
            topological_order(&[vec![], vec![0], vec![0], vec![1, 2]]),
            Ok(vec![0, 1, 2, 3])
        );
        assert_eq!(
            topological_order(&[vec![1], vec![], vec![]]),
            Ok(vec![1, 0, 2])
        );
        // 0 <- 2 <- 1 <- 2: nodes 1 and 2 form a cycle, 0 waits on it, 3 is free.
        let c = topological_order(&[vec![2], vec![2], vec![1], vec![]]).unwrap_err();
        assert_eq!((c.order, c.stuck.clone()), (vec![3], vec![0, 1, 2]));
        assert!([1, 2].contains(&c.member));
        // a node waiting for itself
        assert_eq!(topological_order(&[vec![0]]).unwrap_err().member, 0);
    }
}
