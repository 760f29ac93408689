"""``GraphExplorer``: a graph in the client-side viewer, with each node's value.

``GraphExplorer(z)`` shows the graph computing ``z`` (or a list of variables, an Apply,
a compiled function's optimized graph, or an error that names a node, which is then
highlighted, with the error's message and, for a failed call, the values of that call:
its arguments and the failing node's inputs and outputs). The picture is the view model
(:func:`~symnb.printing.view_model.view_model_parts`), sent to the browser once: the
viewer opens and closes groups, searches and draws there. A graph of more than
``OPEN_UP_TO`` nodes opens with its groups closed (the calls of the user's functions,
``sn.name_scope`` blocks, ``sn.grad`` calls: one box each). The explorer is the
controller: its state is in the model's ids (``opened``, ``expanded``, ``selected``), its
commands (``open``, ``close_group``, ``expand``, ``select``) change it and tell the view,
``search`` answers with the viewer's rule, and ``details(id)`` answers the browser's
request for a node's card (values, heatmaps, inputs: what the model does not carry).
For a failed call, every node's details show its value in that call first. The saved
notebook keeps the viewer, its state and a static overview.

A function compiled with ``profile=True`` and called opens shaded by time: each node by
its share of the call (``f.profile.node_times()``), its time in its details.
``svg()`` draws the kernel's picture of the current state (Graphviz or symnb's layered
layout), made only when asked for.
"""

from __future__ import annotations

import time
from typing import Any, NamedTuple

from symnb.core.graph.errors import label
from symnb.core.graph.basic import Apply, Variable, toposort
from symnb.printing._common import graph_parts, leaf_text, output_text
from symnb.core.failed_call import CallValues, failure_values
from symnb.printing.failure import failure_html
from symnb.printing.error_focus import error_focus, error_node
from symnb.printing.failure_card import failing_card_html
from symnb.printing.graph_model import OPEN_UP_TO, GraphPicture, creation_text, first_opened, node_ids, root_variables
from symnb.printing.groups import GroupTree
from symnb.printing.html import group_facts, kind_of, value_summary
from symnb.printing.layout import layout
from symnb.printing.picture_ids import expansions_for
from symnb.printing.view_search import search_model
from symnb.printing.svg import picture_svg
from symnb.printing.view_overview import overview_svg as view_overview_svg
from symnb.widgets._view import WidgetView
from symnb.widgets.explorer_failure import FailureParts
from symnb.widgets.explorer_viewer import ViewerParts
from symnb.core.graph.traceback_filter import api_boundary

__all__ = ["GraphExplorer", "Entry"]

_INDENT = "\u00a0\u00a0"  # non-breaking: the text tree keeps its indentation in HTML
SAVED_TEXT_LINES = 200  # the saved text/plain's lines (the viewer and its overview carry the rest)


class Entry(NamedTuple):
    """One line of the text tree: a variable at ``depth``; ``repeat`` when it was
    expanded above."""

    depth: int
    variable: Variable
    repeat: bool


class GraphExplorer(FailureParts, ViewerParts, WidgetView):
    """Explore a graph as a picture: ``GraphExplorer(var)``, a list of variables, an
    Apply, a compiled function (its optimized graph) or an error carrying ``.node``.

    - ``highlight``: an Apply, a variable (its node) or an error naming a node, drawn in
      red and selected first;
    - ``engine``: how ``svg()`` and a small graph's static overview are laid out:
      ``'auto'`` (Graphviz when installed, else symnb's layered layout), ``'dot'`` or
      ``'layered'``;
    - ``header``, ``footer``: HTML shown above and below the picture (``%%symgraph``'s
      table of variables, a profile);
    - ``times``: ``{Apply: seconds per call}`` to colour the nodes by; by default a
      profiled function's own (``f.profile.node_times()``: the profile's kept
      measurement, the one ``f.profile.summary()`` prints), once it has been called;
      ``{}`` draws a profiled function uncoloured;
    - ``time_total``: the seconds the nodes' shares are of (a profile's real call; by
      default the profiled function's, else the nodes' sum).
    """

    @api_boundary  # the user calls it: errors show the user's line
    def __init__(self, obj: Any, highlight: Any = None, engine: str = "auto", header: str = "",
                 footer: str = "", times: dict[Apply, float] | None = None,
                 time_total: float | None = None) -> None:
        #: The error the explorer was made for (``GraphExplorer(err)``), else None.
        self.error = obj if isinstance(obj, BaseException) else None
        if self.error is not None:
            focus = error_focus(self.error, "GraphExplorer")  # a node of a loop body: drawn in its function's graph (or the loop's)
            obj = focus.graph
            highlight = focus.marked if highlight is None or focus.holder is not None else highlight
            values = self.call_values
            header = header or failure_html(self.error, explorer=True)  # the message, arguments folded
            if values is not None and values.inputs is not None:  # under the picture: what it read
                footer = failing_card_html(values) + footer
            _compute_test_values(error_node(self.error, "GraphExplorer"))  # the node the view is about is never "pending"
        self.obj = obj
        self.engine = engine
        self.header, self.footer = header, footer
        highlight = [] if highlight is None else highlight if isinstance(highlight, list) else [highlight]
        self.highlight = [_node_of(h) for h in highlight]
        if times is None:
            times, time_total = _profile_times(obj)
        self.times, self.time_total = times, time_total
        outputs, order = graph_parts(obj)
        self.position = {id(node): i for i, node in enumerate(order or ())}
        self._outputs = outputs
        self._entries: list[Entry] | None = None
        order = order if order is not None else toposort(outputs)
        roots = root_variables(order, (), outputs)
        #: The graph's groups (made once: the view model and the picture read them).
        self._tree = GroupTree(order, roots)
        ids = node_ids(order, roots)
        #: The state, in the view model's ids: the groups the Python API opened, the
        #: nodes whose inner graphs it drew, the selected node or group.
        self.expanded: list[str] = []
        self.opened: list[str] = sorted(first_opened(self._tree, len(order), self.highlight), key=_group_order)
        self._picture: GraphPicture | None = None  # drawn from the state when asked for
        self._picture_key: tuple = ()
        self._laid_out: tuple | None = None
        self.draw_seconds = 0.0
        self._view_data: str | None = None
        self._view_state: dict = {}  # the view's last state: the browser's or the Python API's
        call = self.call_values
        #: For a failure in a loop body: the iteration picked at each loop level (outermost
        #: first), the value plotted over the iterations and the summary plotted.
        self.picked: list[int] = [n for _, n in call.loops] if call is not None else []
        self.plotted: Variable | None = None
        self.measure = "norm"
        self._picker: Any = None
        first = ids.get(id(self.highlight[0])) if self.highlight else None
        self.selected = first or ""
        if self.highlight and first is None:  # in a loop body: its loop opens at it
            inner = self._inner_ids(self.highlight[0])
            if inner:
                self.select(inner[0])

    # -- the picture --------------------------------------------------------------------
    # The server-side picture is drawn and laid out only when asked for (``svg()``,
    # ``layout``, a small graph's static overview), from the state: the browser's viewer
    # draws the live view, a command changes the state and tells the viewer, nothing is
    # redrawn here; and Graphviz takes minutes on some graphs of a few hundred boxes.
    @property
    def picture(self) -> GraphPicture:
        """The server-side picture of the current state (made when first read after a
        change)."""
        key = (tuple(self.expanded), tuple(self.opened))
        if self._picture is None or self._picture_key != key:
            started = time.perf_counter()
            self._picture = GraphPicture(self.obj, self.expanded, self.highlight, self.times,
                                         opened=self.opened, time_total=self.time_total, like=self._picture,
                                         call_shapes=self.call_values.shapes() if self.call_values else None)
            self._picture_key, self._laid_out = key, None
            self.draw_seconds = time.perf_counter() - started
        return self._picture

    @property
    def layout(self) -> Any:
        """The server-side picture's layout (made on first use)."""
        return self._server_picture()[0]

    @property
    def _svg(self) -> str:
        return self._server_picture()[1]

    def _server_picture(self) -> tuple:
        picture = self.picture
        if self._laid_out is None:
            started = time.perf_counter()
            laid_out = layout(picture, self.engine)
            self._laid_out = (laid_out, picture_svg(picture, laid_out))
            self.draw_seconds += time.perf_counter() - started
        return self._laid_out

    def svg(self) -> str:
        """The picture, as SVG."""
        return self._svg

    def node_ids(self) -> list[str]:
        """The ids of the nodes drawn at the top level, in drawing order."""
        return list(self.picture.nodes)

    def id_of(self, obj: Apply | Variable) -> str | None:
        """The id of the node drawing ``obj``: its own or its closed group's box, or its
        node in an inner graph drawn expanded."""
        found = self.picture.id_of(obj)
        if found is None and isinstance(obj, Variable) and obj.owner is not None:
            obj = obj.owner
        return found or next((node_id for node_id in self._inner_ids(obj)
                              if self.picture.find(node_id) is not None), None)

    def _inner_ids(self, obj: Apply | Variable) -> list[str]:
        """The ids ``obj`` has in the inner graphs (drawn or not)."""
        return self.model_parts().inner_ids(obj)

    def select(self, node_id: str) -> str:
        """Select node or group ``node_id`` (an id of the viewer's model, as :meth:`search`
        returns them: ``n3``, ``v0@g5``, ``n1/0/n2``, a group's ``g4``); returns its
        details (HTML). A node inside closed groups or in an inner graph not drawn (a
        search hit) is brought into sight: its groups open and the nodes holding it expand."""
        parts = self.model_parts()
        if parts.node(node_id) is None and parts.group(node_id) is None:
            node_id = node_id.split("@", 1)[0]  # a constant's copy: the constant
        if parts.group(node_id) is None:
            outer = expansions_for(node_id)
            holder = parts.obj_of(outer[0] if outer else node_id)
            if holder is None or parts.obj_of(node_id) is None:
                raise KeyError(f"no node {node_id!r} in the graph (ids are as search() and "
                               "node_ids() return them)")
            around = [g.id for g in self._tree.group_of(holder).ancestors()]
            self._change("opened", self.opened + around)
            self._change("expanded", self.expanded + outer)
        self.selected = node_id
        self._sync()
        return self.details_html()

    @property
    def call_values(self) -> CallValues | None:
        """The failed call's values (``err.call_values``) the explorer was made for, if any,
        or a loop's failing at build time, on the test values (``failure_values``):
        every node's details show its value in that call first."""
        return failure_values(self.error) if self.error is not None else None

    def details_html(self) -> str:
        """The selected node's card (:meth:`details`)."""
        return self.details(self.selected)

    def compute(self, node_id: str) -> str:
        """Compute the test values of node ``node_id``'s inputs and outputs (shown as
        pending until read); returns its details."""
        obj = self.model_parts().obj_of(node_id)
        if obj is None:
            raise KeyError(f"no node {node_id!r} in the graph")
        if isinstance(obj, Apply):
            _compute_test_values(obj)
        self.selected = node_id
        self._sync()
        return self.details_html()

    def expand(self, node_id: str) -> None:
        """Draw the inner graphs of node ``node_id`` (a loop, condition, fused chain) in it
        (and those of the nodes holding it)."""
        obj = self.model_parts().obj_of(node_id)
        if not isinstance(obj, Apply) or not obj.op.inner_graphs:
            raise ValueError(f"node {node_id!r} holds no inner graph")
        self._set("expanded", self.expanded + expansions_for(node_id) + [node_id])

    def close(self, node_id: str) -> None:
        """Stop drawing node ``node_id``'s inner graphs (and those opened inside them)."""
        removed = [i for i in self.expanded if i == node_id or i.startswith(node_id + "/")]
        self._set("expanded", [i for i in self.expanded if i not in removed],
                  closed=self._inner_groups_of(removed))

    def open(self, group_id: str) -> None:
        """Draw group ``group_id`` (a closed group's box, ``g3``) open: its boxes in a frame.
        The groups the user opened in the live viewer stay open.

        A graph of more than ``OPEN_UP_TO`` nodes is first drawn with its groups closed
        (the calls of the user's functions, ``sn.name_scope`` blocks, ``sn.grad`` calls)."""
        if self.model_parts().group(group_id) is None:
            raise ValueError(f"no group {group_id!r} in the picture")
        self._set("opened", self.opened + [group_id])

    def close_group(self, group_id: str) -> None:
        """Draw group ``group_id`` as one box again (its open subgroups close with it),
        in the live viewer too, where the user may have opened it."""
        inside = self._with_inside([group_id])
        self._set("opened", [i for i in self.opened if i not in inside], closed=[group_id])

    def _set(self, name: str, ids: list[str], closed: list[str] = ()) -> None:
        """Set the ids of ``name`` (``opened``, ``expanded``), redraw and
        tell the view; ``closed``: viewer groups to close there (open in the browser, maybe
        only there)."""
        if self._change(name, ids) or closed:
            self._sync(closed)

    def _change(self, name: str, ids: list[str]) -> bool:
        """Set the ids of ``name``; False when they are the same."""
        ids = list(dict.fromkeys(ids))
        if name == "opened":
            ids.sort(key=_group_order)
        if ids == getattr(self, name):
            return False
        setattr(self, name, ids)
        return True

    def search(self, query: str) -> list[str]:
        """The viewer's search, answered here: the ids of the viewer's model whose label,
        name or op contains ``query`` (any case), then the groups' whose label does, then
        the nodes' whose source line does (``symnb.printing.view_search``, the browser's
        rule). The whole graph: nodes inside closed groups and loop bodies too
        (``select`` opens their groups)."""
        return search_model(self.view_model(), query)

    # -- text ---------------------------------------------------------------------------
    @property
    def entries(self) -> list[Entry]:
        """The text tree's lines (made when first read: a big graph's picture need not
        wait for them)."""
        if self._entries is None:
            self._entries = _tree(self._outputs)
        return self._entries

    def labels(self) -> list[str]:
        """The graph as an indented tree (debugprint's order), one line per variable."""
        return [_INDENT * e.depth + self._entry_text(e) for e in self.entries]

    def _entry_text(self, entry: Entry) -> str:
        var = entry.variable
        if var.owner is None:
            text = leaf_text(var)
        else:
            text, name = output_text(var), label(var)
            if name != text:  # the user's name, or the source text that built it
                text += f" '{name}'"
            if id(var.owner) in self.position:
                text += f"  #{self.position[id(var.owner)]}"
        return text + ("  (shown above)" if entry.repeat else "")

    def describe(self, which: int | str) -> str:
        """The details of a node, as text: ``which`` is a tree line's index
        (:meth:`labels`) or a node id (as :meth:`search` and :meth:`node_ids` return
        them, ``'n3'``, ``'v0'``, a closed group's ``'g2'``): op, creation line, inputs
        and outputs."""
        if isinstance(which, str):
            return self._describe_id(which)
        return self._describe_variable(self.entries[which].variable)

    def _describe_id(self, node_id: str) -> str:
        parts = self.model_parts()
        group = parts.group(node_id)
        if group is not None:
            made, holds, where, entering, leaving = group_facts(parts, group)
            lines = [f"{group['label']}: {made}, {holds}"]
            lines += [f"called at {where}"] if where else []
            lines += ["inputs:"] + [_io_line(i, v) for i, v in enumerate(entering)]
            lines += ["outputs:"] + [_io_line(i, v) for i, v in enumerate(leaving)]
            return "\n".join(lines)
        obj = parts.obj_of(node_id)
        obj = obj if obj is not None else parts.obj_of(node_id.split("@", 1)[0])  # a constant's copy
        if obj is None:
            raise KeyError(f"no node {node_id!r} in the graph (ids are as search() and "
                           "node_ids() return them)")
        return self._describe_variable(obj.outputs[0] if isinstance(obj, Apply) else obj)

    def _describe_variable(self, var: Variable) -> str:
        name, kind = label(var), kind_of(var)
        lines = [name if name == kind else f"{name}: {kind}", f"created at {creation_text(var)}"]
        if var.owner is None:
            lines += [f"type: {var.type!r}", f"test value: {value_summary(var)}"]
            return "\n".join(lines)
        lines.append("inputs:")
        lines += [_io_line(i, v) for i, v in enumerate(var.owner.inputs)]
        lines.append("outputs:")
        lines += [_io_line(i, v) + ("   <- selected" if v is var else "")
                  for i, v in enumerate(var.owner.outputs)]
        return "\n".join(lines)

    def text(self) -> str:
        return "\n".join(line.replace(_INDENT, "  ") for line in self.labels())

    def snapshot_text(self, lines: int = SAVED_TEXT_LINES, width: int = 160) -> str:
        """The saved ``text/plain``: the tree's first ``lines`` lines, each cut at ``width``
        characters (a deep graph's whole tree, indented, ran to megabytes per view)."""
        text = self.text().split("\n")
        kept = [line if len(line) <= width else line[:width - 1] + "\u2026" for line in text[:lines]]
        if len(text) > lines:
            kept.append(f"... {len(text) - lines} more lines (explorer.text() has them all)")
        return "\n".join(kept)

    def overview_svg(self) -> str:
        """The static overview: a graph the viewer opens with its groups closed (more than
        ``OPEN_UP_TO`` nodes) as its collapsed top level in columns that fit the cell (the
        forward path, the gradient, the updates: ``view_overview``); a smaller one as its
        whole picture."""
        if len(self.view_model()["nodes"]) > OPEN_UP_TO:
            return view_overview_svg(self.view_model())
        if not self.opened and not self.expanded:
            return self._svg
        picture = GraphPicture(self.obj, [], self.highlight, self.times, opened=[],
                               time_total=self.time_total)
        return picture_svg(picture, layout(picture, self.engine))


def _group_order(group_id: str) -> int:
    return int(group_id[1:]) if group_id[1:].isdigit() else -1


def _compute_test_values(node: Apply) -> None:
    """Compute the failing node's test values if they were left pending (labelled as
    test values in the view); a graph whose test values cannot be computed keeps none."""
    for var in list(node.inputs) + list(node.outputs):
        try:
            var.test_value
        except Exception:  # no test value, or it fails: the view says so
            pass


def _profile_times(obj: Any) -> tuple[dict[Apply, float], float | None]:
    """A profiled function's time per node and per call, once it has been called; else none."""
    profile = getattr(obj, "profile", None)
    report = profile.report() if profile is not None else None
    return (profile.node_times(), report.call_seconds) if report is not None else ({}, None)


def _node_of(obj: Any) -> Apply:
    if isinstance(obj, BaseException):
        return error_node(obj, "GraphExplorer")
    if isinstance(obj, Variable) and obj.owner is not None:
        return obj.owner
    if isinstance(obj, Apply):
        return obj
    raise TypeError(f"highlight must be an Apply, a computed Variable or an error naming a "
                    f"node, not {type(obj).__name__}")


def _io_line(position: int, var: Variable) -> str:
    return f"  #{position} {label(var)}: {var.type!r}  {value_summary(var)}"


def _tree(outputs: list[Variable]) -> list[Entry]:
    """Depth-first entries from each output; a node's inputs are listed once, where first met."""
    entries: list[Entry] = []
    expanded: set[int] = set()
    for out in outputs:
        stack = [(out, 0)]
        while stack:
            var, depth = stack.pop()
            node = var.owner
            repeat = node is not None and id(node) in expanded
            entries.append(Entry(depth, var, repeat))
            if node is not None and not repeat:
                expanded.add(id(node))
                stack.extend((inp, depth + 1) for inp in reversed(node.inputs))
    return entries
