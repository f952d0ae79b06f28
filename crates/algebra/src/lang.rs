//! The e-graph language of dim expressions.
//!
//! One e-node per operator of the text grammar (`docs/grammar.md`). Constants are
//! exact rationals ([`Rat`]); symbols are named dims.
//!
//! | e-node | meaning |
//! | --- | --- |
//! | `Add`, `Sub`, `Mul` | `a + b`, `a - b`, `a * b` |
//! | `Div` | exact division `a / b` (a rational; an integer when `b` divides `a`) |
//! | `Neg` | `-a` |
//! | `FloorDiv`, `CeilDiv` | `floor(a / b)`, `ceil(a / b)` |
//! | `Mod` | `a - b*floor(a / b)` |
//! | `Min`, `Max` | `min(a, b)`, `max(a, b)` |
//! | `Broadcast` | numpy broadcasting of two dims |
//! | `Num` | an exact rational constant |
//! | `Sym` | a named dim |

// `define_language!` takes no doc comments on variants; the table above documents them.
#![allow(missing_docs)]

use super::rational::Rat;
use egg::{define_language, Id, Symbol};

define_language! {
    /// An e-node of a dim expression.
    pub enum DimLang {
        "+" = Add([Id; 2]),
        "-" = Sub([Id; 2]),
        "*" = Mul([Id; 2]),
        "/" = Div([Id; 2]),
        "neg" = Neg([Id; 1]),
        "floordiv" = FloorDiv([Id; 2]),
        "ceildiv" = CeilDiv([Id; 2]),
        "mod" = Mod([Id; 2]),
        "min" = Min([Id; 2]),
        "max" = Max([Id; 2]),
        "broadcast" = Broadcast([Id; 2]),
        Num(Rat),
        Sym(Symbol),
    }
}

impl DimLang {
    /// The e-node of a binary operator of the canonical form.
    pub fn op(kind: super::poly::OpKind, x: Id, y: Id) -> DimLang {
        use super::poly::OpKind;
        match kind {
            OpKind::FloorDiv => DimLang::FloorDiv([x, y]),
            OpKind::CeilDiv => DimLang::CeilDiv([x, y]),
            OpKind::Mod => DimLang::Mod([x, y]),
            OpKind::Min => DimLang::Min([x, y]),
            OpKind::Max => DimLang::Max([x, y]),
            OpKind::Broadcast => DimLang::Broadcast([x, y]),
            OpKind::Div => DimLang::Div([x, y]),
            OpKind::Mul => DimLang::Mul([x, y]),
        }
    }

    /// True for the operators the rewrite rules act on (the opaque atoms of the
    /// canonical form): `floordiv`, `ceildiv`, `mod`, `min`, `max`, `broadcast`.
    pub fn has_rules(&self) -> bool {
        matches!(
            self,
            DimLang::FloorDiv(_)
                | DimLang::CeilDiv(_)
                | DimLang::Mod(_)
                | DimLang::Min(_)
                | DimLang::Max(_)
                | DimLang::Broadcast(_)
        )
    }
}
