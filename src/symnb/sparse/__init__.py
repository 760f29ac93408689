"""``symnb.sparse``: Theano's sparse-tensor module, present so that code importing it
unconditionally imports (PyMC3's ``model.py`` and ``math.py`` do, and use it only for
sparse data). symnb has no sparse tensors (its XLA programs use dense arrays): every
name read here raises :class:`~symnb.core.absent.NotInSymnbError` saying so, at the line
that uses it (``docs/porting.md``, the table of absent names: ``theano.sparse``).
"""

from __future__ import annotations

from symnb.core.absent import ABSENT, NotInSymnbError

__all__: list[str] = []


def __getattr__(name: str):
    if name.startswith("__"):  # probes (__path__, __file__ ...): the usual answer
        raise AttributeError(f"module 'symnb.sparse' has no attribute {name!r}")
    raise NotInSymnbError(f"symnb.sparse.{name} is a Theano name that symnb does not have: "
                          f"{ABSENT['symnb']['sparse']}; write the matrix dense "
                          "(T.as_tensor_variable(x.toarray())) (see docs/porting.md)")
