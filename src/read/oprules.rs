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

mod parse;

pub use parse::parse_rule_expr;
use parse::parse_rules;

use crate::algebra::parse::{Expr, ParseError};
use crate::algebra::Rel;
use crate::graph::DType;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

/// The longest rules file (or text) read, in bytes: a larger one is refused before
/// it is parsed.
pub const MAX_RULES_BYTES: usize = 4 << 20;

/// The most rules, over every file together ([`Problem::TooManyRules`] past it).
pub const MAX_RULES: usize = 65_536;

/// The most rules files (or texts) merged into one [`OpRules`]
/// ([`Problem::TooManyFiles`] past it): with [`MAX_RULES_BYTES`] it bounds the text
/// read.
pub const MAX_RULE_FILES: usize = 64;

/// Declared shape rules, in file order. Cloning is cheap (the rules are shared).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpRules {
    rules: Arc<Vec<DeclaredRule>>,
    /// Per domain and op type, the rules' positions in `rules` by first version:
    /// their version ranges do not overlap, so this order is also by last version.
    index: Arc<RuleIndex>,
    /// The number of files (or texts) the rules come from.
    files: usize,
}

/// Domain, then op type, then first version: the position of a rule.
type RuleIndex = BTreeMap<String, BTreeMap<String, BTreeMap<i64, usize>>>;

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
    /// More than [`MAX_RULES`] rules over every file together: the line of the first
    /// rule past the limit.
    #[error("more than {MAX_RULES} rules in all, the limit MAX_RULES")]
    TooManyRules,
    /// More than [`MAX_RULE_FILES`] rules files: the first file past the limit.
    #[error("more than {MAX_RULE_FILES} rules files, the limit MAX_RULE_FILES")]
    TooManyFiles,
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
        let mut out = OpRules {
            files: 1,
            ..OpRules::default()
        };
        for r in rules {
            if out.len() >= MAX_RULES {
                return Err(too_many_rules(&r));
            }
            if let Some(other) = out.overlapping(&r) {
                return Err(overlap(&r, other));
            }
            out.insert(r);
        }
        Ok(out)
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
    /// two is an error naming both places (see [`OpRules::extend`]).
    pub fn merge(&self, other: &OpRules) -> Result<OpRules, OpRulesError> {
        let mut out = self.clone();
        out.extend(other)?;
        Ok(out)
    }

    /// Add `other`'s rules after these, in place; an op whose versions overlap
    /// between the two is an error naming both places, as are more than
    /// [`MAX_RULES`] rules or [`MAX_RULE_FILES`] files in all. On an error `self` is
    /// unchanged.
    pub fn extend(&mut self, other: &OpRules) -> Result<(), OpRulesError> {
        if self.files + other.files > MAX_RULE_FILES {
            let at = other.rules.first().map_or_else(
                || Location {
                    origin: "<text>".to_string(),
                    line: 1,
                },
                |r| Location {
                    origin: r.at.origin.clone(),
                    line: 1,
                },
            );
            return Err(OpRulesError::Syntax {
                at,
                problem: Problem::TooManyFiles,
            });
        }
        if let Some(r) = other.rules.get(MAX_RULES.saturating_sub(self.len())) {
            return Err(too_many_rules(r));
        }
        // `other`'s rules do not overlap one another: each is checked against these.
        for r in other.rules.iter() {
            if let Some(o) = self.overlapping(r) {
                return Err(overlap(r, o));
            }
        }
        for r in other.rules.iter() {
            self.insert(r.clone());
        }
        self.files += other.files;
        Ok(())
    }

    /// Read rules files in order, merged ([`OpRules::from_file`], [`OpRules::extend`]):
    /// more than [`MAX_RULE_FILES`] is an error before the first file past the limit
    /// is read.
    pub fn from_files<P: AsRef<Path>>(paths: &[P]) -> Result<OpRules, OpRulesError> {
        let mut rules = OpRules::new();
        for (i, path) in paths.iter().enumerate() {
            if i >= MAX_RULE_FILES {
                return Err(OpRulesError::Syntax {
                    at: Location {
                        origin: path.as_ref().display().to_string(),
                        line: 1,
                    },
                    problem: Problem::TooManyFiles,
                });
            }
            rules.extend(&OpRules::from_file(path.as_ref())?)?;
        }
        Ok(rules)
    }

    /// The versions of `domain:op_type` (canonical domain) in the index.
    fn versions(&self, domain: &str, op_type: &str) -> Option<&BTreeMap<i64, usize>> {
        self.index.get(domain)?.get(op_type)
    }

    /// The first rule, in file order, whose versions overlap `r`'s (same op).
    fn overlapping(&self, r: &DeclaredRule) -> Option<&DeclaredRule> {
        use std::ops::Bound::{Excluded, Included, Unbounded};
        let versions = self.versions(&r.domain, &r.op_type)?;
        // The one starting at or before `r` and every one starting inside `r`'s
        // range: the only candidates, since the ranges do not overlap one another.
        let before = versions.range(..=r.since).next_back();
        let upper = r.until.map_or(Unbounded, Included);
        let inside = versions.range((Excluded(r.since), upper));
        before
            .into_iter()
            .chain(inside)
            .map(|(_, &i)| i)
            .filter(|&i| overlaps(&self.rules[i], r))
            .min()
            .map(|i| &self.rules[i])
    }

    /// Append a rule that overlaps none of these.
    fn insert(&mut self, r: DeclaredRule) {
        let at = self.rules.len();
        Arc::make_mut(&mut self.index)
            .entry(r.domain.clone())
            .or_default()
            .entry(r.op_type.clone())
            .or_default()
            .insert(r.since, at);
        Arc::make_mut(&mut self.rules).push(r);
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
        let (_, &i) = self
            .versions(domain, op_type)?
            .range(..=version)
            .next_back()?;
        let r = &self.rules[i];
        r.until.map_or(true, |u| version <= u).then_some(r)
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

/// The error for rule `r`, the first past [`MAX_RULES`].
fn too_many_rules(r: &DeclaredRule) -> OpRulesError {
    OpRulesError::Syntax {
        at: r.at.clone(),
        problem: Problem::TooManyRules,
    }
}

/// The error for rule `r` overlapping `other`.
fn overlap(r: &DeclaredRule, other: &DeclaredRule) -> OpRulesError {
    OpRulesError::Syntax {
        at: r.at.clone(),
        problem: Problem::Overlap {
            op: r.op_name(),
            other: other.at.clone(),
        },
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

#[cfg(test)]
mod tests;
