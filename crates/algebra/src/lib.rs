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
mod build;
mod divide;
mod error;
pub mod expr;
mod facts;
pub mod interval;
pub mod lang;
mod ledger;
pub mod parse;
pub mod poly;
mod query;
pub mod rational;
pub mod rules;
mod saturate;
pub mod solve;

pub use analysis::{Contradiction, Operand, Refutation, SymbolEntry, SymbolKind};
pub use build::{FreshKey, BALANCED_CHAIN_ABOVE};
pub use divide::MinusOne;
pub use error::{AlgebraError, AlgebraWarning};
pub use expr::{DimExpr, DimList, EvalError, SymbolValues};
pub use facts::FactItem;
pub use interval::{Bound, Interval};
pub use lang::DimLang;
pub use ledger::{Relation, Requirement};
pub use parse::{Expr, Fact, ParseError, Rel};
pub use poly::{NoValue, OpKind, Poly};
pub use rational::Rat;

use analysis::{DimAnalysis, DimGraph};
use egg::{Id, Symbol};
use indexmap::IndexMap;
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

/// Deterministic limits on saturation. Past a limit the algebra stops simplifying
/// and records a warning; results stay sound, only less simplified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Rule applications per saturation call: each match of a rule's pattern whose
    /// check runs counts as one, so the work does not follow a class's size.
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
    /// A caller's way to stop a long call early (Ctrl-C in Python); `None` runs to
    /// the end.
    pub interrupt: Option<Interrupt>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            input_lower: Rat::one(),
            dim_lower: Rat::zero(),
            limits: Limits::default(),
            interrupt: None,
        }
    }
}

/// How often saturation polls the [`Interrupt`]: once per this many
/// rule applications.
pub const INTERRUPT_EVERY: usize = 32;

/// A request to stop early, asked of a caller's function at the engine's existing
/// counters (each node of a graph, every [`INTERRUPT_EVERY`] rule applications,
/// each tensor of an analysis). Once the function has said yes, the interrupt stays
/// tripped: the engine skips the rest of its work, and what it returns is partial,
/// so the caller that asked for the interrupt discards it ([`Interrupt::tripped`]).
/// Clones share the state.
#[derive(Clone)]
pub struct Interrupt {
    asked: std::sync::Arc<dyn Fn() -> bool + Send + Sync>,
    tripped: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Interrupt {
    /// An interrupt that trips when `asked` returns true.
    pub fn new(asked: impl Fn() -> bool + Send + Sync + 'static) -> Interrupt {
        Interrupt {
            asked: std::sync::Arc::new(asked),
            tripped: std::sync::Arc::default(),
        }
    }

    /// Ask the caller's function (unless already tripped); true when work should stop.
    pub fn poll(&self) -> bool {
        use std::sync::atomic::Ordering;
        if self.tripped.load(Ordering::Relaxed) {
            return true;
        }
        let stop = (self.asked)();
        if stop {
            self.tripped.store(true, Ordering::Relaxed);
        }
        stop
    }

    /// True once a poll said stop.
    pub fn tripped(&self) -> bool {
        self.tripped.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl std::fmt::Debug for Interrupt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Interrupt")
            .field("tripped", &self.tripped())
            .finish_non_exhaustive()
    }
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
    /// The classes of each disequality, as an ordered pair of roots, as they were
    /// when the e-graph had made `diseq_unions` unions ([`Algebra::unions`]): while
    /// it has made no other, [`Algebra::equal`] looks a pair up here instead of
    /// scanning `disequalities` (K facts `N != i` cost K look-ups, not K²/2).
    diseq_roots: rustc_hash::FxHashSet<(Id, Id)>,
    /// See `diseq_roots`.
    diseq_unions: usize,
    warned_product: bool,
    speculative: u32,
    site: String,
    /// The class of each integer constant made so far: [`Algebra::constant`] finds
    /// it without hashing a new e-node.
    constants: rustc_hash::FxHashMap<i64, Id>,
    /// Open batches of facts ([`Algebra::begin_facts`]): while above 0, the
    /// rebuild and resaturation a fact needs are deferred to the end of the batch.
    batch: u32,
    /// A rebuild is owed to the facts of the open batch (a symbol whose class has
    /// parents changed its bounds: they are to be recomputed).
    owed_rebuild: bool,
    /// A resaturation of every operator class is owed to the facts of the open batch.
    owed_saturation: bool,
    /// [`Algebra::set_reuse_forms`].
    reuse_forms: bool,
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
            .field("symbols", &self.egraph.analysis.symbols.len())
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
            diseq_roots: Default::default(),
            diseq_unions: 0,
            constants: Default::default(),
            warned_product: false,
            reuse_forms: false,
            speculative: 0,
            site: String::new(),
            batch: 0,
            owed_rebuild: false,
            owed_saturation: false,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Poll the configuration's [`Interrupt`], if any: true when the caller asked to
    /// stop (now or earlier), and the rest of the work should be skipped.
    pub fn interrupted(&self) -> bool {
        self.config.interrupt.as_ref().is_some_and(Interrupt::poll)
    }

    /// The underlying e-graph (read-only).
    pub fn egraph(&self) -> &DimGraph {
        &self.egraph
    }
}
