//! Declared shape rules (`--op-rules FILE`, [`crate::read::oprules`]) applied to a node.
//!
//! A declared rule's expressions are built in the context's algebra from their parsed
//! form: each reference (`in0[1]`, `rank(in0)`, `val1[0]`, `@k`, `@pads[0]`) becomes
//! the dim it names, and each operator the algebra's operation (`/` is the algebra's
//! exact division, `floordiv` its floor division, ...). Nothing is computed with raw
//! integers.
//!
//! - A `require` that the algebra proves false is an error; an equality it cannot
//!   decide is assumed, with a warning (as MatMul's inner dims are), and an
//!   inequality it cannot decide is recorded for the model's contract (kind `op
//!   rule`).
//! - A reference to an input of unknown rank leaves the output's rank unknown; an
//!   element of an input's contents that is not known (`val1[0]`) becomes a fresh
//!   dim of the data (`unk`).
//! - An exact division `/` the algebra cannot prove exact is the rational quotient,
//!   with the divisibility assumed and a warning.
//! - A reference to an absent input, an axis past an input's rank, a missing
//!   attribute (without a default) or one of the wrong kind is a typed
//!   [`RuleFailure`]: the driver reports it for the node and goes on.

use crate::algebra::{AlgebraError, Dim, DimExpr, Expr, OpKind, Rel, Truth};
use crate::context::DimRole;
use crate::context::{node_context, OpError, Severity, ShapesContext, TensorFact, MAX_RANK};
use crate::graph::{Attr, DType, Node};
use crate::read::oprules::{
    AttrValue, DTypeSpec, DeclaredRule, Item, Location, Ref, Requirement, RuleExpr, ShapeSpec,
};

/// Why a declared rule could not give a node's outputs, with the rule's line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("op rule at {at}: {failure}")]
pub struct RuleError {
    /// The line of the rule (its `require` or `output` line, or its `op` line).
    pub at: Location,
    /// What failed.
    pub failure: RuleFailure,
}

impl RuleError {
    /// True when the error proves the node invalid for every value of the symbols
    /// (an unmet requirement, an axis past a known rank, a proven algebra error).
    pub fn is_proven(&self) -> bool {
        match &self.failure {
            RuleFailure::Unmet { .. } | RuleFailure::RankTooSmall { .. } => true,
            RuleFailure::Op(e) => e.is_proven(),
            _ => false,
        }
    }
}

/// What failed when a declared rule was applied to a node.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RuleFailure {
    /// The node has more outputs than the rule declares.
    #[error("the rule declares {declared} outputs, the node has {found}")]
    OutputCount {
        /// Outputs the rule declares.
        declared: usize,
        /// Outputs the node has.
        found: usize,
    },
    /// A referenced input is absent.
    #[error("input {input} is referenced but the node has none")]
    MissingInput {
        /// The input.
        input: usize,
    },
    /// A referenced input names a tensor that is not known.
    #[error("input {input} names tensor `{name}`, which is not known")]
    UnknownTensor {
        /// The input.
        input: usize,
        /// The tensor.
        name: String,
    },
    /// An axis past the rank of an input.
    #[error("{reference}: input {input} has rank {rank}")]
    RankTooSmall {
        /// The reference as written (`in0[3]`).
        reference: String,
        /// The input.
        input: usize,
        /// Its rank.
        rank: usize,
    },
    /// An element past the end of an input's contents.
    #[error("{reference}: input {input} holds {len} elements")]
    ValueIndex {
        /// The reference as written.
        reference: String,
        /// The input.
        input: usize,
        /// Its number of elements.
        len: usize,
    },
    /// A referenced attribute is missing and has no default.
    #[error("attribute `{name}` is missing and the rule gives no default")]
    MissingAttribute {
        /// The attribute.
        name: String,
    },
    /// An attribute of the wrong kind (`@k` of a list, `@k[0]` of an int, a float).
    #[error("{reference}: attribute `{name}` is {found}, expected {expected}")]
    AttrKind {
        /// The reference as written.
        reference: String,
        /// The attribute.
        name: String,
        /// Its kind (`int`, `ints`, `float`, ...).
        found: &'static str,
        /// The kind the reference needs.
        expected: &'static str,
    },
    /// An element past the end of a list attribute.
    #[error("{reference}: attribute `{name}` has {len} elements")]
    AttrIndex {
        /// The reference as written.
        reference: String,
        /// The attribute.
        name: String,
        /// Its length.
        len: usize,
    },
    /// A `require` that does not hold, whatever the symbols.
    #[error("require {text} does not hold: {left} {rel} {right} is false")]
    Unmet {
        /// The condition as written.
        text: String,
        /// The left side, evaluated.
        left: DimExpr,
        /// The comparison.
        rel: Rel,
        /// The right side, evaluated.
        right: DimExpr,
    },
    /// An output of a rank above the limit.
    #[error("output {output} would have rank {rank}, above the rank limit of {MAX_RANK}")]
    RankLimit {
        /// The output.
        output: usize,
        /// The rank.
        rank: usize,
    },
    /// A `value=` list whose length is not the output's element count.
    #[error("output {output}: value= has {len} elements but the shape is {}", DimExpr::list(.shape))]
    ValueLength {
        /// The output.
        output: usize,
        /// The list's length.
        len: usize,
        /// The output's shape.
        shape: Vec<DimExpr>,
    },
    /// A failure of the dim algebra (a division by 0, a contradiction) or of an
    /// assumed equality.
    #[error("{0}")]
    Op(OpError),
}

impl From<AlgebraError> for RuleFailure {
    fn from(e: AlgebraError) -> RuleFailure {
        RuleFailure::Op(OpError::Algebra(e))
    }
}

/// Why an expression has no dim (not an error).
enum Missing {
    /// An input's rank is unknown: the output's rank is too.
    Rank,
    /// An input's contents are unknown: the dim is a fresh dim of the data.
    Value,
}

type Eval = Result<Result<Dim, Missing>, RuleFailure>;

/// Apply `rule` to `node`: one fact per output of the node.
pub fn apply(
    ctx: &mut ShapesContext,
    node: &Node,
    rule: &DeclaredRule,
) -> Result<Vec<TensorFact>, RuleError> {
    let at = |line: usize| Location {
        origin: rule.at.origin.clone(),
        line,
    };
    if node.outputs.len() > rule.outputs.len() {
        return Err(RuleError {
            at: rule.at.clone(),
            failure: RuleFailure::OutputCount {
                declared: rule.outputs.len(),
                found: node.outputs.len(),
            },
        });
    }
    for req in &rule.requires {
        require(ctx, node, rule, req, &at(req.line)).map_err(|failure| RuleError {
            at: at(req.line),
            failure,
        })?;
    }
    let mut facts = Vec::with_capacity(node.outputs.len());
    for (i, spec) in rule.outputs.iter().enumerate().take(node.outputs.len()) {
        let fact = output(ctx, node, rule, i, spec).map_err(|failure| RuleError {
            at: at(spec.line),
            failure,
        })?;
        facts.push(fact);
    }
    Ok(facts)
}

/// Check one `require` line.
fn require(
    ctx: &mut ShapesContext,
    node: &Node,
    rule: &DeclaredRule,
    req: &Requirement,
    at: &Location,
) -> Result<(), RuleFailure> {
    let Ok(l) = eval(ctx, node, rule, &req.lhs, req.line)? else {
        return Ok(());
    };
    let Ok(r) = eval(ctx, node, rule, &req.rhs, req.line)? else {
        return Ok(());
    };
    let unmet = |ctx: &ShapesContext| RuleFailure::Unmet {
        text: req.text.clone(),
        left: ctx.alg.expr(l),
        rel: req.rel,
        right: ctx.alg.expr(r),
    };
    match req.rel {
        Rel::Eq => {
            let dims = DimRole::Requirement {
                at: Box::new(at.clone()),
                text: req.text.clone(),
            };
            crate::ops::common::dims::unify_as(ctx, node, dims, l, r).map_err(|e| match e {
                OpError::DimMismatch { .. } => unmet(ctx),
                e => RuleFailure::Op(e),
            })?;
        }
        Rel::Ne => {
            if ctx.alg.equal(l, r) == Truth::True {
                return Err(unmet(ctx));
            }
        }
        Rel::Le | Rel::Ge | Rel::Lt | Rel::Gt => {
            // As `small <= big`; `a < b` is `a + 1 <= b` (dims are integers).
            let (mut small, big) = match req.rel {
                Rel::Le | Rel::Lt => (l, r),
                _ => (r, l),
            };
            if matches!(req.rel, Rel::Lt | Rel::Gt) {
                let one = ctx.alg.constant(1);
                small = ctx.alg.add_dims(small, one);
            }
            match ctx.alg.le(small, big) {
                Truth::True => {}
                Truth::False => return Err(unmet(ctx)),
                Truth::Unknown => ctx
                    .alg
                    .record_requirement(small, big, &node.name, "op rule"),
            }
        }
    }
    Ok(())
}

/// The fact of output `index`.
fn output(
    ctx: &mut ShapesContext,
    node: &Node,
    rule: &DeclaredRule,
    index: usize,
    spec: &crate::read::oprules::OutputSpec,
) -> Result<TensorFact, RuleFailure> {
    let dtype = match spec.dtype {
        DTypeSpec::Fixed(t) => t,
        DTypeSpec::SameAs(i) => {
            if i == 0 && node.input(0).is_none() {
                DType::Undefined
            } else {
                input_fact(ctx, node, i)?.dtype
            }
        }
    };
    let shape = match &spec.shape {
        ShapeSpec::SameAs(i) => input_fact(ctx, node, *i)?.shape,
        ShapeSpec::Dims(items) => items_dims(ctx, node, rule, index, items, false, spec.line)?,
    };
    if let Some(s) = &shape {
        if s.len() > MAX_RANK {
            return Err(RuleFailure::RankLimit {
                output: index,
                rank: s.len(),
            });
        }
    }
    let value = match (&spec.value, &shape) {
        (Some(items), Some(shape)) => {
            let v = items_dims(ctx, node, rule, index, items, true, spec.line)?;
            if let Some(v) = &v {
                let fits = match shape.as_slice() {
                    [] => v.len() == 1,
                    [d] => ctx.alg.as_i64(*d) == i64::try_from(v.len()).ok(),
                    _ => false,
                };
                if !fits {
                    return Err(RuleFailure::ValueLength {
                        output: index,
                        len: v.len(),
                        shape: ctx.alg.exprs(shape),
                    });
                }
            }
            v
        }
        _ => None,
    };
    Ok(TensorFact {
        fill: None,
        dtype,
        shape,
        value,
    })
}

/// The dims of a shape or value list; `None` when an input's rank (or, for slices
/// of contents, the contents) is unknown. With `value`, an unknown element makes the
/// whole list unknown; in a shape it is a fresh dim.
fn items_dims(
    ctx: &mut ShapesContext,
    node: &Node,
    rule: &DeclaredRule,
    output: usize,
    items: &[Item],
    value: bool,
    line: usize,
) -> Result<Option<Vec<Dim>>, RuleFailure> {
    let mut dims: Vec<Dim> = Vec::new();
    for item in items {
        match item {
            Item::Slice {
                input,
                start,
                end,
                value: of_value,
            } => {
                let f = input_fact(ctx, node, *input)?;
                let src = if *of_value { f.value } else { f.shape };
                let Some(src) = src else {
                    return Ok(None);
                };
                let (a, b) = slice_bounds(src.len(), *start, *end);
                dims.extend_from_slice(&src[a..b]);
            }
            Item::Unknown if value => return Ok(None),
            Item::Unknown => {
                let d = ctx.unknown_dim(node, output, dims.len());
                dims.push(d);
            }
            Item::Dim(e) => match eval(ctx, node, rule, e, line)? {
                Ok(d) => dims.push(d),
                Err(Missing::Rank) => return Ok(None),
                Err(Missing::Value) if value => return Ok(None),
                Err(Missing::Value) => {
                    let d = ctx.unknown_dim(node, output, dims.len());
                    dims.push(d);
                }
            },
        }
        if dims.len() > MAX_RANK {
            return Err(RuleFailure::RankLimit {
                output,
                rank: dims.len(),
            });
        }
    }
    Ok(Some(dims))
}

/// Python's slice bounds `[start:end]` over `len` items, clamped.
fn slice_bounds(len: usize, start: Option<i64>, end: Option<i64>) -> (usize, usize) {
    let n = i64::try_from(len).unwrap_or(i64::MAX);
    let norm = |v: i64| {
        let v = if v < 0 { v.saturating_add(n) } else { v };
        usize::try_from(v.clamp(0, n)).unwrap_or(0)
    };
    let a = start.map_or(0, norm);
    let b = end.map_or(len, norm);
    (a, b.max(a))
}

/// The facts of input `input` of the node.
fn input_fact(ctx: &ShapesContext, node: &Node, input: usize) -> Result<TensorFact, RuleFailure> {
    let name = node
        .input(input)
        .ok_or(RuleFailure::MissingInput { input })?;
    ctx.get(name)
        .cloned()
        .ok_or_else(|| RuleFailure::UnknownTensor {
            input,
            name: name.to_string(),
        })
}

/// Normalise an index in `[-len, len)`.
fn norm_index(index: i64, len: usize) -> Option<usize> {
    let n = i64::try_from(len).ok()?;
    let i = if index < 0 {
        index.checked_add(n)?
    } else {
        index
    };
    (0..n)
        .contains(&i)
        .then(|| usize::try_from(i).ok())
        .flatten()
}

/// An attribute's integer list or integer, with the rule's default.
fn attr_of<'a>(node: &'a Node, rule: &'a DeclaredRule, name: &str) -> Option<AttrRef<'a>> {
    match node.attr(name) {
        Some(Attr::Int(v)) => Some(AttrRef::Int(*v)),
        Some(Attr::Ints(v)) => Some(AttrRef::Ints(v)),
        Some(other) => Some(AttrRef::Other(other.kind())),
        None => rule
            .defaults
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| match v {
                AttrValue::Int(i) => AttrRef::Int(*i),
                AttrValue::Ints(v) => AttrRef::Ints(v),
            }),
    }
}

enum AttrRef<'a> {
    Int(i64),
    Ints(&'a [i64]),
    Other(&'static str),
}

/// Entry `index` (negative: from the end) of an input's dims or contents:
/// `missing` when they are unknown, `out_of_range(len)` when it has no such entry.
fn entry(
    dims: Option<Vec<Dim>>,
    index: i64,
    missing: Missing,
    out_of_range: impl FnOnce(usize) -> RuleFailure,
) -> Eval {
    let Some(dims) = dims else {
        return Ok(Err(missing));
    };
    match norm_index(index, dims.len()) {
        Some(i) => Ok(Ok(dims[i])),
        None => Err(out_of_range(dims.len())),
    }
}

/// The dim a reference names.
fn resolve(ctx: &mut ShapesContext, node: &Node, rule: &DeclaredRule, r: &Ref) -> Eval {
    let shown = || r.to_string();
    match r {
        Ref::Dim { input, axis } => {
            let shape = input_fact(ctx, node, *input)?.shape;
            entry(shape, *axis, Missing::Rank, |rank| {
                RuleFailure::RankTooSmall {
                    reference: shown(),
                    input: *input,
                    rank,
                }
            })
        }
        Ref::Rank { input } => {
            let Some(shape) = input_fact(ctx, node, *input)?.shape else {
                return Ok(Err(Missing::Rank));
            };
            let rank = i64::try_from(shape.len()).unwrap_or(i64::MAX);
            Ok(Ok(ctx.alg.constant(rank)))
        }
        Ref::Value { input, index } => {
            let value = input_fact(ctx, node, *input)?.value;
            entry(value, *index, Missing::Value, |len| {
                RuleFailure::ValueIndex {
                    reference: shown(),
                    input: *input,
                    len,
                }
            })
        }
        Ref::Attr { name } | Ref::AttrElem { name, .. } => {
            let elem = match r {
                Ref::AttrElem { index, .. } => Some(*index),
                _ => None,
            };
            let kind_error = |found: &'static str, expected: &'static str| RuleFailure::AttrKind {
                reference: shown(),
                name: name.clone(),
                found,
                expected,
            };
            let v = match (attr_of(node, rule, name), elem) {
                (None, _) => {
                    return Err(RuleFailure::MissingAttribute { name: name.clone() });
                }
                (Some(AttrRef::Int(v)), None) => v,
                (Some(AttrRef::Ints(list)), Some(i)) => match norm_index(i, list.len()) {
                    Some(i) => list[i],
                    None => {
                        return Err(RuleFailure::AttrIndex {
                            reference: shown(),
                            name: name.clone(),
                            len: list.len(),
                        })
                    }
                },
                (Some(AttrRef::Int(_)), Some(_)) => return Err(kind_error("int", "ints")),
                (Some(AttrRef::Ints(_)), None) => return Err(kind_error("ints", "int")),
                (Some(AttrRef::Other(k)), None) => return Err(kind_error(k, "int")),
                (Some(AttrRef::Other(k)), Some(_)) => return Err(kind_error(k, "ints")),
            };
            Ok(Ok(ctx.alg.constant(v)))
        }
    }
}

/// Build a rule expression in the algebra.
fn eval(
    ctx: &mut ShapesContext,
    node: &Node,
    rule: &DeclaredRule,
    e: &RuleExpr,
    line: usize,
) -> Eval {
    build(ctx, node, rule, e, &e.expr, line)
}

fn build(
    ctx: &mut ShapesContext,
    node: &Node,
    rule: &DeclaredRule,
    re: &RuleExpr,
    e: &Expr,
    line: usize,
) -> Eval {
    // The parser bounds the nesting (200 levels), so this recursion is bounded.
    let (a, b) = match e {
        Expr::Num(r) => return Ok(Ok(ctx.alg.rational(r.clone()))),
        Expr::Sym(s) => {
            return match re.reference(s) {
                Some(r) => resolve(ctx, node, rule, r),
                // The parser lets only references through.
                None => Ok(Err(Missing::Rank)),
            };
        }
        Expr::Neg(a) => {
            return Ok(match build(ctx, node, rule, re, a, line)? {
                Ok(a) => Ok(ctx.alg.neg(a)),
                Err(m) => Err(m),
            })
        }
        Expr::Add(a, b)
        | Expr::Sub(a, b)
        | Expr::Mul(a, b)
        | Expr::Div(a, b)
        | Expr::Call(_, a, b) => (a, b),
    };
    let a = match build(ctx, node, rule, re, a, line)? {
        Ok(d) => d,
        Err(m) => return Ok(Err(m)),
    };
    let b = match build(ctx, node, rule, re, b, line)? {
        Ok(d) => d,
        Err(m) => return Ok(Err(m)),
    };
    let divides = matches!(
        e,
        Expr::Div(..)
            | Expr::Call(
                OpKind::FloorDiv | OpKind::CeilDiv | OpKind::Mod | OpKind::Div,
                ..
            )
    );
    if divides && ctx.alg.as_const(b).is_some_and(|c| c.is_zero()) {
        return Err(AlgebraError::DivisionByZero {
            dividend: ctx.alg.expr(a),
        }
        .into());
    }
    let d = match e {
        Expr::Add(..) => ctx.alg.add_dims(a, b),
        Expr::Sub(..) => ctx.alg.sub(a, b),
        Expr::Mul(..) => ctx.alg.mul(a, b),
        Expr::Div(..) | Expr::Call(OpKind::Div, ..) => exact_div(ctx, node, rule, re, a, b, line)?,
        Expr::Call(OpKind::FloorDiv, ..) => ctx.alg.floordiv(a, b),
        Expr::Call(OpKind::CeilDiv, ..) => ctx.alg.ceildiv(a, b),
        Expr::Call(OpKind::Mod, ..) => ctx.alg.modulo(a, b),
        Expr::Call(OpKind::Min, ..) => ctx.alg.min(a, b),
        Expr::Call(OpKind::Max, ..) => ctx.alg.max(a, b),
        Expr::Call(OpKind::Broadcast, ..) => ctx.alg.broadcast(a, b),
        Expr::Call(OpKind::Mul, ..) => ctx.alg.mul(a, b),
        Expr::Num(_) | Expr::Sym(_) | Expr::Neg(_) => unreachable!("returned above"),
    };
    Ok(Ok(d))
}

/// `a / b`: the quotient when the algebra proves it exact; an error when it proves
/// it is not; otherwise the rational quotient, with `mod(a, b) == 0` assumed and a
/// warning.
fn exact_div(
    ctx: &mut ShapesContext,
    node: &Node,
    rule: &DeclaredRule,
    re: &RuleExpr,
    a: Dim,
    b: Dim,
    line: usize,
) -> Result<Dim, RuleFailure> {
    let at = Location {
        origin: rule.at.origin.clone(),
        line,
    };
    let (dividend, divisor) = (ctx.alg.render(a), ctx.alg.render(b));
    let (q, assumed) = ctx.alg.require_divides(a, b, &node.name)?;
    if assumed {
        let msg = format!(
            "{}: op rule at {at}: `{}`: {dividend} / {divisor} assumed exact (valid when {divisor} divides {dividend})",
            node_context(node),
            re.text
        );
        ctx.diagnose(Severity::Warning, node, msg);
    }
    Ok(q)
}
