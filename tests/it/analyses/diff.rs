//! `symdim diff` on pairs of models whose difference is known by construction:
//! each pair is written here (or read from the corpus and the fixtures), every
//! expected change is stated in the test's comment, and the text and JSON reports
//! are snapshotted (`snapshots/diff_*.snap`).

use crate::common::pb::{
    float_zeros, graph, int64_scalar, int64_tensor, model, node, value_info, Msg,
};
use crate::common::{say, snapshots};
use symdim::analyses::diff::{Change, Diff, DiffRequest, Verdict};
use symdim::read::load::LoadOptions;
use symdim::Facts;

fn f32_input(name: &str, dims: &[&str]) -> Msg {
    value_info(name, 1, Some(dims))
}

fn out(name: &str) -> Msg {
    value_info(name, 1, None)
}

/// `x: [<batch>, S, 4]`; `Range(0, S, 1)` indexes a position table of `rows` rows
/// (`Gather`), added to `x`: the contract is `S <= rows`.
fn positions(batch: &str, rows: i64) -> Vec<u8> {
    model(graph(
        vec![
            node("shape", "Shape", &["x"], &["s"]),
            node("seq", "Gather", &["s", "one"], &["len"]),
            node("range", "Range", &["zero", "len", "one"], &["ids"]),
            node("emb", "Gather", &["pos", "ids"], &["e"]),
            node("add", "Add", &["x", "e"], &["y"]),
        ],
        vec![
            int64_scalar("zero", 0),
            int64_scalar("one", 1),
            float_zeros("pos", &[rows, 4]),
        ],
        vec![f32_input("x", &[batch, "S", "4"])],
        vec![out("y")],
        vec![],
    ))
}

/// `x: [B, 768]` reshaped to `shape` (`0` copies `B`), then `Relu`.
fn reshape(shape: &[i64]) -> Vec<u8> {
    model(graph(
        vec![
            node("r", "Reshape", &["x", "t"], &["h"]),
            node("act", "Relu", &["h"], &["y"]),
        ],
        vec![int64_tensor("t", &[shape.len() as i64], shape)],
        vec![f32_input("x", &["B", "768"])],
        vec![out("y")],
        vec![],
    ))
}

/// `x: [<n>, 3]` through `Relu` to `y` and `Sigmoid` to `z`; `outputs` of them.
fn two_heads(n: &str, outputs: &[&str]) -> Vec<u8> {
    model(graph(
        vec![
            node("relu", "Relu", &["x"], &["y"]),
            node("sig", "Sigmoid", &["x"], &["z"]),
        ],
        vec![],
        vec![f32_input("x", &[n, "3"])],
        outputs.iter().map(|o| out(o)).collect(),
        vec![],
    ))
}

fn load(bytes: &[u8], name: &str) -> symdim::Model {
    symdim::load_bytes(bytes, name, &LoadOptions::default()).unwrap()
}

/// The diff of two models, with their cost.
fn diff_of(old: &[u8], new: &[u8]) -> Diff {
    diff_with(old, new, DiffRequest { cost: true })
}

fn diff_with(old: &[u8], new: &[u8], request: DiffRequest) -> Diff {
    let (a, b) = (load(old, "old.onnx"), load(new, "new.onnx"));
    let (sa, sb) = (
        symdim::infer(&a, &Facts::default()),
        symdim::infer(&b, &Facts::default()),
    );
    sa.diff(&sb, &request)
}

/// Snapshot the text and JSON of `d` as `diff_<name>_text` and `_json`.
fn snap(name: &str, d: &Diff) {
    snapshots().bind(|| {
        insta::assert_snapshot!(format!("diff_{name}_text"), d.to_text());
        insta::assert_snapshot!(format!("diff_{name}_json"), d.to_json());
    });
}

#[test]
fn diff_same_model_is_same() {
    // The same bytes twice: every dim, condition, op and cost figure is equal.
    let m = positions("B", 512);
    let d = diff_of(&m, &m);
    assert_eq!(d.verdict, Verdict::Same);
    assert!(d.inputs.is_empty() && d.outputs.is_empty() && d.ranges.is_empty());
    assert!(d.conditions.added.is_empty() && d.conditions.removed.is_empty());
    assert_eq!(d.tensors_changed, 0);
    assert_eq!(d.symbols.get("B").map(String::as_str), Some("B"));
    snap("same", &d);
}

#[test]
fn diff_renamed_symbol_is_same_with_the_mapping() {
    // `x`'s axis 0 is `B` in OLD and `N` in NEW: every dim of NEW reads as OLD's
    // once `N` is `B`, so nothing differs; the mapping is B -> N.
    let d = diff_of(&positions("B", 512), &positions("N", 512));
    assert_eq!(d.verdict, Verdict::Same);
    assert_eq!(d.symbols.get("B").map(String::as_str), Some("N"));
    assert_eq!(d.symbols.get("S").map(String::as_str), Some("S"));
    assert_eq!(d.tensors_changed, 0);
    snap("renamed_symbol", &d);
}

#[test]
fn diff_changed_reshape_constant_breaks_the_output() {
    // [B, 768] to [0, 12, 64] (OLD) or [0, 24, 32] (NEW): `h` and `y` become
    // [B, 24, 32]; axis 1 (12 vs 24) and axis 2 (64 vs 32) are never equal, so the
    // output's shape breaks; `h` and `y` are the two tensors changed, `y` first.
    let d = diff_of(&reshape(&[0, 12, 64]), &reshape(&[0, 24, 32]));
    assert_eq!(d.verdict, Verdict::Breaking);
    assert_eq!(d.outputs.len(), 1);
    assert_eq!(d.outputs[0].change, Change::Shape);
    assert!(d.outputs[0].breaking);
    assert_eq!(d.tensors_changed, 2);
    assert_eq!(d.tensors[0].name, "y");
    assert!(d.inputs.is_empty());
    snap("reshape_constant", &d);
}

#[test]
fn diff_narrowed_position_table_breaks() {
    // A table of 1024 rows (OLD) and 512 (NEW): `S <= 1024` became `S <= 512`.
    // S = 1024 is valid for OLD and not for NEW: narrowed, breaking. Only the
    // table's initializer changes: no tensor of a node output changes shape, the
    // parameters drop by 512*4 = 2048. OLD's `S <= 1024` is implied by NEW's, so
    // it is not removed; the two are paired as one check changed.
    let d = diff_of(&positions("B", 1024), &positions("B", 512));
    assert_eq!(d.verdict, Verdict::Breaking);
    assert_eq!(d.ranges.len(), 1);
    let r = &d.ranges[0];
    assert_eq!(
        (r.symbol.as_str(), r.change, r.breaking),
        ("S", "narrowed", true)
    );
    assert_eq!((r.old.as_str(), r.new.as_str()), ("1..1024", "1..512"));
    assert_eq!(r.witness.as_deref(), Some("S = 1024"));
    assert_eq!(d.conditions.added.len(), 1);
    assert!(d.conditions.removed.is_empty());
    let c = &d.conditions.changed[..];
    assert_eq!(c.len(), 1);
    assert_eq!(
        (c[0].old.as_str(), c[0].new.as_str()),
        ("S <= 1024", "S <= 512")
    );
    assert_eq!(
        (c[0].effect, c[0].witness.as_deref()),
        ("narrows", Some("S = 1024"))
    );
    assert_eq!(
        d.cost.as_ref().unwrap().parameters.difference.as_deref(),
        Some("-2048")
    );
    assert_eq!(d.tensors_changed, 0);
    snap("narrowed_table", &d);

    // The other way round: widened, compatible.
    let w = diff_of(&positions("B", 512), &positions("B", 1024));
    assert_eq!(w.verdict, Verdict::Compatible);
    assert_eq!(w.ranges[0].change, "widened");
    assert!(!w.ranges[0].breaking);
    assert_eq!(w.ranges[0].witness.as_deref(), Some("S = 513"));
    snap("widened_table", &w);
}

#[test]
fn diff_static_input_made_dynamic_is_compatible() {
    // x: [1, 3] (OLD) and [N, 3] (NEW): N stands for OLD's 1; every dim of NEW is
    // OLD's at N = 1, so the input's change and the outputs' follow it are
    // compatible, and the tensors inside are equal at N = 1.
    let d = diff_of(&two_heads("1", &["y", "z"]), &two_heads("N", &["y", "z"]));
    assert_eq!(d.verdict, Verdict::Compatible);
    assert_eq!(d.generalised.get("N"), Some(&1));
    assert_eq!(d.inputs.len(), 1);
    assert_eq!(
        (d.inputs[0].change, d.inputs[0].breaking),
        (Change::Shape, false)
    );
    assert_eq!(d.outputs.len(), 2);
    assert!(d.outputs.iter().all(|o| !o.breaking));
    snap("made_dynamic", &d);

    // The other way round, a dynamic input made static: N = 1 (OLD's min) was
    // valid and NEW's axis is 4: breaking.
    let s = diff_of(&two_heads("N", &["y"]), &two_heads("4", &["y"]));
    assert_eq!(s.verdict, Verdict::Breaking);
    assert!(s.inputs[0].breaking);
}

#[test]
fn diff_removed_output_breaks() {
    // NEW drops the output `z` (its node stays): removed, breaking; `y` unchanged.
    let d = diff_of(&two_heads("N", &["y", "z"]), &two_heads("N", &["y"]));
    assert_eq!(d.verdict, Verdict::Breaking);
    assert_eq!(d.outputs.len(), 1);
    assert_eq!(
        (d.outputs[0].name.as_str(), d.outputs[0].change),
        ("z", Change::Removed)
    );
    assert!(d.outputs[0].breaking);
    snap("removed_output", &d);

    // `z` renamed `w` (the Sigmoid's output): matched by position, breaking.
    let renamed = model(graph(
        vec![
            node("relu", "Relu", &["x"], &["y"]),
            node("sig", "Sigmoid", &["x"], &["w"]),
        ],
        vec![],
        vec![f32_input("x", &["N", "3"])],
        vec![out("y"), out("w")],
        vec![],
    ));
    let r = diff_of(&two_heads("N", &["y", "z"]), &renamed);
    assert_eq!(r.verdict, Verdict::Breaking);
    assert_eq!(r.outputs.len(), 1);
    assert_eq!(
        (r.outputs[0].name.as_str(), r.outputs[0].change),
        ("w", Change::Renamed)
    );
    assert_eq!(
        r.outputs[0].why,
        "matched by position (output 1): a caller that names `z` fails"
    );

    // Added back: an added output is compatible.
    let a = diff_of(&two_heads("N", &["y"]), &two_heads("N", &["y", "z"]));
    assert_eq!(a.verdict, Verdict::Compatible);
    assert_eq!(a.outputs[0].change, Change::Added);
}

/// The TorchScript (`_ts17`) and torch.export (`_dyn18`) exports of each
/// architecture in the corpus: the same interface and contract, a re-export inside.
#[test]
fn diff_torchscript_and_torch_export() {
    let Some(corpus) = crate::common::corpus() else {
        return;
    };
    let dir = corpus.join("real-models/export");
    for arch in ["bert_l2", "gpt2_l2", "llama_l2", "vit_l2"] {
        let (a, b) = (
            dir.join(format!("{arch}_ts17.onnx")),
            dir.join(format!("{arch}_dyn18.onnx")),
        );
        if !a.is_file() || !b.is_file() {
            say(&format!("skipping {arch}: a pair file is missing"));
            continue;
        }
        let (ma, mb) = (symdim::load(&a).unwrap(), symdim::load(&b).unwrap());
        let mut ma = ma;
        let mut mb = mb;
        ma.path = format!("{arch}_ts17.onnx");
        mb.path = format!("{arch}_dyn18.onnx");
        let (sa, sb) = (
            symdim::infer(&ma, &Facts::default()),
            symdim::infer(&mb, &Facts::default()),
        );
        let d = sa.diff(&sb, &DiffRequest { cost: true });
        assert_ne!(d.verdict, Verdict::Breaking, "{arch}:\n{}", d.to_text());
        snapshots().bind(|| {
            insta::assert_snapshot!(format!("diff_export_{arch}_text"), d.to_text());
        });
    }
}

fn run(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_symdim"))
        .args(args)
        .output()
        .expect("run symdim")
}

fn write(name: &str, bytes: &[u8]) -> String {
    let dir = std::env::temp_dir().join(format!("symdim-diff-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn diff_cli_exit_status_follows_fail_on() {
    let wide = write("wide.onnx", &positions("B", 1024));
    let narrow = write("narrow.onnx", &positions("B", 512));
    let renamed = write("renamed.onnx", &positions("N", 1024));
    let code = |args: &[&str]| run(args).status.code();
    // Breaking: 1 by default and with `breaking`, 1 with `any`, 0 with `none`.
    assert_eq!(code(&["diff", &wide, &narrow]), Some(1));
    assert_eq!(code(&["diff", &wide, &narrow, "--fail-on", "any"]), Some(1));
    assert_eq!(
        code(&["diff", &wide, &narrow, "--fail-on", "none"]),
        Some(0)
    );
    // Compatible (widened): 0 by default, 1 with `any`.
    assert_eq!(code(&["diff", &narrow, &wide]), Some(0));
    assert_eq!(code(&["diff", &narrow, &wide, "--fail-on", "any"]), Some(1));
    // Same (a symbol renamed): 0 even with `any`.
    assert_eq!(
        code(&["diff", &wide, &renamed, "--fail-on", "any"]),
        Some(0)
    );
    // An unreadable model, a bad flag value, a fact neither version names: 2.
    let missing = write("empty.onnx", b"");
    assert_eq!(code(&["diff", &wide, &missing]), Some(2));
    assert_eq!(
        code(&["diff", &wide, &narrow, "--fail-on", "maybe"]),
        Some(2)
    );
    assert_eq!(code(&["diff", &wide, &narrow, "--bind", "Q=2"]), Some(2));
    // A bind only OLD names (`B`; NEW calls it `N`) is given to OLD alone.
    assert_eq!(code(&["diff", &wide, &renamed, "--bind", "B=2"]), Some(0));
    // The JSON is the library's, byte for byte, with and without the cost.
    let out = run(&["diff", &wide, &narrow, "--format", "json", "--cost"]);
    let d = diff_of(&positions("B", 1024), &positions("B", 512));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.replace(&wide, "old.onnx").replace(&narrow, "new.onnx"),
        d.to_json()
    );
    let out = run(&["diff", &wide, &narrow, "--format", "json"]);
    let d = diff_with(
        &positions("B", 1024),
        &positions("B", 512),
        DiffRequest::default(),
    );
    assert!(d.cost.is_none());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.replace(&wide, "old.onnx").replace(&narrow, "new.onnx"),
        d.to_json()
    );
}

#[test]
fn diff_onnxruntime_optimized_block_is_compatible() {
    // tests/fixtures/diff (scripts/make_diff_models.py): onnxruntime fused the
    // written-out LayerNorm (9 nodes) into LayerNormalization and the bias Add and
    // Gelu (6 nodes) into com.microsoft BiasGelu. The interface and contract are
    // unchanged; every tensor both keep (ln, mm, g, s, bs, target, split, y) has
    // the same shape; 21 nodes became 8; the six scalar initializers the fusions
    // absorbed (eps, two, sqrt2, one, half) and the unused `axes` are gone (-6
    // parameters).
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/diff");
    let mut a = symdim::load(&dir.join("block.onnx")).unwrap();
    let mut b = symdim::load(&dir.join("block_ort_optimized.onnx")).unwrap();
    a.path = "block.onnx".into();
    b.path = "block_ort_optimized.onnx".into();
    let (sa, sb) = (
        symdim::infer(&a, &Facts::default()),
        symdim::infer(&b, &Facts::default()),
    );
    let d = sa.diff(&sb, &DiffRequest { cost: true });
    assert_eq!(d.verdict, Verdict::Compatible);
    assert!(d.inputs.is_empty() && d.outputs.is_empty() && d.ranges.is_empty());
    assert!(!d.reexport);
    assert_eq!(d.tensors_changed, 0);
    assert_eq!((d.ops.old_nodes, d.ops.new_nodes), (21, 8));
    assert_eq!(
        d.cost.as_ref().unwrap().parameters.difference.as_deref(),
        Some("-6")
    );
    assert_eq!(
        d.cost.as_ref().unwrap().macs.difference.as_deref(),
        Some("0")
    );
    snap("ort_optimized", &d);
}
