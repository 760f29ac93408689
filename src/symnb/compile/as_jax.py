"""``f.as_jax()``: a compiled function's graph as a pure JAX function.

    fn, params = f.as_jax()
    outputs, new_params = fn(params, *inputs)

``params`` maps each shared variable's name to its value (a ``jax.Array``, a copy: a
later call of ``f`` donating its own buffers does not touch it); ``new_params`` is
``params`` with the updated shared variables' new values. ``fn`` is the same lowering
of the same optimized graph as ``f``'s program, written as a function of arrays with
no state, so JAX's transformations apply to it: ``jax.jit``, ``jax.vmap`` (over the
inputs and/or the parameters), ``jax.grad`` (of a scalar output), and optax updates of
``params``. Nothing is copied to the host.

A graph whose inputs or shared variables are 64-bit (float64, int64, complex128...)
needs JAX's 64-bit mode when a transformation traces them from NumPy arrays or Python
numbers: with it off, ``jax.jit``, ``jax.grad`` and ``jax.vmap`` cast those to 32 bits
before ``fn`` sees them, so ``fn`` refuses (:class:`~symnb.core.graph.errors.X64DisabledError`,
naming those values and ``jax.config.update("jax_enable_x64", True)``). The mode is read
at each call, so it may be turned on after ``as_jax()``. 64-bit ``jax.Array`` arguments
(``params`` are) keep their dtype when traced, and values made inside the graph keep
their 64 bits (``fn`` traces the graph with 64-bit types on, a scoped setting, as the
compiled function runs); called directly, ``fn`` receives its arguments as they are.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from jax.sharding import AxisType

from symnb.compile.host_steps import NumpyPrelude
from symnb.compile.devices import is_64_bit, on_device, uses_64_bits
from symnb.compile.sharding import with_auto_axes
from symnb.core.graph.basic import Variable
from symnb.core.graph.errors import X64DisabledError, label
from symnb.lower_xla.cache import copy_array
from symnb.lower_xla.checks import has_checks
from symnb.lower_xla.interpreter import NodeFailure, build_program

__all__ = ["as_jax", "chain_as_jax"]


def as_jax(function: Any) -> tuple[Callable[..., Any], dict[str, Any]]:
    """``(fn, params)`` for the compiled function ``function`` (see the module docstring)."""
    shared = function._all_shared
    names = _parameter_names(shared)
    nodes = function.nodes
    outputs = function.maker.fgraph.outputs
    if has_checks(nodes):
        raise ValueError(
            f"{function._title()} checks values while it runs (an Assert, or integer indices "
            f"known only at run time), which a pure JAX function cannot report; compile it "
            f"with sn.config.change_flags(index_checks=False) for as_jax, or remove the Assert")
    wide = uses_64_bits(function._program_inputs, outputs, nodes)
    run = build_program(function._program_inputs, outputs, nodes)
    inputs, updated = function.inputs, function.updated_shared
    n_outputs, single = function._n_outputs, function._single

    def fn(params: dict[str, Any], *args: Any) -> tuple[Any, dict[str, Any]]:
        if len(args) != len(inputs):
            raise TypeError(f"the as_jax function of {function._title()} takes params and "
                            f"{len(inputs)} input(s) ({', '.join(map(label, inputs))}), "
                            f"got {len(args)}")
        _check_params(params, names)
        if wide and not jax.config.jax_enable_x64:
            given = [*zip(inputs, args), *[(var, params[name]) for var, name in zip(shared, names)]]
            _refuse_narrowed(function, given, names)
        # As in the compiled function: a graph touching 64-bit types is traced with them
        # on (a scoped setting; the caller's JAX configuration is left as it is).
        with jax.enable_x64(True) if wide else contextlib.nullcontext():
            values = [_argument(var, a) for var, a in zip(inputs, args)]
            values += [_argument(var, params[name]) for var, name in zip(shared, names)]
            try:
                results = run(*values)
            except NodeFailure as failure:
                raise function._runtime_error(failure, values) from None
        new_params = dict(params)
        for var, value in zip(updated, results[n_outputs:]):
            new_params[names[shared.index(var)]] = value
        outs = results[0] if single else list(results[:n_outputs])
        return outs, new_params

    with function._locks if function._locks is not None else contextlib.nullcontext():
        params = {name: copy_array(on_device(var))
                  for name, var in zip(names, shared)}
    return fn, params


def chain_as_jax(split: Any) -> tuple[Callable[..., Any], dict[str, Any]]:
    """``(fn, params)`` for a :class:`~symnb.compile.split_program.SplitFunction`: its
    programs' ``as_jax`` functions (each under ``jax.jit``: a padded length bucket traces
    once), run in a chain with the host steps between them, as a call of the function
    runs them. ``params`` holds every program's shared variables; ``new_params`` the
    last program's updates (the others update nothing). A host step needs concrete
    values: under a JAX transformation ``fn`` refuses, naming the step."""
    params: dict[str, Any] = {}
    parts: list[tuple[Callable[..., Any], list[str]] | None] = []
    for program in split.programs:
        if isinstance(program, NumpyPrelude):  # a few elementwise ops, in NumPy
            parts.append(None)
            continue
        program_fn, values = as_jax(program)
        for name, value in values.items():
            params.setdefault(name, value)
        parts.append((jax.jit(program_fn), list(values)))
    inputs = split.inputs
    title = f"split function {split.name!r}" if split.name else "a split function"
    single = split._call_spec.single

    def before_host(node: Any, values: list[Any]) -> None:
        if any(isinstance(v, jax.core.Tracer) for v in values):
            raise TypeError(
                f"the as_jax function of {title} runs {node.op.display_name()} on the host "
                f"between two programs (its output's length depends on values), which needs "
                f"concrete values: a JAX transformation (jax.jit, jax.grad, jax.vmap...) traces "
                f"abstract ones. Call fn directly, or transform each program's own as_jax "
                f"(f.programs[i].as_jax()), whose shapes are static")

    def fn(given: dict[str, Any], *args: Any) -> tuple[Any, dict[str, Any]]:
        if len(args) != len(inputs):
            raise TypeError(f"the as_jax function of {title} takes params and {len(inputs)} "
                            f"input(s) ({', '.join(map(label, inputs))}), got {len(args)}")
        _check_params(given, list(params))
        new_params = dict(given)

        def caller(part: tuple[Callable[..., Any], list[str]] | None, program: Any,
                   last: bool) -> Callable[..., Any]:
            if part is None:  # NumPy, as the function computes it (it needs the values)
                def prelude(*values: Any) -> Any:
                    before_host(split.host_nodes[0], values)
                    return program(*(np.asarray(v) for v in values))

                return prelude
            program_fn, names = part

            def call(*values: Any) -> Any:
                # Host values as jax.Arrays of their own dtype: traced by jax.jit with
                # it even where JAX's 64-bit mode is off (lengths, indices are int64).
                with jax.enable_x64(True):
                    values = tuple(v if isinstance(v, jax.Array) else jnp.asarray(v)
                                   for v in values)
                outputs, updated = program_fn({name: given[name] for name in names}, *values)
                if last:
                    new_params.update(updated)
                return outputs

            return call

        programs = split.programs
        calls = [caller(part, program, i == len(programs) - 1)
                 for i, (part, program) in enumerate(zip(parts, programs))]
        outputs = split.run_chain(list(args), single, calls, before_host)
        return outputs, new_params

    return fn, params


def _refuse_narrowed(function: Any, pairs: list[tuple[Variable, Any]], names: list[str]) -> None:
    """Raise :class:`X64DisabledError` when a transformation traces a 64-bit input or
    shared variable as a narrower value while JAX's 64-bit mode is off: JAX made that
    argument 32-bit (a NumPy float64 array or a Python number becomes float32 or int32)
    before ``fn`` saw it, so the graph would compute from a narrowed value. A 64-bit
    ``jax.Array`` keeps its dtype when traced, and values the graph makes are traced in
    64 bits (``fn``'s scope): both are exact with x64 off."""
    narrowed = [(var, value) for var, value in pairs
                if is_64_bit(var.type.dtype) and isinstance(value, jax.core.Tracer)
                and value.dtype != var.type.dtype]
    if not narrowed:
        return
    shared = dict(zip(function._all_shared, names))
    lines = [f"the as_jax function of {function._title()} takes 64-bit values, and a JAX "
             f"transformation (jax.jit, jax.grad, jax.vmap...) traces them as 32-bit ones: "
             f"with JAX's 64-bit mode off, JAX casts NumPy arrays and Python numbers it traces "
             f"to 32 bits, so the result would silently be computed from 32-bit values:"]
    for var, value in narrowed:
        what = f"params[{shared[var]!r}] (shared variable {shared[var]!r})" if var in shared \
            else f"input {label(var)!r}"
        where = var.site.describe("created at")
        lines.append(f"  {what}: expects {var.type.dtype}, traced as {value.dtype}"
                     + (f"; {where}" if where else ""))
    lines.append('Turn JAX\'s 64-bit mode on before tracing fn: jax.config.update('
                 '"jax_enable_x64", True) (or the environment variable JAX_ENABLE_X64=1); '
                 'or build the graph in 32 bits (SYMNB_FLAGS=floatX=float32). Called directly, '
                 'outside a transformation, fn(params, ...) needs neither.')
    raise X64DisabledError("\n".join(lines))


def _parameter_names(shared: list[Any]) -> list[str]:
    names = []
    for var in shared:
        if not var.name:
            raise ValueError(f"as_jax names parameters after their shared variables; "
                             f"{label(var)!r} ({var.type.short()}), {var.site.describe('created at')}, "
                             f"has no name: give it one with sn.shared(..., name=...)")
        if var.name in names:
            raise ValueError(f"two shared variables are named {var.name!r}; as_jax names "
                             f"parameters after their shared variables, so names must differ")
        names.append(var.name)
    return names


def _check_params(params: Any, names: list[str]) -> None:
    if not isinstance(params, dict):
        raise TypeError(f"params must be a dict of shared variable name -> array, got "
                        f"{type(params).__name__}")
    missing = [n for n in names if n not in params]
    if missing:
        raise KeyError(f"params lacks {', '.join(map(repr, missing))} (expected the names "
                       f"{', '.join(map(repr, names))})")


def _check_auto_axes(var: Any, traced: Any) -> None:
    """A traced argument sharded on explicit mesh axes: the graph, written for one
    device, does not say how to shard each result (see ``sharding.partitioned_by_xla``)."""
    mesh = getattr(getattr(traced.aval, "sharding", None), "mesh", None)
    if mesh is not None and any(t == AxisType.Explicit for t in getattr(mesh, "axis_types", ())):
        raise TypeError(f"{label(var)!r} is traced with a sharding on explicit mesh axes "
                        f"{mesh.axis_names}; symnb leaves partitioning to XLA: make the mesh "
                        f"with jax.make_mesh(..., axis_types=(AxisType.Auto, ...)), or call "
                        f"fn outside jax.jit")


def _argument(var: Any, value: Any) -> Any:
    """``value`` for input ``var``: its dtype and number of dimensions, or an error."""
    array = value if isinstance(value, jax.Array) else jnp.asarray(value)
    if isinstance(array, jax.core.Tracer):
        _check_auto_axes(var, array)
    else:
        array = with_auto_axes(array)
    dtype = np.dtype(var.type.dtype)
    if array.ndim != var.type.ndim:
        raise TypeError(f"{label(var)!r} expects {var.type.short()} ({var.type.ndim} "
                        f"dimension(s)), got {array.dtype} of shape {tuple(array.shape)} "
                        f"(under jax.vmap, the shape of one example)")
    if array.dtype != dtype:
        if not np.can_cast(array.dtype, dtype, casting="safe"):
            raise TypeError(f"{label(var)!r} expects {var.type.short()}, got {array.dtype}: "
                            f"casting could lose information; cast it with .astype('{dtype}')")
        array = array.astype(dtype)
    return array
