"""The ``%%symgraph`` cell magic: run the cell, then show the graphs it built.

A ``%%symgraph`` cell is rewritten by an input transformer before IPython runs it: its
first line (the magic's) becomes a call that notes the names defined so far, and a call
that shows the report is added after the last line. The cell's own lines run as any
cell's do, with the same line numbers as in the editor, so a failing line is shown as
``Cell In[5], line 3`` with no frame of the magic above it, and the creation lines of the
report name the cell's lines; the lines a traceback quotes are the cell as typed
(``%%symgraph`` first, not the calls it became). ``shell.run_cell_magic('symgraph', ...)``, which skips input
transformers, runs the cell through the magic itself.

What is shown (:mod:`symnb.magics.report`): the variables the cell assigned, folded
(:mod:`symnb.magics.folded`: a line each, a list or dict a line), and one picture of their
graph (the optimized graph with ``--optimized``), then a profile with ``--profile``. In a Jupyter kernel the picture is a live explorer; in terminal
IPython the report is printed as text.
"""

from __future__ import annotations

import linecache
import sys
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import display

from symnb.magics.cell_variables import (
    SymgraphUsageError, assigned_variables, named_variables, snapshot,
)
from symnb.magics.report import symgraph_report
from symnb.widgets._view import in_kernel

__all__ = ["SymgraphMagics", "transform_symgraph_cell"]

# The name the transformed cell calls the magics through (pushed into the user's namespace
# as a hidden name by %load_ext symnb); short, since tracebacks show the cell's first line.
HIDDEN_NAME = "_symnb_symgraph"


@magics_class
class SymgraphMagics(Magics):
    """Magics registered by ``%load_ext symnb``."""

    _pending: tuple[Any, dict[str, int]] | None = None

    def __init__(self, shell: Any = None) -> None:
        # Magics' own ``**kwargs`` go to traitlets, which only warns (a DeprecationWarning,
        # hidden by default) about a keyword it does not know: take the shell alone.
        super().__init__(shell=shell)

    @magic_arguments()
    @argument("--optimized", action="store_true",
              help="also compile the variables (inputs: their root inputs that are neither "
                   "shared nor constant) and draw the optimized graph")
    @argument("--profile", action="store_true",
              help="compile with profile=True, call on the inputs' test values (once to "
                   "compile, then timed calls) and show the profile")
    @argument("--show", metavar="NAMES", default=None,
              help="comma-separated names of the variables (or lists, tuples, dicts of them) "
                   "to show (default: the symbolic variables the cell assigned)")
    @cell_magic
    def symgraph(self, line: str, cell: str) -> None:
        """Run the cell, then show the symbolic variables it assigned: a line each (name,
        dtype, shape, value; op, heatmap and creation line a click away) and one picture
        of their graph; with --optimized the compiled graph, with --profile a profile of
        timed calls."""
        self.begin(line)
        self._run(cell)  # errors propagate: IPython shows them as for any cell
        self.end()

    def begin(self, line: str) -> None:
        """Parse the options and note the names the namespace holds before the cell."""
        args = parse_argstring(self.symgraph, line)
        if args.show is not None:
            args.show = _split_names(args.show)
        self._pending = (args, snapshot(self.shell.user_ns))
        _show_the_cell_as_typed(sys._getframe(1).f_code.co_filename, line)

    def end(self) -> None:
        """Show the report of the cell that just ran."""
        if self._pending is None:
            raise UsageError("%%symgraph: nothing to report (no cell started)")
        args, before = self._pending
        self._pending = None
        namespace = self.shell.user_ns
        try:
            found = (named_variables(namespace, args.show) if args.show is not None
                     else assigned_variables(namespace, before))
            report = symgraph_report(found.shown, optimized=args.optimized, profile=args.profile,
                                     notes=found.notes)
        except SymgraphUsageError as err:
            raise UsageError(str(err)) from None
        if in_kernel() and report.explorer is not None:
            report.explorer.display()
        else:
            display({"text/html": report.html(), "text/plain": report.text()}, raw=True)

    def _run(self, cell: str) -> None:
        """Execute ``cell`` in the user namespace, its source cached under the cell's
        number so tracebacks and symnb's creation lines show ``Cell In[n]`` and the text."""
        __tracebackhide__ = True  # noqa: F841  (IPython hides this frame)
        shell = self.shell
        source = shell.transform_cell(cell)
        filename = shell.compile.cache(source, _running_cell_number(shell), raw_code=cell)
        code = shell.compile(source, filename, "exec")
        exec(code, shell.user_global_ns, shell.user_ns)


def transform_symgraph_cell(lines: list[str]) -> list[str]:
    """IPython input transformer: a ``%%symgraph OPTIONS`` cell becomes
    ``<begin(OPTIONS)>`` + the cell's lines + ``<end()>``, line numbers unchanged."""
    if not lines or not lines[0].startswith("%%symgraph") or \
            lines[0][len("%%symgraph"):][:1] not in ("", " ", "\t", "\n", "\r"):
        return lines
    options = lines[0][len("%%symgraph"):].strip()
    body = list(lines[1:])
    if body and not body[-1].endswith("\n"):
        body[-1] += "\n"
    return ([f"{HIDDEN_NAME}.begin({options!r})  # %%symgraph\n"] + body + [f"{HIDDEN_NAME}.end()\n"])


def _show_the_cell_as_typed(filename: str, options: str) -> None:
    """Make the source lines a traceback shows for the transformed cell ``filename`` the
    cell as the user typed it: ``%%symgraph OPTIONS`` first, no closing ``end()`` line
    (IPython caches the transformed text, which would show the magic's own calls)."""
    entry = linecache.cache.get(filename)
    if not entry or not entry[2] or not entry[2][0].startswith(f"{HIDDEN_NAME}.begin("):
        return  # not a transformed cell (run_cell_magic runs the cell itself)
    lines = [f"%%symgraph {options}".rstrip() + "\n"] + list(entry[2][1:-1])
    linecache.cache[filename] = (sum(map(len, lines)), None, lines, filename)


def _running_cell_number(shell) -> int:
    """The number IPython gave the cell running this magic (``In[n]``).

    Read from the cell's own compiled code up the stack: when ``shell.execution_count``
    is incremented (before or after running a cell) differs between IPython versions.
    """
    numbers = getattr(shell.compile, "_filename_map", {})
    frame = sys._getframe(1)
    while frame is not None:
        number = numbers.get(frame.f_code.co_filename)
        if number is not None:
            return number
        frame = frame.f_back
    return shell.execution_count


def _split_names(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise UsageError("%%symgraph --show needs at least one name, e.g. --show y,z")
    for name in names:
        if not name.isidentifier():
            raise UsageError(f"%%symgraph --show: {name!r} is not a variable name")
    return names
