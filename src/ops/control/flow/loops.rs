//! ONNX `Loop`: the loop-carried values as the kernel finds them over every
//! iteration, and the scan outputs stacked over the trip count when it is known.

use super::merge::{either_dtype, empty_sequence, held_dtype, merge, unknown_optional};
use super::{
    carried, carried_fixpoint, graph_attr, input_value, is_true, pass_limit, set_output_composite,
    subgraph_values, unsettled, Fixpoint,
};
use crate::algebra::{Algebra, Dim, SymbolKind, Truth};
use crate::context::{
    Composite, OpError, OptionalElement, OptionalFact, SequenceFact, ShapesContext, SubgraphValue,
    TensorFact,
};
use crate::graph::{Attr, DType, Graph, Node};

/// The axis key of the fresh dim that stands for a carried sequence's length at the
/// start of an iteration (inside the body only).
pub(super) const LEN_AXIS: usize = usize::MAX - 1;

/// What the body of a Loop sees of one carried value in a pass: the value, and
/// whether it is an empty sequence or an empty optional whose element facts are not
/// yet known (`open`: the body sees the initial value itself, which is exact for the
/// first iteration; what the elements share comes from what the body puts in).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct CarriedState {
    value: SubgraphValue,
    open: bool,
}

/// The names of the nodes of `g` and of its subgraphs.
pub(crate) fn node_names(g: &Graph, out: &mut rustc_hash::FxHashSet<String>) {
    for n in &g.nodes {
        out.insert(n.name.clone());
        for a in n.attrs.values() {
            match a {
                Attr::Graph(sub) => node_names(sub, out),
                Attr::Graphs(subs) => subs.iter().for_each(|sub| node_names(sub, out)),
                _ => {}
            }
        }
    }
}

/// True when `d` mentions a data-dependent symbol of a node of `body` (directly or
/// through the definition of a derived symbol): a value that may differ from one
/// iteration to the next, though it has one name.
pub(crate) fn mentions_body_symbol(
    alg: &Algebra,
    d: Dim,
    body: &rustc_hash::FxHashSet<String>,
) -> bool {
    let mut todo = Vec::new();
    alg.canon(d).symbols(&mut todo);
    let mut seen = 0usize;
    while let Some(s) = todo.pop() {
        seen += 1;
        if seen > 256 {
            // a long chain of definitions: assume the worst
            return true;
        }
        match alg.symbol_entry(s.as_str()).map(|e| &e.kind) {
            Some(SymbolKind::DataDependent { node }) if body.contains(node) => return true,
            Some(SymbolKind::Derived { definition }) => definition.symbols(&mut todo),
            _ => {}
        }
    }
    false
}

/// `f` without its contents, each dim that mentions a symbol of the body
/// ([`mentions_body_symbol`]) replaced by a fresh dim of `node` (output `out`).
pub(super) fn outside_body(
    ctx: &mut ShapesContext,
    node: &Node,
    out: usize,
    f: &TensorFact,
    body: &rustc_hash::FxHashSet<String>,
) -> TensorFact {
    let shape = f.shape.as_ref().map(|s| {
        s.iter()
            .enumerate()
            .map(|(axis, &d)| {
                if mentions_body_symbol(&ctx.alg, d, body) {
                    ctx.unknown_dim(node, out, axis)
                } else {
                    d
                }
            })
            .collect()
    });
    TensorFact {
        fill: None,
        dtype: f.dtype,
        shape,
        value: None,
    }
}

/// The fresh dim that stands for carried value `i`'s length at the start of an
/// iteration.
pub(super) fn iteration_len(ctx: &mut ShapesContext, node: &Node, i: usize) -> Dim {
    ctx.unknown_dim(node, i, LEN_AXIS)
}

/// What the body sees of carried sequence `i` whose elements share `elem`: that, and
/// a length of the iteration's own ([`iteration_len`]).
pub(super) fn carried_sequence(
    ctx: &mut ShapesContext,
    node: &Node,
    i: usize,
    elem: TensorFact,
) -> SequenceFact {
    let len = iteration_len(ctx, node, i);
    SequenceFact {
        elem: TensorFact {
            value: None,
            fill: None,
            ..elem
        },
        len: Some(len),
        elems: None,
    }
}

/// The first pass's view of a carried value of initial value `init`.
pub(super) fn carried_start(
    ctx: &mut ShapesContext,
    node: &Node,
    i: usize,
    init: &SubgraphValue,
) -> CarriedState {
    let fact = TensorFact {
        value: None,
        fill: None,
        ..init.fact.clone()
    };
    let (composite, open) = match &init.composite {
        None => (None, false),
        Some(Composite::Sequence(s)) if empty_sequence(ctx, s) => (init.composite.clone(), true),
        Some(Composite::Sequence(s)) => {
            let seq = carried_sequence(ctx, node, i, s.elem.clone());
            (Some(Composite::Sequence(seq)), false)
        }
        Some(Composite::Optional(o)) => (
            Some(Composite::Optional(o.clone())),
            o.present == Some(false),
        ),
    };
    CarriedState {
        value: SubgraphValue { fact, composite },
        open,
    }
}

/// The next pass's view of carried value `i` after the body turned `state` into
/// `out`: tensors keep the state's dims the body provably keeps ([`carried`]); a sequence's
/// elements share what the elements seen so far and the body's elements share, with
/// the iteration's own length; an optional is present when it stays so, and holds
/// what both hold. What an open state's body puts in counts with only the dims that
/// do not mention the body's own symbols.
pub(super) fn carried_next(
    ctx: &mut ShapesContext,
    node: &Node,
    i: usize,
    state: &CarriedState,
    out: &SubgraphValue,
    body: &rustc_hash::FxHashSet<String>,
) -> CarriedState {
    let fact = carried(ctx, node, i, &state.value.fact, &out.fact);
    let dtype = fact.dtype;
    let composite = match (&state.value.composite, &out.composite) {
        (None, None) => None,
        (Some(Composite::Sequence(_)), o) | (None, o @ Some(Composite::Sequence(_))) => {
            let unknown = SequenceFact::unknown(dtype);
            let o = match o {
                Some(Composite::Sequence(o)) => o,
                _ => &unknown,
            };
            let elem = if state.open {
                outside_body(ctx, node, i, &o.elem, body)
            } else {
                let s = match &state.value.composite {
                    Some(Composite::Sequence(s)) => s.elem.clone(),
                    _ => TensorFact::unknown(dtype),
                };
                merge(ctx, node, i, &s, &o.elem, false)
            };
            Some(Composite::Sequence(carried_sequence(ctx, node, i, elem)))
        }
        (Some(Composite::Optional(_)), o) | (None, o @ Some(Composite::Optional(_))) => {
            let unknown = unknown_optional(dtype);
            let o = match o {
                Some(Composite::Optional(o)) => o,
                _ => &unknown,
            };
            let s = match &state.value.composite {
                Some(Composite::Optional(s)) => s.clone(),
                _ => unknown_optional(dtype),
            };
            let present = if s.present == o.present {
                s.present
            } else {
                None
            };
            let elem = match (&s.elem, &o.elem) {
                _ if s.present == Some(false) => match &o.elem {
                    OptionalElement::Tensor(t) => {
                        OptionalElement::Tensor(outside_body(ctx, node, i, t, body))
                    }
                    OptionalElement::Sequence(q) => {
                        let e = outside_body(ctx, node, i, &q.elem, body);
                        let len = ctx.unknown_dim(node, i, usize::MAX);
                        OptionalElement::Sequence(SequenceFact::uniform(e, Some(len)))
                    }
                },
                (OptionalElement::Tensor(x), OptionalElement::Tensor(y)) => {
                    let mut t = merge(ctx, node, i, x, y, false);
                    t.forget_contents();
                    OptionalElement::Tensor(t)
                }
                (OptionalElement::Sequence(x), OptionalElement::Sequence(y)) => {
                    let mut e = merge(ctx, node, i, &x.elem, &y.elem, false);
                    e.forget_contents();
                    let len = match (x.len, y.len) {
                        (Some(p), Some(q)) if ctx.alg.equal(p, q) == Truth::True => Some(p),
                        _ => Some(ctx.unknown_dim(node, i, usize::MAX)),
                    };
                    OptionalElement::Sequence(SequenceFact::uniform(e, len))
                }
                (x, y) => OptionalElement::Tensor(TensorFact::unknown(either_dtype(
                    held_dtype(x),
                    held_dtype(y),
                ))),
            };
            Some(Composite::Optional(OptionalFact { elem, present }))
        }
    };
    let open = state.open
        && matches!(&composite, Some(Composite::Optional(o)) if o.present == Some(false));
    CarriedState {
        value: SubgraphValue { fact, composite },
        open,
    }
}

/// The sequence or optional facts of carried value `i` after the loop. `converged`:
/// the state holds in every iteration; `last`: the body's output for it in the last
/// pass; `iterations`: the number of iterations, when known. A sequence's length is
/// the initial length when the body keeps it, the initial length plus `iterations`
/// times what one iteration adds when that is a constant, else a fresh dim.
#[allow(clippy::too_many_arguments)]
pub(super) fn carried_result(
    ctx: &mut ShapesContext,
    node: &Node,
    i: usize,
    init: &SubgraphValue,
    state: &CarriedState,
    last: Option<&SubgraphValue>,
    converged: bool,
    iterations: Option<Dim>,
) -> Option<Composite> {
    let dtype = state.value.fact.dtype;
    match &state.value.composite {
        None => None,
        Some(Composite::Sequence(s)) => {
            let fresh_len = |ctx: &mut ShapesContext| ctx.unknown_dim(node, i, usize::MAX);
            if !converged || state.open {
                let len = fresh_len(ctx);
                return Some(Composite::Sequence(SequenceFact::uniform(
                    TensorFact::unknown(dtype),
                    Some(len),
                )));
            }
            let l = iteration_len(ctx, node, i);
            let step = match last.and_then(|v| v.composite.as_ref()) {
                Some(Composite::Sequence(o)) => o.len.and_then(|ol| {
                    let d = ctx.alg.sub(ol, l);
                    ctx.alg.as_i64(d)
                }),
                _ => None,
            };
            let init_len = match &init.composite {
                Some(Composite::Sequence(s0)) => s0.len,
                _ => None,
            };
            let len = match (step, init_len, iterations) {
                (Some(0), Some(l0), _) => l0,
                (Some(c), Some(l0), Some(n)) => {
                    let c = ctx.alg.constant(c);
                    let grown = ctx.alg.mul(n, c);
                    ctx.alg.add_dims(l0, grown)
                }
                _ => fresh_len(ctx),
            };
            Some(Composite::Sequence(SequenceFact::uniform(
                s.elem.clone(),
                Some(len),
            )))
        }
        Some(Composite::Optional(o)) => Some(Composite::Optional(if converged {
            o.clone()
        } else {
            unknown_optional(dtype)
        })),
    }
}

/// The trip count `M` of Loop `node` when the loop runs it all: it has no
/// condition, or the condition is true on entry and `body_cond`, the body's
/// condition output, provably returns true (a constant, or the condition input
/// passed through). From the context's facts of the node's inputs; what
/// `loop_rule` stacks scan outputs over (see also [`super::iterations`]).
pub(super) fn trip_count(
    ctx: &ShapesContext,
    node: &Node,
    body_cond: Option<&TensorFact>,
) -> Option<Dim> {
    let trip = ctx.get(node.input(0)?)?;
    let runs_all = match node.input(1) {
        None => true,
        Some(c) => {
            ctx.get(c).is_some_and(|c| is_true(ctx, c))
                && body_cond.is_some_and(|c| is_true(ctx, c))
        }
    };
    trip.value.as_ref()?.first().copied().filter(|_| runs_all)
}

pub(super) fn loop_rule(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let body = graph_attr(node, "body")?;
    // The trip count's facts must be known when it is given (else an error).
    ctx.optional_input(node, 0)?;
    let has_cond = node.input(1).is_some();
    let n_carried = node.inputs.len().saturating_sub(2);
    let mut init = Vec::with_capacity(n_carried);
    for i in 0..n_carried {
        init.push(input_value(ctx, node, i + 2, "v_initial")?);
    }
    let i64_scalar = TensorFact::new(DType::Int64, vec![]);
    let mut bool_scalar = TensorFact::new(DType::Bool, vec![]);
    if has_cond {
        // With a condition, an iteration runs only while it is true: inside the
        // body the condition input is always true.
        bool_scalar.value = Some(vec![ctx.alg.constant(1)]);
    }
    let head = [
        SubgraphValue::tensor(i64_scalar),
        SubgraphValue::tensor(bool_scalar),
    ];
    // The body sees carried values with their loop-invariant facts only: first infer
    // with the initial facts, then again with those that survived, until they stay.
    let start: Vec<CarriedState> = init
        .iter()
        .enumerate()
        .map(|(i, v)| carried_start(ctx, node, i, v))
        .collect();
    // The body's own node names, for what an empty carried sequence or optional
    // takes in (only when there is one).
    let mut body_nodes = rustc_hash::FxHashSet::default();
    if start.iter().any(|c| c.open) {
        node_names(body, &mut body_nodes);
    }
    let limit = pass_limit(init.iter().flat_map(|v| {
        let elem = match &v.composite {
            Some(Composite::Sequence(s)) => Some(&s.elem),
            Some(Composite::Optional(o)) => match &o.elem {
                OptionalElement::Tensor(t) => Some(t),
                OptionalElement::Sequence(s) => Some(&s.elem),
            },
            None => None,
        };
        std::iter::once(&v.fact).chain(elem)
    }));
    let step = |state: &[CarriedState]| -> Result<_, OpError> {
        let mut inputs: Vec<SubgraphValue> = head.to_vec();
        inputs.extend(state.iter().map(|c| c.value.clone()));
        let outs = subgraph_values(ctx, body, &inputs, "body")?;
        let next: Vec<CarriedState> = (0..n_carried)
            .map(|i| match outs.get(i + 1) {
                Some(b) => carried_next(ctx, node, i, &state[i], b, &body_nodes),
                None => CarriedState {
                    value: SubgraphValue::tensor(TensorFact::unknown(init[i].fact.dtype)),
                    open: false,
                },
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
    }
    if has_cond {
        // The condition's facts must be known when it is given (else an error).
        ctx.input(node, 1, "cond")?;
    }
    let trip_dim = trip_count(ctx, node, outs.first().map(|v| &v.fact));
    let iterations = trip_dim.filter(|d| ctx.alg.bounds(*d).is_nonneg());
    let mut result = Vec::with_capacity(node.outputs.len());
    for (i, st) in state.iter().enumerate() {
        let last = outs.get(i + 1);
        let c = carried_result(ctx, node, i, &init[i], st, last, converged, iterations);
        set_output_composite(ctx, node, i, c);
        result.push(if converged {
            st.value.fact.clone()
        } else {
            TensorFact::unknown(st.value.fact.dtype)
        });
    }
    for (k, scan) in outs.iter().skip(1 + n_carried).enumerate() {
        let out = n_carried + k;
        if !converged {
            result.push(TensorFact::unknown(scan.fact.dtype));
            continue;
        }
        if scan.composite.is_some() {
            // ONNX: a scan output is a tensor (the body's per-iteration values are
            // stacked); a sequence or an optional cannot be.
            let msg = format!(
                "{}: scan output {k} of the body (`{}`) is a sequence or an optional; a Loop's scan outputs must be tensors",
                crate::context::node_context(node),
                body.outputs.get(1 + n_carried + k).map_or("", |v| &*v.name)
            );
            ctx.diagnose_error(node, msg, true);
            result.push(TensorFact::unknown(scan.fact.dtype));
            continue;
        }
        let len: Dim = match trip_dim {
            Some(d) => d,
            None => {
                let kind = SymbolKind::DataDependent {
                    node: node.name.clone(),
                };
                ctx.fresh_dim(node, out, 0, "iter", kind)
            }
        };
        let shape = scan
            .fact
            .shape
            .as_ref()
            .map(|s| std::iter::once(len).chain(s.iter().copied()).collect());
        result.push(TensorFact {
            fill: None,
            dtype: scan.fact.dtype,
            shape,
            value: None,
        });
    }
    Ok(result)
}
