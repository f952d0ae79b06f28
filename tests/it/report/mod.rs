//! Reports: snapshots of the corpora's reports checked against outside references,
//! and the closure of the report grammar.

mod corpus;
mod grammar;
mod real_models;
