//! The dim algebra: symbolic dimensions in an e-graph.
//!
//! Every dim is a [`Dim`], a handle to an e-class of an [`egg`] e-graph over
//! [`DimLang`]. One e-class analysis ([`analysis`]) gives each class its canonical
//! form (an expanded polynomial with exact rational coefficients over symbols and
//! opaque operator terms), its value bounds, and, through the symbol table, its
//! known divisors. A table of named rewrite rules ([`rules`]) simplifies the opaque
//! operators under side conditions. Saturation is incremental (only classes that
//! are new or changed are searched) and stops at deterministic limits, never at a
//! wall-clock limit.
//!
//! ```
//! use symdim_algebra::{Algebra, Truth};
//! let mut alg = Algebra::default();
//! let b = alg.input("B");
//! let s = alg.input("S");
//! let n768 = alg.constant(768);
//! let twelve = alg.constant(12);
//! let sixty_four = alg.constant(64);
//! // Reshape [B, S, 768] to [0, -1, 12, 64]: the -1 is S.
//! let p = alg.product(&[s, n768]);
//! let k = alg.product(&[twelve, sixty_four]);
//! let q = alg.div(p, k).unwrap();
//! assert_eq!(alg.render(q), "S");
//! let bs = alg.mul(b, s);
//! let sb = alg.mul(s, b);
//! assert_eq!(alg.equal(bs, sb), Truth::True);
//! ```

#![deny(missing_docs)]

pub mod analysis;
pub mod expr;
pub mod interval;
pub mod lang;
pub mod parse;
pub mod poly;
pub mod rational;
pub mod rules;

pub use analysis::{Contradiction, Operand, Refutation, SymbolEntry, SymbolKind};
pub use expr::{DimExpr, DimList, EvalError, SymbolValues};
pub use interval::{Bound, Interval};
pub use lang::DimLang;
pub use parse::{Expr, Fact, ParseError, Rel};
pub use poly::{OpKind, Poly};
pub use rational::Rat;

use analysis::{default_bounds, DimAnalysis, DimGraph};
use egg::{Id, Symbol};
use indexmap::IndexMap;
use poly::SymbolInfo;
use std::borrow::Cow;
use std::fmt;

/// A handle to a dim expression (an e-class) in an [`Algebra`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Dim(Id);

impl Dim {
    /// The e-class id.
    pub fn id(self) -> Id {
        self.0
    }
}

/// A three-valued answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Truth {
    /// Proven for every value of the symbols.
    True,
    /// Proven false for every value of the symbols.
    False,
    /// Neither could be proven.
    Unknown,
}

impl Truth {
    /// Three-valued disjunction: true when either side is, false when both are.
    pub fn or(self, other: Truth) -> Truth {
        match (self, other) {
            (Truth::True, _) | (_, Truth::True) => Truth::True,
            (Truth::False, Truth::False) => Truth::False,
            _ => Truth::Unknown,
        }
    }

    /// Three-valued conjunction: false when either side is, true when both are.
    pub fn and(self, other: Truth) -> Truth {
        match (self, other) {
            (Truth::False, _) | (_, Truth::False) => Truth::False,
            (Truth::True, Truth::True) => Truth::True,
            _ => Truth::Unknown,
        }
    }
}

impl fmt::Display for Truth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Truth::True => "proven",
            Truth::False => "disproven",
            Truth::Unknown => "unknown",
        })
    }
}

/// [`Algebra::sum`] and [`Algebra::product`] of more dims than this pair them as a
/// balanced tree: each partial result is a class holding its canonical form, so a
/// left fold over `n` distinct dims would hold `n²/2` terms (a Concat of thousands of
/// symbolic inputs would take gigabytes); the tree holds `n log n`. The result is the
/// same form.
const BALANCED_ABOVE: usize = 16;

/// Deterministic limits on saturation. Past a limit the algebra stops simplifying
/// and records a warning; results stay sound, only less simplified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Rule applications per saturation call.
    pub rule_applications: usize,
    /// E-nodes in the whole e-graph; past it new expressions become fresh named dims.
    pub enodes: usize,
    /// Nodes of one canonical form ([`poly::Poly::nodes`]); past it the expression
    /// becomes a fresh named dim.
    pub form_nodes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            rule_applications: 512,
            enodes: 2_000_000,
            form_nodes: 16_384,
        }
    }
}

/// How an [`Algebra`] is set up.
#[derive(Clone, Debug)]
pub struct Config {
    /// Lower bound of input symbols (default 1).
    pub input_lower: Rat,
    /// Lower bound of every other dim symbol (default 0: dims may be 0).
    pub dim_lower: Rat,
    /// Saturation limits.
    pub limits: Limits,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            input_lower: Rat::one(),
            dim_lower: Rat::zero(),
            limits: Limits::default(),
        }
    }
}

/// Errors of algebra operations. Each carries its operands as values.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AlgebraError {
    /// Text did not parse.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// A division whose divisor is provably zero.
    #[error("division of {dividend} by zero")]
    DivisionByZero {
        /// The dividend.
        dividend: DimExpr,
    },
    /// An exact division that does not provably divide.
    #[error("need {divisor} | {dividend}; residual {residual}{}", if *.proven { " (proven not to divide)" } else { "" })]
    NotDivisible {
        /// The dividend.
        dividend: DimExpr,
        /// The divisor.
        divisor: DimExpr,
        /// The quotient that could not be proven to be an integer.
        residual: DimExpr,
        /// True when it provably never divides (for example a constant remainder).
        proven: bool,
    },
    /// Two sides asserted equal are provably different: the sides and why.
    #[error("{0}")]
    Contradiction(Box<Contradiction>),
    /// An expression past the algebra's size limits ([`Limits`]): the algebra could
    /// hold it only as a placeholder symbol ([`AlgebraWarning::placeholder`]), which
    /// names no value, so there is no answer to give.
    #[error("too large for the algebra's limits: {warning}")]
    TooLarge {
        /// The warning that made the placeholder.
        warning: AlgebraWarning,
    },
}

impl AlgebraError {
    /// A [`AlgebraError::Contradiction`].
    pub fn contradiction(c: Contradiction) -> AlgebraError {
        AlgebraError::Contradiction(Box::new(c))
    }
}

/// A warning from the algebra (saturation limits).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AlgebraWarning {
    /// The rule-application limit stopped a saturation.
    RuleLimit {
        /// The limit that was reached.
        limit: usize,
        /// The expression being simplified.
        expr: DimExpr,
    },
    /// A product too large to expand was kept as an opaque product: the result is
    /// sound but no longer in canonical form (equal expressions may print differently).
    ProductTooLarge {
        /// The expression.
        expr: DimExpr,
    },
    /// A rule result much larger than the form it would replace was refused
    /// (`rules::GROWTH_FACTOR`, `rules::MAX_GROWTH`): the expression stays in the
    /// smaller, equally sound form.
    GrowthLimit {
        /// The expression whose rewrite was refused.
        expr: DimExpr,
    },
    /// A canonical form grew past `Limits::form_nodes`; the expression became a
    /// fresh dim.
    FormLimit {
        /// The limit that was reached.
        limit: usize,
        /// The fresh dim (a data-dependent symbol).
        fresh: DimExpr,
    },
    /// The e-node limit was reached; the expression became a fresh dim.
    NodeLimit {
        /// The limit that was reached.
        limit: usize,
        /// The fresh dim (a data-dependent symbol).
        fresh: DimExpr,
    },
}

impl AlgebraWarning {
    /// The placeholder symbol a size limit put in place of an expression
    /// ([`AlgebraWarning::FormLimit`], [`AlgebraWarning::NodeLimit`]); `None` for the
    /// warnings whose result is the expression itself, only less simplified.
    ///
    /// A placeholder is a fresh symbol of its algebra, numbered from `big0` in each:
    /// two algebras can give the same name to different expressions.
    pub fn placeholder(&self) -> Option<&DimExpr> {
        match self {
            AlgebraWarning::FormLimit { fresh, .. } | AlgebraWarning::NodeLimit { fresh, .. } => {
                Some(fresh)
            }
            AlgebraWarning::RuleLimit { .. }
            | AlgebraWarning::ProductTooLarge { .. }
            | AlgebraWarning::GrowthLimit { .. } => None,
        }
    }
}

impl fmt::Display for AlgebraWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AlgebraWarning::RuleLimit { limit, expr } => {
                write!(
                    f,
                    "saturation stopped after {limit} rule applications while simplifying {expr}"
                )
            }
            AlgebraWarning::ProductTooLarge { expr } => {
                write!(
                    f,
                    "a product too large to expand (over {} terms) stays unexpanded: {expr}",
                    poly::MAX_TERMS
                )
            }
            AlgebraWarning::GrowthLimit { expr } => {
                write!(
                    f,
                    "a rewrite of {expr} to a form over {} times its size was refused",
                    rules::GROWTH_FACTOR
                )
            }
            AlgebraWarning::FormLimit { limit, fresh } => {
                write!(
                    f,
                    "an expression grew past {limit} nodes; it became the fresh dim {fresh}"
                )
            }
            AlgebraWarning::NodeLimit { limit, fresh } => {
                write!(f, "the e-graph reached {limit} e-nodes; the expression became the fresh dim {fresh}")
            }
        }
    }
}

/// The result of solving Reshape's `-1`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MinusOne {
    /// The quotient in closed form.
    Exact(Dim),
    /// The quotient is not provably an integer: a fresh named dim `q` with the
    /// recorded relation `known * q == product`.
    Fresh {
        /// The fresh dim.
        dim: Dim,
        /// The quotient that could not be proven to be an integer.
        residual: DimExpr,
    },
}

/// A key that identifies a fresh dim: the same key always gives the same name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FreshKey {
    /// The node that introduces it.
    pub node: String,
    /// The node's output index.
    pub output: usize,
    /// The axis.
    pub axis: usize,
}

/// A relation recorded between dims (for example `12*r0 == 48*A` for a fresh `-1`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relation {
    /// Left side.
    pub lhs: Dim,
    /// Right side.
    pub rhs: Dim,
    /// The node that needs it.
    pub node: String,
    /// Recorded inside a branch that may not run (a speculative scope): it holds
    /// only when the branch runs.
    pub conditional: bool,
    /// The two sides' canonical forms when it was recorded (later merges may make
    /// the dims themselves render alike).
    pub recorded: (DimExpr, DimExpr),
}

/// An inequality an op needs, `lhs <= rhs` (for example a reflect Pad's `pad <= dim - 1`),
/// recorded while inferring so that contracts see it even inside subgraphs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirement {
    /// The smaller side.
    pub lhs: Dim,
    /// The larger side.
    pub rhs: Dim,
    /// The node that needs it.
    pub node: String,
    /// Recorded inside a branch that may not run (a speculative scope).
    pub conditional: bool,
    /// What kind of condition it is, for reports (`pad`).
    pub kind: &'static str,
    /// The two sides' canonical forms when it was recorded.
    pub recorded: (DimExpr, DimExpr),
}

/// A symbolic dimension algebra over an e-graph.
///
/// Cloning copies the whole e-graph (used to infer the alternatives of an undecided
/// `If` separately).
#[derive(Clone)]
pub struct Algebra {
    egraph: DimGraph,
    config: Config,
    warnings: Vec<AlgebraWarning>,
    fresh: IndexMap<FreshKey, Symbol>,
    fresh_counters: IndexMap<String, usize>,
    relations: Vec<Relation>,
    requirements: Vec<Requirement>,
    disequalities: Vec<(Dim, Dim)>,
    warned_product: bool,
    speculative: u32,
    site: String,
    /// The class of each integer constant made so far: [`Algebra::constant`] finds
    /// it without hashing a new e-node.
    constants: rustc_hash::FxHashMap<i64, Id>,
}

impl Default for Algebra {
    fn default() -> Self {
        Algebra::new(Config::default())
    }
}

impl fmt::Debug for Algebra {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Algebra")
            .field("classes", &self.egraph.number_of_classes())
            .field("symbols", &self.egraph.analysis.symbols.entries.len())
            .finish()
    }
}

impl Algebra {
    /// A new, empty algebra.
    pub fn new(config: Config) -> Algebra {
        Algebra {
            egraph: DimGraph::new(DimAnalysis::default()),
            config,
            warnings: Vec::new(),
            fresh: IndexMap::new(),
            fresh_counters: IndexMap::new(),
            relations: Vec::new(),
            requirements: Vec::new(),
            disequalities: Vec::new(),
            constants: Default::default(),
            warned_product: false,
            speculative: 0,
            site: String::new(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The underlying e-graph (read-only).
    pub fn egraph(&self) -> &DimGraph {
        &self.egraph
    }

    // ----- building -------------------------------------------------------

    /// A fresh `big` dim standing for a value past a limit, with the warning
    /// `warning` makes of its name.
    fn big(&mut self, warning: impl FnOnce(DimExpr) -> AlgebraWarning) -> Dim {
        let n = self.fresh_counters.entry("big".to_string()).or_insert(0);
        let name = format!("big{n}");
        *n += 1;
        self.warnings.push(warning(DimExpr::symbol(&name)));
        self.symbol(
            &name,
            SymbolKind::DataDependent {
                node: "algebra".to_string(),
            },
        )
    }

    fn add(&mut self, node: DimLang) -> Dim {
        if self.egraph.nodes().len() >= self.config.limits.enodes
            && !matches!(node, DimLang::Num(_) | DimLang::Sym(_))
        {
            let limit = self.config.limits.enodes;
            return self.big(|fresh| AlgebraWarning::NodeLimit { limit, fresh });
        }
        let is_op = node.has_rules();
        let is_mul = matches!(node, DimLang::Mul(_));
        let id = self.egraph.add(node);
        self.sync();
        let limit = self.config.limits.form_nodes;
        if self.egraph[id].data.canon.nodes(limit) > limit {
            // Forms can double at each step (`x*x` repeated squares an opaque
            // product): past the limit the value becomes a fresh dim.
            return self.big(|fresh| AlgebraWarning::FormLimit { limit, fresh });
        }
        if is_mul && self.egraph[id].data.canon.has_opaque_product() && !self.warned_product {
            self.warned_product = true;
            let expr = DimExpr::from_poly(self.egraph[id].data.canon.clone());
            self.warnings.push(AlgebraWarning::ProductTooLarge { expr });
        }
        if is_op || !self.egraph.analysis.pending_rules.is_empty() {
            self.saturate();
        }
        Dim(self.egraph.find(id))
    }

    /// An integer constant.
    pub fn constant(&mut self, v: i64) -> Dim {
        if let Some(&id) = self.constants.get(&v) {
            self.sync();
            return Dim(self.egraph.find(id));
        }
        let d = self.add(DimLang::Num(Rat::int(v)));
        self.constants.insert(v, d.0);
        d
    }

    /// A rational constant.
    pub fn rational(&mut self, v: Rat) -> Dim {
        self.add(DimLang::Num(v))
    }

    /// An input symbol (named by the model): bounded below by `config.input_lower`.
    pub fn input(&mut self, name: &str) -> Dim {
        self.symbol(name, SymbolKind::Input)
    }

    /// A symbol of the given kind. An existing symbol keeps its kind and bounds.
    pub fn symbol(&mut self, name: &str, kind: SymbolKind) -> Dim {
        let sym = Symbol::from(name);
        if !self.egraph.analysis.symbols.entries.contains_key(&sym) {
            let lower = match kind {
                SymbolKind::Input => self.config.input_lower.clone(),
                _ => self.config.dim_lower.clone(),
            };
            let mut bounds = default_bounds(&lower);
            if let SymbolKind::Derived { definition } = &kind {
                let def_bounds = definition.bounds(&self.egraph.analysis.symbols);
                let meet = bounds.intersect(&def_bounds).to_integers();
                if !meet.is_empty() {
                    bounds = meet;
                }
            }
            self.egraph.analysis.symbols.entries.insert(
                sym,
                SymbolEntry {
                    kind,
                    bounds,
                    divisor: Rat::one(),
                },
            );
        }
        let id = self.egraph.add(DimLang::Sym(sym));
        self.sync();
        Dim(self.egraph.find(id))
    }

    /// True when a symbol of this name exists.
    pub fn has_symbol(&self, name: &str) -> bool {
        self.egraph
            .analysis
            .symbols
            .entries
            .contains_key(&Symbol::from(name))
    }

    /// A symbol's entry, by name.
    pub fn symbol_entry(&self, name: &str) -> Option<&SymbolEntry> {
        self.egraph
            .analysis
            .symbols
            .entries
            .get(&Symbol::from(name))
    }

    /// Every symbol with its entry, in creation order.
    pub fn symbols(&self) -> impl Iterator<Item = (&str, &SymbolEntry)> {
        self.egraph
            .analysis
            .symbols
            .entries
            .iter()
            .map(|(k, v)| (k.as_str(), v))
    }

    /// A fresh symbol for `key`, named `prefix` plus a counter (`r0`, `r1`, ...). The
    /// same key always returns the same symbol; names never collide with existing
    /// symbols. Deterministic: names depend only on the order of requests.
    pub fn fresh(&mut self, prefix: &str, key: FreshKey, kind: SymbolKind) -> Dim {
        if let Some(sym) = self.fresh.get(&key).copied() {
            return self.symbol(sym.as_str(), kind);
        }
        let name = loop {
            let n = self.fresh_counters.entry(prefix.to_string()).or_insert(0);
            let candidate = format!("{prefix}{n}");
            *n += 1;
            if !self.has_symbol(&candidate) {
                break candidate;
            }
        };
        self.fresh.insert(key, Symbol::from(name.as_str()));
        self.symbol(&name, kind)
    }

    /// `a + b`.
    pub fn add_dims(&mut self, a: Dim, b: Dim) -> Dim {
        self.add(DimLang::Add([a.0, b.0]))
    }

    /// `a - b`.
    pub fn sub(&mut self, a: Dim, b: Dim) -> Dim {
        self.add(DimLang::Sub([a.0, b.0]))
    }

    /// `a * b`.
    pub fn mul(&mut self, a: Dim, b: Dim) -> Dim {
        self.add(DimLang::Mul([a.0, b.0]))
    }

    /// `-a`.
    pub fn neg(&mut self, a: Dim) -> Dim {
        self.add(DimLang::Neg([a.0]))
    }

    /// `floor(a / b)`.
    pub fn floordiv(&mut self, a: Dim, b: Dim) -> Dim {
        self.add(DimLang::FloorDiv([a.0, b.0]))
    }

    /// `ceil(a / b)`.
    pub fn ceildiv(&mut self, a: Dim, b: Dim) -> Dim {
        self.add(DimLang::CeilDiv([a.0, b.0]))
    }

    /// `a mod b` (floor semantics: the sign of `b`).
    pub fn modulo(&mut self, a: Dim, b: Dim) -> Dim {
        self.add(DimLang::Mod([a.0, b.0]))
    }

    /// `min(a, b)`.
    pub fn min(&mut self, a: Dim, b: Dim) -> Dim {
        self.add(DimLang::Min([a.0, b.0]))
    }

    /// `max(a, b)`.
    pub fn max(&mut self, a: Dim, b: Dim) -> Dim {
        self.add(DimLang::Max([a.0, b.0]))
    }

    /// numpy broadcasting of two dims.
    pub fn broadcast(&mut self, a: Dim, b: Dim) -> Dim {
        self.add(DimLang::Broadcast([a.0, b.0]))
    }

    /// The exact quotient `a / b` as an expression, whether or not it is an integer
    /// (use [`Algebra::div`] to require one).
    pub fn div_rational(&mut self, a: Dim, b: Dim) -> Dim {
        self.add(DimLang::Div([a.0, b.0]))
    }

    /// The product of dims (`1` for none).
    pub fn product(&mut self, dims: &[Dim]) -> Dim {
        if dims.len() > BALANCED_ABOVE {
            let (l, r) = dims.split_at(dims.len() / 2);
            let (l, r) = (self.product(l), self.product(r));
            return self.mul(l, r);
        }
        let mut acc = self.constant(1);
        for d in dims {
            acc = self.mul(acc, *d);
        }
        acc
    }

    /// The sum of dims (`0` for none).
    pub fn sum(&mut self, dims: &[Dim]) -> Dim {
        if dims.len() > BALANCED_ABOVE {
            let (l, r) = dims.split_at(dims.len() / 2);
            let (l, r) = (self.sum(l), self.sum(r));
            return self.add_dims(l, r);
        }
        let mut acc = self.constant(0);
        for d in dims {
            acc = self.add_dims(acc, *d);
        }
        acc
    }

    /// Add a canonical form.
    pub fn from_poly(&mut self, p: &Poly) -> Dim {
        let id = rules::add_poly(&mut self.egraph, p);
        self.sync();
        self.saturate();
        Dim(self.egraph.find(id))
    }

    /// Build a canonical form from elsewhere (another algebra's, or one built by
    /// hand) in this algebra, as the expression its text denotes
    /// ([`Poly::to_expr`]): the classes, and their bounds, are those parsing
    /// `p.render()` gives. A symbol of `p` this algebra lacks is created first with
    /// its entry in `from` (kind, bounds, divisor; a derived symbol brings the
    /// symbols of its definition too), or as an input when `from` is `None` or
    /// lacks it.
    pub fn import(&mut self, p: &Poly, from: Option<&Algebra>) -> Dim {
        if let Some(src) = from {
            let mut todo = Vec::new();
            p.symbols(&mut todo);
            todo.reverse();
            while let Some(s) = todo.pop() {
                let table = &mut self.egraph.analysis.symbols.entries;
                if table.contains_key(&s) {
                    continue;
                }
                let Some(e) = src.egraph.analysis.symbols.entries.get(&s) else {
                    continue;
                };
                if let SymbolKind::Derived { definition } = &e.kind {
                    let mut deps = Vec::new();
                    definition.symbols(&mut deps);
                    todo.extend(deps.into_iter().rev());
                }
                table.insert(s, e.clone());
            }
        }
        self.from_expr(&p.to_expr())
    }

    /// Parse an expression; unknown names become input symbols.
    pub fn parse(&mut self, text: &str) -> Result<Dim, AlgebraError> {
        let e = parse::parse_expr(text)?;
        self.checked_from_expr(&e)
    }

    /// Add a parsed expression as [`Algebra::from_expr`] does, but refuse one that
    /// divides by a constant 0 (`/`, `floordiv`, `ceildiv`, `mod`): such a value is
    /// undefined.
    pub fn checked_from_expr(&mut self, e: &Expr) -> Result<Dim, AlgebraError> {
        self.build_expr(e, true)
    }

    /// Add a parsed expression; unknown names become input symbols.
    pub fn from_expr(&mut self, e: &Expr) -> Dim {
        match self.build_expr(e, false) {
            Ok(d) => d,
            Err(_) => unreachable!("only a checked build fails"),
        }
    }

    /// Add `e`; with `check`, a constant-zero divisor is an error.
    fn build_expr(&mut self, e: &Expr, check: bool) -> Result<Dim, AlgebraError> {
        match e {
            Expr::Num(r) => Ok(self.rational(r.clone())),
            Expr::Sym(s) => Ok(self.input(s)),
            Expr::Neg(a) => {
                let a = self.build_expr(a, check)?;
                Ok(self.neg(a))
            }
            Expr::Add(a, b)
            | Expr::Sub(a, b)
            | Expr::Mul(a, b)
            | Expr::Div(a, b)
            | Expr::Call(_, a, b) => {
                let x = self.build_expr(a, check)?;
                let y = self.build_expr(b, check)?;
                let divides = matches!(
                    e,
                    Expr::Div(..)
                        | Expr::Call(
                            OpKind::FloorDiv | OpKind::CeilDiv | OpKind::Mod | OpKind::Div,
                            ..
                        )
                );
                if check && divides && self.as_const(y).is_some_and(|c| c.is_zero()) {
                    return Err(AlgebraError::DivisionByZero {
                        dividend: self.expr(x),
                    });
                }
                Ok(self.add(match e {
                    Expr::Add(..) => DimLang::Add([x.0, y.0]),
                    Expr::Sub(..) => DimLang::Sub([x.0, y.0]),
                    Expr::Mul(..) => DimLang::Mul([x.0, y.0]),
                    Expr::Div(..) => DimLang::Div([x.0, y.0]),
                    Expr::Call(k, ..) => DimLang::op(*k, x.0, y.0),
                    _ => unreachable!("matched above"),
                }))
            }
        }
    }

    // ----- saturation -----------------------------------------------------

    /// Restore the e-graph's invariants when a union is pending. egg's `rebuild`
    /// visits every class, so calling it after every `add` would make building a
    /// model's dims quadratic; an `add` that merged nothing needs no rebuild (egg adds
    /// canonical e-nodes, and rule matching, [`rules::Matcher`], reads classes
    /// directly rather than through the by-operator index `rebuild` maintains).
    fn sync(&mut self) {
        if self.egraph.analysis.dirty {
            self.egraph.analysis.dirty = false;
            rebuild(&mut self.egraph);
        }
    }

    /// Apply the rule table to the classes that are new or changed, until nothing
    /// changes or the rule-application limit is reached.
    fn saturate(&mut self) {
        if self.egraph.analysis.pending_rules.is_empty() {
            return;
        }
        let limit = self.config.limits.rule_applications;
        let mut applied = 0usize;
        let mut seen_limit = false;
        // Built on the first saturation of the process (many models need none).
        let rules = rules::matchers();
        while let Some(id) = self.egraph.analysis.pending_rules.pop() {
            let mut id = self.egraph.find(id);
            let mut again = true;
            while again {
                again = false;
                for rule in rules {
                    let matches = rule.search(&self.egraph, id);
                    if matches.is_empty() {
                        continue;
                    }
                    if applied >= limit {
                        seen_limit = true;
                        break;
                    }
                    let changed = rule.apply(&mut self.egraph, id, &matches);
                    self.sync();
                    applied += 1;
                    id = self.egraph.find(id);
                    if changed {
                        again = true;
                        break;
                    }
                }
            }
            if let Some(form) = self.egraph.analysis.refused_growth.take() {
                let w = AlgebraWarning::GrowthLimit {
                    expr: DimExpr::from_poly(form),
                };
                if !self.warnings.contains(&w) {
                    self.warnings.push(w);
                }
            }
            if seen_limit {
                let expr = DimExpr::from_poly(self.egraph[id].data.canon.clone());
                self.warnings
                    .push(AlgebraWarning::RuleLimit { limit, expr });
                self.egraph.analysis.pending_rules.clear();
                break;
            }
        }
    }

    /// Re-run the rules on every operator class (after facts change what the
    /// conditions can prove).
    fn resaturate_all(&mut self) {
        let ids: Vec<Id> = self.egraph.classes().map(|c| c.id).collect();
        self.egraph
            .analysis
            .pending_rules
            .extend(ids.into_iter().rev());
        self.saturate();
    }

    // ----- reading --------------------------------------------------------

    /// The canonical form.
    pub fn canon(&self, d: Dim) -> &Poly {
        &self.egraph[d.0].data.canon
    }

    /// The canonical text form (see `docs/grammar.md`).
    pub fn render(&self, d: Dim) -> String {
        self.canon(d).render()
    }

    /// The value, when it is a constant.
    pub fn as_const(&self, d: Dim) -> Option<Rat> {
        self.canon(d).as_const()
    }

    /// The value, when it is an integer constant that fits in `i64`.
    pub fn as_i64(&self, d: Dim) -> Option<i64> {
        self.as_const(d).and_then(|r| r.to_i64())
    }

    /// The symbol, when the dim is exactly one symbol.
    pub fn as_symbol(&self, d: Dim) -> Option<&str> {
        self.canon(d).as_sym().map(|s| s.as_str())
    }

    /// Bounds of every value.
    pub fn bounds(&self, d: Dim) -> Interval {
        let data = &self.egraph[d.0].data;
        data.bounds
            .intersect(&data.canon.bounds(&self.egraph.analysis.symbols))
    }

    /// True when every value of `d` is `>= 0`: [`Algebra::bounds`] is nonnegative.
    /// Cheaper than `bounds(d).is_nonneg()` when the class's own bounds settle it.
    pub fn is_nonneg(&self, d: Dim) -> bool {
        let data = &self.egraph[d.0].data;
        data.bounds.is_nonneg() || data.canon.bounds(&self.egraph.analysis.symbols).is_nonneg()
    }

    /// Simplify and render: the canonical, deterministic text form.
    pub fn simplify(&mut self, d: Dim) -> String {
        self.egraph.analysis.pending_rules.push(d.0);
        self.saturate();
        self.render(d)
    }

    /// Evaluate at an assignment of symbols (by name).
    pub fn eval(&self, d: Dim, env: &dyn Fn(&str) -> Option<Rat>) -> Option<Rat> {
        self.canon(d).eval(&|s: Symbol| env(s.as_str()))
    }

    /// Contradictions found while merging classes.
    pub fn contradictions(&self) -> impl Iterator<Item = &Contradiction> {
        self.egraph.analysis.contradictions.iter()
    }

    /// Warnings (saturation limits), in order.
    pub fn warnings(&self) -> &[AlgebraWarning] {
        &self.warnings
    }

    /// The first warning past the first `since` ([`Algebra::warnings`]) that put a
    /// placeholder in place of an expression ([`AlgebraWarning::placeholder`]), as
    /// an error: what a scratch algebra built after its first `since` warnings
    /// cannot be answered from.
    pub fn placeholder_since(&self, since: usize) -> Result<(), AlgebraError> {
        match self
            .warnings
            .iter()
            .skip(since)
            .find(|w| w.placeholder().is_some())
        {
            Some(w) => Err(AlgebraError::TooLarge { warning: w.clone() }),
            None => Ok(()),
        }
    }

    /// Relations recorded by [`Algebra::solve_minus_one`] and by inference (equalities
    /// that hold only when a branch runs, an `If` condition a case split keeps).
    pub fn relations(&self) -> &[Relation] {
        &self.relations
    }

    /// Inequalities the model needs (`lhs <= rhs` at a node), recorded by op rules
    /// for contracts.
    pub fn requirements(&self) -> &[Requirement] {
        &self.requirements
    }

    /// Record that the model needs `lhs <= rhs` at `node` (for contracts). Inside a
    /// speculative scope it is marked conditional. Nothing is assumed.
    pub fn record_requirement(&mut self, lhs: Dim, rhs: Dim, node: &str, kind: &'static str) {
        let recorded = (self.expr(lhs), self.expr(rhs));
        self.requirements.push(Requirement {
            lhs,
            rhs,
            node: node.to_string(),
            conditional: self.speculative > 0,
            kind,
            recorded,
        });
    }

    /// Record a relation the model needs (for reports and contracts). Inside a
    /// speculative scope it is marked conditional: it holds only when the branch
    /// runs.
    pub fn record_relation(&mut self, lhs: Dim, rhs: Dim, node: &str) {
        let recorded = (self.expr(lhs), self.expr(rhs));
        self.relations.push(Relation {
            lhs,
            rhs,
            node: node.to_string(),
            conditional: self.speculative > 0,
            recorded,
        });
    }

    // ----- queries --------------------------------------------------------

    /// Replace derived symbols by their definitions (transitively, bounded).
    fn expand_derived(&self, p: &Poly) -> Poly {
        let table = &self.egraph.analysis.symbols;
        let mut cur = p.clone();
        for _ in 0..8 {
            let next = cur.substitute(&|s| match table.entries.get(&s).map(|e| &e.kind) {
                Some(SymbolKind::Derived { definition }) => Some(definition.clone()),
                _ => None,
            });
            if next == cur {
                break;
            }
            cur = next;
        }
        cur
    }

    fn decide_zero(&self, diff: &Poly) -> Truth {
        if diff.is_zero() {
            return Truth::True;
        }
        if diff.as_const().is_some() {
            return Truth::False;
        }
        let info = &self.egraph.analysis.symbols;
        if !diff.bounds(info).contains(&Rat::zero()) {
            return Truth::False;
        }
        if let Some(&id) = self.egraph.analysis.by_canon.get(diff) {
            if !self.egraph[id].data.bounds.contains(&Rat::zero()) {
                return Truth::False;
            }
        }
        // diff = m * q for the common monomial m: zero needs m == 0 or q == 0.
        // `A*A + A*S - A = A * (A + S - 1)` is never 0 for A, S >= 1.
        let m = diff.common_monomial();
        if m.as_const().is_none() {
            if let Some(q) = diff.div(&m) {
                let excludes_zero = |p: &Poly| !p.bounds(info).contains(&Rat::zero());
                if excludes_zero(&m) && excludes_zero(&q) {
                    return Truth::False;
                }
            }
        }
        // diff = (a provable multiple of g) + c: zero needs g | -c. `12*D - 25` never is.
        let c = diff.as_const_term();
        let rest = diff.sub(&Poly::constant(c.clone()));
        if let Some(g) = rest.int_divisor(info) {
            if !g.is_zero() && !c.div(&g).is_some_and(|q| q.is_integer()) {
                return Truth::False;
            }
        }
        Truth::Unknown
    }

    /// Why `a == b` is impossible, for messages: the canonical difference and its
    /// bounds, or the pair of forms (see [`Algebra::forms`]) whose difference is.
    fn refutation(&self, a: Dim, b: Dim) -> Refutation {
        let info = &self.egraph.analysis.symbols;
        let diff = self.canon(a).sub(self.canon(b));
        let difference = |diff: Poly| Refutation::Difference {
            bounds: diff.bounds(info),
            diff: DimExpr::from_poly(diff),
        };
        if self.decide_zero(&diff) == Truth::False {
            return difference(diff);
        }
        for x in self.forms(a.0) {
            for y in self.forms(b.0) {
                let d = x.sub(&y);
                if self.decide_zero(&d) == Truth::False {
                    return Refutation::OtherForms {
                        bounds: d.bounds(info),
                        left: DimExpr::from_poly(x),
                        right: DimExpr::from_poly(y),
                        diff: DimExpr::from_poly(d),
                    };
                }
            }
        }
        difference(diff)
    }

    /// A class's canonical form and the forms of (at most 8 of) its e-nodes, built
    /// from their children's canonical forms.
    fn forms(&self, id: Id) -> Vec<Poly> {
        let class = &self.egraph[id];
        let mut out = vec![class.data.canon.clone()];
        for n in class.nodes.iter().take(8) {
            let f = analysis::node_canon(&self.egraph, n);
            if !out.contains(&f) {
                out.push(f);
            }
        }
        out
    }

    /// Is `a == b` for every value of the symbols?
    pub fn equal(&self, a: Dim, b: Dim) -> Truth {
        if self.egraph.find(a.0) == self.egraph.find(b.0) {
            return Truth::True;
        }
        let diff = self.canon(a).sub(self.canon(b));
        match self.decide_zero(&diff) {
            Truth::Unknown => {}
            t => return t,
        }
        let expanded = self.expand_derived(&diff);
        match self.decide_zero(&expanded) {
            Truth::Unknown => {}
            t => return t,
        }
        // Each class may hold other forms than its canonical one (after `B == A + 1`
        // the class of `B` also holds `A + 1`): a difference of any two that is
        // provably non-zero refutes the equality. Without this, `A == B` would pass
        // as undecided and be merged, and the contradiction found only afterwards.
        let (forms_a, forms_b) = (self.forms(a.0), self.forms(b.0));
        for x in &forms_a {
            for y in &forms_b {
                if self.decide_zero(&x.sub(y)) == Truth::False {
                    return Truth::False;
                }
            }
        }
        let (fa, fb) = (self.egraph.find(a.0), self.egraph.find(b.0));
        if self.disequalities.iter().any(|(x, y)| {
            let (x, y) = (self.egraph.find(x.0), self.egraph.find(y.0));
            (x, y) == (fa, fb) || (x, y) == (fb, fa)
        }) {
            return Truth::False;
        }
        Truth::Unknown
    }

    /// Is `a <= b` for every value of the symbols? Decided by the bounds of `b - a`
    /// (as its class has them, or as a new class for it would have them, merged
    /// with a class of the same canonical form), then by the bounds of its form with
    /// `floordiv` terms relaxed ([`Poly::relaxed_bounds`]), then of that form with
    /// derived symbols expanded. Adds nothing to the e-graph.
    pub fn le(&self, a: Dim, b: Dim) -> Truth {
        // Two constants compare exactly.
        if let (Some(x), Some(y)) = (self.as_const(a), self.as_const(b)) {
            return if x <= y { Truth::True } else { Truth::False };
        }
        let info = &self.egraph.analysis.symbols;
        let (canon, bounds) = self.difference(b, a);
        let decide = |i: &Interval| {
            if i.is_nonneg() {
                Some(Truth::True)
            } else if i.is_negative() {
                Some(Truth::False)
            } else {
                None
            }
        };
        decide(&bounds)
            .or_else(|| decide(&canon.relaxed_bounds(info)))
            .or_else(|| decide(&self.expand_derived(&canon).relaxed_bounds(info)))
            .unwrap_or(Truth::Unknown)
    }

    /// The canonical form and bounds ([`Algebra::bounds`]) of `x - y`, without adding
    /// it: those of the class holding the e-node `x - y` when there is one; otherwise
    /// those a new class for it would get ([`analysis::node_data`]), merged into the
    /// class of an equal canonical form when there is one, as hash-consing by
    /// canonical form would merge it (that class stays the root of the union, since
    /// the new class has no parents).
    fn difference(&self, x: Dim, y: Dim) -> (Cow<'_, Poly>, Interval) {
        let info = &self.egraph.analysis.symbols;
        let node = DimLang::Sub([self.egraph.find(x.0), self.egraph.find(y.0)]);
        if let Some(id) = self.egraph.lookup(node.clone()) {
            let data = &self.egraph[id].data;
            let bounds = data.bounds.intersect(&data.canon.bounds(info));
            return (Cow::Borrowed(&data.canon), bounds);
        }
        let new = analysis::node_data(&self.egraph, &node);
        let Some(&other) = self.egraph.analysis.by_canon.get(&new.canon) else {
            // Already within the bounds of its canonical form.
            return (Cow::Owned(new.canon), new.bounds);
        };
        let mut merged = self.egraph[other].data.clone();
        self.egraph
            .analysis
            .merge_data(&mut merged, new, &mut Vec::new());
        let bounds = merged.bounds.intersect(&merged.canon.bounds(info));
        (Cow::Owned(merged.canon), bounds)
    }

    /// Does `d` divide `p`: is `d` never 0 and `p / d` an integer for every value?
    /// `Unknown` when `d` may be 0 (its bounds hold 0), whatever the quotient: then
    /// `p / d` cancels a factor that may vanish (`n*A / n` is `A` only where `n != 0`).
    /// A divisor that is the constant 0 divides only 0.
    pub fn divides(&self, d: Dim, p: Dim) -> Truth {
        match self.quotient(p, d) {
            (t, None) => t,
            (_, Some(_)) if !self.nonzero(d) => Truth::Unknown,
            (t, Some(_)) => t,
        }
    }

    /// True when `d` is never 0: its bounds exclude 0, also with derived symbols
    /// expanded.
    pub fn nonzero(&self, d: Dim) -> bool {
        let zero = Rat::zero();
        if !self.bounds(d).contains(&zero) {
            return true;
        }
        let expanded = self.expand_derived(self.canon(d));
        &expanded != self.canon(d)
            && !expanded
                .bounds(&self.egraph.analysis.symbols)
                .contains(&zero)
    }

    /// The quotient `p / d` as a canonical form and whether it is an integer where
    /// `d != 0` (whether `d` may be 0 is the caller's question). `None` when `d` is
    /// the constant 0; then the answer is whether `p` is 0.
    fn quotient(&self, p: Dim, d: Dim) -> (Truth, Option<Poly>) {
        let info = &self.egraph.analysis.symbols;
        let (pp, dp) = (self.canon(p), self.canon(d));
        if dp.is_zero() {
            return (
                if pp.is_zero() {
                    Truth::True
                } else {
                    Truth::False
                },
                None,
            );
        }
        let Some(q) = pp.div(dp) else {
            return (Truth::Unknown, None);
        };
        if q.int_divisor(info).is_some() {
            return (Truth::True, Some(q));
        }
        // q = (integer part) + r: a non-integer constant r proves it never divides.
        let (_, r) = q.split_multiple(&Rat::one(), info);
        if let Some(c) = r.as_const() {
            if !c.is_integer() {
                return (Truth::False, Some(q));
            }
        }
        // Expanding derived symbols may cancel the division.
        let eq = self.expand_derived(&q);
        if eq != q && eq.int_divisor(info).is_some() {
            return (Truth::True, Some(q));
        }
        (Truth::Unknown, Some(q))
    }

    /// Exact division: the quotient when `d` provably divides `p` ([`Algebra::divides`]:
    /// `d` is never 0 and the quotient is an integer), otherwise a typed error
    /// carrying the residual quotient. A divisor that may be 0 gives `NotDivisible`
    /// with `proven: false` (the residual may look like an integer: `n*A / n` has
    /// the residual `A`, valid only where `n != 0`), for the caller to record the
    /// condition; the constant 0 gives `DivisionByZero`.
    pub fn div(&mut self, p: Dim, d: Dim) -> Result<Dim, AlgebraError> {
        let (truth, q) = self.quotient(p, d);
        let Some(q) = q else {
            return Err(AlgebraError::DivisionByZero {
                dividend: self.expr(p),
            });
        };
        let truth = if self.nonzero(d) {
            truth
        } else {
            Truth::Unknown
        };
        match truth {
            Truth::True => Ok(self.from_poly(&q)),
            t => Err(AlgebraError::NotDivisible {
                dividend: self.expr(p),
                divisor: self.expr(d),
                residual: DimExpr::from_poly(q),
                proven: t == Truth::False,
            }),
        }
    }

    /// The quotient `p / d` when it is an integer wherever `d` is not 0, and whether
    /// `d` may be 0 (then the quotient holds only where it is not, and the caller
    /// records that it must not be). `None` when the quotient is not provably an
    /// integer or `d` is the constant 0. Unlike [`Algebra::div`], a divisor that may
    /// vanish still gives the quotient: `9*A / A` is `9` wherever it is defined.
    pub fn quotient_where_nonzero(&mut self, p: Dim, d: Dim) -> Option<(Dim, bool)> {
        match self.quotient(p, d) {
            (Truth::True, Some(q)) => {
                let may_be_zero = !self.nonzero(d);
                Some((self.from_poly(&q), may_be_zero))
            }
            _ => None,
        }
    }

    /// Solve Reshape's `-1`: `product(input) / product(known)`.
    ///
    /// Returns the quotient in closed form when it provably is an integer; a fresh
    /// dim (prefix `r`) with a recorded relation when it is not provably one; an
    /// error when it provably is not one or `known` is provably zero.
    ///
    /// A `-1` is defined only when the other entries multiply to a non-zero value
    /// (onnxruntime rejects the rest), so where `known` may be 0 the quotient is
    /// still exact, and the condition `1 <= known` is recorded as a requirement
    /// (kind `reshape`, [`Algebra::requirements`]) at the key's node. Likewise a
    /// quotient that is never an integer where `known != 0` is an error.
    pub fn solve_minus_one(
        &mut self,
        input: &[Dim],
        known: &[Dim],
        key: FreshKey,
    ) -> Result<MinusOne, AlgebraError> {
        let p = self.product(input);
        let k = self.product(known);
        let node = key.node.clone();
        let (truth, q) = self.quotient(p, k);
        let Some(q) = q else {
            return Err(AlgebraError::DivisionByZero {
                dividend: self.expr(p),
            });
        };
        match truth {
            Truth::True => {
                if !self.nonzero(k) {
                    let one = self.constant(1);
                    self.record_requirement(one, k, &node, "reshape");
                }
                Ok(MinusOne::Exact(self.from_poly(&q)))
            }
            Truth::False => Err(AlgebraError::NotDivisible {
                dividend: self.expr(p),
                divisor: self.expr(k),
                residual: DimExpr::from_poly(q),
                proven: true,
            }),
            Truth::Unknown => {
                let dim = self.fresh(
                    "r",
                    key,
                    SymbolKind::Derived {
                        definition: q.clone(),
                    },
                );
                let lhs = self.mul(k, dim);
                self.record_relation(lhs, p, &node);
                Ok(MinusOne::Fresh {
                    dim,
                    residual: DimExpr::from_poly(q),
                })
            }
        }
    }

    // ----- facts ----------------------------------------------------------

    /// Enter (`true`) or leave (`false`) a speculative scope, such as the branch of an
    /// If whose condition is not decided: there, [`Algebra::union`] records the
    /// equality as a relation instead of merging, because it holds only when the
    /// branch runs. Scopes nest.
    pub fn speculate(&mut self, on: bool) {
        if on {
            self.speculative += 1;
        } else {
            self.speculative = self.speculative.saturating_sub(1);
        }
    }

    /// Name the node whose rule runs now: a relation that [`Algebra::union`] records
    /// inside a speculative scope names it (instead of the union's reason). Returns
    /// the previous name, for the caller to restore (rules nest through subgraphs).
    /// The name is read only inside a speculative scope: the driver names each node
    /// there, and a rule that opens a scope names its own node before it does.
    pub fn set_site(&mut self, node: &str) -> String {
        std::mem::replace(&mut self.site, node.to_string())
    }

    /// True inside a speculative scope: while inference runs a branch that may not
    /// run, where an equality is recorded as a relation instead of merged.
    pub fn is_speculative(&self) -> bool {
        self.speculative > 0
    }

    /// Assert `a == b`. A provable contradiction is returned (and not merged).
    /// Inside a speculative scope the equality is only recorded.
    pub fn union(&mut self, a: Dim, b: Dim, reason: &str) -> Result<Dim, AlgebraError> {
        if self.equal(a, b) == Truth::False {
            return Err(AlgebraError::contradiction(Contradiction {
                left: Operand::Dim(self.expr(a)),
                right: Operand::Dim(self.expr(b)),
                reason: self.refutation(a, b),
            }));
        }
        if self.speculative > 0 {
            // Inside a branch that may not run: the equality holds only when it
            // does, so it is recorded, not merged (once: an op rule often records
            // the relation under its node's name just before the union).
            let last = self.relations.last();
            if last.is_some_and(|r| (r.lhs, r.rhs) == (a, b) || (r.lhs, r.rhs) == (b, a)) {
                return Ok(a);
            }
            let at = if self.site.is_empty() {
                reason
            } else {
                &self.site
            };
            let recorded = (self.expr(a), self.expr(b));
            self.relations.push(Relation {
                lhs: a,
                rhs: b,
                node: at.to_string(),
                conditional: true,
                recorded,
            });
            return Ok(a);
        }
        let before = self.egraph.analysis.contradictions.len();
        let diff = self.canon(a).sub(self.canon(b));
        self.egraph.union_trusted(a.0, b.0, reason);
        rebuild(&mut self.egraph);
        self.saturate();
        // A linear relation is solved for a pivot symbol, so that the symbol itself
        // (and every expression built on it) learns the equality: S + 1 == T + 1
        // gives S == T.
        if let Some((sym, value)) = solve_for_pivot(&diff) {
            self.egraph.analysis.eliminated.insert(sym);
            let s = rules::add_poly(&mut self.egraph, &Poly::sym(sym));
            let v = rules::add_poly(&mut self.egraph, &value);
            self.egraph.union_trusted(s, v, reason);
            rebuild(&mut self.egraph);
            self.saturate();
        }
        // Propagating the merge may reveal a contradiction (A == B with B == A + 1).
        if let Some(c) = self.egraph.analysis.contradictions.get_index(before) {
            return Err(AlgebraError::contradiction(c.clone()));
        }
        Ok(Dim(self.egraph.find(a.0)))
    }

    /// Bind a symbol to a value (`N = 4`); creates the symbol as an input if needed.
    pub fn bind(&mut self, name: &str, value: i64) -> Result<(), AlgebraError> {
        let s = self.input(name);
        let v = self.constant(value);
        {
            let entry = self
                .egraph
                .analysis
                .symbols
                .entries
                .get_mut(&Symbol::from(name));
            if let Some(e) = entry {
                let meet = e.bounds.intersect(&Interval::point(Rat::int(value)));
                if meet.is_empty() {
                    return Err(AlgebraError::contradiction(Contradiction {
                        left: Operand::Symbol(name.to_string()),
                        right: Operand::Dim(DimExpr::constant(value)),
                        reason: Refutation::Bounds {
                            of: Operand::Symbol(name.to_string()),
                            bounds: e.bounds.clone(),
                        },
                    }));
                }
                e.bounds = meet;
            }
        }
        self.union(s, v, "bind")?;
        self.refresh_symbol(name);
        Ok(())
    }

    /// Assume a fact given as text: `N >= 2`, `S % 8 == 0`, `A == B`, `N != 4`.
    pub fn assume(&mut self, text: &str) -> Result<(), AlgebraError> {
        let f = parse::parse_fact(text)?;
        self.assume_parsed(&f, &|| text.to_string())
    }

    /// Assume a parsed fact (an error names it as [`Fact`] prints it).
    pub fn assume_fact(&mut self, f: &Fact) -> Result<(), AlgebraError> {
        self.assume_parsed(f, &|| f.to_string())
    }

    /// Assume a parsed fact; `text` names it in errors.
    fn assume_parsed(&mut self, f: &Fact, text: &dyn Fn() -> String) -> Result<(), AlgebraError> {
        // `x % k == 0` on a symbol: a known divisor.
        if let (Rel::Eq, Expr::Call(OpKind::Mod, x, k), Expr::Num(z)) = (f.rel, &f.lhs, &f.rhs) {
            if let (Expr::Sym(name), Expr::Num(k)) = (x.as_ref(), k.as_ref()) {
                if z.is_zero() && k.is_integer() && !k.is_zero() {
                    self.input(name);
                    let sym = Symbol::from(name.as_str());
                    if let Some(e) = self.egraph.analysis.symbols.entries.get_mut(&sym) {
                        e.divisor = e.divisor.lcm(k);
                    }
                    self.refresh_symbol(name);
                    return Ok(());
                }
            }
        }
        let a = self.checked_from_expr(&f.lhs)?;
        let b = self.checked_from_expr(&f.rhs)?;
        match f.rel {
            Rel::Eq => self.union(a, b, "assume").map(|_| ()),
            Rel::Ne => {
                if self.equal(a, b) == Truth::True {
                    return Err(AlgebraError::contradiction(Contradiction {
                        left: Operand::Dim(self.expr(a)),
                        right: Operand::Dim(self.expr(b)),
                        reason: Refutation::ProvenEqual,
                    }));
                }
                self.disequalities.push((a, b));
                Ok(())
            }
            Rel::Ge | Rel::Gt | Rel::Le | Rel::Lt => {
                // Normalise to `e >= 0` (or `> 0`) with e = a - b or b - a.
                let (hi, lo) = if matches!(f.rel, Rel::Ge | Rel::Gt) {
                    (a, b)
                } else {
                    (b, a)
                };
                let strict = matches!(f.rel, Rel::Gt | Rel::Lt);
                let e = self.sub(hi, lo);
                // A bound on a single symbol goes into the symbol table, where every
                // expression's bounds can use it.
                let (hs, ls) = (
                    self.as_symbol(hi).map(str::to_string),
                    self.as_symbol(lo).map(str::to_string),
                );
                let (hc, lc) = (self.as_const(hi), self.as_const(lo));
                // Symbols are integers: `s > c` is `s >= floor(c) + 1` and `s < c` is
                // `s <= ceil(c) - 1` (for a rational `c` too); `s >= c` and `s <= c`
                // round inward below.
                let target = match (hs, lc, ls, hc) {
                    (Some(s), Some(c), _, _) => Some((
                        s,
                        Interval::at_least(if strict {
                            c.floor().add(&Rat::one())
                        } else {
                            c
                        }),
                    )),
                    (_, _, Some(s), Some(c)) => Some((
                        s,
                        Interval::new(
                            Bound::NegInf,
                            Bound::Finite(if strict { c.ceil().sub(&Rat::one()) } else { c }),
                        ),
                    )),
                    _ => None,
                };
                if let Some((name, iv)) = target {
                    let sym = Symbol::from(name.as_str());
                    if let Some(entry) = self.egraph.analysis.symbols.entries.get_mut(&sym) {
                        let meet = entry.bounds.intersect(&iv).to_integers();
                        if meet.is_empty() {
                            return Err(AlgebraError::contradiction(Contradiction {
                                left: Operand::Fact(text()),
                                right: Operand::Symbol(name.clone()),
                                reason: Refutation::Bounds {
                                    of: Operand::Symbol(name.clone()),
                                    bounds: entry.bounds.clone(),
                                },
                            }));
                        }
                        entry.bounds = meet;
                    }
                    self.refresh_symbol(&name);
                    return Ok(());
                }
                // `e > 0` gives `e >= 1` only when `e` is an integer (`A/2 - B/3 > 0`
                // allows `1/6`); otherwise keep the weaker, closed `e >= 0`.
                let data = &self.egraph[e.0].data;
                let integer = data
                    .canon
                    .int_divisor(&self.egraph.analysis.symbols)
                    .is_some();
                let lower = if strict && integer {
                    Rat::one()
                } else {
                    Rat::zero()
                };
                let meet = data.bounds.intersect(&Interval::at_least(lower));
                if meet.is_empty() {
                    let canon = DimExpr::from_poly(data.canon.clone());
                    return Err(AlgebraError::contradiction(Contradiction {
                        left: Operand::Fact(text()),
                        right: Operand::Dim(canon.clone()),
                        reason: Refutation::Bounds {
                            of: Operand::Dim(canon),
                            bounds: data.bounds.clone(),
                        },
                    }));
                }
                let new = analysis::ClassData {
                    canon: data.canon.clone(),
                    bounds: meet,
                    refinements: 0,
                };
                self.egraph.set_analysis_data(e.0, new);
                rebuild(&mut self.egraph);
                self.resaturate_all();
                Ok(())
            }
        }
    }

    /// Recompute a symbol's class data after its table entry changed, and let the
    /// change propagate.
    fn refresh_symbol(&mut self, name: &str) {
        let sym = Symbol::from(name);
        let Some(id) = self.egraph.lookup(DimLang::Sym(sym)) else {
            return;
        };
        let bounds = self.egraph.analysis.symbols.bounds(sym);
        let data = &self.egraph[id].data;
        let meet = data.bounds.intersect(&bounds);
        let new = analysis::ClassData {
            canon: data.canon.clone(),
            bounds: if meet.is_empty() { bounds } else { meet },
            refinements: 0,
        };
        self.egraph.set_analysis_data(id, new);
        rebuild(&mut self.egraph);
        self.resaturate_all();
    }
}

/// For `diff == 0` with a term `c*s` where the symbol `s` occurs nowhere else,
/// the solution `s = -(diff - c*s)/c`. Picks the last such symbol in the canonical
/// order, so the choice is deterministic. `None` when `diff` has a single term or
/// no such symbol.
fn solve_for_pivot(diff: &Poly) -> Option<(Symbol, Poly)> {
    if diff.len() < 2 {
        return None;
    }
    let occurrences = |s: Symbol| {
        let mut n = 0;
        for (m, _) in &diff.0 {
            for (a, _) in &m.0 {
                match a {
                    poly::Atom::Sym(t) if *t == s => n += 1,
                    poly::Atom::Op(o) => {
                        let mut v = Vec::new();
                        o.a.symbols(&mut v);
                        o.b.symbols(&mut v);
                        n += v.iter().filter(|t| **t == s).count();
                    }
                    _ => {}
                }
            }
        }
        n
    };
    let mut pick = None;
    for (m, c) in &diff.0 {
        if let [(poly::Atom::Sym(s), 1)] = m.0.as_slice() {
            if occurrences(*s) == 1 {
                pick = Some((*s, m.clone(), c.clone()));
            }
        }
    }
    let (s, m, c) = pick?;
    let rest = Poly(diff.0.iter().filter(|(t, _)| *t != m).cloned().collect());
    let value = rest.scale(&Rat::one().div(&c)?.neg());
    Some((s, value))
}

/// Rebuild the e-graph (restore congruence after unions).
///
/// egg times every rebuild with `quanta`, only to log it. The first read of quanta's
/// global clock calibrates the TSC, which spins for milliseconds; a mock clock, installed
/// for the rebuild on this thread only, spares that. No result depends on the time.
fn rebuild(egraph: &mut DimGraph) -> usize {
    thread_local! {
        static CLOCK: quanta::Clock = quanta::Clock::mock().0;
    }
    CLOCK.with(|clock| quanta::with_clock(clock, || egraph.rebuild()))
}
