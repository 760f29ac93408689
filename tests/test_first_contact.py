"""A clone's root folder does not shadow the installed package.

`git clone .../symnb` makes a folder named `symnb`; Python started in its parent folder
(a notebook server or kernel opened there) finds that folder first. With the package in
the clone's root (a flat layout) and an editable install, that folder becomes an empty
namespace package named `symnb` and nothing works; with a `src/` layout the install's
path wins (pyproject.toml: `where = ["src"]`).
"""

import os
import subprocess
import sys
from pathlib import Path

import symnb

CLONE = Path(symnb.__file__).resolve().parents[2]  # <clone>/src/symnb/__init__.py


def test_python_started_in_the_clones_parent_imports_the_installed_package(tmp_path):
    (tmp_path / "symnb").symlink_to(CLONE, target_is_directory=True)  # the clone, named as git names it
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    code = ("import symnb, symnb.tensor as T; print(symnb.__file__); "
            "x = T.vector('x'); print(symnb.function([x], x * 2) is not None)")
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0].endswith(os.path.join("symnb", "__init__.py"))
