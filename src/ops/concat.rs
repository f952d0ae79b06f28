//! ONNX `Concat`: join tensors along one axis.
//!
//! Spec: the `ComputeShapeConcat` entry of `../shared/specs/onnx-optim-shape_tensor.h.txt`
//! (ShapesContext API), with the ONNX operator's version history. Where that spec
//! loses information, symdim goes further:
//!
//! * On the concatenation axis the output dim is the symbolic sum (`N + M`), not a
//!   fresh dim. Only when an input's rank is unknown is it a fresh data-dependent dim.
//! * On every other axis the inputs' dims are merged. Proven equal passes; a
//!   concrete dim overrides a symbolic one; two dims not provably equal are made
//!   equal in the e-graph (`Algebra::union`, recorded with
//!   `Algebra::record_relation`, and reported as a warning: the model is valid only
//!   under that assumption); provably different dims are an error
//!   ([`OpError::DimMismatch`]).
//! * The contents (value-as-shape) are concatenated when every input of a 1-D
//!   concatenation has them (shape tensors built from `Shape` and constants).
//!
//! Special values: `axis` defaults to 1 when missing (the opset-1 default), may be
//! negative (`axis + rank`), and must lie in `[-rank, rank)`. Every input must have
//! the same rank (at least 1) and the same element type; the output has the first
//! input's type.
//!
//! # Version history
//! * **1**: `axis` optional, default 1.
//! * **4**: `axis` required (symdim still defaults to 1, as the ShapesContext spec says).
//! * **11**: negative `axis` allowed (symdim accepts it in every version).
//! * **13**: bf16 added to the types.

use super::nn_util::merge_dim;
use super::{attr_int, norm_axis, RuleEntry};
use crate::algebra::{Dim, Truth};
use crate::context::{node_context, OpError, Severity, ShapesContext, TensorFact};
use crate::graph::{DType, Node};

/// The Concat rule.
pub const RULES: &[RuleEntry] = &[("", "Concat", concat)];

/// ONNX `Concat` (see the module docs).
pub fn concat(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let n = node.input_count();
    if n == 0 {
        return Err(OpError::InputCount {
            expected: "1 or more".to_string(),
            found: 0,
        });
    }
    let mut inputs = Vec::with_capacity(n);
    for i in 0..n {
        inputs.push(ctx.input(node, i, "input")?);
    }

    // Element types: every defined one must agree.
    let mut dtype = DType::Undefined;
    let mut dtype_from = 0;
    for (i, f) in inputs.iter().enumerate() {
        if f.dtype == DType::Undefined {
            continue;
        }
        if dtype == DType::Undefined {
            dtype = f.dtype;
            dtype_from = i;
        } else if f.dtype != dtype {
            return Err(OpError::TypeMismatch {
                what: format!("input {dtype_from} is {dtype}, input {i} is {}", f.dtype),
            });
        }
    }

    // Ranks: every known one must agree.
    let mut rank: Option<(usize, usize)> = None;
    for (i, f) in inputs.iter().enumerate() {
        let Some(r) = f.rank() else { continue };
        match rank {
            None => rank = Some((r, i)),
            Some((r0, i0)) if r0 != r => {
                return Err(OpError::Rank {
                    what: format!(
                        "input {i} {}",
                        ctx.render_dims(f.shape.as_deref().unwrap_or_default())
                    ),
                    expected: format!("{r0} (the rank of input {i0})"),
                    found: r,
                });
            }
            Some(_) => {}
        }
    }
    let Some((rank, first)) = rank else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    if rank == 0 {
        return Err(OpError::Rank {
            what: format!("input {first} []"),
            expected: "at least 1".to_string(),
            found: 0,
        });
    }
    let axis = norm_axis(attr_int(node, "axis", 1)?, rank)?;

    let known: Vec<(usize, Vec<Dim>)> = inputs
        .iter()
        .enumerate()
        .filter_map(|(i, f)| f.shape.clone().map(|s| (i, s)))
        .collect();

    let mut out = Vec::with_capacity(rank);
    for j in 0..rank {
        if j == axis {
            out.push(if known.len() == n {
                let dims: Vec<Dim> = known.iter().map(|(_, s)| s[j]).collect();
                ctx.alg.sum(&dims)
            } else {
                ctx.unknown_dim(node, 0, j)
            });
            continue;
        }
        let (i0, s0) = &known[0];
        let mut cur = s0[j];
        let mut cur_from = *i0;
        for (i, s) in &known[1..] {
            let d = s[j];
            match ctx.alg.equal(cur, d) {
                Truth::True => {}
                Truth::False => {
                    return Err(OpError::DimMismatch {
                        what: format!(
                            "dim {j} of input {cur_from} and input {i} (Concat on axis {axis} needs every other dim equal)"
                        ),
                        left: ctx.alg.render(cur),
                        right: ctx.alg.render(d),
                    });
                }
                Truth::Unknown => {
                    let (l, r) = (ctx.alg.render(cur), ctx.alg.render(d));
                    let reason = format!("Concat {} dim {j}", node.name);
                    ctx.alg.union(cur, d, &reason)?;
                    ctx.alg.record_relation(cur, d, &node.name);
                    let msg = format!(
                        "{}: dim {j} is {l} in input {cur_from} and {r} in input {i}; assumed equal (valid when {l} == {r})",
                        node_context(node)
                    );
                    ctx.diagnose(Severity::Warning, node, msg);
                }
            }
            // A concrete dim overrides a symbolic one.
            if ctx.alg.as_const(cur).is_none() && ctx.alg.as_const(d).is_some() {
                cur = d;
                cur_from = *i;
            }
        }
        out.push(cur);
    }

    let value = if rank == 1 && inputs.iter().all(|f| f.value.is_some()) {
        Some(
            inputs
                .iter()
                .flat_map(|f| f.value.clone().unwrap_or_default())
                .collect(),
        )
    } else {
        None
    };
    Ok(vec![TensorFact {
        dtype,
        shape: Some(out),
        value,
    }])
}

/// The output shape of a concatenation along `axis` of shapes that must all
/// have the rank of the first: the sum on `axis`, merged dims elsewhere (see
/// [`merge_dim`]). OpenVINO Concat and oneDNN Concat use it.
pub fn concat_dims(
    ctx: &mut ShapesContext,
    node: &Node,
    shapes: &[Vec<Dim>],
    axis: usize,
) -> Result<Vec<Dim>, OpError> {
    let rank = shapes[0].len();
    let mut out = shapes[0].clone();
    for (i, s) in shapes.iter().enumerate().skip(1) {
        if s.len() != rank {
            return Err(OpError::Rank {
                what: format!("input {i}"),
                expected: rank.to_string(),
                found: s.len(),
            });
        }
        for a in 0..rank {
            out[a] = if a == axis {
                ctx.alg.add_dims(out[a], s[a])
            } else {
                merge_dim(
                    ctx,
                    node,
                    &|| format!("axis {a} of inputs 0 and {i}"),
                    out[a],
                    s[a],
                )?
            };
        }
    }
    Ok(out)
}
