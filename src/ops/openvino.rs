//! Helpers of the OpenVINO adapters that several families share.

use super::attrs::ov_dtype;
use super::norm_axis;
use crate::algebra::Dim;
use crate::context::{OpError, TensorFact};
use crate::graph::{DType, Node};

/// The OpenVINO domain.
pub const DOMAIN: &str = "openvino";

/// An integer dtype (bool included): arithmetic on values is integer arithmetic.
pub fn is_int(t: DType) -> bool {
    t.is_integer() || t == DType::Bool
}

/// Normalise reduction axes; duplicates are an error.
pub fn reduce_axes(axes: &[i64], rank: usize) -> Result<Vec<usize>, OpError> {
    let mut out: Vec<usize> = Vec::with_capacity(axes.len());
    for &a in axes {
        let n = norm_axis(a, rank)?;
        if out.contains(&n) {
            return Err(OpError::BadShapeValue {
                what: format!("axes {axes:?} repeat axis {n}"),
            });
        }
        out.push(n);
    }
    Ok(out)
}

/// The dtype of output 0 from an element-type attribute, else `default`.
pub fn dtype_attr(node: &Node, name: &'static str, default: DType) -> Result<DType, OpError> {
    Ok(ov_dtype(node, name)?.unwrap_or(default))
}

/// A 1-D (or scalar) input's values as dims.
pub fn vec_values(fact: &TensorFact) -> Option<Vec<Dim>> {
    fact.value.clone()
}

/// The OpenVINO rules not in a family file: none.
pub const RULES: &[super::RuleEntry] = &[];
