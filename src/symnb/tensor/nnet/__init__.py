"""``symnb.tensor.nnet`` (``T.nnet``): Theano's neural-network namespace.

An explicit list of re-exports of the core functions, in Theano's module layout:
``abstract_conv`` (convolutions and their gradients), ``bn`` (batch normalization) and
``neighbours`` (``images2neibs``).
"""

from symnb.core.traceback_filter import entry_points as _entry_points
from symnb.core.tensor.batchnorm import batch_normalization
from symnb.core.tensor.conv_api import conv2d, conv3d
from symnb.core.tensor.math import sigmoid, softplus
from symnb.core.tensor.nnet import log_softmax, softmax
from symnb.tensor.nnet import abstract_conv, bn, neighbours  # noqa: F401  (T.nnet.bn...)

__all__ = [
    "conv2d", "conv3d", "batch_normalization", "softmax", "log_softmax", "sigmoid", "softplus",
    "abstract_conv", "bn", "neighbours",
]

_entry_points(globals())  # errors show the user's line (symnb.core.traceback_filter)
