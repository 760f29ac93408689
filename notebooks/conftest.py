"""``pytest --nbval notebooks/...``: the kernels nbval starts get a temporary per-user cache
folder, as the suite's processes do (``tests/conftest.py``), so that a notebook run alone
never reads programs from, nor writes them to, the user's own persistent compilation
cache.

A program an earlier run kept on disk changes what a profile prints: notebook 13's profile
of the gradient says "1 compiled the program" on a fresh cache and "the program came from a
cache" on a warm one (a program that took over ``compile_cache_min_seconds`` to compile is
kept), so its stored output compared equal only on a cold cache or when the notebooks ran
beside the tests (``pytest --nbval tests notebooks``, which loads ``tests/conftest.py``). Set when pytest
loads this file, before any kernel starts: each kernel imports symnb, which reads the cache
folder's default then."""

import atexit
import os
import shutil
import tempfile

_CACHE_HOME = tempfile.mkdtemp(prefix="symnb-notebook-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE_HOME
atexit.register(shutil.rmtree, _CACHE_HOME, ignore_errors=True)
