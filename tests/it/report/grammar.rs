//! The report grammar is closed: every dim, symbol definition and contract condition
//! the engine prints for every bundled and corpus model parses with the grammar of
//! `docs/grammar.md`, printing what was parsed gives the same text back, and a
//! divisibility condition reads back as a divisibility of its whole sides.

use crate::common;

use std::path::{Path, PathBuf};
use symdim::algebra::parse::{parse_expr, parse_fact};
use symdim::algebra::{Algebra, Expr, OpKind, Rat, Rel};
use symdim::report::ReportDim;

fn models(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            models(&p, out);
        } else if matches!(p.extension().and_then(|x| x.to_str()), Some("onnx" | "xml"))
            || (p.extension().is_some_and(|x| x == "json")
                && p.to_string_lossy().contains("onednn"))
        {
            out.push(p);
        }
    }
}

/// An expression parses, and printed back from a fresh algebra it is the same text;
/// what fails is added to `bad`.
fn round_trips(text: &str, what: &str, bad: &mut Vec<String>) {
    match parse_expr(text) {
        Err(err) => bad.push(format!("{what}: `{text}` does not parse: {err}")),
        Ok(e) => {
            let mut alg = Algebra::default();
            let d = alg.from_expr(&e);
            if alg.render(d) != text {
                bad.push(format!(
                    "{what}: `{text}` prints back as `{}`",
                    alg.render(d)
                ));
            }
        }
    }
}

/// A condition: `false`, `unknown`, or facts joined by `and` or by `or`.
fn condition_parses(text: &str, what: &str, bad: &mut Vec<String>) {
    if text == "false" || text == "unknown" {
        return;
    }
    let facts: Vec<&str> = if text.contains(" or ") {
        text.split(" or ").collect()
    } else {
        text.split(" and ").collect()
    };
    for f in facts {
        match parse_fact(f) {
            Err(err) => bad.push(format!("{what}: `{f}` of `{text}`: {err}")),
            // A divisibility reads back as one: `mod(p, k) == 0`, the whole of `p`
            // and `k` on either side of the `%`.
            Ok(fact) if f.contains(" % ") => {
                let whole = matches!(fact.lhs, Expr::Call(OpKind::Mod, ..))
                    && fact.rel == Rel::Eq
                    && fact.rhs == Expr::Num(Rat::zero());
                if !whole {
                    bad.push(format!("{what}: `{f}` of `{text}` reads back as `{fact}`"));
                }
            }
            Ok(_) => {}
        }
    }
}

#[test]
fn everything_printed_parses() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    models(&root.join("tests/fixtures"), &mut files);
    models(&root.join("examples"), &mut files);
    if let Some(corpus) = common::corpus() {
        models(&corpus, &mut files);
    }
    files.sort();
    let (mut dims, mut defs, mut conds, mut loaded) = (0, 0, 0, 0);
    let mut bad = Vec::new();
    for path in &files {
        let Ok(model) = symdim::load(path) else {
            continue;
        };
        loaded += 1;
        let shapes = symdim::infer(&model, &symdim::Facts::new());
        let report = shapes.report();
        let at = |t: &str| format!("{} {t}", path.display());
        for (name, t) in &report.tensors {
            for d in t.shape.iter().flatten().chain(t.value.iter().flatten()) {
                if let ReportDim::Expr(e) = d {
                    round_trips(e, &at(name), &mut bad);
                    dims += 1;
                }
            }
        }
        for (name, s) in &report.symbols {
            if let symdim::report::ReportSymbol::Derived { definition } = s {
                if let Err(e) = parse_expr(definition) {
                    bad.push(format!("{}: `{definition}`: {e}", at(name)));
                }
                defs += 1;
            }
        }
        for c in shapes.contract().conditions {
            condition_parses(&c.condition, &at("contract"), &mut bad);
            conds += 1;
        }
    }
    assert!(loaded >= 10, "only {loaded} models loaded");
    eprintln!("{loaded} models: {dims} dims, {defs} definitions, {conds} conditions");
    assert!(
        bad.is_empty(),
        "{} not in the grammar:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
