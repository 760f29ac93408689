"""``symnb.scan_module.scan_utils``: the helpers Theano programs and tests import
(``equal_computations``, the structural comparison of graphs; ``clone``, Theano's
``theano.clone``)."""

from symnb.core.clone import clone
from symnb.core.graph_compare import equal_computations
from symnb.core.graph.traceback_filter import entry_points as _entry_points

__all__ = ["clone", "equal_computations"]


# The functions above are public entry points: an error they raise shows the user's line
# first, without symnb's frames (symnb.core.graph.traceback_filter).
_entry_points(globals())
