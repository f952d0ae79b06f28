//! The real models of `../shared/corpus/real-models`: every tensor gets a known rank,
//! and symdim grounds at least as many tensors as onnxruntime's symbolic shape
//! inference (`peer_results.json`), on the same stripped input the peers saw (all
//! `value_info` removed, graph-output shapes cleared).
//!
//! Skips, saying so, when the corpus is absent.
//!
//! The If-based silero-vad models choose a branch on whether the encoder's time
//! dim, `floordiv(sequence - 192, 512) + 1`, is 1, and their branches have different
//! ranks; only `T == 1` (`192 <= sequence <= 703`) gives a valid LSTM input. Without
//! that fact the rank is genuinely undecidable, so they are checked under it (and
//! the count without it is printed). `silero_vad.onnx` also branches on the value
//! of its `sr` input (8 kHz or 16 kHz), which no dim fact decides: its two
//! remaining tensors of unknown rank are listed as a known gap.

mod common;

use std::path::Path;
use symdim::algebra::SymbolKind;
use symdim::context::ShapesContext;
use symdim::graph::Model;
use symdim::infer::{infer_context, Options};

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
            if !seen.insert(o.as_str()) {
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

/// Facts a model needs (see the module doc), and tensors left without a rank even so.
fn contract(key: &str) -> (Vec<String>, usize) {
    match key {
        "pypi/silero-vad__silero_vad_16k_op15.onnx" | "pypi/silero-vad__silero_vad_half.onnx" => {
            (vec!["sequence >= 192".into(), "sequence <= 703".into()], 0)
        }
        "pypi/silero-vad__silero_vad.onnx" => (
            vec!["`input.1` >= 192".into(), "`input.1` <= 703".into()],
            2,
        ),
        _ => (vec![], 0),
    }
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
            let (mut model, _) = symdim::load::load(Path::new(&path)).unwrap();
            strip(&mut model);
            let (assumes, allowed_missing) = contract(&key);
            let without = if assumes.is_empty() {
                None
            } else {
                let ctx = infer_context(&model, &Options::default());
                Some(classify(&model, &ctx).missing)
            };
            let ctx = infer_context(
                &model,
                &Options {
                    assumes: assumes.clone(),
                    ..Options::default()
                },
            );
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
            if let Some(w) = without {
                rows.push(format!(
                    "{:<55} with {}; without them {w} tensors have no rank",
                    "",
                    assumes.join(", ")
                ));
            }
            if c.missing > allowed_missing {
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
