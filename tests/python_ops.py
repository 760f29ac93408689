"""Ops written in Python only, as Theano's documentation writes them ("Making arithmetic
Ops on double"), for the tests of the core (test values), the lowering (host callbacks),
the profile and the pictures. Defined outside symnb (as a user's ops are)."""

from __future__ import annotations

import numpy as np

import symnb.tensor as T
from symnb.core.graph.basic import Apply
from symnb.core.graph.op import Op


class DoubleOp(Op):
    """The documentation's ``DoubleOp``: ``make_node`` returns Theano's ``Apply(op,
    inputs, output variables)``, ``perform`` writes ``output_storage``."""

    __props__ = ()

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        x = inputs[0]
        z = output_storage[0]
        z[0] = x * 2

    def infer_shape(self, node, i0_shapes):
        return i0_shapes

    def grad(self, inputs, output_grads):
        return [output_grads[0] * 2]


class DoubleOpTyped(Op):
    """The documentation's second ``DoubleOp``: ``itypes``/``otypes``, no ``make_node``."""

    __props__ = ()
    itypes = [T.dmatrix]
    otypes = [T.dmatrix]

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * 2

    def infer_shape(self, node, i0_shapes):
        return i0_shapes


class CubeOp(Op):
    """``x ** 3`` with a ``grad`` (``3 x**2 g``): a gradient through a Python op."""

    __props__ = ()

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] ** 3

    def infer_shape(self, node, shapes):
        return shapes

    def grad(self, inputs, output_grads):
        (x,), (g,) = inputs, output_grads
        return [3 * x ** 2 * g]


class AtMostThreeRows(Op):
    """``x + 1``, raising in ``perform`` for more than 3 rows (an error at run time)."""

    __props__ = ()

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        if x.shape[0] > 3:
            raise ValueError(f"takes at most 3 rows, got {x.shape[0]}")
        output_storage[0][0] = x + 1

    def infer_shape(self, node, shapes):
        return shapes


class FirstElement(Op):
    """``x[:1]``, with no ``infer_shape``: the compiled program cannot know its shape."""

    __props__ = ()

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0][:1]


class FirstElementFixed(FirstElement):
    """:class:`FirstElement` declaring its output shape its test value's."""

    fixed_output_shapes = True


class FirstElementClaimingSameShape(FirstElement):
    """:class:`FirstElement` whose ``infer_shape`` is wrong (its input's shape)."""

    def infer_shape(self, node, shapes):
        return shapes


def numpy_dot_shape(node, input_shapes):
    ashp, bshp = input_shapes
    return [ashp[:-1] + bshp[-1:]]


def double(x: np.ndarray) -> np.ndarray:
    """The NumPy reference of the doubling ops."""
    return x * 2
