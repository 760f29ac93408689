"""Theano's ``Elemwise(scalar_op)``: a tensor op applying a scalar op elementwise.

``T.Elemwise(scalar_op, inplace_pattern=None, name=None)`` (the ``Elemwise`` base class
called with a scalar op) makes a :class:`ScalarElemwise`, as Theano's extensions build
theirs (PyMC3's ``gammaln = tt.Elemwise(GammaLn(upgrade_to_float), name='gammaln')``):

- inputs broadcast as every elementwise op's; the output dtypes are the scalar op's
  ``output_types`` of the inputs' scalar types (its ``output_types_preference``);
- ``perform`` (test values, the NumPy reference) is the scalar op's function on arrays
  when it has one (``array_impl``: Theano's ``nfunc_spec``, or the row of an op symnb
  knows), computed in the output dtype as the lowering computes, else its ``impl``
  called per element (``np.frompyfunc``, as Theano's ``Elemwise.perform``);
- the gradient is the scalar op's ``L_op``/``grad`` called with the node's tensors
  standing in for its scalars (each expression then broadcasts as the node did, and is
  summed back to its input's shape);
- the lowering (``lower_xla/rules/scalar_elemwise.py``) is a JAX function when symnb
  knows one for the scalar op's class or its ``nfunc_spec``, else the host callback of
  ops written in Python.

The op is equal by its scalar op (Theano's ``__props__``); the fusion rewrite leaves it
as it is. ``inplace_pattern`` is accepted and ignored: XLA decides what buffers to reuse.
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from typing import Any, Callable, Sequence

import numpy as np

from symnb.core.gradient_types import is_null
from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.errors import build_error
from symnb.core.graph.type import TensorType, is_float
from symnb.core.tensor.alloc import zeros_like
from symnb.core.tensor.basic import as_tensor_args, as_tensor_variable
from symnb.core.tensor.broadcast import sum_to_shape
from symnb.core.tensor.elemwise import Elemwise, broadcasting, install_scalar_elemwise
from symnb.core.tensor.scalar_types import get_scalar_type

__all__ = ["ScalarElemwise", "resolve_nfunc"]


class ScalarElemwise(Elemwise):
    """A scalar op applied elementwise (see the module)."""

    __props__ = ("scalar_op",)
    #: Set by ``__init__``; this plain class attribute hides the base class's row lookup.
    scalar_op: Any = None
    fusable = False  # not made from a row: the fusion rewrite's Composite reads rows

    #: The name given (Theano's ``Elemwise(scalar_op, name=...)``), not the rows' property.
    name: str | None = None

    def __init__(self, scalar_op: Any, inplace_pattern: dict | None = None, name: str | None = None,
                 nfunc_spec: tuple | None = None, openmp: Any = None) -> None:
        missing = [m for m in ("impl", "output_types", "nout") if not hasattr(scalar_op, m)]
        if missing:
            raise TypeError(f"Elemwise takes a scalar op (a symnb.scalar.ScalarOp), got "
                            f"{scalar_op!r}, which lacks {', '.join(missing)}")
        self.scalar_op = scalar_op
        self.name = name
        # Theano's: given here, or the scalar op's (what ``perform`` computes with).
        self.nfunc_spec = nfunc_spec if nfunc_spec is not None else getattr(scalar_op, "nfunc_spec", None)
        self.inplace_pattern = dict(inplace_pattern or {})

    @property
    def nin(self) -> int:  # type: ignore[override]
        return self.scalar_op.nin

    @property
    def scalar_name(self) -> str:  # type: ignore[override]
        return str(self.scalar_op)

    def display_name(self) -> str:
        # Theano's: the name given, else Elemwise{<the scalar op>}.
        return self.name if self.name else f"Elemwise{{{self.scalar_op}}}"

    def public_name(self) -> str:
        if self.name and self.name == f"Elemwise{{{self.scalar_op},no_inplace}}":
            return str(self.scalar_op)  # Theano's display name of T.erfc: the user wrote erfc
        return self.name or str(self.scalar_op)

    def make_node(self, *inputs: Any) -> Apply:
        inputs = as_tensor_args(*inputs)
        nin = self.scalar_op.nin
        if nin >= 0 and len(inputs) != nin:
            raise build_error(f"{self.display_name()} takes {nin} input(s), got {len(inputs)}",
                              TypeError, op=self, inputs=inputs)
        shape = self.output_shape(inputs)
        dtypes = self._output_dtypes(inputs)
        return Apply(self, inputs, [TensorType(dtype, shape) for dtype in dtypes])

    def _output_dtypes(self, inputs: Sequence[Variable]) -> list[str]:
        """The scalar op's output types for the inputs' dtypes, as dtypes."""
        types = [get_scalar_type(v.dtype) for v in inputs]
        try:
            out_types = self.scalar_op.output_types(types)
        except (TypeError, NotImplementedError) as err:
            raise build_error(f"{self.display_name()}: no output type for inputs of dtypes "
                              f"{', '.join(t.dtype for t in types)}: {err}", TypeError,
                              op=self, inputs=inputs) from None
        if len(out_types) != self.scalar_op.nout:
            raise build_error(f"{self.display_name()}: the output types {list(out_types)} are "
                              f"not {self.scalar_op.nout} (its nout)", TypeError, op=self, inputs=inputs)
        return [str(np.dtype(t.dtype)) for t in out_types]

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        fn = self.array_function(len(inputs))
        nout = len(node.outputs)
        if fn is not None:
            # Converted first, as the lowering does (JAX's promotion is not NumPy's).
            dtype = (self.computes_in(node) or node.outputs[0].type.dtype) if nout == 1 else None
            inputs = [np.asarray(a, dtype=dtype) for a in inputs] if dtype is not None else inputs
            result = broadcasting(fn, inputs)
        else:  # impl per element, as Theano's Elemwise.perform
            result = broadcasting(np.frompyfunc(self.scalar_op.impl, len(inputs), nout), inputs)
        results = tuple(result) if nout > 1 else (result,)
        return [np.asarray(value, dtype=var.type.numpy_dtype) for value, var in zip(results, node.outputs)]

    def array_function(self, nin: int) -> Callable[..., Any] | None:
        """The function computing the op on arrays of ``nin`` inputs: the scalar op's
        ``array_impl`` (an op symnb knows), else the function ``nfunc_spec`` names; None
        when there is none (``impl`` is then called per element)."""
        array_impl = getattr(self.scalar_op, "array_impl", None)
        fn = array_impl(nin) if array_impl is not None else None
        return fn if fn is not None else resolve_nfunc(self.nfunc_spec, nin)

    def perform_into(self, node: Apply, inputs: Sequence[np.ndarray], out: np.ndarray) -> None:
        return None  # its function is the scalar op's, not a ufunc of a row

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        (shape,) = super().infer_shape(node, input_shapes)
        return [shape] * len(node.outputs)

    def L_op(self, inputs, outputs, output_grads):
        if not any(is_float(v.dtype) for v in outputs):
            return [None] * len(inputs)
        # Theano's scalar grads read no missing output gradient: zeros stand for them.
        output_grads = [g if g is not None else zeros_like(out) for g, out in zip(output_grads, outputs)]
        grads = self.scalar_op.L_op(list(inputs), list(outputs), output_grads)
        if len(grads) != len(inputs):
            raise ValueError(f"{self.scalar_op}'s grad returned {len(grads)} gradients for "
                             f"{len(inputs)} inputs")
        # A null gradient (grad_not_implemented, grad_undefined) stays one: grad raises
        # NullTypeGradError where a cost depends on it.
        return [None if g is None or not is_float(x.dtype) else g if is_null(g)
                else sum_to_shape(as_tensor_variable(g), x) for g, x in zip(grads, inputs)]


def resolve_nfunc(nfunc_spec: tuple | None, nin: int) -> Callable[..., Any] | None:
    """The function Theano's ``nfunc_spec = (name, nin, nout)`` names (``'exp'``: NumPy's,
    ``'scipy.special.i0e'``: imported), when it takes ``nin`` inputs; else None."""
    if not nfunc_spec or nfunc_spec[1] != nin:
        return None
    return _imported(nfunc_spec[0])


@lru_cache(maxsize=None)
def _imported(name: str) -> Callable[..., Any]:
    # The longest prefix that is a module, then attributes: 'scipy.stats.chi2.sf' is the
    # method ``sf`` of the object ``chi2`` of the module ``scipy.stats``.
    parts = name.split(".")
    if len(parts) == 1:
        parts = ["numpy"] + parts
    error: Exception | None = None
    for cut in range(len(parts) - 1, 0, -1):
        try:
            found: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError as err:
            error = error or err
            continue
        try:
            for attribute in parts[cut:]:
                found = getattr(found, attribute)
        except AttributeError as err:
            error = err
            break
        return found
    raise ImportError(f"nfunc_spec names {name!r}, which cannot be imported: {error}") from None


install_scalar_elemwise(ScalarElemwise)
