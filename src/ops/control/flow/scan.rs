//! ONNX `Scan` (opset 8 with its batch axis, 9 and later with scan axes): the
//! states over every iteration, the scan outputs stacked along the scanned length.

use super::{carried, carried_fixpoint, graph_attr, pass_limit, subgraph, unsettled, Fixpoint};
use crate::algebra::Dim;
use crate::context::{Expected, OpError, ShapesContext, TensorFact};
use crate::graph::Node;
use crate::ops::common::attrs::{attr_int, attr_ints};
use crate::ops::common::dims::rank_of;
use crate::ops::common::norm_axis;

/// How a Scan's inputs are laid out: `first` leading inputs before the states
/// (opset 8's `sequence_lens`), `n_state` states, then `n_scan_in` scan inputs;
/// `batched` in opset 8, where every state and scan input has the batch axis first.
pub(super) struct ScanLayout {
    first: usize,
    n_state: usize,
    n_scan_in: usize,
    batched: bool,
}

/// The layout of a Scan node's inputs (`num_scan_inputs` of them scanned).
pub(super) fn scan_layout(node: &Node) -> Result<ScanLayout, OpError> {
    let n_scan_in = attr_int(node, "num_scan_inputs", -1)?;
    if n_scan_in < 1 {
        return Err(OpError::MissingAttribute {
            name: "num_scan_inputs",
        });
    }
    let n_scan_in = n_scan_in as usize;
    // Opset 8 has a leading optional sequence_lens input and a batch axis.
    let batched = node.version < 9;
    let first = usize::from(batched);
    let n_inputs = node.inputs.len().saturating_sub(first);
    if n_scan_in > n_inputs {
        return Err(OpError::InputCount {
            expected: Expected::Counting(Box::new(Expected::AtLeast(n_scan_in)), "scan inputs"),
            found: n_inputs,
        });
    }
    Ok(ScanLayout {
        first,
        n_state: n_inputs - n_scan_in,
        n_scan_in,
        batched,
    })
}

/// A Scan's inputs as its body sees them: the states' facts, then, per scan input,
/// its shape without the scanned axis (and, in opset 8, without the batch axis);
/// with the batch dim and the sequence length they give.
pub(super) struct ScanInputs {
    states: Vec<TensorFact>,
    body_inputs: Vec<TensorFact>,
    batch: Option<Dim>,
    seq_len: Option<Dim>,
}

/// Read a Scan's states and scan inputs (`in_axes`: the scanned axis of each).
pub(super) fn scan_inputs(
    ctx: &ShapesContext,
    node: &Node,
    layout: &ScanLayout,
    in_axes: &[i64],
) -> Result<ScanInputs, OpError> {
    let ScanLayout {
        first,
        n_state,
        n_scan_in,
        batched,
    } = *layout;
    let mut states = Vec::with_capacity(n_state);
    for i in 0..n_state {
        states.push(ctx.input(node, first + i, "initial_state")?);
    }
    // Opset 8: every state and scan input has the batch axis first, and the body
    // sees one batch element (the outputs get the axis back).
    let mut batch: Option<Dim> = None;
    let mut body_inputs: Vec<TensorFact> = Vec::with_capacity(n_state + n_scan_in);
    for f in &states {
        let shape = match (&f.shape, batched) {
            (Some(s), true) if s.is_empty() => {
                return Err(rank_of(
                    "scan state",
                    Expected::AtLeast(1).noted("batch"),
                    0,
                ))
            }
            (Some(s), true) => {
                batch.get_or_insert(s[0]);
                Some(s[1..].to_vec())
            }
            (shape, _) => shape.clone(),
        };
        body_inputs.push(TensorFact {
            fill: None,
            dtype: f.dtype,
            shape,
            value: None,
        });
    }
    let mut seq_len: Option<Dim> = None;
    for j in 0..n_scan_in {
        let x = ctx.input(node, first + n_state + j, "scan_input")?;
        let Some(mut shape) = x.shape.clone() else {
            body_inputs.push(TensorFact::unknown(x.dtype));
            continue;
        };
        if batched {
            if shape.len() < 2 {
                return Err(rank_of(
                    "scan input",
                    Expected::AtLeast(2).noted("batch, sequence"),
                    shape.len(),
                ));
            }
            let len = shape.remove(1);
            seq_len.get_or_insert(len);
            batch.get_or_insert(shape.remove(0));
        } else {
            let axis = norm_axis(in_axes.get(j).copied().unwrap_or(0), shape.len())?;
            let len = shape.remove(axis);
            seq_len.get_or_insert(len);
        }
        body_inputs.push(TensorFact::new(x.dtype, shape));
    }
    Ok(ScanInputs {
        states,
        body_inputs,
        batch,
        seq_len,
    })
}

/// The scanned axis of each scan input (`scan_input_axes`, default 0).
fn input_axes(node: &Node, layout: &ScanLayout) -> Result<Vec<i64>, OpError> {
    Ok(attr_ints(node, "scan_input_axes")?
        .map(<[i64]>::to_vec)
        .unwrap_or_else(|| vec![0; layout.n_scan_in]))
}

/// The number of body runs of Scan `node` once inferred, as factors: the sequence
/// length `scan_rule` stacks over, times the batch in opset 8 (where
/// `sequence_lens`, when given, may stop a batch element early: then `None`). See
/// [`super::iterations`].
pub(super) fn scan_count(ctx: &ShapesContext, node: &Node) -> Option<Vec<Dim>> {
    let layout = scan_layout(node).ok()?;
    let in_axes = input_axes(node, &layout).ok()?;
    let inputs = scan_inputs(ctx, node, &layout, &in_axes).ok()?;
    let len = inputs.seq_len?;
    if !layout.batched {
        return Some(vec![len]);
    }
    if node.input(0).is_some() {
        return None;
    }
    Some(vec![inputs.batch?, len])
}

pub(super) fn scan_rule(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let body = graph_attr(node, "body")?;
    let layout = scan_layout(node)?;
    let (n_state, batched) = (layout.n_state, layout.batched);
    let in_axes = input_axes(node, &layout)?;
    let ScanInputs {
        states,
        mut body_inputs,
        batch,
        seq_len,
    } = scan_inputs(ctx, node, &layout, &in_axes)?;
    // The states as the Scan sees them (with the batch axis in opset 8), which the
    // body keeps or changes from one iteration to the next: the loop kernel finds the
    // facts that hold in every iteration. A state's shape is known only when the
    // batch is (opset 8 takes the batch from every known shape).
    let with_batch = |shape: &Option<Vec<Dim>>| -> Option<Vec<Dim>> {
        let shape = shape.as_ref()?;
        match (batched, batch) {
            (false, _) => Some(shape.clone()),
            (true, Some(b)) => Some(std::iter::once(b).chain(shape.iter().copied()).collect()),
            (true, None) => None,
        }
    };
    let start: Vec<TensorFact> = states
        .iter()
        .map(|f| TensorFact {
            value: None,
            fill: None,
            ..f.clone()
        })
        .collect();
    let scan_inputs = body_inputs.split_off(n_state);
    let limit = pass_limit(start.iter());
    // The body's outputs in the first iteration, which sees the initial states as
    // they are. Every iteration's scan outputs must have one shape (they are
    // stacked), so the first iteration's give the shape of all of them.
    let mut first: Option<Vec<TensorFact>> = None;
    let step = |st: &[TensorFact]| -> Result<_, OpError> {
        let inputs: Vec<TensorFact> = st
            .iter()
            .map(|f| TensorFact {
                fill: None,
                dtype: f.dtype,
                shape: match (&f.shape, batched) {
                    (Some(s), true) => Some(s[1..].to_vec()),
                    (shape, _) => shape.clone(),
                },
                value: None,
            })
            .chain(scan_inputs.iter().cloned())
            .collect();
        let outs = subgraph(ctx, body, &inputs, "body")?;
        if first.is_none() {
            first = Some(outs.clone());
        }
        let next = st
            .iter()
            .enumerate()
            .map(|(i, f)| match outs.get(i) {
                Some(o) => {
                    let b = TensorFact {
                        fill: None,
                        dtype: o.dtype,
                        shape: with_batch(&o.shape),
                        value: None,
                    };
                    carried(ctx, node, i, f, &b)
                }
                None => TensorFact::unknown(f.dtype),
            })
            .collect();
        Ok((outs, next))
    };
    let Fixpoint {
        state,
        outs,
        converged,
    } = carried_fixpoint(start, limit, step)?;
    if !converged {
        unsettled(ctx, node, limit);
        let dtypes = state
            .iter()
            .map(|f| f.dtype)
            .chain(outs.iter().skip(n_state).map(|o| o.dtype));
        return Ok(dtypes.map(TensorFact::unknown).collect());
    }
    let batch = match (batched, batch) {
        (true, Some(b)) => Some(b),
        (true, None) => Some(ctx.unknown_dim(node, 0, 0)),
        (false, _) => None,
    };
    let out_axes = attr_ints(node, "scan_output_axes")?.map(<[i64]>::to_vec);
    let rows = first.unwrap_or(outs);
    let mut result = state;
    for (k, o) in rows.iter().skip(n_state).enumerate() {
        let out = n_state + k;
        let len = match seq_len {
            Some(d) => d,
            None => ctx.unknown_dim(node, out, 0),
        };
        let axis = out_axes.as_ref().and_then(|a| a.get(k)).copied();
        result.push(scan_output(o, batch, len, axis)?);
    }
    Ok(result)
}

/// A scan output: the first iteration's per-iteration fact `o` stacked along a new
/// axis of length `len` (at `axis`, default 0), after the batch axis when there is
/// one (opset 8).
pub(super) fn scan_output(
    o: &TensorFact,
    batch: Option<Dim>,
    len: Dim,
    axis: Option<i64>,
) -> Result<TensorFact, OpError> {
    let shape = o.shape.as_ref().map(|s| -> Result<Vec<Dim>, OpError> {
        let mut v = s.clone();
        if let Some(b) = batch {
            v.splice(0..0, [b, len]);
        } else {
            let axis = norm_axis(axis.unwrap_or(0), v.len() + 1)?;
            v.insert(axis, len);
        }
        Ok(v)
    });
    Ok(TensorFact {
        fill: None,
        dtype: o.dtype,
        shape: shape.transpose()?,
        value: None,
    })
}
