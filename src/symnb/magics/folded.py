"""``%%symgraph``'s list of variables, folded: one line per variable, one per container.

A cell that builds a model binds dozens of variables (``params = Ws + bs``, ``grads =
sn.grad(loss, params)``, the loop's last ``W`` and ``b``): a row with a heatmap for each
made a report thousands of pixels tall. Here each variable is one line -- name, dtype,
shape, the value's summary -- whose picture (its heatmap, op and creation line) opens on
a click; the elements of a list, tuple or dict are one line (``params[0..23]``) that
opens onto theirs; a variable already listed under another name (``W`` after
``params[11]``) says so instead of repeating itself. The folding is HTML's own
``<details>``: it opens with no script, in a live notebook as in a saved one, on GitHub
and in nbconvert's HTML. The terminal's text report folds the same way.

Nothing here computes a test value: a pending one shows as pending.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Sequence

from symnb.core.graph.basic import Variable
from symnb.core.graph.type import describe_shape
from symnb.printing.graph_model import creation_text, value_of
from symnb.printing.html import TEXT_STYLE, kind_of, table, value_summary
from symnb.printing.values import heatmap_html

__all__ = ["Line", "Group", "fold", "folded_html", "folded_text", "MOST_LINES"]

#: Lines shown before the rest folds into one "n more" line: about 20 px each, the list
#: keeps to a third of a screen however many names the cell bound.
MOST_LINES = 12

_SUMMARY_STYLE = "cursor:pointer;white-space:nowrap;overflow:hidden;text-overflow:ellipsis"
_INDENT_CH = 2.5  # a group's members and a line's details, under its name
_BODY_STYLE = f"margin:2px 0 6px {_INDENT_CH}ch"


@dataclass
class Line:
    """One variable's line: what the summary shows, and the variable for its details."""

    name: str
    var: Variable
    same_as: str = ""  # the name it was listed under before (the same variable)

    @property
    def dtype(self) -> str:
        return str(getattr(self.var.type, "dtype", self.var.type.short()))

    @property
    def shape(self) -> str:
        """The test value's shape when known, else the static one (``(?, 16)``)."""
        value = value_of(self.var)
        shape = getattr(value, "shape", None)
        if shape is not None:
            return describe_shape(shape)
        static = getattr(self.var.type, "shape", None)
        return describe_shape(static) if static is not None else ""

    @property
    def summary(self) -> str:
        """The value's summary without the dtype and shape the line already shows."""
        if self.same_as:
            return f"the same variable as {self.same_as}"
        text = value_summary(self.var)
        head = f"{self.dtype} {self.shape}"
        return text[len(head):].strip() if text.startswith(head) else text


@dataclass
class Group:
    """The elements of one list, tuple or dict the cell bound: one line that opens."""

    root: str
    lines: list[Line] = field(default_factory=list)

    @property
    def name(self) -> str:
        """``params[0..23]``; ``updates[0..23][0..1]``; ``d['a', 'b']``."""
        return self.root + _index_ranges([line.name[len(self.root):] for line in self.lines])

    @property
    def summary(self) -> str:
        """How many variables, of which dtypes and shapes: ``24 variables: float32 (16, 16)
        x12, float32 (16,) x12``; those listed before under other names are counted."""
        kinds: dict[str, int] = {}
        for line in self.lines:
            kind = f"{line.dtype} {line.shape}"
            kinds[kind] = kinds.get(kind, 0) + 1
        text = f"{len(self.lines)} variables: " + ", ".join(
            f"{kind} x{count}" if count > 1 else kind for kind, count in kinds.items())
        again = sum(bool(line.same_as) for line in self.lines)
        if again:
            text += (" (all listed above under other names)" if again == len(self.lines)
                     else f" ({again} listed above under other names)")
        return text


def fold(shown: Sequence[tuple[str, Variable]]) -> list[Line | Group]:
    """The (name, variable) pairs as lines: the elements of a container (``gW[0]``,
    ``gW[1]``, named so by :mod:`symnb.magics.cell_variables`) one group under their
    container's name; a variable met before marked with the name it had then."""
    first_name: dict[int, str] = {}
    items: list[Line | Group] = []
    for name, var in shown:
        line = Line(name, var, first_name.get(id(var), ""))
        first_name.setdefault(id(var), name)
        root = name.split("[", 1)[0]
        if root == name:
            items.append(line)
            continue
        if not (items and isinstance(items[-1], Group) and items[-1].root == root):
            items.append(Group(root))
        items[-1].lines.append(line)
    return items


def _index_ranges(suffixes: list[str]) -> str:
    """The indexes of a container's elements at each depth: ``[0..23]`` for 0 to 23,
    the keys themselves (the first two, then ...) otherwise."""
    split = [re.findall(r"\[((?:[^\[\]]|\[[^\]]*\])*)\]", s) for s in suffixes]
    depth = min(len(parts) for parts in split)
    out = []
    for level in range(depth):
        keys = list(dict.fromkeys(parts[level] for parts in split))
        if all(k.lstrip("-").isdigit() for k in keys):
            numbers = sorted(int(k) for k in keys)
            if numbers == list(range(numbers[0], numbers[-1] + 1)) and len(numbers) > 1:
                out.append(f"[{numbers[0]}..{numbers[-1]}]")
                continue
        out.append("[" + ", ".join(keys[:2]) + (", ...]" if len(keys) > 2 else "]"))
    return "".join(out)


# -- HTML ----------------------------------------------------------------------------
def _e(text: object) -> str:
    return html.escape(str(text))


def _columns(items: list[Line | Group]) -> tuple[int, int, int]:
    """The widths, in characters, of the name, dtype and shape columns (monospace)."""
    lines = [line for item in items for line in (item.lines if isinstance(item, Group) else [item])]
    names = [item.name for item in items] + [line.name for line in lines]
    return (max(map(len, names), default=4), max((len(line.dtype) for line in lines), default=5),
            max((len(line.shape) for line in lines), default=5))


def _cell(text: str, width: float, bold: bool = False) -> str:
    inner = f"<b>{_e(text)}</b>" if bold else _e(text)
    # The space after it: the line copied as text keeps its columns apart.
    return f'<span style="display:inline-block;min-width:{width + 1:g}ch">{inner}</span> '


def _line_html(line: Line, widths: tuple[int, int, int], indent: float = 0) -> str:
    """A variable's line; ``indent``: how far in its group's body sets it (its name
    column narrower by as much, so that the dtype columns of every line align)."""
    head = (_cell(line.name, widths[0] - indent, bold=True) + _cell(line.dtype, widths[1])
            + _cell(line.shape, widths[2]) + f'<span style="color:#444">{_e(line.summary)}</span>')
    rows = [("computed by", _e(kind_of(line.var))), ("created at", _e(creation_text(line.var)))]
    if not line.same_as:  # its picture is under the name it was listed with first
        picture = heatmap_html(value_of(line.var), title=f"{line.name}: {value_summary(line.var)}")
        if picture:
            rows.append(("test value", picture))
    return (f'<details class="symnb-var" data-name="{_e(line.name)}">'
            f'<summary style="{_SUMMARY_STYLE}">{head}</summary>'
            f'<div style="{_BODY_STYLE}">{table(rows, escape=False)}</div></details>')


def _group_html(group: Group, widths: tuple[int, int, int]) -> str:
    head = (_cell(group.name, widths[0], bold=True)
            + f'<span style="color:#444">{_e(group.summary)}</span>')
    members = "".join(_line_html(line, widths, indent=_INDENT_CH) for line in group.lines)
    return (f'<details class="symnb-group" data-name="{_e(group.name)}">'
            f'<summary style="{_SUMMARY_STYLE}">{head}</summary>'
            f'<div style="{_BODY_STYLE}">{members}</div></details>')


def folded_html(shown: Sequence[tuple[str, Variable]], most: int = MOST_LINES) -> str:
    """The variables, folded: a line each (a group a line), details a click away; past
    ``most`` lines the rest is one more line that opens."""
    items = fold(shown)
    widths = _columns(items)
    parts = [_group_html(item, widths) if isinstance(item, Group) else _line_html(item, widths)
             for item in items]
    if len(parts) > most:
        rest = len(parts) - most + 1
        parts[most - 1:] = [f'<details class="symnb-more"><summary style="{_SUMMARY_STYLE}">'
                            f"{rest} more names</summary>{''.join(parts[most - 1:])}</details>"]
    return f'<div class="symnb-variables" style="{TEXT_STYLE};text-align:left">{"".join(parts)}</div>'


# -- text ----------------------------------------------------------------------------
def folded_text(shown: Sequence[tuple[str, Variable]]) -> list[str]:
    """The terminal's form: a line per variable (name, dtype, shape, summary, line), a
    line per container (its elements one by one are the HTML view's, opened)."""
    items = fold(shown)
    widths = _columns(items)
    out = []
    for item in items:
        if isinstance(item, Group):
            out.append(f"{item.name:<{widths[0]}}  {item.summary}")
        else:
            out.append(f"{item.name:<{widths[0]}}  {item.dtype:<{widths[1]}}  {item.shape:<{widths[2]}}  "
                       f"{item.summary}  [{creation_text(item.var)}]".rstrip())
    return out
