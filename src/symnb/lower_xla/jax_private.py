"""Every private JAX and jaxlib API symnb uses, in one place, for the JAX versions tested.

symnb runs on JAX's public API except for what is here: the dispatch objects through
which executables kept on disk run at ``jax.jit``'s speed (``executable_cache.py``),
compiling with JAX's persistent cache switched off for one thread (``persistent_cache``),
XLA's cost analysis of one HLO computation (``compile/profiling/xla.py``), and whether a
``checkify`` error holds a failed check, while tracing (``checks.py``: checks inside
loop bodies and branches). These
names change between JAX releases without notice, so the JAX and jaxlib versions are
checked when this module is imported (on the first compile: ``symnb.lower_xla``
imports it first), against the versions symnb was tested with, which
``pyproject.toml`` states too. Any other module reaches JAX's internals through the
functions below, never by importing ``jax._src`` or jaxlib's modules itself
(``tests/lower_xla/test_jax_private.py`` reads the sources to check it).

Outside the tested versions the import fails saying which versions are supported, which
were found and what to do; ``SYMNB_ALLOW_UNTESTED_JAX=1`` turns that error into a
warning: symnb then works as far as the internals below are still there (where JAX
builds its dispatch objects otherwise, programs are not kept on disk and run through
``jax.jit``; a private module gone fails the import).
"""

from __future__ import annotations

import os
import re
import warnings
from typing import Any, Callable, ContextManager

import jax
import jaxlib

# UnsupportedJaxError lives with symnb's other errors: ``symnb.errors`` names it without
# importing JAX.
from symnb.core.graph.errors import UnsupportedJaxError

__all__ = ["SUPPORTED_JAX", "UnsupportedJaxError", "check_jax_version", "Traceback",
           "compilation_cache_disabled", "jit_cache_miss", "dispatch_object",
           "compiled_dispatch_object", "executable_devices", "hlo_cost_analyser",
           "checkify_predicates_readable", "checkify_failed", "silence_callback_log"]

#: The lowest JAX (and jaxlib) release tested, and the first release not tested: the
#: bounds in pyproject.toml. On the CPU, 0.10.2 runs the suite and 0.10.0 a subset
#: (.ci/oldest.txt); 0.11.2 ran the suite on an NVIDIA GPU (issue 22's check), and 0.11's
#: sources hold every name used below, with the same signatures.
SUPPORTED_JAX = ("0.10.0", "0.12")

#: The environment variable that lets an untested JAX run, with a warning.
ALLOW_UNTESTED = "SYMNB_ALLOW_UNTESTED_JAX"


def _release(version: str) -> tuple[int, ...]:
    """``"0.10.2"``, ``"0.11.0.dev20260801"``, ``"0.10rc1"`` -> (0, 10, 2), (0, 11, 0), (0, 10, 0)."""
    numbers = re.match(r"\d+(?:\.\d+)*", version)
    release = tuple(int(n) for n in numbers.group(0).split(".")) if numbers else ()
    return (release + (0, 0, 0))[:3]


def _untested(version: str) -> bool:
    lowest, first_untested = (_release(v) for v in SUPPORTED_JAX)
    return not lowest <= _release(version) < first_untested


def check_jax_version(jax_version: str | None = None, jaxlib_version: str | None = None) -> None:
    """Raise :class:`UnsupportedJaxError` (a warning with ``SYMNB_ALLOW_UNTESTED_JAX=1``)
    when JAX or jaxlib (the installed ones, by default) is outside :data:`SUPPORTED_JAX`."""
    found = {"jax": jax.__version__ if jax_version is None else jax_version,
             "jaxlib": jaxlib.__version__ if jaxlib_version is None else jaxlib_version}
    wrong = {name: version for name, version in found.items() if _untested(version)}
    if not wrong:
        return
    lowest, first_untested = SUPPORTED_JAX
    message = (f"symnb was tested with jax and jaxlib >= {lowest} and < {first_untested}; found "
               + ", ".join(f"{name} {version}" for name, version in found.items())
               + f". symnb uses some of JAX's private modules (symnb/lower_xla/jax_private.py), "
               f"which change between releases. Install a tested version: pip install "
               f"\"jax>={lowest},<{first_untested}\" \"jaxlib>={lowest},<{first_untested}\" "
               f"(or the same for jax[cuda12]); or set {ALLOW_UNTESTED}=1 to run on this one "
               f"anyway, at your own risk.")
    if os.environ.get(ALLOW_UNTESTED, "") not in ("", "0"):
        warnings.warn(message, RuntimeWarning, stacklevel=2)
        return
    raise UnsupportedJaxError(message)


check_jax_version()

# The private modules, imported once the versions are known to have them.
from jax._src import config as _config  # noqa: E402
from jax._src import tree_util as _tree_util  # noqa: E402
from jax._src.interpreters import pxla as _pxla  # noqa: E402
from jax._src.lib import _jax  # noqa: E402

#: The class of the tracebacks JAX keeps in a ``checkify`` error (not picklable).
Traceback = _jax.Traceback


def compilation_cache_disabled() -> ContextManager[Any]:
    """A context in which this thread compiles without JAX's persistent cache."""
    return _config.enable_compilation_cache(False)


def jit_cache_miss(dispatch: Any) -> Callable[..., Any]:
    """What a C++ dispatch object (a ``jax.jit`` function, or one of
    :func:`dispatch_object` and :func:`compiled_dispatch_object`) does when its cache
    misses: trace, lower and compile (or find the executable), run, and return the
    outputs with what lets later calls of that signature skip Python."""
    return dispatch._cache_miss


def dispatch_object(name: str, cache_miss: Callable[..., Any]) -> Callable[..., Any]:
    """A C++ dispatch object like ``jax.jit``'s, with no static arguments, that calls
    ``cache_miss(*args)`` for each argument signature it has not seen. ``cache_miss``
    must return what a ``jax.jit`` or ``Compiled`` cache miss returns (its
    ``jit_cache_miss`` or :func:`compiled_dispatch_object`'s ``_cache_miss``): the
    outputs with the data that lets later calls skip Python. Raises AttributeError or
    TypeError where this JAX builds its dispatch otherwise."""
    return _jax.pjit(name, None, cache_miss, [], [], _pxla.JitGlobalCppCacheKeys(),
                     _tree_util.dispatch_registry, _pxla.cc_shard_arg)


def compiled_dispatch_object(compiled: Any) -> Any:
    """JAX's C++ dispatch object for an ahead-of-time ``jax.stages.Compiled`` (as
    ``Compiled.__call__`` makes it; its ``_cache_miss`` runs the executable), or None:
    an executable with host callbacks or effects, or a JAX whose ``Compiled`` is built
    otherwise (the program then runs through ``jax.jit``)."""
    try:
        return compiled._executable.create_cpp_call(compiled._params)
    except AttributeError:
        return None


def executable_devices(compiled: Any) -> list[Any]:
    """The devices an ahead-of-time ``Compiled`` was loaded onto."""
    return list(compiled._executable.xla_executable.local_devices())


def hlo_cost_analyser() -> Callable[[Any, str], dict[str, float]] | None:
    """A function giving XLA's cost analysis (flops, bytes accessed, ...) of an HLO
    module written as text, on a device's ``client``; None where jaxlib offers no such
    binding (the public API analyses whole compiled programs only)."""
    try:  # jaxlib 0.10.0 parses HLO text in _jax, 0.10.2 in a module of its own
        from jaxlib import _hlo
    except ImportError:
        _hlo = None
    analyse = getattr(_jax, "hlo_module_cost_analysis", None)
    parse = getattr(_hlo, "hlo_module_from_text", None) or getattr(_jax, "hlo_module_from_text", None)
    if analyse is None or parse is None:
        return None
    return lambda client, hlo_text: analyse(client, parse(hlo_text))


def checkify_predicates_readable() -> bool:
    """Whether this JAX's ``checkify`` errors keep, per kind of error, the traced
    predicate "a check of this kind failed" where :func:`checkify_failed` reads it.
    (``checkify`` is imported here only when asked: a fresh process need not load it.)"""
    from jax.experimental import checkify

    fields = getattr(checkify.Error, "__dataclass_fields__", {})
    return "_pred" in fields


def checkify_failed(error: Any) -> Any:
    """(While tracing) a boolean scalar, true when a check of ``error`` (a ``checkify``
    error, unbatched) failed: what its ``get_exception()`` tells on the host, known in
    the program itself (checkify offers no public way to it). Only where
    :func:`checkify_predicates_readable`."""
    import jax.numpy as jnp

    failed = jnp.asarray(False)
    for predicate in error._pred.values():
        failed = jnp.logical_or(failed, jnp.asarray(predicate, bool))
    return failed


def silence_callback_log(drops: Callable[[BaseException], bool]) -> None:
    """Keep JAX from logging (with a traceback, on stderr) the exceptions of host
    callbacks for which ``drops(exception)`` is true: symnb reports those itself, as an
    error naming the node (``rules/python_op.py``). JAX logs them on the logger of the
    module defining ``pure_callback``."""
    import logging

    class _Drop(logging.Filter):
        def filter(self, record: logging.LogRecord) -> bool:
            error = record.exc_info[1] if record.exc_info else None
            return error is None or not drops(error)

    logging.getLogger(jax.pure_callback.__module__).addFilter(_Drop())


def initialize_lapack() -> None:
    """Load LAPACK's CPU kernels (jaxlib takes them from SciPy, about 0.3 s), as lowering
    a linear-algebra operation does first: an executable read back from disk that calls
    them without it would call a null function (the process crashes)."""
    from jax._src.lax import linalg as _linalg

    _linalg.initialize_lapack()
