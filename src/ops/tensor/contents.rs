//! Ops on tensor contents element by element: ONNX `CumSum`, `CumProd` and
//! `ReverseSequence`; OpenVINO `CumSum`, `ReverseSequence`, `Bucketize`,
//! `SearchSorted` and the state ops `ReadValue` and `Assign`. (ONNX `Where` is OpenVINO's `Select`: it lives with
//! it in `elementwise.rs`.)
//!
//! Specs: the ONNX operator reference (`CumSum`, `CumProd`, `ReverseSequence`) and
//! the OpenVINO operation specification (`CumSum-3`, `ReverseSequence-1`,
//! `Bucketize-3`, `SearchSorted-15`, `ReadValue-3`, `-6`, `Assign-3`, `-6`).
//!
//! * `CumSum` keeps the shape; its contents are running sums along the axis (a
//!   scalar input) through the algebra, `exclusive` and `reverse` as the attributes
//!   say. `CumProd` is the same with running products ([`cumulative_values`]).
//!   OpenVINO `CumSum` runs the same kernel: its `axis` input is optional (0 when
//!   absent), `exclusive` and `reverse` are booleans; its values are not checked
//!   against the type's range (ONNX's are, as onnx's data propagation does).
//! * `ReverseSequence` keeps the shape: `sequence_lens [batch]` (int64) gives how
//!   many leading elements along `time_axis` each batch entry reverses. The axes are
//!   0 and 1 (one each); the lengths' size is equated with the batch dim. The
//!   contents of a small known input with known lengths are computed
//!   (`reverse_sequence_values`). OpenVINO `ReverseSequence` runs the same
//!   kernel: `data` and `seq_lengths` (any numeric type), `batch_axis` (default 0)
//!   and `seq_axis` (default 1) anywhere in `[-rank, rank - 1]`; an undecided
//!   batch size is recorded without a warning, as the OpenVINO rules do.
//!
//! * OpenVINO `Bucketize` gives each element of `data` its bucket index: the
//!   data's shape, `output_type` (i64 by default). `SearchSorted` gives each of
//!   `values` its insertion index into `sorted_sequence`: the values' shape, i64.
//! * OpenVINO `ReadValue` reads a variable: the shape and type of its `init` input
//!   when there is one, else its `variable_shape` (decoded by the reader: `?`
//!   and interval dims become fresh, `...` is an unknown rank) and
//!   `variable_type`. `Assign` writes one and passes its input through.
//!
//! # Version history
//! * ONNX **CumSum**: 11 (`axis` is a scalar input; `exclusive`, `reverse`); 14 types.
//! * ONNX **CumProd**: 26 (as CumSum-14, with products).
//! * ONNX **ReverseSequence**: 10; 28 (types).
//! * OpenVINO **CumSum**: 3. **ReverseSequence**: 1.
//! * OpenVINO **Bucketize**: 3. **SearchSorted**: 15. **ReadValue**, **Assign**: 3
//!   (`variable_id`); 6 (typed variables; ReadValue's `init` optional).

use crate::algebra::Dim;
use crate::context::DimRole;
use crate::context::{Allowed, Expected, OpError, ShapesContext, TensorFact};
use crate::context::{AttrProblem, AttrValue};
use crate::graph::{DType, DeclDim, Node};
use crate::ops::common::attrs::attr_int;
use crate::ops::common::attrs::{ov_bool, ov_dtype, ov_i64, ov_shape};
use crate::ops::common::dims::{merge_dim_as, rank_of, shaped, Equate};
use crate::ops::common::values::{check_int_range, fact_with_value, scalar_int, small_value};
use crate::ops::common::{check_inputs, norm_axis};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["CumSum", "CumProd"], cumsum),
    ("", ["ReverseSequence"], reverse_sequence),
    ("openvino", ["CumSum"], ov_cumsum),
    ("openvino", ["ReverseSequence"], ov_reverse_sequence),
    ("openvino", ["Bucketize"], ov_bucketize),
    ("openvino", ["SearchSorted"], ov_search_sorted),
    ("openvino", ["ReadValue"], ov_read_value),
    ("openvino", ["Assign"], ov_assign),
];

/// A running sum or product along one axis: what the CumSum kernel computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cumulative {
    /// The axis, normalised; `None` when it is not known.
    pub axis: Option<usize>,
    /// Each output element leaves out its own input element.
    pub exclusive: bool,
    /// Accumulate from the end of the axis.
    pub reverse: bool,
    /// Products (from 1) instead of sums (from 0).
    pub product: bool,
}

/// The contents of a cumulative sum or product of `x` (ONNX CumSum and CumProd,
/// OpenVINO CumSum): running sums or products along the axis through the algebra,
/// when `x` is a small known tensor and the axis is known.
pub fn cumulative_values(
    ctx: &mut ShapesContext,
    x: &TensorFact,
    c: Cumulative,
) -> Option<Vec<Dim>> {
    let axis = c.axis?;
    let (shape, v) = small_value(&ctx.alg, x)?;
    let inner: usize = shape[axis + 1..].iter().product();
    let n = shape[axis];
    let outer: usize = shape[..axis].iter().product();
    let mut out = v.clone();
    for o in 0..outer {
        for i in 0..inner {
            let mut acc = ctx.alg.constant(i64::from(c.product));
            let order: Vec<usize> = if c.reverse {
                (0..n).rev().collect()
            } else {
                (0..n).collect()
            };
            for k in order {
                let at = (o * n + k) * inner + i;
                let next = if c.product {
                    ctx.alg.mul(acc, v[at])
                } else {
                    ctx.alg.add_dims(acc, v[at])
                };
                out[at] = if c.exclusive { acc } else { next };
                acc = next;
            }
        }
    }
    Some(out)
}

/// The axis of a cumulative op from its scalar `axis` input, normalised against
/// `rank` when it is a known constant.
fn cumulative_axis(
    ctx: &ShapesContext,
    axis: &TensorFact,
    rank: usize,
) -> Result<Option<usize>, OpError> {
    match scalar_int(&ctx.alg, axis) {
        Some(a) => Ok(Some(norm_axis(a, rank)?)),
        None => Ok(None),
    }
}

/// ONNX `CumSum` (11, 14) and `CumProd` (26).
fn cumsum(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "x")?;
    let axis = ctx.input(node, 1, "axis")?;
    let Some(dims) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let c = Cumulative {
        axis: cumulative_axis(ctx, &axis, dims.len())?,
        exclusive: attr_int(node, "exclusive", 0)? != 0,
        reverse: attr_int(node, "reverse", 0)? != 0,
        product: node.op_type == "CumProd",
    };
    let value = cumulative_values(ctx, &x, c);
    if let Some(v) = &value {
        check_int_range(&ctx.alg, x.dtype, v, &node.op_type)?;
    }
    Ok(vec![fact_with_value(x.dtype, dims, value)])
}

/// OpenVINO `CumSum-3`: `arg` and an optional scalar `axis` input (0 when
/// absent), the boolean `exclusive` and `reverse` attributes; the CumSum kernel.
/// OpenVINO values are not checked against the type's range.
fn ov_cumsum(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 2)?;
    let x = ctx.input(node, 0, "arg")?;
    let axis = ctx.optional_input(node, 1)?;
    let exclusive = ov_bool(node, "exclusive", false)?;
    let reverse = ov_bool(node, "reverse", false)?;
    let Some(dims) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let axis = match axis {
        Some(a) => cumulative_axis(ctx, &a, dims.len())?,
        None => Some(norm_axis(0, dims.len())?),
    };
    let c = Cumulative {
        axis,
        exclusive,
        reverse,
        product: false,
    };
    let value = cumulative_values(ctx, &x, c);
    Ok(vec![fact_with_value(x.dtype, dims, value)])
}

/// ONNX `ReverseSequence` (10, 28).
fn reverse_sequence(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "input")?;
    let lens = ctx.input(node, 1, "sequence_lens")?;
    let time = attr_int(node, "time_axis", 0)?;
    let batch = attr_int(node, "batch_axis", 1)?;
    for (name, v) in [("time_axis", time), ("batch_axis", batch)] {
        if !(0..=1).contains(&v) {
            return Err(OpError::BadAttribute {
                name,
                value: AttrValue::Int(v),
                why: Box::new(AttrProblem::one_of_ints(&[0, 1])),
            });
        }
    }
    if time == batch {
        return Err(OpError::BadAttribute {
            name: "batch_axis",
            value: AttrValue::Int(batch),
            why: Box::new(AttrProblem::Fixed("time_axis and batch_axis must differ")),
        });
    }
    if lens.dtype != DType::Int64 && lens.dtype != DType::Undefined {
        return Err(OpError::UnsupportedType {
            dtype: lens.dtype,
            what: "sequence_lens",
            allowed: Allowed::OnnxTypes(vec![DType::Int64]),
        });
    }
    let Some(dims) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    if dims.len() < 2 {
        return Err(rank_of("input", Expected::AtLeast(2), dims.len()));
    }
    let seq = Sequences {
        time: time as usize,
        batch: batch as usize,
        names: ("input", "sequence_lens"),
        equate: Equate::Warn,
    };
    let value = reverse_sequence_values(ctx, node, &x, &dims, &lens, &seq)?;
    Ok(vec![fact_with_value(x.dtype, dims, value)])
}

/// OpenVINO `ReverseSequence-1`: `data` of rank 2 or more and `seq_lengths`
/// (any numeric type) of `[data[batch_axis]]`; `batch_axis` (default 0) and
/// `seq_axis` (default 1) count from the end when negative. The ReverseSequence
/// kernel; a valid model needs the lengths' size equal to the batch dim (recorded
/// when undecided).
fn ov_reverse_sequence(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "data")?;
    let lens = ctx.input(node, 1, "seq_lengths")?;
    let batch = ov_i64(node, "batch_axis")?.unwrap_or(0);
    let time = ov_i64(node, "seq_axis")?.unwrap_or(1);
    let Some(dims) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    if dims.len() < 2 {
        return Err(rank_of("data", Expected::AtLeast(2), dims.len()));
    }
    let seq = Sequences {
        time: norm_axis(time, dims.len())?,
        batch: norm_axis(batch, dims.len())?,
        names: ("data", "seq_lengths"),
        equate: Equate::Record,
    };
    let value = reverse_sequence_values(ctx, node, &x, &dims, &lens, &seq)?;
    Ok(vec![fact_with_value(x.dtype, dims, value)])
}

/// The axes of a ReverseSequence, normalised, and how its rule names and equates.
struct Sequences {
    /// The axis whose prefixes are reversed (ONNX `time_axis`, OpenVINO `seq_axis`).
    time: usize,
    /// The batch axis: one length per entry.
    batch: usize,
    /// The names of the data and lengths inputs, for messages.
    names: (&'static str, &'static str),
    /// How the lengths' size is equated with the batch dim.
    equate: Equate,
}

/// The ReverseSequence kernel over `x` of shape `dims` (rank 2 or more) and the
/// lengths `lens`: `lens` must be 1-D of the batch dim's size; the contents of a
/// small known input with known lengths, each in `[0, dims[time]]` (none when the
/// two axes are one).
fn reverse_sequence_values(
    ctx: &mut ShapesContext,
    node: &Node,
    x: &TensorFact,
    dims: &[Dim],
    lens: &TensorFact,
    seq: &Sequences,
) -> Result<Option<Vec<Dim>>, OpError> {
    let (time, batch) = (seq.time, seq.batch);
    let (data_name, lens_name) = seq.names;
    if let Some(ls) = &lens.shape {
        if ls.len() != 1 {
            return Err(rank_of(lens_name, 1, ls.len()));
        }
        seq.equate.dims_as(
            ctx,
            node,
            DimRole::of("batch", (data_name, lens_name)),
            dims[batch],
            ls[0],
        )?;
    }
    if time == batch {
        return Ok(None);
    }
    // The contents of a small known input with known lengths.
    let value = (|| {
        let (shape, v) = small_value(&ctx.alg, x)?;
        let lens: Vec<usize> = lens
            .value
            .as_ref()?
            .iter()
            .map(|d| ctx.alg.as_i64(*d).and_then(|l| usize::try_from(l).ok()))
            .collect::<Option<_>>()?;
        if lens.len() != shape[batch] || lens.iter().any(|l| *l > shape[time]) {
            return None;
        }
        let mut strides = vec![1usize; shape.len()];
        for a in (0..shape.len() - 1).rev() {
            strides[a] = strides[a + 1] * shape[a + 1];
        }
        let mut out = v.clone();
        for (flat, slot) in out.iter_mut().enumerate() {
            let t = flat / strides[time] % shape[time];
            let b = flat / strides[batch] % shape[batch];
            if t < lens[b] {
                let src = flat - t * strides[time] + (lens[b] - 1 - t) * strides[time];
                *slot = v[src];
            }
        }
        Some(out)
    })();
    Ok(value)
}

/// OpenVINO `Bucketize-3`: the data's shape, `output_type`.
fn ov_bucketize(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "data")?;
    let dtype = ov_dtype(node, "output_type")?.unwrap_or(DType::Int64);
    Ok(vec![shaped(dtype, x.shape)])
}

/// OpenVINO `SearchSorted-15`: the values' shape, i64.
fn ov_search_sorted(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let seq = ctx.input(node, 0, "sorted_sequence")?;
    let values = ctx.input(node, 1, "values")?;
    if let (Some(s), Some(v)) = (&seq.shape, &values.shape) {
        if s.len() > 1 && s.len() != v.len() {
            return Err(rank_of(
                "values",
                Expected::Exactly(s.len()).noted("the rank of sorted_sequence"),
                v.len(),
            ));
        }
        if s.len() > 1 {
            for a in 0..s.len() - 1 {
                merge_dim_as(
                    ctx,
                    node,
                    DimRole::axis(a, ("sorted_sequence", "values")),
                    s[a],
                    v[a],
                )?;
            }
        }
    }
    let dtype = ov_dtype(node, "output_type")?.unwrap_or(DType::Int64);
    Ok(vec![shaped(dtype, values.shape)])
}

/// The dims of a decoded `variable_shape`: constants stay, `?` and intervals
/// become fresh dims.
fn variable_shape(ctx: &mut ShapesContext, node: &Node, dims: &[DeclDim]) -> Vec<Dim> {
    dims.iter()
        .enumerate()
        .map(|(axis, d)| match d {
            DeclDim::Value(v) => ctx.alg.constant(*v),
            _ => ctx.unknown_dim(node, 0, axis),
        })
        .collect()
}

/// OpenVINO `ReadValue` (3, 6).
fn ov_read_value(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 0, 1)?;
    if let Some(init) = ctx.optional_input(node, 0)? {
        return Ok(vec![shaped(init.dtype, init.shape)]);
    }
    let dtype = ov_dtype(node, "variable_type")?.unwrap_or(DType::Undefined);
    let shape = ov_shape(node, "variable_shape")?
        .flatten()
        .map(|dims| variable_shape(ctx, node, dims));
    Ok(vec![shaped(dtype, shape)])
}

/// OpenVINO `Assign` (3, 6): its input, passed through.
fn ov_assign(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "new_value")?;
    Ok(vec![shaped(x.dtype, x.shape); node.outputs.len()])
}
