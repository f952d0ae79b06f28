#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub mod annotate;
pub mod check;
pub mod context;
pub mod contracts;
pub mod explain;
pub mod facts;
pub mod files;
pub mod graph;
mod infer;
pub mod load;
pub mod onednn;
pub mod onnx;
pub mod openvino;
pub mod oprules;
pub mod ops;
pub mod report;
pub mod shapes;
pub mod shapes_api;

/// The dim algebra (the `symdim-algebra` crate): dims as e-classes of an e-graph.
pub use symdim_algebra as algebra;

pub use algebra::{DimExpr, EvalError, Interval, SymbolValues, Truth};
pub use facts::{Facts, FactsError, InputDim};
pub use graph::{DType, Model};
pub use load::{load, load_bytes, LoadError};
pub use oprules::OpRules;
pub use report::Report;
pub use shapes::{infer, Shapes, SymbolInfo, TensorShape};
