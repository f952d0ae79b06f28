//! What an inferred model costs, read from its shapes: [`cost`] (compute and
//! memory as formulas of the input dims, `symdim cost`) and [`diff`] (what changed
//! between two versions of a model, `symdim diff`) and [`unknowns`] (what
//! inference left unknown and why, `symdim infer --strict`).
//!
//! An analysis reads the inferred graph and its algebra and changes neither: it
//! builds what it needs in a copy of the algebra, through the algebra alone. The
//! report layer renders what it gives.

pub mod cost;
pub mod diff;
pub mod unknowns;
