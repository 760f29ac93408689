"""``symnb.scalar``: Theano's ``theano.scalar``, the scalar layer extensions build on:
``ScalarOp`` and its subclasses, the scalar types and output types preferences
(:mod:`symnb.scalar.basic`), the SciPy-computed ops (:mod:`symnb.scalar.basic_scipy`),
as ``theano.scalar`` re-exported both; scalar shared variables (:mod:`symnb.scalar.sharedvar`).

``upcast(*dtypes)``: the dtype of a result combining these dtypes, by NumPy 2's
promotion rules (Theano's table differed for some integer/float pairs; see
docs/porting.md).

A scalar op becomes a tensor op with ``T.Elemwise(op)``, or applies elementwise when
called on tensors (symnb's scalars are 0-d tensors).
"""

# ruff: noqa: F401,F403
from symnb.scalar import basic, basic_scipy, sharedvar
from symnb.scalar.basic import *
from symnb.scalar.basic_scipy import *

__all__ = ["basic", "basic_scipy", "sharedvar", *basic.__all__, *basic_scipy.__all__]
