"""Keyword arguments a callable does not take: the one message for them.

A misspelled keyword must not be swallowed (``normal(mean=5.0)`` drawing N(0, 1)).
Python's own ``TypeError`` names the keyword; where symnb checks the keywords itself
(:func:`checked_keywords`, ``config.change_flags``) the message also lists the accepted
ones and, for a close misspelling (``stdev``) or another library's name for the same
parameter (NumPy's ``mean`` for Theano's ``avg``), the one probably meant.
"""

from __future__ import annotations

import difflib
import functools
import inspect
from typing import Any, Callable, Iterable, Mapping, TypeVar

__all__ = ["did_you_mean", "unexpected_keywords_message", "unexpected_keywords", "checked_keywords"]

F = TypeVar("F", bound=Callable[..., Any])


def did_you_mean(name: str, choices: Iterable[str], hints: Mapping[str, str] | None = None) -> str:
    """`` (did you mean 'std'?)`` for the choice ``name`` probably stands for, else ``""``.

    ``hints``: other spellings of a choice (``{"mean": "avg"}``), used when the choice is
    among ``choices``; otherwise the closest spelling (``difflib``)."""
    choices = list(choices)
    meant = (hints or {}).get(name)
    if meant not in choices:
        close = difflib.get_close_matches(name, choices, n=1)
        meant = close[0] if close else None
    return f" (did you mean {meant!r}?)" if meant is not None else ""


def unexpected_keywords_message(where: str, unknown: Iterable[str], accepted: Iterable[str],
                                hints: Mapping[str, str] | None = None) -> str:
    """Python's message for unknown keywords of ``where`` (a callable's name), followed by
    a guess for each and the keywords ``where`` accepts."""
    accepted, unknown = list(accepted), list(unknown)
    named = ", ".join(f"{name!r}{did_you_mean(name, accepted, hints)}" for name in unknown)
    got = "an unexpected keyword argument" if len(unknown) == 1 else "unexpected keyword arguments"
    return f"{where}() got {got} {named}; it accepts: {', '.join(accepted)}"


def unexpected_keywords(where: str, unknown: Iterable[str], accepted: Iterable[str],
                        hints: Mapping[str, str] | None = None) -> TypeError:
    """The ``TypeError`` for unknown keywords (see :func:`unexpected_keywords_message`)."""
    return TypeError(unexpected_keywords_message(where, unknown, accepted, hints))


def checked_keywords(hints: Mapping[str, str] | None = None) -> Callable[[F], F]:
    """Decorator: a keyword ``fn`` does not take raises :func:`unexpected_keywords`
    (naming it, a guess, and the accepted ones) instead of Python's bare message.

    ``fn`` must take no ``**kwargs``: there would be nothing to check. Its signature is
    kept (``inspect.signature`` follows ``__wrapped__``)."""

    def decorate(fn: F) -> F:
        parameters = inspect.signature(fn).parameters.values()
        if any(p.kind is p.VAR_KEYWORD for p in parameters):
            raise TypeError(f"checked_keywords: {fn.__qualname__} takes **kwargs, so any keyword "
                            f"is accepted; list its keywords instead")
        accepted = [p.name for p in parameters if p.name != "self"
                    and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        known = frozenset(accepted)
        where = fn.__qualname__.removesuffix(".__init__")

        @functools.wraps(fn)
        def checked(*args: Any, **kwargs: Any) -> Any:
            unknown = [name for name in kwargs if name not in known]
            if unknown:
                raise unexpected_keywords(where, unknown, accepted, hints)
            return fn(*args, **kwargs)

        return checked  # type: ignore[return-value]

    return decorate
