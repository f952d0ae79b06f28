//! The real models of `../shared/corpus/real-models`: every tensor gets a known rank,
//! and symdim grounds at least as many tensors as onnxruntime's symbolic shape
//! inference (`peer_results.json`), on the same stripped input the peers saw (all
//! `value_info` removed, graph-output shapes cleared).
//!
//! Skips, saying so, when the corpus is absent.
//!
//! No model needs a fact from the user. The If-based silero-vad models choose a
//! branch on whether the encoder's time dim, `floordiv(sequence - 192, 512) + 1`,
//! is 1, and their branches have different ranks; the driver case-splits the `If`
//! and finds that only `T == 1` gives the LSTM an input of rank 3, so it keeps that
//! branch and says so in a warning (checked below). onnxruntime agrees: the 16 kHz
//! path runs at 703 samples and fails in the LSTM at 704 (see `docs/ops/control-flow.md`).

use crate::common;

use std::path::Path;
use symdim::algebra::SymbolKind;
use symdim::context::ShapesContext;
use symdim::graph::Model;
use symdim::Facts;

/// Tensor counts in the peers' classification, over the named node outputs of the main graph.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    total: usize,
    known: usize,
    grounded: usize,
    opaque: usize,
    missing: usize,
}

fn strip(model: &mut Model) {
    model.graph.value_info.clear();
    for o in &mut model.graph.outputs {
        o.shape = None;
    }
}

fn classify(model: &Model, ctx: &ShapesContext) -> Counts {
    let inputs: Vec<&str> = ctx
        .alg
        .symbols()
        .filter(|(_, e)| e.kind == SymbolKind::Input)
        .map(|(n, _)| n)
        .collect();
    let mut c = Counts::default();
    let mut seen = std::collections::HashSet::new();
    for n in &model.graph.nodes {
        for o in n.outputs.iter().filter(|o| !o.is_empty()) {
            if !seen.insert(&**o) {
                continue;
            }
            c.total += 1;
            let Some(shape) = ctx.get(o).and_then(|f| f.shape.clone()) else {
                c.missing += 1;
                continue;
            };
            let mut syms = Vec::new();
            for d in &shape {
                ctx.alg.canon(*d).symbols(&mut syms);
            }
            if syms.is_empty() {
                c.known += 1;
            } else if syms.iter().all(|s| inputs.contains(&s.as_str())) {
                c.grounded += 1;
            } else {
                c.opaque += 1;
            }
        }
    }
    c
}

fn peer(
    results: &serde_json::Value,
    model: &str,
    peer: &str,
) -> Option<(usize, usize, Option<String>)> {
    let p = &results["models"][model][peer];
    let err = p["error"].as_str().map(str::to_string);
    Some((
        p["known"].as_u64().unwrap_or(0) as usize,
        p["symbolic_grounded"].as_u64().unwrap_or(0) as usize,
        err,
    ))
}

#[test]
fn real_models_ground_at_least_what_onnxruntime_does() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let dir = corpus.join("real-models");
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("peer_results.json")).unwrap())
            .unwrap();
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for sub in ["pypi", "export", "large"] {
        let mut files: Vec<_> = std::fs::read_dir(dir.join(sub))
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "onnx"))
            .collect();
        files.sort();
        for path in files {
            let key = format!("{sub}/{}", path.file_name().unwrap().to_string_lossy());
            let mut model = symdim::read::load::load(Path::new(&path)).unwrap();
            strip(&mut model);
            let ctx = symdim::infer(&model, &Facts::default()).into_context();
            let c = classify(&model, &ctx);
            let (ok, og, oerr) = peer(&results, &key, "ort").unwrap_or((0, 0, None));
            let ours = c.known + c.grounded;
            let theirs = if oerr.is_some() { 0 } else { ok + og };
            rows.push(format!(
                "{key:<55} tensors {:>5}  known {:>5}  grounded {:>5}  opaque {:>4}  missing {:>4} | ort known+grounded {:>5}{}",
                c.total,
                c.known,
                c.grounded,
                c.opaque,
                c.missing,
                theirs,
                if oerr.is_some() { " (ort failed)" } else { "" }
            ));
            if c.missing > 0 {
                failures.push(format!("{key}: {} tensors without a known rank", c.missing));
            }
            if ours < theirs {
                failures.push(format!(
                    "{key}: {ours} known+grounded tensors, onnxruntime has {theirs}"
                ));
            }
        }
    }
    println!("{}", rows.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn silero_vad_keeps_the_if_branch_that_onnxruntime_can_run() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let path = corpus.join("real-models/pypi/silero-vad__silero_vad_16k_op15.onnx");
    let mut model = symdim::read::load::load(&path).unwrap();
    strip(&mut model);
    let ctx = symdim::infer(&model, &Facts::default()).into_context();
    let split: Vec<&str> = ctx
        .diagnostics
        .iter()
        .filter(|d| d.node == "/model/decoder/If")
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(split.len(), 1, "{:?}", ctx.diagnostics);
    // onnxruntime 1.x runs this model at 703 samples and fails in
    // /model/decoder/rnn/LSTM ("Input X must have 3 dimensions") at 704, where the
    // encoder's time dim becomes 2: the then branch (T == 1) is the valid one.
    assert!(
        split[0].contains("with the else branch, /model/decoder/rnn/LSTM (LSTM) fails"),
        "{}",
        split[0]
    );
    assert!(
        split[0].contains("that is when `floordiv(sequence - 192, 512) + 1 == 1`"),
        "{}",
        split[0]
    );
    let rel: Vec<String> = ctx
        .alg
        .relations()
        .iter()
        .filter(|r| r.node == "/model/decoder/If")
        .map(common::relation)
        .collect();
    assert_eq!(rel, ["floordiv(sequence - 192, 512) + 1 == 1"]);
    let out = ctx.get("output").unwrap();
    assert_eq!(ctx.render_dims(out.shape.as_ref().unwrap()), "[batch, 1]");
}

#[test]
fn check_agrees_with_onnxruntime_on_silero_vad() {
    // onnxruntime (CPU) runs silero_vad_16k_op15 at 192 and 703 samples, fails in
    // /model/stft/Conv at 191 (the STFT kernel of 256 does not fit 191 + 64) and
    // in the LSTM inside /model/decoder/If_1 at 704 (the encoder's time dim is 2, the
    // decoder If takes its else branch, the LSTM gets a rank-5 input).
    let Some(corpus) = common::corpus() else {
        return;
    };
    let path = corpus.join("real-models/pypi/silero-vad__silero_vad_16k_op15.onnx");
    let model = symdim::read::load::load(&path).unwrap();
    let run = |n: i64| {
        let options = Facts {
            binds: vec![("batch".into(), 1), ("sequence".into(), n)],
            ..Facts::default()
        };
        symdim::contracts::check::check(&model, &options)
    };
    use symdim::contracts::check::Status;
    for n in [192, 512, 703] {
        let v = run(n);
        assert_eq!(v.status, Status::Valid, "{n}: {:?}", v.failures);
    }
    let v = run(191);
    assert_eq!(v.status, Status::Invalid);
    assert!(
        v.failures.iter().any(|f| f.node == "/model/stft/Conv"),
        "{:?}",
        v.failures
    );
    let v = run(704);
    assert_eq!(v.status, Status::Invalid);
    assert!(
        v.failures
            .iter()
            .any(|f| f.node == "/model/decoder/rnn/LSTM"),
        "{:?}",
        v.failures
    );
}
