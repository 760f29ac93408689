"""One call in time: ``f.profile.timeline()`` traces a call of the function with
``jax.profiler`` and shows its host work (symnb's argument checks, JAX's dispatch,
transfers, output copies: the trace's host events and, where JAX's Python tracer runs,
the Python functions) and the XLA operations the program ran, each thread a lane, as a
picture in the notebook (inline SVG, no script), as TensorBoard's trace viewer draws a
step.

The traced call is a real call (the same arguments, the same path through
``Function.__call__``), not counted among the profile's calls: the profiler slows it.
Where no trace can be had (another trace running, a profiler that writes nothing), the
timeline says why and draws nothing.
"""

from __future__ import annotations

import html
from typing import Any, NamedTuple, Sequence

import jax

from symnb.compile.profiling.format import percent_text, seconds_text
from symnb.compile.profiling.measure import profiler_trace

__all__ = ["Timeline", "TimelineEvent", "trace_call", "CALL"]

#: The annotation around the traced call: the timeline's span.
CALL = "symnb: one call of the function"
#: Host events shorter than this share of the call are left out of the picture (a Python
#: tracer records every function call; a picture of thousands says nothing).
SHORTEST = 0.002
_DEEPEST = 8  # nesting levels drawn per lane


class TimelineEvent(NamedTuple):
    """One traced event of the call: where (``lane``: the thread), what, when (seconds
    from the call's start), how long, how deep in its lane's nesting, and ``kind``:
    ``"xla"`` for an operation of the program, ``"host"`` otherwise."""

    lane: str
    name: str
    start: float
    seconds: float
    depth: int
    kind: str


class Timeline:
    """The events of one traced call (``events``, by lane then start), the call's
    traced length (``call_seconds``), and ``reason`` when no trace could be had."""

    def __init__(self, name: str, events: Sequence[TimelineEvent], call_seconds: float,
                 reason: str = "") -> None:
        self.name = name
        self.events = list(events)
        self.call_seconds = call_seconds
        self.reason = reason

    def operations(self) -> list[TimelineEvent]:
        """The XLA operations the program ran in the call, in time order."""
        return sorted((e for e in self.events if e.kind == "xla"), key=lambda e: e.start)

    def lanes(self) -> list[str]:
        """The threads the call's events ran on: the host's first."""
        return list(dict.fromkeys(e.lane for e in self.events))

    def text(self) -> str:
        """The timeline in a few lines: the call, then each lane's top-level events."""
        if self.reason:
            return f"Timeline of {self.name}: not traced: {self.reason}"
        out = [f"Timeline of {self.name}: one call, {seconds_text(self.call_seconds)} traced "
               f"(the profiler slows a call: shares, not seconds, compare with the profile)"]
        for lane in self.lanes():
            out.append(f"  {lane}:")
            for e in self.events:
                if e.lane == lane and e.depth == 0:
                    out.append(f"    {seconds_text(e.start):>10} +{seconds_text(e.seconds):<10} {e.name}")
        return "\n".join(out)

    def __repr__(self) -> str:
        return self.text()

    def svg(self, width: int = 900) -> str:
        """The picture: a time axis, then per lane a row of bars per nesting level;
        each bar's tooltip has its name, start and length."""
        return _svg(self, width)

    def _repr_html_(self) -> str:
        if self.reason:
            return f"<p>Timeline of {html.escape(self.name)}: not traced: {html.escape(self.reason)}</p>"
        return (f'<div class="symnb-timeline" style="max-width:100%;overflow-wrap:anywhere">'
                f"<p>Timeline of {html.escape(self.name)}: one call, "
                f"{html.escape(seconds_text(self.call_seconds))} traced; "
                '<span style="background:#f4a261">&nbsp;XLA operations&nbsp;</span> '
                '<span style="background:#a8c5e8">&nbsp;host work&nbsp;</span> '
                "(hover a bar for its name and time)</p>"
                f"{self.svg()}</div>")


def trace_call(stats: Any, args: tuple, kwargs: dict) -> Timeline:
    """Call ``stats.function`` on ``args`` once to warm it, then once under
    ``jax.profiler``; neither is recorded as a call of the profile."""
    fn = stats.function
    name = fn.name or "<unnamed function>"
    with stats.paused():
        fn(*args, **kwargs)  # compiles for new shapes, loads what a first call loads

        def call() -> None:
            with jax.profiler.TraceAnnotation(CALL):
                fn(*args, **kwargs)

        try:
            data = profiler_trace(call)
        except RuntimeError as error:  # another trace is running, or none was written
            return Timeline(name, [], 0.0, f"jax.profiler could not trace the call ({error})")
    return _timeline(name, data)


def _timeline(name: str, data: Any) -> Timeline:
    """The events of ``data`` (a ProfileData) inside the ``CALL`` annotation."""
    raw = [(plane.name, line.name, event) for plane in data.planes for line in plane.lines
           for event in line.events]
    span = next(((e.start_ns, e.end_ns) for _, _, e in raw if e.name == CALL), None)
    if span is None:
        return Timeline(name, [], 0.0, "the trace has no event of the call")
    start, end = span
    shortest = SHORTEST * (end - start)
    lanes: dict[str, list[tuple[int, int, str, str]]] = {}
    for plane_name, line_name, event in raw:
        if event.name == CALL or event.start_ns < start or event.end_ns > end:
            continue
        kind = "xla" if "hlo_op" in dict(event.stats) else "host"
        if kind == "host" and (event.duration_ns < shortest
                               or event.name.startswith(("end: ", "ThreadpoolListener"))):
            continue  # every operation of the program is kept, however short
        lane = _lane_name(plane_name, line_name, kind)
        lanes.setdefault(lane, []).append((event.start_ns, event.end_ns, event.name.lstrip("$"), kind))
    events = []
    for lane in sorted(lanes, key=lambda lane: (not lane.startswith("host"), lane)):
        events += _nested(lane, sorted(lanes[lane], key=lambda e: (e[0], -e[1])), start)
    return Timeline(name, events, (end - start) * 1e-9)


def _lane_name(plane: str, line: str, kind: str) -> str:
    if line == "python":
        return "host: Python thread"
    return f"{'XLA' if kind == 'xla' else 'host'}: {line.split('/')[0]}"


def _nested(lane: str, events: list[tuple[int, int, str, str]], origin: int) -> list[TimelineEvent]:
    """Each event with its depth: how many events of its lane enclose it."""
    found, ends = [], []
    for begin, end, name, kind in events:
        while ends and ends[-1] <= begin:
            ends.pop()
        if len(ends) < _DEEPEST:
            found.append(TimelineEvent(lane, name, (begin - origin) * 1e-9, (end - begin) * 1e-9,
                                       len(ends), kind))
        ends.append(end)
    return found


_ROW, _LANE_GAP, _AXIS, _LEFT = 16, 10, 24, 150
_FILL = {"xla": "#f4a261", "host": "#a8c5e8"}


def _svg(timeline: Timeline, width: int) -> str:
    total = timeline.call_seconds or 1.0
    plot = width - _LEFT - 10
    parts, y = [], _AXIS
    for lane in timeline.lanes():
        mine = [e for e in timeline.events if e.lane == lane]
        rows = 1 + max(e.depth for e in mine)
        parts.append(f'<text x="4" y="{y + 12}" font-size="11" fill="#222">{_e(lane)}</text>')
        for e in mine:
            x = _LEFT + plot * e.start / total
            w = max(plot * e.seconds / total, 1.0)
            tip = f"{e.name}: {seconds_text(e.seconds)} ({percent_text(100 * e.seconds / total)} " \
                  f"of the call), from {seconds_text(e.start)}"
            label = _fitted(e.name, w)
            text = (f'<text x="{x + 2:.1f}" y="{y + e.depth * _ROW + 11}" font-size="10" '
                    f'fill="#111">{_e(label)}</text>') if label else ""
            parts.append(f'<g class="symnb-timeline-event" data-kind="{e.kind}"><title>{_e(tip)}</title>'
                         f'<rect x="{x:.1f}" y="{y + e.depth * _ROW}" width="{w:.1f}" '
                         f'height="{_ROW - 2}" fill="{_FILL[e.kind]}" stroke="#fff" stroke-width="0.5"/>'
                         f"{text}</g>")
        y += rows * _ROW + _LANE_GAP
    ticks = []
    for k in range(5):
        x = _LEFT + plot * k / 4
        anchor = "start" if k == 0 else "end" if k == 4 else "middle"
        ticks.append(f'<line x1="{x:.1f}" y1="14" x2="{x:.1f}" y2="{y:.0f}" stroke="#ddd"/>'
                     f'<text x="{x:.1f}" y="11" font-size="10" fill="#444" text-anchor="{anchor}">'
                     f"{_e(seconds_text(total * k / 4))}</text>")
    return (f'<svg class="symnb-timeline" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {y:.0f}" '
            f'width="{width}" style="max-width:100%;height:auto;font-family:monospace">'
            f'{"".join(ticks)}{"".join(parts)}</svg>')


def _fitted(name: str, width: float) -> str:
    """``name`` cut to the bar's width (about 6 px a character), or '' when not even
    three characters fit."""
    fits = int((width - 4) / 6)
    if fits < 3:
        return ""
    return name if len(name) <= fits else name[:fits - 1] + "\u2026"


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)
