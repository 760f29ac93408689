"""The run-time checks' flag, brought back inside an output's transfer.

A program that checks values computes ``code``, the id of the first check that failed
(``checks.own_checks``; with checks inside loop bodies or branches,
``checks.checkified_outcome``: 0 when one failed), -1 when all passed, which the caller
must read after every call to raise at that call, as Theano did. Read as an array of its own, it is one more
device->host copy per call than ``jax.jit``'s (on a GPU, a second blocking round trip
of ~10 us after the MLP step's loss). So the program returns it in the bytes of one
output, the *carrier*: ``[code, carrier's dims..., padding][carrier's bytes]`` as one
``uint8`` vector, which the host reads once and splits (:func:`unpack`) into the code
and a view of the output (the call path copies it into an array the caller owns, as
it copies every output). The values a failed check reports stay on the device, read
only when a check failed.

The carrier is an output of the fewest dimensions (a training step's loss), chosen
from the graph's types; an output of a dtype that cannot be reinterpreted as bytes
(complex) is never one. On the device, the carrier is copied into the packed vector
(XLA does not write it there in place): a scalar costs nothing, a large output a copy
of its bytes, which on a CPU (where reading an output copies nothing) would cost more
than the flag's read saves. So a trace packs the flag only into a carrier of at most
:data:`CARRIED_BYTES` (its shapes are known then); above, the program returns the code
as an array of its own, read apart (the host tells the two apart by the code's place:
the outcome's ``code`` is None when the carrier holds it).
"""

from __future__ import annotations

from typing import Any, Sequence

import jax.numpy as jnp
import numpy as np
from jax import lax

from symnb.core.graph.basic import Variable

__all__ = ["carrier_position", "carries", "pack", "unpack", "CARRIED_BYTES"]

_WORD = np.dtype(np.int32)
#: The largest carrier, in bytes: a copy of this many bytes costs less on the device
#: than a read of the flag apart (one more transfer, a ~10 us round trip on a GPU).
CARRIED_BYTES = 1 << 16


def carrier_position(outputs: Sequence[Variable]) -> int | None:
    """The position among ``outputs`` (the function's outputs, not its updates) of the
    output that carries the flag, or None when none can."""
    fit = [(v.type.ndim, i) for i, v in enumerate(outputs) if np.dtype(v.type.dtype).kind in "biuf"]
    return min(fit)[1] if fit else None


def carries(output: Any) -> bool:
    """(While tracing) whether ``output``, the carrier, is small enough to carry the flag."""
    return int(np.prod(np.shape(output), dtype=np.int64)) * np.dtype(output.dtype).itemsize \
        <= CARRIED_BYTES


def _header_words(ndim: int) -> int:
    # code and dims, padded to 8 bytes so that the output's bytes that follow are
    # aligned for any dtype NumPy views them as.
    return (1 + ndim + 1) // 2 * 2


def pack(code: Any, output: Any, dtype: np.dtype) -> Any:
    """(While tracing) ``code`` (an int32 scalar) and ``output`` (of ``dtype``, the
    graph's) as one ``uint8`` vector: header words, then the output's bytes."""
    shape = tuple(int(n) for n in np.shape(output))
    words = [code.astype(jnp.int32)] + [jnp.int32(n) for n in shape]
    words += [jnp.int32(0)] * (_header_words(len(shape)) - len(words))
    header = lax.bitcast_convert_type(jnp.stack(words), jnp.uint8).reshape(-1)
    output = jnp.asarray(output, dtype)
    if dtype.kind != "b":
        # A barrier between the output and its bitcast to bytes: when the output is itself
        # a bitcast (a 64-bit value that came back from a host callback as uint32 words),
        # XLA's simplifier folds the two bitcasts into one of the words, of shape
        # (..., 2, 4), and its verifier then refuses the program ("expected u8[2,4],
        # actual u8[8]"; PyMC3's ADVI, whose loss passes through an op run on the host).
        output = lax.optimization_barrier(output)
    body = output.astype(jnp.uint8) if dtype.kind == "b" else lax.bitcast_convert_type(output, jnp.uint8)
    return jnp.concatenate([header, body.reshape(-1)])


def unpack(packed: Any, ndim: int, dtype: np.dtype) -> tuple[int, np.ndarray]:
    """``(code, output)`` from a packed vector: one read of it from the device; the
    output a read-only NumPy view of the bytes read."""
    raw = np.asarray(packed)  # the one device->host copy (none on a CPU)
    start = _header_words(ndim) * _WORD.itemsize
    words = raw[:start].view(_WORD)
    shape = tuple(int(n) for n in words[1:1 + ndim])
    return int(words[0]), raw[start:].view(dtype).reshape(shape)
