"""Lowering rules, one file per family of ops. Importing this package registers them."""

from symnb.lower_xla.rules import (  # noqa: F401
    alloc, assertion, basic_theano_ops, batchnorm_ops, blas, broadcast, composite, conv, deep_copy, elemwise,
    extra_ops, ifelse, join, linalg, neighbours, nnet, op_from_graph,
    mrg, pool, print_op, python_op, random, reduction, scalar_elemwise, scan, shape, sparse, sparse_indexing, subtensor,
)
