"""``symnb.sandbox.cuda.dnn``: the old backend's cuDNN module: its probe (always False
in symnb) and its batch normalization functions, those of :mod:`symnb.gpuarray.dnn`
(Theano 0.9's old backend had the same signatures and numbers)."""

from symnb.gpuarray.dnn import dnn_available, dnn_batch_normalization_test, dnn_batch_normalization_train

__all__ = ["dnn_available", "dnn_batch_normalization_train", "dnn_batch_normalization_test"]
