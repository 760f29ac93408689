"""``theano.tensor.elemwise``: Theano's elementwise, dimshuffle and reduction op classes,
importable from the module where Theano defined them (``from theano.tensor.elemwise import
CAReduce, Elemwise, DimShuffle, Prod``), with Theano's signatures: ``Elemwise(scalar_op)``,
``DimShuffle(input_broadcastable, new_order)``, ``CAReduce(scalar_op, axis=None)``,
``Sum(axis=None, dtype=None, acc_dtype=None)``, ``Prod(axis=None, dtype=None,
acc_dtype=None, no_zeros_in_input=False)``, ``ProdWithoutZeros(axis=None, dtype=None,
acc_dtype=None)``, ``All(axis=None)``, ``Any(axis=None)``."""

from symnb.core.tensor.elemwise import Elemwise as Elemwise
from symnb.core.tensor.reduction import (
    All as All, Any as Any, CAReduce as CAReduce, Prod as Prod, ProdWithoutZeros as ProdWithoutZeros,
    Sum as Sum,
)
from symnb.core.tensor.shape import DimShuffle as DimShuffle

__all__ = ["Elemwise", "DimShuffle", "CAReduce", "Sum", "Prod", "ProdWithoutZeros", "All", "Any"]
