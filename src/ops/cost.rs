//! The cost hook of the op families: what one node computes, as dims.
//!
//! A family states its cost formula next to its shape rule, in a [`Costs`] table:
//! a formula for every op of its rule table (`all`), or one per op (`by_op`), or
//! both (`by_op` first). A formula is a [`CostRule`]: it reads the inferred facts
//! of the node's inputs and outputs from the [`ShapesContext`] and builds its
//! figures in an algebra that holds the context's dims (a copy of `ctx.alg`: the
//! inference algebra is never changed), through the algebra alone.
//!
//! Conventions (`docs/cost.md` lists every formula):
//! - **MACs** count the multiply-accumulates of contractions (MatMul, Gemm, Conv,
//!   attention, recurrences); every other op has 0.
//! - **FLOPs** are `2 × MACs` for contractions (a multiply and an add each), plus
//!   one per output element for an elementwise op, and the per-element counts a
//!   family documents for reductions, softmax and normalizations. Data movement
//!   (Reshape, Transpose, Gather, Concat, ...) is 0.
//! - A figure is `None` when the shapes it needs are not known.

use crate::algebra::{Algebra, Dim};
use crate::context::ShapesContext;
use crate::graph::Node;

/// What one node computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpCost {
    /// Multiply-accumulates of its contractions; `None`: not known.
    pub macs: Option<Dim>,
    /// Floating-point (or integer) operations; `None`: not known.
    pub flops: Option<Dim>,
}

/// A cost formula: the cost of `node`, built in `alg` (which holds every dim of
/// `ctx`) from the facts of its inputs and outputs.
pub type CostRule = fn(&mut Algebra, &ShapesContext, &Node) -> OpCost;

/// One cost entry: (domain, op type, formula), as a [`crate::ops::RuleEntry`].
pub type CostEntry = (&'static str, &'static str, CostRule);

/// A family's cost formulas.
#[derive(Clone, Copy)]
pub struct Costs {
    /// The family's rule table: the ops `all` applies to.
    pub rules: &'static [crate::ops::RuleEntry],
    /// The formula of every op of `rules` that `by_op` does not name.
    pub all: Option<CostRule>,
    /// Formulas per op, written with the helpers of `crate::ops::rules`.
    pub by_op: &'static [CostEntry],
}

impl Costs {
    /// Every op of `rules` costs `rule`.
    pub const fn all(rules: &'static [crate::ops::RuleEntry], rule: CostRule) -> Costs {
        Costs {
            rules,
            all: Some(rule),
            by_op: &[],
        }
    }

    /// Formulas for the ops `by_op` names only.
    pub const fn by_op(by_op: &'static [CostEntry]) -> Costs {
        Costs {
            rules: &[],
            all: None,
            by_op,
        }
    }
}

/// The dims of input `i` of `node`; `None` for a missing input or an unknown rank.
pub fn input_dims(ctx: &ShapesContext, node: &Node, i: usize) -> Option<Vec<Dim>> {
    let name = node.inputs.get(i).filter(|n| !n.is_empty())?;
    ctx.get(name)?.shape.clone()
}

/// The dims of output `i` of `node`.
pub fn output_dims(ctx: &ShapesContext, node: &Node, i: usize) -> Option<Vec<Dim>> {
    let name = node.outputs.get(i).filter(|n| !n.is_empty())?;
    ctx.get(name)?.shape.clone()
}

/// The element count of a shape: the product of its dims (`1` for a scalar).
pub fn volume(alg: &mut Algebra, dims: &[Dim]) -> Dim {
    alg.product(dims)
}

/// The element count of input `i`.
pub fn input_volume(alg: &mut Algebra, ctx: &ShapesContext, node: &Node, i: usize) -> Option<Dim> {
    input_dims(ctx, node, i).map(|d| volume(alg, &d))
}

/// The element count of output `i`.
pub fn output_volume(alg: &mut Algebra, ctx: &ShapesContext, node: &Node, i: usize) -> Option<Dim> {
    output_dims(ctx, node, i).map(|d| volume(alg, &d))
}

/// `k × d`.
pub fn times(alg: &mut Algebra, k: i64, d: Dim) -> Dim {
    let k = alg.constant(k);
    alg.mul(k, d)
}

/// The cost of a contraction of `macs` multiply-accumulates with `extra` more
/// FLOPs (a bias, a softmax): FLOPs `2 × macs + extra`.
pub fn contraction(alg: &mut Algebra, macs: Option<Dim>, extra: Option<Dim>) -> OpCost {
    let flops = macs.map(|m| {
        let two = times(alg, 2, m);
        match extra {
            Some(e) => alg.add_dims(two, e),
            None => two,
        }
    });
    OpCost { macs, flops }
}

/// No arithmetic: 0 MACs, 0 FLOPs (data movement, shape tensors, constants).
pub fn moves_data(alg: &mut Algebra, _: &ShapesContext, _: &Node) -> OpCost {
    let zero = alg.constant(0);
    OpCost {
        macs: Some(zero),
        flops: Some(zero),
    }
}

/// `k` FLOPs per element of output 0, 0 MACs.
pub fn per_output_element(alg: &mut Algebra, ctx: &ShapesContext, node: &Node, k: i64) -> OpCost {
    let zero = alg.constant(0);
    let flops = output_volume(alg, ctx, node, 0).map(|v| times(alg, k, v));
    OpCost {
        macs: Some(zero),
        flops,
    }
}

/// `k` FLOPs per element of input 0, 0 MACs (a reduction reads each element once).
pub fn per_input_element(alg: &mut Algebra, ctx: &ShapesContext, node: &Node, k: i64) -> OpCost {
    let zero = alg.constant(0);
    let flops = input_volume(alg, ctx, node, 0).map(|v| times(alg, k, v));
    OpCost {
        macs: Some(zero),
        flops,
    }
}

/// One FLOP per output element (elementwise ops).
pub fn elementwise(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    per_output_element(alg, ctx, node, 1)
}

/// The dim at `axis` (negative: from the end) of `dims`.
pub fn axis(dims: &[Dim], axis: i64) -> Option<Dim> {
    let i = if axis < 0 {
        dims.len().checked_sub(axis.unsigned_abs() as usize)?
    } else {
        axis as usize
    };
    dims.get(i).copied()
}
