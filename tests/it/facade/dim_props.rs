//! Property tests of `DimExpr` as a value type: its arithmetic (`+ - *`, negation,
//! sums and products) and its simplifying operations (`floordiv`, `ceildiv`,
//! `modulo`, `min`, `max`, `broadcast`), and `Shapes::simplify` under two models'
//! facts (bound values, an assumed bound, dims a MatMul merged, input symbols from 0
//! or from 1), against the independent reference evaluator
//! `parse_expr(text).eval(env)`.
//!
//! Expressions are generated as a small tree, built once with `DimExpr`'s operations
//! (each call simplifies as it goes) and printed once as text for the reference.
//! Every case samples assignments of the symbols from 0 (the edge dims take: 0 and 1
//! among them) and compares values wherever the reference is defined: a
//! simplification may only make an undefined expression (a division by zero)
//! defined, never change a value.

use crate::common;

use common::pb;
use proptest::prelude::*;
use std::sync::OnceLock;
use symdim::algebra::parse::parse_expr;
use symdim::algebra::{Config, Rat};
use symdim::{DimExpr, EvalError, Facts, Model, Shapes, SymbolValues};

/// A generated expression.
#[derive(Clone, Debug)]
enum E {
    Sym(&'static str),
    Num(i64),
    Add(Box<E>, Box<E>),
    Sub(Box<E>, Box<E>),
    Mul(Box<E>, Box<E>),
    Neg(Box<E>),
    Call(&'static str, Box<E>, Box<E>),
}

impl E {
    /// The text the reference evaluator reads.
    fn text(&self) -> String {
        match self {
            E::Sym(s) => (*s).to_string(),
            E::Num(n) if *n < 0 => format!("({n})"),
            E::Num(n) => n.to_string(),
            E::Add(a, b) => format!("({} + {})", a.text(), b.text()),
            E::Sub(a, b) => format!("({} - {})", a.text(), b.text()),
            E::Mul(a, b) => format!("({} * {})", a.text(), b.text()),
            E::Neg(a) => format!("(-{})", a.text()),
            E::Call(f, a, b) => format!("{f}({}, {})", a.text(), b.text()),
        }
    }

    /// The dim, built with `DimExpr`'s operations; `mode` picks owned, borrowed or
    /// mixed operands and the assigning forms, which must all agree.
    fn dim(&self, mode: u8) -> DimExpr {
        match self {
            E::Sym(s) => DimExpr::symbol(s),
            E::Num(n) => DimExpr::constant(*n),
            E::Add(a, b) => match (mode % 4, &**b) {
                (0, _) => a.dim(mode) + b.dim(mode),
                (1, E::Num(n)) => *n + a.dim(mode),
                (1, _) => &a.dim(mode) + &b.dim(mode),
                (2, E::Num(n)) => &a.dim(mode) + *n,
                (2, _) => a.dim(mode) + &b.dim(mode),
                _ => {
                    let mut d = a.dim(mode);
                    d += b.dim(mode);
                    d
                }
            },
            E::Sub(a, b) => match (mode % 4, &**b) {
                (0, _) => a.dim(mode) - b.dim(mode),
                (1, E::Num(n)) => a.dim(mode) - *n,
                (1, _) => &a.dim(mode) - b.dim(mode),
                (2, _) => {
                    let mut d = a.dim(mode);
                    d -= &b.dim(mode);
                    d
                }
                _ => -(b.dim(mode) - a.dim(mode)),
            },
            E::Mul(a, b) => match (mode % 4, &**a) {
                (0, _) => a.dim(mode) * b.dim(mode),
                (1, E::Num(n)) => *n * &b.dim(mode),
                (1, _) => &a.dim(mode) * &b.dim(mode),
                (2, _) => [a.dim(mode), b.dim(mode)].into_iter().product(),
                _ => {
                    let mut d = a.dim(mode);
                    d *= b.dim(mode);
                    d
                }
            },
            E::Neg(a) => {
                if mode % 2 == 0 {
                    -a.dim(mode)
                } else {
                    -&a.dim(mode)
                }
            }
            E::Call(f, a, b) => {
                let (x, y) = (a.dim(mode), b.dim(mode));
                match *f {
                    "floordiv" => x.floordiv(&y),
                    "ceildiv" => x.ceildiv(y),
                    "mod" => x.modulo(&y),
                    "min" => x.min(y),
                    "max" => x.max(&y),
                    _ => x.broadcast(y),
                }
            }
        }
    }
}

fn bx(e: E) -> Box<E> {
    Box::new(e)
}

const SYMS: [&str; 3] = ["A", "B", "C"];

/// Expressions over `A`, `B`, `C` and small constants, with every operation.
fn expr() -> impl Strategy<Value = E> {
    expr_over(&SYMS)
}

/// Expressions over `syms` and small constants, with every operation.
fn expr_over(syms: &'static [&'static str]) -> impl Strategy<Value = E> {
    let leaf = prop_oneof![
        3 => prop::sample::select(syms).prop_map(E::Sym),
        2 => (-3i64..7).prop_map(E::Num),
    ];
    leaf.prop_recursive(4, 24, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Add(bx(a), bx(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Sub(bx(a), bx(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Mul(bx(a), bx(b))),
            inner.clone().prop_map(|a| E::Neg(bx(a))),
            (
                prop::sample::select(vec![
                    "floordiv",
                    "ceildiv",
                    "mod",
                    "min",
                    "max",
                    "broadcast"
                ]),
                inner.clone(),
                inner,
            )
                .prop_map(|(f, a, b)| E::Call(f, bx(a), bx(b))),
        ]
    })
}

/// A value of a symbol from 0: the edges 0, 1, 2 and the bound 512 of the models'
/// facts (and one past it) among them.
fn value() -> impl Strategy<Value = i64> {
    prop_oneof![Just(0i64), Just(1), Just(2), Just(512), Just(513), 0i64..30]
}

/// Assignments of `A`, `B`, `C` from 0, the edges 0, 1 and 2 among them.
fn assignments() -> impl Strategy<Value = Vec<[i64; 3]>> {
    prop::collection::vec(prop::array::uniform3(value()), 12)
}

/// The reference value of `e` at `values`, or `None` where it is undefined.
fn reference_at(e: &E, values: &SymbolValues) -> Option<Rat> {
    let env = |s: &str| values.get(s).map(Rat::int);
    parse_expr(&e.text()).unwrap().eval(&env)
}

/// The reference value of `e` at `at` (values of `A`, `B`, `C`).
fn reference(e: &E, at: &[i64; 3]) -> Option<Rat> {
    reference_at(e, &values(at))
}

fn values(at: &[i64; 3]) -> SymbolValues {
    SymbolValues::new()
        .with("A", at[0])
        .with("B", at[1])
        .with("C", at[2])
}

/// `examples/attention.onnx` (inputs `[batch, sequence, 64]`) with `batch` bound to 4
/// and `sequence <= 512`; its input symbols are at least 1.
fn attention() -> &'static Shapes<'static> {
    static MODEL: OnceLock<Model> = OnceLock::new();
    static SHAPES: OnceLock<Shapes<'static>> = OnceLock::new();
    SHAPES.get_or_init(|| {
        let model = MODEL.get_or_init(|| {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/attention.onnx");
            symdim::load(std::path::Path::new(path)).unwrap()
        });
        let facts = Facts::new().bind("batch", 4).assume("sequence <= 512");
        let shapes = symdim::infer(model, &facts);
        assert!(!shapes.has_errors(), "{:?}", shapes.diagnostics());
        shapes
    })
}

/// The symbols of [`attention`], and the symbols of [`matmul`].
const ATTENTION_SYMS: [&str; 2] = ["batch", "sequence"];
const MATMUL_SYMS: [&str; 4] = ["M", "K1", "K2", "N"];

/// A MatMul of `a: [M, K1]` by `b: [K2, N]`, whose rule merges `K1` with `K2`, with
/// input symbols that may be 0 (`input_lower` 0), `N` bound to 3 and `M <= 512`.
fn matmul() -> &'static Shapes<'static> {
    static MODEL: OnceLock<Model> = OnceLock::new();
    static SHAPES: OnceLock<Shapes<'static>> = OnceLock::new();
    SHAPES.get_or_init(|| {
        let model = MODEL.get_or_init(|| {
            symdim::load_bytes(&pb::matmul_model(), "mm.onnx", &Default::default()).unwrap()
        });
        let config = Config {
            input_lower: Rat::zero(),
            ..Config::default()
        };
        let facts = Facts::new()
            .with_config(config)
            .bind("N", 3)
            .assume("M <= 512");
        let shapes = symdim::infer(model, &facts);
        assert!(!shapes.has_errors(), "{:?}", shapes.diagnostics());
        shapes
    })
}

/// `Shapes::simplify` of `e` under `shapes`' facts keeps the value at each of
/// `assignments` (each allowed by the facts), its answer is a fixed point, and
/// `Shapes::bounds` holds the value.
fn simplify_keeps_values(
    shapes: &Shapes<'_>,
    e: &E,
    assignments: &[SymbolValues],
) -> Result<(), TestCaseError> {
    let s = shapes.simplify(&e.dim(0));
    prop_assert_eq!(shapes.simplify(&s), s.clone());
    let known = shapes.symbols();
    for name in s.symbols() {
        prop_assert!(known.contains_key(&name), "{} names {}", s, name);
    }
    let bounds = shapes.bounds(&s);
    for at in assignments {
        let Some(want) = reference_at(e, at) else {
            continue;
        };
        let got = s.eval(at);
        match want.to_i64() {
            Some(v) => {
                prop_assert_eq!(got, Ok(v), "{} -> {} at {:?}", e.text(), s, at);
                prop_assert!(
                    bounds.contains(&want),
                    "{} outside {:?} at {:?}",
                    s,
                    bounds,
                    at
                );
            }
            None => prop_assert!(got.is_err(), "{} -> {} at {:?}", e.text(), s, at),
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Every way of writing the arithmetic gives the same canonical form, and the
    /// dim (simplified as it was built) has the reference's value wherever that is
    /// defined, for symbol values from 0.
    #[test]
    fn operations_keep_values(e in expr(), ats in assignments()) {
        let d = e.dim(0);
        for mode in 1..4 {
            prop_assert_eq!(&e.dim(mode), &d, "mode {}: {}", mode, e.text());
        }
        for at in &ats {
            let Some(want) = reference(&e, at) else { continue };
            let got = d.eval(&values(at));
            match want.to_i64() {
                Some(v) => prop_assert_eq!(got, Ok(v), "{} -> {} at {:?}", e.text(), d, at),
                None => prop_assert!(got.is_err(), "{} -> {} at {:?}", e.text(), d, at),
            }
        }
    }

    /// `Shapes::simplify` under a model's facts (`batch` bound to 4, `sequence`
    /// from 1 to 512) keeps the value at every assignment the facts allow, over the
    /// model's own symbols, so that the dims its algebra holds, the bound value and
    /// the assumed bound are used.
    #[test]
    fn shapes_simplify_keeps_values(
        e in expr_over(&ATTENTION_SYMS),
        seqs in prop::collection::vec(value(), 12),
    ) {
        let ats: Vec<SymbolValues> = seqs
            .iter()
            .map(|&v| SymbolValues::new().with("batch", 4).with("sequence", v.clamp(1, 512)))
            .collect();
        simplify_keeps_values(attention(), &e, &ats)?;
    }

    /// The same under a MatMul's merged dims: `K2` is `K1` (inference assumed it),
    /// `N` is bound to 3, `M` is at most 512, and input symbols may be 0.
    #[test]
    fn shapes_simplify_keeps_values_of_merged_dims(
        e in expr_over(&MATMUL_SYMS),
        ats in prop::collection::vec((value(), value()), 12),
    ) {
        let ats: Vec<SymbolValues> = ats
            .iter()
            .map(|&(m, k)| {
                SymbolValues::new()
                    .with("M", m.min(512))
                    .with("K1", k)
                    .with("K2", k)
                    .with("N", 3)
            })
            .collect();
        simplify_keeps_values(matmul(), &e, &ats)?;
    }
}

/// The models' facts are what the properties above assume: the bound value, the
/// assumed bound and the merged dims are known to the queries.
#[test]
fn the_models_facts_are_known() {
    use symdim::Truth;
    let (a, m) = (attention(), matmul());
    let sym = DimExpr::symbol;
    assert_eq!(
        a.simplify(&(sym("batch") * sym("sequence"))).to_string(),
        "4*sequence"
    );
    assert_eq!(a.le(&sym("sequence"), &DimExpr::constant(512)), Truth::True);
    assert_eq!(a.le(&DimExpr::constant(1), &sym("sequence")), Truth::True);
    assert_eq!(m.equal(&sym("K1"), &sym("K2")), Truth::True);
    assert_eq!(
        m.simplify(&(sym("K2") - sym("K1") + sym("N"))),
        DimExpr::constant(3)
    );
    assert_eq!(m.le(&sym("M"), &DimExpr::constant(512)), Truth::True);
    // Input symbols may be 0 here: `max(M, 0)` is `M`, `max(M, 1)` stays.
    assert_eq!(m.simplify(&sym("M").max(0)), sym("M"));
    assert_eq!(m.simplify(&sym("M").max(1)).to_string(), "max(M, 1)");
    assert_eq!(a.simplify(&sym("sequence").max(1)), sym("sequence"));
}

/// What the documentation of `DimExpr` promises, each checked by hand: the
/// arithmetic collects and expands, the simplifying operations fold constants and
/// use that symbols are at least 0, and `==` compares forms.
#[test]
fn documented_simplifications() {
    let s = DimExpr::symbol("S");
    let (a, b) = (DimExpr::symbol("A"), DimExpr::symbol("B"));
    let text = |d: &DimExpr| d.to_string();
    assert_eq!(text(&((&s + 1) * 2 - &s)), "S + 2");
    assert_eq!(&s - &s, DimExpr::constant(0));
    assert_eq!(text(&(a.min(&b) + 1)), "min(A, B) + 1");
    assert_eq!(DimExpr::constant(7).floordiv(2), DimExpr::constant(3));
    assert_eq!(DimExpr::constant(7).ceildiv(2), DimExpr::constant(4));
    assert_eq!(DimExpr::constant(-7).modulo(3), DimExpr::constant(2));
    assert_eq!((4 * &s).floordiv(2), 2 * &s);
    assert_eq!(s.max(0), s);
    assert_eq!(s.min(&s + 2), s);
    // At S = -1, max(S, 0) is 0, not S: the rewrite is for dims, never negative.
    // Where names may be negative, the form stays; its values are still dims'
    // (evaluating at S = -1 is an error).
    let negative = Config {
        input_lower: Rat::int(-5),
        ..Config::default()
    };
    let raw = DimExpr::parse_with("max(S, 0)", &negative).unwrap();
    assert_ne!(raw, s);
    assert_eq!(
        raw.eval(&SymbolValues::new().with("S", -1)),
        Err(EvalError::Negative {
            symbol: "S".to_string(),
            value: -1
        })
    );
    assert_eq!(raw.eval(&SymbolValues::new().with("S", 0)), Ok(0));
    assert_eq!(raw.eval(&SymbolValues::new().with("S", 3)), Ok(3));
    // A division by a constant 0 stays as written, undefined.
    let by_zero = s.floordiv(0);
    assert_eq!(text(&by_zero), "floordiv(S, 0)");
    assert!(by_zero.eval(&SymbolValues::new().with("S", 3)).is_err());
    // Without a rule that relates them, equal values can have different forms.
    let other = &a + &b - a.max(&b);
    assert_ne!(a.min(&b), other);
    for (x, y) in [(0, 0), (0, 3), (5, 2), (4, 4)] {
        let at = SymbolValues::new().with("A", x).with("B", y);
        assert_eq!(a.min(&b).eval(&at), other.eval(&at));
    }
    // Sums and products over owned and borrowed dims.
    let dims = [s.clone(), DimExpr::constant(3), s.clone()];
    assert_eq!(text(&dims.iter().sum::<DimExpr>()), "2*S + 3");
    assert_eq!(text(&dims.iter().product::<DimExpr>()), "3*S*S");
    assert_eq!(dims.clone().into_iter().sum::<DimExpr>(), dims.iter().sum());
    assert_eq!(
        dims.clone().into_iter().product::<DimExpr>(),
        dims.iter().product()
    );
    assert_eq!(
        std::iter::empty::<DimExpr>().product::<DimExpr>(),
        DimExpr::constant(1)
    );
}
