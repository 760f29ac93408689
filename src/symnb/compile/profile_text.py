"""How every view of a profile writes its numbers: ``f.profile.summary()``,
``f.profile.overview()``, ``ProfileView``, the time-coloured graph and
``%%symgraph --profile`` print seconds and shares through these two functions, so the
same measurement reads the same, digit for digit, wherever it is shown."""

from __future__ import annotations

__all__ = ["seconds_text", "percent_text"]


def seconds_text(seconds: float) -> str:
    """``1.234e-04s``: four significant digits, the unit attached."""
    return f"{seconds:.3e}s"


def percent_text(percent: float) -> str:
    """``12.5%``: one decimal."""
    return f"{percent:.1f}%"
