"""How every view of a profile writes its numbers: ``f.profile.summary()``,
``f.profile.overview()``, ``ProfileView``, the time-coloured graph, the timeline and
``%%symgraph --profile`` print seconds and shares through these two functions, so the
same measurement reads the same, digit for digit, wherever it is shown."""

from __future__ import annotations

__all__ = ["seconds_text", "percent_text"]

_UNITS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "\u00b5s"), (1e-9, "ns"))


def seconds_text(seconds: float) -> str:
    """``7.944 ms``, ``123.4 µs``, ``12.35 s``: four significant digits in the unit that
    puts one to three digits before the point (ns the smallest; whole seconds from 1000 s)."""
    if seconds == 0:
        return "0 s"
    if abs(seconds) >= 1000:
        return f"{seconds:.0f} s"
    scale, unit = next(((scale, unit) for scale, unit in _UNITS
                        # rounded first: 999.96 µs is written 1 ms, not 1000 µs
                        if float(f"{abs(seconds) / scale:.4g}") >= 1), _UNITS[-1])
    return f"{seconds / scale:.4g} {unit}"


def percent_text(percent: float) -> str:
    """``12.5%``: one decimal."""
    return f"{percent:.1f}%"
