//! The Python package (`python/`): build its wheel with maturin, install it into a
//! Python environment, and run its pytest suite (`python/tests`) against this build's
//! `symdim` executable (the suite compares the two byte for byte).
//!
//! Which Python:
//!
//! - `SYMDIM_PYTHON=/path/to/python`: that interpreter, which must have the packages
//!   of `python/requirements-test.txt` (maturin, pytest, onnx, onnxruntime, ...);
//! - `SYMDIM_PYTHON=skip`: none, the test passes without running anything;
//! - unset: a virtualenv in the target directory (`target/python/venv`), made with
//!   `python3 -m venv` and `pip install -r python/requirements-test.txt` the first time
//!   and again when that file changes. Without a `python3` of at least 3.9, or when
//!   the install fails (no network), the test skips, saying why; under CI (`CI` set)
//!   either is a failure.
//!
//! The wheel is built in the `quick-release` profile (`Cargo.toml`: the release
//! profile's code without LTO, which builds sooner) in the suite's nested target
//! directory (`target/nested`, [`crate::common::nested_target_dir`]), which the C
//! API's tests share, so the build does not wait on the lock of the directory this
//! test runs from.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{nested_target_dir, say};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The target directory's `python/` folder: the venv and the wheels.
fn work_dir() -> PathBuf {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    tmp.parent().unwrap_or(tmp).join("python")
}

/// Run `cmd` with its output going to this process's stdout and stderr; `Err` says
/// what failed.
fn run(cmd: &mut Command, what: &str) -> Result<(), String> {
    match cmd.status() {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => Err(format!("{what} failed ({s})")),
        Err(e) => Err(format!("{what} could not start: {e}")),
    }
}

/// Skip (return `None`) with `why`, or fail under CI.
fn unavailable(why: &str) -> Option<PathBuf> {
    if std::env::var_os("CI").is_some() {
        panic!("the Python tests cannot run under CI: {why}");
    }
    say(&format!("skipping the Python package's tests: {why} (set SYMDIM_PYTHON to a Python with the packages of python/requirements-test.txt)"));
    None
}

/// The interpreter to test with, set up if need be; `None` to skip.
fn interpreter() -> Option<PathBuf> {
    match std::env::var_os("SYMDIM_PYTHON") {
        Some(v) if v == "skip" => {
            say("skipping the Python package's tests: SYMDIM_PYTHON=skip");
            None
        }
        Some(v) if !v.is_empty() => {
            let python = PathBuf::from(v);
            let check = Command::new(&python)
                .args(["-c", "import maturin, pytest"])
                .status();
            assert!(
                matches!(check, Ok(s) if s.success()),
                "SYMDIM_PYTHON={} cannot import maturin and pytest: install python/requirements-test.txt into it",
                python.display()
            );
            Some(python)
        }
        _ => venv(),
    }
}

/// `target/python/venv` ([`virtualenv`]), made at most once per run of the test
/// binary: other tests that run onnxruntime use it too, and two makers at once
/// would clear each other's. `None` to skip (a failure under CI).
pub fn venv() -> Option<PathBuf> {
    static VENV: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    VENV.get_or_init(virtualenv).clone()
}

/// `target/python/venv`, made and filled from `python/requirements-test.txt` when it
/// is missing or that file changed since.
fn virtualenv() -> Option<PathBuf> {
    let venv = work_dir().join("venv");
    let python = venv.join("bin").join("python");
    let requirements = Path::new(ROOT).join("python/requirements-test.txt");
    let wanted = std::fs::read_to_string(&requirements).expect("read python/requirements-test.txt");
    let stamp = venv.join("symdim-requirements.txt");
    if python.exists() && std::fs::read_to_string(&stamp).ok().as_deref() == Some(&*wanted) {
        return Some(python);
    }
    let version = Command::new("python3")
        .args([
            "-c",
            "import sys; sys.exit(0 if sys.version_info >= (3, 9) else 1)",
        ])
        .status();
    if !matches!(version, Ok(s) if s.success()) {
        return unavailable("no python3 of version 3.9 or later on PATH");
    }
    say(&format!(
        "setting up {} (pip install -r python/requirements-test.txt)",
        venv.display()
    ));
    let made = run(
        Command::new("python3")
            .args(["-m", "venv", "--clear"])
            .arg(&venv),
        "python3 -m venv",
    )
    .and_then(|()| {
        run(
            Command::new(&python)
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                    "-r",
                ])
                .arg(&requirements),
            "pip install -r python/requirements-test.txt",
        )
    });
    if let Err(why) = made {
        return unavailable(&why);
    }
    std::fs::write(&stamp, wanted).expect("write the requirements stamp");
    Some(python)
}

/// Build the wheel (`quick-release`) and install it into `python`'s environment.
fn install_wheel(python: &Path) {
    let wheels = work_dir().join("wheels");
    let _ = std::fs::remove_dir_all(&wheels);
    run(
        Command::new(python)
            .current_dir(ROOT)
            .env("CARGO_TARGET_DIR", nested_target_dir())
            .args([
                "-m",
                "maturin",
                "build",
                "--profile",
                "quick-release",
                "--quiet",
                "--out",
            ])
            .arg(&wheels)
            .arg("--interpreter")
            .arg(python),
        "maturin build",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let wheel = std::fs::read_dir(&wheels)
        .expect("maturin's output folder")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .expect("maturin built no wheel");
    run(
        Command::new(python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--force-reinstall",
                "--no-deps",
            ])
            .arg(&wheel),
        "pip install of the wheel",
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn python_package() {
    let Some(python) = interpreter() else {
        return;
    };
    install_wheel(&python);
    // pytest's exit status 5 (no test collected) is a failure too.
    run(
        Command::new(&python)
            .current_dir(ROOT)
            .env("SYMDIM_CLI", env!("CARGO_BIN_EXE_symdim"))
            .args([
                "-m",
                "pytest",
                "python/tests",
                "-q",
                "-p",
                "no:cacheprovider",
                "--import-mode=importlib",
            ]),
        "pytest python/tests",
    )
    .unwrap_or_else(|e| panic!("{e}"));
}
