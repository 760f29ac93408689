"""symnb's core: graph IR, types, ops with their NumPy reference, test values, config.

The core imports NumPy only, never JAX or IPython.
"""

from symnb.core.graph.config import config
from symnb.core.graph.basic import Apply, Constant, Variable
from symnb.core.graph.op import Op
from symnb.core.graph.type import TensorType
from symnb.core.tensor.shared import SharedVariable, shared

__all__ = ["config", "Apply", "Constant", "Variable", "Op", "TensorType", "SharedVariable", "shared"]
