"""The tensor API implemented on the core (NumPy only), one module per family of ops.

The public namespace is ``symnb.tensor``, which re-exports what users call; code in
the library imports the modules here directly.
"""

# What the modules install where they are used from below: the variable classes on
# TensorType, stack into basic.py, the stable forms into math.py, the elementwise
# gradients into elemwise.GRADIENTS.
# stable_forms_erf registers the error function's forms in stable_forms' table,
# stable_forms_pow the log of a difference of powers.
from symnb.core.tensor import elemwise_grad, join, stable_forms, stable_forms_erf, stable_forms_pow, variable  # noqa: F401,E402
# scalar_elemwise installs Elemwise(scalar_op); scalar_scipy (above it) holds Theano's
# basic_scipy scalar ops, which the lowering reads.
from symnb.core.tensor import scalar_scipy  # noqa: F401,E402
