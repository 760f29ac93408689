"""The tensor API implemented on the core (NumPy only).

Each module holds one family of ops and its public functions; this package gathers
their ``__all__`` and binds itself to ``TensorVariable`` so operators and methods
(``x + y``, ``x.sum()``) call the same functions.
"""

from symnb.core.tensor import (
    alloc, assertion, basic, blas, join, math, nnet, reduction, shape, subtensor, variable,
)
from symnb.core.tensor.alloc import *  # noqa: F401,F403
from symnb.core.tensor.assertion import *  # noqa: F401,F403
from symnb.core.tensor.basic import *  # noqa: F401,F403
from symnb.core.tensor.blas import *  # noqa: F401,F403
from symnb.core.tensor.join import *  # noqa: F401,F403
from symnb.core.tensor.math import *  # noqa: F401,F403
from symnb.core.tensor.nnet import *  # noqa: F401,F403
from symnb.core.tensor.reduction import *  # noqa: F401,F403
from symnb.core.tensor.shape import *  # noqa: F401,F403
from symnb.core.tensor.subtensor import *  # noqa: F401,F403
from symnb.core.tensor.variable import TensorConstant, TensorVariable

_MODULES = [alloc, assertion, basic, blas, join, math, nnet, reduction, shape, subtensor]

__all__ = ["TensorVariable", "TensorConstant"]
for _module in _MODULES:
    __all__ += list(_module.__all__)

import sys as _sys

from symnb.core.op import Op as _Op

_Op.output_class = TensorVariable
variable.bind_api(_sys.modules[__name__])
