//! The ONNX reader decodes float tensors only up to `MAX_FLOAT_VALUE_ELEMENTS`
//! elements (integer ones up to `MAX_VALUE_ELEMENTS`). These tests show that this
//! changes no report: on every ONNX model of the fixtures, the examples and the shared
//! corpus (when present), giving each undecoded float tensor of up to
//! `MAX_VALUE_ELEMENTS` elements values (as if the reader decoded floats up to the
//! integer limit) gives a byte-identical JSON report.

use std::path::{Path, PathBuf};

use symdim::graph::VALUE_FACT_LIMIT;
use symdim::graph::{
    Attr, ConstData, ConstTensor, DType, Graph, MAX_FLOAT_VALUE_ELEMENTS, MAX_VALUE_ELEMENTS,
};
use symdim::Facts;

use crate::common;

fn onnx_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            onnx_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "onnx") {
            out.push(p);
        }
    }
}

fn is_float(d: DType) -> bool {
    matches!(
        d,
        DType::Float | DType::Double | DType::Float16 | DType::Bfloat16
    )
}

/// Gives values to every float tensor the reader left undecoded that the integer
/// limit would have decoded; returns how many it filled.
fn fill(t: &mut ConstTensor) -> usize {
    let n = t.dims.iter().try_fold(1i64, |a, &d| a.checked_mul(d));
    match n {
        Some(n)
            if is_float(t.dtype)
                && matches!(t.data, ConstData::NotLoaded)
                && n > MAX_FLOAT_VALUE_ELEMENTS as i64
                && n <= MAX_VALUE_ELEMENTS as i64 =>
        {
            t.data = ConstData::Floats((0..n).map(|i| i as f64 * 0.5 + 1.0).collect());
            1
        }
        _ => 0,
    }
}

fn fill_graph(g: &mut Graph) -> usize {
    let mut filled = 0;
    for t in g.initializers.values_mut() {
        filled += fill(t);
    }
    for n in &mut g.nodes {
        let names: Vec<String> = n.attrs.keys().cloned().collect();
        for k in names {
            match n.attrs.get_mut(&k) {
                Some(Attr::Tensor(t)) => filled += fill(t),
                Some(Attr::Graph(sub)) => filled += fill_graph(sub),
                Some(Attr::Graphs(subs)) => {
                    filled += subs.iter_mut().map(fill_graph).sum::<usize>()
                }
                _ => {}
            }
        }
    }
    filled
}

#[test]
fn the_float_cap_covers_every_value_inference_reads() {
    const { assert!(MAX_FLOAT_VALUE_ELEMENTS >= VALUE_FACT_LIMIT) };
}

#[test]
fn undecoded_float_values_change_no_report() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = common::corpus();
    let mut files = Vec::new();
    for d in [root.join("tests/fixtures"), root.join("examples")]
        .iter()
        .chain(&corpus)
    {
        onnx_files(d, &mut files);
    }
    let options = Facts::default();
    let (mut models, mut filled) = (0, 0);
    for p in &files {
        let Ok(model) = symdim::read::load::load(p) else {
            continue;
        };
        let mut full = model.clone();
        let n = fill_graph(&mut full.graph);
        models += 1;
        if n == 0 {
            continue;
        }
        filled += n;
        assert_eq!(
            common::report(&model, &options).to_json(),
            common::report(&full, &options).to_json(),
            "{}: {n} float tensors given values change the report",
            p.display()
        );
    }
    assert!(models > 0, "no ONNX model found");
    if corpus.is_some() {
        // dyn18 alone has hundreds of 512..2048-element float weights.
        assert!(filled > 100, "only {filled} tensors filled");
    } else {
        eprintln!("shared corpus absent: {filled} tensors filled in {models} models");
    }
}
