"""A program's small outputs returned in one buffer (the fast path's call).

Each output of a ``jax.jit`` program costs its call about 0.6 us more in JAX's dispatch
and about 0.8 us in its copy to the host (JAX 0.10 on CPU): a PyMC3 model's logp and
gradient (two outputs of about 10 values) took 2 us of a 12 us call in these
(bench/bench_pymc3.py). A function of several outputs of one dtype, no update
and small sizes therefore runs, on its fast path (``compile/fast_path.py``), a second
``jax.jit`` of the same traced function returning its outputs concatenated, flat, in one
array (:func:`packing`); the call copies that array to the host once and returns views of
it, one per output (:meth:`OutputLayout.split_source`, ``split``): arrays the caller owns, as
writable as the copies of the unpacked program, each in its own part of the buffer.

Where each output lies in the buffer is known when the function is compiled
(:class:`OutputLayout`): every output's type has static lengths, but for at most one
vector (a gradient's length is usually the input's), which takes what the others leave.
A trace whose outputs do not match that layout, or are too large to be worth the
concatenation (more than :data:`LIMIT` values), returns the list of outputs instead: the
call tells them apart by the result's type. The full path (keywords, profiles, modes)
runs the unpacked program, unchanged.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np

from symnb.core.graph.basic import Variable

__all__ = ["OutputLayout", "packing", "LIMIT"]

#: The most values packed in one buffer. XLA fuses the concatenation with what computes
#: the outputs where it can (a scalar and a vector of 16,384 float64 values computed
#: elementwise: 42 us packed against 47 us as two outputs, JAX 0.10 on CPU); where it
#: cannot (an output that is an input or a loop's result), it is a pass of its own over
#: the values, worth the 1-2 us it saves only for small outputs.
LIMIT = 1024


class OutputLayout:
    """Where each of a program's outputs lies in its packed buffer (see the module).

    ``parts``: per output, ``(start, stop, shape)`` of its values in the flat buffer;
    ``stop`` None for the one output whose length is not static (it ends where the
    outputs after it begin, counted from the buffer's end: ``start`` and ``stop`` of
    those are then negative)."""

    def __init__(self, dtype: np.dtype, parts: Sequence[tuple[int, int | None, tuple]]) -> None:
        self.dtype = dtype
        self.parts = tuple(parts)

    @classmethod
    def of(cls, outputs: Sequence[Variable]) -> "OutputLayout | None":
        """The layout of ``outputs`` packed, or None when they cannot be: fewer than two,
        dtypes that differ, more than one length not known statically (or one of a
        non-vector), more static values than :data:`LIMIT`."""
        if len(outputs) < 2:
            return None
        dtypes = {np.dtype(v.type.dtype) for v in outputs}
        if len(dtypes) != 1:
            return None
        shapes = [tuple(v.type.shape) for v in outputs]
        unknown = [i for i, s in enumerate(shapes) if any(n is None for n in s)]
        if len(unknown) > 1 or (unknown and len(shapes[unknown[0]]) != 1):
            return None
        sizes = [0 if i in unknown else math.prod(s) for i, s in enumerate(shapes)]
        if sum(sizes) > LIMIT:
            return None
        parts: list[tuple[int, int | None, tuple]] = []
        start = 0
        for i, shape in enumerate(shapes):
            if unknown and i == unknown[0]:
                after = sum(sizes[i + 1:])  # counted from the end: negative positions
                parts.append((start, -after if after else None, (-1,)))
                start = -after
            else:
                stop = start + sizes[i]  # 0 after the unknown length: the buffer's end
                parts.append((start, None if stop == 0 and start < 0 else stop, shape))
                start += sizes[i]
        return cls(dtypes.pop(), parts)

    def fits(self, results: Sequence[Any]) -> bool:
        """Whether the results a trace computed (JAX values) have this layout's dtype and
        static shapes, and are small enough to pack (else the trace returns them as a list)."""
        if len(results) != len(self.parts):
            return False
        total = 0
        for result, (_, _, shape) in zip(results, self.parts):
            if np.dtype(result.dtype) != self.dtype:
                return False
            if shape != (-1,) and tuple(result.shape) != shape:
                return False
            if shape == (-1,) and len(result.shape) != 1:
                return False
            total += math.prod(result.shape)
        return total <= LIMIT

    def split_source(self, packed: str) -> str:
        """Python source of the list of the outputs, views of the host array named
        ``packed`` (for the fast path's written-out call)."""
        views = []
        for start, stop, shape in self.parts:
            part = f"{packed}[{start}:{'' if stop is None else stop}]"
            views.append(part if len(shape) == 1 else f"{part}.reshape({shape!r})")
        return "[" + ", ".join(views) + "]"

    def split(self, packed: np.ndarray) -> list[np.ndarray]:
        """The outputs, views of ``packed`` (the host copy of the buffer)."""
        return [packed[start:stop] if len(shape) == 1 else packed[start:stop].reshape(shape)
                for start, stop, shape in self.parts]


def packing(traced: Callable[..., Sequence[Any]], layout: OutputLayout) -> Callable[..., Any]:
    """``traced`` (a program's function for ``jax.jit``, returning the list of its
    outputs) returning them packed in one flat array when a trace's outputs fit
    ``layout`` (see :meth:`OutputLayout.fits`), else the list itself."""
    import jax.numpy as jnp

    def packed(*args: Any) -> Any:
        results = traced(*args)
        if not layout.fits(results):
            return results
        return jnp.concatenate([jnp.ravel(r) for r in results])

    return packed
