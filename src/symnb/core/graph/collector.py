"""``collector_paused()``: Python's cyclic garbage collector paused around graph work.

Copying, rewriting and tracing a graph allocate many objects that all stay alive; the
collections this triggers re-scan every live object of the session (measured: ~40% of
the rewrite time of a 10,000-node graph next to a few hundred thousand live objects).
Used by the compile pipeline (``symnb.compile``) and the lowering (``symnb.lower_xla``).
"""

from __future__ import annotations

import contextlib
import gc
from typing import Iterator

__all__ = ["collector_paused"]


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the ``with`` block (restored after it,
    as it was: a block inside another leaves it paused)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
