//! Benchmarks of reading and inferring whole models, and micro benches per op family.
//!
//! `cargo bench --bench infer` (add `-- parse_only` etc. to filter).
//!
//! - `parse_only`: read the file + `symdim::read::onnx::parse`;
//! - `load`: read + parse + conversion to the neutral graph (`symdim::read::load::load`);
//! - `parse_and_infer`: `load` + `symdim::infer` (the library's whole job for an
//!   embedder, without a report);
//! - `infer_only`: `symdim::infer` on an already loaded model (the time that must
//!   grow linearly with the node count);
//! - `constraints`, `ranges`: `infer` and then the contract, or the ranges and
//!   profile (`symdim ranges`'s work, every input symbol in `1..16`);
//! - `diff`: `symdim diff`'s work on a model and a second copy of it (two
//!   inferences, both contracts and symbol ranges, every tensor compared);
//! - `ops::*`: small hand-built graphs run through `infer`: a Reshape chain with `-1` on
//!   symbolic dims, a MatMul chain, a Conv chain, and Shape→Gather→Concat→Reshape blocks,
//!   each at 1 and 100 repetitions. They only build graphs and call `infer`, so they
//!   measure whatever rules exist: an op without a rule costs a warning diagnostic.
//!
//! The model benches run on `../shared/corpus/real-models/large/*.onnx` plus every
//! `.onnx` in `$SYMDIM_BENCH_MODELS` (a directory or file; several joined with `:`), e.g.
//! the graphs `scripts/gen_large.py` writes. Without the corpus and the variable they
//! return without timing anything (divan prints a warning for each).
//! No timing is asserted anywhere: see docs/benchmarks.md for the figures.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use divan::{black_box, Bencher};
use indexmap::IndexMap;
use symdim::graph::{
    Attr, ConstData, ConstTensor, DType, DeclDim, Format, Graph, Model, Node, ValueDecl,
};
use symdim::{infer, Facts};

fn main() {
    divan::main();
}

// ----- the model files --------------------------------------------------------------

const ABSENT: &str = "(no corpus)";

/// (display name, path) of every model to bench, in a stable order.
fn models() -> &'static [(String, PathBuf)] {
    static MODELS: OnceLock<Vec<(String, PathBuf)>> = OnceLock::new();
    MODELS.get_or_init(|| {
        let mut dirs =
            vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/real-models/large")];
        if let Ok(extra) = std::env::var("SYMDIM_BENCH_MODELS") {
            dirs.extend(
                extra
                    .split(':')
                    .filter(|s| !s.is_empty())
                    .map(PathBuf::from),
            );
        }
        let mut out = Vec::new();
        for d in dirs {
            let mut files: Vec<PathBuf> = if d.is_dir() {
                std::fs::read_dir(&d)
                    .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
                    .unwrap_or_default()
            } else if d.is_file() {
                vec![d.clone()]
            } else {
                vec![]
            };
            files.retain(|p| p.extension().is_some_and(|e| e == "onnx"));
            files.sort();
            for p in files {
                let mut name = p.file_name().unwrap().to_string_lossy().into_owned();
                // The same file name in two directories (the corpus's models and stripped
                // copies of them): name the later one by its directory too.
                if out.iter().any(|(n, _): &(String, PathBuf)| *n == name) {
                    let dir = d.file_name().map(|s| s.to_string_lossy().into_owned());
                    name = format!("{}/{name}", dir.unwrap_or_default());
                }
                out.push((name, p));
            }
        }
        out
    })
}

fn model_names() -> Vec<&'static str> {
    let names: Vec<&'static str> = models().iter().map(|(n, _)| n.as_str()).collect();
    if names.is_empty() {
        vec![ABSENT]
    } else {
        names
    }
}

fn model_path(name: &str) -> Option<&'static Path> {
    models()
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, p)| p.as_path())
}

// The large models take from milliseconds to seconds per iteration: few samples, one
// iteration each, so that a run stays short on a shared machine.

#[divan::bench(args = model_names(), sample_count = 10, sample_size = 1)]
fn parse_only(bencher: Bencher, name: &str) {
    let Some(path) = model_path(name) else { return };
    bencher.bench(|| {
        let bytes = std::fs::read(path).unwrap();
        let m = symdim::read::onnx::parse(&bytes).unwrap();
        black_box(&m);
    });
}

#[divan::bench(args = model_names(), sample_count = 10, sample_size = 1)]
fn load(bencher: Bencher, name: &str) {
    let Some(path) = model_path(name) else { return };
    bencher.bench(|| symdim::read::load::load(path).unwrap());
}

#[divan::bench(args = model_names(), sample_count = 10, sample_size = 1)]
fn parse_and_infer(bencher: Bencher, name: &str) {
    let Some(path) = model_path(name) else { return };
    let options = Facts::default();
    bencher.bench(|| {
        let model = symdim::read::load::load(path).unwrap();
        black_box(&infer(&model, &options));
    });
}

#[divan::bench(args = model_names(), sample_count = 10, sample_size = 1)]
fn infer_only(bencher: Bencher, name: &str) {
    let Some(path) = model_path(name) else { return };
    let model = symdim::read::load::load(path).unwrap();
    let options = Facts::default();
    bencher.bench(|| infer(&model, &options));
}

/// What `symdim constraints` computes, without its text: inference and the contract.
#[divan::bench(args = model_names(), sample_count = 10, sample_size = 1)]
fn constraints(bencher: Bencher, name: &str) {
    let Some(path) = model_path(name) else { return };
    let model = symdim::read::load::load(path).unwrap();
    let options = Facts::default();
    bencher.bench(|| infer(&model, &options).contract());
}

/// What `symdim diff` computes, without its text, for a model against a second copy
/// of itself: both inferences, both contracts and symbol ranges, every tensor
/// compared (without `--cost`). Compared with `infer_only` on the same model (the
/// target: at most 2.5 times its time).
#[divan::bench(args = model_names(), sample_count = 10, sample_size = 1)]
fn diff(bencher: Bencher, name: &str) {
    let Some(path) = model_path(name) else { return };
    let old = symdim::read::load::load(path).unwrap();
    let new = symdim::read::load::load(path).unwrap();
    let options = Facts::default();
    let request = symdim::analyses::diff::DiffRequest::default();
    bencher.bench(|| infer(&old, &options).diff(&infer(&new, &options), &request));
}

/// What `symdim ranges` computes, without its text: inference, the contract, the
/// profile and the per-tensor bounds, every input symbol given `1..16`. Compared
/// with `constraints` on the same model (the target: at most twice its time).
#[divan::bench(args = model_names(), sample_count = 10, sample_size = 1)]
fn ranges(bencher: Bencher, name: &str) {
    use symdim::contracts::ranges::{Request, UserRange};
    let Some(path) = model_path(name) else { return };
    let model = symdim::read::load::load(path).unwrap();
    let options = Facts::default();
    let inputs = infer(&model, &options).contract().inputs;
    let request = Request {
        ranges: inputs
            .into_iter()
            .map(|name| UserRange {
                name,
                lo: Some(1),
                hi: Some(16),
            })
            .collect(),
        opts: Vec::new(),
    };
    bencher.bench(|| infer(&model, &options).ranges(&request).unwrap());
}

// ----- micro benches per op family ----------------------------------------------------

mod ops {
    use super::*;

    const REPEATS: &[usize] = &[1, 100];

    #[divan::bench(args = REPEATS)]
    fn reshape_minus_one(bencher: Bencher, n: usize) {
        let m = reshape_chain(n);
        bencher.bench(|| infer(&m, &Facts::default()));
    }

    #[divan::bench(args = REPEATS)]
    fn matmul_chain(bencher: Bencher, n: usize) {
        let m = matmul_chain_model(n);
        bencher.bench(|| infer(&m, &Facts::default()));
    }

    #[divan::bench(args = REPEATS)]
    fn conv_chain(bencher: Bencher, n: usize) {
        let m = conv_chain_model(n);
        bencher.bench(|| infer(&m, &Facts::default()));
    }

    #[divan::bench(args = REPEATS)]
    fn shape_gather_concat_reshape(bencher: Bencher, n: usize) {
        let m = shape_subgraph_model(n);
        bencher.bench(|| infer(&m, &Facts::default()));
    }
}

// ----- graph builders ---------------------------------------------------------------------

fn sym(s: &str) -> DeclDim {
    DeclDim::Param(s.to_string())
}

fn input(name: &str, dtype: DType, dims: Vec<DeclDim>) -> ValueDecl {
    ValueDecl {
        name: name.into(),
        dtype,
        shape: Some(dims),
    }
}

fn ints(dims: &[i64], values: &[i64]) -> ConstTensor {
    ConstTensor {
        dtype: DType::Int64,
        dims: dims.to_vec(),
        data: ConstData::Ints(values.to_vec()),
    }
}

/// A weight: dims only, as the readers keep large initializers.
fn weight(dims: &[i64]) -> ConstTensor {
    ConstTensor {
        dtype: DType::Float,
        dims: dims.to_vec(),
        data: ConstData::NotLoaded,
    }
}

fn node(name: &str, op: &str, inputs: &[&str], outputs: &[&str], attrs: Vec<(&str, Attr)>) -> Node {
    Node {
        name: name.to_string(),
        op_type: op.into(),
        domain: String::new(),
        version: 17,
        inputs: inputs.iter().map(|s| (*s).into()).collect(),
        outputs: outputs.iter().map(|s| (*s).into()).collect(),
        attrs: attrs.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
    }
}

fn model(graph: Graph) -> Model {
    let mut opsets = IndexMap::new();
    opsets.insert(String::new(), 17);
    Model {
        path: format!("bench:{}", graph.name),
        format: Format::Onnx,
        opsets,
        graph,
    }
}

fn finish(mut g: Graph, last: &str) -> Model {
    g.outputs = vec![ValueDecl {
        name: last.into(),
        dtype: DType::Float,
        shape: None,
    }];
    model(g)
}

/// `x: [B, S, 768]`, then `n` Reshapes alternating `[0, -1, 12, 64]` and `[0, 0, -1]`:
/// the `-1` is solved from a product of symbolic dims each time.
fn reshape_chain(n: usize) -> Model {
    let mut g = Graph {
        name: "reshape_chain".into(),
        ..Graph::default()
    };
    g.inputs.push(input(
        "x0",
        DType::Float,
        vec![sym("B"), sym("S"), DeclDim::Value(768)],
    ));
    g.initializers
        .insert("split".into(), ints(&[4], &[0, -1, 12, 64]));
    g.initializers
        .insert("merge".into(), ints(&[3], &[0, 0, -1]));
    for i in 0..n {
        let (x, y) = (format!("x{i}"), format!("x{}", i + 1));
        let shape = if i % 2 == 0 { "split" } else { "merge" };
        g.nodes.push(node(
            &format!("r{i}"),
            "Reshape",
            &[&x, shape],
            &[&y],
            vec![],
        ));
    }
    finish(g, &format!("x{n}"))
}

/// `x: [B, S, 64]` through `n` MatMuls with `[64, 64]` weights.
fn matmul_chain_model(n: usize) -> Model {
    let mut g = Graph {
        name: "matmul_chain".into(),
        ..Graph::default()
    };
    g.inputs.push(input(
        "x0",
        DType::Float,
        vec![sym("B"), sym("S"), DeclDim::Value(64)],
    ));
    for i in 0..n {
        let (x, y, w) = (format!("x{i}"), format!("x{}", i + 1), format!("w{i}"));
        g.initializers.insert(w.clone(), weight(&[64, 64]));
        g.nodes
            .push(node(&format!("mm{i}"), "MatMul", &[&x, &w], &[&y], vec![]));
    }
    finish(g, &format!("x{n}"))
}

/// `x: [N, 8, H, W]` through `n` 3x3 Convs with padding 1, every fourth with stride 2
/// (so the spatial dims become nested floor divisions of `H` and `W`).
fn conv_chain_model(n: usize) -> Model {
    let mut g = Graph {
        name: "conv_chain".into(),
        ..Graph::default()
    };
    g.inputs.push(input(
        "x0",
        DType::Float,
        vec![sym("N"), DeclDim::Value(8), sym("H"), sym("W")],
    ));
    g.initializers.insert("w".into(), weight(&[8, 8, 3, 3]));
    g.initializers.insert("b".into(), weight(&[8]));
    for i in 0..n {
        let (x, y) = (format!("x{i}"), format!("x{}", i + 1));
        let s = if i % 4 == 3 { 2 } else { 1 };
        g.nodes.push(node(
            &format!("conv{i}"),
            "Conv",
            &[&x, "w", "b"],
            &[&y],
            vec![
                ("kernel_shape", Attr::Ints(vec![3, 3])),
                ("pads", Attr::Ints(vec![1, 1, 1, 1])),
                ("strides", Attr::Ints(vec![s, s])),
            ],
        ));
    }
    finish(g, &format!("x{n}"))
}

/// `x: [B, S, 768]`, then `n` blocks of the exporters' dynamic reshape:
/// `Shape(x) → Gather [0] / Gather [1] → Concat(b, s, [12], [64]) → Reshape`, alternating
/// with the block that merges the heads back (`Concat(b, s, [768])`).
fn shape_subgraph_model(n: usize) -> Model {
    let mut g = Graph {
        name: "shape_gather_concat_reshape".into(),
        ..Graph::default()
    };
    g.inputs.push(input(
        "x0",
        DType::Float,
        vec![sym("B"), sym("S"), DeclDim::Value(768)],
    ));
    g.initializers.insert("i0".into(), ints(&[1], &[0]));
    g.initializers.insert("i1".into(), ints(&[1], &[1]));
    g.initializers.insert("heads".into(), ints(&[1], &[12]));
    g.initializers.insert("head_dim".into(), ints(&[1], &[64]));
    g.initializers.insert("hidden".into(), ints(&[1], &[768]));
    for i in 0..n {
        let x = format!("x{i}");
        let y = format!("x{}", i + 1);
        let (s, b, q, c) = (
            format!("shape{i}"),
            format!("b{i}"),
            format!("s{i}"),
            format!("cat{i}"),
        );
        g.nodes
            .push(node(&format!("Shape_{i}"), "Shape", &[&x], &[&s], vec![]));
        g.nodes.push(node(
            &format!("Gather_b{i}"),
            "Gather",
            &[&s, "i0"],
            &[&b],
            vec![("axis", Attr::Int(0))],
        ));
        g.nodes.push(node(
            &format!("Gather_s{i}"),
            "Gather",
            &[&s, "i1"],
            &[&q],
            vec![("axis", Attr::Int(0))],
        ));
        let tail: &[&str] = if i % 2 == 0 {
            &["heads", "head_dim"]
        } else {
            &["hidden"]
        };
        let mut cat_in: Vec<&str> = vec![&b, &q];
        cat_in.extend_from_slice(tail);
        g.nodes.push(node(
            &format!("Concat_{i}"),
            "Concat",
            &cat_in,
            &[&c],
            vec![("axis", Attr::Int(0))],
        ));
        g.nodes.push(node(
            &format!("Reshape_{i}"),
            "Reshape",
            &[&x, &c],
            &[&y],
            vec![],
        ));
    }
    finish(g, &format!("x{n}"))
}
