//! Dims as the op families share them: unifying dims that a valid model needs
//! equal, rank checks, reading small integer tensors and attribute lists, channel
//! layouts, and building output facts.
//!
//! Nothing here does raw arithmetic on dims: sums, products and comparisons go
//! through the context's algebra.

use crate::algebra::{Dim, DimExpr, Truth};
use crate::context::{
    node_context, DimRole, Expected, OpError, Severity, ShapesContext, Subject, TensorFact,
};
use crate::context::{AttrProblem, AttrValue};
use crate::graph::{DType, Node};

/// Assert `a == b`, which a valid model needs: provably equal gives `a`; provably
/// different is a [`OpError::DimMismatch`] naming the dims (`dims`); otherwise the
/// two are unioned in the e-graph, the relation is recorded for the node and a
/// warning names the assumption (`valid when D == 768`).
pub fn unify_as(
    ctx: &mut ShapesContext,
    node: &Node,
    dims: impl Into<DimRole>,
    a: Dim,
    b: Dim,
) -> Result<Dim, OpError> {
    let dims = dims.into();
    unify_with(ctx, node, &|| dims.clone(), a, b)
}

/// [`unify_as`], the dims named by `dims` when a message needs them.
fn unify_with(
    ctx: &mut ShapesContext,
    node: &Node,
    dims: &dyn Fn() -> DimRole,
    a: Dim,
    b: Dim,
) -> Result<Dim, OpError> {
    let (merged, held) = require_equal(ctx, &node.name, dims, a, b)?;
    if let Held::Assumed(l, r) = held {
        let msg = format!(
            "{}: {}: {l} and {r} assumed equal (valid when {l} == {r})",
            node_context(node),
            dims()
        );
        ctx.diagnose(Severity::Warning, node, msg);
    }
    Ok(merged)
}

/// Whether what a valid model needs was proven, or is assumed from here on (and
/// recorded for the model's contract).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Held {
    /// The algebra proves it.
    Proven,
    /// Undecided: recorded at the node and assumed. The two sides as they were
    /// before the assumption merged them, for messages.
    Assumed(DimExpr, DimExpr),
}

/// Require `a == b`, which a valid model needs at the node named `at`: the dim when provably
/// equal; an [`OpError::DimMismatch`] naming `dims` when provably different (or
/// when merging finds a contradiction); otherwise the relation is recorded for the
/// model's contract and the dims merge ([`crate::algebra::Algebra::require_equal`]).
/// The one way an op requires an equality; what to tell the user about an
/// assumption is the caller's ([`Equate`]).
pub fn require_equal(
    ctx: &mut ShapesContext,
    at: &str,
    dims: &dyn Fn() -> DimRole,
    a: Dim,
    b: Dim,
) -> Result<(Dim, Held), OpError> {
    match ctx.alg.equal(a, b) {
        Truth::True => Ok((a, Held::Proven)),
        Truth::False => Err(mismatch(ctx, dims(), a, b)),
        Truth::Unknown => {
            let (left, right) = (ctx.alg.expr(a), ctx.alg.expr(b));
            match ctx.alg.require_equal(a, b, at) {
                Ok(merged) => Ok((merged, Held::Assumed(left, right))),
                Err(_) => Err(OpError::DimMismatch {
                    dims: Box::new(dims()),
                    left,
                    right,
                }),
            }
        }
    }
}

/// A [`OpError::DimMismatch`] of `dims` with both dims rendered.
pub fn mismatch(ctx: &ShapesContext, dims: DimRole, a: Dim, b: Dim) -> OpError {
    OpError::DimMismatch {
        dims: Box::new(dims),
        left: ctx.alg.expr(a),
        right: ctx.alg.expr(b),
    }
}

/// An [`OpError::Rank`] for an operand.
pub fn rank_of(of: impl Into<Subject>, expected: impl Into<Expected>, found: usize) -> OpError {
    OpError::Rank {
        of: Box::new(of.into()),
        expected: expected.into(),
        found,
    }
}

/// Check a known rank against `expected`.
pub fn expect_rank(of: impl Into<Subject>, shape: &[Dim], expected: usize) -> Result<(), OpError> {
    if shape.len() == expected {
        Ok(())
    } else {
        Err(rank_of(of, expected, shape.len()))
    }
}

/// The data input `X = [N, C, D1..Dn]` (named `of`): an error when the rank is
/// below `min_rank`.
pub fn data_shape(
    fact: &TensorFact,
    of: &'static str,
    min_rank: usize,
) -> Result<Option<Vec<Dim>>, OpError> {
    match &fact.shape {
        None => Ok(None),
        Some(s) if s.len() < min_rank => Err(rank_of(of, Expected::AtLeast(min_rank), s.len())),
        Some(s) => Ok(Some(s.clone())),
    }
}

/// A fact of known dtype and shape.
pub fn fact(dtype: DType, shape: Vec<Dim>) -> TensorFact {
    TensorFact::new(dtype, shape)
}

/// Check that a 1-D per-channel tensor (scale, bias, mean, ...) has `len` entries
/// when its rank is known: a rank other than 1 or a provably different length is
/// an error; an unknown equality is equated as `equate` says.
pub fn check_vector(
    ctx: &mut ShapesContext,
    node: &Node,
    fact: &TensorFact,
    what: &'static str,
    len: Dim,
    equate: Equate,
) -> Result<(), OpError> {
    let Some(shape) = &fact.shape else {
        return Ok(());
    };
    expect_rank(what, shape, 1)?;
    equate.dims_as(ctx, node, DimRole::Length { of: what }, shape[0], len)?;
    Ok(())
}

/// Two dims that a valid model needs equal: the dim when provably equal, an
/// error naming the dims (`dims`) when provably different, otherwise they are
/// unioned and the relation is recorded for the model's contract, without a
/// warning (the OpenVINO and oneDNN rules; the ONNX ones use [`unify_as`]).
pub fn merge_dim_as(
    ctx: &mut ShapesContext,
    node: &Node,
    dims: impl Into<DimRole>,
    a: Dim,
    b: Dim,
) -> Result<Dim, OpError> {
    let dims = dims.into();
    merge_with(ctx, node, &|| dims.clone(), a, b)
}

/// [`merge_dim_as`], the dims named by `dims` when a message needs them.
fn merge_with(
    ctx: &mut ShapesContext,
    node: &Node,
    dims: &dyn Fn() -> DimRole,
    a: Dim,
    b: Dim,
) -> Result<Dim, OpError> {
    Ok(require_equal(ctx, &node.name, dims, a, b)?.0)
}

/// How a rule equates two dims that a valid model needs equal. Both record the
/// relation for the model's contract; the front ends differ in what they report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Equate {
    /// [`unify_as`]: an undecided equality is also a warning naming the assumption
    /// (the ONNX rules).
    Warn,
    /// [`merge_dim_as`]: an undecided equality is recorded silently (the OpenVINO
    /// and oneDNN rules).
    Record,
}

impl Equate {
    /// Equate `a` and `b`; `dims` names the pair in messages.
    pub fn dims_as(
        self,
        ctx: &mut ShapesContext,
        node: &Node,
        dims: impl Into<DimRole>,
        a: Dim,
        b: Dim,
    ) -> Result<Dim, OpError> {
        match self {
            Equate::Warn => unify_as(ctx, node, dims, a, b),
            Equate::Record => merge_dim_as(ctx, node, dims, a, b),
        }
    }
}

/// The channel axis of a tensor of rank `rank` in a oneDNN `data_format` (`NXC`,
/// the default: last; `NCX`: 1).
pub fn channel_axis(node: &Node, rank: usize) -> Result<usize, OpError> {
    let f = crate::ops::common::attrs::attr_str(node, "data_format")?.unwrap_or("NXC");
    match f {
        "NXC" => Ok(rank.saturating_sub(1)),
        "NCX" => Ok(1.min(rank.saturating_sub(1))),
        other => Err(OpError::BadAttribute {
            name: "data_format",
            value: AttrValue::Word(other.to_string()),
            why: Box::new(AttrProblem::one_of(&["NXC", "NCX"])),
        }),
    }
}

/// A oneDNN tensor of rank 3 or more split by its `data_format`: batch, channels
/// and spatial dims.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The batch dim (axis 0).
    pub batch: Dim,
    /// The channel dim (axis 1 for `NCX`, the last for `NXC`).
    pub channels: Dim,
    /// The spatial dims, in order.
    pub spatial: Vec<Dim>,
    /// `NXC`: the channels come last.
    pub channels_last: bool,
}

impl Layout {
    /// Split `shape` (of the input `src`) by the node's `data_format`.
    pub fn split(node: &Node, shape: &[Dim]) -> Result<Layout, OpError> {
        Layout::split_named(node, shape, "src")
    }

    /// [`Layout::split`] of the input named `what` (`diff_dst`, ...).
    pub fn split_named(node: &Node, shape: &[Dim], what: &'static str) -> Result<Layout, OpError> {
        if shape.len() < 3 {
            return Err(rank_of(what, Expected::AtLeast(3), shape.len()));
        }
        let channels_last = channel_axis(node, shape.len())? != 1;
        let (channels, spatial) = if channels_last {
            (shape[shape.len() - 1], shape[1..shape.len() - 1].to_vec())
        } else {
            (shape[1], shape[2..].to_vec())
        };
        Ok(Layout {
            batch: shape[0],
            channels,
            spatial,
            channels_last,
        })
    }

    /// The data axis of the first spatial dim.
    pub fn first_spatial_axis(&self) -> usize {
        if self.channels_last {
            1
        } else {
            2
        }
    }

    /// The dims of a tensor of this batch and layout with `channels` and `spatial`.
    pub fn join(&self, channels: Dim, spatial: Vec<Dim>) -> Vec<Dim> {
        let mut out = vec![self.batch];
        if self.channels_last {
            out.extend(spatial);
            out.push(channels);
        } else {
            out.push(channels);
            out.extend(spatial);
        }
        out
    }
}

/// A fact of `dtype` with `shape`, or of unknown rank.
pub fn shaped(dtype: DType, shape: Option<Vec<Dim>>) -> TensorFact {
    match shape {
        Some(s) => TensorFact::new(dtype, s),
        None => TensorFact::unknown(dtype),
    }
}

/// `dim` when known, else a fresh data-dependent dim of `node`'s output 0 at `axis`.
pub fn fresh_or(ctx: &mut ShapesContext, node: &Node, dim: Option<Dim>, axis: usize) -> Dim {
    match dim {
        Some(d) => d,
        None => ctx.unknown_dim(node, 0, axis),
    }
}

/// The shape two inputs must share (a backward op's data and its gradient, named
/// `a_what` and `b_what`): their dims merged axis by axis as [`merge_dim_as`] does;
/// either shape when the other's rank is unknown, `None` when both are. Different
/// ranks or provably different dims are an error naming both inputs.
pub fn merge_shapes(
    ctx: &mut ShapesContext,
    node: &Node,
    (a_what, a): (&'static str, &TensorFact),
    (b_what, b): (&'static str, &TensorFact),
) -> Result<Option<Vec<Dim>>, OpError> {
    let (xs, ys) = match (&a.shape, &b.shape) {
        (Some(x), Some(y)) => (x, y),
        (Some(x), None) => return Ok(Some(x.clone())),
        (None, y) => return Ok(y.clone()),
    };
    if xs.len() != ys.len() {
        return Err(rank_of(
            b_what,
            Expected::Exactly(xs.len()).noted(format!("the rank of {a_what}")),
            ys.len(),
        ));
    }
    xs.iter()
        .zip(ys)
        .enumerate()
        .map(|(i, (x, y))| merge_dim_as(ctx, node, DimRole::axis(i, (a_what, b_what)), *x, *y))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// Merge the batch and channel dims of two oneDNN tensors of one `data_format`
/// (`a_what` the reference, `b_what` the checked one): equal ranks, then batch and
/// channels as [`merge_dim_as`] does.
pub fn merge_batch_channels(
    ctx: &mut ShapesContext,
    node: &Node,
    (a_what, a): (&'static str, &Layout),
    (b_what, b): (&'static str, &Layout),
) -> Result<(), OpError> {
    if a.spatial.len() != b.spatial.len() {
        return Err(rank_of(
            b_what,
            Expected::Exactly(a.spatial.len() + 2).noted(format!("the rank of {a_what}")),
            b.spatial.len() + 2,
        ));
    }
    let of = (a_what, b_what);
    merge_dim_as(ctx, node, DimRole::of("batch", of), a.batch, b.batch)?;
    merge_dim_as(
        ctx,
        node,
        DimRole::of("channels", of),
        a.channels,
        b.channels,
    )?;
    Ok(())
}

/// [`merge_dim_as`] of two lists of dims, pair by pair; `dims(a)` names pair `a`.
pub fn merge_dims_as(
    ctx: &mut ShapesContext,
    node: &Node,
    dims: &dyn Fn(usize) -> DimRole,
    a: &[Dim],
    b: &[Dim],
) -> Result<(), OpError> {
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        merge_with(ctx, node, &|| dims(i), *x, *y)?;
    }
    Ok(())
}

/// The `src` (input 0) and `diff_dst` (input 1) of a oneDNN backward op whose
/// `diff_src` has `src`'s shape, split by `data_format`.
#[derive(Clone, Debug)]
pub struct SrcAndDiffDst {
    /// The shape of `src`, which `diff_src` takes.
    pub shape: Vec<Dim>,
    /// `src` split by `data_format`.
    pub src: Layout,
    /// `diff_dst` split likewise when its shape is known; its rank, batch and
    /// channels are then merged with those of `src`.
    pub diff_dst: Option<Layout>,
}

/// Read [`SrcAndDiffDst`] of a oneDNN backward op of 2 to `max_inputs` inputs,
/// with the type of `diff_src` (`dst_dtype`, else that of `src`); `None` when the
/// shape of `src` is unknown.
pub fn onednn_src_and_diff_dst(
    ctx: &mut ShapesContext,
    node: &Node,
    max_inputs: usize,
) -> Result<(DType, Option<SrcAndDiffDst>), OpError> {
    crate::ops::common::check_inputs(node, 2, max_inputs)?;
    let x = ctx.input(node, 0, "src")?;
    let d = ctx.input(node, 1, "diff_dst")?;
    let dtype = crate::ops::common::attrs::dst_dtype(node, x.dtype)?;
    let Some(shape) = x.shape else {
        return Ok((dtype, None));
    };
    let src = Layout::split(node, &shape)?;
    let diff_dst = match &d.shape {
        Some(ds) => {
            let dd = Layout::split_named(node, ds, "diff_dst")?;
            merge_batch_channels(ctx, node, ("src", &src), ("diff_dst", &dd))?;
            Some(dd)
        }
        None => None,
    };
    let parts = SrcAndDiffDst {
        shape,
        src,
        diff_dst,
    };
    Ok((dtype, Some(parts)))
}
