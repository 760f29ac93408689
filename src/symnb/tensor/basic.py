"""Theano's ``theano.tensor.basic``: the tensor names of :mod:`symnb.tensor`, importable
from the module where Theano defined them (``import theano.tensor.basic as T``,
``from theano.tensor.basic import _allclose``), and Theano's comparison helper
``_allclose`` with its tolerances per dtype.
"""

from __future__ import annotations

from symnb.tensor._public import *  # noqa: F401,F403  (every public name of symnb.tensor)
from symnb.tensor._public import __getattr__  # noqa: F401  (Theano names symnb lacks: say so)

# Theano's tolerances and _allclose live with the type's value comparisons (core/graph).
from symnb.core.graph.values_eq import (  # noqa: F401
    _allclose, _get_atol_rtol, float16_atol, float16_rtol, float32_atol, float32_rtol,
    float64_atol, float64_rtol,
)
