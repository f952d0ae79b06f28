//! Comparing the contracts of two models (`symdim diff`): a condition renamed into
//! the other model's symbols, whether a set of conditions implies a condition, and
//! whether a condition holds at given values. Every answer comes from a scratch
//! algebra (`normalise::Scratch`): implication by assuming the conditions and deciding the
//! other one, a value by binding every symbol and deciding. What the algebra cannot
//! prove is [`Truth::Unknown`], never a guess.

use super::normalise::Scratch;
use super::render::render_cond;
use super::{Cond, Condition, Kind, Side};
use crate::algebra::{Algebra, Expr, Fact, Poly, Rat, Rel, SymbolValues, Truth};

/// A renaming of symbols: the polynomial a symbol stands for (another symbol, or a
/// constant), `None` to keep it.
pub type Subst<'a> = &'a dyn Fn(&str) -> Option<Poly>;

impl Condition {
    /// The condition with its symbols replaced by `subst` (a symbol of the other
    /// model, or a constant the other model has in its place), its text and
    /// symbols made again from the renamed form.
    pub fn renamed(&self, subst: Subst<'_>) -> Condition {
        let form = rename_cond(&self.form, subst);
        let mut symbols: Vec<String> = Vec::new();
        cond_symbols(&form, &mut symbols);
        Condition {
            kind: self.kind,
            condition: render_cond(&form),
            symbols,
            nodes: self.nodes.clone(),
            sources: self.sources.clone(),
            note: self.note.clone(),
            form,
        }
    }

    /// Does the condition hold at `values` (every symbol it names bound)? `True`
    /// or `False` when every symbol has a value, `Unknown` when one has none (a
    /// data-dependent dim) or for `unknown` (an op without a shape rule). Unlike
    /// [`Condition::decide`], an undecidable condition on input symbols (one an
    /// `If` branch needs) is evaluated too.
    pub fn holds_at(&self, values: &SymbolValues) -> Truth {
        if self.symbols.iter().any(|s| values.get(s).is_none()) {
            return match self.form {
                Cond::False => Truth::False,
                _ => Truth::Unknown,
            };
        }
        let facts: Vec<Fact> = self
            .symbols
            .iter()
            .filter_map(|s| {
                let v = values.get(s)?;
                Some(Fact {
                    lhs: Expr::Sym(s.clone()),
                    rel: Rel::Eq,
                    rhs: Expr::Num(Rat::int(v)),
                })
            })
            .collect();
        Scratch::new(&facts, None).eval(&self.form)
    }

    /// True when the condition can be assumed (an undecidable or impossible one
    /// says nothing a value can keep).
    fn assumable(&self) -> bool {
        !matches!(self.kind, Kind::Undecidable | Kind::Impossible)
    }
}

/// A set of conditions assumed in a scratch algebra, to decide whether they imply
/// another condition ([`Premises::implies`]).
#[derive(Clone)]
pub struct Premises<'a> {
    scratch: Scratch<'a>,
}

impl<'a> Premises<'a> {
    /// The scratch algebra holding `facts` and every assumable condition of
    /// `conditions` (not the undecidable or impossible ones). Symbols take their
    /// kinds and bounds from `src` when it names them (a data-dependent dim may be
    /// 0), else they are input symbols (`>= 1`).
    pub fn new(conditions: &[Condition], facts: &[Fact], src: Option<&'a Algebra>) -> Premises<'a> {
        let mut scratch = Scratch::new(facts, src);
        scratch.assume_all(conditions.iter().filter(|c| c.assumable()).map(|c| &c.form));
        Premises { scratch }
    }

    /// Do the premises prove `c` for every value of the symbols? `True` when
    /// proven, `False` when refuted for every value, else `Unknown`.
    pub fn implies(&mut self, c: &Condition) -> Truth {
        match c.form {
            Cond::Unknown => Truth::Unknown,
            _ => self.scratch.eval(&c.form),
        }
    }
}

fn rename_cond(c: &Cond, subst: Subst<'_>) -> Cond {
    c.map_sides(&|s| match s {
        Side::Term(e) => Side::Term(rename_expr(e, subst)),
        Side::Form(p) => Side::Form(p.substitute(&|sym| subst(sym.as_str()))),
    })
}

/// `e` with its symbols replaced (conditions are read back from terms of at
/// most the algebra's term depth, so the recursion is bounded by it).
fn rename_expr(e: &Expr, subst: Subst<'_>) -> Expr {
    map_symbols(e, &|s| subst(s).map(|p| p.to_expr()))
}

/// `e` with each symbol `s` for which `f(s)` is `Some` replaced by it. Recursive:
/// for expressions read back from the algebra's terms, whose depth it bounds.
pub(crate) fn map_symbols(e: &Expr, f: &dyn Fn(&str) -> Option<Expr>) -> Expr {
    let b = |x: &Expr| Box::new(map_symbols(x, f));
    match e {
        Expr::Num(r) => Expr::Num(r.clone()),
        Expr::Sym(s) => f(s).unwrap_or_else(|| Expr::Sym(s.clone())),
        Expr::Neg(a) => Expr::Neg(b(a)),
        Expr::Add(x, y) => Expr::Add(b(x), b(y)),
        Expr::Sub(x, y) => Expr::Sub(b(x), b(y)),
        Expr::Mul(x, y) => Expr::Mul(b(x), b(y)),
        Expr::Div(x, y) => Expr::Div(b(x), b(y)),
        Expr::Call(k, x, y) => Expr::Call(*k, b(x), b(y)),
    }
}

/// The symbols of a condition, in first-seen order.
fn cond_symbols(c: &Cond, out: &mut Vec<String>) {
    let mut push = |s: &str| {
        if !out.iter().any(|x| x == s) {
            out.push(s.to_string());
        }
    };
    match c {
        Cond::Eq(a, b) | Cond::Div(a, b) | Cond::Le(a, b) => {
            for side in [a, b] {
                match side {
                    Side::Term(e) => e.symbols().into_iter().for_each(&mut push),
                    Side::Form(p) => {
                        let mut syms = Vec::new();
                        p.symbols(&mut syms);
                        syms.iter().for_each(|s| push(s.as_str()));
                    }
                }
            }
        }
        Cond::Or(cs) | Cond::And(cs) => cs.iter().for_each(|c| cond_symbols(c, out)),
        Cond::False | Cond::Unknown => {}
    }
}
