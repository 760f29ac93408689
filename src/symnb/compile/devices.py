"""Where a call runs: the configured device and the 64-bit scope, and shared values on
the device.

Programs that touch 64-bit dtypes are traced and run under ``jax.enable_x64``, a scoped
setting, so the user's global JAX configuration is never changed; values cross into
JAX only inside that scope (shared values included: ``on_device``).
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Sequence

import jax
import numpy as np

from symnb.compile.sharding import as_sharding
from symnb.core.graph.config import config
from symnb.core.graph.basic import Apply, Variable, walk_nodes
from symnb.core.graph.errors import DeviceMismatchError, ErrorRecord, error_from_record, label
from symnb.core.graph.source import capture_site
from symnb.core.tensor.shared import SharedVariable

__all__ = ["call_context", "x64_scope", "on_device", "uses_64_bits", "is_64_bit", "gpu_device",
           "device_mismatch"]


def on_device(var: SharedVariable) -> Any:
    """The shared variable's value as a JAX array (put on the device once, then kept):
    split over devices as its ``sharding`` says, else on the configured device."""
    value = var._backend_value()
    if type(value) is np.ndarray:
        place = as_sharding(var.sharding, var) if var.sharding is not None else _device_context()
        # Outside this scope JAX would store an int64/float64 value in 32 bits. A value
        # the user may write into is copied first (see _host_value_for_device).
        with jax.enable_x64(True):
            value = jax.device_put(var._host_value_for_device(), place)
        var._set_backend_value(value)
    return value


_WIDE = {"float64", "int64", "uint64", "complex128"}


def call_context(inputs: Sequence[Variable], outputs: Sequence[Variable], nodes: Sequence[Apply]
                 ) -> Callable[[], Any] | None:
    """The context a call runs in (None: none needed): 64-bit types enabled when the
    graph uses them, and the configured device."""
    needs_x64 = uses_64_bits(inputs, outputs, nodes)
    device = _device_context()
    if not needs_x64 and device is None:
        return None
    if device is None:
        return x64_scope

    @contextlib.contextmanager
    def both():
        with jax.enable_x64(needs_x64 or jax.config.jax_enable_x64), jax.default_device(device):
            yield

    return both


def x64_scope() -> Any:
    """The context of a program that needs only 64-bit types enabled (``call_context``'s
    most common one: every float64 function). The fast path recognises it
    (compile/fast_path.py: entered only when 64-bit types are off where it is called)."""
    return jax.enable_x64(True)


def uses_64_bits(inputs: Sequence[Variable], outputs: Sequence[Variable], nodes: Sequence[Apply]) -> bool:
    """Whether the program touches a 64-bit dtype (and so must run with x64 enabled)."""
    return bool(_graph_dtypes(inputs, outputs, nodes) & _WIDE)


def is_64_bit(dtype: str) -> bool:
    """Whether ``dtype`` needs JAX's 64-bit mode (float64, int64, uint64, complex128)."""
    return dtype in _WIDE


def _graph_dtypes(inputs: Sequence[Variable], outputs: Sequence[Variable], nodes: Sequence) -> set[str]:
    """Every dtype the program touches, inside loop bodies and branches too."""
    dtypes = {v.type.dtype for v in (*inputs, *outputs)}
    signatures = set()  # each node's input dtypes: most graphs have few distinct ones
    for node in walk_nodes(nodes):
        signature = tuple([v.type.dtype for v in node.inputs])
        signatures.add(signature)
        dtypes.update([v.type.dtype for v in node.outputs])
        computed = node.op.computes_in(node)  # an accumulator, integers divided in double
        if computed:
            dtypes.add(computed)
    for signature in signatures:
        dtypes.update(signature)
        if signature:  # the dtype a node computes in, e.g. float64 for int32 < float32
            dtypes.add(str(np.result_type(*signature)))
    return dtypes


def _device_context():
    """The configured device (None: JAX's default one)."""
    chosen = config.device
    if chosen == "auto":
        return None
    if chosen == "cpu":
        return None if jax.default_backend() == "cpu" else jax.devices("cpu")[0]
    device = gpu_device(chosen)
    # JAX's default device already (device=cuda on a GPU machine): calls need no scope,
    # and keep the fast path (compile/fast_path.py).
    return None if jax.config.jax_default_device is None and device == jax.devices()[0] else device


def gpu_device(name: str) -> Any:
    """The GPU ``name`` designates (Theano's spellings: gpu, cuda, gpuN, cudaN)."""
    number = int(name.lstrip("gpucda") or 0)
    try:
        gpus = jax.devices("gpu")
    except RuntimeError:
        raise RuntimeError(f"config.device={name!r} but JAX finds no GPU; install JAX's CUDA "
                           f"wheels (pip install -e .[cuda]) or set SYMNB_FLAGS=device=cpu") from None
    if number >= len(gpus):
        raise RuntimeError(f"config.device={name!r} but JAX finds {len(gpus)} GPU(s): "
                           f"{', '.join(map(str, gpus))}")
    return gpus[number]


def device_mismatch(variables: Sequence[Variable], arrays: Sequence[Any], title: str
                    ) -> DeviceMismatchError | None:
    """The error for a call JAX refused (a ``ValueError`` naming argument positions only)
    because values in ``arrays`` (the program's arguments: ``variables``' values) are
    committed to different devices; None when the committed values agree (the refusal
    was something else).

    Committed: a JAX array placed with ``jax.device_put(x, device)``, or a shared value
    an earlier call left where its committed input was. An uncommitted value (a NumPy
    array, one placed without a device) goes wherever the committed ones are."""
    committed = [(var, array.sharding.device_set) for var, array in zip(variables, arrays)
                 if isinstance(array, jax.Array) and array.committed]
    if len({frozenset(devices) for _, devices in committed}) < 2:
        return None
    lines = [f"  {_kind(var)} {label(var)!r}: committed to {_devices(devices)}"
             for var, devices in committed]
    inputs = [label(v) for v, _ in committed if not isinstance(v, SharedVariable)]
    shared = [label(v) for v, _ in committed if isinstance(v, SharedVariable)]
    record = ErrorRecord(
        f"{title} cannot run: the values it was called with are committed to different "
        f"devices, and one program runs on one set of devices",
        site=capture_site(config.traceback__limit),
        notes=(*lines, *_fixes(inputs, shared),
               "Nothing ran: the shared variables are unchanged."))
    return error_from_record(DeviceMismatchError, record)


def _kind(var: Variable) -> str:
    return "shared variable" if isinstance(var, SharedVariable) else "input"


def _devices(devices: Any) -> str:
    names = sorted(map(str, devices))
    if len(names) <= 4:
        return ", ".join(names)
    return f"{len(names)} devices ({', '.join(names[:3])}, ...)"


def _fixes(inputs: list[str], shared: list[str]) -> list[str]:
    """How to put the values on one device."""
    fixes = []
    if inputs:
        fixes.append(f"pass {', '.join(map(repr, inputs))} as NumPy (placed by symnb, a value "
                     f"goes where the committed ones are) or jax.device_put to one device")
    for name in shared:
        fixes.append(f"move {name!r} with {name}.set_value({name}.get_value()) (placed anew, "
                     f"it follows the inputs) or give it a sharding= where it must stay")
    return ["To run, put them on one device: " + "; or ".join(fixes) + "."]
