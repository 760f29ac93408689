"""``T.nnet``'s functions with Theano's semantics, as compositions of existing ops:
Theano's ``softmax`` (a vector gives a 1 x n matrix), the cheap sigmoid
approximations, ``relu`` and ``elu`` (``softmax_with_bias`` and
``crossentropy_categorical_1hot`` are Theano's ops: core/tensor/nnet_ops.py).

They build the same ops the rest of the library builds (``Softmax``, ``Sigmoid``...), so
``T.log`` of their result keeps building the numerically stable forms."""

from __future__ import annotations

from typing import Any

import numpy as np

from symnb.core.graph.errors import build_error, label
from symnb.core.graph.basic import Variable
from symnb.core.tensor import math as m
from symnb.core.tensor import nnet
from symnb.core.tensor.basic import as_tensor_variable, constant
from symnb.core.tensor.elemwise_specs import UPGRADE_TO_FLOAT

__all__ = ["theano_softmax", "ultra_fast_sigmoid", "hard_sigmoid", "relu", "elu"]


def theano_softmax(c: Any) -> Variable:
    """Softmax over the last axis, as Theano's ``T.nnet.softmax``: a vector is taken as
    one row and gives a 1 x n matrix; a matrix is normalized row by row. (symnb also
    accepts more dimensions, normalizing along the last axis; Theano refused them.)"""
    c = as_tensor_variable(c)
    if c.ndim == 0:
        raise build_error(f"softmax: {label(c)!r} is a scalar; softmax takes a vector or a "
                          f"matrix", TypeError, inputs=[c])
    if c.ndim == 1:
        c = c.dimshuffle("x", 0)
    if c.ndim == 2:  # Theano's Softmax op (T.nnet.Softmax: a graph holds what Theano's held)
        from symnb.core.tensor.nnet_ops import softmax_op

        return softmax_op(c)
    return nnet.softmax(c, axis=-1)


# Theano's piecewise approximation of tanh(x / 2), from which the sigmoid follows.
_KNEE, _END, _OFFSET, _SLOPE, _TOP = 1.7, 3.0, 0.935409070603099, 0.0458812946797165, 0.99505475368673


def ultra_fast_sigmoid(x: Any) -> Variable:
    """Theano's fast approximation of the sigmoid (maximum error about 0.02):
    ``0.5 * (z + 1)`` where ``z`` approximates ``tanh(x / 2)`` piecewise
    (``1.5 u / (1 + u)`` below 1.7, a line up to 3, then a constant; odd in ``x``).
    Its gradient is the derivative of this approximation (Theano used the sigmoid's
    ``y * (1 - y)`` at the approximate ``y``)."""
    x = as_tensor_variable(x)
    half = m.mul(x, 0.5)
    u = m.abs(half)
    # The constants in the computing dtype: Python floats would be floatX constants,
    # rounding them in a float64 graph.
    knee, slope, offset, top = (constant(c, half.dtype) for c in (_KNEE, _SLOPE, _OFFSET, _TOP))
    z = m.switch(m.lt(u, knee), m.true_div(m.mul(u, 1.5), m.add(u, 1)),
                 m.switch(m.lt(u, _END), m.add(m.mul(m.sub(u, knee), slope), offset), top))
    signed = m.switch(m.ge(half, 0), z, m.neg(z))
    return m.mul(m.add(signed, 1), 0.5)


def hard_sigmoid(x: Any) -> Variable:
    """Theano's piecewise-linear sigmoid: ``clip(0.2 * x + 0.5, 0, 1)``, computed in
    the float dtype ``upgrade_to_float`` gives ``x`` (the constants in that dtype, as
    Theano's)."""
    x = as_tensor_variable(x)
    dtype = UPGRADE_TO_FLOAT.get(x.dtype, x.dtype)
    slope, shift = constant(0.2, dtype), constant(0.5, dtype)
    return m.clip(m.add(m.mul(x, slope), shift), 0, 1)


def relu(x: Any, alpha: Any = 0) -> Variable:
    """Theano's rectifier: ``max(0, x)``, or ``x`` scaled by ``alpha`` where negative
    (leaky), written as Theano wrote it: ``0.5 * (1 + alpha) * x + 0.5 * (1 - alpha) *
    |x|`` (its gradient at 0 is ``(1 + alpha) / 2``, as in Theano). On a NumPy array
    with ``alpha=0`` it is NumPy's arithmetic, as Theano's was (Lasagne's tests rectify
    their NumPy references with it)."""
    if isinstance(x, (np.ndarray, np.generic)) and isinstance(alpha, (int, float)) and alpha == 0:
        return 0.5 * (x + abs(x))
    x = as_tensor_variable(x)
    if isinstance(alpha, (int, float)) and alpha == 0:
        return m.mul(m.add(x, m.abs(x)), 0.5)
    if isinstance(alpha, (int, float)):  # Python numbers: Theano's constants (a float is floatX)
        rising, folded = 0.5 * (1 + alpha), 0.5 * (1 - alpha)
    else:
        rising, folded = m.mul(m.add(alpha, 1), 0.5), m.mul(m.sub(1, alpha), 0.5)
    return m.add(m.mul(x, rising), m.mul(m.abs(x), folded))


def elu(x: Any, alpha: Any = 1) -> Variable:
    """Exponential linear unit: ``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere
    (computed with ``expm1``, accurate near 0)."""
    x = as_tensor_variable(x)
    return m.switch(m.gt(x, 0), x, m.mul(m.expm1(x), alpha))


def softsign(x: Any) -> Variable:
    """Softsign, ``x / (1 + |x|)`` (Theano's ``T.nnet.nnet.softsign``): a smooth map onto
    (-1, 1) whose tails approach the bounds polynomially, not exponentially like ``tanh``."""
    x = as_tensor_variable(x)
    return m.true_div(x, m.add(1, m.abs(x)))
