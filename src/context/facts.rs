//! What a caller tells inference beyond the model: symbol values, facts about the
//! symbols, the algebra's configuration, and input dims to override.
//!
//! ```
//! use symdim::Facts;
//! let facts = Facts::new()
//!     .input_dim("input_ids", 0, "batch") // make axis 0 of `input_ids` the symbol `batch`
//!     .assume("batch <= 64")
//!     .bind("sequence", 128);
//! assert_eq!(facts.binds, [("sequence".to_string(), 128)]);
//! ```

use crate::algebra::parse::{parse_expr, parse_fact, Expr, ParseError};
use crate::algebra::poly::render_symbol;
use crate::algebra::{Config, Rat};
use crate::graph::{DeclDim, Graph, Model, MAX_RANK};
use crate::read::oprules::OpRules;
use indexmap::IndexSet;

/// Facts for one inference. The default holds none: every input dim is as the
/// model declares it, and input symbols are at least 1.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    /// `NAME=INT` bindings, applied before inference (the CLI's `--bind`).
    pub binds: Vec<(String, i64)>,
    /// Facts in the expression grammar, such as `N >= 2` or `S % 8 == 0` (the CLI's
    /// `--assume`).
    pub assumes: Vec<String>,
    /// The algebra's configuration: the lower bound of input symbols and other dims,
    /// and the saturation limits.
    pub config: Config,
    /// Input dims that replace what the model declares, in order.
    pub inputs: Vec<InputDim>,
    /// Declared shape rules for ops (`--op-rules`, `docs/op-rules.md`): a node whose
    /// op one of them matches is inferred by it, in place of a built-in rule.
    pub op_rules: OpRules,
}

/// One graph input dim set by the caller instead of the model's declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputDim {
    /// The graph input's name.
    pub tensor: String,
    /// The axis.
    pub axis: usize,
    /// The dim: a constant, or a symbol name or expression of the grammar (as an
    /// ONNX `dim_param` is read).
    pub dim: DeclDim,
}

impl Facts {
    /// No facts.
    pub fn new() -> Facts {
        Facts::default()
    }

    /// Bind a symbol to a value. A negative value, or a second value for a symbol
    /// already bound, is refused when the facts are used ([`FactsError::NegativeBind`],
    /// [`FactsError::ConflictingBind`]).
    pub fn bind(mut self, name: &str, value: i64) -> Facts {
        self.binds.push((name.to_string(), value));
        self
    }

    /// Assume a fact, such as `N >= 2` or `S % 8 == 0`.
    pub fn assume(mut self, fact: &str) -> Facts {
        self.assumes.push(fact.to_string());
        self
    }

    /// Set axis `axis` of graph input `tensor` to `dim`: an integer, a symbol name or
    /// an expression of the grammar (`batch`, `2*S`), without changing the model. A
    /// negative value is refused when the facts are used
    /// ([`InputDimError::Negative`]).
    pub fn input_dim(mut self, tensor: &str, axis: usize, dim: &str) -> Facts {
        let dim = match dim.trim().parse::<i64>() {
            Ok(v) => DeclDim::Value(v),
            Err(_) => DeclDim::Param(dim.to_string()),
        };
        self.inputs.push(InputDim {
            tensor: tensor.to_string(),
            axis,
            dim,
        });
        self
    }

    /// Use declared shape rules ([`OpRules`], `docs/op-rules.md`) for the ops they
    /// name, in place of the built-in rules.
    pub fn with_op_rules(mut self, rules: OpRules) -> Facts {
        self.op_rules = rules;
        self
    }

    /// The facts of the CLI's `--bind NAME=INT` and `--assume` flags, checked as
    /// the CLI checks them before it reads a model: at most [`MAX_FACTS`] in all,
    /// each bind `NAME=INT` of a symbol name ([`parse_binds`]), each fact in the
    /// grammar ([`check_assumes`]).
    pub fn from_flags(binds: &[String], assumes: Vec<String>) -> Result<Facts, FactsError> {
        check_fact_count(binds.len(), assumes.len())?;
        let binds = parse_binds(binds)?;
        check_assumes(&assumes)?;
        Ok(Facts {
            binds,
            assumes,
            ..Facts::default()
        })
    }

    /// Use another algebra configuration (for example input symbols that may be 0:
    /// `input_lower` 0). A negative lower bound is refused when the facts are used
    /// ([`FactsError::NegativeLowerBound`]): dims are at least 0.
    pub fn with_config(mut self, config: Config) -> Facts {
        self.config = config;
        self
    }
}

/// The most binds and assumed facts, together, one inference takes: more is a usage
/// error ([`FactsError::TooManyFacts`]), checked before any is applied.
pub const MAX_FACTS: usize = 10_000;

/// Check that `binds + assumes` is at most [`MAX_FACTS`].
pub fn check_fact_count(binds: usize, assumes: usize) -> Result<(), FactsError> {
    let count = binds.saturating_add(assumes);
    if count > MAX_FACTS {
        return Err(FactsError::TooManyFacts { count });
    }
    Ok(())
}

/// Why a fact cannot be used with a model: a binding or an assumed fact that does
/// not read or names a symbol the model does not have, an input dim that does not
/// fit the graph or is negative, or a negative lower bound of the configuration.
///
/// [`Facts::validate`] returns the first one, before inference; inference itself
/// ([`fn@crate::infer`]) reports each as an error diagnostic whose cause
/// ([`crate::context::Cause::Facts`]) is this value, and leaves the fact out.
///
/// The message names the fact as the library takes it (`binding btach=4: ...`,
/// `fact seq >= 2: ...`); [`FactsError::detail`] is what is wrong alone, for a caller
/// that names the fact its own way (the CLI's `--bind btach=4: ...`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FactsError {
    /// A binding ([`parse_bind`]) that is not `NAME=INT` with a symbol name and an
    /// `i64`.
    #[error("binding {text}: {why}")]
    BadBind {
        /// The argument as given.
        text: String,
        /// What is wrong with it.
        why: BindProblem,
    },
    /// A binding of a symbol that the model's declarations do not name.
    #[error("binding {name}={value}: {}", NoSymbol { name, known })]
    UnknownBind {
        /// The symbol.
        name: String,
        /// The value.
        value: i64,
        /// The symbols the model names, in order.
        known: Vec<String>,
    },
    /// A binding of a symbol to a negative value: dims are at least 0.
    #[error("binding {name}={value}: {}", self.detail())]
    NegativeBind {
        /// The symbol.
        name: String,
        /// The value.
        value: i64,
    },
    /// A second binding of a symbol to another value.
    #[error("binding {name}={value}: {}", self.detail())]
    ConflictingBind {
        /// The symbol.
        name: String,
        /// The value of this binding.
        value: i64,
        /// The value of the first binding of the symbol.
        first: i64,
    },
    /// An assumed fact that does not parse.
    #[error("fact {text}: {error}")]
    BadAssume {
        /// The fact as given.
        text: String,
        /// The parser's error.
        error: ParseError,
    },
    /// An assumed fact about a symbol that the model's declarations do not name.
    #[error("fact {text}: {}", NoSymbol { name, known })]
    UnknownAssume {
        /// The fact as given.
        text: String,
        /// The first unknown symbol in it.
        name: String,
        /// The symbols the model names, in order.
        known: Vec<String>,
    },
    /// An input dim ([`Facts::input_dim`]) that does not fit the graph.
    #[error(transparent)]
    InputDim(#[from] InputDimError),
    /// More binds and assumed facts together than [`MAX_FACTS`].
    #[error("{count} binds and facts: more than {MAX_FACTS}, the limit MAX_FACTS")]
    TooManyFacts {
        /// The number of binds and assumed facts given.
        count: usize,
    },
    /// A lower bound of the configuration ([`Facts::with_config`]) below 0: dims are
    /// at least 0.
    #[error("{bound} is {value}: dims are at least 0")]
    NegativeLowerBound {
        /// Which bound.
        bound: LowerBound,
        /// Its value.
        value: Rat,
    },
}

/// A lower bound of the algebra's configuration ([`Config`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LowerBound {
    /// [`Config::input_lower`], of input symbols.
    Input,
    /// [`Config::dim_lower`], of every other dim symbol.
    Dim,
}

impl std::fmt::Display for LowerBound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LowerBound::Input => "the lower bound of input symbols (input_lower)",
            LowerBound::Dim => "the lower bound of other dims (dim_lower)",
        })
    }
}

impl LowerBound {
    /// The bound's value in `config`.
    pub fn of(self, config: &Config) -> &Rat {
        match self {
            LowerBound::Input => &config.input_lower,
            LowerBound::Dim => &config.dim_lower,
        }
    }
}

/// The lower bounds of `config` that are negative, as errors, in the order of
/// [`LowerBound`].
pub(crate) fn negative_lower_bounds(config: &Config) -> Vec<FactsError> {
    [LowerBound::Input, LowerBound::Dim]
        .into_iter()
        .filter(|b| b.of(config).is_negative())
        .map(|bound| FactsError::NegativeLowerBound {
            bound,
            value: bound.of(config).clone(),
        })
        .collect()
}

impl FactsError {
    /// What is wrong, without naming the fact: the message after its `binding ...: `
    /// or `fact ...: ` (`the model has no symbol btach (its symbols: batch,
    /// sequence)`); of an input dim or a lower bound, the whole message, which names
    /// it.
    pub fn detail(&self) -> impl std::fmt::Display + '_ {
        Detail(self)
    }

    /// The message with the fact named as the `symdim` command's flag and argument
    /// (`--bind btach=4: the model has no symbol btach (...)`, `--assume N >= : ...`),
    /// the wording the CLI and the Python package share; an input dim or a lower
    /// bound, which no flag sets, as [`Display`](std::fmt::Display) words it.
    pub fn as_flags(&self) -> impl std::fmt::Display + '_ {
        AsFlags(self)
    }
}

/// [`FactsError::as_flags`].
struct AsFlags<'a>(&'a FactsError);

impl std::fmt::Display for AsFlags<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let e = self.0;
        match e {
            FactsError::BadBind { text, .. } => write!(f, "--bind {text}: {}", e.detail()),
            FactsError::UnknownBind { name, value, .. }
            | FactsError::NegativeBind { name, value }
            | FactsError::ConflictingBind { name, value, .. } => {
                write!(f, "--bind {name}={value}: {}", e.detail())
            }
            FactsError::BadAssume { text, .. } | FactsError::UnknownAssume { text, .. } => {
                write!(f, "--assume {text}: {}", e.detail())
            }
            FactsError::InputDim(_)
            | FactsError::NegativeLowerBound { .. }
            | FactsError::TooManyFacts { .. } => write!(f, "{e}"),
        }
    }
}

/// [`FactsError::detail`].
struct Detail<'a>(&'a FactsError);

impl std::fmt::Display for Detail<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            FactsError::BadBind { why, .. } => write!(f, "{why}"),
            FactsError::UnknownBind { name, known, .. }
            | FactsError::UnknownAssume { name, known, .. } => {
                write!(f, "{}", NoSymbol { name, known })
            }
            FactsError::NegativeBind { .. } => {
                write!(f, "the value is negative: dims are at least 0")
            }
            FactsError::ConflictingBind { name, first, .. } => {
                write!(f, "{} is already bound to {first}", render_symbol(name))
            }
            FactsError::BadAssume { error, .. } => write!(f, "{error}"),
            FactsError::InputDim(e) => write!(f, "{e}"),
            FactsError::NegativeLowerBound { .. } | FactsError::TooManyFacts { .. } => {
                write!(f, "{}", self.0)
            }
        }
    }
}

/// Why an input dim the caller set ([`Facts::input_dim`]) cannot be applied.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InputDimError {
    /// The graph has no input of that name.
    #[error("input dim {tensor}[{axis}]: the graph has no input `{tensor}` (inputs: {})", .inputs.join(", "))]
    NoSuchInput {
        /// The input named.
        tensor: String,
        /// The axis.
        axis: usize,
        /// The graph's inputs, in order.
        inputs: Vec<String>,
    },
    /// The input's rank is not known: it declares none, or one above
    /// [`MAX_RANK`], which inference takes as unknown.
    #[error("input dim {tensor}[{axis}]: the input's rank is unknown")]
    UnknownRank {
        /// The input.
        tensor: String,
        /// The axis.
        axis: usize,
    },
    /// The axis is not below the input's rank.
    #[error("input dim {tensor}[{axis}]: the input has rank {rank}")]
    AxisPastRank {
        /// The input.
        tensor: String,
        /// The axis.
        axis: usize,
        /// The input's rank.
        rank: usize,
    },
    /// The dim is a negative integer (or an expression of a constant negative value):
    /// dims are at least 0.
    #[error("input dim {tensor}[{axis}]: {value} is negative, and dims are at least 0")]
    Negative {
        /// The input.
        tensor: String,
        /// The axis.
        axis: usize,
        /// The value.
        value: Rat,
    },
}

impl InputDim {
    /// Check that the input dim fits graph `g`: `g` has an input of that name (the
    /// first of the name), of a declared rank (at most [`MAX_RANK`]) above the axis,
    /// and the dim is not a negative constant.
    pub fn check(&self, g: &Graph) -> Result<(), InputDimError> {
        let (tensor, axis) = (self.tensor.clone(), self.axis);
        let Some(v) = g.inputs.iter().find(|v| *v.name == *self.tensor) else {
            let inputs = g.inputs.iter().map(|v| v.name.to_string()).collect();
            return Err(InputDimError::NoSuchInput {
                tensor,
                axis,
                inputs,
            });
        };
        match v.shape.as_ref().map(Vec::len).filter(|&r| r <= MAX_RANK) {
            None => Err(InputDimError::UnknownRank { tensor, axis }),
            Some(rank) if axis >= rank => Err(InputDimError::AxisPastRank { tensor, axis, rank }),
            Some(_) => match self.constant() {
                Some(value) if value.is_negative() => Err(InputDimError::Negative {
                    tensor,
                    axis,
                    value,
                }),
                _ => Ok(()),
            },
        }
    }

    /// The dim's value when it is a constant: an integer, or an expression without
    /// symbols (`-3`, `2 - 5`).
    fn constant(&self) -> Option<Rat> {
        match &self.dim {
            DeclDim::Value(v) => Some(Rat::int(*v)),
            DeclDim::Param(p) => parse_expr(p).ok()?.eval(&|_| None),
            DeclDim::Unknown | DeclDim::Interval { .. } => None,
        }
    }
}

/// What is wrong with a binding `NAME=INT` ([`FactsError::BadBind`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BindProblem {
    /// There is no `=`.
    #[error("expected NAME=INT")]
    NoEquals,
    /// The value is not an `i64`.
    #[error("`{value}` is not an integer (i64)")]
    NotAnInteger {
        /// The value as given (trimmed).
        value: String,
    },
    /// The name is empty.
    #[error("the symbol name is empty")]
    EmptyName,
    /// The name is an expression of the grammar, not a symbol.
    #[error("`{name}` is an expression, not a symbol name")]
    Expression {
        /// The name as given (trimmed).
        name: String,
        /// The expression it parses as.
        expr: Expr,
    },
}

/// A symbol the model does not name, for the message of a [`FactsError`]: `the model
/// has no symbol btach (its symbols: batch, sequence)`.
struct NoSymbol<'a> {
    /// The symbol.
    name: &'a str,
    /// The symbols the model names.
    known: &'a [String],
}

impl std::fmt::Display for NoSymbol<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the model has no symbol {} ({})",
            render_symbol(self.name),
            KnownSymbols(self.known)
        )
    }
}

/// The known symbols of a [`FactsError`], for its message: the first few, quoted as
/// the grammar writes them.
struct KnownSymbols<'a>(&'a [String]);

impl std::fmt::Display for KnownSymbols<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const SHOWN: usize = 8;
        let names = self.0;
        if names.is_empty() {
            return f.write_str("it names none");
        }
        let list: Vec<String> = names.iter().take(SHOWN).map(|n| render_symbol(n)).collect();
        write!(f, "its symbols: {}", list.join(", "))?;
        if names.len() > SHOWN {
            write!(f, " and {} more", names.len() - SHOWN)?;
        }
        Ok(())
    }
}

/// Read a binding `NAME=INT` (the CLI's `--bind` argument): the name is a symbol as the model spells it
/// (`batch`, `input_ids.1`) or in backquotes as the grammar writes it
/// (`` `input_ids.1` ``); the value an `i64`. An empty name, an expression (`batch+1`)
/// or a value that is not an integer is an error.
pub fn parse_bind(text: &str) -> Result<(String, i64), FactsError> {
    let bad = |why: BindProblem| FactsError::BadBind {
        text: text.to_string(),
        why,
    };
    let (name, value) = text
        .rsplit_once('=')
        .ok_or_else(|| bad(BindProblem::NoEquals))?;
    let (name, value) = (name.trim(), value.trim());
    let value: i64 = value.parse().map_err(|_| {
        bad(BindProblem::NotAnInteger {
            value: value.to_string(),
        })
    })?;
    if name.is_empty() {
        return Err(bad(BindProblem::EmptyName));
    }
    // A name that parses is a plain or backquoted symbol, or an expression (refused);
    // one that does not parse (`input_ids.1`) is a symbol of that exact spelling.
    let name = match parse_expr(name) {
        Ok(expr) => match &expr {
            // An empty backquoted name (`` `` ``) names no symbol either.
            Expr::Sym(s) if s.is_empty() => return Err(bad(BindProblem::EmptyName)),
            Expr::Sym(s) => s.clone(),
            _ => {
                return Err(bad(BindProblem::Expression {
                    name: name.to_string(),
                    expr,
                }))
            }
        },
        Err(_) => name.to_string(),
    };
    Ok((name, value))
}

/// The symbols a model's declarations name, in order: those in the `dim_param`s of its
/// graph inputs, `value_info` and graph outputs, and `<tensor>.<axis>` for each unnamed
/// dynamic input dim. These are the symbols a caller can bind or assume facts about;
/// the ones inference makes up on the way (`unk0`, `r0`) stand for values of the data
/// and are not among them.
pub fn model_symbols(model: &Model) -> IndexSet<String> {
    graph_symbols(&model.graph)
}

/// [`model_symbols`] of a model's main graph.
fn graph_symbols(g: &Graph) -> IndexSet<String> {
    let mut out = IndexSet::new();
    for v in &g.inputs {
        for (axis, d) in v.shape.iter().flatten().enumerate() {
            match d {
                DeclDim::Param(p) => param_symbols(p, &mut out),
                DeclDim::Unknown | DeclDim::Interval { .. } => {
                    out.insert(format!("{}.{axis}", v.name));
                }
                DeclDim::Value(_) => {}
            }
        }
    }
    for v in g.value_info.iter().chain(&g.outputs) {
        for d in v.shape.iter().flatten() {
            if let DeclDim::Param(p) = d {
                param_symbols(p, &mut out);
            }
        }
    }
    out
}

/// The symbols of a `dim_param`: those of the expression it parses as, or the whole
/// text when it does not parse (as inference reads it).
fn param_symbols(p: &str, out: &mut IndexSet<String>) {
    match parse_expr(p) {
        Ok(e) => expr_symbols(&e, out),
        Err(_) => {
            out.insert(p.to_string());
        }
    }
}

/// The symbols of an expression, in order of first appearance.
fn expr_symbols(e: &Expr, out: &mut IndexSet<String>) {
    out.extend(e.symbols().into_iter().map(str::to_string));
}

impl Facts {
    /// Check the facts against `model` before inference, for a caller who wants to
    /// fail fast: the configuration's lower bounds are at least 0, every bind names a
    /// symbol of the model ([`model_symbols`], with the symbols of
    /// [`Facts::inputs`]), every assumed fact parses and mentions only such symbols,
    /// and every input dim fits the graph and is not negative ([`InputDim::check`]).
    /// Returns the first problem, in that order.
    ///
    /// A bind of a symbol the model does not have would change nothing, so `symdim
    /// check` would call the model valid for a value never applied; the CLI makes it
    /// a usage error. Inference without this check reports the same problems as
    /// error diagnostics ([`FactsError`]) and goes on without those facts.
    pub fn validate(&self, model: &Model) -> Result<(), FactsError> {
        if let Some(e) = negative_lower_bounds(&self.config).into_iter().next() {
            return Err(e);
        }
        check_fact_count(self.binds.len(), self.assumes.len())?;
        check_binds(&self.binds)?;
        if !self.binds.is_empty() || !self.assumes.is_empty() {
            let known = self.known_symbols(&model.graph);
            for (name, value) in &self.binds {
                check_bind(name, *value, &known)?;
            }
            for text in &self.assumes {
                check_assume(text, &known)?;
            }
        }
        for i in &self.inputs {
            i.check(&model.graph)?;
        }
        Ok(())
    }

    /// The facts that `model` can take: each bind and each assume whose symbols
    /// the model declares (what [`Facts::validate`] accepts), for a caller that
    /// gives one set of facts to two versions of a model (`symdim diff`). The
    /// rest of the facts (input dims, op rules, the configuration) are kept.
    pub fn for_model(&self, model: &Model) -> Facts {
        let known = self.known_symbols(&model.graph);
        let mut out = self.clone();
        out.binds
            .retain(|(name, value)| check_bind(name, *value, &known).is_ok());
        out.assumes
            .retain(|text| check_assume(text, &known).is_ok());
        out
    }

    /// The symbols these facts may bind or assume facts about with graph `g`: those
    /// its declarations name ([`model_symbols`]) and those of the input dims set.
    pub(crate) fn known_symbols(&self, g: &Graph) -> IndexSet<String> {
        let mut known = graph_symbols(g);
        for i in &self.inputs {
            if let DeclDim::Param(p) = &i.dim {
                param_symbols(p, &mut known);
            }
        }
        known
    }
}

/// Check that a bind `name = value` names one of the `known` symbols.
pub(crate) fn check_bind(
    name: &str,
    value: i64,
    known: &IndexSet<String>,
) -> Result<(), FactsError> {
    if known.contains(name) {
        return Ok(());
    }
    Err(FactsError::UnknownBind {
        name: name.to_string(),
        value,
        known: known.iter().cloned().collect(),
    })
}

/// Check that an assumed fact parses and mentions only `known` symbols.
pub(crate) fn check_assume(text: &str, known: &IndexSet<String>) -> Result<(), FactsError> {
    let fact = parse_fact(text).map_err(|error| FactsError::BadAssume {
        text: text.to_string(),
        error,
    })?;
    let mut used = IndexSet::new();
    expr_symbols(&fact.lhs, &mut used);
    expr_symbols(&fact.rhs, &mut used);
    match used.into_iter().find(|s| !known.contains(s)) {
        Some(name) => Err(FactsError::UnknownAssume {
            text: text.to_string(),
            name,
            known: known.iter().cloned().collect(),
        }),
        None => Ok(()),
    }
}

/// Binds in the CLI's `NAME=INT` text ([`parse_bind`]), checked together
/// ([`check_binds`]: no negative value, no symbol bound twice to different values).
pub fn parse_binds(texts: &[String]) -> Result<Vec<(String, i64)>, FactsError> {
    let binds = texts
        .iter()
        .map(|t| parse_bind(t))
        .collect::<Result<Vec<_>, _>>()?;
    check_binds(&binds)?;
    Ok(binds)
}

/// Check the values of bindings, before a model is read: a negative value
/// ([`FactsError::NegativeBind`]) or a second, different value for a symbol
/// ([`FactsError::ConflictingBind`]) is refused; the same value twice is one binding.
pub fn check_binds(binds: &[(String, i64)]) -> Result<(), FactsError> {
    let mut first: std::collections::HashMap<&str, i64> = std::collections::HashMap::new();
    for (name, value) in binds {
        check_bind_value(name, *value, first.get(name.as_str()).copied())?;
        first.entry(name).or_insert(*value);
    }
    Ok(())
}

/// Check one binding's value given the symbol's earlier binding, if any (see
/// [`check_binds`]).
pub(crate) fn check_bind_value(
    name: &str,
    value: i64,
    earlier: Option<i64>,
) -> Result<(), FactsError> {
    if value < 0 {
        return Err(FactsError::NegativeBind {
            name: name.to_string(),
            value,
        });
    }
    match earlier {
        Some(first) if first != value => Err(FactsError::ConflictingBind {
            name: name.to_string(),
            value,
            first,
        }),
        _ => Ok(()),
    }
}

/// Check that every assumed fact parses, before a model is read (the symbols are checked
/// against the model by [`Facts::validate`]).
pub fn check_assumes(assumes: &[String]) -> Result<(), FactsError> {
    for text in assumes {
        parse_fact(text).map_err(|error| FactsError::BadAssume {
            text: text.clone(),
            error,
        })?;
    }
    Ok(())
}
