//! Ops on tensor contents element by element: ONNX `Where` and `CumSum`; OpenVINO
//! `Bucketize`, `SearchSorted` and the state ops `ReadValue` and `Assign`.
//!
//! Specs: the ONNX operator reference (`Where`, `CumSum`) and the OpenVINO
//! operation specification (`Bucketize-3`, `SearchSorted-15`, `ReadValue-3`, `-6`,
//! `Assign-3`, `-6`).
//!
//! * `Where` picks from `X` where the condition holds and from `Y` elsewhere: the
//!   output is the numpy broadcast of the three shapes, and its contents are
//!   picked element by element when every condition element is decided.
//! * `CumSum` keeps the shape; its contents are running sums along the axis (a
//!   scalar input) through the algebra, `exclusive` and `reverse` as the attributes
//!   say.
//!
//! * OpenVINO `Bucketize` gives each element of `data` its bucket index: the
//!   data's shape, `output_type` (i64 by default). `SearchSorted` gives each of
//!   `values` its insertion index into `sorted_sequence`: the values' shape, i64.
//! * OpenVINO `ReadValue` reads a variable: the shape and type of its `init` input
//!   when there is one, else its `variable_shape` (`?` dims become fresh) and
//!   `variable_type`. `Assign` writes one and passes its input through.
//!
//! Special values: X and Y must have one element type, the condition is bool.
//!
//! # Version history
//! * ONNX **Where**: 9 (broadcast of the three inputs); 16 bf16.
//! * ONNX **CumSum**: 11 (`axis` is a scalar input; `exclusive`, `reverse`); 14 types.
//! * OpenVINO **Bucketize**: 3. **SearchSorted**: 15. **ReadValue**, **Assign**: 3
//!   (`variable_id`); 6 (typed variables; ReadValue's `init` optional).

use super::attrs::{ov_dtype, ov_str};
use super::broadcast::broadcast_shapes;
use super::nn_util::{merge_dim, rank_error, shaped};
use super::values::{broadcast_values, check_int_range, fact_with_value, small_value};
use super::{attr_int, check_inputs, norm_axis, RuleEntry};
use crate::algebra::Dim;
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};

/// The rules of this family.
pub const RULES: &[RuleEntry] = &[
    ("", "CumSum", cumsum),
    ("", "Where", where_op),
    ("openvino", "Bucketize", ov_bucketize),
    ("openvino", "SearchSorted", ov_search_sorted),
    ("openvino", "ReadValue", ov_read_value),
    ("openvino", "Assign", ov_assign),
];

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

/// OpenVINO `Bucketize-3`: the data's shape, `output_type`.
fn ov_bucketize(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "data")?;
    let dtype = ov_dtype(node, "output_type")?.unwrap_or(DType::Int64);
    Ok(vec![shaped(dtype, x.shape)])
}

/// OpenVINO `SearchSorted-15`: the values' shape, i64.
fn ov_search_sorted(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let seq = ctx.input(node, 0, "sorted_sequence")?;
    let values = ctx.input(node, 1, "values")?;
    if let (Some(s), Some(v)) = (&seq.shape, &values.shape) {
        if s.len() > 1 && s.len() != v.len() {
            return Err(rank_error(
                "values",
                format!("{} (the rank of sorted_sequence)", s.len()),
                v.len(),
            ));
        }
        if s.len() > 1 {
            for a in 0..s.len() - 1 {
                merge_dim(
                    ctx,
                    node,
                    &|| format!("axis {a} of sorted_sequence and values"),
                    s[a],
                    v[a],
                )?;
            }
        }
    }
    let dtype = ov_dtype(node, "output_type")?.unwrap_or(DType::Int64);
    Ok(vec![shaped(dtype, values.shape)])
}

/// The dims of a `variable_shape` (`[?,3]`, `2,3`, `...`): integers stay, `?`, `-1`
/// and intervals become fresh dims; `None` for a dynamic rank.
fn variable_shape(
    ctx: &mut ShapesContext,
    node: &Node,
    text: &str,
) -> Result<Option<Vec<Dim>>, OpError> {
    let t = text
        .trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim();
    if t == "..." {
        return Ok(None);
    }
    if t.is_empty() {
        return Ok(Some(Vec::new()));
    }
    let mut dims = Vec::new();
    for (axis, part) in t.split(',').enumerate() {
        let part = part.trim();
        dims.push(match part.parse::<i64>() {
            Ok(v) if v >= 0 => ctx.alg.constant(v),
            Ok(-1) => ctx.unknown_dim(node, 0, axis),
            _ if part == "?" || part.contains("..") => ctx.unknown_dim(node, 0, axis),
            _ => {
                return Err(OpError::BadAttribute {
                    name: "variable_shape",
                    value: format!("{text:?}"),
                    why: format!("`{part}` is not a dim"),
                })
            }
        });
    }
    Ok(Some(dims))
}

/// OpenVINO `ReadValue` (3, 6).
fn ov_read_value(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 0, 1)?;
    if let Some(init) = ctx.optional_input(node, 0)? {
        return Ok(vec![shaped(init.dtype, init.shape)]);
    }
    let dtype = ov_dtype(node, "variable_type")?.unwrap_or(DType::Undefined);
    let shape = match ov_str(node, "variable_shape")? {
        None => None,
        Some(text) => variable_shape(ctx, node, text)?,
    };
    Ok(vec![shaped(dtype, shape)])
}

/// OpenVINO `Assign` (3, 6): its input, passed through.
fn ov_assign(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "new_value")?;
    Ok(vec![shaped(x.dtype, x.shape); node.outputs.len()])
}
