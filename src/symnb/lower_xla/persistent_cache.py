"""The persistent compilation cache: compiled programs kept on disk between processes.

On by default, in ``config.compile_cache_dir`` (``compiled`` in the per-user cache
folder, ``~/.cache/symnb`` on Linux: see ``core.config.user_cache_dir``), one folder
per symnb version inside it; ``SYMNB_FLAGS=compile_cache_dir=`` turns it off. symnb
uses JAX's persistent compilation cache, whose key is a hash of the program's HLO
(so of the graph, its dtypes and shapes, and the constants), the compile options,
the devices (platform, device kinds and count), the XLA flags and the jax and jaxlib
versions: a program is reused only when all of these are equal, and the folder per
symnb version keeps one version's programs from another's. Programs that compile in
less than ``config.compile_cache_min_seconds`` are not written (reading them back
would save little).

Most programs are served before JAX's cache is consulted: symnb keeps their
executables itself, in ``executables/`` inside the same folder, found before tracing
(``executable_cache.py``); JAX's cache keeps the others (over several devices,
specialized on values, not serializable) and the process's own ``jax.jit`` programs.

JAX has one cache per process: turned on here, it also keeps the process's own
``jax.jit`` programs. When the user has set JAX's cache folder
(``jax_compilation_cache_dir``) themselves, symnb leaves JAX's cache settings as they are.
"""

from __future__ import annotations

import contextlib
import os
import threading
from typing import Iterator

import jax

from symnb._version import __version__
from symnb.core.graph.config import config
from symnb.lower_xla.jax_private import compilation_cache_disabled

__all__ = ["enable_persistent_cache", "cache_folder", "executables_folder", "jax_cache_bypassed"]

# (flag value, minimum seconds) last applied, and the folder symnb gave JAX (None: none).
_applied: tuple[str, float] | None = None
_ours: str | None = None


def cache_folder(directory: str) -> str:
    """Where the programs of this symnb version go, inside ``directory``."""
    return os.path.join(directory, f"symnb-{__version__}")


def executables_folder() -> str | None:
    """Where symnb keeps executables found before tracing (``executable_cache.py``):
    inside the folder it gave JAX, None when the cache is off or the user's own JAX
    cache folder is in use."""
    if _ours is None or jax.config.jax_compilation_cache_dir != _ours:
        return None
    return os.path.join(_ours, "executables")


_local = threading.local()
_listening = False


def _note_cache_hit(event: str, **kwargs: object) -> None:
    if event == "/jax/compilation_cache/cache_hits":
        _local.hits = getattr(_local, "hits", 0) + 1


@contextlib.contextmanager
def jax_cache_bypassed() -> Iterator[list[bool]]:
    """Compile without JAX's persistent cache (for ``executable_cache``, which keeps
    the executable itself): an executable JAX read back from its cache serializes
    incompletely on XLA's CPU backend (functions it calls are missing when it is loaded
    again), so what symnb keeps must be freshly compiled. Yields a list that holds
    True afterwards when JAX read its cache anyway (another thread made JAX decide
    to, meanwhile): what was compiled must then not be kept."""
    global _listening
    from jax.experimental.compilation_cache import compilation_cache

    if not _listening:
        jax.monitoring.register_event_listener(_note_cache_hit)
        _listening = True
    read_back: list[bool] = []
    before = getattr(_local, "hits", 0)
    # JAX decides once whether it caches (reset_cache makes it decide again, for every
    # thread); the switch itself is per thread.
    compilation_cache.reset_cache()
    try:
        with compilation_cache_disabled():
            yield read_back
    finally:
        compilation_cache.reset_cache()
        read_back.append(getattr(_local, "hits", 0) != before)


def enable_persistent_cache() -> None:
    """Apply ``config.compile_cache_dir`` (and its minimum compile time) to JAX's
    persistent compilation cache; called before each compile (cheap when unchanged)."""
    global _applied, _ours
    wanted = (config.compile_cache_dir, config.compile_cache_min_seconds)
    if wanted == _applied:
        return
    _applied = wanted
    current = jax.config.jax_compilation_cache_dir
    if current is not None and current != _ours:
        return  # the user configured JAX's cache: theirs is used
    folder = cache_folder(wanted[0]) if wanted[0] else None
    if folder == current:
        jax.config.update("jax_persistent_cache_min_compile_time_secs", wanted[1])
        return
    from jax.experimental.compilation_cache import compilation_cache

    if folder is not None:
        jax.config.update("jax_persistent_cache_min_compile_time_secs", wanted[1])
    jax.config.update("jax_compilation_cache_dir", folder)
    _ours = folder
    # JAX decides once, at its first compile, whether (and where) it caches; a program
    # compiled before this point made that decision, which must be made again.
    compilation_cache.reset_cache()
