"""``symnb.gpuarray.basic_ops``: the layout helpers of Theano's GPU backend that
libraries call around its ops (Lasagne's ``gpu_contiguous`` before ``GpuCorrMM``)."""

from __future__ import annotations

from typing import Any

from symnb.core.graph.basic import Variable
from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.core.tensor.basic import as_tensor_variable

__all__ = ["gpu_contiguous"]


def gpu_contiguous(x: Any) -> Variable:
    """``x`` itself (as a tensor): Theano copied a strided GPU array into a C-contiguous
    one for cuDNN and GpuCorrMM; XLA lays out every array it hands to a kernel, so there
    is nothing to copy and no node is added."""
    return as_tensor_variable(x)


_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)
