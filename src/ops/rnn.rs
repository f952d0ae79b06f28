//! Recurrent layers: LSTM, GRU and RNN.
//!
//! Spec: <https://onnx.ai/onnx/operators/onnx__LSTM.html> (and GRU, RNN).
//!
//! With `G` gates (LSTM 4, GRU 3, RNN 1), `D` directions (2 for
//! `bidirectional`, else 1) and hidden size `H`:
//! - `X` is `[seq, batch, input]` (`layout = 0`) or `[batch, seq, input]`
//!   (`layout = 1`);
//! - `W` is `[D, G*H, input]`, `R` is `[D, G*H, H]`, `B` is `[D, 2*G*H]`,
//!   `sequence_lens` is `[batch]`, `initial_h`/`initial_c` are `[D, batch, H]`
//!   (`[batch, D, H]` with layout 1) and LSTM's `P` is `[D, 3*H]`;
//! - `Y` is `[seq, D, batch, H]` (layout 1: `[batch, seq, D, H]`); `Y_h` and
//!   LSTM's `Y_c` are `[D, batch, H]` (layout 1: `[batch, D, H]`).
//!
//! `H` is the `hidden_size` attribute, or `R`'s last dim when the attribute is
//! absent. Every input dim is checked against these: provably different is a
//! [`OpError::DimMismatch`], undecided is unified (a valid model needs it).
//!
//! Version history (shape-relevant):
//! - LSTM-1, GRU-1, RNN-1: `output_sequence` attribute (Y optional).
//! - LSTM-7, GRU-7, RNN-7: `output_sequence` removed (shapes unchanged).
//! - GRU-3: `linear_before_reset`.
//! - LSTM-14, GRU-14, RNN-14: `layout` attribute (batch-major layout 1).
//! - LSTM-22, GRU-22, RNN-22: types.

use super::nn_util::{expect_rank, rank_error, unify};
use super::{attr_int, attr_str, check_inputs, RuleEntry};
use crate::algebra::Dim;
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::Node;

/// The rules of this family.
pub const RULES: &[RuleEntry] = &[("", "LSTM", lstm), ("", "GRU", gru), ("", "RNN", rnn)];

fn lstm(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 8)?;
    recurrent(ctx, node, 4)
}

fn gru(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 6)?;
    recurrent(ctx, node, 3)
}

fn rnn(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 6)?;
    recurrent(ctx, node, 1)
}

/// Check an input's dims against expected dims (`None` = not checked).
fn check_dims(
    ctx: &mut ShapesContext,
    node: &Node,
    fact: &Option<TensorFact>,
    what: &'static str,
    expected: &[Option<Dim>],
) -> Result<(), OpError> {
    let Some(shape) = fact.as_ref().and_then(|f| f.shape.as_ref()) else {
        return Ok(());
    };
    expect_rank(what, shape, expected.len())?;
    for (axis, (d, e)) in shape.iter().zip(expected).enumerate() {
        if let Some(e) = e {
            unify(ctx, node, &format!("axis {axis} of {what}"), *d, *e)?;
        }
    }
    Ok(())
}

fn recurrent(ctx: &mut ShapesContext, node: &Node, gates: i64) -> Result<Vec<TensorFact>, OpError> {
    let x = ctx.input(node, 0, "X")?;
    let w = ctx.input(node, 1, "W")?;
    let r = ctx.input(node, 2, "R")?;
    let layout = if node.version >= 14 {
        attr_int(node, "layout", 0)?
    } else {
        0
    };
    if layout != 0 && layout != 1 {
        return Err(OpError::BadAttribute {
            name: "layout",
            value: layout.to_string(),
            why: "expected 0 or 1".to_string(),
        });
    }
    let dirs = match attr_str(node, "direction")?.unwrap_or("forward") {
        "forward" | "reverse" => 1,
        "bidirectional" => 2,
        other => {
            return Err(OpError::BadAttribute {
                name: "direction",
                value: format!("{other:?}"),
                why: "expected forward, reverse or bidirectional".to_string(),
            })
        }
    };
    let dirs = ctx.alg.constant(dirs);
    let g = ctx.alg.constant(gates);
    // Hidden size: the attribute, else R's last dim, else W's second dim / G.
    let hidden_attr = match node.attr("hidden_size") {
        None => None,
        Some(_) => {
            let h = attr_int(node, "hidden_size", 0)?;
            if h <= 0 {
                return Err(OpError::BadAttribute {
                    name: "hidden_size",
                    value: h.to_string(),
                    why: "must be positive".to_string(),
                });
            }
            Some(ctx.alg.constant(h))
        }
    };
    let h = match (hidden_attr, &r.shape, &w.shape) {
        (Some(h), _, _) => h,
        (None, Some(rs), _) if rs.len() == 3 => rs[2],
        (None, _, Some(ws)) if ws.len() == 3 => ctx.alg.div(ws[1], g).map_err(OpError::from)?,
        _ => ctx.unknown_dim(node, 0, 3),
    };
    let gh = ctx.alg.mul(g, h);
    let (seq, batch, input) = match &x.shape {
        Some(xs) => {
            if xs.len() != 3 {
                return Err(rank_error("input X", 3, xs.len()));
            }
            if layout == 0 {
                (xs[0], xs[1], Some(xs[2]))
            } else {
                (xs[1], xs[0], Some(xs[2]))
            }
        }
        None => (
            ctx.unknown_dim(node, 0, usize::from(layout == 1)),
            ctx.unknown_dim(node, 0, if layout == 0 { 2 } else { 0 }),
            None,
        ),
    };
    check_dims(ctx, node, &Some(w), "W", &[Some(dirs), Some(gh), input])?;
    check_dims(ctx, node, &Some(r), "R", &[Some(dirs), Some(gh), Some(h)])?;
    let two = ctx.alg.constant(2);
    let bias_len = ctx.alg.mul(two, gh);
    let b = ctx.optional_input(node, 3)?;
    check_dims(ctx, node, &b, "B", &[Some(dirs), Some(bias_len)])?;
    let lens = ctx.optional_input(node, 4)?;
    check_dims(ctx, node, &lens, "sequence_lens", &[Some(batch)])?;
    let state: Vec<Option<Dim>> = if layout == 0 {
        vec![Some(dirs), Some(batch), Some(h)]
    } else {
        vec![Some(batch), Some(dirs), Some(h)]
    };
    let init_h = ctx.optional_input(node, 5)?;
    check_dims(ctx, node, &init_h, "initial_h", &state)?;
    if gates == 4 {
        let init_c = ctx.optional_input(node, 6)?;
        check_dims(ctx, node, &init_c, "initial_c", &state)?;
        let three = ctx.alg.constant(3);
        let p_len = ctx.alg.mul(three, h);
        let p = ctx.optional_input(node, 7)?;
        check_dims(ctx, node, &p, "P", &[Some(dirs), Some(p_len)])?;
    }
    let y = if layout == 0 {
        vec![seq, dirs, batch, h]
    } else {
        vec![batch, seq, dirs, h]
    };
    let yh = if layout == 0 {
        vec![dirs, batch, h]
    } else {
        vec![batch, dirs, h]
    };
    let mut out = vec![
        TensorFact::new(x.dtype, y),
        TensorFact::new(x.dtype, yh.clone()),
    ];
    if gates == 4 {
        out.push(TensorFact::new(x.dtype, yh));
    }
    Ok(out)
}
