//! Ops on tensor contents element by element: ONNX `Where` and `CumSum`.
//!
//! Spec: the ONNX operator reference (`Where`, `CumSum`).
//!
//! * `Where` picks from `X` where the condition holds and from `Y` elsewhere: the
//!   output is the numpy broadcast of the three shapes, and its contents are
//!   picked element by element when every condition element is decided.
//! * `CumSum` keeps the shape; its contents are running sums along the axis (a
//!   scalar input) through the algebra, `exclusive` and `reverse` as the attributes
//!   say.
//!
//! Special values: X and Y must have one element type, the condition is bool.
//!
//! # Version history
//! * ONNX **Where**: 9 (broadcast of the three inputs); 16 bf16.
//! * ONNX **CumSum**: 11 (`axis` is a scalar input; `exclusive`, `reverse`); 14 types.

use super::broadcast::broadcast_shapes;
use super::values::{broadcast_values, check_int_range, fact_with_value, small_value};
use super::{attr_int, check_inputs, norm_axis, RuleEntry};
use crate::algebra::Dim;
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};

/// The rules of this family.
pub const RULES: &[RuleEntry] = &[("", "CumSum", cumsum), ("", "Where", where_op)];

// ----- Constant -------------------------------------------------------

// ----- Range, ConstantOfShape, CumSum, Where ---------------------------------------

fn scalar_value(f: &TensorFact) -> Option<Dim> {
    match f.value.as_deref() {
        Some([v]) => Some(*v),
        _ => None,
    }
}

fn cumsum(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "x")?;
    let axis = ctx.input(node, 1, "axis")?;
    let Some(dims) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let axis = match scalar_value(&axis).and_then(|d| ctx.alg.as_i64(d)) {
        Some(a) => Some(norm_axis(a, dims.len())?),
        None => None,
    };
    let exclusive = attr_int(node, "exclusive", 0)? != 0;
    let reverse = attr_int(node, "reverse", 0)? != 0;
    let value = match (axis, small_value(&ctx.alg, &x)) {
        (Some(axis), Some((shape, v))) => {
            let inner: usize = shape[axis + 1..].iter().product();
            let n = shape[axis];
            let outer: usize = shape[..axis].iter().product();
            let mut out = v.clone();
            for o in 0..outer {
                for i in 0..inner {
                    let mut acc = ctx.alg.constant(0);
                    let order: Vec<usize> = if reverse {
                        (0..n).rev().collect()
                    } else {
                        (0..n).collect()
                    };
                    for k in order {
                        let at = (o * n + k) * inner + i;
                        let next = ctx.alg.add_dims(acc, v[at]);
                        out[at] = if exclusive { acc } else { next };
                        acc = next;
                    }
                }
            }
            Some(out)
        }
        _ => None,
    };
    if let Some(v) = &value {
        check_int_range(&ctx.alg, x.dtype, v, &node.op_type)?;
    }
    Ok(vec![fact_with_value(x.dtype, dims, value)])
}

fn where_op(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let c = ctx.input(node, 0, "condition")?;
    let x = ctx.input(node, 1, "X")?;
    let y = ctx.input(node, 2, "Y")?;
    if !matches!(c.dtype, DType::Bool | DType::Undefined) {
        return Err(OpError::UnsupportedType {
            dtype: c.dtype,
            what: "condition",
            allowed: "bool".to_string(),
        });
    }
    if x.dtype != y.dtype && x.dtype != DType::Undefined && y.dtype != DType::Undefined {
        return Err(OpError::TypeMismatch {
            what: format!("X is {}, Y is {}", x.dtype, y.dtype),
        });
    }
    let dtype = if x.dtype == DType::Undefined {
        y.dtype
    } else {
        x.dtype
    };
    let (Some(cs), Some(xs), Some(ys)) = (c.shape.clone(), x.shape.clone(), y.shape.clone()) else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    let xy = broadcast_shapes(ctx, &node.name, &xs, &ys)?;
    let out = broadcast_shapes(ctx, &node.name, &cs, &xy)?;
    let value = broadcast_values(&ctx.alg, &out, &[&c, &x, &y]).and_then(|v| {
        v[0].iter()
            .zip(&v[1])
            .zip(&v[2])
            .map(|((c, a), b)| ctx.alg.as_i64(*c).map(|cv| if cv != 0 { *a } else { *b }))
            .collect::<Option<Vec<Dim>>>()
    });
    Ok(vec![fact_with_value(dtype, out, value)])
}
