//! The C API of symdim: `include/symdim.h` (generated from this file by cbindgen) and
//! the library `libsymdim` (`.so`, `.a`) that implements it over the library's
//! facade (`symdim::load`, `symdim::infer`, `symdim::Shapes`) and its
//! `ShapesContext` operations (`symdim::ops::shapes_api`). It adds no logic of its
//! own: each function checks its arguments, calls the facade and hands the answer
//! back.
//!
//! Conventions (the header's preamble repeats them):
//!
//! - Every function returns a [`SymdimStatus`]; [`SymdimStatus::SYMDIM_OK`] on
//!   success. A failing call leaves its outputs unchanged and sets the message that
//!   [`symdim_last_error`] returns, per thread; a successful call clears it.
//! - No panic crosses the boundary: each entry runs under `catch_unwind`, and a panic
//!   is [`SymdimStatus::SYMDIM_ERROR_INTERNAL`].
//! - Handles ([`SymdimModel`], [`SymdimFacts`], [`SymdimShapes`], [`SymdimTensor`],
//!   [`SymdimDim`], [`SymdimContext`]) and strings returned are owned by the caller
//!   and released with their `symdim_*_free` function, which accepts NULL.
//! - Threads: distinct handles may be used from different threads at once (the
//!   library keeps no state between calls but the per-thread error message). A
//!   model, shapes, tensor or dim handle is read-only after it is made, so several
//!   threads may also read one at once; facts and context handles change, so a call
//!   that changes one must not overlap another call on it.
//!
//! # Safety
//!
//! Every function is `unsafe`: a pointer argument must be NULL (refused with
//! [`SymdimStatus::SYMDIM_ERROR_NULL`] where it is required) or valid for the call,
//! strings NUL-terminated, arrays as long as their length argument says, and a handle
//! one this library made and has not freed.

#![deny(missing_docs)]
// The safety contract is the crate's, stated once above and in the header's preamble.
#![allow(clippy::missing_safety_doc)]

use std::cell::RefCell;
use std::ffi::{c_char, c_int, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, OnceLock};

// The allocator the `symdim` executable uses for the library's own allocations:
// inference allocates many small strings and vectors, which mimalloc serves faster
// than the system allocator (a JSON report of the 29k-node llama took about 1.5x the
// CLI's time with the system allocator). Strings returned to the caller come from
// libc's malloc (`give_string`), so they are freed with `symdim_string_free` alike.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use symdim::context::ShapesContext;
use symdim::graph::{Attr, DType, Node};
use symdim::ops::shapes_api::{self, ShapeError};
use symdim::report::Format;
use symdim::{DimExpr, Facts, Model, OpRules, Shapes, SymbolValues, TensorShape};

/// What a call returned.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymdimStatus {
    /// Success.
    SYMDIM_OK = 0,
    /// A required pointer argument was NULL.
    SYMDIM_ERROR_NULL = 1,
    /// A string argument was not valid UTF-8.
    SYMDIM_ERROR_UTF8 = 2,
    /// The model could not be read (a missing file, an unknown format, an invalid
    /// model).
    SYMDIM_ERROR_LOAD = 3,
    /// A fact cannot be used: a binding of a symbol the model does not name, a fact
    /// that does not parse or names an unknown symbol, an input dim that does not fit.
    SYMDIM_ERROR_FACTS = 4,
    /// Op-rules text (`docs/op-rules.md`) with a bad line.
    SYMDIM_ERROR_OP_RULES = 5,
    /// An expression that does not parse in the grammar (`docs/grammar.md`).
    SYMDIM_ERROR_EXPR = 6,
    /// No such tensor, output, axis or element.
    SYMDIM_ERROR_NOT_FOUND = 7,
    /// The answer is not known: an unknown rank or contents, a symbolic dim asked as
    /// an integer.
    SYMDIM_ERROR_UNKNOWN = 8,
    /// A dim could not be evaluated at the given values (a symbol without a value or
    /// with a negative one, a division by zero, an overflow).
    SYMDIM_ERROR_EVAL = 9,
    /// `explain` refused its target (no such tensor or axis).
    SYMDIM_ERROR_EXPLAIN = 10,
    /// A `ShapesContext` operation's `std::invalid_argument`: the node or its inputs
    /// are invalid.
    SYMDIM_ERROR_INVALID_ARGUMENT = 11,
    /// A `ShapesContext` operation's `std::out_of_range`: an input is missing from
    /// the context.
    SYMDIM_ERROR_OUT_OF_RANGE = 12,
    /// An argument out of its range (an unknown format value, a negative length).
    SYMDIM_ERROR_ARGUMENT = 13,
    /// A panic inside the library, caught at the boundary (a bug: please report it).
    SYMDIM_ERROR_INTERNAL = 14,
}

/// The format of a report, a contract or a check verdict.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymdimFormat {
    /// The text form (`--format text`).
    SYMDIM_FORMAT_TEXT = 0,
    /// The JSON form (`--format json`).
    SYMDIM_FORMAT_JSON = 1,
}

/// The answer of a query about dims (`symdim_shapes_equal`, `symdim_shapes_le`):
/// proven for every value the model allows, proven false, or neither.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymdimTruth {
    /// Proven false for every valid value of the symbols.
    SYMDIM_TRUTH_FALSE = 0,
    /// Proven for every valid value of the symbols.
    SYMDIM_TRUTH_TRUE = 1,
    /// Neither could be proven.
    SYMDIM_TRUTH_UNKNOWN = 2,
}

impl From<symdim::Truth> for SymdimTruth {
    fn from(t: symdim::Truth) -> SymdimTruth {
        match t {
            symdim::Truth::True => SymdimTruth::SYMDIM_TRUTH_TRUE,
            symdim::Truth::False => SymdimTruth::SYMDIM_TRUTH_FALSE,
            symdim::Truth::Unknown => SymdimTruth::SYMDIM_TRUTH_UNKNOWN,
        }
    }
}

/// A loaded model (`symdim_model_load`); released with `symdim_model_free`.
/// Read-only: several threads may use one at once.
pub struct SymdimModel {
    model: Arc<Model>,
}

/// Facts for an inference: bindings, assumed facts, input dims, op rules
/// (`symdim_facts_new`); released with `symdim_facts_free`.
pub struct SymdimFacts {
    facts: Facts,
}

/// What inference found for a model (`symdim_infer`); released with
/// `symdim_shapes_free`. It keeps the model alive: the model handle may be freed
/// first. Read-only: several threads may use one at once.
pub struct SymdimShapes {
    // Declared before `model`, so dropped before it: it borrows `*model`.
    shapes: Shapes<'static>,
    /// The tensors in report order, listed at the first walk by index.
    tensors: OnceLock<Vec<(String, TensorShape)>>,
    model: Arc<Model>,
}

/// One tensor's name, element type, dims and contents, as owned values
/// (`symdim_shapes_tensor`, `symdim_context_tensor`); released with
/// `symdim_tensor_free`.
pub struct SymdimTensor {
    name: String,
    shape: TensorShape,
}

/// A dim: an expression of the grammar over symbols (`symdim_tensor_dim`,
/// `symdim_dim_parse`); released with `symdim_dim_free`.
pub struct SymdimDim {
    dim: DimExpr,
}

/// A `ShapesContext` of the shape-tensor spec, for a front end that runs its own
/// graph walk (`symdim_context_new`); released with `symdim_context_free`.
pub struct SymdimContext {
    ctx: ShapesContext,
    opset: i64,
}

// The read-only handles are shared between threads.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<SymdimModel>();
    send_sync::<SymdimShapes>();
    send_sync::<SymdimTensor>();
    send_sync::<SymdimDim>();
    send_sync::<SymdimFacts>();
};

thread_local! {
    /// The message of the last failing call on this thread.
    static LAST_ERROR: RefCell<Option<CString>> = const { RefCell::new(None) };
}

/// A failure: its status and message.
struct Error {
    status: SymdimStatus,
    message: String,
}

impl Error {
    fn new(status: SymdimStatus, message: impl std::fmt::Display) -> Error {
        Error {
            status,
            message: message.to_string(),
        }
    }
}

type Result<T> = std::result::Result<T, Error>;

/// Run one entry's work: catch a panic, record the message of a failure.
fn wrap(work: impl FnOnce() -> Result<()>) -> SymdimStatus {
    let outcome = catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|panic| {
        let why = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown".to_string());
        Err(Error::new(
            SymdimStatus::SYMDIM_ERROR_INTERNAL,
            format!("internal error (a panic in symdim): {why}"),
        ))
    });
    let (status, message) = match outcome {
        Ok(()) => (SymdimStatus::SYMDIM_OK, None),
        Err(e) => {
            let bytes: Vec<u8> = e
                .message
                .into_bytes()
                .into_iter()
                .filter(|&b| b != 0)
                .collect();
            (e.status, CString::new(bytes).ok())
        }
    };
    LAST_ERROR.with(|last| *last.borrow_mut() = message);
    status
}

/// A required string argument.
unsafe fn text<'a>(p: *const c_char, what: &str) -> Result<&'a str> {
    if p.is_null() {
        return Err(Error::new(
            SymdimStatus::SYMDIM_ERROR_NULL,
            format!("{what} is NULL"),
        ));
    }
    CStr::from_ptr(p).to_str().map_err(|_| {
        Error::new(
            SymdimStatus::SYMDIM_ERROR_UTF8,
            format!("{what} is not UTF-8"),
        )
    })
}

/// A required array of `n` strings.
unsafe fn texts<'a>(p: *const *const c_char, n: usize, what: &str) -> Result<Vec<&'a str>> {
    if n == 0 {
        return Ok(Vec::new());
    }
    let items = slice(p, n, what)?;
    items
        .iter()
        .enumerate()
        .map(|(i, s)| text(*s, &format!("{what}[{i}]")))
        .collect()
}

/// A required array of `n` elements (NULL is allowed when `n` is 0).
unsafe fn slice<'a, T>(p: *const T, n: usize, what: &str) -> Result<&'a [T]> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(Error::new(
            SymdimStatus::SYMDIM_ERROR_NULL,
            format!("{what} is NULL"),
        ));
    }
    Ok(std::slice::from_raw_parts(p, n))
}

/// A required handle.
unsafe fn handle<'a, T>(p: *const T, what: &str) -> Result<&'a T> {
    p.as_ref()
        .ok_or_else(|| Error::new(SymdimStatus::SYMDIM_ERROR_NULL, format!("{what} is NULL")))
}

/// A required handle that the call changes.
unsafe fn handle_mut<'a, T>(p: *mut T, what: &str) -> Result<&'a mut T> {
    p.as_mut()
        .ok_or_else(|| Error::new(SymdimStatus::SYMDIM_ERROR_NULL, format!("{what} is NULL")))
}

/// A required output pointer, checked before the work is done.
unsafe fn out<'a, T>(p: *mut T, what: &str) -> Result<&'a mut T> {
    handle_mut(p, what)
}

/// `value` as a new handle.
fn boxed<T>(value: T) -> *mut T {
    Box::into_raw(Box::new(value))
}

/// Release a handle made by [`boxed`].
unsafe fn free<T>(p: *mut T) -> SymdimStatus {
    wrap(|| {
        if !p.is_null() {
            drop(Box::from_raw(p));
        }
        Ok(())
    })
}

/// `bytes` as a NUL-terminated string allocated with `malloc` (released by
/// `symdim_string_free`), with its length (before the NUL) in `len` when not NULL.
unsafe fn give_string(bytes: &[u8], dst: &mut *mut c_char, len: *mut usize) -> Result<()> {
    let p = libc::malloc(bytes.len() + 1) as *mut u8;
    if p.is_null() {
        return Err(Error::new(
            SymdimStatus::SYMDIM_ERROR_INTERNAL,
            format!("cannot allocate {} bytes", bytes.len() + 1),
        ));
    }
    std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len());
    *p.add(bytes.len()) = 0;
    *dst = p as *mut c_char;
    if let Some(len) = len.as_mut() {
        *len = bytes.len();
    }
    Ok(())
}

fn facts_error(e: impl std::fmt::Display) -> Error {
    Error::new(SymdimStatus::SYMDIM_ERROR_FACTS, e)
}

fn expr_error(e: impl std::fmt::Display) -> Error {
    Error::new(SymdimStatus::SYMDIM_ERROR_EXPR, e)
}

fn not_found(what: impl std::fmt::Display) -> Error {
    Error::new(SymdimStatus::SYMDIM_ERROR_NOT_FOUND, what)
}

/// The format a caller passed: an `int` holding a `SymdimFormat`, checked here. A C
/// caller can pass any integer where the header names the enum, and a Rust enum
/// holding a value outside its variants is undefined behaviour, so the API takes the
/// integer and refuses others with `SYMDIM_ERROR_INVALID_ARGUMENT`.
fn report_format(format: c_int) -> Result<Format> {
    match format {
        f if f == SymdimFormat::SYMDIM_FORMAT_TEXT as c_int => Ok(Format::Text),
        f if f == SymdimFormat::SYMDIM_FORMAT_JSON as c_int => Ok(Format::Json),
        other => Err(Error::new(
            SymdimStatus::SYMDIM_ERROR_INVALID_ARGUMENT,
            format!(
                "format {other} is not a SymdimFormat (SYMDIM_FORMAT_TEXT = 0, SYMDIM_FORMAT_JSON = 1)"
            ),
        )),
    }
}

// ---------------------------------------------------------------------------------
// Errors, strings, version

/// The message of the last call on this thread that failed, or NULL when the last
/// call succeeded. The text belongs to the library and stays valid until the next
/// call on this thread; copy it to keep it.
#[no_mangle]
pub extern "C" fn symdim_last_error() -> *const c_char {
    let read = || {
        LAST_ERROR.with(|last| {
            last.borrow()
                .as_ref()
                .map_or(std::ptr::null(), |s| s.as_ptr())
        })
    };
    catch_unwind(read).unwrap_or(std::ptr::null())
}

/// The library's version (`"0.1.0"`), a static string.
#[no_mangle]
pub extern "C" fn symdim_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr() as *const c_char
}

/// Release a string the library returned (NULL is allowed).
#[no_mangle]
pub unsafe extern "C" fn symdim_string_free(s: *mut c_char) -> SymdimStatus {
    wrap(|| {
        libc::free(s as *mut libc::c_void);
        Ok(())
    })
}

// ---------------------------------------------------------------------------------
// Facts

/// New, empty facts: every input dim as the model declares it, input symbols at
/// least 1.
#[no_mangle]
pub unsafe extern "C" fn symdim_facts_new(facts: *mut *mut SymdimFacts) -> SymdimStatus {
    wrap(|| {
        *out(facts, "facts")? = boxed(SymdimFacts {
            facts: Facts::new(),
        });
        Ok(())
    })
}

/// Bind symbol `name` to `value` (the CLI's `--bind NAME=VALUE`). Whether the model
/// names the symbol is checked by `symdim_infer` and `symdim_check`.
#[no_mangle]
pub unsafe extern "C" fn symdim_facts_bind(
    facts: *mut SymdimFacts,
    name: *const c_char,
    value: i64,
) -> SymdimStatus {
    wrap(|| {
        let f = handle_mut(facts, "facts")?;
        let name = text(name, "name")?;
        let (name, value) =
            symdim::context::facts::parse_bind(&format!("{name}={value}")).map_err(facts_error)?;
        f.facts.binds.push((name, value));
        Ok(())
    })
}

/// Assume a fact in the grammar, such as `"sequence % 8 == 0"` or `"batch >= 2"`
/// (the CLI's `--assume`). A fact that does not parse is refused here
/// (`SYMDIM_ERROR_FACTS`); its symbols are checked by `symdim_infer`.
#[no_mangle]
pub unsafe extern "C" fn symdim_facts_assume(
    facts: *mut SymdimFacts,
    fact: *const c_char,
) -> SymdimStatus {
    wrap(|| {
        let f = handle_mut(facts, "facts")?;
        let fact = text(fact, "fact")?.to_string();
        symdim::context::facts::check_assumes(std::slice::from_ref(&fact)).map_err(facts_error)?;
        f.facts.assumes.push(fact);
        Ok(())
    })
}

/// Set axis `axis` of graph input `tensor` to `dim` (an integer, a symbol name or an
/// expression of the grammar) instead of what the model declares. Checked against
/// the model by `symdim_infer`.
#[no_mangle]
pub unsafe extern "C" fn symdim_facts_input_dim(
    facts: *mut SymdimFacts,
    tensor: *const c_char,
    axis: usize,
    dim: *const c_char,
) -> SymdimStatus {
    wrap(|| {
        let f = handle_mut(facts, "facts")?;
        let (tensor, dim) = (text(tensor, "tensor")?, text(dim, "dim")?);
        f.facts = std::mem::take(&mut f.facts).input_dim(tensor, axis, dim);
        Ok(())
    })
}

/// Add shape rules for ops, given as the text of an op-rules file
/// (`docs/op-rules.md`); a declared rule wins over a built-in one. `origin` names
/// the text in error messages (a file's path), or is NULL for `<text>`.
#[no_mangle]
pub unsafe extern "C" fn symdim_facts_op_rules(
    facts: *mut SymdimFacts,
    rules: *const c_char,
    origin: *const c_char,
) -> SymdimStatus {
    wrap(|| {
        let f = handle_mut(facts, "facts")?;
        let rules = text(rules, "rules")?;
        let origin = if origin.is_null() {
            "<text>"
        } else {
            text(origin, "origin")?
        };
        let op_error = |e| Error::new(SymdimStatus::SYMDIM_ERROR_OP_RULES, e);
        let more = OpRules::parse_named(rules, origin).map_err(op_error)?;
        f.facts.op_rules = f.facts.op_rules.merge(&more).map_err(op_error)?;
        Ok(())
    })
}

/// Release facts (NULL is allowed).
#[no_mangle]
pub unsafe extern "C" fn symdim_facts_free(facts: *mut SymdimFacts) -> SymdimStatus {
    free(facts)
}

// ---------------------------------------------------------------------------------
// Models

fn give_model(
    loaded: std::result::Result<Model, symdim::LoadError>,
    dst: &mut *mut SymdimModel,
) -> Result<()> {
    let model = loaded.map_err(|e| Error::new(SymdimStatus::SYMDIM_ERROR_LOAD, e))?;
    *dst = boxed(SymdimModel {
        model: Arc::new(model),
    });
    Ok(())
}

/// Load a model file: ONNX (with its external data, read from the file's folder),
/// OpenVINO IR `.xml` (with the `.bin` of the same stem beside it) or oneDNN Graph
/// JSON; the format is detected by content. The message of a failure is what the
/// CLI prints after `symdim: `.
#[no_mangle]
pub unsafe extern "C" fn symdim_model_load(
    path: *const c_char,
    model: *mut *mut SymdimModel,
) -> SymdimStatus {
    wrap(|| {
        let path = text(path, "path")?;
        let dst = out(model, "model")?;
        give_model(symdim::load(std::path::Path::new(path)), dst)
    })
}

/// Load a model file as `symdim_model_load` does, turning oneDNN Graph input dims
/// into symbols: each of the `n` strings of `symbols` is the CLI's `--symbol
/// ID:AXIS=NAME` (`0:0=N`: dim 0 of logical tensor 0 is `N`; NAME may be an
/// expression). A malformed one is `SYMDIM_ERROR_INVALID_ARGUMENT`; symbols for a
/// model that is not oneDNN JSON, or naming no graph input, `SYMDIM_ERROR_LOAD`
/// (as the CLI refuses them).
#[no_mangle]
pub unsafe extern "C" fn symdim_model_load_onednn(
    path: *const c_char,
    symbols: *const *const c_char,
    n: usize,
    model: *mut *mut SymdimModel,
) -> SymdimStatus {
    wrap(|| {
        let path = text(path, "path")?;
        let symbols = texts(symbols, n, "symbols")?;
        let dst = out(model, "model")?;
        let mut options = symdim::read::load::LoadOptions::default();
        for s in symbols {
            let symbol = s.parse().map_err(|e| {
                Error::new(
                    SymdimStatus::SYMDIM_ERROR_INVALID_ARGUMENT,
                    format!("--symbol {s}: {e}"),
                )
            })?;
            options.onednn_symbols.push(symbol);
        }
        give_model(
            symdim::read::load::load_with(std::path::Path::new(path), &options),
            dst,
        )
    })
}

/// Load a model held in memory (ONNX, IR XML without Const layers, oneDNN Graph
/// JSON); `name` stands for its path in reports and errors. ONNX external data
/// cannot be read from memory: such tensors keep their dims, not their values. For
/// IR with weights: `symdim_model_load_ir_bytes`.
#[no_mangle]
pub unsafe extern "C" fn symdim_model_load_bytes(
    bytes: *const u8,
    len: usize,
    name: *const c_char,
    model: *mut *mut SymdimModel,
) -> SymdimStatus {
    wrap(|| {
        let bytes = slice(bytes, len, "bytes")?;
        let name = text(name, "name")?;
        let dst = out(model, "model")?;
        let options = symdim::read::load::LoadOptions::default();
        give_model(symdim::load_bytes(bytes, name, &options), dst)
    })
}

/// Load an OpenVINO IR model held in memory: its XML and its weights (the bytes of
/// the `.bin`); `name` stands for its path in reports and errors.
#[no_mangle]
pub unsafe extern "C" fn symdim_model_load_ir_bytes(
    xml: *const u8,
    xml_len: usize,
    weights: *const u8,
    weights_len: usize,
    name: *const c_char,
    model: *mut *mut SymdimModel,
) -> SymdimStatus {
    wrap(|| {
        let xml = slice(xml, xml_len, "xml")?;
        let weights = slice(weights, weights_len, "weights")?;
        let name = text(name, "name")?;
        let dst = out(model, "model")?;
        give_model(symdim::shapes::load_ir_bytes(xml, weights, name), dst)
    })
}

/// Release a model (NULL is allowed). Shapes inferred from it stay valid.
#[no_mangle]
pub unsafe extern "C" fn symdim_model_free(model: *mut SymdimModel) -> SymdimStatus {
    free(model)
}

// ---------------------------------------------------------------------------------
// Inference

/// The facts of a handle, or none for NULL.
unsafe fn facts_of(facts: *const SymdimFacts) -> Facts {
    facts.as_ref().map(|f| f.facts.clone()).unwrap_or_default()
}

/// Infer every tensor of `model` under `facts` (NULL: none). The facts are checked
/// against the model first, as the CLI checks its flags: a binding or fact naming a
/// symbol the model does not have is `SYMDIM_ERROR_FACTS`. What cannot be inferred
/// is not a failure: it is an error diagnostic of the report
/// (`symdim_shapes_has_errors`).
#[no_mangle]
pub unsafe extern "C" fn symdim_infer(
    model: *const SymdimModel,
    facts: *const SymdimFacts,
    shapes: *mut *mut SymdimShapes,
) -> SymdimStatus {
    wrap(|| {
        let model = Arc::clone(&handle(model, "model")?.model);
        let facts = facts_of(facts);
        let dst = out(shapes, "shapes")?;
        facts.validate(&model).map_err(facts_error)?;
        *dst = SymdimShapes::new(model, |m| symdim::infer(m, &facts));
        Ok(())
    })
}

/// Release shapes (NULL is allowed).
#[no_mangle]
pub unsafe extern "C" fn symdim_shapes_free(shapes: *mut SymdimShapes) -> SymdimStatus {
    free(shapes)
}

impl SymdimShapes {
    /// A new handle for the shapes `make` gives of `model`, kept alive beside them.
    /// The shapes may borrow no model but the one behind `model`.
    fn new(model: Arc<Model>, make: impl FnOnce(&'static Model) -> Shapes<'static>) -> *mut Self {
        // SAFETY: the `Shapes` borrows the model behind the `Arc` stored beside it in
        // the handle, which does not move and is dropped after it (field order);
        // the `'static` lifetime never leaves the handle.
        let borrowed: &'static Model = unsafe { &*Arc::as_ptr(&model) };
        boxed(SymdimShapes {
            shapes: make(borrowed),
            tensors: OnceLock::new(),
            model,
        })
    }

    fn tensors(&self) -> &[(String, TensorShape)] {
        self.tensors.get_or_init(|| self.shapes.tensors())
    }
}

/// Whether the report holds an error diagnostic (the model is invalid, or some node
/// could not be inferred): the CLI's exit status 1 for `symdim infer`.
#[no_mangle]
pub unsafe extern "C" fn symdim_shapes_has_errors(
    shapes: *const SymdimShapes,
    has_errors: *mut bool,
) -> SymdimStatus {
    wrap(|| {
        let s = handle(shapes, "shapes")?;
        *out(has_errors, "has_errors")? = s.shapes.has_errors();
        Ok(())
    })
}

/// The report `symdim infer --format text|json` prints, byte for byte, as a new
/// string; its length in bytes in `len` (NULL: not wanted). `format` is a
/// `SymdimFormat`; another value is `SYMDIM_ERROR_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn symdim_shapes_report(
    shapes: *const SymdimShapes,
    format: c_int,
    report: *mut *mut c_char,
    len: *mut usize,
) -> SymdimStatus {
    wrap(|| {
        let s = handle(shapes, "shapes")?;
        let dst = out(report, "report")?;
        let format = report_format(format)?;
        let mut bytes = Vec::new();
        s.shapes
            .write_report(format, &mut bytes)
            .map_err(|e| Error::new(SymdimStatus::SYMDIM_ERROR_INTERNAL, e))?;
        give_string(&bytes, dst, len)
    })
}

/// The conditions on the input dims under which every node is valid: what `symdim
/// constraints --format text|json` prints, as a new string. `format` is a
/// `SymdimFormat`; another value is `SYMDIM_ERROR_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn symdim_shapes_contract(
    shapes: *const SymdimShapes,
    format: c_int,
    contract: *mut *mut c_char,
    len: *mut usize,
) -> SymdimStatus {
    wrap(|| {
        let s = handle(shapes, "shapes")?;
        let dst = out(contract, "contract")?;
        let format = report_format(format)?;
        let c = s.shapes.contract();
        let text = match format {
            Format::Text => c.to_text(),
            Format::Json => c.to_json(),
        };
        give_string(text.as_bytes(), dst, len)
    })
}

/// Why a dim is what the report says, step by step from the inputs: what `symdim
/// explain MODEL TARGET` prints, as a new string. `target` is `NAME[AXIS]` (a
/// negative axis counts from the end) or a tensor name (every axis).
#[no_mangle]
pub unsafe extern "C" fn symdim_shapes_explain(
    shapes: *const SymdimShapes,
    target: *const c_char,
    explanation: *mut *mut c_char,
) -> SymdimStatus {
    wrap(|| {
        let s = handle(shapes, "shapes")?;
        let target = text(target, "target")?;
        let dst = out(explanation, "explanation")?;
        let text = s
            .shapes
            .explain(target)
            .map_err(|e| Error::new(SymdimStatus::SYMDIM_ERROR_EXPLAIN, e))?;
        give_string(text.as_bytes(), dst, std::ptr::null_mut())
    })
}

/// `dim` in its simplest form under the model's facts (bindings, assumptions and
/// what inference learned), as a new dim. Nothing changes in `shapes`.
#[no_mangle]
pub unsafe extern "C" fn symdim_shapes_simplify(
    shapes: *const SymdimShapes,
    dim: *const SymdimDim,
    simplified: *mut *mut SymdimDim,
) -> SymdimStatus {
    wrap(|| {
        let s = handle(shapes, "shapes")?;
        let d = handle(dim, "dim")?;
        let dst = out(simplified, "simplified")?;
        *dst = boxed(SymdimDim {
            dim: s.shapes.simplify(&d.dim),
        });
        Ok(())
    })
}

/// Whether dims `a` and `b` are equal for every value of the symbols the model
/// allows, under its facts and what inference learned (a dim it assumed equal to
/// another is equal to it: each such assumption is a warning of the report and a
/// condition of the contract). Nothing changes in `shapes`.
#[no_mangle]
pub unsafe extern "C" fn symdim_shapes_equal(
    shapes: *const SymdimShapes,
    a: *const SymdimDim,
    b: *const SymdimDim,
    truth: *mut SymdimTruth,
) -> SymdimStatus {
    wrap(|| {
        let s = handle(shapes, "shapes")?;
        let (a, b) = (handle(a, "a")?, handle(b, "b")?);
        *out(truth, "truth")? = s.shapes.equal(&a.dim, &b.dim).into();
        Ok(())
    })
}

/// Whether `a <= b` for every value of the symbols the model allows (as
/// `symdim_shapes_equal`).
#[no_mangle]
pub unsafe extern "C" fn symdim_shapes_le(
    shapes: *const SymdimShapes,
    a: *const SymdimDim,
    b: *const SymdimDim,
    truth: *mut SymdimTruth,
) -> SymdimStatus {
    wrap(|| {
        let s = handle(shapes, "shapes")?;
        let (a, b) = (handle(a, "a")?, handle(b, "b")?);
        *out(truth, "truth")? = s.shapes.le(&a.dim, &b.dim).into();
        Ok(())
    })
}

/// Bounds of `dim` under the model's facts (as `symdim_shapes_equal`): every value
/// it takes is in `[*lo, *hi]`. `*has_lo` / `*has_hi` say whether that end is
/// bounded; an end that is not an `int64_t` is reported unbounded, and a fractional
/// end is rounded inward (a dim is an integer), so the interval stays sound.
/// `*lo > *hi` means the facts contradict each other. Any output may be NULL.
#[no_mangle]
pub unsafe extern "C" fn symdim_shapes_bounds(
    shapes: *const SymdimShapes,
    dim: *const SymdimDim,
    has_lo: *mut bool,
    lo: *mut i64,
    has_hi: *mut bool,
    hi: *mut i64,
) -> SymdimStatus {
    use symdim::algebra::Bound;
    wrap(|| {
        let s = handle(shapes, "shapes")?;
        let d = handle(dim, "dim")?;
        let b = s.shapes.bounds(&d.dim);
        let lo_value = match &b.lo {
            Bound::Finite(r) => r.ceil().to_i64(),
            _ => None,
        };
        let hi_value = match &b.hi {
            Bound::Finite(r) => r.floor().to_i64(),
            _ => None,
        };
        for (has, value, end) in [(has_lo, lo, lo_value), (has_hi, hi, hi_value)] {
            if let Some(has) = has.as_mut() {
                *has = end.is_some();
            }
            if let (Some(value), Some(end)) = (value.as_mut(), end) {
                *value = end;
            }
        }
        Ok(())
    })
}

/// The shapes inferred again with the `n` symbols `names[i]` bound to `values[i]`
/// beside the facts of `shapes`, as new shapes (what those values decide, such as an
/// `If` condition, is decided); `shapes` keeps its symbolic answer. A name that is
/// not a symbol of the model, a negative value, or one other than a binding the
/// facts already hold is `SYMDIM_ERROR_FACTS`.
#[no_mangle]
pub unsafe extern "C" fn symdim_shapes_concretize(
    shapes: *const SymdimShapes,
    names: *const *const c_char,
    values: *const i64,
    n: usize,
    concrete: *mut *mut SymdimShapes,
) -> SymdimStatus {
    wrap(|| {
        let s = handle(shapes, "shapes")?;
        let names = texts(names, n, "names")?;
        let values = slice(values, n, "values")?;
        let dst = out(concrete, "concrete")?;
        let at: Vec<(&str, i64)> = names.iter().copied().zip(values.iter().copied()).collect();
        let shapes = s.shapes.concretize(&at).map_err(facts_error)?;
        // They borrow the same model as `s`, which the new handle keeps alive too.
        *dst = SymdimShapes::new(Arc::clone(&s.model), |_| shapes);
        Ok(())
    })
}

/// The ONNX model with every inferred shape written into its `value_info`: what
/// `symdim infer MODEL -o OUT.onnx` writes. `bytes` (`len` bytes) is the serialized
/// model to write into, normally the file the model was loaded from. The result is
/// a new buffer of `*annotated_len` bytes, released with `symdim_bytes_free`. A model
/// that is not ONNX, or bytes that do not decode, is `SYMDIM_ERROR_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn symdim_shapes_annotated(
    shapes: *const SymdimShapes,
    bytes: *const u8,
    len: usize,
    annotated: *mut *mut u8,
    annotated_len: *mut usize,
) -> SymdimStatus {
    wrap(|| {
        let s = handle(shapes, "shapes")?;
        let bytes = slice(bytes, len, "bytes")?;
        let dst = out(annotated, "annotated")?;
        let dst_len = out(annotated_len, "annotated_len")?;
        let written = s
            .shapes
            .annotated_bytes(bytes)
            .map_err(|e| Error::new(SymdimStatus::SYMDIM_ERROR_INVALID_ARGUMENT, e))?;
        let mut p = std::ptr::null_mut();
        give_string(&written, &mut p, std::ptr::null_mut())?;
        *dst = p as *mut u8;
        *dst_len = written.len();
        Ok(())
    })
}

/// Release a buffer the library returned (`symdim_shapes_annotated`); NULL is
/// allowed.
#[no_mangle]
pub unsafe extern "C" fn symdim_bytes_free(bytes: *mut u8) -> SymdimStatus {
    symdim_string_free(bytes as *mut c_char)
}

/// How many tensors the report lists (graph inputs and node outputs, in graph
/// order): the indices of `symdim_shapes_tensor_at`.
#[no_mangle]
pub unsafe extern "C" fn symdim_shapes_tensor_count(
    shapes: *const SymdimShapes,
    count: *mut usize,
) -> SymdimStatus {
    wrap(|| {
        let s = handle(shapes, "shapes")?;
        *out(count, "count")? = s.tensors().len();
        Ok(())
    })
}

/// The tensor at `index` in report order, as a new tensor handle.
#[no_mangle]
pub unsafe extern "C" fn symdim_shapes_tensor_at(
    shapes: *const SymdimShapes,
    index: usize,
    tensor: *mut *mut SymdimTensor,
) -> SymdimStatus {
    wrap(|| {
        let s = handle(shapes, "shapes")?;
        let dst = out(tensor, "tensor")?;
        let all = s.tensors();
        let (name, shape) = all
            .get(index)
            .ok_or_else(|| not_found(format!("no tensor {index}: there are {}", all.len())))?;
        *dst = boxed(SymdimTensor {
            name: name.clone(),
            shape: shape.clone(),
        });
        Ok(())
    })
}

/// The tensor `name`, as a new tensor handle; `SYMDIM_ERROR_NOT_FOUND` for a name
/// inference did not reach.
#[no_mangle]
pub unsafe extern "C" fn symdim_shapes_tensor(
    shapes: *const SymdimShapes,
    name: *const c_char,
    tensor: *mut *mut SymdimTensor,
) -> SymdimStatus {
    wrap(|| {
        let s = handle(shapes, "shapes")?;
        let name = text(name, "name")?;
        let dst = out(tensor, "tensor")?;
        let shape = s
            .shapes
            .tensor(name)
            .ok_or_else(|| not_found(format!("no tensor {name}")))?;
        *dst = boxed(SymdimTensor {
            name: name.to_string(),
            shape,
        });
        Ok(())
    })
}

/// How many outputs the graph has.
#[no_mangle]
pub unsafe extern "C" fn symdim_shapes_output_count(
    shapes: *const SymdimShapes,
    count: *mut usize,
) -> SymdimStatus {
    wrap(|| {
        let s = handle(shapes, "shapes")?;
        *out(count, "count")? = s.model.graph.outputs.len();
        Ok(())
    })
}

/// The name of graph output `index`, as a new string (for `symdim_shapes_tensor`).
#[no_mangle]
pub unsafe extern "C" fn symdim_shapes_output_name(
    shapes: *const SymdimShapes,
    index: usize,
    name: *mut *mut c_char,
) -> SymdimStatus {
    wrap(|| {
        let s = handle(shapes, "shapes")?;
        let dst = out(name, "name")?;
        let outputs = s.shapes.outputs();
        let n = outputs
            .get(index)
            .ok_or_else(|| not_found(format!("no output {index}: there are {}", outputs.len())))?;
        give_string(n.as_bytes(), dst, std::ptr::null_mut())
    })
}

// ---------------------------------------------------------------------------------
// Check and simplify

/// Whether `model` is valid for the values `facts` binds (without running it): what
/// `symdim check --format text|json` prints, as a new string, and the CLI's exit
/// status in `exit_code` (0 valid, 1 invalid, 3 undecided; NULL: not wanted). The
/// facts are checked against the model first (`SYMDIM_ERROR_FACTS`). `format` is a
/// `SymdimFormat`; another value is `SYMDIM_ERROR_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn symdim_check(
    model: *const SymdimModel,
    facts: *const SymdimFacts,
    format: c_int,
    verdict: *mut *mut c_char,
    exit_code: *mut i32,
) -> SymdimStatus {
    wrap(|| {
        let m = handle(model, "model")?;
        let facts = facts_of(facts);
        let dst = out(verdict, "verdict")?;
        let format = report_format(format)?;
        facts.validate(&m.model).map_err(facts_error)?;
        let v = symdim::contracts::check::check(&m.model, &facts);
        let text = match format {
            Format::Text => v.to_text(),
            Format::Json => v.to_json(),
        };
        give_string(text.as_bytes(), dst, std::ptr::null_mut())?;
        if let Some(code) = exit_code.as_mut() {
            *code = i32::from(v.exit_code());
        }
        Ok(())
    })
}

/// The canonical form of expression `expr` under the `n_assumes` facts of
/// `assumes` (NULL when 0): what `symdim simplify EXPR --assume ...` prints, without
/// the newline, as a new string.
#[no_mangle]
pub unsafe extern "C" fn symdim_simplify(
    expr: *const c_char,
    assumes: *const *const c_char,
    n_assumes: usize,
    simplified: *mut *mut c_char,
) -> SymdimStatus {
    wrap(|| {
        let expr = text(expr, "expr")?;
        let assumes = texts(assumes, n_assumes, "assumes")?;
        let dst = out(simplified, "simplified")?;
        let mut alg = symdim::algebra::Algebra::default();
        for a in assumes {
            alg.assume(a)
                .map_err(|e| facts_error(format!("--assume {a}: {e}")))?;
        }
        let d = alg.parse(expr).map_err(expr_error)?;
        give_string(
            alg.simplify(d).to_string().as_bytes(),
            dst,
            std::ptr::null_mut(),
        )
    })
}

// ---------------------------------------------------------------------------------
// Tensors

/// Release a tensor handle (NULL is allowed).
#[no_mangle]
pub unsafe extern "C" fn symdim_tensor_free(tensor: *mut SymdimTensor) -> SymdimStatus {
    free(tensor)
}

/// The tensor's name, as a new string.
#[no_mangle]
pub unsafe extern "C" fn symdim_tensor_name(
    tensor: *const SymdimTensor,
    name: *mut *mut c_char,
) -> SymdimStatus {
    wrap(|| {
        let t = handle(tensor, "tensor")?;
        give_string(t.name.as_bytes(), out(name, "name")?, std::ptr::null_mut())
    })
}

/// The element type as an ONNX `TensorProto.DataType` code (1 float, 7 int64, ...;
/// 0 when unknown).
#[no_mangle]
pub unsafe extern "C" fn symdim_tensor_dtype(
    tensor: *const SymdimTensor,
    dtype: *mut i32,
) -> SymdimStatus {
    wrap(|| {
        let t = handle(tensor, "tensor")?;
        *out(dtype, "dtype")? = t.shape.dtype.unwrap_or(DType::Undefined).to_i32();
        Ok(())
    })
}

/// The rank, or -1 when even the rank is unknown.
#[no_mangle]
pub unsafe extern "C" fn symdim_tensor_rank(
    tensor: *const SymdimTensor,
    rank: *mut i64,
) -> SymdimStatus {
    wrap(|| {
        let t = handle(tensor, "tensor")?;
        *out(rank, "rank")? = t.shape.dims.as_ref().map_or(-1, |d| d.len() as i64);
        Ok(())
    })
}

/// Dim `axis` (0-based), as a new dim; `SYMDIM_ERROR_UNKNOWN` when the rank is
/// unknown, `SYMDIM_ERROR_NOT_FOUND` when `axis` is not below it.
#[no_mangle]
pub unsafe extern "C" fn symdim_tensor_dim(
    tensor: *const SymdimTensor,
    axis: usize,
    dim: *mut *mut SymdimDim,
) -> SymdimStatus {
    wrap(|| {
        let t = handle(tensor, "tensor")?;
        nth(
            t,
            t.shape.dims.as_deref(),
            ("axes", "axis"),
            axis,
            out(dim, "dim")?,
        )
    })
}

/// Element `index` of a tensor's dims or contents (`list`, `None` when unknown;
/// `noun` names its elements, plural and singular), as a new dim.
fn nth(
    t: &SymdimTensor,
    list: Option<&[DimExpr]>,
    noun: (&str, &str),
    index: usize,
    dst: &mut *mut SymdimDim,
) -> Result<()> {
    let (plural, singular) = noun;
    let list = list.ok_or_else(|| {
        Error::new(
            SymdimStatus::SYMDIM_ERROR_UNKNOWN,
            format!("the {plural} of {} are unknown", t.name),
        )
    })?;
    let d = list.get(index).ok_or_else(|| {
        not_found(format!(
            "{} has {} {plural}: no {singular} {index}",
            t.name,
            list.len()
        ))
    })?;
    *dst = boxed(SymdimDim { dim: d.clone() });
    Ok(())
}

/// The shape as the report writes it, `[batch, 10, 64]`, or `?` when the rank is
/// unknown, as a new string.
#[no_mangle]
pub unsafe extern "C" fn symdim_tensor_shape_text(
    tensor: *const SymdimTensor,
    shape: *mut *mut c_char,
) -> SymdimStatus {
    wrap(|| {
        let t = handle(tensor, "tensor")?;
        let dst = out(shape, "shape")?;
        let text = t
            .shape
            .dims
            .as_deref()
            .map_or_else(|| "?".to_string(), |d| DimExpr::list(d).to_string());
        give_string(text.as_bytes(), dst, std::ptr::null_mut())
    })
}

/// How many elements of contents are known (shape tensors and small integer
/// constants, row-major), or -1 when the contents are unknown.
#[no_mangle]
pub unsafe extern "C" fn symdim_tensor_value_len(
    tensor: *const SymdimTensor,
    len: *mut i64,
) -> SymdimStatus {
    wrap(|| {
        let t = handle(tensor, "tensor")?;
        *out(len, "len")? = t.shape.value.as_ref().map_or(-1, |v| v.len() as i64);
        Ok(())
    })
}

/// Element `index` of the contents, as a new dim; `SYMDIM_ERROR_UNKNOWN` when the
/// contents are unknown.
#[no_mangle]
pub unsafe extern "C" fn symdim_tensor_value_at(
    tensor: *const SymdimTensor,
    index: usize,
    dim: *mut *mut SymdimDim,
) -> SymdimStatus {
    wrap(|| {
        let t = handle(tensor, "tensor")?;
        let value = t.shape.value.as_deref();
        nth(t, value, ("elements", "element"), index, out(dim, "dim")?)
    })
}

// ---------------------------------------------------------------------------------
// Dims

/// Release a dim (NULL is allowed).
#[no_mangle]
pub unsafe extern "C" fn symdim_dim_free(dim: *mut SymdimDim) -> SymdimStatus {
    free(dim)
}

/// A dim from an expression of the grammar (`"2*S + 1"`, `"batch"`, `"64"`).
#[no_mangle]
pub unsafe extern "C" fn symdim_dim_parse(
    expr: *const c_char,
    dim: *mut *mut SymdimDim,
) -> SymdimStatus {
    wrap(|| {
        let expr = text(expr, "expr")?;
        let dst = out(dim, "dim")?;
        let d = DimExpr::parse(expr).map_err(expr_error)?;
        *dst = boxed(SymdimDim { dim: d });
        Ok(())
    })
}

/// The dim in the grammar's text, as the report writes it (`batch*sequence`, `64`),
/// as a new string.
#[no_mangle]
pub unsafe extern "C" fn symdim_dim_text(
    dim: *const SymdimDim,
    text_out: *mut *mut c_char,
) -> SymdimStatus {
    wrap(|| {
        let d = handle(dim, "dim")?;
        let dst = out(text_out, "text")?;
        give_string(d.dim.to_string().as_bytes(), dst, std::ptr::null_mut())
    })
}

/// The dim as an integer; `SYMDIM_ERROR_UNKNOWN` when it is symbolic (not a
/// constant).
#[no_mangle]
pub unsafe extern "C" fn symdim_dim_as_i64(dim: *const SymdimDim, value: *mut i64) -> SymdimStatus {
    wrap(|| {
        let d = handle(dim, "dim")?;
        let dst = out(value, "value")?;
        *dst = d.dim.as_i64().ok_or_else(|| {
            Error::new(
                SymdimStatus::SYMDIM_ERROR_UNKNOWN,
                format!("{} is not a constant", d.dim),
            )
        })?;
        Ok(())
    })
}

/// The dim's value with the `n` symbols `names[i]` at `values[i]`;
/// `SYMDIM_ERROR_EVAL` when a symbol it uses has no value or a negative one, or the
/// arithmetic fails.
#[no_mangle]
pub unsafe extern "C" fn symdim_dim_eval(
    dim: *const SymdimDim,
    names: *const *const c_char,
    values: *const i64,
    n: usize,
    value: *mut i64,
) -> SymdimStatus {
    wrap(|| {
        let d = handle(dim, "dim")?;
        let names = texts(names, n, "names")?;
        let values = slice(values, n, "values")?;
        let dst = out(value, "value")?;
        let mut at = SymbolValues::new();
        for (name, v) in names.iter().zip(values) {
            at.set(name, *v);
        }
        *dst = d
            .dim
            .eval(&at)
            .map_err(|e| Error::new(SymdimStatus::SYMDIM_ERROR_EVAL, e))?;
        Ok(())
    })
}

// ---------------------------------------------------------------------------------
// The ShapesContext operations

/// A new, empty `ShapesContext` whose nodes are of ONNX opset `opset` (the version
/// that selects each op's rules: `allowzero` of Reshape needs 14 or later).
#[no_mangle]
pub unsafe extern "C" fn symdim_context_new(
    opset: i64,
    context: *mut *mut SymdimContext,
) -> SymdimStatus {
    wrap(|| {
        *out(context, "context")? = boxed(SymdimContext {
            ctx: ShapesContext::default(),
            opset,
        });
        Ok(())
    })
}

/// Release a context (NULL is allowed).
#[no_mangle]
pub unsafe extern "C" fn symdim_context_free(context: *mut SymdimContext) -> SymdimStatus {
    free(context)
}

/// Parse each text of `dims` as a dim of the context's algebra.
fn context_dims(ctx: &mut ShapesContext, dims: &[&str]) -> Result<Vec<symdim::algebra::Dim>> {
    dims.iter()
        .map(|d| ctx.alg.parse(d).map_err(expr_error))
        .collect()
}

/// Put tensor `name` in the context (replacing what it held): element type `dtype`
/// (an ONNX `TensorProto.DataType` code) and the `rank` dims of `dims`, each an
/// expression of the grammar (`"B"`, `"64"`, `"2*S"`; a name is an input symbol).
#[no_mangle]
pub unsafe extern "C" fn symdim_context_set_tensor(
    context: *mut SymdimContext,
    name: *const c_char,
    dtype: i32,
    dims: *const *const c_char,
    rank: usize,
) -> SymdimStatus {
    wrap(|| {
        let c = handle_mut(context, "context")?;
        let name = text(name, "name")?;
        let dims = texts(dims, rank, "dims")?;
        let dims = context_dims(&mut c.ctx, &dims)?;
        let fact = symdim::context::TensorFact::new(DType::from_i32(dtype), dims);
        c.ctx.insert(name, fact);
        Ok(())
    })
}

/// Put tensor `name` of element type `dtype` and unknown rank in the context.
#[no_mangle]
pub unsafe extern "C" fn symdim_context_set_tensor_unknown_rank(
    context: *mut SymdimContext,
    name: *const c_char,
    dtype: i32,
) -> SymdimStatus {
    wrap(|| {
        let c = handle_mut(context, "context")?;
        let name = text(name, "name")?;
        c.ctx.insert(
            name,
            symdim::context::TensorFact::unknown(DType::from_i32(dtype)),
        );
        Ok(())
    })
}

/// Set the value-as-shape of tensor `name` (already in the context): its `n`
/// elements, row-major, each an expression of the grammar (`"B"`, `"-1"`, `"64"`),
/// as a Reshape reads its shape input.
#[no_mangle]
pub unsafe extern "C" fn symdim_context_set_value(
    context: *mut SymdimContext,
    name: *const c_char,
    values: *const *const c_char,
    n: usize,
) -> SymdimStatus {
    wrap(|| {
        let c = handle_mut(context, "context")?;
        let name = text(name, "name")?;
        let values = texts(values, n, "values")?;
        let values = context_dims(&mut c.ctx, &values)?;
        let mut fact = c
            .ctx
            .get(name)
            .cloned()
            .ok_or_else(|| not_found(format!("no tensor {name} in the context")))?;
        fact.value = Some(values);
        c.ctx.insert(name, fact);
        Ok(())
    })
}

/// Run one `ShapesContext` operation on the node `op_type(inputs) -> output`.
fn compute(
    c: &mut SymdimContext,
    op_type: &str,
    inputs: &[&str],
    output: &str,
    attrs: Vec<(&str, Attr)>,
    op: fn(&mut ShapesContext, &Node) -> std::result::Result<(), ShapeError>,
) -> Result<()> {
    let node = Node {
        name: output.to_string(),
        op_type: op_type.into(),
        domain: String::new(),
        version: c.opset,
        inputs: inputs.iter().map(|&i| i.into()).collect(),
        outputs: vec![output.into()],
        attrs: attrs.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
    };
    op(&mut c.ctx, &node).map_err(|e| match e {
        ShapeError::InvalidArgument(_) => {
            Error::new(SymdimStatus::SYMDIM_ERROR_INVALID_ARGUMENT, e)
        }
        ShapeError::OutOfRange(_) => Error::new(SymdimStatus::SYMDIM_ERROR_OUT_OF_RANGE, e),
    })
}

/// `ComputeShapeConcat`: the output `output` of a `Concat` of the `n_inputs`
/// tensors `inputs` along `*axis` (NULL: the attribute is absent, axis 1), stored in
/// the context.
#[no_mangle]
pub unsafe extern "C" fn symdim_context_concat(
    context: *mut SymdimContext,
    inputs: *const *const c_char,
    n_inputs: usize,
    output: *const c_char,
    axis: *const i64,
) -> SymdimStatus {
    wrap(|| {
        let c = handle_mut(context, "context")?;
        let inputs = texts(inputs, n_inputs, "inputs")?;
        let output = text(output, "output")?;
        let attrs = axis
            .as_ref()
            .map(|a| vec![("axis", Attr::Int(*a))])
            .unwrap_or_default();
        compute(
            c,
            "Concat",
            &inputs,
            output,
            attrs,
            shapes_api::compute_shape_concat,
        )
    })
}

/// `ComputeShapeCast`: the output `output` of a `Cast` of `input` to element type
/// `to` (an ONNX `TensorProto.DataType` code), stored in the context.
#[no_mangle]
pub unsafe extern "C" fn symdim_context_cast(
    context: *mut SymdimContext,
    input: *const c_char,
    output: *const c_char,
    to: i64,
) -> SymdimStatus {
    wrap(|| {
        let c = handle_mut(context, "context")?;
        let input = text(input, "input")?;
        let output = text(output, "output")?;
        let attrs = vec![("to", Attr::Int(to))];
        compute(
            c,
            "Cast",
            &[input],
            output,
            attrs,
            shapes_api::compute_shape_cast,
        )
    })
}

/// `ComputeShapeReshape`: the output `output` of a `Reshape` of `data` to the
/// shape held as the value-as-shape of `shape` (`symdim_context_set_value`), with
/// attribute `allowzero` (0: a 0 copies the input dim; 1: a literal 0), stored in
/// the context.
#[no_mangle]
pub unsafe extern "C" fn symdim_context_reshape(
    context: *mut SymdimContext,
    data: *const c_char,
    shape: *const c_char,
    output: *const c_char,
    allowzero: i64,
) -> SymdimStatus {
    wrap(|| {
        let c = handle_mut(context, "context")?;
        let (data, shape) = (text(data, "data")?, text(shape, "shape")?);
        let output = text(output, "output")?;
        let attrs = if allowzero != 0 {
            vec![("allowzero", Attr::Int(allowzero))]
        } else {
            Vec::new()
        };
        compute(
            c,
            "Reshape",
            &[data, shape],
            output,
            attrs,
            shapes_api::compute_shape_reshape,
        )
    })
}

/// Tensor `name` of the context, as a new tensor handle; `SYMDIM_ERROR_NOT_FOUND`
/// when the context does not hold it.
#[no_mangle]
pub unsafe extern "C" fn symdim_context_tensor(
    context: *const SymdimContext,
    name: *const c_char,
    tensor: *mut *mut SymdimTensor,
) -> SymdimStatus {
    wrap(|| {
        let c = handle(context, "context")?;
        let name = text(name, "name")?;
        let dst = out(tensor, "tensor")?;
        let shape = symdim::shapes::context_tensor(&c.ctx, name)
            .ok_or_else(|| not_found(format!("no tensor {name} in the context")))?;
        *dst = boxed(SymdimTensor {
            name: name.to_string(),
            shape,
        });
        Ok(())
    })
}

/// The diagnostics the operations recorded (warnings such as a volume that could not
/// be proven equal), one a line, as a new string (empty when there are none).
#[no_mangle]
pub unsafe extern "C" fn symdim_context_diagnostics(
    context: *const SymdimContext,
    diagnostics: *mut *mut c_char,
) -> SymdimStatus {
    wrap(|| {
        let c = handle(context, "context")?;
        let dst = out(diagnostics, "diagnostics")?;
        let text: String = c.ctx.diagnostics.iter().map(|d| format!("{d}\n")).collect();
        give_string(text.as_bytes(), dst, std::ptr::null_mut())
    })
}
