//! Merging what two runs say of one value (the branches of an undecided `If`, two
//! passes of a loop body): a dim both agree on is kept, one they may disagree on
//! becomes fresh; sequences and optionals alike.

use crate::algebra::Truth;
use crate::context::{
    Composite, OptionalElement, OptionalFact, SequenceFact, ShapesContext, SubgraphValue,
    TensorFact,
};
use crate::graph::{DType, Node};

/// Merge two facts of one output: agreed dims stay, others become fresh dims of
/// `node` (output `out`). Ranks that differ ask for a case split
/// (`ctx.rank_conflict`) only when `outer`: for the node's output itself, not for
/// the elements of a sequence or what an optional holds.
pub(super) fn merge(
    ctx: &mut ShapesContext,
    node: &Node,
    out: usize,
    a: &TensorFact,
    b: &TensorFact,
    outer: bool,
) -> TensorFact {
    let dtype = if a.dtype == DType::Undefined {
        b.dtype
    } else {
        a.dtype
    };
    let shape = match (&a.shape, &b.shape) {
        (Some(x), Some(y)) if x.len() == y.len() => {
            let mut dims = Vec::with_capacity(x.len());
            for (axis, (p, q)) in x.iter().zip(y).enumerate() {
                dims.push(if ctx.alg.equal(*p, *q) == Truth::True {
                    *p
                } else {
                    ctx.unknown_dim(node, out, axis)
                });
            }
            Some(dims)
        }
        (Some(_), Some(_)) => {
            ctx.rank_conflict |= outer;
            None
        }
        _ => None,
    };
    let value = match (&a.value, &b.value) {
        (Some(x), Some(y)) if x.len() == y.len() => {
            let mut same = true;
            for (p, q) in x.iter().zip(y) {
                same &= ctx.alg.equal(*p, *q) == Truth::True;
            }
            same.then(|| x.clone())
        }
        _ => None,
    };
    TensorFact {
        fill: None,
        dtype,
        shape,
        value,
    }
}

/// True when two facts provably describe tensors of one shape (same rank, dims
/// provably equal).
pub(super) fn same_shape(ctx: &ShapesContext, a: &TensorFact, b: &TensorFact) -> bool {
    match (&a.shape, &b.shape) {
        (Some(x), Some(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(p, q)| ctx.alg.equal(*p, *q) == Truth::True)
        }
        _ => false,
    }
}

/// True when a sequence is known to be empty.
pub(super) fn empty_sequence(ctx: &ShapesContext, s: &SequenceFact) -> bool {
    s.len.is_some_and(|l| ctx.alg.as_i64(l) == Some(0))
}

/// The first defined of two element types.
pub(super) fn either_dtype(a: DType, b: DType) -> DType {
    if a == DType::Undefined {
        b
    } else {
        a
    }
}

/// The facts of a value that is one of two sequences (the outputs of an If's two
/// branches): the element facts merged as [`merge`] merges tensors (an empty
/// sequence's elements do not count: it has none), the length when both are provably
/// equal (else a fresh data-dependent dim of `node`), and the elements one by one
/// when both have the same count of provably same-shaped elements.
pub(super) fn merge_sequences(
    ctx: &mut ShapesContext,
    node: &Node,
    out: usize,
    a: &SequenceFact,
    b: &SequenceFact,
) -> SequenceFact {
    let dtype = either_dtype(a.elem.dtype, b.elem.dtype);
    let mut elem = match (empty_sequence(ctx, a), empty_sequence(ctx, b)) {
        (true, _) => b.elem.clone(),
        (_, true) => a.elem.clone(),
        _ => merge(ctx, node, out, &a.elem, &b.elem, false),
    };
    elem.dtype = either_dtype(elem.dtype, dtype);
    let len = match (a.len, b.len) {
        (Some(x), Some(y)) if ctx.alg.equal(x, y) == Truth::True => Some(x),
        _ => Some(ctx.unknown_dim(node, out, usize::MAX)),
    };
    let elems = match (&a.elems, &b.elems) {
        (Some(x), Some(y))
            if x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_shape(ctx, p, q)) =>
        {
            Some(
                x.iter()
                    .zip(y)
                    .map(|(p, q)| merge(ctx, node, out, p, q, false))
                    .collect(),
            )
        }
        _ => None,
    };
    SequenceFact { elem, len, elems }
}

/// The element type of what an optional holds.
pub(super) fn held_dtype(e: &OptionalElement) -> DType {
    match e {
        OptionalElement::Tensor(t) => t.dtype,
        OptionalElement::Sequence(s) => s.elem.dtype,
    }
}

/// The facts of a value that is one of two optionals (an If's two branches): present
/// when both are, empty when both are; what it holds is what the non-empty one holds
/// when the other is known to be empty, else the two merged ([`merge`],
/// [`merge_sequences`]); a tensor of unknown rank when they hold different kinds.
pub(super) fn merge_optionals(
    ctx: &mut ShapesContext,
    node: &Node,
    out: usize,
    a: &OptionalFact,
    b: &OptionalFact,
) -> OptionalFact {
    let present = if a.present == b.present {
        a.present
    } else {
        None
    };
    let elem = match (a.present, b.present) {
        (Some(false), _) => b.elem.clone(),
        (_, Some(false)) => a.elem.clone(),
        _ => match (&a.elem, &b.elem) {
            (OptionalElement::Tensor(x), OptionalElement::Tensor(y)) => {
                OptionalElement::Tensor(merge(ctx, node, out, x, y, false))
            }
            (OptionalElement::Sequence(x), OptionalElement::Sequence(y)) => {
                OptionalElement::Sequence(merge_sequences(ctx, node, out, x, y))
            }
            (x, y) => OptionalElement::Tensor(TensorFact::unknown(either_dtype(
                held_dtype(x),
                held_dtype(y),
            ))),
        },
    };
    OptionalFact { elem, present }
}

/// An optional of which nothing is known but its element type.
pub(super) fn unknown_optional(dtype: DType) -> OptionalFact {
    OptionalFact {
        elem: OptionalElement::Tensor(TensorFact::unknown(dtype)),
        present: None,
    }
}

/// The sequence or optional facts of a value that is one of `a` and `b` (an If's two
/// branches). A value of one branch the context does not know as a sequence (or an
/// optional) while the other's is one counts as one of which nothing is known.
pub(super) fn merge_composites(
    ctx: &mut ShapesContext,
    node: &Node,
    out: usize,
    a: &SubgraphValue,
    b: &SubgraphValue,
) -> Option<Composite> {
    use Composite::{Optional as O, Sequence as S};
    let seq = |v: &SubgraphValue| SequenceFact::unknown(v.fact.dtype);
    let opt = |v: &SubgraphValue| unknown_optional(v.fact.dtype);
    Some(match (&a.composite, &b.composite) {
        (Some(S(x)), Some(S(y))) => S(merge_sequences(ctx, node, out, x, y)),
        (Some(S(x)), None) => S(merge_sequences(ctx, node, out, x, &seq(b))),
        (None, Some(S(y))) => S(merge_sequences(ctx, node, out, &seq(a), y)),
        (Some(O(x)), Some(O(y))) => O(merge_optionals(ctx, node, out, x, y)),
        (Some(O(x)), None) => O(merge_optionals(ctx, node, out, x, &opt(b))),
        (None, Some(O(y))) => O(merge_optionals(ctx, node, out, &opt(a), y)),
        _ => return None,
    })
}
