"""A symnb graph as Google Model Explorer's graph JSON: :func:`to_model_explorer`.

`Model Explorer <https://github.com/google-ai-edge/model-explorer>`_ opens a *graph
collection* JSON file (its ``builtin_json`` adapter; the ``model_explorer`` package's
``graph_builder.GraphCollection``)::

    {"label": ..., "graphs": [{"id": ..., "nodes": [GraphNode, ...],
                               "groupNodeAttributes": {namespace: {key: value}}}]}

and per-node value overlays, *node data* (``node_data_builder.ModelNodeData``:
``{graph id: {"name": ..., "results": {node id: {"value": number}}}}``).

It is drawn from the view model (:func:`~symnb.printing.view_model.view_model_parts`),
the one picture the viewer also draws: the same node ids, labels, groups and edges.
What symnb knows of a graph goes where Model Explorer shows it:

- the view model's groups (the calls of the user's functions, named objects such as a
  layer library's layers, ``sn.name_scope`` blocks, ``sn.grad`` calls; not the viewer's
  own folds: series, one call's ops) are the nodes' **namespaces** (``mlp()/layer(W2)``,
  labelled as the viewer labels them; a ``/`` in a label is written ``∕``, since Model
  Explorer splits namespaces on ``/``), each group's kind and calling line in
  ``groupNodeAttributes``; a constant used by several groups is a node in each (``v3@g5``),
  as the viewer draws it;
- each value's dtype and shape is its node's **outputsMetadata** (``tensor_shape``
  ``float32[2,3]``, as Model Explorer's own adapters write it; the shapes of a compiled
  function's last call, else of the test values, else the static type with ``?``);
- each node's op (its public name, as the viewer labels it), name and **source line**
  are its attributes;
- a loop body or condition branch is a **subgraph** of its node (``subgraphIds``; a fused
  elementwise chain's box names its chain and has none, as in the viewer);
- **node data** from the test values, a call's values (replayed in NumPy) or the profile's
  time per node.

Nothing here imports the ``model_explorer`` package: the JSON is plain data.
:meth:`ModelExplorerGraph.visualize` imports it (``pip install symnb[model-explorer]``)
to open the graph in the app.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Sequence

from symnb.core.graph.basic import Variable
from symnb.core.graph.errors import label
from symnb.printing._common import collector_paused
from symnb.printing.groups import Group
from symnb.printing.model_explorer_data import node_data_sets
from symnb.printing.node_facts import family_of
from symnb.printing.view_model import view_model_parts

__all__ = ["to_model_explorer", "ModelExplorerGraph", "namespace_of"]


@dataclass
class ModelExplorerGraph:
    """A graph in Model Explorer's formats: ``collection`` is the graph collection JSON
    (a dict), ``node_data`` maps each overlay's name to its node data JSON (a dict keyed
    by graph id). The first graph, ``collection["graphs"][0]``, is the graph itself; the
    others are inner graphs (loop bodies, branches) its nodes point to."""

    collection: dict
    node_data: dict[str, dict] = field(default_factory=dict)

    @property
    def graph(self) -> dict:
        """The main graph (``collection["graphs"][0]``)."""
        return self.collection["graphs"][0]

    def to_json(self, indent: int | None = None) -> str:
        """The graph collection as JSON text: what Model Explorer's JSON adapter reads."""
        return json.dumps(self.collection, indent=indent, allow_nan=False)

    def save(self, path: str | os.PathLike) -> list[str]:
        """Write the graph to ``path`` (a ``.json`` file) and each node data overlay beside
        it (``<path stem>.<overlay>.nodedata.json``); returns the paths written, graph first."""
        path = os.fspath(path)
        with open(path, "w", encoding="utf-8") as out:
            out.write(self.to_json())
        written = [path]
        stem = path[:-5] if path.endswith(".json") else path
        for name, data in self.node_data.items():
            data_path = f"{stem}.{_file_part(name)}.nodedata.json"
            with open(data_path, "w", encoding="utf-8") as out:
                json.dump(data, out, allow_nan=False)
            written.append(data_path)
        return written

    def visualize(self, path: str | os.PathLike, *, host: str | None = None,
                  port: int | None = None, reuse_server: bool = False) -> None:
        """Save to ``path`` and open it in Model Explorer with its node data
        (``model_explorer.visualize``, on its default host and port unless given).
        Needs the ``model_explorer`` package: ``pip install symnb[model-explorer]``."""
        try:
            import model_explorer
        except ImportError as error:
            raise ImportError("ModelExplorerGraph.visualize needs Google's Model Explorer: "
                              "pip install 'symnb[model-explorer]' (or "
                              "ai-edge-model-explorer); the JSON itself needs nothing: "
                              "save() it and open it in the app") from error
        graph_path, *data_paths = self.save(path)
        node_data = [{"name": name, "node_data_path": p} for name, p in zip(self.node_data, data_paths)]
        server = {k: v for k, v in (("host", host), ("port", port)) if v is not None}
        model_explorer.visualize(graph_path, node_data=node_data, reuse_server=reuse_server, **server)


def to_model_explorer(obj: Any, values: Sequence[str] | str = ("test_values",), *,
                      args: Sequence[Any] | None = None, stat: str = "mean",
                      name: str | None = None) -> ModelExplorerGraph:
    """``obj`` (a compiled function, a ``FunctionGraph``, a variable or a list of them) as
    a Model Explorer graph, with node data overlays:

    - ``values``: which overlays, any of ``"test_values"`` (the graph run in NumPy on its
      inputs' test values and the shared variables' values), ``"call"`` (the same on
      ``args``, a call's arguments, or by default a profiled function's last timed call's:
      ``f.profile``), ``"profile"`` (seconds per call of each node: a function compiled
      with ``profile=True`` and called);
    - ``stat``: the number a value overlay shows per node (of its first output):
      ``"mean"``, ``"min"``, ``"max"``, ``"std"``, ``"absmax"`` (the largest magnitude),
      ``"l2"`` (the Euclidean norm) or ``"nonfinite"`` (how many NaN and Inf entries).
      A node whose number is NaN or Inf has no entry (JSON has no NaN): ``"nonfinite"``
      finds them.
    - ``name``: the graph's label and id (by default the function's name, else
      ``"symnb graph"``).

    >>> g = sn.printing.to_model_explorer(f, values=("test_values", "profile"))
    >>> g.save("model.json")   # open it in Model Explorer, node data beside it
    >>> g.visualize("model.json")   # or start the app on it (pip install model-explorer)
    """
    values = (values,) if isinstance(values, str) else tuple(values)
    title = str(name or getattr(obj, "name", None) or "symnb graph")
    parts = view_model_parts(obj, title=title)
    with collector_paused():
        graphs = _Graphs(parts, title).graphs()
        data = node_data_sets(obj, parts.order, parts.ids, values, args, stat, graphs[0]["id"])
    copies = {n["id"]: n["copy_of"] for n in parts.model["nodes"] if n.get("copy_of")}
    for overlay in data.values():  # a constant drawn in several groups: each copy its number
        for graph_data in overlay.values():
            results = graph_data["results"]
            results.update({copy: results[base] for copy, base in copies.items() if base in results})
    return ModelExplorerGraph({"label": title, "graphs": graphs}, data)


def namespace_of(group: dict, groups: dict[str, dict]) -> str:
    """A view model group's namespace: the labels of it and its enclosing groups,
    outermost first, joined by ``/`` (a ``/`` inside a label, as in ``∂loss/∂W``, is
    written ``∕``). The viewer's own folds (series, their parts, one call's ops) are no
    namespaces: Model Explorer folds namespaces itself."""
    path = []
    while group is not None and group["kind"] != "inner":
        if group["kind"] not in _VIEWER_FOLDS:
            path.append(_segment(group["label"]))
        group = groups.get(group["parent"]) if group["parent"] is not None else None
    return "/".join(reversed(path))


def _segment(title: str) -> str:
    return title.replace("/", "\u2215")


def _file_part(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)


_VIEWER_FOLDS = ("series", "part", "opcall")


class _Graphs:
    """The graph JSON of a view model (:class:`~symnb.printing.view_model.ViewModelParts`):
    its nodes, ids, labels, groups (namespaces) and edges as the viewer has them; each
    inner graph (an ``inner`` group: a loop's body, a branch) a graph of its own, its
    ids without the group's prefix, pointed to by its holder's ``subgraphIds``."""

    def __init__(self, parts: Any, graph_id: str) -> None:
        self.parts, self.graph_id = parts, graph_id
        model = parts.model
        self.groups = {g["id"]: g for g in model["groups"]}
        self.inner = [g for g in model["groups"] if g["kind"] == "inner"]
        self.sources: dict[str, list[dict]] = {}  # node id -> its incoming edges, in input order
        for edge in model["edges"]:
            self.sources.setdefault(edge["dst"], []).append(edge)

    def graphs(self) -> list[dict]:
        model = self.parts.model
        inner_ids = {g["id"] for g in self.inner}
        subgraphs: dict[str, list[str]] = {}  # holder node id -> its inner graphs' ids
        for group in self.inner:
            subgraphs.setdefault(group["holder"], []).append(self._inner_id(group))
        by_graph: dict[str | None, list[dict]] = {}
        for node in model["nodes"]:
            home = node["group"] if node["group"] in inner_ids else None
            by_graph.setdefault(home, []).append(node)
        main = {"id": self.graph_id, "nodes": [self._node(n, "", subgraphs) for n in by_graph.get(None, [])],
                "groupNodeAttributes": self._group_attributes()}
        inner = [{"id": self._inner_id(group),
                  "nodes": [self._node(n, group["id"] + "/", subgraphs) for n in by_graph.get(group["id"], [])]}
                 for group in self.inner]
        return [main, *inner]

    def _inner_id(self, group: dict) -> str:
        return f"{self.graph_id}/{group['id']} {group['label']}"

    def _group_attributes(self) -> dict[str, dict]:
        attributes = {}
        for view in self.parts.groups.groups:
            if view.kind in _VIEWER_FOLDS or view.source is None:
                continue
            attributes[namespace_of(self.groups[view.id], self.groups)] = _group_attributes(view.source)
        return attributes

    def _node(self, node: dict, prefix: str, subgraphs: dict[str, list[str]]) -> dict:
        obj = self.parts.objects[node["id"]]
        source = f"{node['line']}: {node['code']}" if node["code"] else node["line"] or "(unknown)"
        namespace = "" if prefix else namespace_of(self.groups.get(node["group"]), self.groups)
        if node["kind"] == "op":
            attrs = [_kv("op", node["op"]), _kv("name", node["label"]), _kv("family", family_of(obj.op)),
                     _kv("source", source)]
            if id(obj) in self.parts.origins:
                attrs.append(_kv("rewrite", self.parts.origins[id(obj)]))
            variables, label = obj.outputs, node["op"]
        else:
            attrs = [_kv("kind", node["kind"]), _kv("type", obj.type.short()), _kv("source", source)]
            if node["kind"] in ("shared", "constant") and node.get("summary"):
                attrs.append(_kv("value", node["summary"]))
            variables, label = [obj], node["label"]
        edges = [{"sourceNodeId": edge["src"][len(prefix):], "sourceNodeOutputId": str(edge["out"]),
                  "targetNodeInputId": str(k)} for k, edge in enumerate(self.sources.get(node["id"], []))]
        result = {"id": node["id"][len(prefix):], "label": label, "namespace": namespace, "attrs": attrs,
                  "incomingEdges": edges,
                  "outputsMetadata": [self._metadata(var, out, i)
                                      for i, (var, out) in enumerate(zip(variables, node["outs"]))]}
        if node["id"] in subgraphs:
            result["subgraphIds"] = subgraphs[node["id"]]
        return result

    def _metadata(self, var: Variable, out: dict, index: int) -> dict:
        lengths = out["shape"] if out["shape"] is not None else []
        dims = ",".join("?" if n is None else str(n) for n in lengths)
        return {"id": str(index), "attrs": [
            _kv("tensor_name", label(var)), _kv("tensor_shape", f"{out['dtype']}[{dims}]"),
            _kv("dtype", out["dtype"]), _kv("shape", f"({dims}{',' if len(lengths) == 1 else ''})"),
            _kv("shape from", self.parts.shapes.origin(var) or "type")]}


def _group_attributes(group: Group) -> dict[str, str]:
    attributes = {"kind": group.describe(), "nodes": str(group.size)}
    where = group.where()
    if where:
        attributes["source"] = where
    return attributes


def _kv(key: str, value: str) -> dict:
    return {"key": key, "value": value}
