//! Ops that move, cut, join, pick or describe tensor data: the shape-tensor ops
//! (`Shape`, `Gather`, `Concat`, `Reshape`, ...) whose values carry symbolic dims
//! through a graph, and the other data-movement ops of every format.

pub mod cast;
pub mod concat;
pub mod constant;
pub mod contents;
pub mod contrib;
pub mod depth_space;
pub mod expand;
pub mod gather;
pub mod generate;
pub mod onehot;
pub mod pad;
pub mod reduce;
pub mod reshape;
pub mod scatter;
pub mod shape;
pub mod slice;
pub mod split;
pub mod squeeze;
pub mod topk;
pub mod transpose;
pub mod trilu;

use crate::ops::cost::{moves_data, Costs};

/// What the data-movement families compute: nothing (0 MACs, 0 FLOPs): they
/// copy, pick, join or describe elements (a `Cast` converts each element, which
/// is counted as a copy). The reductions ([`reduce::COSTS`]) and the
/// comparisons of `TopK`, `NonZero`, `Unique` are not data movement and have no
/// formula here.
pub const COSTS: &[Costs] = &[
    Costs::all(reshape::RULES, moves_data),
    Costs::all(concat::RULES, moves_data),
    Costs::all(cast::RULES, moves_data),
    Costs::all(pad::RULES, moves_data),
    Costs::all(slice::RULES, moves_data),
    Costs::all(split::RULES, moves_data),
    Costs::all(constant::RULES, moves_data),
    Costs::all(depth_space::RULES, moves_data),
    Costs::all(shape::RULES, moves_data),
    Costs::all(gather::RULES, moves_data),
    Costs::all(scatter::RULES, moves_data),
    Costs::all(onehot::RULES, moves_data),
    Costs::all(trilu::RULES, moves_data),
    Costs::all(transpose::RULES, moves_data),
    Costs::all(squeeze::RULES, moves_data),
    Costs::all(expand::RULES, moves_data),
];
