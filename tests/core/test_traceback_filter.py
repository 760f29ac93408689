"""Errors show the user's line first: symnb's frames are removed from tracebacks (in
scripts and in IPython), all of them kept under exception_verbosity='high'."""

import os
import subprocess
import sys
import textwrap
import traceback

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T

SYMNB_DIR = os.path.dirname(sn.__file__)

SCRIPT = textwrap.dedent("""\
    import numpy as np
    import symnb.tensor as T
    x = T.vector("x", test_value=np.ones(2, "float32"))
    y = T.vector("y", test_value=np.ones(3, "float32"))
    z = x + y
    """)


def frames(err: BaseException) -> list[str]:
    return [frame.filename for frame in traceback.extract_tb(err.__traceback__)]


def run_script(tmp_path, flags=""):
    path = tmp_path / "shape_bug.py"
    path.write_text(SCRIPT)
    env = {**os.environ, "SYMNB_FLAGS": flags}
    env["PYTHONPATH"] = os.path.dirname(SYMNB_DIR) + os.pathsep + env.get("PYTHONPATH", "")
    result = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env)
    assert result.returncode == 1
    return result.stderr


def test_a_script_shows_its_own_line_then_the_message(tmp_path):
    stderr = run_script(tmp_path)
    lines = stderr.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[1].endswith('shape_bug.py", line 5, in <module>') and lines[2].strip() == "z = x + y"
    assert lines[4].startswith("symnb.core.graph.errors.TestValueError: DimensionMismatch")
    assert SYMNB_DIR not in stderr
    assert "symnb removed its own frames" in stderr


def test_exception_verbosity_high_keeps_every_frame(tmp_path):
    stderr = run_script(tmp_path, "exception_verbosity=high")
    assert os.path.join(SYMNB_DIR, "core", "graph", "test_value.py") in stderr
    assert "symnb removed its own frames" not in stderr


@pytest.mark.parametrize("build", [
    lambda x, w: T.dot(x, w),
    lambda x, w: x.dot(w),
    lambda x, w: x @ w,
    lambda x, w: T.concatenate([x, w]),
    lambda x, w: sn.grad(x, w),
    lambda x, w: x.sum(axis=3),
])
def test_each_entry_point_leaves_only_user_frames(build):
    x = T.vector("x", test_value=np.ones(2, "float32"))
    w = T.matrix("w", test_value=np.ones((4, 5), "float32"))
    with pytest.raises(Exception) as info:
        build(x, w)
    assert frames(info.value) == [__file__, __file__]  # this test, then the lambda


def test_a_compiled_function_call_error_starts_at_the_call():
    x = T.vector("x")
    f = sn.function([x], x * 2)
    with pytest.raises(TypeError, match="input 'x' expects 1 dimension") as info:
        f(np.ones((2, 2), "float32"))
    assert frames(info.value) == [__file__]


def test_an_error_in_a_scan_step_names_the_steps_line():
    x = T.vector("x", test_value=np.ones(3, "float32"))

    def step(a, acc):
        return acc + T.vector("v", test_value=np.ones(5, "float32"))  # fails in the step

    with pytest.raises(sn.TestValueError) as info:
        sn.scan(step, sequences=[x], outputs_info=[T.zeros(2, "float32")])
    assert frames(info.value) == [__file__]
    assert ", in step\n" in str(info.value) and "while tracing the step function" in str(info.value)


def test_user_callbacks_between_symnb_frames_are_kept():
    from symnb.core.graph.traceback_filter import api_boundary

    def user_callback():
        raise KeyError("from the user's code")

    library = api_boundary(lambda: user_callback())  # stands for symnb calling user code
    with pytest.raises(KeyError) as info:
        library()
    names = [frame.name for frame in traceback.extract_tb(info.value.__traceback__)]
    assert names == ["test_user_callbacks_between_symnb_frames_are_kept", "<lambda>", "user_callback"]


def test_ipython_shows_the_cell_line_without_symnb_frames(capsys):
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    try:
        result = shell.run_cell("import numpy as np\nimport symnb.tensor as T\n"
                                "x = T.vector('x', test_value=np.ones(2, 'float32'))\n"
                                "y = T.vector('y', test_value=np.ones(3, 'float32'))\nz = x + y",
                                store_history=True)
    finally:
        InteractiveShell.clear_instance()
    assert type(result.error_in_exec).__name__ == "TestValueError"
    shown = capsys.readouterr().out
    assert "----> 5 z = x + y" in shown.replace("\x1b[0;32m", "").replace("\x1b[0m", "") or "z = x + y" in shown
    assert SYMNB_DIR not in shown and "symnb/core" not in shown
