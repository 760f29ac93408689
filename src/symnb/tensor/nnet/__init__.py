"""``symnb.tensor.nnet`` (``T.nnet``): Theano's neural-network namespace.

An explicit list of re-exports of the core functions, in Theano's module layout:
``abstract_conv`` (convolutions and their gradients), ``bn`` (batch normalization),
``neighbours`` (``images2neibs``) and ``conv`` (the deprecated ``conv.conv2d``).

``T.nnet.softmax`` has Theano's semantics: a vector gives a 1 x n matrix (``T.softmax``,
symnb's own, keeps the input's shape and takes an ``axis``).
"""

from symnb.core.tensor.activations import (
    elu, hard_sigmoid, relu, ultra_fast_sigmoid,
)
from symnb.core.tensor.activations import theano_softmax as softmax
from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.core.tensor.batchnorm import batch_normalization
from symnb.core.tensor.conv_api import conv2d, conv3d
from symnb.core.tensor.math import sigmoid, softplus
from symnb.core.tensor.losses import (
    binary_crossentropy, categorical_crossentropy, sigmoid_binary_crossentropy,
)
from symnb.core.tensor.nnet import log_softmax
from symnb.tensor.nnet import abstract_conv, bn, conv, neighbours, nnet, sigm  # noqa: F401  (T.nnet.bn...)
from symnb.core.tensor.conv_theano_functions import conv2d_transpose, separable_conv2d, separable_conv3d
from symnb.core.tensor.activations import softsign
from symnb.core.tensor.nnet_ops import (  # Theano's T.nnet ops
        Softmax, LogSoftmax, SoftmaxWithBias, SoftmaxGrad, CrossentropySoftmaxArgmax1HotWithBias,
    CrossentropySoftmax1HotWithBiasDx, CrossentropyCategorical1Hot, CrossentropyCategorical1HotGrad,
    Prepend_scalar_constant_to_each_row, Prepend_scalar_to_each_row, softmax_op, logsoftmax_op,
    softmax_grad, softmax_with_bias, crossentropy_categorical_1hot,
    crossentropy_softmax_argmax_1hot_with_bias,
    crossentropy_softmax_1hot_with_bias_dx, crossentropy_categorical_1hot_grad,
    prepend_scalar_to_each_row, prepend_0_to_each_row, prepend_1_to_each_row,
)
from symnb.core.tensor.nnet_functions import (
        crossentropy_softmax_1hot_with_bias, crossentropy_softmax_1hot,
    crossentropy_softmax_max_and_argmax_1hot_with_bias, crossentropy_softmax_max_and_argmax_1hot,
    softmax_graph, logsoftmax, selu, h_softmax, confusion_matrix,
)

from symnb.core.absent import module_getattr

__getattr__ = module_getattr("symnb.tensor.nnet")  # Theano names symnb lacks: say so
del module_getattr

__all__ = [
    "conv2d", "conv3d", "batch_normalization", "softmax", "log_softmax", "sigmoid", "softplus",
    "ultra_fast_sigmoid", "hard_sigmoid", "relu", "elu", "softmax_with_bias",
    "categorical_crossentropy", "binary_crossentropy", "sigmoid_binary_crossentropy",
    "crossentropy_categorical_1hot", "abstract_conv", "bn", "conv", "neighbours", "nnet", "softsign",
]
__all__ += [  # Theano's T.nnet ops and functions
    "sigm", "conv2d_transpose", "separable_conv2d", "separable_conv3d",
        "Softmax", "LogSoftmax", "SoftmaxWithBias", "SoftmaxGrad",
    "CrossentropySoftmaxArgmax1HotWithBias", "CrossentropySoftmax1HotWithBiasDx",
    "CrossentropyCategorical1Hot", "CrossentropyCategorical1HotGrad",
    "Prepend_scalar_constant_to_each_row", "Prepend_scalar_to_each_row", "softmax_op",
    "logsoftmax_op", "softmax_grad", "crossentropy_softmax_argmax_1hot_with_bias",
    "crossentropy_softmax_1hot_with_bias_dx", "crossentropy_categorical_1hot_grad",
    "prepend_scalar_to_each_row", "prepend_0_to_each_row", "prepend_1_to_each_row",
    "crossentropy_softmax_1hot_with_bias", "crossentropy_softmax_1hot",
    "crossentropy_softmax_max_and_argmax_1hot_with_bias",
    "crossentropy_softmax_max_and_argmax_1hot", "softmax_graph", "logsoftmax", "selu", "h_softmax",
    "confusion_matrix",
]

_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)
