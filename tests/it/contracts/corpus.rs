//! Snapshots of `symdim constraints` on every model of
//! `../shared/corpus/real-models`, and of `symdim explain` on a few dims. Each was
//! reviewed against the model (docs/constraints.md has the onnxruntime runs that
//! confirm the conditions). Skips, saying so, when the corpus is absent.

use crate::common;

use symdim::Facts;

fn models() -> Vec<std::path::PathBuf> {
    let Some(corpus) = common::corpus() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for dir in ["export", "pypi", "large"] {
        let Ok(entries) = std::fs::read_dir(corpus.join("real-models").join(dir)) else {
            continue;
        };
        let mut v: Vec<_> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "onnx"))
            .collect();
        v.sort();
        out.extend(v);
    }
    out
}

fn load(path: &std::path::Path) -> symdim::graph::Model {
    let mut m = symdim::read::load::load(path).expect("load");
    let dir = path.parent().and_then(|p| p.file_name()).unwrap();
    m.path = format!(
        "{}/{}",
        dir.to_string_lossy(),
        path.file_name().unwrap().to_string_lossy()
    );
    m
}

#[test]
fn constraints_of_the_real_models() {
    let models = models();
    if models.is_empty() {
        return;
    }
    let mut all = String::new();
    for path in models {
        let m = load(&path);
        let options = Facts::default();
        let ctx = symdim::infer(&m, &options).into_context();
        let c = symdim::contracts::derive(&m, &ctx, &options);
        all.push_str(&c.to_text());
        all.push('\n');
    }
    common::snapshots().bind(|| insta::assert_snapshot!("contracts_real_models", all));
}

#[test]
fn explanations_of_real_model_dims() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let cases = [
        ("export/gpt2_l2_ts17.onnx", "/m/wpe/Gather_output_0[1]"),
        (
            "export/bert_l2_ts17.onnx",
            "/m/embeddings/Add_1_output_0[1]",
        ),
        (
            "export/bert_l2_ts17.onnx",
            "/m/encoder/layer.0/attention/self/Reshape_output_0[2]",
        ),
        (
            "pypi/silero-vad__silero_vad_16k_op15.onnx",
            "/model/stft/Conv_output_0[2]",
        ),
    ];
    let mut all = String::new();
    for (file, target) in cases {
        let path = corpus.join("real-models").join(file);
        let m = load(&path);
        let ctx = symdim::infer(&m, &Facts::default()).into_context();
        all.push_str(&format!("$ symdim explain {file} '{target}'\n"));
        all.push_str(&symdim::contracts::explain::explain(&m, &ctx, target).expect("explain"));
        all.push('\n');
    }
    common::snapshots().bind(|| insta::assert_snapshot!("explain_real_models", all));
}
