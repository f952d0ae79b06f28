//! Machine learning outside the network layers: the `ai.onnx.ml` domain, training
//! ops, losses, CTC decoding and text processing.

pub mod classical;
pub mod ctc;
pub mod loss;
pub mod strings;
pub mod training;
