"""``min_informative_str``: the shortest tree that explains a variable (Theano's, from pylearn2).

    >>> z = x + y; z.name = 'z'
    >>> print(min_informative_str(2. * z))
    A. Elemwise{mul,no_inplace}
     B. TensorConstant{2.0}
     C. z

The graph is expanded only down to named variables and constants, which is what makes
it short enough for error messages about graphs composed from several authors' code.
Each variable gets a capital-letter tag; a variable met again prints as ``<tag>``.
"""

from __future__ import annotations

from symnb.core.graph.basic import Variable
from symnb.printing._common import char_id, leaf_text, output_text

__all__ = ["min_informative_str", "TagGenerator"]


class TagGenerator:
    """Hands out the tags A, B, ..., Z, BA, BB, ... in order."""

    def __init__(self) -> None:
        self.cur_tag_number = 0

    def get_tag(self) -> str:
        tag = char_id(self.cur_tag_number)
        self.cur_tag_number += 1
        return tag


def min_informative_str(obj: Variable, indent_level: int = 0, _prev_obs: dict | None = None,
                        _tag_generator: TagGenerator | None = None) -> str:
    """The lettered tree of ``obj``, stopping at named variables and constants.

    ``indent_level`` is the number of spaces before the first line (each level below
    adds one). ``_prev_obs`` (``id(variable) -> tag``) and ``_tag_generator`` let
    several calls share tags and back-references, as in Theano.
    """
    if not isinstance(obj, Variable):
        raise TypeError(f"min_informative_str expects a Variable, got {type(obj).__name__}")
    prev_obs = {} if _prev_obs is None else _prev_obs
    tags = TagGenerator() if _tag_generator is None else _tag_generator
    lines = []
    # Depth first with an explicit stack (no recursion limit on deep graphs); children
    # are pushed in reverse so they are tagged in input order.
    stack: list[tuple[Variable, int]] = [(obj, indent_level)]
    while stack:
        var, level = stack.pop()
        indent = " " * level
        if id(var) in prev_obs:
            lines.append(f"{indent}<{prev_obs[id(var)]}>")
            continue
        tag = tags.get_tag()
        prev_obs[id(var)] = tag
        if var.name is not None or var.owner is None:
            lines.append(f"{indent}{tag}. {leaf_text(var)}")
            continue
        lines.append(f"{indent}{tag}. {output_text(var)}")
        stack.extend((inp, level + 1) for inp in reversed(var.owner.inputs))
    return "\n".join(lines)
