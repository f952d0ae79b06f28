//! oneDNN Graph shape rules (domain `onednn`).
//!
//! Specs followed: oneDNN's graph operation documents (`doc/graph_api/operations/
//! *.md`) and `src/graph/interface/shape_infer.cpp`. Attributes arrive typed (see
//! `crate::onednn::to_graph`: bools and s64 as ints). The output type of every op is
//! the converter's `dst_dtype` attribute when present (the file's output dtype when
//! it differs from input 0's), else input 0's type.
//!
//! | op | shape |
//! | --- | --- |
//! | `StaticTranspose` | `order` (negative entries allowed) |
//! | `Concat` | sum on `axis` |
//! | `Convolution` | `strides`, `pads_*`, `dilations`, `auto_pad`, `groups`, `data_format` NCX/NXC, `weights_format` OIX/XIO |
//! | `AvgPool`, `MaxPool` | `kernel`, `strides`, `pads_*`, `dilations` (MaxPool), `rounding_type`, `auto_pad`, `data_format` |
//! | `Interpolate` | spatial dims from `sizes` or `floor(d * scales)` (`data_format`) |
//! | `End` | no output |
//!
//! `StaticReshape` is in `src/ops/reshape.rs`; its rule checks the `shape` attribute
//! against symbolic inputs with `crate::onednn::to_graph::check_shape_attr`.

use super::nn_util::channel_axis;
use super::nn_util::merge_dim;
use super::openvino::{permutation, transposed, window_dim, PadMode, Rounding};
use super::unknown_outputs;
use super::{attr_int, attr_ints, attr_str, norm_axis, RuleEntry};
use crate::algebra::{Dim, Rat};
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::{Attr, DType, Node};

/// The oneDNN domain.
pub const DOMAIN: &str = "onednn";

/// The output type: `dst_dtype` when the converter set it, else `default`.
pub fn out_dtype(node: &Node, default: DType) -> DType {
    match node.attr("dst_dtype") {
        Some(Attr::Str(s)) => DType::from_short_name(s).unwrap_or(default),
        _ => default,
    }
}

/// StaticTranspose: `order`, negative entries count from the end.
fn static_transpose(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    super::check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "src")?;
    let order = attr_ints(node, "order")?
        .ok_or(OpError::MissingAttribute { name: "order" })?
        .to_vec();
    let Some(shape) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(out_dtype(node, x.dtype))]);
    };
    let perm = permutation(&order, shape.len())?;
    let dtype = out_dtype(node, x.dtype);
    let mut out = transposed(ctx, x, &shape, &perm)?;
    out[0].dtype = dtype;
    Ok(out)
}

/// Concat: `axis`; the other dims are equal.
fn concat(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let n = node.input_count();
    let first = ctx.input(node, 0, "src")?;
    let dtype = out_dtype(node, first.dtype);
    let mut shapes = Vec::with_capacity(n);
    for i in 0..n {
        match ctx.input(node, i, "src")?.shape {
            Some(s) => shapes.push(s),
            None => return Ok(vec![TensorFact::unknown(dtype)]),
        }
    }
    let rank = shapes[0].len();
    let axis = norm_axis(super::attr_int_required(node, "axis")?, rank)?;
    let out = super::concat::concat_dims(ctx, node, &shapes, axis)?;
    Ok(vec![TensorFact::new(dtype, out)])
}

/// A spatial list attribute with one entry per spatial axis (absent or empty:
/// `default`).
fn spatial(node: &Node, name: &'static str, n: usize, default: i64) -> Result<Vec<i64>, OpError> {
    match attr_ints(node, name)? {
        None => Ok(vec![default; n]),
        Some([]) => Ok(vec![default; n]),
        Some(v) if v.len() == n => Ok(v.to_vec()),
        Some(v) => Err(OpError::BadAttribute {
            name,
            value: format!("{v:?}"),
            why: format!("expected {n} values, one per spatial axis"),
        }),
    }
}

fn pad_mode(node: &Node) -> Result<PadMode, OpError> {
    let s = attr_str(node, "auto_pad")?.unwrap_or("None");
    PadMode::parse(s).ok_or_else(|| OpError::BadAttribute {
        name: "auto_pad",
        value: s.to_string(),
        why: "expected None, SAME_UPPER, SAME_LOWER or VALID".to_string(),
    })
}

/// (batch, channels, spatial dims) of a tensor in a `data_format`.
fn split_layout(node: &Node, shape: &[Dim]) -> Result<(Dim, Dim, Vec<Dim>, bool), OpError> {
    if shape.len() < 3 {
        return Err(OpError::Rank {
            what: "src".to_string(),
            expected: "at least 3".to_string(),
            found: shape.len(),
        });
    }
    let nxc = channel_axis(node, shape.len())? != 1;
    let (c, sp) = if nxc {
        (shape[shape.len() - 1], shape[1..shape.len() - 1].to_vec())
    } else {
        (shape[1], shape[2..].to_vec())
    };
    Ok((shape[0], c, sp, nxc))
}

fn join_layout(n: Dim, c: Dim, sp: Vec<Dim>, nxc: bool) -> Vec<Dim> {
    let mut out = vec![n];
    if nxc {
        out.extend(sp);
        out.push(c);
    } else {
        out.push(c);
        out.extend(sp);
    }
    out
}

/// Convolution: `weights_format` OIX (`[O, I, k...]`) or XIO (`[k..., I, O]`), with
/// `I = C / groups`.
fn convolution(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    super::check_inputs(node, 2, 3)?;
    let x = ctx.input(node, 0, "src")?;
    let w = ctx.input(node, 1, "weights")?;
    let dtype = out_dtype(node, x.dtype);
    let (Some(xs), Some(ws)) = (x.shape.clone(), w.shape.clone()) else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    let (n, c, sp, nxc) = split_layout(node, &xs)?;
    let k = sp.len();
    if ws.len() != k + 2 {
        return Err(OpError::Rank {
            what: "weights".to_string(),
            expected: (k + 2).to_string(),
            found: ws.len(),
        });
    }
    let (o, i, kernel) = match attr_str(node, "weights_format")?.unwrap_or("XIO") {
        "OIX" => (ws[0], ws[1], ws[2..].to_vec()),
        "XIO" => (ws[k + 1], ws[k], ws[..k].to_vec()),
        other => {
            return Err(OpError::BadAttribute {
                name: "weights_format",
                value: other.to_string(),
                why: "expected OIX or XIO".to_string(),
            })
        }
    };
    let groups = attr_int(node, "groups", 1)?;
    if groups < 1 {
        return Err(OpError::BadAttribute {
            name: "groups",
            value: groups.to_string(),
            why: "must be at least 1".to_string(),
        });
    }
    let g = ctx.alg.constant(groups);
    let gi = ctx.alg.mul(g, i);
    merge_dim(
        ctx,
        node,
        &|| "input channels: src C and groups * weights I".to_string(),
        c,
        gi,
    )?;
    let strides = spatial(node, "strides", k, 1)?;
    let dil = spatial(node, "dilations", k, 1)?;
    let pb = spatial(node, "pads_begin", k, 0)?;
    let pe = spatial(node, "pads_end", k, 0)?;
    let mode = pad_mode(node)?;
    let mut out_sp = Vec::with_capacity(k);
    for a in 0..k {
        out_sp.push(window_dim(
            ctx,
            node,
            a,
            sp[a],
            kernel[a],
            strides[a],
            dil[a],
            (pb[a], pe[a]),
            mode,
            Rounding::Floor,
        )?);
    }
    Ok(vec![TensorFact::new(dtype, join_layout(n, o, out_sp, nxc))])
}

/// AvgPool / MaxPool.
fn pool(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    super::check_inputs(node, 1, 1)?;
    let x = ctx.input(node, 0, "src")?;
    let dtype = out_dtype(node, x.dtype);
    let Some(xs) = x.shape.clone() else {
        return Ok(unknown_outputs(node, dtype));
    };
    let (n, c, sp, nxc) = split_layout(node, &xs)?;
    let k = sp.len();
    let kernel = attr_ints(node, "kernel")?
        .ok_or(OpError::MissingAttribute { name: "kernel" })?
        .to_vec();
    if kernel.len() != k {
        return Err(OpError::BadAttribute {
            name: "kernel",
            value: format!("{kernel:?}"),
            why: format!("expected {k} values, one per spatial axis"),
        });
    }
    let strides = spatial(node, "strides", k, 1)?;
    let dil = spatial(node, "dilations", k, 1)?;
    let pb = spatial(node, "pads_begin", k, 0)?;
    let pe = spatial(node, "pads_end", k, 0)?;
    let mode = pad_mode(node)?;
    let rounding = match attr_str(node, "rounding_type")?.unwrap_or("floor") {
        "floor" => Rounding::Floor,
        "ceil" => Rounding::Ceil,
        other => {
            return Err(OpError::BadAttribute {
                name: "rounding_type",
                value: other.to_string(),
                why: "expected floor or ceil".to_string(),
            })
        }
    };
    let mut out_sp = Vec::with_capacity(k);
    for a in 0..k {
        let kd = ctx.alg.constant(kernel[a]);
        out_sp.push(window_dim(
            ctx,
            node,
            a,
            sp[a],
            kd,
            strides[a],
            dil[a],
            (pb[a], pe[a]),
            mode,
            rounding,
        )?);
    }
    Ok(vec![TensorFact::new(dtype, join_layout(n, c, out_sp, nxc))])
}

/// Interpolate: spatial dims from `sizes`, or `floor(d * scale)` from `scales`.
fn interpolate(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let x = ctx.input(node, 0, "src")?;
    let dtype = out_dtype(node, x.dtype);
    let Some(xs) = x.shape.clone() else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    let (n, c, sp, nxc) = split_layout(node, &xs)?;
    let k = sp.len();
    let mut out_sp = sp.clone();
    if let Some(sizes) = attr_ints(node, "sizes")?.filter(|v| !v.is_empty()) {
        if sizes.len() != k {
            return Err(OpError::BadAttribute {
                name: "sizes",
                value: format!("{sizes:?}"),
                why: format!("expected {k} values"),
            });
        }
        for (a, s) in sizes.iter().enumerate() {
            out_sp[a] = ctx.alg.constant(*s);
        }
    } else if let Some(Attr::Floats(scales)) = node.attr("scales") {
        if scales.len() != k {
            return Err(OpError::BadAttribute {
                name: "scales",
                value: format!("{scales:?}"),
                why: format!("expected {k} values"),
            });
        }
        for (a, s) in scales.iter().enumerate() {
            let r = crate::context::float_rat(*s).unwrap_or_else(Rat::one);
            out_sp[a] = super::openvino::floor_scale(ctx, sp[a], &r);
        }
    } else {
        for (a, d) in out_sp.iter_mut().enumerate() {
            *d = ctx.unknown_dim(node, 0, a);
        }
    }
    Ok(vec![TensorFact::new(dtype, join_layout(n, c, out_sp, nxc))])
}

/// End: a graph output marker with no outputs.
fn end(_: &mut ShapesContext, _: &Node) -> Result<Vec<TensorFact>, OpError> {
    Ok(Vec::new())
}

/// The oneDNN rules.
pub const RULES: &[RuleEntry] = &[
    (DOMAIN, "StaticTranspose", static_transpose),
    (DOMAIN, "Concat", concat),
    (DOMAIN, "Convolution", convolution),
    (DOMAIN, "AvgPool", pool),
    (DOMAIN, "MaxPool", pool),
    (DOMAIN, "Interpolate", interpolate),
    (DOMAIN, "End", end),
];
