//! The triangular part of matrices: ONNX `Trilu`.
//!
//! Spec: the ONNX operator reference (`Trilu`).
//!
//! `Trilu` keeps the upper (`upper = 1`, the default) or lower triangle of each
//! matrix of the last two axes of an input of rank `>= 2` and zeroes the rest, so
//! the output has the input's shape and type. The optional input `k` (int64, one
//! element, default 0) shifts the diagonal: element `(i, j)` is kept when
//! `j - i >= k` (upper) or `j - i <= k` (lower). With a small known input and a
//! known `k` the contents are computed ([`trilu_values`]).
//!
//! Special values: `k` may be any integer, also beyond the matrix (all kept or
//! all zeroed); a `k` tensor provably not of one element is an error.
//!
//! # Version history
//! * ONNX **Trilu**: 14.

use crate::algebra::{Algebra, Dim};
use crate::context::ShapeValueProblem;
use crate::context::{Allowed, Expected, OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};
use crate::ops::common::attrs::attr_int;
use crate::ops::common::check_inputs;
use crate::ops::common::dims::rank_of;
use crate::ops::common::values::{fact_with_value, small_value};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["Trilu"], trilu),
];

/// The contents of `Trilu` of `value` (row-major, constant shape `dims`, rank
/// `>= 2`): element `(.., i, j)` kept when `j - i >= k` (`upper`) or `j - i <= k`,
/// zero elsewhere.
pub fn trilu_values(
    alg: &mut Algebra,
    value: &[Dim],
    dims: &[usize],
    k: i64,
    upper: bool,
) -> Vec<Dim> {
    let zero = alg.constant(0);
    let m = dims[dims.len() - 1];
    let n = dims[dims.len() - 2];
    value
        .iter()
        .enumerate()
        .map(|(flat, &v)| {
            let j = (flat % m.max(1)) as i64;
            let i = ((flat / m.max(1)) % n.max(1)) as i64;
            let keep = if upper { j - i >= k } else { j - i <= k };
            if keep {
                v
            } else {
                zero
            }
        })
        .collect()
}

/// ONNX `Trilu`: the input's shape and type.
fn trilu(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 2)?;
    let x = ctx.input(node, 0, "input")?;
    let k = match ctx.optional_input(node, 1)? {
        None => Some(0),
        Some(kf) => {
            if !matches!(kf.dtype, DType::Int64 | DType::Undefined) {
                return Err(OpError::UnsupportedType {
                    dtype: kf.dtype,
                    what: "k",
                    allowed: Allowed::Types(vec![DType::Int64]),
                });
            }
            if let Some(shape) = &kf.shape {
                let count: Option<Vec<i64>> = shape.iter().map(|d| ctx.alg.as_i64(*d)).collect();
                // saturating: a count past i64 is reported as i64::MAX
                let count = count.map(|c| c.iter().fold(1i64, |a, d| a.saturating_mul(*d)));
                if let Some(n) = count.filter(|n| *n != 1) {
                    return Err(OpError::BadShapeValue(Box::new(
                        ShapeValueProblem::NotOneElement {
                            what: "k",
                            found: n,
                        },
                    )));
                }
            }
            crate::ops::common::values::scalar_int(&ctx.alg, &kf)
        }
    };
    let Some(shape) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    if shape.len() < 2 {
        return Err(rank_of("input", Expected::AtLeast(2), shape.len()));
    }
    let upper = attr_int(node, "upper", 1)? != 0;
    let value = match (k, small_value(&ctx.alg, &x)) {
        (Some(k), Some((dims, v))) => Some(trilu_values(&mut ctx.alg, &v, &dims, k, upper)),
        _ => None,
    };
    Ok(vec![fact_with_value(x.dtype, shape, value)])
}
