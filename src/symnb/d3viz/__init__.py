"""``symnb.d3viz`` (Theano's ``theano.d3viz``): a graph as an interactive HTML page.

``d3viz(fct, outfile)`` writes the page; ``d3write(fct, path)`` the graph in Graphviz's
dot format. Theano drew the page with d3.js from a dot file; symnb writes its own
graph explorer as it is saved in a notebook (the viewer's script and the graph's model
inside the one file, nothing loaded from elsewhere), opened in any browser.
"""

from symnb.d3viz.d3viz import d3viz, d3write

__all__ = ["d3viz", "d3write"]
