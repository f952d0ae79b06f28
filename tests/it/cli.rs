//! The command-line interface: exit status, the JSON report's shape, `-o`, and
//! byte-for-byte stable output.

use crate::common;

use crate::common::models;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use symdim::report::{Format, Report};

fn symdim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_symdim"))
        .args(args)
        .output()
        .expect("run symdim")
}

fn example() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/examples/attention.onnx").to_string()
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("symdim-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn unreadable_input_exits_2_with_one_line_on_stderr() {
    let empty = tmp("empty.onnx");
    std::fs::write(&empty, b"").unwrap();
    let garbage = tmp("garbage.onnx");
    std::fs::write(&garbage, [0xffu8, 0xfe, 0x00, 0x13, 0x37, 0x42, 0x99, 0x01]).unwrap();
    let truncated = tmp("truncated.onnx");
    let bytes = std::fs::read(example()).unwrap();
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    for path in [
        empty.as_path(),
        garbage.as_path(),
        truncated.as_path(),
        Path::new("/nonexistent/model.onnx"),
    ] {
        let out = symdim(&["infer", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{}", path.display());
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "one line: {err:?}");
        assert!(err.starts_with("symdim: "), "{err}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn bad_arguments_exit_2() {
    assert_eq!(symdim(&["infer"]).status.code(), Some(2));
    assert_eq!(
        symdim(&["infer", &example(), "--bind", "batch"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        symdim(&["infer", &example(), "--format", "yaml"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(symdim(&["simplify", "A +"]).status.code(), Some(2));
}

#[test]
fn json_report_has_exactly_the_pinned_top_level_shape() {
    let out = symdim(&["infer", &example(), "--format", "json"]);
    assert!(matches!(out.status.code(), Some(0 | 1)));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["model", "symbols", "tensors", "outputs", "diagnostics"]
    );
    let model: Vec<&str> = v["model"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(model, ["path", "format", "opsets"]);
    assert_eq!(v["model"]["format"], "onnx");
    assert_eq!(v["model"]["opsets"][""], 17);
    assert_eq!(v["tensors"]["x"]["dtype"], "f32");
    assert_eq!(
        v["tensors"]["x"]["shape"],
        serde_json::json!(["batch", "sequence", 64])
    );
    assert_eq!(v["symbols"]["batch"]["kind"], "input");
    assert_eq!(v["outputs"], serde_json::json!(["y"]));
    for d in v["diagnostics"].as_array().unwrap() {
        let k: Vec<&str> = d.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(k, ["severity", "node", "op", "message"]);
    }
}

#[test]
fn reports_are_byte_identical_across_runs() {
    for format in ["text", "json"] {
        let a = symdim(&["infer", &example(), "--format", format]);
        let b = symdim(&["infer", &example(), "--format", format]);
        assert_eq!(a.stdout, b.stdout, "{format}");
        assert!(!a.stdout.is_empty());
    }
}

#[test]
fn binds_and_assumptions_apply() {
    let out = symdim(&["infer", &example(), "--format", "json", "--bind", "batch=4"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["tensors"]["x"]["shape"],
        serde_json::json!([4, "sequence", 64])
    );
    // A contradictory fact is an error diagnostic, and the report is still produced.
    let out = symdim(&["infer", &example(), "--format", "json", "--bind", "batch=0"]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["diagnostics"][0]["message"]
        .as_str()
        .unwrap()
        .contains("--bind batch=0"));
}

#[test]
fn annotated_model_reads_back_with_value_info() {
    let out_path = tmp("annotated.onnx");
    let out = symdim(&["infer", &example(), "-o", out_path.to_str().unwrap()]);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&out_path).unwrap();
    // With the JSON report, whose writer streams the tensors without keeping them,
    // the annotated model is the same.
    let json_path = tmp("annotated-json.onnx");
    let out = symdim(&[
        "infer",
        &example(),
        "--format",
        "json",
        "-o",
        json_path.to_str().unwrap(),
    ]);
    assert!(matches!(out.status.code(), Some(0 | 1)));
    assert_eq!(std::fs::read(&json_path).unwrap(), bytes);
    let m = symdim::read::onnx::parse(&bytes).unwrap();
    let g = m.graph().unwrap();
    let original = std::fs::read(example()).unwrap();
    let orig = symdim::read::onnx::parse(&original).unwrap();
    assert_eq!(
        g.node.len(),
        orig.graph().unwrap().node.len(),
        "nodes are untouched"
    );
    // every node output that has a report entry has a value_info or output entry
    let named: std::collections::HashSet<&str> = g
        .value_info
        .iter()
        .chain(g.output.iter())
        .map(|v| v.name)
        .collect();
    for n in &g.node {
        for o in &n.output {
            assert!(named.contains(o), "{o} has no value_info");
        }
    }
    // -o on a bad model path: exit 2
    assert_eq!(
        symdim(&[
            "infer",
            "/nonexistent.onnx",
            "-o",
            out_path.to_str().unwrap()
        ])
        .status
        .code(),
        Some(2)
    );
}

/// Found by the `expr_parse` fuzz target (21 inputs, all alike): a constant power past
/// `MAX_CONST_BITS` (`19014085**529`, about 12,700 bits) becomes the placeholder
/// `big0`, a fresh data-dependent symbol. `simplify` printed it with no word that it
/// is one (read back, `big0` is an input symbol, another expression); a warning on
/// stderr now names it.
#[test]
fn simplify_names_a_placeholder_fuzz_find() {
    let out = symdim(&["simplify", "81//19014085**529", "A + 1"]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(
        lines[0].starts_with("floordiv(81, ") && lines[0].contains("big0"),
        "{stdout}"
    );
    assert_eq!(lines[1], "A + 1");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.is_empty());
    for line in stderr.lines() {
        assert!(
            line.starts_with("symdim: warning: a constant grew past 4096 bits (MAX_CONST_BITS); it became the fresh dim big"),
            "{stderr}"
        );
    }
    assert!(stderr.contains("fresh dim big0\n"), "{stderr}");
    // Without a placeholder, nothing on stderr.
    let out = symdim(&["simplify", "81//19014085**5"]);
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "0\n");
    assert_eq!(String::from_utf8(out.stderr).unwrap(), "");
}

#[test]
fn simplify_prints_canonical_forms() {
    let out = symdim(&[
        "simplify",
        "B*S*768/(B*12*64)",
        "floordiv(floordiv(H - 1, 2) + 1, 2)",
        "--assume",
        "H >= 1",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "S\nfloordiv(H - 3, 4) + 1\n"
    );
}

/// `Report::to_json` writes the JSON directly; it must be byte for byte what
/// `serde_json`'s pretty printer makes of the report's `Serialize` implementation (the
/// reference), on every bundled model: the example, the peer cases (errors, warnings,
/// values, unknown ranks), the ONNX, OpenVINO and oneDNN fixtures. Constraints are added
/// as `symdim infer` adds them.
#[test]
fn direct_json_equals_serde_json_pretty() {
    let mut files = vec![std::path::PathBuf::from(example())];
    let mut stack = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")];
    while let Some(dir) = stack.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                stack.push(p);
            } else if matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("onnx" | "xml" | "json")
            ) {
                files.push(p);
            }
        }
    }
    let mut compared = 0;
    for path in &files {
        // Fixtures that are not models (expected results, case tables) do not load.
        let Ok(model) = symdim::read::load::load(path) else {
            continue;
        };
        let options = symdim::Facts::default();
        let ctx = symdim::infer(&model, &options).into_context();
        let report = symdim::report::Report::build_with_constraints(&model, &ctx, &options);
        let mut reference = serde_json::to_string_pretty(&report).unwrap();
        reference.push('\n');
        assert_eq!(report.to_json(), reference, "{}", path.display());
        // Streamed in pieces, the same bytes.
        let mut streamed = Vec::new();
        report.write_json(&mut streamed).unwrap();
        assert_eq!(streamed, reference.as_bytes(), "{}", path.display());
        let text = report.to_text();
        let mut streamed = Vec::new();
        report.write_text(&mut streamed).unwrap();
        assert_eq!(streamed, text.as_bytes(), "{}", path.display());
        for (format, reference) in [(Format::Json, &reference), (Format::Text, &text)] {
            // Written straight from the context (`symdim infer`): the same.
            let mut direct = Vec::new();
            let (mut again, written) =
                Report::write_inferred(&model, &ctx, &options, format, &mut direct);
            written.unwrap();
            assert_eq!(
                direct,
                reference.as_bytes(),
                "{format:?} {}",
                path.display()
            );
            // The tensors were written from the context, not kept; made again, the same.
            assert!(again.tensors.is_empty(), "{}", path.display());
            again.fill_tensors(&model, &ctx);
            assert_eq!(again, report, "{}", path.display());
        }
        // And the reference agrees with a parse of itself (it is valid JSON).
        let value: serde_json::Value = serde_json::from_str(&reference).unwrap();
        assert!(value.get("tensors").is_some(), "{}", path.display());
        compared += 1;
    }
    assert!(compared > 200, "only {compared} models compared");
}

/// The direct writer escapes strings as `serde_json` does: every control character,
/// quotes and backslashes; non-ASCII and DEL as they are. Empty containers print as
/// `{}` and `[]`.
#[test]
fn direct_json_escapes_as_serde_json() {
    let model = symdim::read::load::load(Path::new(&example())).unwrap();
    let mut report = common::report(&model, &symdim::Facts::default());
    let nasty: String = (0u8..0x20)
        .map(char::from)
        .chain("\"\\/\u{7f}é漢🙂 end".chars())
        .collect();
    report.diagnostics.push(symdim::context::Diagnostic {
        severity: symdim::context::Severity::Warning,
        node: nasty.clone(),
        op: String::new(),
        message: nasty.clone(),
        cause: None,
    });
    report.path = nasty.clone();
    report.opsets.clear();
    report.outputs.clear();
    report
        .constraints
        .insert("batch".to_string(), vec![nasty.clone(), String::new()]);
    let mut reference = serde_json::to_string_pretty(&report).unwrap();
    reference.push('\n');
    assert_eq!(report.to_json(), reference);
    assert!(reference.contains("\"opsets\": {}"));
    assert!(reference.contains("\"outputs\": []"));
}

/// The README's example. Reviewed against an outside reference: every tensor's shape
/// equals what `onnx.shape_inference.infer_shapes(m, data_prop=True, strict_mode=True)`
/// (onnx 1.23.2) infers for it (`qkv5 [batch, sequence, 3, 4, 16]`, `scores [1, batch,
/// 4, sequence, sequence]`, `y [batch, sequence, 64]`, ...).
#[test]
fn example_report_snapshot() {
    let out = symdim(&["infer", "examples/attention.onnx"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    common::snapshots().bind(|| insta::assert_snapshot!("example_attention_report", text));
}

/// A reader that goes away (`symdim ... | head`) ends the run with status 2 and no
/// panic message. The output (120 KB) is larger than a pipe's buffer, so some write
/// fails whenever the read end is closed.
#[test]
fn closed_stdout_is_not_a_panic() {
    let exprs: Vec<String> = (0..20_000).map(|_| "A + B".to_string()).collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_symdim"))
        .arg("simplify")
        .args(&exprs)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run symdim");
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

/// Any other write error is reported on stderr, with status 2.
#[test]
fn unwritable_stdout_is_reported() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("skipped: no /dev/full on this system");
        return;
    };
    let out = Command::new(env!("CARGO_BIN_EXE_symdim"))
        .args(["infer", &example()])
        .stdout(full)
        .output()
        .expect("run symdim");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("symdim: cannot write the report: "),
        "{err}"
    );
}

/// A sink that accepts `room` bytes, then fails.
struct FailingSink {
    room: usize,
    taken: Vec<u8>,
}

impl std::io::Write for FailingSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.room == 0 {
            return Err(std::io::Error::other("sink full"));
        }
        let n = buf.len().min(self.room);
        self.room -= n;
        self.taken.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `write_json` and `write_text` return the sink's first error, and what reached the
/// sink is a prefix of the report; a large report goes out in several pieces.
#[test]
fn writers_stream_and_stop_at_the_first_error() {
    let model = symdim::read::load::load(Path::new(&example())).unwrap();
    let mut report = common::report(&model, &symdim::Facts::default());
    // Make it larger than one piece (64 KiB): many copies of the tensors.
    let tensors: Vec<_> = report.tensors.clone().into_iter().collect();
    for i in 0..400 {
        for (name, t) in &tensors {
            report.tensors.insert(format!("{name}#{i}"), t.clone());
        }
    }
    for (format, whole) in [
        (Format::Json, report.to_json()),
        (Format::Text, report.to_text()),
    ] {
        assert!(whole.len() > 3 * 65536, "{format:?} {}", whole.len());
        for room in [0, 10, 65536, 100_000, whole.len() - 1] {
            let mut sink = FailingSink {
                room,
                taken: Vec::new(),
            };
            let err = report.write(format, &mut sink).unwrap_err();
            assert_eq!(err.to_string(), "sink full");
            assert!(whole.as_bytes().starts_with(&sink.taken));
            assert_eq!(sink.taken.len(), room.min(whole.len()));
        }
        let mut sink = FailingSink {
            room: whole.len(),
            taken: Vec::new(),
        };
        report.write(format, &mut sink).unwrap();
        assert_eq!(sink.taken, whole.as_bytes());
    }
}

/// `symdim infer`'s writer (tensors read from the context), in both formats, on a report whose `tensors`
/// section is larger than one piece of output (it then goes to the sink in one write):
/// the same bytes as building then writing, and on a failing sink a prefix of them and
/// the sink's error. The model, a chain of 3000 Relu on `[N, 3*k]` with a reshape every
/// so often, is built here.
#[test]
fn direct_writer_on_a_large_report() {
    use symdim::graph::DType;
    let mut b = models::model(17)
        .input("x0", DType::Float, Some(&["N", "S", "12"]))
        .ints("shape", &[3], &[0, 0, -1]);
    for i in 0..3000 {
        let (x, y) = (format!("x{i}"), format!("x{}", i + 1));
        b = if i % 7 == 3 {
            b.node("Reshape", &[&x, "shape"], &[&y], vec![])
        } else {
            b.node("Relu", &[&x], &[&y], vec![])
        };
    }
    let model = b.build();
    let options = symdim::Facts::default();
    let ctx = symdim::infer(&model, &options).into_context();
    let report = Report::build_with_constraints(&model, &ctx, &options);
    for (format, reference) in [
        (Format::Json, report.to_json()),
        (Format::Text, report.to_text()),
    ] {
        assert!(reference.len() > 65536, "{format:?} {}", reference.len());
        let mut out = Vec::new();
        let (_, written) = Report::write_inferred(&model, &ctx, &options, format, &mut out);
        written.unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), reference, "{format:?}");
        for room in [0, 100, 70_000, reference.len() - 1] {
            let mut sink = FailingSink {
                room,
                taken: Vec::new(),
            };
            let (_, written) = Report::write_inferred(&model, &ctx, &options, format, &mut sink);
            assert_eq!(written.unwrap_err().to_string(), "sink full");
            assert!(reference.as_bytes().starts_with(&sink.taken));
        }
    }
}

/// Appends `v` as a protobuf varint.
fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads a protobuf varint at `*pos`.
fn get_varint(b: &[u8], pos: &mut usize) -> u64 {
    let mut v = 0;
    for i in 0.. {
        let byte = b[*pos];
        *pos += 1;
        v |= u64::from(byte & 0x7f) << (7 * i);
        if byte < 0x80 {
            break;
        }
    }
    v
}

/// The model with a graph `doc_string` of `pad` bytes put before (or after) the
/// graph's other fields: the same model, in a file larger than the size at which
/// `symdim` parses a file while it reads it.
fn with_graph_doc(model: &[u8], pad: usize, first: bool) -> Vec<u8> {
    let (mut out, mut pos) = (Vec::new(), 0);
    while pos < model.len() {
        let start = pos;
        let tag = get_varint(model, &mut pos);
        match tag & 7 {
            0 => {
                get_varint(model, &mut pos);
            }
            2 => {
                let len = get_varint(model, &mut pos) as usize;
                if tag == (7 << 3 | 2) {
                    let mut doc = Vec::new();
                    put_varint(&mut doc, 10 << 3 | 2);
                    put_varint(&mut doc, pad as u64);
                    doc.resize(doc.len() + pad, b'#');
                    let body = &model[pos..pos + len];
                    let graph = if first {
                        [&doc[..], body].concat()
                    } else {
                        [body, &doc[..]].concat()
                    };
                    put_varint(&mut out, tag);
                    put_varint(&mut out, graph.len() as u64);
                    out.extend_from_slice(&graph);
                    pos += len;
                    continue;
                }
                pos += len;
            }
            other => panic!("wire type {other} at the top level"),
        }
        out.extend_from_slice(&model[start..pos]);
    }
    out
}

/// A model file of a few megabytes (most of it the graph's `doc_string`): the
/// reports, in both formats, and the annotated model are those of the same model in
/// a small file (the graph's `doc_string` is not read), whether the padding comes
/// before the nodes or after them.
#[test]
fn a_large_model_file_reports_as_a_small_one() {
    let small = std::fs::read(example()).unwrap();
    let dir = |name: &str| {
        let d = tmp(name);
        std::fs::create_dir_all(&d).unwrap();
        d
    };
    let run = |dir: &Path, args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_symdim"))
            .current_dir(dir)
            .args(args)
            .output()
            .expect("run symdim");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    let reference = dir("large-reference");
    std::fs::write(reference.join("m.onnx"), &small).unwrap();
    for first in [true, false] {
        let large = with_graph_doc(&small, 3_000_000, first);
        assert!(large.len() > 3_000_000);
        let padded = dir(if first { "large-first" } else { "large-last" });
        std::fs::write(padded.join("m.onnx"), &large).unwrap();
        for format in ["json", "text"] {
            let args = ["infer", "m.onnx", "--format", format];
            assert_eq!(run(&padded, &args), run(&reference, &args), "{format}");
        }
        // The annotated copy keeps the padding and adds the same value infos (at the
        // graph's end, so after the padding when it comes last).
        run(&padded, &["infer", "m.onnx", "-o", "out.onnx"]);
        run(&reference, &["infer", "m.onnx", "-o", "out.onnx"]);
        if first {
            let annotated = std::fs::read(padded.join("out.onnx")).unwrap();
            let reference = std::fs::read(reference.join("out.onnx")).unwrap();
            assert!(annotated == with_graph_doc(&reference, 3_000_000, first));
        }
        let args = ["infer", "out.onnx", "--format", "json"];
        assert_eq!(run(&padded, &args), run(&reference, &args));
    }
}

/// Exit status 2, one line on stderr starting `symdim: ` and containing `needle`, and
/// nothing on stdout.
fn usage_error(out: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err:?}");
    assert!(err.starts_with("symdim: ") && err.contains(needle), "{err}");
    assert!(out.stdout.is_empty(), "no report");
}

/// Bad `--bind` and `--assume` arguments are usage errors before any work: a name that
/// is empty, an expression or no symbol of the model, a value that is not an integer,
/// a fact that does not parse or names no symbol of the model. A bind of a symbol the
/// model does not have is refused, so that `check` never calls a model valid for a
/// value it did not apply.
#[test]
fn bad_binds_and_assumptions_are_usage_errors() {
    let m = example();
    let cases: &[(&[&str], &str)] = &[
        (&["--bind", "=3"], "--bind =3: the symbol name is empty"),
        (
            &["--bind", "batch+1=3"],
            "--bind batch+1=3: `batch+1` is an expression, not a symbol name",
        ),
        (
            &["--bind", "typo=3"],
            "--bind typo=3: the model has no symbol typo (its symbols: batch, sequence)",
        ),
        (&["--bind", "batch"], "--bind batch: expected NAME=INT"),
        (&["--bind", "batch=1.5"], "`1.5` is not an integer (i64)"),
        (
            &["--bind", "batch=99999999999999999999"],
            "is not an integer (i64)",
        ),
        (&["--assume", "N >="], "--assume N >=: cannot parse"),
        // Values starting with `-` are values (`--assume "-batch <= -2"` is a fact),
        // so a bad one is our one-line error, not the parser's usage text.
        (&["--bind", "-s=3"], "--bind -s=3: `-s` is an expression"),
        // Values a dim cannot take, or two values for one symbol.
        (
            &["--bind", "sequence=-3"],
            "--bind sequence=-3: the value is negative: dims are at least 0",
        ),
        (
            &["--bind", "sequence=1", "--bind", "sequence=2"],
            "--bind sequence=2: sequence is already bound to 1",
        ),
        (
            &["--assume", "-typo <= -2"],
            "--assume -typo <= -2: the model has no symbol typo",
        ),
        (
            &["--assume", "batch >= 2", "--assume", "batchh <= 8"],
            "--assume batchh <= 8: the model has no symbol batchh",
        ),
    ];
    for (args, needle) in cases {
        for command in [
            vec!["infer", &m],
            vec!["constraints", &m],
            vec!["check", &m, "--bind", "batch=2"],
            vec!["explain", &m, "y[0]"],
        ] {
            let mut all = command.clone();
            all.extend_from_slice(args);
            usage_error(&symdim(&all), needle);
        }
    }
    // Bind values are checked before the model is read: a model that does not exist
    // is not reached.
    usage_error(
        &symdim(&[
            "infer",
            "/nonexistent/model.onnx",
            "--bind",
            "b=1",
            "--bind",
            "b=2",
        ]),
        "--bind b=2: b is already bound to 1",
    );
    // The same value twice is one binding.
    let out = symdim(&["infer", &m, "--bind", "batch=2", "--bind", "batch=2"]);
    assert_eq!(out.status.code(), Some(0));
    // A fact starting with `-` is read as one.
    let out = symdim(&["infer", &m, "--assume", "-batch <= -2"]);
    assert_eq!(out.status.code(), Some(0));
    // The symbol in backquotes, as the grammar writes it, is the same symbol.
    let out = symdim(&["check", &m, "--bind", "`batch`=2", "--bind", "sequence=7"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A bad model path still says so (the arguments are fine).
    usage_error(
        &symdim(&["infer", "/nonexistent.onnx", "--bind", "batch=2"]),
        "cannot read /nonexistent.onnx",
    );
}

/// Files left in `dir` whose names start with `.` (the temporary files of `-o`).
fn temp_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect()
}

/// Every `-o` that cannot work is refused before inference: exit status 2, one line
/// on stderr, no report on stdout, nothing left behind.
#[test]
fn dash_o_is_checked_before_inference() {
    let dir = tmp("dash-o-refused");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let m = example();
    let d = dir.to_str().unwrap().to_string();
    let ir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/openvino/tiny_reshape/model.xml"
    );
    let onednn = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/onednn/static_reshape.json"
    );
    let missing = format!("{d}/no/such/folder/out.onnx");
    let into_ir = format!("{d}/ir.onnx");
    let into_onednn = format!("{d}/onednn.onnx");
    let mut cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["infer", &m, "-o", &d], "the target is a directory"),
        (vec!["infer", &m, "-o", &missing], "does not exist"),
        (
            vec!["infer", ir, "-o", &into_ir],
            "-o writes ONNX models only",
        ),
        (
            vec!["infer", onednn, "-o", &into_onednn],
            "-o writes ONNX models only",
        ),
    ];
    if Path::new("/dev/full").exists() {
        cases.push((
            vec!["infer", &m, "-o", "/dev/full"],
            "the target is a character device",
        ));
    }
    for (args, needle) in &cases {
        usage_error(&symdim(args), needle);
    }
    let left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// `-o` onto the model's own path replaces it with the complete annotated model (a
/// temporary file renamed over it), which reads back with the same nodes; running it
/// again changes nothing.
#[test]
fn dash_o_onto_the_input_replaces_it_whole() {
    let dir = tmp("dash-o-self");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("m.onnx");
    let original = std::fs::read(example()).unwrap();
    std::fs::write(&path, &original).unwrap();
    let p = path.to_str().unwrap();
    let out = symdim(&["infer", p, "-o", p]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!out.stdout.is_empty(), "the report follows the write");
    let once = std::fs::read(&path).unwrap();
    assert!(once.len() > original.len());
    let (a, b) = (
        symdim::read::onnx::parse(&original).unwrap(),
        symdim::read::onnx::parse(&once).unwrap(),
    );
    let nodes = |m: &symdim::read::onnx::ModelProto<'_>| format!("{:?}", m.graph().unwrap().node);
    assert_eq!(nodes(&a), nodes(&b));
    assert_eq!(symdim(&["infer", p]).stdout, out.stdout);
    assert_eq!(symdim(&["infer", p, "-o", p]).status.code(), Some(0));
    assert_eq!(std::fs::read(&path).unwrap(), once, "a fixed point");
    assert!(temp_files(&dir).is_empty());
}

/// What the model declares is never weakened: a declared graph-output shape
/// `[20, 10, k]` stays where inference only has dims of the data (`unk0`...), a
/// `value_info` entry likewise, one for a tensor the report does not know is kept,
/// and a declared name gives way to an inferred expression of the inputs.
#[test]
fn dash_o_keeps_what_the_model_declares() {
    use common::pb;
    let dir = tmp("dash-o-declared");
    std::fs::create_dir_all(&dir).unwrap();
    let bytes = pb::model(pb::graph(
        vec![
            pb::node("rs", "Reshape", &["x", "s"], &["r"]),
            pb::node("relu", "Relu", &["r"], &["y"]),
            pb::node("relu2", "Relu", &["z"], &["zr"]),
        ],
        vec![],
        vec![
            pb::value_info("x", 1, Some(&["200"])),
            pb::value_info("s", 7, Some(&["3"])),
            pb::value_info("z", 1, Some(&["N"])),
        ],
        vec![
            pb::value_info("y", 1, Some(&["20", "10", "k"])),
            pb::value_info("zr", 1, Some(&["?"])),
        ],
        vec![
            pb::value_info("r", 1, Some(&["20", "m", "1"])),
            pb::value_info("ghost", 1, Some(&["7"])),
        ],
    ));
    let model = dir.join("declared.onnx");
    std::fs::write(&model, bytes).unwrap();
    let out_path = dir.join("declared-out.onnx");
    let out = symdim(&[
        "infer",
        model.to_str().unwrap(),
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = String::from_utf8(out.stdout).unwrap();
    assert!(
        report.contains("  y   f32    [unk0, unk1, unk2]"),
        "{report}"
    );
    let written = std::fs::read(&out_path).unwrap();
    let m = symdim::read::onnx::parse(&written).unwrap();
    let g = m.graph().unwrap();
    let dims = |v: &symdim::read::onnx::ValueInfoProto<'_>| format!("{:?}", v.shape().unwrap());
    let by_name = |name: &str| {
        g.value_info
            .iter()
            .chain(&g.output)
            .find(|v| v.name == name)
            .map(dims)
            .unwrap_or_else(|| panic!("no entry for {name}"))
    };
    assert_eq!(by_name("y"), r#"[Value(20), Value(10), Param("k")]"#);
    assert_eq!(by_name("r"), r#"[Value(20), Param("m"), Value(1)]"#);
    assert_eq!(by_name("ghost"), "[Value(7)]");
    assert_eq!(by_name("zr"), r#"[Param("N")]"#);
    let names: Vec<&str> = g.value_info.iter().map(|v| v.name).collect();
    assert_eq!(names, ["r", "ghost"], "no duplicates, nothing dropped");
}

/// A model whose tensor data lies in an external file is written only into its own
/// folder: a copy elsewhere would not find the data (locations are relative to the
/// model's folder, and none may lead out of it).
#[test]
fn dash_o_of_a_model_with_external_data_stays_in_its_folder() {
    use common::pb;
    let dir = tmp("dash-o-external");
    let _ = std::fs::remove_dir_all(&dir);
    let (home, elsewhere) = (dir.join("model"), dir.join("elsewhere"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    let data: Vec<u8> = [-1i64, 4].iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(home.join("shape.bin"), data).unwrap();
    let bytes = pb::model(pb::graph(
        vec![pb::node("r", "Reshape", &["x", "shape"], &["y"])],
        vec![pb::external_int64_tensor("shape", &[2], "shape.bin")],
        vec![pb::value_info("x", 1, Some(&["N", "8"]))],
        vec![pb::value_info("y", 1, None)],
        vec![],
    ));
    let model = home.join("m.onnx");
    std::fs::write(&model, bytes).unwrap();
    let m = model.to_str().unwrap();
    let away = elsewhere.join("m.onnx");
    usage_error(
        &symdim(&["infer", m, "-o", away.to_str().unwrap()]),
        "the model's tensor `shape` keeps its data in `shape.bin` next to the model",
    );
    assert!(!away.exists() && temp_files(&elsewhere).is_empty());
    // Nor over its data file.
    let data = home.join("shape.bin");
    usage_error(
        &symdim(&["infer", m, "-o", data.to_str().unwrap()]),
        "the target holds the data of the model's tensor `shape`",
    );
    assert_eq!(std::fs::read(&data).unwrap().len(), 16);
    let here = home.join("annotated.onnx");
    let out = symdim(&["infer", m, "-o", here.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let again = symdim(&["infer", here.to_str().unwrap()]);
    let text = String::from_utf8(again.stdout).unwrap();
    assert!(text.contains("  y  f32    [2*N, 4]"), "{text}");
}

/// K binds and facts, a ladder of doubling counts across `MAX_FACTS` (10,000 together):
/// up to the limit the facts are all applied (exit 0, each bound's effect seen in the
/// report); one past it, and beyond, a one-line usage error naming the limit (exit 2)
/// and no report. No rung is timed.
#[test]
fn binds_and_facts_past_max_facts_are_a_usage_error() {
    let m = example();
    for k in [1024usize, 2048, 4096, 8192, 10_000, 10_001, 16_384] {
        let facts: Vec<String> = (1..=k).map(|i| format!("batch >= {i}")).collect();
        let mut args = vec!["constraints", &m];
        for f in &facts {
            args.extend(["--assume", f]);
        }
        let out = symdim(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if k <= symdim::context::facts::MAX_FACTS {
            assert_eq!(out.status.code(), Some(0), "k = {k}: {stderr}");
            let report = String::from_utf8_lossy(&out.stdout);
            assert!(report.contains(&format!("batch >= {k}")), "k = {k}");
        } else {
            assert_eq!(out.status.code(), Some(2), "k = {k}");
            assert_eq!(
                stderr,
                format!("symdim: {k} binds and facts: more than 10000, the limit MAX_FACTS\n")
            );
            assert!(out.stdout.is_empty());
        }
        // The same count of binds (of one symbol to one value: one binding).
        let mut args = vec!["infer", m.as_str()];
        args.extend(std::iter::repeat_n(["--bind", "batch=4"], k).flatten());
        let out = symdim(&args);
        let want = if k <= symdim::context::facts::MAX_FACTS {
            0
        } else {
            2
        };
        assert_eq!(out.status.code(), Some(want), "{k} binds");
    }
}

#[test]
fn cost_plot_writes_an_svg_and_needs_its_file_and_values() {
    let out = tmp("cost.svg");
    let _ = std::fs::remove_file(&out);
    let o = out.to_str().unwrap();
    let ok = symdim(&[
        "cost",
        &example(),
        "--bind",
        "batch=2",
        "--plot",
        "sequence=1..64",
        "-o",
        o,
    ]);
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    // The report is printed as without --plot.
    let plain = symdim(&["cost", &example(), "--bind", "batch=2"]);
    assert_eq!(ok.stdout, plain.stdout);
    let svg = std::fs::read_to_string(&out).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    for (args, says) in [
        (vec!["--plot", "sequence=1..64"], "--plot needs -o"),
        (vec!["-o", o], "-o is the file of --plot"),
        (vec!["--plot", "sequence=1..", "-o", o], "give both ends"),
        (
            vec!["--plot", "sequence=1..64", "-o", o, "--bind", "x=1"],
            "symdim:",
        ),
    ] {
        let mut a = vec!["cost", "examples/attention.onnx"];
        a.extend(args.iter().copied());
        let r = Command::new(env!("CARGO_BIN_EXE_symdim"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(&a)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{a:?}: {err}");
        assert!(err.contains(says), "{a:?}: {err}");
    }
    // Without batch's value the plot names what it needs.
    let r = symdim(&["cost", &example(), "--plot", "sequence=1..64", "-o", o]);
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("--bind batch=INT"));
}

/// `symdim infer --strict`: exit 1 when a rank or dim is unknown for a reason other
/// than the data (here an op without a rule), listing each on stderr after the
/// report; `--strict=all` also for a dim the data decides (NonZero's count). The
/// report on stdout is the same bytes as without the flag.
#[test]
fn infer_strict_lists_unknowns_by_reason() {
    use crate::common::pb::{graph, model, node, value_info};
    // `x: [N, 3]`: `NonZero(x)` is [2, nz] with nz from the data; `Mystery` has no
    // rule, so `m` has an unknown rank.
    let data = model(graph(
        vec![node("nz", "NonZero", &["x"], &["idx"])],
        vec![],
        vec![value_info("x", 1, Some(&["N", "3"]))],
        vec![value_info("idx", 7, None)],
        vec![],
    ));
    let custom = model(graph(
        vec![node("odd", "Mystery", &["x"], &["m"])],
        vec![],
        vec![value_info("x", 1, Some(&["N", "3"]))],
        vec![value_info("m", 1, None)],
        vec![],
    ));
    let (pd, pc) = (tmp("strict_data.onnx"), tmp("strict_custom.onnx"));
    std::fs::write(&pd, data).unwrap();
    std::fs::write(&pc, custom).unwrap();
    let (pd, pc) = (pd.to_str().unwrap(), pc.to_str().unwrap());
    let plain = symdim(&["infer", pd]);
    let strict = symdim(&["infer", pd, "--strict"]);
    assert_eq!(strict.status.code(), Some(0));
    assert_eq!(strict.stdout, plain.stdout);
    let all = symdim(&["infer", pd, "--strict=all"]);
    assert_eq!(all.status.code(), Some(1));
    assert_eq!(all.stdout, plain.stdout);
    let err = String::from_utf8(all.stderr).unwrap();
    assert_eq!(err, "symdim: strict: idx[1] = nz0: data at nz (NonZero)\n");
    let custom = symdim(&["infer", pc, "--strict"]);
    assert_eq!(custom.status.code(), Some(1));
    let err = String::from_utf8(custom.stderr).unwrap();
    assert_eq!(
        err,
        "symdim: strict: m: unknown rank: no-rule at odd (Mystery)\n"
    );
}
