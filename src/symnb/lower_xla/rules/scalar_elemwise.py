"""``Elemwise(scalar_op)`` nodes (``core/tensor/scalar_elemwise.py``) -> JAX.

The JAX function of a node's scalar op is, in this order:

1. its row's rule, for symnb's own scalar ops (``scalar.exp``: ``T.exp``'s), unless its
   class redefines ``impl``;
2. the function :data:`SCALAR_RULES` holds for its class or a base class (``Psi``:
   ``jax.scipy.special.digamma``), unless its class redefines that class's ``impl``;
3. the JAX function named as its ``nfunc_spec`` (``'scipy.special.i0e'``:
   ``jax.scipy.special.i0e``), which is what ``perform`` computes with (unless its
   class gives ``perform`` an ``array_impl`` of its own).

Its inputs are converted to the output dtype first, as ``perform`` converts them before
its array function. Without any of these (an op with an ``impl`` only, several outputs),
the node runs its ``perform`` on the host, called from the program
(``rules/python_op.py``).
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import jax.numpy as jnp

from symnb.core.graph.basic import Apply
from symnb.core.tensor.scalar_basic import TensorScalarOp
from symnb.core.tensor.scalar_elemwise import ScalarElemwise
from symnb.core.tensor.scalar_op import ScalarOp
from symnb.core.tensor import scalar_scipy as sp
from symnb.lower_xla.registry import lower, register_host_decider
from symnb.lower_xla.rules.elemwise import _elementwise, jax_function
from symnb.lower_xla.rules.python_op import python_op

__all__ = ["SCALAR_RULES", "scalar_jax_function"]


def _special(name: str) -> Callable[..., Any]:
    # Imported when used: jax.scipy.special costs a fresh process milliseconds to load.
    from jax.scipy import special

    return getattr(special, name)


def _erfcinv(x: Any) -> Any:
    """erfc(y) = 2 ndtr(-y sqrt(2)), so erfcinv(x) = -ndtri(x / 2) / sqrt(2)."""
    return -_special("ndtri")(x / 2) / jnp.sqrt(jnp.asarray(2, x.dtype))


#: The JAX function of scalar op classes whose ``nfunc_spec`` names none JAX has.
SCALAR_RULES: dict[type, Callable[..., Any]] = {
    sp.Psi: lambda x: _special("digamma")(x),
    sp.TriGamma: lambda x: _special("polygamma")(1, x),
    sp.Erfcinv: _erfcinv,
}


def _registered(scalar_op: Any) -> Callable[..., Any] | None:
    """The entry of :data:`SCALAR_RULES` for the op's class or a base class whose
    ``impl`` the op's class keeps."""
    for cls in type(scalar_op).__mro__:
        fn = SCALAR_RULES.get(cls)
        if fn is not None:
            return fn if type(scalar_op).impl is cls.impl else None
    return None


def _from_nfunc(nfunc_spec: tuple | None, nin: int) -> Callable[..., Any] | None:
    """The JAX function named as ``nfunc_spec``'s function, when it takes ``nin`` inputs."""
    if not nfunc_spec or nfunc_spec[1] != nin:
        return None
    module, _, name = nfunc_spec[0].rpartition(".")
    if module in ("", "numpy"):
        return jax_function(name)
    if module == "scipy.stats.chi2":
        from jax.scipy.stats import chi2

        return getattr(chi2, name, None)
    if module == "scipy.special":
        from jax.scipy import special

        return getattr(special, name, None)
    return None


def scalar_jax_function(op: ScalarElemwise, nin: int) -> Callable[..., Any] | None:
    """The JAX function of ``op``'s scalar op on ``nin`` inputs (see the module), or
    None: the node then runs on the host."""
    scalar_op = op.scalar_op
    if scalar_op.nout != 1:
        return None
    registered = _registered(scalar_op)
    if registered is not None:
        return registered
    if getattr(type(scalar_op), "array_impl", ScalarOp.array_impl) is not ScalarOp.array_impl:
        return None  # perform computes with the class's own array function, not nfunc_spec's
    return _from_nfunc(op.nfunc_spec, nin)


def _row_rule(op: ScalarElemwise, node: Apply) -> Callable[..., Any]:
    """The rule of the scalar op's row, on this node (``add``/``mul`` of more than two
    inputs folded)."""
    row_op = op.scalar_op.row_op
    if len(node.inputs) == row_op.nin:
        return lower.dispatch(type(row_op))(row_op, node)
    binary = jax_function(row_op.spec.name)
    return _elementwise(lambda *arrays: functools.reduce(binary, arrays), node)


def _keeps_row(op: ScalarElemwise) -> bool:
    return isinstance(op.scalar_op, TensorScalarOp) and op.scalar_op.keeps_row()


@lower.register(ScalarElemwise)
def _scalar_elemwise(op: ScalarElemwise, node: Apply) -> Callable[..., Any]:
    if _keeps_row(op):
        return _row_rule(op, node)
    fn = scalar_jax_function(op, len(node.inputs))
    if fn is None:
        return python_op(op, node)
    return _elementwise(fn, node)


def _on_host(op: ScalarElemwise) -> bool:
    """Whether the rule runs ``op``'s nodes on the host (for an op of any number of
    inputs, assumed so unless its row computes it: a program then only donates less)."""
    if _keeps_row(op):
        return False
    return op.nin < 0 or scalar_jax_function(op, op.nin) is None


register_host_decider(ScalarElemwise, _on_host)
