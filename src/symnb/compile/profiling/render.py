"""A profile's tables as text, as Theano printed them: the Apply table (``<% time> <sum %>
<apply time> <time per call> <#call> <id>``, each input's dtype, shape and strides),
the Op and Class tables, and a table by the user's lines; the rows come as data
(``*_rows``) for the HTML view and as text (``write_summary``).

Every table has the rows that are no node's: XLA's work no node's scope names (copies
XLA adds) and the time outside the program (argument checks, dispatch, transfers,
copies of the outputs), so that each table sums to the real call. An XLA operation that
fused several nodes' work is one row with its measured time (its members listed), unless
its members all fall in one row of the table (one op, one class, one line).
"""

from __future__ import annotations

import io
from typing import Any, Callable, NamedTuple

import numpy as np

from symnb.compile.footprint import human_bytes
from symnb.compile.profiling.attribute import OUTSIDE, UNNAMED, where
from symnb.compile.profiling.format import percent_text, seconds_text
from symnb.compile.profiling.records import Operation, ProfileReport, describe_signature
from symnb.core.graph.type import describe_shape


__all__ = ["Row", "HOST_NOTE", "host_seconds", "apply_rows", "op_rows", "class_rows", "line_rows", "write_summary",
           "write_overview", "compile_text", "calls_text", "fused_text"]

_s, _p = seconds_text, percent_text  # short: the tables write many of them
#: How many of the largest values ``profile_memory`` lists.
LARGEST = 10


class Row(NamedTuple):
    """One row of a table: its share of the call, seconds per call, and what it is."""

    percent: float
    seconds: float
    key: str        # the node's id, the op, the class, the line, or a fused operation
    count: int      # nodes in the row (1 for a node of the Apply table); 0: no node's
    detail: str     # the Apply table: the node and its line; else ''
    index: int      # the node's toposort index (Apply table), else -1
    members: tuple = ()  # a fused operation's row: the indices of the nodes it fused
    fused_in: tuple = ()  # the fused operations (XLA names) that also do this row's work

    def own_time(self, seconds: float) -> str:
        """``seconds`` (this row's, or a multiple), or ``-`` for a row all of whose work
        is in fused operations: no time of its own, not "0 s"."""
        return "-" if self.fused_in and not self.seconds else _s(seconds)

    @property
    def share(self) -> str:
        """This row's share of the call, or ``-`` (see :meth:`own_time`)."""
        return "-" if self.fused_in and not self.seconds else _p(self.percent)

    @property
    def fused_note(self) -> str:
        """`` [in fused operation 'fusion.3']`` for a row whose work XLA fused with
        another row's (its time is that operation's row), else ''."""
        if not self.fused_in:
            return ""
        plural = "s" if len(self.fused_in) > 1 else ""
        return f" [work in fused operation{plural} {_names(list(self.fused_in))}]"


def _table(report: ProfileReport, keys: Callable[[Operation], list[str]],
           rows: dict[str, list], parts: Callable[[Operation, list[str]], list[str]] | None = None
           ) -> list[Row]:
    """Sort each operation into the row of its key (``keys(op)``: its members' keys):
    one key, that row; several, a row of its own for the fused operation, naming
    ``parts(op, keys)`` (by default the keys). ``rows``: the rows every table lists,
    0 s included (key -> [seconds, count, detail, index])."""
    # Fused operations of the same rows (six Adam updates fused alike) are one row: the
    # sum of their measured times; the Apply table's differ by their members.
    fused: dict[tuple, list] = {}
    fused_in: dict[str, list[str]] = {}
    for op in report.operations:
        found = list(dict.fromkeys(keys(op)))
        if len(found) == 1:
            rows.setdefault(found[0], [0.0, 1, "", -1])[0] += op.seconds
        elif found:
            named = tuple(parts(op, found) if parts is not None else found)
            row = fused.setdefault(named, [0.0, [], {}])
            row[0] += op.seconds
            row[1].append(op.name)
            row[2].update(dict.fromkeys(op.members))
            for key in found:
                fused_in.setdefault(key, []).append(op.name)
    total = report.call_seconds or 1.0
    # Names sorted: the trace lists operations in no fixed order, and a table must read
    # the same from run to run.
    table = [Row(0.0, s, key, count, detail, index, (), tuple(sorted(fused_in.get(key, ()))))
             for key, (s, count, detail, index) in rows.items()]
    table += [Row(0.0, s, fused_text(sorted(names), list(named)), len(members), "", -1,
                  tuple(sorted(members)))
              for named, (s, names, members) in fused.items()]
    if report.unattributed > 0:
        table.append(Row(0.0, report.unattributed, UNNAMED, 0, "", -1))
    # Always listed, 0 s included, so the tables read the same on every run: whether the
    # mean call exceeds the traced run's median is a matter of timing noise.
    table.append(Row(0.0, max(report.outside_seconds, 0.0), OUTSIDE, 0, "", -1))
    table = [r._replace(percent=100.0 * r.seconds / total) for r in table]
    table.sort(key=lambda r: -r.seconds)
    return table


def fused_text(names: list[str], parts: list[str]) -> str:
    """``(one fused XLA operation 'fusion.3': tanh + mul)``: the row of a fused operation
    (or of several fusing the same rows' work)."""
    if len(names) == 1:
        return f"(one fused XLA operation {names[0]!r}: {' + '.join(parts)})"
    return f"({len(names)} fused XLA operations {_names(names)}: {' + '.join(parts)})"


def _names(names: list[str], most: int = 3) -> str:
    """``'a', 'b', 'c' and 4 more``."""
    shown = ", ".join(repr(name) for name in names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


#: The note on a row of work done on the host by an op written in Python: its perform,
#: called back from the program (``lower_xla/rules/python_op.py``). Its time is the
#: callback's, measured as the program's operation that calls it.
HOST_NOTE = " [Python, on the host]"


def _on_host(node: Any) -> bool:
    """Whether the program runs ``node``'s op as Python on the host."""
    from symnb.lower_xla.registry import runs_on_host  # loaded: the function was compiled

    return runs_on_host(node.op)


def _host_note(node: Any) -> str:
    return HOST_NOTE if _on_host(node) else ""


def host_seconds(stats: Any, report: ProfileReport) -> float:
    """The time per call of the program's operations that run Python ops' perform."""
    nodes = stats.function.nodes
    return sum(op.seconds for op in report.operations
               if len(op.members) == 1 and _on_host(nodes[op.members[0]]))


def _host_text(stats: Any, report: ProfileReport) -> str:
    """`` (of which 10.79 ms Python ops on the host)``, or '' when it runs none."""
    seconds = host_seconds(stats, report)
    return f" (of which {_s(seconds)} Python ops on the host)" if seconds else ""


def apply_rows(stats: Any, report: ProfileReport) -> list[Row]:
    """One row per node of ``f.nodes`` (its own operations; those XLA did no work for
    alone at 0), one per fused operation (its members listed by index)."""
    nodes = stats.function.nodes
    rows = {str(i): [0.0, 1, f"{node.op.display_name()}{_host_note(node)}  {where(node)}", i]
            for i, node in enumerate(nodes)}

    return _table(report, lambda op: [str(i) for i in op.members], rows,
                  lambda op, _: [f"#{i} {nodes[i].op.display_name()}" for i in op.members])


def op_rows(stats: Any, report: ProfileReport) -> list[Row]:
    """One row per op (class and parameters), with how many nodes apply it."""
    return _grouped(stats, report, lambda node: node.op.display_name() + _host_note(node))


def class_rows(stats: Any, report: ProfileReport) -> list[Row]:
    """One row per op class."""
    return _grouped(stats, report, lambda node: type(node.op).__name__ + _host_note(node))


def line_rows(stats: Any, report: ProfileReport) -> list[Row]:
    """One row per user line (inside a loop body, the body's own lines); ``count``: the
    nodes of ``f.nodes`` built there. Every node's line is listed, at 0 s if XLA did no
    work for it alone."""
    rows: dict[str, list] = {}
    host_lines = set()
    for node in stats.function.nodes:
        row = rows.setdefault(where(node), [0.0, 0, "", -1])
        row[1] += 1
        if _on_host(node):
            host_lines.add(where(node))
    return [r._replace(count=max(r.count, 1),
                       key=r.key + HOST_NOTE if r.key in host_lines else r.key) if r.count else r
            for r in _table(report, lambda op: list(op.lines), rows)]


def _grouped(stats: Any, report: ProfileReport, key_of: Callable[[Any], str]) -> list[Row]:
    nodes = stats.function.nodes
    rows: dict[str, list] = {}
    for node in nodes:
        rows.setdefault(key_of(node), [0.0, 0, "", -1])[1] += 1
    return _table(report, lambda op: [key_of(nodes[i]) for i in op.members], rows)


# -- text --------------------------------------------------------------------------------

def write_summary(stats: Any, report: ProfileReport | None, n_nodes: int) -> str:
    out = io.StringIO()
    fn = stats.function
    out.write(f"Function profile: {fn.name or '<unnamed function>'}\n")
    if stats.note:
        out.write(f"  {stats.note}\n")
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
              f"{_s(report.program_seconds)}{_host_text(stats, report)}, outside it "
              f"{_s(report.outside_seconds)}, "
              f"total {_s(report.call_seconds)}.\n")
    if report.traced_seconds > report.call_seconds:  # the trace's share is then scaled down
        out.write(f"  (XLA's operations took {_s(report.traced_seconds)} when traced, longer than the "
                  "median call: the machine was busy; measure again for the time outside.)\n")
    calls = stats.calls
    _write_table(out, "Lines (where the time goes, by your code)",
                 "<% time> <sum %> <time per call> <#apply> <line>", line_rows(stats, report),
                 n_nodes, lambda r: f"{r.own_time(r.seconds)}  {r.count:4d}  {r.key}{r.fused_note}")
    grouped = lambda r: (f"{r.own_time(r.seconds * calls)}  {r.own_time(r.seconds)}  {calls:5d}  "
                         f"{r.count:4d}  {r.key}{r.fused_note}")
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
    timed = (f"{_s(report.call_seconds)} per call (median)" if stats.calls else
             f"the program alone: {_s(report.call_seconds)}")
    out.write(f"Profile of {name}: {calls_text(stats)}, {timed}\n")
    total = report.call_seconds or 1.0
    out.write(f"  in the XLA program {_s(report.program_seconds)} "
              f"({_p(100 * report.program_seconds / total)}){_host_text(stats, report)}, outside it "
              f"{_s(report.outside_seconds)} ({_p(100 * report.outside_seconds / total)})\n")
    out.write(f"  compile: {compile_text(stats)}\n")
    # A line whose work is all in fused operations has no time of its own to rank by: it
    # is named in those operations' rows (as in line_times()).
    rows = [r for r in line_rows(stats, report) if r.seconds or not r.fused_in]
    top = rows[:n_lines]  # line_rows are sorted costliest first
    if order == "line":  # the rows no line owns last
        top.sort(key=lambda r: (r.count == 0, r.key))
    listed = "costliest first" if order == "time" else "listed in the code's order, not by cost"
    out.write(f"  costliest lines ({len(top)} of {len(rows)}, {listed}):\n")
    for r in top:
        out.write(f"    {r.share:>6}  {r.own_time(r.seconds)}  {r.key}{r.fused_note}\n")
    return out.getvalue()


def calls_text(stats: Any) -> str:
    """``20 calls: 19 timed, 1 compiled the program (counted apart)``: why the timed calls
    are fewer than the calls made."""
    n, compiled = stats.calls, len(stats.compiles)
    if not compiled:
        return f"{n} call(s) timed"
    if not n:
        return (f"no call timed yet: {compiled} call(s) compiled the program (counted apart, "
                "call again to time one)")
    return (f"{n + compiled} calls: {n} timed, {compiled} compiled the program (counted "
            "apart: tracing and compiling are not the program's time)")


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
    out.write(f"  {calls_text(stats)}\n")
    if stats.calls:
        out.write(f"  per call: min {_s(stats.call_min)}, median {_s(stats.call_median)}, mean "
                  f"{_s(stats.call_mean)} (total {_s(sum(stats.call_times))})\n")
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
        out.write(f"  {r.share:>7}  {_p(running):>7}  {text}\n")
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
        head = f"  {r.share:>7}  {_p(running):>7}  {r.own_time(r.seconds * stats.calls)}  " \
               f"{r.own_time(r.seconds)}  {stats.calls:5d}"
        if r.index < 0:
            out.write(f"{head}     -  {r.key}\n")
            for i in r.members:  # a fused operation: its members, with no time of their own
                out.write(f"      member #{i}: {nodes[i].op.display_name()}  {where(nodes[i])}\n")
            continue
        out.write(f"{head}  {r.index:4d}  {r.detail}{r.fused_note}\n")
        node = nodes[r.index]
        for kind, variables in (("input", node.inputs), ("output", node.outputs)):
            for k, var in enumerate(variables):
                out.write(f"      {kind} {k}: {_value_text(var, shapes)}\n")
    if len(rows) > limit:
        out.write(f"  ... ({len(rows) - limit} more row(s), {sum(r.percent for r in rows[limit:]):.1f}%)\n")
    if report.fused:
        out.write("  A fused XLA operation is one row, its time measured for the whole: its "
                  "member nodes have no time of their own in it.\n")


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
