"""Compilation modes: ``Mode`` (optimizer level and linker) and the debugging modes, and
Theano's ``theano.compile`` names (``function``, ``pfunc``, ``shared``...).

    from symnb.compile import Mode, NanGuardMode, DebugMode, WrapLinker

Importing this package does not import JAX.
"""

import sys
import types
from typing import Any

from symnb.core.graph.config import config  # theano.compile.config (Theano's modules exported it)
from symnb.compile.mode import FAST_COMPILE, FAST_RUN, Mode, get_default_mode, get_mode
from symnb.compile.linkers import Linker, WrapLinker
from symnb.compile.nanguard import NanGuardMode
from symnb.compile.debugmode import DebugMode
from symnb.compile.monitormode import MonitorMode
from symnb.compile.io import In, Out, Param
from symnb.compile.ops import DeepCopyOp, ViewOp, as_op, deep_copy_op, view_op  # theano.compile's
from symnb.compile.construction import MissingInputError, UnusedInputError
from symnb.compile.pfunc import pfunc  # the function, bound over its module's name as in Theano
from symnb.compile.sharedvalue import SharedVariable, shared  # theano.compile.shared
from symnb.compile.builders import OpFromGraph  # theano.compile.builders'

from symnb.core.tensor.variable import install_evaluator
from symnb.core.graph.traceback_filter import entry_points as _entry_points


#: Theano's ``theano.function`` parameters after ``outputs``, in its order: given by
#: position, they are passed by name (``function([], out, mode)`` is ``mode=mode``).
_THEANO_POSITIONAL = ("mode", "updates", "givens", "no_default_updates", "accept_inplace", "name",
                      "rebuild_strict", "allow_input_downcast", "profile", "on_unused_input")


def function(inputs: Any, outputs: Any = None, *args: Any, **kwargs: Any):
    """Compile ``outputs`` as a function of ``inputs`` to one XLA program (see
    :func:`symnb.compile.function.function`). JAX is imported on the first call. The
    parameters after ``outputs`` may be given by position in Theano's order (``mode``,
    ``updates``, ``givens``, ...)."""
    from symnb.compile.function import function as _function

    if len(args) > len(_THEANO_POSITIONAL):
        raise TypeError(f"function takes at most {2 + len(_THEANO_POSITIONAL)} positional "
                        f"arguments ({2 + len(args)} given)")
    for name, value in zip(_THEANO_POSITIONAL, args):
        if name in kwargs:
            raise TypeError(f"function got multiple values for argument {name!r}")
        kwargs[name] = value
    return _function(inputs, outputs, **kwargs)


def _evaluate(var, inputs_to_values):
    """``var.eval()``: compiled once per set of inputs (imports JAX on first use)."""
    from symnb.compile.function import evaluate

    return evaluate(var, inputs_to_values)


install_evaluator(_evaluate)

__all__ = ["Mode", "FAST_RUN", "FAST_COMPILE", "get_mode", "get_default_mode", "Linker",
           "WrapLinker", "NanGuardMode", "DebugMode", "MonitorMode", "In", "Out", "Param",
           "SharedVariable", "shared", "as_op", "DeepCopyOp", "deep_copy_op", "ViewOp", "view_op", "function", "pfunc",
           "MissingInputError", "UnusedInputError", "OpFromGraph"]

# The functions above are public entry points: an error they raise shows the user's line
# first, without symnb's frames (symnb.core.graph.traceback_filter).
_entry_points(globals())


class _CompilePackage(types.ModuleType):
    """``symnb.compile``, whose attribute ``function`` is the function, as Theano's
    ``theano.compile.function`` was, although ``symnb/compile/function.py`` is a module of
    the same name. The import system sets the package attribute to the submodule when the
    submodule is first imported (which imports JAX, so it happens late, after this package
    has bound the function); that assignment is ignored here. ``from symnb.compile.function
    import X`` still finds the module (in ``sys.modules``)."""

    @property
    def function(self) -> Any:
        return self.__dict__["_theano_function"]

    @function.setter
    def function(self, value: Any) -> None:
        if not (isinstance(value, types.ModuleType) and value.__name__ == f"{self.__name__}.function"):
            self.__dict__["_theano_function"] = value


_theano_function = globals().pop("function")
sys.modules[__name__].__class__ = _CompilePackage

from symnb.core.absent import module_getattr  # noqa: E402

_absent = module_getattr("symnb.compile")  # Theano names symnb lacks: say so
del module_getattr


def __getattr__(name: str) -> Any:
    if name == "ProfileStats":  # theano.compile.ProfileStats; imports JAX, so only when asked
        from symnb.compile.profiling.stats import ProfileStats

        return ProfileStats
    return _absent(name)
