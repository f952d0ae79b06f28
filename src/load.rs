//! Reading a model file of any supported format into the neutral graph.
//!
//! The format is detected by content, so a wrong or missing extension does not
//! matter: an ONNX `ModelProto` decodes as protobuf, OpenVINO IR is XML with a
//! `<net>` root, and oneDNN Graph is a JSON object.

use crate::graph::{Format, Model};
use std::path::Path;

/// Why a model could not be read: no report is possible.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not in any supported format.
    #[error("{path} is not an ONNX, OpenVINO IR or oneDNN Graph model ({why})")]
    UnknownFormat {
        /// The path.
        path: String,
        /// What the content looked like.
        why: &'static str,
    },
    /// The file looked like ONNX but did not decode.
    #[error("{path}: invalid ONNX model: {source}")]
    Onnx {
        /// The path.
        path: String,
        /// The decoder's error.
        source: crate::onnx::OnnxError,
    },
    /// The file is in a format whose conversion is not available.
    #[error("{path}: {format} models are read but not yet converted for inference")]
    NotConverted {
        /// The path.
        path: String,
        /// The format.
        format: Format,
    },
}

/// Detect the format of a model's bytes.
pub fn detect(bytes: &[u8]) -> Option<Format> {
    let text_start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .map(|i| bytes[i]);
    match text_start {
        Some(b'<') => Some(Format::OpenVino),
        Some(b'{') => Some(Format::OneDnn),
        _ if crate::onnx::looks_like_onnx(bytes) => Some(Format::Onnx),
        _ => None,
    }
}

/// Read and convert a model, returning it with the file's bytes (the ONNX writer
/// re-emits them with inferred shapes).
pub fn load(path: &Path) -> Result<(Model, Vec<u8>), LoadError> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| LoadError::Io {
        path: shown.clone(),
        source,
    })?;
    let format = match detect(&bytes) {
        Some(f) => f,
        None if bytes.is_empty() => {
            return Err(LoadError::UnknownFormat {
                path: shown,
                why: "the file is empty",
            })
        }
        None => {
            return Err(LoadError::UnknownFormat {
                path: shown,
                why: "its content is neither protobuf, XML nor JSON",
            })
        }
    };
    match format {
        Format::Onnx => {
            let m = crate::onnx::parse(&bytes).map_err(|source| LoadError::Onnx {
                path: shown.clone(),
                source,
            })?;
            let src = crate::onnx::DataSource::for_model_file(path);
            let model =
                crate::onnx::to_model(&m, &shown, &src).map_err(|source| LoadError::Onnx {
                    path: shown.clone(),
                    source,
                })?;
            Ok((model, bytes))
        }
        f => Err(LoadError::NotConverted {
            path: shown,
            format: f,
        }),
    }
}
