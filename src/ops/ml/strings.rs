//! Strings and text: ONNX `StringNormalizer`, `StringConcat`, `StringSplit`,
//! `RegexFullMatch` and `TfIdfVectorizer`; OpenVINO `StringTensorUnpack` and
//! `StringTensorPack`.
//!
//! Specs: the ONNX operator reference (each op's page) and the OpenVINO operation
//! specification (`StringTensorUnpack-15`, `StringTensorPack-15`).
//!
//! * `StringNormalizer`: a `[C]` or `[1, C]` string tensor; without `stopwords`
//!   the shape stays, with them the count of kept strings is data-dependent (at
//!   least 1: an empty result is one empty string).
//! * `StringConcat`: the numpy broadcast of the two string inputs.
//! * `StringSplit`: the substrings `Y` have the input's shape and one more axis,
//!   as long as the most substrings of an element (data-dependent); the counts `Z`
//!   (int64) have the input's shape.
//! * `RegexFullMatch`: the input's shape, bool.
//! * `TfIdfVectorizer`: `[C]` gives `[max(ngram_indexes) + 1]`, `[N, C]` gives
//!   `[N, max(ngram_indexes) + 1]`, float.
//!
//! OpenVINO: a string tensor of shape `S` unpacks into `begins` and `ends` (`S`, i32) and
//! the concatenated bytes `symbols` (`[n]`, u8, `n` data-dependent); packing gives
//! a string tensor of the shape of `begins`.
//!
//! # Version history
//! * ONNX **TfIdfVectorizer**: 9. **StringNormalizer**: 10. **StringConcat**,
//!   **StringSplit**, **RegexFullMatch**: 20.
//! * OpenVINO **StringTensorUnpack**, **StringTensorPack**: 15.

use crate::context::{Allowed, Expected, OpError, ShapesContext, TensorFact};
use crate::context::{AttrProblem, AttrValue, ShapeValueProblem};
use crate::graph::{Attr, DType, Node};
use crate::ops::common::attrs::attr_str_or;
use crate::ops::common::attrs::{attr_int, attr_ints};
use crate::ops::common::broadcast::broadcast_shapes;
use crate::ops::common::check_inputs;
use crate::ops::common::dims::{rank_of, shaped};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["StringNormalizer"], string_normalizer),
    ("", ["StringConcat"], string_concat),
    ("", ["StringSplit"], string_split),
    ("", ["RegexFullMatch"], regex_full_match),
    ("", ["TfIdfVectorizer"], tf_idf_vectorizer),
    ("openvino", ["StringTensorUnpack"], ov_string_unpack),
    ("openvino", ["StringTensorPack"], ov_string_pack),
];

/// OpenVINO `StringTensorUnpack-15`.
fn ov_string_unpack(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "data")?;
    let n = ctx.unknown_dim(node, 2, 0);
    Ok(vec![
        shaped(DType::Int32, x.shape.clone()),
        shaped(DType::Int32, x.shape),
        TensorFact::new(DType::Uint8, vec![n]),
    ])
}

/// OpenVINO `StringTensorPack-15`.
fn ov_string_pack(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let begins = ctx.input(node, 0, "begins")?;
    Ok(vec![shaped(DType::String, begins.shape)])
}

/// Check that input `index` holds strings (or an unknown type).
fn strings(
    ctx: &ShapesContext,
    node: &Node,
    index: usize,
    what: &'static str,
) -> Result<TensorFact, OpError> {
    let f = ctx.input(node, index, what)?;
    if !matches!(f.dtype, DType::String | DType::Undefined) {
        return Err(OpError::UnsupportedType {
            dtype: f.dtype,
            what,
            allowed: Allowed::Types(vec![DType::String]),
        });
    }
    Ok(f)
}

/// ONNX `StringNormalizer` (10).
fn string_normalizer(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = strings(ctx, node, 0, "X")?;
    let action = attr_str_or(node, "case_change_action", "NONE")?;
    if !matches!(action, "NONE" | "LOWER" | "UPPER") {
        return Err(OpError::BadAttribute {
            name: "case_change_action",
            value: AttrValue::Word(action.to_string()),
            why: Box::new(AttrProblem::one_of(&["NONE", "LOWER", "UPPER"])),
        });
    }
    let stopwords = match node.attr("stopwords") {
        Some(Attr::Strs(s)) => !s.is_empty(),
        Some(Attr::Str(_)) => true,
        _ => false,
    };
    let Some(xs) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(DType::String)]);
    };
    let mut out = xs.clone();
    match xs.as_slice() {
        [_] => {}
        [one, _] if ctx.alg.as_i64(*one).map_or(true, |d| d == 1) => {}
        [first, _] => {
            return Err(OpError::BadShapeValue(Box::new(
                ShapeValueProblem::StringsFirstDim(ctx.alg.expr(*first)),
            )))
        }
        _ => return Err(rank_of("X", Expected::either(&[1, 2]), xs.len())),
    }
    if stopwords {
        let last = out.len() - 1;
        out[last] = ctx.unknown_dim(node, 0, last);
    }
    Ok(vec![TensorFact::new(DType::String, out)])
}

/// ONNX `StringConcat` (20): the broadcast of the two inputs.
fn string_concat(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = strings(ctx, node, 0, "X")?;
    let y = strings(ctx, node, 1, "Y")?;
    let out = match (&x.shape, &y.shape) {
        (Some(a), Some(b)) => Some(broadcast_shapes(ctx, &node.name, a, b)?),
        _ => None,
    };
    Ok(vec![shaped(DType::String, out)])
}

/// ONNX `StringSplit` (20): the substrings with one more axis, and their counts.
fn string_split(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = strings(ctx, node, 0, "X")?;
    if let Some(Attr::Int(m)) = node.attr("maxsplit") {
        if *m < 0 {
            return Err(OpError::BadAttribute {
                name: "maxsplit",
                value: AttrValue::Int(*m),
                why: Box::new(AttrProblem::Fixed("must not be negative")),
            });
        }
    }
    let Some(xs) = x.shape.clone() else {
        return Ok(vec![
            TensorFact::unknown(DType::String),
            TensorFact::unknown(DType::Int64),
        ]);
    };
    let mut y = xs.clone();
    y.push(ctx.unknown_dim(node, 0, xs.len()));
    Ok(vec![
        TensorFact::new(DType::String, y),
        TensorFact::new(DType::Int64, xs),
    ])
}

/// ONNX `RegexFullMatch` (20): bool, the input's shape.
fn regex_full_match(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = strings(ctx, node, 0, "X")?;
    if crate::ops::common::attrs::attr_str(node, "pattern")?.is_none() {
        return Err(OpError::MissingAttribute { name: "pattern" });
    }
    Ok(vec![shaped(DType::Bool, x.shape)])
}

/// ONNX `TfIdfVectorizer` (9): `[max(ngram_indexes) + 1]` per row, float.
fn tf_idf_vectorizer(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "X")?;
    let indexes = attr_ints(node, "ngram_indexes")?.ok_or(OpError::MissingAttribute {
        name: "ngram_indexes",
    })?;
    if let Some(bad) = indexes.iter().find(|i| **i < 0) {
        return Err(OpError::BadAttribute {
            name: "ngram_indexes",
            value: AttrValue::Ints(indexes.to_vec()),
            why: Box::new(AttrProblem::EntryNegative(*bad)),
        });
    }
    let mode = crate::ops::common::attrs::attr_str(node, "mode")?
        .ok_or(OpError::MissingAttribute { name: "mode" })?;
    if !matches!(mode, "TF" | "IDF" | "TFIDF") {
        return Err(OpError::BadAttribute {
            name: "mode",
            value: AttrValue::Word(mode.to_string()),
            why: Box::new(AttrProblem::one_of(&["TF", "IDF", "TFIDF"])),
        });
    }
    for name in ["min_gram_length", "max_gram_length", "max_skip_count"] {
        attr_int(node, name, 0)?;
    }
    let width = ctx
        .alg
        .constant(indexes.iter().copied().max().map_or(0, |m| m + 1));
    let Some(xs) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(DType::Float)]);
    };
    let out = match xs.as_slice() {
        [_] => vec![width],
        [n, _] => vec![*n, width],
        _ => return Err(rank_of("X", Expected::either(&[1, 2]), xs.len())),
    };
    Ok(vec![TensorFact::new(DType::Float, out)])
}
