//! The shapes context: the ShapesContext API, and the errors and diagnostics an
//! inference reports (their kinds and message texts).

mod error_kinds;
mod error_reasons;
mod shapes_api;
