"""symnb: Theano's symbolic graphs with always-on test values, compiled to XLA by JAX.

    import symnb as sn
    import symnb.tensor as T

``import symnb`` does not import JAX: the XLA backend loads on the first compile.
"""

from __future__ import annotations

import logging as _logging
from typing import Any

from symnb.core.graph.config import config
from symnb.configparser import change_flags
from symnb.core.graph.basic import Apply, Constant, Variable
from symnb.core.graph.op import Op
from symnb.core.tensor.shared import SharedVariable, shared
from symnb.core.tensor.generic_shared import generic  # theano.generic (theano.gof's)
from symnb.core.scopes import name_scope
from symnb.core.graph.type import TensorType
from symnb.core.graph.errors import (
    DynamicShapeError, GraphRuntimeError, IndexOutOfBoundsError, MissingTestValueError, OutOfMemoryError, TestValueError,
    X64DisabledError,
)
from symnb import gradient, notebook_cells, printing, tensor  # noqa: F401
from symnb.gradient import grad
from symnb.gradient import Lop, Rop, subgraph_grad  # theano.Rop, theano.Lop, theano.subgraph_grad
from symnb import ifelse  # Theano's module (from symnb.ifelse import ifelse), callable as ifelse
from symnb.core.tensor.random.streams import RandomStreams
from symnb.core.clone import clone
from symnb.core.scan import foldl, foldr, map, reduce, scan, scan_until, steps_run
from symnb.io import ModelFileError, load, save
from symnb.compile import Mode, MonitorMode, In, Out, OpFromGraph, Param, function
from symnb.compile.ops import as_op  # theano.as_op (Theano's __init__ re-exported it)
from symnb.core.graph.error_base import SymnbError
from symnb import errors  # noqa: F401  (symnb.errors: the error hierarchy, as jax.errors)
from symnb import configdefaults, gof, scalar  # noqa: F401  (Theano's module paths)
from symnb import scan_module  # noqa: F401  (import theano binds theano.scan_module)
from symnb.printing import pp, pprint  # theano.pp, theano.pprint
from symnb.core.graph.fgraph import FunctionGraph  # theano.FunctionGraph (theano.gof's)
from symnb.tensor import get_scalar_constant_value  # theano.get_scalar_constant_value
from symnb.misc.safe_asarray import _asarray  # theano._asarray (Theano's __init__ bound it)
from symnb.updates import OrderedUpdates  # theano.OrderedUpdates (theano.updates)
from symnb.core.absent import module_getattr
from symnb.core.graph.traceback_filter import entry_points as _entry_points

from symnb._version import __version__

__all__ = [
    "config", "change_flags", "shared", "function", "Variable", "Constant", "Apply", "Op", "TensorType",
    "SharedVariable", "SymnbError", "errors", "TestValueError", "MissingTestValueError", "GraphRuntimeError",
    "OutOfMemoryError", "IndexOutOfBoundsError", "DynamicShapeError", "X64DisabledError", "tensor", "gradient", "grad", "printing", "scan", "scan_until", "map", "reduce", "foldl", "foldr",
    "ifelse", "steps_run", "save", "load", "ModelFileError", "Mode", "MonitorMode", "In", "Out",
    "pp", "gof", "scalar", "OrderedUpdates", "as_op", "RandomStreams", "name_scope", "clone", "dot", "Param", "scan_module",
    "OpFromGraph", "subgraph_grad", "symnb_logger", "logging_default_handler", "generic",
    "Rop", "Lop", "pprint", "FunctionGraph", "get_scalar_constant_value",
]

# Theano's logger and its handler (theano.theano_logger, theano.logging_default_handler):
# messages of symnb's loggers at WARNING and above go to stderr, as Theano's did; a
# program removes or replaces the handler as it did with Theano's.
symnb_logger = _logging.getLogger("symnb")
logging_default_handler = _logging.StreamHandler()
logging_default_handler.setFormatter(_logging.Formatter(fmt="%(levelname)s (%(name)s): %(message)s"))
symnb_logger.addHandler(logging_default_handler)
symnb_logger.setLevel(_logging.WARNING)

# Theano's package bound its own name (its __init__ ran ``import theano.<submodule>``
# statements), so ``from theano import theano`` gave the package: PyMC3 writes it.
import symnb as symnb  # noqa: E402,PLW0406

__getattr__ = module_getattr("symnb")  # Theano names symnb lacks: say so (core/absent.py)
del module_getattr


def dot(l: Any, r: Any) -> Any:
    """The matrix/dot product of ``l`` and ``r`` (Theano's ``theano.dot``): ``l.__dot__(r)``,
    else ``r.__rdot__(l)``; a symbolic tensor has both (``T.dot``)."""
    if hasattr(l, "__dot__"):
        return l.__dot__(r)
    if hasattr(r, "__rdot__"):
        return r.__rdot__(l)
    raise NotImplementedError(f"dot: neither operand is symbolic ({type(l).__name__}, "
                              f"{type(r).__name__}); use numpy.dot for arrays")


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext symnb``: register ``%%symgraph`` and HTML reprs (see :mod:`symnb.magics`)."""
    from symnb.magics import load_ipython_extension as _load

    _load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext symnb``: remove what ``%load_ext symnb`` registered."""
    from symnb.magics import unload_ipython_extension as _unload

    _unload(ipython)


# The functions above are public entry points: an error they raise shows the user's line
# first, without symnb's frames (symnb.core.graph.traceback_filter).
_entry_points(globals())
