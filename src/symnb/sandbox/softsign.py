"""``symnb.sandbox.softsign``: where Theano before 0.9 kept ``softsign``."""

from symnb.core.tensor.activations import softsign

__all__ = ["softsign"]
