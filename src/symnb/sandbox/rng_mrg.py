"""``theano.sandbox.rng_mrg.MRG_RandomStreams``: the same implementation as
``RandomStreams`` (JAX's threefry-2x32 keys, one XLA program, test values). MRG31k3p's
exact sequence is NOT reproduced: programs get the same distributions, other numbers.

The methods take Theano's keywords, and no others (Theano's MRG raised ``TypeError``
for any keyword but ``target`` too). ``nstreams`` is accepted and ignored (a
counter-based generator needs no stream count), and so is ``target`` (the GPU context
Theano put the generator's state on: symnb runs every program on ``sn.config.device``).
``normal(..., truncate=True)`` is refused: its truncated distribution is not in symnb.
"""

from typing import Any

from symnb.core.graph.errors import build_error
from symnb.core.graph.keywords import checked_keywords
from symnb.core.graph.traceback_filter import api_boundaries
from symnb.core.tensor.random.ops import RandomVariable
from symnb.core.tensor.random.streams import OTHER_NAMES, RandomStreams

__all__ = ["MRG_RandomStreams"]


@api_boundaries  # errors show the user's line
class MRG_RandomStreams(RandomStreams):
    """Theano's MRG random streams, on threefry keys (see the module docstring)."""

    def __init__(self, seed: int = 12345) -> None:
        super().__init__(seed)

    @checked_keywords(OTHER_NAMES)
    def uniform(self, size: Any = None, low: Any = 0.0, high: Any = 1.0, ndim: int | None = None,
                dtype: str | None = None, nstreams: Any = None, target: Any = None) -> RandomVariable:
        """:meth:`RandomStreams.uniform` (``nstreams``, ``target``: ignored)."""
        return super().uniform(size, low, high, ndim, dtype)

    @checked_keywords(OTHER_NAMES)
    def normal(self, size: Any = None, avg: Any = 0.0, std: Any = 1.0, ndim: int | None = None,
               dtype: str | None = None, nstreams: Any = None, truncate: bool = False,
               target: Any = None) -> RandomVariable:
        """:meth:`RandomStreams.normal` (``nstreams``, ``target``: ignored;
        ``truncate=True`` is refused)."""
        if truncate:
            raise build_error("MRG_RandomStreams.normal(truncate=True): the normal truncated at "
                              "two standard deviations is not in symnb (truncate=False draws "
                              "the whole normal)", NotImplementedError)
        return super().normal(size, avg, std, ndim, dtype)

    @checked_keywords(OTHER_NAMES)
    def binomial(self, size: Any = None, n: int = 1, p: Any = 0.5, ndim: int | None = None,
                 dtype: str = "int64", nstreams: Any = None, target: Any = None) -> RandomVariable:
        """:meth:`RandomStreams.binomial` (``nstreams``, ``target``: ignored)."""
        return super().binomial(size, n, p, ndim, dtype)

    @checked_keywords(OTHER_NAMES)
    def multinomial(self, size: Any = None, n: int = 1, pvals: Any = (0.5, 0.5),
                    ndim: int | None = None, dtype: str = "int64", nstreams: Any = None,
                    target: Any = None) -> RandomVariable:
        """:meth:`RandomStreams.multinomial` (``nstreams``, ``target``: ignored)."""
        return super().multinomial(size, n, pvals, ndim, dtype)

    @checked_keywords(OTHER_NAMES)
    def choice(self, size: Any = (), a: Any = 2, replace: bool = True, p: Any = None,
               ndim: int | None = None, dtype: str = "int64", nstreams: Any = None,
               target: Any = None) -> Any:
        """:meth:`RandomStreams.choice` (``nstreams``, ``target``: ignored)."""
        return super().choice(size, a, replace, p, ndim, dtype)
