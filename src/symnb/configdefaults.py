"""Theano's ``theano.configdefaults``: the two functions of it that programs and Theano's
tests call, saying how wide the platform's integers are (symnb's flags themselves live
in ``symnb.config``)."""

from __future__ import annotations

import struct

import numpy as np

__all__ = ["local_bitwidth", "python_int_bitwidth"]


def local_bitwidth() -> int:
    """The width in bits of a memory address (64 on a 64-bit Python), as Theano's."""
    return struct.calcsize("P") * 8


def python_int_bitwidth() -> int:
    """The width in bits of NumPy's default integer (C ``long``; 64 on 64-bit Linux), which
    Theano called the Python int."""
    return np.dtype(np.int_).itemsize * 8
