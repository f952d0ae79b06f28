//! The oneDNN Graph front end: conversion into the neutral graph, the `onednn` shape
//! rules against the shapes recorded in the corpus files, symbolic inputs and the
//! StaticReshape attribute check, the CLI flag, and load errors.

use super::fixture;
use crate::common;

use std::path::{Path, PathBuf};

use symdim::algebra::ParseError;
use symdim::context::{Severity, ShapesContext};
use symdim::graph::{Attr, DType, DeclDim, Model};
use symdim::ops::tensor::reshape::{check_shape_attr, AttrEntry, Condition, ShapeAttrCheck};
use symdim::read::load::{load, load_with, LoadError, LoadOptions};
use symdim::read::onednn::to_graph::{
    to_model, ConvertOptions, NameError, Symbolize, SymbolizeError,
};
use symdim::read::onednn::OnednnGraph;
use symdim::{DimExpr, Facts};

/// The loader's check of a symbol name: the expression grammar's parser.
fn check_name(name: &str) -> Result<(), NameError> {
    symdim::algebra::parse::parse_expr(name)
        .map(|_| ())
        .map_err(|e| std::sync::Arc::new(e) as NameError)
}

fn corpus_files() -> Vec<PathBuf> {
    let Some(c) = common::corpus() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut stack = vec![c.join("onednn-graph")];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "json")
                && p.file_name().is_some_and(|n| n != "manifest.json")
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn symbols(list: &[&str]) -> Vec<Symbolize> {
    list.iter().map(|s| s.parse().unwrap()).collect()
}

fn infer_file(path: &Path, syms: &[&str]) -> (Model, ShapesContext) {
    let opts = LoadOptions {
        onednn_symbols: symbols(syms),
    };
    let m = load_with(path, &opts).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let ctx = symdim::infer(&m, &Facts::default()).into_context();
    (m, ctx)
}

fn shape(ctx: &ShapesContext, name: &str) -> String {
    match ctx.get(name).and_then(|f| f.shape.clone()) {
        Some(s) => ctx.render_dims(&s),
        None => "unknown".to_string(),
    }
}

fn errors(ctx: &ShapesContext) -> Vec<String> {
    ctx.diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.to_string())
        .collect()
}

// ---------------------------------------------------------------------------------
// Conversion
// ---------------------------------------------------------------------------------

#[test]
fn fixture_converts() {
    let m = load(&fixture("int8_avgpool_reshape_fusion.json")).unwrap();
    let g = &m.graph;
    assert_eq!(m.format.name(), "onednn");
    let ops: Vec<(&str, &str, &str)> = g
        .nodes
        .iter()
        .map(|n| (n.name.as_str(), n.op_type.as_str(), n.domain.as_str()))
        .collect();
    assert_eq!(
        ops,
        vec![
            ("dqdata_op", "Dequantize", "onednn"),
            ("pool_op", "AvgPool", "onednn"),
            ("reshape", "StaticReshape", "onednn"),
            ("qout_op", "Quantize", "onednn"),
        ]
    );
    // Tensor names are logical tensor ids; s8 in, s8 out.
    assert_eq!(g.inputs.len(), 1);
    assert_eq!(g.inputs[0].dtype, DType::Int8);
    assert_eq!(
        g.inputs[0].shape,
        Some(vec![
            DeclDim::Value(1),
            DeclDim::Value(1),
            DeclDim::Value(3),
            DeclDim::Value(3)
        ])
    );
    let dq = &g.nodes[0];
    assert_eq!(dq.inputs, vec![g.inputs[0].name.clone()]);
    // Typed attributes, and dst_dtype where the output type differs from input 0's.
    assert_eq!(dq.attr("dst_dtype"), Some(&Attr::Type(DType::Float)));
    assert_eq!(dq.attr("axis"), Some(&Attr::Int(1)));
    assert_eq!(dq.attr("qtype"), Some(&Attr::Str("per_tensor".to_string())));
    let reshape = &g.nodes[2];
    assert_eq!(reshape.attr("special_zero"), Some(&Attr::Int(0)));
    assert_eq!(reshape.attr("shape"), Some(&Attr::Ints(vec![-1])));
    assert!(reshape.attr("dst_dtype").is_none());
    assert_eq!(g.outputs.len(), 1);
    assert_eq!(g.value_info.len(), 4);
}

#[test]
fn fixtures_infer() {
    let (_, ctx) = infer_file(&fixture("int8_avgpool_reshape_fusion.json"), &[]);
    assert!(errors(&ctx).is_empty(), "{:?}", errors(&ctx));
    // AvgPool [1,1,3,3] with a 2x2 kernel, stride 1, NCX.
    let m = load(&fixture("int8_avgpool_reshape_fusion.json")).unwrap();
    let pool_out = &m.graph.nodes[1].outputs[0];
    assert_eq!(shape(&ctx, pool_out), "[1, 1, 2, 2]");
    assert_eq!(ctx.get(pool_out).unwrap().dtype, DType::Float);
    let q_out = &m.graph.nodes[3].outputs[0];
    assert_eq!(ctx.get(q_out).unwrap().dtype, DType::Int8);
    assert_eq!(shape(&ctx, &m.graph.nodes[2].outputs[0]), "[4]");
    let (_, ctx) = infer_file(&fixture("static_reshape.json"), &[]);
    assert!(ctx.diagnostics.is_empty(), "{:?}", ctx.diagnostics);
    assert_eq!(shape(&ctx, "1"), "[128, 512, 16, 64]");
    // A symbolic batch: the -1 absorbs it; a hard-coded entry is an error.
    let (_, ctx) = infer_file(&fixture("int8_avgpool_reshape_fusion.json"), &["40:0=N"]);
    assert!(ctx.diagnostics.is_empty(), "{:?}", ctx.diagnostics);
    assert_eq!(shape(&ctx, "44"), "[4*N]");
    let (_, ctx) = infer_file(&fixture("static_reshape.json"), &["0:0=N"]);
    assert_eq!(
        errors(&ctx),
        vec!["error at Reshape_0: StaticReshape-1 (special_zero=0, shape=[128, 512, 16, 64]): with input [N, 1024], the shape attribute is valid only when 1024*N == 67108864"]
    );
    assert_eq!(ctx.diagnostics.len(), 1);
    assert_eq!(shape(&ctx, "1"), "[128, 512, 16, 64]");
}

#[test]
fn symbolize_requests_are_checked() {
    let text = std::fs::read_to_string(fixture("int8_avgpool_reshape_fusion.json")).unwrap();
    let g = OnednnGraph::parse(&text).unwrap();
    let conv = |s: &[&str]| {
        to_model(
            &g,
            "x.json",
            &ConvertOptions {
                symbols: symbols(s),
                check_name: Some(check_name),
            },
        )
    };
    let input = g.graph_inputs()[0];
    let produced = g.ops[0].outputs[0].id;
    match conv(&[&format!("{produced}:0=N")]) {
        Err(e @ SymbolizeError::NotAnInput { .. }) => {
            let SymbolizeError::NotAnInput {
                tensor,
                axis,
                producer,
                inputs,
            } = &e
            else {
                unreachable!()
            };
            assert_eq!((*tensor, *axis), (produced, 0));
            assert_eq!(producer, &g.ops[0].name);
            assert_eq!(inputs, g.graph_inputs());
            let ids: Vec<String> = inputs.iter().map(u64::to_string).collect();
            assert_eq!(
                e.to_string(),
                format!(
                    "--symbol {produced}:0: tensor {produced} is produced by op `{producer}`, not a graph input (inputs: {})",
                    ids.join(", ")
                )
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        conv(&["999:0=N"]),
        Err(SymbolizeError::UnknownTensor { tensor: 999, .. })
    ));
    assert!(matches!(
        conv(&[&format!("{input}:4=N")]),
        Err(SymbolizeError::AxisOutOfRange { axis: 4, .. })
    ));
    match conv(&[&format!("{input}:0=N+")]) {
        Err(e @ SymbolizeError::BadName { .. }) => {
            let SymbolizeError::BadName { name, error, .. } = &e else {
                unreachable!()
            };
            assert_eq!(name, "N+");
            // The parser's own error, carried as a value.
            let parsed = symdim::algebra::parse::parse_expr("N+").unwrap_err();
            assert_eq!(error.downcast_ref::<ParseError>(), Some(&parsed));
            assert_eq!(
                e.to_string(),
                format!("--symbol {input}:0=N+: `N+` is not a symbol or expression: {parsed}")
            );
        }
        other => panic!("{other:?}"),
    }
    let m = conv(&[&format!("{input}:0=N")]).unwrap();
    assert_eq!(
        m.graph.inputs[0].shape.as_ref().unwrap()[0],
        DeclDim::Param("N".to_string())
    );
    // Produced shapes are forgotten (benchdnn re-infers them after --in-shapes).
    assert!(m.graph.value_info.iter().all(|v| v.shape.is_none()));
    assert!("0:0".parse::<Symbolize>().is_err());
    assert!("a:0=N".parse::<Symbolize>().is_err());
    assert!("0:0=".parse::<Symbolize>().is_err());
    // Other formats refuse --symbol; unknown JSON is a typed reader error.
    let dir = std::env::temp_dir().join(format!("symdim-dnn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("bad.json");
    std::fs::write(&p, "{\"graph\": []}").unwrap();
    assert!(matches!(load(&p), Err(LoadError::OneDnn { .. })));
    let opts = LoadOptions {
        onednn_symbols: symbols(&["0:9=N"]),
    };
    assert!(matches!(
        load_with(&fixture("int8_avgpool_reshape_fusion.json"), &opts),
        Err(LoadError::OneDnnSymbol { .. })
    ));
    std::fs::remove_dir_all(&dir).ok();
}

// ---------------------------------------------------------------------------------
// The StaticReshape attribute against symbolic inputs
// ---------------------------------------------------------------------------------

/// `left == right`, both parsed.
fn equal(left: &str, right: &str) -> Condition {
    Condition::Equal {
        left: DimExpr::parse(left).unwrap(),
        right: DimExpr::parse(right).unwrap(),
    }
}

/// Entry `index` of the attribute, `value`, needs `need`.
fn entry(index: usize, value: i64, need: &str) -> Option<AttrEntry> {
    Some(AttrEntry {
        index,
        value,
        need: DimExpr::parse(need).unwrap(),
    })
}

fn attr_check(input: &[&str], shape: &[i64], special_zero: bool) -> ShapeAttrCheck {
    let mut ctx = ShapesContext::default();
    let dims: Vec<_> = input.iter().map(|d| ctx.alg.parse(d).unwrap()).collect();
    check_shape_attr(&mut ctx, &dims, shape, special_zero)
}

#[test]
fn shape_attribute_equations() {
    // Concrete input: the StaticReshape rule's business.
    assert_eq!(
        attr_check(&["2", "3"], &[6], false),
        ShapeAttrCheck::NotSymbolic
    );
    // A -1 absorbs N.
    assert_eq!(
        attr_check(&["N", "1", "2", "2"], &[-1], false),
        ShapeAttrCheck::ValidForAll
    );
    assert_eq!(
        attr_check(&["N", "256", "56", "56"], &[-1, 256, 56, 56], false),
        ShapeAttrCheck::ValidForAll
    );
    // 0 with special_zero copies N.
    assert_eq!(
        attr_check(&["N", "16", "384"], &[0, 2, 8, 384], true),
        ShapeAttrCheck::ValidForAll
    );
    // A hard-coded batch.
    assert_eq!(
        attr_check(&["N", "256", "75", "75"], &[1, 256, 75, 25, 3], false),
        ShapeAttrCheck::ValidOnlyWhen {
            condition: equal("N", "1"),
            entry: entry(0, 1, "N"),
            same_as_input: true,
        }
    );
    assert_eq!(
        attr_check(&["N", "16", "384", "64"], &[64, 2, 8, 384, 64], false),
        ShapeAttrCheck::ValidOnlyWhen {
            condition: equal("N", "64"),
            entry: entry(0, 64, "N"),
            same_as_input: true,
        }
    );
    // Two symbols: the first entry that can absorb them.
    assert_eq!(
        attr_check(&["N", "S", "64"], &[1, 128, 64], false),
        ShapeAttrCheck::ValidOnlyWhen {
            condition: equal("N*S", "128"),
            entry: entry(1, 128, "N*S"),
            same_as_input: false,
        }
    );
    // 4*N elements can never be 6.
    assert!(matches!(
        attr_check(&["N", "4"], &[6], false),
        ShapeAttrCheck::NeverValid { .. }
    ));
    // -1 that needs divisibility.
    assert_eq!(
        attr_check(&["N", "3"], &[-1, 2], false),
        ShapeAttrCheck::ValidOnlyWhen {
            condition: Condition::Divides {
                divisor: DimExpr::constant(2),
                dividend: DimExpr::parse("3*N").unwrap(),
            },
            entry: None,
            same_as_input: false,
        }
    );
    // The conditions print as the diagnostics state them.
    assert_eq!(equal("N*S", "128").to_string(), "N*S == 128");
    let divides = Condition::Divides {
        divisor: DimExpr::constant(2),
        dividend: DimExpr::parse("3*N").unwrap(),
    };
    assert_eq!(divides.to_string(), "2 divides 3*N");
    let check = attr_check(&["N", "256", "75", "75"], &[1, 256, 75, 25, 3], false);
    assert_eq!(
        check.explain("[N, 256, 75, 75]", false),
        "with input [N, 256, 75, 75], shape[0] = 1 is valid only when N == 1; \
         use -1, 0 with special_zero=1 or N"
    );
}

fn shuffle_fusion() -> Option<PathBuf> {
    let p = common::corpus()?.join("onednn-graph/head/pattern/f32/shuffle_fusion.json");
    p.exists().then_some(p)
}

/// The benchdnn harness runs shuffle_fusion with `--in-shapes=0:64x256x56x56
/// --op-attrs=0:shape:64x256x7x8x56+2:shape:64x256x56x56`: the reshape targets are
/// re-emitted per batch. With a symbolic batch symdim says which entry is wrong and
/// what it needs.
#[test]
fn symbolic_batch_shuffle_fusion() {
    let Some(p) = shuffle_fusion() else { return };
    let (mut m, ctx) = infer_file(&p, &["0:0=N"]);
    m.path = "head/pattern/f32/shuffle_fusion.json".to_string();
    assert_eq!(shape(&ctx, "0"), "[N, 256, 75, 75]");
    let e = errors(&ctx);
    // Once: the StaticReshape rule reports it, with no warning restating it.
    assert_eq!(ctx.diagnostics.len(), 1, "{:#?}", ctx.diagnostics);
    assert_eq!(
        e[0],
        "error at RESHAPE_0: StaticReshape-1 (special_zero=0, shape=[1, 256, 75, 25, 3]): with input [N, 256, 75, 75], shape[0] = 1 is valid only when N == 1; use -1, 0 with special_zero=1 or N"
    );
    common::snapshots().bind(|| {
        let report = symdim::report::Report::build(&m, &ctx);
        insta::assert_snapshot!("onednn_shuffle_fusion_symbolic_batch", report.to_text());
    });
    // The output is still what the attribute says (valid at N == 1), and the rest of
    // the graph is inferred from it.
    assert_eq!(shape(&ctx, "1"), "[1, 256, 75, 25, 3]");
    assert_eq!(shape(&ctx, "3"), "[1, 256, 75, 75]");
    // Without symbols: nothing to say.
    let (_, ctx) = infer_file(&p, &[]);
    assert!(ctx.diagnostics.is_empty(), "{:?}", ctx.diagnostics);
}

/// GQA with a symbolic batch on every input that carries it: every StaticReshape
/// whose input has the symbolic batch is checked by the rule.
#[test]
fn symbolic_batch_gqa() {
    let Some(c) = common::corpus() else { return };
    let p = c.join("onednn-graph/head/complex_fusion/mha/GQA-f32.json");
    let text = std::fs::read_to_string(&p).unwrap();
    let g = OnednnGraph::parse(&text).unwrap();
    let batch: Vec<String> = g
        .graph_inputs()
        .iter()
        .filter(|&&id| {
            g.tensor(id)
                .and_then(|t| t.shape.known())
                .is_some_and(|s| s.len() > 1 && s[0] == 32)
        })
        .map(|id| format!("{id}:0=N"))
        .collect();
    let refs: Vec<&str> = batch.iter().map(String::as_str).collect();
    let (_, ctx) = infer_file(&p, &refs);
    let e = errors(&ctx);
    // Four StaticReshapes take a batch-carrying input; each is reported once, with
    // no other diagnostic. The fifth reshapes the fourth's output, whose batch is
    // the written 32 again.
    assert_eq!(e.len(), 4, "{e:#?}");
    assert_eq!(ctx.diagnostics.len(), 4);
    for m in &e {
        assert!(
            m.contains("shape[0] = 32 is valid only when N == 32; use -1"),
            "{m}"
        );
    }
}

/// The StaticReshape rule on a symbolic input: valid for every value (no
/// diagnostic), valid under a condition (one error, no warning, the attribute's
/// shape kept), valid for no value (one typed error).
#[test]
fn static_reshape_symbolic_checks() {
    let run = |input: &[i64], target: &str, sz: &str| {
        let text = format!(
            r#"{{"version": "3.5.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": [{}]}}"#,
            op(
                0,
                "StaticReshape",
                &[("shape", "s64[]", target), ("special_zero", "bool", sz)],
                &[lt(0, "f32", input)],
                &[lt(1, "f32", &[-9223372036854775808])],
            )
        );
        let g = OnednnGraph::parse(&text).unwrap();
        let m = to_model(
            &g,
            "t.json",
            &ConvertOptions {
                symbols: symbols(&["0:0=N"]),
                check_name: Some(check_name),
            },
        )
        .unwrap();
        let ctx = symdim::infer(&m, &Facts::default()).into_context();
        let d: Vec<String> = ctx.diagnostics.iter().map(|d| d.to_string()).collect();
        (shape(&ctx, "1"), d)
    };
    // Valid for every N.
    assert_eq!(
        run(&[2, 3, 4], "[-1, 12]", "0"),
        ("[N, 12]".to_string(), vec![])
    );
    assert_eq!(
        run(&[2, 3, 4], "[0, 12]", "1"),
        ("[N, 12]".to_string(), vec![])
    );
    // The -1 needs 2 | 3*N: one error instead of the fresh-dim warning.
    let (s, d) = run(&[2, 3], "[-1, 2]", "0");
    assert_eq!(s, "[r0, 2]");
    assert_eq!(
        d,
        vec!["error at op0: StaticReshape-1 (shape=[-1, 2], special_zero=0): with input [N, 3], the shape attribute is valid only when 2 divides 3*N"]
    );
    // A hard-coded batch, with special_zero=1: 0 is offered as is.
    let (s, d) = run(&[2, 3, 4], "[2, 12]", "1");
    assert_eq!(s, "[2, 12]");
    assert_eq!(
        d,
        vec!["error at op0: StaticReshape-1 (shape=[2, 12], special_zero=1): with input [N, 3, 4], shape[0] = 2 is valid only when N == 2; use -1, 0 or N"]
    );
    // 4*N elements are never 6.
    let (s, d) = run(&[2, 4], "[6]", "0");
    assert_eq!(s, "unknown");
    assert_eq!(d.len(), 1, "{d:#?}");
    assert!(
        d[0].starts_with("error at op0: StaticReshape-1 (shape=[6], special_zero=0): attribute `shape` = [6]: with input [N, 4], the shape attribute is valid for no value of the symbols"),
        "{d:#?}"
    );
}

#[test]
fn cli_symbol_flag() {
    let Some(p) = shuffle_fusion() else { return };
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_symdim"))
        .args(["infer", p.to_str().unwrap(), "--symbol", "0:0=N"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert_eq!(
        text.matches("shape[0] = 1 is valid only when N == 1")
            .count(),
        1,
        "{text}"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_symdim"))
        .args(["infer", p.to_str().unwrap(), "--symbol", "3:0=N"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a graph input"));
}

// ---------------------------------------------------------------------------------
// The corpus
// ---------------------------------------------------------------------------------

/// Every corpus file infers with no diagnostic at all; every tensor an op produces
/// (StaticReshape included) has exactly the shape the file records; and every
/// StaticReshape output equals the manifest's Python transcription of oneDNN's
/// `infer_static_reshape_output_shape` (which also covers the StaticReshapes whose
/// output the file writes as unknown, `[INT64_MIN]`).
#[test]
fn corpus_infers_and_matches_recorded_shapes() {
    let files = corpus_files();
    if files.is_empty() {
        return;
    }
    assert_eq!(files.len(), 18);
    let root = common::corpus().unwrap().join("onednn-graph");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("manifest.json")).unwrap())
            .unwrap();
    let (mut clean, mut checked, mut matched) = (0, 0, 0);
    let (mut reshapes, mut reshapes_matched) = (0, 0);
    let mut problems = Vec::new();
    for p in &files {
        let (m, ctx) = infer_file(p, &[]);
        if ctx.diagnostics.is_empty() {
            clean += 1;
        }
        for d in &ctx.diagnostics {
            problems.push(format!("{}: {d}", p.display()));
        }
        for v in &m.graph.value_info {
            let Some(want) = v.shape.as_ref() else {
                continue;
            };
            checked += 1;
            let want: Vec<String> = want
                .iter()
                .map(|d| match d {
                    DeclDim::Value(v) => v.to_string(),
                    other => format!("{other:?}"),
                })
                .collect();
            let want = format!("[{}]", want.join(", "));
            let got = shape(&ctx, &v.name);
            if got == want {
                matched += 1;
            } else {
                problems.push(format!(
                    "{}: tensor {}: symdim {got}, file {want}",
                    p.display(),
                    v.name
                ));
            }
        }
        // StaticReshape outputs against the manifest's transcription of oneDNN.
        let rel = p.strip_prefix(&root).unwrap().to_string_lossy().to_string();
        let entry = manifest["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["file"].as_str() == Some(rel.as_str()))
            .unwrap_or_else(|| panic!("{rel} is not in the manifest"));
        let g = OnednnGraph::parse(&std::fs::read_to_string(p).unwrap()).unwrap();
        for r in entry["reshape_transpose_ops"].as_array().unwrap() {
            if r["kind"] != "StaticReshape" {
                continue;
            }
            reshapes += 1;
            let op = g.op(r["op_id"].as_u64().unwrap()).unwrap();
            let want: Vec<String> = r["python_transcription_of_onednn_infer"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_i64().unwrap().to_string())
                .collect();
            let want = format!("[{}]", want.join(", "));
            let got = shape(&ctx, &op.outputs[0].id.to_string());
            if got == want {
                reshapes_matched += 1;
            } else {
                problems.push(format!(
                    "{rel}: StaticReshape {}: symdim {got}, oneDNN {want}",
                    op.name
                ));
            }
        }
    }
    println!(
        "onednn corpus: {clean}/{} files without a diagnostic; {matched}/{checked} recorded output shapes reproduced; StaticReshape outputs {reshapes_matched}/{reshapes} equal to oneDNN's algorithm",
        files.len()
    );
    assert!(problems.is_empty(), "{problems:#?}");
    assert_eq!(clean, files.len());
    assert_eq!(reshapes, 14);
}

// ---------------------------------------------------------------------------------
// Rules on hand-built graphs
// ---------------------------------------------------------------------------------

/// A logical tensor in the JSON schema.
fn lt(id: u64, dtype: &str, shape: &[i64]) -> String {
    let strides = if shape.is_empty() {
        "[]".to_string()
    } else {
        let mut s = vec![1i64; shape.len()];
        for i in (0..shape.len() - 1).rev() {
            s[i] = s[i + 1] * shape[i + 1].max(1);
        }
        format!("{s:?}")
    };
    format!(
        r#"{{"id": {id}, "dtype": "{dtype}", "shape": {shape:?}, "stride": {strides}, "layout_type": "strided", "property_type": "undef"}}"#
    )
}

/// An op in the JSON schema; `attrs` are `(name, type, value)`.
fn op(
    id: u64,
    kind: &str,
    attrs: &[(&str, &str, &str)],
    ins: &[String],
    outs: &[String],
) -> String {
    let attrs: Vec<String> = attrs
        .iter()
        .map(|(n, t, v)| format!(r#""{n}": {{"type": "{t}", "value": {v}}}"#))
        .collect();
    format!(
        r#"{{"id": {id}, "name": "op{id}", "kind": "{kind}", "attrs": {{{}}}, "inputs": [{}], "outputs": [{}]}}"#,
        attrs.join(", "),
        ins.join(", "),
        outs.join(", ")
    )
}

fn graph(ops: &[String]) -> Model {
    let text = format!(
        r#"{{"version": "3.5.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": [{}]}}"#,
        ops.join(", ")
    );
    let g = OnednnGraph::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    to_model(&g, "t.json", &ConvertOptions::default()).unwrap()
}

#[test]
fn nn_rules() {
    let m = graph(&[
        // NCX convolution with OIX weights, groups 2, stride 2, pads 1.
        op(
            0,
            "Convolution",
            &[
                ("strides", "s64[]", "[2, 2]"),
                ("pads_begin", "s64[]", "[1, 1]"),
                ("pads_end", "s64[]", "[1, 1]"),
                ("dilations", "s64[]", "[1, 1]"),
                ("auto_pad", "string", "\"None\""),
                ("groups", "s64", "2"),
                ("data_format", "string", "\"NCX\""),
                ("weights_format", "string", "\"OIX\""),
            ],
            &[lt(0, "f32", &[1, 8, 15, 15]), lt(1, "f32", &[16, 4, 3, 3])],
            &[lt(2, "f32", &[1, 16, 8, 8])],
        ),
        op(
            1,
            "MaxPool",
            &[
                ("strides", "s64[]", "[2, 2]"),
                ("kernel", "s64[]", "[3, 3]"),
                ("pads_begin", "s64[]", "[0, 0]"),
                ("pads_end", "s64[]", "[0, 0]"),
                ("rounding_type", "string", "\"ceil\""),
                ("data_format", "string", "\"NCX\""),
            ],
            &[lt(2, "f32", &[1, 16, 8, 8])],
            &[lt(3, "f32", &[1, 16, 4, 4])],
        ),
        op(
            2,
            "BiasAdd",
            &[("data_format", "string", "\"NCX\"")],
            &[lt(3, "f32", &[1, 16, 4, 4]), lt(4, "f32", &[16])],
            &[lt(5, "f32", &[1, 16, 4, 4])],
        ),
        op(
            3,
            "LayerNorm",
            &[
                ("begin_norm_axis", "s64", "-2"),
                ("keep_stats", "bool", "1"),
            ],
            &[lt(5, "f32", &[1, 16, 4, 4])],
            &[
                lt(6, "f32", &[1, 16, 4, 4]),
                lt(7, "f32", &[1, 16]),
                lt(8, "f32", &[1, 16]),
            ],
        ),
        op(
            4,
            "MatMul",
            &[("transpose_a", "bool", "0"), ("transpose_b", "bool", "1")],
            &[
                lt(6, "f32", &[1, 16, 4, 4]),
                lt(9, "f32", &[5, 4]),
                lt(10, "f32", &[5]),
            ],
            &[lt(11, "bf16", &[1, 16, 4, 5])],
        ),
        op(
            5,
            "ReduceMean",
            &[("axes", "s64[]", "[-1]"), ("keep_dims", "bool", "0")],
            &[lt(11, "bf16", &[1, 16, 4, 5])],
            &[lt(12, "bf16", &[1, 16, 4])],
        ),
        op(
            6,
            "Interpolate",
            &[
                ("mode", "string", "\"nearest\""),
                ("scales", "f32[]", "[2.0, 0.5]"),
                ("data_format", "string", "\"NXC\""),
            ],
            &[lt(13, "f32", &[1, 6, 6, 3])],
            &[lt(14, "f32", &[1, 12, 3, 3])],
        ),
        op(
            7,
            "Concat",
            &[("axis", "s64", "-1")],
            &[lt(14, "f32", &[1, 12, 3, 3]), lt(15, "f32", &[1, 12, 3, 2])],
            &[lt(16, "f32", &[1, 12, 3, 5])],
        ),
    ]);
    let ctx = symdim::infer(&m, &Facts::default()).into_context();
    let d: Vec<String> = ctx.diagnostics.iter().map(|d| d.to_string()).collect();
    assert!(d.is_empty(), "{d:#?}");
    assert_eq!(shape(&ctx, "7"), "[1, 16]");
    assert_eq!(ctx.get("11").unwrap().dtype, DType::Bfloat16);
    assert_eq!(shape(&ctx, "12"), "[1, 16, 4]");
    assert_eq!(shape(&ctx, "16"), "[1, 12, 3, 5]");
    // The file's shapes are all reproduced (a contradiction would be an error).
    for v in &m.graph.value_info {
        let want: Vec<String> = v
            .shape
            .as_ref()
            .unwrap()
            .iter()
            .map(|d| match d {
                DeclDim::Value(x) => x.to_string(),
                _ => "?".to_string(),
            })
            .collect();
        assert_eq!(
            shape(&ctx, &v.name),
            format!("[{}]", want.join(", ")),
            "{}",
            v.name
        );
    }
}

#[test]
fn invalid_graphs_are_errors() {
    let cases = [
        (
            op(
                0,
                "Add",
                &[("auto_broadcast", "string", "\"none\"")],
                &[lt(0, "f32", &[2, 3]), lt(1, "f32", &[1, 3])],
                &[lt(2, "f32", &[2, 3])],
            ),
            "axis 0 of inputs 0 and 1: 2 != 1",
        ),
        (
            op(
                0,
                "MatMul",
                &[],
                &[lt(0, "f32", &[2, 3]), lt(1, "f32", &[4, 5])],
                &[lt(2, "f32", &[2, 5])],
            ),
            "the contracted dim (K) of inputs 0 and 1: 3 != 4",
        ),
        (
            op(
                0,
                "StaticTranspose",
                &[("order", "s64[]", "[0, 2]")],
                &[lt(0, "f32", &[2, 3])],
                &[lt(2, "f32", &[2, 3])],
            ),
            "is not a permutation",
        ),
        (
            op(
                0,
                "BiasAdd",
                &[("data_format", "string", "\"NXC\"")],
                &[lt(0, "f32", &[2, 3]), lt(1, "f32", &[2])],
                &[lt(2, "f32", &[2, 3])],
            ),
            "bias length and the channel dim: 3 != 2",
        ),
        (
            op(
                0,
                "Convolution",
                &[
                    ("groups", "s64", "1"),
                    ("weights_format", "string", "\"OIX\""),
                    ("data_format", "string", "\"NCX\""),
                ],
                &[lt(0, "f32", &[1, 3, 5, 5]), lt(1, "f32", &[8, 4, 1, 1])],
                &[lt(2, "f32", &[1, 8, 5, 5])],
            ),
            "input channels: src C and groups * weights I: 3 != 4",
        ),
        (
            op(
                0,
                "MaxPool",
                &[
                    ("kernel", "s64[]", "[3, 3]"),
                    ("strides", "s64[]", "[1, 1]"),
                    ("data_format", "string", "\"NXC\""),
                ],
                &[lt(0, "f32", &[1, 2, 2, 3])],
                &[lt(2, "f32", &[1, 1, 1, 3])],
            ),
            "axis 1: the kernel after dilation has size 3 larger than the data after padding 2",
        ),
    ];
    for (o, want) in cases {
        let m = graph(&[o]);
        let ctx = symdim::infer(&m, &Facts::default()).into_context();
        let e = errors(&ctx);
        assert!(
            e.first().is_some_and(|m| m.contains(want)),
            "{want}: {e:#?}"
        );
    }
}

// ---------------------------------------------------------------------------------
// No panics on hostile attributes and inputs
// ---------------------------------------------------------------------------------

mod hostile {
    use super::*;
    use proptest::prelude::*;
    use symdim::graph::{Graph, Node, ValueDecl};

    const ATTRS: &[&str] = &[
        "axis",
        "auto_broadcast",
        "transpose_a",
        "transpose_b",
        "order",
        "axes",
        "keep_dims",
        "strides",
        "pads_begin",
        "pads_end",
        "dilations",
        "kernel",
        "auto_pad",
        "groups",
        "data_format",
        "weights_format",
        "rounding_type",
        "begin_norm_axis",
        "keep_stats",
        "sizes",
        "scales",
        "dst_dtype",
        "shape",
        "special_zero",
        "output_padding",
        "dst_shape",
        "weights_shape",
        "src_shape",
        "use_affine",
        "exclude_pad",
    ];

    fn attr() -> impl Strategy<Value = Attr> {
        let ints = prop::sample::select(vec![-3i64, -1, 0, 1, 2, 3, i64::MAX, i64::MIN]);
        prop_oneof![
            ints.clone().prop_map(Attr::Int),
            prop::collection::vec(ints, 0..5).prop_map(Attr::Ints),
            prop::sample::select(vec![
                "numpy",
                "none",
                "NCX",
                "NXC",
                "OIX",
                "XIO",
                "IOX",
                "XOI",
                "SAME_UPPER",
                "VALID",
                "None",
                "ceil",
                "floor",
                "bf16",
                "xyz",
                ""
            ])
            .prop_map(|s| Attr::Str(s.to_string())),
            prop::collection::vec(
                prop::sample::select(vec![0.5f64, 2.0, -1.0, 1e300, f64::NAN]),
                0..4
            )
            .prop_map(Attr::Floats),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]
        #[test]
        fn onednn_rules_never_panic(
            op in prop::sample::select(
                symdim::ops::FAMILIES
                    .iter()
                    .flat_map(|f| f.iter())
                    .filter(|(domain, _, _)| *domain == "onednn")
                    .map(|(_, op, _)| *op)
                    .collect::<Vec<_>>()
            ),
            shapes in prop::collection::vec(
                prop::option::of(prop::collection::vec(prop::option::of(0i64..6), 0..6)),
                0..4,
            ),
            attrs in prop::collection::vec((0..ATTRS.len(), attr()), 0..8),
            outputs in 1usize..4,
            symbolic in any::<bool>(),
        ) {
            let mut g = Graph::default();
            for (i, s) in shapes.iter().enumerate() {
                g.inputs.push(ValueDecl {
                    name: i.to_string().into(),
                    dtype: DType::Float,
                    shape: s.as_ref().map(|d| {
                        d.iter()
                            .map(|x| match x {
                                Some(v) => DeclDim::Value(*v),
                                None if symbolic => DeclDim::Param("N".to_string()),
                                None => DeclDim::Unknown,
                            })
                            .collect()
                    }),
                });
            }
            g.nodes.push(Node {
                name: "n".to_string(),
                op_type: op.into(),
                domain: "onednn".to_string(),
                version: 1,
                inputs: (0..shapes.len()).map(|i| i.to_string().into()).collect(),
                outputs: (0..outputs).map(|i| format!("o{i}").into()).collect(),
                attrs: attrs.iter().map(|(a, v)| (ATTRS[*a].to_string(), v.clone())).collect(),
            });
            // A StaticReshape too, for its rule's symbolic attribute check.
            g.nodes.push(Node {
                name: "r".to_string(),
                op_type: "StaticReshape".into(),
                domain: "onednn".to_string(),
                version: 1,
                inputs: vec!["0".into()],
                outputs: vec!["r0".into()],
                attrs: attrs.iter().map(|(a, v)| (ATTRS[*a].to_string(), v.clone())).collect(),
            });
            let m = Model {
                path: "hostile".to_string(),
                format: symdim::graph::Format::OneDnn,
                opsets: Default::default(),
                graph: g,
            };
            let _ = symdim::infer(&m, &Facts::default()).into_context();
        }
    }
}
