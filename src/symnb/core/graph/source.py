"""Where user code built a node: cheap capture now, source text only when shown.

Capturing must stay cheap (it runs for every node built), so we keep only
``(filename, lineno, function)`` triples taken from raw frames, and read the source
line through :mod:`linecache` when an error is formatted. Frames inside the symnb
package are skipped: the first recorded frame is always the user's.
"""

from __future__ import annotations

import contextlib
import functools
import linecache
import os
import re
import sys
import types
import warnings
import weakref
from typing import Any, NamedTuple

__all__ = ["Frame", "Site", "Scoping", "ScopeEntry", "Owner", "capture_site", "is_library_frame",
           "warn_at_user_line", "enter_scope", "leave_scope", "PACKAGE_DIR"]

# symnb/ (this file is symnb/core/graph/source.py): every frame under it is the library's.
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep


class Frame(NamedTuple):
    filename: str
    lineno: int
    function: str

    @property
    def line(self) -> str:
        """The source text of this line, stripped ('' when unavailable)."""
        return linecache.getline(self.filename, self.lineno).strip()

    def short(self) -> str:
        cell = _file_name(self.filename)
        if cell is not None:
            return f"{cell}:{self.lineno}"
        return f"{os.path.basename(self.filename)}:{self.lineno}"

    def format(self) -> str:
        cell = _file_name(self.filename)
        if cell is not None:
            text = f"  {cell}, line {self.lineno}, in {self.function}"
        else:
            text = f'  File "{self.filename}", line {self.lineno}, in {self.function}'
        line = self.line
        return f"{text}\n    {line}" if line else text


_FILE_NAMERS: list = []


def register_file_namer(namer) -> None:
    """Let a front end name source files in messages (``namer(filename) -> str | None``);
    symnb's notebook support names IPython cells ``Cell In[5]`` this way."""
    if namer not in _FILE_NAMERS:
        _FILE_NAMERS.append(namer)


def _file_name(filename: str) -> str | None:
    for namer in _FILE_NAMERS:
        name = namer(filename)
        if name is not None:
            return name
    return None


class ScopeEntry(NamedTuple):
    """A scope a node was built in: ``kind`` ``"scope"`` (``sn.name_scope``), ``"grad"``
    (one ``sn.grad`` call) or ``"grad_of"`` (the gradient of one forward node, whose op
    and site are ``name`` and ``site``). ``token`` is unique per entry; ``call`` is the
    call token of the user frame that entered it, which places it among the frames."""

    kind: str
    name: str
    token: int
    call: int
    site: "Site | None" = None


class Owner(NamedTuple):
    """The object whose method a recorded frame ran, when that object carries a name of
    its own (a layer: Keras's ``dense_1``, Lasagne's ``hidden1``, any ``self`` whose
    ``name`` attribute is a string). ``token`` is the same for every call of that object's
    methods (and differs between objects, even of one name); ``cls`` is its class's name;
    ``variable``: the object is a graph Variable whose own methods build nodes (PyMC3's
    random variable ``FreeRV("mu")`` building its log-density): the value the call around
    it makes, whose group that call's is (printing/groups.py)."""

    token: int
    name: str
    cls: str
    variable: bool = False


class Scoping(NamedTuple):
    """What a site records beyond its frames, for the pictures' hierarchy: one call token
    per recorded frame up to the first module top level (the same for every node built
    during one call of a function, different for the next call), the scopes active at
    build time, outermost first, and for each of those frames the named object whose
    method it ran (``owners``, as plain ``(token, name, cls)`` tuples or None; empty when
    no frame ran one)."""

    calls: tuple
    scopes: tuple
    owners: tuple = ()

    def owner_at(self, index: int) -> Owner | None:
        """The named object whose method recorded frame ``index`` ran, or None."""
        owners = self.owners
        found = owners[index] if index < len(owners) else None
        return Owner(*found) if found is not None else None


class Site(tuple):
    """The user frames (innermost first) that were active when a node was built.

    Stored flat, as ``code, lasti, code, lasti, ...`` (one tuple per node keeps graph
    building light on the garbage collector), and turned into :class:`Frame` only when
    shown; ``lasti`` (the instruction's byte offset) also locates the sub-expression.
    A last odd element, a plain ``(calls, scopes)`` tuple (read as a :class:`Scoping`),
    records which call of each function and which scopes built the node
    (``zip(site[::2], site[1::2])`` still reads the pairs).
    """

    __slots__ = ()

    def __reduce__(self) -> tuple:
        # Code objects cannot be pickled: a pickled site keeps each frame's file, line and
        # function (what messages show), as stand-ins read like code objects.
        flat: list[Any] = []
        for code, lasti in zip(self[::2], self[1::2]):
            flat += [PickledCode(code.co_filename, _line_of(code, lasti), code.co_name), 0]
        if len(self) % 2:
            flat.append(self[-1])
        return (Site, (flat,))

    @property
    def scoping(self) -> Scoping:
        """Call tokens and scopes (empty for a site recorded without them)."""
        return Scoping(*self[-1]) if len(self) % 2 else _NO_SCOPING

    @property
    def codes(self) -> list:
        """The recorded frames' code objects, innermost first."""
        return list(self[:len(self) - len(self) % 2:2])

    @property
    def frames(self) -> list[Frame]:
        return [Frame(code.co_filename, _line_of(code, lasti), code.co_name)
                for code, lasti in zip(self[::2], self[1::2])]

    def frame_at(self, index: int) -> Frame | None:
        """The recorded frame ``index`` (0: the innermost, where the node was built)."""
        if 2 * index + 1 >= len(self) - len(self) % 2:
            return None
        code, lasti = self[2 * index], self[2 * index + 1]
        return Frame(code.co_filename, _line_of(code, lasti), code.co_name)

    @property
    def frame(self) -> Frame | None:
        if not self:
            return None
        code, lasti = self[0], self[1]
        return Frame(code.co_filename, _line_of(code, lasti), code.co_name)

    def expression(self, index: int = 0) -> str | None:
        """The source of the expression the user's line was evaluating (``a.mean(0)`` in
        ``z = (a - a.mean(0)) / s``), from the instruction's column span; None if unknown.
        ``index``: of the recorded frame ``index`` (0: the innermost)."""
        if 2 * index + 1 >= len(self) - len(self) % 2:
            return None
        code, lasti = self[2 * index], self[2 * index + 1]
        lineno = _line_of(code, lasti)
        try:
            start_line, end_line, start, end = list(code.co_positions())[lasti // 2]
        except (IndexError, ValueError):
            return None
        if start_line != lineno or end_line != lineno or start is None or end is None:
            return None
        text = linecache.getline(code.co_filename, lineno)
        return text[start:end] or None

    @property
    def line(self) -> str:
        frame = self.frame
        return frame.line if frame is not None else ""

    def short(self) -> str:
        frame = self.frame
        return frame.short() if frame is not None else "<unknown>"

    def describe(self, verb: str = "built at") -> str:
        """``built at model.py:12: h = T.tanh(x)``: ``verb``, where, and the source line
        ('' for an empty site). Every message saying where something was made says it so."""
        frame = self.frame
        if frame is None:
            return ""
        text = f"{verb} {frame.short()}" if verb else frame.short()
        line = frame.line
        return f"{text}: {line}" if line else text

    def format(self, limit: int | None = None) -> str:
        frames = self.frames if limit is None else self.frames[:limit]
        # Outermost first, as Python prints tracebacks.
        return "\n".join(f.format() for f in reversed(frames))

    def assigned_name(self) -> str | None:
        """The name on the left of ``name = ...`` in the user's line, if the node built
        there is the whole right-hand side (not a part of it, like ``a.mean(0)``).

        A value a helper returns whole (``return act(T.dot(inp, W) + b)``) is named as
        its caller assigns the call (``h1 = layer(x, W1, b1)``), through helpers that
        return it in turn: the helper's line stays where it was built (``frame``)."""
        for index in range(len(self) // 2):
            frame = self.frame_at(index)
            if index and _is_library_file(frame.filename):
                return None  # symnb's own code called the helper (a scan's step)
            line = frame.line
            expression = self.expression(index)
            match = _ASSIGNMENT.match(line)
            if match is not None:
                right_hand_side = line[match.end():].split("#")[0].strip()
                if expression is not None and _strip_parens(expression) != _strip_parens(right_hand_side):
                    return None
                return match.group(1)
            returned = _RETURN.match(line)
            if returned is None or expression is None or \
                    _strip_parens(expression) != _strip_parens(line[returned.end():].split("#")[0]):
                return None  # not the value its function returns: the caller's name is not its
        return None


_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z_0-9]*)\s*=(?!=)")
_RETURN = re.compile(r"^return\s")


def _is_library_file(filename: str) -> bool:
    return filename.startswith("<frozen ") or filename.startswith(PACKAGE_DIR)


def _strip_parens(text: str) -> str:
    text = text.strip()
    while text.startswith("(") and text.endswith(")"):
        text = text[1:-1].strip()
    return text

class PickledCode(NamedTuple):
    """A frame of an unpickled :class:`Site`: its file, line and function, answering the
    few questions a Site asks a code object (its line; no column positions)."""

    co_filename: str
    co_firstlineno: int
    co_name: str

    def co_lines(self) -> list:
        return []  # _line_of then answers co_firstlineno: the recorded line

    def co_positions(self) -> list:
        return []  # no column span: Site.expression() answers None

    def __reduce__(self) -> tuple:
        return (PickledCode, tuple(self))


_EMPTY = Site()
_NO_SCOPING = Scoping((), ())
# The latest Site recorded at each instruction (the innermost code's id, offset): its
# frames, scopes and call tokens, and the Site (it holds the code, keeping the id valid).
_recent_sites: dict = {}

# The scopes active now (``sn.name_scope``, ``sn.grad``), outermost first.
_scopes: tuple = ()
# Each user function's latest frame, its call token and its named owner (or None). A
# frame is held (not its id, which the next call reuses) so that the calls of a function
# in a loop get distinct tokens; one frame per function that built nodes is kept alive,
# and with it its local variables. A notebook defines a cell's functions anew at each run
# of the cell (a new code object each time): beyond _FORGET_AT entries, the frames no
# thread is running are dropped (_forget_finished_calls), or every run would keep its
# functions' last frames, and the graphs and compiled functions they hold, for the rest
# of the session.
_last_call: dict = {}
_tokens = iter(range(1, 1 << 62))
_FORGET_AT = 64
_forget_at = _FORGET_AT
# Code objects seen (``is_library_frame``'s answer): forgotten beyond this many, since
# each run of a notebook cell brings new ones.
_LIBRARY_CODE_MEMO = 4096
# id(named object) -> (its owner token, a weak reference that drops the entry when the
# object dies, before its id can be reused).
_owner_tokens: dict = {}
#: The classes of graph values (``Variable``: ``register_value_class``, called by the
#: module defining it, which imports this one): a call that made one named value is
#: drawn as that value.
_value_classes: tuple[type, ...] = ()


def register_value_class(cls: type) -> type:
    """Count ``cls``'s instances as graph values (see ``_value_classes``)."""
    global _value_classes
    _value_classes = (*_value_classes, cls)
    return cls


def _call_token(frame: Any) -> int:
    seen = _last_call.get(id(frame.f_code))
    if seen is not None and seen[0] is frame:
        return seen[1]
    return _new_call(frame, seen)[1]


def _new_call(frame: Any, seen: tuple | None) -> tuple:
    """The entry ``(frame, token, owner, outer)`` of a frame not at the head of its
    function's entry ``seen``: a call of a function that recursed (found down the chain
    ``outer``), or a new call. A recursive function's calls still running keep their
    entries, innermost first (PyMC3's ``Model.Var`` making a transformed variable calls
    ``Model.Var`` again, and the nodes of either can come first): each call keeps its
    token, so the outer call's nodes stay in the outer call's group."""
    entry = seen
    while entry is not None:
        if entry[0] is frame:
            return entry
        entry = entry[3]
    if seen is None and len(_last_call) >= _forget_at:
        _forget_finished_calls()
    new = (frame, next(_tokens), _owner_of(frame), None)
    key = id(frame.f_code)
    if seen is not None:
        # The calls of this function still running: those on the stack (a finished
        # call's entry is dropped, as the one-entry case always did).
        depth, caller, at = {}, sys._getframe(1), 0
        while caller is not None:
            depth[id(caller)] = at
            caller, at = caller.f_back, at + 1
        running = []
        entry = seen
        while entry is not None:
            if id(entry[0]) in depth:
                running.append(entry)
            entry = entry[3]
        if running:
            running.append(new)
            running.sort(key=lambda e: depth[id(e[0])], reverse=True)  # outermost first
            outer = None
            for item in running:
                outer = (item[0], item[1], item[2], outer)
                if item is new:
                    new = outer
            _last_call[key] = outer  # the innermost call heads the chain
            return new
    _last_call[key] = new
    return new


def _forget_finished_calls() -> None:
    """Drop from ``_last_call`` the frames no thread is running (finished calls; a
    suspended generator's frame too, whose next nodes then count as another call)."""
    global _forget_at
    running = set()
    for frame in sys._current_frames().values():
        while frame is not None:
            running.add(id(frame))
            frame = frame.f_back
    for key, entry in list(_last_call.items()):
        # A recursion's entries: the innermost call still running heads them.
        while entry is not None and id(entry[0]) not in running:
            entry = entry[3]
        if entry is None:
            del _last_call[key]
        else:
            _last_call[key] = entry
    # Frames all running (a deep recursion building nodes): not looked at again before
    # as many more are recorded.
    _forget_at = max(_FORGET_AT, 2 * len(_last_call))


def _owner_of(frame: Any) -> tuple | None:
    """``(token, name, cls)`` of the object whose method ``frame`` runs (its first
    argument, ``self``) when that object has a string ``name`` of its own; else None.
    Read once per call (not per node): a layer library's layers (Keras's ``Dense`` named
    ``dense_1``, Lasagne's ``DenseLayer(name="hidden1")``) then group the pictures by
    layer, with no change to the library."""
    code = frame.f_code
    if not code.co_argcount or code.co_varnames[0] != "self" or is_library_frame(frame):
        return None
    obj = frame.f_locals.get("self")
    name = _own_name(obj)
    if not isinstance(name, str) or not name:
        return None
    known = _owner_tokens.get(id(obj))
    if known is None:
        key = id(obj)
        try:
            reference = weakref.ref(obj, lambda _, key=key: _owner_tokens.pop(key, None))
        except TypeError:
            return None  # an object that cannot be followed groups by its calls, as before
        known = _owner_tokens[key] = (next(_tokens), reference)
    return (known[0], name, type(obj).__name__, isinstance(obj, _value_classes))


def _own_name(obj: Any) -> Any:
    """``obj``'s own ``name``: an attribute of the instance (its ``__dict__``), or a slot
    of its class (a Variable's ``name``: PyMC3's random variables, ``FreeRV("mu")``, are
    Variables whose methods build their log-density). No property or ``__getattr__`` runs:
    only what the instance holds is read."""
    try:
        name = object.__getattribute__(obj, "__dict__").get("name")
    except (AttributeError, TypeError):
        name = None
    if name is not None:
        return name
    for klass in type(obj).__mro__:
        slot = klass.__dict__.get("name")
        if slot is not None:
            if not isinstance(slot, types.MemberDescriptorType):
                return None  # a property or a class attribute: not the instance's own
            try:
                return slot.__get__(obj, type(obj))
            except AttributeError:  # the slot was never set
                return None
    return None


def enter_scope(kind: str, name: str, site: "Site | None" = None) -> ScopeEntry:
    """Make a scope active for the nodes built from now on (until :func:`leave_scope`)."""
    global _scopes
    frame = sys._getframe(1)
    # The user's frame: past symnb's own and the ``with`` machinery's (contextlib).
    while frame is not None and (is_library_frame(frame) or frame.f_code.co_filename == contextlib.__file__):
        frame = frame.f_back
    entry = ScopeEntry(kind, name, next(_tokens), _call_token(frame) if frame is not None else 0, site)
    _scopes = _scopes + (entry,)
    return entry


def leave_scope(entry: ScopeEntry) -> None:
    """End ``entry`` (and any scope entered inside it and left open by an error)."""
    global _scopes
    if entry in _scopes:
        _scopes = _scopes[:_scopes.index(entry)]

_library_code: dict[object, bool] = {}


def is_library_frame(frame: Any) -> bool:
    """True for a frame of symnb's own code (or of Python's frozen import machinery).

    A script run as the main program is user code wherever it lives: ``python -m
    symnb.tour`` shows the tour's lines in its errors, as any user's script would.
    """
    filename = frame.f_code.co_filename
    if filename.startswith("<frozen "):
        return True
    return filename.startswith(PACKAGE_DIR) and frame.f_globals.get("__name__") != "__main__"


def warn_at_user_line(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn`` attributed to the user's line: the first frame outside symnb,
    however many library frames (entry points, helpers) lie between. A notebook cell's
    line is located as the cell (``Cell In[6]:2: ...``, registered by
    :func:`register_file_namer`), not as the file IPython compiled it into."""
    frame = sys._getframe(1)
    level = 2  # stacklevel 1 is this function, 2 its caller
    while frame is not None and is_library_frame(frame):
        frame = frame.f_back
        level += 1
    cell = _file_name(frame.f_code.co_filename) if frame is not None else None
    if cell is None:
        warnings.warn(message, category, stacklevel=level - 1 if frame is None else level)
        return
    # Under the cell's name, with the cell's lines, so the warning shows its line as usual;
    # the frame's registry and module keep warnings' filters and "once per line" as they are.
    lines = linecache.getlines(frame.f_code.co_filename)
    if lines:
        linecache.cache[cell] = (sum(map(len, lines)), None, lines, cell)
    module_globals = frame.f_globals
    warnings.warn_explicit(message, category, cell, frame.f_lineno,
                           module=module_globals.get("__name__", "__main__"),
                           registry=module_globals.setdefault("__warningregistry__", {}))


def capture_site(limit: int) -> Site:
    """Record up to ``limit`` user frames, starting at the first frame outside symnb."""
    if limit <= 0:
        return _EMPTY
    frame = sys._getframe(1)
    known = _library_code
    while frame is not None:
        code = frame.f_code
        is_library = known.get(code)
        if is_library is None:
            if len(known) >= _LIBRARY_CODE_MEMO:
                known.clear()
            # A code object belongs to one module: decided once, by its first frame.
            is_library = known[code] = is_library_frame(frame)
        if not is_library:
            break
        frame = frame.f_back
    frames = []
    calls: list | None = []
    made: list = []
    owners: list = []
    named = False
    last_call = _last_call
    while frame is not None and limit:
        # The line number is derived from the instruction offset only when shown:
        # reading f_lineno costs a line-table lookup per frame.
        code = frame.f_code
        frames.append(code)
        frames.append(frame.f_lasti)
        if calls is not None:  # the calls are told apart up to the module's top level
            # _call_token, inlined: this runs for every node. Keyed by id: a code object
            # hashes its whole contents; the frame held keeps the code (and its id) alive.
            seen = last_call.get(id(code))
            if seen is None or seen[0] is not frame:
                seen = _new_call(frame, seen)
            calls.append(seen[1])
            owners.append(seen[2])
            if seen[2] is not None:
                named = True
            if code.co_name == "<module>":
                calls, made = None, calls
        frame = frame.f_back
        limit -= 1
    if not frames:
        return _EMPTY
    calls = calls if calls is not None else made
    # The nodes a loop builds at one instruction, in one call of each function and
    # within the same scopes, share one Site: fewer objects for the garbage collector.
    key = (id(frames[0]), frames[1])
    recent = _recent_sites.get(key)
    if recent is not None and recent[1] is _scopes and recent[2] == calls and recent[0] == frames:
        return recent[3]
    # A plain tuple of (call tokens, scopes[, owners]): untracked by the collector while no
    # scope is active and no frame ran a named object's method.
    scoping = (tuple(calls), _scopes, tuple(owners)) if named else (tuple(calls), _scopes)
    site = Site(frames + [scoping])
    if len(_recent_sites) >= 1024:
        _recent_sites.clear()
    _recent_sites[key] = (frames, _scopes, calls, site)
    return site


@functools.lru_cache(maxsize=4096)  # a loop builds many nodes at one instruction
def _line_of(code: object, lasti: int) -> int:
    """The line of the instruction at byte offset ``lasti`` in ``code``."""
    for start, end, line in code.co_lines():
        if start <= lasti < end and line is not None:
            return line
    return code.co_firstlineno
