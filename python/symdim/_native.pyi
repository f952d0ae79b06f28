"""Type stubs of symdim's extension module (python/src/lib.rs). The package
``symdim`` re-exports every public name."""

import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple, Union

import onnx

__version__: str

ModelLike = Union[onnx.ModelProto, bytes, bytearray, memoryview, str, "os.PathLike[str]"]
Bind = Union[Mapping[str, int], Iterable[Tuple[str, int]]]
Assume = Union[str, Iterable[str]]
OpRulesLike = Union[str, "os.PathLike[str]", Iterable[Union[str, "os.PathLike[str]"]]]
DimLike = Union[int, "Dim"]

class ModelError(ValueError):
    """The model could not be read: no report is possible. The message is the one the
    ``symdim`` command prints (after ``symdim: ``)."""

class ExprError(ValueError):
    """An expression or fact does not parse in the grammar, or the algebra rejects it."""

class OpRulesError(ValueError):
    """The declared shape rules (``op_rules=``) cannot be used: the file cannot be read,
    or a line is wrong. The message names the file (or ``<text>``), the line and the
    problem, as ``symdim --op-rules`` prints it."""

class EvalError(ValueError):
    """A dim has no integer value at the given symbol values."""

class UndecidedError(TypeError):
    """The algebra can neither prove nor refute an order comparison of dims."""

class InternalError(RuntimeError):
    """symdim failed inside (a bug): the message says where."""

class Dim:
    """A dim: an expression of symbols in canonical form, printed in symdim's expression
    grammar (``S*12``, ``floordiv(H - 1, 4) + 1``).

    ``==`` compares canonical forms after simplification by the algebra (so
    ``Dim("S*12/12") == Dim("S")``), and equal dims hash alike (a constant dim as its
    int). ``<``, ``<=``, ``>``, ``>=`` are proven from the symbols' bounds (every name
    at least 1) and raise :class:`UndecidedError` when the algebra proves neither
    answer. ``+``, ``-``, ``*`` and ``//`` with ints and dims give an ``int`` when the
    result is constant.
    """

    def __init__(self, expr: str) -> None:
        """Parse an expression of the grammar and simplify it (raises :class:`ExprError`)."""
    @property
    def symbols(self) -> List[str]:
        """The symbols the dim mentions, in order of first appearance."""
    def eval(self, values: Optional[Mapping[str, int]] = None, /, **kwargs: int) -> int:
        """The value at the given symbol values: ``Dim("2*S + 1").eval(S=3) == 7``.

        Raises :class:`EvalError` when a symbol has no value or the result is not an
        integer, ``ValueError`` for a value that is negative or above ``2**63 - 1``
        (dim values are 0 to ``2**63 - 1``) and ``TypeError`` for one that is not an
        int."""
    def subs(self, values: Optional[Mapping[str, int]] = None, /, **kwargs: int) -> DimLike:
        """The dim with some symbols replaced by values; an ``int`` when none is left."""
    def __eq__(self, other: object) -> bool: ...
    def __ne__(self, other: object) -> bool: ...
    def __lt__(self, other: DimLike) -> bool: ...
    def __le__(self, other: DimLike) -> bool: ...
    def __gt__(self, other: DimLike) -> bool: ...
    def __ge__(self, other: DimLike) -> bool: ...
    def __hash__(self) -> int: ...
    def __add__(self, other: DimLike) -> DimLike: ...
    def __radd__(self, other: DimLike) -> DimLike: ...
    def __sub__(self, other: DimLike) -> DimLike: ...
    def __rsub__(self, other: DimLike) -> DimLike: ...
    def __mul__(self, other: DimLike) -> DimLike: ...
    def __rmul__(self, other: DimLike) -> DimLike: ...
    def __floordiv__(self, other: DimLike) -> DimLike: ...
    def __rfloordiv__(self, other: DimLike) -> DimLike: ...
    def __neg__(self) -> DimLike: ...

class Tensor:
    """One tensor of a report: element type and shape."""

    @property
    def name(self) -> str:
        """The tensor's name."""
    @property
    def dtype(self) -> Optional[str]:
        """The element type as the report names it (``f32``, ``i64``, ...), or ``None``."""
    @property
    def elem_type(self) -> Optional[int]:
        """The element type as an ONNX ``TensorProto.DataType`` number, or ``None``."""
    @property
    def shape(self) -> Optional[List[DimLike]]:
        """The dims (each an ``int`` or a :class:`Dim`), or ``None`` when the rank is unknown."""
    @property
    def rank(self) -> Optional[int]:
        """The rank, or ``None`` when unknown."""
    @property
    def value(self) -> Optional[List[DimLike]]:
        """The contents, row-major, when known (small integer tensors such as the output
        of ``Shape``), else ``None``."""

class Symbol:
    """A symbol of a report."""

    @property
    def name(self) -> str:
        """The symbol's name."""
    @property
    def kind(self) -> str:
        """``input``, ``derived`` (introduced with a definition) or ``data-dependent``."""
    @property
    def definition(self) -> Optional[DimLike]:
        """A derived symbol's definition, else ``None``."""
    @property
    def node(self) -> Optional[str]:
        """The node that introduced a data-dependent symbol, else ``None``."""
    @property
    def constraints(self) -> List[str]:
        """The conditions of the model's contract that mention the symbol."""

class Diagnostic:
    """A diagnostic of a report."""

    @property
    def severity(self) -> str:
        """``error`` or ``warning``."""
    @property
    def node(self) -> str:
        """The node's name (empty for a model-level message)."""
    @property
    def op(self) -> str:
        """The node's op type (empty for a model-level message)."""
    @property
    def message(self) -> str:
        """The message."""

class Report:
    """What inference found for one model: the report ``symdim infer`` prints, with every
    dim as an ``int`` or a :class:`Dim`."""

    @property
    def path(self) -> str:
        """The model's path as given (``<memory>`` for bytes and ``ModelProto``\\ s)."""
    @property
    def format(self) -> str:
        """``onnx``, ``openvino`` or ``onednn``."""
    @property
    def opsets(self) -> Dict[str, int]:
        """The opset version of each domain (``""`` is the default ONNX domain)."""
    @property
    def tensors(self) -> Dict[str, Tensor]:
        """Every graph input and node output, in graph order."""
    @property
    def symbols(self) -> Dict[str, Symbol]:
        """Every symbol the report's dims mention, in creation order."""
    @property
    def outputs(self) -> List[str]:
        """The graph's output names."""
    @property
    def diagnostics(self) -> List[Diagnostic]:
        """The diagnostics, in the order they were found."""
    @property
    def has_errors(self) -> bool:
        """True when some diagnostic is an error (the command's exit status 1)."""
    def to_json(self) -> str:
        """The JSON report: what ``symdim infer --format json`` prints."""
    def to_text(self) -> str:
        """The text report: what ``symdim infer`` prints."""
    def __getitem__(self, name: str) -> Tensor: ...
    def __contains__(self, name: str) -> bool: ...
    def __len__(self) -> int: ...

class Condition:
    """One condition of a model's contract."""

    @property
    def kind(self) -> str:
        """``equal``, ``divides``, ``range``, ``inequality``, ``either``, ``undecidable``
        or ``impossible``."""
    @property
    def condition(self) -> str:
        """The condition as a fact of the grammar (what ``assume`` accepts)."""
    @property
    def symbols(self) -> List[str]:
        """The symbols it involves."""
    @property
    def nodes(self) -> List[str]:
        """The nodes it comes from, in graph order."""
    @property
    def sources(self) -> List[str]:
        """Where it comes from (``relation``, ``reshape``, ``broadcast``, ``gather``, ...)."""
    @property
    def note(self) -> Optional[str]:
        """Why it is undecidable or impossible, when it is."""

class Contract:
    """What a model demands of its input dims: what ``symdim constraints`` prints."""

    @property
    def model(self) -> str:
        """The model's path as given."""
    @property
    def inputs(self) -> List[str]:
        """The input symbols, in creation order."""
    @property
    def facts(self) -> List[str]:
        """The facts given (``bind``, ``assume``)."""
    @property
    def conditions(self) -> List[Condition]:
        """The conditions, equalities first."""
    @property
    def redundant(self) -> List[Condition]:
        """Conditions dropped because the others (or the facts) imply them."""
    @property
    def is_impossible(self) -> bool:
        """True when some condition can never hold."""
    def to_json(self) -> str:
        """What ``symdim constraints --format json`` prints."""
    def to_text(self) -> str:
        """What ``symdim constraints`` prints."""

class Failure:
    """Why a model fails at one node, in a :class:`Verdict`."""

    @property
    def node(self) -> str:
        """The node (empty for a model-level failure)."""
    @property
    def op(self) -> str:
        """Its op type, when known."""
    @property
    def reason(self) -> str:
        """The condition that does not hold, or the error message."""

class Verdict:
    """Whether a model is valid for given values: what ``symdim check`` prints."""

    @property
    def model(self) -> str:
        """The model's path as given."""
    @property
    def facts(self) -> List[str]:
        """The values and facts checked (``N == 4``)."""
    @property
    def status(self) -> str:
        """``valid``, ``invalid`` or ``undecided``."""
    @property
    def valid(self) -> bool:
        """True when the status is ``valid``."""
    @property
    def failures(self) -> List[Failure]:
        """What fails."""
    @property
    def open(self) -> List[Condition]:
        """Conditions the values neither prove nor refute."""
    @property
    def caveats(self) -> List[Condition]:
        """Conditions no dim value decides."""
    @property
    def exit_code(self) -> int:
        """The command's exit status: 0 valid, 1 invalid, 3 undecided."""
    def to_json(self) -> str:
        """What ``symdim check --format json`` prints."""
    def to_text(self) -> str:
        """What ``symdim check`` prints."""

class SymbolRange:
    """One input symbol of a :class:`Ranges`: its valid interval and its profile."""

    @property
    def name(self) -> str:
        """The symbol."""
    @property
    def linked(self) -> List[str]:
        """The symbols the contract makes equal to it: they share its range."""
    @property
    def lo(self) -> int:
        """The least value of its interval."""
    @property
    def hi(self) -> Optional[int]:
        """The greatest value of its interval; ``None``: no upper bound."""
    @property
    def min(self) -> Optional[int]:
        """The profile's least valid value (``None`` when none is valid)."""
    @property
    def opt(self) -> Optional[int]:
        """The profile's opt value."""
    @property
    def max(self) -> Optional[int]:
        """The profile's greatest valid value; ``None`` without an upper bound."""
    @property
    def max_from(self) -> Optional[str]:
        """Where ``max`` comes from: ``contract``, ``range``, ``fact`` or ``relation``."""

Shape = Optional[List[int]]

class Ranges:
    """The valid ranges of a model's input symbols and a min/opt/max profile: what
    ``symdim ranges`` prints, in each of its formats."""

    @property
    def model(self) -> str:
        """The model's path as given."""
    @property
    def facts(self) -> List[str]:
        """The caller's facts and ranges (``S == 4``, ``S in 1..512``)."""
    @property
    def symbols(self) -> Dict[str, SymbolRange]:
        """Every input symbol (the first of each linked set), in creation order."""
    @property
    def inputs(self) -> Dict[str, Tuple[Shape, Shape, Shape]]:
        """Per graph input, in graph order, its ``(min, opt, max)`` shapes."""
    @property
    def problems(self) -> List[str]:
        """What keeps the profile from being pasted."""
    @property
    def activations_max_bytes(self) -> Optional[int]:
        """An upper bound of the sum of every tensor's size in bytes over the box."""
    def text(self) -> str:
        """What ``symdim ranges`` prints."""
    def json(self) -> str:
        """What ``symdim ranges --format json`` prints."""
    def to_text(self) -> str:
        """The same as :meth:`text`."""
    def to_json(self) -> str:
        """The same as :meth:`json`."""
    def trtexec(self) -> str:
        """What ``symdim ranges --format trtexec`` prints; ``ValueError`` with its
        reasons (one a line) where it exits 2."""
    def ort_trt(self) -> str:
        """What ``symdim ranges --format ort-trt`` prints; ``ValueError`` where it
        exits 2."""
    def openvino(self) -> str:
        """What ``symdim ranges --format openvino`` prints; ``ValueError`` where it
        exits 2."""

def infer(
    model: ModelLike,
    *,
    bind: Optional[Bind] = None,
    assume: Optional[Assume] = None,
    op_rules: Optional[OpRulesLike] = None,
) -> Report:
    """Infer every tensor's shape: the report ``symdim infer`` prints.

    ``model`` is an ``onnx.ModelProto``, the bytes of a model, or a path (ONNX,
    OpenVINO IR ``.xml`` or oneDNN Graph ``.json``). ``bind`` maps symbols to values;
    ``assume`` is a fact or a list of facts; ``op_rules`` declares shape rules for
    custom ops (``docs/op-rules.md``): the path of a rules file, the rules' text (a
    ``str`` holding a newline), or a list of those, as ``symdim --op-rules`` reads
    them. Raises :class:`ModelError` when the model cannot be read and
    :class:`OpRulesError` when the rules cannot; a model with errors still gives its
    report."""

def annotate(
    model: ModelLike,
    *,
    bind: Optional[Bind] = None,
    assume: Optional[Assume] = None,
    op_rules: Optional[OpRulesLike] = None,
    skeleton: Optional[bytes] = None,
) -> Tuple[bytes, List[str], List[Diagnostic]]:
    """The ONNX model with every inferred shape in ``value_info``, as bytes (what
    ``symdim infer -o`` writes), the node outputs left without a shape or element type,
    and the diagnostics. With ``skeleton`` (a serialized ``ModelProto`` holding only the
    graph's outputs) the bytes are the graph fields to merge into a copy of the model
    whose ``output`` and ``value_info`` are cleared. ``symdim.infer_shapes`` wraps it."""

def constraints(
    model: ModelLike,
    *,
    bind: Optional[Bind] = None,
    assume: Optional[Assume] = None,
    op_rules: Optional[OpRulesLike] = None,
) -> Contract:
    """What the model demands of its input dims: what ``symdim constraints`` prints.
    ``op_rules`` as for :func:`infer`."""

def check(
    model: ModelLike,
    bind: Bind,
    *,
    assume: Optional[Assume] = None,
    op_rules: Optional[OpRulesLike] = None,
) -> Verdict:
    """Whether the model is valid for the values of ``bind`` (without running it): what
    ``symdim check`` prints. ``op_rules`` as for :func:`infer`."""

def explain(
    model: ModelLike,
    target: str,
    *,
    bind: Optional[Bind] = None,
    assume: Optional[Assume] = None,
    op_rules: Optional[OpRulesLike] = None,
) -> str:
    """Why a dim equals what the report says: what ``symdim explain`` prints. ``target``
    is ``NAME[AXIS]`` or a tensor name."""

def simplify(expr: str, assume: Optional[Assume] = None) -> str:
    """The canonical form of an expression under the facts of ``assume``: what ``symdim
    simplify`` prints."""

def ranges(
    model: ModelLike,
    *,
    ranges: Optional[Mapping[str, Tuple[Optional[int], Optional[int]]]] = None,
    opt: Optional[Mapping[str, int]] = None,
    bind: Optional[Bind] = None,
    assume: Optional[Assume] = None,
    op_rules: Optional[OpRulesLike] = None,
) -> Ranges:
    """The valid ranges of the model's input symbols and a min/opt/max profile: what
    ``symdim ranges`` prints. ``ranges`` maps input symbols to ``(lo, hi)`` (either
    may be ``None``), as ``--range NAME=LO..HI``; ``opt`` maps input symbols to their
    opt value, as ``--opt NAME=V``. A name that is not an input symbol raises
    ``ValueError`` with the command's message."""

def cost(
    model: ModelLike,
    *,
    bind: Optional[Bind] = None,
    ranges: Optional[Mapping[str, Tuple[Optional[int], Optional[int]]]] = None,
    assume: Optional[Assume] = None,
    op_rules: Optional[OpRulesLike] = None,
) -> Dict[str, Any]:
    """What the model costs: what ``symdim cost --format json`` prints, as a
    ``dict``. ``bind`` gives every formula's value beside it (``*_value``; the
    formulas stay symbolic), ``ranges`` its largest value over the box (``*_max``),
    as ``--range NAME=LO..HI``. A name that is not an input symbol raises
    ``ValueError`` with the command's message."""

def diff(
    old: ModelLike,
    new: ModelLike,
    *,
    bind: Optional[Bind] = None,
    assume: Optional[Assume] = None,
    op_rules: Optional[OpRulesLike] = None,
    cost: bool = False,
) -> Dict[str, Any]:
    """What changed from ``old`` to ``new``, two versions of a model: what
    ``symdim diff --format json`` prints, as a ``dict``: ``verdict`` (``same``,
    ``compatible``, ``breaking``), ``symbols`` (OLD -> NEW), ``inputs``,
    ``outputs``, ``conditions``, ``ranges``, ``tensors_changed``, ``ops``, and
    with ``cost=True`` ``cost`` (else ``None``). ``bind`` and ``assume`` go to each version that declares their
    symbols; one that neither declares raises ``ValueError``."""
