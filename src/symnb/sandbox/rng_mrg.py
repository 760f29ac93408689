"""``theano.sandbox.rng_mrg.MRG_RandomStreams``: the same implementation as
``RandomStreams`` (JAX's threefry-2x32 keys, one XLA program, test values). MRG31k3p's
exact sequence is NOT reproduced: programs get the same distributions, other numbers.
``nstreams`` is accepted and ignored (a counter-based generator needs no stream count).
"""

from symnb.core.tensor.random.streams import RandomStreams

__all__ = ["MRG_RandomStreams"]


class MRG_RandomStreams(RandomStreams):
    """Theano's MRG random streams, on threefry keys (see the module docstring)."""

    def __init__(self, seed: int = 12345) -> None:
        super().__init__(seed)
