"""Which rewrites run: Theano's ``Mode.including`` / ``excluding`` / ``requiring``.

Every pass of the pipeline and every rewrite of a local pass carries tags: its own
name, its pass's name and the optimizer levels that run the pass (``'fast_run'``,
``'fast_compile'``). As in Theano's optimizer queries, a rewrite runs when one of its
tags is the level or an included tag, none is excluded, and every required tag is
among them. ``Mode(optimizer=None).including('stabilize')`` thus runs the
stabilizations alone; ``mode.excluding('fusion')`` keeps elementwise chains unfused;
``mode.excluding('local_sigmoid')`` drops one rewrite.

Tags are names, as in Theano: ``including`` or ``excluding`` a tag that no symnb pass or
rewrite carries selects or removes nothing (Theano 1.0's query did the same, and its
programs and tests name its own tags: ``'scan'``, ``'ShapeOpt'``, ``'inplace'``...);
:data:`THEANO_ONLY_TAGS` says why symnb has none of Theano's best known ones. A tag that
is neither symnb's nor one of those warns (:class:`UnknownRewriteTagWarning`: a typo
such as ``'fuson'`` is said, and changes nothing). ``requiring`` an unknown tag is refused:
no rewrite would run at all.
"""

from __future__ import annotations

from dataclasses import dataclass
import warnings
from typing import Iterable

__all__ = ["RewriteQuery", "THEANO_ONLY_TAGS", "THEANO_ALIASES", "UnknownRewriteTagWarning"]


class UnknownRewriteTagWarning(UserWarning):
    """``Mode.including``/``excluding`` named a tag that no rewrite carries (it selects
    or removes nothing, as in Theano)."""

#: Theano's tags with no symnb pass: ``including``/``excluding`` them selects nothing.
THEANO_ONLY_TAGS: dict[str, str] = {
    "inplace": "XLA decides which buffers to reuse; symnb has no in-place rewrites",
    "gpu": "the device is chosen by JAX, not by graph rewrites",
    "gpuarray": "the device is chosen by JAX, not by graph rewrites",
    "cudnn": "XLA picks cuDNN kernels on a GPU itself",
    "cxx_only": "there is no C code: every graph is one XLA program",
    "c_blas": "dot products lower to XLA's dot, which calls the BLAS-like kernels",
    "BlasOpt": "dot products lower to XLA's dot, which calls the BLAS-like kernels",
    "ShapeOpt": "shapes are static and computed when the graph is built",
    "local_elemwise_alloc": "XLA broadcasts without materializing the allocation",
    "uncanonicalize": "symnb has no uncanonicalize pass",
    "scanOp_pushout_output": "XLA hoists loop-invariant code out of the scan's loop",
    "local_fill_to_alloc": "symnb's fill is an Alloc when the graph is built: no fill to rewrite",
    "local_useless_fill": "symnb's fill is an Alloc when the graph is built: no fill to remove",
    "conv_gemm": "there is no C (GEMM) convolution: XLA lowers every convolution",
    "AbstractConvCheck": "there is no C convolution to replace the abstract ones: XLA lowers them",
}

#: Theano's names for passes symnb has under another name.
THEANO_ALIASES: dict[str, str] = {
    "local_elemwise_fusion": "fusion",
    "elemwise_fusion": "fusion",
    "composite_elemwise_fusion": "fusion",
    "merge1": "merge",
    "merge2": "merge",
    "merge3": "merge",
    # Theano's scan rewrites (scan_opt.py) and symnb's counterparts (core/scan/rewriting.py)
    "scanOp_pushout_seqs_ops": "scan_elementwise_output",
    "scanOp_pushout_nonseqs_ops": "scan_invariant_output",
    "scanOp_merge": "scan_merge",
    **{f"scanOp_remove_constants_and_unused_inputs{i}": "scan_remove_unused_inputs" for i in range(4)},
    "scanop_remove_constants_and_unused_inputs2": "scan_remove_unused_inputs",  # Theano's spelling
}


@dataclass(frozen=True)
class RewriteQuery:
    """Tags added to the level (``include``), removed (``exclude``) and required."""

    include: frozenset = frozenset()
    exclude: frozenset = frozenset()
    require: frozenset = frozenset()

    def extended(self, known: set[str], include: Iterable[str] = (),
                 exclude: Iterable[str] = (), require: Iterable[str] = ()) -> "RewriteQuery":
        """This query with more tags, each checked against ``known`` (the pipeline's)."""
        return RewriteQuery(self.include | _checked(include, known, "including"),
                            self.exclude | _checked(exclude, known, "excluding"),
                            self.require | _checked(require, known, "requiring"))

    def selects(self, level: str | None, tags: set[str]) -> bool:
        """Whether a pass or rewrite with ``tags`` runs at ``level`` under this query."""
        wanted = self.include | ({level} if level is not None else set())
        return bool(tags & wanted) and not tags & self.exclude and self.require <= tags

    def __bool__(self) -> bool:
        return bool(self.include or self.exclude or self.require)

    def describe(self) -> str:
        """``including=... excluding=...`` for a mode's repr (empty without tags)."""
        parts = [f"{name}={sorted(tags)!r}" for name, tags in
                 (("including", self.include), ("excluding", self.exclude),
                  ("requiring", self.require)) if tags]
        return ", ".join(parts)


def _checked(tags: Iterable[str], known: set[str], method: str) -> frozenset:
    checked = set()
    for tag in tags:
        if not isinstance(tag, str):
            raise TypeError(f"Mode.{method}: tags are strings, got {tag!r}")
        tag = THEANO_ALIASES.get(tag, tag)
        if tag in THEANO_ONLY_TAGS:
            if method == "requiring":  # would select nothing at all: not a no-op
                raise ValueError(f"Mode.requiring({tag!r}): symnb has no such rewrites "
                                 f"({THEANO_ONLY_TAGS[tag]}), so nothing would run")
            continue
        if tag not in known:
            message = (f"Mode.{method}: unknown rewrite tag {tag!r}; symnb's tags are "
                       f"{', '.join(sorted(known))}; Theano's without a symnb pass are "
                       f"{', '.join(sorted(THEANO_ONLY_TAGS))}")
            if method == "requiring":
                raise ValueError(f"{message}. No rewrite would run at all.")
            # Theano's tags are names: an unknown one selects or removes nothing.
            warnings.warn(f"{message}. It {'selects' if method == 'including' else 'removes'} "
                          f"nothing.", UnknownRewriteTagWarning, stacklevel=4)
            continue
        checked.add(tag)
    return frozenset(checked)
