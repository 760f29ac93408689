"""``symnb.tensor.nnet.neighbours``: image patches as matrix rows, and back."""

from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.core.tensor.neighbours import Images2Neibs, Neibs2Images, images2neibs, neibs2images

__all__ = ["images2neibs", "neibs2images", "Images2Neibs", "Neibs2Images"]

_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)
