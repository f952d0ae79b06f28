//! The analyses of inferred models: `cost` (compute and memory as formulas).

mod cost;
