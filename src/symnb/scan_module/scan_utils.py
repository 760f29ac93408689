"""``symnb.scan_module.scan_utils``: the helper Theano programs and tests import
(``equal_computations``, the structural comparison of graphs)."""

from symnb.core.graph_compare import equal_computations

__all__ = ["equal_computations"]
