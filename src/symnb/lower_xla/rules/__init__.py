"""Lowering rules, one file per family of ops. Importing this package registers them."""

from symnb.lower_xla.rules import (  # noqa: F401
    alloc, assertion, blas, broadcast, composite, conv, elemwise, extra_ops, ifelse, join,
    linalg, neighbours, nnet,
    pool, print_op, random, reduction, scan, shape, subtensor,
)
