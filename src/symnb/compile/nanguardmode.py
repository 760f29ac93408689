"""``symnb.compile.nanguardmode``: Theano's module path of ``NanGuardMode``."""

from symnb.compile.nanguard import NanGuardError as NanGuardError
from symnb.compile.nanguard import NanGuardMode as NanGuardMode

__all__ = ["NanGuardMode", "NanGuardError"]
