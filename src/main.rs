//! The `symdim` command-line tool.
//!
//! `symdim infer MODEL [--format text|json] [--bind NAME=INT]... [--assume EXPR]... [--op-rules FILE]... [--symbol ID:AXIS=NAME]... [-o OUT.onnx]`
//!
//! `symdim infer ... --strict[=all]` also exits 1 when a rank or dim is unknown for a
//! reason other than the data (with `all`, for any reason), listing each on stderr.
//!
//! `symdim ranges MODEL [--range NAME=LO..HI]... [--opt NAME=V]... [--bind NAME=INT]... [--assume EXPR]... [--op-rules FILE]... [--format text|json|trtexec|ort-trt|openvino]`
//!
//! `symdim cost MODEL [--bind NAME=INT]... [--assume EXPR]... [--range NAME=LO..HI]... [--op-rules FILE]... [--format text|json] [--top N] [--plot NAME=LO..HI -o FILE.svg]`
//!
//! `symdim diff OLD NEW [--bind NAME=INT]... [--assume EXPR]... [--op-rules FILE]... [--format text|json] [--fail-on breaking|any|none] [--cost]`
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
use symdim::{Facts, FactsError};

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

#[derive(Clone, Copy, ValueEnum)]
enum RangesFormat {
    Text,
    Json,
    Trtexec,
    OrtTrt,
    Openvino,
}

/// What `symdim infer --strict` fails on.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Strict {
    /// A rank or dim unknown for a reason other than the data (a missing rule, a
    /// failed rule, a limit, an undecided broadcast, an input without a shape).
    Rules,
    /// Any unknown rank or dim, the data-dependent ones too.
    All,
}

/// When `symdim diff` exits with status 1.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum FailOn {
    /// A breaking change.
    Breaking,
    /// Any difference.
    Any,
    /// Never.
    None,
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
        #[arg(long = "bind", value_name = "NAME=INT", allow_hyphen_values = true)]
        binds: Vec<String>,
        /// Assume a fact, e.g. `--assume "sequence % 8 == 0"` or `--assume "batch >= 2"`.
        #[arg(long = "assume", value_name = "EXPR", allow_hyphen_values = true)]
        assumes: Vec<String>,
        /// Shape rules for ops, read from a file (docs/op-rules.md); repeatable. A
        /// declared rule wins over a built-in one.
        #[arg(long = "op-rules", value_name = "FILE")]
        op_rules: Vec<PathBuf>,
        /// oneDNN Graph only: make dim AXIS of input tensor ID the symbol NAME, e.g.
        /// `--symbol 0:0=N` (inputs given the same NAME share it). The StaticReshape
        /// rule reports each `shape` attribute that no longer holds for every value.
        #[arg(long = "symbol", value_name = "ID:AXIS=NAME", value_parser = parse_symbol)]
        symbols: Vec<symdim::read::onednn::to_graph::Symbolize>,
        /// Write the model back with the inferred shapes as value_info (ONNX only).
        #[arg(short = 'o', value_name = "OUT.onnx")]
        out: Option<PathBuf>,
        /// Exit with status 1 when a rank or dim is unknown for a reason other than
        /// the data (`--strict`), or for any reason (`--strict=all`), listing each
        /// on stderr after the report.
        #[arg(long, value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "rules", value_name = "all")]
        strict: Option<Strict>,
    },
    /// The conditions on the input dims under which every node is valid.
    Constraints {
        /// The model (ONNX, OpenVINO IR or oneDNN Graph JSON).
        model: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: OutFormat,
        /// Bind a symbol to a value first, e.g. `--bind batch=4`.
        #[arg(long = "bind", value_name = "NAME=INT", allow_hyphen_values = true)]
        binds: Vec<String>,
        /// Assume a fact first, e.g. `--assume "sequence <= 512"`.
        #[arg(long = "assume", value_name = "EXPR", allow_hyphen_values = true)]
        assumes: Vec<String>,
        /// Shape rules for ops, read from a file (docs/op-rules.md); repeatable. A
        /// declared rule wins over a built-in one.
        #[arg(long = "op-rules", value_name = "FILE")]
        op_rules: Vec<PathBuf>,
    },
    /// The valid values of each input symbol and a min/opt/max profile for engines.
    Ranges {
        /// The model (ONNX, OpenVINO IR or oneDNN Graph JSON).
        model: PathBuf,
        /// Limit a symbol to a range, e.g. `--range sequence=1..512` (either end may
        /// be left out).
        #[arg(long = "range", value_name = "NAME=LO..HI", allow_hyphen_values = true)]
        ranges: Vec<String>,
        /// The opt value of a symbol, e.g. `--opt sequence=128` (it must be valid).
        #[arg(long = "opt", value_name = "NAME=V", allow_hyphen_values = true)]
        opts: Vec<String>,
        /// Bind a symbol to a value first, e.g. `--bind batch=4`.
        #[arg(long = "bind", value_name = "NAME=INT", allow_hyphen_values = true)]
        binds: Vec<String>,
        /// Assume a fact first, e.g. `--assume "sequence <= 512"`.
        #[arg(long = "assume", value_name = "EXPR", allow_hyphen_values = true)]
        assumes: Vec<String>,
        /// Shape rules for ops, read from a file (docs/op-rules.md); repeatable. A
        /// declared rule wins over a built-in one.
        #[arg(long = "op-rules", value_name = "FILE")]
        op_rules: Vec<PathBuf>,
        /// Output format: a report (text, json) or the string an engine takes
        /// (trtexec, ort-trt, openvino), which needs a max for every symbol.
        #[arg(long, value_enum, default_value = "text")]
        format: RangesFormat,
    },
    /// What the model costs: MACs, FLOPs, tensor bytes, parameters, the peak of live
    /// activation bytes and the KV cache, as formulas of the input dims.
    Cost {
        /// The model (ONNX, OpenVINO IR or oneDNN Graph JSON).
        model: PathBuf,
        /// Evaluate every formula at a value, e.g. `--bind batch=4` (the formulas
        /// stay symbolic; the value is printed beside each).
        #[arg(long = "bind", value_name = "NAME=INT", allow_hyphen_values = true)]
        binds: Vec<String>,
        /// Assume a fact first, e.g. `--assume "sequence <= 512"`.
        #[arg(long = "assume", value_name = "EXPR", allow_hyphen_values = true)]
        assumes: Vec<String>,
        /// Bound every formula over a range, e.g. `--range sequence=1..512`.
        #[arg(long = "range", value_name = "NAME=LO..HI", allow_hyphen_values = true)]
        ranges: Vec<String>,
        /// Shape rules for ops, read from a file (docs/op-rules.md); repeatable.
        #[arg(long = "op-rules", value_name = "FILE")]
        op_rules: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: OutFormat,
        /// How many nodes the text report lists (by MACs).
        #[arg(long, default_value_t = 10)]
        top: usize,
        /// Draw the peak activation bytes and the MACs against one symbol from LO
        /// to HI (the others at their `--bind` values) into the SVG file of `-o`.
        #[arg(long, value_name = "NAME=LO..HI", allow_hyphen_values = true)]
        plot: Option<String>,
        /// The SVG file `--plot` writes.
        #[arg(short = 'o', long = "output", value_name = "FILE.svg")]
        output: Option<PathBuf>,
    },
    /// What changed between two versions of a model: inputs and outputs, the
    /// contract, the tensors inside, op counts and cost, with a verdict.
    Diff {
        /// The old version (ONNX, OpenVINO IR or oneDNN Graph JSON).
        old: PathBuf,
        /// The new version.
        new: PathBuf,
        /// Bind a symbol first, e.g. `--bind batch=4` (given to each version that
        /// declares the symbol).
        #[arg(long = "bind", value_name = "NAME=INT", allow_hyphen_values = true)]
        binds: Vec<String>,
        /// Assume a fact first, e.g. `--assume "sequence <= 512"` (given to each
        /// version that declares its symbols).
        #[arg(long = "assume", value_name = "EXPR", allow_hyphen_values = true)]
        assumes: Vec<String>,
        /// Shape rules for ops, read from a file (docs/op-rules.md); repeatable.
        #[arg(long = "op-rules", value_name = "FILE")]
        op_rules: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: OutFormat,
        /// Exit with status 1 on a breaking change (the default), on any
        /// difference, or never.
        #[arg(long = "fail-on", value_enum, default_value = "breaking")]
        fail_on: FailOn,
        /// Also compare the cost (parameters, MACs, peak bytes) of both versions:
        /// `symdim cost`'s analysis of each, several times an inference.
        #[arg(long)]
        cost: bool,
    },
    /// Say whether the model is valid for the given values (without running it).
    Check {
        /// The model.
        model: PathBuf,
        /// Bind a symbol to a value, e.g. `--bind batch=4`.
        #[arg(long = "bind", value_name = "NAME=INT", allow_hyphen_values = true)]
        binds: Vec<String>,
        /// Assume a fact, e.g. `--assume "sequence <= 512"`.
        #[arg(long = "assume", value_name = "EXPR", allow_hyphen_values = true)]
        assumes: Vec<String>,
        /// Shape rules for ops, read from a file (docs/op-rules.md); repeatable. A
        /// declared rule wins over a built-in one.
        #[arg(long = "op-rules", value_name = "FILE")]
        op_rules: Vec<PathBuf>,
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
        #[arg(long = "bind", value_name = "NAME=INT", allow_hyphen_values = true)]
        binds: Vec<String>,
        /// Assume a fact first.
        #[arg(long = "assume", value_name = "EXPR", allow_hyphen_values = true)]
        assumes: Vec<String>,
        /// Shape rules for ops, read from a file (docs/op-rules.md); repeatable. A
        /// declared rule wins over a built-in one.
        #[arg(long = "op-rules", value_name = "FILE")]
        op_rules: Vec<PathBuf>,
    },
    /// Simplify dim expressions and print their canonical form (a value past a size
    /// limit becomes a placeholder symbol, named by a warning on stderr).
    Simplify {
        /// Expressions in the grammar of docs/grammar.md.
        #[arg(required = true)]
        exprs: Vec<String>,
        /// Assume a fact first.
        #[arg(long = "assume", value_name = "EXPR", allow_hyphen_values = true)]
        assumes: Vec<String>,
    },
}

fn parse_symbol(s: &str) -> Result<symdim::read::onednn::to_graph::Symbolize, String> {
    s.parse()
}

/// What a loader gave; an unreadable model is reported on stderr (`None`: exit
/// status 2).
fn reported<T>(loaded: Result<T, symdim::read::load::LoadError>) -> Option<T> {
    loaded.map_err(|e| eprintln!("symdim: {e}")).ok()
}

/// Read a model; an unreadable one is reported on stderr (`None`: exit status 2).
fn load_model(
    model: &std::path::Path,
    options: &symdim::read::load::LoadOptions,
) -> Option<symdim::graph::Model> {
    reported(symdim::read::load::load_with(model, options))
}

/// The facts of `--bind`, `--assume` and `--op-rules`, read before any model is: a bind
/// that is not `NAME=INT` with a symbol name, a fact that does not parse, or a rules
/// file that cannot be read or has a bad line, is a usage error on stderr (`None`: exit
/// status 2).
fn read_facts(binds: &[String], assumes: Vec<String>, op_rules: &[PathBuf]) -> Option<Facts> {
    let facts = Facts::from_flags(binds, assumes)
        .map_err(|e: FactsError| eprintln!("symdim: {}", e.as_flags()))
        .ok()?;
    let rules = symdim::OpRules::from_files(op_rules)
        .map_err(|e| eprintln!("symdim: {e}"))
        .ok()?;
    Some(facts.with_op_rules(rules))
}

/// Check the facts against the loaded model before inference: a `--bind` or
/// `--assume` of a symbol the model does not name is a usage error on stderr (`false`:
/// exit status 2).
fn facts_fit(facts: &Facts, model: &symdim::graph::Model) -> bool {
    facts
        .validate(model)
        .map_err(|e| eprintln!("symdim: {}", e.as_flags()))
        .is_ok()
}

/// Read the facts, load a model and check the facts against it; `None` (after a message
/// on stderr) when the arguments or the model are unusable.
fn load_with_facts(
    model: &std::path::Path,
    binds: &[String],
    assumes: Vec<String>,
    op_rules: &[PathBuf],
) -> Option<(symdim::graph::Model, Facts)> {
    let facts = read_facts(binds, assumes, op_rules)?;
    let m = load_model(model, &Default::default())?;
    facts_fit(&facts, &m).then_some((m, facts))
}

/// Write a report to stdout. A reader that went away (`symdim infer m.onnx | head`)
/// is not an error worth a message; any other write error is reported. Either way the
/// exit status is 2 when the report could not be written whole.
fn emit(text: &str) -> Result<(), u8> {
    emit_with(|out| out.write_all(text.as_bytes()))
}

/// [`emit`] for a report that writes itself to stdout.
fn emit_with(write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>) -> Result<(), u8> {
    let mut out = std::io::stdout().lock();
    match write(&mut out).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(2),
        Err(e) => {
            eprintln!("symdim: cannot write the report: {e}");
            Err(2)
        }
    }
}

fn main() {
    std::process::exit(i32::from(run()))
}

/// `symdim infer MODEL -o OUT`: everything about `-o` that can be checked is checked
/// before inference (an ONNX model, a target folder that exists, a target that is not
/// a directory or a device, external data that stays reachable), and a refusal is one
/// line on stderr with exit status 2 and no report. The annotated model is written
/// (to a temporary file renamed over `out`) before the report is printed, so a report
/// on stdout means the model was written.
fn infer_annotated(
    model: &std::path::Path,
    load_options: &symdim::read::load::LoadOptions,
    options: &Facts,
    format: OutFormat,
    out: &std::path::Path,
    strict: Option<Strict>,
) -> u8 {
    let Some(bytes) = reported(symdim::read::load::read_model_file(model)) else {
        return 2;
    };
    let loaded = symdim::read::load::load_file_bytes(&bytes, model, load_options);
    let Some(m) = reported(loaded) else {
        return 2;
    };
    if !facts_fit(options, &m) {
        return 2;
    }
    let target = match symdim::report::annotate::OutputTarget::prepare(model, &bytes, m.format, out)
    {
        Ok(t) => t,
        Err(e) => {
            eprintln!("symdim: {e}");
            return 2;
        }
    };
    let shapes = symdim::infer(&m, options);
    let written = shapes
        .annotated_bytes(&bytes)
        .and_then(|annotated| target.commit(&annotated));
    if let Err(e) = written {
        eprintln!("symdim: {e}");
        return 2;
    }
    let code = print_report(&shapes, format);
    strict_gate(&shapes, strict, code)
}

/// `--strict`: each unknown rank or dim it counts, one a line on stderr; the exit
/// status 1 when there is one, else `code`.
fn strict_gate(shapes: &symdim::Shapes<'_>, strict: Option<Strict>, code: u8) -> u8 {
    use symdim::analyses::unknowns::Reason;
    let Some(strict) = strict else {
        return code;
    };
    if code == 2 {
        return code;
    }
    let counted: Vec<_> = shapes
        .unknowns()
        .into_iter()
        .filter(|u| strict == Strict::All || u.reason != Reason::Data)
        .collect();
    for u in &counted {
        eprintln!("symdim: strict: {u}");
    }
    if counted.is_empty() {
        code
    } else {
        1
    }
}

/// Print the report of `shapes` (what `symdim infer` prints) to stdout; the exit
/// status: 1 when it holds an error, 2 when it could not be written whole.
fn print_report(shapes: &symdim::Shapes<'_>, format: OutFormat) -> u8 {
    let format = match format {
        OutFormat::Text => symdim::report::Format::Text,
        OutFormat::Json => symdim::report::Format::Json,
    };
    if let Err(code) = emit_with(|out| shapes.write_report(format, out)) {
        return code;
    }
    if shapes.has_errors() {
        1
    } else {
        0
    }
}

/// `symdim ranges`: the report (exit status 0) or an engine's string (exit status
/// 2, with the reasons on stderr, when the profile cannot be written: a symbol
/// without a max, a relation not proven over the box, a name the format cannot
/// write).
fn ranges_command(
    model: &std::path::Path,
    ranges: &[String],
    opts: &[String],
    binds: &[String],
    assumes: Vec<String>,
    op_rules: &[PathBuf],
    format: RangesFormat,
) -> u8 {
    use symdim::contracts::ranges::{parse_opt, parse_range, PasteFormat, Request};
    let request = ranges
        .iter()
        .map(|r| parse_range(r))
        .collect::<Result<Vec<_>, _>>()
        .and_then(|ranges| {
            let opts = opts
                .iter()
                .map(|o| parse_opt(o))
                .collect::<Result<_, _>>()?;
            Ok(Request { ranges, opts })
        });
    let request = match request {
        Ok(r) => r,
        Err(e) => {
            eprintln!("symdim: {e}");
            return 2;
        }
    };
    let Some((m, facts)) = load_with_facts(model, binds, assumes, op_rules) else {
        return 2;
    };
    let report = match symdim::infer(&m, &facts).ranges(&request) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("symdim: {e}");
            return 2;
        }
    };
    let paste = match format {
        RangesFormat::Text => Ok(report.to_text()),
        RangesFormat::Json => Ok(report.to_json()),
        RangesFormat::Trtexec => report.to_paste(PasteFormat::Trtexec),
        RangesFormat::OrtTrt => report.to_paste(PasteFormat::OrtTrt),
        RangesFormat::Openvino => report.to_paste(PasteFormat::OpenVino),
    };
    match paste {
        Ok(text) => match emit(&text) {
            Ok(()) => 0,
            Err(code) => code,
        },
        Err(why) => {
            for w in why {
                eprintln!("symdim: {w}");
            }
            2
        }
    }
}

/// What `symdim cost` prints and draws: the report's format, the text's node
/// count, and `--plot`'s range with the SVG file it writes.
struct CostOutput {
    format: OutFormat,
    top: usize,
    plot: Option<(String, PathBuf)>,
}

/// `symdim cost`: the report (exit status 0, 1 when inference found an error),
/// or a usage error (exit status 2).
fn cost_command(
    model: &std::path::Path,
    binds: &[String],
    assumes: Vec<String>,
    ranges: &[String],
    op_rules: &[PathBuf],
    output: CostOutput,
) -> u8 {
    use symdim::analyses::cost::plot::PlotRequest;
    let CostOutput { format, top, plot } = output;
    use symdim::analyses::cost::CostRequest;
    let binds = match symdim::parse_binds(binds) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("symdim: {}", e.as_flags());
            return 2;
        }
    };
    let ranges = match ranges
        .iter()
        .map(|r| symdim::contracts::ranges::parse_range(r))
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("symdim: {e}");
            return 2;
        }
    };
    let plot = match plot {
        None => None,
        Some((text, out)) => match symdim::contracts::ranges::parse_range(&text) {
            Ok(symdim::contracts::ranges::UserRange {
                name,
                lo: Some(lo),
                hi: Some(hi),
            }) => Some((
                PlotRequest {
                    symbol: name,
                    lo,
                    hi,
                },
                out,
            )),
            Ok(_) => {
                eprintln!("symdim: --plot {text}: give both ends, NAME=LO..HI");
                return 2;
            }
            Err(e) => {
                eprintln!("symdim: --plot: {e}");
                return 2;
            }
        },
    };
    // The binds evaluate the formulas; inference runs without them.
    let Some((m, facts)) = load_with_facts(model, &[], assumes, op_rules) else {
        return 2;
    };
    let shapes = symdim::infer(&m, &facts);
    let report = match shapes.cost(&CostRequest { binds, ranges }) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("symdim: {e}");
            return 2;
        }
    };
    if let Some((request, out)) = plot {
        let svg = match report.plot(&request) {
            Ok(p) => p.to_svg(),
            Err(e) => {
                eprintln!("symdim: {e}");
                return 2;
            }
        };
        if let Err(e) = std::fs::write(&out, svg) {
            eprintln!("symdim: cannot write {}: {e}", out.display());
            return 2;
        }
    }
    let text = match format {
        OutFormat::Text => report.to_text(top),
        OutFormat::Json => report.to_json(),
    };
    if let Err(code) = emit(&text) {
        return code;
    }
    if shapes.has_errors() {
        1
    } else {
        0
    }
}

/// How `symdim diff` reports: its format, when it fails, and what it compares.
struct DiffOutput {
    format: OutFormat,
    fail_on: FailOn,
    request: symdim::analyses::diff::DiffRequest,
}

/// `symdim diff`: the report, and exit status 1 when `fail_on` says so; 2 when a
/// model cannot be read or a fact fits neither version.
fn diff_command(
    old: &std::path::Path,
    new: &std::path::Path,
    binds: &[String],
    assumes: Vec<String>,
    op_rules: &[PathBuf],
    output: DiffOutput,
) -> u8 {
    let DiffOutput {
        format,
        fail_on,
        request,
    } = output;
    let Some(facts) = read_facts(binds, assumes, op_rules) else {
        return 2;
    };
    let Some(m_old) = load_model(old, &Default::default()) else {
        return 2;
    };
    let Some(m_new) = load_model(new, &Default::default()) else {
        return 2;
    };
    let (f_old, f_new) = (facts.for_model(&m_old), facts.for_model(&m_new));
    // A fact that neither version declares the symbols of is a usage error, as
    // `infer` makes it: checked against OLD, whose message names its symbols.
    let unused = facts
        .binds
        .iter()
        .any(|b| !f_old.binds.contains(b) && !f_new.binds.contains(b))
        || facts
            .assumes
            .iter()
            .any(|a| !f_old.assumes.contains(a) && !f_new.assumes.contains(a));
    if unused && !facts_fit(&facts, &m_old) {
        return 2;
    }
    let (s_old, s_new) = (symdim::infer(&m_old, &f_old), symdim::infer(&m_new, &f_new));
    let d = s_old.diff(&s_new, &request);
    if let Err(code) = emit(&match format {
        OutFormat::Text => d.to_text(),
        OutFormat::Json => d.to_json(),
    }) {
        return code;
    }
    use symdim::analyses::diff::Verdict;
    match (fail_on, d.verdict) {
        (FailOn::Breaking, Verdict::Breaking) => 1,
        (FailOn::Any, Verdict::Breaking | Verdict::Compatible) => 1,
        _ => 0,
    }
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
            op_rules,
        } => {
            let Some((m, options)) = load_with_facts(&model, &binds, assumes, &op_rules) else {
                return 2;
            };
            let c = symdim::infer(&m, &options).contract();
            if let Err(code) = emit(&match format {
                OutFormat::Text => c.to_text(),
                OutFormat::Json => c.to_json(),
            }) {
                return code;
            }
            0
        }
        Command::Ranges {
            model,
            ranges,
            opts,
            binds,
            assumes,
            op_rules,
            format,
        } => ranges_command(&model, &ranges, &opts, &binds, assumes, &op_rules, format),
        Command::Cost {
            model,
            binds,
            assumes,
            ranges,
            op_rules,
            format,
            top,
            plot,
            output,
        } => {
            let plot = match (plot, output) {
                (Some(p), Some(o)) => Some((p, o)),
                (None, None) => None,
                (Some(_), None) => {
                    eprintln!("symdim: --plot needs -o FILE.svg, the file it writes");
                    return 2;
                }
                (None, Some(_)) => {
                    eprintln!("symdim: -o is the file of --plot; give --plot NAME=LO..HI");
                    return 2;
                }
            };
            let output = CostOutput { format, top, plot };
            cost_command(&model, &binds, assumes, &ranges, &op_rules, output)
        }
        Command::Diff {
            old,
            new,
            binds,
            assumes,
            op_rules,
            format,
            fail_on,
            cost,
        } => {
            let output = DiffOutput {
                format,
                fail_on,
                request: symdim::analyses::diff::DiffRequest { cost },
            };
            diff_command(&old, &new, &binds, assumes, &op_rules, output)
        }
        Command::Check {
            model,
            binds,
            assumes,
            op_rules,
            format,
        } => {
            let Some((m, facts)) = load_with_facts(&model, &binds, assumes, &op_rules) else {
                return 2;
            };
            let v = symdim::contracts::check::check(&m, &facts);
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
            op_rules,
        } => {
            let Some((m, facts)) = load_with_facts(&model, &binds, assumes, &op_rules) else {
                return 2;
            };
            match symdim::infer(&m, &facts).explain(&target) {
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
            op_rules,
            symbols,
            out,
            strict,
        } => {
            let load_options = symdim::read::load::LoadOptions {
                onednn_symbols: symbols,
            };
            let Some(options) = read_facts(&binds, assumes, &op_rules) else {
                return 2;
            };
            if let Some(out) = &out {
                return infer_annotated(&model, &load_options, &options, format, out, strict);
            }
            let Some(m) = load_model(&model, &load_options) else {
                return 2;
            };
            if !facts_fit(&options, &m) {
                return 2;
            }
            let shapes = symdim::infer(&m, &options);
            let code = print_report(&shapes, format);
            strict_gate(&shapes, strict, code)
        }
        Command::Simplify { exprs, assumes } => {
            let mut alg = symdim::algebra::Algebra::default();
            for a in &assumes {
                if let Err(e) = alg.assume(a) {
                    eprintln!("symdim: --assume {a}: {e}");
                    return 2;
                }
            }
            let mut warned = 0;
            for e in &exprs {
                match alg.parse(e) {
                    Ok(d) => {
                        if let Err(code) = emit(&format!("{}\n", alg.simplify(d))) {
                            return code;
                        }
                        // A limit's placeholder (`big0`) in the printed form is named
                        // by a warning, as the report lists it among its diagnostics.
                        for w in &alg.warnings()[warned..] {
                            eprintln!("symdim: warning: {w}");
                        }
                        warned = alg.warnings().len();
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
