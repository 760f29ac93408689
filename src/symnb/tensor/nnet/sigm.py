"""``symnb.tensor.nnet.sigm``: Theano's module of the sigmoid family (``sigmoid``,
``softplus`` and the cheaper approximations ``ultra_fast_sigmoid``, ``hard_sigmoid``), and
their scalar ops (``scalar_sigmoid``, ``scalar_softplus``: ``sigmoid.scalar_op``).

Theano's module also held the graph rewrites of sigmoid expressions and their helpers
(``parse_mul_tree``, ``compute_mul``...): optimizer internals, which symnb does not have
(its numerically stable forms are core/tensor/stable_forms.py), nor ``sigmoid_inplace``
(no in-place ops: XLA decides buffer reuse)."""

from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.core.tensor.activations import hard_sigmoid, ultra_fast_sigmoid
from symnb.core.tensor.math import sigmoid, softplus
from symnb.core.tensor.scalar_basic import ScalarSigmoid, ScalarSoftplus, scalar_sigmoid, scalar_softplus

__all__ = ["sigmoid", "softplus", "ultra_fast_sigmoid", "hard_sigmoid",
           "ScalarSigmoid", "ScalarSoftplus", "scalar_sigmoid", "scalar_softplus"]

_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)
