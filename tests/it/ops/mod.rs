//! The shape rules, by op family (`src/ops/`), and their coverage of each format's
//! operator set.

mod concat_cast;
mod contrib;
mod control;
mod control_ort;
mod coverage;
mod declared;
mod elementwise;
mod fill;
mod nn;
mod nn_ort;
mod onednn_training;
mod onnx_families;
mod onnx_families_ort;
mod openvino;
mod reshape;
mod scatter_generators;
mod tensor;
