"""``symnb.gof.op``: the names of Theano's ``theano.gof.op`` that libraries use."""

from __future__ import annotations

from typing import Any

from symnb.core.graph.basic import Variable
from symnb.core.graph.op import Op, PureOp
from symnb.core.graph.traceback_filter import entry_points as _entry_points

__all__ = ["Op", "PureOp", "get_test_value"]


def get_test_value(v: Any) -> Any:
    """The test value of ``v`` (Theano's ``gof.op.get_test_value``): a variable's
    ``tag.test_value``, a constant's value; anything else is made a tensor first (so an
    array or a number is returned as an array)."""
    if not isinstance(v, Variable):
        from symnb.core.tensor.basic import as_tensor_variable

        v = as_tensor_variable(v)
    return v.test_value


_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)
