"""The README's code runs as printed: its Python blocks run in order in one IPython shell
(so ``%load_ext`` and ``%%symgraph`` work as in a notebook), and where a block is followed
by an output block, what it printed or raised is that output."""

import contextlib
import io
import re
from pathlib import Path

import pytest

IPython = pytest.importorskip("IPython")

README = Path(__file__).resolve().parent.parent / "README.md"
# The README's error example is written as a file named example.py.
SCRIPT_NAME = "example.py"


def readme_blocks(text: str) -> list[tuple[str, str, str]]:
    """(language, code, output) for each Python block: output is the text of a block with no
    language right after it, or ''."""
    blocks = re.findall(r"^```(\w*)\n(.*?)^```", text, flags=re.M | re.S)
    examples = []
    for index, (language, body) in enumerate(blocks):
        if language != "python":
            continue
        following = blocks[index + 1] if index + 1 < len(blocks) else ("-", "")
        examples.append((language, body, following[1] if following[0] == "" else ""))
    return examples


def error_text(error: BaseException) -> str:
    """An exception as Python's traceback ends: 'module.Class: message', then its notes."""
    kind = type(error)
    lines = [f"{kind.__module__}.{kind.__qualname__}: {error}", *getattr(error, "__notes__", [])]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def shell():
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    yield shell
    InteractiveShell.clear_instance()


def run_block(shell, code: str):
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        result = shell.run_cell(code, store_history=True)
    return printed.getvalue(), result


def test_the_readme_has_python_blocks_and_shown_outputs():
    examples = readme_blocks(README.read_text())
    assert len(examples) >= 4
    assert any(output for _, _, output in examples)


def test_the_readme_blocks_run_in_order_and_print_what_it_shows(shell):
    for number, (_, code, expected) in enumerate(readme_blocks(README.read_text()), start=1):
        printed, result = run_block(shell, code)
        error = result.error_in_exec or result.error_before_exec
        if not expected:
            assert error is None, f"README block {number} failed:\n{code}\n{printed}"
            continue
        if "Error: " not in expected:
            assert printed.strip() == expected.strip(), f"README block {number}"
            continue
        # An error example: the README shows the end of Python's traceback, from the
        # exception's line on; the shell ran the block as a cell, not as example.py.
        assert error is not None, f"README block {number} shows an error that was not raised"
        shown = expected[expected.index(f"{type(error).__module__}."):].strip()
        actual = re.sub(r"Cell In\[\d+\], line", f'File "{SCRIPT_NAME}", line', error_text(error))
        actual = re.sub(r"Cell In\[\d+\]", SCRIPT_NAME, actual)
        assert actual.strip() == shown, f"README block {number}: the shown error differs"
