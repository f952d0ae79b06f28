//! Colour conversion: OpenVINO `NV12toRGB`, `NV12toBGR`, `I420toRGB` and
//! `I420toBGR`.
//!
//! Spec: the OpenVINO operation specification (`NV12toRGB-8`, `NV12toBGR-8`,
//! `I420toRGB-8`, `I420toBGR-8`).
//!
//! The image is `[N, H, W, 3]` of the input's type. From one plane `[N, H * 3 / 2,
//! W, 1]` (the Y rows, then the chroma rows) `H` is two thirds of the plane's
//! height; from separate planes (`NV12`: `Y [N, H, W, 1]`, `UV [N, H / 2, W / 2,
//! 2]`; `I420`: `Y`, `U [N, H / 2, W / 2, 1]`, `V` likewise) it is the Y plane's.
//!
//! # Version history
//! * OpenVINO **NV12toRGB**, **NV12toBGR**, **I420toRGB**, **I420toBGR**: 8.

use crate::context::DimRole;
use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::Node;
use crate::ops::common::check_inputs;
use crate::ops::common::dims::{expect_rank, merge_dim_as};
use crate::ops::{rules, RuleEntry};

/// The rules of this family.
#[rustfmt::skip]
pub const RULES: &[RuleEntry] = rules![
    ("openvino", ["NV12toRGB", "NV12toBGR", "I420toRGB", "I420toBGR"], ov_yuv_to_rgb),
];

/// The four colour conversions (see the module docs).
fn ov_yuv_to_rgb(ctx: &mut ShapesContext, node: &Node) -> Result<Vec<TensorFact>, OpError> {
    let planes = if node.op_type.starts_with("NV12") {
        2
    } else {
        3
    };
    let n = node.input_count();
    if n != 1 && n != planes {
        check_inputs(node, 1, 1)?;
        check_inputs(node, planes, planes)?;
    }
    let y = ctx.input(node, 0, "y")?;
    let Some(ys) = &y.shape else {
        return Ok(vec![TensorFact::unknown(y.dtype)]);
    };
    expect_rank("y", ys, 4)?;
    let two = ctx.alg.constant(2);
    let h = if n == 1 {
        let three = ctx.alg.constant(3);
        let twice = ctx.alg.mul(ys[1], two);
        crate::ops::tensor::depth_space::quotient(ctx, twice, three)?
    } else {
        // the chroma planes are [N, H / 2, W / 2, 2 or 1]
        for i in 1..n {
            let uv = ctx.input(node, i, "uv")?;
            if let Some(s) = &uv.shape {
                expect_rank("uv", s, 4)?;
                for (axis, what) in [(1, "H"), (2, "W")] {
                    let full = ctx.alg.mul(s[axis], two);
                    merge_dim_as(
                        ctx,
                        node,
                        DimRole::of(what, ("the Y plane", "twice the chroma plane's")),
                        ys[axis],
                        full,
                    )?;
                }
            }
        }
        ys[1]
    };
    let three = ctx.alg.constant(3);
    Ok(vec![TensorFact::new(y.dtype, vec![ys[0], h, ys[2], three])])
}
