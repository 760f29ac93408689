"""``theano.sandbox.rng_mrg.MRG_RandomStreams``: the same implementation as
``RandomStreams`` (JAX's threefry-2x32 keys, one XLA program, test values). MRG31k3p's
exact sequence is NOT reproduced: programs get the same distributions, other numbers.

The methods take Theano's keywords, and no others (Theano's MRG raised ``TypeError``
for any keyword but ``target`` too). ``nstreams`` is accepted and ignored (a
counter-based generator needs no stream count), and so is ``target`` (the GPU context
Theano put the generator's state on: symnb runs every program on ``sn.config.device``).
``normal(..., truncate=True)`` draws the normal truncated at two standard deviations
(``TruncatedNormalRV``), the distribution Theano documented (and ``truncated_normal``,
which scales ``std`` by ``1 / 0.8796...`` so the draws have standard deviation ``std``,
assumes). Theano drew it by redrawing the radius of the Box-Muller pairs that fell
outside, which leaves a slightly wider distribution (standard deviation 0.890 rather than
0.880); symnb draws the truncated normal itself, by inverse CDF.
"""

from typing import Any

import numpy as np

from symnb.core.graph.basic import Variable
from symnb.core.graph.config import config
from symnb.core.graph.keywords import checked_keywords
from symnb.core.graph.traceback_filter import api_boundaries
from symnb.core.graph.type import is_float
from symnb.core.tensor.basic import constant
from symnb.core.tensor.random.ops import NormalRV, RandomVariable, TruncatedNormalRV
from symnb.core.tensor.random.streams import OTHER_NAMES, RandomStreams

__all__ = ["MRG_RandomStreams"]

#: ``scipy.stats.truncnorm.std(-2, 2)``: the standard deviation of the standard normal
#: truncated at two standard deviations (Theano's constant).
TRUNCATED_STD = 0.87962566103423978


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
        """:meth:`RandomStreams.normal` (``nstreams``, ``target``: ignored); with
        ``truncate=True``, the normal truncated at two standard deviations: every draw
        within ``avg ± 2 std``, its standard deviation ``0.8796 std``."""
        return self._normal(TruncatedNormalRV if truncate else NormalRV, size, avg, std, ndim, dtype)

    @checked_keywords(OTHER_NAMES)
    def truncated_normal(self, size: Any = None, avg: Any = 0.0, std: Any = 1.0,
                         ndim: int | None = None, dtype: str | None = None, nstreams: Any = None,
                         target: Any = None) -> Variable:
        """The normal truncated at two standard deviations, scaled so that the draws
        have standard deviation ``std`` (Theano's: ``normal(truncate=True)`` with ``std``
        divided by ``scipy.stats.truncnorm.std(-2, 2)``)."""
        if isinstance(std, Variable):
            std = std / constant(TRUNCATED_STD, dtype=std.dtype if is_float(std.dtype) else config.floatX)
        else:
            std = np.asarray(std) / TRUNCATED_STD
        return self.normal(size, avg, std, ndim, dtype, truncate=True)

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
