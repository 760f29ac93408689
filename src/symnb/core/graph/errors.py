"""Error types and the message format every symnb error shares.

A message shows, on one screen: what went wrong (with full shapes and dtypes), the
user's line that built the failing node, and where each of that node's inputs was
built, since the real bug is often a line or two earlier.

Every error symnb raises about the user's graph is a :class:`SymnbError` and also a
subclass of the built-in type a user would catch (``ValueError``, ``TypeError``,
``IndexError``...)::

    SymnbError
    ├── BuildError                   the user's line gives a node inputs it cannot take
    │   ├── TestValueError           ... shapes or values that do not fit (ValueError);
    │   │   │                        found from static shapes or from test values
    │   │   ├── TestValueAssertionError   an Assert failed on test values (AssertionError)
    │   │   └── BuildIndexError      an index out of range, a mask of the wrong shape (IndexError)
    │   ├── BuildTypeError           dtypes or numbers of dimensions that do not fit (TypeError)
    │   ├── BuildKeyError            an unknown key in an argument (KeyError)
    │   └── BuildNotImplementedError something symnb cannot build (NotImplementedError)
    ├── MissingTestValueError        a test value asked for, an input has none (AttributeError)
    ├── InnerNodeError               a node of a loop body or branch failed (ValueError)
    ├── GraphRuntimeError            a compiled function failed on its arguments (ValueError)
    │   └── IndexOutOfBoundsError    ... an index out of range (IndexError)
    ├── OutOfMemoryError             (MemoryError)
    ├── DeviceMismatchError          a call's JAX arrays committed to different devices (ValueError)
    ├── X64DisabledError             a 64-bit graph traced by JAX with x64 off (TypeError)
    └── MissingLoweringError         an Op class has no XLA lowering rule (NotImplementedError)

The same mistake raises the same class with the same layout whichever check finds it:
a static shape as the node is made (:func:`build_error`), or a test value as the node
computes its own (``symnb.core.graph.test_value``). :func:`format_node_error` is that layout.
"""

from __future__ import annotations

import reprlib
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from symnb.core.graph.config import config
from symnb.core.graph.error_base import SymnbError, register_error_html
from symnb.core.graph.error_record import ErrorRecord, ValueRecord, value_lines
from symnb.core.graph.basic import Apply, Constant, Variable
from symnb.core.graph.source import Site, capture_site

__all__ = [
    "SymnbError", "BuildError", "TestValueError", "TestValueAssertionError", "BuildIndexError",
    "BuildTypeError", "BuildKeyError", "BuildNotImplementedError", "MissingTestValueError",
    "InnerNodeError", "GraphRuntimeError", "OutOfMemoryError", "IndexOutOfBoundsError",
    "DynamicShapeError", "X64DisabledError", "MissingLoweringError", "DeviceMismatchError",
    "MethodNotDefined", "PerformNotDefined",
    "UnbuiltNode", "build_error", "build_error_class", "label", "describe_given", "failure_headline",
    "format_at_line", "format_node_error", "describe_inputs", "where_built",
    "register_high_verbosity_section", "register_node_printer", "printed_node",
    "register_error_html", "ErrorRecord", "ValueRecord", "node_record", "input_records",
    "failure_problem", "error_from_record", "node_error", "set_record", "message_of",
    "MissingInputError",
]


class MissingInputError(SymnbError, ValueError):
    """The outputs depend on a variable that is neither an input nor shared (Theano's
    ``gof.fg.MissingInputError``; also a ``scan(strict=True)`` step reading a shared
    variable it was not given)."""


class BuildError(SymnbError):
    """A node cannot be built on the user's line: its inputs' static types, or their test
    values, do not fit the op. The message shows the user's line (and, for a node, each
    input with the line that built it)."""


class TestValueError(BuildError, ValueError):
    """A node's inputs have shapes or values it cannot take: found from their static
    shapes when the node is made, or from their test values when it computes its own."""

    __test__ = False  # not a pytest test class


class TestValueAssertionError(TestValueError, AssertionError):
    """An ``Assert`` failed on the test values while the graph was built."""

    __test__ = False


class BuildIndexError(TestValueError, IndexError):
    """An index out of range for its axis (or a mask of the wrong shape), found from
    static shapes and constant indices, or from test values."""


class BuildIndexTypeError(BuildIndexError, TypeError):
    """An index of a kind that cannot index (a float array, a float slice bound): an
    IndexError as NumPy raises, and the TypeError Theano raised."""


class BuildTypeError(BuildError, TypeError):
    """Inputs of a dtype or number of dimensions the op cannot take, or an argument of
    the wrong kind."""


class BuildKeyError(BuildError, KeyError):
    """An argument (a dict) with a key the function does not know."""


class BuildNotImplementedError(BuildError, NotImplementedError):
    """A graph symnb cannot build (e.g. shared-variable updates inside ``scan``)."""


class DynamicShapeError(SymnbError, ValueError):
    """A graph needs, to compile, a shape or length that depends on run-time values no
    call can provide (XLA's shapes are static); raised when the function is built (at
    the call for a shared variable whose value is too large to specialize on)."""


class MissingTestValueError(SymnbError, AttributeError):
    """A test value was asked for, but an input it depends on has none."""


class InnerNodeError(SymnbError, ValueError):
    """A node of an inner graph failed on the values of one iteration (or branch)."""


class GraphRuntimeError(SymnbError, ValueError):
    """A compiled function could not run a node on the values it was called with."""


class OutOfMemoryError(SymnbError, MemoryError):
    """A compiled function needed more memory than the device has; the message names
    the node whose output is largest, its shape and bytes, and the largest values."""


class DeviceMismatchError(SymnbError, ValueError):
    """A compiled function was called with values committed to different devices (a JAX
    array placed with ``jax.device_put``, a shared variable an earlier call left on
    another device): one program runs on one set of devices. The message names each
    input and shared variable with its devices, and how to move them. Nothing ran: the
    shared variables are unchanged."""


class MissingLoweringError(SymnbError, NotImplementedError):
    """No XLA lowering rule is registered for an Op class (``symnb.lower_xla.lower``):
    the graph cannot compile. Defined here, with the rest of the hierarchy, so that
    ``symnb.errors`` names it without importing JAX."""


class MethodNotDefined(NotImplementedError):
    """An op class leaves out a method of the Op interface (``make_node``, ``perform``,
    ``infer_shape``): Theano's ``gof.utils.MethodNotDefined``. A NotImplementedError, so
    that code catching either catches it."""


class PerformNotDefined(MethodNotDefined):
    """Raised by ``Op.perform`` itself: ``op``'s class has no NumPy ``perform`` (a user's
    op built to be differentiated or rewritten, as Theano's tests build them)."""

    def __init__(self, op: Any) -> None:
        super().__init__(f"{type(op).__name__} has no NumPy perform")
        self.op = op


class IndexOutOfBoundsError(GraphRuntimeError, IndexError):
    """A compiled function was called with an index out of range for the axis it indexes
    (NumPy raises ``IndexError`` there; XLA alone would clamp or drop the index)."""


class X64DisabledError(SymnbError, TypeError):
    """A graph computing in 64 bits (float64, int64, complex128...) traced by a JAX
    transformation (``jax.jit``, ``jax.grad``, ``jax.vmap``) of ``f.as_jax()``'s function
    while JAX's 64-bit mode is off: JAX would have cast the traced arguments to 32 bits
    before the graph saw them, a silently different number."""


class UnsupportedJaxError(SymnbError, ImportError):
    """The installed JAX or jaxlib is outside the versions symnb was tested with (raised
    when the first program is lowered; ``symnb.lower_xla.jax_private`` checks it)."""


#: The build error for each kind of mistake (the built-in type a NumPy function or a
#: check raises), most specific first; anything else is a TestValueError.
_BUILD_CLASSES: tuple[tuple[type[BaseException], type[BuildError]], ...] = (
    (AssertionError, TestValueAssertionError),
    (BuildIndexTypeError, BuildIndexTypeError),
    (IndexError, BuildIndexError),
    (KeyError, BuildKeyError),
    (NotImplementedError, BuildNotImplementedError),
    (TypeError, BuildTypeError),
)


def build_error_class(kind: type[BaseException], from_test_value: bool = False) -> type[BuildError]:
    """The class of the build error for a mistake of ``kind``.

    ``from_test_value``: the mistake was found by computing a test value (any exception
    of a ``perform``), so the error is a :class:`TestValueError` whatever its kind (what
    users catch for those). Otherwise, a kind the class is not already (``OverflowError``,
    NumPy's ``AxisError``) gets a class deriving from both, unless the kind is one of
    symnb's own (``DimensionMismatch``), whose built-in bases decide.
    """
    cls = next((cls for base, cls in _BUILD_CLASSES if issubclass(kind, base)), TestValueError)
    if from_test_value:
        return cls if issubclass(cls, TestValueError) else TestValueError
    if issubclass(cls, kind) or kind.__module__.partition(".")[0] == "symnb":
        return cls
    return _specific_class(cls, kind)


_SPECIFIC_CLASSES: dict[tuple[type, type], type[BuildError]] = {}


def _specific_class(cls: type[BuildError], kind: type[BaseException]) -> type[BuildError]:
    """``cls`` that is also a ``kind`` (e.g. a BuildIndexError that is an ``AxisError``)."""
    key = (cls, kind)
    if key not in _SPECIFIC_CLASSES:
        try:
            # Built from a message, shown as it: whatever ``kind``'s own constructor takes.
            _SPECIFIC_CLASSES[key] = type(f"Build{kind.__name__}", (cls, kind), {
                "__module__": __name__, "__doc__": cls.__doc__,
                "__init__": Exception.__init__, "__str__": Exception.__str__})
        except TypeError:  # a kind with its own instance layout (OSError): the class alone
            _SPECIFIC_CLASSES[key] = cls
    return _SPECIFIC_CLASSES[key]


class UnbuiltNode(NamedTuple):
    """The op and inputs of a node not built yet (its ``make_node`` refused them), and
    the user's line building it: what a build error shows, in a node's layout."""

    op: "Op"
    inputs: Sequence[Variable]
    site: Site


def build_error(problem: str | BaseException, kind: type[BaseException] = ValueError,
                op: "Op | None" = None, inputs: Sequence[Variable] = ()) -> BuildError:
    """The error for a mistake found while building, on the user's line (captured now).

    ``problem``: the message, or the exception that says it (its type is then the kind).
    With ``op`` (raised from its ``make_node``), the message has the layout of a node's
    failure on test values: ``ValueError in Reshape{2}: ...``, the user's line, and each
    input with its dtype, shape and the line that built it.
    """
    if isinstance(problem, BaseException):
        kind = type(problem)
    site = capture_site(config.traceback__limit)
    cls = build_error_class(kind)
    if op is None:
        return error_from_record(cls, ErrorRecord(str(problem), site=site))
    node = UnbuiltNode(op, list(inputs), site)
    error = problem if isinstance(problem, BaseException) else kind(problem)
    hint = "Static shapes are checked as the node is built; the line above is where it failed."
    built = error_from_record(cls, node_record(node, error, notes=[hint]))
    built.original, built.node = error, node
    return built


def label(var: Variable) -> str:
    """A name for messages: the user's name, else the name assigned on the user's line."""
    if var.name is not None:
        return var.name
    if isinstance(var, Constant):
        return f"constant {var.auto_name()}"
    if var.owner is None or len(var.owner.outputs) == 1:
        assigned = var.site.assigned_name()
        if assigned is not None:
            return assigned
        expression = var.site.expression()  # a part of the line: show its source
        if expression is not None and len(expression) <= 40 and "\n" not in expression:
            return expression
    if var.owner is None:  # an unnamed input: its kind, not its type's repr (``<TensorType(...)>``)
        return f"unnamed {getattr(var.type, 'kind_name', 'input')}"
    return var.auto_name()


def operand_label(var: Variable, name_of: Callable[[Variable], str] = label) -> str:
    """``var`` as an operand in a node's words (``x[t]``, ``grad of x[idx]``): its label
    (``name_of``), an unnamed constant's value, else its op's public name: one level, a
    label never spells a whole graph, nor Theano's spelling of an op."""
    if isinstance(var, Constant) and var.name is None:
        return var.auto_name()
    text = name_of(var)
    spelled = var.owner is not None and var.name is None and text == var.auto_name()
    return var.owner.op.public_name() if spelled else text


def describe_given(value: Any) -> str:
    """What a user passed, for an error refusing it: a variable's label and type, else
    the object's type and (shortened) repr: ``int 3``, ``'w' (float32 (?,))``."""
    if isinstance(value, Variable):
        return f"{label(value)!r} ({value.type.short()})"
    return f"{type(value).__name__} {reprlib.repr(value)}"


def input_records(node: Apply | UnbuiltNode, values: Sequence[Any] | None = None
                  ) -> tuple[ValueRecord, ...]:
    """A :class:`ValueRecord` per input of ``node``: its label, dtype and shape (those
    of ``values[i]`` where given: a test value, a call's value, or anything with a
    ``dtype`` and a ``shape``; else its static type's) and the line that built it."""
    records = []
    for i, var in enumerate(node.inputs):
        value = values[i] if values is not None else None
        dtype, shape = (var.dtype, var.type.shape) if value is None else (value.dtype, value.shape)
        records.append(ValueRecord(i, label(var), str(dtype), tuple(shape), where_built(var),
                                   constant=isinstance(var, Constant)))
    return tuple(records)


def describe_inputs(node: Apply | UnbuiltNode, values: Sequence[np.ndarray | None] | None = None
                    ) -> list[str]:
    """One line per input: index, label, dtype and shape, and where it was built."""
    return value_lines(input_records(node, values))


def where_built(var: Variable) -> str:
    """``built at model.py:12: <line>`` for a computed variable, ``input created at ...``
    for an input, ``constant`` for a constant ('' when unknown)."""
    if isinstance(var, Constant):
        return "constant"
    return var.site.describe("input created at" if var.owner is None else "built at")


def failure_problem(node: Apply | UnbuiltNode, err: BaseException) -> str:
    """What ``err`` says about ``node``, naming its inputs by their labels (an error
    raised while lowering, which names them by position, says it again with the names:
    its ``with_names``), without repeating the op's name."""
    op_name = node.op.display_name()
    reword = getattr(err, "with_names", None)
    text = reword([label(v) for v in node.inputs]) if reword is not None else str(err)
    return text[len(op_name) + 2:] if text.startswith(f"{op_name}: ") else text


def failure_headline(node: Apply | UnbuiltNode, err: BaseException, context: str = "") -> str:
    """``ValueError in dot: <message>`` (without repeating the op's name)."""
    return node_record(node, err, context=context).headline


def node_record(node: Apply | UnbuiltNode, problem: str | BaseException, kind: str = "",
                context: str = "", values: Sequence[Any] | None = None, notes: Sequence[str] = (),
                details: Sequence[str] = (), values_from: str = "static") -> ErrorRecord:
    """The record of ``node``'s failure: ``problem`` (an exception: its kind and what it
    says, inputs named; or the text, of ``kind``), where it ran (``context``), its inputs
    (shaped as ``values``, see :func:`input_records`), ``notes`` and, under
    ``exception_verbosity='high'``, ``details`` and the registered sections."""
    if isinstance(problem, BaseException):
        kind, problem = kind or type(problem).__name__, failure_problem(node, problem)
    if config.exception_verbosity == "high":
        details = list(details)
        if isinstance(node, Apply):
            for section in _HIGH_VERBOSITY_SECTIONS:
                details.extend(section(node))
    return ErrorRecord(problem, kind, node, node.op.display_name(), context,
                       inputs=input_records(node, values),
                       values_from=values_from if values is None else "test values",
                       site=node.site, notes=tuple(notes), details=tuple(details))


def message_of(record: ErrorRecord, values: bool = True) -> str:
    """The message drawn from ``record`` by ``config.exception_verbosity``: 'low': the
    headline and the user's line; 'medium' (default): also each input, the notes and
    (unless ``values`` is False) a failed call's values; 'high': also more user frames
    and the details."""
    frames = 1 if config.exception_verbosity != "high" else config.traceback__limit
    return record.text(config.exception_verbosity, frames, values)


def error_from_record(cls: type[BaseException], record: ErrorRecord) -> BaseException:
    """An error of class ``cls`` carrying ``record``, its message drawn from it."""
    error = cls(message_of(record))
    error.record = record
    return error


def node_error(cls: type[BaseException], node: Apply | UnbuiltNode, headline: str,
               values: Sequence[Any] | None = None, extra: Sequence[str] = ()) -> BaseException:
    """An error of class ``cls`` about ``node`` whose headline is made whole
    (``headline``), in the layout of :func:`format_node_error`, carrying its record."""
    return error_from_record(cls, node_record(node, headline, values=values, notes=extra))


def set_record(error: BaseException, record: ErrorRecord) -> BaseException:
    """Give ``error`` a new record (e.g. with a failed call's values) and the message
    drawn from it; returns ``error``."""
    error.record = record
    error.args = (message_of(record),) + error.args[1:]
    return error


def format_at_line(headline: str, site: Site, extra: Sequence[str] = ()) -> str:
    """``headline``, then the user's line (more of its frames under
    ``exception_verbosity='high'``), then ``extra``."""
    frames = 1 if config.exception_verbosity != "high" else config.traceback__limit
    lines = [headline]
    if site:
        lines.append(site.format(limit=frames))
    lines.extend(extra)
    return "\n".join(lines)


def format_node_error(node: Apply | UnbuiltNode, headline: str,
                      values: Sequence[np.ndarray | None] | None = None,
                      extra: Sequence[str] = ()) -> str:
    """The shared layout of a node failure, by ``config.exception_verbosity``.

    ``node``: a node, or the op and inputs of one not built yet (:class:`UnbuiltNode`).
    'low': the headline and the user's line; 'medium' (default): also each input's
    name, dtype, shape and the line that built it, and ``extra``; 'high': also more
    user frames and the sections registered by higher layers (e.g. a debugprint).
    """
    return message_of(node_record(node, headline, values=values, notes=extra))


_HIGH_VERBOSITY_SECTIONS: list[Callable[[Apply], list[str]]] = []


def register_high_verbosity_section(section: Callable[[Apply], list[str]]) -> None:
    """Add lines about a failing node to messages under ``exception_verbosity='high'``
    (the printing layer registers a debugprint of the node)."""
    if section not in _HIGH_VERBOSITY_SECTIONS:
        _HIGH_VERBOSITY_SECTIONS.append(section)


_NODE_PRINTERS: list[Callable[[Apply], str]] = []


def register_node_printer(printer: Callable[[Apply], str]) -> None:
    """Install the text view of a node that messages may include (the printing layer
    registers its debugprint), so lower layers show it without importing printing."""
    if printer not in _NODE_PRINTERS:
        _NODE_PRINTERS.append(printer)


def printed_node(node: Apply) -> str | None:
    """The registered text view of ``node`` (a debugprint), or None when none is."""
    return _NODE_PRINTERS[-1](node) if _NODE_PRINTERS else None
