//! Building dims: constants, symbols, fresh names, the arithmetic operators, and
//! expressions from text, parsed expressions and canonical forms. Every builder adds
//! an e-node and, for an operator, saturates the classes it touched.

use crate::analysis::default_bounds;
use crate::{
    parse, rules, Algebra, AlgebraError, AlgebraWarning, Dim, DimExpr, DimLang, Expr, OpKind, Poly,
    Rat, SymbolEntry, SymbolKind,
};
use egg::Symbol;

/// [`Algebra::sum`] and [`Algebra::product`] of more dims than this pair them as a
/// balanced tree: each partial result is a class holding its canonical form, so a
/// left fold over `n` distinct dims would hold `n²/2` terms (a Concat of thousands of
/// symbolic inputs would take gigabytes); the tree holds `n log n`. The result is the
/// same form.
const BALANCED_ABOVE: usize = 16;

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

impl Algebra {
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
}
