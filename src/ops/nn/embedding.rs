//! Embedding bags: OpenVINO `EmbeddingBagOffsetsSum`, `EmbeddingBagOffsets`,
//! `EmbeddingBagPackedSum`, `EmbeddingBagPacked` and `EmbeddingSegmentsSum`.
//!
//! Spec: the OpenVINO operation specification (`EmbeddingBagOffsetsSum-3`,
//! `EmbeddingBagOffsets-15`, `EmbeddingBagPackedSum-3`, `EmbeddingBagPacked-15`,
//! `EmbeddingSegmentsSum-3`).
//!
//! Each reduces rows of `emb_table [num_emb, D...]` into bags, so the output is
//! `[bags, D...]` of the table's type: `bags` is the length of `offsets` (input 2)
//! for the offsets ops, the first dim of `indices [bags, n]` for the packed ops,
//! and the value of `num_segments` (input 3, a data-dependent dim when not known)
//! for `EmbeddingSegmentsSum`.
//!
//! # Version history
//! * OpenVINO **EmbeddingBagOffsetsSum**, **EmbeddingBagPackedSum**,
//!   **EmbeddingSegmentsSum**: 3. **EmbeddingBagOffsets**, **EmbeddingBagPacked**:
//!   15 (`reduction` sum or mean).

use crate::algebra::Dim;
use crate::context::{Expected, OpError, ShapesContext, TensorFact};
use crate::graph::Node;
use crate::ops::common::check_inputs;
use crate::ops::common::dims::{expect_rank, rank_of};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("openvino", [
        "EmbeddingBagOffsetsSum", "EmbeddingBagOffsets", "EmbeddingBagPackedSum",
        "EmbeddingBagPacked", "EmbeddingSegmentsSum",
    ], ov_embedding_bag),
];

/// The output of an embedding bag: `[bags, table[1..]...]`.
pub fn embedding_shape(table: &[Dim], bags: Dim) -> Result<Vec<Dim>, OpError> {
    if table.is_empty() {
        return Err(rank_of("emb_table", Expected::AtLeast(1), 0));
    }
    let mut out = vec![bags];
    out.extend_from_slice(&table[1..]);
    Ok(out)
}

/// The OpenVINO embedding bag ops (see the module docs).
fn ov_embedding_bag(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let op = node.op_type.as_str();
    let (min, max) = match op {
        "EmbeddingBagPackedSum" | "EmbeddingBagPacked" => (2, 3),
        "EmbeddingSegmentsSum" => (4, 6),
        _ => (3, 5),
    };
    check_inputs(node, min, max)?;
    let table = ctx.input(node, 0, "emb_table")?;
    let indices = ctx.input(node, 1, "indices")?;
    let bags = match op {
        "EmbeddingBagPackedSum" | "EmbeddingBagPacked" => match &indices.shape {
            Some(s) => {
                expect_rank("indices", s, 2)?;
                Some(s[0])
            }
            None => None,
        },
        "EmbeddingSegmentsSum" => {
            let n = ctx.input(node, 3, "num_segments")?;
            Some(match n.value.as_deref() {
                Some([v]) => *v,
                _ => ctx.unknown_dim(node, 0, 0),
            })
        }
        _ => match ctx.input(node, 2, "offsets")?.shape.as_deref() {
            Some([b]) => Some(*b),
            Some(s) => return Err(rank_of("offsets", 1, s.len())),
            None => None,
        },
    };
    let Some(ts) = &table.shape else {
        return Ok(vec![TensorFact::unknown(table.dtype)]);
    };
    let bags = match bags {
        Some(b) => b,
        None => ctx.unknown_dim(node, 0, 0),
    };
    Ok(vec![TensorFact::new(
        table.dtype,
        embedding_shape(ts, bags)?,
    )])
}
