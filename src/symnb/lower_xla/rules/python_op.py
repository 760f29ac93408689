"""Ops written in Python only (Theano's way of extending it: a ``perform``, no lowering
rule) inside the XLA program: their ``perform`` runs on the host, called from the
program (``jax.pure_callback``), as Theano ran it between its compiled nodes.

XLA needs every shape before the program runs, so each output's shape is found while
tracing: from the output's static type when it is fully known, else from the op's
``infer_shape`` on the call's input shapes, else from its test value when the op
declares its shapes fixed (``Op.fixed_output_shapes``); otherwise the call is refused,
saying what to add. What ``perform`` returns is checked against those shapes and the
declared dtypes (``evaluate.run_node``): a mismatch is an error naming the op, never a
value XLA would read wrongly.

An exception raised by ``perform`` in a compiled call stops the program; the callback
keeps it (:func:`take_failure`), and the call reports it as any node's failure, at the
user's line that built the node, with the input shapes (``Function._execution_error``).
A program holding such a node donates nothing (a failure must leave the shared variables
as they were) and is kept on no disk cache (its callback is a Python object of this
process: ``executable_cache.py`` refuses it, and JAX writes no program with host
callbacks to its own cache).
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Callable, NamedTuple, Sequence

import jax
import numpy as np

from symnb.core.graph.basic import Apply, Variable, walk_nodes
from symnb.core.graph.evaluate import run_node
from symnb.core.graph.op import Op
from symnb.core.graph.static import static_value
from symnb.lower_xla.interpreter import NodeFailure
from symnb.lower_xla.jax_private import silence_callback_log
from symnb.lower_xla.registry import install_host_rule, runs_on_host

__all__ = ["python_op", "output_shapes", "shapes_known_before_running",
           "shapes_known_only_by_running", "take_failure", "PythonOpFailed", "ShapesUnknown", "Shapes"]


class ShapesUnknown(ValueError):
    """Nothing gives the output shapes of an op run as Python (raised while tracing: the
    call's error names the node and the user's line that built it)."""


class PythonOpFailed(Exception):
    """Raised in the host callback of a node whose ``perform`` failed: what stops the
    program (the error the user sees is made from the kept failure)."""


# The failures of callbacks, by node (the program's), until the call that ran them
# reports them. Weak: a program dropped with its nodes drops its failures.
_failures: "weakref.WeakKeyDictionary[Apply, NodeFailure]" = weakref.WeakKeyDictionary()
_failures_lock = threading.Lock()

silence_callback_log(lambda error: isinstance(error, PythonOpFailed))


def take_failure(nodes: Sequence[Apply]) -> NodeFailure | None:
    """The failure of a Python op's ``perform`` in a program over ``nodes`` (its loop
    bodies and branches too), taken: None when none of them failed."""
    with _failures_lock:
        found = [_failures.pop(node) for node in walk_nodes(nodes) if node in _failures]
    return found[-1] if found else None


def python_op(op: Op, node: Apply) -> Callable[..., Any]:
    """The rule: ``node``'s ``perform`` run on the host, called from the program."""
    dtypes = [var.type.numpy_dtype for var in node.outputs]

    def run(*arrays: Any) -> tuple[Any, ...]:
        if _eager(arrays):
            # Run eagerly, node by node (a debugging mode): perform itself, whose
            # exception reaches the mode as any rule's.
            values = [np.asarray(a) for a in arrays]
            return tuple(_outputs(node, values, output_shapes(node, [v.shape for v in values])))
        expected = output_shapes(node, [tuple(a.shape) for a in arrays])

        in_dtypes = [np.dtype(a.dtype) for a in arrays]

        def on_host(*sent: np.ndarray) -> tuple[np.ndarray, ...]:
            values = [_host_value(np.asarray(v), dtype) for v, dtype in zip(sent, in_dtypes)]
            try:
                outputs = _outputs(node, values, expected)
            except Exception as err:  # kept for the call's error (see the module)
                with _failures_lock:
                    _failures[node] = NodeFailure(node, 0, values, err)
                raise PythonOpFailed(f"{op.display_name()}.perform failed: {err}") from err
            return tuple(_as_words(value) if value.dtype in _WIDE else value for value in outputs)

        results = [jax.ShapeDtypeStruct(_words_shape(shape, dtype), np.uint32) if dtype in _WIDE
                   else jax.ShapeDtypeStruct(shape, dtype) for shape, dtype in zip(expected.shapes, dtypes)]
        # "sequential": under jax.vmap, perform runs once per element (it may not
        # broadcast over a leading axis it was not written for).
        sent = [_as_words_traced(a) if np.dtype(a.dtype) in _WIDE else a for a in arrays]
        returned = jax.pure_callback(on_host, results, *sent, vmap_method="sequential")
        return tuple(_from_words(value, dtype) if dtype in _WIDE else value
                     for value, dtype in zip(returned, dtypes))

    return run


install_host_rule(python_op)


def _eager(arrays: Sequence[Any]) -> bool:
    """Whether a node runs eagerly (node by node: its inputs are concrete JAX arrays)
    rather than in a program being traced. NumPy inputs alone (constants, known while
    tracing) do not tell: the node then runs at each call (an op that may run ahead was
    run at trace time by the interpreter already; one with effects must not be)."""
    return not any(isinstance(a, jax.core.Tracer) for a in arrays) \
        and any(isinstance(a, jax.Array) for a in arrays)

# -- 64-bit values to and from the host ---------------------------------------------------
# JAX converts a callback's arguments and results in the thread XLA runs it on to the
# dtypes JAX's global setting allows there (without jax_enable_x64, float64 becomes
# float32), not under the setting the program was traced with (symnb's ``jax.enable_x64``
# scope: the calling thread's). A large program runs the callback on a thread of XLA's:
# a float64 argument would reach perform rounded to float32 (a silent wrong number) and a
# float64 result be refused. So 64-bit values cross as their bytes, in uint32 words (a
# last axis of 2), reinterpreted on the other side bit for bit.

#: The dtypes whose values cross as uint32 words, and the float dtype of a complex's parts.
_WIDE = {np.dtype("float64"): None, np.dtype("int64"): None, np.dtype("uint64"): None,
         np.dtype("complex128"): np.dtype("float64")}


def _words_shape(shape: tuple, dtype: np.dtype) -> tuple:
    """The shape of a value of ``dtype`` as uint32 words (two per 64 bits)."""
    parts = (2,) if _WIDE[dtype] is not None else ()  # a complex: real and imaginary parts
    return tuple(shape) + parts + (2,)


def _as_words(value: np.ndarray) -> np.ndarray:
    """(On the host) ``value``'s bytes as uint32 words: see :func:`_words_shape`."""
    if _WIDE[value.dtype] is not None:
        value = np.stack([value.real, value.imag], axis=-1)
    return np.ascontiguousarray(value).reshape(-1).view(np.uint32).reshape(
        value.shape + (2,))


def _host_value(sent: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """(On the host) an argument of ``dtype`` as the program sent it (see :func:`_as_words_traced`)."""
    if dtype not in _WIDE:
        return sent
    part = _WIDE[dtype]
    value = np.ascontiguousarray(sent).view(dtype if part is None else part)[..., 0]
    return value if part is None else (value[..., 0] + 1j * value[..., 1]).astype(dtype)


def _as_words_traced(value: Any) -> Any:
    """(In the program) a 64-bit value's bytes as uint32 words: see :func:`_words_shape`."""
    if _WIDE[np.dtype(value.dtype)] is not None:
        value = jax.numpy.stack([jax.numpy.real(value), jax.numpy.imag(value)], axis=-1)
    return jax.lax.bitcast_convert_type(value, np.uint32)


def _from_words(words: Any, dtype: np.dtype) -> Any:
    """(In the program) the value of ``dtype`` whose bytes ``words`` hold."""
    part = _WIDE[dtype]
    value = jax.lax.bitcast_convert_type(words, dtype if part is None else part)
    return value if part is None else jax.lax.complex(value[..., 0], value[..., 1])


def _outputs(node: Apply, inputs: list[np.ndarray], expected: "Shapes") -> list[np.ndarray]:
    """``perform``'s outputs (of exactly the declared dtypes: ``run_node``), checked to
    have the shapes the program was compiled for."""
    outputs = run_node(node, inputs)
    for index, (value, shape) in enumerate(zip(outputs, expected.shapes)):
        if value.shape != tuple(shape):
            raise ValueError(
                f"{node.op.display_name()}.perform returned shape {value.shape} for output "
                f"{index}; the compiled program expects {tuple(shape)} (from "
                f"{expected.source}, for inputs of shapes "
                f"{', '.join(str(v.shape) for v in inputs)})")
    return outputs


class Shapes(NamedTuple):
    """The output shapes of a node run as Python, and what gave them (for messages)."""

    shapes: list[tuple[int, ...]]
    source: str


def shapes_known_before_running(node: Apply) -> bool:
    """Whether :func:`output_shapes` can give ``node``'s output shapes (its output types,
    an ``infer_shape``, or ``fixed_output_shapes``). When not (Theano's documentation
    writes ops with ``make_node`` and ``perform`` only, their shapes known as they run),
    a compiled function runs the node on the host between two programs
    (``symnb.compile.split_program``), as Theano ran it."""
    op = node.op
    if all(var.type.fully_known for var in node.outputs) or op.fixed_output_shapes:
        return True
    if type(op).infer_shape is Op.infer_shape:
        return False
    return getattr(op, "shape_function", True) is not None  # as_op given no infer_shape


def shapes_known_only_by_running(node: Apply) -> bool:
    """Whether ``node`` is a Python op (run from programs by a host callback) whose output
    shapes only running it gives: a compiled function runs it between two programs."""
    return runs_on_host(node.op) and not shapes_known_before_running(node)


def output_shapes(node: Apply, input_shapes: Sequence[tuple]) -> Shapes:
    """The shape of each of ``node``'s outputs for inputs of ``input_shapes`` (see the
    module); raises :class:`ShapesUnknown` when nothing gives them."""
    types = [var.type for var in node.outputs]
    if all(t.fully_known for t in types):
        return Shapes([t.shape for t in types], "its output types")
    op = node.op
    try:
        inferred = op.infer_shape(node, [tuple(int(n) for n in s) for s in input_shapes])
    except NotImplementedError:  # none (as_op without infer_shape: see core's Op)
        inferred = None
    if inferred is not None:
        return Shapes([_static_shape(node, i, shape) for i, shape in enumerate(inferred)],
                      "its infer_shape")
    if op.fixed_output_shapes:
        return Shapes([tuple(var.test_value.shape) for var in node.outputs],
                      "its test values: fixed_output_shapes")
    raise ShapesUnknown(
        f"{op.display_name()} runs as Python in the compiled program (its perform, called "
        f"from XLA), which needs its output shapes before it runs; the output types "
        f"({', '.join(repr(t) for t in types)}) do not fix them. Give the op an "
        f"infer_shape(node, input_shapes) method, output types with static shapes, or "
        f"fixed_output_shapes = True when its outputs always have their test values' shapes")


def _static_shape(node: Apply, index: int, shape: Sequence[Any]) -> tuple[int, ...]:
    """One output's shape from ``infer_shape``: its lengths as ints (a symbolic length
    built from the ints given must be known without any input value)."""
    lengths = []
    for axis, length in enumerate(shape):
        value = static_value(length) if isinstance(length, Variable) else length
        if value is None or np.ndim(value) != 0:
            raise ShapesUnknown(
                f"{node.op.display_name()}.infer_shape gave length {length!r} for axis {axis} "
                f"of output {index}, not a number computed from the input shapes; the "
                f"compiled program (which runs its perform from XLA) needs a static length")
        lengths.append(int(value))
    return tuple(lengths)

