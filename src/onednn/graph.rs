//! Implicit edges (by logical-tensor id), graph inputs/outputs and topological order.

use std::collections::{HashMap, HashSet};

use super::error::OnednnError;
use super::model::{LogicalTensor, OnednnGraph, Op};

/// Where a logical tensor appears: `(op index in graph, argument index)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TensorUse {
    /// Index into [`OnednnGraph::ops`].
    pub op: usize,
    /// Index into that op's `inputs` (for a consumer) or `outputs` (for a producer).
    pub arg: usize,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct GraphIndex {
    ids: HashMap<u64, usize>,
    producers: HashMap<u64, TensorUse>,
    consumers: HashMap<u64, Vec<TensorUse>>,
    inputs: Vec<u64>,
    outputs: Vec<u64>,
    topo: Vec<usize>,
}

impl GraphIndex {
    pub(crate) fn build(ops: &[Op]) -> Result<GraphIndex, OnednnError> {
        let mut ids = HashMap::with_capacity(ops.len());
        let mut producers: HashMap<u64, TensorUse> = HashMap::new();
        for (i, op) in ops.iter().enumerate() {
            if ids.insert(op.id, i).is_some() {
                return Err(OnednnError::DuplicateOpId { id: op.id });
            }
            for (arg, lt) in op.outputs.iter().enumerate() {
                if let Some(first) = producers.insert(lt.id, TensorUse { op: i, arg }) {
                    return Err(OnednnError::DuplicateProducer {
                        tensor: lt.id,
                        first_op: ops[first.op].id,
                        second_op: op.id,
                    });
                }
            }
        }
        let mut consumers: HashMap<u64, Vec<TensorUse>> = HashMap::new();
        let mut inputs = Vec::new();
        let mut seen_inputs = HashSet::new();
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); ops.len()];
        let mut succs: Vec<Vec<usize>> = vec![Vec::new(); ops.len()];
        for (i, op) in ops.iter().enumerate() {
            for (arg, lt) in op.inputs.iter().enumerate() {
                consumers
                    .entry(lt.id)
                    .or_default()
                    .push(TensorUse { op: i, arg });
                match producers.get(&lt.id) {
                    Some(p) => {
                        preds[i].push(p.op);
                        succs[p.op].push(i);
                    }
                    None => {
                        if seen_inputs.insert(lt.id) {
                            inputs.push(lt.id);
                        }
                    }
                }
            }
        }
        let outputs = ops
            .iter()
            .flat_map(|op| op.outputs.iter().map(|lt| lt.id))
            .filter(|id| !consumers.contains_key(id))
            .collect();
        let topo = topo_sort(ops, &preds, &succs)?;
        Ok(GraphIndex {
            ids,
            producers,
            consumers,
            inputs,
            outputs,
            topo,
        })
    }
}

/// Kahn's algorithm; ties keep file order.
fn topo_sort(
    ops: &[Op],
    preds: &[Vec<usize>],
    succs: &[Vec<usize>],
) -> Result<Vec<usize>, OnednnError> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let n = ops.len();
    let mut indeg: Vec<usize> = preds.iter().map(Vec::len).collect();
    let mut ready: BinaryHeap<Reverse<usize>> =
        (0..n).filter(|&i| indeg[i] == 0).map(Reverse).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(Reverse(i)) = ready.pop() {
        order.push(i);
        for &s in &succs[i] {
            indeg[s] -= 1;
            if indeg[s] == 0 {
                ready.push(Reverse(s));
            }
        }
    }
    if order.len() == n {
        return Ok(order);
    }
    // Walk unplaced predecessors from an unplaced op until one repeats: it is on a cycle.
    let mut cur = (0..n).find(|&i| indeg[i] > 0).unwrap_or(0);
    let mut seen = vec![false; n];
    while !seen[cur] {
        seen[cur] = true;
        match preds[cur].iter().find(|&&p| indeg[p] > 0) {
            Some(&p) => cur = p,
            None => break,
        }
    }
    Err(OnednnError::Cycle {
        op: ops[cur].id,
        name: ops[cur].name.clone(),
    })
}

impl OnednnGraph {
    /// The op with id `id`.
    pub fn op(&self, id: u64) -> Option<&Op> {
        self.index.ids.get(&id).map(|&i| &self.ops[i])
    }

    /// Position of op `id` in [`OnednnGraph::ops`].
    pub fn op_index(&self, id: u64) -> Option<usize> {
        self.index.ids.get(&id).copied()
    }

    /// The op output that produces logical tensor `tensor`, if any.
    pub fn producer(&self, tensor: u64) -> Option<TensorUse> {
        self.index.producers.get(&tensor).copied()
    }

    /// The op inputs that consume logical tensor `tensor`, in file order.
    pub fn consumers(&self, tensor: u64) -> &[TensorUse] {
        self.index
            .consumers
            .get(&tensor)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// Graph inputs: tensor ids consumed but never produced, in order of first use.
    pub fn graph_inputs(&self) -> &[u64] {
        &self.index.inputs
    }

    /// Graph outputs: tensor ids produced but never consumed, in file order.
    pub fn graph_outputs(&self) -> &[u64] {
        &self.index.outputs
    }

    /// The description of tensor `tensor`: the producer's output if produced, else the
    /// first consumer's input.
    pub fn tensor(&self, tensor: u64) -> Option<&LogicalTensor> {
        if let Some(p) = self.producer(tensor) {
            return Some(&self.ops[p.op].outputs[p.arg]);
        }
        self.consumers(tensor)
            .first()
            .map(|c| &self.ops[c.op].inputs[c.arg])
    }

    /// Op indices (into [`OnednnGraph::ops`]) in topological order; ties keep file order.
    pub fn topological_order(&self) -> &[usize] {
        &self.index.topo
    }

    /// Ops in topological order.
    pub fn ops_topological(&self) -> impl Iterator<Item = &Op> + '_ {
        self.index.topo.iter().map(move |&i| &self.ops[i])
    }
}
