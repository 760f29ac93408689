"""``symnb.scan_module.scan_utils``: the helpers Theano programs and tests import
(``equal_computations``, the structural comparison of graphs; ``clone``, Theano's
``theano.clone``)."""

from symnb.core.clone import clone
from symnb.core.graph_compare import equal_computations

__all__ = ["clone", "equal_computations"]
