"""symnb's version (one home: ``symnb.__version__``, the persistent cache's folder name)."""

__version__ = "0.1.0"
