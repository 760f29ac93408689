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
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from jax.sharding import AxisType

from symnb.compile.devices import on_device, uses_64_bits
from symnb.compile.sharding import with_auto_axes
from symnb.core.graph.errors import label
from symnb.lower_xla.cache import copy_array
from symnb.lower_xla.checks import has_checks
from symnb.lower_xla.interpreter import NodeFailure, build_program

__all__ = ["as_jax"]


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
