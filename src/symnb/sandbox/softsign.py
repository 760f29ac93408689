"""``symnb.sandbox.softsign``: where Theano before 0.9 kept ``softsign``."""

from symnb.core.tensor.activations import softsign

__all__ = ["softsign"]

from symnb.core.graph.traceback_filter import entry_points as _entry_points

_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)
