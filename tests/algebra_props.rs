//! Property tests of the dim algebra against the independent reference evaluator
//! `parse_expr(text).eval(env)`.
//!
//! Regression tests of cases the properties found come first; the properties
//! follow.

use std::collections::HashMap;
use symdim::algebra::parse::parse_expr;
use symdim::algebra::{Algebra, Expr, Rat, Truth};

type Env = HashMap<String, Rat>;

fn parsed(text: &str) -> Expr {
    parse_expr(text).unwrap_or_else(|e| panic!("`{text}` does not parse: {e}"))
}

fn eval_expr(e: &Expr, env: &Env) -> Option<Rat> {
    e.eval(&|s| env.get(s).cloned())
}

fn eval(text: &str, env: &Env) -> Option<Rat> {
    eval_expr(&parsed(text), env)
}

fn show(env: &Env) -> String {
    let mut v: Vec<_> = env.iter().map(|(k, v)| format!("{k}={v}")).collect();
    v.sort();
    v.join(" ")
}

/// Wherever `original` is defined, `simplified` is defined with the same value.
fn assert_same_values(original: &str, simplified: &str, envs: &[Env]) {
    let (o, s) = (parsed(original), parsed(simplified));
    for env in envs {
        let Some(want) = eval_expr(&o, env) else {
            continue;
        };
        let got = eval_expr(&s, env);
        assert_eq!(
            got.as_ref(),
            Some(&want),
            "`{original}` simplified to `{simplified}`, wrong at {}",
            show(env)
        );
    }
}

fn simplify_text(alg: &mut Algebra, text: &str) -> String {
    let d = alg.parse(text).unwrap_or_else(|e| panic!("`{text}`: {e}"));
    alg.simplify(d)
}

// ----- regressions: cases the properties found, checked on a whole grid -----------

/// Every assignment of `names` in `lo..=hi`.
fn grid(names: &[&str], lo: i64, hi: i64) -> Vec<Env> {
    let mut out: Vec<Env> = vec![Env::new()];
    for n in names {
        out = out
            .into_iter()
            .flat_map(|env| {
                (lo..=hi).map(move |v| {
                    let mut e = env.clone();
                    e.insert((*n).to_string(), Rat::int(v));
                    e
                })
            })
            .collect();
    }
    out
}

fn assert_sound_on_grid(alg: &mut Algebra, text: &str, names: &[&str], lo: i64, hi: i64) -> String {
    let out = simplify_text(alg, text);
    assert_same_values(text, &out, &grid(names, lo, hi));
    out
}

/// `mod` of rationals reaches past `divisor - 1`: `mod(35/3, 3) = 8/3`. Its bounds
/// were `[0, divisor - 1]`, so `max(mod(S/3, 3), 2*C)` became `2*C`.
#[test]
fn regression_mod_bounds_of_rationals() {
    let mut alg = Algebra::default();
    for text in [
        "max(mod(S/3, 3), 2*C)/S",
        "max(mod(A/2, 1), 1/4)",
        "floordiv(4*mod(A/2, 1), 1)",
        "min(mod(S/2, 2), 1)",
        "mod(mod(S/3, 3), 3)",
        "floordiv(mod(S/2, -2), -2)",
    ] {
        assert_sound_on_grid(&mut alg, text, &["A", "C", "S"], 1, 12);
    }
    // Integer operands keep the tight bound.
    assert_eq!(simplify_text(&mut alg, "floordiv(mod(S, 4), 4)"), "0");
    assert_eq!(simplify_text(&mut alg, "min(mod(S, 4), 3)"), "mod(S, 4)");
}

/// Strict facts assumed integer values: `N > 5/2` gave `N >= 4` (N = 3 satisfies
/// it), `N < 7/2` gave `N <= 2`, and `A/2 - B/3 > S` gave `A/2 - B/3 - S >= 1`.
#[test]
fn regression_strict_facts_on_rationals() {
    for (fact, probe) in [
        ("N > 5/2", "max(N, 4)"),
        ("N > 5/2", "min(N, 3)"),
        ("N < 7/2", "max(N, 3)"),
        ("N < 7/2", "min(N, 2)"),
        ("A/2 - B/3 > S", "min(A/2 - B/3 - S, 1)"),
        ("A/2 > B/2", "min(A/2 - B/2, 1)"),
        ("2*N > 5", "min(2*N - 5, 1)"),
    ] {
        let mut alg = Algebra::default();
        alg.assume(fact).unwrap();
        let (l, r) = fact.split_once(['<', '>']).unwrap();
        let (l, r) = (parsed(l), parsed(r));
        let holds = |env: &Env| {
            let (l, r) = (eval_expr(&l, env).unwrap(), eval_expr(&r, env).unwrap());
            if fact.contains('>') {
                l > r
            } else {
                l < r
            }
        };
        let sat: Vec<Env> = grid(&["A", "B", "N", "S"], 1, 6)
            .into_iter()
            .filter(holds)
            .collect();
        let out = simplify_text(&mut alg, probe);
        assert_same_values(probe, &out, &sat);
    }
    // Integer facts keep their strength.
    let mut alg = Algebra::default();
    alg.assume("N > 2").unwrap();
    assert_eq!(simplify_text(&mut alg, "max(N, 3)"), "N");
    alg.assume("A - B > 0").unwrap();
    assert_eq!(simplify_text(&mut alg, "min(A - B, 1)"), "1");
}

/// `broadcast(x, y)` with both operands provably not 1 took whichever operand the
/// first matching rule named, so `broadcast(A/B + 2*C, A*max(A, 2))` and its
/// commuted form simplified differently (`equal` said unknown), and the merged
/// class kept the `broadcast(...)` term as its form because only top-level
/// divisions counted against a form: simplify was not idempotent.
#[test]
fn regression_broadcast_of_two_non_ones() {
    for (x, y) in [
        ("A/B + 2*C", "A*max(A, 2)"),
        ("A/B + 2", "2*C + A/B"),
        ("S + 1", "T + 1"),
        ("2*S", "S + 1"),
    ] {
        let mut alg = Algebra::default();
        let a = simplify_text(&mut alg, &format!("broadcast({x}, {y})"));
        let b = simplify_text(&mut alg, &format!("broadcast({y}, {x})"));
        assert_eq!(a, b, "broadcast({x}, {y})");
        assert!(!a.contains("broadcast"), "{a}");
        let again = simplify_text(&mut Algebra::default(), &a);
        assert_eq!(again, a, "idempotent");
        let (dx, dy) = (
            alg.parse(&format!("broadcast({x}, {y})")).unwrap(),
            alg.parse(&format!("broadcast({y}, {x})")).unwrap(),
        );
        assert_eq!(alg.equal(dx, dy), Truth::True);
        assert_sound_on_grid(
            &mut alg,
            &format!("broadcast({x}, {y})"),
            &["A", "B", "C", "S", "T"],
            1,
            4,
        );
    }
}

/// `-8*A*A` at `A = 2^62` is `-2^127 = i128::MIN`, whose `abs()` overflows: a
/// panic in debug builds and the value 0 in release builds, both in the algebra
/// and in the reference evaluator.
#[test]
fn regression_i128_min_constant() {
    let mut env = Env::new();
    env.insert("A".into(), Rat::int(1 << 62));
    env.insert("S".into(), Rat::int(1));
    let text = "min(S*S, 8 + A) - A*(A - 9)*8";
    assert_eq!(
        eval(text, &env).map(|v| v.to_string()),
        Some("-170141183460469231399645910389112176639".to_string())
    );
    let mut alg = Algebra::default();
    let out = simplify_text(&mut alg, text);
    assert_same_values(text, &out, &[env]);
    let d = alg
        .parse("170141183460469231731687303715884105728 * (-1)")
        .unwrap();
    assert_eq!(alg.render(d), "-170141183460469231731687303715884105728");
}

/// A broadcast of two dims that are provably different and both not 1 is defined
/// nowhere (a shape error). Constant folding keeps `broadcast(3, 5)` opaque, but
/// the broadcast-not-one rules rewrote it to `3`, hiding the error.
#[test]
fn regression_incompatible_broadcast_stays() {
    let mut alg = Algebra::default();
    for text in [
        "broadcast(3, 5)",
        "broadcast(S + 1, S + 2)",
        "broadcast(2*S + 2, 2*S + 1)",
    ] {
        let d = alg.parse(text).unwrap();
        let before = alg.render(d);
        assert!(
            alg.simplify(d).starts_with("broadcast("),
            "{text} -> {before}"
        );
    }
    // Compatible ones still simplify.
    assert_eq!(simplify_text(&mut alg, "broadcast(S + 1, T + 1)"), "S + 1");
    assert_eq!(simplify_text(&mut alg, "broadcast(3, 3)"), "3");
    assert_eq!(simplify_text(&mut alg, "broadcast(S + 1, 2)"), "2");
}

/// A chain of `n` nested floordivs (a stack of strided convolutions, or any
/// nesting the parser accepts, up to 200) made the nested rules add one term per
/// pair of levels: quadratic e-nodes and roughly quartic time (depth 40 took 27 s
/// in a debug build, depth 199 hours). The e-graph now stays linear.
#[test]
fn regression_nested_division_chains_stay_linear() {
    for (open, close, out) in [
        ("floordiv(", ", 2)", "floordiv(S, 1073741824)"),
        ("ceildiv(", ", 2)", "ceildiv(S, 1073741824)"),
    ] {
        let depth = 30;
        let text = open.repeat(depth) + "S" + &close.repeat(depth);
        let mut alg = Algebra::default();
        assert_eq!(simplify_text(&mut alg, &text), out);
        let nodes = alg.egraph().total_number_of_nodes();
        assert!(nodes <= 4 * depth, "{nodes} e-nodes for depth {depth}");
    }
    // Collapsing needs an integer outer divisor: floor(floor(S/2)/(3/2)) is not
    // floor(S/3) (S = 3).
    let mut alg = Algebra::default();
    for (text, out) in [
        (
            "floordiv(floordiv(S, 2), 3/2)",
            "floordiv(floordiv(S, 2), 3/2)",
        ),
        (
            "floordiv(floordiv(floordiv(S, 2), 3/2), 2)",
            "floordiv(S, 6)",
        ),
        (
            "floordiv(floordiv(floordiv(S, 3/2), 2), 2)",
            "floordiv(S, 6)",
        ),
        ("ceildiv(ceildiv(ceildiv(S, 2), 3/2), 2)", "ceildiv(S, 6)"),
    ] {
        assert_eq!(assert_sound_on_grid(&mut alg, text, &["S"], 1, 60), out);
    }
}
