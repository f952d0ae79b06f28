//! The C API (`capi/`, `include/symdim.h`): C and C++ programs built with the system
//! compilers against the header and the library, run, and compared with the CLI.
//!
//! - `examples/c/report.c` and `examples/cpp/shapes.cpp --json` print the JSON report
//!   with the CLI's exit status: both must equal `symdim infer MODEL --format json`
//!   byte for byte (stdout, stderr, status) on bundled models of every format, a
//!   model whose report holds an error, and a missing file.
//! - `api.c` calls the text report, the contract, `check`, `explain` and `simplify`;
//!   each must equal the CLI command that prints the same.
//! - `context.c` runs the `ShapesContext` operations and the error conventions;
//!   its lines are compared with answers derived by hand from the shape-tensor spec.
//! - `threads.cpp` uses independent and shared handles from several threads at once.
//!
//! The library is built by a nested `cargo build -p symdim-capi` in the
//! `quick-release` profile, in the suite's nested target directory (`target/nested`,
//! [`crate::common::nested_target_dir`]): the `cargo test` running this holds the
//! lock of its own, and the Python package's wheel is built there in the same
//! profile, so the two share one build of the library and its dependencies.
//! The C example is linked with the shared library, the C++ programs with the static
//! one. Without `cc` or `c++` the tests skip, saying so; under CI (`CI` set) that is
//! a failure. `SYMDIM_CC` and `SYMDIM_CXX` name other compilers.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use crate::common::{nested_target_dir, say};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The target directory's `capi/` folder: the programs.
fn work_dir() -> PathBuf {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    tmp.parent().unwrap_or(tmp).join("capi")
}

/// The compiler named by `var` (`SYMDIM_CC`, `SYMDIM_CXX`), else `default`, when it runs.
fn compiler(var: &str, default: &str) -> Option<String> {
    let cc = std::env::var(var).unwrap_or_else(|_| default.to_string());
    let runs = Command::new(&cc)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if runs {
        return Some(cc);
    }
    let why = format!("no C/C++ compiler: `{cc} --version` does not run (set {var})");
    assert!(
        std::env::var_os("CI").is_none(),
        "the C API tests cannot run under CI: {why}"
    );
    say(&format!("skipping the C API tests: {why}"));
    None
}

/// The folder holding `libsymdim.so` and `libsymdim.a`, built once per run.
fn library() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let target = nested_target_dir();
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
        let status = Command::new(cargo)
            .current_dir(ROOT)
            .env("CARGO_TARGET_DIR", &target)
            .args(["build", "--locked", "--quiet", "--profile", "quick-release"])
            .args(["-p", "symdim-capi"])
            .status()
            .expect("cargo runs");
        assert!(status.success(), "cargo build -p symdim-capi failed");
        target.join("quick-release")
    })
}

/// How a program links the library.
#[derive(Clone, Copy)]
enum Link {
    Shared,
    Static,
}

/// Compile `source` (relative to the crate) into `name` with `compiler` and
/// `flags`, against include/symdim.h and the library.
fn build(compiler: &str, flags: &[&str], source: &str, name: &str, link: Link) -> PathBuf {
    let lib = library();
    let bin = work_dir().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let exe = bin.join(name);
    let mut cmd = Command::new(compiler);
    cmd.current_dir(ROOT)
        .args(flags)
        .args(["-Wall", "-Wextra", "-Werror", "-Iinclude", source, "-o"])
        .arg(&exe);
    match link {
        Link::Shared => {
            cmd.arg("-L").arg(lib).arg("-lsymdim");
        }
        // What `cargo rustc -- --print native-static-libs` lists for Linux.
        Link::Static => {
            cmd.arg(lib.join("libsymdim.a"))
                .args(["-lpthread", "-ldl", "-lm", "-lgcc_s", "-lc"]);
        }
    }
    let out = cmd.output().expect("the compiler runs");
    assert!(
        out.status.success(),
        "{compiler} {source} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

fn c_program(source: &str, name: &str) -> Option<PathBuf> {
    let cc = compiler("SYMDIM_CC", "cc")?;
    Some(build(
        &cc,
        &["-std=c99", "-pedantic"],
        source,
        name,
        Link::Shared,
    ))
}

fn cpp_program(source: &str, name: &str) -> Option<PathBuf> {
    let cxx = compiler("SYMDIM_CXX", "c++")?;
    let flags = ["-std=c++17", "-pthread"];
    Some(build(&cxx, &flags, source, name, Link::Static))
}

/// Run a built program (with the shared library on its search path).
fn run(exe: &Path, args: &[&str]) -> Output {
    Command::new(exe)
        .current_dir(ROOT)
        .env("LD_LIBRARY_PATH", library())
        .args(args)
        .output()
        .expect("the program runs")
}

/// Run the CLI.
fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_symdim"))
        .current_dir(ROOT)
        .args(args)
        .output()
        .expect("symdim runs")
}

/// Stdout, stderr and exit status must be the same.
fn assert_same(got: &Output, want: &Output, what: &str) {
    assert_eq!(
        String::from_utf8_lossy(&got.stdout),
        String::from_utf8_lossy(&want.stdout),
        "stdout of {what}"
    );
    assert_eq!(
        String::from_utf8_lossy(&got.stderr),
        String::from_utf8_lossy(&want.stderr),
        "stderr of {what}"
    );
    assert_eq!(
        got.status.code(),
        want.status.code(),
        "exit status of {what}"
    );
}

/// Bundled models of each format, one whose report holds an error (exit status 1),
/// and a missing file (exit status 2).
const MODELS: &[&str] = &[
    "examples/attention.onnx",
    "tests/fixtures/onnx/onnx.si.test_concat_param.v13.onnx",
    "tests/fixtures/onnx/onnx.dp.test_data_prop_via_function.onnx",
    "tests/fixtures/openvino/tiny_reshape/model.xml",
    "tests/fixtures/onednn/static_reshape.json",
    "tests/fixtures/onednn/int8_avgpool_reshape_fusion.json",
    "tests/fixtures/peer-cases/models/tf.transpose.06.onnx",
    "tests/fixtures/no-such-model.onnx",
];

#[test]
fn c_report_prints_the_clis_json() {
    let Some(report) = c_program("examples/c/report.c", "report") else {
        return;
    };
    let mut statuses = Vec::new();
    for model in MODELS {
        let want = cli(&["infer", model, "--format", "json"]);
        assert_same(&run(&report, &[model]), &want, model);
        statuses.push(want.status.code());
    }
    // The models cover each exit status.
    for code in [0, 1, 2] {
        assert!(statuses.contains(&Some(code)), "no model exits with {code}");
    }
}

#[test]
fn cpp_example_prints_the_clis_json_and_shapes() {
    let Some(shapes) = cpp_program("examples/cpp/shapes.cpp", "shapes") else {
        return;
    };
    for model in MODELS {
        let want = cli(&["infer", model, "--format", "json"]);
        assert_same(&run(&shapes, &["--json", model]), &want, model);
    }
    // examples/make_attention.py: y is x's shape [batch, sequence, 64] (D = 64).
    let out = run(
        &shapes,
        &["examples/attention.onnx", "batch=4", "sequence=10"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "y: [batch, sequence, 64]\ny = [4, 10, 64]\n"
    );
    // A symbol without a value: its dims are `?`.
    let out = run(&shapes, &["examples/attention.onnx", "batch=2"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "y: [batch, sequence, 64]\ny = [2, ?, 64]\n"
    );
}

#[test]
fn c_calls_print_what_the_cli_prints() {
    let Some(api) = c_program("tests/it/capi/api.c", "api") else {
        return;
    };
    let m = "examples/attention.onnx";
    let cases: &[(&[&str], &[&str])] = &[
        (&["text", m], &["infer", m]),
        (&["text", m, "batch=2"], &["infer", m, "--bind", "batch=2"]),
        (&["text", m, "btach=2"], &["infer", m, "--bind", "btach=2"]),
        (&["contract", m], &["constraints", m, "--format", "json"]),
        (
            &["check", m, "batch=2", "sequence=7"],
            &[
                "check",
                m,
                "--format",
                "json",
                "--bind",
                "batch=2",
                "--bind",
                "sequence=7",
            ],
        ),
        (
            &["check", m, "batch=2"],
            &["check", m, "--format", "json", "--bind", "batch=2"],
        ),
        (&["explain", m, "y[1]"], &["explain", m, "y[1]"]),
        (&["explain", m, "y"], &["explain", m, "y"]),
        (
            &["simplify", "(2*S + 4) / 2", "S >= 1"],
            &["simplify", "(2*S + 4) / 2", "--assume", "S >= 1"],
        ),
        (
            &["simplify", "max(N, N + 1)"],
            &["simplify", "max(N, N + 1)"],
        ),
    ];
    for (args, cli_args) in cases {
        let got = run(&api, args);
        let want = cli(cli_args);
        if cli_args.contains(&"btach=2") {
            // The library names a refused fact as it takes it (`binding btach=2:`),
            // the CLI as its flag (`--bind btach=2:`); both refuse it with status 2.
            assert_eq!(got.status.code(), Some(2));
            assert_eq!(want.status.code(), Some(2));
            let (got, want) = (
                String::from_utf8_lossy(&got.stderr).into_owned(),
                String::from_utf8_lossy(&want.stderr).into_owned(),
            );
            assert_eq!(got.replace("binding ", "--bind "), want, "{args:?}");
            continue;
        }
        assert_same(&got, &want, &format!("{args:?}"));
    }
}

/// What `context.c` must print: each line derived from the shape-tensor spec
/// (`onnx-optim-shape_tensor.h`) and the ONNX operators, by hand.
const CONTEXT_EXPECTED: &str = "\
new: OK
set x: OK
set y: OK
concat: OK
z: dtype 1 rank 2 [B, M + N]
concat default axis: OK
z1: dtype 1 rank 2 [B, M + N]
set a: OK
set b: OK
concat mismatch: INVALID_ARGUMENT
concat missing input: OUT_OF_RANGE
cast: OK
zi: dtype 7 rank 2 [B, M + N]
cast missing input: OUT_OF_RANGE
set data: OK
set shape: OK
set value: OK
shape: dtype 7 rank 1 [2] value [B, -1]
reshape: OK
r: dtype 1 rank 2 [B, 24]
set zero: OK
set zero value: OK
reshape 0: OK
r0: dtype 1 rank 2 [B, 24]
set bad: OK
set bad value: OK
reshape two -1: INVALID_ARGUMENT
value of missing: NOT_FOUND
set bad expr: EXPR
parse: OK
text: OK
dim: B*S + 2*S
eval: OK
value: 25
eval missing symbol: EVAL
eval negative: EVAL
negative: symbol `S` = -5: negative (a dim value is an integer from 0 to 9223372036854775807)
as_i64 symbolic: UNKNOWN
parse bad: EXPR
parse NULL: NULL
parse to NULL: NULL
parse bad UTF-8: UTF8
load missing: LOAD
load bytes: LOAD
load empty: LOAD
facts: OK
assume bad: FACTS
bind expression: FACTS
op rules bad: OP_RULES
free facts: OK
free NULL: OK
free context: OK
";

#[test]
fn c_queries_answer_under_the_models_facts() {
    let Some(api) = c_program("tests/it/capi/api.c", "api_query") else {
        return;
    };
    let m = "examples/attention.onnx";
    // Input symbols are at least 1 (docs/grammar.md): so batch*sequence*64 is at
    // least 64 and unbounded above, and batch < batch + 1.
    let cases: &[(&[&str], &str)] = &[
        (
            &["batch*sequence*64", "64*sequence*batch"],
            "equal true\nle true\nbounds 64..inf\n",
        ),
        (
            &["batch", "batch + 1"],
            "equal false\nle true\nbounds 1..inf\n",
        ),
        (
            &["batch", "sequence"],
            "equal unknown\nle unknown\nbounds 1..inf\n",
        ),
        (
            &["sequence", "512", "sequence <= 512"],
            "equal unknown\nle true\nbounds 1..512\n",
        ),
        (
            &["2*sequence", "1024", "sequence <= 512"],
            "equal unknown\nle true\nbounds 2..1024\n",
        ),
    ];
    for (args, expected) in cases {
        let mut all = vec!["query", m];
        all.extend_from_slice(args);
        let out = run(&api, &all);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            *expected,
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn c_concretize_annotate_and_onednn_symbols_match_the_cli() {
    let Some(api) = c_program("tests/it/capi/api.c", "api_more") else {
        return;
    };
    let m = "examples/attention.onnx";
    let same = |c: Output, cli: Output, what: &str| {
        assert_eq!(
            String::from_utf8_lossy(&c.stdout),
            String::from_utf8_lossy(&cli.stdout),
            "{what}"
        );
        assert_eq!(c.status.code(), cli.status.code(), "{what}");
    };
    // Concretized shapes are the shapes inferred with the binds.
    same(
        run(&api, &["concretize", m, "batch=2", "sequence=7"]),
        cli(&["infer", m, "--bind", "batch=2", "--bind", "sequence=7"]),
        "concretize",
    );
    for bad in ["nope=3", "batch=-1"] {
        let out = run(&api, &["concretize", m, bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(
            String::from_utf8_lossy(&out.stderr).starts_with("symdim: "),
            "{bad}"
        );
    }
    // The annotated model is the file `infer -o` writes.
    let dir = std::env::temp_dir().join(format!("symdim-capi-annotate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (c_out, cli_out) = (dir.join("c.onnx"), dir.join("cli.onnx"));
    let out = run(&api, &["annotate", m, c_out.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("junk: 11 "),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let wrote = cli(&["infer", m, "-o", cli_out.to_str().unwrap()]);
    assert!(wrote.status.success());
    assert_eq!(
        std::fs::read(&c_out).unwrap(),
        std::fs::read(&cli_out).unwrap()
    );
    std::fs::remove_dir_all(&dir).ok();
    // oneDNN input dims turned into symbols, as with `--symbol`.
    let g = "tests/fixtures/onednn/static_reshape.json";
    same(
        run(&api, &["onednn", g, "0:0=N"]),
        cli(&["infer", g, "--symbol", "0:0=N"]),
        "onednn --symbol",
    );
    same(
        run(&api, &["onednn", g]),
        cli(&["infer", g]),
        "onednn without symbols",
    );
    // Refused as the CLI refuses them: symbols for an ONNX model (the same message)
    // and a malformed symbol.
    let c = run(&api, &["onednn", m, "0:0=N"]);
    let refused = cli(&["infer", m, "--symbol", "0:0=N"]);
    assert_eq!((c.status.code(), refused.status.code()), (Some(2), Some(2)));
    assert_eq!(
        String::from_utf8_lossy(&c.stderr),
        String::from_utf8_lossy(&refused.stderr)
    );
    let c = run(&api, &["onednn", g, "0:0"]);
    assert_eq!(c.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&c.stderr),
        "symdim: --symbol 0:0: expected ID:AXIS=NAME, found `0:0`\n"
    );
}

#[test]
fn the_c_timing_program_makes_the_clis_report() {
    // examples/c/timing.c is the C side of scripts/bench_capi.py: its runs must do
    // the work the CLI does (the report's bytes, run after run), and print one time
    // per run.
    let Some(timing) = c_program("examples/c/timing.c", "timing") else {
        return;
    };
    let m = "examples/attention.onnx";
    let json = cli(&["infer", m, "--format", "json"]).stdout;
    let out = run(&timing, &[m, "3", "report"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<f64> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.parse().expect("a time in seconds"))
        .collect();
    assert_eq!(lines.len(), 3);
    assert!(lines.iter().all(|t| *t > 0.0));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("report bytes: {}\n", 3 * json.len())
    );
    let usage = run(&timing, &[m, "3", "nonsense"]);
    assert_eq!(usage.status.code(), Some(2));
}

#[test]
fn a_format_outside_the_enum_is_an_invalid_argument() {
    // Its own executable: the tests run at once, and another builds `api`.
    let Some(api) = c_program("tests/it/capi/api.c", "api_format") else {
        return;
    };
    let m = "examples/attention.onnx";
    let ok = run(&api, &["format", m, "1"]);
    assert_eq!(String::from_utf8_lossy(&ok.stdout), "0 ok\n0 ok\n0 ok\n");
    // SYMDIM_ERROR_INVALID_ARGUMENT is 11 (include/symdim.h), for each call.
    for bad in ["2", "-1", "2147483647"] {
        let out = run(&api, &["format", m, bad]);
        let line = format!(
            "11 format {bad} is not a SymdimFormat (SYMDIM_FORMAT_TEXT = 0, SYMDIM_FORMAT_JSON = 1)\n"
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            line.repeat(3),
            "{bad}"
        );
    }
}

#[test]
fn c_shapes_context_operations_follow_the_spec() {
    let Some(context) = c_program("tests/it/capi/context.c", "context") else {
        return;
    };
    let out = run(&context, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), CONTEXT_EXPECTED);
}

#[test]
fn handles_work_from_several_threads_at_once() {
    let Some(threads) = cpp_program("tests/it/capi/threads.cpp", "threads") else {
        return;
    };
    for model in [
        "examples/attention.onnx",
        "tests/fixtures/openvino/tiny_reshape/model.xml",
    ] {
        let out = run(&threads, &[model]);
        assert!(
            out.status.success(),
            "{model}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout), "ok 12\n");
    }
}

#[test]
fn header_matches_the_exported_functions() {
    // Every `symdim_` function the crate exports is declared in the header (the
    // header itself is checked against cbindgen's output by scripts/check-header.sh).
    let header = std::fs::read_to_string(Path::new(ROOT).join("include/symdim.h")).unwrap();
    let lib = std::fs::read_to_string(Path::new(ROOT).join("capi/src/lib.rs")).unwrap();
    let exported: Vec<&str> = lib
        .split("extern \"C\" fn ")
        .skip(1)
        .filter_map(|rest| rest.split('(').next())
        .collect();
    assert!(exported.len() > 30, "found {} exports", exported.len());
    for name in exported {
        assert!(
            header.contains(&format!("{name}(")),
            "{name} is not in the header"
        );
    }
}
