//! Helpers of the oneDNN adapters that several families share.

use crate::graph::{Attr, DType, Node};

/// The oneDNN domain.
pub const DOMAIN: &str = "onednn";

/// The output type: `dst_dtype` when the converter set it, else `default`.
pub fn out_dtype(node: &Node, default: DType) -> DType {
    match node.attr("dst_dtype") {
        Some(Attr::Str(s)) => DType::from_short_name(s).unwrap_or(default),
        _ => default,
    }
}

/// The oneDNN rules not in a family file: none.
pub const RULES: &[super::RuleEntry] = &[];
