"""Theano's ``T.nnet`` functions built on the ops of :mod:`symnb.core.tensor.nnet_ops`
and on ordinary tensor ops: the cross-entropy-with-softmax shortcuts, ``softmax_graph``,
``logsoftmax``, ``selu``, the two-level hierarchical softmax ``h_softmax`` and
``confusion_matrix`` (each as Theano 1.0.5 defined it)."""

from __future__ import annotations

from typing import Any

from symnb.core.graph.basic import Variable
from symnb.core.graph.errors import build_error
from symnb.core.tensor import math as m
from symnb.core.tensor import nnet_ops
from symnb.core.tensor.activations import elu, theano_softmax
from symnb.core.tensor.alloc import arange, zeros_like
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.blas import dot, tensordot
from symnb.core.tensor.join import concatenate
from symnb.core.tensor.math_extra import max_and_argmax
from symnb.core.tensor.reduction import sum as _sum

__all__ = ["crossentropy_softmax_1hot_with_bias", "crossentropy_softmax_1hot",
           "crossentropy_softmax_max_and_argmax_1hot_with_bias",
           "crossentropy_softmax_max_and_argmax_1hot", "softmax_graph", "logsoftmax", "selu",
           "h_softmax", "confusion_matrix"]


def crossentropy_softmax_1hot_with_bias(x: Any, b: Any, y_idx: Any) -> list[Variable]:
    """``[nll, softmax(x + b)]``: the row-wise negative log-likelihood of the classes
    ``y_idx`` under ``softmax(x + b)``, and that softmax."""
    return nnet_ops.crossentropy_softmax_argmax_1hot_with_bias(x, b, y_idx)[0:2]


def crossentropy_softmax_1hot(x: Any, y_idx: Any) -> list[Variable]:
    """``[nll, softmax(x)]``: :func:`crossentropy_softmax_1hot_with_bias` with a zero bias."""
    x = as_tensor_variable(x)
    return crossentropy_softmax_1hot_with_bias(x, zeros_like(x[0, :]), y_idx)


def crossentropy_softmax_max_and_argmax_1hot_with_bias(x: Any, b: Any, y_idx: Any
                                                       ) -> tuple[Variable, ...]:
    """``(nll, softmax, max probability, argmax)`` of each row of ``x + b``."""
    xent, softmax = crossentropy_softmax_1hot_with_bias(x, b, y_idx)
    max_pr, argmax = max_and_argmax(softmax, axis=-1)
    return xent, softmax, max_pr, argmax


def crossentropy_softmax_max_and_argmax_1hot(x: Any, y_idx: Any) -> tuple[Variable, ...]:
    """:func:`crossentropy_softmax_max_and_argmax_1hot_with_bias` with a zero bias."""
    x = as_tensor_variable(x)
    return crossentropy_softmax_max_and_argmax_1hot_with_bias(x, zeros_like(x[0, :]), y_idx)


def softmax_graph(c: Any) -> Variable:
    """The softmax over the last axis written out: ``exp(c) / exp(c).sum(-1, keepdims=True)``
    (no maximum subtracted, as Theano's)."""
    c = as_tensor_variable(c)
    return m.true_div(m.exp(c), _sum(m.exp(c), axis=-1, keepdims=True))


def logsoftmax(c: Any) -> Variable:
    """``log(softmax(c))`` of each row, computed without overflow (Theano's ``logsoftmax``)."""
    return nnet_ops.logsoftmax_op(c)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(x: Any) -> Variable:
    """Scaled exponential linear unit: ``scale * elu(x, alpha)`` with Klambauer et al.'s
    constants (Theano's ``T.nnet.selu``)."""
    return m.mul(elu(x, _SELU_ALPHA), _SELU_SCALE)


def h_softmax(x: Any, batch_size: Any, n_outputs: int, n_classes: int, n_outputs_per_class: int,
              W1: Any, b1: Any, W2: Any, b2: Any, target: Any = None) -> Variable:
    """Two-level hierarchical softmax (Theano's ``T.nnet.h_softmax``): the outputs are
    grouped in ``n_classes`` classes of ``n_outputs_per_class``; an output's probability
    is its class's probability (``softmax(x W1 + b1)``) times its probability within the
    class (``softmax(x W2[c] + b2[c])``).

    ``x``: ``(batch_size, n_hidden)``; ``W1``: ``(n_hidden, n_classes)``; ``b1``:
    ``(n_classes,)``; ``W2``: ``(n_classes, n_hidden, n_outputs_per_class)``; ``b2``:
    ``(n_classes, n_outputs_per_class)``. Without ``target``, the probabilities of all
    ``n_outputs`` outputs, ``(batch_size, n_outputs)``; with ``target`` (the output index of
    each row), the probability of each row's target, ``(batch_size,)``.
    """
    x, W2, b2 = as_tensor_variable(x), as_tensor_variable(W2), as_tensor_variable(b2)
    class_probs = theano_softmax(m.add(dot(x, W1), b1))
    if target is None:
        activations = m.add(tensordot(x, W2, (1, 1)), b2)
        output_probs = theano_softmax(activations.reshape((-1, n_outputs_per_class)))
        output_probs = output_probs.reshape((batch_size, n_classes, -1))
        output_probs = m.mul(class_probs.dimshuffle(0, 1, "x"), output_probs)
        return output_probs.reshape((batch_size, -1))[:, :n_outputs]
    target = as_tensor_variable(target).flatten()
    target_classes = m.floor_div(target, n_outputs_per_class)
    target_outputs_in_class = m.mod(target, n_outputs_per_class)
    # Theano's sparse_block_dot: row i times its target class's block of W2, plus its bias.
    activations = m.add(_sum(m.mul(W2[target_classes], x.dimshuffle(0, 1, "x")), axis=1),
                        b2[target_classes])
    output_probs = theano_softmax(activations)
    rows = arange(batch_size)
    return m.mul(class_probs[rows, target_classes], output_probs[rows, target_outputs_in_class])


def confusion_matrix(actual: Any, pred: Any) -> list[Variable]:
    """``[conf_mat, order]``: ``order`` the sorted distinct values of ``actual`` and
    ``pred``; ``conf_mat[i, j]`` how many times ``actual`` was ``order[i]`` where ``pred``
    was ``order[j]`` (int64)."""
    from symnb.core.tensor.extra_ops import Unique

    actual, pred = as_tensor_variable(actual), as_tensor_variable(pred)
    for var, what in ((actual, "actual"), (pred, "pred")):
        if var.ndim != 1:
            raise build_error(f"confusion_matrix: {what} must be 1-d tensor variable; got "
                              f"{var.type.short()}", ValueError, inputs=[var])
    order = Unique(False, False, False)(concatenate([actual, pred]))
    one_hot_actual = m.cast(m.eq(actual.dimshuffle(0, "x"), order), "int64")
    one_hot_pred = m.cast(m.eq(pred.dimshuffle(0, "x"), order), "int64")
    return [dot(one_hot_actual.T, one_hot_pred), order]
