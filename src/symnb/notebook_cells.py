"""Names of notebook cells in messages: ``Cell In[5], line 2`` as IPython prints them,
rather than the kernel's temporary file (``/tmp/ipykernel_1234/5678.py``).

IPython is never imported here: when a kernel is running it is already loaded, and
its compiler keeps the map from cell file names to execution counts.
"""

from __future__ import annotations

import sys

from symnb.core.graph.source import register_file_namer

__all__ = ["cell_name"]


def cell_name(filename: str) -> str | None:
    """``Cell In[5]`` for the file IPython compiled cell 5 into; None elsewhere."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return None
    shell = ipython.get_ipython()
    if shell is None:
        return None
    number = getattr(getattr(shell, "compile", None), "_filename_map", {}).get(filename)
    return f"Cell In[{number}]" if number is not None else None


register_file_namer(cell_name)
