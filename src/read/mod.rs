//! Reading models: each format into the format-neutral graph ([`crate::graph`]).
//!
//! [`load`] detects the format by content and runs its reader: [`onnx`] (a
//! zero-copy protobuf decoder), [`openvino`] (IR XML with its `.bin`) and [`onednn`]
//! (oneDNN Graph JSON). Each reader knows only its format and the graph; [`files`]
//! opens the files they read (regular files only). [`oprules`] reads the
//! `--op-rules` format, shape rules declared in text.

pub mod files;
pub mod load;
pub mod onednn;
pub mod onnx;
pub mod openvino;
pub mod oprules;
