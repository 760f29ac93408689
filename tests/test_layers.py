"""The layers import only downward (docs/architecture.md): ``symnb/core`` imports no JAX,
IPython nor any symnb layer above it; ``symnb/lower_xla`` nothing above core; nothing
below ``symnb/compile`` imports it. Read from the source (every import statement, those
inside functions too), so a late import cannot hide a layer crossing."""

import ast
from pathlib import Path

import pytest

import symnb

PACKAGE = Path(symnb.__file__).parent

#: Per folder: the top-level modules and symnb subpackages its files must not import.
FORBIDDEN = {
    "core": ["jax", "jaxlib", "IPython", "ipywidgets", "symnb.lower_xla", "symnb.compile",
             "symnb.printing", "symnb.magics", "symnb.widgets"],
    "lower_xla": ["IPython", "ipywidgets", "symnb.compile", "symnb.printing", "symnb.magics",
                  "symnb.widgets"],
}

#: Lazy imports of a layer above made on purpose: ``var.eval()`` compiles a function.
ALLOWED = {("core/tensor/variable.py", "symnb.compile.function")}


def imported_modules(path: Path) -> list[str]:
    """Every module ``path`` imports, absolute names."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names


def crossings(folder: str) -> list[str]:
    found = []
    for path in sorted((PACKAGE / folder).rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        for name in imported_modules(path):
            if (relative, name) in ALLOWED:
                continue
            if any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN[folder]):
                found.append(f"{relative} imports {name}")
    return found


@pytest.mark.parametrize("folder", sorted(FORBIDDEN))
def test_layers_import_only_downward(folder):
    assert crossings(folder) == []


def test_the_check_sees_a_crossing(tmp_path, monkeypatch):
    (tmp_path / "lower_xla").mkdir()
    (tmp_path / "lower_xla" / "bad.py").write_text(
        "def f():\n    from symnb.compile.mode import Mode\n    import IPython\n")
    monkeypatch.setattr(__import__(__name__, fromlist=["PACKAGE"]), "PACKAGE", tmp_path)
    assert crossings("lower_xla") == ["lower_xla/bad.py imports symnb.compile.mode",
                                      "lower_xla/bad.py imports IPython"]
