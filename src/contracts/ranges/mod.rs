//! Input ranges and engine profiles from the contract (`symdim ranges`): for each
//! input symbol, the values for which the model is valid, and a min/opt/max
//! profile that TensorRT, onnxruntime's TensorRT provider and OpenVINO take.
//!
//! The contract ([`super::derive`]) and the caller's facts are split by the symbols
//! each condition names:
//!
//! | condition | becomes |
//! | --- | --- |
//! | one symbol, linear (`S <= 512`, `S == 4`) | a bound of its interval |
//! | one symbol, over `floordiv`/`mod` (`S % 8 == 0`, `floordiv(H - 4, 8) + 1 == floordiv(H, 8)`) | residue classes mod a period `L` (`solve.rs`) |
//! | `a == b`, two symbols | the two share one range (linked) |
//! | several symbols, linear (`P + S <= 512`) | a relation: the box is shrunk until the algebra proves it over the box (`joint.rs`) |
//! | several symbols, other | a relation the box is not proven to keep (a problem) |
//! | undecidable, on input symbols only (a condition of an `If` branch) | kept as the others: values that keep it are valid whichever branch runs |
//! | undecidable, other (a data-dependent dim, an op without a shape rule) | a caveat: no dim value decides it |
//!
//! Every bound, residue and box is decided through the algebra: bounds from
//! canonical forms with exact rationals, residues by building the condition at
//! `s = L*q + r` in a scratch algebra (an answer it cannot prove for every `q` is
//! unknown), each profile value by evaluating every condition at it. Costs are
//! bounded by [`MAX_PERIOD`], [`MAX_SEARCH`] and the algebra's own limits.

mod joint;
mod render;
mod solve;
mod tensors;

use super::{base_facts, derive, Cond, Condition, Contract, Kind, Side};
use crate::algebra::parse::parse_expr;
use crate::algebra::{Expr, Fact, Rel};
use crate::context::facts::Facts;
use crate::context::ShapesContext;
use crate::graph::Model;
use serde::Serialize;

pub use joint::MAX_SHRINK_STEPS;
pub use render::PasteFormat;

/// The largest period `L` (the least common multiple of the divisors of a
/// symbol's `floordiv`/`mod` conditions) whose residues are decided one by one;
/// past it, the residues are unknown.
pub const MAX_PERIOD: i64 = 1024;

/// How many values a search for a valid value tries, from a bound inward, when the
/// residues do not name one (each tried by evaluating every condition at it).
pub const MAX_SEARCH: i64 = 4096;

/// A user range `NAME=LO..HI` (either end may be left out: `S=..512`, `S=8..`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserRange {
    /// The symbol.
    pub name: String,
    /// The least value, when given.
    pub lo: Option<i64>,
    /// The greatest value, when given.
    pub hi: Option<i64>,
}

/// What the caller asks for: ranges and opt values of input symbols.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Request {
    /// `--range NAME=LO..HI`, intersected with the contract.
    pub ranges: Vec<UserRange>,
    /// `--opt NAME=V`: the opt value of a symbol (it must be valid).
    pub opts: Vec<(String, i64)>,
}

/// A request that cannot be answered.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RangeError {
    /// `--range` text that is not `NAME=LO..HI`.
    #[error("--range {text}: expected NAME=LO..HI (LO and HI integers, either may be left out)")]
    BadRange {
        /// The text given.
        text: String,
    },
    /// `--opt` text that is not `NAME=INT`.
    #[error("--opt {text}: expected NAME=INT")]
    BadOpt {
        /// The text given.
        text: String,
    },
    /// A name that is not an input symbol of the model.
    #[error("{flag} {name}: not an input symbol of the model (its input symbols: {known})")]
    UnknownSymbol {
        /// `--range` or `--opt`.
        flag: &'static str,
        /// The name.
        name: String,
        /// The model's input symbols, comma-separated.
        known: String,
    },
}

/// Residue classes of a symbol: a value `v` of the interval is valid when it is in
/// `also`, or `v % modulus` is in `residues` and `v` is not in `except`; one with
/// `v % modulus` in `unknown` (and not in `also` or `except`) could not be decided;
/// every other value is invalid. `also` and `except` lie among the first values of
/// the interval, which are decided one by one (`h <= 4 or ...` holds at 1 to 4).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Step {
    /// The period.
    pub modulus: i64,
    /// The residues proven valid, ascending.
    pub residues: Vec<i64>,
    /// The residues neither proven valid nor invalid, ascending.
    pub unknown: Vec<i64>,
    /// Valid values whose residue is not in `residues`, ascending.
    pub also: Vec<i64>,
    /// Invalid values whose residue is in `residues`, ascending.
    pub except: Vec<i64>,
}

/// The valid values and the profile of one input symbol.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SymbolRange {
    /// The symbol.
    pub name: String,
    /// Symbols the contract makes equal to it (`a == b`): they share its range.
    pub linked: Vec<String>,
    /// The least value of its interval.
    pub lo: i64,
    /// The greatest value of its interval; `None`: no upper bound.
    pub hi: Option<i64>,
    /// Where `lo` comes from: `input` (input dims are `>= 1`), `range`, `fact` or a
    /// condition's sources.
    pub lo_from: Vec<String>,
    /// Where `hi` comes from (empty when there is none).
    pub hi_from: Vec<String>,
    /// Residue classes, when a condition asks for divisibility.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<Step>,
    /// The one-symbol conditions of the contract (and facts) it comes from.
    pub conditions: Vec<Condition>,
    /// The profile: least valid value.
    pub min: Option<i64>,
    /// The profile: opt value (`--opt`, or the least valid value at or above the
    /// middle of `min` and `max`).
    pub opt: Option<i64>,
    /// The profile: greatest valid value; `None` without an upper bound.
    pub max: Option<i64>,
    /// Where `max` comes from: `contract`, `range`, `fact` or `relation` (the box
    /// was shrunk for a relation between symbols).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_from: Option<String>,
}

/// A condition between several symbols, and what the profile box does with it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Relation {
    /// The condition.
    #[serde(flatten)]
    pub condition: Condition,
    /// `holds` (proven over the box), `shrunk` (proven after shrinking the box),
    /// `unknown` (the box may hold values that break it).
    pub status: &'static str,
    /// What shrinking gave up (`S: max 511 -> 256`).
    pub gave_up: Vec<String>,
}

/// The min/opt/max shapes of one graph input (dims in order); a shape is `None`
/// when some dim has no value there (no upper bound, an unknown rank).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InputProfile {
    /// The graph input.
    pub name: String,
    /// Its shape at every symbol's min.
    pub min: Option<Vec<i64>>,
    /// Its shape at every symbol's opt.
    pub opt: Option<Vec<i64>>,
    /// Its shape at every symbol's max.
    pub max: Option<Vec<i64>>,
}

/// Bounds of one dim over the profile box.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DimBound {
    /// The least value, when known.
    pub lo: Option<i64>,
    /// The greatest value, when known.
    pub hi: Option<i64>,
}

/// One tensor over the profile box: its dims' bounds and its largest size.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TensorBound {
    /// The tensor.
    pub name: String,
    /// Its element type (`f32`, ...).
    pub dtype: String,
    /// The bounds of each dim; `None` for an unknown rank.
    pub dims: Option<Vec<DimBound>>,
    /// An upper bound of its size in bytes: the element size times the product of
    /// the dims' upper bounds; `None` when a dim or the element size has none.
    pub max_bytes: Option<i64>,
    /// True when `max_bytes` is the size at the max point (every dim reaches its
    /// upper bound there).
    pub at_max: bool,
}

/// What `symdim ranges` reports.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Ranges {
    /// The model's path.
    pub model: String,
    /// The caller's facts and ranges (`S == 4`, `S <= 512`, `S in 1..512`).
    pub facts: Vec<String>,
    /// The input symbols (the first of each linked set), in creation order.
    pub symbols: Vec<SymbolRange>,
    /// Conditions between several symbols.
    pub relations: Vec<Relation>,
    /// Conditions no dim value decides (undecidable in the contract, on a symbol
    /// that is not an input or on an op without a shape rule).
    pub caveats: Vec<Condition>,
    /// What keeps the profile from being pasted: a symbol without an upper bound, a
    /// relation not proven over the box, a symbol with no valid value.
    pub problems: Vec<String>,
    /// Per graph input, its min/opt/max shapes, in graph order.
    pub inputs: Vec<InputProfile>,
    /// Per tensor of the main graph (inputs, then node outputs), its bounds over the
    /// box.
    pub tensors: Vec<TensorBound>,
    /// The sum of every tensor's `max_bytes`; `None` when one has none.
    pub activations_max_bytes: Option<i64>,
}

/// Parse `NAME=LO..HI` (either end may be left out).
pub fn parse_range(text: &str) -> Result<UserRange, RangeError> {
    let bad = || RangeError::BadRange {
        text: text.to_string(),
    };
    let (name, span) = text.rsplit_once('=').ok_or_else(bad)?;
    let name = symbol_name(name.trim()).ok_or_else(bad)?;
    let (lo, hi) = span.trim().split_once("..").ok_or_else(bad)?;
    let end = |s: &str| -> Result<Option<i64>, RangeError> {
        let s = s.trim();
        if s.is_empty() {
            Ok(None)
        } else {
            s.parse().map(Some).map_err(|_| bad())
        }
    };
    Ok(UserRange {
        name,
        lo: end(lo)?,
        hi: end(hi)?,
    })
}

/// Parse `NAME=INT`.
pub fn parse_opt(text: &str) -> Result<(String, i64), RangeError> {
    let bad = || RangeError::BadOpt {
        text: text.to_string(),
    };
    let (name, v) = text.rsplit_once('=').ok_or_else(bad)?;
    let name = symbol_name(name.trim()).ok_or_else(bad)?;
    Ok((name, v.trim().parse().map_err(|_| bad())?))
}

/// A symbol name as `--bind` reads it: a plain or backquoted name, or text that is
/// not an expression (`input_ids.1`); `None` for an expression or nothing (an
/// empty name, backquoted or not).
fn symbol_name(name: &str) -> Option<String> {
    if name.is_empty() {
        return None;
    }
    match &parse_expr(name) {
        Ok(Expr::Sym(s)) if !s.is_empty() => Some(s.clone()),
        Ok(_) => None,
        Err(_) => Some(name.to_string()),
    }
}

/// The ranges and profile of an inferred model under `options` (the facts
/// inference ran with) and the caller's `request`.
pub fn ranges(
    model: &Model,
    ctx: &ShapesContext,
    options: &Facts,
    request: &Request,
) -> Result<Ranges, RangeError> {
    let contract = derive(model, ctx, options);
    let (mut r, out) = solved(contract, ctx, options, request)?;
    let env = out.values();
    r.inputs = tensors::input_profiles(model, ctx, &env);
    let (tensors, total) = tensors::bounds(model, ctx, &env);
    r.tensors = tensors;
    r.activations_max_bytes = total;
    Ok(r)
}

/// The ranges of the input symbols of `contract` (the model's, derived under
/// `options`) without a request: what [`ranges`] gives for `symbols`,
/// `relations`, `caveats` and `problems`, without the per-tensor bounds (`inputs`
/// and `tensors` are empty, `activations_max_bytes` is `None`). For a caller that
/// holds the contract already (`symdim diff`).
pub fn symbol_ranges(contract: Contract, ctx: &ShapesContext, options: &Facts) -> Ranges {
    match solved(contract, ctx, options, &Request::default()) {
        Ok((r, _)) => r,
        Err(_) => unreachable!("a request without ranges names no symbol"),
    }
}

/// The symbols' ranges and the relations, from the contract and the request.
fn solved(
    contract: Contract,
    ctx: &ShapesContext,
    options: &Facts,
    request: &Request,
) -> Result<(Ranges, solve::Solved), RangeError> {
    let inputs = contract.inputs.clone();
    let known = || inputs.join(", ");
    for (flag, name) in request
        .ranges
        .iter()
        .map(|r| ("--range", &r.name))
        .chain(request.opts.iter().map(|(n, _)| ("--opt", n)))
    {
        if !inputs.contains(name) {
            return Err(RangeError::UnknownSymbol {
                flag,
                name: name.clone(),
                known: known(),
            });
        }
    }
    // The conditions: the contract's, then the caller's facts and declared bounds
    // (the contract leaves out what they imply).
    let mut conditions = Vec::new();
    let mut caveats = Vec::new();
    for c in contract.conditions {
        // An undecidable condition on input symbols holds when its branch runs:
        // values that keep it are valid whichever branch runs, so it is kept.
        let on_inputs = c.form != Cond::Unknown
            && !c.symbols.is_empty()
            && c.symbols.iter().all(|s| inputs.contains(s));
        match c.kind {
            Kind::Undecidable if !on_inputs => caveats.push(c),
            _ => conditions.push(c),
        }
    }
    // Each fact once: the declared bounds repeat the caller's facts, and a bound
    // symbol's bounds say no more than its value.
    let mut seen: Vec<String> = Vec::new();
    for f in base_facts(&ctx.alg, options) {
        let bound =
            |e: &Expr| matches!(e, Expr::Sym(n) if options.binds.iter().any(|(b, _)| b == n));
        if f.rel != Rel::Eq && (bound(&f.lhs) || bound(&f.rhs)) {
            continue;
        }
        if let Some(c) = fact_condition(&f) {
            if !seen.contains(&c.condition) {
                seen.push(c.condition.clone());
                conditions.push(c);
            }
        }
    }
    let mut facts = contract.facts.clone();
    for r in &request.ranges {
        let lo = r.lo.map(|v| v.to_string()).unwrap_or_default();
        let hi = r.hi.map(|v| v.to_string()).unwrap_or_default();
        facts.push(format!(
            "{} in {lo}..{hi}",
            crate::algebra::poly::render_symbol(&r.name)
        ));
    }
    let mut out = solve::symbols(&inputs, conditions, request);
    joint::shrink(&mut out, request);
    let r = Ranges {
        model: contract.model,
        facts,
        symbols: std::mem::take(&mut out.symbols),
        relations: std::mem::take(&mut out.relations),
        caveats,
        problems: std::mem::take(&mut out.problems),
        inputs: Vec::new(),
        tensors: Vec::new(),
        activations_max_bytes: None,
    };
    Ok((r, out))
}

/// A fact as a condition of the report (`source` `fact`): `==`, `<=`, `>=`, `<`,
/// `>` (a strict one on integers as `a + 1 <= b`); `!=` says nothing a range can
/// use and is left out.
fn fact_condition(f: &Fact) -> Option<Condition> {
    let t = |e: &Expr| Side::Term(e.clone());
    let plus_one = |e: &Expr| {
        Side::Term(Expr::Add(
            Box::new(e.clone()),
            Box::new(Expr::Num(crate::algebra::Rat::one())),
        ))
    };
    let (kind, form) = match f.rel {
        Rel::Eq => (Kind::Equal, Cond::Eq(t(&f.lhs), t(&f.rhs))),
        Rel::Le => (Kind::Range, Cond::Le(t(&f.lhs), t(&f.rhs))),
        Rel::Ge => (Kind::Range, Cond::Le(t(&f.rhs), t(&f.lhs))),
        Rel::Lt => (Kind::Range, Cond::Le(plus_one(&f.lhs), t(&f.rhs))),
        Rel::Gt => (Kind::Range, Cond::Le(plus_one(&f.rhs), t(&f.lhs))),
        Rel::Ne => return None,
    };
    let mut symbols = Vec::new();
    for e in [&f.lhs, &f.rhs] {
        for s in e.symbols() {
            if !symbols.iter().any(|x: &String| x == s) {
                symbols.push(s.to_string());
            }
        }
    }
    Some(Condition {
        kind,
        condition: f.to_string(),
        symbols,
        nodes: Vec::new(),
        sources: vec!["fact".to_string()],
        note: None,
        form,
    })
}
