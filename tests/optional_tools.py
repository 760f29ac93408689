"""The optional programs some tests need, and the marks that skip those tests, saying
why, where a program is missing: the README calls Graphviz and Chromium optional, so the
README's test command passes without them (with fewer tests run)."""

from __future__ import annotations

import os
import shutil

import pytest

DOT = shutil.which("dot")
needs_dot = pytest.mark.skipif(DOT is None, reason="Graphviz's `dot` is not on PATH (apt-get install "
                               "graphviz, brew install graphviz or conda install graphviz)")
# The picture layout engines to test: symnb's own everywhere, Graphviz's where it is installed.
LAYOUT_ENGINES = ["layered", pytest.param("dot", marks=needs_dot)]

CHROMIUM = os.environ.get("SYMNB_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium: install Debian's `chromium` "
                                    "(apt-get install chromium) or set SYMNB_CHROMIUM to a Chromium binary")
