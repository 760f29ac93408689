"""The base class of symnb's own errors, below everything that raises one.

It stands alone so that ``config`` (whose ``ConfigError`` is a ``SymnbError``) and
``errors`` (whose messages read ``config``) import it, not each other.
"""

__all__ = ["SymnbError"]


class SymnbError(Exception):
    """Base of symnb's own errors."""
