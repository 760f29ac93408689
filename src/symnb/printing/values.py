"""Test values at a glance: a one-line summary and a small heatmap.

- :func:`value_stats`: ``float32 (100, 10) mean=0.49 std=0.29 min=0 max=1 NaN=2 inf=0``;
- :func:`heatmap_html`: a 1-D or 2-D value as a small picture (an ``<img>`` holding a
  PNG, so it survives saving: GitHub, nbconvert and a notebook reopened without its
  kernel show it as they show any image), NaN and infinities in their own colours.

The picture is drawn here rather than by an array viewer: Treescope renders arrays
with JavaScript (a custom element), which a saved notebook shown without a kernel or
on GitHub does not run, and matplotlib would be a heavy dependency for 30 lines.
The PNG is written with ``zlib`` from the standard library.
"""

from __future__ import annotations

import base64
import html
import struct
import zlib

import numpy as np

from symnb.core.graph.type import describe_shape

__all__ = ["value_stats", "value_numbers", "heatmap_png", "heatmap_html", "NAN_COLOR", "POSINF_COLOR",
           "NEGINF_COLOR"]

_SMALL = 6  # values with at most this many elements are also spelled out
_MAX_CELLS = (24, 48)  # heatmap rows, columns: larger values are averaged by blocks
_CELL_PX = (6, 16)  # a cell's side on the page, least and most: a picture ~300 px wide
_PICTURE_PX = 300

# Viridis at five stops (matplotlib's default colormap): dark blue (low) to yellow (high).
_STOPS = np.array([[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]],
                  dtype=np.float64)
NAN_COLOR = (255, 0, 255)      # magenta: no colormap colour is near it
POSINF_COLOR = (255, 255, 255)  # white, framed by the picture's border
NEGINF_COLOR = (0, 0, 0)


def _number(value: float) -> str:
    return f"{value:.4g}"


def value_stats(value: np.ndarray | None, numbers: dict | None = None) -> str:
    """One line: dtype, shape, then (for a non-empty numeric value) mean, std, min, max
    over the finite elements and the count of NaN and inf; a small value is spelled out.
    ``numbers``: the value's :func:`value_numbers`, when already computed."""
    if value is None:
        return "no test value"
    array = np.asarray(value)
    head = f"{_dtype_text(array.dtype)} {describe_shape(array.shape)}"
    if array.size == 0 or array.dtype.kind not in "biuf":
        return head
    parts = [head]
    if array.size <= _SMALL:
        parts.append(_spelled(array))
    if numbers is None:
        numbers = value_numbers([array])[0]
    if "mean" in numbers:
        parts.append(f"mean={_number(numbers['mean'])} std={_number(numbers['std'])} "
                     f"min={_number(numbers['min'])} max={_number(numbers['max'])}")
    if array.dtype.kind == "f":
        parts.append(f"NaN={numbers['nan_count']} inf={numbers['inf_count']}")
    return " ".join(parts)


_DTYPE_TEXTS: dict = {}


def _dtype_text(dtype: np.dtype) -> str:
    """``str(dtype)``, remembered: NumPy builds the text anew each time (a model of
    50,000 values asks for a handful of dtypes)."""
    text = _DTYPE_TEXTS.get(dtype)
    if text is None:
        text = _DTYPE_TEXTS[dtype] = str(dtype)
    return text


def value_numbers(values: list) -> list[dict | None]:
    """For each value: its NaN and Inf counts, and over its finite elements its mean,
    std, min, max and max |value| (absent when it has none); None for a value with no
    numbers (None, empty, not numeric). Computed for all the values at once, as one
    array cut into segments: a graph of 50,000 small values takes one pass, not 50,000."""
    result: list[dict | None] = [None] * len(values)
    arrays, where = [], []
    for i, value in enumerate(values):
        if value is None:
            continue
        array = np.asarray(value)
        if array.size and array.dtype.kind in "biuf":
            arrays.append(array.ravel().astype(np.float64, copy=False))
            where.append(i)
    if not arrays:
        return result
    flat = np.concatenate(arrays)
    sizes = np.array([a.size for a in arrays])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    nan = np.add.reduceat(np.isnan(flat), starts)
    finite_mask = np.isfinite(flat)
    finite = np.add.reduceat(finite_mask, starts)
    inf = sizes - nan - finite
    clean = np.where(finite_mask, flat, 0.0)
    count = np.maximum(finite, 1)
    mean = np.add.reduceat(clean, starts) / count
    deviation = np.where(finite_mask, flat - np.repeat(mean, sizes), 0.0)
    std = np.sqrt(np.add.reduceat(deviation * deviation, starts) / count)
    low = np.minimum.reduceat(np.where(finite_mask, flat, np.inf), starts)
    high = np.maximum.reduceat(np.where(finite_mask, flat, -np.inf), starts)
    for k, i in enumerate(where):
        numbers = {"nan_count": int(nan[k]), "inf_count": int(inf[k])}
        if finite[k]:
            numbers.update(mean=float(mean[k]), std=float(std[k]), min=float(low[k]),
                           max=float(high[k]), max_abs=float(max(-low[k], high[k])))
        result[i] = numbers
    return result


def _spelled(array: np.ndarray) -> str:
    if array.ndim == 0:
        return str(array[()])
    return " ".join(np.array2string(array, separator=", ").split())


# -- heatmap ---------------------------------------------------------------------------

def _blocks(array: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``array`` (as 2-D) cut into at most ``_MAX_CELLS`` blocks: the mean of each block's
    finite elements, and whether the block holds a NaN, a +inf, a -inf."""
    matrix = array.reshape(1, -1) if array.ndim == 1 else array
    matrix = matrix.astype(np.float64)
    # Every block holds at least one element: its starts increase, as reduceat needs.
    starts = (_edges(matrix.shape[0], _MAX_CELLS[0])[:-1], _edges(matrix.shape[1], _MAX_CELLS[1])[:-1])

    def per_block(values: np.ndarray) -> np.ndarray:  # sums over each block, at once
        return np.add.reduceat(np.add.reduceat(values, starts[0], axis=0), starts[1], axis=1)

    finite = np.isfinite(matrix)
    count = per_block(finite.astype(np.int64))
    means = np.full(count.shape, np.nan)
    np.divide(per_block(np.where(finite, matrix, 0.0)), count, out=means, where=count > 0)
    flags = (per_block(f(matrix).astype(np.int64)) > 0 for f in (np.isnan, np.isposinf, np.isneginf))
    return (means, *flags)


def _edges(length: int, most: int) -> np.ndarray:
    return np.linspace(0, length, min(length, most) + 1).round().astype(int)


def _range(means: np.ndarray) -> tuple[float, float]:
    """The values the colour scale runs between: the finite blocks' least and greatest."""
    finite = means[np.isfinite(means)]
    return (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)


def _colors(means: np.ndarray) -> np.ndarray:
    low, high = _range(means)
    scaled = np.zeros_like(means) if high == low else (means - low) / (high - low)
    position = np.nan_to_num(scaled, nan=0.0) * (len(_STOPS) - 1)
    index = np.minimum(position.astype(int), len(_STOPS) - 2)
    fraction = (position - index)[..., None]
    return (_STOPS[index] * (1 - fraction) + _STOPS[index + 1] * fraction).round().astype(np.uint8)


def heatmap_png(value: np.ndarray) -> bytes:
    """A PNG of a 1-D or 2-D numeric value, one pixel per block (scaled up by the page)."""
    array = np.asarray(value)
    if array.ndim not in (1, 2) or array.size == 0 or array.dtype.kind not in "biuf":
        raise ValueError(f"a heatmap needs a non-empty 1-D or 2-D numeric value, got "
                         f"{array.dtype} {describe_shape(array.shape)}")
    means, nan, posinf, neginf = _blocks(array)
    pixels = _colors(means)
    # Marks win over the block's mean: one NaN in a block is what the reader must see.
    pixels[neginf] = NEGINF_COLOR
    pixels[posinf] = POSINF_COLOR
    pixels[nan] = NAN_COLOR
    return _png(pixels)


def _png(pixels: np.ndarray) -> bytes:
    height, width, _ = pixels.shape
    raw = b"".join(b"\x00" + pixels[row].tobytes() for row in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9))
            + chunk(b"IEND", b""))


def heatmap_html(value: np.ndarray | None, title: str = "") -> str:
    """An ``<img>`` of the value's heatmap ('' for values that have none: scalars,
    3-D and more, empty or non-numeric), large enough to read (about 300 px wide), with
    its colour scale from the least to the greatest value shown (block means when a
    large value is averaged) and a legend when NaN or inf are present."""
    if value is None:
        return ""
    array = np.asarray(value)
    if array.ndim not in (1, 2) or array.size == 0 or array.dtype.kind not in "biuf":
        return ""
    png = base64.b64encode(heatmap_png(array)).decode("ascii")
    rows = 1 if array.ndim == 1 else min(array.shape[0], _MAX_CELLS[0])
    cols = min(array.shape[-1], _MAX_CELLS[1])
    cell = int(min(max(_PICTURE_PX // max(cols, 1), _CELL_PX[0]), _CELL_PX[1]))
    width, height = cols * cell, max(rows * cell, 16)
    alt = html.escape(title or value_stats(array), quote=True)
    image = (f'<img class="symnb-heatmap" src="data:image/png;base64,{png}" width="{width}" '
             f'height="{height}" alt="{alt}" title="{alt}" '
             'style="image-rendering:pixelated;border:1px solid #888;vertical-align:middle">')
    marks = []
    if array.dtype.kind == "f":
        for present, color, name in ((np.isnan(array).any(), NAN_COLOR, "NaN"),
                                     (np.isposinf(array).any(), POSINF_COLOR, "+inf"),
                                     (np.isneginf(array).any(), NEGINF_COLOR, "-inf")):
            if present:
                marks.append(f'<span class="symnb-mark" style="display:inline-block;width:.8em;'
                             f'height:.8em;border:1px solid #888;background:rgb{color}"></span> '
                             f'{name}')
    legend = f' <small>{" ".join(marks)}</small>' if marks else ""
    return image + _scale(array) + legend


def _scale(array: np.ndarray) -> str:
    """The colour scale: a bar from the lowest colour to the highest, with its values."""
    averaged = (array.ndim == 2 and array.shape[0] > _MAX_CELLS[0]) or array.shape[-1] > _MAX_CELLS[1]
    low, high = _range(_blocks(array)[0])
    stops = ", ".join(f"rgb({r:.0f},{g:.0f},{b:.0f})" for r, g, b in _STOPS)
    what = "<span>block means</span>" if averaged else ""
    # On one line: in a narrow column (the details card's inputs) "block means" broke in two.
    return (f' <span class="symnb-scale" style="display:inline-flex;align-items:center;gap:4px;'
            f'vertical-align:middle;font-size:11px;color:#333;white-space:nowrap">{what}'
            f'<span>{_number(low)}</span>'
            f'<span style="display:inline-block;width:90px;height:10px;border:1px solid #888;'
            f'background:linear-gradient(to right, {stops})"></span><span>{_number(high)}</span></span>')
