"""``symnb.gof.utils``: Theano's ``theano.gof.utils`` names that tests and extensions
catch (``MethodNotDefined``, raised by an op missing a method of the Op interface)."""

from symnb.core.graph.op import MethodNotDefined

__all__ = ["MethodNotDefined"]
