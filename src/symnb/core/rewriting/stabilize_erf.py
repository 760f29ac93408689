"""Theano's stabilizations of the error function (``theano/tensor/opt.py``), run by the
``stabilize`` pass:

- ``1 + erf(x)`` -> ``erfc(-x)`` (``local_one_plus_erf``) and ``1 - erf(x)`` ->
  ``erfc(x)`` (``local_one_minus_erf``): the written sum cancels to 0 in the tail
  (``1 + erf(-10)`` is 0 in float64), ``erfc`` keeps it (``erfc(10)`` is 2.1e-45);
- ``log(erfc(x))`` -> ``switch(x < t, log(erfc(x)), asymptotic(x))`` (``local_log_erfc``)
  with Theano's expansion ``-x**2 - log(x) - log(pi)/2 + log(1 - 1/(2x**2) + 3/(4x**4)
  - 15/(8x**6))`` (its next term, 105/(16x**8), is below 1e-10 past the threshold).

Together they make ``log(1 + erf(x))`` (PyMC3's skew-normal log-density) finite for every
finite x: it becomes ``log(erfc(-x))``, then the expansion of ``-x`` below ``-t``.

The threshold differs from Theano's (26.641747557 for float64, 10.0541949 for float32):
Theano chose where NumPy's ``erfc`` reaches 0 through the subnormals; XLA on CPU flushes
subnormals to zero, so ``erfc(x)`` is 0 in the compiled program as soon as it leaves the
normal range (x above 26.543 in float64, 9.194 in float32), and Theano's thresholds
would leave -inf between the two. symnb switches to the expansion just below:
:data:`LOG_ERFC_THRESHOLD`.

The graph keeps what the user wrote, so its test value is NumPy's value of the written
expression (``-inf`` for ``log(1 + erf(-10))``): as for ``log(softmax(x))``, each of these
rewrites declares where it keeps values, and DebugMode notes the values it changed
elsewhere.
"""

from __future__ import annotations

import numpy as np

from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.graph.rewriting import build, node_rewriter
from symnb.core.rewriting.utils import is_fill_constant, make_constant, other_operand, owner_op
from symnb.core.tensor import elemwise as ew
from symnb.core.tensor.scalar_elemwise import ScalarElemwise
from symnb.core.tensor.scalar_scipy import Erfc
from symnb.core.tensor.special import erfc

__all__ = ["REWRITES", "LOG_ERFC_THRESHOLD"]

#: Where ``local_log_erfc`` switches to the asymptotic expansion, by dtype: just below
#: the point where ``erfc(x)`` leaves the normal range (see the module's docstring).
LOG_ERFC_THRESHOLD = {"float64": 26.5, "float32": 9.1}


def _erf_argument(var: Variable, out: Variable) -> Variable | None:
    """``x`` when ``var`` is ``erf(x)`` of a float ``x`` of ``out``'s dtype and shape."""
    erf = owner_op(var, ew.Erf)
    if erf is None:
        return None
    x = erf.inputs[0]
    if x.dtype != out.dtype or x.ndim != out.ndim or not x.dtype.startswith("float"):
        return None
    return x


def _erfc_argument(var: Variable) -> Variable | None:
    """``x`` when ``var`` is ``erfc(x)`` (``T.erfc``: Theano's ``Elemwise(scalar.erfc)``)."""
    node = owner_op(var, ScalarElemwise)
    if node is None or not isinstance(node.op.scalar_op, Erfc):
        return None
    return node.inputs[0]


@node_rewriter([ew.Add], exact=(
    "where x is not negative: below, 1 + erf(x) loses its digits to cancellation, and is 0 "
    "below about -5.9 in float64 (-3.9 in float32), where its log is -inf"))
def local_one_plus_erf(fgraph: FunctionGraph, node: Apply):
    """1 + erf(x) -> erfc(-x)."""
    operand = other_operand(node, 1)
    x = None if operand is None else _erf_argument(operand, node.outputs[0])
    if x is None:
        return None
    return build(erfc, build(ew.Neg(), x))


@node_rewriter([ew.Sub], exact=(
    "where x is not positive: above, 1 - erf(x) loses its digits to cancellation, and is 0 "
    "above about 5.9 in float64 (3.9 in float32), where its log is -inf"))
def local_one_minus_erf(fgraph: FunctionGraph, node: Apply):
    """1 - erf(x) -> erfc(x)."""
    one, operand = node.inputs
    x = _erf_argument(operand, node.outputs[0])
    if x is None or not is_fill_constant(one, 1, node.outputs[0]):
        return None
    return build(erfc, x)


def _clamped(x: Variable, threshold: float) -> bool:
    """True when ``x`` is ``minimum(y, threshold)``: this rewrite's own first branch,
    never in the tail (it must not be rewritten again)."""
    node = owner_op(x, ew.Minimum)
    return node is not None and is_fill_constant(node.inputs[1], threshold, x)


def _log_erfc_expansion(x: Variable) -> Variable:
    """Theano's asymptotic expansion of log(erfc(x)) for large x, in ``x``'s dtype:
    ``-x**2 - log(x) - log(pi)/2 + log(1 - 1/(2x**2) + 3/(4x**4) - 15/(8x**6))``, its
    series in u = 1/x**2 written ``1 + u*(-1/2 + u*(3/4 - u*15/8))``."""
    def c(value: float) -> Variable:
        return make_constant(value, x.dtype)

    square = build(ew.Mul(), x, x)
    u = build(ew.TrueDiv(), c(1.0), square)
    series = build(ew.Sub(), c(0.75), build(ew.Mul(), u, c(1.875)))
    series = build(ew.Add(), c(-0.5), build(ew.Mul(), u, series))
    series = build(ew.Add(), c(1.0), build(ew.Mul(), u, series))
    head = build(ew.Sub(), build(ew.Neg(), square), build(ew.Log(), x))
    head = build(ew.Sub(), head, c(0.5 * np.log(np.pi)))
    return build(ew.Add(), head, build(ew.Log(), series))


@node_rewriter([ew.Log], exact=(
    "where x is below 26.5 in float64 (9.1 in float32): beyond, erfc(x) is subnormal or 0 "
    "and the written log imprecise or -inf (the expansion is within 1e-10 of the exact value)"))
def local_log_erfc(fgraph: FunctionGraph, node: Apply):
    """log(erfc(x)) -> switch(x < t, log(erfc(min(x, t))), expansion(max(x, t))).

    Each branch reads x clamped to its side of the threshold ``t``, so neither computes
    an inf or a NaN where the other is taken (``log(0)`` in the tail, ``1 / 0`` at 0):
    DebugMode's finiteness check and the gradient's ``0 * nan`` stay clear of them. Below
    ``t``, ``min(x, t)`` is x itself: the value is the written one, bit for bit."""
    x = _erfc_argument(node.inputs[0])
    out = node.outputs[0]
    threshold = LOG_ERFC_THRESHOLD.get(out.dtype)
    if x is None or threshold is None or x.dtype != out.dtype or x.ndim != out.ndim \
            or _clamped(x, threshold):
        return None
    t = make_constant(threshold, x.dtype)
    written = build(ew.Log(), build(erfc, build(ew.Minimum(), x, t)))
    expansion = _log_erfc_expansion(build(ew.Maximum(), x, t))
    return build(ew.Switch(), build(ew.Lt(), x, t), written, expansion)


REWRITES = [local_one_plus_erf, local_one_minus_erf, local_log_erfc]
