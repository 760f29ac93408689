"""Theano's other input constructors: rows and columns (a length-1 axis, which
Theano called broadcastable), and the plural forms that make several inputs at once
(``x, y = T.dmatrices('x', 'y')``).

As in Theano, ``T.row`` and ``T.col`` are functions taking a ``dtype``; the typed ones
(``T.frow``, ``T.dcol``, ...) are types (``T.dcol == TensorType('float64', (False, True))``).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from symnb.core.graph.type import TensorType
from symnb.core.tensor import basic
from symnb.core.tensor.basic import TYPED_PREFIXES, tensor
from symnb.core.tensor.variable import TensorVariable

__all__ = ["row", "col", "rows", "cols", "scalars", "vectors", "matrices", "tensor3s", "tensor4s"]

_ROW, _COL = (1, None), (None, 1)


def _row_or_col(shape: tuple, kind: str) -> Callable[..., TensorVariable]:
    def make(name: str | None = None, dtype: Any = None, test_value: Any = None) -> TensorVariable:
        return tensor(dtype, shape, name=name, test_value=test_value)

    make.__name__ = kind
    make.__doc__ = (f"A symbolic matrix of shape {shape} (Theano's {kind}: the axis of length 1 "
                    f"is broadcastable); ``dtype`` defaults to config.floatX.")
    return make


row = _row_or_col(_ROW, "row")
col = _row_or_col(_COL, "col")


def plural(single: Callable[..., TensorVariable], name: str) -> Callable[..., Any]:
    """Theano's plural constructor ``name`` of ``single`` (a function or a type):
    ``f(3)`` makes three unnamed inputs, ``f('x', 'y')`` one per name, ``f('xy')`` one
    per character (a lone one-character name makes one input, not a list), as in Theano."""
    def make(*names: Any, dtype: Any = None) -> Any:
        kwargs = {} if dtype is None else {"dtype": dtype}
        if names and isinstance(names[0], int) and not isinstance(names[0], bool):
            return [single(**kwargs) for _ in range(names[0])]
        if len(names) == 1:
            names = names[0]
        if len(names) == 1:
            return single(names, **kwargs)
        return [single(each, **kwargs) for each in names]

    make.__name__ = name
    make.__doc__ = (f"Theano's ``{name}``: several inputs at once, from an int (how many, "
                    f"unnamed) or names (one per argument, or one per character of a single "
                    f"string).")
    return make


_PLURAL_OF = {"scalar": "scalars", "vector": "vectors", "matrix": "matrices", "row": "rows",
              "col": "cols", "tensor3": "tensor3s", "tensor4": "tensor4s"}

rows = plural(row, "rows")
cols = plural(col, "cols")
scalars = plural(basic.scalar, "scalars")
vectors = plural(basic.vector, "vectors")
matrices = plural(basic.matrix, "matrices")
tensor3s = plural(basic.tensor3, "tensor3s")
tensor4s = plural(basic.tensor4, "tensor4s")


def _typed(prefix: str, kind: str) -> TensorType:
    """``frow``, ``dcol``, ``imatrix``...: the type Theano gave that name."""
    if kind in ("row", "col"):
        return TensorType(TYPED_PREFIXES[prefix], _ROW if kind == "row" else _COL)
    return getattr(basic, prefix + kind)


for _kind, _plural_name in _PLURAL_OF.items():
    for _prefix in TYPED_PREFIXES:
        _single = _typed(_prefix, _kind)
        if _kind in ("row", "col"):
            globals()[_prefix + _kind] = _single
            __all__.append(_prefix + _kind)
        globals()[_prefix + _plural_name] = plural(_single, _prefix + _plural_name)
        __all__.append(_prefix + _plural_name)
del _kind, _plural_name, _prefix, _single

TYPED_NAMES: Sequence[str] = tuple(__all__)
