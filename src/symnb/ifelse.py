"""``symnb.ifelse``: Theano's module path (``from symnb.ifelse import ifelse``).

The module is itself callable, so ``sn.ifelse(cond, a, b)`` keeps working where
``symnb.ifelse`` names the module.
"""

import sys
import types

from symnb.core.ifelse import IfElse as IfElse
from symnb.core.ifelse import ifelse as ifelse
from symnb.core.graph.traceback_filter import api_boundary as _api_boundary

__all__ = ["ifelse", "IfElse"]


class _CallableModule(types.ModuleType):
    @_api_boundary  # the user calls it: errors show the user's line
    def __call__(self, *args, **kwargs):
        return ifelse(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule

# sn.grad decides ifelse's branches over the whole cost graph (its seed rewrite).
from symnb.core.rewriting import lazy_branches  # noqa: E402,F401
