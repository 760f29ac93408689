"""Theano's ``theano.compile.sharedvalue``: ``shared``, ``SharedVariable`` and ``generic``
(the type of a shared variable whose value is any Python object).

    from symnb.compile.sharedvalue import shared, SharedVariable, generic
"""

from symnb.core.tensor.generic_shared import generic
from symnb.core.tensor.shared import SharedVariable, shared

__all__ = ["shared", "SharedVariable", "generic"]
