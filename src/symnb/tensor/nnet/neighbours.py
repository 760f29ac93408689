"""``symnb.tensor.nnet.neighbours``: image patches as matrix rows, and back."""

from symnb.core.tensor.neighbours import Images2Neibs, Neibs2Images, images2neibs, neibs2images

__all__ = ["images2neibs", "neibs2images", "Images2Neibs", "Neibs2Images"]
