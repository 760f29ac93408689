"""The symnb a test's child processes import: a copy of this checkout's, made once per test.

The executable cache's key holds symnb's sources (``lower_xla/executable_cache.py``), so
processes that must share kept executables must run the same sources: a checkout edited
while the suite runs (a merge, an engineer's save) would otherwise make a later process
of the same test compile anew."""

from __future__ import annotations

import shutil
from pathlib import Path

import symnb

__all__ = ["frozen_sources"]

_CHECKOUT = Path(symnb.__file__).parent  # the package under test


def frozen_sources(tmp_path: Path) -> str:
    """The folder to put on the children's ``PYTHONPATH`` (copied at the first call)."""
    folder = tmp_path / "src"
    if not folder.exists():
        shutil.copytree(_CHECKOUT, folder / "symnb", ignore=shutil.ignore_patterns("__pycache__"))
    return str(folder)
