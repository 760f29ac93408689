"""Theano's ``theano.compile.sharedvalue``: ``shared`` and ``SharedVariable``.

    from symnb.compile.sharedvalue import shared, SharedVariable
"""

from symnb.core.tensor.shared import SharedVariable, shared

__all__ = ["shared", "SharedVariable"]
