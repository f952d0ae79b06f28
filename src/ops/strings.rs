//! String tensors: OpenVINO `StringTensorUnpack` and `StringTensorPack`.
//!
//! Spec: the OpenVINO operation specification (`StringTensorUnpack-15`,
//! `StringTensorPack-15`).
//!
//! A string tensor of shape `S` unpacks into `begins` and `ends` (`S`, i32) and
//! the concatenated bytes `symbols` (`[n]`, u8, `n` data-dependent); packing gives
//! a string tensor of the shape of `begins`.
//!
//! # Version history
//! * OpenVINO **StringTensorUnpack**, **StringTensorPack**: 15.

use super::nn_util::shaped;
use super::{check_inputs, RuleEntry};
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};

/// The rules of this family.
pub const RULES: &[RuleEntry] = &[
    ("openvino", "StringTensorUnpack", ov_string_unpack),
    ("openvino", "StringTensorPack", ov_string_pack),
];

/// OpenVINO `StringTensorUnpack-15`.
fn ov_string_unpack(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "data")?;
    let n = ctx.unknown_dim(node, 2, 0);
    Ok(vec![
        shaped(DType::Int32, x.shape.clone()),
        shaped(DType::Int32, x.shape),
        TensorFact::new(DType::Uint8, vec![n]),
    ])
}

/// OpenVINO `StringTensorPack-15`.
fn ov_string_pack(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let begins = ctx.input(node, 0, "begins")?;
    Ok(vec![shaped(DType::String, begins.shape)])
}
