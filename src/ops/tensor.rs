//! Ops on tensor contents element by element: ONNX `CumSum`, `CumProd` and
//! `ReverseSequence`; OpenVINO `Bucketize`, `SearchSorted` and the state ops
//! `ReadValue` and `Assign`. (ONNX `Where` is OpenVINO's `Select`: it lives with
//! it in `elementwise.rs`.)
//!
//! Specs: the ONNX operator reference (`CumSum`, `CumProd`, `ReverseSequence`) and
//! the OpenVINO operation specification (`Bucketize-3`, `SearchSorted-15`,
//! `ReadValue-3`, `-6`, `Assign-3`, `-6`).
//!
//! * `CumSum` keeps the shape; its contents are running sums along the axis (a
//!   scalar input) through the algebra, `exclusive` and `reverse` as the attributes
//!   say. `CumProd` is the same with running products.
//! * `ReverseSequence` keeps the shape: `sequence_lens [batch]` (int64) gives how
//!   many leading elements along `time_axis` each batch entry reverses. The axes are
//!   0 and 1 (one each); the lengths' size is equated with the batch dim. The
//!   contents of a small known input with known lengths are computed.
//!
//! * OpenVINO `Bucketize` gives each element of `data` its bucket index: the
//!   data's shape, `output_type` (i64 by default). `SearchSorted` gives each of
//!   `values` its insertion index into `sorted_sequence`: the values' shape, i64.
//! * OpenVINO `ReadValue` reads a variable: the shape and type of its `init` input
//!   when there is one, else its `variable_shape` (decoded by the reader: `?`
//!   and interval dims become fresh, `...` is an unknown rank) and
//!   `variable_type`. `Assign` writes one and passes its input through.
//!
//! # Version history
//! * ONNX **CumSum**: 11 (`axis` is a scalar input; `exclusive`, `reverse`); 14 types.
//! * ONNX **CumProd**: 26 (as CumSum-14, with products).
//! * ONNX **ReverseSequence**: 10; 28 (types).
//! * OpenVINO **Bucketize**: 3. **SearchSorted**: 15. **ReadValue**, **Assign**: 3
//!   (`variable_id`); 6 (typed variables; ReadValue's `init` optional).

use super::attrs::{ov_dtype, ov_shape};
use super::nn_util::{merge_dim, rank_error, shaped};
use super::values::{check_int_range, fact_with_value, small_value};
use super::{attr_int, check_inputs, norm_axis, RuleEntry};
use crate::algebra::Dim;
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::{DType, DeclDim, Node};

/// The rules of this family.
pub const RULES: &[RuleEntry] = &[
    ("", "CumSum", cumsum),
    ("", "CumProd", cumsum),
    ("", "ReverseSequence", reverse_sequence),
    ("openvino", "Bucketize", ov_bucketize),
    ("openvino", "SearchSorted", ov_search_sorted),
    ("openvino", "ReadValue", ov_read_value),
    ("openvino", "Assign", ov_assign),
];

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
    // CumSum accumulates sums from 0, CumProd products from 1.
    let product = node.op_type == "CumProd";
    let value = match (axis, small_value(&ctx.alg, &x)) {
        (Some(axis), Some((shape, v))) => {
            let inner: usize = shape[axis + 1..].iter().product();
            let n = shape[axis];
            let outer: usize = shape[..axis].iter().product();
            let mut out = v.clone();
            for o in 0..outer {
                for i in 0..inner {
                    let mut acc = ctx.alg.constant(i64::from(product));
                    let order: Vec<usize> = if reverse {
                        (0..n).rev().collect()
                    } else {
                        (0..n).collect()
                    };
                    for k in order {
                        let at = (o * n + k) * inner + i;
                        let next = if product {
                            ctx.alg.mul(acc, v[at])
                        } else {
                            ctx.alg.add_dims(acc, v[at])
                        };
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

/// ONNX `ReverseSequence` (10, 28).
fn reverse_sequence(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "input")?;
    let lens = ctx.input(node, 1, "sequence_lens")?;
    let time = attr_int(node, "time_axis", 0)?;
    let batch = attr_int(node, "batch_axis", 1)?;
    for (name, v) in [("time_axis", time), ("batch_axis", batch)] {
        if !(0..=1).contains(&v) {
            return Err(OpError::BadAttribute {
                name,
                value: v.to_string(),
                why: "expected 0 or 1".to_string(),
            });
        }
    }
    if time == batch {
        return Err(OpError::BadAttribute {
            name: "batch_axis",
            value: batch.to_string(),
            why: "time_axis and batch_axis must differ".to_string(),
        });
    }
    if lens.dtype != DType::Int64 && lens.dtype != DType::Undefined {
        return Err(OpError::UnsupportedType {
            dtype: lens.dtype,
            what: "sequence_lens",
            allowed: "int64".to_string(),
        });
    }
    let Some(dims) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    if dims.len() < 2 {
        return Err(rank_error("input", "at least 2", dims.len()));
    }
    let (time, batch) = (time as usize, batch as usize);
    if let Some(ls) = &lens.shape {
        if ls.len() != 1 {
            return Err(rank_error("sequence_lens", 1, ls.len()));
        }
        super::nn_util::unify(
            ctx,
            node,
            "batch of input and sequence_lens",
            dims[batch],
            ls[0],
        )?;
    }
    // The contents of a small known input with known lengths.
    let value = (|| {
        let (shape, v) = small_value(&ctx.alg, &x)?;
        let lens: Vec<usize> = lens
            .value
            .as_ref()?
            .iter()
            .map(|d| ctx.alg.as_i64(*d).and_then(|l| usize::try_from(l).ok()))
            .collect::<Option<_>>()?;
        if lens.len() != shape[batch] || lens.iter().any(|l| *l > shape[time]) {
            return None;
        }
        let mut strides = vec![1usize; shape.len()];
        for a in (0..shape.len() - 1).rev() {
            strides[a] = strides[a + 1] * shape[a + 1];
        }
        let mut out = v.clone();
        for (flat, slot) in out.iter_mut().enumerate() {
            let t = flat / strides[time] % shape[time];
            let b = flat / strides[batch] % shape[batch];
            if t < lens[b] {
                let src = flat - t * strides[time] + (lens[b] - 1 - t) * strides[time];
                *slot = v[src];
            }
        }
        Some(out)
    })();
    Ok(vec![fact_with_value(x.dtype, dims, value)])
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

/// The dims of a decoded `variable_shape`: constants stay, `?` and intervals
/// become fresh dims.
fn variable_shape(ctx: &mut ShapesContext, node: &Node, dims: &[DeclDim]) -> Vec<Dim> {
    dims.iter()
        .enumerate()
        .map(|(axis, d)| match d {
            DeclDim::Value(v) => ctx.alg.constant(*v),
            _ => ctx.unknown_dim(node, 0, axis),
        })
        .collect()
}

/// OpenVINO `ReadValue` (3, 6).
fn ov_read_value(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 0, 1)?;
    if let Some(init) = ctx.optional_input(node, 0)? {
        return Ok(vec![shaped(init.dtype, init.shape)]);
    }
    let dtype = ov_dtype(node, "variable_type")?.unwrap_or(DType::Undefined);
    let shape = ov_shape(node, "variable_shape")?
        .flatten()
        .map(|dims| variable_shape(ctx, node, dims));
    Ok(vec![shaped(dtype, shape)])
}

/// OpenVINO `Assign` (3, 6): its input, passed through.
fn ov_assign(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "new_value")?;
    Ok(vec![shaped(x.dtype, x.shape); node.outputs.len()])
}
