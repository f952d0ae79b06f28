//! Losses: ONNX `NegativeLogLikelihoodLoss` and `SoftmaxCrossEntropyLoss`.
//!
//! Spec: the ONNX operator reference (`NegativeLogLikelihoodLoss`,
//! `SoftmaxCrossEntropyLoss`).
//!
//! Both take class scores `[N, C, D1..Dk]` (`k >= 0`; log-probabilities for NLL,
//! raw scores for the softmax loss) and integer targets `[N, D1..Dk]` (int32 or
//! int64), and an optional per-class weight `[C]`. The loss is `[N, D1..Dk]` with
//! `reduction = none`, a scalar `[]` with `mean` (the default) or `sum`
//! ([`loss_shape`]). `SoftmaxCrossEntropyLoss`'s optional second output,
//! `log_prob`, has the scores' shape. The dims the inputs share are equated; the
//! types are the scores'.
//!
//! # Version history
//! * ONNX **NegativeLogLikelihoodLoss**: 12; 13 (bf16 and the rest of the float
//!   types); 22 (types).
//! * ONNX **SoftmaxCrossEntropyLoss**: 12; 13 (bf16 and the rest of the float types).

use crate::algebra::Dim;
use crate::context::DimRole;
use crate::context::{Allowed, Expected, OpError, ShapesContext, TensorFact};
use crate::context::{AttrProblem, AttrValue};
use crate::graph::{DType, Node};
use crate::ops::common::attrs::attr_str_or;
use crate::ops::common::check_inputs;
use crate::ops::common::dims::{check_vector, rank_of, unify_as, Equate};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"], loss),
];

/// How a loss is reduced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// One loss per target element.
    None,
    /// The (weighted) mean: a scalar.
    Mean,
    /// The sum: a scalar.
    Sum,
}

impl Reduction {
    /// The `reduction` attribute (`mean` when absent).
    pub fn of(node: &Node) -> Result<Reduction, OpError> {
        match attr_str_or(node, "reduction", "mean")? {
            "none" => Ok(Reduction::None),
            "mean" => Ok(Reduction::Mean),
            "sum" => Ok(Reduction::Sum),
            other => Err(OpError::BadAttribute {
                name: "reduction",
                value: AttrValue::Word(other.to_string()),
                why: Box::new(AttrProblem::one_of(&["none", "mean", "sum"])),
            }),
        }
    }
}

/// The loss shape from the scores `[N, C, D...]` and the targets `[N, D...]`
/// (either may be of unknown rank, `None`): the targets' dims (equated with the
/// scores' `N, D...`) unreduced, `[]` reduced. Returns the per-element dims too
/// (`None` when neither rank is known).
pub fn loss_shape(
    ctx: &mut ShapesContext,
    node: &Node,
    scores: Option<&[Dim]>,
    target: Option<&[Dim]>,
) -> Result<Option<Vec<Dim>>, OpError> {
    if let Some(s) = scores {
        if s.len() < 2 {
            return Err(rank_of("scores", Expected::AtLeast(2), s.len()));
        }
    }
    let elems = match (scores, target) {
        (Some(s), Some(t)) => {
            if t.len() + 1 != s.len() {
                return Err(rank_of(
                    "target",
                    Expected::Exactly(s.len() - 1).noted("the scores' rank less one"),
                    t.len(),
                ));
            }
            let mut out = Vec::with_capacity(t.len());
            for (i, &d) in t.iter().enumerate() {
                let sd = if i == 0 { s[0] } else { s[i + 1] };
                out.push(unify_as(
                    ctx,
                    node,
                    DimRole::axis(i, ("target", "scores")),
                    d,
                    sd,
                )?);
            }
            Some(out)
        }
        (Some(s), None) => Some(
            std::iter::once(s[0])
                .chain(s[2..].iter().copied())
                .collect(),
        ),
        (None, Some(t)) => Some(t.to_vec()),
        (None, None) => None,
    };
    Ok(elems)
}

/// ONNX `NegativeLogLikelihoodLoss` (12, 13, 22) and `SoftmaxCrossEntropyLoss`
/// (12, 13).
fn loss(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 3)?;
    let scores = ctx.input(node, 0, "scores")?;
    let target = ctx.input(node, 1, "target")?;
    let reduction = Reduction::of(node)?;
    if !matches!(target.dtype, DType::Int32 | DType::Int64 | DType::Undefined) {
        return Err(OpError::UnsupportedType {
            dtype: target.dtype,
            what: "target",
            allowed: Allowed::OnnxTypes(vec![DType::Int32, DType::Int64]),
        });
    }
    let elems = loss_shape(ctx, node, scores.shape.as_deref(), target.shape.as_deref())?;
    if let (Some(w), Some(s)) = (ctx.optional_input(node, 2)?, scores.shape.as_deref()) {
        check_vector(ctx, node, &w, "weight", s[1], Equate::Warn)?;
    }
    let out = match reduction {
        Reduction::None => elems,
        Reduction::Mean | Reduction::Sum => Some(Vec::new()),
    };
    let mut facts = vec![crate::ops::common::dims::shaped(scores.dtype, out)];
    if node.op_type == "SoftmaxCrossEntropyLoss" && node.outputs.len() > 1 {
        facts.push(crate::ops::common::dims::shaped(
            scores.dtype,
            scores.shape.clone(),
        ));
    }
    Ok(facts)
}
