//! Ops whose computation the format leaves open: oneDNN Graph's `Wildcard`.
//!
//! Spec: oneDNN Graph's `Wildcard` document and op schema (`op_def.hpp`): any
//! number of inputs and outputs of any type, no attributes; oneDNN's own shape
//! inference takes the outputs' logical-tensor shapes as given and fails when one
//! is unknown.
//!
//! The rule gives every output an unknown rank and type, so the driver takes each
//! output's declared shape and type from the file (the logical tensor of the op's
//! output); an output declared with an unknown shape (oneDNN's `[INT64_MIN]`)
//! stays of unknown rank. Nothing is checked about the inputs.
//!
//! Version history: oneDNN Graph ops have one version, 1.

use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};
use crate::ops::common::unknown_outputs;
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("onednn", ["Wildcard"], onednn_wildcard),
];

/// oneDNN Wildcard: every output unknown, for the driver to take its declared
/// shape.
fn onednn_wildcard(_ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    Ok(unknown_outputs(node, DType::Undefined))
}
