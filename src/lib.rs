#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub mod analyses;
pub mod context;
pub mod contracts;
pub mod graph;
mod infer;
pub mod ops;
pub mod read;
pub mod report;
pub mod shapes;

/// The dim algebra (the `symdim-algebra` crate): dims as e-classes of an e-graph.
pub use symdim_algebra as algebra;

pub use algebra::{DimExpr, EvalError, Interval, SymbolValues, Truth};
pub use context::facts::{parse_binds, Facts, FactsError, InputDim};
pub use graph::{DType, Model};
pub use read::load::{load, load_bytes, LoadError};
pub use read::oprules::OpRules;
pub use report::Report;
pub use shapes::{infer, Shapes, SymbolInfo, TensorShape};
