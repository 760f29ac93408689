"""Model Explorer's node data (its per-node value overlays) for a symnb graph: one number
per node, from the graph run in NumPy (on the test values or a call's arguments) or from
the profile. :mod:`symnb.printing.model_explorer` builds the graph they colour."""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np

from symnb.core.graph.basic import Apply, Constant, Variable
from symnb.core.graph.evaluate import evaluate, run_node
from symnb.core.tensor.shared import SharedVariable

__all__ = ["node_data_sets", "STATS", "SOURCES"]

#: What a value overlay shows of a node's (first) value.
STATS: dict[str, Callable[[np.ndarray], float]] = {
    "mean": lambda a: float(np.mean(a)),
    "min": lambda a: float(np.min(a)),
    "max": lambda a: float(np.max(a)),
    "std": lambda a: float(np.std(a)),
    "absmax": lambda a: float(np.max(np.abs(a))),
    "l2": lambda a: float(np.sqrt(np.sum(np.abs(a) ** 2))),
    "nonfinite": lambda a: float(np.size(a) - np.count_nonzero(np.isfinite(a))),
}
SOURCES = ("test_values", "call", "profile")
#: The overlay's colours, from the smallest value to the largest (as the pictures shade time).
_GRADIENT = [{"stop": 0, "bgColor": "#fff5f0"}, {"stop": 1, "bgColor": "#f46d43"}]


def node_data_sets(obj: Any, order: list[Apply], ids: dict[int, str], sources: Sequence[str],
                   args: Sequence[Any] | None, stat: str, graph_id: str) -> dict[str, dict]:
    """``{overlay name: node data JSON}`` for each of ``sources``; ``ids`` maps ``id`` of
    each Apply node and root variable to its node id in the graph."""
    if stat not in STATS:
        raise ValueError(f"to_model_explorer: stat={stat!r} is not one of {', '.join(STATS)}")
    data = {}
    for source in sources:
        if source == "profile":
            name, results = "profile: seconds per call", _profile_results(obj, ids)
        elif source in ("test_values", "call"):
            env = _test_value_inputs(order) if source == "test_values" else _call_inputs(obj, args)
            name = f"{source.replace('_', ' ')}: {stat}"
            results = _value_results(order, env, ids, STATS[stat])
        else:
            raise ValueError(f"to_model_explorer: values={source!r} is not one of {', '.join(SOURCES)}")
        data[name] = {graph_id: {"name": name, "results": results, "gradient": _GRADIENT}}
    return data


def _value_results(order: list[Apply], env: dict[int, Any], ids: dict[int, str],
                   stat: Callable[[np.ndarray], float]) -> dict[str, dict]:
    """Each node's number: the graph run node by node, each value reduced as it is made
    and released once read (a large graph holds no more than a call does)."""
    results: dict[str, dict] = {}

    def keep(key: int, value: Any) -> None:
        array = np.asarray(value)
        if array.dtype.kind == "c":
            array = np.abs(array)
        number = stat(array.astype(np.float64)) if array.size else math.nan
        if math.isfinite(number) and key in ids:
            results[ids[key]] = {"value": number}

    def step(node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        outputs = run_node(node, inputs)
        keep(id(node), outputs[0])
        return outputs

    for key, value in env.items():
        keep(key, value)
    with np.errstate(all="ignore"):
        evaluate(order, env, step=step, keep_only=())
    return results


def _test_value_inputs(order: list[Apply]) -> dict[int, Any]:
    """The graph's roots' values: shared variables' current values, inputs' test values."""
    env: dict[int, Any] = {}
    for node in order:
        for var in node.inputs:
            if var.owner is None and not isinstance(var, Constant) and id(var) not in env:
                env[id(var)] = _root_value(var)
    return env


def _root_value(var: Variable) -> Any:
    if isinstance(var, SharedVariable):
        return var.get_value(borrow=True)
    return var.test_value


def _call_inputs(obj: Any, args: Sequence[Any] | None) -> dict[int, Any]:
    """The program's inputs for a call of the compiled function ``obj`` with ``args``
    (by default its profile's last timed call's), its shared variables as they are now."""
    spec, program_inputs = getattr(obj, "_call_spec", None), getattr(obj, "_program_inputs", None)
    if spec is None or program_inputs is None:
        raise TypeError(f"to_model_explorer(values='call') needs a compiled function, not "
                        f"{type(obj).__name__}: use values='test_values' for variables")
    if args is None:
        arrays = getattr(obj.profile, "_last_arrays", None) if obj.profile is not None else None
        if arrays is None:
            raise ValueError("to_model_explorer(values='call') without args= replays the "
                             "profile's last call: compile with profile=True and call the "
                             "function, or pass args=[the call's arguments]")
    else:
        arrays = list(spec.checks(spec.bind(tuple(args), {})))
    values = [np.asarray(a) for a in arrays] + [v.get_value(borrow=True) for v in obj._all_shared]
    return {id(v): value for v, value in zip(program_inputs, values)}


def _profile_results(obj: Any, ids: dict[int, str]) -> dict[str, dict]:
    profile = getattr(obj, "profile", None)
    times = profile.node_times() if profile is not None else {}
    if not times:
        raise ValueError("to_model_explorer(values='profile') needs a function compiled with "
                         "profile=True and called at least once (its node times)")
    return {ids[id(node)]: {"value": float(s)} for node, s in times.items() if id(node) in ids}
