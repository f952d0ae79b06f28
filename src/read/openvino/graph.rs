//! Edge resolution, producer/consumer links and topological order of an [`IrGraph`].

use std::collections::HashMap;

use super::error::{IrError, PortSide};
use super::model::{Edge, IrGraph, Layer, PortRef};

/// Lookup tables built once per graph.
#[derive(Debug, Clone, Default)]
pub(crate) struct GraphIndex {
    ids: HashMap<u64, usize>,
    /// Consuming input port -> producing output port.
    producers: HashMap<PortRef, PortRef>,
    /// Producing output port -> consuming input ports, in edge order.
    consumers: HashMap<PortRef, Vec<PortRef>>,
    /// Layer indices in topological order.
    topo: Vec<usize>,
}

impl GraphIndex {
    pub(crate) fn build(
        layers: &[Layer],
        edges: &[Edge],
        ids: HashMap<u64, usize>,
    ) -> Result<GraphIndex, IrError> {
        let mut producers: HashMap<PortRef, PortRef> = HashMap::new();
        let mut consumers: HashMap<PortRef, Vec<PortRef>> = HashMap::new();
        // preds[i] = producing layer indices of layer i (one per edge).
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); layers.len()];
        for e in edges {
            let missing_layer = |side, missing| IrError::EdgeMissingLayer {
                from_layer: e.from_layer,
                from_port: e.from_port,
                to_layer: e.to_layer,
                to_port: e.to_port,
                side,
                missing,
            };
            let missing_port = |side, layer, port| IrError::EdgeMissingPort {
                from_layer: e.from_layer,
                from_port: e.from_port,
                to_layer: e.to_layer,
                to_port: e.to_port,
                layer,
                port,
                side,
            };
            let &fi = ids
                .get(&e.from_layer)
                .ok_or_else(|| missing_layer(PortSide::Output, e.from_layer))?;
            let &ti = ids
                .get(&e.to_layer)
                .ok_or_else(|| missing_layer(PortSide::Input, e.to_layer))?;
            if layers[fi].output_index(e.from_port).is_none() {
                return Err(missing_port(PortSide::Output, e.from_layer, e.from_port));
            }
            if layers[ti].input_index(e.to_port).is_none() {
                return Err(missing_port(PortSide::Input, e.to_layer, e.to_port));
            }
            let from = PortRef {
                layer: e.from_layer,
                port: e.from_port,
            };
            let to = PortRef {
                layer: e.to_layer,
                port: e.to_port,
            };
            if let Some(first) = producers.insert(to, from) {
                return Err(IrError::DuplicateInputEdge {
                    layer: to.layer,
                    port: to.port,
                    first_layer: first.layer,
                    first_port: first.port,
                    second_layer: from.layer,
                    second_port: from.port,
                });
            }
            consumers.entry(from).or_default().push(to);
            preds[ti].push(fi);
        }
        let topo = topo_sort(layers, &preds)?;
        Ok(GraphIndex {
            ids,
            producers,
            consumers,
            topo,
        })
    }
}

/// The shared Kahn order ([`crate::graph::topological_order`]); a cycle is a typed
/// error naming one of its members.
fn topo_sort(layers: &[Layer], preds: &[Vec<usize>]) -> Result<Vec<usize>, IrError> {
    crate::graph::topological_order(preds).map_err(|c| IrError::Cycle {
        layer: layers[c.member].id,
        name: layers[c.member].name.clone(),
    })
}

impl IrGraph {
    /// The layer with id `id`.
    pub fn layer(&self, id: u64) -> Option<&Layer> {
        self.index.ids.get(&id).map(|&i| &self.layers[i])
    }

    /// Position of layer `id` in [`IrGraph::layers`].
    pub fn layer_index(&self, id: u64) -> Option<usize> {
        self.index.ids.get(&id).copied()
    }

    /// The output port feeding input port `port` of layer `layer`, if connected.
    pub fn producer(&self, layer: u64, port: u64) -> Option<PortRef> {
        self.index.producers.get(&PortRef { layer, port }).copied()
    }

    /// For each input port of `layer` (in [`Layer::inputs`] order), its producer.
    /// Empty if the layer does not exist.
    pub fn input_producers(&self, layer: u64) -> Vec<Option<PortRef>> {
        match self.layer(layer) {
            Some(l) => l
                .inputs
                .iter()
                .map(|p| self.producer(layer, p.id))
                .collect(),
            None => Vec::new(),
        }
    }

    /// The input ports fed by output port `port` of layer `layer`, in edge order.
    pub fn consumers(&self, layer: u64, port: u64) -> &[PortRef] {
        self.index
            .consumers
            .get(&PortRef { layer, port })
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// Layer indices (into [`IrGraph::layers`]) in a topological order: every producer
    /// comes before its consumers; ties keep file order.
    pub fn topological_order(&self) -> &[usize] {
        &self.index.topo
    }

    /// Layers in topological order.
    pub fn layers_topological(&self) -> impl Iterator<Item = &Layer> + '_ {
        self.index.topo.iter().map(move |&i| &self.layers[i])
    }

    /// Layers whose IR type is `type_name` (as written, e.g. `"Const"`), in file order.
    pub fn layers_of_type<'a>(
        &'a self,
        type_name: &'a str,
    ) -> impl Iterator<Item = &'a Layer> + 'a {
        self.layers.iter().filter(move |l| l.type_name == type_name)
    }
}
