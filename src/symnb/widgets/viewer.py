"""The client-side graph viewer's page parts: its script, style and saved form.

The viewer (``static/viewer_*.js``, thirteen plain scripts sharing one scope) runs in two
places from the same source:

- live, as the anywidget front end of :class:`~symnb.widgets.explorer.GraphExplorer`
  (:func:`widget_esm`: the viewer, then ``static/widget_render.js``), with ELK (``static/elk-worker.min.js``, elkjs, EPL-2.0, built by
  ``js/build.sh``) in a web worker made from a Blob URL of its text. The module holds no
  ELK: anywidget saves the module with every view's widget state, and ELK's 1.6 MB there
  grew a notebook by that much per view. The first view on a page asks its kernel for
  ELK's source (``{"elk": true}``, answered ``{"elk_source": ...}``); every view on the page
  shares that one answer. With no kernel to answer (widget state restored without one)
  the view lays out with the simple layout and says why;
- saved, as a ``<script>`` in the snapshot's ``text/html`` (:func:`saved_viewer_html`:
  the viewer, then ``static/saved_boot.js`` with its version and the view's key),
  which boots the same viewer on the embedded model where a page runs scripts (trusted
  JupyterLab and Notebook 7, VS Code, nbconvert's HTML) -- lazily, when it scrolls into
  view, and never while the live view hides it. The saved viewer lays out with the
  viewer's simple layered layout: ELK's 1.6 MB (460 kB gzipped) would make every saved
  view that much bigger.

The view's state (open groups, selection, overlay) lives in the browser. The live view
sends it to the kernel in ONE debounced message after the user stops changing it
(``{"state": ...}``, 1.5 s); Python writes it into a tiny separate output
(:func:`state_html`, updated in place by its display id), which the saved viewer reads
when it boots. Opening, closing, selecting and searching send nothing else. The Python
API's changes come as commands naming the groups to open and to close (never the whole
set): what the user opened in the browser stays open.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from functools import lru_cache
from pathlib import Path

__all__ = ["viewer_source", "elk_source", "viewer_css", "widget_esm", "saved_viewer_html", "state_html",
           "STATE_DEBOUNCE_MS", "ELK_WAIT_MS", "viewer_version"]

_STATIC = Path(__file__).parent / "static"
# In this order (each file's header names its part): the model, the layouts, drawing, the
# page; then the view: its state (data, in model ids), the camera and the renderer (state +
# model -> SVG/DOM), which layout draws, the controller (events and commands -> state
# changes), the events, and SN.mount, which puts them together.
_PARTS = ("viewer_model.js", "viewer_layout.js", "viewer_simple.js", "viewer_route.js", "viewer_draw.js",
          "viewer_page.js", "viewer_state.js", "viewer_camera.js", "viewer_render.js", "viewer_arrange.js",
          "viewer_controller.js", "viewer_events.js", "viewer_mount.js")
STATE_DEBOUNCE_MS = 1500
# How long a live view waits for its kernel to send ELK's source before it lays out with
# the simple layout (no kernel: a notebook opened with its widget state saved).
ELK_WAIT_MS = 2000  # a live view's first paint waits this long at most for ELK's source


@lru_cache(maxsize=None)
def _static(name: str) -> str:
    """The text of ``static/<name>``."""
    return (_STATIC / name).read_text(encoding="utf-8")


# A line that is only a comment. Every saved view carries the viewer's source (about
# 115 kB with them, 90 kB without), so the comments stay in the files and out of what is
# shipped. Safe as a line filter: no part holds a string or template spanning lines
# (tests/widgets/test_graph_view.py checks it).
_COMMENT_LINE = re.compile(r"^[ \t]*//.*\n", re.MULTILINE)


@lru_cache(maxsize=1)
def _viewer_expression() -> str:
    """The viewer as one JavaScript expression whose value is its namespace (its parts'
    code in order, their whole-line comments left out)."""
    body = "\n".join(_COMMENT_LINE.sub("", _static(part)) for part in _PARTS)
    return f"(function () {{\n\"use strict\";\nconst SN = {{}};\n{body}\nreturn SN;\n}})()"


@lru_cache(maxsize=1)
def viewer_source() -> str:
    """The viewer as one script defining ``SymnbViewer`` (``decodeModel``, ``mount``, ...)."""
    return f"const SymnbViewer = {_viewer_expression()};\n"


@lru_cache(maxsize=1)
def viewer_version() -> str:
    """A digest of the viewer's source: saved views made by one symnb share one copy."""
    return hashlib.sha256(_viewer_expression().encode("utf-8")).hexdigest()[:12]


@lru_cache(maxsize=1)
def _saved_viewer_source() -> str:
    # Saved outputs are classic scripts sharing the page's global scope: a top-level
    # `const` would be declared again by the next saved view (a SyntaxError that stops it).
    # Each viewer version is defined once, under its digest, for all the views on the page.
    key = json.dumps(viewer_version())
    return (f"window.SymnbViewers = window.SymnbViewers || {{}};\n"
            f"if (!window.SymnbViewers[{key}]) window.SymnbViewers[{key}] = {_viewer_expression()};\n")


@lru_cache(maxsize=1)
def elk_source() -> str:
    """elkjs's worker script (``static/elk-worker.min.js``), or "" when not built."""
    path = _STATIC / "elk-worker.min.js"
    return path.read_text(encoding="utf-8") if path.exists() else ""


@lru_cache(maxsize=1)
def viewer_css() -> str:
    return _static("viewer.css")




@lru_cache(maxsize=1)
def widget_esm() -> str:
    """The anywidget module: the viewer and ``render`` (ELK's source is asked of the kernel
    once per page, :meth:`GraphView answers <symnb.widgets.graph_view.graph_view_class>`)."""
    return (viewer_source() + f"const VIEWER_VERSION = {json.dumps(viewer_version())};\n"
            f"const STATE_DEBOUNCE_MS = {STATE_DEBOUNCE_MS};\nconst ELK_WAIT_MS = {ELK_WAIT_MS};\n"
            + _static("widget_render.js"))


def _script_text(source: str) -> str:
    # Inside <script>, only "</script" (any case) and "<!--" end or change the element.
    return source.replace("</", "<\\/").replace("<!--", "<\\!--")




@lru_cache(maxsize=1)
def _boot_script() -> str:
    """``static/saved_boot.js`` from its code on (its header comment left out of every
    saved view), after a newline, as saved views have always held it."""
    text = _static("saved_boot.js")
    return text[text.index("\n(function ("):]


def saved_viewer_html(key: str, encoded_model: str) -> str:
    """The saved viewer's part of the snapshot: its host, the model and the boot script
    (inert where scripts do not run: then the static overview beside it shows)."""
    style = f"<style>{viewer_css()}</style>"
    boot = _boot_script().replace("VIEWER_VERSION", json.dumps(viewer_version())).replace("SNAPSHOT_KEY", json.dumps(key))
    return (f'{style}<div class="symnb-saved-viewer"></div>'
            f'<script type="application/x-symnb-model" class="symnb-model">{_script_text(encoded_model)}</script>'
            f"<script>{_script_text(_saved_viewer_source() + boot)}</script>")


def state_html(key: str, state: dict) -> str:
    """The tiny output the saved viewer reads its state from (open groups, selection,
    overlay): a hidden element, replaced in place as the state changes."""
    text = html.escape(json.dumps(state, separators=(",", ":")), quote=True)
    return f'<div class="symnb-view-state" data-symnb-key="{key}" data-state="{text}" hidden></div>'
