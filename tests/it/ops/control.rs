//! If, Loop and Scan on small graphs.

use crate::common::models;
use indexmap::IndexMap;
use models::named as node;
use symdim::graph::{
    Attr, ConstData, ConstTensor, DType, DeclDim, Format, Graph, Model, Node, ValueDecl,
};
use symdim::Facts;

use crate::common;
use symdim::report::{Report, ReportDim};

fn decl(name: &str, dtype: DType, dims: Option<Vec<DeclDim>>) -> ValueDecl {
    ValueDecl {
        name: name.into(),
        dtype,
        shape: dims,
    }
}

fn ints(values: &[i64]) -> ConstTensor {
    ConstTensor {
        dtype: DType::Int64,
        dims: vec![values.len() as i64],
        data: ConstData::Ints(values.to_vec()),
    }
}

fn graph(
    name: &str,
    inputs: Vec<ValueDecl>,
    inits: Vec<(&str, ConstTensor)>,
    nodes: Vec<Node>,
    outputs: &[&str],
) -> Graph {
    Graph {
        name: name.into(),
        inputs,
        outputs: outputs
            .iter()
            .map(|o| decl(o, DType::Undefined, None))
            .collect(),
        initializers: inits.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        nodes,
        value_info: vec![],
    }
}

fn model(g: Graph) -> Model {
    Model {
        path: "cf.onnx".into(),
        format: Format::Onnx,
        opsets: IndexMap::from([(String::new(), 17)]),
        graph: g,
    }
}

fn shape(r: &Report, t: &str) -> Option<String> {
    r.tensors[t].shape.as_ref().map(|s| {
        let v: Vec<String> = s
            .iter()
            .map(|d| match d {
                ReportDim::Int(v) => v.to_string(),
                ReportDim::Expr(e) => e.to_string(),
            })
            .collect();
        format!("[{}]", v.join(", "))
    })
}

/// `if Shape(x)[-1] == 1 { Squeeze(x, -1) } else { Identity(x) }`, the pattern of
/// the silero-vad decoder.
fn squeeze_if(extra: Vec<Node>) -> Model {
    let then_g = graph(
        "then",
        vec![],
        vec![("axes", ints(&[-1]))],
        vec![node("sq", "Squeeze", &["x", "axes"], &["t_out"], vec![])],
        &["t_out"],
    );
    let else_g = graph(
        "else",
        vec![],
        vec![],
        vec![node("id", "Identity", &["x"], &["e_out"], vec![])],
        &["e_out"],
    );
    let mut nodes = vec![
        node("shape", "Shape", &["x"], &["s"], vec![]),
        node(
            "last",
            "Gather",
            &["s", "minus_one"],
            &["t"],
            vec![("axis", Attr::Int(0))],
        ),
        node("is_one", "Equal", &["t", "one"], &["cond"], vec![]),
        node(
            "if",
            "If",
            &["cond"],
            &["y"],
            vec![
                ("then_branch", Attr::Graph(Box::new(then_g))),
                ("else_branch", Attr::Graph(Box::new(else_g))),
            ],
        ),
        node("after", "Shape", &["x"], &["s_after"], vec![]),
    ];
    nodes.extend(extra);
    model(graph(
        "g",
        vec![decl(
            "x",
            DType::Float,
            Some(vec![DeclDim::Param("N".into()), DeclDim::Param("T".into())]),
        )],
        vec![("minus_one", ints(&[-1])), ("one", ints(&[1]))],
        nodes,
        &["y"],
    ))
}

#[test]
fn an_undecided_branch_does_not_leak_its_equalities() {
    let r = common::report(&squeeze_if(vec![]), &Facts::default());
    // The then-branch's Squeeze needs T == 1, but only when it runs: T stays T.
    assert_eq!(shape(&r, "x"), Some("[N, T]".into()));
    assert_eq!(
        r.tensors["s_after"].value.as_ref().map(|v| v.len()),
        Some(2)
    );
    let v = &r.tensors["s_after"].value.as_ref().unwrap()[1];
    assert_eq!(*v, ReportDim::Expr("T".into()));
    // The branches differ in rank, so the If output's rank is unknown.
    assert_eq!(shape(&r, "y"), None);
    assert!(!r.has_errors(), "{:?}", r.diagnostics);
    // The Squeeze's T == 1 is recorded once, marked conditional (it holds only when
    // the then branch runs).
    let ctx = symdim::infer(&squeeze_if(vec![]), &Facts::default()).into_context();
    let rel: Vec<(String, String, bool)> = ctx
        .alg
        .relations()
        .iter()
        .map(|r| (common::relation(r), r.node.clone(), r.conditional))
        .collect();
    assert_eq!(rel, [("T == 1".to_string(), "sq".to_string(), true)]);
}

/// `squeeze_if` whose model also has the input `w` of shape `dims`.
fn squeeze_if_with(extra: Vec<Node>, w: Vec<DeclDim>) -> Model {
    let mut m = squeeze_if(extra);
    m.graph.inputs.push(decl("w", DType::Float, Some(w)));
    m
}

fn split_warnings(r: &Report) -> Vec<String> {
    r.diagnostics
        .iter()
        .filter(|d| d.op == "If" && d.message.contains("is not decided"))
        .map(|d| d.message.clone())
        .collect()
}

#[test]
fn a_branch_that_makes_a_later_node_fail_is_ruled_out() {
    // Gemm needs a rank-2 A. With T == 1 the then branch squeezes y to [N] and the
    // Gemm fails, so a valid model runs the else branch: y = [N, T], z = [N, 3].
    let gemm = node("gemm", "Gemm", &["y", "w"], &["z"], vec![]);
    let m = squeeze_if_with(
        vec![gemm],
        vec![DeclDim::Param("T".into()), DeclDim::Value(3)],
    );
    let r = common::report(&m, &Facts::default());
    assert_eq!(shape(&r, "y"), Some("[N, T]".into()));
    assert_eq!(shape(&r, "z"), Some("[N, 3]".into()));
    assert!(!r.has_errors(), "{:?}", r.diagnostics);
    let w = split_warnings(&r);
    assert_eq!(w.len(), 1, "{:?}", r.diagnostics);
    assert!(
        w[0].contains("with the then branch, gemm (Gemm) fails"),
        "{}",
        w[0]
    );
    assert!(
        w[0].contains("only when the else branch runs, that is when `T != 1`"),
        "{}",
        w[0]
    );
}

#[test]
fn the_surviving_branch_records_its_condition() {
    // Unsqueeze(y, 1) then Gemm with a [1, 3] matrix: rank 2 only when y is [N]
    // (the then branch, T == 1); the else branch gives the Gemm a rank-3 input.
    let m = squeeze_if_with(
        vec![
            node("unsq", "Unsqueeze", &["y", "axis1"], &["u"], vec![]),
            node("gemm", "Gemm", &["u", "w"], &["z"], vec![]),
        ],
        vec![DeclDim::Value(1), DeclDim::Value(3)],
    );
    let mut m = m;
    m.graph.initializers.insert("axis1".into(), ints(&[1]));
    let ctx = symdim::infer(&m, &Facts::default()).into_context();
    let r = Report::build(&m, &ctx);
    assert_eq!(shape(&r, "y"), Some("[N]".into()));
    assert_eq!(shape(&r, "u"), Some("[N, 1]".into()));
    assert_eq!(shape(&r, "z"), Some("[N, 3]".into()));
    // In the branch that runs, Squeeze needs T == 1; a valid model has it, so the
    // report (which describes valid runs) shows x as [N, 1].
    assert_eq!(shape(&r, "x"), Some("[N, 1]".into()));
    assert!(!r.has_errors(), "{:?}", r.diagnostics);
    let w = split_warnings(&r);
    assert_eq!(w.len(), 1, "{:?}", r.diagnostics);
    assert!(
        w[0].contains("with the else branch, gemm (Gemm) fails"),
        "{}",
        w[0]
    );
    assert!(w[0].contains("that is when `T == 1`"), "{}", w[0]);
    let rel: Vec<String> = ctx
        .alg
        .relations()
        .iter()
        .filter(|r| r.node == "if")
        .map(common::relation)
        .collect();
    assert_eq!(rel, ["T == 1"]);
}

#[test]
fn when_both_branches_fail_the_merged_result_stands() {
    // Unsqueeze at axis 5 fails for y of rank 1 and of rank 2 alike: the branch
    // cannot be chosen, y keeps an unknown rank and no split is reported.
    let mut m = squeeze_if(vec![node(
        "unsq",
        "Unsqueeze",
        &["y", "axis5"],
        &["u"],
        vec![],
    )]);
    m.graph.initializers.insert("axis5".into(), ints(&[5]));
    let r = common::report(&m, &Facts::default());
    assert_eq!(shape(&r, "y"), None);
    assert!(split_warnings(&r).is_empty(), "{:?}", r.diagnostics);
}

#[test]
fn a_decided_condition_infers_only_the_branch_that_runs() {
    let r = common::report(
        &squeeze_if(vec![]),
        &Facts {
            binds: vec![("T".into(), 1)],
            ..Facts::default()
        },
    );
    assert_eq!(shape(&r, "y"), Some("[N]".into()));
    let r = common::report(
        &squeeze_if(vec![]),
        &Facts {
            binds: vec![("T".into(), 5)],
            ..Facts::default()
        },
    );
    assert_eq!(shape(&r, "y"), Some("[N, 5]".into()));
    assert!(
        !r.has_errors(),
        "the squeeze of 5 is in the branch that does not run: {:?}",
        r.diagnostics
    );
}

#[test]
fn branches_that_agree_keep_their_dims() {
    // if c { x + 1 } else { x * 2 }: both [N, T]
    let one = ConstTensor {
        dtype: DType::Float,
        dims: vec![],
        data: ConstData::Floats(vec![1.0]),
    };
    let then_g = graph(
        "then",
        vec![],
        vec![("c1", one.clone())],
        vec![node("add", "Add", &["x", "c1"], &["a"], vec![])],
        &["a"],
    );
    let else_g = graph(
        "else",
        vec![],
        vec![("c2", one)],
        vec![node("mul", "Mul", &["x", "c2"], &["b"], vec![])],
        &["b"],
    );
    let g = graph(
        "g",
        vec![
            decl(
                "x",
                DType::Float,
                Some(vec![DeclDim::Param("N".into()), DeclDim::Param("T".into())]),
            ),
            decl("c", DType::Bool, Some(vec![])),
        ],
        vec![],
        vec![node(
            "if",
            "If",
            &["c"],
            &["y"],
            vec![
                ("then_branch", Attr::Graph(Box::new(then_g))),
                ("else_branch", Attr::Graph(Box::new(else_g))),
            ],
        )],
        &["y"],
    );
    let r = common::report(&model(g), &Facts::default());
    assert_eq!(shape(&r, "y"), Some("[N, T]".into()));
}

#[test]
fn loop_scan_outputs_stack_the_trip_count() {
    // for i in 0..M: acc = acc + x; emit x. M = 7 (a constant), no condition.
    let body = graph(
        "body",
        vec![
            decl("i", DType::Int64, Some(vec![])),
            decl("cond_in", DType::Bool, Some(vec![])),
            decl("acc", DType::Float, None),
        ],
        vec![],
        vec![
            node("add", "Add", &["acc", "x"], &["acc_out"], vec![]),
            node("id", "Identity", &["cond_in"], &["cond_out"], vec![]),
            node("emit", "Identity", &["x"], &["scan"], vec![]),
        ],
        &["cond_out", "acc_out", "scan"],
    );
    let g = graph(
        "g",
        vec![
            decl(
                "x",
                DType::Float,
                Some(vec![DeclDim::Param("N".into()), DeclDim::Value(3)]),
            ),
            decl(
                "acc0",
                DType::Float,
                Some(vec![DeclDim::Param("N".into()), DeclDim::Value(3)]),
            ),
        ],
        vec![(
            "m",
            ConstTensor {
                dtype: DType::Int64,
                dims: vec![],
                data: ConstData::Ints(vec![7]),
            },
        )],
        vec![node(
            "loop",
            "Loop",
            &["m", "", "acc0"],
            &["acc_final", "stacked"],
            vec![("body", Attr::Graph(Box::new(body)))],
        )],
        &["acc_final", "stacked"],
    );
    let r = common::report(&model(g), &Facts::default());
    assert_eq!(shape(&r, "acc_final"), Some("[N, 3]".into()));
    assert_eq!(shape(&r, "stacked"), Some("[7, N, 3]".into()));
}

/// `for i in 0..7 while cond: emit x`, where the body's condition output is
/// `cond_body(cond_in)` and the loop's condition input is `cond`.
fn loop_with_condition(cond: Option<bool>, cond_body: Node) -> Model {
    let body = graph(
        "body",
        vec![
            decl("i", DType::Int64, Some(vec![])),
            decl("cond_in", DType::Bool, Some(vec![])),
        ],
        vec![(
            "seven",
            ConstTensor {
                dtype: DType::Int64,
                dims: vec![],
                data: ConstData::Ints(vec![7]),
            },
        )],
        vec![
            cond_body,
            node("emit", "Identity", &["x"], &["scan"], vec![]),
        ],
        &["cond_out", "scan"],
    );
    let mut inputs = vec![decl(
        "x",
        DType::Float,
        Some(vec![DeclDim::Param("N".into()), DeclDim::Value(3)]),
    )];
    let mut inits = vec![(
        "m",
        ConstTensor {
            dtype: DType::Int64,
            dims: vec![],
            data: ConstData::Ints(vec![7]),
        },
    )];
    match cond {
        Some(c) => inits.push((
            "c",
            ConstTensor {
                dtype: DType::Bool,
                dims: vec![],
                data: ConstData::Ints(vec![i64::from(c)]),
            },
        )),
        None => inputs.push(decl("c", DType::Bool, Some(vec![]))),
    }
    let g = graph(
        "g",
        inputs,
        inits,
        vec![node(
            "loop",
            "Loop",
            &["m", "c"],
            &["stacked"],
            vec![("body", Attr::Graph(Box::new(body)))],
        )],
        &["stacked"],
    );
    model(g)
}

#[test]
fn loop_with_a_condition_that_stays_true_runs_the_trip_count() {
    let pass = || node("id", "Identity", &["cond_in"], &["cond_out"], vec![]);
    // A true condition passed through: the loop runs all 7 iterations.
    let r = common::report(&loop_with_condition(Some(true), pass()), &Facts::default());
    assert_eq!(shape(&r, "stacked"), Some("[7, N, 3]".into()));
    // A condition the body computes from the iteration number: data-dependent.
    let less = || node("lt", "Less", &["i", "seven"], &["cond_out"], vec![]);
    let r = common::report(&loop_with_condition(Some(true), less()), &Facts::default());
    let s = shape(&r, "stacked").expect("rank known");
    assert!(s.starts_with("[iter"), "{s}");
    // A condition not known on entry, or false: the trip count is not the length.
    for cond in [None, Some(false)] {
        let r = common::report(&loop_with_condition(cond, pass()), &Facts::default());
        let s = shape(&r, "stacked").expect("rank known");
        assert!(s.starts_with("[iter"), "{cond:?}: {s}");
    }
}

#[test]
fn loop_with_a_true_condition_passed_through_runs_to_the_trip_count() {
    // for i in 0..M while cond: emit x; the body passes its condition through and
    // cond starts true, so it stays true: M = 7 iterations.
    let body = || {
        graph(
            "body",
            vec![
                decl("i", DType::Int64, Some(vec![])),
                decl("cond_in", DType::Bool, Some(vec![])),
            ],
            vec![],
            vec![
                node("id", "Identity", &["cond_in"], &["cond_out"], vec![]),
                node("emit", "Identity", &["x"], &["scan"], vec![]),
            ],
            &["cond_out", "scan"],
        )
    };
    let run = |cond: i64| {
        let g = graph(
            "g",
            vec![decl(
                "x",
                DType::Float,
                Some(vec![DeclDim::Param("N".into()), DeclDim::Value(3)]),
            )],
            vec![
                (
                    "m",
                    ConstTensor {
                        dtype: DType::Int64,
                        dims: vec![],
                        data: ConstData::Ints(vec![7]),
                    },
                ),
                (
                    "c",
                    ConstTensor {
                        dtype: DType::Bool,
                        dims: vec![],
                        data: ConstData::Ints(vec![cond]),
                    },
                ),
            ],
            vec![node(
                "loop",
                "Loop",
                &["m", "c"],
                &["stacked"],
                vec![("body", Attr::Graph(Box::new(body())))],
            )],
            &["stacked"],
        );
        let r = common::report(&model(g), &Facts::default());
        shape(&r, "stacked").unwrap()
    };
    assert_eq!(run(1), "[7, N, 3]");
    // a condition false on entry says nothing about the count
    assert!(run(0).starts_with("[iter"), "{}", run(0));
}

/// The text of a report's row for `t` (`sequence of 7 [N, 3]`, ...).
fn row(r: &Report, t: &str) -> String {
    let text = r.to_text();
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{t} ")))
        .unwrap_or_else(|| panic!("no row {t} in\n{text}"));
    line.split_whitespace()
        .skip(2)
        .collect::<Vec<_>>()
        .join(" ")
}

fn n3() -> Option<Vec<DeclDim>> {
    Some(vec![DeclDim::Param("N".into()), DeclDim::Value(3)])
}

fn scalar_i64(v: i64) -> ConstTensor {
    ConstTensor {
        dtype: DType::Int64,
        dims: vec![],
        data: ConstData::Ints(vec![v]),
    }
}

/// `M` times (`M = 7`): the body's `nodes` over `(i, cond_in, carried)` returning
/// `(cond_out, carried_out, extra...)`; the loop's carried input is `init`, made by
/// `outer` from `x: [N, 3]`.
fn seq_loop(outer: Vec<Node>, init: &str, nodes: Vec<Node>, extra: &[&str]) -> Model {
    let mut outs = vec!["cond_out", "carried_out"];
    outs.extend_from_slice(extra);
    let mut body_nodes = vec![node("id", "Identity", &["cond_in"], &["cond_out"], vec![])];
    body_nodes.extend(nodes);
    let body = graph(
        "body",
        vec![
            decl("i", DType::Int64, Some(vec![])),
            decl("cond_in", DType::Bool, Some(vec![])),
            decl("carried", DType::Float, None),
        ],
        vec![("zero", scalar_i64(0))],
        body_nodes,
        &outs,
    );
    let mut loop_outs = vec!["final"];
    let extra_outs: Vec<String> = extra.iter().map(|e| format!("{e}_all")).collect();
    loop_outs.extend(extra_outs.iter().map(String::as_str));
    let mut nodes = outer;
    nodes.push(node(
        "loop",
        "Loop",
        &["m", "", init],
        &loop_outs,
        vec![("body", Attr::Graph(Box::new(body)))],
    ));
    nodes.push(node("len", "SequenceLength", &["final"], &["n"], vec![]));
    let g = graph(
        "g",
        vec![decl("x", DType::Float, n3())],
        vec![("m", scalar_i64(7))],
        nodes,
        &["final"],
    );
    model(g)
}

#[test]
fn a_loop_carries_a_sequence_it_appends_to() {
    // s = [x, x]; for 7 iterations: s.append(x): 9 elements of [N, 3]
    let m = seq_loop(
        vec![node(
            "mk",
            "SequenceConstruct",
            &["x", "x"],
            &["s0"],
            vec![],
        )],
        "s0",
        vec![node(
            "ins",
            "SequenceInsert",
            &["carried", "x"],
            &["carried_out"],
            vec![],
        )],
        &[],
    );
    let r = common::report(&m, &Facts::default());
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    assert_eq!(row(&r, "final"), "sequence of 9 [N, 3]");
    assert_eq!(r.tensors["n"].value, Some(vec![ReportDim::Int(9)]));
}

#[test]
fn a_loop_body_reads_the_carried_sequence_with_its_facts() {
    // the body sees every element as [N, 3] (the invariant), and emits the first
    let m = seq_loop(
        vec![node("mk", "SequenceConstruct", &["x"], &["s0"], vec![])],
        "s0",
        vec![
            node("at", "SequenceAt", &["carried", "zero"], &["first"], vec![]),
            node(
                "ins",
                "SequenceInsert",
                &["carried", "first"],
                &["carried_out"],
                vec![],
            ),
        ],
        &["first"],
    );
    let r = common::report(&m, &Facts::default());
    assert_eq!(shape(&r, "first_all"), Some("[7, N, 3]".into()));
    assert_eq!(row(&r, "final"), "sequence of 8 [N, 3]");
}

#[test]
fn elements_that_change_per_iteration_share_no_dim_of_the_body() {
    // s = []; for i in 0..7: s.append(x[0 : i + 1]): the first dim differs per
    // element, though the body's Slice names it with one symbol
    let m = seq_loop(
        vec![node(
            "empty",
            "SequenceEmpty",
            &[],
            &["e"],
            vec![("dtype", Attr::Int(1))],
        )],
        "e",
        vec![
            node(
                "one",
                "Constant",
                &[],
                &["one"],
                vec![("value", Attr::Tensor(ints(&[1])))],
            ),
            node(
                "z1",
                "Constant",
                &[],
                &["z1"],
                vec![("value", Attr::Tensor(ints(&[0])))],
            ),
            node("inc", "Add", &["i", "one"], &["end"], vec![]),
            node("sl", "Slice", &["x", "z1", "end", "z1"], &["part"], vec![]),
            node(
                "ins",
                "SequenceInsert",
                &["carried", "part"],
                &["carried_out"],
                vec![],
            ),
        ],
        &[],
    );
    let r = common::report(&m, &Facts::default());
    let final_row = row(&r, "final");
    assert!(final_row.starts_with("sequence of 7 [unk"), "{final_row}");
    assert!(final_row.ends_with(", 3]"), "{final_row}");
    let sym = final_row
        .trim_start_matches("sequence of 7 [")
        .split(',')
        .next()
        .unwrap()
        .to_string();
    assert!(
        matches!(r.symbols.get(&sym), Some(symdim::report::ReportSymbol::DataDependent { node }) if node == "loop"),
        "{sym}: {:?}",
        r.symbols
    );
}

#[test]
fn a_loop_scan_output_must_be_a_tensor() {
    let m = seq_loop(
        vec![node("mk", "SequenceConstruct", &["x"], &["s0"], vec![])],
        "s0",
        vec![
            node("id2", "Identity", &["carried"], &["carried_out"], vec![]),
            node("mk2", "SequenceConstruct", &["x"], &["seq_scan"], vec![]),
        ],
        &["seq_scan"],
    );
    let r = common::report(&m, &Facts::default());
    assert!(
        r.diagnostics
            .iter()
            .any(|d| d.node == "loop" && d.message.contains("scan outputs must be tensors")),
        "{:?}",
        r.diagnostics
    );
    // the carried sequence is kept as it is: the body passes it through
    assert_eq!(row(&r, "final"), "sequence of 1 [N, 3]");
}

#[test]
fn a_loop_carries_an_optional() {
    // o = Optional(x); for 7 iterations: o = Optional(Relu(OptionalGetElement(o)))
    let m = seq_loop(
        vec![node("opt", "Optional", &["x"], &["o0"], vec![])],
        "o0",
        vec![
            node("get", "OptionalGetElement", &["carried"], &["v"], vec![]),
            node("relu", "Relu", &["v"], &["w"], vec![]),
            node("wrap", "Optional", &["w"], &["carried_out"], vec![]),
        ],
        &[],
    );
    let mut g = m.graph.clone();
    g.nodes.retain(|n| n.name != "len");
    g.nodes.push(node(
        "has",
        "OptionalHasElement",
        &["final"],
        &["h"],
        vec![],
    ));
    g.nodes.push(node(
        "get2",
        "OptionalGetElement",
        &["final"],
        &["y"],
        vec![],
    ));
    let r = common::report(&model(g), &Facts::default());
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    assert_eq!(row(&r, "final"), "optional (present) [N, 3]");
    assert_eq!(r.tensors["h"].value, Some(vec![ReportDim::Int(1)]));
    assert_eq!(shape(&r, "y"), Some("[N, 3]".into()));
}

/// `levels` Ifs, each in the then-branch of the one before: the main graph holds
/// `if{levels}`, whose then-branch `level{levels-1}` holds `if{levels-1}`, and so
/// on down to `if1`, whose then-branch `level0` is an Identity. Every else-branch is an Identity. The
/// condition `c` is a graph input, so no branch is decided and each is inferred.
fn nested_ifs(levels: usize) -> Model {
    let mut inner = graph(
        "level0",
        vec![],
        vec![],
        vec![node("id0", "Identity", &["x"], &["o0"], vec![])],
        &["o0"],
    );
    for k in 1..=levels {
        let (out, e_out) = (format!("o{k}"), format!("e{k}"));
        let else_g = graph(
            &format!("else{k}"),
            vec![],
            vec![],
            vec![node(
                &format!("eid{k}"),
                "Identity",
                &["x"],
                &[&e_out],
                vec![],
            )],
            &[&e_out],
        );
        let if_node = node(
            &format!("if{k}"),
            "If",
            &["c"],
            &[&out],
            vec![
                ("then_branch", Attr::Graph(Box::new(inner))),
                ("else_branch", Attr::Graph(Box::new(else_g))),
            ],
        );
        inner = graph(&format!("level{k}"), vec![], vec![], vec![if_node], &[&out]);
    }
    inner.inputs = vec![
        decl("x", DType::Float, Some(vec![DeclDim::Param("N".into())])),
        decl("c", DType::Bool, Some(vec![])),
    ];
    model(inner)
}

/// Subgraphs nest at most `MAX_SUBGRAPH_DEPTH` (32) deep: 32 nested Ifs infer, the
/// 33rd cannot run its branch, and says so as a value. A context without a
/// subgraph runner (made by hand, not by the driver) says that instead.
#[test]
fn a_subgraph_that_cannot_be_inferred_says_why() {
    use symdim::context::{
        Cause, OpError, ShapesContext, SubgraphError, TensorFact, MAX_SUBGRAPH_DEPTH,
    };
    assert_eq!(MAX_SUBGRAPH_DEPTH, 32);
    let ctx = symdim::infer(&nested_ifs(32), &Facts::default()).into_context();
    assert!(ctx.diagnostics.is_empty(), "{:?}", ctx.diagnostics);
    let ctx = symdim::infer(&nested_ifs(33), &Facts::default()).into_context();
    let causes: Vec<_> = ctx.diagnostics.iter().map(|d| &d.cause).collect();
    let too_deep = OpError::Subgraph {
        name: "then_branch",
        graph: "level0".to_string(),
        source: SubgraphError::TooDeep { limit: 32 },
    };
    assert_eq!(
        causes,
        [&Some(Cause::Op {
            error: too_deep,
            hint: None
        })]
    );
    assert_eq!(ctx.diagnostics[0].node, "if1");
    assert!(ctx.diagnostics[0]
        .message
        .ends_with(": attribute `then_branch` = <graph level0>: subgraphs nest deeper than 32"));

    let mut ctx = ShapesContext::default();
    ctx.insert("c", TensorFact::new(DType::Bool, vec![]));
    ctx.insert("x", TensorFact::unknown(DType::Float));
    let m = nested_ifs(1);
    let e = models::apply(&mut ctx, &m.graph.nodes[0]).unwrap_err();
    let no_runner = OpError::Subgraph {
        name: "then_branch",
        graph: "level0".to_string(),
        source: SubgraphError::NoRunner,
    };
    assert_eq!(e, no_runner);
    assert_eq!(
        e.to_string(),
        "attribute `then_branch` = <graph level0>: no subgraph runner is set (the inference driver sets one)"
    );
}

/// The body of a loop that rotates its carried values: `a = b`, `b = c`, `c = d`,
/// `d = d`, after the leading inputs and before the trailing outputs given.
fn rotate_body(
    head_in: Vec<ValueDecl>,
    head_out: &[&str],
    tail: Vec<Node>,
    tail_out: &[&str],
) -> Graph {
    let mut inputs = head_in;
    for v in ["a", "b", "c", "d"] {
        inputs.push(decl(v, DType::Float, None));
    }
    let mut nodes = vec![
        node("ra", "Identity", &["b"], &["a_out"], vec![]),
        node("rb", "Identity", &["c"], &["b_out"], vec![]),
        node("rc", "Identity", &["d"], &["c_out"], vec![]),
        node("rd", "Identity", &["d"], &["d_out"], vec![]),
    ];
    nodes.extend(tail);
    let mut outs: Vec<&str> = head_out.to_vec();
    outs.extend(["a_out", "b_out", "c_out", "d_out"]);
    outs.extend(tail_out);
    graph("body", inputs, vec![], nodes, &outs)
}

/// The initial values of the rotated `a, b, c, d`: `a0, b0, c0: [N]`, `d0: [K]`.
fn rotate_inits() -> Vec<ValueDecl> {
    [("a0", "N"), ("b0", "N"), ("c0", "N"), ("d0", "K")]
        .into_iter()
        .map(|(name, dim)| decl(name, DType::Float, Some(vec![DeclDim::Param(dim.into())])))
        .collect()
}

/// From the third iteration of the rotation on `a` is `[K]`, so the final `a`, `b`
/// and `c` (outputs `af`, `bf`, `cf`) are not provably `[N]` (fresh dims); `d` stays
/// `[K]`.
fn assert_rotated(r: &Report) {
    for t in ["af", "bf", "cf"] {
        let s = shape(r, t).expect("rank known");
        assert!(s.starts_with("[unk"), "{t}: {s}");
    }
    assert_eq!(shape(r, "df"), Some("[K]".into()));
    assert!(!r.has_errors(), "{:?}", r.diagnostics);
}

#[test]
fn carried_values_that_rotate_settle_over_more_passes() {
    // for i in 0..7: (a, b, c, d) = (b, c, d, d), with a, b, c: [N] and d: [K] on
    // entry: from the third iteration on a is [K], so after 7 iterations a, b and c
    // are not [N]; d stays [K].
    let body = rotate_body(
        vec![
            decl("i", DType::Int64, Some(vec![])),
            decl("cond_in", DType::Bool, Some(vec![])),
        ],
        &["cond_out"],
        vec![node("id", "Identity", &["cond_in"], &["cond_out"], vec![])],
        &[],
    );
    let g = graph(
        "g",
        rotate_inits(),
        vec![("m", scalar_i64(7))],
        vec![node(
            "loop",
            "Loop",
            &["m", "", "a0", "b0", "c0", "d0"],
            &["af", "bf", "cf", "df"],
            vec![("body", Attr::Graph(Box::new(body)))],
        )],
        &["af", "bf", "cf", "df"],
    );
    let r = common::report(&model(g), &Facts::default());
    assert_rotated(&r);
}

#[test]
fn scan_states_that_rotate_settle_over_more_passes() {
    // Scan over x: [T, 2] with states (a, b, c, d) = (b, c, d, d); emit x's rows.
    let mut body = rotate_body(
        vec![],
        &[],
        vec![node("emit", "Identity", &["xi"], &["y"], vec![])],
        &["y"],
    );
    body.inputs.push(decl("xi", DType::Float, None));
    let x = decl(
        "x",
        DType::Float,
        Some(vec![DeclDim::Param("T".into()), DeclDim::Value(2)]),
    );
    let mut inputs = rotate_inits();
    inputs.push(x);
    let g = graph(
        "g",
        inputs,
        vec![],
        vec![node(
            "scan",
            "Scan",
            &["a0", "b0", "c0", "d0", "x"],
            &["af", "bf", "cf", "df", "ys"],
            vec![
                ("body", Attr::Graph(Box::new(body))),
                ("num_scan_inputs", Attr::Int(1)),
            ],
        )],
        &["af", "bf", "cf", "df", "ys"],
    );
    let r = common::report(&model(g), &Facts::default());
    assert_rotated(&r);
    assert_eq!(shape(&r, "ys"), Some("[T, 2]".into()));
}
