"""``theano.misc.pkl_utils``: pickling to a zip file whose arrays are NPY files of their own.

``dump(obj, f)`` writes a zip archive holding ``pkl`` (the pickle of ``obj``) and one NPY
file per NumPy array in it, named after the shared variable holding it (``W``, then
``W_2`` for a second ``W``) or ``array_0``, ``array_1``...; ``numpy.load`` reads those
arrays by name, and ``load(f)`` gives back the object. ``StripPickler`` pickles without
what Theano's variables carried for debugging (their tags' ``trace`` and ``test_value``).
The archive is laid out as Theano's.
"""

from __future__ import annotations

import io
import pickle
import zipfile
from collections import defaultdict
from typing import Any, BinaryIO, Callable

import numpy as np

from symnb.core.graph.basic import Tag, Variable
from symnb.core.tensor.shared import SharedVariable

__all__ = ["dump", "load", "StripPickler", "PersistentNdarrayID", "PersistentSharedVariableID",
           "PersistentNdarrayLoad", "zipadd"]

DEFAULT_PROTOCOL = pickle.DEFAULT_PROTOCOL


def _resolved(protocol: int | None) -> int:
    """The protocol number a pickler uses for ``protocol`` (None: the default; < 0: the highest)."""
    if protocol is None:
        return pickle.DEFAULT_PROTOCOL
    return pickle.HIGHEST_PROTOCOL if protocol < 0 else protocol


#: Where a variable keeps what Theano kept in ``tag.trace`` and ``tag.test_value``.
_TAG_SLOTS = {"trace": "_site", "test_value": "_test_value"}


class StripPickler(pickle.Pickler):
    """A pickler leaving out what the variables it meets carry for debugging: their
    ``trace`` (where they were built) and ``test_value``, and the tags named in
    ``extra_tag_to_remove``. The variables themselves are not changed (Theano's deleted
    the attributes from the objects)."""

    def __init__(self, file: BinaryIO, protocol: int = 0, extra_tag_to_remove: Any = None) -> None:
        super().__init__(file, protocol)
        self.protocol = _resolved(protocol)
        self.tag_to_remove = ["trace", "test_value", *(extra_tag_to_remove or ())]

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, Variable):
            reduced = obj.__reduce_ex__(self.protocol)
            attributes, slots = reduced[2]
            slots = {**slots, **{_TAG_SLOTS[t]: None for t in self.tag_to_remove if t in _TAG_SLOTS}}
            return (*reduced[:2], (attributes, slots), *reduced[3:])
        if type(obj) is Tag:
            kept = Tag.__new__(Tag)
            vars(kept).update({k: v for k, v in vars(obj).items() if k not in self.tag_to_remove})
            return kept.__reduce_ex__(self.protocol)
        return NotImplemented


class PersistentNdarrayID:
    """Each NumPy array met while pickling goes to its own NPY file of ``zip_file``
    (``array_0``, ``array_1``...); the pickle keeps ``'ndarray.<name>'`` in its place."""

    def __init__(self, zip_file: zipfile.ZipFile) -> None:
        self.zip_file = zip_file
        self.count = 0
        self.seen: dict[int, str] = {}
        self._kept: list[Any] = []  # what the ids of ``seen`` belong to, alive until the end

    def _resolve_name(self, obj: np.ndarray) -> str:
        name = f"array_{self.count}"
        self.count += 1
        return name

    def __call__(self, obj: Any) -> str | None:
        if type(obj) is not np.ndarray:
            return None
        if id(obj) not in self.seen:
            name = self._resolve_name(obj)
            zipadd(lambda f: np.lib.format.write_array(f, obj), self.zip_file, name)
            self.seen[id(obj)] = f"ndarray.{name}"
            self._kept.append(obj)
        return self.seen[id(obj)]


class PersistentSharedVariableID(PersistentNdarrayID):
    """As :class:`PersistentNdarrayID`, naming a shared variable's value after the
    variable (``W``, ``W_2``...). ``allow_unnamed=False`` refuses an unnamed shared
    variable, ``allow_duplicates=False`` two of the same name (``ValueError``)."""

    def __init__(self, zip_file: zipfile.ZipFile, allow_unnamed: bool = True, allow_duplicates: bool = True) -> None:
        super().__init__(zip_file)
        self.name_counter: dict[str, int] = defaultdict(int)
        self.ndarray_names: dict[int, str] = {}
        self.allow_unnamed, self.allow_duplicates = allow_unnamed, allow_duplicates

    def _resolve_name(self, obj: np.ndarray) -> str:
        if id(obj) not in self.ndarray_names:
            return super()._resolve_name(obj)
        name = self.ndarray_names[id(obj)]
        count = self.name_counter[name]
        self.name_counter[name] += 1
        if count and not self.allow_duplicates:
            raise ValueError(f"multiple shared variables with the name `{name}` found")
        return f"{name}_{count + 1}" if count else name

    def shared_value(self, var: SharedVariable, value: np.ndarray) -> None:
        """Called with the array a shared variable pickles its value as (see
        :class:`_ZipPickler`), before the array is met."""
        if var.name:
            if var.name == "pkl":
                raise ValueError("can't pickle shared variable with name `pkl`")
            self.ndarray_names[id(value)] = var.name
            self._kept.append(value)
        elif not self.allow_unnamed:
            raise ValueError(f"unnamed shared variable, {var}")


class PersistentNdarrayLoad:
    """Reads back what :class:`PersistentNdarrayID` wrote (each array read once)."""

    def __init__(self, zip_file: zipfile.ZipFile) -> None:
        self.zip_file = zip_file
        self.cache: dict[str, np.ndarray] = {}

    def __call__(self, persid: str) -> np.ndarray:
        kind, name = persid.split(".", 1)
        if kind != "ndarray":
            raise pickle.UnpicklingError(f"pkl_utils.load: {persid!r} is a {kind} (Theano's GPU "
                                         "arrays are not read here); only NumPy arrays are")
        if name not in self.cache:
            with self.zip_file.open(name) as f:
                self.cache[name] = np.lib.format.read_array(f)
        return self.cache[name]


class _ZipPickler(pickle.Pickler):
    """A pickler whose ``persistent_id`` is one of the classes above; it tells a
    :class:`PersistentSharedVariableID` which array each shared variable pickles."""

    def __init__(self, file: BinaryIO, protocol: int, persistent: Any) -> None:
        super().__init__(file, protocol)
        self.protocol = _resolved(protocol)
        self.persistent = persistent

    def persistent_id(self, obj: Any) -> Any:
        return self.persistent(obj)

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, SharedVariable) and hasattr(self.persistent, "shared_value"):
            reduced = obj.__reduce_ex__(self.protocol)
            arrays = [a for a in reduced[1] if type(a) is np.ndarray]
            for value in arrays:
                self.persistent.shared_value(obj, value)
            return reduced
        return NotImplemented


def dump(obj: Any, file_handler: BinaryIO, protocol: int = DEFAULT_PROTOCOL,
         persistent_id: Callable[[zipfile.ZipFile], Any] = PersistentSharedVariableID) -> None:
    """Pickle ``obj`` into a zip archive written to ``file_handler``: ``pkl`` and an NPY
    file per array (see the module docstring)."""
    with zipfile.ZipFile(file_handler, "w", zipfile.ZIP_DEFLATED, allowZip64=True) as zip_file:
        def pickled(f: BinaryIO) -> None:
            _ZipPickler(f, protocol, persistent_id(zip_file)).dump(obj)

        zipadd(pickled, zip_file, "pkl")


def load(f: BinaryIO, persistent_load: Callable[[zipfile.ZipFile], Any] = PersistentNdarrayLoad) -> Any:
    """The object :func:`dump` wrote to ``f``."""
    with zipfile.ZipFile(f, "r") as zip_file:
        unpickler = pickle.Unpickler(io.BytesIO(zip_file.read("pkl")))
        unpickler.persistent_load = persistent_load(zip_file)
        return unpickler.load()


def zipadd(func: Callable[[BinaryIO], None], zip_file: zipfile.ZipFile, name: str) -> None:
    """Write what ``func`` writes to a file object as the member ``name`` of ``zip_file``."""
    buffer = io.BytesIO()
    func(buffer)
    zip_file.writestr(name, buffer.getvalue())
