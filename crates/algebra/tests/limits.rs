//! The algebra's named limits, each crossed by a ladder of doubling sizes (or by
//! value-sized inputs): below a limit the answer is exact and checked against a
//! hand derivation; past it the answer is an error or a warning naming the limit,
//! or "unknown", never a wrong value and never a crash. No test measures time.

use symdim_algebra::parse::{parse_expr, MAX_EXPR_NODES, MAX_NESTING};
use symdim_algebra::poly::{MAX_EXPONENT, MAX_FORM_DEPTH, POWER_ABOVE};
use symdim_algebra::rational::MAX_CONST_BITS;
use symdim_algebra::{
    solve, Algebra, AlgebraError, AlgebraWarning, DimExpr, EvalError, Rat, SymbolValues,
};

/// `sep`-joined `n` copies of `item(i)`.
fn chain(n: usize, sep: &str, item: impl Fn(usize) -> String) -> String {
    (0..n).map(item).collect::<Vec<_>>().join(sep)
}

/// The `expected` text of a parse error past a limit.
fn parse_error(alg: &mut Algebra, text: &str) -> String {
    match alg.parse(text) {
        Err(AlgebraError::Parse(e)) => e.expected.to_string(),
        Err(e) => panic!("not a parse error: {e}"),
        Ok(d) => panic!("parsed: {}", alg.render(d)),
    }
}

fn has_warning(alg: &Algebra, pick: impl Fn(&AlgebraWarning) -> bool) -> bool {
    alg.warnings().iter().any(pick)
}

#[test]
fn flat_sums_of_one_symbol_up_to_the_node_limit_and_past_it() {
    // `a + a + ... + a` (n terms) is 2n - 1 nodes: 65,536 terms fit, 131,072 do not.
    for n in [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 65_536, 131_072] {
        let text = chain(n, " + ", |_| "a".into());
        let mut alg = Algebra::default();
        if 2 * n - 1 <= MAX_EXPR_NODES {
            let d = alg.parse(&text).unwrap();
            assert_eq!(alg.render(d), format!("{n}*a"), "n = {n}");
        } else {
            assert!(
                parse_error(&mut alg, &text).contains("MAX_EXPR_NODES"),
                "n = {n}"
            );
        }
    }
}

#[test]
fn flat_sums_of_distinct_symbols_build_and_stay_within_the_form_limit() {
    // `a0 + a1 + ...`: exact while the form is within `Limits::form_nodes`
    // (16,384), a fresh dim with a warning past it; never a crash.
    for n in [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 65_536, 131_072] {
        let text = chain(n, " + ", |i| format!("a{i}"));
        let mut alg = Algebra::default();
        if 2 * n - 1 > MAX_EXPR_NODES {
            assert!(parse_error(&mut alg, &text).contains("MAX_EXPR_NODES"));
            continue;
        }
        let d = alg.parse(&text).unwrap();
        let canon = alg.canon(d).clone();
        // A sum of n symbols is 2n nodes (n terms, n factors).
        if 2 * n <= alg.config().limits.form_nodes {
            assert_eq!(canon.0.len(), n, "n = {n}: every symbol is a term");
            let env = |s: &str| s[1..].parse::<i64>().ok().map(Rat::int);
            let want = (n as i64) * (n as i64 - 1) / 2;
            assert_eq!(alg.eval(d, &env), Some(Rat::int(want)), "n = {n}");
        } else {
            assert!(
                has_warning(&alg, |w| matches!(w, AlgebraWarning::FormLimit { .. })),
                "n = {n}: past the form limit"
            );
        }
    }
}

#[test]
fn flat_products_and_differences_are_exact() {
    for n in [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 65_536] {
        let mut alg = Algebra::default();
        // a*a*...: a power; past MAX_EXPONENT an opaque product, same value.
        let d = alg.parse(&chain(n, "*", |_| "a".into())).unwrap();
        let at2 = alg.eval(d, &|_| Some(Rat::int(1)));
        assert_eq!(at2, Some(Rat::int(1)), "n = {n}");
        if n <= MAX_EXPONENT as usize {
            assert_eq!(alg.render(d), format!("a**{n}"), "n = {n}");
        }
        // a - a - a ...: (2 - n)*a, built as (a) - (sum of the rest).
        let d = alg.parse(&chain(n, " - ", |_| "a".into())).unwrap();
        assert_eq!(alg.render(d), format!("-{}*a", n - 2), "n = {n}");
        // s/2/2/...: one division chain of a long `/` spine.
        let d = alg
            .parse(&format!("s{}", "/2".repeat(n.min(64) + 1)))
            .unwrap();
        assert_eq!(
            alg.eval(d, &|_| Some(Rat::pow2(70))),
            Some(Rat::pow2(70 - (n.min(64) + 1) as u32)),
        );
    }
}

#[test]
fn a_long_chain_dividing_by_a_constant_zero_is_an_error() {
    let text = format!("{}/0*s", chain(100, "*", |i| format!("a{i}")));
    let mut alg = Algebra::default();
    assert!(matches!(
        alg.parse(&text),
        Err(AlgebraError::DivisionByZero { .. })
    ));
}

#[test]
fn nested_powers_count_their_copies() {
    // `(((a**2)**2)...)**2`, depth 1..6: a**(2^depth), exact.
    let power = |e: u32| {
        if e > POWER_ABOVE {
            format!("a**{e}")
        } else {
            chain(e as usize, "*", |_| "a".into())
        }
    };
    for depth in 1..=6u32 {
        let text = (0..depth).fold("a".to_string(), |t, _| format!("({t})**2"));
        let mut alg = Algebra::default();
        let d = alg.parse(&text).unwrap();
        assert_eq!(alg.render(d), power(1 << depth), "depth {depth}");
    }
    // `((a**64)**64)...`: 4096 copies fit; 262,144 are past MAX_EXPR_NODES, at
    // parse time, whatever the depth.
    for depth in 1..=6u32 {
        let text = (0..depth).fold("a".to_string(), |t, _| format!("({t})**64"));
        let mut alg = Algebra::default();
        if depth <= 2 {
            let d = alg.parse(&text).unwrap();
            assert_eq!(alg.render(d), power(64u32.pow(depth)));
        } else {
            assert!(parse_error(&mut alg, &text).contains("MAX_EXPR_NODES"));
        }
    }
    let mut alg = Algebra::default();
    assert!(parse_error(&mut alg, "a**4097").contains("MAX_EXPONENT"));
    assert!(alg.parse("a**4096").is_ok());
}

#[test]
fn constants_past_the_bit_limit() {
    let mut alg = Algebra::default();
    // Literals: 2^4096 - 1 has 4096 bits and parses; 2^4096 does not.
    let max = Rat::pow2(MAX_CONST_BITS as u32).sub(&Rat::one());
    let d = alg.parse(&max.to_string()).unwrap();
    assert_eq!(alg.as_const(d), Some(max));
    let over = Rat::pow2(MAX_CONST_BITS as u32).to_string();
    assert!(parse_error(&mut alg, &over).contains("MAX_CONST_BITS"));
    // 1,000 digits are about 3,322 bits; longer literals are refused without
    // being converted: 2k .. 128k digits.
    assert!(alg.parse(&"9".repeat(1_000)).is_ok());
    for digits in [2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000] {
        let text = "9".repeat(digits);
        let mut alg = Algebra::default();
        assert!(parse_error(&mut alg, &text).contains("MAX_CONST_BITS"));
        // Leading zeros do not count.
        assert!(alg.parse(&format!("{}7", "0".repeat(digits))).is_ok());
    }
    // Folding: (2**64)**63 is 2^4032; (2**64)**64 = 2^4096 has 4097 bits and
    // becomes a fresh dim with a warning naming the limit.
    let mut alg = Algebra::default();
    let d = alg.parse("(2**64)**63").unwrap();
    assert_eq!(alg.as_const(d), Some(Rat::pow2(4032)));
    let d = alg.parse("(2**64)**64").unwrap();
    assert_eq!(alg.as_const(d), None);
    assert!(has_warning(&alg, |w| matches!(
        w,
        AlgebraWarning::ConstLimit { limit, .. } if *limit == MAX_CONST_BITS
    )));
    // Products of n factors 2**64: exact to 63 factors, then fresh dims; past
    // 1,016 factors (129 nodes each with its `*`) the text is past MAX_EXPR_NODES.
    for n in [
        16, 32, 63, 64, 128, 256, 512, 1016, 1017, 2048, 4096, 8192, 16384,
    ] {
        let mut alg = Algebra::default();
        let text = chain(n, "*", |_| "2**64".into());
        if 129 * n - 1 > MAX_EXPR_NODES {
            assert!(parse_error(&mut alg, &text).contains("MAX_EXPR_NODES"));
            continue;
        }
        let d = alg.parse(&text).unwrap();
        if 64 * n < MAX_CONST_BITS as usize {
            assert_eq!(alg.as_const(d), Some(Rat::pow2(64 * n as u32)), "n = {n}");
        } else {
            assert_eq!(alg.as_const(d), None, "n = {n}");
            assert!(has_warning(&alg, |w| matches!(
                w,
                AlgebraWarning::ConstLimit { .. }
            )));
        }
    }
}

#[test]
fn evaluation_stops_at_the_bit_limit() {
    let values = |v: i64| SymbolValues::new().with("N", v);
    let sq = DimExpr::parse("N*N").unwrap();
    assert_eq!(sq.eval(&values(1 << 31)), Ok(1 << 62));
    for v in [1i64 << 31, 1 << 53, 1 << 62, i64::MAX] {
        // N*N fits 128 bits: a value, but not an i64 past 2^31.
        if v > 1 << 31 {
            assert!(matches!(
                sq.eval(&values(v)),
                Err(EvalError::NotAnInteger { .. })
            ));
        }
        // N**4096 at these values has more than 4096 bits.
        let big = DimExpr::parse("N**4096 - N").unwrap();
        assert!(
            matches!(big.eval(&values(v)), Err(EvalError::TooLarge { .. })),
            "N = {v}"
        );
    }
    // Within the limit the value is exact: 2**4095 - 2**4095 + N.
    let e = DimExpr::parse("(2*N)**4095 - (2*N)**4095 + N").unwrap();
    assert_eq!(e.eval(&values(1)), Ok(1));
}

#[test]
fn shared_atoms_are_evaluated_once() {
    // x_{k+1} = x_k * x_k past MAX_EXPONENT is an opaque product of two copies of
    // one atom: a tree of 2^k evaluations without memoising, one per level with it.
    // At N = 1 every value is 1, so the bit limit never stops it.
    let mut alg = Algebra::default();
    let mut d = alg.parse("N + 1").unwrap();
    for _ in 0..40 {
        d = alg.mul(d, d);
    }
    let at = |v: i64| move |s: &str| (s == "N").then(|| Rat::int(v));
    // At N = 0 every value is 1 (a fresh dim past a limit has no value).
    let v = alg.eval(d, &at(0));
    assert!(v.is_none() || v == Some(Rat::one()), "{v:?}");
    // At N = 2^31, (2^31 + 1)^(2^40) is past any limit: no value.
    assert_eq!(alg.eval(d, &at(1 << 31)), None);
    // N**4096 by twelve squarings: exact at N = 1, too large at N = 2.
    let mut alg = Algebra::default();
    let mut d = alg.parse("N").unwrap();
    for _ in 0..12 {
        d = alg.mul(d, d);
    }
    assert_eq!(alg.render(d), "N**4096");
    assert_eq!(alg.eval(d, &at(1)), Some(Rat::one()));
    assert_eq!(alg.eval(d, &at(2)), None, "2^4096 has 4097 bits");
}

#[test]
fn the_solver_gives_up_on_huge_powers() {
    // `N**(2**k) - 1000 >= 0`, k = 1 .. 12: solved exactly while the powers are
    // small enough to evaluate; past the bit limit "unknown" (None), never wrong.
    let n = egg::Symbol::from("N");
    for k in 1..=12u32 {
        let mut alg = Algebra::default();
        let d = alg.parse(&format!("N**{} - 1000", 1u32 << k)).unwrap();
        let p = alg.canon(d).clone();
        let got = solve::solve_single_symbol(&p, n, false);
        // Smallest N >= 1 with N^(2^k) >= 1000.
        let e = 1u32 << k;
        let want = (1..=1000i64)
            .find(|&v| (v as f64).powi(e as i32) >= 1000.0)
            .map(|lo| (lo, None));
        assert!(got.is_none() || got == want, "k = {k}: {got:?}");
        if k <= 3 {
            assert_eq!(got, want, "k = {k}");
        }
    }
}

#[test]
fn no_form_nests_deeper_than_the_form_depth() {
    // max(max(S + 1, B0) + 1, B1) ...: depth d, each level an operator atom.
    for depth in [8, 16, 32, 64, 65, 128, 199] {
        let mut text = "S".to_string();
        for i in 0..depth {
            text = format!("max({text} + 1, B{i})");
        }
        let mut alg = Algebra::default();
        let d = alg.parse(&text).unwrap();
        let deep = has_warning(
            &alg,
            |w| matches!(w, AlgebraWarning::DepthLimit { limit, .. } if *limit == MAX_FORM_DEPTH),
        );
        let m = alg.canon(d).measure(usize::MAX);
        assert!(m.depth <= MAX_FORM_DEPTH, "depth {depth}: {m:?}");
        assert_eq!(deep, depth > MAX_FORM_DEPTH, "depth {depth}");
        // Below the limit the value is exact: at all ones each level adds 1.
        let ones = |s: &str| {
            (s == "S" || s.starts_with('B') && s[1..].parse::<u32>().is_ok()).then(Rat::one)
        };
        let v = alg.eval(d, &ones);
        if deep {
            assert_eq!(v, None, "a fresh dim has no value");
        } else {
            assert_eq!(v, Some(Rat::int(depth as i64 + 1)));
        }
    }
    // Text nesting itself stops at MAX_NESTING.
    let text = format!(
        "{}S{}",
        "floordiv(".repeat(MAX_NESTING + 1),
        ", 2)".repeat(MAX_NESTING + 1)
    );
    let mut alg = Algebra::default();
    assert!(parse_error(&mut alg, &text).contains("nesting"));
}

#[test]
fn expressions_drop_print_and_evaluate_without_recursion() {
    // A 65,535-term chain parsed into an Expr is printed, evaluated and dropped
    // on a test thread's stack (2 MiB).
    for n in [16_000, 32_000, 65_535] {
        let e = parse_expr(&chain(n, " - ", |_| "a".into())).unwrap();
        let text = e.to_string();
        assert_eq!(text.matches('a').count(), n);
        assert_eq!(e.eval(&|_| Some(Rat::one())), Some(Rat::int(2 - n as i64)));
    }
}
