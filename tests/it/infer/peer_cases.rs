//! The peer corpus (`../shared/corpus/peer-cases`): every case that has an ONNX
//! model, run through the real driver (`symdim::load` + `symdim::infer`) and scored
//! with the rules of `peer-cases/score.py`, next to the peers' verdicts in
//! `peer_results.json`. Issue 4's bar: no wrong answer, no error raised on a valid
//! case, at least 97% of the valid cases exact and at least 90% of the error cases
//! reported as errors.
//!
//! One valid case is less precise, and we believe the source's expectation assumes
//! too much: `onnx.si.test_slice_with_input_shape_axes` slices with `steps` from a
//! graph input of unknown value, so each sliced length is 0, 1 or 2 depending on
//! the step's sign and size; onnx expects the lengths for step 1.
//!
//! The cases come from the test suites of onnx, OpenVINO, onnxruntime, tract,
//! TensorFlow and oneDNN; each printed line credits the case's `source`.
//!
//! Scoring (as `score.py`): a pinned dim matches when both expressions agree at up
//! to 10 random positive assignments of the input dim_params for which the expected
//! expression is a non-negative integer; `?` pins nothing; a dim we cannot express
//! in the input dim_params (a data-dependent `unkN`) is "less precise". A fresh
//! `-1` quotient `rN` is evaluated through its recorded definition (`48*A/F`). An
//! error case is exact when symdim reports an error diagnostic; a valid case with
//! an error diagnostic is "raised". Run with `--nocapture` to see the table.

use crate::common;

use serde_json::Value;
use std::collections::BTreeMap;
use symdim::algebra::{Algebra, Dim, Rat, SymbolKind};
use symdim::context::{Cause, Severity, ShapesContext};
use symdim::Facts;

const PEERS: &[&str] = &["onnx", "onnx_strict", "ort", "openvino", "openvino_sym"];

/// A small deterministic generator (no extra dependency).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, lo: i64, hi: i64) -> i64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        lo + ((self.0 >> 33) % ((hi - lo + 1) as u64)) as i64
    }
}

/// One of our dims, as the scorer sees it.
enum Ours {
    /// A dim evaluable in the input dim_params (constants included).
    Dim(Dim),
    /// Not expressible in the input dim_params.
    Unknown,
}

/// Evaluate one of our dims: input symbols from `env`, derived symbols (a fresh
/// `-1` quotient) through their definitions.
fn eval_ours(alg: &Algebra, d: Dim, env: &BTreeMap<String, i64>) -> Option<Rat> {
    let derived: BTreeMap<String, symdim::algebra::Poly> = alg
        .symbols()
        .filter_map(|(n, e)| match &e.kind {
            SymbolKind::Derived { definition } => Some((n.to_string(), definition.clone())),
            _ => None,
        })
        .collect();
    let lookup = |name: &str| -> Option<Rat> {
        if let Some(v) = env.get(name) {
            return Some(Rat::int(*v));
        }
        let def = derived.get(name)?;
        def.eval(&|s| env.get(s.as_str()).map(|v| Rat::int(*v)))
    };
    alg.eval(d, &lookup)
}

/// A sympy expression of the corpus in symdim's grammar, or `None` when it uses
/// something else (`score.py` then treats the dim as unconstrained).
fn parse_expected(scratch: &mut Algebra, e: &Value) -> Option<Dim> {
    match e {
        Value::Number(n) => Some(scratch.constant(n.as_i64()?)),
        Value::String(s) => {
            let t = s.replace("Min(", "min(").replace("Max(", "max(");
            scratch.parse(&t).ok()
        }
        _ => None,
    }
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Verdict {
    Exact,
    Unknown,
    Wrong,
    Raised,
}

impl Verdict {
    fn from_peer(s: &str) -> Verdict {
        match s {
            "exact" => Verdict::Exact,
            "unknown" => Verdict::Unknown,
            "wrong" => Verdict::Wrong,
            _ => Verdict::Raised,
        }
    }
}

/// `cmp_dim` of score.py.
fn cmp_dim(
    ctx: &ShapesContext,
    ours: &Ours,
    expected: &Value,
    syms: &[String],
    assume: &BTreeMap<String, i64>,
    rng: &mut Lcg,
) -> Verdict {
    if expected.as_str() == Some("?") {
        return Verdict::Exact;
    }
    let mut scratch = Algebra::default();
    let Some(e) = parse_expected(&mut scratch, expected) else {
        return Verdict::Exact;
    };
    let d = match ours {
        Ours::Unknown => return Verdict::Unknown,
        Ours::Dim(d) => *d,
    };
    let mut valid = 0;
    for k in 0..600 {
        let hi = if k < 500 { 60 } else { 5000 };
        let env: BTreeMap<String, i64> = syms
            .iter()
            .map(|s| {
                let lo = assume.get(s).copied().unwrap_or(1).max(1);
                let v = if k == 0 {
                    lo
                } else {
                    rng.next(lo, hi.max(lo + 10))
                };
                (s.clone(), v)
            })
            .collect();
        let Some(ve) = scratch.eval(e, &|n| env.get(n).map(|v| Rat::int(*v))) else {
            return Verdict::Exact; // mentions names that are not input dim_params
        };
        if !ve.is_integer() || ve.is_negative() {
            continue;
        }
        match eval_ours(&ctx.alg, d, &env) {
            None => return Verdict::Unknown,
            Some(vo) if vo != ve => return Verdict::Wrong,
            Some(_) => {}
        }
        valid += 1;
        if valid >= 10 {
            break;
        }
    }
    if valid > 0 {
        Verdict::Exact
    } else {
        Verdict::Wrong
    }
}

/// Our dims of a tensor: `None` when it has no shape.
fn ours_of(ctx: &ShapesContext, name: &str, syms: &[String]) -> Option<Vec<Ours>> {
    let shape = ctx.get(name)?.shape.clone()?;
    let env: BTreeMap<String, i64> = syms.iter().map(|s| (s.clone(), 7)).collect();
    Some(
        shape
            .into_iter()
            .map(|d| match eval_ours(&ctx.alg, d, &env) {
                Some(_) => Ours::Dim(d),
                None => Ours::Unknown,
            })
            .collect(),
    )
}

/// `verdict` of score.py.
fn verdict(
    ctx: &ShapesContext,
    case: &Value,
    syms: &[String],
    symbolic: bool,
    raised: bool,
) -> Verdict {
    let mut exp = case["expected"].clone();
    let is_error = exp.get("error").is_some();
    if symbolic && !is_error {
        if let Some(s) = case.get("exact_symbolic").filter(|v| !v.is_null()) {
            exp = serde_json::json!({ "output": s });
        }
    }
    if raised {
        return if is_error {
            Verdict::Exact
        } else {
            Verdict::Raised
        };
    }
    let out_name = case["output_name"].as_str().unwrap();
    if is_error {
        // No error: a shape with a concrete (or input-expressible) dim is wrong.
        return match ours_of(ctx, out_name, syms) {
            None => Verdict::Unknown,
            Some(dims) if dims.iter().any(|d| matches!(d, Ours::Dim(_))) => Verdict::Wrong,
            Some(_) => Verdict::Unknown,
        };
    }
    let mut checks = vec![(exp["output"].clone(), out_name.to_string())];
    if !symbolic {
        if let Some(m) = case.get("expected_outputs").and_then(|v| v.as_object()) {
            for (n, d) in m {
                checks.push((d.clone(), n.clone()));
            }
        }
    }
    let assume: BTreeMap<String, i64> = case
        .get("assume")
        .and_then(|a| a.as_object())
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.get(0)?.as_i64()?)))
                .collect()
        })
        .unwrap_or_default();
    let mut rng = Lcg(case["case"].as_str().unwrap().len() as u64 * 7919 + 17);
    let mut worst = Verdict::Exact;
    for (e, name) in checks {
        let Some(e) = e.as_array() else { continue };
        let Some(ours) = ours_of(ctx, &name, syms) else {
            worst = worst.max(Verdict::Unknown);
            continue;
        };
        if ours.len() != e.len() {
            return Verdict::Wrong;
        }
        for (o, ed) in ours.iter().zip(e) {
            match cmp_dim(ctx, o, ed, syms, &assume, &mut rng) {
                Verdict::Wrong => return Verdict::Wrong,
                v => worst = worst.max(v),
            }
        }
    }
    worst
}

/// The input dim_params of a case's model.
fn input_syms(model: &symdim::graph::Model) -> Vec<String> {
    let mut out = vec![];
    for v in &model.graph.inputs {
        for d in v.shape.iter().flatten() {
            if let symdim::graph::DeclDim::Param(p) = d {
                if !out.contains(p) {
                    out.push(p.clone());
                }
            }
        }
    }
    out
}

fn render(ctx: &ShapesContext, name: &str) -> String {
    match ctx.get(name) {
        None => "missing".into(),
        Some(f) => match &f.shape {
            None => "[...]".into(),
            Some(d) => ctx.render_dims(d),
        },
    }
}

#[test]
fn peer_cases() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let dir = corpus.join("peer-cases");
    let peers: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("peer_results.json")).unwrap())
            .unwrap();
    let mut files: Vec<_> = std::fs::read_dir(dir.join("cases"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    // [valid|error][plain|symbolic] -> counts per verdict, for us and each peer.
    let mut ours_counts: BTreeMap<(bool, bool), BTreeMap<Verdict, usize>> = BTreeMap::new();
    let mut peer_counts: BTreeMap<(&str, bool, bool), BTreeMap<Verdict, usize>> = BTreeMap::new();
    let (mut n, mut n_shape, mut missing_rule) = (0, 0, 0);
    let mut lines = vec![];
    for f in files {
        let case: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        let id = case["case"].as_str().unwrap();
        let ops: Vec<&str> = case["ops"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let model_path = dir.join("models").join(format!("{id}.onnx"));
        if !model_path.exists() {
            continue;
        }
        n += 1;
        n_shape += ops.contains(&"Shape") as usize;
        let model = symdim::read::load::load(&model_path).unwrap();
        let ctx = symdim::infer(&model, &Facts::default()).into_context();
        let syms = input_syms(&model);
        let raised = ctx
            .diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error);
        let is_error = case["expected"].get("error").is_some();
        let out_name = case["output_name"].as_str().unwrap();
        let v = verdict(&ctx, &case, &syms, false, raised);
        let vs = verdict(&ctx, &case, &syms, true, raised);
        *ours_counts
            .entry((is_error, false))
            .or_default()
            .entry(v)
            .or_default() += 1;
        *ours_counts
            .entry((is_error, true))
            .or_default()
            .entry(vs)
            .or_default() += 1;
        let pr = &peers["cases"][id];
        for p in PEERS {
            for (symbolic, key) in [(false, "verdict"), (true, "verdict_symbolic")] {
                if let Some(s) = pr[key][p].as_str() {
                    *peer_counts
                        .entry((p, is_error, symbolic))
                        .or_default()
                        .entry(Verdict::from_peer(s))
                        .or_default() += 1;
                }
            }
        }
        if v == Verdict::Unknown {
            missing_rule += usize::from(
                ctx.diagnostics
                    .iter()
                    .any(|d| matches!(d.cause, Some(Cause::NoRule { .. }))),
            );
        }
        let diags: Vec<String> = ctx
            .diagnostics
            .iter()
            .filter(|d| v != Verdict::Exact || d.severity == Severity::Error)
            .map(|d| d.to_string())
            .collect();
        lines.push(format!(
            "{v:?}/{vs:?} {id} [{}]: expected {} symbolic {} ours {}{}{}",
            case["source"].as_str().unwrap_or(""),
            case["expected"],
            case.get("exact_symbolic").unwrap_or(&Value::Null),
            render(&ctx, out_name),
            if diags.is_empty() { "" } else { "\n        " },
            diags.join("\n        ")
        ));
    }
    for l in &lines {
        println!("{l}");
    }
    let fmt = |m: Option<&BTreeMap<Verdict, usize>>, error: bool| {
        let g = |v| m.and_then(|m| m.get(&v)).copied().unwrap_or(0);
        if error {
            format!(
                "{} / {} / {}",
                g(Verdict::Exact),
                g(Verdict::Unknown),
                g(Verdict::Wrong)
            )
        } else {
            format!(
                "{} / {} / {} / {}",
                g(Verdict::Exact),
                g(Verdict::Unknown),
                g(Verdict::Wrong),
                g(Verdict::Raised)
            )
        }
    };
    println!("\n{n} cases with a model ({n_shape} with Shape)");
    let row =
        |name: &str, a: String, b: String, c: String| println!("{name:<14} {a:<40} {b:<40} {c}");
    row(
        "",
        "valid: exact/less precise/wrong/raised".into(),
        "valid vs exact_symbolic".into(),
        "error cases: exact/less precise/wrong".into(),
    );
    row(
        "symdim",
        fmt(ours_counts.get(&(false, false)), false),
        fmt(ours_counts.get(&(false, true)), false),
        fmt(ours_counts.get(&(true, false)), true),
    );
    for p in PEERS {
        row(
            p,
            fmt(peer_counts.get(&(*p, false, false)), false),
            fmt(peer_counts.get(&(*p, false, true)), false),
            fmt(peer_counts.get(&(*p, true, false)), true),
        );
    }
    println!("less precise for want of a shape rule: {missing_rule}");
    assert!(n > 0);
    let get = |error: bool, v: Verdict| {
        ours_counts
            .get(&(error, false))
            .and_then(|m| m.get(&v))
            .copied()
            .unwrap_or(0)
    };
    let valid: usize = ours_counts
        .get(&(false, false))
        .map_or(0, |m| m.values().sum());
    let errors: usize = ours_counts
        .get(&(true, false))
        .map_or(0, |m| m.values().sum());
    assert!(
        get(false, Verdict::Exact) * 100 >= valid * 97,
        "fewer than 97% of the valid cases are exact"
    );
    assert!(
        get(true, Verdict::Exact) * 100 >= errors * 90,
        "fewer than 90% of the error cases are reported"
    );
    for ((error, _), m) in &ours_counts {
        let bad = m.get(&Verdict::Wrong).copied().unwrap_or(0)
            + m.get(&Verdict::Raised).copied().unwrap_or(0)
            + if *error {
                m.get(&Verdict::Unknown).copied().unwrap_or(0)
            } else {
                0
            };
        assert_eq!(bad, 0, "wrong or raised cases: {m:?}");
    }
}

/// The 75 ONNX backend node tests (`peer-cases/backend-node/test_*`): each model's
/// outputs against the dims of its recorded `output_*.pb`. Their shape operands are
/// graph inputs (values unknown to every peer), so "less precise" is expected where
/// an output depends on them; a wrong answer or an error on these valid models fails.
#[test]
fn backend_node_tests() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let dir = corpus.join("peer-cases/backend-node");
    let peers: Value = serde_json::from_str(
        &std::fs::read_to_string(corpus.join("peer-cases/peer_results.json")).unwrap(),
    )
    .unwrap();
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    cases.sort();
    let (mut exact, mut less, mut wrong, mut raised) = (0, 0, 0, 0);
    let mut lines = vec![];
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        let model = symdim::read::load::load(&case.join("model.onnx")).unwrap();
        let ctx = symdim::infer(&model, &Facts::default()).into_context();
        if ctx
            .diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
        {
            raised += 1;
            lines.push(format!("raised {name}: {:?}", ctx.diagnostics));
            continue;
        }
        let mut verdict = Verdict::Exact;
        for (j, out) in model.graph.outputs.iter().enumerate() {
            let bytes = std::fs::read(case.join(format!("test_data_set_0/output_{j}.pb"))).unwrap();
            let expected: Vec<i64> = symdim::read::onnx::parse_tensor(&bytes)
                .unwrap()
                .dims
                .to_vec();
            let got = ctx.get(&out.name).and_then(|f| f.shape.clone());
            let v = match got {
                None => Verdict::Unknown,
                Some(dims) if dims.len() != expected.len() => Verdict::Wrong,
                Some(dims) => {
                    let mut v = Verdict::Exact;
                    for (d, e) in dims.iter().zip(&expected) {
                        match ctx.alg.as_i64(*d) {
                            Some(x) if x == *e => {}
                            Some(_) => v = Verdict::Wrong,
                            None if v == Verdict::Exact => v = Verdict::Unknown,
                            None => {}
                        }
                    }
                    v
                }
            };
            if v == Verdict::Wrong || (v == Verdict::Unknown && verdict == Verdict::Exact) {
                verdict = v;
            }
        }
        match verdict {
            Verdict::Exact => exact += 1,
            Verdict::Unknown => less += 1,
            _ => wrong += 1,
        }
        if verdict != Verdict::Exact {
            lines.push(format!(
                "{verdict:?} {name}: ours {}",
                render(&ctx, &model.graph.outputs[0].name)
            ));
        }
    }
    for l in &lines {
        println!("{l}");
    }
    println!("backend-node: {} cases: symdim exact {exact} / less precise {less} / wrong {wrong} / raised {raised}", cases.len());
    if let Some(s) = peers["backend_node_summary"]["verdicts"].as_object() {
        for (peer, v) in s {
            println!(
                "  {peer:<13} exact {} / less precise {} / wrong {} / raised {}",
                v["exact"], v["unknown"], v["wrong"], v["peer_error"]
            );
        }
    }
    assert_eq!((wrong, raised), (0, 0));
}
