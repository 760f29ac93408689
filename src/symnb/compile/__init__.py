"""Compilation modes: ``Mode`` (optimizer level and linker) and the debugging modes.

    from symnb.compile import Mode, NanGuardMode, DebugMode, WrapLinker

Importing this package does not import JAX.
"""

from symnb.compile.mode import FAST_COMPILE, FAST_RUN, Mode, get_mode
from symnb.compile.linkers import Linker, WrapLinker
from symnb.compile.nanguard import NanGuardMode
from symnb.compile.debugmode import DebugMode
from symnb.compile.monitormode import MonitorMode
from symnb.compile.io import In, Out, Param
from symnb.compile.ops import as_op  # theano.compile.as_op
from symnb.core.tensor.shared import SharedVariable  # theano.compile.SharedVariable

from symnb.core.tensor.variable import install_evaluator
from symnb.core.graph.traceback_filter import entry_points as _entry_points


def _evaluate(var, inputs_to_values):
    """``var.eval()``: compiled once per set of inputs (imports JAX on first use)."""
    from symnb.compile.function import evaluate

    return evaluate(var, inputs_to_values)


install_evaluator(_evaluate)

__all__ = ["Mode", "FAST_RUN", "FAST_COMPILE", "get_mode", "Linker", "WrapLinker",
           "NanGuardMode", "DebugMode", "MonitorMode", "In", "Out", "Param", "SharedVariable", "as_op"]

# The functions above are public entry points: an error they raise shows the user's line
# first, without symnb's frames (symnb.core.graph.traceback_filter).
_entry_points(globals())

from symnb.core.absent import module_getattr  # noqa: E402

__getattr__ = module_getattr("symnb.compile")  # Theano names symnb lacks: say so
del module_getattr
