"""Compiled executables kept on disk, found before the program is traced.

JAX's persistent cache (``persistent_cache.py``) is keyed by the lowered program, so a
new process still traces symnb's interpreter and lowers it to StableHLO before it can
read the executable back; for a training step that is most of the time from the first
call to its result. This cache is keyed before tracing: by the program's graph
(``cache.graph_signature``, pickled: each op's class and ``__props__``, each type, each
constant's bytes), what it donates, the mode, every symnb and JAX flag, the argument
signature a call brings (dtypes, shapes, weak types, devices and shardings), the devices
and backend, the XLA flags, the Python, symnb, jax and jaxlib versions and symnb's
sources (their contents, for a checkout whose version string does not change when its
code does). An executable is read back onto the device it was compiled
for (kept beside it), and runs only if it lies there and where the call's arguments are
(``_runs_where_called``); otherwise it is compiled anew. Programs specialized on argument values or over several devices are left
to JAX's cache (``cache.compiled_program``). A program holding anything defined
outside symnb, NumPy and the standard library (a user's op, whose lowering rule may
change between processes) is not kept: what the key cannot see, it must not reuse;
nor one running an op as Python (``rules/python_op.py``: its host callback is an
object of this process, whatever the op's class).

A call with a new argument signature (``jax.jit``'s C++ dispatch misses) comes to
:func:`disk_cached_call`'s ``cache_miss``: it loads the executable (a hit: no trace, no
lowering) or compiles it (``jitted.lower(...).compile()``, one trace as ``jax.jit``
makes) and writes it, then runs it through JAX's ahead-of-time path, whose dispatch data
JAX's C++ dispatch keeps, so later calls with that signature cost what ``jax.jit``'s do.
What a trace records for later use is written beside the executable and restored on a
hit: the program's checks (``CheckTable``: a failed check's id names the user's node)
and its last trace's shapes (``Program.last_trace``). What is kept is compiled by XLA,
never read back from JAX's own cache (``_fresh_compile``). Anything that cannot be kept
(arguments over several devices, an executable JAX cannot serialize, host callbacks)
runs through ``jax.jit`` as before.
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

import jax
import numpy as np

import symnb._version
from symnb.core.graph.basic import Apply, walk_nodes
from symnb.core.graph.config import config
from symnb.core.graph.op import Op
from symnb.lower_xla.checks import CheckSite
from symnb.lower_xla.jax_private import (Traceback, compiled_dispatch_object, dispatch_object,
                                         executable_devices, jit_cache_miss)
from symnb.lower_xla.persistent_cache import jax_cache_bypassed
from symnb.lower_xla.program_memory import loaded_bytes
from symnb.lower_xla.registry import before_running, lower, runs_on_host

__all__ = ["CacheCounts", "counts", "disk_cached_call", "program_bytes"]

# Objects the key may hold, by the top-level package of their class (or of the function
# or class pickled by name): their code is covered by the versions in the key.
_KNOWN_PACKAGES = frozenset({"symnb", "numpy", "builtins", "copyreg", "collections",
                             "functools", "operator", "enum", "fractions", "decimal", "math"})


@dataclass
class CacheCounts:
    """What the executable cache did in this process (tests read it; not timing)."""

    hits: int = 0
    misses: int = 0
    writes: int = 0
    #: Programs or calls the cache could not serve (kept out of it: see the module).
    skipped: int = 0


counts = CacheCounts()


class _Uncacheable(Exception):
    """The program holds something whose code the key cannot see."""


def _same_op(op_class: type, props: tuple) -> None:
    """Stands for an op in a key (never unpickled): ops of one class with equal
    ``__props__`` are equal, and the program cache takes equal ops to lower alike."""
    raise TypeError("a program key is not unpickled")


class _KeyPickler(pickle.Pickler):
    """Pickles the key: an op as its class and ``__props__`` (what makes ops equal;
    not the caches it keeps); refuses objects defined outside the known packages."""

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, Op):
            # The rule lowering it is code the key must cover too: a rule a user
            # registered for one of symnb's ops may change between processes.
            if runs_on_host(obj):  # its perform, a callback of this process's
                raise _Uncacheable(f"{type(obj).__name__} runs as Python (a host callback)")
            rule = lower.dispatch(type(obj))
            module = getattr(rule, "__module__", None) or ""
            if module.partition(".")[0] != "symnb":
                raise _Uncacheable(f"{type(obj).__name__} is lowered by {module!r}")
            return _same_op, (type(obj), obj._props())
        named = obj if isinstance(obj, type) or callable(obj) and hasattr(obj, "__qualname__") \
            else type(obj)
        module = getattr(named, "__module__", None) or ""
        if module.partition(".")[0] not in _KNOWN_PACKAGES:
            raise _Uncacheable(f"{named!r} is defined in {module!r}")
        return NotImplemented


def program_bytes(key: tuple) -> bytes | None:
    """The program's in-memory cache key (``cache.compiled_program``'s) as bytes, or
    None when it cannot be kept on disk."""
    with io.BytesIO() as buffer:
        try:
            _KeyPickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(key)
        except Exception:  # noqa: BLE001 - unpicklable or foreign: not cached, run as before
            return None
        return buffer.getvalue()


_sources: str | None = None


def _sources_fingerprint() -> str:
    """symnb's sources: each file's path and contents (once a process). Contents, not
    modification times: a checkout rewriting files unchanged (a merge, a stash popped, a
    copy) must not make another process compile anew (a second process then missed what
    the first kept); any changed byte does. (About 15 ms for 1.7 MB, at the first miss.)"""
    global _sources
    if _sources is None:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        digest = hashlib.sha256()
        for folder, subfolders, files in os.walk(root):
            subfolders.sort()
            for name in sorted(files):
                if name.endswith(".py"):
                    with open(os.path.join(folder, name), "rb") as file:
                        text = file.read()
                    digest.update(f"{folder[len(root):]}/{name} {len(text)}\n".encode())
                    digest.update(text)
        _sources = digest.hexdigest()
    return _sources


def _environment() -> str:
    """Everything outside the graph that changes the program, read at each miss (flags
    may be changed for a block, e.g. ``jax.enable_x64`` or ``jax.default_device``)."""
    import jaxlib

    devices = jax.devices()
    # The caches' own flags change where programs are kept, not what they compute.
    flags = {k: v for k, v in config.values().items()
             if not k.startswith("compile_cache") and k != "program_cache_mb"}
    return repr((symnb._version.__version__, _sources_fingerprint(), jax.__version__,
                 jaxlib.__version__, sys.version, devices[0].client.platform,
                 devices[0].client.platform_version, [d.device_kind for d in devices],
                 sorted((k, v) for k, v in os.environ.items() if k.startswith("XLA_")),
                 os.environ.get("LIBTPU_INIT_ARGS"), sorted(flags.items()),
                 sorted((k, repr(v)) for k, v in jax.config.values.items())))


def _argument_signature(args: tuple) -> tuple | None:
    """What ``jax.jit`` compiles each argument for, or None when an argument lies on
    several devices (not cached). A JAX array's sharding is part of it (its device, its
    memory kind, and a one-device mesh is not a ``SingleDeviceSharding``: the executable
    checks the shardings it is called with)."""
    signature = []
    for arg in args:
        if isinstance(arg, jax.Array):
            devices = arg.sharding.device_set
            if len(devices) != 1:
                return None
            device, = devices
            signature.append(("jax", arg.dtype.str, arg.shape, arg.weak_type,
                              arg.committed, device.platform, device.id, repr(arg.sharding)))
        else:
            value = np.asarray(arg)
            signature.append((type(arg).__name__, value.dtype.str, value.shape))
    return tuple(signature)


def disk_cached_call(jitted: Any, record: Any, nodes: list[Apply], key: tuple,
                     folder: str) -> Callable[..., Any]:
    """A C++-dispatched callable running ``jitted`` (a program's ``jax.jit`` function, with
    no static arguments, over ``nodes``) from executables kept in ``folder``. What a
    trace records, and a hit restores, is the program's ``record`` (a ``cache.TraceRecord``:
    this callable, which the program holds, must not refer to the program)."""
    lock = threading.Lock()
    known: list[bytes | None] = []  # the program's key as bytes, once computed

    def cache_miss(*args: Any) -> Any:
        with lock:
            if not known:
                known.append(program_bytes(key))
        signature = _argument_signature(args)
        if known[0] is None or signature is None:
            counts.skipped += 1
            return jit_cache_miss(jitted)(*args)
        digest = hashlib.sha256(known[0])
        digest.update(repr((signature, _environment())).encode())
        path = os.path.join(folder, digest.hexdigest())
        compiled = _load(path, nodes, record, args)
        aot = None if compiled is None else compiled_dispatch_object(compiled)
        if aot is not None:
            counts.hits += 1
            record.nbytes += loaded_bytes(os.path.getsize(path))  # no trace: JAX keeps the executable
            return jit_cache_miss(aot)(*args)
        counts.misses += 1
        start = time.perf_counter()
        compiled, fresh = _fresh_compile(jitted.lower(*args))
        aot = compiled_dispatch_object(compiled)
        if aot is None:  # host callbacks or effects: not kept, and run by JAX's own path
            counts.skipped += 1
            return jit_cache_miss(jitted)(*args)
        if not fresh:
            counts.skipped += 1
        elif time.perf_counter() - start >= config.compile_cache_min_seconds:
            _store(path, compiled, nodes, record)
        return jit_cache_miss(aot)(*args)

    try:  # JAX's own dispatch object, as ``Compiled.__call__`` makes it
        # What cache_miss reads of JAX's internals, probed now: a JAX without them
        # (only with SYMNB_ALLOW_UNTESTED_JAX) runs the program through jax.jit.
        jit_cache_miss(jitted)
        return dispatch_object(getattr(jitted, "__name__", "program"), cache_miss)
    except (AttributeError, TypeError):  # another JAX's internals: no executables kept
        counts.skipped += 1
        return jitted


#: How many times a compile JAX served from its own cache is done again, fresh.
_FRESH_TRIES = 3


def _fresh_compile(lowered: Any) -> tuple[Any, bool]:
    """``(compiled, fresh)``: ``lowered`` compiled, and whether by XLA itself rather than
    read back from JAX's persistent cache (whose executables serialize incompletely on
    XLA's CPU backend: see ``jax_cache_bypassed``). JAX may read its cache despite the
    bypass when another thread made JAX decide, meanwhile, to use it: the compile is
    then done again (``compiler_options={}``: the same options, without the executable
    ``lowered`` keeps), so what is kept never depends on what JAX's cache holds."""
    options = None  # the first compile is the one ``lowered`` keeps
    for _ in range(_FRESH_TRIES):
        with jax_cache_bypassed() as read_back:
            compiled = lowered.compile(compiler_options=options)
        if not read_back[0]:
            return compiled, True
        options = {}
    return compiled, False


class _TreePickler(pickle.Pickler):
    """Pickles output trees: a checked program's (``checkify``'s error, for checks in
    loop bodies or branches) holds the tracebacks of its checks' traces, which JAX
    cannot pickle and symnb does not read (its errors name the node from the check's
    id), kept as None."""

    def persistent_id(self, obj: Any) -> Any:
        return "traceback" if isinstance(obj, Traceback) else None


class _TreeUnpickler(pickle.Unpickler):
    def persistent_load(self, pid: Any) -> Any:
        if pid != "traceback":
            raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")
        return None


def _store(path: str, compiled: Any, nodes: list[Apply], record: Any) -> None:
    """Write ``compiled`` and what its trace recorded (``record``); nothing when JAX
    cannot serialize it (the program still runs)."""
    from jax.experimental.serialize_executable import serialize

    position = {id(node): i for i, node in enumerate(walk_nodes(nodes))}
    try:
        executable, in_tree, out_tree = serialize(compiled)
        devices = executable_devices(compiled)
        with io.BytesIO() as buffer:
            _TreePickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump({
                "executable": executable, "in_tree": in_tree, "out_tree": out_tree,
                "platform": devices[0].platform, "devices": [d.id for d in devices],
                "last_trace": record.last_trace,
                "checks": [(position[id(site.node)], site.kind, site.facts, site.value_dtype)
                           for site in record.checks.sites]})
            data = buffer.getvalue()
    except Exception:  # noqa: BLE001 - not serializable: not kept
        counts.skipped += 1
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".writing-")
    with os.fdopen(handle, "wb") as file:
        file.write(data)
    os.replace(temporary, path)  # readers see the whole file or none
    counts.writes += 1


def _load(path: str, nodes: list[Apply], record: Any, args: tuple) -> Any:
    """The executable kept at ``path`` with the checks and last trace of the program over
    ``nodes`` restored in its ``record``, or None (none kept, unreadable, check ids this
    program gave other checks, or an executable for other devices than this call's: see
    :func:`_runs_where_called`)."""
    from jax.experimental.serialize_executable import deserialize_and_load

    try:
        with open(path, "rb") as file:
            data = _TreeUnpickler(file).load()
        by_id = {d.id: d for d in jax.devices(data["platform"])}
        # Loaded without its devices, an executable is loaded for every device of the
        # backend: a one-device program then expects its arguments split in 8 shards.
        devices = [by_id[i] for i in data["devices"]]
        compiled = deserialize_and_load(data["executable"], data["in_tree"], data["out_tree"],
                                        backend=data["platform"], execution_devices=devices)
    except FileNotFoundError:
        return None
    except Exception:  # noqa: BLE001 - a damaged or foreign file, devices this process lacks: compiled anew
        return None
    if not _runs_where_called(compiled, devices, args):
        return None
    every = list(walk_nodes(nodes))
    sites = [CheckSite(every[i], kind, facts, value_dtype)
             for i, kind, facts, value_dtype in data["checks"]]
    if not record.checks.restore(sites):
        return None
    record.last_trace = data["last_trace"]
    for op in {type(node.op): node.op for node in every}.values():
        before_running(op)  # what lowering would have done first (LAPACK's kernels loaded)
    return compiled


def _runs_where_called(compiled: Any, devices: list[Any], args: tuple) -> bool:
    """Whether an executable read back runs on the one device it was kept for, and the
    call's arguments placed on a device (committed) lie there: the key says so already;
    this check keeps a wrong executable from ever running (a new JAX loading it
    otherwise, a key that misses something)."""
    loaded = executable_devices(compiled)
    if len(devices) != 1 or loaded != devices:
        return False
    shardings = jax.tree_util.tree_leaves(compiled.input_shardings)
    if any(getattr(s, "device_set", None) != set(devices) for s in shardings):
        return False
    return all(arg.sharding.device_set == set(devices) for arg in args
               if isinstance(arg, jax.Array) and arg.committed)
