#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub mod algebra;
pub mod annotate;
pub mod check;
pub mod context;
pub mod contracts;
pub mod explain;
pub mod graph;
pub mod infer;
pub mod load;
pub mod onednn;
pub mod onnx;
pub mod openvino;
pub mod ops;
pub mod report;
pub mod shapes_api;
