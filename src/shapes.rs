//! The library's front door: infer a model and read its shapes as owned values.
//!
//! [`fn@crate::infer`] gives a [`Shapes`]: every tensor's element type and dims, each
//! dim a [`DimExpr`] that prints in the expression grammar (`docs/grammar.md`),
//! does arithmetic, and evaluates at symbol values. [`Shapes::concretize`] answers
//! for given values without changing the symbolic answer, and [`Shapes::report`]
//! is the report the `symdim infer` command prints.
//!
//! ```
//! let model = symdim::load(std::path::Path::new("examples/attention.onnx")).unwrap();
//! let shapes = symdim::infer(&model, &symdim::Facts::new());
//! let y = shapes.shape("y").unwrap();
//! assert_eq!(y[0].to_string(), "batch");
//! let values = symdim::SymbolValues::new().with("batch", 4).with("sequence", 10);
//! assert_eq!(y[1].eval(&values).unwrap(), 10);
//! ```

pub use crate::algebra::{DimExpr, EvalError, SymbolValues};

use crate::algebra::{Algebra, Dim, Interval, SymbolKind, Truth};
use crate::context::facts::{check_bind, check_binds, Facts, FactsError};
use crate::context::{Diagnostic, Severity, ShapesContext, TensorFact};
use crate::contracts::explain::ExplainError;
use crate::graph::{DType, Model};
use crate::read::load::LoadError;
use crate::report::annotate::AnnotateError;
use crate::report::{Format, Report};
use indexmap::IndexMap;

/// Infer every tensor of `model` under `facts`: single-threaded, no side effects.
///
/// Never fails: what cannot be inferred, and a fact that cannot be used (a bind or
/// assumed fact naming no symbol of the model, an input dim that does not fit), is
/// an error diagnostic of the result ([`Shapes::diagnostics`],
/// [`Shapes::has_errors`]). [`Facts::validate`] finds the latter before inference.
pub fn infer<'m>(model: &'m Model, facts: &Facts) -> Shapes<'m> {
    Shapes {
        model,
        facts: facts.clone(),
        ctx: crate::infer::infer_context(model, facts),
    }
}

/// Load an OpenVINO IR model held in memory: the XML and its weights (the bytes of
/// the `.bin` file) — what [`crate::read::load::load_bytes`] cannot do alone, since
/// it has no `.bin` to read Const layers from. `name` stands for the model's path in
/// reports and errors. Empty `weights` is [`crate::read::load::load_bytes`] (a model
/// without Const layers loads; one with them is [`LoadError::MissingWeights`]).
/// Bytes that are not IR XML are read as [`crate::read::load::load_bytes`] reads
/// them when `weights` is empty, and refused otherwise. The reader's limits
/// ([`crate::read::openvino::IrLimits`]) apply as for a file.
pub fn load_ir_bytes(xml: &[u8], weights: &[u8], name: &str) -> Result<Model, LoadError> {
    use crate::read::load::{detect, load_bytes, LoadOptions};
    use crate::read::openvino::{IrError, IrLimits, IrModel, Weights};
    if weights.is_empty() {
        return load_bytes(xml, name, &LoadOptions::default());
    }
    let ir = |source| LoadError::OpenVino {
        path: name.to_string(),
        source,
    };
    let invalid = |why: &str| {
        ir(IrError::Io {
            path: name.into(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, why.to_string()),
        })
    };
    if detect(xml) != Some(crate::graph::Format::OpenVino) {
        return Err(invalid("weights were given, but the model is not IR XML"));
    }
    let text = std::str::from_utf8(xml).map_err(|_| invalid("the XML is not valid UTF-8"))?;
    let limits = IrLimits::default();
    let m = IrModel::parse_with_limits(text, &limits).map_err(ir)?;
    let weights =
        Weights::from_bytes(weights.to_vec()).with_max_const_elements(limits.max_const_elements);
    crate::read::openvino::to_graph::to_model(&m, &weights, name).map_err(ir)
}

/// One tensor of a [`ShapesContext`] as owned values (what [`Shapes::tensor`]
/// gives): for a caller that runs the `ShapesContext` operations
/// ([`crate::ops::shapes_api`]) itself. `None` for a name the context does not hold.
pub fn context_tensor(ctx: &ShapesContext, name: &str) -> Option<TensorShape> {
    ctx.get(name).map(|f| tensor_shape(ctx, f))
}

/// A tensor fact as owned values: dims and integer contents read from the algebra.
fn tensor_shape(ctx: &ShapesContext, f: &TensorFact) -> TensorShape {
    let exprs = |dims: &[crate::algebra::Dim]| -> Vec<DimExpr> {
        dims.iter().map(|d| ctx.alg.expr(*d)).collect()
    };
    TensorShape {
        dtype: (f.dtype != DType::Undefined).then_some(f.dtype),
        dims: f.shape.as_deref().map(exprs),
        value: f
            .value
            .as_deref()
            .filter(|_| f.dtype.is_integer())
            .map(exprs),
    }
}

/// How many undecided `If` nodes one inference may case-split in all (each split
/// infers the rest of its graph once per branch; `docs/ops/control-flow.md`). Past
/// it, an `If` whose branches give outputs of different ranks gets an unknown rank.
pub const MAX_SPLITS: usize = crate::infer::MAX_SPLITS;

/// How deeply case splits of undecided `If` nodes may nest (a split inside a branch
/// of a split).
pub const MAX_SPLIT_NESTING: usize = crate::infer::MAX_SPLIT_NESTING;

/// How many undecided `If` nodes one inference may probe for a case split (a probe
/// copies the inference state before the `If` runs).
pub const MAX_SPLIT_PROBES: usize = crate::infer::MAX_SPLIT_PROBES;

/// What inference found for one model: every tensor's element type and shape.
///
/// Reading it never changes it; [`Shapes::concretize`] makes a new one.
///
/// It borrows the model it was inferred from (`'m`), so a struct cannot hold both a
/// model and its `Shapes`. Keep the model (owned, or shared as an `Arc<Model>`:
/// it is `Send + Sync`) with its facts, and infer where the shapes are needed:
/// inference is deterministic, the same model and facts give the same shapes. What
/// outlives the model on its own: the owned values read from it ([`DimExpr`],
/// [`TensorShape`], [`Report`]) and [`Shapes::into_context`].
///
/// ```
/// struct Compiled {
///     model: symdim::Model,
///     facts: symdim::Facts,
/// }
///
/// impl Compiled {
///     fn shapes(&self) -> symdim::Shapes<'_> {
///         symdim::infer(&self.model, &self.facts)
///     }
/// }
///
/// let model = symdim::load(std::path::Path::new("examples/attention.onnx")).unwrap();
/// let c = Compiled { model, facts: symdim::Facts::new() };
/// assert_eq!(c.shapes().shape("y").unwrap()[2].as_i64(), Some(64));
/// ```
#[derive(Clone, Debug)]
pub struct Shapes<'m> {
    model: &'m Model,
    facts: Facts,
    ctx: ShapesContext,
}

/// One tensor's element type, shape and, for small integer tensors such as the
/// output of `Shape`, contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorShape {
    /// The element type, when known.
    pub dtype: Option<DType>,
    /// The dims, or `None` when even the rank is unknown.
    pub dims: Option<Vec<DimExpr>>,
    /// The contents, row-major, when known (integer tensors).
    pub value: Option<Vec<DimExpr>>,
}

/// Where a symbol comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SymbolInfo {
    /// Named by the model or the caller (an input dim).
    Input,
    /// Introduced by inference with a defining expression (`r0 = 48*A/F`).
    Derived {
        /// The definition.
        definition: DimExpr,
    },
    /// A dim no expression of the inputs gives (NonZero's count, a data-dependent
    /// shape), named after the node that made it.
    DataDependent {
        /// The node.
        node: String,
    },
}

impl<'m> Shapes<'m> {
    /// The model inferred.
    pub fn model(&self) -> &'m Model {
        self.model
    }

    /// The facts it was inferred under.
    pub fn facts(&self) -> &Facts {
        &self.facts
    }

    /// A tensor's element type, dims and contents; `None` for a name inference did
    /// not reach.
    pub fn tensor(&self, name: &str) -> Option<TensorShape> {
        self.ctx.get(name).map(|f| self.tensor_shape(f))
    }

    /// A tensor's dims; `None` for an unknown tensor or an unknown rank.
    pub fn shape(&self, name: &str) -> Option<Vec<DimExpr>> {
        self.tensor(name).and_then(|t| t.dims)
    }

    /// Every graph input and node output, in graph order, as the report lists them.
    pub fn tensors(&self) -> Vec<(String, TensorShape)> {
        let g = &self.model.graph;
        let mut seen = std::collections::HashSet::new();
        g.inputs
            .iter()
            .map(|v| &*v.name)
            .chain(g.nodes.iter().flat_map(|n| n.outputs.iter().map(|s| &**s)))
            .filter(|n| !n.is_empty() && seen.insert(*n))
            .filter_map(|n| self.tensor(n).map(|t| (n.to_string(), t)))
            .collect()
    }

    /// The graph's output names.
    pub fn outputs(&self) -> Vec<String> {
        let outs = &self.model.graph.outputs;
        outs.iter().map(|v| v.name.to_string()).collect()
    }

    /// Every symbol the algebra knows, in creation order, with where it comes from.
    pub fn symbols(&self) -> IndexMap<String, SymbolInfo> {
        self.ctx
            .alg
            .symbols()
            .map(|(name, e)| {
                let info = match &e.kind {
                    SymbolKind::Input => SymbolInfo::Input,
                    SymbolKind::Derived { definition } => SymbolInfo::Derived {
                        definition: DimExpr::from_poly(definition.clone()),
                    },
                    SymbolKind::DataDependent { node } => {
                        SymbolInfo::DataDependent { node: node.clone() }
                    }
                };
                (name.to_string(), info)
            })
            .collect()
    }

    /// The diagnostics of inference, in the order they were found (the report adds
    /// the algebra's contradictions and warnings after them: [`Shapes::all_diagnostics`]).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.ctx.diagnostics
    }

    /// Every diagnostic the report lists: [`Shapes::diagnostics`], then the algebra's
    /// contradictions (errors) and warnings (saturation limits reached), without
    /// building the report.
    pub fn all_diagnostics(&self) -> Vec<Diagnostic> {
        crate::report::all_diagnostics(&self.ctx)
    }

    /// True when the report holds an error: the model is invalid, or some node could
    /// not be inferred. Read from the diagnostics and the algebra's contradictions
    /// (the report's error diagnostics) without building the report.
    pub fn has_errors(&self) -> bool {
        self.ctx
            .diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
            || self.ctx.alg.contradictions().next().is_some()
    }

    /// The report `symdim infer` prints: tensors, symbols with the conditions of the
    /// model's contract, outputs and diagnostics.
    pub fn report(&self) -> Report {
        Report::build_with_constraints(self.model, &self.ctx, &self.facts)
    }

    /// [`Shapes::report`] written to `sink` as it is made (the tensors are read from
    /// the inference, not copied into a report first).
    pub fn write_report(
        &self,
        format: Format,
        sink: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        Report::write_inferred(self.model, &self.ctx, &self.facts, format, sink).1
    }

    /// The conditions on the input dims under which every node is valid.
    pub fn contract(&self) -> crate::contracts::Contract {
        crate::contracts::derive(self.model, &self.ctx, &self.facts)
    }

    /// The valid values of each input symbol and a min/opt/max profile for
    /// engines, from the contract intersected with `request`'s ranges
    /// (`symdim ranges`, `docs/ranges.md`). Refused when `request` names a symbol
    /// that is not an input symbol of the model.
    pub fn ranges(
        &self,
        request: &crate::contracts::ranges::Request,
    ) -> Result<crate::contracts::ranges::Ranges, crate::contracts::ranges::RangeError> {
        crate::contracts::ranges::ranges(self.model, &self.ctx, &self.facts, request)
    }

    /// What the model costs: per node MACs and FLOPs, per tensor elements and
    /// bytes, the parameters, totals, the peak of live activation bytes and the
    /// KV cache, as formulas of the input dims (`symdim cost`, `docs/cost.md`),
    /// with their values at `request`'s binds and their bounds over its box.
    /// Refused when `request` binds or ranges a name that is not an input symbol
    /// of the model.
    pub fn cost(
        &self,
        request: &crate::analyses::cost::CostRequest,
    ) -> Result<crate::analyses::cost::Cost, crate::contracts::ranges::RangeError> {
        let inputs: Vec<String> = self
            .ctx
            .alg
            .symbols()
            .filter(|(_, e)| matches!(e.kind, SymbolKind::Input))
            .map(|(n, _)| n.to_string())
            .collect();
        if let Some((name, _)) = request.binds.iter().find(|(n, _)| !inputs.contains(n)) {
            return Err(crate::contracts::ranges::RangeError::UnknownSymbol {
                flag: "--bind",
                name: name.clone(),
                known: inputs.join(", "),
            });
        }
        crate::analyses::cost::cost(self.model, &self.ctx, &self.facts, request)
    }

    /// Every tensor of the main graph whose rank is unknown and every dim inference
    /// could not give as an expression of the inputs, each with its reason (an op
    /// without a rule, a failed rule, a limit, an undecided broadcast, an input
    /// without a shape, or the data): what `symdim infer --strict` lists.
    pub fn unknowns(&self) -> Vec<crate::analyses::unknowns::Unknown> {
        crate::analyses::unknowns::unknowns(self.model, &self.ctx)
    }

    /// What changed from `self` (OLD) to `new` (NEW), another version of the model
    /// (`symdim diff`, `docs/diff.md`): inputs and outputs, the contract's conditions
    /// and ranges, the tensors whose shape changed, op counts and cost, with a
    /// verdict; with `request.cost`, the cost of both too. NEW's symbols are
    /// matched to OLD's by the input axes they stand for.
    ///
    /// ```
    /// use symdim::analyses::diff::{DiffRequest, Verdict};
    /// let model = symdim::load(std::path::Path::new("examples/attention.onnx")).unwrap();
    /// let old = symdim::infer(&model, &symdim::Facts::new());
    /// let new = symdim::infer(&model, &symdim::Facts::new().input_dim("x", 0, "N"));
    /// let d = old.diff(&new, &DiffRequest::default());
    /// assert_eq!(d.verdict, Verdict::Same);
    /// assert_eq!(d.symbols["batch"], "N");
    /// ```
    pub fn diff(
        &self,
        new: &Shapes<'_>,
        request: &crate::analyses::diff::DiffRequest,
    ) -> crate::analyses::diff::Diff {
        use crate::analyses::diff::{diff, Version};
        let old = Version {
            model: self.model,
            ctx: &self.ctx,
            facts: &self.facts,
        };
        let new = Version {
            model: new.model,
            ctx: &new.ctx,
            facts: &new.facts,
        };
        diff(old, new, request)
    }

    /// The shapes with some symbols given values: inferred again under the facts
    /// plus these bindings, so that what the values decide (an `If` condition, a
    /// division) is decided. `self` keeps its symbolic answer.
    ///
    /// A name that is not a symbol of the model (nor of an input dim of the facts)
    /// is refused with [`FactsError::UnknownBind`]: binding it would change nothing;
    /// a negative value, or one other than the symbol's binding in the facts, with
    /// [`FactsError::NegativeBind`] or [`FactsError::ConflictingBind`].
    pub fn concretize(&self, values: &[(&str, i64)]) -> Result<Shapes<'m>, FactsError> {
        let known = self.facts.known_symbols(&self.model.graph);
        for (name, value) in values {
            check_bind(name, *value, &known)?;
        }
        let mut facts = self.facts.clone();
        facts
            .binds
            .extend(values.iter().map(|(n, v)| (n.to_string(), *v)));
        check_binds(&facts.binds)?;
        Ok(infer(self.model, &facts))
    }

    /// Why a dim is what the report says, step by step from the inputs: what
    /// `symdim explain` prints (`docs/explain.md`). `target` is `NAME[AXIS]` (a
    /// negative axis counts from the end) or a tensor name (every axis).
    pub fn explain(&self, target: &str) -> Result<String, ExplainError> {
        crate::contracts::explain::explain(self.model, &self.ctx, target)
    }

    /// The ONNX model with every inferred shape written into its `value_info` (what
    /// `symdim infer -o` writes; `crate::report::annotate` says what is written and that a
    /// declaration is never weakened). `bytes` is the serialized model to write into:
    /// the file the model was read from, or a copy of it with fewer fields.
    /// Refused for a model that is not ONNX, or bytes that do not decode.
    pub fn annotated_bytes(&self, bytes: &[u8]) -> Result<Vec<u8>, AnnotateError> {
        let report = Report::build(self.model, &self.ctx);
        crate::report::annotate::annotated_bytes(self.model, bytes, &report)
    }

    /// The inference context itself: the algebra and every tensor's facts, for
    /// callers that work with e-graph handles ([`crate::algebra::Dim`]).
    pub fn context(&self) -> &ShapesContext {
        &self.ctx
    }

    /// The inference context, owned ([`Shapes::context`]): it does not borrow the
    /// model.
    pub fn into_context(self) -> ShapesContext {
        self.ctx
    }

    /// Are `a` and `b` equal for every value of the symbols the model allows, under
    /// its facts (the caller's binds and assumptions and what inference learned: dims
    /// it merged, dims that are never negative)? `True` and `False` are proven for
    /// every valid model, `Unknown` when neither could be. Nothing changes
    /// ([`Shapes::simplify`] says how an expression is brought in).
    ///
    /// The facts include what inference assumed: where an op needs two dims equal
    /// and cannot prove them so, it merges them, and they are then equal (a MatMul of
    /// `[M, K1]` by `[K2, N]` makes `equal(K1, K2)` `True`). Each such assumption is
    /// a warning diagnostic (`K1 and K2 assumed equal (valid when K1 == K2)`,
    /// [`Shapes::all_diagnostics`]) and a condition of the model's contract
    /// ([`Shapes::contract`]): the answers hold where the contract does.
    pub fn equal(&self, a: &DimExpr, b: &DimExpr) -> Truth {
        self.query(&[a, b], |alg, d| alg.equal(d[0], d[1]))
            .unwrap_or(Truth::Unknown)
    }

    /// Is `a <= b` for every value of the symbols the model allows, under its facts
    /// (as [`Shapes::equal`])?
    pub fn le(&self, a: &DimExpr, b: &DimExpr) -> Truth {
        self.query(&[a, b], |alg, d| alg.le(d[0], d[1]))
            .unwrap_or(Truth::Unknown)
    }

    /// The bounds of `a` under the model's facts (as [`Shapes::equal`]): every value
    /// it takes lies within them. An empty interval (`lo > hi`) means the facts
    /// contradict each other.
    pub fn bounds(&self, a: &DimExpr) -> Interval {
        self.query(&[a], |alg, d| alg.bounds(d[0]))
            .unwrap_or_else(Interval::top)
    }

    /// `a` in its simplest form under the model's facts: the algebra's rules applied
    /// where the symbols take the values the model allows (input symbols at least 1
    /// by default, bound symbols at their values, merged dims as one), which
    /// [`DimExpr`]'s own arithmetic does not know. With `batch` bound to 4,
    /// `batch*sequence` is `4*sequence`.
    ///
    /// The queries of `Shapes` never change it: an expression the model's algebra
    /// already holds is answered read-only; any other is built in a copy of the
    /// algebra (a copy of the whole e-graph, proportional to the model's size), which
    /// is then dropped. A name that is not a symbol of the model is a fresh input
    /// symbol there.
    pub fn simplify(&self, a: &DimExpr) -> DimExpr {
        self.query(&[a], |alg, d| alg.expr(d[0]))
            .unwrap_or_else(|| a.clone())
    }

    /// Answer `f` about the classes of `exprs` in the model's algebra: read-only when
    /// it holds each already ([`Algebra::find_expr`]), else in a copy that builds and
    /// simplifies them. `None` when the copy reached a size limit and put a
    /// placeholder symbol in place of an expression
    /// ([`crate::algebra::AlgebraWarning::placeholder`]): a symbol of the copy alone,
    /// bounded as a dim whatever the expression's values, so nothing said of it
    /// holds for the expression. The callers then answer as if nothing were known.
    fn query<T>(&self, exprs: &[&DimExpr], f: impl FnOnce(&Algebra, &[Dim]) -> T) -> Option<T> {
        let alg = &self.ctx.alg;
        let found: Option<Vec<Dim>> = exprs.iter().map(|e| alg.find_expr(e)).collect();
        if let Some(dims) = found {
            return Some(f(alg, &dims));
        }
        let mut copy = alg.clone();
        let dims: Vec<Dim> = exprs
            .iter()
            .map(|e| {
                let d = copy.import(e.poly(), Some(alg));
                copy.simplify(d);
                d
            })
            .collect();
        copy.placeholder_since(alg.warnings().len()).ok()?;
        Some(f(&copy, &dims))
    }

    fn tensor_shape(&self, f: &TensorFact) -> TensorShape {
        tensor_shape(&self.ctx, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An error the algebra alone records (a contradiction, with the diagnostic that
    /// reported it removed) still makes [`Shapes::has_errors`] true, as it makes the
    /// report's.
    #[test]
    fn has_errors_reads_the_algebras_contradictions() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/attention.onnx");
        let model = crate::read::load::load(std::path::Path::new(path)).unwrap();
        // 2*sequence == 6 with sequence == 4 is found only as the merge propagates.
        let facts = Facts::new()
            .assume("batch * sequence == 6")
            .assume("batch == 2")
            .assume("sequence == 4");
        let mut shapes = infer(&model, &facts);
        assert!(shapes.ctx.alg.contradictions().next().is_some());
        shapes.ctx.diagnostics.clear();
        assert!(shapes.report().has_errors());
        assert!(shapes.has_errors());
        shapes.ctx = crate::infer::infer_context(&model, &Facts::new());
        assert!(!shapes.report().has_errors());
        assert!(!shapes.has_errors());
    }
}
