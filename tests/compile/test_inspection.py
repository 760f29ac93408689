"""Looking into compiled functions: lowered_text, profiles, exception_verbosity."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T


def _model():
    x = T.matrix("x", test_value=np.ones((4, 3), "float32"))
    w = sn.shared(np.full((3, 2), 0.5, "float32"), name="w")
    hidden = T.tanh(T.dot(x, w))
    total = hidden.sum()
    return x, total


@pytest.mark.parametrize("stage,marker", [("jaxpr", "dot_general"), ("stablehlo", "stablehlo.dot"),
                                          ("hlo", "HloModule")])
def test_lowered_text_tags_operations_with_the_users_lines(stage, marker):
    x, total = _model()
    f = sn.function([x], total)
    text = f.lowered_text(stage)
    assert marker in text
    assert "Dot(test_inspection.py:" in text  # the node's scope: op and the user's line
    assert "Sum(test_inspection.py:" in text


def test_optimized_hlo_opens_with_the_program_not_a_list_of_python_files():
    x, total = _model()
    text = sn.function([x], total).lowered_text("hlo")
    lines = text.splitlines()
    assert lines[0].startswith("HloModule ")
    assert not any(line.strip() in ("FileNames", "StackFrames", "FileLocations", "FunctionNames")
                   for line in lines)
    assert ".py\"" not in text and "stack_frame_id" not in text and "\n\n\n" not in text
    # The first thing after the module line is a computation.
    assert next(line for line in lines[1:] if line.strip()).startswith(("%", "ENTRY"))
    assert "ENTRY %main" in text and "Dot(test_inspection.py:" in text


def test_lowered_text_with_example_arguments_and_bad_stage():
    x, total = _model()
    f = sn.function([x], total)
    assert "f32[7,3]" in f.lowered_text("jaxpr", np.ones((7, 3), "float32"))
    with pytest.raises(ValueError, match="stage must be"):
        f.lowered_text("llvm")


def test_profile_lists_every_node_by_line_costliest_first():
    # Structural: which node is costlier depends on the machine's load, so the test
    # checks the table's shape (one row per node, by the user's line, costliest first,
    # shares summing to 100%), not the order of two timings.
    x = T.matrix("x")
    big = T.dot(x, x.T)
    small = x.sum()
    f = sn.function([x], [big, small], profile=True, name="demo")
    value = np.random.default_rng(0).normal(size=(30, 30)).astype("float32")
    for _ in range(3):
        f(value)
    # The first call compiled the program: counted apart, not as a call.
    assert f.profile.calls == 2 and len(f.profile.compiles) == 1 and f.profile.call_mean > 0
    seconds = f.profile.node_seconds(repeats=1)
    assert sorted(seconds) == list(range(len(f.nodes))) and all(s >= 0 for s in seconds.values())
    text = f.profile.summary(file="str")
    assert "Function profile: demo" in text and "3 calls: 2 timed, 1 compiled" in text
    assert "1 compile(s)" in text
    apply = text.split("\nApply\n")[1]
    # A node's row: its share (or "-": all its work is in a fused operation's row), its
    # index and its line; a fused operation's members are listed under its own row.
    rows = [line for line in apply.splitlines() if "test_inspection.py" in line
            and not line.lstrip().startswith("member #")]
    assert len(rows) == len(f.nodes) == 3  # x.T, the dot and the sum
    assert sum("big = T.dot(x, x.T)" in row for row in rows) == 2
    assert sum("small = x.sum()" in row for row in rows) == 1
    all_rows = [line for line in apply.splitlines() if line[:12].strip().endswith("%")]
    shares = [float(row.split("%")[0]) for row in all_rows]
    running = [float(row.split("%")[1]) for row in all_rows]
    assert shares == sorted(shares, reverse=True)
    assert running[-1] == pytest.approx(100.0, abs=0.5) and running[0] == shares[0]
    assert sn.function([x], small).profile is None


def test_profile_flag_profiles_every_function():
    with sn.config.change_flags(profile=True):
        x = T.vector("x")
        # A graph no other test compiles: an equal graph compiled earlier in the process
        # would come from the program cache, and its first call would compile nothing.
        f = sn.function([x], x * np.float32(2.71828))
    f(np.ones(2, "float32"))
    f(np.ones(2, "float32"))
    assert f.profile.calls == 1 and len(f.profile.compiles) == 1


def _shape_error(verbosity):
    with sn.config.change_flags(exception_verbosity=verbosity):
        x = T.vector("x")
        y = T.vector("y")
        doubled = x + x
        total = doubled + y
        f = sn.function([x, y], total)
        with pytest.raises(sn.GraphRuntimeError) as info:
            f(np.ones(2, "float32"), np.ones(3, "float32"))
    return str(info.value)


def test_exception_verbosity_levels():
    low, medium, high = (_shape_error(v) for v in ("low", "medium", "high"))
    for message in (low, medium, high):
        assert "total = doubled + y" in message and "(2,)" in message and "(3,)" in message
    assert len(low.splitlines()) == 3 and "Inputs of" not in low
    assert "Inputs of" in medium and "doubled = x + x" in medium and "Debugprint" not in medium
    assert "Debugprint of the apply node" in high and "Storage map footprint" in high
    assert all(len(m.splitlines()) < 60 for m in (low, medium, high))
