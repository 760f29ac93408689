"""``pprint``: a graph as one algebraic expression (Theano's ``pprint``).

    >>> pprint(prediction)
    gt((1.0 / (1.0 + exp(((-(x · w)) - b)))), 0.5)

Arithmetic and bitwise elementwise ops are written infix and, as in Theano, every
operator application is parenthesized, so the text is unambiguous without precedence
rules. A dot product is written with a middle dot, ``(x · w)`` (Theano's ``\\dot``),
a matrix product ``(x @ y)``.
Other elementwise ops use their scalar name in function form (``exp(x)``, ``gt(a, b)``,
``cast{float64}(x)``) and other ops their display name (``Reshape{2}(x, ...)``).
Inputs show by name (or type when unnamed) and constants by value. A subgraph used
twice is written out twice.

Other modules teach ``pprint`` their ops with :func:`register_pprinter`.
"""

from __future__ import annotations

from typing import Callable

from symnb.core.graph.basic import Apply, Constant, Variable, toposort
from symnb.core.tensor.elemwise import Elemwise
from symnb.core.tensor.scalar_elemwise import ScalarElemwise
from symnb.printing._common import value_text

__all__ = ["pprint", "pp", "register_pprinter"]

#: A printer gets the node, which output to write, and the text of each input.
Printer = Callable[[Apply, int, list[str]], str]

# Keyed by Op class, or by class name for ops whose module printing must not import.
_PRINTERS: dict[type | str, Printer] = {}


def register_pprinter(key: type | str) -> Callable[[Printer], Printer]:
    """Register ``printer(node, output_index, input_texts) -> str`` for an Op class
    (or an Op class name); it also applies to subclasses."""
    def register(printer: Printer) -> Printer:
        _PRINTERS[key] = printer
        return printer

    return register


def pprint(var: Variable) -> str:
    """The algebraic form of ``var``'s graph, e.g. ``gt((1.0 / (1.0 + exp((-x)))), 0.5)``."""
    if not isinstance(var, Variable):
        raise TypeError(f"pprint expects a Variable, got {type(var).__name__}")
    texts: dict[int, str] = {}
    # Nodes in dependency order, so each input's text exists before it is used:
    # no recursion, so deep graphs print too.
    for node in toposort([var]):
        inputs = [texts[id(v)] if id(v) in texts else _leaf(v) for v in node.inputs]
        printer = _printer_for(node)
        for i, out in enumerate(node.outputs):
            texts[id(out)] = printer(node, i, inputs)
    return texts[id(var)] if id(var) in texts else _leaf(var)


pp = pprint  # Theano's short name


def _leaf(var: Variable) -> str:
    if isinstance(var, Constant) and var.name is None:
        return value_text(var.data)
    return var.auto_name()


def _printer_for(node: Apply) -> Printer:
    for cls in type(node.op).__mro__:
        printer = _PRINTERS.get(cls) or _PRINTERS.get(cls.__name__)
        if printer is not None:
            return printer
    return _default


def _default(node: Apply, index: int, inputs: list[str]) -> str:
    suffix = f".{index}" if len(node.outputs) > 1 else ""
    return f"{node.op.display_name()}({', '.join(inputs)}){suffix}"


@register_pprinter(Elemwise)
def _elemwise(node: Apply, index: int, inputs: list[str]) -> str:
    op = node.op
    symbol = op.spec.symbol  # Theano's operator symbols, from the op's row
    if symbol is not None:
        return f"({inputs[0]} {symbol} {inputs[1]})" if len(inputs) == 2 else f"({symbol}{inputs[0]})"
    name = op.scalar_name
    props = op._props()
    if props:
        name += "{" + ", ".join(str(p) for p in props) + "}"
    return f"{name}({', '.join(inputs)})"


@register_pprinter(ScalarElemwise)
def _scalar_elemwise(node: Apply, index: int, inputs: list[str]) -> str:
    # Theano's pprint writes the scalar op's name in function form: gammaln(x).
    suffix = f".{index}" if len(node.outputs) > 1 else ""
    return f"{node.op.scalar_op}({', '.join(inputs)}){suffix}"


@register_pprinter("Dot")
def _dot(node: Apply, index: int, inputs: list[str]) -> str:
    return f"({inputs[0]} · {inputs[1]})"


@register_pprinter("Matmul")
def _matmul(node: Apply, index: int, inputs: list[str]) -> str:
    return f"({inputs[0]} @ {inputs[1]})"
