"""A symnb graph as Google Model Explorer's graph JSON: :func:`to_model_explorer`.

`Model Explorer <https://github.com/google-ai-edge/model-explorer>`_ opens a *graph
collection* JSON file (its ``builtin_json`` adapter; the ``model_explorer`` package's
``graph_builder.GraphCollection``)::

    {"label": ..., "graphs": [{"id": ..., "nodes": [GraphNode, ...],
                               "groupNodeAttributes": {namespace: {key: value}}}]}

and per-node value overlays, *node data* (``node_data_builder.ModelNodeData``:
``{graph id: {"name": ..., "results": {node id: {"value": number}}}}``).

What symnb knows of a graph goes where Model Explorer shows it:

- symnb's groups (:class:`~symnb.printing.groups.GroupTree`: the calls of the user's
  functions, named objects such as a layer library's layers, ``sn.name_scope`` blocks,
  ``sn.grad`` calls) are the nodes' **namespaces** (``mlp()/layer() #2``; a ``/`` in a
  title is written ``∕``, since Model Explorer splits namespaces on ``/``), each group's
  kind and calling line in ``groupNodeAttributes``;
- each value's dtype and shape is its node's **outputsMetadata** (``tensor_shape``
  ``float32[2,3]``, as Model Explorer's own adapters write it; the shapes of a compiled
  function's last call, else of the test values, else the static type with ``?``);
- each node's op, name and **source line** are its attributes;
- a loop body or condition branch is a **subgraph** of its node (``subgraphIds``);
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

from symnb.core.graph.basic import Apply, Constant, Variable, toposort
from symnb.core.graph.errors import label
from symnb.core.tensor.shared import SharedVariable
from symnb.printing._common import collector_paused, graph_parts, summarize_value, value_text
from symnb.printing._inner import has_inner_graphs, inner_titles
from symnb.printing.graph_model import node_ids, root_variables
from symnb.printing.groups import Group, GroupTree
from symnb.printing.labels import Shapes, node_name, op_name, rewrite_origins
from symnb.printing.model_explorer_data import node_data_sets
from symnb.printing.node_facts import creation_text, family_of

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
    with collector_paused():
        outputs, order = graph_parts(obj)
        order = order if order is not None else toposort(outputs)
        title = name or getattr(obj, "name", None) or "symnb graph"
        builder = _GraphBuilder(obj, outputs, order, str(title))
        graphs = builder.graphs()
        data = node_data_sets(obj, order, builder.ids, values, args, stat, graphs[0]["id"])
    return ModelExplorerGraph({"label": str(title), "graphs": graphs}, data)


def namespace_of(group: Group) -> str:
    """A group's namespace: the titles of it and its enclosing groups, outermost first,
    joined by ``/`` (a ``/`` inside a title, as in ``∂loss/∂W``, is written ``∕``)."""
    return "/".join(_segment(g.title or g.name) for g in group.ancestors())


def _segment(title: str) -> str:
    return title.replace("/", "\u2215")


def _file_part(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)


class _GraphBuilder:
    """The graph JSON of one graph: ids ``v0``... for roots and ``n0``... for Apply nodes
    (execution order), as :class:`~symnb.printing.graph_model.GraphPicture` numbers them."""

    def __init__(self, obj: Any, outputs: list[Variable], order: list[Apply], graph_id: str,
                 tree: bool = True) -> None:
        self.obj, self.order, self.graph_id = obj, order, graph_id
        self.roots = root_variables(order, (), outputs)
        self.shapes = Shapes(called=getattr(obj, "last_shapes", None))
        self.origins = rewrite_origins(obj, order) if obj is not None else {}
        self.tree = GroupTree(order, self.roots) if tree else None
        self.ids = node_ids(order, self.roots)
        self.inner: list[dict] = []

    def graphs(self) -> list[dict]:
        nodes = [self._root_node(var) for var in self.roots]
        nodes += [self._apply_node(node) for node in self.order]
        graph: dict = {"id": self.graph_id, "nodes": nodes}
        if self.tree is not None:
            graph["groupNodeAttributes"] = {namespace_of(g): _group_attributes(g)
                                            for g in self.tree.groups()}
        return [graph, *self.inner]

    def _namespace(self, obj: Apply | Variable) -> str:
        return namespace_of(self.tree.group_of(obj)) if self.tree is not None else ""

    def _root_node(self, var: Variable) -> dict:
        if isinstance(var, Constant):
            kind, text = "constant", var.name or value_text(var.data)
        else:
            kind, text = ("shared" if isinstance(var, SharedVariable) else "input"), label(var)
        attrs = [_kv("kind", kind), _kv("type", var.type.short()), _kv("source", creation_text(var))]
        if kind != "input":
            attrs.append(_kv("value", summarize_value(var.data if kind == "constant"
                                                      else var.get_value(borrow=True))))
        return {"id": self.ids[id(var)], "label": text, "namespace": self._namespace(var),
                "attrs": attrs, "incomingEdges": [], "outputsMetadata": [self._metadata(var, 0)]}

    def _apply_node(self, node: Apply) -> dict:
        node_id = self.ids[id(node)]
        op = node.op.display_name()
        attrs = [_kv("op", op), _kv("name", node_name(node, self.origins)),
                 _kv("family", family_of(node.op)), _kv("source", creation_text(node.outputs[0]))]
        if id(node) in self.origins:
            attrs.append(_kv("rewrite", self.origins[id(node)]))
        edges = [{"sourceNodeId": self._source(var), "sourceNodeOutputId": str(var.index or 0)
                  if var.owner is not None else "0", "targetNodeInputId": str(k)}
                 for k, var in enumerate(node.inputs) if self._source(var)]
        result = {"id": node_id, "label": op_name(node), "namespace": self._namespace(node),
                  "attrs": attrs, "incomingEdges": edges,
                  "outputsMetadata": [self._metadata(out, i) for i, out in enumerate(node.outputs)]}
        if has_inner_graphs(node):
            result["subgraphIds"] = self._inner_graphs(node, node_id)
        return result

    def _source(self, var: Variable) -> str:
        key = id(var.owner) if var.owner is not None and id(var.owner) in self.ids else id(var)
        return self.ids.get(key, "")

    def _metadata(self, var: Variable, index: int) -> dict:
        shape = self.shapes.shape(var)
        lengths = shape if shape is not None else var.type.shape
        dims = ",".join("?" if n is None else str(int(n)) for n in lengths)
        return {"id": str(index), "attrs": [
            _kv("tensor_name", label(var)), _kv("tensor_shape", f"{var.dtype}[{dims}]"),
            _kv("dtype", str(var.dtype)), _kv("shape", f"({dims}{',' if len(lengths) == 1 else ''})"),
            _kv("shape from", self.shapes.origin(var) or "type")]}

    def _inner_graphs(self, node: Apply, node_id: str) -> list[str]:
        graphs = node.op.inner_graphs
        ids = []
        for g, (graph, title) in enumerate(zip(graphs, inner_titles(node.op, len(graphs)))):
            inner_id = f"{self.graph_id}/{node_id}/{g} {title}"
            inner_order = toposort(graph.outputs, graph.inputs)
            builder = _GraphBuilder(None, list(graph.outputs), inner_order, inner_id, tree=False)
            self.inner.extend(builder.graphs())
            ids.append(inner_id)
        return ids


def _group_attributes(group: Group) -> dict[str, str]:
    attributes = {"kind": group.describe(), "nodes": str(group.size)}
    where = group.where()
    if where:
        attributes["source"] = where
    return attributes


def _kv(key: str, value: str) -> dict:
    return {"key": key, "value": value}
