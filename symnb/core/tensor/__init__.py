"""The tensor API implemented on the core (NumPy only).

Each module holds one family of ops and its public functions; this package gathers
their ``__all__`` and binds itself to ``TensorVariable`` so operators and methods
(``x + y``, ``x.sum()``) call the same functions.
"""

import importlib as _importlib
import sys as _sys

from symnb.core.op import Op as _Op
from symnb.core.tensor import variable as _variable
from symnb.core.tensor.variable import TensorConstant, TensorVariable

# Modules whose public functions make up the tensor API. Some export a function of
# the module's own name (``shape``), so they are looked up by name, not attribute.
_MODULE_NAMES = [
    "basic", "math", "reduction", "blas", "nnet", "shape", "join", "alloc", "subtensor",
    "assertion", "print_op",
]

__all__ = ["TensorVariable", "TensorConstant"]
for _name in _MODULE_NAMES:
    _module = _importlib.import_module(f"{__name__}.{_name}")
    for _public in _module.__all__:
        globals()[_public] = getattr(_module, _public)
    __all__ += list(_module.__all__)

_Op.output_class = TensorVariable
_variable.bind_api(_sys.modules[__name__])
