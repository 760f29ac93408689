"""``symnb.sandbox.cuda.dnn``: the old backend's cuDNN module, the functions of
:mod:`symnb.gpuarray.dnn` (Theano 0.9's old backend had the same signatures and
numbers): its probe ``dnn_available()`` is True, as they run on every device."""

from symnb.gpuarray.dnn import (
    dnn_available, dnn_batch_normalization_test, dnn_batch_normalization_train, dnn_conv, dnn_conv3d,
    dnn_pool, version,
)

__all__ = ["dnn_available", "version", "dnn_conv", "dnn_conv3d", "dnn_pool",
           "dnn_batch_normalization_train", "dnn_batch_normalization_test"]
