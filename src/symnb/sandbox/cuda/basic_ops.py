"""``symnb.sandbox.cuda.basic_ops``: the old backend's ``gpu_contiguous``, that of
:mod:`symnb.gpuarray.basic_ops`."""

from symnb.gpuarray.basic_ops import gpu_contiguous

__all__ = ["gpu_contiguous"]
