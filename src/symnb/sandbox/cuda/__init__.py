"""``symnb.sandbox.cuda``: Theano's old CUDA backend (removed in Theano 1.0), as far as
libraries still read it.

``cuda_available`` and ``cuda_enabled`` stay False: code that finds them True takes the
old backend's own paths (Lasagne's ``cuda_convnet`` layers need pylearn2's CUDA
kernels, Lasagne 0.1 also checks ``config.device`` for ``'gpu'``), which symnb does not
provide. Its cuDNN and correlation functions are here, the same as
:mod:`symnb.gpuarray`'s, which libraries probe first (``gpuarray.pygpu_activated`` is
True): they run on every device.
"""

from symnb.sandbox.cuda import basic_ops, blas, dnn  # noqa: F401

#: Whether Theano's old CUDA backend can be used / is in use: never in symnb (see above).
cuda_available = False
cuda_enabled = False

__all__ = ["cuda_available", "cuda_enabled", "basic_ops", "blas", "dnn"]
