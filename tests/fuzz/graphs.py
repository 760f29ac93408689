"""Hypothesis strategies for random symnb programs over the tensor API.

``programs()`` draws one to three inputs (dtypes bool, int8, int32, int64, uint8,
float32, float64; 0 to 3 dimensions, lengths 0 to 3; static lengths known or not;
values small, now and then extreme or special: 0, -0.0, inf, NaN, 1e30...), then one
to six steps, each from one family: unary, binary (with Python-scalar operands),
comparison, logical, switch, clip, cast, reduction (sum, prod, max, min, mean, var,
std, argmax, argmin, any, all; axis None/int/tuple, keepdims), dot/matmul, reshape,
dimshuffle/transpose/flatten, concatenate/stack, softmax/log_softmax, basic and
advanced indexing, set/inc_subtensor, ifelse (stacked and nested), ``lstsq`` and
``eigh``'s eigenvectors (LAPACK's conventions: ``linalg_ops``). Every step carries its own NumPy reference and
an error bound (``bounds``); the outputs are the last value and some earlier ones.

Left out by construction, because their result is undefined (NumPy and XLA may
both be right while differing), each checked on the reference values as drawn:

- integer overflow: an integer result that differs from the same computation on
  Python integers (sums, products, +, -, *, neg, abs, pow, dot, inc_subtensor...);
- integer division or modulo by zero, and negative integer powers of integers (NumPy
  raises; the Python-integer check above catches both);
- casts of NaN, inf or out-of-range floats to integers (C's undefined behaviour);
- ``set_subtensor`` with an index repeating a position (NumPy keeps the last value,
  XLA any one of them);
- var/std with ``N - ddof <= 0`` (a division by zero NumPy warns about);
- out-of-range integer indices (every index drawn is in range; slices may run past
  the end, which is defined);
- ops NumPy itself refuses for the dtypes drawn (``-`` of bools, bitwise ops of
  floats, an empty axis of max): symnb refuses them too, which is not compared here.

"""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.fuzz import branch_ops as br
from tests.fuzz import elementwise_ops as ew
from tests.fuzz import indexing_ops as ix
from tests.fuzz import linalg_ops as la
from tests.fuzz import smooth_ops as sm
from tests.fuzz import structural_ops as so
from tests.fuzz.program import Builder, Program
from tests.fuzz.shapes import new_input

__all__ = ["programs", "gradient_programs", "FAMILIES", "SMOOTH_FAMILIES", "BRANCH_FAMILIES"]

#: Step families, repeated to weight how often they are drawn.
FAMILIES = [
    ew.unary, ew.unary, ew.unary, ew.binary, ew.binary, ew.binary, ew.compare, ew.logical, ew.switch,
    ew.clip, ew.cast, ew.cast, so.reduction, so.reduction, so.reduction, so.product, so.reshape,
    so.permute, so.join, so.normalize, ix.get, ix.get, ix.assign, ix.assign, br.choose,
    la.lstsq, la.eigh_vectors,
]


#: The gradient fuzz's families: smooth float64 steps (linear algebra included), and the
#: shape, join, indexing and softmax steps (differentiable everywhere), drawn on float64
#: inputs only.
SMOOTH_FAMILIES = [
    sm.unary, sm.unary, sm.binary, sm.binary, sm.reduction, sm.reduction, sm.clip, sm.switch,
    sm.linalg, so.product, so.reshape, so.permute, so.join, so.normalize, ix.get, ix.get, ix.assign,
    br.choose,
]


def _moderate(shape: tuple):
    """Float64 values in [-2, 2], none within 1e-3 of 0 (log, division and abs apply)."""
    magnitudes = st.floats(1e-3, 2.0)
    return hnp.arrays("float64", shape, elements=st.builds(lambda m, s: m * s, magnitudes,
                                                             st.sampled_from([1.0, -1.0])))


#: Programs that stack and nest ``ifelse`` steps (for the size check against their
#: ``T.switch`` form): the smooth families, with ``ifelse`` drawn half the time.
BRANCH_FAMILIES = SMOOTH_FAMILIES + [br.choose] * len(SMOOTH_FAMILIES)


@st.composite
def gradient_programs(draw, max_steps: int = 5, families=tuple(SMOOTH_FAMILIES)) -> Program:
    """Differentiable float64 programs (see ``smooth_ops``) for the gradient fuzz."""
    return draw(programs(max_steps=max_steps, families=families,
                         builder=lambda: Builder(dtype="float64", values=_moderate)))


@st.composite
def programs(draw, max_steps: int = 6, families=tuple(FAMILIES), builder=Builder) -> Program:
    # The references meet NaN, inf and empty slices on purpose: NumPy's warnings about
    # them are not news.
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return _program(draw, max_steps, families, builder())


def _program(draw, max_steps: int, families, b: Builder) -> Program:
    for _ in range(draw(st.integers(1, 2))):
        new_input(draw, b)
    # Hypothesis draws the first choice of a list more often than the others: 4 steps.
    steps = draw(st.sampled_from([n for n in (4, 5, 3, 6, 2, 1) if n <= max_steps]))
    made: list[int] = []
    attempts = 0
    while len(made) < steps and attempts < 4 * steps:
        attempts += 1
        family = draw(st.sampled_from(families))
        made_step = family(draw, b)
        if made_step is not None:
            made.append(made_step)
    if not made:  # every family declined (rare): an identity keeps the example valid
        made.append(_copy(b))
    program = b.program
    extra = [i for i in made[:-1] if draw(st.integers(0, 2)) == 0]
    program.outputs = extra + [made[-1]]
    return program


def _copy(b: Builder) -> int:
    import symnb.tensor as T

    x = b.size - 1
    ref = b.ref(x)
    return b.add_step("T.identity({})", [x], T.identity, lambda v: v.copy(), ref.copy(), b.err(x))
