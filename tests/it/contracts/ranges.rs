//! `symdim ranges` on small models written here, one per kind of condition. Every
//! expected interval, step and profile is derived by hand from the ONNX spec (the
//! comments give the derivation), and the profiles are run in onnxruntime: every
//! min, opt and max runs, and where a max comes from the contract, one step past it
//! fails.

use crate::common::pb::{
    attr_int, attr_ints, float_zeros, graph, int64_scalar, int64_tensor, model, node, value_info,
};
use crate::common::say;
use symdim::contracts::ranges::{
    parse_range, InputProfile, PasteFormat, Ranges, Request, UserRange,
};
use symdim::read::load::LoadOptions;
use symdim::Facts;

/// A graph input of float elements.
fn f32_input(name: &str, dims: &[&str]) -> crate::common::pb::Msg {
    value_info(name, 1, Some(dims))
}

fn out(name: &str) -> crate::common::pb::Msg {
    value_info(name, 1, None)
}

/// `x: [B, S, 4]`; `Range(0, S, 1)` indexes a table of 512 rows (`Gather`): every
/// index `< 512`, so `S <= 512`; the rows are added to `x`. Nothing bounds `B`.
/// (onnxruntime's optimiser turns the Gather of a Range into a Slice, which stops
/// at the table's end instead of failing; the Add then fails.)
fn gather_table() -> Vec<u8> {
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
            float_zeros("pos", &[512, 4]),
        ],
        vec![f32_input("x", &["B", "S", "4"])],
        vec![out("y")],
        vec![],
    ))
}

/// `x: [N]` reshaped to `[-1, 8]`: the `-1` is `N / 8`, whole iff `N % 8 == 0`.
fn reshape_by_8() -> Vec<u8> {
    model(graph(
        vec![node("r", "Reshape", &["x", "t"], &["y"])],
        vec![int64_tensor("t", &[2], &[-1, 8])],
        vec![f32_input("x", &["N"])],
        vec![out("y")],
        vec![],
    ))
}

/// `x: [1, 1, H]`; a MaxPool of kernel 4, stride 8 gives `floordiv(H - 4, 8) + 1`;
/// an AveragePool of kernel 8, stride 8 gives `floordiv(H, 8)`; Concat on axis 1
/// needs them equal. With `H = 8m + r` (`0 <= r < 8`): `floordiv(8m + r - 4, 8) + 1`
/// is `m` for `r < 4` and `m + 1` for `r >= 4`, so the residues mod 8 are
/// `{0, 1, 2, 3}` (`H = 1, 2, 3` too: both lengths are 0 there).
fn two_windows() -> Vec<u8> {
    model(graph(
        vec![
            node("mp", "MaxPool", &["x"], &["a"])
                .msg(5, attr_ints("kernel_shape", &[4]))
                .msg(5, attr_ints("strides", &[8])),
            node("ap", "AveragePool", &["x"], &["b"])
                .msg(5, attr_ints("kernel_shape", &[8]))
                .msg(5, attr_ints("strides", &[8])),
            node("cat", "Concat", &["a", "b"], &["y"]).msg(5, attr_int("axis", 1)),
        ],
        vec![],
        vec![f32_input("x", &["1", "1", "H"])],
        vec![out("y")],
        vec![],
    ))
}

/// `x: [1, 1, H]` pooled twice (kernel 2, stride 2: `floordiv(H, 2)`, then
/// `floordiv(H, 4)`), upsampled twice by ConvTranspose (kernel 2, stride 2: `2L`),
/// and concatenated with `x` on axis 1: `4*floordiv(H, 4) == H`, so `H % 4 == 0`.
fn unet_step_4() -> Vec<u8> {
    let pool = |n: &str, i: &str, o: &str| {
        node(n, "MaxPool", &[i], &[o])
            .msg(5, attr_ints("kernel_shape", &[2]))
            .msg(5, attr_ints("strides", &[2]))
    };
    let up = |n: &str, i: &str, o: &str| {
        node(n, "ConvTranspose", &[i, "w"], &[o]).msg(5, attr_ints("strides", &[2]))
    };
    model(graph(
        vec![
            pool("p1", "x", "a"),
            pool("p2", "a", "b"),
            up("u1", "b", "c"),
            up("u2", "c", "d"),
            node("cat", "Concat", &["x", "d"], &["y"]).msg(5, attr_int("axis", 1)),
        ],
        vec![float_zeros("w", &[1, 1, 2])],
        vec![f32_input("x", &["1", "1", "H"])],
        vec![out("y")],
        vec![],
    ))
}

/// A Swin-like patch merging, three levels: `x: [H]` reshaped to `[-1, 4]` needs
/// `H % 4 == 0`; each level takes the even and the odd rows (`Slice` with step 2
/// from 0 and from 1: `ceildiv(R, 2)` and `ceildiv(R - 1, 2)` rows) and
/// concatenates them on axis 1, which needs them equal: `R` even. `R` is `H / 4`,
/// then `H / 8`, then `H / 16`, so `H % 32 == 0`.
fn patch_merging_step_32() -> Vec<u8> {
    let mut nodes = vec![node("r", "Reshape", &["x", "t"], &["l0"])];
    for level in 0..3 {
        let (i, o) = (format!("l{level}"), format!("l{}", level + 1));
        let (e, d) = (format!("even{level}"), format!("odd{level}"));
        nodes.push(node(
            &e,
            "Slice",
            &[&i, "zero", "end", "axis0", "two"],
            &[&e],
        ));
        nodes.push(node(
            &d,
            "Slice",
            &[&i, "one", "end", "axis0", "two"],
            &[&d],
        ));
        nodes.push(
            node(&format!("cat{level}"), "Concat", &[&e, &d], &[&o]).msg(5, attr_int("axis", 1)),
        );
    }
    model(graph(
        nodes,
        vec![
            int64_tensor("t", &[2], &[-1, 4]),
            int64_tensor("zero", &[1], &[0]),
            int64_tensor("one", &[1], &[1]),
            int64_tensor("two", &[1], &[2]),
            int64_tensor("axis0", &[1], &[0]),
            int64_tensor("end", &[1], &[i64::MAX]),
        ],
        vec![f32_input("x", &["H"])],
        vec![out("l3")],
        vec![],
    ))
}

/// MatMul of `a: [M, K1]` by `b: [K2, N]`: the spec needs `K1 == K2`.
fn matmul_equal() -> Vec<u8> {
    model(graph(
        vec![node("mm", "MatMul", &["a", "b"], &["y"])],
        vec![],
        vec![f32_input("a", &["M", "K1"]), f32_input("b", &["K2", "N"])],
        vec![out("y")],
        vec![],
    ))
}

/// `past: [B, P, 4]` and `cur: [B, S, 4]` concatenated on axis 1 (`P + S`), whose
/// positions `Range(0, P + S, 1)` index a table of 512 rows: `P + S <= 512`.
fn past_plus_sequence() -> Vec<u8> {
    model(graph(
        vec![
            node("cat", "Concat", &["past", "cur"], &["c"]).msg(5, attr_int("axis", 1)),
            node("shape", "Shape", &["c"], &["s"]),
            node("len", "Gather", &["s", "one"], &["t"]),
            node("range", "Range", &["zero", "t", "one"], &["ids"]),
            node("emb", "Gather", &["pos", "ids"], &["e"]),
            node("add", "Add", &["c", "e"], &["y"]),
        ],
        vec![
            int64_scalar("zero", 0),
            int64_scalar("one", 1),
            float_zeros("pos", &[512, 4]),
        ],
        vec![
            f32_input("past", &["B", "P", "4"]),
            f32_input("cur", &["B", "S", "4"]),
        ],
        vec![out("y")],
        vec![],
    ))
}

/// `x: [B, S, 4]` reshaped to `[-1, 4]`, whose `B*S` rows are positions
/// `Range(0, B*S, 1)` into a table of 512 rows and added to them: `B*S <= 512`, a
/// relation that is not linear.
fn batch_times_sequence() -> Vec<u8> {
    model(graph(
        vec![
            node("flat", "Reshape", &["x", "t"], &["f"]),
            node("shape", "Shape", &["f"], &["s"]),
            node("rows", "Gather", &["s", "zero"], &["n"]),
            node("range", "Range", &["zero", "n", "one"], &["ids"]),
            node("emb", "Gather", &["pos", "ids"], &["e"]),
            node("add", "Add", &["f", "e"], &["y"]),
        ],
        vec![
            int64_tensor("t", &[2], &[-1, 4]),
            int64_scalar("zero", 0),
            int64_scalar("one", 1),
            float_zeros("pos", &[512, 4]),
        ],
        vec![f32_input("x", &["B", "S", "4"])],
        vec![out("y")],
        vec![],
    ))
}

fn ranges_of(bytes: &[u8], ranges: &[&str]) -> Ranges {
    let m = symdim::load_bytes(bytes, "m.onnx", &LoadOptions::default()).unwrap();
    let request = Request {
        ranges: ranges.iter().map(|r| parse_range(r).unwrap()).collect(),
        opts: Vec::new(),
    };
    symdim::infer(&m, &Facts::default())
        .ranges(&request)
        .unwrap()
}

/// `(name, lo, hi, min, opt, max)` of every symbol.
type Row = (
    String,
    i64,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
);

fn rows(r: &Ranges) -> Vec<Row> {
    r.symbols
        .iter()
        .map(|s| (s.name.clone(), s.lo, s.hi, s.min, s.opt, s.max))
        .collect()
}

fn row(n: &str, lo: i64, hi: Option<i64>, min: i64, opt: i64, max: Option<i64>) -> Row {
    (n.to_string(), lo, hi, Some(min), Some(opt), max)
}

#[test]
fn range_text_parses_either_end() {
    let r = |n: &str, lo, hi| UserRange {
        name: n.into(),
        lo,
        hi,
    };
    assert_eq!(parse_range("S=1..512").unwrap(), r("S", Some(1), Some(512)));
    assert_eq!(parse_range("S=..512").unwrap(), r("S", None, Some(512)));
    assert_eq!(
        parse_range("input_ids.1=8..").unwrap(),
        r("input_ids.1", Some(8), None)
    );
    assert!(parse_range("S=1-512").is_err());
    assert!(parse_range("S+1=1..2").is_err());
}

#[test]
fn a_gather_table_bounds_the_sequence_and_nothing_bounds_the_batch() {
    // S <= 512 from the table; B has no bound: min 1, opt = min, no max, and the
    // paste formats refuse, naming B.
    let r = ranges_of(&gather_table(), &[]);
    assert_eq!(
        rows(&r),
        vec![
            ("B".to_string(), 1, None, Some(1), Some(1), None),
            // opt: the least valid value >= ceil((1 + 512) / 2) = 257.
            row("S", 1, Some(512), 1, 257, Some(512)),
        ]
    );
    assert_eq!(r.symbols[1].max_from.as_deref(), Some("contract"));
    assert_eq!(r.symbols[1].conditions[0].nodes, vec!["emb".to_string()]);
    let why = r.to_paste(PasteFormat::Trtexec).unwrap_err();
    assert!(
        why.iter().any(|w| w.contains("B: no upper bound")),
        "{why:?}"
    );
    // With B given: the profile is the box's corners and middle.
    let r = ranges_of(&gather_table(), &["B=1..4"]);
    assert_eq!(r.symbols[0].max_from.as_deref(), Some("range"));
    assert_eq!(
        r.to_paste(PasteFormat::Trtexec).unwrap(),
        "--minShapes=x:1x1x4 --optShapes=x:3x257x4 --maxShapes=x:4x512x4\n"
    );
    assert_eq!(
        r.to_paste(PasteFormat::OrtTrt).unwrap(),
        "trt_profile_min_shapes=x:1x1x4\ntrt_profile_opt_shapes=x:3x257x4\ntrt_profile_max_shapes=x:4x512x4\n"
    );
    assert_eq!(
        r.to_paste(PasteFormat::OpenVino).unwrap(),
        "x[1..4,1..512,4]\n"
    );
    // e: [S, 4] floats, at most 512*4*4 bytes, reached at the max point.
    let e = r.tensors.iter().find(|t| t.name == "e").unwrap();
    assert_eq!((e.max_bytes, e.at_max), (Some(8192), true));
    // A user range above the table's bound does not widen it.
    let r = ranges_of(&gather_table(), &["B=1..4", "S=16..4096"]);
    assert_eq!(rows(&r)[1], row("S", 16, Some(512), 16, 264, Some(512)));
}

#[test]
fn a_reshape_asks_for_multiples() {
    // N % 8 == 0 within 1..100: min 8, max 96, opt the least multiple of 8 at or
    // above ceil((8 + 96) / 2) = 52: 56.
    let r = ranges_of(&reshape_by_8(), &["N=1..100"]);
    assert_eq!(rows(&r), vec![row("N", 1, Some(100), 8, 56, Some(96))]);
    let step = r.symbols[0].step.as_ref().unwrap();
    assert_eq!((step.modulus, step.residues.clone()), (8, vec![0]));
    assert!(step.unknown.is_empty());
    assert_eq!(r.symbols[0].max_from.as_deref(), Some("range"));
}

#[test]
fn two_strided_windows_allow_four_residues() {
    // H % 8 in {0, 1, 2, 3}, and each kernel fits: H >= 4 (MaxPool) and H >= 8
    // (AveragePool). Within 1..64: min 8, max 64, opt the least valid value >=
    // ceil((8 + 64) / 2) = 36, which is 40 (36..39 are 4..7 mod 8). Within 4..62:
    // min 8, max 59 (= 56 + 3), opt >= ceil(67 / 2) = 34: 34 (34 % 8 = 2).
    let r = ranges_of(&two_windows(), &["H=1..64"]);
    assert_eq!(rows(&r), vec![row("H", 8, Some(64), 8, 40, Some(64))]);
    let r = ranges_of(&two_windows(), &["H=4..62"]);
    assert_eq!(rows(&r), vec![row("H", 8, Some(62), 8, 34, Some(59))]);
    let step = r.symbols[0].step.as_ref().unwrap();
    assert_eq!((step.modulus, step.residues.clone()), (8, vec![0, 1, 2, 3]));
    assert!(step.unknown.is_empty());
    // Unbounded above, the residues are decided for every value all the same.
    let r = ranges_of(&two_windows(), &[]);
    let step = r.symbols[0].step.as_ref().unwrap();
    assert_eq!((step.modulus, step.residues.clone()), (8, vec![0, 1, 2, 3]));
}

#[test]
fn pooling_and_upsampling_twice_asks_for_multiples_of_4() {
    // 4*floordiv(H, 4) == H: H % 4 == 0, and the second pool's kernel (2) fits
    // in its input floordiv(H, 2): H >= 4. Within 1..30: min 4, max 28, opt the
    // least multiple of 4 >= ceil((4 + 28) / 2) = 16: 16.
    let r = ranges_of(&unet_step_4(), &["H=1..30"]);
    assert_eq!(rows(&r), vec![row("H", 4, Some(30), 4, 16, Some(28))]);
    let step = r.symbols[0].step.as_ref().unwrap();
    assert_eq!((step.modulus, step.residues.clone()), (4, vec![0]));
}

#[test]
fn patch_merging_three_times_asks_for_multiples_of_32() {
    // H % 32 == 0 (see the model): within 1..200, min 32, max 192, opt the least
    // multiple of 32 >= ceil((32 + 192) / 2) = 112: 128.
    let r = ranges_of(&patch_merging_step_32(), &["H=1..200"]);
    assert_eq!(rows(&r), vec![row("H", 1, Some(200), 32, 128, Some(192))]);
    let step = r.symbols[0].step.as_ref().unwrap();
    assert_eq!((step.modulus, step.residues.clone()), (32, vec![0]));
    assert!(step.unknown.is_empty() && step.also.is_empty() && step.except.is_empty());
}

#[test]
fn inputs_made_equal_share_one_range() {
    // K1 == K2: one range for both, the intersection of what each is given.
    let r = ranges_of(
        &matmul_equal(),
        &["M=1..8", "K1=1..64", "K2=16..128", "N=2..2"],
    );
    assert_eq!(
        rows(&r),
        vec![
            row("M", 1, Some(8), 1, 5, Some(8)),
            row("K1", 16, Some(64), 16, 40, Some(64)),
            row("N", 2, Some(2), 2, 2, Some(2)),
        ]
    );
    assert_eq!(r.symbols[1].linked, vec!["K2".to_string()]);
    assert_eq!(
        r.to_paste(PasteFormat::OpenVino).unwrap(),
        "a[1..8,16..64],b[16..64,2]\n"
    );
}

#[test]
fn a_joint_sum_bound_shrinks_the_box() {
    // P + S <= 512, neither bounded alone: the slack at the min corner, 512 - 2,
    // is shared equally: each may rise 255 above 1, to 256. B is given.
    let r = ranges_of(&past_plus_sequence(), &["B=1..2"]);
    assert_eq!(
        rows(&r),
        vec![
            row("B", 1, Some(2), 1, 2, Some(2)),
            row("P", 1, None, 1, 129, Some(256)),
            row("S", 1, None, 1, 129, Some(256)),
        ]
    );
    assert_eq!(r.relations.len(), 1);
    let rel = &r.relations[0];
    assert_eq!(rel.condition.condition, "P + S <= 512");
    assert_eq!(rel.status, "shrunk");
    assert_eq!(
        rel.gave_up,
        vec![
            "P: max none -> 256".to_string(),
            "S: max none -> 256".to_string()
        ]
    );
    assert!(r.problems.is_empty(), "{:?}", r.problems);
    // A user cap on one leaves the rest to the other: S <= 100 takes 99 of the 510.
    let r = ranges_of(&past_plus_sequence(), &["B=1..2", "S=1..100"]);
    assert_eq!(r.symbols[1].max, Some(412));
    assert_eq!(r.symbols[2].max, Some(100));
}

#[test]
fn a_joint_product_bound_shrinks_the_box_by_a_common_rise() {
    // B*S <= 512, neither bounded alone. Both maxes rise together to 1 + k: the
    // greatest k with (1 + k)^2 <= 512 is 21 (22^2 = 484, 23^2 = 529).
    let r = ranges_of(&batch_times_sequence(), &[]);
    assert_eq!(
        rows(&r),
        vec![
            row("B", 1, None, 1, 12, Some(22)),
            row("S", 1, None, 1, 12, Some(22)),
        ]
    );
    assert_eq!(r.relations.len(), 1);
    let rel = &r.relations[0];
    assert_eq!(rel.condition.condition, "B*S <= 512");
    assert_eq!(rel.status, "shrunk");
    assert_eq!(
        rel.gave_up,
        vec![
            "B: max none -> 22".to_string(),
            "S: max none -> 22".to_string()
        ]
    );
    assert!(r.problems.is_empty(), "{:?}", r.problems);
    // B given 1..4 keeps its max (it is reached at k = 3); S rises to 1 + k with
    // 4*(1 + k) <= 512: k = 127, S <= 128.
    let r = ranges_of(&batch_times_sequence(), &["B=1..4"]);
    assert_eq!(r.symbols[0].max, Some(4));
    assert_eq!(r.symbols[1].max, Some(128));
    assert_eq!(
        r.relations[0].gave_up,
        vec!["S: max none -> 128".to_string()]
    );
    // A box that already keeps it is left alone.
    let r = ranges_of(&batch_times_sequence(), &["B=1..4", "S=1..100"]);
    assert_eq!(r.relations[0].status, "holds");
    assert_eq!((r.symbols[0].max, r.symbols[1].max), (Some(4), Some(100)));
}

/// A Python with onnx, onnxruntime and numpy: `SYMDIM_PYTHON`, or the test
/// virtualenv `tests/it/python.rs` makes (`None`: skip, which fails under CI).
fn python() -> Option<std::path::PathBuf> {
    match std::env::var_os("SYMDIM_PYTHON") {
        Some(v) if v == "skip" => {
            say("skipping the onnxruntime runs of ranges: SYMDIM_PYTHON=skip");
            None
        }
        Some(v) if !v.is_empty() => {
            let p = std::path::PathBuf::from(v);
            let ok = std::process::Command::new(&p)
                .args(["-c", "import onnx, onnxruntime, numpy"])
                .status()
                .is_ok_and(|s| s.success());
            assert!(
                ok,
                "SYMDIM_PYTHON cannot import onnx, onnxruntime and numpy"
            );
            Some(p)
        }
        _ => crate::python::venv(),
    }
}

/// onnxruntime's answer for each run (`ok` or `fail: ...`).
fn run_ort(
    python: &std::path::Path,
    bytes: &[u8],
    name: &str,
    runs: &[Vec<(&str, Vec<i64>)>],
) -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("ranges_ort");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.onnx"));
    std::fs::write(&path, bytes).unwrap();
    let json: Vec<serde_json::Value> = runs
        .iter()
        .map(|r| {
            serde_json::Value::Object(
                r.iter()
                    .map(|(n, s)| (n.to_string(), serde_json::json!(s)))
                    .collect(),
            )
        })
        .collect();
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/ranges/run_ort.py"
    );
    let out = std::process::Command::new(python)
        .arg(script)
        .arg(&path)
        .arg(serde_json::to_string(&json).unwrap())
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

/// The min, opt and max shapes of every input, as runs.
fn profile_runs(r: &Ranges) -> Vec<Vec<(&str, Vec<i64>)>> {
    type Pick = fn(&InputProfile) -> &Option<Vec<i64>>;
    let pick: [Pick; 3] = [|i| &i.min, |i| &i.opt, |i| &i.max];
    pick.iter()
        .map(|p| {
            r.inputs
                .iter()
                .map(|i| (i.name.as_str(), p(i).clone().expect("a shape")))
                .collect()
        })
        .collect()
}

#[test]
fn onnxruntime_runs_every_profile_and_fails_one_step_past_a_contract_max() {
    let Some(py) = python() else {
        return;
    };
    // (model, name, ranges, runs past a contract max or off the residues, each
    // expected to fail)
    type Case = (
        Vec<u8>,
        &'static str,
        Vec<&'static str>,
        Vec<Vec<(&'static str, Vec<i64>)>>,
    );
    let cases: Vec<Case> = vec![
        // S = 513: one past the table.
        (
            gather_table(),
            "gather",
            vec!["B=1..4"],
            vec![vec![("x", vec![4, 513, 4])]],
        ),
        // N = 100 is not a multiple of 8.
        (
            reshape_by_8(),
            "reshape",
            vec!["N=1..100"],
            vec![vec![("x", vec![100])]],
        ),
        // H = 60 (60 % 8 = 4) breaks the Concat.
        (
            two_windows(),
            "windows",
            vec!["H=1..64"],
            vec![vec![("x", vec![1, 1, 60])]],
        ),
        // H = 30 is not a multiple of 4.
        (
            unet_step_4(),
            "unet",
            vec!["H=1..30"],
            vec![vec![("x", vec![1, 1, 30])]],
        ),
        // H = 48 is a multiple of 16, not of 32: the third level's rows are odd.
        (
            patch_merging_step_32(),
            "patches",
            vec!["H=1..200"],
            vec![vec![("x", vec![48])], vec![("x", vec![100])]],
        ),
        // K1 != K2.
        (
            matmul_equal(),
            "matmul",
            vec!["M=1..8", "K1=1..64", "N=1..8"],
            vec![vec![("a", vec![2, 5]), ("b", vec![6, 3])]],
        ),
        // B*S = 4*129 = 516: one past the shrunk box in S breaks the table.
        (
            batch_times_sequence(),
            "product",
            vec!["B=1..4"],
            vec![vec![("x", vec![4, 129, 4])]],
        ),
        // P + S = 513: one past the shrunk box in P breaks the table.
        (
            past_plus_sequence(),
            "past",
            vec!["B=1..2"],
            vec![vec![("past", vec![2, 257, 4]), ("cur", vec![2, 256, 4])]],
        ),
    ];
    let mut ran = 0;
    for (bytes, name, ranges, breaking) in cases {
        let r = ranges_of(&bytes, &ranges);
        assert!(r.problems.is_empty(), "{name}: {:?}", r.problems);
        let runs = profile_runs(&r);
        let got = run_ort(&py, &bytes, name, &runs);
        assert_eq!(got, vec!["ok"; 3], "{name}: min/opt/max {runs:?}");
        let got = run_ort(&py, &bytes, name, &breaking);
        assert!(
            got.iter().all(|g| g.starts_with("fail")),
            "{name}: {breaking:?} gave {got:?}"
        );
        ran += 4;
    }
    say(&format!("ranges: {ran} onnxruntime runs as predicted"));
}

/// `symdim ranges` on a model file: `(exit status, stdout, stderr)`.
fn cli(bytes: &[u8], name: &str, args: &[&str]) -> (i32, String, String) {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("ranges_cli");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.onnx"));
    std::fs::write(&path, bytes).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_symdim"))
        .arg("ranges")
        .arg(&path)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn the_profile_formats_need_a_max_for_every_symbol() {
    // B has no upper bound: the report prints (status 0) and says so; the three
    // profile formats print nothing and exit with 2, the reason on stderr.
    let (code, out, _) = cli(&gather_table(), "gather", &[]);
    assert_eq!(code, 0);
    assert!(out.contains("  B  1..  min 1  opt 1  max -\n"), "{out}");
    assert!(
        out.contains("  S  1..512  min 1  opt 257  max 512 (contract)\n"),
        "{out}"
    );
    assert!(out.contains("      S <= 512  [gather at emb]\n"), "{out}");
    for format in ["trtexec", "ort-trt", "openvino"] {
        let (code, out, err) = cli(&gather_table(), "gather", &["--format", format]);
        assert_eq!((code, out.as_str()), (2, ""), "{format}");
        assert_eq!(
            err,
            "symdim: B: no upper bound from the contract; give one with --range B=LO..HI\n"
        );
    }
    let (code, out, _) = cli(
        &gather_table(),
        "gather",
        &["--range", "B=1..4", "--opt", "S=100", "--format", "trtexec"],
    );
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "--minShapes=x:1x1x4 --optShapes=x:3x100x4 --maxShapes=x:4x512x4\n"
        )
    );
}

#[test]
fn bad_ranges_and_opts_are_usage_errors() {
    for (args, msg) in [
        (
            vec!["--range", "S=1-5"],
            "symdim: --range S=1-5: expected NAME=LO..HI (LO and HI integers, either may be left out)\n",
        ),
        (
            vec!["--range", "T=1..5"],
            "symdim: --range T: not an input symbol of the model (its input symbols: B, S)\n",
        ),
        (vec!["--opt", "S"], "symdim: --opt S: expected NAME=INT\n"),
        (
            vec!["--range", "B=1..4", "--opt", "S=600", "--format", "openvino"],
            "symdim: --opt S=600: not a valid value within 1..512\n",
        ),
    ] {
        let (code, out, err) = cli(&gather_table(), "gather", &args);
        assert_eq!((code, out.as_str(), err.as_str()), (2, "", msg), "{args:?}");
    }
}

#[test]
fn names_are_written_as_each_engine_reads_them() {
    // `input:0` is quoted for trtexec (which splits at the last `:` otherwise too,
    // but quotes are how it documents names with `:`), refused by onnxruntime's
    // TensorRT options (which split at the first `:`), plain for OpenVINO.
    let bytes = model(graph(
        vec![node("r", "Reshape", &["input:0", "t"], &["y"])],
        vec![int64_tensor("t", &[2], &[-1, 8])],
        vec![f32_input("input:0", &["N"])],
        vec![out("y")],
        vec![],
    ));
    let args = ["--range", "N=1..64"];
    let run = |f: &str| cli(&bytes, "colon", &[&args[..], &["--format", f]].concat());
    assert_eq!(
        run("trtexec").1,
        "--minShapes='input:0':8 --optShapes='input:0':40 --maxShapes='input:0':64\n"
    );
    let (code, _, err) = run("ort-trt");
    assert_eq!(code, 2);
    assert!(err.contains("cannot parse a name with `,` or `:`"), "{err}");
    assert_eq!(run("openvino").1, "input:0[8..64]\n");
}

/// The shared corpus's models whose ranges are derived by hand here.
fn corpus_model(path: &str) -> Option<symdim::graph::Model> {
    let corpus = crate::common::corpus()?;
    Some(symdim::read::load::load(&corpus.join("real-models").join(path)).expect("load"))
}

#[test]
fn rapidocrs_strided_levels_allow_four_residues_of_32_and_the_first_four_values() {
    // The det model's three conditions on the height h, `floordiv(h - 1, 16) ==
    // 2*floordiv(h - 1, 32) + 1 or h <= 16` and the same by 8 (`4*... + 3`, `h <= 8`)
    // and by 4 (`8*... + 7`, `h <= 4`): with h - 1 = 32m + t, the first holds for
    // t >= 16, the second for t >= 24, the third for t >= 28, so h % 32 is 29, 30,
    // 31 or 0; and h = 1..4 keep all three through their `h <= ...`.
    let Some(m) = corpus_model("pypi/rapidocr__ch_PP-OCRv4_det_infer.onnx") else {
        return;
    };
    let r = symdim::infer(&m, &Facts::default())
        .ranges(&Request::default())
        .unwrap();
    for s in &r.symbols[1..] {
        let st = s.step.as_ref().unwrap();
        assert_eq!(
            (st.modulus, &st.residues[..], &st.also[..]),
            (32, &[0, 29, 30, 31][..], &[1, 2, 3, 4][..]),
            "{}",
            s.name
        );
        assert!(st.unknown.is_empty() && st.except.is_empty());
    }
    // Within 5..100: 29 is the least, 96 the greatest; the middle is
    // ceil((29 + 96) / 2) = 63, valid itself (63 % 32 = 31).
    let request = Request {
        ranges: [
            "p2o.DynamicDimension.1=5..100",
            "p2o.DynamicDimension.2=5..100",
        ]
        .iter()
        .map(|t| parse_range(t).unwrap())
        .collect(),
        opts: Vec::new(),
    };
    let r = symdim::infer(&m, &Facts::default())
        .ranges(&request)
        .unwrap();
    assert_eq!(
        (r.symbols[1].min, r.symbols[1].opt, r.symbols[1].max),
        (Some(29), Some(63), Some(96))
    );
}

#[test]
fn binds_and_assumed_facts_bound_and_step_a_symbol() {
    // On the bundled attention model (no condition on its dims): batch bound to 4;
    // sequence <= 100 and a multiple of 4 by assumption: min 4, max 100, opt the
    // least multiple of 4 >= ceil((4 + 100) / 2) = 52: 52. Each fact is listed once.
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/attention.onnx");
    let m = symdim::load(std::path::Path::new(path)).unwrap();
    let facts = Facts::new()
        .bind("batch", 4)
        .assume("sequence <= 100")
        .assume("sequence % 4 == 0");
    let r = symdim::infer(&m, &facts)
        .ranges(&Request::default())
        .unwrap();
    assert_eq!(
        rows(&r),
        vec![
            row("batch", 4, Some(4), 4, 4, Some(4)),
            row("sequence", 1, Some(100), 4, 52, Some(100)),
        ]
    );
    let texts: Vec<&str> = r.symbols[1]
        .conditions
        .iter()
        .map(|c| c.condition.as_str())
        .collect();
    assert_eq!(texts, vec!["sequence <= 100", "mod(sequence, 4) == 0"]);
    assert_eq!(r.symbols[0].conditions.len(), 1);
    // 2^31 and more cannot be written for trtexec or onnxruntime; OpenVINO takes it.
    let wide = Request {
        ranges: vec![parse_range("sequence=1..4294967296").unwrap()],
        opts: Vec::new(),
    };
    let r = symdim::infer(&m, &facts.clone().assume("sequence >= 1"))
        .ranges(&wide)
        .unwrap();
    assert!(r.to_paste(PasteFormat::Trtexec).is_ok());
    let r = symdim::infer(&m, &Facts::new().bind("batch", 4))
        .ranges(&wide)
        .unwrap();
    assert!(r.to_paste(PasteFormat::Trtexec).is_err());
    assert!(r.to_paste(PasteFormat::OrtTrt).is_err());
    assert_eq!(
        r.to_paste(PasteFormat::OpenVino).unwrap(),
        "x[4,1..4294967296,64]\n"
    );
}

#[test]
fn a_relation_on_multiples_holds_over_the_box_of_multiples() {
    // x: [B, S] reshaped to [-1, 8] needs (B*S) % 8 == 0; a second reshape of
    // y: [S] to [-1, 4] needs S % 4 == 0. With S a multiple of 4 the first needs
    // B*S % 8 == 0, which a B of 2 makes hold for every S of the step: with B
    // bound to 2 nothing is left; with B free it is a relation the box does not
    // keep (B = 1, S = 4 breaks it).
    let bytes = model(graph(
        vec![
            node("r1", "Reshape", &["x", "t8"], &["a"]),
            node("r2", "Reshape", &["y", "t4"], &["b"]),
        ],
        vec![
            int64_tensor("t8", &[2], &[-1, 8]),
            int64_tensor("t4", &[2], &[-1, 4]),
        ],
        vec![f32_input("x", &["B", "S"]), f32_input("y", &["S"])],
        vec![out("a"), out("b")],
        vec![],
    ));
    let r = ranges_of(&bytes, &["B=2..2", "S=1..64"]);
    assert!(r.problems.is_empty(), "{:?}", r.problems);
    assert_eq!(rows(&r)[1], row("S", 1, Some(64), 4, 36, Some(64)));
    let r = ranges_of(&bytes, &["B=1..4", "S=1..64"]);
    assert_eq!(r.relations.len(), 1, "{:?}", r.relations);
    assert_eq!(r.relations[0].status, "unknown");
    assert_eq!(r.problems.len(), 1);
}

/// The rows of a markdown table a check script printed (header and rule left out),
/// each as its cells.
fn table_rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| model") && !l.starts_with("| ---"))
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

/// Run a `scripts/` checker with the test Python over the corpus's real models.
fn run_checker(py: &std::path::Path, script: &str, corpus: &std::path::Path) -> String {
    let out = std::process::Command::new(py)
        .arg(format!("{}/scripts/{script}", env!("CARGO_MANIFEST_DIR")))
        .arg(env!("CARGO_BIN_EXE_symdim"))
        .arg(corpus.join("real-models"))
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// On the shared real models (export/ and pypi/), onnxruntime runs every
/// profile's min, opt and max (`scripts/check_ranges.py`), fails one step past
/// every max from the contract but the one docs/ranges.md explains, and every
/// tensor it produces at those points lies within `ranges`' per-tensor bounds,
/// reaching `max_bytes` at the max point where symdim says so
/// (`scripts/check_ranges_bytes.py`).
#[test]
fn corpus_profiles_run_in_onnxruntime_within_the_tensor_bounds() {
    let Some(corpus) = crate::common::corpus() else {
        return;
    };
    let Some(py) = python() else {
        return;
    };
    let rows = table_rows(&run_checker(&py, "check_ranges.py", &corpus));
    assert_eq!(rows.len(), 20, "{rows:?}");
    for r in &rows {
        let (model, runs, past) = (&r[0], &r[3..6], &r[6]);
        for run in runs {
            assert!(
                run.starts_with("ran") || run == "not run (too large)",
                "{model}: {run}"
            );
        }
        for p in past.split("; ").filter(|p| !p.is_empty()) {
            // silero_vad.onnx's `input.1 <= 351` is the 8 kHz branch's; the
            // script's 16 kHz run takes 352 (docs/ranges.md).
            let explained = model == "silero-vad__silero_vad.onnx" && p == "input.1=352: ran";
            assert!(
                p.contains("failed") || p.contains("too large") || explained,
                "{model}: one past a contract max: {p}"
            );
        }
    }
    let rows = table_rows(&run_checker(&py, "check_ranges_bytes.py", &corpus));
    assert_eq!(rows.len(), 20, "{rows:?}");
    for r in &rows {
        assert_eq!(r[5], "none", "{}: {}", r[0], r[5]);
        assert!(
            r[2].parse::<usize>().unwrap() > 0,
            "{}: no tensor compared",
            r[0]
        );
    }
}
