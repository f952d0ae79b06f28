//! Sequences and optionals: ONNX `SequenceEmpty`, `SequenceConstruct`,
//! `SequenceInsert`, `SequenceErase`, `SequenceAt`, `SequenceLength`,
//! `SplitToSequence`, `ConcatFromSequence`, `SequenceMap`, `Optional`,
//! `OptionalHasElement` and `OptionalGetElement`.
//!
//! Spec: the ONNX operator reference (each op's page).
//!
//! A sequence (`seq(tensor(T))`) or an optional has no tensor shape: its
//! [`TensorFact`] is the element type with an unknown rank, and the context keeps
//! a [`SequenceFact`] (or an [`OptionalFact`]) beside it (see
//! [`ShapesContext::sequence`]). A sequence knows what all its elements share (the
//! dims on which they may differ are fresh data-dependent dims, [`common`]), its
//! length when known (symbolic too), and each element when the length is a
//! constant up to [`MAX_ELEMENTS`]. A sequence the context does not know as one (a
//! graph input) reads as a sequence of unknown length whose elements have its
//! element type; the control-flow rules pass sequence and optional facts into and
//! out of subgraphs (`control.rs`).
//!
//! * `SequenceEmpty`: no element, of `dtype` (float by default).
//! * `SequenceConstruct`: its inputs (of one type).
//! * `SequenceInsert`, `SequenceErase`: the `position` input (a scalar; default:
//!   the end for an insert, the last element for an erase) in `[-n, n]` (insert)
//!   or `[-n, n - 1]` (erase); one more or one less element. The elements stay
//!   known one by one when the position is a constant.
//! * `SequenceAt`: the element at `position` (in `[-n, n - 1]`), or what all
//!   elements share when the position or the elements are not known.
//! * `SequenceLength`: an int64 scalar holding the length (its contents when
//!   known, so `SplitToSequence -> SequenceLength` of an axis `S` is `S`).
//! * `SplitToSequence`: without `split`, one element per index of `axis` (that
//!   dim dropped with `keepdims = 0`); a scalar `split` `s` cuts chunks of `s` and a
//!   smaller last one (`ceildiv(d, s)` elements); a 1-D `split` gives one element
//!   per entry, which must add up to the axis ([`split_sizes`]).
//! * `ConcatFromSequence`: the elements concatenated along `axis` (the sum of
//!   their dims there, which must agree elsewhere), or stacked on a new axis with
//!   `new_axis = 1` (`axis` in `[-r - 1, r]`). With only the shared facts known:
//!   `len * d` on the axis when the elements share `d`, `len` on a new axis.
//! * `SequenceMap`: the body runs on the elements (once per element when they are
//!   known one by one, else once on the shared facts); each body output becomes a
//!   sequence of the first input's length.
//! * `Optional`: holds its input when given, else nothing (its `type` attribute is
//!   not read). `OptionalHasElement` is a bool scalar, its value known when the
//!   optional's presence is (18: true for a plain tensor or sequence, false for an
//!   absent input). `OptionalGetElement` gives the held tensor or sequence (18: a
//!   plain tensor or sequence passes through); an empty optional is an error.
//!
//! # Version history
//! * ONNX **SequenceEmpty**, **SequenceConstruct**, **SequenceInsert**,
//!   **SequenceErase**, **SequenceAt**, **SequenceLength**, **ConcatFromSequence**:
//!   11.
//! * ONNX **SplitToSequence**: 11; 24 (types).
//! * ONNX **SequenceMap**: 17.
//! * ONNX **Optional**: 15; 28 (types).
//! * ONNX **OptionalHasElement**: 15; 18 (the input may be a tensor or a sequence,
//!   or absent); 28 (types).
//! * ONNX **OptionalGetElement**: 15; 18 (the input may be a tensor or a
//!   sequence); 28 (types).

use crate::algebra::{Dim, DimExpr, SymbolKind, Truth};
use crate::context::ShapeValueProblem;
use crate::context::{
    Allowed, Expected, OpError, OptionalElement, OptionalFact, SequenceFact, ShapesContext,
    TensorFact, TypeConflict,
};
use crate::graph::{Attr, DType, Node};
use crate::ops::common::attrs::attr_int;
use crate::ops::common::dims::rank_of;
use crate::ops::common::{check_inputs, norm_axis};
use crate::ops::tensor::concat::{concat_dims, concat_values};
use crate::ops::tensor::split::{split_sizes, split_values};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["SequenceEmpty"], sequence_empty),
    ("", ["SequenceConstruct"], sequence_construct),
    ("", ["SequenceInsert"], sequence_insert),
    ("", ["SequenceErase"], sequence_erase),
    ("", ["SequenceAt"], sequence_at),
    ("", ["SequenceLength"], sequence_length),
    ("", ["SplitToSequence"], split_to_sequence),
    ("", ["ConcatFromSequence"], concat_from_sequence),
    ("", ["SequenceMap"], sequence_map),
    ("", ["Optional"], optional),
    ("", ["OptionalHasElement"], optional_has_element),
    ("", ["OptionalGetElement"], optional_get_element),
];

/// A sequence keeps its elements one by one up to this length.
pub const MAX_ELEMENTS: usize = 64;

/// What the elements of a sequence share: the type of the first typed one, and,
/// when all have one known rank, per axis the dim they provably share or a fresh
/// data-dependent dim of `node`'s output `out`. Contents are kept when all are
/// provably equal.
pub fn common(
    ctx: &mut ShapesContext,
    node: &Node,
    out: usize,
    elems: &[TensorFact],
) -> TensorFact {
    let dtype = elems
        .iter()
        .map(|e| e.dtype)
        .find(|t| *t != DType::Undefined)
        .unwrap_or(DType::Undefined);
    let Some(first) = elems.first() else {
        return TensorFact::unknown(dtype);
    };
    let shape = match first.shape.clone() {
        Some(s0) if elems.iter().all(|e| e.rank() == Some(s0.len())) => {
            let mut dims = Vec::with_capacity(s0.len());
            for (axis, &d) in s0.iter().enumerate() {
                let same = elems.iter().all(|e| {
                    e.shape
                        .as_ref()
                        .is_some_and(|s| ctx.alg.equal(s[axis], d) == Truth::True)
                });
                dims.push(if same {
                    d
                } else {
                    ctx.unknown_dim(node, out, axis)
                });
            }
            Some(dims)
        }
        _ => None,
    };
    let value = first.value.clone().filter(|v| {
        shape.is_some()
            && elems.iter().all(|e| {
                e.value.as_ref().is_some_and(|w| {
                    w.len() == v.len()
                        && w.iter()
                            .zip(v)
                            .all(|(a, b)| ctx.alg.equal(*a, *b) == Truth::True)
                })
            })
    });
    TensorFact {
        fill: None,
        dtype,
        shape,
        value,
    }
}

/// The facts of input `index` as a sequence: what the context knows of it, else
/// a sequence of unknown length whose elements have its type.
pub fn sequence_input(
    ctx: &ShapesContext,
    node: &Node,
    index: usize,
    what: &'static str,
) -> Result<SequenceFact, OpError> {
    let f = ctx.input(node, index, what)?;
    Ok(node
        .input(index)
        .and_then(|name| ctx.sequence(name))
        .cloned()
        .unwrap_or_else(|| SequenceFact::unknown(f.dtype)))
}

/// Record `seq` as output `out` of `node` and return that output's tensor fact.
fn emit(ctx: &mut ShapesContext, node: &Node, out: usize, seq: SequenceFact) -> TensorFact {
    let fact = TensorFact::unknown(seq.elem.dtype);
    if let Some(name) = node.outputs.get(out).filter(|n| !n.is_empty()) {
        ctx.set_sequence(name, seq);
    }
    fact
}

/// A sequence of the known elements `elems` (their common facts computed for
/// output `out`).
fn known(ctx: &mut ShapesContext, node: &Node, out: usize, elems: Vec<TensorFact>) -> SequenceFact {
    let elem = common(ctx, node, out, &elems);
    let len = ctx.alg.constant(elems.len() as i64);
    SequenceFact {
        elem,
        len: Some(len),
        elems: (elems.len() <= MAX_ELEMENTS).then_some(elems),
    }
}

/// The value of a scalar (or one-element) position input, when constant; an
/// error when it is not an integer scalar.
fn position(ctx: &ShapesContext, node: &Node, index: usize) -> Result<Option<i64>, OpError> {
    let Some(p) = ctx.optional_input(node, index)? else {
        return Ok(None);
    };
    if !matches!(p.dtype, DType::Int32 | DType::Int64 | DType::Undefined) {
        return Err(OpError::UnsupportedType {
            dtype: p.dtype,
            what: "position",
            allowed: Allowed::OnnxTypes(vec![DType::Int32, DType::Int64]),
        });
    }
    if let Some(s) = &p.shape {
        let one = s.len() == 1 && ctx.alg.as_i64(s[0]).map_or(true, |d| d == 1);
        if !s.is_empty() && !one {
            return Err(rank_of(
                "position",
                Expected::Exactly(0).noted("a scalar"),
                s.len(),
            ));
        }
    }
    Ok(crate::ops::common::values::scalar_int(&ctx.alg, &p))
}

/// A position in `[-n, n + extra)` normalised to `[0, n + extra)`, or an error.
fn place(pos: i64, n: usize, extra: usize) -> Result<usize, OpError> {
    let n = n as i64;
    let hi = n + extra as i64;
    if pos < -n || pos >= hi {
        return Err(OpError::BadShapeValue(Box::new(
            ShapeValueProblem::PositionOutside {
                position: pos,
                lo: -n,
                hi: hi - 1,
                len: n,
            },
        )));
    }
    Ok(if pos < 0 {
        (pos + n) as usize
    } else {
        pos as usize
    })
}

/// Check a tensor's type against a sequence's element type.
fn same_type(seq: &SequenceFact, t: &TensorFact) -> Result<(), OpError> {
    let (a, b) = (seq.elem.dtype, t.dtype);
    if a != DType::Undefined && b != DType::Undefined && a != b {
        return Err(OpError::TypeMismatch {
            conflict: TypeConflict::SequenceElement {
                sequence: a,
                tensor: b,
            },
        });
    }
    Ok(())
}

/// ONNX `SequenceEmpty` (11).
fn sequence_empty(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 0, 0)?;
    let dtype = crate::ops::common::attrs::attr_dtype(node, "dtype", DType::Float)?;
    let seq = known(ctx, node, 0, Vec::new());
    let seq = SequenceFact {
        elem: TensorFact::unknown(dtype),
        ..seq
    };
    Ok(vec![emit(ctx, node, 0, seq)])
}

/// ONNX `SequenceConstruct` (11).
fn sequence_construct(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let n = node.input_count();
    if n == 0 {
        return Err(OpError::InputCount {
            expected: Expected::OrMore(1),
            found: 0,
        });
    }
    let elems: Vec<TensorFact> = (0..n)
        .map(|i| ctx.input(node, i, "inputs"))
        .collect::<Result<_, _>>()?;
    crate::ops::tensor::concat::concat_dtype(&elems)?;
    let seq = known(ctx, node, 0, elems);
    Ok(vec![emit(ctx, node, 0, seq)])
}

/// `len + delta` for a known length.
fn len_plus(ctx: &mut ShapesContext, len: Option<Dim>, delta: i64) -> Option<Dim> {
    len.map(|l| {
        let d = ctx.alg.constant(delta);
        ctx.alg.add_dims(l, d)
    })
}

/// ONNX `SequenceInsert` (11).
fn sequence_insert(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 3)?;
    let seq = sequence_input(ctx, node, 0, "input_sequence")?;
    let t = ctx.input(node, 1, "tensor")?;
    same_type(&seq, &t)?;
    let pos = position(ctx, node, 2)?;
    let at_end = node.input(2).is_none();
    let out = match &seq.elems {
        Some(elems) if at_end || pos.is_some() => {
            let at = match pos {
                Some(p) => place(p, elems.len(), 1)?,
                None => elems.len(),
            };
            let mut elems = elems.clone();
            elems.insert(at, t);
            known(ctx, node, 0, elems)
        }
        _ => {
            let empty = seq.len.is_some_and(|l| ctx.alg.as_i64(l) == Some(0));
            let elem = if empty {
                t
            } else {
                common(ctx, node, 0, &[seq.elem.clone(), t])
            };
            let len = len_plus(ctx, seq.len, 1);
            SequenceFact::uniform(elem, len)
        }
    };
    Ok(vec![emit(ctx, node, 0, out)])
}

/// ONNX `SequenceErase` (11).
fn sequence_erase(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 2)?;
    let seq = sequence_input(ctx, node, 0, "input_sequence")?;
    let pos = position(ctx, node, 1)?;
    let at_end = node.input(1).is_none();
    if seq.len.is_some_and(|l| ctx.alg.as_i64(l) == Some(0)) {
        return Err(OpError::BadShapeValue(Box::new(ShapeValueProblem::Fixed(
            "the sequence is empty: there is nothing to erase",
        ))));
    }
    let out = match &seq.elems {
        Some(elems) if at_end || pos.is_some() => {
            let at = place(pos.unwrap_or(-1), elems.len(), 0)?;
            let mut elems = elems.clone();
            elems.remove(at);
            let mut s = known(ctx, node, 0, elems);
            if s.elems.as_ref().is_some_and(Vec::is_empty) {
                s.elem = TensorFact::unknown(seq.elem.dtype);
            }
            s
        }
        _ => {
            let len = len_plus(ctx, seq.len, -1);
            SequenceFact::uniform(seq.elem.clone(), len)
        }
    };
    Ok(vec![emit(ctx, node, 0, out)])
}

/// ONNX `SequenceAt` (11).
fn sequence_at(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let seq = sequence_input(ctx, node, 0, "input_sequence")?;
    let pos = position(ctx, node, 1)?;
    if let (Some(elems), Some(p)) = (&seq.elems, pos) {
        let at = place(p, elems.len(), 0)?;
        return Ok(vec![elems[at].clone()]);
    }
    if seq.len.is_some_and(|l| ctx.alg.as_i64(l) == Some(0)) {
        return Err(OpError::BadShapeValue(Box::new(ShapeValueProblem::Fixed(
            "the sequence is empty: there is no element to read",
        ))));
    }
    Ok(vec![seq.elem])
}

/// ONNX `SequenceLength` (11): an int64 scalar, its value the length when known.
fn sequence_length(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let seq = sequence_input(ctx, node, 0, "input_sequence")?;
    Ok(vec![TensorFact {
        fill: None,
        dtype: DType::Int64,
        shape: Some(Vec::new()),
        value: seq.len.map(|l| vec![l]),
    }])
}

/// The facts of the chunks of `x` (shape `dims`) along `axis` of the sizes
/// `parts`, keeping the axis with size `parts[i]` (or dropping it, `keep` false,
/// for parts of size 1).
fn chunks(
    ctx: &ShapesContext,
    x: &TensorFact,
    dims: &[Dim],
    axis: usize,
    parts: &[Dim],
    keep: bool,
) -> Vec<TensorFact> {
    let values = split_values(ctx, x, axis, parts);
    parts
        .iter()
        .zip(values)
        .map(|(p, value)| {
            let mut d = dims.to_vec();
            if keep {
                d[axis] = *p;
            } else {
                d.remove(axis);
            }
            TensorFact {
                fill: None,
                dtype: x.dtype,
                shape: Some(d),
                value,
            }
        })
        .collect()
}

/// ONNX `SplitToSequence` (11, 24).
fn split_to_sequence(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 2)?;
    let x = ctx.input(node, 0, "input")?;
    let keepdims = attr_int(node, "keepdims", 1)? != 0;
    let split = ctx.optional_input(node, 1)?;
    let Some(dims) = x.shape.clone() else {
        let len = match &split {
            Some(s) if s.rank() == Some(1) => {
                s.static_len(&ctx.alg).map(|n| ctx.alg.constant(n as i64))
            }
            _ => None,
        };
        let out = SequenceFact::uniform(TensorFact::unknown(x.dtype), len);
        return Ok(vec![emit(ctx, node, 0, out)]);
    };
    if dims.is_empty() {
        return Err(rank_of("input", Expected::AtLeast(1), 0));
    }
    let axis = norm_axis(attr_int(node, "axis", 0)?, dims.len())?;
    let d = dims[axis];
    let out = match split {
        // one element per index of the axis
        None => {
            let one = ctx.alg.constant(1);
            match ctx.alg.as_i64(d).and_then(|n| usize::try_from(n).ok()) {
                Some(n) if n <= MAX_ELEMENTS => {
                    let parts = vec![one; n];
                    let elems = chunks(ctx, &x, &dims, axis, &parts, keepdims);
                    known(ctx, node, 0, elems)
                }
                _ => {
                    let elem = chunks(ctx, &x, &dims, axis, &[one], keepdims).remove(0);
                    SequenceFact::uniform(
                        TensorFact {
                            value: None,
                            fill: None,
                            ..elem
                        },
                        Some(d),
                    )
                }
            }
        }
        Some(s) => match s.shape.as_deref() {
            // chunks of a scalar size and a smaller last one
            Some([]) => {
                let size = match s.value.as_deref() {
                    Some([v]) => Some(*v),
                    _ => None,
                };
                if let Some(sz) = size.and_then(|v| ctx.alg.as_i64(v)) {
                    if sz <= 0 {
                        return Err(OpError::BadShapeValue(Box::new(
                            ShapeValueProblem::NotPositive {
                                what: "split",
                                value: DimExpr::constant(sz),
                            },
                        )));
                    }
                }
                match size {
                    Some(sz) => split_scalar(ctx, node, &x, &dims, axis, sz),
                    None => {
                        let mut elem = dims.clone();
                        elem[axis] = ctx.unknown_dim(node, 0, axis);
                        let len = ctx.unknown_dim(node, 0, usize::MAX);
                        SequenceFact::uniform(TensorFact::new(x.dtype, elem), Some(len))
                    }
                }
            }
            // one element per entry
            Some([_]) => match (s.value.clone(), s.static_len(&ctx.alg)) {
                (Some(sizes), _) => {
                    let parts = split_sizes(ctx, node, (axis, d), &sizes, false)?;
                    let elems = chunks(ctx, &x, &dims, axis, &parts, true);
                    known(ctx, node, 0, elems)
                }
                (None, Some(n)) => {
                    let mut elem = dims.clone();
                    elem[axis] = ctx.unknown_dim(node, 0, axis);
                    let len = ctx.alg.constant(n as i64);
                    SequenceFact::uniform(TensorFact::new(x.dtype, elem), Some(len))
                }
                (None, None) => {
                    let mut elem = dims.clone();
                    elem[axis] = ctx.unknown_dim(node, 0, axis);
                    SequenceFact::uniform(TensorFact::new(x.dtype, elem), None)
                }
            },
            Some(other) => return Err(rank_of("split", Expected::either(&[0, 1]), other.len())),
            None => {
                let mut elem = dims.clone();
                elem[axis] = ctx.unknown_dim(node, 0, axis);
                SequenceFact::uniform(TensorFact::new(x.dtype, elem), None)
            }
        },
    };
    Ok(vec![emit(ctx, node, 0, out)])
}

/// SplitToSequence with a scalar `split` of `size`: `ceildiv(d, size)` chunks of
/// `size`, the last one `d - size * (count - 1)`.
fn split_scalar(
    ctx: &mut ShapesContext,
    node: &Node,
    x: &TensorFact,
    dims: &[Dim],
    axis: usize,
    size: Dim,
) -> SequenceFact {
    let d = dims[axis];
    let count = ctx.alg.ceildiv(d, size);
    if let Some(n) = ctx.alg.as_i64(count).and_then(|n| usize::try_from(n).ok()) {
        if n <= MAX_ELEMENTS {
            let mut parts = vec![size; n];
            if n > 0 {
                let one = ctx.alg.constant(1);
                let before = ctx.alg.sub(count, one);
                let taken = ctx.alg.mul(size, before);
                parts[n - 1] = ctx.alg.sub(d, taken);
            }
            let elems = chunks(ctx, x, dims, axis, &parts, true);
            return known(ctx, node, 0, elems);
        }
    }
    let mut elem = dims.to_vec();
    elem[axis] = if ctx.alg.divides(size, d) == Truth::True {
        size
    } else {
        ctx.unknown_dim(node, 0, axis)
    };
    SequenceFact::uniform(TensorFact::new(x.dtype, elem), Some(count))
}

/// True when `d` is a data-dependent symbol (a dim on which a sequence's elements
/// may differ, see [`common`]).
fn data_dependent(ctx: &ShapesContext, d: Dim) -> bool {
    ctx.alg
        .as_symbol(d)
        .and_then(|s| ctx.alg.symbol_entry(s))
        .is_some_and(|e| matches!(e.kind, SymbolKind::DataDependent { .. }))
}

/// ONNX `ConcatFromSequence` (11).
fn concat_from_sequence(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let seq = sequence_input(ctx, node, 0, "input_sequence")?;
    let axis = match node.attr("axis") {
        Some(Attr::Int(a)) => *a,
        Some(_) => crate::ops::common::attrs::attr_int_required(node, "axis")?,
        None => return Err(OpError::MissingAttribute { name: "axis" }),
    };
    let stack = attr_int(node, "new_axis", 0)? != 0;
    let dtype = seq.elem.dtype;
    // the elements one by one
    if let Some(elems) = seq.elems.as_ref().filter(|e| !e.is_empty()) {
        let Some((rank, _)) = crate::ops::tensor::concat::concat_rank(ctx, elems)? else {
            return Ok(vec![TensorFact::unknown(dtype)]);
        };
        let out_rank = rank + usize::from(stack);
        if out_rank == 0 {
            return Err(rank_of("the elements", Expected::AtLeast(1), 0));
        }
        let axis = norm_axis(axis, out_rank)?;
        let one = ctx.alg.constant(1);
        // stacking is concatenating the elements with a 1 inserted on the axis
        let parts: Vec<TensorFact> = elems
            .iter()
            .map(|e| {
                let mut e = e.clone();
                if stack {
                    if let Some(s) = &mut e.shape {
                        s.insert(axis, one);
                    }
                }
                e
            })
            .collect();
        let out = concat_dims(ctx, node, &parts, axis, out_rank, &mut |_, _| {})?;
        let value = if out_rank == 1 {
            concat_values(&ctx.alg, &parts, axis)
        } else {
            None
        };
        return Ok(vec![TensorFact {
            fill: None,
            dtype,
            shape: Some(out),
            value,
        }]);
    }
    // only what the elements share
    let Some(shape) = seq.elem.shape.clone() else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    let out_rank = shape.len() + usize::from(stack);
    if out_rank == 0 {
        return Err(rank_of("the elements", Expected::AtLeast(1), 0));
    }
    let axis = norm_axis(axis, out_rank)?;
    let mut out = shape;
    let len = seq.len;
    if stack {
        let n = len.unwrap_or_else(|| ctx.unknown_dim(node, 0, axis));
        out.insert(axis, n);
    } else {
        out[axis] = match len {
            Some(l) if !data_dependent(ctx, out[axis]) => ctx.alg.mul(l, out[axis]),
            _ => ctx.unknown_dim(node, 0, axis),
        };
    }
    Ok(vec![TensorFact::new(dtype, out)])
}

/// ONNX `SequenceMap` (17).
fn sequence_map(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let n = node.input_count();
    if n == 0 {
        return Err(OpError::InputCount {
            expected: Expected::OrMore(1),
            found: 0,
        });
    }
    let body = match node.attr("body") {
        Some(Attr::Graph(g)) => g.as_ref().clone(),
        Some(other) => {
            return Err(crate::ops::common::attrs::bad_kind(
                "body", other, "a graph",
            ))
        }
        None => return Err(OpError::MissingAttribute { name: "body" }),
    };
    let first = sequence_input(ctx, node, 0, "input_sequence")?;
    // each input: a sequence (elements) or a tensor (the same for every sample)
    let mut inputs: Vec<Result<SequenceFact, TensorFact>> = Vec::with_capacity(n);
    inputs.push(Ok(first.clone()));
    for i in 1..n {
        let f = ctx.input(node, i, "additional_inputs")?;
        inputs.push(match node.input(i).and_then(|name| ctx.sequence(name)) {
            Some(s) => Ok(s.clone()),
            None => Err(f),
        });
    }
    let sample = |k: Option<usize>| -> Vec<TensorFact> {
        inputs
            .iter()
            .map(|x| match x {
                Ok(s) => k.map_or(s.elem.clone(), |k| s.element(k).clone()),
                Err(t) => t.clone(),
            })
            .collect()
    };
    let count = first.elems.as_ref().map(Vec::len);
    let per_sample: Vec<Vec<TensorFact>> = match count {
        Some(c) => (0..c)
            .map(|k| run_body(ctx, &body, &sample(Some(k))))
            .collect::<Result<_, _>>()?,
        None => vec![run_body(ctx, &body, &sample(None))?],
    };
    let mut outs = Vec::with_capacity(node.outputs.len());
    for o in 0..node.outputs.len() {
        let seq = match count {
            Some(_) => {
                let elems: Vec<TensorFact> = per_sample
                    .iter()
                    .map(|s| {
                        s.get(o)
                            .cloned()
                            .unwrap_or_else(|| TensorFact::unknown(DType::Undefined))
                    })
                    .collect();
                known(ctx, node, o, elems)
            }
            None => {
                let elem = per_sample[0]
                    .get(o)
                    .cloned()
                    .unwrap_or_else(|| TensorFact::unknown(DType::Undefined));
                SequenceFact::uniform(elem, first.len)
            }
        };
        outs.push(emit(ctx, node, o, seq));
    }
    Ok(outs)
}

fn run_body(
    ctx: &mut ShapesContext,
    body: &crate::graph::Graph,
    inputs: &[TensorFact],
) -> Result<Vec<TensorFact>, OpError> {
    ctx.run_subgraph(body, inputs)
        .map_err(|source| OpError::Subgraph {
            name: "body",
            graph: body.name.clone(),
            source,
        })
}

/// What input `index` holds when it is an optional, a sequence or a tensor (18+).
fn held(ctx: &ShapesContext, node: &Node, index: usize) -> Result<Option<OptionalFact>, OpError> {
    let (Some(f), Some(name)) = (ctx.optional_input(node, index)?, node.input(index)) else {
        return Ok(None);
    };
    if let Some(o) = ctx.optional(name) {
        return Ok(Some(o.clone()));
    }
    // a sequence, a tensor of known rank: a present value; anything else may be an
    // optional the context does not know
    let (elem, present) = match ctx.sequence(name) {
        Some(s) => (OptionalElement::Sequence(s.clone()), Some(true)),
        None => {
            let ranked = f.shape.is_some();
            (OptionalElement::Tensor(f), ranked.then_some(true))
        }
    };
    Ok(Some(OptionalFact { elem, present }))
}

/// ONNX `Optional` (15, 28).
fn optional(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 0, 1)?;
    let opt = match ctx.optional_input(node, 0)? {
        Some(f) => {
            let elem = match node.input(0).and_then(|name| ctx.sequence(name)) {
                Some(s) => OptionalElement::Sequence(s.clone()),
                None => OptionalElement::Tensor(f),
            };
            OptionalFact {
                elem,
                present: Some(true),
            }
        }
        None => OptionalFact {
            elem: OptionalElement::Tensor(TensorFact::unknown(DType::Undefined)),
            present: Some(false),
        },
    };
    let dtype = match &opt.elem {
        OptionalElement::Tensor(t) => t.dtype,
        OptionalElement::Sequence(s) => s.elem.dtype,
    };
    if let Some(name) = node.outputs.first().filter(|n| !n.is_empty()) {
        ctx.set_optional(name, opt);
    }
    Ok(vec![TensorFact::unknown(dtype)])
}

/// ONNX `OptionalHasElement` (15, 18, 28): a bool scalar.
fn optional_has_element(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, if node.version >= 18 { 0 } else { 1 }, 1)?;
    let present = match held(ctx, node, 0)? {
        None => Some(false),
        Some(o) => o.present,
    };
    Ok(vec![TensorFact {
        fill: None,
        dtype: DType::Bool,
        shape: Some(Vec::new()),
        value: present.map(|p| vec![ctx.alg.constant(i64::from(p))]),
    }])
}

/// ONNX `OptionalGetElement` (15, 18, 28).
fn optional_get_element(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let Some(opt) = held(ctx, node, 0)? else {
        return Err(OpError::MissingInput {
            index: 0,
            what: "input",
        });
    };
    if opt.present == Some(false) {
        return Err(OpError::BadShapeValue(Box::new(ShapeValueProblem::Fixed(
            "the optional is empty: it has no element to get",
        ))));
    }
    Ok(vec![match opt.elem {
        OptionalElement::Tensor(t) => t,
        OptionalElement::Sequence(s) => emit(ctx, node, 0, s),
    }])
}
