//! `symdim ranges` as text, JSON and the three strings engines take
//! (`docs/ranges.md`):
//!
//! - `trtexec`: `--minShapes=NAME:DxD,... --optShapes=... --maxShapes=...`, a name
//!   with `:` quoted `'input:0'`, a scalar `NAME:scalar`;
//! - `ort-trt`: `trt_profile_min_shapes=NAME:DxD,...` and the `opt` and `max` lines;
//! - `openvino`: `NAME[LO..HI,D,...],...`, a dim fixed over the box as one number.
//!
//! Every graph input is listed, static ones too, in graph order.

use super::{InputProfile, Ranges};
use crate::algebra::poly::render_symbol;
use crate::contracts::render::where_from;
use std::fmt::Write as _;

/// The strings engines take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PasteFormat {
    /// trtexec's `--minShapes`, `--optShapes`, `--maxShapes`.
    Trtexec,
    /// onnxruntime's TensorRT provider options `trt_profile_*_shapes`.
    OrtTrt,
    /// OpenVINO's `benchmark_app -shape` and `ovc --input`.
    OpenVino,
}

impl Ranges {
    /// The report as JSON (one object, pretty-printed, with a final newline).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    /// The report as text (see `docs/ranges.md`).
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "model: {}", self.model);
        if !self.facts.is_empty() {
            let _ = writeln!(s, "facts: {}", self.facts.join(", "));
        }
        let opt = |v: Option<i64>| v.map(|v| v.to_string()).unwrap_or_else(|| "-".into());
        let _ = writeln!(s, "symbols:");
        if self.symbols.is_empty() {
            let _ = writeln!(s, "  none");
        }
        for r in &self.symbols {
            let mut name = render_symbol(&r.name);
            for l in &r.linked {
                let _ = write!(name, " = {}", render_symbol(l));
            }
            let hi = r.hi.map(|h| h.to_string()).unwrap_or_default();
            let mut line = format!("  {name}  {}..{hi}", r.lo);
            if let Some(st) = &r.step {
                let _ = write!(line, "  {}", step_text(st));
            }
            let _ = write!(
                line,
                "  min {}  opt {}  max {}",
                opt(r.min),
                opt(r.opt),
                opt(r.max)
            );
            if let Some(f) = &r.max_from {
                let _ = write!(line, " ({f})");
            }
            let _ = writeln!(s, "{line}");
            for c in &r.conditions {
                let _ = writeln!(s, "      {}  {}", c.condition, where_from(c));
            }
        }
        if !self.relations.is_empty() {
            let _ = writeln!(s, "relations:");
            for r in &self.relations {
                let _ = writeln!(
                    s,
                    "  {}  {}  {}",
                    r.condition.condition,
                    where_from(&r.condition),
                    r.status
                );
                for g in &r.gave_up {
                    let _ = writeln!(s, "      gave up {g}");
                }
            }
        }
        if !self.caveats.is_empty() {
            let _ = writeln!(s, "caveats (no dim value decides them):");
            for c in &self.caveats {
                let _ = writeln!(s, "  {}  {}", c.condition, where_from(c));
            }
        }
        if !self.problems.is_empty() {
            let _ = writeln!(s, "problems:");
            for p in &self.problems {
                let _ = writeln!(s, "  {p}");
            }
        }
        let _ = writeln!(s, "inputs:");
        for i in &self.inputs {
            let shape = |d: &Option<Vec<i64>>| match d {
                Some(d) if d.is_empty() => "scalar".to_string(),
                Some(d) => dims_x(d),
                None => "-".to_string(),
            };
            let _ = writeln!(
                s,
                "  {}  min {}  opt {}  max {}",
                i.name,
                shape(&i.min),
                shape(&i.opt),
                shape(&i.max)
            );
        }
        let _ = writeln!(s, "tensors (over the box; bytes: an upper bound):");
        for t in &self.tensors {
            let dims = match &t.dims {
                Some(d) => d
                    .iter()
                    .map(|b| {
                        let (lo, hi) = (opt(b.lo), opt(b.hi));
                        if b.lo.is_some() && b.lo == b.hi {
                            lo
                        } else {
                            format!("{lo}..{hi}")
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
                None => "?".to_string(),
            };
            let bytes = match t.max_bytes {
                Some(b) if t.at_max => format!("{b} B (at max)"),
                Some(b) => format!("{b} B"),
                None => "unbounded".to_string(),
            };
            let _ = writeln!(s, "  {}  {} [{dims}]  {bytes}", t.name, t.dtype);
        }
        let _ = writeln!(
            s,
            "activations: {}",
            match self.activations_max_bytes {
                Some(b) => format!("at most {b} B"),
                None => "unbounded".to_string(),
            }
        );
        s
    }

    /// The string an engine takes, with a final newline; `Err` lists why not (a
    /// problem of the report, a name the format cannot write, a shape without
    /// values).
    pub fn to_paste(&self, format: PasteFormat) -> Result<String, Vec<String>> {
        if !self.problems.is_empty() {
            return Err(self.problems.clone());
        }
        let mut why = Vec::new();
        for i in &self.inputs {
            if let Some(bad) = unwritable(&i.name, format) {
                why.push(format!("input {:?}: {bad}", i.name));
            }
            if i.min.is_none() || i.opt.is_none() || i.max.is_none() {
                why.push(format!(
                    "input {:?}: its shape has no value at every point of the profile",
                    i.name
                ));
            }
            let wide = [&i.min, &i.opt, &i.max]
                .iter()
                .any(|d| d.iter().flatten().any(|v| *v > i64::from(i32::MAX)));
            if wide && format != PasteFormat::OpenVino {
                why.push(format!(
                    "input {:?}: a dim above {} cannot be written (trtexec and onnxruntime read 32-bit integers)",
                    i.name,
                    i32::MAX
                ));
            }
            if format == PasteFormat::OrtTrt && i.min.as_ref().is_some_and(|d| d.is_empty()) {
                why.push(format!(
                    "input {:?}: onnxruntime's TensorRT options cannot write a scalar",
                    i.name
                ));
            }
        }
        if !why.is_empty() {
            return Err(why);
        }
        let list = |pick: fn(&InputProfile) -> &Option<Vec<i64>>, quote: bool| -> String {
            self.inputs
                .iter()
                .map(|i| {
                    let d = pick(i).as_deref().unwrap_or(&[]);
                    let name = if quote && i.name.contains(':') {
                        format!("'{}'", i.name)
                    } else {
                        i.name.clone()
                    };
                    let dims = if d.is_empty() {
                        "scalar".to_string()
                    } else {
                        dims_x(d)
                    };
                    format!("{name}:{dims}")
                })
                .collect::<Vec<_>>()
                .join(",")
        };
        Ok(match format {
            PasteFormat::Trtexec => format!(
                "--minShapes={} --optShapes={} --maxShapes={}\n",
                list(|i| &i.min, true),
                list(|i| &i.opt, true),
                list(|i| &i.max, true)
            ),
            PasteFormat::OrtTrt => format!(
                "trt_profile_min_shapes={}\ntrt_profile_opt_shapes={}\ntrt_profile_max_shapes={}\n",
                list(|i| &i.min, false),
                list(|i| &i.opt, false),
                list(|i| &i.max, false)
            ),
            PasteFormat::OpenVino => {
                let parts: Vec<String> = self
                    .inputs
                    .iter()
                    .map(|i| {
                        let (lo, hi) = (
                            i.min.as_deref().unwrap_or(&[]),
                            i.max.as_deref().unwrap_or(&[]),
                        );
                        let dims: Vec<String> = lo
                            .iter()
                            .zip(hi)
                            .map(|(a, b)| {
                                let (a, b) = ((*a).min(*b), (*a).max(*b));
                                if a == b {
                                    a.to_string()
                                } else {
                                    format!("{a}..{b}")
                                }
                            })
                            .collect();
                        format!("{}[{}]", i.name, dims.join(","))
                    })
                    .collect();
                format!("{}\n", parts.join(","))
            }
        })
    }
}

/// Why a name cannot be written in `format` (`None`: it can).
fn unwritable(name: &str, format: PasteFormat) -> Option<&'static str> {
    match format {
        PasteFormat::Trtexec if name.contains(',') || name.contains('\'') => {
            Some("trtexec cannot parse a name with `,` or `'`")
        }
        PasteFormat::OrtTrt if name.contains(',') || name.contains(':') => {
            Some("onnxruntime's TensorRT options cannot parse a name with `,` or `:`")
        }
        PasteFormat::OpenVino if name.contains(['[', ']', ',', '(', ')', '<']) => {
            Some("OpenVINO cannot parse a name with `[`, `]`, `,`, `(`, `)` or `<`")
        }
        _ if name.is_empty() => Some("an empty name cannot be written"),
        _ => None,
    }
}

fn dims_x(d: &[i64]) -> String {
    d.iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join("x")
}

fn step_text(st: &super::Step) -> String {
    let list = |v: &[i64]| {
        v.iter()
            .map(|r| r.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut t = if st.residues.len() == 1 && st.residues[0] == 0 {
        format!("step {}", st.modulus)
    } else {
        format!("% {} in {{{}}}", st.modulus, list(&st.residues))
    };
    if !st.also.is_empty() {
        let _ = write!(t, " and {{{}}}", list(&st.also));
    }
    if !st.except.is_empty() {
        let _ = write!(t, " but not {{{}}}", list(&st.except));
    }
    if !st.unknown.is_empty() {
        let _ = write!(
            t,
            " (unknown: % {} in {{{}}})",
            st.modulus,
            list(&st.unknown)
        );
    }
    t
}
