"""``symnb.tensor`` (imported as ``T``): NumPy-like symbolic tensors.

Its names are listed in :mod:`symnb.tensor._public` (each re-exported explicitly from the
core module that defines it); Theano's sub-namespaces (``T.nnet``, ``T.signal``) list
their own names.
"""

# theano.tensor.sort, the module, imported before the names: importing a submodule binds
# it over the package's attribute of its name, and T.sort is the function (as in Theano,
# whose __init__ imported the module first too).
from symnb.tensor import sort as _sort_module  # noqa: E402
from symnb.tensor._public import *  # noqa: F401,F403
from symnb.tensor._public import __getattr__, _shared  # noqa: F401  (Theano's T._shared)

del _sort_module

# Theano's ``import theano.tensor`` binds ``theano.tensor.basic`` (its test helpers read
# ``T.basic._allclose``): the same names, and Theano's comparison helpers.
from symnb.tensor import basic as basic  # noqa: E402,F401
# theano.tensor.type, the module (T.type.values_eq_approx_remove_nan)
from symnb.tensor import type as type  # noqa: E402,F401,A001
