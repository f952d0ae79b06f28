//! Reshape, every variant: ONNX `Reshape` (versions 1, 5, 13, 14, 19, 21, 23; 24
//! and 25 behave like 23), OpenVINO `Reshape-1` and `StaticReshape-1`, and oneDNN
//! Graph `StaticReshape`.
//!
//! Specs (`../shared/specs/`): `onnx-Reshape-all-versions.txt`,
//! `openvino-Reshape-1.txt`, `openvino-StaticReshape-1.txt`,
//! `onednn-graph-StaticReshape.rst`, and the `ComputeShapeReshape` entry of
//! `onnx-optim-shape_tensor.h.txt`. The OpenVINO and oneDNN algorithms follow the
//! notes in `../shared/corpus/openvino-ir/README.md` and
//! `../shared/corpus/onednn-graph/README.md`.
//!
//! # Special values
//! * `-1` (at most one): the dim that keeps the element count. It is solved with
//!   [`Algebra::solve_minus_one`](crate::algebra::Algebra::solve_minus_one): a
//!   closed form when the division is provably exact, a fresh dim `rN` with a
//!   recorded relation and a warning when it is not provably exact, an error when
//!   it provably is not. Values below `-1` are errors.
//! * `0`: copies the input dim at the same index (left aligned), unless ONNX
//!   `allowzero=1` or OpenVINO/oneDNN `special_zero=false`, where it is a literal 0.
//!   A copying 0 at an index past the input rank is an error.
//! * ONNX `allowzero=1`, and OpenVINO `StaticReshape` with `special_zero=false`: a
//!   target holding both a 0 and a -1 is an error (the -1 cannot be determined).
//! * A -1 whose other output dims multiply to 0 is an error, except in OpenVINO
//!   `Reshape-1` when the input is zero-size too, where the -1 becomes 1 (what
//!   OpenVINO's reference shape inference does; the spec leaves it open).
//! * How the -1 is solved: copied dims cancel, so the quotient is the product of
//!   the input dims that were not copied over the product of the other output
//!   dims that are not copies (OpenVINO's left-to-right rule). For ONNX and oneDNN
//!   this is the same quotient as their whole-volume division, and their check
//!   that the other output dims do not multiply to 0 uses every output dim (a
//!   copied 0 counts): `[0,3,4]` with `[0,-1]` is an error in ONNX and oneDNN and
//!   gives `[0,12]` in OpenVINO.
//! * Without a -1 the volumes must match: proven equal passes, unknown is a warning
//!   carrying the residual, proven different is [`OpError::VolumeMismatch`].
//! * An empty target gives a scalar.
//! * The contents (value-as-shape) of the data pass through unchanged.
//!
//! # ONNX version history
//! * **1**: the target is the `shape` attribute; one input; `T` is float types
//!   only (f16, f32, f64); the legacy `consumed_inputs` attribute is ignored.
//! * **5**: the target becomes the second input (`tensor(int64)`); `T` is every
//!   type except bf16.
//! * **13**: bf16 added to `T`.
//! * **14**: the `allowzero` attribute (0 copies by default; 1 keeps a literal 0,
//!   and then a target with both 0 and -1 is invalid).
//! * **19**: the float8 types (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz) added to `T`.
//! * **21**: int4 and uint4 added to `T`.
//! * **23**: float4e2m1 added to `T`. Versions 24 and 25 are treated as 23.
//!
//! When the target values are unknown (no value-as-shape on the shape input), the
//! output rank is the shape input's static length and every dim is a fresh
//! data-dependent dim, except that a rank-1 output is the whole input volume and a
//! rank-0 output is a scalar. When even that length is unknown, so is the output
//! rank.
//!
//! # OpenVINO and oneDNN
//! * Attributes arrive typed from every reader (see the *attributes* section
//!   below): the IR reader decodes `special_zero="True"` to the int 1 and
//!   `shape="0, -1"` to an int list, read with [`ov_bool_required`] and
//!   [`ov_i64_list`], which word a text the reader could not decode as the IR
//!   does; oneDNN's `special_zero` is the int 0 or 1 ([`onednn_bool_required`]),
//!   its `shape` an int list.
//! * OpenVINO `Reshape-1` (domain `openvino`): inputs data and pattern (1-D, any
//!   integer type), attribute `special_zero` (required). Data of any numeric type.
//!   A copying 0 past the input rank is an error. When the input rank is unknown,
//!   a copying 0 and the -1 give fresh dims.
//! * OpenVINO `StaticReshape-1` (domain `openvino`): the pattern is the `shape`
//!   attribute, `special_zero` required, types f32/f16/bf16. Inference runs left to
//!   right: `(3,4,5)` with `(0,-1)` gives `(3,20)`.
//! * oneDNN `StaticReshape` (domain `onednn`): attributes `shape` (s64 list) and
//!   `special_zero` (a bool written as the integer 0 or 1), types f32/bf16/f16. Its
//!   errors: a value below -1, a copying 0 past the input rank, a second -1, a -1
//!   whose other output dims multiply to 0, a non-exact division, and a volume
//!   mismatch. With a symbolic input dim (`--symbol`) the attribute is checked for
//!   every value of the symbols ([`check_shape_attr`]): one that holds only under a
//!   condition is an error diagnostic naming the entry to rewrite, in place of the
//!   unproven-volume or `-1` warning, and the output is still the attribute's shape.

use crate::algebra::{Dim, DimExpr, FreshKey, MinusOne, Rat, Truth};
use crate::context::Subject;
use crate::context::{
    node_context, Allowed, Expected, OpError, Severity, ShapesContext, TensorFact,
};
use crate::context::{AttrProblem, AttrValue, NeverValid, ShapeValueProblem, TargetProblem};
use crate::graph::{DType, Node};
use crate::ops::common::attrs::{attr_int, attr_ints};
use crate::ops::common::attrs::{onednn_bool_required, ov_bool_required, ov_i64_list};
use crate::ops::common::check_inputs;
use crate::ops::{rules, RuleEntry};

/// The Reshape rules: ONNX, OpenVINO (`Reshape`, `StaticReshape`) and oneDNN.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["Reshape"], onnx_reshape),
    ("openvino", ["Reshape"], openvino_reshape),
    ("openvino", ["StaticReshape"], openvino_static_reshape),
    ("onednn", ["StaticReshape"], onednn_static_reshape),
];

// ----- types ------------------------------------------------------------------

const FLOATS_V1: &[DType] = &[DType::Float16, DType::Float, DType::Double];

const TYPES_V5: &[DType] = &[
    DType::Bool,
    DType::Complex128,
    DType::Complex64,
    DType::Double,
    DType::Float,
    DType::Float16,
    DType::Int16,
    DType::Int32,
    DType::Int64,
    DType::Int8,
    DType::String,
    DType::Uint16,
    DType::Uint32,
    DType::Uint64,
    DType::Uint8,
];

const ADDED_V13: &[DType] = &[DType::Bfloat16];
const ADDED_V19: &[DType] = &[
    DType::Float8E4M3FN,
    DType::Float8E4M3FNUZ,
    DType::Float8E5M2,
    DType::Float8E5M2FNUZ,
];
const ADDED_V21: &[DType] = &[DType::Int4, DType::Uint4];
const ADDED_V23: &[DType] = &[DType::Float4E2M1];

/// f32, f16, bf16: OpenVINO StaticReshape-1 and oneDNN StaticReshape.
const STATIC_TYPES: &[DType] = &[DType::Float, DType::Float16, DType::Bfloat16];

/// The ONNX Reshape version in force at an opset version (the largest
/// `since_version` that is not above it).
pub fn onnx_version(opset: i64) -> i64 {
    match opset {
        i64::MIN..=4 => 1,
        5..=12 => 5,
        13 => 13,
        14..=18 => 14,
        19..=20 => 19,
        21..=22 => 21,
        _ => 23,
    }
}

/// The data types ONNX Reshape allows in a version (see [`onnx_version`]).
pub fn onnx_allowed_types(version: i64) -> Vec<DType> {
    let v = onnx_version(version);
    if v == 1 {
        return FLOATS_V1.to_vec();
    }
    let mut t = TYPES_V5.to_vec();
    for (since, added) in [
        (13, ADDED_V13),
        (19, ADDED_V19),
        (21, ADDED_V21),
        (23, ADDED_V23),
    ] {
        if v >= since {
            t.extend_from_slice(added);
        }
    }
    t
}

/// An error unless `dtype` is in `allowed` (an undefined type passes).
fn check_type(dtype: DType, allowed: &[DType], what: &'static str) -> Result<(), OpError> {
    if dtype == DType::Undefined || allowed.contains(&dtype) {
        Ok(())
    } else {
        Err(OpError::UnsupportedType {
            dtype,
            what,
            allowed: Allowed::Types(allowed.to_vec()),
        })
    }
}

// ----- attributes ---------------------------------------------------------------
//
// The readers give typed attributes. The IR reader decodes `special_zero`
// (`true`/`True`/`false`/`False`/`1`/`0`) to the int 1 or 0 and StaticReshape's
// `shape` (`"0, -1"`) to an int list; a text it could not decode stays a string,
// which `ov_bool_required` and `ov_i64_list` reject with the IR's wording. oneDNN's
// `special_zero` is the int 0 or 1 (`onednn_bool_required`) and its `shape` an int
// list. ONNX `shape` (Reshape-1) is an int list.

/// A required OpenVINO `shape` list attribute (parsed by [`ov_i64_list`]), as dims.
fn ov_attr_shape(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<Dim>, OpError> {
    let values = ov_i64_list(node, "shape")?.ok_or(OpError::MissingAttribute { name: "shape" })?;
    Ok(values.iter().map(|&v| ctx.alg.constant(v)).collect())
}

/// A required int-list `shape` attribute (ONNX Reshape-1, oneDNN), as integers.
fn attr_shape_ints(node: &Node) -> Result<Vec<i64>, OpError> {
    Ok(attr_ints(node, "shape")?
        .ok_or(OpError::MissingAttribute { name: "shape" })?
        .to_vec())
}

/// A required int-list `shape` attribute, as dims.
fn attr_shape(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<Dim>, OpError> {
    let values = attr_shape_ints(node)?;
    Ok(values.iter().map(|&v| ctx.alg.constant(v)).collect())
}

// ----- the common algorithm ---------------------------------------------------------

/// Which spec's rules apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flavor {
    Onnx,
    OpenVino,
    OpenVinoStatic,
    OneDnn,
}

/// Where the target comes from (for error messages).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// The shape input's value.
    Input,
    /// The `shape` attribute.
    Attribute,
}

impl Source {
    fn error(self, target: Vec<DimExpr>, problem: TargetProblem) -> OpError {
        match self {
            Source::Input => {
                OpError::BadShapeValue(Box::new(ShapeValueProblem::Target { target, problem }))
            }
            Source::Attribute => OpError::BadAttribute {
                name: "shape",
                value: AttrValue::Dims(target),
                why: Box::new(AttrProblem::Target(problem)),
            },
        }
    }
}

/// How one Reshape node interprets its target.
#[derive(Clone, Copy, Debug)]
struct Mode {
    flavor: Flavor,
    source: Source,
    /// A 0 copies the input dim (ONNX `allowzero=0`, `special_zero=true`).
    zero_copies: bool,
    /// The rule has already reported, as an error, the condition on the symbols
    /// under which the target holds (oneDNN with symbolic inputs): the warnings that
    /// would restate it (an unproven -1 division or volume) are left out.
    condition_reported: bool,
}

impl Mode {
    /// The attribute setting under which 0 is literal, for messages.
    fn literal_zero_flag(self) -> &'static str {
        match self.flavor {
            Flavor::Onnx => "allowzero=1",
            _ => "special_zero=false",
        }
    }

    /// Copied dims are left out of both products when solving the -1.
    fn excludes_copied(self) -> bool {
        matches!(self.flavor, Flavor::OpenVino | Flavor::OpenVinoStatic)
    }

    /// A literal 0 together with a -1 is an error by itself.
    fn forbids_zero_with_minus_one(self) -> bool {
        !self.zero_copies && matches!(self.flavor, Flavor::Onnx | Flavor::OpenVinoStatic)
    }
}

enum Entry {
    /// The output dim as given.
    Lit(Dim),
    /// Copy the input dim at the same index.
    Copy,
    /// The -1.
    MinusOne,
}

fn warn(ctx: &mut ShapesContext, node: &Node, message: String) {
    ctx.warn(node, &message);
}

/// The target as a message shows it.
fn shown_target(ctx: &ShapesContext, target: &[Dim]) -> String {
    ctx.render_dims(target)
}

/// The input as a message shows it (`[...]` for an unknown rank).
fn shown_input(ctx: &ShapesContext, input: Option<&[Dim]>) -> String {
    match input {
        Some(dims) => ctx.render_dims(dims),
        None => "[...]".to_string(),
    }
}

/// An error about the target, as the op's source reports it.
fn target_error(ctx: &ShapesContext, mode: Mode, target: &[Dim], why: TargetProblem) -> OpError {
    mode.source.error(ctx.alg.exprs(target), why)
}

/// The target's entries, classified left to right in the order every spec checks,
/// and the axis of the -1.
fn classify(
    ctx: &ShapesContext,
    mode: Mode,
    input: Option<&[Dim]>,
    target: &[Dim],
) -> Result<(Vec<Entry>, Option<usize>), OpError> {
    let err = |ctx: &ShapesContext, why: TargetProblem| target_error(ctx, mode, target, why);
    let mut entries = Vec::with_capacity(target.len());
    let mut minus_one: Option<usize> = None;
    let mut literal_zero: Option<usize> = None;
    for (i, &v) in target.iter().enumerate() {
        let Some(c) = ctx.alg.as_const(v) else {
            // A symbolic target dim is forwarded as the output dim.
            entries.push(Entry::Lit(v));
            continue;
        };
        if !c.is_integer() {
            return Err(err(ctx, TargetProblem::NotInteger { value: c, axis: i }));
        }
        if c == Rat::int(-1) {
            if let Some(j) = minus_one {
                return Err(err(
                    ctx,
                    TargetProblem::TwoMinusOnes {
                        first: j,
                        second: i,
                    },
                ));
            }
            minus_one = Some(i);
            entries.push(Entry::MinusOne);
        } else if c < Rat::int(-1) {
            return Err(err(ctx, TargetProblem::BelowMinusOne { value: c, axis: i }));
        } else if c.is_zero() && mode.zero_copies {
            if let Some(dims) = input {
                if i >= dims.len() {
                    return Err(err(
                        ctx,
                        TargetProblem::ZeroPastRank {
                            axis: i,
                            input: ctx.alg.exprs(dims),
                        },
                    ));
                }
            }
            entries.push(Entry::Copy);
        } else {
            if c.is_zero() {
                literal_zero.get_or_insert(i);
            }
            entries.push(Entry::Lit(v));
        }
    }
    if mode.forbids_zero_with_minus_one() {
        if let (Some(z), Some(k)) = (literal_zero, minus_one) {
            return Err(err(
                ctx,
                TargetProblem::ZeroWithMinusOne {
                    flag: mode.literal_zero_flag(),
                    zero: z,
                    minus_one: k,
                },
            ));
        }
    }
    Ok((entries, minus_one))
}

/// The output shape of a reshape of `input` (`None`: unknown rank) to `target`.
fn reshape_dims(
    ctx: &mut ShapesContext,
    node: &Node,
    mode: Mode,
    input: Option<&[Dim]>,
    target: &[Dim],
) -> Result<Vec<Dim>, OpError> {
    let (entries, minus_one) = classify(ctx, mode, input, target)?;

    // Unknown input rank: copies and the -1 are unknown dims.
    let Some(input) = input else {
        let mut out = Vec::with_capacity(entries.len());
        for (i, e) in entries.iter().enumerate() {
            out.push(match e {
                Entry::Lit(d) => *d,
                Entry::Copy | Entry::MinusOne => ctx.unknown_dim(node, 0, i),
            });
        }
        return Ok(out);
    };

    let zero = ctx.alg.constant(0);
    let one = ctx.alg.constant(1);
    let mut out: Vec<Dim> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| match e {
            Entry::Lit(d) => *d,
            Entry::Copy => input[i],
            Entry::MinusOne => one,
        })
        .collect();
    match minus_one {
        Some(k) => {
            let dims = Dims {
                input,
                target,
                entries: &entries,
            };
            out[k] = solve_minus_one(ctx, node, mode, &dims, &out, k, (zero, one))?;
        }
        None => check_volume(ctx, node, mode, input, &out)?,
    }
    Ok(out)
}

/// What a reshape reads: the input's dims, the target's and its classified entries.
struct Dims<'a> {
    input: &'a [Dim],
    target: &'a [Dim],
    entries: &'a [Entry],
}

/// The output dim at the -1 (axis `k`) of `out` (`1` there so far), the constants
/// `0` and `1` given.
fn solve_minus_one(
    ctx: &mut ShapesContext,
    node: &Node,
    mode: Mode,
    dims: &Dims<'_>,
    out: &[Dim],
    k: usize,
    (zero, one): (Dim, Dim),
) -> Result<Dim, OpError> {
    let Dims {
        input,
        target,
        entries,
    } = *dims;
    let err = |ctx: &ShapesContext, why: TargetProblem| target_error(ctx, mode, target, why);
    // Copied dims cancel: the -1 is solved from the other input dims and the
    // other (not copied) output dims. This is OpenVINO's left-to-right rule,
    // and the same quotient as ONNX's and oneDNN's whole-volume division
    // whenever that one exists (their zero check below uses every output dim).
    let copied = |i: usize| matches!(entries.get(i), Some(Entry::Copy));
    let in_dims: Vec<Dim> = input
        .iter()
        .enumerate()
        .filter(|(i, _)| !copied(*i))
        .map(|(_, d)| *d)
        .collect();
    let lits: Vec<Dim> = entries
        .iter()
        .filter_map(|e| match e {
            Entry::Lit(d) => Some(*d),
            _ => None,
        })
        .collect();
    let known: Vec<Dim> = if mode.excludes_copied() {
        lits.clone()
    } else {
        out.iter()
            .enumerate()
            .filter(|(i, _)| *i != k)
            .map(|(_, d)| *d)
            .collect()
    };
    let known_prod = ctx.alg.product(&known);
    if ctx.alg.equal(known_prod, zero) == Truth::True {
        let in_prod = ctx.alg.product(&in_dims);
        let shown_known = ctx.render_dims(&known);
        let in_zero = ctx.alg.equal(in_prod, zero);
        match (mode.flavor, in_zero) {
            (Flavor::OpenVino, Truth::True) => {
                return Ok(one);
            }
            (Flavor::OpenVino, Truth::Unknown) => {
                let (shown, shown_input) =
                    (shown_target(ctx, target), shown_input(ctx, Some(input)));
                warn(
                    ctx,
                    node,
                    format!(
                        "the -1 at axis {k} of target {shown} is undetermined unless the input {shown_input} is zero-size: the other output dims {shown_known} multiply to 0"
                    ),
                );
                return Ok(ctx.unknown_dim(node, 0, k));
            }
            (Flavor::OpenVino, Truth::False) => {
                return Err(err(
                    ctx,
                    TargetProblem::ZeroProductNonEmptyInput {
                        axis: k,
                        others: ctx.alg.exprs(&known),
                        input: ctx.alg.exprs(input),
                    },
                ));
            }
            _ => {
                return Err(err(
                    ctx,
                    TargetProblem::ZeroProduct {
                        axis: k,
                        others: ctx.alg.exprs(&known),
                    },
                ));
            }
        }
    }
    let key = FreshKey {
        node: node.name.clone(),
        output: 0,
        axis: k,
    };
    match ctx.alg.solve_minus_one(&in_dims, &lits, key) {
        Ok(MinusOne::Exact(d)) => Ok(d),
        Ok(MinusOne::Fresh { dim, .. }) if mode.condition_reported => Ok(dim),
        Ok(MinusOne::Fresh { dim, residual }) => {
            let p = ctx.alg.product(&in_dims);
            let q = ctx.alg.product(&lits);
            let (ps, ks) = (ctx.alg.render(p), ctx.alg.render(q));
            let name = ctx.alg.render(dim);
            let shown = shown_target(ctx, target);
            warn(
                ctx,
                node,
                format!(
                    "the -1 at axis {k} of target {shown} is not provably an integer: need {ks} | {ps}; residual {residual}; it becomes {name} with {ks}*{name} == {ps} (valid when {ks} divides {ps})"
                ),
            );
            Ok(dim)
        }
        Err(source) => Err(OpError::MinusOne {
            axis: k,
            target: ctx.alg.exprs(target),
            input: ctx.alg.exprs(input),
            source: Box::new(source),
        }),
    }
}

/// Without a -1, the input and output volumes must be equal: an error when they
/// provably differ, a warning when that is not proven (unless the model's
/// condition is reported otherwise).
fn check_volume(
    ctx: &mut ShapesContext,
    node: &Node,
    mode: Mode,
    input: &[Dim],
    out: &[Dim],
) -> Result<(), OpError> {
    let pin = ctx.alg.product(input);
    let pout = ctx.alg.product(out);
    match ctx.alg.equal(pin, pout) {
        Truth::True => {}
        Truth::False => {
            return Err(OpError::VolumeMismatch {
                input: ctx.alg.expr(pin),
                output: ctx.alg.expr(pout),
                proven: true,
            });
        }
        Truth::Unknown if mode.condition_reported => {}
        Truth::Unknown => {
            let (si, so) = (ctx.alg.render(pin), ctx.alg.render(pout));
            let shown_out = ctx.render_dims(out);
            let shown_input = shown_input(ctx, Some(input));
            let residual = ctx.alg.div_rational(pin, pout);
            let residual = ctx.alg.render(residual);
            warn(
                ctx,
                node,
                format!(
                    "volume not provably equal: input {shown_input} has {si} elements, output {shown_out} has {so}; residual input/output = {residual}, must be 1 (valid when {si} == {so})"
                ),
            );
        }
    }
    Ok(())
}

/// Output dims when only the target's length is known: fresh data-dependent dims,
/// except a rank-1 output (the whole input volume) and a scalar.
fn dims_of_unknown_target(
    ctx: &mut ShapesContext,
    node: &Node,
    input: Option<&[Dim]>,
    len: usize,
) -> Vec<Dim> {
    if len == 1 {
        if let Some(dims) = input {
            return vec![ctx.alg.product(dims)];
        }
    }
    (0..len).map(|i| ctx.unknown_dim(node, 0, i)).collect()
}

/// Read a 1-D shape input: its value, or what its static shape says.
enum Target {
    Values(Vec<Dim>),
    Length(usize),
    Unknown,
}

fn read_target_input(
    ctx: &ShapesContext,
    fact: &TensorFact,
    what: &'static str,
) -> Result<Target, OpError> {
    if let Some(shape) = &fact.shape {
        if shape.len() != 1 {
            return Err(OpError::Rank {
                of: Box::new(Subject::ShapeInput {
                    name: what,
                    shape: ctx.alg.exprs(shape),
                }),
                expected: Expected::Exactly(1),
                found: shape.len(),
            });
        }
    }
    if let Some(v) = &fact.value {
        return Ok(Target::Values(v.clone()));
    }
    match fact.shape.as_deref() {
        Some([_]) => Ok(fact
            .static_len(&ctx.alg)
            .map_or(Target::Unknown, Target::Length)),
        _ => Ok(Target::Unknown),
    }
}

fn finish(
    ctx: &mut ShapesContext,
    node: &Node,
    mode: Mode,
    data: &TensorFact,
    target: Target,
) -> Result<Vec<TensorFact>, OpError> {
    let input = data.shape.as_deref();
    let shape = match target {
        Target::Values(t) => Some(reshape_dims(ctx, node, mode, input, &t)?),
        Target::Length(n) => Some(dims_of_unknown_target(ctx, node, input, n)),
        Target::Unknown => None,
    };
    Ok(vec![TensorFact {
        fill: None,
        dtype: data.dtype,
        shape,
        value: data.value.clone(),
    }])
}

// ----- the rules ------------------------------------------------------------------

/// ONNX `Reshape`, every version (see the module docs).
pub fn onnx_reshape(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let version = onnx_version(node.version);
    if version == 1 {
        check_inputs(node, 1, 1)?;
        let data = ctx.input(node, 0, "data")?;
        check_type(data.dtype, FLOATS_V1, "data")?;
        let target = attr_shape(ctx, node)?;
        let mode = Mode {
            flavor: Flavor::Onnx,
            source: Source::Attribute,
            zero_copies: true,
            condition_reported: false,
        };
        return finish(ctx, node, mode, &data, Target::Values(target));
    }
    check_inputs(node, 2, 2)?;
    let data = ctx.input(node, 0, "data")?;
    check_type(data.dtype, &onnx_allowed_types(version), "data")?;
    let shape = ctx.input(node, 1, "shape")?;
    check_type(shape.dtype, &[DType::Int64], "shape")?;
    let allowzero = if version >= 14 {
        match attr_int(node, "allowzero", 0)? {
            0 => false,
            1 => true,
            v => {
                return Err(OpError::BadAttribute {
                    name: "allowzero",
                    value: AttrValue::Int(v),
                    why: Box::new(AttrProblem::Fixed("must be 0 or 1")),
                })
            }
        }
    } else {
        if let Some(a) = node.attr("allowzero") {
            return Err(crate::ops::common::attrs::bad_attr(
                "allowzero",
                a,
                AttrProblem::NotInVersion {
                    op: "Reshape",
                    version,
                    attribute: "allowzero",
                    since: 14,
                },
            ));
        }
        false
    };
    let target = read_target_input(ctx, &shape, "shape")?;
    let mode = Mode {
        flavor: Flavor::Onnx,
        source: Source::Input,
        zero_copies: !allowzero,
        condition_reported: false,
    };
    finish(ctx, node, mode, &data, target)
}

/// OpenVINO `Reshape-1`: data and a 1-D integer pattern input, `special_zero`.
pub fn openvino_reshape(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let special_zero = ov_bool_required(node, "special_zero")?;
    let data = ctx.input(node, 0, "data")?;
    if data.dtype == DType::String {
        return Err(OpError::UnsupportedType {
            dtype: data.dtype,
            what: "data",
            allowed: Allowed::Numeric,
        });
    }
    let pattern = ctx.input(node, 1, "pattern")?;
    if pattern.dtype != DType::Undefined
        && (!pattern.dtype.is_integer() || pattern.dtype == DType::Bool)
    {
        return Err(OpError::UnsupportedType {
            dtype: pattern.dtype,
            what: "pattern",
            allowed: Allowed::Integer,
        });
    }
    let target = read_target_input(ctx, &pattern, "pattern")?;
    let mode = Mode {
        flavor: Flavor::OpenVino,
        source: Source::Input,
        zero_copies: special_zero,
        condition_reported: false,
    };
    finish(ctx, node, mode, &data, target)
}

/// OpenVINO `StaticReshape-1`: the pattern is the `shape` attribute.
pub fn openvino_static_reshape(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let special_zero = ov_bool_required(node, "special_zero")?;
    let data = ctx.input(node, 0, "data")?;
    check_type(data.dtype, STATIC_TYPES, "data")?;
    let target = ov_attr_shape(ctx, node)?;
    let mode = Mode {
        flavor: Flavor::OpenVinoStatic,
        source: Source::Attribute,
        zero_copies: special_zero,
        condition_reported: false,
    };
    finish(ctx, node, mode, &data, Target::Values(target))
}

/// oneDNN Graph `StaticReshape`: `shape` (s64 list) and `special_zero` (0 or 1).
///
/// With a symbolic input dim (`--symbol`, or a dim an upstream op left symbolic)
/// the concrete `shape` attribute becomes an equation on the symbols, checked by
/// [`check_shape_attr`]: an attribute that holds only for some values is an error
/// diagnostic naming the entry to rewrite and the value it needs (`with input
/// [N, 256, 75, 75], shape[0] = 1 is valid only when N == 1; use -1, 0 with
/// special_zero=1 or N`), and the output is still the shape the attribute gives;
/// one that holds for no value is an error ([`OpError::BadAttribute`]).
pub fn onednn_static_reshape(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let special_zero = onednn_bool_required(node, "special_zero")?;
    let data = ctx.input(node, 0, "src")?;
    check_type(data.dtype, STATIC_TYPES, "src")?;
    let shape = attr_shape_ints(node)?;
    let target: Vec<Dim> = shape.iter().map(|&v| ctx.alg.constant(v)).collect();
    let mut mode = Mode {
        flavor: Flavor::OneDnn,
        source: Source::Attribute,
        zero_copies: special_zero,
        condition_reported: false,
    };
    if let Some(input) = data.shape.as_deref() {
        let check = check_shape_attr(ctx, input, &shape, special_zero);
        let input_text = ctx.render_dims(input);
        match check {
            ShapeAttrCheck::NotSymbolic | ShapeAttrCheck::ValidForAll => {}
            ShapeAttrCheck::NeverValid { why } => {
                return Err(OpError::BadAttribute {
                    name: "shape",
                    value: AttrValue::Dims(ctx.alg.exprs(&target)),
                    why: Box::new(AttrProblem::NeverValid {
                        input: ctx.alg.exprs(input),
                        why,
                    }),
                })
            }
            check @ ShapeAttrCheck::ValidOnlyWhen { .. } => {
                let why = check.explain(&input_text, special_zero);
                let full = format!("{}: {why}", node_context(node));
                ctx.diagnose(Severity::Error, node, full);
                mode.condition_reported = true;
            }
        }
    }
    finish(ctx, node, mode, &data, Target::Values(target))
}

/// What a StaticReshape `shape` attribute means for symbolic input dims.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShapeAttrCheck {
    /// The input dims are all constants (or the attribute is malformed): the
    /// StaticReshape rule's own checks apply, nothing symbolic to say.
    NotSymbolic,
    /// The attribute is valid for every value of the symbols.
    ValidForAll,
    /// Valid only under a condition on the symbols.
    ValidOnlyWhen {
        /// The condition, e.g. `N == 1` or `12 divides 7*S`.
        condition: Condition,
        /// The entry to rewrite, when one entry alone can make it valid for every
        /// value.
        entry: Option<AttrEntry>,
        /// Whether the needed expression equals the input dim at the same index (so
        /// `0` with `special_zero` would also do).
        same_as_input: bool,
    },
    /// Valid for no value of the symbols.
    NeverValid {
        /// Why, with the element counts.
        why: NeverValid,
    },
}

/// The condition under which a StaticReshape `shape` attribute is valid
/// ([`ShapeAttrCheck::ValidOnlyWhen`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Condition {
    /// The two sides are equal: the element counts of input and attribute
    /// (`64*N*S == 8192`), an entry's need and its value (`N*S == 128`), or a symbol
    /// and the value it must take (`N == 64`).
    Equal {
        /// The left side.
        left: DimExpr,
        /// The right side.
        right: DimExpr,
    },
    /// The product of the entries besides the `-1` divides the input's element count
    /// (`2 divides 3*N`).
    Divides {
        /// The product of the other entries.
        divisor: DimExpr,
        /// The input's element count.
        dividend: DimExpr,
    },
}

impl std::fmt::Display for Condition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Condition::Equal { left, right } => write!(f, "{left} == {right}"),
            Condition::Divides { divisor, dividend } => write!(f, "{divisor} divides {dividend}"),
        }
    }
}

/// The entry of a StaticReshape `shape` attribute to rewrite: `shape[index]` is
/// `value` and needs `need` to be valid for every value of the symbols.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttrEntry {
    /// The index in the attribute.
    pub index: usize,
    /// The value written there.
    pub value: i64,
    /// The expression it needs.
    pub need: DimExpr,
}

impl ShapeAttrCheck {
    /// The diagnostic text of a check for an input rendered as `input`, e.g. `with
    /// input [N, 256, 75, 75], shape[0] = 1 is valid only when N == 1; use -1, 0
    /// with special_zero=1 or N`. Empty for [`ShapeAttrCheck::NotSymbolic`] and
    /// [`ShapeAttrCheck::ValidForAll`], which call for none.
    pub fn explain(&self, input: &str, special_zero: bool) -> String {
        match self {
            ShapeAttrCheck::NotSymbolic | ShapeAttrCheck::ValidForAll => String::new(),
            ShapeAttrCheck::ValidOnlyWhen {
                condition,
                entry:
                    Some(AttrEntry {
                        index: i,
                        value: a,
                        need,
                    }),
                same_as_input,
            } => {
                let zero = match (same_as_input, special_zero) {
                    (false, _) => "",
                    (true, true) => ", 0",
                    (true, false) => ", 0 with special_zero=1",
                };
                format!(
                    "with input {input}, shape[{i}] = {a} is valid only when {condition}; use -1{zero} or {need}"
                )
            }
            ShapeAttrCheck::ValidOnlyWhen {
                condition,
                entry: None,
                ..
            } => format!("with input {input}, the shape attribute is valid only when {condition}"),
            ShapeAttrCheck::NeverValid { why } => format!(
                "with input {input}, the shape attribute is valid for no value of the symbols: {why}"
            ),
        }
    }
}

/// Check a StaticReshape `shape` attribute (`-1` infers one dim, `0` with
/// `special_zero` copies the input dim) against input dims that may be symbolic:
/// does the element count hold for every value of the symbols, and if not, under
/// which condition and with which entry rewritten.
///
/// The StaticReshape rule computes the output itself and calls this to explain a
/// volume mismatch that depends on symbols.
pub fn check_shape_attr(
    ctx: &mut ShapesContext,
    input: &[Dim],
    shape: &[i64],
    special_zero: bool,
) -> ShapeAttrCheck {
    let symbolic = input.iter().any(|d| ctx.alg.as_const(*d).is_none());
    let minus_ones = shape.iter().filter(|&&v| v == -1).count();
    if !symbolic || minus_ones > 1 || shape.iter().any(|&v| v < -1) {
        return ShapeAttrCheck::NotSymbolic;
    }
    let mut known = Vec::new();
    for (i, &v) in shape.iter().enumerate() {
        match v {
            -1 => {}
            0 if special_zero => match input.get(i) {
                Some(d) => known.push(*d),
                None => return ShapeAttrCheck::NotSymbolic,
            },
            v => known.push(ctx.alg.constant(v)),
        }
    }
    let in_vol = ctx.alg.product(input);
    let out_vol = ctx.alg.product(&known);
    if minus_ones == 1 {
        if ctx.alg.as_i64(out_vol) == Some(0) {
            return ShapeAttrCheck::NotSymbolic;
        }
        return match ctx.alg.divides(out_vol, in_vol) {
            Truth::True => ShapeAttrCheck::ValidForAll,
            Truth::False => ShapeAttrCheck::NeverValid {
                why: NeverValid::NeverDivides {
                    input: ctx.alg.expr(in_vol),
                    shape: ctx.alg.expr(out_vol),
                },
            },
            Truth::Unknown => ShapeAttrCheck::ValidOnlyWhen {
                condition: Condition::Divides {
                    divisor: ctx.alg.expr(out_vol),
                    dividend: ctx.alg.expr(in_vol),
                },
                entry: None,
                same_as_input: false,
            },
        };
    }
    match ctx.alg.equal(in_vol, out_vol) {
        Truth::True => return ShapeAttrCheck::ValidForAll,
        Truth::False => {
            return ShapeAttrCheck::NeverValid {
                why: NeverValid::Counts {
                    input: ctx.alg.expr(in_vol),
                    shape: ctx.alg.expr(out_vol),
                },
            }
        }
        Truth::Unknown => {}
    }
    // One entry alone: shape[i] needs a[i] * in_vol / out_vol.
    let mut best: Option<(usize, i64, Dim, bool)> = None;
    for (i, &a) in shape.iter().enumerate() {
        if a <= 0 {
            continue;
        }
        let c = ctx.alg.constant(a);
        let num = ctx.alg.mul(c, in_vol);
        let Ok(need) = ctx.alg.div(num, out_vol) else {
            continue;
        };
        let same = input
            .get(i)
            .is_some_and(|d| ctx.alg.equal(*d, need) == Truth::True);
        let better = match &best {
            None => true,
            Some((_, _, _, best_same)) => same && !best_same,
        };
        if better {
            best = Some((i, a, need, same));
        }
    }
    let Some((i, a, need, same)) = best else {
        return ShapeAttrCheck::ValidOnlyWhen {
            condition: Condition::Equal {
                left: ctx.alg.expr(in_vol),
                right: ctx.alg.expr(out_vol),
            },
            entry: None,
            same_as_input: false,
        };
    };
    let need_expr = ctx.alg.expr(need);
    match solve_linear(ctx, need, a) {
        Solved::Never => ShapeAttrCheck::NeverValid {
            why: NeverValid::EntryNeverFits {
                input: ctx.alg.expr(in_vol),
                shape: ctx.alg.expr(out_vol),
                index: i,
                value: a,
                need: ctx.alg.expr(need),
            },
        },
        Solved::When(condition) => ShapeAttrCheck::ValidOnlyWhen {
            condition,
            entry: Some(AttrEntry {
                index: i,
                value: a,
                need: need_expr,
            }),
            same_as_input: same,
        },
    }
}

enum Solved {
    When(Condition),
    Never,
}

/// `need == a` as a condition on one symbol when `need` is linear in it: `N == 64`.
fn solve_linear(ctx: &mut ShapesContext, need: Dim, a: i64) -> Solved {
    let poly = ctx.alg.canon(need).clone();
    let mut syms = Vec::new();
    poly.symbols(&mut syms);
    syms.sort();
    syms.dedup();
    let generic = Solved::When(Condition::Equal {
        left: ctx.alg.expr(need),
        right: DimExpr::constant(a),
    });
    let [s] = syms.as_slice() else {
        return generic;
    };
    let at = |x: i64| poly.eval(&|q| (q == *s).then(|| Rat::int(x)));
    let (Some(f0), Some(f1), Some(f2)) = (at(0), at(1), at(2)) else {
        return generic;
    };
    let c = f1.sub(&f0);
    if f2.sub(&f1) != c || c.is_zero() {
        return generic;
    }
    // c * s + f0 == a  =>  s == (a - f0) / c
    let Some(v) = Rat::int(a).sub(&f0).div(&c) else {
        return generic;
    };
    let sym = ctx
        .alg
        .symbol(s.as_str(), crate::algebra::SymbolKind::Input);
    let bounds = ctx.alg.bounds(sym);
    if !v.is_integer() || !bounds.contains(&v) {
        return Solved::Never;
    }
    Solved::When(Condition::Equal {
        left: DimExpr::symbol(s.as_str()),
        right: DimExpr::from_poly(crate::algebra::Poly::constant(v)),
    })
}
