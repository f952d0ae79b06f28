//! `ModelProto`, `GraphProto`, `NodeProto` and `FunctionProto`.

use super::attr::{AttrType, AttributeProto};
use super::error::OnnxError;
use super::tensor::{SparseTensorProto, TensorProto};
use super::types::{check_depth, OperatorSetId, StringStringEntry, ValueInfoProto};
use super::wire::{Field, Reader};

// Nested subgraphs recurse through GraphProto -> NodeProto -> AttributeProto; these
// non-inlined helpers keep the temporaries of each element type out of the recursive frames.

#[inline(never)]
fn push_node<'a>(v: &mut Vec<NodeProto<'a>>, f: &Field<'a>, depth: usize) -> Result<(), OnnxError> {
    v.push(NodeProto::parse(f.message("GraphProto")?, depth)?);
    Ok(())
}

#[inline(never)]
fn push_attr<'a>(
    v: &mut Vec<AttributeProto<'a>>,
    f: &Field<'a>,
    depth: usize,
) -> Result<(), OnnxError> {
    v.push(AttributeProto::parse(f.message("NodeProto")?, depth)?);
    Ok(())
}

#[inline(never)]
fn push_tensor<'a>(v: &mut Vec<TensorProto<'a>>, f: &Field<'a>) -> Result<(), OnnxError> {
    v.push(TensorProto::parse(f.message("GraphProto")?)?);
    Ok(())
}

#[inline(never)]
fn push_sparse<'a>(v: &mut Vec<SparseTensorProto<'a>>, f: &Field<'a>) -> Result<(), OnnxError> {
    v.push(SparseTensorProto::parse(f.message("GraphProto")?)?);
    Ok(())
}

#[inline(never)]
fn push_value_info<'a>(
    v: &mut Vec<ValueInfoProto<'a>>,
    f: &Field<'a>,
    depth: usize,
) -> Result<(), OnnxError> {
    v.push(ValueInfoProto::parse(f.message("GraphProto")?, depth)?);
    Ok(())
}

/// `v`'s allocation, empty, for another element type of the same layout (collecting
/// an empty iterator in place keeps it).
fn reuse<T, U>(mut v: Vec<T>) -> Vec<U> {
    v.clear();
    v.into_iter().filter_map(|_| None).collect()
}

/// `NodeProto`: one operator application.
#[derive(Debug, Clone, Default)]
pub struct NodeProto<'a> {
    /// Input value names; `""` marks an absent optional input and is kept in place.
    pub input: Vec<&'a str>,
    /// Output value names; `""` marks an unused optional output.
    pub output: Vec<&'a str>,
    /// The node name (may be empty).
    pub name: &'a str,
    /// The operator.
    pub op_type: &'a str,
    /// The operator's domain (`""` is the default ONNX domain).
    pub domain: &'a str,
    /// The overload, for calls of model-local functions that have one.
    pub overload: &'a str,
    /// The attributes, in file order.
    pub attribute: Vec<AttributeProto<'a>>,
}

impl<'a> NodeProto<'a> {
    pub(crate) fn parse(r: Reader<'a>, depth: usize) -> Result<Self, OnnxError> {
        let mut n = NodeProto {
            input: Vec::new(),
            output: Vec::new(),
            name: "",
            op_type: "",
            domain: "",
            overload: "",
            attribute: Vec::new(),
        };
        n.parse_into(r, depth)?;
        Ok(n)
    }

    /// An empty node with this one's vectors, cleared: a streaming reader parses node
    /// after node into the same vectors, each node borrowing other bytes.
    pub(crate) fn recycle<'b>(self) -> NodeProto<'b> {
        NodeProto {
            input: reuse(self.input),
            output: reuse(self.output),
            attribute: reuse(self.attribute),
            ..NodeProto::default()
        }
    }

    /// [`NodeProto::parse`] into `self`, reusing its vectors (a streaming reader parses
    /// node after node into one value).
    pub(crate) fn parse_into(&mut self, mut r: Reader<'a>, depth: usize) -> Result<(), OnnxError> {
        const M: &str = "NodeProto";
        let n = self;
        n.input.clear();
        n.output.clear();
        n.attribute.clear();
        (n.name, n.op_type, n.domain, n.overload) = ("", "", "", "");
        while let Some(f) = r.next_field()? {
            match f.number {
                1 => n.input.push(f.str(M)?),
                2 => n.output.push(f.str(M)?),
                3 => n.name = f.str(M)?,
                4 => n.op_type = f.str(M)?,
                7 => n.domain = f.str(M)?,
                8 => n.overload = f.str(M)?,
                5 => push_attr(&mut n.attribute, &f, depth)?,
                _ => {} // 6 = doc_string, 9 = metadata_props, 10 = device_configurations
            }
        }
        Ok(())
    }

    /// The attribute called `name` (the first one, if repeated).
    pub fn attr(&self, name: &str) -> Option<&AttributeProto<'a>> {
        self.attribute.iter().find(|a| a.name == name)
    }

    /// The attribute called `name`, or [`OnnxError::AttributeNotFound`].
    pub fn required_attr(&self, name: &str) -> Result<&AttributeProto<'a>, OnnxError> {
        self.attr(name).ok_or_else(|| OnnxError::AttributeNotFound {
            name: name.to_string(),
        })
    }

    /// An `INT` attribute: `Ok(None)` if absent, an error if of another type.
    pub fn attr_int(&self, name: &str) -> Result<Option<i64>, OnnxError> {
        self.attr(name).map(AttributeProto::as_int).transpose()
    }

    /// An `INTS` attribute: `Ok(None)` if absent, an error if of another type.
    pub fn attr_ints(&self, name: &str) -> Result<Option<&[i64]>, OnnxError> {
        self.attr(name).map(AttributeProto::as_ints).transpose()
    }

    /// A `FLOAT` attribute: `Ok(None)` if absent, an error if of another type.
    pub fn attr_float(&self, name: &str) -> Result<Option<f32>, OnnxError> {
        self.attr(name).map(AttributeProto::as_float).transpose()
    }

    /// A `FLOATS` attribute: `Ok(None)` if absent, an error if of another type.
    pub fn attr_floats(&self, name: &str) -> Result<Option<&[f32]>, OnnxError> {
        self.attr(name).map(AttributeProto::as_floats).transpose()
    }

    /// A `STRING` attribute as UTF-8: `Ok(None)` if absent, an error if of another type.
    pub fn attr_string(&self, name: &str) -> Result<Option<&'a str>, OnnxError> {
        self.attr(name).map(AttributeProto::as_str).transpose()
    }

    /// A `STRINGS` attribute as UTF-8: `Ok(None)` if absent, an error if of another type.
    pub fn attr_strings(&self, name: &str) -> Result<Option<Vec<&'a str>>, OnnxError> {
        self.attr(name).map(AttributeProto::as_strs).transpose()
    }

    /// A `TENSOR` attribute: `Ok(None)` if absent, an error if of another type.
    pub fn attr_tensor(&self, name: &str) -> Result<Option<&TensorProto<'a>>, OnnxError> {
        self.attr(name).map(AttributeProto::as_tensor).transpose()
    }

    /// A `GRAPH` attribute: `Ok(None)` if absent, an error if of another type.
    pub fn attr_graph(&self, name: &str) -> Result<Option<&GraphProto<'a>>, OnnxError> {
        self.attr(name).map(AttributeProto::as_graph).transpose()
    }

    /// The type of the attribute called `name`, if present.
    pub fn attr_type(&self, name: &str) -> Option<AttrType> {
        self.attr(name).map(AttributeProto::attr_type)
    }

    /// The subgraphs of this node's attributes (`If` branches, `Loop`/`Scan` bodies).
    pub fn subgraphs(&self) -> impl Iterator<Item = &GraphProto<'a>> {
        self.attribute.iter().flat_map(AttributeProto::subgraphs)
    }
}

/// `GraphProto`: nodes, constants and typed inputs/outputs. `doc_string`,
/// `quantization_annotation` and `metadata_props` are skipped.
#[derive(Debug, Clone, Default)]
pub struct GraphProto<'a> {
    /// The graph name.
    pub name: &'a str,
    /// The nodes, in file order (topologically sorted in a valid model).
    pub node: Vec<NodeProto<'a>>,
    /// The initializers (dense constants).
    pub initializer: Vec<TensorProto<'a>>,
    /// The sparse initializers.
    pub sparse_initializer: Vec<SparseTensorProto<'a>>,
    /// The graph inputs (may include initializers in IR < 4 models).
    pub input: Vec<ValueInfoProto<'a>>,
    /// The graph outputs.
    pub output: Vec<ValueInfoProto<'a>>,
    /// Types of intermediate values, as stored in the file.
    pub value_info: Vec<ValueInfoProto<'a>>,
}

impl<'a> GraphProto<'a> {
    pub(crate) fn parse(mut r: Reader<'a>, depth: usize) -> Result<Self, OnnxError> {
        const M: &str = "GraphProto";
        check_depth(depth, r.offset())?;
        let mut g = GraphProto::default();
        // A first pass over the field headers sizes the vectors, which saves reallocating
        // (and moving) thousands of nodes. Each counted field spans at least two input bytes,
        // so the capacities are bounded by the input size.
        let mut counts = [0usize; 3];
        let mut pre = r.clone();
        while let Some(f) = pre.next_field()? {
            match f.number {
                1 => counts[0] += 1,
                5 => counts[1] += 1,
                13 => counts[2] += 1,
                _ => {}
            }
        }
        g.node.reserve_exact(counts[0]);
        g.initializer.reserve_exact(counts[1]);
        g.value_info.reserve_exact(counts[2]);
        while let Some(f) = r.next_field()? {
            match f.number {
                1 => push_node(&mut g.node, &f, depth)?,
                2 => g.name = f.str(M)?,
                5 => push_tensor(&mut g.initializer, &f)?,
                15 => push_sparse(&mut g.sparse_initializer, &f)?,
                11 => push_value_info(&mut g.input, &f, depth)?,
                12 => push_value_info(&mut g.output, &f, depth)?,
                13 => push_value_info(&mut g.value_info, &f, depth)?,
                _ => {} // 10 = doc_string, 14 = quantization_annotation, 16 = metadata_props
            }
        }
        Ok(g)
    }

    /// The initializer called `name`.
    pub fn initializer(&self, name: &str) -> Option<&TensorProto<'a>> {
        self.initializer.iter().find(|t| t.name == name)
    }

    /// The inputs that are not initializers (the values a caller must feed).
    pub fn real_inputs(&self) -> impl Iterator<Item = &ValueInfoProto<'a>> {
        self.input
            .iter()
            .filter(|i| self.initializer(i.name).is_none())
    }

    /// The number of nodes in this graph and, recursively, in all its subgraphs.
    pub fn node_count_recursive(&self) -> usize {
        self.node
            .iter()
            .map(|n| {
                1 + n
                    .subgraphs()
                    .map(GraphProto::node_count_recursive)
                    .sum::<usize>()
            })
            .sum()
    }
}

/// `FunctionProto`: a model-local function, called by nodes whose `(domain, op_type)` match
/// its `(domain, name)`.
#[derive(Debug, Clone, Default)]
pub struct FunctionProto<'a> {
    /// The function name (the `op_type` of calling nodes).
    pub name: &'a str,
    /// The function's domain.
    pub domain: &'a str,
    /// The overload name, if any.
    pub overload: &'a str,
    /// Formal input names.
    pub input: Vec<&'a str>,
    /// Formal output names.
    pub output: Vec<&'a str>,
    /// Names of attributes without defaults.
    pub attribute: Vec<&'a str>,
    /// Attributes with default values.
    pub attribute_proto: Vec<AttributeProto<'a>>,
    /// The body.
    pub node: Vec<NodeProto<'a>>,
    /// The opsets the body uses.
    pub opset_import: Vec<OperatorSetId<'a>>,
    /// Types of values in the body, if given.
    pub value_info: Vec<ValueInfoProto<'a>>,
}

impl<'a> FunctionProto<'a> {
    pub(crate) fn parse(mut r: Reader<'a>, depth: usize) -> Result<Self, OnnxError> {
        const M: &str = "FunctionProto";
        let mut fun = FunctionProto::default();
        while let Some(f) = r.next_field()? {
            match f.number {
                1 => fun.name = f.str(M)?,
                10 => fun.domain = f.str(M)?,
                13 => fun.overload = f.str(M)?,
                4 => fun.input.push(f.str(M)?),
                5 => fun.output.push(f.str(M)?),
                6 => fun.attribute.push(f.str(M)?),
                11 => fun
                    .attribute_proto
                    .push(AttributeProto::parse(f.message(M)?, depth)?),
                7 => fun.node.push(NodeProto::parse(f.message(M)?, depth)?),
                9 => fun.opset_import.push(OperatorSetId::parse(f.message(M)?)?),
                12 => fun
                    .value_info
                    .push(ValueInfoProto::parse(f.message(M)?, depth)?),
                _ => {} // 8 = doc_string, 14 = metadata_props
            }
        }
        Ok(fun)
    }

    /// The names of all attributes the function accepts (with and without defaults).
    pub fn attribute_names(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.attribute
            .iter()
            .copied()
            .chain(self.attribute_proto.iter().map(|a| a.name))
    }
}

/// `ModelProto`: the top-level message of an `.onnx` file, borrowing from its bytes.
/// `doc_string`, `training_info` and `configuration` are skipped.
#[derive(Debug, Clone, Default)]
pub struct ModelProto<'a> {
    /// `ir_version`.
    pub ir_version: i64,
    /// The imported opsets, in file order.
    pub opset_import: Vec<OperatorSetId<'a>>,
    /// `producer_name`.
    pub producer_name: &'a str,
    /// `producer_version`.
    pub producer_version: &'a str,
    /// `domain`.
    pub domain: &'a str,
    /// `model_version`.
    pub model_version: i64,
    /// The main graph; `None` if the file has none (see [`ModelProto::graph`]).
    pub graph: Option<GraphProto<'a>>,
    /// Model-local functions.
    pub functions: Vec<FunctionProto<'a>>,
    /// `metadata_props`.
    pub metadata_props: Vec<StringStringEntry<'a>>,
}

impl<'a> ModelProto<'a> {
    /// Parses a model from its serialized bytes. Nothing is copied: strings and tensor
    /// payloads borrow from `bytes`.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, OnnxError> {
        let mut graph = None;
        let mut m = Self::parse_with(bytes, |r| {
            graph = Some(GraphProto::parse(r, 0)?);
            Ok(())
        })?;
        m.graph = graph;
        Ok(m)
    }

    /// [`ModelProto::parse`], except that each `graph` field (in file order) is handed to
    /// `graph` instead of being parsed; the result's `graph` is `None`.
    pub(crate) fn parse_with(
        bytes: &'a [u8],
        mut graph: impl FnMut(Reader<'a>) -> Result<(), OnnxError>,
    ) -> Result<Self, OnnxError> {
        const M: &str = "ModelProto";
        let mut r = Reader::new(bytes, 0);
        let mut m = ModelProto::default();
        while let Some(f) = r.next_field()? {
            match f.number {
                1 => m.ir_version = f.int64(M)?,
                2 => m.producer_name = f.str(M)?,
                3 => m.producer_version = f.str(M)?,
                4 => m.domain = f.str(M)?,
                5 => m.model_version = f.int64(M)?,
                7 => graph(f.message(M)?)?,
                8 => m.opset_import.push(OperatorSetId::parse(f.message(M)?)?),
                14 => m
                    .metadata_props
                    .push(StringStringEntry::parse(f.message(M)?)?),
                25 => m.functions.push(FunctionProto::parse(f.message(M)?, 0)?),
                _ => {} // 6 = doc_string, 20 = training_info, 26 = configuration
            }
        }
        Ok(m)
    }

    /// The main graph, or [`OnnxError::MissingGraph`].
    pub fn graph(&self) -> Result<&GraphProto<'a>, OnnxError> {
        self.graph.as_ref().ok_or(OnnxError::MissingGraph)
    }

    /// The imported version of an opset domain; `""` and `"ai.onnx"` are the same domain.
    pub fn opset_version(&self, domain: &str) -> Option<i64> {
        let domain = super::canonical_domain(domain);
        self.opset_import
            .iter()
            .rev()
            .find(|o| super::canonical_domain(o.domain) == domain)
            .map(|o| o.version)
    }

    /// The first model-local function with this `domain` and `name`, whatever its overload.
    pub fn function(&self, domain: &str, name: &str) -> Option<&FunctionProto<'a>> {
        self.functions
            .iter()
            .find(|f| f.domain == domain && f.name == name)
    }

    /// The model-local function `node` calls (matching domain, op_type and overload), if any.
    pub fn function_for(&self, node: &NodeProto<'_>) -> Option<&FunctionProto<'a>> {
        self.functions.iter().find(|f| {
            f.domain == node.domain && f.name == node.op_type && f.overload == node.overload
        })
    }
}
