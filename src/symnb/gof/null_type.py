"""``symnb.gof.null_type``: Theano's ``theano.gof.null_type`` (``NullType``, the type of a
gradient that does not exist, and ``null_type``); see symnb.core.gradient_types."""

from symnb.core.gradient_types import NullType, null_type

__all__ = ["NullType", "null_type"]
