//! Hostile graphs: every bad node gets an error diagnostic naming the node, the op
//! and the problem; its outputs get the declared shape or none; the rest of the
//! graph is still inferred; nothing panics, hangs or overflows the stack.

use crate::common;

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
    // A dim is an int64: 2^65 is an error naming the value, and the dim unknown.
    let big = 1i64 << 62;
    let m = model(
        vec![input("x", &[DeclDim::Value(big), DeclDim::Value(8)])],
        vec![ints("t", &[-1])],
        vec![node("r", "Reshape", &["x", "t"], &["y"], &[])],
        &["y"],
    );
    let r = common::report(&m, &Facts::default());
    assert_eq!(shape(&r, "y"), Some(vec!["unk0".into()]));
    let errs = errors(&r);
    assert!(
        errs.len() == 1 && errs[0].contains("36893488147419103232") && errs[0].contains("int64"),
        "{errs:?}"
    );
    // Concat of two [2^63 - 1].
    let m = model(
        vec![
            input("a", &[DeclDim::Value(i64::MAX)]),
            input("b", &[DeclDim::Value(i64::MAX)]),
        ],
        vec![],
        vec![node(
            "c",
            "Concat",
            &["a", "b"],
            &["y"],
            &[("axis", Attr::Int(0))],
        )],
        &["y"],
    );
    let r = common::report(&m, &Facts::default());
    assert_eq!(shape(&r, "y"), Some(vec!["unk0".into()]));
    assert!(
        errors(&r)[0].contains("18446744073709551614"),
        "{:?}",
        errors(&r)
    );
}

/// Shape -> Gather -> Mul(x, x) -> Unsqueeze -> ConstantOfShape, 40 times, squares
/// the dim each time (`N**(2**40)`): the form stops at the form-size limit as a
/// fresh dim, with a warning, instead of exhausting memory.
#[test]
fn squaring_chains_stop_at_the_form_limit() {
    let mut nodes = Vec::new();
    let mut cur = "x".to_string();
    for i in 0..40 {
        let (s, g, m, u, c) = (
            format!("s{i}"),
            format!("g{i}"),
            format!("m{i}"),
            format!("u{i}"),
            format!("c{i}"),
        );
        nodes.push(node(&format!("S{i}"), "Shape", &[&cur], &[&s], &[]));
        nodes.push(node(&format!("G{i}"), "Gather", &[&s, "zero"], &[&g], &[]));
        nodes.push(node(&format!("M{i}"), "Mul", &[&g, &g], &[&m], &[]));
        nodes.push(node(&format!("U{i}"), "Unsqueeze", &[&m, "ax"], &[&u], &[]));
        nodes.push(node(&format!("C{i}"), "ConstantOfShape", &[&u], &[&c], &[]));
        cur = c;
    }
    let zero = (
        "zero".to_string(),
        ConstTensor {
            dtype: DType::Int64,
            dims: vec![],
            data: ConstData::Ints(vec![0]),
        },
    );
    let m = model(
        vec![input("x", &[p("N")])],
        vec![zero, ints("ax", &[0])],
        nodes,
        &[&cur],
    );
    let r = common::report(&m, &Facts::default());
    let last = shape(&r, &cur).unwrap();
    assert!(last[0].starts_with("big"), "{last:?}");
    assert!(
        r.diagnostics
            .iter()
            .any(|d| d.message.contains("grew past")),
        "the limit is named in a warning"
    );
}

/// Concat of 3,000 inputs with distinct symbolic dims: the sum is built as a
/// balanced tree (a left fold held n^2/2 terms).
#[test]
fn wide_symbolic_concat_sums_every_input() {
    let n = 3000;
    let names: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
    let inputs = (0..n)
        .map(|i| input(&names[i], &[p(&format!("D{i}"))]))
        .collect();
    let refs: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
    let m = model(
        inputs,
        vec![],
        vec![node(
            "c",
            "Concat",
            &refs,
            &["y"],
            &[("axis", Attr::Int(0))],
        )],
        &["y"],
    );
    let r = common::report(&m, &Facts::default());
    let y = &shape(&r, "y").unwrap()[0];
    assert_eq!(y.matches('+').count(), n - 1);
    assert!(y.starts_with("D0 + D1 + ") || y.contains("D2999"), "{y}");
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
    let m = symdim::read::load::load(std::path::Path::new(path)).unwrap();
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

/// A `cli_args` fuzz case (`tests/fixtures/fuzz/cli_args_empty_backquoted_bind.txt`,
/// `--bind '``=3'`): the empty backquoted name `` `` `` read as a symbol named "" in
/// `--bind`, `--range` and `--opt`. It is an empty name, refused as one.
#[test]
fn cli_fuzz_find_empty_backquoted_name_is_refused() {
    use symdim::context::facts::{parse_bind, BindProblem, FactsError};
    use symdim::contracts::ranges::{parse_opt, parse_range, RangeError};
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/fuzz/cli_args_empty_backquoted_bind.txt"
    ))
    .unwrap();
    assert_eq!(text, "``=3");
    for bind in [text.as_str(), " `` = 3"] {
        let err = parse_bind(bind).unwrap_err();
        assert_eq!(
            err,
            FactsError::BadBind {
                text: bind.to_string(),
                why: BindProblem::EmptyName,
            }
        );
        assert_eq!(
            err.as_flags().to_string(),
            format!("--bind {bind}: the symbol name is empty")
        );
    }
    let range = "``=1..3";
    assert_eq!(
        parse_range(range),
        Err(RangeError::BadRange {
            text: range.to_string()
        })
    );
    assert_eq!(
        parse_opt("``=2"),
        Err(RangeError::BadOpt {
            text: "``=2".to_string()
        })
    );
    // A backquoted name with text in it still reads.
    assert_eq!(parse_bind("`a b`=3"), Ok(("a b".to_string(), 3)));
    assert_eq!(parse_opt("`a b`=2"), Ok(("a b".to_string(), 2)));
}

/// An `algebra_ops` fuzz case (`tests/fixtures/fuzz/algebra_ops_assume_slow.bin`): the
/// union `A*A + A*S == A` is refuted (`A*A + A*S - A = A*(A + S - 1)`, a product of
/// two factors >= 1, which interval bounds alone do not see). Where dims may be 0 the
/// union is possible and merged, making the self-referential class `A == A*(A + S)`;
/// the fact `A >= 6` then refines its bounds, which must stay within 2^256 rather
/// than square at every refinement.
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

/// An `algebra_ops` fuzz case (`tests/fixtures/fuzz/algebra_ops_cyclic_ceildiv.bin`):
/// `A == ceildiv(A, B)` is satisfiable (B == 1), so it is merged, and the class of `A`
/// then contains an operator term over itself. The rewrites that follow stop at the
/// rule-application limit (512 per saturation), with warnings, instead of running on;
/// every answer stays sound.
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
    use symdim::shapes::MAX_SPLITS;
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
    let ctx = symdim::infer(&m, &Facts::default()).into_context();
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

/// An `algebra_ops` fuzz case (`tests/fixtures/fuzz/algebra_ops_cyclic_floordiv.bin`):
/// `A == floordiv(A, B)` (satisfiable with B == 1) makes `A`'s class hold an operator
/// term over itself, as in the ceildiv case; the rewrites that follow stop at the
/// growth or rule-application limit.
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
    // The self-feeding rewrites stop at the growth limit (or the rule limit).
    assert!(alg.warnings().iter().all(|w| matches!(
        w,
        AlgebraWarning::RuleLimit { limit: 512, .. } | AlgebraWarning::GrowthLimit { .. }
    )));
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
    use symdim::shapes::MAX_SPLIT_PROBES;
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
    let ctx = symdim::infer(&m, &Facts::default()).into_context();
    assert_eq!(ctx.case_splits().1, MAX_SPLIT_PROBES);
    assert_eq!(ctx.case_splits().0, 0, "same ranks: nothing to split");
    // Both branches are Identity: every If keeps [N].
    let shape = ctx.get(&last).unwrap().shape.as_ref().unwrap();
    assert_eq!(ctx.render_dims(shape), "[N]");
}

// ---------- Hostile files: what a model path, an external-data location or an IR
// `.bin` can name ----------

use common::pb;
use std::path::{Path, PathBuf};

/// A fresh scratch folder for one test.
fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("symdim-hostile-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
}

/// Run `f` on a thread with the default stack of a spawned thread (2 MB, a quarter of
/// the main thread's), failing (not hanging) when it takes more than 60 s: a
/// regression that blocks on a FIFO fails the test.
fn bounded<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let _ = tx.send(f());
        })
        .unwrap();
    rx.recv_timeout(std::time::Duration::from_secs(60))
        .expect("finished in time, on a 2 MB stack")
}

/// A FIFO, a character device (through a symlink) and a directory as the model path
/// are refused before a byte is read: reading a FIFO would block forever and
/// `/dev/zero` would read until memory ran out.
#[cfg(unix)]
#[test]
fn special_files_as_the_model_are_refused_without_reading() {
    use symdim::read::files::FileKind;
    use symdim::read::load::LoadError;
    let dir = scratch("model-path");
    let fifo = dir.join("fifo.onnx");
    mkfifo(&fifo);
    let zero = dir.join("zero.onnx");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let folder = dir.join("folder.onnx");
    std::fs::create_dir(&folder).unwrap();
    for (path, kind) in [
        (fifo, FileKind::Fifo),
        (zero, FileKind::CharDevice),
        (folder, FileKind::Directory),
    ] {
        let shown = path.display().to_string();
        let loaded = bounded(move || symdim::read::load::load(&path));
        match loaded {
            Err(LoadError::NotRegularFile { path, kind: k }) => {
                assert_eq!((path, k), (shown.clone(), kind));
            }
            other => panic!("{shown}: {other:?}"),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// An OpenVINO `.bin` that is a FIFO is refused, not read (the `.xml` names Const
/// layers, so the weights are needed).
#[cfg(unix)]
#[test]
fn an_ir_weights_file_that_is_a_fifo_is_refused() {
    let dir = scratch("ir-bin");
    let xml = r#"<?xml version="1.0"?>
<net name="n" version="11"><layers>
<layer id="0" name="c" type="Const" version="opset1"><data element_type="i64" shape="1" offset="0" size="8"/><output><port id="0" precision="I64"><dim>1</dim></port></output></layer>
<layer id="1" name="r" type="Result" version="opset1"><input><port id="0"><dim>1</dim></port></input></layer>
</layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges></net>"#;
    std::fs::write(dir.join("m.xml"), xml).unwrap();
    mkfifo(&dir.join("m.bin"));
    let path = dir.join("m.xml");
    let e = bounded(move || symdim::read::load::load(&path)).unwrap_err();
    assert!(
        matches!(
            &e,
            symdim::read::load::LoadError::OpenVino {
                source: symdim::read::openvino::IrError::NotRegularFile {
                    kind: symdim::read::files::FileKind::Fifo,
                    ..
                },
                ..
            }
        ),
        "{e}"
    );
    assert!(
        e.to_string().ends_with("m.bin: it is a FIFO (named pipe)"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// 15,000 nested elements overflowed the XML parser's stack (it recurses once per
/// level). The depth is checked by a byte scan first: past `max_xml_depth` (256) the
/// model is refused naming the limit, and a document at the limit parses on a 2 MB
/// stack (in a debug build too).
#[test]
fn deep_xml_is_refused_before_parsing() {
    use symdim::read::openvino::{IrError, IrLimits, IrModel};
    let nested = |n: usize, open: &str, close: &str| {
        format!(
            r#"<?xml version="1.0"?><net name="x" version="11"><layers>{}{}</layers><edges/></net>"#,
            open.repeat(n),
            close.repeat(n)
        )
    };
    let max = IrLimits::default().max_xml_depth;
    assert_eq!(max, 256);
    for (open, close) in [
        ("<a>", "</a>"),
        // A `>` and `/>` inside a quoted value do not end the tag.
        (r#"<a x="/>">"#, "</a>"),
        // Comments, processing instructions and CDATA between tags change nothing.
        ("<!-- <b> --><?pi <c>?><a><![CDATA[<d>]]>", "</a>"),
    ] {
        let deep = nested(15_000, open, close);
        let e = bounded(move || IrModel::parse(&deep)).unwrap_err();
        assert!(
            matches!(
                e,
                IrError::XmlTooDeep {
                    depth: 257,
                    max: 256
                }
            ),
            "{open}: {e}"
        );
        assert_eq!(
            e.to_string(),
            "XML elements nest 257 levels deep, more than the limit of 256"
        );
        // At the limit (the net and layers elements are two of the levels) the
        // parser runs and finds no layers.
        let at = nested(max - 2, open, close);
        let m = bounded(move || IrModel::parse(&at)).unwrap();
        assert!(m.graph.layers.is_empty());
    }
    // Self-closing elements and closing tags do not add up.
    let flat = format!(
        r#"<?xml version="1.0"?><net name="x" version="11"><layers>{}</layers><edges/></net>"#,
        "<a/><b></b>".repeat(10_000)
    );
    assert!(IrModel::parse(&flat).is_ok());
    // Through the loader and the CLI path: a clean error, exit status 2.
    let deep = nested(15_000, "<a>", "</a>");
    let e = bounded(move || {
        symdim::read::load::load_bytes(deep.as_bytes(), "deep.xml", &Default::default())
    })
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "deep.xml: invalid OpenVINO IR model: XML elements nest 257 levels deep, more than the limit of 256"
    );
}

/// oneDNN Graph JSON nested 100,000 levels deep stops at serde_json's recursion limit
/// (128), on a 2 MB stack.
#[test]
fn deep_onednn_json_stops_at_the_parsers_recursion_limit() {
    for text in [
        format!(
            r#"{{"graph": {}{}}}"#,
            "[".repeat(100_000),
            "]".repeat(100_000)
        ),
        format!(
            r#"{{"version": "3.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": [{}1{}]}}"#,
            r#"{"a": "#.repeat(100_000),
            "}".repeat(100_000)
        ),
    ] {
        let e = bounded(move || {
            symdim::read::load::load_bytes(text.as_bytes(), "deep.json", &Default::default())
        })
        .unwrap_err();
        assert!(e.to_string().contains("recursion limit exceeded"), "{e}");
    }
}

/// A model `Reshape(x: [N, 8], shape)` whose `shape` ([-1, 4], int64) lies in the
/// external file `location`, written to `dir/name`.
fn external_shape_model(dir: &Path, name: &str, location: &str) -> PathBuf {
    let bytes = pb::model(pb::graph(
        vec![pb::node("r", "Reshape", &["x", "shape"], &["y"])],
        vec![pb::external_int64_tensor("shape", &[2], location)],
        vec![pb::value_info("x", 1, Some(&["N", "8"]))],
        vec![pb::value_info("y", 1, None)],
        vec![],
    ));
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// External data that cannot be read (missing, too short, outside the model's folder,
/// a directory, a symlink to `/dev/zero` or out of the folder, a FIFO) is an error
/// naming the tensor and the reason, not silently unknown dims.
#[test]
fn unreadable_external_data_is_an_error_naming_the_tensor() {
    let root = scratch("external");
    let dir = root.join("model");
    std::fs::create_dir(&dir).unwrap();
    let good: Vec<u8> = [-1i64, 4].iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(dir.join("shape.bin"), &good).unwrap();
    std::fs::write(dir.join("short.bin"), &good[..8]).unwrap();
    std::fs::write(root.join("outside.bin"), &good).unwrap();
    std::fs::create_dir(dir.join("folder.bin")).unwrap();
    let mut cases: Vec<(&str, &str)> = vec![
        ("nope.bin", "No such file"),
        ("short.bin", "exceeds the file size 8"),
        ("../outside.bin", "escapes the model directory"),
        ("folder.bin", "is a directory, not a regular file"),
    ];
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("/dev/zero", dir.join("zero.bin")).unwrap();
        std::os::unix::fs::symlink(root.join("outside.bin"), dir.join("out.bin")).unwrap();
        mkfifo(&dir.join("fifo.bin"));
        cases.extend([
            ("zero.bin", "escapes the model directory"),
            ("out.bin", "escapes the model directory"),
            ("fifo.bin", "is a FIFO (named pipe), not a regular file"),
        ]);
    }
    let ok = external_shape_model(&dir, "ok.onnx", "shape.bin");
    let m = symdim::read::load::load(&ok).unwrap();
    let r = common::report(&m, &Facts::default());
    assert_eq!(shape(&r, "y"), Some(vec!["2*N".into(), "4".into()]));
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    for (i, (location, why)) in cases.into_iter().enumerate() {
        let path = external_shape_model(&dir, &format!("m{i}.onnx"), location);
        let r = bounded(move || {
            let m = symdim::read::load::load(&path).unwrap();
            common::report(&m, &Facts::default())
        });
        let e = errors(&r);
        assert_eq!(e.len(), 1, "{location}: {e:?}");
        assert!(
            e[0].starts_with("error: initializer `shape`: its data cannot be read (")
                && e[0].contains(why)
                && e[0].ends_with("); its values are unknown"),
            "{location}: {e:?}"
        );
        // The reshape target is unknown, so are the dims; the rank is still known.
        let y = shape(&r, "y").unwrap();
        assert!(
            y.len() == 2 && y.iter().all(|d| d.starts_with("unk")),
            "{y:?}"
        );
    }
    // A model held in memory has no folder to read from: not the model's fault, no
    // error.
    let bytes = std::fs::read(&ok).unwrap();
    let m = symdim::read::load::load_bytes(&bytes, "ok.onnx", &Default::default()).unwrap();
    assert!(common::report(&m, &Facts::default()).diagnostics.is_empty());
    let _ = std::fs::remove_dir_all(&root);
}

/// Declared ranks are capped like computed ones ([`symdim::context::MAX_RANK`]): for
/// an `Add` of two rank-5,000 inputs each input's rank is unknown, with a warning
/// naming the limit, rather than 5,000 dims built and broadcast.
#[test]
fn declared_ranks_above_the_limit_are_unknown() {
    use symdim::context::MAX_RANK;
    assert_eq!(MAX_RANK, 1024);
    let dims = |prefix: &str, n: usize| -> Vec<DeclDim> {
        (0..n).map(|i| p(&format!("{prefix}{i}"))).collect()
    };
    let m = model(
        vec![input("a", &dims("a", 5000)), input("b", &dims("b", 5000))],
        vec![],
        vec![node("add", "Add", &["a", "b"], &["y"], &[])],
        &["y"],
    );
    let r = common::report(&m, &Facts::default());
    assert_eq!(r.tensors["a"].shape, None);
    assert_eq!(r.tensors["y"].shape, None);
    let warnings: Vec<String> = r.diagnostics.iter().map(|d| d.to_string()).collect();
    assert_eq!(
        warnings,
        [
            "warning: input `a` is declared with rank 5000, above the rank limit of 1024; its rank is taken as unknown",
            "warning: input `b` is declared with rank 5000, above the rank limit of 1024; its rank is taken as unknown",
        ]
    );
    // At the limit the shape is built.
    let m = model(
        vec![input("a", &dims("a", MAX_RANK))],
        vec![],
        vec![node("relu", "Relu", &["a"], &["y"], &[])],
        &["y"],
    );
    let r = common::report(&m, &Facts::default());
    assert_eq!(r.tensors["y"].shape.as_ref().map(Vec::len), Some(MAX_RANK));
    assert!(r.diagnostics.is_empty());
    // A constant of rank 2,000 (all dims 1) likewise.
    let big = ConstTensor {
        dtype: DType::Float,
        dims: vec![1; 2000],
        data: ConstData::NotLoaded,
    };
    let m = model(
        vec![input("x", &[p("N")])],
        vec![("w".into(), big)],
        vec![node("add", "Add", &["x", "w"], &["y"], &[])],
        &["y"],
    );
    let r = common::report(&m, &Facts::default());
    assert_eq!(r.tensors["y"].shape, None, "broadcast with a rank unknown");
    assert_eq!(
        r.diagnostics[0].to_string(),
        "warning: initializer `w` is declared with rank 2000, above the rank limit of 1024; its rank is taken as unknown"
    );
}

/// Where a rule leaves an output's rank unknown, the model's declaration of it
/// (`value_info`) is used, so the rest of the graph is inferred.
#[test]
fn a_declared_shape_informs_an_output_of_unknown_rank() {
    // Reshape to a shape input of unknown length: unknown rank.
    let mut m = model(
        vec![
            input("x", &[p("N")]),
            ValueDecl {
                name: "s".into(),
                dtype: DType::Int64,
                shape: Some(vec![DeclDim::Unknown]),
            },
        ],
        vec![],
        vec![
            node("r", "Reshape", &["x", "s"], &["t"], &[]),
            node("relu", "Relu", &["t"], &["y"], &[]),
        ],
        &["y"],
    );
    let r = common::report(&m, &Facts::default());
    assert_eq!(r.tensors["y"].shape, None);
    m.graph.value_info.push(ValueDecl {
        name: "t".into(),
        dtype: DType::Float,
        shape: Some(vec![DeclDim::Value(20), DeclDim::Unknown]),
    });
    let r = common::report(&m, &Facts::default());
    assert_eq!(shape(&r, "y"), Some(vec!["20".into(), "unk0".into()]));
    assert!(errors(&r).is_empty());
}

fn warnings(r: &Report) -> Vec<String> {
    r.diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .map(|d| d.to_string())
        .collect()
}

/// Computed ranks are capped like declared ones: past `MAX_RANK` an output's rank is
/// unknown, with one warning naming the limit at the node that made it, for ranks
/// doubling past the limit and for a chain of single-axis Unsqueezes.
#[test]
fn computed_ranks_past_the_limit_are_unknown_with_a_warning() {
    let limit = symdim::graph::MAX_RANK;
    for n in [limit / 2, limit - 1, limit, limit + 1, 2 * limit, 4 * limit] {
        let ones = vec![1i64; n];
        let axes: Vec<i64> = (1..=n as i64).collect();
        let cases = [
            (
                "Unsqueeze",
                model(
                    vec![input("x", &[p("N")])],
                    vec![ints("ax", &axes)],
                    vec![node("u", "Unsqueeze", &["x", "ax"], &["y"], &[])],
                    &["y"],
                ),
                n + 1,
            ),
            (
                "ConstantOfShape",
                model(
                    vec![],
                    vec![ints("sh", &ones)],
                    vec![node("c", "ConstantOfShape", &["sh"], &["y"], &[])],
                    &["y"],
                ),
                n,
            ),
            (
                "Expand",
                model(
                    vec![input("x", &[p("N")])],
                    vec![ints("sh", &ones)],
                    vec![node("e", "Expand", &["x", "sh"], &["y"], &[])],
                    &["y"],
                ),
                n,
            ),
        ];
        for (op, m, rank) in cases {
            let r = common::report(&m, &Facts::default());
            let w = warnings(&r);
            assert!(errors(&r).is_empty(), "{op} {n}: {:?}", errors(&r));
            if rank > limit {
                assert_eq!(r.tensors["y"].shape, None, "{op} {n}");
                assert_eq!(w.len(), 1, "{op} {n}: {w:?}");
                // A rank the rule computed, or the length of the list it reads it
                // from.
                let computed = format!(
                    "output 0 `y` has rank {rank}, above the rank limit of {limit}; its rank is taken as unknown"
                );
                let list = format!(
                    "has length {n}, above the rank limit of {limit}; the rank of output 0 `y` is taken as unknown"
                );
                assert!(
                    w[0].contains(if n > limit { &list } else { &computed }),
                    "{op} {n}: {w:?}"
                );
            } else {
                assert_eq!(
                    r.tensors["y"].shape.as_ref().map(Vec::len),
                    Some(rank),
                    "{op} {n}"
                );
                assert!(w.is_empty(), "{op} {n}: {w:?}");
            }
        }
    }
    // A chain of 4 * MAX_RANK single-axis Unsqueezes: the node making rank
    // MAX_RANK + 1 warns, the ones after it see an unknown rank (and stay quiet).
    let n = 4 * limit;
    let nodes: Vec<Node> = (0..n)
        .map(|i| {
            let x = if i == 0 {
                "x".to_string()
            } else {
                format!("u{}", i - 1)
            };
            node(
                &format!("U{i}"),
                "Unsqueeze",
                &[&x],
                &[&format!("u{i}")],
                &[],
            )
        })
        .collect();
    let m = model(
        vec![input("x", &[p("N")])],
        vec![ints("ax", &[0])],
        nodes
            .into_iter()
            .map(|mut nd| {
                nd.inputs.push("ax".into());
                nd
            })
            .collect(),
        &[&format!("u{}", n - 1)],
    );
    let r = common::report(&m, &Facts::default());
    let w = warnings(&r);
    assert_eq!(w.len(), 1, "{w:?}");
    // `u{i}` has rank i + 2: `U{limit - 1}` makes rank `limit + 1`.
    let at = format!("at U{}:", limit - 1);
    assert!(
        w[0].contains(&at) && w[0].contains("above the rank limit"),
        "{w:?}"
    );
    assert_eq!(
        r.tensors[format!("u{}", limit - 2).as_str()]
            .shape
            .as_ref()
            .map(Vec::len),
        Some(limit)
    );
    assert_eq!(r.tensors[format!("u{}", limit - 1).as_str()].shape, None);
    assert_eq!(r.tensors[format!("u{}", n - 1).as_str()].shape, None);
}

/// `explain` of a sum of many symbols (a Concat of symbolic inputs) replays the
/// rewrites only up to `MAX_EXPLAIN_TERM_NODES` nodes; past it the term and its
/// canonical form are printed with a note naming the limit.
#[test]
fn explain_replays_only_small_terms() {
    use symdim::contracts::explain::MAX_EXPLAIN_TERM_NODES;
    // The balanced sum of n symbols has 2n - 1 nodes: n = 64 is replayed, the
    // others are past the limit.
    for n in [64, MAX_EXPLAIN_TERM_NODES / 2 + 1, MAX_EXPLAIN_TERM_NODES] {
        let names: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let m = model(
            names
                .iter()
                .enumerate()
                .map(|(i, x)| input(x, &[p(&format!("a{i}"))]))
                .collect(),
            vec![],
            vec![node(
                "cat",
                "Concat",
                &refs,
                &["y"],
                &[("axis", Attr::Int(0))],
            )],
            &["y"],
        );
        let shapes = symdim::infer(&m, &Facts::default());
        let text = shapes.explain("y[0]").unwrap();
        // The canonical form, as the report prints it, ends the explanation.
        let y0 = shape(&shapes.report(), "y").unwrap()[0].clone();
        assert!(text.contains(&format!("= {y0}")), "{n}: {text}");
        let note = format!(
            "nodes, above the limit MAX_EXPLAIN_TERM_NODES = {MAX_EXPLAIN_TERM_NODES}: too large to replay)"
        );
        assert_eq!(
            text.contains(&note),
            2 * n - 1 > MAX_EXPLAIN_TERM_NODES,
            "{n}: {text}"
        );
    }
}

/// An `algebra_ops` fuzz case (`tests/fixtures/fuzz/algebra_ops_cyclic_floordiv_growth.bin`):
/// after `union(floordiv(B, A), floordiv(B, S))` and `union(floordiv(B, A), B)` (both
/// satisfiable, with `A == S == 1`), `B`'s class holds `floordiv(B, B)`-like terms over
/// itself, and each match of a division rule added a term `floordiv(B, B*A**i*S**j)`
/// and with it one more match. Counting each match against the rule-application
/// limit keeps the class small and the union fast; before, one saturation counted
/// a rule's whole match list as one application and the class grew to 1,597 e-nodes.
#[test]
fn algebra_fuzz_find_cyclic_floordiv_growth_counts_every_match() {
    use symdim::algebra::{Algebra, FreshKey, Rat};
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/fuzz/algebra_ops_cyclic_floordiv_growth.bin"
    ))
    .unwrap();
    assert_eq!(bytes.len(), 22);
    // The fixture's ops, decoded as the fuzz target does (3 bytes per op).
    let mut alg = Algebra::default();
    let a = alg.input("A");
    let b = alg.input("B");
    let s = alg.input("S");
    let bs = alg.floordiv(b, s);
    let key = FreshKey {
        node: "n1".into(),
        output: 0,
        axis: 0,
    };
    let _ = alg.solve_minus_one(&[s], &[bs], key);
    let ba = alg.floordiv(b, a);
    let _ = alg.floordiv(bs, bs);
    alg.union(ba, bs, "fuzz").unwrap();
    alg.union(ba, b, "fuzz").unwrap();
    assert_eq!(alg.render(ba), "B");
    let largest = alg.egraph().classes().map(|c| c.nodes.len()).max().unwrap();
    assert!(largest <= 64, "a class grew to {largest} e-nodes");
    // Sound where the merges allow it (A == S == 1).
    for v in 1..6 {
        let env = |n: &str| match n {
            "B" => Some(Rat::int(v)),
            _ => Some(Rat::int(1)),
        };
        assert_eq!(alg.eval(ba, &env), Some(Rat::int(v)));
        assert_eq!(alg.eval(bs, &env), Some(Rat::int(v)));
    }
}
