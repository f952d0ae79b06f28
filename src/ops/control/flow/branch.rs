//! ONNX `If`: the branch that runs when the condition is known, else both, merged
//! dim by dim (sequences and optionals too).

use super::merge::{merge, merge_composites};
use super::{emit_values, graph_attr, subgraph_values};
use crate::context::{AttrProblem, AttrValue};
use crate::context::{OpError, ShapesContext, SubgraphValue, TensorFact};
use crate::graph::{DType, Graph, Node};

pub(super) fn if_rule(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let cond = ctx.input(node, 0, "cond")?;
    let then_g = graph_attr(node, "then_branch")?;
    let else_g = graph_attr(node, "else_branch")?;
    let all: Vec<Option<usize>> = (0..node.outputs.len()).map(Some).collect();
    let then_b = Branch {
        graph: then_g,
        inputs: Vec::new(),
        outputs: all.clone(),
        name: "then_branch",
    };
    let else_b = Branch {
        graph: else_g,
        inputs: Vec::new(),
        outputs: all,
        name: "else_branch",
    };
    let outs = run_if(ctx, node, &cond, then_b, else_b, true)?;
    Ok(emit_values(ctx, node, outs))
}

/// One branch of an If: its graph, the facts of its inputs, and for each output of
/// the node the branch output it comes from.
pub(super) struct Branch<'g> {
    pub(super) graph: &'g Graph,
    pub(super) inputs: Vec<TensorFact>,
    pub(super) outputs: Vec<Option<usize>>,
    pub(super) name: &'static str,
}

/// The outputs of an If node of condition `cond` (the ONNX and OpenVINO rules), with
/// their sequence and optional facts.
/// `same_outputs`: the branches must have the same number of outputs, at least the
/// node's (ONNX).
pub(super) fn run_if(
    ctx: &mut ShapesContext,
    node: &Node,
    cond: &TensorFact,
    then_b: Branch<'_>,
    else_b: Branch<'_>,
    same_outputs: bool,
) -> Result<Vec<SubgraphValue>, OpError> {
    let known = cond
        .value
        .as_ref()
        .and_then(|v| v.first())
        .and_then(|d| ctx.alg.as_i64(*d));
    let pick = |b: &Branch<'_>, outs: &[SubgraphValue]| -> Result<Vec<SubgraphValue>, OpError> {
        b.outputs
            .iter()
            .map(|o| match o {
                Some(i) => outs.get(*i).cloned().ok_or_else(|| OpError::BadAttribute {
                    name: b.name,
                    value: AttrValue::Graph(b.graph.name.clone()),
                    why: Box::new(AttrProblem::BranchOutputs {
                        branch: outs.len(),
                        node: node.outputs.len(),
                    }),
                }),
                None => Ok(SubgraphValue::tensor(TensorFact::unknown(DType::Undefined))),
            })
            .collect()
    };
    let run = |ctx: &mut ShapesContext, b: &Branch<'_>| {
        let inputs: Vec<SubgraphValue> = b
            .inputs
            .iter()
            .cloned()
            .map(SubgraphValue::tensor)
            .collect();
        subgraph_values(ctx, b.graph, &inputs, b.name)
    };
    // A decided condition: only the branch that runs is inferred (the other may
    // hold ops that are invalid exactly when it does not run).
    match known {
        Some(0) => {
            let outs = run(ctx, &else_b)?;
            return pick(&else_b, &outs);
        }
        Some(_) => {
            let outs = run(ctx, &then_b)?;
            return pick(&then_b, &outs);
        }
        None => {}
    }
    // Undecided: each branch's equalities hold only when it runs, recorded under this
    // node's name (inner nodes name themselves).
    let outer = ctx.alg.set_site(&node.name);
    ctx.alg.speculate(true);
    let then_out = run(ctx, &then_b);
    let else_out = run(ctx, &else_b);
    ctx.alg.speculate(false);
    ctx.alg.set_site(&outer);
    let (then_out, else_out) = (then_out?, else_out?);
    if same_outputs && (then_out.len() != else_out.len() || then_out.len() < node.outputs.len()) {
        return Err(OpError::BadAttribute {
            name: "else_branch",
            value: AttrValue::Graph(else_b.graph.name.clone()),
            why: Box::new(AttrProblem::BranchesOutputs {
                then_branch: then_out.len(),
                else_branch: else_out.len(),
                node: node.outputs.len(),
            }),
        });
    }
    let (a, b) = (pick(&then_b, &then_out)?, pick(&else_b, &else_out)?);
    Ok(a.iter()
        .zip(&b)
        .enumerate()
        .map(|(i, (a, b))| SubgraphValue {
            fact: merge(ctx, node, i, &a.fact, &b.fact, true),
            composite: merge_composites(ctx, node, i, a, b),
        })
        .collect())
}
