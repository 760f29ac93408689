"""symnb's errors and warnings, public in one place (as ``jax.errors``).

    from symnb.errors import SymnbError      # also sn.SymnbError

Every error symnb raises about the user's graph, call or configuration is a
:class:`SymnbError` and also the built-in type a user would catch (``ValueError``,
``TypeError``, ``IndexError``...), so ``except sn.SymnbError`` catches symnb's verdicts and
``except ValueError`` keeps working::

    SymnbError
    ├── BuildError                  the user's line gives a node inputs it cannot take
    │   ├── TestValueError          shapes or values that do not fit (ValueError)
    │   │   ├── TestValueAssertionError   an Assert failed on test values (AssertionError)
    │   │   └── BuildIndexError     an index out of range (IndexError)
    │   │       └── BuildIndexTypeError   an index of a kind that cannot index (also TypeError)
    │   ├── BuildTypeError          dtypes or numbers of dimensions that do not fit (TypeError)
    │   ├── BuildKeyError           an unknown key in an argument (KeyError)
    │   └── BuildNotImplementedError   something symnb cannot build (NotImplementedError)
    ├── MissingTestValueError       a test value asked for, an input has none (AttributeError)
    ├── InnerNodeError              a node of a loop body or branch failed (ValueError)
    ├── DynamicShapeError           a shape no call can make static (ValueError)
    ├── GraphRuntimeError           a compiled function failed on its arguments (ValueError)
    │   ├── IndexOutOfBoundsError   an index out of range at run time (IndexError)
    │   ├── AssertionFailedError    a compiled ``Assert`` failed (AssertionError)
    │   └── LinAlgError             a matrix a compiled op cannot factor (numpy.linalg.LinAlgError)
    ├── OutOfMemoryError            the device has not the memory (MemoryError)
    ├── DeviceMismatchError         a call's values committed to different devices (ValueError)
    ├── X64DisabledError            a 64-bit graph traced by JAX with x64 off (TypeError)
    ├── UnsupportedJaxError         JAX or jaxlib outside the tested versions (ImportError)
    ├── MissingLoweringError        an Op class without XLA lowering (NotImplementedError)
    ├── NanGuardError               NanGuardMode found a NaN, Inf or big value (AssertionError)
    ├── DebugModeError              DebugMode: a lowering or rewrite disagrees with NumPy (AssertionError)
    │   └── InvalidValueError       DebugMode's check_isfinite: a NaN or Inf (Theano's name)
    ├── MissingInputError           ``sn.function``: an output needs an input not given (ValueError)
    ├── UnusedInputError            ``sn.function``: an input no output uses (ValueError)
    ├── DisconnectedInputError      ``sn.grad``: the cost does not depend on wrt (ValueError)
    ├── NullGradientError           ``sn.grad``: an integer cost or wrt (TypeError)
    │   └── NullTypeGradError       a gradient an op says is undefined (Theano's name)
    ├── GradientError               ``verify_grad``: gradient and finite differences differ (AssertionError)
    ├── InconsistencyError          a replacement of the wrong type in a graph (TypeError)
    ├── ConfigError                 an unknown flag or a bad value (ValueError)
    │   └── UnknownFlagError        ``change_flags`` with a keyword that is no flag (TypeError)
    ├── NotInSymnbError             a Theano name symnb has not (AttributeError)
    ├── NotScalarConstantError      ``T.get_scalar_constant_value``: no scalar known before the program runs
    │   └── EmptyConstantError      the constant holds no element (Theano's)
    ├── ModelFileError              ``sn.load``: a file that does not match the variables (ValueError)
    └── GraphvizNotFoundError       ``pydotprint`` without Graphviz's ``dot`` (RuntimeError)

:class:`PerformContractError` is deliberately not a ``SymnbError``: it reports a bug in
symnb (an op's NumPy reference returned another dtype than it declared), which an
``except SymnbError`` written for the user's mistakes must not hide.

The warning categories, for ``warnings.filterwarnings``: :class:`NonFiniteTestValueWarning`,
:class:`TestValueWarning`, :class:`RewriteLimitWarning`, :class:`RewriteFailureWarning`,
:class:`DebugModeNote`.

This module imports no JAX (``import symnb`` imports it).
"""

from symnb.compile.construction import MissingInputError, UnusedInputError
from symnb.compile.debugmode import DebugModeError, DebugModeNote, InvalidValueError
from symnb.compile.nanguard import NanGuardError
from symnb.core.absent import NotInSymnbError
from symnb.core.gradient import DisconnectedInputError, NullGradientError, NullTypeGradError
from symnb.core.graph.config import ConfigError, UnknownFlagError
from symnb.core.graph.error_base import SymnbError
from symnb.core.graph.errors import (
    BuildError, BuildIndexError, BuildIndexTypeError, BuildKeyError, BuildNotImplementedError, BuildTypeError,
    DeviceMismatchError, DynamicShapeError, GraphRuntimeError, IndexOutOfBoundsError, InnerNodeError,
    MissingLoweringError, MissingTestValueError, OutOfMemoryError, TestValueAssertionError,
    TestValueError, UnsupportedJaxError, X64DisabledError,
)
from symnb.core.graph.evaluate import PerformContractError
from symnb.core.graph.fgraph import InconsistencyError
from symnb.core.graph.static import EmptyConstantError, NotScalarConstantError
from symnb.core.rewriting.query import UnknownRewriteTagWarning
from symnb.core.graph.rewriting import RewriteFailureWarning, RewriteLimitWarning
from symnb.core.graph.test_value import NonFiniteTestValueWarning, TestValueWarning
from symnb.core.tensor.assertion import AssertionFailedError
from symnb.core.tensor.linalg_base import LinAlgError
from symnb.gradient import GradientError
from symnb.io import ModelFileError
from symnb.printing.pydot import GraphvizNotFoundError

__all__ = [
    # the hierarchy
    "SymnbError",
    "BuildError", "TestValueError", "TestValueAssertionError", "BuildIndexError", "BuildIndexTypeError",
    "BuildTypeError", "BuildKeyError", "BuildNotImplementedError",
    "MissingTestValueError", "InnerNodeError", "DynamicShapeError",
    "GraphRuntimeError", "IndexOutOfBoundsError", "LinAlgError", "OutOfMemoryError", "X64DisabledError",
    "UnsupportedJaxError", "MissingLoweringError", "DeviceMismatchError",
    "AssertionFailedError", "NanGuardError", "DebugModeError", "InvalidValueError",
    "MissingInputError", "UnusedInputError",
    "DisconnectedInputError", "NullGradientError", "NullTypeGradError", "GradientError",
    "InconsistencyError", "ConfigError", "UnknownFlagError", "NotInSymnbError", "ModelFileError",
    "GraphvizNotFoundError", "NotScalarConstantError", "EmptyConstantError",
    # symnb's own bugs (not a SymnbError: see the module docstring)
    "PerformContractError",
    # warning categories
    "NonFiniteTestValueWarning", "TestValueWarning", "RewriteLimitWarning", "RewriteFailureWarning",
    "DebugModeNote", "UnknownRewriteTagWarning",
]
