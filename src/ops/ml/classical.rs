//! Classical machine learning: the `ai.onnx.ml` domain.
//!
//! Spec: the ONNX-ML operator reference (`docs/Operators-ml.md`); where it leaves
//! a shape open, onnxruntime's CPU kernels, which the probes of
//! `tests/it/ops/onnx_families_ort.rs` run.
//!
//! The models take a batch `X [N, C]` (a 1-D `[C]` is one example: `N = 1` where
//! the outputs have a batch axis; the tree ensembles take 2-D inputs only) and
//! give, per example:
//!
//! * `LinearClassifier`, `SVMClassifier`, `TreeEnsembleClassifier`: the labels
//!   `Y [N]` (int64, or strings with `classlabels_strings`) and the scores `Z [N,
//!   E]` (float), `E` the number of class labels ([`class_labels`]).
//! * `LinearRegressor` `[N, targets]`, `SVMRegressor` `[N, 1]`,
//!   `TreeEnsembleRegressor` `[N, n_targets]` (float); `TreeEnsemble` `[N,
//!   n_targets]` of the input's type.
//! * `Binarizer`, `Imputer` keep the shape and type; `Normalizer`, `Scaler` keep
//!   the shape, float. `CategoryMapper` and `LabelEncoder` keep the shape and map
//!   the type (strings to int64 and back; `LabelEncoder` 2 and 4 take the type of
//!   their `values_*` attribute).
//! * `OneHotEncoder`: the input's shape and one more axis of the categories'
//!   count, float. `ArrayFeatureExtractor`: the input's shape with the last axis
//!   the number of indices (`[1, k]` for a 1-D input).
//! * `FeatureVectorizer`: `[N, sum(inputdimensions)]` float.
//! * Maps: `DictVectorizer` gives `[1, len(vocabulary)]` of the map's value type,
//!   `CastMap` `[1, n]` (`DENSE`: `n` the map's size, data-dependent; `SPARSE`:
//!   `max_map`) of `cast_to`'s type. `ZipMap` gives a sequence of `N` maps (see
//!   [`crate::context::SequenceFact`]) whose values are floats. A map's own fact is
//!   its value type with an unknown rank.
//!
//! # Version history
//! * `ai.onnx.ml` **LabelEncoder**: 1 (strings and int64s); 2 (`keys_*`,
//!   `values_*`: the output type is the values'); 4 (`keys_tensor`,
//!   `values_tensor`, more types).
//! * **TreeEnsembleClassifier**, **TreeEnsembleRegressor**: 1; 3 (`*_as_tensor`
//!   attributes); 5 (deprecated). **TreeEnsemble**: 5.
//! * Every other op: 1.

use crate::algebra::Dim;
use crate::context::DimRole;
use crate::context::{Allowed, Expected, OpError, SequenceFact, ShapesContext, TensorFact};
use crate::context::{AttrProblem, AttrValue, LengthForm};
use crate::graph::{Attr, DType, Node};
use crate::ops::common::attrs::{attr_int, attr_ints};
use crate::ops::common::attrs::{attr_str_or, require_positive};
use crate::ops::common::check_inputs;
use crate::ops::common::dims::{rank_of, shaped};
use crate::ops::{rules, RuleEntry};

/// The domain of these ops.
const ML: &str = "ai.onnx.ml";

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    (ML, ["ArrayFeatureExtractor"], array_feature_extractor),
    (ML, ["Binarizer", "Imputer"], same),
    (ML, ["Normalizer", "Scaler"], same_float),
    (ML, ["CastMap"], cast_map),
    (ML, ["CategoryMapper"], category_mapper),
    (ML, ["DictVectorizer"], dict_vectorizer),
    (ML, ["FeatureVectorizer"], feature_vectorizer),
    (ML, ["LabelEncoder"], label_encoder),
    (ML, ["LinearClassifier", "SVMClassifier", "TreeEnsembleClassifier"], classifier),
    (ML, [
        "LinearRegressor", "SVMRegressor", "TreeEnsembleRegressor", "TreeEnsemble",
    ], regressor),
    (ML, ["OneHotEncoder"], one_hot_encoder),
    (ML, ["ZipMap"], zip_map),
];

/// The number of entries of a list attribute (ints, floats or strings), if set.
fn list_len(node: &Node, name: &str) -> Option<usize> {
    match node.attr(name)? {
        Attr::Ints(v) => Some(v.len()),
        Attr::Floats(v) => Some(v.len()),
        Attr::Strs(v) => Some(v.len()),
        Attr::Tensor(t) => {
            Some(t.dims.iter().fold(1i64, |a, d| a.saturating_mul(*d)).max(0) as usize)
        }
        _ => None,
    }
}

/// The class labels of a classifier: their type (strings or int64) and count.
pub fn class_labels(node: &Node) -> Result<(DType, usize), OpError> {
    let ints = if node.op_type == "TreeEnsembleClassifier" {
        "classlabels_int64s"
    } else {
        "classlabels_ints"
    };
    match (list_len(node, "classlabels_strings"), list_len(node, ints)) {
        (Some(n), None) => Ok((DType::String, n)),
        (None, Some(n)) => Ok((DType::Int64, n)),
        (Some(_), Some(_)) => Err(OpError::BadAttribute {
            name: "classlabels_strings",
            value: AttrValue::Described("both label lists"),
            why: Box::new(AttrProblem::OnlyOneOf("classlabels_strings", ints)),
        }),
        (None, None) => Err(OpError::MissingAttribute {
            name: "classlabels_strings",
        }),
    }
}

/// The batch `N` of a model input `[N, C]` (`1` for `[C]`, which the tree
/// ensembles reject); `None` for an unknown rank. Other ranks are an error.
fn batch(ctx: &mut ShapesContext, node: &Node, x: &TensorFact) -> Result<Option<Dim>, OpError> {
    let trees = node.op_type.starts_with("TreeEnsemble");
    match x.shape.as_deref() {
        None => Ok(None),
        Some([_]) if !trees => Ok(Some(ctx.alg.constant(1))),
        Some([n, _]) => Ok(Some(*n)),
        Some(s) if trees => Err(rank_of("X", 2, s.len())),
        Some(s) => Err(rank_of("X", Expected::either(&[1, 2]), s.len())),
    }
}

/// `Binarizer`, `Imputer`: the input's shape and type.
fn same(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "X")?;
    Ok(vec![shaped(x.dtype, x.shape)])
}

/// `Normalizer`, `Scaler`: the input's shape, float.
fn same_float(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "X")?;
    if node.op_type == "Normalizer" {
        let norm = attr_str_or(node, "norm", "MAX")?;
        if !matches!(norm, "MAX" | "L1" | "L2") {
            return Err(OpError::BadAttribute {
                name: "norm",
                value: AttrValue::Word(norm.to_string()),
                why: Box::new(AttrProblem::one_of(&["MAX", "L1", "L2"])),
            });
        }
    }
    Ok(vec![shaped(DType::Float, x.shape)])
}

/// `ArrayFeatureExtractor`: the last axis becomes the number of indices.
fn array_feature_extractor(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "X")?;
    let y = ctx.input(node, 1, "Y")?;
    let k = y.shape.as_ref().map(|s| ctx.alg.product(s));
    let out = match (x.shape.as_deref(), k) {
        (None, _) => None,
        (Some([]), _) => return Err(rank_of("X", Expected::AtLeast(1), 0)),
        (Some([_]), Some(k)) => Some(vec![ctx.alg.constant(1), k]),
        (Some(s), Some(k)) => {
            let mut out = s.to_vec();
            let last = out.len() - 1;
            out[last] = k;
            Some(out)
        }
        (Some(s), None) => {
            let mut out = if s.len() == 1 {
                vec![ctx.alg.constant(1), s[0]]
            } else {
                s.to_vec()
            };
            let last = out.len() - 1;
            out[last] = ctx.unknown_dim(node, 0, last);
            Some(out)
        }
    };
    Ok(vec![shaped(x.dtype, out)])
}

/// `CastMap`: `[1, n]` of `cast_to`'s type.
fn cast_map(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    ctx.input(node, 0, "X")?;
    let dtype = match attr_str_or(node, "cast_to", "TO_FLOAT")? {
        "TO_FLOAT" => DType::Float,
        "TO_STRING" => DType::String,
        "TO_INT64" => DType::Int64,
        other => {
            return Err(OpError::BadAttribute {
                name: "cast_to",
                value: AttrValue::Word(other.to_string()),
                why: Box::new(AttrProblem::one_of(&["TO_FLOAT", "TO_STRING", "TO_INT64"])),
            })
        }
    };
    let n = match attr_str_or(node, "map_form", "DENSE")? {
        "DENSE" => ctx.unknown_dim(node, 0, 1),
        "SPARSE" => {
            let m = attr_int(node, "max_map", 1)?;
            require_positive("max_map", m)?;
            ctx.alg.constant(m)
        }
        other => {
            return Err(OpError::BadAttribute {
                name: "map_form",
                value: AttrValue::Word(other.to_string()),
                why: Box::new(AttrProblem::one_of(&["DENSE", "SPARSE"])),
            })
        }
    };
    Ok(vec![TensorFact::new(dtype, vec![ctx.alg.constant(1), n])])
}

/// The type a string/int64 mapping gives an input of type `t`: int64 for strings,
/// strings for int64; `fallback` when the input's type is not known.
fn swapped(t: DType, what: &'static str, fallback: DType) -> Result<DType, OpError> {
    match t {
        DType::String => Ok(DType::Int64),
        DType::Int64 => Ok(DType::String),
        DType::Undefined => Ok(fallback),
        other => Err(OpError::UnsupportedType {
            dtype: other,
            what,
            allowed: Allowed::OnnxTypes(vec![DType::String, DType::Int64]),
        }),
    }
}

/// `CategoryMapper`: the shape, strings to int64 and back.
fn category_mapper(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "X")?;
    let fallback = if node.attr("default_string").is_some() {
        DType::String
    } else {
        DType::Int64
    };
    Ok(vec![shaped(swapped(x.dtype, "X", fallback)?, x.shape)])
}

/// `DictVectorizer`: `[1, len(vocabulary)]` of the map's value type.
fn dict_vectorizer(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "X")?;
    let n = match (
        list_len(node, "string_vocabulary"),
        list_len(node, "int64_vocabulary"),
    ) {
        (Some(n), None) | (None, Some(n)) => n,
        (Some(_), Some(_)) => {
            return Err(OpError::BadAttribute {
                name: "string_vocabulary",
                value: AttrValue::Described("both vocabularies"),
                why: Box::new(AttrProblem::OnlyOneOf(
                    "string_vocabulary",
                    "int64_vocabulary",
                )),
            })
        }
        (None, None) => {
            return Err(OpError::MissingAttribute {
                name: "string_vocabulary",
            })
        }
    };
    let one = ctx.alg.constant(1);
    let n = ctx.alg.constant(n as i64);
    Ok(vec![TensorFact::new(x.dtype, vec![one, n])])
}

/// `FeatureVectorizer`: `[N, sum(inputdimensions)]` float.
fn feature_vectorizer(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let count = node.input_count();
    if count == 0 {
        return Err(OpError::InputCount {
            expected: Expected::OrMore(1),
            found: 0,
        });
    }
    let dims = attr_ints(node, "inputdimensions")?.unwrap_or(&[]);
    if dims.len() != count {
        return Err(OpError::BadAttribute {
            name: "inputdimensions",
            value: AttrValue::Ints(dims.to_vec()),
            why: Box::new(AttrProblem::Length {
                expected: count,
                form: LengthForm::OnePerInput,
            }),
        });
    }
    if let Some(bad) = dims.iter().find(|d| **d < 0) {
        return Err(OpError::BadAttribute {
            name: "inputdimensions",
            value: AttrValue::Ints(dims.to_vec()),
            why: Box::new(AttrProblem::EntryNegative(*bad)),
        });
    }
    let x = ctx.input(node, 0, "X")?;
    for i in 1..count {
        ctx.input(node, i, "X")?;
    }
    let n = match x.shape.as_deref() {
        None => ctx.unknown_dim(node, 0, 0),
        Some([]) => return Err(rank_of("X", Expected::AtLeast(1), 0)),
        Some([_]) => ctx.alg.constant(1),
        Some(s) => s[0],
    };
    // In the algebra: attribute values may sum past i64.
    let parts: Vec<_> = dims.iter().map(|d| ctx.alg.constant(*d)).collect();
    let total = ctx.alg.sum(&parts);
    Ok(vec![TensorFact::new(DType::Float, vec![n, total])])
}

/// `LabelEncoder` (1, 2, 4): the shape; the type maps as the version says.
fn label_encoder(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "X")?;
    let dtype = if node.version < 2 {
        let fallback = if node.attr("default_string").is_some() {
            DType::String
        } else {
            DType::Int64
        };
        swapped(x.dtype, "X", fallback)?
    } else {
        let mut found = Vec::new();
        for (name, t) in [
            ("values_strings", DType::String),
            ("values_int64s", DType::Int64),
            ("values_floats", DType::Float),
        ] {
            if node.attr(name).is_some() {
                found.push(t);
            }
        }
        if node.version >= 4 {
            if let Some(Attr::Tensor(t)) = node.attr("values_tensor") {
                found.push(t.dtype);
            }
        }
        match found.as_slice() {
            [t] => *t,
            [] => return Err(OpError::MissingAttribute { name: "values_*" }),
            _ => {
                return Err(OpError::BadAttribute {
                    name: "values_*",
                    value: AttrValue::ValueLists(found.len()),
                    why: Box::new(AttrProblem::Fixed("only one values_* attribute may be set")),
                })
            }
        }
    };
    Ok(vec![shaped(dtype, x.shape)])
}

/// The classifiers: labels `[N]` and scores `[N, E]`.
fn classifier(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "X")?;
    let (label, classes) = class_labels(node)?;
    let e = ctx.alg.constant(classes as i64);
    let n = match batch(ctx, node, &x)? {
        Some(n) => n,
        None => ctx.unknown_dim(node, 0, 0),
    };
    Ok(vec![
        TensorFact::new(label, vec![n]),
        TensorFact::new(DType::Float, vec![n, e]),
    ])
}

/// The regressors: `[N, targets]`.
fn regressor(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "X")?;
    let (targets, dtype) = match node.op_type.as_str() {
        "LinearRegressor" => (attr_int(node, "targets", 1)?, DType::Float),
        "SVMRegressor" => (1, DType::Float),
        "TreeEnsemble" => (attr_int(node, "n_targets", 1)?, x.dtype),
        _ => (attr_int(node, "n_targets", 1)?, DType::Float),
    };
    let name = if node.op_type == "LinearRegressor" {
        "targets"
    } else {
        "n_targets"
    };
    let targets = require_positive(name, targets)?;
    let n = match batch(ctx, node, &x)? {
        Some(n) => n,
        None => ctx.unknown_dim(node, 0, 0),
    };
    let t = ctx.alg.constant(targets);
    Ok(vec![TensorFact::new(dtype, vec![n, t])])
}

/// `OneHotEncoder`: one more axis of the categories' count, float.
fn one_hot_encoder(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "X")?;
    let cats = match (
        list_len(node, "cats_strings"),
        list_len(node, "cats_int64s"),
    ) {
        (Some(n), None) | (None, Some(n)) => n,
        (Some(_), Some(_)) => {
            return Err(OpError::BadAttribute {
                name: "cats_strings",
                value: AttrValue::Described("both category lists"),
                why: Box::new(AttrProblem::OnlyOneOf("cats_strings", "cats_int64s")),
            })
        }
        (None, None) => {
            return Err(OpError::MissingAttribute {
                name: "cats_int64s",
            })
        }
    };
    let out = x.shape.map(|mut s| {
        s.push(ctx.alg.constant(cats as i64));
        s
    });
    Ok(vec![shaped(DType::Float, out)])
}

/// `ZipMap`: a sequence of `N` maps of float values.
fn zip_map(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "X")?;
    let (_, keys) = match (
        list_len(node, "classlabels_strings"),
        list_len(node, "classlabels_int64s"),
    ) {
        (Some(n), None) => (DType::String, n),
        (None, Some(n)) => (DType::Int64, n),
        _ => {
            return Err(OpError::BadAttribute {
                name: "classlabels_strings",
                value: AttrValue::Described("the key lists"),
                why: Box::new(AttrProblem::Fixed(
                    "exactly one of classlabels_strings and classlabels_int64s must be set",
                )),
            })
        }
    };
    let len = match x.shape.as_deref() {
        Some([n, c]) => {
            let k = ctx.alg.constant(keys as i64);
            crate::ops::common::dims::unify_as(
                ctx,
                node,
                DimRole::of("columns", ("X", "the keys")),
                *c,
                k,
            )?;
            Some(*n)
        }
        Some([c]) => {
            let k = ctx.alg.constant(keys as i64);
            crate::ops::common::dims::unify_as(
                ctx,
                node,
                DimRole::of("columns", ("X", "the keys")),
                *c,
                k,
            )?;
            Some(ctx.alg.constant(1))
        }
        Some(s) => return Err(rank_of("X", Expected::either(&[1, 2]), s.len())),
        None => None,
    };
    let seq = SequenceFact::uniform(TensorFact::unknown(DType::Float), len);
    if let Some(name) = node.outputs.first().filter(|n| !n.is_empty()) {
        ctx.set_sequence(name, seq);
    }
    Ok(vec![TensorFact::unknown(DType::Float)])
}
