"""Lengths known only at run time: a compiled function run as a chain of programs.

XLA compiles for static shapes. A node whose output length depends on values
(``nonzero`` of a run-time value read by an index, ``x[mask]``, ``Unique``,
``T.arange(n)`` with ``n`` computed from a large input...) cannot be in the program.
``sn.function`` then (instead of refusing) splits the graph at those nodes (the *host
nodes*, :func:`host_nodes`):

1. an XLA program computes the host nodes' inputs from the function's inputs;
2. the host nodes run on the host with NumPy (their ``perform``, the reference their
   test values come from), giving arrays of a concrete length;
3. an XLA program computes the rest (outputs and updates) from the function's inputs
   and those arrays. A host node fed by another host node makes a longer chain.

A later program sees the lengths as the shapes of its arguments: it is compiled once per
distinct length (``jax.jit`` keys its executables, and symnb's disk cache its entries,
by argument shapes). Where padding is exact (``symnb.compile.split_buckets``), the
arrays are padded to the next power of two and the padding masked out, so a loop whose
lengths change at every call compiles a handful of programs; otherwise the function
specializes per length and says so (:attr:`SplitFunction.lengths`, and its profile).

Shared variables are updated by the last program only, and only when the whole chain
succeeded: a call that fails anywhere leaves them as they were.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.compile.call import CallSpec
from symnb.compile.dynamic_shapes import (
    _has_runtime_mask, _is_known, _mask_alone,
)
from symnb.compile.plan import FunctionPlan
from symnb.compile.specialize import HINTS, never_static_reason
from symnb.core.graph.basic import Apply, Constant, Place, Variable, ancestors, clone_replace, toposort
from symnb.core.graph.errors import label, node_error
from symnb.core.graph.op import Op
from symnb.core.graph.static import known_while_tracing
from symnb.core.graph.traceback_filter import api_boundary
from symnb.core.tensor import subtensor as st
from symnb.core.tensor import subtensor_index as si
from symnb.core.tensor.elemwise import Elemwise
from symnb.core.tensor.extra_ops import Unique
from symnb.core.tensor.shape import DimShuffle
from symnb.lower_xla.registry import static_inputs

__all__ = ["split_function", "host_nodes", "SplitFunction"]


def split_function(plan: FunctionPlan, make_function: Any, mode: Any = None,
                   profile: bool | None = None) -> "SplitFunction | None":
    """``plan`` compiled as a chain of programs, or None when its graph does not split
    (no host node, or one that cannot run on the host: the refusal then stands)."""
    graph = masks_as_nonzero(list(plan.graph_outputs + plan.update_exprs), plan.inputs)
    host = host_nodes(plan, graph)
    if not host or not all(_runs_on_host(node) for node in host):
        return None
    return SplitFunction(plan, graph, host, make_function, mode=mode, profile=profile)


def masks_as_nonzero(outputs: list[Variable], inputs: Sequence[Variable]) -> list[Variable]:
    """``outputs`` with each ``x[mask]`` and ``set/inc_subtensor(x[mask], y)`` of a
    run-time mask (the mask alone) indexed by ``mask.nonzero()`` instead, as NumPy
    defines it: the host then computes the indices only (``x`` stays on the device),
    the read and its gradient's increment share them, and their padding is exact
    (``split_buckets``)."""
    nodes = toposort(outputs, inputs)
    known = known_while_tracing(nodes)
    nonzero: dict[Any, list[Variable]] = {}  # a mask's signature -> its indices
    signatures: dict[int, Any] = {}
    replace: dict[Variable, Variable] = {}
    for node in nodes:
        op = node.op
        if not (isinstance(op, (st.AdvancedSubtensor, st.AdvancedIncSubtensor))
                and len(op.idx_list) == 1 and _has_runtime_mask(node, known)):
            continue
        mask = node.inputs[-1]
        key = _signature(mask, signatures)  # x[x > 0] written twice: one length
        if key not in nonzero:
            found = st.Nonzero().make_node(mask)
            found.site = node.site
            nonzero[key] = found.outputs
        indices = nonzero[key]
        arrays = (si.ARRAY,) * len(indices)
        if isinstance(op, st.AdvancedSubtensor):
            made = st.AdvancedSubtensor(arrays).make_node(node.inputs[0], *indices)
        else:
            made = st.AdvancedIncSubtensor(arrays, op.set_instead_of_inc).make_node(
                node.inputs[0], node.inputs[1], *indices)
        made.site = node.site
        replace[node.outputs[0]] = made.outputs[0]
    if not replace:
        return outputs
    # Replaced from the outputs down: a rewritten read may read another one.
    return _replace_all(outputs, replace)


#: Ops computing the same value from the same inputs, with no effect nor draw: two masks
#: built alike by them are one mask.
_PURE = (Elemwise, DimShuffle, st.Subtensor)


def _signature(var: Variable, memo: dict[int, Any]) -> Any:
    """A key equal for variables computed alike (the same pure ops on the same roots
    and equal constants)."""
    if id(var) in memo:
        return memo[id(var)]
    if isinstance(var, Constant):
        data = np.asarray(var.data)
        key: Any = ("constant", str(data.dtype), data.shape, data.tobytes())
    elif var.owner is None or not isinstance(var.owner.op, _PURE):
        key = ("variable", id(var))
    else:
        node = var.owner
        key = (type(node.op), node.op._props(), var.index,
               tuple(_signature(v, memo) for v in node.inputs))
    memo[id(var)] = key
    return key


def _replace_all(outputs: list[Variable], replace: dict[Variable, Variable]) -> list[Variable]:
    """``clone_replace`` where the replacements' own inputs are replaced too."""
    mapping: dict[int, Variable] = {}
    by_id = {id(k): v for k, v in replace.items()}
    for node in toposort(outputs):
        inputs = [mapping.get(id(v), v) for v in node.inputs]
        outs = node.outputs
        if any(a is not b for a, b in zip(inputs, node.inputs)):
            made = node.op.make_node(*inputs)
            made.site = node.site
            for old, new in zip(outs, made.outputs):
                new.name = old.name
                mapping[id(old)] = new
        for out in outs:
            if id(out) in by_id:
                target = by_id[id(out)]
                target_node = target.owner
                inputs = [mapping.get(id(v), v) for v in target_node.inputs]
                if all(a is b for a, b in zip(inputs, target_node.inputs)):
                    mapping[id(out)] = target
                    continue
                made = target_node.op.make_node(*inputs)
                made.site = target_node.site
                mapping[id(out)] = made.outputs[target.index]
    return [mapping.get(id(v), v) for v in outputs]


def host_nodes(plan: FunctionPlan, outputs: list[Variable]) -> list[Apply]:
    """The nodes of the graph of ``outputs`` (``plan``'s, not of loop bodies or
    branches) whose output lengths depend on values no program can know while tracing,
    in execution order.

    A node is decided after the nodes above it: one whose length depends on a host
    node's output (``x[mask]`` with ``mask`` computed from ``Unique``'s values) is one
    too. Empty when nothing needs the host."""
    nodes = toposort(outputs, plan.inputs)
    known = known_while_tracing(nodes)
    program_inputs = list(plan.program_inputs)
    found: list[Apply] = []
    host_outputs: set[int] = set()
    for index, node in enumerate(nodes):
        if _needs_host(node, Place(node, index, len(nodes), ()), known, program_inputs,
                       len(plan.inputs), host_outputs):
            found.append(node)
            host_outputs.update(id(v) for v in node.outputs)
    return found


def _needs_host(node: Apply, place: Place, known: set[int], program_inputs: list,
                n_arguments: int, host_outputs: set[int]) -> bool:
    op = node.op
    if all(_is_known(v, known) for v in node.inputs):
        return False  # computed ahead of the program: its lengths are known
    if op.length_from_values:
        return True
    if isinstance(op, (st.Nonzero, st.FlatNonzero)):
        # Its padding in a program would be harmless as the index of an increment, but the
        # function splits anyway: on the host, the increment may share the length of a read.
        return True
    if isinstance(op, st.AdvancedSubtensor) and _has_runtime_mask(node, known):
        return True
    if isinstance(op, st._IndexOp) and _has_runtime_mask(node, known) and not _mask_alone(node):
        return True
    for position, role in _static_inputs_after_cut(node, host_outputs).items():
        var = node.inputs[position]
        if _is_known(var, known):
            continue
        if any(id(v) in host_outputs for v in ancestors([var])):
            return True  # a length computed from a host node's values
        if never_static_reason(var, place, program_inputs, n_arguments, HINTS[role], known):
            return True
    return False


def _static_inputs_after_cut(node: Apply, host_outputs: set[int]) -> dict[int, str]:
    """``static_inputs`` of ``node`` as a later program sees it: its inputs computed on
    the host are arguments there (a read indexed by a ``nonzero`` run on the host takes
    plain index arrays, which need no value while tracing)."""
    if not any(id(v) in host_outputs for v in node.inputs):
        return static_inputs(node.op, node)
    cut = node.op.make_node(*(_argument_like(v) if id(v) in host_outputs else v
                              for v in node.inputs))
    return static_inputs(cut.op, cut)


def _runs_on_host(node: Apply) -> bool:
    """Whether ``node`` can run on the host: it has a NumPy ``perform``, and holds no
    graph of its own (a loop whose body needs a run-time length is still refused: run
    on the host, its whole body would run in Python, step by step)."""
    return type(node.op).perform is not Op.perform and not node.op.inner_graphs


class _Stage:
    """One program of the chain: a function of the arguments and the host values
    computed before it; ``host`` are the host nodes run on its results."""

    def __init__(self, function: Any, host: Sequence[Apply]) -> None:
        self.function = function
        self.host = list(host)


class _NumpyPrelude:
    """A first part computed in NumPy: a few elementwise operations on the arguments
    (``labels >= 0``, ``x > 0``), where a program would cost a dispatch and two
    transfers for the work of a loop over the array."""

    #: The ops that may run so: elementwise, no draw, no effect.
    OPS = (Elemwise, DimShuffle)
    #: At most this many nodes.
    MAX_NODES = 8

    def __init__(self, arguments: list[Variable], outputs: list[Variable],
                 nodes: list[Apply]) -> None:
        self.arguments, self.outputs, self.nodes = arguments, outputs, nodes

    @classmethod
    def make(cls, arguments: list[Variable], outputs: list[Variable]) -> "_NumpyPrelude | None":
        nodes = toposort(outputs, arguments)
        if len(nodes) > cls.MAX_NODES or not all(isinstance(n.op, cls.OPS) for n in nodes):
            return None
        given = {id(v) for v in arguments}
        for node in nodes:
            if any(v.owner is None and id(v) not in given and not isinstance(v, Constant)
                   for v in node.inputs):
                return None  # a shared variable: read by the programs, under their locks
        return cls(arguments, outputs, nodes)

    def __call__(self, *values: Any) -> list[np.ndarray]:
        known = {id(v): np.asarray(a) for v, a in zip(self.arguments, values)}
        for node in self.nodes:
            inputs = [v.data if isinstance(v, Constant) else known[id(v)] for v in node.inputs]
            known.update(zip(map(id, node.outputs), _perform(node, inputs)))
        return [known[id(v)] if id(v) in known else v.data for v in self.outputs]


class SplitFunction:
    """A compiled function run as a chain: XLA programs, with the host nodes between
    them (see the module's docstring). Called like :class:`~symnb.compile.function.Function`.

    ``lengths`` says how each later program is specialized: ``'buckets'`` (padded to the
    next power of two, the padding masked out) or ``'per length'`` (one program per
    distinct length), with ``lengths_reason`` saying why buckets could not be used."""

    def __init__(self, plan: FunctionPlan, graph: list[Variable], host: Sequence[Apply],
                 make_function: Any, mode: Any = None, profile: bool | None = None) -> None:
        """``graph``: the outputs, then the new values of the updated shared variables
        (``plan``'s, reads by a mask as reads by its ``nonzero``); ``host``: the nodes run
        on the host (:func:`host_nodes`); ``make_function``: ``sn.function``."""
        from symnb.compile.split_buckets import bucketed_stage

        self._inputs_of: dict[int, list] = {}  # per host node: where its inputs come from
        self._maker, self._mode = None, mode
        self.plan = plan
        self._make_function = make_function
        self.name = plan.name
        self.inputs = list(plan.inputs)
        self.outputs = list(plan.outputs)
        self.updated_shared = list(plan.updated_shared)
        self.host_nodes = list(host)
        #: The nodes of the whole chain in execution order (what ``debugprint`` shows;
        #: reads by a mask as reads by its ``nonzero``).
        self.nodes = toposort(graph, plan.inputs)
        self._call_spec = CallSpec(plan)
        levels = _levels(graph, plan.inputs, self.host_nodes)
        depth = max(levels.values())
        self._count = depth + 1
        fresh: dict[Variable, Variable] = {}  # each host output -> the argument standing for it
        self._stages: list[_Stage] = []
        common = dict(mode=mode, profile=profile, on_unused_input="ignore", no_default_updates=True)
        for level in range(1, depth + 1):
            run = [n for n in self.host_nodes if levels[id(n)] == level]
            needed = _unique(v for n in run for v in n.inputs if not isinstance(v, Constant))
            arguments = self.inputs + list(fresh.values())
            values = clone_replace(needed, dict(fresh))
            function = _NumpyPrelude.make(arguments, values)
            if function is None:
                function = make_function(arguments, values, name=self._stage_name(level), **common)
            self._stages.append(_Stage(function, run))
            for node in run:
                for out in node.outputs:
                    fresh[out] = _argument_like(out)
            # Where each host node finds its inputs: the stage's outputs, or constants.
            position = {id(v): i for i, v in enumerate(needed)}
            for node in run:
                self._inputs_of[id(node)] = [("constant", v.data) if isinstance(v, Constant)
                                             else ("result", position[id(v)]) for v in node.inputs]
        self._host_values = list(fresh)  # host outputs, in the order the last program takes them
        last, self.lengths, self.lengths_reason = bucketed_stage(
            graph, fresh, _length_groups(self.host_nodes), self.inputs, len(plan.graph_outputs),
            self.updated_shared, make_function, dict(common, name=self._stage_name(depth + 1)))
        self._last = last
        #: The profile of the last program (``profile=True``): the one compiled per length
        #: or bucket; its summary says which, and why not buckets.
        self.profile = last.function.profile
        if self.profile is not None:
            why = f" ({self.lengths_reason})" if self.lengths_reason else ""
            self.profile.note = (f"The last of {self._count} programs (host nodes between them: "
                                 f"{', '.join(n.op.display_name() for n in self.host_nodes)}), "
                                 f"compiled {'per length bucket' if self.lengths == 'buckets' else 'per length'}{why}.")

    def __reduce__(self) -> tuple:
        """Pickled as ``Function`` is: rebuilt from ``sn.function``'s arguments."""
        from symnb.compile.pickling import function_reduce

        return function_reduce(self, self._make_function)

    @api_boundary  # the user calls it: errors show the user's line
    def copy(self, share_memory: bool = False, swap: Any = None, delete_updates: bool = False,
             name: str | None = None, profile: bool | None = None) -> Any:
        """Theano's ``Function.copy``, as :meth:`Function.copy` (compiled again)."""
        from symnb.compile.pickling import copied_function

        return copied_function(self, swap, delete_updates, name, profile, self._make_function)

    def _stage_name(self, number: int) -> str:
        """How messages name program ``number`` of the chain."""
        return f"{self.name or 'split function'}, program {number} of {self._count}"

    @property
    def maker(self) -> Any:
        """Theano's compile-time record (``f.maker.fgraph``): the whole graph, rewritten at
        the mode's level as a :class:`~symnb.compile.function.Function`'s is, host nodes
        included (made when first read: the chain's programs have their own)."""
        if self._maker is None:
            from symnb.compile.maker import FunctionMaker
            from symnb.compile.mode import get_mode

            self._maker = FunctionMaker(list(self.plan.program_inputs),
                                        list(self.plan.graph_outputs + self.plan.update_exprs),
                                        get_mode(self._mode))
        return self._maker

    @property
    def programs(self) -> list[Any]:
        """The parts of the chain before each host step, then the last program, in the
        order they run: compiled functions (a first part of a few elementwise ops on the
        arguments is computed in NumPy instead, ``_NumpyPrelude``)."""
        return [stage.function for stage in self._stages] + [self._last.function]

    def compiled_programs(self) -> int:
        """How many XLA programs the chain has traced so far (per argument shape: each
        distinct length, or bucket, costs one in a later program)."""
        return sum(f._program.traces for f in self.programs if not isinstance(f, _NumpyPrelude))

    @api_boundary  # the user calls it: errors show the user's line
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        call = self._call_spec
        arrays = list(call.checks(call.bind(args, kwargs)))
        values: dict[int, np.ndarray] = {}  # id(host output) -> its array
        for stage in self._stages:
            results = stage.function(*arrays, *(values[id(v)] for v in self._fresh_before(stage)))
            for node in stage.host:
                values.update(zip(map(id, node.outputs), _perform(node, [
                    data if kind == "constant" else results[data]
                    for kind, data in self._inputs_of[id(node)]])))
        host = [values[id(v)] for v in self._host_values]
        return self._last.run(arrays, host, call.single)

    def _fresh_before(self, stage: _Stage) -> list[Variable]:
        """The host outputs a stage takes, in order (those of the stages before it)."""
        taken = []
        for earlier in self._stages:
            if earlier is stage:
                break
            taken += [out for node in earlier.host for out in node.outputs]
        return taken

    def __repr__(self) -> str:
        return (f"<SplitFunction {self.name or ''}: {len(self.programs)} programs, "
                f"host nodes {[n.op.display_name() for n in self.host_nodes]}, "
                f"lengths {self.lengths}>")


def _perform(node: Apply, inputs: list[Any]) -> list[np.ndarray]:
    """``node``'s outputs computed by its NumPy ``perform``; its failure names the
    node and the user's line that built it."""
    try:
        outputs = node.op.perform(node, [np.asarray(v) for v in inputs])
    except Exception as error:
        raise node_error(type(error) if isinstance(error, (ValueError, IndexError, TypeError))
                         else RuntimeError, node,
                         f"{type(error).__name__} in {node.op.display_name()} (run on the host, "
                         f"between two compiled programs): {error}",
                         values=inputs) from None
    return [np.asarray(v, dtype=out.dtype) for v, out in zip(outputs, node.outputs)]


def _levels(graph: list[Variable], inputs: Sequence[Variable],
            host: Sequence[Apply]) -> dict[int, int]:
    """Per host node, its place in the chain: 1 + the most host nodes above it."""
    is_host = {id(n) for n in host}
    depth: dict[int, int] = {}
    levels: dict[int, int] = {}
    for node in toposort(graph, inputs):
        above = max((depth.get(id(v), 0) for v in node.inputs), default=0)
        if id(node) in is_host:
            levels[id(node)] = above = above + 1
        for out in node.outputs:
            depth[id(out)] = above
    return levels


def _length_groups(host: Sequence[Apply]) -> list[list[Variable]]:
    """The host outputs whose first axis has a run-time length, grouped by length: the
    outputs of one ``nonzero`` have one; ``Unique``'s values, first indices and counts
    one (its inverse has the input's size); any other output its own."""
    groups = []
    for node in host:
        outputs = [v for v in node.outputs if v.ndim > 0 and v.type.shape[0] is None]
        if isinstance(node.op, (st.Nonzero, st.FlatNonzero)):
            groups.append(outputs)
            continue
        if isinstance(node.op, Unique):
            if node.op.return_inverse:
                inverse = node.outputs[1 + node.op.return_index]
                groups.append([inverse] if any(inverse is v for v in outputs) else [])
                outputs = [v for v in outputs if v is not inverse]
            values = node.outputs[0]
            if node.op.axis is not None and node.op.axis % values.ndim != 0:
                # The distinct slices lie along another axis: the values' first axis is
                # the input's, not the count of the index and counts outputs.
                groups.append([v for v in outputs if v is values])
                outputs = [v for v in outputs if v is not values]
            groups.append(outputs)
            continue
        if node.op.length_from_values:
            groups.append(outputs)
            continue
        groups += [[v] for v in outputs]
    return [g for g in groups if g]


def _argument_like(var: Variable) -> Variable:
    """A new root variable standing for ``var`` (a host node's output) in the next
    programs, named after it."""
    fresh = type(var)(var.type, name=label(var))
    if var._test_value is not None:
        fresh._test_value = var._test_value
    return fresh


def _unique(variables: Any) -> list[Variable]:
    seen: set[int] = set()
    kept = []
    for var in variables:
        if id(var) not in seen:
            seen.add(id(var))
            kept.append(var)
    return kept

