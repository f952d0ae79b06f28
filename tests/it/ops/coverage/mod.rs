//! Every op of each format has a rule, and every ONNX (op, version) is checked
//! against onnxruntime.

mod onednn;
mod onnx;
mod ort;
