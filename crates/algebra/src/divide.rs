//! Exact division (`divides`, `div`, a quotient where the divisor is not 0) and
//! Reshape's `-1`, which records the relation or requirement it needs.

use crate::{Algebra, AlgebraError, Dim, DimExpr, FreshKey, Poly, Rat, SymbolKind, Truth};

/// The result of solving Reshape's `-1`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MinusOne {
    /// The quotient in closed form.
    Exact(Dim),
    /// The quotient is not provably an integer: a fresh named dim `q` with the
    /// recorded relation `known * q == product`.
    Fresh {
        /// The fresh dim.
        dim: Dim,
        /// The quotient that could not be proven to be an integer.
        residual: DimExpr,
    },
}

impl Algebra {
    /// Does `d` divide `p`: is `d` never 0 and `p / d` an integer for every value?
    /// `Unknown` when `d` may be 0 (its bounds hold 0), whatever the quotient: then
    /// `p / d` cancels a factor that may vanish (`n*A / n` is `A` only where `n != 0`).
    /// A divisor that is the constant 0 divides only 0.
    pub fn divides(&self, d: Dim, p: Dim) -> Truth {
        match self.quotient(p, d) {
            (t, None) => t,
            (_, Some(_)) if !self.nonzero(d) => Truth::Unknown,
            (t, Some(_)) => t,
        }
    }

    /// True when `d` is never 0: its bounds exclude 0, also with derived symbols
    /// expanded.
    pub fn nonzero(&self, d: Dim) -> bool {
        let zero = Rat::zero();
        if !self.bounds(d).contains(&zero) {
            return true;
        }
        let expanded = self.expand_derived(self.canon(d));
        &expanded != self.canon(d)
            && !expanded
                .bounds(&self.egraph.analysis.symbols)
                .contains(&zero)
    }

    /// The quotient `p / d` as a canonical form and whether it is an integer where
    /// `d != 0` (whether `d` may be 0 is the caller's question). `None` when `d` is
    /// the constant 0; then the answer is whether `p` is 0.
    fn quotient(&self, p: Dim, d: Dim) -> (Truth, Option<Poly>) {
        let info = &self.egraph.analysis.symbols;
        let (pp, dp) = (self.canon(p), self.canon(d));
        if dp.is_zero() {
            return (
                if pp.is_zero() {
                    Truth::True
                } else {
                    Truth::False
                },
                None,
            );
        }
        let Some(q) = pp.div(dp) else {
            return (Truth::Unknown, None);
        };
        if q.int_divisor(info).is_some() {
            return (Truth::True, Some(q));
        }
        // q = (integer part) + r: a non-integer constant r proves it never divides.
        let (_, r) = q.split_multiple(&Rat::one(), info);
        if let Some(c) = r.as_const() {
            if !c.is_integer() {
                return (Truth::False, Some(q));
            }
        }
        // Expanding derived symbols may cancel the division.
        let eq = self.expand_derived(&q);
        if eq != q && eq.int_divisor(info).is_some() {
            return (Truth::True, Some(q));
        }
        (Truth::Unknown, Some(q))
    }

    /// Exact division: the quotient when `d` provably divides `p` ([`Algebra::divides`]:
    /// `d` is never 0 and the quotient is an integer), otherwise a typed error
    /// carrying the residual quotient. A divisor that may be 0 gives `NotDivisible`
    /// with `proven: false` (the residual may look like an integer: `n*A / n` has
    /// the residual `A`, valid only where `n != 0`), for the caller to record the
    /// condition; the constant 0 gives `DivisionByZero`.
    pub fn div(&mut self, p: Dim, d: Dim) -> Result<Dim, AlgebraError> {
        let (truth, q) = self.quotient(p, d);
        let Some(q) = q else {
            return Err(AlgebraError::DivisionByZero {
                dividend: self.expr(p),
            });
        };
        let truth = if self.nonzero(d) {
            truth
        } else {
            Truth::Unknown
        };
        match truth {
            Truth::True => Ok(self.from_poly(&q)),
            t => Err(AlgebraError::NotDivisible {
                dividend: self.expr(p),
                divisor: self.expr(d),
                residual: DimExpr::from_poly(q),
                proven: t == Truth::False,
            }),
        }
    }

    /// The quotient `p / d` when it is an integer wherever `d` is not 0, and whether
    /// `d` may be 0 (then the quotient holds only where it is not, and the caller
    /// records that it must not be). `None` when the quotient is not provably an
    /// integer or `d` is the constant 0. Unlike [`Algebra::div`], a divisor that may
    /// vanish still gives the quotient: `9*A / A` is `9` wherever it is defined.
    pub fn quotient_where_nonzero(&mut self, p: Dim, d: Dim) -> Option<(Dim, bool)> {
        match self.quotient(p, d) {
            (Truth::True, Some(q)) => {
                let may_be_zero = !self.nonzero(d);
                Some((self.from_poly(&q), may_be_zero))
            }
            _ => None,
        }
    }

    /// Solve Reshape's `-1`: `product(input) / product(known)`.
    ///
    /// Returns the quotient in closed form when it provably is an integer; a fresh
    /// dim (prefix `r`) with a recorded relation when it is not provably one; an
    /// error when it provably is not one or `known` is provably zero.
    ///
    /// A `-1` is defined only when the other entries multiply to a non-zero value
    /// (onnxruntime rejects the rest), so where `known` may be 0 the quotient is
    /// still exact, and the condition `1 <= known` is recorded as a requirement
    /// (kind `reshape`, [`Algebra::requirements`]) at the key's node. Likewise a
    /// quotient that is never an integer where `known != 0` is an error.
    pub fn solve_minus_one(
        &mut self,
        input: &[Dim],
        known: &[Dim],
        key: FreshKey,
    ) -> Result<MinusOne, AlgebraError> {
        let p = self.product(input);
        let k = self.product(known);
        let node = key.node.clone();
        let (truth, q) = self.quotient(p, k);
        let Some(q) = q else {
            return Err(AlgebraError::DivisionByZero {
                dividend: self.expr(p),
            });
        };
        match truth {
            Truth::True => {
                if !self.nonzero(k) {
                    let one = self.constant(1);
                    self.record_requirement(one, k, &node, "reshape");
                }
                Ok(MinusOne::Exact(self.from_poly(&q)))
            }
            Truth::False => Err(AlgebraError::NotDivisible {
                dividend: self.expr(p),
                divisor: self.expr(k),
                residual: DimExpr::from_poly(q),
                proven: true,
            }),
            Truth::Unknown => {
                let dim = self.fresh(
                    "r",
                    key,
                    SymbolKind::Derived {
                        definition: q.clone(),
                    },
                );
                let lhs = self.mul(k, dim);
                self.record_relation(lhs, p, &node);
                Ok(MinusOne::Fresh {
                    dim,
                    residual: DimExpr::from_poly(q),
                })
            }
        }
    }
}
