//! Before any node runs: the constants (an unreadable one is an error, one of a
//! rank past the limit a warning), the graph inputs' declared dims as symbols and
//! constants, and the caller's input dims and facts.

use super::{model_diagnostic, model_diagnostic_cause};
use crate::algebra::{Dim, Expr, Fact, Rat, Rel};
use crate::context::facts::{FactsError, InputDimError};
use crate::context::{
    const_fact, node_context, Cause, Severity, ShapesContext, TensorFact, MAX_RANK,
};
use crate::graph::{ConstData, DeclDim, Graph, ValueDecl};

/// One error per constant whose values could not be read ([`ConstData::Unreadable`])
/// and one warning per constant of a rank above [`MAX_RANK`] (whose rank
/// [`const_fact`] takes as unknown): initializers and tensor attributes (a
/// `Constant`'s `value`) of `g` and of its subgraphs, each reported once, naming the
/// tensor and why.
pub(super) fn report_constants(ctx: &mut ShapesContext, g: &Graph) {
    // Breadth first, in file order.
    let mut graphs = vec![(g, true)];
    let mut next = 0;
    while let Some(&(g, main)) = graphs.get(next) {
        next += 1;
        let of_graph = if main {
            String::new()
        } else {
            format!(" of subgraph `{}`", g.name)
        };
        for (name, t) in &g.initializers {
            if let ConstData::Unreadable { reason } = &t.data {
                let msg = format!(
                    "initializer `{name}`{of_graph}: its data cannot be read ({reason}); its values are unknown"
                );
                model_diagnostic(ctx, Severity::Error, msg);
            }
            if t.dims.len() > MAX_RANK {
                let what = format!("initializer{of_graph}");
                let msg = rank_limit_message(&what, name, t.dims.len());
                model_diagnostic(ctx, Severity::Warning, msg);
            }
        }
        for node in &g.nodes {
            for (attr, value) in node.attrs.iter() {
                match value {
                    crate::graph::Attr::Tensor(t) => {
                        if let ConstData::Unreadable { reason } = &t.data {
                            let msg = format!(
                                "{}: tensor attribute `{attr}`{of_graph}: its data cannot be read ({reason}); its values are unknown",
                                node_context(node)
                            );
                            ctx.diagnose(Severity::Error, node, msg);
                        }
                        if t.dims.len() > MAX_RANK {
                            let msg = format!(
                                "{}: {}",
                                node_context(node),
                                rank_limit_message(
                                    &format!("tensor attribute{of_graph}"),
                                    attr,
                                    t.dims.len()
                                )
                            );
                            ctx.diagnose(Severity::Warning, node, msg);
                        }
                    }
                    crate::graph::Attr::Graph(sub) => graphs.push((sub, false)),
                    crate::graph::Attr::Graphs(subs) => {
                        graphs.extend(subs.iter().map(|sub| (sub, false)));
                    }
                    _ => {}
                }
            }
        }
    }
}

/// The dims of a declared tensor `v` (`what`: `input`, ...), or `None` when its rank is
/// unknown or above [`MAX_RANK`]: a declared rank is capped like a computed one (a
/// model declaring two rank-5,000 inputs would otherwise build and broadcast 5,000
/// dims each), with a warning naming the limit.
pub(super) fn declared_shape(
    ctx: &mut ShapesContext,
    v: &ValueDecl,
    what: &str,
) -> Option<Vec<Dim>> {
    let dims = v.shape.as_ref()?;
    if dims.len() > MAX_RANK {
        model_diagnostic(
            ctx,
            Severity::Warning,
            rank_limit_message(what, &v.name, dims.len()),
        );
        return None;
    }
    Some(decl_dims(ctx, &v.name, dims))
}

/// The warning for a declared rank above [`MAX_RANK`].
fn rank_limit_message(what: &str, name: &str, rank: usize) -> String {
    format!(
        "{what} `{name}` is declared with rank {rank}, above the rank limit of {MAX_RANK}; its rank is taken as unknown"
    )
}

/// A declared dim's text: its expression when it parses into a defined value, else a
/// symbol named by the text.
pub(super) fn param_dim(ctx: &mut ShapesContext, p: &str) -> Dim {
    ctx.alg.parse(p).unwrap_or_else(|_| ctx.alg.input(p))
}

/// Dims of a declared shape; unnamed dynamic dims become `<tensor>.<axis>` symbols.
fn decl_dims(ctx: &mut ShapesContext, tensor: &str, dims: &[DeclDim]) -> Vec<Dim> {
    dims.iter()
        .enumerate()
        .map(|(axis, d)| match d {
            DeclDim::Value(v) => ctx.alg.constant(*v),
            DeclDim::Param(p) => param_dim(ctx, p),
            DeclDim::Unknown => ctx.alg.input(&format!("{tensor}.{axis}")),
            DeclDim::Interval { lo, hi } => {
                let name = format!("{tensor}.{axis}");
                let s = ctx.alg.input(&name);
                // A declared bound that contradicts another is left out (the symbol
                // keeps the bounds it had).
                let _ = ctx.alg.assume_fact(&symbol_bound(&name, Rel::Ge, *lo));
                if let Some(hi) = hi {
                    let _ = ctx.alg.assume_fact(&symbol_bound(&name, Rel::Le, *hi));
                }
                s
            }
        })
        .collect()
}

/// The fact `name rel value` about a symbol.
fn symbol_bound(name: &str, rel: Rel, value: i64) -> Fact {
    Fact {
        lhs: Expr::Sym(name.to_string()),
        rel,
        rhs: Expr::Num(Rat::int(value)),
    }
}

pub(super) fn declare_inputs(ctx: &mut ShapesContext, g: &Graph) {
    for (name, t) in &g.initializers {
        // Interrupted (`Config::interrupt`): the rest are unknown, the result dropped.
        let fact = if ctx.alg.interrupted() {
            TensorFact::unknown(t.dtype)
        } else {
            const_fact(&mut ctx.alg, t)
        };
        ctx.insert(name, fact);
    }
    for v in &g.inputs {
        let shape = declared_shape(ctx, v, "input");
        ctx.insert(
            &v.name,
            TensorFact {
                fill: None,
                dtype: v.dtype,
                shape,
                value: None,
            },
        );
    }
}

/// Record why a fact of the caller cannot be used (an error; the fact is left out).
pub(super) fn facts_error(ctx: &mut ShapesContext, e: FactsError) {
    let msg = e.to_string();
    model_diagnostic_cause(ctx, Severity::Error, msg, Some(Cause::Facts(e)));
}

/// Record why an input dim the caller set cannot be applied (an error).
fn input_dim_error(ctx: &mut ShapesContext, e: InputDimError) {
    facts_error(ctx, FactsError::InputDim(e));
}

/// Replace the declared dims of graph inputs by the caller's ([`crate::context::facts::InputDim`]);
/// one naming no input, an axis past the rank or an input of unknown rank
/// ([`crate::context::facts::InputDim::check`]) is an error diagnostic.
pub(super) fn override_inputs(
    ctx: &mut ShapesContext,
    g: &Graph,
    inputs: &[crate::context::facts::InputDim],
) {
    for o in inputs {
        if let Err(e) = o.check(g) {
            input_dim_error(ctx, e);
            continue;
        }
        let (tensor, axis) = (o.tensor.clone(), o.axis);
        let Some(v) = g.inputs.iter().find(|v| *v.name == *o.tensor) else {
            continue;
        };
        // The checks again, against the input's facts: of a graph that declares the
        // name twice, the context holds the last declaration.
        let Some(mut shape) = ctx.get(&v.name).and_then(|f| f.shape.clone()) else {
            input_dim_error(ctx, InputDimError::UnknownRank { tensor, axis });
            continue;
        };
        if o.axis >= shape.len() {
            let rank = shape.len();
            input_dim_error(ctx, InputDimError::AxisPastRank { tensor, axis, rank });
            continue;
        }
        shape[o.axis] = decl_dims(ctx, &v.name, std::slice::from_ref(&o.dim))[0];
        let dtype = v.dtype;
        ctx.insert(
            &v.name,
            TensorFact {
                fill: None,
                dtype,
                shape: Some(shape),
                value: None,
            },
        );
    }
}
