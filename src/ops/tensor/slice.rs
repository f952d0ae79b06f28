//! Slicing: ONNX `Slice`, OpenVINO `Slice` and `StridedSlice`.
//!
//! Specs: the ONNX operator reference (`Slice`), the OpenVINO operation
//! specification (`Slice-8`, `StridedSlice-1`).
//!
//! Per sliced axis of size `d`, with start `s`, end `e` and step `t` ([`slice_axis`]):
//! a negative index adds `d`, then it is clamped, `[0, d]` for a positive step and
//! `[-1, d-1]` for the end of a negative one; the start of a negative step is
//! clamped to `[0, d-1]` by ONNX and to `[-1, d-1]` by OpenVINO, which follows
//! Python's slicing ([`Clamp`]). The length is `max(0, ceildiv(e' - s', t))`,
//! computed symbolically. The clamps are built as min/max lists and distributed by
//! hand (`a - max(b, c) = min(a - b, a - c)`), pruned with `alg.le`, and clamps that
//! `d >= 0` makes redundant are left out by construction, so `[-3:]` of `S` is
//! `min(S, 3)`, `[1:-1]` is `max(0, S - 2)`, `[0:INT64_MAX:2]` is `ceildiv(S, 2)`.
//! The contents of a small input are sliced along ([`slice_picks`]).
//!
//! Special values:
//! - Starts and ends at or beyond `±(2^31 - 1)` ([`SLICE_SENTINEL`]: `INT_MAX`,
//!   `INT64_MAX`, `INT64_MIN`, the exporters' "to the end" markers) are read as
//!   "past the end" or "before the start" when the sliced dim is symbolic. This is
//!   exact for the int64 sentinels (no dim exceeds `INT64_MAX`) and assumes dims
//!   below `2^31` for the int32 ones. With a concrete dim the arithmetic is exact.
//! - A start or end of unknown sign, or a step of unknown sign, gives a fresh dim for
//!   that axis only (steps may be symbolic when their sign is proven); a zero step,
//!   repeated axes and lengths that disagree are errors.
//! - `StridedSlice` masks: `begin_mask`/`end_mask` ignore the begin/end of an axis
//!   (the whole axis), `new_axis_mask` inserts a dim of 1, `shrink_axis_mask` takes
//!   one element and drops the axis, `ellipsis_mask` stands for the axes not named.
//!
//! # Version history
//! * ONNX **Slice**: 1 (`starts`, `ends`, `axes` attributes); 10 inputs `starts`,
//!   `ends`, `axes`, `steps` (steps may be negative); 11 negative axes; 13 bf16.
//! * OpenVINO **StridedSlice**: 1 (`begin`, `end`, optional `stride` inputs; the five
//!   masks).
//! * OpenVINO **Slice**: 8 (`start`, `stop`, `step`, optional `axes` inputs).

use crate::algebra::{Algebra, Dim, Truth};
use crate::context::ShapeValueProblem;
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::Node;
use crate::ops::common::attrs::attr_ints;
use crate::ops::common::attrs::ov_i64_list;
use crate::ops::common::values::{
    attr_axes, const_ints, consts, dims_value, fact_with_value, ints_input, norm_axes, small_value,
    take_values, IntsArg,
};
use crate::ops::common::{check_inputs, fresh_dims};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["Slice"], slice),
    ("openvino", ["Slice"], ov_slice),
    ("openvino", ["StridedSlice"], ov_strided_slice),
];

/// Starts and ends at or beyond this magnitude mean "past the end" or "before the
/// start" when the sliced dim is symbolic (see the module docs).
pub const SLICE_SENTINEL: i64 = i32::MAX as i64;

/// A dim as the min or the max of a list of terms (one term: the dim itself).
/// Slice lengths are built in this form and distributed by hand, because the
/// algebra does not rewrite `a - max(b, c)` into `min(a - b, a - c)`.
#[derive(Clone, Debug)]
enum MinMax {
    /// `min(terms)`.
    Min(Vec<Dim>),
    /// `max(terms)`.
    Max(Vec<Dim>),
}

impl MinMax {
    fn one(d: Dim) -> MinMax {
        MinMax::Min(vec![d])
    }

    fn terms(&self) -> &[Dim] {
        match self {
            MinMax::Min(t) | MinMax::Max(t) => t,
        }
    }

    /// Whether the form may be read as a min (a single term is both).
    fn is_min(&self) -> bool {
        matches!(self, MinMax::Min(_)) || self.terms().len() == 1
    }

    fn is_max(&self) -> bool {
        matches!(self, MinMax::Max(_)) || self.terms().len() == 1
    }

    /// Drop the terms another term provably dominates, then fold.
    fn dim(&self, alg: &mut Algebra) -> Dim {
        let (terms, is_min) = match self {
            MinMax::Min(t) => (t, true),
            MinMax::Max(t) => (t, false),
        };
        let mut keep: Vec<Dim> = Vec::new();
        for &t in terms {
            if !keep
                .iter()
                .any(|k| alg.egraph().find(k.id()) == alg.egraph().find(t.id()))
            {
                keep.push(t);
            }
        }
        let mut i = 0;
        while i < keep.len() {
            let t = keep[i];
            let dominated = (0..keep.len()).any(|j| {
                j != i && {
                    let u = keep[j];
                    let t_out = if is_min { alg.le(u, t) } else { alg.le(t, u) };
                    t_out == Truth::True
                }
            });
            if dominated && keep.len() > 1 {
                keep.remove(i);
            } else {
                i += 1;
            }
        }
        let mut acc = keep[0];
        for &t in &keep[1..] {
            acc = if is_min {
                alg.min(acc, t)
            } else {
                alg.max(acc, t)
            };
        }
        acc
    }

    /// `self - other`, distributed where the kinds allow it.
    fn sub(&self, other: &MinMax, alg: &mut Algebra) -> MinMax {
        let pairs = |alg: &mut Algebra| -> Vec<Dim> {
            let mut v = Vec::new();
            for &a in self.terms() {
                for &b in other.terms() {
                    v.push(alg.sub(a, b));
                }
            }
            v
        };
        if self.is_min() && other.is_max() {
            MinMax::Min(pairs(alg))
        } else if self.is_max() && other.is_min() {
            MinMax::Max(pairs(alg))
        } else {
            let (a, b) = (self.dim(alg), other.dim(alg));
            MinMax::one(alg.sub(a, b))
        }
    }

    /// `ceildiv(self, t)` for a positive `t` (monotone in the numerator, so it
    /// distributes over min and max).
    fn ceildiv(&self, t: Dim, alg: &mut Algebra) -> MinMax {
        let map = |v: &[Dim], alg: &mut Algebra| -> Vec<Dim> {
            v.iter().map(|&x| alg.ceildiv(x, t)).collect()
        };
        match self {
            MinMax::Min(v) => MinMax::Min(map(v, alg)),
            MinMax::Max(v) => MinMax::Max(map(v, alg)),
        }
    }

    /// `max(0, self)`, where `nonneg` (the sliced dim) is known to be >= 0.
    fn max0(&self, alg: &mut Algebra, nonneg: Dim) -> MinMax {
        let zero = alg.constant(0);
        let known = |alg: &Algebra, t: Dim| {
            alg.egraph().find(t.id()) == alg.egraph().find(nonneg.id()) || alg.bounds(t).is_nonneg()
        };
        match self {
            MinMax::Max(v) if v.iter().any(|t| known(alg, *t)) => self.clone(),
            MinMax::Min(v) if v.iter().all(|t| known(alg, *t)) => self.clone(),
            MinMax::Max(v) => {
                let mut v = v.clone();
                v.push(zero);
                MinMax::Max(v)
            }
            MinMax::Min(v) if v.len() == 1 => MinMax::Max(vec![v[0], zero]),
            MinMax::Min(v) => {
                let mut out = Vec::with_capacity(v.len());
                for &x in v {
                    out.push(if known(alg, x) {
                        x
                    } else {
                        MinMax::Max(vec![x, zero]).dim(alg)
                    });
                }
                MinMax::Min(out)
            }
        }
    }
}

/// The smaller of `v` and `hi`, pruned with `le`.
fn upper(alg: &mut Algebra, v: Dim, hi: Dim) -> MinMax {
    if alg.le(v, hi) == Truth::True {
        MinMax::one(v)
    } else if alg.le(hi, v) == Truth::True {
        MinMax::one(hi)
    } else {
        MinMax::Min(vec![v, hi])
    }
}

/// The larger of `v` and `lo`, pruned with `le`.
fn lower(alg: &mut Algebra, v: Dim, lo: Dim) -> MinMax {
    if alg.le(lo, v) == Truth::True {
        MinMax::one(v)
    } else if alg.le(v, lo) == Truth::True {
        MinMax::one(lo)
    } else {
        MinMax::Max(vec![v, lo])
    }
}

/// How the start of a negative-step slice is clamped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clamp {
    /// ONNX: to `[0, d - 1]` (one element from a start before the axis).
    Onnx,
    /// Python, which OpenVINO follows: to `[-1, d - 1]` (nothing from a start before
    /// the axis).
    Python,
}

/// A start or end index, wrapped and clamped for a dim `d` and a step of the
/// given sign: a negative index adds `d`, then `min(max(x, lo), hi)` with
/// `[lo, hi]` = `[0, d]` (positive step), `[-1, d - 1]` (negative step, end), and
/// for the start of a negative step `[0, d - 1]` ([`Clamp::Onnx`]) or
/// `[-1, d - 1]` ([`Clamp::Python`]). `None` when the sign of a symbolic index is
/// unknown.
///
/// `d` is the size of a real axis, so `d >= 0` even where the algebra cannot
/// prove it (a Conv output such as `floordiv(S - 192, 128) + 1`); the clamps that
/// this makes redundant are left out by construction rather than by `le`.
fn slice_index(
    alg: &mut Algebra,
    x: Dim,
    d: Dim,
    (forward, is_start): (bool, bool),
    clamp: Clamp,
) -> Option<MinMax> {
    let symbolic_dim = alg.as_i64(d).is_none();
    let one = alg.constant(1);
    let zero = alg.constant(0);
    let minus_one = alg.constant(-1);
    let d_1 = alg.sub(d, one);
    // The ONNX start of a negative step: `lo = 0` exceeds `hi = d - 1` on an empty
    // axis.
    let zero_start = !forward && is_start && clamp == Clamp::Onnx;
    match alg.as_i64(x) {
        // past the end: d (positive step) or d - 1 (negative step)
        Some(v) if symbolic_dim && v >= SLICE_SENTINEL => {
            return Some(MinMax::one(if forward { d } else { d_1 }))
        }
        // before the start: 0, or for a negative step min(0, d - 1) and -1
        Some(v) if symbolic_dim && v <= -SLICE_SENTINEL => {
            return Some(if forward {
                MinMax::one(zero)
            } else if zero_start {
                upper(alg, zero, d_1)
            } else {
                MinMax::one(minus_one)
            })
        }
        // 0 with a positive step is 0 for every d >= 0
        Some(0) if forward => return Some(MinMax::one(zero)),
        _ => {}
    }
    let b = alg.bounds(x);
    let hi = if forward { d } else { d_1 };
    if b.is_nonneg() {
        // x >= 0 >= lo: only the upper clamp remains
        Some(upper(alg, x, hi))
    } else if b.is_negative() {
        // x + d <= d - 1 <= hi: only the lower clamp remains, except for the ONNX
        // start of a negative step on an empty axis (max(x + d, 0) = 0 > d - 1 = -1)
        let w = alg.add_dims(x, d);
        let lo = if forward || zero_start {
            zero
        } else {
            minus_one
        };
        let m = lower(alg, w, lo);
        if zero_start && alg.le(zero, d_1) != Truth::True {
            let m = m.dim(alg);
            return Some(upper(alg, m, d_1));
        }
        Some(m)
    } else {
        None
    }
}

/// The length of a slice `[s', e')` with step `t`: `max(0, ceildiv(e' - s', t))`
/// (for a negative step, `max(0, ceildiv(s' - e', -t))`).
fn slice_len(alg: &mut Algebra, s: &MinMax, e: &MinMax, t: Dim, forward: bool, d: Dim) -> Dim {
    let (num, den) = if forward {
        (e.sub(s, alg), t)
    } else {
        (s.sub(e, alg), alg.neg(t))
    };
    num.ceildiv(den, alg).max0(alg, d).dim(alg)
}

/// One sliced axis: the clamped start, the step and the length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceAxis {
    /// The first index read (after wrapping and clamping).
    pub start: Dim,
    /// The step.
    pub step: Dim,
    /// The number of elements read: the output dim.
    pub len: Dim,
}

/// The slice `start:end:step` of an axis of size `d` (see the module docs); `None`
/// when the sign of the step, or of a symbolic start or end, is unknown.
pub fn slice_axis(
    alg: &mut Algebra,
    d: Dim,
    (start, end, step): (Dim, Dim, Dim),
    clamp: Clamp,
) -> Option<SliceAxis> {
    // The direction needs the step's sign.
    let sign = alg.bounds(step);
    let forward = if sign.is_positive() {
        true
    } else if sign.is_negative() {
        false
    } else {
        return None;
    };
    let s2 = slice_index(alg, start, d, (forward, true), clamp)?;
    let e2 = slice_index(alg, end, d, (forward, false), clamp)?;
    let len = slice_len(alg, &s2, &e2, step, forward, d);
    let start = s2.dim(alg);
    Some(SliceAxis { start, step, len })
}

/// The indices a slice reads on one axis, `start + i * step` for `i < len`, kept as
/// this triple so that nothing is allocated by the axis's length: the indices are
/// listed only for an input whose contents are small and known ([`SlicePicks::indices`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlicePicks {
    /// The first index read.
    pub start: i64,
    /// The step between two indices read.
    pub step: i64,
    /// The number of indices read.
    pub len: i64,
}

impl SlicePicks {
    /// The indices read on an axis of `size` elements, when every one is within
    /// `0..size` (so at most `size` of them are listed); `None` otherwise.
    pub fn indices(&self, size: usize) -> Option<Vec<usize>> {
        let n = usize::try_from(self.len).ok()?;
        if n > size {
            return None;
        }
        (0..self.len)
            .map(|i| {
                let j = usize::try_from(i.checked_mul(self.step)?.checked_add(self.start)?).ok()?;
                (j < size).then_some(j)
            })
            .collect()
    }
}

/// The indices a slice reads, when its start, step and length are constants.
pub fn slice_picks(alg: &Algebra, axis: &SliceAxis) -> Option<SlicePicks> {
    Some(SlicePicks {
        start: alg.as_i64(axis.start)?,
        step: alg.as_i64(axis.step)?,
        len: alg.as_i64(axis.len)?,
    })
}

/// The contents of `x` (small, known) read at `picks` on each sliced axis (`None`:
/// the whole axis). The indices are listed only once the contents are known to be
/// small, so their count is bounded by [`crate::graph::VALUE_FACT_LIMIT`] (an empty
/// input gives an empty slice without listing any).
fn sliced_values(alg: &Algebra, x: &TensorFact, picks: &[Option<SlicePicks>]) -> Option<Vec<Dim>> {
    let (shape, v) = small_value(alg, x)?;
    if v.is_empty() {
        return Some(Vec::new());
    }
    let per_axis: Vec<Vec<usize>> = shape
        .iter()
        .zip(picks)
        .map(|(&n, p)| match p {
            Some(p) => p.indices(n),
            None => Some((0..n).collect()),
        })
        .collect::<Option<_>>()?;
    Some(take_values(&v, &shape, &per_axis))
}

/// The starts/ends/axes/steps of an ONNX Slice: as dims (starts, ends may be
/// symbolic).
struct SliceArgs {
    starts: Option<Vec<Dim>>,
    ends: Option<Vec<Dim>>,
    axes: Option<Vec<i64>>,
    /// Steps may be symbolic when their sign is proven (`[1, N]`).
    steps: Option<Vec<Dim>>,
    /// The number of sliced axes, when known.
    len: Option<usize>,
}

fn slice_args(ctx: &mut ShapesContext, node: &Node) -> Result<SliceArgs, OpError> {
    if node.version < 10 {
        check_inputs(node, 1, 1)?;
        let starts = attr_ints(node, "starts")?
            .ok_or(OpError::MissingAttribute { name: "starts" })?
            .to_vec();
        let ends = attr_ints(node, "ends")?
            .ok_or(OpError::MissingAttribute { name: "ends" })?
            .to_vec();
        let axes = attr_ints(node, "axes")?.map(<[i64]>::to_vec);
        let n = starts.len();
        return Ok(SliceArgs {
            starts: Some(consts(&mut ctx.alg, &starts)),
            ends: Some(consts(&mut ctx.alg, &ends)),
            axes: Some(axes.unwrap_or_else(|| (0..n as i64).collect())),
            steps: Some(vec![ctx.alg.constant(1); n]),
            len: Some(n),
        });
    }
    check_inputs(node, 3, 5)?;
    let s = ctx.input(node, 1, "starts")?;
    let e = ctx.input(node, 2, "ends")?;
    let (starts, ls) = dims_value(&ctx.alg, &s);
    let (ends, le) = dims_value(&ctx.alg, &e);
    let axes = ints_input(ctx, node, 3)?;
    let steps = ctx
        .optional_input(node, 4)?
        .map(|f| dims_value(&ctx.alg, &f));
    let len = ls.or(le);
    let axes = match axes {
        IntsArg::Absent => len.map(|n| (0..n as i64).collect()),
        IntsArg::Known(v) => Some(v),
        IntsArg::Unknown(_) => None,
    };
    let steps = match steps {
        None => len.map(|n| vec![ctx.alg.constant(1); n]),
        Some((v, _)) => v,
    };
    Ok(SliceArgs {
        starts,
        ends,
        axes,
        steps,
        len,
    })
}

/// The output shape and contents of slicing `x` (of known shape `dims`) on `axes`
/// (normalised) with the bounds of each (`None`: unknown) and the clamp of
/// `clamp`; an axis whose slice is not known gets a fresh dim.
fn sliced(
    ctx: &mut ShapesContext,
    node: &Node,
    x: &TensorFact,
    dims: &[Dim],
    axes: &[usize],
    bounds: impl Fn(usize) -> Option<(Dim, Dim, Dim)>,
    clamp: Clamp,
) -> TensorFact {
    let mut out = dims.to_vec();
    let mut picks: Vec<Option<Option<SlicePicks>>> = vec![Some(None); dims.len()];
    for (k, &axis) in axes.iter().enumerate() {
        match bounds(k).and_then(|b| slice_axis(&mut ctx.alg, dims[axis], b, clamp)) {
            Some(s) => {
                out[axis] = s.len;
                picks[axis] = slice_picks(&ctx.alg, &s).map(Some);
            }
            None => {
                out[axis] = ctx.unknown_dim(node, 0, axis);
                picks[axis] = None;
            }
        }
    }
    // Contents: every sliced axis must have a constant start and length.
    let value = picks
        .into_iter()
        .collect::<Option<Vec<_>>>()
        .and_then(|p| sliced_values(&ctx.alg, x, &p));
    fact_with_value(x.dtype, out, value)
}

/// A zero step is an error.
fn check_steps(ctx: &mut ShapesContext, steps: &[Dim]) -> Result<(), OpError> {
    let zero = ctx.alg.constant(0);
    if steps.iter().any(|t| ctx.alg.equal(*t, zero) == Truth::True) {
        return Err(OpError::BadShapeValue(Box::new(
            ShapeValueProblem::ZeroStep(ctx.alg.exprs(steps)),
        )));
    }
    Ok(())
}

/// ONNX `Slice` (1: attributes; 10: inputs and `steps`).
fn slice(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let x = ctx.input(node, 0, "data")?;
    let Some(dims) = x.shape.clone() else {
        slice_args(ctx, node)?;
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let r = dims.len();
    let args = slice_args(ctx, node)?;
    // Lengths must agree.
    let lens: Vec<(&'static str, usize)> = [
        ("starts", args.starts.as_ref().map(Vec::len)),
        ("ends", args.ends.as_ref().map(Vec::len)),
        ("axes", args.axes.as_ref().map(Vec::len)),
        ("steps", args.steps.as_ref().map(Vec::len)),
        ("starts", args.len),
    ]
    .into_iter()
    .filter_map(|(k, n)| n.map(|n| (k, n)))
    .collect();
    if let Some((k, n)) = lens.iter().find(|(_, n)| *n != lens[0].1) {
        return Err(OpError::BadShapeValue(Box::new(
            ShapeValueProblem::LengthsDiffer {
                first: lens[0].0,
                first_len: lens[0].1,
                other: k,
                other_len: *n,
            },
        )));
    }
    let Some(axes) = args.axes else {
        // Which axes are sliced is unknown: every dim is data-dependent.
        let d = fresh_dims(ctx, node, 0, r);
        return Ok(vec![TensorFact::new(x.dtype, d)]);
    };
    let norm = if node.version < 10 {
        attr_axes(&axes, r)?
    } else {
        norm_axes(&axes, r)?
    };
    if let Some(steps) = &args.steps {
        check_steps(ctx, steps)?;
    }
    let bounds = |k: usize| match (&args.starts, &args.ends, &args.steps) {
        (Some(s), Some(e), Some(t)) => Some((s[k], e[k], t[k])),
        _ => None,
    };
    Ok(vec![sliced(
        ctx,
        node,
        &x,
        &dims,
        &norm,
        bounds,
        Clamp::Onnx,
    )])
}

/// OpenVINO `Slice` (8: `start`, `stop`, `step`, optional `axes`).
fn ov_slice(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 4, 5)?;
    let x = ctx.input(node, 0, "data")?;
    let start = ctx.input(node, 1, "start")?;
    let stop = ctx.input(node, 2, "stop")?;
    let step = ctx.input(node, 3, "step")?;
    let axes_t = ctx.optional_input(node, 4)?;
    let Some(shape) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let r = shape.len();
    let (Some(sv), Some(ev), Some(tv)) = (&start.value, &stop.value, &step.value) else {
        // Unknown bounds: the sliced axes (all when those are unknown) get fresh dims.
        let mut out = shape.clone();
        let affected: Option<Vec<usize>> = match &axes_t {
            Some(a) => const_ints(&ctx.alg, a).and_then(|v| norm_axes(&v, r).ok()),
            None => start.static_len(&ctx.alg).map(|k| (0..k.min(r)).collect()),
        };
        match affected {
            Some(ax) => {
                for a in ax {
                    out[a] = ctx.unknown_dim(node, 0, a);
                }
            }
            None => out = fresh_dims(ctx, node, 0, r),
        }
        return Ok(vec![TensorFact::new(x.dtype, out)]);
    };
    if sv.len() != ev.len() || sv.len() != tv.len() {
        return Err(OpError::BadShapeValue(Box::new(
            ShapeValueProblem::BoundLengths {
                names: ["start", "stop", "step"],
                lens: [sv.len(), ev.len(), tv.len()],
            },
        )));
    }
    let axes: Vec<usize> = match &axes_t {
        Some(a) => match const_ints(&ctx.alg, a) {
            Some(v) => norm_axes(&v, r)?,
            None => {
                let d = fresh_dims(ctx, node, 0, r);
                return Ok(vec![TensorFact::new(x.dtype, d)]);
            }
        },
        None => (0..sv.len()).collect(),
    };
    if axes.len() != sv.len() || axes.iter().any(|&a| a >= r) {
        return Err(OpError::BadShapeValue(Box::new(
            ShapeValueProblem::SliceAxes {
                entries: sv.len(),
                axes,
                rank: r,
            },
        )));
    }
    check_steps(ctx, tv)?;
    let bounds = |k: usize| Some((sv[k], ev[k], tv[k]));
    Ok(vec![sliced(
        ctx,
        node,
        &x,
        &shape,
        &axes,
        bounds,
        Clamp::Python,
    )])
}

/// A StridedSlice mask: entry `i` set means the mask applies to slice entry `i`.
fn mask(node: &Node, name: &'static str) -> Result<Vec<bool>, OpError> {
    Ok(ov_i64_list(node, name)?
        .unwrap_or_default()
        .iter()
        .map(|&v| v != 0)
        .collect())
}

/// OpenVINO `StridedSlice` (1: `begin`, `end`, optional `stride`; the five masks).
fn ov_strided_slice(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 4)?;
    let x = ctx.input(node, 0, "data")?;
    let b = ctx.input(node, 1, "begin")?;
    let e = ctx.input(node, 2, "end")?;
    let st = ctx.optional_input(node, 3)?;
    let (bm, em, nm, sm, elm) = (
        mask(node, "begin_mask")?,
        mask(node, "end_mask")?,
        mask(node, "new_axis_mask")?,
        mask(node, "shrink_axis_mask")?,
        mask(node, "ellipsis_mask")?,
    );
    let Some(shape) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let (Some(bv), Some(ev)) = (&b.value, &e.value) else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let n = bv.len();
    let steps: Vec<i64> = match &st {
        Some(s) => match const_ints(&ctx.alg, s) {
            Some(v) => v,
            None => return Ok(vec![TensorFact::unknown(x.dtype)]),
        },
        None => vec![1; n],
    };
    if ev.len() != n || steps.len() != n {
        return Err(OpError::BadShapeValue(Box::new(
            ShapeValueProblem::BoundLengths {
                names: ["begin", "end", "stride"],
                lens: [n, ev.len(), steps.len()],
            },
        )));
    }
    let at = |m: &[bool], i: usize| m.get(i).copied().unwrap_or(false);
    let consumed = (0..n).filter(|&i| !at(&nm, i) && !at(&elm, i)).count();
    let mut out = Vec::new();
    // Per input axis, the indices read (`None` inside: the whole axis); `None`
    // when they are not constant.
    let mut picks: Vec<Option<Option<SlicePicks>>> = Vec::new();
    let mut axis = 0usize;
    let mut seen_ellipsis = false;
    let one = ctx.alg.constant(1);
    for i in 0..n {
        if at(&elm, i) && !seen_ellipsis {
            seen_ellipsis = true;
            let cover = shape.len().saturating_sub(axis + consumed);
            for _ in 0..cover {
                out.push(shape[axis]);
                picks.push(Some(None));
                axis += 1;
            }
            continue;
        }
        if at(&nm, i) {
            out.push(one);
            continue;
        }
        if axis >= shape.len() {
            return Err(OpError::BadShapeValue(Box::new(
                ShapeValueProblem::SliceEntriesPastRank {
                    entries: n,
                    rank: shape.len(),
                },
            )));
        }
        let d = shape[axis];
        let step = steps[i];
        if step == 0 {
            return Err(OpError::BadShapeValue(Box::new(
                ShapeValueProblem::ZeroStride(i),
            )));
        }
        if at(&sm, i) {
            // One element: begin (or 0 when masked).
            let bi = if at(&bm, i) {
                Some(0)
            } else {
                ctx.alg.as_i64(bv[i])
            };
            let c = ctx.alg.as_i64(d);
            picks.push(match (c, bi) {
                (Some(c), Some(v)) => {
                    let j = if v < 0 { v + c } else { v };
                    (0..c).contains(&j).then_some(Some(SlicePicks {
                        start: j,
                        step: 1,
                        len: 1,
                    }))
                }
                _ => None,
            });
            axis += 1;
            continue;
        }
        // A masked bound is the whole axis: the int64 extremes lie past every dim.
        let start = if at(&bm, i) {
            ctx.alg.constant(if step > 0 { 0 } else { i64::MAX })
        } else {
            bv[i]
        };
        let stop = if at(&em, i) {
            ctx.alg.constant(if step > 0 { i64::MAX } else { i64::MIN })
        } else {
            ev[i]
        };
        let t = ctx.alg.constant(step);
        match slice_axis(&mut ctx.alg, d, (start, stop, t), Clamp::Python) {
            Some(s) => {
                out.push(s.len);
                picks.push(slice_picks(&ctx.alg, &s).map(Some));
            }
            None => {
                out.push(ctx.unknown_dim(node, 0, out.len()));
                picks.push(None);
            }
        }
        axis += 1;
    }
    while axis < shape.len() {
        out.push(shape[axis]);
        picks.push(Some(None));
        axis += 1;
    }
    let value = picks
        .into_iter()
        .collect::<Option<Vec<_>>>()
        .and_then(|p| sliced_values(&ctx.alg, &x, &p));
    Ok(vec![fact_with_value(x.dtype, out, value)])
}
