"""ipywidgets views of graphs, test values, profiles and rewrites.

    from symnb.widgets import GraphExplorer, TestValueEditor, ProfileView, RewriteStepper

Each widget is a plain model (methods usable and testable without a notebook, and a
``text()`` summary) with its ipywidgets layout built on first display; ipywidgets is
imported only then.
"""

from symnb.widgets.editor import TestValueEditor
from symnb.widgets.explorer import GraphExplorer
from symnb.widgets.profile_view import ProfileView
from symnb.widgets.stepper import RewriteStepper

__all__ = ["GraphExplorer", "TestValueEditor", "ProfileView", "RewriteStepper"]
