//! The NN shape rules against onnxruntime's real output shapes.
//!
//! `tests/fixtures/nn/ort_cases.json` (written by `gen_ort_cases.py` beside it)
//! holds small graphs with symbolic input dims and, for several bindings of those
//! symbols, the output shapes onnxruntime actually produced when running them.
//! Here symdim infers each graph once, symbolically; every output dim is then
//! evaluated at each binding and compared. A dim that is a data-dependent fresh
//! symbol (NonZero's count) cannot be evaluated and counts as "less precise".

use crate::common;

use common::fixture::binding;
use common::fixture::ints;
use common::ort_cases::infer_case;
use symdim::algebra::Rat;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/nn/ort_cases.json"
);

#[derive(Default)]
struct Tally {
    exact: usize,
    less_precise: usize,
    wrong: Vec<String>,
}

#[test]
fn nn_rules_match_onnxruntime() {
    let doc = common::ort_cases::load(FIXTURE);
    let mut tally = Tally::default();
    let mut cases = 0;
    for case in doc["cases"].as_array().unwrap() {
        cases += 1;
        let name = case["name"].as_str().unwrap();
        let ctx = infer_case(case);
        let mut rendered = Vec::new();
        for o in case["outputs"].as_array().unwrap() {
            let o = o.as_str().unwrap();
            let f = ctx
                .get(o)
                .unwrap_or_else(|| panic!("{name}: no fact for {o}"));
            rendered.push(format!(
                "{o}: {}",
                f.shape
                    .as_ref()
                    .map_or("?".to_string(), |s| ctx.render_dims(s))
            ));
        }
        eprintln!("{name}: {}", rendered.join("; "));
        for run in case["runs"].as_array().unwrap() {
            let bind = binding(&run["bind"]);
            let env = |s: &str| bind.get(s).map(|v| Rat::int(*v));
            for (o, want) in run["shapes"].as_object().unwrap() {
                let want = ints(want);
                let fact = ctx.get(o).unwrap();
                let Some(shape) = &fact.shape else {
                    tally.less_precise += 1;
                    continue;
                };
                if shape.len() != want.len() {
                    tally.wrong.push(format!(
                        "{name} {o} at {bind:?}: rank {} vs {want:?}",
                        shape.len()
                    ));
                    continue;
                }
                let mut ok = true;
                let mut precise = true;
                for (d, w) in shape.iter().zip(&want) {
                    match ctx.alg.eval(*d, &env) {
                        Some(v) if v == Rat::int(*w) => {}
                        Some(v) => {
                            ok = false;
                            tally.wrong.push(format!(
                                "{name} {o} at {bind:?}: {} = {v}, onnxruntime {want:?}",
                                ctx.alg.render(*d)
                            ));
                        }
                        None => precise = false,
                    }
                }
                if ok && precise {
                    tally.exact += 1;
                } else if ok {
                    tally.less_precise += 1;
                }
            }
        }
    }
    eprintln!(
        "onnxruntime cases: {cases}; output shapes exact {}, less precise {}, wrong {}",
        tally.exact,
        tally.less_precise,
        tally.wrong.len()
    );
    assert!(tally.wrong.is_empty(), "wrong:\n{}", tally.wrong.join("\n"));
}
