"""``symnb.core.graph.errors``: one class hierarchy, one layout for an error at the user's line.

The same mistake gives the same class and layout whether a static shape finds it (as
the node is made) or a test value does (as the node computes its own)."""

import re

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph import errors
from symnb.core.graph.config import ConfigError
from symnb.core.graph.errors import (
    BuildError, BuildIndexError, BuildKeyError, BuildNotImplementedError, BuildTypeError,
    GraphRuntimeError, IndexOutOfBoundsError, InnerNodeError, MissingTestValueError,
    OutOfMemoryError, SymnbError, TestValueAssertionError, TestValueError, UnbuiltNode,
    build_error, build_error_class, format_node_error,
)
from symnb.core.tensor.elemwise import Add


@pytest.mark.parametrize("cls, builtin", [
    (TestValueError, ValueError), (TestValueAssertionError, AssertionError),
    (BuildIndexError, IndexError), (BuildTypeError, TypeError), (BuildKeyError, KeyError),
    (BuildNotImplementedError, NotImplementedError), (MissingTestValueError, AttributeError),
    (InnerNodeError, ValueError), (GraphRuntimeError, ValueError),
    (IndexOutOfBoundsError, IndexError), (OutOfMemoryError, MemoryError),
    (ConfigError, ValueError),
])
def test_every_error_is_a_symnb_error_and_the_builtin_users_catch(cls, builtin):
    assert issubclass(cls, SymnbError) and issubclass(cls, builtin)


def test_the_public_names_are_the_classes():
    assert (sn.TestValueError, sn.MissingTestValueError, sn.GraphRuntimeError, sn.IndexOutOfBoundsError,
            sn.OutOfMemoryError) == (TestValueError, MissingTestValueError, GraphRuntimeError,
                                     IndexOutOfBoundsError, OutOfMemoryError)


@pytest.mark.parametrize("kind, from_test_value, expected", [
    (ValueError, False, TestValueError),
    (ValueError, True, TestValueError),
    (AssertionError, True, TestValueAssertionError),
    (IndexError, False, BuildIndexError),
    (IndexError, True, BuildIndexError),
    (TypeError, False, BuildTypeError),
    (TypeError, True, TestValueError),  # what a test value finds is a TestValueError
    (KeyError, False, BuildKeyError),
    (NotImplementedError, False, BuildNotImplementedError),
    (ZeroDivisionError, True, TestValueError),
])
def test_build_error_class_by_kind(kind, from_test_value, expected):
    assert build_error_class(kind, from_test_value) is expected


def test_a_more_specific_kind_gets_a_class_deriving_from_it():
    cls = build_error_class(np.exceptions.AxisError)
    assert issubclass(cls, BuildIndexError) and issubclass(cls, np.exceptions.AxisError)
    assert build_error_class(np.exceptions.AxisError) is cls  # made once
    assert issubclass(build_error_class(OverflowError), OverflowError)


# -- one layout -----------------------------------------------------------------------------

def _layout(message: str) -> list[str]:
    """The message without what differs between two lines of this file: line numbers and
    the source text after 'created at'/'built at'."""
    message = re.sub(r"line \d+, in \w+", "line N, in F", message)
    message = re.sub(r"((?:created|built) at test_errors\.py):\d+: .*", r"\1:N: <source>", message)
    return message.splitlines()


def _raised(build):
    with pytest.raises(BuildError) as info:
        build()
    return info.value


def _same_mistake(static_error, value_error, headline):
    """Same class, same headline, same layout; only the closing hint says which check found it."""
    assert type(static_error) is type(value_error)
    static_lines, value_lines = _layout(str(static_error)), _layout(str(value_error))
    assert static_lines[0] == value_lines[0] == headline
    assert static_lines[:-1] == value_lines[:-1]
    assert static_lines[-1].startswith("Static shapes are checked as the node is built")
    assert value_lines[-1].startswith("Test values are computed as the graph is built")


# The mistakes, each on one line that both checks run (only the inputs differ).

def _add(x, y):
    return x + y


def _reshape(x):
    return x.reshape((4, 2))


def _fifth(x):
    return x[5]


def _dot(a, b):
    return T.dot(a, b)


def test_shapes_that_do_not_broadcast():
    static_error = _raised(lambda: _add(T.vector("x", shape=(2,)), T.vector("y", shape=(3,))))
    value_error = _raised(lambda: _add(T.vector("x", test_value=np.ones(2, "float32")),
                                       T.vector("y", test_value=np.ones(3, "float32"))))
    _same_mistake(static_error, value_error,
                  "DimensionMismatch in Elemwise{add,no_inplace}: Input dimension mis-match: x.shape(2,) "
                  "and y.shape(3,) differ on axis -1 (input[0].shape[0] = 2, input[1].shape[0] = 3)")
    assert isinstance(static_error, sn.TestValueError) and isinstance(static_error, ValueError)
    assert _layout(str(static_error))[1:6] == [
        '  File "' + __file__ + '", line N, in F',
        "    return x + y",
        "Inputs of Elemwise{add,no_inplace}:",
        f"  #0 x  {'float32 (2,)':<18} input created at test_errors.py:N: <source>",
        f"  #1 y  {'float32 (3,)':<18} input created at test_errors.py:N: <source>",
    ]


def test_a_reshape_to_the_wrong_size():
    _same_mistake(_raised(lambda: _reshape(T.matrix("x", shape=(2, 3)))),
                  _raised(lambda: _reshape(T.matrix("x", test_value=np.ones((2, 3), "float32")))),
                  "ValueError in Reshape{2}: cannot reshape 'x' of shape (2, 3) (size 6) into shape "
                  "(4, 2) (size 8)")


def test_an_index_out_of_range():
    static_error = _raised(lambda: _fifth(T.vector("x", shape=(3,))))
    value_error = _raised(lambda: _fifth(T.vector("x", test_value=np.ones(3, "float32"))))
    _same_mistake(static_error, value_error,
                  "IndexError in Subtensor{5}: index 5 is out of bounds for axis 0 of x, which has "
                  "length 3 (valid indices: -3 to 2)")
    assert isinstance(static_error, IndexError) and isinstance(static_error, sn.TestValueError)


def test_a_product_of_mismatched_shapes():
    _same_mistake(_raised(lambda: _dot(T.matrix("a", shape=(2, 3)), T.matrix("b", shape=(4, 5)))),
                  _raised(lambda: _dot(T.matrix("a", test_value=np.ones((2, 3), "float32")),
                                       T.matrix("b", test_value=np.ones((4, 5), "float32")))),
                  "ValueError in dot: a has shape (2, 3) and b has shape (4, 5): inner dimensions 3 "
                  "and 4 differ (axis 1 of a, axis 0 of b)")


def test_an_error_about_arguments_shows_the_users_line():
    error = _raised(lambda: T.transpose(T.matrix("m"), (0, 0)))
    assert isinstance(error, TestValueError)
    lines = str(error).splitlines()
    assert lines[0] == ("transpose: axes (0, 0) are not a permutation of the 2 axes of 'm' "
                        "(float32 (?, ?))")
    assert lines[2].strip() == "error = _raised(lambda: T.transpose(T.matrix(\"m\"), (0, 0)))"
    with pytest.raises(BuildTypeError, match="axis must be None, an int or a tuple of ints"):
        T.vector("v").sum(axis="0")


def test_format_node_error_by_verbosity():
    x = T.vector("x", test_value=np.ones(2, "float32"))  # format
    y = x * 2
    node = y.owner
    with sn.config.change_flags(exception_verbosity="low"):
        low = format_node_error(node, "headline", extra=["extra"]).splitlines()
    assert low == ["headline", '  File "' + __file__ + f'", line {_line_of("y = x * 2")}, in '
                   "test_format_node_error_by_verbosity", "    y = x * 2"]
    medium = format_node_error(node, "headline", [np.ones(2, "float64"), None], ["extra"]).splitlines()
    assert medium[:3] == low
    x_line = _line_of('x = T.vector("x", test_value=np.ones(2, "float32"))  # format')
    assert medium[3:] == [
        "Inputs of Elemwise{mul,no_inplace}:",  # names aligned; the value's dtype/shape if given
        f"  #0 {'x':<10}  {'float64 (2,)':<18} input created at test_errors.py:{x_line}: "
        f'x = T.vector("x", test_value=np.ones(2, "float32"))  # format',
        f"  #1 constant 2  {'int8 ()':<18} constant",  # 2 is an int8 constant (Theano's rule)
        "extra"]
    with sn.config.change_flags(exception_verbosity="high"):
        high = format_node_error(node, "headline").splitlines()
    assert len(high) > len(medium) - 1 and "Elemwise{mul,no_inplace}" in "\n".join(high[5:])


def test_a_node_symnb_built_says_so():
    x = T.vector("x")
    node = Add().make_node(x, x)  # not through op(...): no user's line recorded
    assert format_node_error(node, "headline").splitlines()[:2] == [
        "headline", "  (the node was built by symnb itself, not on a user's line)"]


def test_build_error_for_an_unbuilt_node():
    x = T.vector("x")
    error = build_error(ValueError("bad shapes"), op=Add(), inputs=[x, x])
    assert isinstance(error, TestValueError)
    assert isinstance(error.node, UnbuiltNode) and error.node.op == Add()
    lines = str(error).splitlines()
    assert lines[0] == "ValueError in Elemwise{add,no_inplace}: bad shapes"
    assert lines[3] == "Inputs of Elemwise{add,no_inplace}:"


def _line_of(text: str) -> int:
    with open(__file__) as source:
        return next(i for i, line in enumerate(source, 1) if line.strip() == text)


def test_where_built():
    x = T.vector("x")  # where
    y = x + 1
    x_line, y_line = _line_of('x = T.vector("x")  # where'), _line_of("y = x + 1")
    assert errors.where_built(x) == (f"input created at test_errors.py:{x_line}: "
                                     f'x = T.vector("x")  # where')
    assert errors.where_built(y) == f"built at test_errors.py:{y_line}: y = x + 1"
    assert errors.where_built(T.constant(1.0)) == "constant"
