"""Theano's other input constructors: rows and columns (a length-1 axis, which
Theano called broadcastable), and the plural forms that make several inputs at once
(``x, y = T.dmatrices('x', 'y')``)."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from symnb.core.tensor import basic
from symnb.core.tensor.basic import tensor
from symnb.core.tensor.variable import TensorVariable

__all__ = ["row", "col", "rows", "cols", "scalars", "vectors", "matrices", "tensor3s", "tensor4s"]

_PREFIXES = {"f": "float32", "d": "float64", "i": "int32", "l": "int64", "b": "int8"}


def _row_or_col(length_one_axis: int, dtype: str | None, kind: str) -> Callable[..., TensorVariable]:
    def make(name: str | None = None, dtype: Any = dtype, test_value: Any = None) -> TensorVariable:
        shape = (1, None) if length_one_axis == 0 else (None, 1)
        return tensor(dtype, shape, name=name, test_value=test_value)

    make.__name__ = kind
    make.__doc__ = (f"A symbolic matrix whose axis {length_one_axis} has length 1 (Theano's "
                    f"{kind}); dtype {dtype or 'defaults to config.floatX'}.")
    return make


row = _row_or_col(0, None, "row")
col = _row_or_col(1, None, "col")


def plural(single: Callable[..., TensorVariable]) -> Callable[..., Any]:
    """Theano's plural constructor of ``single``: ``f(3)`` makes three unnamed inputs,
    ``f('x', 'y')`` one per name, ``f('xy')`` one per character (a lone one-character
    name makes one input, not a list), as in Theano."""
    def make(*names: Any, dtype: Any = None) -> Any:
        kwargs = {} if dtype is None else {"dtype": dtype}
        if names and isinstance(names[0], int) and not isinstance(names[0], bool):
            return [single(**kwargs) for _ in range(names[0])]
        if len(names) == 1:
            names = names[0]
        if len(names) == 1:
            return single(names, **kwargs)
        return [single(name, **kwargs) for name in names]

    make.__name__ = single.__name__ + "s" if not single.__name__.endswith("x") else single.__name__
    make.__doc__ = (f"Several inputs made with ``{single.__name__}``: an int (how many, unnamed), "
                    f"or names (one per argument, or one per character of a single string).")
    return make


def _typed(kind: str) -> dict[str, Callable[..., TensorVariable]]:
    """``frow``, ``dcol``, ...: the typed singles Theano had for ``kind``."""
    made = {}
    for prefix, dtype in _PREFIXES.items():
        if kind in ("row", "col"):
            made[prefix + kind] = _row_or_col(0 if kind == "row" else 1, dtype, prefix + kind)
        else:
            made[prefix + kind] = getattr(basic, prefix + kind)
    return made


_PLURAL_OF = {"scalar": "scalars", "vector": "vectors", "matrix": "matrices", "row": "rows",
              "col": "cols", "tensor3": "tensor3s", "tensor4": "tensor4s"}

rows = plural(row)
cols = plural(col)
scalars = plural(basic.scalar)
vectors = plural(basic.vector)
matrices = plural(basic.matrix)
tensor3s = plural(basic.tensor3)
tensor4s = plural(basic.tensor4)
for _kind, _plural_name in _PLURAL_OF.items():
    for _name, _single in _typed(_kind).items():
        if _kind in ("row", "col"):
            globals()[_name] = _single
            __all__.append(_name)
        _plural_fn = plural(_single)
        _plural_fn.__name__ = _name[0] + _plural_name
        globals()[_name[0] + _plural_name] = _plural_fn
        __all__.append(_name[0] + _plural_name)
del _kind, _plural_name, _name, _single, _plural_fn

TYPED_NAMES: Sequence[str] = tuple(__all__)
