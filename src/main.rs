//! The `symdim` command-line tool.
//!
//! `symdim infer MODEL [--format text|json] [--bind NAME=INT]... [--assume EXPR]... [--symbol ID:AXIS=NAME]... [-o OUT.onnx]`
//!
//! Exit status: 0 when inferred with no error diagnostic, 1 when the report holds an
//! error diagnostic, 2 when no report is possible (the message goes to stderr).

use clap::{Parser, Subcommand, ValueEnum};

// mimalloc: the run allocates many small strings and vectors; it is faster than the
// system allocator for that pattern (see docs/benchmarks.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use std::io::Write as _;
use std::path::PathBuf;
use symdim::infer::Options;

#[derive(Parser)]
#[command(
    name = "symdim",
    version,
    about = "Tensor shape inference as symbolic algebra"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum OutFormat {
    Text,
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Infer every tensor's shape as an expression of the model's input dims.
    Infer {
        /// The model: .onnx, OpenVINO IR .xml (with its .bin) or oneDNN Graph .json (the
        /// format is detected by content).
        model: PathBuf,
        /// Report format.
        #[arg(long, value_enum, default_value = "text")]
        format: OutFormat,
        /// Bind a symbol to a value, e.g. `--bind batch=4`.
        #[arg(long = "bind", value_name = "NAME=INT", value_parser = parse_bind)]
        binds: Vec<(String, i64)>,
        /// Assume a fact, e.g. `--assume "sequence % 8 == 0"` or `--assume "batch >= 2"`.
        #[arg(long = "assume", value_name = "EXPR")]
        assumes: Vec<String>,
        /// oneDNN Graph only: make dim AXIS of input tensor ID the symbol NAME, e.g.
        /// `--symbol 0:0=N` (inputs given the same NAME share it). The StaticReshape
        /// rule reports each `shape` attribute that no longer holds for every value.
        #[arg(long = "symbol", value_name = "ID:AXIS=NAME", value_parser = parse_symbol)]
        symbols: Vec<symdim::onednn::to_graph::Symbolize>,
        /// Write the model back with the inferred shapes as value_info (ONNX only).
        #[arg(short = 'o', value_name = "OUT.onnx")]
        out: Option<PathBuf>,
    },
    /// The conditions on the input dims under which every node is valid.
    Constraints {
        /// The model (ONNX, OpenVINO IR or oneDNN Graph JSON).
        model: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: OutFormat,
        /// Bind a symbol to a value first, e.g. `--bind batch=4`.
        #[arg(long = "bind", value_name = "NAME=INT", value_parser = parse_bind)]
        binds: Vec<(String, i64)>,
        /// Assume a fact first, e.g. `--assume "sequence <= 512"`.
        #[arg(long = "assume", value_name = "EXPR")]
        assumes: Vec<String>,
    },
    /// Say whether the model is valid for the given values (without running it).
    Check {
        /// The model.
        model: PathBuf,
        /// Bind a symbol to a value, e.g. `--bind batch=4`.
        #[arg(long = "bind", value_name = "NAME=INT", value_parser = parse_bind)]
        binds: Vec<(String, i64)>,
        /// Assume a fact, e.g. `--assume "sequence <= 512"`.
        #[arg(long = "assume", value_name = "EXPR")]
        assumes: Vec<String>,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: OutFormat,
    },
    /// Explain why a dim equals what the report says: `symdim explain m.onnx 'y[1]'`.
    Explain {
        /// The model.
        model: PathBuf,
        /// A tensor and axis, `NAME[AXIS]` (a negative axis counts from the end); a
        /// bare `NAME` explains every axis.
        target: String,
        /// Bind a symbol to a value first.
        #[arg(long = "bind", value_name = "NAME=INT", value_parser = parse_bind)]
        binds: Vec<(String, i64)>,
        /// Assume a fact first.
        #[arg(long = "assume", value_name = "EXPR")]
        assumes: Vec<String>,
    },
    /// Simplify dim expressions and print their canonical form.
    Simplify {
        /// Expressions in the grammar of docs/grammar.md.
        #[arg(required = true)]
        exprs: Vec<String>,
        /// Assume a fact first.
        #[arg(long = "assume", value_name = "EXPR")]
        assumes: Vec<String>,
    },
}

fn parse_bind(s: &str) -> Result<(String, i64), String> {
    let (name, value) = s
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=INT, found `{s}`"))?;
    let value: i64 = value
        .trim()
        .parse()
        .map_err(|_| format!("`{}` is not an integer", value.trim()))?;
    Ok((name.trim().to_string(), value))
}

fn parse_symbol(s: &str) -> Result<symdim::onednn::to_graph::Symbolize, String> {
    s.parse()
}

/// What a loader gave; an unreadable model is reported on stderr (`None`: exit
/// status 2).
fn reported<T>(loaded: Result<T, symdim::load::LoadError>) -> Option<T> {
    loaded.map_err(|e| eprintln!("symdim: {e}")).ok()
}

/// Read a model; an unreadable one is reported on stderr (`None`: exit status 2).
fn load_model(
    model: &std::path::Path,
    options: &symdim::load::LoadOptions,
) -> Option<(symdim::graph::Model, Vec<u8>)> {
    reported(symdim::load::load_with(model, options))
}

/// The inference options of `--bind` and `--assume`.
fn options(binds: Vec<(String, i64)>, assumes: Vec<String>) -> Options {
    Options {
        binds,
        assumes,
        ..Options::default()
    }
}

/// Load a model and infer it with the given facts; `None` (after a message on
/// stderr) when no report is possible.
fn load_and_infer(
    model: &std::path::Path,
    binds: Vec<(String, i64)>,
    assumes: Vec<String>,
) -> Option<(
    symdim::graph::Model,
    symdim::context::ShapesContext,
    Options,
)> {
    let options = options(binds, assumes);
    let (m, ctx) = reported(symdim::load::load_and_infer(
        model,
        &Default::default(),
        &options,
    ))?;
    Some((m, ctx, options))
}

/// A model file at least this large is handed back to the system once parsed:
/// mimalloc keeps freed memory for reuse, and the file's pages would otherwise count
/// in the process's peak memory for the rest of the run (18 of the 98 MB of a
/// 100k-node model, see docs/benchmarks.md). Handing it back costs time (the
/// collection, and fresh pages later): 4% on a 9 MB model, where memory is far from
/// its budget.
const RETURN_TO_OS: usize = 16 << 20;

/// Wall time per phase of `symdim infer`, printed on stderr when the environment
/// variable `SYMDIM_PHASES` is set (see docs/benchmarks.md); nothing otherwise.
struct Phases {
    last: Option<std::time::Instant>,
    marks: Vec<(&'static str, std::time::Duration)>,
}

impl Phases {
    fn from_env() -> Phases {
        Phases {
            last: std::env::var_os("SYMDIM_PHASES").map(|_| std::time::Instant::now()),
            marks: Vec::new(),
        }
    }

    /// The phase `name` ends now.
    fn mark(&mut self, name: &'static str) {
        if let Some(last) = self.last {
            let now = std::time::Instant::now();
            self.marks.push((name, now - last));
            self.last = Some(now);
        }
    }

    fn print(&self) {
        if self.last.is_some() {
            let parts: Vec<String> = self
                .marks
                .iter()
                .map(|(n, d)| format!("{n} {:.2} ms", d.as_secs_f64() * 1e3))
                .collect();
            eprintln!("symdim phases: {}", parts.join(", "));
        }
    }
}

/// Write a report to stdout. A reader that went away (`symdim infer m.onnx | head`)
/// is not an error worth a message; any other write error is reported. Either way the
/// exit status is 2 when the report could not be written whole.
fn emit(text: &str) -> Result<(), u8> {
    emit_with(|out| ((), out.write_all(text.as_bytes()))).1
}

/// [`emit`] for a report that writes itself to stdout (and returns something too).
fn emit_with<T>(
    write: impl FnOnce(&mut dyn std::io::Write) -> (T, std::io::Result<()>),
) -> (T, Result<(), u8>) {
    let mut out = std::io::stdout().lock();
    let (value, written) = write(&mut out);
    let status = match written.and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(2),
        Err(e) => {
            eprintln!("symdim: cannot write the report: {e}");
            Err(2)
        }
    };
    (value, status)
}

fn main() {
    let status = run();
    // What `main` returning would do before the process ends, and no more: stdout is
    // flushed (the report writers flush it already; this is for anything printed
    // since), stderr is unbuffered.
    let _ = std::io::stdout().flush();
    // `_exit` skips the C runtime's exit handlers: the allocator's collects its heap and
    // hands memory back to the system just before the kernel reclaims all of it (with
    // mimalloc 3.x, 50 `madvise` calls and 3% of the run on a 7k-node model; with 2.x,
    // which the binary now uses, 0-2%: see docs/benchmarks.md). Nothing else registers
    // one.
    #[cfg(unix)]
    // SAFETY: ends the process; no destructor of this program is pending (`run` has
    // returned) and the standard library keeps no state that needs them.
    unsafe {
        libc::_exit(i32::from(status))
    }
    #[cfg(not(unix))]
    std::process::exit(i32::from(status))
}

/// The command line's work; the process's exit status.
fn run() -> u8 {
    let cli = Cli::parse();
    match cli.command {
        Command::Constraints {
            model,
            format,
            binds,
            assumes,
        } => {
            let Some((m, ctx, options)) = load_and_infer(&model, binds, assumes) else {
                return 2;
            };
            let c = symdim::contracts::derive(&m, &ctx, &options);
            if let Err(code) = emit(&match format {
                OutFormat::Text => c.to_text(),
                OutFormat::Json => c.to_json(),
            }) {
                return code;
            }
            std::mem::forget((m, ctx));
            0
        }
        Command::Check {
            model,
            binds,
            assumes,
            format,
        } => {
            let Some((m, _)) = load_model(&model, &Default::default()) else {
                return 2;
            };
            let v = symdim::check::check(&m, &options(binds, assumes));
            if let Err(code) = emit(&match format {
                OutFormat::Text => v.to_text(),
                OutFormat::Json => v.to_json(),
            }) {
                return code;
            }
            std::mem::forget(m);
            v.exit_code()
        }
        Command::Explain {
            model,
            target,
            binds,
            assumes,
        } => {
            let Some((m, ctx, _)) = load_and_infer(&model, binds, assumes) else {
                return 2;
            };
            match symdim::explain::explain(&m, &ctx, &target) {
                Ok(text) => {
                    if let Err(code) = emit(&text) {
                        return code;
                    }
                }
                Err(e) => {
                    eprintln!("symdim: {e}");
                    return 2;
                }
            }
            std::mem::forget((m, ctx));
            0
        }
        Command::Infer {
            model,
            format,
            binds,
            assumes,
            symbols,
            out,
        } => {
            let load_options = symdim::load::LoadOptions {
                onednn_symbols: symbols,
            };
            let mut phases = Phases::from_env();
            let options = options(binds, assumes);
            // The inference runs while the model loads when it can (an ONNX file of
            // 1 MiB or more; 16 MiB at most with `--out`): the `load` phase then holds
            // most of it. The file's bytes are kept only for the annotated copy.
            let loaded = if out.is_some() {
                symdim::load::load_inferring(&model, &load_options, &options)
            } else {
                symdim::load::load_inferring_lean(&model, &load_options, &options)
            };
            let Some((m, bytes, ctx)) = reported(loaded) else {
                return 2;
            };
            phases.mark("load");
            // The file's bytes are only needed to write the annotated copy; without
            // one, their memory goes back to the allocator for what follows.
            let bytes = if out.is_some() {
                bytes
            } else {
                let large = bytes.len() >= RETURN_TO_OS;
                drop(bytes);
                if large {
                    // SAFETY: `mi_collect` only asks the global allocator (mimalloc,
                    // above) to return the memory it holds unused to the system.
                    unsafe { libmimalloc_sys::mi_collect(true) };
                }
                Vec::new()
            };
            // The report goes out as it is written, its bulk made while the contract is
            // derived (on a thread started before inference).
            let format = match format {
                OutFormat::Text => symdim::report::Format::Text,
                OutFormat::Json => symdim::report::Format::Json,
            };
            let ((ctx, mut report), written) = emit_with(|out| {
                let infer = || {
                    let ctx = ctx.unwrap_or_else(|| symdim::infer::infer_context(&m, &options));
                    phases.mark("infer");
                    ctx
                };
                let (ctx, report, written) =
                    symdim::report::Report::infer_and_write(&m, infer, &options, format, out);
                ((ctx, report), written)
            });
            if let Err(code) = written {
                return code;
            }
            phases.mark("report+write");
            phases.print();
            if let Some(out) = out {
                // The report was written without keeping its tensors.
                report.fill_tensors(&m, &ctx);
                if let Err(e) = symdim::annotate::write_annotated(&m, &bytes, &report, &out) {
                    eprintln!("symdim: {e}");
                    return 2;
                }
            }
            let status = if report.has_errors() { 1 } else { 0 };
            // The process ends here: freeing a large model's graph, e-graph and report
            // piece by piece would only cost time.
            std::mem::forget((m, bytes, ctx, report));
            status
        }
        Command::Simplify { exprs, assumes } => {
            let mut alg = symdim::algebra::Algebra::default();
            for a in &assumes {
                if let Err(e) = alg.assume(a) {
                    eprintln!("symdim: --assume {a}: {e}");
                    return 2;
                }
            }
            for e in &exprs {
                match alg.parse(e) {
                    Ok(d) => {
                        if let Err(code) = emit(&format!("{}\n", alg.simplify(d))) {
                            return code;
                        }
                    }
                    Err(err) => {
                        eprintln!("symdim: {err}");
                        return 2;
                    }
                }
            }
            0
        }
    }
}
