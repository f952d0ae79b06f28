//! Building dims: constants, symbols, fresh names, the arithmetic operators, and
//! expressions from text, parsed expressions and canonical forms. Every builder adds
//! an e-node and, for an operator, saturates the classes it touched.

use crate::analysis::default_bounds;
use crate::poly::MAX_FORM_DEPTH;
use crate::rational::MAX_CONST_BITS;
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

/// A chain of more operands than this in an expression (`a0 + a1 + ...`,
/// `a0*a1*...`, also from [`Poly::to_expr`]) is built as a balanced tree, as
/// [`Algebra::sum`] builds a long sum: the classes made hold `n log n` terms, not
/// the `n²/2` of a left fold's partial results.
pub const BALANCED_CHAIN_ABOVE: usize = 64;

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
        if self.reuse_forms {
            if let Some(d) = self.reused(&node) {
                return d;
            }
        }
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
        let size = self.egraph[id].data.canon.measure(limit);
        if size.nodes > limit {
            // Forms can double at each step (`x*x` repeated squares an opaque
            // product): past the limit the value becomes a fresh dim.
            return self.big(|fresh| AlgebraWarning::FormLimit { limit, fresh });
        }
        if size.depth > MAX_FORM_DEPTH {
            let limit = MAX_FORM_DEPTH;
            return self.big(|fresh| AlgebraWarning::DepthLimit { limit, fresh });
        }
        if size.bits > MAX_CONST_BITS {
            let limit = MAX_CONST_BITS;
            return self.big(|fresh| AlgebraWarning::ConstLimit { limit, fresh });
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

    /// Whether an arithmetic e-node (`+`, `-`, `*`, negation) whose canonical
    /// form a class already holds is left out, the builder answering with that
    /// class, when adding it would change nothing of the class (its form, its
    /// bounds) and no size limit or warning applies to it. Off by default.
    ///
    /// Adding such an e-node merges its new class into the existing one, and
    /// every merge costs a rebuild that visits every class: building many
    /// expressions that mostly repeat forms already held (a model's costs over
    /// its inferred dims) would be quadratic. With the flag the class answers
    /// the same queries (canonical form, bounds, comparisons), but does not hold
    /// the left-out e-node among its forms ([`Algebra::equal`] compares up to 8
    /// of them) nor re-derive its bounds from it when its operands' bounds
    /// narrow later.
    pub fn set_reuse_forms(&mut self, on: bool) {
        self.reuse_forms = on;
    }

    /// The class `node` would be merged into, when adding it would change
    /// nothing of that class ([`Algebra::set_reuse_forms`]).
    fn reused(&self, node: &DimLang) -> Option<Dim> {
        if !matches!(
            node,
            DimLang::Add(_) | DimLang::Sub(_) | DimLang::Mul(_) | DimLang::Neg(_)
        ) || self.egraph.analysis.dirty
            || self.egraph.lookup(node.clone()).is_some()
        {
            return None;
        }
        // The form first: only a held one needs the bounds (the costlier part).
        let canon = crate::analysis::node_canon(&self.egraph, node);
        let other = self
            .egraph
            .find(*self.egraph.analysis.by_canon.get(&canon)?);
        let new = crate::analysis::node_data(&self.egraph, node);
        let data = &self.egraph[other].data;
        // The merge keeps the class's data: egg makes the class with parents the
        // root, and `merge_data` only narrows its bounds.
        if data.canon != new.canon
            || (data.bounds.intersect(&new.bounds) != data.bounds
                && data.refinements < crate::analysis::MAX_REFINEMENTS)
        {
            return None;
        }
        // The checks `add` makes of the merged class's form.
        let limit = self.config.limits.form_nodes;
        let size = new.canon.measure(limit);
        if size.nodes > limit || size.depth > MAX_FORM_DEPTH || size.bits > MAX_CONST_BITS {
            return None;
        }
        if matches!(node, DimLang::Mul(_)) && new.canon.has_opaque_product() && !self.warned_product
        {
            return None;
        }
        if self.egraph.nodes().len() >= self.config.limits.enodes {
            return None;
        }
        Some(Dim(other))
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
        if !self.egraph.analysis.symbols.contains(&sym) {
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
            self.egraph.analysis.symbols.insert(
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
        self.egraph.analysis.symbols.contains(&Symbol::from(name))
    }

    /// A symbol's entry, by name.
    pub fn symbol_entry(&self, name: &str) -> Option<&SymbolEntry> {
        self.egraph.analysis.symbols.get(&Symbol::from(name))
    }

    /// Every symbol with its entry, in creation order.
    pub fn symbols(&self) -> impl Iterator<Item = (&str, &SymbolEntry)> {
        self.egraph
            .analysis
            .symbols
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

    /// The sum of dims (`0` for none) as [`Algebra::sum`] makes it, but built from
    /// the sum of their canonical forms (a sum's form is the sum of its operands'
    /// forms), without a class per partial sum: for totals over thousands of dims
    /// (a model's MACs, its activation bytes), where each partial sum's class would
    /// cost its bounds and a saturation and is never read. The class is the one
    /// [`Algebra::from_poly`] makes of the form, so its bounds are those of the form;
    /// a form past the limits of [`Algebra::sum`] (its nodes, depth, constant bits)
    /// is left to [`Algebra::sum`], which names it with a placeholder.
    pub fn sum_forms(&mut self, dims: &[Dim]) -> Dim {
        let terms: Vec<(crate::poly::Mono, Rat)> = dims
            .iter()
            .flat_map(|d| self.canon(*d).0.iter().cloned())
            .collect();
        let p = Poly::from_terms(terms);
        let limit = self.config.limits.form_nodes;
        let size = p.measure(limit);
        if size.nodes > limit || size.depth > MAX_FORM_DEPTH || size.bits > MAX_CONST_BITS {
            return self.sum(dims);
        }
        self.from_poly(&p)
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
                let table = &mut self.egraph.analysis.symbols;
                if table.contains(&s) {
                    continue;
                }
                let Some(e) = src.egraph.analysis.symbols.get(&s) else {
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
    ///
    /// A work list, not recursion, walks `e`: a flat chain is as deep as it is long.
    /// A chain of more than [`BALANCED_CHAIN_ABOVE`] operands of `+` and `-` (or of
    /// `*` and `/`) is built as a balanced tree ([`Algebra::balanced`]) of its
    /// operands, `(sum of the added) - (sum of the subtracted)` (or `(product of the
    /// multiplied) / (product of the divisors)`): the same value, in classes holding
    /// `n log n` terms rather than the `n²/2` of the partial results of a left fold.
    /// Shorter chains are built as they associate, left to right.
    fn build_expr(&mut self, e: &Expr, check: bool) -> Result<Dim, AlgebraError> {
        enum Task<'a> {
            /// Build this expression; its value goes onto the value stack.
            Visit(&'a Expr),
            /// Combine the top one (`-e`) or two values as this expression does.
            Node(&'a Expr),
            /// Combine the top `inverse.len()` values as a chain of this family;
            /// `inverse[i]` when operand `i` is subtracted (divided by).
            Chain(Family, Vec<bool>),
        }
        let mut todo = vec![Task::Visit(e)];
        let mut values: Vec<Dim> = Vec::new();
        let pop = |values: &mut Vec<Dim>| values.pop().expect("an operand was built");
        while let Some(task) = todo.pop() {
            match task {
                Task::Visit(e) => match e {
                    Expr::Num(r) => values.push(self.rational(r.clone())),
                    Expr::Sym(s) => values.push(self.input(s)),
                    Expr::Neg(a) => {
                        todo.push(Task::Node(e));
                        todo.push(Task::Visit(a));
                    }
                    Expr::Add(a, b)
                    | Expr::Sub(a, b)
                    | Expr::Mul(a, b)
                    | Expr::Div(a, b)
                    | Expr::Call(_, a, b) => match long_chain(e) {
                        Some((family, operands)) => {
                            let inverse = operands.iter().map(|(inv, _)| *inv).collect();
                            todo.push(Task::Chain(family, inverse));
                            todo.extend(operands.into_iter().rev().map(|(_, o)| Task::Visit(o)));
                        }
                        None => {
                            todo.push(Task::Node(e));
                            todo.push(Task::Visit(b));
                            todo.push(Task::Visit(a));
                        }
                    },
                },
                Task::Node(e) => {
                    if let Expr::Neg(_) = e {
                        let a = pop(&mut values);
                        values.push(self.neg(a));
                        continue;
                    }
                    let y = pop(&mut values);
                    let x = pop(&mut values);
                    let divides = matches!(
                        e,
                        Expr::Div(..)
                            | Expr::Call(
                                OpKind::FloorDiv | OpKind::CeilDiv | OpKind::Mod | OpKind::Div,
                                ..
                            )
                    );
                    if check && divides && self.is_const_zero(y) {
                        return Err(AlgebraError::DivisionByZero {
                            dividend: self.expr(x),
                        });
                    }
                    let node = match e {
                        Expr::Add(..) => DimLang::Add([x.0, y.0]),
                        Expr::Sub(..) => DimLang::Sub([x.0, y.0]),
                        Expr::Mul(..) => DimLang::Mul([x.0, y.0]),
                        Expr::Div(..) => DimLang::Div([x.0, y.0]),
                        Expr::Call(k, ..) => DimLang::op(*k, x.0, y.0),
                        Expr::Num(_) | Expr::Sym(_) | Expr::Neg(_) => {
                            unreachable!("leaves and `-e` are built above")
                        }
                    };
                    values.push(self.add(node));
                }
                Task::Chain(family, inverse) => {
                    let operands = values.split_off(values.len() - inverse.len());
                    let d = self.chain(family, &operands, &inverse, check)?;
                    values.push(d);
                }
            }
        }
        Ok(pop(&mut values))
    }

    /// True when `d` is the constant 0.
    fn is_const_zero(&self, d: Dim) -> bool {
        self.as_const(d).is_some_and(|c| c.is_zero())
    }

    /// A long chain of `family` over `operands` (see [`Algebra::build_expr`]).
    fn chain(
        &mut self,
        family: Family,
        operands: &[Dim],
        inverse: &[bool],
        check: bool,
    ) -> Result<Dim, AlgebraError> {
        let pick = |inv: bool| -> Vec<Dim> {
            operands
                .iter()
                .zip(inverse)
                .filter(|(_, i)| **i == inv)
                .map(|(d, _)| *d)
                .collect()
        };
        let (direct, inverted) = (pick(false), pick(true));
        type Node = fn([egg::Id; 2]) -> DimLang;
        let (node, inverse_node): (Node, Node) = match family {
            Family::Sum => (DimLang::Add, DimLang::Sub),
            Family::Product => (DimLang::Mul, DimLang::Div),
        };
        if check && family == Family::Product {
            if let Some(i) =
                (0..operands.len()).find(|&i| inverse[i] && self.is_const_zero(operands[i]))
            {
                // The dividend is the chain's value up to the zero divisor.
                let before = self.chain(family, &operands[..i], &inverse[..i], false)?;
                return Err(AlgebraError::DivisionByZero {
                    dividend: self.expr(before),
                });
            }
        }
        let head = self.balanced(&direct, node);
        if inverted.is_empty() {
            return Ok(head);
        }
        let tail = self.balanced(&inverted, node);
        Ok(self.add(inverse_node([head.0, tail.0])))
    }

    /// `dims[0] op dims[1] op ...` for an associative and commutative `op` (`+` or
    /// `*`), paired as a balanced tree ([`pair_up`]). `dims` is not empty.
    fn balanced(&mut self, dims: &[Dim], op: fn([egg::Id; 2]) -> DimLang) -> Dim {
        let ids: Vec<egg::Id> = dims.iter().map(|d| d.0).collect();
        Dim(pair_up(&ids, &mut |a, b| self.add(op([a, b])).0))
    }
}

/// `items[0] op items[1] op ...` for an associative and commutative `op`
/// (`combine`), paired as a balanced tree: each half, then the two. Equal items
/// pair by doubling (`x*x`, then that squared, ...), so `k` copies of `x` take
/// `log k` combinations. `items` is not empty.
pub(crate) fn pair_up(
    items: &[egg::Id],
    combine: &mut dyn FnMut(egg::Id, egg::Id) -> egg::Id,
) -> egg::Id {
    if let [x] = items {
        return *x;
    }
    if items.iter().all(|x| *x == items[0]) {
        let (mut acc, mut base, mut k) = (None, items[0], items.len());
        loop {
            if k & 1 == 1 {
                acc = Some(match acc {
                    None => base,
                    Some(a) => combine(a, base),
                });
            }
            k >>= 1;
            if k == 0 {
                return acc.unwrap_or(base);
            }
            base = combine(base, base);
        }
    }
    let (l, r) = items.split_at(items.len() / 2);
    let l = pair_up(l, combine);
    let r = pair_up(r, combine);
    combine(l, r)
}

/// A chain of one of these, built balanced when long ([`BALANCED_CHAIN_ABOVE`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    /// `+` and `-`.
    Sum,
    /// `*` and exact `/`.
    Product,
}

/// The operands of the chain `e` heads (its left spine of `+`/`-`, or of `*`/`/`),
/// left to right, each with whether it is subtracted (divided by), when there are
/// more than [`BALANCED_CHAIN_ABOVE`]; `None` for a shorter chain (the walk stops
/// there, so a short chain costs a bounded look).
fn long_chain(e: &Expr) -> Option<(Family, Vec<(bool, &Expr)>)> {
    let family = match e {
        Expr::Add(..) | Expr::Sub(..) => Family::Sum,
        Expr::Mul(..) | Expr::Div(..) => Family::Product,
        _ => return None,
    };
    fn step(family: Family, e: &Expr) -> Option<(bool, &Expr)> {
        match (family, e) {
            (Family::Sum, Expr::Add(_, b)) | (Family::Product, Expr::Mul(_, b)) => Some((false, b)),
            (Family::Sum, Expr::Sub(_, b)) | (Family::Product, Expr::Div(_, b)) => Some((true, b)),
            _ => None,
        }
    }
    fn left(e: &Expr) -> &Expr {
        match e {
            Expr::Add(a, _) | Expr::Sub(a, _) | Expr::Mul(a, _) | Expr::Div(a, _) => a,
            _ => unreachable!("a chain node has a left operand"),
        }
    }
    // Count first, without allocating, up to the threshold.
    let mut n = 1;
    let mut cur = e;
    while step(family, cur).is_some() {
        n += 1;
        if n > BALANCED_CHAIN_ABOVE {
            break;
        }
        cur = left(cur);
    }
    if n <= BALANCED_CHAIN_ABOVE {
        return None;
    }
    let mut operands = Vec::new();
    let mut cur = e;
    while let Some(op) = step(family, cur) {
        operands.push(op);
        cur = left(cur);
    }
    operands.push((false, cur));
    operands.reverse();
    Some((family, operands))
}
