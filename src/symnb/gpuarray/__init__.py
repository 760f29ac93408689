"""``symnb.gpuarray``: the names of Theano's libgpuarray backend that libraries use, on
any device.

symnb has no libgpuarray (pygpu): JAX places every program on ``sn.config.device`` and
XLA compiles it, through cuDNN on an NVIDIA GPU. What libraries call from Theano's GPU
backend is here and runs everywhere: the cuDNN functions (:mod:`symnb.gpuarray.dnn`),
the correlation ops (:mod:`symnb.gpuarray.blas`: ``GpuCorrMM``) and ``gpu_contiguous``
(:mod:`symnb.gpuarray.basic_ops`). So the probe libraries read before using them
(Lasagne: ``from theano import gpuarray; gpuarray.pygpu_activated``) says the backend
is there: ``lasagne.layers.dnn`` and ``lasagne.layers.corrmm`` import and run on any
device (docs/porting.md says why this answer, and what it changes).
"""

from symnb.gpuarray import basic_ops, blas, dnn  # noqa: F401

#: Whether the GPU backend's ops Theano libraries call (cuDNN, GpuCorrMM) can be used:
#: always in symnb, on every device (see the module docstring).
pygpu_activated = True

#: Theano's binding of the ``pygpu`` module (None where it is not installed): symnb has
#: none, so code written against pygpu's own arrays (Theano's GPU tests: "pygpu not
#: installed") takes its path for a machine without it.
pygpu = None

__all__ = ["pygpu_activated", "pygpu", "basic_ops", "blas", "dnn"]
