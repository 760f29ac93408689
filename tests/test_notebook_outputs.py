"""The tutorials as shipped render everywhere: no stored output is a picture that only an
trusted notebook shows (a bare ``image/svg+xml``: untrusted JupyterLab prints
``<IPython.core.display.SVG object>``, GitHub and sanitizers drop inline ``<svg>``), and
they teach with the public API only (no private symnb modules or attributes)."""

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
# A symnb module or attribute whose name starts with "_", or a module the tutorials'
# readers should not need: the profile's table builders, the picture's model.
# A name with one leading underscore is private; dunders (``sn.__version__``) are public.
PRIVATE = re.compile(r"symnb(?:\.\w+)*\._(?!_)\w+|\b\w+\._(?!repr_|_)\w+|profiling_tables|profiling_xla"
                     r"|profiling_report|\.picture\.nodes|\bgraph_model\b")


def _code_cells(path):
    return [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_stored_picture_renders_untrusted(path):
    for number, cell in enumerate(_code_cells(path)):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "image/svg+xml" in data:
                assert "text/html" in data or "image/png" in data, (
                    f"{path.name}, code cell {number}: an image/svg+xml output with no text/html "
                    "or PNG beside it does not render in an untrusted notebook")
            html = "".join(data.get("text/html", ""))
            assert "<svg" not in html.split("<img", 1)[0] or "symnb-snapshot" not in html, (
                f"{path.name}, code cell {number}: a snapshot with an inline <svg> (sanitizers drop it)")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_tutorials_use_the_public_api(path):
    for number, cell in enumerate(_code_cells(path)):
        source = "".join(cell["source"])
        found = PRIVATE.findall(source)
        assert not found, f"{path.name}, code cell {number} uses private names: {found}"
