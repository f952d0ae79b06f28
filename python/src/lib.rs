//! `symdim._native`: the Python extension module of symdim.
//!
//! Every function here wraps the library's facade: models are read with
//! [`fn@symdim::load`] and [`symdim::load_bytes`], checked against the caller's facts
//! with [`symdim::Facts::validate`], inferred with [`fn@symdim::infer`], written back
//! with [`symdim::Shapes::annotated_bytes`], and checked with [`symdim::contracts::check::check`].
//! The Python package `symdim` (`python/symdim/__init__.py`) re-exports these and adds
//! what needs the `onnx` package: `infer_shapes` returning a `ModelProto`, and the
//! drop-in `SymbolicShapeInference`.
//!
//! The GIL is released while a model is read and inferred ([`Python::detach`]); a
//! panic inside the library is caught there and raised as `symdim.InternalError`,
//! never unwound into the interpreter.

#![deny(missing_docs)]

use pyo3::basic::CompareOp;
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyList, PyMemoryView, PyString};
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::OnceLock;
use symdim::algebra::{Algebra, Config, Truth};
use symdim::read::load::{LoadError, LoadOptions};
use symdim::{DimExpr, Facts, SymbolValues, TensorShape};

// The allocator the `symdim` executable uses: inference allocates many small strings
// and vectors, which mimalloc serves faster than the system allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

create_exception!(
    symdim,
    ModelError,
    PyValueError,
    "The model could not be read: no report is possible. The message is the one \
     the `symdim` command prints."
);
create_exception!(
    symdim,
    ExprError,
    PyValueError,
    "An expression or fact does not parse in the grammar, or the algebra rejects it."
);
create_exception!(
    symdim,
    OpRulesError,
    PyValueError,
    "The declared shape rules (`op_rules=`) cannot be used: the file cannot be read, \
     or a line is wrong. The message names the file (or `<text>`), the line and the \
     problem, as `symdim --op-rules` prints it."
);
create_exception!(
    symdim,
    EvalError,
    PyValueError,
    "A dim has no integer value at the given symbol values."
);
create_exception!(
    symdim,
    UndecidedError,
    PyTypeError,
    "The algebra can neither prove nor refute an order comparison of dims."
);
create_exception!(
    symdim,
    InternalError,
    PyRuntimeError,
    "symdim failed inside (a bug): the message says where."
);

/// The report path of a model given as bytes or as an `onnx.ModelProto`.
const MEMORY_NAME: &str = "<memory>";

/// Where a model comes from: bytes held by Python, or a file.
enum Source {
    Memory(PyBackedBytes),
    File(PathBuf),
}

impl Source {
    /// An `onnx.ModelProto` (anything with `SerializeToString`), bytes, a bytearray, a
    /// memoryview, or a path (`str` or `os.PathLike`).
    fn extract(model: &Bound<'_, PyAny>) -> PyResult<Source> {
        if let Ok(bytes) = model.extract::<PyBackedBytes>() {
            return Ok(Source::Memory(bytes));
        }
        if model.is_instance_of::<PyMemoryView>() {
            return Ok(Source::Memory(model.call_method0("tobytes")?.extract()?));
        }
        if model.hasattr("SerializeToString")? {
            let bytes = model.call_method0("SerializeToString")?;
            return Ok(Source::Memory(bytes.extract()?));
        }
        if let Ok(path) = model.extract::<PathBuf>() {
            return Ok(Source::File(path));
        }
        Err(PyTypeError::new_err(format!(
            "model must be an onnx.ModelProto, bytes or a path, not {}",
            model.get_type().name()?
        )))
    }

    /// Read and convert the model (external data and weights come from a file's
    /// folder; a model in memory has none).
    fn load(&self) -> Result<symdim::Model, LoadError> {
        match self {
            Source::Memory(bytes) => {
                symdim::load_bytes(bytes, MEMORY_NAME, &LoadOptions::default())
            }
            Source::File(path) => symdim::load(path),
        }
    }
}

/// The declared shape rules of `op_rules`: the path of a rules file (a `str` or an
/// `os.PathLike`), the rules' text (a `str` holding a newline: a rule takes at least
/// two lines), or a list or tuple of those, merged in order.
fn read_op_rules(given: Option<&Bound<'_, PyAny>>) -> PyResult<symdim::OpRules> {
    let Some(given) = given.filter(|r| !r.is_none()) else {
        return Ok(symdim::OpRules::new());
    };
    let one = |item: &Bound<'_, PyAny>| -> PyResult<symdim::OpRules> {
        let read = if let Ok(text) = item.cast::<PyString>() {
            let text = text.to_cow()?;
            if text.contains('\n') {
                symdim::OpRules::parse(&text)
            } else {
                symdim::OpRules::from_file(std::path::Path::new(&*text))
            }
        } else {
            let path: std::path::PathBuf = item.extract().map_err(|_| {
                PyTypeError::new_err(
                    "op_rules must be a path, the text of rules, or a list of those",
                )
            })?;
            symdim::OpRules::from_file(&path)
        };
        read.map_err(|e| OpRulesError::new_err(e.to_string()))
    };
    if given.cast::<PyString>().is_ok() || given.extract::<std::path::PathBuf>().is_ok() {
        return one(given);
    }
    if given.cast::<pyo3::types::PyList>().is_err() && given.cast::<pyo3::types::PyTuple>().is_err()
    {
        return Err(PyTypeError::new_err(
            "op_rules must be a path, the text of rules, or a list of those",
        ));
    }
    let mut rules = symdim::OpRules::new();
    for item in given.try_iter()? {
        let more = one(&item?)?;
        rules
            .extend(&more)
            .map_err(|e| OpRulesError::new_err(e.to_string()))?;
    }
    Ok(rules)
}

/// The facts of `bind` (a mapping or pairs of name and int), `assume` (one fact or an
/// iterable of facts) and `op_rules` (see [`read_op_rules`]).
fn facts(
    bind: Option<&Bound<'_, PyAny>>,
    assume: Option<&Bound<'_, PyAny>>,
    rules: Option<&Bound<'_, PyAny>>,
) -> PyResult<Facts> {
    let mut facts = Facts::new().with_op_rules(read_op_rules(rules)?);
    if let Some(bind) = bind.filter(|b| !b.is_none()) {
        let pairs = match bind.cast::<PyDict>() {
            Ok(d) => d.items().into_any(),
            Err(_) => bind.clone(),
        };
        let not_pairs = || PyTypeError::new_err(BIND_TYPES);
        for pair in pairs.try_iter().map_err(|_| not_pairs())? {
            let (name, value): (Bound<'_, PyAny>, Bound<'_, PyAny>) =
                pair?.extract().map_err(|_| not_pairs())?;
            let name: String = name.extract().map_err(|_| not_pairs())?;
            // A negative value that fits is left to `Facts::validate`, which names it.
            let value = int_value(&value, || format!("bind[{name:?}]"), BIND_TYPES)?;
            facts = facts.bind(&name, value);
        }
    }
    if let Some(assume) = assume.filter(|a| !a.is_none()) {
        if let Ok(one) = assume.cast::<PyString>() {
            facts = facts.assume(&one.to_cow()?);
        } else {
            let not_facts = || PyTypeError::new_err("assume must be a str or an iterable of str");
            for fact in assume.try_iter().map_err(|_| not_facts())? {
                let fact: String = fact?.extract().map_err(|_| not_facts())?;
                facts = facts.assume(&fact);
            }
        }
    }
    Ok(facts)
}

/// The `TypeError` of a `bind` that is not a mapping or pairs of name and int.
const BIND_TYPES: &str = "bind must map symbol names (str) to values (int)";

/// The value of a symbol given from Python, `what` naming it in a message: an `int`
/// (else `TypeError(not_int)`) that fits an `i64` (else `ValueError` naming the value
/// and the range of a dim value, 0 to `i64::MAX`).
fn int_value(
    value: &Bound<'_, PyAny>,
    what: impl FnOnce() -> String,
    not_int: &str,
) -> PyResult<i64> {
    if !value.is_instance_of::<pyo3::types::PyInt>() {
        return Err(PyTypeError::new_err(not_int.to_string()));
    }
    value.extract::<i64>().map_err(|_| {
        PyValueError::new_err(format!(
            "{} = {}: out of range (a dim value is an integer from 0 to {})",
            what(),
            value.str().map(|s| s.to_string()).unwrap_or_default(),
            i64::MAX
        ))
    })
}

/// Check `facts` against the model, as the CLI does before inferring: a `bind` or
/// `assume` of a symbol the model does not name raises `ValueError` with the CLI's
/// message ([`symdim::FactsError::as_flags`]).
fn fit(facts: &Facts, m: &symdim::Model) -> PyResult<()> {
    facts
        .validate(m)
        .map_err(|e| PyValueError::new_err(e.as_flags().to_string()))
}

/// How many polls of the engine's interrupt ([`symdim::algebra::Interrupt`]) pass
/// between two checks of Python's signals: a check takes the GIL back, and the
/// engine polls at every node and every 32 rule applications.
const SIGNALS_EVERY: usize = 64;

/// Run `work` on `facts` without the GIL, as [`detached`] does, with an interrupt in
/// the facts' configuration that checks Python's signals: Ctrl-C (or any signal
/// handler that raises) stops the engine at its next poll, the partial result is
/// dropped, and the handler's exception (`KeyboardInterrupt`) is raised.
fn interruptible<T, F>(py: Python<'_>, mut facts: Facts, work: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce(Facts) -> PyResult<T> + Send,
{
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};
    let raised: Arc<Mutex<Option<PyErr>>> = Arc::default();
    let polls = AtomicUsize::new(0);
    let keep = Arc::clone(&raised);
    let interrupt = symdim::algebra::Interrupt::new(move || {
        if polls.fetch_add(1, Ordering::Relaxed) % SIGNALS_EVERY != SIGNALS_EVERY - 1 {
            return false;
        }
        match Python::attach(|py| py.check_signals()) {
            Ok(()) => false,
            Err(e) => {
                if let Ok(mut slot) = keep.lock() {
                    slot.get_or_insert(e);
                }
                true
            }
        }
    });
    facts.config.interrupt = Some(interrupt.clone());
    let out = detached(py, move || work(facts));
    if interrupt.tripped() {
        let e = raised.lock().ok().and_then(|mut slot| slot.take());
        return Err(
            e.unwrap_or_else(|| pyo3::exceptions::PyKeyboardInterrupt::new_err("interrupted"))
        );
    }
    out
}

/// Run `work` without the GIL, turning a panic into `InternalError`.
fn detached<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> PyResult<T> + Send,
{
    py.detach(|| guarded(work))
}

/// Run `work`, turning a panic into `InternalError`.
fn guarded<T>(work: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match std::panic::catch_unwind(AssertUnwindSafe(work)) {
        Ok(result) => result,
        Err(payload) => {
            let why = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".to_string());
            Err(InternalError::new_err(format!("symdim panicked: {why}")))
        }
    }
}

/// Python's `repr` of a string.
fn repr(py: Python<'_>, s: &str) -> PyResult<String> {
    Ok(PyString::new(py, s).repr()?.to_cow()?.into_owned())
}

fn model_error(e: impl std::fmt::Display) -> PyErr {
    ModelError::new_err(e.to_string())
}

/// A dim as Python sees it: an `int` when it is an integer constant, else a [`Dim`].
fn dim_object(py: Python<'_>, d: &DimExpr) -> PyResult<Py<PyAny>> {
    match d.as_i64() {
        Some(v) => Ok(v.into_pyobject(py)?.into_any().unbind()),
        None => Ok(Py::new(py, Dim::from_expr(d.clone()))?.into_any()),
    }
}

fn dim_list(py: Python<'_>, dims: &[DimExpr]) -> PyResult<Py<PyList>> {
    let items = dims
        .iter()
        .map(|d| dim_object(py, d))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(PyList::new(py, items)?.unbind())
}

// ---------------------------------------------------------------------------------
// Dim

/// A dim: an expression of symbols in canonical form, printed in symdim's expression
/// grammar (`S*12`, `floordiv(H - 1, 4) + 1`).
///
/// `Dim(text)` parses and simplifies an expression. Dims compare with ints and other
/// dims through the algebra: `==` compares canonical forms after simplification
/// (so `Dim("S*12/12") == Dim("S")`), and `<`, `<=`, `>`, `>=` are proven from the
/// symbols' bounds (every name at least 1), raising `UndecidedError` when neither
/// answer can be proven. `+`, `-`, `*` and `//` with ints and dims give an `int` when
/// the result is constant.
#[pyclass(frozen, module = "symdim", name = "Dim")]
struct Dim {
    expr: DimExpr,
    /// The canonical form in a fresh algebra: what `==` and `hash` compare.
    normal: OnceLock<DimExpr>,
}

impl Dim {
    fn from_expr(expr: DimExpr) -> Dim {
        Dim {
            expr,
            normal: OnceLock::new(),
        }
    }

    fn normal(&self) -> &DimExpr {
        self.normal.get_or_init(|| normalize(&self.expr))
    }
}

/// `text` parsed and simplified in a fresh algebra, its names input symbols of at
/// least 1 (as `<` and `<=` take them).
fn parse_dim(text: &str) -> Result<DimExpr, symdim::algebra::AlgebraError> {
    DimExpr::parse_with(text, &Config::default())
}

/// `d` simplified in a fresh algebra (its names as input symbols, at least 1).
fn normalize(d: &DimExpr) -> DimExpr {
    parse_dim(&d.to_string()).unwrap_or_else(|_| d.clone())
}

/// An operand of a dim operation: a `Dim` or an `int`; `None` for anything else.
fn operand(other: &Bound<'_, PyAny>) -> PyResult<Option<DimExpr>> {
    if let Ok(d) = other.cast::<Dim>() {
        return Ok(Some(d.get().expr.clone()));
    }
    if other.is_instance_of::<pyo3::types::PyBool>() {
        return Ok(None);
    }
    if other.is_instance_of::<pyo3::types::PyInt>() {
        return Ok(Some(DimExpr::constant(other.extract()?)));
    }
    Ok(None)
}

/// The symbol values of `values` (a mapping) and `kwargs`: ints from 0 to `i64::MAX`
/// (dims are at least 0), else `ValueError`; not an int, `TypeError`.
fn symbol_values(
    values: Option<&Bound<'_, PyAny>>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<SymbolValues> {
    let mut out = SymbolValues::new();
    let mut add = |d: &Bound<'_, PyDict>| -> PyResult<()> {
        for (k, v) in d.iter() {
            let name: String = k
                .extract()
                .map_err(|_| PyTypeError::new_err("symbol names must be str"))?;
            let what = || format!("the value of `{name}`");
            let value = int_value(&v, what, &format!("the value of `{name}` must be an int"))?;
            if value < 0 {
                return Err(PyValueError::new_err(format!(
                    "{} = {value}: negative (a dim value is an integer from 0 to {})",
                    what(),
                    i64::MAX
                )));
            }
            out.set(&name, value);
        }
        Ok(())
    };
    if let Some(values) = values.filter(|v| !v.is_none()) {
        let dict = PyDict::new(values.py());
        dict.call_method1("update", (values,))?;
        add(&dict)?;
    }
    if let Some(kwargs) = kwargs {
        add(kwargs)?;
    }
    Ok(out)
}

#[pymethods]
impl Dim {
    /// Parse an expression of the grammar and simplify it.
    #[new]
    fn new(expr: &str) -> PyResult<Dim> {
        parse_dim(expr)
            .map(Dim::from_expr)
            .map_err(|e| ExprError::new_err(e.to_string()))
    }

    fn __str__(&self) -> String {
        self.expr.to_string()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("Dim({})", repr(py, &self.expr.to_string())?))
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        Ok((slf.get_type().into_any(), (slf.get().expr.to_string(),)))
    }

    /// The symbols the dim mentions, in order of first appearance.
    #[getter]
    fn symbols(&self) -> Vec<String> {
        self.expr.symbols()
    }

    /// The value at the given symbol values (a mapping, keyword arguments, or both):
    /// `Dim("2*S + 1").eval(S=3) == 7`. Raises `EvalError` when a symbol has no
    /// value or the result is not an integer, `ValueError` for a value that is
    /// negative or above `2**63 - 1` (a dim value is 0 to `2**63 - 1`).
    #[pyo3(signature = (values=None, /, **kwargs))]
    fn eval(
        &self,
        values: Option<&Bound<'_, PyAny>>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<i64> {
        let values = symbol_values(values, kwargs)?;
        self.expr
            .eval(&values)
            .map_err(|e| EvalError::new_err(e.to_string()))
    }

    /// The dim with some symbols replaced by values (a mapping, keyword arguments, or
    /// both): an `int` when none is left. Values as for `eval`.
    #[pyo3(signature = (values=None, /, **kwargs))]
    fn subs(
        &self,
        py: Python<'_>,
        values: Option<&Bound<'_, PyAny>>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let values = symbol_values(values, kwargs)?;
        let expr = self
            .expr
            .substitute(&values)
            .map_err(|e| EvalError::new_err(e.to_string()))?;
        dim_object(py, &normalize(&expr))
    }

    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        use std::hash::{Hash, Hasher};
        let normal = self.normal();
        if let Some(v) = normal.as_i64() {
            // Equal to the int, so hashed as the int.
            return v.into_pyobject(py)?.hash();
        }
        let mut h = std::collections::hash_map::DefaultHasher::new();
        normal.to_string().hash(&mut h);
        Ok(h.finish() as isize)
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let py = other.py();
        let Some(o) = operand(other)? else {
            return Ok(py.NotImplemented());
        };
        let answer = match op {
            CompareOp::Eq => *self.normal() == normalize(&o),
            CompareOp::Ne => *self.normal() != normalize(&o),
            CompareOp::Le => decide_le(&self.expr, &o, 0, "<=")?,
            CompareOp::Lt => decide_le(&self.expr, &o, 1, "<")?,
            CompareOp::Ge => decide_le(&o, &self.expr, 0, "<=")?,
            CompareOp::Gt => decide_le(&o, &self.expr, 1, "<")?,
        };
        Ok(pyo3::types::PyBool::new(py, answer)
            .to_owned()
            .into_any()
            .unbind())
    }

    fn __add__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.arith(py, other, |a, b| a + b)
    }

    fn __radd__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.arith(py, other, |a, b| b + a)
    }

    fn __sub__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.arith(py, other, |a, b| a - b)
    }

    fn __rsub__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.arith(py, other, |a, b| b - a)
    }

    fn __mul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.arith(py, other, |a, b| a * b)
    }

    fn __rmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.arith(py, other, |a, b| b * a)
    }

    // A floor division stays as written unless simplified (`floordiv(2*S, 2)` is `S`);
    // sums and products are in canonical form as they are made.
    fn __floordiv__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.arith(py, other, |a, b| normalize(&a.floordiv(&b)))
    }

    fn __rfloordiv__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.arith(py, other, |a, b| normalize(&b.floordiv(&a)))
    }

    fn __neg__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        dim_object(py, &-self.expr.clone())
    }
}

impl Dim {
    fn arith(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        f: impl FnOnce(DimExpr, DimExpr) -> DimExpr,
    ) -> PyResult<Py<PyAny>> {
        match operand(other)? {
            Some(o) => dim_object(py, &f(self.expr.clone(), o)),
            None => Ok(py.NotImplemented()),
        }
    }
}

/// Is `a + strict <= b` for every value of the symbols (each at least 1)? Raises
/// `UndecidedError` when the algebra proves neither answer.
fn decide_le(a: &DimExpr, b: &DimExpr, strict: i64, shown: &str) -> PyResult<bool> {
    let mut alg = Algebra::default();
    let x = alg.import(a.poly(), None);
    let y = alg.import(b.poly(), None);
    let x = if strict != 0 {
        let s = alg.constant(strict);
        alg.add_dims(x, s)
    } else {
        x
    };
    match alg.le(x, y) {
        Truth::True => Ok(true),
        Truth::False => Ok(false),
        Truth::Unknown => Err(UndecidedError::new_err(format!(
            "cannot decide {a} {shown} {b}: it depends on the values of the symbols"
        ))),
    }
}

// ---------------------------------------------------------------------------------
// Reports

/// One tensor of a report: element type and shape.
#[pyclass(frozen, module = "symdim")]
struct Tensor {
    name: String,
    shape: TensorShape,
}

#[pymethods]
impl Tensor {
    /// The tensor's name.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The element type as the report names it (`f32`, `i64`, ...), or `None` when
    /// unknown.
    #[getter]
    fn dtype(&self) -> Option<&'static str> {
        self.shape.dtype.map(|d| d.short_name())
    }

    /// The element type as an ONNX `TensorProto.DataType` number, or `None`.
    #[getter]
    fn elem_type(&self) -> Option<i32> {
        self.shape.dtype.map(|d| d.to_i32())
    }

    /// The dims (each an `int` or a `Dim`), or `None` when even the rank is unknown.
    #[getter]
    fn shape(&self, py: Python<'_>) -> PyResult<Option<Py<PyList>>> {
        self.shape
            .dims
            .as_deref()
            .map(|d| dim_list(py, d))
            .transpose()
    }

    /// The rank, or `None` when unknown.
    #[getter]
    fn rank(&self) -> Option<usize> {
        self.shape.dims.as_ref().map(Vec::len)
    }

    /// The contents, row-major, when known (small integer tensors such as the
    /// output of `Shape`), else `None`.
    #[getter]
    fn value(&self, py: Python<'_>) -> PyResult<Option<Py<PyList>>> {
        self.shape
            .value
            .as_deref()
            .map(|d| dim_list(py, d))
            .transpose()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let dims = |d: &Option<Vec<DimExpr>>| match d {
            None => "None".to_string(),
            Some(d) => format!(
                "[{}]",
                d.iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let dtype = match self.dtype() {
            Some(d) => repr(py, d)?,
            None => "None".to_string(),
        };
        Ok(format!(
            "Tensor({}, dtype={dtype}, shape={})",
            repr(py, &self.name)?,
            dims(&self.shape.dims)
        ))
    }
}

/// A symbol of a report.
#[pyclass(frozen, module = "symdim")]
struct Symbol {
    name: String,
    kind: &'static str,
    definition: Option<DimExpr>,
    node: Option<String>,
    constraints: Vec<String>,
}

#[pymethods]
impl Symbol {
    /// The symbol's name.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// `input` (named by the model or for an unnamed input dim), `derived`
    /// (introduced with a definition) or `data-dependent` (no closed form).
    #[getter]
    fn kind(&self) -> &'static str {
        self.kind
    }

    /// A derived symbol's definition (an `int` or a `Dim`), else `None`.
    #[getter]
    fn definition(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.definition
            .as_ref()
            .map(|d| dim_object(py, d))
            .transpose()
    }

    /// The node that introduced a data-dependent symbol, else `None`.
    #[getter]
    fn node(&self) -> Option<&str> {
        self.node.as_deref()
    }

    /// The conditions of the model's contract that mention the symbol.
    #[getter]
    fn constraints(&self) -> Vec<String> {
        self.constraints.clone()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Symbol({}, kind={})",
            repr(py, &self.name)?,
            repr(py, self.kind)?
        ))
    }
}

/// A diagnostic of a report.
#[pyclass(frozen, module = "symdim")]
struct Diagnostic {
    inner: symdim::context::Diagnostic,
}

#[pymethods]
impl Diagnostic {
    /// `error` or `warning`.
    #[getter]
    fn severity(&self) -> &'static str {
        self.inner.severity.name()
    }

    /// The node's name (empty for a model-level message).
    #[getter]
    fn node(&self) -> &str {
        &self.inner.node
    }

    /// The node's op type (empty for a model-level message).
    #[getter]
    fn op(&self) -> &str {
        &self.inner.op
    }

    /// The message.
    #[getter]
    fn message(&self) -> &str {
        &self.inner.message
    }

    fn __str__(&self) -> String {
        let d = &self.inner;
        if d.node.is_empty() {
            format!("{}: {}", d.severity.name(), d.message)
        } else {
            format!(
                "{}: {} ({}): {}",
                d.severity.name(),
                d.node,
                d.op,
                d.message
            )
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let d = &self.inner;
        Ok(format!(
            "Diagnostic({}, node={}, op={}, message={})",
            repr(py, d.severity.name())?,
            repr(py, &d.node)?,
            repr(py, &d.op)?,
            repr(py, &d.message)?
        ))
    }
}

/// What inference found for one model: the report `symdim infer` prints, with
/// every dim as an `int` or a `Dim`.
#[pyclass(frozen, module = "symdim")]
struct Report {
    report: symdim::Report,
    tensors: Vec<(String, TensorShape)>,
    definitions: std::collections::HashMap<String, DimExpr>,
    tensor_dict: PyOnceLock<Py<PyDict>>,
}

impl Report {
    fn infer(model: &symdim::Model, facts: &Facts) -> Report {
        let shapes = symdim::infer(model, facts);
        let definitions = shapes
            .symbols()
            .into_iter()
            .filter_map(|(name, info)| match info {
                symdim::SymbolInfo::Derived { definition } => Some((name, definition)),
                _ => None,
            })
            .collect();
        Report {
            report: shapes.report(),
            tensors: shapes.tensors(),
            definitions,
            tensor_dict: PyOnceLock::new(),
        }
    }

    fn tensor_dict<'py>(&self, py: Python<'py>) -> PyResult<&Bound<'py, PyDict>> {
        let d = self.tensor_dict.get_or_try_init(py, || -> PyResult<_> {
            let d = PyDict::new(py);
            for (name, shape) in &self.tensors {
                let t = Tensor {
                    name: name.clone(),
                    shape: shape.clone(),
                };
                d.set_item(name, Py::new(py, t)?)?;
            }
            Ok(d.unbind())
        })?;
        Ok(d.bind(py))
    }
}

#[pymethods]
impl Report {
    /// The model's path as given (`<memory>` for bytes and `ModelProto`s).
    #[getter]
    fn path(&self) -> &str {
        &self.report.path
    }

    /// The model's format: `onnx`, `openvino` or `onednn`.
    #[getter]
    fn format(&self) -> &str {
        &self.report.format
    }

    /// The opset version of each domain (`""` is the default ONNX domain).
    #[getter]
    fn opsets<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (domain, version) in &self.report.opsets {
            d.set_item(domain, version)?;
        }
        Ok(d)
    }

    /// Every graph input and node output, in graph order: name to `Tensor`.
    #[getter]
    fn tensors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.tensor_dict(py)?.copy()
    }

    /// Every symbol the report's dims mention, in creation order: name to `Symbol`.
    #[getter]
    fn symbols<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (name, s) in &self.report.symbols {
            let (kind, definition, node) = match s {
                symdim::report::ReportSymbol::Input => ("input", None, None),
                symdim::report::ReportSymbol::Derived { .. } => {
                    ("derived", self.definitions.get(name).cloned(), None)
                }
                symdim::report::ReportSymbol::DataDependent { node } => {
                    ("data-dependent", None, Some(node.clone()))
                }
            };
            let symbol = Symbol {
                name: name.clone(),
                kind,
                definition,
                node,
                constraints: self
                    .report
                    .constraints
                    .get(name)
                    .cloned()
                    .unwrap_or_default(),
            };
            d.set_item(name, Py::new(py, symbol)?)?;
        }
        Ok(d)
    }

    /// The graph's output names.
    #[getter]
    fn outputs(&self) -> Vec<String> {
        self.report.outputs.clone()
    }

    /// The diagnostics, in the order they were found.
    #[getter]
    fn diagnostics(&self, py: Python<'_>) -> PyResult<Vec<Py<Diagnostic>>> {
        let ds = &self.report.diagnostics;
        ds.iter()
            .map(|d| Py::new(py, Diagnostic { inner: d.clone() }))
            .collect()
    }

    /// True when some diagnostic is an error (the command's exit status 1).
    #[getter]
    fn has_errors(&self) -> bool {
        self.report.has_errors()
    }

    /// The JSON report: what `symdim infer --format json` prints.
    fn to_json(&self) -> String {
        self.report.to_json()
    }

    /// The text report: what `symdim infer` prints.
    fn to_text(&self) -> String {
        self.report.to_text()
    }

    /// The tensor `name` (`KeyError` when the report has none).
    fn __getitem__<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        match self.tensor_dict(py)?.get_item(name)? {
            Some(t) => Ok(t),
            None => Err(pyo3::exceptions::PyKeyError::new_err(name.to_string())),
        }
    }

    fn __contains__(&self, py: Python<'_>, name: &str) -> PyResult<bool> {
        self.tensor_dict(py)?.contains(name)
    }

    fn __len__(&self) -> usize {
        self.tensors.len()
    }

    fn __repr__(&self) -> String {
        let errors = self
            .report
            .diagnostics
            .iter()
            .filter(|d| d.severity == symdim::context::Severity::Error)
            .count();
        format!(
            "<symdim.Report {}: {} tensors, {} symbols, {} errors>",
            self.report.path,
            self.tensors.len(),
            self.report.symbols.len(),
            errors
        )
    }
}

// ---------------------------------------------------------------------------------
// Contracts and checks

/// One condition of a model's contract.
#[pyclass(frozen, module = "symdim")]
struct Condition {
    inner: symdim::contracts::Condition,
}

#[pymethods]
impl Condition {
    /// `equal`, `divides`, `range`, `inequality`, `either`, `undecidable` or
    /// `impossible`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.inner.kind.name()
    }

    /// The condition as a fact of the grammar (what `assume` accepts).
    #[getter]
    fn condition(&self) -> &str {
        &self.inner.condition
    }

    /// The symbols it involves.
    #[getter]
    fn symbols(&self) -> Vec<String> {
        self.inner.symbols.clone()
    }

    /// The nodes it comes from, in graph order.
    #[getter]
    fn nodes(&self) -> Vec<String> {
        self.inner.nodes.clone()
    }

    /// Where it comes from (`relation`, `reshape`, `broadcast`, `gather`, ...).
    #[getter]
    fn sources(&self) -> Vec<String> {
        self.inner.sources.clone()
    }

    /// Why it is undecidable or impossible, when it is.
    #[getter]
    fn note(&self) -> Option<&str> {
        self.inner.note.as_deref()
    }

    fn __str__(&self) -> &str {
        &self.inner.condition
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Condition({}, {})",
            repr(py, self.inner.kind.name())?,
            repr(py, &self.inner.condition)?
        ))
    }
}

fn conditions(py: Python<'_>, cs: &[symdim::contracts::Condition]) -> PyResult<Vec<Py<Condition>>> {
    cs.iter()
        .map(|c| Py::new(py, Condition { inner: c.clone() }))
        .collect()
}

/// What a model demands of its input dims: what `symdim constraints` prints.
#[pyclass(frozen, module = "symdim")]
struct Contract {
    inner: symdim::contracts::Contract,
}

#[pymethods]
impl Contract {
    /// The model's path as given.
    #[getter]
    fn model(&self) -> &str {
        &self.inner.model
    }

    /// The input symbols, in creation order.
    #[getter]
    fn inputs(&self) -> Vec<String> {
        self.inner.inputs.clone()
    }

    /// The facts given (`bind`, `assume`).
    #[getter]
    fn facts(&self) -> Vec<String> {
        self.inner.facts.clone()
    }

    /// The conditions, equalities first.
    #[getter]
    fn conditions(&self, py: Python<'_>) -> PyResult<Vec<Py<Condition>>> {
        conditions(py, &self.inner.conditions)
    }

    /// Conditions dropped because the others (or the facts) imply them.
    #[getter]
    fn redundant(&self, py: Python<'_>) -> PyResult<Vec<Py<Condition>>> {
        conditions(py, &self.inner.redundant)
    }

    /// True when some condition can never hold.
    #[getter]
    fn is_impossible(&self) -> bool {
        self.inner.is_impossible()
    }

    /// The contract as JSON: what `symdim constraints --format json` prints.
    fn to_json(&self) -> String {
        self.inner.to_json()
    }

    /// The contract as text: what `symdim constraints` prints.
    fn to_text(&self) -> String {
        self.inner.to_text()
    }

    fn __repr__(&self) -> String {
        format!(
            "<symdim.Contract {}: {} conditions>",
            self.inner.model,
            self.inner.conditions.len()
        )
    }
}

/// Why a model fails at one node, in a `Verdict`.
#[pyclass(frozen, module = "symdim")]
struct Failure {
    inner: symdim::contracts::check::Failure,
}

#[pymethods]
impl Failure {
    /// The node (empty for a model-level failure).
    #[getter]
    fn node(&self) -> &str {
        &self.inner.node
    }

    /// Its op type, when known.
    #[getter]
    fn op(&self) -> &str {
        &self.inner.op
    }

    /// The condition that does not hold, or the error message.
    #[getter]
    fn reason(&self) -> &str {
        &self.inner.reason
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let f = &self.inner;
        Ok(format!(
            "Failure(node={}, op={}, reason={})",
            repr(py, &f.node)?,
            repr(py, &f.op)?,
            repr(py, &f.reason)?
        ))
    }
}

/// Whether a model is valid for given values: what `symdim check` prints.
#[pyclass(frozen, module = "symdim")]
struct Verdict {
    inner: symdim::contracts::check::Verdict,
}

#[pymethods]
impl Verdict {
    /// The model's path as given.
    #[getter]
    fn model(&self) -> &str {
        &self.inner.model
    }

    /// The values and facts checked (`N == 4`).
    #[getter]
    fn facts(&self) -> Vec<String> {
        self.inner.facts.clone()
    }

    /// `valid`, `invalid` or `undecided`.
    #[getter]
    fn status(&self) -> &'static str {
        match self.inner.status {
            symdim::contracts::check::Status::Valid => "valid",
            symdim::contracts::check::Status::Invalid => "invalid",
            symdim::contracts::check::Status::Undecided => "undecided",
        }
    }

    /// True when the status is `valid`.
    #[getter]
    fn valid(&self) -> bool {
        self.inner.status == symdim::contracts::check::Status::Valid
    }

    /// What fails.
    #[getter]
    fn failures(&self, py: Python<'_>) -> PyResult<Vec<Py<Failure>>> {
        let fs = &self.inner.failures;
        fs.iter()
            .map(|f| Py::new(py, Failure { inner: f.clone() }))
            .collect()
    }

    /// Conditions the values neither prove nor refute.
    #[getter]
    fn open(&self, py: Python<'_>) -> PyResult<Vec<Py<Condition>>> {
        conditions(py, &self.inner.open)
    }

    /// Conditions no dim value decides.
    #[getter]
    fn caveats(&self, py: Python<'_>) -> PyResult<Vec<Py<Condition>>> {
        conditions(py, &self.inner.caveats)
    }

    /// The command's exit status: 0 valid, 1 invalid, 3 undecided.
    #[getter]
    fn exit_code(&self) -> u8 {
        self.inner.exit_code()
    }

    /// The verdict as JSON: what `symdim check --format json` prints.
    fn to_json(&self) -> String {
        self.inner.to_json()
    }

    /// The verdict as text: what `symdim check` prints.
    fn to_text(&self) -> String {
        self.inner.to_text()
    }

    fn __repr__(&self) -> String {
        format!("<symdim.Verdict {}: {}>", self.inner.model, self.status())
    }
}

// ---------------------------------------------------------------------------------
// Functions

/// Infer every tensor's shape: the report `symdim infer` prints.
///
/// `model` is an `onnx.ModelProto`, the bytes of a model, or a path (ONNX, OpenVINO
/// IR `.xml` or oneDNN Graph `.json`). `bind` maps symbols to values
/// (`{"batch": 4}`); `assume` is a fact or a list of facts (`"S % 8 == 0"`);
/// `op_rules` declares shape rules for custom ops (`docs/op-rules.md`): the path of a
/// rules file, the rules' text (a `str` holding a newline), or a list of those. Raises
/// `ModelError` when the model cannot be read and `OpRulesError` when the rules
/// cannot; a model with errors still gives its report (see `Report.diagnostics`).
#[pyfunction]
#[pyo3(signature = (model, *, bind=None, assume=None, op_rules=None))]
fn infer(
    py: Python<'_>,
    model: &Bound<'_, PyAny>,
    bind: Option<&Bound<'_, PyAny>>,
    assume: Option<&Bound<'_, PyAny>>,
    op_rules: Option<&Bound<'_, PyAny>>,
) -> PyResult<Report> {
    let source = Source::extract(model)?;
    let facts = facts(bind, assume, op_rules)?;
    interruptible(py, facts, move |facts| {
        let m = source.load().map_err(model_error)?;
        fit(&facts, &m)?;
        Ok(Report::infer(&m, &facts))
    })
}

/// What [`annotate_model`] gives: the annotated bytes, the node outputs left without a
/// shape or element type, and the report's diagnostics.
type Annotated = (Vec<u8>, Vec<String>, Vec<symdim::context::Diagnostic>);

/// [`Annotated`] as Python gets it: `(bytes, list[str], list[Diagnostic])`.
type AnnotatedTuple<'py> = (Bound<'py, PyBytes>, Vec<String>, Vec<Py<Diagnostic>>);

/// Read and infer the model of `source`, then write the report's shapes into
/// `skeleton` when given (a `ModelProto` holding only the main graph's outputs; the
/// result is then that graph's serialized fields: the outputs with their types filled
/// in, and a `value_info` for every other node output), else into the model's own
/// bytes (the result is then what `symdim infer -o` writes).
fn annotate_model(source: &Source, skeleton: Option<&[u8]>, facts: &Facts) -> PyResult<Annotated> {
    let read;
    let (m, bytes): (symdim::Model, &[u8]) = match source {
        Source::Memory(bytes) => (source.load().map_err(model_error)?, bytes),
        Source::File(path) => {
            read = symdim::read::load::read_model_file(path).map_err(model_error)?;
            let m = symdim::read::load::load_file_bytes(&read, path, &LoadOptions::default())
                .map_err(model_error)?;
            (m, &read)
        }
    };
    fit(facts, &m)?;
    let shapes = symdim::infer(&m, facts);
    let annotated = shapes
        .annotated_bytes(skeleton.unwrap_or(bytes))
        .map_err(|e| match e {
            symdim::report::annotate::AnnotateError::NotOnnx(path, format) => ModelError::new_err(
                format!("infer_shapes writes ONNX models only; {path} is a {format} model"),
            ),
            other => model_error(other),
        })?;
    let annotated = match skeleton {
        Some(_) => only_graph(annotated)?,
        None => annotated,
    };
    let incomplete = m
        .graph
        .nodes
        .iter()
        .flat_map(|n| n.outputs.iter())
        .filter(|name| !name.is_empty())
        .filter(|name| {
            let t = shapes.tensor(name);
            t.map_or(true, |t| t.dims.is_none() || t.dtype.is_none())
        })
        .map(|name| name.to_string())
        .collect::<Vec<_>>();
    Ok((annotated, incomplete, shapes.all_diagnostics()))
}

/// The graph of a `ModelProto` whose only field is its graph: the bytes after the
/// graph field's tag and length.
fn only_graph(model: Vec<u8>) -> PyResult<Vec<u8>> {
    // Field 7 (`graph`), wire type 2 (length-delimited).
    const GRAPH_TAG: u8 = (7 << 3) | 2;
    let unexpected = || InternalError::new_err("the annotated skeleton is not a graph alone");
    if model.is_empty() {
        return Ok(model);
    }
    if model[0] != GRAPH_TAG {
        return Err(unexpected());
    }
    let (mut len, mut shift, mut at) = (0u64, 0u32, 1usize);
    loop {
        let b = *model.get(at).ok_or_else(unexpected)?;
        len |= u64::from(b & 0x7f) << shift;
        at += 1;
        if b & 0x80 == 0 {
            break;
        }
        shift += 7;
        if shift > 63 {
            return Err(unexpected());
        }
    }
    if len != (model.len() - at) as u64 {
        return Err(unexpected());
    }
    Ok(model[at..].to_vec())
}

fn annotated_tuple(
    py: Python<'_>,
    (bytes, incomplete, diagnostics): Annotated,
) -> PyResult<AnnotatedTuple<'_>> {
    let diagnostics = diagnostics
        .into_iter()
        .map(|d| Py::new(py, Diagnostic { inner: d }))
        .collect::<PyResult<_>>()?;
    Ok((PyBytes::new(py, &bytes), incomplete, diagnostics))
}

/// The ONNX model with every inferred shape in `value_info`, as bytes (what
/// `symdim infer -o` writes), with the node outputs of the main graph left without a
/// shape or element type and the report's diagnostics. With `skeleton` (a serialized
/// `ModelProto` holding only the main graph's outputs), the bytes are instead the
/// graph fields to merge into a copy of the model whose `output` and `value_info`
/// are cleared. `symdim.infer_shapes` and `symdim.SymbolicShapeInference` wrap it.
#[pyfunction]
#[pyo3(signature = (model, *, bind=None, assume=None, op_rules=None, skeleton=None))]
fn annotate<'py>(
    py: Python<'py>,
    model: &Bound<'py, PyAny>,
    bind: Option<&Bound<'py, PyAny>>,
    assume: Option<&Bound<'py, PyAny>>,
    op_rules: Option<&Bound<'py, PyAny>>,
    skeleton: Option<PyBackedBytes>,
) -> PyResult<AnnotatedTuple<'py>> {
    let source = Source::extract(model)?;
    let facts = facts(bind, assume, op_rules)?;
    let annotated = interruptible(py, facts, move |facts| {
        annotate_model(&source, skeleton.as_deref(), &facts)
    })?;
    annotated_tuple(py, annotated)
}

/// What the model demands of its input dims: what `symdim constraints` prints.
#[pyfunction]
#[pyo3(signature = (model, *, bind=None, assume=None, op_rules=None))]
fn constraints(
    py: Python<'_>,
    model: &Bound<'_, PyAny>,
    bind: Option<&Bound<'_, PyAny>>,
    assume: Option<&Bound<'_, PyAny>>,
    op_rules: Option<&Bound<'_, PyAny>>,
) -> PyResult<Contract> {
    let source = Source::extract(model)?;
    let facts = facts(bind, assume, op_rules)?;
    interruptible(py, facts, move |facts| {
        let m = source.load().map_err(model_error)?;
        fit(&facts, &m)?;
        let inner = symdim::infer(&m, &facts).contract();
        Ok(Contract { inner })
    })
}

/// Whether the model is valid for the values of `bind` (without running it): what
/// `symdim check` prints.
#[pyfunction]
#[pyo3(signature = (model, bind, *, assume=None, op_rules=None))]
fn check(
    py: Python<'_>,
    model: &Bound<'_, PyAny>,
    bind: &Bound<'_, PyAny>,
    assume: Option<&Bound<'_, PyAny>>,
    op_rules: Option<&Bound<'_, PyAny>>,
) -> PyResult<Verdict> {
    let source = Source::extract(model)?;
    let facts = facts(Some(bind), assume, op_rules)?;
    interruptible(py, facts, move |facts| {
        let m = source.load().map_err(model_error)?;
        fit(&facts, &m)?;
        let inner = symdim::contracts::check::check(&m, &facts);
        Ok(Verdict { inner })
    })
}

/// Why a dim equals what the report says: what `symdim explain` prints. `target`
/// is `NAME[AXIS]` or a tensor name (every axis).
#[pyfunction]
#[pyo3(signature = (model, target, *, bind=None, assume=None, op_rules=None))]
fn explain(
    py: Python<'_>,
    model: &Bound<'_, PyAny>,
    target: String,
    bind: Option<&Bound<'_, PyAny>>,
    assume: Option<&Bound<'_, PyAny>>,
    op_rules: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    let source = Source::extract(model)?;
    let facts = facts(bind, assume, op_rules)?;
    interruptible(py, facts, move |facts| {
        let m = source.load().map_err(model_error)?;
        fit(&facts, &m)?;
        symdim::infer(&m, &facts)
            .explain(&target)
            .map_err(|e| PyValueError::new_err(e.to_string()))
    })
}

/// The canonical form of an expression under the facts of `assume`: what
/// `symdim simplify` prints (without the newline).
#[pyfunction]
#[pyo3(signature = (expr, assume=None))]
fn simplify(py: Python<'_>, expr: String, assume: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
    let facts = facts(None, assume, None)?;
    interruptible(py, facts, move |facts| {
        let mut alg = Algebra::new(facts.config.clone());
        for a in &facts.assumes {
            alg.assume(a)
                .map_err(|e| ExprError::new_err(format!("assume {a}: {e}")))?;
        }
        let d = alg
            .parse(&expr)
            .map_err(|e| ExprError::new_err(e.to_string()))?;
        Ok(alg.simplify(d))
    })
}

// ---------------------------------------------------------------------------------
// Ranges

/// One input symbol of a `Ranges`: its valid interval and its profile.
#[pyclass(frozen, module = "symdim")]
struct SymbolRange {
    inner: symdim::contracts::ranges::SymbolRange,
}

#[pymethods]
impl SymbolRange {
    /// The symbol.
    #[getter]
    fn name(&self) -> &str {
        &self.inner.name
    }

    /// The symbols the contract makes equal to it: they share its range.
    #[getter]
    fn linked(&self) -> Vec<String> {
        self.inner.linked.clone()
    }

    /// The least value of its interval.
    #[getter]
    fn lo(&self) -> i64 {
        self.inner.lo
    }

    /// The greatest value of its interval; `None`: no upper bound.
    #[getter]
    fn hi(&self) -> Option<i64> {
        self.inner.hi
    }

    /// The profile's least valid value (`None` when none is valid).
    #[getter]
    fn min(&self) -> Option<i64> {
        self.inner.min
    }

    /// The profile's opt value (`opt=`, or the least valid value at or above the
    /// middle of min and max).
    #[getter]
    fn opt(&self) -> Option<i64> {
        self.inner.opt
    }

    /// The profile's greatest valid value; `None` without an upper bound.
    #[getter]
    fn max(&self) -> Option<i64> {
        self.inner.max
    }

    /// Where `max` comes from: `contract`, `range`, `fact` or `relation`; `None`
    /// without a max.
    #[getter]
    fn max_from(&self) -> Option<&str> {
        self.inner.max_from.as_deref()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let v = |x: Option<i64>| x.map_or("None".to_string(), |x| x.to_string());
        Ok(format!(
            "SymbolRange({}, min={}, opt={}, max={})",
            repr(py, &self.inner.name)?,
            v(self.inner.min),
            v(self.inner.opt),
            v(self.inner.max)
        ))
    }
}

/// The valid ranges of a model's input symbols and a min/opt/max profile: what
/// `symdim ranges` prints, in each of its formats.
#[pyclass(frozen, module = "symdim")]
struct Ranges {
    inner: symdim::contracts::ranges::Ranges,
}

impl Ranges {
    /// The string `format` takes, or `ValueError` with the reasons `symdim ranges`
    /// prints (one a line) when it exits 2.
    fn paste(&self, format: symdim::contracts::ranges::PasteFormat) -> PyResult<String> {
        self.inner
            .to_paste(format)
            .map_err(|why| PyValueError::new_err(why.join("\n")))
    }
}

#[pymethods]
impl Ranges {
    /// The model's path as given.
    #[getter]
    fn model(&self) -> &str {
        &self.inner.model
    }

    /// The caller's facts and ranges (`S == 4`, `S in 1..512`).
    #[getter]
    fn facts(&self) -> Vec<String> {
        self.inner.facts.clone()
    }

    /// Every input symbol (the first of each linked set), in creation order: name to
    /// `SymbolRange`.
    #[getter]
    fn symbols<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for s in &self.inner.symbols {
            d.set_item(&s.name, Py::new(py, SymbolRange { inner: s.clone() })?)?;
        }
        Ok(d)
    }

    /// Per graph input, in graph order: name to its `(min, opt, max)` shapes, each a
    /// list of ints or `None` when some dim has no value there.
    #[getter]
    fn inputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for i in &self.inner.inputs {
            d.set_item(&i.name, (i.min.clone(), i.opt.clone(), i.max.clone()))?;
        }
        Ok(d)
    }

    /// What keeps the profile from being pasted (a symbol without an upper bound, a
    /// relation not proven over the box, a symbol with no valid value).
    #[getter]
    fn problems(&self) -> Vec<String> {
        self.inner.problems.clone()
    }

    /// An upper bound of the sum of every tensor's size in bytes over the box;
    /// `None` when some tensor has none.
    #[getter]
    fn activations_max_bytes(&self) -> Option<i64> {
        self.inner.activations_max_bytes
    }

    /// The report as text: what `symdim ranges` prints.
    fn text(&self) -> String {
        self.inner.to_text()
    }

    /// The report as JSON: what `symdim ranges --format json` prints.
    fn json(&self) -> String {
        self.inner.to_json()
    }

    /// The same as `text()`, named as the other reports name it.
    fn to_text(&self) -> String {
        self.inner.to_text()
    }

    /// The same as `json()`, named as the other reports name it.
    fn to_json(&self) -> String {
        self.inner.to_json()
    }

    /// trtexec's `--minShapes=... --optShapes=... --maxShapes=...` line: what
    /// `symdim ranges --format trtexec` prints; `ValueError` with its reasons where
    /// it exits 2.
    fn trtexec(&self) -> PyResult<String> {
        self.paste(symdim::contracts::ranges::PasteFormat::Trtexec)
    }

    /// onnxruntime's TensorRT provider options `trt_profile_{min,opt,max}_shapes`,
    /// three lines: what `symdim ranges --format ort-trt` prints; `ValueError` with
    /// its reasons where it exits 2.
    fn ort_trt(&self) -> PyResult<String> {
        self.paste(symdim::contracts::ranges::PasteFormat::OrtTrt)
    }

    /// OpenVINO's `NAME[LO..HI,D,...],...` (`benchmark_app -shape`, `ovc --input`,
    /// `Model.reshape`): what `symdim ranges --format openvino` prints; `ValueError`
    /// with its reasons where it exits 2.
    fn openvino(&self) -> PyResult<String> {
        self.paste(symdim::contracts::ranges::PasteFormat::OpenVino)
    }

    fn __repr__(&self) -> String {
        format!(
            "<symdim.Ranges {}: {} symbols, {} problems>",
            self.inner.model,
            self.inner.symbols.len(),
            self.inner.problems.len()
        )
    }
}

/// The items of a `dict` whose keys are `str`, else `TypeError(types)`.
fn dict_items<'py>(
    given: &Bound<'py, PyAny>,
    types: &str,
) -> PyResult<Vec<(String, Bound<'py, PyAny>)>> {
    let wrong = || PyTypeError::new_err(types.to_string());
    let d = given.cast::<PyDict>().map_err(|_| wrong())?;
    d.iter()
        .map(|(k, v)| Ok((k.extract().map_err(|_| wrong())?, v)))
        .collect()
}

/// The request of `ranges` (a mapping of name to `(lo, hi)`, either end an int or
/// `None`) and `opt` (a mapping of name to int), in the mappings' order.
fn ranges_request(
    ranges: Option<&Bound<'_, PyAny>>,
    opt: Option<&Bound<'_, PyAny>>,
) -> PyResult<symdim::contracts::ranges::Request> {
    use symdim::contracts::ranges::{Request, UserRange};
    const RANGE_TYPES: &str = "ranges must map symbol names (str) to (lo, hi) pairs of int or None";
    const OPT_TYPES: &str = "opt must map symbol names (str) to values (int)";
    let mut request = Request::default();
    if let Some(ranges) = ranges.filter(|r| !r.is_none()) {
        for (name, span) in dict_items(ranges, RANGE_TYPES)? {
            let (lo, hi): (Bound<'_, PyAny>, Bound<'_, PyAny>) = span
                .extract()
                .map_err(|_| PyTypeError::new_err(RANGE_TYPES))?;
            let end = |v: &Bound<'_, PyAny>, which: &str| -> PyResult<Option<i64>> {
                if v.is_none() {
                    return Ok(None);
                }
                int_value(v, || format!("ranges[{name:?}] {which}"), RANGE_TYPES).map(Some)
            };
            request.ranges.push(UserRange {
                lo: end(&lo, "lo")?,
                hi: end(&hi, "hi")?,
                name,
            });
        }
    }
    if let Some(opt) = opt.filter(|o| !o.is_none()) {
        for (name, v) in dict_items(opt, OPT_TYPES)? {
            let v = int_value(&v, || format!("opt[{name:?}]"), OPT_TYPES)?;
            request.opts.push((name, v));
        }
    }
    Ok(request)
}

/// The valid ranges of the model's input symbols and a min/opt/max profile: what
/// `symdim ranges` prints (`docs/ranges.md`).
///
/// `ranges` maps input symbols to `(lo, hi)` (either end may be `None`), as
/// `--range NAME=LO..HI`; `opt` maps input symbols to their opt value, as
/// `--opt NAME=V`; `bind`, `assume` and `op_rules` are those of `infer`. A name that
/// is not an input symbol of the model raises `ValueError` with the command's
/// message.
#[pyfunction]
#[pyo3(signature = (model, *, ranges=None, opt=None, bind=None, assume=None, op_rules=None))]
fn ranges(
    py: Python<'_>,
    model: &Bound<'_, PyAny>,
    ranges: Option<&Bound<'_, PyAny>>,
    opt: Option<&Bound<'_, PyAny>>,
    bind: Option<&Bound<'_, PyAny>>,
    assume: Option<&Bound<'_, PyAny>>,
    op_rules: Option<&Bound<'_, PyAny>>,
) -> PyResult<Ranges> {
    let request = ranges_request(ranges, opt)?;
    let source = Source::extract(model)?;
    let facts = facts(bind, assume, op_rules)?;
    interruptible(py, facts, move |facts| {
        let m = source.load().map_err(model_error)?;
        fit(&facts, &m)?;
        symdim::infer(&m, &facts)
            .ranges(&request)
            .map(|inner| Ranges { inner })
            .map_err(|e| PyValueError::new_err(e.to_string()))
    })
}

/// What the model costs: what `symdim cost --format json` prints, as a `dict`
/// (`docs/cost.md`, `docs/report.md`).
///
/// `bind` maps input symbols to values: every formula's value beside it (the
/// `*_value` fields; inference runs without them, so the formulas stay symbolic);
/// `ranges` maps input symbols to `(lo, hi)` as `--range`: every formula's largest
/// value over the box (the `*_max` fields); `assume` and `op_rules` are those of
/// `infer`. A name that is not an input symbol of the model raises `ValueError`
/// with the command's message.
#[pyfunction]
#[pyo3(signature = (model, *, bind=None, ranges=None, assume=None, op_rules=None))]
fn cost(
    py: Python<'_>,
    model: &Bound<'_, PyAny>,
    bind: Option<&Bound<'_, PyAny>>,
    ranges: Option<&Bound<'_, PyAny>>,
    assume: Option<&Bound<'_, PyAny>>,
    op_rules: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let binds = facts(bind, None, None)?.binds;
    let ranges = ranges_request(ranges, None)?.ranges;
    let source = Source::extract(model)?;
    let facts = facts(None, assume, op_rules)?;
    let text = interruptible(py, facts, move |facts| {
        let m = source.load().map_err(model_error)?;
        fit(&facts, &m)?;
        let request = symdim::analyses::cost::CostRequest { binds, ranges };
        symdim::infer(&m, &facts)
            .cost(&request)
            .map(|c| c.to_json())
            .map_err(|e| PyValueError::new_err(e.to_string()))
    })?;
    let json = py.import("json")?;
    Ok(json.call_method1("loads", (text,))?.unbind())
}

/// What changed from `old` to `new`, two versions of a model: what `symdim diff
/// --format json` prints, as a `dict` (`docs/diff.md`, `docs/report.md`): the
/// verdict (`same`, `compatible`, `breaking`), the symbols matched by input axes,
/// the input and output changes, the conditions and ranges, the tensors whose
/// shape changed, op counts and, with `cost=True` (`--cost`), the cost. `bind`,
/// `assume` and `op_rules` are those of `infer`, given to each version that
/// declares the symbols they name; one that neither declares raises `ValueError`
/// with the command's message.
#[pyfunction]
#[pyo3(signature = (old, new, *, bind=None, assume=None, op_rules=None, cost=false))]
fn diff(
    py: Python<'_>,
    old: &Bound<'_, PyAny>,
    new: &Bound<'_, PyAny>,
    bind: Option<&Bound<'_, PyAny>>,
    assume: Option<&Bound<'_, PyAny>>,
    op_rules: Option<&Bound<'_, PyAny>>,
    cost: bool,
) -> PyResult<Py<PyAny>> {
    let (a, b) = (Source::extract(old)?, Source::extract(new)?);
    let facts = facts(bind, assume, op_rules)?;
    let text = interruptible(py, facts, move |facts| {
        let ma = a.load().map_err(model_error)?;
        let mb = b.load().map_err(model_error)?;
        let (fa, fb) = (facts.for_model(&ma), facts.for_model(&mb));
        let unused = facts
            .binds
            .iter()
            .any(|x| !fa.binds.contains(x) && !fb.binds.contains(x))
            || facts
                .assumes
                .iter()
                .any(|x| !fa.assumes.contains(x) && !fb.assumes.contains(x));
        if unused {
            fit(&facts, &ma)?;
        }
        let (sa, sb) = (symdim::infer(&ma, &fa), symdim::infer(&mb, &fb));
        let request = symdim::analyses::diff::DiffRequest { cost };
        Ok(sa.diff(&sb, &request).to_json())
    })?;
    let json = py.import("json")?;
    Ok(json.call_method1("loads", (text,))?.unbind())
}

/// The extension module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("ModelError", py.get_type::<ModelError>())?;
    m.add("ExprError", py.get_type::<ExprError>())?;
    m.add("OpRulesError", py.get_type::<OpRulesError>())?;
    m.add("EvalError", py.get_type::<EvalError>())?;
    m.add("UndecidedError", py.get_type::<UndecidedError>())?;
    m.add("InternalError", py.get_type::<InternalError>())?;
    m.add_class::<Dim>()?;
    m.add_class::<Tensor>()?;
    m.add_class::<Symbol>()?;
    m.add_class::<Diagnostic>()?;
    m.add_class::<Report>()?;
    m.add_class::<Condition>()?;
    m.add_class::<Contract>()?;
    m.add_class::<Failure>()?;
    m.add_class::<Verdict>()?;
    m.add_class::<SymbolRange>()?;
    m.add_class::<Ranges>()?;
    m.add_function(wrap_pyfunction!(infer, m)?)?;
    m.add_function(wrap_pyfunction!(annotate, m)?)?;
    m.add_function(wrap_pyfunction!(constraints, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(explain, m)?)?;
    m.add_function(wrap_pyfunction!(simplify, m)?)?;
    m.add_function(wrap_pyfunction!(ranges, m)?)?;
    m.add_function(wrap_pyfunction!(cost, m)?)?;
    m.add_function(wrap_pyfunction!(diff, m)?)?;
    Ok(())
}
