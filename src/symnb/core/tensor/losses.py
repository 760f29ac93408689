"""Theano's cross-entropy losses (``T.nnet.categorical_crossentropy``,
``T.nnet.binary_crossentropy``).

They are written as Theano wrote them (``-log(p[arange(n), y])``,
``-(t * log(p) + (1 - t) * log(1 - p))``); on ``softmax``/``sigmoid`` outputs the logs
are built in their stable forms (``log_softmax``, ``softplus``: see
:mod:`symnb.core.tensor.stable_forms`), so values and gradients stay finite for any
finite logits. This module sits above both ``nnet`` and ``stable_forms``.
"""

from __future__ import annotations

from symnb.core.graph.basic import Variable
from symnb.core.graph.errors import build_error, label
from symnb.core.graph.type import is_integer
from symnb.core.tensor import elemwise as ew
from symnb.core.tensor import math as m
from symnb.core.tensor.alloc import arange
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.reduction import sum as _sum
from symnb.core.tensor.stable_forms import stable_equivalent
from symnb.core.tensor.subtensor import getitem

__all__ = ["categorical_crossentropy", "binary_crossentropy", "sigmoid_binary_crossentropy"]


def categorical_crossentropy(coding_dist: object, true_dist: object) -> Variable:
    """The cross-entropy between predicted distributions and true ones (Theano's
    ``T.nnet.categorical_crossentropy``), one value per distribution.

    ``coding_dist`` holds one predicted distribution per slice along its last axis
    (typically ``softmax(logits)``). ``true_dist`` is either

    - an integer vector of class indices, one per row of the matrix ``coding_dist``:
      the result is ``-log(coding_dist[arange(n), true_dist])``;
    - or distributions of ``coding_dist``'s shape (one-hot rows, or probabilities):
      the result is ``-sum(true_dist * log(coding_dist), axis=-1)``.

    With ``coding_dist = softmax(x)`` both are computed from ``log_softmax(x)``, so the
    value and the gradient stay finite for any finite logits.
    """
    coding_dist, true_dist = as_tensor_variable(coding_dist), as_tensor_variable(true_dist)
    if true_dist.ndim == coding_dist.ndim:
        return m.neg(_sum(m.mul(true_dist, _log_of(coding_dist)), axis=coding_dist.ndim - 1))
    if true_dist.ndim != coding_dist.ndim - 1:
        raise build_error(
            f"categorical_crossentropy: rank mismatch between the coding distribution "
            f"{label(coding_dist)!r} ({coding_dist.type.short()}) and the true distribution "
            f"{label(true_dist)!r} ({true_dist.type.short()}): true_dist must have the same "
            f"number of dimensions, or one fewer (class indices)", TypeError)
    if coding_dist.ndim != 2 or not is_integer(true_dist.dtype):
        raise build_error(
            f"categorical_crossentropy: with class indices, coding_dist must be a matrix and "
            f"true_dist a vector of integers; got {label(coding_dist)!r} "
            f"({coding_dist.type.short()}) and {label(true_dist)!r} ({true_dist.type.short()})",
            TypeError)
    rows = arange(coding_dist.shape[0])
    return m.neg(_log_of(getitem(coding_dist, (rows, true_dist))))


def binary_crossentropy(output: object, target: object) -> Variable:
    """The elementwise cross-entropy of binary variables (Theano's
    ``T.nnet.binary_crossentropy``): ``-(target * log(output) + (1 - target) *
    log(1 - output))``, not summed.

    ``output`` holds predicted probabilities, ``target`` the true ones (often exactly 0
    or 1). With ``output = sigmoid(z)`` it is computed as softplus of the logits, so the
    value and the gradient stay finite for any finite ``z``.
    """
    output, target = as_tensor_variable(output), as_tensor_variable(target)
    return m.neg(m.add(m.mul(target, _log_of(output)),
                       m.mul(m.sub(1.0, target), _log_of(m.sub(1.0, output)))))


def sigmoid_binary_crossentropy(output: object, target: object) -> Variable:
    """``binary_crossentropy(sigmoid(output), target)`` of logits ``output`` (Theano's
    ``T.nnet.sigmoid_binary_crossentropy``), computed in its stable form.

    Theano wrote ``softplus(-abs(output)) + output * ((output > 0) - target)`` with its
    gradient overridden to ``sigmoid(output) - target``; that expression's own gradient
    is wrong at ``output == 0`` (the zero logits of zero-initialized weights), so it is
    built as :func:`binary_crossentropy` of the sigmoid, whose stable form has the same
    values and Theano's gradient everywhere.
    """
    output = as_tensor_variable(output)
    return binary_crossentropy(m.sigmoid(output), target)


_LOG = ew.Log()


def _log_of(p: Variable) -> Variable:
    """``log(p)``, built in its stable form when ``p`` is a sigmoid or a softmax (see
    ``stable_forms``): how these loss functions are implemented. The expressions a user
    writes with ``T.log`` are kept as written, and stabilized when compiled."""
    stable = stable_equivalent(_LOG, [p])
    return stable if stable is not None else m.log(p)
