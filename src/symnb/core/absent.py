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

__all__ = ["ABSENT", "ABSENT_ATTRIBUTES", "NO_SPARSE_TENSORS", "NotInSymnbError", "module_getattr",
           "class_getattr", "markdown_table"]


class NotInSymnbError(SymnbError, AttributeError):
    """A Theano name that symnb deliberately does not have (the message says why, and
    what to use instead). ``theano_name``: its dotted name, symnb's spelling, when an
    attribute of an object raised it (``symnb.scan_module.scan_op.Scan.fn``)."""

    theano_name: str | None = None


#: Why ``symnb.sparse`` (a module to import, whose types no variable has) refuses its names.
NO_SPARSE_TENSORS = "sparse tensors are not supported: XLA programs here use dense arrays"

#: module -> {Theano name: what to use instead, or why it is absent}
ABSENT: dict[str, dict[str, str]] = {
    "symnb": {
        "ProfileMode": "removed from Theano too: use sn.function(..., profile=True)",
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
    "symnb.printing": {},  # theano.printing's names are all here (module_getattr reads this)
    "symnb.misc": {},  # theano.misc's names programs use are all here
}


#: class (as Theano programs import it) -> {Theano attribute of its instances: why absent}.
#: Theano's internals of an op that real code reads, whose meaning symnb has not got.
ABSENT_ATTRIBUTES: dict[str, dict[str, str]] = {
    "symnb.scan_module.scan_op.Scan": {
        "fn": "Theano's compiled step function (its storage, its optimized graph); symnb compiles "
              "the loop into the function's XLA program: read the step's graph as op.inputs / "
              "op.outputs",
        "destroy_map": "Theano's in-place loop outputs; symnb has no in-place ops (XLA decides "
                       "buffer reuse)",
        "var_mappings": "the index maps of Theano's input layout (a sequence per tap, mit-mot, "
                        "mit-sot, sit-sot, shared and nit-sot inputs); symnb's loop has its own "
                        "layout (op.split, op.outer_position)",
        "_scan_savemem_visited": "the mark of Theano's ScanSaveMem optimizer; XLA allocates the "
                                 "loop's buffers",
    },
}


def class_getattr(owner: str) -> Callable[[Any, str], Any]:
    """The ``__getattr__`` of the class ``owner`` (a key of :data:`ABSENT_ATTRIBUTES`): an
    absent Theano attribute raises NotInSymnbError naming it; any other, AttributeError."""
    table = ABSENT_ATTRIBUTES[owner]

    def __getattr__(self: Any, name: str) -> Any:
        if name in table:
            error = NotInSymnbError(f"{owner}.{name} is a Theano attribute that symnb does not "
                                    f"have: {table[name]} (see docs/porting.md)")
            error.theano_name = f"{owner}.{name}"
            raise error
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    return __getattr__


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
    for owner, names in ABSENT_ATTRIBUTES.items():
        theano_owner = owner.replace("symnb", "theano", 1)
        for name, text in names.items():
            lines.append(f"| `{theano_owner}.{name}` | not supported: {text} |")
    return "\n".join(lines) + "\n"
