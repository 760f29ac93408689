"""``TestValueEditor`` in JupyterLab (Chromium, through Playwright): a matrix typed a row a
line in its text area; the edit marked "edited here, not in the code" with the line that
sets it, live and in the notebook saved and reopened without a kernel; that line, as the
page shows it, re-creates the value typed. Screenshots go to build/screenshots/. Skipped
where no browser can be had (see test_jupyterlab.py, whose fixtures this reuses)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.browser.test_jupyterlab import (  # noqa: F401 (fixtures)
    browser, lab, open_notebook, run_all, save_and_close, shot, shut_down_kernels, write_notebook,
)
from tests.optional_tools import needs_chromium

pytestmark = [pytest.mark.slow, needs_chromium]

CELLS = ["""import numpy as np
import symnb.tensor as T
from symnb.widgets import TestValueEditor
m = T.matrix("m", test_value=np.ones((2, 3), "float32"))
TestValueEditor((m * 2).sum())"""]
TYPED = "[[1.1, -2, 3],\n [0.25, np.nan, 1e-7]]"


def _runs_to_the_typed_value(code: str) -> None:
    """Run ``code`` (``m.tag.test_value = ...``) against a stand-in for ``m``."""
    class Tag:
        test_value = None

    class Var:
        tag = Tag()

    m = Var()
    exec(code, {"np": np, "m": m})
    expected = np.array([[1.1, -2, 3], [0.25, np.nan, 1e-7]], "float32")
    value = m.tag.test_value
    assert value.dtype == expected.dtype and np.array_equal(value, expected, equal_nan=True), code


def test_an_edit_shows_the_code_that_keeps_it_live_and_saved(lab, browser):
    write_notebook(lab["root"] / "editor.ipynb", CELLS)
    page = open_notebook(browser, lab, "editor.ipynb")
    run_all(page)
    field = page.locator(".symnb-editor-field textarea").first
    field.wait_for(timeout=120_000)
    assert field.input_value() == "[[1.0, 1.0, 1.0],\n [1.0, 1.0, 1.0]]"  # a row a line
    field.fill(TYPED)
    field.press("Tab")  # read when the field loses focus
    mark = page.locator(".symnb-edited").first
    mark.wait_for(timeout=20_000)
    assert "edited here, not in the code" in mark.inner_text()
    code = mark.locator(".symnb-edited-code").inner_text()
    _runs_to_the_typed_value(code)
    editor = page.locator(".symnb-editor-result").first.locator("xpath=..")
    shot(page, editor, "20_editor_edited_code")

    save_and_close(page, lab)
    page = open_notebook(browser, lab, "editor.ipynb", kernel=False)
    saved = page.locator(".symnb-snapshot .symnb-editor-snapshot").first
    saved.wait_for(timeout=60_000)
    assert "edited here, not in the code" in saved.inner_text()
    _runs_to_the_typed_value(saved.locator(".symnb-edited-code").inner_text())
    shot(page, saved, "21_editor_edited_code_saved")
    page.close()
    shut_down_kernels(lab)
