"""``symnb.tensor.nnet.sigm``: Theano's module of the sigmoid family (``sigmoid``,
``softplus`` and the cheaper approximations ``ultra_fast_sigmoid``, ``hard_sigmoid``).

Theano's module also held the graph rewrites of sigmoid expressions and their helpers
(``parse_mul_tree``, ``compute_mul``...): optimizer internals, which symnb does not have
(its numerically stable forms are core/tensor/stable_forms.py), nor ``sigmoid_inplace``
(no in-place ops: XLA decides buffer reuse)."""

from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.core.tensor.activations import hard_sigmoid, ultra_fast_sigmoid
from symnb.core.tensor.math import sigmoid, softplus

__all__ = ["sigmoid", "softplus", "ultra_fast_sigmoid", "hard_sigmoid"]

_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)
