//! Shape rules, one file per op or op family.
//!
//! A rule is an [`OpRule`]: it reads its inputs from the [`ShapesContext`] and
//! returns one [`TensorFact`] per output, or a typed [`OpError`]. Rules never
//! compute with raw integers behind the algebra's back: every dim goes through
//! `ctx.alg`. Each family file opens with its spec summary and version history and
//! exports a `RULES` table; [`FAMILIES`] lists the tables, and [`rule_for`] finds
//! the rule of a node. `docs/adding-an-op.md` walks through adding one.

pub mod attention;
pub mod attrs;
pub mod broadcast;
pub mod cast;
pub mod color;
pub mod concat;
pub mod constant;
pub mod contrib;
pub mod contrib_linear;
pub mod contrib_tensor;
pub mod control;
pub mod conv;
pub mod ctc;
pub mod declared;
pub mod depth_space;
pub mod detection;
pub mod elementwise;
pub mod embedding;
pub mod expand;
pub mod fft;
pub mod gather;
pub mod generate;
pub mod loss;
pub mod matmul;
pub mod ml;
pub mod nn_util;
pub mod norm;
pub mod onehot;
pub mod opaque;
pub mod pad;
pub mod patches;
pub mod pool;
pub mod quantize;
pub mod reduce;
pub mod reshape;
pub mod resize;
pub mod rnn;
pub mod scatter;
pub mod sequence;
pub mod shape;
pub mod signal;
pub mod slice;
pub mod spatial;
pub mod split;
pub mod squeeze;
pub mod strings;
pub mod tensor;
pub mod topk;
pub mod training;
pub mod transformer;
pub mod transpose;
pub mod trilu;
pub mod values;

use crate::algebra::Dim;
use crate::context::{Expected, OpError, ShapesContext, TensorFact};
use crate::graph::{DType, Node};
pub use attrs::{attr_float, attr_int, attr_int_required, attr_ints, attr_str};
use std::sync::OnceLock;

/// A shape rule: the facts of every output of `node`.
pub type OpRule = fn(&mut ShapesContext, &Node) -> Result<Vec<TensorFact>, OpError>;

/// One registry entry: (domain, op type, rule). The ONNX default domain is `""`
/// (`ai.onnx` is looked up as `""`); OpenVINO ops use `openvino`, oneDNN ops `onednn`.
pub type RuleEntry = (&'static str, &'static str, OpRule);

/// Every family's rule table.
pub const FAMILIES: &[&[RuleEntry]] = &[
    control::RULES,
    attention::RULES,
    fft::RULES,
    detection::RULES,
    embedding::RULES,
    ctc::RULES,
    color::RULES,
    strings::RULES,
    patches::RULES,
    reshape::RULES,
    concat::RULES,
    cast::RULES,
    matmul::RULES,
    conv::RULES,
    pool::RULES,
    norm::RULES,
    resize::RULES,
    pad::RULES,
    slice::RULES,
    split::RULES,
    constant::RULES,
    depth_space::RULES,
    topk::RULES,
    rnn::RULES,
    quantize::RULES,
    tensor::RULES,
    shape::RULES,
    gather::RULES,
    scatter::RULES,
    onehot::RULES,
    generate::RULES,
    trilu::RULES,
    transpose::RULES,
    squeeze::RULES,
    expand::RULES,
    elementwise::RULES,
    reduce::RULES,
    contrib::RULES,
    contrib_linear::RULES,
    contrib_tensor::RULES,
    loss::RULES,
    sequence::RULES,
    transformer::RULES,
    signal::RULES,
    spatial::RULES,
    ml::RULES,
    training::RULES,
    opaque::RULES,
];

/// The rules by op type, then domain (most op types have one domain).
type Registry = rustc_hash::FxHashMap<&'static str, Vec<(&'static str, OpRule)>>;

fn registry() -> &'static Registry {
    static REG: OnceLock<Registry> = OnceLock::new();
    REG.get_or_init(|| {
        let mut m = Registry::default();
        for fam in FAMILIES {
            for (domain, op, rule) in fam.iter() {
                // The first family to claim an op keeps it; `tests` check no op is
                // claimed twice.
                let domains = m.entry(*op).or_default();
                if !domains.iter().any(|(d, _)| d == domain) {
                    domains.push((*domain, *rule));
                }
            }
        }
        m
    })
}

/// The rule for an op, if symdim has one.
pub fn rule_for(domain: &str, op_type: &str) -> Option<OpRule> {
    let domain = crate::graph::canonical_domain(domain);
    let domains = registry().get(op_type)?;
    domains
        .iter()
        .find(|(d, _)| crate::graph::same_text(d, domain))
        .map(|(_, r)| *r)
}

/// Outputs of unknown rank for every output of `node`.
pub fn unknown_outputs(node: &Node, dtype: DType) -> Vec<TensorFact> {
    node.outputs
        .iter()
        .map(|_| TensorFact::unknown(dtype))
        .collect()
}

/// Fresh data-dependent dims for output `output` of `node`.
pub fn fresh_dims(ctx: &mut ShapesContext, node: &Node, output: usize, rank: usize) -> Vec<Dim> {
    (0..rank)
        .map(|axis| ctx.unknown_dim(node, output, axis))
        .collect()
}

/// Normalise an axis in `[-rank, rank)` to `[0, rank)`.
pub fn norm_axis(axis: i64, rank: usize) -> Result<usize, OpError> {
    let r = rank as i64;
    if (-r..r).contains(&axis) {
        Ok(if axis < 0 {
            (axis + r) as usize
        } else {
            axis as usize
        })
    } else {
        Err(OpError::AxisOutOfRange { axis, rank })
    }
}

/// Check the input count is within `[min, max]`.
pub fn check_inputs(node: &Node, min: usize, max: usize) -> Result<(), OpError> {
    let n = node.input_count();
    if n < min || n > max {
        let expected = if min == max {
            Expected::Exactly(min)
        } else {
            Expected::Between(min, max)
        };
        return Err(OpError::InputCount { expected, found: n });
    }
    Ok(())
}

#[cfg(test)]
mod registry_tests {
    use super::*;

    #[test]
    fn ai_onnx_is_the_default_domain() {
        assert!(rule_for("ai.onnx", "Relu").is_some());
    }

    #[test]
    fn no_op_has_two_rules() {
        let mut seen = std::collections::HashSet::new();
        for fam in FAMILIES {
            for (domain, op, _) in fam.iter() {
                assert!(
                    seen.insert((*domain, *op)),
                    "{domain}:{op} is registered twice"
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::rule_for;

    #[test]
    fn rules_are_found_per_domain() {
        // An empty `String` (a dangling pointer) and an empty literal name one domain.
        let empty = String::new();
        for domain in [empty.as_str(), "", "ai.onnx"] {
            assert!(rule_for(domain, "Reshape").is_some());
            assert!(rule_for(domain, "QuickGelu").is_none());
        }
        assert!(rule_for("com.microsoft", "QuickGelu").is_some());
        assert!(rule_for("com.microsoft", "Reshape").is_none());
        assert!(rule_for("openvino", "Reshape").is_some());
        assert!(rule_for("", "NoSuchOp").is_none());
    }
}
