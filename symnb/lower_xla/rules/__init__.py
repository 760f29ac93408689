"""Lowering rules, one file per family of ops. Importing this package registers them."""

from symnb.lower_xla.rules import elemwise  # noqa: F401
