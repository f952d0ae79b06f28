//! What the algebra reports: typed errors carrying their operands, and warnings of
//! the deterministic limits it reached.

use crate::{poly, rules, Contradiction, DimExpr, ParseError};
use std::fmt;

/// Errors of algebra operations. Each carries its operands as values.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AlgebraError {
    /// Text did not parse.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// A division whose divisor is provably zero.
    #[error("division of {dividend} by zero")]
    DivisionByZero {
        /// The dividend.
        dividend: DimExpr,
    },
    /// An exact division that does not provably divide.
    #[error("need {divisor} | {dividend}; residual {residual}{}", if *.proven { " (proven not to divide)" } else { "" })]
    NotDivisible {
        /// The dividend.
        dividend: DimExpr,
        /// The divisor.
        divisor: DimExpr,
        /// The quotient that could not be proven to be an integer.
        residual: DimExpr,
        /// True when it provably never divides (for example a constant remainder).
        proven: bool,
    },
    /// Two sides asserted equal are provably different: the sides and why.
    #[error("{0}")]
    Contradiction(Box<Contradiction>),
    /// An expression past the algebra's size limits ([`crate::Limits`]): the algebra could
    /// hold it only as a placeholder symbol ([`AlgebraWarning::placeholder`]), which
    /// names no value, so there is no answer to give.
    #[error("too large for the algebra's limits: {warning}")]
    TooLarge {
        /// The warning that made the placeholder.
        warning: AlgebraWarning,
    },
}

impl AlgebraError {
    /// A [`AlgebraError::Contradiction`].
    pub fn contradiction(c: Contradiction) -> AlgebraError {
        AlgebraError::Contradiction(Box::new(c))
    }
}

/// A warning from the algebra (saturation limits).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AlgebraWarning {
    /// The rule-application limit stopped a saturation.
    RuleLimit {
        /// The limit that was reached.
        limit: usize,
        /// The expression being simplified.
        expr: DimExpr,
    },
    /// A product too large to expand was kept as an opaque product: the result is
    /// sound but no longer in canonical form (equal expressions may print differently).
    ProductTooLarge {
        /// The expression.
        expr: DimExpr,
    },
    /// A rule result much larger than the form it would replace was refused
    /// (`rules::GROWTH_FACTOR`, `rules::MAX_GROWTH`): the expression stays in the
    /// smaller, equally sound form.
    GrowthLimit {
        /// The expression whose rewrite was refused.
        expr: DimExpr,
    },
    /// A canonical form grew past `Limits::form_nodes`; the expression became a
    /// fresh dim.
    FormLimit {
        /// The limit that was reached.
        limit: usize,
        /// The fresh dim (a data-dependent symbol).
        fresh: DimExpr,
    },
    /// A canonical form nested operator atoms past [`poly::MAX_FORM_DEPTH`]
    /// levels; the expression became a fresh dim.
    DepthLimit {
        /// The limit that was reached.
        limit: usize,
        /// The fresh dim (a data-dependent symbol).
        fresh: DimExpr,
    },
    /// A canonical form held a constant of more than
    /// [`crate::rational::MAX_CONST_BITS`] bits; the expression became a fresh dim.
    ConstLimit {
        /// The limit that was reached (bits).
        limit: u64,
        /// The fresh dim (a data-dependent symbol).
        fresh: DimExpr,
    },
    /// The e-node limit was reached; the expression became a fresh dim.
    NodeLimit {
        /// The limit that was reached.
        limit: usize,
        /// The fresh dim (a data-dependent symbol).
        fresh: DimExpr,
    },
}

impl AlgebraWarning {
    /// The placeholder symbol a size limit put in place of an expression
    /// ([`AlgebraWarning::FormLimit`], [`AlgebraWarning::NodeLimit`]); `None` for the
    /// warnings whose result is the expression itself, only less simplified.
    ///
    /// A placeholder is a fresh symbol of its algebra, numbered from `big0` in each:
    /// two algebras can give the same name to different expressions.
    pub fn placeholder(&self) -> Option<&DimExpr> {
        match self {
            AlgebraWarning::FormLimit { fresh, .. }
            | AlgebraWarning::DepthLimit { fresh, .. }
            | AlgebraWarning::ConstLimit { fresh, .. }
            | AlgebraWarning::NodeLimit { fresh, .. } => Some(fresh),
            AlgebraWarning::RuleLimit { .. }
            | AlgebraWarning::ProductTooLarge { .. }
            | AlgebraWarning::GrowthLimit { .. } => None,
        }
    }
}

impl fmt::Display for AlgebraWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AlgebraWarning::RuleLimit { limit, expr } => {
                write!(
                    f,
                    "saturation stopped after {limit} rule applications while simplifying {expr}"
                )
            }
            AlgebraWarning::ProductTooLarge { expr } => {
                write!(
                    f,
                    "a product too large to expand (over {} terms) stays unexpanded: {expr}",
                    poly::MAX_TERMS
                )
            }
            AlgebraWarning::GrowthLimit { expr } => {
                write!(
                    f,
                    "a rewrite of {expr} to a form over {} times its size was refused",
                    rules::GROWTH_FACTOR
                )
            }
            AlgebraWarning::FormLimit { limit, fresh } => {
                write!(
                    f,
                    "an expression grew past {limit} nodes; it became the fresh dim {fresh}"
                )
            }
            AlgebraWarning::DepthLimit { limit, fresh } => {
                write!(
                    f,
                    "an expression nested operators past {limit} levels (MAX_FORM_DEPTH); it became the fresh dim {fresh}"
                )
            }
            AlgebraWarning::ConstLimit { limit, fresh } => {
                write!(
                    f,
                    "a constant grew past {limit} bits (MAX_CONST_BITS); it became the fresh dim {fresh}"
                )
            }
            AlgebraWarning::NodeLimit { limit, fresh } => {
                write!(f, "the e-graph reached {limit} e-nodes; the expression became the fresh dim {fresh}")
            }
        }
    }
}
