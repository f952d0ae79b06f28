//! The analyses of inferred models: `cost` (compute and memory as formulas) and
//! `diff` (what changed between two versions of a model).

mod cost;
mod diff;
