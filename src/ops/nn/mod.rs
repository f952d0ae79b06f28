//! Neural-network layers: matrix products, convolutions and pools (and the
//! sliding-window arithmetic they share), normalisations, resizing, recurrent
//! layers, quantization, image patches and object detection.

pub mod contrib;
pub mod conv;
pub mod detection;
pub mod embedding;
pub mod matmul;
pub mod norm;
pub mod patches;
pub mod pool;
pub mod quantize;
pub mod resize;
pub mod rnn;
pub mod spatial;
pub mod window;
