//! The integration tests of symdim, one test binary with a module per subject; the
//! modules follow the pipeline of `src/` (`docs/architecture.md`):
//!
//! - `algebra`: the dim algebra, its laws (property tests) and its answer table;
//! - `read`: the model readers and their conversion into the neutral graph, per format;
//! - `ops`: the shape rules by op family, checked against the specs by hand and
//!   against onnxruntime's and OpenVINO's output shapes, and their coverage;
//! - `context`: the ShapesContext API and the errors inference reports;
//! - `infer`: whole models through the driver (peer cases, real models);
//! - `contracts`: derived constraints and `symdim check`;
//! - `report`: report snapshots against outside references, the report grammar;
//! - `facade`, `cli`, `python`, `capi`: the library facade, the command line, the
//!   Python package, the C API (C and C++ programs built against `include/symdim.h`);
//! - `hostile`: hostile graphs and files;
//! - `layers`, `docs`: the crate's layering and its documentation stay in step with
//!   the code.
//!
//! `common` holds the shared helpers: snapshot settings, the shared corpus, small
//! models and hand-built contexts, protobuf writing, the onnxruntime fixture cases.
//!
//! Tests that need the shared corpus (`../shared/corpus`) skip, saying so, when it is
//! absent, and fail when `CI` is set.

mod common;

mod algebra;
mod capi;
mod cli;
mod context;
mod contracts;
mod docs;
mod facade;
mod hostile;
mod infer;
mod layers;
mod ops;
mod python;
mod read;
mod report;
