"""Disagreements the fuzz found in areas other helpers of issue 9 are fixing.

Each entry keeps one case out of the generator until that fix is merged; then the
entry (and, when the list is empty, this module's use) is removed. One line per case,
with the issue item it belongs to.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

__all__ = ["AWAITING_OTHER_FIXES", "awaiting", "WIDE"]

WIDE = {"float64", "int64", "uint64", "complex128"}


class Awaiting(NamedTuple):
    op: str
    #: Called with the operands' dtypes (as strings): True for the awaited case.
    applies: Callable[..., bool]
    item: str
    reproducer: str


AWAITING_OTHER_FIXES: list[Awaiting] = [
    Awaiting("Python int outside the tensor's dtype", lambda dtype: True,
             "10 (NumPy 2 promotion of Python scalars depends on the op, helper A)",
             "x a uint8 vector: T.true_div(-2, x) and T.lt(x, -1) raise OverflowError at build; "
             "NumPy 2 gives float64 [-0.25] and bool (its loops take the int as float64 / compare "
             "exactly); T.clip(x, -2, 5) likewise"),
    # While it applies, a program computing in 64 bits gets an unused float64 input.
    Awaiting("64-bit value only inside a fused Composite", lambda *outer: not WIDE & set(outer),
             "4 (graph walks into inner graphs: the 64-bit check misses Composite, helper C)",
             "x an int32 vector; y = T.neq(x * 1e-9 + 1, 1): fast_run fuses it, the 64-bit check "
             "does not look inside the Composite, JAX truncates the float64 to float32: [False, False], "
             "NumPy [True, True] (or XLA's verifier rejects mixed f32/f64 operands)"),
    Awaiting("T.sigmoid", lambda x: x == "bool", "9 (T.sigmoid of a bool, helper A)",
             "T.sigmoid(b), b a bool scalar: TestValueError 'numpy boolean negative' at build"),
    Awaiting("T.sigmoid", lambda x: x.startswith("uint"), "9 (T.sigmoid of a bool, helper A: same cause)",
             "T.sigmoid(x), x = uint8 [12]: the test value is 0.0 (the perform negates before "
             "converting to float: -12 wraps to 244, exp(244) is inf), compiled and NumPy 1.0"),
    Awaiting("T.inc_subtensor", lambda x: x == "bool", "9 (bool inc_subtensor, helper C)",
             "T.inc_subtensor(x[0], y), x a bool vector: the test value computes, compiling fails "
             "with 'add does not accept dtype bool'"),
    Awaiting("symbolic slice bound next to an advanced index", lambda x: True,
             "9 (symbolic slice starts, helper C)",
             "x a matrix, i an int64 vector, s an int64 scalar input: sn.function([x, i, s], x[i, s:]) "
             "raises StaticValueRequired at call time (x[s:] and x[1, s:] specialize fine)"),
    Awaiting("T.set_subtensor symbolic", lambda x: True, "9 (symbolic slice starts, helper C)",
             "T.set_subtensor(x[s:], y), s an int64 scalar input: StaticValueRequired at call time"),
    Awaiting("T.inc_subtensor symbolic", lambda x: True, "9 (symbolic slice starts, helper C)",
             "T.inc_subtensor(x[s:3:2], y), s an int64 scalar input: StaticValueRequired at call time"),
]


def awaiting(op: str, *dtypes) -> bool:
    """True when ``op`` on operands of ``dtypes`` is a case awaiting another fix."""
    names = [str(d) for d in dtypes]
    return any(case.op == op and case.applies(*names) for case in AWAITING_OTHER_FIXES)
