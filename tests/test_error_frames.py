"""No symnb frame in front of the user's line, on every way an error reaches the user.

Each scenario below is a short user program that fails on the line marked ``# fails
here``: a graph built with a bad test value, bad arguments, run-time checks, NanGuardMode,
a scan iteration, DebugMode, a program read back from the disk cache, ``var.eval()``, an
update of a shared variable, the constructors of modes and widgets... The scenarios run as scripts print their tracebacks (a
fresh interpreter per way of running them, all scenarios in it: importing JAX takes
seconds), and the printed text is parsed: no frame of it may lie in the symnb package, and
the user's failing line must be shown. Printed as Python prints an uncaught exception
(``sys.excepthook``) and as IPython's ``InteractiveShell`` prints a cell's; the issue's own
program also runs as ``python -c``, where ``exception_verbosity='high'`` brings the
library frames back. A wrapper added in front of an entry point shows here as a frame.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import pkgutil
import re
import subprocess
import sys
import textwrap
import types

import pytest

import symnb
from symnb.core.graph.traceback_filter import api_boundary

SYMNB_DIR = os.path.dirname(os.path.abspath(symnb.__file__))
# The children import this checkout's symnb (the one under test).
_SOURCES = os.path.dirname(SYMNB_DIR)
NOTE = "symnb removed its own frames from this traceback"

SETUP = "import numpy as np\nimport symnb as sn\nimport symnb.tensor as T\n"

# name: (the program, the error type it raises, a piece of its message, an expression
# evaluated after it in the program's namespace, with its expected value: proof that the
# program took the path it is named for; None: nothing to check).
SCENARIOS: dict[str, tuple[str, str, str, tuple[str, object] | None]] = {
    "build_test_value": ("""
        x = T.vector("x", test_value=np.ones(2, "float32"))
        y = T.vector("y", test_value=np.ones(3, "float32"))
        z = x + y  # fails here
        """, "TestValueError", "x.shape(2,) and y.shape(3,) differ", None),
    "function_build": ("""
        x, y = T.vector("x"), T.vector("y")
        f = sn.function([x], x + y)  # fails here
        """, "MissingInputError", "the outputs depend on 'y'", None),
    "argument_dtype": ("""
        i = T.lscalar("i")
        f = sn.function([i], i * 2)
        f(1.5)  # fails here
        """, "TypeError", "input 'i' expects int64", None),
    "argument_ndim": ("""
        x = T.vector("x")
        f = sn.function([x], x * 2)
        f(np.ones((2, 2), "float32"))  # fails here
        """, "TypeError", "input 'x' expects 1 dimension", ("f._invoke.__name__", "written_out")),
    "argument_missing": ("""
        x, i = T.vector("x"), T.lscalar("i")
        f = sn.function([x, i], x[i])
        f(np.ones(3, "float32"))  # fails here
        """, "TypeError", "missing argument(s): i", None),
    "argument_missing_fast_path": ("""
        x, y = T.vector("x"), T.vector("y")
        f = sn.function([x, y], x - y)
        f(np.ones(3, "float32"))  # fails here
        """, "TypeError", "missing argument(s): y", ("f._invoke.__name__", "written_out")),
    "argument_unknown_keyword": ("""
        x, y = T.vector("x"), T.vector("y")
        f = sn.function([x, y], [x - y, x + y])
        f(np.ones(3, "float32"), z=np.ones(3, "float32"))  # fails here
        """, "TypeError", "no input named 'z'", ("f._invoke.__name__", "written_out")),
    "index_out_of_range": ("""
        x, i = T.vector("x"), T.lscalar("i")
        f = sn.function([x, i], x[i])
        f(np.ones(3, "float32"), 5)  # fails here
        """, "IndexOutOfBoundsError", "index 5 in i is out of bounds", ("f._invoke.__name__", "call")),
    "failed_assert": ("""
        x = T.vector("x")
        checked = T.Assert("x must be positive")(x, T.gt(x, 0))
        f = sn.function([x], checked * 2)
        f(np.array([1.0, -2.0], "float32"))  # fails here
        """, "AssertionFailedError", "x must be positive", None),
    "nanguard": ("""
        from symnb.compile import NanGuardMode
        x = T.vector("x")
        f = sn.function([x], T.log(x) * 2, mode=NanGuardMode())
        f(np.array([-1.0, 2.0], "float32"))  # fails here
        """, "NanGuardError", "NaN in output #0", None),
    "scan_iteration": ("""
        xs, w = T.matrix("xs"), T.vector("w")
        def step(x_t, acc):
            return acc + (x_t + w).sum()
        out, _ = sn.scan(step, sequences=[xs], outputs_info=[T.constant(np.float32(0))])
        f = sn.function([xs, w], out)
        f(np.ones((4, 3), "float32"), np.ones(2, "float32"))  # fails here
        """, "GraphRuntimeError", "at iteration 0 of Scan{step}", None),
    "debugmode": ("""
        from symnb.compile import DebugMode
        from symnb.core.graph.basic import Apply
        from symnb.core.graph.op import Op
        from symnb.lower_xla import lower
        class Triple(Op):
            def make_node(self, x):
                return Apply(self, [x], [x.type])
            def perform(self, node, inputs):
                return [inputs[0] * 3]
        lower.register(Triple)(lambda op, node: lambda x: x * 2)  # a wrong lowering
        x = T.vector("x")
        f = sn.function([x], Triple()(x) + 1, mode=DebugMode())
        f(np.ones(2, "float32"))  # fails here
        """, "DebugModeError", "lowering of Triple disagrees", None),
    "disk_cache_load": ("""
        from symnb.lower_xla.cache import program_cache
        from symnb.lower_xla.executable_cache import counts
        def build():
            v, k = T.vector("v"), T.lscalar("k")
            return sn.function([v, k], v[k] * 3)
        build()(np.ones(4, "float32"), 1)  # compiled, and kept on disk
        program_cache.clear()
        hits = counts.hits
        g = build()
        g(np.ones(4, "float32"), 9)  # fails here
        """, "IndexOutOfBoundsError", "index 9 in k is out of bounds", ("counts.hits - hits", 1)),
    "var_eval": ("""
        x, i = T.vector("x"), T.lscalar("i")
        x[i].eval({x: np.ones(3, "float32"), i: 5})  # fails here
        """, "IndexOutOfBoundsError", "index 5 in i is out of bounds", None),
    "shared_update": ("""
        w = sn.shared(np.ones(3, "float32"), name="w")
        i = T.lscalar("i")
        f = sn.function([i], w.sum(), updates=[(w, T.set_subtensor(w[i], 0))])
        f(7)  # fails here
        """, "IndexOutOfBoundsError", "index 7 in i is out of bounds", ("w.get_value().tolist()", [1, 1, 1])),
    "shared_set_value": ("""
        w = sn.shared(np.ones(3, "float32"), name="w")
        w.set_value(np.ones((2, 2), "float32"))  # fails here
        """, "ValueError", "expected 1 dimension(s)", None),
    "function_copy_swap": ("""
        x = T.vector("x")
        f = sn.function([x], x * 2)
        g = f.copy(swap={x: 3})  # fails here
        """, "TypeError", "the key 'x' (float32 (?,)) is not a shared variable", None),
    "grad_wrt": ("""
        x = T.vector("x")
        g = sn.grad((x ** 2).sum(), 3)  # fails here
        """, "TypeError", "wrt must be a variable or a list of variables, got int 3", None),
    "profiled_call": ("""
        x, i = T.vector("x"), T.lscalar("i")
        f = sn.function([x, i], x[i], profile=True)
        f(np.ones(3, "float32"), 5)  # fails here
        """, "IndexOutOfBoundsError", "index 5 in i is out of bounds", None),
    "ifelse": ("""
        c = T.scalar("c", test_value=np.float32(1))
        z = sn.ifelse(c, T.ones(2), T.ones(2))  # fails here
        """, "BuildTypeError", "must be a boolean", None),
    "clone": ("""
        x = T.vector("x", test_value=np.ones(3, "float32"))
        y = sn.clone(x * 2, replace={x: T.matrix("m")})  # fails here
        """, "TypeError", "cannot be replaced by 'm'", None),
    "printing": ("""
        sn.printing.debugprint(3)  # fails here
        """, "TypeError", "cannot print an object of type int", None),
    "mode": ("""
        mode = sn.Mode(linker="nope")  # fails here
        """, "ValueError", "unknown linker 'nope'", None),
    "widget": ("""
        from symnb.widgets import GraphExplorer
        GraphExplorer(3)  # fails here
        """, "TypeError", "cannot print an object of type int", None),
}

# Runs every scenario (argv: a JSON {name: path of its script}, then "plain" or "ipython")
# and prints a JSON {name: {"printed", "error", "probe"}}: the traceback as printed, the
# error's type, the probe expression's value.
_CHILD = textwrap.dedent("""
    import contextlib, io, json, sys
    paths, how = json.loads(sys.argv[1]), sys.argv[2]
    results = {}
    if how == "ipython":
        from IPython.core.interactiveshell import InteractiveShell
        shell = InteractiveShell.instance(colors="NoColor")
    for name, (path, probe) in paths.items():
        source = open(path).read()
        printed, error, namespace = io.StringIO(), None, {"__name__": "__main__"}
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            if how == "ipython":
                error = shell.run_cell(source, store_history=True).error_in_exec
                namespace = shell.user_ns
            else:
                try:
                    exec(compile(source, path, "exec"), namespace)
                except Exception as caught:  # printed as Python prints it, without this frame
                    error = caught.with_traceback(caught.__traceback__.tb_next)
                    sys.excepthook(type(error), error, error.__traceback__)
        value = None if probe is None else eval(probe, namespace)
        results[name] = {"printed": printed.getvalue(), "error": type(error).__name__, "probe": value}
    print(json.dumps(results))
""")

# A frame line as Python prints it ('  File "path", line 3, in f') and as IPython does
# ('File /path:3, in f(x)', 'Cell In[2], line 3').
_FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+)'
                    r'|^File (?P<ipath>\S+?):(?P<iline>\d+)'
                    r'|^Cell In\[\d+\], line (?P<cell>\d+)', re.MULTILINE)


def _frames(printed: str) -> list[tuple[str, int]]:
    """(file, line) of every frame line in ``printed``; a notebook cell is '<cell>'."""
    frames = []
    for match in _FRAME.finditer(printed):
        if match["cell"]:
            frames.append(("<cell>", int(match["cell"])))
        else:
            frames.append((match["path"] or match["ipath"], int(match["line"] or match["iline"])))
    return frames


def _library_frames(printed: str) -> list[tuple[str, int]]:
    return [(path, line) for path, line in _frames(printed)
            if os.path.abspath(path).startswith(SYMNB_DIR + os.sep)]


def _env(flags: str = "") -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([_SOURCES, os.environ.get("PYTHONPATH", "")]))
    env["SYMNB_FLAGS"] = flags
    return env


def _program(name: str) -> str:
    return SETUP + textwrap.dedent(SCENARIOS[name][0])


def _failing_line(name: str) -> tuple[int, str]:
    """The line number and text of the scenario's line marked '# fails here'."""
    for number, text in enumerate(_program(name).splitlines(), 1):
        if text.endswith("# fails here"):
            return number, text.split("  # fails here")[0].strip()
    raise AssertionError(f"scenario {name} marks no failing line")


@pytest.fixture(scope="module", params=["plain", "ipython"])
def printed(request, tmp_path_factory):
    """{scenario: what its run printed, ...}, for the scripts run by Python ('plain') and
    as IPython cells ('ipython'), in one fresh interpreter each."""
    folder = tmp_path_factory.mktemp(f"frames_{request.param}")
    paths = {}
    for name, (_, _, _, probe) in SCENARIOS.items():
        path = folder / f"{name}.py"
        path.write_text(_program(name))
        paths[name] = (str(path), None if probe is None else probe[0])
    flags = f"compile_cache_min_seconds=0,compile_cache_dir={folder / 'cache'}"  # disk_cache_load
    done = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(paths), request.param],
                          capture_output=True, text=True, env=_env(flags), timeout=300)
    assert done.returncode == 0, done.stderr
    return request.param, paths, json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_the_printed_traceback_has_no_symnb_frame_and_shows_the_users_line(printed, name):
    how, paths, results = printed
    result = results[name]
    _, error, message, probe = SCENARIOS[name]
    shown = result["printed"]
    assert result["error"] == error, shown
    assert message in shown and NOTE in shown
    if probe is not None:
        assert result["probe"] == probe[1], f"the scenario did not take its path: {probe[0]}"
    assert _library_frames(shown) == [], shown
    assert SYMNB_DIR not in shown  # nor anywhere else in the message
    # The traceback, down to the message, is the user's failing line and nothing else.
    number, text = _failing_line(name)
    user_file = "<cell>" if how == "ipython" else paths[name][0]
    message_line = re.search(rf"^(?:[\w.]+\.)?{error}: ", shown, re.MULTILINE)
    assert _frames(shown[:message_line.start()]) == [(user_file, number)], shown
    assert text in shown[:message_line.start()]


def _run_python_c(flags: str) -> str:
    program = ('import numpy as np; import symnb as sn; import symnb.tensor as T; '
               'x = T.vector("x"); i = T.lscalar("i"); f = sn.function([x, i], x[i]); '
               'f(np.ones(3, "float32"), 5)')
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          env=_env(flags), timeout=120)
    assert done.returncode == 1
    return done.stderr


def test_the_issues_program_run_by_python_c_starts_at_its_line():
    stderr = _run_python_c("")
    lines = stderr.splitlines()
    assert lines[:2] == ["Traceback (most recent call last):", '  File "<string>", line 1, in <module>']
    assert lines[2].startswith("symnb.core.graph.errors.IndexOutOfBoundsError: IndexError in Subtensor")
    assert _frames(stderr)[0] == ("<string>", 1) and _library_frames(stderr) == []
    assert NOTE in stderr


def test_exception_verbosity_high_keeps_the_library_frames():
    stderr = _run_python_c("exception_verbosity=high")
    library = [os.path.relpath(path, SYMNB_DIR) for path, _ in _library_frames(stderr)]
    assert os.path.join("compile", "function.py") in library, stderr
    assert _frames(stderr)[0] == ("<string>", 1)
    assert NOTE not in stderr


# The public namespaces (docs/design.md, docs/porting.md): each one's public functions are
# entry points, so an error they raise is filtered in the frame the user called.
PUBLIC_NAMESPACES = ["symnb", "symnb.gradient", "symnb.printing", "symnb.compile", "symnb.io",
                     "symnb.ifelse", "symnb.errors", "symnb.widgets"]
PUBLIC_PACKAGES = ["symnb.tensor", "symnb.scalar", "symnb.gof", "symnb.scan_module", "symnb.sandbox", "symnb.gpuarray"]


def _public_namespaces() -> list[str]:
    names = list(PUBLIC_NAMESPACES)
    for package in PUBLIC_PACKAGES:
        module = importlib.import_module(package)
        names.append(package)
        names += [found.name for found in pkgutil.walk_packages(module.__path__, package + ".")
                  if "._" not in found.name]
    return names


@pytest.mark.parametrize("namespace", _public_namespaces())
def test_every_public_function_of_a_public_namespace_is_an_entry_point(namespace):
    module = importlib.import_module(namespace)
    public = getattr(module, "__all__", None) or [name for name in vars(module) if not name.startswith("_")]
    boundary = api_boundary(lambda: None).__code__  # the code every entry point runs
    plain = [name for name in public
             if isinstance(value := getattr(module, name), types.FunctionType)
             and value.__module__.startswith("symnb") and value.__code__ is not boundary
             and not inspect.isgeneratorfunction(getattr(value, "__wrapped__", None))]  # context managers
    assert not plain, f"{namespace}: {plain} are not entry points (traceback_filter.entry_points)"
