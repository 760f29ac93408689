"""``symnb.tensor.signal`` (``T.signal``): Theano's ``pool``, ``downsample`` and ``conv``."""

from symnb.tensor.signal import conv, downsample, pool  # noqa: F401

__all__ = ["conv", "downsample", "pool"]
