//! The live activation bytes at each step, and the steps that may be the peak.
//!
//! The liveness is the module's (`mod.rs`). Each step's sum is built from the
//! last one, adding what becomes live and taking away what died at the step
//! before, so the work is one add per tensor birth and death.

use super::value_at;
use crate::algebra::{Algebra, Dim, Poly, Truth};
use crate::graph::Graph;
use indexmap::IndexMap;

/// How many kept steps each step is compared with (`le` queries) when dropping
/// the dominated ones; a step not proven dominated by one of them is kept.
pub const MAX_PEAK_COMPARE: usize = 32;

/// The value each input symbol takes at the point the candidate steps are
/// ordered by before they are compared (larger first, so that a dominating
/// step tends to be kept before the steps it dominates).
pub const SAMPLE_VALUE: i64 = 1024;

/// One candidate for the peak: a distinct sum of live bytes, at the first step
/// that has it.
pub(super) struct Step {
    /// Its position in the node order.
    pub pos: usize,
    /// The node's index in the graph.
    pub node: usize,
    /// The live bytes: the sum of the live activations' canonical forms.
    pub bytes: Poly,
}

/// The distinct sums of live bytes, each at the first step that has it, in step
/// order; `None` when a sum outgrows the algebra's form limit
/// ([`crate::algebra::Limits::form_nodes`]), where the peak is not known. `sizes`
/// are the activations' bytes.
///
/// The sums are the canonical forms the algebra would give `live + born` and
/// `live - died` (a sum's form is the sum of its operands' forms), added up
/// without a class per step: most steps' sums are never read again, and a class
/// each costs its bounds and a saturation. Only the distinct sums become classes
/// ([`dominant`]).
pub(super) fn step_sums(
    alg: &Algebra,
    g: &Graph,
    order: &[usize],
    sizes: &IndexMap<&str, Dim>,
) -> Option<Vec<Step>> {
    let n = order.len();
    if n == 0 {
        return Some(Vec::new());
    }
    // Per activation (by its index in `sizes`): the step that makes it and the
    // last step that reads it.
    let mut produced: Vec<Option<usize>> = vec![None; sizes.len()];
    let mut last_use: Vec<Option<usize>> = vec![None; sizes.len()];
    for (step, &i) in order.iter().enumerate() {
        let node = &g.nodes[i];
        let captures = crate::infer::subgraph_captures(node);
        for name in node
            .inputs
            .iter()
            .map(|s| &**s)
            .chain(captures.iter().map(|s| &**s))
        {
            if let Some(k) = sizes.get_index_of(name) {
                last_use[k] = Some(step);
            }
        }
        for o in &node.outputs {
            if let Some(k) = sizes.get_index_of(&**o) {
                produced[k].get_or_insert(step);
            }
        }
    }
    let outputs: rustc_hash::FxHashSet<&str> = g.outputs.iter().map(|v| &*v.name).collect();
    let mut born: Vec<Vec<Dim>> = vec![Vec::new(); n];
    let mut died: Vec<Vec<Dim>> = vec![Vec::new(); n];
    for (k, (name, bytes)) in sizes.iter().enumerate() {
        let birth = produced[k].unwrap_or(0);
        let death = if outputs.contains(name) {
            n - 1
        } else {
            match (last_use[k], produced[k].is_some()) {
                (Some(u), _) => u.max(birth),
                (None, true) => birth,
                // A graph input nothing reads is never live.
                (None, false) => continue,
            }
        };
        born[birth].push(*bytes);
        died[death].push(*bytes);
    }
    let limit = alg.config().limits.form_nodes;
    let mut seen: rustc_hash::FxHashSet<Poly> = Default::default();
    let mut out = Vec::new();
    let mut live = Poly::zero();
    for (step, &i) in order.iter().enumerate() {
        for b in &born[step] {
            live = live.add(alg.canon(*b));
        }
        if live.measure(limit).nodes > limit {
            return None;
        }
        if seen.insert(live.clone()) {
            out.push(Step {
                pos: step,
                node: i,
                bytes: live.clone(),
            });
        }
        for d in &died[step] {
            live = live.sub(alg.canon(*d));
        }
    }
    Some(out)
}

/// The steps not proven dominated: each distinct sum once (at its first step),
/// without those the algebra proves `<=` a kept one, in step order. Each
/// candidate becomes a class of the algebra (two sums may share one).
pub(super) fn dominant(
    alg: &mut Algebra,
    steps: &[Step],
    binds: &[(String, i64)],
) -> Vec<(usize, Dim)> {
    let mut distinct: IndexMap<Poly, (usize, usize, Dim)> = IndexMap::new();
    for s in steps {
        let d = alg.from_poly(&s.bytes);
        distinct
            .entry(alg.canon(d).clone())
            .or_insert((s.pos, s.node, d));
    }
    // Order the candidates by their value at a sample point, largest first.
    let mut names = Vec::new();
    for p in distinct.keys() {
        p.symbols(&mut names);
    }
    let mut sample: Vec<(String, i64)> = binds.to_vec();
    for s in &names {
        if !sample.iter().any(|(n, _)| n == s.as_str()) {
            sample.push((s.to_string(), SAMPLE_VALUE));
        }
    }
    let mut cands: Vec<(Option<crate::algebra::Rat>, usize, usize, Dim)> = distinct
        .iter()
        .map(|(p, (pos, i, d))| (value_at(alg, p, &sample, 0), *pos, *i, *d))
        .collect();
    cands.sort_by(|a, b| match (&a.0, &b.0) {
        (Some(x), Some(y)) => y.cmp(x).then(a.1.cmp(&b.1)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.1.cmp(&b.1),
    });
    let mut kept: Vec<(usize, usize, Dim)> = Vec::new();
    for (_, pos, i, d) in cands {
        let dominated = kept
            .iter()
            .take(MAX_PEAK_COMPARE)
            .any(|(_, _, k)| alg.le(d, *k) == Truth::True);
        if dominated {
            continue;
        }
        let mut j = 0;
        kept.retain(|(_, _, k)| {
            j += 1;
            !(j <= MAX_PEAK_COMPARE && alg.le(*k, d) == Truth::True)
        });
        kept.push((pos, i, d));
    }
    kept.sort_by_key(|(pos, _, _)| *pos);
    kept.into_iter().map(|(_, i, d)| (i, d)).collect()
}
