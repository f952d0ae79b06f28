//! The oneDNN convolutions: Convolution, ConvTranspose and their backward-data and
//! backward-weights ops (see [`super`] for the shapes and weights layouts).

use super::{at_least_one, check_group_divides, conv_channels, ConvChecks};
use crate::algebra::Dim;
use crate::context::{AttrProblem, AttrValue, LengthForm};
use crate::context::{DimRole, Expected, OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};
use crate::ops::common::attrs::dst_dtype;
use crate::ops::common::attrs::{attr_int, attr_ints, attr_str};
use crate::ops::common::check_inputs;
use crate::ops::common::dims::{
    check_vector, merge_dim_as, merge_dims_as, rank_of, shaped, Equate, Layout,
};
use crate::ops::nn::window::{onednn_shape_attr, onednn_window, Fit, Rounding};

/// How a oneDNN weights tensor orders its dims (`weights_format`): `O` the output
/// channels (per group for the transposed ops), `I` the input channels (per group
/// for the convolutions), `X` the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeightsFormat {
    /// `[O, I, k...]` (Convolution and its backward ops).
    Oix,
    /// `[k..., I, O]` (Convolution's default).
    Xio,
    /// `[I, O, k...]` (ConvTranspose and its backward ops).
    Iox,
    /// `[k..., O, I]` (ConvTranspose's default).
    Xoi,
}

impl WeightsFormat {
    /// The node's `weights_format`: `OIX` or `XIO` (default) for the convolutions,
    /// `IOX` or `XOI` (default) for the transposed ones (`transposed`), as oneDNN's
    /// op schemas allow.
    pub fn of(node: &Node, transposed: bool) -> Result<WeightsFormat, OpError> {
        let default = if transposed { "XOI" } else { "XIO" };
        let f = attr_str(node, "weights_format")?.unwrap_or(default);
        match (f, transposed) {
            ("OIX", false) => Ok(WeightsFormat::Oix),
            ("XIO", false) => Ok(WeightsFormat::Xio),
            ("IOX", true) => Ok(WeightsFormat::Iox),
            ("XOI", true) => Ok(WeightsFormat::Xoi),
            (other, _) => Err(OpError::BadAttribute {
                name: "weights_format",
                value: AttrValue::Word(other.to_string()),
                why: Box::new(if transposed {
                    AttrProblem::one_of(&["IOX", "XOI"])
                } else {
                    AttrProblem::one_of(&["OIX", "XIO"])
                }),
            }),
        }
    }

    /// Split weights `ws` of `k` spatial axes into `(O, I, kernel)`; their rank
    /// must be `k + 2`.
    pub fn split(self, ws: &[Dim], k: usize) -> Result<(Dim, Dim, Vec<Dim>), OpError> {
        if ws.len() != k + 2 {
            return Err(rank_of("weights", Expected::Exactly(k + 2), ws.len()));
        }
        Ok(match self {
            WeightsFormat::Oix => (ws[0], ws[1], ws[2..].to_vec()),
            WeightsFormat::Xio => (ws[k + 1], ws[k], ws[..k].to_vec()),
            WeightsFormat::Iox => (ws[1], ws[0], ws[2..].to_vec()),
            WeightsFormat::Xoi => (ws[k], ws[k + 1], ws[..k].to_vec()),
        })
    }

    /// The weights dims of `o`, `i` and `kernel` in this format.
    pub fn join(self, o: Dim, i: Dim, kernel: Vec<Dim>) -> Vec<Dim> {
        let (first, second) = match self {
            WeightsFormat::Oix | WeightsFormat::Xoi => (o, i),
            WeightsFormat::Xio | WeightsFormat::Iox => (i, o),
        };
        match self {
            WeightsFormat::Oix | WeightsFormat::Iox => {
                let mut out = vec![first, second];
                out.extend(kernel);
                out
            }
            WeightsFormat::Xio | WeightsFormat::Xoi => {
                let mut out = kernel;
                out.push(first);
                out.push(second);
                out
            }
        }
    }

    /// The weights axis of kernel axis `j` (of `k`).
    fn kernel_axis(self, j: usize) -> usize {
        match self {
            WeightsFormat::Oix | WeightsFormat::Iox => j + 2,
            WeightsFormat::Xio | WeightsFormat::Xoi => j,
        }
    }
}

/// oneDNN's `groups` attribute (default 1, at least 1), as a dim.
fn onednn_groups(ctx: &mut ShapesContext, node: &Node) -> Result<Dim, OpError> {
    let groups = attr_int(node, "groups", 1)?;
    if groups < 1 {
        return Err(OpError::BadAttribute {
            name: "groups",
            value: AttrValue::Int(groups),
            why: Box::new(AttrProblem::Below(1)),
        });
    }
    Ok(ctx.alg.constant(groups))
}

/// The spatial dims of a oneDNN convolution of `data` by `kernel` (the node's
/// window, floor rounding), each kernel checked to fit the padded input.
fn onednn_conv_spatial(
    ctx: &mut ShapesContext,
    node: &Node,
    data: &Layout,
    kernel: Vec<Dim>,
) -> Result<Vec<Dim>, OpError> {
    let window = onednn_window(node, kernel, Rounding::Floor)?;
    let fit = Fit::Kernel {
        first_axis: data.first_spatial_axis(),
    };
    window.outputs(ctx, node, &data.spatial, fit)
}

/// The spatial dims of a oneDNN transposed convolution of `data` by `kernel`
/// ([`Window::transposed_output_clamped_same`] with the `output_padding`
/// attribute); an output provably below 1 is an error.
fn onednn_transposed_spatial(
    ctx: &mut ShapesContext,
    node: &Node,
    data: &Layout,
    kernel: Vec<Dim>,
) -> Result<Vec<Dim>, OpError> {
    let n = kernel.len();
    let window = onednn_window(node, kernel, Rounding::Floor)?;
    let output_padding = onednn_output_padding(node, n)?;
    let one = ctx.alg.constant(1);
    let mut out = Vec::with_capacity(n);
    for (i, d) in data.spatial.iter().enumerate() {
        window.check_steps(i, data.first_spatial_axis() + i)?;
        let o = window.transposed_output_clamped_same(ctx, i, *d, output_padding[i]);
        out.push(at_least_one(ctx, one, i, o)?);
    }
    Ok(out)
}

/// `c / g` when `g` provably divides `c`; a provably inexact quotient is an
/// error naming `what`; otherwise a fresh dim of `node`'s output 0 at `axis`.
fn per_group(
    ctx: &mut ShapesContext,
    node: &Node,
    what: &'static str,
    c: Dim,
    g: Dim,
    axis: usize,
) -> Result<Dim, OpError> {
    check_group_divides(ctx, what, g, c)?;
    match ctx.alg.div(c, g) {
        Ok(q) => Ok(q),
        Err(_) => Ok(ctx.unknown_dim(node, 0, axis)),
    }
}

/// A oneDNN shape given by attribute `name` or, failing that, by the contents of
/// input `index`.
fn onednn_given_shape(
    ctx: &mut ShapesContext,
    node: &Node,
    name: &'static str,
    index: usize,
) -> Result<Option<Vec<Dim>>, OpError> {
    match onednn_shape_attr(ctx, node, name)? {
        Some(v) => Ok(Some(v)),
        None => Ok(ctx.optional_input(node, index)?.and_then(|f| f.value)),
    }
}

/// oneDNN's `output_padding`: non-negative, one entry per spatial axis (`n`);
/// oneDNN reads the first `n` entries of a longer list (its default, written out
/// by its serializer, is `DNNL_MAX_NDIMS` zeros). Absent or empty: zeros.
fn onednn_output_padding(node: &Node, n: usize) -> Result<Vec<i64>, OpError> {
    let Some(v) = attr_ints(node, "output_padding")?.filter(|v| !v.is_empty()) else {
        return Ok(vec![0; n]);
    };
    if v.len() < n {
        return Err(OpError::BadAttribute {
            name: "output_padding",
            value: AttrValue::Ints(v.to_vec()),
            why: Box::new(AttrProblem::Length {
                expected: n,
                form: LengthForm::ValuesPerSpatialAxis,
            }),
        });
    }
    if let Some(bad) = v[..n].iter().find(|x| **x < 0) {
        return Err(OpError::BadAttribute {
            name: "output_padding",
            value: AttrValue::Ints(v.to_vec()),
            why: Box::new(AttrProblem::EntryNegative(*bad)),
        });
    }
    Ok(v[..n].to_vec())
}

/// The data (input 0) and weights (input 1) of a oneDNN convolution op, read.
struct ConvInputs {
    /// The name of the data input: `src` or `diff_dst`.
    what: &'static str,
    data: TensorFact,
    weights: TensorFact,
    /// The output type: `dst_dtype`, else the data's.
    dtype: DType,
}

/// [`ConvInputs`] split: the data by `data_format`, the weights by
/// `weights_format`, with the `groups` attribute.
struct ConvParts {
    data: Layout,
    o: Dim,
    i: Dim,
    kernel: Vec<Dim>,
    groups: Dim,
}

impl ConvInputs {
    /// Check that the node has 2 to `max_inputs` inputs and read the data (named
    /// `what`) and the weights.
    fn read(
        ctx: &mut ShapesContext,
        node: &Node,
        what: &'static str,
        max_inputs: usize,
    ) -> Result<ConvInputs, OpError> {
        check_inputs(node, 2, max_inputs)?;
        let data = ctx.input(node, 0, what)?;
        let weights = ctx.input(node, 1, "weights")?;
        let dtype = dst_dtype(node, data.dtype)?;
        Ok(ConvInputs {
            what,
            data,
            weights,
            dtype,
        })
    }

    /// Split the inputs, the weights in a ConvTranspose's formats when
    /// `transposed`, and merge the data's channels with the weights' side they
    /// meet: `src` with `I`, `diff_dst` with `O`, times `groups` on the grouped
    /// side (`src` of a convolution, `diff_dst` of a ConvTranspose). `None` when a
    /// shape is unknown.
    fn split(
        &self,
        ctx: &mut ShapesContext,
        node: &Node,
        transposed: bool,
    ) -> Result<Option<ConvParts>, OpError> {
        let (Some(xs), Some(ws)) = (&self.data.shape, &self.weights.shape) else {
            return Ok(None);
        };
        let data = Layout::split_named(node, xs, self.what)?;
        let (o, i, kernel) = WeightsFormat::of(node, transposed)?.split(ws, data.spatial.len())?;
        let groups = onednn_groups(ctx, node)?;
        let is_src = self.what == "src";
        let (side, letter, meets) = if is_src {
            ("input", "I", i)
        } else {
            ("output", "O", o)
        };
        let grouped = is_src != transposed;
        let checks = ConvChecks {
            channels: DimRole::Channels {
                side,
                data: self.what,
                grouped,
                weights: letter,
            },
            equate: Equate::Record,
        };
        let groups_of = grouped.then_some(groups);
        conv_channels(ctx, node, data.channels, groups_of, meets, &checks)?;
        Ok(Some(ConvParts {
            data,
            o,
            i,
            kernel,
            groups,
        }))
    }
}

/// oneDNN Convolution(src, weights, bias?): weights `OIX` or `XIO` with
/// `C = groups * I`; a bias of `[O]`.
pub(super) fn convolution(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    let inputs = ConvInputs::read(ctx, node, "src", 3)?;
    let Some(c) = inputs.split(ctx, node, false)? else {
        return Ok(vec![TensorFact::unknown(inputs.dtype)]);
    };
    if let Some(b) = ctx.optional_input(node, 2)? {
        check_vector(ctx, node, &b, "bias", c.o, Equate::Record)?;
    }
    let spatial = onednn_conv_spatial(ctx, node, &c.data, c.kernel)?;
    Ok(vec![TensorFact::new(
        inputs.dtype,
        c.data.join(c.o, spatial),
    )])
}

/// oneDNN ConvTranspose(src, weights, bias?): weights `IOX` (`[I, O/groups, k...]`)
/// or `XOI` (`[k..., O/groups, I]`, the default) with `I` the `src` channels; the
/// output has `groups * O` channels and the spatial dims of
/// [`Window::transposed_output_clamped_same`]; a bias of `[groups * O]`.
pub(super) fn conv_transpose(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    let inputs = ConvInputs::read(ctx, node, "src", 3)?;
    let Some(c) = inputs.split(ctx, node, true)? else {
        return Ok(vec![TensorFact::unknown(inputs.dtype)]);
    };
    check_group_divides(ctx, "input channels src C", c.groups, c.data.channels)?;
    let out_c = ctx.alg.mul(c.groups, c.o);
    if let Some(b) = ctx.optional_input(node, 2)? {
        check_vector(ctx, node, &b, "bias", out_c, Equate::Record)?;
    }
    let spatial = onednn_transposed_spatial(ctx, node, &c.data, c.kernel)?;
    Ok(vec![TensorFact::new(
        inputs.dtype,
        c.data.join(out_c, spatial),
    )])
}

/// oneDNN ConvolutionBackwardData(diff_dst, weights, dst_shape?): `diff_src` is
/// the Convolution's `src`: the `dst_shape` attribute or input (its channels
/// `groups * I`, its convolution by the weights checked against `diff_dst`);
/// without one, the transposed convolution of `diff_dst` (`output_padding`
/// resolving the floor of the forward window; fresh spatial dims under `SAME`).
pub(super) fn conv_backward_data(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    let inputs = ConvInputs::read(ctx, node, "diff_dst", 3)?;
    let dtype = inputs.dtype;
    let given = onednn_given_shape(ctx, node, "dst_shape", 2)?;
    let Some(ConvParts {
        data: dd,
        i,
        kernel,
        groups,
        ..
    }) = inputs.split(ctx, node, false)?
    else {
        return Ok(vec![shaped(dtype, given)]);
    };
    let in_c = ctx.alg.mul(groups, i);
    if let Some(shape) = given {
        let src = Layout::split_named(node, &shape, "dst_shape")?;
        if src.spatial.len() != dd.spatial.len() {
            return Err(rank_of(
                "dst_shape",
                Expected::Exactly(dd.spatial.len() + 2).noted("the rank of diff_dst"),
                shape.len(),
            ));
        }
        merge_dim_as(
            ctx,
            node,
            DimRole::of("batch", ("diff_dst", "dst_shape")),
            dd.batch,
            src.batch,
        )?;
        let channels = DimRole::Channels {
            side: "input",
            data: "dst_shape",
            grouped: true,
            weights: "I",
        };
        merge_dim_as(ctx, node, channels, src.channels, in_c)?;
        let conv = onednn_conv_spatial(ctx, node, &src, kernel)?;
        let axis = |axis| DimRole::SpatialAxis {
            axis,
            of: ("the convolved dst_shape", "diff_dst").into(),
        };
        merge_dims_as(ctx, node, &axis, &conv, &dd.spatial)?;
        return Ok(vec![TensorFact::new(dtype, shape)]);
    }
    let n = kernel.len();
    let window = onednn_window(node, kernel, Rounding::Floor)?;
    let output_padding = onednn_output_padding(node, n)?;
    let mut spatial = Vec::with_capacity(n);
    for (a, x) in dd.spatial.iter().enumerate() {
        let axis = dd.first_spatial_axis() + a;
        window.check_steps(a, axis)?;
        spatial.push(if window.mode.is_same() {
            ctx.unknown_dim(node, 0, axis)
        } else {
            window.transposed_output(ctx, a, *x, output_padding[a])
        });
    }
    Ok(vec![TensorFact::new(dtype, dd.join(in_c, spatial))])
}

/// oneDNN ConvolutionBackwardWeights(src, diff_dst, weights_shape?): `diff_weights`
/// in `weights_format`: the `weights_shape` attribute or input (`O` the
/// `diff_dst` channels, `groups * I` the `src` channels, the convolution of `src`
/// by its kernel checked against `diff_dst`); without one, `O`, `C / groups` and
/// a fresh kernel.
pub(super) fn conv_backward_weights(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    onednn_backward_weights(ctx, node, false)
}

/// oneDNN ConvTransposeBackwardWeights(src, diff_dst, weights_shape?):
/// `diff_weights` in `weights_format` (`IOX` or `XOI`): the `weights_shape`
/// attribute or input (`I` the `src` channels, `groups * O` the `diff_dst`
/// channels); without one, `I`, `C / groups` and a fresh kernel.
pub(super) fn conv_transpose_backward_weights(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    onednn_backward_weights(ctx, node, true)
}

/// The weights gradient of a oneDNN convolution (`transposed`: of a ConvTranspose).
fn onednn_backward_weights(
    ctx: &mut ShapesContext,
    node: &Node,
    transposed: bool,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 3)?;
    let x = ctx.input(node, 0, "src")?;
    let d = ctx.input(node, 1, "diff_dst")?;
    let dtype = dst_dtype(node, x.dtype)?;
    let format = WeightsFormat::of(node, transposed)?;
    let given = onednn_given_shape(ctx, node, "weights_shape", 2)?;
    let (Some(xs), Some(ds)) = (&x.shape, &d.shape) else {
        return Ok(vec![shaped(dtype, given)]);
    };
    let src = Layout::split(node, xs)?;
    let dd = Layout::split_named(node, ds, "diff_dst")?;
    if src.spatial.len() != dd.spatial.len() {
        return Err(rank_of(
            "diff_dst",
            Expected::Exactly(xs.len()).noted("the rank of src"),
            ds.len(),
        ));
    }
    merge_dim_as(
        ctx,
        node,
        DimRole::of("batch", ("src", "diff_dst")),
        src.batch,
        dd.batch,
    )?;
    let g = onednn_groups(ctx, node)?;
    let k = src.spatial.len();
    if let Some(ws) = given {
        let (o, i, kernel) = format.split(&ws, k)?;
        // the grouped pair is the data's input side of the convolution (src for a
        // forward one, diff_dst for a transposed one)
        let channels = |side, data, grouped, weights| DimRole::Channels {
            side,
            data,
            grouped,
            weights,
        };
        let (per_group, full, per_what, full_what) = if transposed {
            (
                o,
                i,
                channels("output", "diff_dst", true, "O"),
                channels("input", "src", false, "I"),
            )
        } else {
            (
                i,
                o,
                channels("input", "src", true, "I"),
                channels("output", "diff_dst", false, "O"),
            )
        };
        let (grouped_c, full_c) = if transposed {
            (dd.channels, src.channels)
        } else {
            (src.channels, dd.channels)
        };
        let gp = ctx.alg.mul(g, per_group);
        merge_dim_as(ctx, node, per_what, grouped_c, gp)?;
        merge_dim_as(ctx, node, full_what, full_c, full)?;
        if !transposed {
            let conv = onednn_conv_spatial(ctx, node, &src, kernel)?;
            let axis = |axis| DimRole::SpatialAxis {
                axis,
                of: ("src convolved by weights_shape", "diff_dst").into(),
            };
            merge_dims_as(ctx, node, &axis, &conv, &dd.spatial)?;
        }
        return Ok(vec![TensorFact::new(dtype, ws)]);
    }
    let kernel: Vec<Dim> = (0..k)
        .map(|j| ctx.unknown_dim(node, 0, format.kernel_axis(j)))
        .collect();
    let (o_axis, i_axis) = match format {
        WeightsFormat::Oix => (0, 1),
        WeightsFormat::Iox => (1, 0),
        WeightsFormat::Xio => (k + 1, k),
        WeightsFormat::Xoi => (k, k + 1),
    };
    let (o, i) = if transposed {
        let o = per_group(ctx, node, "diff_dst channels", dd.channels, g, o_axis)?;
        (o, src.channels)
    } else {
        let i = per_group(ctx, node, "src channels", src.channels, g, i_axis)?;
        (dd.channels, i)
    };
    Ok(vec![TensorFact::new(dtype, format.join(o, i, kernel))])
}

/// oneDNN ConvTransposeBackwardData(diff_dst, weights): `diff_src` is the
/// ConvTranspose's `src`, the convolution of `diff_dst` (channels `groups * O`) by
/// the weights (`IOX` or `XOI`), with `I` channels.
pub(super) fn conv_transpose_backward_data(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    let inputs = ConvInputs::read(ctx, node, "diff_dst", 2)?;
    let Some(c) = inputs.split(ctx, node, true)? else {
        return Ok(vec![TensorFact::unknown(inputs.dtype)]);
    };
    let spatial = onednn_conv_spatial(ctx, node, &c.data, c.kernel)?;
    Ok(vec![TensorFact::new(
        inputs.dtype,
        c.data.join(c.i, spatial),
    )])
}
