//! Writing an ONNX model back with the inferred shapes (`symdim infer -o`).
//!
//! Every tensor of the report gets a `value_info` entry (graph outputs get their
//! type filled in); symbolic dims become `dim_param` strings in the expression
//! grammar, so tools that read `dim_param` as a name still see one consistent name
//! per expression.
//!
//! What the model declares is never weakened ([`merge_dims`]): a declared
//! `dim_value` stays, a declared `dim_param` stays where inference only has a dim of
//! the data (`unk0`), a declared shape stays where inference has no rank, and
//! `value_info` entries of tensors the report does not cover are kept as they are.
//!
//! Writing is safe for the input ([`OutputTarget`]): the target is checked before
//! inference (a folder that exists, not a directory or a device, an ONNX model whose
//! external data stays reachable), the copy is written to a temporary file in the
//! target's folder and renamed over the target, so a failed write leaves the target
//! as it was, and `-o` onto the model's own path replaces it only once the new model
//! is complete.

use crate::graph::{DeclDim, Format, Model, ValueDecl};
use crate::read::onnx::{Container, InferredDim, InferredValueInfo};
use crate::report::{Report, ReportComposite, ReportDim, ReportHeld};
use std::collections::HashMap;
use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Why the annotated model could not be written.
#[derive(Debug, thiserror::Error)]
pub enum AnnotateError {
    /// Only ONNX models can be written back.
    #[error("-o writes ONNX models only; {0} is not an ONNX model (format: {1})")]
    NotOnnx(String, Format),
    /// Re-encoding failed.
    #[error("cannot re-encode {path}: {source}")]
    Encode {
        /// The model path.
        path: String,
        /// The encoder's error.
        source: crate::read::onnx::OnnxError,
    },
    /// The target is a directory, a device, a FIFO or another non-regular file.
    #[error("-o {path}: the target is {kind}; -o writes a regular file")]
    TargetNotRegular {
        /// The target path.
        path: String,
        /// What it is.
        kind: crate::read::files::FileKind,
    },
    /// The target's folder does not exist (or is not a folder).
    #[error("-o {path}: the folder {folder} does not exist")]
    NoFolder {
        /// The target path.
        path: String,
        /// The folder that should hold it.
        folder: String,
    },
    /// The model keeps tensor data in external files, which a copy in another folder
    /// would not find (locations are relative to the model's folder, and symdim, like
    /// ONNX, reads none outside it).
    #[error(
        "-o {path}: the model's tensor `{tensor}` keeps its data in `{location}` next to the model; a copy in another folder would not find it, so write the copy into {folder}"
    )]
    ExternalData {
        /// The target path.
        path: String,
        /// The model's folder.
        folder: String,
        /// The first tensor with external data.
        tensor: String,
        /// Its `location`.
        location: String,
    },
    /// The target is one of the files that hold the model's external data, which the
    /// copy still refers to.
    #[error("-o {path}: the target holds the data of the model's tensor `{tensor}`")]
    TargetIsExternalData {
        /// The target path.
        path: String,
        /// A tensor whose data the file holds.
        tensor: String,
    },
    /// Creating, writing or renaming a file failed.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file being written.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> AnnotateError + '_ {
    move |source| AnnotateError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Where `-o` writes, checked before inference: a temporary file already created in
/// the target's folder, renamed over the target by [`OutputTarget::commit`]. Dropped
/// without a commit, it removes the temporary file and leaves the target untouched.
#[derive(Debug)]
pub struct OutputTarget {
    /// The path as given, for messages.
    shown: PathBuf,
    /// The file that is replaced (a symlinked target is written through).
    target: PathBuf,
    /// The temporary file in the target's folder.
    temp: PathBuf,
    file: Option<File>,
    /// The target's permissions, when it exists: the copy keeps them.
    permissions: Option<std::fs::Permissions>,
}

impl OutputTarget {
    /// Check that `out` can take an annotated copy of the model whose file is
    /// `model_path` (content `model_bytes`, format `format`), and create the temporary
    /// file. Refused: a model that is not ONNX, a target that exists and is not a
    /// regular file (a directory, `/dev/full`, a FIFO) or cannot be written, a folder
    /// that does not exist, a folder other than the model's when the model keeps
    /// tensor data in external files, and one of those files.
    pub fn prepare(
        model_path: &Path,
        model_bytes: &[u8],
        format: Format,
        out: &Path,
    ) -> Result<OutputTarget, AnnotateError> {
        if format != Format::Onnx {
            return Err(AnnotateError::NotOnnx(
                model_path.display().to_string(),
                format,
            ));
        }
        let shown = out.display().to_string();
        // An existing target (through symlinks) must be a regular file we may write.
        let (target, permissions) = match std::fs::metadata(out) {
            Ok(meta) => {
                if let Some(kind) = crate::read::files::FileKind::of(&meta) {
                    return Err(AnnotateError::TargetNotRegular { path: shown, kind });
                }
                let target = out.canonicalize().map_err(io_error(out))?;
                // Opened for writing, not truncated: refuses what we could not
                // overwrite, and changes nothing.
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(&target)
                    .map_err(io_error(out))?;
                (target, Some(meta.permissions()))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if std::fs::symlink_metadata(out).is_ok() {
                    // A symlink to nothing: writing through it is not meant.
                    return Err(AnnotateError::Io {
                        path: shown,
                        source: e,
                    });
                }
                (out.to_path_buf(), None)
            }
            Err(e) => return Err(io_error(out)(e)),
        };
        let folder = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if !folder.is_dir() {
            return Err(AnnotateError::NoFolder {
                path: shown,
                folder: folder.display().to_string(),
            });
        }
        check_external_data(model_path, model_bytes, &folder, &target, &shown)?;
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "out.onnx".to_string());
        let mut attempt = 0u32;
        let (temp, file) = loop {
            let temp = folder.join(format!(
                ".{name}.symdim-{}-{attempt}.tmp",
                std::process::id()
            ));
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&temp)
            {
                Ok(f) => break (temp, f),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 16 => {
                    attempt += 1;
                }
                Err(e) => return Err(io_error(&temp)(e)),
            }
        };
        Ok(OutputTarget {
            shown: out.to_path_buf(),
            target,
            temp,
            file: Some(file),
            permissions,
        })
    }

    /// Write `bytes` to the temporary file, flush them to disk and rename the file over
    /// the target. On failure the target is as it was.
    pub fn commit(mut self, bytes: &[u8]) -> Result<(), AnnotateError> {
        let Some(mut file) = self.file.take() else {
            return Ok(());
        };
        let temp = self.temp.clone();
        file.write_all(bytes).map_err(io_error(&temp))?;
        if let Some(p) = self.permissions.take() {
            file.set_permissions(p).map_err(io_error(&temp))?;
        }
        file.sync_all().map_err(io_error(&temp))?;
        drop(file);
        std::fs::rename(&temp, &self.target).map_err(io_error(&self.shown))?;
        // Renamed: nothing left to remove.
        self.temp = PathBuf::new();
        Ok(())
    }
}

impl Drop for OutputTarget {
    fn drop(&mut self) {
        if !self.temp.as_os_str().is_empty() {
            self.file = None;
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

/// Refuse to write the model into a folder other than its own when it keeps tensor
/// data in external files (their locations are relative to the model's folder), or
/// over one of those files.
fn check_external_data(
    model_path: &Path,
    model_bytes: &[u8],
    out_folder: &Path,
    target: &Path,
    shown: &str,
) -> Result<(), AnnotateError> {
    let model = crate::read::onnx::parse(model_bytes).map_err(|source| AnnotateError::Encode {
        path: model_path.display().to_string(),
        source,
    })?;
    let external = crate::read::onnx::external_locations(&model);
    let Some(&(tensor, location)) = external.first() else {
        return Ok(());
    };
    let model_folder = match model_path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let same = match (model_folder.canonicalize(), out_folder.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if !same {
        return Err(AnnotateError::ExternalData {
            path: shown.to_string(),
            folder: model_folder.display().to_string(),
            tensor: tensor.to_string(),
            location: location.to_string(),
        });
    }
    // An existing target has been resolved; a new one cannot be a data file.
    let target = target.canonicalize().ok();
    for (tensor, location) in external {
        let data = model_folder.join(location).canonicalize().ok();
        if data.is_some() && data == target {
            return Err(AnnotateError::TargetIsExternalData {
                path: shown.to_string(),
                tensor: tensor.to_string(),
            });
        }
    }
    Ok(())
}

/// The ops whose outputs may be sequences, optionals or maps, not tensors: an output
/// of one of them that the report knows neither as a tensor of known rank nor as a
/// sequence or an optional gets no type (a tensor type could be wrong).
const MAYBE_NOT_TENSOR: &[&str] = &[
    "If",
    "Loop",
    "Identity",
    "Optional",
    "OptionalGetElement",
    "SequenceConstruct",
    "SequenceEmpty",
    "SequenceInsert",
    "SequenceErase",
    "SplitToSequence",
    "SequenceMap",
    "ZipMap",
    "CastMap",
    "DictVectorizer",
];

/// The value types to write for `model` from `report`: every tensor of the report but
/// the graph inputs, each merged with the model's declaration of it ([`merge_dims`]).
///
/// A sequence gets a `sequence_type` and an optional an `optional_type` around the
/// tensor type of its elements, when the element type and rank are known (a sequence
/// of maps, or of elements of unknown rank, gets nothing); an element dim on which
/// the elements may differ (a data-dependent symbol) is written as an unknown dim. A
/// value of unknown rank that may not be a tensor (an output of `If`, `Loop`,
/// `Identity`, a sequence, optional or map op, or of a node with a diagnostic whose
/// op has no built-in rule) gets nothing either.
pub fn annotations(model: &Model, report: &Report) -> Vec<InferredValueInfo> {
    let g = &model.graph;
    let inputs: std::collections::HashSet<&str> = g.inputs.iter().map(|v| &*v.name).collect();
    // A declaration with a shape wins over one without, as in inference.
    let mut declared: HashMap<&str, &ValueDecl> = HashMap::new();
    for v in g.value_info.iter().chain(&g.outputs) {
        let slot = declared.entry(&*v.name).or_insert(v);
        if slot.shape.is_none() {
            *slot = v;
        }
    }
    let noted: std::collections::HashSet<&str> = report
        .diagnostics
        .iter()
        .map(|d| d.node.as_str())
        .filter(|n| !n.is_empty())
        .collect();
    let mut unsure: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for n in &g.nodes {
        // A node with a diagnostic whose op symdim has no rule for may output anything;
        // a built-in rule's ops output tensors (their schemas say so) even when the
        // rule failed, so their element type is still written.
        let unknown_op = || crate::ops::rule_for(&n.domain, &n.op_type).is_none();
        if MAYBE_NOT_TENSOR.contains(&n.op_type.as_str())
            || (noted.contains(n.name.as_str()) && unknown_op())
        {
            unsure.extend(n.outputs.iter().map(|o| &**o));
        }
    }
    report
        .tensors
        .iter()
        .filter(|(name, _)| !inputs.contains(name.as_str()))
        .filter_map(|(name, t)| {
            let decl = declared.get(name.as_str());
            if let Some(c) = &t.composite {
                return composite_info(name, t, c);
            }
            if t.shape.is_none() && unsure.contains(name.as_str()) {
                return None;
            }
            let elem_type = match (t.dtype, decl) {
                (Some(d), _) if d != crate::graph::DType::Undefined => d,
                (_, Some(v)) => v.dtype,
                _ => crate::graph::DType::Undefined,
            };
            let shape = merge_dims(decl.and_then(|v| v.shape.as_deref()), t.shape.as_deref());
            Some(InferredValueInfo {
                name: name.clone(),
                elem_type,
                shape,
                containers: Vec::new(),
            })
        })
        .collect()
}

/// The type to write for a sequence or an optional (see [`annotations`]): `None`
/// when the element type or rank is not known, or the optional is known to be empty
/// (what it would hold is not known).
fn composite_info(
    name: &str,
    t: &crate::report::ReportTensor,
    c: &ReportComposite,
) -> Option<InferredValueInfo> {
    let (containers, elem) = match c {
        ReportComposite::Sequence(q) => (vec![Container::Sequence], &q.element),
        ReportComposite::Optional {
            present: Some(false),
            ..
        } => return None,
        ReportComposite::Optional { held, .. } => match held {
            ReportHeld::Tensor(e) => (vec![Container::Optional], e),
            ReportHeld::Sequence(q) => (vec![Container::Optional, Container::Sequence], &q.element),
        },
    };
    let elem_type = elem
        .dtype
        .or(t.dtype)
        .filter(|d| *d != crate::graph::DType::Undefined)?;
    let shape = elem
        .shape
        .as_ref()?
        .iter()
        .map(|d| match d {
            ReportDim::Int(v) if *v >= 0 => InferredDim::Value(*v),
            ReportDim::Expr(e) if !e.mentions_data() => InferredDim::Param(e.to_string()),
            _ => InferredDim::Unknown,
        })
        .collect();
    Some(InferredValueInfo {
        name: name.to_string(),
        elem_type,
        shape: Some(shape),
        containers,
    })
}

/// The shape to write for a tensor the model declares as `declared` and inference
/// finds `inferred`, never weaker than the declaration:
///
/// - no inferred rank: the declared shape; nothing declared: the inferred one;
/// - different ranks (the report has the contradiction as an error): the declared
///   shape;
/// - per dim, a declared `dim_value` stays (an inferred constant equals it, or the
///   report has the contradiction); a declared `dim_param` stays where the inferred
///   dim mentions a value of the data
///   ([`ReportExpr::mentions_data`](crate::report::ReportExpr::mentions_data): such
///   a dim says less than any name the model gives it), and gives way to an inferred
///   constant or expression of the inputs; an unnamed declared dim takes the
///   inferred one.
pub fn merge_dims(
    declared: Option<&[DeclDim]>,
    inferred: Option<&[ReportDim]>,
) -> Option<Vec<InferredDim>> {
    let from_decl = |d: &DeclDim| match d {
        DeclDim::Value(v) => InferredDim::Value(*v),
        DeclDim::Param(p) => InferredDim::Param(p.clone()),
        DeclDim::Unknown | DeclDim::Interval { .. } => InferredDim::Unknown,
    };
    let from_report = |d: &ReportDim| match d {
        ReportDim::Int(v) if *v >= 0 => InferredDim::Value(*v),
        ReportDim::Int(_) => InferredDim::Unknown,
        ReportDim::Expr(s) => InferredDim::Param(s.to_string()),
    };
    match (declared, inferred) {
        (None, None) => None,
        (Some(d), None) => Some(d.iter().map(from_decl).collect()),
        (None, Some(i)) => Some(i.iter().map(from_report).collect()),
        (Some(d), Some(i)) if d.len() != i.len() => Some(d.iter().map(from_decl).collect()),
        (Some(d), Some(i)) => Some(
            d.iter()
                .zip(i)
                .map(|(d, i)| match (d, i) {
                    (DeclDim::Value(v), _) => InferredDim::Value(*v),
                    (DeclDim::Param(p), ReportDim::Expr(e)) if e.mentions_data() => {
                        InferredDim::Param(p.clone())
                    }
                    (DeclDim::Param(p), ReportDim::Int(v)) if *v < 0 => {
                        InferredDim::Param(p.clone())
                    }
                    _ => from_report(i),
                })
                .collect(),
        ),
    }
}

/// The model's bytes (`bytes`, read from `model`'s file) with the report's shapes
/// merged into its declarations ([`annotations`]).
pub fn annotated_bytes(
    model: &Model,
    bytes: &[u8],
    report: &Report,
) -> Result<Vec<u8>, AnnotateError> {
    if model.format != Format::Onnx {
        return Err(AnnotateError::NotOnnx(model.path.clone(), model.format));
    }
    crate::read::onnx::write_with_shapes(bytes, &annotations(model, report)).map_err(|source| {
        AnnotateError::Encode {
            path: model.path.clone(),
            source,
        }
    })
}

/// Write `model` (whose file bytes are `bytes`, read from `model_path`) to `out` with
/// the report's shapes: [`OutputTarget::prepare`], [`annotated_bytes`], then
/// [`OutputTarget::commit`]. The CLI prepares the target before inference instead.
pub fn write_annotated(
    model: &Model,
    model_path: &Path,
    bytes: &[u8],
    report: &Report,
    out: &Path,
) -> Result<(), AnnotateError> {
    let target = OutputTarget::prepare(model_path, bytes, model.format, out)?;
    target.commit(&annotated_bytes(model, bytes, report)?)
}
