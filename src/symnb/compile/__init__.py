"""Compilation modes: ``Mode`` (optimizer level and linker) and the debugging modes.

    from symnb.compile import Mode, NanGuardMode, DebugMode, WrapLinker

Importing this package does not import JAX.
"""

from symnb.compile.mode import FAST_COMPILE, FAST_RUN, Mode, get_mode
from symnb.compile.linkers import Linker, WrapLinker
from symnb.compile.nanguard import NanGuardMode
from symnb.compile.debugmode import DebugMode

__all__ = ["Mode", "FAST_RUN", "FAST_COMPILE", "get_mode", "Linker", "WrapLinker",
           "NanGuardMode", "DebugMode"]
