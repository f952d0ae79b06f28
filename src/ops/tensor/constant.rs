//! Tensors made from attributes and scalars: ONNX `Constant`, `ConstantOfShape`
//! and `Range`, OpenVINO `Range`.
//!
//! Specs: the ONNX operator reference (`Constant`, `ConstantOfShape`, `Range`) and
//! the OpenVINO operation specification (`Range-1`, `Range-4`).
//!
//! * `Constant` is its attribute's tensor (any of the `value*` attributes), with
//!   its contents when small.
//! * `ConstantOfShape` has the shape its input holds, filled with the `value`
//!   attribute's one element (default float 0). Over a shape too large or too
//!   symbolic for its contents to be listed, the fill is kept as one value
//!   ([`TensorFact::fill`]), which NonZero, Where, Cast, the integer binary ops and
//!   the ops that only move elements ([`crate::ops::FILL_THROUGH`]) read.
//! * `Range` has `max(ceildiv(limit - start, delta), 0)` elements
//!   `start + i*delta` ([`range_dims`]), in both formats; the operands may be
//!   symbolic (a range over a sequence length).
//!
//! Special values: a `delta` (OpenVINO `step`) that is provably 0 and a negative
//! entry of ConstantOfShape's shape are errors; `Range`'s operands must be scalars.
//! An operand of unknown contents gives `[unk]` (Range) or fresh dims
//! (ConstantOfShape).
//!
//! # Version history
//! * ONNX **Constant**: 1 (`value`); 9 more types; 11 `sparse_value` (not read by the
//!   ONNX reader: reported as a missing value); 12 `value_int(s)`, `value_float(s)`,
//!   `value_string(s)`; 13, 19, 21, 23, 24, 25 new types only.
//! * ONNX **ConstantOfShape**: 9 (`value` attribute, default float 0); 20 more types;
//!   21, 23-25 types.
//! * ONNX **Range**: 11.
//! * OpenVINO **Range**: 1 (the output has `start`'s type); 4 `output_type`.

use crate::algebra::{Dim, Truth};
use crate::context::{const_fact, float_rat, Expected};
use crate::context::{AttrProblem, AttrValue, ShapeValueProblem};
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::VALUE_FACT_LIMIT;
use crate::graph::{Attr, ConstData, DType, Node};
use crate::ops::common::attrs::ov_dtype;
use crate::ops::common::values::{
    check_int_range, consts, dims_value, fact_with_value, numel, small_const_shape,
};
use crate::ops::common::{check_inputs, fresh_dims};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["Constant"], constant),
    ("", ["ConstantOfShape"], constant_of_shape),
    ("", ["Range"], range),
    ("openvino", ["Range"], ov_range),
];

/// The length of `range(start, limit, delta)`, `max(ceildiv(limit - start, delta),
/// 0)`, and its contents `start + i*delta` when the length is a small constant. A
/// `delta` that is provably 0 is an error naming it `what`.
pub fn range_dims(
    ctx: &mut ShapesContext,
    (start, limit, delta): (Dim, Dim, Dim),
    what: &'static str,
) -> Result<(Dim, Option<Vec<Dim>>), OpError> {
    let zero = ctx.alg.constant(0);
    if ctx.alg.equal(delta, zero) == Truth::True {
        return Err(OpError::BadShapeValue(Box::new(ShapeValueProblem::Zero(
            what,
        ))));
    }
    let span = ctx.alg.sub(limit, start);
    let q = ctx.alg.ceildiv(span, delta);
    let n = ctx.alg.max(q, zero);
    let value: Option<Vec<Dim>> = match ctx.alg.as_i64(n) {
        Some(k) if (0..=VALUE_FACT_LIMIT as i64).contains(&k) => Some(
            (0..k)
                .map(|i| {
                    let c = ctx.alg.constant(i);
                    let step = ctx.alg.mul(c, delta);
                    ctx.alg.add_dims(start, step)
                })
                .collect(),
        ),
        _ => None,
    };
    Ok((n, value))
}

/// The fact of a range whose operands `ops` (with their names) must be scalars;
/// its length is `[unk]` when an operand's value is unknown.
fn range_fact(
    ctx: &mut ShapesContext,
    node: &Node,
    ops: [(&TensorFact, &'static str); 3],
    dtype: DType,
) -> Result<TensorFact, OpError> {
    for (f, what) in ops {
        if let Some(s) = &f.shape {
            let n = ctx.alg.constant(1);
            let p = ctx.alg.product(s);
            if s.len() > 1 || ctx.alg.equal(p, n) == Truth::False {
                return Err(OpError::Rank {
                    of: Box::new(what.into()),
                    expected: Expected::Scalar,
                    found: s.len(),
                });
            }
        }
    }
    let scalar = crate::ops::common::values::scalar_value;
    let [(s, _), (l, _), (d, delta)] = ops;
    let (Some(s), Some(l), Some(d)) = (scalar(s), scalar(l), scalar(d)) else {
        let n = ctx.unknown_dim(node, 0, 0);
        return Ok(TensorFact::new(dtype, vec![n]));
    };
    let (n, value) = range_dims(ctx, (s, l, d), delta)?;
    if let Some(v) = &value {
        check_int_range(&ctx.alg, dtype, v, &node.op_type)?;
    }
    Ok(fact_with_value(dtype, vec![n], value))
}

/// ONNX `Range`: the output has `start`'s type.
fn range(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let start = ctx.input(node, 0, "start")?;
    let limit = ctx.input(node, 1, "limit")?;
    let delta = ctx.input(node, 2, "delta")?;
    let ops = [(&start, "start"), (&limit, "limit"), (&delta, "delta")];
    Ok(vec![range_fact(ctx, node, ops, start.dtype)?])
}

/// OpenVINO `Range` (1: `start`'s type; 4: `output_type`).
fn ov_range(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let start = ctx.input(node, 0, "start")?;
    let stop = ctx.input(node, 1, "stop")?;
    let step = ctx.input(node, 2, "step")?;
    let dtype = match node.version {
        4.. => ov_dtype(node, "output_type")?.unwrap_or(start.dtype),
        _ => start.dtype,
    };
    let ops = [(&start, "start"), (&stop, "stop"), (&step, "step")];
    Ok(vec![range_fact(ctx, node, ops, dtype)?])
}

/// ONNX `Constant`: one of the `value*` attributes.
fn constant(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 0, 0)?;
    const KEYS: [&str; 8] = [
        "value",
        "value_int",
        "value_ints",
        "value_float",
        "value_floats",
        "value_string",
        "value_strings",
        "sparse_value",
    ];
    // One pass over the node's attributes (usually just one): which of the keys it
    // has, as bits in the keys' order.
    let mut given = 0u8;
    let mut found = None;
    for (name, a) in node.attrs.iter() {
        if let Some(i) = KEYS.iter().position(|k| k == name) {
            given |= 1 << i;
            found = Some((KEYS[i], a));
        }
    }
    let (key, attr) = match found {
        None => return Err(OpError::MissingAttribute {
            name:
                "value (or value_int(s), value_float(s), value_string(s); sparse_value is not read)",
        }),
        Some(one) if given.count_ones() == 1 => one,
        Some(_) => {
            let many: Vec<&'static str> = (0..KEYS.len())
                .filter(|i| given & (1 << i) != 0)
                .map(|i| KEYS[i])
                .collect();
            return Err(OpError::BadAttribute {
                name: "value",
                value: AttrValue::Names(many),
                why: Box::new(AttrProblem::Fixed("exactly one value attribute is allowed")),
            });
        }
    };
    let alg = &mut ctx.alg;
    let fact = match (key, attr) {
        ("value", Attr::Tensor(t)) => {
            let mut f = const_fact(alg, t);
            if matches!(t.data, ConstData::NotLoaded) {
                f.value = None;
            }
            f
        }
        ("value_int", Attr::Int(v)) => {
            let c = alg.constant(*v);
            fact_with_value(DType::Int64, vec![], Some(vec![c]))
        }
        ("value_ints", Attr::Ints(v)) => {
            let n = alg.constant(v.len() as i64);
            let value = (v.len() <= VALUE_FACT_LIMIT).then(|| consts(alg, v));
            fact_with_value(DType::Int64, vec![n], value)
        }
        ("value_float", Attr::Float(v)) => {
            let value = float_rat(*v).map(|r| vec![alg.rational(r)]);
            fact_with_value(DType::Float, vec![], value)
        }
        ("value_floats", Attr::Floats(v)) => {
            let n = alg.constant(v.len() as i64);
            let value = if v.len() <= VALUE_FACT_LIMIT {
                v.iter()
                    .map(|x| float_rat(*x).map(|r| alg.rational(r)))
                    .collect()
            } else {
                None
            };
            fact_with_value(DType::Float, vec![n], value)
        }
        ("value_string", Attr::Str(_)) => TensorFact::new(DType::String, vec![]),
        ("value_strings", Attr::Strs(v)) => {
            let n = alg.constant(v.len() as i64);
            TensorFact::new(DType::String, vec![n])
        }
        (key, other) => {
            let name = KEYS.iter().find(|k| **k == key).copied().unwrap_or("value");
            return Err(OpError::BadAttribute {
                name,
                value: AttrValue::from(other),
                why: Box::new(AttrProblem::UnexpectedKind(other.kind())),
            });
        }
    };
    Ok(vec![fact])
}

/// ONNX `ConstantOfShape` (`value`: a one-element tensor, default float 0).
fn constant_of_shape(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let s = ctx.input(node, 0, "input")?;
    let (dtype, fill) = match node.attr("value") {
        None => (DType::Float, Some(ctx.alg.constant(0))),
        Some(Attr::Tensor(t)) => {
            if t.dims.iter().try_fold(1i64, |a, d| a.checked_mul(*d)) != Some(1) {
                return Err(OpError::BadAttribute {
                    name: "value",
                    value: AttrValue::Tensor {
                        dtype: t.dtype,
                        dims: t.dims.clone(),
                    },
                    why: Box::new(AttrProblem::Fixed("must hold exactly one element")),
                });
            }
            let f = const_fact(&mut ctx.alg, t);
            (t.dtype, f.value.and_then(|v| v.first().copied()))
        }
        Some(other) => {
            return Err(OpError::BadAttribute {
                name: "value",
                value: AttrValue::from(other),
                why: Box::new(AttrProblem::ExpectedKind("a one-element tensor")),
            })
        }
    };
    if let Some(sh) = &s.shape {
        if sh.len() != 1 {
            return Err(OpError::Rank {
                of: Box::new("input (the shape)".into()),
                expected: Expected::Exactly(1),
                found: sh.len(),
            });
        }
    }
    let (value, len) = dims_value(&ctx.alg, &s);
    let out = match (value, len) {
        (Some(v), _) => {
            for d in &v {
                if ctx.alg.bounds(*d).is_negative() {
                    return Err(OpError::BadShapeValue(Box::new(
                        ShapeValueProblem::NegativeDim {
                            what: "shape",
                            dims: ctx.alg.exprs(&v),
                        },
                    )));
                }
            }
            v
        }
        (None, Some(k)) => fresh_dims(ctx, node, 0, k),
        (None, None) => return Ok(vec![TensorFact::unknown(dtype)]),
    };
    let value = match (small_const_shape(&ctx.alg, &out), fill) {
        (Some(shape), Some(f)) => Some(vec![f; numel(&shape)]),
        _ => None,
    };
    let mut fact = fact_with_value(dtype, out, value);
    // Over a symbolic (or large) shape, the one fill value: O(1), whatever the size.
    if fact.value.is_none() {
        fact.fill = fill;
    }
    Ok(vec![fact])
}
