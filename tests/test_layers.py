"""The layers import only downward (docs/architecture.md, docs/design.md), and no module
imports itself back through others.

    core/graph (the IR)  <  core/tensor (the op library)  <  the rest of core (gradients,
    loops, branches, rewrites, shared variables)  <  lower_xla  <  compile  <  printing
    <  widgets, magics (side by side)

Read from the source: every import statement, those inside functions and under
``if TYPE_CHECKING:`` too, so a late import cannot hide a crossing or a circle.
"""

import ast
from pathlib import Path

import pytest

import symnb

PACKAGE = Path(symnb.__file__).parent

_ABOVE_CORE = ["symnb.lower_xla", "symnb.compile", "symnb.printing", "symnb.magics", "symnb.widgets"]
_FRONT_ENDS = ["IPython", "ipywidgets", "anywidget"]

#: Per folder: the top-level modules and symnb modules its files must never import.
FORBIDDEN = {
    # The IR: nothing of the op library nor of what is built on it.
    "core/graph": ["jax", "jaxlib", *_FRONT_ENDS, *_ABOVE_CORE, "symnb.core.tensor",
                   "symnb.core.scan", "symnb.core.rewriting", "symnb.core.gradient",
                   "symnb.core.jacobian", "symnb.core.rop", "symnb.core.ifelse",
                   "symnb.core.ifelse_grad", "symnb.core.tensor.shared", "symnb.core.updates",
                   "symnb.core.absent"],
    # The op library: nothing built on it.
    "core/tensor": ["jax", "jaxlib", *_FRONT_ENDS, *_ABOVE_CORE, "symnb.core.scan",
                    "symnb.core.rewriting", "symnb.core.gradient", "symnb.core.jacobian",
                    "symnb.core.rop", "symnb.core.ifelse", "symnb.core.ifelse_grad"],
    "core": ["jax", "jaxlib", *_FRONT_ENDS, *_ABOVE_CORE],
    "lower_xla": [*_FRONT_ENDS, "symnb.compile", "symnb.printing", "symnb.magics", "symnb.widgets"],
    "compile": [*_FRONT_ENDS, "symnb.printing", "symnb.magics", "symnb.widgets"],
    "printing": [*_FRONT_ENDS, "symnb.magics", "symnb.widgets"],
    "widgets": ["symnb.magics"],
}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, name: str, modules: set[str]) -> list[str]:
    """Every module ``path`` (module ``name``) imports, absolute names: for ``from M
    import N`` the submodule ``M.N`` where it is one of ``modules``, else ``M``."""
    found = []
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            for alias in node.names:
                found.append(f"{module}.{alias.name}" if f"{module}.{alias.name}" in modules else module)
    return found


def import_graph(root: Path) -> dict[str, list[str]]:
    """``{module: [the package's modules it imports]}`` for every module under ``root``."""
    paths = {module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    graph = {}
    for name, path in paths.items():
        graph[name] = sorted({m for m in imports_of(path, name, set(paths)) if m in paths and m != name})
    return graph


def crossings(folder: str, root: Path | None = None) -> list[str]:
    root = root or PACKAGE
    found = []
    for path in sorted((root / folder).rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        name = module_name(path, root)
        for imported in imports_of(path, name, set()):
            if any(imported == bad or imported.startswith(bad + ".") for bad in FORBIDDEN[folder]):
                found.append(f"{relative} imports {imported}")
    return found


def circles(graph: dict[str, list[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(graph[succ])))
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(frozenset(component))
    return found


def describe(circle: frozenset[str], graph: dict[str, list[str]]) -> str:
    ties = [f"{a} -> {b}" for a in sorted(circle) for b in graph[a] if b in circle]
    return f"{len(circle)} modules: " + "; ".join(ties)


@pytest.mark.parametrize("folder", list(FORBIDDEN))
def test_layers_import_only_downward(folder):
    assert crossings(folder) == []


def test_the_import_graph_has_no_circle():
    graph = import_graph(PACKAGE)
    assert [describe(circle, graph) for circle in circles(graph)] == []


def _write(root: Path, files: dict[str, str]) -> Path:
    package = root / "symnb"
    for relative, text in files.items():
        (package / relative).parent.mkdir(parents=True, exist_ok=True)
        (package / relative).write_text(text)
    return package


def test_the_check_sees_a_crossing(tmp_path):
    package = _write(tmp_path, {
        "lower_xla/bad.py": "def f():\n    from symnb.compile.mode import Mode\n    import IPython\n",
        "core/graph/op.py": "if True:\n    from symnb.core.tensor.variable import TensorVariable\n",
        "widgets/editor.py": "from ..magics import report\n",
    })
    assert crossings("lower_xla", package) == ["lower_xla/bad.py imports symnb.compile.mode",
                                                "lower_xla/bad.py imports IPython"]
    assert crossings("core/graph", package) == [
        "core/graph/op.py imports symnb.core.tensor.variable"]
    assert crossings("widgets", package) == ["widgets/editor.py imports symnb.magics"]


def test_the_check_sees_a_circle(tmp_path):
    package = _write(tmp_path, {
        "__init__.py": "",
        "core/__init__.py": "",
        "core/a.py": "from symnb.core import b\n",
        "core/b.py": "def late():\n    from symnb.core.c import thing\n",
        "core/c.py": "from symnb.core.a import x\n",
        "core/d.py": "from symnb.core.a import x\n",
    })
    graph = import_graph(package)
    assert circles(graph) == [frozenset({"symnb.core.a", "symnb.core.b", "symnb.core.c"})]
    assert describe(circles(graph)[0], graph) == (
        "3 modules: symnb.core.a -> symnb.core.b; symnb.core.b -> symnb.core.c; "
        "symnb.core.c -> symnb.core.a")
