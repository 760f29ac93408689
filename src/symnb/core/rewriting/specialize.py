"""Specialization: general ops replaced by cheaper special cases (the ``specialize`` pass).

- ``x ** 2`` -> ``square(x)``, ``x ** 0.5`` -> ``sqrt(x)``, ``x ** 1`` -> ``x``,
  ``x ** -1`` -> ``1 / x`` (floats only: NumPy refuses negative integer powers of
  integers), ``x ** -0.5`` -> ``1 / sqrt(x)`` (which differs at -0.0 and -inf: it
  declares so), ``x ** -2`` -> ``1 / square(x)`` (Theano's ``local_pow_specialize`` has
  all of these; PyMC3's precision ``tau = sigma ** -2`` is the last: XLA computes a
  ``pow`` of a non-integer-typed exponent as ``exp(-2 * log(x))`` and keeps it out of the
  fusions that read it);
- ``x * x`` -> ``square(x)``.
"""

from __future__ import annotations

from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.graph.basic import Apply, Constant
from symnb.core.graph.rewriting import build, node_rewriter
from symnb.core.rewriting.utils import as_type_of, make_constant, unary_like
from symnb.core.tensor import elemwise as ew
from symnb.core.graph.type import is_float

__all__ = ["REWRITES"]


def _exponent(node: Apply) -> float | None:
    """The exponent of ``x ** c`` when ``c`` is a constant that cannot widen the result."""
    x, c = node.inputs
    out = node.outputs[0]
    if not isinstance(c, Constant) or c.data.size != 1 or x.ndim != out.ndim or c.ndim > out.ndim:
        return None
    value = c.data.reshape(()).item()
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


@node_rewriter([ew.Pow])
def local_pow_specialize(fgraph: FunctionGraph, node: Apply):
    """x ** 2 -> square(x); x ** 0.5 -> sqrt(x); x ** 1 -> x; x ** -1 -> 1 / x."""
    exponent = _exponent(node)
    if exponent is None:
        return None
    x, out = node.inputs[0], node.outputs[0]
    if exponent == 2:
        return unary_like(ew.Square(), x, out)
    if exponent == 0.5:
        return unary_like(ew.Sqrt(), x, out)
    if exponent == 1:
        return as_type_of(x, out)
    if not is_float(out.dtype):
        return None
    if exponent == -1:
        return _reciprocal(as_type_of(x, out), out)
    return None


@node_rewriter([ew.Pow], exact="where x is not -0.0 or -inf (x ** -0.5 is +inf and 0 there, "
                               "1 / sqrt(x) is -inf and NaN)")
def local_pow_rsqrt(fgraph: FunctionGraph, node: Apply):
    """x ** -0.5 -> 1 / sqrt(x) (floats)."""
    if _exponent(node) != -0.5 or not is_float(node.outputs[0].dtype):
        return None
    x, out = node.inputs[0], node.outputs[0]
    return _reciprocal(unary_like(ew.Sqrt(), x, out), out)


@node_rewriter([ew.Pow], exact="up to one rounding (x * x is rounded before the division), where "
                               "x * x neither overflows nor is subnormal (XLA's CPU flushes it to 0: "
                               "|x| under 1.5e-154 in float64, 1.1e-19 in float32, gives inf where "
                               "x ** -2 is finite)")
def local_pow_inv_sqr(fgraph: FunctionGraph, node: Apply):
    """x ** -2 -> 1 / square(x) (floats), as Theano's ``local_pow_specialize``."""
    if _exponent(node) != -2 or not is_float(node.outputs[0].dtype):
        return None
    x, out = node.inputs[0], node.outputs[0]
    return _reciprocal(unary_like(ew.Square(), x, out), out)


def _reciprocal(x, out):
    if x is None:
        return None
    return as_type_of(build(ew.TrueDiv(), make_constant(1, out.dtype), x), out)


@node_rewriter([ew.Mul])
def local_mul_to_square(fgraph: FunctionGraph, node: Apply):
    """x * x -> square(x)."""
    x, y = node.inputs
    if x is not y:
        return None
    return unary_like(ew.Square(), x, node.outputs[0])


REWRITES = [local_pow_specialize, local_pow_rsqrt, local_pow_inv_sqr, local_mul_to_square]
