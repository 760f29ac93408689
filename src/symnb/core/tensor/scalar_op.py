"""Theano's scalar ops (``theano.scalar.ScalarOp``, ``UnaryScalarOp``, ``BinaryScalarOp``):
the extension point for elementwise functions, as Theano's extensions write them.

    class GammaLn(UnaryScalarOp):
        nfunc_spec = ('scipy.special.gammaln', 1, 1)
        def impl(self, x):
            return scipy.special.gammaln(x)
        def grad(self, inputs, grads):
            (x,), (gz,) = inputs, grads
            return [gz * psi(x)]

    gammaln = T.Elemwise(GammaLn(upgrade_to_float, name='gammaln'))

A scalar op is never a node of its own: ``T.Elemwise(op)`` (or calling the op on
tensors) makes the elementwise op of :mod:`symnb.core.tensor.scalar_elemwise`, whose
node computes it with ``impl`` (or the ``nfunc_spec`` function) and differentiates it
with ``grad``, called with tensors standing in for the scalars: so a grad written with
scalar ops (``psi(x)``, ``sgn(x)``) or arithmetic builds tensor graphs.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from symnb.core.graph.basic import Apply, Variable
from symnb.core.tensor.scalar_elemwise import ScalarElemwise

__all__ = ["ScalarOp", "UnaryScalarOp", "BinaryScalarOp"]


class ScalarOp:
    """A function of scalars (Theano's ``ScalarOp``): ``impl`` computes it, ``grad`` (or
    ``L_op``) differentiates it, ``output_types_preference`` (or an ``output_types``
    method) types its outputs. Equal by class, preference and ``__props__``."""

    #: The number of inputs (-1: any number) and outputs.
    nin = -1
    nout = 1
    #: Theano's ``(function name, nin, nout)``: a NumPy (``'exp'``) or importable
    #: (``'scipy.special.i0e'``) function computing the op on whole arrays; what
    #: ``perform`` calls, and, when JAX has a function of that name, what compiled
    #: programs call.
    nfunc_spec: tuple | None = None
    __props__: tuple[str, ...] = ()
    #: The op's name (None: made from its class); a class level default, since a subclass's
    #: ``__init__`` need not call this one's (Theano's tests define such ops).
    name: str | None = None

    def __init__(self, output_types_preference: Callable[..., Any] | None = None,
                 name: str | None = None) -> None:
        self.name = name
        if output_types_preference is not None:
            if not callable(output_types_preference):
                raise TypeError(f"Expected a callable for the 'output_types_preference' argument "
                                f"to {type(self).__name__} (got: {output_types_preference!r})")
            self.output_types_preference = output_types_preference

    # -- types ----------------------------------------------------------------------------
    def output_types(self, types: Sequence[Any]) -> Sequence[Any]:
        """The output types (``Scalar`` objects) for input types ``types``."""
        preference = getattr(self, "output_types_preference", None)
        if preference is None:
            raise NotImplementedError(f"Cannot calculate the output types for {self} (give it "
                                      f"an output_types_preference, e.g. upgrade_to_float)")
        found = preference(*types)
        if not isinstance(found, (list, tuple)) or not all(hasattr(t, "dtype") for t in found):
            raise TypeError(f"output_types_preference {preference} should return a list or a "
                            f"tuple of types, got {found!r}")
        return found

    # -- values ---------------------------------------------------------------------------
    def impl(self, *inputs: Any) -> Any:
        """The op on scalar values (NumPy or Python scalars)."""
        raise NotImplementedError(f"{type(self).__name__} does not define impl")

    def array_impl(self, nin: int) -> Callable[..., Any] | None:
        """A function computing the op on whole arrays of ``nin`` inputs other than
        ``nfunc_spec``'s (symnb's own scalar ops have one); None by default."""
        return None

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        """Theano's ``perform`` on scalars: ``impl``'s values into ``output_storage``."""
        outputs = self.impl(*inputs)
        for cell, value in zip(output_storage, outputs if self.nout > 1 else (outputs,)):
            cell[0] = value

    # -- gradient -------------------------------------------------------------------------
    def grad(self, inputs: Sequence[Variable], output_gradients: Sequence[Variable]) -> list:
        raise NotImplementedError(f"{self} has no gradient (define grad or L_op on "
                                  f"{type(self).__name__})")

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_gradients: Sequence[Variable]) -> list:
        return self.grad(inputs, output_gradients)

    # -- building -------------------------------------------------------------------------
    def make_node(self, *inputs: Any) -> Apply:
        """The elementwise node of this op over ``inputs`` (tensors: symnb's scalars are
        0-d tensors)."""
        return ScalarElemwise(self).make_node(*inputs)

    def __call__(self, *inputs: Any, name: str | None = None, return_list: bool = False) -> Any:
        """This op applied elementwise to ``inputs`` (``T.Elemwise(op)(*inputs)``)."""
        outputs = ScalarElemwise(self)(*inputs, name=name)
        if return_list and not isinstance(outputs, list):
            return [outputs]
        return outputs

    # -- identity -------------------------------------------------------------------------
    def _key(self) -> tuple:
        preference = getattr(self, "output_types_preference", None)
        # symnb.scalar's functions are entry points wrapping the core's: the same rule.
        preference = getattr(preference, "__wrapped__", preference)
        return (type(self), preference, tuple(getattr(self, prop) for prop in self.__props__))

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._key() == self._key()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._key())

    def __str__(self) -> str:
        if self.name:
            return self.name
        params = [f"{k}={v}" for k, v in self.__dict__.items()
                  if k not in ("name", "output_types_preference") and not k.startswith("_")]
        return f"{type(self).__name__}{{{', '.join(params)}}}" if params else type(self).__name__

    __repr__ = __str__


class UnaryScalarOp(ScalarOp):
    """A scalar op of one input."""

    nin = 1


class BinaryScalarOp(ScalarOp):
    """A scalar op of two inputs (Theano's: subclasses may set ``identity``,
    ``commutative``, ``associative``)."""

    nin = 2
