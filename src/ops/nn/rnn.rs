//! Recurrent layers: ONNX LSTM, GRU and RNN; OpenVINO LSTMSequence, GRUSequence,
//! RNNSequence, LSTMCell, GRUCell and RNNCell.
//!
//! Specs: <https://onnx.ai/onnx/operators/onnx__LSTM.html> (and GRU, RNN); the
//! OpenVINO operation specifications (`LSTMSequence-5`, `GRUSequence-5`,
//! `RNNSequence-5`, `LSTMCell-4`, `GRUCell-3`, `RNNCell-0`).
//!
//! With `G` gates (LSTM 4, GRU 3, RNN 1), `D` directions (2 for
//! `bidirectional`, else 1) and hidden size `H`, a sequence layer gives `Y` and
//! the final hidden state (LSTM also the final cell state), laid out as
//! [`SeqLayout`] says ([`recurrent_outputs`]):
//! - ONNX `layout = 0`: `X` is `[seq, batch, input]`, `Y` `[seq, D, batch, H]`,
//!   the states `[D, batch, H]`;
//! - ONNX `layout = 1`: `X` is `[batch, seq, input]`, `Y` `[batch, seq, D, H]`,
//!   the states `[batch, D, H]`;
//! - OpenVINO: `X` is `[batch, seq, input]`, `Y` `[batch, D, seq, H]`, the states
//!   `[batch, D, H]`.
//!
//! ONNX: `W` is `[D, G*H, input]`, `R` is `[D, G*H, H]`, `B` is `[D, 2*G*H]`,
//! `sequence_lens` is `[batch]`, `initial_h`/`initial_c` have the states' layout
//! and LSTM's `P` is `[D, 3*H]`. `H` is the `hidden_size` attribute, or `R`'s last
//! dim when the attribute is absent. Every input dim is checked against these:
//! provably different is a [`OpError::DimMismatch`], undecided is unified (a
//! valid model needs it) with a warning.
//!
//! OpenVINO: `H` is the required `hidden_size` attribute; `initial_hidden_state`
//! (`[batch, D, H]`) is checked against `X` and the attributes, undecided dims
//! unified. A cell takes `X` `[batch, input]` and gives `[batch, H]` (LSTMCell
//! also the cell state).
//!
//! Version history, ONNX (shape-relevant):
//! - LSTM-1, GRU-1, RNN-1: `output_sequence` attribute (Y optional).
//! - LSTM-7, GRU-7, RNN-7: `output_sequence` removed (shapes unchanged).
//! - GRU-3: `linear_before_reset`.
//! - LSTM-14, GRU-14, RNN-14: `layout` attribute (batch-major layout 1).
//! - LSTM-22, GRU-22, RNN-22: types.
//!
//! Version history, OpenVINO: LSTMSequence-5, GRUSequence-5, RNNSequence-5 (the
//! `seq_lengths` input, `direction`); RNNCell-0, GRUCell-3, LSTMCell-0 and -4
//! (peepholes removed); the output shapes are the same in every version.
//!
//! onnxruntime's com.microsoft DynamicQuantizeLSTM (1) is LSTM with 8-bit weights
//! stored transposed (`W` `[D, input, 4*H]`, `R` `[D, H, 4*H]`) and their scales and
//! zero points (`dynamic_quantize_lstm`).
//!
//! Cost: `seq × batch × (vol(W) + vol(R))` MACs ([`COSTS`]).

use crate::algebra::{Algebra, Dim};
use crate::context::DimRole;
use crate::context::{AttrProblem, AttrValue};
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};
use crate::ops::common::attrs::{attr_int, attr_str};
use crate::ops::common::attrs::{ov_i64, ov_str, require_positive};
use crate::ops::common::check_inputs;
use crate::ops::common::dims::{expect_rank, merge_dim_as, rank_of, unify_as};
use crate::ops::cost::{contraction, input_dims, input_volume, times, Costs, OpCost};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("", ["LSTM"], lstm),
    ("", ["GRU"], gru),
    ("", ["RNN"], rnn),
    ("openvino", ["LSTMSequence", "GRUSequence", "RNNSequence"], openvino_sequence),
    ("openvino", ["LSTMCell", "GRUCell", "RNNCell"], openvino_cell),
    ("com.microsoft", ["DynamicQuantizeLSTM"], dynamic_quantize_lstm),
];

/// What the recurrent layers compute ([`crate::ops::cost`]). Every step of every
/// sequence (`seq × batch`, `X`'s first two dims in each layout) multiplies the
/// input by `W` (`[D, G*H, input]`) and the hidden state by `R`
/// (`[D, G*H, H]`): MACs `seq × batch × (vol(W) + vol(R))`, a cell's `batch ×
/// (vol(W) + vol(R))`. FLOPs `2 × MACs` plus, per hidden unit and step (`seq ×
/// batch × D × H`), the gates' elementwise work: LSTM 17 (two bias adds for each
/// of 4 gates, 3 sigmoids and 2 tanh, `c = f*c + i*g` 3, `h = o*tanh(c)` 1), GRU
/// 13 (bias adds 6, 2 sigmoids and a tanh, the reset product 1, `h = (1-z)*n +
/// z*h` 3), RNN 3 (bias adds 2, the activation 1).
pub const COSTS: &[Costs] = &[Costs::by_op(rules![
    ("", ["LSTM"], lstm_cost),
    ("", ["GRU"], gru_cost),
    ("", ["RNN"], rnn_cost),
    ("openvino", ["LSTMSequence"], ov_lstm_sequence_cost),
    ("openvino", ["GRUSequence", "RNNSequence"], ov_sequence_cost),
    ("openvino", ["LSTMCell"], ov_lstm_cell_cost),
    ("openvino", ["GRUCell", "RNNCell"], ov_cell_cost),
    ("com.microsoft", ["DynamicQuantizeLSTM"], dq_lstm_cost),
])];

/// The gates' elementwise FLOPs per hidden unit and step (see [`COSTS`]).
fn gate_flops(op: &str) -> i64 {
    if op.starts_with("LSTM") || op == "DynamicQuantizeLSTM" {
        17
    } else if op.starts_with("GRU") {
        13
    } else {
        3
    }
}

/// A recurrence's cost: `steps × (vol(W) + vol(R))` MACs with `steps` the product
/// of `X`'s first `lead` dims; `R` is `[D, G*H, H]` (`cell`: `[G*H, H]`), `H` at
/// axis `h_axis` of `R`.
fn recurrent_cost(
    alg: &mut Algebra,
    ctx: &ShapesContext,
    node: &Node,
    (w, r): (usize, usize),
    cell: bool,
    h_axis: usize,
) -> OpCost {
    let lead = if cell { 1 } else { 2 };
    let steps = input_dims(ctx, node, 0)
        .filter(|x| x.len() > lead)
        .map(|x| alg.product(&x[..lead]));
    let rs = input_dims(ctx, node, r).filter(|r| r.len() == 3 - usize::from(cell));
    let (Some(steps), Some(wv), Some(rs)) = (steps, input_volume(alg, ctx, node, w), rs) else {
        return OpCost {
            macs: None,
            flops: None,
        };
    };
    let rv = alg.product(&rs);
    let weights = alg.add_dims(wv, rv);
    let macs = alg.mul(steps, weights);
    let units = if cell {
        rs[h_axis]
    } else {
        alg.mul(rs[0], rs[h_axis])
    };
    let per_step = alg.mul(steps, units);
    let extra = times(alg, gate_flops(&node.op_type), per_step);
    contraction(alg, Some(macs), Some(extra))
}

fn lstm_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    recurrent_cost(alg, ctx, node, (1, 2), false, 2)
}

fn gru_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    recurrent_cost(alg, ctx, node, (1, 2), false, 2)
}

fn rnn_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    recurrent_cost(alg, ctx, node, (1, 2), false, 2)
}

/// DynamicQuantizeLSTM: LSTM's cost, `R` being `[D, H, 4*H]`.
fn dq_lstm_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    recurrent_cost(alg, ctx, node, (1, 2), false, 1)
}

fn ov_lstm_sequence_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    recurrent_cost(alg, ctx, node, (4, 5), false, 2)
}

fn ov_sequence_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    recurrent_cost(alg, ctx, node, (3, 4), false, 2)
}

fn ov_lstm_cell_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    recurrent_cost(alg, ctx, node, (3, 4), true, 1)
}

fn ov_cell_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    recurrent_cost(alg, ctx, node, (2, 3), true, 1)
}

/// Where the sequence, batch and direction axes of a recurrent layer's outputs go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeqLayout {
    /// ONNX `layout = 0`: `Y [seq, D, batch, H]`, states `[D, batch, H]`.
    SeqMajor,
    /// ONNX `layout = 1`: `Y [batch, seq, D, H]`, states `[batch, D, H]`.
    BatchMajor,
    /// OpenVINO: `Y [batch, D, seq, H]`, states `[batch, D, H]`.
    BatchDirSeq,
}

/// The number of directions of a `direction` attribute: 1 for `forward` and
/// `reverse`, 2 for `bidirectional`.
pub fn directions(direction: &str) -> Option<i64> {
    match direction {
        "forward" | "reverse" => Some(1),
        "bidirectional" => Some(2),
        _ => None,
    }
}

/// The outputs of a recurrent layer: `Y` and the final hidden state, and with
/// `cell` (LSTM) the final cell state, of type `dtype`.
pub fn recurrent_outputs(
    dtype: DType,
    layout: SeqLayout,
    seq: Dim,
    batch: Dim,
    dirs: Dim,
    hidden: Dim,
    cell: bool,
) -> Vec<TensorFact> {
    let (y, state) = match layout {
        SeqLayout::SeqMajor => (vec![seq, dirs, batch, hidden], vec![dirs, batch, hidden]),
        SeqLayout::BatchMajor => (vec![batch, seq, dirs, hidden], vec![batch, dirs, hidden]),
        SeqLayout::BatchDirSeq => (vec![batch, dirs, seq, hidden], vec![batch, dirs, hidden]),
    };
    let mut out = vec![
        TensorFact::new(dtype, y),
        TensorFact::new(dtype, state.clone()),
    ];
    if cell {
        out.push(TensorFact::new(dtype, state));
    }
    out
}

/// The number of directions `D` of an ONNX `direction` attribute (default
/// `forward`), as a dim; another value is an error.
fn onnx_directions(ctx: &mut ShapesContext, node: &Node) -> Result<Dim, OpError> {
    let direction = attr_str(node, "direction")?.unwrap_or("forward");
    let dirs = directions(direction).ok_or_else(|| OpError::BadAttribute {
        name: "direction",
        value: AttrValue::Str(direction.to_string()),
        why: Box::new(AttrProblem::one_of(&[
            "forward",
            "reverse",
            "bidirectional",
        ])),
    })?;
    Ok(ctx.alg.constant(dirs))
}

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
            unify_as(ctx, node, DimRole::axis(axis, what), *d, *e)?;
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
            value: AttrValue::Int(layout),
            why: Box::new(AttrProblem::one_of_ints(&[0, 1])),
        });
    }
    let dirs = onnx_directions(ctx, node)?;
    let g = ctx.alg.constant(gates);
    // Hidden size: the attribute, else R's last dim, else W's second dim / G.
    let hidden_attr = match node.attr("hidden_size") {
        None => None,
        Some(_) => {
            let h = attr_int(node, "hidden_size", 0)?;
            require_positive("hidden_size", h)?;
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
                return Err(rank_of("input X", 3, xs.len()));
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
    let layout = if layout == 0 {
        SeqLayout::SeqMajor
    } else {
        SeqLayout::BatchMajor
    };
    Ok(recurrent_outputs(
        x.dtype,
        layout,
        seq,
        batch,
        dirs,
        h,
        gates == 4,
    ))
}

/// com.microsoft DynamicQuantizeLSTM (1): ONNX LSTM (layout 0) with 8-bit weights
/// stored transposed, `W` `[D, input, 4*H]` and `R` `[D, H, 4*H]`, `B` `[D, 8*H]`,
/// `P` `[D, 3*H]`, and the scales and zero points of `W` and `R` (inputs 8 to 11)
/// per direction `[D]` or per channel `[D, 4*H]`. `H` is `hidden_size`, else `R`'s
/// dim 1. Outputs as LSTM's, float: `Y` `[seq, D, batch, H]`, `Y_h` and `Y_c`
/// `[D, batch, H]` (onnxruntime's schema, `quantization_defs.cc`, whose shape
/// function is ONNX's `RNNShapeInference`).
fn dynamic_quantize_lstm(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 12, 12)?;
    let x = ctx.input(node, 0, "X")?;
    let w = ctx.input(node, 1, "W")?;
    let r = ctx.input(node, 2, "R")?;
    let dirs = onnx_directions(ctx, node)?;
    let four = ctx.alg.constant(4);
    let h = match (node.attr("hidden_size"), &r.shape, &w.shape) {
        (Some(_), _, _) => {
            let h = attr_int(node, "hidden_size", 0)?;
            require_positive("hidden_size", h)?;
            ctx.alg.constant(h)
        }
        (None, Some(rs), _) if rs.len() == 3 => rs[1],
        (None, _, Some(ws)) if ws.len() == 3 => ctx.alg.div(ws[2], four).map_err(OpError::from)?,
        _ => ctx.unknown_dim(node, 0, 3),
    };
    let gh = ctx.alg.mul(four, h);
    let (seq, batch, input) = match &x.shape {
        Some(xs) if xs.len() == 3 => (xs[0], xs[1], Some(xs[2])),
        Some(xs) => return Err(rank_of("input X", 3, xs.len())),
        None => (
            ctx.unknown_dim(node, 0, 0),
            ctx.unknown_dim(node, 0, 2),
            None,
        ),
    };
    check_dims(ctx, node, &Some(w), "W", &[Some(dirs), input, Some(gh)])?;
    check_dims(ctx, node, &Some(r), "R", &[Some(dirs), Some(h), Some(gh)])?;
    let eight = ctx.alg.constant(8);
    let bias_len = ctx.alg.mul(eight, h);
    let b = ctx.optional_input(node, 3)?;
    check_dims(ctx, node, &b, "B", &[Some(dirs), Some(bias_len)])?;
    let lens = ctx.optional_input(node, 4)?;
    check_dims(ctx, node, &lens, "sequence_lens", &[Some(batch)])?;
    let state = [Some(dirs), Some(batch), Some(h)];
    for (i, what) in [(5, "initial_h"), (6, "initial_c")] {
        let f = ctx.optional_input(node, i)?;
        check_dims(ctx, node, &f, what, &state)?;
    }
    let three = ctx.alg.constant(3);
    let p_len = ctx.alg.mul(three, h);
    let p = ctx.optional_input(node, 7)?;
    check_dims(ctx, node, &p, "P", &[Some(dirs), Some(p_len)])?;
    for (i, what) in [
        (8, "W_scale"),
        (9, "W_zero_point"),
        (10, "R_scale"),
        (11, "R_zero_point"),
    ] {
        let f = ctx.optional_input(node, i)?;
        match f.as_ref().and_then(|f| f.shape.as_ref()).map(Vec::len) {
            Some(1) => check_dims(ctx, node, &f, what, &[Some(dirs)])?,
            Some(_) => check_dims(ctx, node, &f, what, &[Some(dirs), Some(gh)])?,
            None => {}
        }
    }
    Ok(recurrent_outputs(
        DType::Float,
        SeqLayout::SeqMajor,
        seq,
        batch,
        dirs,
        h,
        true,
    ))
}

/// OpenVINO LSTMSequence, GRUSequence, RNNSequence (5): X `[B, T, I]`,
/// initial_hidden_state `[B, D, H]`, (initial_cell_state), seq_lengths `[B]`, W,
/// R, B.
fn openvino_sequence(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let x = ctx.input(node, 0, "X")?;
    let h0 = ctx.input(node, 1, "initial_hidden_state")?;
    let hidden = ov_i64(node, "hidden_size")?.ok_or(OpError::MissingAttribute {
        name: "hidden_size",
    })?;
    let dirs = directions(ov_str(node, "direction")?.unwrap_or("forward")).unwrap_or(1);
    let h = ctx.alg.constant(hidden);
    let d = ctx.alg.constant(dirs);
    let (b, t) = match x.shape.as_deref() {
        Some([b, t, _]) => (*b, *t),
        Some(s) => return Err(rank_of("X", 3, s.len())),
        None => (ctx.unknown_dim(node, 0, 0), ctx.unknown_dim(node, 0, 2)),
    };
    if let Some([hb, hd, hh]) = h0.shape.as_deref() {
        merge_dim_as(
            ctx,
            node,
            DimRole::of("batch", ("X", "initial_hidden_state")),
            b,
            *hb,
        )?;
        merge_dim_as(
            ctx,
            node,
            DimRole::of("directions", "initial_hidden_state"),
            d,
            *hd,
        )?;
        merge_dim_as(
            ctx,
            node,
            DimRole::of("hidden_size", "initial_hidden_state"),
            h,
            *hh,
        )?;
    }
    let lstm = node.op_type == "LSTMSequence";
    Ok(recurrent_outputs(
        x.dtype,
        SeqLayout::BatchDirSeq,
        t,
        b,
        d,
        h,
        lstm,
    ))
}

/// OpenVINO LSTMCell, GRUCell, RNNCell: X `[B, I]`, H `[B, H]` → Ho `[B, H]`
/// (LSTMCell also Co).
fn openvino_cell(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let x = ctx.input(node, 0, "X")?;
    let hidden = ov_i64(node, "hidden_size")?.ok_or(OpError::MissingAttribute {
        name: "hidden_size",
    })?;
    let h = ctx.alg.constant(hidden);
    let b = match x.shape.as_deref() {
        Some([b, _]) => *b,
        Some(s) => return Err(rank_of("X", 2, s.len())),
        None => ctx.unknown_dim(node, 0, 0),
    };
    let outs = if node.op_type == "LSTMCell" { 2 } else { 1 };
    Ok((0..outs)
        .map(|_| TensorFact::new(x.dtype, vec![b, h]))
        .collect())
}
