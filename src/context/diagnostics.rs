//! Diagnostics: a message about one node, how bad it is, and what it is about as
//! values ([`Cause`], [`Hint`]).

use super::OpError;
use crate::algebra::DimExpr;
use crate::context::facts::FactsError;
use crate::graph::Node;
use std::fmt;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// Inference went on with less information.
    Warning,
    /// The model is invalid at this node (or the node could not be handled).
    Error,
}

impl Severity {
    /// `warning` or `error`.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A message about one node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Severity.
    pub severity: Severity,
    /// Node name (empty for model-level messages).
    pub node: String,
    /// Op type (empty for model-level messages).
    pub op: String,
    /// The full message: op, version and attributes, the problem with its
    /// symbolic operands, and the assumption that would make the model valid.
    pub message: String,
    /// What the message is about, as values, for the kinds callers act on (the
    /// model's contract reads an error's hint from it); `None` for the others.
    pub cause: Option<Cause>,
}

/// What a [`Diagnostic`] is about, as values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cause {
    /// A built-in op rule failed (a declared rule's failure has no cause).
    Op {
        /// The rule's error.
        error: OpError,
        /// The assumption the message states would make the model valid.
        hint: Option<Hint>,
    },
    /// The op has no shape rule: its outputs get their declared shapes or none.
    NoRule {
        /// The op's domain (empty for ONNX's default domain).
        domain: String,
        /// The op's version.
        version: i64,
    },
    /// A fact of the caller ([`crate::context::facts::Facts`]) that names no symbol of the
    /// model, does not parse, or sets an input dim that does not fit the graph: it
    /// is left out.
    Facts(FactsError),
}

/// The assumption that would make a model valid where an op error leaves one
/// ([`OpError::hint`]): the dims of a condition, which the model's contract states.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Hint {
    /// `divisor` divides `dividend`: `valid when 8 divides 12*B*S`.
    Divides {
        /// The divisor.
        divisor: DimExpr,
        /// The dividend.
        dividend: DimExpr,
    },
    /// The two dims are equal: `valid when 2*S == T`.
    Equal(DimExpr, DimExpr),
}

impl fmt::Display for Hint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Hint::Divides { divisor, dividend } => {
                write!(f, "valid when {divisor} divides {dividend}")
            }
            Hint::Equal(a, b) => write!(f, "valid when {a} == {b}"),
        }
    }
}

/// Format the context of a node for a message: `Reshape-14 (allowzero=1)`.
pub fn node_context(node: &Node) -> String {
    let attrs = node.attrs_summary();
    if attrs.is_empty() {
        format!("{}-{}", node.op_type, node.version)
    } else {
        format!("{}-{} ({attrs})", node.op_type, node.version)
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.node.is_empty() {
            write!(f, "{}: {}", self.severity.name(), self.message)
        } else {
            write!(
                f,
                "{} at {}: {}",
                self.severity.name(),
                self.node,
                self.message
            )
        }
    }
}
