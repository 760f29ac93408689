"""Graph rewriting: the framework, the rewrite passes and the optimizer levels.

    from symnb.core.rewriting import optimize
    optimize(fgraph, "fast_run")      # or "fast_compile", or None

See :mod:`symnb.core.rewriting.passes` for the order of the passes and
:mod:`symnb.core.graph.rewriting` for writing a rewrite.
"""

from symnb.core.graph.rewriting import (
    GraphPass, LocalPass, NodeRewriter, RewriteFailureWarning, RewriteLimitWarning, node_rewriter,
)
from symnb.core.rewriting.passes import (
    LEVELS, PASSES, PIPELINE, optimize, passes_for, register_rewrite, rewrite_tags,
)
from symnb.core.rewriting.query import THEANO_ONLY_TAGS, RewriteQuery
from symnb.core.rewriting import assertions  # noqa: F401,E402  (registers its rewrite)
from symnb.core.rewriting import batchnorm  # noqa: F401,E402  (registers its rewrites)
from symnb.core.rewriting import gradient_views  # noqa: F401,E402  (registers its rewrite)
from symnb.core.rewriting import nnet  # noqa: F401,E402  (registers Theano's T.nnet rewrites)
from symnb.core.rewriting import argmax  # noqa: F401,E402  (registers the argmax rewrites)

__all__ = ["optimize", "node_rewriter", "NodeRewriter", "LocalPass", "GraphPass", "PASSES", "LEVELS",
           "passes_for", "register_rewrite", "RewriteLimitWarning", "RewriteFailureWarning",
           "PIPELINE", "rewrite_tags", "RewriteQuery", "THEANO_ONLY_TAGS"]
