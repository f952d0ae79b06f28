//! The profile on tensors: each graph input's min/opt/max shapes, and every
//! tensor's dim bounds and largest size over the profile box.
//!
//! The bounds come from a copy of the inference algebra holding `min <= s <= max`
//! for every symbol ([`crate::algebra::Algebra::bounds`]: sound, and exact for
//! dims monotone in each symbol, such as products and sums of symbols). A size in
//! bytes is the element size times the product of the dims' upper bounds: it
//! bounds every size inside the box (dims are `>= 0`); `at_max` says when it is the
//! size at the max point too.

use super::solve::Values;
use super::{DimBound, InputProfile, TensorBound};
use crate::algebra::{Expr, Fact, Rat, Rel};
use crate::context::ShapesContext;
use crate::graph::Model;
use indexmap::IndexMap;

/// Each graph input's shapes at the min, opt and max values.
pub(super) fn input_profiles(
    model: &Model,
    ctx: &ShapesContext,
    values: &Values,
) -> Vec<InputProfile> {
    let shape_at = |name: &str, at: &IndexMap<String, Rat>| -> Option<Vec<i64>> {
        let dims = ctx.get(name)?.shape.as_ref()?;
        dims.iter()
            .map(|d| {
                ctx.alg
                    .eval(*d, &|s: &str| at.get(s).cloned())
                    .and_then(|v| v.to_i64())
            })
            .collect()
    };
    model
        .graph
        .inputs
        .iter()
        .map(|v| InputProfile {
            name: v.name.to_string(),
            min: shape_at(&v.name, &values.min),
            opt: shape_at(&v.name, &values.opt),
            max: shape_at(&v.name, &values.max),
        })
        .collect()
}

/// Every tensor of the main graph (inputs, then node outputs, each once) over the
/// box, and the sum of their largest sizes (`None` when one has none).
pub(super) fn bounds(
    model: &Model,
    ctx: &ShapesContext,
    values: &Values,
) -> (Vec<TensorBound>, Option<i64>) {
    let mut alg = ctx.alg.clone();
    for (s, v) in &values.min {
        let _ = alg.assume_fact(&Fact {
            lhs: Expr::Sym(s.clone()),
            rel: Rel::Ge,
            rhs: Expr::Num(v.clone()),
        });
    }
    for (s, v) in &values.max {
        let _ = alg.assume_fact(&Fact {
            lhs: Expr::Sym(s.clone()),
            rel: Rel::Le,
            rhs: Expr::Num(v.clone()),
        });
    }
    let g = &model.graph;
    let mut seen = std::collections::HashSet::new();
    let names = g
        .inputs
        .iter()
        .map(|v| &*v.name)
        .chain(g.nodes.iter().flat_map(|n| n.outputs.iter().map(|s| &**s)))
        .filter(|n| !n.is_empty() && seen.insert(*n));
    let mut out = Vec::new();
    let mut total = Some(Rat::zero());
    for name in names {
        let Some(f) = ctx.get(name) else { continue };
        let dims = f.shape.as_ref().map(|dims| {
            dims.iter()
                .map(|d| {
                    let b = alg.bounds(*d).to_integers();
                    (b, *d)
                })
                .collect::<Vec<_>>()
        });
        let bits = f.dtype.bit_width();
        let mut bytes = None;
        let mut at_max = false;
        if let (Some(dims), Some(bits)) = (&dims, bits) {
            let his: Option<Vec<Rat>> = dims.iter().map(|(b, _)| b.hi().cloned()).collect();
            if let Some(his) = his {
                let elems = his.iter().fold(Rat::one(), |acc, h| acc.mul(h));
                bytes = elems
                    .mul(&Rat::int(i64::from(bits)))
                    .div(&Rat::int(8))
                    .map(|b| b.ceil());
                at_max = dims.iter().zip(&his).all(|((_, d), h)| {
                    ctx.alg
                        .eval(*d, &|s: &str| values.max.get(s).cloned())
                        .as_ref()
                        == Some(h)
                });
            }
        }
        total = match (total, &bytes) {
            (Some(t), Some(b)) => Some(t.add(b)),
            _ => None,
        };
        let int = |r: Option<&Rat>| r.and_then(|r| r.to_i64());
        out.push(TensorBound {
            name: name.to_string(),
            dtype: f.dtype.short_name().to_string(),
            dims: dims.map(|dims| {
                dims.iter()
                    .map(|(b, _)| DimBound {
                        lo: int(b.lo()),
                        hi: int(b.hi()),
                    })
                    .collect()
            }),
            max_bytes: bytes.as_ref().and_then(|b| b.to_i64()),
            at_max,
        });
    }
    (out, total.and_then(|t| t.to_i64()))
}
