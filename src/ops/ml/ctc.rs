//! Sequence decoding and losses: OpenVINO `CTCGreedyDecoder`,
//! `CTCGreedyDecoderSeqLen` and `CTCLoss`.
//!
//! Spec: the OpenVINO operation specification (`CTCGreedyDecoder-1`,
//! `CTCGreedyDecoderSeqLen-6`, `CTCLoss-4`).
//!
//! * `CTCGreedyDecoder`: `data [T, N, C]`, `sequence_mask [T, N]` give `[N, T, 1,
//!   1]` of the data's type.
//! * `CTCGreedyDecoderSeqLen`: `data [N, T, C]`, `sequence_length [N]` give the
//!   decoded classes `[N, T]` (`classes_index_type`, i32 by default) and their
//!   lengths `[N]` (`sequence_length_type`, i32 by default).
//! * `CTCLoss`: `logits [N, T, C]` give `[N]`.
//!
//! The batch and time dims the inputs share are equated.
//!
//! # Version history
//! * OpenVINO **CTCGreedyDecoder**: 1. **CTCGreedyDecoderSeqLen**: 6. **CTCLoss**:
//!   4.

use crate::context::DimRole;
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};
use crate::ops::common::attrs::ov_dtype;
use crate::ops::common::check_inputs;
use crate::ops::common::dims::{expect_rank, fresh_or, merge_dim_as};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("openvino", ["CTCGreedyDecoder"], ov_ctc_greedy_decoder),
    ("openvino", ["CTCGreedyDecoderSeqLen"], ov_ctc_greedy_decoder_seq_len),
    ("openvino", ["CTCLoss"], ov_ctc_loss),
];

/// OpenVINO `CTCGreedyDecoder-1`.
fn ov_ctc_greedy_decoder(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "data")?;
    let mask = ctx.input(node, 1, "sequence_mask")?;
    let (mut t, mut n) = (None, None);
    if let Some(s) = &x.shape {
        expect_rank("data", s, 3)?;
        (t, n) = (Some(s[0]), Some(s[1]));
    }
    if let Some(m) = &mask.shape {
        expect_rank("sequence_mask", m, 2)?;
        t = Some(match t {
            Some(t) => merge_dim_as(
                ctx,
                node,
                DimRole::of("T", ("data", "sequence_mask")),
                t,
                m[0],
            )?,
            None => m[0],
        });
        n = Some(match n {
            Some(n) => merge_dim_as(
                ctx,
                node,
                DimRole::of("N", ("data", "sequence_mask")),
                n,
                m[1],
            )?,
            None => m[1],
        });
    }
    let t = fresh_or(ctx, node, t, 1);
    let n = fresh_or(ctx, node, n, 0);
    let one = ctx.alg.constant(1);
    Ok(vec![TensorFact::new(x.dtype, vec![n, t, one, one])])
}

/// OpenVINO `CTCGreedyDecoderSeqLen-6`.
fn ov_ctc_greedy_decoder_seq_len(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 3)?;
    let x = ctx.input(node, 0, "data")?;
    let len = ctx.input(node, 1, "sequence_length")?;
    let classes = ov_dtype(node, "classes_index_type")?.unwrap_or(DType::Int32);
    let lengths = ov_dtype(node, "sequence_length_type")?.unwrap_or(DType::Int32);
    let (mut n, mut t) = (None, None);
    if let Some(s) = &x.shape {
        expect_rank("data", s, 3)?;
        (n, t) = (Some(s[0]), Some(s[1]));
    }
    if let Some(l) = &len.shape {
        expect_rank("sequence_length", l, 1)?;
        n = Some(match n {
            Some(n) => merge_dim_as(
                ctx,
                node,
                DimRole::of("N", ("data", "sequence_length")),
                n,
                l[0],
            )?,
            None => l[0],
        });
    }
    let n = fresh_or(ctx, node, n, 0);
    let t = fresh_or(ctx, node, t, 1);
    Ok(vec![
        TensorFact::new(classes, vec![n, t]),
        TensorFact::new(lengths, vec![n]),
    ])
}

/// OpenVINO `CTCLoss-4`.
fn ov_ctc_loss(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 4, 5)?;
    let x = ctx.input(node, 0, "logits")?;
    let n = match &x.shape {
        Some(s) => {
            expect_rank("logits", s, 3)?;
            Some(s[0])
        }
        None => None,
    };
    let n = fresh_or(ctx, node, n, 0);
    Ok(vec![TensorFact::new(x.dtype, vec![n])])
}
