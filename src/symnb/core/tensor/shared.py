"""Shared variables: named state that compiled functions read and update.

The value may live on an accelerator once a compiled function has used it (the
backend stores its device array here); ``get_value`` always returns a NumPy array.

Each shared variable has a lock. A compiled call holds the locks of every shared
variable it reads or updates (an update donates the old value's buffer, so even a
concurrent read of it would fail); ``get_value``/``set_value`` take the same lock, so
they never see a call half done. Locks are taken in creation order (``serial``), the
same for every call, so two calls can never wait for each other in a cycle.
"""

from __future__ import annotations

import functools
import itertools
import threading
from typing import Any, Iterable, Sequence

import numpy as np

from symnb.core.graph.config import config
from symnb.core.graph.errors import label
from symnb.core.graph.basic import Constant, Variable, copy_tag, graph_inputs
from symnb.core.graph.source import capture_site
from symnb.core.tensor.variable import _TensorOperators
from symnb.core.graph.test_value import coerce_test_value
from symnb.core.graph.traceback_filter import api_boundary
from symnb.core.graph.type import TensorType
from symnb.core.tensor.container import shared_container

__all__ = ["SharedVariable", "SharedLocks", "holding", "lock_order", "shared", "function_inputs",
           "register_shared_constructor",
           "serial_mark", "storage_owner"]

# next() on a count is atomic under the GIL: serials are unique across threads.
_serials = itertools.count()


def serial_mark() -> int:
    """A number below the ``serial`` of every shared variable created from now on (so
    a caller tells the shared variables made by some code, such as a scan step, from
    those that existed before it ran)."""
    return next(_serials)


class SharedVariable(_TensorOperators, Variable):
    """A tensor input whose value persists between calls (``get_value``/``set_value``).

    As in Theano, it has a tensor's operators and methods but is not a ``TensorVariable``
    (libraries tell a shared parameter from an expression by that: Lasagne's
    ``isinstance(hid_init, T.TensorVariable)``).

    Its static shape is unknown along every axis unless ``shape=`` fixes it, since
    ``set_value`` may change it. Its test value is its value as last set with
    ``set_value`` (updates made by compiled functions stay on the device and are not
    copied back into the test value).
    """

    __slots__ = ("_value", "serial", "lock", "sharding", "_default_update", "strict", "allow_downcast",
                 "_origin", "_private")

    def __init__(self, type: TensorType, value: np.ndarray, name: str | None = None,
                 strict: bool = False, allow_downcast: bool | None = None,
                 sharding: Any = None, borrow: bool = False) -> None:
        super().__init__(type, name=name, site=capture_site(config.traceback__limit))
        #: Where the value lives across devices: None (one device), or a JAX object
        #: (``NamedSharding``, a ``Mesh`` meaning replicated over it, ``(mesh, spec)``).
        #: The core only stores it; ``symnb.compile.sharding`` reads it.
        self.sharding = sharding
        #: Creation order: the global order in which calls take shared variables' locks.
        self.serial = next(_serials)
        #: Held by a compiled call using this variable and by get_value/set_value.
        #: Re-entrant, so that a callback run by a call (a debugging linker's hook)
        #: may read the variable.
        self.lock = threading.RLock()
        self._value: Any = None
        #: Whether the stored value is a host array no one else holds (not lent by
        #: get_value(borrow=True) nor given with borrow=True): it may go to the device as is.
        self._private = False
        self.default_update = None
        #: ``set_value`` takes only values of exactly this dtype (Theano's ``strict``).
        self.strict = bool(strict)
        #: ``set_value`` casts a value of another dtype even when it loses precision.
        self.allow_downcast = allow_downcast
        #: The variable whose storage this one reads and writes (None: its own). See clone.
        self._origin: SharedVariable | None = None
        self._store(value, "shared()", borrow=borrow)

    @api_boundary  # the user calls it: errors show the user's line
    def get_value(self, borrow: bool = False, return_internal_type: bool = False) -> Any:
        """The current value as a writable NumPy array the caller may change.

        ``borrow=True`` returns the stored value itself, as Theano did on the CPU: a
        write into it is the variable's value (Theano's pattern ``v =
        s.get_value(borrow=True); v += 1; s.set_value(v, borrow=True)``, or a write with
        no ``set_value``). The value lives on the host from when it is given
        (``shared``, ``set_value``) or lent this way until a compiled function next uses
        the variable, which puts it on the device (once; JAX's buffers are immutable, so a
        write into the lent array after that call is not seen, as with Theano's GPU
        variables, whose ``get_value(borrow=True)`` was a copy). A value on the device
        is brought back to be lent (one copy, as ``borrow=False`` makes).

        ``borrow=False`` always copies. ``return_internal_type=True`` returns Theano's
        internal type: a NumPy array where the value lives in host memory (the CPU
        device), as above; the JAX array itself on an accelerator (Theano's GPU array;
        a copy unless ``borrow=True``)."""
        with self.lock:  # not while a call is donating the stored buffer
            value = self._value
            # Theano's internal type: a NumPy array on the CPU, the device's array on an
            # accelerator (Theano's GpuArray); symnb's CPU device keeps host memory too.
            device_array = return_internal_type and type(value) is not np.ndarray \
                and not _on_cpu(value)
            if not borrow:
                return _device_copy(value) if device_array else np.array(value)
            if device_array:
                return value  # the JAX array itself (immutable)
            if type(value) is np.ndarray:  # on the host: the stored array itself, lent
                if self._private:  # the read-only copy _store made: writable once lent
                    value.flags.writeable = True
                    self._private = False
                return value
            value = self._value = np.array(value)  # on the device: back to the host, to lend
            self._private = False
            return value

    def _host_value_for_device(self) -> np.ndarray:
        """The stored host array to put on the device: itself when private, else a copy.
        A lent array must be copied: JAX's ``device_put`` may alias a NumPy array's memory
        on the CPU (or read it after returning), and the user may write into it."""
        value = self._value
        return value if self._private else np.array(value)

    @api_boundary  # the user calls it: errors show the user's line
    def set_value(self, value: Any, borrow: bool = False) -> None:
        """Replace the value; it must fit the variable's dtype and static shape.

        As in Theano, a value of another dtype is cast when no precision is lost
        (int32 into float64, a Python float into float32); a lossy cast (float64 into
        float32, float into int) is refused with a TypeError naming both dtypes unless
        the variable was made with ``allow_downcast=True``; ``strict=True`` variables
        take their own dtype only. ``borrow=True`` with a NumPy array of the variable's
        dtype stores that array itself (Theano's aliasing): until a compiled function
        first uses the value, a write into it is the variable's value (see
        :meth:`get_value`); otherwise the value is copied.
        """
        name = label(self)
        self._store(value, f"{name}.set_value" if name.isidentifier() else "set_value",
                    borrow=borrow)

    def _store(self, value: Any, caller: str, borrow: bool = False) -> None:
        """Cast, check and store ``value``; ``caller`` names the user's call in errors
        (the shared test value check would name a test value, which the user did not set).
        ``borrow``: keep ``value`` itself when it is a NumPy array of the right dtype."""
        array = self._cast(value)
        mismatch = self.type.mismatch(array)
        if mismatch is not None:
            given = np.asarray(value)
            raise ValueError(
                f"the value given to {caller} does not fit shared variable {label(self)!r}: it is a "
                f"{given.dtype} array of shape {given.shape}, and {label(self)!r} is {self.type!r} "
                f"({mismatch})")
        private = not (borrow and array is value and type(value) is np.ndarray)
        if private:
            array = coerce_test_value(self, array)  # a read-only copy owning its memory
        # The test value is the stored value, seen read-only (a view: one copy in memory;
        # a write into the stored array shows in it, as in Theano, where both are the
        # container's value).
        test_value = array.view()
        test_value.flags.writeable = False
        with self.lock:  # not in the middle of a call reading or updating it
            self._value = array
            self._private = private
            self._test_value = test_value

    def _cast(self, value: Any) -> Any:
        array = np.asarray(value)
        dtype = np.dtype(self.type.dtype)
        if array.dtype == dtype:
            return array
        if self.strict:
            raise TypeError(f"shared variable {label(self)!r} is strict: it takes values of dtype "
                            f"{dtype} only, got {array.dtype}")
        python_float = isinstance(value, float) and dtype.kind == "f"  # Theano casts to floatX
        if self.allow_downcast or python_float or np.can_cast(array.dtype, dtype, "safe") \
                or (not isinstance(value, np.ndarray) and _fits_exactly(array, dtype)):
            return array.astype(dtype)
        raise TypeError(
            f"shared variable {label(self)!r} holds {dtype}; set_value got a value of dtype "
            f"{array.dtype}, and casting it to {dtype} could lose precision. Cast it yourself "
            f"(value.astype('{dtype}')), or make the shared variable with allow_downcast=True.")

    @property
    def default_update(self) -> Any:
        """The update every compiled function reading this variable applies unless told
        not to (Theano's ``default_update``; see :mod:`symnb.core.updates`); None: none.
        ``del var.default_update`` removes it, as in Theano."""
        return self._default_update

    @default_update.setter
    def default_update(self, value: Any) -> None:
        self._default_update = value

    @default_update.deleter
    def default_update(self) -> None:
        self._default_update = None

    @property
    def container(self) -> Any:
        """Theano's ``shared_var.container``: a live view of the stored value
        (``container.storage[0]``, ``container.value``; setting it is ``set_value``),
        the same object for every read; ``In(x, value=s.container)`` makes a function's
        default read it (see :mod:`symnb.core.tensor.container`)."""
        return shared_container(storage_owner(self))

    @api_boundary  # the user calls it: errors show the user's line
    def clone(self) -> "SharedVariable":
        """A memory-aliased copy (Theano's ``SharedVariable.clone``, which shares the
        container): a distinct variable of the same class, type and name, with no
        default update of its own, reading and writing this variable's storage. Both
        always hold the same value (``set_value`` on either shows in both); in a
        compiled function both are this one storage, so an update of the clone (Lasagne's
        batch-normalization averages) is an update of the original."""
        origin = storage_owner(self)
        alias = object.__new__(_alias_class(type(origin)))
        Variable.__init__(alias, self.type, name=self.name, site=self.site)
        alias._origin = origin
        alias._private = False  # never read: the storage is the origin's
        for slot in ("serial", "lock", "sharding", "strict", "allow_downcast"):
            setattr(alias, slot, getattr(origin, slot))  # one lock and serial: locked once
        alias._value = None  # never read: the value is the origin's
        alias.default_update = None
        copy_tag(self, alias)
        return alias

    # Pickling: the value as a NumPy array, a fresh lock and serial when unpickled. The
    # default update (which usually reads this variable) goes in the state, restored
    # after the variable exists, so the cycle pickles.
    def __reduce_ex__(self, protocol: Any) -> tuple:
        # vars(self): the attributes a library attached (Keras's _keras_shape) travel too.
        state = {**vars(self), "default_update": self.default_update, "strict": self.strict,
                 "allow_downcast": self.allow_downcast, "_site": self._site, "_tag": self._tag}
        return (_unpickled_shared, (self.type, np.asarray(self.get_value()), self.name,
                                    type(self)), state)

    def __setstate__(self, state: dict) -> None:
        for key, value in state.items():
            object.__setattr__(self, key, value)

    # The backend keeps the device copy here without a round trip through NumPy.
    def _backend_value(self) -> Any:
        return self._value

    def _set_backend_value(self, value: Any) -> None:
        self._value = value
        self._private = False  # a device array (a host one is never set this way)


def storage_owner(var: SharedVariable) -> SharedVariable:
    """The shared variable whose storage ``var`` uses: ``var`` itself unless it is a
    memory-aliased clone (:meth:`SharedVariable.clone`)."""
    return var._origin or var


class _SharedAlias(SharedVariable):
    """A memory-aliased clone: every read and write of the value (and of the test value,
    which for a shared variable is its value) goes to the origin's storage."""

    __slots__ = ()

    @api_boundary  # the user calls it: errors show the user's line
    def get_value(self, borrow: bool = False, return_internal_type: bool = False) -> Any:
        return self._origin.get_value(borrow, return_internal_type)

    @api_boundary  # the user calls it: errors show the user's line
    def set_value(self, value: Any, borrow: bool = False) -> None:
        self._origin.set_value(value, borrow)

    def _backend_value(self) -> Any:
        return self._origin._backend_value()

    def _set_backend_value(self, value: Any) -> None:
        self._origin._set_backend_value(value)

    def _host_value_for_device(self) -> np.ndarray:
        return self._origin._host_value_for_device()

    def _read_test_value(self) -> Any:
        return self._origin._test_value

    def _write_test_value(self, value: Any) -> None:
        # Variable.__init__ writes None before the origin is known: nothing to do then.
        if getattr(self, "_origin", None) is not None:
            self._origin._test_value = value

    # A property here takes the place of Variable's slot: one test value, the origin's.
    _test_value = property(_read_test_value, _write_test_value)

    def __reduce_ex__(self, protocol: Any) -> tuple:
        # The origin pickles once (pickle's memo), so an unpickled alias still aliases it.
        state = {**vars(self), "default_update": self.default_update, "_site": self._site,
                 "_tag": self._tag}
        return (_unpickled_alias, (self._origin, self.name), state)


@functools.cache
def _alias_class(cls: type) -> type:
    """The aliased-clone class of ``cls`` (a SharedVariable class): an instance of ``cls``
    too, and named alike, as Theano's clone is of its original's class."""
    return type(cls.__name__, (_SharedAlias, cls), {"__slots__": (), "__module__": cls.__module__,
                                                     "__qualname__": cls.__qualname__})


def _unpickled_alias(origin: SharedVariable, name: str | None) -> SharedVariable:
    alias = origin.clone()
    alias.name = name
    return alias


class SharedLocks:
    """The locks of some shared variables, as one context manager: entering takes them
    all in creation order, leaving releases them. Holding them, a call's reads and
    updates of these variables are atomic with respect to every other call."""

    __slots__ = ("locks",)

    def __init__(self, locks: Sequence[Any]) -> None:
        self.locks = tuple(locks)

    def __enter__(self) -> None:
        taken = 0
        try:
            for lock in self.locks:
                lock.acquire()
                taken += 1
        except BaseException:  # interrupted while waiting: give back what was taken
            for lock in self.locks[:taken]:
                lock.release()
            raise

    def __exit__(self, *exc: Any) -> None:
        for lock in reversed(self.locks):
            lock.release()


def lock_order(variables: Iterable[SharedVariable]) -> tuple:
    """The locks of ``variables`` (each once), in the order calls take them."""
    by_serial = {v.serial: v for v in variables}
    return tuple(by_serial[s].lock for s in sorted(by_serial))


def holding(variables: Iterable[SharedVariable]) -> Any:
    """A context manager holding the locks of ``variables``, taken in creation order;
    None when there are none. A single variable's lock is returned as is: entered
    in C, it is the cheapest (most calls of a small function use one variable)."""
    locks = lock_order(variables)
    if not locks:
        return None
    return locks[0] if len(locks) == 1 else SharedLocks(locks)


#: ``(accepts(value), make(value, name=, strict=, allow_downcast=, borrow=))`` pairs:
#: the shared variables of values that are not arrays, as the packages above this one
#: register them (Theano's ``shared_constructor``; ``symnb.core.sparse.shared``).
_value_constructors: list[tuple[Any, Any]] = []


def register_shared_constructor(accepts: Any, make: Any) -> None:
    """Make ``shared(value)`` call ``make`` for the values ``accepts``."""
    _value_constructors.append((accepts, make))


def shared(value: Any, name: str | None = None, strict: bool = False,
           allow_downcast: bool | None = None, borrow: bool = False,
           shape: Sequence[int | None] | None = None, dtype: Any = None,
           broadcastable: Sequence[bool] | None = None, sharding: Any = None) -> SharedVariable:
    """A shared variable holding ``value`` (copied).

    A value that is neither an array nor a number (a list, a string, another object)
    makes a variable of Theano's ``generic`` type, as Theano's ``shared`` did: it stores
    the object, and a compiled function reading it is refused
    (:mod:`symnb.core.tensor.generic_shared`).

    ``dtype`` defaults to the value's own dtype, NumPy's for a Python number or list
    (``shared(0.1)`` is float64, ``shared(3)`` int64, as Theano's constructors give
    them whatever ``floatX`` is: a float32 program writes ``np.float32(0.1)``).
    ``strict`` and ``allow_downcast`` say what ``set_value`` accepts (see
    :meth:`SharedVariable.set_value`). ``borrow=True`` keeps a NumPy array of the
    variable's dtype itself (not a copy), as Theano did on the CPU: a write into it is the
    variable's value until a compiled function first uses it (then the value lives on the
    device; see :meth:`SharedVariable.get_value`). ``shape`` fixes static lengths (None: any), and
    Theano's ``broadcastable`` (True: length 1) does the same for length-1 axes.
    ``sharding`` places the value over several devices: a ``jax.sharding.NamedSharding``
    (or any ``jax.sharding.Sharding``), a ``Mesh`` (replicated over it) or a pair
    ``(mesh, PartitionSpec)``; compiled functions keep updates on the same sharding.
    """
    if isinstance(value, Variable):  # Theano's refusal (a generic variable is no graph holder)
        raise TypeError(f"Shared variable constructor needs numeric values and not symbolic "
                        f"variables: {label(value)!r} is a symbolic variable; compute it first "
                        f"(value.eval()) or pass a NumPy array")
    for accepts, make in _value_constructors:  # values of another kind (scipy.sparse)
        if accepts(value):
            return make(value, name=name, strict=strict, allow_downcast=allow_downcast,
                        borrow=borrow)
    from symnb.core.tensor.generic_shared import generic_shared, is_generic_value

    if dtype is None and shape is None and broadcastable is None and is_generic_value(value):
        # Neither an array nor a number: Theano's generic type (any object, no tensor).
        return generic_shared(value, name=name, strict=strict, allow_downcast=allow_downcast,
                              borrow=borrow)
    # borrow=True keeps a NumPy array of the requested dtype itself (Theano's aliasing,
    # until a compiled function puts the value on the device: see get_value).
    array = np.asarray(value, dtype=dtype) if borrow else np.array(value, dtype=dtype, copy=True)
    if shape is None and broadcastable is not None:
        if len(broadcastable) != array.ndim:
            raise ValueError(f"shared: broadcastable {tuple(broadcastable)} has {len(broadcastable)} "
                             f"entries for a value of {array.ndim} dimension(s)")
        shape = [1 if b else None for b in broadcastable]
    static = (None,) * array.ndim if shape is None else tuple(shape)
    return SharedVariable(TensorType(array.dtype, static), array, name=name, strict=strict,
                          allow_downcast=allow_downcast, sharding=sharding, borrow=borrow)


def _on_cpu(value: Any) -> bool:
    """Whether a JAX array lives on CPU devices only (host memory)."""
    return all(device.platform == "cpu" for device in value.devices())


def _device_copy(value: Any) -> Any:
    """A copy of a JAX array, on its device (``get_value(return_internal_type=True)``)."""
    import jax.numpy as jnp  # only reached once a compiled function put the value there

    return jnp.array(value, copy=True)


def _unpickled_shared(type: TensorType, value: np.ndarray, name: str | None,
                      cls: Any = SharedVariable) -> SharedVariable:
    return cls(type, value, name=name, allow_downcast=True)


def _fits_exactly(array: np.ndarray, dtype: np.dtype) -> bool:
    """A value given as a Python number or list (not an ndarray) whose every entry the
    target dtype holds exactly: Theano accepts ``set_value([0, 1])`` into an int8 or a
    float32 variable, and ``set_value(0.1)`` into float32 (a Python float), but no
    ndarray whose dtype would lose precision."""
    with np.errstate(all="ignore"):
        converted = array.astype(dtype)
        return bool(np.all((converted == array) | (np.isnan(converted) & np.isnan(array))
                           if array.dtype.kind in "fc" else converted == array))


def function_inputs(outputs: Sequence[Variable]) -> list[Variable]:
    """The root variables ``outputs`` depend on that need a value at call time: roots
    without owner that are neither constants (fixed data) nor shared variables (their
    own storage). These are exactly the inputs ``sn.function`` requires."""
    return [v for v in graph_inputs(outputs)
            if v.owner is None and not isinstance(v, (Constant, SharedVariable))]
