//! Signals and media: Fourier transforms, window and filter-bank generators, image
//! decoding and colour conversion.

pub mod color;
pub mod fft;
pub mod generators;
