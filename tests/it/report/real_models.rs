//! The text report of every real model of `../shared/corpus/real-models`, as an insta
//! snapshot, with every shape checked against an outside reference: the shapes
//! onnxruntime gives the tensors when it runs the model at concrete input dims.
//!
//! `tests/fixtures/runtime_shapes/<stem>.json` (written by `scripts/runtime_shapes.py`)
//! holds, per model, a value for each of symdim's input symbols (`binding`) and the
//! runtime shape of every node output of the main graph (`shapes`). The model is
//! inferred as shipped (declared `value_info` included); each dim symdim reports is
//! evaluated at the binding and must equal the runtime dim, and each rank must match.
//! A dim holding a data-dependent symbol has no value at a binding; such tensors are
//! counted apart. The relations symdim records as conditions of validity (but those
//! found in a branch that may not run) must hold at the binding too, since
//! onnxruntime ran the model there. Every mismatch is collected and printed before the test fails;
//! [`ALLOWED`] lists known, explained mismatches (none today).
//!
//! The two large models (7k and 4k tensors) get a compact snapshot (symbols, every
//! 50th tensor, outputs, diagnostics) instead of the full report, and are still
//! checked tensor by tensor against the runtime shapes.
//!
//! Skips, saying so, when the corpus is absent.

use crate::common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use symdim::algebra::{Rat, SymbolKind};
use symdim::context::ShapesContext;
use symdim::graph::Model;
use symdim::report::Report;
use symdim::Facts;

/// Known mismatches between symdim and onnxruntime: (model stem, tensor or
/// `relation of NODE`, why). Each entry is explained; an entry that no longer
/// mismatches fails the test, so that it is removed once fixed.
// Empty: symdim and onnxruntime agree on every model. Relations recorded inside a
// speculative scope (an `If` branch) are marked conditional, so that a branch's
// relation, such as silero_vad.onnx's 8 kHz Squeeze, is not claimed for the whole
// model.
const ALLOWED: &[(&str, &str, &str)] = &[];

/// Reports of models with more tensors than this are snapshotted as a summary.
const FULL_REPORT_LIMIT: usize = 1000;

/// Every how-many-th tensor the summary of a large model shows.
const SUMMARY_STRIDE: usize = 50;

struct Fixture {
    stem: String,
    /// `<sub>/<file>` in `real-models`.
    model: String,
    binding: HashMap<String, i64>,
    /// Runtime shapes: the graph inputs as fed, then every node output in graph order.
    shapes: Vec<(String, Vec<i64>)>,
}

fn fixtures() -> Vec<Fixture> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runtime_shapes");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            // serde_json keeps object order only with `preserve_order`; read the
            // shapes' order from the file instead (one tensor per line).
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            let shapes_obj = v["shapes"].as_object().unwrap();
            let mut order: Vec<(usize, String)> = shapes_obj
                .keys()
                .map(|k| {
                    let needle = format!("\n    {}: ", serde_json::to_string(k).unwrap());
                    (text.find(&needle).unwrap_or(usize::MAX), k.clone())
                })
                .collect();
            order.sort();
            let dims = |d: &serde_json::Value| -> Vec<i64> {
                d.as_array()
                    .unwrap()
                    .iter()
                    .map(|d| d.as_i64().unwrap())
                    .collect()
            };
            // The graph inputs as fed, then the node outputs.
            let inputs = v["inputs"].as_object().unwrap();
            let shapes = inputs
                .iter()
                .map(|(k, d)| (k.clone(), dims(d)))
                .chain(order.into_iter().map(|(_, k)| {
                    let d = dims(&shapes_obj[&k]);
                    (k, d)
                }))
                .collect();
            Fixture {
                stem: p.file_stem().unwrap().to_string_lossy().to_string(),
                model: v["model"].as_str().unwrap().to_string(),
                binding: v["binding"]
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(k, n)| (k.clone(), n.as_i64().unwrap()))
                    .collect(),
                shapes,
            }
        })
        .collect()
}

/// Load and infer one model as shipped; `None` when it is not in the corpus.
fn infer_model(corpus: &Path, f: &Fixture) -> Option<(Model, ShapesContext)> {
    let path = corpus.join("real-models").join(&f.model);
    if !path.is_file() {
        eprintln!("skipping {}: not in the corpus", f.model);
        return None;
    }
    let mut model = symdim::read::load::load(&path).unwrap();
    // The path as shown in the report: the same on every machine.
    model.path = f.model.clone();
    let ctx = symdim::infer(&model, &Facts::default()).into_context();
    Some((model, ctx))
}

/// The value of a symbol at the binding: input symbols from the binding, derived
/// ones through their definition, data-dependent ones have none.
fn symbol_value(ctx: &ShapesContext, binding: &HashMap<String, i64>, name: &str) -> Option<Rat> {
    match &ctx.alg.symbol_entry(name)?.kind {
        SymbolKind::Input => binding.get(name).map(|v| Rat::int(*v)),
        SymbolKind::Derived { definition } => {
            definition.eval(&|s| symbol_value(ctx, binding, s.as_str()))
        }
        SymbolKind::DataDependent { .. } => None,
    }
}

#[derive(Default)]
struct Row {
    checked: usize,
    matching: usize,
    data_dependent: usize,
    /// Relations symdim recorded (conditions for the model to be valid), checked.
    relations: usize,
    /// Relations recorded inside a branch that may not run, not checked.
    conditional: usize,
    /// Main-graph tensors symdim reports that have no runtime shape.
    unchecked: usize,
    /// (tensor, what differs); the tensor is empty for a model-level mismatch.
    mismatches: Vec<(String, String)>,
}

fn check(f: &Fixture, model: &Model, ctx: &ShapesContext) -> Row {
    let mut row = Row::default();
    let runtime: std::collections::HashSet<&str> =
        f.shapes.iter().map(|(n, _)| n.as_str()).collect();
    let g = &model.graph;
    let mut tensors: Vec<&str> = g.inputs.iter().map(|v| &*v.name).collect();
    tensors.extend(g.nodes.iter().flat_map(|n| n.outputs.iter().map(|s| &**s)));
    tensors.sort();
    tensors.dedup();
    row.unchecked = tensors
        .iter()
        .filter(|t| !t.is_empty() && !g.initializers.contains_key(**t) && !runtime.contains(**t))
        .count();
    // The binding names exactly symdim's input symbols.
    let mut inputs: Vec<&str> = ctx
        .alg
        .symbols()
        .filter(|(_, e)| e.kind == SymbolKind::Input)
        .map(|(n, _)| n)
        .collect();
    inputs.sort();
    let mut bound: Vec<&str> = f.binding.keys().map(String::as_str).collect();
    bound.sort();
    if inputs != bound {
        row.mismatches.push((
            String::new(),
            format!("binding {bound:?} does not name symdim's input symbols {inputs:?}"),
        ));
        return row;
    }
    for (name, want) in &f.shapes {
        row.checked += 1;
        let Some(fact) = ctx.get(name) else {
            row.mismatches.push((
                name.clone(),
                format!("not in symdim's context, runtime {want:?}"),
            ));
            continue;
        };
        let Some(shape) = &fact.shape else {
            row.mismatches.push((
                name.clone(),
                format!("symdim has no rank, runtime {want:?}"),
            ));
            continue;
        };
        let shown = ctx.render_dims(shape);
        if shape.len() != want.len() {
            row.mismatches.push((
                name.clone(),
                format!(
                    "rank {} ({shown}), runtime rank {} ({want:?})",
                    shape.len(),
                    want.len()
                ),
            ));
            continue;
        }
        let mut data_dependent = false;
        let mut bad = Vec::new();
        for (axis, (d, w)) in shape.iter().zip(want).enumerate() {
            match ctx.alg.eval(*d, &|s| symbol_value(ctx, &f.binding, s)) {
                Some(v) if v == Rat::int(*w) => {}
                Some(v) => bad.push(format!(
                    "axis {axis}: `{}` = {v}, runtime {w}",
                    ctx.alg.render(*d)
                )),
                None => {
                    let mut syms = Vec::new();
                    ctx.alg.canon(*d).symbols(&mut syms);
                    let dd = syms.iter().any(|s| {
                        matches!(
                            ctx.alg.symbol_entry(s.as_str()).map(|e| &e.kind),
                            Some(SymbolKind::DataDependent { .. })
                        )
                    });
                    if dd {
                        data_dependent = true;
                    } else {
                        bad.push(format!(
                            "axis {axis}: `{}` has no value at the binding, runtime {w}",
                            ctx.alg.render(*d)
                        ));
                    }
                }
            }
        }
        if !bad.is_empty() {
            row.mismatches.push((
                name.clone(),
                format!("symdim {shown}, runtime {want:?}: {}", bad.join("; ")),
            ));
        } else if data_dependent {
            row.data_dependent += 1;
        } else {
            row.matching += 1;
        }
    }
    // The conditions symdim says the model needs (`Relation`s: a squeezed dim is 1,
    // the branch a case-split If keeps, ...) must hold at a binding onnxruntime runs.
    // A relation found inside a branch that may not run is marked conditional
    // and holds only when that branch runs: those are counted, not checked.
    for r in ctx.alg.relations() {
        if r.conditional {
            row.conditional += 1;
            continue;
        }
        let env = |s: &str| symbol_value(ctx, &f.binding, s);
        let (l, rv) = (ctx.alg.eval(r.lhs, &env), ctx.alg.eval(r.rhs, &env));
        row.relations += 1;
        if let (Some(l), Some(rv)) = (&l, &rv) {
            if l != rv {
                row.mismatches.push((
                    format!("relation of {}", r.node),
                    format!(
                        "`{}` does not hold at the binding: {l} != {rv}",
                        common::relation(r)
                    ),
                ));
            }
        }
    }
    row
}

/// The text report, or for a large model a summary of it: every symbol, every
/// `SUMMARY_STRIDE`-th tensor line (with its index), the outputs and all diagnostics.
fn snapshot_text(report: &Report) -> String {
    let text = report.to_text();
    if report.tensors.len() <= FULL_REPORT_LIMIT {
        return text;
    }
    let mut out = String::new();
    let mut lines = text.lines();
    for l in lines.by_ref() {
        out.push_str(l);
        out.push('\n');
        if l == "tensors:" {
            break;
        }
    }
    out.truncate(out.len() - "tensors:\n".len());
    out.push_str(&format!(
        "tensors: (summary: every {SUMMARY_STRIDE}th of {}, by index in graph order)\n",
        report.tensors.len()
    ));
    let tensor_lines: Vec<&str> = lines.by_ref().take(report.tensors.len()).collect();
    assert_eq!(tensor_lines.len(), report.tensors.len());
    for (i, l) in tensor_lines.iter().enumerate().step_by(SUMMARY_STRIDE) {
        out.push_str(&format!("  #{i:<5}{}\n", l.trim_start()));
    }
    for l in lines {
        out.push_str(l);
        out.push('\n');
    }
    out
}

#[test]
fn real_model_shapes_match_onnxruntime() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let mut table = vec![format!(
        "{:<45} {:>8} {:>8} {:>6} {:>10} {:>9} {:>9} {:>11}",
        "model", "checked", "matching", "dd", "mismatches", "unchecked", "relations", "conditional"
    )];
    let mut failures = Vec::new();
    let mut allowed_used = vec![false; ALLOWED.len()];
    let mut models = 0;
    for f in fixtures() {
        let Some((model, ctx)) = infer_model(&corpus, &f) else {
            continue;
        };
        models += 1;
        let row = check(&f, &model, &ctx);
        let mut unexplained = 0;
        for (tensor, m) in &row.mismatches {
            match ALLOWED
                .iter()
                .position(|(m, t, _)| *m == f.stem && t == tensor)
            {
                Some(i) => allowed_used[i] = true,
                None => {
                    unexplained += 1;
                    failures.push(format!("{}: {tensor}: {m}", f.stem));
                }
            }
        }
        table.push(format!(
            "{:<45} {:>8} {:>8} {:>6} {:>10} {:>9} {:>9} {:>11}",
            f.stem,
            row.checked,
            row.matching,
            row.data_dependent,
            format!(
                "{}{}",
                row.mismatches.len(),
                if unexplained < row.mismatches.len() {
                    " (allowed)"
                } else {
                    ""
                }
            ),
            row.unchecked,
            row.relations,
            row.conditional
        ));
    }
    println!("{}", table.join("\n"));
    for ((m, t, _), used) in ALLOWED.iter().zip(&allowed_used) {
        if !used {
            failures.push(format!(
                "{m}: allow-list entry {t} no longer mismatches: remove it"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches against onnxruntime:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(models > 0, "no fixture matched a model of the corpus");
}

#[test]
fn real_model_reports() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    for f in fixtures() {
        let Some((model, ctx)) = infer_model(&corpus, &f) else {
            continue;
        };
        let report = Report::build(&model, &ctx);
        let text = snapshot_text(&report);
        let name = format!("real_model_report__{}", f.stem);
        common::snapshots().bind(|| insta::assert_snapshot!(name, text));
    }
}
