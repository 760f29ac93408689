"""``symnb.sparse``: Theano's sparse-tensor module, present so that code importing it
unconditionally imports (PyMC3's ``model.py`` and ``math.py`` do, and use it only for
sparse data). symnb has no sparse tensors (its XLA programs use dense arrays). The
sparse types exist, so that code supporting both kinds asks as it did (Keras's
``isinstance(x.type, theano.sparse.SparseType)``) and is told the truth: no symnb
variable is sparse. Making one, and every other name read here, raises
:class:`~symnb.core.absent.NotInSymnbError` saying so, at the line that uses it
(``docs/porting.md``: ``theano.sparse``).
"""

from __future__ import annotations

from symnb.core.absent import NO_SPARSE_TENSORS, NotInSymnbError

__all__ = ["SparseType", "SparseVariable", "SparseConstant"]


def _refusal(name: str) -> NotInSymnbError:
    return NotInSymnbError(f"symnb.sparse.{name} is a Theano name that symnb does not have: "
                           f"{NO_SPARSE_TENSORS}; write the matrix dense "
                           "(T.as_tensor_variable(x.toarray())) (see docs/porting.md)")


class _NoInstances:
    """A Theano sparse class of which symnb makes no instance: ``isinstance`` answers
    False for every symnb object; constructing one is refused."""

    def __init__(self, *args, **kwargs) -> None:
        raise _refusal(type(self).__name__)


class SparseType(_NoInstances):
    """Theano's type of sparse variables (no symnb variable has it)."""


class SparseVariable(_NoInstances):
    """Theano's sparse variable (symnb makes none)."""


class SparseConstant(_NoInstances):
    """Theano's sparse constant (symnb makes none)."""


def __getattr__(name: str):
    if name.startswith("__"):  # probes (__path__, __file__ ...): the usual answer
        raise AttributeError(f"module 'symnb.sparse' has no attribute {name!r}")
    raise _refusal(name)
