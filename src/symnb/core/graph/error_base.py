"""The base class of symnb's own errors, below everything that raises one.

It stands alone so that ``config`` (whose ``ConfigError`` is a ``SymnbError``) and
``errors`` (whose messages read ``config``) import it, not each other.
"""

from typing import Callable

__all__ = ["SymnbError", "register_error_html"]


class SymnbError(Exception):
    """Base of symnb's own errors.

    Shown in a notebook cell (``err``), an error is drawn as HTML by the printing layer
    (``symnb.printing.failure``): its message and, for a failed call, the values of that
    call (``err.call_values``, :class:`symnb.core.failed_call.CallValues`).
    """

    def _repr_html_(self) -> str | None:
        return _ERROR_HTML[0](self) if _ERROR_HTML else None


#: The renderer of errors as HTML (the printing layer registers it: core draws nothing).
_ERROR_HTML: list[Callable[[BaseException], str]] = []


def register_error_html(render: Callable[[BaseException], str]) -> None:
    """Set how a :class:`SymnbError` shows as HTML (``symnb.printing.failure``)."""
    _ERROR_HTML[:] = [render]
