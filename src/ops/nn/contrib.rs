//! onnxruntime's matrix products, convolutions, pools and quantized ops (domain
//! `com.microsoft`): the fused and quantized forms its graph optimizations and
//! quantizers (`quantize_dynamic`, `quantize_static`, the 4-bit `MatMulNBits`
//! quantizer) emit. Each is a variant of an ONNX op and reuses its kernel
//! ([`matmul_shape`], [`conv_shape`], the window arithmetic of `nn/window.rs`,
//! [`concat_dims`], [`reduce_shape`], [`broadcast_shapes`], [`gather_shape`]).
//!
//! Spec: onnxruntime's `docs/ContribOperators.md`, checked against onnxruntime
//! 1.32 running each op on its CPU provider (`tests/it/ops/contrib.rs`).
//!
//! - **FusedMatMul** (and its old name **TransposeMatMul**): `numpy.matmul` after
//!   `transBatchA`/`transBatchB` move axis 0 of an operand of rank 3 or more to
//!   just before the last (permutation `[1, ..., r-2, 0, r-1]`) and
//!   `transA`/`transB` swap the last two axes. **GemmFastGelu** `X @ W`.
//! - **FusedGemm**: ONNX Gemm (`[M, N]`, `transA`, `transB`, `C` broadcast to
//!   `[M, N]`). **QGemm** the same on `A` (input 0) and `B` (input 3); its output
//!   is float without `y_scale`, else of `y_zero_point`'s type.
//! - **GemmFloat8**: Gemm's `[M, N]` of the type `dtype` (float by default).
//! - **MatMulNBits**, **MatMulBnb4**: `A = [..., K]` with the attributes `K` and
//!   `N` give `[..., N]` (`A`'s type; a 1-D `A` gives `[N]`). **MatMulFpQ4**: the
//!   product with `B_shape`'s contents `[K, N]`.
//! - **MatMulInteger16** (int32, uint32 for two uint16 operands),
//!   **MatMulIntegerToFloat** (the type of `a_scale`), **DynamicQuantizeMatMul**
//!   (float): `numpy.matmul` of inputs 0 and 1.
//! - **QuantizeLinear**, **DequantizeLinear**: ONNX's rules at opset 19 (per
//!   tensor or per `axis`; Quantize gives the zero point's type, uint8 without
//!   one; Dequantize the scale's type).
//! - **QLinearAdd**, **QLinearMul**: `A` (input 0) and `B` (input 3) broadcast;
//!   **QLinearWhere**: `condition`, `X` (1) and `Y` (4) broadcast;
//!   **QLinearSigmoid**, **QLinearLeakyRelu**, **QLinearSoftmax**: `X`'s shape;
//!   **MulInteger**: `A` (0) and `B` (2) broadcast, int32. The QLinear outputs
//!   have `X`'s (`A`'s) type.
//! - **QLinearConcat**: `Y_scale`, `Y_zero_point`, then a `(X, scale, zero_point)`
//!   triple per input, concatenated along the required `axis`; the type of
//!   `Y_zero_point`.
//! - **QLinearReduceMean**, **ReduceSumInteger** (int32): the required `axes` and
//!   `keepdims`.
//! - **FusedConv**: ONNX Conv (`X`, `W`, `B`, plus a `Z` summed in). **NhwcConv**,
//!   **NhwcFusedConv**: the same with `X` and `Y` channels last `[N, D..., C]`
//!   (`W` stays `[M, C/group, k...]`). **QLinearConv**: ONNX QLinearConv, channels
//!   last when `channels_last` is set.
//! - **QLinearAveragePool**: ONNX AveragePool, channels last when
//!   `channels_last`; **QLinearGlobalAveragePool** `[N, C, 1...]` (or `[N, 1...,
//!   C]`); **NhwcMaxPool** MaxPool channels last; **MaxpoolWithMask** MaxPool of
//!   `X` (its mask `M` does not change the shape).
//! - **GatherBlockQuantized**: ONNX Gather on `data` along `gather_axis`, where a
//!   uint8 `data` packs `8 / bits` values along its last axis; the output has the
//!   scales' type.
//!
//! Version history: every op here is at version 1 of `com.microsoft`, the only
//! version. Inputs added by later onnxruntime releases come at the end of each
//! list (MatMulNBits' `g_idx` and `bias`), so older models read the same way.

use crate::algebra::{Algebra, Dim};
use crate::context::DimRole;
use crate::context::{AttrProblem, AttrValue, ShapeValueProblem};
use crate::context::{Expected, OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};
use crate::ops::common::attrs::require_positive;
use crate::ops::common::attrs::{attr_int, attr_int_required, attr_ints};
use crate::ops::common::broadcast::broadcast_shapes;
use crate::ops::common::dims::{expect_rank, rank_of, shaped, unify_as, Equate};
use crate::ops::common::values::attr_axes;
use crate::ops::common::{check_inputs, norm_axis};
use crate::ops::cost::{contraction, elementwise, input_dims, output_volume, Costs, OpCost};
use crate::ops::nn::conv::onnx::conv_shape;
use crate::ops::nn::matmul::{matmul_shape, onnx_matmul_shape};
use crate::ops::nn::window::{onnx_window, Fit};
use crate::ops::tensor::concat::{concat_dims, concat_rank};
use crate::ops::tensor::gather::gather_shape;
use crate::ops::tensor::reduce::reduce_shape;
use crate::ops::{rules, RuleEntry};

use crate::ops::attention::contrib::MS;

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    (MS, ["FusedMatMul", "TransposeMatMul"], fused_matmul),
    (MS, ["FusedGemm"], fused_gemm),
    (MS, [
        "GemmFastGelu", "MatMulInteger16", "MatMulIntegerToFloat", "DynamicQuantizeMatMul",
    ], plain_matmul),
    (MS, ["QGemm"], qgemm),
    (MS, ["GemmFloat8"], gemm_float8),
    (MS, ["MatMulNBits", "MatMulBnb4"], matmul_nbits),
    (MS, ["MatMulFpQ4"], matmul_fpq4),
    (MS, ["QuantizeLinear", "DequantizeLinear"], onnx_quantize),
    (MS, ["QLinearAdd", "QLinearMul", "MulInteger"], qlinear_binary),
    (MS, ["QLinearWhere"], qlinear_where),
    (MS, ["QLinearSigmoid", "QLinearLeakyRelu", "QLinearSoftmax"], qlinear_unary),
    (MS, ["QLinearConcat"], qlinear_concat),
    (MS, ["QLinearReduceMean", "ReduceSumInteger"], quantized_reduce),
    (MS, ["FusedConv", "NhwcConv", "NhwcFusedConv", "QLinearConv"], conv_variant),
    (MS, ["QLinearAveragePool", "NhwcMaxPool", "MaxpoolWithMask"], pool_variant),
    (MS, ["QLinearGlobalAveragePool"], qlinear_global_average_pool),
    (MS, ["GatherBlockQuantized"], gather_block_quantized),
];

/// What these ops compute ([`crate::ops::cost`]), as the ONNX op each varies:
/// - the products (FusedMatMul, TransposeMatMul, GemmFastGelu, MatMulInteger16,
///   MatMulIntegerToFloat, DynamicQuantizeMatMul, MatMulNBits, MatMulBnb4,
///   MatMulFpQ4): MACs `vol(Y) × K`, `K` the contracted dim of `A` (the last;
///   FusedMatMul's `transA` the one before it, or axis 0 with `transBatchA`);
///   FusedGemm, QGemm and GemmFloat8 as Gemm (`K = A[1]`, `A[0]` with `transA`).
///   The n-bit products count one MAC per weight element used, whatever its
///   width (the dequantization is not counted). FLOPs `2 × MACs`.
/// - the convolutions (FusedConv, NhwcConv, NhwcFusedConv, QLinearConv): MACs
///   `vol(Y) × ∏ W[1:]` (`W = [M, C/group, k...]` in every layout), FLOPs `2 ×
///   MACs`.
/// - elementwise (QLinearAdd, QLinearMul, MulInteger, QLinearWhere,
///   QLinearSigmoid, QLinearLeakyRelu, QuantizeLinear, DequantizeLinear,
///   QLinearConcat, GatherBlockQuantized: each output element is requantized or
///   dequantized): one FLOP per output element; QLinearSoftmax 5 per element;
/// - QLinearReduceMean, ReduceSumInteger and QLinearGlobalAveragePool: one per
///   input element; QLinearAveragePool, NhwcMaxPool, MaxpoolWithMask: `vol(Y) ×
///   ∏ kernel_shape`.
pub const COSTS: &[Costs] = &[Costs::by_op(rules![
    (MS, ["FusedMatMul", "TransposeMatMul"], fused_matmul_cost),
    (
        MS,
        [
            "GemmFastGelu",
            "MatMulInteger16",
            "MatMulIntegerToFloat",
            "DynamicQuantizeMatMul",
            "MatMulNBits",
            "MatMulBnb4",
            "MatMulFpQ4",
        ],
        plain_matmul_cost
    ),
    (MS, ["FusedGemm", "QGemm", "GemmFloat8"], gemm_variant_cost),
    (
        MS,
        ["FusedConv", "NhwcConv", "NhwcFusedConv"],
        conv_variant_cost
    ),
    (MS, ["QLinearConv"], qlinear_conv_variant_cost),
    (
        MS,
        [
            "QLinearAdd",
            "QLinearMul",
            "MulInteger",
            "QLinearWhere",
            "QLinearSigmoid",
            "QLinearLeakyRelu",
            "QuantizeLinear",
            "DequantizeLinear",
            "QLinearConcat",
            "GatherBlockQuantized",
        ],
        elementwise
    ),
    (
        MS,
        ["QLinearSoftmax"],
        crate::ops::nn::norm::five_per_element
    ),
    (
        MS,
        [
            "QLinearReduceMean",
            "ReduceSumInteger",
            "QLinearGlobalAveragePool",
        ],
        crate::ops::nn::norm::one_per_element
    ),
    (
        MS,
        ["QLinearAveragePool", "NhwcMaxPool", "MaxpoolWithMask"],
        crate::ops::nn::pool::onnx_pool_cost
    ),
])];

fn fused_matmul_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    let trans_a = attr_int(node, "transA", 0).unwrap_or(0) != 0;
    let batch_a = attr_int(node, "transBatchA", 0).unwrap_or(0) != 0;
    let macs = input_dims(ctx, node, 0).and_then(|a| {
        let k = match a.len() {
            0 => return None,
            1 => a[0],
            r if trans_a && batch_a && r >= 3 => a[0],
            r if trans_a => a[r - 2],
            r => a[r - 1],
        };
        let y = output_volume(alg, ctx, node, 0)?;
        Some(alg.mul(y, k))
    });
    contraction(alg, macs, None)
}

fn plain_matmul_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    let macs = crate::ops::nn::matmul::matmul_macs(alg, ctx, node, 0, false);
    contraction(alg, macs, None)
}

fn gemm_variant_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    let trans_a = attr_int(node, "transA", 0).unwrap_or(0) != 0;
    let macs = input_dims(ctx, node, 0)
        .filter(|a| a.len() == 2)
        .and_then(|a| {
            let y = output_volume(alg, ctx, node, 0)?;
            Some(alg.mul(y, a[usize::from(!trans_a)]))
        });
    contraction(alg, macs, None)
}

fn conv_variant_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    use crate::ops::nn::conv::{conv_cost_of, ConvSide};
    conv_cost_of(alg, ctx, node, ConvSide::Output, 1, 1, None)
}

fn qlinear_conv_variant_cost(alg: &mut Algebra, ctx: &ShapesContext, node: &Node) -> OpCost {
    use crate::ops::nn::conv::{conv_cost_of, ConvSide};
    conv_cost_of(alg, ctx, node, ConvSide::Output, 3, 1, None)
}

// ----- helpers ------------------------------------------------------------------------

/// A channels-last shape `[N, D..., C]` as `[N, C, D...]`.
fn to_channels_first(s: &[Dim]) -> Vec<Dim> {
    let mut out = vec![s[0], s[s.len() - 1]];
    out.extend_from_slice(&s[1..s.len() - 1]);
    out
}

/// A channels-first shape `[N, C, D...]` as `[N, D..., C]`.
fn to_channels_last(s: &[Dim]) -> Vec<Dim> {
    let mut out = vec![s[0]];
    out.extend_from_slice(&s[2..]);
    out.push(s[1]);
    out
}

/// `f` with its channels moved first (a channels-last input of rank at least 3).
fn channels_first_fact(f: &TensorFact, what: &'static str) -> Result<TensorFact, OpError> {
    Ok(match &f.shape {
        Some(s) if s.len() < 3 => return Err(rank_of(what, Expected::AtLeast(3), s.len())),
        Some(s) => TensorFact::new(f.dtype, to_channels_first(s)),
        None => TensorFact::unknown(f.dtype),
    })
}

/// The type of an optional input, or `default` when it is absent or untyped.
fn optional_dtype(
    ctx: &ShapesContext,
    node: &Node,
    index: usize,
    default: DType,
) -> Result<DType, OpError> {
    Ok(match ctx.optional_input(node, index)? {
        Some(f) if f.dtype != DType::Undefined => f.dtype,
        _ => default,
    })
}

// ----- matrix products ----------------------------------------------------------------

/// FusedMatMul and TransposeMatMul (see the module doc).
fn fused_matmul(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 2)?;
    let a = ctx.input(node, 0, "A")?;
    let b = ctx.input(node, 1, "B")?;
    let (Some(sa), Some(sb)) = (&a.shape, &b.shape) else {
        return Ok(vec![TensorFact::unknown(a.dtype)]);
    };
    let batch_moved = |s: &[Dim], on: bool| -> Vec<Dim> {
        let r = s.len();
        if !on || r < 3 {
            return s.to_vec();
        }
        let mut out = s[1..r - 1].to_vec();
        out.push(s[0]);
        out.push(s[r - 1]);
        out
    };
    let pa = batch_moved(sa, attr_int(node, "transBatchA", 0)? != 0);
    let pb = batch_moved(sb, attr_int(node, "transBatchB", 0)? != 0);
    let ta = attr_int(node, "transA", 0)? != 0;
    let tb = attr_int(node, "transB", 0)? != 0;
    let out = matmul_shape(ctx, node, &pa, &pb, ta, tb, Equate::Warn)?;
    Ok(vec![TensorFact::new(a.dtype, out)])
}

/// FusedGemm: ONNX Gemm's rule (the activation attributes change no shape).
fn fused_gemm(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let gemm = crate::ops::rule_for("", "Gemm").ok_or(OpError::WrongOp {
        expected: "Gemm",
        found: node.op_type.to_string(),
    })?;
    gemm(ctx, node)
}

/// The matrix products of inputs 0 and 1 whose type is fixed by the op:
/// GemmFastGelu, MatMulInteger16, MatMulIntegerToFloat, DynamicQuantizeMatMul.
fn plain_matmul(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let max = match node.op_type.as_str() {
        "GemmFastGelu" => 3,
        "MatMulInteger16" => 2,
        "MatMulIntegerToFloat" => 7,
        _ => 5,
    };
    let min = if node.op_type == "MatMulIntegerToFloat" {
        4
    } else if node.op_type == "DynamicQuantizeMatMul" {
        3
    } else {
        2
    };
    check_inputs(node, min, max)?;
    let a = ctx.input(node, 0, "A")?;
    let b = ctx.input(node, 1, "B")?;
    let dtype = match node.op_type.as_str() {
        "MatMulInteger16" if a.dtype == DType::Uint16 && b.dtype == DType::Uint16 => DType::Uint32,
        "MatMulInteger16" => DType::Int32,
        "MatMulIntegerToFloat" => ctx.input(node, 2, "a_scale")?.dtype,
        _ => a.dtype,
    };
    let shape = onnx_matmul_shape(ctx, node, &a, &b)?;
    Ok(vec![shaped(dtype, shape)])
}

/// GemmFloat8: Gemm's shape, of the type `dtype`.
fn gemm_float8(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 2, 6)?;
    let dtype = crate::ops::common::attrs::attr_dtype(node, "dtype", DType::Float)?;
    let a = ctx.input(node, 0, "A")?;
    let b = ctx.input(node, 1, "B")?;
    let out = gemm_dims(ctx, node, &a, &b)?;
    Ok(vec![TensorFact::new(dtype, out)])
}

/// `[M, N]` of a Gemm of `a` and `b` (`transA`, `transB`); fresh dims where a rank
/// is unknown.
fn gemm_dims(
    ctx: &mut ShapesContext,
    node: &Node,
    a: &TensorFact,
    b: &TensorFact,
) -> Result<Vec<Dim>, OpError> {
    let ta = attr_int(node, "transA", 0)? != 0;
    let tb = attr_int(node, "transB", 0)? != 0;
    let m = match &a.shape {
        Some(s) => {
            expect_rank("input A", s, 2)?;
            Some((s[usize::from(ta)], s[usize::from(!ta)]))
        }
        None => None,
    };
    let n = match &b.shape {
        Some(s) => {
            expect_rank("input B", s, 2)?;
            Some((s[usize::from(tb)], s[usize::from(!tb)]))
        }
        None => None,
    };
    if let (Some((_, ka)), Some((kb, _))) = (m, n) {
        unify_as(
            ctx,
            node,
            DimRole::of("the contracted dim K", ("A", "B")),
            ka,
            kb,
        )?;
    }
    let m = match m {
        Some((m, _)) => m,
        None => ctx.unknown_dim(node, 0, 0),
    };
    let n = match n {
        Some((_, n)) => n,
        None => ctx.unknown_dim(node, 0, 1),
    };
    Ok(vec![m, n])
}

/// QGemm: Gemm on `A` (input 0) and `B` (input 3).
fn qgemm(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 6, 9)?;
    let a = ctx.input(node, 0, "A")?;
    let b = ctx.input(node, 3, "B")?;
    let dtype = if ctx.optional_input(node, 7)?.is_some() {
        optional_dtype(ctx, node, 8, DType::Uint8)?
    } else {
        DType::Float
    };
    let out = gemm_dims(ctx, node, &a, &b)?;
    Ok(vec![TensorFact::new(dtype, out)])
}

/// MatMulNBits and MatMulBnb4: `A = [..., K]` gives `[..., N]`.
fn matmul_nbits(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 6)?;
    let a = ctx.input(node, 0, "A")?;
    let k = attr_int_required(node, "K")?;
    let n = attr_int_required(node, "N")?;
    for (name, v) in [("K", k), ("N", n)] {
        require_positive(name, v)?;
    }
    let Some(sa) = &a.shape else {
        return Ok(vec![TensorFact::unknown(a.dtype)]);
    };
    let Some((last, rest)) = sa.split_last() else {
        return Err(rank_of("input A", Expected::AtLeast(1), 0));
    };
    let kd = ctx.alg.constant(k);
    unify_as(
        ctx,
        node,
        DimRole::of("the last dim", ("A", "the attribute K")),
        *last,
        kd,
    )?;
    let mut out = rest.to_vec();
    out.push(ctx.alg.constant(n));
    Ok(vec![TensorFact::new(a.dtype, out)])
}

/// MatMulFpQ4: `A @ [K, N]` with `B_shape`'s contents `[K, N]`.
fn matmul_fpq4(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 3)?;
    let a = ctx.input(node, 0, "A")?;
    let bs = ctx.input(node, 2, "B_shape")?;
    let (Some(sa), Some(kn)) = (&a.shape, &bs.value) else {
        return Ok(vec![TensorFact::unknown(a.dtype)]);
    };
    if kn.len() != 2 {
        return Err(OpError::BadShapeValue(Box::new(
            ShapeValueProblem::Entries {
                what: "B_shape",
                found: kn.len(),
                expected: Expected::Exactly(2).noted("[K, N]"),
            },
        )));
    }
    let out = matmul_shape(ctx, node, sa, kn, false, false, Equate::Warn)?;
    Ok(vec![TensorFact::new(a.dtype, out)])
}

// ----- quantization -------------------------------------------------------------------

/// The contrib QuantizeLinear and DequantizeLinear: ONNX's rules at opset 19.
fn onnx_quantize(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let rule = crate::ops::rule_for("", &node.op_type).ok_or(OpError::WrongOp {
        expected: "QuantizeLinear or DequantizeLinear",
        found: node.op_type.to_string(),
    })?;
    let mut as_onnx = node.clone();
    as_onnx.domain = String::new();
    as_onnx.version = 19;
    rule(ctx, &as_onnx)
}

/// QLinearAdd, QLinearMul (`A` input 0, `B` input 3) and MulInteger (`A` 0, `B`
/// 2): the broadcast of the two.
fn qlinear_binary(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let (b_index, dtype) = if node.op_type == "MulInteger" {
        check_inputs(node, 3, 4)?;
        (2, Some(DType::Int32))
    } else {
        check_inputs(node, 7, 8)?;
        (3, None)
    };
    let a = ctx.input(node, 0, "A")?;
    let b = ctx.input(node, b_index, "B")?;
    let dtype = dtype.unwrap_or(a.dtype);
    let (Some(sa), Some(sb)) = (&a.shape, &b.shape) else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    let out = broadcast_shapes(ctx, &node.name, sa, sb)?;
    Ok(vec![TensorFact::new(dtype, out)])
}

/// QLinearWhere: `condition`, `X` (input 1) and `Y` (input 4) broadcast.
fn qlinear_where(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 9, 9)?;
    let c = ctx.input(node, 0, "condition")?;
    let x = ctx.input(node, 1, "X")?;
    let y = ctx.input(node, 4, "Y")?;
    let shapes = [c.shape, x.shape, y.shape];
    let out = crate::ops::common::broadcast::broadcast_all(ctx, node, &shapes)?;
    Ok(vec![shaped(x.dtype, out)])
}

/// QLinearSigmoid, QLinearLeakyRelu, QLinearSoftmax: `X`'s shape.
fn qlinear_unary(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 4, 5)?;
    let x = ctx.input(node, 0, "X")?;
    if node.op_type == "QLinearSoftmax" {
        if let Some(r) = x.rank() {
            norm_axis(attr_int(node, "axis", -1)?, r)?;
        }
    }
    Ok(vec![shaped(x.dtype, x.shape.clone())])
}

/// QLinearConcat: the `X` of each `(X, scale, zero_point)` triple after
/// `Y_scale` and `Y_zero_point`, concatenated along `axis`.
fn qlinear_concat(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let n = node.input_count();
    if n < 5 || (n - 2) % 3 != 0 {
        return Err(OpError::InputCount {
            expected: Expected::Described(
                "2 + 3k (Y_scale, Y_zero_point, then X, scale, zero point per input)",
            ),
            found: n,
        });
    }
    let dtype = ctx.input(node, 1, "Y_zero_point")?.dtype;
    let mut inputs = Vec::with_capacity((n - 2) / 3);
    for i in (2..n).step_by(3) {
        inputs.push(ctx.input(node, i, "X")?);
    }
    let Some((rank, _)) = concat_rank(ctx, &inputs)? else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    let axis = norm_axis(attr_int_required(node, "axis")?, rank)?;
    let out = concat_dims(ctx, node, &inputs, axis, rank, &mut |_, _| {})?;
    Ok(vec![TensorFact::new(dtype, out)])
}

/// QLinearReduceMean (`X`'s type) and ReduceSumInteger (int32): the required
/// `axes` and `keepdims`.
fn quantized_reduce(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let integer = node.op_type == "ReduceSumInteger";
    if integer {
        check_inputs(node, 1, 1)?;
    } else {
        check_inputs(node, 4, 5)?;
    }
    let x = ctx.input(node, 0, "data")?;
    let dtype = if integer { DType::Int32 } else { x.dtype };
    let axes = attr_ints(node, "axes")?.ok_or(OpError::MissingAttribute { name: "axes" })?;
    let keep = attr_int_required(node, "keepdims")? != 0;
    let Some(xs) = &x.shape else {
        return Ok(vec![TensorFact::unknown(dtype)]);
    };
    let axes = attr_axes(axes, xs.len())?;
    let out = reduce_shape(ctx, xs, &axes, keep);
    Ok(vec![TensorFact::new(dtype, out)])
}

// ----- convolutions and pools -----------------------------------------------------------

/// FusedConv, NhwcConv, NhwcFusedConv and QLinearConv (see the module doc).
fn conv_variant(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let quantized = node.op_type == "QLinearConv";
    let (w_index, b_index) = if quantized {
        check_inputs(node, 8, 9)?;
        (3, 8)
    } else {
        check_inputs(node, 2, 4)?;
        (1, 2)
    };
    let x = ctx.input(node, 0, "X")?;
    let w = ctx.input(node, w_index, "W")?;
    let b = ctx.optional_input(node, b_index)?;
    let dtype = if quantized {
        optional_dtype(ctx, node, 7, x.dtype)?
    } else {
        x.dtype
    };
    let channels_last =
        node.op_type.starts_with("Nhwc") || (quantized && attr_int(node, "channels_last", 0)? != 0);
    let xf = if channels_last {
        channels_first_fact(&x, "input X")?
    } else {
        x.clone()
    };
    let shape = conv_shape(ctx, node, &xf, &w, b.as_ref())?;
    let shape = match shape {
        Some(s) if channels_last => Some(to_channels_last(&s)),
        other => other,
    };
    Ok(vec![shaped(dtype, shape)])
}

/// QLinearAveragePool, NhwcMaxPool and MaxpoolWithMask: the ONNX pool window of
/// the required `kernel_shape` (channels last for NhwcMaxPool and a
/// QLinearAveragePool with `channels_last`).
fn pool_variant(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    match node.op_type.as_str() {
        "QLinearAveragePool" => check_inputs(node, 4, 5)?,
        "MaxpoolWithMask" => check_inputs(node, 2, 2)?,
        _ => check_inputs(node, 1, 1)?,
    }
    let x = ctx.input(node, 0, "X")?;
    let channels_last = node.op_type == "NhwcMaxPool"
        || (node.op_type == "QLinearAveragePool" && attr_int(node, "channels_last", 0)? != 0);
    let ks = attr_ints(node, "kernel_shape")?.ok_or(OpError::MissingAttribute {
        name: "kernel_shape",
    })?;
    if ks.iter().any(|k| *k <= 0) {
        return Err(OpError::BadAttribute {
            name: "kernel_shape",
            value: AttrValue::Ints(ks.to_vec()),
            why: Box::new(AttrProblem::EntriesNotPositive),
        });
    }
    let kernel: Vec<Dim> = ks.iter().map(|k| ctx.alg.constant(*k)).collect();
    let window = onnx_window(node, kernel, false)?;
    let Some(xs) = &x.shape else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    if xs.len() != ks.len() + 2 {
        return Err(rank_of(
            "input X",
            Expected::Exactly(ks.len() + 2).noted("kernel_shape's length + 2"),
            xs.len(),
        ));
    }
    let xs = if channels_last {
        to_channels_first(xs)
    } else {
        xs.clone()
    };
    let mut out = vec![xs[0], xs[1]];
    out.extend(window.outputs(ctx, node, &xs[2..], Fit::PoolOutput)?);
    if channels_last {
        out = to_channels_last(&out);
    }
    Ok(vec![TensorFact::new(x.dtype, out)])
}

/// QLinearGlobalAveragePool: `[N, C, 1...]`, or `[N, 1..., C]` with
/// `channels_last`.
fn qlinear_global_average_pool(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 5, 5)?;
    let x = ctx.input(node, 0, "X")?;
    let Some(xs) = &x.shape else {
        return Ok(vec![TensorFact::unknown(x.dtype)]);
    };
    if xs.len() < 3 {
        return Err(rank_of("input X", Expected::AtLeast(3), xs.len()));
    }
    let one = ctx.alg.constant(1);
    let mut out: Vec<Dim> = vec![one; xs.len()];
    out[0] = xs[0];
    if attr_int(node, "channels_last", 0)? != 0 {
        out[xs.len() - 1] = xs[xs.len() - 1];
    } else {
        out[1] = xs[1];
    }
    Ok(vec![TensorFact::new(x.dtype, out)])
}

/// GatherBlockQuantized: Gather along `gather_axis` of `data`'s logical shape (a
/// uint8 `data` packs `8 / bits` values along its last axis).
fn gather_block_quantized(
    ctx: &mut ShapesContext,
    node: &Node,
) -> Result<Vec<TensorFact>, OpError> {
    check_inputs(node, 3, 4)?;
    let data = ctx.input(node, 0, "data")?;
    let indices = ctx.input(node, 1, "indices")?;
    let scales = ctx.input(node, 2, "scales")?;
    let bits = attr_int(node, "bits", 4)?;
    if !(1..=8).contains(&bits) || 8 % bits != 0 {
        return Err(OpError::BadAttribute {
            name: "bits",
            value: AttrValue::Int(bits),
            why: Box::new(AttrProblem::one_of_ints(&[2, 4, 8])),
        });
    }
    let (Some(ds), Some(is)) = (&data.shape, &indices.shape) else {
        return Ok(vec![TensorFact::unknown(scales.dtype)]);
    };
    let mut logical = ds.clone();
    if data.dtype == DType::Uint8 && bits < 8 {
        let Some(last) = logical.last_mut() else {
            return Err(rank_of("data", Expected::AtLeast(1), 0));
        };
        let per_byte = ctx.alg.constant(8 / bits);
        *last = ctx.alg.mul(*last, per_byte);
    }
    let axis = norm_axis(attr_int(node, "gather_axis", 0)?, logical.len())?;
    let out = gather_shape(ctx, node, &logical, is, axis, 0)?;
    Ok(vec![TensorFact::new(scales.dtype, out)])
}
