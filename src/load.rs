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
    /// The file looked like OpenVINO IR but did not read or convert (the reader's
    /// typed error: XML, edges, Parameter shapes, Const data and weights).
    #[error("{path}: invalid OpenVINO IR model: {source}")]
    OpenVino {
        /// The path.
        path: String,
        /// The reader's error.
        source: crate::openvino::IrError,
    },
    /// An OpenVINO IR model with Const layers has no weights file next to it.
    #[error(
        "{path}: the model has {consts} Const layers but its weights file {bin} does not exist"
    )]
    MissingWeights {
        /// The path of the `.xml`.
        path: String,
        /// The expected `.bin` path.
        bin: String,
        /// How many Const layers the model has.
        consts: usize,
    },
    /// The file looked like oneDNN Graph JSON but did not read.
    #[error("{path}: invalid oneDNN Graph model: {source}")]
    OneDnn {
        /// The path.
        path: String,
        /// The reader's error.
        source: crate::onednn::OnednnError,
    },
    /// A symbolic-input request does not fit the oneDNN graph.
    #[error("{path}: {source}")]
    OneDnnSymbol {
        /// The path.
        path: String,
        /// What is wrong with the request.
        source: crate::onednn::to_graph::SymbolizeError,
    },
    /// Symbolic inputs were asked for a format that does not take them.
    #[error(
        "{path}: symbolic inputs (--symbol) apply to oneDNN Graph models, not {format} models"
    )]
    SymbolsNotSupported {
        /// The path.
        path: String,
        /// The model's format.
        format: Format,
    },
}

/// Options of [`load_with`].
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// oneDNN input dims to turn into symbols (`--symbol ID:AXIS=NAME`); an error for
    /// other formats.
    pub onednn_symbols: Vec<crate::onednn::to_graph::Symbolize>,
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
        _ if crate::onnx::looks_like_onnx(bytes) || crate::onnx::opens_like_onnx(bytes) => {
            Some(Format::Onnx)
        }
        _ => None,
    }
}

/// Read and convert a model, returning it with the file's bytes (the ONNX writer
/// re-emits them with inferred shapes).
pub fn load(path: &Path) -> Result<(Model, Vec<u8>), LoadError> {
    load_with(path, &LoadOptions::default())
}

/// [`load_with`], then [`crate::infer::infer_context`] on the model: the model and
/// the inferred context.
///
/// The context is exactly [`crate::infer::infer_context`]'s, but on an ONNX file of
/// 1 MiB or more (unix) the inference runs on a second thread while the graph is
/// still being converted (`docs/architecture.md`); the file is read through small
/// buffers, never held whole ([`load_inferring_lean`]).
pub fn load_and_infer(
    path: &Path,
    options: &LoadOptions,
    infer: &crate::infer::Options,
) -> Result<(Model, crate::context::ShapesContext), LoadError> {
    let (model, bytes, ctx) = load_inferring_lean(path, options, infer)?;
    // The file's memory is free for the inference.
    drop(bytes);
    let ctx = ctx.unwrap_or_else(|| crate::infer::infer_context(&model, infer));
    Ok((model, ctx))
}

/// [`load_with`], and the context of [`crate::infer::infer_context`] on the model
/// when the loader inferred it while converting (see [`load_and_infer`]; with the
/// file's bytes kept, files of at most 16 MiB); `None` when the caller is to infer
/// it.
pub fn load_inferring(
    path: &Path,
    options: &LoadOptions,
    infer: &crate::infer::Options,
) -> Result<LoadedWith, LoadError> {
    load_with_infer(path, options, Some(infer), true)
}

/// [`load_inferring`] for a caller with no use for the file's bytes: an ONNX file
/// inferred while it loads is then read through two small buffers, never held whole,
/// and its bytes come back empty (the kernel zeroes every page of a fresh buffer the
/// size of the file before the read fills it; docs/benchmarks.md). Other files come
/// back with their bytes, as from [`load_inferring`].
pub fn load_inferring_lean(
    path: &Path,
    options: &LoadOptions,
    infer: &crate::infer::Options,
) -> Result<LoadedWith, LoadError> {
    load_with_infer(path, options, Some(infer), false)
}

/// [`load`] with options. An OpenVINO IR `.xml` needs its weights (same stem, `.bin`)
/// next to it when it has Const layers.
pub fn load_with(path: &Path, options: &LoadOptions) -> Result<(Model, Vec<u8>), LoadError> {
    load_with_infer(path, options, None, true).map(|(m, bytes, _)| (m, bytes))
}

/// The model and the file's bytes as [`load_with`] gives them, and the context when
/// the loader inferred it while converting (see [`load_and_infer`]).
pub type LoadedWith = (Model, Vec<u8>, Option<crate::context::ShapesContext>);

/// [`load_with`], inferring the model while it is converted when `infer` is given and
/// the loader can (the context is then returned); without `keep`, the bytes of a
/// file inferred while it loads are not kept ([`load_inferring_lean`]).
fn load_with_infer(
    path: &Path,
    options: &LoadOptions,
    infer: Option<&crate::infer::Options>,
    keep: bool,
) -> Result<LoadedWith, LoadError> {
    let shown = path.display().to_string();
    #[cfg(unix)]
    if options.onednn_symbols.is_empty() {
        if let Some(loaded) = load_onnx_while_reading(path, &shown, infer, keep)? {
            return Ok(loaded);
        }
    }
    #[cfg(not(unix))]
    let _ = (infer, keep);
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
        Format::Onnx if !options.onednn_symbols.is_empty() => Err(LoadError::SymbolsNotSupported {
            path: shown,
            format: Format::Onnx,
        }),
        Format::Onnx => {
            let src = crate::onnx::DataSource::for_model_file(path);
            let model = crate::onnx::load_model(&bytes, &shown, &src).map_err(|source| {
                LoadError::Onnx {
                    path: shown.clone(),
                    source,
                }
            })?;
            Ok((model, bytes, None))
        }
        Format::OpenVino => {
            let ir = |source| LoadError::OpenVino {
                path: shown.clone(),
                source,
            };
            let text = std::str::from_utf8(&bytes).map_err(|_| {
                ir(crate::openvino::IrError::Io {
                    path: path.to_path_buf(),
                    source: std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        "the XML is not valid UTF-8",
                    ),
                })
            })?;
            let limits = crate::openvino::IrLimits::default();
            if bytes.len() as u64 > limits.max_xml_bytes {
                return Err(ir(crate::openvino::IrError::XmlTooLarge {
                    len: bytes.len() as u64,
                    max: limits.max_xml_bytes,
                }));
            }
            let m = crate::openvino::IrModel::parse_with_limits(text, &limits).map_err(ir)?;
            let bin = path.with_extension("bin");
            let weights = if bin.exists() {
                crate::openvino::Weights::open(&bin)
                    .map_err(ir)?
                    .with_max_const_elements(limits.max_const_elements)
            } else {
                let consts = m.graph.layers_of_type("Const").count();
                if consts > 0 {
                    return Err(LoadError::MissingWeights {
                        path: shown,
                        bin: bin.display().to_string(),
                        consts,
                    });
                }
                crate::openvino::Weights::empty()
            };
            if !options.onednn_symbols.is_empty() {
                return Err(LoadError::SymbolsNotSupported {
                    path: shown,
                    format: Format::OpenVino,
                });
            }
            let model = crate::openvino::to_graph::to_model(&m, &weights, &shown).map_err(ir)?;
            Ok((model, bytes, None))
        }
        Format::OneDnn => {
            let text = std::str::from_utf8(&bytes).map_err(|_| LoadError::OneDnn {
                path: shown.clone(),
                source: crate::onednn::OnednnError::Io {
                    path: path.to_path_buf(),
                    source: std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        "the JSON is not valid UTF-8",
                    ),
                },
            })?;
            let g =
                crate::onednn::OnednnGraph::parse(text).map_err(|source| LoadError::OneDnn {
                    path: shown.clone(),
                    source,
                })?;
            let opts = crate::onednn::to_graph::ConvertOptions {
                symbols: options.onednn_symbols.clone(),
            };
            let model = crate::onednn::to_graph::to_model(&g, &shown, &opts).map_err(|source| {
                LoadError::OneDnnSymbol {
                    path: shown.clone(),
                    source,
                }
            })?;
            Ok((model, bytes, None))
        }
    }
}

/// A large ONNX model, parsed while it is read (`crate::onnx::pipelined`): `None` when
/// the file is not one (too small, or not opening like ONNX), to be read whole.
#[cfg(unix)]
fn load_onnx_while_reading(
    path: &Path,
    shown: &str,
    infer: Option<&crate::infer::Options>,
    keep: bool,
) -> Result<Option<LoadedWith>, LoadError> {
    use crate::onnx::pipelined::{load_and_infer, Failure};
    let io = |source| LoadError::Io {
        path: shown.to_string(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let size = file.metadata().map_err(io)?.len();
    let Ok(size) = usize::try_from(size) else {
        return Ok(None);
    };
    let src = crate::onnx::DataSource::for_model_file(path);
    load_and_infer(&file, size, shown, &src, infer, keep).map_err(|e| match e {
        Failure::Io(source) => io(source),
        Failure::Onnx(source) => LoadError::Onnx {
            path: shown.to_string(),
            source,
        },
    })
}
