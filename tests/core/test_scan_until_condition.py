"""``until(cond)`` with a float condition stops where it is not zero (Theano's rule)."""

import numpy as np
import pytest

import symnb
import symnb.tensor as T
from symnb.scan_module import until


def test_a_float_condition_stops_the_loop_where_it_is_not_zero():
    x0 = T.dscalar("x0")
    values, _ = symnb.scan(lambda x: (x - 1.0, until(x - 1.0)), outputs_info=x0, n_steps=10)
    f = symnb.function([x0], [values, symnb.steps_run(values)])
    out, steps = f(3.0)
    assert steps == 1  # 3 - 1 = 2: not zero, so the loop stops after its first step
    np.testing.assert_allclose(out[0], 2.0)
    out, steps = f(1.0)  # 1 - 1 = 0 goes on; then -1 stops
    assert steps == 2
    np.testing.assert_allclose(out[:2], [0.0, -1.0])
    with pytest.raises(TypeError, match="must be a scalar"):
        symnb.scan(lambda x: (x, until(T.stack([x, x]))), outputs_info=x0, n_steps=3)
