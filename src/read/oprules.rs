//! Shape rules declared in a text file (`--op-rules FILE`): output dims as expressions
//! of the grammar (`docs/grammar.md`) over input dims, attributes and constants, for
//! custom ops that symdim has no built-in rule for. `docs/op-rules.md` describes the
//! format; this module reads it into [`OpRules`], and `crate::ops::declared` applies a
//! rule to a node.
//!
//! ```text
//! # A pool that halves the last axis.
//! op com.example:HalvePool version 1..
//!   attr stride = 2
//!   require in0[-1] % @stride == 0
//!   output dtype=in0 shape=[in0[0:-1], in0[-1] / @stride]
//! ```
//!
//! ```
//! use symdim::read::oprules::OpRules;
//! let rules = OpRules::parse("op com.example:Twice\n  output shape=[2*in0[0]]\n").unwrap();
//! assert_eq!(rules.len(), 1);
//! assert!(rules.find("com.example", "Twice", 1).is_some());
//! ```

use crate::algebra::parse::{parse_expr, Expr, ParseError};
use crate::algebra::Rel;
use crate::graph::DType;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

/// The longest rules file (or text) read, in bytes: a larger one is refused before
/// it is parsed.
pub const MAX_RULES_BYTES: usize = 4 << 20;

/// Declared shape rules, in file order. Cloning is cheap (the rules are shared).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpRules {
    rules: Arc<Vec<DeclaredRule>>,
}

/// One declared rule: the op it is for and what it says about the outputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeclaredRule {
    /// Where the rule is written: the file (or `<text>`) and the line of its `op`.
    pub at: Location,
    /// The op's domain, `""` for the default ONNX domain (`ai.onnx` is read as `""`).
    pub domain: String,
    /// The op type, as the model spells it.
    pub op_type: String,
    /// The first version the rule is for.
    pub since: i64,
    /// The last version the rule is for; `None`: every later version.
    pub until: Option<i64>,
    /// Attribute defaults, for a node that lacks the attribute.
    pub defaults: Vec<(String, AttrValue)>,
    /// Conditions the inputs must meet (`require` lines).
    pub requires: Vec<Requirement>,
    /// One entry per output, in order.
    pub outputs: Vec<OutputSpec>,
}

/// A place in a rules file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The file's path as given, or `<text>` for rules read from a string.
    pub origin: String,
    /// The line, from 1.
    pub line: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.origin, self.line)
    }
}

/// An attribute default: an integer or a list of integers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttrValue {
    /// `attr k = 2`.
    Int(i64),
    /// `attr pads = [0, 0]`.
    Ints(Vec<i64>),
}

/// A `require` line: `lhs REL rhs`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirement {
    /// Its line.
    pub line: usize,
    /// The condition as written.
    pub text: String,
    /// The left side.
    pub lhs: RuleExpr,
    /// The comparison.
    pub rel: Rel,
    /// The right side.
    pub rhs: RuleExpr,
}

/// An `output` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputSpec {
    /// Its line.
    pub line: usize,
    /// The element type.
    pub dtype: DTypeSpec,
    /// The shape.
    pub shape: ShapeSpec,
    /// The contents (row-major), for a small integer output such as a shape.
    pub value: Option<Vec<Item>>,
}

/// An output's element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DTypeSpec {
    /// A fixed type (`dtype=f32`, `dtype=int64`).
    Fixed(DType),
    /// The type of input `i` (`dtype=in1`).
    SameAs(usize),
}

/// An output's shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShapeSpec {
    /// The shape of input `i` (`shape=in0`).
    SameAs(usize),
    /// A list of dims and slices of input shapes (`shape=[in0[0], 2*in0[1], in1[2:]]`).
    Dims(Vec<Item>),
}

/// One entry of a shape or value list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// One dim.
    Dim(RuleExpr),
    /// The dims of input `input` from `start` to `end` (Python slice bounds; negative
    /// counts from the end; `None` is the start or end): `in0[1:]`, `in0[:-1]`.
    Slice {
        /// The input.
        input: usize,
        /// The first axis.
        start: Option<i64>,
        /// One past the last axis.
        end: Option<i64>,
        /// Read the input's contents (`val0[1:]`) rather than its dims.
        value: bool,
    },
    /// `?`: a dim of the data (a fresh symbol named after the node's output and
    /// axis), as for a dim no formula gives.
    Unknown,
}

/// What an expression of a rule refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ref {
    /// Dim `axis` of input `input` (`in0[1]`; negative counts from the end).
    Dim {
        /// The input.
        input: usize,
        /// The axis.
        axis: i64,
    },
    /// The rank of input `input` (`rank(in0)`).
    Rank {
        /// The input.
        input: usize,
    },
    /// Element `index` of the contents of input `input` (`val1[0]`), a shape input.
    Value {
        /// The input.
        input: usize,
        /// The element (negative counts from the end).
        index: i64,
    },
    /// An integer attribute (`@axis`).
    Attr {
        /// The attribute.
        name: String,
    },
    /// An element of an integer-list attribute (`@pads[0]`).
    AttrElem {
        /// The attribute.
        name: String,
        /// The element (negative counts from the end).
        index: i64,
    },
}

impl fmt::Display for Ref {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ref::Dim { input, axis } => write!(f, "in{input}[{axis}]"),
            Ref::Rank { input } => write!(f, "rank(in{input})"),
            Ref::Value { input, index } => write!(f, "val{input}[{index}]"),
            Ref::Attr { name } => write!(f, "@{name}"),
            Ref::AttrElem { name, index } => write!(f, "@{name}[{index}]"),
        }
    }
}

/// An expression of a rule: the grammar's `expr` whose names are references. In
/// [`RuleExpr::expr`] reference `i` is the symbol [`RuleExpr::placeholder`]`(i)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleExpr {
    /// The expression as written.
    pub text: String,
    /// The parsed expression.
    pub expr: Expr,
    /// The references, by placeholder number.
    pub refs: Vec<Ref>,
}

impl RuleExpr {
    /// The symbol that stands for reference `i` in [`RuleExpr::expr`]. It cannot be
    /// written in a rule (rules refuse backquoted names).
    pub fn placeholder(i: usize) -> String {
        format!("#{i}")
    }

    /// The reference a symbol of [`RuleExpr::expr`] stands for.
    pub fn reference(&self, symbol: &str) -> Option<&Ref> {
        let i: usize = symbol.strip_prefix('#')?.parse().ok()?;
        self.refs.get(i)
    }
}

/// Why a rules file cannot be used: the file, the line and what is wrong.
#[derive(Debug, thiserror::Error)]
pub enum OpRulesError {
    /// The file cannot be read: missing, unreadable, or not a regular file (a FIFO, a
    /// device or a directory is refused unread, as a model file is).
    #[error("{file}: cannot read the op rules: {source}")]
    Read {
        /// The path as given.
        file: String,
        /// The reason.
        source: crate::read::files::FileError,
    },
    /// A line of the file is wrong.
    #[error("{at}: {problem}")]
    Syntax {
        /// The file (or `<text>`) and the line.
        at: Location,
        /// What is wrong.
        problem: Problem,
    },
}

impl OpRulesError {
    /// The line of a [`OpRulesError::Syntax`] error.
    pub fn line(&self) -> Option<usize> {
        match self {
            OpRulesError::Syntax { at, .. } => Some(at.line),
            OpRulesError::Read { .. } => None,
        }
    }
}

/// What is wrong with a line of a rules file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    /// The text is larger than [`MAX_RULES_BYTES`].
    #[error("the rules are {bytes} bytes, above the limit of {MAX_RULES_BYTES}")]
    TooLarge {
        /// The size.
        bytes: usize,
    },
    /// The file is not UTF-8 text: the line holds the first byte that is not.
    #[error("the rules are not UTF-8 text")]
    NotUtf8,
    /// A line starts with a word that is not `op`, `attr`, `require` or `output`.
    #[error("unknown keyword `{word}` (expected op, attr, require or output)")]
    UnknownKeyword {
        /// The word.
        word: String,
    },
    /// An `attr`, `require` or `output` line before any `op` line.
    #[error("`{keyword}` before any `op` line")]
    OutsideRule {
        /// The keyword.
        keyword: &'static str,
    },
    /// An `op` line without an op type, or with a bad one.
    #[error("bad op `{text}`: expected `op [DOMAIN:]OP_TYPE [version A[..[B]]]`")]
    BadOp {
        /// The rest of the line.
        text: String,
    },
    /// A version range that does not read.
    #[error("bad version range `{text}`: expected `A`, `A..` or `A..B` with A <= B")]
    BadVersion {
        /// The range as written.
        text: String,
    },
    /// A rule without an `output` line.
    #[error("the rule for {op} has no output line")]
    NoOutputs {
        /// The op, `domain:type`.
        op: String,
    },
    /// Two rules for the same op whose versions overlap.
    #[error("the rule for {op} overlaps the one at {other} (their versions overlap)")]
    Overlap {
        /// The op, `domain:type`.
        op: String,
        /// Where the other rule is.
        other: Location,
    },
    /// An `attr` line that is not `attr NAME = INT` or `attr NAME = [INT, ...]`.
    #[error(
        "bad attribute default `{text}`: expected `attr NAME = INT` or `attr NAME = [INT, ...]`"
    )]
    BadAttr {
        /// The rest of the line.
        text: String,
    },
    /// A `require` line that is not `EXPR REL EXPR`.
    #[error("bad condition `{text}`: expected EXPR (==, !=, >=, <=, >, <) EXPR")]
    BadRequire {
        /// The condition as written.
        text: String,
    },
    /// An `output` field that is not `dtype=`, `shape=` or `value=`.
    #[error("unknown output field `{field}` (expected dtype=, shape= or value=)")]
    UnknownField {
        /// The field as written.
        field: String,
    },
    /// An `output` field given twice.
    #[error("output field `{field}` given twice")]
    RepeatedField {
        /// The field's name.
        field: &'static str,
    },
    /// An `output` line without `shape=`.
    #[error("the output has no shape= field")]
    NoShape,
    /// A `dtype=` that is neither an element type nor `inN`.
    #[error(
        "unknown element type `{text}` (expected a type such as f32, i64, float, int64, or inN)"
    )]
    BadDType {
        /// The type as written.
        text: String,
    },
    /// A `shape=` or `value=` that is neither `inN` nor a bracketed list.
    #[error("bad {field} `{text}`: expected [ITEM, ...]{}", if *field == "shape" { " or inN" } else { "" })]
    BadList {
        /// `shape` or `value`.
        field: &'static str,
        /// What was written.
        text: String,
    },
    /// A slice item that does not read (`in0[1:x]`).
    #[error("bad slice `{text}`: expected inN[A:B] or valN[A:B] with integer A, B (either may be left out)")]
    BadSlice {
        /// The item as written.
        text: String,
    },
    /// A reference that does not read (`in[0]`, `rank(x)`, `@`).
    #[error("bad reference `{text}` in `{expr}`: expected inN[K], rank(inN), valN[K], @NAME or @NAME[K]")]
    BadReference {
        /// The reference as written.
        text: String,
        /// The whole expression.
        expr: String,
    },
    /// A name in an expression that is not a reference.
    #[error("`{name}` in `{expr}` is not a reference (expected inN[K], rank(inN), valN[K], @NAME or @NAME[K])")]
    NotAReference {
        /// The name.
        name: String,
        /// The whole expression.
        expr: String,
    },
    /// An expression that does not parse: the grammar's error, on the expression
    /// as written (its position counted in that text).
    #[error("`{}` does not parse: expected {} at byte {}", .0.text, .0.expected, .0.pos)]
    BadExpr(ParseError),
}

impl OpRules {
    /// No rules.
    pub fn new() -> OpRules {
        OpRules::default()
    }

    /// Read rules from text (errors name the origin `<text>`).
    pub fn parse(text: &str) -> Result<OpRules, OpRulesError> {
        OpRules::parse_named(text, "<text>")
    }

    /// Read rules from text, naming `origin` (a file's path) in errors.
    pub fn parse_named(text: &str, origin: &str) -> Result<OpRules, OpRulesError> {
        let rules = parse_rules(text, origin)?;
        let out = OpRules::default();
        out.merged(rules)
    }

    /// Read a rules file (a regular file of at most [`MAX_RULES_BYTES`], UTF-8).
    pub fn from_file(path: &Path) -> Result<OpRules, OpRulesError> {
        let file = path.display().to_string();
        let at = |line: usize| Location {
            origin: file.clone(),
            line,
        };
        let bytes = read_limited(path).map_err(|source| OpRulesError::Read {
            file: file.clone(),
            source,
        })?;
        let bytes = bytes.map_err(|bytes| OpRulesError::Syntax {
            at: at(1),
            problem: Problem::TooLarge { bytes },
        })?;
        match String::from_utf8(bytes) {
            Ok(text) => OpRules::parse_named(&text, &file),
            Err(e) => {
                let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
                let line = 1 + good.iter().filter(|&&b| b == b'\n').count();
                Err(OpRulesError::Syntax {
                    at: at(line),
                    problem: Problem::NotUtf8,
                })
            }
        }
    }

    /// These rules followed by `other`'s; an op whose versions overlap between the
    /// two is an error naming both places.
    pub fn merge(&self, other: &OpRules) -> Result<OpRules, OpRulesError> {
        self.merged(other.rules.to_vec())
    }

    fn merged(&self, more: Vec<DeclaredRule>) -> Result<OpRules, OpRulesError> {
        let mut all: Vec<DeclaredRule> = self.rules.to_vec();
        for r in more {
            if let Some(other) = all.iter().find(|o| overlaps(o, &r)) {
                return Err(OpRulesError::Syntax {
                    at: r.at.clone(),
                    problem: Problem::Overlap {
                        op: r.op_name(),
                        other: other.at.clone(),
                    },
                });
            }
            all.push(r);
        }
        Ok(OpRules {
            rules: Arc::new(all),
        })
    }

    /// The number of rules.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// True when there is no rule.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Every rule, in order.
    pub fn iter(&self) -> impl Iterator<Item = &DeclaredRule> {
        self.rules.iter()
    }

    /// The rule for version `version` of `domain:op_type` (`ai.onnx` is `""`).
    pub fn find(&self, domain: &str, op_type: &str, version: i64) -> Option<&DeclaredRule> {
        if self.rules.is_empty() {
            return None;
        }
        let domain = crate::graph::canonical_domain(domain);
        self.rules.iter().find(|r| {
            r.domain == domain
                && r.op_type == op_type
                && r.since <= version
                && r.until.map_or(true, |u| version <= u)
        })
    }
}

impl DeclaredRule {
    /// `domain:op_type`, or the op type alone in the default domain.
    pub fn op_name(&self) -> String {
        if self.domain.is_empty() {
            self.op_type.clone()
        } else {
            format!("{}:{}", self.domain, self.op_type)
        }
    }
}

fn overlaps(a: &DeclaredRule, b: &DeclaredRule) -> bool {
    a.domain == b.domain
        && a.op_type == b.op_type
        && a.until.map_or(true, |u| b.since <= u)
        && b.until.map_or(true, |u| a.since <= u)
}

/// The bytes of a regular file of at most [`MAX_RULES_BYTES`] (`Err(size)` when
/// larger).
fn read_limited(path: &Path) -> Result<Result<Vec<u8>, usize>, crate::read::files::FileError> {
    use std::io::Read as _;
    let (file, _) = crate::read::files::open_regular(path)?;
    let mut bytes = Vec::new();
    file.take(MAX_RULES_BYTES as u64 + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() > MAX_RULES_BYTES {
        return Ok(Err(bytes.len()));
    }
    Ok(Ok(bytes))
}

/// Parse the rules of `text`, in order (overlaps are checked by the caller).
fn parse_rules(text: &str, origin: &str) -> Result<Vec<DeclaredRule>, OpRulesError> {
    let at = |line: usize| Location {
        origin: origin.to_string(),
        line,
    };
    if text.len() > MAX_RULES_BYTES {
        return Err(OpRulesError::Syntax {
            at: at(1),
            problem: Problem::TooLarge { bytes: text.len() },
        });
    }
    let mut rules: Vec<DeclaredRule> = Vec::new();
    let finish = |r: &DeclaredRule| -> Result<(), OpRulesError> {
        if r.outputs.is_empty() {
            return Err(OpRulesError::Syntax {
                at: r.at.clone(),
                problem: Problem::NoOutputs { op: r.op_name() },
            });
        }
        Ok(())
    };
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let err = |problem: Problem| OpRulesError::Syntax {
            at: at(line),
            problem,
        };
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let (word, rest) = match content.find(char::is_whitespace) {
            Some(p) => (&content[..p], content[p..].trim()),
            None => (content, ""),
        };
        if word == "op" {
            if let Some(prev) = rules.last() {
                finish(prev)?;
            }
            let (domain, op_type, since, until) = parse_op(rest).map_err(err)?;
            rules.push(DeclaredRule {
                at: at(line),
                domain,
                op_type,
                since,
                until,
                defaults: Vec::new(),
                requires: Vec::new(),
                outputs: Vec::new(),
            });
            continue;
        }
        let keyword = match word {
            "attr" => "attr",
            "require" => "require",
            "output" => "output",
            _ => {
                return Err(err(Problem::UnknownKeyword {
                    word: word.to_string(),
                }))
            }
        };
        let Some(rule) = rules.last_mut() else {
            return Err(err(Problem::OutsideRule { keyword }));
        };
        match keyword {
            "attr" => rule.defaults.push(parse_attr(rest).map_err(err)?),
            "require" => rule.requires.push(parse_require(rest, line).map_err(err)?),
            _ => rule.outputs.push(parse_output(rest, line).map_err(err)?),
        }
    }
    if let Some(last) = rules.last() {
        finish(last)?;
    }
    // Overlaps within one text.
    for (i, r) in rules.iter().enumerate() {
        if let Some(other) = rules[..i].iter().find(|o| overlaps(o, r)) {
            return Err(OpRulesError::Syntax {
                at: r.at.clone(),
                problem: Problem::Overlap {
                    op: r.op_name(),
                    other: other.at.clone(),
                },
            });
        }
    }
    Ok(rules)
}

type OpHead = (String, String, i64, Option<i64>);

/// `[DOMAIN:]OP_TYPE [version A[..[B]]]`.
fn parse_op(rest: &str) -> Result<OpHead, Problem> {
    let bad = || Problem::BadOp {
        text: rest.to_string(),
    };
    let mut words = rest.split_whitespace();
    let name = words.next().ok_or_else(bad)?;
    let (domain, op_type) = match name.rsplit_once(':') {
        Some((d, t)) => (d, t),
        None => ("", name),
    };
    let ok_char = |c: char| c.is_ascii_alphanumeric() || "_.-".contains(c);
    if op_type.is_empty() || !op_type.chars().all(ok_char) || !domain.chars().all(ok_char) {
        return Err(bad());
    }
    let domain = crate::graph::canonical_domain(domain).to_string();
    let (since, until) = match (words.next(), words.next(), words.next()) {
        (None, _, _) => (1, None),
        (Some("version"), Some(range), None) => parse_versions(range)?,
        _ => return Err(bad()),
    };
    Ok((domain, op_type.to_string(), since, until))
}

/// `A`, `A..` or `A..B`.
fn parse_versions(range: &str) -> Result<(i64, Option<i64>), Problem> {
    let bad = || Problem::BadVersion {
        text: range.to_string(),
    };
    let num = |s: &str| s.trim().parse::<i64>().ok().filter(|v| *v >= 0);
    match range.split_once("..") {
        None => {
            let v = num(range).ok_or_else(bad)?;
            Ok((v, Some(v)))
        }
        Some((a, "")) => Ok((num(a).ok_or_else(bad)?, None)),
        Some((a, b)) => {
            let (a, b) = (num(a).ok_or_else(bad)?, num(b).ok_or_else(bad)?);
            if a > b {
                return Err(bad());
            }
            Ok((a, Some(b)))
        }
    }
}

/// `NAME = INT` or `NAME = [INT, ...]`.
fn parse_attr(rest: &str) -> Result<(String, AttrValue), Problem> {
    let bad = || Problem::BadAttr {
        text: rest.to_string(),
    };
    let (name, value) = rest.split_once('=').ok_or_else(bad)?;
    let (name, value) = (name.trim(), value.trim());
    if !is_ident(name) {
        return Err(bad());
    }
    let int = |s: &str| s.trim().parse::<i64>().ok();
    let value = if let Some(list) = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
        let list = list.trim();
        if list.is_empty() {
            AttrValue::Ints(Vec::new())
        } else {
            AttrValue::Ints(
                list.split(',')
                    .map(int)
                    .collect::<Option<_>>()
                    .ok_or_else(bad)?,
            )
        }
    } else {
        AttrValue::Int(int(value).ok_or_else(bad)?)
    };
    Ok((name.to_string(), value))
}

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `EXPR REL EXPR`.
fn parse_require(rest: &str, line: usize) -> Result<Requirement, Problem> {
    let bad = || Problem::BadRequire {
        text: rest.to_string(),
    };
    // The first comparison operator outside brackets (`==`, `!=`, `>=`, `<=`, `=`,
    // `>`, `<`).
    let bytes = rest.as_bytes();
    let mut depth = 0i32;
    let mut found = None;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'=' | b'!' | b'<' | b'>' if depth == 0 => {
                let two = bytes.get(i + 1) == Some(&b'=');
                let (rel, len) = match (b, two) {
                    (b'=', true) => (Rel::Eq, 2),
                    (b'=', false) => (Rel::Eq, 1),
                    (b'!', true) => (Rel::Ne, 2),
                    (b'!', false) => return Err(bad()),
                    (b'<', true) => (Rel::Le, 2),
                    (b'<', false) => (Rel::Lt, 1),
                    (b'>', true) => (Rel::Ge, 2),
                    (_, _) => (Rel::Gt, 1),
                };
                found = Some((i, rel, len));
                break;
            }
            _ => {}
        }
    }
    let (pos, rel, len) = found.ok_or_else(bad)?;
    let (l, r) = (rest[..pos].trim(), rest[pos + len..].trim());
    if l.is_empty() || r.is_empty() {
        return Err(bad());
    }
    Ok(Requirement {
        line,
        text: rest.to_string(),
        lhs: parse_rule_expr(l)?,
        rel,
        rhs: parse_rule_expr(r)?,
    })
}

/// `[dtype=T] shape=S [value=V]`, fields in any order.
fn parse_output(rest: &str, line: usize) -> Result<OutputSpec, Problem> {
    let mut dtype = None;
    let mut shape = None;
    let mut value = None;
    for field in split_fields(rest) {
        let (key, val) = match field.split_once('=') {
            Some((k, v)) => (k.trim(), v.trim()),
            None => (field, ""),
        };
        let unknown = || Problem::UnknownField {
            field: field.to_string(),
        };
        match key {
            "dtype" => {
                if dtype.is_some() {
                    return Err(Problem::RepeatedField { field: "dtype" });
                }
                dtype = Some(parse_dtype(val)?);
            }
            "shape" => {
                if shape.is_some() {
                    return Err(Problem::RepeatedField { field: "shape" });
                }
                shape = Some(match input_index(val, "in") {
                    Some(i) => ShapeSpec::SameAs(i),
                    None => ShapeSpec::Dims(parse_list(val, "shape")?),
                });
            }
            "value" => {
                if value.is_some() {
                    return Err(Problem::RepeatedField { field: "value" });
                }
                value = Some(parse_list(val, "value")?);
            }
            _ => return Err(unknown()),
        }
    }
    Ok(OutputSpec {
        line,
        dtype: dtype.unwrap_or(DTypeSpec::SameAs(0)),
        shape: shape.ok_or(Problem::NoShape)?,
        value,
    })
}

/// The fields of an `output` line: split at whitespace outside brackets, a field
/// running on while the next word has no `=` (`shape=[a, b]` holds spaces).
fn split_fields(rest: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = None;
    let bytes = rest.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            _ => {}
        }
        if b.is_ascii_whitespace() {
            if depth <= 0 {
                if let Some(s) = start.take() {
                    out.push(&rest[s..i]);
                }
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push(&rest[s..]);
    }
    out
}

/// `f32`, `i64`, `float`, `int64`, `FLOAT`, or `inN`.
fn parse_dtype(text: &str) -> Result<DTypeSpec, Problem> {
    if let Some(i) = input_index(text, "in") {
        return Ok(DTypeSpec::SameAs(i));
    }
    let lower = text.to_ascii_lowercase();
    if let Some(t) = DType::from_short_name(&lower) {
        if !matches!(t, DType::Undefined) {
            return Ok(DTypeSpec::Fixed(t));
        }
    }
    (0..=28)
        .map(DType::from_i32)
        .find(|t| {
            !matches!(t, DType::Undefined)
                && t.onnx_name().is_some_and(|n| n.eq_ignore_ascii_case(text))
        })
        .map(DTypeSpec::Fixed)
        .ok_or_else(|| Problem::BadDType {
            text: text.to_string(),
        })
}

/// `N` of `inN` (`prefix` `in` or `val`), for a whole word.
fn input_index(text: &str, prefix: &str) -> Option<usize> {
    let digits = text.strip_prefix(prefix)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.len() > 6 {
        return None;
    }
    digits.parse().ok()
}

/// `[ITEM, ...]`.
fn parse_list(text: &str, field: &'static str) -> Result<Vec<Item>, Problem> {
    let bad = || Problem::BadList {
        field,
        text: text.to_string(),
    };
    let inner = text
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .ok_or_else(bad)?;
    if inner.trim().is_empty() {
        return Ok(Vec::new());
    }
    // Split at commas outside brackets.
    let mut items = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, b) in inner.bytes().enumerate() {
        match b {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b',' if depth == 0 => {
                items.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        if depth < 0 {
            return Err(bad());
        }
    }
    items.push(&inner[start..]);
    items.into_iter().map(|s| parse_item(s.trim())).collect()
}

/// A slice `inN[A:B]` / `valN[A:B]`, or an expression.
fn parse_item(text: &str) -> Result<Item, Problem> {
    if text == "?" {
        return Ok(Item::Unknown);
    }
    if let Some(open) = text.find('[') {
        let (head, tail) = (&text[..open], &text[open + 1..]);
        let (is_in, is_val) = (
            input_index(head, "in").is_some(),
            input_index(head, "val").is_some(),
        );
        if let Some(inner) = tail.strip_suffix(']').filter(|i| i.contains(':')) {
            if (is_in || is_val) && !inner.contains('[') {
                let bad = || Problem::BadSlice {
                    text: text.to_string(),
                };
                let input = input_index(head, if is_in { "in" } else { "val" }).ok_or_else(bad)?;
                let (a, b) = inner.split_once(':').ok_or_else(bad)?;
                let bound = |s: &str| -> Result<Option<i64>, Problem> {
                    let s = s.trim();
                    if s.is_empty() {
                        Ok(None)
                    } else {
                        s.parse().map(Some).map_err(|_| bad())
                    }
                };
                return Ok(Item::Slice {
                    input,
                    start: bound(a)?,
                    end: bound(b)?,
                    value: is_val,
                });
            }
        }
    }
    if text.is_empty() {
        return Err(Problem::BadExpr(ParseError {
            text: String::new(),
            pos: 0,
            expected: "an expression",
        }));
    }
    Ok(Item::Dim(parse_rule_expr(text)?))
}

/// Parse an expression of the grammar whose names are references: each reference is
/// replaced by a placeholder symbol, the result parsed by the grammar's parser.
pub fn parse_rule_expr(text: &str) -> Result<RuleExpr, Problem> {
    let bad_ref = |r: &str| Problem::BadReference {
        text: r.to_string(),
        expr: text.to_string(),
    };
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 8);
    // (offset in `out`, offset in `text`) at each replacement, to map parse errors.
    let mut marks: Vec<(usize, usize)> = Vec::new();
    let mut refs: Vec<Ref> = Vec::new();
    let mut i = 0;
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'`' {
            return Err(Problem::NotAReference {
                name: text[i..].to_string(),
                expr: text.to_string(),
            });
        }
        let word_start = i == 0 || !ident(bytes[i - 1]);
        let rest = &text[i..];
        let (reference, len) = if b == b'@' {
            let name_len = rest[1..].bytes().take_while(|&c| ident(c)).count();
            let name = &rest[1..1 + name_len];
            if !is_ident(name) {
                return Err(bad_ref(&rest[..(1 + name_len).max(1)]));
            }
            let after = &rest[1 + name_len..];
            match bracket_int(after) {
                Some((index, blen)) => (
                    Ref::AttrElem {
                        name: name.to_string(),
                        index,
                    },
                    1 + name_len + blen,
                ),
                None if after.starts_with('[') => {
                    let end = after.find(']').map_or(after.len(), |c| c + 1);
                    return Err(bad_ref(&rest[..1 + name_len + end]));
                }
                None => (
                    Ref::Attr {
                        name: name.to_string(),
                    },
                    1 + name_len,
                ),
            }
        } else if word_start && b.is_ascii_alphabetic() {
            let wlen = rest.bytes().take_while(|&c| ident(c)).count();
            let word = &rest[..wlen];
            let after = &rest[wlen..];
            if let Some(input) = input_index(word, "in").or_else(|| input_index(word, "val")) {
                let Some((index, blen)) = bracket_int(after) else {
                    return Err(bad_ref(word));
                };
                let r = if word.starts_with("in") {
                    Ref::Dim { input, axis: index }
                } else {
                    Ref::Value { input, index }
                };
                (r, wlen + blen)
            } else if word == "rank" {
                // rank(inN)
                let inner = after.strip_prefix('(').and_then(|a| {
                    let close = a.find(')')?;
                    Some((a[..close].trim(), close + 2))
                });
                let Some((arg, alen)) = inner else {
                    return Err(bad_ref(word));
                };
                let input = input_index(arg, "in").ok_or_else(|| bad_ref(&rest[..wlen + alen]))?;
                (Ref::Rank { input }, wlen + alen)
            } else {
                out.push_str(word);
                i += wlen;
                continue;
            }
        } else {
            // One character (whole UTF-8 sequence) copied as is.
            let clen = rest.chars().next().map_or(1, char::len_utf8);
            out.push_str(&rest[..clen]);
            i += clen;
            continue;
        };
        let n = refs
            .iter()
            .position(|r| *r == reference)
            .unwrap_or_else(|| {
                refs.push(reference);
                refs.len() - 1
            });
        marks.push((out.len(), i));
        out.push('`');
        out.push_str(&RuleExpr::placeholder(n));
        out.push('`');
        marks.push((out.len(), i + len));
        i += len;
    }
    let expr = parse_expr(&out).map_err(|e: ParseError| {
        // The position in `text`: from the last mark at or before the error.
        let pos = marks
            .iter()
            .rev()
            .find(|(o, _)| *o <= e.pos)
            .map_or(e.pos, |(o, t)| t + (e.pos - o))
            .min(text.len());
        Problem::BadExpr(ParseError {
            text: text.to_string(),
            pos,
            expected: e.expected,
        })
    })?;
    // Every name must be a placeholder; the message names the rightmost that is not.
    let not_a_ref = expr.symbols().into_iter().rev().find(|s| {
        !s.strip_prefix('#')
            .and_then(|n| n.parse::<usize>().ok())
            .is_some_and(|n| n < refs.len())
    });
    if let Some(s) = not_a_ref {
        return Err(Problem::NotAReference {
            name: s.to_string(),
            expr: text.to_string(),
        });
    }
    Ok(RuleExpr {
        text: text.to_string(),
        expr,
        refs,
    })
}

/// `[K]` at the start of `s` with an integer `K` (optionally negative): `K` and the
/// length read.
fn bracket_int(s: &str) -> Option<(i64, usize)> {
    let inner = s.strip_prefix('[')?;
    let close = inner.find(']')?;
    let k = inner[..close].trim().parse::<i64>().ok()?;
    Some((k, close + 2))
}

#[cfg(test)]
mod tests;
