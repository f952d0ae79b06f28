//! Writing an ONNX model back with the inferred shapes (`symdim infer -o`).
//!
//! Every tensor of the report gets a `value_info` entry (graph outputs get their
//! type filled in); symbolic dims become `dim_param` strings in the expression
//! grammar, so tools that read `dim_param` as a name still see one consistent name
//! per expression.

use crate::graph::{Format, Model};
use crate::onnx::{InferredDim, InferredValueInfo};
use crate::report::{Report, ReportDim};
use std::path::Path;

/// Why the annotated model could not be written.
#[derive(Debug, thiserror::Error)]
pub enum AnnotateError {
    /// Only ONNX models can be written back.
    #[error("-o writes ONNX models only; {0} is a {1} model")]
    NotOnnx(String, Format),
    /// Re-encoding failed.
    #[error("cannot re-encode {path}: {source}")]
    Encode {
        /// The model path.
        path: String,
        /// The encoder's error.
        source: crate::onnx::OnnxError,
    },
    /// Writing the file failed.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The output path.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// Write `model` (whose file bytes are `bytes`) to `out` with the report's shapes:
/// the bytes of [`annotate`].
pub fn write_annotated(
    model: &Model,
    bytes: &[u8],
    report: &Report,
    out: &Path,
) -> Result<(), AnnotateError> {
    let encoded = annotate(model, bytes, report)?;
    std::fs::write(out, encoded).map_err(|source| AnnotateError::Io {
        path: out.display().to_string(),
        source,
    })
}

/// The ONNX model `bytes` (which `model` was read from) with the report's shapes:
/// every tensor of the report but the graph inputs in `value_info`, graph outputs'
/// types filled in, every other field as it was, byte for byte.
pub fn annotate(model: &Model, bytes: &[u8], report: &Report) -> Result<Vec<u8>, AnnotateError> {
    if model.format != Format::Onnx {
        return Err(AnnotateError::NotOnnx(model.path.clone(), model.format));
    }
    let inputs: std::collections::HashSet<&str> =
        model.graph.inputs.iter().map(|v| &*v.name).collect();
    let infos: Vec<InferredValueInfo> = report
        .tensors
        .iter()
        .filter(|(name, _)| !inputs.contains(name.as_str()))
        .map(|(name, t)| InferredValueInfo {
            name: name.clone(),
            elem_type: t.dtype.unwrap_or(crate::graph::DType::Undefined),
            shape: t.shape.as_ref().map(|dims| {
                dims.iter()
                    .map(|d| match d {
                        ReportDim::Int(v) if *v >= 0 => InferredDim::Value(*v),
                        ReportDim::Int(_) => InferredDim::Unknown,
                        ReportDim::Expr(s) => InferredDim::Param(s.to_string()),
                    })
                    .collect()
            }),
        })
        .collect();
    crate::onnx::write_with_shapes(bytes, &infos).map_err(|source| AnnotateError::Encode {
        path: model.path.clone(),
        source,
    })
}
