//! Broadcasting of shapes, shared by the elementwise ops of every format, MatMul's
//! batch dims, Expand, Where and Select.
//!
//! numpy multidirectional broadcasting ([`broadcast_shapes`]; ONNX from opset 7,
//! OpenVINO and oneDNN `auto_broadcast = numpy`):
//!
//! Shapes align on the right. A pair of dims `(a, b)` gives:
//! - `a` when `a == b`, `b` when `a == 1`, `a` when `b == 1` (proven by the algebra);
//! - an error when both are provably not 1 and provably different;
//! - `a` when both are provably not 1 but their equality is unknown: a valid model
//!   needs `a == b`, so the two are unioned in the e-graph and the relation is
//!   recorded for the model's contract;
//! - otherwise `broadcast(a, b)`, which stays symbolic (never an unsafe merge).
//!
//! The other modes ([`AutoBroadcast`]): `none` needs equal shapes
//! ([`same_shapes`]); OpenVINO's `pdpd` broadcasts the second input to the first
//! from an axis. Unidirectional broadcasting ([`check_broadcasts_to`]: ONNX PRelu's
//! slope, oneDNN MatMul's bias) needs the broadcast to keep the target's shape.

use crate::algebra::{Dim, Rat};
use crate::context::{DimRole, Expected, OpError, ShapesContext};
use crate::graph::Node;
use crate::ops::common::dims::merge_dim_as;
use crate::ops::common::dims::require_equal;

/// How the two inputs of an elementwise op broadcast (OpenVINO's and oneDNN's
/// `auto_broadcast` attribute).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AutoBroadcast {
    /// numpy multidirectional broadcasting (the default).
    Numpy,
    /// No broadcasting: the shapes must be equal.
    None,
    /// PaddlePaddle's: the second input broadcasts to the first, its dims aligned
    /// from `axis` (-1: aligned on the right); the output has the first's shape.
    Pdpd {
        /// The first axis of the first input the second one covers.
        axis: i64,
    },
}

impl AutoBroadcast {
    /// Read an `auto_broadcast` name in any case: `numpy`, `none`, or `pdpd` (with
    /// the default axis -1; OpenVINO reads its `axis` attribute); `None` for
    /// anything else. Each front end says which modes its spec allows.
    pub fn parse(s: &str) -> Option<AutoBroadcast> {
        match s.to_ascii_lowercase().as_str() {
            "numpy" => Some(AutoBroadcast::Numpy),
            "none" => Some(AutoBroadcast::None),
            "pdpd" => Some(AutoBroadcast::Pdpd { axis: -1 }),
            _ => None,
        }
    }
}

/// The output shape of an elementwise op on shapes `a` and `b` under `mode`.
pub fn auto_broadcast_shapes(
    ctx: &mut ShapesContext,
    node: &Node,
    mode: AutoBroadcast,
    a: &[Dim],
    b: &[Dim],
) -> Result<Vec<Dim>, OpError> {
    match mode {
        AutoBroadcast::Numpy => broadcast_shapes(ctx, &node.name, a, b),
        AutoBroadcast::None => same_shapes(ctx, node, a, b),
        AutoBroadcast::Pdpd { axis } => {
            if b.len() > a.len() {
                return Err(OpError::Rank {
                    of: Box::new("input 1 (pdpd broadcast)".into()),
                    expected: Expected::AtMost(a.len()),
                    found: b.len(),
                });
            }
            let start = if axis < 0 {
                a.len() - b.len()
            } else {
                usize::try_from(axis).unwrap_or(usize::MAX)
            };
            if start.saturating_add(b.len()) > a.len() {
                return Err(OpError::AxisOutOfRange {
                    axis,
                    rank: a.len(),
                });
            }
            for (i, d) in b.iter().enumerate() {
                if ctx.alg.as_i64(*d) != Some(1) {
                    merge_dim_as(
                        ctx,
                        node,
                        DimRole::AtAxis {
                            what: "pdpd broadcast axis",
                            axis: start + i,
                        },
                        a[start + i],
                        *d,
                    )?;
                }
            }
            Ok(a.to_vec())
        }
    }
}

/// Unidirectional broadcasting: `shape` must broadcast to `target` without
/// changing it (a rank above the target's is an error naming `what`).
pub fn check_broadcasts_to(
    ctx: &mut ShapesContext,
    node: &str,
    target: &[Dim],
    shape: &[Dim],
    what: &'static str,
) -> Result<(), OpError> {
    let out = broadcast_shapes(ctx, node, target, shape)?;
    if out.len() != target.len() {
        return Err(OpError::Rank {
            of: Box::new(what.into()),
            expected: Expected::AtMost(target.len()),
            found: shape.len(),
        });
    }
    Ok(())
}

/// Broadcast two shapes. `node` names the node for the relations recorded.
pub fn broadcast_shapes(
    ctx: &mut ShapesContext,
    node: &str,
    a: &[Dim],
    b: &[Dim],
) -> Result<Vec<Dim>, OpError> {
    let n = a.len().max(b.len());
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let x = (i + a.len()).checked_sub(n).map(|j| a[j]);
        let y = (i + b.len()).checked_sub(n).map(|j| b[j]);
        out.push(match (x, y) {
            (Some(x), Some(y)) => broadcast_dim(ctx, node, i, x, y)?,
            (Some(x), None) => x,
            (None, Some(y)) => y,
            (None, None) => unreachable!("i < max(len)"),
        });
    }
    Ok(out)
}

/// Broadcast two dims (see the module doc). `axis` is for messages.
pub fn broadcast_dim(
    ctx: &mut ShapesContext,
    node: &str,
    axis: usize,
    x: Dim,
    y: Dim,
) -> Result<Dim, OpError> {
    if ctx.alg.egraph().find(x.id()) == ctx.alg.egraph().find(y.id()) {
        return Ok(x);
    }
    let one = Rat::one();
    let x_not_one = !ctx.alg.bounds(x).contains(&one);
    let y_not_one = !ctx.alg.bounds(y).contains(&one);
    if x_not_one && y_not_one {
        let dims = || DimRole::Broadcasting { axis };
        return Ok(require_equal(ctx, node, &dims, x, y)?.0);
    }
    Ok(ctx.alg.broadcast(x, y))
}

/// Numpy broadcasting of any number of shapes (`None` when a rank is
/// unknown). Built on [`broadcast_shapes`].
pub fn broadcast_all(
    ctx: &mut ShapesContext,
    node: &Node,
    shapes: &[Option<Vec<Dim>>],
) -> Result<Option<Vec<Dim>>, OpError> {
    let mut acc: Vec<Dim> = Vec::new();
    for s in shapes {
        let Some(s) = s else { return Ok(None) };
        acc = broadcast_shapes(ctx, &node.name, &acc, s)?;
    }
    Ok(Some(acc))
}

/// Shapes that must be equal (`auto_broadcast = none`), dim by dim.
pub fn same_shapes(
    ctx: &mut ShapesContext,
    node: &Node,
    a: &[Dim],
    b: &[Dim],
) -> Result<Vec<Dim>, OpError> {
    if a.len() != b.len() {
        return Err(OpError::Rank {
            of: Box::new("input 1 (auto_broadcast none needs equal shapes)".into()),
            expected: Expected::Exactly(a.len()),
            found: b.len(),
        });
    }
    a.iter()
        .zip(b)
        .enumerate()
        .map(|(i, (x, y))| merge_dim_as(ctx, node, DimRole::axis(i, "inputs 0 and 1"), *x, *y))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algebra::Truth;

    fn shape(ctx: &mut ShapesContext, dims: &[&str]) -> Vec<Dim> {
        dims.iter().map(|d| ctx.alg.parse(d).unwrap()).collect()
    }

    fn render(ctx: &ShapesContext, dims: &[Dim]) -> String {
        ctx.render_dims(dims)
    }

    #[test]
    fn numpy_rules() {
        let mut ctx = ShapesContext::default();
        let a = shape(&mut ctx, &["N", "1", "S"]);
        let b = shape(&mut ctx, &["12", "1"]);
        let r = broadcast_shapes(&mut ctx, "n", &a, &b).unwrap();
        assert_eq!(render(&ctx, &r), "[N, 12, S]");
        let c = shape(&mut ctx, &["3"]);
        let d = shape(&mut ctx, &["5"]);
        assert!(matches!(
            broadcast_shapes(&mut ctx, "n", &c, &d),
            Err(OpError::DimMismatch { .. })
        ));
        // S vs T: either may be 1
        let e = shape(&mut ctx, &["S"]);
        let f = shape(&mut ctx, &["T"]);
        let r = broadcast_shapes(&mut ctx, "n", &e, &f).unwrap();
        // both are input symbols (>= 1): the larger, whichever is 1
        assert_eq!(render(&ctx, &r), "[max(S, T)]");
        // S + 1 vs T + 1: neither is 1, so a valid model has S == T
        let g = shape(&mut ctx, &["S + 1"]);
        let h = shape(&mut ctx, &["T + 1"]);
        let r = broadcast_shapes(&mut ctx, "n", &g, &h).unwrap();
        assert_eq!(render(&ctx, &r), "[S + 1]");
        let s = ctx.alg.parse("S").unwrap();
        let t = ctx.alg.parse("T").unwrap();
        assert_eq!(ctx.alg.equal(s, t), Truth::True);
        assert_eq!(ctx.alg.relations().len(), 1);
    }
}
