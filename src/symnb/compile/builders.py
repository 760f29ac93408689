"""``symnb.compile.builders``: Theano's ``theano.compile.builders`` (``OpFromGraph``, a
graph used as one op; see symnb.core.op_from_graph)."""

from symnb.core.op_from_graph import OpFromGraph

__all__ = ["OpFromGraph"]
