"""The ``%%symgraph`` cell magic: run the cell, then show the graphs it built.

A thin layer over :mod:`symnb.magics.report`: parse the options, run the cell in the
user's namespace (as IPython would, so errors and creation lines name the cell), and
display the report as HTML.
"""

from __future__ import annotations

import sys

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import HTML, display

from symnb.magics.report import (
    SymgraphUsageError, assigned_variables, named_variables, snapshot, symgraph_html,
)

__all__ = ["SymgraphMagics"]


@magics_class
class SymgraphMagics(Magics):
    """Magics registered by ``%load_ext symnb``."""

    @magic_arguments()
    @argument("--optimized", action="store_true",
              help="also compile the variables (inputs: their root inputs that are neither "
                   "shared nor constant) and show the optimized graph")
    @argument("--profile", action="store_true",
              help="compile with profile=True, call once on the inputs' test values and "
                   "show the profile")
    @argument("--show", metavar="NAMES", default=None,
              help="comma-separated names of the variables to show (default: the symbolic "
                   "variables the cell assigned)")
    @cell_magic
    def symgraph(self, line: str, cell: str) -> None:
        """Run the cell, then show the symbolic variables it assigned: their graphs with
        test values (debugprint), and with --optimized / --profile the compiled graph and
        a profile of one call."""
        args = parse_argstring(self.symgraph, line)
        names = _split_names(args.show) if args.show is not None else None
        namespace = self.shell.user_ns
        before = snapshot(namespace)
        self._run(cell)  # errors propagate: IPython shows them as for any cell
        try:
            shown = (named_variables(namespace, names) if names is not None
                     else assigned_variables(namespace, before))
            report = symgraph_html(shown, optimized=args.optimized, profile=args.profile)
        except SymgraphUsageError as err:
            raise UsageError(str(err)) from None
        display(HTML(report))

    def _run(self, cell: str) -> None:
        """Execute ``cell`` in the user namespace, its source cached under the cell's
        number so tracebacks and symnb's creation lines show ``Cell In[n]`` and the text."""
        shell = self.shell
        source = shell.transform_cell(cell)
        filename = shell.compile.cache(source, _running_cell_number(shell), raw_code=cell)
        code = shell.compile(source, filename, "exec")
        exec(code, shell.user_global_ns, shell.user_ns)


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
