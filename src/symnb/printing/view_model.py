"""The graph model the client-side viewer draws: :func:`view_model` (a JSON-able dict,
the contract written in the docs' viewer_format.md) and :func:`encode_view_model`
(its saved form within a byte budget, :mod:`symnb.printing.view_encode`).

It is read from the pictures' data layer: the node ids, labels and shapes of
:class:`~symnb.printing.graph_model.GraphPicture` (``n3``, ``v0``: the ids the kernel's
explorer answers to), the groups of :mod:`symnb.printing.view_groups` (the user's calls
folded into series, op calls, regions), the values' summaries of
:mod:`symnb.printing.values` and the overlays of :mod:`symnb.printing.view_overlays`.

Constants (and what is computed from constants only) are drawn inside each group using
them: used by several groups, each group gets its own copy (``v3@g5``, ``copy_of``
``v3``), so a scalar merged across layers draws no edge between the layers.

Names, labels and source lines are plain text: the viewer writes them as text, never as
HTML.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

import numpy as np

from symnb.core.graph.basic import Apply, Constant, Variable, toposort
from symnb.core.graph.errors import label as variable_label
from symnb.core.loop_values import values_through
from symnb.core.tensor.shared import SharedVariable
from symnb.printing._common import collector_paused, cut_text, graph_parts, value_text
from symnb.printing.error_focus import error_focus
from symnb.printing.graph_model import OPEN_UP_TO, node_ids, root_variables
from symnb.printing.groups import GroupTree
from symnb.printing.labels import Shapes, node_name, op_name, rewrite_origins, words_of
from symnb.printing.node_facts import runs_as, value_of
from symnb.printing.values import value_numbers, value_stats
from symnb.printing.view_encode import encode_view_model
from symnb.printing.view_groups import ViewGroups
from symnb.printing.view_inner import InnerParts
from symnb.printing.view_overlays import overlays, values_source

__all__ = ["view_model", "view_model_parts", "ViewModelParts", "encode_view_model", "FORMAT"]

FORMAT = 1
_LABEL_LIMIT = 60
_CLOSED_KINDS = ("series", "opcall", "part")  # closed in a small graph's first view too


def view_model(obj: Any, *, highlight: Iterable[Any] = (), times: Mapping[Apply, float] | None = None,
               time_total: float | None = None, title: str | None = None, call_values: Any = None,
               tree: GroupTree | None = None) -> dict:
    """The viewer's model of ``obj``: a Variable, a list of them, an Apply, a compiled
    function (its optimized graph, its last profile's times) or an error naming a node
    (highlighted; a failed call's values, ``err.call_values``, feed the overlays).

    ``highlight``: Apply nodes (or their outputs) marked ``failing``; ``times``:
    ``{Apply: seconds per call}`` (by default a profiled function's last profile) and
    ``time_total`` the seconds their shares are of; ``call_values``: a failed call's values
    (``err.call_values``) for a graph given as the function that failed (an error brings
    its own): the boxes then show that call's values, not the test values. ``tree``: the
    graph's :class:`GroupTree` when already made (the explorer's picture's: a graph is
    grouped once), else made here."""
    return view_model_parts(obj, highlight=highlight, times=times, time_total=time_total, title=title,
                            call_values=call_values, tree=tree).model


@dataclass
class ViewModelParts:
    """A view model and what its nodes and groups stand for, for the renderers that
    write more of a node than the viewer shows (the Model Explorer JSON's attributes):
    ``model`` is :func:`view_model`'s dict; ``objects`` maps each node id (copies and
    inner graphs' nodes included) to its Apply or root variable; ``groups`` the model's
    :class:`~symnb.printing.view_groups.ViewGroups` (each ``ViewGroup.source`` the call
    or scope it stands for); ``order`` and ``ids`` the graph's Apply nodes and
    ``{id(Apply or root): node id}``; ``shapes`` where each drawn shape came from;
    ``origins`` the rewrite that made each node of an optimized graph (``id(Apply)``);
    ``times`` the seconds per call the time overlay's shares are of (``{Apply: s}``), if any,
    and ``time_total`` the call's seconds they are shares of (None: of the nodes' sum)."""

    model: dict
    objects: dict[str, Any]
    groups: ViewGroups
    order: list[Apply]
    ids: dict[int, str]
    shapes: Shapes
    origins: dict
    times: Mapping[Apply, float] | None = None
    time_total: float | None = None  # the call's seconds the shares are of (None: the nodes' sum)

    def node(self, node_id: str) -> dict | None:
        """The model's node ``node_id`` (None: no such node)."""
        return self._index()[0].get(node_id)

    def group(self, group_id: str | None) -> dict | None:
        """The model's group ``group_id`` (None: no such group, or the top level)."""
        return self._index()[1].get(group_id) if group_id is not None else None

    def copy_of(self, node_id: str) -> dict | None:
        """The first of the model's copies of ``node_id`` (a constant used by several
        groups is drawn in each, ``v3@g5``, and not as ``v3``), or None."""
        return self._index()[2].get(node_id)

    def groups_around(self, group_id: str | None) -> list[dict]:
        """The groups holding ``group_id`` and it, outermost first."""
        chain = []
        group = self.group(group_id)
        while group is not None:
            chain.append(group)
            group = self.group(group["parent"])
        return chain[::-1]

    def obj_of(self, node_id: str) -> Any:
        """The Apply or root ``node_id`` stands for: a node of the model, or one it does
        not draw (inside a fused chain, ``n3/0/n1``: its holder's inner graph numbered by
        the one id rule, :func:`~symnb.printing.graph_model.node_ids`); None if none."""
        if node_id in self.objects:
            return self.objects[node_id]
        copied = self.copy_of(node_id)
        if copied is not None:  # a constant drawn as copies only (``v3``: ``v3@g5``...)
            return self.objects[copied["id"]]
        holder_id, _, graph = node_id.rpartition("/")[0].rpartition("/")
        holder = self.obj_of(holder_id) if holder_id else None
        if not isinstance(holder, Apply) or not graph.isdigit():
            return None
        return dict(_inner_objects(holder, holder_id, only=int(graph))).get(node_id)

    def inner_ids(self, obj: Any) -> list[str]:
        """The ids ``obj`` has in inner graphs: a loop body's node the model draws, or a
        node of a fused chain it does not (``n3/0/n1``)."""
        found = [node_id for node_id, known in self.objects.items() if known is obj and "/" in node_id]
        if found:
            return found
        for holder_id, holder in self.objects.items():
            if isinstance(holder, Apply) and holder.op.inner_graphs and self.group(f"{holder_id}/0") is None:
                found += [node_id for node_id, known in _inner_objects(holder, holder_id) if known is obj]
        return found

    def _index(self) -> tuple[dict, dict, dict]:
        found = self.__dict__.get("_by_id")
        if found is None:
            copies: dict[str, dict] = {}
            for node in self.model["nodes"]:
                if node.get("copy_of"):
                    copies.setdefault(node["copy_of"], node)
            found = self.__dict__["_by_id"] = ({n["id"]: n for n in self.model["nodes"]},
                                               {g["id"]: g for g in self.model["groups"]}, copies)
        return found


def view_model_parts(obj: Any, *, highlight: Iterable[Any] = (), times: Mapping[Apply, float] | None = None,
                     time_total: float | None = None, title: str | None = None, call_values: Any = None,
                     tree: GroupTree | None = None) -> ViewModelParts:
    """:func:`view_model` (same arguments) with what its ids stand for."""
    obj, highlight, found = _resolve(obj, list(highlight))
    call_values = found if found is not None else call_values
    with collector_paused():
        builder = _Builder(obj, highlight, call_values, times, time_total, title, tree)
        model = builder.model()
    times = builder.times
    if times is None:  # a profiled function's own, as the time overlay reads them
        profile = getattr(obj, "profile", None)
        times = profile.node_times() if profile is not None and hasattr(profile, "node_times") else None
    return ViewModelParts(model, dict(builder.node_objects + builder.inner_objects), builder.groups, builder.order,
                          builder.ids, builder.shapes, builder.origins, times or None,
                          builder.time_total or getattr(times, "call_seconds", None))


def _resolve(obj: Any, highlight: list) -> tuple[Any, list[Apply], Any]:
    """What to draw for ``obj``, the nodes to mark, and a failed call's values."""
    call_values = None
    if isinstance(obj, BaseException):  # where it failed: error_focus, the one place that says
        focus = error_focus(obj, "view_model")
        obj, highlight, call_values = focus.graph, highlight + focus.marked, focus.call_values
    marked = []
    for item in highlight:
        if isinstance(item, Variable) and item.owner is not None:
            item = item.owner
        if not isinstance(item, Apply):
            raise TypeError(f"view_model: highlight takes Apply nodes or computed variables, "
                            f"not {type(item).__name__}")
        marked.append(item)
    return obj, marked, call_values


class _Builder:
    def __init__(self, obj: Any, highlight: list[Apply], call_values: Any,
                 times: Mapping[Apply, float] | None, time_total: float | None, title: str | None,
                 tree: GroupTree | None = None) -> None:
        self.obj = obj
        self.call_values = call_values
        self._through: dict | None = None  # the call replayed past its failure, when asked
        self.failing = {id(node) for node in highlight}
        outputs, order = graph_parts(obj)
        self.outputs = outputs
        self.order = order = order if order is not None else toposort(outputs)
        self.origins = rewrite_origins(obj, order)
        self.roots = root_variables(order, (), outputs)
        # The ids the pictures give (``n3``, ``v0``): the kernel's explorer answers to them.
        self.ids = node_ids(order, self.roots)
        called = call_values.shapes() if call_values is not None else getattr(obj, "last_shapes", None)
        self.shapes = Shapes(failed=self.failing, called=called)
        self.tree = tree if tree is not None else GroupTree(order, self.roots)
        self.times, self.time_total = times, time_total
        self.title = title or _title(obj, order)
        self.groups = ViewGroups(self.tree, order, _update_only(obj, outputs, order))
        self.groups.mirror_updates([(self.groups.of_tree(self.tree.group_of(param)), new.owner)
                                    for param, new in _updates(obj, outputs) if new.owner is not None])
        self.texts = _SiteTexts()
        shown = list(self.roots) + [node.outputs[0] for node in order]
        values = [self.value(var) for var in shown]
        #: ``id(variable) -> (its value, value_numbers)`` of every variable a box shows.
        self.numbers = {id(var): (value, numbers) for var, value, numbers
                        in zip(shown, values, value_numbers(values))}

    def model(self) -> dict:
        constant_like = self._constant_like()
        homes = self._homes(constant_like)
        nodes, copies = self._nodes(constant_like, homes)
        edges = self._edges(constant_like, copies)
        groups = [g.to_json() for g in self.groups.ordered()]
        source = values_source(self.call_values)
        # Loop bodies, branches: one closed group per inner graph (opened around a failing node).
        inner = InnerParts(self).add_all(nodes)
        self.inner_objects = inner.objects
        opened = self._first_open()
        return {
            "format": FORMAT,
            "title": self.title,
            "nodes": nodes + inner.nodes,
            "edges": edges + inner.edges,
            "groups": groups + inner.groups,
            "open": opened + [g for g in inner.failing_open if g not in opened],
            "overlays": overlays(self, source),
            "not_saved": [],
        }

    # -- constants ----------------------------------------------------------------------
    def _constant_like(self) -> set[int]:
        """``id`` of the constants and of the nodes computing from constants only (shape
        arithmetic folded to numbers): drawn in each group that uses them."""
        outputs = {id(v.owner) for v in self.outputs if v.owner is not None}
        known: set[int] = {id(v) for v in self.roots if isinstance(v, Constant)}
        for node in self.order:
            if (node.inputs and id(node) not in outputs and id(node) not in self.failing
                    and not node.op.inner_graphs
                    and all(id(v) in known if v.owner is None else id(v.owner) in known
                            for v in node.inputs)):
                known.add(id(node))
        return known

    def _homes(self, constant_like: set[int]) -> dict[int, list]:
        """For each constant-like root or node: the groups using it (None: the top
        level), in the order first met."""
        homes: dict[int, dict] = {}
        for node in reversed(self.order):
            if id(node) in constant_like:
                using = homes.get(id(node), {})
            else:
                group = self.groups.group_of(node)
                using = {id(group): group}
            for var in node.inputs:
                key = id(var) if var.owner is None else id(var.owner)
                if key in constant_like:
                    homes.setdefault(key, {}).update(using)
        return {key: list(found.values()) for key, found in homes.items()}

    # -- nodes --------------------------------------------------------------------------
    def _nodes(self, constant_like: set[int], homes: dict[int, list]) -> tuple[list[dict], dict]:
        """Every root and Apply as the model's nodes; constant-like ones once per group
        using them. Returns the nodes and ``{(id(obj), id(group)): node id}`` of copies."""
        nodes: list[dict] = []
        copies: dict[tuple, str] = {}
        self.node_objects: list[tuple[str, Any]] = []  # (node id, its Apply or root)
        outputs = {id(v.owner) if v.owner is not None else id(v) for v in self.outputs}
        for var in self.roots:
            base = self._root(var)
            base["is_output"] = id(var) in outputs
            nodes += self._placed(var, base, constant_like, homes, copies)
        for node in self.order:
            base = self._apply(node)
            base["is_output"] = id(node) in outputs
            nodes += self._placed(node, base, constant_like, homes, copies)
        return nodes, copies

    def _placed(self, obj: Any, base: dict, constant_like: set[int], homes: dict, copies: dict) -> list[dict]:
        using = homes.get(id(obj)) if id(obj) in constant_like else None
        if not using:  # not a constant, or one read by nothing drawn: where the tree put it
            self.node_objects.append((base["id"], obj))
            return [base]
        placed = []
        for group in using:
            node = dict(base)
            node["group"] = group.id if group is not None else None
            node["region"] = group.region if group is not None else "forward"
            if len(using) > 1:
                node["id"] = f"{base['id']}@{group.id if group is not None else 'top'}"
                node["copy_of"] = base["id"]
            copies[(id(obj), id(group))] = node["id"]
            placed.append(node)
        self.node_objects += [(node["id"], obj) for node in placed]
        return placed

    def _root(self, var: Variable) -> dict:
        if isinstance(var, Constant):
            kind, name, text = "constant", var.name, var.name or value_text(var.data)
        else:
            kind = "shared" if isinstance(var, SharedVariable) else "input"
            name = var.name
            text = self.texts.label(var)
        view = self.groups.of_tree(self.tree.group_of(var))
        line, code = self.texts.where(var.site)
        return {"id": self.ids[id(var)], "kind": kind, "label": cut_text(text, _LABEL_LIMIT), "op": None, "name": name,
                "group": view.id if view is not None else None,
                "region": view.region if view is not None else "forward", "line": line, "code": code,
                "outs": [self._out(var)], "summary": self._summary(var), "failing": False}

    def _apply(self, node: Apply) -> dict:
        group = self.groups.group_of(node)
        display = op_name(node)
        first = node.outputs[0]
        if group is not None and group.kind == "opcall" and not first.name:
            # The group carries the call's name (``T.nnet.softmax(h)``): its nodes, their ops.
            text = words_of(first, _op_words) if len(node.outputs) == 1 else display
        else:
            text = node_name(node, self.origins, self.texts.label)
        line, code = self.texts.where(node.site)
        return {"id": self.ids[id(node)], "kind": "op", "label": cut_text(text, _LABEL_LIMIT), "op": display,
                "name": first.name if len(node.outputs) == 1 or first.name else None,
                "group": group.id if group is not None else None,
                "region": self.groups.update_region(node),
                "line": line, "code": code,
                "outs": [self._out(v) for v in node.outputs],
                "summary": self._summary(first), "failing": id(node) in self.failing,
                "has_inner": bool(node.op.inner_graphs), "runs": runs_as(node.op)}

    def _out(self, var: Variable) -> dict:
        shape = self.shapes.shape(var)
        if shape is None:
            static = getattr(var.type, "shape", None)
            shape = list(static) if static is not None else None
        return {"dtype": str(var.dtype), "shape": [None if d is None else int(d) for d in shape]
                if shape is not None else None}

    def value(self, var: Variable) -> np.ndarray | None:
        """The value the model shows for ``var``: the failed call's when there is one
        (past a failed NaN check, the call replayed on: the NaN spreads; None where the
        replay did not reach), else its test value (never computed here)."""
        if self.call_values is None:
            return value_of(var)
        value = self.call_values.value_of(var)
        if value is None and var.owner is not None:
            known = self._values_through().get(id(var))
            value = known[1] if known is not None and known[0] is var else None
        return value

    def _values_through(self) -> dict:
        if self._through is None and self.call_values.inputs is not None and self.call_values.outputs is None:
            self._through = {}  # the failing node raised: a replay past it stops there again
        if self._through is None:
            try:
                self._through = values_through(self.call_values)
            except ValueError:  # call values with no program to replay (not a compiled call's)
                self._through = {}
        return self._through

    def _summary(self, var: Variable) -> str | None:
        value, numbers = self.numbers[id(var)]
        return None if value is None else value_stats(value, numbers)

    # -- edges ------------------------------------------------------------------------
    def _edges(self, constant_like: set[int], copies: dict) -> list[dict]:
        edges = []
        ids = self.ids
        group_of = self.groups.group_of
        for node in self.order:
            if id(node) in constant_like:
                continue  # drawn with its consumers' copies below
            self._edges_into(node, group_of(node), ids[id(node)], constant_like, copies, edges)
        for (key, group_key), copy_id in copies.items():
            obj = self._by_id.get(key)
            if isinstance(obj, Apply):
                group = self._group_by_id.get(group_key)
                self._edges_into(obj, group, copy_id, constant_like, copies, edges)
        return edges

    def _edges_into(self, node: Apply, group: Any, target: str, constant_like: set[int],
                    copies: dict, edges: list) -> None:
        for var in node.inputs:
            key = id(var) if var.owner is None else id(var.owner)
            if key in constant_like:
                source = copies.get((key, id(group)), self.ids.get(key))
            else:
                source = self.ids.get(key)
            if source is not None:
                edges.append({"src": source, "out": var.index if var.owner is not None else 0,
                              "dst": target})

    @property
    def _by_id(self) -> dict[int, Any]:
        found = getattr(self, "_by_id_memo", None)
        if found is None:
            found = self._by_id_memo = {id(n): n for n in self.order}
        return found

    @property
    def _group_by_id(self) -> dict[int, Any]:
        found = getattr(self, "_group_memo", None)
        if found is None:
            found = self._group_memo = {id(g): g for g in self.groups.groups}
            found[id(None)] = None
        return found

    # -- first view ---------------------------------------------------------------------
    def _first_open(self) -> list[str]:
        """A small graph opens its groups (not its series and op calls: those read as
        one box until asked); a larger one opens at the top level, every group closed."""
        around_failing = failing_groups(self.groups.ordered(), [self.groups.group_of(n) for n in self.order
                                                                if id(n) in self.failing])
        if len(self.order) > OPEN_UP_TO:
            return around_failing
        opened = [g.id for g in self.groups.ordered() if g.kind not in _CLOSED_KINDS]
        return opened + [g for g in around_failing if g not in opened]


def _inner_objects(holder: Apply, holder_id: str, only: int | None = None) -> list[tuple[str, Any]]:
    """``(id, Apply or root)`` of the nodes of ``holder``'s inner graphs (graph ``only``
    when given), nested ones included, numbered by the one id rule."""
    found = []
    for g, inner in enumerate(holder.op.inner_graphs):
        if only is not None and g != only:
            continue
        order = toposort(inner.outputs, inner.inputs)
        roots = root_variables(order, inner.inputs, inner.outputs)
        ids = node_ids(order, roots, f"{holder_id}/{g}/")
        for obj in [*roots, *order]:
            found.append((ids[id(obj)], obj))
            if isinstance(obj, Apply) and obj.op.inner_graphs:
                found += _inner_objects(obj, ids[id(obj)])
    return found


def failing_groups(groups: Iterable[Any], holding: Iterable[Any]) -> list[str]:
    """The ids of the groups around the failing nodes (``holding``: each one's innermost
    group or None), outermost first: the first view opens them, so the failing node is
    drawn (red), not hidden in a closed box."""
    found: list[str] = []
    for group in holding:
        while group is not None:
            found.append(group.id)
            group = group.parent
    ids = set(found)
    return [g.id for g in groups if g.id in ids]


def _updates(obj: Any, outputs: list[Variable]) -> list[tuple[Variable, Variable]]:
    """A compiled function's ``(shared variable, its new value)`` pairs: its graph's last
    outputs are the new values of ``f.updated_shared``, in order."""
    updated = list(getattr(obj, "updated_shared", None) or [])
    return list(zip(updated, outputs[len(outputs) - len(updated):])) if updated else []


def _update_only(obj: Any, outputs: list[Variable], order: list[Apply]) -> set[int]:
    """``id`` of the nodes of a compiled function's graph that only feed its updates
    (``f.updated_shared``: the last outputs of its graph)."""
    updated = getattr(obj, "updated_shared", None)
    if not updated:
        return set()
    main = outputs[:len(outputs) - len(updated)]
    feeds_main: set[int] = {id(v.owner) for v in main if v.owner is not None}
    for node in reversed(order):
        if id(node) in feeds_main:
            feeds_main.update(id(v.owner) for v in node.inputs if v.owner is not None)
    return {id(node) for node in order if id(node) not in feeds_main}


def _op_words(var: Variable) -> str:
    """A variable inside a library call's group as its words call it: its name, else
    its op's (``T.nnet.softmax(h)``'s ``exp``: the group names the call)."""
    return var.name if var.name is not None else var.auto_name()


def _title(obj: Any, order: list[Apply]) -> str:
    name = getattr(obj, "name", None)
    if isinstance(name, str) and name:
        return name
    if isinstance(obj, Variable):
        return words_of(obj)  # ``x[t]``, not ``Subtensor{?}``
    return f"graph of {len(order)} nodes"


class _SiteTexts:
    """What the nodes built at one place say, read once per place: a 50,000-node model
    reads each loop body's few lines, not 50,000 (the same answers as
    ``errors.label`` and ``Site.short``/``Site.line``)."""

    def __init__(self) -> None:
        self._labels: dict[tuple, str | None] = {}
        self._where: dict[tuple, tuple] = {}

    @staticmethod
    def _key(site: Any) -> tuple:
        frames = len(site) - len(site) % 2
        return tuple(map(id, site[:frames:2])), site[1:frames:2]

    def label(self, var: Variable) -> str:
        """``errors.label(var)``: a name only the site decides is read once per site."""
        if var.name is not None or isinstance(var, Constant) or (
                var.owner is not None and len(var.owner.outputs) > 1) or not var.site:
            return variable_label(var)
        key = self._key(var.site)
        if key not in self._labels:
            text = variable_label(var)
            self._labels[key] = text if text != var.auto_name() else None
        text = self._labels[key]
        return text if text is not None else var.auto_name()

    def where(self, site: Any) -> tuple[str | None, str | None]:
        """``(file:line, the source line)`` of the innermost frame, or Nones."""
        if not site:
            return None, None
        key = (id(site[0]), site[1])
        found = self._where.get(key)
        if found is None:
            found = self._where[key] = (site.short(), site.line or None)
        return found
