"""Sphinx configuration of symnb's documentation: ``sphinx-build -W -b html docs docs/_build``.

The Markdown pages are read by MyST; the tutorials are the notebooks of ``notebooks/``,
rendered from their stored outputs (never executed: they are run and compared by the test
suite, ``pytest --nbval``); the API reference is written from the public modules'
names (``api_pages.py``) and their docstrings (autodoc, autosummary).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
# The checkout's own package, as the tests import it (pytest's pythonpath = src).
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(DOCS))

import symnb  # noqa: E402
from api_pages import PUBLIC_MODULES, filename_map, first_listings, write_api_pages  # noqa: E402
from sphinx.ext.autosummary import autosummary_toc  # noqa: E402

project = "symnb"
author = "the symnb developers"
copyright = "the symnb developers"
release = symnb.__version__
version = release

extensions = [
    "myst_nb",  # MyST Markdown (myst-parser) and notebooks
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.viewcode",
]

exclude_patterns = ["_build", "**.ipynb_checkpoints"]
templates_path = ["_templates"]
html_theme = "furo"
html_title = f"symnb {release}"

myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3

# The notebooks are shown with the outputs they were saved with.
nb_execution_mode = "off"
# Widgets are saved with a static HTML snapshot beside their live view (the snapshot is
# what a notebook without its kernel shows): the page shows the snapshot.
nb_mime_priority_overrides = [
    ("html", "application/vnd.jupyter.widget-view+json", None),
]

autosummary_generate = True
autosummary_filename_map = filename_map()
# "module_pages": a one-name page, outside the table of contents, links back to its
# module's page (``_templates/autosummary``).
autosummary_context = {"indexed": first_listings(),
                       "module_pages": [name for name, _ in PUBLIC_MODULES]}
autodoc_default_options = {"show-inheritance": True}
autodoc_member_order = "bysource"
# Signatures without annotations: the docstrings say what each argument is.
autodoc_typehints = "none"
autodoc_preserve_defaults = True


def copy_tutorials() -> None:
    """The notebooks of ``notebooks/`` into ``docs/tutorials/`` (Sphinx reads sources
    under ``docs/`` only); a notebook is copied again only when it changed."""
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        copy = DOCS / "tutorials" / notebook.name
        if not copy.exists() or copy.read_bytes() != notebook.read_bytes():
            shutil.copyfile(notebook, copy)


copy_tutorials()
write_api_pages()


def _skip_numpy_references(app, what, name, obj, skip, options):
    """An op class's ``numpy_fn`` is NumPy's own function (the op's reference): its
    docstring is NumPy's, with cross-references into NumPy's documentation, not ours."""
    return True if name == "numpy_fn" else None


def _keep_name_pages_out_of_the_sidebar(app, doctree):
    """Drop the hidden table of contents each ``autosummary`` adds for its one-name pages.

    Furo draws the whole table of contents into every page's sidebar, so with the API's
    thousand one-name pages in it, writing the site took quadratic time (half an hour).
    The module pages' tables still link every name; the name pages are ``:orphan:`` and
    link back to their module's page (``_templates/autosummary``). Runs before Sphinx's
    own ``doctree-read`` collectors (priority 500), which record the tables of contents."""
    for toc in list(doctree.findall(autosummary_toc)):
        toc.parent.remove(toc)


def setup(app):
    app.connect("autodoc-skip-member", _skip_numpy_references)
    app.connect("doctree-read", _keep_name_pages_out_of_the_sidebar, priority=100)
