//! Values that are not tensors: sequences and optionals, and the values passed into
//! and out of subgraphs.

use super::{ShapesContext, SubgraphError, TensorFact};
use crate::algebra::Dim;
use crate::graph::{DType, Graph};

/// What is known about a sequence of tensors (ONNX `seq(tensor(T))`).
///
/// A sequence has no tensor shape: its own [`TensorFact`] in the context has the
/// element type and an unknown rank, and the rules of the sequence ops keep this
/// beside it ([`ShapesContext::set_sequence`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SequenceFact {
    /// What every element shares: the element type, and the shape when all
    /// elements have one rank (a dim on which they may differ is a fresh
    /// data-dependent dim); an unknown rank when the ranks may differ or are not
    /// known.
    pub elem: TensorFact,
    /// The number of elements, when known (it may be symbolic).
    pub len: Option<Dim>,
    /// Each element's facts, in order, when the length is a known constant.
    pub elems: Option<Vec<TensorFact>>,
}

impl SequenceFact {
    /// A sequence of unknown length whose elements share `elem`.
    pub fn uniform(elem: TensorFact, len: Option<Dim>) -> SequenceFact {
        SequenceFact {
            elem,
            len,
            elems: None,
        }
    }

    /// A sequence of nothing known but its element type.
    pub fn unknown(dtype: DType) -> SequenceFact {
        SequenceFact::uniform(TensorFact::unknown(dtype), None)
    }

    /// The facts of element `index` (counted from the front; the shared facts when
    /// the elements are not known one by one).
    pub fn element(&self, index: usize) -> &TensorFact {
        self.elems
            .as_ref()
            .and_then(|e| e.get(index))
            .unwrap_or(&self.elem)
    }
}

/// What an optional value (ONNX `optional(...)`) holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionalElement {
    /// A tensor.
    Tensor(TensorFact),
    /// A sequence of tensors.
    Sequence(SequenceFact),
}

/// What is known about an optional value (ONNX `optional(tensor(T))` or
/// `optional(seq(tensor(T)))`): its own [`TensorFact`] in the context has the
/// element type and an unknown rank.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionalFact {
    /// What it holds when it holds a value.
    pub elem: OptionalElement,
    /// Whether it holds a value, when known.
    pub present: Option<bool>,
}

/// What is known about a value that is not a tensor (beside its [`TensorFact`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Composite {
    /// A sequence of tensors.
    Sequence(SequenceFact),
    /// An optional value.
    Optional(OptionalFact),
}

/// A value passed into or out of a subgraph: its [`TensorFact`] and, for a sequence
/// or an optional the context knows as one, its [`Composite`] facts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubgraphValue {
    /// The tensor fact (for a sequence or an optional: the element type, an unknown
    /// rank).
    pub fact: TensorFact,
    /// What is known of it as a sequence or an optional.
    pub composite: Option<Composite>,
}

impl SubgraphValue {
    /// A tensor.
    pub fn tensor(fact: TensorFact) -> SubgraphValue {
        SubgraphValue {
            fact,
            composite: None,
        }
    }
}

/// Infers a subgraph (an If branch, a Loop or Scan body) in a context: the facts of
/// its outputs, given those of its formal inputs, or why it cannot be inferred
/// (nested too deep). The driver provides it, so that op rules can run subgraphs
/// without depending on the driver.
pub type SubgraphRunner =
    fn(&mut ShapesContext, &Graph, &[SubgraphValue]) -> Result<Vec<SubgraphValue>, SubgraphError>;
