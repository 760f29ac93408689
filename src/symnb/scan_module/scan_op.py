"""``symnb.scan_module.scan_op``: Theano's module of the ``Scan`` op, the class of the node
``sn.scan`` builds (``isinstance(node.op, scan_op.Scan)`` finds a graph's loops)."""

from symnb.core.scan.op import Scan

__all__ = ["Scan"]
