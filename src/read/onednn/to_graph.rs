//! oneDNN Graph JSON to the format-neutral graph.
//!
//! * **Nodes.** Every op becomes a [`Node`] of domain `onednn`, `op_type` = its
//!   `kind`, version 1, in topological order (ties in file order). The node name is
//!   the op's `name` when no other op has the same name, and `<name>#<id>` otherwise.
//! * **Tensor names** are the logical tensor ids, in decimal (`"0"`, `"17"`).
//! * **Attributes**: `s64` and `bool` become [`Attr::Int`] (booleans 0/1), `s64[]`
//!   [`Attr::Ints`], `f32` [`Attr::Float`], `f32[]` [`Attr::Floats`], `string`
//!   [`Attr::Str`]. One attribute is added by symdim: `dst_dtype` ([`Attr::Type`])
//!   when the op's first output has a defined dtype different from its first
//!   input's (TypeCast, Quantize, Dequantize, a SoftMax that writes bf16, ...); the
//!   `onednn` rules give output 0 that type. A file's own `dst_dtype` (a string
//!   naming a oneDNN dtype, checked by the parser) wins and is decoded likewise.
//! * **Graph inputs** are the tensors consumed but never produced, in order of first
//!   use, with their logical-tensor dtype and shape; an unknown shape (the sentinel
//!   `[INT64_MIN]`) is an unknown rank. `property_type: constant` tensors are inputs
//!   too (the file carries no values).
//! * **Graph outputs** are the tensors produced but never consumed, in file order.
//! * **value_info**: the known shapes of every produced tensor.
//! * **Symbolic inputs** ([`Symbolize`]): chosen dims of graph inputs become
//!   expressions (a symbol name such as `N`, or any expression of the grammar). Inputs
//!   that share a name share the symbol. As benchdnn does after `--in-shapes`, every
//!   produced tensor's shape is then forgotten (value_info and graph outputs keep only
//!   their dtype) and re-inferred. StaticReshape `shape` attributes are not rewritten:
//!   the StaticReshape rule checks each against the symbolic input and reports an
//!   attribute that no longer holds for every value of the symbols.

use super::{DataType, Dims, OnednnGraph, Op};
use crate::graph::{Attr, AttrMap, DType, DeclDim, Format, Graph, Model, Node, ValueDecl};
use indexmap::IndexMap;
use std::collections::HashMap;

/// The domain of oneDNN nodes in the neutral graph.
pub const DOMAIN: &str = "onednn";

/// The attribute that gives an op's output type ([`Attr::Type`]).
pub const DST_DTYPE: &str = "dst_dtype";

/// Turn dim `axis` of graph input `tensor` into `name` (a symbol or an expression).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbolize {
    /// The logical tensor id (must be a graph input).
    pub tensor: u64,
    /// The axis (must be below the tensor's rank).
    pub axis: usize,
    /// The symbol name, or an expression in the grammar of `docs/grammar.md`.
    pub name: String,
}

impl std::str::FromStr for Symbolize {
    type Err = String;

    /// Parse the CLI form `ID:AXIS=NAME`, e.g. `0:0=N`.
    fn from_str(s: &str) -> Result<Symbolize, String> {
        let (lhs, name) = s
            .split_once('=')
            .ok_or_else(|| format!("expected ID:AXIS=NAME, found `{s}`"))?;
        let (id, axis) = lhs
            .split_once(':')
            .ok_or_else(|| format!("expected ID:AXIS=NAME, found `{s}`"))?;
        let tensor = id
            .trim()
            .parse()
            .map_err(|_| format!("tensor id `{}` is not an unsigned integer", id.trim()))?;
        let axis = axis
            .trim()
            .parse()
            .map_err(|_| format!("axis `{}` is not an unsigned integer", axis.trim()))?;
        let name = name.trim();
        if name.is_empty() {
            return Err(format!("empty symbol name in `{s}`"));
        }
        Ok(Symbolize {
            tensor,
            axis,
            name: name.to_string(),
        })
    }
}

/// Options of the oneDNN conversion.
#[derive(Clone, Debug, Default)]
pub struct ConvertOptions {
    /// Input dims to turn into symbols.
    pub symbols: Vec<Symbolize>,
    /// Checks that a [`Symbolize`] name is a symbol or an expression of the grammar
    /// (the reader does not know the grammar; the loader passes the algebra's parser):
    /// the parser's error when it is not. Without it, every name is taken.
    pub check_name: Option<NameCheck>,
}

/// Checks a symbol name: the parser's error when it is not a symbol or an
/// expression of the grammar.
pub type NameCheck = fn(&str) -> Result<(), NameError>;

/// The error of a [`NameCheck`]: the loader's check gives the grammar's
/// `ParseError` (`symdim::algebra::ParseError`, which `downcast_ref` recovers); the
/// reader, below the algebra, knows it only as an error.
pub type NameError = std::sync::Arc<dyn std::error::Error + Send + Sync>;

/// Why a [`Symbolize`] request cannot be applied.
#[derive(Clone, Debug, thiserror::Error)]
pub enum SymbolizeError {
    /// No logical tensor has this id.
    #[error("--symbol {tensor}:{axis}: the graph has no logical tensor {tensor}")]
    UnknownTensor {
        /// The id.
        tensor: u64,
        /// The axis asked for.
        axis: usize,
    },
    /// The tensor is produced by an op (only graph inputs can be symbolic).
    #[error("--symbol {tensor}:{axis}: tensor {tensor} is produced by op `{producer}`, not a graph input (inputs: {})", .inputs.iter().map(u64::to_string).collect::<Vec<_>>().join(", "))]
    NotAnInput {
        /// The id.
        tensor: u64,
        /// The axis asked for.
        axis: usize,
        /// The producing op's name.
        producer: String,
        /// The ids of the graph inputs, in order.
        inputs: Vec<u64>,
    },
    /// The tensor's shape is unknown (`[INT64_MIN]`), so it has no axes to name.
    #[error("--symbol {tensor}:{axis}: tensor {tensor} has an unknown shape")]
    UnknownShape {
        /// The id.
        tensor: u64,
        /// The axis asked for.
        axis: usize,
    },
    /// The axis is not below the tensor's rank.
    #[error("--symbol {tensor}:{axis}: axis {axis} is out of range for tensor {tensor} of shape {shape:?}")]
    AxisOutOfRange {
        /// The id.
        tensor: u64,
        /// The axis asked for.
        axis: usize,
        /// The tensor's dims.
        shape: Vec<i64>,
    },
    /// The name is not a symbol or expression of the grammar.
    #[error("--symbol {tensor}:{axis}={name}: `{name}` is not a symbol or expression: {error}")]
    BadName {
        /// The id.
        tensor: u64,
        /// The axis.
        axis: usize,
        /// The name given.
        name: String,
        /// The check's error (the grammar's parse error).
        error: NameError,
    },
}

/// The neutral element type of a oneDNN dtype.
pub fn dtype_of(t: DataType) -> DType {
    match t {
        DataType::Undef => DType::Undefined,
        DataType::F32 => DType::Float,
        DataType::Bf16 => DType::Bfloat16,
        DataType::F16 => DType::Float16,
        DataType::S8 => DType::Int8,
        DataType::U8 => DType::Uint8,
        DataType::S32 => DType::Int32,
        DataType::S64 => DType::Int64,
        DataType::Boolean => DType::Bool,
        DataType::F8E5M2 => DType::Float8E5M2,
        DataType::F8E4M3 => DType::Float8E4M3FN,
        DataType::S4 => DType::Int4,
        DataType::U4 => DType::Uint4,
    }
}

/// The neutral attribute of a file attribute named `name`. A `dst_dtype` string
/// (which the parser has checked names a dtype) is an element type.
fn attr_of(name: &str, v: &super::AttrValue) -> Attr {
    use super::AttrValue as A;
    match v {
        A::String(s) if name == DST_DTYPE => match DataType::parse(s) {
            Some(t) => Attr::Type(dtype_of(t)),
            None => Attr::Str(s.clone()),
        },
        A::String(s) => Attr::Str(s.clone()),
        A::Bool(b) => Attr::Int(i64::from(*b)),
        A::S64(x) => Attr::Int(*x),
        A::S64List(x) => Attr::Ints(x.clone()),
        A::F32(x) => Attr::Float(f64::from(*x)),
        A::F32List(x) => Attr::Floats(x.iter().map(|f| f64::from(*f)).collect()),
    }
}

fn known_decl(id: u64, dtype: DataType, shape: &Dims) -> ValueDecl {
    ValueDecl {
        name: id.to_string().into(),
        dtype: dtype_of(dtype),
        shape: shape
            .known()
            .map(|d| d.iter().map(|&v| DeclDim::Value(v)).collect()),
    }
}

/// Convert a parsed oneDNN graph. `path` is recorded in the model.
pub fn to_model(
    g: &OnednnGraph,
    path: &str,
    options: &ConvertOptions,
) -> Result<Model, SymbolizeError> {
    let symbolic = !options.symbols.is_empty();
    let mut name_count: HashMap<&str, usize> = HashMap::new();
    for op in &g.ops {
        *name_count.entry(op.name.as_str()).or_insert(0) += 1;
    }
    let node_name = |op: &Op| {
        if !op.name.is_empty() && name_count.get(op.name.as_str()) == Some(&1) {
            op.name.clone()
        } else if op.name.is_empty() {
            format!("{}#{}", op.kind, op.id)
        } else {
            format!("{}#{}", op.name, op.id)
        }
    };

    // Graph inputs, with the symbolic dims applied.
    let mut inputs: Vec<ValueDecl> = g
        .graph_inputs()
        .iter()
        .filter_map(|&id| g.tensor(id).map(|t| known_decl(id, t.dtype, &t.shape)))
        .collect();
    for s in &options.symbols {
        apply_symbol(g, &mut inputs, s, options.check_name)?;
    }

    let mut graph = Graph {
        name: path.to_string(),
        inputs,
        ..Graph::default()
    };
    for op in g.ops_topological() {
        let mut attrs: AttrMap = op
            .attrs
            .iter()
            .map(|(k, v)| (k.clone(), attr_of(k, v)))
            .collect();
        if let (Some(o), Some(i)) = (op.outputs.first(), op.inputs.first()) {
            if o.dtype != DataType::Undef && o.dtype != i.dtype && !attrs.contains_key(DST_DTYPE) {
                attrs.insert(DST_DTYPE.to_string(), Attr::Type(dtype_of(o.dtype)));
            }
        }
        for o in &op.outputs {
            let mut d = known_decl(o.id, o.dtype, &o.shape);
            if symbolic {
                d.shape = None;
            }
            graph.value_info.push(d);
        }
        graph.nodes.push(Node {
            name: node_name(op),
            op_type: op.kind.as_str().into(),
            domain: DOMAIN.to_string(),
            version: 1,
            inputs: op.inputs.iter().map(|t| t.id.to_string().into()).collect(),
            outputs: op.outputs.iter().map(|t| t.id.to_string().into()).collect(),
            attrs,
        });
    }
    for &id in g.graph_outputs() {
        if let Some(t) = g.tensor(id) {
            let mut d = known_decl(id, t.dtype, &t.shape);
            if symbolic {
                d.shape = None;
            }
            graph.outputs.push(d);
        }
    }
    let mut opsets = IndexMap::new();
    opsets.insert(DOMAIN.to_string(), 1);
    Ok(Model {
        path: path.to_string(),
        format: Format::OneDnn,
        opsets,
        graph,
    })
}

fn apply_symbol(
    g: &OnednnGraph,
    inputs: &mut [ValueDecl],
    s: &Symbolize,
    check_name: Option<NameCheck>,
) -> Result<(), SymbolizeError> {
    let (tensor, axis) = (s.tensor, s.axis);
    let key = tensor.to_string();
    let Some(decl) = inputs.iter_mut().find(|v| *v.name == *key) else {
        return Err(match g.producer(tensor) {
            Some(p) => SymbolizeError::NotAnInput {
                tensor,
                axis,
                producer: g.ops[p.op].name.clone(),
                inputs: g.graph_inputs().to_vec(),
            },
            None => SymbolizeError::UnknownTensor { tensor, axis },
        });
    };
    if let Some(Err(error)) = check_name.map(|check| check(&s.name)) {
        return Err(SymbolizeError::BadName {
            tensor,
            axis,
            name: s.name.clone(),
            error,
        });
    }
    let Some(dims) = decl.shape.as_mut() else {
        return Err(SymbolizeError::UnknownShape { tensor, axis });
    };
    let len = dims.len();
    let Some(d) = dims.get_mut(axis) else {
        let shape = g
            .tensor(tensor)
            .and_then(|t| t.shape.known())
            .map(<[i64]>::to_vec)
            .unwrap_or_default();
        debug_assert_eq!(shape.len(), len);
        return Err(SymbolizeError::AxisOutOfRange {
            tensor,
            axis,
            shape,
        });
    };
    *d = DeclDim::Param(s.name.clone());
    Ok(())
}
