"""The lowering interpreter: a short loop over the graph, run once under ``jax.jit``.

Each node's rule is looked up once (when the program is built); when JAX traces the
program, the loop evaluates the rules on traced arrays (or, for nodes whose inputs
are all known at trace time, the op's NumPy ``perform``). A rule that fails (an input
shape the node cannot take) is reported as a ``NodeFailure`` carrying the node, so
the error can name the user's line that built it (``failing_node``, ``place_lines``).
The rules of ops holding a graph (a fused ``Composite``) run it through the same loop.
"""

from __future__ import annotations

import math
import os
from typing import Any, Callable, Sequence

import jax
import numpy as np

from symnb.core.graph.errors import SymnbError
from symnb.core.graph.basic import Apply, Constant, Place, Variable, node_places, walk_nodes
from symnb.core.graph.inner_graph import role_holding
from symnb.core.graph.static import may_run_ahead
from symnb.core.tensor.composite import Composite
from symnb.lower_xla.convert import as_dtype
from symnb.lower_xla.registry import lower

__all__ = ["NodeFailure", "NodeThunk", "NodeHook", "TraceShapes", "build_program", "scope_name",
           "scope_names", "failing_node", "place_lines", "place_details"]


class NodeFailure(Exception):
    """A node's lowering rule failed while the program was traced for new input shapes."""

    def __init__(self, node: Apply, index: int, arrays: Sequence[Any], error: Exception) -> None:
        super().__init__(str(error))
        self.node = node
        self.index = index
        self.shapes = [tuple(np.shape(a)) for a in arrays]
        self.dtypes = [str(a.dtype) for a in arrays]
        self.error = error


def scope_name(node: Apply) -> str:
    """The named scope tagging a node's operations in jaxpr/HLO: ``Exp(model.py:12)``."""
    frame = node.site.frame
    # XLA keeps "Op(file.py:12)" in HLO metadata (it cuts names at '@').
    where = f"({frame.filename.rsplit('/', 1)[-1]}:{frame.lineno})" if frame else ""
    return f"{type(node.op).__name__}{where}"


def scope_names(nodes: Sequence[Apply]) -> list[str]:
    """The named scope of each node of a program of ``nodes``: its :func:`scope_name`, with
    ``#2``, ``#3``... for the second, third node of the same op class and line (the layers
    one line of a helper builds), so a profile finds each XLA operation's own node."""
    seen: dict[str, int] = {}
    names = []
    for node in nodes:
        base = scope_name(node)
        seen[base] = seen.get(base, 0) + 1
        names.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return names


class _Step:
    """One node of a program, prepared when the program is built: its rule, where its
    inputs and outputs live in the program's values, its scope and output dtypes."""

    __slots__ = ("node", "index", "rule", "input_ids", "output_ids", "scope", "dtypes", "sized")

    def __init__(self, node: Apply, index: int, scope: str, sized: bool = True) -> None:
        self.node = node
        self.index = index
        self.sized = sized  # refuse outputs larger than the machine's memory
        self.rule = lower(node.op, node)
        self.input_ids = [id(v) for v in node.inputs]
        self.output_ids = [id(v) for v in node.outputs]
        self.scope = scope
        self.dtypes = [v.type.numpy_dtype for v in node.outputs]

    def run(self, args: list[Any]) -> list[Any]:
        """The node's outputs for input values ``args``, of exactly the graph's dtypes."""
        try:
            results = _evaluate(self.node, self.rule, args)
        except (NodeFailure, SymnbError):  # already located, or a debugging mode's verdict
            raise
        except Exception as err:  # the graph cannot run on these shapes
            raise NodeFailure(self.node, self.index, args, err) from err
        too_large = self.sized and _larger_than_memory(results)
        if too_large:
            raise NodeFailure(self.node, self.index, args, MemoryError(too_large))
        return [as_dtype(value, dtype) for value, dtype in zip(results, self.dtypes)]


def _physical_memory() -> int | None:
    """The machine's memory in bytes (None where the OS does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


_MEMORY = _physical_memory()


def _larger_than_memory(results: Sequence[Any]) -> str:
    """Why a node's output cannot be allocated at all ('' when it may be): a value larger
    than the machine's memory is refused while tracing, before XLA is asked for it (XLA's
    CPU runtime may abort the process on such an allocation instead of reporting it)."""
    if _MEMORY is None:
        return ""
    for value in results:
        # Python's integers: no overflow, and a fraction of NumPy's cost per node. A
        # tracer's and an array's shape and dtype are read as they are (no conversion).
        dtype = value.dtype
        if not isinstance(dtype, np.dtype):
            dtype = np.dtype(dtype)
        nbytes = math.prod(value.shape if hasattr(value, "shape") else np.shape(value)) * dtype.itemsize
        if nbytes > _MEMORY:
            return (f"RESOURCE_EXHAUSTED: a value of {nbytes} bytes is larger than this "
                    f"machine's memory ({_MEMORY} bytes)")
    return ""


class NodeThunk:
    """One node, ready to run: what a per-node hook receives as ``fn``.

    ``fn.inputs`` holds the input values; calling ``fn()`` runs the node and fills
    ``fn.outputs``.
    """

    def __init__(self, step: _Step, inputs: list[Any]) -> None:
        self.node = step.node
        self.index = step.index
        self.inputs = inputs
        self.outputs: list[Any] | None = None
        self._step = step

    def __call__(self) -> list[Any]:
        self.outputs = self._step.run(self.inputs)
        return self.outputs


#: A per-node hook: ``hook(index, node, thunk)`` must call ``thunk()`` once.
NodeHook = Callable[[int, Apply, NodeThunk], None]

#: What one trace saw: ``(inputs, nodes)``, each input's ``(dtype, shape)`` then, per node
#: (in the program's order), each output's ``(dtype, shape)``.
TraceShapes = tuple[list[tuple[str, tuple]], list[list[tuple[str, tuple]]]]


def build_program(inputs: Sequence[Variable], outputs: Sequence[Variable],
                  nodes: Sequence[Apply], hook: NodeHook | None = None,
                  record: Callable[[TraceShapes], None] | None = None,
                  sized: bool = True) -> Callable[..., list[Any]]:
    """A function of the input arrays computing ``outputs`` through ``nodes`` (toposorted).

    A value larger than the machine's memory is refused while tracing (a ``MemoryError``
    in a :class:`NodeFailure`), unless ``sized`` is False (an abstract trace that only
    reads shapes, e.g. the out-of-memory report's).

    With a ``hook``, each node runs through it (for node-by-node debugging modes,
    which run the program eagerly rather than under ``jax.jit``). With ``record``, each
    run ends by passing it the shapes and dtypes of the inputs and of every node's
    outputs (:data:`TraceShapes`): under ``jax.jit`` a run is a trace, so a program's
    calls pay nothing for it. Inner graphs (loop bodies) are not recorded.
    """
    steps = [_Step(node, index, scope, sized)
             for index, (node, scope) in enumerate(zip(nodes, scope_names(nodes)))]
    read_patterns = _pattern_reader(nodes, outputs)
    constants = {id(v): _program_data(v, read_patterns) for node in nodes for v in node.inputs
                 if isinstance(v, Constant)}
    constants.update({id(v): _program_data(v, read_patterns) for v in outputs if isinstance(v, Constant)})
    input_ids = [id(v) for v in inputs]
    output_ids = [id(v) for v in outputs]

    def program(*arrays: Any) -> list[Any]:
        env = dict(constants)
        env.update(zip(input_ids, arrays))
        for step in steps:
            args = [env[i] for i in step.input_ids]
            with jax.named_scope(step.scope):
                results = step.run(args) if hook is None else _through(hook, step, args)
            env.update(zip(step.output_ids, results))
        if record is not None:
            record(([_shape_of(env[i]) for i in input_ids],
                    [[_shape_of(env[i]) for i in step.output_ids] for step in steps]))
        return [env[i] for i in output_ids]

    return program


def _shape_of(value: Any) -> tuple[str, tuple]:
    """A traced (or NumPy) value's dtype and concrete shape, read without computing it."""
    dtype = value.dtype if hasattr(value, "dtype") else np.asarray(value).dtype
    return str(np.dtype(dtype)), tuple(int(n) for n in np.shape(value))


def _through(hook: NodeHook, step: _Step, args: list[Any]) -> list[Any]:
    """Run a node through a per-node hook; the outputs it made the node compute."""
    thunk = NodeThunk(step, args)
    hook(step.index, step.node, thunk)  # errors of the hook itself reach the caller
    if thunk.outputs is None:
        raise RuntimeError(f"the per-node hook did not run node {step.index} "
                           f"({step.node.op.display_name()}): call fn() in the callback")
    return thunk.outputs


def _evaluate(node: Apply, rule: Callable[..., Any], args: list[Any]) -> Sequence[Any]:
    """Run a node on traced arrays, or at trace time when all its inputs are static.

    Inputs known while tracing (constants, and values computed from input *shapes*
    only) stay NumPy arrays and go through the op's NumPy ``perform``: shapes derived
    from input shapes thus stay static, as XLA requires, without recompiling.
    """
    if may_run_ahead(node.op) and all(type(a) is np.ndarray for a in args):
        # Arrays, not NumPy scalars: the next node must see them as known too
        # (``symnb.core.graph.static.known_while_tracing`` relies on it).
        return [np.asarray(v) for v in node.op.perform(node, args)]
    result = rule(*args)
    return result if isinstance(result, (tuple, list)) else (result,)


# -- where a failure happened -----------------------------------------------------------

def failing_node(failure: Any, program_nodes: Sequence[Apply], nodes: Sequence[Apply]) -> Place:
    """The place of the user's failing node in this function's graph (``nodes``): the
    node, its toposort index in its own graph, and the nodes holding that graph (a
    loop, a condition, or the Composite it was fused into), if any.

    The program may have been built for an equal graph compiled earlier (the compile
    cache), so the failure is located by position (in a walk that goes into inner
    graphs) and mapped onto this function's own nodes, whose creation sites are this
    function's.
    """
    for node, place in zip(walk_nodes(program_nodes), node_places(nodes)):
        if node is failure.node:
            return place
    # A rule that reported a node of its own.
    return Place(failure.node, failure.index, len(nodes), ())


def place_lines(place: Place, optimizer: Any = None) -> list[str]:
    """Where a failing node sits, for error reports, in the user's terms: each node
    holding its graph (innermost first) and the line that built it, or that the optimizer
    fused it (its positions in the toposort are :func:`place_details`)."""
    lines = []
    held = [*(h.node for h in place.enclosing[1:]), place.node]  # what each holder holds
    for holder, inner in reversed(list(zip(place.enclosing, held))):
        if isinstance(holder.node.op, Composite):
            level = f" ({optimizer!r})" if optimizer is not None else ""
            lines.append(f"The optimizer{level} fused this operation with others into one; "
                         f"the line above is where it was built.")
        else:
            role = role_holding(holder.node.op, inner)
            part = f" ({role} branch)" if role else ""
            lines.append(f"Inside {holder.node.op.display_name()}{part} {holder.node.site.describe()}")
    return lines


def place_details(place: Place) -> list[str]:
    """The failing node's toposort index in its graph, then each holder's (innermost
    first): shown under ``exception_verbosity='high'`` only."""
    lines = [f"Toposort index: {place.index} of {place.count}"
             + (" in its inner graph" if place.enclosing else "")]
    lines += [f"{holder.node.op.display_name()}: toposort index {holder.index} of {holder.count}"
              for holder in reversed(place.enclosing)]  # a fused chain's generated name too
    return lines


def _pattern_reader(nodes: Sequence[Apply], outputs: Sequence[Variable]) -> Callable[[Variable], bool]:
    """Whether the program reads which entries a sparse constant stores (lazily: only
    a graph with a sparse constant asks)."""
    found: list[set[int]] = []

    def reads(constant: Variable) -> bool:
        if not found:
            from symnb.core.sparse.ops import pattern_sources

            found.append(pattern_sources([*outputs, *(o for n in nodes for o in n.outputs)]))
        return id(constant) in found[0]

    return reads


def _program_data(constant: Constant, read_patterns: Callable[[Variable], bool]) -> Any:
    """A constant's value as the program holds it: a sparse constant's dense matrix."""
    to_program = getattr(constant.type, "to_program", None)
    if to_program is None:
        return constant.data
    return to_program(constant.data, "a sparse constant", read_patterns(constant))
