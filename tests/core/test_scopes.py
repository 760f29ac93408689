"""What each node records for the pictures' groups: which call of each function built it
and the scopes active then (core/source.py Scoping, core/scopes.py)."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph import source


def double(v):
    return v * 2


def test_each_call_gets_its_own_token_and_nodes_of_one_call_share_it():
    x = T.vector("x", test_value=np.ones(3, "float32"))
    first, second = double(x), double(x)
    a, b = first.owner.site.scoping, second.owner.site.scoping
    assert a.calls[0] != b.calls[0]  # the frame of double(), one token per call
    assert a.calls[1:] == b.calls[1:]  # the same test function called both
    def two(v):
        return v + 1, v - 1
    p, q = two(x)
    assert p.owner.site.scoping.calls == q.owner.site.scoping.calls
    assert [c.co_name for c in first.owner.site.codes][:2] == ["double", "test_each_call_gets_its_own_token_and_nodes_of_one_call_share_it"]


def test_scopes_are_recorded_outermost_first_and_left_after_an_error():
    x = T.vector("x", test_value=np.ones(3, "float32"))
    with sn.name_scope("outer"):
        with sn.name_scope("inner"):
            y = x + 1
    assert [(e.kind, e.name) for e in y.owner.site.scoping.scopes] == [("scope", "outer"), ("scope", "inner")]
    with pytest.raises(RuntimeError):
        with sn.name_scope("failing"):
            raise RuntimeError("boom")
    assert source._scopes == ()
    assert (x * 3).owner.site.scoping.scopes == ()


def test_gradient_nodes_record_the_grad_call_and_the_forward_node():
    from symnb.core.graph import toposort

    x = T.vector("x", test_value=np.ones(3, "float32"))
    y = T.tanh(x)
    loss = y.sum()
    g = sn.grad(loss, x)
    forward = {id(n) for n in toposort([loss])}
    built = [n for n in toposort([g]) if id(n) not in forward]
    assert built and all(n.site.scoping.scopes[0].kind == "grad" for n in built)
    assert built[0].site.scoping.scopes[0].name == "\u2202loss/\u2202x"
    of_tanh = [n for n in built if n.site.scoping.scopes[-1].kind == "grad_of"
               and n.site.scoping.scopes[-1].site is y.owner.site]
    assert of_tanh and all(n.site.scoping.scopes[-1].name == "tanh" for n in of_tanh)
