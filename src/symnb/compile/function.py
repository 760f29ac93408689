"""``sn.function``: a graph compiled into one ``jax.jit`` program.

Shared variables live on the device; those with updates are donated to the program
and replaced by its results only after the call succeeds (a program whose checks
fail returns their old values, which are put back). A call holds the locks of
the shared variables it reads or updates (``holding``), so calls from several
threads never see a donated buffer nor lose an update; a function without shared
variables takes no lock. Outputs are writable NumPy arrays the caller owns, of exactly
the graph's dtypes: programs that touch 64-bit dtypes are traced and run under
``jax.enable_x64``, a scoped setting, so the user's global JAX configuration is never
changed (values cross into JAX only inside that scope).
"""

from __future__ import annotations

import contextlib
import operator
import threading
import weakref
from typing import Any, Callable, Sequence

import jax
import numpy as np

from symnb.compile.call import CallSpec
from symnb.compile.call_values import with_call_values
from symnb.compile.container import FunctionContainers
from symnb.compile.construction import MissingInputError, UnusedInputError
from symnb.compile.dynamic_shapes import check_dynamic_shapes
from symnb.compile.footprint import high_verbosity_details, is_out_of_memory, out_of_memory_error
from symnb.compile.devices import call_context, x64_scope
from symnb.compile.fast_path import fast_path
from symnb.compile.input_values import InputValues
from symnb.compile.io import convert_shortcuts, expand_inputs, unwrap_outputs
from symnb.compile.maker import FunctionMaker
from symnb.compile.plan import FunctionPlan, plan_function
from symnb.compile.mode import Mode, get_mode
from symnb.compile.profiling.stats import ProfileStats
from symnb.compile.sharding import as_sharding, input_shardings, output_shardings
from symnb.compile.split_program import split_function
from symnb.compile.specialize import check_specializable, check_static_values, value_sources
from symnb.core.graph.collector import collector_paused
from symnb.core.graph.config import config
from symnb.core.graph.errors import (
    SymnbError, error_from_record, label, node_record,
)
from symnb.core.graph.basic import Variable
from symnb.core.tensor.shared import lock_order
from symnb.core.graph.type import describe_shape
from symnb.lower_xla.cache import ChangedShape, Program
from symnb.lower_xla.checks import (
    FailedCheck, failed_check_error, raise_failed_check, runtime_error_class,
)
from symnb.lower_xla.interpreter import NodeFailure, failing_node, place_details, place_lines
from symnb.lower_xla.rules.python_op import take_failure
from symnb.lower_xla.registry import DynamicShapeError, StaticValueRequired
from symnb.core.graph.traceback_filter import api_boundary, hide_library_frames

__all__ = ["function", "Function", "MissingInputError", "UnusedInputError", "evaluate"]

# MissingInputError and UnusedInputError are raised by compile/construction.py's checks.


@api_boundary  # errors show the user's line: core/graph/traceback_filter.py
def function(inputs: Sequence[Variable], outputs: Any = None, updates: Any = None,
             givens: Any = None, mode: Any = None, profile: bool | None = None,
             name: str | None = None, allow_input_downcast: bool | None = None,
             on_unused_input: str = "raise", no_default_updates: Any = False,
             in_shardings: Any = None, out_shardings: Any = None, mesh: Any = None,
             profile_memory: bool | None = None, accept_inplace: bool = False,
             rebuild_strict: bool = True) -> "Function":
    """Compile ``outputs`` as a function of ``inputs`` into a single XLA program.

    ``accept_inplace`` (Theano's: whether the graph may hold in-place ops) is accepted
    and has no effect: symnb has no in-place ops (XLA decides buffer reuse).
    ``rebuild_strict=True`` is Theano's default (a ``givens`` replacement has the dtype and
    number of dimensions of the variable it replaces); ``False`` takes a replacement of
    another type, and the graph above it is rebuilt with the types its ops then give (a
    vector replaced by a matrix: ``x * y`` becomes a matrix), as Theano's rebuild did.

    ``updates`` (pairs or a dict ``shared -> new value expression``) are applied after
    each successful call; ``givens`` substitutes variables in the graph before compiling.
    The shared variables the graph reads that carry a ``default_update`` are updated
    too, unless ``no_default_updates`` is True or lists them (as in Theano).

    Over several devices (``symnb.compile.sharding``): ``in_shardings`` (a dict
    ``{input: sharding}`` or a list parallel to ``inputs``) and ``out_shardings`` (one
    sharding for every output, or a list) are JAX shardings (``NamedSharding``, a
    ``Mesh``, ``(mesh, PartitionSpec)``, or a ``PartitionSpec`` with ``mesh=``); shared
    variables use their own ``sharding``. The function is then one SPMD program,
    partitioned by XLA.

    ``profile=True`` records the calls (``f.profile``: time per call, compiles, flops,
    transfers, per-node and per-line tables); ``profile_memory=True`` (which implies it)
    adds the program's peak memory and largest values (defaults: ``sn.config.profile``
    and ``sn.config.profile_memory``).

    Theano's input shortcuts are accepted: ``(x, 1.0)`` is ``sn.In(x, value=1.0)``,
    ``((s, s + x), 0.0)`` a state (see :func:`symnb.compile.io.convert_function_input`).
    """
    inputs = convert_shortcuts(inputs, updates, givens, profile)
    construction = dict(inputs=inputs, outputs=outputs, updates=updates, givens=givens,
                        mode=mode, profile=profile, name=name,
                        allow_input_downcast=allow_input_downcast,
                        on_unused_input=on_unused_input, no_default_updates=no_default_updates,
                        in_shardings=in_shardings, out_shardings=out_shardings, mesh=mesh,
                        profile_memory=profile_memory, rebuild_strict=rebuild_strict)
    spec = expand_inputs(inputs)  # sn.In: defaults, keywords, state (compile/io.py)
    # Checking, copying, rewriting and lowering the graph make many objects that all
    # stay alive: collections would only re-scan them (see collector_paused).
    with collector_paused():
        plan = plan_function(spec, unwrap_outputs(outputs), spec.merged_updates(updates),
                             spec.merged_givens(givens), name=name,
                             allow_input_downcast=allow_input_downcast,
                             on_unused_input=on_unused_input,
                             no_default_updates=no_default_updates, construction=construction,
                             rebuild_strict=rebuild_strict)
        try:
            return Function(plan, mode=mode, profile=profile, in_shardings=in_shardings,
                            out_shardings=out_shardings, mesh=mesh, profile_memory=profile_memory)
        except DynamicShapeError:
            # A length known only at run time: a chain of programs, when the graph splits.
            split = split_function(plan, function, mode=mode, profile=profile,
                                   in_shardings=in_shardings, out_shardings=out_shardings,
                                   mesh=mesh)
            if split is None:
                raise
            return split


#: What a call may replace after construction, under ``Function._state_lock``: the
#: program (re-specialized on values, or rebuilt without donation) and its call path.
_REBUILT = frozenset({"_program", "_invoke", "_static", "_donating"})


class Function:
    """A compiled function. Call it with arrays; it returns NumPy arrays."""

    #: Theano's ``f.trust_input = True`` (skip the checks of the arguments) may be set;
    #: symnb still checks them (the check is cheap next to a call, and a wrong argument
    #: must never give a silent wrong number).
    trust_input: bool = False

    def __init__(self, plan: FunctionPlan, mode: Any = None, profile: bool | None = None,
                 in_shardings: Any = None, out_shardings: Any = None, mesh: Any = None,
                 profile_memory: bool | None = None) -> None:
        """The function ``plan`` describes (see :func:`symnb.compile.plan.plan_function`),
        compiled in ``mode``. Everything it holds is made here, from the plan; after
        construction only the program and its call path are replaced (``_REBUILT``)."""
        #: What the function computes and how it is called (frozen).
        self.plan = plan
        self.name = plan.name
        self.inputs = list(plan.inputs)
        self.outputs = list(plan.outputs)
        self.updated_shared = list(plan.updated_shared)
        self.read_shared = list(plan.read_shared)
        self._program_inputs = list(plan.program_inputs)
        self._all_shared = list(plan.all_shared)
        self._n_outputs = len(plan.outputs)
        self._single = plan.single
        # The graph is copied, rewritten at the mode's optimizer level, then lowered.
        self.maker = FunctionMaker(self._program_inputs, plan.graph_outputs + plan.update_exprs,
                                   get_mode(mode))
        fgraph = self.maker.fgraph
        self.nodes = fgraph.toposort()
        n_inputs = len(plan.inputs)
        check_dynamic_shapes(self.nodes, fgraph.outputs, self._program_inputs, n_inputs)
        check_static_values(self.nodes, self._program_inputs, n_inputs)
        self._context = call_context(self._program_inputs, fgraph.outputs, self.nodes)
        #: ``(in_shardings, out_shardings)`` of the program (one per program input, then
        #: one per output and update), or None for a program on one device.
        self.shardings = _program_shardings(plan, in_shardings, out_shardings, mesh)
        #: The locks a call holds (its shared variables'), in the order it takes them.
        self.shared_locks = lock_order(self._all_shared)
        #: What a call reads and does around the program (both call paths share it).
        self._call_spec = CallSpec(plan)
        #: ``f[key]``: the inputs' values (compile/input_values.py).
        self._input_values = InputValues(plan.construction["inputs"], plan.state_inputs,
                                         plan.defaults, plan.checkers)
        #: Theano's ``f.container[key]``: each input's container (compile/container.py),
        #: which sets an argument's value as ``f[key] = value`` does.
        self.container = FunctionContainers(self._input_values, weakref.ref(self))
        self._locks = self._call_spec.locks  # None: a call takes no lock
        # Guards re-specialization, which replaces self._program (calls read it unlocked).
        self._state_lock = threading.Lock()
        self._static: tuple[int, ...] = ()
        self._donating = True  # off once an update is seen changing a shared variable's shape
        mode = self.maker.mode
        # None when the mode adds nothing after a call (the fast path then applies).
        self._after_call = None if type(mode).after_call is Mode.after_call else mode.after_call
        memory = config.profile_memory if profile_memory is None else bool(profile_memory)
        if isinstance(profile, ProfileStats):  # Theano's profile=ProfileStats(...): record into it
            self.profile = profile.bind(self, memory)
        else:
            self.profile = ProfileStats(self, memory) if (profile or config.profile or memory) else None
        self._set_program(self._build_program())
        self._built = True

    @api_boundary  # the user calls it: errors show the user's line
    def __setattr__(self, name: str, value: Any) -> None:
        # Everything is made from the plan in __init__; a call replaces only its program.
        if name not in _REBUILT and name != "trust_input" and "_built" in self.__dict__:
            raise AttributeError(f"{self._title()} is made once from its plan: {name!r} cannot "
                                 f"be set after construction (compile another function)")
        object.__setattr__(self, name, value)

    @api_boundary  # the user calls it: errors show the user's line
    def copy(self, share_memory: bool = False, swap: Any = None, delete_updates: bool = False,
             name: str | None = None, profile: bool | None = None) -> "Function":
        """A new function compiled from the same graph (Theano's ``Function.copy``):
        ``swap`` maps shared variables to others of the same type, used (and updated) in
        their place; ``delete_updates`` drops every update. The copy's inputs holding
        state start from a copy of their current values. ``share_memory`` is accepted:
        both functions always share their shared variables (unless swapped). As in
        Theano, the copy returns a list of the outputs, even of one (Theano rebuilt the
        copy from its list of outputs)."""
        from symnb.compile.pickling import copied_function

        return copied_function(self, swap, delete_updates, name, profile, function)

    def __copy__(self) -> "Function":
        """``copy.copy(f)``: ``f.copy()``, as in Theano (its own state, copied)."""
        return self.copy()

    def __getitem__(self, key: Any) -> Any:
        """Theano's ``f[key]``: the value of the input at position ``key`` of the input
        list, of variable ``key`` or named ``key`` (its default, the value set for the
        next call, or a state's value; see :mod:`symnb.compile.input_values`)."""
        return self._input_values.get(key)

    def __setitem__(self, key: Any, value: Any) -> None:
        """Theano's ``f[key] = value``: a state's new value, or the value the next call
        uses for that input when it is not passed."""
        self._set_slot(self._input_values.slot(key, setting=True), value)

    def _set_slot(self, slot: Any, value: Any) -> None:
        if self._input_values.set_slot(slot, value):
            self._invoke = _weak_method(self, "_call_in_full")  # the next call reads it

    @property
    def value(self) -> "Function":
        """Theano's ``f.value[key]``: the same as ``f[key]`` (and ``f.value[key] = v``)."""
        return self

    def __contains__(self, key: Any) -> bool:
        return key in self._input_values

    def __reduce__(self) -> tuple:
        from symnb.compile.pickling import function_reduce

        return function_reduce(self, function)

    def _build_program(self) -> Program:
        # A shared variable passed as a static argument (specialized on) is not donated.
        donate = tuple(i for i in range(len(self.inputs), len(self.inputs) + len(self.updated_shared))
                       if i not in self._static)
        return self.maker.mode.program(self._program_inputs, self.maker.fgraph.outputs, self.nodes,
                                       donate if self._donating else (), self.maker.optimizer,
                                       self._static, shardings=self.shardings,
                                       bare=self._call_spec.bare, n_outputs=self._n_outputs)

    @property
    def last_shapes(self) -> dict[Variable, tuple[str, tuple]]:
        """``{variable: (dtype, shape)}`` of the last argument signature the program was
        traced for (the last call with new shapes or dtypes): each program input
        (arguments, then shared variables) and each output of the optimized graph's
        nodes (``maker.fgraph``; loop bodies are not included); {} before the first call.

        Recorded while JAX traces, so calls cost nothing more; a program shared with
        an equal graph compiled earlier (the compile cache) shows its last trace.
        """
        trace = getattr(self._program, "last_trace", None)
        if trace is None:
            return {}
        inputs, per_node = trace
        shapes = dict(zip(self.maker.fgraph.inputs, inputs))
        for node, outputs in zip(self.nodes, per_node):
            shapes.update(zip(node.outputs, outputs))
        return shapes

    @api_boundary  # the user calls it: errors show the user's line
    def sharding_lines(self, *args: Any) -> list[str]:
        """For a function over several devices, what ``debugprint(f)`` shows: each
        input's, shared variable's and output's sharding, and the collectives XLA
        inserted, read from the compiled HLO for ``args`` (by default the inputs' test
        values). Empty for a function on one device."""
        from symnb.compile.sharding import sharding_lines

        return sharding_lines(self, args)

    @api_boundary  # the user calls it: errors show the user's line
    def as_jax(self) -> tuple[Any, dict[str, Any]]:
        """The compiled graph as a pure JAX function: ``fn, params = f.as_jax()``, then
        ``outputs, new_params = fn(params, *inputs)``. ``params`` maps each shared
        variable's name to (a copy of) its value as a ``jax.Array``; ``new_params`` holds
        the updated values. ``fn`` may be used under ``jax.jit``, ``jax.vmap``,
        ``jax.grad`` and with optax (see :mod:`symnb.compile.as_jax`)."""
        from symnb.compile.as_jax import as_jax

        return as_jax(self)

    # -- calling --------------------------------------------------------------------
    # ``f(...)`` calls ``f._invoke``: the fast path made for this function's program
    # (``fast_path``) or ``_call_in_full``; both use ``self._call_spec`` (compile/call.py).
    # A C-level getter hands it to the call, which thus costs no Python frame of its
    # own: on a tiny function, a measurable part of the call (bench/bench_calls.py).
    __call__ = property(operator.attrgetter("_invoke"),
                        doc="Call the function with arrays (positional, or by input name); "
                            "returns NumPy arrays the caller owns.")

    def _call_in_full(self, *args: Any, **kwargs: Any) -> Any:
        """A call in full: arguments by keyword, profiling, and programs that check
        values, specialize or run in a context."""
        profile, call = self.profile, self._call_spec
        token = profile.begin() if profile is not None else None
        overrides = self._input_values.take_overrides()
        if overrides:  # f[x] = value applies to this call only: then the fast path again
            self._set_program(self._program)
        try:  # free unless it raises (Python 3.11): the call overhead stays as it was
            arrays = list(call.checks(call.bind(args, kwargs, overrides)))
            if call.locks is None:
                outputs = call.finish(self._run(arrays))
            else:
                # Shared values are read, donated, replaced and copied out with their locks held.
                with call.locks:
                    outputs = call.finish(self._run(arrays + call.shared_values()))
        except Exception:
            if profile is not None:
                profile.abort()
            raise  # without symnb's frames: the call path's outermost frame (_weak_method)
        if profile is not None:
            profile.end(token, arrays, outputs)
        return outputs

    def _set_program(self, program: Program) -> None:
        self._program = program
        # The call path refers to this function weakly (_weak_method): a function that
        # held its own call path would be freed, with the executables of a program the
        # cache dropped (native memory the garbage collector cannot see), only at the
        # collector's next full collection.
        full = _weak_method(self, "_call_in_full")
        # The fast path: a plain program (nothing to check, specialize or scope), no
        # profile and no mode hook after a call.
        # A float64 program's context (64-bit types enabled) is the fast path's own to
        # enter: Theano's default floatX is float64 (PyMC3's models: bench/bench_pymc3.py).
        if program.plain and self._context in (None, x64_scope) and self._after_call is None \
                and self.profile is None and not self._call_spec.converts_outputs:
            self._invoke = fast_path(self._call_spec, program, full,
                                     _weak_method(self, "_recover_and_run"),
                                     _weak_method(self, "_execution_error"),
                                     x64=self._context is x64_scope)
        else:
            self._invoke = full

    def _run(self, arrays: list[Any]) -> Any:
        """Run the program on ``arrays`` (the checked arguments, then the shared values)
        and return its results (see ``CallSpec``); specialize on input values a length
        depends on, or stop donating, if tracing says so."""
        while True:
            program = self._program
            try:
                results = self._call(program, arrays)
            except (NodeFailure, ChangedShape) as failure:  # raised while tracing: nothing ran
                self._recover(program, failure, arrays)
                continue
            except jax.errors.JaxRuntimeError as error:
                raise self._execution_error(error, program, arrays) from None
            except SymnbError as error:  # a debugging mode's verdict on a node (NanGuardMode)
                raise with_call_values(error, self, arrays) from None
            except ValueError:  # refused before running: values on different devices?
                mismatch = self._call_spec.device_mismatch(arrays)
                if mismatch is None:
                    raise
                raise mismatch from None
            if program.checked:
                error, results = results
                try:
                    raise_failed_check(error, program.checks, program.nodes, self.nodes, self._title())
                except Exception as failure:
                    if program.keeps_old_values:  # the donated buffers are gone: put back
                        self._call_spec.put_back(results[self._n_outputs:])
                    raise with_call_values(failure, self, arrays) from None
            if self._after_call is not None:
                self._after_call(self, arrays, [results] if program.bare else results)
            return results

    def _recover(self, program: Program, failure: Exception, arrays: list[Any]) -> None:
        """Handle what tracing ``program`` raised (nothing ran): return once the function
        has a program to run the call again (specialized on the values a length depends
        on, or not donating an update that changes its shared variable's shape); raise the
        call's error when nothing can help."""
        if isinstance(failure, ChangedShape):  # the new value cannot reuse the old one's buffer
            with self._state_lock:
                if self._program is program:
                    self._donating = False
                    self._set_program(self._build_program())
            return
        if isinstance(failure.error, StaticValueRequired) and self._specialize(program, failure):
            return
        raise self._runtime_error(failure, arrays) from None

    def _recover_and_run(self, program: Program, failure: Exception, arrays: list[Any]) -> Any:
        """The fast path's tracing failure (see :meth:`_recover`), then the call run again
        in full: the program's results."""
        self._recover(program, failure, arrays)
        return self._run(arrays)

    def _call(self, program: Program, arrays: list[Any]) -> Any:
        call_args = program.arguments(arrays)
        if self._context is None:
            return program.call(*call_args)
        with self._context():
            return program.call(*call_args)

    def _specialize(self, program: Program, failure: NodeFailure) -> bool:
        """Make the inputs a static length depends on static arguments (jax.jit then
        compiles once per distinct value); False when that cannot help. ``program``
        is the one that failed: another thread may have specialized meanwhile."""
        node = failing_node(failure, program.nodes, self.nodes).node
        positions = value_sources([node.inputs[i] for i in failure.error.indices],
                                  self._program_inputs, len(self.inputs))
        with self._state_lock:
            if self._program is not program:
                return True  # rebuilt by another call meanwhile: try the new program
            if positions is None or not positions or positions <= set(self._static):
                return False
            # A shared variable is specialized on its current value at each call (its
            # static argument is its value then): never a program for a stale value.
            shared = [self._program_inputs[p] for p in sorted(positions) if p >= len(self.inputs)]
            try:
                check_specializable(node, shared, [v._backend_value() for v in shared])
            except SymnbError as error:
                raise error from None  # the trace that asked for the value is no news
            self._static = tuple(sorted(set(self._static) | positions))
            self._set_program(self._build_program())
        return True

    @api_boundary  # the user calls it: errors show the user's line
    def lowered_text(self, stage: str = "stablehlo", *args: Any) -> str:
        """The program as JAX and XLA see it: ``'jaxpr'``, ``'stablehlo'`` or ``'hlo'``
        (optimized by XLA). Each operation is tagged with its symnb node's scope,
        ``OpClass(file.py:line)``, so a node can be followed from the user's line into XLA.

        ``args`` are example arguments; by default the inputs' test values.
        """
        if stage not in ("jaxpr", "stablehlo", "hlo"):
            raise ValueError(f"stage must be 'jaxpr', 'stablehlo' or 'hlo', got {stage!r}")
        if not self._program.whole_graph:
            raise ValueError("lowered_text needs a function compiled as one program (no linker)")
        examples = self._call_spec.bind(args, {}) if args else [v.test_value for v in self.inputs]
        arrays = [check(a) for check, a in zip(self._call_spec.checks.checkers, examples)]
        with self._locks if self._locks is not None else contextlib.nullcontext():
            arrays += self._call_spec.shared_values()
        program = self._program
        call_args = program.arguments(arrays)
        with self._context() if self._context is not None else contextlib.nullcontext():
            if stage == "jaxpr":
                jaxpr = jax.make_jaxpr(program.jitted, static_argnums=program.static)(*call_args)
                return jaxpr.pretty_print(name_stack=True)
            lowered = program.jitted.lower(*call_args)
            if stage == "stablehlo":
                return lowered.as_text(debug_info=True)
            from symnb.compile.profiling.xla import without_stack_frames

            return without_stack_frames(lowered.compile().as_text())

    def _title(self) -> str:
        return self.plan.title

    def _runtime_error(self, failure: NodeFailure, arrays: list[Any]) -> Exception:
        # The failing node of *this* function (the program may come from the compile
        # cache), and the nodes holding it (a loop, a branch, a fused Composite), if any.
        if isinstance(failure.error, FailedCheck):  # a check inside a loop, run node by node
            checked = failed_check_error(failure.error, self._program.nodes, self.nodes, self._title())
            return with_call_values(checked, self, arrays)
        if is_out_of_memory(failure.error):  # e.g. a value larger than memory, refused while tracing
            return self._execution_error(failure.error, self._program, arrays)
        place = failing_node(failure, self._program.nodes, self.nodes)
        node = place.node
        values = [_Summary(d, s) for d, s in zip(failure.dtypes, failure.shapes)]
        call = ", ".join(f"{label(v)}: {a.dtype} {describe_shape(np.shape(a))}"
                         for v, a in zip(self.inputs, arrays))
        notes = place_lines(place, self.maker.optimizer)
        notes.append(f"Called with: {call}" if call else "Called with no arguments")
        details = place_details(place)
        if config.exception_verbosity == "high":
            outer = place.enclosing[0] if place.enclosing else place
            details += high_verbosity_details(self._program_inputs, arrays, self.nodes, outer.index,
                                              self._context, self._program.static)
        record = node_record(node, failure.error, context=f" while running {self._title()}",
                             values=values, notes=notes, details=details)
        kind = runtime_error_class(failure.error)  # IndexError: IndexOutOfBoundsError, ...
        error = error_from_record(kind, record)
        error.node = node
        error.original = failure.error
        return with_call_values(error, self, arrays)

    def _execution_error(self, error: Exception, program: Program, arrays: list[Any]) -> Exception:
        """What to raise when the compiled program failed while running, or ran out of
        memory (running, or refused while tracing): out of memory becomes an
        :class:`OutOfMemoryError` naming the largest value; the failure of an op written in
        Python (its perform, called from the program) that node's error."""
        failure = take_failure(program.nodes)
        if failure is not None:
            return self._runtime_error(failure, arrays)
        if is_out_of_memory(error):
            original, error = error, out_of_memory_error(
                self._program_inputs, arrays, self.nodes, self._context, program.static,
                self._title(), error)
            error.original = original
        # A program that ran before with these argument shapes donates without copying.
        lost = [label(v) for v in self.updated_shared if _is_deleted(v._backend_value())]
        if lost:
            error.add_note(f"The values of shared variable(s) {', '.join(lost)} were donated to "
                           f"the call that failed and are lost; set them again with set_value.")
        elif self.updated_shared:
            error.add_note("The shared variables are unchanged.")
        return error


class _Summary:
    __slots__ = ("dtype", "shape")

    def __init__(self, dtype: str, shape: tuple) -> None:
        self.dtype, self.shape = dtype, shape


def _weak_method(function: Function, name: str) -> Callable[..., Any]:
    """``function``'s method ``name``, called through a weak reference to ``function``
    (for the call path the function keeps: see ``Function._set_program``).

    The user may call it directly (``f(...)`` on the full path), so it is an entry point
    (core/graph/traceback_filter.py): a frame joins a traceback as the exception leaves
    it, so only this outermost frame can remove every symnb frame, its own included."""
    reference = weakref.ref(function)
    title = function._title()

    def call(*args: Any, **kwargs: Any) -> Any:
        try:  # free unless it raises (Python 3.11)
            alive = reference()
            if alive is None:  # a call path kept apart from its function: ``g = f.__call__``
                raise ReferenceError(f"{title} was deleted: keep the function itself to call it, "
                                     f"not only its __call__")
            return getattr(alive, name)(*args, **kwargs)
        except Exception as err:
            hide_library_frames(err)
            raise

    return call


def _is_deleted(value: Any) -> bool:
    return isinstance(value, jax.Array) and value.is_deleted()


def _program_shardings(plan: FunctionPlan, in_shardings: Any, out_shardings: Any,
                       mesh: Any) -> tuple[tuple, tuple] | None:
    """The program's ``(in_shardings, out_shardings)``, or None when nothing is sharded.
    Updates keep their shared variable's sharding."""
    sharded_shared = [v for v in plan.all_shared if v.sharding is not None]
    if in_shardings is None and out_shardings is None and not sharded_shared:
        return None
    ins = input_shardings(list(plan.inputs), in_shardings, mesh)
    ins += [as_sharding(v.sharding, v, mesh) for v in plan.all_shared]
    outs = output_shardings(list(plan.outputs), out_shardings, mesh)
    outs += [as_sharding(v.sharding, v, mesh) for v in plan.updated_shared]
    return tuple(ins), tuple(outs)


# -- var.eval() ----------------------------------------------------------------------

_eval_cache: "weakref.WeakKeyDictionary[Variable, dict]" = weakref.WeakKeyDictionary()
_eval_lock = threading.Lock()  # var.eval() may be called from several threads


def evaluate(var: Variable, inputs_to_values: dict) -> np.ndarray:
    """``var.eval({x: value})``: compile once per set of inputs, then call."""
    inputs = list(inputs_to_values)
    key = tuple(id(v) for v in inputs)
    with _eval_lock:
        fn = _eval_cache.setdefault(var, {}).get(key)
    if fn is None:  # two threads may both compile it; either function is right
        fn = function(inputs, var, on_unused_input="ignore")
        with _eval_lock:
            _eval_cache.setdefault(var, {})[key] = fn
    return fn(*(inputs_to_values[v] for v in inputs))
