"""The groups of the client-side viewer's model (:mod:`symnb.printing.view_model`),
derived from the pictures' :class:`~symnb.printing.groups.GroupTree`:

- **series folding**: ``SERIES_FROM`` or more calls of one function (or named
  objects of one class) side by side that built the same ops in the same wiring (shapes may differ: the first layer reads the input's width) fold
  into one group ``layer() x12`` whose items are the calls in order; more than
  ``SERIES_OF`` items are cut into runs. The gradient's mirrors of those calls fold
  into a series mirroring the forward one;
- **op calls**: the nodes one call the user wrote built (``T.nnet.relu(h)``: abs, add,
  mul; ``x.flatten(2)``: the shape arithmetic) are one group named as the call
  (``relu``), found from the nodes' creation sites (one instruction of one call);
- **labels**: a call is named by the parameter that tells it from its siblings
  (``layer(W7)``), else numbered from 0 as the user's loop index (``layer() #7``); a
  gradient's mirror is named as the call it mirrors;
- **regions**: ``forward``, ``gradient`` (inside an ``sn.grad`` group) or ``updates``
  (only feeding a compiled function's shared-variable updates), and ``mirrors``: the
  forward group a gradient group is the gradient of.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from symnb.core.graph.basic import Apply, Constant
from symnb.core.tensor.shared import SharedVariable
from symnb.printing.groups import SERIES_OF, Group, GroupTree

__all__ = ["ViewGroup", "ViewGroups", "call_name", "SERIES_FROM"]

SERIES_FROM = 3  # calls side by side that fold into a series (two read as well as their fold)


@dataclass(eq=False)
class ViewGroup:
    """One group of the viewer's model (``parent`` None: at the top level)."""

    id: str
    kind: str
    label: str
    parent: "ViewGroup | None"
    region: str = "forward"
    mirrors: "ViewGroup | None" = None
    items: list["ViewGroup"] = field(default_factory=list)  # a series: the calls in order
    source: Group | None = None  # the GroupTree group it stands for (None: made here)
    name: str = ""  # a call's function
    family: str = ""  # what calls of one kind share: the function, a named object's class

    def to_json(self) -> dict:
        return {"id": self.id, "parent": self.parent.id if self.parent else None,
                "label": self.label, "kind": self.kind, "region": self.region,
                "mirrors": self.mirrors.id if self.mirrors else None,
                "series": {"count": len(self.items), "items": [g.id for g in self.items]}
                if self.kind == "series" else None}


def call_name(expression: str | None) -> str | None:
    """``relu`` for ``T.nnet.relu(T.dot(x, W) + b)``, ``flatten`` for ``x.flatten(2)``:
    the function an expression calls, or None when it is not a call."""
    if not expression:
        return None
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError:
        return None
    body = tree.body
    if not isinstance(body, ast.Call):
        return None
    func = body.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


class ViewGroups:
    """The viewer's groups for a graph whose nodes are ``order``, grouped by ``tree``.

    ``update_only``: ``id`` of the Apply nodes that only feed a compiled function's
    updates (their groups are the ``updates`` region)."""

    def __init__(self, tree: GroupTree, order: list[Apply], update_only: set[int] = frozenset()) -> None:
        self.tree = tree
        self.order = order
        self._position = {id(node): i for i, node in enumerate(order)}
        self._next = tree._made  # new groups' ids follow the tree's
        self.groups: list[ViewGroup] = []
        self._of_tree: dict[int, ViewGroup] = {}  # id(tree group) -> its view group
        self._node_group: dict[int, ViewGroup | None] = {}  # id(Apply) -> innermost group
        self._keys = {id(child): key for (_, key), child in tree._children.items()}
        self._update_only = update_only
        self._adopt(tree.top, None, False)
        self._forward_work_out_of_the_gradient()
        self._mirror_gradients()
        self._label_calls(tree.top)
        self._fold_series()
        self._fold_gradient_series()
        self._op_calls()
        self._regions()

    # -- reading ----------------------------------------------------------------------
    def group_of(self, node: Apply) -> ViewGroup | None:
        """The innermost group holding ``node`` (None: the top level)."""
        return self._node_group.get(id(node))

    def of_tree(self, group: Group) -> ViewGroup | None:
        """The view group standing for a GroupTree group (None for the top level and the
        tree's own runs of calls, which series replace)."""
        return self._of_tree.get(id(group))

    def ordered(self) -> list[ViewGroup]:
        """Every group, parents before children."""
        depth: dict[int, int] = {}

        def depth_of(group: ViewGroup) -> int:
            known = depth.get(id(group))
            if known is None:
                known = depth[id(group)] = 0 if group.parent is None else depth_of(group.parent) + 1
            return known

        return sorted(self.groups, key=depth_of)

    # -- building ---------------------------------------------------------------------
    def _new(self, kind: str, label: str, parent: ViewGroup | None, source: Group | None = None,
             group_id: str | None = None) -> ViewGroup:
        if group_id is None:
            group_id = f"g{self._next}"
            self._next += 1
        group = ViewGroup(group_id, kind, label, parent, source=source)
        self.groups.append(group)
        return group

    def _adopt(self, group: Group, parent: ViewGroup | None, gradient: bool) -> None:
        """The tree's groups as view groups (same ids); the tree's runs of 20 calls are
        left out (their calls sit in the run's parent until folded into a series)."""
        for child in group.children:
            if child.kind == "series":
                self._adopt(child, parent, gradient)
                continue
            view = self._new(child.kind, child.title, parent, child, child.id)
            view.name = child.name
            view.family = _family(child)
            view.region = "gradient" if gradient or child.kind == "grad" else "forward"
            self._of_tree[id(child)] = view
            for node in child.nodes:
                self._node_group[id(node)] = view
            self._adopt(child, view, view.region == "gradient")
        if group is self.tree.top:
            for node in group.nodes:
                self._node_group[id(node)] = None

    def _forward_work_out_of_the_gradient(self) -> None:
        """A node the rewrites share between the loss and its gradient (``LogSoftmax``
        standing for the user's ``log(softmax(...))``, made while ``sn.grad`` ran) sits in
        the gradient group, yet the function's outputs need it: in a training function
        (the gradient only feeds the updates) it goes to the forward group of the nodes
        using it, so the forward path never runs through the gradient region."""
        if not self._update_only:
            return
        users: dict[int, list[Apply]] = {}
        for node in self.order:
            for var in node.inputs:
                if var.owner is not None:
                    users.setdefault(id(var.owner), []).append(node)
        for node in reversed(self.order):
            group = self._node_group.get(id(node))
            if group is None or group.region != "gradient" or id(node) in self._update_only:
                continue
            forward = [u for u in users.get(id(node), []) if id(u) not in self._update_only]
            homes = [self._node_group.get(id(u)) for u in forward]
            if forward and all(h is None or h.region == "forward" for h in homes):
                self._node_group[id(node)] = self.common_ancestor(homes)

    def _mirror_gradients(self) -> None:
        """Each group inside an ``sn.grad`` group mirrors the forward group reached by the
        same steps (call, scope) from where the gradient was taken."""
        children = self.tree._children
        for view in self.groups:
            if view.region != "gradient" or view.kind == "grad" or view.source is None:
                continue
            steps, group = [], view.source
            while group is not None and group.kind != "grad":
                steps.append(self._keys.get(id(group)))
                group = group.parent
            if group is None or None in steps:
                continue
            forward = group.parent
            for key in reversed(steps):
                forward = children.get((id(forward), key)) if forward is not None else None
            mirrored = self._of_tree.get(id(forward)) if forward is not None else None
            if mirrored is not None and mirrored.region == "forward":
                view.mirrors = mirrored

    def _label_calls(self, group: Group) -> None:
        """A call named by its own first parameter where that tells the calls of one
        function apart (``layer(W7)``), else numbered from 0 in call order (as the loop
        that made them counts: ``layer() #7`` holds ``W7``); a lone call is ``layer()``."""
        forward = [self._of_tree[id(c)] for c in _calls_of(group) if id(c) in self._of_tree]
        by_name: dict[str, list[ViewGroup]] = {}
        for view in forward:
            if view.kind == "call" and view.region == "forward":
                by_name.setdefault(view.name, []).append(view)
        for name, calls in by_name.items():
            if len(calls) < 2 or name.startswith("<"):
                continue
            calls.sort(key=lambda v: v.source.order)
            params = [_first_parameter(v.source) for v in calls]
            distinct = None not in params and len(set(params)) == len(params)
            base = f"{name}()"
            for number, (view, param) in enumerate(zip(calls, params)):
                view.label = f"{name}({param})" if distinct else f"{base} #{number}"
        for child in _calls_of(group):
            self._label_calls(child)
        if group is self.tree.top:
            for view in self.groups:
                if view.mirrors is not None and view.kind == view.mirrors.kind:
                    view.label = view.mirrors.label

    def _signature(self, view: ViewGroup) -> tuple:
        """The ops of a group (nested groups' included) and how they are wired, by
        position: equal for two calls that built the same thing, whatever the shapes."""
        position = self._position
        nodes = sorted(_nodes_under(view.source), key=lambda node: position[id(node)])
        local = {id(node): i for i, node in enumerate(nodes)}
        outside: dict[int, int] = {}
        entries = []
        for node in nodes:
            wires = []
            for var in node.inputs:
                if var.owner is not None and id(var.owner) in local:
                    wires.append((local[id(var.owner)], var.index))
                elif isinstance(var, Constant):
                    wires.append(("c",))
                else:
                    wires.append(("x", outside.setdefault(id(var), len(outside))))
            entries.append((node.op.display_name(), tuple(wires)))
        return tuple(entries)

    def _fold_series(self) -> None:
        """Calls of one function side by side with one signature: one series group."""
        signature_of: dict[int, tuple] = {}

        def signature(view: ViewGroup) -> tuple:
            if id(view) not in signature_of:
                signature_of[id(view)] = self._signature(view)
            return signature_of[id(view)]

        siblings_of: dict[int, tuple] = {}
        for view in self.groups:
            if view.region == "forward":
                siblings_of.setdefault(id(view.parent), (view.parent, []))[1].append(view)
        for parent, siblings in siblings_of.values():
            counts: dict[tuple, int] = {}
            for view in siblings:
                counts[(view.kind, view.family)] = counts.get((view.kind, view.family), 0) + 1
            if not any(n >= SERIES_FROM for key, n in counts.items() if key[1]):
                continue  # no family has calls enough to fold: no signature is needed
            run: list[ViewGroup] = []
            first = None
            for view in siblings + [None]:
                foldable = (view is not None and view.kind in ("call", "owner") and bool(view.family)
                            and counts[(view.kind, view.family)] >= SERIES_FROM)
                same = (foldable and run and view.kind == run[0].kind and view.family == run[0].family
                        and signature(view) == first)
                if same:
                    run.append(view)
                    continue
                if len(run) >= SERIES_FROM:
                    self._make_series(run, parent)
                run, first = ([view], signature(view)) if foldable else ([], None)

    def _make_series(self, run: list[ViewGroup], parent: ViewGroup | None) -> ViewGroup:
        """``layer() x12`` (calls of a function), ``Dense x12`` (named objects of a class)."""
        first = run[0]
        name = f"{first.family}()" if first.kind == "call" else first.family
        series = self._new("series", f"{name} x{len(run)}", parent)
        series.name, series.family, series.items, series.region = name, first.family, list(run), first.region
        self._place_items(series, run)
        return series

    def _place_items(self, series: ViewGroup, run: list[ViewGroup]) -> None:
        if len(run) <= SERIES_OF:
            for view in run:
                view.parent = series
            return
        for start in range(0, len(run), SERIES_OF):
            part = run[start:start + SERIES_OF]
            holder = self._new("part", f"{series.name} #{start}\u2013#{start + len(part) - 1}", series)
            holder.region = series.region
            for view in part:
                view.parent = holder

    def _fold_gradient_series(self) -> None:
        """The gradient's mirrors of a forward series' calls fold into one series that
        mirrors it (its items in the forward order)."""
        series_of = {id(item): g for g in self.groups if g.kind == "series" for item in g.items}
        runs: dict[tuple, list[ViewGroup]] = {}
        for view in self.groups:
            if view.region == "gradient" and view.mirrors is not None and id(view.mirrors) in series_of:
                runs.setdefault((id(view.parent), id(series_of[id(view.mirrors)])), []).append(view)
        for views in runs.values():
            if len(views) < 2:
                continue
            forward = series_of[id(views[0].mirrors)]
            position = {id(item): i for i, item in enumerate(forward.items)}
            views.sort(key=lambda v: position[id(v.mirrors)])
            series = self._new("series", forward.label, views[0].parent)
            series.name, series.family, series.items = forward.name, forward.family, views
            series.region, series.mirrors = "gradient", forward
            self._place_items(series, views)

    def _op_calls(self) -> None:
        """The nodes built by one call expression of the user's (one instruction of one
        call: ``T.nnet.relu(...)``) become one ``opcall`` group named as the function."""
        by_site: dict[tuple, list[Apply]] = {}
        for node in self.order:
            site = node.site
            if not site or len(site) < 3:
                continue
            scopes = site.scoping.scopes
            if scopes and scopes[-1].kind in ("grad", "grad_of"):
                continue  # gradient nodes share sn.grad's line: not one call of the user's
            group = self._node_group.get(id(node))
            calls = site.scoping.calls
            key = (id(group), id(site[0]), site[1], calls[0] if calls else None)
            by_site.setdefault(key, []).append(node)
        names: dict[tuple, str | None] = {}
        for nodes in (call for site_nodes in by_site.values() for call in _one_call_each(site_nodes)):
            if len(nodes) < 2:
                continue
            site = nodes[0].site
            code_key = (id(site[0]), site[1])
            if code_key not in names:
                names[code_key] = call_name(site.expression(0))
            name = names[code_key]
            if name is None:
                continue
            parent = self._node_group.get(id(nodes[0]))
            group = self._new("opcall", name, parent)
            group.name = name
            group.region = parent.region if parent is not None else "forward"
            for node in nodes:
                self._node_group[id(node)] = group

    def _regions(self) -> None:
        """A forward group whose every node only feeds the updates is the ``updates``
        region (a series or op call takes its parent's region)."""
        if not self._update_only:
            return
        feeds_more: set[int] = set()
        for node in self.order:
            group = self._node_group.get(id(node))
            if id(node) not in self._update_only:
                while group is not None:
                    feeds_more.add(id(group))
                    group = group.parent
        holding = {id(g) for g in self._node_group.values() if g is not None}
        holding |= {id(g.parent) for g in self.groups if g.parent is not None}
        for view in self.groups:
            if view.region == "forward" and id(view) not in feeds_more and id(view) in holding:
                view.region = "updates"

    def common_ancestor(self, groups: list["ViewGroup | None"]) -> "ViewGroup | None":
        """The innermost group holding every one of ``groups`` (None: only the top level)."""
        chains = []
        for group in groups:
            chain = []
            while group is not None:
                chain.append(group)
                group = group.parent
            chains.append(chain[::-1])
        common = None
        for level in zip(*chains) if chains else ():
            if any(g is not level[0] for g in level):
                break
            common = level[0]
        return common

    def mirror_updates(self, updated: list[tuple]) -> None:
        """An ``updates`` group mirrors the innermost forward group holding the
        parameters it computes the new values of (``updated``: ``(the parameter's forward
        group, the Apply computing its new value)`` pairs): a layer's SGD step mirrors
        the layer, a loop's updates of every layer mirror the layers' series."""
        homes: dict[int, list] = {}
        for home, node in updated:
            group = self._node_group.get(id(node))
            while group is not None and group.region == "updates":
                homes.setdefault(id(group), []).append(home)
                group = group.parent
        for view in self.groups:
            if view.region == "updates" and homes.get(id(view)):
                view.mirrors = self.common_ancestor(homes[id(view)])

    def update_region(self, node: Apply) -> str:
        """The region of a node: its group's, or at the top level forward or updates."""
        group = self._node_group.get(id(node))
        if group is not None:
            return group.region
        return "updates" if id(node) in self._update_only else "forward"


def _one_call_each(nodes: list[Apply]) -> list[list[Apply]]:
    """The nodes one instruction built, split into the calls that built them: a loop runs
    ``T.tanh(w * 0.5 + x)`` once per step at the same instruction, and those steps are
    separate calls. The parts of one call (``relu``'s abs, add and mul) read each other;
    nodes joined only through other instructions' nodes (the step's mul and add) are
    different calls. Connected runs over direct reads, in the order they run."""
    index = {id(node): i for i, node in enumerate(nodes)}
    parent = list(range(len(nodes)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, node in enumerate(nodes):
        for var in node.inputs:
            j = index.get(id(var.owner)) if var.owner is not None else None
            if j is not None:
                parent[root(i)] = root(j)
    calls: dict[int, list[Apply]] = {}
    for i, node in enumerate(nodes):
        calls.setdefault(root(i), []).append(node)
    return list(calls.values())


def _family(group: Group) -> str:
    """What calls of one kind share: a call's function (not ``<listcomp>``s: each is
    its own line's), a named object's class; '' for other groups."""
    if group.kind == "call":
        return group.name if not group.name.startswith("<") else ""
    if group.kind == "owner" and group.site is not None:
        owner = group.site.scoping.owner_at(group.frame)
        return owner.cls if owner is not None else ""
    return ""


def _calls_of(group: Group) -> list[Group]:
    """A tree group's children, the tree's runs of calls seen through."""
    children = []
    for child in group.children:
        children.extend(_calls_of(child) if child.kind == "series" else [child])
    return children


def _nodes_under(group: Group) -> list[Apply]:
    nodes, stack = [], [group]
    while stack:
        current = stack.pop()
        nodes.extend(current.nodes)
        stack.extend(current.children)
    return nodes


def _first_parameter(group: Group) -> str | None:
    """The name of the first named shared variable placed in a call's group (nested
    groups' included), in the order the graph meets them."""
    stack = [group]
    while stack:
        current = stack.pop(0)
        for var in current.roots:
            if isinstance(var, SharedVariable) and var.name:
                return var.name
        stack.extend(current.children)
    return None
