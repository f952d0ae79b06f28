//! The live activation bytes at each step, and the steps that may be the peak.
//!
//! The liveness is the module's (`mod.rs`). Each step's sum is built from the
//! last one, adding what becomes live and taking away what died at the step
//! before, so the work is one add per tensor birth and death.

use super::value_at;
use crate::algebra::{Algebra, Dim, Poly, Truth};
use crate::graph::Graph;
use indexmap::IndexMap;
use rustc_hash::FxHashMap;

/// How many kept steps each step is compared with (`le` queries) when dropping
/// the dominated ones; a step not proven dominated by one of them is kept.
pub const MAX_PEAK_COMPARE: usize = 32;

/// The value each input symbol takes at the point the candidate steps are
/// ordered by before they are compared (larger first, so that a dominating
/// step tends to be kept before the steps it dominates).
pub const SAMPLE_VALUE: i64 = 1024;

/// The live bytes at each step: (node index, sum), in step order. `sizes` are the
/// activations' bytes.
pub(super) fn step_sums(
    alg: &mut Algebra,
    g: &Graph,
    order: &[usize],
    sizes: &IndexMap<&str, Dim>,
) -> Vec<(usize, Dim)> {
    let n = order.len();
    if n == 0 {
        return Vec::new();
    }
    let mut produced: FxHashMap<&str, usize> = FxHashMap::default();
    let mut last_use: FxHashMap<&str, usize> = FxHashMap::default();
    for (step, &i) in order.iter().enumerate() {
        let node = &g.nodes[i];
        let captures = crate::infer::subgraph_captures(node);
        for name in node
            .inputs
            .iter()
            .map(|s| &**s)
            .chain(captures.iter().map(|s| &**s))
        {
            if let Some((k, _)) = sizes.get_key_value(name) {
                last_use.insert(k, step);
            }
        }
        for o in &node.outputs {
            produced.entry(o).or_insert(step);
        }
    }
    let outputs: rustc_hash::FxHashSet<&str> = g.outputs.iter().map(|v| &*v.name).collect();
    let mut born: Vec<Vec<Dim>> = vec![Vec::new(); n];
    let mut died: Vec<Vec<Dim>> = vec![Vec::new(); n];
    for (name, bytes) in sizes {
        let birth = produced.get(name).copied().unwrap_or(0);
        let death = if outputs.contains(name) {
            n - 1
        } else {
            match (last_use.get(name), produced.contains_key(name)) {
                (Some(u), _) => (*u).max(birth),
                (None, true) => birth,
                // A graph input nothing reads is never live.
                (None, false) => continue,
            }
        };
        born[birth].push(*bytes);
        died[death].push(*bytes);
    }
    let mut out = Vec::with_capacity(n);
    let mut live = alg.constant(0);
    for (step, &i) in order.iter().enumerate() {
        for b in &born[step] {
            live = alg.add_dims(live, *b);
        }
        out.push((i, live));
        for d in &died[step] {
            live = alg.sub(live, *d);
        }
    }
    out
}

/// The steps not proven dominated: each distinct sum once (at its first step),
/// without those the algebra proves `<=` a kept one, in step order.
pub(super) fn dominant(
    alg: &Algebra,
    steps: &[(usize, Dim)],
    binds: &[(String, i64)],
) -> Vec<(usize, Dim)> {
    let mut distinct: IndexMap<&Poly, (usize, usize, Dim)> = IndexMap::new();
    for (pos, (i, d)) in steps.iter().enumerate() {
        distinct.entry(alg.canon(*d)).or_insert((pos, *i, *d));
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
