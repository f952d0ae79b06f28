//! Dims as owned values: [`DimExpr`], an expression of symbols in canonical form
//! that needs no [`Algebra`] to print, compare, compute with or evaluate, with
//! [`SymbolValues`] to evaluate it at and [`EvalError`] for where it has no integer
//! value.
//!
//! Errors of every layer carry the dims they are about as `DimExpr`s, so a caller
//! reads the values (and a contract builds conditions from them) without parsing
//! message text.

use super::poly::NoValue;
use super::{Algebra, AlgebraError, Config, Dim, OpKind, Poly, Rat};
use indexmap::IndexMap;
use std::fmt;

/// A dim as an owned value: an expression of symbols in canonical form, printed in
/// the expression grammar (`docs/grammar.md`). It needs no [`Algebra`] to print,
/// compare, compute with or evaluate, and is `Send + Sync`.
///
/// **Arithmetic.** `+`, `-` and `*` between dims and `i64`s, owned or borrowed, on
/// either side, their assigning forms (`+=`, `-=`, `*=`), negation, and
/// [`Sum`](std::iter::Sum) and [`Product`](std::iter::Product) over dims work on the
/// canonical polynomial form: like terms are collected and products of sums expanded,
/// exactly and for every value of the symbols (`(S + 1)*2 - S` is `S + 2`, `S - S`
/// is `0`). They rewrite nothing else: `min(A, B) + 1` keeps its `min`.
///
/// **Simplifying operations.** [`DimExpr::floordiv`], [`DimExpr::ceildiv`],
/// [`DimExpr::modulo`], [`DimExpr::min`], [`DimExpr::max`] and
/// [`DimExpr::broadcast`] fold constants (`floordiv(7, 2)` is `3`) and otherwise
/// simplify the result with the algebra's rules in a scratch algebra where every
/// symbol is at least 0 (dims are never negative): `floordiv(4*S, 2)` is `2*S`,
/// `max(S, 0)` is `S`, `min(S, S + 2)` is `S`. What they find holds for every value
/// of the symbols from 0 up at which the expression is defined (a negative value may
/// break it: `max(S, 0)` is not `S` at `S = -1`). A division by a constant 0 stays as
/// written, undefined. Nothing here uses a model's facts: `symdim::Shapes::simplify`
/// simplifies under them (input symbols at least 1, bound values, merged dims).
///
/// **Equality.** `==` and `Hash` compare canonical forms, not values: two dims are
/// equal when they are written the same after the rewriting above (`S*2 == S + S`),
/// and two dims that agree at every value but were brought to different forms
/// compare unequal (`min(A, B)` and `A + B - max(A, B)`). `symdim::Shapes::equal`
/// decides equality of values under a model's facts, [`DimExpr::parse`] simplifies
/// text with the algebra's rules as the simplifying operations do (names at least 0).
///
/// ```
/// use symdim_algebra::{DimExpr, SymbolValues};
/// let s = DimExpr::symbol("S");
/// let d = (&s * 12 + 4) - 2 * &s;
/// assert_eq!(d.to_string(), "10*S + 4");
/// assert_eq!(d.eval(&SymbolValues::new().with("S", 3)).unwrap(), 34);
/// assert_eq!((4 * &s).floordiv(2), 2 * &s);
/// assert_eq!(s.max(0), s);
/// let total: DimExpr = [s.clone(), DimExpr::constant(3), s.clone()].iter().sum();
/// assert_eq!(total.to_string(), "2*S + 3");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DimExpr(Poly);

impl DimExpr {
    /// A constant.
    pub fn constant(v: i64) -> DimExpr {
        DimExpr(Poly::constant(Rat::int(v)))
    }

    /// A symbol.
    pub fn symbol(name: &str) -> DimExpr {
        DimExpr(Poly::sym(egg::Symbol::from(name)))
    }

    /// Parse an expression of the grammar and simplify it with the algebra's rules
    /// where every name is at least 0, as the simplifying operations do (see
    /// [`DimExpr`]): `max(S, 1)` stays `max(S, 1)`, `max(S, 0)` is `S`.
    /// `symdim::Shapes::simplify` simplifies under a model's facts (its input
    /// symbols at least 1 by default), [`DimExpr::parse_with`] in an algebra of the
    /// caller's set-up.
    ///
    /// An error says why the text has no value: it does not parse, it divides by a
    /// constant 0, or it is too large for the algebra's limits
    /// ([`AlgebraError::TooLarge`]).
    pub fn parse(text: &str) -> Result<DimExpr, AlgebraError> {
        DimExpr::parse_with(text, &nonneg_config())
    }

    /// Parse an expression of the grammar and simplify it in a scratch algebra set up
    /// by `config`: every name is an input symbol, at least `config.input_lower`
    /// (with [`Config::default`], at least 1). Errors as [`DimExpr::parse`]. Whatever
    /// the configuration, the result is a dim: [`DimExpr::eval`] takes values from 0.
    pub fn parse_with(text: &str, config: &Config) -> Result<DimExpr, AlgebraError> {
        let mut alg = Algebra::new(config.clone());
        let d = alg.parse(text)?;
        alg.simplify(d);
        alg.placeholder_since(0)?;
        Ok(DimExpr(alg.canon(d).clone()))
    }

    /// The value, when the dim is an integer constant that fits in `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        self.0.as_const().and_then(|r| r.to_i64())
    }

    /// The symbols it mentions, in order of first appearance.
    pub fn symbols(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.0.symbols(&mut out);
        out.into_iter().map(|s| s.as_str().to_string()).collect()
    }

    /// The value at `values`: an error names a symbol without a value, or says the
    /// expression is undefined there (a division by zero) or not an integer.
    ///
    /// A dim is never negative, so a negative value of a symbol it mentions is an
    /// error ([`EvalError::Negative`]), not a value outside the domain the dim was
    /// simplified for.
    pub fn eval(&self, values: &SymbolValues) -> Result<i64, EvalError> {
        let symbols = self.symbols();
        if let Some(symbol) = symbols.iter().find(|s| values.get(s).is_none()) {
            return Err(EvalError::Unbound {
                symbol: symbol.clone(),
            });
        }
        self.check_values(&symbols, values)?;
        let value = self
            .0
            .evaluate(&|s: egg::Symbol| values.get(s.as_str()).map(Rat::int));
        let value = value.map_err(|e| match e {
            NoValue::Undefined => EvalError::Undefined { expr: self.clone() },
            NoValue::TooLarge => EvalError::TooLarge { expr: self.clone() },
        })?;
        value.to_i64().ok_or_else(|| EvalError::NotAnInteger {
            expr: self.clone(),
            value,
        })
    }

    /// The dim with some symbols replaced by values (the others stay). A negative
    /// value of a symbol it mentions is an error ([`EvalError::Negative`]).
    pub fn substitute(&self, values: &SymbolValues) -> Result<DimExpr, EvalError> {
        self.check_values(&self.symbols(), values)?;
        Ok(DimExpr(self.0.substitute(&|s| {
            values
                .0
                .get(s.as_str())
                .map(|v| Poly::constant(Rat::int(*v)))
        })))
    }

    /// `Err` for the first of `symbols` whose value in `values` is negative.
    fn check_values(&self, symbols: &[String], values: &SymbolValues) -> Result<(), EvalError> {
        for symbol in symbols {
            if let Some(value) = values.get(symbol).filter(|v| *v < 0) {
                return Err(EvalError::Negative {
                    symbol: symbol.clone(),
                    value,
                });
            }
        }
        Ok(())
    }

    /// `floor(self / d)`, simplified (see [`DimExpr`]): `floordiv(4*S, 2)` is `2*S`.
    pub fn floordiv(&self, d: impl Into<DimExpr>) -> DimExpr {
        self.op(OpKind::FloorDiv, d.into())
    }

    /// `ceil(self / d)`, simplified (see [`DimExpr`]).
    pub fn ceildiv(&self, d: impl Into<DimExpr>) -> DimExpr {
        self.op(OpKind::CeilDiv, d.into())
    }

    /// `self mod d`: `self - d*floordiv(self, d)`, of the sign of `d` (as Python's
    /// `%` and ONNX `Mod` with `fmod=0`), simplified (see [`DimExpr`]).
    pub fn modulo(&self, d: impl Into<DimExpr>) -> DimExpr {
        self.op(OpKind::Mod, d.into())
    }

    /// The smaller of two dims, simplified (see [`DimExpr`]).
    pub fn min(&self, d: impl Into<DimExpr>) -> DimExpr {
        self.op(OpKind::Min, d.into())
    }

    /// The larger of two dims, simplified (see [`DimExpr`]).
    pub fn max(&self, d: impl Into<DimExpr>) -> DimExpr {
        self.op(OpKind::Max, d.into())
    }

    /// The numpy broadcast of two dims: `d` where `self` is 1, `self` where `d` is 1
    /// or both are equal, undefined otherwise; simplified (see [`DimExpr`]).
    pub fn broadcast(&self, d: impl Into<DimExpr>) -> DimExpr {
        self.op(OpKind::Broadcast, d.into())
    }

    /// `kind(self, d)`: folded when both are constants, else simplified in a scratch
    /// algebra whose symbols are at least 0 ([`simplified`]).
    fn op(&self, kind: OpKind, d: DimExpr) -> DimExpr {
        let by_zero = matches!(kind, OpKind::FloorDiv | OpKind::CeilDiv | OpKind::Mod)
            && d.0.as_const().is_some_and(|c| c.is_zero());
        let raw = Poly::op(kind, self.0.clone(), d.0);
        if by_zero || raw.as_const().is_some() {
            return DimExpr(raw);
        }
        DimExpr(simplified(&raw).unwrap_or(raw))
    }

    /// The canonical form.
    pub fn poly(&self) -> &Poly {
        &self.0
    }

    /// The dim of `p`, which must be a canonical form the algebra made (a class's
    /// form, [`Algebra::canon`], a derived symbol's definition, a difference or
    /// quotient of such forms, or a constant), so that every `DimExpr` is in the form
    /// the algebra gives it and `==` of two dims compares those forms: a form built by
    /// hand has not been through the rewrite rules and may compare unequal to the
    /// same dim built by the algebra. Callers outside the engine build dims with
    /// [`DimExpr::parse`], [`DimExpr::symbol`], [`DimExpr::constant`] and the
    /// arithmetic.
    pub fn from_poly(p: Poly) -> DimExpr {
        DimExpr(p)
    }

    /// A list of dims printed as a shape: `[A, 3, B*S]`.
    pub fn list(dims: &[DimExpr]) -> DimList<'_> {
        DimList(dims)
    }
}

/// A list of dims printed as a shape, `[A, 3, B*S]` ([`DimExpr::list`]).
#[derive(Clone, Copy, Debug)]
pub struct DimList<'a>(&'a [DimExpr]);

impl fmt::Display for DimList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("]")
    }
}

impl Algebra {
    /// The dim whose canonical form is `e`, when the algebra holds one, found without
    /// adding anything (`None` otherwise: [`Algebra::import`] adds it).
    pub fn find_expr(&self, e: &DimExpr) -> Option<Dim> {
        let id = self.egraph.analysis.by_canon.get(&e.0)?;
        Some(Dim(self.egraph.find(*id)))
    }

    /// The canonical form of a dim as an owned value.
    pub fn expr(&self, d: Dim) -> DimExpr {
        DimExpr(self.canon(d).clone())
    }

    /// The canonical forms of a list of dims as owned values.
    pub fn exprs(&self, dims: &[Dim]) -> Vec<DimExpr> {
        dims.iter().map(|d| self.expr(*d)).collect()
    }
}

impl fmt::Display for DimExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.render())
    }
}

impl From<i64> for DimExpr {
    fn from(v: i64) -> DimExpr {
        DimExpr::constant(v)
    }
}

impl From<&DimExpr> for DimExpr {
    fn from(d: &DimExpr) -> DimExpr {
        d.clone()
    }
}

/// `+`, `-` and `*` for every pairing of owned and borrowed dims and `i64`s, and the
/// assigning forms: all on the canonical polynomial form ([`Poly::add`],
/// [`Poly::sub`], [`Poly::mul`]).
macro_rules! arith {
    ($trait:ident, $method:ident, $assign_trait:ident, $assign:ident, $poly:ident) => {
        impl std::ops::$trait<&DimExpr> for &DimExpr {
            type Output = DimExpr;
            fn $method(self, o: &DimExpr) -> DimExpr {
                DimExpr(self.0.$poly(&o.0))
            }
        }
        impl std::ops::$trait<DimExpr> for DimExpr {
            type Output = DimExpr;
            fn $method(self, o: DimExpr) -> DimExpr {
                DimExpr(self.0.$poly(&o.0))
            }
        }
        impl std::ops::$trait<&DimExpr> for DimExpr {
            type Output = DimExpr;
            fn $method(self, o: &DimExpr) -> DimExpr {
                DimExpr(self.0.$poly(&o.0))
            }
        }
        impl std::ops::$trait<DimExpr> for &DimExpr {
            type Output = DimExpr;
            fn $method(self, o: DimExpr) -> DimExpr {
                DimExpr(self.0.$poly(&o.0))
            }
        }
        impl std::ops::$trait<i64> for DimExpr {
            type Output = DimExpr;
            fn $method(self, o: i64) -> DimExpr {
                DimExpr(self.0.$poly(&Poly::constant(Rat::int(o))))
            }
        }
        impl std::ops::$trait<i64> for &DimExpr {
            type Output = DimExpr;
            fn $method(self, o: i64) -> DimExpr {
                DimExpr(self.0.$poly(&Poly::constant(Rat::int(o))))
            }
        }
        impl std::ops::$trait<DimExpr> for i64 {
            type Output = DimExpr;
            fn $method(self, o: DimExpr) -> DimExpr {
                DimExpr(Poly::constant(Rat::int(self)).$poly(&o.0))
            }
        }
        impl std::ops::$trait<&DimExpr> for i64 {
            type Output = DimExpr;
            fn $method(self, o: &DimExpr) -> DimExpr {
                DimExpr(Poly::constant(Rat::int(self)).$poly(&o.0))
            }
        }
        impl std::ops::$assign_trait<DimExpr> for DimExpr {
            fn $assign(&mut self, o: DimExpr) {
                self.0 = self.0.$poly(&o.0);
            }
        }
        impl std::ops::$assign_trait<&DimExpr> for DimExpr {
            fn $assign(&mut self, o: &DimExpr) {
                self.0 = self.0.$poly(&o.0);
            }
        }
        impl std::ops::$assign_trait<i64> for DimExpr {
            fn $assign(&mut self, o: i64) {
                self.0 = self.0.$poly(&Poly::constant(Rat::int(o)));
            }
        }
    };
}

arith!(Add, add, AddAssign, add_assign, add);
arith!(Sub, sub, SubAssign, sub_assign, sub);
arith!(Mul, mul, MulAssign, mul_assign, mul);

impl std::ops::Neg for DimExpr {
    type Output = DimExpr;
    fn neg(self) -> DimExpr {
        DimExpr(self.0.neg())
    }
}

impl std::ops::Neg for &DimExpr {
    type Output = DimExpr;
    fn neg(self) -> DimExpr {
        DimExpr(self.0.neg())
    }
}

impl std::iter::Sum for DimExpr {
    fn sum<I: Iterator<Item = DimExpr>>(iter: I) -> DimExpr {
        iter.fold(DimExpr::constant(0), |acc, d| acc + d)
    }
}

impl<'a> std::iter::Sum<&'a DimExpr> for DimExpr {
    fn sum<I: Iterator<Item = &'a DimExpr>>(iter: I) -> DimExpr {
        iter.fold(DimExpr::constant(0), |acc, d| acc + d)
    }
}

impl std::iter::Product for DimExpr {
    fn product<I: Iterator<Item = DimExpr>>(iter: I) -> DimExpr {
        iter.fold(DimExpr::constant(1), |acc, d| acc * d)
    }
}

impl<'a> std::iter::Product<&'a DimExpr> for DimExpr {
    fn product<I: Iterator<Item = &'a DimExpr>>(iter: I) -> DimExpr {
        iter.fold(DimExpr::constant(1), |acc, d| acc * d)
    }
}

/// Values of symbols, for [`DimExpr::eval`] and [`DimExpr::substitute`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SymbolValues(IndexMap<String, i64>);

impl SymbolValues {
    /// No values.
    pub fn new() -> SymbolValues {
        SymbolValues::default()
    }

    /// These values and `name = value`.
    pub fn with(mut self, name: &str, value: i64) -> SymbolValues {
        self.set(name, value);
        self
    }

    /// Set `name = value`.
    pub fn set(&mut self, name: &str, value: i64) {
        self.0.insert(name.to_string(), value);
    }

    /// The value of `name`.
    pub fn get(&self, name: &str) -> Option<i64> {
        self.0.get(name).copied()
    }
}

impl<'a> FromIterator<(&'a str, i64)> for SymbolValues {
    fn from_iter<I: IntoIterator<Item = (&'a str, i64)>>(iter: I) -> SymbolValues {
        SymbolValues(iter.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }
}

/// Why a dim has no integer value at some symbol values.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// A symbol has no value.
    #[error("symbol `{symbol}` has no value")]
    Unbound {
        /// The symbol.
        symbol: String,
    },
    /// A symbol's value is negative: a dim is an integer from 0 to `i64::MAX`.
    #[error(
        "symbol `{symbol}` = {value}: negative (a dim value is an integer from 0 to {})",
        i64::MAX
    )]
    Negative {
        /// The symbol.
        symbol: String,
        /// Its value.
        value: i64,
    },
    /// The expression is undefined at these values: a division by zero, or a
    /// broadcast of two dims that are neither equal nor 1.
    #[error("{expr} is undefined at these values")]
    Undefined {
        /// The expression.
        expr: DimExpr,
    },
    /// A value on the way to the result has more than
    /// [`MAX_CONST_BITS`](crate::rational::MAX_CONST_BITS) bits (`N**4096` at
    /// `N = 2**62`): the algebra does not compute it.
    #[error("{expr} is too large to evaluate at these values (a value on the way has more than {} bits, MAX_CONST_BITS)", crate::rational::MAX_CONST_BITS)]
    TooLarge {
        /// The expression.
        expr: DimExpr,
    },
    /// The value is not an integer, or does not fit in `i64`.
    #[error("{expr} is {value} at these values, not an i64")]
    NotAnInteger {
        /// The expression.
        expr: DimExpr,
        /// Its exact value.
        value: Rat,
    },
}

/// `p` simplified by the algebra's rules where every symbol is at least 0 (dims are
/// never negative), so that what is found holds for every such value at which `p` is
/// defined: a scratch algebra with `input_lower` 0 ([`Config`]) builds `p`, its
/// symbols as inputs, and saturates. `None` when the scratch algebra reached a limit
/// (its answer would name a made-up symbol).
fn simplified(p: &Poly) -> Option<Poly> {
    let mut alg = Algebra::new(nonneg_config());
    let d = alg.import(p, None);
    alg.simplify(d);
    alg.warnings().is_empty().then(|| alg.canon(d).clone())
}

/// The set-up of the scratch algebras of [`DimExpr`]: every symbol at least 0.
fn nonneg_config() -> Config {
    Config {
        input_lower: Rat::zero(),
        dim_lower: Rat::zero(),
        ..Config::default()
    }
}
