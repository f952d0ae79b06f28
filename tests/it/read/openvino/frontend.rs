//! The OpenVINO IR front end: conversion into the neutral graph, the `openvino` shape
//! rules on hand-built IR, the corpus (every model infers; Reshape inputs and outputs
//! against OpenVINO's own baselines, symbolic and at the static probes), and load
//! errors.

use super::corpus_dir;
use crate::common;
use crate::common::fixture::read_json;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;
use symdim::algebra::{Dim, Rat, SymbolKind, Truth};
use symdim::context::{Cause, OpError, Severity, ShapesContext};
use symdim::graph::{ConstData, DType, DeclDim, Model};
use symdim::read::load::{load, LoadError};
use symdim::read::openvino::{to_graph, IrModel, Weights};
use symdim::Facts;

// ---------------------------------------------------------------------------------
// A small IR builder
// ---------------------------------------------------------------------------------

#[derive(Default)]
struct Ir {
    layers: String,
    edges: String,
    bin: Vec<u8>,
    next: u64,
}

impl Ir {
    fn id(&mut self) -> u64 {
        self.next += 1;
        self.next - 1
    }

    fn param(&mut self, name: &str, shape: &str, et: &str) -> (u64, u64) {
        let id = self.id();
        write!(
            self.layers,
            r#"<layer id="{id}" name="{name}" type="Parameter" version="opset1"><data shape="{shape}" element_type="{et}"/><output><port id="0" precision="FP32" names="{name}"/></output></layer>"#
        )
        .unwrap();
        (id, 0)
    }

    fn konst(&mut self, name: &str, et: &str, shape: &str, bytes: Vec<u8>) -> (u64, u64) {
        let id = self.id();
        let offset = self.bin.len();
        let size = bytes.len();
        self.bin.extend(bytes);
        write!(
            self.layers,
            r#"<layer id="{id}" name="{name}" type="Const" version="opset1"><data element_type="{et}" shape="{shape}" offset="{offset}" size="{size}"/><output><port id="0" precision="I64"/></output></layer>"#
        )
        .unwrap();
        (id, 0)
    }

    fn i64s(&mut self, name: &str, vals: &[i64]) -> (u64, u64) {
        let bytes = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.konst(name, "i64", &vals.len().to_string(), bytes)
    }

    fn scalar(&mut self, name: &str, v: i64) -> (u64, u64) {
        self.konst(name, "i64", "", v.to_le_bytes().to_vec())
    }

    fn f32s(&mut self, name: &str, shape: &str, n: usize) -> (u64, u64) {
        let bytes = (0..n).flat_map(|i| (i as f32).to_le_bytes()).collect();
        self.konst(name, "f32", shape, bytes)
    }

    /// A layer with `inputs` connected in order; returns its output ports.
    fn op(
        &mut self,
        name: &str,
        ty: &str,
        version: &str,
        data: &[(&str, &str)],
        inputs: &[(u64, u64)],
        outputs: usize,
    ) -> Vec<(u64, u64)> {
        let id = self.id();
        let data: String = data.iter().map(|(k, v)| format!(r#" {k}="{v}""#)).collect();
        let ins: String = (0..inputs.len())
            .map(|i| format!(r#"<port id="{i}"/>"#))
            .collect();
        let outs: String = (0..outputs)
            .map(|i| format!(r#"<port id="{}" precision="FP32"/>"#, inputs.len() + i))
            .collect();
        write!(
            self.layers,
            r#"<layer id="{id}" name="{name}" type="{ty}" version="{version}"><data{data}/><input>{ins}</input><output>{outs}</output></layer>"#
        )
        .unwrap();
        for (i, (l, p)) in inputs.iter().enumerate() {
            write!(
                self.edges,
                r#"<edge from-layer="{l}" from-port="{p}" to-layer="{id}" to-port="{i}"/>"#
            )
            .unwrap();
        }
        (0..outputs)
            .map(|i| (id, (inputs.len() + i) as u64))
            .collect()
    }

    fn op1(
        &mut self,
        name: &str,
        ty: &str,
        version: &str,
        data: &[(&str, &str)],
        inputs: &[(u64, u64)],
    ) -> (u64, u64) {
        self.op(name, ty, version, data, inputs, 1)[0]
    }

    fn result(&mut self, src: (u64, u64)) {
        let id = self.id();
        write!(
            self.layers,
            r#"<layer id="{id}" name="out{id}" type="Result" version="opset1"><input><port id="0"/></input></layer>"#
        )
        .unwrap();
        write!(
            self.edges,
            r#"<edge from-layer="{}" from-port="{}" to-layer="{id}" to-port="0"/>"#,
            src.0, src.1
        )
        .unwrap();
    }

    fn model(&self) -> Model {
        let xml = format!(
            r#"<?xml version="1.0"?><net name="t" version="11"><layers>{}</layers><edges>{}</edges></net>"#,
            self.layers, self.edges
        );
        let ir = IrModel::parse(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
        let w = Weights::from_bytes(self.bin.clone());
        to_graph::to_model(&ir, &w, "t.xml").unwrap()
    }
}

/// Tensor name of an output port of the builder (names are never set on op ports).
fn t(p: (u64, u64)) -> String {
    format!("{}:{}", p.0, p.1)
}

fn run(m: &Model) -> ShapesContext {
    symdim::infer(m, &Facts::default()).into_context()
}

fn shape(ctx: &ShapesContext, name: &str) -> String {
    match ctx.get(name).and_then(|f| f.shape.clone()) {
        Some(s) => ctx.render_dims(&s),
        None => "unknown".to_string(),
    }
}

fn value(ctx: &ShapesContext, name: &str) -> String {
    match ctx.get(name).and_then(|f| f.value.clone()) {
        Some(s) => ctx.render_dims(&s),
        None => "none".to_string(),
    }
}

fn errors(ctx: &ShapesContext) -> Vec<String> {
    ctx.diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.to_string())
        .collect()
}

fn no_diagnostics(ctx: &ShapesContext) {
    let d: Vec<String> = ctx.diagnostics.iter().map(|d| d.to_string()).collect();
    assert!(d.is_empty(), "{d:#?}");
}

// ---------------------------------------------------------------------------------
// Conversion
// ---------------------------------------------------------------------------------

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/openvino/tiny_reshape/model.xml")
}

/// A declared interval dim `[lo, hi]` is a symbol `<tensor>.<axis>` bounded by
/// both ends, whatever characters the tensor's name holds.
#[test]
fn a_declared_interval_bounds_its_symbol() {
    use symdim::algebra::{Bound, Interval};
    let bounds = |m: &Model, symbol: &str| {
        let ctx = symdim::infer(m, &Facts::new()).into_context();
        let found = ctx.alg.symbols().find(|(n, _)| *n == symbol);
        found.map(|(_, e)| e.bounds.clone())
    };
    let iv = |lo: i64, hi: Option<i64>| {
        Interval::new(
            Bound::Finite(Rat::int(lo)),
            hi.map_or(Bound::PosInf, |h| Bound::Finite(Rat::int(h))),
        )
    };
    // The fixture's input x is [?, 3, 2..8].
    let m = load(&fixture()).unwrap();
    assert_eq!(bounds(&m, "x.2"), Some(iv(2, Some(8))));
    // A name the grammar backquotes, with a backquote in it; no upper end.
    let mut m = m;
    let odd = "in`put 1";
    m.graph.inputs[0].name = odd.into();
    m.graph.inputs[0].shape = Some(vec![DeclDim::Interval { lo: 4, hi: None }]);
    assert_eq!(bounds(&m, "in`put 1.0"), Some(iv(4, None)));
}

#[test]
fn fixture_converts() {
    let m = load(&fixture()).unwrap();
    assert_eq!(m.format.name(), "openvino");
    let g = &m.graph;
    assert_eq!(g.inputs.len(), 1);
    assert_eq!(&*g.inputs[0].name, "x");
    assert_eq!(
        g.inputs[0].shape,
        Some(vec![
            DeclDim::Unknown,
            DeclDim::Value(3),
            DeclDim::Interval { lo: 2, hi: Some(8) }
        ])
    );
    assert_eq!(g.initializers["1:0"].data, ConstData::Ints(vec![0, -1]));
    assert_eq!(g.initializers["3:0"].data, ConstData::Floats(vec![0.5]));
    assert_eq!(g.initializers["3:0"].dtype, DType::Float16);
    // Names: port names when unique ("flat", "y"), "<layer>:<port>" otherwise.
    let ops: Vec<(&str, &str, i64, &str)> = g
        .nodes
        .iter()
        .map(|n| {
            (
                n.name.as_str(),
                n.op_type.as_str(),
                n.version,
                &*n.outputs[0],
            )
        })
        .collect();
    assert_eq!(
        ops,
        vec![
            ("flat", "Reshape", 1, "flat"),
            ("scale/convert", "Convert", 1, "4:1"),
            ("scaled", "Multiply", 1, "y"),
        ]
    );
    assert_eq!(
        g.nodes[0].inputs,
        vec!["x".into(), "1:0".into()] as Vec<symdim::graph::Name>
    );
    assert_eq!(g.outputs.len(), 1);
    assert_eq!(&*g.outputs[0].name, "y");
    assert_eq!(
        g.outputs[0].shape,
        Some(vec![DeclDim::Unknown, DeclDim::Unknown])
    );
    // The scalar Convert output port has no dims: not declared.
    assert!(g.value_info.iter().all(|v| &*v.name != "4:1"));
    assert!(g.value_info.iter().any(|v| &*v.name == "flat"));
}

#[test]
fn fixture_infers_with_interval_assumptions() {
    let mut m = load(&fixture()).unwrap();
    m.path = "tests/fixtures/openvino/tiny_reshape/model.xml".to_string();
    let mut ctx = run(&m);
    assert_eq!(shape(&ctx, "x"), "[`x.0`, 3, `x.2`]");
    let x2 = ctx.alg.parse("`x.2`").unwrap();
    let b = ctx.alg.bounds(x2);
    assert_eq!(b.to_string(), "[2, 8]");
    // Convert keeps the scalar and its value.
    assert_eq!(shape(&ctx, "4:1"), "[]");
    assert_eq!(value(&ctx, "4:1"), "[1/2]");
    // Reshape with special_zero="True" and the pattern [0, -1] from the .bin: the 0
    // copies x.0, the -1 is 3*x.2 (OpenVINO: [?,6..24]); Multiply keeps it.
    no_diagnostics(&ctx);
    assert_eq!(shape(&ctx, "flat"), "[`x.0`, 3*`x.2`]");
    assert_eq!(shape(&ctx, "y"), "[`x.0`, 3*`x.2`]");
    let flat1 = ctx.get("flat").unwrap().shape.clone().unwrap()[1];
    assert_eq!(ctx.alg.bounds(flat1).to_string(), "[6, 24]");
    common::snapshots().bind(|| {
        let report = symdim::report::Report::build(&m, &ctx);
        insta::assert_snapshot!("openvino_tiny_reshape", report.to_text());
    });
}

/// Reshape attributes as the IR writes them: `special_zero` in every spelling
/// (`true`, `True`, `1`, ...), StaticReshape's `shape` as a comma-separated list.
#[test]
fn reshape_attributes_as_written() {
    for (sz, want) in [
        ("true", Ok("[`x.0`, 12]")),
        ("True", Ok("[`x.0`, 12]")),
        ("TRUE", Ok("[`x.0`, 12]")),
        ("1", Ok("[`x.0`, 12]")),
        (" true ", Ok("[`x.0`, 12]")),
        ("false", Err("volume mismatch")),
        ("False", Err("volume mismatch")),
        ("0", Err("volume mismatch")),
        (
            "yes",
            Err("attribute `special_zero` = \"yes\": expected true or false"),
        ),
    ] {
        let mut ir = Ir::default();
        let x = ir.param("x", "?,3,4", "f32");
        let p = ir.i64s("p", &[0, 12]);
        let r = ir.op1("r", "Reshape", "opset1", &[("special_zero", sz)], &[x, p]);
        let s = ir.op1(
            "s",
            "StaticReshape",
            "opset1",
            &[("special_zero", sz), ("shape", "0, 12")],
            &[x],
        );
        ir.result(r);
        ir.result(s);
        let ctx = run(&ir.model());
        match want {
            Ok(want) => {
                no_diagnostics(&ctx);
                assert_eq!(shape(&ctx, &t(r)), want, "{sz}");
                assert_eq!(shape(&ctx, &t(s)), want, "{sz}");
            }
            Err(want) => {
                let e = errors(&ctx);
                assert_eq!(e.len(), 2, "{sz}: {e:#?}");
                assert!(e.iter().all(|m| m.contains(want)), "{sz}: {e:#?}");
            }
        }
    }
    // StaticReshape: a -1, a missing or malformed `shape`.
    for (shape_attr, want) in [
        (Some("-1"), Ok("[12*`x.0`]")),
        (Some(" 0 , -1 "), Ok("[`x.0`, 12]")),
        (Some(""), Err("volume mismatch")),
        (None, Err("attribute `shape` is required")),
        (
            Some("0, x"),
            Err("attribute `shape` = \"0, x\": expected a comma-separated list of integers"),
        ),
    ] {
        let mut ir = Ir::default();
        let x = ir.param("x", "?,3,4", "f32");
        let mut data = vec![("special_zero", "true")];
        if let Some(a) = shape_attr {
            data.push(("shape", a));
        }
        let s = ir.op1("s", "StaticReshape", "opset1", &data, &[x]);
        ir.result(s);
        let ctx = run(&ir.model());
        match want {
            Ok(want) => {
                no_diagnostics(&ctx);
                assert_eq!(shape(&ctx, &t(s)), want, "{shape_attr:?}");
            }
            Err(want) => {
                let e = errors(&ctx);
                assert!(
                    e.len() == 1 && e[0].contains(want),
                    "{shape_attr:?}: {e:#?}"
                );
            }
        }
    }
}

/// The PixelShuffle pattern with batch 1 hard-coded in its Reshape targets (what
/// the corpus README describes for its PixelShuffle probe; no such model is in the
/// corpus, so it is built here): valid only for batch 1, a warning saying so with a
/// symbolic batch, an error at batch 2 (OpenVINO: "Requested output shape ... is
/// incompatible with input shape").
#[test]
fn pixel_shuffle_with_hard_coded_batch() {
    let mut ir = Ir::default();
    let x = ir.param("x", "?,8,4,4", "f32");
    let p1 = ir.i64s("p1", &[1, 2, 2, 2, 4, 4]);
    let r1 = ir.op1(
        "r1",
        "Reshape",
        "opset1",
        &[("special_zero", "false")],
        &[x, p1],
    );
    let order = ir.i64s("order", &[0, 1, 4, 2, 5, 3]);
    let tr = ir.op1("tr", "Transpose", "opset1", &[], &[r1, order]);
    let p2 = ir.i64s("p2", &[1, 2, 8, 8]);
    let r2 = ir.op1(
        "r2",
        "Reshape",
        "opset1",
        &[("special_zero", "false")],
        &[tr, p2],
    );
    ir.result(r2);
    let m = ir.model();
    let ctx = run(&m);
    assert!(errors(&ctx).is_empty());
    let w: Vec<String> = ctx.diagnostics.iter().map(|d| d.to_string()).collect();
    assert_eq!(w.len(), 1, "{w:#?}");
    assert!(
        w[0].starts_with("warning at r1:") && w[0].contains("valid when 128*`x.0` == 128"),
        "{w:#?}"
    );
    assert_eq!(shape(&ctx, &t(r2)), "[1, 2, 8, 8]");
    let bound = |n: i64| {
        symdim::infer(
            &m,
            &Facts {
                binds: vec![("x.0".to_string(), n)],
                ..Facts::default()
            },
        )
        .into_context()
    };
    let ctx = bound(1);
    no_diagnostics(&ctx);
    assert_eq!(shape(&ctx, &t(r2)), "[1, 2, 8, 8]");
    let ctx = bound(2);
    let e = errors(&ctx);
    assert!(
        e.first().is_some_and(|m| m.starts_with("error at r1:")
            && m.contains("volume mismatch: input has 256 elements, output has 128")),
        "{e:#?}"
    );
}

#[test]
fn names_fall_back_on_duplicates() {
    let mut ir = Ir::default();
    let x = ir.param("x", "2,3", "f32");
    let a = ir.op1("a", "Relu", "opset1", &[], &[x]);
    let b = ir.op1("a", "Relu", "opset1", &[], &[a]);
    ir.result(b);
    let m = ir.model();
    // Two layers named "a": node names get "#<id>".
    assert_eq!(m.graph.nodes[0].name, "a#1");
    assert_eq!(m.graph.nodes[1].name, "a#2");
    assert_eq!(m.graph.nodes[0].domain, "openvino");
}

#[test]
fn load_errors_are_typed() {
    let dir = std::env::temp_dir().join(format!("symdim-ov-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A Const without its .bin.
    let xml = std::fs::read_to_string(fixture()).unwrap();
    let p = dir.join("nobin.xml");
    std::fs::write(&p, &xml).unwrap();
    match load(&p) {
        Err(LoadError::MissingWeights { consts, .. }) => assert_eq!(consts, 2),
        other => panic!("{other:?}"),
    }
    // A Const whose bytes lie outside the weights.
    let p = dir.join("short.xml");
    std::fs::write(&p, &xml).unwrap();
    std::fs::write(dir.join("short.bin"), [0u8; 4]).unwrap();
    match load(&p) {
        Err(LoadError::OpenVino {
            source: symdim::read::openvino::IrError::ConstOutOfBounds { .. },
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
    // Broken XML.
    let p = dir.join("bad.xml");
    std::fs::write(&p, "<net version=\"11\"><layers>").unwrap();
    assert!(matches!(load(&p), Err(LoadError::OpenVino { .. })));
    // --symbol is for oneDNN only.
    let opts = symdim::read::load::LoadOptions {
        onednn_symbols: vec!["0:0=N".parse().unwrap()],
    };
    assert!(matches!(
        symdim::read::load::load_with(&fixture(), &opts),
        Err(LoadError::SymbolsNotSupported { .. })
    ));
    std::fs::remove_dir_all(&dir).ok();
}

// ---------------------------------------------------------------------------------
// Rules on hand-built graphs
// ---------------------------------------------------------------------------------

#[test]
fn shape_subgraph_values_flow() {
    // ShapeOf -> Gather -> Concat -> (a Reshape pattern); Range; Squeeze; Divide.
    let mut ir = Ir::default();
    let x = ir.param("x", "?,3,1..16,100..400", "f32");
    let s = ir.op1("s", "ShapeOf", "opset3", &[("output_type", "i64")], &[x]);
    let idx = ir.i64s("idx", &[0, 2]);
    let ax = ir.scalar("ax", 0);
    let g = ir.op1(
        "g",
        "Gather",
        "opset8",
        &[("batch_dims", "0")],
        &[s, idx, ax],
    );
    let c = ir.i64s("c", &[-1]);
    let cat = ir.op1("cat", "Concat", "opset1", &[("axis", "0")], &[g, c]);
    let two = ir.i64s("two", &[2]);
    let div = ir.op1(
        "div",
        "Divide",
        "opset1",
        &[("auto_broadcast", "numpy"), ("m_pythondiv", "true")],
        &[g, two],
    );
    let ss = ir.op1("ss", "ShapeOf", "opset3", &[("output_type", "i64")], &[s]);
    let sq = ir.op1("sq", "Squeeze", "opset1", &[], &[ss]);
    let zero = ir.scalar("zero", 2);
    let one = ir.scalar("one", 1);
    let r = ir.op1(
        "r",
        "Range",
        "opset4",
        &[("output_type", "i64")],
        &[zero, sq, one],
    );
    let red = ir.op1(
        "red",
        "ReduceMean",
        "opset1",
        &[("keep_dims", "true")],
        &[x, r],
    );
    let parts = ir.i64s("parts", &[1, -1]);
    let vs = ir.op("vs", "VariadicSplit", "opset1", &[], &[s, ax, parts], 2);
    let neg = ir.op1("neg", "Negative", "opset1", &[], &[vs[0]]);
    ir.result(cat);
    ir.result(red);
    ir.result(div);
    ir.result(neg);
    let m = ir.model();
    let mut ctx = run(&m);
    no_diagnostics(&ctx);
    assert_eq!(value(&ctx, &t(s)), "[`x.0`, 3, `x.2`, `x.3`]");
    assert_eq!(value(&ctx, &t(g)), "[`x.0`, `x.2`]");
    assert_eq!(value(&ctx, &t(cat)), "[`x.0`, `x.2`, -1]");
    assert_eq!(shape(&ctx, &t(cat)), "[3]");
    assert_eq!(
        value(&ctx, &t(div)),
        "[floordiv(`x.0`, 2), floordiv(`x.2`, 2)]"
    );
    assert_eq!(value(&ctx, &t(sq)), "[4]");
    assert_eq!(value(&ctx, &t(r)), "[2, 3]");
    assert_eq!(shape(&ctx, &t(red)), "[`x.0`, 3, 1, 1]");
    assert_eq!(value(&ctx, &t(vs[1])), "[3, `x.2`, `x.3`]");
    assert_eq!(value(&ctx, &t(neg)), "[-`x.0`]");
    // Interval inputs carry their bounds.
    let x3 = ctx.alg.parse("`x.3`").unwrap();
    assert_eq!(ctx.alg.bounds(x3).to_string(), "[100, 400]");
}

#[test]
fn broadcast_modes() {
    let mut ir = Ir::default();
    let x = ir.param("x", "?,1,4", "f32");
    let tgt = ir.i64s("tgt", &[2, 3, 4]);
    let np = ir.op1("np", "Broadcast", "opset3", &[("mode", "numpy")], &[x, tgt]);
    let tgt2 = ir.i64s("tgt2", &[5, 1]);
    let bi = ir.op1(
        "bi",
        "Broadcast",
        "opset3",
        &[("mode", "bidirectional")],
        &[x, tgt2],
    );
    let y = ir.param("y", "4", "f32");
    let tgt3 = ir.i64s("tgt3", &[2, 4, 3]);
    let map = ir.i64s("map", &[1]);
    let ex = ir.op1(
        "ex",
        "Broadcast",
        "opset3",
        &[("mode", "explicit")],
        &[y, tgt3, map],
    );
    let one = ir.f32s("one", "", 1);
    let s = ir.op1("s", "ShapeOf", "opset3", &[], &[x]);
    let ones = ir.op1(
        "ones",
        "Broadcast",
        "opset3",
        &[("mode", "numpy")],
        &[one, s],
    );
    for p in [np, bi, ex, ones] {
        ir.result(p);
    }
    let ctx = run(&ir.model());
    // numpy: data [x.0, 1, 4] to [2, 3, 4] needs x.0 == 2 (x.0 is not 1... may be 1).
    assert_eq!(shape(&ctx, &t(np)), "[2, 3, 4]");
    assert_eq!(shape(&ctx, &t(bi)), "[`x.0`, 5, 4]");
    assert_eq!(shape(&ctx, &t(ex)), "[2, 4, 3]");
    assert_eq!(shape(&ctx, &t(ones)), "[`x.0`, 1, 4]");
    assert!(errors(&ctx).is_empty(), "{:?}", errors(&ctx));
}

#[test]
fn matmul_conv_pool() {
    let mut ir = Ir::default();
    let a = ir.param("a", "?,5,7", "f32");
    let b = ir.param("b", "9,7", "f32");
    let mm = ir.op1(
        "mm",
        "MatMul",
        "opset1",
        &[("transpose_a", "false"), ("transpose_b", "true")],
        &[a, b],
    );
    let v = ir.param("v", "7", "f32");
    let mv = ir.op1("mv", "MatMul", "opset1", &[], &[a, v]);
    let x = ir.param("x", "?,3,?,?", "f32");
    let w = ir.f32s("w", "8, 3, 3, 3", 8 * 27);
    let conv = ir.op1(
        "conv",
        "Convolution",
        "opset1",
        &[
            ("strides", "2, 2"),
            ("dilations", "1, 1"),
            ("pads_begin", "1, 1"),
            ("pads_end", "1, 1"),
            ("auto_pad", "explicit"),
        ],
        &[x, w],
    );
    let gw = ir.f32s("gw", "8, 1, 1, 3, 3", 72);
    let gconv = ir.op1(
        "gconv",
        "GroupConvolution",
        "opset1",
        &[
            ("strides", "1, 1"),
            ("dilations", "1, 1"),
            ("pads_begin", "0, 0"),
            ("pads_end", "0, 0"),
            ("auto_pad", "same_upper"),
        ],
        &[conv, gw],
    );
    let mp = ir.op(
        "mp",
        "MaxPool",
        "opset8",
        &[
            ("strides", "2, 2"),
            ("dilations", "1, 1"),
            ("pads_begin", "0, 0"),
            ("pads_end", "0, 0"),
            ("kernel", "3, 3"),
            ("rounding_type", "ceil"),
            ("auto_pad", "explicit"),
            ("index_element_type", "i32"),
        ],
        &[gconv],
        2,
    );
    let ap = ir.op1(
        "ap",
        "AvgPool",
        "opset1",
        &[
            ("strides", "2, 2"),
            ("pads_begin", "0, 0"),
            ("pads_end", "0, 0"),
            ("kernel", "2, 2"),
            ("rounding_type", "floor"),
            ("exclude-pad", "true"),
            ("auto_pad", "explicit"),
        ],
        &[gconv],
    );
    for p in [mm, mv, mp[0], mp[1], ap] {
        ir.result(p);
    }
    let ctx = run(&ir.model());
    no_diagnostics(&ctx);
    assert_eq!(shape(&ctx, &t(mm)), "[`a.0`, 5, 9]");
    assert_eq!(shape(&ctx, &t(mv)), "[`a.0`, 5]");
    assert_eq!(
        shape(&ctx, &t(conv)),
        "[`x.0`, 8, floordiv(`x.2` - 1, 2) + 1, floordiv(`x.3` - 1, 2) + 1]"
    );
    assert_eq!(
        shape(&ctx, &t(gconv)),
        "[`x.0`, 8, floordiv(`x.2` - 1, 2) + 1, floordiv(`x.3` - 1, 2) + 1]"
    );
    assert_eq!(ctx.get(&t(mp[1])).unwrap().dtype, DType::Int32);
    assert_eq!(
        shape(&ctx, &t(mp[0])),
        "[`x.0`, 8, floordiv(`x.2` - 3, 4) + 1, floordiv(`x.3` - 3, 4) + 1]"
    );
    assert_eq!(
        shape(&ctx, &t(ap)),
        "[`x.0`, 8, floordiv(`x.2` - 3, 4) + 1, floordiv(`x.3` - 3, 4) + 1]"
    );
}

/// The value kernels shared with ONNX: truncating and floor division and modulo,
/// Floor over rational values, reductions of 2-D values, ceil_torch pooling.
#[test]
fn shared_value_and_window_kernels() {
    let mut ir = Ir::default();
    let a = ir.i64s("a", &[-7, 7]);
    let b = ir.i64s("b", &[2, -2]);
    let floor_div = ir.op1(
        "fd",
        "Divide",
        "opset1",
        &[("m_pythondiv", "true")],
        &[a, b],
    );
    let trunc_div = ir.op1(
        "td",
        "Divide",
        "opset1",
        &[("m_pythondiv", "false")],
        &[a, b],
    );
    let floor_mod = ir.op1("fm", "FloorMod", "opset1", &[], &[a, b]);
    let trunc_mod = ir.op1("tm", "Mod", "opset1", &[], &[a, b]);
    let x = ir.param("x", "?,8,?,?", "f32");
    let s = ir.op1("s", "ShapeOf", "opset3", &[("output_type", "i64")], &[x]);
    let sf = ir.op1(
        "sf",
        "Convert",
        "opset1",
        &[("destination_type", "f32")],
        &[s],
    );
    let half = ir.konst("half", "f32", "", 0.5f32.to_le_bytes().to_vec());
    let scaled = ir.op1("scaled", "Multiply", "opset1", &[], &[sf, half]);
    let fl = ir.op1("fl", "Floor", "opset1", &[], &[scaled]);
    let m = ir.konst(
        "m",
        "i64",
        "2, 2",
        [1i64, 2, 3, 4]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect(),
    );
    let ax = ir.i64s("ax", &[1]);
    let sum = ir.op1(
        "sum",
        "ReduceSum",
        "opset1",
        &[("keep_dims", "false")],
        &[m, ax],
    );
    let mp = ir.op1(
        "mp",
        "MaxPool",
        "opset14",
        &[
            ("strides", "4, 4"),
            ("pads_begin", "0, 0"),
            ("pads_end", "1, 1"),
            ("kernel", "3, 3"),
            ("rounding_type", "ceil_torch"),
        ],
        &[x],
    );
    for p in [floor_div, trunc_div, floor_mod, trunc_mod, fl, sum, mp] {
        ir.result(p);
    }
    let ctx = run(&ir.model());
    no_diagnostics(&ctx);
    assert_eq!(value(&ctx, &t(floor_div)), "[-4, -4]");
    assert_eq!(value(&ctx, &t(trunc_div)), "[-3, -3]");
    assert_eq!(value(&ctx, &t(floor_mod)), "[1, -1]");
    assert_eq!(value(&ctx, &t(trunc_mod)), "[-1, 1]");
    assert_eq!(
        value(&ctx, &t(fl)),
        "[floordiv(`x.0`, 2), 4, floordiv(`x.2`, 2), floordiv(`x.3`, 2)]"
    );
    assert_eq!(value(&ctx, &t(sum)), "[3, 7]");
    // ceil_torch: ceil((x - 2)/4) + 1 windows, less the last one when it starts in
    // the end padding ((out - 1)*4 >= x); both cases are floor((x - 1)/4) + 1
    // (x = 3, 4: 1 window; x = 5..8: 2; x = 9: 3).
    assert_eq!(
        shape(&ctx, &t(mp)),
        "[`x.0`, 8, floordiv(`x.2` - 1, 4) + 1, floordiv(`x.3` - 1, 4) + 1]"
    );
}

/// Divide of shape values by a divisor that may be 0, both roundings: the exact
/// quotient where it divides (9*(x - 1) over x - 1 is 9 wherever the Divide runs,
/// since OpenVINO rejects an integer division by 0), with `1 <= divisor` recorded
/// per divisor; no value where it does not divide (x over x - 1).
#[test]
fn divide_by_a_divisor_that_may_be_zero() {
    let mut ir = Ir::default();
    let x = ir.param("x", "?,?", "f32");
    let s = ir.op1("s", "ShapeOf", "opset3", &[("output_type", "i64")], &[x]);
    let one = ir.i64s("one", &[1, 1]);
    let d = ir.op1("d", "Subtract", "opset1", &[], &[s, one]);
    let nine = ir.i64s("nine", &[9, 9]);
    let n = ir.op1("n", "Multiply", "opset1", &[], &[d, nine]);
    let py = ir.op1(
        "py",
        "Divide",
        "opset1",
        &[("m_pythondiv", "true")],
        &[n, d],
    );
    let tr = ir.op1(
        "tr",
        "Divide",
        "opset1",
        &[("m_pythondiv", "false")],
        &[n, d],
    );
    let no = ir.op1(
        "no",
        "Divide",
        "opset1",
        &[("m_pythondiv", "true")],
        &[s, d],
    );
    for p in [py, tr, no] {
        ir.result(p);
    }
    let ctx = run(&ir.model());
    no_diagnostics(&ctx);
    assert_eq!(value(&ctx, &t(py)), "[9, 9]");
    assert_eq!(value(&ctx, &t(tr)), "[9, 9]");
    assert_eq!(value(&ctx, &t(no)), "none");
    assert_eq!(
        common::requirements(&ctx.alg),
        [
            ("1 <= `x.0` - 1".to_string(), "divisor", "py"),
            ("1 <= `x.1` - 1".to_string(), "divisor", "py"),
            ("1 <= `x.0` - 1".to_string(), "divisor", "tr"),
            ("1 <= `x.1` - 1".to_string(), "divisor", "tr"),
        ]
    );
}

#[test]
fn window_errors_and_channel_mismatch() {
    let mut ir = Ir::default();
    let x = ir.param("x", "1,3,2,2", "f32");
    let mp = ir.op1(
        "mp",
        "MaxPool",
        "opset1",
        &[
            ("strides", "1, 1"),
            ("pads_begin", "0, 0"),
            ("pads_end", "0, 0"),
            ("kernel", "3, 3"),
            ("rounding_type", "floor"),
        ],
        &[x],
    );
    let w = ir.f32s("w", "8, 4, 1, 1", 32);
    let conv = ir.op1(
        "conv",
        "Convolution",
        "opset1",
        &[
            ("strides", "1, 1"),
            ("dilations", "1, 1"),
            ("pads_begin", "0, 0"),
            ("pads_end", "0, 0"),
        ],
        &[x, w],
    );
    ir.result(mp);
    ir.result(conv);
    let ctx = run(&ir.model());
    let e = errors(&ctx);
    assert_eq!(e.len(), 2, "{e:#?}");
    assert!(
        e[0].contains("the kernel after dilation has size 3 larger than the data after padding 2"),
        "{e:?}"
    );
    assert!(
        e[1].contains("input channels: data C and filters C: 3 != 4"),
        "{e:?}"
    );
}

#[test]
fn slices_pads_splits_transpose() {
    let mut ir = Ir::default();
    let x = ir.param("x", "?,16,?", "f32");
    let start = ir.i64s("start", &[1, 0]);
    let stop = ir.i64s("stop", &[i64::MAX, -2]);
    let step = ir.i64s("step", &[1, 3]);
    let axes = ir.i64s("axes", &[0, 1]);
    let sl = ir.op1("sl", "Slice", "opset8", &[], &[x, start, stop, step, axes]);
    let b = ir.i64s("b", &[0, 0, 0]);
    let e = ir.i64s("e", &[0, 4, 0]);
    let ssl = ir.op1(
        "ssl",
        "StridedSlice",
        "opset1",
        &[
            ("begin_mask", "1, 0, 1"),
            ("end_mask", "1, 0, 1"),
            ("new_axis_mask", ""),
            ("shrink_axis_mask", "0, 0, 0"),
            ("ellipsis_mask", ""),
        ],
        &[x, b, e],
    );
    let b2 = ir.i64s("b2", &[0, 0]);
    let e2 = ir.i64s("e2", &[0, 0]);
    let shrink = ir.op1(
        "shrink",
        "StridedSlice",
        "opset1",
        &[
            ("begin_mask", "0, 1"),
            ("end_mask", "0, 1"),
            ("new_axis_mask", "0, 1"),
            ("shrink_axis_mask", "1, 0"),
            ("ellipsis_mask", ""),
        ],
        &[x, b2, e2],
    );
    let pb = ir.i64s("pb", &[0, 1, 2]);
    let pe = ir.i64s("pe", &[0, 1, -1]);
    let pad = ir.op1(
        "pad",
        "Pad",
        "opset12",
        &[("pad_mode", "constant")],
        &[x, pb, pe],
    );
    let ax1 = ir.scalar("ax1", 1);
    let sp = ir.op(
        "sp",
        "Split",
        "opset1",
        &[("num_splits", "4")],
        &[x, ax1],
        4,
    );
    let perm = ir.i64s("perm", &[2, 0, 1]);
    let tr = ir.op1("tr", "Transpose", "opset1", &[], &[x, perm]);
    let uaxes = ir.i64s("uaxes", &[0, -1]);
    let un = ir.op1("un", "Unsqueeze", "opset1", &[], &[x, uaxes]);
    for p in [sl, ssl, shrink, pad, sp[3], tr, un] {
        ir.result(p);
    }
    let ctx = run(&ir.model());
    no_diagnostics(&ctx);
    assert_eq!(shape(&ctx, &t(sl)), "[`x.0` - 1, 5, `x.2`]");
    assert_eq!(shape(&ctx, &t(ssl)), "[`x.0`, 4, `x.2`]");
    assert_eq!(shape(&ctx, &t(shrink)), "[1, 16, `x.2`]");
    assert_eq!(shape(&ctx, &t(pad)), "[`x.0`, 18, `x.2` + 1]");
    assert_eq!(shape(&ctx, &t(sp[3])), "[`x.0`, 4, `x.2`]");
    assert_eq!(shape(&ctx, &t(tr)), "[`x.2`, `x.0`, 16]");
    assert_eq!(shape(&ctx, &t(un)), "[1, `x.0`, 16, `x.2`, 1]");
}

#[test]
fn read_value_variable_shape() {
    // The reader decodes `variable_shape` (OpenVINO's partial-shape notation):
    // static dims stay, `?`, `-1` and intervals are fresh dims, `...` is an unknown
    // rank; text that is not a partial shape is the rule's error.
    use symdim::graph::Attr;
    assert_eq!(
        to_graph::typed_attr("variable_shape", "[?,3,2..5]"),
        Attr::Shape(Some(vec![
            DeclDim::Unknown,
            DeclDim::Value(3),
            DeclDim::Interval { lo: 2, hi: Some(5) }
        ]))
    );
    assert_eq!(
        to_graph::typed_attr("variable_shape", "..."),
        Attr::Shape(None)
    );
    assert_eq!(
        to_graph::typed_attr("variable_shape", "[1,x]"),
        Attr::Str("[1,x]".to_string())
    );
    let mut ir = Ir::default();
    let data = |shape| {
        [
            ("variable_id", "v"),
            ("variable_type", "f32"),
            ("variable_shape", shape),
        ]
    };
    let a = ir.op1("a", "ReadValue", "opset6", &data("[-1,3,2..5]"), &[]);
    let b = ir.op1("b", "ReadValue", "opset6", &data("[...]"), &[]);
    let c = ir.op1("c", "ReadValue", "opset6", &data(""), &[]);
    for p in [a, b, c] {
        ir.result(p);
    }
    let ctx = run(&ir.model());
    assert!(errors(&ctx).is_empty(), "{:?}", errors(&ctx));
    let fa = ctx.get(&t(a)).unwrap();
    assert_eq!(fa.dtype, DType::Float);
    let sa = fa.shape.clone().unwrap();
    assert_eq!(sa.len(), 3);
    assert_eq!(ctx.alg.as_i64(sa[0]), None);
    assert_eq!(ctx.alg.as_i64(sa[1]), Some(3));
    assert_eq!(ctx.alg.as_i64(sa[2]), None);
    assert_eq!(shape(&ctx, &t(b)), "unknown");
    assert_eq!(shape(&ctx, &t(c)), "[]");
    let mut ir = Ir::default();
    let bad = ir.op1("bad", "ReadValue", "opset6", &data("[1,x]"), &[]);
    ir.result(bad);
    let ctx = run(&ir.model());
    let e = errors(&ctx);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("attribute `variable_shape` = \"[1,x]\": not a partial shape"),
        "{e:?}"
    );
}

#[test]
fn extract_image_patches_window() {
    // The examples of the ExtractImagePatches-3 spec on a [1, 3, 10, 10] image:
    // valid is floor((in - rate*(size - 1) - 1) / stride) + 1, same_* is
    // ceil(in / stride); `auto_pad` is read in any case.
    let mut ir = Ir::default();
    let x = ir.param("x", "1,3,10,10", "f32");
    let s = ir.param("s", "1,3,?,?", "f32");
    let eip = |ir: &mut Ir, name: &str, sizes, strides, rates, pad, src| {
        let data = [
            ("sizes", sizes),
            ("strides", strides),
            ("rates", rates),
            ("auto_pad", pad),
        ];
        ir.op1(name, "ExtractImagePatches", "opset3", &data, &[src])
    };
    let a = eip(&mut ir, "a", "3,3", "5,5", "1,1", "valid", x);
    let b = eip(&mut ir, "b", "4,4", "8,8", "1,1", "valid", x);
    let c = eip(&mut ir, "c", "4,4", "9,9", "1,1", "same_upper", x);
    let d = eip(&mut ir, "d", "3,3", "5,5", "2,2", "VALID", x);
    let e = eip(&mut ir, "e", "3,3", "5,2", "2,1", "valid", s);
    let f = eip(&mut ir, "f", "3,3", "5,2", "2,1", "same_lower", s);
    for p in [a, b, c, d, e, f] {
        ir.result(p);
    }
    let ctx = run(&ir.model());
    assert!(errors(&ctx).is_empty(), "{:?}", errors(&ctx));
    assert_eq!(shape(&ctx, &t(a)), "[1, 27, 2, 2]");
    assert_eq!(shape(&ctx, &t(b)), "[1, 48, 1, 1]");
    assert_eq!(shape(&ctx, &t(c)), "[1, 48, 2, 2]");
    assert_eq!(shape(&ctx, &t(d)), "[1, 27, 2, 2]");
    // floordiv(s.2 - 5, 5) + 1 and floordiv(s.3 - 3, 2) + 1, simplified
    assert_eq!(
        shape(&ctx, &t(e)),
        "[1, 27, floordiv(`s.2`, 5), floordiv(`s.3` - 1, 2)]"
    );
    // ceil(s.2 / 5) and ceil(s.3 / 2)
    assert_eq!(
        shape(&ctx, &t(f)),
        "[1, 27, floordiv(`s.2` - 1, 5) + 1, floordiv(`s.3` - 1, 2) + 1]"
    );
    // The model needs each patch to fit where that is not decided: valid needs
    // in >= rate*(size - 1) + 1 (5 rows, 3 columns here); same needs in >= 1, which
    // input symbols are by default.
    let mut reqs: Vec<String> = ctx
        .alg
        .requirements()
        .iter()
        .map(common::requirement)
        .collect();
    reqs.sort();
    reqs.dedup();
    assert_eq!(reqs, ["3 <= `s.3`", "5 <= `s.2`"]);

    // Patches that do not fit, as OpenVINO's shape inference counts them:
    // (in - eff) / stride + 1 with C's truncating division, clamped at 0; an image
    // with no rows gives its own shape back.
    let mut ir = Ir::default();
    let short = ir.param("short", "1,3,2,7", "f32");
    let h = eip(&mut ir, "h", "5,5", "1,2", "1,1", "valid", short);
    let four = ir.param("four", "1,3,4,10", "f32");
    let i = eip(&mut ir, "i", "5,1", "2,1", "1,1", "valid", four);
    let empty = ir.param("empty", "1,3,0,10", "f32");
    let j = eip(&mut ir, "j", "3,3", "1,1", "1,1", "valid", empty);
    for p in [h, i, j] {
        ir.result(p);
    }
    let ctx = run(&ir.model());
    assert!(errors(&ctx).is_empty(), "{:?}", errors(&ctx));
    // rows (2 - 4 - 1)/1 + 1 = -2 -> 0; columns (7 - 4 - 1)/2 + 1 = 2
    assert_eq!(shape(&ctx, &t(h)), "[1, 75, 0, 2]");
    // rows (4 - 4 - 1)/2 + 1 = 0 + 1 = 1 (truncated); columns 10
    assert_eq!(shape(&ctx, &t(i)), "[1, 15, 1, 10]");
    assert_eq!(shape(&ctx, &t(j)), "[1, 3, 0, 10]");

    let mut ir = Ir::default();
    let x = ir.param("x", "1,3,10,10", "f32");
    let g = eip(&mut ir, "g", "3,3", "5,5", "1,1", "explicit", x);
    ir.result(g);
    let ctx = run(&ir.model());
    let errs = errors(&ctx);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(
        errs[0].contains("`auto_pad` = \"explicit\": expected valid, same_upper or same_lower"),
        "{errs:?}"
    );
}

#[test]
fn cumsum_and_reverse_sequence_kernels() {
    // OpenVINO CumSum-3 and ReverseSequence-1 run the ONNX kernels: values from
    // the spec examples, shape-tensor values through the algebra, and the checks
    // of both specs.
    let mut ir = Ir::default();
    let v = ir.i64s("v", &[1, 2, 3, 4, 5]);
    let ax = ir.scalar("ax", 0);
    let cs = |ir: &mut Ir, name: &str, ex: &str, rev: &str, ins: &[(u64, u64)]| {
        let data = [("exclusive", ex), ("reverse", rev)];
        ir.op1(name, "CumSum", "opset3", &data, ins)
    };
    let inc = cs(&mut ir, "inc", "false", "false", &[v, ax]);
    let exc = cs(&mut ir, "exc", "true", "false", &[v]);
    let rev = cs(&mut ir, "rev", "0", "1", &[v, ax]);
    let both = cs(&mut ir, "both", "True", "True", &[v, ax]);
    let x = ir.param("x", "?,6,5", "f32");
    let sh = ir.op1("sh", "ShapeOf", "opset3", &[("output_type", "i64")], &[x]);
    let sym = cs(&mut ir, "sym", "false", "false", &[sh]);
    // ReverseSequence: 4x4 data 0..15, lengths [1, 2, 3, 4] along the rows.
    let m: Vec<i64> = (0..16).collect();
    let bytes = m.iter().flat_map(|v| v.to_le_bytes()).collect();
    let data = ir.konst("data", "i64", "4,4", bytes);
    let lens = ir.i64s("lens", &[1, 2, 3, 4]);
    let rs = |ir: &mut Ir, name: &str, b: &str, s: &str, ins: &[(u64, u64)]| {
        let attrs = [("batch_axis", b), ("seq_axis", s)];
        ir.op1(name, "ReverseSequence", "opset1", &attrs, ins)
    };
    let rows = rs(&mut ir, "rows", "0", "1", &[data, lens]);
    let neg = rs(&mut ir, "neg", "-2", "-1", &[data, lens]);
    let cols = rs(&mut ir, "cols", "1", "0", &[data, lens]);
    let lens_f = ir.f32s("lens_f", "6", 6);
    let big = rs(&mut ir, "big", "1", "0", &[x, lens_f]);
    for p in [inc, exc, rev, both, sym, rows, neg, cols, big] {
        ir.result(p);
    }
    let ctx = run(&ir.model());
    assert!(errors(&ctx).is_empty(), "{:?}", errors(&ctx));
    assert_eq!(value(&ctx, &t(inc)), "[1, 3, 6, 10, 15]");
    assert_eq!(value(&ctx, &t(exc)), "[0, 1, 3, 6, 10]");
    assert_eq!(value(&ctx, &t(rev)), "[15, 14, 12, 9, 5]");
    assert_eq!(value(&ctx, &t(both)), "[14, 12, 9, 5, 0]");
    assert_eq!(value(&ctx, &t(sym)), "[`x.0`, `x.0` + 6, `x.0` + 11]");
    let rows_v = "[0, 1, 2, 3, 5, 4, 6, 7, 10, 9, 8, 11, 15, 14, 13, 12]";
    assert_eq!(value(&ctx, &t(rows)), rows_v);
    assert_eq!(value(&ctx, &t(neg)), rows_v);
    // batch along the columns: column j reverses its first j + 1 rows
    let cols_v = "[0, 5, 10, 15, 4, 1, 6, 11, 8, 9, 2, 7, 12, 13, 14, 3]";
    assert_eq!(value(&ctx, &t(cols)), cols_v);
    assert_eq!(shape(&ctx, &t(big)), "[`x.0`, 6, 5]");
    // Errors: an axis out of range, lengths that do not match the batch.
    let mut ir = Ir::default();
    let v = ir.i64s("v", &[1, 2, 3]);
    let ax = ir.scalar("ax", 1);
    let bad_axis = cs(&mut ir, "bad_axis", "false", "false", &[v, ax]);
    let x = ir.param("x", "2,6,5", "f32");
    let lens = ir.i64s("lens", &[1, 2, 3]);
    let bad_batch = rs(&mut ir, "bad_batch", "1", "0", &[x, lens]);
    let bad_seq = rs(&mut ir, "bad_seq", "0", "3", &[x, lens]);
    for p in [bad_axis, bad_batch, bad_seq] {
        ir.result(p);
    }
    let ctx = run(&ir.model());
    let errs = errors(&ctx);
    assert_eq!(errs.len(), 3, "{errs:?}");
    assert!(errs[0].contains("axis 1 is out of range"), "{errs:?}");
    assert!(
        errs[1].contains("batch of data and seq_lengths"),
        "{errs:?}"
    );
    assert!(errs[2].contains("axis 3"), "{errs:?}");
}

#[test]
fn kernels_shared_with_onnx() {
    // The OpenVINO rules run the ONNX families' kernels: Tile and NonZero keep
    // contents, an undecided equal Split is the exact quotient, and Slice clamps
    // the start of a negative step as Python does.
    let mut ir = Ir::default();
    let x = ir.param("x", "?,6,5", "f32");
    let s = ir.op1("s", "ShapeOf", "opset3", &[("output_type", "i64")], &[x]);
    let reps = ir.i64s("reps", &[2]);
    let tile = ir.op1("tile", "Tile", "opset1", &[], &[s, reps]);
    let c = ir.i64s("c", &[0, 3, 0, 5]);
    let nz = ir.op1("nz", "NonZero", "opset3", &[("output_type", "i64")], &[c]);
    let ax0 = ir.scalar("ax0", 0);
    let sp = ir.op(
        "sp",
        "Split",
        "opset1",
        &[("num_splits", "2")],
        &[x, ax0],
        2,
    );
    let start = ir.i64s("start", &[-100]);
    let stop = ir.i64s("stop", &[-100]);
    let step = ir.i64s("step", &[-1]);
    let ax2 = ir.i64s("ax2", &[2]);
    let back = ir.op1("back", "Slice", "opset8", &[], &[x, start, stop, step, ax2]);
    for p in [tile, nz, sp[0], back] {
        ir.result(p);
    }
    let ctx = run(&ir.model());
    assert!(errors(&ctx).is_empty(), "{:?}", errors(&ctx));
    assert_eq!(value(&ctx, &t(tile)), "[`x.0`, 6, 5, `x.0`, 6, 5]");
    assert_eq!(shape(&ctx, &t(nz)), "[1, 2]");
    assert_eq!(value(&ctx, &t(nz)), "[1, 3]");
    assert_eq!(shape(&ctx, &t(sp[0])), "[`x.0`/2, 6, 5]");
    // ONNX would read one element ([0, d-1] clamps the start); Python reads none.
    assert_eq!(shape(&ctx, &t(back)), "[`x.0`, 6, 0]");
}

#[test]
fn lstm_sequence_and_misc() {
    let mut ir = Ir::default();
    let x = ir.param("x", "?,?,64", "f32");
    let h = ir.param("h", "?,1,128", "f32");
    let c = ir.param("c", "?,1,128", "f32");
    let sl = ir.param("sl", "?", "i64");
    let w = ir.f32s("w", "1, 512, 64", 512 * 64);
    let r = ir.f32s("r", "1, 512, 128", 512 * 128);
    let bb = ir.f32s("bb", "1, 512", 512);
    let lstm = ir.op(
        "lstm",
        "LSTMSequence",
        "opset5",
        &[
            ("direction", "forward"),
            ("hidden_size", "128"),
            ("activations", "sigmoid, tanh, tanh"),
            ("clip", "0"),
        ],
        &[x, h, c, sl, w, r, bb],
        3,
    );
    let sm = ir.op1("sm", "SoftMax", "opset8", &[("axis", "-1")], &[lstm[0]]);
    let sc = ir.op1(
        "sc",
        "ShuffleChannels",
        "opset1",
        &[("axis", "1"), ("group", "1")],
        &[lstm[1]],
    );
    let cond = ir.param("cond", "1,?", "boolean");
    let sel = ir.op1(
        "sel",
        "Select",
        "opset1",
        &[("auto_broadcast", "numpy")],
        &[cond, x, x],
    );
    for p in [sm, sc, lstm[2], sel] {
        ir.result(p);
    }
    let mut ctx = run(&ir.model());
    assert!(errors(&ctx).is_empty(), "{:?}", errors(&ctx));
    // X's batch and H0's batch are one symbol now (rendered by the representative).
    assert_eq!(shape(&ctx, &t(lstm[0])), "[`h.0`, 1, `x.1`, 128]");
    assert_eq!(shape(&ctx, &t(sm)), "[`h.0`, 1, `x.1`, 128]");
    assert_eq!(shape(&ctx, &t(lstm[2])), "[`h.0`, 1, 128]");
    // The hidden state's batch is the same symbol now.
    let (xb, hb) = (
        ctx.alg.parse("`x.0`").unwrap(),
        ctx.alg.parse("`h.0`").unwrap(),
    );
    assert_eq!(
        ctx.alg.egraph().find(xb.id()),
        ctx.alg.egraph().find(hb.id())
    );
    assert_eq!(shape(&ctx, &t(sel)), "[`h.0`, `x.1`, 64]");
}

// ---------------------------------------------------------------------------------
// The corpus against OpenVINO's baselines
// ---------------------------------------------------------------------------------

/// One dim of an OpenVINO partial shape string.
#[derive(Debug, Clone, PartialEq)]
enum BDim {
    Static(i64),
    /// A dynamic dim with the harness's symbol `<param>#<axis>`.
    Sym(String),
    /// A dynamic dim without a symbol: `[lo, hi]`.
    Dyn(i64, Option<i64>),
}

fn parse_baseline(s: &str) -> Option<Vec<BDim>> {
    let s = s.trim().trim_start_matches('[').trim_end_matches(']');
    if s == "..." {
        return None;
    }
    if s.is_empty() {
        return Some(Vec::new());
    }
    Some(
        s.split(',')
            .map(|f| {
                let (dim, sym) = match f.split_once('@') {
                    Some((d, s)) => (d, Some(s)),
                    None => (f, None),
                };
                if let Ok(v) = dim.parse::<i64>() {
                    return BDim::Static(v);
                }
                if let Some(s) = sym {
                    return BDim::Sym(s.to_string());
                }
                if dim == "?" {
                    return BDim::Dyn(0, None);
                }
                let (lo, hi) = dim.split_once("..").unwrap_or((dim, dim));
                BDim::Dyn(lo.parse().unwrap_or(0), hi.parse().ok())
            })
            .collect(),
    )
}

/// How one symdim shape compares with OpenVINO's (the worst dim decides).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Verdict {
    /// As precise as OpenVINO: the same value or symbol, or (where OpenVINO gives
    /// `?` or an interval) a dim without a closed form either, within its bounds.
    Exact,
    /// Where OpenVINO gives `?`, an interval or a dynamic rank, symdim has a value
    /// or a closed form of the inputs (within OpenVINO's bounds); nothing less
    /// precise elsewhere.
    MorePrecise,
    /// A value or symbol OpenVINO knows is not known to symdim, a dim without a
    /// closed form has looser bounds than OpenVINO's interval, or no rank.
    LessPrecise,
    /// A value, symbol, bound or rank that contradicts OpenVINO's.
    Wrong,
}

/// Verdicts counted.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    exact: usize,
    more: usize,
    less: usize,
    wrong: usize,
}

impl Tally {
    fn count(&mut self, v: Verdict) {
        match v {
            Verdict::Exact => self.exact += 1,
            Verdict::MorePrecise => self.more += 1,
            Verdict::LessPrecise => self.less += 1,
            Verdict::Wrong => self.wrong += 1,
        }
    }
    fn add(&mut self, o: Tally) {
        self.exact += o.exact;
        self.more += o.more;
        self.less += o.less;
        self.wrong += o.wrong;
    }
    fn total(&self) -> usize {
        self.exact + self.more + self.less + self.wrong
    }
}

impl std::fmt::Display for Tally {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} (exact {} / more precise {} / less precise {} / wrong {})",
            self.total(),
            self.exact,
            self.more,
            self.less,
            self.wrong
        )
    }
}

/// True when `d` is a closed form of the input symbols (no data-dependent or
/// derived dim in it).
fn closed_form(ctx: &ShapesContext, d: Dim) -> bool {
    let mut syms = Vec::new();
    ctx.alg.canon(d).symbols(&mut syms);
    syms.iter().all(|s| {
        matches!(
            ctx.alg.symbol_entry(s.as_str()).map(|e| &e.kind),
            Some(SymbolKind::Input)
        )
    })
}

/// One dim against OpenVINO's. `at` evaluates symdim's dim at a static probe's
/// input values (the symbolic result must give OpenVINO's static result).
fn dim_verdict(
    ctx: &mut ShapesContext,
    g: Dim,
    w: &BDim,
    syms: &BTreeMap<String, String>,
    at: Option<&BTreeMap<String, i64>>,
) -> (Verdict, String) {
    let got = ctx.alg.render(g);
    let value: Option<i64> = match at {
        None => ctx.alg.as_i64(g),
        Some(env) => ctx
            .alg
            .eval(g, &|s| env.get(s).map(|v| Rat::int(*v)))
            .and_then(|r| r.to_i64()),
    };
    let bounds = ctx.alg.bounds(g);
    match w {
        BDim::Static(v) => match value {
            Some(x) if x == *v => (Verdict::Exact, String::new()),
            Some(x) => (Verdict::Wrong, format!("{got} = {x}, OpenVINO {v}")),
            None if at.is_none() && !bounds.contains(&Rat::int(*v)) => (
                Verdict::Wrong,
                format!("{got} (bounds {bounds}) cannot be OpenVINO's {v}"),
            ),
            None => (
                Verdict::LessPrecise,
                format!("{got} where OpenVINO knows {v}"),
            ),
        },
        BDim::Sym(s) => {
            let Some(sym) = syms.get(s) else {
                return (
                    Verdict::LessPrecise,
                    format!("OpenVINO symbol {s} unmapped"),
                );
            };
            let sd = ctx.alg.input(sym);
            match ctx.alg.equal(g, sd) {
                Truth::True => (Verdict::Exact, String::new()),
                Truth::False => (Verdict::Wrong, format!("{got} != {sym}")),
                Truth::Unknown => (
                    Verdict::LessPrecise,
                    format!("{got} not provably {sym} (OpenVINO's {s})"),
                ),
            }
        }
        BDim::Dyn(lo, hi) => {
            let ov = match hi {
                Some(h) => format!("{lo}..{h}"),
                None => format!("{lo}.."),
            };
            let inside = |x: i64| x >= *lo && hi.map_or(true, |h| x <= h);
            match value {
                Some(x) if inside(x) => (Verdict::MorePrecise, String::new()),
                Some(x) => (Verdict::Wrong, format!("{got} = {x} outside {ov}")),
                None => {
                    let below = bounds.hi().is_some_and(|h| *h < Rat::int(*lo));
                    let above = hi.is_some_and(|h| bounds.lo().is_some_and(|l| *l > Rat::int(h)));
                    let within = bounds.lo().is_some_and(|l| *l >= Rat::int(*lo))
                        && hi.map_or(true, |h| bounds.hi().is_some_and(|b| *b <= Rat::int(h)));
                    if below || above {
                        (
                            Verdict::Wrong,
                            format!("{got} (bounds {bounds}) disjoint from {ov}"),
                        )
                    } else if closed_form(ctx, g) {
                        (Verdict::MorePrecise, String::new())
                    } else if within || (*lo == 0 && hi.is_none()) {
                        (Verdict::Exact, String::new())
                    } else {
                        (
                            Verdict::LessPrecise,
                            format!("{got} has no closed form and bounds {bounds}, OpenVINO {ov}"),
                        )
                    }
                }
            }
        }
    }
}

/// One tensor's shape against an OpenVINO partial shape string; a note for every
/// verdict below exact-or-more-precise.
fn compare(
    ctx: &mut ShapesContext,
    name: &str,
    baseline: &str,
    syms: &BTreeMap<String, String>,
    at: Option<&BTreeMap<String, i64>>,
    what: &str,
    notes: &mut Vec<String>,
) -> Verdict {
    let got = ctx.get(name).and_then(|f| f.shape.clone());
    let (verdict, why) = match (parse_baseline(baseline), &got) {
        (None, Some(_)) => (Verdict::MorePrecise, String::new()),
        (None, None) => (Verdict::Exact, String::new()),
        (Some(_), None) => (Verdict::LessPrecise, "no rank".to_string()),
        (Some(want), Some(g)) if want.len() != g.len() => (
            Verdict::Wrong,
            format!("rank {} vs {}", g.len(), want.len()),
        ),
        (Some(want), Some(g)) => {
            let mut worst = (Verdict::Exact, String::new());
            for (axis, (d, w)) in g.iter().zip(&want).enumerate() {
                let (v, why) = dim_verdict(ctx, *d, w, syms, at);
                if v > worst.0 {
                    worst = (v, format!("axis {axis}: {why}"));
                }
            }
            worst
        }
    };
    if verdict >= Verdict::LessPrecise {
        let rendered = got.map_or("unknown rank".to_string(), |g| ctx.render_dims(&g));
        notes.push(format!(
            "{verdict:?}: {what}: symdim {rendered}, OpenVINO {baseline}: {why}"
        ));
    }
    verdict
}

struct CorpusModel {
    id: String,
    /// The manifest's Reshape count.
    reshape_count: usize,
    model: Model,
    baseline: Value,
    /// Baseline input index -> symdim input name.
    inputs: Vec<String>,
}

fn corpus_models() -> Vec<CorpusModel> {
    let Some(dir) = corpus_dir() else {
        return Vec::new();
    };
    let manifest = read_json(&dir.join("manifest.json"));
    let mut out = Vec::new();
    for m in manifest["models"].as_array().unwrap() {
        let id = m["id"].as_str().unwrap().to_string();
        let mdir = dir.join(m["dir"].as_str().unwrap());
        let model = load(&mdir.join("model.xml")).unwrap_or_else(|e| panic!("{id}: {e}"));
        let baseline = read_json(&mdir.join("baseline.json"));
        let inputs = baseline["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|bi| {
                let names: Vec<&str> = bi["tensor_names"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter_map(Value::as_str)
                    .chain(bi["name"].as_str())
                    .collect();
                model
                    .graph
                    .inputs
                    .iter()
                    .find(|v| names.contains(&&*v.name))
                    .unwrap_or_else(|| panic!("{id}: no input for {bi}"))
                    .name
                    .to_string()
            })
            .collect();
        out.push(CorpusModel {
            id,
            reshape_count: m["reshape_count"].as_u64().unwrap() as usize,
            model,
            baseline,
            inputs,
        });
    }
    out
}

/// `<param>#<axis>` -> `<tensor>.<axis>` for the baseline's inputs.
fn symbol_map(cm: &CorpusModel) -> BTreeMap<String, String> {
    let mut syms = BTreeMap::new();
    for (bi, name) in cm.baseline["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .zip(&cm.inputs)
    {
        let pname = bi["name"].as_str().unwrap();
        for axis in 0..8 {
            syms.insert(format!("{pname}#{axis}"), format!("{name}.{axis}"));
        }
    }
    syms
}

/// The input symbols of a static probe and their values.
fn probe_values(cm: &CorpusModel, probe: &Value) -> BTreeMap<String, i64> {
    let mut env = BTreeMap::new();
    for (k, dims) in probe["inputs"].as_object().unwrap() {
        let name = &cm.inputs[k.parse::<usize>().unwrap()];
        let decl = cm
            .model
            .graph
            .inputs
            .iter()
            .find(|v| *v.name == **name)
            .unwrap();
        for (axis, d) in dims.as_array().unwrap().iter().enumerate() {
            let dynamic = decl
                .shape
                .as_ref()
                .is_some_and(|s| !matches!(s[axis], DeclDim::Value(_)));
            if dynamic {
                env.insert(format!("{name}.{axis}"), d.as_i64().unwrap());
            }
        }
    }
    env
}

/// The comparison itself: each verdict on a known case.
#[test]
fn baseline_verdicts() {
    let mut ctx = ShapesContext::default();
    let syms: BTreeMap<String, String> = [("x#0".to_string(), "x.0".to_string())].into();
    let x = ctx.alg.input("x.0");
    let u = ctx.alg.symbol(
        "u",
        SymbolKind::DataDependent {
            node: "n".to_string(),
        },
    );
    let three = ctx.alg.constant(3);
    let x3 = ctx.alg.mul(x, three);
    ctx.insert(
        "t",
        symdim::context::TensorFact {
            fill: None,
            dtype: DType::Float,
            shape: Some(vec![x, x3, three, u]),
            value: None,
        },
    );
    let mut notes = Vec::new();
    let mut v = |ctx: &mut ShapesContext, b: &str, at: Option<&BTreeMap<String, i64>>| {
        compare(ctx, "t", b, &syms, at, "t", &mut notes)
    };
    assert_eq!(v(&mut ctx, "[?@x#0,?,3,?]", None), Verdict::MorePrecise);
    assert_eq!(v(&mut ctx, "[?@x#0,3..,3,?]", None), Verdict::MorePrecise);
    assert_eq!(v(&mut ctx, "[?@x#0,?,3,..8]", None), Verdict::LessPrecise);
    assert_eq!(v(&mut ctx, "[?@x#0,?,3,5]", None), Verdict::LessPrecise);
    assert_eq!(v(&mut ctx, "[?,?,4,?]", None), Verdict::Wrong);
    assert_eq!(v(&mut ctx, "[?,1..2,3,?]", None), Verdict::Wrong);
    assert_eq!(v(&mut ctx, "[?,?,3]", None), Verdict::Wrong);
    assert_eq!(v(&mut ctx, "[...]", None), Verdict::MorePrecise);
    let at: BTreeMap<String, i64> = [("x.0".to_string(), 2)].into();
    assert_eq!(v(&mut ctx, "[2,6,3,?]", Some(&at)), Verdict::Exact);
    assert_eq!(v(&mut ctx, "[2,6,3,7]", Some(&at)), Verdict::LessPrecise);
    assert_eq!(v(&mut ctx, "[2,5,3,?]", Some(&at)), Verdict::Wrong);
    assert_eq!(notes.len(), 7, "{notes:#?}");
}

/// The checkpoints of one baseline (the dynamic one, or a static probe's, by
/// evaluation): Reshape inputs, Reshape outputs, graph outputs.
#[derive(Debug, Default, Clone, Copy)]
struct Checkpoints {
    reshape_in: Tally,
    reshape_out: Tally,
    outputs: Tally,
}

impl Checkpoints {
    fn add(&mut self, o: Checkpoints) {
        self.reshape_in.add(o.reshape_in);
        self.reshape_out.add(o.reshape_out);
        self.outputs.add(o.outputs);
    }
}

impl std::fmt::Display for Checkpoints {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Reshape outputs {}; Reshape inputs {}; graph outputs {}",
            self.reshape_out, self.reshape_in, self.outputs
        )
    }
}

fn checkpoints(
    cm: &CorpusModel,
    ctx: &mut ShapesContext,
    baseline: &Value,
    syms: &BTreeMap<String, String>,
    at: Option<&BTreeMap<String, i64>>,
    notes: &mut Vec<String>,
) -> Checkpoints {
    let mut c = Checkpoints::default();
    let reshapes = baseline["reshapes"].as_array().unwrap();
    assert_eq!(reshapes.len(), cm.reshape_count, "{}", cm.id);
    for (i, r) in reshapes.iter().enumerate() {
        let name = r["name"].as_str().unwrap();
        let nodes: Vec<_> = cm
            .model
            .graph
            .nodes
            .iter()
            .filter(|n| {
                n.op_type == "Reshape"
                    && (n.name == name || n.name.starts_with(&format!("{name}#")))
            })
            .collect();
        assert_eq!(nodes.len(), 1, "{}: Reshape `{name}`", cm.id);
        let (input, output) = (&nodes[0].inputs[0], &nodes[0].outputs[0]);
        let what = format!("{} Reshape #{i} `{name}`", cm.id);
        let v = compare(
            ctx,
            input,
            r["input"].as_str().unwrap(),
            syms,
            at,
            &format!("{what} input"),
            notes,
        );
        c.reshape_in.count(v);
        let v = compare(
            ctx,
            output,
            r["output"].as_str().unwrap(),
            syms,
            at,
            &format!("{what} output"),
            notes,
        );
        c.reshape_out.count(v);
    }
    let outputs = baseline["outputs"].as_array().unwrap();
    for (o, v) in cm.model.graph.outputs.iter().zip(outputs) {
        let b = v
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| v["shape"].as_str().unwrap().to_string());
        let what = format!("{} output `{}`", cm.id, o.name);
        let v = compare(ctx, &o.name, &b, syms, at, &what, notes);
        c.outputs.count(v);
    }
    c
}

/// The friendly name in an OpenVINO validation message (`... with friendly_name 'n7':`).
fn friendly_name(error: &str) -> Option<&str> {
    let rest = error.split_once("with friendly_name '")?.1;
    Some(rest.split_once('\'')?.0)
}

/// Every corpus model infers with no error diagnostic (no `--symbol`, no binding);
/// every Reshape output, every Reshape input and every graph output is compared with
/// OpenVINO's own inferred shape, symbolically and, evaluated, at every static
/// probe: exact, more precise (a value or closed form where OpenVINO has `?` or an
/// interval), less precise (listed with the reason) or wrong (none allowed). The
/// probes OpenVINO rejects are errors in symdim too at those input values: the
/// ppocr pooling error, and the shufflenet Reshape whose target hard-codes batch 1.
#[test]
fn corpus_matches_openvino_baselines() {
    let models = corpus_models();
    if models.is_empty() {
        return;
    }
    let mut notes = Vec::new();
    let mut report = String::new();
    let mut warnings = Vec::new();
    let (mut symbolic, mut probes) = (Checkpoints::default(), Checkpoints::default());
    let mut rejected = 0;
    for cm in &models {
        let syms = symbol_map(cm);
        let mut ctx = run(&cm.model);
        let e = errors(&ctx);
        assert!(e.is_empty(), "{}: {e:#?}", cm.id);
        warnings.extend(ctx.diagnostics.iter().map(|d| format!("{}: {d}", cm.id)));
        let c = checkpoints(cm, &mut ctx, &cm.baseline, &syms, None, &mut notes);
        writeln!(report, "{:36} symbolic: {c}", cm.id).unwrap();
        symbolic.add(c);
        for probe in cm.baseline["static_probes"].as_array().unwrap() {
            let env = probe_values(cm, probe);
            let Some(err) = probe.get("error").and_then(Value::as_str) else {
                let c = checkpoints(cm, &mut ctx, probe, &syms, Some(&env), &mut notes);
                writeln!(report, "{:36} probe {env:?}: {c}", cm.id).unwrap();
                probes.add(c);
                continue;
            };
            // OpenVINO rejects these input values; symdim, given them, must too.
            let binds = env.iter().map(|(k, v)| (k.clone(), *v)).collect();
            let bound = symdim::infer(
                &cm.model,
                &Facts {
                    binds,
                    ..Facts::default()
                },
            )
            .into_context();
            let e: Vec<_> = bound
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .collect();
            let first = e
                .first()
                .unwrap_or_else(|| panic!("{}: {env:?}: no error; OpenVINO: {err}", cm.id));
            if err.contains("pooling") {
                // ppocr at 1x3x32x100: OpenVINO fails in MaxPool.
                assert!(
                    first.op == "MaxPool" && first.message.contains("kernel after dilation"),
                    "{}: {env:?}: {e:#?}",
                    cm.id
                );
            } else {
                // shufflenet at batch 2: the Reshape OpenVINO names.
                assert!(err.contains("opset1::Reshape"), "{err}");
                let node = friendly_name(err).unwrap();
                assert!(
                    first.op == "Reshape"
                        && first.node == node
                        && matches!(
                            first.cause,
                            Some(Cause::Op {
                                error: OpError::VolumeMismatch { proven: true, .. },
                                ..
                            })
                        ),
                    "{}: {env:?}: {e:#?}",
                    cm.id
                );
            }
            rejected += 1;
            writeln!(
                report,
                "{:36} probe {env:?}: OpenVINO's error reproduced: {first}",
                cm.id
            )
            .unwrap();
        }
    }
    writeln!(
        report,
        "openvino corpus: {}/{} models without an error diagnostic; {} warnings",
        models.len(),
        models.len(),
        warnings.len()
    )
    .unwrap();
    writeln!(report, "TOTAL symbolic: {symbolic}").unwrap();
    writeln!(
        report,
        "TOTAL static probes (evaluated): {probes}; {rejected} probes OpenVINO rejects are errors in symdim too"
    )
    .unwrap();
    for n in &notes {
        writeln!(report, "  {n}").unwrap();
    }
    println!("{report}");
    // The one warning: shufflenet's hard-coded batch 1 holds only when the batch is
    // 1 (OpenVINO merges the batch symbol with 1 there; its batch-2 probe fails).
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    assert!(
        warnings[0].starts_with("onnx-light_shufflenet-dynbatch-raw: warning at n7:")
            && warnings[0].contains("must be 1"),
        "{warnings:#?}"
    );
    for c in [symbolic, probes] {
        for t in [c.reshape_out, c.reshape_in, c.outputs] {
            assert_eq!(t.wrong, 0, "{report}");
            assert_eq!(t.less, 0, "{report}");
        }
    }
    assert_eq!(symbolic.reshape_out.total(), 273, "{report}");
    assert_eq!(rejected, 2, "{report}");
}

#[test]
fn more_shape_ops() {
    let mut ir = Ir::default();
    let x = ir.param("x", "?,8,?,?", "f32");
    let sizes = ir.i64s("sizes", &[10, 20]);
    let scales = ir.konst(
        "scales",
        "f32",
        "2",
        [2.0f32, 0.5f32]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect(),
    );
    let axes = ir.i64s("axes", &[2, 3]);
    let up_sizes = ir.op1(
        "up_sizes",
        "Interpolate",
        "opset4",
        &[("mode", "nearest"), ("shape_calculation_mode", "sizes")],
        &[x, sizes, scales, axes],
    );
    let up_scales = ir.op1(
        "up_scales",
        "Interpolate",
        "opset4",
        &[("mode", "nearest"), ("shape_calculation_mode", "scales")],
        &[x, sizes, scales, axes],
    );
    let up11 = ir.op1(
        "up11",
        "Interpolate",
        "opset11",
        &[("mode", "nearest"), ("shape_calculation_mode", "scales")],
        &[x, scales, axes],
    );
    let d2s = ir.op1(
        "d2s",
        "DepthToSpace",
        "opset1",
        &[("block_size", "2"), ("mode", "blocks_first")],
        &[x],
    );
    let s2d = ir.op1(
        "s2d",
        "SpaceToDepth",
        "opset1",
        &[("block_size", "2"), ("mode", "blocks_first")],
        &[d2s],
    );
    let k = ir.scalar("k", 5);
    let topk = ir.op(
        "topk",
        "TopK",
        "opset11",
        &[
            ("axis", "1"),
            ("mode", "max"),
            ("sort", "value"),
            ("index_element_type", "i64"),
        ],
        &[x, k],
        2,
    );
    let reps = ir.i64s("reps", &[2, 1]);
    let tile = ir.op1("tile", "Tile", "opset1", &[], &[x, reps]);
    let idx = ir.param("idx", "?,3", "i64");
    let ax2 = ir.scalar("ax2", 1);
    let data = ir.param("data", "?,7,5", "f32");
    let gb = ir.op1(
        "gb",
        "Gather",
        "opset8",
        &[("batch_dims", "1")],
        &[data, idx, ax2],
    );
    let b = ir.i64s("b", &[0, 1]);
    let e = ir.i64s("e", &[0, 3]);
    let ell = ir.op1(
        "ell",
        "StridedSlice",
        "opset1",
        &[
            ("begin_mask", "0, 0"),
            ("end_mask", "0, 0"),
            ("new_axis_mask", "0, 0"),
            ("shrink_axis_mask", "0, 0"),
            ("ellipsis_mask", "1, 0"),
        ],
        &[x, b, e],
    );
    let nz = ir.op1("nz", "NonZero", "opset3", &[("output_type", "i64")], &[x]);
    for p in [
        up_sizes, up_scales, up11, s2d, topk[0], topk[1], tile, gb, ell, nz,
    ] {
        ir.result(p);
    }
    let ctx = run(&ir.model());
    assert!(errors(&ctx).is_empty(), "{:?}", errors(&ctx));
    assert_eq!(shape(&ctx, &t(up_sizes)), "[`x.0`, 8, 10, 20]");
    assert_eq!(
        shape(&ctx, &t(up_scales)),
        "[`x.0`, 8, 2*`x.2`, floordiv(`x.3`, 2)]"
    );
    assert_eq!(
        shape(&ctx, &t(up11)),
        "[`x.0`, 8, 2*`x.2`, floordiv(`x.3`, 2)]"
    );
    assert_eq!(shape(&ctx, &t(d2s)), "[`x.0`, 2, 2*`x.2`, 2*`x.3`]");
    assert_eq!(shape(&ctx, &t(s2d)), "[`x.0`, 8, `x.2`, `x.3`]");
    assert_eq!(shape(&ctx, &t(topk[0])), "[`x.0`, 5, `x.2`, `x.3`]");
    assert_eq!(ctx.get(&t(topk[1])).unwrap().dtype, DType::Int64);
    assert_eq!(shape(&ctx, &t(tile)), "[`x.0`, 8, 2*`x.2`, `x.3`]");
    assert_eq!(shape(&ctx, &t(gb)), "[`data.0`, 3, 5]");
    assert_eq!(shape(&ctx, &t(ell)), "[`x.0`, 8, `x.2`, min(`x.3` - 1, 2)]");
    assert_eq!(shape(&ctx, &t(nz)), "[4, nz0]");
}

#[test]
fn invalid_models_are_errors() {
    type Build = Box<dyn Fn(&mut Ir) -> (u64, u64)>;
    let cases: Vec<(&str, Build, &str)> = vec![
        (
            "concat",
            Box::new(|ir: &mut Ir| {
                let a = ir.param("a", "2,3", "f32");
                let b = ir.param("b", "4,5", "f32");
                ir.op1("c", "Concat", "opset1", &[("axis", "0")], &[a, b])
            }),
            "dim 1 of input 0 and input 1 (Concat on axis 0 needs every other dim equal): 3 != 5",
        ),
        (
            "add",
            Box::new(|ir: &mut Ir| {
                let a = ir.param("a", "2,3", "f32");
                let b = ir.param("b", "4", "f32");
                ir.op1(
                    "c",
                    "Add",
                    "opset1",
                    &[("auto_broadcast", "numpy")],
                    &[a, b],
                )
            }),
            "3 != 4",
        ),
        (
            "add none",
            Box::new(|ir: &mut Ir| {
                let a = ir.param("a", "2,3", "f32");
                let b = ir.param("b", "1,3", "f32");
                ir.op1("c", "Add", "opset1", &[("auto_broadcast", "none")], &[a, b])
            }),
            "axis 0 of inputs 0 and 1: 2 != 1",
        ),
        (
            "squeeze",
            Box::new(|ir: &mut Ir| {
                let a = ir.param("a", "2,3", "f32");
                let ax = ir.i64s("ax", &[1]);
                ir.op1("c", "Squeeze", "opset1", &[], &[a, ax])
            }),
            "squeezed axis 1 must be 1: 3 != 1",
        ),
        (
            "matmul",
            Box::new(|ir: &mut Ir| {
                let a = ir.param("a", "2,3", "f32");
                let b = ir.param("b", "4,5", "f32");
                ir.op1("c", "MatMul", "opset1", &[], &[a, b])
            }),
            "the contracted dim (K) of inputs 0 and 1: 3 != 4",
        ),
        (
            "transpose",
            Box::new(|ir: &mut Ir| {
                let a = ir.param("a", "2,3", "f32");
                let o = ir.i64s("o", &[0, 0]);
                ir.op1("c", "Transpose", "opset1", &[], &[a, o])
            }),
            "is not a permutation",
        ),
        (
            "pad1",
            Box::new(|ir: &mut Ir| {
                let a = ir.param("a", "2,3", "f32");
                let b = ir.i64s("b", &[0, -1]);
                let e = ir.i64s("e", &[0, 0]);
                ir.op1(
                    "c",
                    "Pad",
                    "opset1",
                    &[("pad_mode", "constant")],
                    &[a, b, e],
                )
            }),
            "Pad-1 takes non-negative pads",
        ),
        (
            "softmax1",
            Box::new(|ir: &mut Ir| {
                let a = ir.param("a", "2,3", "f32");
                ir.op1("c", "SoftMax", "opset1", &[("axis", "-1")], &[a])
            }),
            "axis -1 is out of range",
        ),
        (
            "split",
            Box::new(|ir: &mut Ir| {
                let a = ir.param("a", "2,3", "f32");
                let ax = ir.scalar("ax", 1);
                ir.op("c", "Split", "opset1", &[("num_splits", "2")], &[a, ax], 2)[0]
            }),
            "need 2 | 3",
        ),
        (
            "attribute",
            Box::new(|ir: &mut Ir| {
                let a = ir.param("a", "2,3", "f32");
                let b = ir.param("b", "3,5", "f32");
                ir.op1(
                    "c",
                    "MatMul",
                    "opset1",
                    &[("transpose_a", "maybe")],
                    &[a, b],
                )
            }),
            "attribute `transpose_a` = \"maybe\": expected true or false",
        ),
    ];
    for (what, build, want) in cases {
        let mut ir = Ir::default();
        let out = build(&mut ir);
        ir.result(out);
        let ctx = run(&ir.model());
        let e = errors(&ctx);
        assert_eq!(e.len(), 1, "{what}: {e:#?}");
        assert!(e[0].contains(want), "{what}: {}", e[0]);
    }
}

// ---------------------------------------------------------------------------------
// No panics on hostile attributes and inputs
// ---------------------------------------------------------------------------------

mod hostile {
    use super::*;
    use proptest::prelude::*;
    use symdim::graph::{ConstTensor, Graph, Node, ValueDecl};

    const ATTRS: &[&str] = &[
        "axis",
        "batch_dims",
        "auto_broadcast",
        "mode",
        "num_splits",
        "keep_dims",
        "strides",
        "dilations",
        "pads_begin",
        "pads_end",
        "kernel",
        "rounding_type",
        "auto_pad",
        "transpose_a",
        "transpose_b",
        "output_type",
        "destination_type",
        "begin_mask",
        "end_mask",
        "new_axis_mask",
        "shrink_axis_mask",
        "ellipsis_mask",
        "hidden_size",
        "direction",
        "group",
        "block_size",
        "shape_calculation_mode",
        "axes",
        "m_pythondiv",
        "allow_axis_skip",
        "index_element_type",
        "output_padding",
    ];
    const VALUES: &[&str] = &[
        "",
        "0",
        "1",
        "-1",
        "2",
        "3",
        "true",
        "False",
        "abc",
        "1, 2",
        "2, 2",
        "1, 0, 1",
        "9223372036854775807",
        "-9223372036854775808",
        "numpy",
        "none",
        "bidirectional",
        "explicit",
        "pdpd",
        "same_upper",
        "valid",
        "ceil",
        "ceil_torch",
        "scales",
        "sizes",
        "i32",
        "f32",
        "bidirectional",
        "0, 0, 0",
    ];
    const INTS: &[i64] = &[-3, -2, -1, 0, 1, 2, 3, 5, i64::MAX, i64::MIN, 1 << 40];

    /// Every OpenVINO op, from every family.
    fn op_types() -> Vec<&'static str> {
        symdim::ops::FAMILIES
            .iter()
            .flat_map(|f| f.iter())
            .filter(|(domain, _, _)| *domain == "openvino")
            .map(|(_, op, _)| *op)
            .collect()
    }

    #[derive(Debug, Clone)]
    enum In {
        Param(Vec<Option<i64>>),
        Const(Vec<i64>, bool),
        Absent,
    }

    fn input() -> impl Strategy<Value = In> {
        prop_oneof![
            prop::collection::vec(prop::option::of(0i64..5), 0..5).prop_map(In::Param),
            (
                prop::collection::vec(prop::sample::select(INTS), 0..5),
                any::<bool>()
            )
                .prop_map(|(v, scalar)| In::Const(v, scalar)),
            Just(In::Absent),
        ]
    }

    fn model(
        op: &str,
        version: i64,
        ins: &[In],
        attrs: &[(usize, usize)],
        outputs: usize,
    ) -> Model {
        let mut g = Graph::default();
        let mut names = Vec::new();
        for (i, inp) in ins.iter().enumerate() {
            let name = format!("in{i}");
            match inp {
                In::Param(dims) => g.inputs.push(ValueDecl {
                    name: name.as_str().into(),
                    dtype: DType::Float,
                    shape: Some(
                        dims.iter()
                            .map(|d| d.map_or(DeclDim::Unknown, DeclDim::Value))
                            .collect(),
                    ),
                }),
                In::Const(v, scalar) => {
                    let dims = if *scalar && v.len() == 1 {
                        vec![]
                    } else {
                        vec![v.len() as i64]
                    };
                    g.initializers.insert(
                        name.clone(),
                        ConstTensor {
                            dtype: DType::Int64,
                            dims,
                            data: symdim::graph::ConstData::Ints(v.clone()),
                        },
                    );
                }
                In::Absent => {
                    names.push(symdim::graph::Name::from(""));
                    continue;
                }
            }
            names.push(name.into());
        }
        g.nodes.push(Node {
            name: "n".to_string(),
            op_type: op.into(),
            domain: "openvino".to_string(),
            version,
            inputs: names,
            outputs: (0..outputs).map(|i| format!("out{i}").into()).collect(),
            attrs: attrs
                .iter()
                .map(|&(a, v)| {
                    let attr = symdim::read::openvino::to_graph::typed_attr(ATTRS[a], VALUES[v]);
                    (ATTRS[a].to_string(), attr)
                })
                .collect(),
        });
        Model {
            path: "hostile".to_string(),
            format: symdim::graph::Format::OpenVino,
            opsets: Default::default(),
            graph: g,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]
        #[test]
        fn openvino_rules_never_panic(
            op in prop::sample::select(op_types()),
            version in prop::sample::select(vec![1i64, 3, 4, 5, 8, 11, 12, 14, 15]),
            ins in prop::collection::vec(input(), 0..8),
            attrs in prop::collection::vec((0..ATTRS.len(), 0..VALUES.len()), 0..8),
            outputs in 1usize..4,
        ) {
            let m = model(op, version, &ins, &attrs, outputs);
            let _ = run(&m);
        }
    }
}

/// TensorIterator over `x: [T, 2]` (axis 0, parts of 1) carrying `(a, b, c, d) =
/// (b, c, d, d)` with `a, b, c: [3]` and `d: [5]` on entry: from the third iteration
/// on `a` is `[5]`, so the last values of `a`, `b` and `c` are not `[3]`.
#[test]
fn tensor_iterator_carried_values_that_rotate_settle() {
    let param = |id: u64, name: &str, shape: &str| {
        format!(
            r#"<layer id="{id}" name="{name}" type="Parameter" version="opset1"><data shape="{shape}" element_type="f32"/><output><port id="0" precision="FP32" names="{name}"/></output></layer>"#
        )
    };
    let result = |id: u64| {
        format!(
            r#"<layer id="{id}" name="r{id}" type="Result" version="opset1"><input><port id="0"/></input></layer>"#
        )
    };
    let edge = |from: u64, fp: u64, to: u64, tp: u64| {
        format!(r#"<edge from-layer="{from}" from-port="{fp}" to-layer="{to}" to-port="{tp}"/>"#)
    };
    // body: parameters a, b, c, d, xi (0..4); results 5..9 of b, c, d, d, xi
    let mut body_layers = String::new();
    for (id, name) in ["a", "b", "c", "d"].iter().enumerate() {
        body_layers += &param(id as u64, name, "?");
    }
    body_layers += &param(4, "xi", "1,2");
    let mut body_edges = String::new();
    for (res, src) in [(5, 1), (6, 2), (7, 3), (8, 3), (9, 4)] {
        body_layers += &result(res);
        body_edges += &edge(src, 0, res, 0);
    }
    let mut port_map = String::new();
    for k in 0..4 {
        port_map += &format!(r#"<input external_port_id="{k}" internal_layer_id="{k}"/>"#);
    }
    port_map += r#"<input axis="0" external_port_id="4" internal_layer_id="4" start="0" end="-1" stride="1" part_size="1"/>"#;
    for k in 5..9 {
        port_map += &format!(r#"<output external_port_id="{k}" internal_layer_id="{k}"/>"#);
    }
    port_map += r#"<output axis="0" external_port_id="9" internal_layer_id="9" start="0" end="-1" stride="1" part_size="1"/>"#;
    let back: String = (0..4)
        .map(|k| format!(r#"<edge from-layer="{}" to-layer="{k}"/>"#, k + 5))
        .collect();
    let ins: String = (0..5).map(|i| format!(r#"<port id="{i}"/>"#)).collect();
    let outs: String = (5..10)
        .map(|i| format!(r#"<port id="{i}" precision="FP32"/>"#))
        .collect();
    let ti = format!(
        r#"<layer id="5" name="ti" type="TensorIterator" version="opset1"><input>{ins}</input><output>{outs}</output><port_map>{port_map}</port_map><back_edges>{back}</back_edges><body><layers>{body_layers}</layers><edges>{body_edges}</edges></body></layer>"#
    );
    let mut layers = String::new();
    for (id, (name, shape)) in [
        ("a0", "3"),
        ("b0", "3"),
        ("c0", "3"),
        ("d0", "5"),
        ("x", "?,2"),
    ]
    .iter()
    .enumerate()
    {
        layers += &param(id as u64, name, shape);
    }
    layers += &ti;
    let mut edges: String = (0..5).map(|k| edge(k, 0, 5, k)).collect();
    for k in 0..5 {
        layers += &result(6 + k);
        edges += &edge(5, 5 + k, 6 + k, 0);
    }
    let xml = format!(
        r#"<?xml version="1.0"?><net name="t" version="11"><layers>{layers}</layers><edges>{edges}</edges></net>"#
    );
    let ir = IrModel::parse(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    let m = to_graph::to_model(&ir, &Weights::from_bytes(Vec::new()), "t.xml").unwrap();
    let ctx = run(&m);
    no_diagnostics(&ctx);
    let out = |port: u64| shape(&ctx, &t((5, port)));
    for port in 5..8 {
        assert!(out(port).starts_with("[unk"), "port {port}: {}", out(port));
    }
    assert_eq!(out(8), "[5]");
    assert_eq!(out(9), "[`x.0`, 2]");
}
