"""min_informative_str: the seeds' lettered tree, stopping at names, with back-references."""

import pytest

import symnb.tensor as T
from symnb.printing import min_informative_str
from symnb.printing.min_informative_str import TagGenerator
from tests.printing import MinMax


def test_seed_001_named_variable_is_not_expanded():
    x = T.scalar()
    y = T.scalar()
    z = x + y
    z.name = "z"
    a = 2. * z
    assert min_informative_str(a) == (
        "A. Elemwise{mul,no_inplace}\n"
        " B. TensorConstant{2.0}\n"
        " C. z")


def test_back_reference_to_a_variable_seen_before():
    two = T.constant(2.0)
    x = T.scalar("x")
    g = (two * x) * two
    assert min_informative_str(g) == (
        "A. Elemwise{mul,no_inplace}\n"
        " B. Elemwise{mul,no_inplace}\n"
        "  C. TensorConstant{2.0}\n"
        "  D. x\n"
        " <C>")


def test_unnamed_inputs_nested_and_multi_output():
    x = T.vector()
    low, high = MinMax()(x)
    assert min_informative_str(T.exp(high - low)) == (
        "A. Elemwise{exp,no_inplace}\n"
        " B. Elemwise{sub,no_inplace}\n"
        "  C. MinMax.1\n"
        "   D. <TensorType(float32, shape=(?,))>\n"
        "  E. MinMax.0\n"
        "   <D>")


def test_indent_level_and_shared_tags_between_calls():
    x = T.scalar("x")
    y = x * 3.
    seen, tags = {}, TagGenerator()
    first = min_informative_str(y, indent_level=2, _prev_obs=seen, _tag_generator=tags)
    second = min_informative_str(y + x, _prev_obs=seen, _tag_generator=tags)
    assert first == "  A. Elemwise{mul,no_inplace}\n   B. x\n   C. TensorConstant{3.0}"
    assert second == "D. Elemwise{add,no_inplace}\n <A>\n <B>"


def test_top_level_named_variable():
    x = T.scalar("x")
    y = x + 1.
    y.name = "y"
    assert min_informative_str(y) == "A. y"


def test_tags_after_z():
    tags = TagGenerator()
    assert [tags.get_tag() for _ in range(28)][-3:] == ["Z", "BA", "BB"]


def test_rejects_non_variables():
    with pytest.raises(TypeError, match="expects a Variable"):
        min_informative_str("x")


def test_deep_graph_needs_no_recursion():
    y = T.scalar("x")
    for _ in range(3000):
        y = y - 1.5
    lines = min_informative_str(y).splitlines()
    assert lines[0] == "A. Elemwise{sub,no_inplace}"
    assert sum(line.startswith(" " * 3000) and line.endswith(". x") for line in lines) == 1
