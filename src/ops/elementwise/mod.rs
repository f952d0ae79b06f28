//! Elementwise ops of every format: unary maps, binary and variadic broadcasting
//! ops, selection, and their values on shape tensors.
//!
//! Specs: the ONNX operator reference (opsets 1 to 25) and "Broadcasting in ONNX"
//! (`docs/Broadcasting.md`); the OpenVINO operation specifications (the
//! arithmetic, comparison, logical and activation ops, `Select-1`,
//! `FakeQuantize-1`); oneDNN Graph's operation documents (the eltwise and binary
//! ops, `Select`, `BiasAdd`, `Quantize`, `Dequantize`, `TypeCast`, `Reorder`).
//!
//! Shapes: unary ops keep the input's shape. Binary ops broadcast
//! ([`crate::ops::common::broadcast`]): ONNX numpy-style from opset 7 (legacy `broadcast`
//! before); OpenVINO and oneDNN by their `auto_broadcast` attribute (`numpy`, the
//! default; `none`: equal shapes; OpenVINO also `pdpd`). A pair of dims that
//! cannot be decided stays `broadcast(a, b)`, never an unsafe merge.
//!
//! Output types: comparisons and logic (ONNX `Equal`, `Less`, `Greater`,
//! `LessOrEqual`, `GreaterOrEqual`, `And`, `Or`, `Xor`, `Not`, `IsNaN`, `IsInf`;
//! OpenVINO `Equal`, `NotEqual`, `Less`, `LessEqual`, `Greater`, `GreaterEqual`,
//! `Logical*`, `IsNaN`, `IsInf`, `IsFinite`; oneDNN `GreaterEqual`) give `bool`;
//! every other op gives its first input's type. ONNX inputs that must share a type
//! and do not are a typed error. oneDNN's output type is the converter's
//! `dst_dtype` when present.
//!
//! Values (shape tensors; booleans are `0`/`1`; every operation through the
//! algebra; [`unary_value`](kernel::unary_value), [`bin_value`](kernel::bin_value)):
//! - `Add`, `Sub`, `Mul`, `Neg`, `Max`, `Min`, `Sum`, `Relu`, `Clip`,
//!   `SquaredDifference`: always.
//! - integer `Div`: ONNX truncates toward zero ([`trunc_div`](arith::trunc_div)): `floordiv` when
//!   the signs of both operands are proven (`alg.bounds`: `a >= 0, b > 0` gives
//!   `floordiv(a, b)`, the other sign cases negate), exact truncation when both
//!   are constants, `floordiv(max(a, 0), b) - floordiv(max(-a, 0), b)` when only
//!   the divisor's sign is proven (`b > 0`; negated for `b < 0`), and no value
//!   otherwise (the shape is still inferred).
//!   OpenVINO's `Divide` floors (`m_pythondiv`, the default) or truncates. A
//!   divisor `b >= 0` that may be 0 gives the exact quotient when it is an
//!   integer wherever `b != 0` (integer division by 0 is undefined), and the
//!   requirement `1 <= b` (kind `divisor`); otherwise no value.
//! - float `Div` is exact rational division (divisor provably non-zero); `Mean`
//!   likewise; `Reciprocal` of a provably non-zero float.
//! - Floor modulo (ONNX `Mod` with `fmod = 0`, OpenVINO `FloorMod`: the sign of
//!   the divisor, the algebra's `mod`); truncated modulo (ONNX `fmod = 1`,
//!   OpenVINO `Mod`: the sign of the dividend): `mod` when both are proven
//!   non-negative, exact for constants, no value otherwise.
//! - `Floor`, `Ceil` on rational values: `floordiv(x, 1)`, `ceildiv(x, 1)` (over
//!   the common denominator of `x`'s coefficients).
//! - `Sqrt`: exact for a constant that is a perfect square (of a rational), no
//!   value otherwise.
//! - `Abs`, `Sign`: when the sign is proven.
//! - `Pow`: a constant integer exponent in `0..=16`.
//! - comparisons, `Not`, `And`, `Or`, `Xor`: only when every element is decided
//!   (`alg.equal`, `alg.le` give [`Truth`](crate::algebra::Truth)); otherwise no value.
//! - OpenVINO `Select` and ONNX `Where` pick by a decided condition
//!   ([`select_shape`](kernel::select_shape), [`select_values`](kernel::select_values); oneDNN's `Select` has the shape only).
//!
//! oneDNN ops carry no values. Integer overflow (wrap-around of fixed-width types)
//! is not modelled: values are exact integers; ONNX reports a constant outside the
//! type's range, as onnx's data propagation does.
//!
//! Version history, ONNX:
//! - **Add, Sub, Mul, Div**: 1 and 6 with `broadcast`/`axis` attributes (legacy
//!   broadcasting: B is broadcast to A's shape, so the output has A's shape); 7
//!   numpy broadcasting; 13 bf16; 14 more integer types.
//! - **Pow**: 1 (legacy broadcast); 7 numpy; 12 exponent type may differ; 13, 15.
//! - **Mod**: 10 (`fmod`); 13 bf16; 28 `fmod = 0` allowed for floats (floor
//!   modulo).
//! - **And, Or, Xor, Equal, Less, Greater**: 1 (legacy broadcast); 7 numpy;
//!   Equal 11/13/19 types, Less/Greater 9/13 types.
//! - **LessOrEqual, GreaterOrEqual**: 12; 16 bf16.
//! - **BitShift**: 11 (`direction`). **BitwiseAnd/Or/Xor/Not**: 18.
//! - **Max, Min, Sum, Mean**: 1 and 6 (all inputs of one shape); 8 numpy
//!   broadcasting of any number of inputs; Max/Min 12 integer types, 13 bf16.
//! - **Clip**: 1 and 6 `min`/`max` attributes; 11 optional inputs `min`, `max`;
//!   12 integer types; 13 bf16.
//! - **Where**: 9 (numpy broadcast of the condition, X and Y; X and Y of one
//!   type, a bool condition); 16 bf16.
//! - **PRelu**: 1, 6; 7 `slope` broadcasts unidirectionally to X (output has X's
//!   shape); 9, 16 types.
//! - **Unary maps** (Neg, Abs, Reciprocal, Sqrt, Exp, Log, trigonometric,
//!   activations, Floor, Ceil, Round, Sign, Not, IsNaN, IsInf, ...): same shape in
//!   every version; versions only add types (6 drops `consumed_inputs`; 13 bf16).
//!
//! Version history, OpenVINO (layer types as written in IR files and in the
//! runtime spelling: `ReLU`/`Relu`, `PReLU`/`PRelu`):
//! - **Add, Subtract, Multiply, Divide, Maximum, Minimum, Power,
//!   SquaredDifference, FloorMod, Mod, comparisons, LogicalAnd/Or/Xor**: 1
//!   (`auto_broadcast`, `Divide`'s `m_pythondiv`); 13 bf16 for the logical ops.
//! - **Select-1** (numpy broadcast of the three inputs, or equal shapes);
//!   **FakeQuantize-1** (numpy broadcast of the five inputs).
//! - **Unary math and activations** (Relu, Sigmoid, Tanh, Exp, Log, Sqrt, Erf,
//!   Gelu 2/7, HSwish 4, HSigmoid 5, Swish 4, Mish 4, SoftPlus 4, SoftSign 9, Elu,
//!   Selu, Clamp, HardSigmoid, PReLU, trigonometric, Sign, Round 5, Negative, Abs,
//!   Floor, Ceiling, LogicalNot, IsNaN/IsInf/IsFinite 10) and `Roll-7`: the
//!   data shape in every version (`CumSum-3` and `ReverseSequence-1` run the
//!   ONNX kernels of `tensor.rs`). Also
//!   Asinh/Acosh/Atanh-3, BitwiseNot-13, Reverse-1, Inverse-14, FakeConvert-13
//!   (the data's type), SliceScatter-15 and GatherTree-1 (input 0's shape).
//! - **Xor-1** (the opset-1 name of LogicalXor), **BitwiseAnd/Or/Xor-13**,
//!   **BitwiseLeftShift/RightShift-15**: broadcast by `auto_broadcast`; the bitwise
//!   ops have no value here.
//! - **ConvertPromoteTypes-14**: each input keeps its shape and both take the
//!   promoted type ([`promote_types`](openvino::promote_types)).
//!
//! oneDNN: `Abs`, `Clamp`, `Elu`, `Exp`, `GELU`, `HardSigmoid`, `HardSwish`,
//! `LeakyReLU`, `Log`, `Mish`, `ReLU`, `Reciprocal`, `Round`, `Sigmoid`,
//! `SoftPlus`, `Sqrt`, `Square`, `Tanh`, `PReLU`, `GenIndex`, and the conversions
//! `Reorder`, `TypeCast`, `Quantize`, `Dequantize`, `DynamicQuantize`,
//! `DynamicDequantize` keep the input's shape; `Add`, `Subtract`, `Multiply`,
//! `Divide`, `Maximum`, `Minimum`, `Pow`, `SquaredDifference`, `GreaterEqual`
//! broadcast by `auto_broadcast` (numpy or none); `Select` broadcasts its three
//! inputs; `BiasAdd` keeps `src`'s shape, its bias as long as the channel dim of
//! `data_format`. The eltwise backward ops (`AbsBackward`, `ClampBackward`,
//! `EluBackward`, `GELUBackward`, `HardSigmoidBackward`, `HardSwishBackward`,
//! `MishBackward`, `ReLUBackward`, `SigmoidBackward`, `SoftPlusBackward`,
//! `SqrtBackward`, `TanhBackward`) give `diff_src` the shape input 0 and
//! `diff_dst` share; `PReLUBackward` also `diff_slope` of the slope's shape;
//! `BiasAddBackward` `[C]` by `data_format` (from a `diff_dst` of rank 4 or more,
//! as oneDNN's shape inference takes). Every oneDNN op has one version, 1.
//!
//! Cost: one FLOP per output element ([`COSTS`]).

pub mod arith;
pub mod kernel;
pub mod onednn;
pub mod onnx;
pub mod openvino;

use crate::ops::cost::{elementwise, moves_data, Costs};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    // unary maps
    ("", [
        "Neg", "Abs", "Reciprocal", "Sqrt", "Exp", "Log", "Sin", "Cos", "Tan", "Asin", "Acos",
        "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Erf", "Tanh", "Sigmoid",
        "HardSigmoid", "HardSwish", "Relu", "LeakyRelu", "Elu", "Selu", "Celu",
        "ThresholdedRelu", "Gelu", "Mish", "Softplus", "Softsign", "Shrink", "Floor", "Ceil",
        "Round", "Sign", "Not", "BitwiseNot", "IsNaN", "IsInf",
    ], onnx::unary),
    ("", ["Clip"], onnx::clip),
    // binary
    ("", [
        "Add", "Sub", "Mul", "Div", "Pow", "Mod", "And", "Or", "Xor", "Equal", "Less",
        "Greater", "LessOrEqual", "GreaterOrEqual", "BitShift", "BitwiseAnd", "BitwiseOr",
        "BitwiseXor",
    ], onnx::binary),
    ("", ["PRelu"], onnx::prelu),
    ("", ["Where"], onnx::where_op),
    // variadic
    ("", ["Max", "Min", "Sum", "Mean"], onnx::variadic),
    // OpenVINO
    ("openvino", [
        "Relu", "ReLU", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Erf", "Gelu", "HSwish",
        "HSigmoid", "Swish", "Mish", "SoftPlus", "SoftSign", "Elu", "Selu", "Clamp",
        "HardSigmoid", "PRelu", "PReLU", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh",
        "Cosh", "Sign", "Round", "Roll", "Negative", "Abs", "Floor", "Ceiling", "LogicalNot",
        "IsNaN", "IsInf", "IsFinite", "Asinh", "Acosh", "Atanh", "BitwiseNot", "Reverse",
        "Inverse", "FakeConvert", "SliceScatter", "GatherTree",
    ], openvino::same_shape),
    ("openvino", [
        "Add", "Subtract", "Multiply", "Divide", "Maximum", "Minimum", "Power",
        "SquaredDifference", "FloorMod", "Mod", "Equal", "NotEqual", "Less", "LessEqual",
        "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr", "LogicalXor", "Xor", "BitwiseAnd",
        "BitwiseOr", "BitwiseXor", "BitwiseLeftShift", "BitwiseRightShift",
    ], openvino::binary),
    ("openvino", ["ConvertPromoteTypes"], openvino::convert_promote_types),
    ("openvino", ["Select"], openvino::select),
    ("openvino", ["FakeQuantize"], openvino::fake_quantize),
    // oneDNN
    ("onednn", [
        "Abs", "Clamp", "Elu", "Exp", "GELU", "HardSigmoid", "HardSwish", "LeakyReLU", "Log",
        "Mish", "ReLU", "Reciprocal", "Round", "Sigmoid", "SoftPlus", "Sqrt", "Square", "Tanh",
        "Reorder", "TypeCast", "Quantize", "Dequantize", "DynamicQuantize", "DynamicDequantize",
        "PReLU", "GenIndex",
    ], onednn::same_shape),
    ("onednn", [
        "Add", "Subtract", "Multiply", "Divide", "Maximum", "Minimum", "Pow",
        "SquaredDifference", "GreaterEqual",
    ], onednn::binary),
    ("onednn", ["Select"], onednn::select),
    ("onednn", ["BiasAdd"], onednn::bias_add),
    ("onednn", [
        "AbsBackward", "ClampBackward", "EluBackward", "GELUBackward", "HardSigmoidBackward",
        "HardSwishBackward", "MishBackward", "ReLUBackward", "SigmoidBackward",
        "SoftPlusBackward", "SqrtBackward", "TanhBackward",
    ], onednn::eltwise_backward),
    ("onednn", ["PReLUBackward"], onednn::prelu_backward),
    ("onednn", ["BiasAddBackward"], onednn::bias_add_backward),
];

/// What an elementwise op computes ([`crate::ops::cost`]): 0 MACs and one FLOP
/// per output element, whatever the op (a `Pow` or an `Erf` is one, as a `Relu`
/// is); the ops that only move elements (`Roll`, `Reverse`, `Reorder`,
/// `SliceScatter`, `GatherTree`) and conversions (`TypeCast`) are 0.
pub const COSTS: &[Costs] = &[Costs {
    rules: RULES,
    all: Some(elementwise),
    by_op: rules![
        (
            "openvino",
            ["Roll", "Reverse", "SliceScatter", "GatherTree"],
            moves_data
        ),
        ("onednn", ["Reorder", "TypeCast"], moves_data),
    ],
}];
