"""The base class of symnb's own errors, below everything that raises one.

It stands alone so that ``config`` (whose ``ConfigError`` is a ``SymnbError``) and
``errors`` (whose messages read ``config``) import it, not each other.
"""

from typing import Callable

from symnb.core.graph.error_record import ErrorRecord

__all__ = ["SymnbError", "register_error_html"]


class SymnbError(Exception):
    """Base of symnb's own errors.

    Every one carries its structured record (``err.record``, an
    :class:`~symnb.core.graph.error_record.ErrorRecord`): the failing node, its inputs,
    the iterations, the user's line. Its message (``str(err)``) is drawn from it, and so
    is its HTML in a notebook cell (``symnb.printing.failure``), with, for a failed call,
    the values of that call (``err.call_values``, :class:`symnb.core.failed_call.CallValues`).
    An error raised with a message alone has a record holding that message.
    """

    _record: ErrorRecord | None = None

    @property
    def record(self) -> ErrorRecord:
        """The error's structured record (see the class's docstring)."""
        if self._record is not None:
            return self._record
        message = str(self.args[0]) if len(self.args) == 1 else str(self)
        return ErrorRecord(message)

    @record.setter
    def record(self, record: ErrorRecord) -> None:
        self._record = record

    def _repr_html_(self) -> str | None:
        return _ERROR_HTML[0](self) if _ERROR_HTML else None


#: The renderer of errors as HTML (the printing layer registers it: core draws nothing).
_ERROR_HTML: list[Callable[[BaseException], str]] = []


def register_error_html(render: Callable[[BaseException], str]) -> None:
    """Set how a :class:`SymnbError` shows as HTML (``symnb.printing.failure``)."""
    _ERROR_HTML[:] = [render]
