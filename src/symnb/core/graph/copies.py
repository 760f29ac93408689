"""Copies of the user's variables inside inner graphs, and replacing them.

``ifelse`` copies into a branch the part of the graph only that branch reads (so it runs
only when taken), and ``ifelse``'s gradient copies the branches again. The user still
sees one graph, as written: Theano had no copies, so replacing a variable (a function's
input cutting the graph there, ``givens``, ``sn.clone(replace=...)``) must replace its
copies too, or the branch would go on computing it from what is above it and silently
ignore the given value.

Each copy carries its original's :class:`Origin` (``tag.origin``, given to the original
when it is first copied; a copy of a copy keeps it). :func:`origin_key` is what a copy
and its original share; a replacement looks copies up by it.
"""

from __future__ import annotations

from typing import Any, Iterable

__all__ = ["Origin", "origin_key", "mark_copy", "replacements_by_origin"]


class Origin:
    """The token shared by a variable and its copies in inner graphs (compared by
    identity; pickled with the graph that holds it, so copies stay matched)."""

    __slots__ = ()


def origin_key(var: Any) -> int:
    """What ``var`` and its copies share: its origin's id, or its own where it was
    never copied (an inner graph may hold the variable itself, when nothing the copy
    replaces is above it)."""
    tag = var._tag
    origin = getattr(tag, "origin", None) if tag is not None else None
    return id(origin if origin is not None else var)


def mark_copy(original: Any, copy: Any) -> None:
    """Record that ``copy`` is a copy of ``original`` (or of what ``original`` copies)."""
    origin = getattr(original._tag, "origin", None) if original._tag is not None else None
    if origin is None:
        origin = original.tag.origin = Origin()
    copy.tag.origin = origin


def replacements_by_origin(pairs: Iterable[tuple[Any, Any]]) -> dict[int, Any]:
    """``{origin_key(old): new}``: what an inner graph reads in place of each replaced
    variable's copies, or of the variable itself (a branch computed from constants only
    holds the user's own nodes)."""
    return {origin_key(old): new for old, new in pairs}
