//! Dims as owned values: [`DimExpr`], an expression of symbols in canonical form
//! that needs no [`Algebra`] to print, compare, compute with or evaluate, with
//! [`SymbolValues`] to evaluate it at and [`EvalError`] for where it has no integer
//! value.
//!
//! Errors of every layer carry the dims they are about as `DimExpr`s, so a caller
//! reads the values (and a contract builds conditions from them) without parsing
//! message text.

use super::{Algebra, AlgebraError, Dim, OpKind, Poly, Rat};
use indexmap::IndexMap;
use std::fmt;

/// A dim as an owned value: an expression of symbols in canonical form, printed in
/// the expression grammar (`docs/grammar.md`).
///
/// Arithmetic (`+`, `-`, `*` with other dims and integers) keeps the canonical
/// polynomial form; [`DimExpr::floordiv`], [`DimExpr::ceildiv`], [`DimExpr::min`]
/// and [`DimExpr::max`] fold constants and otherwise stay as written. Two dims
/// compare equal when their canonical forms are the same; [`DimExpr::parse`] and
/// inference simplify with the algebra's rules.
///
/// ```
/// use symdim::DimExpr;
/// let s = DimExpr::parse("S").unwrap();
/// let d = (s.clone() * 12 + 4) - s * 2;
/// assert_eq!(d.to_string(), "10*S + 4");
/// let v = d.eval(&symdim::SymbolValues::new().with("S", 3)).unwrap();
/// assert_eq!(v, 34);
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
    /// (names are input symbols, at least 1 by default).
    pub fn parse(text: &str) -> Result<DimExpr, AlgebraError> {
        let mut alg = Algebra::default();
        let d = alg.parse(text)?;
        alg.simplify(d);
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
    pub fn eval(&self, values: &SymbolValues) -> Result<i64, EvalError> {
        if let Some(symbol) = self.symbols().into_iter().find(|s| values.get(s).is_none()) {
            return Err(EvalError::Unbound { symbol });
        }
        let value = self
            .0
            .eval(&|s: egg::Symbol| values.get(s.as_str()).map(Rat::int));
        let value = value.ok_or_else(|| EvalError::Undefined { expr: self.clone() })?;
        value.to_i64().ok_or_else(|| EvalError::NotAnInteger {
            expr: self.clone(),
            value,
        })
    }

    /// The dim with some symbols replaced by values (the others stay).
    pub fn substitute(&self, values: &SymbolValues) -> DimExpr {
        DimExpr(self.0.substitute(&|s| {
            values
                .0
                .get(s.as_str())
                .map(|v| Poly::constant(Rat::int(*v)))
        }))
    }

    /// `floor(self / d)`.
    pub fn floordiv(&self, d: &DimExpr) -> DimExpr {
        self.op(OpKind::FloorDiv, d)
    }

    /// `ceil(self / d)`.
    pub fn ceildiv(&self, d: &DimExpr) -> DimExpr {
        self.op(OpKind::CeilDiv, d)
    }

    /// The smaller of two dims.
    pub fn min(&self, d: &DimExpr) -> DimExpr {
        self.op(OpKind::Min, d)
    }

    /// The larger of two dims.
    pub fn max(&self, d: &DimExpr) -> DimExpr {
        self.op(OpKind::Max, d)
    }

    fn op(&self, kind: OpKind, d: &DimExpr) -> DimExpr {
        DimExpr(Poly::op(kind, self.0.clone(), d.0.clone()))
    }

    /// The canonical form.
    pub fn poly(&self) -> &Poly {
        &self.0
    }

    /// The dim of a canonical form.
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

macro_rules! arith {
    ($trait:ident, $method:ident, $poly:ident) => {
        impl std::ops::$trait<DimExpr> for DimExpr {
            type Output = DimExpr;
            fn $method(self, o: DimExpr) -> DimExpr {
                DimExpr(self.0.$poly(&o.0))
            }
        }
        impl std::ops::$trait<&DimExpr> for &DimExpr {
            type Output = DimExpr;
            fn $method(self, o: &DimExpr) -> DimExpr {
                DimExpr(self.0.$poly(&o.0))
            }
        }
        impl std::ops::$trait<i64> for DimExpr {
            type Output = DimExpr;
            fn $method(self, o: i64) -> DimExpr {
                DimExpr(self.0.$poly(&Poly::constant(Rat::int(o))))
            }
        }
    };
}

arith!(Add, add, add);
arith!(Sub, sub, sub);
arith!(Mul, mul, mul);

impl std::ops::Neg for DimExpr {
    type Output = DimExpr;
    fn neg(self) -> DimExpr {
        DimExpr(self.0.neg())
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
    /// The expression is undefined at these values: a division by zero, or a
    /// broadcast of two dims that are neither equal nor 1.
    #[error("{expr} is undefined at these values")]
    Undefined {
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
