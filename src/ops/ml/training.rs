//! Training: the `ai.onnx.preview.training` domain, `Adagrad`, `Adam`, `Momentum`
//! and `Gradient`.
//!
//! Spec: the ONNX operator reference (`ai.onnx.preview.training` ops, version 1).
//!
//! * The optimizers take the learning rate `R` and the update count `T` (scalars),
//!   then `n` tensors to optimise and, for each, its gradient and its optimiser
//!   state: `Adagrad` `X..., G..., H...` (`2 + 3n` inputs) gives `X_new..., H_new...`;
//!   `Momentum` `X..., G..., V...` gives `X_new..., V_new...`; `Adam` `X..., G...,
//!   V..., H...` (`2 + 4n`) gives `X_new..., V_new..., H_new...`. Each new tensor
//!   has the shape and type of the one it replaces; a gradient and the states are
//!   element-wise with it (their dims are unified with its dims).
//! * `Gradient`: one output per entry of `xs`, the gradient of `y` with respect to
//!   that input (the first inputs, in `xs`'s order): its shape and type.
//!
//! # Version history
//! * `ai.onnx.preview.training` **Adagrad**, **Adam**, **Momentum**, **Gradient**:
//!   1.

use crate::context::DimRole;
use crate::context::Subject;
use crate::context::{Expected, OpError, ShapesContext, TensorFact};
use crate::graph::{Attr, Node};
use crate::ops::common::dims::{rank_of, shaped, unify_as};
use crate::ops::{rules, RuleEntry};

/// The domain of these ops.
const TRAINING: &str = "ai.onnx.preview.training";

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    (TRAINING, ["Adagrad", "Momentum", "Adam"], optimizer),
    (TRAINING, ["Gradient"], gradient),
];

/// Check that input `index` is a scalar (or one element) when its rank is known.
fn scalar(
    ctx: &ShapesContext,
    node: &Node,
    index: usize,
    what: &'static str,
) -> Result<(), OpError> {
    let f = ctx.input(node, index, what)?;
    if let Some(s) = &f.shape {
        let one = s.len() == 1 && ctx.alg.as_i64(s[0]).map_or(true, |d| d == 1);
        if !s.is_empty() && !one {
            return Err(rank_of(
                what,
                Expected::Exactly(0).noted("a scalar"),
                s.len(),
            ));
        }
    }
    Ok(())
}

/// `Adagrad`, `Momentum` (`X, G, state` per tensor) and `Adam` (`X, G, V, H`).
fn optimizer(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let per = if node.op_type == "Adam" { 4 } else { 3 };
    let count = node.input_count();
    if count < 2 + per || (count - 2) % per != 0 {
        return Err(OpError::InputCount {
            expected: Expected::Repeating { fixed: 2, per },
            found: count,
        });
    }
    scalar(ctx, node, 0, "R")?;
    scalar(ctx, node, 1, "T")?;
    let n = (count - 2) / per;
    let names = ["X", "G", "V or H", "H"];
    // groups[j][k]: the j-th input group (X, G, then the states), tensor k
    let mut groups: Vec<Vec<TensorFact>> = Vec::with_capacity(per);
    for (j, &what) in names.iter().enumerate().take(per) {
        let mut g = Vec::with_capacity(n);
        for k in 0..n {
            g.push(ctx.input(node, 2 + j * n + k, what)?);
        }
        groups.push(g);
    }
    // the gradient and the states are element-wise with X
    for k in 0..n {
        let Some(xs) = groups[0][k].shape.clone() else {
            continue;
        };
        for (j, group) in groups.iter().enumerate().skip(1) {
            if let Some(s) = &group[k].shape {
                if s.len() != xs.len() {
                    let of = Subject::Nth {
                        name: names[j],
                        index: k,
                    };
                    return Err(rank_of(of, xs.len(), s.len()));
                }
                for (a, (&p, &q)) in xs.iter().zip(s).enumerate() {
                    unify_as(
                        ctx,
                        node,
                        DimRole::OptimizerAxis {
                            axis: a,
                            group: names[j],
                            index: k,
                        },
                        p,
                        q,
                    )?;
                }
            }
        }
    }
    // outputs: the new X..., then the new states..., each like the input it replaces
    let mut out = Vec::with_capacity((per - 1) * n);
    for (j, group) in groups.iter().enumerate() {
        if j == 1 {
            continue;
        }
        for f in group {
            out.push(shaped(f.dtype, f.shape.clone()));
        }
    }
    Ok(out)
}

/// `Gradient`: the shapes of the first `len(xs)` inputs.
fn gradient(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let xs = match node.attr("xs") {
        Some(Attr::Strs(v)) => v.len(),
        Some(other) => {
            return Err(crate::ops::common::attrs::bad_kind(
                "xs",
                other,
                "a list of strings",
            ))
        }
        None => return Err(OpError::MissingAttribute { name: "xs" }),
    };
    if node.attr("y").is_none() {
        return Err(OpError::MissingAttribute { name: "y" });
    }
    let zs = match node.attr("zs") {
        Some(Attr::Strs(v)) => v.len(),
        _ => 0,
    };
    if node.input_count() != xs + zs {
        return Err(OpError::InputCount {
            expected: Expected::Exactly(xs + zs).noted("xs and zs"),
            found: node.input_count(),
        });
    }
    (0..xs)
        .map(|i| {
            let f = ctx.input(node, i, "Inputs")?;
            Ok(shaped(f.dtype, f.shape))
        })
        .collect()
}
