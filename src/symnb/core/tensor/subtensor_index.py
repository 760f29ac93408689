"""How indexing ops describe ``x[...]``: the index structure and its static shapes.

An indexing op keeps the *structure* of its index in ``idx_list`` (hashable, one of its
``__props__``) and the symbolic parts as node inputs, in order. Entries of ``idx_list``:

- an ``int``: a constant integer index (negative counts from the end);
- ``SCALAR``: a symbolic integer scalar (the next index input);
- ``ARRAY``: a symbolic integer array, advanced indexing (the next index input);
- ``Mask(ndim)``: a symbolic boolean array over ``ndim`` axes (the next index input);
- ``Slice(start, stop, step)``: each part ``None``, an ``int`` or ``SCALAR``;
- ``None``: a new axis of length 1 (``np.newaxis``);
- ``Ellipsis``: as many full slices as needed.

Ellipsis stays an entry (rather than being expanded into slices) because NumPy counts
it as a separator of advanced indices even when it stands for no axis at all.
"""

from __future__ import annotations

import enum
from typing import Any, Callable, NamedTuple, Sequence

from symnb.core.tensor.elemwise import broadcast_static_shapes

__all__ = [
    "SCALAR", "ARRAY", "Mask", "Slice", "Entry", "is_advanced", "index_inputs_count", "input_entries",
    "entry_axes", "advanced_insert_position", "output_shape", "static_slice_length",
    "build_index", "format_idx_list",
]


class Part(enum.Enum):
    """Placeholders for the symbolic parts of an index."""

    SCALAR = "?"
    ARRAY = "[]"

    def __repr__(self) -> str:
        return self.value


SCALAR = Part.SCALAR
ARRAY = Part.ARRAY


class Mask(NamedTuple):
    """A boolean array index covering ``ndim`` axes of the indexed tensor."""

    ndim: int


class Slice(NamedTuple):
    """A slice whose parts are ``None``, constant ints or ``SCALAR``."""

    start: int | Part | None
    stop: int | Part | None
    step: int | Part | None


Entry = Any  # int | Part | Mask | Slice | None | type(Ellipsis)


def is_advanced(idx_list: Sequence[Entry]) -> bool:
    """True when the index uses NumPy's advanced indexing (an integer or boolean array)."""
    return any(e is ARRAY or isinstance(e, Mask) for e in idx_list)


def index_inputs_count(idx_list: Sequence[Entry]) -> int:
    """How many symbolic index inputs ``idx_list`` takes."""
    count = 0
    for entry in idx_list:
        if isinstance(entry, Slice):
            count += sum(part is SCALAR for part in entry)
        elif entry is SCALAR or entry is ARRAY or isinstance(entry, Mask):
            count += 1
    return count


def input_entries(idx_list: Sequence[Entry]) -> list[int]:
    """For each symbolic index input, in order, the position of its entry in ``idx_list``."""
    positions: list[int] = []
    for i, entry in enumerate(idx_list):
        positions.extend([i] * index_inputs_count((entry,)))
    return positions


def _consumed(entry: Entry) -> int:
    """How many axes of ``x`` an entry indexes."""
    if entry is None or entry is Ellipsis:
        return 0
    return entry.ndim if isinstance(entry, Mask) else 1


def ellipsis_length(idx_list: Sequence[Entry], ndim: int) -> int:
    """How many axes the Ellipsis (explicit or implied at the end) stands for."""
    return ndim - sum(_consumed(e) for e in idx_list)


def entry_axes(idx_list: Sequence[Entry], ndim: int) -> list[int | None]:
    """The first axis of ``x`` each entry indexes (``None`` for newaxis and Ellipsis)."""
    axes: list[int | None] = []
    axis = 0
    for entry in idx_list:
        if entry is Ellipsis:
            axes.append(None)
            axis += ellipsis_length(idx_list, ndim)
        elif entry is None:
            axes.append(None)
        else:
            axes.append(axis)
            axis += _consumed(entry)
    return axes


def _advanced_positions(idx_list: Sequence[Entry]) -> list[int]:
    """Entries taking part in advanced indexing: with an array, integers count too (NumPy)."""
    if not is_advanced(idx_list):
        return []
    return [i for i, e in enumerate(idx_list)
            if e is ARRAY or e is SCALAR or isinstance(e, (Mask, int))]


def advanced_insert_position(idx_list: Sequence[Entry], ndim: int) -> int:
    """Where the broadcast dimensions of the advanced indices go in the result.

    NumPy puts them in place of the first advanced index when all advanced indices are
    adjacent, and first otherwise.
    """
    positions = _advanced_positions(idx_list)
    if positions != list(range(positions[0], positions[-1] + 1)):
        return 0
    result_dims = 0
    ellipsis = ellipsis_length(idx_list, ndim)
    for entry in idx_list[:positions[0]]:
        result_dims += ellipsis if entry is Ellipsis else 1
    return result_dims


def static_slice_length(entry: Slice, length: int | None) -> int | None:
    """The length a slice selects from an axis of ``length``, when known statically."""
    if length is None or any(part is SCALAR for part in entry):
        return None
    return len(range(*slice(*entry).indices(length)))


def output_shape(idx_list: Sequence[Entry], x_shape: Sequence[Any], broadcast: Sequence[Any],
                 slice_length: Callable[[int, Slice, Any], Any]) -> tuple:
    """The shape of ``x[index]``.

    ``broadcast`` is the broadcast shape of the advanced indices; ``slice_length(i, entry,
    length)`` gives the length entry ``i`` selects from an axis of ``length``. Lengths may
    be ints, ``None`` or symbolic, as the callers need.
    """
    ndim = len(x_shape)
    ellipsis = ellipsis_length(idx_list, ndim)
    shape: list[Any] = []
    axis = 0
    for i, entry in enumerate(idx_list):
        if entry is None:
            shape.append(1)
        elif entry is Ellipsis:
            shape.extend(x_shape[axis:axis + ellipsis])
            axis += ellipsis
        elif isinstance(entry, Slice):
            shape.append(slice_length(i, entry, x_shape[axis]))
            axis += 1
        else:
            axis += _consumed(entry)
    shape.extend(x_shape[axis:])
    if is_advanced(idx_list):
        position = advanced_insert_position(idx_list, ndim)
        shape[position:position] = list(broadcast)
    return tuple(shape)


def static_output_shape(idx_list: Sequence[Entry], x_shape: Sequence[int | None],
                        index_shapes: Sequence[tuple[int | None, ...]]) -> tuple[int | None, ...]:
    """Static shape of ``x[index]``; ``index_shapes`` are the static shapes of the index inputs.

    Raises ``ValueError`` (from broadcasting) when the advanced indices cannot broadcast.
    """
    shapes = iter(index_shapes)
    advanced_shapes = []
    for entry in idx_list:
        for part in (entry if isinstance(entry, Slice) else (entry,)):
            if part is SCALAR:
                next(shapes)
            elif part is ARRAY:
                advanced_shapes.append(next(shapes))
            elif isinstance(part, Mask):
                mask_shape = next(shapes)
                empty = 0 in mask_shape
                advanced_shapes.append((0,) if empty else (None,))
    broadcast = broadcast_static_shapes(advanced_shapes) if advanced_shapes else ()
    return output_shape(idx_list, x_shape, broadcast,
                        lambda i, entry, length: static_slice_length(entry, length))


def build_index(idx_list: Sequence[Entry], values: Sequence[Any],
                scalar: Callable[[Any], Any] = lambda v: v) -> tuple:
    """The Python index tuple for NumPy or jax.numpy: ``idx_list`` filled with ``values``.

    ``scalar`` converts the value of a symbolic slice part or integer index.
    """
    values = iter(values)

    def fill(part: Any) -> Any:
        return scalar(next(values)) if part is SCALAR else part

    index = []
    for entry in idx_list:
        if isinstance(entry, Slice):
            index.append(slice(*(fill(p) for p in entry)))
        elif entry is ARRAY or isinstance(entry, Mask):
            index.append(next(values))
        else:
            index.append(fill(entry))
    return tuple(index)


def format_idx_list(idx_list: Sequence[Entry], names: Sequence[str] | None = None) -> str:
    """``1:?, ::-1, None, [], ...``: the index as it reads in NumPy, symbolic parts as ?/[];
    with ``names`` (what the index inputs are called, in order), as the user wrote it:
    ``t``, ``1:n``, ``idx``."""
    given = iter(names) if names is not None else None

    def part(value: Any) -> str:
        if value is None:
            return ""
        if given is not None and isinstance(value, Part):
            return next(given, repr(value))
        return repr(value)

    texts = []
    for entry in idx_list:
        if isinstance(entry, Slice):
            start, stop, step = (part(p) for p in entry)
            texts.append(f"{start}:{stop}" + (f":{step}" if entry.step is not None else ""))
        elif isinstance(entry, Mask):
            texts.append(next(given, f"mask{entry.ndim}d") if given is not None else f"mask{entry.ndim}d")
        elif entry is Ellipsis:
            texts.append("...")
        else:  # an int, a symbolic scalar, None (a new axis)
            texts.append(part(entry) if entry is not None else "None")
    return ", ".join(texts)
