"""symdim: tensor shape inference as symbolic algebra.

symdim reads a model (ONNX, OpenVINO IR, oneDNN Graph JSON) and gives every tensor a
shape that is an expression of the model's input dims: ``[batch, sequence*12, 64]``,
not "unknown".

>>> import symdim
>>> report = symdim.infer("examples/attention.onnx")          # doctest: +SKIP
>>> report.tensors["y"].shape                                  # doctest: +SKIP
[Dim('batch'), Dim('sequence'), 64]
>>> report.tensors["y"].shape[1].eval(sequence=10)             # doctest: +SKIP
10

Functions: :func:`infer` (a :class:`Report`), :func:`infer_shapes` (the model with
every shape in ``value_info``, like ``onnx.shape_inference.infer_shapes``),
:func:`constraints`, :func:`check`, :func:`explain`, :func:`ranges`, :func:`cost`,
:func:`diff` and :func:`simplify` (the CLI's commands), and :class:`SymbolicShapeInference`, a drop-in
for onnxruntime's class of that name. The GIL is released while a model is read and inferred, so calls from
several threads run in parallel.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Iterable, Mapping, Optional, Tuple, Union

from symdim._native import (
    Condition,
    Contract,
    Diagnostic,
    Dim,
    EvalError,
    ExprError,
    Failure,
    InternalError,
    ModelError,
    OpRulesError,
    Ranges,
    Report,
    Symbol,
    SymbolRange,
    Tensor,
    UndecidedError,
    Verdict,
    __version__,
    check,
    constraints,
    cost,
    diff,
    explain,
    infer,
    ranges,
)
from symdim import _native
from symdim._native import annotate as _annotate

if TYPE_CHECKING:  # pragma: no cover
    import onnx

    ModelLike = Union["onnx.ModelProto", bytes, bytearray, memoryview, str, "os.PathLike[str]"]
    Bind = Union[Mapping[str, int], Iterable[Tuple[str, int]]]
    Assume = Union[str, Iterable[str]]
    OpRulesLike = Union[str, "os.PathLike[str]", Iterable[Union[str, "os.PathLike[str]"]]]


def infer_shapes(
    model: ModelLike,
    *,
    bind: Optional[Bind] = None,
    assume: Optional[Assume] = None,
    op_rules: Optional[OpRulesLike] = None,
) -> Union["onnx.ModelProto", bytes]:
    """The model with every inferred shape in ``value_info``.

    Like ``onnx.shape_inference.infer_shapes``: ``model`` is an ``onnx.ModelProto``,
    the serialized bytes of one, or a path. The result is a new ``ModelProto`` in
    which every node output of the main graph has a ``value_info`` entry (graph
    outputs get their type filled in instead), symbolic dims written as
    ``dim_param`` strings in symdim's expression grammar (``"2*sequence"``,
    ``"floordiv(H - 1, 2) + 1"``). Everything else (nodes, initializers, metadata,
    functions, opset imports) is kept byte for byte; ``value_info`` entries the input
    had are replaced.

    ``onnx`` is an optional dependency: without it the result is the serialized
    model (``bytes``).

    ``bind`` maps symbols to values (``{"batch": 4}``) and ``assume`` adds facts
    (``"sequence % 8 == 0"``), as ``symdim infer --bind/--assume`` do; ``op_rules``
    declares shape rules for custom ops (a rules file's path, the rules' text, or a
    list of those), as ``--op-rules`` does. Raises :class:`ModelError` when the model
    cannot be read, or is not an ONNX model, and :class:`OpRulesError` when the rules
    cannot be read. A model with error diagnostics is still annotated: :func:`infer`
    gives them.
    """
    if hasattr(model, "SerializeToString") and hasattr(model, "CopyFrom"):
        return _annotate_proto(model, bind, assume, op_rules)[0]
    data = _annotate(model, bind=bind, assume=assume, op_rules=op_rules)[0]
    try:
        import onnx
    except ImportError:
        return data
    return onnx.ModelProto.FromString(data)


def _skeleton(model) -> bytes:
    """The serialized skeleton the extension writes a ``ModelProto``'s shapes into:
    only the graph's outputs and value_info."""
    skeleton = type(model)()
    skeleton.graph.SetInParent()
    skeleton.graph.output.extend(model.graph.output)
    # Declared value_info is kept (rewritten where inference knows more), as the CLI's
    # `-o` does: the skeleton carries it through the same writer.
    skeleton.graph.value_info.extend(model.graph.value_info)
    return skeleton.SerializeToString()


def _annotate_proto(model, bind, assume, op_rules=None):
    """``infer_shapes`` of a ``ModelProto``, with the node outputs left without a shape
    and the diagnostics.

    The extension infers the serialized model (without the GIL) and writes the shapes
    into a skeleton holding only the graph's outputs and value_info; the skeleton's
    graph is then merged into a copy of the model (initializers and all) whose
    ``output`` and ``value_info`` are cleared. Same result as parsing the whole
    annotated model, without serializing and parsing the initializers twice more.
    """
    graph, incomplete, diagnostics = _native.annotate(
        model.SerializeToString(),
        bind=bind,
        assume=assume,
        op_rules=op_rules,
        skeleton=_skeleton(model),
    )
    out = type(model)()
    out.CopyFrom(model)
    out.graph.ClearField("output")
    out.graph.ClearField("value_info")
    out.graph.MergeFromString(graph)
    return out, incomplete, diagnostics


def simplify(expr: str, assume: Assume = ()) -> str:
    """The canonical form of an expression of the grammar under the facts of
    ``assume`` (a fact or a list of facts): what ``symdim simplify`` prints.

    >>> simplify("B*S*768 / (B*12*64)")                     # doctest: +SKIP
    'S'

    Raises :class:`ExprError` when the expression or a fact does not parse.
    """
    return _native.simplify(expr, assume)


from symdim._ort import (  # noqa: E402  (needs infer_shapes above)
    IncompleteInferenceError,
    SymbolicShapeInference,
    SymbolicShapeInferenceHelper,
)

__all__ = [
    "Condition",
    "Contract",
    "Diagnostic",
    "Dim",
    "EvalError",
    "ExprError",
    "Failure",
    "IncompleteInferenceError",
    "InternalError",
    "ModelError",
    "OpRulesError",
    "Ranges",
    "Report",
    "Symbol",
    "SymbolicShapeInference",
    "SymbolRange",
    "SymbolicShapeInferenceHelper",
    "Tensor",
    "UndecidedError",
    "Verdict",
    "__version__",
    "check",
    "constraints",
    "cost",
    "diff",
    "explain",
    "infer",
    "infer_shapes",
    "ranges",
    "simplify",
]
