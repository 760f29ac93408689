"""Generated programs: inputs, steps (each with its own NumPy function), references.

A :class:`Program` is a recipe, not a graph: the test builds the symbolic graph from
it (so a failure to build is a test failure that shows the recipe), while the
generator already evaluated every step's own NumPy function on the inputs, giving the
reference ``ref`` and its error bound ``err`` (see ``bounds``) of every value.
``repr(program)`` reads as the symnb code it builds.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Collection, Sequence

import numpy as np

import symnb as sn
import symnb.tensor as T

__all__ = ["Input", "Step", "Program", "Builder", "input_error"]


@dataclass
class Input:
    """A symbolic input: its dtype, static shape (None: unknown length) and value."""

    name: str
    dtype: str
    static_shape: tuple
    value: np.ndarray

    def variable(self):
        return T.tensor(self.dtype, shape=self.static_shape, name=self.name, test_value=self.value)

    def shared_variable(self):
        """A shared variable holding the value, of the same static shape."""
        return sn.shared(self.value, name=self.name, shape=self.static_shape)

    def __repr__(self) -> str:
        return (f"{self.name} = T.tensor({self.dtype!r}, shape={self.static_shape}, "
                f"test_value=np.array({self.value.tolist()!r}, {self.dtype!r}))")


@dataclass
class Step:
    """One op: ``text`` (its symnb spelling, operands named), the positions of its
    operands among the program's values, how to build it from symbolic operands and
    how NumPy computes it from their values (the independent reference)."""

    name: str
    text: str
    operands: tuple[int, ...]
    build: Callable[..., Any]
    numpy: Callable[..., np.ndarray]

    def __repr__(self) -> str:
        return f"{self.name} = {self.text}"


@dataclass
class Program:
    inputs: list[Input]
    steps: list[Step]
    #: Position of each value (inputs then steps, in creation order) in ``order``.
    order: list[Any]
    refs: list[np.ndarray]
    errs: list[np.ndarray]
    outputs: list[int] = field(default_factory=list)

    def __repr__(self) -> str:
        lines = [repr(item) for item in self.order]
        names = ", ".join(self.order[i].name for i in self.outputs)
        return "\n".join(lines + [f"outputs: [{names}]"])

    def build(self, shared: Collection[int] = (), free: Collection[int] = ()) -> tuple[list, list]:
        """The symbolic inputs and every value's variable (in ``order``). The inputs at
        the positions ``shared`` are shared variables holding their value instead (not
        among the symbolic inputs). The steps at the positions ``free`` are fresh inputs
        of their type and test value instead: a cut there, as written by hand."""
        variables: list[Any] = []
        inputs = []
        for position, item in enumerate(self.order):
            if isinstance(item, Input) and position in shared:
                var = item.shared_variable()
            elif isinstance(item, Input):
                var = item.variable()
                inputs.append(var)
            else:
                var = item.build(*(variables[i] for i in item.operands))
                if position in free:
                    var = T.tensor(var.dtype, shape=var.type.shape, name=item.name,
                                   test_value=var.test_value)
            variables.append(var)
        return inputs, variables

    def needed(self, cut: Collection[int]) -> set[int]:
        """The positions of the values the outputs need when those at ``cut`` are given
        (Theano's cut: a function of interior values): walked from the outputs through
        the steps' operands, not past ``cut``."""
        return self.reached(self.outputs, cut)

    def reached(self, starts: Collection[int], cut: Collection[int] = ()) -> set[int]:
        """The positions ``starts`` and what they are computed from, through the steps'
        operands, not past ``cut``."""
        reached: set[int] = set()
        stack = list(starts)
        while stack:
            position = stack.pop()
            if position in reached:
                continue
            reached.add(position)
            item = self.order[position]
            if isinstance(item, Step) and position not in cut:
                stack.extend(item.operands)
        return reached

    def evaluate(self, values: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Every value, recomputed by the steps' own NumPy functions from ``values``
        (one per input, in order): the reference, for other input values."""
        given = iter(values)
        results: list[np.ndarray] = []
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            for item in self.order:
                if isinstance(item, Input):
                    results.append(np.asarray(next(given), dtype=item.dtype))
                else:
                    results.append(np.asarray(item.numpy(*(results[i] for i in item.operands))))
        return results


def input_error(value: np.ndarray) -> np.ndarray:
    """An input is exact, except a subnormal float: XLA on CPU reads it as 0 (JAX sets
    the processor's denormals-are-zero mode, jax-ml/jax#16200), NumPy does not."""
    if value.dtype.kind != "f":
        return np.zeros(value.shape)
    tiny = float(np.finfo(value.dtype).tiny)
    with np.errstate(all="ignore"):
        subnormal = (value != 0) & (np.abs(value) < tiny)
    return np.where(subnormal, tiny, 0.0)


class Builder:
    """The program being generated: values so far, and how to add inputs and steps.

    ``dtype`` and ``values`` (a function from a shape to a strategy of arrays), when
    given, fix the dtype and the values of every new input (the gradient fuzz's)."""

    def __init__(self, dtype: str | None = None, values: Callable | None = None) -> None:
        self.program = Program(inputs=[], steps=[], order=[], refs=[], errs=[])
        self.dtype = dtype
        self.values = values

    @property
    def size(self) -> int:
        return len(self.program.order)

    def ref(self, index: int) -> np.ndarray:
        return self.program.refs[index]

    def err(self, index: int) -> np.ndarray:
        return self.program.errs[index]

    def name(self, index: int) -> str:
        return self.program.order[index].name

    def is_input(self, index: int) -> bool:
        return isinstance(self.program.order[index], Input)

    def add_input(self, dtype: str, value: np.ndarray, static_shape: tuple) -> int:
        item = Input(f"x{len(self.program.inputs)}", dtype, static_shape, np.asarray(value, dtype))
        self.program.inputs.append(item)
        return self._add(item, item.value, input_error(item.value))

    def add_step(self, text: str, operands: Sequence[int], build: Callable, numpy: Callable,
                 ref: np.ndarray, err: np.ndarray) -> int:
        name = f"v{len(self.program.steps)}"
        names = [self.name(i) for i in operands]
        step = Step(name, text.format(*names), tuple(operands), build, numpy)
        self.program.steps.append(step)
        ref = np.asarray(ref)
        err = np.broadcast_to(np.asarray(err, dtype=np.float64), ref.shape).copy()
        return self._add(step, ref, err)

    def _add(self, item: Any, ref: np.ndarray, err: np.ndarray) -> int:
        self.program.order.append(item)
        self.program.refs.append(ref)
        self.program.errs.append(err)
        return len(self.program.order) - 1
