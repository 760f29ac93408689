"""``symnb.tensor`` (imported as ``T``): NumPy-like symbolic tensors.

Its names are listed in :mod:`symnb.tensor._public` (each re-exported explicitly from the
core module that defines it); Theano's sub-namespaces (``T.nnet``, ``T.signal``) list
their own names.
"""

from symnb.tensor._public import *  # noqa: F401,F403
from symnb.tensor._public import __getattr__, _shared  # noqa: F401  (Theano's T._shared)

# Theano's ``import theano.tensor`` binds ``theano.tensor.basic`` (its test helpers read
# ``T.basic._allclose``): the same names, and Theano's comparison helpers.
from symnb.tensor import basic as basic  # noqa: E402,F401
# theano.tensor.type, the module (T.type.values_eq_approx_remove_nan)
from symnb.tensor import type as type  # noqa: E402,F401,A001
