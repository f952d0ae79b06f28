//! The model readers, one module per format: parsing, conversion into the neutral
//! graph, and load errors.

mod onednn;
mod onnx;
mod openvino;
