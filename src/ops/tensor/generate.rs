//! Tensors whose contents are generated rather than read from an input: ONNX
//! `EyeLike`, `RandomUniform`, `RandomNormal`, `RandomUniformLike`,
//! `RandomNormalLike`, `Bernoulli` and `Multinomial`; OpenVINO `Eye`,
//! `RandomUniform` and `Multinomial`.
//!
//! Specs: the ONNX operator reference (each op's page) and the OpenVINO operation
//! specification (`Eye-9`, `RandomUniform-8`, `Multinomial-13`).
//!
//! Only the shape and the element type come from the operands:
//!
//! * `EyeLike`: the shape of its input, which must have rank 2; ones on the
//!   diagonal `k` (`out[i][i + k] = 1`), zeros elsewhere, so the contents are known
//!   when the shape is a small constant ([`eye_values`]).
//! * `RandomUniform`, `RandomNormal`: the `shape` attribute (required, entries
//!   `>= 0`).
//! * `RandomUniformLike`, `RandomNormalLike`, `Bernoulli`: the shape of the input.
//! * `Multinomial`: `[batch_size, sample_size]` from an input
//!   `[batch_size, class_size]`; `sample_size` (default 1) must be at least 1.
//!
//! Element types: the `dtype` attribute, else the input's (`EyeLike`, the `*Like`
//! ops, `Bernoulli`), float (`RandomUniform`, `RandomNormal`) or int32
//! (`Multinomial`). The random ops produce floats (f16, f32, f64; bf16 from opset
//! 22), `Multinomial` int32 or int64, `EyeLike` and `Bernoulli` any numeric type or
//! bool; `Bernoulli` and `Multinomial` read float probabilities. Another type is an
//! error. The random contents are never known.
//!
//! OpenVINO's generators take their sizes as inputs, so the dims are the inputs'
//! contents (symbolic ones too, [`shape_input`]) and fresh dims where those are not
//! known:
//!
//! * `Eye-9`: `[batch_shape..., num_rows, num_columns]` (`num_columns` defaults to
//!   `num_rows`), `output_type`; ones on the diagonal `diagonal_index`.
//! * `RandomUniform-8`: the `output_shape` input, `output_type`.
//! * `Multinomial-13`: `[batch, num_samples]` from probabilities `[batch,
//!   classes]`, `convert_type`.
//!
//! # Version history
//! * ONNX **EyeLike**: 9; 22 bf16.
//! * ONNX **RandomUniform**, **RandomNormal**, **RandomUniformLike**,
//!   **RandomNormalLike**: 1; 22 bf16.
//! * ONNX **Bernoulli**: 15; 22 bf16 input.
//! * ONNX **Multinomial**: 7; 22 bf16 input.
//! * OpenVINO **Eye**: 9. **RandomUniform**: 8. **Multinomial**: 13.

use crate::algebra::{Algebra, Dim};
use crate::context::{Allowed, OpError, ShapesContext, TensorFact};
use crate::context::{AttrProblem, AttrValue, ShapeValueProblem};
use crate::graph::{DType, Node};
use crate::ops::common::attrs::attr_dtype;
use crate::ops::common::attrs::{attr_int, attr_ints};
use crate::ops::common::dims::{rank_of, shaped};
use crate::ops::common::values::{consts, fact_with_value, small_const_shape};
use crate::ops::common::{check_inputs, fresh_dims};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["EyeLike"], eye_like),
    ("", ["RandomUniform", "RandomNormal"], random),
    ("", ["RandomUniformLike", "RandomNormalLike"], random_like),
    ("", ["Bernoulli"], bernoulli),
    ("", ["Multinomial"], multinomial),
    ("openvino", ["Eye"], ov_eye),
    ("openvino", ["RandomUniform"], ov_random_uniform),
    ("openvino", ["Multinomial"], ov_multinomial),
];

/// The numeric types and bool (EyeLike's, Bernoulli's outputs), before bf16.
const NUMERIC: &[DType] = &[
    DType::Uint8,
    DType::Uint16,
    DType::Uint32,
    DType::Uint64,
    DType::Int8,
    DType::Int16,
    DType::Int32,
    DType::Int64,
    DType::Float16,
    DType::Float,
    DType::Double,
    DType::Bool,
];

/// The float types before bf16.
const FLOATS: &[DType] = &[DType::Float16, DType::Float, DType::Double];

/// `dtype` must be one of `allowed`, or bf16 when `bf16` (or not known yet).
fn check_type(
    dtype: DType,
    allowed: &[DType],
    bf16: bool,
    what: &'static str,
) -> Result<(), OpError> {
    if dtype == DType::Undefined || allowed.contains(&dtype) || (bf16 && dtype == DType::Bfloat16) {
        return Ok(());
    }
    let mut types = allowed.to_vec();
    if bf16 {
        types.push(DType::Bfloat16);
    }
    Err(OpError::UnsupportedType {
        dtype,
        what,
        allowed: Allowed::Types(types),
    })
}

/// The contents of an `EyeLike` output of constant shape `[n, m]`: 1 where
/// `j - i == k`, 0 elsewhere.
pub fn eye_values(alg: &mut Algebra, n: usize, m: usize, k: i64) -> Vec<Dim> {
    let (zero, one) = (alg.constant(0), alg.constant(1));
    (0..n)
        .flat_map(|i| (0..m).map(move |j| (i, j)))
        .map(|(i, j)| if j as i64 - i as i64 == k { one } else { zero })
        .collect()
}

/// ONNX `EyeLike`: the input's shape (rank 2), `dtype` or the input's type.
fn eye_like(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "input")?;
    let bf16 = node.version >= 22;
    check_type(x.dtype, NUMERIC, bf16, "input")?;
    let dtype = attr_dtype(node, "dtype", x.dtype)?;
    check_type(dtype, NUMERIC, bf16, "output (dtype)")?;
    let shape = match x.shape {
        Some(s) if s.len() == 2 => s,
        Some(s) => return Err(rank_of("input", 2, s.len())),
        None => fresh_dims(ctx, node, 0, 2),
    };
    let k = attr_int(node, "k", 0)?;
    let value =
        small_const_shape(&ctx.alg, &shape).map(|d| eye_values(&mut ctx.alg, d[0], d[1], k));
    Ok(vec![fact_with_value(dtype, shape, value)])
}

/// ONNX `RandomUniform` and `RandomNormal`: the `shape` attribute, `dtype` (float by
/// default).
fn random(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 0, 0)?;
    let shape = attr_ints(node, "shape")?.ok_or(OpError::MissingAttribute { name: "shape" })?;
    if let Some(bad) = shape.iter().find(|d| **d < 0) {
        return Err(OpError::BadAttribute {
            name: "shape",
            value: AttrValue::Ints(shape.to_vec()),
            why: Box::new(AttrProblem::EntryNegative(*bad)),
        });
    }
    let dtype = attr_dtype(node, "dtype", DType::Float)?;
    check_type(dtype, FLOATS, node.version >= 22, "output (dtype)")?;
    let dims = consts(&mut ctx.alg, shape);
    Ok(vec![TensorFact::new(dtype, dims)])
}

/// ONNX `RandomUniformLike` and `RandomNormalLike`: the input's shape, `dtype` or
/// the input's type (a float type either way).
fn random_like(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "input")?;
    let dtype = attr_dtype(node, "dtype", x.dtype)?;
    check_type(dtype, FLOATS, node.version >= 22, "output")?;
    Ok(vec![shaped(dtype, x.shape)])
}

/// ONNX `Bernoulli`: the input's shape (float probabilities), `dtype` or the input's
/// type.
fn bernoulli(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "input")?;
    check_type(x.dtype, FLOATS, node.version >= 22, "input")?;
    let dtype = attr_dtype(node, "dtype", x.dtype)?;
    check_type(dtype, NUMERIC, true, "output (dtype)")?;
    Ok(vec![shaped(dtype, x.shape)])
}

/// ONNX `Multinomial`: `[batch_size, sample_size]`, `dtype` int32 (default) or
/// int64.
fn multinomial(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "input")?;
    check_type(x.dtype, FLOATS, node.version >= 22, "input")?;
    let dtype = attr_dtype(node, "dtype", DType::Int32)?;
    check_type(
        dtype,
        &[DType::Int32, DType::Int64],
        false,
        "output (dtype)",
    )?;
    let samples = attr_int(node, "sample_size", 1)?;
    if samples < 1 {
        return Err(OpError::BadAttribute {
            name: "sample_size",
            value: AttrValue::Int(samples),
            why: Box::new(AttrProblem::Below(1)),
        });
    }
    let batch = match x.shape.as_deref() {
        Some([b, _]) => *b,
        Some(s) => return Err(rank_of("input", 2, s.len())),
        None => ctx.unknown_dim(node, 0, 0),
    };
    let samples = ctx.alg.constant(samples);
    Ok(vec![TensorFact::new(dtype, vec![batch, samples])])
}

/// The dims a shape input (a 1-D integer tensor, input `index`) describes: its
/// contents when known (symbolic too), fresh data-dependent dims of output `output`
/// when only its length is, `None` otherwise. A constant negative entry is an
/// error.
pub fn shape_input(
    ctx: &mut ShapesContext,
    node: &Node,
    index: usize,
    output: usize,
) -> Result<Option<Vec<Dim>>, OpError> {
    let f = ctx.input(node, index, "shape")?;
    if let Some(v) = &f.value {
        for d in v {
            if ctx.alg.as_i64(*d).is_some_and(|x| x < 0) {
                return Err(OpError::BadShapeValue(Box::new(
                    ShapeValueProblem::NegativeShapeInput {
                        index,
                        dims: ctx.alg.exprs(v),
                    },
                )));
            }
        }
        return Ok(Some(v.clone()));
    }
    Ok(f.static_len(&ctx.alg)
        .map(|n| fresh_dims(ctx, node, output, n)))
}

/// A scalar (or one-element) size input's value as a dim, a fresh dim of output
/// axis `axis` when not known.
fn size_input(
    ctx: &mut ShapesContext,
    node: &Node,
    index: usize,
    axis: usize,
) -> Result<Dim, OpError> {
    let f = ctx.input(node, index, "size")?;
    Ok(match f.value.as_deref() {
        Some([v]) => *v,
        _ => ctx.unknown_dim(node, 0, axis),
    })
}

/// OpenVINO `Eye-9`.
fn ov_eye(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 4)?;
    let dtype = crate::ops::common::attrs::ov_dtype(node, "output_type")?.unwrap_or(DType::Float);
    let mut out = match node.input(3) {
        Some(_) => match shape_input(ctx, node, 3, 0)? {
            Some(b) => b,
            None => return Ok(vec![TensorFact::unknown(dtype)]),
        },
        None => Vec::new(),
    };
    let b = out.len();
    let rows = size_input(ctx, node, 0, b)?;
    let cols = if node.input(1).is_some() {
        size_input(ctx, node, 1, b + 1)?
    } else {
        rows
    };
    out.extend([rows, cols]);
    let k = match node.input(2) {
        Some(_) => {
            crate::ops::common::values::scalar_int(&ctx.alg, &ctx.input(node, 2, "diagonal_index")?)
        }
        None => Some(0),
    };
    let value = (|| {
        let d = small_const_shape(&ctx.alg, &out)?;
        (d.len() == 2).then_some(())?;
        Some(eye_values(&mut ctx.alg, d[0], d[1], k?))
    })();
    Ok(vec![fact_with_value(dtype, out, value)])
}

/// OpenVINO `RandomUniform-8`.
fn ov_random_uniform(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let dtype = crate::ops::common::attrs::ov_dtype(node, "output_type")?.unwrap_or(DType::Float);
    let shape = shape_input(ctx, node, 0, 0)?;
    Ok(vec![shaped(dtype, shape)])
}

/// OpenVINO `Multinomial-13`.
fn ov_multinomial(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "probs")?;
    let dtype = crate::ops::common::attrs::ov_dtype(node, "convert_type")?.unwrap_or(DType::Int64);
    let batch = match x.shape.as_deref() {
        Some([b, _]) => *b,
        Some(s) => return Err(rank_of("probs", 2, s.len())),
        None => ctx.unknown_dim(node, 0, 0),
    };
    let n = size_input(ctx, node, 1, 1)?;
    Ok(vec![TensorFact::new(dtype, vec![batch, n])])
}
