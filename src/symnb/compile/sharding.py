"""Values over several devices: one SPMD program, partitioned by XLA.

A compiled function whose inputs, outputs or shared variables are given shardings is
still ONE ``jax.jit`` program: its ``in_shardings`` and ``out_shardings`` are those
shardings, and XLA's SPMD partitioner splits the work and inserts the collectives
(an all-reduce of the gradient of a data-parallel model, ...). Shardings are JAX's own
objects:

- a ``jax.sharding.Sharding`` (``NamedSharding(mesh, PartitionSpec('data'))``, ...);
- a ``Mesh``: the value replicated over the mesh's devices;
- a pair ``(mesh, PartitionSpec(...))``;
- a bare ``PartitionSpec`` when the function is given ``mesh=``.

An updated shared variable keeps its sharding: the program's output for its update has
the shared variable's sharding, so the new value is where the old one was.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Sequence

import jax
from jax.sharding import AxisType, Mesh, NamedSharding, PartitionSpec, Sharding

from symnb.core.graph.errors import MissingTestValueError, label
from symnb.core.graph.basic import Variable

__all__ = ["as_sharding", "input_shardings", "output_shardings", "collectives",
           "sharding_lines", "describe_sharding", "partitioned_by_xla", "with_auto_axes"]


def as_sharding(spec: Any, var: Variable, mesh: Mesh | None = None) -> Sharding | None:
    """``spec`` (see the module docstring) as a ``jax.sharding.Sharding`` for ``var``,
    or None (no sharding asked for: JAX places the value)."""
    if spec is None:
        return None
    if isinstance(spec, Sharding):
        sharding = spec
    elif isinstance(spec, Mesh):
        sharding = NamedSharding(spec, PartitionSpec())
    elif isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], Mesh) \
            and isinstance(spec[1], PartitionSpec):
        sharding = NamedSharding(spec[0], spec[1])
    elif isinstance(spec, PartitionSpec):
        if mesh is None:
            raise TypeError(f"the sharding of {label(var)!r} is a PartitionSpec {spec}, which "
                            f"needs a mesh: pass NamedSharding(mesh, spec), (mesh, spec), or "
                            f"mesh= to sn.function")
        sharding = NamedSharding(mesh, spec)
    else:
        raise TypeError(f"the sharding of {label(var)!r} must be a jax.sharding.Sharding "
                        f"(NamedSharding), a Mesh, (mesh, PartitionSpec) or a PartitionSpec "
                        f"with mesh=; got {type(spec).__name__}: {spec!r}")
    _check_rank(sharding, var)
    return partitioned_by_xla(sharding)


@functools.lru_cache(maxsize=64)
def _auto_mesh(mesh: Mesh) -> Mesh:
    return Mesh(mesh.devices, mesh.axis_names, axis_types=(AxisType.Auto,) * len(mesh.axis_names))


def partitioned_by_xla(sharding: Sharding) -> Sharding:
    """``sharding`` on a mesh whose axes XLA's SPMD partitioner handles (``Auto``).

    ``jax.make_mesh`` makes ``Explicit`` axes by default, whose shardings are part of
    the array types: each operation must then be told how to shard its result, which
    a graph written for one device does not say. symnb hands partitioning to XLA, as
    Theano users expect (same program, any number of devices)."""
    if isinstance(sharding, NamedSharding) and any(t != AxisType.Auto for t in sharding.mesh.axis_types):
        return NamedSharding(_auto_mesh(sharding.mesh), sharding.spec, memory_kind=sharding.memory_kind)
    return sharding


def with_auto_axes(value: jax.Array) -> jax.Array:
    """A JAX argument sharded on explicit mesh axes, as the same buffers on the mesh's
    ``Auto`` version (see :func:`partitioned_by_xla`); other arrays as they are."""
    sharding = value.sharding
    auto = partitioned_by_xla(sharding)
    return value if auto is sharding else jax.device_put(value, auto)


def _check_rank(sharding: Sharding, var: Variable) -> None:
    if isinstance(sharding, NamedSharding) and len(sharding.spec) > var.type.ndim:
        raise ValueError(f"the sharding of {label(var)!r} ({var.type.short()}, "
                         f"{var.type.ndim} dimension(s)) partitions {len(sharding.spec)} "
                         f"dimension(s): PartitionSpec{tuple(sharding.spec)}")


def input_shardings(inputs: Sequence[Variable], given: Any, mesh: Mesh | None) -> list[Any]:
    """One sharding (or None) per function input, from ``in_shardings=``: a dict
    ``{input: spec}`` or a list parallel to the inputs."""
    if given is None:
        return [None] * len(inputs)
    if isinstance(given, dict):
        listed = {id(v) for v in inputs}
        for var in given:
            if id(var) not in listed:
                raise ValueError(f"in_shardings names {label(var)!r}, which is not an input of "
                                 f"the function (inputs: {', '.join(map(label, inputs))})")
        by_id = {id(v): s for v, s in given.items()}
        specs = [by_id.get(id(v)) for v in inputs]
    else:
        specs = list(given)
        if len(specs) != len(inputs):
            raise ValueError(f"in_shardings lists {len(specs)} sharding(s) for "
                             f"{len(inputs)} input(s)")
    return [as_sharding(s, v, mesh) for s, v in zip(specs, inputs)]


def output_shardings(outputs: Sequence[Variable], given: Any, mesh: Mesh | None) -> list[Any]:
    """One sharding (or None) per function output, from ``out_shardings=``: one spec
    for every output, or a list parallel to the outputs."""
    if given is None:
        return [None] * len(outputs)
    if isinstance(given, (list, tuple)) and not _is_pair(given):
        if len(given) != len(outputs):
            raise ValueError(f"out_shardings lists {len(given)} sharding(s) for "
                             f"{len(outputs)} output(s)")
        return [as_sharding(s, v, mesh) for s, v in zip(given, outputs)]
    return [as_sharding(given, v, mesh) for v in outputs]


def _is_pair(value: Any) -> bool:
    return isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], Mesh)


def describe_sharding(sharding: Any) -> str:
    """A short text: ``PartitionSpec('data',) over mesh {'data': 8}``."""
    if sharding is None:
        return "not set (JAX and XLA choose)"
    if isinstance(sharding, NamedSharding):
        axes = ", ".join(f"{name!r}: {size}" for name, size in sharding.mesh.shape.items())
        spec = tuple(sharding.spec)
        return f"PartitionSpec{spec!r} over mesh {{{axes}}}"
    return repr(sharding)


# "%all-reduce.5 = (f32[], f32[5,16]) all-reduce(%a, %b), ..., metadata={op_name=...}"
_COLLECTIVE = re.compile(r"^\s*%?\S+ = .*?\s(all-reduce|all-gather|reduce-scatter|all-to-all|"
                         r"collective-permute)(?:-start)?\(")
_OP_NAME = re.compile(r'op_name="([^"]*)"')


def collectives(hlo_text: str) -> list[tuple[str, str]]:
    """The collectives in a compiled program's HLO text: ``(kind, op_name)`` pairs, the
    op name holding the symnb node's scope (``Dot(model.py:12)``) when XLA kept it."""
    found = []
    for line in hlo_text.splitlines():
        match = _COLLECTIVE.search(line)
        if match is None:
            continue
        name = _OP_NAME.search(line)
        where = name.group(1).removeprefix("jit(traced)/") if name else ""
        found.append((match.group(1), where))
    return found


def sharding_lines(function: Any, args: Sequence[Any] = ()) -> list[str]:
    """What ``debugprint(f)`` and the profile show for a sharded function: each input,
    shared variable and output with its sharding, then the collectives XLA inserted
    (from the program compiled for ``args``, by default the inputs' test values).
    Empty for a function on one device."""
    layout = function.shardings
    if layout is None:
        return []
    ins, outs = layout
    lines = ["Shardings (one SPMD program):"]
    for var, sharding in zip(function._program_inputs, ins):
        kind = "shared" if var in function._all_shared else "input"
        lines.append(f"  {kind} {label(var)}: {describe_sharding(sharding)}")
    names = [label(v) for v in function.outputs] + \
        [f"update of {label(v)}" for v in function.updated_shared]
    for name, sharding in zip(names, outs):
        lines.append(f"  output {name}: {describe_sharding(sharding)}")
    try:
        found = collectives(function.lowered_text("hlo", *args))
    except MissingTestValueError:
        lines.append("  collectives: give the inputs test values (or see the profile) to list them")
        return lines
    except Exception as err:  # a program that cannot be compiled for these arguments
        lines.append(f"  collectives: unknown ({type(err).__name__}: {err})")
        return lines
    if not found:
        lines.append("  collectives inserted by XLA: none")
    else:
        lines.append("  collectives inserted by XLA:")
        for kind, where in found:
            lines.append(f"    {kind}" + (f"  at {where}" if where else ""))
    return lines
