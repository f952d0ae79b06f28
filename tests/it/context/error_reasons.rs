//! The typed reasons of `OpError::BadAttribute` and `OpError::BadShapeValue` print
//! the messages the op rules wrote as text: each expected string is the op rule's
//! own formatting (the `format!` the rule used, with the same inputs), so a reason
//! that drifts from the wording fails here.

use symdim::algebra::Rat;
use symdim::context::{
    AttrFloat, AttrProblem, AttrValue, Choices, EquationProblem, Expected, LengthForm, NeverValid,
    OpError, ShapeValueProblem, TargetProblem,
};
use symdim::graph::{Attr, ConstData, ConstTensor, DType, DeclDim, Graph};
use symdim::DimExpr;

fn dim(text: &str) -> DimExpr {
    DimExpr::parse(text).unwrap()
}

fn dims(texts: &[&str]) -> Vec<DimExpr> {
    texts.iter().map(|t| dim(t)).collect()
}

/// A shape as the rules rendered one: `[N, 3]`.
fn shown(texts: &[&str]) -> String {
    format!("[{}]", texts.join(", "))
}

#[test]
fn attr_values_print_as_the_graph_prints_attributes() {
    let graph = Graph {
        name: "body".into(),
        ..Graph::default()
    };
    let attrs = [
        Attr::Int(-3),
        Attr::Ints(vec![0, -1]),
        Attr::Ints(vec![]),
        Attr::Float(2.5),
        Attr::Float(1e-7),
        Attr::Floats(vec![1.0, 0.5]),
        Attr::Str("NOT\"SET".into()),
        Attr::Strs(vec!["a".into(), "b c".into()]),
        Attr::Tensor(ConstTensor {
            dtype: DType::Int64,
            dims: vec![2, 10],
            data: ConstData::NotLoaded,
        }),
        Attr::Graph(Box::new(graph.clone())),
        Attr::Graphs(vec![graph.clone(), graph]),
        Attr::Type(DType::Float16),
        Attr::Shape(None),
        Attr::Shape(Some(vec![
            DeclDim::Value(3),
            DeclDim::Unknown,
            DeclDim::Interval { lo: 1, hi: Some(4) },
            DeclDim::Interval { lo: 2, hi: None },
        ])),
    ];
    for a in &attrs {
        assert_eq!(AttrValue::from(a).to_string(), a.to_string(), "{a:?}");
    }
}

#[test]
fn attr_values_print_as_the_rules_formatted_them() {
    let ints: &[i64] = &[2, -1];
    assert_eq!(
        AttrValue::Ints(ints.to_vec()).to_string(),
        format!("{ints:?}")
    );
    let floats = vec![1.0, 2.5, f64::INFINITY];
    assert_eq!(
        AttrValue::pointed_floats(&floats).to_string(),
        format!("{floats:?}")
    );
    assert_eq!(
        AttrValue::Float(AttrFloat(0.25)).to_string(),
        0.25f64.to_string()
    );
    let text = "same\tupper";
    assert_eq!(AttrValue::Str(text.into()).to_string(), format!("{text:?}"));
    assert_eq!(AttrValue::Word("floor".into()).to_string(), "floor");
    for other in [None, Some("UP")] {
        let value = AttrValue::Optional(other.map(|s| Box::new(AttrValue::Str(s.into()))));
        assert_eq!(value.to_string(), format!("{other:?}"));
    }
    assert_eq!(
        AttrValue::Tensor {
            dtype: DType::Float,
            dims: vec![1, 2],
        }
        .to_string(),
        format!("<tensor {} {:?}>", DType::Float, vec![1i64, 2])
    );
    assert_eq!(
        AttrValue::Graph("then".into()).to_string(),
        format!("<graph {}>", "then")
    );
    let many = vec!["value_int", "value_float"];
    assert_eq!(AttrValue::Names(many.clone()).to_string(), many.join(", "));
    assert_eq!(
        AttrValue::Dims(dims(&["N", "2*S", "-1"])).to_string(),
        shown(&["N", "2*S", "-1"])
    );
    assert_eq!(AttrValue::Bool(true).to_string(), "true");
    assert_eq!(
        AttrValue::Described("both label lists").to_string(),
        "both label lists"
    );
    assert_eq!(
        AttrValue::ValueLists(2).to_string(),
        format!("{} value lists", 2)
    );
    // A NaN equals itself: errors that carry one compare equal.
    assert_eq!(AttrFloat(f64::NAN), AttrFloat(f64::NAN));
    assert_ne!(AttrFloat(0.0), AttrFloat(-0.0));
}

#[test]
fn attr_problems_print_the_rules_texts() {
    let (expected, kind) = ("an int", "string");
    let (len, n, k, count, bad) = (4usize, 2usize, 3usize, 3usize, -2i64);
    let (n_out, branch, then_len, else_len) = (3usize, 1usize, 2usize, 1usize);
    let (rank, axis, hkv, r, version) = (2usize, 1usize, 3i64, 3usize, 13i64);
    let ints = "classlabels_int64s";
    let in_type = DType::Double;
    let names: Vec<&str> = vec!["constant", "reflect", "edge", "wrap"];
    let (last, rest) = names.split_last().unwrap();
    let allowed = ["none", "sum", "prod", "min", "max", "mean"];
    let cases: Vec<(AttrProblem, String)> = vec![
        (
            AttrProblem::WrongKind {
                expected,
                found: kind,
            },
            format!("expected {expected}, found {kind}"),
        ),
        (
            AttrProblem::WrongKind {
                expected: "a bool (the int 0 or 1)",
                found: kind,
            },
            format!("expected a bool (the int 0 or 1), found {kind}"),
        ),
        (
            AttrProblem::UnexpectedKind("graph"),
            format!("unexpected attribute kind {}", "graph"),
        ),
        (
            AttrProblem::ExpectedKind("a list of integers"),
            "expected a list of integers".into(),
        ),
        (AttrProblem::one_of_ints(&[0, 1]), "expected 0 or 1".into()),
        (
            AttrProblem::one_of_ints(&[0, 1, 2, 3]),
            "expected 0, 1, 2 or 3".into(),
        ),
        (
            AttrProblem::one_of(&names),
            format!("expected {} or {last}", rest.join(", ")),
        ),
        (
            AttrProblem::NotOneOf {
                accepted: Choices::Names(vec!["none", "add", "mul"]),
                note: Some("max and min from opset 18"),
            },
            "expected none, add or mul (max and min from opset 18)".into(),
        ),
        (
            AttrProblem::NotOneOf {
                accepted: Choices::Names(vec!["ignore_negative", "normalize"]),
                note: Some("from version 16"),
            },
            "expected ignore_negative or normalize (from version 16)".into(),
        ),
        (
            AttrProblem::NotListed(allowed.to_vec()),
            format!("expected one of {}", allowed.join(", ")),
        ),
        (AttrProblem::NotPositive, "must be positive".into()),
        (AttrProblem::Below(1), "must be at least 1".into()),
        (AttrProblem::Negative, "must be non-negative".into()),
        (
            AttrProblem::EntryNot {
                entry: bad,
                expected: "non-negative",
            },
            format!("entry {bad} is not {}", "non-negative"),
        ),
        (
            AttrProblem::EntryNegative(bad),
            format!("entry {bad} is negative"),
        ),
        (
            AttrProblem::EntriesNotPositive,
            "entries must be positive".into(),
        ),
        (
            AttrProblem::Length {
                expected: len,
                form: LengthForm::Entries,
            },
            format!("expected {len} entries"),
        ),
        (
            AttrProblem::Length {
                expected: n,
                form: LengthForm::EntriesPerSpatialAxis,
            },
            format!("expected {n} entries (one per spatial axis)"),
        ),
        (
            AttrProblem::Length {
                expected: n,
                form: LengthForm::ValuesPerSpatialAxis,
            },
            format!("expected {n} values, one per spatial axis"),
        ),
        (
            AttrProblem::Length {
                expected: k,
                form: LengthForm::Values,
            },
            format!("expected {k} values"),
        ),
        (
            AttrProblem::Length {
                expected: count,
                form: LengthForm::OnePerInput,
            },
            format!("expected one entry per input ({count})"),
        ),
        (
            AttrProblem::EntriesForOutputs {
                entries: 2,
                outputs: n_out,
            },
            format!("{} entries for {n_out} outputs", 2),
        ),
        (
            AttrProblem::NodeOutputs(n_out),
            format!("the node has {n_out} outputs"),
        ),
        (
            AttrProblem::BranchOutputs { branch, node: 2 },
            format!("the branch has {} outputs; the node has {}", branch, 2),
        ),
        (
            AttrProblem::BranchesOutputs {
                then_branch: then_len,
                else_branch: else_len,
                node: 2,
            },
            format!(
                "the branches have {} and {} outputs; the node has {}",
                then_len, else_len, 2
            ),
        ),
        (
            AttrProblem::AffineOutputs(1),
            format!(
                "needs 3 outputs (diff_src, diff_gamma, diff_beta), found {}",
                1
            ),
        ),
        (
            AttrProblem::OnlyOneOf("classlabels_strings", ints),
            format!("only one of classlabels_strings and {ints} may be set"),
        ),
        (
            AttrProblem::BeyondIndicesRank(rank),
            format!("out of range for indices of rank {}", rank),
        ),
        (
            AttrProblem::AboveRankOrAxis { rank, axis },
            format!(
                "must be at most the indices rank {} and the axis {axis}",
                rank
            ),
        ),
        (
            AttrProblem::BatchDimsRange(rank),
            format!(
                "must be in [0, min(rank(data), rank(indices))) = [0, {})",
                rank
            ),
        ),
        (
            AttrProblem::NotMultipleOf {
                of: "kv_num_heads",
                value: hkv,
            },
            format!("not a multiple of kv_num_heads {hkv}"),
        ),
        (
            AttrProblem::NotPermutation(r),
            format!("must be a permutation of 0..{r}"),
        ),
        (
            AttrProblem::FmodOnFloat(in_type),
            format!("must be 1 for the float type {in_type}"),
        ),
        (
            AttrProblem::NotInVersion {
                op: "Reshape",
                version,
                attribute: "allowzero",
                since: 14,
            },
            format!("Reshape-{version} has no allowzero attribute (added in 14)"),
        ),
        (
            AttrProblem::Fixed("not an element type"),
            "not an element type".into(),
        ),
    ];
    for (problem, text) in cases {
        assert_eq!(problem.to_string(), text, "{problem:?}");
    }
}

#[test]
fn equation_problems_print_the_rules_texts() {
    let (t, c) = ("a...b...", '1');
    let cases = [
        (
            EquationProblem::TwoEllipses(t.into()),
            format!("term `{t}` has two ellipses"),
        ),
        (
            EquationProblem::UnexpectedCharacter {
                found: c,
                term: "a1".into(),
            },
            format!("unexpected character {c:?} in term `{}`", "a1"),
        ),
        (
            EquationProblem::UnknownLabel('z'),
            format!("output label {:?} is not in any input term", 'z'),
        ),
        (
            EquationProblem::RepeatedLabel('a'),
            format!("output label {:?} appears twice", 'a'),
        ),
    ];
    for (problem, text) in cases {
        assert_eq!(problem.to_string(), text, "{problem:?}");
    }
    let eq = "ab,bc->z";
    let e = OpError::BadAttribute {
        name: "equation",
        value: AttrValue::Str(eq.into()),
        why: Box::new(AttrProblem::Equation(EquationProblem::UnknownLabel('z'))),
    };
    assert_eq!(
        e.to_string(),
        format!(
            "attribute `equation` = {}: {}",
            format_args!("{eq:?}"),
            format_args!("output label {:?} is not in any input term", 'z')
        )
    );
}

#[test]
fn target_problems_print_the_rules_texts() {
    let (i, j, k, z) = (2usize, 0usize, 1usize, 0usize);
    let c = Rat::frac(3, 2).unwrap();
    let below = Rat::int(-3);
    let input = ["N", "3"];
    let known = ["0", "4"];
    let cases = [
        (
            TargetProblem::NotInteger {
                value: c.clone(),
                axis: i,
            },
            format!("{c} at axis {i} is not an integer"),
        ),
        (
            TargetProblem::TwoMinusOnes {
                first: j,
                second: i,
            },
            format!("more than one -1 (axes {j} and {i})"),
        ),
        (
            TargetProblem::BelowMinusOne {
                value: below.clone(),
                axis: i,
            },
            format!("{below} at axis {i} is below -1 (values must be >= -1)"),
        ),
        (
            TargetProblem::ZeroPastRank {
                axis: i,
                input: dims(&input),
            },
            format!(
                "the 0 at axis {i} copies input dim {i}, but the input {} has rank {}",
                shown(&input),
                input.len()
            ),
        ),
        (
            TargetProblem::ZeroWithMinusOne {
                flag: "allowzero=1",
                zero: z,
                minus_one: k,
            },
            format!(
                "with {} the target may not hold both 0 (axis {z}) and -1 (axis {k}): the -1 cannot be determined",
                "allowzero=1"
            ),
        ),
        (
            TargetProblem::ZeroProduct {
                axis: k,
                others: dims(&known),
            },
            format!(
                "cannot infer the -1 at axis {k}: the other output dims {} multiply to 0",
                shown(&known)
            ),
        ),
        (
            TargetProblem::ZeroProductNonEmptyInput {
                axis: k,
                others: dims(&known),
                input: dims(&input),
            },
            format!(
                "cannot infer the -1 at axis {k}: the other output dims {} multiply to 0 and the input {} is not zero-size",
                shown(&known),
                shown(&input)
            ),
        ),
    ];
    for (problem, text) in &cases {
        assert_eq!(problem.to_string(), *text, "{problem:?}");
    }
    // From a shape input: `target [...]: why`; from an attribute, the value is the
    // target and the reason the same text.
    let target = ["N", "-1", "-1"];
    let (problem, why) = cases[1].clone();
    let from_input = OpError::BadShapeValue(Box::new(ShapeValueProblem::Target {
        target: dims(&target),
        problem: problem.clone(),
    }));
    assert_eq!(
        from_input.to_string(),
        format!("target {}: {why}", shown(&target))
    );
    let from_attr = OpError::BadAttribute {
        name: "shape",
        value: AttrValue::Dims(dims(&target)),
        why: Box::new(AttrProblem::Target(problem)),
    };
    assert_eq!(
        from_attr.to_string(),
        format!("attribute `shape` = {}: {why}", shown(&target))
    );
}

#[test]
fn never_valid_reshapes_print_the_rules_texts() {
    let (iv, ov) = ("3*N", "7");
    let (i, a) = (1usize, 7i64);
    let cases = [
        (
            NeverValid::NeverDivides {
                input: dim(iv),
                shape: dim(ov),
            },
            format!("the other entries' product {ov} never divides the input's {iv} elements"),
        ),
        (
            NeverValid::Counts {
                input: dim(iv),
                shape: dim(ov),
            },
            format!("the input has {iv} elements and the shape {ov}"),
        ),
        (
            NeverValid::EntryNeverFits {
                input: dim(iv),
                shape: dim(ov),
                index: i,
                value: a,
                need: dim("7*N/3"),
            },
            format!(
                "the input has {iv} elements and the shape {ov}; shape[{i}] = {a} would need {} == {a}, which no value satisfies",
                "7*N/3"
            ),
        ),
    ];
    for (why, text) in &cases {
        assert_eq!(why.to_string(), *text, "{why:?}");
    }
    let input = ["N", "3"];
    let problem = AttrProblem::NeverValid {
        input: dims(&input),
        why: cases[1].0.clone(),
    };
    assert_eq!(
        problem.to_string(),
        format!(
            "with input {}, the shape attribute is valid for no value of the symbols: {}",
            shown(&input),
            cases[1].1
        )
    );
}

#[test]
fn shape_value_problems_print_the_rules_texts() {
    use ShapeValueProblem as P;
    let (n, m, k, r) = (3usize, 2usize, 4usize, 3usize);
    let (a, i, axis) = (-3i64, 1usize, 2usize);
    let d = "N";
    let ts = ["N", "2", "4"];
    let s = ["1", "-2"];
    let map: Vec<i64> = vec![0, 2];
    let axes_list: Vec<usize> = vec![0, 3];
    let axes_raw: Vec<i64> = vec![1, -2];
    let (lo, hi, c) = (
        Rat::int(i32::MIN.into()),
        Rat::int(i32::MAX.into()),
        Rat::int(1 << 40),
    );
    let cases: Vec<(P, String)> = vec![
        (
            P::EntriesFor {
                what: "signal_size",
                found: n,
                count: m,
                of: "axes",
            },
            format!("signal_size has {} entries for {} axes", n, m),
        ),
        (
            P::EntriesFor {
                what: "split",
                found: k,
                count: n,
                of: "outputs",
            },
            format!("split has {k} entries for {n} outputs"),
        ),
        (
            P::Entries {
                what: "B_shape",
                found: n,
                expected: Expected::Exactly(2).noted("[K, N]"),
            },
            format!("B_shape has {} entries, expected 2 ([K, N])", n),
        ),
        (
            P::Entries {
                what: "sizes",
                found: n,
                expected: Expected::Exactly(m).noted("one per resized axis"),
            },
            format!("{} has {n} entries, expected {} (one per resized axis)", "sizes", m),
        ),
        (
            P::PadsEntries { found: n, axes: m },
            format!(
                "pads has {} entries, expected {} (begin and end of {} axes)",
                n,
                2 * m,
                m
            ),
        ),
        (
            P::NegativeLength {
                what: "output_shape",
                count: a,
            },
            format!("output_shape has {a} entries"),
        ),
        (
            P::LengthsDiffer {
                first: "starts",
                first_len: m,
                other: "ends",
                other_len: n,
            },
            format!("{} has {} entries but {} has {}", "starts", m, "ends", n),
        ),
        (
            P::BoundLengths {
                names: ["start", "stop", "step"],
                lens: [m, n, m],
            },
            format!("start, stop and step have {}, {} and {} entries", m, n, m),
        ),
        (
            P::PadLengths {
                begin: m,
                end: n,
                rank: k,
            },
            format!(
                "pads_begin has {} and pads_end {} entries for data of rank {}",
                m, n, k
            ),
        ),
        (
            P::BlockLengths {
                rank: r,
                block: m,
                begins: r,
                ends: r,
            },
            format!(
                "block_shape, begins and ends must have {r} entries (the data's rank), found {}, {} and {}",
                m, r, r
            ),
        ),
        (
            P::AxesMappingLength {
                mapping: map.clone(),
                rank: r,
            },
            format!(
                "axes_mapping {map:?} has {} entries for data of rank {}",
                map.len(),
                r
            ),
        ),
        (
            P::PatchSizes { image: 1, block: m },
            format!(
                "the image ({}) and block ({}) sizes need one entry per spatial axis, at least 2",
                1, m
            ),
        ),
        (
            P::SliceAxes {
                entries: m,
                axes: axes_list.clone(),
                rank: r,
            },
            format!("{} slice entries for axes {axes_list:?} of a rank-{r} input", m),
        ),
        (
            P::SliceEntriesPastRank {
                entries: n,
                rank: m,
            },
            format!("{n} slice entries consume more than the {} input axes", m),
        ),
        (
            P::NegativeEntry {
                what: "shape",
                value: dim("-2"),
            },
            format!("shape entry {} is negative", "-2"),
        ),
        (
            P::Negative {
                what: "dft_length",
                value: dim("-4"),
            },
            format!("{} is negative: {}", "dft_length", "-4"),
        ),
        (
            P::NegativeK(dim("-1")),
            format!("k = {} is negative", "-1"),
        ),
        (
            P::NegativeDepth(dim("-5")),
            format!("depth {} must not be negative", "-5"),
        ),
        (
            P::NegativeIndex(a),
            format!("index {a} is negative (allowed from opset 11)"),
        ),
        (
            P::NegativePad {
                what: "pads_end",
                axis: i,
                value: dim("-1"),
            },
            format!(
                "{}[{i}] = {} is negative (Pad-1 takes non-negative pads)",
                "pads_end", "-1"
            ),
        ),
        (
            P::NegativeDim {
                what: "shape",
                dims: dims(&s),
            },
            format!("shape {} has a negative dim", shown(&s)),
        ),
        (
            P::NegativeListEntry {
                what: "repeats",
                dims: dims(&s),
            },
            format!("{} {} has a negative entry", "repeats", shown(&s)),
        ),
        (
            P::NegativeShapeInput {
                index: i,
                dims: dims(&s),
            },
            format!("shape input {i} holds a negative dim {}", shown(&s)),
        ),
        (
            P::NotPositive {
                what: "frame_step",
                value: dim("0"),
            },
            format!("frame_step {} is not positive", "0"),
        ),
        (
            P::NotPositive {
                what: "split",
                value: DimExpr::constant(a),
            },
            format!("split {a} is not positive"),
        ),
        (
            P::ScaleNotPositive {
                scale: Rat::frac(-1, 2).unwrap(),
                axis,
            },
            format!("scale {} of axis {axis} is not positive", Rat::frac(-1, 2).unwrap()),
        ),
        (
            P::SizeNotPositive {
                size: dim("0"),
                axis,
            },
            format!("size {} of axis {} is not positive", "0", axis),
        ),
        (P::Zero("delta"), format!("{} is 0", "delta")),
        (
            P::ZeroStep(dims(&["1", "0"])),
            format!("steps {} contain 0", shown(&["1", "0"])),
        ),
        (P::ZeroStride(i), format!("stride {i} is 0")),
        (
            P::StepBelowOne {
                axis,
                stride: 0,
                dilation: 1,
            },
            format!(
                "axis {axis}: stride {} and dilation {} must be at least 1",
                0, 1
            ),
        ),
        (
            P::DepthBelowOne(dim("0")),
            format!("depth {} must be at least 1", "0"),
        ),
        (
            P::SizeExceedsDim {
                size: dim("5"),
                axis,
                dim: dim("4"),
            },
            format!("size {} exceeds dim {axis} ({})", "5", "4"),
        ),
        (
            P::KExceedsAxis {
                k: dim("5"),
                axis,
                len: dim("4"),
            },
            format!("k = {} exceeds axis {axis} of length {}", "5", "4"),
        ),
        (
            P::IndicesDimExceeds {
                index: i,
                indices: dim("5"),
                data: dim("4"),
                axis,
            },
            format!(
                "indices dim {i} ({}) exceeds data dim {i} ({}) off the axis {axis}",
                "5", "4"
            ),
        ),
        (
            P::UpdateExceedsCache {
                update: dim("9"),
                cache: dim("8"),
            },
            format!("update's sequence length {} exceeds the cache's {}", "9", "8"),
        ),
        (
            P::FrameExceedsSignal {
                frame: dim("9"),
                signal: dim("8"),
            },
            format!("frame_length {} is longer than the signal {}", "9", "8"),
        ),
        (
            P::SplitLengthsExceed {
                total: dim("9"),
                dim: dim("8"),
            },
            format!(
                "split_lengths add up to {}, more than the axis dim {}",
                "9", "8"
            ),
        ),
        (
            P::ReflectPadExceeds {
                axis,
                pad: dim("4"),
                len: dim(d),
            },
            format!(
                "axis {}: reflect pad {} exceeds the input length {} - 1",
                axis, "4", d
            ),
        ),
        (
            P::SymmetricPadExceeds {
                axis,
                pad: dim("5"),
                len: dim("4"),
            },
            format!(
                "axis {}: symmetric pad {} exceeds the input length {}",
                axis, "5", "4"
            ),
        ),
        (
            P::ChunksExceed {
                axis,
                dim: dim("4"),
                chunks: n,
                chunk: dim("2"),
            },
            format!(
                "axis {axis} of size {} cannot be split into {n} chunks of {}",
                "4", "2"
            ),
        ),
        (
            P::ChannelsNotMultiple {
                channels: dim("6"),
                of: "num_groups",
                groups: 4,
            },
            format!(
                "channels {} are not a multiple of num_groups {}",
                "6", 4
            ),
        ),
        (
            P::NotMultipleOfGroup {
                what: "output channels W[0]",
                dim: dim("6"),
                group: dim("4"),
            },
            format!(
                "{} {} is not a multiple of group {}",
                "output channels W[0]", "6", "4"
            ),
        ),
        (
            P::NotMultiple {
                dim: dim("6"),
                of: dim("4"),
            },
            format!("{} is not a multiple of {}", "6", "4"),
        ),
        (
            P::GroupNotDividing {
                group: 4,
                axis,
                dim: dim("6"),
            },
            format!(
                "group {} does not divide the axis {axis} dim {}",
                4, "6"
            ),
        ),
        (
            P::HeadsNotMultiple { q: 6, kv: 4 },
            format!("q_num_heads {} is not a multiple of kv_num_heads {}", 6, 4),
        ),
        (
            P::GatherIndexDepth { depth: 0, max: r },
            format!(
                "indices.shape[-1] = {} must be in [1, rank(data) - batch_dims] = [1, {}]",
                0, r
            ),
        ),
        (
            P::ScatterIndexDepth { depth: 4, rank: r },
            format!(
                "indices.shape[-1] = {} must be in [0, rank(data)] = [0, {r}]",
                4
            ),
        ),
        (
            P::PositionOutside {
                position: 5,
                lo: -3,
                hi: 3,
                len: 3,
            },
            {
                let (pos, n, extra) = (5i64, 3i64, 1i64);
                let hi = n + extra;
                format!(
                    "position {pos} is outside [{}, {}] for a sequence of {n} elements",
                    -n,
                    hi - 1
                )
            },
        ),
        (
            P::ComplexAxis { axis: -1, rank: 4 },
            {
                let (a, r) = (-1i64, 4i64);
                format!(
                    "axis {a} is outside [-{r}, -2] and [0, {}]: the last axis holds the complex parts",
                    r - 2
                )
            },
        ),
        (
            P::IndexOutOfRange {
                index: 7,
                axis,
                size: dim(d),
            },
            format!("index {} is out of range for axis {axis} of size {}", 7, d),
        ),
        (
            P::Overflow {
                op: "Mul".into(),
                dtype: DType::Int32,
                result: c.clone(),
                lo: lo.clone(),
                hi: hi.clone(),
            },
            format!(
                "{} overflows {}: the result {c} is outside [{lo}, {hi}]",
                "Mul",
                DType::Int32
            ),
        ),
        (
            P::ComplexLastAxis(dim("3")),
            format!("the last axis of complex data must be 2, found {}", "3"),
        ),
        (
            P::PartsAxis {
                of: None,
                found: dim("3"),
            },
            format!(
                "the last axis holds the real and imaginary parts: 1 or 2, found {}",
                "3"
            ),
        ),
        (
            P::PartsAxis {
                of: Some("signal"),
                found: dim("3"),
            },
            format!(
                "the last axis of signal holds the real and imaginary parts: 1 or 2, found {}",
                "3"
            ),
        ),
        (
            P::BoxCoordinates {
                expected: 4,
                found: dim("5"),
            },
            format!("boxes must have {} coordinates, found {}", 4, "5"),
        ),
        (
            P::OnOffValues(3),
            format!(
                "values must hold two elements [off_value, on_value], found {}",
                3
            ),
        ),
        (
            P::NotOneElement {
                what: "depth",
                found: 2,
            },
            format!("depth must hold one element, found {}", 2),
        ),
        (
            P::StringsFirstDim(dim("2")),
            format!("X must be [C] or [1, C], found a first dim {}", "2"),
        ),
        (
            P::ThetaShape(dims(&ts)),
            format!(
                "theta must be [N, 2, 3] or [N, 3, 4], found {}",
                shown(&ts)
            ),
        ),
        (
            P::ScaleShape(dims(&["2"])),
            format!(
                "scale must be a scalar or have one element, found shape {}",
                shown(&["2"])
            ),
        ),
        (
            P::GridRanks { theta: 2, size: 3 },
            format!("theta is for {}-D grids, size for {}-D ones", 2, 3),
        ),
        (
            P::RepeatedAxis {
                axes: axes_raw.clone(),
                axis: 1,
            },
            format!("axes {axes_raw:?} repeat axis {}", 1),
        ),
        (
            P::NotPermutation {
                order: axes_raw.clone(),
                rank: r,
            },
            format!(
                "transpose order {axes_raw:?} is not a permutation of {} axes",
                r
            ),
        ),
        (
            P::OutputBelow {
                axis: i,
                output: dim("0"),
                least: dim("1"),
                input: dim("2"),
                kernel: dim("5"),
            },
            format!(
                "spatial axis {i}: output length {} is below {} (input {}, kernel {})",
                "0", "1", "2", "5"
            ),
        ),
        (
            P::OutputBelowOne {
                axis: i,
                output: dim("0"),
            },
            format!("spatial axis {i}: output length {} is below 1", "0"),
        ),
        (
            P::KernelExceedsData {
                axis,
                kernel: dim("7"),
                padded: dim("N + 2"),
            },
            format!(
                "axis {axis}: the kernel after dilation has size {} larger than the data after padding {}",
                "7", "N + 2"
            ),
        ),
        (
            P::PaddedNegative {
                axis,
                length: dim("-1"),
                input: dim("2"),
                begin: dim("-2"),
                end: dim("-1"),
            },
            format!(
                "axis {axis}: padded length {} is negative (input {}, pads {} and {})",
                "-1", "2", "-2", "-1"
            ),
        ),
        (
            P::Fixed("split_lengths has more than one -1"),
            "split_lengths has more than one -1".into(),
        ),
    ];
    for (problem, text) in cases {
        assert_eq!(problem.to_string(), text, "{problem:?}");
        assert_eq!(OpError::BadShapeValue(Box::new(problem)).to_string(), text);
    }
}

#[test]
fn bad_attribute_prints_name_value_and_reason() {
    let other = "FOO";
    let e = OpError::BadAttribute {
        name: "auto_pad",
        value: AttrValue::Str(other.into()),
        why: Box::new(AttrProblem::one_of(&[
            "NOTSET",
            "SAME_UPPER",
            "SAME_LOWER",
            "VALID",
        ])),
    };
    assert_eq!(
        e.to_string(),
        format!(
            "attribute `{}` = {}: {}",
            "auto_pad",
            format_args!("{other:?}"),
            "expected NOTSET, SAME_UPPER, SAME_LOWER or VALID"
        )
    );
}

#[test]
fn declared_rule_failures_print_the_rules_texts() {
    use symdim::algebra::Rel;
    use symdim::ops::declared::RuleFailure;
    let (text, l, r) = ("in0[1] == in1[0]", "N", "2*N");
    let unmet = RuleFailure::Unmet {
        text: text.into(),
        left: dim(l),
        rel: Rel::Eq,
        right: dim(r),
    };
    assert_eq!(
        unmet.to_string(),
        format!("require {text} does not hold: {l} {} {r} is false", Rel::Eq)
    );
    let shape = ["N", "3"];
    let (output, len) = (1usize, 2usize);
    let value = RuleFailure::ValueLength {
        output,
        len,
        shape: dims(&shape),
    };
    assert_eq!(
        value.to_string(),
        format!(
            "output {output}: value= has {len} elements but the shape is {}",
            shown(&shape)
        )
    );
}

#[test]
fn rule_file_parse_errors_print_the_rules_texts() {
    use symdim::algebra::ParseError;
    use symdim::read::oprules::Problem;
    let (expr, pos, expected) = ("in0[0] * (", 10usize, "an expression");
    let p = Problem::BadExpr(ParseError {
        text: expr.into(),
        pos,
        expected,
    });
    assert_eq!(
        p.to_string(),
        format!("`{expr}` does not parse: expected {expected} at byte {pos}")
    );
}

#[test]
fn algebra_warnings_print_the_rules_texts() {
    use symdim::algebra::{poly::MAX_TERMS, rules::GROWTH_FACTOR, AlgebraWarning};
    let (limit, expr, fresh) = (512usize, "S + floordiv(N, 2)", "big0");
    let cases = [
        (
            AlgebraWarning::RuleLimit {
                limit,
                expr: dim(expr),
            },
            format!("saturation stopped after {limit} rule applications while simplifying {expr}"),
        ),
        (
            AlgebraWarning::ProductTooLarge { expr: dim(expr) },
            format!(
                "a product too large to expand (over {} terms) stays unexpanded: {expr}",
                MAX_TERMS
            ),
        ),
        (
            AlgebraWarning::GrowthLimit { expr: dim(expr) },
            format!(
                "a rewrite of {expr} to a form over {} times its size was refused",
                GROWTH_FACTOR
            ),
        ),
        (
            AlgebraWarning::FormLimit {
                limit,
                fresh: DimExpr::symbol(fresh),
            },
            format!("an expression grew past {limit} nodes; it became the fresh dim {fresh}"),
        ),
        (
            AlgebraWarning::NodeLimit {
                limit,
                fresh: DimExpr::symbol(fresh),
            },
            format!(
                "the e-graph reached {limit} e-nodes; the expression became the fresh dim {fresh}"
            ),
        ),
    ];
    for (w, text) in cases {
        assert_eq!(w.to_string(), text, "{w:?}");
    }
}

#[test]
fn onednn_reader_errors_name_the_json_found() {
    use serde_json::json;
    use symdim::read::onednn::{JsonKind, OnednnError};
    // The kinds as the reader named them.
    let kinds = [
        (json!(null), "null".to_string()),
        (json!(true), format!("boolean {}", true)),
        (
            json!(1.5),
            format!("number {}", serde_json::Number::from_f64(1.5).unwrap()),
        ),
        (json!(-3), format!("number {}", -3)),
        (json!("x"), "string".into()),
        (json!([1]), "array".into()),
        (json!({"a": 1}), "object".into()),
    ];
    for (v, text) in &kinds {
        assert_eq!(JsonKind::from(v).to_string(), *text, "{v}");
    }
    // A value is quoted whole up to 80 bytes, else cut to 77 and `...`: the long
    // array's text `["` + 50 two-byte `é` + `","x"]` is 108 bytes, and byte 77 falls
    // inside the 38th `é`, so the cut is at 76: `["` and 37 of them.
    let long = json!(["é".repeat(50), "x"]);
    let long_quoted = format!("[\"{}...", "é".repeat(37));
    for (found, short) in [
        (json!(true), "true"),
        (json!("0"), "\"0\""),
        (long, long_quoted.as_str()),
    ] {
        let e = OnednnError::InvalidBool {
            op: 3,
            attr: "special_zero".into(),
            found: Box::new(found.clone()),
        };
        assert_eq!(
            e.to_string(),
            format!(
                "op {}, attribute `{}`: bool value must be 0 or 1, found {}",
                3, "special_zero", short
            )
        );
        let e = OnednnError::InvalidAttrValue {
            op: 3,
            attr: "a".into(),
            attr_type: "s64",
            found: Box::new(found.clone()),
        };
        assert_eq!(
            e.to_string(),
            format!(
                "op {}, attribute `{}`: value {} is not a valid {}",
                3, "a", short, "s64"
            )
        );
    }
}
