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

use crate::algebra::poly::Poly;
use crate::algebra::{Algebra, AlgebraError, OpKind, Rat, SymbolKind};
use crate::context::{Diagnostic, ShapesContext, TensorFact};
use crate::facts::Facts;
use crate::graph::{DType, Model};
use crate::report::{Format, Report};
use indexmap::IndexMap;
use std::fmt;

/// Infer every tensor of `model` under `facts`: single-threaded, no side effects.
pub fn infer<'m>(model: &'m Model, facts: &Facts) -> Shapes<'m> {
    Shapes {
        model,
        facts: facts.clone(),
        ctx: crate::infer::infer_context(model, facts),
    }
}

/// What inference found for one model: every tensor's element type and shape.
///
/// Reading it never changes it; [`Shapes::concretize`] makes a new one.
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
                        definition: DimExpr(definition.clone()),
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
    /// the algebra's contradictions and warnings after them).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.ctx.diagnostics
    }

    /// True when the report holds an error: the model is invalid, or some node could
    /// not be inferred.
    pub fn has_errors(&self) -> bool {
        self.report().has_errors()
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

    /// The shapes with some symbols given values: inferred again under the facts
    /// plus these bindings, so that what the values decide (an `If` condition, a
    /// division) is decided. `self` keeps its symbolic answer.
    pub fn concretize(&self, values: &[(&str, i64)]) -> Shapes<'m> {
        let mut facts = self.facts.clone();
        facts
            .binds
            .extend(values.iter().map(|(n, v)| (n.to_string(), *v)));
        infer(self.model, &facts)
    }

    /// The inference context itself: the algebra and every tensor's facts, for
    /// callers that work with e-graph handles ([`crate::algebra::Dim`]).
    pub fn context(&self) -> &ShapesContext {
        &self.ctx
    }

    fn tensor_shape(&self, f: &TensorFact) -> TensorShape {
        let exprs = |dims: &[crate::algebra::Dim]| -> Vec<DimExpr> {
            dims.iter()
                .map(|d| DimExpr(self.ctx.alg.canon(*d).clone()))
                .collect()
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
}

/// A dim as an owned value: an expression of symbols in canonical form, printed in
/// the expression grammar (`docs/grammar.md`).
///
/// Arithmetic (`+`, `-`, `*` with other dims and integers) keeps the canonical
/// polynomial form; [`DimExpr::floordiv`], [`DimExpr::ceildiv`], [`DimExpr::min`]
/// and [`DimExpr::max`] fold constants and otherwise stay as written. Two dims
/// compare equal when their canonical forms are the same; [`DimExpr::parse`] and
/// inference simplify with the algebra's rules.
///
/// ```
/// use symdim::DimExpr;
/// let s = DimExpr::parse("S").unwrap();
/// let d = (s.clone() * 12 + 4) - s * 2;
/// assert_eq!(d.to_string(), "10*S + 4");
/// let v = d.eval(&symdim::SymbolValues::new().with("S", 3)).unwrap();
/// assert_eq!(v, 34);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DimExpr(Poly);

impl DimExpr {
    /// A constant.
    pub fn constant(v: i64) -> DimExpr {
        DimExpr(Poly::constant(Rat::int(v)))
    }

    /// A symbol.
    pub fn symbol(name: &str) -> DimExpr {
        DimExpr(Poly::sym(egg::Symbol::from(name)))
    }

    /// Parse an expression of the grammar and simplify it with the algebra's rules
    /// (names are input symbols, at least 1 by default).
    pub fn parse(text: &str) -> Result<DimExpr, AlgebraError> {
        let mut alg = Algebra::default();
        let d = alg.parse(text)?;
        alg.simplify(d);
        Ok(DimExpr(alg.canon(d).clone()))
    }

    /// The value, when the dim is an integer constant that fits in `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        self.0.as_const().and_then(|r| r.to_i64())
    }

    /// The symbols it mentions, in order of first appearance.
    pub fn symbols(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.0.symbols(&mut out);
        out.into_iter().map(|s| s.as_str().to_string()).collect()
    }

    /// The value at `values`: an error names a symbol without a value, or says the
    /// expression is undefined there (a division by zero) or not an integer.
    pub fn eval(&self, values: &SymbolValues) -> Result<i64, EvalError> {
        if let Some(symbol) = self.symbols().into_iter().find(|s| values.get(s).is_none()) {
            return Err(EvalError::Unbound { symbol });
        }
        let value = self
            .0
            .eval(&|s: egg::Symbol| values.get(s.as_str()).map(Rat::int));
        let value = value.ok_or_else(|| EvalError::Undefined {
            expr: self.to_string(),
        })?;
        value.to_i64().ok_or_else(|| EvalError::NotAnInteger {
            expr: self.to_string(),
            value: value.to_string(),
        })
    }

    /// The dim with some symbols replaced by values (the others stay).
    pub fn substitute(&self, values: &SymbolValues) -> DimExpr {
        DimExpr(self.0.substitute(&|s| {
            values
                .0
                .get(s.as_str())
                .map(|v| Poly::constant(Rat::int(*v)))
        }))
    }

    /// `floor(self / d)`.
    pub fn floordiv(&self, d: &DimExpr) -> DimExpr {
        self.op(OpKind::FloorDiv, d)
    }

    /// `ceil(self / d)`.
    pub fn ceildiv(&self, d: &DimExpr) -> DimExpr {
        self.op(OpKind::CeilDiv, d)
    }

    /// The smaller of two dims.
    pub fn min(&self, d: &DimExpr) -> DimExpr {
        self.op(OpKind::Min, d)
    }

    /// The larger of two dims.
    pub fn max(&self, d: &DimExpr) -> DimExpr {
        self.op(OpKind::Max, d)
    }

    fn op(&self, kind: OpKind, d: &DimExpr) -> DimExpr {
        DimExpr(Poly::op(kind, self.0.clone(), d.0.clone()))
    }

    /// The canonical form.
    pub fn poly(&self) -> &Poly {
        &self.0
    }
}

impl fmt::Display for DimExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.render())
    }
}

impl From<i64> for DimExpr {
    fn from(v: i64) -> DimExpr {
        DimExpr::constant(v)
    }
}

macro_rules! arith {
    ($trait:ident, $method:ident, $poly:ident) => {
        impl std::ops::$trait<DimExpr> for DimExpr {
            type Output = DimExpr;
            fn $method(self, o: DimExpr) -> DimExpr {
                DimExpr(self.0.$poly(&o.0))
            }
        }
        impl std::ops::$trait<&DimExpr> for &DimExpr {
            type Output = DimExpr;
            fn $method(self, o: &DimExpr) -> DimExpr {
                DimExpr(self.0.$poly(&o.0))
            }
        }
        impl std::ops::$trait<i64> for DimExpr {
            type Output = DimExpr;
            fn $method(self, o: i64) -> DimExpr {
                DimExpr(self.0.$poly(&Poly::constant(Rat::int(o))))
            }
        }
    };
}

arith!(Add, add, add);
arith!(Sub, sub, sub);
arith!(Mul, mul, mul);

impl std::ops::Neg for DimExpr {
    type Output = DimExpr;
    fn neg(self) -> DimExpr {
        DimExpr(self.0.neg())
    }
}

/// Values of symbols, for [`DimExpr::eval`] and [`DimExpr::substitute`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SymbolValues(IndexMap<String, i64>);

impl SymbolValues {
    /// No values.
    pub fn new() -> SymbolValues {
        SymbolValues::default()
    }

    /// These values and `name = value`.
    pub fn with(mut self, name: &str, value: i64) -> SymbolValues {
        self.set(name, value);
        self
    }

    /// Set `name = value`.
    pub fn set(&mut self, name: &str, value: i64) {
        self.0.insert(name.to_string(), value);
    }

    /// The value of `name`.
    pub fn get(&self, name: &str) -> Option<i64> {
        self.0.get(name).copied()
    }
}

impl<'a> FromIterator<(&'a str, i64)> for SymbolValues {
    fn from_iter<I: IntoIterator<Item = (&'a str, i64)>>(iter: I) -> SymbolValues {
        SymbolValues(iter.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }
}

/// Why a dim has no integer value at some symbol values.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// A symbol has no value.
    #[error("symbol `{symbol}` has no value")]
    Unbound {
        /// The symbol.
        symbol: String,
    },
    /// The expression is undefined at these values (a division by zero).
    #[error("{expr} is undefined at these values")]
    Undefined {
        /// The expression.
        expr: String,
    },
    /// The value is not an integer, or does not fit in `i64`.
    #[error("{expr} is {value} at these values, not an i64")]
    NotAnInteger {
        /// The expression.
        expr: String,
        /// Its exact value.
        value: String,
    },
}
