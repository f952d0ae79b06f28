//! symdim: tensor shape inference as symbolic algebra.
//!
//! Every dim is an expression over the model's input dims (`[N, S*12, 64]`), kept in an
//! e-graph with exact rational constants. See `docs/architecture.md` for the pipeline.
#![deny(missing_docs)]

pub mod algebra;
pub mod annotate;
pub mod context;
pub mod graph;
pub mod infer;
pub mod load;
pub mod onednn;
pub mod onnx;
pub mod openvino;
pub mod ops;
pub mod report;
pub mod shapes_api;
