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
//! The library is built by a nested `cargo build -p symdim-capi` (the dev profile)
//! in its own target directory (`target/capi/cargo`): the `cargo test` running this
//! holds the lock of its own, and builds no `cdylib` of a crate it does not test.
//! The C example is linked with the shared library, the C++ programs with the static
//! one. Without `cc` or `c++` the tests skip, saying so; under CI (`CI` set) that is
//! a failure. `SYMDIM_CC` and `SYMDIM_CXX` name other compilers.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use crate::common::say;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The target directory's `capi/` folder: the library's build and the programs.
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
        let target = work_dir().join("cargo");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
        let status = Command::new(cargo)
            .current_dir(ROOT)
            .env("CARGO_TARGET_DIR", &target)
            .args(["build", "--locked", "--quiet", "-p", "symdim-capi"])
            .status()
            .expect("cargo runs");
        assert!(status.success(), "cargo build -p symdim-capi failed");
        target.join("debug")
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
