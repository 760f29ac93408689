"""``symnb.configdefaults``: the helpers of Theano's ``theano.configdefaults`` that programs
and tests call (the flags themselves are ``sn.config``: :mod:`symnb.core.graph.config`)."""

from __future__ import annotations

import struct

__all__ = ["python_int_bitwidth", "local_bitwidth"]


def python_int_bitwidth() -> int:
    """The bit width of a C ``long`` (Theano's "Python int" width: 64 on Linux and macOS,
    32 on Windows)."""
    return struct.calcsize("l") * 8


def local_bitwidth() -> int:
    """The bit width of a memory pointer (32 or 64)."""
    return struct.calcsize("P") * 8
