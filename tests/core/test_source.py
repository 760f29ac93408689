"""``symnb.core.graph.source``: where user code built a node (``capture_site``, ``Site``)."""

import os

import symnb.tensor as T
from symnb.core.graph.source import PACKAGE_DIR, Site, capture_site


def _line_of(text: str) -> int:
    with open(__file__) as source:
        return next(i for i, line in enumerate(source, 1) if line.strip() == text)


def test_the_site_is_the_first_frame_outside_symnb():
    y = T.vector("v") * 2  # built here
    frame = y.owner.site.frame
    assert (frame.filename, frame.lineno) == (__file__, _line_of('y = T.vector("v") * 2  # built here'))
    assert frame.function == "test_the_site_is_the_first_frame_outside_symnb"
    assert frame.line == 'y = T.vector("v") * 2  # built here'


def test_describe():
    x = T.vector("x")  # described
    line = _line_of('x = T.vector("x")  # described')
    assert x.site.describe() == f'built at test_source.py:{line}: x = T.vector("x")  # described'
    assert x.site.describe("created at").startswith(f"created at test_source.py:{line}: ")
    assert Site().describe() == ""


def test_expression_and_assigned_name():
    a = T.vector("a")
    z = (a - a.mean(0)) / 2
    mean = z.owner.inputs[0].owner.inputs[1]
    assert mean.site.expression() == "a.mean(0)" and mean.site.assigned_name() is None
    assert z.owner.site.assigned_name() == "z"


def test_limit_keeps_that_many_user_frames():
    def inner():
        return capture_site(2)

    site = inner()
    assert [f.function for f in site.frames] == ["inner", "test_limit_keeps_that_many_user_frames"]
    assert capture_site(0) == Site()


def _run_as(module_name: str) -> Site:
    """A site captured by code whose file is in the symnb package, run as ``module_name``
    (code objects are told apart by content: each run's differs)."""
    source = f"site = capture_site(1)\nname = {module_name!r}\n"
    code = compile(source, os.path.join(PACKAGE_DIR, "a_script.py"), "exec")
    namespace = {"__name__": module_name, "capture_site": capture_site}
    exec(code, namespace)
    return namespace["site"]


def test_a_script_run_as_the_main_program_is_user_code_wherever_it_lives():
    # ``python -m symnb.tour`` runs the tour as __main__: its lines are the user's.
    assert _run_as("__main__").frame.filename == os.path.join(PACKAGE_DIR, "a_script.py")
    # Imported as part of the package, the same file is symnb's: its caller's line shows.
    assert _run_as("symnb.a_script").frame.function == "_run_as"


def test_nodes_built_at_one_instruction_share_a_site_only_within_one_call_and_scope():
    import symnb as sn

    x = T.vector("x")

    def layer(v):
        return [T.tanh(v) for _ in range(3)]  # one instruction, three nodes

    first, second = layer(x), layer(x)
    assert first[0].owner.site is first[1].owner.site is first[2].owner.site
    assert second[0].owner.site is not first[0].owner.site  # another call of layer
    assert second[0].owner.site.scoping.calls != first[0].owner.site.scoping.calls
    assert second[0].owner.site.frame == first[0].owner.site.frame
    with sn.name_scope("block"):
        scoped = layer(x)
    assert [e.name for e in scoped[0].owner.site.scoping.scopes] == ["block"]
    assert first[0].owner.site.scoping.scopes == ()


def _layer(inp, w):
    return T.tanh(T.dot(inp, w))  # the helper's line


def _block(inp, w):
    return _layer(inp, w)  # a helper returning a helper's value


def test_a_value_a_helper_returns_is_named_as_its_caller_assigns_it():
    """``h1 = layer(x, W1)``: the value ``layer`` returns is ``h1`` in every message (the
    caller's assignment wins), and it was still built on the helper's line."""
    import numpy as np
    import pytest

    import symnb as sn
    from symnb.core.graph.errors import label

    x = T.matrix("x", test_value=np.ones((4, 3), "float32"))
    w = sn.shared(np.ones((3, 2), "float32"), name="w")
    h1 = _layer(x, w)
    h2 = _block(x, w)
    doubled = _layer(x, w) * 2  # the call is a part of the right-hand side
    assert (label(h1), label(h2)) == ("h1", "h2")
    assert label(doubled.owner.inputs[0]) == "T.tanh(T.dot(inp, w))"
    assert label(h1.owner.inputs[0]) == "T.dot(inp, w)"  # a part of what the helper returns
    helper_line = _line_of("return T.tanh(T.dot(inp, w))  # the helper's line")
    assert h1.owner.site.frame.lineno == h2.owner.site.frame.lineno == helper_line
    with pytest.raises(ValueError) as info:
        T.dot(h1, w)
    message = str(info.value)
    assert message.startswith("ValueError in dot: h1 has shape (4, 2) and w has shape (3, 2)")
    assert f"#0 h1  float32 (4, 2)     built at test_source.py:{helper_line}: " in message


def test_a_step_function_called_by_symnb_is_not_named_after_symnbs_own_lines():
    import numpy as np

    import symnb as sn
    from symnb.core.graph.errors import label

    def double(v):
        return v * 2  # returned whole to symnb's scan, which assigns it

    xs = T.vector("xs", test_value=np.arange(3, dtype="float32"))
    out = sn.scan(double, sequences=[xs])[0]
    step = out.owner.op.inner.outputs[0]
    assert step.owner.site.frame.line.startswith("return v * 2")
    assert step.owner.site.assigned_name() is None and label(step) == "v * 2"


def test_the_frames_of_finished_calls_are_not_kept_for_ever():
    """A notebook defines a cell's functions anew at each run (a new code object each
    time). The last frame of each function that built nodes is kept (to tell its calls
    apart), and with it its local variables: without forgetting the finished ones, each
    run of the cell kept what its functions held (graphs, compiled functions) for the
    rest of the session."""
    import gc
    import weakref

    class Held:  # stands for what a cell's function holds: a graph, a compiled function
        pass

    held = []
    cell = ("def build():\n"
            "    large = Held()\n"
            "    held.append(weakref.ref(large))\n"
            "    return T.vector('x') * 2\n"
            "y = build()\n")
    for run in range(300):
        exec(compile(cell, f"<cell {run}>", "exec"), {"Held": Held, "held": held, "weakref": weakref, "T": T})
    gc.collect()
    alive = sum(ref() is not None for ref in held)
    assert alive <= 128, f"{alive} of 300 runs still hold their function's locals"
