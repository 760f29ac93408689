"""The graph IR: variables, nodes, types, ops, the function graph, the rewrite framework,
the NumPy evaluator and test values, errors, creation sites and config.

It imports nothing of the op library (``symnb.core.tensor``) nor any layer above: the
tensor package registers its variable classes on ``TensorType``. This face hands on the
names of ``basic.py`` (what ``symnb.core.graph`` held before it became a package); code
in the library imports the submodules directly.
"""

from symnb.core.graph.basic import Apply as Apply
from symnb.core.graph.basic import Constant as Constant
from symnb.core.graph.basic import Place as Place
from symnb.core.graph.basic import Tag as Tag
from symnb.core.graph.basic import Variable as Variable
from symnb.core.graph.basic import ancestors as ancestors
from symnb.core.graph.basic import clone_replace as clone_replace
from symnb.core.graph.basic import graph_inputs as graph_inputs
from symnb.core.graph.basic import node_places as node_places
from symnb.core.graph.basic import toposort as toposort
from symnb.core.graph.basic import walk_nodes as walk_nodes

__all__ = ["Variable", "Constant", "Apply", "Tag", "toposort", "ancestors", "graph_inputs",
           "clone_replace", "walk_nodes", "node_places", "Place"]
