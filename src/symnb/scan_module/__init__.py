"""``symnb.scan_module``: Theano's module path for ``scan`` and ``until``.

``from theano.scan_module import until``, ``theano.scan_module.scan_utils`` and
``scan_op.Scan`` (the class of the loop's op) keep working with ``theano`` renamed; the
loop itself is :func:`symnb.scan`.
"""

from symnb.core.scan import scan, until
from symnb.scan_module import scan_op, scan_utils  # noqa: F401
from symnb.core.graph.traceback_filter import entry_points as _entry_points

__all__ = ["scan", "until", "scan_op", "scan_utils"]


# The functions above are public entry points: an error they raise shows the user's line
# first, without symnb's frames (symnb.core.graph.traceback_filter).
_entry_points(globals())
