"""Saving and loading models: ``sn.save(path, variables)`` / ``sn.load(path, variables)``.

The values of shared variables are stored by name in a NumPy ``.npz`` file, read back
with ``allow_pickle=False``: a file holds arrays only, never code to run. Loading
checks everything before changing anything: a name missing from the file, a name
given twice, an array whose shape or dtype differs from the variable's, a file that
is not such an archive, each is an error naming the variable, and no variable is
changed. Values are stored exactly (the same bytes come back), sharded ones gathered.
"""

from __future__ import annotations

import os
import tempfile
import zipfile
from typing import Any, Iterable

import numpy as np

from symnb.core.graph.errors import SymnbError, label
from symnb.core.tensor.shared import SharedVariable
from symnb.core.graph.traceback_filter import entry_points as _entry_points

__all__ = ["save", "load", "ModelFileError"]


class ModelFileError(SymnbError, ValueError):
    """A model file that does not match the variables to load (or is not a model file)."""


def save(path: str | os.PathLike, variables: Iterable[SharedVariable]) -> None:
    """Write the values of ``variables`` (shared variables with distinct names) to the
    ``.npz`` file ``path``. The file is replaced at once when complete, so a failed
    save leaves a previous file intact."""
    by_name = _by_name(variables)
    values = {name: var.get_value() for name, var in by_name.items()}
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=folder, suffix=".npz.partial")
    try:
        with os.fdopen(handle, "wb") as file:
            np.savez(file, **values)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def load(path: str | os.PathLike, variables: Iterable[SharedVariable]) -> None:
    """Set each of ``variables`` to the value stored under its name in ``path`` (written
    by :func:`save`). Every value is checked first (present, same shape and dtype as
    the variable's current value); on any error no variable is changed."""
    by_name = _by_name(variables)
    stored = _read(path)
    missing = [n for n in by_name if n not in stored]
    if missing:
        raise ModelFileError(f"{os.fspath(path)!r} has no value for {', '.join(map(repr, missing))}; "
                             f"it holds {', '.join(map(repr, sorted(stored))) or 'nothing'}")
    for name, var in by_name.items():
        _check_matches(path, var, stored[name])
    for name, var in by_name.items():
        var.set_value(stored[name])


def _by_name(variables: Iterable[SharedVariable]) -> dict[str, SharedVariable]:
    by_name: dict[str, SharedVariable] = {}
    for var in variables:
        if not isinstance(var, SharedVariable):
            raise TypeError(f"only shared variables can be saved or loaded; {label(var)!r} is "
                            f"a {type(var).__name__}")
        if not var.name:
            raise ValueError(f"values are saved by name, and {label(var)!r} "
                             f"({var.type.short()}), {var.site.describe('created at')}, has "
                             f"none: create it with sn.shared(..., name=...)")
        if var.name in by_name:
            raise ValueError(f"two of the variables are named {var.name!r} "
                             f"({by_name[var.name].site.describe('created at')}; "
                             f"{var.site.describe('created at')}); names must be distinct")
        by_name[var.name] = var
    return by_name


def _read(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """Every array in the file, read with no pickles allowed."""
    where = os.fspath(path)
    try:
        archive = np.load(where, allow_pickle=False)
        if not isinstance(archive, np.lib.npyio.NpzFile):
            raise ModelFileError(f"{where!r} holds a single array, not a model saved by sn.save")
        with archive:
            return {name: archive[name] for name in archive.files}
    except (ModelFileError, FileNotFoundError):
        raise
    except ValueError as err:  # object arrays (pickles), or not NumPy data at all
        raise ModelFileError(f"{where!r} cannot be loaded as arrays: {err}") from None
    except (zipfile.BadZipFile, OSError, EOFError) as err:
        raise ModelFileError(f"{where!r} is not a model file written by sn.save (a .npz "
                             f"archive): {err}") from None


def _check_matches(path: Any, var: SharedVariable, value: np.ndarray) -> None:
    current = var.get_value(borrow=True)
    if value.dtype != current.dtype or value.shape != current.shape:
        raise ModelFileError(
            f"{os.fspath(path)!r} stores {var.name!r} as a {value.dtype} array of shape "
            f"{value.shape}, but the shared variable {label(var)!r}, "
            f"{var.site.describe('created at')}, holds a {current.dtype} array of shape "
            f"{current.shape}; the model changed since the file was saved")


# The functions above are public entry points: an error they raise shows the user's line
# first, without symnb's frames (symnb.core.graph.traceback_filter).
_entry_points(globals())
