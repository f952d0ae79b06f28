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
