"""Configuration flags: ``sn.config``.

Flags are read once from the ``SYMNB_FLAGS`` environment variable
(``"floatX=float64,device=cpu,optimizer=None"``) and may be changed at run time, either
by assignment (``sn.config.floatX = 'float64'``) or for a block with
``with sn.config.change_flags(floatX='float64'): ...``. An unknown flag or a bad value
is an error: a typo must never be silently ignored.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from symnb.core.graph.error_base import SymnbError
from symnb.core.graph.keywords import did_you_mean, unexpected_keywords_message

__all__ = ["Config", "ConfigError", "UnknownFlagError", "config", "user_cache_dir"]


class ConfigError(SymnbError, ValueError):
    """An unknown flag, or a value the flag does not accept."""


class UnknownFlagError(ConfigError, TypeError):
    """``change_flags`` given a keyword that is no flag (a ``TypeError``, as Python's own
    for an unknown keyword)."""


@dataclass(frozen=True)
class _Flag:
    default: Any
    parse: Callable[[Any], Any]
    doc: str


def _choice(*choices: Any) -> Callable[[Any], Any]:
    def parse(value: Any) -> Any:
        # Theano accepted the string 'None' for optimizer=None in THEANO_FLAGS.
        if value == "None" and None in choices:
            value = None
        if value not in choices:
            raise ConfigError(f"expected one of {choices!r}, got {value!r}")
        return value

    return parse


def _non_negative_int(value: Any) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ConfigError(f"expected a non-negative integer, got {value!r}") from None
    if number < 0 or (isinstance(value, float) and value != number):
        raise ConfigError(f"expected a non-negative integer, got {value!r}")
    return number


def _non_negative_float(value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"expected a non-negative number, got {value!r}") from None
    if not number >= 0:
        raise ConfigError(f"expected a non-negative number, got {value!r}")
    return number


def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"expected a boolean, got {value!r}")


_DEVICE = re.compile(r"(cpu|auto|(gpu|cuda)\d*)")


def _device(value: Any) -> str:
    """A device name as Theano spelled them: cpu, gpu, gpuN, cuda, cudaN, or auto."""
    text = str(value).strip().lower() if isinstance(value, str) else value
    if not isinstance(text, str) or not _DEVICE.fullmatch(text):
        raise ConfigError(f"expected 'cpu', 'gpu', 'gpuN', 'cuda', 'cudaN' or 'auto', got {value!r}")
    return text


def _string(value: Any) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"expected a string, got {value!r}")
    return value


def user_cache_dir() -> str:
    """symnb's per-user cache folder, by the platform's convention: ``$XDG_CACHE_HOME/symnb``
    when that variable is set (on any platform), else ``~/.cache/symnb`` on Linux,
    ``~/Library/Caches/symnb`` on macOS and ``%LOCALAPPDATA%\\symnb\\Cache`` on Windows."""
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return os.path.join(xdg, "symnb")
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser(r"~\AppData\Local")
        return os.path.join(base, "symnb", "Cache")
    if sys.platform == "darwin":
        return os.path.expanduser("~/Library/Caches/symnb")
    return os.path.expanduser("~/.cache/symnb")


_FLAGS: dict[str, _Flag] = {
    "floatX": _Flag("float32", _choice("float16", "float32", "float64"),
                    "Default dtype of floating-point variables and Python float constants."),
    "cast_policy": _Flag("custom", _choice("custom", "numpy+floatX"),
                         "The dtype of a Python number made a constant (Theano's flag): "
                         "'custom', Theano's rule (an int the smallest int dtype holding "
                         "it, a float floatX or the first of autocast_float.dtypes holding "
                         "it), or 'numpy+floatX' (NumPy's dtype, a float floatX)."),
    "device": _Flag("auto", _device,
                    "Where compiled functions run and shared variables live: 'cpu', 'gpu' "
                    "(Theano's 'cuda' too), one GPU by number ('gpu1', 'cuda0'), or 'auto' "
                    "(JAX's default backend: a GPU when there is one)."),
    "mode": _Flag("Mode", _choice("Mode", "FAST_RUN", "FAST_COMPILE", "DebugMode", "DEBUG_MODE",
                                  "NanGuardMode"),
                  "The mode of sn.function(mode=None): 'Mode' (the optimizer flag decides), "
                  "'FAST_RUN', 'FAST_COMPILE', 'DebugMode' or 'NanGuardMode'."),
    "print_test_value": _Flag(False, _boolean,
                              "repr() of a variable shows its test value under its name (Theano's flag)."),
    "warn_float64": _Flag("ignore", _choice("ignore"),
                          "Theano warned when a float64 variable was made; symnb accepts only "
                          "'ignore' (the check is not implemented)."),
    "optimizer": _Flag("fast_run", _choice("fast_run", "fast_compile", None),
                       "Graph rewrites applied when compiling: 'fast_run', 'fast_compile' or None."),
    "compute_test_value": _Flag("raise", _choice("raise", "warn", "ignore", "off", "pdb"),
                                "What a failing test-value computation does while a graph is built."),
    "warn_nonfinite_test_values": _Flag(True, _boolean,
                                        "Warn (NonFiniteTestValueWarning, once per node, at the "
                                        "user's line that built it) when a test value becomes NaN "
                                        "or Inf, naming the node and how many entries; NumPy's "
                                        "RuntimeWarning of that computation is folded into it. "
                                        "False: no warning (NumPy's stays silent too)."),
    "test_value_memory_mb": _Flag(4, _non_negative_float,
                                  "Memory (MB, fractions allowed) kept for computed test values "
                                  "of 1 MB or more (of any size when the budget is under 1 MB; "
                                  "the newest is always kept). The least recently used are "
                                  "dropped beyond it and computed again, the same, when read "
                                  "(random draws included). Small budgets keep building as "
                                  "fast as NumPy run eagerly, which reuses the same few "
                                  "buffers (a 40-node chain over 1000x1000 float32 values: "
                                  "1.05x NumPy's time with 4 MB, 1.4x with 16 MB)."),
    "exception_verbosity": _Flag("medium", _choice("low", "medium", "high"),
                                 "How much an error message shows."),
    "traceback__limit": _Flag(8, _non_negative_int,
                              "How many user frames a node records as its creation site."),
    "profile": _Flag(False, _boolean, "Profile every compiled function (its summary is "
                     "printed when the program exits)."),
    "profile_memory": _Flag(False, _boolean, "Profile every compiled function's memory too: the "
                            "program's peak memory and its largest values (implies profile)."),
    "index_checks": _Flag(True, _boolean,
                          "Check in compiled functions that integer indices known only at run "
                          "time lie in their axis (an IndexError, as in NumPy; XLA alone would "
                          "clamp or drop them). False removes these checks: faster, but an "
                          "out-of-range index then gives a wrong value silently. Indices known "
                          "while the program is traced are always checked, at no run-time cost."),
    "compile_cache_dir": _Flag(os.path.join(user_cache_dir(), "compiled"), _string,
                               "Directory of the persistent compilation cache: compiled programs "
                               "kept on disk for the next process (a folder per symnb version "
                               "inside it). Default: 'compiled' in the per-user cache folder "
                               "(~/.cache/symnb on Linux); '' turns the cache off."),
    "program_cache_mb": _Flag(256, _non_negative_int,
                              "Memory kept by the compiled programs cached in this process "
                              "(besides the limit of 128 programs), estimated from their "
                              "graphs (symnb/lower_xla/program_memory.py: a small program "
                              "holds about 1.6 MB on CPU); the least recently used are "
                              "dropped beyond it, the most recent is always kept. A dropped "
                              "program is freed once no live function uses it; compiling its "
                              "graph again compiles it anew."),
    "DebugMode__check_finite": _Flag(True, _boolean, "DebugMode refuses NaN and Inf values "
                                     "(Theano's DebugMode.check_finite; DebugMode(check_isfinite=...) "
                                     "overrides it)."),
    "compile_cache_min_seconds": _Flag(0.1, _non_negative_float,
                                       "Programs that compile faster than this are not written "
                                       "to the persistent compilation cache."),
    "cxx": _Flag("", _string, "Theano's C++ compiler: '' (symnb compiles with XLA and uses none; "
                 "Theano's code that checks for one reads that it has none)."),
    "conv__assert_shape": _Flag(False, _boolean,
                                "T.nnet.abstract_conv.assert_shape checks shapes at run time "
                                "(Theano's conv.assert_shape; off by default, as there)."),
}

#: Theano's ``warn.*`` flags, accepted and ignored: each only silenced a warning Theano
#: printed about a bug in an old Theano version, which symnb never had.
IGNORED_WARN_FLAGS = (
    "ignore_bug_before", "argmax_pushdown_bug", "gpusum_01_011_0111_bug", "sum_sum_bug",
    "sum_div_dimshuffle_bug", "subtensor_merge_bug", "gpu_set_subtensor1", "vm_gc_bug",
    "signal_conv2d_interface", "reduce_join", "inc_set_subtensor1", "round",
    "identify_1pexp_bug",
)
for _name in IGNORED_WARN_FLAGS:
    _FLAGS["warn__" + _name] = _Flag("0.9" if _name == "ignore_bug_before" else True,
                                     _string if _name == "ignore_bug_before" else _boolean,
                                     "Accepted and ignored (Theano's warning about its own old bug).")


def _seed(value: Any) -> int | str:
    """Theano's ``unittests.rseed``: an integer seed, or ``'random'`` (a new seed each run)."""
    if value == "random":
        return value
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ConfigError(f"expected an integer seed or 'random', got {value!r}") from None


_FLAGS["unittests__rseed"] = _Flag(666, _seed, "Seed of the randomized unit tests (Theano's "
                                   "unittest_tools.fetch_seed reads it); 'random': a new seed each run.")

# Theano's cycle_detection chose which in-place rewrites to allow; symnb has no in-place ops
# (XLA decides buffer reuse), so either value computes the same thing.
_FLAGS["cycle_detection"] = _Flag("regular", _choice("regular", "fast"),
                                  "Accepted and ignored: symnb has no in-place rewrites to check.")

# Theano's flags for its C++ compiler: accepted and unused, since symnb compiles through XLA,
# never through a C++ compiler (PyMC3 appends a warning option to gcc.cxxflags at import).
_FLAGS["gcc__cxxflags"] = _Flag("", _string, "Accepted and unused: symnb compiles through XLA, "
                                "not a C++ compiler.")

# Theano's flags of its C linker and optimizer, which Theano 1.0 programs and tests read and
# set: accepted with Theano's choices and unused, since symnb compiles no C++ (cxx is '', as
# Theano's when no compiler is there) and XLA runs every program, whatever the linker.
_FLAGS["cxx"] = _Flag("", _string, "The C++ compiler (Theano's flag): '' in symnb, which compiles "
                      "no C++ code; a value is accepted and unused.")
_FLAGS["linker"] = _Flag("vm", _choice("cvm", "c|py", "py", "c", "c|py_nogc", "vm", "vm_nogc",
                                       "cvm_nogc"),
                         "Accepted and unused (Theano's linker of mode 'Mode'): XLA runs the "
                         "program; 'vm' is Theano's default without a C++ compiler.")
_FLAGS["on_opt_error"] = _Flag("warn", _choice("warn", "raise", "pdb", "ignore"),
                               "Accepted and unused: what Theano did when one of its graph "
                               "rewrites crashed (a failing symnb rewrite always raises).")
_FLAGS["compute_test_value_opt"] = _Flag("off", _choice("off", "ignore", "warn", "raise", "pdb"),
                                         "Accepted and unused: Theano's test values during its "
                                         "graph rewrites (symnb's rewrites compute none).")
_FLAGS["scan__allow_output_prealloc"] = _Flag(True, _boolean, "Accepted and unused: Theano's "
                                              "preallocation of scan's outputs (XLA allocates them).")
_FLAGS["scan__debug"] = _Flag(False, _boolean, "Accepted and unused (Theano's scan debug output).")
# Theano's OpenMP flags of its C elementwise loops: XLA parallelizes the programs it compiles.
_FLAGS["openmp"] = _Flag(False, _boolean, "Accepted and unused: Theano's OpenMP in its C code "
                         "(off by default there); XLA chooses the threads.")
_FLAGS["openmp_elemwise_minsize"] = _Flag(200000, _non_negative_int,
                                          "Accepted and unused: the size from which Theano's C "
                                          "elementwise loops used OpenMP (Theano's default 200000).")

# Theano spells nested flags with a dot in THEANO_FLAGS ("traceback.limit=20").
_ALIASES = {name.replace("__", "."): name for name in _FLAGS if "__" in name}
_SECTIONS = {name.partition("__")[0] for name in _FLAGS if "__" in name}


class _Section:
    """``config.warn``, ``config.unittests``...: Theano's dotted flags as attributes
    (``config.warn.round = False``)."""

    def __init__(self, config: "Config", prefix: str) -> None:
        object.__setattr__(self, "_config", config)
        object.__setattr__(self, "_prefix", prefix)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._config, f"{self._prefix}__{name}")

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._config, f"{self._prefix}__{name}", value)


class Config:
    """The flag set. Attribute access reads a flag; assignment validates it."""

    # Flag values are plain instance attributes, so reading one (done for every node
    # built) is an ordinary attribute lookup; assignment goes through validation.

    def __init__(self, environ: str | None = None) -> None:
        for name, flag in _FLAGS.items():
            object.__setattr__(self, name, flag.default)
        if environ:
            for name, value in _parse_flag_string(environ).items():
                setattr(self, name, value)

    def __getattr__(self, name: str) -> Any:  # only reached for names that are not flags
        if name in _ALIASES:
            return getattr(self, _ALIASES[name])
        if name in _SECTIONS:
            return _Section(self, name)
        raise AttributeError(_unknown_flag_message(name))

    def __setattr__(self, name: str, value: Any) -> None:
        canonical = _ALIASES.get(name, name)
        flag = _FLAGS.get(canonical)
        if flag is None:
            raise ConfigError(_unknown_flag_message(name))
        try:
            parsed = flag.parse(value)
        except ConfigError as err:
            raise ConfigError(f"bad value for config flag {canonical!r}: {err}") from None
        object.__setattr__(self, canonical, parsed)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(_FLAGS))

    def values(self) -> dict[str, Any]:
        """The current value of every flag."""
        return {name: getattr(self, name) for name in _FLAGS}

    def __repr__(self) -> str:
        body = ", ".join(f"{k}={v!r}" for k, v in self.values().items())
        return f"Config({body})"

    def change_flags(self, **flags: Any) -> contextlib.AbstractContextManager["Config"]:
        """Set flags for the duration of a ``with`` block (or of each call of the function
        it decorates), restoring them afterwards. The keywords are flags: any other is
        refused now (:class:`UnknownFlagError`), not when the block starts."""
        unknown = [name for name in flags if _ALIASES.get(name, name) not in _FLAGS]
        if unknown:
            raise UnknownFlagError(unexpected_keywords_message("change_flags", unknown, sorted(_FLAGS)))
        return self._flags_changed(flags)

    @contextlib.contextmanager
    def _flags_changed(self, flags: dict[str, Any]) -> Iterator["Config"]:
        saved = self.values()
        try:
            for name, value in flags.items():
                setattr(self, name, value)
            yield self
        finally:
            for name, value in saved.items():
                object.__setattr__(self, name, value)


def _unknown_flag_message(name: str) -> str:
    known = sorted(_FLAGS)
    return f"unknown config flag {name!r}{did_you_mean(name, known)}; known flags: {', '.join(known)}"


def _parse_flag_string(text: str) -> dict[str, str]:
    flags: dict[str, str] = {}
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"SYMNB_FLAGS entry {item!r} is not of the form name=value")
        flags[name.strip()] = value.strip()
    return flags


config = Config(os.environ.get("SYMNB_FLAGS"))
