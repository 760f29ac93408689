"""``symnb.tensor.signal`` (``T.signal``): Theano's ``conv``."""

from symnb.tensor.signal import conv  # noqa: F401

__all__ = ["conv"]
