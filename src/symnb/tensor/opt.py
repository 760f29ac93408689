"""``T.opt``: the names of Theano's ``theano.tensor.opt`` that programs import
(``Assert``, ``assert_op``). symnb's rewrites live in :mod:`symnb.core.rewriting`."""

from symnb.core.tensor.assertion import Assert as Assert

assert_op = Assert()

__all__ = ["Assert", "assert_op"]
