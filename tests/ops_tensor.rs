//! Tensor and shape-tensor ops (`src/ops/tensor.rs`): hand-built context cases,
//! small models through `infer`, and the ONNX backend-node cases of the family.

mod common;
mod ops_support;

use ops_support::*;
use symdim::context::{OpError, ShapesContext};
use symdim::graph::{Attr, DType};

// ----- backend-node corpus ---------------------------------------------------------

#[derive(Default, Debug)]
struct Score {
    exact: usize,
    less_precise: usize,
    wrong: Vec<String>,
}

fn my_op(op: &str) -> bool {
    [
        symdim::ops::tensor::RULES,
        symdim::ops::elementwise::RULES,
        symdim::ops::reduce::RULES,
    ]
    .iter()
    .any(|t| t.iter().any(|(d, o, _)| d.is_empty() && *o == op))
}

/// Score one case: `with_values` turns the integer inputs into initializers with
/// their `input_*.pb` contents (so the shape-tensor evaluator sees them).
fn score_case(dir: &std::path::Path, with_values: bool, score: &mut Score) {
    let (mut model, _) = symdim::load::load(&dir.join("model.onnx")).expect("load");
    let data = dir.join("test_data_set_0");
    if with_values {
        let inputs = std::mem::take(&mut model.graph.inputs);
        for (k, v) in inputs.into_iter().enumerate() {
            let t = read_pb(&data.join(format!("input_{k}.pb")));
            if v.dtype.is_integer() && matches!(t.data, symdim::graph::ConstData::Ints(_)) {
                model.graph.initializers.insert(v.name.clone(), t);
            } else {
                model.graph.inputs.push(v);
            }
        }
    }
    // The declared output shapes are stripped: they must be inferred.
    let outputs: Vec<String> = model.graph.outputs.iter().map(|o| o.name.clone()).collect();
    for o in &mut model.graph.outputs {
        o.shape = None;
    }
    let ctx = symdim::infer::infer_context(&model, &symdim::infer::Options::default());
    let name = dir.file_name().unwrap().to_string_lossy().to_string();
    let errors: Vec<String> = ctx
        .diagnostics
        .iter()
        .filter(|d| d.severity == symdim::context::Severity::Error)
        .map(|d| d.to_string())
        .collect();
    let mut exact = errors.is_empty();
    let mut wrong = !errors.is_empty();
    for (j, o) in outputs.iter().enumerate() {
        let expected = read_pb(&data.join(format!("output_{j}.pb"))).dims;
        let fact = ctx.get(o).expect("output fact");
        match &fact.shape {
            None => exact = false,
            Some(s) if s.len() != expected.len() => wrong = true,
            Some(s) => {
                for (d, e) in s.iter().zip(&expected) {
                    match ctx.alg.as_i64(*d) {
                        Some(v) if v == *e => {}
                        Some(_) => wrong = true,
                        None => exact = false,
                    }
                }
            }
        }
        if wrong {
            let got = fact
                .shape
                .as_ref()
                .map_or("unknown rank".to_string(), |s| ctx.render_dims(s));
            score
                .wrong
                .push(format!("{name}: {o} expected {expected:?}, got {got}; {errors:?}"));
            return;
        }
    }
    if exact {
        score.exact += 1;
    } else {
        score.less_precise += 1;
    }
}

#[test]
fn backend_node_cases() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let root = corpus.join("peer-cases/backend-node");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .expect("backend-node")
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    let (mut shipped, mut valued) = (Score::default(), Score::default());
    let mut cases = 0;
    for dir in dirs {
        let (model, _) = symdim::load::load(&dir.join("model.onnx")).expect("load");
        if !model.graph.nodes.iter().all(|n| my_op(&n.op_type)) {
            continue;
        }
        cases += 1;
        score_case(&dir, false, &mut shipped);
        score_case(&dir, true, &mut valued);
    }
    eprintln!(
        "backend-node, {cases} cases in this family: as shipped exact {} / less precise {} / wrong {}; with input values exact {} / less precise {} / wrong {}",
        shipped.exact,
        shipped.less_precise,
        shipped.wrong.len(),
        valued.exact,
        valued.less_precise,
        valued.wrong.len()
    );
    assert!(shipped.wrong.is_empty(), "{:#?}", shipped.wrong);
    assert!(valued.wrong.is_empty(), "{:#?}", valued.wrong);
    assert_eq!(valued.exact, cases, "every case is exact once the operands are known");
}
