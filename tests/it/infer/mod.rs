//! Whole models through the driver: the small peer cases, the peer corpus and the
//! real models.

mod peer_cases;
mod real_models;
mod small_models;
