//! Reading node attributes as typed values, with a typed error naming the attribute
//! when one is missing or of the wrong kind.
//!
//! The readers decode attributes into [`Attr`] values: ONNX and oneDNN attributes
//! are typed in the file, OpenVINO IR attributes are decoded from their text by name
//! (`crate::read::openvino::to_graph::typed_attr`), and an IR attribute whose text did not
//! read as its kind stays a string, which the `ov_*` getters reject with the IR's
//! wording. Element types and partial shapes arrive decoded ([`Attr::Type`],
//! [`Attr::Shape`]): no getter here parses attribute text.

use crate::context::{AttrProblem, AttrValue, LengthForm, OpError};
use crate::graph::{Attr, DType, DeclDim, Node};

/// An integer attribute, or `default` when absent.
pub fn attr_int(node: &Node, name: &'static str, default: i64) -> Result<i64, OpError> {
    match node.attr(name) {
        None => Ok(default),
        Some(Attr::Int(v)) => Ok(*v),
        Some(other) => Err(bad_kind(name, other, "an int")),
    }
}

/// A required integer attribute.
pub fn attr_int_required(node: &Node, name: &'static str) -> Result<i64, OpError> {
    match node.attr(name) {
        None => Err(OpError::MissingAttribute { name }),
        Some(Attr::Int(v)) => Ok(*v),
        Some(other) => Err(bad_kind(name, other, "an int")),
    }
}

/// An integer-list attribute, if present.
pub fn attr_ints<'n>(node: &'n Node, name: &'static str) -> Result<Option<&'n [i64]>, OpError> {
    match node.attr(name) {
        None => Ok(None),
        Some(Attr::Ints(v)) => Ok(Some(v)),
        Some(other) => Err(bad_kind(name, other, "a list of ints")),
    }
}

/// A float attribute, or `default` when absent.
pub fn attr_float(node: &Node, name: &'static str, default: f64) -> Result<f64, OpError> {
    match node.attr(name) {
        None => Ok(default),
        Some(Attr::Float(v)) => Ok(*v),
        Some(other) => Err(bad_kind(name, other, "a float")),
    }
}

/// A string attribute, if present.
pub fn attr_str<'n>(node: &'n Node, name: &'static str) -> Result<Option<&'n str>, OpError> {
    match node.attr(name) {
        None => Ok(None),
        Some(Attr::Str(s)) => Ok(Some(s)),
        Some(other) => Err(bad_kind(name, other, "a string")),
    }
}

/// An integer-list attribute of exactly `len` entries, or `default` repeated.
/// Entries must satisfy `ok` (for example "positive").
pub fn attr_list(
    node: &Node,
    name: &'static str,
    len: usize,
    default: i64,
    ok: fn(i64) -> bool,
    expect: &'static str,
) -> Result<Vec<i64>, OpError> {
    match attr_ints(node, name)? {
        None => Ok(vec![default; len]),
        Some(v) => {
            if v.len() != len {
                return Err(OpError::BadAttribute {
                    name,
                    value: AttrValue::Ints(v.to_vec()),
                    why: Box::new(AttrProblem::Length {
                        expected: len,
                        form: LengthForm::Entries,
                    }),
                });
            }
            if let Some(bad) = v.iter().find(|x| !ok(**x)) {
                return Err(OpError::BadAttribute {
                    name,
                    value: AttrValue::Ints(v.to_vec()),
                    why: Box::new(AttrProblem::EntryNot {
                        entry: *bad,
                        expected: expect,
                    }),
                });
            }
            Ok(v.to_vec())
        }
    }
}

/// A string attribute, or `default` when absent.
pub fn attr_str_or<'n>(
    node: &'n Node,
    name: &'static str,
    default: &'n str,
) -> Result<&'n str, OpError> {
    Ok(attr_str(node, name)?.unwrap_or(default))
}

/// The dtype named by an integer attribute (`stash_type`, `output_dtype`, ...),
/// or `default` when absent or 0.
pub fn attr_dtype(node: &Node, name: &'static str, default: DType) -> Result<DType, OpError> {
    let v = attr_int(node, name, 0)?;
    if v == 0 {
        return Ok(default);
    }
    let not_a_type = || OpError::BadAttribute {
        name,
        value: AttrValue::Int(v),
        why: Box::new(AttrProblem::Fixed("not an element type")),
    };
    let code = i32::try_from(v).map_err(|_| not_a_type())?;
    let t = DType::from_i32(code);
    if t == DType::Undefined {
        return Err(not_a_type());
    }
    Ok(t)
}

/// The error of an attribute of another kind than `expected` (`an int`).
pub fn bad_kind(name: &'static str, value: &Attr, expected: &'static str) -> OpError {
    bad_attr(
        name,
        value,
        AttrProblem::WrongKind {
            expected,
            found: value.kind(),
        },
    )
}

/// The error of the attribute `name` of value `value`, for the reason `why`.
pub fn bad_attr(name: &'static str, value: &Attr, why: AttrProblem) -> OpError {
    OpError::BadAttribute {
        name,
        value: AttrValue::from(value),
        why: Box::new(why),
    }
}

/// A string attribute (trimmed), if present.
pub fn ov_str<'n>(node: &'n Node, name: &'static str) -> Result<Option<&'n str>, OpError> {
    match node.attr(name) {
        None => Ok(None),
        Some(Attr::Str(s)) => Ok(Some(s.trim())),
        Some(other) => Err(bad_attr(name, other, AttrProblem::ExpectedKind("a string"))),
    }
}

/// A boolean attribute (the reader decodes `true`/`false` in any case and `1`/`0`
/// to the integers 1 and 0), `default` when absent. Anything else is
/// [`OpError::BadAttribute`].
pub fn ov_bool(node: &Node, name: &'static str, default: bool) -> Result<bool, OpError> {
    let Some(a) = node.attr(name) else {
        return Ok(default);
    };
    int_bool(name, a).unwrap_or_else(|| match a {
        Attr::Str(_) => Err(bad_attr(
            name,
            a,
            AttrProblem::ExpectedKind("true or false"),
        )),
        _ => Err(bad_attr(name, a, AttrProblem::ExpectedKind("a boolean"))),
    })
}

/// A bool the reader decoded to the int 0 or 1: `None` for an attribute of
/// another kind (each front end words that error), else the bool or the error of an
/// int other than 0 and 1.
fn int_bool(name: &'static str, a: &Attr) -> Option<Result<bool, OpError>> {
    match a {
        Attr::Int(0) => Some(Ok(false)),
        Attr::Int(1) => Some(Ok(true)),
        Attr::Int(_) => Some(Err(bad_attr(
            name,
            a,
            AttrProblem::Fixed("a bool must be 0 or 1"),
        ))),
        _ => None,
    }
}

/// A required IR boolean attribute, read as [`ov_bool`] reads one.
pub fn ov_bool_required(node: &Node, name: &'static str) -> Result<bool, OpError> {
    match node.attr(name) {
        None => Err(OpError::MissingAttribute { name }),
        Some(_) => ov_bool(node, name, false),
    }
}

/// A required oneDNN bool attribute: the int 0 or 1 (how oneDNN writes a bool; its
/// reader accepts nothing else).
pub fn onednn_bool_required(node: &Node, name: &'static str) -> Result<bool, OpError> {
    let a = node.attr(name).ok_or(OpError::MissingAttribute { name })?;
    int_bool(name, a).unwrap_or_else(|| Err(bad_kind(name, a, "a bool (the int 0 or 1)")))
}

/// An integer attribute, if present.
pub fn ov_i64(node: &Node, name: &'static str) -> Result<Option<i64>, OpError> {
    match node.attr(name) {
        None => Ok(None),
        Some(Attr::Int(v)) => Ok(Some(*v)),
        Some(other) => Err(bad_attr(
            name,
            other,
            AttrProblem::ExpectedKind("an integer"),
        )),
    }
}

/// An integer list attribute (a single integer is a list of one), if present.
pub fn ov_i64_list(node: &Node, name: &'static str) -> Result<Option<Vec<i64>>, OpError> {
    match node.attr(name) {
        None => Ok(None),
        Some(Attr::Ints(v)) => Ok(Some(v.clone())),
        Some(Attr::Int(v)) => Ok(Some(vec![*v])),
        Some(a @ Attr::Str(_)) => Err(bad_attr(
            name,
            a,
            AttrProblem::ExpectedKind("a comma-separated list of integers"),
        )),
        Some(other) => Err(bad_attr(
            name,
            other,
            AttrProblem::ExpectedKind("a list of integers"),
        )),
    }
}

/// An element type attribute (`f32`, `i64`, `boolean`, ...), if present.
pub fn ov_dtype(node: &Node, name: &'static str) -> Result<Option<DType>, OpError> {
    match node.attr(name) {
        None => Ok(None),
        Some(Attr::Type(t)) => Ok(Some(*t)),
        Some(a @ Attr::Str(_)) => Err(bad_attr(name, a, AttrProblem::Fixed("not an element type"))),
        Some(other) => Err(bad_attr(
            name,
            other,
            AttrProblem::ExpectedKind("an element type name"),
        )),
    }
}

/// A partial shape attribute (`variable_shape`: the reader decodes `[?,3]`, `2..5`,
/// `...`), if present: `Some(None)` for a dynamic rank. Text the reader could not
/// read as a shape is [`OpError::BadAttribute`].
pub fn ov_shape<'n>(
    node: &'n Node,
    name: &'static str,
) -> Result<Option<Option<&'n [DeclDim]>>, OpError> {
    match node.attr(name) {
        None => Ok(None),
        Some(Attr::Shape(dims)) => Ok(Some(dims.as_deref())),
        Some(a @ Attr::Str(_)) => Err(bad_attr(name, a, AttrProblem::Fixed("not a partial shape"))),
        Some(other) => Err(bad_attr(
            name,
            other,
            AttrProblem::ExpectedKind("a partial shape"),
        )),
    }
}

/// A list attribute that must have one entry per spatial axis (or be absent, then
/// `default` for every axis).
pub fn spatial_list(
    node: &Node,
    name: &'static str,
    n: usize,
    default: i64,
) -> Result<Vec<i64>, OpError> {
    match ov_i64_list(node, name)? {
        None => Ok(vec![default; n]),
        Some(v) if v.is_empty() => Ok(vec![default; n]),
        Some(v) if v.len() == n => Ok(v),
        Some(v) => Err(OpError::BadAttribute {
            name,
            value: AttrValue::Ints(v),
            why: Box::new(AttrProblem::Length {
                expected: n,
                form: LengthForm::ValuesPerSpatialAxis,
            }),
        }),
    }
}

/// The output type of a oneDNN op: the reader's `dst_dtype` attribute (the file's
/// output type, where it differs from input 0's), else `default`. Anything but an
/// element type is [`OpError::BadAttribute`].
pub fn dst_dtype(node: &Node, default: DType) -> Result<DType, OpError> {
    match node.attr("dst_dtype") {
        None => Ok(default),
        Some(Attr::Type(t)) => Ok(*t),
        Some(other) => Err(bad_kind("dst_dtype", other, "an element type")),
    }
}

/// `v`, the value of the integer attribute `name`, when it is positive; otherwise a
/// [`OpError::BadAttribute`] saying it must be.
pub fn require_positive(name: &'static str, v: i64) -> Result<i64, OpError> {
    if v <= 0 {
        return Err(OpError::BadAttribute {
            name,
            value: AttrValue::Int(v),
            why: Box::new(AttrProblem::NotPositive),
        });
    }
    Ok(v)
}
