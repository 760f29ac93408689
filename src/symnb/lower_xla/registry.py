"""The lowering registry: ``lower(op, node)`` returns a JAX function for that node.

Rules are registered by Op class (``@lower.register(Exp)``), in small files by topic
under ``symnb/lower_xla/rules/``. A rule receives the op and its node (for static
types and parameters) and returns a callable taking and returning JAX arrays: one
array, or a tuple for an op with several outputs.

A rule that needs the value of some inputs while tracing (a shape, a slice bound, a
loop's number of steps) declares them beside it with ``@static_inputs.register``, so
the compile pipeline can refuse a graph no call could run before compiling it.
"""

from __future__ import annotations

from functools import singledispatch
from typing import Any, Callable, Sequence

import jax
import numpy as np

# Re-exported: rules raise DynamicShapeError; MissingLoweringError is public (symnb.errors).
from symnb.core.graph.errors import DynamicShapeError, MissingLoweringError  # noqa: F401
from symnb.core.graph.basic import Apply, walk_nodes
from symnb.core.graph.op import Op, perform_only

__all__ = ["lower", "static_inputs", "passed_as_is", "before_running", "STATIC_ROLES", "MissingLoweringError",
           "StaticValueRequired", "known_on_host", "DynamicShapeError", "runs_on_host", "holds_host_ops", "install_host_rule",
           "register_host_decider"]


class StaticValueRequired(ValueError):
    """A rule needs, while tracing, the value of node inputs (``indices``) that depend
    on run-time values (a length, a shape, a slice bound). The compiled function then
    specializes on the function inputs those values come from."""

    def __init__(self, message: str, indices: tuple[int, ...]) -> None:
        super().__init__(message)
        self.indices = tuple(indices)


def known_on_host(args: Sequence[Any], needed: Sequence[int],
                  message: Callable[[tuple[int, ...]], str]) -> list[Any]:
    """``args`` (a node's inputs while tracing) with those at ``needed`` as NumPy values,
    so what a rule computes from them stays known (the node-by-node modes pass concrete
    device arrays); ``StaticValueRequired(message(traced), traced)`` for those traced: the
    function then specializes on the arguments they are computed from."""
    traced = tuple(p for p in needed if isinstance(args[p], jax.core.Tracer))
    if traced:
        raise StaticValueRequired(message(traced), traced)
    args = list(args)
    for p in needed:
        args[p] = np.asarray(args[p])
    return args


#: The rule of ops written in Python only (``core.graph.op.perform_only``): their
#: ``perform`` run from the program by a host callback. ``rules/python_op.py`` installs it.
_host_rule: Callable[[Op, Apply], Callable[..., Any]] | None = None


def install_host_rule(rule: Callable[[Op, Apply], Callable[..., Any]]) -> None:
    """Install the rule lowering the ops :func:`runs_on_host` names."""
    global _host_rule
    _host_rule = rule


@singledispatch
def lower(op: Op, node: Apply) -> Callable[..., Any]:
    # No rule registered for the op's class: an op written in Python only runs its
    # perform from the program (as Theano ran it); any other is refused, named.
    if _host_rule is not None and perform_only(op):
        return _host_rule(op, node)
    raise MissingLoweringError(
        f"no XLA lowering rule for {type(op).__module__}.{type(op).__qualname__} "
        f"(op {op.display_name()}); register one with @symnb.lower_xla.lower.register("
        f"{type(op).__name__})")


#: For op classes whose rule runs some of their ops as Python (through the host rule)
#: and lowers others: which, per op (``register_host_decider``).
_host_deciders: dict[type, Callable[[Op], bool]] = {}


def register_host_decider(op_class: type, decides: Callable[[Op], bool]) -> None:
    """Say, beside a rule of ``op_class`` that calls the host rule for some ops, which:
    ``decides(op)`` is True for those (what :func:`runs_on_host` answers)."""
    _host_deciders[op_class] = decides


def runs_on_host(op: Op) -> bool:
    """Whether compiled programs run ``op`` as Python: its ``perform``, called from the
    program by a host callback (an op written in Python only, with no rule registered
    for its class, or one its class's rule runs so: ``register_host_decider``). Such a
    program is kept on no disk cache and donates nothing."""
    if _host_rule is None:
        return False
    decides = _host_deciders.get(type(op))
    if decides is not None:
        return decides(op)
    return lower.dispatch(type(op)) is lower.dispatch(object) and perform_only(op)


def holds_host_ops(nodes: Sequence[Apply]) -> bool:
    """Whether a program over ``nodes`` (their inner graphs too) runs an op as Python."""
    return any(runs_on_host(node.op) for node in walk_nodes(nodes))


#: The roles an input needed while tracing may have (what ``static_inputs`` says).
STATIC_ROLES = ("the number of steps", "a slice bound", "a shape", "a size", "a range bound",
                "a piece length", "a loop body's length", "a branch's length", "a mask")


@singledispatch
def static_inputs(op: Any, node: Apply) -> dict[int, str]:
    """``{position: role}`` for ``node``'s inputs whose values its lowering needs while
    tracing; the role is one of ``STATIC_ROLES``. Rules register them by Op class,
    beside the rule that needs them."""
    return {}


@singledispatch
def passed_as_is(op: Any, node: Apply) -> dict[int, int]:
    """``{inner input position: outer input position}``: the inputs of ``op``'s inner
    graph (its only one, or each of them alike) that its rule hands the outer value
    unchanged (by closure, not as a loop carry or operand), so a value known while
    tracing outside (a shape) is known inside too. Rules register it beside themselves."""
    return {}


@singledispatch
def before_running(op: Any) -> None:
    """What this process must do before it runs compiled nodes of ``op``'s class, which
    lowering them does on the way (LAPACK's CPU kernels loaded, for the linear algebra).
    The executable cache calls it for a program read back from disk, never lowered in
    this process. Rules register it beside themselves; the default does nothing."""
