//! Control flow and the values that flow through it: `If`, `Loop` and `Scan` with
//! their subgraphs, sequences and optionals, and oneDNN's ops whose computation the
//! format leaves open.

pub mod flow;
pub mod opaque;
pub mod sequence;
