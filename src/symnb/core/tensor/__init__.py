"""The tensor API implemented on the core (NumPy only), one module per family of ops.

The public namespace is ``symnb.tensor``, which re-exports what users call; code in
the library imports the modules here directly.
"""
