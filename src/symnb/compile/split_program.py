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
arrays are padded to the next power of two and the padding masked out, in every
program after the first (a middle program computing a later host node's inputs, as the
last), so a loop whose lengths change at every call compiles a handful of programs;
otherwise that program specializes per length and the function says which and why
(:attr:`SplitFunction.lengths`, ``lengths_reason``, and its profile). A program takes
only the host values it reads; a value a program computed from the arguments alone
that a later one needs (a ``scan_until`` loop's buffered rows, for its gradient) is
passed on, not computed again.

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
from symnb.compile.host_steps import NumpyPrelude, perform_on_host
from symnb.compile.specialize import HINTS, never_static_reason
from symnb.core.graph.basic import Apply, Constant, Place, Variable, ancestors, toposort
from symnb.core.graph.errors import label
from symnb.core.graph.op import Op
from symnb.core.graph.static import known_while_tracing
from symnb.core.graph.traceback_filter import api_boundary
from symnb.core.tensor import subtensor as st
from symnb.core.tensor import subtensor_index as si
from symnb.core.tensor.elemwise import Elemwise
from symnb.core.tensor.extra_ops import Unique
from symnb.core.tensor.shape import DimShuffle
from symnb.lower_xla.registry import static_inputs
from symnb.lower_xla.rules.python_op import shapes_known_only_by_running

__all__ = ["split_function", "host_nodes", "SplitFunction"]


def split_function(plan: FunctionPlan, make_function: Any, mode: Any = None,
                   profile: bool | None = None, in_shardings: Any = None,
                   out_shardings: Any = None, mesh: Any = None) -> "SplitFunction | None":
    """``plan`` compiled as a chain of programs, or None when its graph does not split
    (no host node, or one that cannot run on the host: the refusal then stands)."""
    graph = masks_as_nonzero(list(plan.graph_outputs + plan.update_exprs), plan.inputs)
    host = host_nodes(plan, graph)
    if not host or not all(_runs_on_host(node) for node in host):
        return None
    return SplitFunction(plan, graph, host, make_function, mode=mode, profile=profile,
                         in_shardings=in_shardings, out_shardings=out_shardings, mesh=mesh)


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
            made = st.AdvancedIncSubtensor(arrays, set_instead_of_inc=op.set_instead_of_inc).make_node(
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
    if shapes_known_only_by_running(node):
        return True  # a Python op whose output shapes only running it gives (Theano's way)
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
    """One program of the chain before a host step: a function of the arguments and of
    the values computed before it (``takes``: host outputs, and values of earlier
    programs passed on); ``host`` are the host nodes run on its results; ``passes``:
    per result position, the variable it holds (what later programs take)."""

    def __init__(self, function: Any, host: Sequence[Apply], takes: Sequence[Variable],
                 passes: Sequence[Variable], bucketed: Any = None) -> None:
        self.function = function  # the first program (or NumpyPrelude)
        self.bucketed = bucketed  # a later program: a LastStage (per bucket, or per length)
        self.host = list(host)
        self.takes = list(takes)
        self.passes = list(passes)

    @property
    def program(self) -> Any:
        """The compiled function (or ``NumpyPrelude``) this stage runs."""
        return self.function if self.bucketed is None else self.bucketed.function

    def run(self, arrays: list[Any], taken: list[Any], call: Any = None) -> list[Any]:
        """The program's results; ``call`` runs the program (default: the compiled one)."""
        if self.bucketed is None:
            return (call or self.function)(*arrays, *taken)
        return self.bucketed.run(arrays, taken, single=False, call=call)


class SplitFunction:
    """A compiled function run as a chain: XLA programs, with the host nodes between
    them (see the module's docstring). Called like :class:`~symnb.compile.function.Function`.

    ``lengths`` says how the programs after the first are specialized: ``'buckets'``
    (padded to the next power of two, the padding masked out) or ``'per length'`` (one
    program per distinct length, for at least one of them), with ``lengths_reason``
    saying which program and why buckets could not be used."""

    def __init__(self, plan: FunctionPlan, graph: list[Variable], host: Sequence[Apply],
                 make_function: Any, mode: Any = None, profile: bool | None = None,
                 in_shardings: Any = None, out_shardings: Any = None, mesh: Any = None) -> None:
        """``graph``: the outputs, then the new values of the updated shared variables
        (``plan``'s, reads by a mask as reads by its ``nonzero``); ``host``: the nodes run
        on the host (:func:`host_nodes`); ``make_function``: ``sn.function``.
        ``in_shardings`` (the function's inputs') and ``mesh`` apply to every program,
        ``out_shardings`` to the last (whose outputs are the function's)."""
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
        # Each host output, and each value a program computed that a later one reads
        # (a scan_until loop's buffer, for its gradient), -> the argument standing for it.
        fresh: dict[Variable, Variable] = {}
        self._stages: list[_Stage] = []
        common = dict(mode=mode, profile=profile, on_unused_input="ignore", no_default_updates=True,
                      mesh=mesh, in_shardings=_by_input(self.inputs, in_shardings, mesh))
        how: list[tuple[int, str, str]] = []  # (program number, lengths, why not buckets)
        for level in range(1, depth + 1):
            run = [n for n in self.host_nodes if levels[id(n)] == level]
            needed = _unique(v for n in run for v in n.inputs if not isinstance(v, Constant))
            name = self._stage_name(level)
            if level == 1:
                function = NumpyPrelude.make(self.inputs, needed)
                if function is None:
                    function = make_function(self.inputs, needed, name=name, **common)
                stage = _Stage(function, run, [], needed)
            else:  # a program taking host values: per length bucket where padding is exact
                earlier = [n for n in self.host_nodes if levels[id(n)] < level]
                takes = _used(fresh, needed)
                made, lengths, reason = bucketed_stage(
                    needed, takes, _groups_in(_length_groups(earlier), takes), self.inputs,
                    len(needed), [], make_function, dict(common, name=name))
                stage = _Stage(None, run, list(takes), needed, bucketed=made)
                how.append((level, lengths, reason))
            self._stages.append(stage)
            for node in run:
                for out in node.outputs:
                    fresh[out] = _argument_like(out)
            for var in needed:
                if var not in fresh and _passed_on(var, self.host_nodes):
                    fresh[var] = _argument_like(var)
            # Where each host node finds its inputs: the stage's outputs, or constants.
            position = {id(v): i for i, v in enumerate(needed)}
            for node in run:
                self._inputs_of[id(node)] = [("constant", v.data) if isinstance(v, Constant)
                                             else ("result", position[id(v)]) for v in node.inputs]
        takes = _used(fresh, graph)
        self._host_values = list(takes)  # what the last program takes, in order
        last, lengths, reason = bucketed_stage(
            graph, takes, _groups_in(_length_groups(self.host_nodes), takes), self.inputs,
            len(plan.graph_outputs),
            self.updated_shared, make_function,
            dict(common, name=self._stage_name(depth + 1), out_shardings=out_shardings))
        how.append((depth + 1, lengths, reason))
        self._last = last
        per_length = [(number, why) for number, lengths, why in how if lengths != "buckets"]
        #: ``'buckets'`` when every program after the first is compiled per length bucket,
        #: else ``'per length'`` (``lengths_reason`` says which program and why).
        self.lengths = "per length" if per_length else "buckets"
        self.lengths_reason = "; ".join(
            (f"program {number} of {self._count}: {why}" if depth > 1 else why)
            for number, why in per_length)
        #: ``(in_shardings, out_shardings)`` of the last program (its inputs: the
        #: function's, then the host values; its outputs: the function's, then the
        #: updates), or None when nothing is sharded: each program of the chain takes
        #: the function's inputs with the same shardings.
        self.shardings = last.function.shardings
        #: The profile of the last program (``profile=True``): the one compiled per length
        #: or bucket; its summary says which, and why not buckets.
        self.profile = last.function.profile
        if self.profile is not None:
            why = f" ({self.lengths_reason})" if self.lengths_reason else ""
            self.profile.note = (f"The last of {self._count} programs (host nodes between them: "
                                 f"{', '.join(n.op.display_name() for n in self.host_nodes)}), "
                                 f"{'each after the first ' if depth > 1 else ''}compiled "
                                 f"{'per length bucket' if self.lengths == 'buckets' else 'per length'}{why}.")

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
        arguments is computed in NumPy instead, ``NumpyPrelude``)."""
        return [stage.program for stage in self._stages] + [self._last.function]

    def compiled_programs(self) -> int:
        """How many XLA programs the chain has traced so far (per argument shape: each
        distinct length, or bucket, costs one in a later program)."""
        return sum(f._program.traces for f in self.programs if not isinstance(f, NumpyPrelude))

    @api_boundary  # the user calls it: errors show the user's line
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        call = self._call_spec
        return self.run_chain(list(call.checks(call.bind(args, kwargs))), call.single)

    def run_chain(self, arrays: list[Any], single: bool, calls: Sequence[Any] | None = None,
                  before_host: Any = None) -> Any:
        """The outputs for the checked arguments ``arrays``: each program, then its host
        nodes on its results. ``calls``: per program (``programs``' order), what runs it
        (default: the compiled functions; ``as_jax`` passes JAX functions);
        ``before_host(node, inputs)`` sees a host node's inputs before it runs."""
        calls = list(calls) if calls is not None else [None] * len(self.programs)
        values: dict[int, Any] = {}  # id(host output, or value passed on) -> its array
        for stage, run in zip(self._stages, calls):
            results = stage.run(arrays, [values[id(v)] for v in stage.takes], run)
            values.update(zip(map(id, stage.passes), results))
            for node in stage.host:
                inputs = [data if kind == "constant" else results[data]
                          for kind, data in self._inputs_of[id(node)]]
                if before_host is not None:
                    before_host(node, inputs)
                values.update(zip(map(id, node.outputs), perform_on_host(node, inputs)))
        host = [values[id(v)] for v in self._host_values]
        return self._last.run(arrays, host, single, calls[-1])

    def as_jax(self) -> tuple[Any, dict[str, Any]]:
        """The chain as a JAX function: ``fn, params = f.as_jax()``, then ``outputs,
        new_params = fn(params, *inputs)``, as :meth:`Function.as_jax` (each program is
        its ``as_jax`` function, under ``jax.jit``; the host steps run between them).
        The host steps need concrete values: ``fn`` is called directly, not under a JAX
        transformation (``jax.jit``, ``jax.grad``, ``jax.vmap`` refuse, naming the host
        step; transform each program's ``as_jax`` instead)."""
        from symnb.compile.as_jax import chain_as_jax

        return chain_as_jax(self)

    def lowered_text(self, stage: str = "stablehlo", *args: Any) -> str:
        """Refused, with what to do: a split function is several programs (each
        program's ``lowered_text``: ``f.programs[i]``), whose later ones take the host
        values, padded to their bucket, so their text depends on the call."""
        raise TypeError(f"{self.name or 'this split function'} runs {len(self.programs)} "
                        f"programs with host steps between them "
                        f"({', '.join(n.op.display_name() for n in self.host_nodes)}): it has no "
                        f"one lowered text; read each program's, f.programs[i].lowered_text(...) "
                        f"(a program after the first takes the host values as extra arguments)")

    def __repr__(self) -> str:
        return (f"<SplitFunction {self.name or ''}: {len(self.programs)} programs, "
                f"host nodes {[n.op.display_name() for n in self.host_nodes]}, "
                f"lengths {self.lengths}>")


def _by_input(inputs: list[Variable], given: Any, mesh: Any) -> dict[Variable, Any] | None:
    """``in_shardings`` (a list parallel to the inputs, or a dict) as ``{input:
    sharding}``: every program of the chain takes the function's inputs first, then
    values of its own (unsharded)."""
    if given is None:
        return None
    from symnb.compile.sharding import input_shardings

    found = {var: sharding for var, sharding in zip(inputs, input_shardings(inputs, given, mesh))
             if sharding is not None}
    return found or None


def _used(fresh: dict[Variable, Variable], graph: Sequence[Variable]) -> dict[Variable, Variable]:
    """The entries of ``fresh`` that ``graph`` reads: a program takes no value it does
    not read (its padded shape would key programs for nothing)."""
    read = {id(v) for v in ancestors(list(graph), blockers=list(fresh))}
    return {k: v for k, v in fresh.items() if id(k) in read}


def _groups_in(groups: list[list[Variable]], taken: dict[Variable, Variable]) -> list[list[Variable]]:
    """``groups`` (of one length each) restricted to the values a program takes."""
    kept = [[v for v in group if v in taken] for group in groups]
    return [group for group in kept if group]


def _passed_on(var: Variable, host: Sequence[Apply]) -> bool:
    """Whether later programs take ``var`` (a host node's input, computed by a program)
    as an argument rather than compute it again: when it is computed, and from no host
    value (its length is then fixed by the arguments' shapes; a value of a run-time
    length is better computed again from its host values, padded to their bucket)."""
    if var.owner is None:
        return False
    made_on_host = {id(out) for node in host for out in node.outputs}
    return not any(id(v) in made_on_host for v in ancestors([var]))


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

