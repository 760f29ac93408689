"""``symnb.tensor.sharedvar``: Theano's module of shared tensor variables.

Theano had one class per kind (``TensorSharedVariable``, ``ScalarSharedVariable``); symnb's
:class:`~symnb.core.tensor.shared.SharedVariable` is all of them, so ``isinstance(v,
T.sharedvar.TensorSharedVariable)`` holds for every ``sn.shared`` tensor, as Keras checks.
"""

from symnb.core.tensor.shared import SharedVariable

TensorSharedVariable = SharedVariable
ScalarSharedVariable = SharedVariable

__all__ = ["TensorSharedVariable", "ScalarSharedVariable"]
