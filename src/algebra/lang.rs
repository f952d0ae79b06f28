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
