"""Tracebacks that start at the user's line: symnb's own frames are removed, as JAX
removes its own.

An error raised while building or calling a graph passes through a dozen of symnb's
frames (operators, op construction, test values, the call layer) before it reaches the
user's code; printed, they push the line that matters and the message apart. At each
public entry point (an operator or ``T`` function, ``Op.__call__``, ``sn.function``, a
compiled function's call, ``sn.grad``, ``sn.scan``, ``sn.ifelse``) an escaping exception
gets its ``__traceback__`` rebuilt without symnb's frames -- the frames of the user's own
code called back by symnb (a scan step, a callback) stay -- and a note saying so. The
outermost entry point does it last, so nested entry points compose.

A frame joins a traceback as the exception leaves it, so an entry point removes only the
frames below its own: whatever the user calls directly must itself be an entry point, never
a wrapper around one (a wrapper's frame would stand above the user's line, as the weak
call path of a compiled function once did). The public namespaces are made entry points
whole (:func:`entry_points`, :func:`entry_point`, :func:`api_boundaries`), so a function
added to one is covered; a callable that symnb hands out (a compiled function's call path)
catches and filters in its own outermost frame. tests/test_error_frames.py walks every way
an error reaches the user and counts the library frames printed.

``sn.config.exception_verbosity = 'high'`` keeps every frame. Frames are symnb's by
the same rule the creation lines use (:mod:`symnb.core.graph.source`): the package's files,
except a module run as the main program (``python -m symnb.tour``).
"""

from __future__ import annotations

import functools
import types
from typing import Any, Callable, TypeVar

from symnb.core.graph.config import config
from symnb.core.graph.source import is_library_frame

__all__ = ["api_boundary", "api_boundaries", "entry_point", "entry_points", "hide_library_frames",
           "filter_traceback", "NOTE"]

F = TypeVar("F", bound=Callable[..., Any])

NOTE = ("(symnb removed its own frames from this traceback; "
        "sn.config.exception_verbosity='high' keeps them)")


def filter_traceback(tb: types.TracebackType | None) -> types.TracebackType | None:
    """``tb`` without the entries of symnb's frames."""
    kept = []
    while tb is not None:
        if not is_library_frame(tb.tb_frame):
            kept.append(tb)
        tb = tb.tb_next
    filtered = None
    for entry in reversed(kept):
        filtered = types.TracebackType(filtered, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return filtered


def hide_library_frames(err: BaseException) -> None:
    """Rebuild ``err.__traceback__`` without symnb's frames (unless
    ``exception_verbosity='high'``); call it in an ``except`` block, then ``raise``."""
    if config.exception_verbosity == "high" or err.__traceback__ is None:
        return
    err.with_traceback(filter_traceback(err.__traceback__))
    if NOTE not in getattr(err, "__notes__", ()):
        err.add_note(NOTE)


def api_boundary(fn: F) -> F:
    """Make ``fn`` a public entry point: an exception escaping it leaves without symnb's
    frames. (A bare ``raise`` re-raises without adding this wrapper's frame.)"""

    @functools.wraps(fn)
    def boundary(*args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True  # noqa: F841  (IPython hides the frame, should it show)
        try:
            return fn(*args, **kwargs)
        except Exception as err:
            hide_library_frames(err)
            raise

    return boundary  # type: ignore[return-value]


def api_boundaries(cls: type) -> type:
    """Class decorator: every method and property getter defined in ``cls`` (operators
    included) becomes an entry point."""
    for name, attr in list(vars(cls).items()):
        if isinstance(attr, types.FunctionType):
            setattr(cls, name, api_boundary(attr))
        elif isinstance(attr, property) and attr.fget is not None:
            setattr(cls, name, property(api_boundary(attr.fget), attr.fset, attr.fdel, attr.__doc__))
    return cls


_entry_point_of: dict[Callable[..., Any], Callable[..., Any]] = {}


def entry_point(value: Any) -> Any:
    """``value`` as a public entry point when it is one of symnb's functions not yet
    behind :func:`api_boundary` (anything else is returned as it is). One wrapper per
    function, so a function re-exported by two namespaces is the same object in both
    (``T.nnet.softmax is T.softmax``); ``fn.__wrapped__`` is the core function."""
    if not isinstance(value, types.FunctionType) or hasattr(value, "__wrapped__") \
            or not (value.__module__ == "symnb" or value.__module__.startswith("symnb.")):
        return value
    wrapper = _entry_point_of.get(value)
    if wrapper is None:
        wrapper = _entry_point_of[value] = api_boundary(value)
    return wrapper


def entry_points(namespace: dict[str, Any]) -> None:
    """Make the public functions of a public namespace (``symnb``, ``symnb.tensor``,
    ``T.nnet``, ``symnb.printing``, ...) entry points, in place (:func:`entry_point`).

    Only the public namespaces are wrapped: symnb's own code calls the core modules, so
    a call inside the library pays nothing.
    """
    for name, value in list(namespace.items()):
        if not name.startswith("_"):
            namespace[name] = entry_point(value)
