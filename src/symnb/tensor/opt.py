"""``T.opt``: the names of Theano's ``theano.tensor.opt`` that programs import
(``Assert``, ``assert_op``/``assert_``, ``MakeVector``, ``make_vector``, ``Shape_i``). symnb's rewrites live in :mod:`symnb.core.rewriting`."""

from symnb.core.tensor.assertion import Assert as Assert
from symnb.core.tensor.basic_theano_ops import MakeVector as MakeVector, make_vector as make_vector
from symnb.core.tensor.shape import ShapeI as Shape_i  # Theano's Shape_i(i)(x)

assert_op = Assert()
assert_ = assert_op  # Theano binds both names to the one op

__all__ = ["Assert", "assert_op", "assert_", "MakeVector", "make_vector", "Shape_i"]
