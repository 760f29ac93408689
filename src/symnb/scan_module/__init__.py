"""``symnb.scan_module``: Theano's module path for ``scan`` and ``until``.

``from theano.scan_module import until`` and ``theano.scan_module.scan_utils`` keep
working with ``theano`` renamed; the loop itself is :func:`symnb.scan`.
"""

from symnb.core.scan import scan, until
from symnb.scan_module import scan_utils  # noqa: F401

__all__ = ["scan", "until", "scan_utils"]
