"""What a picture says of one variable or op, without drawing: the value it shows, the
op's colour family, the line that built it. :mod:`symnb.printing.graph_model` hands
these names on."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from symnb.core.graph.basic import Constant, Variable
from symnb.core.graph.op import perform_only
from symnb.core.tensor.shared import SharedVariable

__all__ = ["value_of", "family_of", "creation_text", "runs_as", "PYTHON_OP"]

# Op families (by class name anywhere in the op's class hierarchy) -> the picture's colour
# key; the first match wins.
_FAMILIES = (
    ("Scan", "control"), ("IfElse", "control"), ("Composite", "fused"),
    ("Elemwise", "elemwise"), ("Reduce", "reduce"), ("Sum", "reduce"), ("Max", "reduce"),
    ("Dot", "blas"), ("Gemm", "blas"), ("Gemv", "blas"), ("MatMul", "blas"), ("Conv", "blas"),
    ("Subtensor", "index"), ("Shape", "shape"), ("Reshape", "shape"), ("DimShuffle", "shape"),
    ("Alloc", "shape"), ("Join", "shape"), ("Assert", "check"),
)


def value_of(var: Variable) -> np.ndarray | None:
    """The value a picture shows for ``var``: a shared variable's current value, else the
    test value if it was computed (never computing one)."""
    if isinstance(var, SharedVariable):
        return var.get_value(borrow=True)
    if isinstance(var, Constant):
        return np.asarray(var.data)
    return var._test_value


def family_of(op: Any) -> str:
    """The op's family, which picks its colour: ``elemwise``, ``reduce``, ``blas``..."""
    names = [cls.__name__ for cls in type(op).__mro__]
    for key, family in _FAMILIES:
        if any(key in name for name in names):
            return family
    return "other"


def creation_text(var: Variable) -> str:
    """``Cell In[3]:2: y = x * 2``, or ``(unknown)`` for a variable built by symnb itself."""
    site = var.site
    if not site:
        return "(unknown)"
    line = site.line
    return f"{site.short()}: {line}" if line else site.short()


#: How a picture's card names an op a compiled program runs as Python.
PYTHON_OP = "Python (host callback)"


def runs_as(op: Any) -> str | None:
    """:data:`PYTHON_OP` for an op compiled programs run as Python (its perform, called
    back from XLA: an op written in Python only, with no lowering rule), else None.
    Rules are registered only where the lowering layer (and JAX) was imported: a picture
    drawn before asks nothing of it (and loads no JAX)."""
    registry = sys.modules.get("symnb.lower_xla.registry")
    if registry is not None:  # it also knows the ops a rule runs so (Elemwise(scalar_op)'s)
        return PYTHON_OP if registry.runs_on_host(op) else None
    return PYTHON_OP if perform_only(op) else None
