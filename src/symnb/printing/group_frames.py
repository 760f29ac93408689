"""Which recorded frames of a node's creation site make groups in the pictures
(:mod:`symnb.printing.groups`): the user's building code, not the code that only drives it
(a module's top level, IPython, pytest), and which named objects hold others' groups."""

from __future__ import annotations

import os
import sys

from symnb.core.graph import Apply
from symnb.core.graph.source import Site

__all__ = ["builder_frames", "named_containers", "drives_only"]

_ENVIRONMENT = tuple({os.path.join(p, "") for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)})
_DRIVES_ONLY: dict = {}  # code object -> True when its frames make no group


def builder_frames(site: Site) -> int:
    """How many of ``site``'s innermost frames are the user's building code: those up to
    the first frame that only drives it."""
    codes, calls = site.codes, site.scoping.calls
    builders, most = 0, min(len(codes), len(calls))
    while builders < most and not drives_only(codes[builders]):
        builders += 1
    return builders


def named_containers(order: list[Apply]) -> set:
    """The tokens of the named objects that hold another's group in this graph (a model
    holding its layers): the calls they make stay groups, whereas a named object holding
    none (a layer) holds the nodes of the helpers it calls once."""
    containers: set = set()
    seen: set = set()  # id of the sites read (the nodes built at one place share one)
    sites = [node.site for node in order]
    while sites:
        site = sites.pop()
        if id(site) in seen:
            continue
        seen.add(id(site))
        scoping = site.scoping
        # A gradient node is grouped as its forward node, which may not be in this graph.
        sites.extend(e.site for e in scoping.scopes if e.kind == "grad_of" and e.site)
        if scoping.owners:
            tokens = [o.token for o in map(scoping.owner_at, range(builder_frames(site))) if o is not None]
            containers.update(t for t in tokens if t != tokens[0])
    return containers


def drives_only(code: object) -> bool:
    """True for a frame that only drives building code: a module's top level, or code
    installed under ``sys.prefix`` (IPython, pytest, the standard library)."""
    known = _DRIVES_ONLY.get(code)
    if known is None:
        filename = code.co_filename
        known = _DRIVES_ONLY[code] = (code.co_name == "<module>" or filename.startswith("<frozen ")
                                      or filename.startswith(_ENVIRONMENT))
    return known
