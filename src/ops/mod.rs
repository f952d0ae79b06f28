//! Shape rules, grouped by meaning: [`tensor`] (data movement and shape tensors),
//! [`elementwise`], [`nn`] (network layers), [`attention`], [`control`] (control
//! flow, sequences), [`ml`] and [`signal`]. Each family is a file (or, when large,
//! a folder with a file per format) that opens with its spec summary and version
//! history and exports a `RULES` table; [`common`] holds what the families share,
//! and knows none of them. [`declared`] applies the rules of `--op-rules` files,
//! [`shapes_api`] is the `ShapesContext` API of the shape-tensor spec.
//!
//! A rule is an [`OpRule`]: it reads its inputs from the [`ShapesContext`] and
//! returns one [`TensorFact`] per output, or a typed [`OpError`]. Rules never
//! compute with raw integers behind the algebra's back: every dim goes through
//! `ctx.alg`. This module is the registry: [`FAMILIES`] lists the tables, and
//! [`rule_for`] finds the rule of a node. `docs/adding-an-op.md` walks through
//! adding one.
//!
//! Each family also states what its ops compute, in a [`cost::Costs`] table beside
//! its rules: [`COST_FAMILIES`] lists them and [`cost_for`] finds the formula of a
//! node (`symdim cost`, `docs/cost.md`).

pub mod attention;
pub mod common;
pub mod control;
pub mod cost;
pub mod declared;
pub mod elementwise;
pub mod ml;
pub mod nn;
pub mod shapes_api;
pub mod signal;
pub mod tensor;

use crate::context::{OpError, ShapesContext, TensorFact};
use crate::graph::Node;
use std::sync::OnceLock;

/// A shape rule: the facts of every output of `node`.
pub type OpRule = fn(&mut ShapesContext, &Node) -> Result<Vec<TensorFact>, OpError>;

/// One registry entry: (domain, op type, rule). The ONNX default domain is `""`
/// (`ai.onnx` is looked up as `""`); OpenVINO ops use `openvino`, oneDNN ops `onednn`.
pub type RuleEntry = (&'static str, &'static str, OpRule);

/// A family's rule table, one line per rule function: its domain, the op types
/// it serves and the function; the table holds one [`RuleEntry`] per op type, in
/// order.
///
/// ```ignore
/// #[rustfmt::skip]
/// pub const RULES: &[RuleEntry] = rules![
///     ("", ["Relu", "Sigmoid", "Tanh"], unary),
///     ("openvino", ["Relu", "ReLU"], openvino_same_shape),
/// ];
/// ```
macro_rules! rules {
    ($(($domain:expr, [$($op:literal),+ $(,)?], $rule:expr)),* $(,)?) => {
        &[$($(($domain, $op, $rule),)+)*]
    };
}
pub(crate) use rules;

/// Every family's rule table.
pub const FAMILIES: &[&[RuleEntry]] = &[
    tensor::reshape::RULES,
    tensor::concat::RULES,
    tensor::cast::RULES,
    tensor::pad::RULES,
    tensor::slice::RULES,
    tensor::split::RULES,
    tensor::constant::RULES,
    tensor::depth_space::RULES,
    tensor::topk::RULES,
    tensor::contents::RULES,
    tensor::shape::RULES,
    tensor::gather::RULES,
    tensor::scatter::RULES,
    tensor::onehot::RULES,
    tensor::generate::RULES,
    tensor::trilu::RULES,
    tensor::transpose::RULES,
    tensor::squeeze::RULES,
    tensor::expand::RULES,
    tensor::reduce::RULES,
    tensor::contrib::RULES,
    elementwise::RULES,
    nn::detection::RULES,
    nn::embedding::RULES,
    nn::patches::RULES,
    nn::matmul::RULES,
    nn::conv::RULES,
    nn::pool::RULES,
    nn::norm::RULES,
    nn::resize::RULES,
    nn::rnn::RULES,
    nn::quantize::RULES,
    nn::contrib::RULES,
    nn::spatial::RULES,
    attention::standard::RULES,
    attention::contrib::RULES,
    attention::transformer::RULES,
    control::flow::RULES,
    control::sequence::RULES,
    control::opaque::RULES,
    ml::ctc::RULES,
    ml::strings::RULES,
    ml::loss::RULES,
    ml::classical::RULES,
    ml::training::RULES,
    signal::fft::RULES,
    signal::color::RULES,
    signal::generators::RULES,
];

/// Every family's cost formulas ([`cost::Costs`]).
pub const COST_FAMILIES: &[&[cost::Costs]] = &[
    tensor::COSTS,
    tensor::reduce::COSTS,
    elementwise::COSTS,
    nn::matmul::COSTS,
    nn::conv::COSTS,
    nn::pool::COSTS,
    nn::norm::COSTS,
    nn::rnn::COSTS,
    nn::contrib::COSTS,
    nn::quantize::COSTS,
    attention::standard::COSTS,
    attention::contrib::COSTS,
    attention::transformer::COSTS,
];

/// The cost formulas by op type, then domain.
type CostRegistry = rustc_hash::FxHashMap<&'static str, Vec<(&'static str, cost::CostRule)>>;

fn cost_registry() -> &'static CostRegistry {
    static REG: OnceLock<CostRegistry> = OnceLock::new();
    REG.get_or_init(|| {
        let mut m = CostRegistry::default();
        let mut put = |domain: &'static str, op: &'static str, rule: cost::CostRule| {
            let domains = m.entry(op).or_default();
            if !domains.iter().any(|(d, _)| *d == domain) {
                domains.push((domain, rule));
            }
        };
        // Formulas per op first: they win over a family's formula for all its ops.
        for fam in COST_FAMILIES.iter().flat_map(|f| f.iter()) {
            for (domain, op, rule) in fam.by_op {
                put(domain, op, *rule);
            }
        }
        for fam in COST_FAMILIES.iter().flat_map(|f| f.iter()) {
            if let Some(rule) = fam.all {
                for (domain, op, _) in fam.rules {
                    put(domain, op, rule);
                }
            }
        }
        m
    })
}

/// The cost formula of an op, if its family states one.
pub fn cost_for(domain: &str, op_type: &str) -> Option<cost::CostRule> {
    let domain = crate::graph::canonical_domain(domain);
    let domains = cost_registry().get(op_type)?;
    domains
        .iter()
        .find(|(d, _)| crate::graph::same_text(d, domain))
        .map(|(_, r)| *r)
}

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

/// What an op's rule does with a tensor's fill ([`TensorFact::fill`]: the one value
/// every element holds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FillRule {
    /// The rule sets its outputs' fill itself (ConstantOfShape, Cast, the integer
    /// binary ops, Where, the reductions that keep a fill).
    Own,
    /// Every element of the output is an element of input 0, moved or repeated
    /// (Identity, Reshape, Transpose, Expand, ...): input 0's fill is the output's.
    Through,
    /// Neither: the driver clears any fill the rule's outputs carry.
    Drops,
}

/// ONNX ops whose rules set their outputs' fill ([`FillRule::Own`]).
pub const FILL_OWN: &[&str] = &[
    "ConstantOfShape",
    "Cast",
    "Where",
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Mod",
    "Equal",
    "Less",
    "Greater",
    "LessOrEqual",
    "GreaterOrEqual",
    "And",
    "Or",
    "Xor",
    "ReduceSum",
    "ReduceMean",
    "ReduceMax",
    "ReduceMin",
    "ReduceProd",
];

/// ONNX ops each of whose output elements is an element of input 0
/// ([`FillRule::Through`]).
pub const FILL_THROUGH: &[&str] = &[
    "Identity",
    "Reshape",
    "Unsqueeze",
    "Squeeze",
    "Flatten",
    "Transpose",
    "Expand",
    "Tile",
];

/// The [`FillRule`] of an op: only ONNX (`ai.onnx`) ops keep fills.
pub fn fill_rule(domain: &str, op_type: &str) -> FillRule {
    if !crate::graph::canonical_domain(domain).is_empty() {
        FillRule::Drops
    } else if FILL_OWN.contains(&op_type) {
        FillRule::Own
    } else if FILL_THROUGH.contains(&op_type) {
        FillRule::Through
    } else {
        FillRule::Drops
    }
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

#[cfg(test)]
mod registry_tests {
    use super::*;

    #[test]
    fn ai_onnx_is_the_default_domain() {
        assert!(rule_for("ai.onnx", "Relu").is_some());
    }

    #[test]
    fn a_table_line_is_one_entry_per_op() {
        fn r(_: &mut ShapesContext, _: &Node) -> Result<Vec<TensorFact>, OpError> {
            Ok(Vec::new())
        }
        const T: &[RuleEntry] = rules![("", ["A", "B"], r), ("x", ["C"], r)];
        let names: Vec<_> = T.iter().map(|(d, o, _)| (*d, *o)).collect();
        assert_eq!(names, [("", "A"), ("", "B"), ("x", "C")]);
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
