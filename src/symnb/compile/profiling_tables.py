"""A profile's tables, as Theano printed them: the Apply table (``<% time> <sum %>
<apply time> <time per call> <#call> <id>``, each input's dtype, shape and strides),
the Op and Class tables, and a table by the user's lines; the rows come as data
(``*_rows``) for the HTML view and as text (``write_summary``).

Every table also has the rows that are no node's: the XLA work no node's scope names
(copies XLA adds) and the time outside the program (argument checks, dispatch,
transfers, copies of the outputs), so that each table sums to the real call.
"""

from __future__ import annotations

import io
from typing import Any, NamedTuple

import numpy as np

from symnb.compile.footprint import human_bytes
from symnb.compile.profile_text import percent_text, seconds_text
from symnb.compile.profiling_records import ProfileReport, describe_signature
from symnb.core.graph.type import describe_shape


__all__ = ["Row", "apply_rows", "op_rows", "class_rows", "line_rows", "write_summary",
           "write_overview", "OUTSIDE", "UNNAMED", "ESTIMATED_NOTE", "estimated_percent",
           "estimated_text", "compile_text"]

OUTSIDE = "(outside the XLA program: argument checks, dispatch, transfers, output copies)"
UNNAMED = "(XLA work no node names: copies and layout changes XLA added)"
_s, _p = seconds_text, percent_text  # short: the tables write many of them
#: How many of the largest values ``profile_memory`` lists.
LARGEST = 10


class Row(NamedTuple):
    """One row of a table: its share of the call, seconds per call, and what it is."""

    percent: float
    seconds: float
    key: str        # the node's id, the op, the class or the line
    count: int      # nodes in the row (1 for the Apply table)
    detail: str     # the Apply table: the node and its line; else ''
    index: int      # the node's toposort index (Apply table), else -1
    split: int = 0  # Apply table: nodes one XLA operation (a fusion) of it was split among


def _extra_rows(report: ProfileReport) -> list[tuple[str, float]]:
    extra = []
    if report.unattributed > 0:
        extra.append((UNNAMED, report.unattributed))
    # Always listed, 0 s included, so the tables read the same on every run: whether the
    # mean call exceeds the traced run's median is a matter of timing noise.
    extra.append((OUTSIDE, max(report.outside_seconds, 0.0)))
    return extra


def _rows(report: ProfileReport, groups: dict[str, list[float]], details: dict[str, str],
          indices: dict[str, int]) -> list[Row]:
    total = report.call_seconds or 1.0
    rows = [Row(100.0 * sum(v) / total, sum(v), key, len(v), details.get(key, ""),
                indices.get(key, -1)) for key, v in groups.items()]
    rows += [Row(100.0 * s / total, s, key, 0, "", -1) for key, s in _extra_rows(report)]
    rows.sort(key=lambda r: -r.seconds)
    return rows


def apply_rows(stats: Any, report: ProfileReport) -> list[Row]:
    """One row per node of ``f.nodes`` (every node, those XLA did no work for at 0)."""
    nodes = stats.function.nodes
    groups, details, indices = {}, {}, {}
    for i, seconds in report.node_seconds.items():
        key = str(i)
        groups[key], indices[key] = [seconds], i
        details[key] = f"{nodes[i].op.display_name()}  {_where(nodes[i])}"
    return [r._replace(split=report.split_among.get(r.index, 0)) if r.index >= 0 else r
            for r in _rows(report, groups, details, indices)]


#: The mark of a node's time that is in part a share of a fused XLA operation.
ESTIMATED = "~"
ESTIMATED_NOTE = (f"{ESTIMATED}: an estimate: XLA fused this node's work with other nodes' into one "
                  "operation, whose measured time is split among them by output size")


def estimated_percent(percent: float, split: int) -> str:
    """A node's share of the call, marked when it is in part an estimate."""
    return f"{ESTIMATED if split else ''}{_p(percent)}"


def estimated_text(split: int) -> str:
    """The Apply table's mark for a row whose time was split among ``split`` nodes."""
    return f" [{ESTIMATED} one fused XLA operation of {split} nodes]" if split else ""


def op_rows(stats: Any, report: ProfileReport) -> list[Row]:
    """One row per op (class and parameters), with how many nodes apply it."""
    return _grouped(stats, report, lambda node: node.op.display_name())


def class_rows(stats: Any, report: ProfileReport) -> list[Row]:
    """One row per op class."""
    return _grouped(stats, report, lambda node: type(node.op).__name__)


def line_rows(stats: Any, report: ProfileReport) -> list[Row]:
    """One row per user line (inside a loop body, the body's own lines); ``count``: the
    nodes of ``f.nodes`` built there."""
    nodes = stats.function.nodes
    counts: dict[str, int] = {}
    for i in report.node_seconds:  # every node's line appears, at 0 if XLA did nothing for it
        counts[_where(nodes[i])] = counts.get(_where(nodes[i]), 0) + 1
    groups = {line: [0.0] for line in counts}
    for line, seconds in report.line_seconds.items():
        groups.setdefault(line, [0.0])[0] += seconds
    rows = _rows(report, groups, {}, {})
    return [r._replace(count=max(counts.get(r.key, 1), 1)) if r.count else r for r in rows]


def _grouped(stats: Any, report: ProfileReport, key_of: Any) -> list[Row]:
    nodes = stats.function.nodes
    groups: dict[str, list[float]] = {}
    for i, seconds in report.node_seconds.items():
        groups.setdefault(key_of(nodes[i]), []).append(seconds)
    return _rows(report, groups, {}, {})


def _where(node: Any) -> str:
    return node.site.describe(verb="") if node.site else "(built by symnb)"


# -- text --------------------------------------------------------------------------------

def write_summary(stats: Any, report: ProfileReport | None, n_nodes: int) -> str:
    out = io.StringIO()
    fn = stats.function
    out.write(f"Function profile: {fn.name or '<unnamed function>'}\n")
    _write_calls(out, stats)
    if report is None:
        out.write("  (call the function once for the tables)\n")
        return out.getvalue()
    _write_cost(out, stats, report)
    if stats.memory:
        _write_memory(out, report)
    if fn.shardings is not None:  # over several devices: each variable's sharding, the collectives
        out.write("\n" + "".join(f"  {line}\n" for line in fn.sharding_lines(*stats._last_arrays)))
    shapes = describe_signature(tuple((tuple(np.shape(a)), str(a.dtype)) for a in stats._last_arrays))
    out.write(f"\n  Node times: {report.source}, on the last call's arguments"
              f"{' (' + shapes + ')' if shapes else ''}. Per call: the XLA program "
              f"{_s(report.program_seconds)}, outside it {_s(report.outside_seconds)}, "
              f"total {_s(report.call_seconds)}.\n")
    if report.traced_seconds > report.call_seconds:  # the trace's share is then scaled down
        out.write(f"  (XLA's operations took {_s(report.traced_seconds)} when traced, longer than the "
                  "median call: the machine was busy; measure again for the time outside.)\n")
    calls = stats.calls
    _write_table(out, "Lines (where the time goes, by your code)",
                 "<% time> <sum %> <time per call> <#apply> <line>", line_rows(stats, report),
                 n_nodes, lambda r: f"{_s(r.seconds)}  {r.count:4d}  {r.key}")
    grouped = lambda r: f"{_s(r.seconds * calls)}  {_s(r.seconds)}  {calls:5d}  {r.count:4d}  {r.key}"
    _write_table(out, "Class", "<% time> <sum %> <apply time> <time per call> <#call> <#apply> "
                 "<Class name>", class_rows(stats, report), n_nodes, grouped)
    _write_table(out, "Op", "<% time> <sum %> <apply time> <time per call> <#call> <#apply> "
                 "<Op name>", op_rows(stats, report), n_nodes, grouped)
    _write_apply(out, stats, report, n_nodes)
    return out.getvalue()


def write_overview(stats: Any, report: ProfileReport | None, n_lines: int, order: str = "time") -> str:
    """The profile in a few lines: time per call (in and outside the program), compile
    time, the costliest user lines, costliest first (``order="time"``) or in the code's
    order (``"line"``: the same order from run to run, whichever line is a little faster);
    the numbers of :func:`write_summary`."""
    if order not in ("time", "line"):
        raise ValueError(f"order must be 'time' or 'line', got {order!r}")
    out = io.StringIO()
    name = stats.function.name or "<unnamed function>"
    if report is None:
        return f"Profile of {name}: not called yet (call the function once)\n"
    n = stats.calls
    timed = (f"{n} call(s) timed, {_s(report.call_seconds)} per call (median)" if n else
             f"no call timed yet (only compiles); the program alone: {_s(report.call_seconds)}")
    out.write(f"Profile of {name}: {timed}\n")
    total = report.call_seconds or 1.0
    out.write(f"  in the XLA program {_s(report.program_seconds)} "
              f"({_p(100 * report.program_seconds / total)}), outside it "
              f"{_s(report.outside_seconds)} ({_p(100 * report.outside_seconds / total)})\n")
    out.write(f"  compile: {compile_text(stats)}\n")
    rows = line_rows(stats, report)
    top = rows[:n_lines]  # line_rows are sorted costliest first
    if order == "line":  # the rows no line owns last
        top.sort(key=lambda r: (r.count == 0, r.key))
    listed = "costliest first" if order == "time" else "listed in the code's order, not by cost"
    out.write(f"  costliest lines ({len(top)} of {len(rows)}, {listed}):\n")
    for r in top:
        out.write(f"    {_p(r.percent):>6}  {_s(r.seconds)}  {r.key}\n")
    return out.getvalue()


def compile_text(stats: Any) -> str:
    """What compiling cost: the compiles' stages, or, when no call compiled, that the
    program came from a cache (it was compiled before this function was made)."""
    stages = stats.compile_seconds()
    if not stats.compiles and stats.calls:
        return (f"no call compiled: the program came from a cache (an equal graph compiled "
                f"earlier in this session, or the disk cache); rewriting the graph took "
                f"{_s(stages['rewriting'])}")
    return (f"{len(stats.compiles)} compile(s), {_s(sum(stages.values()))} (rewriting "
            f"{_s(stages['rewriting'])}, tracing {_s(stages['tracing'])}, lowering "
            f"{_s(stages['lowering'])}, XLA compile {_s(stages['xla_compile'])})")


def _write_calls(out: io.StringIO, stats: Any) -> None:
    n = stats.calls
    out.write(f"  {n} call(s) timed: per call min {_s(stats.call_min)}, median "
              f"{_s(stats.call_median)}, mean {_s(stats.call_mean)}"
              f" (total {_s(sum(stats.call_times))})\n" if n else "  0 call(s) timed yet\n")
    out.write(f"  compile: {compile_text(stats)}; counted apart from the calls\n")
    for k, c in enumerate(stats.compiles):
        out.write(f"    compile {k + 1}: {describe_signature(c.shapes) or 'no arguments'}: the "
                  f"call took {_s(c.seconds)}\n")
    t = stats.transfers_per_call()
    out.write(f"  Transfers per call: host->device {t['h2d_count']:g} ({_b(t['h2d_bytes'])}), "
              f"device->host {t['d2h_count']:g} ({_b(t['d2h_bytes'])})\n")


def _write_cost(out: io.StringIO, stats: Any, report: ProfileReport) -> None:
    facts = report.facts
    if facts is None:
        return
    per_call = report.program_seconds or report.call_seconds
    rate = f" -> {facts.flops / per_call / 1e9:.2f} GFLOP/s, " \
           f"{facts.bytes_accessed / per_call / 1e9:.2f} GB/s achieved by the program" \
        if per_call else ""
    out.write(f"  XLA cost per call: {facts.flops:.4g} flops, {_b(facts.bytes_accessed)} accessed"
              f"{rate}\n")
    if facts.uncounted_loops:
        out.write(f"    (a lower bound: {facts.uncounted_loops} while loop(s) of unknown trip count "
                  "counted once)\n")


def _write_memory(out: io.StringIO, report: ProfileReport) -> None:
    facts = report.facts
    out.write("\n  Memory (profile_memory=True)\n")
    if facts is not None:
        out.write(f"    peak {_b(facts.peak_bytes)}: arguments {_b(facts.argument_bytes)}, outputs "
                  f"{_b(facts.output_bytes)}, temporaries {_b(facts.temp_bytes)}, outputs in "
                  f"donated arguments -{_b(facts.alias_bytes)} (XLA's memory analysis)\n")
    out.write(f"    the {min(LARGEST, len(report.footprint))} largest values:\n")
    for e in report.footprint[:LARGEST]:
        var = e.var
        site = (var.owner.site if var.owner is not None else var.site)
        where = site.describe(verb="") if site else "(built by symnb)"
        out.write(f"      {_b(e.nbytes):>12}  {e.dtype} {describe_shape(e.shape)}  {e.name}  {where}\n")


def _write_table(out: io.StringIO, title: str, header: str, rows: list[Row], limit: int,
                 columns: Any) -> None:
    """``columns(row)``: the row's text after its two percentages."""
    out.write(f"\n{title}\n{'-' * len(title)}\n  {header}\n")
    running = 0.0
    for r in rows[:limit]:
        running += r.percent
        text = f"{_s(r.seconds)}  {r.key}" if r.count == 0 else columns(r)  # a row no node's
        out.write(f"  {_p(r.percent):>7}  {_p(running):>7}  {text}\n")
    if len(rows) > limit:
        out.write(f"  ... ({len(rows) - limit} more row(s), {sum(r.percent for r in rows[limit:]):.1f}%)\n")


def _write_apply(out: io.StringIO, stats: Any, report: ProfileReport, limit: int) -> None:
    title = "Apply"
    out.write(f"\n{title}\n------\n  <% time> <sum %> <apply time> <time per call> <#call> <id> "
              f"<op> <built at>\n")
    shapes = {id(e.var): (e.shape, e.dtype) for e in report.footprint}
    nodes = stats.function.nodes
    rows = apply_rows(stats, report)
    running = 0.0
    for r in rows[:limit]:
        running += r.percent
        if r.index < 0:
            out.write(f"  {_p(r.percent):>7}  {_p(running):>7}  {_s(r.seconds * stats.calls)}  "
                      f"{_s(r.seconds)}  {stats.calls:5d}     -  {r.key}\n")
            continue
        out.write(f"  {estimated_percent(r.percent, r.split):>7}  {_p(running):>7}  "
                  f"{_s(r.seconds * stats.calls)}  {_s(r.seconds)}  {stats.calls:5d}  {r.index:4d}  "
                  f"{r.detail}{estimated_text(r.split)}\n")
        node = nodes[r.index]
        for kind, variables in (("input", node.inputs), ("output", node.outputs)):
            for k, var in enumerate(variables):
                out.write(f"      {kind} {k}: {_value_text(var, shapes)}\n")
    if len(rows) > limit:
        out.write(f"  ... ({len(rows) - limit} more row(s), {sum(r.percent for r in rows[limit:]):.1f}%)\n")
    if any(r.split for r in rows[:limit]):
        out.write(f"  {ESTIMATED_NOTE}; the other times are XLA's operations measured one by one.\n")


def _value_text(var: Any, shapes: dict) -> str:
    known = shapes.get(id(var))
    if known is None:
        data = getattr(var, "data", None)
        if data is None:
            return f"dtype={var.type.dtype}, shape={describe_shape(var.type.shape)}"
        known = (np.shape(data), np.dtype(var.type.dtype))
    shape, dtype = known
    # XLA's buffers are dense and row-major: strides (in elements) follow from the shape.
    strides = tuple(int(np.prod(shape[k + 1:])) for k in range(len(shape)))
    return f"dtype={dtype}, shape={tuple(shape)}, strides={strides}"




def _b(nbytes: float) -> str:
    return human_bytes(int(round(nbytes)))
