"""Theano names that symnb deliberately lacks, and what to write instead.

Each module that Theano programs import from (``symnb``, ``symnb.tensor``,
``symnb.tensor.nlinalg``, ``symnb.tensor.nnet``, ``symnb.compile``, ``symnb.printing``)
answers a missing attribute through :func:`module_getattr`: a name listed here raises
:class:`NotInSymnbError` (an ``AttributeError``) saying so and naming the symnb
spelling or the reason; any other name gets the usual ``AttributeError``.
``docs/porting.md`` shows this table (:func:`markdown_table`; a test keeps them in sync).
"""

from __future__ import annotations

from typing import Any, Callable

from symnb.core.graph.errors import SymnbError

__all__ = ["ABSENT", "NO_SPARSE_TENSORS", "NotInSymnbError", "module_getattr", "markdown_table"]


class NotInSymnbError(SymnbError, AttributeError):
    """A Theano name that symnb deliberately does not have (the message says why, and
    what to use instead)."""


#: Why ``symnb.sparse`` (a module to import, whose types no variable has) refuses its names.
NO_SPARSE_TENSORS = "sparse tensors are not supported: XLA programs here use dense arrays"

#: module -> {Theano name: what to use instead, or why it is absent}
ABSENT: dict[str, dict[str, str]] = {
    "symnb": {
        "ProfileMode": "removed from Theano too: use sn.function(..., profile=True)",
        "d3viz": "use sn.printing.pydotprint, or the %%symgraph magic in a notebook",
        "function_dump": "pickle the function instead: compiled functions pickle with their graph",
    },
    "symnb.tensor": {
        "inplace": "symnb has no in-place ops: XLA decides buffer reuse; use the plain function "
                   "(T.exp for exp_inplace)",
        "blas": "XLA chooses the BLAS calls: use T.dot / T.matmul",
        "fft": "FFTs are not in this release",
    },
    "symnb.tensor.nlinalg": {
        "TensorSolve": "use T.nlinalg.tensorsolve(a, b, axes), built from solve (so it has a "
                       "gradient)",
    },
    "symnb.tensor.nnet": {
        "Conv3D": "Theano's deprecated op: use T.nnet.conv3d",
        "ctc": "CTC wrapped a C library (warp-ctc) in Theano; not supported",
    },
    "symnb.compile": {
        "ProfileMode": "removed from Theano too: use sn.function(..., profile=True)",
        "function_dump": "pickle the function instead: compiled functions pickle with their graph",
    },
    "symnb.printing": {
        "d3viz": "use sn.printing.pydotprint, or the %%symgraph magic in a notebook",
    },
    "symnb.misc": {
        "pkl_utils": "theano.misc.pkl_utils (dump, load, StripPickler) has no counterpart: use "
                     "pickle, or sn.save / sn.load",
    },
}


def module_getattr(module: str) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``module``: absent Theano names raise NotInSymnbError."""
    table = ABSENT[module]

    def __getattr__(name: str) -> Any:
        if name in table:
            raise NotInSymnbError(f"{module}.{name} is a Theano name that symnb does not have: "
                                  f"{table[name]} (see docs/porting.md)")
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__


def markdown_table() -> str:
    """The table as docs/porting.md shows it."""
    lines = ["| Theano name | symnb |", "| --- | --- |"]
    for module, names in ABSENT.items():
        theano_module = module.replace("symnb", "theano", 1)
        for name, text in names.items():
            lines.append(f"| `{theano_module}.{name}` | not supported: {text} |")
    return "\n".join(lines) + "\n"
