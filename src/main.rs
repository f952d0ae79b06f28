//! The `symdim` command-line tool.
//!
//! `symdim infer MODEL [--format text|json] [--bind NAME=INT]... [--assume EXPR]... [--symbol ID:AXIS=NAME]... [-o OUT.onnx]`
//!
//! Exit status: 0 when inferred with no error diagnostic, 1 when the report holds an
//! error diagnostic, 2 when no report is possible (the message goes to stderr).

use clap::{Parser, Subcommand, ValueEnum};

// mimalloc: a run allocates many small strings and vectors, which it serves faster
// than the system allocator (docs/benchmarks.md has the figures).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use std::io::Write as _;
use std::path::PathBuf;
use symdim::Facts;

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
) -> Option<symdim::graph::Model> {
    reported(symdim::load::load_with(model, options))
}

/// The inference options of `--bind` and `--assume`.
fn options(binds: Vec<(String, i64)>, assumes: Vec<String>) -> Facts {
    Facts {
        binds,
        assumes,
        ..Facts::default()
    }
}

/// Load a model and infer it with the given facts; `None` (after a message on
/// stderr) when no report is possible.
fn load_and_infer(
    model: &std::path::Path,
    binds: Vec<(String, i64)>,
    assumes: Vec<String>,
) -> Option<(symdim::graph::Model, symdim::context::ShapesContext, Facts)> {
    let options = options(binds, assumes);
    let m = load_model(model, &Default::default())?;
    let ctx = symdim::infer::infer_context(&m, &options);
    Some((m, ctx, options))
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
    std::process::exit(i32::from(run()))
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
            0
        }
        Command::Check {
            model,
            binds,
            assumes,
            format,
        } => {
            let Some(m) = load_model(&model, &Default::default()) else {
                return 2;
            };
            let v = symdim::check::check(&m, &options(binds, assumes));
            if let Err(code) = emit(&match format {
                OutFormat::Text => v.to_text(),
                OutFormat::Json => v.to_json(),
            }) {
                return code;
            }
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
            let options = options(binds, assumes);
            if let Some(out) = &out {
                let read = std::fs::read(&model).map_err(|source| symdim::load::LoadError::Io {
                    path: model.display().to_string(),
                    source,
                });
                let Some(bytes) = reported(read) else {
                    return 2;
                };
                let loaded = symdim::load::load_file_bytes(&bytes, &model, &load_options);
                let Some(m) = reported(loaded) else {
                    return 2;
                };
                let ctx = symdim::infer::infer_context(&m, &options);
                let report = symdim::report::Report::build_with_constraints(&m, &ctx, &options);
                let text = match format {
                    OutFormat::Text => report.to_text(),
                    OutFormat::Json => report.to_json(),
                };
                if let Err(code) = emit(&text) {
                    return code;
                }
                if let Err(e) = symdim::annotate::write_annotated(&m, &bytes, &report, out) {
                    eprintln!("symdim: {e}");
                    return 2;
                }
                return if report.has_errors() { 1 } else { 0 };
            }
            let Some(m) = load_model(&model, &load_options) else {
                return 2;
            };
            let ctx = symdim::infer::infer_context(&m, &options);
            let format = match format {
                OutFormat::Text => symdim::report::Format::Text,
                OutFormat::Json => symdim::report::Format::Json,
            };
            let (report, written) = emit_with(|out| {
                symdim::report::Report::write_inferred(&m, &ctx, &options, format, out)
            });
            if let Err(code) = written {
                return code;
            }
            if report.has_errors() {
                1
            } else {
                0
            }
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
