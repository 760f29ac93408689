"""Where edge labels go: never on a box, never on another label, never clipped.

Each label has candidate centres (where ``dot`` put it, then points along its edge,
beside the line); the first one whose rectangle stays inside the picture and overlaps
no box, no open group's title and no label placed before it wins. A label with no free
place is left out of the picture (its edge's tooltip still says it). A grid of cells
keeps the checks near-linear for thousands of labels.
"""

from __future__ import annotations

from typing import Any

__all__ = ["LABEL_CHAR", "LABEL_HEIGHT", "LABEL_FONT", "label_size", "settle_labels"]

LABEL_FONT = 10      # px, monospace
LABEL_CHAR = 6.2     # px per character at that size (monospace fonts: 0.6 em, and a margin)
LABEL_HEIGHT = 13.0
_GAP = 1.0           # kept free around each label
_CELL = 64.0


def label_size(text: str) -> tuple[float, float]:
    """The rectangle a label of ``text`` takes, in px."""
    return len(text) * LABEL_CHAR + 4, LABEL_HEIGHT


class _Grid:
    def __init__(self) -> None:
        self.cells: dict[tuple[int, int], list[tuple[float, float, float, float]]] = {}

    def _keys(self, rect: tuple[float, float, float, float]):
        x, y, w, h = rect
        for i in range(int(x // _CELL), int((x + w) // _CELL) + 1):
            for j in range(int(y // _CELL), int((y + h) // _CELL) + 1):
                yield i, j

    def add(self, rect: tuple[float, float, float, float]) -> None:
        for key in self._keys(rect):
            self.cells.setdefault(key, []).append(rect)

    def hits(self, rect: tuple[float, float, float, float]) -> bool:
        x, y, w, h = rect
        for key in self._keys(rect):
            for ox, oy, ow, oh in self.cells.get(key, ()):
                if x < ox + ow and ox < x + w and y < oy + oh and oy < y + h:
                    return True
        return False


def settle_labels(laid: Any, texts: list[str], points: list[list[tuple[float, float]]]) -> list:
    """Per edge, its label's rectangle ``(x, y, w, h)`` or None (not drawn), for the
    boxes and frames of ``laid`` (a :class:`~symnb.printing.layout.Layout`)."""
    grid = _Grid()
    for box in laid.boxes.values():
        grid.add(box)
    for fx, fy, fw, _fh in laid.frames.values():
        grid.add((fx, fy, fw, 16.0))  # the frame's title bar
    placed: list = []
    for text, candidates in zip(texts, points):
        placed.append(_place(text, candidates, grid, laid.width, laid.height) if text else None)
    return placed


def _place(text: str, candidates: list, grid: _Grid, width: float, height: float):
    w, h = label_size(text)
    for cx, cy in candidates:
        rect = (cx - w / 2, cy - h / 2, w, h)
        if rect[0] < 0 or rect[1] < 0 or rect[0] + w > width or rect[1] + h > height:
            continue
        padded = (rect[0] - _GAP, rect[1] - _GAP, w + 2 * _GAP, h + 2 * _GAP)
        if not grid.hits(padded):
            grid.add(rect)
            return rect
    return None
