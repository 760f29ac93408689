"""The symnb a test's child processes import: a copy of this checkout's, made once per test.

The executable cache's key holds symnb's sources (``lower_xla/executable_cache.py``), so
processes that must share kept executables must run the same sources: a checkout edited
while the suite runs (a merge, an engineer's save) would otherwise make a later process
of the same test compile anew."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import symnb

__all__ = ["frozen_sources", "run_child"]

_CHECKOUT = Path(symnb.__file__).parent  # the package under test


def frozen_sources(tmp_path: Path) -> str:
    """The folder to put on the children's ``PYTHONPATH`` (copied at the first call)."""
    folder = tmp_path / "src"
    if not folder.exists():
        shutil.copytree(_CHECKOUT, folder / "symnb", ignore=shutil.ignore_patterns("__pycache__"))
    return str(folder)


def run_child(tmp_path: Path, script: str, *args: str, cache: str | None = None, flags: str = "",
              env: dict | None = None, timeout: float = 120, name: str = "child.py") -> dict:
    """Run ``script`` (Python source, saved as ``name``: the file its errors show) in a new
    process on the frozen sources, with the
    executable cache in ``cache`` (default: ``tmp_path/cache``) kept from the first compile
    (``flags``: more ``SYMNB_FLAGS``, each starting with a comma), and return the JSON its
    last line of output prints."""
    path = tmp_path / name
    path.write_text(script)
    folder = str(tmp_path / "cache") if cache is None else cache
    child_env = dict(os.environ, **(env or {}))
    child_env["PYTHONPATH"] = os.pathsep.join([frozen_sources(tmp_path), os.environ.get("PYTHONPATH", "")])
    child_env["SYMNB_FLAGS"] = f"compile_cache_min_seconds=0,compile_cache_dir={folder}{flags}"
    done = subprocess.run([sys.executable, str(path), *args], capture_output=True, text=True,
                          env=child_env, timeout=timeout)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])
