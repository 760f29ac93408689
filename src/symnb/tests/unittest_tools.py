"""``symnb.tests.unittest_tools``: Theano's ``theano.tests.unittest_tools``, the helpers that
test suites written for Theano import: the seed of ``config.unittests.rseed``
(:func:`fetch_seed`, :func:`seed_rng`), :func:`verify_grad` with a seeded generator, and
:func:`assert_allclose` with Theano's tolerances per dtype."""

from __future__ import annotations

from typing import Any

import numpy as np

from symnb.core.graph.config import config
from symnb.gradient import verify_grad as _verify_grad

__all__ = ["fetch_seed", "seed_rng", "verify_grad", "assert_allclose", "WrongValue"]

#: Theano's tolerances (theano.tensor.basic): float32 where either array is float32.
_TOLERANCES = {"float32": (1e-5, 1e-5), "float64": (1e-8, 1e-8)}


def fetch_seed(pseed: Any = None) -> int | None:
    """``pseed``, else ``config.unittests.rseed``, as an int; None for ``'random'``."""
    seed = pseed if pseed is not None else config.unittests.rseed
    if seed == "random":
        return None
    try:
        return int(seed)
    except (TypeError, ValueError):
        raise ValueError(f"unittests.rseed must be an int or 'random', got {seed!r}") from None


def seed_rng(pseed: Any = None) -> int | None:
    """Seed NumPy's global generator with :func:`fetch_seed` and return the seed."""
    seed = fetch_seed(pseed)
    if seed is not None:
        np.random.seed(seed)
    return seed


def verify_grad(op: Any, pt: Any, n_tests: int = 2, rng: Any = None, eps: float | None = None,
                out_type: str | None = None, abs_tol: float | None = None,
                rel_tol: float | None = None, mode: Any = None, cast_to_output_type: bool = False,
                no_debug_ref: bool = True) -> None:
    """``T.verify_grad`` with NumPy's global generator seeded by :func:`seed_rng` when no
    ``rng`` is given (Theano's)."""
    if rng is None:
        seed_rng()
        rng = np.random
    _verify_grad(op, pt, n_tests, rng, eps=eps, out_type=out_type, abs_tol=abs_tol,
                 rel_tol=rel_tol, mode=mode, cast_to_output_type=cast_to_output_type,
                 no_debug_ref=no_debug_ref)


class WrongValue(Exception):
    """Raised by :func:`assert_allclose` (Theano's): the two values and their difference."""

    def __init__(self, expected: Any, value: Any, rtol: float, atol: float) -> None:
        self.expected, self.value = np.asarray(expected), np.asarray(value)
        diff = np.abs(self.expected - self.value) if self.expected.shape == self.value.shape else None
        detail = "" if diff is None else f"; largest absolute difference {np.nanmax(diff)}"
        super().__init__(f"WrongValue (rtol={rtol}, atol={atol}): expected {self.expected!r}, "
                         f"got {self.value!r}{detail}")


def assert_allclose(expected: Any, value: Any, rtol: float | None = None, atol: float | None = None) -> None:
    """Raise :class:`WrongValue` unless ``value`` is close to ``expected``: Theano's default
    tolerances are float32's when either is float32 (1e-5), else float64's (1e-8)."""
    expected, value = np.asarray(expected), np.asarray(value)
    dtype = "float32" if "float32" in (str(expected.dtype), str(value.dtype)) else "float64"
    default_atol, default_rtol = _TOLERANCES[dtype]
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    if expected.shape != value.shape or not np.allclose(expected, value, rtol=rtol, atol=atol):
        raise WrongValue(expected, value, rtol, atol)
