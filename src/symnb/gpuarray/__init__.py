"""``symnb.gpuarray``: Theano's libgpuarray backend, as a CPU-only Theano install has it.

symnb has no libgpuarray (pygpu) backend: JAX places every program on the device
(``sn.config.device``), and XLA compiles convolutions to cuDNN calls on an NVIDIA GPU.
Libraries that probe for Theano's GPU backend (Lasagne: ``from theano import gpuarray;
gpuarray.pygpu_activated``, ``gpuarray.dnn.dnn_present()``) find it not activated, as
on a CPU-only Theano, and take their generic path (``T.nnet.conv2d``, ``pool_2d``),
which runs on the GPU when symnb does.
"""

from symnb.gpuarray import dnn  # noqa: F401

#: Whether Theano's libgpuarray backend is in use: never in symnb (see the module docstring).
pygpu_activated = False

__all__ = ["pygpu_activated", "dnn"]
