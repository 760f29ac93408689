"""``symnb.sparse``: Theano's sparse-tensor module, present so that code importing it
unconditionally imports (PyMC3's ``model.py`` and ``math.py`` do, and use it only for
sparse data). symnb has no sparse tensors (its XLA programs use dense arrays): each of
Theano's names here raises :class:`~symnb.core.absent.NotInSymnbError` saying so, at the
line that uses it.
"""

from symnb.core.absent import module_getattr

__all__: list[str] = []

__getattr__ = module_getattr("symnb.sparse")  # every Theano name: refused with the reason
del module_getattr
