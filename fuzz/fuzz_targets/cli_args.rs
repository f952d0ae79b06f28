//! The CLI's argument values against a fixed model, read as `symdim` reads them:
//! the whole text as a `--bind` and its lines as `--assume`s (the first checks);
//! then each line as a flag chosen by its first character (`b` `--bind`, `a`
//! `--assume`, `r` `--range`, `o` `--opt`, `s` `--symbol`, anything else both a bind
//! and an assume), counted, parsed and checked in the CLI's order, and, when all of
//! them are accepted, inference, the report, the contract and the ranges with them.
//! Never a panic; a bind, range or opt that reads has a non-empty name, and a bind
//! that passes `Facts::validate` names a symbol the model declares.
#![no_main]
use libfuzzer_sys::fuzz_target;
use symdim::context::facts::{
    check_assumes, check_binds, check_fact_count, model_symbols, parse_bind,
};
use symdim::contracts::ranges::{parse_opt, parse_range, Request};
use symdim::graph::{AttrMap, DType, DeclDim, Format, Graph, Model, Node, ValueDecl};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let model = model();
    let known = model_symbols(&model);
    // The text as a bind, and its lines as facts.
    if let Ok((name, value)) = parse_bind(text) {
        assert!(!name.is_empty(), "the bind {text:?} read an empty name");
        let facts = symdim::Facts::new().bind(&name, value);
        if facts.validate(&model).is_ok() {
            assert!(known.contains(&name), "{name:?} passed but is not a symbol");
        }
    }
    let assumes: Vec<String> = text.lines().take(8).map(str::to_string).collect();
    if check_assumes(&assumes).is_ok() {
        let facts = symdim::Facts {
            assumes,
            ..Default::default()
        };
        let _ = facts.validate(&model);
    }
    flags(text, &model);
});

/// The lines of `text` as CLI flags, through what `symdim` does with them.
fn flags(text: &str, model: &Model) {
    let (mut binds, mut assumes, mut ranges, mut opts) = (vec![], vec![], vec![], vec![]);
    for line in text.lines().take(16) {
        let mut chars = line.chars();
        let kind = chars.next();
        let rest = chars.as_str();
        match kind {
            Some('b') => binds.push(rest.to_string()),
            Some('a') => assumes.push(rest.to_string()),
            Some('r') => ranges.push(rest.to_string()),
            Some('o') => opts.push(rest.to_string()),
            Some('s') => {
                let _ = rest.parse::<symdim::read::onednn::to_graph::Symbolize>();
            }
            _ => {
                binds.push(line.to_string());
                assumes.push(line.to_string());
            }
        }
    }
    if check_fact_count(binds.len(), assumes.len()).is_err() {
        return;
    }
    let Ok(binds) = binds
        .iter()
        .map(|b| parse_bind(b))
        .collect::<Result<Vec<_>, _>>()
    else {
        return;
    };
    for (name, _) in &binds {
        assert!(!name.is_empty(), "a bind read an empty name");
    }
    if check_binds(&binds).is_err() || check_assumes(&assumes).is_err() {
        return;
    }
    let request = ranges
        .iter()
        .map(|r| parse_range(r))
        .collect::<Result<Vec<_>, _>>()
        .and_then(|ranges| {
            let opts: Vec<_> = opts
                .iter()
                .map(|o| parse_opt(o))
                .collect::<Result<_, _>>()?;
            Ok(Request { ranges, opts })
        });
    if let Ok(r) = &request {
        let names = r
            .ranges
            .iter()
            .map(|u| &u.name)
            .chain(r.opts.iter().map(|o| &o.0));
        for name in names {
            assert!(!name.is_empty(), "a range or opt read an empty name");
        }
    }
    let facts = symdim::Facts {
        binds,
        assumes,
        ..Default::default()
    };
    if facts.validate(model).is_err() {
        return;
    }
    let shapes = symdim::infer(model, &facts);
    let _ = shapes.report().to_json();
    let _ = shapes.contract().to_text();
    if let Ok(request) = request {
        let _ = shapes.ranges(&request).map(|r| r.to_json());
    }
}

/// `x: [batch, 2*seq + 1, ?, p2o.Dyn.0]` through `Shape`, `Relu` and
/// `ConstantOfShape`, so binds and facts reach values, shapes and a shape tensor.
fn model() -> Model {
    let node = |name: &str, op: &str, inputs: &[&str], output: &str| Node {
        name: name.into(),
        op_type: op.into(),
        domain: String::new(),
        version: 17,
        inputs: inputs.iter().map(|&i| i.into()).collect(),
        outputs: vec![output.into()],
        attrs: AttrMap::new(),
    };
    Model {
        path: "fuzz.onnx".into(),
        format: Format::Onnx,
        opsets: [(String::new(), 17)].into_iter().collect(),
        graph: Graph {
            inputs: vec![ValueDecl {
                name: "x".into(),
                dtype: DType::Float,
                shape: Some(vec![
                    DeclDim::Param("batch".into()),
                    DeclDim::Param("2*seq + 1".into()),
                    DeclDim::Unknown,
                    DeclDim::Param("p2o.Dyn.0".into()),
                ]),
            }],
            outputs: vec![ValueDecl {
                name: "filled".into(),
                dtype: DType::Undefined,
                shape: None,
            }],
            nodes: vec![
                node("relu", "Relu", &["x"], "y"),
                node("shape", "Shape", &["y"], "s"),
                node("fill", "ConstantOfShape", &["s"], "filled"),
            ],
            ..Graph::default()
        },
    }
}
