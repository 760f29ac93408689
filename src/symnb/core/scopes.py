"""Named scopes: ``with sn.name_scope("encoder"):`` groups the nodes built inside.

Each node records the scopes active when it was built (in its creation site, like the
line that built it: :class:`~symnb.core.graph.source.Scoping`), and the graph pictures draw
a scope as a group that opens and closes. Scopes nest; a function called inside a
scope builds its nodes inside it, and a scope entered inside a function sits inside
that call's group. ``sn.grad`` records its own scopes the same way: one per call (the
``∂cost/∂wrt`` group) and, inside it, one per forward node whose gradient is built.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from symnb.core.graph.source import Site, enter_scope, leave_scope

__all__ = ["name_scope", "gradient_scope", "gradient_of"]


@contextmanager
def name_scope(name: str) -> Iterator[str]:
    """Group the nodes built inside the ``with`` block under ``name`` in the graph
    pictures (``GraphExplorer``, ``%%symgraph``); nestable. Yields ``name``.

    Like ``jax.named_scope``, it changes no value and no program: only how the graph
    is shown.
    """
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"name_scope needs a non-empty string name, got {name!r}")
    entry = enter_scope("scope", name.strip())
    try:
        yield name
    finally:
        leave_scope(entry)


@contextmanager
def gradient_scope(title: str) -> Iterator[None]:
    """The nodes one ``sn.grad`` call builds (``title``: ``∂loss/∂W``)."""
    entry = enter_scope("grad", title)
    try:
        yield
    finally:
        leave_scope(entry)


@contextmanager
def gradient_of(op_name: str, site: Site) -> Iterator[None]:
    """The nodes building the gradient of one forward node (its op's name and site)."""
    entry = enter_scope("grad_of", op_name, site)
    try:
        yield
    finally:
        leave_scope(entry)
