"""``symnb.scalar.sharedvar.shared``: Theano's scalar shared variables (0-d tensors here)."""

import numpy as np
import pytest

import symnb
from symnb.scalar.sharedvar import ScalarSharedVariable, shared


def test_scalar_shared_variables_keep_the_number_dtype_and_update():
    i = shared(1)
    assert isinstance(i, ScalarSharedVariable) and i.ndim == 0 and i.dtype == "int64"
    assert shared(np.float32(2.5)).dtype == "float32" and shared(0.5).dtype == "float64"
    f = symnb.function([], i * 3, updates=[(i, i + 1)])
    assert f() == 3 and f() == 6 and i.get_value() == 3
    with pytest.raises(TypeError, match="Python or NumPy number"):
        shared(np.zeros(2))
