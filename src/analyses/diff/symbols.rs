//! Matching the symbols of two versions of a model by the input axes they stand
//! for, and the comparison algebra both versions' dims are brought into.
//!
//! For each pair of matched inputs of the same rank, axis by axis: a NEW input
//! symbol at an axis where OLD has an input symbol is renamed to it (`N` → `batch`);
//! where OLD has a constant, the NEW symbol stands for that constant when the two
//! are compared (a static input made dynamic). The first axis that names a NEW
//! symbol decides it. Every other NEW symbol keeps its name unless OLD has a
//! different symbol of that name (another input's, a data-dependent dim of another
//! node, a derived symbol of another definition); then it is renamed `name'`.

use crate::algebra::{Algebra, Dim, Poly, Rat, SymbolKind, Truth};
use crate::context::ShapesContext;
use egg::Symbol;
use indexmap::IndexMap;
use std::borrow::Cow;

/// How NEW's symbols read in OLD's names.
pub(super) struct Mapping {
    /// NEW symbol → the OLD symbol (or a fresh name) it is renamed to.
    pub rename: IndexMap<String, String>,
    /// NEW symbol → the OLD constant it stands for (a static input made dynamic).
    pub generalised: IndexMap<String, i64>,
    /// OLD input symbol → NEW input symbol, for every pair of axes matched.
    pub shown: IndexMap<String, String>,
    /// What the matching could not settle (an OLD symbol standing for two NEW ones).
    pub notes: Vec<String>,
}

impl Mapping {
    /// Match the symbols of `pairs` (OLD input, NEW input) axis by axis.
    pub fn new(old: &ShapesContext, new: &ShapesContext, pairs: &[(&str, &str)]) -> Mapping {
        let mut m = Mapping {
            rename: IndexMap::new(),
            generalised: IndexMap::new(),
            shown: IndexMap::new(),
            notes: Vec::new(),
        };
        // NEW symbols an input axis has decided.
        let mut decided: rustc_hash::FxHashSet<String> = Default::default();
        let is_input = |alg: &Algebra, s: &str| {
            alg.symbol_entry(s)
                .is_some_and(|e| e.kind == SymbolKind::Input)
        };
        for (o, n) in pairs {
            let (Some(fo), Some(fn_)) = (old.get(o), new.get(n)) else {
                continue;
            };
            let (Some(so), Some(sn)) = (&fo.shape, &fn_.shape) else {
                continue;
            };
            if so.len() != sn.len() {
                continue;
            }
            for (a, (d_old, d_new)) in so.iter().zip(sn).enumerate() {
                let Some(ns) = new.alg.canon(*d_new).as_sym() else {
                    continue;
                };
                let ns = ns.as_str();
                if !is_input(&new.alg, ns) {
                    continue;
                }
                let po = old.alg.canon(*d_old);
                let taken = decided.contains(ns);
                if let Some(os) = po.as_sym().filter(|s| is_input(&old.alg, s.as_str())) {
                    let os = os.as_str();
                    match m.shown.get(os) {
                        Some(prev) if prev != ns => m.notes.push(format!(
                            "`{os}` of OLD stands for both `{prev}` and `{ns}` of NEW (input {n} axis {a})"
                        )),
                        _ => {}
                    }
                    if !taken {
                        decided.insert(ns.to_string());
                        // Only a change of name is a renaming: the rest is read as is.
                        if ns != os {
                            m.rename.insert(ns.to_string(), os.to_string());
                        }
                        m.shown.entry(os.to_string()).or_insert(ns.to_string());
                    }
                } else if let Some(c) = po.as_const().and_then(|c| c.to_i64()) {
                    if !taken {
                        decided.insert(ns.to_string());
                        m.generalised.insert(ns.to_string(), c);
                    }
                }
            }
        }
        // Every other NEW symbol: its own name, unless OLD means something else by it.
        let targets: Vec<String> = m.shown.keys().cloned().collect();
        for (name, e) in new.alg.symbols() {
            if decided.contains(name) {
                continue;
            }
            let same = match (old.alg.symbol_entry(name).map(|o| &o.kind), &e.kind) {
                (None, _) => !targets.iter().any(|t| t == name),
                (Some(SymbolKind::Input), SymbolKind::Input) => {
                    // OLD's `name` is an input no NEW axis took.
                    !targets.iter().any(|t| t == name) && !m.shown.contains_key(name)
                }
                (
                    Some(SymbolKind::DataDependent { node: a }),
                    SymbolKind::DataDependent { node: b },
                ) => a == b,
                (
                    Some(SymbolKind::Derived { definition: a }),
                    SymbolKind::Derived { definition },
                ) => *a == *m.apply(definition),
                _ => false,
            };
            if !same {
                let mut fresh = format!("{name}'");
                while old.alg.has_symbol(&fresh) || new.alg.has_symbol(&fresh) {
                    fresh.push('\'');
                }
                m.rename.insert(name.to_string(), fresh);
            }
        }
        m
    }

    /// A NEW form in OLD's names, a NEW symbol made dynamic at its OLD constant
    /// (borrowed when no symbol of NEW is renamed: most re-exports and copies).
    pub fn apply<'p>(&self, p: &'p Poly) -> Cow<'p, Poly> {
        if self.rename.is_empty() && self.generalised.is_empty() {
            return Cow::Borrowed(p);
        }
        Cow::Owned(p.substitute(&|s| self.lookup(s.as_str(), true)))
    }

    /// A NEW form in OLD's names, a symbol made dynamic kept as a symbol (its own
    /// name, or `name'` when OLD uses it).
    pub fn rename_only<'p>(&self, p: &'p Poly) -> Cow<'p, Poly> {
        if self.rename.is_empty() {
            return Cow::Borrowed(p);
        }
        Cow::Owned(p.substitute(&|s| self.lookup(s.as_str(), false)))
    }

    /// What NEW symbol `s` stands for in OLD's names (`None`: itself).
    pub fn lookup(&self, s: &str, generalise: bool) -> Option<Poly> {
        if let Some(r) = self.rename.get(s) {
            return Some(Poly::sym(Symbol::from(r.as_str())));
        }
        if generalise {
            if let Some(c) = self.generalised.get(s) {
                return Some(Poly::constant(Rat::int(*c)));
            }
        }
        None
    }
}

/// One algebra both versions' dims are built in, OLD's as they are and NEW's in
/// OLD's names, to decide whether two dims are equal for every value.
pub(super) struct Compare<'a> {
    pub alg: Algebra,
    old: &'a Algebra,
}

impl<'a> Compare<'a> {
    /// A fresh algebra whose symbols take their entries (kinds, bounds, the
    /// definitions of derived symbols) from OLD's.
    pub fn new(old: &'a Algebra) -> Compare<'a> {
        Compare {
            alg: Algebra::default(),
            old,
        }
    }

    /// `p` built here.
    pub fn dim(&mut self, p: &Poly) -> Dim {
        self.alg.import(p, Some(self.old))
    }

    /// Are OLD's `a` and NEW's `b` (already in OLD's names) equal for every value?
    /// Equal canonical forms are; otherwise both are built here and compared.
    pub fn equal(&mut self, a: &Poly, b: &Poly) -> Truth {
        if a == b {
            return Truth::True;
        }
        let (x, y) = (self.dim(a), self.dim(b));
        self.alg.equal(x, y)
    }

    /// `b - a` simplified, as a form.
    pub fn difference(&mut self, a: &Poly, b: &Poly) -> Poly {
        let (x, y) = (self.dim(a), self.dim(b));
        let d = self.alg.sub(y, x);
        self.alg.canon(d).clone()
    }
}
