"""``symnb.tensor.nnet.conv``: Theano's deprecated ``conv.conv2d`` (the ``ConvOp``
interface), kept for old code: the convolution of ``T.nnet.conv2d`` with the older
signature and checks.

Theano's ``ConvOp`` computed what ``T.nnet.conv2d`` computes for the border modes it
had ('valid', 'full'): a true convolution (filters flipped) of a batch of images
``(batch, stack, rows, cols)`` by filters ``(nkern, stack, rows, cols)``, every
``subsample``-th output kept.
"""

from __future__ import annotations

from typing import Any, Sequence

from symnb.core.graph.basic import Variable
from symnb.core.graph.errors import build_error, label
from symnb.core.graph.source import warn_at_user_line
from symnb.core.graph.static import get_scalar_constant_value
from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.core.tensor import conv_api
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.conv import AbstractConv as ConvOp

__all__ = ["conv2d", "ConvOp", "imported_scipy_signal"]

#: Theano's flag for "SciPy's signal module imported" (its Python fallback for ConvOp when no
#: C compiler was found). symnb's convolutions compile to XLA and need neither, so they always
#: run: True, and code that gates its convolutions on it (Theano's tests) runs them.
imported_scipy_signal = True

# ``ConvOp`` is the class of the op ``conv2d`` builds (isinstance checks find it in a graph):
# Theano's ConvOp computed what symnb's AbstractConv computes for the modes it had.


def conv2d(input: Any, filters: Any, image_shape: Sequence | None = None,
           filter_shape: Sequence | None = None, border_mode: str = "valid", subsample: Any = (1, 1),
           unroll_batch: Any = None, unroll_kern: Any = None, unroll_patch: Any = None,
           openmp: Any = None, verbose: int = 0, version: Any = -1, direction_hint: str = "forward",
           imshp_logical: Any = None, kshp_logical: Any = None,
           kshp_logical_top_aligned: bool = True) -> Variable:
    """Deprecated (as in Theano): use ``T.nnet.conv2d``. The convolution of ``input``
    ``(batch, stack, rows, cols)`` by ``filters`` ``(nkern, stack, rows, cols)``, of
    shape ``(batch, nkern, out rows, out cols)``.

    - ``border_mode``: ``'valid'`` (``image - filter + 1``) or ``'full'`` (``image +
      filter - 1``); ``subsample``: strides ``(rows, cols)``.
    - ``image_shape``, ``filter_shape``: known lengths (ints, constants or None), checked
      against the operands, as ``T.nnet.conv2d``'s ``input_shape``/``filter_shape``.
    - ``unroll_batch``, ``unroll_kern``, ``unroll_patch``, ``openmp``, ``verbose``,
      ``version``, ``direction_hint``: how Theano's C code ran; they change no value and
      XLA compiles the convolution, so they are accepted and unused.
    - ``imshp_logical``, ``kshp_logical``: Theano's internal zero-insertion for its own
      gradients; not supported.
    """
    warn_at_user_line("symnb.tensor.nnet.conv.conv2d is deprecated (as in Theano): use "
                      "symnb.tensor.nnet.conv2d", DeprecationWarning)
    if imshp_logical is not None or kshp_logical is not None or kshp_logical_top_aligned is not True:
        raise build_error("nnet.conv.conv2d: imshp_logical, kshp_logical and kshp_logical_top_aligned "
                          "(ConvOp's internal zero insertion) are not supported", NotImplementedError)
    if border_mode not in ("valid", "full"):
        raise build_error(f"nnet.conv.conv2d: border_mode must be 'valid' or 'full' (ConvOp's modes; "
                          f"T.nnet.conv2d has the others); got {border_mode!r}", ValueError)
    # ConvOp took the shapes as numbers: a symbolic entry raises NotScalarConstantError.
    image_shape = _constant_lengths(image_shape)
    filter_shape = _constant_lengths(filter_shape)
    if image_shape is not None and filter_shape is not None \
            and None not in (image_shape[1], filter_shape[1]) and image_shape[1] != filter_shape[1]:
        # ConvOp asserted this when built (an AssertionError, as there)
        raise build_error(f"nnet.conv.conv2d: image_shape {tuple(image_shape)} has {image_shape[1]} "
                          f"channels (entry 1) but filter_shape {tuple(filter_shape)} takes "
                          f"{filter_shape[1]}", AssertionError)
    input, filters = as_tensor_variable(input), as_tensor_variable(filters)
    for var, what in ((input, "input"), (filters, "filters")):
        if var.ndim != 4:
            raise build_error(f"nnet.conv.conv2d: the {what} {label(var)!r} must be a 4-d tensor; got "
                              f"{var.type.short()}", TypeError)
    if input.dtype != filters.dtype:
        raise build_error(f"nnet.conv.conv2d: the image and the filters must have the same dtype (as "
                          f"Theano's ConvOp); got {label(input)!r} {input.dtype} and {label(filters)!r} "
                          f"{filters.dtype}", NotImplementedError)
    return conv_api.conv2d(input, filters, input_shape=image_shape, filter_shape=filter_shape,
                           border_mode=border_mode, subsample=subsample)


def _constant_lengths(shape: Sequence | None) -> list | None:
    """``shape``'s entries as ints (None stays None), as ConvOp read them."""
    if shape is None:
        return None
    return [None if n is None else int(get_scalar_constant_value(n)) for n in shape]


_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)
