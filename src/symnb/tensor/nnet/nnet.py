"""``symnb.tensor.nnet.nnet``: Theano's module of that name, where libraries (Keras) import
``softsign`` and the classic activations and losses from."""

from symnb.core.tensor.activations import (
    elu, hard_sigmoid, relu, softsign,
)
from symnb.core.tensor.activations import theano_softmax as softmax
from symnb.core.tensor.losses import (
    binary_crossentropy, categorical_crossentropy, sigmoid_binary_crossentropy,
)
from symnb.core.tensor.math import sigmoid, softplus
from symnb.core.tensor.nnet import log_softmax
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

__all__ = [
    "softsign", "softmax", "log_softmax", "sigmoid", "softplus", "relu", "elu", "hard_sigmoid",
    "softmax_with_bias", "categorical_crossentropy", "binary_crossentropy",
    "sigmoid_binary_crossentropy",
    "crossentropy_categorical_1hot",
]
__all__ += [  # Theano's T.nnet ops and functions
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

from symnb.core.graph.traceback_filter import entry_points as _entry_points

_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)
