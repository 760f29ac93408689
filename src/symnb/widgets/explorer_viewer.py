"""The live viewer's side of :class:`~symnb.widgets.explorer.GraphExplorer`: the
client-side viewer's model and state, the widget showing it, the messages between the
two (the browser's details requests and debounced state, the Python API's commands), and
the saved form (the viewer on the embedded model, the state output beside it)."""

from __future__ import annotations

from typing import Any, Sequence

from symnb.printing.html import TEXT_STYLE, node_details_html
from symnb.printing.svg import picture_img
from symnb.printing.view_model import ViewModelParts, encode_view_model, view_model_parts
from symnb.widgets._view import WidgetView
from symnb.widgets.viewer import saved_viewer_html, state_html

__all__ = ["ViewerParts", "OVERVIEW_MIN_SCALE"]

# The static overview's smallest text (11 px in the picture) stays at 9 px or more.
OVERVIEW_MIN_SCALE = 9 / 11


class ViewerParts:
    """Mixed into ``GraphExplorer`` (before ``WidgetView``): reads its ``obj``,
    ``picture``, ``highlight``, ``times``, ``time_total``, ``call_values``, ``opened``,
    ``expanded``, ``selected``, ``picked``, ``header``, ``footer`` and ``snapshot_key``,
    and sets ``opened`` through its ``_change`` (the browser's open groups)."""

    _graph_view: Any = None  # the viewer's widget (in a box with the iteration picker, for a loop)
    _parts: ViewModelParts | None = None  # the view model and what its ids stand for
    _view_data: str | None
    _view_state: dict  # the view's last state: the browser's or the Python API's
    #: The groups the Python API drew open (``_open_ids``) as the view last heard of them;
    #: None until the view is made. A command sends the view what changed since.
    _commanded: list[str] | None = None

    def snapshot_body(self) -> str:
        """The saved form: where scripts run, the client-side viewer on the embedded model
        (in the state the user left, read from the state output); where they do not, a
        static overview of the collapsed top level, legible at the cell's width."""
        operations = sum(node["kind"] == "op" for node in self.view_model()["nodes"])
        note = (f'<div style="{TEXT_STYLE};color:#555">{operations} operations; open the '
                "notebook trusted (or its nbconvert HTML) to explore it.</div>")
        details = self.details_html() if self.selected else ""  # the failing node's values
        iterations = (f'<div class="symnb-iteration-snapshot" style="{TEXT_STYLE}">{self.iteration_html()}</div>'
                      if self.picked else "")  # the picker's values and plot, as last shown
        return (f'<div class="symnb-explorer-snapshot">{self.header}'
                f'<div class="symnb-overview">{note}{picture_img(self.overview_svg(), OVERVIEW_MIN_SCALE)}'
                f'{details}</div>'
                f"{saved_viewer_html(self.snapshot_key, self.view_data())}{self.footer}{iterations}</div>")

    def view_model(self) -> dict:
        """The client-side viewer's model of the graph (``symnb.printing.view_model``);
        for a failed call, its boxes show that call's values."""
        return self.model_parts().model

    def model_parts(self) -> ViewModelParts:
        """The view model with what its ids stand for (made once: every view and card
        reads it)."""
        if self._parts is None:
            # The picture's GroupTree: the graph is grouped once, for both representations.
            self._parts = view_model_parts(self.obj, highlight=self.highlight, times=self.times,
                                           time_total=self.time_total, call_values=self.call_values,
                                           tree=self._tree)
        return self._parts

    def details(self, node_id: str) -> str:
        """The card of node or group ``node_id`` (an id of the viewer's model: ``n3``,
        ``v0@g5``, a loop body's ``n1/0/n2``, a group's ``g4``): the values and
        heatmaps the browser's model does not carry, answered from the view model."""
        return node_details_html(self.model_parts(), node_id, self.call_values,
                                 failed=getattr(self.error, "node", None))

    def view_data(self) -> str:
        """The model as it travels and is saved: gzip + base64 within the saved budget."""
        if self._view_data is None:
            self._view_data = encode_view_model(self.view_model())
        return self._view_data

    def view_state(self) -> dict:
        """What the viewer starts from and the saved notebook keeps: the open groups, the
        selection, the overlay and the layout drawn (the browser's, once it said; else the
        Python API's, with no layout)."""
        state = {"open": self._open_ids(), "selected": self._model_id(self.selected), "overlay": self._first_overlay()}
        return {**state, **self._view_state}

    def _first_overlay(self) -> str:
        """The overlay a view opens with: a profiled function's time share (its nodes
        shaded by their share of the call, each box tagged with it, as its docstring
        says), else none."""
        time_share = self.view_model().get("overlays", {}).get("time_share")
        return "time_share" if time_share and time_share.get("values") else ""

    def _model_id(self, node_id: str) -> str:
        """The viewer's node or group for an id: the same id (a loop body's node ``n1/0/n0``
        too: the model holds the inner graphs of loops and conditions), else, for a node
        the model does not hold (inside a fused chain), the innermost node holding it
        that the model draws (``n1/0/n3`` for ``n1/0/n3/0/n0``)."""
        parts = self.model_parts()
        copied = parts.copy_of(node_id)
        if copied is not None and parts.node(node_id) is None:
            return copied["id"]  # a constant drawn as copies only: the first
        while node_id and parts.node(node_id) is None and parts.group(node_id) is None:
            node_id = node_id.rpartition("/")[0].rpartition("/")[0]
        return node_id

    def _build(self) -> Any:
        from symnb.widgets.graph_view import graph_view_class

        view = graph_view_class()(model_data=self.view_data(), view_state=self.view_state(),
                                  snapshot_key=self.snapshot_key, header=self.header, footer=self.footer)
        view.on_msg(self._on_message)
        self._graph_view = view
        self._commanded = self._open_ids()
        if not self.picked:
            return view
        from symnb.widgets.iteration_picker import iteration_picker

        import ipywidgets

        self._picker = iteration_picker(self)
        return ipywidgets.VBox([view, self._picker])

    def display(self) -> None:
        """Show the live viewer, its snapshot, and the tiny output holding the view's
        state (which the saved viewer reads; replaced in place as the state changes)."""
        super().display()
        if self._shown:
            from IPython.display import display

            display(self._state_bundle(), raw=True, display_id=self.snapshot_key + "-state")

    def _state_bundle(self) -> dict[str, str]:
        return {"text/html": state_html(self.snapshot_key, self.view_state()), "text/plain": ""}

    def iterations_changed(self) -> None:
        """The iteration picker moved: replace the whole snapshot (its picked values and
        plot are part of it; the model's encoding is kept, not redone)."""
        WidgetView.snapshot_changed(self)

    def snapshot_changed(self) -> None:
        """The state changed: replace the state output (not the snapshot, which holds the
        whole model and is sent once)."""
        if not self._shown:
            return
        from IPython.display import update_display

        update_display(self._state_bundle(), raw=True, display_id=self.snapshot_key + "-state")

    def _open_ids(self) -> list[str]:
        """The groups the viewer draws open: those the Python API opened, with the viewer's
        groups around them (a call inside a folded series ``layer() x12``), and the groups
        around the nodes the Python API expanded (and their loop bodies: the model's inner
        groups) or selected, and around the failing node (drawn red, not hidden in a
        closed group's box)."""
        model = self.view_model()
        parents = {g["id"]: g["parent"] for g in model["groups"]}
        holders = {n["id"]: n["group"] for n in model["nodes"]}
        shown = [self._model_id(i) for i in [*self.expanded, self.selected] if i]
        shown += [n["id"] for n in model["nodes"] if n["failing"]]
        found = list(self.opened)
        # An expanded loop (or condition) draws its body: its inner groups open.
        bodies = [g["id"] for g in model["groups"] if g["kind"] == "inner" and g.get("holder") in self.expanded]
        starts = [parents[g] for g in self.opened if g in parents] + bodies
        starts += [holders[i] if i in holders else parents.get(i) for i in shown]
        for group in starts:
            while group is not None and group not in found:
                found.append(group)
                group = parents.get(group)
        return found

    def _sync(self, closed: Sequence[str] = ()) -> None:
        """The Python API changed the state: tell the view (one message) and the saved state.

        The view keeps its own open groups (the user opens and closes them there, and
        says so seconds later, debounced): a command names what changes, never the whole
        set, so a Python call adds to what the user opened in the browser. ``open``: the
        groups the Python API needs open since its last command (``_open_ids``);
        ``close``: the groups it closed (``closed``; the view closes those inside too)."""
        selected = self._model_id(self.selected)
        wanted = self._open_ids()
        if self._commanded is None:  # no view yet: it starts from this state
            self._view_state = dict(self._view_state, open=wanted, selected=selected)
            self.snapshot_changed()
            return
        opened = [g for g in wanted if g not in self._commanded and g not in closed]
        shut = self._with_inside(closed)
        shown = [g for g in self.view_state()["open"] if g not in shut]
        self._view_state = dict(self._view_state, open=shown + [g for g in opened if g not in shown],
                                selected=selected)
        self._commanded = wanted
        self._graph_view.send({"command": {"open": opened, "close": list(closed), "selected": selected}})
        self.snapshot_changed()

    def _with_inside(self, groups: Sequence[str]) -> set[str]:
        """``groups`` and every viewer group inside them (which close with them)."""
        if not groups:
            return set()
        parents = {g["id"]: g["parent"] for g in self.view_model()["groups"]}
        inside = set(groups)
        for group in parents:
            holder = parents[group]
            while holder is not None and holder not in inside:
                holder = parents.get(holder)
            if holder is not None:
                inside.add(group)
        return inside

    def _inner_groups_of(self, node_ids: Sequence[str]) -> list[str]:
        """The viewer's groups drawing the inner graphs (loop bodies) of ``node_ids``."""
        return [g["id"] for g in self.view_model()["groups"]
                if g["kind"] == "inner" and g.get("holder") in node_ids]

    def _on_message(self, _view: Any, content: dict, _buffers: Any) -> None:
        if not isinstance(content, dict):
            return
        if isinstance(content.get("details"), str):
            self._graph_view.send({"details_for": content["details"], "html": self.details(content["details"])})
        elif isinstance(content.get("state"), dict):
            self._take_state(content["state"])

    def _take_state(self, state: dict) -> None:
        """The browser's state (debounced): kept for the saved notebook, and its open
        groups taken as the Python API's (``opened``: ``close_group`` closes a group the
        user opened in the browser; the next command adds to them)."""
        groups = [g for g in state.get("open", []) if isinstance(g, str)]
        selected = state.get("selected") if isinstance(state.get("selected"), str) else ""
        overlay = state.get("overlay") if isinstance(state.get("overlay"), str) else ""
        self._view_state = {"open": groups, "selected": selected, "overlay": overlay}
        layout = state.get("layout")
        if isinstance(layout, dict) and isinstance(layout.get("open"), list) and isinstance(layout.get("geometry"), dict):
            # The layout the browser drew (ELK's: not saved with the notebook): the saved
            # view draws it again, at the live view's positions.
            self._view_state["layout"] = {"open": layout["open"], "geometry": layout["geometry"]}
        parts = self.model_parts()
        known = [g for g in groups if parts.group(g) is not None]
        if selected and (parts.node(selected) is not None or parts.group(selected) is not None):
            self.selected = selected  # what the Python API reads
        self._change("opened", known)  # nothing sent: the browser drew it
        if self._commanded is not None:
            self._commanded = self._open_ids()  # what the browser has: no news for it
        self.snapshot_changed()
