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
    /// The path names something other than a regular file (a directory, a FIFO, a
    /// device), which is refused before it is read.
    #[error("cannot read {path}: it is {kind}")]
    NotRegularFile {
        /// The path.
        path: String,
        /// What it names.
        kind: crate::read::files::FileKind,
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
        source: crate::read::onnx::OnnxError,
    },
    /// The file looked like OpenVINO IR but did not read or convert (the reader's
    /// typed error: XML, edges, Parameter shapes, Const data and weights).
    #[error("{path}: invalid OpenVINO IR model: {source}")]
    OpenVino {
        /// The path.
        path: String,
        /// The reader's error.
        source: crate::read::openvino::IrError,
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
        source: crate::read::onednn::OnednnError,
    },
    /// A symbolic-input request does not fit the oneDNN graph.
    #[error("{path}: {source}")]
    OneDnnSymbol {
        /// The path.
        path: String,
        /// What is wrong with the request.
        source: crate::read::onednn::to_graph::SymbolizeError,
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
    pub onednn_symbols: Vec<crate::read::onednn::to_graph::Symbolize>,
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
        _ if crate::read::onnx::looks_like_onnx(bytes)
            || crate::read::onnx::opens_like_onnx(bytes) =>
        {
            Some(Format::Onnx)
        }
        _ => None,
    }
}

/// Read and convert a model file.
pub fn load(path: &Path) -> Result<Model, LoadError> {
    load_with(path, &LoadOptions::default())
}

/// [`load`] with options. An OpenVINO IR `.xml` needs its weights (same stem, `.bin`)
/// next to it when it has Const layers; an ONNX model's external data is read from
/// the file's folder. Only regular files are read ([`crate::read::files`]).
pub fn load_with(path: &Path, options: &LoadOptions) -> Result<Model, LoadError> {
    let bytes = read_model_file(path)?;
    convert(&bytes, &path.display().to_string(), Some(path), options)
}

/// The bytes of the model file `path`, which must be a regular file (after following
/// symlinks): a FIFO, a device or a directory is refused before it is read.
pub fn read_model_file(path: &Path) -> Result<Vec<u8>, LoadError> {
    crate::read::files::read_regular(path).map_err(|e| {
        let path = path.display().to_string();
        match e {
            crate::read::files::FileError::NotRegular { kind } => {
                LoadError::NotRegularFile { path, kind }
            }
            crate::read::files::FileError::Io(source) => LoadError::Io { path, source },
        }
    })
}

/// [`load_with`] of a file whose bytes the caller has already read (to write an
/// annotated copy of them, say): external data and weights are read from `path`'s
/// folder.
pub fn load_file_bytes(
    bytes: &[u8],
    path: &Path,
    options: &LoadOptions,
) -> Result<Model, LoadError> {
    convert(bytes, &path.display().to_string(), Some(path), options)
}

/// Convert a model held in memory; `name` stands for its path in reports and errors.
/// An ONNX model's external data and an OpenVINO IR model's weights cannot be read
/// from memory: such tensors keep their dims but not their values, and IR Const
/// layers are an error.
pub fn load_bytes(bytes: &[u8], name: &str, options: &LoadOptions) -> Result<Model, LoadError> {
    convert(bytes, name, None, options)
}

/// The model of `bytes`, read from `file` when given (its folder holds external data
/// and weights).
fn convert(
    bytes: &[u8],
    shown: &str,
    file: Option<&Path>,
    options: &LoadOptions,
) -> Result<Model, LoadError> {
    let shown = shown.to_string();
    let format = match detect(bytes) {
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
    let where_from = || file.map_or_else(|| std::path::PathBuf::from(&shown), Path::to_path_buf);
    match format {
        Format::Onnx if !options.onednn_symbols.is_empty() => Err(LoadError::SymbolsNotSupported {
            path: shown,
            format: Format::Onnx,
        }),
        Format::Onnx => {
            let src = match file {
                Some(p) => crate::read::onnx::DataSource::for_model_file(p),
                None => crate::read::onnx::DataSource::in_memory(),
            };
            crate::read::onnx::load_model(bytes, &shown, &src).map_err(|source| LoadError::Onnx {
                path: shown.clone(),
                source,
            })
        }
        Format::OpenVino => {
            let ir = |source| LoadError::OpenVino {
                path: shown.clone(),
                source,
            };
            let text = std::str::from_utf8(bytes).map_err(|_| {
                ir(crate::read::openvino::IrError::Io {
                    path: where_from(),
                    source: std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        "the XML is not valid UTF-8",
                    ),
                })
            })?;
            let limits = crate::read::openvino::IrLimits::default();
            if bytes.len() as u64 > limits.max_xml_bytes {
                return Err(ir(crate::read::openvino::IrError::XmlTooLarge {
                    len: bytes.len() as u64,
                    max: limits.max_xml_bytes,
                }));
            }
            let m = crate::read::openvino::IrModel::parse_with_limits(text, &limits).map_err(ir)?;
            let bin = where_from().with_extension("bin");
            // A `.bin` that is there but not a regular file (a FIFO, a directory) is
            // refused by `Weights::open`.
            let weights = if file.is_some() && bin.exists() {
                crate::read::openvino::Weights::open(&bin)
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
                crate::read::openvino::Weights::empty()
            };
            if !options.onednn_symbols.is_empty() {
                return Err(LoadError::SymbolsNotSupported {
                    path: shown,
                    format: Format::OpenVino,
                });
            }
            crate::read::openvino::to_graph::to_model(&m, &weights, &shown).map_err(ir)
        }
        Format::OneDnn => {
            let text = std::str::from_utf8(bytes).map_err(|_| LoadError::OneDnn {
                path: shown.clone(),
                source: crate::read::onednn::OnednnError::Io {
                    path: where_from(),
                    source: std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        "the JSON is not valid UTF-8",
                    ),
                },
            })?;
            let g = crate::read::onednn::OnednnGraph::parse(text).map_err(|source| {
                LoadError::OneDnn {
                    path: shown.clone(),
                    source,
                }
            })?;
            let opts = crate::read::onednn::to_graph::ConvertOptions {
                symbols: options.onednn_symbols.clone(),
                check_name: Some(|name| {
                    crate::algebra::parse::parse_expr(name)
                        .map(|_| ())
                        .map_err(|e| {
                            std::sync::Arc::new(e) as crate::read::onednn::to_graph::NameError
                        })
                }),
            };
            crate::read::onednn::to_graph::to_model(&g, &shown, &opts).map_err(|source| {
                LoadError::OneDnnSymbol {
                    path: shown.clone(),
                    source,
                }
            })
        }
    }
}
