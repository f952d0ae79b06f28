//! oneDNN Graph shape rules (domain `onednn`).
//!
//! Specs followed: oneDNN's graph operation documents (`doc/graph_api/operations/
//! *.md`) and `src/graph/interface/shape_infer.cpp`. Attributes arrive typed (see
//! `crate::onednn::to_graph`: bools and s64 as ints). The output type of every op is
//! the converter's `dst_dtype` attribute when present (the file's output dtype when
//! it differs from input 0's), else input 0's type.
//!
//! | op | shape |
//! | --- | --- |
//! | `StaticTranspose` | `order` (negative entries allowed) |
//! | `Concat` | sum on `axis` |
//!
//! `StaticReshape` is in `src/ops/reshape.rs`; its rule checks the `shape` attribute
//! against symbolic inputs with `crate::onednn::to_graph::check_shape_attr`.

use super::openvino::{permutation, transposed};
use super::{attr_ints, norm_axis, RuleEntry};
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::{Attr, DType, Node};

/// The oneDNN domain.
pub const DOMAIN: &str = "onednn";

/// The output type: `dst_dtype` when the converter set it, else `default`.
pub fn out_dtype(node: &Node, default: DType) -> DType {
    match node.attr("dst_dtype") {
        Some(Attr::Str(s)) => DType::from_short_name(s).unwrap_or(default),
        _ => default,
    }
}

/// StaticTranspose: `order`, negative entries count from the end.
fn static_transpose(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    super::check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "src")?;
    let order = attr_ints(node, "order")?
        .ok_or(OpError::MissingAttribute { name: "order" })?
        .to_vec();
    let Some(shape) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(out_dtype(node, x.dtype))]);
    };
    let perm = permutation(&order, shape.len())?;
    let dtype = out_dtype(node, x.dtype);
    let mut out = transposed(ctx, x, &shape, &perm)?;
    out[0].dtype = dtype;
    Ok(out)
}

/// Concat: `axis`; the other dims are equal.
fn concat(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let n = node.input_count();
    let first = ctx.input(node, 0, "src")?;
    let dtype = out_dtype(node, first.dtype);
    let mut shapes = Vec::with_capacity(n);
    for i in 0..n {
        match ctx.input(node, i, "src")?.shape {
            Some(s) => shapes.push(s),
            None => return Ok(vec![TensorFact::unknown(dtype)]),
        }
    }
    let rank = shapes[0].len();
    let axis = norm_axis(super::attr_int_required(node, "axis")?, rank)?;
    let out = super::concat::concat_dims(ctx, node, &shapes, axis)?;
    Ok(vec![TensorFact::new(dtype, out)])
}

/// The oneDNN rules.
pub const RULES: &[RuleEntry] = &[
    (DOMAIN, "StaticTranspose", static_transpose),
    (DOMAIN, "Concat", concat),
];
