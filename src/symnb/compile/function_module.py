"""``symnb.compile.function_module``: Theano's module path of the compiled function's
class (``from theano.compile.function_module import Function``) and of its input
shortcuts' reading. Importing it imports JAX (``symnb.compile.function``)."""

from symnb.compile.function import Function
from symnb.compile.io import convert_function_input

__all__ = ["Function", "convert_function_input"]
