"""Theano's ``sandbox`` names that programs still import (``rng_mrg``)."""
