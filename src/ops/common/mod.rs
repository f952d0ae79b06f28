//! What the op families share: reading attributes ([`attrs`]) and the contents of
//! small tensors ([`values`]), broadcasting ([`broadcast`]), unifying and checking
//! dims and building output facts ([`dims`]), and the small node helpers below
//! (input counts, axes, fresh and unknown outputs).
//!
//! Nothing here knows an op family: every family may use this module, and it uses
//! none of them.

pub mod attrs;
pub mod broadcast;
pub mod dims;
pub mod values;

use crate::algebra::Dim;
use crate::context::{Expected, OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};

/// Outputs of unknown rank for every output of `node`.
pub fn unknown_outputs(node: &Node, dtype: DType) -> Vec<TensorFact> {
    node.outputs
        .iter()
        .map(|_| TensorFact::unknown(dtype))
        .collect()
}

/// Fresh data-dependent dims for output `output` of `node`.
pub fn fresh_dims(ctx: &mut ShapesContext, node: &Node, output: usize, rank: usize) -> Vec<Dim> {
    (0..rank)
        .map(|axis| ctx.unknown_dim(node, output, axis))
        .collect()
}

/// Normalise an axis in `[-rank, rank)` to `[0, rank)`.
pub fn norm_axis(axis: i64, rank: usize) -> Result<usize, OpError> {
    let r = rank as i64;
    if (-r..r).contains(&axis) {
        Ok(if axis < 0 {
            (axis + r) as usize
        } else {
            axis as usize
        })
    } else {
        Err(OpError::AxisOutOfRange { axis, rank })
    }
}

/// Check the input count is within `[min, max]`.
pub fn check_inputs(node: &Node, min: usize, max: usize) -> Result<(), OpError> {
    let n = node.input_count();
    if n < min || n > max {
        let expected = if min == max {
            Expected::Exactly(min)
        } else {
            Expected::Between(min, max)
        };
        return Err(OpError::InputCount { expected, found: n });
    }
    Ok(())
}
