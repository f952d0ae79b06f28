//! Writing into a copy of a tensor by index: ONNX `ScatterElements`, its deprecated
//! first name `Scatter`, and `ScatterND`; OpenVINO `ScatterElementsUpdate`,
//! `ScatterNDUpdate` and `ScatterUpdate`.
//!
//! Specs: the ONNX operator reference (`ScatterElements`, `Scatter`, `ScatterND`)
//! and the OpenVINO operation specification (`ScatterElementsUpdate-3`, `-12`,
//! `ScatterNDUpdate-3`, `-15`, `ScatterUpdate-3`).
//!
//! Both ops copy `data` and overwrite (or reduce into) some of its elements, so the
//! output has data's shape and element type whatever the indices hold; `updates`
//! has data's element type.
//!
//! * `ScatterElements` (`Scatter`) is the inverse of `GatherElements`: `data`,
//!   `indices` and `updates` have one rank `r >= 1`, `indices` and `updates` one
//!   shape, which off `axis` is no larger than data's (the checks of
//!   [`element_indices_check`]); `output[indices[i][j]][j] = updates[i][j]` for
//!   `axis = 0`.
//! * `ScatterND` is the inverse of `GatherND`: `indices` (int64, rank `q >= 1`) is a
//!   `(q-1)`-dimensional tensor of `k`-tuples, `k = indices.shape[-1]` in `[0, r]`,
//!   each tuple addressing a slice `data[t]` of shape `data.shape[k:]`; `updates`
//!   has shape `indices.shape[:-1] + data.shape[k:]` ([`scatter_nd_updates_shape`]).
//!
//! Dims that a valid model needs equal (indices and updates, the updates' expected
//! shape) are equated as the other ONNX rules do ([`crate::ops::common::dims::unify_as`]; the
//! OpenVINO rules without a warning). With small known data and updates and
//! constant indices the output's contents are computed
//! ([`scatter_values`]): a reduction through the algebra; with `reduction = none`
//! two writes to one element leave the contents unknown, since the spec leaves
//! their order open.
//!
//! OpenVINO's ops take the same kernels ([`scatter_elements_fact`],
//! [`scatter_nd_fact`]); `ScatterElementsUpdate` and `ScatterUpdate` read `axis`
//! from input 3 (a constant; when it is not known the output still has data's
//! shape). `ScatterUpdate` writes whole slices: `updates` has shape
//! `data[:axis] + indices.shape + data[axis+1:]`. The reductions `sum`, `sub`,
//! `prod`, `min`, `max` are computed like ONNX's; `mean`, and a reduction without
//! `use_init_val`, leave the contents unknown.
//!
//! Special values: a negative index counts from the end; a constant index provably
//! outside `[-d, d-1]` is an error. `k = 0` writes each update over the whole tensor
//! (onnxruntime accepts it).
//!
//! # Version history
//! * ONNX **Scatter**: 9; 11 deprecated in favour of ScatterElements (onnxruntime
//!   rejects it from opset 11; symdim reads it as ScatterElements in every opset).
//! * ONNX **ScatterElements**: 11 (negative indices); 13 bf16; 16 `reduction`
//!   (`none`, `add`, `mul`); 18 `max` and `min`.
//! * ONNX **ScatterND**: 11; 13 bf16; 16 `reduction` (`none`, `add`, `mul`); 18
//!   `max` and `min`.
//! * OpenVINO **ScatterElementsUpdate**: 3; 12 `reduction` (`none`, `sum`, `prod`,
//!   `min`, `max`, `mean`) and `use_init_val`.
//! * OpenVINO **ScatterNDUpdate**: 3; 15 `reduction` (`none`, `sum`, `sub`, `prod`,
//!   `min`, `max`).
//! * OpenVINO **ScatterUpdate**: 3.

use crate::algebra::{Algebra, Dim};
use crate::context::DimRole;
use crate::context::{Allowed, Expected, OpError, ShapesContext, TensorFact, TypeConflict};
use crate::context::{AttrProblem, AttrValue, Choices, ShapeValueProblem};
use crate::graph::{DType, Node};
use crate::ops::common::attrs::{attr_int, attr_str};
use crate::ops::common::attrs::{ov_bool, ov_str};
use crate::ops::common::dims::{merge_dims_as, rank_of, shaped, Equate};
use crate::ops::common::values::{
    check_int_range, const_ints, fact_with_value, small_const_shape, small_value,
};
use crate::ops::common::{check_inputs, norm_axis};
use crate::ops::tensor::gather::{
    check_const_indices, check_index_type, element_indices_check, element_targets,
};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["Scatter", "ScatterElements"], scatter_elements),
    ("", ["ScatterND"], scatter_nd),
    ("openvino", ["ScatterElementsUpdate"], ov_scatter_elements_update),
    ("openvino", ["ScatterNDUpdate"], ov_scatter_nd_update),
    ("openvino", ["ScatterUpdate"], ov_scatter_update),
];

/// How an update combines with the element it lands on (`reduction`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// The update replaces the element.
    None,
    /// `element + update`.
    Add,
    /// `element * update`.
    Mul,
    /// `element - update` (OpenVINO ScatterNDUpdate-15's `sub`).
    Sub,
    /// `max(element, update)`.
    Max,
    /// `min(element, update)`.
    Min,
}

/// The `reduction` attribute of a version: absent before 16, where every write
/// replaces; `max` and `min` from 18.
pub fn reduction(node: &Node) -> Result<Reduction, OpError> {
    if node.version < 16 {
        return Ok(Reduction::None);
    }
    let name = attr_str(node, "reduction")?.unwrap_or("none");
    match name {
        "none" => Ok(Reduction::None),
        "add" => Ok(Reduction::Add),
        "mul" => Ok(Reduction::Mul),
        "max" if node.version >= 18 => Ok(Reduction::Max),
        "min" if node.version >= 18 => Ok(Reduction::Min),
        other => Err(OpError::BadAttribute {
            name: "reduction",
            value: AttrValue::Str(other.to_string()),
            why: Box::new(if node.version >= 18 {
                AttrProblem::one_of(&["none", "add", "mul", "max", "min"])
            } else {
                AttrProblem::NotOneOf {
                    accepted: Choices::Names(vec!["none", "add", "mul"]),
                    note: Some("max and min from opset 18"),
                }
            }),
        }),
    }
}

/// The contents of `data` after writing `updates[i]` to the flat position
/// `targets[i]` for every `i`, combined as `reduction` says. `None` when
/// `reduction` is `None` and two updates land on one element.
pub fn scatter_values(
    alg: &mut Algebra,
    data: &[Dim],
    updates: &[Dim],
    targets: &[usize],
    reduction: Reduction,
) -> Option<Vec<Dim>> {
    if updates.len() != targets.len() {
        return None;
    }
    let mut out = data.to_vec();
    let mut written = vec![false; data.len()];
    for (&t, &u) in targets.iter().zip(updates) {
        let old = *out.get(t)?;
        out[t] = match reduction {
            Reduction::None if written[t] => return None,
            Reduction::None => u,
            Reduction::Add => alg.add_dims(old, u),
            Reduction::Mul => alg.mul(old, u),
            Reduction::Sub => alg.sub(old, u),
            Reduction::Max => alg.max(old, u),
            Reduction::Min => alg.min(old, u),
        };
        written[t] = true;
    }
    Some(out)
}

/// The shape `updates` must have in `ScatterND`: `indices.shape[:-1] +
/// data.shape[k:]`, where `k = indices.shape[-1]` must lie in `[0, rank(data)]`.
pub fn scatter_nd_updates_shape(
    data: &[Dim],
    indices: &[Dim],
    k: i64,
) -> Result<Vec<Dim>, OpError> {
    let r = data.len();
    let Some(k) = usize::try_from(k).ok().filter(|k| *k <= r) else {
        return Err(OpError::BadShapeValue(Box::new(
            ShapeValueProblem::ScatterIndexDepth { depth: k, rank: r },
        )));
    };
    let mut out = indices[..indices.len().saturating_sub(1)].to_vec();
    out.extend_from_slice(&data[k..]);
    Ok(out)
}

/// The flat positions in a tensor of shape `data` that `ScatterND` writes, in the
/// row-major order of `updates`: each of the `tuples` `k`-tuples of `idx` (negative
/// entries wrap) picks the slice of `data.shape[k..]` elements it addresses. `None`
/// when an index lies outside `data`.
pub fn scatter_nd_targets(
    data: &[usize],
    idx: &[i64],
    k: usize,
    tuples: usize,
) -> Option<Vec<usize>> {
    if k > data.len() || idx.len() != tuples * k {
        return None;
    }
    let slice: usize = data[k..].iter().product();
    let mut out = Vec::with_capacity(tuples * slice);
    for t in 0..tuples {
        let mut base = 0usize;
        for (j, &i) in idx[t * k..(t + 1) * k].iter().enumerate() {
            let d = data[j] as i64;
            let i = if i < 0 { i + d } else { i };
            if !(0..d).contains(&i) {
                return None;
            }
            base = base * data[j] + i as usize;
        }
        out.extend((0..slice).map(|e| base * slice + e));
    }
    Some(out)
}

/// `data` and `updates` have one element type; the output's is data's (or the
/// updates' while data's is not known).
fn common_type(data: &TensorFact, updates: &TensorFact) -> Result<DType, OpError> {
    match (data.dtype, updates.dtype) {
        (DType::Undefined, u) => Ok(u),
        (d, DType::Undefined) => Ok(d),
        (d, u) if d == u => Ok(d),
        (d, u) => Err(OpError::TypeMismatch {
            conflict: TypeConflict::inputs("data", d, "updates", u),
        }),
    }
}

/// ONNX `ScatterElements` and `Scatter`: data's shape and type.
fn scatter_elements(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let data = ctx.input(node, 0, "data")?;
    let indices = ctx.input(node, 1, "indices")?;
    let updates = ctx.input(node, 2, "updates")?;
    check_index_type(&indices, "indices")?;
    let reduction = reduction(node)?;
    let axis = attr_int(node, "axis", 0)?;
    let f = scatter_elements_fact(
        ctx,
        node,
        [&data, &indices, &updates],
        axis,
        Some(reduction),
        Equate::Warn,
    )?;
    Ok(vec![f])
}

/// The output of a `ScatterElements` (ONNX) or `ScatterElementsUpdate` (OpenVINO)
/// of `[data, indices, updates]` along `axis`: data's shape and type, the contents
/// when they are known and `reduction` is given (`None`: a reduction symdim does not
/// compute). The indices' and updates' shapes are equated as `equate` says.
pub fn scatter_elements_fact(
    ctx: &mut ShapesContext,
    node: &Node,
    [data, indices, updates]: [&TensorFact; 3],
    axis: i64,
    reduction: Option<Reduction>,
    equate: Equate,
) -> Result<TensorFact, OpError> {
    let dtype = common_type(data, updates)?;
    // indices and updates have one shape
    let ishape = match (&indices.shape, &updates.shape) {
        (Some(i), Some(u)) => {
            if i.len() != u.len() {
                return Err(rank_of(
                    "updates",
                    Expected::Exactly(i.len()).noted("the rank of indices"),
                    u.len(),
                ));
            }
            let mut out = Vec::with_capacity(i.len());
            for (a, (&x, &y)) in i.iter().zip(u).enumerate() {
                out.push(equate.dims_as(
                    ctx,
                    node,
                    DimRole::axis(a, ("indices", "updates")),
                    x,
                    y,
                )?);
            }
            Some(out)
        }
        (i, u) => i.clone().or_else(|| u.clone()),
    };
    let Some(dshape) = data.shape.clone() else {
        return Ok(TensorFact::unknown(dtype));
    };
    if dshape.is_empty() {
        return Err(rank_of("data", Expected::AtLeast(1), 0));
    }
    let axis = norm_axis(axis, dshape.len())?;
    let idx = const_ints(&ctx.alg, indices);
    if let Some(is) = &ishape {
        element_indices_check(ctx, node, &dshape, is, axis)?;
    }
    if let Some(ix) = &idx {
        check_const_indices(ctx, dshape[axis], axis, ix)?;
    }
    let targets = (|| {
        let (ddims, _) = small_value(&ctx.alg, data)?;
        let is = small_const_shape(&ctx.alg, ishape.as_deref()?)?;
        element_targets(&ddims, &is, idx.as_deref()?, axis)
    })();
    let value = match reduction {
        Some(r) => write_values(ctx, node, data, updates, targets, r, dtype)?,
        None => None,
    };
    Ok(fact_with_value(dtype, dshape, value))
}

/// The contents after the writes at `targets`, when data and updates are known;
/// a constant result outside an integer type's range is an error.
fn write_values(
    ctx: &mut ShapesContext,
    node: &Node,
    data: &TensorFact,
    updates: &TensorFact,
    targets: Option<Vec<usize>>,
    reduction: Reduction,
    dtype: DType,
) -> Result<Option<Vec<Dim>>, OpError> {
    let (Some(targets), Some((_, dv))) = (targets, small_value(&ctx.alg, data)) else {
        return Ok(None);
    };
    let Some((_, uv)) = small_value(&ctx.alg, updates) else {
        return Ok(None);
    };
    let value = scatter_values(&mut ctx.alg, &dv, &uv, &targets, reduction);
    if let Some(v) = &value {
        check_int_range(&ctx.alg, dtype, v, &node.op_type)?;
    }
    Ok(value)
}

/// ONNX `ScatterND`: data's shape and type.
fn scatter_nd(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let data = ctx.input(node, 0, "data")?;
    let indices = ctx.input(node, 1, "indices")?;
    let updates = ctx.input(node, 2, "updates")?;
    if !matches!(indices.dtype, DType::Int64 | DType::Undefined) {
        return Err(OpError::UnsupportedType {
            dtype: indices.dtype,
            what: "indices",
            allowed: Allowed::Types(vec![DType::Int64]),
        });
    }
    let reduction = reduction(node)?;
    let f = scatter_nd_fact(
        ctx,
        node,
        [&data, &indices, &updates],
        Some(reduction),
        Equate::Warn,
    )?;
    Ok(vec![f])
}

/// The output of a `ScatterND` (ONNX) or `ScatterNDUpdate` (OpenVINO) of `[data,
/// indices, updates]`: data's shape and type, the contents when they are known and
/// `reduction` is given. The updates' shape is equated with the one the indices
/// give ([`scatter_nd_updates_shape`]) as `equate` says.
pub fn scatter_nd_fact(
    ctx: &mut ShapesContext,
    node: &Node,
    [data, indices, updates]: [&TensorFact; 3],
    reduction: Option<Reduction>,
    equate: Equate,
) -> Result<TensorFact, OpError> {
    let dtype = common_type(data, updates)?;
    let Some(dshape) = data.shape.clone() else {
        return Ok(TensorFact::unknown(dtype));
    };
    if dshape.is_empty() {
        return Err(rank_of("data", Expected::AtLeast(1), 0));
    }
    let idx = const_ints(&ctx.alg, indices);
    let mut targets = None;
    if let Some(is) = &indices.shape {
        let q = is.len();
        if q == 0 {
            return Err(rank_of("indices", Expected::AtLeast(1), 0));
        }
        if let Some(k) = ctx.alg.as_i64(is[q - 1]) {
            let want = scatter_nd_updates_shape(&dshape, is, k)?;
            let k = k as usize;
            if let Some(us) = &updates.shape {
                if us.len() != want.len() {
                    return Err(rank_of(
                        "updates",
                        Expected::Exactly(want.len()).noted("rank(indices) - 1 + rank(data) - k"),
                        us.len(),
                    ));
                }
                for (a, (&u, &w)) in us.iter().zip(&want).enumerate() {
                    let dims = DimRole::ScatterNdUpdates { axis: a, k };
                    equate.dims_as(ctx, node, dims, u, w)?;
                }
            }
            if let Some(ix) = idx.as_deref().filter(|_| k > 0) {
                for (j, &d) in dshape[..k].iter().enumerate() {
                    let component: Vec<i64> = ix.iter().skip(j).step_by(k).copied().collect();
                    check_const_indices(ctx, d, j, &component)?;
                }
            }
            targets = (|| {
                let (ddims, _) = small_value(&ctx.alg, data)?;
                let is = small_const_shape(&ctx.alg, is)?;
                let tuples = is[..q - 1].iter().product();
                scatter_nd_targets(&ddims, idx.as_deref()?, k, tuples)
            })();
        }
    }
    let value = match reduction {
        Some(r) => write_values(ctx, node, data, updates, targets, r, dtype)?,
        None => None,
    };
    Ok(fact_with_value(dtype, dshape, value))
}

/// OpenVINO's `reduction` attribute of `ScatterElementsUpdate-12` and
/// `ScatterNDUpdate-15` (`none` before): the [`Reduction`] symdim computes, `None`
/// for `mean`, whose contents it leaves unknown.
fn ov_reduction(node: &Node, allowed: &[&'static str]) -> Result<Option<Reduction>, OpError> {
    let name = ov_str(node, "reduction")?.unwrap_or("none");
    let r = match name {
        _ if !allowed.contains(&name) => {
            return Err(OpError::BadAttribute {
                name: "reduction",
                value: AttrValue::Str(name.to_string()),
                why: Box::new(AttrProblem::NotListed(allowed.to_vec())),
            })
        }
        "none" => Some(Reduction::None),
        "sum" => Some(Reduction::Add),
        "sub" => Some(Reduction::Sub),
        "prod" => Some(Reduction::Mul),
        "max" => Some(Reduction::Max),
        "min" => Some(Reduction::Min),
        _ => None,
    };
    Ok(r)
}

/// The `axis` input (a one-element constant) of the OpenVINO scatter ops, `None`
/// when not known.
fn axis_input(ctx: &ShapesContext, node: &Node, index: usize) -> Result<Option<i64>, OpError> {
    let a = ctx.input(node, index, "axis")?;
    Ok(match const_ints(&ctx.alg, &a).as_deref() {
        Some([v]) => Some(*v),
        _ => None,
    })
}

/// OpenVINO `ScatterElementsUpdate` (3; 12 `reduction`, `use_init_val`).
fn ov_scatter_elements_update(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 4, 4)?;
    let data = ctx.input(node, 0, "data")?;
    let indices = ctx.input(node, 1, "indices")?;
    let updates = ctx.input(node, 2, "updates")?;
    let reduction = if node.version >= 12 {
        let r = ov_reduction(node, &["none", "sum", "prod", "min", "max", "mean"])?;
        // without the initial value a reduction starts from the updates alone
        r.filter(|r| *r == Reduction::None || ov_bool(node, "use_init_val", true).unwrap_or(true))
    } else {
        Some(Reduction::None)
    };
    let Some(axis) = axis_input(ctx, node, 3)? else {
        let dtype = common_type(&data, &updates)?;
        return Ok(vec![shaped(dtype, data.shape)]);
    };
    let f = scatter_elements_fact(
        ctx,
        node,
        [&data, &indices, &updates],
        axis,
        reduction,
        Equate::Record,
    )?;
    Ok(vec![f])
}

/// OpenVINO `ScatterNDUpdate` (3; 15 `reduction`).
fn ov_scatter_nd_update(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let data = ctx.input(node, 0, "data")?;
    let indices = ctx.input(node, 1, "indices")?;
    let updates = ctx.input(node, 2, "updates")?;
    check_index_type(&indices, "indices")?;
    let reduction = if node.version >= 15 {
        ov_reduction(node, &["none", "sum", "sub", "prod", "min", "max"])?
    } else {
        Some(Reduction::None)
    };
    let f = scatter_nd_fact(
        ctx,
        node,
        [&data, &indices, &updates],
        reduction,
        Equate::Record,
    )?;
    Ok(vec![f])
}

/// OpenVINO `ScatterUpdate-3`: writes `updates` (of shape `data[:axis]`, then
/// `indices.shape`, then `data[axis+1:]`) into the slices of `data` along `axis`
/// that `indices` names; data's shape and type.
fn ov_scatter_update(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 4, 4)?;
    let data = ctx.input(node, 0, "data")?;
    let indices = ctx.input(node, 1, "indices")?;
    let updates = ctx.input(node, 2, "updates")?;
    check_index_type(&indices, "indices")?;
    let dtype = common_type(&data, &updates)?;
    let axis = axis_input(ctx, node, 3)?;
    if let (Some(ds), Some(is), Some(us), Some(axis)) =
        (&data.shape, &indices.shape, &updates.shape, axis)
    {
        let axis = norm_axis(axis, ds.len())?;
        let mut want = ds[..axis].to_vec();
        want.extend_from_slice(is);
        want.extend_from_slice(&ds[axis + 1..]);
        if us.len() != want.len() {
            return Err(rank_of(
                "updates",
                Expected::Exactly(want.len()).noted("rank(data) - 1 + rank(indices)"),
                us.len(),
            ));
        }
        let dims = |a| DimRole::axis(a, ("updates", "data[:axis] + indices + data[axis+1:]"));
        merge_dims_as(ctx, node, &dims, us, &want)?;
    }
    Ok(vec![shaped(dtype, data.shape)])
}
