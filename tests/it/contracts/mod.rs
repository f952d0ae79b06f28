//! `symdim constraints` and `symdim check` on small hand-built models. Every
//! expected condition is derived by hand from the ONNX spec (comments give the
//! derivation), not copied from symdim's output.

mod corpus;
mod ranges;

use crate::common::models;
use indexmap::IndexMap;
use models::named as node;
use symdim::algebra::Truth;
use symdim::contracts::check::{check, Status};
use symdim::contracts::{derive, fact_values, Contract, Kind};
use symdim::graph::{
    Attr, ConstData, ConstTensor, DType, DeclDim, Format, Graph, Model, Node, ValueDecl,
};
use symdim::Facts;

fn input(name: &str, dims: &[&str]) -> ValueDecl {
    ValueDecl {
        name: name.into(),
        dtype: DType::Float,
        shape: Some(
            dims.iter()
                .map(|d| match d.parse::<i64>() {
                    Ok(v) => DeclDim::Value(v),
                    Err(_) if d.is_empty() => DeclDim::Unknown,
                    Err(_) => DeclDim::Param(d.to_string()),
                })
                .collect(),
        ),
    }
}

fn ints(values: &[i64]) -> ConstTensor {
    ConstTensor {
        dtype: DType::Int64,
        dims: vec![values.len() as i64],
        data: ConstData::Ints(values.to_vec()),
    }
}

fn scalar(v: i64) -> ConstTensor {
    ConstTensor {
        dtype: DType::Int64,
        dims: vec![],
        data: ConstData::Ints(vec![v]),
    }
}

fn table(rows: i64, cols: i64) -> ConstTensor {
    ConstTensor {
        dtype: DType::Float,
        dims: vec![rows, cols],
        data: ConstData::NotLoaded,
    }
}

fn model(inputs: Vec<ValueDecl>, inits: Vec<(&str, ConstTensor)>, nodes: Vec<Node>) -> Model {
    let outputs = nodes
        .last()
        .map(|n| n.outputs[0].clone())
        .into_iter()
        .map(|o| ValueDecl {
            name: o,
            dtype: DType::Undefined,
            shape: None,
        })
        .collect();
    Model {
        path: "hand.onnx".into(),
        format: Format::Onnx,
        opsets: IndexMap::from([(String::new(), 17)]),
        graph: Graph {
            name: "g".into(),
            inputs,
            outputs,
            initializers: inits.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
            nodes,
            value_info: vec![],
        },
    }
}

fn contract(m: &Model) -> Contract {
    let options = Facts::default();
    let ctx = symdim::infer(m, &options).into_context();
    derive(m, &ctx, &options)
}

/// `(kind, condition, first node)` of every kept condition.
fn conditions(c: &Contract) -> Vec<(Kind, String, String)> {
    c.conditions
        .iter()
        .map(|c| {
            (
                c.kind,
                c.condition.clone(),
                c.nodes.first().cloned().unwrap_or_default(),
            )
        })
        .collect()
}

fn reshape(name: &str, x: &str, target: &str, out: &str) -> Node {
    node(name, "Reshape", &[x, target], &[out], vec![])
}

#[test]
fn reshape_that_always_divides_needs_nothing() {
    // [B, S, 768] -> [B, -1, 12, 64]: the -1 is S*768/768 = S, always an integer.
    let m = model(
        vec![input("x", &["B", "S", "768"])],
        vec![("t", ints(&[0, -1, 12, 64]))],
        vec![reshape("r", "x", "t", "y")],
    );
    assert_eq!(conditions(&contract(&m)), vec![]);
}

#[test]
fn reshape_minus_one_needs_divisibility() {
    // [B, S] -> [B, -1, 8]: the -1 is B*S/(8*B) = S/8, an integer iff 8 | S.
    let m = model(
        vec![input("x", &["B", "S"])],
        vec![("t", ints(&[0, -1, 8]))],
        vec![reshape("r", "x", "t", "y")],
    );
    assert_eq!(
        conditions(&contract(&m)),
        vec![(Kind::Divides, "S % 8 == 0".to_string(), "r".to_string())]
    );
}

#[test]
fn a_condition_implied_by_another_is_redundant() {
    // r8: [B, S] -> [B, -1, 8] needs 8 | S; r4: [B, S] -> [B, -1, 4] needs 4 | S,
    // which 8 | S implies: only 8 | S is kept, 4 | S is listed as redundant.
    let m = model(
        vec![input("x", &["B", "S"])],
        vec![("t8", ints(&[0, -1, 8])), ("t4", ints(&[0, -1, 4]))],
        vec![
            reshape("r4", "x", "t4", "y4"),
            reshape("r8", "x", "t8", "y8"),
        ],
    );
    let c = contract(&m);
    assert_eq!(
        conditions(&c),
        vec![(Kind::Divides, "S % 8 == 0".to_string(), "r8".to_string())]
    );
    assert_eq!(c.redundant.len(), 1);
    assert_eq!(c.redundant[0].condition, "S % 4 == 0");
}

#[test]
fn matmul_inner_dims_must_be_equal() {
    // MatMul [M, K1] x [K2, N]: the spec needs K1 == K2.
    let m = model(
        vec![input("a", &["M", "K1"]), input("b", &["K2", "N"])],
        vec![],
        vec![node("mm", "MatMul", &["a", "b"], &["y"], vec![])],
    );
    assert_eq!(
        conditions(&contract(&m)),
        vec![(Kind::Equal, "K1 == K2".to_string(), "mm".to_string())]
    );
}

#[test]
fn unnamed_dims_of_two_inputs_forced_equal_by_concat() {
    // Concat on axis 0 of [?, 4] and [?, ?]: axis 1 must match, so `b.1 == 4`;
    // the unnamed dims get the names `a.0`, `b.0`, `b.1`.
    let m = model(
        vec![input("a", &["", "4"]), input("b", &["", ""])],
        vec![],
        vec![node(
            "cat",
            "Concat",
            &["a", "b"],
            &["y"],
            vec![("axis", Attr::Int(0))],
        )],
    );
    assert_eq!(
        conditions(&contract(&m)),
        vec![(Kind::Equal, "`b.1` == 4".to_string(), "cat".to_string())]
    );
}

#[test]
fn broadcasting_two_input_dims_needs_equal_or_one() {
    // Add of [A] and [C]: numpy broadcasting needs A == C, or A == 1, or C == 1.
    let m = model(
        vec![input("a", &["A"]), input("c", &["C"])],
        vec![],
        vec![node("add", "Add", &["a", "c"], &["y"], vec![])],
    );
    let got = conditions(&contract(&m));
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].0, Kind::Either);
    assert_eq!(got[0].2, "add");
    let mut parts: Vec<&str> = got[0].1.split(" or ").collect();
    parts.sort();
    assert_eq!(parts, vec!["A == 1", "A == C", "C == 1"]);
}

#[test]
fn positional_table_bounds_the_sequence() {
    // Range(0, S, 1) gives the indices 0..S-1; Gather on a table of 2048 rows needs
    // every index < 2048, so S <= 2048.
    let m = model(
        vec![input("x", &["B", "S"])],
        vec![
            ("zero", scalar(0)),
            ("one", scalar(1)),
            ("idx1", ints(&[1])),
            ("pos", table(2048, 16)),
        ],
        vec![
            node("shape", "Shape", &["x"], &["s"], vec![]),
            node("seq", "Gather", &["s", "idx1"], &["s1"], vec![]),
            node("sq", "Squeeze", &["s1"], &["len"], vec![]),
            node("range", "Range", &["zero", "len", "one"], &["ids"], vec![]),
            node("emb", "Gather", &["pos", "ids"], &["e"], vec![]),
        ],
    );
    assert_eq!(
        conditions(&contract(&m)),
        vec![(Kind::Range, "S <= 2048".to_string(), "emb".to_string())]
    );
}

#[test]
fn conv_input_must_cover_the_kernel() {
    // Conv over [N, 1, L] with a kernel of 5, no padding, stride 1: the output
    // length is L - 5 + 1 = L - 4. onnxruntime rejects a Conv whose input is shorter
    // than its kernel (an output length of 0: silero-vad's STFT Conv with kernel 256
    // fails at 191 + 64 samples and runs at 192 + 64), so L - 4 >= 1: L >= 5.
    let m = model(
        vec![input("x", &["N", "1", "L"])],
        vec![(
            "w",
            ConstTensor {
                dtype: DType::Float,
                dims: vec![2, 1, 5],
                data: ConstData::NotLoaded,
            },
        )],
        vec![node("conv", "Conv", &["x", "w"], &["y"], vec![])],
    );
    assert_eq!(
        conditions(&contract(&m)),
        vec![(Kind::Range, "L >= 5".to_string(), "conv".to_string())]
    );
}

#[test]
fn check_names_the_failing_node() {
    let m = model(
        vec![input("x", &["B", "S"])],
        vec![("t", ints(&[0, -1, 8]))],
        vec![reshape("r", "x", "t", "y")],
    );
    let at = |binds: &[(&str, i64)]| {
        let options = Facts {
            binds: binds.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
            ..Facts::default()
        };
        check(&m, &options)
    };
    // S = 7: 8 does not divide 7.
    let v = at(&[("B", 2), ("S", 7)]);
    assert_eq!(v.status, Status::Invalid);
    assert!(v.failures.iter().all(|f| f.node == "r"), "{v:?}");
    assert!(!v.failures.is_empty());
    assert_eq!(v.exit_code(), 1);
    // S = 16: valid.
    let v = at(&[("B", 2), ("S", 16)]);
    assert_eq!(v.status, Status::Valid, "{v:?}");
    assert_eq!(v.exit_code(), 0);
    // S unbound: undecided, needing S % 8 == 0.
    let v = at(&[("B", 2)]);
    assert_eq!(v.status, Status::Undecided);
    assert_eq!(v.open[0].condition, "S % 8 == 0");
}

/// A condition is decided under facts given as values: binds as `name == value`,
/// assumes parsed once (one that does not parse is left out).
#[test]
fn conditions_are_decided_under_fact_values() {
    let m = model(
        vec![input("x", &["B", "S"])],
        vec![("t", ints(&[0, -1, 8]))],
        vec![reshape("r", "x", "t", "y")],
    );
    let c = contract(&m);
    let cond = &c.conditions[0];
    assert_eq!(cond.condition, "S % 8 == 0");
    let decide = |binds: &[(&str, i64)], assumes: &[&str]| {
        let options = Facts {
            binds: binds.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
            assumes: assumes.iter().map(|a| a.to_string()).collect(),
            ..Facts::default()
        };
        cond.decide(&fact_values(&options))
    };
    assert_eq!(decide(&[("S", 16)], &[]), Truth::True);
    assert_eq!(decide(&[("S", 7)], &[]), Truth::False);
    assert_eq!(decide(&[], &["S % 16 == 0"]), Truth::True);
    assert_eq!(decide(&[], &["S % 4 == 0"]), Truth::Unknown);
    assert_eq!(decide(&[], &["S %% 8 == 0"]), Truth::Unknown);
    assert_eq!(decide(&[], &[]), Truth::Unknown);
}

#[test]
fn reflect_pad_needs_each_pad_below_the_length() {
    // Pad-18 in reflect mode on [N, L] with pads [0, 3, 0, 5] (begin N, begin L, end
    // N, end L): reflection does not repeat the edge, so each pad of L is at most
    // L - 1: 3 <= L - 1 and 5 <= L - 1, i.e. L >= 6 (which implies L >= 4).
    let mut pad = node("pad", "Pad", &["x", "pads"], &["y"], vec![]);
    pad.version = 18;
    pad.attrs.insert("mode".into(), Attr::Str("reflect".into()));
    let m = model(
        vec![input("x", &["N", "L"])],
        vec![("pads", ints(&[0, 3, 0, 5]))],
        vec![pad],
    );
    let c = contract(&m);
    assert_eq!(
        conditions(&c),
        vec![(Kind::Range, "L >= 6".to_string(), "pad".to_string())]
    );
    assert_eq!(c.redundant.len(), 1, "{:?}", c.redundant);
    assert_eq!(c.redundant[0].condition, "L >= 4");
}

#[test]
fn a_pool_needs_its_kernel_to_fit() {
    // MaxPool-11, kernel 2, stride 2 over [N, 1, L]: the output length is
    // floor((L - 2) / 2) + 1, which the spec makes 0 at L = 1. onnxruntime runs
    // such a pool but divides with truncation, giving 1 (ppocr's classifier at
    // 16x16, where a MaxPool gets a length-1 input), and OpenVINO refuses a kernel
    // larger than its input: only L >= 2 is valid on every runtime.
    let mut pool = node(
        "pool",
        "MaxPool",
        &["x"],
        &["y"],
        vec![
            ("kernel_shape", Attr::Ints(vec![2])),
            ("strides", Attr::Ints(vec![2])),
        ],
    );
    pool.version = 11;
    let m = model(vec![input("x", &["N", "1", "L"])], vec![], vec![pool]);
    assert_eq!(
        conditions(&contract(&m)),
        vec![(Kind::Range, "L >= 2".to_string(), "pool".to_string())]
    );
}

/// An op error whose hint names an assumption gives that assumption as a condition,
/// built from the hint's dims (not from the message's text). An ONNX LSTM without
/// `hidden_size` and with R of unknown rank takes the hidden size from W:
/// `[num_directions, 4*hidden_size, input_size]`, so W `[1, A, 16]` has the hidden
/// size `A/4`, an integer only when 4 divides A.
#[test]
fn an_error_hint_is_a_condition_from_its_dims() {
    use symdim::algebra::AlgebraError;
    use symdim::context::{Cause, Hint, OpError};
    use symdim::DimExpr;
    let r = ValueDecl {
        name: "r".into(),
        dtype: DType::Float,
        shape: None,
    };
    let m = model(
        vec![
            input("x", &["S", "B", "16"]),
            input("w", &["1", "A", "16"]),
            r,
        ],
        vec![],
        vec![node("lstm", "LSTM", &["x", "w", "r"], &["y"], vec![])],
    );
    let ctx = symdim::infer(&m, &Facts::default()).into_context();
    let errors: Vec<_> = ctx
        .diagnostics
        .iter()
        .filter(|d| d.severity == symdim::context::Severity::Error)
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    let (a, four) = (DimExpr::symbol("A"), DimExpr::constant(4));
    let hint = Hint::Divides {
        divisor: four.clone(),
        dividend: a.clone(),
    };
    let quarter = DimExpr::parse("A/4").unwrap();
    assert_eq!(
        errors[0].cause,
        Some(Cause::Op {
            error: OpError::Algebra(AlgebraError::NotDivisible {
                dividend: a,
                divisor: four,
                residual: quarter,
                proven: false,
            }),
            hint: Some(hint.clone()),
        })
    );
    assert!(errors[0].message.ends_with("; valid when 4 divides A"));
    assert_eq!(hint.to_string(), "valid when 4 divides A");
    let c = derive(&m, &ctx, &Facts::default());
    assert_eq!(
        conditions(&c),
        vec![(Kind::Divides, "A % 4 == 0".to_string(), "lstm".to_string())]
    );
    assert_eq!(c.conditions[0].sources, ["error"]);

    // The contract reads the typed hint alone: an equality hint on a diagnostic
    // whose message says nothing gives the condition `2*S == T` (B stays free).
    let mut ctx = symdim::infer(&m, &Facts::default()).into_context();
    let (s, t) = (DimExpr::symbol("S"), DimExpr::symbol("T"));
    let d = &mut ctx.diagnostics[0];
    d.message = "m".to_string();
    if let Some(Cause::Op { hint, .. }) = &mut d.cause {
        *hint = Some(Hint::Equal(s * 2, t));
    }
    let c = derive(&m, &ctx, &Facts::default());
    assert_eq!(
        conditions(&c),
        vec![(Kind::Equal, "2*S == T".to_string(), "lstm".to_string())]
    );
    // Without a hint the error can never be satisfied: `false`, with the message.
    ctx.diagnostics[0].cause = None;
    let c = derive(&m, &ctx, &Facts::default());
    assert_eq!(
        conditions(&c),
        vec![(Kind::Impossible, "false".to_string(), "lstm".to_string())]
    );
    assert_eq!(c.conditions[0].note.as_deref(), Some("m"));
}

#[test]
fn a_divisibility_of_a_sum_reads_back_as_one() {
    // [`a.1` + 1] -> [-1, 4]: 4 must divide the whole sum; printed without the
    // parentheses it would read back as `a.1` + (1 % 4) == 0.
    let m = model(
        vec![input("x", &["`a.1` + 1"])],
        vec![("t", ints(&[-1, 4]))],
        vec![reshape("r", "x", "t", "y")],
    );
    let text = "(`a.1` + 1) % 4 == 0";
    assert_eq!(
        conditions(&contract(&m)),
        vec![(Kind::Divides, text.to_string(), "r".to_string())]
    );
    let f = symdim::algebra::parse::parse_fact(text).unwrap();
    assert_eq!(f.to_string(), "mod((`a.1` + 1), 4) == 0");
}
