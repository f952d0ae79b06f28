//! Declared shapes (`value_info`, graph outputs): what an output takes when its rule
//! fails or leaves its rank unknown, and the check of inferred shapes against them.

use super::inputs::param_dim;
use super::model_diagnostic;
use crate::algebra::{SymbolKind, Truth};
use crate::context::{Severity, ShapesContext, TensorFact, MAX_RANK};
use crate::graph::{DeclDim, Graph, Name, Node, ValueDecl};
use rustc_hash::FxHashMap as HashMap;

/// The shapes a graph declares for its tensors (value_info and outputs), by name.
pub(super) fn declared_of(g: &Graph) -> HashMap<&Name, &ValueDecl> {
    // A declaration with a shape wins over one without (a graph output is often
    // declared without a shape and again, with one, in value_info).
    let mut declared: HashMap<&Name, &ValueDecl> = HashMap::default();
    for v in g.value_info.iter().chain(g.outputs.iter()) {
        let slot = declared.entry(&v.name).or_insert(v);
        if slot.shape.is_none() {
            *slot = v;
        }
    }
    declared
}

/// Outputs of a node that could not be inferred: the declared shape, or none.
pub(super) fn fallback(
    ctx: &mut ShapesContext,
    node: &Node,
    declared: &HashMap<&Name, &ValueDecl>,
    failed: bool,
) -> Vec<TensorFact> {
    node.outputs
        .iter()
        .enumerate()
        .map(|(i, out)| match declared.get(out) {
            Some(v) => declared_fact(ctx, node, i, v),
            None => match failed_rank(ctx, node) {
                // A node whose rule failed but whose output rank the op fixes: fresh
                // dims of that rank, so its consumers are still inferred.
                Some((rank, dtype)) if failed => {
                    let kind = SymbolKind::DataDependent {
                        node: node.name.clone(),
                    };
                    let dims = (0..rank)
                        .map(|axis| ctx.fresh_dim(node, i, axis, "unk", kind.clone()))
                        .collect();
                    TensorFact::new(dtype, dims)
                }
                _ => TensorFact::unknown(crate::graph::DType::Undefined),
            },
        })
        .collect()
}

/// The fact of output `i` of `node` as the model declares it (`v`): a `dim_value` is a
/// constant, a `dim_param` an expression, an unnamed dim a fresh symbol of the data
/// (`unk`); a rank above [`MAX_RANK`] is unknown.
pub(super) fn declared_fact(
    ctx: &mut ShapesContext,
    node: &Node,
    i: usize,
    v: &ValueDecl,
) -> TensorFact {
    let dims = v.shape.as_ref().filter(|dims| dims.len() <= MAX_RANK);
    let shape = dims.map(|dims| {
        dims.iter()
            .enumerate()
            .map(|(axis, d)| match d {
                DeclDim::Value(x) => ctx.alg.constant(*x),
                DeclDim::Param(p) => param_dim(ctx, p),
                _ => {
                    let kind = SymbolKind::DataDependent {
                        node: node.name.clone(),
                    };
                    ctx.fresh_dim(node, i, axis, "unk", kind)
                }
            })
            .collect()
    });
    TensorFact {
        fill: None,
        dtype: v.dtype,
        shape,
        value: None,
    }
}

/// The output rank (and element type) an op fixes whatever its operands' dims: the
/// rank of input 0 for rank-preserving ops, the broadcast rank of elementwise ops,
/// the target length of Reshape. `None` when it cannot be told.
fn failed_rank(ctx: &ShapesContext, node: &Node) -> Option<(usize, crate::graph::DType)> {
    use crate::graph::DType;
    if !node.domain.is_empty() {
        return None;
    }
    let rank_of = |i: usize| {
        node.input(i)
            .and_then(|n| ctx.get(n))
            .and_then(|f| f.rank())
    };
    let dtype_of = |i: usize| {
        node.input(i)
            .and_then(|n| ctx.get(n))
            .map_or(DType::Undefined, |f| f.dtype)
    };
    let op = node.op_type.as_str();
    match op {
        "Relu"
        | "Sigmoid"
        | "Tanh"
        | "Softmax"
        | "LogSoftmax"
        | "Identity"
        | "Dropout"
        | "LayerNormalization"
        | "BatchNormalization"
        | "InstanceNormalization"
        | "Pad"
        | "Slice"
        | "Transpose"
        | "Conv"
        | "ConvTranspose"
        | "MaxPool"
        | "AveragePool"
        | "Resize"
        | "Split"
        | "Concat"
        | "Clip"
        | "Erf"
        | "Gelu"
        | "Abs"
        | "Neg"
        | "Sqrt"
        | "Exp"
        | "Log"
        | "CumSum"
        | "Tile"
        | "LeakyRelu"
        | "HardSigmoid"
        | "Softplus" => Some((rank_of(0)?, dtype_of(0))),
        "Add" | "Sub" | "Mul" | "Div" | "Pow" | "Mod" | "Max" | "Min" | "Sum" | "Mean"
        | "PRelu" | "Equal" | "Less" | "Greater" | "LessOrEqual" | "GreaterOrEqual" | "And"
        | "Or" | "Xor" | "Where" => {
            let ranks: Option<Vec<usize>> = (0..node.inputs.len()).map(rank_of).collect();
            let rank = ranks?.into_iter().max()?;
            let dtype = match op {
                "Equal" | "Less" | "Greater" | "LessOrEqual" | "GreaterOrEqual" | "And" | "Or"
                | "Xor" => DType::Bool,
                "Where" => dtype_of(1),
                _ => dtype_of(0),
            };
            Some((rank, dtype))
        }
        "MatMul" => {
            let (a, b) = (rank_of(0)?, rank_of(1)?);
            (a >= 2 && b >= 2).then_some((a.max(b), dtype_of(0)))
        }
        "Reshape" => {
            let target = ctx.get(node.input(1)?)?;
            Some((target.static_len(&ctx.alg)?, dtype_of(0)))
        }
        _ => None,
    }
}

/// Compare declared shapes with inferred ones; report provable contradictions.
pub(super) fn check_declared(ctx: &mut ShapesContext, decls: &[ValueDecl], what: &str) {
    for v in decls {
        let Some(fact) = ctx.get(&v.name).cloned() else {
            continue;
        };
        let (Some(dshape), Some(ishape)) = (&v.shape, &fact.shape) else {
            continue;
        };
        // The texts are for the messages only: rendered when there is one.
        if dshape.len() != ishape.len() {
            let msg = format!(
                "{what} `{}` is declared {} but inferred {} (rank {} vs {})",
                v.name,
                render_decl(dshape),
                ctx.render_dims(ishape),
                dshape.len(),
                ishape.len()
            );
            model_diagnostic(ctx, Severity::Error, msg);
            continue;
        }
        for (axis, (d, i)) in dshape.iter().zip(ishape).enumerate() {
            if let DeclDim::Value(x) = d {
                let c = ctx.alg.constant(*x);
                if ctx.alg.equal(c, *i) == Truth::False {
                    let msg = format!(
                        "{what} `{}` is declared {} but inferred {} (axis {axis}: {x} != {})",
                        v.name,
                        render_decl(dshape),
                        ctx.render_dims(ishape),
                        ctx.alg.render(*i)
                    );
                    model_diagnostic(ctx, Severity::Error, msg);
                    break;
                }
            }
        }
    }
}

fn render_decl(dims: &[DeclDim]) -> String {
    let parts: Vec<String> = dims
        .iter()
        .map(|d| match d {
            DeclDim::Value(v) => v.to_string(),
            DeclDim::Param(p) => p.clone(),
            DeclDim::Unknown => "?".to_string(),
            DeclDim::Interval { lo, hi: Some(hi) } => format!("{lo}..{hi}"),
            DeclDim::Interval { lo, hi: None } => format!("{lo}.."),
        })
        .collect();
    format!("[{}]", parts.join(", "))
}
