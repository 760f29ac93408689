"""The hierarchy a graph picture opens and closes: :class:`GroupTree`.

Derived from what each node records when it is built (its creation site,
:class:`~symnb.core.graph.source.Scoping`), never from names:

- a **call** group per call of a user function that built nodes (``layer(x, W, b)``
  called 12 times: 12 groups, ``layer #1`` to ``layer #12``), nested as the calls were;
- an **owner** group per object with a ``name`` of its own (a string attribute of the
  instance) whose methods built nodes, named as the object is: a layer library's layers
  (Keras's ``Dense`` ``dense_1``, Lasagne's ``DenseLayer(name="hidden1")``) group the
  graph by layer with no change to the library. Every call of its methods inside one
  group is one group (Keras's ``model.add`` three times: one ``sequential_1``); the
  methods it calls on itself (``Layer.__call__`` calling ``Dense.call``) add no level,
  nor, in an object holding no other named object (a layer, not a model), the functions
  it calls once (Keras's ``K.dot``, ``K.bias_add``, the activation: ``dense_1`` holds its
  ``dot``, ``add`` and ``relu`` nodes directly, as TensorBoard draws ``dense_1/MatMul``;
  a function it calls several times stays a group per call);
- a **scope** group per ``with sn.name_scope("encoder"):`` block, inside the call that
  entered it;
- a **grad** group per ``sn.grad`` call (``∂loss/∂W``), holding the gradient nodes
  grouped as their forward nodes are (``∂loss/∂W`` > ``layer #3``), as TensorBoard
  files ``gradients/dense_3/...``;
- a **series** group for each run of 20 calls of one function, where more were made
  side by side (``block() #1–#20``);
- a **part** group for each run of ``PART_OF`` nodes (in the order they run) of a group
  holding more than ``PARTS_OVER`` nodes directly: the gradient of a model built in a
  top-level loop (``for i in range(50): h = relu(dot(h, W[i]) + b[i])``) holds hundreds
  of nodes and no call to group them by; drawn flat, its many similar siblings
  (``grad of add`` of each layer) made one row thousands of boxes wide;
- a **line** group for a line of the top level that built several nodes (the loss); a
  line that built the whole graph is one only past ``PARTS_OVER`` nodes (a top-level loop:
  its parts then keep the first view to a few boxes);
- a **roots** group bundling the top level's inputs and shared variables when there are
  many of them.

Frames of code that only drives the user's (``<module>`` of a script or a notebook
cell, IPython, pytest: anything installed under ``sys.prefix``) make no group. A shared
variable or constant sits in the group of the first node reading it in the forward graph
(a layer's weights in the layer, not with the update that also reads them) unless it was
made in another group that node is not inside; an input sits in the group where it was
made (the top level, in sight, for one made outside any).
"""

from __future__ import annotations

import linecache
import re
from dataclasses import dataclass, field
from typing import Iterable

from symnb.core.graph import Apply, Constant, Variable
from symnb.core.tensor.shared import SharedVariable
from symnb.core.graph.source import Site
from symnb.printing.group_frames import builder_frames, named_containers

__all__ = ["Group", "GroupTree", "ROOTS_BUNDLED_OVER"]

ROOTS_BUNDLED_OVER = 12  # top-level inputs beyond this go into one "inputs" group
LINE_GROUP_FROM = 4  # a top-level line building this many nodes is a group
SERIES_OF = 20  # more calls of one function side by side are cut into runs of this many
PARTS_OVER = 80  # a group holding more nodes than this directly is cut into parts
PART_OF = 40  # nodes of a part: a chain of parts stays narrow, each readable when opened



@dataclass(eq=False)
class Group:
    """One group: ``kind`` ``call``, ``owner``, ``scope``, ``grad`` or ``roots``; ``name``
    (the function, the object's name, the scope, ``∂loss/∂W``); ``title`` as drawn
    (``layer #3``)."""

    id: str
    kind: str
    name: str
    parent: "Group | None"
    site: Site | None = None   # a call (owner) group: a site whose frame ``frame`` is the call's
    frame: int = 0
    title: str = ""
    children: list["Group"] = field(default_factory=list)
    nodes: list[Apply] = field(default_factory=list)      # directly inside
    roots: list[Variable] = field(default_factory=list)   # directly inside
    size: int = 0  # Apply nodes inside, nested groups included
    order: int = 0  # when its call (or scope) began: numbers the calls of one function

    def ancestors(self) -> list["Group"]:
        """This group's enclosing groups, outermost first (itself last)."""
        chain, group = [], self
        while group is not None and group.kind != "top":
            chain.append(group)
            group = group.parent
        return chain[::-1]

    def where(self) -> str:
        """Where the group was made: the calling line of a call group
        (``Cell In[3]:7: h = layer(h, W, b)``), '' for the others."""
        if self.site is None:
            return ""
        if self.kind == "line":
            return self.site.describe("")
        frame = self.site.frame_at(self.frame + 1)  # the caller's
        if frame is None:
            return ""
        return f"{frame.short()}: {frame.line}" if frame.line else frame.short()

    def describe(self) -> str:
        """``function call``, ``name scope``, ``gradient``, ``inputs``: what made it."""
        if self.kind == "owner":
            owner = self.site.scoping.owner_at(self.frame) if self.site is not None else None
            return f"calls of {owner.cls} {self.name!r}" if owner is not None else f"calls of {self.name!r}"
        return {"call": f"call of {self.name}()", "scope": "name scope", "grad": "gradient (sn.grad)",
                "roots": "inputs and shared variables", "line": "one line's nodes",
                "series": f"{len(self.children)} calls of {self.name}()",
                "part": f"nodes {self.name} of {self.parent.title or 'the graph' if self.parent else ''}, in the order they run"}.get(self.kind, self.kind)


class GroupTree:
    """The groups of the graph whose nodes are ``order`` (execution order) reading the
    roots ``roots``; ``group_of(node)`` is the innermost group holding a node (the
    ``top`` group for one in no group)."""

    def __init__(self, order: list[Apply], roots: Iterable[Variable]) -> None:
        self.top = Group("", "top", "", None)
        self._children: dict[tuple, Group] = {}
        self._by_id: dict[str, Group] = {}
        self._of: dict[int, Group] = {}
        self._paths: dict[tuple, tuple] = {}
        self._made = 0  # groups made: ids never repeat, even after the top is skipped
        self._order = order
        self._moved: dict[int, Group] = {}  # id of a group merged into another -> that one
        self._positions: dict[int, int] | None = None  # id(node) -> its place in ``order``
        # A node records at most ``config.traceback__limit`` frames (Theano's default: 8),
        # fewer than the calls above a deep library's nodes (PyMC3 builds a transformed
        # variable's log-density 12 calls deep): its path is completed from another node
        # built in the same call, whose frames reach the top (see _anchored). A first
        # pass records those paths; the second groups every node.
        self._anchors: dict[tuple, tuple] = {}
        self._anchoring = False
        for node in order:
            self._path(node.site)
        self._paths.clear()
        self._anchoring = True
        for node in order:
            group = self._group_at(self._path(node.site))
            group.nodes.append(node)
            self._of[id(node)] = group
        if any(g.kind == "owner" for g in self._by_id.values()):
            self._calls_as_what_they_made(self.top)
            self._inline_helpers(self.top, named_containers(order), False)
        self._origin = self.top  # the paths' first step is looked up from here
        self._flatten_top()
        self._group_lines()
        self._place_roots(order, list(roots))
        self._parts(self.top)
        self._count(self.top)
        self._title(self.top)
        self._series(self.top)

    # -- reading ------------------------------------------------------------------------
    def group_of(self, obj: Apply | Variable) -> Group:
        return self._of.get(id(obj), self.top)

    def get(self, group_id: str) -> Group | None:
        return self._by_id.get(group_id)

    def groups(self) -> list[Group]:
        """Every group, parents before children."""
        return list(self._by_id.values())

    def first_opened(self, budget: int) -> set[str]:
        """What a big graph's first picture opens: its top-level groups stay closed,
        except a group holding most of the forward graph (a model built by one function,
        its gradient beside it), opened while the picture stays within ``budget`` boxes."""
        top = self.top
        forward = top.size - sum(g.size for g in top.children if g.kind == "grad")
        boxes = len(top.children) + len(top.nodes) + len(top.roots)
        opened: set[str] = set()
        closed = [g for g in top.children if g.kind != "grad"]
        while closed:
            group = max(closed, key=lambda g: g.size)
            grown = boxes - 1 + len(group.children) + len(group.nodes) + len(group.roots)
            if 2 * group.size < forward or grown > budget:
                break
            opened.add(group.id)
            boxes = grown
            closed.remove(group)
            closed.extend(group.children)
        return opened

    def frames(self, homes: dict, opened: set[str]) -> list[tuple[str, str, str, list[str]]]:
        """The open groups to frame, parents first: ``(group id, title, parent group id
        ('' at the top), ids of the boxes directly inside)``, for boxes whose innermost
        group is ``homes[box id]``."""
        members: dict[str, list[str]] = {}
        for box_id, group in homes.items():
            if group is not None and group.id in opened:
                members.setdefault(group.id, []).append(box_id)
        frames = []
        # Parents first (a run of calls is made after the calls it holds).
        for group in sorted(self.groups(), key=lambda g: len(g.ancestors())):
            inside = members.get(group.id, [])
            shown = all(g.id in opened for g in group.ancestors())
            if shown and (inside or any(c.id in opened for c in group.children)):
                parent = group.parent.id if group.parent is not None and group.parent.id in opened else ""
                frames.append((group.id, group.title, parent, inside))
        return frames

    # -- building -----------------------------------------------------------------------
    def _group_at(self, path: tuple) -> Group:
        group = self.top
        for key, kind, name, site, frame in path:
            child = self._children.get((id(group), key))
            if child is None:
                child = Group(self._new_id(), kind, name, group, site, frame,
                              order=key[1] if isinstance(key[1], int) else 0)
                self._children[(id(group), key)] = child
                self._by_id[child.id] = child
                group.children.append(child)
            group = child
        return group

    def _new_id(self) -> str:
        self._made += 1
        return f"g{self._made - 1}"

    def _path(self, site: Site) -> tuple:
        """The groups (outermost first) of a node built at ``site``: ``(key, kind, name,
        site, frame)`` each."""
        scoping = site.scoping
        memo = (scoping.calls, id(scoping.scopes))
        path = self._paths.get(memo)
        if path is None:
            path = self._paths[memo] = tuple(self._compute_path(site))
        return path

    def _compute_path(self, site: Site) -> list:
        scoping = site.scoping
        codes = site.codes
        builders = builder_frames(site)
        calls = {scoping.calls[i]: i for i in range(builders)}
        by_frame: dict[int, list] = {}
        for entry in scoping.scopes:
            by_frame.setdefault(entry.call if entry.call in calls else None, []).append(entry)
        path: list = []
        if None in by_frame:
            self._add_scopes(path, by_frame[None])
        owners_in: set = set()  # the named objects whose groups the path is inside
        for i in reversed(range(builders)):
            owner = scoping.owner_at(i)
            if owner is None and i > 0 and _decorator_wrapper(codes[i]):
                pass  # a decorator's wrapper: its group is the call it wraps (Keras's get_updates)
            elif owner is None:
                path.append((("call", scoping.calls[i]), "call", codes[i].co_name, site, i))
            elif owner.token not in owners_in:
                # Every call of one object's methods, side by side, is one group named as
                # the object is: Keras's Sequential.add calling dense_1's __call__.
                path.append((("owner", owner.token), "owner", owner.name, site, i))
                owners_in.add(owner.token)
            # else: a method the object calls on itself (Layer.__call__ -> Dense.call) sits
            # in the object's group already.
            if scoping.calls[i] in by_frame:
                self._add_scopes(path, by_frame[scoping.calls[i]])
        return self._anchored(path, builders == len(codes) and builders > 0, scoping)

    def _anchored(self, path: list, truncated: bool, scoping) -> list:
        """``path``, completed when its site's frames stop before the code driving the
        build (the limit of frames recorded): from the first of its groups that a node
        with all its frames sits in, with that node's groups around it. A complete path
        outside any gradient gives the groups around each of its groups."""
        if not truncated:
            if not any(e.kind in ("grad", "grad_of") for e in scoping.scopes):
                for j, step in enumerate(path):
                    self._anchors.setdefault(step[0], tuple(path[:j]))
            return path
        if self._anchoring:
            for j, step in enumerate(path):
                outer = self._anchors.get(step[0])
                if outer is not None:
                    return list(outer) + path[j:]
        return path

    def _calls_as_what_they_made(self, group: Group) -> None:
        """A call that built no node itself and made one named Variable whose methods
        built nodes (with helpers beside it) is drawn as that variable: PyMC3's ``pm.Normal("mu", 0, 1)`` runs
        ``Distribution.__new__``, which builds the distribution (``dist()``) and calls
        ``Model.Var``, which makes the random variable ``FreeRV("mu")`` whose methods
        build its log-density: one group ``mu`` holding all of it, not ``__new__() #0`` >
        ``Var()`` > ``mu``. A call holding several named objects (Lasagne's
        ``get_output()`` and its layers), nodes of its own, or an object that is not a
        Variable (a layer: the call that uses a model is not the model) stays a call group."""
        for child in list(group.children):
            self._calls_as_what_they_made(child)
        children = []
        for child in group.children:
            owners = [c for c in child.children if c.kind == "owner"]
            if (child.kind != "call" or child.nodes or len(owners) != 1
                    or not owners[0].site.scoping.owner_at(owners[0].frame).variable):
                children.append(child)
                continue
            (made,) = owners
            # The object takes the call's place, with the call's other groups inside it.
            del self._by_id[child.id]
            self._moved[id(child)] = made
            made.parent = group
            for inner in child.children:
                if inner is not made:
                    inner.parent = made
            made.children = [c for c in child.children if c is not made] + made.children
            made.order = child.order
            children.append(made)
        group.children = children

    def _inline_helpers(self, group: Group, containers: set, in_layer: bool) -> None:
        """In a layer (a named object holding no other named object), a function called
        once (Keras's ``K.dot``, ``K.bias_add``, the activation) adds no level: its nodes
        sit in the layer, as TensorBoard draws ``dense_1/MatMul``. A function called
        several times there (a block repeated) stays a group per call."""
        for child in group.children:
            inside = in_layer or (child.kind == "owner" and child.site is not None
                                  and child.site.scoping.owner_at(child.frame).token not in containers)
            self._inline_helpers(child, containers, inside)
        if not in_layer:
            return
        calls: dict[str, int] = {}
        for child in group.children:
            if child.kind == "call":
                calls[child.name] = calls.get(child.name, 0) + 1
        children, merged = [], False
        for child in group.children:
            if child.kind != "call" or calls[child.name] > 1:
                children.append(child)
                continue
            merged = True
            # Merged into the layer: its nodes, and its own groups beside the layer's.
            del self._by_id[child.id]
            self._moved[id(child)] = group
            for node in child.nodes:
                self._of[id(node)] = group
            group.nodes += child.nodes
            for inner in child.children:
                inner.parent = group
            children += child.children
        if merged:
            if self._positions is None:
                self._positions = {id(node): i for i, node in enumerate(self._order)}
            group.nodes.sort(key=lambda node: self._positions[id(node)])  # in the order they run
        group.children = children

    def _add_scopes(self, path: list, entries: list) -> None:
        for entry in entries:
            if entry.kind == "grad_of":
                # The forward node's own groups, less those the gradient already sits in.
                forward = self._path(entry.site) if entry.site else ()
                keys = {step[0] for step in path}
                path.extend(step for step in forward if step[0] not in keys)
            else:
                path.append(((entry.kind, entry.token), entry.kind, entry.name, None, 0))

    def _group_lines(self) -> None:
        """The top level's nodes built on one line, when it built several
        (``loss = T.nnet.categorical_crossentropy(p, y).mean()``: seven nodes), become a
        **line** group named as the line assigns (``loss``)."""
        by_line: dict[tuple, list[Apply]] = {}
        for node in self.top.nodes:
            frame = node.site.frame
            if frame is not None:
                by_line.setdefault((frame.filename, frame.lineno), []).append(node)
        for (filename, lineno), nodes in by_line.items():
            # A line that built the whole graph is no group, unless it built too many
            # nodes to draw side by side (a top-level loop: ``for _ in range(500): w =
            # T.tanh(w * 0.5 + x)``): then it is one, cut into parts like any big group.
            whole = len(nodes) == len(self.top.nodes) and not self.top.children
            if len(nodes) < LINE_GROUP_FROM or (whole and len(nodes) <= PARTS_OVER):
                continue
            site = nodes[-1].site
            name = site.assigned_name() or site.frame.short()
            group = self._group_at(((("line", filename, lineno), "line", name, site, -1),))
            for node in nodes:
                self.top.nodes.remove(node)
                group.nodes.append(node)
                self._of[id(node)] = group

    def _place_roots(self, order: list[Apply], roots: list[Variable]) -> None:
        forward: dict[int, list[Group]] = {}
        backward: dict[int, list[Group]] = {}
        in_gradient: dict[int, bool] = {}
        for node in order:
            group = self._of[id(node)]
            backwards = in_gradient.get(id(group))
            if backwards is None:
                backwards = in_gradient[id(group)] = any(g.kind == "grad" for g in group.ancestors())
            readers = backward if backwards else forward
            for var in node.inputs:
                if var.owner is None:
                    readers.setdefault(id(var), []).append(group)
        for var in roots:
            group = None if isinstance(var, Constant) else self._existing(self._path(var.site))
            readers = forward.get(id(var)) or backward.get(id(var))
            if isinstance(var, (Constant, SharedVariable)) and readers:
                # A parameter sits with its first reader (a layer's weights in the layer,
                # not with the update that also reads them), inside where it was made.
                first = readers[0]
                if group is None or group is self.top or group in first.ancestors():
                    group = first
            group = group if group is not None else self.top  # the inputs stay in sight
            group.roots.append(var)
            self._of[id(var)] = group
        variables = [v for v in self.top.roots if not isinstance(v, Constant)]
        if len(variables) > ROOTS_BUNDLED_OVER:  # constants stay beside what reads them
            bundle = self._group_at(((("roots", 0), "roots", "inputs", None, 0),))
            bundle.roots = variables
            self.top.roots = [v for v in self.top.roots if isinstance(v, Constant)]
            for var in bundle.roots:
                self._of[id(var)] = bundle

    def _existing(self, path: tuple) -> Group | None:
        """The group at ``path`` if nodes were built in it (a root made where no node
        was, a list of parameters in a comprehension, makes no group of its own)."""
        group = self._origin
        for step in path:
            group = self._children.get((id(group), step[0]))
            if group is None:
                return None
        while id(group) in self._moved:  # a layer's helper, merged into the layer
            group = self._moved[id(group)]
        return group

    def _flatten_top(self) -> None:
        """A graph built by one call (``build()``, a test function) opens at that call's
        contents: a top level holding one group and no node is skipped."""
        while len(self.top.children) == 1 and not self.top.nodes and self.top.children[0].kind != "roots":
            only = self.top.children[0]
            del self._by_id[only.id]
            only.id, only.kind, only.parent = "", "top", None
            for child in only.children:
                child.parent = only
            self.top = only

    def _series(self, group: Group) -> None:
        """Many calls of one function side by side (``block()`` called 500 times) are cut
        into runs of ``SERIES_OF`` (``block() #1-#20``), each a group of its own: a
        picture never draws hundreds of sibling boxes at once."""
        for child in group.children:
            self._series(child)
        calls: dict[str, list[Group]] = {}
        for child in group.children:
            if child.kind == "call":
                calls.setdefault(child.name, []).append(child)
        for name, members in calls.items():
            if len(members) <= SERIES_OF:
                continue
            first_of = {}
            for start in range(0, len(members), SERIES_OF):
                run = members[start:start + SERIES_OF]
                series = Group(self._new_id(), "series", name, group, children=run,
                               title=f"{run[0].title}\u2013#{run[-1].title.rsplit('#', 1)[-1]}",
                               size=sum(g.size for g in run))
                self._by_id[series.id] = series
                for member in run:
                    member.parent = series
                first_of[id(run[0])] = series
            inside = {id(m) for m in members}
            group.children = [first_of[id(c)] if id(c) in first_of else c for c in group.children
                              if id(c) not in inside or id(c) in first_of]

    def _parts(self, group: Group) -> None:
        """A group holding more than ``PARTS_OVER`` nodes directly (not the top level,
        whose nodes are the user's own lines) has them cut, in the order they run, into
        **part** groups of ``PART_OF`` (``nodes 1\u201340``): a deep chain's gradient becomes a
        narrow column of parts instead of one row of its many similar siblings. A
        constant goes with the part of its first reader in the group."""
        for child in list(group.children):
            self._parts(child)
        if group.kind in ("top", "roots") or len(group.nodes) <= PARTS_OVER:
            return
        part_of: dict[int, Group] = {}
        parts = []
        for start in range(0, len(group.nodes), PART_OF):
            run = group.nodes[start:start + PART_OF]
            name = f"{start + 1}\u2013{start + len(run)}"
            part = Group(self._new_id(), "part", name, group, nodes=run, order=start)
            self._by_id[part.id] = part
            parts.append(part)
            for node in run:
                self._of[id(node)] = part_of[id(node)] = part
        first_reader: dict[int, Group] = {}
        for node in group.nodes:
            for var in node.inputs:
                first_reader.setdefault(id(var), part_of[id(node)])
        kept = []
        for var in group.roots:
            home = first_reader.get(id(var))
            if home is None:
                kept.append(var)
            else:
                home.roots.append(var)
                self._of[id(var)] = home
        group.roots = kept
        group.nodes = []
        group.children = group.children + parts

    def _count(self, group: Group) -> int:
        group.size = len(group.nodes) + sum(self._count(child) for child in group.children)
        return group.size

    def _title(self, group: Group) -> None:
        same: dict[str, int] = {}
        for child in group.children:
            same[child.name] = same.get(child.name, 0) + 1
        # Numbered in the order the calls were made, not as listed: the gradient lists
        # its mirror of the forward calls last layer first, and its "layer() #1" must be
        # the gradient of the forward "layer() #1".
        seen: dict[str, int] = {}
        number = {}
        for child in sorted(group.children, key=lambda c: c.order):
            if same[child.name] > 1:
                seen[child.name] = number[id(child)] = seen.get(child.name, 0) + 1
        for child in group.children:
            name = _readable(child)
            if id(child) in number:
                name = f"{name} #{number[id(child)]}"
            child.title = name
            self._title(child)


def _readable(group: Group) -> str:
    if group.kind == "part":
        return f"nodes {group.name}"
    if group.kind == "call":
        name = group.name.strip("<>")
        if name != group.name:  # <listcomp>, <lambda>: named by the user's words, else where they are
            caller = group.site.frame_at(group.frame + 1) if group.site is not None else None
            comprehension = name.endswith("comp") or name == "genexpr"
            words = _comprehension_words(_statement(caller)) if caller is not None and comprehension else None
            if name == "lambda" and group.site is not None:
                words = _lambda_name(group.site.codes[group.frame])
            if words:
                return words
            where = group.where().split(":")
            return f"{name} at line {where[1]}" if len(where) > 1 else name
        return f"{name}()"
    return group.name


# What decorators call the function they return (functools.wraps's examples, Keras's
# legacy interfaces, six, decorator libraries): never what the user wrote.
_WRAPPER_NAMES = frozenset({"wrapper", "wrapped", "_wrapper", "inner", "decorated", "wrapper_function", "new_func"})
_VARARGS, _VARKEYWORDS = 0x04, 0x08  # inspect.CO_VARARGS, inspect.CO_VARKEYWORDS


def _decorator_wrapper(code) -> bool:
    """Whether ``code`` is a decorator's wrapper (``def wrapper(*args, **kwargs)`` under
    one of the usual names): a call of it is drawn as the call it wraps, inside it, so that
    the group reads ``get_updates()``, not ``wrapper()``."""
    return code.co_name in _WRAPPER_NAMES and bool(code.co_flags & _VARARGS) and bool(code.co_flags & _VARKEYWORDS)


_ASSIGNED = re.compile(r"^\s*([A-Za-z_][A-Za-z_0-9]*)\s*=(?!=)")
_FOR = re.compile(r"\bfor\s+(.+?)\s+in\b")


def _statement(frame, most: int = 8) -> str:
    """The statement starting on ``frame``'s line, its continuation lines joined until its
    brackets close (at most ``most`` lines): a comprehension written over several lines
    has its ``for`` on a later line than the one its frame names."""
    text, depth = [], 0
    for k in range(most):
        line = linecache.getline(frame.filename, frame.lineno + k)
        if not line:
            break
        text.append(line.strip())
        depth += sum(map(line.count, "([{")) - sum(map(line.count, ")]}"))
        if depth <= 0:
            break
    return " ".join(text)


_LAMBDA = re.compile(r"^\s*([A-Za-z_][A-Za-z_0-9]*)\s*=\s*lambda\b")


def _lambda_name(code) -> str | None:
    """``f()`` for a lambda the user named (``f = lambda v: ...``); None for one written
    in place (then it is named where it is)."""
    assigned = _LAMBDA.match(linecache.getline(code.co_filename, code.co_firstlineno))
    return f"{assigned.group(1)}()" if assigned else None


def _comprehension_words(line: str) -> str | None:
    """A comprehension's group named by the user's words on its line: the name it is
    assigned to and its variables (``updates = [... for p, g in ...]`` -> ``updates (for
    p, g)``), or its variables alone (``for i``); None when the line says neither."""
    loop = _FOR.search(line)
    if loop is None:
        return None
    assigned = _ASSIGNED.match(line)
    target = f"for {loop.group(1).strip('()')}"
    return f"{assigned.group(1)} ({target})" if assigned else target
