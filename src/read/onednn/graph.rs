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
        for (i, op) in ops.iter().enumerate() {
            for (arg, lt) in op.inputs.iter().enumerate() {
                consumers
                    .entry(lt.id)
                    .or_default()
                    .push(TensorUse { op: i, arg });
                match producers.get(&lt.id) {
                    Some(p) => preds[i].push(p.op),
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
        let topo = topo_sort(ops, &preds)?;
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

/// The shared Kahn order ([`crate::graph::topological_order`]); a cycle is a typed
/// error naming one of its members.
fn topo_sort(ops: &[Op], preds: &[Vec<usize>]) -> Result<Vec<usize>, OnednnError> {
    crate::graph::topological_order(preds).map_err(|c| OnednnError::Cycle {
        op: ops[c.member].id,
        name: ops[c.member].name.clone(),
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
