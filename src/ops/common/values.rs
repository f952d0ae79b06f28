//! The contents of small tensors: reading integer constants, and broadcasting and
//! selecting the values that shape subgraphs carry (`Shape → Gather → Concat`).
//!
//! A tensor carries its contents only up to [`VALUE_FACT_LIMIT`] elements; every
//! helper here keeps to that bound.

use crate::algebra::{Algebra, Dim, Rat};
use crate::context::{AttrProblem, AttrValue, ShapeValueProblem};
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node, VALUE_FACT_LIMIT};

/// An integer-list operand (axes, repeats, ...) given as an input tensor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IntsArg {
    /// The optional input is absent.
    Absent,
    /// The input is present but its contents are not known; the element count
    /// when it is known.
    Unknown(Option<usize>),
    /// The contents, all integer constants.
    Known(Vec<i64>),
}

/// Read input `index` as an integer list: absent, unknown, or known constants.
pub fn ints_input(ctx: &ShapesContext, node: &Node, index: usize) -> Result<IntsArg, OpError> {
    let Some(f) = ctx.optional_input(node, index)? else {
        return Ok(IntsArg::Absent);
    };
    if let Some(v) = &f.value {
        if let Some(ints) = const_dims(&ctx.alg, v) {
            return Ok(IntsArg::Known(ints));
        }
        return Ok(IntsArg::Unknown(Some(v.len())));
    }
    Ok(IntsArg::Unknown(list_len(&ctx.alg, &f)))
}

/// An axes list normalised against `rank` (negative entries count from the end): an
/// axis out of range is [`OpError::AxisOutOfRange`], a repeated one
/// [`OpError::BadShapeValue`].
pub fn norm_axes(axes: &[i64], rank: usize) -> Result<Vec<usize>, OpError> {
    let out: Vec<usize> = axes
        .iter()
        .map(|a| crate::ops::common::norm_axis(*a, rank))
        .collect::<Result<_, _>>()?;
    for (i, a) in out.iter().enumerate() {
        if out[..i].contains(a) {
            return Err(OpError::BadShapeValue(Box::new(
                ShapeValueProblem::RepeatedAxis {
                    axes: axes.to_vec(),
                    axis: *a,
                },
            )));
        }
    }
    Ok(out)
}

/// A shape-like operand (a target shape, repeats, split sizes, slice bounds): its
/// contents as dims when known, and its length when that is a constant.
pub fn dims_value(alg: &Algebra, f: &TensorFact) -> (Option<Vec<Dim>>, Option<usize>) {
    match &f.value {
        Some(v) => (Some(v.clone()), Some(v.len())),
        None => (None, list_len(alg, f)),
    }
}

/// [`norm_axes`] for an `axes` attribute: a repeated axis is
/// [`OpError::BadAttribute`].
pub fn attr_axes(axes: &[i64], rank: usize) -> Result<Vec<usize>, OpError> {
    norm_axes(axes, rank).map_err(|e| match e {
        OpError::BadShapeValue { .. } => OpError::BadAttribute {
            name: "axes",
            value: AttrValue::Ints(axes.to_vec()),
            why: Box::new(AttrProblem::Fixed("an axis is repeated")),
        },
        e => e,
    })
}

/// The element count of a 1-D (or scalar) tensor, when its length is a constant.
pub fn list_len(alg: &Algebra, f: &TensorFact) -> Option<usize> {
    f.static_len(alg)
}

/// Every dim as an `i64` constant, or `None`.
pub fn const_dims(alg: &Algebra, dims: &[Dim]) -> Option<Vec<i64>> {
    dims.iter().map(|d| alg.as_i64(*d)).collect()
}

/// A shape of non-negative constants whose element count is at most
/// [`VALUE_FACT_LIMIT`] (so values over it may be materialised), or `None`.
pub fn small_const_shape(alg: &Algebra, shape: &[Dim]) -> Option<Vec<usize>> {
    let dims: Vec<usize> = shape
        .iter()
        .map(|d| alg.as_i64(*d).and_then(|v| usize::try_from(v).ok()))
        .collect::<Option<_>>()?;
    let mut n: usize = 1;
    for d in &dims {
        n = n.checked_mul(*d)?;
    }
    (n <= VALUE_FACT_LIMIT).then_some(dims)
}

/// The element count of a constant shape (no overflow: callers pass shapes from
/// [`small_const_shape`]).
pub fn numel(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// A fact with a value, dropping the value when it is larger than
/// [`VALUE_FACT_LIMIT`].
pub fn fact_with_value(dtype: DType, shape: Vec<Dim>, value: Option<Vec<Dim>>) -> TensorFact {
    TensorFact {
        fill: None,
        dtype,
        shape: Some(shape),
        value: value.filter(|v| v.len() <= VALUE_FACT_LIMIT),
    }
}

/// The value of a fact whose shape is a small constant shape: `(dims, value)`.
pub fn small_value(alg: &Algebra, f: &TensorFact) -> Option<(Vec<usize>, Vec<Dim>)> {
    let value = f.value.clone()?;
    let dims = small_const_shape(alg, f.shape.as_deref()?)?;
    (numel(&dims) == value.len()).then_some((dims, value))
}

/// For every element of a tensor of shape `out` (row-major), the index of the
/// element of an input of shape `inp` it reads under numpy broadcasting.
pub fn broadcast_map(out: &[usize], inp: &[usize]) -> Vec<usize> {
    let n = numel(out);
    let offset = out.len().saturating_sub(inp.len());
    (0..n)
        .map(|flat| {
            let mut rem = flat;
            let mut coords = vec![0usize; out.len()];
            for axis in (0..out.len()).rev() {
                coords[axis] = rem % out[axis].max(1);
                rem /= out[axis].max(1);
            }
            let mut idx = 0usize;
            for (j, &d) in inp.iter().enumerate() {
                let c = if d == 1 { 0 } else { coords[offset + j] };
                idx = idx * d + c;
            }
            idx
        })
        .collect()
}

/// Broadcast the values of several inputs to the output shape `out`: each input's
/// value, one element per output element. `None` when a shape is not a small
/// constant or a value is unknown.
pub fn broadcast_values(
    alg: &Algebra,
    out: &[Dim],
    inputs: &[&TensorFact],
) -> Option<Vec<Vec<Dim>>> {
    let out = small_const_shape(alg, out)?;
    inputs
        .iter()
        .map(|f| {
            let (dims, value) = small_value(alg, f)?;
            Some(
                broadcast_map(&out, &dims)
                    .into_iter()
                    .map(|i| value[i])
                    .collect(),
            )
        })
        .collect()
}

/// The elements at the cartesian product of per-axis index lists, row-major: the
/// general "take" behind Slice, Split, Gather and Tile values.
pub fn take_values(value: &[Dim], shape: &[usize], per_axis: &[Vec<usize>]) -> Vec<Dim> {
    let mut strides = vec![1usize; shape.len()];
    for axis in (0..shape.len().saturating_sub(1)).rev() {
        strides[axis] = strides[axis + 1] * shape[axis + 1];
    }
    let mut out = Vec::new();
    let total: usize = per_axis.iter().map(Vec::len).product();
    if total == 0 {
        return out;
    }
    let mut pos = vec![0usize; per_axis.len()];
    loop {
        let flat: usize = pos
            .iter()
            .enumerate()
            .map(|(axis, &k)| per_axis[axis][k] * strides[axis])
            .sum();
        out.push(value[flat]);
        // advance the odometer
        let mut axis = per_axis.len();
        loop {
            if axis == 0 {
                return out;
            }
            axis -= 1;
            pos[axis] += 1;
            if pos[axis] < per_axis[axis].len() {
                break;
            }
            pos[axis] = 0;
        }
    }
}

/// The range of an integer type (not bool), as `(min, max)`.
pub fn int_range(t: DType) -> Option<(Rat, Rat)> {
    let bits = t.bit_width()?;
    let signed = matches!(
        t,
        DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64 | DType::Int4 | DType::Int2
    );
    let unsigned = matches!(
        t,
        DType::Uint8 | DType::Uint16 | DType::Uint32 | DType::Uint64 | DType::Uint4 | DType::Uint2
    );
    // `[-2^(bits-1), 2^(bits-1) - 1]` or `[0, 2^bits - 1]`.
    let range = |bits: u32, unsigned: bool| -> Option<(Rat, Rat)> {
        let pow = |e: u32| Rat::int(2).pow(e as i32);
        Some(if unsigned {
            (Rat::zero(), pow(bits)?.sub(&Rat::one()))
        } else {
            let half = pow(bits - 1)?;
            (half.neg(), half.sub(&Rat::one()))
        })
    };
    if !signed && !unsigned {
        return None;
    }
    if bits != 64 {
        return range(bits, unsigned);
    }
    // The 64-bit ranges are big rationals: compute each once.
    static RANGES: std::sync::OnceLock<[Option<(Rat, Rat)>; 2]> = std::sync::OnceLock::new();
    RANGES.get_or_init(|| [range(64, false), range(64, true)])[usize::from(unsigned)].clone()
}

/// An integer value whose constants leave the element type's range is an error
/// (onnx reports `INT64_MAX + 1` as an overflow during data propagation); symbolic
/// elements are not checked.
pub fn check_int_range(
    alg: &Algebra,
    dtype: DType,
    value: &[Dim],
    op: &str,
) -> Result<(), OpError> {
    let Some((lo, hi)) = int_range(dtype) else {
        return Ok(());
    };
    for d in value {
        if let Some(c) = alg.as_const(*d) {
            if c < lo || c > hi {
                return Err(OpError::BadShapeValue(Box::new(
                    ShapeValueProblem::Overflow {
                        op: op.to_string(),
                        dtype,
                        result: c,
                        lo,
                        hi,
                    },
                )));
            }
        }
    }
    Ok(())
}

/// The element of a one-element tensor (a scalar or a `[1]`) whose value is known.
pub fn scalar_value(f: &TensorFact) -> Option<Dim> {
    match f.value.as_deref() {
        Some([v]) => Some(*v),
        _ => None,
    }
}

/// [`scalar_value`] when it is an integer constant.
pub fn scalar_int(alg: &Algebra, f: &TensorFact) -> Option<i64> {
    scalar_value(f).and_then(|v| alg.as_i64(v))
}

/// A `Vec<Dim>` of constants.
pub fn consts(alg: &mut Algebra, v: &[i64]) -> Vec<Dim> {
    v.iter().map(|x| alg.constant(*x)).collect()
}

/// The integer contents of a tensor when every element is a known integer
/// constant.
pub fn const_ints(alg: &Algebra, fact: &TensorFact) -> Option<Vec<i64>> {
    const_dims(alg, fact.value.as_ref()?)
}

/// The number of elements of a tensor when its shape is fully constant.
pub fn const_len(alg: &Algebra, fact: &TensorFact) -> Option<i64> {
    let shape = fact.shape.as_ref()?;
    let mut n: i64 = 1;
    for d in shape {
        n = n.checked_mul(alg.as_i64(*d)?)?;
    }
    Some(n)
}
