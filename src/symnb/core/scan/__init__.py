"""Loops: ``scan`` and the views built on it (``map``, ``reduce``, ``foldl``, ``foldr``).

A loop is one ``Scan`` node holding the step function's graph (``op.inner_inputs``,
``op.inner_outputs``); its NumPy reference runs the steps one by one, and it lowers
to ``jax.lax.scan`` (``lax.while_loop`` for ``scan_until``).
"""

from symnb.core.scan.basic import Until, scan, scan_until, steps_run, until
from symnb.core.scan.op import Scan, ScanInfo
from symnb.core.scan.views import foldl, foldr, map, reduce
# Registered in this order: a loop's outputs leave it (pushout) before loops merge.
from symnb.core.scan import grad, rewriting, pushout, merge  # noqa: F401  (the gradient, the rewrites)

__all__ = ["scan", "scan_until", "until", "Until", "steps_run", "map", "reduce", "foldl", "foldr",
           "Scan", "ScanInfo"]
