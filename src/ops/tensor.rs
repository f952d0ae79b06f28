//! Tensor and shape-tensor ops: the shape rules and the shape-tensor evaluator
//! (symbolic *values* of the small integer tensors that flow along shape
//! subgraphs, such as `Shape -> Gather -> Unsqueeze -> Concat -> Reshape`).
//!
//! Spec: the ONNX operator reference (`docs/Operators.md` of onnx/onnx, opsets 1
//! to 25). Every op here keeps its output's contents in [`TensorFact::value`] when
//! they are known and the tensor has at most [`VALUE_FACT_LIMIT`] elements; values
//! are row-major, booleans are the dims `0` and `1`.
//!
//! Special values:
//! - Out-of-range constant indices (Gather) and non-permutations (Transpose) are
//!   typed errors; a dim that `Squeeze` removes must be 1: provably not 1 is an
//!   error, unknown is recorded as a relation the model needs (`d == 1`).
//! - Data-dependent dims (an `Expand`, `Tile`, `Slice`, `Range` or
//!   `ConstantOfShape` whose shape operand has no known value) become fresh
//!   `unk<n>` dims from [`ShapesContext::unknown_dim`].
//!
//! Version history of each op (what changed for shapes):
//! - **Constant**: 1 (`value`); 9 more types; 11 `sparse_value` (not read by the
//!   ONNX reader: reported as a missing value); 12 `value_int(s)`,
//!   `value_float(s)`, `value_string(s)`; 13, 19, 21, 23, 24, 25 new types only.
//! - **Range**: 11. Length `max(ceildiv(limit - start, delta), 0)`.
//! - **ConstantOfShape**: 9 (`value` attribute, default float 0); 20 more types;
//!   21, 23-25 types.
//! - **CumSum**: 11 (`axis` is a scalar input; `exclusive`, `reverse`); 14 types.
//! - **Where**: 9 (broadcast of the three inputs); 16 bf16.

use super::broadcast::broadcast_shapes;
use super::values::{
    broadcast_values, check_int_range, consts, dims_value, fact_with_value, numel,
    small_const_shape, small_value,
};
use super::{attr_int, check_inputs, norm_axis, RuleEntry};
use crate::algebra::{Dim, Truth};
use crate::context::{const_fact, float_rat};
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::VALUE_FACT_LIMIT;
use crate::graph::{Attr, ConstData, DType, Node};

/// The rules of this family.
pub const RULES: &[RuleEntry] = &[
    ("", "Constant", constant),
    ("", "Range", range),
    ("", "ConstantOfShape", constant_of_shape),
    ("", "CumSum", cumsum),
    ("", "Where", where_op),
];

fn unknown_dims(ctx: &mut ShapesContext, node: &Node, output: usize, n: usize) -> Vec<Dim> {
    (0..n)
        .map(|axis| ctx.unknown_dim(node, output, axis))
        .collect()
}

// ----- Constant -------------------------------------------------------

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
            let many: Vec<&str> = (0..KEYS.len())
                .filter(|i| given & (1 << i) != 0)
                .map(|i| KEYS[i])
                .collect();
            return Err(OpError::BadAttribute {
                name: "value",
                value: many.join(", "),
                why: "exactly one value attribute is allowed".to_string(),
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
                value: other.to_string(),
                why: format!("unexpected attribute kind {}", other.kind()),
            });
        }
    };
    Ok(vec![fact])
}

// ----- Range, ConstantOfShape, CumSum, Where ---------------------------------------

fn scalar_value(f: &TensorFact) -> Option<Dim> {
    match f.value.as_deref() {
        Some([v]) => Some(*v),
        _ => None,
    }
}

fn range(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let start = ctx.input(node, 0, "start")?;
    let limit = ctx.input(node, 1, "limit")?;
    let delta = ctx.input(node, 2, "delta")?;
    for (f, what) in [(&start, "start"), (&limit, "limit"), (&delta, "delta")] {
        if let Some(s) = &f.shape {
            let n = ctx.alg.constant(1);
            let p = ctx.alg.product(s);
            if s.len() > 1 || ctx.alg.equal(p, n) == Truth::False {
                return Err(OpError::Rank {
                    what: what.to_string(),
                    expected: "a scalar".to_string(),
                    found: s.len(),
                });
            }
        }
    }
    let dtype = start.dtype;
    let (Some(s), Some(l), Some(d)) = (
        scalar_value(&start),
        scalar_value(&limit),
        scalar_value(&delta),
    ) else {
        let n = ctx.unknown_dim(node, 0, 0);
        return Ok(vec![TensorFact::new(dtype, vec![n])]);
    };
    let zero = ctx.alg.constant(0);
    if ctx.alg.equal(d, zero) == Truth::True {
        return Err(OpError::BadShapeValue {
            what: "delta is 0".to_string(),
        });
    }
    let span = ctx.alg.sub(l, s);
    let q = ctx.alg.ceildiv(span, d);
    let n = ctx.alg.max(q, zero);
    let value: Option<Vec<Dim>> = match ctx.alg.as_i64(n) {
        Some(k) if (0..=VALUE_FACT_LIMIT as i64).contains(&k) => Some(
            (0..k)
                .map(|i| {
                    let c = ctx.alg.constant(i);
                    let step = ctx.alg.mul(c, d);
                    ctx.alg.add_dims(s, step)
                })
                .collect(),
        ),
        _ => None,
    };
    if let Some(v) = &value {
        check_int_range(&ctx.alg, dtype, v, &node.op_type)?;
    }
    Ok(vec![fact_with_value(dtype, vec![n], value)])
}

fn constant_of_shape(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 1, 1)?;
    let s = ctx.input(node, 0, "input")?;
    let (dtype, fill) = match node.attr("value") {
        None => (DType::Float, Some(ctx.alg.constant(0))),
        Some(Attr::Tensor(t)) => {
            if t.dims.iter().product::<i64>() != 1 {
                return Err(OpError::BadAttribute {
                    name: "value",
                    value: format!("<tensor {} {:?}>", t.dtype, t.dims),
                    why: "must hold exactly one element".to_string(),
                });
            }
            let f = const_fact(&mut ctx.alg, t);
            (t.dtype, f.value.and_then(|v| v.first().copied()))
        }
        Some(other) => {
            return Err(OpError::BadAttribute {
                name: "value",
                value: other.to_string(),
                why: "expected a one-element tensor".to_string(),
            })
        }
    };
    if let Some(sh) = &s.shape {
        if sh.len() != 1 {
            return Err(OpError::Rank {
                what: "input (the shape)".to_string(),
                expected: "1".to_string(),
                found: sh.len(),
            });
        }
    }
    let (value, len) = dims_value(&ctx.alg, &s);
    let out = match (value, len) {
        (Some(v), _) => {
            for d in &v {
                if ctx.alg.bounds(*d).is_negative() {
                    return Err(OpError::BadShapeValue {
                        what: format!("shape {} has a negative dim", ctx.render_dims(&v)),
                    });
                }
            }
            v
        }
        (None, Some(k)) => unknown_dims(ctx, node, 0, k),
        (None, None) => return Ok(vec![TensorFact::unknown(dtype)]),
    };
    let value = match (small_const_shape(&ctx.alg, &out), fill) {
        (Some(shape), Some(f)) => Some(vec![f; numel(&shape)]),
        _ => None,
    };
    Ok(vec![fact_with_value(dtype, out, value)])
}

fn cumsum(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let x = ctx.input(node, 0, "x")?;
    let axis = ctx.input(node, 1, "axis")?;
    let Some(dims) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    let axis = match scalar_value(&axis).and_then(|d| ctx.alg.as_i64(d)) {
        Some(a) => Some(norm_axis(a, dims.len())?),
        None => None,
    };
    let exclusive = attr_int(node, "exclusive", 0)? != 0;
    let reverse = attr_int(node, "reverse", 0)? != 0;
    let value = match (axis, small_value(&ctx.alg, &x)) {
        (Some(axis), Some((shape, v))) => {
            let inner: usize = shape[axis + 1..].iter().product();
            let n = shape[axis];
            let outer: usize = shape[..axis].iter().product();
            let mut out = v.clone();
            for o in 0..outer {
                for i in 0..inner {
                    let mut acc = ctx.alg.constant(0);
                    let order: Vec<usize> = if reverse {
                        (0..n).rev().collect()
                    } else {
                        (0..n).collect()
                    };
                    for k in order {
                        let at = (o * n + k) * inner + i;
                        let next = ctx.alg.add_dims(acc, v[at]);
                        out[at] = if exclusive { acc } else { next };
                        acc = next;
                    }
                }
            }
            Some(out)
        }
        _ => None,
    };
    if let Some(v) = &value {
        check_int_range(&ctx.alg, x.dtype, v, &node.op_type)?;
    }
    Ok(vec![fact_with_value(x.dtype, dims, value)])
}

fn where_op(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let c = ctx.input(node, 0, "condition")?;
    let x = ctx.input(node, 1, "X")?;
    let y = ctx.input(node, 2, "Y")?;
    if !matches!(c.dtype, DType::Bool | DType::Undefined) {
        return Err(OpError::UnsupportedType {
            dtype: c.dtype,
            what: "condition",
            allowed: "bool".to_string(),
        });
    }
    if x.dtype != y.dtype && x.dtype != DType::Undefined && y.dtype != DType::Undefined {
        return Err(OpError::TypeMismatch {
            what: format!("X is {}, Y is {}", x.dtype, y.dtype),
        });
    }
    let dtype = if x.dtype == DType::Undefined {
        y.dtype
    } else {
        x.dtype
    };
    let (Some(cs), Some(xs), Some(ys)) = (c.shape.clone(), x.shape.clone(), y.shape.clone()) else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    let xy = broadcast_shapes(ctx, &node.name, &xs, &ys)?;
    let out = broadcast_shapes(ctx, &node.name, &cs, &xy)?;
    let value = broadcast_values(&ctx.alg, &out, &[&c, &x, &y]).and_then(|v| {
        v[0].iter()
            .zip(&v[1])
            .zip(&v[2])
            .map(|((c, a), b)| ctx.alg.as_i64(*c).map(|cv| if cv != 0 { *a } else { *b }))
            .collect::<Option<Vec<Dim>>>()
    });
    Ok(vec![fact_with_value(dtype, out, value)])
}
