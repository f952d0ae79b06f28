//! Helpers shared by the op-family tests: small models built as `graph::Model`
//! values, hand-built `ShapesContext` cases, and the backend-node corpus reader.
#![allow(dead_code)]

use indexmap::IndexMap;
use symdim::context::{OpError, ShapesContext, TensorFact};
use symdim::graph::{
    Attr, AttrMap, ConstData, ConstTensor, DType, DeclDim, Format, Graph, Model, Node, ValueDecl,
};
use symdim::Facts;

/// A model under construction.
pub struct Builder {
    model: Model,
}

/// Start a model of the given default-domain opset.
pub fn model(opset: i64) -> Builder {
    let mut opsets = IndexMap::new();
    opsets.insert(String::new(), opset);
    Builder {
        model: Model {
            path: "test.onnx".to_string(),
            format: Format::Onnx,
            opsets,
            graph: Graph::default(),
        },
    }
}

/// A declared dim from text: an integer, `?` (unnamed), or a `dim_param`.
pub fn decl(d: &str) -> DeclDim {
    match d.parse::<i64>() {
        Ok(v) => DeclDim::Value(v),
        Err(_) if d == "?" => DeclDim::Unknown,
        Err(_) => DeclDim::Param(d.to_string()),
    }
}

/// An attribute list from pairs.
pub fn attrs(pairs: Vec<(&str, Attr)>) -> AttrMap {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

impl Builder {
    /// A graph input (`None` dims: unknown rank).
    pub fn input(mut self, name: &str, dtype: DType, dims: Option<&[&str]>) -> Self {
        self.model.graph.inputs.push(ValueDecl {
            name: name.into(),
            dtype,
            shape: dims.map(|d| d.iter().map(|x| decl(x)).collect()),
        });
        self
    }

    /// An int64 initializer.
    pub fn ints(mut self, name: &str, dims: &[i64], values: &[i64]) -> Self {
        self.model.graph.initializers.insert(
            name.to_string(),
            ConstTensor {
                dtype: DType::Int64,
                dims: dims.to_vec(),
                data: ConstData::Ints(values.to_vec()),
            },
        );
        self
    }

    /// A float initializer.
    pub fn floats(mut self, name: &str, dims: &[i64], values: &[f64]) -> Self {
        self.model.graph.initializers.insert(
            name.to_string(),
            ConstTensor {
                dtype: DType::Float,
                dims: dims.to_vec(),
                data: ConstData::Floats(values.to_vec()),
            },
        );
        self
    }

    /// A node of the default domain at the model's opset.
    pub fn node(
        mut self,
        op: &str,
        inputs: &[&str],
        outputs: &[&str],
        attrs: Vec<(&str, Attr)>,
    ) -> Self {
        let version = self.model.opsets[""];
        let n = self.model.graph.nodes.len();
        self.model.graph.nodes.push(Node {
            name: format!("{op}_{n}"),
            op_type: op.into(),
            domain: String::new(),
            version,
            inputs: inputs.iter().map(|s| (*s).into()).collect(),
            outputs: outputs.iter().map(|s| (*s).into()).collect(),
            attrs: self::attrs(attrs),
        });
        self
    }

    /// The model.
    pub fn build(self) -> Model {
        self.model
    }

    /// Run inference.
    pub fn run(self) -> Run {
        let model = self.model;
        let ctx = symdim::infer(&model, &Facts::default()).into_context();
        Run { ctx, model }
    }
}

/// The result of inference on a small model.
pub struct Run {
    /// The context after inference.
    pub ctx: ShapesContext,
    /// The model.
    pub model: Model,
}

impl Run {
    /// `[N, 3]`, or `unknown rank`.
    pub fn shape(&self, name: &str) -> String {
        let f = self
            .ctx
            .get(name)
            .unwrap_or_else(|| panic!("no tensor {name}"));
        match &f.shape {
            Some(s) => self.ctx.render_dims(s),
            None => "unknown rank".to_string(),
        }
    }

    /// The value rendered, or `none`.
    pub fn value(&self, name: &str) -> String {
        let f = self
            .ctx
            .get(name)
            .unwrap_or_else(|| panic!("no tensor {name}"));
        match &f.value {
            Some(v) => self.ctx.render_dims(v),
            None => "none".to_string(),
        }
    }

    /// The dtype.
    pub fn dtype(&self, name: &str) -> DType {
        self.ctx.get(name).expect("tensor").dtype
    }

    /// Diagnostics rendered, one per line.
    pub fn diagnostics(&self) -> Vec<String> {
        self.ctx.diagnostics.iter().map(|d| d.to_string()).collect()
    }

    /// True when an error diagnostic was reported.
    pub fn has_error(&self) -> bool {
        self.ctx
            .diagnostics
            .iter()
            .any(|d| d.severity == symdim::context::Severity::Error)
    }
}

/// A default-domain node of opset 17 with a name of its own.
pub fn named(
    name: &str,
    op: &str,
    inputs: &[&str],
    outputs: &[&str],
    a: Vec<(&str, Attr)>,
) -> Node {
    Node {
        name: name.to_string(),
        op_type: op.into(),
        domain: String::new(),
        version: 17,
        inputs: inputs.iter().map(|s| (*s).into()).collect(),
        outputs: outputs.iter().map(|s| (*s).into()).collect(),
        attrs: attrs(a),
    }
}

/// A node for hand-built context cases.
pub fn node(
    op: &str,
    version: i64,
    inputs: &[&str],
    outputs: &[&str],
    a: Vec<(&str, Attr)>,
) -> Node {
    Node {
        name: format!("{op}_t"),
        op_type: op.into(),
        domain: String::new(),
        version,
        inputs: inputs.iter().map(|s| (*s).into()).collect(),
        outputs: outputs.iter().map(|s| (*s).into()).collect(),
        attrs: attrs(a),
    }
}

/// Put a tensor with shape (and optional value) given as expressions into a context.
pub fn put(
    ctx: &mut ShapesContext,
    name: &str,
    dtype: DType,
    shape: &[&str],
    value: Option<&[&str]>,
) {
    let shape = shape.iter().map(|d| ctx.alg.parse(d).unwrap()).collect();
    let value = value.map(|v| v.iter().map(|d| ctx.alg.parse(d).unwrap()).collect());
    ctx.insert(
        name,
        TensorFact {
            fill: None,
            dtype,
            shape: Some(shape),
            value,
        },
    );
}

/// Apply the registered rule of `node` to the context.
pub fn apply(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let rule = symdim::ops::rule_for(&node.domain, &node.op_type)
        .unwrap_or_else(|| panic!("no rule for {}:{}", node.domain, node.op_type));
    rule(ctx, node)
}

/// The error of each node's rule (each must fail), prefixed with the node as the
/// driver's diagnostics name it: the text of an error-message snapshot.
pub fn rule_errors(ctx: &mut ShapesContext, nodes: &[Node]) -> Vec<String> {
    nodes
        .iter()
        .map(|n| {
            let e = apply(ctx, n).expect_err("error");
            format!("{}: {e}", symdim::context::node_context(n))
        })
        .collect()
}

/// Render the shapes of rule outputs.
pub fn shapes(ctx: &ShapesContext, facts: &[TensorFact]) -> Vec<String> {
    facts
        .iter()
        .map(|f| match &f.shape {
            Some(s) => ctx.render_dims(s),
            None => "unknown rank".to_string(),
        })
        .collect()
}

/// Render the value of a rule output, or `none`.
pub fn value(ctx: &ShapesContext, f: &TensorFact) -> String {
    match &f.value {
        Some(v) => ctx.render_dims(v),
        None => "none".to_string(),
    }
}

// ----- backend-node corpus --------------------------------------------------------

/// Read a `.pb` tensor file as a constant (values only when small).
pub fn read_pb(path: &std::path::Path) -> ConstTensor {
    let bytes = std::fs::read(path).expect("read pb");
    let t = symdim::read::onnx::parse_tensor(&bytes).expect("parse tensor");
    symdim::read::onnx::const_tensor(&t, &symdim::read::onnx::DataSource::in_memory())
}

/// Make a backend-node case's model ready to infer: with `with_values`, the integer
/// inputs whose `input_{k}.pb` in `data` holds their values become initializers (so
/// the shape-tensor evaluator sees them); the declared output shapes are stripped
/// (they must be inferred). Returns the output names, in order.
pub fn prepare_case(model: &mut Model, data: &std::path::Path, with_values: bool) -> Vec<String> {
    if with_values {
        let inputs = std::mem::take(&mut model.graph.inputs);
        for (k, v) in inputs.into_iter().enumerate() {
            let t = read_pb(&data.join(format!("input_{k}.pb")));
            if v.dtype.is_integer() && matches!(t.data, ConstData::Ints(_)) {
                model.graph.initializers.insert(v.name.to_string(), t);
            } else {
                model.graph.inputs.push(v);
            }
        }
    }
    let outputs = model
        .graph
        .outputs
        .iter()
        .map(|o| o.name.to_string())
        .collect();
    for o in &mut model.graph.outputs {
        o.shape = None;
    }
    outputs
}

/// Random inputs for the no-panic property tests of the op families.
pub mod arb {
    use proptest::prelude::*;
    use symdim::algebra::Dim;
    use symdim::context::{ShapesContext, TensorFact};
    use symdim::graph::DType;

    /// One input of a node: a tensor (an index into the test's dtypes, maybe a shape
    /// of dim codes, maybe contents as indexes into the test's integers) or an
    /// absent optional input.
    #[derive(Debug, Clone)]
    pub enum In {
        /// Dtype index, dim codes, content indexes.
        Tensor(usize, Option<Vec<usize>>, Option<Vec<usize>>),
        /// An empty input name.
        Absent,
    }

    /// How inputs are drawn and built.
    #[derive(Clone, Copy)]
    pub struct Inputs {
        /// Dim codes `0..codes`: the last two are the symbols `N` and `S`, the
        /// others the constant `code * scale`.
        pub codes: usize,
        /// The constant dims' step.
        pub scale: i64,
        /// Ranks `0..max_rank`.
        pub max_rank: usize,
        /// Content lengths `0..max_values`.
        pub max_values: usize,
    }

    impl Inputs {
        /// A tensor four times in five, else absent.
        pub fn input(self, dtypes: usize, ints: usize) -> impl Strategy<Value = In> {
            let dims = prop::collection::vec(0..self.codes, 0..self.max_rank);
            prop_oneof![
                4 => (0..dtypes, prop::option::of(dims), prop::option::of(prop::collection::vec(0..ints, 0..self.max_values)))
                    .prop_map(|(t, s, v)| In::Tensor(t, s, v)),
                1 => Just(In::Absent),
            ]
        }

        /// The dim of a code.
        pub fn dim(self, ctx: &mut ShapesContext, d: usize) -> Dim {
            if d == self.codes - 2 {
                ctx.alg.input("N")
            } else if d == self.codes - 1 {
                ctx.alg.input("S")
            } else {
                ctx.alg.constant(d as i64 * self.scale)
            }
        }

        /// Put the tensors of `ins` in the context as `in0`, `in1`, ...; their
        /// names, `""` for an absent input.
        pub fn put(
            self,
            ctx: &mut ShapesContext,
            ins: &[In],
            dtypes: &[DType],
            ints: &[i64],
        ) -> Vec<String> {
            let mut names = Vec::new();
            for (i, inp) in ins.iter().enumerate() {
                let In::Tensor(t, shape, value) = inp else {
                    names.push(String::new());
                    continue;
                };
                let name = format!("in{i}");
                let shape = shape
                    .as_ref()
                    .map(|s| s.iter().map(|d| self.dim(ctx, *d)).collect());
                let value = value
                    .as_ref()
                    .map(|v| v.iter().map(|x| ctx.alg.constant(ints[*x])).collect());
                ctx.insert(
                    name.as_str(),
                    TensorFact {
                        fill: None,
                        dtype: dtypes[*t],
                        shape,
                        value,
                    },
                );
                names.push(name);
            }
            names
        }
    }
}
