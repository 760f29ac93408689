"""``symnb.sandbox.cuda.dnn``: the old backend's cuDNN probe (always False in symnb; see
:mod:`symnb.gpuarray.dnn`)."""

from symnb.gpuarray.dnn import dnn_available

__all__ = ["dnn_available"]
