"""Theano's convolution op classes, by their Theano names and constructors.

Libraries build these ops directly (Lasagne's transposed convolution is
``AbstractConv2d_gradInputs(imshp, kshp, subsample=..., border_mode=...,
filter_flip=...)(W, input, output_size)``, its dilated one ``AbstractConv2d_gradWeights``).
Each is symnb's op of that kind (``conv.py``) for 2 or 3 spatial axes, built from
Theano's keywords: the nodes compute, differentiate and lower as the ops that
``conv2d`` and its gradients build. ``imshp``/``kshp`` are Theano's shape hints: where
an entry is an int, the operands' static lengths must agree with it.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.errors import build_error
from symnb.core.graph import Apply, Constant, Variable
from symnb.core.tensor.conv import AbstractConv, AbstractConvGradInputs, AbstractConvGradWeights

__all__ = ["AbstractConv2d", "AbstractConv3d", "AbstractConv2d_gradInputs",
           "AbstractConv3d_gradInputs", "AbstractConv2d_gradWeights", "AbstractConv3d_gradWeights"]


def _theano_params(convdim: int, border_mode: Any, subsample: Any, filter_flip: bool,
                   filter_dilation: Any, num_groups: int, unshared: bool) -> dict[str, Any]:
    if unshared:
        raise build_error("unshared (locally connected) convolutions are not supported",
                          NotImplementedError)
    return dict(convdim=convdim, border_mode=border_mode, subsample=subsample,
                filter_flip=filter_flip,
                filter_dilation=(1,) * convdim if filter_dilation is None else filter_dilation,
                num_groups=num_groups)


def _theano_hint(shape: Any, what: str) -> tuple | None:
    """Theano's ``imshp``/``kshp``: None, or a tuple or list whose entries are ints,
    constants or None (a constant's value is the hint). A symbolic vector, even a
    constant one, or an entry computed by the graph is refused with Theano's
    ``ValueError``."""
    if shape is None:
        return None
    if isinstance(shape, Variable) or not isinstance(shape, (tuple, list)):
        raise build_error(f"{what} should be None or a tuple of constant int values; got "
                          f"{shape!r}, not a tuple or list", ValueError)
    hint = []
    for entry in shape:
        if isinstance(entry, Constant):
            entry = entry.data
        if entry is None or isinstance(entry, (int, np.integer)) \
                or (isinstance(entry, np.ndarray) and entry.ndim == 0 and entry.dtype.kind in "iu"):
            hint.append(None if entry is None else int(entry))
        else:
            raise build_error(f"{what} should be None or a tuple of constant int values; its entry "
                              f"{entry!r} is not one", ValueError)
    return tuple(hint)


def _check_hint(what: str, hint: Sequence[Any] | None, shape: Sequence[int | None], op: Any) -> None:
    """A hint entry that is an int must match the static length it describes."""
    for axis, (given, actual) in enumerate(zip(hint or (), shape)):
        if isinstance(given, int) and actual is not None and given != actual:
            raise build_error(f"{op.display_name()}: {what}={tuple(hint)} says axis {axis} is "
                              f"{given}, but it is {actual}", ValueError)


class AbstractConv2d(AbstractConv):
    """Theano's forward 2-d convolution op: ``AbstractConv2d(imshp, kshp, border_mode,
    subsample, filter_flip, filter_dilation, num_groups)(image, filters)``."""

    convdim_of_class = 2

    def __init__(self, imshp: Any = None, kshp: Any = None, border_mode: Any = "valid",
                 subsample: Any = None, filter_flip: bool = True, filter_dilation: Any = None,
                 num_groups: int = 1, unshared: bool = False) -> None:
        n = self.convdim_of_class
        params = _theano_params(n, border_mode, subsample or (1,) * n, filter_flip,
                                filter_dilation, num_groups, unshared)
        super().__init__(**params, imshp=_theano_hint(imshp, "imshp"), kshp=_theano_hint(kshp, "kshp"))


class AbstractConv3d(AbstractConv2d):
    """Theano's forward 3-d convolution op (see :class:`AbstractConv2d`)."""

    convdim_of_class = 3


class _GradOp:
    """Theano's constructor for the two gradient ops (mixed into symnb's ops)."""

    convdim_of_class = 2

    def __init__(self, imshp: Any = None, kshp: Any = None, border_mode: Any = "valid",
                 subsample: Any = None, filter_flip: bool = True, filter_dilation: Any = None,
                 num_groups: int = 1, unshared: bool = False) -> None:
        n = self.convdim_of_class
        super().__init__(**_theano_params(n, border_mode, subsample or (1,) * n, filter_flip,
                                          filter_dilation, num_groups, unshared))
        # Hints only (not props: they do not change what the node computes).
        self.__dict__["hints"] = (_theano_hint(imshp, "imshp"), _theano_hint(kshp, "kshp"))

    def make_node(self, *inputs: Any) -> Apply:
        node = super().make_node(*inputs)
        imshp, kshp = self.hints
        image_var, kernel_var = self.image_and_kernel(node)
        _check_hint("imshp", imshp, image_var.type.shape, self)
        _check_hint("kshp", kshp, kernel_var.type.shape, self)
        return node


class AbstractConv2d_gradInputs(_GradOp, AbstractConvGradInputs):
    """Theano's transposed 2-d convolution op: ``AbstractConv2d_gradInputs(imshp, kshp,
    border_mode, subsample, filter_flip, filter_dilation, num_groups)(filters,
    output_grad, input_spatial_shape)``, the gradient of ``conv2d`` with respect to its
    image."""

    @staticmethod
    def image_and_kernel(node: Apply) -> tuple:
        return node.outputs[0], node.inputs[0]


class AbstractConv3d_gradInputs(AbstractConv2d_gradInputs):
    """:class:`AbstractConv2d_gradInputs` for 3 spatial axes."""

    convdim_of_class = 3


class AbstractConv2d_gradWeights(_GradOp, AbstractConvGradWeights):
    """Theano's op for the gradient of ``conv2d`` with respect to its filters:
    ``AbstractConv2d_gradWeights(imshp, kshp, ...)(image, output_grad,
    filter_spatial_shape)`` (Lasagne's dilated convolution)."""

    @staticmethod
    def image_and_kernel(node: Apply) -> tuple:
        return node.inputs[0], node.outputs[0]


class AbstractConv3d_gradWeights(AbstractConv2d_gradWeights):
    """:class:`AbstractConv2d_gradWeights` for 3 spatial axes."""

    convdim_of_class = 3
