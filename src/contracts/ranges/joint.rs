//! Relations between symbols and the profile box.
//!
//! Each relation is decided over the box (every symbol between its min and max, a
//! multiple of its step when its valid values are, linked symbols equal) in a
//! scratch algebra. One that is not proven and is a linear inequality
//! (`c1*s1 + c2*s2 + ... + d >= 0`) is kept by lowering the max of the symbols
//! whose growth breaks it: the slack at the min corner, `d + sum(ci * min_i)`, is
//! shared out equally among them (a symbol that needs less than its share keeps its
//! max and leaves the rest to the others), each new max the greatest valid value
//! under its share, and the relation is decided over the new box again. Any other
//! relation (`B*S <= 4096`, a `floordiv` of two symbols) is kept by a common rise:
//! each max becomes the greatest valid value at most `min + k` (or its own max), for
//! the greatest `k` at which the algebra proves the relation over the box, found by
//! doubling then bisection in at most [`MAX_SHRINK_STEPS`] decisions. The rise is
//! made only where the relation is false at the max corner of the first box it is
//! not proven over: where that corner keeps it, the algebra could not decide the box,
//! and shrinking would trade a question for a made-up max. A relation the box is
//! still not proven to keep is a problem of the report.

use super::solve::{cond_symbols, linear_in, Forms, Solved};
use super::Request;
use crate::algebra::{Expr, Fact, OpKind, Rat, Rel, Truth};
use crate::contracts::normalise::Scratch;
use crate::contracts::Cond;

/// How many times the common rise of a relation that is not a linear inequality
/// decides the relation over a candidate box (`symdim ranges`); past it, the greatest
/// rise proven so far is kept (a smaller box, still valid).
pub const MAX_SHRINK_STEPS: u32 = 128;

/// Decide every relation over the box, shrinking it for linear inequalities; then
/// choose each symbol's opt and write the symbols' reports.
pub(super) fn shrink(out: &mut Solved, request: &Request) {
    for k in 0..out.relations.len() {
        let form = out.joint[k].clone();
        if over_box(out, &form) == Truth::True {
            out.relations[k].status = "holds";
            continue;
        }
        if let Some(gave_up) = lower_maxes(out, &form) {
            if over_box(out, &form) == Truth::True {
                out.relations[k].status = "shrunk";
                out.relations[k].gave_up = gave_up;
                continue;
            }
            out.relations[k].gave_up = gave_up;
        } else if let Some(gave_up) = common_rise(out, &form) {
            if over_box(out, &form) == Truth::True {
                out.relations[k].status = "shrunk";
                out.relations[k].gave_up = gave_up;
                continue;
            }
        }
        out.relations[k].status = "unknown";
        out.problems.push(format!(
            "{}: not proven over the box (it may hold values that break it)",
            out.relations[k].condition.condition
        ));
    }
    for k in 0..out.groups.len() {
        if let Err(why) = out.groups[k].choose_opt(request) {
            out.problems.push(why);
        }
    }
    for g in &out.groups {
        if g.min.is_some() && g.max.is_none() {
            let n = crate::algebra::poly::render_symbol(&g.members[0]);
            out.problems.push(format!(
                "{n}: no upper bound from the contract; give one with --range {n}=LO..HI"
            ));
        }
    }
    out.symbols = out.groups.iter().map(|g| g.report()).collect();
}

/// The truth of `form` for every point of the box, in a scratch algebra holding
/// `min <= s <= max` for each of its symbols.
fn over_box(out: &Solved, form: &Cond) -> Truth {
    let mut facts = Vec::new();
    for s in cond_symbols(form) {
        let Some(&g) = out.group_of.get(&s) else {
            return Truth::Unknown;
        };
        let g = &out.groups[g];
        let Some(min) = &g.min else {
            return Truth::Unknown;
        };
        let sym = || Expr::Sym(s.clone());
        if g.max.as_ref() == Some(min) {
            // One value: the symbol is that constant.
            facts.push(Fact {
                lhs: sym(),
                rel: Rel::Eq,
                rhs: Expr::Num(min.clone()),
            });
            continue;
        }
        facts.push(Fact {
            lhs: sym(),
            rel: Rel::Ge,
            rhs: Expr::Num(min.clone()),
        });
        if let Some(max) = &g.max {
            facts.push(Fact {
                lhs: sym(),
                rel: Rel::Le,
                rhs: Expr::Num(max.clone()),
            });
        }
        // Every valid value is a multiple of the step: the box's points are.
        if let Some(st) = g.step() {
            if st.residues == [0] && st.also.is_empty() && st.unknown.is_empty() {
                let m = Expr::Call(
                    OpKind::Mod,
                    Box::new(sym()),
                    Box::new(Expr::Num(Rat::int(st.modulus))),
                );
                facts.push(Fact {
                    lhs: m,
                    rel: Rel::Eq,
                    rhs: Expr::Num(Rat::zero()),
                });
            }
        }
        // Linked symbols are one value.
        if g.members[0] != s {
            facts.push(Fact {
                lhs: sym(),
                rel: Rel::Eq,
                rhs: Expr::Sym(g.members[0].clone()),
            });
        }
    }
    Scratch::new(&facts, None).eval(form)
}

/// The truth of `form` at the box's max corner: every symbol at its group's max
/// (`Unknown` when one has none).
fn at_max_corner(out: &Solved, form: &Cond) -> Truth {
    let mut facts = Vec::new();
    for s in cond_symbols(form) {
        let Some(max) = out
            .group_of
            .get(&s)
            .and_then(|g| out.groups[*g].max.clone())
        else {
            return Truth::Unknown;
        };
        facts.push(Fact {
            lhs: Expr::Sym(s.clone()),
            rel: Rel::Eq,
            rhs: Expr::Num(max),
        });
    }
    Scratch::new(&facts, None).eval(form)
}

/// Lower the maxes of the symbols whose growth breaks the linear inequality
/// `form`; what was given up, or `None` when `form` is not one or its min corner
/// breaks it.
fn lower_maxes(out: &mut Solved, form: &Cond) -> Option<Vec<String>> {
    let Cond::Le(a, b) = form else {
        return None;
    };
    let mut forms = Forms::default();
    let (da, db) = (forms.side(a), forms.side(b));
    let diff = forms.canon(db).sub(forms.canon(da));
    // diff = d + sum over groups of c_g * s_g.
    let mut coef: Vec<(usize, Rat)> = Vec::new();
    let syms = cond_symbols(form);
    let mut rest = diff.clone();
    for s in &syms {
        let g = *out.group_of.get(s)?;
        let (c, _) = linear_in(&only(&diff, s), s)?;
        rest = rest.sub(&crate::algebra::Poly::sym(egg::Symbol::from(s.as_str())).scale(&c));
        match coef.iter_mut().find(|(k, _)| *k == g) {
            Some((_, x)) => *x = x.add(&c),
            None => coef.push((g, c)),
        }
    }
    let d = rest.as_const()?;
    // Slack at the min corner.
    let mut slack = d;
    for (g, c) in &coef {
        slack = slack.add(&c.mul(out.groups[*g].min.as_ref()?));
    }
    if slack.is_negative() {
        return None;
    }
    // The symbols that break it as they grow, by the room they take.
    let mut takers: Vec<(usize, Rat, Option<Rat>)> = coef
        .iter()
        .filter(|(_, c)| c.is_negative())
        .map(|(g, c)| {
            let grp = &out.groups[*g];
            let room = grp
                .max
                .as_ref()
                .zip(grp.min.as_ref())
                .map(|(mx, mn)| mx.sub(mn).mul(&c.abs()));
            (*g, c.abs(), room)
        })
        .collect();
    takers.sort_by(|x, y| match (&x.2, &y.2) {
        (Some(a), Some(b)) => a.cmp(b),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    let mut gave_up = Vec::new();
    let mut left = slack;
    let n = takers.len();
    for (i, (g, c, room)) in takers.into_iter().enumerate() {
        let share = left.div(&Rat::int((n - i) as i64))?;
        let take = match room {
            Some(r) if r <= share => r,
            _ => share.div(&c)?.floor().mul(&c),
        };
        left = left.sub(&take);
        let grp = &mut out.groups[g];
        let min = grp.min.clone()?;
        let cap = min.add(&take.div(&c)?);
        let new = grp.valid_at_most(&cap)?;
        if grp.max.as_ref() != Some(&new) {
            let was = grp.max.clone();
            gave_up.push(lower_max(grp, was.as_ref(), new));
        }
    }
    Some(gave_up)
}

/// The terms of `p` that name `s` (or nothing else but constants are dropped).
fn only(p: &crate::algebra::Poly, s: &str) -> crate::algebra::Poly {
    use crate::algebra::poly::Atom;
    let terms =
        p.0.iter()
            .filter(|(m, _)| {
                m.0.iter()
                    .any(|(a, _)| matches!(a, Atom::Sym(x) if x.as_str() == s))
            })
            .cloned()
            .collect();
    crate::algebra::Poly::from_terms(terms)
}

/// Keep `form` by lowering the maxes of its symbols together: every symbol that can
/// grow gets the max `valid_at_most(min(max, min + k))` for the greatest `k` found at
/// which the algebra proves `form` over the box (doubling from 1, then bisection,
/// at most [`MAX_SHRINK_STEPS`] decisions). What was given up, or `None` (the box
/// unchanged) when `form` does not hold over the min corner or a symbol has no min.
fn common_rise(out: &mut Solved, form: &Cond) -> Option<Vec<String>> {
    let mut groups: Vec<usize> = Vec::new();
    for s in cond_symbols(form) {
        let g = *out.group_of.get(&s)?;
        out.groups[g].min.as_ref()?;
        if !groups.contains(&g) && out.groups[g].max != out.groups[g].min {
            groups.push(g);
        }
    }
    if groups.is_empty() {
        return None;
    }
    let saved: Vec<Option<Rat>> = groups.iter().map(|g| out.groups[*g].max.clone()).collect();
    // The box at rise `k`, or `None` when a symbol has no valid value at or below
    // its cap; `Some(true)` when `form` is proven over it.
    let try_rise = |out: &mut Solved, k: &Rat| -> Option<bool> {
        for (g, was) in groups.iter().zip(&saved) {
            let grp = &out.groups[*g];
            let cap = grp.min.as_ref()?.add(k);
            let cap = match was {
                Some(m) if *m < cap => m.clone(),
                _ => cap,
            };
            let new = grp.valid_at_most(&cap)?;
            out.groups[*g].max = Some(new);
        }
        Some(over_box(out, form) == Truth::True)
    };
    let restore = |out: &mut Solved| {
        for (g, was) in groups.iter().zip(&saved) {
            out.groups[*g].max = was.clone();
        }
    };
    let mut steps = 0;
    if try_rise(out, &Rat::zero()) != Some(true) {
        restore(out);
        return None;
    }
    steps += 1;
    // The rise past which nothing changes: the widest bounded room, when every
    // symbol that grows is bounded.
    let full = saved
        .iter()
        .zip(&groups)
        .try_fold(Rat::zero(), |acc, (m, g)| {
            let room = m.as_ref()?.sub(out.groups[*g].min.as_ref()?);
            Some(if room > acc { room } else { acc })
        });
    // Doubling: `good` is proven, `bad` is not (or past the budget, unknown).
    let (mut good, mut bad) = (Rat::zero(), None::<Rat>);
    let mut k = Rat::int(1);
    while steps < MAX_SHRINK_STEPS {
        if let Some(f) = &full {
            if k >= *f {
                k = f.clone();
            }
        }
        steps += 1;
        if try_rise(out, &k) == Some(true) {
            good = k.clone();
            if full.as_ref() == Some(&k) {
                break;
            }
            k = k.mul(&Rat::int(2));
            if k.bits() > 62 {
                break;
            }
        } else if at_max_corner(out, form) == Truth::False {
            bad = Some(k);
            break;
        } else {
            // The algebra could not decide this box, though its corner keeps the
            // relation: no evidence that growth breaks it.
            restore(out);
            return None;
        }
    }
    // Bisection between them, on integers.
    if let Some(mut hi) = bad {
        while steps < MAX_SHRINK_STEPS {
            let mid = good.add(&hi).div(&Rat::int(2))?.floor();
            if mid <= good {
                break;
            }
            steps += 1;
            if try_rise(out, &mid) == Some(true) {
                good = mid;
            } else {
                hi = mid;
            }
        }
    }
    try_rise(out, &good)?;
    let mut gave_up = Vec::new();
    for (g, was) in groups.iter().zip(&saved) {
        let grp = &mut out.groups[*g];
        if grp.max != *was {
            let new = grp.max.clone()?;
            gave_up.push(lower_max(grp, was.as_ref(), new));
        }
    }
    Some(gave_up)
}

/// Give `grp` the max `new` (it was `was`), set by a relation; the line of what
/// was given up (`P: max none -> 256`).
fn lower_max(grp: &mut super::solve::Group, was: Option<&Rat>, new: Rat) -> String {
    let was = was
        .map(|m| m.to_string())
        .unwrap_or_else(|| "none".to_string());
    let line = format!(
        "{}: max {was} -> {new}",
        crate::algebra::poly::render_symbol(&grp.members[0])
    );
    grp.max = Some(new);
    grp.max_from = Some("relation".to_string());
    line
}
