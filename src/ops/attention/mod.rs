//! Attention and the other transformer ops: the standard ONNX and OpenVINO
//! attention ops, the ONNX transformer ops of opsets 23 and later, and
//! onnxruntime's fused transformer ops.

pub mod contrib;
pub mod standard;
pub mod transformer;
