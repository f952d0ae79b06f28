//! The ShapesContext API of `onnx-optim-shape_tensor.h` in Rust: compute the output
//! of one `Concat`, `Cast` or `Reshape` node and store it in the context.
//!
//! Each function takes the context (which must hold every input of the node) and
//! the node, runs the op's rule (`crate::ops`), and inserts the facts of the node's
//! outputs under their names. The spec's two exception kinds are the two variants
//! of [`ShapeError`]: `std::invalid_argument` is [`ShapeError::InvalidArgument`] and
//! `std::out_of_range` (an input name missing from the context) is
//! [`ShapeError::OutOfRange`]; the typed [`OpError`] inside says what went wrong.
//! Warnings (a volume or a divisibility that could not be proven) go to
//! `ctx.diagnostics`.
//!
//! Where the spec loses information these functions go further (symbolic sums on
//! Concat's axis, dim equalities recorded in the e-graph, Cast keeping integer
//! contents, Reshape reading symbolic targets); see `crate::ops::tensor::concat`,
//! `crate::ops::tensor::cast` and `crate::ops::tensor::reshape`.
//!
//! ```
//! use symdim::context::{ShapesContext, TensorFact};
//! use symdim::graph::{Attr, DType, Node};
//! use symdim::ops::shapes_api::compute_shape_concat;
//! let mut ctx = ShapesContext::default();
//! let (b, n, m) = (ctx.alg.input("B"), ctx.alg.input("N"), ctx.alg.input("M"));
//! ctx.insert("x", TensorFact::new(DType::Float, vec![b, n]));
//! ctx.insert("y", TensorFact::new(DType::Float, vec![b, m]));
//! let node = Node {
//!     name: "cat".into(),
//!     op_type: "Concat".into(),
//!     domain: String::new(),
//!     version: 13,
//!     inputs: vec!["x".into(), "y".into()],
//!     outputs: vec!["z".into()],
//!     attrs: [("axis".to_string(), Attr::Int(1))].into_iter().collect(),
//! };
//! compute_shape_concat(&mut ctx, &node).unwrap();
//! let z = ctx.get("z").unwrap().shape.clone().unwrap();
//! assert_eq!(ctx.render_dims(&z), "[B, M + N]");
//! ```

use crate::context::{OpError, ShapesContext};
use crate::graph::Node;
use crate::ops::{rule_for, tensor::cast, tensor::concat, tensor::reshape, OpRule};

/// The two error kinds of the spec, each wrapping the typed [`OpError`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    /// `std::invalid_argument`: the node or its inputs are invalid.
    #[error("invalid argument: {0}")]
    InvalidArgument(OpError),
    /// `std::out_of_range`: an input is missing from the context.
    #[error("out of range: {0}")]
    OutOfRange(OpError),
}

impl ShapeError {
    /// The typed error inside.
    pub fn op_error(&self) -> &OpError {
        match self {
            ShapeError::InvalidArgument(e) | ShapeError::OutOfRange(e) => e,
        }
    }
}

impl From<OpError> for ShapeError {
    fn from(e: OpError) -> ShapeError {
        if e.is_out_of_range() {
            ShapeError::OutOfRange(e)
        } else {
            ShapeError::InvalidArgument(e)
        }
    }
}

/// Check the op type and outputs, run `rule`, store the outputs.
fn run(
    ctx: &mut ShapesContext,
    node: &Node,
    op: &'static str,
    rule: OpRule,
) -> Result<(), ShapeError> {
    if node.op_type != op {
        return Err(OpError::WrongOp {
            expected: op,
            found: node.op_type.to_string(),
        }
        .into());
    }
    if !matches!(node.outputs.first(), Some(o) if !o.is_empty()) {
        return Err(OpError::NoOutput.into());
    }
    let facts = rule(ctx, node)?;
    for (name, fact) in node.outputs.iter().zip(facts) {
        if !name.is_empty() {
            ctx.insert(name, fact);
        }
    }
    Ok(())
}

/// `ComputeShapeConcat`: the output of a `Concat` node, stored in `ctx`.
pub fn compute_shape_concat(ctx: &mut ShapesContext, node: &Node) -> Result<(), ShapeError> {
    run(ctx, node, "Concat", concat::concat)
}

/// `ComputeShapeCast`: the output of a `Cast` node, stored in `ctx`.
pub fn compute_shape_cast(ctx: &mut ShapesContext, node: &Node) -> Result<(), ShapeError> {
    run(ctx, node, "Cast", cast::cast)
}

/// `ComputeShapeReshape`: the output of a `Reshape` node, stored in `ctx`. The
/// node's domain selects the variant (ONNX by default, `openvino` for OpenVINO
/// `Reshape-1`).
pub fn compute_shape_reshape(ctx: &mut ShapesContext, node: &Node) -> Result<(), ShapeError> {
    let rule = rule_for(&node.domain, "Reshape").unwrap_or(reshape::onnx_reshape);
    run(ctx, node, "Reshape", rule)
}
