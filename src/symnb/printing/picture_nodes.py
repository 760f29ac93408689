"""The parts of a :class:`~symnb.printing.graph_model.GraphPicture`: the nodes
(:class:`PictureNode`, an Apply, a root variable or a closed group's box), the edges
between them (:class:`PictureEdge`), an expanded node's inner pictures
(:class:`InnerPicture`) and the timed units that are no node (:class:`TimeUnit`).

They are plain records: :mod:`symnb.printing.graph_model` builds them, and the drawings
(SVG, HTML, the layout) read them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from symnb.compile.profiling.format import percent_text, seconds_text
from symnb.core.graph.basic import Apply, Variable

__all__ = ["PictureNode", "PictureEdge", "TimeUnit", "InnerPicture"]


@dataclass
class TimeUnit:
    """A part of a timed call that is no single box: a fused XLA operation (one unit,
    its members marked ``in F1``) or the time outside the program; drawn above the graph
    with its share and the same heat scale as the boxes."""

    text: str
    seconds: float
    share: float
    heat: float


@dataclass(eq=False)
class PictureNode:
    """One drawn node: an Apply (``kind`` ``apply``) or a root variable (``input``,
    ``shared``, ``constant``)."""

    id: str
    kind: str
    label: str           # the user's name / source text (apply), the name (root)
    sublabel: str        # the op (apply), the type (root)
    family: str
    obj: Apply | Variable
    is_output: bool = False
    note: str = ""       # an inner graph's output role: then / else / until
    error: bool = False  # named by the error being shown
    has_inner: bool = False
    inner: list["InnerPicture"] = field(default_factory=list)  # when expanded
    role: str = ""       # what made it, when not the user's line: "grad of tanh", "fused: ..."
    group_inputs: list = field(default_factory=list)   # a group's box: what enters it
    group_outputs: list = field(default_factory=list)  # and what leaves it
    seconds: float | None = None  # time per call, when the picture carries times
    time_share: float = 0.0  # of the call (or of the timed nodes' total)
    heat: float = 0.0        # seconds over the costliest node's: 1.0 for the costliest
    share_of: str = "the nodes' time"  # what time_share is a share of
    change: str = ""     # a rewrite comparison's mark: "removed", "added" or "" (unchanged)
    fused_in: str = ""  # the label of the fused operation (``F1``) doing its work, if untimed

    @property
    def time_tag(self) -> str:
        """`` · 35.0%``: the share a timed node shows after its op (`` · in F1``: a node
        whose work is all in a fused operation), or ''."""
        if self.seconds is None:
            return f" \u00b7 in {self.fused_in}" if self.fused_in else ""
        return f" \u00b7 {percent_text(100 * self.time_share)}"

    @property
    def caption(self) -> str:
        """The second line drawn in the box: the op (or type), then the time tag."""
        return self.sublabel + self.time_tag

    def time_text(self) -> str:
        """``1.200e-04s per call (35.0% of the call)``, or "" when untimed: written as
        the profile's tables write them."""
        if self.seconds is None:
            return (f"no time of its own: its work is in the fused XLA operation {self.fused_in}, "
                    "timed as one unit (above the graph)") if self.fused_in else ""
        return (f"{seconds_text(self.seconds)} per call ({percent_text(100 * self.time_share)} "
                f"of {self.share_of})")

    @property
    def variable(self) -> Variable:
        """The variable this node stands for (an Apply's first output; a group's first
        output)."""
        if self.kind == "group":
            return self.group_outputs[0] if self.group_outputs else self.group_inputs[0]
        return self.obj.outputs[0] if isinstance(self.obj, Apply) else self.obj

    def search_text(self) -> str:
        """The SVG's ``data-search`` attribute: its label and sublabel, lower case."""
        return f"{self.label} {self.sublabel}".lower()


@dataclass(eq=False)
class PictureEdge:
    source: str
    target: str
    label: str           # the shape moved, ``float32 (256, 3)``, prefixed by the input position
    variable: Variable
    port: tuple[int, int] = (0, 1)  # (input position, number of inputs) of the target
    variables: list = field(default_factory=list)  # every variable it carries (into a group)

    def __post_init__(self) -> None:
        if not self.variables:
            self.variables.append(self.variable)


@dataclass(eq=False)
class InnerPicture:
    """An inner graph drawn inside an expanded node, under ``title``."""

    title: str
    picture: "GraphPicture"  # symnb.printing.graph_model's, which imports this module
