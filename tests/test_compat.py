"""``symnb.compat``: Theano's Python 2/3 names, as they were on Python 3."""

import collections
import copy
import pickle

import pytest

from symnb import compat


def test_the_python3_spellings_are_the_builtins():
    assert compat.PY3 is True
    assert list(compat.izip([1, 2], "ab")) == [(1, "a"), (2, "b")]
    assert list(compat.imap(abs, [-1, 2])) == [1, 2]
    assert list(compat.ifilter(None, [0, 3, 0])) == [3]
    assert compat.OrderedDict is collections.OrderedDict
    assert compat.operator_div(7, 2) == 3.5
    assert compat.BytesIO(compat.b("ab\xe9")).read() == b"ab\xe9"
    assert compat.next(iter([5])) == 5


@pytest.mark.parametrize("x, y, expected", [(1, 2, -1), (2, 2, 0), (3, 2, 1), ("b", "a", 1)])
def test_cmp_is_python2s(x, y, expected):
    assert compat.cmp(x, y) == expected


def test_exc_message_unpacks_reraised_exceptions():
    assert compat.exc_message(ValueError(KeyError(TypeError("inner")))) == "inner"
    assert compat.exc_message(ValueError("plain", 2)) == "plain"


def test_decoders_and_unbound_function():
    assert compat.decode(b"x") == "x"
    assert list(compat.decode_iter([b"a", b"b"])) == ["a", "b"]
    assert compat.decode_with("é".encode("utf-16"), "utf-16") == "é"

    class A:
        def f(self):
            return 1

    assert compat.get_unbound_function(A().f) is A.f
    assert compat.get_unbound_function(len) is len


def test_default_ordered_dict_keeps_order_copies_and_pickles():
    d = compat.DefaultOrderedDict(list)
    d["b"].append(1)
    d["a"].append(2)
    assert list(d.items()) == [("b", [1]), ("a", [2])]
    for other in (copy.copy(d), d.copy(), pickle.loads(pickle.dumps(d))):
        assert list(other.items()) == list(d.items()) and other.default_factory is list
    with pytest.raises(KeyError):
        compat.DefaultOrderedDict()["missing"]
    with pytest.raises(TypeError, match="callable"):
        compat.DefaultOrderedDict(3)
