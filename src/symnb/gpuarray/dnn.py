"""``symnb.gpuarray.dnn``: Theano's cuDNN probe, answering as a CPU-only Theano does.

symnb calls no cuDNN function by name; ``T.nnet.conv2d`` and ``pool_2d`` are compiled
by XLA, which uses cuDNN on an NVIDIA GPU.
"""

from __future__ import annotations

__all__ = ["dnn_present", "dnn_available"]

_REASON = ("symnb has no libgpuarray backend: T.nnet.conv2d and pool_2d are compiled by XLA, "
           "which uses cuDNN on an NVIDIA GPU (see docs/devices.md)")


def dnn_present() -> bool:
    """False: Theano's cuDNN ops are not in symnb (``dnn_present.msg`` says why)."""
    return False


def dnn_available(context_name: object = None) -> bool:
    """False, as :func:`dnn_present` (``dnn_available.msg`` says why)."""
    return False


dnn_present.msg = _REASON
dnn_available.msg = _REASON
