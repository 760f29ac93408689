"""``symnb.sandbox.cuda``: Theano's old CUDA backend, as a CPU-only Theano install has it.

Older libraries probe it (Lasagne 0.1: ``from theano.sandbox.cuda import dnn;
dnn.dnn_available()``; later Lasagne: ``theano.sandbox.cuda.cuda_enabled``); it reports
no CUDA backend, so they take their generic path, which symnb runs on the GPU through
JAX when one is used (see :mod:`symnb.gpuarray`).
"""

from symnb.sandbox.cuda import dnn  # noqa: F401

#: Whether Theano's old CUDA backend can be used / is in use: never in symnb.
cuda_available = False
cuda_enabled = False

__all__ = ["cuda_available", "cuda_enabled", "dnn"]
