"""``symnb.tensor.nnet.bn``: Theano's batch normalization functions."""

from symnb.core.tensor.batchnorm import (
    batch_normalization, batch_normalization_test, batch_normalization_train,
)

__all__ = ["batch_normalization", "batch_normalization_train", "batch_normalization_test"]
