//! A reviewed table of the dim algebra's answers: every rule of
//! `symdim::algebra::rules::RULES`, every operator, constants, names, Reshape's
//! `-1` and error messages, rendered as one text snapshot (`snapshots/`).

use crate::common;

use std::fmt::Write as _;
use symdim::algebra::rules::RULES;
use symdim::algebra::{Algebra, AlgebraError, FreshKey, MinusOne};

/// Simplifications: (label, input). The label names the rule that the row is
/// about (`-` for rows about operators, constants and names).
const SIMPLIFY: &[(&str, &str)] = &[
    // one row per rule, in table order
    ("floordiv-exact", "floordiv(12*S, 4)"),
    ("floordiv-exact", "floordiv(B*S, S)"),
    ("ceildiv-exact", "ceildiv(B*S, S)"),
    ("mod-exact", "mod(6*S, 3)"),
    ("floordiv-small", "floordiv(S, S + 1)"),
    ("ceildiv-small", "ceildiv(S, S + 3)"),
    ("mod-small", "mod(S, S + 1)"),
    ("mod-small", "mod(S - 1, S)"),
    ("floordiv-small-negative", "floordiv(-1, S)"),
    ("floordiv-small-negative", "floordiv(-S, S + 1)"),
    ("mod-small-negative", "mod(-1, S)"),
    ("ceildiv-to-floordiv", "ceildiv(S, 4)"),
    ("ceildiv-to-floordiv", "ceildiv(S, T)"),
    ("floordiv-content", "floordiv(2*S + 3, 4)"),
    ("mod-content", "mod(2*S + 3, 4)"),
    ("floordiv-offset", "floordiv(S + 5, 4)"),
    ("mod-offset", "mod(S + 5, 4)"),
    ("floordiv-split", "floordiv(2*S + T, 2)"),
    ("ceildiv-split", "ceildiv(8*S + 3, 4)"),
    ("mod-split", "mod(8*S + 3, 4)"),
    ("floordiv-nested", "floordiv(floordiv(S, 2), 3)"),
    ("ceildiv-nested", "ceildiv(ceildiv(S, 2), 3)"),
    (
        "floordiv-nested-offset",
        "floordiv(floordiv(S - 1, 2) + 1, 2)",
    ),
    ("ceildiv-nested-offset", "ceildiv(ceildiv(S, 2) - 1, 3)"),
    ("min-left", "min(S, S + 1)"),
    ("min-right", "min(S + T, S)"),
    ("max-left", "max(S, S - 1)"),
    ("max-right", "max(S - 1, S)"),
    ("broadcast-same", "broadcast(S*B, B*S)"),
    ("broadcast-one-left", "broadcast(1, S)"),
    ("broadcast-one-right", "broadcast(S, 1)"),
    ("broadcast-not-one-left", "broadcast(S + 1, T)"),
    ("broadcast-not-one-right", "broadcast(T, 2*S + 1)"),
    ("broadcast-absorb", "broadcast(S, max(S, 1))"),
    ("broadcast-absorb", "broadcast(min(S, T + 1), S)"),
    ("broadcast-max", "broadcast(S, T)"),
    ("broadcast-max", "broadcast(S, min(S, 512))"),
    ("max-absorb", "max(S, min(S, 512))"),
    ("min-absorb", "min(max(T, S), S)"),
    ("max-nested", "max(S, max(T, S))"),
    ("min-nested", "min(min(S, T), S)"),
    ("floordiv-clear", "floordiv(S/2, 1)"),
    ("ceildiv-clear", "ceildiv(S/3 + 1/3, 2)"),
    // conditions that do not hold: the rules must not fire
    ("(no rule)", "floordiv(S, T - 2)"),
    ("mod-split", "mod(S - 2, S)"),
    ("(no rule)", "mod(S, T - 2)"),
    ("(no rule)", "floordiv(floordiv(S, 2), 3/2)"),
    ("(no rule)", "floordiv(floordiv(S, T - 1), 2)"),
    ("(no rule)", "max(mod(S/3, 3), 2)"),
    ("(no rule)", "broadcast(S, T - 1)"),
    ("(no rule)", "broadcast(3, 5)"),
    ("(no rule)", "broadcast(S + 1, S + 2)"),
    // operators and the canonical form
    ("-", "(B + 1)*S - S"),
    ("-", "A - (B - C)"),
    ("-", "-(2*A) + 3"),
    ("-", "48*A/F*F"),
    ("-", "12*B*S/8"),
    ("-", "(A*A - B*B)/(A + B)"),
    ("-", "A/(B + 1)"),
    ("-", "S % 8"),
    ("-", "floordiv(-7, 2)"),
    ("-", "ceildiv(-7, 2)"),
    ("-", "-7 % 3"),
    ("-", "mod(7, -3)"),
    ("-", "floordiv(7/2, 1) + ceildiv(-1/3, 1)"),
    ("-", "min(3, 5)*max(3, 5)"),
    ("-", "floordiv(floordiv(H - 1, 2) + 1 - 1, 2) + 1"),
    // rationals and huge constants
    ("-", "7/2 + 1/2"),
    ("-", "1/3 - 1/2"),
    ("-", "9223372036854775807 * 9223372036854775807 + 1"),
    ("-", "2*9223372036854775807 - 9223372036854775807"),
    ("-", "170141183460469231731687303715884105727/3 + 1/3"),
    // names
    ("-", "past_sequence_length + 1 - 1"),
    ("-", "`past_sequence_length + 1` * 2"),
    ("-", "`min` + `p2o.DynamicDimension.0`"),
    ("-", "`a\\`b` - 1"),
];

fn key(axis: usize) -> FreshKey {
    FreshKey {
        node: "Reshape_0".to_string(),
        output: 0,
        axis,
    }
}

/// Reshape's `-1`: (input shape, target shape); every target has one `-1`, and a
/// `0` copies the input dim at its position (as ONNX Reshape does).
const RESHAPES: &[(&[&str], &[&str])] = &[
    (&["B", "S", "768"], &["0", "-1", "12", "64"]),
    (&["B", "S", "768"], &["-1", "768"]),
    (&["B*S", "12", "64"], &["B", "-1", "768"]),
    (&["A", "B", "6", "D", "8"], &["F", "B", "1", "D", "-1"]),
    (&["B", "S", "12", "64"], &["B", "S", "-1"]),
    (&["2*S", "3"], &["-1", "S"]),
    (&["2", "3", "4"], &["5", "-1"]),
    (&["2*S + 1"], &["2", "-1"]),
    (&["B", "S"], &["-1", "S", "2"]),
];

fn reshape_row(out: &mut String, input: &[&str], target: &[&str]) {
    let mut alg = Algebra::default();
    let inp: Vec<_> = input.iter().map(|t| alg.parse(t).unwrap()).collect();
    let mut known = Vec::new();
    let mut axis = 0;
    for (i, t) in target.iter().enumerate() {
        match *t {
            "-1" => axis = i,
            "0" => known.push(inp[i]),
            t => known.push(alg.parse(t).unwrap()),
        }
    }
    let answer = match alg.solve_minus_one(&inp, &known, key(axis)) {
        Ok(MinusOne::Exact(q)) => format!("-1 = {}", alg.render(q)),
        Ok(MinusOne::Fresh { dim, residual }) => {
            let rel = alg.relations().last().expect("a relation");
            format!(
                "-1 = {} (fresh; residual {residual}; relation {} == {})",
                alg.render(dim),
                alg.render(rel.lhs),
                alg.render(rel.rhs)
            )
        }
        Err(e) => format!("error: {e}"),
    };
    let _ = writeln!(
        out,
        "[{}] -> [{}]  =>  {answer}",
        input.join(", "),
        target.join(", ")
    );
}

fn result_text<T>(
    alg: &Algebra,
    r: Result<T, AlgebraError>,
    ok: impl Fn(&Algebra, T) -> String,
) -> String {
    match r {
        Ok(v) => ok(alg, v),
        Err(e) => format!("error: {e}"),
    }
}

/// Queries, facts and errors: each row runs in its own algebra.
fn queries(out: &mut String) {
    let mut row = |what: &str, answer: String| {
        let _ = writeln!(out, "{what:<44}  =>  {answer}");
    };

    let mut alg = Algebra::default();
    let p = alg.parse("12*B*S").unwrap();
    let d = alg.constant(8);
    let r = alg.div(p, d);
    row("div(12*B*S, 8)", result_text(&alg, r, |a, q| a.render(q)));
    alg.assume("S % 8 == 0").unwrap();
    let r = alg.div(p, d);
    row(
        "div(12*B*S, 8) after S % 8 == 0",
        result_text(&alg, r, |a, q| a.render(q)),
    );
    let e = alg.parse("floordiv(12*B*S, 8)").unwrap();
    row("floordiv(12*B*S, 8) after S % 8 == 0", alg.simplify(e));

    let mut alg = Algebra::default();
    let (a, b) = (
        alg.parse("(B + 1)*S").unwrap(),
        alg.parse("S*B + S").unwrap(),
    );
    row("equal((B + 1)*S, S*B + S)", alg.equal(a, b).to_string());
    let (a, b) = (alg.parse("B*S").unwrap(), alg.parse("S").unwrap());
    row("equal(B*S, S)", alg.equal(a, b).to_string());
    let (a, b) = (alg.parse("S + B").unwrap(), alg.parse("S").unwrap());
    row("equal(S + B, S)", alg.equal(a, b).to_string());
    let (a, b) = (alg.parse("S").unwrap(), alg.parse("S*S").unwrap());
    row("le(S, S*S)", alg.le(a, b).to_string());
    let (a, b) = (alg.parse("8").unwrap(), alg.parse("24*S").unwrap());
    row("divides(8, 24*S)", alg.divides(a, b).to_string());
    let (a, b) = (alg.parse("2").unwrap(), alg.parse("2*S + 1").unwrap());
    row("divides(2, 2*S + 1)", alg.divides(a, b).to_string());
    let (a, b) = (alg.parse("8").unwrap(), alg.parse("12*S").unwrap());
    row("divides(8, 12*S)", alg.divides(a, b).to_string());

    let mut alg = Algebra::default();
    let r = alg.assume("N >= 2");
    row("assume N >= 2", result_text(&alg, r, |_, ()| "ok".into()));
    let m = alg.parse("max(N, 2)").unwrap();
    row("max(N, 2) after N >= 2", alg.simplify(m));
    let r = alg.bind("N", 4);
    row("bind N = 4", result_text(&alg, r, |_, ()| "ok".into()));
    let e = alg.parse("N*S + N").unwrap();
    row("N*S + N after N = 4", alg.simplify(e));
    let r = alg.assume("N <= 3");
    row(
        "assume N <= 3 after N = 4",
        result_text(&alg, r, |_, ()| "ok".into()),
    );
    let r = alg.bind("N", 1);
    row(
        "bind N = 1 after N = 4",
        result_text(&alg, r, |_, ()| "ok".into()),
    );

    let mut alg = Algebra::default();
    let (x, y) = (alg.constant(3), alg.constant(4));
    let r = alg.union(x, y, "test");
    row("union(3, 4)", result_text(&alg, r, |a, d| a.render(d)));
    let (x, y) = (alg.input("N"), alg.constant(0));
    let r = alg.union(x, y, "test");
    row("union(N, 0)", result_text(&alg, r, |a, d| a.render(d)));
    let r = alg.assume("A + 1 == A");
    row(
        "assume A + 1 == A",
        result_text(&alg, r, |_, ()| "ok".into()),
    );
    let r = alg.assume("S - 3 < S - 5");
    row(
        "assume S - 3 < S - 5",
        result_text(&alg, r, |_, ()| "ok".into()),
    );
    let s = alg.parse("S").unwrap();
    let z = alg.constant(0);
    let r = alg.div(s, z);
    row("div(S, 0)", result_text(&alg, r, |a, q| a.render(q)));

    for text in [
        "A + ",
        "(A",
        "A B",
        "`abc",
        "floordiv(A)",
        "2 $ 3",
        &format!("{}S{}", "(".repeat(201), ")".repeat(201)),
    ] {
        let mut alg = Algebra::default();
        let r = alg.parse(text);
        if text.len() > 40 {
            // The message quotes the whole input; show its position and reason.
            let Err(AlgebraError::Parse(e)) = r else {
                panic!("{r:?}")
            };
            row(
                "parse `(` x 201 + `S` + `)` x 201",
                format!("error at byte {}: expected {}", e.pos, e.expected),
            );
        } else {
            row(
                &format!("parse `{text}`"),
                result_text(&alg, r, |a, d| a.render(d)),
            );
        }
    }
    let mut alg = Algebra::default();
    let r = alg.assume("N");
    row("assume N", result_text(&alg, r, |_, ()| "ok".into()));
}

fn table() -> String {
    let mut out = String::new();
    out.push_str("# simplify: rule | input => output\n");
    let mut alg = Algebra::default();
    for (label, input) in SIMPLIFY {
        let d = alg.parse(input).unwrap();
        let s = alg.simplify(d);
        let _ = writeln!(out, "{label:<24} | {input:<48} => {s}");
    }
    out.push_str("\n# reshape: input shape -> target shape => the -1\n");
    for (input, target) in RESHAPES {
        reshape_row(&mut out, input, target);
    }
    out.push_str("\n# queries, facts and errors\n");
    queries(&mut out);
    out
}

#[test]
fn algebra_table() {
    let t = table();
    common::snapshots().bind(|| insta::assert_snapshot!("algebra_table", t));
}

#[test]
fn the_table_covers_every_rule() {
    for r in RULES {
        assert!(
            SIMPLIFY.iter().any(|(label, _)| *label == r.name),
            "no row for rule {}",
            r.name
        );
    }
}
