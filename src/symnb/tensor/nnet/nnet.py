"""``symnb.tensor.nnet.nnet``: Theano's module of that name, where libraries (Keras) import
``softsign`` and the classic activations and losses from."""

from symnb.core.tensor.activations import (
    crossentropy_categorical_1hot, elu, hard_sigmoid, relu, softmax_with_bias, softsign,
)
from symnb.core.tensor.activations import theano_softmax as softmax
from symnb.core.tensor.losses import (
    binary_crossentropy, categorical_crossentropy, sigmoid_binary_crossentropy,
)
from symnb.core.tensor.math import sigmoid, softplus
from symnb.core.tensor.nnet import log_softmax

__all__ = [
    "softsign", "softmax", "log_softmax", "sigmoid", "softplus", "relu", "elu", "hard_sigmoid",
    "softmax_with_bias", "categorical_crossentropy", "binary_crossentropy",
    "sigmoid_binary_crossentropy",
    "crossentropy_categorical_1hot",
]

from symnb.core.graph.traceback_filter import entry_points as _entry_points

_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)
