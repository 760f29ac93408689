"""``symnb.gof.fg``: the names of Theano's ``theano.gof.fg`` that libraries use (PyMC3
catches ``MissingInputError`` when it compiles a graph with an input not given)."""

from symnb.compile.construction import MissingInputError as MissingInputError

__all__ = ["MissingInputError"]
