//! Hostile graphs: every bad node gets an error diagnostic naming the node, the op
//! and the problem; its outputs get the declared shape or none; the rest of the
//! graph is still inferred; nothing panics, hangs or overflows the stack.

mod common;

use indexmap::IndexMap;
use symdim::context::Severity;
use symdim::graph::{
    Attr, ConstData, ConstTensor, DType, DeclDim, Format, Graph, Model, Node, ValueDecl,
};
use symdim::report::{Report, ReportDim};
use symdim::Facts;

fn node(name: &str, op: &str, inputs: &[&str], outputs: &[&str], attrs: &[(&str, Attr)]) -> Node {
    Node {
        name: name.into(),
        op_type: op.into(),
        domain: String::new(),
        version: 17,
        inputs: inputs.iter().map(|s| (*s).into()).collect(),
        outputs: outputs.iter().map(|s| (*s).into()).collect(),
        attrs: attrs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    }
}

fn input(name: &str, dims: &[DeclDim]) -> ValueDecl {
    ValueDecl {
        name: name.into(),
        dtype: DType::Float,
        shape: Some(dims.to_vec()),
    }
}

fn ints(name: &str, values: &[i64]) -> (String, ConstTensor) {
    (
        name.into(),
        ConstTensor {
            dtype: DType::Int64,
            dims: vec![values.len() as i64],
            data: ConstData::Ints(values.to_vec()),
        },
    )
}

fn model(
    inputs: Vec<ValueDecl>,
    inits: Vec<(String, ConstTensor)>,
    nodes: Vec<Node>,
    outputs: &[&str],
) -> Model {
    Model {
        path: "hostile.onnx".into(),
        format: Format::Onnx,
        opsets: IndexMap::from([(String::new(), 17)]),
        graph: Graph {
            name: "g".into(),
            inputs,
            outputs: outputs
                .iter()
                .map(|o| ValueDecl {
                    name: (*o).into(),
                    dtype: DType::Undefined,
                    shape: None,
                })
                .collect(),
            initializers: inits.into_iter().collect(),
            nodes,
            value_info: vec![],
        },
    }
}

fn p(s: &str) -> DeclDim {
    DeclDim::Param(s.into())
}

/// A subgraph `name` of one node `node_name` (`op` of `inputs`) whose output `out` is
/// the subgraph's, of unknown rank.
fn branch(name: &str, node_name: &str, op: &str, inputs: &[&str], out: &str) -> Graph {
    Graph {
        name: name.to_string(),
        outputs: vec![ValueDecl {
            name: out.into(),
            dtype: DType::Float,
            shape: None,
        }],
        nodes: vec![node(node_name, op, inputs, &[out], &[])],
        ..Graph::default()
    }
}

/// `n` undecided `If`s in a chain: `if{i}` on the Boolean scalar input `c{i}` turns
/// `x{i}` into `x{i+1}`, with the branches `branches(i, "x{i}")` makes. Returns the
/// graph inputs (`x0: [N]`, then the conditions) and the nodes.
fn if_chain(
    n: usize,
    branches: impl Fn(usize, &str) -> (Graph, Graph),
) -> (Vec<ValueDecl>, Vec<Node>) {
    let mut inputs = vec![input("x0", &[p("N")])];
    let mut nodes = Vec::new();
    for i in 0..n {
        inputs.push(ValueDecl {
            name: format!("c{i}").into(),
            dtype: DType::Bool,
            shape: Some(vec![]),
        });
        let (x, y) = (format!("x{i}"), format!("x{}", i + 1));
        let (then_g, else_g) = branches(i, &x);
        nodes.push(node(
            &format!("if{i}"),
            "If",
            &[&format!("c{i}")],
            &[&y],
            &[
                ("then_branch", Attr::Graph(Box::new(then_g))),
                ("else_branch", Attr::Graph(Box::new(else_g))),
            ],
        ));
    }
    (inputs, nodes)
}

fn shape(r: &Report, t: &str) -> Option<Vec<String>> {
    r.tensors[t].shape.as_ref().map(|s| {
        s.iter()
            .map(|d| match d {
                ReportDim::Int(v) => v.to_string(),
                ReportDim::Expr(e) => e.to_string(),
            })
            .collect()
    })
}

fn errors(r: &Report) -> Vec<String> {
    r.diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.to_string())
        .collect()
}

#[test]
fn a_cycle_is_reported_and_the_rest_is_inferred() {
    let m = model(
        vec![input("x", &[p("N"), DeclDim::Value(3)])],
        vec![],
        vec![
            node(
                "a",
                "Concat",
                &["x", "b_out"],
                &["a_out"],
                &[("axis", Attr::Int(0))],
            ),
            node(
                "b",
                "Concat",
                &["a_out", "x"],
                &["b_out"],
                &[("axis", Attr::Int(0))],
            ),
            node("ok", "Cast", &["x"], &["y"], &[("to", Attr::Int(7))]),
        ],
        &["y"],
    );
    let r = common::report(&m, &Facts::default());
    let e = errors(&r);
    assert_eq!(e.len(), 2, "{e:?}");
    assert!(
        e[0].contains("at a:") && e[0].contains("part of a cycle"),
        "{e:?}"
    );
    assert_eq!(shape(&r, "y"), Some(vec!["N".into(), "3".into()]));
    assert_eq!(r.tensors["a_out"].shape, None);
}

#[test]
fn a_tensor_never_produced_is_an_error_on_its_consumer() {
    let m = model(
        vec![input("x", &[p("N")])],
        vec![],
        vec![
            node("c", "Cast", &["ghost"], &["y"], &[("to", Attr::Int(1))]),
            node("d", "Cast", &["x"], &["z"], &[("to", Attr::Int(1))]),
        ],
        &["y", "z"],
    );
    let r = common::report(&m, &Facts::default());
    let e = errors(&r);
    assert_eq!(e.len(), 1);
    assert!(e[0].contains("ghost"), "{e:?}");
    assert_eq!(shape(&r, "z"), Some(vec!["N".into()]));
}

#[test]
fn duplicate_output_names_are_reported() {
    let m = model(
        vec![input("x", &[p("N")])],
        vec![],
        vec![
            node("c1", "Cast", &["x"], &["y"], &[("to", Attr::Int(1))]),
            node("c2", "Cast", &["x"], &["y"], &[("to", Attr::Int(7))]),
        ],
        &["y"],
    );
    let r = common::report(&m, &Facts::default());
    let e = errors(&r);
    assert!(
        e.iter()
            .any(|m| m.contains("at c2") && m.contains("already defined")),
        "{e:?}"
    );
    assert_eq!(
        r.tensors["y"].dtype,
        Some(DType::Float),
        "the first definition stays"
    );
}

#[test]
fn bad_reshape_targets_are_errors_and_inference_goes_on() {
    let m = model(
        vec![input("x", &[p("N"), DeclDim::Value(12)])],
        vec![
            ints("two_minus_one", &[-1, -1]),
            ints("minus_two", &[-2, 6]),
            ints("zero_and_minus_one", &[0, -1]),
            ints("ok", &[-1, 3]),
        ],
        vec![
            node("r1", "Reshape", &["x", "two_minus_one"], &["y1"], &[]),
            node("r2", "Reshape", &["x", "minus_two"], &["y2"], &[]),
            node(
                "r3",
                "Reshape",
                &["x", "zero_and_minus_one"],
                &["y3"],
                &[("allowzero", Attr::Int(1))],
            ),
            node("r4", "Reshape", &["x", "ok"], &["y4"], &[]),
            node(
                "c",
                "Concat",
                &["x", "x"],
                &["y5"],
                &[("axis", Attr::Int(5))],
            ),
        ],
        &["y4"],
    );
    let r = common::report(&m, &Facts::default());
    let e = errors(&r);
    assert_eq!(e.len(), 4, "{e:#?}");
    for (i, n) in ["r1", "r2", "r3", "c"].iter().enumerate() {
        assert!(e[i].contains(&format!("at {n}:")), "{e:#?}");
    }
    assert_eq!(shape(&r, "y4"), Some(vec!["4*N".into(), "3".into()]));
    common::snapshots().bind(|| insta::assert_snapshot!("hostile_bad_attributes", e.join("\n")));
}

#[test]
fn declared_shapes_that_contradict_inference_are_reported_with_both() {
    let mut m = model(
        vec![input("x", &[p("N"), DeclDim::Value(3)])],
        vec![],
        vec![node("c", "Cast", &["x"], &["y"], &[("to", Attr::Int(1))])],
        &["y"],
    );
    m.graph.value_info.push(ValueDecl {
        name: "y".into(),
        dtype: DType::Float,
        shape: Some(vec![p("N"), DeclDim::Value(4)]),
    });
    let r = common::report(&m, &Facts::default());
    let e = errors(&r);
    assert_eq!(
        e,
        ["error: value_info `y` is declared [N, 4] but inferred [N, 3] (axis 1: 4 != 3)"]
    );
}

#[test]
fn huge_dims_do_not_wrap() {
    let big = 1i64 << 62;
    let m = model(
        vec![input("x", &[DeclDim::Value(big), DeclDim::Value(8)])],
        vec![ints("t", &[-1])],
        vec![node("r", "Reshape", &["x", "t"], &["y"], &[])],
        &["y"],
    );
    let r = common::report(&m, &Facts::default());
    assert_eq!(
        shape(&r, "y"),
        Some(vec!["36893488147419103232".into()]),
        "2^65 as an expression string"
    );
    assert!(errors(&r).is_empty());
}

#[test]
fn a_million_node_chain_does_not_overflow_the_stack() {
    let n = 1_000_000;
    let mut nodes = Vec::with_capacity(n);
    let mut prev = "x".to_string();
    for i in 0..n {
        let out = format!("t{i}");
        nodes.push(Node {
            name: format!("n{i}"),
            op_type: "Cast".into(),
            domain: String::new(),
            version: 17,
            inputs: vec![prev.as_str().into()],
            outputs: vec![out.as_str().into()],
            attrs: symdim::graph::AttrMap::from([("to".to_string(), Attr::Int(1))]),
        });
        prev = out;
    }
    let last = prev.clone();
    let m = model(
        vec![input("x", &[p("N"), DeclDim::Value(3)])],
        vec![],
        nodes,
        &[&last],
    );
    // Run on a thread with a small stack: inference must be iterative.
    let r = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || common::report(&m, &Facts::default()))
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(shape(&r, &last), Some(vec!["N".into(), "3".into()]));
    assert!(r.diagnostics.is_empty());
}

/// Found by the `onnx_bytes` fuzz target: a shape input declaring 130,174 elements
/// (and no data) made Expand build a rank-130,174 output.
#[test]
fn a_huge_declared_rank_is_unknown_not_built() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/fuzz/onnx_bytes_expand_rank_130174.onnx"
    );
    let m = symdim::load::load(std::path::Path::new(path)).unwrap();
    let r = common::report(&m, &Facts::default());
    assert_eq!(r.tensors["y"].shape, None);
    assert!(r.symbols.is_empty());
    // The same through Reshape and ConstantOfShape, built in memory.
    let big = ConstTensor {
        dtype: DType::Int64,
        dims: vec![130_174],
        data: ConstData::NotLoaded,
    };
    for op in ["Reshape", "ConstantOfShape", "Expand"] {
        let inputs: &[&str] = if op == "ConstantOfShape" {
            &["s"]
        } else {
            &["x", "s"]
        };
        let m = model(
            vec![input("x", &[p("N")])],
            vec![("s".into(), big.clone())],
            vec![node("n", op, inputs, &["y"], &[])],
            &["y"],
        );
        let r = common::report(&m, &Facts::default());
        assert_eq!(r.tensors["y"].shape, None, "{op}");
    }
}

/// The `algebra_ops` fuzzer's find (`tests/fixtures/fuzz/algebra_ops_assume_slow.bin`):
/// `A*A + A*S == A` was merged (interval bounds alone cannot refute it), and the fact
/// `A >= 6` then squared the lower bound of the self-referential class `A ==
/// A*(A + S)` at every refinement: 14.8 s of big-number arithmetic. Now the union is
/// refuted (`A*A + A*S - A = A*(A + S - 1)`, a product of two factors >= 1), and a
/// forced merge of the same kind keeps its bounds below 2^256.
#[test]
fn algebra_fuzz_find_nonlinear_union_then_fact() {
    use symdim::algebra::{Algebra, AlgebraError, Truth};
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/fuzz/algebra_ops_assume_slow.bin"
    ))
    .unwrap();
    // The fixture's ops, decoded as the fuzz target does (3 bytes per op).
    assert_eq!(bytes.len(), 21);
    let mut alg = Algebra::default();
    let a = alg.input("A");
    let s = alg.input("S");
    let a_s = alg.add_dims(s, a);
    let prod = alg.mul(a, a_s);
    let _ = alg.broadcast(a, a);
    let _ = alg.neg(a_s);
    assert_eq!(alg.equal(prod, a), Truth::False);
    assert!(matches!(
        alg.union(prod, a, "fuzz"),
        Err(AlgebraError::Contradiction { .. })
    ));
    let _ = alg.div(s, a);
    alg.assume("A >= 6").unwrap();
    assert_eq!(alg.render(a), "A");

    // With dims allowed to be 0 the union is possible (A = 0), so it is merged; the
    // fact then refines the cyclic class's bounds, which must stay small.
    let mut alg = Algebra::new(symdim::algebra::Config {
        input_lower: symdim::algebra::Rat::zero(),
        ..Default::default()
    });
    let a = alg.input("A");
    let s = alg.input("S");
    let a_s = alg.add_dims(s, a);
    let prod = alg.mul(a, a_s);
    assert_eq!(alg.equal(prod, a), Truth::Unknown);
    alg.union(prod, a, "fuzz").unwrap();
    let _ = alg.assume("A >= 6");
    let lo = alg.bounds(a).lo().cloned();
    assert!(
        lo.as_ref().is_none_or(|l| l.bits() <= 257),
        "the lower bound grew to {} bits",
        lo.map_or(0, |l| l.bits())
    );
}

/// The `algebra_ops` fuzzer's second find (`tests/fixtures/fuzz/algebra_ops_cyclic_ceildiv.bin`,
/// a timeout under the sanitizer): `A == ceildiv(A, B)` is satisfiable (B == 1), so it
/// is merged, and the class of `A` then contains an operator term over itself. The
/// rewrites that follow stop at the rule-application limit (512 per saturation), with
/// warnings, instead of running on; every answer stays sound.
#[test]
fn algebra_fuzz_find_cyclic_ceildiv_stays_within_the_limits() {
    use symdim::algebra::{Algebra, AlgebraWarning};
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/fuzz/algebra_ops_cyclic_ceildiv.bin"
    ))
    .unwrap();
    assert_eq!(bytes.len(), 23);
    // The fixture's ops, decoded as the fuzz target does (3 bytes per op).
    let mut alg = Algebra::default();
    let a = alg.input("A");
    let b = alg.input("B");
    let s = alg.input("S");
    let c = alg.ceildiv(a, b);
    alg.union(a, c, "fuzz").unwrap();
    let aa = alg.ceildiv(a, a);
    let q = alg.div(a, a).unwrap();
    alg.union(b, s, "fuzz").unwrap();
    alg.assume("A >= 0").unwrap();
    assert_eq!(alg.render(aa), "1");
    assert_eq!(alg.render(q), "1");
    assert!(alg
        .warnings()
        .iter()
        .all(|w| matches!(w, AlgebraWarning::RuleLimit { limit: 512, .. })));
    // Sound at the only assignments the merge allows (B == S == 1).
    for v in 1..6 {
        let env = |n: &str| match n {
            "A" => Some(symdim::algebra::Rat::int(v)),
            _ => Some(symdim::algebra::Rat::int(1)),
        };
        assert_eq!(alg.eval(c, &env), Some(symdim::algebra::Rat::int(v)));
    }
}

/// Undecided Ifs whose branches differ in rank make the driver case-split (infer the
/// rest of the graph once per branch). A chain of 40 of them, where neither branch
/// is ever ruled out, must stay within the split budget: at most `MAX_SPLITS` splits
/// in all, at most `MAX_SPLIT_NESTING` nested, so the work is bounded.
#[test]
fn a_chain_of_undecided_rank_changing_ifs_stays_within_the_split_budget() {
    use symdim::infer::{infer_context, MAX_SPLITS};
    use symdim::Facts;
    let n = 40;
    let (inputs, nodes) = if_chain(n, |i, x| {
        (
            branch(
                &format!("then{i}"),
                &format!("unsq{i}"),
                "Unsqueeze",
                &[x, "axis0"],
                &format!("t{i}"),
            ),
            branch(
                &format!("else{i}"),
                &format!("id{i}"),
                "Identity",
                &[x],
                &format!("e{i}"),
            ),
        )
    });
    let last = format!("x{n}");
    let m = model(inputs, vec![ints("axis0", &[0])], nodes, &[&last]);
    let ctx = infer_context(&m, &Facts::default());
    let (splits, _) = ctx.case_splits();
    assert!(splits <= MAX_SPLITS, "{splits} splits");
    assert!(splits > 0, "the first If is split");
    // Neither branch fails anywhere, so no branch is chosen: the ranks stay unknown.
    assert!(ctx.get(&last).unwrap().shape.is_none());
    assert!(!ctx
        .diagnostics
        .iter()
        .any(|d| d.message.contains("is not decided")));
}

/// The `algebra_ops` fuzzer's third find (`tests/fixtures/fuzz/algebra_ops_cyclic_floordiv.bin`,
/// a slow unit under the sanitizer): `A == floordiv(A, B)` (satisfiable with B == 1)
/// makes `A`'s class hold an operator term over itself, like the ceildiv find; the
/// rewrites that follow stop at the rule-application limit.
#[test]
fn algebra_fuzz_find_cyclic_floordiv_stays_within_the_limits() {
    use symdim::algebra::{Algebra, AlgebraWarning, Rat};
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/fuzz/algebra_ops_cyclic_floordiv.bin"
    ))
    .unwrap();
    assert_eq!(bytes.len(), 23);
    let mut alg = Algebra::default();
    let a = alg.input("A");
    let b = alg.input("B");
    let s = alg.input("S");
    let fab = alg.floordiv(a, b);
    let fas = alg.floordiv(a, s);
    let _ = alg.floordiv(b, a);
    alg.union(a, fab, "fuzz").unwrap();
    let _ = alg.neg(fas);
    let ff = alg.floordiv(fab, fab);
    let aa = alg.floordiv(a, a);
    let _ = alg.floordiv(fab, a);
    assert_eq!(alg.render(ff), "1");
    assert_eq!(alg.render(aa), "1");
    assert!(alg
        .warnings()
        .iter()
        .all(|w| matches!(w, AlgebraWarning::RuleLimit { limit: 512, .. })));
    // Sound where the merge allows it (B == 1): floordiv(A, B) is A.
    for v in 1..6 {
        let env = |n: &str| match n {
            "B" => Some(Rat::int(1)),
            _ => Some(Rat::int(v)),
        };
        assert_eq!(alg.eval(fab, &env), Some(Rat::int(v)));
    }
}

/// Each undecided If is probed for a split by copying the context first; a model of
/// many undecided Ifs whose branches agree on rank must not copy it for every one.
#[test]
fn undecided_ifs_are_probed_for_a_split_a_bounded_number_of_times() {
    use symdim::infer::{infer_context, MAX_SPLIT_PROBES};
    use symdim::Facts;
    let n = 200;
    let (inputs, nodes) = if_chain(n, |i, x| {
        let branch = |tag: &str| {
            branch(
                &format!("{tag}{i}"),
                &format!("{tag}_id{i}"),
                "Identity",
                &[x],
                &format!("{tag}_out{i}"),
            )
        };
        (branch("t"), branch("e"))
    });
    let last = format!("x{n}");
    let m = model(inputs, vec![], nodes, &[&last]);
    let ctx = infer_context(&m, &Facts::default());
    assert_eq!(ctx.case_splits().1, MAX_SPLIT_PROBES);
    assert_eq!(ctx.case_splits().0, 0, "same ranks: nothing to split");
    // Both branches are Identity: every If keeps [N].
    let shape = ctx.get(&last).unwrap().shape.as_ref().unwrap();
    assert_eq!(ctx.render_dims(shape), "[N]");
}
