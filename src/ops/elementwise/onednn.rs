//! The oneDNN elementwise ops: eltwise and binary ops, `Select`, `BiasAdd` and the
//! backward ops.

use super::kernel::select_shape;
use crate::context::{AttrProblem, AttrValue};
use crate::context::{Expected, OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};
use crate::ops::common::attrs::attr_str;
use crate::ops::common::attrs::dst_dtype;
use crate::ops::common::broadcast::{auto_broadcast_shapes, AutoBroadcast};
use crate::ops::common::check_inputs;
use crate::ops::common::dims::{channel_axis, merge_dim_as, merge_shapes, rank_of, shaped};

/// oneDNN ops whose outputs have the input's shape (and its type unless
/// `dst_dtype` says otherwise).
pub fn same_shape(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let x = ctx.input(node, 0, "src")?;
    let f = TensorFact {
        fill: None,
        dtype: dst_dtype(node, x.dtype)?,
        shape: x.shape,
        value: None,
    };
    Ok(vec![f; node.outputs.len().max(1)])
}

/// oneDNN binary ops: `auto_broadcast` numpy (the default) or none.
pub(super) fn binary(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let a = ctx.input(node, 0, "src_0")?;
    let b = ctx.input(node, 1, "src_1")?;
    let text = attr_str(node, "auto_broadcast")?.unwrap_or("numpy");
    let mode = match AutoBroadcast::parse(text) {
        Some(mode @ (AutoBroadcast::Numpy | AutoBroadcast::None)) => mode,
        _ => {
            return Err(OpError::BadAttribute {
                name: "auto_broadcast",
                value: AttrValue::Word(text.to_ascii_lowercase()),
                why: Box::new(AttrProblem::one_of(&["numpy", "none"])),
            })
        }
    };
    let default = if node.op_type == "GreaterEqual" {
        DType::Bool
    } else {
        a.dtype
    };
    let shape = match (&a.shape, &b.shape) {
        (Some(x), Some(y)) => Some(auto_broadcast_shapes(ctx, node, mode, x, y)?),
        _ => None,
    };
    Ok(vec![TensorFact {
        fill: None,
        dtype: dst_dtype(node, default)?,
        shape,
        value: None,
    }])
}

/// oneDNN Select(cond, src_0, src_1): the numpy broadcast of the three.
pub(super) fn select(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let c = ctx.input(node, 0, "cond")?;
    let a = ctx.input(node, 1, "src_0")?;
    let b = ctx.input(node, 2, "src_1")?;
    let shape = select_shape(ctx, node, AutoBroadcast::Numpy, &c, &a, &b)?;
    Ok(vec![TensorFact {
        fill: None,
        dtype: dst_dtype(node, a.dtype)?,
        shape,
        value: None,
    }])
}

/// oneDNN BiasAdd(src, bias): `src`'s shape; the bias length is the channel dim
/// of `data_format`.
pub(super) fn bias_add(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "src")?;
    let b = ctx.input(node, 1, "bias")?;
    if let (Some(xs), Some([c])) = (&x.shape, b.shape.as_deref()) {
        if !xs.is_empty() {
            let ax = channel_axis(node, xs.len())?;
            merge_dim_as(ctx, node, "bias length and the channel dim", xs[ax], *c)?;
        }
    }
    same_shape(ctx, node)
}

/// oneDNN eltwise backward ops (`AbsBackward`, `ReLUBackward`, ...): inputs
/// `src` (or `dst` when `use_dst`) and `diff_dst` of one shape; `diff_src` has it.
pub(super) fn eltwise_backward(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "src")?;
    let d = ctx.input(node, 1, "diff_dst")?;
    let shape = merge_shapes(ctx, node, ("src", &x), ("diff_dst", &d))?;
    Ok(vec![shaped(dst_dtype(node, x.dtype)?, shape)])
}

/// oneDNN PReLUBackward(src, slope, diff_dst): `diff_src` of `src`'s shape (shared
/// with `diff_dst`), `diff_slope` of `slope`'s.
pub(super) fn prelu_backward(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let x = ctx.input(node, 0, "src")?;
    let slope = ctx.input(node, 1, "slope")?;
    let d = ctx.input(node, 2, "diff_dst")?;
    let shape = merge_shapes(ctx, node, ("src", &x), ("diff_dst", &d))?;
    let diff_slope = TensorFact {
        fill: None,
        dtype: slope.dtype,
        shape: slope.shape,
        value: None,
    };
    Ok(vec![shaped(dst_dtype(node, x.dtype)?, shape), diff_slope])
}

/// oneDNN BiasAddBackward(diff_dst): `diff_bias` is `[C]`, the channel dim of
/// `data_format` (default `NXC`). oneDNN's shape inference takes a `diff_dst` of
/// rank 4 or more.
pub(super) fn bias_add_backward(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let d = ctx.input(node, 0, "diff_dst")?;
    let dtype = dst_dtype(node, d.dtype)?;
    let Some(ds) = &d.shape else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    if ds.len() < 4 {
        return Err(rank_of("diff_dst", Expected::AtLeast(4), ds.len()));
    }
    let c = ds[channel_axis(node, ds.len())?];
    Ok(vec![TensorFact::new(dtype, vec![c])])
}
