"""Drop-ins for onnxruntime's symbolic shape inference, backed by symdim.

``symdim.SymbolicShapeInference.infer_shapes`` has the signature and return value
of ``onnxruntime.tools.symbolic_shape_infer.SymbolicShapeInference.infer_shapes``, so
a pipeline written against that class works with symdim's after the import is
replaced. ``symdim.SymbolicShapeInferenceHelper`` stands in for
``onnxruntime.transformers.shape_infer_helper.SymbolicShapeInferenceHelper``, which
onnxruntime's transformer optimizer uses.

Where the results differ from onnxruntime's:

- ``auto_merge`` changes nothing. onnxruntime, with it, merges two symbolic dims
  that an op needs equal (``batch`` and ``N``) by keeping one of them, whether or
  not they are equal. symdim never merges unequal dims: it records the relation
  in its algebra (both then print the same) or, when the dims are provably
  different, reports an error diagnostic (see :func:`symdim.infer`), and goes on.
- ``int_max`` and ``guess_output_rank`` change nothing: symdim's Slice bounds are
  exact, and an op without a shape rule leaves its outputs without a shape rather
  than guessing the rank of its first input.
- ``verbose`` only sets whether the diagnostics are logged (at ``verbose >= 1``).
- ``dim_param`` strings are symdim's expressions (``"2*sequence"``,
  ``"floordiv(H - 1, 2) + 1"``), where onnxruntime writes sympy's
  (``"floor(H/2 - 1/2) + 1"``) or a fresh ``unk__N`` name; an unnamed dynamic input
  dim gets symdim's name for it.
- Only the main graph gets ``value_info``; onnxruntime also annotates If, Loop and
  Scan bodies. Any ``value_info`` the input had is replaced.
- When some node output has no shape or element type, onnxruntime raises
  ``Exception("Incomplete symbolic shape inference")`` after writing
  ``sym_shape_infer_temp.onnx`` to the working directory; symdim raises
  :class:`IncompleteInferenceError` (an ``Exception``) and writes no file.
- Models of an opset below 7 give ``None`` with a warning, as onnxruntime's do.
"""

from __future__ import annotations

import logging
from typing import Any, Dict, List, Optional, Union

from symdim import _native

logger = logging.getLogger("symdim")


class IncompleteInferenceError(Exception):
    """Some node output of the model has no inferred shape or element type.

    ``tensors`` names the tensors without one; ``diagnostics`` are the report's
    diagnostics (:class:`symdim.Diagnostic`), which say why.
    """

    def __init__(self, tensors: List[str], diagnostics: List[_native.Diagnostic]):
        shown = ", ".join(tensors[:5]) + (", ..." if len(tensors) > 5 else "")
        super().__init__(
            f"Incomplete symbolic shape inference: {len(tensors)} tensors without a shape "
            f"or element type ({shown})"
        )
        self.tensors = tensors
        self.diagnostics = diagnostics


def _default_opset(model: Any) -> Optional[int]:
    """The model's default-domain opset, as onnxruntime's ``get_opset`` reads it."""
    for opset in model.opset_import:
        if opset.domain in ("", "onnx", "ai.onnx"):
            return int(opset.version)
    return None


def _log_diagnostics(diagnostics: List[_native.Diagnostic], verbose: int) -> None:
    if verbose >= 1:
        for d in diagnostics:
            level = logging.ERROR if d.severity == "error" else logging.WARNING
            logger.log(level, "%s", d)


class SymbolicShapeInference:
    """symdim in place of ``onnxruntime.tools.symbolic_shape_infer.SymbolicShapeInference``.

    The constructor takes onnxruntime's arguments; :meth:`infer_shapes` is the entry
    point pipelines call. See the module documentation for where results differ.
    """

    def __init__(
        self,
        int_max: int = 2**31 - 1,
        auto_merge: bool = False,
        guess_output_rank: bool = False,
        verbose: int = 0,
        prefix: str = "",
    ):
        self.int_max_ = int_max
        self.auto_merge_ = auto_merge
        self.guess_output_rank_ = guess_output_rank
        self.verbose_ = verbose
        self.prefix_ = prefix

    @staticmethod
    def infer_shapes(
        in_mp: Any,
        int_max: int = 2**31 - 1,
        auto_merge: bool = False,
        guess_output_rank: bool = False,
        verbose: int = 0,
    ) -> Any:
        """A new ``onnx.ModelProto``: ``in_mp`` with every inferred shape in
        ``value_info`` and the graph outputs' types filled in.

        Returns ``None`` (with a warning) for a model of an ONNX opset below 7, and
        raises :class:`IncompleteInferenceError` when some node output has no shape
        or element type, as onnxruntime's class does. ``int_max``,
        ``auto_merge`` and ``guess_output_rank`` are accepted and change nothing.
        """
        opset = _default_opset(in_mp)
        if not opset or opset < 7:
            logger.warning("Only support models of onnx opset 7 and above.")
            return None
        from symdim import _annotate_proto

        out, missing, diagnostics = _annotate_proto(in_mp, None, None)
        _log_diagnostics(diagnostics, verbose)
        if missing:
            raise IncompleteInferenceError(missing, diagnostics)
        return out


class SymbolicShapeInferenceHelper(SymbolicShapeInference):
    """symdim in place of onnxruntime's ``SymbolicShapeInferenceHelper``.

    onnxruntime's transformer optimizer (``onnxruntime.transformers``) makes one per
    fusion pass, calls :meth:`infer` with values for some dim names, then reads
    shapes with :meth:`get_edge_shape`, :meth:`compare_shape` and ``known_vi_``.
    """

    def __init__(
        self,
        model: Any,
        verbose: int = 0,
        int_max: int = 2**31 - 1,
        auto_merge: bool = True,
        guess_output_rank: bool = False,
    ):
        super().__init__(int_max, auto_merge, guess_output_rank, verbose)
        self.model_ = model
        self.all_shapes_inferred_: bool = False
        self.is_inferred_: bool = False
        self.dynamic_axis_mapping_: Dict[str, int] = {}
        self.known_vi_: Dict[str, Any] = {}
        self.diagnostics_: List[_native.Diagnostic] = []

    def infer(self, dynamic_axis_mapping: Dict[str, int], max_runs: int = 200) -> bool:
        """Infer the model with the dims named in ``dynamic_axis_mapping`` bound to
        their values (``{"batch_size": 4}``); True when every node output has a shape
        and element type. ``max_runs`` is accepted and changes nothing (symdim runs
        once).
        """
        assert dynamic_axis_mapping is not None
        if self.is_inferred_ and self.dynamic_axis_mapping_ == dynamic_axis_mapping:
            return self.all_shapes_inferred_
        from onnx import helper

        from symdim import _annotate_proto

        self.dynamic_axis_mapping_ = dict(dynamic_axis_mapping)
        bind = {k: int(v) for k, v in self.dynamic_axis_mapping_.items()}
        out, missing, diagnostics = _annotate_proto(self.model_, bind, None)
        _log_diagnostics(diagnostics, self.verbose_)
        graph = out.graph
        known: Dict[str, Any] = {i.name: i for i in graph.input}
        known.update(
            {
                i.name: helper.make_tensor_value_info(i.name, i.data_type, list(i.dims))
                for i in graph.initializer
            }
        )
        known.update({vi.name: vi for vi in graph.value_info})
        known.update({vi.name: vi for vi in graph.output})
        self.known_vi_ = known
        self.diagnostics_ = diagnostics
        self.all_shapes_inferred_ = not missing
        self.is_inferred_ = True
        return self.all_shapes_inferred_

    def get_edge_shape(self, edge: str) -> Optional[List[Union[int, str, None]]]:
        """The shape of tensor ``edge``: ints, ``dim_param`` strings (those named in
        the mapping given to :meth:`infer` replaced by their values) and ``None`` for
        unknown dims; ``None`` when the tensor has no shape.
        """
        assert self.all_shapes_inferred_
        if edge not in self.known_vi_:
            print("Cannot retrieve the shape of " + str(edge))
            return None
        tensor_type = self.known_vi_[edge].type.tensor_type
        if not tensor_type.HasField("shape"):
            return None
        shape: List[Union[int, str, None]] = []
        for d in tensor_type.shape.dim:
            if d.HasField("dim_value"):
                shape.append(d.dim_value)
            elif d.HasField("dim_param"):
                shape.append(self.dynamic_axis_mapping_.get(d.dim_param, d.dim_param))
            else:
                shape.append(None)
        return shape

    def compare_shape(self, edge: str, edge_other: str) -> bool:
        """Whether two tensors have the same shape; raises when either has none."""
        assert self.all_shapes_inferred_
        shape = self.get_edge_shape(edge)
        shape_other = self.get_edge_shape(edge_other)
        if shape is None or shape_other is None:
            raise Exception("At least one shape is missed for edges to compare")
        return shape == shape_other
