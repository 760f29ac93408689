"""Theano's ``1 + erf(x)`` -> ``erfc(-x)`` (``local_one_plus_erf``) and ``1 - erf(x)`` ->
``erfc(x)`` (``local_one_minus_erf``), from ``theano/tensor/opt.py``, run by the
``stabilize`` pass: the written sum cancels to 0 in the tail (``1 + erf(-10)`` is 0 in
float64), ``erfc`` keeps it (``erfc(10)`` is 2.1e-45).

The log of either (PyMC3's skew-normal log-density is ``log(1 + erf(...))``) is a stable
form of its own, rewritten before these (``local_log_one_plus_erf``, with Theano's
expansion of ``log(erfc(x))`` in the tail): :mod:`symnb.core.tensor.stable_forms_erf`.

The graph keeps what the user wrote, so its test value is NumPy's value of the written
expression: these rewrites declare where they keep values, and DebugMode notes the
values they changed elsewhere.
"""

from __future__ import annotations

from symnb.core.graph.basic import Apply
from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.graph.rewriting import build, node_rewriter
from symnb.core.rewriting.utils import is_fill_constant, other_operand
from symnb.core.tensor import elemwise as ew
from symnb.core.tensor.special import erfc
from symnb.core.tensor.stable_forms_erf import erf_argument

__all__ = ["REWRITES"]


@node_rewriter([ew.Add], exact=(
    "where x is not negative: below, 1 + erf(x) loses its digits to cancellation, and is 0 "
    "below about -5.9 in float64 (-3.9 in float32), where its log is -inf"))
def local_one_plus_erf(fgraph: FunctionGraph, node: Apply):
    """1 + erf(x) -> erfc(-x)."""
    operand = other_operand(node, 1)
    x = None if operand is None else erf_argument(operand, node.outputs[0])
    if x is None:
        return None
    return build(erfc, build(ew.Neg(), x))


@node_rewriter([ew.Sub], exact=(
    "where x is not positive: above, 1 - erf(x) loses its digits to cancellation, and is 0 "
    "above about 5.9 in float64 (3.9 in float32), where its log is -inf"))
def local_one_minus_erf(fgraph: FunctionGraph, node: Apply):
    """1 - erf(x) -> erfc(x)."""
    one, operand = node.inputs
    x = erf_argument(operand, node.outputs[0])
    if x is None or not is_fill_constant(one, 1, node.outputs[0]):
        return None
    return build(erfc, x)


REWRITES = [local_one_plus_erf, local_one_minus_erf]
