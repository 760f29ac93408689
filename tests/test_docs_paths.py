"""Every repository path the docs name exists: ``docs/*.md`` and the README name files and
folders (``lower_xla/cache.py``, ``tests/browser/``, ``bench/bench_grad.py``) in backquotes
and links; a file moved or renamed leaves such a name pointing nowhere."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
# Where a name relative to a package folder is looked for: docs/architecture.md names
# modules from the package's folders (`lower_xla/cache.py`, `compile/function.py`).
PACKAGE = ROOT / "src" / "symnb"
BASES = [ROOT, ROOT / "src", PACKAGE, PACKAGE / "core", PACKAGE / "core" / "graph",
         PACKAGE / "core" / "tensor", PACKAGE / "tensor", PACKAGE / "compile",
         PACKAGE / "lower_xla", PACKAGE / "printing"]
# Names that are not this repository's: docs/porting.md names the files of Keras's and
# Lasagne's own source trees it patches (`keras/utils/io_utils.py`, Keras's test folder
# `tests/keras/`, the backend file `symnb_backend.py` it writes; PyMC3's `pymc3/`) and of Theano's test files
# it runs (`theano/tensor/tests/test_basic.py`, renamed into `symnb_tests/`), and docs/devices.md the
# `executables/` folder inside the user's cache folder; the README the folder the docs
# build writes.
OTHER_TREES = ("keras/", "lasagne/", "tests/keras/", "utils/", "theano/", "symnb_tests/", "pymc3/")
NOT_IN_THE_REPOSITORY = {"io_utils.py", "symnb_backend.py", "executables/", "docs/_build/html/"}
# A path: folders and a file with a source or document suffix, or a folder ending in "/".
PATH = re.compile(r"^[A-Za-z0-9_.][\w./-]*(?:\.(?:py|md|js|css|cfg|ipynb|toml|sh)|/)$")


# In a fenced block (docs/architecture.md's tree of the package): folder/file words.
TREE_PATH = re.compile(r"(?<![\w/.:])((?:\w+/)+(?:\w+\.(?:py|js|css))?)(?![\w/])")


def named_paths(text: str) -> set[str]:
    """The repository paths a page names: inline code, link targets and the folder/file
    words of fenced blocks that look like one."""
    fences = re.findall(r"^```.*?^```", text, flags=re.M | re.S)
    prose = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    code = re.findall(r"`([^`\n]+)`", prose)
    links = re.findall(r"\]\(([^)\s#]+)", prose)
    in_fences = [name for fence in fences for name in TREE_PATH.findall(fence)]
    return {name for name in code + links + in_fences if PATH.match(name) and "://" not in name
            and ("/" in name or name.endswith(".py"))}


def exists(name: str, page: Path) -> bool:
    if name.startswith(OTHER_TREES) or name in NOT_IN_THE_REPOSITORY:
        return True
    name = name.lstrip("./") if name.startswith("./") else name
    bases = [page.parent, *BASES]
    if any((base / name).exists() for base in bases):
        return True
    # A bare file name (`static.py`, `test_differential.py`) is found anywhere in the tree.
    return "/" not in name and any(path for folder in ("src", "tests", "bench", "docs")
                                   for path in (ROOT / folder).rglob(name))


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_path_a_page_names_exists(page):
    missing = sorted(name for name in named_paths(page.read_text()) if not exists(name, page))
    assert missing == [], f"{page.relative_to(ROOT)} names paths not in the tree: {missing}"


def test_the_path_finder_sees_names_and_links():
    found = named_paths("see `lower_xla/cache.py` and [x](docs/design.md), not `x.shape` "
                        "nor `https://a.b/c.py` nor `f(x)`\n```\ncore/graph.py  x = a / b\n```\n")
    assert found == {"lower_xla/cache.py", "docs/design.md", "core/graph.py"}
