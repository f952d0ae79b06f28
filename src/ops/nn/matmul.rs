//! Matrix products: ONNX MatMul, Gemm, MatMulInteger, QLinearMatMul and Einsum;
//! OpenVINO MatMul and Einsum; oneDNN MatMul.
//!
//! Specs: <https://onnx.ai/onnx/operators/> (MatMul, Gemm, MatMulInteger,
//! QLinearMatMul, Einsum); the OpenVINO operation specifications (MatMul-1,
//! Einsum-7); oneDNN
//! Graph's `MatMul` document.
//!
//! **MatMul** (every format; [`matmul_shape`]) follows `numpy.matmul`: a 1-D `A`
//! is promoted to `[1, K]` and a 1-D `B` to `[K, 1]`, and the promoted axis is
//! removed from the result; the batch dims (all but the last two) broadcast with
//! the shared numpy rules of [`crate::ops::common::broadcast`]. OpenVINO and oneDNN add
//! `transpose_a`/`transpose_b`, which swap the last two axes of an operand of rank
//! 2 or more (a 1-D operand is never transposed). The contracted dim `K` must be
//! equal: provably different is a [`OpError::DimMismatch`]; when the algebra
//! cannot decide, the two are unioned (a valid model needs them equal) and the
//! relation is recorded (with a warning for ONNX, see [`Equate`]). Rank 0 is an
//! error. oneDNN's optional `bias` input must broadcast to the output.
//!
//! **Gemm** takes 2-D `A` and `B` (`transA`/`transB` swap their axes) and gives
//! `[M, N]`; the optional `C` must broadcast unidirectionally to `[M, N]`.
//!
//! **Det** (ONNX) takes square matrices `[*, M, M]` and gives their determinants
//! `[*]`; the last two dims are equated.
//!
//! **Einsum** parses its equation (`ij,jk->ik`, implicit output when `->` is
//! absent: the ellipsis dims, then the labels used once, in ASCII order). Dims
//! of one label are merged with the broadcasting rules, ellipsis dims of all
//! operands broadcast together ([`einsum_fact`]; OpenVINO's Einsum is the same).
//!
//! The output type is `A`'s (ONNX, OpenVINO); oneDNN's is the `dst_dtype` the
//! converter records, else `src`'s.
//!
//! Version history (shape-relevant):
//! - ONNX MatMul-1, -9, -13: type lists only (13 adds bfloat16).
//! - ONNX Gemm-1: `broadcast` attribute, `C` required; Gemm-6: `broadcast` kept,
//!   shape inference added; Gemm-7: unidirectional broadcasting of `C`, no
//!   `broadcast` attribute; Gemm-9: integer types; Gemm-11: `C` optional;
//!   Gemm-13: bfloat16. The output is `[M, N]` in every version.
//! - ONNX MatMulInteger-10: output int32; zero points scalar or per row/column.
//! - ONNX QLinearMatMul-10, -21 (more types): output type of `y_zero_point`.
//! - ONNX Einsum-12: equation attribute, ellipsis broadcasting.
//! - ONNX Det-11; Det-22 (types).
//! - OpenVINO MatMul-0 (`opset1`): `transpose_a`, `transpose_b`; the only version.
//! - OpenVINO Einsum-7: `equation`; the only version.
//! - oneDNN MatMul: `transpose_a`, `transpose_b`, optional `bias`.
//!
//! Cost: `vol(Y) × K` MACs per product ([`COSTS`]).

use crate::algebra::{Algebra, Dim, Rat};
use crate::context::DimRole;
use crate::context::Subject;
use crate::context::{AttrProblem, AttrValue, EquationProblem};
use crate::context::{Expected, OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};
use crate::ops::common::attrs::{attr_int, attr_str};
use crate::ops::common::attrs::{dst_dtype, ov_bool};
use crate::ops::common::broadcast::{broadcast_dim, broadcast_shapes, check_broadcasts_to};
use crate::ops::common::check_inputs;
use crate::ops::common::dims::{expect_rank, unify_as, Equate};
use crate::ops::cost::{axis, contraction, input_dims, output_volume, per_input_element, times};
use crate::ops::cost::{Costs, OpCost};
use crate::ops::{rules, RuleEntry};
use std::collections::BTreeMap;

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["MatMul"], matmul),
    ("", ["Gemm"], gemm),
    ("", ["MatMulInteger"], matmul_integer),
    ("", ["QLinearMatMul"], qlinear_matmul),
    ("", ["Det"], det),
    ("", ["Einsum"], einsum),
    ("openvino", ["MatMul"], openvino_matmul),
    ("openvino", ["Einsum"], openvino_einsum),
    ("onednn", ["MatMul"], onednn_matmul),
];

/// What the products compute ([`crate::ops::cost`]). With `Y` the output and `K`
/// the contracted dim (the last of `A`, the one before it when `A` is
/// transposed; `A`'s only dim when it is 1-D):
/// - **MatMul** (every format, `MatMulInteger`, `QLinearMatMul`): MACs
///   `vol(Y) × K`. Under numpy broadcasting `vol(Y)` is the broadcast batch
///   times `M × N` (a 1-D operand's promoted axis, removed from `Y`, is 1), so
///   this is `batch × M × N × K`. FLOPs `2 × MACs` (+ `vol(Y)` for oneDNN's bias).
/// - **Gemm**: MACs `M × N × K = vol(Y) × K` (`K` is `A[0]` with `transA`);
///   FLOPs `2 × MACs`, + `vol(Y)` with `C` (its add; `alpha`/`beta` scaling is
///   not counted).
/// - **Einsum**: MACs `(n - 1) × vol(Y) × ∏ contracted labels` for `n >= 2`
///   operands (a loop over every label combination, `n - 1` products each),
///   FLOPs `2 × MACs`; one operand is a sum: 0 MACs, FLOPs `vol(X)`. An
///   ellipsis summed away is not counted (unknown).
/// - **Det**: not counted (no formula).
pub const COSTS: &[Costs] = &[Costs::by_op(rules![
    ("", ["MatMul", "MatMulInteger"], matmul_cost),
    ("", ["QLinearMatMul"], qlinear_matmul_cost),
    ("", ["Gemm"], gemm_cost),
    ("", ["Einsum"], einsum_cost),
    ("openvino", ["Einsum"], ov_einsum_cost),
    ("openvino", ["MatMul"], ov_matmul_cost),
    ("onednn", ["MatMul"], onednn_matmul_cost),
])];

/// The MACs of `a @ b` with output `Y`: `vol(Y) × K`, `K` read from `a` (input
/// `a_index`), transposed when `transpose_a`.
pub fn matmul_macs(
    alg: &mut Algebra,
    ctx: &ShapesContext,
    node: &Node,
    a_index: usize,
    transpose_a: bool,
) -> Option<Dim> {
    let a = input_dims(ctx, node, a_index)?;
    let k = match a.len() {
        0 => return None,
        1 => a[0],
        _ if transpose_a => axis(&a, -2)?,
        _ => axis(&a, -1)?,
    };
    let y = output_volume(alg, ctx, node, 0)?;
    Some(alg.mul(y, k))
}

fn matmul_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    let macs = matmul_macs(alg, ctx, node, 0, false);
    contraction(alg, macs, None)
}

fn qlinear_matmul_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    let macs = matmul_macs(alg, ctx, node, 0, false);
    contraction(alg, macs, None)
}

fn ov_matmul_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    let ta = ov_bool(node, "transpose_a", false).unwrap_or(false);
    let macs = matmul_macs(alg, ctx, node, 0, ta);
    contraction(alg, macs, None)
}

fn onednn_matmul_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    let ta = attr_int(node, "transpose_a", 0).unwrap_or(0) != 0;
    let macs = matmul_macs(alg, ctx, node, 0, ta);
    let bias = input_dims(ctx, node, 2).and_then(|_| output_volume(alg, ctx, node, 0));
    contraction(alg, macs, bias)
}

fn gemm_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    let trans_a = attr_int(node, "transA", 0).unwrap_or(0) != 0;
    let macs = input_dims(ctx, node, 0)
        .filter(|a| a.len() == 2)
        .and_then(|a| {
            let k = a[usize::from(!trans_a)];
            let y = output_volume(alg, ctx, node, 0)?;
            Some(alg.mul(y, k))
        });
    let bias = node
        .inputs
        .get(2)
        .filter(|c| !c.is_empty())
        .and_then(|_| output_volume(alg, ctx, node, 0));
    contraction(alg, macs, bias)
}

fn einsum_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    let eq = attr_str(node, "equation").ok().flatten();
    einsum_cost_of(alg, ctx, node, eq)
}

fn ov_einsum_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    let eq = crate::ops::common::attrs::ov_str(node, "equation")
        .ok()
        .flatten();
    einsum_cost_of(alg, ctx, node, eq)
}

/// The cost of an Einsum of equation `eq` (see [`COSTS`]).
fn einsum_cost_of(alg: &mut Algebra, ctx: &ShapesContext, node: &Node, eq: Option<&str>) -> OpCost {
    let unknown = OpCost {
        macs: None,
        flops: None,
    };
    let Some(eq) = eq else { return unknown };
    let eq: String = eq.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (eq.as_str(), None),
    };
    let Ok(terms) = lhs
        .split(',')
        .map(|t| parse_term(&eq, t))
        .collect::<Result<Vec<Term>, _>>()
    else {
        return unknown;
    };
    if terms.len() == 1 {
        return per_input_element(alg, ctx, node, 1);
    }
    // Labels in the output: explicit, or (implicit) those used once.
    let count = |l: char| terms.iter().flatten().filter(|x| **x == Some(l)).count();
    let out: Vec<Option<char>> = match rhs {
        Some(r) => match parse_term(&eq, r) {
            Ok(t) => t,
            Err(_) => return unknown,
        },
        None => {
            let mut t: Vec<Option<char>> = terms
                .iter()
                .flatten()
                .copied()
                .filter(|l| match l {
                    Some(c) => count(*c) == 1,
                    None => false,
                })
                .collect();
            t.push(None);
            t
        }
    };
    let has_ellipsis = terms.iter().flatten().any(Option::is_none);
    if has_ellipsis && !out.contains(&None) {
        return unknown;
    }
    // Each contracted label's dim: its dims in every operand, broadcast.
    let mut contracted: BTreeMap<char, Dim> = BTreeMap::new();
    for (i, t) in terms.iter().enumerate() {
        let Some(dims) = input_dims(ctx, node, i) else {
            return unknown;
        };
        let ell = dims
            .len()
            .checked_sub(t.len() - usize::from(t.contains(&None)));
        let Some(ell) = ell else { return unknown };
        let mut pos = 0;
        for l in t {
            match l {
                None => pos += ell,
                Some(c) => {
                    if !out.contains(&Some(*c)) {
                        let d = dims[pos];
                        let merged = match contracted.get(c) {
                            Some(prev) => alg.broadcast(*prev, d),
                            None => d,
                        };
                        contracted.insert(*c, merged);
                    }
                    pos += 1;
                }
            }
        }
    }
    let Some(y) = output_volume(alg, ctx, node, 0) else {
        return unknown;
    };
    let dims: Vec<Dim> = contracted.values().copied().collect();
    let k = alg.product(&dims);
    let per = alg.mul(y, k);
    let macs = times(alg, terms.len() as i64 - 1, per);
    contraction(alg, Some(macs), None)
}

/// The shape of the matrix product `a @ b` (`numpy.matmul`, see the module doc):
/// `transpose_a`/`transpose_b` swap the last two axes of an operand of rank 2 or
/// more; `K` is equated the way `equate` says.
pub fn matmul_shape(
    ctx: &mut ShapesContext,
    node: &Node,
    a: &[Dim],
    b: &[Dim],
    transpose_a: bool,
    transpose_b: bool,
    equate: Equate,
) -> Result<Vec<Dim>, OpError> {
    if a.is_empty() {
        return Err(crate::ops::common::dims::rank_of(
            "input A",
            Expected::AtLeast(1),
            0,
        ));
    }
    if b.is_empty() {
        return Err(crate::ops::common::dims::rank_of(
            "input B",
            Expected::AtLeast(1),
            0,
        ));
    }
    let one = ctx.alg.constant(1);
    let (a_vec, b_vec) = (a.len() == 1, b.len() == 1);
    let mut pa = a.to_vec();
    let mut pb = b.to_vec();
    if a_vec {
        pa.insert(0, one);
    } else if transpose_a {
        pa.swap(a.len() - 1, a.len() - 2);
    }
    if b_vec {
        pb.push(one);
    } else if transpose_b {
        pb.swap(b.len() - 1, b.len() - 2);
    }
    let (ra, rb) = (pa.len(), pb.len());
    equate.dims_as(
        ctx,
        node,
        "the contracted dim (K) of inputs 0 and 1",
        pa[ra - 1],
        pb[rb - 2],
    )?;
    let mut out = broadcast_shapes(ctx, &node.name, &pa[..ra - 2], &pb[..rb - 2])?;
    if !a_vec {
        out.push(pa[ra - 2]);
    }
    if !b_vec {
        out.push(pb[rb - 1]);
    }
    Ok(out)
}

/// ONNX's `a @ b` (`numpy.matmul`) of two inputs: `None` when a rank is unknown.
pub(crate) fn onnx_matmul_shape(
    ctx: &mut ShapesContext,
    node: &Node,
    a: &TensorFact,
    b: &TensorFact,
) -> Result<Option<Vec<Dim>>, OpError> {
    let (Some(sa), Some(sb)) = (&a.shape, &b.shape) else {
        return Ok(None);
    };
    matmul_shape(ctx, node, sa, sb, false, false, Equate::Warn).map(Some)
}

fn matmul(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let a = ctx.input(node, 0, "A")?;
    let b = ctx.input(node, 1, "B")?;
    let dtype = a.dtype;
    Ok(vec![match onnx_matmul_shape(ctx, node, &a, &b)? {
        Some(s) => TensorFact::new(dtype, s),
        None => TensorFact::unknown(dtype),
    }])
}

/// Check a zero point or scale of a quantized matmul: a scalar, or a vector of
/// `len` (per row of A / per column of B).
fn check_per_axis(
    ctx: &mut ShapesContext,
    node: &Node,
    fact: Option<TensorFact>,
    what: &'static str,
    len: Option<Dim>,
) -> Result<(), OpError> {
    let Some(shape) = fact.and_then(|f| f.shape) else {
        return Ok(());
    };
    match (shape.len(), len) {
        (0, _) => Ok(()),
        (1, Some(n)) => {
            let one = ctx.alg.constant(1);
            if ctx.alg.equal(shape[0], one) == crate::algebra::Truth::True {
                return Ok(());
            }
            unify_as(ctx, node, DimRole::Length { of: what }, shape[0], n).map(|_| ())
        }
        (1, None) => Ok(()),
        (r, _) if r > 1 => Ok(()), // N-D zero points of batched inputs: not checked
        (r, _) => Err(crate::ops::common::dims::rank_of(
            what,
            Expected::either(&[0, 1]),
            r,
        )),
    }
}

fn matmul_integer(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 4)?;
    let a = ctx.input(node, 0, "A")?;
    let b = ctx.input(node, 1, "B")?;
    let shape = onnx_matmul_shape(ctx, node, &a, &b)?;
    let m = a
        .shape
        .as_ref()
        .and_then(|s| (s.len() >= 2).then(|| s[s.len() - 2]));
    let n = b.shape.as_ref().and_then(|s| s.last().copied());
    let azp = ctx.optional_input(node, 2)?;
    check_per_axis(ctx, node, azp, "a_zero_point", m)?;
    let bzp = ctx.optional_input(node, 3)?;
    check_per_axis(ctx, node, bzp, "b_zero_point", n)?;
    Ok(vec![match shape {
        Some(s) => TensorFact::new(DType::Int32, s),
        None => TensorFact::unknown(DType::Int32),
    }])
}

fn qlinear_matmul(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 8, 8)?;
    let a = ctx.input(node, 0, "a")?;
    let b = ctx.input(node, 3, "b")?;
    let y_zp = ctx.input(node, 7, "y_zero_point")?;
    let shape = onnx_matmul_shape(ctx, node, &a, &b)?;
    let dtype = if y_zp.dtype == DType::Undefined {
        a.dtype
    } else {
        y_zp.dtype
    };
    Ok(vec![match shape {
        Some(s) => TensorFact::new(dtype, s),
        None => TensorFact::unknown(dtype),
    }])
}

fn gemm(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 3)?;
    let a = ctx.input(node, 0, "A")?;
    let b = ctx.input(node, 1, "B")?;
    let c = ctx.optional_input(node, 2)?;
    let trans_a = attr_int(node, "transA", 0)? != 0;
    let trans_b = attr_int(node, "transB", 0)? != 0;
    let (Some(sa), Some(sb)) = (&a.shape, &b.shape) else {
        // The output is 2-D whatever the inputs: only the dims are unknown.
        let m = match &a.shape {
            Some(s) if s.len() == 2 => s[usize::from(trans_a)],
            _ => ctx.unknown_dim(node, 0, 0),
        };
        let n = match &b.shape {
            Some(s) if s.len() == 2 => s[usize::from(!trans_b)],
            _ => ctx.unknown_dim(node, 0, 1),
        };
        return Ok(vec![TensorFact::new(a.dtype, vec![m, n])]);
    };
    expect_rank("input A", sa, 2)?;
    expect_rank("input B", sb, 2)?;
    let (m, ka) = if trans_a {
        (sa[1], sa[0])
    } else {
        (sa[0], sa[1])
    };
    let (kb, n) = if trans_b {
        (sb[1], sb[0])
    } else {
        (sb[0], sb[1])
    };
    unify_as(
        ctx,
        node,
        DimRole::of("Gemm contracted dim K", ("A", "B")),
        ka,
        kb,
    )?;
    if let Some(sc) = c.and_then(|c| c.shape) {
        if sc.len() > 2 {
            return Err(crate::ops::common::dims::rank_of(
                "input C",
                Expected::AtMost(2),
                sc.len(),
            ));
        }
        // C broadcasts unidirectionally to [M, N]: each dim is 1 or the output's.
        // A dim that cannot be 1 must equal the output's (unified when undecided).
        let out = [m, n];
        for (i, d) in sc.iter().enumerate() {
            let o = out[2 - sc.len() + i];
            if !ctx.alg.bounds(*d).contains(&Rat::one()) {
                unify_as(ctx, node, "C must broadcast to [M, N]", *d, o)?;
            }
        }
    }
    Ok(vec![TensorFact::new(a.dtype, vec![m, n])])
}

/// One term of an Einsum equation: its labels, with `None` for the ellipsis.
type Term = Vec<Option<char>>;

fn bad_equation(eq: &str, why: EquationProblem) -> OpError {
    OpError::BadAttribute {
        name: "equation",
        value: AttrValue::Str(eq.to_string()),
        why: Box::new(AttrProblem::Equation(why)),
    }
}

fn parse_term(eq: &str, t: &str) -> Result<Term, OpError> {
    let mut out = Vec::new();
    let mut rest = t;
    while let Some(c) = rest.chars().next() {
        if rest.starts_with("...") {
            if out.contains(&None) {
                return Err(bad_equation(
                    eq,
                    EquationProblem::TwoEllipses(t.to_string()),
                ));
            }
            out.push(None);
            rest = &rest[3..];
        } else if c.is_ascii_alphabetic() {
            out.push(Some(c));
            rest = &rest[1..];
        } else {
            return Err(bad_equation(
                eq,
                EquationProblem::UnexpectedCharacter {
                    found: c,
                    term: t.to_string(),
                },
            ));
        }
    }
    Ok(out)
}

fn einsum(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let eq_attr =
        attr_str(node, "equation")?.ok_or(OpError::MissingAttribute { name: "equation" })?;
    Ok(vec![einsum_fact(ctx, node, eq_attr)?])
}

/// OpenVINO Einsum-7: the ONNX kernel.
fn openvino_einsum(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let eq_attr = crate::ops::common::attrs::ov_str(node, "equation")?
        .ok_or(OpError::MissingAttribute { name: "equation" })?;
    Ok(vec![einsum_fact(ctx, node, eq_attr)?])
}

/// The output of an Einsum of equation `eq_attr` over every input of `node`: the
/// labels' dims (repeated labels broadcast, as do the ellipsis dims) in the
/// output term's order; in implicit mode the ellipsis, then the labels that appear
/// once, alphabetically. The type is input 0's.
pub fn einsum_fact(
    ctx: &mut ShapesContext,
    node: &Node,
    eq_attr: &str,
) -> Result<TensorFact, OpError> {
    let eq: String = eq_attr.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (eq.as_str(), None),
    };
    let terms: Vec<Term> = lhs
        .split(',')
        .map(|t| parse_term(eq_attr, t))
        .collect::<Result<_, _>>()?;
    let n_inputs = node.input_count();
    if terms.len() != n_inputs || n_inputs == 0 {
        return Err(OpError::InputCount {
            expected: Expected::Exactly(terms.len()).noted("one per term of the equation"),
            found: n_inputs,
        });
    }
    let mut facts = Vec::with_capacity(n_inputs);
    for i in 0..n_inputs {
        facts.push(ctx.input(node, i, "Inputs")?);
    }
    let dtype = facts[0].dtype;
    let mut labels: BTreeMap<char, (Option<Dim>, usize)> = BTreeMap::new();
    let mut ellipsis: Vec<Dim> = Vec::new();
    let mut any_ellipsis = false;
    let mut all_known = true;
    for (i, (term, f)) in terms.iter().zip(&facts).enumerate() {
        let n_labels = term.iter().filter(|l| l.is_some()).count();
        let has_ell = term.len() != n_labels;
        any_ellipsis |= has_ell;
        let Some(shape) = &f.shape else {
            all_known = false;
            for c in term.iter().flatten() {
                labels.entry(*c).or_insert((None, 0)).1 += 1;
            }
            continue;
        };
        if (has_ell && shape.len() < n_labels) || (!has_ell && shape.len() != n_labels) {
            return Err(crate::ops::common::dims::rank_of(
                Subject::EinsumTerm {
                    input: i,
                    term: render_term(term),
                },
                if has_ell {
                    Expected::AtLeast(n_labels)
                } else {
                    Expected::Exactly(n_labels)
                },
                shape.len(),
            ));
        }
        let ell_rank = shape.len() - n_labels;
        let mut axis = 0;
        for l in term {
            match l {
                None => {
                    let dims = &shape[axis..axis + ell_rank];
                    ellipsis = broadcast_shapes(ctx, &node.name, &ellipsis, dims)?;
                    axis += ell_rank;
                }
                Some(c) => {
                    let d = shape[axis];
                    axis += 1;
                    let (prev, n) = labels.get(c).copied().unwrap_or((None, 0));
                    let merged = match prev {
                        Some(p) => broadcast_dim(ctx, &node.name, axis - 1, p, d)?,
                        None => d,
                    };
                    labels.insert(*c, (Some(merged), n + 1));
                }
            }
        }
    }
    let out_term: Term = match rhs {
        Some(r) => {
            let t = parse_term(eq_attr, r)?;
            for (j, l) in t.iter().enumerate() {
                if let Some(c) = l {
                    if !labels.contains_key(c) {
                        return Err(bad_equation(eq_attr, EquationProblem::UnknownLabel(*c)));
                    }
                    if t[..j].contains(l) {
                        return Err(bad_equation(eq_attr, EquationProblem::RepeatedLabel(*c)));
                    }
                }
            }
            t
        }
        None => {
            let mut t: Term = Vec::new();
            if any_ellipsis {
                t.push(None);
            }
            t.extend(
                labels
                    .iter()
                    .filter(|(_, v)| v.1 == 1)
                    .map(|(c, _)| Some(*c)),
            );
            t
        }
    };
    if !all_known {
        return Ok(TensorFact::unknown(dtype));
    }
    let mut out = Vec::new();
    for l in &out_term {
        match l {
            None => out.extend_from_slice(&ellipsis),
            Some(c) => match labels[c].0 {
                Some(d) => out.push(d),
                None => return Ok(TensorFact::unknown(dtype)),
            },
        }
    }
    Ok(TensorFact::new(dtype, out))
}

fn render_term(t: &Term) -> String {
    t.iter()
        .map(|l| match l {
            None => "...".to_string(),
            Some(c) => c.to_string(),
        })
        .collect()
}

/// OpenVINO MatMul: `transpose_a`, `transpose_b`.
fn openvino_matmul(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let a = ctx.input(node, 0, "A")?;
    let b = ctx.input(node, 1, "B")?;
    let (Some(x), Some(y)) = (&a.shape, &b.shape) else {
        return Ok(vec![TensorFact::unknown(a.dtype)]);
    };
    let ta = ov_bool(node, "transpose_a", false)?;
    let tb = ov_bool(node, "transpose_b", false)?;
    let out = matmul_shape(ctx, node, x, y, ta, tb, Equate::Record)?;
    Ok(vec![TensorFact::new(a.dtype, out)])
}

/// oneDNN MatMul: transposes; an optional bias must broadcast to the output.
fn onednn_matmul(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 3)?;
    let a = ctx.input(node, 0, "src")?;
    let b = ctx.input(node, 1, "weights")?;
    let dtype = dst_dtype(node, a.dtype)?;
    let (Some(x), Some(y)) = (&a.shape, &b.shape) else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    let ta = attr_int(node, "transpose_a", 0)? != 0;
    let tb = attr_int(node, "transpose_b", 0)? != 0;
    let out = matmul_shape(ctx, node, x, y, ta, tb, Equate::Record)?;
    if let Some(bs) = ctx.optional_input(node, 2)?.and_then(|f| f.shape) {
        check_broadcasts_to(ctx, &node.name, &out, &bs, "bias (must broadcast to dst)")?;
    }
    Ok(vec![TensorFact::new(dtype, out)])
}

/// ONNX `Det` (11, 22): `[*, M, M]` gives `[*]`.
fn det(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "X")?;
    let Some(xs) = &x.shape else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let [batch @ .., m, n] = xs.as_slice() else {
        return Err(crate::ops::common::dims::rank_of(
            "X",
            Expected::AtLeast(2),
            xs.len(),
        ));
    };
    unify_as(ctx, node, DimRole::of("rows and columns", "X"), *m, *n)?;
    Ok(vec![TensorFact::new(x.dtype, batch.to_vec())])
}
