"""``theano.tensor.shared_randomstreams``: random variables whose generator states are
shared variables (see :mod:`symnb.core.tensor.random.streams`)."""

from symnb.core.tensor.random.ops import RandomVariable as RandomVariable
from symnb.core.tensor.random.streams import RandomStreams as RandomStreams

__all__ = ["RandomStreams", "RandomVariable"]
